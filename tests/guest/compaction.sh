#!/bin/sh
# Compaction run by a hooked allocation shows in the module's counters:
# a node fragmented by thp-remote-latency makes every local THP attempt
# of local-then-remote direct-compact and fail, then go remote.
. /tests/lib.sh
tap_plan 5
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag

vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

check "load with local-then-remote" thpnuma_load policy=local-then-remote
# The fragmenter's last bound THP fault fails sync compaction, which
# defers node 0's compaction for 1 << defer shift attempts; earlier
# tests' failures may have raised the shift to its maximum, 6: 64. The
# local attempts here are async and defer nothing, so 80 THP faults
# (160 MiB) reach one that compacts.
before=$(vmstat compact_stall)
j=$(thp-remote-latency --no-baselines --region 160M --accesses 20000 --json)
rc=$?
diag "$j"
after=$(vmstat compact_stall)
stall=$(stat_col 0 compact_stall)
success=$(stat_col 0 compact_success)
fail=$(stat_col 0 compact_fail)
diag "module node0: compact_stall $stall success $success fail $fail; kernel compact_stall +$((after - before))"
check "the fragmenter ran" test "$rc" -eq 0
check "the module counted direct compaction on node 0" test "$stall" -gt 0
check "every compaction succeeded or failed" test "$stall" -eq $((success + fail))
# The module counts each zone compacted (compact_zone_order()); the kernel
# counts allocation attempts that compacted, including attempts whose
# zones were all deferred. So only "module saw one => kernel saw one".
check "the kernel counted compaction stalls too" test $((after - before)) -gt 0
thpnuma_unload
tap_done
