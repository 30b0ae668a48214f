// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl apply: apply the settings file again, as `systemctl reload
 * thpnuma` does; load applies it when it loads the module.
 */
#include <getopt.h>
#include <stdio.h>
#include "thpnumactl.h"

static int do_apply(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_DRY_RUN = 256 };
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *path = conf_default_path();
	struct thpnuma_conf conf;
	bool dry_run = false;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":C:h", options, NULL)) != -1) {
		switch (c) {
		case 'C':
			path = optarg;
			break;
		case OPT_DRY_RUN:
			dry_run = true;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	ret = conf_read(path, false, &conf);
	if (ret)
		return ret;
	if (!dry_run) {
		ret = ensure_module();
		if (ret)
			goto out;
	}
	if (conf_empty(&conf))
		printf("%s sets nothing\n", path);
	ret = conf_apply(cmd, &conf, true, dry_run);
out:
	conf_free(&conf);
	return ret;
}

const struct command cmd_apply = {
	.name = "apply", .run = do_apply,
	.summary = "apply the settings file (/etc/thpnuma.conf) again",
	.usage =
	"apply [--config FILE] [--dry-run]\n"
	"Apply the settings file again, as 'systemctl reload thpnuma' does:\n"
	"its policy, zone_reclaim, budget_us, scope and coverage, then its\n"
	"per-cgroup settings. The whole file is checked first: a bad line is named as\n"
	"FILE:LINE and nothing is applied. A cgroup that does not exist yet is\n"
	"skipped with a note. Settings the file does not name stay as they\n"
	"are. Needs root, except with --dry-run.\n\n"
	"  -C, --config FILE  the settings file (default /etc/thpnuma.conf)\n"
	"      --dry-run      check the file and print what would be set\n"
	"  -h, --help         show this help\n\n"
	"Examples:\n"
	"  thpnumactl apply\n"
	"  thpnumactl apply --dry-run --config /tmp/thpnuma.conf\n",
};
