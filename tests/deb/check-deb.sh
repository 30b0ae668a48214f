#!/bin/bash
# The Debian packages: the version copies agree, both packages build from
# a clean export (tools/deb/build.sh), hold the right files, and lintian
# finds no error. Then, as root, they are installed into a throwaway
# overlay of the cached bookworm chroot (tools/deb/mkchroot.sh), never
# into this machine: DKMS must build the module for every supported
# kernel, one of them installed only after the packages (AUTOINSTALL),
# and `apt-get purge` must leave nothing behind. Nothing is loaded.
# usage: check-deb.sh [--no-chroot]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/summary.sh"
version=$(sed -n 's/^THPNUMA_VERSION := //p' "$top/version.mk")
kernels=$("$top/tools/build/kernel-suite.sh" --list bookworm | tr '\n' ' ')
last=$(echo $kernels | awk '{ print $NF }')
out=$top/build/deb
dkms_deb=$out/thpnuma-dkms_${version}_all.deb
ctl_deb=$out/thpnumactl_${version}_amd64.deb
srcdir=usr/src/thpnuma-$version

passed=0 failed=0
check() {	# check NAME COMMAND...: PASS if COMMAND succeeds
	local name=$1
	shift
	if "$@"; then passed=$((passed + 1)); echo "PASS deb $name"
	else failed=$((failed + 1)); echo "FAIL deb $name"; fi
}
finish() {
	echo "deb: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
has() { grep -qxF -- "$1"; }
files() { dpkg-deb --fsys-tarfile "$1" | tar -t | sed 's|^\./||; s|/$||'; }

mkdir -p "$top/build"
"$top/tests/deb/version.sh" > "$out.version.log" 2>&1 || true
cat "$out.version.log"
read -r p f _ <<<"$(summary_counts < "$out.version.log")"
passed=$((passed + ${p:-0})) failed=$((failed + ${f:-1}))
rm -f "$out.version.log"

if ! "$top/tools/deb/build.sh" > "$top/build/deb-build.log" 2>&1; then
	tail -n 30 "$top/build/deb-build.log"
	check "dpkg-buildpackage -us -uc -b (log: build/deb-build.log)" false
	finish
fi
check "dpkg-buildpackage -us -uc -b" test -f "$dkms_deb" -a -f "$ctl_deb"

# thpnuma-dkms: dkms.conf with a literal version, exactly the module's
# sources beside it, and a dependency on dkms.
dk=$(files "$dkms_deb")
check "thpnuma-dkms has $srcdir/dkms.conf" has "$srcdir/dkms.conf" <<<"$dk"
conf=$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -xO "./$srcdir/dkms.conf")
check "dkms.conf says PACKAGE_VERSION=\"$version\"" \
	grep -qx "PACKAGE_VERSION=\"$version\"" <<<"$conf"
want=$(cd "$top" && git ls-files Kbuild version.mk kernels.mk module/ |
	sed "s|^|$srcdir/|"; echo "$srcdir/dkms.conf")
got=$(grep "^usr/src/." <<<"$dk" | grep -v "/module$\|^$srcdir$")
check "thpnuma-dkms holds exactly the module's sources in /$srcdir" \
	test "$(sort <<<"$want")" = "$(sort <<<"$got")"
check "thpnuma-dkms depends on dkms" \
	grep -q '^ Depends:.*\bdkms\b' <(dpkg-deb -I "$dkms_deb")
check "thpnuma-dkms postinst runs DKMS for thpnuma $version" \
	grep -q "DKMS_VERSION=$version" <(dpkg-deb -I "$dkms_deb" postinst)

# thpnumactl: the CLI, its documentation, the settings files (conffiles),
# the units and the workloads.
ct=$(files "$ctl_deb")
for f in usr/sbin/thpnumactl usr/share/man/man8/thpnumactl.8.gz \
	usr/share/man/man7/thpnuma.7.gz \
	usr/share/bash-completion/completions/thpnumactl \
	etc/modprobe.d/thpnuma.conf etc/thpnuma.conf usr/libexec/thpnuma/thp-swapstorm \
	lib/systemd/system/thpnuma.service lib/systemd/system/thpnuma-exporter.service \
	lib/systemd/system/thpnuma-exporter.timer \
	usr/libexec/thpnuma/thp-remote-latency usr/libexec/thpnuma/thp-fault-bench; do
	check "thpnumactl has /$f" has "$f" <<<"$ct"
done
for f in /etc/modprobe.d/thpnuma.conf /etc/thpnuma.conf; do
	check "$f is a conffile" grep -qx "$f" <(dpkg-deb -I "$ctl_deb" conffiles)
done
check "thpnumactl depends on libkmod2" \
	grep -q '^ Depends:.*libkmod2' <(dpkg-deb -I "$ctl_deb")

