#!/bin/sh
# A bypassed hook is visible. A livepatch (tests/modules/livepatch_thp.c)
# replaces the function whose calls the hook knows as PMD faults with a
# copy of its own, as a kpatch of that function would: the copy's THP
# allocations come from the livepatch's text. The load's self-check saw
# the old text and passed; at fault time the calls match no path, so the
# policy misses them. They are counted in version's unmatched_thp_calls,
# dmesg names the caller once, and thpnumactl status warns.
. /tests/lib.sh
T=/tests/thpnumactl
LP=/sys/kernel/livepatch/livepatch_thp
out=/tmp/livepatch.out
err=/tmp/livepatch.err
THP=/sys/kernel/mm/transparent_hugepage
echo madvise > $THP/enabled
# PMD faults only: every smaller size off, 2 MiB as the top-level knob.
for f in $THP/hugepages-*kB/enabled; do
	[ -e "$f" ] || continue
	case $f in *-2048kB/*) echo inherit > "$f" ;; *) echo never > "$f" ;; esac
done

unmatched() { awk '$1 == "unmatched_thp_calls" { print $2 }' $THPNUMA_DIR/version; }
# wait_transition: the livepatch's transition over every task, 60 s at most.
wait_transition() {
	_i=0
	while [ "$(cat $LP/transition 2>/dev/null)" = 1 ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ "$(cat $LP/transition 2>/dev/null)" = 0 ]
}

tap_plan 12
check "module loads (strict-local)" thpnuma_load policy=strict-local
check "no unmatched calls before the livepatch" test "$(unmatched)" = 0
thp-touch 8 >/dev/null
before=$(stats_sum thp_local thp_remote thp_fallback)
check "PMD faults counted before the livepatch ($before)" test "$before" -gt 0
check "livepatch loads" insmod /lib/livepatch_thp.ko
check "livepatch transition completes" wait_transition
lines=$(dmesg | wc -l)
thp-touch 8 >/dev/null
n=$(unmatched)
check "its THP allocations are counted as unmatched ($n)" test "${n:-0}" -ge 4
after=$(stats_sum thp_local thp_remote thp_fallback)
check "and not as placed faults ($before -> $after)" test "$after" = "$before"
check "dmesg names the caller" sh -c "dmesg | tail -n +$((lines + 1)) | grep -q 'livepatch_fault_alloc.*livepatch_thp'"
expect "thpnumactl status warns" 0 "unmatched" status
check "livepatch disabled" sh -c "echo 0 > $LP/enabled"
i=0
while [ -e $LP ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
check "livepatch unloads" rmmod livepatch_thp
check "module unloads" thpnuma_unload
tap_done
