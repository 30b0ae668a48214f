#!/bin/sh
# A kernel booted with debugfs=off (MANIFEST: boot:debugfs=off; on 7.3
# debugfs=no-mount means the same): the module loads and says where its
# settings are, the settings change through the module parameters, and
# per-process overrides are set, listed and cleared through
# /sys/kernel/thpnuma/tasks. thpnumactl sets the policy, and reads the
# statistics from sysfs.
. /tests/lib.sh
T=/tests/thpnumactl
P=/sys/module/thpnuma/parameters
S=/sys/kernel/thpnuma
out=/tmp/debugfs-off.out
err=/tmp/debugfs-off.err

tap_plan 15
case " $(cat /proc/cmdline) " in
*" debugfs=off "*) ok "booted with debugfs=off" ;;
*) not_ok "booted with debugfs=off"; tap_done ;;
esac
check "module loads" thpnuma_load policy=local-then-remote
check "the load says debugfs is disabled and where the settings are" \
	sh -c "dmesg | grep -q 'thpnuma: debugfs is disabled.*/sys/module/thpnuma/parameters'"
check "no debugfs directory" test ! -e $THPNUMA_DIR
check "policy through the module parameter" \
	sh -c "echo strict-local > $P/policy && grep -qx strict-local $P/policy"
sleep 300 &
pid=$!
# Until the forked shell has become sleep (exec), the name differs.
i=0
while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "override set through $S/tasks" sh -c "echo '$pid local-then-remote 1' > $S/tasks"
check "override listed by $S/tasks" \
	sh -c "grep -qx '$pid sleep local-then-remote 1 -' $S/tasks"
check "override cleared" sh -c "echo '$pid default' > $S/tasks && ! grep -q '^$pid ' $S/tasks"
expect "thpnumactl policy works without debugfs" 0 "" policy kernel
check "and the parameter shows it" grep -qx kernel $P/policy
echo local-then-remote > $P/policy
/tests/thp-touch 16 > /dev/null
placed=$(sysfs_table stats | awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ s += $c["thp_local"] + $c["thp_remote"] + $c["thp_fallback"] } END { print s + 0 }')
check "the THP faults are counted in sysfs ($placed)" test "$placed" -gt 0
expect "thpnumactl stat reads them" 0 "\"thp_local\": " stat --json
check "and shows the sysfs counts" sh -c \
	"$T stat --json | grep -q '\"thp_local\": [1-9]\|\"thp_remote\": [1-9]\|\"thp_fallback\": [1-9]'"
expect "thpnumactl hist reads the histograms from sysfs" 0 ", sum " hist
kill $pid
check "module unloads" thpnuma_unload
tap_done
