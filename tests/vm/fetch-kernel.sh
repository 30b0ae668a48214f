#!/bin/sh
# Fetch and unpack a pinned Debian kernel image into .cache/kernels/KVER.
# A second run downloads nothing. Kernels the host's suites do not carry
# (trixie, trixie-backports) come through the private apt view of
# tests/vm/aptconf.sh. From 7.x, Debian splits the image into
# linux-binary (vmlinuz), linux-modules and linux-base under /usr/lib.
set -eu
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$top/.cache
dest=$cache/kernels/$kver
[ -f "$dest/boot/vmlinuz-$kver" ] && exit 0
mkdir -p "$cache/debs"
cd "$cache/debs"
opts="-o APT::Sandbox::User=root"
if ! apt-cache show "linux-image-$kver" >/dev/null 2>&1; then
	opts="-c $("$top/tests/vm/aptconf.sh")"
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
if [ -f "$dest.tmp/usr/lib/modules/$kver/vmlinuz" ]; then
	# The layout the harness and depmod read: /boot and /lib/modules.
	mkdir -p "$dest.tmp/boot"
	mv "$dest.tmp/usr/lib/modules/$kver/vmlinuz" "$dest.tmp/boot/vmlinuz-$kver"
	[ -e "$dest.tmp/lib" ] || ln -s usr/lib "$dest.tmp/lib"
fi
depmod -b "$dest.tmp" "$kver"
mv "$dest.tmp" "$dest"
