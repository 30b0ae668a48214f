// SPDX-License-Identifier: GPL-2.0
/*
 * Many more faulting threads than CPUs, all on node 0's CPU, with node 0
 * filled with mlocked memory: every local THP
 * attempt that a policy makes with reclaim allowed enters direct reclaim,
 * frees next to nothing and is throttled there, so dozens of hooked
 * allocations are in flight on one CPU at once. Each must keep its state:
 *
 * - every hooked fault is counted, and the THP counters equal the
 *   kernel's thp_fault_alloc and thp_fault_fallback;
 * - every fault whose local attempt did not yield a THP ran direct
 *   reclaim on node 0 (its effort kept) and the module counted it: node
 *   0's reclaim_stall is at least the faults not placed locally, and at
 *   most the kernel's allocstall;
 * - probe_missed stays 0.
 *
 * Once more with two buckets in the module's per-task tables
 * (test_task_hash_bits=1): most allocations in flight share a bucket, so
 * they go on its locked list while another holds its slot.
 *
 * Env: INFLIGHT_THREADS (default 64), INFLIGHT_THPS per thread (default 2).
 */
#include <pthread.h>
#include <stdatomic.h>
#include "test_util.h"
#include "kselftest.h"

static int nr_threads, thps_per_thread;
static pthread_barrier_t start_line;
static atomic_int in_fault, most_in_fault;

static void *fault_thread(void *arg)
{
	size_t size = thps_per_thread * HPAGE_SIZE;
	char *p = map_hpage_aligned(size, MADV_HUGEPAGE);
	int now, most;

	pthread_barrier_wait(&start_line);
	for (size_t off = 0; off < size; off += HPAGE_SIZE) {
		now = atomic_fetch_add(&in_fault, 1) + 1;
		most = atomic_load(&most_in_fault);
		while (now > most &&
		       !atomic_compare_exchange_weak(&most_in_fault, &most, now))
			;
		p[off] = 1;
		atomic_fetch_sub(&in_fault, 1);
	}
	/* Mapped until the counts are read: no THP is freed meanwhile. */
	return p;
}

/* Direct reclaim calls, over every zone type. */
static long allocstall(void)
{
	char name[64];
	long v, sum = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		ksft_exit_fail_msg("/proc/vmstat: %s\n", strerror(errno));
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strncmp(name, "allocstall_", 11))
			sum += v;
	fclose(f);
	return sum;
}

/* @name: @policy, or what @extra (more parameters) changes. */
static void run(const char *name, const char *policy, const char *extra)
{
	struct thpnuma_stats a = { 0 }, b = { 0 };
	const long faults = (long)nr_threads * thps_per_thread;
	long alloc0, fallback0, stall0, missed0, free_kb, low_kb;
	uint64_t local, remote, fallback, stall;
	pthread_t tid[nr_threads];
	void *maps[nr_threads];
	char params[128];
	pid_t fill;

	snprintf(params, sizeof(params), "policy=%s zone_reclaim=7 %s", policy,
		 extra);
	if (module_fresh_load(params)) {
		ksft_test_result_fail("%s: module loads\n", name);
		return;
	}
	fill = start_locked_fill();
	if (fill < 0) {
		ksft_test_result_fail("%s: node 0 filled\n", name);
		module_unload();
		return;
	}
	user_zones_kb(0, &free_kb, &low_kb);
	ksft_print_msg("%s: node 0 free %ld kB (low watermark %ld kB)\n",
		       name, free_kb, low_kb);

	atomic_store(&most_in_fault, 0);
	pthread_barrier_init(&start_line, NULL, nr_threads + 1);
	for (int i = 0; i < nr_threads; i++)
		if (pthread_create(&tid[i], NULL, fault_thread, NULL))
			ksft_exit_fail_msg("pthread_create\n");
	read_stats(&a);
	missed0 = read_probe_missed();
	alloc0 = vmstat_value("thp_fault_alloc");
	fallback0 = vmstat_value("thp_fault_fallback");
	stall0 = allocstall();
	pthread_barrier_wait(&start_line);
	for (int i = 0; i < nr_threads; i++)
		pthread_join(tid[i], &maps[i]);
	read_stats(&b);

	local = stat_delta_all(&a, &b, THPNUMA_THP_LOCAL);
	remote = stat_delta_all(&a, &b, THPNUMA_THP_REMOTE);
	fallback = stat_delta_all(&a, &b, THPNUMA_THP_FALLBACK);
	stall = stat_delta(&a, &b, 0, THPNUMA_RECLAIM_STALL);
	alloc0 = vmstat_value("thp_fault_alloc") - alloc0;
	fallback0 = vmstat_value("thp_fault_fallback") - fallback0;
	stall0 = allocstall() - stall0;
	ksft_print_msg("%s: %d threads, up to %d faulting at once; local %" PRIu64
		       " remote %" PRIu64 " fallback %" PRIu64
		       "; node 0 reclaim_stall %" PRIu64 "; kernel: thp_fault_alloc +%ld fallback +%ld allocstall +%ld\n",
		       name, nr_threads, atomic_load(&most_in_fault), local,
		       remote, fallback, stall, alloc0, fallback0, stall0);

	ksft_test_result(local + remote + fallback == (uint64_t)faults,
			 "%s: every one of %ld hooked faults counted\n", name, faults);
	ksft_test_result(local + remote == (uint64_t)alloc0 &&
			 fallback == (uint64_t)fallback0,
			 "%s: THP counters equal thp_fault_alloc and thp_fault_fallback\n",
			 name);
	ksft_test_result(stall >= remote + fallback,
			 "%s: every fault not placed locally reclaimed on node 0 first (%" PRIu64 " >= %" PRIu64 ")\n",
			 name, stall, remote + fallback);
	ksft_test_result(stat_delta_all(&a, &b, THPNUMA_RECLAIM_STALL) <= (uint64_t)stall0,
			 "%s: reclaim_stall within the kernel's allocstall\n", name);
	ksft_test_result(read_probe_missed() == missed0,
			 "%s: probe_missed unchanged (%ld)\n", name, read_probe_missed());
	if (*extra) {
		/* The locked lists were in use: more faults than buckets. */
		char bits[16] = "";
		int most = atomic_load(&most_in_fault);

		read_file("/sys/module/thpnuma/parameters/test_task_hash_bits",
			  bits, sizeof(bits));
		ksft_test_result(atoi(bits) == 1 && most > 2,
				 "%s: %d faults in flight at once, in 2^%d buckets\n",
				 name, most, atoi(bits));
	}

	for (int i = 0; i < nr_threads; i++)
		munmap(maps[i], thps_per_thread * HPAGE_SIZE);
	stop_hog(fill);
	stats_free(&a);
	stats_free(&b);
	ksft_test_result(module_unload() == 0, "%s: module unloads\n", name);
}

int main(void)
{
	static const char *const policies[] = { "local-then-remote", "strict-local" };
	struct thp_knobs knobs;

	nr_threads = env_long("INFLIGHT_THREADS", 64);
	thps_per_thread = env_long("INFLIGHT_THPS", 2);
	ksft_print_header();
	ksft_set_plan(6 * ARRAY_SIZE(policies) + 7);
	require_node(1);
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	/* Every thread on node 0's CPU: they queue on one CPU's runqueue. */
	pin_to_node(0);
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
		run(policies[i], policies[i], "");
	run("local-then-remote, 2 buckets", "local-then-remote",
	    "test_task_hash_bits=1");
	thp_knobs_restore(&knobs);
	ksft_finished();
}
