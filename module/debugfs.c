// SPDX-License-Identifier: GPL-2.0
/* /sys/kernel/debug/thpnuma: control files, the stats table and per-node files. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "compat.h"
#include "thpnuma.h"

static struct dentry *thpnuma_dir;

/*
 * Copy a control-file write into @kbuf. Partial writes, writes at an
 * offset, empty and oversized writes are all refused: a control file
 * takes one whole value per write.
 */
static ssize_t copy_write(char *kbuf, size_t max, const char __user *ubuf,
			  size_t count, loff_t *ppos, const char *file)
{
	if (*ppos != 0) {
		pr_info_ratelimited("%s: write at offset %lld refused\n",
				    file, *ppos);
		return -EINVAL;
	}
	if (count == 0 || count > max) {
		pr_info_ratelimited("%s: write of %zu bytes refused (1-%zu)\n",
				    file, count, max);
		return -EINVAL;
	}
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	return count;
}

static ssize_t copy_control_write(char *kbuf, const char __user *ubuf,
				  size_t count, loff_t *ppos, const char *file)
{
	return copy_write(kbuf, THPNUMA_MAX_WRITE, ubuf, count, ppos, file);
}

/* A setting's file: i_private is its entry in thpnuma_settings[]. */
static int setting_show(struct seq_file *m, void *v)
{
	char buf[128];

	thpnuma_config_show(m->private, buf, sizeof(buf));
	seq_puts(m, buf);
	return 0;
}

static int setting_open(struct inode *inode, struct file *file)
{
	return single_open(file, setting_show, inode->i_private);
}

static ssize_t setting_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	const struct thpnuma_setting *s =
		((struct seq_file *)file->private_data)->private;
	char kbuf[THPNUMA_MAX_WRITE];
	unsigned int value;
	ssize_t ret;

	ret = copy_control_write(kbuf, ubuf, count, ppos, s->name);
	if (ret < 0)
		return ret;
	if (thpnuma_parse_setting(s, kbuf, count, &value)) {
		pr_info_ratelimited("%s: invalid value refused%s%s%s\n",
				    s->name, s->range ? " (" : "",
				    s->range ?: "", s->range ? ")" : "");
		return -EINVAL;
	}
	thpnuma_config_update(s->id, value);
	return count;
}

static const struct file_operations setting_fops = {
	.owner		= THIS_MODULE,
	.open		= setting_open,
	.read		= seq_read,
	.write		= setting_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static ssize_t reset_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	static const char *const one[] = { "1" };
	char kbuf[THPNUMA_MAX_WRITE];
	unsigned int unused;
	ssize_t ret;

	ret = copy_control_write(kbuf, ubuf, count, ppos, "reset");
	if (ret < 0)
		return ret;
	if (thpnuma_parse_choice(kbuf, count, one, 1, &unused)) {
		pr_info_ratelimited("reset: write \"1\" to reset\n");
		return -EINVAL;
	}
	thpnuma_counters_reset();
	return count;
}

static const struct file_operations reset_fops = {
	.owner		= THIS_MODULE,
	.open		= simple_open,
	.write		= reset_write,
};

static int tasks_show(struct seq_file *m, void *v)
{
	thpnuma_tasks_show(m);
	return 0;
}

static int tasks_open(struct inode *inode, struct file *file)
{
	return single_open(file, tasks_show, NULL);
}

/* "PID " and THPNUMA_OVERRIDE_GRAMMAR set an override, "PID default" drops it. */
static ssize_t tasks_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct thpnuma_task_write w;
	char kbuf[THPNUMA_MAX_TASK_WRITE];
	ssize_t ret;

	ret = copy_write(kbuf, sizeof(kbuf), ubuf, count, ppos, "tasks");
	if (ret < 0)
		return ret;
	if (thpnuma_parse_task_write(kbuf, count, &w)) {
		pr_info_ratelimited("tasks: expected \"PID " THPNUMA_OVERRIDE_GRAMMAR "\" or \"PID default\"\n");
		return -EINVAL;
	}
	ret = thpnuma_tasks_write(&w);
	return ret ? ret : count;
}

