// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task tables (inflight.h). Each entry lives exactly as long as
 * what it stands for: an in-flight allocation on its task's stack, a
 * pending fallback until its fault ends. No capacity to run out of, and
 * the bucket lock keeps other tasks' entries stable while a chain is
 * walked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include "inflight.h"

/* Enough buckets that a chain stays short with every CPU faulting. */
#define TASK_HASH_MIN_BUCKETS	1024

/*
 * Lets the VM tests crowd a few buckets, so that allocations in flight go
 * on the locked lists as well as in the slots.
 */
static unsigned int test_task_hash_bits;
module_param(test_task_hash_bits, uint, 0400);
MODULE_PARM_DESC(test_task_hash_bits,
		 "For tests only: 2^N buckets in the per-task tables (1-10; 0: sized by the CPUs)");

struct inflight_slot *thpnuma_inflight_slots;
static struct hlist_bl_head *inflight_buckets;
struct hlist_bl_head *thpnuma_pending_buckets;
unsigned int thpnuma_task_hash_bits;
atomic_t thpnuma_pending_nr = ATOMIC_INIT(0);

DEFINE_PER_CPU(long, thpnuma_replacing);

static struct hlist_bl_head *inflight_bucket(struct task_struct *task)
{
	return &inflight_buckets[hash_ptr(task, thpnuma_task_hash_bits)];
}

static void entry_add(struct hlist_bl_head *head, struct task_entry *e)
{
	e->task = current;
	hlist_bl_lock(head);
	hlist_bl_add_head(&e->hash, head);
	hlist_bl_unlock(head);
}

/* @task's entry in @head, unlinked if @take. The newest first. */
static struct task_entry *entry_find(struct hlist_bl_head *head,
				     struct task_struct *task, bool take)
{
	struct task_entry *e, *found = NULL;
	struct hlist_bl_node *pos;

	/*
	 * Lockless: an entry of the current task's was added by it, so it
	 * is visible here; anyone else's is not what we look for. An
	 * exiting task looks up only its own.
	 */
	if (hlist_bl_empty(head))
		return NULL;
	hlist_bl_lock(head);
	hlist_bl_for_each_entry(e, pos, head, hash) {
		if (e->task == task) {
			if (take)
				hlist_bl_del(&e->hash);
			found = e;
			break;
		}
	}
	hlist_bl_unlock(head);
	return found;
}

/* Another task holds the bucket's slot (or this one, nested). */
void inflight_enter_listed(struct inflight_alloc *alloc)
{
	alloc->slot = NULL;
	entry_add(inflight_bucket(current), &alloc->entry);
}

void inflight_exit_listed(struct inflight_alloc *alloc)
{
	struct hlist_bl_head *head = inflight_bucket(alloc->entry.task);

	hlist_bl_lock(head);
	hlist_bl_del(&alloc->entry.hash);
	hlist_bl_unlock(head);
}

/*
 * The listed allocation first: a task that holds the slot lists an
 * allocation nested in it. No fault path nests them; if one did, an
 * outer allocation listed while another task held the slot would be
 * found before an inner one in the slot.
 */
struct inflight_alloc *inflight_find(void)
{
	unsigned int bucket = hash_ptr(current, thpnuma_task_hash_bits);
	struct inflight_slot *slot = &thpnuma_inflight_slots[bucket];
	struct task_entry *e;

	e = entry_find(&inflight_buckets[bucket], current, false);
	if (e)
		return container_of(e, struct inflight_alloc, entry);
	return READ_ONCE(slot->task) == current ? slot->alloc : NULL;
}

struct pending_fallback *pending_take(struct task_struct *task)
{
	struct task_entry *e = entry_find(pending_bucket(task), task, true);

	if (!e)
		return NULL;
	atomic_dec(&thpnuma_pending_nr);
	return container_of(e, struct pending_fallback, entry);
}

void pending_put(struct pending_fallback *p)
{
	atomic_inc(&thpnuma_pending_nr);
	entry_add(pending_bucket(current), &p->entry);
}

long thpnuma_replacing_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(thpnuma_replacing, cpu);
	return sum;
}

static void tables_free(void)
{
	kvfree(thpnuma_pending_buckets);
	kvfree(inflight_buckets);
	kvfree(thpnuma_inflight_slots);
	thpnuma_pending_buckets = NULL;
	inflight_buckets = NULL;
	thpnuma_inflight_slots = NULL;
}

int thpnuma_inflight_init(void)
{
	unsigned int nr = max_t(unsigned int, 4 * num_possible_cpus(),
				TASK_HASH_MIN_BUCKETS);

	thpnuma_task_hash_bits = order_base_2(nr);
	if (test_task_hash_bits)
		thpnuma_task_hash_bits = clamp(test_task_hash_bits, 1U, 10U);
	inflight_buckets = kvcalloc(1u << thpnuma_task_hash_bits,
				    sizeof(*inflight_buckets), GFP_KERNEL);
	thpnuma_inflight_slots = kvcalloc(1u << thpnuma_task_hash_bits,
					  sizeof(*thpnuma_inflight_slots),
					  GFP_KERNEL);
	thpnuma_pending_buckets = kvcalloc(1u << thpnuma_task_hash_bits,
					   sizeof(*thpnuma_pending_buckets),
					   GFP_KERNEL);
	if (!inflight_buckets || !thpnuma_inflight_slots ||
	    !thpnuma_pending_buckets) {
		tables_free();
		return -ENOMEM;
	}
	return 0;
}

/* Unload, with no hooked call left: faults cut short count nothing. */
void thpnuma_inflight_exit(void)
{
	struct task_entry *e;
	struct hlist_bl_node *pos, *n;
	unsigned int i;

	for (i = 0; i < 1u << thpnuma_task_hash_bits; i++) {
		hlist_bl_for_each_entry_safe(e, pos, n,
					     &thpnuma_pending_buckets[i], hash) {
			hlist_bl_del(&e->hash);
			kfree(container_of(e, struct pending_fallback, entry));
		}
	}
	atomic_set(&thpnuma_pending_nr, 0);
	tables_free();
}
