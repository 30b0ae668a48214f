#!/bin/sh
# make bench, in the guest: every module state x THP defrag x scenario, then
# the hook-overhead A/B, then (BENCH_RECLAIM_ROUNDS) the reclaim A/B. Each
# result is one line "BENCH key=value... {json}" that bench/run.py
# collects; each step is also a TAP line for the harness.
. /tests/lib.sh
[ -f /run.conf ] && . /run.conf
T=/sys/kernel/mm/transparent_hugepage
STATES=${BENCH_STATES:-"absent kernel strict-local local-then-remote local-then-remote+zr7 budget"}
DEFRAGS=${BENCH_DEFRAGS:-"madvise always"}
SCENARIOS=${BENCH_SCENARIOS:-"storm fragmented free shmem cache"}
STORM_REGION=${BENCH_STORM_REGION:-400M}
SHMEM_REGION=${BENCH_SHMEM_REGION:-200M}
CACHE_REGION=${BENCH_CACHE_REGION:-128M}
# For a MADV_HUGEPAGE region both defrag values give the same gfp mask:
# the shmem storm and the clean-cache scenario run under one to keep make
# bench short.
SHMEM_DEFRAGS=${BENCH_SHMEM_DEFRAGS:-madvise}
CACHE_DEFRAGS=${BENCH_CACHE_DEFRAGS:-madvise}
# The budget state's budget_us: a number, or auto (calibrate_budget).
BUDGET_US=${BENCH_BUDGET_US:-auto}
FRAG_REGION=${BENCH_FRAG_REGION:-128M}
FREE_REGION=${BENCH_FREE_REGION:-128M}
ACCESSES=${BENCH_ACCESSES:-200000}
ROUNDS=${BENCH_ROUNDS:-15}
AB_SECONDS=${BENCH_AB_SECONDS:-2}
# Kinds of the overhead A/B (thp-fault-bench --kinds), and a fixed number
# of passes per run instead of AB_SECONDS (same work on both sides: for an
# instruction clock: bench/run.py --topology 1c2n-icount).
AB_KINDS=${BENCH_AB_KINDS:-"thp base"}
AB_PASSES=${BENCH_AB_PASSES:-}
# The two sides of the overhead A/B: module absent against loaded in
# kernel policy; or "kernel cgroups", loaded without and with per-cgroup
# settings (cgroup_settings), the workload in the same cgroup on both sides.
AB_STATES=${BENCH_AB_STATES:-"absent kernel"}
AB_CGROUPS=${BENCH_AB_CGROUPS:-10000}
RECLAIM_ROUNDS=${BENCH_RECLAIM_ROUNDS:-0}
RECLAIM_ARGS=${BENCH_RECLAIM_ARGS:-"--region 1280M --passes 1 --workers 1 --memcg-workers 1 --cpu 0"}

# Module parameters of each state; "absent" means not loaded.
state_params() {
	case $1 in
	kernel | cgroups) echo "policy=kernel" ;;
	strict-local) echo "policy=strict-local" ;;
	local-then-remote) echo "policy=local-then-remote zone_reclaim=0" ;;
	local-then-remote+zr7) echo "policy=local-then-remote zone_reclaim=7" ;;
	budget) echo "policy=budget zone_reclaim=7 budget_us=$BUDGET_US_VALUE" ;;
	esac
}

