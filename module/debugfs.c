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
#include <generated/utsrelease.h>
#include "compat.h"
#include "thpnuma.h"

static struct dentry *thpnuma_dir;

/*
 * Copy a control-file write into @kbuf. Partial writes, writes at an
 * offset, empty and oversized writes are all refused: a control file
 * takes one whole value per write.
 */
static ssize_t copy_control_write(char *kbuf, const char __user *ubuf,
				  size_t count, loff_t *ppos, const char *file)
{
	if (*ppos != 0) {
		pr_info_ratelimited("%s: write at offset %lld refused\n",
				    file, *ppos);
		return -EINVAL;
	}
	if (count == 0 || count > THPNUMA_MAX_WRITE) {
		pr_info_ratelimited("%s: write of %zu bytes refused (1-%d)\n",
				    file, count, THPNUMA_MAX_WRITE);
		return -EINVAL;
	}
	if (copy_from_user(kbuf, ubuf, count))
		return -EFAULT;
	return count;
}

/* A control file that selects one name from a list. */
struct choice_file {
	const char *name;
	const char *const *choices;
	unsigned int nr_choices;
	unsigned int offset;	/* which field of struct thpnuma_config */
};

static unsigned int *config_field(struct thpnuma_config *cfg,
				  const struct choice_file *cf)
{
	return (unsigned int *)((char *)cfg + cf->offset);
}

static const struct choice_file policy_file = {
	.name		= "policy",
	.choices	= thpnuma_policy_names,
	.nr_choices	= THPNUMA_NR_POLICIES,
	.offset		= offsetof(struct thpnuma_config, policy),
};

static const struct choice_file scope_file = {
	.name		= "scope",
	.choices	= thpnuma_scope_names,
	.nr_choices	= THPNUMA_NR_SCOPES,
	.offset		= offsetof(struct thpnuma_config, scope),
};

static int choice_show(struct seq_file *m, void *v)
{
	const struct choice_file *cf = m->private;
	struct thpnuma_config cfg = thpnuma_config_get();
	char buf[128];

	thpnuma_format_choices(buf, sizeof(buf), cf->choices, cf->nr_choices,
			       *config_field(&cfg, cf));
	seq_puts(m, buf);
	return 0;
}

static int choice_open(struct inode *inode, struct file *file)
{
	return single_open(file, choice_show, inode->i_private);
}

static ssize_t choice_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	const struct choice_file *cf =
		((struct seq_file *)file->private_data)->private;
	char kbuf[THPNUMA_MAX_WRITE];
	unsigned int choice;
	ssize_t ret;

	ret = copy_control_write(kbuf, ubuf, count, ppos, cf->name);
	if (ret < 0)
		return ret;
	if (thpnuma_parse_choice(kbuf, count, cf->choices, cf->nr_choices,
				 &choice)) {
		pr_info_ratelimited("%s: invalid value refused\n", cf->name);
		return -EINVAL;
	}
	thpnuma_config_update(cf->offset, choice);
	return count;
}

static const struct file_operations choice_fops = {
	.owner		= THIS_MODULE,
	.open		= choice_open,
	.read		= seq_read,
	.write		= choice_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int zone_reclaim_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", thpnuma_config_get().zone_reclaim);
	return 0;
}

static int zone_reclaim_open(struct inode *inode, struct file *file)
{
	return single_open(file, zone_reclaim_show, NULL);
}

static ssize_t zone_reclaim_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char kbuf[THPNUMA_MAX_WRITE];
	unsigned int bits;
	ssize_t ret;

	ret = copy_control_write(kbuf, ubuf, count, ppos, "zone_reclaim");
	if (ret < 0)
		return ret;
	if (thpnuma_parse_zone_reclaim(kbuf, count, &bits)) {
		pr_info_ratelimited("zone_reclaim: invalid value refused (0-7)\n");
		return -EINVAL;
	}
	thpnuma_config_update(offsetof(struct thpnuma_config, zone_reclaim),
			      bits);
	return count;
}

static const struct file_operations zone_reclaim_fops = {
	.owner		= THIS_MODULE,
	.open		= zone_reclaim_open,
	.read		= seq_read,
	.write		= zone_reclaim_write,
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

/* "PID POLICY [ZONE_RECLAIM]" sets an override, "PID default" drops it. */
static ssize_t tasks_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	struct thpnuma_task_write w;
	char kbuf[THPNUMA_MAX_WRITE];
	ssize_t ret;

	ret = copy_control_write(kbuf, ubuf, count, ppos, "tasks");
	if (ret < 0)
		return ret;
	if (thpnuma_parse_task_write(kbuf, count, &w)) {
		pr_info_ratelimited("tasks: expected \"PID POLICY [0-7]\" or \"PID default\"\n");
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

/* Per-policy totals: what the default and the overrides did. */
static int policies_show(struct seq_file *m, void *v)
{
	u64 *snap = thpnuma_policy_counters_snapshot();
	unsigned int tasks[THPNUMA_NR_POLICIES];
	int p, c;

	if (!snap)
		return -ENOMEM;
	thpnuma_tasks_count_by_policy(tasks);
	seq_puts(m, "policy tasks");
	for (c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
		seq_printf(m, " %s", thpnuma_policy_counter_names[c]);
	seq_putc(m, '\n');
	for (p = 0; p < THPNUMA_NR_POLICIES; p++) {
		seq_printf(m, "%s %u", thpnuma_policy_names[p], tasks[p]);
		for (c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
			seq_printf(m, " %llu",
				   snap[p * THPNUMA_NR_POLICY_COUNTERS + c]);
		seq_putc(m, '\n');
	}
	kfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(policies);

static int stats_show(struct seq_file *m, void *v)
{
	u64 *snap = thpnuma_counters_snapshot();
	int nid, c;

	if (!snap)
		return -ENOMEM;
	seq_puts(m, "node");
	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		seq_printf(m, " %s", thpnuma_counter_names[c]);
	seq_putc(m, '\n');
	for_each_online_node(nid) {
		seq_printf(m, "%d", nid);
		for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
			seq_printf(m, " %llu",
				   snap[nid * THPNUMA_NR_COUNTERS + c]);
		seq_putc(m, '\n');
	}
	kfree(snap);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "version %s\nkernel %s\nhooked_symbol %s\n",
		   THPNUMA_VERSION, UTS_RELEASE, THPNUMA_HOOKED_SYMBOL);
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
	kfree(snap);
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
	{ "policy",		0600, &choice_fops,		&policy_file },
	{ "zone_reclaim",	0600, &zone_reclaim_fops,	NULL },
	{ "scope",		0600, &choice_fops,		&scope_file },
	{ "reset",		0200, &reset_fops,		NULL },
	{ "tasks",		0600, &tasks_fops,		NULL },
	{ "stats",		0400, &stats_fops,		NULL },
	{ "policies",		0400, &policies_fops,		NULL },
	{ "version",		0400, &version_fops,		NULL },
};

int thpnuma_debugfs_init(void)
{
	char name[32];
	int i, nid, c;

	thpnuma_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(thpnuma_dir)) {
		pr_err("cannot create debugfs directory: %ld\n",
		       PTR_ERR(thpnuma_dir));
		return PTR_ERR(thpnuma_dir);
	}
	for (i = 0; i < ARRAY_SIZE(thpnuma_files); i++)
		debugfs_create_file(thpnuma_files[i].name,
				    thpnuma_files[i].mode, thpnuma_dir,
				    (void *)thpnuma_files[i].data,
				    thpnuma_files[i].fops);

	for_each_online_node(nid) {
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
