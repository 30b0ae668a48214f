// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process policy overrides. An override belongs to a thread group and
 * is keyed by the group's struct pid, of which it holds a reference: a new
 * process never gets a struct pid that is still referenced, so a reused
 * PID number cannot find a dead process's override. Lookups are RCU;
 * changes take a spinlock, because the fork and exit tracepoints make
 * them in atomic context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include "compat.h"
#include "account.h"
#include "inflight.h"
#include "thpnuma.h"

struct task_override {
	struct hlist_node node;
	struct pid *tgid;
	u64 config;		/* policy, zone_reclaim, budget_us packed */
	struct rcu_head rcu;
};

/* At least as many buckets as overrides: a lookup walks O(1) entries. */
static struct hlist_head *buckets;
static unsigned int hash_bits;
static DEFINE_SPINLOCK(overrides_lock);
static unsigned int nr_overrides;	/* under overrides_lock */

static unsigned int max_tasks = 1024;

static int max_tasks_set(const char *val, const struct kernel_param *kp)
{
	unsigned int n;

	if (kstrtouint(val, 10, &n) || n < 1 || n > THPNUMA_MAX_TASKS_LIMIT) {
		pr_err("invalid max_tasks '%s': expected 1-%d\n", val,
		       THPNUMA_MAX_TASKS_LIMIT);
		return -EINVAL;
	}
	max_tasks = n;
	return 0;
}

static const struct kernel_param_ops max_tasks_ops = {
	.set = max_tasks_set,
	.get = param_get_uint,
};
module_param_cb(max_tasks, &max_tasks_ops, &max_tasks, 0444);
MODULE_PARM_DESC(max_tasks,
		 "Most processes with a policy override at once (1-65536, default 1024)");

static struct hlist_head *bucket(struct pid *tgid)
{
	return &buckets[hash_ptr(tgid, hash_bits)];
}

static struct task_override *override_find(struct pid *tgid)
{
	struct task_override *o;

	hlist_for_each_entry_rcu(o, bucket(tgid), node,
				 lockdep_is_held(&overrides_lock))
		if (o->tgid == tgid)
			return o;
	return NULL;
}

static void override_add_locked(struct task_override *o, struct pid *tgid,
				u64 config)
{
	o->tgid = get_pid(tgid);
	o->config = config;
	hlist_add_head_rcu(&o->node, bucket(tgid));
	if (nr_overrides++ == 0)
		thpnuma_config_set_lookup(THPNUMA_CFG_OVERRIDES, true);
}

static void override_free_rcu(struct rcu_head *head)
{
	struct task_override *o = container_of(head, struct task_override, rcu);

	put_pid(o->tgid);
	kfree(o);
}

static void override_del_locked(struct task_override *o)
{
	hlist_del_rcu(&o->node);
	if (--nr_overrides == 0)
		thpnuma_config_set_lookup(THPNUMA_CFG_OVERRIDES, false);
	call_rcu(&o->rcu, override_free_rcu);
}

/* Fault path: called only while some override exists. */
u64 thpnuma_task_config(u64 global, bool *overridden)
{
	struct task_override *o;
	u64 word = global;

	rcu_read_lock();
	o = override_find(task_tgid(current));
	if (o) {
		word = thpnuma_config_apply_override(global,
						     READ_ONCE(o->config));
		*overridden = true;
	}
	rcu_read_unlock();
	return word;
}

/* False once the group's last thread has started to exit. */
static bool group_alive(struct pid *tgid)
{
	struct task_struct *task;
	bool alive;

	rcu_read_lock();
	task = pid_task(tgid, PIDTYPE_TGID);
	alive = task && atomic_read(&task->signal->live) > 0;
	rcu_read_unlock();
	return alive;
}

/* The thread group of @nr in the writer's PID namespace, referenced. */
static struct pid *find_user_tgid(int nr)
{
	struct pid *pid = find_get_pid(nr), *tgid = NULL;
	struct task_struct *task;

	if (!pid)
		return ERR_PTR(-ESRCH);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return ERR_PTR(-ESRCH);
	if (task->flags & PF_KTHREAD)
		tgid = ERR_PTR(-EINVAL);
	else
		tgid = get_pid(task_tgid(task));
	put_task_struct(task);
	return tgid;
}

