// SPDX-License-Identifier: GPL-2.0
/* thpnumactl hist: latency histograms of the hooked THP allocations. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>
#include "hist.h"
#include "thpnumactl.h"

/* The hist file, parsed. Returns 0, or an exit status after a message. */
static int read_hist(void *data)
{
	struct thpnuma_hist *h = data;
	char reason[256], *text;
	int ret;

	ret = read_counters("hist", &text);
	if (ret)
		return ret;
	ret = hist_parse(text, h, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("hist", reason) : 0;
}

static int write_hist(FILE *out, const struct report_options *ro,
		      const void *data)
{
	if (ro->format == REPORT_PROMETHEUS)
		hist_write_prometheus(out, data);
	else if (ro->format == REPORT_JSON)
		hist_write_json(out, data);
	else
		hist_write_text(out, data);
	return EXIT_OK;
}

static int hist_select(void *data, int node)
{
	return hist_select_node(data, node);
}

static void hist_release(void *data)
{
	hist_free(data);
}

static int do_hist(const struct command *cmd, int argc, char *argv[])
{
	static const struct report_source hist_report = {
		.read = read_hist, .select_node = hist_select,
		.write = write_hist, .free = hist_release,
	};
	struct thpnuma_hist h;

	return run_report(cmd, argc, argv, &hist_report, &h);
}

const struct command cmd_hist = {
	.name = "hist", .run = do_hist,
	.summary = "allocation latency histograms, like bpftrace's hist()",
	.usage =
	"hist [-n NODE] [--json | --prometheus] [-o FILE]\n"
	"How long each THP allocation thpnuma placed took, per faulting node\n"
	"and outcome (local, remote, fallback), in log2 buckets of\n"
	"nanoseconds (K, M, G: 2^10, 2^20, 2^30). Each histogram with\n"
	"allocations gets a heading with its count, total time and the\n"
	"buckets holding the median (p50), the 99th percentile and the\n"
	"slowest allocation, given as upper bounds (\"< 64K ns\"), then one\n"
	"row per bucket from the first to the last non-empty one.\n\n"
	"  -n, --node NODE    only this node\n"
	"      --json         one JSON object: every histogram, its buckets\n"
	"                     and their bounds\n"
	"      --prometheus   a Prometheus histogram, thpnuma_alloc_duration_seconds\n"
	"  -o, --output FILE  write FILE atomically, as stat -o does\n"
	"  -h, --help         show this help\n\n"
	"Examples:\n"
	"  thpnumactl hist\n"
	"  thpnumactl hist -n 1 --json\n"
	"  thpnumactl hist --prometheus \\\n"
	"      -o /var/lib/prometheus/node-exporter/thpnuma-hist.prom\n",
};
