// SPDX-License-Identifier: GPL-2.0
/* thpnumactl stat and watch: the per-node counters, whole or per interval. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "json.h"
#include "orders.h"
#include "overrides.h"
#include "stats.h"
#include "thpnumactl.h"

/* The stats file, parsed. Returns 0, or an exit status after a message. */
static int read_stats(struct thpnuma_stats *st)
{
	char reason[256], *text;
	int ret;

	ret = read_counters("stats", &text);
	if (ret)
		return ret;
	ret = stats_parse(text, st, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("stats", reason) : 0;
}

/* What stat shows: the stats file and the orders file. */
struct stat_report {
	struct thpnuma_stats st;
	struct thpnuma_orders orders;
};

/* The orders file, parsed. Returns 0, or an exit status after a message. */
static int read_orders(struct stat_report *sr)
{
	char reason[256], *text;
	int ret;

	ret = read_counters("orders", &text);
	if (ret)
		return ret;
	ret = orders_parse(text, &sr->orders, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("orders", reason) : 0;
}

/* Look up @key in the version file's "key value" lines; "unknown" if absent. */
static void version_field(const char *text, const char *key, char *out,
			  size_t len)
{
	size_t klen = strlen(key);
	const char *p = text;

	snprintf(out, len, "unknown");
	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ' ') {
			p += klen + 1;
			snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/*
 * thpnuma_info: a constant 1 whose labels say what is running and how it
 * is set, so dashboards can join on them. Settings come from the module
 * parameters, which lockdown leaves readable.
 */
static void write_info_metric(FILE *out)
{
	static const char *const version_keys[] = {
		"version", "kernel", "hooked_symbol",
	};
	char path[PATH_MAX], value[256], *text;
	unsigned int i;

	counters_path(path, sizeof(path), "version");
	text = read_text(path);
	fputs("# HELP thpnuma_info thpnuma's version, the kernel it was built for, the hooked symbol and the current settings.\n"
	      "# TYPE thpnuma_info gauge\n"
	      "thpnuma_info{", out);
	for (i = 0; i < ARRAY_SIZE(version_keys); i++) {
		version_field(text, version_keys[i], value, sizeof(value));
		fprintf(out, "%s=", version_keys[i]);
		prometheus_write_label_value(out, value);
		fputc(',', out);
	}
	free(text);
	for (i = 0; i < THPNUMA_NR_SETTINGS; i++) {
		const char *name = thpnuma_settings[i].name;

		snprintf(path, sizeof(path), "%s/" PARAMS_DIR "/%s",
			 sysfs_root(), name);
		if (read_line(path, value, sizeof(value)))
			snprintf(value, sizeof(value), "unknown");
		fprintf(out, "%s%s=", i ? "," : "", name);
		prometheus_write_label_value(out, value);
	}
	fputs("} 1\n", out);
}

/*
 * Everything --prometheus writes: counters, those per kind and order,
 * info, per-policy totals.
 */
static int write_prometheus(FILE *out, const struct stat_report *sr)
{
	struct policy_table pt;
	int ret;

	stats_write_prometheus(out, &sr->st);
	orders_write_prometheus(out, &sr->orders);
	write_info_metric(out);
	ret = read_policies(&pt);
	if (ret)
		return ret;
	policies_write_prometheus(out, &pt);
	policies_free(&pt);
	return EXIT_OK;
}

static void write_json(FILE *out, const struct stat_report *sr)
{
	struct json_writer j;

	json_begin(&j, out, JSON_SPACED, true);
	stats_write_json_members(&j, &sr->st);
	orders_write_json(&j, &sr->orders);
	json_end(&j);
}

static int write_stats(FILE *out, const struct report_options *ro,
		       const void *data)
{
	const struct stat_report *sr = data;

	if (ro->format == REPORT_PROMETHEUS)
		return write_prometheus(out, sr);
	if (ro->format == REPORT_JSON) {
		write_json(out, sr);
		return EXIT_OK;
	}
	stats_write_table(out, &sr->st, ro->node < 0);
	fputc('\n', out);
	orders_write_table(out, &sr->orders);
	return EXIT_OK;
}

static int stats_read(void *data)
{
	struct stat_report *sr = data;
	int ret;

	ret = read_stats(&sr->st);
	if (ret)
		return ret;
	ret = read_orders(sr);
	if (ret)
		stats_free(&sr->st);
	return ret;
}

static int stats_select(void *data, int node)
{
	struct stat_report *sr = data;

	orders_select_node(&sr->orders, node);
	return stats_select_node(&sr->st, node);
}

static void stats_release(void *data)
{
	struct stat_report *sr = data;

	stats_free(&sr->st);
	orders_free(&sr->orders);
}

static int do_stat(const struct command *cmd, int argc, char *argv[])
{
	static const struct report_source stats_report = {
		.read = stats_read, .select_node = stats_select,
		.write = write_stats, .free = stats_release,
	};
	struct stat_report sr;

	return run_report(cmd, argc, argv, &stats_report, &sr);
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

/* vmstat's rule: a header every screenful, 22 rows when not a terminal. */
static unsigned int watch_height(void)
{
	struct winsize ws;

	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 5)
		return ws.ws_row - 3;
	return 22;
}

static int parse_interval(const char *text, double *interval)
{
	char *end;

	errno = 0;
	*interval = strtod(text, &end);
	return errno || end == text || *end ||
	       !(*interval >= 0.1 && *interval <= 86400) ? -EINVAL : 0;
}

static int parse_count(const char *text, unsigned long *count)
{
	char *end;

	errno = 0;
	*count = strtoul(text, &end, 10);
	return errno || end == text || *end || text[0] == '-' || !*count ?
	       -EINVAL : 0;
}

/* One report: its rows, after a header if the screen is full. */
static void watch_report(const struct thpnuma_stats *delta, bool one_header,
			 unsigned int *lines)
{
	unsigned int rows = delta->nr_nodes + (delta->nr_nodes > 1);
	char stamp[16];
	time_t now = time(NULL);

	if (!*lines || (!one_header && *lines + rows > watch_height())) {
		stats_write_watch_header(stdout);
		*lines = 1;
	}
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	stats_write_watch_rows(stdout, stamp, delta);
	*lines += rows;
}

static int do_watch(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_ONE_HEADER = 256 };
	/* No -n: that is --node, in every command that has one. */
	static const struct option options[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "one-header", no_argument, NULL, OPT_ONE_HEADER },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct thpnuma_stats prev, cur, delta;
	struct sigaction sa = { .sa_handler = watch_on_signal };
	unsigned long count = 0, done;
	unsigned int lines = 0;
	bool one_header = false, set_i = false, set_c = false;
	double interval = 1.0;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":i:c:h", options, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (parse_interval(optarg, &interval))
				return usage_error(cmd,
						   "invalid interval '%s' (0.1 to 86400 seconds)",
						   optarg);
			set_i = true;
			break;
		case 'c':
			if (parse_count(optarg, &count))
				return usage_error(cmd,
						   "invalid count '%s' (a positive number)",
						   optarg);
			set_c = true;
			break;
		case OPT_ONE_HEADER:
			one_header = true;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	/* vmstat's form: watch [INTERVAL [COUNT]]. */
	if (optind < argc) {
		if (set_i)
			return usage_error(cmd, "the interval is given twice");
		if (parse_interval(argv[optind], &interval))
			return usage_error(cmd,
					   "invalid interval '%s' (0.1 to 86400 seconds)",
					   argv[optind]);
		optind++;
	}
	if (optind < argc) {
		if (set_c)
			return usage_error(cmd, "the count is given twice");
		if (parse_count(argv[optind], &count))
			return usage_error(cmd,
					   "invalid count '%s' (a positive number)",
					   argv[optind]);
		optind++;
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	ret = ensure_module();
	if (ret)
		return ret;
	ret = read_stats(&prev);
	if (ret)
		return ret;

	/* No SA_RESTART: the signal must cut nanosleep short. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Like vmstat, the first report covers everything since the load. */
	watch_report(&prev, one_header, &lines);
	for (done = 1; !count || done < count; done++) {
		if (fflush(stdout) || ferror(stdout))
			break;		/* main() reports the write error */
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
		watch_report(&delta, one_header, &lines);
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
	"stat [-n NODE] [--json | --prometheus] [-o FILE]\n"
	"Counters per node (columns) with a Total column and the local,\n"
	"remote and fallback shares and average allocation time (in\n"
	"microseconds). Then the outcomes per THP kind and size\n"
	"(\"anon 2048kB\"), summed over the nodes shown; JSON and Prometheus\n"
	"give them per node. --prometheus adds thpnuma_info (version and\n"
	"settings as labels) and the per-policy totals.\n\n"
	"  -n, --node NODE    only this node\n"
	"      --json         one JSON object\n"
	"      --prometheus   Prometheus text format (node_exporter textfile)\n"
	"  -o, --output FILE  write FILE atomically: a temporary file in the\n"
	"                     same directory, renamed over FILE when complete\n"
	"  -h, --help         show this help\n\n"
	"Exit status 1 if anything could not be read or written; FILE is\n"
	"then left as it was.\n\n"
	"Examples:\n"
	"  thpnumactl stat\n"
	"  thpnumactl stat -n 1 --json\n"
	"  thpnumactl stat --prometheus \\\n"
	"      -o /var/lib/prometheus/node-exporter/thpnuma.prom\n",
};

const struct command cmd_watch = {
	.name = "watch", .run = do_watch,
	.summary = "counters since load, then per interval (like vmstat)",
	.usage =
	"watch [--one-header] [INTERVAL [COUNT]]\n"
	"Like vmstat: the first report counts everything since the module was\n"
	"loaded (or reset), each later one what changed in the last INTERVAL\n"
	"seconds (counts per interval, not per second). One row per node and\n"
	"an \"all\" row; the header is repeated every screenful.\n\n"
	"  INTERVAL                seconds between reports (default 1, min 0.1)\n"
	"  COUNT                   stop after COUNT reports (default: Ctrl-C)\n"
	"  -i, --interval SECONDS  the same as INTERVAL\n"
	"  -c, --count COUNT       the same as COUNT\n"
	"      --one-header        print the header once\n"
	"  -h, --help              show this help\n\n"
	"Examples:\n"
	"  thpnumactl watch\n"
	"  thpnumactl watch 5 12\n",
};
