#!/bin/sh
# make for an external module, run inside the chroot of the kernel's suite
# (tools/build/mkchroot.sh; tools/build/kernel-suite.sh names the suite) for
# kernels whose headers pin a compiler this machine lacks. Takes the
# arguments the host's make would: the headers directory names the kernel.
# M=DIR is copied in, built, and copied back. /proc is mounted only for
# the build (7.x objtool reads it) and unmounted after, under a lock, so
# parallel make jobs take turns.
# usage: chroot-kbuild.sh -C /usr/src/linux-headers-KVER M=DIR TARGET...
set -eu
[ "$1" = -C ] || { echo "usage: $0 -C HEADERS M=DIR TARGET..." >&2; exit 2; }
hdr=$2 dir=${3#M=}
shift 3
kver=${hdr#/usr/src/linux-headers-}
dir=$(cd "$dir" && pwd)
top=$(cd "$(dirname "$0")/../.." && pwd)
suite=$("$top/tools/build/kernel-suite.sh" --builder "$kver")
root=$("$top/tools/build/mkchroot.sh" "$suite" "$kver")
exec 9> "$root/.build.lock"
flock 9
work=/build/$(basename "$(dirname "$dir")")-$(basename "$dir")
rm -rf "$root$work" && mkdir -p "$root$work"
cp -a "$dir/." "$root$work/"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
# A killed build must unmount too: an rm -rf of the tree would walk /proc.
trap 'exit 1' HUP INT TERM
chroot "$root" make -C "$hdr" M="$work" "$@"
umount "$root/proc"
trap - EXIT HUP INT TERM
cp -a "$root$work/." "$dir/"
rm -rf "$root$work"
