// SPDX-License-Identifier: GPL-2.0
/*
 * Pending fallbacks: an mTHP fault that tries 64 kB, then 32 kB, then takes
 * a small page is one fallback, counted at 64 kB, also
 *  - when the pending fallback's GFP_NOWAIT allocation fails (the module's
 *    test_pending_nomem stands in for a machine out of memory): the orders
 *    rows add up to the faults;
 *  - when the fault ends without a hooked small-page call (the module's
 *    test_small_unhooked plays such a kernel) and its thread exits: the
 *    entry goes with the thread, counted, and a later process gets none.
 * Node 0's free memory is in its hugetlb pool, the rest locked down to
 * near its low watermark, and the policy is strict-local, so that THP
 * attempts fail; small pages come from node 1.
 */
#include "test_util.h"
#include "kselftest_harness.h"

#define BLOCK		(64 * 1024UL)
/*
 * Enough faults that the per-CPU lists' free pages, which a drain returns
 * to the node as blocks, cannot serve them all: some fall back.
 */
#define NR_FAULTS	1024
/* Processes alive at once in the exit test. */
#define NR_EXITING	512
#define PARAMS		"/sys/module/thpnuma/parameters/"

enum {
	ANON = THPNUMA_KIND_ANON,
	LOCAL = THPNUMA_ORDER_LOCAL,
	REMOTE = THPNUMA_ORDER_REMOTE,
	FALLBACK = THPNUMA_ORDER_FALLBACK,
};

static void size_enable(int kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path), THP_SYSFS "/hugepages-%dkB/enabled", kb);
	write_file(path, mode);
}

/* Fault @n 64 kB blocks, one fault each, in a child on node 0's CPU. */
static int fault_blocks(int n)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *p;

		pin_to_node(0);
		p = map_hpage_aligned(n * BLOCK, MADV_HUGEPAGE);
		for (int i = 0; i < n; i++)
			p[i * BLOCK] = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/*
 * @n processes each fault one 64 kB block, all alive at once (so none
 * reuses another's task_struct), then exit together.
 */
