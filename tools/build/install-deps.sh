#!/bin/bash
# Install, from Debian's apt mirrors, whatever `make check` (or, with
# "demo", only `make demo`; with "trace", `make trace-demo`, which adds
# perf and bpftrace; with "profile", make check's and gdb, for
# tools/vm/profile.py) needs and this machine lacks. Needs root only when
# something is missing. Needs neither make nor git.
# usage: install-deps.sh [demo|trace [KVER]|profile]    KVER: make demo's kernel
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
# Host packages only for the kernels this machine builds (bookworm's own
# series, whose headers need no kernel image); the others' headers and
# compilers go into their suite's chroot (tools/build/mkchroot.sh), which needs
# debootstrap here. Nothing here installs a kernel image on this machine.
kernels=$("$top/tools/build/kernel-suite.sh" --list host | tr '\n' ' ')
# make demo: the module for its kernel (bookworm's first unless KVER names
# another: its chroot then needs debootstrap), thpnumactl, one static guest
# program, the initramfs and QEMU.
demo_kernel=${2:-${kernels%% *}}
if [ "$("$top/tools/build/kernel-suite.sh" --builder "$demo_kernel")" = host ]; then
	demo_build=linux-headers-$demo_kernel
else
	demo_build=debootstrap
fi
wanted="build-essential pkg-config cpio xz-utils python3 kmod libkmod-dev
	qemu-system-x86 busybox-static $demo_build"
if [ "${1:-}" = trace ]; then
	wanted="$wanted linux-perf bpftrace"
elif [ "${1:-}" != demo ]; then
	wanted="$wanted dkms libnuma-dev util-linux debootstrap debhelper dh-dkms lintian"
	[ "${1:-}" != profile ] || wanted="$wanted gdb"
	for k in $kernels; do
		# The source package brings the kernel's own mm selftests (conformance).
		wanted="$wanted linux-headers-$k linux-source-$(echo "$k" | cut -d. -f1,2)"
	done
fi

# promtool, the host tests' Prometheus parser, unpacked from Debian's
# prometheus package into .cache: installing the package would also
# enable and start a Prometheus server.
promtool=$top/.cache/promtool/usr/bin/promtool
if [ ! -x "$promtool" ]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp"	# apt downloads as _apt
	if (cd "$tmp" && apt-get download -q prometheus); then
		mkdir -p "$top/.cache/promtool"
		dpkg-deb --fsys-tarfile "$tmp"/prometheus_*.deb |
			tar -x -C "$top/.cache/promtool" ./usr/bin/promtool
	else
		echo "install-deps: cannot download prometheus: host tests skip promtool" >&2
	fi
	rm -rf "$tmp"
fi

missing=""
for pkg in $wanted; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing
