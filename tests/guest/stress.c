// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency stress: threads (four, or one per CPU if there are more
 * CPUs) fault and unmap THPs and base pages
 * while this thread makes random control changes (policy, zone_reclaim,
 * scope, reset) and reads stats, then loads and unloads the module under
 * the same load. Counters must stay monotonic between resets and, over
 * reset-free intervals with the faulters paused at the ends, equal the
 * kernel's thp_fault_alloc and thp_fault_fallback deltas exactly.
 *
 * Env: STRESS_CHANGES (default 10000), STRESS_CYCLES (default 50),
 * STRESS_SEED (default: clock).
 */
#include "test_util.h"
#include <pthread.h>
#include <stdatomic.h>
#include "kselftest.h"
#include "policy.h"

#define MIN_FAULTERS	4
#define MAX_FAULTERS	256
#define THP_REGION	(4 * MiB)
#define BASE_REGION	(256 * 1024)
#define CHUNK		250	/* changes between exact-consistency checks */

/* The module's own list (policy.h), so that a new policy is stressed. */
static const char *const *const policies = thpnuma_policy_names;
static const char *const scopes[] = { "all", "madvise" };

static atomic_int pause_req, paused, stop;
static atomic_ulong rounds[MAX_FAULTERS];
static int nr_faulters;

static void *faulter(void *arg)
{
	long id = (long)arg;

	pin_to_node(id % nr_nodes());
	while (!atomic_load(&stop)) {
		char *thp, *base;

		if (atomic_load(&pause_req)) {
			atomic_fetch_add(&paused, 1);
			while (atomic_load(&pause_req) && !atomic_load(&stop))
				usleep(1000);
			atomic_fetch_sub(&paused, 1);
			continue;
		}
		thp = map_hpage_aligned(THP_REGION, MADV_HUGEPAGE);
		touch_region(thp, THP_REGION);
		munmap(thp, THP_REGION);
		base = map_hpage_aligned(BASE_REGION, MADV_NOHUGEPAGE);
		touch_region(base, BASE_REGION);
		munmap(base, BASE_REGION);
		atomic_fetch_add(&rounds[id], 1);
	}
	return NULL;
}

/* Faulters parked outside any fault: counters and vmstat are still. */
static void faulters_pause(void)
{
	atomic_store(&pause_req, 1);
	while (atomic_load(&paused) < nr_faulters)
		usleep(1000);
}

static void faulters_resume(void)
{
	atomic_store(&pause_req, 0);
	while (atomic_load(&paused) > 0)
		usleep(1000);
}

static unsigned long total_rounds(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < nr_faulters; i++)
		sum += atomic_load(&rounds[i]);
	return sum;
}

/* Expected settings, as the module must show them. */
struct expect {
	int policy, zone_reclaim, scope;
};

static int settings_match(const struct expect *e)
{
	char pol[64], scope[64], zr[16];

	if (read_choice(THPNUMA_DEBUGFS "/policy", pol, sizeof(pol)) ||
	    read_choice(THPNUMA_DEBUGFS "/scope", scope, sizeof(scope)) ||
	    read_file(THPNUMA_DEBUGFS "/zone_reclaim", zr, sizeof(zr)) < 0)
		return 0;
	return !strcmp(pol, policies[e->policy]) &&
	       !strcmp(scope, scopes[e->scope]) && atoi(zr) == e->zone_reclaim;
}

/* Counter state since the last reset, and what went wrong with it. */
struct monitor {
	struct thpnuma_stats prev;	/* no rows: all zero */
	unsigned long reads, regressions, read_errors;
};

static void monitor_reset(struct monitor *m)
{
	stats_free(&m->prev);
}

static void monitor_read(struct monitor *m)
{
	struct thpnuma_stats s = { 0 };

	if (read_stats(&s)) {
		m->read_errors++;
		return;
	}
	m->reads++;
	for (unsigned int i = 0; i < s.nr_nodes; i++) {
		const struct node_stats *ns = &s.nodes[i];

		for (int c = 0; c < THPNUMA_NR_COUNTERS; c++) {
			uint64_t prev = stat_of(&m->prev, ns->node, c);

			if (ns->counter[c] < prev && m->regressions++ < 5)
				ksft_print_msg("node %d %s went from %" PRIu64 " to %" PRIu64 "\n",
					       ns->node, thpnuma_counter_names[c], prev,
					       ns->counter[c]);
		}
	}
	stats_free(&m->prev);
	m->prev = s;
}

/* Module and kernel counts of THP faults, read with the faulters parked. */
struct fault_counts {
	unsigned long long mod_alloc, mod_fallback, mod_passthrough;
	long k_alloc, k_fallback;
};

