// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/thpnuma: the control files that kernel lockdown leaves
 * usable. Lockdown (Debian turns it on under Secure Boot) refuses to open
 * any debugfs file with a write bit, so the tasks and reset files are here
 * too, with debugfs' grammar; the settings are the module parameters
 * (config.c), and the 0400 debugfs files stay readable. A kernel booted
 * with debugfs=off has no debugfs at all: tasks also lists the overrides.
 *
 * A kobject rather than module parameters: a write arrives with its
 * length, so it is parsed as strictly as the debugfs file (an embedded NUL
 * is refused), and a PID is meaningless at load time, when parameters are
 * parsed and the override table does not exist yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include "compat.h"
#include "thpnuma.h"

static struct kobject *thpnuma_kobj;

/* One whole value per write, as in debugfs. */
static bool control_write_ok(size_t count, const char *file)
{
	if (count == 0 || count > THPNUMA_MAX_WRITE) {
		pr_info_ratelimited("%s: write of %zu bytes refused (1-%d)\n",
				    file, count, THPNUMA_MAX_WRITE);
		return false;
	}
	return true;
}

/* "PID POLICY [ZONE_RECLAIM]" sets an override, "PID default" drops it. */
static ssize_t tasks_write(struct file *file, struct kobject *kobj,
			   THPNUMA_BIN_ATTR_CONST struct bin_attribute *attr,
			   char *buf, loff_t off, size_t count)
{
	struct thpnuma_task_write w;
	int err;

	/* Any offset: kernfs advances it after each write on the fd. */
	if (!control_write_ok(count, "tasks"))
		return -EINVAL;
	if (thpnuma_parse_task_write(buf, count, &w)) {
		pr_info_ratelimited("tasks: expected \"PID POLICY [0-7]\" or \"PID default\"\n");
		return -EINVAL;
	}
	err = thpnuma_tasks_write(&w);
	return err ? err : count;
}

/*
 * The overrides, one "PID COMMAND POLICY ZONE_RECLAIM" line each, as the
 * debugfs tasks file lists them. A read at any offset formats the whole
 * list, in a buffer that grows until it fits; kernfs hands a bin file to
 * read() a page at a time, so a list longer than a page that changes
 * between two reads can tear (debugfs' tasks file reads one snapshot).
 */
static ssize_t tasks_read(struct file *file, struct kobject *kobj,
			  THPNUMA_BIN_ATTR_CONST struct bin_attribute *attr,
			  char *buf, loff_t off, size_t count)
{
	struct seq_file m = { .size = PAGE_SIZE };
	ssize_t ret = 0;

	for (;;) {
		m.buf = kvmalloc(m.size, GFP_KERNEL);
		if (!m.buf)
			return -ENOMEM;
		m.count = 0;
		thpnuma_tasks_show(&m);
		if (!seq_has_overflowed(&m))
			break;
		kvfree(m.buf);
		m.size *= 2;
	}
	if (off < m.count) {
		ret = min_t(size_t, count, m.count - off);
		memcpy(buf, m.buf + off, ret);
	}
	kvfree(m.buf);
	return ret;
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

static struct bin_attribute tasks_attr = {
	.attr	= { .name = "tasks", .mode = 0600 },
	.read	= tasks_read,
	.write	= tasks_write,
};
static struct kobj_attribute reset_attr = __ATTR_WO(reset);

static struct attribute *thpnuma_attrs[] = {
	&reset_attr.attr,
	NULL,
};

static THPNUMA_BIN_ATTR_CONST struct bin_attribute *thpnuma_bin_attrs[] = {
	&tasks_attr,
	NULL,
};

static const struct attribute_group thpnuma_attr_group = {
	.attrs		= thpnuma_attrs,
	.bin_attrs	= thpnuma_bin_attrs,
};

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
		kobject_put(thpnuma_kobj);
		thpnuma_kobj = NULL;
	}
	return err;
}

/* Removing the files waits for writes in progress. */
void thpnuma_sysfs_exit(void)
{
	kobject_put(thpnuma_kobj);
	thpnuma_kobj = NULL;
}
