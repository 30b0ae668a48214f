#!/bin/sh
# thpnumactl against the real module: load, settings, stats, unload, and
# the messages for each way these fail. Runs as root in the test VM.
#
# Exit status conventions checked here: 0 success, 1 runtime failure,
# 2 usage error. A bad --policy is a usage error (2): thpnumactl checks
# names itself before the kernel sees them.
. /tests/lib.sh
T=/tests/thpnumactl
KO=/lib/thpnuma.ko
out=/tmp/thpnumactl.out
err=/tmp/thpnumactl.err

tap_plan 94


# The start of the JSON line thpnumactl stat should print for each row of
# the stats file.
expected_stat_rows() {
	awk 'NR == 1 { for (i = 2; i <= NF; i++) h[i] = $i; next }
	     NF { s = "{\"node\": " $1
		  for (i = 2; i <= NF; i++) s = s ", \"" h[i] "\": " $i
		  print s "," }' $THPNUMA_DIR/stats
}

# The start of the JSON line thpnumactl hist should print for each node
# and outcome: its count is the stats file's counter of that outcome.
expected_hist_rows() {
	awk 'NR == 1 { for (i = 2; i <= NF; i++) c[$i] = i; next }
	     NF { n = split("local remote fallback", o, " ")
		  for (k = 1; k <= n; k++)
			print "{\"node\": " $1 ", \"outcome\": \"" o[k] \
			      "\", \"count\": " $c["thp_" o[k]] "," }' $THPNUMA_DIR/stats
}

# json_matches_stats CMD: thpnumactl CMD --json, in /tmp/CMD.json, has
# every line expected_CMD_rows prints. Counters may move between the two
# reads; a few tries settle it.
json_matches_stats() {
	for try in 1 2 3; do
		"$T" "$1" --json > /tmp/$1.json || return 1
		expected_$1_rows > /tmp/$1.expected
		[ -s /tmp/$1.expected ] || return 1
		while read -r row; do
			grep -qF -- "$row" /tmp/$1.json || continue 2
		done < /tmp/$1.expected
		return 0
	done
	sed 's/^/# /' /tmp/$1.json
	return 1
}

# The initramfs root comes from mktemp -d (mode 0700): open it up so that
# nobody can reach /bin/sh and /tests at all.
chmod 755 /

as_nobody() {
	su -s /bin/sh nobody -c "$T $*" > $out 2> $err
	rc=$?
}

# ---- before loading -----------------------------------------------------
expect "--version" 0 "thpnumactl " --version
expect "unload when not loaded says so" 1 "thpnuma is not loaded" unload
expect "policy when not loaded says how to load" 1 "load it with: thpnumactl load" policy
expect "status when not loaded: exit 3, like systemctl" 3 "not loaded" status
expect "loading a non-module file: invalid module format" 1 \
	"invalid module format" load --module /tests/lib.sh
# A copy of the module with one letter of its vermagic changed: the kernel
# refuses it and says why in its log, which thpnumactl must quote.
cp $KO /tmp/thpnuma.ko
strings -t d /tmp/thpnuma.ko | awk '$2 ~ /^vermagic=/ && $3 == "SMP" {
	print $1 + length($2) + 3; exit }' > /tmp/vermagic.off
if [ -s /tmp/vermagic.off ]; then
	printf Q | dd of=/tmp/thpnuma.ko bs=1 seek="$(cat /tmp/vermagic.off)" \
		conv=notrunc 2>/dev/null
	expect "module refused by the kernel: invalid module format" 1 \
		"invalid module format" load --module /tmp/thpnuma.ko
	check "the refusal quotes the module's kernel log line" \
		grep -q "^  thpnuma: version magic .*SMQ" $err
else
	skip "module refused by the kernel" "no ' SMP' in this module's vermagic"
	skip "the refusal quotes the module's kernel log line" "as above"
fi
expect "loading a missing file says so" 1 "no such file" \
	load --module /tmp/nonexistent.ko
expect "no /lib/modules: module not found" 1 "not found in /lib/modules" load
expect "bad --policy is a usage error (2)" 2 "invalid policy 'fastest'" \
	load --module $KO --policy fastest
check "nothing was loaded by the failures" test ! -e /sys/module/thpnuma

# ---- load ------------------------------------------------------------------
expect "load --policy strict-local" 0 "loaded" \
	load --module $KO --policy strict-local
check "debugfs policy is strict-local" \
	grep -qF "[strict-local]" $THPNUMA_DIR/policy
check "module parameter policy is strict-local" \
	grep -qx strict-local /sys/module/thpnuma/parameters/policy
expect "load when loaded: already loaded" 1 "thpnuma is already loaded" \
	load --module $KO
expect "status: loaded" 0 "loaded (live)" status
expect "status: built for the running kernel" 0 "$(uname -r)" status
expect "status: hooked symbol" 0 "hooked symbol:" status
expect "status: probe missed" 0 "probe missed:" status

