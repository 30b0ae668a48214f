// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/thpnuma: the control files that kernel lockdown leaves
 * usable. Lockdown (Debian turns it on under Secure Boot) refuses to open
 * any debugfs file with a write bit, so the tasks, cgroups and reset files
 * are here too, with debugfs' grammar; the settings are the module parameters
 * (config.c), and the 0400 debugfs files stay readable. A kernel booted
 * with debugfs=off has no debugfs at all: tasks also lists the overrides.
 *
 * The counters are here too, readable by any user, so that an exporter
 * needs no root: nodes/nodeN/{stats,hist,orders} hold one node's rows of
 * the debugfs tables under the same header, and policies and version are
 * the debugfs files. One node per file keeps a file within the page sysfs
 * formats it in, whatever the number of nodes, and sysfs formats a file
 * once per open, so a reader never sees two snapshots spliced.
 *
 * A kobject rather than module parameters: a write arrives with its
 * length, so it is parsed as strictly as the debugfs file (an embedded NUL
 * is refused), and a PID is meaningless at load time, when parameters are
 * parsed and the override table does not exist yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "compat.h"
#include "thpnuma.h"

static struct kobject *thpnuma_kobj;
static struct kobject *nodes_kobj;
static struct kobject **node_kobjs;	/* [nid], possible nodes only */

/* One whole value per write, as in debugfs. */
static bool write_ok(size_t count, size_t max, const char *file)
{
	if (count == 0 || count > max) {
		pr_info_ratelimited("%s: write of %zu bytes refused (1-%zu)\n",
				    file, count, max);
		return false;
	}
	return true;
}

static bool control_write_ok(size_t count, const char *file)
{
	return write_ok(count, THPNUMA_MAX_WRITE, file);
}

/* "PID " and THPNUMA_OVERRIDE_GRAMMAR set an override, "PID default" drops it. */
static ssize_t tasks_write(struct file *file, struct kobject *kobj,
			   THPNUMA_BIN_ATTR_CONST struct bin_attribute *attr,
			   char *buf, loff_t off, size_t count)
{
	struct thpnuma_task_write w;
	int err;

	/* Any offset: kernfs advances it after each write on the fd. */
	if (!write_ok(count, THPNUMA_MAX_TASK_WRITE, "tasks"))
		return -EINVAL;
	if (thpnuma_parse_task_write(buf, count, &w)) {
		pr_info_ratelimited("tasks: expected \"PID " THPNUMA_OVERRIDE_GRAMMAR "\" or \"PID default\"\n");
		return -EINVAL;
	}
	err = thpnuma_tasks_write(&w);
	return err ? err : count;
}

/*
 * A list file's text from @show, as its debugfs twin shows it. kernfs
 * hands a bin file to read() a page at a time: the whole list is
 * formatted when a read starts at offset 0 (or finds no text) and kept
 * for the reads that go on, until one reaches the end. A list of n
 * entries costs O(n), not a formatting per page. Readers share the text:
 * one that starts again while another is halfway through gives the
 * other the rest of the new text, so a list longer than a page that
 * changes meanwhile can tear (debugfs' files read one snapshot each).
 */
struct list_text {
	void (*show)(struct seq_file *m);
	struct mutex lock;
	char *buf;
	size_t len;
};

#define LIST_TEXT(_name, _show)						\
	static struct list_text _name = {					\
		.show	= _show,						\
		.lock	= __MUTEX_INITIALIZER(_name.lock),			\
	}

static int list_format(struct list_text *t)
{
	struct seq_file m = { .size = PAGE_SIZE };

	for (;;) {
		m.buf = kvmalloc(m.size, GFP_KERNEL);
		if (!m.buf)
			return -ENOMEM;
		m.count = 0;
		t->show(&m);
		if (!seq_has_overflowed(&m))
			break;
		kvfree(m.buf);
		m.size *= 2;
	}
	t->buf = m.buf;
	t->len = m.count;
	return 0;
}

static void list_drop(struct list_text *t)
{
	kvfree(t->buf);
	t->buf = NULL;
	t->len = 0;
}

static ssize_t list_read(struct list_text *t, char *buf, loff_t off,
			 size_t count)
{
	ssize_t ret = 0;

	mutex_lock(&t->lock);
	if (!off || !t->buf) {
		list_drop(t);
		ret = list_format(t);
	}
	if (!ret && off < t->len) {
		ret = min_t(size_t, count, t->len - off);
		memcpy(buf, t->buf + off, ret);
	}
	if (ret >= 0 && off + ret >= t->len)
		list_drop(t);
	mutex_unlock(&t->lock);
	return ret;
}

