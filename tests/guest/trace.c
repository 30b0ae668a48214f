// SPDX-License-Identifier: GPL-2.0
/*
 * The thpnuma:thp_fault trace event and the latency histograms: one event
 * per THP fault the hook sees, whose fields agree with the counters and
 * with /proc/vmstat, and histograms whose counts equal the counters.
 */
#include <linux/perf_event.h>
#include "test_util.h"
#include "kselftest_harness.h"

#define REGION		(32 * MiB)
#define STORM_REGION	(64 * MiB)
#define REGION_THPS	((long)(REGION / HPAGE_SIZE))
#define STORM_THPS	((long)(STORM_REGION / HPAGE_SIZE))
#define MAX_EVENTS	16384

/* One run: the events it traced, the counters and histograms after it. */
struct run {
	struct fault_event ev[MAX_EVENTS];
	long nr, lost;
	long alloc, fallback;			/* vmstat deltas */
	struct vmstat vm0;
	struct thpnuma_stats st;
	/* The hist file: [node][outcome] count and sum_ns; header as expected. */
	unsigned long long hist_count[MAX_NODES][THPNUMA_NR_HIST_OUTCOMES];
	unsigned long long hist_sum[MAX_NODES][THPNUMA_NR_HIST_OUTCOMES];
	bool hist_header_ok;
};

/* The trace buffer's events; lost counts entries the buffer dropped. */
static void read_events(struct run *r)
{
	r->nr = fault_trace_read(r->ev, MAX_EVENTS - 1, &r->lost);
}

/* The hist file; its header must name the buckets counters.h defines. */
static void read_hist(struct run *r)
{
	char line[2048], want[2048], outcome[16];
	unsigned long long count, sum;
	FILE *f = fopen(THPNUMA_DEBUGFS "/hist", "r");
	int len, node, o;

	memset(r->hist_count, 0, sizeof(r->hist_count));
	memset(r->hist_sum, 0, sizeof(r->hist_sum));
	r->hist_header_ok = false;
	if (!f)
		return;
	len = snprintf(want, sizeof(want), "node outcome count sum_ns");
	for (unsigned int b = 0; b < THPNUMA_HIST_BUCKETS - 1; b++)
		len += snprintf(want + len, sizeof(want) - len, " %llu",
				thpnuma_hist_bound(b));
	snprintf(want + len, sizeof(want) - len, " inf\n");
	if (fgets(line, sizeof(line), f))
		r->hist_header_ok = !strcmp(line, want);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %15s %llu %llu", &node, outcome, &count,
			   &sum) != 4 || node < 0 || node >= MAX_NODES)
			continue;
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
			if (!strcmp(outcome, thpnuma_hist_outcome_names[o])) {
				r->hist_count[node][o] = count;
				r->hist_sum[node][o] = sum;
			}
		}
	}
	fclose(f);
}

static int tracing(const char *on)
{
	return write_file(FAULT_EVENT_DIR "/enable", on);
}

/* Counters reset, trace buffer empty, the event on. */
static int run_begin(struct run *r)
{
	int err = write_file(THPNUMA_DEBUGFS "/reset", "1");

	err = err ?: fault_trace_start();
	vmstat_read(&r->vm0);
	return err;
}

static void run_end(struct run *r)
{
	struct vmstat vm1, d;

	vmstat_read(&vm1);
	tracing("0");
	vmstat_delta(&d, &r->vm0, &vm1);
	r->alloc = d.v[VM_THP_FAULT_ALLOC];
	r->fallback = d.v[VM_THP_FAULT_FALLBACK];
	read_events(r);
	read_stats(&r->st);
	read_hist(r);
}

static void fault(size_t size, int advice)
{
	char *p = map_hpage_aligned(size, advice);

	touch_region(p, size);
	munmap(p, size);
}

/* Fault @size bytes with the event on; 0, or run_begin()'s error. */
static int traced_fault(struct run *r, size_t size, int advice)
{
	int err = run_begin(r);

	if (!err)
		fault(size, advice);
	run_end(r);
	return err;
}

static long count_events(const struct run *r, const char *action,
			const char *result)
{
	long n = 0;

	for (int i = 0; i < r->nr; i++)
		n += (!action || !strcmp(r->ev[i].action, action)) &&
		     (!result || !strcmp(r->ev[i].result, result));
	return n;
}

static long stat_sum(const struct run *r, int c)
{
	long sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		sum += stat_of(&r->st, n, c);
	return sum;
}

#define EVENT_SUM(r, field) ({					\
	long _s = 0;					\
	for (int _i = 0; _i < (r)->nr; _i++)				\
		_s += (r)->ev[_i].field;				\
	_s; })

/*
 * What holds for every run: each event is whole and self-consistent, the
 * events add up to the counters, the counters to vmstat, and the
 * histograms to the counters.
 */
static void expect_consistent(struct __test_metadata *_metadata,
			      const struct run *r)
{
	long decided = r->nr - count_events(r, ACTION_NAME(PASSTHROUGH), NULL);
	long counted_passthrough = 0;

	TH_LOG("%ld events, %ld lost: local %ld remote %ld fallback %ld passthrough %ld; vmstat thp_fault_alloc %ld thp_fault_fallback %ld",
	       r->nr, r->lost, count_events(r, NULL, RESULT_NAME(LOCAL)),
	       count_events(r, NULL, RESULT_NAME(REMOTE)), count_events(r, NULL, RESULT_NAME(FALLBACK)),
	       r->nr - decided, r->alloc, r->fallback);
	EXPECT_EQ(0, r->lost);
	for (int i = 0; i < r->nr; i++) {
		const struct fault_event *e = &r->ev[i];

		EXPECT_EQ(9, e->order);
		if (!strcmp(e->result, RESULT_NAME(LOCAL))) {
			EXPECT_EQ(e->node, e->nid);
		} else if (!strcmp(e->result, RESULT_NAME(REMOTE))) {
			EXPECT_TRUE(e->nid >= 0 && e->nid != e->node);
		} else {
			EXPECT_EQ(-1, e->nid);
		}
		if (!strcmp(e->action, ACTION_NAME(PASSTHROUGH))) {
			EXPECT_STREQ("-", e->result);
			EXPECT_STRNE("-", e->reason);
			counted_passthrough += strcmp(e->reason, REASON_NAME(SCOPE)) != 0;
			continue;
		}
		EXPECT_STREQ("-", e->reason);
		EXPECT_STREQ(e->policy, e->action);
		EXPECT_STRNE("-", e->result);
		if (!strcmp(e->action, ACTION_NAME(COUNT_ONLY))) {
			EXPECT_STREQ(LOCAL_NAME(NOT_RUN), e->local_attempt);
		} else if (!strcmp(e->result, RESULT_NAME(LOCAL))) {
			EXPECT_STREQ(LOCAL_NAME(SUCCEEDED), e->local_attempt);
		} else {
			EXPECT_STREQ(LOCAL_NAME(FAILED), e->local_attempt);
		}
		EXPECT_LE(e->compact_success, e->compact_stall);
	}
	EXPECT_EQ(stat_sum(r, THPNUMA_THP_LOCAL), count_events(r, NULL, RESULT_NAME(LOCAL)));
	EXPECT_EQ(stat_sum(r, THPNUMA_THP_REMOTE), count_events(r, NULL, RESULT_NAME(REMOTE)));
	EXPECT_EQ(stat_sum(r, THPNUMA_THP_FALLBACK), count_events(r, NULL, RESULT_NAME(FALLBACK)));
	EXPECT_EQ(stat_sum(r, THPNUMA_PASSTHROUGH), counted_passthrough);
	EXPECT_EQ(stat_sum(r, THPNUMA_COMPACT_STALL), EVENT_SUM(r, compact_stall));
	EXPECT_EQ(stat_sum(r, THPNUMA_COMPACT_SUCCESS), EVENT_SUM(r, compact_success));
	EXPECT_EQ(stat_sum(r, THPNUMA_RECLAIM_STALL), EVENT_SUM(r, reclaim_stall));
	EXPECT_EQ(stat_sum(r, THPNUMA_RECLAIM_PAGES), EVENT_SUM(r, reclaim_pages));
	EXPECT_EQ(stat_sum(r, THPNUMA_ALLOC_NS), EVENT_SUM(r, alloc_ns));
	/* Every THP fault was one event: the kernel counted each once. */
	EXPECT_EQ(r->alloc + r->fallback, r->nr);
	if (decided == r->nr)
		EXPECT_EQ(r->fallback, count_events(r, NULL, RESULT_NAME(FALLBACK)));
	EXPECT_EQ(0, read_probe_missed());

	EXPECT_TRUE(r->hist_header_ok);
	for (int n = 0; n < nr_nodes(); n++) {
		const unsigned long long *count = r->hist_count[n];
		const unsigned long long *sum = r->hist_sum[n];

		EXPECT_EQ(stat_of(&r->st, n, THPNUMA_THP_LOCAL), count[THPNUMA_HIST_LOCAL]);
		EXPECT_EQ(stat_of(&r->st, n, THPNUMA_THP_REMOTE), count[THPNUMA_HIST_REMOTE]);
		EXPECT_EQ(stat_of(&r->st, n, THPNUMA_THP_FALLBACK), count[THPNUMA_HIST_FALLBACK]);
		EXPECT_EQ(stat_of(&r->st, n, THPNUMA_ALLOC_NS),
			  sum[THPNUMA_HIST_LOCAL] + sum[THPNUMA_HIST_REMOTE] +
			  sum[THPNUMA_HIST_FALLBACK]);
	}
}

/* Every event is this process's fault on node 0, decided as @policy. */
static void expect_own_faults(struct __test_metadata *_metadata,
			      const struct run *r, const char *policy,
			      unsigned int zone_reclaim, int override)
{
	for (int i = 0; i < r->nr; i++) {
		EXPECT_EQ(getpid(), r->ev[i].pid);
		EXPECT_EQ(0, r->ev[i].node);
		EXPECT_STREQ(policy, r->ev[i].policy);
		EXPECT_EQ(zone_reclaim, r->ev[i].zone_reclaim);
		EXPECT_EQ(override, r->ev[i].override);
	}
}

/* Each of this process's faults was passed through for @reason. */
static void expect_passed_through(struct __test_metadata *_metadata,
				  const struct run *r, const char *policy,
				  unsigned int zone_reclaim, const char *reason)
{
	expect_consistent(_metadata, r);
	expect_own_faults(_metadata, r, policy, zone_reclaim, 0);
	EXPECT_EQ(REGION_THPS, r->nr);
	EXPECT_EQ(r->nr, count_events(r, ACTION_NAME(PASSTHROUGH), RESULT_NAME(NONE)));
	for (int i = 0; i < r->nr; i++)
		EXPECT_STREQ(reason, r->ev[i].reason);
}

FIXTURE(trace) {
	struct thp_knobs knobs;
	struct run *run;
	pid_t hog;
};

FIXTURE_VARIANT(trace) {
	const char *policy;
	unsigned int zone_reclaim;
};

FIXTURE_VARIANT_ADD(trace, kernel) { .policy = "kernel" };
FIXTURE_VARIANT_ADD(trace, strict_local) { .policy = "strict-local" };
FIXTURE_VARIANT_ADD(trace, local_then_remote_zr0) {
	.policy = "local-then-remote",
};
FIXTURE_VARIANT_ADD(trace, local_then_remote_zr4) {
	.policy = "local-then-remote",
	.zone_reclaim = 4,
};

