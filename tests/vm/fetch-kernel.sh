#!/bin/sh
# Fetch and unpack a pinned Debian kernel image into .cache/kernels/KVER.
# A second run downloads nothing.
set -eu
kver=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=$top/.cache
dest=$cache/kernels/$kver
[ -f "$dest/boot/vmlinuz-$kver" ] && exit 0
mkdir -p "$cache/debs"
cd "$cache/debs"
if ! ls linux-image-"$kver"_*.deb >/dev/null 2>&1; then
	echo "fetch-kernel: downloading linux-image-$kver" >&2
	apt-get -o APT::Sandbox::User=root download "linux-image-$kver" >&2
fi
rm -rf "$dest.tmp"; mkdir -p "$cache/kernels"
dpkg -x linux-image-"$kver"_*.deb "$dest.tmp"
depmod -b "$dest.tmp" "$kver"
mv "$dest.tmp" "$dest"
