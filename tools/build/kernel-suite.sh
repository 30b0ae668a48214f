#!/bin/sh
# The one place that says, from a Debian kernel ABI, where it comes from and
# what builds it: the suite whose apt view ships its image, headers and
# linux-source, and whose compiler its headers pin. An ABI without "+debN"
# is bullseye's for 5.10 (5.10.0-46-amd64) and bookworm's for 6.1
# (6.1.0-57-amd64); "+debN" names the Debian release that built it.
# The builder is "host" (this machine's apt, gcc-12, make and dkms) for
# bookworm's own series only; every other kernel builds in a chroot of its
# suite (tools/build/mkchroot.sh; bullseye: gcc-10, trixie: gcc-14, sid:
# gcc-16). That includes bookworm's +deb12 backports: their headers package
# depends on the kernel image, and installing it here would change what
# this machine boots.
# usage: kernel-suite.sh KVER            prints bullseye, bookworm, trixie, sid
#        kernel-suite.sh --builder KVER  prints host, or the chroot's suite
#        kernel-suite.sh --list [SUITE|host]
#                                        the kernels of kernels.mk (of SUITE,
#                                        or those this machine builds)
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
builder_of() {
	suite=$(suite_of "$1")
	case $suite-$1 in
	bookworm-*+deb*) echo bookworm ;;
	bookworm-*) echo host ;;
	*) echo "$suite" ;;
	esac
}
case ${1:-} in
--list)
	top=$(cd "$(dirname "$0")/../.." && pwd)
	for k in $(sed -n 's/^SUPPORTED_KERNELS := //p' "$top/kernels.mk"); do
		case ${2:-} in
		'') echo "$k" ;;
		host) [ "$(builder_of "$k")" = host ] && echo "$k" ;;
		*) [ "$(suite_of "$k")" = "$2" ] && echo "$k" ;;
		esac
	done
	exit 0 ;;
--builder)
	builder_of "${2:?usage: kernel-suite.sh --builder KVER}" ;;
*)
	suite_of "${1:?usage: kernel-suite.sh KVER | --builder KVER | --list [SUITE|host]}" ;;
esac
