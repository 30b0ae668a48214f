#!/bin/sh
# The DKMS build test (tests/dkms/check-dkms.sh --here) for kernels whose
# headers pin a compiler this machine lacks, run with the suite's dkms and
# compiler inside its chroot (tools/build/mkchroot.sh), on a copy of the
# tree; and with this machine's dkms where the suite's is of another major
# version. /proc is mounted only while it runs.
# usage: chroot-dkms.sh SUITE KVER...
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$("$top/tools/build/mkchroot.sh" "$@")
shift
exec 9> "$root/.build.lock"
flock 9
work=/build/dkms-src
rm -rf "$root$work" && mkdir -p "$root$work/tests"
cp -r "$top/Kbuild" "$top/Makefile" "$top/version.mk" "$top/kernels.mk" \
	"$top/dkms.conf" "$top/module" "$root$work/"
cp -r "$top/tests/dkms" "$root$work/tests/"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"; rm -rf "$root$work"' EXIT
# A killed run must unmount too: an rm -rf of the tree would walk /proc.
trap 'exit 1' HUP INT TERM
chroot "$root" "$work/tests/dkms/check-dkms.sh" --here "$@" || rc=$?
# A suite whose dkms is of another major version than this machine's
# (bullseye's 2.8) builds with this machine's dkms too: dkms.conf must
# suit both for the kernels of that suite.
major() { "$@" --version | sed -n 's/^dkms[-: ]*\([0-9]*\).*/\1/p'; }
if [ "$(major dkms)" != "$(major chroot "$root" dkms)" ]; then
	cp "$(command -v dkms)" "$root/usr/local/sbin/dkms-host"
	chroot "$root" env DKMS=dkms-host "$work/tests/dkms/check-dkms.sh" \
		--here "$@" || rc=$?
fi
exit "${rc:-0}"
