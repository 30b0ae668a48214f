#!/bin/sh
# Reclaim that faults no THP (kswapd, direct and memcg reclaim by
# reclaim-churn), with the module loaded and all its hooks and probes armed:
# the module counts nothing, since its compaction and reclaim counters
# belong to hooked THP faults only, and its probes miss nothing.
# Env: RECLAIM_ARGS (reclaim-churn options, default "--passes 2").
. /tests/lib.sh
tap_plan 8
T=/sys/kernel/mm/transparent_hugepage

jget() { echo "$1" | grep -o "\"$2\":[-0-9.]*" | head -1 | cut -d: -f2; }
is() { awk "BEGIN { exit !($1) }"; }
probe_missed() { awk '$1 == "probe_missed" { print $2 }' "$THPNUMA_DIR/version"; }

enabled=$(sed 's/.*\[\(.*\)\].*/\1/' $T/enabled)
sleep_ms=$(cat $T/khugepaged/scan_sleep_millisecs)
# THP on for everyone: only the workload's own PR_SET_THP_DISABLE keeps its
# faults base pages. khugepaged sleeps: it would collapse nothing of ours,
# but its allocations are hooked compactions of no fault.
echo always > $T/enabled
echo 3600000 > $T/khugepaged/scan_sleep_millisecs

if ! grep -q / /proc/swaps; then
	for i in 1 2 3 4 5 6 7 8; do skip "reclaim step $i" "no swap device"; done
	exit 0
fi
check "module loads (local-then-remote, zone_reclaim=7)" \
	thpnuma_load policy=local-then-remote zone_reclaim=7
before=$(stats_sum)
diag "module counters before, summed: $before"

# shellcheck disable=SC2086
if j=$(reclaim-churn --json ${RECLAIM_ARGS:---passes 2} 2>/tmp/reclaim.err); then
	ok "reclaim-churn ran"
else
	not_ok "reclaim-churn ran"
	diag "$(tr '\n' ' ' < /tmp/reclaim.err)"
fi
diag "$j"
# A worker the OOM killer took still reclaimed first: not a failure.
[ "$(jget "$j" workers_oom_killed)" = 0 ] ||
	diag "OOM kills: $(dmesg | grep -c 'Killed process')"
after=$(stats_sum)
diag "module counters after, summed: $after"

check "kswapd reclaimed" is "$(jget "$j" pgscan_kswapd) > 0"
check "memcg reclaim ran" \
	is "$(jget "$j" memcg_pgscan) > 0 && $(jget "$j" memcg_max_events) > 0"
check "no THP fault happened" \
	is "$(jget "$j" thp_fault_alloc) == 0 && $(jget "$j" thp_fault_fallback) == 0"
check "every module counter unchanged" \
	is "${before:-x} == ${after:-y}"
check "probe_missed 0" [ "$(probe_missed)" = 0 ]
check "module unloads" thpnuma_unload

echo "$enabled" > $T/enabled
echo "$sleep_ms" > $T/khugepaged/scan_sleep_millisecs
tap_done
