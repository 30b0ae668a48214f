/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A THP fault's record and its accounting: each fault counted once, in the
 * per-node, per-policy, per-order counters and the latency histogram.
 */
#ifndef THPNUMA_ACCOUNT_H
#define THPNUMA_ACCOUNT_H

#include <linux/numa.h>
#include "thpnuma.h"

/* A THP fault's record before its allocation: who, where, what rules. */
static inline struct thpnuma_fault_record
thpnuma_fault_record(int node, u64 config, bool overridden,
		     enum thpnuma_action action, unsigned int kind,
		     unsigned int order)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	return (struct thpnuma_fault_record) {
		.node		= node,
		.nid		= NUMA_NO_NODE,
		.policy		= cfg.policy,
		.zone_reclaim	= cfg.zone_reclaim,
		.budget_us	= cfg.budget_us,
		.override	= overridden,
		.action		= action,
		.result		= THPNUMA_RESULT_NONE,
		.kind		= kind,
		.order		= order,
	};
}

/* The node the THP came from (NUMA_NO_NODE: none), for the record. */
static inline void thpnuma_record_result(struct thpnuma_fault_record *r,
					 int nid)
{
	r->nid = nid;
	if (nid == NUMA_NO_NODE)
		r->result = THPNUMA_RESULT_FALLBACK;
	else
		r->result = nid == r->node ? THPNUMA_RESULT_LOCAL :
					     THPNUMA_RESULT_REMOTE;
}

/* A fault that ends with this attempt (the anonymous PMD fault). */
void thpnuma_account_fault(const struct thpnuma_fault_record *r,
			   unsigned int policy);
/* One attempt of a fault that steps down through orders (mTHP, shmem). */
void thpnuma_account_attempt(const struct thpnuma_fault_record *r,
			     unsigned int policy);
/*
 * @task's fault ended without a THP: its small page's allocation, a call
 * the kernel takes over, or the task's exit. Counts its pending fallback.
 */
void thpnuma_pending_end(struct task_struct *task);

/* The trace event of a THP fault left to the kernel (@fault's reason). */
void thpnuma_trace_passthrough(int node, u64 config, bool overridden,
			       const struct thpnuma_fault *fault,
			       unsigned int order);

/*
 * A hooked call of a THP order from no fault path: our own calls (the
 * kernel policy's), the kernel's known other callers, or one the policy
 * misses, such as a livepatched copy of a fault path that the load's
 * checks never saw. Counted (unmatched_thp_calls) and warned about once.
 */
void thpnuma_unmatched_call(unsigned long parent_ip, unsigned int order);

/* Also finds the known other callers (compat.h's THPNUMA_OTHER_CALLERS). */
int thpnuma_account_init(void);
void thpnuma_account_exit(void);

#endif /* THPNUMA_ACCOUNT_H */