# budget_us=auto: half the median cost (direct compaction and reclaim,
# the trace event's effort_ns) of the storm's effortful local attempts
# under local-then-remote zone_reclaim=7, measured in this boot, on this
# clock: the rule tests/guest/budget.c calibrates with. The storm's
# attempts then cross the budget within a few faults, and reclaim that
# costs less than half a storm's stays within it. Once per boot; its
# numbers go out as a "scenario=budget-calibration" line.
BUDGET_US_VALUE=
TR=/sys/kernel/tracing
calibrate_budget() {
	case $BUDGET_US in
	auto) ;;
	*) BUDGET_US_VALUE=$BUDGET_US; return 0 ;;
	esac
	[ -n "$BUDGET_US_VALUE" ] && return 0
	[ -e /sys/module/thpnuma ] && rmmod thpnuma
	thpnuma_load policy=local-then-remote zone_reclaim=7 || return 1
	echo 0 > $TR/tracing_on
	echo > $TR/trace
	echo 1 > $TR/events/thpnuma/thp_fault/enable
	echo 1 > $TR/tracing_on
	echo madvise > $T/defrag
	settle
	t0=$(date +%s)
	json=$(thp-swapstorm --node 0 --fill-level wmark --fill-kind anon \
		--region "$STORM_REGION" --json)
	secs=$(($(date +%s) - t0))
	echo 0 > $TR/tracing_on
	echo 0 > $TR/events/thpnuma/thp_fault/enable
	# "N median" of the effortful attempts: PMD THP faults that stalled
	# in compaction or reclaim.
	cal=$(awk '/thp_fault:/ {
		split("", f)
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		if (f["kind"] == "anon" && f["order"] == 9 &&
		    (f["compact_stall"] > 0 || f["reclaim_stall"] > 0))
			print f["effort_ns"]
	}' $TR/trace | sort -n | awk '{ v[NR] = $1 } END { print NR, NR ? v[int(NR / 2) + 1] : 0 }')
	echo > $TR/trace
	rmmod thpnuma
	n=${cal% *} median=${cal#* }
	# The fault's pswpout: the storm's swap-outs.
	swapouts=$(printf '%s' "$json" | sed -n 's/.*"pswpout": *\([0-9]*\).*/\1/p')
	# Under one THP's worth of swap-outs (512) the storm did not storm
	# (kswapd kept up, or the fill fell short): half its effort would put
	# a budget below what cheap reclaim costs on this clock.
	uncalibrated=
	if [ "${n:-0}" -eq 0 ]; then
		uncalibrated="no effortful local attempt in the storm"
	elif [ "${swapouts:-0}" -lt 512 ]; then
		uncalibrated="the storm swapped out ${swapouts:-0} pages, under one THP's worth"
	fi
	if [ -n "$uncalibrated" ]; then
		diag "budget calibration: $uncalibrated; budget_us=1000 (the default)"
		BUDGET_US_VALUE=1000 calibrated=false
	else
		BUDGET_US_VALUE=$((median / 2000)) calibrated=true
		[ "$BUDGET_US_VALUE" -ge 1 ] || BUDGET_US_VALUE=1
	fi
	diag "budget calibration: $n effortful local attempts, median effort $median ns, ${swapouts:-0} swap-outs: budget_us=$BUDGET_US_VALUE"
	case $json in
	*\}) echo "BENCH state=local-then-remote+zr7 defrag=madvise scenario=budget-calibration secs=$secs ${json%\}},\"budget_calibration\":{\"effortful\":$n,\"median_effort_ns\":$median,\"budget_us\":$BUDGET_US_VALUE,\"calibrated\":$calibrated}}" ;;
	esac
}

enter_state() {
	[ -e /sys/module/thpnuma ] && rmmod thpnuma
	[ "$1" = absent ] && return 0
	[ "$1" != budget ] || calibrate_budget || return 1
	# shellcheck disable=SC2046
	thpnuma_load $(state_params "$1") || return 1
	[ "$1" != cgroups ] || cgroup_settings
}

