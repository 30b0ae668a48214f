#!/bin/sh
# make trace-demo: thpnuma's trace event and latency histograms, read with
# tracefs, perf and bpftrace, on a node 0 filled to its low watermark so
# that local-then-remote sends part of the faults to node 1.
. /tests/lib.sh
T=/sys/kernel/tracing
E=$T/events/thpnuma/thp_fault
# bpftrace -c wants one binary, so no second /tests in PATH.
case ":$PATH:" in *:/tests:*) ;; *) PATH=/tests:$PATH ;; esac
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
STORM="/tests/thp-swapstorm --node 0 --fill-level wmark --region 128M"

# show CMD...: print the command as typed, then run it.
show() { echo; echo "# $*"; sh -c "$*"; }

echo "thpnuma trace demo on $(uname -r): policy local-then-remote zone_reclaim=0"
thpnuma_load policy=local-then-remote zone_reclaim=0 || { not_ok "module loads"; exit 1; }

echo; echo "== tracefs"
show "echo 1 > $E/enable"
$STORM > /dev/null
show "echo 0 > $E/enable"
show "grep -m 2 result=local $T/trace; grep -m 2 result=remote $T/trace"
show "echo 'hist:keys=result:vals=hitcount,alloc_ns,compact_stall' > $E/trigger"
$STORM > /dev/null
show "cat $E/hist | grep -v '^#'"
echo '!hist:keys=result:vals=hitcount,alloc_ns,compact_stall' > $E/trigger
check "tracefs: events and the hist trigger" grep -q "result=" $T/trace

echo; echo "== perf"
if command -v perf > /dev/null; then
	show "perf stat -e thpnuma:thp_fault -- thp-touch 64 2>&1 | grep -E 'thp_fault|elapsed'"
	show "perf record -q -o /tmp/perf.data -e thpnuma:thp_fault --filter 'result == 2' -- $STORM > /dev/null 2>&1; perf script -i /tmp/perf.data -F comm,pid,cpu,event,trace 2>/dev/null | head -2"
	check "perf record saw only remote faults" sh -c "perf script -i /tmp/perf.data 2>/dev/null | grep -q result=remote && ! perf script -i /tmp/perf.data 2>/dev/null | grep -q result=local"
else
	skip "perf" "not in this initramfs"
fi

echo; echo "== bpftrace"
if command -v bpftrace > /dev/null; then
	show "bpftrace -q -c '$STORM' -e 'tracepoint:thpnuma:thp_fault /args->result == 2/ { @remote_us = hist(args->alloc_ns / 1000); } tracepoint:thpnuma:thp_fault /args->result == 1/ { @local_us = hist(args->alloc_ns / 1000); }' 2>&1 | grep -v '^{\"'"
	check "bpftrace attached" sh -c "bpftrace -q -c '/tests/thp-touch 8' -e 'tracepoint:thpnuma:thp_fault { @n = count(); }' 2>&1 | grep -q '@n: 4'"
else
	skip "bpftrace" "not in this initramfs"
fi

echo; echo "== thpnumactl hist (the module's own histograms, since load)"
show "thpnumactl hist --node 0"
thpnuma_unload
ok "trace demo ran"
