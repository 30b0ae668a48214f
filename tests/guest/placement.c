// SPDX-License-Identifier: GPL-2.0
/*
 * Where THP faults land under each policy, and whether thpnuma's counters
 * agree exactly with the kernel's own accounting.
 */
#include "test_util.h"
#include "kselftest_harness.h"

#define STORM_REGION	(400 * MiB)
#define SMALL_REGION	(64 * MiB)

/* Zero-initialised before the first measure_begin(). */
struct measurement {
	int nodes;
	long thp_before[MAX_NODES], thp_after[MAX_NODES];
	long alloc, fallback, pswpout, compact_stall;	/* vmstat deltas */
	long scan_direct, scan_kswapd, steal_kswapd;	/* vmstat deltas */
	long kswapd0[2];	/* pgscan_kswapd, pgsteal_kswapd at the start */
	long headroom_kb, sreclaimable_kb;	/* node 0, at the start */
	bool nothing_to_reclaim[2];	/* without swap; at start, at end */
	struct vmstat vm0;
	struct thpnuma_stats s0, s1;
};

static long sysctl_long(const char *path)
{
	char buf[32];

	return read_file(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/*
 * Node 0's file LRU and reclaimable slab are at most node_reclaim()'s
 * minimums (vm.min_unmapped_ratio, vm.min_slab_ratio of the node): a
 * reclaim round that may not swap would find nothing to free there.
 */
static bool node0_nothing_to_reclaim(void)
{
	long total = node_meminfo_kb(0, "MemTotal");
	long file = node_meminfo_kb(0, "Active(file)") +
		    node_meminfo_kb(0, "Inactive(file)");
	long slab = node_meminfo_kb(0, "SReclaimable");
	long unmapped = sysctl_long("/proc/sys/vm/min_unmapped_ratio");
	long slab_ratio = sysctl_long("/proc/sys/vm/min_slab_ratio");

	return total > 0 && unmapped >= 0 && slab_ratio >= 0 &&
	       file * 100 < total * unmapped && slab * 100 < total * slab_ratio;
}

static void measure_begin(struct measurement *m)
{
	m->nodes = nr_nodes();
	m->headroom_kb = node_headroom_kb(0);
	m->sreclaimable_kb = node_meminfo_kb(0, "SReclaimable");
	m->nothing_to_reclaim[0] = node0_nothing_to_reclaim();
	m->kswapd0[0] = vmstat_value("pgscan_kswapd");
	m->kswapd0[1] = vmstat_value("pgsteal_kswapd");
	node_thps(m->thp_before, m->nodes);
	read_stats(&m->s0);
	vmstat_read(&m->vm0);
}

static void measure_end(struct measurement *m)
{
	struct vmstat vm1, d;

	node_thps(m->thp_after, m->nodes);
	m->nothing_to_reclaim[1] = node0_nothing_to_reclaim();
	read_stats(&m->s1);
	vmstat_read(&vm1);
	vmstat_delta(&d, &m->vm0, &vm1);
	m->alloc = d.v[VM_THP_FAULT_ALLOC];
	m->fallback = d.v[VM_THP_FAULT_FALLBACK];
	m->pswpout = d.v[VM_PSWPOUT];
	m->compact_stall = d.v[VM_COMPACT_STALL];
	m->scan_direct = d.v[VM_PGSCAN_DIRECT];
	m->scan_kswapd = vmstat_value("pgscan_kswapd") - m->kswapd0[0];
	m->steal_kswapd = vmstat_value("pgsteal_kswapd") - m->kswapd0[1];
}

/*
 * The most THPs node 0 could have given without direct reclaim: its
 * headroom at the start, what kswapd reclaimed meanwhile (on any node, so
 * an upper bound) and, if kswapd ran, the slab its shrinkers may have freed.
 */
static long local_bound(const struct measurement *m)
{
	long kb = m->headroom_kb + m->steal_kswapd * (BASE_PAGE_SIZE / 1024);

	if (m->scan_kswapd > 0)
		kb += m->sreclaimable_kb;
	return kb / (HPAGE_SIZE / 1024);
}

/*
 * Swap-outs came only from kswapd, which no policy restrains: none at all
 * if kswapd scanned nothing, and never more than it scanned.
 */
static void expect_swap_by_kswapd_only(struct __test_metadata *_metadata,
				       const struct measurement *m)
{
	EXPECT_LE(m->pswpout, m->scan_kswapd);
	if (!m->scan_kswapd)
		EXPECT_EQ(0, m->pswpout);
}

static long placed(const struct measurement *m, int node)
{
	return m->thp_after[node] - m->thp_before[node];
}

static long remote_placed(const struct measurement *m)
{
	long sum = 0;

	for (int n = 1; n < m->nodes; n++)
		sum += placed(m, n);
	return sum;
}

static unsigned long long delta(const struct measurement *m, int node, int c)
{
	return stat_delta(&m->s0, &m->s1, node, c);
}

static unsigned long long delta_sum(const struct measurement *m, int c)
{
	unsigned long long sum = 0;

	for (int n = 0; n < m->nodes; n++)
		sum += delta(m, n, c);
	return sum;
}

/* Fault @size bytes on node 0's CPU; keep the region mapped while measuring. */
static void fault_region(struct measurement *m, size_t size, int advice)
{
	char *p = map_hpage_aligned(size, advice);

	measure_begin(m);
	touch_region(p, size);
	measure_end(m);
	munmap(p, size);
}

static void log_measurement(struct __test_metadata *_metadata,
			    const struct measurement *m)
{
	for (int n = 0; n < m->nodes; n++)
		TH_LOG("node%d: placed %ld; local %llu remote %llu fallback %llu remote_in %llu passthrough %llu compact %llu reclaim %llu/%llu pages",
		       n, placed(m, n), delta(m, n, THPNUMA_THP_LOCAL), delta(m, n, THPNUMA_THP_REMOTE),
		       delta(m, n, THPNUMA_THP_FALLBACK), delta(m, n, THPNUMA_THP_REMOTE_IN),
		       delta(m, n, THPNUMA_PASSTHROUGH), delta(m, n, THPNUMA_COMPACT_STALL),
		       delta(m, n, THPNUMA_RECLAIM_STALL), delta(m, n, THPNUMA_RECLAIM_PAGES));
	TH_LOG("vmstat: thp_fault_alloc %ld thp_fault_fallback %ld pswpout %ld compact_stall %ld pgscan_direct %ld pgscan_kswapd %ld pgsteal_kswapd %ld",
	       m->alloc, m->fallback, m->pswpout, m->compact_stall, m->scan_direct,
	       m->scan_kswapd, m->steal_kswapd);
	TH_LOG("node0 at start: headroom above min %ld kB, SReclaimable %ld kB; local bound %ld THPs",
	       m->headroom_kb, m->sreclaimable_kb, local_bound(m));
}

/* Item 4 of the module issue: the counters equal the kernel's accounting. */
static void expect_exact(struct __test_metadata *_metadata,
			 const struct measurement *m)
{
	EXPECT_EQ(m->alloc, (long)(delta_sum(m, THPNUMA_THP_LOCAL) + delta_sum(m, THPNUMA_THP_REMOTE)));
	EXPECT_EQ(m->fallback, (long)delta_sum(m, THPNUMA_THP_FALLBACK));
	for (int n = 0; n < m->nodes; n++) {
		EXPECT_EQ(placed(m, n),
			  (long)(delta(m, n, THPNUMA_THP_LOCAL) + delta(m, n, THPNUMA_THP_REMOTE_IN))) {
			TH_LOG("node %d", n);
		}
		EXPECT_EQ(delta(m, n, THPNUMA_COMPACT_STALL),
			  delta(m, n, THPNUMA_COMPACT_SUCCESS) + delta(m, n, THPNUMA_COMPACT_FAIL));
	}
	/*
	 * Compaction the module saw was a kernel compact_stall too. Not the
	 * converse: the kernel also counts stalls of other allocations, and
	 * deferred attempts where compact_zone_order() never ran.
	 */
	EXPECT_TRUE(delta_sum(m, THPNUMA_COMPACT_STALL) == 0 || m->compact_stall > 0);
	/* No probe ran out of instances: the counts above are complete. */
	EXPECT_EQ(0, read_probe_missed());
}

enum expectation {
	EXACT_ONLY,
	NO_REMOTE,		/* strict-local */
	NO_RECLAIM,		/* local-then-remote, zone_reclaim=0 */
	NO_SWAP,		/* reclaim without swap */
	MAY_SWAP,		/* reclaim, swap allowed */
};

FIXTURE(storm) {
	struct thp_knobs knobs;
	pid_t hog;
};

FIXTURE_VARIANT(storm) {
	const char *params;
	enum expectation expect;
};

FIXTURE_VARIANT_ADD(storm, kernel) {
	.params = "policy=kernel",
	.expect = EXACT_ONLY,
};

FIXTURE_VARIANT_ADD(storm, strict_local) {
	.params = "policy=strict-local",
	.expect = NO_REMOTE,
};

FIXTURE_VARIANT_ADD(storm, local_then_remote_zr0) {
	.params = "policy=local-then-remote zone_reclaim=0",
	.expect = NO_RECLAIM,
};

FIXTURE_VARIANT_ADD(storm, local_then_remote_zr1) {
	.params = "policy=local-then-remote zone_reclaim=1",
	.expect = NO_SWAP,
};

FIXTURE_VARIANT_ADD(storm, local_then_remote_zr4) {
	.params = "policy=local-then-remote zone_reclaim=4",
	.expect = MAY_SWAP,
};

FIXTURE_VARIANT_ADD(storm, local_then_remote_zr7) {
	.params = "policy=local-then-remote zone_reclaim=7",
	.expect = MAY_SWAP,
};

FIXTURE_SETUP(storm)
{
	self->hog = -1;
	thp_knobs_save(&self->knobs);
	if (!swap_active())
		SKIP(return, "no swap device: the storm needs zram swap");
	thp_knobs_quiet("madvise", "madvise");
	ASSERT_EQ(0, module_load(variant->params));
	pin_to_node(0);
	drop_caches();
	self->hog = start_storm_hog();
	ASSERT_LT(0, self->hog);
	TH_LOG("node0 MemFree after hog: %ld kB (watermarks min %ld low %ld high %ld kB)",
	       node_meminfo_kb(0, "MemFree"), node_watermark_kb(0, "min"),
	       node_watermark_kb(0, "low"), node_watermark_kb(0, "high"));
}

FIXTURE_TEARDOWN(storm)
{
	stop_hog(self->hog);
	if (module_loaded())
		module_unload();
	thp_knobs_restore(&self->knobs);
}

TEST_F_TIMEOUT(storm, fault_400m_on_full_node0, 600)
{
	struct measurement m = { 0 };
	long total;

	fault_region(&m, STORM_REGION, MADV_HUGEPAGE);
	log_measurement(_metadata, &m);
	expect_exact(_metadata, &m);
	total = m.alloc;

	switch (variant->expect) {
	case NO_REMOTE:
		EXPECT_EQ(0, remote_placed(&m));
		EXPECT_EQ(0ULL, delta(&m, 0, THPNUMA_THP_REMOTE));
		break;
	case NO_RECLAIM:
		/*
		 * Compaction only: no direct reclaim on node 0, neither in the
		 * module's count nor in the kernel's (nothing else here
		 * allocates enough to reclaim directly), so every local THP
		 * was free memory or kswapd's work, and the rest went remote.
		 * kswapd is not ours to restrain: the pages it frees (as many
		 * as a busy host gives it time for) are in the bound.
		 */
		EXPECT_EQ(0ULL, delta(&m, 0, THPNUMA_RECLAIM_STALL));
		EXPECT_EQ(0, m.scan_direct);
		expect_swap_by_kswapd_only(_metadata, &m);
		EXPECT_EQ(0, m.fallback);
		EXPECT_LE(placed(&m, 0), local_bound(&m));
		EXPECT_EQ(total - placed(&m, 0), remote_placed(&m))
			TH_LOG("%ld of %ld THPs remote", remote_placed(&m), total);
		break;
	case NO_SWAP:
		/* Its direct reclaim lacks __GFP_IO; the kswapd it wakes may swap. */
		expect_swap_by_kswapd_only(_metadata, &m);
		/*
		 * With nothing on node 0 that reclaim without swap could free
		 * (before and after the faults), no reclaim round runs: it
		 * would scan the whole node for nothing.
		 */
		if (m.nothing_to_reclaim[0] && m.nothing_to_reclaim[1]) {
			EXPECT_EQ(0ULL, delta(&m, 0, THPNUMA_RECLAIM_STALL));
			EXPECT_EQ(0, m.scan_direct);
		} else {
			TH_LOG("node 0 had file pages or slab to reclaim: reclaim allowed");
		}
		break;
	case MAY_SWAP:
		/*
		 * Node 0 reclaims before the faults go remote. Whether that
		 * reclaim swaps, or even scans (a zone ready for compaction
		 * ends it at once), is the kernel's choice (7.x: none did).
		 */
		EXPECT_LT(0ULL, delta(&m, 0, THPNUMA_RECLAIM_STALL));
		break;
	case EXACT_ONLY:
		break;
	}
}

FIXTURE(free_node) {
	struct thp_knobs knobs;
};

FIXTURE_VARIANT(free_node) {
	const char *params;
};

FIXTURE_VARIANT_ADD(free_node, kernel) { .params = "policy=kernel" };
FIXTURE_VARIANT_ADD(free_node, strict_local) { .params = "policy=strict-local" };
FIXTURE_VARIANT_ADD(free_node, local_then_remote) {
	.params = "policy=local-then-remote",
};

FIXTURE_SETUP(free_node)
{
	thp_knobs_save(&self->knobs);
	thp_knobs_quiet("madvise", "madvise");
	ASSERT_EQ(0, module_load(variant->params));
	pin_to_node(0);
	drop_caches();
}

FIXTURE_TEARDOWN(free_node)
{
	if (module_loaded())
		module_unload();
	thp_knobs_restore(&self->knobs);
}

TEST_F_TIMEOUT(free_node, all_thps_local, 120)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	fault_region(&m, SMALL_REGION, MADV_HUGEPAGE);
	log_measurement(_metadata, &m);
	expect_exact(_metadata, &m);
	EXPECT_EQ(want, placed(&m, 0));
	EXPECT_EQ(0, remote_placed(&m));
	EXPECT_EQ(want, (long)delta(&m, 0, THPNUMA_THP_LOCAL));
	EXPECT_EQ(0ULL, delta_sum(&m, THPNUMA_THP_REMOTE) + delta_sum(&m, THPNUMA_THP_FALLBACK));
}

/*
 * Every THP fault of the task (on node 0's CPU) was left to the kernel and
 * counted as passthrough, and the kernel placed @on_node0 and @on_node1.
 */
static void expect_passthrough(struct __test_metadata *_metadata,
			       const struct measurement *m,
			       long on_node0, long on_node1)
{
	log_measurement(_metadata, m);
	EXPECT_EQ(on_node0, placed(m, 0));
	EXPECT_EQ(on_node1, placed(m, 1));
	EXPECT_EQ(on_node0 + on_node1, (long)delta(m, 0, THPNUMA_PASSTHROUGH));
	EXPECT_EQ(0ULL, delta_sum(m, THPNUMA_THP_LOCAL) + delta_sum(m, THPNUMA_THP_REMOTE) +
		     delta_sum(m, THPNUMA_THP_FALLBACK));
}

/* Explicit memory policies win over every thpnuma policy. */
TEST_F_TIMEOUT(free_node, bound_task_is_passthrough, 120)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	ASSERT_EQ(0, set_mempolicy_nodes(MPOL_BIND, 1UL << 1));
	fault_region(&m, SMALL_REGION, MADV_HUGEPAGE);
	set_mempolicy_nodes(MPOL_DEFAULT, 0);
	expect_passthrough(_metadata, &m, 0, want);
}

