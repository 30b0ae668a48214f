// SPDX-License-Identifier: GPL-2.0
/*
 * thpnuma: run-time NUMA placement policy for transparent huge page faults.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "compat.h"
#include "thpnuma.h"

u32 thpnuma_config_word;

/*
 * Change one field of the configuration; readers see old or new, whole.
 * cmpxchg rather than a lock: the overrides flag changes in process exit.
 */
void thpnuma_config_update(size_t field_offset, unsigned int value)
{
	struct thpnuma_config cfg;
	u32 old, new;

	do {
		old = READ_ONCE(thpnuma_config_word);
		cfg = thpnuma_config_unpack(old);
		*(unsigned int *)((char *)&cfg + field_offset) = value;
		new = thpnuma_config_pack(&cfg) | (old & THPNUMA_CFG_OVERRIDES);
	} while (cmpxchg(&thpnuma_config_word, old, new) != old);
}

void thpnuma_config_set_overrides(bool present)
{
	u32 old, new;

	do {
		old = READ_ONCE(thpnuma_config_word);
		new = present ? old | THPNUMA_CFG_OVERRIDES :
				old & ~THPNUMA_CFG_OVERRIDES;
	} while (cmpxchg(&thpnuma_config_word, old, new) != old);
}

/* Module parameters read and write the live configuration. */
static int choice_param_set(const char *val, const struct kernel_param *kp,
			    const char *const *names, unsigned int nr,
			    size_t offset)
{
	unsigned int choice;

	if (thpnuma_parse_choice(val, strlen(val), names, nr, &choice)) {
		pr_err("invalid %s '%s'\n", kp->name, val);
		return -EINVAL;
	}
	thpnuma_config_update(offset, choice);
	return 0;
}

static int policy_param_set(const char *val, const struct kernel_param *kp)
{
	return choice_param_set(val, kp, thpnuma_policy_names,
				THPNUMA_NR_POLICIES,
				offsetof(struct thpnuma_config, policy));
}

static int policy_param_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n",
		       thpnuma_policy_names[thpnuma_config_get().policy]);
}

static const struct kernel_param_ops policy_param_ops = {
	.set = policy_param_set,
	.get = policy_param_get,
};
module_param_cb(policy, &policy_param_ops, NULL, 0444);
MODULE_PARM_DESC(policy,
		 "THP fault placement: kernel (default), strict-local or local-then-remote");

static int scope_param_set(const char *val, const struct kernel_param *kp)
{
	return choice_param_set(val, kp, thpnuma_scope_names,
				THPNUMA_NR_SCOPES,
				offsetof(struct thpnuma_config, scope));
}

static int scope_param_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n",
		       thpnuma_scope_names[thpnuma_config_get().scope]);
}

static const struct kernel_param_ops scope_param_ops = {
	.set = scope_param_set,
	.get = scope_param_get,
};
module_param_cb(scope, &scope_param_ops, NULL, 0444);
MODULE_PARM_DESC(scope,
		 "Which THP faults the policy covers: all (default) or madvise");

static int zone_reclaim_param_set(const char *val,
				  const struct kernel_param *kp)
{
	unsigned int bits;

	if (thpnuma_parse_zone_reclaim(val, strlen(val), &bits)) {
		pr_err("invalid zone_reclaim '%s': expected 0-7\n", val);
		return -EINVAL;
	}
	thpnuma_config_update(offsetof(struct thpnuma_config, zone_reclaim),
			      bits);
	return 0;
}

static int zone_reclaim_param_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%u\n", thpnuma_config_get().zone_reclaim);
}

static const struct kernel_param_ops zone_reclaim_param_ops = {
	.set = zone_reclaim_param_set,
	.get = zone_reclaim_param_get,
};
module_param_cb(zone_reclaim, &zone_reclaim_param_ops, NULL, 0444);
MODULE_PARM_DESC(zone_reclaim,
		 "Local effort of local-then-remote before going remote: 0 compaction only, |1 reclaim clean page cache, |2 enter the filesystem, |4 swap");

static int __init thpnuma_init(void)
{
	struct thpnuma_config cfg;
	int err;

	err = thpnuma_counters_init();
	if (err)
		goto out;
	err = thpnuma_tasks_init();
	if (err)
		goto err_counters;
	err = thpnuma_probes_install();
	if (err)
		goto err_tasks;
	err = thpnuma_hooks_install();
	if (err)
		goto err_probes;
	err = thpnuma_debugfs_init();
	if (err)
		goto err_hooks;

	cfg = thpnuma_config_get();
	pr_info("hooked %s: policy=%s zone_reclaim=%u scope=%s\n",
		THPNUMA_HOOKED_SYMBOL, thpnuma_policy_names[cfg.policy],
		cfg.zone_reclaim, thpnuma_scope_names[cfg.scope]);
	return 0;

err_hooks:
	thpnuma_hooks_remove();
err_probes:
	thpnuma_probes_remove();
err_tasks:
	thpnuma_tasks_exit();
err_counters:
	thpnuma_counters_exit();
out:
	return err;
}

static void __exit thpnuma_exit(void)
{
	thpnuma_debugfs_exit();
	thpnuma_hooks_remove();
	thpnuma_probes_remove();
	thpnuma_tasks_exit();
	thpnuma_counters_exit();
	pr_info("unloaded\n");
}

module_init(thpnuma_init);
module_exit(thpnuma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run-time NUMA placement policy for THP faults");
MODULE_VERSION(THPNUMA_VERSION);
