// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl policy, zone-reclaim, budget-us, scope, coverage: show or set
 * one run-time setting, named and validated by the module's own
 * thpnuma_settings[].
 * And reset, which zeroes the counters.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "thpnumactl.h"

/*
 * @text, as the command takes it, into @param, as the module parameter
 * takes it: a name, zone_reclaim's names as bits. -1 to go on, else a
 * usage error's exit status.
 */
static int check_value(const struct command *cmd,
		       const struct thpnuma_setting *s, const char *text,
		       char *param, size_t len)
{
	unsigned int value = 0;
	int ret = EXIT_USAGE;

	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		ret = check_choice(cmd, s, text);
		if (ret < 0)
			snprintf(param, len, "%s", text);
		return ret;
	case THPNUMA_SETTING_BITS:
		ret = check_zone_reclaim(cmd, text, &value);
		break;
	case THPNUMA_SETTING_MICROSECONDS:
		ret = check_budget_us(cmd, text, &value);
		break;
	}
	if (ret < 0)
		snprintf(param, len, "%u", value);
	return ret;
}

/*
 * zone_reclaim acts only under local-then-remote and budget, budget_us
 * only under budget: say so when a change leaves one without effect.
 * Settings come from the module parameters; when one cannot be read
 * there is nothing to say.
 */
static void note_unused_setting(const struct thpnuma_setting *s,
				const char *wanted, const char *param)
{
	char policy[64], zr[64];

	if (s->id == THPNUMA_SETTING_ZONE_RECLAIM && strcmp(param, "0") &&
	    !read_param("policy", policy, sizeof(policy)) &&
	    !policy_uses_zone_reclaim(policy))
		notice("zone_reclaim applies only under " ZONE_RECLAIM_POLICIES "; the current policy is %s",
		       policy);
	if (s->id == THPNUMA_SETTING_BUDGET_US &&
	    !read_param("policy", policy, sizeof(policy)) &&
	    !policy_uses_budget(policy))
		notice("budget_us applies only under budget; the current policy is %s",
		       policy);
	if (s->id == THPNUMA_SETTING_POLICY &&
	    !policy_uses_zone_reclaim(wanted) &&
	    !read_param("zone_reclaim", zr, sizeof(zr)) &&
	    zr[0] >= '1' && zr[0] <= '7' && !zr[1]) {
		format_zone_reclaim(zr, sizeof(zr), zr[0] - '0');
		notice("zone_reclaim %s applies only under " ZONE_RECLAIM_POLICIES "; it has no effect under %s",
		       zr, wanted);
	}
}

/*
 * The module parameter: it works without debugfs, under kernel lockdown,
 * and reads need no root.
 */
static int do_setting(const struct command *cmd, int argc, char *argv[])
{
	const struct thpnuma_setting *s = setting_by_name(cmd->name);
	char path[PATH_MAX], line[256], param[THPNUMA_MAX_WRITE + 1];
	char text[64];
	const char *wanted = NULL;
	int ret;

	/* "-5" is a bad value, not an unknown option '-5'. */
	if (argc == 2 && argv[1][0] == '-' &&
	    isdigit((unsigned char)argv[1][1])) {
		ret = check_value(cmd, s, argv[1], param, sizeof(param));
		if (ret >= 0)
			return ret;
	}
	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		wanted = argv[optind];
		ret = check_value(cmd, s, wanted, param, sizeof(param));
		if (ret >= 0)
			return ret;
	}
	ret = ensure_module();
	if (ret)
		return ret;
	if (wanted) {
		ret = write_param(s, param);
		if (ret)
			return ret;
		/* The write was accepted whole: that is the new value. */
		if (format_setting(s, param, text, sizeof(text)))
			snprintf(text, sizeof(text), "%s", param);
		printf("%s\n", text);
		note_unused_setting(s, wanted, param);
		return EXIT_OK;
	}
	snprintf(path, sizeof(path), "%s/" PARAMS_DIR "/%s", sysfs_root(),
		 s->name);
	ret = read_line(path, line, sizeof(line));
	if (ret)
		return sysfs_failure("read", path, -ret);
	if (format_setting(s, line, text, sizeof(text))) {
		error("unexpected contents in %s: '%s'", path, line);
		return EXIT_FAIL;
	}
	printf("%s\n", text);
	return EXIT_OK;
}

