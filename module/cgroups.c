// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup policy settings, on the cgroup v2 hierarchy. A setting
 * applies to every task in its cgroup and in the cgroup's descendants,
 * tasks that join later included; the nearest ancestor with a setting
 * wins. A setting holds a reference to its cgroup and is keyed by it, not
 * by its path: a cgroup made again at a removed one's path is a new
 * cgroup without a setting. A removed cgroup's setting is dropped, which
 * lets the removed cgroup go, within PRUNE_INTERVAL, or sooner when the
 * settings are listed or the table is full.
 *
 * Each setting counts the THP faults it decided in a latency histogram per
 * outcome, whose counts and sums are its placement counters and alloc_ns,
 * and the faults left to the kernel. Atomics: a THP fault costs tens of
 * microseconds or more, so the tasks of one cgroup sharing their cache
 * lines costs little, and a setting needs no per-CPU memory.
 *
 * Lookups are RCU, from the THP fault path; changes take a mutex.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "thpnuma.h"

#define PRUNE_INTERVAL		(10 * HZ)

struct cgroup_setting {
	struct hlist_node node;
	struct cgroup *cgrp;	/* referenced */
	u64 config;		/* policy, zone_reclaim, budget_us packed */
	struct rcu_head rcu;
	atomic64_t passthrough;
	/* As counters.h lays out one node's histograms. */
	atomic64_t hist[THPNUMA_HIST_PER_NODE];
};

/* Every setting; under settings_lock. */
#define for_each_setting(s, i)					\
	for (i = 0; i < (1u << hash_bits); i++)			\
		hlist_for_each_entry(s, &buckets[i], node)

/* At least as many buckets as settings: a lookup walks O(1) entries. */
static struct hlist_head *buckets;
static unsigned int hash_bits;
static DEFINE_MUTEX(settings_lock);
static unsigned int nr_settings;	/* under settings_lock */
static char path_buf[PATH_MAX];		/* under settings_lock */
static void prune_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(prune_work, prune_work_fn);

static unsigned int max_cgroups = 16384;

static int max_cgroups_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n < 1 || n > THPNUMA_MAX_CGROUPS_LIMIT) {
		pr_err("invalid max_cgroups '%s': expected 1-%d\n", val,
		       THPNUMA_MAX_CGROUPS_LIMIT);
		return -EINVAL;
	}
	max_cgroups = n;
	return 0;
}

static const struct kernel_param_ops max_cgroups_ops = {
	.set = max_cgroups_set,
	.get = param_get_uint,
};
module_param_cb(max_cgroups, &max_cgroups_ops, &max_cgroups, 0444);
MODULE_PARM_DESC(max_cgroups,
		 "Most cgroups with a policy setting at once (1-65536, default 16384)");

static struct hlist_head *bucket(const struct cgroup *cgrp)
{
	return &buckets[hash_ptr(cgrp, hash_bits)];
}

static struct cgroup_setting *setting_find(const struct cgroup *cgrp)
{
	struct cgroup_setting *s;

	hlist_for_each_entry_rcu(s, bucket(cgrp), node,
				 lockdep_is_held(&settings_lock))
		if (s->cgrp == cgrp)
			return s;
	return NULL;
}

static void setting_free_rcu(struct rcu_head *head)
{
	struct cgroup_setting *s = container_of(head, struct cgroup_setting,
						rcu);

	cgroup_put(s->cgrp);
	kfree(s);
}

static void setting_del_locked(struct cgroup_setting *s)
{
	hlist_del_rcu(&s->node);
	if (--nr_settings == 0)
		thpnuma_config_set_lookup(THPNUMA_CFG_CGROUPS, false);
	call_rcu(&s->rcu, setting_free_rcu);
}

/*
 * rmdir takes CSS_ONLINE off the cgroup's own css (cgroup_is_dead());
 * css_is_dying() does not see a removed cgroup on every kernel.
 */
static bool cgroup_removed(const struct cgroup *cgrp)
{
	return !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE);
}

/* @s's cgroup's path into path_buf, or false if it cannot be named. */
static bool setting_path(const struct cgroup_setting *s)
{
	return cgroup_path(s->cgrp, path_buf, PATH_MAX) >= 0;
}

/* Drop the settings of removed cgroups. */
static void prune_removed_locked(void)
{
	struct cgroup_setting *s;
	struct hlist_node *tmp;
	unsigned int i;

	for (i = 0; i < (1u << hash_bits); i++)
		hlist_for_each_entry_safe(s, tmp, &buckets[i], node)
			if (cgroup_removed(s->cgrp))
				setting_del_locked(s);
}

/* While settings exist: nothing else may list them for a long time. */
static void prune_work_fn(struct work_struct *work)
{
	mutex_lock(&settings_lock);
	prune_removed_locked();
	if (nr_settings)
		schedule_delayed_work(&prune_work, PRUNE_INTERVAL);
	mutex_unlock(&settings_lock);
}

