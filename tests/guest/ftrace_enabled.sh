#!/bin/sh
# kernel.ftrace_enabled=0 would NOP the hook and leave a loaded module that
# applies no policy. Both orders: with ftrace off, the load is refused and
# says why; with thpnuma loaded, turning ftrace off is refused. From 7.3
# the kernel itself refuses to turn ftrace off (the knob is deprecated:
# EOPNOTSUPP, "no longer disables ftrace"), so there the ftrace-off half
# checks that refusal instead.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
S=/proc/sys/kernel/ftrace_enabled
tap_plan 30

# 1. ftrace off first.
check "kernel.ftrace_enabled starts at 1" test "$(cat $S)" = 1
if _err=$(sh -c "echo 0 > $S" 2>&1); then
	ok "kernel.ftrace_enabled=0 accepted without thpnuma"
	off=yes
elif echo "$_err" | grep -q "not supported"; then
	ok "kernel.ftrace_enabled=0 refused by the kernel itself (deprecated knob)"
	off=no
else
	not_ok "kernel.ftrace_enabled=0 accepted without thpnuma ($_err)"
	off=yes
fi
dmesg -c >/dev/null
if [ $off = no ]; then
	check "ftrace stays on: kernel.ftrace_enabled still 1" test "$(cat $S)" = 1
	skip "ftrace off: counts" "the kernel keeps ftrace on"
	skip "ftrace off: the reason names kernel.ftrace_enabled" "the kernel keeps ftrace on"
elif thpnuma_load 2>/dev/null; then
	not_ok "ftrace off: the load is refused"
	faults_counted "ftrace off, loaded anyway"
	thpnuma_unload
else
	ok "ftrace off: the load is refused"
	skip "ftrace off: counts" "refused"
fi
if [ $off = yes ]; then
	_why=$(dmesg | grep 'thpnuma: cannot' | head -n 1)
	check "ftrace off: the reason names kernel.ftrace_enabled (${_why:-none})" \
		sh -c "dmesg | grep -q 'thpnuma: .*kernel\.ftrace_enabled'"
fi
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
if [ $off = yes ]; then
	check "unloaded: kernel.ftrace_enabled=0 accepted" sh -c "echo 0 > $S"
else
	check "unloaded: kernel.ftrace_enabled=0 still refused by the kernel" \
		sh -c "! echo 0 > $S 2>/dev/null"
fi
check "unloaded: kernel.ftrace_enabled=1 again" sh -c "echo 1 > $S"
unloaded_clean "at the end"
tap_done
