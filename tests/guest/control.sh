#!/bin/sh
# Control files, module parameters and load failures: every bad input is
# refused with EINVAL and leaves the state unchanged.
. /tests/lib.sh
D=$THPNUMA_DIR

# put FILE BYTES...: one write(2) of exactly these bytes; status of the write.
put() { _f=$1; shift; printf "$@" | /tests/write-once "$_f" 2>/dev/null; }
# put_at FILE OFFSET BYTES: the same write at a non-zero offset.
put_at() { printf "$3" | /tests/write-once "$1" "$2" 2>/dev/null; }
mode() { stat -c %a "$1"; }
state() { cat $D/policy $D/zone_reclaim $D/scope $D/budget_us; }

# Each rejected write must fail and leave every setting as it was.
rejects() {
	_name=$1; shift
	_before=$(state)
	if "$@"; then not_ok "$_name: accepted"; return; fi
	if [ "$(state)" = "$_before" ]; then ok "$_name"; else not_ok "$_name: state changed"; fi
}

tap_plan 78

for bad in "policy=bogus" "policy=Kernel" "zone_reclaim=8" "zone_reclaim=-1" "scope=never" \
	   "max_tasks=0" "max_tasks=65537" "budget_us=0" "budget_us=1000001"; do
	if thpnuma_load "$bad" 2>/dev/null; then
		not_ok "load with $bad refused"; thpnuma_unload
	else
		ok "load with $bad refused"
	fi
done
check "refused loads named the bad parameter" sh -c 'dmesg | grep -q "thpnuma: invalid zone_reclaim .8."'
check "refused loads leave no debugfs directory" test ! -e $D

check "load with policy=strict-local zone_reclaim=5 scope=madvise" \
	thpnuma_load policy=strict-local zone_reclaim=5 scope=madvise
check "policy file shows the choice in brackets" \
	test "$(cat $D/policy)" = "kernel [strict-local] local-then-remote budget"
check "zone_reclaim file shows the parameter" test "$(cat $D/zone_reclaim)" = 5
check "budget_us is 1000 by default" test "$(cat $D/budget_us)" = 1000
check "scope file shows the parameter" test "$(cat $D/scope)" = "all [madvise]"
check "module parameter shows the live policy" \
	test "$(cat /sys/module/thpnuma/parameters/policy)" = strict-local

for f in policy zone_reclaim scope budget_us tasks; do
	check "$f is 0600" test "$(mode $D/$f)" = 600
done
check "reset is 0200" test "$(mode $D/reset)" = 200
for f in stats policies version budget node0/thp_local node1/alloc_ns \
	 node0/budget_skip; do
	check "$f is 0400" test "$(mode $D/$f)" = 400
done

for p in kernel budget local-then-remote strict-local; do
	put $D/policy "$p\n"
	check "policy switches to $p" grep -q "\[$p\]" $D/policy
done
for z in 0 1 2 3 4 5 6 7; do
	put $D/zone_reclaim "$z"
done
check "zone_reclaim takes 0-7" test "$(cat $D/zone_reclaim)" = 7
put $D/budget_us "250\n"
check "budget_us takes 250" test "$(cat $D/budget_us)" = 250
check "the budget file shows the global budget" \
	test "$(awk 'NR == 2 { print $3 }' $D/budget)" = 250000
put $D/scope "all\n"
check "scope switches to all" test "$(cat $D/scope)" = "[all] madvise"

rejects "policy: unknown name" put $D/policy "bogus"
rejects "policy: empty write" put $D/policy ""
rejects "policy: bare newline" put $D/policy "\n"
rejects "policy: leading space" put $D/policy " kernel"
rejects "policy: trailing junk" put $D/policy "kernel x"
rejects "policy: case change" put $D/policy "Kernel"
rejects "policy: embedded NUL" put $D/policy "kernel\000"
rejects "policy: two newlines" put $D/policy "kernel\n\n"
rejects "policy: write at offset 1" put_at $D/policy 1 "kernel"
rejects "policy: 5000 bytes in one write" sh -c "head -c 5000 /dev/zero | tr '\\\\0' k | /tests/write-once $D/policy 2>/dev/null"
rejects "zone_reclaim: 8" put $D/zone_reclaim "8"
rejects "zone_reclaim: -1" put $D/zone_reclaim "-1"
rejects "zone_reclaim: leading zero" put $D/zone_reclaim "07"
rejects "zone_reclaim: hex" put $D/zone_reclaim "0x1"
rejects "zone_reclaim: trailing space" put $D/zone_reclaim "1 "
rejects "zone_reclaim: huge number" put $D/zone_reclaim "18446744073709551617"
rejects "budget_us: 0" put $D/budget_us "0"
rejects "budget_us: over 1000000" put $D/budget_us "1000001"
rejects "budget_us: leading zero" put $D/budget_us "0250"
rejects "budget_us: sign" put $D/budget_us "+250"
rejects "scope: unknown" put $D/scope "never"
rejects "scope: upper case" put $D/scope "ALL"
rejects "reset: 0" put $D/reset "0"
rejects "reset: empty" put $D/reset ""

# Counters: make some THP faults, check the per-node files, then reset.
put $D/policy "kernel"
echo always > /sys/kernel/mm/transparent_hugepage/enabled
/tests/thp-touch 32 >/dev/null 2>&1
total=$(stats_sum thp_local thp_remote thp_fallback)
check "stats counted the THP faults" test "$total" -gt 0
check "stats has a header and one row per online node" \
	test "$(awk 'NR > 1' $D/stats | wc -l)" = "$(ls -d /sys/devices/system/node/node* | wc -l)"
check "node0 files equal the stats row" \
	test "$(cat $D/node0/thp_local) $(cat $D/node0/thp_fallback)" = "$(stat_col 0 thp_local) $(stat_col 0 thp_fallback)"
put $D/reset "0"
check "a refused reset keeps the counters" \
	test "$(stats_sum thp_local thp_remote thp_fallback)" = "$total"
check "reset accepts 1" put $D/reset "1\n"
check "reset zeroes every counter" \
	test "$(stats_sum)" = 0
check "version has version, kernel, hooked symbol, probe_missed and unmatched_thp_calls" \
	test "$(cut -d' ' -f1 $D/version | tr '\n' ' ')" = "version kernel hooked_symbol probe_missed unmatched_thp_calls "
check "module unloads" thpnuma_unload

# A function already owned by another IPMODIFY user (a livepatch, say).
check "second IPMODIFY user takes the hooked function" insmod /lib/ipmodify_owner.ko
if thpnuma_load 2>/dev/null; then
	not_ok "load refused while another IPMODIFY user owns the function"
	thpnuma_unload
else
	ok "load refused while another IPMODIFY user owns the function"
fi
check "the refusal names the reason" sh -c 'dmesg | grep -q "thpnuma: cannot hook .*another ftrace user with IPMODIFY"'
check "the refused load leaves no debugfs directory" test ! -e $D
check "the refused load leaves no kprobes" sh -c '! grep -q thpnuma /sys/kernel/debug/kprobes/list'
rmmod ipmodify_owner
check "load works once the other user is gone" thpnuma_load
check "and unloads" thpnuma_unload
check "unload leaves no hooked functions" sh -c '! grep -q thpnuma /sys/kernel/tracing/enabled_functions 2>/dev/null'
tap_done
