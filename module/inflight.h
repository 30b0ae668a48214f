/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-task tables: hooked allocations in flight, and faults with a
 * pending fallback. Both are hashed by task; only a task itself adds,
 * finds or removes its entries. An allocation in flight takes its
 * bucket's slot without a lock when no other task holds it, and goes on
 * the bucket's locked list when one does: a lookup reads the list's head
 * and the slot when no task hashing there has one, a pending fallback's
 * lookup the list's head.
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

/* A bucket's slot: one task's allocation in flight, claimed by cmpxchg. */
struct inflight_slot {
	struct task_struct *task;
	struct inflight_alloc *alloc;
};

/* A hooked allocation, on its task's stack for exactly its duration. */
struct inflight_alloc {
	struct task_entry entry;
	struct inflight_slot *slot;	/* NULL: on the bucket's list */
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

extern struct inflight_slot *thpnuma_inflight_slots;
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

void inflight_enter_listed(struct inflight_alloc *alloc);
void inflight_exit_listed(struct inflight_alloc *alloc);

/*
 * Every THP attempt enters and exits: in the slot, one cmpxchg and one
 * store. Only @alloc's task reads the slot's alloc, once it finds its own
 * task there, so the release store at exit is all another task needs.
 */
static __always_inline void inflight_enter(struct inflight_alloc *alloc)
{
	struct inflight_slot *slot =
		&thpnuma_inflight_slots[hash_ptr(current, thpnuma_task_hash_bits)];

	alloc->local_effort = NO_LOCAL_ATTEMPT;
	alloc->reclaim_node = NUMA_NO_NODE;
	if (likely(!READ_ONCE(slot->task)) &&
	    likely(!cmpxchg(&slot->task, NULL, current))) {
		slot->alloc = alloc;
		alloc->slot = slot;
		return;
	}
	inflight_enter_listed(alloc);
}

static __always_inline void inflight_exit(struct inflight_alloc *alloc)
{
	if (likely(alloc->slot)) {
		/* The next owner's stores to the slot come after ours. */
		smp_store_release(&alloc->slot->task, NULL);
	} else {
		inflight_exit_listed(alloc);
	}
}

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
