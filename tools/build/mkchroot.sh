#!/bin/sh
# A chroot of a Debian suite (bullseye: gcc-10; bookworm: gcc-12; trixie:
# gcc-14; sid: gcc-16) with dkms and the headers of the given kernels, for
# the kernels this machine does not build (tools/build/kernel-suite.sh
# --builder): their headers pin a compiler it lacks, or, for bookworm's
# +deb12 backports, depend on the kernel image. Such an image lands here,
# where nothing boots from it.
# Made once with debootstrap and cached in .cache/chroots/SUITE; a kernel's
# headers (and with them the compiler they pin) are installed on first use.
# Inside the chroot, apt reads only the private configuration in
# /var/lib/thpnuma-apt.
# usage: mkchroot.sh SUITE [KVER...]      prints the chroot's path
set -eu
suite=${1:?usage: mkchroot.sh bullseye|bookworm|trixie|sid [KVER...]}
shift
top=$(cd "$(dirname "$0")/../.." && pwd)
root=$top/.cache/chroots/$suite
mirror=$("$top/tools/build/suite-sources.sh" "$suite" | awk '{ print $2; exit }')
command -v debootstrap >/dev/null ||
	{ echo "mkchroot: debootstrap missing (make deps)" >&2; exit 1; }

# Two builds may ask for the same chroot at once (make -j2).
mkdir -p "$(dirname "$root")"
exec 8> "$root.lock"
flock 8
if [ ! -f "$root/.complete" ]; then
	echo "mkchroot: debootstrap $suite into $root (a few minutes)" >&2
	rm -rf "$root"
	nice -n 10 debootstrap --variant=minbase \
		--include=make,gcc,kmod,ca-certificates "$suite" "$root" "$mirror" >&2
	apt=$root/var/lib/thpnuma-apt
	mkdir -p "$apt/lists/partial"
	"$top/tools/build/suite-sources.sh" "$suite" > "$apt/sources.list"
	# A kernel image that headers pull in needs no initramfs here.
	chroot "$root" dpkg-divert --local --rename \
		--add /usr/sbin/update-initramfs >&2
	ln -s /bin/true "$root/usr/sbin/update-initramfs"
	touch "$root/.complete"
fi

# apt in the chroot, on the private sources and lists only. It checks the
# Release files' dates as this machine's apt does: a mirror that serves a
# snapshot needs Acquire::Check-Valid-Until "false" (sid's expire in days).
valid=true
eval "$(apt-config shell valid Acquire::Check-Valid-Until)"
capt() {
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q \
		-o Dir::Etc::sourcelist=/var/lib/thpnuma-apt/sources.list \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists=/var/lib/thpnuma-apt/lists \
		-o Acquire::Check-Valid-Until="$valid" \
		-o Acquire::Languages=none "$@"
}

updated=false
# dkms for tools/build/chroot-dkms.sh; a chroot cached before it gets it here.
if [ ! -x "$root/usr/sbin/dkms" ]; then
	capt update >&2
	updated=true
	echo "mkchroot: installing dkms in $suite" >&2
	capt install -y --no-install-recommends dkms >&2
fi
for kver in "$@"; do
	[ -f "$root/usr/src/linux-headers-$kver/Makefile" ] && continue
	if ! $updated; then
		capt update >&2
		updated=true
	fi
	echo "mkchroot: installing linux-headers-$kver in $suite" >&2
	capt install -y --no-install-recommends "linux-headers-$kver" >&2
done
capt clean >&2 2>/dev/null || true
echo "$root"
