#!/bin/sh
# Coexistence with other users of the hooked function: a tracefs kprobe,
# the function tracer filtered to it, a second IPMODIFY ftrace user and a
# return probe, each loaded before and after thpnuma. thpnuma either works with them
# present (THP faults counted) or refuses with a reason; it never crashes.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
tap_plan 134

kprobe_add() { echo "p:thpnuma_test/probe $SYM" >> $T/kprobe_events && echo 1 > $T/events/thpnuma_test/probe/enable; }
kprobe_del() { echo 0 > $T/events/thpnuma_test/probe/enable; echo "-:thpnuma_test/probe" >> $T/kprobe_events; }
# kprobe_profile names the event without its group.
kprobe_hits() { awk '$1 == "probe" { print $2 }' $T/kprobe_profile; }
kprobe_fires() {
	_h=$(kprobe_hits)
	/tests/thp-touch 8 >/dev/null 2>&1
	check "$1: kprobe still fires ($_h -> $(kprobe_hits))" test "$(kprobe_hits)" -gt "$_h"
}

ftrace_on() { echo $SYM > $T/set_ftrace_filter && echo function > $T/current_tracer && echo > $T/trace; }
ftrace_off() { echo nop > $T/current_tracer; echo > $T/set_ftrace_filter; echo > $T/trace; }
ftrace_sees() {
	echo > $T/trace
	/tests/thp-touch 8 >/dev/null 2>&1
	check "$1: function tracer still records $SYM" grep -q " $SYM" $T/trace
}

# 1. kprobe first, then thpnuma; thpnuma unloads first.
check "kprobe on $SYM via kprobe_events" kprobe_add
if load_or_refused "kprobe first"; then
	check "kprobe first: $SYM listed once for both users" test "$(hooked_line $SYM | wc -l)" = 1
	faults_counted "kprobe first"
	kprobe_fires "kprobe first"
	check "kprobe first: thpnuma unloads" thpnuma_unload
	unloaded_clean "kprobe first, after rmmod"
	kprobe_fires "kprobe first, after rmmod"
else
	skip "kprobe first: listed" "refused"; skip "kprobe first: counts" "refused"
fi
kprobe_del
check "kprobe removed" sh -c "! grep -q thpnuma_test $T/kprobe_events"

# 2. thpnuma first, then kprobe; kprobe removed first.
if load_or_refused "kprobe second"; then
	check "kprobe second: kprobe added over thpnuma" kprobe_add
	faults_counted "kprobe second"
	kprobe_fires "kprobe second"
	kprobe_del
	faults_counted "kprobe second, kprobe removed"
	check "kprobe second: thpnuma unloads" thpnuma_unload
	unloaded_clean "kprobe second, after rmmod"
fi

# 3. function tracer first, then thpnuma.
check "function tracer filtered to $SYM" ftrace_on
if load_or_refused "tracer first"; then
	faults_counted "tracer first"
	ftrace_sees "tracer first"
	check "tracer first: thpnuma unloads" thpnuma_unload
	unloaded_clean "tracer first, after rmmod"
	ftrace_sees "tracer first, after rmmod"
fi
ftrace_off

# 4. thpnuma first, then the function tracer.
if load_or_refused "tracer second"; then
	check "tracer second: function tracer on" ftrace_on
	faults_counted "tracer second"
	ftrace_sees "tracer second"
	ftrace_off
	faults_counted "tracer second, tracer off"
	check "tracer second: thpnuma unloads" thpnuma_unload
	unloaded_clean "tracer second, after rmmod"
fi

# 5. All three tracing users at once, then thpnuma.
kprobe_add; ftrace_on
if load_or_refused "kprobe and tracer"; then
	faults_counted "kprobe and tracer"
	kprobe_fires "kprobe and tracer"
	# thpnuma's own event beside them, and unloaded while enabled.
	check "kprobe and tracer: thpnuma:thp_fault enabled" \
		sh -c "echo 1 > $T/events/thpnuma/thp_fault/enable"
	echo > $T/trace
	faults_counted "kprobe, tracer and event"
	check "kprobe, tracer and event: thp_fault events recorded" grep -q " thp_fault: pid=" $T/trace
	check "kprobe and tracer: thpnuma unloads" thpnuma_unload
	check "kprobe and tracer: no thpnuma event directory left" test ! -e $T/events/thpnuma
fi
kprobe_del; ftrace_off
unloaded_clean "kprobe and tracer gone"

# 6. thpnuma first, then a second IPMODIFY user: the second is refused.
if load_or_refused "ipmodify second" policy=strict-local; then
	if insmod /lib/ipmodify_owner.ko 2>/dev/null; then
		not_ok "ipmodify second: the second IPMODIFY user is refused"
		rmmod ipmodify_owner
	else
		ok "ipmodify second: the second IPMODIFY user is refused"
	fi
	faults_counted "ipmodify second"
	check "ipmodify second: policy still answers" grep -q "\[strict-local\]" $D/policy
	check "ipmodify second: thpnuma unloads" thpnuma_unload
	unloaded_clean "ipmodify second, after rmmod"