# The cgroups state: AB_CGROUPS settings, one per cgroup, as on a host of
# many services or pods. One is kernel policy on bench.slice, the workload
# runs two levels below it (bench_cgroup), so that each THP fault looks up
# three cgroups and decides as without settings; the others are on
# many.slice's cgroups.
CG=/sys/fs/cgroup
bench_cgroup() {
	[ -e $CG/cgroup.controllers ] || mount -t cgroup2 none $CG || return 1
	mkdir -p $CG/bench.slice/app.service/worker $CG/many.slice &&
		echo $$ > $CG/bench.slice/app.service/worker/cgroup.procs
}
cgroup_settings() {
	seq 1 $((AB_CGROUPS - 1)) | sed "s|^|$CG/many.slice/c|" | xargs mkdir -p ||
		return 1
	i=1
	while [ $i -lt "$AB_CGROUPS" ]; do
		echo "/many.slice/c$i strict-local" > /sys/kernel/thpnuma/cgroups ||
			return 1
		i=$((i + 1))
	done
	echo "/bench.slice kernel" > /sys/kernel/thpnuma/cgroups &&
		[ "$(wc -l < /sys/kernel/thpnuma/cgroups)" -eq "$AB_CGROUPS" ]
}

# The same starting point for every cell: no page cache, memory compacted.
settle() {
	sync
	echo 3 > /proc/sys/vm/drop_caches
	echo 1 > /proc/sys/vm/compact_memory
}

scenario_cmd() {
	case $1 in
	storm) echo "thp-swapstorm --node 0 --fill-level wmark --fill-kind anon --region $STORM_REGION" ;;
	storm-pagecache) echo "thp-swapstorm --node 0 --fill-level wmark --fill-kind pagecache --fill-dir /tmp --region $STORM_REGION" ;;
	fragmented) echo "thp-remote-latency --node 0 --no-baselines --region $FRAG_REGION --accesses $ACCESSES" ;;
	free) echo "thp-swapstorm --node 0 --fill-level 0 --region $FREE_REGION" ;;
	shmem) echo "thp-swapstorm --node 0 --fill-level wmark --fill-kind anon --memory shmem --region $SHMEM_REGION" ;;
	cache) echo "cache_storm --region $CACHE_REGION" ;;
	baselines) echo "thp-remote-latency --node 0 --region $FRAG_REGION --accesses $ACCESSES" ;;
	esac
}

# Cheap reclaim: node 0 full of clean page cache, then the faults. The
# cache is a block device's: a zram device of its own that was never
# written (reading it allocates nothing in zram), read from node 0's CPU
# until node 0's free memory is 4 MiB over its low watermark, as
# tests/guest/budget.c fills it. Reclaim frees it without I/O. (/tmp is
# tmpfs: storm-pagecache's fill is shmem, swap-backed, not clean.) While
# the region faults, kswapd0 runs at nice 19 (the test: SCHED_IDLE, which
# busybox cannot set): on CPU 0 with the workload it would otherwise keep
# up with every fault, and no local attempt would need reclaim; on a real
# machine many faulting CPUs outrun their node's one kswapd.
CACHE_DEV=
cache_device() {
	[ -n "$CACHE_DEV" ] && return 0
	id=$(cat /sys/class/zram-control/hot_add) &&
		echo 4G > "/sys/block/zram$id/disksize" && CACHE_DEV=/dev/zram$id
}
node0_kb() {
	awk -v k="$1:" '$3 == k { print $4 }' /sys/devices/system/node/node0/meminfo
}
node0_low_kb() {
	awk '/^Node/ { n = $2 + 0 } n == 0 && $1 == "low" { s += $2 } END { print s * 4 }' /proc/zoneinfo
}
kswapd0_pid() {
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = kswapd0 ] && echo "${p#/proc/}"
	done
}
# cache_storm ARGS...: fill, then thp-swapstorm --fill-level 0 ARGS. The
# fill's device stays open until the faults are done (its last close
# drops its page cache).
cache_storm() {
	cache_device || { echo "cache_storm: no zram device for the cache" >&2; return 1; }
	exec 3< "$CACHE_DEV" || return 1
	target=$(($(node0_low_kb) + 4096))
	cpus=$(cat /sys/devices/system/node/node0/cpulist)
	off=0
	while [ "$(node0_kb MemFree)" -gt "$target" ]; do
		mb=$((($(node0_kb MemFree) - target) / 1024))
		[ "$mb" -ge 1 ] || mb=1
		taskset -c "$cpus" dd if="$CACHE_DEV" of=/dev/null bs=1M count=$mb skip=$off 2>/dev/null ||
			return 1
		off=$((off + mb))
		[ "$off" -lt 4096 ] || { echo "cache_storm: node 0 does not fill" >&2; return 1; }
	done
	file_kb=$(node0_kb FilePages) free_kb=$(node0_kb MemFree)
	echo "# cache fill: read $off MiB; node0 MemFree $free_kb kB, FilePages $file_kb kB, target $target kB" >&2
	k=$(kswapd0_pid)
	renice 19 -p "$k" > /dev/null
	json=$(thp-swapstorm --node 0 --fill-level 0 "$@")
	rc=$?
	renice 0 -p "$k" > /dev/null
	exec 3<&-
	case $json in
	*\}) json="${json%\}},\"clean_cache_fill\":{\"read_mb\":$off,\"node0_filepages_kb\":$file_kb,\"node0_free_kb\":$free_kb,\"target_kb\":$target,\"kswapd0_nice\":19}}" ;;
	esac
	echo "$json"
	return $rc
}

