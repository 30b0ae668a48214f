#!/bin/sh
# HACKING.md's "A new counter" recipe, applied: in a scratch copy of the
# working tree, one line in module/counters.h (a per-node counter,
# test_recipe, before the list's last line) and nothing else; then the
# unit tests, the fixtures generated from counters.h and thpnumactl's
# stat table, JSON and Prometheus output must all pass and show the new
# counter. Step 2 of the recipe (the increment in the module) needs a
# kernel and is not checked here; step 3 (thpnumactl.8, README) is text.
# Prints TAP lines and "N passed, N failed".
# env: RECIPE_CLI=1 also runs cli.sh there (slower: about two minutes).
. "$(dirname "$0")/tap.sh"
tree=$work/tree
out=$work/out
copy_tree "$tree"
mkdir "$out"

# 1. The one line.
h=$tree/module/counters.h
last=$(awk '/^#define THPNUMA_NODE_COUNTERS/ { in_list = 1; next }
	in_list && /^[ \t]*C\(/ { line = NR }
	in_list && !/\\$/ { print line; exit }' "$h")
line='	C(TEST_RECIPE,	   test_recipe,	    "A counter added by recipe-counter.sh.") \'
if [ -n "$last" ]; then
	awk -v at="$last" -v add="$line" 'NR == at { print add } { print }' \
		"$h" > "$work/counters.h" && cp "$work/counters.h" "$h"
fi
if [ "$(diff "$top/module/counters.h" "$h" | grep -c '^[<>]')" -eq 1 ] &&
   grep -q 'C(TEST_RECIPE,' "$h"; then
	ok "counters.h: one line added to THPNUMA_NODE_COUNTERS"
else
	not_ok "counters.h: one line added to THPNUMA_NODE_COUNTERS"
	tap_finish
fi

# 2. Build what the host tests build (no sanitizers, -O0: this is about
# the tables, and make check-host runs them with sanitizers).
check "the unit tests, gen_fixtures and thpnumactl build" \
	sh -c "make -s -j2 -C '$tree/tests/host/thpnumactl' OUT='$out' \
		SANITIZE= CFLAGS='-O0 -g' '$out/thpnumactl' '$out/test_stats' \
		'$out/test_hist' '$out/test_orders' '$out/gen_fixtures' &&
	make -s -C '$tree/tests/host' '$tree/build/host/test_policy'"
[ -x "$out/test_stats" ] && [ -x "$out/thpnumactl" ] || tap_finish

# 3. The tables' own test, the unit tests and the generated fixtures.
check "test_policy (counter_tables_are_complete)" "$tree/build/host/test_policy"
fx=$work/fixtures
mkdir "$fx" "$work/unit"
cp "$tree"/tests/host/thpnumactl/fixtures/* "$fx/"
check "gen_fixtures writes the fixtures" env \
	TEST_FIXTURES="$tree/tests/host/thpnumactl/fixtures" TEST_OUT="$fx" \
	"$out/gen_fixtures"
for t in test_stats test_hist test_orders; do
	TEST_FIXTURES="$tree/tests/host/thpnumactl/fixtures" \
		TEST_OUT="$work/unit" "$out/$t" > "$work/$t.log" 2>&1
	rc=$?
	totals=$(grep '^# Totals' "$work/$t.log")
	if [ "$rc" -eq 0 ]; then
		ok "$t passes (${totals#\# })"
	else
		not_ok "$t passes (rc=$rc, ${totals#\# })"
		grep -E '^not ok|^# .*(FAIL|Expected|is refused)' "$work/$t.log" |
			head -n 20 | sed 's/^/# /'
	fi
done
# The recording predates test_recipe: refused for lacking it, as an
# older module's file is, and read brought up to the table.
if grep -q "recorded before counter test_recipe" "$work/test_stats.log"; then
	ok "the recording good-2node.txt is refused for lacking test_recipe only"
else
	not_ok "the recording good-2node.txt is refused for lacking test_recipe only"
fi
missing=
for f in good-2node.txt good-4node-huge.txt good-crlf.txt \
	good-2node-orders.txt bad-header-only.txt; do
	head -n 1 "$fx/$f" | grep -qw test_recipe || missing="$missing $f"
done
if [ -z "$missing" ]; then
	ok "the generated stats fixtures have a test_recipe column"
else
	not_ok "the generated stats fixtures have a test_recipe column (not:$missing)"
fi
bad=
for f in "$work"/unit/*.json; do
	python3 -m json.tool "$f" > /dev/null || bad="$bad $(basename "$f")"
done
for f in "$work"/unit/*.prom; do
	python3 "$top/tests/host/thpnumactl/check_prometheus.py" "$f" ||
		bad="$bad $(basename "$f")"
done
if [ -z "$bad" ] && grep -q '"test_recipe": ' "$work/unit/good-2node.json" &&
   grep -q '^thpnuma_test_recipe_total{node="0"} 0$' "$work/unit/good-2node.prom"; then
	ok "the unit tests' JSON and Prometheus are valid and have test_recipe"
else
	not_ok "the unit tests' JSON and Prometheus are valid and have test_recipe ($bad)"
fi

# 4. thpnumactl stat on a fake loaded module holding the generated files.
dbg=$work/debug/thpnuma
ctl=$work/sys/kernel/thpnuma
nodes=$ctl/nodes
mkdir -p "$dbg" "$work/sys/module/thpnuma" "$nodes/node0" "$nodes/node1"
echo live > "$work/sys/module/thpnuma/initstate"
echo test > "$work/sys/module/thpnuma/version"
. "$top/tests/host/thpnumactl/tables.sh"
put_table "$fx/good-2node-orders.txt" stats
put_table "$fx/orders-2node.txt" orders
put_table "$fx/hist-2node.txt" hist
cp "$fx/policies.txt" "$ctl/policies"
ctl_stat() {
	THPNUMACTL_DEBUGFS=$dbg THPNUMACTL_SYSFS=$work/sys "$out/thpnumactl" \
		stat "$@" > "$work/stat.out" 2> "$work/stat.err"
}
if ctl_stat && grep -qE '^test_recipe +0 +0 +0$' "$work/stat.out"; then
	ok "thpnumactl stat: a test_recipe row"
else
	not_ok "thpnumactl stat: a test_recipe row"
	sed 's/^/# /' "$work/stat.out" "$work/stat.err"
fi
if ctl_stat --json && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert all(n["test_recipe"] == 0 for n in d["nodes"]), d
' "$work/stat.out" > "$work/log" 2>&1; then
	ok "thpnumactl stat --json: test_recipe in every node"
else
	not_ok "thpnumactl stat --json: test_recipe in every node"
	sed 's/^/# /' "$work/log" "$work/stat.err"
fi
if ctl_stat --prometheus &&
   python3 "$top/tests/host/thpnumactl/check_prometheus.py" "$work/stat.out" &&
   grep -q '^# HELP thpnuma_test_recipe_total A counter added by recipe-counter.sh.$' "$work/stat.out" &&
   grep -q '^thpnuma_test_recipe_total{node="1"} 0$' "$work/stat.out"; then
	ok "thpnumactl stat --prometheus: test_recipe with its help text"
else
	not_ok "thpnumactl stat --prometheus: test_recipe with its help text"
	sed 's/^/# /' "$work/stat.err"
fi

if [ "${RECIPE_CLI:-0}" = 1 ]; then
	check "cli.sh with the generated fixtures" env THPNUMACTL="$out/thpnumactl" \
		FIXTURES="$fx" "$tree/tests/host/thpnumactl/cli.sh"
fi

# 5. Nothing else was edited, and the tests wrote nothing in the tree.
if diff -rq -x build "$top/module" "$tree/module" > "$work/diff" 2>&1; [ "$(cat "$work/diff")" = "Files $top/module/counters.h and $tree/module/counters.h differ" ] &&
   (cd "$top" && git ls-files -co --exclude-standard | grep -v -e '^build/' -e '^\.cache/' -e '^module/') > "$work/files" &&
   (cd "$tree" && while read -r f; do cmp -s "$top/$f" "$f" || echo "$f"; done < "$work/files") > "$work/changed" &&
   [ ! -s "$work/changed" ]; then
	ok "no file but counters.h differs from the tree"
else
	not_ok "no file but counters.h differs from the tree"
	sed 's/^/# /' "$work/diff" "$work/changed" 2>/dev/null
fi
tap_finish
