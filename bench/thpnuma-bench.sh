#!/bin/sh
# make bench, in the guest: every module state x THP defrag x scenario, then
# the hook-overhead A/B, then (BENCH_RECLAIM_ROUNDS) the reclaim A/B. Each
# result is one line "BENCH key=value... {json}" that bench/run.py
# collects; each step is also a TAP line for the harness.
. /tests/lib.sh
[ -f /run.conf ] && . /run.conf
T=/sys/kernel/mm/transparent_hugepage
STATES=${BENCH_STATES:-"absent kernel strict-local local-then-remote local-then-remote+zr7"}
DEFRAGS=${BENCH_DEFRAGS:-"madvise always"}
SCENARIOS=${BENCH_SCENARIOS:-"storm fragmented free shmem"}
STORM_REGION=${BENCH_STORM_REGION:-400M}
SHMEM_REGION=${BENCH_SHMEM_REGION:-200M}
# For a MADV_HUGEPAGE region both defrag values give the same gfp mask:
# the shmem storm runs under one to keep make bench short.
SHMEM_DEFRAGS=${BENCH_SHMEM_DEFRAGS:-madvise}
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
	esac
}

enter_state() {
	[ -e /sys/module/thpnuma ] && rmmod thpnuma
	[ "$1" = absent ] && return 0
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
	baselines) echo "thp-remote-latency --node 0 --region $FRAG_REGION --accesses $ACCESSES" ;;
	esac
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
			# shellcheck disable=SC2046
			run_cell $([ "$state" != absent ] && echo --hist) \
				"state=$state" "defrag=$defrag" "scenario=$sc" -- \
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
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = kswapd0 ] && kswapd0=${p#/proc/}
	done
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
