#!/bin/sh
# The user targets have a rule for every file they need in a fresh clone:
# make -n -k with an empty build directory (BUILD=) must not say "No rule
# to make target". A recursive make still runs under -n, and the module's
# kbuild stops on its missing copy: -k goes on past that, and only the
# top-level make's message counts. And every target make help lists has
# a rule. Prints TAP lines.
. "$(dirname "$0")/tap.sh"
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
# Every target make help lists has a rule.
# Under make check-host MAKEFLAGS carry -w: no "Entering directory" lines.
make -s --no-print-directory -C "$top" help 2>&1 | grep '^  [a-z]' > "$work/help"
make -pRrq -C "$top" BUILD="$work/build" : > "$work/db" 2>/dev/null
for target in $(awk '{ print $1 }' "$work/help"); do
	n=$((n + 1))
	if grep -q "^$target:" "$work/db"; then
		echo "ok $n - make help's $target has a rule"
	else
		fails=$((fails + 1))
		echo "not ok $n - make help's $target has a rule"
	fi
done
n=$((n + 1))
if [ "$(wc -l < "$work/help")" -ge 10 ]; then
	echo "ok $n - make help lists the user targets"
else
	fails=$((fails + 1))
	echo "not ok $n - make help lists the user targets"
	sed 's/^/# /' "$work/help"
fi
tap_finish