/* The overrides, one "PID COMMAND POLICY ZONE_RECLAIM BUDGET_US" line each. */
LIST_TEXT(tasks_text, thpnuma_tasks_show);
/* The cgroup settings, one "PATH POLICY ZONE_RECLAIM BUDGET_US" line each. */
LIST_TEXT(cgroups_text, thpnuma_cgroups_show);
/* What each cgroup's setting decided: counters, latency histograms. */
LIST_TEXT(cgroup_stats_text, thpnuma_cgroup_stats_show);
LIST_TEXT(cgroup_hist_text, thpnuma_cgroup_hist_show);

/* Every bin file is a list: its list_text is the attribute's private. */
static ssize_t list_file_read(struct file *file, struct kobject *kobj,
			      THPNUMA_BIN_ATTR_CONST struct bin_attribute *attr,
			      char *buf, loff_t off, size_t count)
{
	return list_read(attr->private, buf, off, count);
}

/* "PATH " and THPNUMA_OVERRIDE_GRAMMAR set a cgroup's, "PATH default" drops it. */
static ssize_t cgroups_write(struct file *file, struct kobject *kobj,
			     THPNUMA_BIN_ATTR_CONST struct bin_attribute *attr,
			     char *buf, loff_t off, size_t count)
{
	struct thpnuma_cgroup_write w;
	int err;

	if (!write_ok(count, THPNUMA_MAX_CGROUP_WRITE, "cgroups"))
		return -EINVAL;
	if (thpnuma_parse_cgroup_write(buf, count, &w)) {
		pr_info_ratelimited("cgroups: expected \"PATH " THPNUMA_OVERRIDE_GRAMMAR "\" or \"PATH default\", PATH a cgroup v2 path\n");
		return -EINVAL;
	}
	err = thpnuma_cgroups_write(&w);
	return err ? err : count;
}


static ssize_t reset_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	static const char *const one[] = { "1" };
	unsigned int unused;

	if (!control_write_ok(count, "reset"))
		return -EINVAL;
	if (thpnuma_parse_choice(buf, count, one, 1, &unused)) {
		pr_info_ratelimited("reset: write \"1\" to reset\n");
		return -EINVAL;
	}
	thpnuma_counters_reset();
	return count;
}

/*
 * The end of a read-only file's show: its length, the text being in sysfs'
 * page. The tables are sized to fit (tables.c), so an overflow is a bug,
 * not a big machine.
 */
static ssize_t page_used(struct seq_file *m)
{
	if (WARN_ON_ONCE(seq_has_overflowed(m)))
		return -EFBIG;
	return m->count;
}

/* nodes/nodeN/NAME: that node's counters, as one of the debugfs tables. */
struct node_file {
	struct kobj_attribute attr;
	size_t nr;				/* counters per node */
	void (*read)(int nid, u64 *counts);
	void (*header)(struct seq_file *m);
	void (*rows)(struct seq_file *m, int nid, const u64 *counts);
};

static ssize_t node_file_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	const struct node_file *f = container_of(attr, struct node_file, attr);
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };
	u64 *counts;
	int nid;

	/* The node is in the directory's name, which nodes_init() gave. */
	if (sscanf(kobject_name(kobj), "node%d", &nid) != 1 ||
	    nid < 0 || nid >= nr_node_ids)
		return -ENODEV;
	counts = kmalloc_array(f->nr, sizeof(*counts), GFP_KERNEL);
	if (!counts)
		return -ENOMEM;
	f->read(nid, counts);
	f->header(&m);
	f->rows(&m, nid, counts);
	kfree(counts);
	return page_used(&m);
}

#define NODE_FILE(_name, _nr, _read, _table) {				\
	.attr	= __ATTR(_name, 0444, node_file_show, NULL),		\
	.nr	= _nr,							\
	.read	= _read,						\
	.header	= thpnuma_##_table##_header,				\
	.rows	= thpnuma_##_table##_rows,				\
}

static struct node_file node_files[] = {
	NODE_FILE(stats, THPNUMA_NR_COUNTERS, thpnuma_node_counters_read,
		  stats),
	NODE_FILE(hist, THPNUMA_HIST_PER_NODE, thpnuma_node_hist_read, hist),
	NODE_FILE(orders, THPNUMA_ORDERS_PER_NODE, thpnuma_node_orders_read,
		  orders),
	NODE_FILE(budget, THPNUMA_BUDGET_COLUMNS, thpnuma_node_budget_read,
		  budget),
};

static struct attribute *node_attrs[] = {
	&node_files[0].attr.attr,
	&node_files[1].attr.attr,
	&node_files[2].attr.attr,
	&node_files[3].attr.attr,
	NULL,
};

static const struct attribute_group node_attr_group = {
	.attrs	= node_attrs,
};

