/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters thpnuma exports, defined once: the module, thpnumactl and
 * the tests all take their names, order and meaning from these tables.
 * Plain C with no kernel dependencies, like policy.h.
 *
 * Adding a counter is one line here (identifier, column name, meaning);
 * the stats and policies files, thpnumactl's table, JSON and Prometheus
 * output and the guest tests' parser all follow from it.
 */
#ifndef THPNUMA_COUNTERS_H
#define THPNUMA_COUNTERS_H

/* Per node: the columns of the stats file and the nodeN/ files. */
#define THPNUMA_NODE_COUNTERS(C)					\
	C(THP_LOCAL,	   thp_local,	    "THP faults placed on the faulting CPU's node.") \
	C(THP_REMOTE,	   thp_remote,	    "THP faults placed on another node.") \
	C(THP_FALLBACK,	   thp_fallback,    "THP faults that fell back to small pages.") \
	C(PASSTHROUGH,	   passthrough,	    "THP allocations left to the kernel's own policy.") \
	C(THP_REMOTE_IN,   thp_remote_in,   "THPs this node received for faults from other nodes.") \
	C(COMPACT_STALL,   compact_stall,   "Direct compaction attempts during THP faults.") \
	C(COMPACT_SUCCESS, compact_success, "Direct compactions that yielded a huge page.") \
	C(COMPACT_FAIL,	   compact_fail,    "Direct compactions that did not yield a huge page.") \
	C(RECLAIM_STALL,   reclaim_stall,   "Direct reclaim attempts during THP faults.") \
	C(RECLAIM_PAGES,   reclaim_pages,   "Pages reclaimed during THP faults.") \
	C(ALLOC_NS,	   alloc_ns,	    "Time spent allocating THPs.") \
	C(BUDGET_SKIP,	   budget_skip,	    "Local attempts of the budget policy that skipped compaction and reclaim: the node's recent ones cost more than the budget.")

/* Per policy: the columns of the policies file after "policy tasks". */
#define THPNUMA_POLICY_COUNTERS(C)					\
	C(THP_LOCAL,	thp_local,    "THP faults placed on the faulting CPU's node.") \
	C(THP_REMOTE,	thp_remote,   "THP faults placed on another node.") \
	C(THP_FALLBACK,	thp_fallback, "THP faults that fell back to small pages.") \
	C(PASSTHROUGH,	passthrough,  "THP faults left to the kernel's own policy.") \
	C(BY_OVERRIDE,	by_override,  "THP faults decided by a per-process override or a per-cgroup setting.")

/*
 * Per cgroup with a setting: the columns of the cgroup_stats file after
 * "cgroup", counting the THP faults the cgroup's setting decided.
 */
#define THPNUMA_CGROUP_COUNTERS(C)					\
	C(THP_LOCAL,	thp_local,    "THP faults placed on the faulting CPU's node.") \
	C(THP_REMOTE,	thp_remote,   "THP faults placed on another node.") \
	C(THP_FALLBACK,	thp_fallback, "THP faults that fell back to small pages.") \
	C(PASSTHROUGH,	passthrough,  "THP faults left to the kernel's own policy.") \
	C(ALLOC_NS,	alloc_ns,     "Time spent allocating THPs.")

#define THPNUMA_COUNTER_ENUM(id, name, help)		THPNUMA_##id,
#define THPNUMA_POLICY_COUNTER_ENUM(id, name, help)	THPNUMA_PC_##id,
#define THPNUMA_CGROUP_COUNTER_ENUM(id, name, help)	THPNUMA_CG_##id,

enum thpnuma_counter {
	THPNUMA_NODE_COUNTERS(THPNUMA_COUNTER_ENUM)
	THPNUMA_NR_COUNTERS
};

enum thpnuma_policy_counter {
	THPNUMA_POLICY_COUNTERS(THPNUMA_POLICY_COUNTER_ENUM)
	THPNUMA_NR_POLICY_COUNTERS
};

enum thpnuma_cgroup_counter {
	THPNUMA_CGROUP_COUNTERS(THPNUMA_CGROUP_COUNTER_ENUM)
	THPNUMA_NR_CGROUP_COUNTERS
};

/*
 * The lists of names, once each: an EM(value, "name") per enumerator and
 * EMe() for the last, as include/trace/events/migrate.h writes its
 * MIGRATE_REASON. policy.h, names.c, tracepoints.h and thpnumactl derive
 * the enum, the names array, the trace event's TRACE_DEFINE_ENUM and
 * __print_symbolic, and the usage text from them with these.
 */
#define THPNUMA_EM_ENUM(a, b)		a,
#define THPNUMA_EM_NAME(a, b)		[a] = b,
#define THPNUMA_EM_COUNT(a, b)		+ 1
/* "a|b|c", a string literal. */
#define THPNUMA_EM_CHOICE(a, b)		b "|"
#define THPNUMA_EM_CHOICE_LAST(a, b)	b

/*
 * The THP kinds thpnuma covers, one per fault path: anonymous memory (PMD
 * size and, since 6.8, the smaller mTHP orders), shmem/tmpfs, and the
 * swap-in of anonymous memory as a large folio (6.12+).
 */
#define THPNUMA_KINDS(EM, EMe)				\
	EM(THPNUMA_KIND_ANON,		"anon")		\
	EM(THPNUMA_KIND_SHMEM,		"shmem")	\
	EMe(THPNUMA_KIND_SWAPIN,	"swapin")