# ---- settings: set, then read back both ways ---------------------------------
expect "policy local-then-remote" 0 local-then-remote policy local-then-remote
check "debugfs agrees" grep -qF "[local-then-remote]" $THPNUMA_DIR/policy
expect "policy reads back" 0 local-then-remote policy
expect "zone-reclaim reclaim,swap" 0 "5 (reclaim,swap)" zone-reclaim reclaim,swap
check "debugfs zone_reclaim is 5" grep -qx 5 $THPNUMA_DIR/zone_reclaim
expect "zone-reclaim reads back" 0 "5 (reclaim,swap)" zone-reclaim
expect "scope madvise" 0 madvise scope madvise
check "debugfs scope is madvise" grep -qF "[madvise]" $THPNUMA_DIR/scope
expect "scope reads back" 0 madvise scope
expect "coverage pmd+mthp" 0 pmd+mthp coverage pmd+mthp
check "debugfs coverage is pmd+mthp" grep -qF "[pmd+mthp]" $THPNUMA_DIR/coverage
expect "coverage all" 0 all coverage all

# ---- stats ---------------------------------------------------------------------
# Real THP faults first, so the comparison below is of non-zero counters.
/tests/thp-touch 16 > /dev/null
check "THP faults were counted" test "$(stats_sum thp_local thp_remote thp_fallback)" -gt 0
check "stat --json equals the debugfs stats file" json_matches_stats stat
expect "stat table has node columns and Total" 0 "Total" stat
expect "stat --prometheus" 0 'thpnuma_thp_local_total{node="1"}' stat --prometheus
expect "stat shows the orders table" 0 "anon 2048kB" stat
expect "stat --json has the orders" 0 '"kind": "anon"' stat --json
expect "stat --prometheus has the orders" 0 \
	'thpnuma_order_local_total{node="0",kind="anon",size_kb="2048"}' \
	stat --prometheus
expect "watch -c 1" 0 "all" watch -i 0.2 -c 1
expect "hist shows the faults above" 0 " allocation" hist
check "hist --json counts equal the stats file's" json_matches_stats hist
expect "hist --prometheus" 0 'thpnuma_alloc_duration_seconds_bucket{node="1",outcome="local",le="+Inf"}' \
	hist --prometheus
expect "reset" 0 "counters reset" reset
check "counters are zero after reset" test "$(stats_sum)" = 0
expect "hist is empty after reset" 0 "no THP allocation timed yet" hist
expect "hist -n 1 --json after reset" 0 '{"node": 1, "outcome": "fallback", "count": 0, "sum_ns": 0,' \
	hist -n 1 --json

# ---- per-process overrides ---------------------------------------------------------
# run: the command itself finds its own PID in the tasks file.
"$T" run --policy strict-local --zone-reclaim 1 -- \
	sh -c "echo \$\$; cat $THPNUMA_DIR/tasks; true" > $out 2> $err
# The shell's own line, and cat's, which it inherited when sh forked it:
# PID COMM POLICY ZONE_RECLAIM BUDGET_US, "-" following the global one.
if grep -qx "$(head -n 1 $out) sh strict-local 1 -" $out &&
   grep -q "^[0-9]* cat strict-local 1 -\$" $out; then
	ok "run: the command runs under its override"
else
	not_ok "run: the command runs under its override"
	cat $out $err | sed 's/^/# /'
fi
check "run: the override ended with the command" test ! -s $THPNUMA_DIR/tasks
"$T" run -p budget -b 300 -- cat $THPNUMA_DIR/tasks > $out 2> $err
check "run -b: the command runs under its budget_us, zone_reclaim global" \
	grep -q "^[0-9]* cat budget - 300\$" $out
sleep 600 &
pid=$!
# The forked shell becomes sleep at exec: wait for its name (a busy host
# may run the listing first).
i=0
while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect "task PID POLICY" 0 "$pid strict-local" task $pid strict-local
expect "tasks lists it" 0 "sleep" tasks
run tasks --json
check "tasks --json has the PID and policy" \
	grep -qF "{\"pid\": $pid, \"comm\": \"sleep\", \"policy\": \"strict-local\", \"zone_reclaim\": null, \"budget_us\": null}" $out
expect "policies counts the override" 0 "strict-local                    1" policies
# A per-process budget_us: set through thpnumactl, read back from the
# module's own file and through thpnumactl.
expect "task -b PID budget" 0 "$pid budget" task -b 500 $pid budget
check "tasks file: budget_us 500, zone_reclaim global" \
	grep -qx "$pid sleep budget - 500" $THPNUMA_DIR/tasks
expect "task PID shows the budget_us" 0 "budget              global        500" task $pid
run tasks --json
check "tasks --json has the budget_us" \
	grep -qF "\"policy\": \"budget\", \"zone_reclaim\": null, \"budget_us\": 500}" $out
expect "task -z -b PID budget" 0 "$pid budget" task -z reclaim,write -b 1000000 $pid budget
check "tasks file: zone_reclaim 3, budget_us 1000000" \
	grep -qx "$pid sleep budget 3 1000000" $THPNUMA_DIR/tasks
