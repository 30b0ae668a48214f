#!/bin/sh
# Many possible nodes (the 64n topology): per-node state sized by
# nr_node_ids loads, counts and unloads; the stats and hist files have a
# row per node, and sysfs a directory per node whose files add up to them.
. /tests/lib.sh
D=$THPNUMA_DIR
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
tap_plan 10
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
diag "$nodes nodes, possible $(cat /sys/devices/system/node/possible)"
check "module loads with $nodes nodes" thpnuma_load policy=local-then-remote
/tests/thp-touch 16 > /dev/null
# Node 0 (48 MiB) may be too full for a local THP: where they went varies.
placed=$(($(stat_col 0 thp_local) + $(stat_col 0 thp_remote) + $(stat_col 0 thp_fallback)))
check "8 THP faults counted on node 0 ($placed)" test "$placed" -eq 8
check "stats: a row per node" test "$(($(wc -l < $D/stats) - 1))" -eq "$nodes"
check "hist: three rows per node" test "$(($(wc -l < $D/hist) - 1))" -eq "$((3 * nodes))"
check "hist: node 0's counts are its counters" \
	test "$(awk '$1 == 0 { printf "%s ", $3 }' $D/hist)" = \
	     "$(stat_col 0 thp_local) $(stat_col 0 thp_remote) $(stat_col 0 thp_fallback) "
check "sysfs: a directory per node" \
	test "$(ls /sys/kernel/thpnuma/nodes | wc -l)" -ge "$nodes"
check "sysfs: the nodes' stats files joined are debugfs' stats" \
	same_reads "cat $D/stats" "sysfs_table stats"
check "sysfs: the nodes' hist files joined are debugfs' hist" \
	same_reads "cat $D/hist" "sysfs_table hist"
check "module unloads" thpnuma_unload
check "debugfs directory is gone" test ! -e $D
tap_done
