/* SPDX-License-Identifier: GPL-2.0 */
#ifndef THPNUMA_H
#define THPNUMA_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include "budget.h"
#include "counters.h"
#include "policy.h"

/* [nid * THPNUMA_NR_COUNTERS + counter], one copy per CPU. */
extern u64 __percpu *thpnuma_counters;

/* Callers run with preemption disabled or accept this_cpu_add's guarantee. */
static inline void thpnuma_count(int nid, enum thpnuma_counter c, u64 delta)
{
	this_cpu_add(thpnuma_counters[nid * THPNUMA_NR_COUNTERS + c], delta);
}

/* [policy * THPNUMA_NR_POLICY_COUNTERS + counter], one copy per CPU. */
extern u64 __percpu *thpnuma_policy_counters;

static inline void thpnuma_count_policy(unsigned int policy,
					enum thpnuma_policy_counter c)
{
	this_cpu_inc(thpnuma_policy_counters[policy *
					     THPNUMA_NR_POLICY_COUNTERS + c]);
}

/* [nid][outcome * THPNUMA_HIST_SLOTS + slot], one copy per CPU. */
extern u64 __percpu **thpnuma_hist;

static inline void thpnuma_hist_add(int nid, enum thpnuma_hist_outcome o,
				    u64 ns)
{
	u64 __percpu *h = thpnuma_hist[nid] + o * THPNUMA_HIST_SLOTS;

	this_cpu_inc(h[thpnuma_hist_bucket(ns)]);
	this_cpu_add(h[THPNUMA_HIST_SUM], ns);
}

/* [nid][thpnuma_order_slot(kind, order, outcome)], one copy per CPU. */
extern u64 __percpu **thpnuma_orders;

static inline void thpnuma_count_order(int nid, unsigned int kind,
				       unsigned int order,
				       enum thpnuma_order_outcome o)
{
	this_cpu_inc(thpnuma_orders[nid][thpnuma_order_slot(kind, order, o)]);
}

/*
 * [nid * THPNUMA_BUDGET_STRIDE]: each node's budget estimate and back-off
 * (budget.h), a cache line of its own. Not counters: reset leaves them.
 */
#define THPNUMA_BUDGET_STRIDE	(SMP_CACHE_BYTES / sizeof(u64))
extern u64 *thpnuma_budget_state;

static inline u64 *thpnuma_budget_word(int nid)
{
	return &thpnuma_budget_state[nid * THPNUMA_BUDGET_STRIDE];
}

struct seq_file;
int thpnuma_counters_init(void);
void thpnuma_counters_exit(void);
/* Snapshots since the last reset; the caller kvfree()s them. */
u64 *thpnuma_counters_snapshot(void);
u64 *thpnuma_policy_counters_snapshot(void);
u64 *thpnuma_hist_snapshot(void);
u64 *thpnuma_orders_snapshot(void);
/* One possible node's counters since the last reset, into @out. */
void thpnuma_node_counters_read(int nid, u64 out[THPNUMA_NR_COUNTERS]);
void thpnuma_node_hist_read(int nid, u64 out[THPNUMA_HIST_PER_NODE]);
void thpnuma_node_orders_read(int nid, u64 out[THPNUMA_ORDERS_PER_NODE]);
void thpnuma_counters_reset(void);

/*
 * The counter tables as debugfs shows them (tables.c): a header line, then
 * rows that start with the node. sysfs shows one node's rows per file.
 */
void thpnuma_stats_header(struct seq_file *m);
void thpnuma_stats_rows(struct seq_file *m, int nid, const u64 *row);
void thpnuma_hist_header(struct seq_file *m);
void thpnuma_hist_rows(struct seq_file *m, int nid, const u64 *node_hist);
/* The same keyed by @key: "node" or "cgroup" in the header, a row's key. */
void thpnuma_hist_header_of(struct seq_file *m, const char *key);
void thpnuma_hist_rows_of(struct seq_file *m, const char *key,
			  const u64 *hists);
