#!/bin/sh
# The version is set in version.mk. dkms.conf, debian/changelog and the
# man page carry literal copies (dh_dkms and dpkg read text, not make).
# usage: version.sh             check that every copy agrees
#        version.sh set X.Y.Z   write X.Y.Z everywhere, with a changelog entry
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
mk=$(sed -n 's/^THPNUMA_VERSION := //p' "$top/version.mk")
dkms=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
deb=$(sed -n '1s/^thpnuma (\([^)]*\)).*/\1/p' "$top/debian/changelog")
man=$(sed -n 's/^\.TH .*"thpnuma \([^"]*\)".*/\1/p' "$top/userspace/thpnumactl/thpnumactl.8")

if [ "${1:-}" = set ]; then
	new=${2:?usage: version.sh set X.Y.Z}
	echo "$new" | grep -Eq '^[0-9]+(\.[0-9]+)*$' ||
		{ echo "version: not a version: $new" >&2; exit 2; }
	sed -i "s/^THPNUMA_VERSION := .*/THPNUMA_VERSION := $new/" "$top/version.mk"
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$new\"/" "$top/dkms.conf"
	sed -i "s/^\(\.TH .*\)\"thpnuma [^\"]*\"/\1\"thpnuma $new\"/" \
		"$top/userspace/thpnumactl/thpnumactl.8"
	if [ "$deb" != "$new" ]; then
		# The new entry keeps the maintainer of the last one.
		who=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$top/debian/changelog" | head -n 1)
		{
			printf 'thpnuma (%s) unstable; urgency=medium\n\n' "$new"
			printf '  * New upstream version %s.\n\n' "$new"
			printf ' -- %s  %s\n\n' "$who" "$(date -R)"
			cat "$top/debian/changelog"
		} > "$top/debian/changelog.new"
		mv "$top/debian/changelog.new" "$top/debian/changelog"
	fi
	echo "version: $new in version.mk, dkms.conf, debian/changelog, thpnumactl.8"
	exit 0
fi

passed=0 failed=0
for pair in "dkms.conf:$dkms" "debian/changelog:$deb" "thpnumactl.8:$man"; do
	file=${pair%%:*} v=${pair#*:}
	if [ "$v" = "$mk" ]; then
		passed=$((passed + 1)); echo "PASS version $file = version.mk ($mk)"
	else
		failed=$((failed + 1))
		echo "FAIL version $file has '$v', version.mk '$mk' (make set-version VERSION=...)"
	fi
done
echo "version: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