# The module's own counters over a cell, summed over nodes, as a JSON
# object; nothing if a column is missing.
module_json() {
	sep='' out=''
	for c in thp_local thp_remote thp_fallback compact_stall reclaim_stall reclaim_pages alloc_ns budget_skip; do
		v=$(stats_sum $c) || return 0
		[ -n "$v" ] || return 0
		out="$out$sep\"$c\":$v"
		sep=,
	done
	echo "{$out}"
}

# The module's latency histogram of hooked allocations, as thpnumactl
# hist --json writes it, on one line (JSON strings hold no newline).
# Prints nothing if thpnumactl cannot read it.
hist_json() {
	thpnumactl hist --json | tr -d '\n'
}

# The module's orders file (per node, THP kind and order: local, remote,
# fallback, passthrough) as a JSON array on one line; nothing if its header
# is not the one expected. Rows of zeros are not in the file.
orders_json() {
	awk 'NR == 1 {
		if ($0 != "node kind order size_kb local remote fallback passthrough") {
			bad = 1
			exit 1
		}
		printf "["
		next
	}
	NF == 8 {
		printf "%s{\"node\":%d,\"kind\":\"%s\",\"order\":%d,", sep, $1, $2, $3
		printf "\"local\":%d,\"remote\":%d,\"fallback\":%d,", $5, $6, $7
		printf "\"passthrough\":%d}", $8
		sep = ","
	}
	END { if (NR && !bad) printf "]" }' "$THPNUMA_DIR/orders" 2>/dev/null
}

# run_cell [--hist] TAG... -- CMD...: one workload run, its JSON line
# tagged. --hist (module loaded): the counters are reset right before the
# run and the hooked allocations' histogram and orders table read right
# after it, outside the workload's own timing, into the JSON as "hist"
# and "orders".
run_cell() {
	want_hist=
	[ "$1" = --hist ] && { want_hist=1; shift; }
	tags=
	while [ "$1" != -- ]; do tags="$tags $1"; shift; done
	shift
	settle
	if [ -n "$want_hist" ] && ! echo 1 > "$THPNUMA_DIR/reset"; then
		diag "cell$tags: cannot reset the counters, no histogram"
		want_hist=
	fi
	t0=$(date +%s)
	if json=$("$@" --json); then
		secs=$(($(date +%s) - t0))
		if [ -n "$want_hist" ]; then
			case $json in
			*\}) hist=$(hist_json) ;;
			*) hist= ;;
			esac
			if [ -n "$hist" ]; then
				json="${json%\}},\"hist\":$hist}"
			else
				diag "cell$tags: no histogram in $THPNUMA_DIR/hist"
			fi
			orders=$(orders_json)
			case $orders in
			\[*\]) json="${json%\}},\"orders\":$orders}" ;;
			*) diag "cell$tags: no orders table in $THPNUMA_DIR/orders" ;;
			esac
			module=$(module_json)
			case $module in
			\{*\}) json="${json%\}},\"module\":$module}" ;;
			*) diag "cell$tags: no module counters in $THPNUMA_DIR/stats" ;;
			esac
		fi
		echo "BENCH$tags secs=$secs $json"
		ok "cell$tags"
	else
		not_ok "cell$tags (exit $?)"
	fi
}

