// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/thpnuma: the control files that kernel lockdown leaves
 * usable. Lockdown (Debian turns it on under Secure Boot) refuses to open
 * any debugfs file with a write bit, so the tasks and reset files are here
 * too, write-only, with debugfs' grammar; the settings are the module
 * parameters (config.c), and the 0400 debugfs files stay readable.
 *
 * A kobject rather than module parameters: a write arrives with its
 * length, so it is parsed as strictly as the debugfs file (an embedded NUL
 * is refused), and a PID is meaningless at load time, when parameters are
 * parsed and the override table does not exist yet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kobject.h>
#include <linux/sysfs.h>
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
static ssize_t tasks_store(struct kobject *kobj, struct kobj_attribute *attr,
			   const char *buf, size_t count)
{
	struct thpnuma_task_write w;
	int err;

	if (!control_write_ok(count, "tasks"))
		return -EINVAL;
	if (thpnuma_parse_task_write(buf, count, &w)) {
		pr_info_ratelimited("tasks: expected \"PID POLICY [0-7]\" or \"PID default\"\n");
		return -EINVAL;
	}
	err = thpnuma_tasks_write(&w);
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

static struct kobj_attribute tasks_attr = __ATTR_WO(tasks);
static struct kobj_attribute reset_attr = __ATTR_WO(reset);

static struct attribute *thpnuma_attrs[] = {
	&tasks_attr.attr,
	&reset_attr.attr,
	NULL,
};

static const struct attribute_group thpnuma_attr_group = {
	.attrs = thpnuma_attrs,
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