int thpnuma_tasks_write(const struct thpnuma_task_write *w)
{
	struct thpnuma_config cfg = {
		.policy = w->policy, .zone_reclaim = w->zone_reclaim,
		.budget_us = w->budget_us,
	};
	struct task_override *fresh = NULL, *o;
	struct pid *tgid;
	int err = 0;

	tgid = find_user_tgid(w->pid);
	if (IS_ERR(tgid)) {
		pr_info_ratelimited("tasks: pid %d: %s\n", w->pid,
				    PTR_ERR(tgid) == -ESRCH ? "no such process" :
				    "a kernel thread has no THP faults");
		return PTR_ERR(tgid);
	}
	if (!w->clear) {
		fresh = kmalloc(sizeof(*fresh), GFP_KERNEL);
		if (!fresh) {
			put_pid(tgid);
			return -ENOMEM;
		}
	}

	spin_lock(&overrides_lock);
	o = override_find(tgid);
	if (w->clear) {
		if (o)
			override_del_locked(o);
	} else if (o) {
		WRITE_ONCE(o->config, thpnuma_config_pack(&cfg));
	} else if (nr_overrides >= max_tasks) {
		err = -ENOSPC;
	} else {
		override_add_locked(fresh, tgid, thpnuma_config_pack(&cfg));
		/*
		 * Pairs with the barrier after the exit's decrement of
		 * signal->live: either the exit probe sees the overrides
		 * flag, or we see the group dead and take the entry back.
		 */
		smp_mb();
		if (!group_alive(tgid)) {
			override_del_locked(fresh);
			err = -ESRCH;
		}
		fresh = NULL;
	}
	spin_unlock(&overrides_lock);

	if (err == -ENOSPC)
		pr_info_ratelimited("tasks: pid %d: table full (max_tasks=%u)\n",
				    w->pid, max_tasks);
	else if (err == -ESRCH)
		pr_info_ratelimited("tasks: pid %d: process is exiting\n",
				    w->pid);
	kfree(fresh);
	put_pid(tgid);
	return err;
}

/*
 * A child forked while its parent has an override inherits it, while the
 * table has room: inheritance leaves the last quarter of max_tasks to
 * writes, so a process that forks without end cannot lock them out.
 */
static void notrace probe_fork(void *data, struct task_struct *parent,
			       struct task_struct *child)
{
	struct task_override *o, *fresh;
	bool inherited = false;
	u64 config = 0;

	if (!(READ_ONCE(thpnuma_config_word) & THPNUMA_CFG_OVERRIDES))
		return;
	/* A new thread shares its group's override. */
	if (!thread_group_leader(child))
		return;

	rcu_read_lock();
	o = override_find(task_tgid(parent));
	if (o)
		config = READ_ONCE(o->config);
	rcu_read_unlock();
	if (!o)
		return;

	fresh = kmalloc(sizeof(*fresh), GFP_ATOMIC | __GFP_NOWARN);
	if (fresh) {
		spin_lock(&overrides_lock);
		/*
		 * The child is visible by PID before this tracepoint: a
		 * writer may have given it an override already, and that
		 * newer, explicit choice stands.
		 */
		if (override_find(task_tgid(child))) {
			spin_unlock(&overrides_lock);
			kfree(fresh);
			return;
		}
		if (nr_overrides < max_tasks - max_tasks / 4) {
			override_add_locked(fresh, task_tgid(child), config);
			inherited = true;
		}
		spin_unlock(&overrides_lock);
	}
	if (!inherited) {
		kfree(fresh);
		pr_info_ratelimited("tasks: pid %d does not inherit pid %d's override: %s\n",
				    task_pid_nr(child), task_tgid_nr(parent),
				    fresh ? "table full for inheritance" :
				    "out of memory");
	}
}

/*
 * A thread's pending fallback (a fault that ended without a hooked
 * small-page call) goes with the thread, counted; the override goes with
 * the group's last thread.
 */