static int fault_counts(struct fault_counts *fc)
{
	struct thpnuma_stats s = { 0 };
	struct vmstat vm;

	if (read_stats(&s))
		return -1;
	memset(fc, 0, sizeof(*fc));
	for (unsigned int i = 0; i < s.nr_nodes; i++) {
		const uint64_t *c = s.nodes[i].counter;

		fc->mod_alloc += c[THPNUMA_THP_LOCAL] + c[THPNUMA_THP_REMOTE];
		fc->mod_fallback += c[THPNUMA_THP_FALLBACK];
		fc->mod_passthrough += c[THPNUMA_PASSTHROUGH];
	}
	stats_free(&s);
	vmstat_read(&vm);
	fc->k_alloc = vm.v[VM_THP_FAULT_ALLOC];
	fc->k_fallback = vm.v[VM_THP_FAULT_FALLBACK];
	return 0;
}

struct consistency {
	unsigned long intervals, mismatches, faults;
};

/* Compare one reset-free interval's deltas; a, b taken while parked. */
static void consistency_check(struct consistency *c, const char *where,
			      const struct fault_counts *a,
			      const struct fault_counts *b)
{
	unsigned long long m_alloc = b->mod_alloc - a->mod_alloc;
	unsigned long long m_fb = b->mod_fallback - a->mod_fallback;
	unsigned long long m_pt = b->mod_passthrough - a->mod_passthrough;
	long k_alloc = b->k_alloc - a->k_alloc;
	long k_fb = b->k_fallback - a->k_fallback;

	c->intervals++;
	c->faults += k_alloc + k_fb;
	/* Every THP fault here is madvised and has no mempolicy. */
	if (m_alloc != (unsigned long long)k_alloc ||
	    m_fb != (unsigned long long)k_fb || m_pt) {
		if (c->mismatches++ < 5)
			ksft_print_msg("%s: module alloc %llu fallback %llu passthrough %llu, kernel thp_fault_alloc %ld thp_fault_fallback %ld\n",
				 where, m_alloc, m_fb, m_pt, k_alloc, k_fb);
	}
}

static const char *random_params(char *buf, size_t size, struct expect *e)
{
	e->policy = prng_below(THPNUMA_NR_POLICIES);
	e->zone_reclaim = prng_below(8);
	e->scope = prng_below(2);
	snprintf(buf, size, "policy=%s zone_reclaim=%d scope=%s",
		 policies[e->policy], e->zone_reclaim, scopes[e->scope]);
	return buf;
}

/* One random change, then a stats read; 0 if the module took the change. */
static unsigned long ops_done[4];

static int random_change(struct expect *e, struct monitor *m, int allow_reset)
{
	char val[8];
	int op = prng_below(allow_reset ? 4 : 3), ret = 0;

	switch (op) {
	case 0:
		e->policy = prng_below(THPNUMA_NR_POLICIES);
		ret = write_file(THPNUMA_DEBUGFS "/policy", policies[e->policy]);
		break;
	case 1:
		e->zone_reclaim = prng_below(8);
		snprintf(val, sizeof(val), "%d\n", e->zone_reclaim);
		ret = write_file(THPNUMA_DEBUGFS "/zone_reclaim", val);
		break;
	case 2:
		e->scope = prng_below(2);
		ret = write_file(THPNUMA_DEBUGFS "/scope", scopes[e->scope]);
		break;
	case 3:
		ret = write_file(THPNUMA_DEBUGFS "/reset", "1");
		if (!ret)
			monitor_reset(m);
		break;
	}
	ops_done[op]++;
	monitor_read(m);
	return ret;
}

