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
	C(PASSTHROUGH,	   passthrough,	    "THP faults left to the kernel's own policy.") \
	C(THP_REMOTE_IN,   thp_remote_in,   "THPs this node received for faults from other nodes.") \
	C(COMPACT_STALL,   compact_stall,   "Direct compaction attempts during THP faults.") \
	C(COMPACT_SUCCESS, compact_success, "Direct compactions that yielded a huge page.") \
	C(COMPACT_FAIL,	   compact_fail,    "Direct compactions that did not yield a huge page.") \
	C(RECLAIM_STALL,   reclaim_stall,   "Direct reclaim attempts during THP faults.") \
	C(RECLAIM_PAGES,   reclaim_pages,   "Pages reclaimed during THP faults.") \
	C(ALLOC_NS,	   alloc_ns,	    "Time spent allocating THPs.")

/* Per policy: the columns of the policies file after "policy tasks". */
#define THPNUMA_POLICY_COUNTERS(C)					\
	C(THP_LOCAL,	thp_local,    "THP faults placed on the faulting CPU's node.") \
	C(THP_REMOTE,	thp_remote,   "THP faults placed on another node.") \
	C(THP_FALLBACK,	thp_fallback, "THP faults that fell back to small pages.") \
	C(PASSTHROUGH,	passthrough,  "THP faults left to the kernel's own policy.") \
	C(BY_OVERRIDE,	by_override,  "THP faults decided by a per-process override.")

#define THPNUMA_COUNTER_ENUM(id, name, help)		THPNUMA_##id,
#define THPNUMA_POLICY_COUNTER_ENUM(id, name, help)	THPNUMA_PC_##id,

enum thpnuma_counter {
	THPNUMA_NODE_COUNTERS(THPNUMA_COUNTER_ENUM)
	THPNUMA_NR_COUNTERS
};

enum thpnuma_policy_counter {
	THPNUMA_POLICY_COUNTERS(THPNUMA_POLICY_COUNTER_ENUM)
	THPNUMA_NR_POLICY_COUNTERS
};

/* Column names and one-line meanings, indexed by the enums above. */
extern const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS];
extern const char *const thpnuma_counter_help[THPNUMA_NR_COUNTERS];
extern const char *const thpnuma_policy_counter_names[THPNUMA_NR_POLICY_COUNTERS];
extern const char *const thpnuma_policy_counter_help[THPNUMA_NR_POLICY_COUNTERS];

#endif /* THPNUMA_COUNTERS_H */
