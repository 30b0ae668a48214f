#!/bin/sh
# The bookworm chroot (tools/build/mkchroot.sh, which also builds the +deb12
# kernels' modules) with dkms, openssl and the headers of every supported
# bookworm kernel, for installing the packages somewhere that is not this
# machine's root (tests/deb/check-deb.sh mounts it read-only under an
# overlay). The headers .deb of the last of those kernels is kept in
# /var/lib/thpnuma-debs, so a test can install it again as a "new" kernel.
# usage: mkchroot.sh      prints the chroot's path
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
kernels=$("$top/tools/build/kernel-suite.sh" --list bookworm | tr '\n' ' ')
# shellcheck disable=SC2086 # one word per kernel
root=$("$top/tools/build/mkchroot.sh" bookworm $kernels)
exec 8> "$root.lock"
flock 8
capt() {
	chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q \
		-o Dir::Etc::sourcelist=/var/lib/thpnuma-apt/sources.list \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists=/var/lib/thpnuma-apt/lists \
		-o APT::Sandbox::User=root \
		-o Acquire::Languages=none "$@"
}
# DKMS makes its MOK key with openssl and signs the module;
# systemd-analyze checks the packaged units.
[ -x "$root/usr/bin/openssl" ] ||
	capt install -y --no-install-recommends openssl >&2
[ -x "$root/usr/bin/systemd-analyze" ] ||
	capt install -y --no-install-recommends systemd >&2
last=$(echo $kernels | awk '{ print $NF }')
if ! ls "$root/var/lib/thpnuma-debs/linux-headers-${last}_"*.deb >/dev/null 2>&1; then
	mkdir -p "$root/var/lib/thpnuma-debs"
	chroot "$root" sh -c "cd /var/lib/thpnuma-debs && apt-get -q \
		-o Dir::Etc::sourcelist=/var/lib/thpnuma-apt/sources.list \
		-o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists=/var/lib/thpnuma-apt/lists \
		-o APT::Sandbox::User=root download linux-headers-$last" >&2
fi
echo "$root"