enum thpnuma_kind {
	THPNUMA_KINDS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum { THPNUMA_NR_KINDS = 0 THPNUMA_KINDS(THPNUMA_EM_COUNT, THPNUMA_EM_COUNT) };

/*
 * Per node, kind and order: the rows of the orders file. One count per
 * fault at the order the kernel finally mapped; a fault that ended on
 * small pages counts as a fallback at the largest order it tried.
 */
#define THPNUMA_ORDER_OUTCOMES(C)					\
	C(LOCAL,       local,	    "THPs of this order placed on the faulting CPU's node.") \
	C(REMOTE,      remote,	    "THPs of this order placed on another node.") \
	C(FALLBACK,    fallback,    "Faults that tried this order first and got small pages.") \
	C(PASSTHROUGH, passthrough, "Allocations of this order left to the kernel's own policy.")

#define THPNUMA_ORDER_OUTCOME_ENUM(id, name, help)	THPNUMA_ORDER_##id,

enum thpnuma_order_outcome {
	THPNUMA_ORDER_OUTCOMES(THPNUMA_ORDER_OUTCOME_ENUM)
	THPNUMA_NR_ORDER_OUTCOMES
};

/* The largest THP order: the PMD order on x86_64 (2 MiB). */
#define THPNUMA_MAX_THP_ORDER	9
#define THPNUMA_ORDER_SLOTS	(THPNUMA_MAX_THP_ORDER + 1)
/* A node's slots: [kind][order][outcome], orders 0 (unused) to max. */
#define THPNUMA_ORDERS_PER_NODE \
	(THPNUMA_NR_KINDS * THPNUMA_ORDER_SLOTS * THPNUMA_NR_ORDER_OUTCOMES)

static inline unsigned int thpnuma_order_slot(unsigned int kind,
					      unsigned int order,
					      unsigned int outcome)
{
	return (kind * THPNUMA_ORDER_SLOTS + order) *
	       THPNUMA_NR_ORDER_OUTCOMES + outcome;
}

/*
 * Latency histograms of hooked allocations, per faulting node and outcome.
 * Each outcome's count equals its counter above; the sums over outcomes
 * equal alloc_ns.
 */
#define THPNUMA_HIST_OUTCOMES(C)	\
	C(LOCAL,    local)		\
	C(REMOTE,   remote)		\
	C(FALLBACK, fallback)

#define THPNUMA_HIST_OUTCOME_ENUM(id, name)	THPNUMA_HIST_##id,

enum thpnuma_hist_outcome {
	THPNUMA_HIST_OUTCOMES(THPNUMA_HIST_OUTCOME_ENUM)
	THPNUMA_NR_HIST_OUTCOMES
};

/*
 * log2 buckets in ns: bucket 0 holds [0, 2^10), bucket b holds
 * [2^(9+b), 2^(10+b)), and the last holds 2^34 ns (17.2 s) and more:
 * from under 1 us to over 10 s.
 */
#define THPNUMA_HIST_FIRST_SHIFT	10
#define THPNUMA_HIST_LAST_SHIFT		34
#define THPNUMA_HIST_BUCKETS \
	(THPNUMA_HIST_LAST_SHIFT - THPNUMA_HIST_FIRST_SHIFT + 2)

static inline unsigned int thpnuma_hist_bucket(unsigned long long ns)
{
	int shift;

	if (ns < (1ULL << THPNUMA_HIST_FIRST_SHIFT))
		return 0;
	shift = 63 - __builtin_clzll(ns);
	if (shift >= THPNUMA_HIST_LAST_SHIFT)
		return THPNUMA_HIST_BUCKETS - 1;
	return shift - THPNUMA_HIST_FIRST_SHIFT + 1;
}

/* Bucket @b's exclusive upper bound in ns; 0 for the last, unbounded one. */
static inline unsigned long long thpnuma_hist_bound(unsigned int b)
{
	if (b >= THPNUMA_HIST_BUCKETS - 1)
		return 0;
	return 1ULL << (THPNUMA_HIST_FIRST_SHIFT + b);
}

/*
 * One histogram: its buckets, then the sum of the times. The module keeps
 * [nid][outcome] of these per CPU.
 */
#define THPNUMA_HIST_SUM	THPNUMA_HIST_BUCKETS
#define THPNUMA_HIST_SLOTS	(THPNUMA_HIST_BUCKETS + 1)
/* A node's histograms: every outcome's slots, one after the other. */
#define THPNUMA_HIST_PER_NODE	(THPNUMA_NR_HIST_OUTCOMES * THPNUMA_HIST_SLOTS)

/* The faults one histogram (@h: its slots) counted: its buckets' sum. */
static inline unsigned long long
thpnuma_hist_count(const unsigned long long *h)
{
	unsigned long long count = 0;
	unsigned int b;

	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		count += h[b];
	return count;
}

/* Column names and one-line meanings, indexed by the enums above. */
extern const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS];
extern const char *const thpnuma_counter_help[THPNUMA_NR_COUNTERS];
extern const char *const thpnuma_policy_counter_names[THPNUMA_NR_POLICY_COUNTERS];
extern const char *const thpnuma_policy_counter_help[THPNUMA_NR_POLICY_COUNTERS];
extern const char *const thpnuma_cgroup_counter_names[THPNUMA_NR_CGROUP_COUNTERS];
extern const char *const thpnuma_cgroup_counter_help[THPNUMA_NR_CGROUP_COUNTERS];
extern const char *const thpnuma_hist_outcome_names[THPNUMA_NR_HIST_OUTCOMES];
extern const char *const thpnuma_kind_names[THPNUMA_NR_KINDS];
extern const char *const thpnuma_order_outcome_names[THPNUMA_NR_ORDER_OUTCOMES];
extern const char *const thpnuma_order_outcome_help[THPNUMA_NR_ORDER_OUTCOMES];

#endif /* THPNUMA_COUNTERS_H */
