// SPDX-License-Identifier: GPL-2.0
/* thpnumactl stat and watch: the per-node counters, whole or per interval. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stats.h"
#include "thpnumactl.h"

/* The stats file, parsed. Returns 0, or an exit status after a message. */
static int read_stats(struct thpnuma_stats *st)
{
	char reason[256], *text;
	int ret;

	ret = read_debugfs("stats", &text);
	if (ret)
		return ret;
	ret = stats_parse(text, st, reason, sizeof(reason));
	free(text);
	return ret ? debugfs_parse_failure("stats", reason) : 0;
}

/* A node number: decimal, below the kernel's node limit. */
static int parse_node(const char *text, int *node)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' ||
	    v >= STATS_MAX_NODES)
		return -EINVAL;
	*node = (int)v;
	return 0;
}

static int do_stat(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_JSON = 256, OPT_PROMETHEUS };
	static const struct option options[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	enum { TABLE, JSON, PROMETHEUS } format = TABLE;
	struct thpnuma_stats st;
	int node = -1;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":n:h", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_node(optarg, &node))
				return usage_error(cmd, "invalid node '%s'",
						   optarg);
			break;
		case OPT_JSON:
		case OPT_PROMETHEUS:
			if (format != TABLE)
				return usage_error(cmd,
						   "--json and --prometheus exclude each other");
			format = c == OPT_JSON ? JSON : PROMETHEUS;
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
	ret = ensure_debugfs();
	if (ret)
		return ret;
	ret = read_stats(&st);
	if (ret)
		return ret;
	if (node >= 0 && stats_select_node(&st, node)) {
		error("node %d is not online", node);
		stats_free(&st);
		return EXIT_FAIL;
	}
	if (format == JSON)
		stats_write_json(stdout, &st);
	else if (format == PROMETHEUS)
		stats_write_prometheus(stdout, &st);
	else
		stats_write_table(stdout, &st, node < 0);
	stats_free(&st);
	return EXIT_OK;
}

/* volatile sig_atomic_t: what C allows a signal handler to write. */
static volatile sig_atomic_t watch_stop;

/* Async-signal-safe: only sets a flag the loop polls. */
static void watch_on_signal(int sig)
{
	watch_stop = 1;
}

/* Sleep @seconds unless a stop signal arrives first. */
static void watch_sleep(double seconds)
{
	struct timespec left = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (!watch_stop && nanosleep(&left, &left) && errno == EINTR)
		;
}

static int do_watch(const struct command *cmd, int argc, char *argv[])
{
	static const struct option options[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct thpnuma_stats prev, cur, delta;
	struct sigaction sa = { .sa_handler = watch_on_signal };
	unsigned long count = 0, done;
	double interval = 1.0;
	char stamp[16], *end;
	time_t now;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":i:c:h", options, NULL)) != -1) {
		switch (c) {
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(interval >= 0.1 && interval <= 86400))
				return usage_error(cmd,
						   "invalid interval '%s' (0.1 to 86400 seconds)",
						   optarg);
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end ||
			    optarg[0] == '-' || count == 0)
				return usage_error(cmd,
						   "invalid count '%s' (a positive number)",
						   optarg);
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
	ret = ensure_debugfs();
	if (ret)
		return ret;
	ret = read_stats(&prev);
	if (ret)
		return ret;

	/* No SA_RESTART: the signal must cut nanosleep short. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	stats_write_watch_header(stdout);
	fflush(stdout);
	for (done = 0; !count || done < count; done++) {
		watch_sleep(interval);
		if (watch_stop)
			break;
		ret = read_stats(&cur);
		if (ret)
			break;
		if (stats_delta(&prev, &cur, &delta)) {
			error("out of memory");
			stats_free(&cur);
			ret = EXIT_FAIL;
			break;
		}
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		stats_write_watch_rows(stdout, stamp, &delta);
		fflush(stdout);
		stats_free(&delta);
		stats_free(&prev);
		prev = cur;
	}
	stats_free(&prev);
	return ret;
}

const struct command cmd_stat = {
	.name = "stat", .run = do_stat,
	.summary = "per-node counters as a table, JSON or Prometheus",
	.usage =
	"stat [-n NODE] [--json | --prometheus]\n"
	"Counters per node (columns) with a Total column and the local,\n"
	"remote and fallback shares and average allocation time.\n\n"
	"  -n, --node NODE   only this node\n"
	"      --json        one JSON object\n"
	"      --prometheus  Prometheus text format (node_exporter textfile)\n"
	"  -h, --help        show this help\n\n"
	"Examples:\n"
	"  thpnumactl stat\n"
	"  thpnumactl stat -n 1 --json\n"
	"  thpnumactl stat --prometheus > /var/lib/node_exporter/thpnuma.prom\n",
};

const struct command cmd_watch = {
	.name = "watch", .run = do_watch,
	.summary = "per-interval counter deltas until Ctrl-C",
	.usage =
	"watch [-i SECONDS] [-c COUNT]\n"
	"Print what changed in each interval, one row per node and a total.\n\n"
	"  -i, --interval SECONDS  time between rows (default 1, min 0.1)\n"
	"  -c, --count COUNT       stop after COUNT intervals\n"
	"  -h, --help              show this help\n\n"
	"Examples:\n"
	"  thpnumactl watch\n"
	"  thpnumactl watch -i 5 -c 12\n",
};
