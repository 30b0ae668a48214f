#!/bin/sh
# Run the thpnumactl host tests and total their TAP lines.
# usage: run.sh BUILD_DIR (holding thpnumactl and the test_* unit tests)
out=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log
# cli.sh reads files: the recordings in fixtures/, then the files generated
# from counters.h and the recordings brought up to it (gen.c).
mkdir "$work/fixtures"
cp "$here"/fixtures/* "$work/fixtures/"

{
	TEST_FIXTURES="$here/fixtures" TEST_OUT="$work/fixtures" \
		"$out/gen_fixtures" ||
		echo "not ok - gen_fixtures exited with status $?"
	for t in test_stats test_hist test_orders test_compare; do
		TEST_FIXTURES="$here/fixtures" TEST_OUT="$work" "$out/$t" ||
			echo "not ok - $t exited with status $?"
	done
	for f in "$work"/*.json; do
		if python3 -m json.tool "$f" > /dev/null; then
			echo "ok - $(basename "$f") is valid JSON"
		else
			echo "not ok - $(basename "$f") is valid JSON"
		fi
	done
	for f in "$work"/*.svg; do
		if python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$f"; then
			echo "ok - $(basename "$f") is well-formed SVG"
		else
			echo "not ok - $(basename "$f") is well-formed SVG"
		fi
	done
	for f in "$work"/*.prom; do
		if python3 "$here/check_prometheus.py" "$f"; then
			echo "ok - $(basename "$f") is valid Prometheus text"
		else
			echo "not ok - $(basename "$f") is valid Prometheus text"
		fi
	done
	THPNUMACTL="$out/thpnumactl" FIXTURES="$work/fixtures" \
		"$here/cli.sh" ||
		echo "not ok - cli.sh exited with status $?"
	THPNUMACTL="$out/thpnumactl" SRC="$here/../../../userspace/thpnumactl" \
		bash "$here/completion.sh" ||
		echo "not ok - completion.sh exited with status $?"
} 2>&1 | tee "$log"

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^not ok ' "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
