#!/bin/sh
# Deployment: thpnumactl load applies /etc/modprobe.d's options (ours win),
# then kernel lockdown (integrity, as Secure Boot gives on Debian) is raised
# at run time: every setting still changes through thpnumactl and takes
# effect on the next THP fault, overrides and reset work, stats read, and
# the debugfs control files are refused by the kernel's lockdown, before
# thpnuma sees the open. run --user drops to nobody and keeps the override.
#
# Lockdown cannot be lowered again: this test must be the last of its boot
# (it checks), and its MANIFEST line has zram for the zone_reclaim storm.
. /tests/lib.sh
T=/tests/thpnumactl
KO=/lib/thpnuma.ko
D=$THPNUMA_DIR
P=/sys/module/thpnuma/parameters
LD=/sys/kernel/security/lockdown
out=/tmp/lockdown.out
err=/tmp/lockdown.err

tap_plan 66


# policy_faults POLICY: THP faults the policies file counts for POLICY
# (placed, fallen back or passed through).
policy_faults() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { print $col["thp_local"] + $col["thp_remote"] + $col["thp_fallback"] + $col["passthrough"] }' \
		$D/policies
}
# other_policies_faults POLICY: the same, summed over every other policy.
other_policies_faults() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 != p { s += $col["thp_local"] + $col["thp_remote"] + $col["thp_fallback"] + $col["passthrough"] }
		END { print s + 0 }' $D/policies
}
by_override() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { print $col["by_override"] }' $D/policies
}
vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }

# Open for reading and for writing: the kernel must refuse both with
# EPERM, as lockdown does, before thpnuma's handlers run.
refused_open() {
	_r=$(cat "$1" 2>&1 > /dev/null)
	case $_r in *"Operation not permitted"*) ;; *) diag "read $1: '$_r'"; return 1 ;; esac
	_w=$( (echo 1 > "$1") 2>&1)
	case $_w in *"Operation not permitted"*) ;; *) diag "write $1: '$_w'"; return 1 ;; esac
}

