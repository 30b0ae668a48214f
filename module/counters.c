// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU, per-node counters. The fault path only adds to its own CPU's
 * copy; readers sum every CPU. Reset records a baseline instead of
 * writing other CPUs' memory, so counters stay monotonic between resets.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "thpnuma.h"

const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS] = {
	[THPNUMA_THP_LOCAL]		= "thp_local",
	[THPNUMA_THP_REMOTE]		= "thp_remote",
	[THPNUMA_THP_FALLBACK]		= "thp_fallback",
	[THPNUMA_PASSTHROUGH]		= "passthrough",
	[THPNUMA_THP_REMOTE_IN]		= "thp_remote_in",
	[THPNUMA_COMPACT_STALL]		= "compact_stall",
	[THPNUMA_COMPACT_SUCCESS]	= "compact_success",
	[THPNUMA_COMPACT_FAIL]		= "compact_fail",
	[THPNUMA_RECLAIM_STALL]		= "reclaim_stall",
	[THPNUMA_RECLAIM_PAGES]		= "reclaim_pages",
	[THPNUMA_ALLOC_NS]		= "alloc_ns",
};

u64 __percpu *thpnuma_counters;
static u64 *thpnuma_baseline;
static DEFINE_MUTEX(thpnuma_counters_lock);

static size_t nr_counter_slots(void)
{
	return (size_t)nr_node_ids * THPNUMA_NR_COUNTERS;
}

int thpnuma_counters_init(void)
{
	thpnuma_counters = __alloc_percpu(nr_counter_slots() * sizeof(u64),
					  __alignof__(u64));
	if (!thpnuma_counters)
		return -ENOMEM;
	thpnuma_baseline = kcalloc(nr_counter_slots(), sizeof(u64), GFP_KERNEL);
	if (!thpnuma_baseline) {
		free_percpu(thpnuma_counters);
		thpnuma_counters = NULL;
		return -ENOMEM;
	}
	return 0;
}

void thpnuma_counters_exit(void)
{
	kfree(thpnuma_baseline);
	free_percpu(thpnuma_counters);
}

static void sum_counters(u64 *sum)
{
	size_t i, n = nr_counter_slots();
	int cpu;

	memset(sum, 0, n * sizeof(u64));
	for_each_possible_cpu(cpu) {
		const u64 *pcp = per_cpu_ptr(thpnuma_counters, cpu);

		for (i = 0; i < n; i++)
			sum[i] += READ_ONCE(pcp[i]);
	}
}

/* Counters since the last reset; the caller kfree()s the array. */
u64 *thpnuma_counters_snapshot(void)
{
	size_t i, n = nr_counter_slots();
	u64 *snap = kcalloc(n, sizeof(u64), GFP_KERNEL);

	if (!snap)
		return NULL;
	mutex_lock(&thpnuma_counters_lock);
	sum_counters(snap);
	for (i = 0; i < n; i++)
		snap[i] -= thpnuma_baseline[i];
	mutex_unlock(&thpnuma_counters_lock);
	return snap;
}

void thpnuma_counters_reset(void)
{
	mutex_lock(&thpnuma_counters_lock);
	sum_counters(thpnuma_baseline);
	mutex_unlock(&thpnuma_counters_lock);
}