static ssize_t policies_show(struct kobject *kobj, struct kobj_attribute *attr,
			     char *buf)
{
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };
	int err = thpnuma_policies_show(&m);

	return err ? err : page_used(&m);
}

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	struct seq_file m = { .buf = buf, .size = PAGE_SIZE };

	thpnuma_version_show(&m);
	return page_used(&m);
}

#define LIST_FILE(_name, _mode, _write) {				\
	.attr		= { .name = #_name, .mode = _mode },		\
	.read		= list_file_read,				\
	.write		= _write,					\
	.private	= &_name##_text,				\
}

static struct bin_attribute tasks_attr = LIST_FILE(tasks, 0600, tasks_write);
static struct bin_attribute cgroups_attr =
	LIST_FILE(cgroups, 0600, cgroups_write);
static struct bin_attribute cgroup_stats_attr =
	LIST_FILE(cgroup_stats, 0444, NULL);
static struct bin_attribute cgroup_hist_attr =
	LIST_FILE(cgroup_hist, 0444, NULL);

static struct kobj_attribute reset_attr = __ATTR_WO(reset);
static struct kobj_attribute policies_attr = __ATTR_RO(policies);
static struct kobj_attribute version_attr = __ATTR_RO(version);

static struct attribute *thpnuma_attrs[] = {
	&reset_attr.attr,
	&policies_attr.attr,
	&version_attr.attr,
	NULL,
};

static THPNUMA_BIN_ATTR_CONST struct bin_attribute *thpnuma_bin_attrs[] = {
	&tasks_attr,
	&cgroups_attr,
	&cgroup_stats_attr,
	&cgroup_hist_attr,
	NULL,
};

static const struct attribute_group thpnuma_attr_group = {
	.attrs		= thpnuma_attrs,
	.bin_attrs	= thpnuma_bin_attrs,
};

/*
 * Out of sysfs now, whatever else holds the kobject: with
 * CONFIG_DEBUG_KOBJECT_RELEASE the last put is delayed, and its files must
 * not outlive the module's code.
 */
static void unlink_kobj(struct kobject *kobj)
{
	kobject_del(kobj);
	kobject_put(kobj);
}

static void nodes_exit(void)
{
	int nid;

	for (nid = 0; node_kobjs && nid < nr_node_ids; nid++)
		unlink_kobj(node_kobjs[nid]);
	kfree(node_kobjs);
	node_kobjs = NULL;
	unlink_kobj(nodes_kobj);
	nodes_kobj = NULL;
}

/* Every possible node, as in debugfs: one hot-added later has its files. */
static int nodes_init(void)
{
	char name[16];
	int nid, err;

	nodes_kobj = kobject_create_and_add("nodes", thpnuma_kobj);
	node_kobjs = kcalloc(nr_node_ids, sizeof(*node_kobjs), GFP_KERNEL);
	if (!nodes_kobj || !node_kobjs)
		goto nomem;
	for_each_node(nid) {
		snprintf(name, sizeof(name), "node%d", nid);
		node_kobjs[nid] = kobject_create_and_add(name, nodes_kobj);
		if (!node_kobjs[nid])
			goto nomem;
		err = sysfs_create_group(node_kobjs[nid], &node_attr_group);
		if (err)
			goto fail;
	}
	return 0;

nomem:
	err = -ENOMEM;
fail:
	pr_err("cannot create /sys/kernel/" KBUILD_MODNAME "/nodes: %d\n", err);
	nodes_exit();
	return err;
}

int thpnuma_sysfs_init(void)
{
	int err;

	/* kernel_kobj: mm_kobj is not exported to modules on 6.12. */
	thpnuma_kobj = kobject_create_and_add(KBUILD_MODNAME, kernel_kobj);
	if (!thpnuma_kobj) {
		pr_err("cannot create /sys/kernel/" KBUILD_MODNAME "\n");
		return -ENOMEM;
	}
	err = sysfs_create_group(thpnuma_kobj, &thpnuma_attr_group);
	if (err) {
		pr_err("cannot create /sys/kernel/" KBUILD_MODNAME " files: %d\n",
		       err);
		goto err_kobj;
	}
	err = nodes_init();
	if (err)
		goto err_kobj;
	return 0;

err_kobj:
	unlink_kobj(thpnuma_kobj);
	thpnuma_kobj = NULL;
	return err;
}

/* Removing the files waits for writes in progress. */
void thpnuma_sysfs_exit(void)
{
	THPNUMA_BIN_ATTR_CONST struct bin_attribute *const *attr;

	nodes_exit();
	unlink_kobj(thpnuma_kobj);
	thpnuma_kobj = NULL;
	for (attr = thpnuma_bin_attrs; *attr; attr++)
		list_drop((*attr)->private);
}
