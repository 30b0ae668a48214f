// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl policy, zone-reclaim, scope, coverage: show or set one run-time
 * setting, named and validated by the module's own thpnuma_settings[].
 * And reset, which zeroes the counters.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "thpnumactl.h"

/*
 * What the parameter shows ("b", or "5"), as the command prints it ("b",
 * or "5 (reclaim,swap)"); -EINVAL if it shows something else.
 */
static int format_param_value(const struct thpnuma_setting *s,
			      const char *line, char *buf, size_t len)
{
	unsigned long value;
	char *end;

	if (s->choices) {
		if (lookup_name(line, s->choices, s->nr_choices) < 0 ||
		    strlen(line) >= len)
			return -EINVAL;
		memcpy(buf, line, strlen(line) + 1);
		return 0;
	}
	errno = 0;
	value = strtoul(line, &end, 10);
	if (errno || end == line || *end || value > THPNUMA_ZR_MASK)
		return -EINVAL;
	format_zone_reclaim(buf, len, value);
	return 0;
}

/*
 * zone_reclaim acts only under local-then-remote: say so when a change
 * leaves it without effect. Settings come from the module parameters;
 * when one cannot be read there is nothing to say.
 */
static void note_unused_zone_reclaim(const struct thpnuma_setting *s,
				     const char *wanted, unsigned int bits)
{
	char policy[64], zr[64];

	if (s->id == THPNUMA_SETTING_ZONE_RECLAIM && bits &&
	    !read_param("policy", policy, sizeof(policy)) &&
	    !policy_uses_zone_reclaim(policy))
		notice("zone_reclaim applies only under local-then-remote; the current policy is %s",
		     policy);
	if (s->id == THPNUMA_SETTING_POLICY &&
	    !policy_uses_zone_reclaim(wanted) &&
	    !read_param("zone_reclaim", zr, sizeof(zr)) &&
	    zr[0] >= '1' && zr[0] <= '7' && !zr[1]) {
		format_zone_reclaim(zr, sizeof(zr), zr[0] - '0');
		notice("zone_reclaim %s applies only under local-then-remote; it has no effect under %s",
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
	char param[PATH_MAX], line[256], text[64];
	const char *wanted = NULL;
	unsigned int bits = 0;
	int ret;

	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		wanted = argv[optind];
		if (s->choices)
			ret = check_choice(cmd, s, wanted);
		else
			ret = check_zone_reclaim(cmd, wanted, &bits);
		if (ret >= 0)
			return ret;
	}
	ret = ensure_module();
	if (ret)
		return ret;
	if (wanted) {
		if (s->choices)
			snprintf(text, sizeof(text), "%s", wanted);
		else
			snprintf(text, sizeof(text), "%u", bits);
		ret = write_param(s, text);
		if (ret)
			return ret;
		/* The write was accepted whole: that is the new value. */
		if (!s->choices)
			format_zone_reclaim(text, sizeof(text), bits);
		printf("%s\n", text);
		note_unused_zone_reclaim(s, wanted, bits);
		return EXIT_OK;
	}
	snprintf(param, sizeof(param), "%s/" PARAMS_DIR "/%s", sysfs_root(),
		 s->name);
	ret = read_line(param, line, sizeof(line));
	if (ret)
		return sysfs_failure("read", param, -ret);
	if (format_param_value(s, line, text, sizeof(text))) {
		error("unexpected contents in %s: '%s'", param, line);
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
	"How hard local-then-remote tries on the local node before going\n"
	"remote: 1 reclaim clean page cache, 2 may write to the filesystem,\n"
	"4 may swap. Prints the value as \"BITS (names)\".\n\n"
	"Examples:\n"
	"  thpnumactl zone-reclaim\n"
	"  thpnumactl zone-reclaim 3\n"
	"  thpnumactl zone-reclaim reclaim,swap\n",
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
