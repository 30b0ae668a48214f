// SPDX-License-Identifier: GPL-2.0
/*
 * Observation: the compaction and direct reclaim that hooked allocations
 * run, counted per node and in their fault's record, through kprobes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/compaction.h>
#include <linux/cpuset.h>
#include <linux/timekeeping.h>
#include "compat.h"
#include "inflight.h"

struct compact_probe_data {
	struct inflight_alloc *inflight;
	int nid;
	u64 start;
};

static int compact_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct compact_probe_data *data = (void *)ri->data;
	struct zone *zone = (struct zone *)thpnuma_arg(regs, 0);

	data->inflight = inflight_find();
	if (!data->inflight)
		return 1;
	data->nid = zone_to_nid(zone);
	data->start = ktime_get_ns();
	return 0;
}

static int compact_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct compact_probe_data *data = (void *)ri->data;
	struct thpnuma_fault_record *record = &data->inflight->record;
	enum compact_result result = regs_return_value(regs);

	record->effort_ns += ktime_get_ns() - data->start;
	if (result == COMPACT_SKIPPED)
		return 0;
	thpnuma_count(data->nid, THPNUMA_COMPACT_STALL, 1);
	thpnuma_count(data->nid, result == COMPACT_SUCCESS ?
		      THPNUMA_COMPACT_SUCCESS : THPNUMA_COMPACT_FAIL, 1);
	record->compact_stall++;
	record->compact_success += result == COMPACT_SUCCESS;
	return 0;
}

struct reclaim_probe_data {
	struct inflight_alloc *inflight;
	int nid;	/* where a call that scans no node counts */
	u64 start;
};

/*
 * The node a try_to_free_pages(zonelist, order, gfp, nodemask) call is
 * for: its zonelist's first zone that the gfp, the nodemask and the
 * cpuset allow, the first shrink_zones() would scan. A local attempt's zonelist holds only the local
 * node (__GFP_THISNODE), whatever the nodemask (with cpusets in use, the
 * task's whole mems_allowed); a remote attempt's lists the remote nodes
 * nearest first.
 */
static int reclaim_target_node(struct pt_regs *regs)
{
	struct zonelist *zonelist = (struct zonelist *)thpnuma_arg(regs, 0);
	gfp_t gfp = (gfp_t)thpnuma_arg(regs, 2);
	nodemask_t *nodemask = (nodemask_t *)thpnuma_arg(regs, 3);
	enum zone_type highest = gfp_zone(gfp);
	struct zoneref *z;

	for (z = zonelist->_zonerefs; z->zone; z++) {
		if (zonelist_zone_idx(z) > highest)
			continue;
		if (nodemask && !node_isset(zonelist_node_idx(z), *nodemask))
			continue;
		if (node_isset(zonelist_node_idx(z), cpuset_current_mems_allowed))
			return zonelist_node_idx(z);
	}
	return NUMA_NO_NODE;
}

static int reclaim_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct reclaim_probe_data *data = (void *)ri->data;

	data->inflight = inflight_find();
	if (!data->inflight)
		return 1;
	data->inflight->reclaim_node = NUMA_NO_NODE;
	data->nid = reclaim_target_node(regs);
	if (data->nid == NUMA_NO_NODE)
		data->nid = data->inflight->record.node;
	data->start = ktime_get_ns();
	return 0;
}

static int reclaim_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct reclaim_probe_data *data = (void *)ri->data;
	struct thpnuma_fault_record *record = &data->inflight->record;
	unsigned long reclaimed = regs_return_value(regs);
	int effort = data->inflight->local_effort;
	int nid = data->inflight->reclaim_node;

	record->effort_ns += ktime_get_ns() - data->start;

	/* The reclaim hook sent this call to thpnuma_skip_reclaim(). */
	if (effort != NO_LOCAL_ATTEMPT && !thpnuma_local_effort(effort).reclaim)
		return 0;
	/*
	 * Every call stalls, as the kernel's allocstall counts it; one that
	 * scanned no node (zones ready for compaction) counts on the node it
	 * was for.
	 */
	if (nid == NUMA_NO_NODE)
		nid = data->nid;
	thpnuma_count(nid, THPNUMA_RECLAIM_STALL, 1);
	thpnuma_count(nid, THPNUMA_RECLAIM_PAGES, reclaimed);
	record->reclaim_stall++;
	record->reclaim_pages += reclaimed;
	return 0;
}

static int shrink_node_pre(struct kprobe *kp, struct pt_regs *regs)
{
	pg_data_t *pgdat = (pg_data_t *)thpnuma_arg(regs, 0);
	struct inflight_alloc *inflight = inflight_find();

	if (inflight && inflight->reclaim_node == NUMA_NO_NODE)
		inflight->reclaim_node = pgdat->node_id;
	return 0;
}

/*
 * A task holds a kretprobe instance for its whole compaction or reclaim
 * call, which can sleep for seconds; with none left the kernel counts a
 * miss and our counters lose the event. Size the pools like the kernel's
 * default (2 per possible CPU), and never below a floor that covers many
 * more tasks in reclaim than a small machine has CPUs.
 */
#define THPNUMA_KRETPROBE_MIN_MAXACTIVE	256

static struct kretprobe compact_probe = {
	.kp.symbol_name	= "compact_zone_order",
	.entry_handler	= compact_entry,
	.handler	= compact_return,
	.data_size	= sizeof(struct compact_probe_data),
};

static struct kretprobe reclaim_probe = {
	.kp.symbol_name	= "try_to_free_pages",
	.entry_handler	= reclaim_entry,
	.handler	= reclaim_return,
	.data_size	= sizeof(struct reclaim_probe_data),
};

static struct kprobe shrink_node_probe = {
	.symbol_name	= "shrink_node",
	.pre_handler	= shrink_node_pre,
};

/* Events the probes missed since load: our counters lack that many. */
unsigned long thpnuma_probe_missed(void)
{
	return (unsigned long)READ_ONCE(compact_probe.nmissed) +
	       READ_ONCE(reclaim_probe.nmissed) +
	       READ_ONCE(compact_probe.kp.nmissed) +
	       READ_ONCE(reclaim_probe.kp.nmissed) +
	       READ_ONCE(shrink_node_probe.nmissed);
}

int thpnuma_probes_install(void)
{
	int maxactive = max_t(int, 2 * num_possible_cpus(),
			      THPNUMA_KRETPROBE_MIN_MAXACTIVE);
	int err;

	compact_probe.maxactive = maxactive;
	reclaim_probe.maxactive = maxactive;
	err = register_kretprobe(&compact_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", compact_probe.kp.symbol_name, err);
		goto out;
	}
	err = register_kretprobe(&reclaim_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", reclaim_probe.kp.symbol_name, err);
		goto err_compact;
	}
	err = register_kprobe(&shrink_node_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", shrink_node_probe.symbol_name, err);
		goto err_reclaim;
	}
	return 0;

err_reclaim:
	unregister_kretprobe(&reclaim_probe);
err_compact:
	unregister_kretprobe(&compact_probe);
out:
	return err;
}

void thpnuma_probes_remove(void)
{
	struct kretprobe *kretprobes[] = { &reclaim_probe, &compact_probe };

	unregister_kprobe(&shrink_node_probe);
	/* One grace period for both instead of one each. */
	unregister_kretprobes(kretprobes, ARRAY_SIZE(kretprobes));
}
