#!/bin/sh
# The user targets have a rule for every file they need in a fresh clone:
# make -n -k with an empty build directory (BUILD=) must not say "No rule
# to make target". A recursive make still runs under -n, and the module's
# kbuild stops on its missing copy: -k goes on past that, and only the
# top-level make's message counts. Prints TAP lines.
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 fails=0
for target in trace-demo-initramfs demo-initramfs guest-bin userspace; do
	n=$((n + 1))
	make -n -k -C "$top" BUILD="$work/build" "$target" > "$work/out" 2>&1
	if ! grep -q "^make: \*\*\* No rule to make target" "$work/out"; then
		echo "ok $n - make -n $target in a fresh tree"
	else
		fails=$((fails + 1))
		echo "not ok $n - make -n $target in a fresh tree"
		grep "^make: \*\*\* No rule to make target" "$work/out" | sed 's/^/# /' 
	fi
done
echo "1..$n"
echo "$((n - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