static int fault_blocks_then_exit(int n)
{
	int ready[2], go[2], err = 0;
	pid_t pids[NR_EXITING];
	char c = 0;

	if (n > NR_EXITING || pipe(ready) || pipe(go))
		return -1;
	for (int i = 0; i < n; i++) {
		pid_t pid = pids[i] = fork();

		if (pid == 0) {
			char *p;

			close(go[1]);
			pin_to_node(0);
			p = map_hpage_aligned(BLOCK, MADV_HUGEPAGE);
			p[0] = 1;
			if (write(ready[1], &c, 1) != 1)
				_exit(1);
			/* Until the parent closes the pipe: end of file. */
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
		if (pid < 0)
			err = -1;
	}
	close(ready[1]);
	close(go[0]);
	for (int i = 0; i < n && !err; i++)
		if (read(ready[0], &c, 1) != 1)
			err = -1;
	close(go[1]);
	close(ready[0]);
	/* Ours only: the fixture's filler is a child too, and stays. */
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
	return err;
}

/* Every outcome of every anonymous order, summed. */
static long anon_outcomes(const struct orders_table *a,
			  const struct orders_table *b)
{
	long sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++)
			for (int c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
				sum += orders_delta(a, b, n, ANON, o, c);
	return sum;
}

FIXTURE(pending) {
	pid_t fill;
	struct thp_knobs thp;
	char saved64[32], saved32[32], saved2m[32];
	struct vm_knobs vm;
};

FIXTURE_SETUP(pending)
{
	self->fill = -1;
	if (access(THP_SYSFS "/hugepages-64kB/enabled", F_OK))
		SKIP(return, "no 64 kB mTHP size on this kernel (6.8+)");
	thp_knobs_save(&self->thp);
	thp_knobs_quiet("madvise", "madvise");
	read_choice(THP_SYSFS "/hugepages-64kB/enabled", self->saved64,
		    sizeof(self->saved64));
	read_choice(THP_SYSFS "/hugepages-32kB/enabled", self->saved32,
		    sizeof(self->saved32));
	read_choice(THP_SYSFS "/hugepages-2048kB/enabled", self->saved2m,
		    sizeof(self->saved2m));
	size_enable(64, "madvise");
	size_enable(32, "madvise");
	size_enable(2048, "never");
	ASSERT_EQ(0, module_fresh_load("policy=strict-local"));
	vm_knobs_tight(&self->vm);
	/* Node 0's free memory in its hugetlb pool: THP attempts fail. */
	ASSERT_LT(0, hugetlb_take(0, 100000));
	/*
	 * And what the pool left, fragments of less than 2 MiB, locked away
	 * down to 4 MiB above the low watermark: on 7.3 they once served all
	 * 512 64 kB attempts of the exit test, which then had no fallback to
	 * test. Preferred, not bound, to node 0: the pool can leave it at its
	 * min watermark, where a bound filler's own faults met the OOM killer.
	 */
	self->fill = start_locked_fill_on(0, 0);
	ASSERT_LT(0, self->fill);
}

FIXTURE_TEARDOWN(pending)
{
	if (!self->saved64[0])
		return;
	stop_hog(self->fill);
	hugetlb_take(0, 0);
	vm_knobs_restore(&self->vm);
	module_unload();
	size_enable(64, self->saved64);
	size_enable(32, self->saved32);
	size_enable(2048, self->saved2m);
	thp_knobs_restore(&self->thp);
}

/* The kernel's per-size counters of 64 and 32 kB faults, as deltas. */
struct kernel_sizes {
	long alloc64, fallback64, alloc32, fallback32;
};

static void kernel_sizes(struct kernel_sizes *k)
{
	k->alloc64 = mthp_stat(64, "anon_fault_alloc");
	k->fallback64 = mthp_stat(64, "anon_fault_fallback");
	k->alloc32 = mthp_stat(32, "anon_fault_alloc");
	k->fallback32 = mthp_stat(32, "anon_fault_fallback");
}

static long od(const struct orders_table *a, const struct orders_table *b,
	       int order, int outcome)
{
	long sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		sum += orders_delta(a, b, n, ANON, order, outcome);
	return sum;
}

/*
 * Each fault once, where the kernel counts it: a 64 kB folio, a 32 kB
 * one after a 64 kB fallback step, or small pages after both steps,
 * which thpnuma counts as one fallback at 64 kB.
 */
/* Long limits: under TCG on a busy host the fill and 512 forks are slow. */
TEST_F_TIMEOUT(pending, allocation_failure_counts_each_fault_once, 120)
{
	struct kernel_sizes k0, k;
	struct orders_table o0, o1;

	ASSERT_EQ(0, write_file(PARAMS "test_pending_nomem", "1"));
	ASSERT_EQ(0, read_orders(&o0));
	kernel_sizes(&k0);
	ASSERT_EQ(0, fault_blocks(NR_FAULTS));
	kernel_sizes(&k);
	ASSERT_EQ(0, read_orders(&o1));
	write_file(PARAMS "test_pending_nomem", "0");
	k.alloc64 -= k0.alloc64;
	k.fallback64 -= k0.fallback64;
	k.alloc32 -= k0.alloc32;
	k.fallback32 -= k0.fallback32;
	TH_LOG("kernel: 64 kB %ld placed %ld fell back, 32 kB %ld placed %ld fell back",
	       k.alloc64, k.fallback64, k.alloc32, k.fallback32);
	TH_LOG("ours: order 4 %ld placed %ld fell back, order 3 %ld placed %ld fell back; all %ld",
	       od(&o0, &o1, 4, LOCAL) + od(&o0, &o1, 4, REMOTE),
	       od(&o0, &o1, 4, FALLBACK),
	       od(&o0, &o1, 3, LOCAL) + od(&o0, &o1, 3, REMOTE),
	       od(&o0, &o1, 3, FALLBACK), anon_outcomes(&o0, &o1));
	ASSERT_EQ(NR_FAULTS, k.alloc64 + k.alloc32 + k.fallback32);
	/* Faults fell back: the test covers the failing allocation. */
	EXPECT_LT(0, k.fallback32);
	EXPECT_EQ(NR_FAULTS, anon_outcomes(&o0, &o1));
	EXPECT_EQ(k.alloc64, od(&o0, &o1, 4, LOCAL) + od(&o0, &o1, 4, REMOTE));
	EXPECT_EQ(k.alloc32, od(&o0, &o1, 3, LOCAL) + od(&o0, &o1, 3, REMOTE));
	EXPECT_EQ(k.fallback32, od(&o0, &o1, 4, FALLBACK));
	EXPECT_EQ(0, od(&o0, &o1, 3, FALLBACK));
}

TEST_F_TIMEOUT(pending, exiting_thread_takes_its_fallback, 120)
{
	struct orders_table o0, o1, o2;

	ASSERT_EQ(0, write_file(PARAMS "test_small_unhooked", "1"));
	ASSERT_EQ(0, read_orders(&o0));
	/* One fault per process: none is ended by a later fault of its own. */
	ASSERT_EQ(0, fault_blocks_then_exit(NR_EXITING));
	ASSERT_EQ(0, read_orders(&o1));
	write_file(PARAMS "test_small_unhooked", "0");
	/* Later processes, maybe at the same task_struct, inherit nothing. */
	for (int i = 0; i < NR_EXITING; i++)
		ASSERT_EQ(0, fault_blocks(1));
	ASSERT_EQ(0, read_orders(&o2));
	TH_LOG("orders after the exits: %ld (%ld fell back at 64 kB), after the later faults: %ld",
	       anon_outcomes(&o0, &o1), od(&o0, &o1, 4, FALLBACK),
	       anon_outcomes(&o1, &o2));
	/* Faults fell back: the exits had pending fallbacks to take. */
	EXPECT_LT(0, od(&o0, &o1, 4, FALLBACK));
	EXPECT_EQ(NR_EXITING, anon_outcomes(&o0, &o1));
	EXPECT_EQ(NR_EXITING, anon_outcomes(&o1, &o2));
}

TEST_HARNESS_MAIN
