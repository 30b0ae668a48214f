// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters: per node, per policy, and the latency histograms. The
 * fault path only adds to its own CPU's copy; readers sum every CPU. Reset
 * records a baseline instead of writing other CPUs' memory, so counters
 * stay monotonic between resets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/mm.h>		/* kvcalloc() */
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "thpnuma.h"

u64 __percpu *thpnuma_counters;
u64 __percpu *thpnuma_policy_counters;
u64 __percpu **thpnuma_hist;

struct counter_set {
	u64 __percpu **pcp;
	u64 *baseline;
	size_t nr;
};

static struct counter_set node_set = { .pcp = &thpnuma_counters };
static struct counter_set policy_set = { .pcp = &thpnuma_policy_counters };
/*
 * One histogram set per possible node: a per-CPU allocation is at most
 * 32 KiB (PCPU_MIN_UNIT_SIZE), which all nodes' histograms together
 * exceed from 51 nodes on.
 */
static struct counter_set *hist_sets;
static DEFINE_MUTEX(thpnuma_counters_lock);

static int counter_set_init(struct counter_set *set, size_t nr)
{
	set->nr = nr;
	*set->pcp = __alloc_percpu(nr * sizeof(u64), __alignof__(u64));
	if (!*set->pcp)
		return -ENOMEM;
	set->baseline = kcalloc(nr, sizeof(u64), GFP_KERNEL);
	if (!set->baseline) {
		free_percpu(*set->pcp);
		*set->pcp = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void counter_set_exit(struct counter_set *set)
{
	kfree(set->baseline);
	free_percpu(*set->pcp);
	*set->pcp = NULL;
}

static void hist_sets_exit(void)
{
	int nid;

	for (nid = 0; nid < nr_node_ids; nid++)
		if (hist_sets[nid].pcp)
			counter_set_exit(&hist_sets[nid]);
	kfree(hist_sets);
	kfree(thpnuma_hist);
}

static int hist_sets_init(void)
{
	int nid, err;

	thpnuma_hist = kcalloc(nr_node_ids, sizeof(*thpnuma_hist), GFP_KERNEL);
	hist_sets = kcalloc(nr_node_ids, sizeof(*hist_sets), GFP_KERNEL);
	if (!thpnuma_hist || !hist_sets) {
		kfree(hist_sets);
		kfree(thpnuma_hist);
		return -ENOMEM;
	}
	for_each_node(nid) {
		hist_sets[nid].pcp = &thpnuma_hist[nid];
		err = counter_set_init(&hist_sets[nid], THPNUMA_HIST_PER_NODE);
		if (err) {
			hist_sets[nid].pcp = NULL;
			hist_sets_exit();
			return err;
		}
	}
	return 0;
}

int thpnuma_counters_init(void)
{
	int err;

	err = counter_set_init(&node_set,
			       (size_t)nr_node_ids * THPNUMA_NR_COUNTERS);
	if (err)
		return err;
	err = counter_set_init(&policy_set, (size_t)THPNUMA_NR_POLICIES *
			       THPNUMA_NR_POLICY_COUNTERS);
	if (err)
		goto err_node;
	err = hist_sets_init();
	if (err)
		goto err_policy;
	return 0;

err_policy:
	counter_set_exit(&policy_set);
err_node:
	counter_set_exit(&node_set);
	return err;
}

void thpnuma_counters_exit(void)
{
	hist_sets_exit();
	counter_set_exit(&policy_set);
	counter_set_exit(&node_set);
}

static void sum_counters(const struct counter_set *set, u64 *sum)
{
	size_t i;
	int cpu;

	memset(sum, 0, set->nr * sizeof(u64));
	for_each_possible_cpu(cpu) {
		const u64 *pcp = per_cpu_ptr(*set->pcp, cpu);

		for (i = 0; i < set->nr; i++)
			sum[i] += READ_ONCE(pcp[i]);
	}
}

/* @set's counters since the last reset, into @snap; under the lock. */
static void counter_set_read(const struct counter_set *set, u64 *snap)
{
	size_t i;

	sum_counters(set, snap);
	for (i = 0; i < set->nr; i++)
		snap[i] -= set->baseline[i];
}

/* Counters since the last reset; the caller kvfree()s the array. */
static u64 *counter_set_snapshot(const struct counter_set *set)
{
	u64 *snap = kvcalloc(set->nr, sizeof(u64), GFP_KERNEL);

	if (!snap)
		return NULL;
	mutex_lock(&thpnuma_counters_lock);
	counter_set_read(set, snap);
	mutex_unlock(&thpnuma_counters_lock);
	return snap;
}

u64 *thpnuma_counters_snapshot(void)
{
	return counter_set_snapshot(&node_set);
}

u64 *thpnuma_policy_counters_snapshot(void)
{
	return counter_set_snapshot(&policy_set);
}

/* [nid * THPNUMA_HIST_PER_NODE + ...], zero for nodes that cannot exist. */
u64 *thpnuma_hist_snapshot(void)
{
	u64 *snap = kvcalloc((size_t)nr_node_ids * THPNUMA_HIST_PER_NODE, sizeof(u64),
			     GFP_KERNEL);
	int nid;

	if (!snap)
		return NULL;
	mutex_lock(&thpnuma_counters_lock);
	for_each_node(nid)
		counter_set_read(&hist_sets[nid], &snap[nid * THPNUMA_HIST_PER_NODE]);
	mutex_unlock(&thpnuma_counters_lock);
	return snap;
}

void thpnuma_counters_reset(void)
{
	int nid;

	mutex_lock(&thpnuma_counters_lock);
	sum_counters(&node_set, node_set.baseline);
	sum_counters(&policy_set, policy_set.baseline);
	for_each_node(nid)
		sum_counters(&hist_sets[nid], hist_sets[nid].baseline);
	mutex_unlock(&thpnuma_counters_lock);
}