/*
 * The setting of the current task's cgroup or of its nearest ancestor
 * that has one; under rcu_read_lock().
 */
static struct cgroup_setting *current_setting(void)
{
	struct cgroup_setting *s = NULL;
	struct cgroup *cgrp;

	for (cgrp = task_dfl_cgroup(current); cgrp && !s;
	     cgrp = cgroup_parent(cgrp))
		s = setting_find(cgrp);
	return s;
}

/* Fault path, called only while some setting exists. */
u64 thpnuma_cgroup_config(u64 global, bool *overridden)
{
	struct cgroup_setting *s;
	u64 word = global;

	rcu_read_lock();
	s = current_setting();
	if (s) {
		word = thpnuma_config_apply_override(global,
						     READ_ONCE(s->config));
		*overridden = true;
	}
	rcu_read_unlock();
	return word;
}

/*
 * After the allocation, which may sleep: the setting is looked up again.
 * A fault whose setting went away in between is counted nowhere, and
 * one whose task moved counts in its new cgroup's. @outcome < 0: a fault
 * left to the kernel.
 */
static void count_in_setting(int outcome, u64 alloc_ns)
{
	struct cgroup_setting *s;
	atomic64_t *h;

	if (!(READ_ONCE(thpnuma_config_word) & THPNUMA_CFG_CGROUPS))
		return;
	rcu_read_lock();
	s = current_setting();
	if (s && outcome < 0) {
		atomic64_inc(&s->passthrough);
	} else if (s) {
		h = &s->hist[outcome * THPNUMA_HIST_SLOTS];
		atomic64_inc(&h[thpnuma_hist_bucket(alloc_ns)]);
		atomic64_add(alloc_ns, &h[THPNUMA_HIST_SUM]);
	}
	rcu_read_unlock();
}

void thpnuma_cgroup_count_fault(enum thpnuma_hist_outcome outcome,
				u64 alloc_ns)
{
	count_in_setting(outcome, alloc_ns);
}

void thpnuma_cgroup_count_passthrough(void)
{
	count_in_setting(-1, 0);
}

/* The cgroup at @path, as cgroup_get_from_path() resolves it, live. */
static struct cgroup *find_cgroup(const struct thpnuma_cgroup_write *w)
{
	struct cgroup *cgrp;
	char *path;

	path = kmemdup_nul(w->path, w->path_len, GFP_KERNEL);
	if (!path)
		return ERR_PTR(-ENOMEM);
	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp)) {
		pr_info_ratelimited("cgroups: %s: no such cgroup on the cgroup v2 hierarchy\n",
				    path);
		cgrp = ERR_PTR(-ENOENT);
	} else if (cgroup_removed(cgrp)) {
		pr_info_ratelimited("cgroups: %s: the cgroup is being made or removed\n",
				    path);
		cgroup_put(cgrp);
		cgrp = ERR_PTR(-ENOENT);
	}
	kfree(path);
	return cgrp;
}

int thpnuma_cgroups_write(const struct thpnuma_cgroup_write *w)
{
	struct thpnuma_config cfg = {
		.policy = w->policy, .zone_reclaim = w->zone_reclaim,
		.budget_us = w->budget_us,
	};
	struct cgroup_setting *fresh = NULL, *s;
	struct cgroup *cgrp;
	int err = 0;

	cgrp = find_cgroup(w);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	if (!w->clear) {
		fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh) {
			cgroup_put(cgrp);
			return -ENOMEM;
		}
	}

	mutex_lock(&settings_lock);
	s = setting_find(cgrp);
	if (w->clear) {
		if (s)
			setting_del_locked(s);
	} else if (s) {
		WRITE_ONCE(s->config, thpnuma_config_pack(&cfg));
	} else {
		if (nr_settings >= max_cgroups)
			prune_removed_locked();
		if (nr_settings >= max_cgroups) {
			err = -ENOSPC;
		} else if (cgroup_removed(cgrp)) {
			err = -ENOENT;	/* removed since find_cgroup() */
		} else {
			fresh->cgrp = cgrp;
			fresh->config = thpnuma_config_pack(&cfg);
			hlist_add_head_rcu(&fresh->node, bucket(cgrp));
			if (nr_settings++ == 0) {
				thpnuma_config_set_lookup(THPNUMA_CFG_CGROUPS,
							  true);
				schedule_delayed_work(&prune_work,
						      PRUNE_INTERVAL);
			}
			fresh = NULL;
			cgrp = NULL;	/* the setting's reference now */
		}
	}
	mutex_unlock(&settings_lock);

	if (err == -ENOSPC)
		pr_info_ratelimited("cgroups: table full (max_cgroups=%u)\n",
				    max_cgroups);
	kfree(fresh);
	if (cgrp)
		cgroup_put(cgrp);
	return err;
}