/* /sys/kernel/thpnuma/reset, which kernel lockdown leaves usable. */
static int do_reset(const struct command *cmd, int argc, char *argv[])
{
	char path[PATH_MAX];
	int ret;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	ret = ensure_module();
	if (ret)
		return ret;
	sysfs_path(path, sizeof(path), CONTROL_DIR "/reset");
	ret = write_value(path, "1");
	if (ret)
		return sysfs_failure("write", path, -ret);
	printf("counters reset\n");
	return EXIT_OK;
}

const struct command cmd_policy = {
	.name = "policy", .run = do_setting,
	.summary = "show or set the placement policy",
	.usage =
	"policy [" THPNUMA_POLICY_CHOICES "]\n"
	"Without an argument, print the current policy; with one, set it.\n\n"
	"Examples:\n"
	"  thpnumactl policy\n"
	"  thpnumactl policy local-then-remote\n",
};

const struct command cmd_zone_reclaim = {
	.name = "zone-reclaim", .run = do_setting,
	.summary = "show or set the local reclaim effort",
	.usage =
	"zone-reclaim [BITS | none | reclaim,write,swap]\n"
	"How hard local-then-remote and budget try on the local node before\n"
	"going remote: 1 reclaim clean page cache, 2 may write to the\n"
	"filesystem, 4 may swap. Prints the value as \"BITS (names)\".\n\n"
	"Examples:\n"
	"  thpnumactl zone-reclaim\n"
	"  thpnumactl zone-reclaim 3\n"
	"  thpnumactl zone-reclaim reclaim,swap\n",
};

const struct command cmd_budget_us = {
	.name = "budget-us", .run = do_setting,
	.summary = "show or set the budget policy's bound on local effort",
	.usage =
	"budget-us [MICROSECONDS]\n"
	"What a local attempt that needs compaction or reclaim may cost under\n"
	"the budget policy, 1-1000000 microseconds (default 1000). A node whose\n"
	"recent attempts cost more on average tries that effort only now and\n"
	"then, until it is cheap again ('thpnumactl status' shows each node).\n\n"
	"Examples:\n"
	"  thpnumactl budget-us\n"
	"  thpnumactl budget-us 500\n",
};

const struct command cmd_scope = {
	.name = "scope", .run = do_setting,
	.summary = "show or set which THP faults are covered",
	.usage =
	"scope [" THPNUMA_SCOPE_CHOICES "]\n"
	"all: every THP fault; madvise: only MADV_HUGEPAGE regions.\n\n"
	"Examples:\n"
	"  thpnumactl scope\n"
	"  thpnumactl scope madvise\n",
};

const struct command cmd_coverage = {
	.name = "coverage", .run = do_setting,
	.summary = "show or set which THP kinds and orders are covered",
	.usage =
	"coverage [" THPNUMA_COVERAGE_CHOICES "]\n"
	"pmd: anonymous PMD-size (2 MiB) THP faults only; pmd+mthp: anonymous\n"
	"THP faults of every order; all: anonymous and shmem/tmpfs THPs of\n"
	"every order (the default).\n\n"
	"Examples:\n"
	"  thpnumactl coverage\n"
	"  thpnumactl coverage pmd\n",
};

const struct command cmd_reset = {
	.name = "reset", .run = do_reset,
	.summary = "zero the counters",
	.usage =
	"reset\n"
	"Zero all counters. Needs root.\n\n"
	"Example:\n"
	"  thpnumactl reset\n",
};