# The shmem scenario's huge pages need shmem_enabled advise (or always);
# every other cell runs under the boot's own setting.
SHMEM_ENABLED=$(sed 's/.*\[\(.*\)\].*/\1/' $T/shmem_enabled)

echo madvise > $T/enabled
# Nothing collapses or compacts behind the workloads' backs.
echo 3600000 > $T/khugepaged/scan_sleep_millisecs
echo 0 > /proc/sys/vm/compaction_proactiveness
grep -q zram /proc/swaps || diag "no zram swap: swap-outs cannot happen"

[ "${BENCH_MATRIX:-1}" = 0 ] && STATES=
# One cache device for every cell (cells run in subshells).
case " $SCENARIOS " in
*" cache "*) [ -z "$STATES" ] || cache_device || diag "no zram device for the clean cache" ;;
esac
for state in $STATES; do
	if ! enter_state "$state"; then
		not_ok "module state $state"
		continue
	fi
	for defrag in $DEFRAGS; do
		echo "$defrag" > $T/defrag
		for sc in $SCENARIOS; do
			if [ "$sc" = shmem ]; then
				case " $SHMEM_DEFRAGS " in
				*" $defrag "*) echo advise > $T/shmem_enabled ;;
				*) continue ;;
				esac
			fi
			if [ "$sc" = cache ]; then
				case " $CACHE_DEFRAGS " in
				*" $defrag "*) ;;
				*) continue ;;
				esac
			fi
			# The budget policy's per-node estimate and back-off
			# outlive a cell: each cell starts from a fresh load.
			if [ "$state" = budget ] && ! enter_state "$state"; then
				not_ok "module state $state for $sc"
				continue
			fi
			# shellcheck disable=SC2046
			run_cell $([ "$state" != absent ] && echo --hist) \
				"state=$state" "defrag=$defrag" "scenario=$sc" \
				$([ "$state" = budget ] && echo "budget_us=$BUDGET_US_VALUE") -- \
				$(scenario_cmd "$sc")
			echo "$SHMEM_ENABLED" > $T/shmem_enabled
		done
	done
done
enter_state absent
echo madvise > $T/defrag

# Latency baselines once per boot, module absent.
if [ -n "$BENCH_BASELINES" ]; then
	# shellcheck disable=SC2046
	run_cell state=absent defrag=madvise scenario=baselines -- \
		$(scenario_cmd baselines)
fi

# The THP knobs a kind of the overhead A/B faults with: only its own size
# on. Fails where the kernel has no such size (mTHP before 6.8).
kind_knobs() {
	echo madvise > $T/enabled
	echo never > $T/shmem_enabled
	for d in "$T"/hugepages-*kB; do
		[ -d "$d" ] && echo never > "$d/enabled"
	done
	case $1 in
	thp) [ ! -d $T/hugepages-2048kB ] || echo inherit > $T/hugepages-2048kB/enabled ;;
	mthp*) [ -d "$T/hugepages-${1#mthp}kB" ] &&
		echo madvise > "$T/hugepages-${1#mthp}kB/enabled" ;;
	shmem2m) echo advise > $T/shmem_enabled ;;
	esac
}