/*
 * Under settings_lock, removed cgroups' settings dropped first: @row for
 * each setting, with its cgroup's path in path_buf (kernfs alone: no
 * cgroup_mutex for each line of each page that sysfs reads).
 */
static void show_settings(struct seq_file *m,
			  void (*row)(struct seq_file *m,
				      const struct cgroup_setting *s))
{
	struct cgroup_setting *s;
	unsigned int i;

	mutex_lock(&settings_lock);
	prune_removed_locked();
	for_each_setting(s, i)
		if (setting_path(s))
			row(m, s);
	mutex_unlock(&settings_lock);
}

/* "PATH POLICY ZONE_RECLAIM BUDGET_US", the path from the hierarchy's root. */
static void setting_row(struct seq_file *m, const struct cgroup_setting *s)
{
	char words[THPNUMA_MAX_TASK_WRITE];

	thpnuma_format_override(words, sizeof(words), s->config);
	seq_printf(m, "%s %s\n", path_buf, words);
}

void thpnuma_cgroups_show(struct seq_file *m)
{
	show_settings(m, setting_row);
}

static void read_hist(const struct cgroup_setting *s,
		      u64 h[THPNUMA_HIST_PER_NODE])
{
	int i;

	for (i = 0; i < THPNUMA_HIST_PER_NODE; i++)
		h[i] = atomic64_read(&s->hist[i]);
}

/* The counters, from the histograms but for passthrough. */
static void counters_row(struct seq_file *m, const struct cgroup_setting *s)
{
	static const enum thpnuma_cgroup_counter placed[] = {
		[THPNUMA_HIST_LOCAL]	= THPNUMA_CG_THP_LOCAL,
		[THPNUMA_HIST_REMOTE]	= THPNUMA_CG_THP_REMOTE,
		[THPNUMA_HIST_FALLBACK]	= THPNUMA_CG_THP_FALLBACK,
	};
	u64 h[THPNUMA_HIST_PER_NODE], count[THPNUMA_NR_CGROUP_COUNTERS] = { };
	const u64 *oh;
	int o, c;

	read_hist(s, h);
	for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
		oh = &h[o * THPNUMA_HIST_SLOTS];
		count[placed[o]] = thpnuma_hist_count(oh);
		count[THPNUMA_CG_ALLOC_NS] += oh[THPNUMA_HIST_SUM];
	}
	count[THPNUMA_CG_PASSTHROUGH] = atomic64_read(&s->passthrough);
	seq_puts(m, path_buf);
	for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
		seq_printf(m, " %llu", count[c]);
	seq_putc(m, '\n');
}

/* The faults each setting decided: "cgroup", the counters, a row each. */
void thpnuma_cgroup_stats_show(struct seq_file *m)
{
	int c;

	seq_puts(m, "cgroup");
	for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
		seq_printf(m, " %s", thpnuma_cgroup_counter_names[c]);
	seq_putc(m, '\n');
	show_settings(m, counters_row);
}

static void hist_rows(struct seq_file *m, const struct cgroup_setting *s)
{
	u64 h[THPNUMA_HIST_PER_NODE];

	read_hist(s, h);
	thpnuma_hist_rows_of(m, path_buf, h);
}

/* Their allocation times, as the hist file shows a node's. */
void thpnuma_cgroup_hist_show(struct seq_file *m)
{
	thpnuma_hist_header_of(m, "cgroup");
	show_settings(m, hist_rows);
}

/* With the global counters: faults in flight may still add to the new zero. */
void thpnuma_cgroups_reset(void)
{
	struct cgroup_setting *s;
	unsigned int i;
	int c;

	mutex_lock(&settings_lock);
	for_each_setting(s, i) {
		atomic64_set(&s->passthrough, 0);
		for (c = 0; c < THPNUMA_HIST_PER_NODE; c++)
			atomic64_set(&s->hist[c], 0);
	}
	mutex_unlock(&settings_lock);
}

int thpnuma_cgroups_init(void)
{
	hash_bits = max(order_base_2(max_cgroups), 1);
	buckets = kvcalloc(1u << hash_bits, sizeof(*buckets), GFP_KERNEL);
	return buckets ? 0 : -ENOMEM;
}

void thpnuma_cgroups_exit(void)
{
	struct cgroup_setting *s;
	struct hlist_node *tmp;
	unsigned int i;

	mutex_lock(&settings_lock);
	for (i = 0; i < (1u << hash_bits); i++)
		hlist_for_each_entry_safe(s, tmp, &buckets[i], node)
			setting_del_locked(s);
	mutex_unlock(&settings_lock);
	cancel_delayed_work_sync(&prune_work);
	/* The RCU callbacks are this module's code. */
	rcu_barrier();
	kvfree(buckets);
}