void thpnuma_orders_header(struct seq_file *m);
void thpnuma_orders_rows(struct seq_file *m, int nid, const u64 *node_orders);
/* The budget states: a read gives THPNUMA_BUDGET_COLUMNS values per node. */
#define THPNUMA_BUDGET_COLUMNS	4
void thpnuma_node_budget_read(int nid, u64 out[THPNUMA_BUDGET_COLUMNS]);
void thpnuma_budget_header(struct seq_file *m);
void thpnuma_budget_rows(struct seq_file *m, int nid, const u64 *row);
int thpnuma_policies_show(struct seq_file *m);
void thpnuma_version_show(struct seq_file *m);

/* The live configuration (config.c): updated with cmpxchg, read locklessly. */
extern u64 thpnuma_config_word;

static inline struct thpnuma_config thpnuma_config_get(void)
{
	return thpnuma_config_unpack(READ_ONCE(thpnuma_config_word));
}

void thpnuma_config_update(enum thpnuma_setting_id id, unsigned int value);
/* Sets or clears THPNUMA_CFG_OVERRIDES or THPNUMA_CFG_CGROUPS. */
void thpnuma_config_set_lookup(u64 flag, bool present);
/* The current value of @s as its debugfs file shows it. */
int thpnuma_config_show(const struct thpnuma_setting *s, char *buf,
			size_t size);

/* Per-process overrides (tasks.c). */
u64 thpnuma_task_config(u64 global, bool *overridden);
int thpnuma_tasks_init(void);
void thpnuma_tasks_exit(void);
int thpnuma_tasks_write(const struct thpnuma_task_write *w);
void thpnuma_tasks_show(struct seq_file *m);
void thpnuma_tasks_count_by_policy(unsigned int nr[THPNUMA_NR_POLICIES]);

/* Per-cgroup settings (cgroups.c). */
u64 thpnuma_cgroup_config(u64 global, bool *overridden);
int thpnuma_cgroups_init(void);
void thpnuma_cgroups_exit(void);
int thpnuma_cgroups_write(const struct thpnuma_cgroup_write *w);
void thpnuma_cgroups_show(struct seq_file *m);
/*
 * A THP fault the current task's cgroup setting decided, counted in the
 * nearest setting: one that allocated, with its outcome and time, or one
 * left to the kernel.
 */
void thpnuma_cgroup_count_fault(enum thpnuma_hist_outcome outcome,
				u64 alloc_ns);
void thpnuma_cgroup_count_passthrough(void);
/* The per-cgroup counters and histograms, one row each (world-readable). */
void thpnuma_cgroup_stats_show(struct seq_file *m);
void thpnuma_cgroup_hist_show(struct seq_file *m);
void thpnuma_cgroups_reset(void);

/* One THP fault the hook saw, as its trace event reports it. */
struct thpnuma_fault_record {
	int node;			/* the faulting CPU's node */
	int nid;			/* where the THP came from, or -1 */
	u8 policy;
	u8 zone_reclaim;
	u8 override;			/* an override or a cgroup's setting decided */
	u8 by_cgroup;			/* a cgroup's setting decided */
	u8 action;			/* enum thpnuma_action */
	u8 reason;			/* enum thpnuma_passthrough_reason */
	u8 result;			/* enum thpnuma_fault_result */
	u8 local_attempt;		/* enum thpnuma_local_attempt */
	u8 order;
	u8 kind;			/* enum thpnuma_kind */
	u8 budget;			/* enum thpnuma_budget_decision */
	unsigned int budget_us;		/* the budget it decided under */
	/* What the fault's compaction and direct reclaim did, all nodes. */
	unsigned int compact_stall;
	unsigned int compact_success;
	unsigned int reclaim_stall;
	unsigned long reclaim_pages;
	u64 alloc_ns;
	u64 local_ns;			/* of that, the local attempt's */
	u64 effort_ns;			/* in compaction and direct reclaim */
};

int thpnuma_hooks_install(void);
void thpnuma_hooks_remove(void);
int thpnuma_probes_install(void);
void thpnuma_probes_remove(void);
unsigned long thpnuma_probe_missed(void);
/* Hooked calls of THP orders from no known caller (hook.c), since load. */
unsigned long thpnuma_unmatched_calls(void);

int thpnuma_debugfs_init(void);
void thpnuma_debugfs_exit(void);

/*
 * /sys/kernel/thpnuma (sysfs.c): tasks and reset, usable under lockdown,
 * and the counters, readable by any user.
 */
int thpnuma_sysfs_init(void);
void thpnuma_sysfs_exit(void);

#endif /* THPNUMA_H */
