#!/bin/sh
# Fetch and unpack a pinned Debian kernel image into .cache/kernels/KVER.
# A second run downloads nothing. Kernels of another suite than the host's
# (tools/build/kernel-suite.sh: trixie and its backports, sid) come through
# that suite's private apt view (tools/build/aptconf.sh). From 7.x, Debian
# splits the image into linux-binary (vmlinuz), linux-modules and
# linux-base under /usr/lib.
set -eu
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$top/.cache
dest=$cache/kernels/$kver
[ -f "$dest/boot/vmlinuz-$kver" ] && exit 0
mkdir -p "$cache/debs"
cd "$cache/debs"
suite=$("$top/tools/build/kernel-suite.sh" "$kver")
if [ "$suite" = bookworm ]; then
	opts="-o APT::Sandbox::User=root"
else
	opts="-c $("$top/tools/build/aptconf.sh" "$suite")"
fi
if ls linux-binary-"$kver"_*.deb >/dev/null 2>&1 ||
   apt-cache $opts show "linux-binary-$kver" >/dev/null 2>&1; then
	pkgs="linux-binary-$kver linux-modules-$kver linux-base-$kver"
else
	pkgs=linux-image-$kver
fi
for p in $pkgs; do
	ls "$p"_*.deb >/dev/null 2>&1 && continue
	echo "fetch-kernel: downloading $p" >&2
	apt-get $opts download "$p" >&2
done
rm -rf "$dest.tmp"; mkdir -p "$cache/kernels"
for p in $pkgs; do
	dpkg -x "$p"_*.deb "$dest.tmp"
done
# The layout the harness and depmod read: /boot and /lib/modules.
if [ -f "$dest.tmp/usr/lib/modules/$kver/vmlinuz" ]; then
	mkdir -p "$dest.tmp/boot"
	mv "$dest.tmp/usr/lib/modules/$kver/vmlinuz" "$dest.tmp/boot/vmlinuz-$kver"
fi
# From trixie on (merged /usr), the modules are under /usr/lib only.
if [ ! -e "$dest.tmp/lib" ] && [ -d "$dest.tmp/usr/lib/modules" ]; then
	ln -s usr/lib "$dest.tmp/lib"
fi
depmod -b "$dest.tmp" "$kver"
mv "$dest.tmp" "$dest"
