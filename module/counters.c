// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters: per node, per policy, per node, kind and order, and the
 * latency histograms. The
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
u64 __percpu **thpnuma_orders;
u64 *thpnuma_budget_state;

struct counter_set {
	u64 __percpu **pcp;
	u64 *baseline;
	size_t nr;
};

static struct counter_set node_set = { .pcp = &thpnuma_counters };
static struct counter_set policy_set = { .pcp = &thpnuma_policy_counters };
/*
 * Tables with one set per possible node: a per-CPU allocation is at most
 * 32 KiB (PCPU_MIN_UNIT_SIZE), which all nodes' histograms together
 * exceed from 51 nodes on.
 */
struct node_sets {
	u64 __percpu ***pcp;	/* [nid]: one node's per-CPU counters */
	struct counter_set *sets;
	size_t nr;		/* counters per node */
};

static struct node_sets hist_sets = {
	.pcp = &thpnuma_hist, .nr = THPNUMA_HIST_PER_NODE,
};
static struct node_sets order_sets = {
	.pcp = &thpnuma_orders, .nr = THPNUMA_ORDERS_PER_NODE,
};
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

static void node_sets_exit(struct node_sets *ns)
{
	int nid;

	for (nid = 0; ns->sets && nid < nr_node_ids; nid++)
		if (ns->sets[nid].pcp)
			counter_set_exit(&ns->sets[nid]);
	kfree(ns->sets);
	kfree(*ns->pcp);
	ns->sets = NULL;
	*ns->pcp = NULL;
}

static int node_sets_init(struct node_sets *ns)
{
	int nid, err;

	*ns->pcp = kcalloc(nr_node_ids, sizeof(**ns->pcp), GFP_KERNEL);
	ns->sets = kcalloc(nr_node_ids, sizeof(*ns->sets), GFP_KERNEL);
	if (!*ns->pcp || !ns->sets) {
		node_sets_exit(ns);
		return -ENOMEM;
	}
	for_each_node(nid) {
		ns->sets[nid].pcp = &(*ns->pcp)[nid];
		err = counter_set_init(&ns->sets[nid], ns->nr);
		if (err) {
			ns->sets[nid].pcp = NULL;
			node_sets_exit(ns);
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
	err = node_sets_init(&hist_sets);
	if (err)
		goto err_policy;
	err = node_sets_init(&order_sets);
	if (err)
		goto err_hist;
	thpnuma_budget_state = kcalloc(nr_node_ids, SMP_CACHE_BYTES,
				       GFP_KERNEL);
	if (!thpnuma_budget_state) {
		err = -ENOMEM;
		goto err_orders;
	}
	return 0;

err_orders:
	node_sets_exit(&order_sets);
err_hist:
	node_sets_exit(&hist_sets);
err_policy:
	counter_set_exit(&policy_set);
err_node:
	counter_set_exit(&node_set);
	return err;
}

void thpnuma_counters_exit(void)
{
	kfree(thpnuma_budget_state);
	node_sets_exit(&order_sets);
	node_sets_exit(&hist_sets);
	counter_set_exit(&policy_set);
	counter_set_exit(&node_set);
}

/* Every CPU's @nr counters of @set from @first, summed into @sum. */
static void sum_range(const struct counter_set *set, size_t first, size_t nr,
		      u64 *sum)
{
	size_t i;
	int cpu;

	memset(sum, 0, nr * sizeof(u64));
	for_each_possible_cpu(cpu) {
		const u64 *pcp = per_cpu_ptr(*set->pcp, cpu) + first;

		for (i = 0; i < nr; i++)
			sum[i] += READ_ONCE(pcp[i]);
	}
}

static void sum_counters(const struct counter_set *set, u64 *sum)
{
	sum_range(set, 0, set->nr, sum);
}

/* The same since the last reset; under the lock. */
static void read_range(const struct counter_set *set, size_t first,
		       size_t nr, u64 *snap)
{
	size_t i;

	sum_range(set, first, nr, snap);
	for (i = 0; i < nr; i++)
		snap[i] -= set->baseline[first + i];
}

static void counter_set_read(const struct counter_set *set, u64 *snap)
{
	read_range(set, 0, set->nr, snap);
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

/* [nid * ns->nr + ...], zero for nodes that cannot exist. */
static u64 *node_sets_snapshot(const struct node_sets *ns)
{
	u64 *snap = kvcalloc((size_t)nr_node_ids * ns->nr, sizeof(u64),
			     GFP_KERNEL);
	int nid;

	if (!snap)
		return NULL;
	mutex_lock(&thpnuma_counters_lock);
	for_each_node(nid)
		counter_set_read(&ns->sets[nid], &snap[nid * ns->nr]);
	mutex_unlock(&thpnuma_counters_lock);
	return snap;
}

u64 *thpnuma_hist_snapshot(void)
{
	return node_sets_snapshot(&hist_sets);
}

u64 *thpnuma_orders_snapshot(void)
{
	return node_sets_snapshot(&order_sets);
}

/*
 * One node's rows, for its sysfs files: a reader pays for its node only,
 * not for a snapshot of every node.
 */
void thpnuma_node_counters_read(int nid, u64 out[THPNUMA_NR_COUNTERS])
{
	mutex_lock(&thpnuma_counters_lock);
	read_range(&node_set, (size_t)nid * THPNUMA_NR_COUNTERS,
		   THPNUMA_NR_COUNTERS, out);
	mutex_unlock(&thpnuma_counters_lock);
}

void thpnuma_node_hist_read(int nid, u64 out[THPNUMA_HIST_PER_NODE])
{
	mutex_lock(&thpnuma_counters_lock);
	counter_set_read(&hist_sets.sets[nid], out);
	mutex_unlock(&thpnuma_counters_lock);
}

void thpnuma_node_orders_read(int nid, u64 out[THPNUMA_ORDERS_PER_NODE])
{
	mutex_lock(&thpnuma_counters_lock);
	counter_set_read(&order_sets.sets[nid], out);
	mutex_unlock(&thpnuma_counters_lock);
}

/* estimate_ns, budget_ns (the global budget), probe_period, since_probe. */
void thpnuma_node_budget_read(int nid, u64 out[THPNUMA_BUDGET_COLUMNS])
{
	struct thpnuma_budget b =
		thpnuma_budget_unpack(READ_ONCE(*thpnuma_budget_word(nid)));

	out[0] = b.est_ns;
	out[1] = (u64)thpnuma_config_get().budget_us * NSEC_PER_USEC;
	out[2] = thpnuma_budget_period(b);
	out[3] = b.since;
}

/* Every counter, the per-cgroup ones (cgroups.c) too. */
void thpnuma_counters_reset(void)
{
	int nid;

	thpnuma_cgroups_reset();
	mutex_lock(&thpnuma_counters_lock);
	sum_counters(&node_set, node_set.baseline);
	sum_counters(&policy_set, policy_set.baseline);
	for_each_node(nid) {
		sum_counters(&hist_sets.sets[nid], hist_sets.sets[nid].baseline);
		sum_counters(&order_sets.sets[nid],
			     order_sets.sets[nid].baseline);
	}
	mutex_unlock(&thpnuma_counters_lock);
}
