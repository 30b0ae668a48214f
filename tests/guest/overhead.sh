#!/bin/sh
# The hook's cost, deterministic: under the 1c2n-icount topology guest
# time counts instructions, so fault rates repeat whatever the host's
# load. make bench-overhead's A/B (thpnuma-bench.sh: module absent vs
# loaded in kernel policy, ABBA rounds of fixed work, the fastest pass of
# each run) for base pages, PMD THPs and 64 KiB mTHPs; the ratio of the medians must
# reach the targets of bench/README.md, "Hook overhead". With
# OVERHEAD_STATES="kernel cgroups", the cost of 10,000 per-cgroup settings
# (bench/README.md, "Per-cgroup settings").
. /tests/lib.sh
ROUNDS=${OVERHEAD_ROUNDS:-4}
# kind:target pairs: loaded/absent faults per second, at least.
TARGETS=${OVERHEAD_TARGETS:-"base:0.995 thp:0.999 mthp64:0.99"}
# The A/B's two states: the ratio is the second's rate over the first's.
STATES=${OVERHEAD_STATES:-"absent kernel"}
A=${STATES% *} B=${STATES#* }
out=/tmp/overhead.out

tap_plan $((1 + $(echo "$TARGETS" | wc -w)))
# An mTHP size this kernel lacks (before 6.8) is skipped, not measured.
has_kind() {
	case $1 in
	mthp*) [ -d /sys/kernel/mm/transparent_hugepage/hugepages-${1#mthp}kB ] ;;
	*) true ;;
	esac
}
kinds=
for t in $TARGETS; do
	has_kind "${t%%:*}" && kinds="$kinds${kinds:+ }${t%%:*}"
done
BENCH_MATRIX=0 BENCH_BASELINES='' BENCH_ROUNDS=$ROUNDS BENCH_AB_PASSES=20 \
	BENCH_AB_KINDS="$kinds" BENCH_AB_STATES="$STATES" /tests/thpnuma-bench.sh > $out 2>&1
check "the A/B runs ($ROUNDS rounds of $kinds, $A against $B)" sh -c "! grep -q '^not ok' $out"

# best_pass_per_sec of KIND in each run of STATE, one per line.
rates() {
	grep "^BENCH overhead state=$2 .* kind=$1 " $out |
		sed -n "s/.*\"$1\":{[^}]*\"best_pass_per_sec\":\([0-9.e+]*\).*/\1/p"
}
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
for t in $TARGETS; do
	kind=${t%%:*} target=${t#*:}
	if ! has_kind "$kind"; then
		skip "$kind faults >= $target" "no ${kind#mthp} KiB mTHP on this kernel"
		continue
	fi
	a=$(rates "$kind" "$A" | median)
	b=$(rates "$kind" "$B" | median)
	ratio=$(awk -v a="${a:-0}" -v b="${b:-0}" \
		'BEGIN { if (a > 0 && b > 0) printf "%.4f", b / a }')
	check "$kind faults: $B/$A ${ratio:-unmeasured} >= $target ($b/$a per s)" \
		awk -v r="${ratio:-0}" -v t="$target" 'BEGIN { exit !(r >= t) }'
done
tap_done