# ---- preconditions ---------------------------------------------------------
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
# /run.conf's TESTS: ID:PROGRAM:LIMIT words, in the order the boot runs them.
last=$(sed -n 's/^TESTS="\(.*\)"$/\1/p' /run.conf | tr ' ' '\n' | tail -n 1)
last=${last#*:}
last=${last%:*}
if [ ! -e $LD ]; then
	diag "no $LD: this kernel lacks the lockdown LSM"
	not_ok "the kernel has the lockdown LSM"
	tap_done
fi
ok "the kernel has the lockdown LSM"
if [ "$last" != lockdown.sh ]; then
	not_ok "lockdown.sh is the last test of its boot (last: '$last'); lockdown cannot be lowered"
	tap_done
fi
ok "lockdown.sh is the last test of its boot"
check "lockdown is off at boot" grep -qF "[none]" $LD
chmod 755 /
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag

# ---- load honours /etc/modprobe.d ------------------------------------------
mkdir -p /etc/modprobe.d
echo "options thpnuma policy=strict-local zone_reclaim=1" > /etc/modprobe.d/thpnuma.conf
expect "load --dry-run shows modprobe.d's options" 0 \
	"with options: policy=strict-local zone_reclaim=1" load --dry-run --module $KO
check "the dry run loaded nothing" test ! -e /sys/module/thpnuma
expect "load applies modprobe.d's options" 0 \
	"with policy=strict-local zone_reclaim=1 from modprobe.d" load --module $KO
check "policy is modprobe.d's strict-local" grep -qx strict-local $P/policy
check "zone_reclaim is modprobe.d's 1" grep -qx 1 $P/zone_reclaim
expect "unload" 0 "unloaded" unload
expect "load --policy kernel over modprobe.d's policy" 0 "and policy=kernel" \
	load --module $KO --policy kernel
check "our --policy wins" grep -qx kernel $P/policy
check "modprobe.d's zone_reclaim still applies" grep -qx 1 $P/zone_reclaim
rm /etc/modprobe.d/thpnuma.conf

# ---- raise lockdown ----------------------------------------------------------
echo integrity > $LD
check "lockdown is integrity" grep -qF "[integrity]" $LD
expect "status shows the lockdown level" 0 "integrity" status

# ---- debugfs: control files refused by the kernel, the rest readable -----------
dmesg -c > /dev/null
for f in policy zone_reclaim scope tasks reset; do
	check "debugfs $f: open refused with EPERM" refused_open $D/$f
done
check "the refusals are lockdown's (kernel log)" \
	sh -c 'dmesg | grep -q "debugfs access is restricted"'
check "thpnuma saw none of those opens (no message of its own)" \
	sh -c '! dmesg | grep -q "thpnuma:"'
check "stats, policies, version and nodeN files read" \
	sh -c "cat $D/stats $D/policies $D/version $D/node0/thp_local > /dev/null"

# ---- every setting through thpnumactl, each checked on the next fault ------------
for p in strict-local local-then-remote kernel; do
	expect "policy $p" 0 "$p" policy $p
	check "policy $p: the parameter reads $p" grep -qx "$p" $P/policy
	expect "policy $p: reset" 0 "counters reset" reset
	/tests/thp-touch 8 > /dev/null
	n=$(policy_faults $p) o=$(other_policies_faults $p)
	if [ "${n:-0}" -ge 4 ] && [ "$o" -eq 0 ]; then
		ok "policy $p: the next THP faults ran under it"
	else
		not_ok "policy $p: the next THP faults ran under it ($p: '$n', others: $o)"
		sed 's/^/# /' $D/policies
	fi
done
expect "policy refuses a bad name" 2 "invalid policy" policy bogus
check "a bad write to the parameter is EINVAL, state unchanged" \
	sh -c "! echo bogus > $P/policy 2> /dev/null && grep -qx kernel $P/policy"

# scope: madvise leaves faults outside MADV_HUGEPAGE to the kernel, uncounted.
# Outside MADV_HUGEPAGE the kernel does not compact (defrag=madvise): free
# 2 MiB blocks must be there, whatever the tests before left fragmented.
echo always > /sys/kernel/mm/transparent_hugepage/enabled
expect "scope madvise" 0 madvise scope madvise
run reset
echo 1 > /proc/sys/vm/compact_memory
a0=$(vmstat thp_fault_alloc)
dd if=/dev/zero of=/dev/null bs=16M count=1 2> /dev/null
a1=$(vmstat thp_fault_alloc)
/tests/thp-touch 4 > /dev/null
if [ $((a1 - a0)) -gt 0 ] && [ "$(policy_faults kernel)" -eq 2 ]; then
	ok "scope madvise: only the MADV_HUGEPAGE faults counted"
else
	not_ok "scope madvise: only the MADV_HUGEPAGE faults counted (kernel THP faults $((a1 - a0)), counted $(policy_faults kernel))"
fi
expect "scope all" 0 all scope all
run reset
echo 1 > /proc/sys/vm/compact_memory
a0=$(vmstat thp_fault_alloc)
dd if=/dev/zero of=/dev/null bs=16M count=1 2> /dev/null
a1=$(vmstat thp_fault_alloc)
if [ $((a1 - a0)) -gt 0 ] && [ "$(policy_faults kernel)" -eq $((a1 - a0)) ]; then
	ok "scope all: faults outside MADV_HUGEPAGE counted too"
else
	not_ok "scope all: faults outside MADV_HUGEPAGE counted too (kernel $((a1 - a0)), counted $(policy_faults kernel))"
fi
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled

# zone_reclaim: local-then-remote on a node 0 full of swappable memory.
reclaim_round() {
	run reset
	/tests/thp-demo > /tmp/demo.out 2>&1
	demo_rc=$?
	stalls=$(stat_col 0 reclaim_stall)
	swapped=$(sed -n 's/.*swap-outs during the fault: \([0-9]*\) pages.*/\1/p' /tmp/demo.out)
	diag "zone_reclaim $(cat $P/zone_reclaim): node 0 reclaim_stall $stalls, swap-outs ${swapped:-?}"
}
expect "policy local-then-remote (for zone_reclaim)" 0 local-then-remote policy local-then-remote
expect "zone-reclaim none" 0 "0 (none)" zone-reclaim none
reclaim_round
# What the setting decides is whether node 0 reclaims directly; kswapd,
# which it does not restrain, may swap, and direct reclaim may find clean
# pages to drop instead of swapping: swap-outs are logged, not asserted.
if [ "$demo_rc" -eq 0 ] && [ "$stalls" -eq 0 ]; then
	ok "zone_reclaim 0: no direct reclaim on node 0"
else
	not_ok "zone_reclaim 0: no direct reclaim on node 0 (rc=$demo_rc)"
	sed 's/^/# /' /tmp/demo.out
fi
expect "zone-reclaim reclaim,swap" 0 "5 (reclaim,swap)" zone-reclaim reclaim,swap
check "the parameter reads 5" grep -qx 5 $P/zone_reclaim
reclaim_round
if [ "$demo_rc" -eq 0 ] && [ "$stalls" -gt 0 ]; then
	ok "zone_reclaim 5: node 0 reclaims before going remote"
else
	not_ok "zone_reclaim 5: node 0 reclaims before going remote (rc=$demo_rc)"
	sed 's/^/# /' /tmp/demo.out
fi
run zone-reclaim 0
run policy kernel

# ---- overrides, stats and reset under lockdown --------------------------------------
sleep 600 &
pid=$!
expect "task PID strict-local" 0 "$pid strict-local" task $pid strict-local
check "policies counts the override" \
	sh -c "awk '\$1 == \"strict-local\" && \$2 == 1' $D/policies | grep -q ."
expect "tasks lists the override (debugfs overrides, 0400)" 0 \
	"strict-local" tasks
expect "task PID shows it" 0 "strict-local" task $pid
expect "task PID default" 0 "$pid default" task $pid default
check "the override is gone" \
	sh -c "awk '\$1 == \"strict-local\" && \$2 == 0' $D/policies | grep -q ."

# The lockdown-proof files parse as strictly as debugfs: EINVAL, one log
# line, nothing changed.
S=/sys/kernel/thpnuma
einval() {
	_f=$1
	shift
	_e=$(printf "$@" | /tests/write-once "$_f" 2>&1)
	case $_e in *"Invalid argument"*) ;; *) diag "$_f: '$_e'"; return 1 ;; esac
}
# The settings, the override count and the counters (a reset would zero them).
settings() { cat $P/policy $P/zone_reclaim $P/scope; awk '{ print $1, $2 }' $D/policies; stats_sum; }
before=$(settings)
dmesg -c > /dev/null
bad=0
for v in Kernel "strict-local extra" " kernel" "kernel\\n\\n" \
	"strict-localxxxxxxxxxxxxxxxxxxxxxxxxxx"; do
	einval $P/policy "$v" || bad=1