/* So does a cpuset that keeps the task off its CPU's node. */
TEST_F_TIMEOUT(free_node, cpuset_without_local_node_is_passthrough, 120)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	if (!cpuset_available())
		SKIP(return, "no cgroup-v2 cpuset controller");
	ASSERT_EQ(0, cpuset_enter("thpnuma-node1", "1"));
	/*
	 * Joining a cpuset sets the task's affinity to the cpuset's CPUs (all
	 * of them here: 6.1's cpuset_attach_task()), so a busy host could
	 * move it to node 1, where node 1 is local. Pin again: the test is about a task
	 * on node 0 whose cpuset excludes node 0.
	 */
	pin_to_node(0);
	fault_region(&m, SMALL_REGION, MADV_HUGEPAGE);
	cpuset_leave("thpnuma-node1");
	expect_passthrough(_metadata, &m, 0, want);
}

TEST_F_TIMEOUT(free_node, interleaved_task_is_passthrough, 120)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	ASSERT_EQ(0, set_mempolicy_nodes(MPOL_INTERLEAVE, 0x3));
	fault_region(&m, SMALL_REGION, MADV_HUGEPAGE);
	set_mempolicy_nodes(MPOL_DEFAULT, 0);
	/* Interleave alternates nodes per THP: half each. */
	expect_passthrough(_metadata, &m, want / 2, want / 2);
}

/* scope=madvise: THP faults in VMAs without MADV_HUGEPAGE are untouched. */
TEST_F_TIMEOUT(free_node, madvise_scope_leaves_other_vmas_alone, 120)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	ASSERT_EQ(0, write_file(THP_SYSFS "/enabled", "always"));
	ASSERT_EQ(0, write_file(THPNUMA_DEBUGFS "/scope", "madvise"));

	fault_region(&m, SMALL_REGION, 0);
	log_measurement(_metadata, &m);
	EXPECT_EQ(want, placed(&m, 0));
	for (int c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		EXPECT_EQ(0ULL, delta_sum(&m, c)) {
			TH_LOG("%s", thpnuma_counter_names[c]);
		}
	}

	fault_region(&m, SMALL_REGION, MADV_HUGEPAGE);
	log_measurement(_metadata, &m);
	EXPECT_EQ(want, (long)delta(&m, 0, THPNUMA_THP_LOCAL));
	expect_exact(_metadata, &m);
}

TEST_HARNESS_MAIN
