#!/bin/sh
# Each workload runs briefly with --json and reports sane numbers.
. /tests/lib.sh
tap_plan 14
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag

# jget JSON KEY [OBJECT]: the first number under KEY, after OBJECT's start.
jget() {
	j=$1
	[ -n "$3" ] && j=${j#*\""$3"\":\{}
	echo "$j" | grep -o "\"$2\":[-0-9.]*" | head -1 | cut -d: -f2
}
# is EXPR: an awk comparison of numbers, e.g. is "$x > 0".
is() { awk "BEGIN { exit !($1) }"; }

for w in thp-swapstorm thp-remote-latency thp-fault-bench; do
	if "$w" --help | grep -q "^usage: $w" && ! "$w" --bogus 2>/dev/null; then
		ok "$w: --help, and a bad option fails"
	else
		not_ok "$w: --help, and a bad option fails"
	fi
done

j=$(thp-fault-bench --region 8M --seconds 0.3 --json)
diag "$j"
check "thp-fault-bench: THP and base faults per second" \
	is "$(jget "$j" per_sec thp) > 0 && $(jget "$j" per_sec base) > 0"
check "thp-fault-bench: THP faults got huge pages" \
	is "$(jget "$j" thp_fault_alloc thp) == $(jget "$j" faults thp)"

j=$(thp-swapstorm --fill-level 0 --region 32M --json)
diag "$j"
check "thp-swapstorm free node: all 16 THPs, all local" \
	is "$(jget "$j" thp_pct) == 100 && $(jget "$j" local_pct) == 100 && $(jget "$j" thp_fault_alloc) == 16"
check "thp-swapstorm: latency percentiles ordered" \
	is "0 < $(jget "$j" fault_p50_us) && $(jget "$j" fault_p50_us) <= $(jget "$j" fault_p99_us) && $(jget "$j" fault_p99_us) <= $(jget "$j" fault_max_us)"

j=$(thp-swapstorm --fill-level 60% --region 16M --json)
diag "$j"
check "thp-swapstorm anon fill to 60%" \
	is "$(jget "$j" fill_mb) > 100 && $(jget "$j" node_free_kb_filled) < $(jget "$j" node_free_kb_before)"

# Its own directory: other tests leave files in /tmp.
mkdir -p /tmp/fill
j=$(thp-swapstorm --fill-level 60% --fill-kind pagecache --fill-dir /tmp/fill --region 16M --json)
diag "$j"
check "thp-swapstorm pagecache fill to 60%" is "$(jget "$j" fill_mb) > 100"
check "thp-swapstorm pagecache fill file is gone" [ -z "$(ls -A /tmp/fill)" ]

j=$(thp-remote-latency --region 16M --accesses 20000 --json)
diag "$j"
check "thp-remote-latency: node 0 fragmented until a local THP fails" \
	is "($(jget "$j" local_thp_refused) == 1 || $(jget "$j" free_2m_blocks_after) == 0) && $(jget "$j" locked_mb) > 100"
check "thp-remote-latency: bound baselines where bound" \
	is "$(jget "$j" local_pct local_thp) == 100 && $(jget "$j" local_pct remote_thp) == 0 && $(jget "$j" thp_pct remote_thp) == 100 && $(jget "$j" thp_pct local_base) == 0"
check "thp-remote-latency: ns per access for all four" \
	is "$(jget "$j" local_base ns_per_access) > 0 && $(jget "$j" fragmented ns_per_access) > 0"
check "compact_unevictable_allowed restored" \
	[ "$(cat /proc/sys/vm/compact_unevictable_allowed)" = 1 ]
tap_done