# Hook overhead: the two states of AB_STATES interleaved, the order
# alternating so drift does not favour one side.
if [ -n "$AB_PASSES" ]; then ab_length="--passes $AB_PASSES"; else ab_length="--seconds $AB_SECONDS"; fi
# One run of each kind first, not kept: the first faults after boot cost
# more (on 7.3 the first base-page run took twice as long, and half of the
# first THP run's passes).
case " $AB_STATES " in
*" cgroups "*) bench_cgroup || not_ok "the workload's cgroup" ;;
esac
enter_state absent
for kind in $AB_KINDS; do
	# shellcheck disable=SC2086 # ab_length is two words
	kind_knobs "$kind" && settle &&
		thp-fault-bench --node 0 --region 8M --kinds "$kind" $ab_length > /dev/null
done
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		order=$AB_STATES
	else
		order="${AB_STATES#* } ${AB_STATES% *}"
	fi
	for state in $order; do
		if ! enter_state "$state"; then
			not_ok "module state $state for round $r"
			continue
		fi
		for kind in $AB_KINDS; do
			if ! kind_knobs "$kind"; then
				[ "$r" -gt 1 ] || skip "overhead $kind" "no such THP size on this kernel"
				continue
			fi
			# shellcheck disable=SC2086 # ab_length is two words
			run_cell overhead "state=$state" "round=$r" "kind=$kind" -- \
				thp-fault-bench --node 0 --region 8M --kinds "$kind" $ab_length
		done
	done
	r=$((r + 1))
done
kind_knobs thp
enter_state absent

# Reclaim with no THP fault (reclaim-churn: kswapd, direct and memcg
# reclaim), module absent vs loaded, interleaved the same way. THP is on
# for everyone; the workload disables it for itself. The @@BENCH-MARK lines
# let bench/run.py read the QEMU process's CPU time around each run.
reclaim_cell() {
	settle
	echo "@@BENCH-MARK begin reclaim state=$1 round=$2"
	# shellcheck disable=SC2086
	if json=$(reclaim-churn $RECLAIM_ARGS --json) &&
	   # A run with OOM-killed workers did less work: not comparable.
	   echo "$json" | grep -q '"workers_oom_killed":0[,}]'; then
		echo "@@BENCH-MARK end reclaim state=$1 round=$2"
		echo "BENCH reclaim state=$1 round=$2 $json"
		ok "reclaim state=$1 round=$2"
	else
		not_ok "reclaim state=$1 round=$2 (exit $?)"
	fi
}
# The workers (--cpu 0) and node 0's kswapd share CPU 0: under TCG a vCPU
# spinning on a lock that a descheduled vCPU holds burns up to a whole
# time slice, which made the run times vary 2x between rounds.
kswapd0='' kswapd0_mask=''
if [ "$RECLAIM_ROUNDS" -gt 0 ]; then
	kswapd0=$(kswapd0_pid)
	echo always > $T/enabled
	kswapd0_mask=$(taskset -p "$kswapd0" | awk '{ print $NF }')
	taskset -p 1 "$kswapd0" > /dev/null || diag "kswapd0 not pinned"
fi
# One run first, not kept: the first reclaim after boot (zram's first
# swap-outs) took 1.25 times as long on 6.1 under an instruction clock.
if [ "$RECLAIM_ROUNDS" -gt 0 ]; then
	settle
	# shellcheck disable=SC2086
	reclaim-churn $RECLAIM_ARGS > /dev/null || diag "reclaim warm-up run failed"
fi
r=1
while [ "$r" -le "$RECLAIM_ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		order=$AB_STATES
	else
		order="${AB_STATES#* } ${AB_STATES% *}"
	fi
	for state in $order; do
		if enter_state "$state"; then
			reclaim_cell "$state" "$r"
		else
			not_ok "module state $state for reclaim round $r"
		fi
	done
	r=$((r + 1))
done
if [ -n "$kswapd0_mask" ]; then
	taskset -p "$kswapd0_mask" "$kswapd0" > /dev/null
fi
enter_state absent
echo madvise > $T/enabled
tap_done
