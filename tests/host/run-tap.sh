#!/bin/sh
# Run test commands, count their TAP results, and print "N passed, N failed".
. "$(dirname "$0")/../summary.sh"
passed=0 failed=0 skipped=0
for cmd in "$@"; do
	out=$(sh -c "$cmd" 2>&1)
	rc=$?
	echo "$out"
	# A runner's own "N passed, N failed" line wins over counting TAP lines.
	summary=$(echo "$out" | summary_counts)
	if [ -n "$summary" ]; then
		set -- $summary
		p=$1 f=$2 s=${3:-0}
		p=$((p + s))
	else
		p=$(echo "$out" | grep -cE '^ok [0-9]+')
		s=$(echo "$out" | grep -cE '^ok [0-9]+.*# SKIP')
		f=$(echo "$out" | grep -cE '^not ok [0-9]+')
	fi
	passed=$((passed + p - s)) skipped=$((skipped + s)) failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "host: $cmd exited with status $rc"
		failed=$((failed + 1))
	fi
done
echo "host: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
