// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl - load, configure and observe the thpnuma kernel module.
 *
 * The dispatcher: each command lives in a cmd-*.c file that ends with its
 * descriptor (name, summary, --help text); this file lists them and picks
 * one. Exit status: 0 success, 1 runtime failure (a failed write to
 * stdout included), 2 usage error; status: 3 when thpnuma is not loaded.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "thpnumactl.h"

/* In the order --help lists them. */
static const struct command *const commands[] = {
	&cmd_load, &cmd_unload, &cmd_apply, &cmd_status,
	&cmd_policy, &cmd_zone_reclaim, &cmd_budget_us, &cmd_scope,
	&cmd_coverage,
	&cmd_stat, &cmd_watch, &cmd_hist,
	&cmd_run, &cmd_tasks, &cmd_task, &cmd_cgroups, &cmd_cgroup,
	&cmd_compare,
	&cmd_policies,
	&cmd_reset, &cmd_help,
};

static const struct command *find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void show_overview(FILE *out)
{
	unsigned int i;

	fprintf(out,
		"Usage: " PROG " [--help] [--version] COMMAND [ARGS]\n"
		"Load, configure and observe the thpnuma kernel module.\n\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-14s %s\n", commands[i]->name,
			commands[i]->summary);
	fprintf(out, "\nRun '" PROG " COMMAND --help' for a command's options.\n");
}

static int do_help(const struct command *cmd, int argc, char *argv[])
{
	const struct command *topic;
	int ret;

	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		show_overview(stdout);
		return EXIT_OK;
	}
	topic = find_command(argv[optind]);
	if (!topic)
		return usage_error(cmd, "unknown command '%s'", argv[optind]);
	show_help(topic);
	return EXIT_OK;
}

const struct command cmd_help = {
	.name = "help", .run = do_help,
	.summary = "show help for a command",
	.usage = "help [COMMAND]\n",
};

/*
 * Output is buffered: a full disk or a closed pipe shows only when it is
 * flushed. A script or cron job must see that in the exit status.
 */
static int finish_stdout(int ret)
{
	bool failed = ferror(stdout);	/* an earlier flush's errno is gone */
	int err = 0;

	if (fflush(stdout) || fclose(stdout))
		err = errno;
	else if (!failed)
		return ret;
	if (err)
		error("write error on standard output: %s", strerror(err));
	else
		error("write error on standard output");
	return ret ? ret : EXIT_FAIL;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	const struct command *cmd;
	int c;

	opterr = 0;
	/* '+': stop at the command name; its options are its own. */
	while ((c = getopt_long(argc, argv, "+hV", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			show_overview(stdout);
			return finish_stdout(EXIT_OK);
		case 'V':
			printf(PROG " " THPNUMA_VERSION "\n");
			return finish_stdout(EXIT_OK);
		default:
			if (optopt)
				error("unknown option '-%c'", optopt);
			else
				error("unknown option '%s'", argv[optind - 1]);
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		error("missing command");
		show_overview(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		error("unknown command '%s'", argv[optind]);
		fprintf(stderr, "Try '" PROG " --help'.\n");
		return EXIT_USAGE;
	}
	return finish_stdout(cmd->run(cmd, argc - optind, argv + optind));
}
