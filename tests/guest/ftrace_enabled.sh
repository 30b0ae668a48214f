#!/bin/sh
# kernel.ftrace_enabled=0 would NOP the hook and leave a loaded module that
# applies no policy. Both orders: with ftrace off, the load is refused and
# says why; with thpnuma loaded, turning ftrace off is refused.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
S=/proc/sys/kernel/ftrace_enabled
tap_plan 26

# 1. ftrace off first.
check "kernel.ftrace_enabled starts at 1" test "$(cat $S)" = 1
check "kernel.ftrace_enabled=0 accepted without thpnuma" sh -c "echo 0 > $S"
dmesg -c >/dev/null
if thpnuma_load 2>/dev/null; then
	not_ok "ftrace off: the load is refused"
	faults_counted "ftrace off, loaded anyway"
	thpnuma_unload
else
	ok "ftrace off: the load is refused"
	skip "ftrace off: counts" "refused"
fi
_why=$(dmesg | grep 'thpnuma: cannot' | head -n 1)
check "ftrace off: the reason names kernel.ftrace_enabled (${_why:-none})" \
	sh -c "dmesg | grep -q 'thpnuma: .*kernel\.ftrace_enabled'"
unloaded_clean "ftrace off, refused"
check "kernel.ftrace_enabled=1 again" sh -c "echo 1 > $S"

# 2. thpnuma first.
check "ftrace on: loads" thpnuma_load
faults_counted "ftrace on"
check "loaded: kernel.ftrace_enabled=0 refused" sh -c "! echo 0 > $S 2>/dev/null"
check "loaded: kernel.ftrace_enabled still 1" test "$(cat $S)" = 1
echo 1 > $S 2>/dev/null
faults_counted "loaded, after the refused write"
check "unloads" thpnuma_unload
check "unloaded: kernel.ftrace_enabled=0 accepted" sh -c "echo 0 > $S"
check "unloaded: kernel.ftrace_enabled=1 again" sh -c "echo 1 > $S"
unloaded_clean "at the end"
tap_done
