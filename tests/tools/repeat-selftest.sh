#!/bin/sh
# A debugging loop, not a test (in no manifest): runs one kernel mm
# selftest many times, without the module and then under one policy, to
# tell a flaky verdict from one the module causes. Defaults are the case
# that once failed in make check-stress: 6.12's split_huge_page_test under
# kernel. The guest has it in /tests; run it with a one-line manifest such
# as "2n 5000 repeat-selftest.sh REPEAT_RUNS=6 REPEAT_POLICY=kernel".
. /tests/lib.sh
test=${REPEAT_TEST:-split_huge_page_test}
runs=${REPEAT_RUNS:-6}
policy=${REPEAT_POLICY:-kernel}
set -- $(grep "^$test " /selftests/LIST)
limit=$2
shift 2
tap_plan $((2 * runs))
echo always > /sys/kernel/mm/transparent_hugepage/enabled
thpnuma_unload 2>/dev/null

# run_once MODE N: one run; its exit code and last lines go to the log.
run_once() {
	t0=$(cut -d. -f1 /proc/uptime)
	(cd /tmp && timeout -s KILL $limit /selftests/$test "$@" > /tmp/repeat.log 2>&1)
	rc=$?
	diag "$mode run $n: rc=$rc in $(($(cut -d. -f1 /proc/uptime) - t0)) s; last lines: $(tr '\r' '\n' < /tmp/repeat.log | tail -n 2 | tr '\n' '|')"
	check "$mode: $test run $n exits 0" test $rc = 0
}

for mode in absent $policy; do
	[ $mode = $policy ] && thpnuma_load policy=$policy zone_reclaim=1
	n=1
	while [ $n -le $runs ]; do
		run_once "$@"
		n=$((n + 1))
	done
done
thpnuma_unload
tap_done
