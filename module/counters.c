// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters: per node, per policy, and the latency histograms. The
 * fault path only adds to its own CPU's copy; readers sum every CPU. Reset
 * records a baseline instead of writing other CPUs' memory, so counters
 * stay monotonic between resets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "thpnuma.h"

u64 __percpu *thpnuma_counters;
u64 __percpu *thpnuma_policy_counters;
u64 __percpu *thpnuma_hist;

struct counter_set {
	u64 __percpu **pcp;
	u64 *baseline;
	size_t nr;
};

static struct counter_set node_set = { .pcp = &thpnuma_counters };
static struct counter_set policy_set = { .pcp = &thpnuma_policy_counters };
static struct counter_set hist_set = { .pcp = &thpnuma_hist };
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
	err = counter_set_init(&hist_set, (size_t)nr_node_ids *
			       THPNUMA_NR_HIST_OUTCOMES * THPNUMA_HIST_SLOTS);
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
	counter_set_exit(&hist_set);
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

/* Counters since the last reset; the caller kfree()s the array. */
static u64 *counter_set_snapshot(const struct counter_set *set)
{
	u64 *snap = kcalloc(set->nr, sizeof(u64), GFP_KERNEL);
	size_t i;

	if (!snap)
		return NULL;
	mutex_lock(&thpnuma_counters_lock);
	sum_counters(set, snap);
	for (i = 0; i < set->nr; i++)
		snap[i] -= set->baseline[i];
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

u64 *thpnuma_hist_snapshot(void)
{
	return counter_set_snapshot(&hist_set);
}

void thpnuma_counters_reset(void)
{
	mutex_lock(&thpnuma_counters_lock);
	sum_counters(&node_set, node_set.baseline);
	sum_counters(&policy_set, policy_set.baseline);
	sum_counters(&hist_set, hist_set.baseline);
	mutex_unlock(&thpnuma_counters_lock);
}