done
for v in 8 07 0x1 "1 " -1; do einval $P/zone_reclaim "$v" || bad=1; done
for v in never ALL "madvise "; do einval $P/scope "$v" || bad=1; done
for v in "$pid bogus" "$pid strict-local 8" "$pid strict-local\\0" \
	"$pid strict-local 1 0" "$pid budget - 1000001" "0 kernel" "$pid kernel                     x"; do
	einval $S/tasks "$v" || bad=1
done
for v in 2 "1 " "11"; do einval $S/reset "$v" || bad=1; done
check "bad writes to the parameters and /sys/kernel/thpnuma: EINVAL" test $bad -eq 0
# sysfs completes an empty write itself (returns 0) without calling the
# module, unlike debugfs: nothing happens, checked just below.
check "an empty write to tasks and reset reaches nothing" \
	sh -c "printf '' | /tests/write-once $S/tasks && printf '' | /tests/write-once $S/reset"
check "...and nothing changed" test "$(settings)" = "$before"
check "...and the module said why" sh -c \
	'dmesg | grep -q "thpnuma: invalid policy .Kernel." && dmesg | grep -q "thpnuma: tasks: expected" && dmesg | grep -q "thpnuma: reset: write"'
kill $pid
wait $pid 2> /dev/null

# run --user: the command runs as nobody, under the override.
run reset
"$T" run --policy strict-local --user nobody -- \
	sh -c 'id -u; id -g; /tests/thp-touch 4' > $out 2> $err
rc=$?
if [ "$rc" -eq 0 ] && [ "$(sed -n 1p $out)" = 65534 ] && [ "$(sed -n 2p $out)" = 65534 ]; then
	ok "run --user nobody: the command runs as uid and gid 65534"
else
	not_ok "run --user nobody: the command runs as uid and gid 65534 (rc=$rc)"
	cat $out $err | sed 's/^/# /'
fi
if [ "$(by_override strict-local)" -ge 2 ] && [ "$(policy_faults kernel)" -eq 0 ]; then
	ok "run --user nobody: its THP faults ran under the override"
else
	not_ok "run --user nobody: its THP faults ran under the override"
	sed 's/^/# /' $D/policies
fi

run reset
check "stats are zero after reset" test "$(stats_sum)" = 0
/tests/thp-touch 4 > /dev/null
expect "thpnumactl stat" 0 "Total" stat
expect "thpnumactl stat --json" 0 '"total"' stat --json
expect "thpnumactl policies" 0 "by_override" policies
as_nobody_policy=$(su -s /bin/sh nobody -c "$T policy" 2>&1)
check "non-root reads the policy under lockdown" test "$as_nobody_policy" = kernel

# ---- unload; an unsigned module no longer loads ------------------------------------
expect "unload under lockdown" 0 "unloaded" unload
expect "load of the unsigned module: lockdown named" 1 "kernel lockdown (integrity)" \
	load --module $KO
check "nothing loaded" test ! -e /sys/module/thpnuma
tap_done
