#!/bin/sh
# DKMS build test: `dkms add` and `dkms build` with Debian's dkms against
# each supported kernel's headers, in a private DKMS tree.
# usage: check-dkms.sh KVER...
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
version=$(sed -n 's/^THPNUMA_VERSION := //p' "$top/version.mk")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=$work/src/thpnuma-$version
mkdir -p "$src" "$work/tree"
cp -r "$top/Kbuild" "$top/Makefile" "$top/version.mk" "$top/kernels.mk" \
	"$top/dkms.conf" "$top/module" "$src/"
dkms() { command dkms --dkmstree "$work/tree" --sourcetree "$work/src" "$@"; }

passed=0 failed=0
result() {
	if [ "$1" = ok ]; then passed=$((passed + 1)); echo "PASS dkms $2"
	else failed=$((failed + 1)); echo "FAIL dkms $2"; fi
}

if dkms add -m thpnuma -v "$version" > "$work/add.log" 2>&1; then
	result ok "add thpnuma/$version"
else
	cat "$work/add.log"; result fail "add thpnuma/$version"
fi
for kver in "$@"; do
	if dkms build -m thpnuma -v "$version" -k "$kver" > "$work/build.log" 2>&1 &&
	   [ -f "$work/tree/thpnuma/$version/$kver/x86_64/module/thpnuma.ko" ] ||
	   ls "$work/tree/thpnuma/$version/$kver/x86_64/module/"thpnuma.ko* >/dev/null 2>&1; then
		result ok "build for $kver"
	else
		cat "$work/build.log"
		find "$work/tree" -name make.log -exec cat {} +
		result fail "build for $kver"
	fi
done
echo "dkms: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