# lintian: errors fail; every tag is printed. No overrides.
if command -v lintian >/dev/null; then
	if [ "$(id -u)" -eq 0 ]; then
		as_user() { setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env HOME="$out/home" "$@"; }
	else
		as_user() { "$@"; }
	fi
	check "lintian: no errors" as_user lintian --fail-on error -I \
		"$out/thpnuma_${version}_amd64.changes"
else
	check "lintian installed (make deps)" false
fi

[ "${1:-}" = --no-chroot ] && finish
if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP deb install test: needs root for the chroot"
	finish
fi

# The cached chroot stays clean: everything happens in an overlay.
root=$("$top/tools/deb/mkchroot.sh") || { check "bookworm chroot" false; finish; }
work=$(mktemp -d "$top/build/deb-chroot.XXXXXX")
mnt=$work/root
mkdir -p "$work/upper" "$work/work" "$mnt"
mount -t overlay overlay \
	-o "lowerdir=$root,upperdir=$work/upper,workdir=$work/work" "$mnt" || {
	check "overlay mount" false; rm -rf "$work"; finish; }
mount -t proc proc "$mnt/proc"
trap 'umount "$mnt/proc"; umount "$mnt"; rm -rf "$work"' EXIT
in_root() { chroot "$mnt" env DEBIAN_FRONTEND=noninteractive "$@"; }
log=$top/build/deb-install.log
: > "$log"
run() { echo "# $*" >> "$log"; in_root "$@" >> "$log" 2>&1; }
built() {	# built KVER: dkms status says installed, modinfo finds it by
		# name (depmod ran), and DKMS signed it with its MOK key
	in_root dkms status -m thpnuma -v "$version" -k "$1" 2>> "$log" |
		grep -q "^thpnuma/$version, $1, x86_64: installed" &&
	in_root modinfo -k "$1" -F version thpnuma | grep -qx "$version" &&
	in_root modinfo -k "$1" -F signer thpnuma | grep -q "DKMS"
}

# The last kernel arrives after the packages, as an upgrade would bring it.
run dpkg -r "linux-headers-$last"
cp "$dkms_deb" "$ctl_deb" "$mnt/tmp/"
check "dpkg -i both packages (log: build/deb-install.log)" \
	run dpkg -i "/tmp/${dkms_deb##*/}" "/tmp/${ctl_deb##*/}"
for k in $kernels; do
	[ "$k" = "$last" ] && continue
	check "DKMS built, signed and installed thpnuma for installed kernel $k" built "$k"
done
# --man=no: the chroot has no man-db for the Documentation= pages.
units="thpnuma.service thpnuma-exporter.service thpnuma-exporter.timer"
# shellcheck disable=SC2086 # one word per unit
check "systemd-analyze verify $units" run systemd-analyze verify --man=no $units
check "the exporter's timer is not enabled on install" \
	test ! -e "$mnt/etc/systemd/system/timers.target.wants/thpnuma-exporter.timer"
check "thpnuma.service is not enabled on install" \
	test ! -e "$mnt/etc/systemd/system/multi-user.target.wants/thpnuma.service"
check "the shipped /etc/thpnuma.conf passes apply --dry-run and sets nothing" \
	grep -qx "/etc/thpnuma.conf sets nothing" <(in_root thpnumactl apply --dry-run 2>&1)
check "thpnumactl --version runs" \
	grep -q "$version" <(in_root thpnumactl --version 2>&1)
check "workloads run (thp-fault-bench --help)" \
	run /usr/libexec/thpnuma/thp-fault-bench --help
check "new kernel's headers installed: linux-headers-$last" \
	run sh -c "dpkg -i /var/lib/thpnuma-debs/linux-headers-${last}_*.deb"
check "DKMS AUTOINSTALL built and signed thpnuma for the new kernel $last" built "$last"
in_root dkms status >> "$log" 2>&1
in_root modinfo -k "$last" thpnuma >> "$log" 2>&1

check "apt-get purge thpnuma-dkms thpnumactl" \
	run apt-get purge -y -q thpnuma-dkms thpnumactl
left=$(cd "$mnt" && ls -d var/lib/dkms/thpnuma usr/src/thpnuma-* \
	etc/modprobe.d/thpnuma.conf etc/thpnuma.conf usr/libexec/thpnuma usr/sbin/thpnumactl \
	lib/systemd/system/thpnuma.service lib/systemd/system/thpnuma-exporter.* \
	lib/modules/*/updates/dkms/thpnuma.ko* lib/modules/*/extra/thpnuma.ko* \
	2>/dev/null)
check "purge leaves no DKMS tree, source, module or file${left:+: $left}" \
	test -z "$left"
check "dkms status no longer lists thpnuma" \
	test -z "$(in_root dkms status -m thpnuma)"
finish
