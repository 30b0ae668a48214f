#!/bin/sh
# A trixie chroot (gcc-14, dkms) with the headers of the given kernels,
# for the kernels whose headers pin a compiler this machine lacks (7.x
# needs gcc-14). Made once with debootstrap and cached in .cache/chroots/trixie;
# a kernel's headers are installed on first use. Inside the chroot, apt
# reads only the private configuration in /var/lib/thpnuma-apt.
# usage: mkchroot.sh KVER...      prints the chroot's path
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/.cache/chroots/trixie
src=/etc/apt/sources.list.d/debian.sources
mirror=$(awk '/^URIs:/ { print $2; exit }' "$src")
secmirror=$(awk '/^URIs:/ { u = $2 } END { print u }' "$src")
[ -n "$mirror" ] || { echo "mkchroot: no URIs in $src" >&2; exit 1; }
command -v debootstrap >/dev/null ||
	{ echo "mkchroot: debootstrap missing (make deps)" >&2; exit 1; }

if [ ! -f "$root/.complete" ]; then
	echo "mkchroot: debootstrap trixie into $root (a few minutes)" >&2
	rm -rf "$root"
	mkdir -p "$(dirname "$root")"
	nice -n 10 debootstrap --variant=minbase \
		--include=make,gcc-14,kmod,ca-certificates trixie "$root" "$mirror" >&2
	apt=$root/var/lib/thpnuma-apt
	mkdir -p "$apt/lists/partial"
	for s in trixie trixie-updates trixie-backports; do
		echo "deb $mirror $s main"
	done > "$apt/sources.list"
	echo "deb $secmirror trixie-security main" >> "$apt/sources.list"
	touch "$root/.complete"
fi

# apt in the chroot, on the private sources and lists only.
capt() {
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q \
		-o Dir::Etc::sourcelist=/var/lib/thpnuma-apt/sources.list \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists=/var/lib/thpnuma-apt/lists \
		-o Acquire::Languages=none "$@"
}

updated=false
# dkms for tests/vm/chroot-dkms.sh; a chroot cached before it gets it here.
if [ ! -x "$root/usr/sbin/dkms" ]; then
	capt update >&2
	updated=true
	echo "mkchroot: installing dkms" >&2
	capt install -y --no-install-recommends dkms >&2
fi
for kver in "$@"; do
	[ -f "$root/usr/src/linux-headers-$kver/Makefile" ] && continue
	if ! $updated; then
		capt update >&2
		updated=true
	fi
	echo "mkchroot: installing linux-headers-$kver" >&2
	capt install -y --no-install-recommends "linux-headers-$kver" >&2
done
capt clean >&2 2>/dev/null || true
echo "$root"
