#!/bin/sh
# Clean unload: after rmmod, in every policy, nothing of thpnuma is left
# (debugfs, ftrace hooks, kprobes) and the module loads again.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
tap_plan 51
for p in kernel strict-local local-then-remote; do
	check "$p: loads" thpnuma_load policy=$p zone_reclaim=7
	check "$p: $SYM calls thpnuma's entry directly" sh -c "grep -A1 '^$SYM ' $T/enabled_functions | grep -q 'direct.*thpnuma_alloc_entry'"
	check "$p: try_to_free_pages hooked with IPMODIFY" sh -c "grep '^try_to_free_pages ' $T/enabled_functions | grep -q ' I '"
	check "$p: shrink_node and $SWAP_OUT call thpnuma's cut entry directly (the budget's cut)" \
		sh -c "grep -A1 '^shrink_node ' $T/enabled_functions | grep -q 'direct.*thpnuma_cut_entry' && grep -A1 '^$SWAP_OUT ' $T/enabled_functions | grep -q 'direct.*thpnuma_cut_entry'"
	check "$p: its kprobes registered ($(kprobes_of_thpnuma))" test "$(kprobes_of_thpnuma)" = 3
	faults_counted "$p"
	check "$p: no probe event missed ($(grep probe_missed $D/version))" grep -qx "probe_missed 0" $D/version
	check "$p: unloads" thpnuma_unload
	unloaded_clean "$p, after rmmod"
done
check "reloads after the last unload" thpnuma_load
faults_counted "reloaded"
check "unloads again" thpnuma_unload
tap_done
