/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-task tables: hooked allocations in flight, and faults with a
 * pending fallback. Both are hashed by task; only a task itself adds,
 * finds or removes its entries, so a lookup reads one bucket head when no
 * task hashing there has one.
 */
#ifndef THPNUMA_INFLIGHT_H
#define THPNUMA_INFLIGHT_H

#include <linux/hash.h>
#include <linux/list_bl.h>
#include <linux/sched.h>
#include "thpnuma.h"

/* inflight_alloc.local_effort outside the local attempt. */
#define NO_LOCAL_ATTEMPT	(-1)

/* What both tables hash: the entry's task, one entry per task. */
struct task_entry {
	struct hlist_bl_node hash;
	struct task_struct *task;
};

/* A hooked allocation, on its task's stack for exactly its duration. */
struct inflight_alloc {
	struct task_entry entry;
	int local_effort;	/* zone_reclaim during the local attempt */
	int reclaim_node;	/* first node direct reclaim scanned */
	/*
	 * The budget policy's local attempt: past this time its reclaim
	 * stops (0: never), and whether it had to.
	 */
	u64 deadline_ns;
	bool cut;
	/* The faulting CPU's node and what the fault cost, as traced. */
	struct thpnuma_fault_record record;
};

/*
 * A fault that tried THP orders in vain so far (mTHP, shmem): counted
 * once, when it ends (account.c).
 */
struct pending_fallback {
	struct task_entry entry;
	unsigned int policy;
	unsigned int last_order;	/* the fault's latest failed attempt */
	/* The fault's first attempt; alloc_ns sums every attempt. */
	struct thpnuma_fault_record record;
};

extern struct hlist_bl_head *thpnuma_pending_buckets;
extern unsigned int thpnuma_task_hash_bits;
/* Pending fallbacks in the table; written only by faults that failed. */
extern atomic_t thpnuma_pending_nr;

static inline struct hlist_bl_head *pending_bucket(struct task_struct *task)
{
	return &thpnuma_pending_buckets[hash_ptr(task, thpnuma_task_hash_bits)];
}

/*
 * Whether @task may have a pending fallback. Asked only by @task itself
 * or for it as it exits, after it counted its own entry in: a zero count
 * is exact for it. While no fault anywhere has one, one shared read.
 */
static __always_inline bool pending_maybe(struct task_struct *task)
{
	return atomic_read(&thpnuma_pending_nr) &&
	       !hlist_bl_empty(pending_bucket(task));
}

void inflight_enter(struct inflight_alloc *alloc);
void inflight_exit(struct inflight_alloc *alloc);
/* The current task's hooked allocation, if any (compaction, reclaim). */
struct inflight_alloc *inflight_find(void);

/* @task's pending fallback, taken out of the table; NULL if none. */
struct pending_fallback *pending_take(struct task_struct *task);
void pending_put(struct pending_fallback *p);

/* Tasks inside a replacement allocator; the sum over CPUs is exact. */
DECLARE_PER_CPU(long, thpnuma_replacing);
long thpnuma_replacing_sum(void);

int thpnuma_inflight_init(void);
/* After the last hooked call: frees the pending fallbacks left. */
void thpnuma_inflight_exit(void);

#endif /* THPNUMA_INFLIGHT_H */
