// SPDX-License-Identifier: GPL-2.0
/*
 * thpnuma: run-time NUMA placement policy for transparent huge page faults.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include "compat.h"
#include "account.h"
#include "inflight.h"
#include "thpnuma.h"

static int __init thpnuma_init(void)
{
	struct thpnuma_config cfg;
	int err;

	err = thpnuma_counters_init();
	if (err)
		goto out;
	err = thpnuma_inflight_init();
	if (err)
		goto err_counters;
	err = thpnuma_account_init();
	if (err)
		goto err_inflight;
	err = thpnuma_tasks_init();
	if (err)
		goto err_account;
	err = thpnuma_cgroups_init();
	if (err)
		goto err_tasks;
	err = thpnuma_probes_install();
	if (err)
		goto err_cgroups;
	err = thpnuma_hooks_install();
	if (err)
		goto err_probes;
	err = thpnuma_debugfs_init();
	if (err)
		goto err_hooks;
	err = thpnuma_sysfs_init();
	if (err)
		goto err_debugfs;

	cfg = thpnuma_config_get();
	pr_info("hooked %s: policy=%s zone_reclaim=%u scope=%s coverage=%s\n",
		THPNUMA_HOOKED_SYMBOL, thpnuma_policy_names[cfg.policy],
		cfg.zone_reclaim, thpnuma_scope_names[cfg.scope],
		thpnuma_coverage_names[cfg.coverage]);
	return 0;

err_debugfs:
	thpnuma_debugfs_exit();
err_hooks:
	thpnuma_hooks_remove();
err_probes:
	thpnuma_probes_remove();
err_cgroups:
	thpnuma_cgroups_exit();
err_tasks:
	thpnuma_tasks_exit();
err_account:
	thpnuma_account_exit();
err_inflight:
	thpnuma_inflight_exit();
err_counters:
	thpnuma_counters_exit();
out:
	return err;
}

static void __exit thpnuma_exit(void)
{
	thpnuma_sysfs_exit();
	thpnuma_debugfs_exit();
	thpnuma_hooks_remove();
	thpnuma_probes_remove();
	thpnuma_cgroups_exit();
	thpnuma_tasks_exit();
	thpnuma_account_exit();
	thpnuma_inflight_exit();
	thpnuma_counters_exit();
	pr_info("unloaded\n");
}

module_init(thpnuma_init);
module_exit(thpnuma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Run-time NUMA placement policy for THP faults");
MODULE_VERSION(THPNUMA_VERSION);
