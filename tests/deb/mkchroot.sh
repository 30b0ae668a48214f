#!/bin/sh
# A bookworm chroot with dkms and the headers of every supported kernel,
# for installing the packages somewhere that is not this machine's root
# (tests/deb/check-deb.sh mounts it read-only under an overlay). Made once
# with debootstrap and cached in .cache/chroots/bookworm. The headers .deb
# of the last supported kernel is kept in /var/lib/thpnuma-debs, so a test
# can install it again as a "new" kernel. Inside the chroot, apt reads
# only the private configuration in /var/lib/thpnuma-apt.
# usage: mkchroot.sh      prints the chroot's path
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/.cache/chroots/bookworm
kernels=$("$top/tests/vm/kernel-suite.sh" --list bookworm | tr '\n' ' ')
src=/etc/apt/sources.list.d/debian.sources
mirror=$(awk '/^URIs:/ { print $2; exit }' "$src")
secmirror=$(awk '/^URIs:/ { u = $2 } END { print u }' "$src")
[ -n "$mirror" ] || { echo "mkchroot: no URIs in $src" >&2; exit 1; }
command -v debootstrap >/dev/null ||
	{ echo "mkchroot: debootstrap missing (make deps)" >&2; exit 1; }
mkdir -p "$(dirname "$root")"
exec 9> "$root.lock"
flock 9

# apt in the chroot, on the private sources and lists only.
capt() {
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q \
		-o Dir::Etc::sourcelist=/var/lib/thpnuma-apt/sources.list \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists=/var/lib/thpnuma-apt/lists \
		-o Acquire::Languages=none "$@"
}

# The stamp names the kernels, so a change to kernels.mk remakes it.
stamp="$root/.complete-$(echo $kernels | tr ' ' _)"
if [ ! -f "$stamp" ]; then
	echo "mkchroot: debootstrap bookworm into $root (a few minutes)" >&2
	rm -rf "$root"
	nice -n 10 debootstrap --variant=minbase bookworm "$root" "$mirror" >&2
	apt=$root/var/lib/thpnuma-apt
	mkdir -p "$apt/lists/partial" "$root/var/lib/thpnuma-debs"
	{
		echo "deb $mirror bookworm main"
		echo "deb $mirror bookworm-updates main"
		echo "deb $secmirror bookworm-security main"
	} > "$apt/sources.list"
	# The 6.12 headers pull in the kernel image; nothing boots from
	# this chroot, so skip its initramfs.
	chroot "$root" dpkg-divert --local --rename --add /usr/sbin/update-initramfs >&2
	ln -s /bin/true "$root/usr/sbin/update-initramfs"
	capt update >&2
	headers=""
	for k in $kernels; do headers="$headers linux-headers-$k"; done
	# The kernels' postinst hooks find no thpnuma yet: nothing is built.
	# openssl: DKMS makes its MOK key with it and signs the module.
	capt install -y --no-install-recommends dkms openssl $headers >&2
	last=$(echo $kernels | awk '{ print $NF }')
	cp "$root"/var/cache/apt/archives/linux-headers-"$last"_*.deb \
		"$root/var/lib/thpnuma-debs/"
	capt clean >&2
	touch "$stamp"
fi
echo "$root"
