#!/bin/sh
# The version is set in version.mk. dkms.conf, debian/changelog and the
# man page carry literal copies (dh_dkms and dpkg read text, not make).
# The supported kernel series likewise come from kernels.mk
# (SUPPORTED_SERIES, derived from SUPPORTED_KERNELS): dkms.conf's
# BUILD_EXCLUSIVE_KERNEL must accept exactly those, and the Makefile and
# Kbuild must refuse any other before building.
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

pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
# make_value VAR: VAR as kernels.mk sets it.
make_value() {
	make -s --no-print-directory -f "$top/kernels.mk" \
		--eval "print-value: ; @echo \$($1)" print-value
}
series=$(make_value SUPPORTED_SERIES)
kernels=$(make_value SUPPORTED_KERNELS)
# The series of each ABI (MAJOR.MINOR), in order, each once: derived here
# by other means than kernels.mk's make functions.
want=$(for k in $kernels; do echo "$k" | cut -d. -f1,2; done | awk '!seen[$0]++' |
	tr '\n' ' ' | sed 's/ $//')
if [ -n "$series" ] && [ "$series" = "$want" ]; then
	pass "kernels SUPPORTED_SERIES is the series of SUPPORTED_KERNELS ($series)"
else
	fail "kernels SUPPORTED_SERIES is '$series', want '$want' from SUPPORTED_KERNELS"
fi
# dkms.conf's regular expression against every series from 2.0 to 9.40:
# it must match the supported ones and no other.
regex=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$top/dkms.conf")
all=$(for major in 2 3 4 5 6 7 8 9; do
	seq -f "$major.%g" 0 40
done)
matched=$(for s in $all; do echo "$s.0-1-amd64"; done | grep -E "$regex" |
	sed 's/\.0-1-amd64$//' | tr '\n' ' ' | sed 's/ $//')
if [ -n "$regex" ] && [ "$matched" = "$series" ]; then
	pass "kernels dkms.conf BUILD_EXCLUSIVE_KERNEL accepts exactly $series"
else
	fail "kernels dkms.conf BUILD_EXCLUSIVE_KERNEL=\"$regex\" accepts '$matched', kernels.mk's SUPPORTED_SERIES is '$series'"
fi
unmatched=""
for k in $kernels; do
	echo "$k" | grep -Eq "$regex" || unmatched="$unmatched $k"
done
if [ -z "$unmatched" ]; then
	pass "kernels dkms.conf BUILD_EXCLUSIVE_KERNEL accepts every pinned kernel"
else
	fail "kernels dkms.conf BUILD_EXCLUSIVE_KERNEL refuses$unmatched"
fi
# Kbuild, as kbuild reads it (the DKMS tree's and make's module build):
# an unsupported KERNELRELEASE stops with the supported series named.
kbuild() {
	make -s --no-print-directory -f "$top/module/Kbuild" src="$top/module" \
		KERNELRELEASE="$1" --eval 'kbuild-read: ; @echo read' kbuild-read 2>&1 ||
		true
}
for k in 6.18.0-1-amd64 6.10.5 5.1.0-1-amd64 4.19.0-27-amd64 6.1-rc1; do
	out=$(kbuild "$k")
	case $out in
	*"thpnuma does not support kernel $k"*"supported series: $series"*)
		pass "kernels Kbuild refuses KERNELRELEASE=$k" ;;
	*) fail "kernels Kbuild refuses KERNELRELEASE=$k (got: $out)" ;;
	esac
done
for k in $kernels; do
	out=$(kbuild "$k")
	if [ "$out" = read ]; then
		pass "kernels Kbuild accepts KERNELRELEASE=$k"
	else
		fail "kernels Kbuild accepts KERNELRELEASE=$k (got: $out)"
	fi
done
# make (and make install) for another kernel: refused before kbuild runs.
# -n with MAKE=echo: kbuild's command is printed, not run.
out=$(make -n --no-print-directory -C "$top" module KVER=6.18.0-test \
	KDIR=/nonexistent MAKE=echo 2>&1 || true)
case $out in
*"thpnuma does not support kernel 6.18.0-test"*"supported series: $series"*)
	pass "kernels make KVER=6.18.0-test refuses before kbuild" ;;
*) fail "kernels make KVER=6.18.0-test refuses before kbuild (got: $out)" ;;
esac
k=${kernels%% *}
if make -n --no-print-directory -C "$top" module KVER="$k" KDIR=/nonexistent \
	MAKE=echo 2>&1 | grep -q "^echo -C /nonexistent M=.* modules$"; then
	pass "kernels make KVER=$k goes on to kbuild"
else
	fail "kernels make KVER=$k goes on to kbuild"
fi
echo "version: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