expect "task PID default" 0 "$pid default" task $pid default
check "the override is gone" test ! -s $THPNUMA_DIR/tasks
kill $pid
wait $pid 2> /dev/null
expect "task for a dead process" 1 "no process with PID $pid" task $pid kernel

# ---- per-cgroup settings ---------------------------------------------------------------
CG=/sys/fs/cgroup
TCG=/thpnumactl-test.slice
if [ -e $CG/cgroup.controllers ] || mount -t cgroup2 none $CG; then
	mkdir -p $CG$TCG
	expect "cgroup -b PATH budget" 0 "$TCG budget" cgroup -b 250 $TCG budget
	check "cgroups file: budget_us 250, zone_reclaim global" \
		grep -qx "$TCG budget - 250" /sys/kernel/thpnuma/cgroups
	expect "cgroups shows the budget_us" 0 "budget              global        250        $TCG" cgroups
	run cgroups --json
	check "cgroups --json has the budget_us" grep -qF \
		"{\"path\": \"$TCG\", \"policy\": \"budget\", \"zone_reclaim\": null, \"budget_us\": 250}" $out
	expect "cgroup PATH shows it" 0 "$TCG budget zone_reclaim=global budget_us=250" cgroup $CG$TCG
	printf 'cgroup %s budget reclaim 1000\n' $TCG > /tmp/thpnuma.conf
	expect "apply: a cgroup line with a budget_us" 0 "cgroup $TCG budget 1 1000" \
		apply -C /tmp/thpnuma.conf
	check "cgroups file: zone_reclaim 1, budget_us 1000" \
		grep -qx "$TCG budget 1 1000" /sys/kernel/thpnuma/cgroups
	expect "cgroup PATH default" 0 "$TCG default" cgroup $TCG default
	check "the setting is gone" test ! -s /sys/kernel/thpnuma/cgroups
	rmdir $CG$TCG
else
	for t in "cgroup -b" "cgroups file" "cgroups" "cgroups --json" "cgroup PATH" \
		"apply" "cgroups file after apply" "cgroup PATH default" "setting gone"; do
		skip "$t" "cannot mount cgroup2"
	done
fi

# ---- not root ------------------------------------------------------------------------
as_nobody policy kernel
if [ "$rc" -eq 1 ] && grep -q "needs root" $err; then
	ok "non-root policy change: needs root"
else
	not_ok "non-root policy change: needs root"
	diag "rc=$rc"
	sed 's/^/# /' $out $err
fi
as_nobody unload
if [ "$rc" -eq 1 ] && grep -q "needs root" $err; then
	ok "non-root unload: needs root"
else
	not_ok "non-root unload: needs root"
	diag "rc=$rc"
	sed 's/^/# /' $out $err
fi
check "policy unchanged by the non-root attempt" \
	grep -qF "[local-then-remote]" $THPNUMA_DIR/policy

# The statistics are world-readable in sysfs, the control files are not.
S=/sys/kernel/thpnuma
check "sysfs: stats, hist, orders and budget in every node's directory" \
	test "$(ls $S/nodes/node*/* | wc -l)" -eq "$((4 * $(ls $S/nodes | wc -l)))"
check "sysfs: the counter files are 0444" sh -c \
	"[ \"\$(stat -c %a $S/policies $S/version $S/nodes/node*/* | sort -u)\" = 444 ]"
check "sysfs: tasks 0600, reset 0200" sh -c \
	"[ \"\$(stat -c %a $S/tasks $S/reset)\" = \"600
200\" ]"
for f in stats hist orders budget; do
	check "sysfs: the nodes' $f files joined are debugfs' $f" \
		same_reads "cat $THPNUMA_DIR/$f" "sysfs_table $f"
done
for f in policies version; do
	check "sysfs: $f is debugfs' $f" same_reads "cat $THPNUMA_DIR/$f" "cat $S/$f"
done
for args in stat "stat --json" "stat --prometheus" hist "hist --json" policies; do
	check "non-root $args reads what root reads" \
		same_reads "$T $args" "su -s /bin/sh nobody -c '$T $args'"
done
as_nobody tasks
if [ "$rc" -eq 1 ] && grep -q "needs root" $err; then
	ok "non-root tasks: the overrides list needs root"
else
	not_ok "non-root tasks: the overrides list needs root"
	diag "rc=$rc"
	sed 's/^/# /' $out $err
fi

# ---- unload -----------------------------------------------------------------------------
# An open debugfs file holds a module reference: unload must refuse.
exec 3< $THPNUMA_DIR/version
expect "unload while a debugfs file is open: in use" 1 "in use" unload
exec 3<&-
expect "unload" 0 "unloaded thpnuma" unload
check "module is gone" test ! -e /sys/module/thpnuma
expect "unload again: not loaded" 1 "thpnuma is not loaded" unload
tap_done