FIXTURE_SETUP(trace)
{
	char params[96];

	self->hog = -1;
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	thp_knobs_save(&self->knobs);
	thp_knobs_quiet("madvise", "madvise");
	snprintf(params, sizeof(params), "policy=%s zone_reclaim=%u",
		 variant->policy, variant->zone_reclaim);
	ASSERT_EQ(0, module_fresh_load(params));
	ASSERT_EQ(0, access(FAULT_EVENT_DIR "/format", R_OK));
	pin_to_node(0);
	drop_caches();
}

FIXTURE_TEARDOWN(trace)
{
	tracing("0");
	stop_hog(self->hog);
	set_mempolicy_nodes(MPOL_DEFAULT, 0);
	if (module_loaded())
		module_unload();
	thp_knobs_restore(&self->knobs);
	free(self->run);
}

TEST_F_TIMEOUT(trace, free_node, 120)
{
	struct run *r = self->run;

	ASSERT_EQ(0, traced_fault(r, REGION, MADV_HUGEPAGE));
	expect_consistent(_metadata, r);
	expect_own_faults(_metadata, r, variant->policy, variant->zone_reclaim, 0);
	EXPECT_EQ(REGION_THPS, r->nr);
	EXPECT_EQ(r->nr, count_events(r, variant->policy, RESULT_NAME(LOCAL)));
}

TEST_F_TIMEOUT(trace, full_node, 600)
{
	struct run *r = self->run;

	if (!swap_active())
		SKIP(return, "no swap device: the full node needs zram swap");
	self->hog = start_storm_hog();
	ASSERT_LT(0, self->hog);
	ASSERT_EQ(0, traced_fault(r, STORM_REGION, MADV_HUGEPAGE));
	expect_consistent(_metadata, r);
	expect_own_faults(_metadata, r, variant->policy, variant->zone_reclaim, 0);
	EXPECT_EQ(STORM_THPS, r->nr);
	/* What each policy guarantees, fault by fault. */
	for (int i = 0; i < r->nr; i++) {
		const struct fault_event *e = &r->ev[i];

		if (!strcmp(variant->policy, "strict-local"))
			EXPECT_STRNE(RESULT_NAME(REMOTE), e->result);
		if (!strcmp(variant->policy, "local-then-remote") &&
		    !variant->zone_reclaim)
			EXPECT_EQ(0ULL, e->reclaim_stall);
	}
}

/* thp-remote-latency fragments node 0 until a local THP fails, then faults. */
TEST_F_TIMEOUT(trace, fragmented_node, 300)
{
	struct run *r = self->run;

	ASSERT_EQ(0, run_begin(r));
	ASSERT_EQ(0, system("thp-remote-latency --node 0 --no-baselines --region 16M --accesses 1000 > /dev/null"));
	run_end(r);
	expect_consistent(_metadata, r);
	EXPECT_LE(8, r->nr);
	for (int i = 0; i < r->nr; i++)
		EXPECT_STREQ(variant->policy, r->ev[i].policy);
}

TEST_F_TIMEOUT(trace, mempolicy_is_passthrough, 120)
{
	struct run *r = self->run;

	ASSERT_EQ(0, set_mempolicy_nodes(MPOL_BIND, 1UL << 1));
	ASSERT_EQ(0, traced_fault(r, REGION, MADV_HUGEPAGE));
	set_mempolicy_nodes(MPOL_DEFAULT, 0);
	expect_passed_through(_metadata, r, variant->policy,
			      variant->zone_reclaim, REASON_NAME(MEMPOLICY));
}

TEST_F_TIMEOUT(trace, cpuset_is_passthrough, 120)
{
	struct run *r = self->run;

	if (!cpuset_available())
		SKIP(return, "no cgroup-v2 cpuset controller");
	ASSERT_EQ(0, cpuset_enter("thpnuma-trace", "1"));
	pin_to_node(0);
	ASSERT_EQ(0, traced_fault(r, REGION, MADV_HUGEPAGE));
	cpuset_leave("thpnuma-trace");
	expect_passed_through(_metadata, r, variant->policy,
			      variant->zone_reclaim, REASON_NAME(CPUSET));
}

