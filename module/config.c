// SPDX-License-Identifier: GPL-2.0
/*
 * The live configuration: one packed word that the fault path reads with a
 * single load, and the module parameters that set it at load time and, as
 * root-writable sysfs files, at run time. The debugfs files change it
 * through the same calls. The parameters are the way to change settings
 * under kernel lockdown, which refuses debugfs files with a write bit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "thpnuma.h"

u64 thpnuma_config_word = THPNUMA_CFG_DEFAULT;

/*
 * Change one setting; readers see the old or the new word, whole. cmpxchg
 * rather than a lock: the overrides flag also changes in process exit.
 */
void thpnuma_config_update(enum thpnuma_setting_id id, unsigned int value)
{
	struct thpnuma_config cfg;
	u64 old, new;

	do {
		old = READ_ONCE(thpnuma_config_word);
		cfg = thpnuma_config_unpack(old);
		thpnuma_config_set_field(&cfg, id, value);
		new = thpnuma_config_pack(&cfg) | (old & THPNUMA_CFG_LOOKUPS);
	} while (cmpxchg(&thpnuma_config_word, old, new) != old);
}

void thpnuma_config_set_lookup(u64 flag, bool present)
{
	u64 old, new;

	do {
		old = READ_ONCE(thpnuma_config_word);
		new = present ? old | flag : old & ~flag;
	} while (cmpxchg(&thpnuma_config_word, old, new) != old);
}

int thpnuma_config_show(const struct thpnuma_setting *s, char *buf,
			size_t size)
{
	struct thpnuma_config cfg = thpnuma_config_get();

	return thpnuma_format_setting(s, thpnuma_config_get_field(&cfg, s->id),
				      buf, size);
}

/*
 * Each parameter's kp->arg is its entry in thpnuma_settings[]. At load
 * time and through /sys/module/thpnuma/parameters alike; sysfs hands over
 * the write NUL-terminated (an echo's newline is allowed by the parser).
 */
static int setting_param_set(const char *val, const struct kernel_param *kp)
{
	const struct thpnuma_setting *s = kp->arg;
	size_t len = strnlen(val, THPNUMA_MAX_WRITE + 1);
	unsigned int value;

	if (len > THPNUMA_MAX_WRITE ||
	    thpnuma_parse_setting(s, val, len, &value)) {
		pr_err_ratelimited("invalid %s '%.*s'%s%s\n", s->name,
				   (int)min_t(size_t, strcspn(val, "\n"), 64), val,
				   s->range ? ": expected " : "", s->range ?: "");
		return -EINVAL;
	}
	thpnuma_config_update(s->id, value);
	return 0;
}

/* The parameter shows the current value alone, without the choices. */
static int setting_param_get(char *buf, const struct kernel_param *kp)
{
	const struct thpnuma_setting *s = kp->arg;
	struct thpnuma_config cfg = thpnuma_config_get();
	unsigned int value = thpnuma_config_get_field(&cfg, s->id);

	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		return sprintf(buf, "%s\n", s->choices[value]);
	case THPNUMA_SETTING_BITS:
	case THPNUMA_SETTING_MICROSECONDS:
		break;
	}
	return sprintf(buf, "%u\n", value);
}

static const struct kernel_param_ops setting_param_ops = {
	.set = setting_param_set,
	.get = setting_param_get,
};

/* Root-writable: the run-time control that lockdown does not block. */
#define SETTING_PARAM(name, id) \
	module_param_cb(name, &setting_param_ops, \
			(void *)&thpnuma_settings[id], 0644)

SETTING_PARAM(policy, THPNUMA_SETTING_POLICY);
MODULE_PARM_DESC(policy,
		 "THP fault placement: kernel (default), strict-local, local-then-remote or budget");

SETTING_PARAM(zone_reclaim, THPNUMA_SETTING_ZONE_RECLAIM);
MODULE_PARM_DESC(zone_reclaim,
		 "Local effort of local-then-remote and budget before going remote, a sum of: 1 reclaim clean page cache, 2 enter the filesystem, 4 swap (default 0: compaction only)");

SETTING_PARAM(scope, THPNUMA_SETTING_SCOPE);
MODULE_PARM_DESC(scope,
		 "Which THP faults the policy covers: all (default) or madvise");

SETTING_PARAM(budget_us, THPNUMA_SETTING_BUDGET_US);
MODULE_PARM_DESC(budget_us,
		 "The budget policy's bound on a local attempt that needs compaction or reclaim, in microseconds, 1-1000000 (default 1000): a node whose recent ones cost more gets a cheap local try, then remote");

SETTING_PARAM(coverage, THPNUMA_SETTING_COVERAGE);
MODULE_PARM_DESC(coverage,
		 "Which THP kinds and orders the policy covers: pmd (anonymous PMD-size), pmd+mthp (anonymous, every order) or all (default: anonymous and shmem/tmpfs, every order)");
