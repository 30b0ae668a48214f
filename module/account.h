/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A THP fault's record and its accounting: each fault counted once, in the
 * per-node, per-policy, per-order counters and the latency histogram.
 */
#ifndef THPNUMA_ACCOUNT_H
#define THPNUMA_ACCOUNT_H

#include "thpnuma.h"

/* A THP fault's record before its allocation: who, where, what rules. */
struct thpnuma_fault_record thpnuma_fault_record(int node, u64 config,
						 bool overridden,
						 enum thpnuma_action action,
						 unsigned int kind,
						 unsigned int order);
/* Where the THP came from (NULL: nowhere), for the record. */
void thpnuma_record_result(struct thpnuma_fault_record *r,
			   struct thpnuma_thp *thp);

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