static const struct file_operations tasks_fops = {
	.owner		= THIS_MODULE,
	.open		= tasks_open,
	.read		= seq_read,
	.write		= tasks_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* The same list read-only: lockdown refuses only files with a write bit. */
static const struct file_operations overrides_fops = {
	.owner		= THIS_MODULE,
	.open		= tasks_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int cgroups_show(struct seq_file *m, void *v)
{
	thpnuma_cgroups_show(m);
	return 0;
}

static int cgroups_open(struct inode *inode, struct file *file)
{
	return single_open(file, cgroups_show, NULL);
}

/* "PATH " and THPNUMA_OVERRIDE_GRAMMAR set a cgroup's, "PATH default" drops it. */
static ssize_t cgroups_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct thpnuma_cgroup_write w;
	char *kbuf;
	ssize_t ret;

	kbuf = kmalloc(THPNUMA_MAX_CGROUP_WRITE, GFP_KERNEL);
	if (!kbuf)
		return -ENOMEM;
	ret = copy_write(kbuf, THPNUMA_MAX_CGROUP_WRITE, ubuf, count, ppos,
			 "cgroups");
	if (ret < 0)
		goto out;
	if (thpnuma_parse_cgroup_write(kbuf, count, &w)) {
		pr_info_ratelimited("cgroups: expected \"PATH " THPNUMA_OVERRIDE_GRAMMAR "\" or \"PATH default\", PATH a cgroup v2 path\n");
		ret = -EINVAL;
		goto out;
	}
	ret = thpnuma_cgroups_write(&w);
	if (!ret)
		ret = count;
out:
	kfree(kbuf);
	return ret;
}

static const struct file_operations cgroups_fops = {
	.owner		= THIS_MODULE,
	.open		= cgroups_open,
	.read		= seq_read,
	.write		= cgroups_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int policies_show(struct seq_file *m, void *v)
{
	return thpnuma_policies_show(m);
}
DEFINE_SHOW_ATTRIBUTE(policies);

static int stats_show(struct seq_file *m, void *v)
{
	u64 *snap = thpnuma_counters_snapshot();
	int nid;

	if (!snap)
		return -ENOMEM;
	thpnuma_stats_header(m);
	for_each_node(nid)
		thpnuma_stats_rows(m, nid, &snap[nid * THPNUMA_NR_COUNTERS]);
	kvfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int hist_show(struct seq_file *m, void *v)
{
	u64 *snap = thpnuma_hist_snapshot();
	int nid;

	if (!snap)
		return -ENOMEM;
	thpnuma_hist_header(m);
	for_each_node(nid)
		thpnuma_hist_rows(m, nid, &snap[nid * THPNUMA_HIST_PER_NODE]);
	kvfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hist);

static int orders_show(struct seq_file *m, void *v)
{
	u64 *snap = thpnuma_orders_snapshot();
	int nid;

	if (!snap)
		return -ENOMEM;
	thpnuma_orders_header(m);
	for_each_node(nid)
		thpnuma_orders_rows(m, nid,
				    &snap[nid * THPNUMA_ORDERS_PER_NODE]);
	kvfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(orders);

static int budget_show(struct seq_file *m, void *v)
{
	u64 row[THPNUMA_BUDGET_COLUMNS];
	int nid;

	thpnuma_budget_header(m);
	for_each_node(nid) {
		thpnuma_node_budget_read(nid, row);
		thpnuma_budget_rows(m, nid, row);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(budget);

static int version_show(struct seq_file *m, void *v)
{
	thpnuma_version_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(version);

/* nodeN/<counter>: i_private encodes nid * THPNUMA_NR_COUNTERS + counter. */
static int node_counter_show(struct seq_file *m, void *v)
{
	unsigned long idx = (unsigned long)m->private;
	u64 *snap = thpnuma_counters_snapshot();

	if (!snap)
		return -ENOMEM;
	seq_printf(m, "%llu\n", snap[idx]);
	kvfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(node_counter);

struct thpnuma_debugfs_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	const void *data;
};

static const struct thpnuma_debugfs_file thpnuma_files[] = {
	{ "reset",		0200, &reset_fops,		NULL },
	{ "tasks",		0600, &tasks_fops,		NULL },
	{ "overrides",		0400, &overrides_fops,		NULL },
	{ "cgroups",		0600, &cgroups_fops,		NULL },
	{ "stats",		0400, &stats_fops,		NULL },
	{ "policies",		0400, &policies_fops,		NULL },
	{ "hist",		0400, &hist_fops,		NULL },
	{ "orders",		0400, &orders_fops,		NULL },
	{ "budget",		0400, &budget_fops,		NULL },
	{ "version",		0400, &version_fops,		NULL },
};

int thpnuma_debugfs_init(void)
{
	char name[32];
	int i, nid, c;

	/*
	 * debugfs=off or no-mount leaves no debugfs at all. The policy needs
	 * none: settings are module parameters, overrides are in
	 * /sys/kernel/thpnuma/tasks. Only the statistics are lost.
	 */
	if (!debugfs_initialized()) {
		pr_warn("debugfs is disabled on this kernel (debugfs=off or no-mount): no statistics; settings in /sys/module/thpnuma/parameters, overrides in /sys/kernel/thpnuma/tasks\n");
		return 0;
	}
	thpnuma_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(thpnuma_dir)) {
		pr_err("cannot create debugfs directory: %ld\n",
		       PTR_ERR(thpnuma_dir));
		return PTR_ERR(thpnuma_dir);
	}
	for (i = 0; i < THPNUMA_NR_SETTINGS; i++)
		debugfs_create_file(thpnuma_settings[i].name, 0600,
				    thpnuma_dir, (void *)&thpnuma_settings[i],
				    &setting_fops);
	for (i = 0; i < ARRAY_SIZE(thpnuma_files); i++)
		debugfs_create_file(thpnuma_files[i].name,
				    thpnuma_files[i].mode, thpnuma_dir,
				    (void *)thpnuma_files[i].data,
				    thpnuma_files[i].fops);

	/* Every possible node: one brought online later (hot-add) has its files. */
	for_each_node(nid) {
		struct dentry *node_dir;

		snprintf(name, sizeof(name), "node%d", nid);
		node_dir = debugfs_create_dir(name, thpnuma_dir);
		for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
			debugfs_create_file(thpnuma_counter_names[c], 0400,
					    node_dir,
					    (void *)(unsigned long)
					    (nid * THPNUMA_NR_COUNTERS + c),
					    &node_counter_fops);
	}
	return 0;
}

void thpnuma_debugfs_exit(void)
{
	debugfs_remove_recursive(thpnuma_dir);
}
