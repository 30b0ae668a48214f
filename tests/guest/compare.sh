#!/bin/sh
# thpnumactl compare on the workload of the 2019 debate, thp-swapstorm,
# in a guest whose clock counts instructions (1c2n-icount): the host's
# load does not move the figures. With node 0 full, local-then-remote is
# faster than strict-local, significantly, and each run's own counters
# show why (strict-local placed no THP remotely). With node 0 free there
# is no difference. Bad input, a command that fails in some runs, one
# that does not exist, and an interrupt each end with a clear error and
# exit status, and leave no cgroup, setting or process behind.
. /tests/lib.sh
T=/tests/thpnumactl
S=/sys/kernel/thpnuma
CG=/sys/fs/cgroup
out=/tmp/compare.out
err=/tmp/compare.err

tap_plan 35
[ -e $CG/cgroup.controllers ] || mount -t cgroup2 none $CG ||
	{ skip "cgroup v2" "cannot mount cgroup2"; tap_done; }
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
check "module loads" thpnuma_load policy=kernel

# Nothing of a compare is left: no transient cgroup, setting or override.
left_nothing() {
	[ -z "$(ls -d $CG/thpnuma-compare.* 2> /dev/null)" ] &&
		[ "$(grep -c / $S/cgroups)" -eq 0 ] &&
		[ "$(grep -c '^[0-9]' $S/tasks)" -eq 0 ]
}
# running CMDLINE: a process runs CMDLINE (its words space-separated).
running() {
	for p in /proc/[0-9]*; do
		tr '\0' ' ' < $p/cmdline 2> /dev/null; echo
	done | grep -qx "$1 "
}
# json_runs POLICY KEY: KEY of each of POLICY's runs, a line each.
json_runs() {
	grep "\"policy\": \"$1\"" $out | grep '"seq"' |
		sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p"
}

# Node 0 filled to its low watermark, then 200 MiB of THP faults on it.
run compare --policies strict-local,local-then-remote --rounds 4 --json -- \
	thp-swapstorm --node 0 --fill-level wmark --region 200M
check "storm: every run succeeded (exit 0)" [ "$rc" -eq 0 ]
check "storm: local-then-remote is best" \
	grep -q '"best": "local-then-remote"' $out
check "storm: strict-local is worse than local-then-remote, significantly" \
	grep -q '"a": "strict-local", "b": "local-then-remote", .*"outcome": "worse"' $out
check "storm: 4 runs per policy, interleaved" \
	[ "$(grep -c '"seq"' $out)" -eq 8 ]
check "storm: strict-local's own counters: no THP placed remotely" \
	[ "$(json_runs strict-local thp_remote | sort -u)" = 0 ]
check "storm: local-then-remote's: THPs placed remotely in every run" \
	[ "$(json_runs local-then-remote thp_remote | grep -c '^[1-9]')" -eq 4 ]
check "storm: left nothing behind" left_nothing
grep -E '"verdict"|"policy": "[a-z-]*", "runs_ok"' $out | sed 's/^/# /'

# The same with node 0 free: every policy gets local THPs.
run compare --rounds 4 -- thp-swapstorm --node 0 --fill-level 0 --region 64M
check "free node: exit 0" [ "$rc" -eq 0 ]
check "free node: no difference between the policies" \
	grep -q '^verdict: no difference' $out
check "free node: a row per policy" \
	[ "$(grep -cE '^(kernel|strict-local|local-then-remote) +4 +0 ' $out)" -eq 3 ]
check "free node: left nothing behind" left_nothing
sed 's/^/# /' $out

# --metric: the last matching line's group, CRLF or not; --svg.
run compare -p kernel,local-then-remote --rounds 2 --json --svg /tmp/compare.svg \
	-m 'took (.*) ms$' -- printf 'took 9 ms\r\nrun-3 took 1.5e2 ms\r\n'
check "--metric: exit 0" [ "$rc" -eq 0 ]
check "--metric: the figure is the last match's group (1.5e2)" \
	[ "$(grep -c '"seq".*"value": 150,' $out)" -eq 4 ]
check "--svg: a chart with a dot per run" \
	eval '[ "$(grep -c "<circle" /tmp/compare.svg)" -eq 4 ] && grep -q "</svg>" /tmp/compare.svg'
expect "--metric that matches nothing: the runs fail" 1 "no line of its output matched --metric" \
	compare -p kernel,local-then-remote --rounds 1 -m 'ops: ([0-9]+)' -- true

# A process left running with the output open: compare does not wait
# for it, and ends it with the run.
run compare -p kernel,local-then-remote --rounds 1 --json -- sh -c 'sleep 60 & echo started'
check "a leftover holding the output: the run ends with the command" \
	eval '[ "$rc" -eq 0 ] && [ "$(json_runs kernel wall_s | cut -d. -f1)" -lt 5 ]'
check "the leftover was ended, and nothing is left" \
	eval 'left_nothing && ! running "sleep 60"'

# Bad input changes nothing.
expect "unknown policy: usage error" 2 "invalid policy 'fastest'" \
	compare --policies kernel,fastest -- true
expect "one policy is no comparison" 2 "at least two policies" \
	compare --policies kernel -- true
expect "--rounds 0: usage error" 2 "--rounds: '0'" compare --rounds 0 -- true
expect "no command: usage error" 2 "missing command" compare --rounds 2
expect "under a per-process override: refused, it would win every run" 1 \
	"per-process override (strict-local)" \
	run -p strict-local -- $T compare --rounds 2 -- true
check "bad input left nothing behind" left_nothing
expect "a command that does not exist: 127" 127 "cannot run '/no/such-command'" \
	compare --rounds 2 -- /no/such-command
check "a missing command left nothing behind" left_nothing

# Fails in runs 2, 5 and 8: those are left out and named, exit 1.
rm -f /tmp/compare.count
expect "a command that fails in some runs: exit 1" 1 "3 of 9 runs failed" \
	compare --rounds 3 -- sh -c 'n=$(cat /tmp/compare.count 2> /dev/null || echo 0)
		echo $((n + 1)) > /tmp/compare.count; [ $((n % 3)) -ne 1 ]'
check "the failed runs are listed with their status" \
	grep -q 'run 5 (.*): exit status 1' $out
check "failing runs left nothing behind" left_nothing

# An interrupt mid-run: the running command ends, the cgroups go, 130.
$T compare --rounds 3 -- sleep 30 > $out 2> $err &
pid=$!
sleep 3
check "the command runs under compare" running "sleep 30"
kill -INT $pid
wait $pid
rc=$?
check "interrupted: exit 130" [ "$rc" -eq 130 ]
check "interrupted: says so" grep -q 'interrupted after 0 of 9 runs' $err
check "interrupted: no cgroup or setting left" left_nothing
check "interrupted: the command was ended" eval '! running "sleep 30"'
sed 's/^/# /' $err

check "module unloads" thpnuma_unload
tap_done