int main(void)
{
	long changes = env_long("STRESS_CHANGES", 10000);
	long cycles = env_long("STRESS_CYCLES", 50);
	unsigned long refused = 0, wrong_state = 0, resets = 0;
	unsigned long load_fail = 0, unload_fail = 0, before;
	struct consistency cons = { 0 };
	struct monitor mon = { 0 };
	struct fault_counts a, b;
	struct thp_knobs knobs;
	pthread_t threads[MAX_FAULTERS];
	struct expect e = { 0, 0, 0 };
	char params[128], thresh[16] = "10";
	long slowest = 0;
	long i;

	ksft_print_header();
	ksft_set_plan(12);
	prng_seed_from_env("STRESS_SEED");
	/* A fault in flight on every CPU at once, as on a big machine. */
	nr_faulters = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_faulters < MIN_FAULTERS)
		nr_faulters = MIN_FAULTERS;
	if (nr_faulters > MAX_FAULTERS)
		nr_faulters = MAX_FAULTERS;
	ksft_print_msg("%ld changes, %ld load/unload cycles, %d faulter threads, %d nodes, %ld cpus\n",
		 changes, cycles, nr_faulters, nr_nodes(), sysconf(_SC_NPROCESSORS_ONLN));
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	/*
	 * TCG runs the 4 vCPUs on one host thread: each load and unload
	 * rewrites every ftrace site (kernel ftrace_replace_code(), which does
	 * not reschedule there) while 4 faulters compete, and takes 5-30 s of
	 * guest time. The default 10 s threshold calls that a soft lockup;
	 * 60 s (lockups reported after 120 s) still catches a real one.
	 */
	read_file("/proc/sys/kernel/watchdog_thresh", thresh, sizeof(thresh));
	write_file("/proc/sys/kernel/watchdog_thresh", "60");
	i = module_fresh_load("");
	ksft_test_result(i == 0, "module loads\n");
	if (i)
		ksft_exit_fail();
	for (long t = 0; t < nr_faulters; t++)
		pthread_create(&threads[t], NULL, faulter, (void *)t);

	/* Phase 1: random changes; every other chunk has no reset. */
	before = total_rounds();
	for (i = 0; i < changes; i += CHUNK) {
		int checked = (i / CHUNK) % 2;

		if (checked) {
			faulters_pause();
			fault_counts(&a);
			faulters_resume();
		}
		for (long j = i; j < i + CHUNK && j < changes; j++) {
			if (random_change(&e, &mon, !checked))
				refused++;
			if (!settings_match(&e))
				wrong_state++;
			/* Let the faulters run between changes (TCG: one host CPU). */
			usleep(1000);
		}
		if (checked) {
			faulters_pause();
			fault_counts(&b);
			consistency_check(&cons, "changes", &a, &b);
			faulters_resume();
		} else {
			resets++;
		}
	}
	ksft_print_msg("changes: %lu policy, %lu zone_reclaim, %lu scope, %lu reset\n",
		 ops_done[0], ops_done[1], ops_done[2], ops_done[3]);
	ksft_test_result(refused == 0, "%ld valid changes all accepted (%lu refused)\n", changes, refused);
	ksft_test_result(wrong_state == 0, "settings read back as written after each change (%lu wrong)\n",
	       wrong_state);
	ksft_test_result(mon.regressions == 0 && mon.read_errors == 0,
	       "%lu stats reads: counters monotonic between resets (%lu regressions, %lu read errors)\n",
	       mon.reads, mon.regressions, mon.read_errors);
	ksft_test_result(cons.mismatches == 0 && cons.intervals > 0 && cons.faults > 0,
	       "%lu reset-free intervals, %lu THP faults: module totals equal thp_fault_alloc/thp_fault_fallback (%lu mismatches)\n",
	       cons.intervals, cons.faults, cons.mismatches);
	ksft_test_result(total_rounds() > before, "faulters made progress during the changes (%lu rounds)\n",
	       total_rounds() - before);

	/* Phase 2: load/unload cycles under the same fault load. */
	memset(&cons, 0, sizeof(cons));
	before = total_rounds();
	wrong_state = 0;
	for (i = 0; i < cycles; i++) {
		int exact = i % 5 == 0;

		time_t t0 = time(NULL);

		if (module_unload())
			unload_fail++;
		if (time(NULL) - t0 > slowest)
			slowest = time(NULL) - t0;
		if (exact)
			faulters_pause();
		t0 = time(NULL);
		if (module_load(random_params(params, sizeof(params), &e))) {
			load_fail++;
			if (exact)
				faulters_resume();
			continue;
		}
		if (time(NULL) - t0 > slowest)
			slowest = time(NULL) - t0;
		monitor_reset(&mon);
		if (exact) {
			fault_counts(&a);
			faulters_resume();
		}
		if (!settings_match(&e))
			wrong_state++;
		for (int j = 0; j < 4; j++) {
			random_change(&e, &mon, 0);
			usleep(5000);
		}
		if (exact) {
			faulters_pause();
			fault_counts(&b);
			consistency_check(&cons, params, &a, &b);
			faulters_resume();
		}
	}
	ksft_print_msg("slowest load or unload: %ld s\n", slowest);
	ksft_test_result(load_fail == 0 && unload_fail == 0,
	       "%ld load/unload cycles under fault load (%lu load, %lu unload failures)\n",
	       cycles, load_fail, unload_fail);
	ksft_test_result(wrong_state == 0, "each load shows its parameters (%lu wrong)\n", wrong_state);
	ksft_test_result(mon.regressions == 0 && mon.read_errors == 0,
	       "counters monotonic within each load (%lu regressions, %lu read errors)\n",
	       mon.regressions, mon.read_errors);
	ksft_test_result(cons.mismatches == 0 && cons.intervals > 0,
	       "%lu fresh loads: module totals equal the kernel's (%lu THP faults, %lu mismatches)\n",
	       cons.intervals, cons.faults, cons.mismatches);
	ksft_test_result(total_rounds() > before, "faulters made progress during the cycles (%lu rounds)\n",
	       total_rounds() - before);

	atomic_store(&stop, 1);
	for (int t = 0; t < nr_faulters; t++)
		pthread_join(threads[t], NULL);
	ksft_test_result(module_unload() == 0 && !module_loaded(), "module unloads at the end\n");
	thp_knobs_restore(&knobs);
	write_file("/proc/sys/kernel/watchdog_thresh", thresh);
	ksft_print_msg("%lu chunks had resets\n", resets);
	stats_free(&mon.prev);
	ksft_finished();
}
