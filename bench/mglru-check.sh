#!/bin/sh
# Guest script: the swap-storm fault under strict-local with MGLRU on and
# off, to show what MGLRU's direct reclaim does to a costly local THP
# allocation. Prints each run's thp-swapstorm JSON line as a diagnostic.
# Run: python3 tools/vm/harness.py --kernels KVER --manifest bench/MANIFEST.mglru
. /tests/lib.sh
lru=/sys/kernel/mm/lru_gen/enabled
tap_plan 2
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
echo 3600000 > /sys/kernel/mm/transparent_hugepage/khugepaged/scan_sleep_millisecs
echo 0 > /proc/sys/vm/compaction_proactiveness
for mode in y n; do
	if [ ! -w $lru ]; then
		skip "strict-local storm with lru_gen=$mode" "no $lru (kernel without MGLRU)"
		continue
	fi
	echo $mode > $lru
	thpnuma_load policy=strict-local
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
	j=$(thp-swapstorm --fill-level wmark --region 400M --json)
	rc=$?
	thpnuma_unload
	diag "lru_gen $(cat $lru): $j"
	check "strict-local storm with lru_gen=$mode ran" test $rc -eq 0
done
echo y > $lru 2> /dev/null
tap_done
