#!/bin/sh
# The one place that says, from a Debian kernel ABI, where it comes from and
# what builds it: the suite whose apt view ships its image, headers and
# linux-source, and whose compiler its headers pin. "bookworm" is this
# machine (gcc-12: the host's own apt, make and dkms); any other suite is a
# chroot of tests/vm/mkchroot.sh (bullseye: gcc-10, trixie: gcc-14, sid:
# gcc-16). An ABI without "+debN" is bullseye's for 5.10 (5.10.0-46-amd64)
# and bookworm's for 6.1 (6.1.0-57-amd64); "+debN" names the Debian
# release that built it.
# usage: kernel-suite.sh KVER            prints bullseye, bookworm, trixie, sid
#        kernel-suite.sh --list [SUITE]  the kernels of kernels.mk (of SUITE)
set -eu
suite_of() {
	case $1 in
	*+deb12-*) echo bookworm ;;
	*+deb13-*) echo trixie ;;
	*+deb14-*) echo sid ;;
	*+deb[0-9]*) echo "kernel-suite: no suite for $1" >&2; exit 1 ;;
	5.10.*) echo bullseye ;;
	*) echo bookworm ;;
	esac
}
if [ "${1:-}" = --list ]; then
	top=$(cd "$(dirname "$0")/../.." && pwd)
	for k in $(sed -n 's/^SUPPORTED_KERNELS := //p' "$top/kernels.mk"); do
		[ -z "${2:-}" ] || [ "$(suite_of "$k")" = "$2" ] && echo "$k"
	done
	exit 0
fi
suite_of "${1:?usage: kernel-suite.sh KVER | --list [SUITE]}"
