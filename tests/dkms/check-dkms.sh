#!/bin/sh
# DKMS build test: `dkms add` and `dkms build` with Debian's dkms against
# each supported kernel's headers, in a private DKMS tree. Kernels this
# machine builds (tools/build/kernel-suite.sh --builder: host) use its dkms; the
# others run this script again with --here in their suite's chroot
# (tools/build/chroot-dkms.sh), with that suite's dkms and compiler.
# DKMS=NAME runs another dkms program (tools/build/chroot-dkms.sh: the host's
# dkms 3 in the bullseye chroot, whose own is 2.8).
# usage: check-dkms.sh [--here] KVER...
set -u
DKMS=${DKMS:-dkms}
via=""
[ "$DKMS" = dkms ] || via=" with $DKMS"
top=$(cd "$(dirname "$0")/../.." && pwd)
here=false
if [ "${1:-}" = --here ]; then
	here=true
	shift
fi
version=$(sed -n 's/^THPNUMA_VERSION := //p' "$top/version.mk")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

passed=0 failed=0
result() {
	if [ "$1" = ok ]; then passed=$((passed + 1)); echo "PASS dkms $2"
	else failed=$((failed + 1)); echo "FAIL dkms $2"; fi
}

# Sort the kernels: here (this machine's), or each chroot suite's.
local_kernels="" chroot_suites=""
for kver in "$@"; do
	suite=host
	$here || suite=$("$top/tools/build/kernel-suite.sh" --builder "$kver") ||
		suite=unknown
	if [ "$suite" = host ]; then
		local_kernels="$local_kernels $kver"
	else
		eval "kernels_$suite=\"\${kernels_$suite:-} $kver\""
		case " $chroot_suites " in *" $suite "*) ;;
		*) chroot_suites="$chroot_suites $suite" ;; esac
	fi
done

if [ -n "$local_kernels" ]; then
	src=$work/src/thpnuma-$version
	mkdir -p "$src" "$work/tree"
	cp -r "$top/Kbuild" "$top/Makefile" "$top/version.mk" "$top/kernels.mk" \
		"$top/dkms.conf" "$top/module" "$src/"
	dkms() { command "$DKMS" --dkmstree "$work/tree" --sourcetree "$work/src" "$@"; }
	if dkms add -m thpnuma -v "$version" > "$work/add.log" 2>&1; then
		result ok "add thpnuma/$version$via"
	else
		cat "$work/add.log"; result fail "add thpnuma/$version$via"
	fi
	for kver in $local_kernels; do
		mod=$work/tree/thpnuma/$version/$kver/x86_64/module
		if dkms build -m thpnuma -v "$version" -k "$kver" > "$work/build.log" 2>&1 &&
		   ls "$mod/"thpnuma.ko* >/dev/null 2>&1; then
			result ok "build for $kver$via"
		else
			cat "$work/build.log"
			find "$work/tree" -name make.log -exec cat {} +
			result fail "build for $kver$via"
		fi
	done
fi

# Each chroot's run prints its own PASS and FAIL lines: count them here.
for suite in $chroot_suites; do
	[ "$suite" = unknown ] && { result fail "no suite for a kernel"; continue; }
	kernels=""
	eval "kernels=\$kernels_$suite"
	# shellcheck disable=SC2086 # one word per kernel
	"$top/tools/build/chroot-dkms.sh" "$suite" $kernels > "$work/$suite.log" 2>&1
	rc=$?
	grep -v '^dkms: [0-9]* passed' "$work/$suite.log"
	p=$(grep -c '^PASS dkms' "$work/$suite.log")
	f=$(grep -c '^FAIL dkms' "$work/$suite.log")
	passed=$((passed + p)) failed=$((failed + f))
	[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || result fail "$suite chroot (exit $rc)"
done
echo "dkms: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