fi

# 7. A second IPMODIFY user first: thpnuma refuses with the reason.
check "ipmodify first: owner module loads" insmod /lib/ipmodify_owner.ko
if load_or_refused "ipmodify first"; then
	not_ok "ipmodify first: thpnuma must refuse"
	thpnuma_unload
else
	check "ipmodify first: the reason names IPMODIFY" sh -c 'dmesg | grep -q "thpnuma: cannot hook .*IPMODIFY"'
	check "ipmodify first: the reason names $SYM" sh -c "dmesg | grep -q 'thpnuma: cannot hook $SYM: '"
fi
unloaded_clean "ipmodify first, refused" owner-present
check "ipmodify first: owner unloads" rmmod ipmodify_owner

# 8. The IPMODIFY user owns try_to_free_pages: the reason names that one.
check "ipmodify reclaim: owner of try_to_free_pages loads" insmod /lib/ipmodify_owner.ko sym=try_to_free_pages
if load_or_refused "ipmodify reclaim"; then
	not_ok "ipmodify reclaim: thpnuma must refuse"
	thpnuma_unload
else
	_why=$(dmesg | grep 'thpnuma: cannot hook' | head -n 1)
	check "ipmodify reclaim: the reason names try_to_free_pages (${_why:-none})" \
		sh -c "dmesg | grep -q 'thpnuma: cannot hook try_to_free_pages: .*IPMODIFY'"
fi
unloaded_clean "ipmodify reclaim, refused" owner-present
check "ipmodify reclaim: owner unloads" rmmod ipmodify_owner
# 9. The IPMODIFY user owns shrink_node, a cut point of the budget (as a
# livepatch of mm/vmscan.c would): refused, unless budget_cut=N leaves
# the cut points alone.
check "ipmodify cut: owner of shrink_node loads" insmod /lib/ipmodify_owner.ko sym=shrink_node
if load_or_refused "ipmodify cut"; then
	not_ok "ipmodify cut: thpnuma must refuse"
	thpnuma_unload
else
	check "ipmodify cut: the reason names shrink_node" \
		sh -c "dmesg | grep -q 'thpnuma: cannot hook shrink_node: .*IPMODIFY'"
fi
unloaded_clean "ipmodify cut, refused" owner-present
check "ipmodify cut, budget_cut=N: thpnuma loads beside the owner" \
	thpnuma_load policy=budget budget_cut=N
check "ipmodify cut, budget_cut=N: the parameter reads N" \
	grep -qx N /sys/module/thpnuma/parameters/budget_cut
_l=$(hooked_line $SWAP_OUT)
check "ipmodify cut, budget_cut=N: $SWAP_OUT not traced (${_l:-not listed})" \
	test -z "$_l"
faults_counted "ipmodify cut, budget_cut=N"
check "ipmodify cut, budget_cut=N: thpnuma unloads" thpnuma_unload
unloaded_clean "ipmodify cut, budget_cut=N, after rmmod" owner-present
check "ipmodify cut: owner unloads" rmmod ipmodify_owner
# 10. A return probe on $SYM, before and after thpnuma: its trampoline
# takes the place of the caller's return address, from which the hook
# tells THP faults from other calls.
kretprobe_add() { echo "r:thpnuma_test/retprobe $SYM" >> $T/kprobe_events && echo 1 > $T/events/thpnuma_test/retprobe/enable; }
kretprobe_del() { echo 0 > $T/events/thpnuma_test/retprobe/enable; echo "-:thpnuma_test/retprobe" >> $T/kprobe_events; }
unmatched() { awk '$1 == "unmatched_thp_calls" { print $2 }' $D/version; }
# The unwinder finds the real caller, except 5.10's (thpnuma(7)): there
# the calls count as unmatched, and the policy misses them.
kretprobe_faults() {
	case $(uname -r) in
	5.10.*)
		/tests/thp-touch 16 >/dev/null 2>&1
		check "$1: 5.10: THP calls counted as unmatched ($(unmatched))" test "$(unmatched)" -gt 0
		skip "$1: THP faults counted" "5.10's unwinder does not see past a kretprobe"
		;;
	*)
		faults_counted "$1"
		check "$1: no call unmatched ($(unmatched))" test "$(unmatched)" = 0
		;;
	esac
}
check "kretprobe on $SYM via kprobe_events" kretprobe_add
if load_or_refused "kretprobe first"; then
	kretprobe_faults "kretprobe first"
	check "kretprobe first: thpnuma unloads" thpnuma_unload
fi
kretprobe_del
if load_or_refused "kretprobe second"; then
	check "kretprobe second: kretprobe added over thpnuma" kretprobe_add
	kretprobe_faults "kretprobe second"
	kretprobe_del
	check "kretprobe second: thpnuma unloads" thpnuma_unload
fi
check "thpnuma loads once everyone is gone" thpnuma_load
faults_counted "alone"
check "thpnuma unloads at the end" thpnuma_unload
tap_done