/* scope=madvise: unadvised THP faults are traced, and not counted. */
TEST_F_TIMEOUT(trace, out_of_scope_is_traced, 120)
{
	struct run *r = self->run;

	ASSERT_EQ(0, write_file(THP_SYSFS "/enabled", "always"));
	ASSERT_EQ(0, write_file(THPNUMA_DEBUGFS "/scope", "madvise"));
	ASSERT_EQ(0, traced_fault(r, REGION, 0));
	expect_passed_through(_metadata, r, variant->policy,
			      variant->zone_reclaim, REASON_NAME(SCOPE));
}

/* A per-process override decides, and its event says so. */
TEST_F_TIMEOUT(trace, override_decides, 120)
{
	const char *other = strcmp(variant->policy, "strict-local") ?
			    "strict-local" : "local-then-remote";
	struct run *r = self->run;
	char line[64];

	snprintf(line, sizeof(line), "%d %s 1", getpid(), other);
	ASSERT_EQ(0, write_file(THPNUMA_DEBUGFS "/tasks", line));
	ASSERT_EQ(0, traced_fault(r, REGION, MADV_HUGEPAGE));
	snprintf(line, sizeof(line), "%d default", getpid());
	write_file(THPNUMA_DEBUGFS "/tasks", line);
	expect_consistent(_metadata, r);
	expect_own_faults(_metadata, r, other, 1, 1);
	EXPECT_EQ(REGION_THPS, r->nr);
	EXPECT_EQ(r->nr, count_events(r, other, RESULT_NAME(LOCAL)));
}

/*
 * The event goes with the module: its directory too, and the kernel
 * clears the buffer of its entries; loaded again, the event starts off.
 */
TEST(unload_with_the_event_enabled)
{
	struct run *r = calloc(1, sizeof(*r));
	char enabled[8] = "";

	ASSERT_NE(NULL, r);
	pin_to_node(0);
	for (int cycle = 0; cycle < 3; cycle++) {
		ASSERT_EQ(0, module_fresh_load("policy=local-then-remote"));
		ASSERT_EQ(0, run_begin(r));
		fault(8 * MiB, MADV_HUGEPAGE);
		read_events(r);
		EXPECT_EQ(4, r->nr);
		ASSERT_EQ(0, module_unload());
		EXPECT_NE(0, access(TRACEFS "/events/thpnuma", F_OK));
		read_events(r);
		EXPECT_EQ(0, r->nr);
	}
	ASSERT_EQ(0, module_fresh_load("policy=kernel"));
	EXPECT_EQ(0, read_file(FAULT_EVENT_DIR "/enable", enabled, sizeof(enabled)) < 0);
	EXPECT_EQ('0', enabled[0]);
	ASSERT_EQ(0, module_unload());
	free(r);
}

/*
 * What perf record does in the kernel: a tracepoint perf event. It counts
 * every fault of the task, and holds the module while it is open.
 */
TEST(perf_event_counts_and_holds_the_module)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_TRACEPOINT,
		.size		= sizeof(attr),
	};
	char id[32] = "";
	uint64_t count = 0;
	int fd;

	pin_to_node(0);
	ASSERT_EQ(0, module_fresh_load("policy=strict-local"));
	ASSERT_LT(0, read_file(FAULT_EVENT_DIR "/id", id, sizeof(id)));
	attr.config = strtoull(id, NULL, 10);
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("perf_event_open: %s", strerror(errno));
	fault(16 * MiB, MADV_HUGEPAGE);
	ASSERT_EQ((ssize_t)sizeof(count), read(fd, &count, sizeof(count)));
	EXPECT_EQ((uint64_t)8, count);
	EXPECT_EQ(-EWOULDBLOCK, module_unload());
	EXPECT_TRUE(module_loaded());
	close(fd);
	EXPECT_EQ(0, module_unload());
}

TEST_HARNESS_MAIN