static void notrace probe_exit(void *data, THPNUMA_EXIT_PROBE_ARGS(task))
{
	struct task_override *o;

	if (unlikely(pending_maybe(task)))
		thpnuma_pending_end(task);

	/* do_exit() decremented signal->live with a full barrier before. */
	if (!(READ_ONCE(thpnuma_config_word) & THPNUMA_CFG_OVERRIDES))
		return;
	if (atomic_read(&task->signal->live))
		return;
	/* Most exiting groups have no override: look without the lock. */
	rcu_read_lock();
	o = override_find(task_tgid(task));
	rcu_read_unlock();
	if (!o)
		return;

	spin_lock(&overrides_lock);
	o = override_find(task_tgid(task));
	if (o)
		override_del_locked(o);
	spin_unlock(&overrides_lock);
}

/*
 * Every control character, space and backslash become \ooo: a name can
 * neither split its row into fields nor forge another row.
 */
static const char comm_escapes[] =
	"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
	"\x7f \\";

void thpnuma_tasks_show(struct seq_file *m)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	char comm[TASK_COMM_LEN], words[THPNUMA_MAX_TASK_WRITE];
	struct task_struct *task;
	struct task_override *o;
	unsigned int i;
	pid_t nr;

	rcu_read_lock();
	for (i = 0; i < (1u << hash_bits); i++) {
		hlist_for_each_entry_rcu(o, &buckets[i], node) {
			task = pid_task(o->tgid, PIDTYPE_TGID);
			nr = pid_nr_ns(o->tgid, ns);
			if (!task || !nr)
				continue;
			get_task_comm(comm, task);
			thpnuma_format_override(words, sizeof(words),
						READ_ONCE(o->config));
			seq_printf(m, "%d ", nr);
			seq_escape(m, comm, comm_escapes);
			seq_printf(m, " %s\n", words);
		}
	}
	rcu_read_unlock();
}

void thpnuma_tasks_count_by_policy(unsigned int nr[THPNUMA_NR_POLICIES])
{
	struct task_override *o;
	unsigned int i;

	memset(nr, 0, THPNUMA_NR_POLICIES * sizeof(nr[0]));
	rcu_read_lock();
	for (i = 0; i < (1u << hash_bits); i++)
		hlist_for_each_entry_rcu(o, &buckets[i], node)
			nr[thpnuma_config_unpack(READ_ONCE(o->config)).policy]++;
	rcu_read_unlock();
}

struct tracepoint_hook {
	const char *name;
	void *probe;
	struct tracepoint *tp;
};

static struct tracepoint_hook tracepoint_hooks[] = {
	{ .name = "sched_process_fork",	.probe = probe_fork },
	{ .name = "sched_process_exit",	.probe = probe_exit },
};

static void find_tracepoint(struct tracepoint *tp, void *unused)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(tracepoint_hooks); i++)
		if (!strcmp(tp->name, tracepoint_hooks[i].name))
			tracepoint_hooks[i].tp = tp;
}

static void tracepoints_remove(int count)
{
	while (--count >= 0)
		tracepoint_probe_unregister(tracepoint_hooks[count].tp,
					    tracepoint_hooks[count].probe, NULL);
	tracepoint_synchronize_unregister();
}

int thpnuma_tasks_init(void)
{
	struct tracepoint_hook *hook;
	int i, err;

	/* hash_ptr() needs at least one bit. */
	hash_bits = max(order_base_2(max_tasks), 1);
	buckets = kvcalloc(1u << hash_bits, sizeof(*buckets), GFP_KERNEL);
	if (!buckets)
		return -ENOMEM;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(tracepoint_hooks); i++) {
		hook = &tracepoint_hooks[i];
		err = hook->tp ? tracepoint_probe_register(hook->tp, hook->probe,
							   NULL) : -ENOENT;
		if (err) {
			pr_err("cannot attach to tracepoint %s: %d\n",
			       hook->name, err);
			goto rollback;
		}
	}
	return 0;

rollback:
	tracepoints_remove(i);
	kvfree(buckets);
	return err;
}

void thpnuma_tasks_exit(void)
{
	struct task_override *o;
	struct hlist_node *tmp;
	unsigned int i;

	tracepoints_remove(ARRAY_SIZE(tracepoint_hooks));
	spin_lock(&overrides_lock);
	for (i = 0; i < (1u << hash_bits); i++)
		hlist_for_each_entry_safe(o, tmp, &buckets[i], node)
			override_del_locked(o);
	spin_unlock(&overrides_lock);
	/* The RCU callbacks are this module's code. */
	rcu_barrier();
	kvfree(buckets);
}
