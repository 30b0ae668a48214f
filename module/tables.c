// SPDX-License-Identifier: GPL-2.0
/*
 * The counter tables' text, shared by debugfs (every node in one file) and
 * sysfs (one node per file, a page at most): a header line naming the
 * columns, then rows that start with the node, so the sysfs files of all
 * nodes, headers dropped after the first, read as the debugfs file.
 */
#include <linux/build_bug.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <generated/utsrelease.h>
#include "compat.h"
#include "thpnuma.h"

/*
 * A sysfs file must fit its page (4 KiB on x86_64). Bounds: 20 digits per
 * count, 24 characters per name, 4 per node, order and size.
 */
#define U64_WIDTH	21
#define NAME_WIDTH	25
#define ROW_START	(4 * 5)
#define STATS_MAX	((THPNUMA_NR_COUNTERS + 1) * (NAME_WIDTH + U64_WIDTH))
#define HIST_MAX	((4 + THPNUMA_HIST_BUCKETS) * U64_WIDTH + \
			 THPNUMA_NR_HIST_OUTCOMES * \
			 (ROW_START + NAME_WIDTH + \
			  (2 + THPNUMA_HIST_BUCKETS) * U64_WIDTH))
#define ORDERS_MAX	((4 + THPNUMA_NR_ORDER_OUTCOMES) * NAME_WIDTH + \
			 THPNUMA_NR_KINDS * THPNUMA_MAX_THP_ORDER * \
			 (ROW_START + NAME_WIDTH + \
			  THPNUMA_NR_ORDER_OUTCOMES * U64_WIDTH))
#define POLICIES_MAX	((THPNUMA_NR_POLICIES + 1) * \
			 (2 * NAME_WIDTH + THPNUMA_NR_POLICY_COUNTERS * \
			  (NAME_WIDTH + U64_WIDTH)))

/* Every name within NAME_WIDTH, or the build fails. */
#define COLUMN_FITS(id, name, ...)	BUILD_BUG_ON_ZERO(sizeof(#name) > NAME_WIDTH),
#define STRING_FITS(id, name)		BUILD_BUG_ON_ZERO(sizeof(name) > NAME_WIDTH),

static const int names_fit[] __maybe_unused = {
	THPNUMA_NODE_COUNTERS(COLUMN_FITS)
	THPNUMA_POLICY_COUNTERS(COLUMN_FITS)
	THPNUMA_ORDER_OUTCOMES(COLUMN_FITS)
	THPNUMA_HIST_OUTCOMES(COLUMN_FITS)
	THPNUMA_KINDS(STRING_FITS, STRING_FITS)
	THPNUMA_POLICIES(STRING_FITS, STRING_FITS)
};

/* A node that went offline keeps its rows while it has counts. */
static bool node_shown(int nid, const u64 *counts, size_t nr)
{
	return node_online(nid) || memchr_inv(counts, 0, nr * sizeof(*counts));
}

void thpnuma_stats_header(struct seq_file *m)
{
	int c;

	seq_puts(m, "node");
	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		seq_printf(m, " %s", thpnuma_counter_names[c]);
	seq_putc(m, '\n');
}

void thpnuma_stats_rows(struct seq_file *m, int nid, const u64 *row)
{
	int c;

	BUILD_BUG_ON(STATS_MAX > SZ_4K);
	if (!node_shown(nid, row, THPNUMA_NR_COUNTERS))
		return;
	seq_printf(m, "%d", nid);
	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		seq_printf(m, " %llu", row[c]);
	seq_putc(m, '\n');
}

/*
 * One row per node and outcome: count, sum_ns, then the buckets, each
 * named in the header by its exclusive upper bound in ns.
 */
void thpnuma_hist_header_of(struct seq_file *m, const char *key)
{
	int b;

	seq_printf(m, "%s outcome count sum_ns", key);
	for (b = 0; b < THPNUMA_HIST_BUCKETS - 1; b++)
		seq_printf(m, " %llu", thpnuma_hist_bound(b));
	seq_puts(m, " inf\n");
}

void thpnuma_hist_rows_of(struct seq_file *m, const char *key,
			  const u64 *hists)
{
	int o, b;

	for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
		const u64 *h = &hists[o * THPNUMA_HIST_SLOTS];

		seq_printf(m, "%s %s %llu %llu", key,
			   thpnuma_hist_outcome_names[o], thpnuma_hist_count(h),
			   h[THPNUMA_HIST_SUM]);
		for (b = 0; b < THPNUMA_HIST_BUCKETS; b++)
			seq_printf(m, " %llu", h[b]);
		seq_putc(m, '\n');
	}
}

void thpnuma_hist_header(struct seq_file *m)
{
	thpnuma_hist_header_of(m, "node");
}

void thpnuma_hist_rows(struct seq_file *m, int nid, const u64 *node_hist)
{
	char node[12];

	BUILD_BUG_ON(HIST_MAX > SZ_4K);
	if (!node_shown(nid, node_hist, THPNUMA_HIST_PER_NODE))
		return;
	snprintf(node, sizeof(node), "%d", nid);
	thpnuma_hist_rows_of(m, node, node_hist);
}

/*
 * One row per node, kind and order with any count: the order the kernel
 * finally mapped, largest first, as in hugepages-<size>kB.
 */
void thpnuma_orders_header(struct seq_file *m)
{
	int o;

	seq_puts(m, "node kind order size_kb");
	for (o = 0; o < THPNUMA_NR_ORDER_OUTCOMES; o++)
		seq_printf(m, " %s", thpnuma_order_outcome_names[o]);
	seq_putc(m, '\n');
}

void thpnuma_orders_rows(struct seq_file *m, int nid, const u64 *node_orders)
{
	int kind, order, o;

	BUILD_BUG_ON(ORDERS_MAX > SZ_4K);
	for (kind = 0; kind < THPNUMA_NR_KINDS; kind++) {
		for (order = THPNUMA_MAX_THP_ORDER; order > 0; order--) {
			const u64 *row = node_orders +
					 thpnuma_order_slot(kind, order, 0);

			if (!memchr_inv(row, 0, THPNUMA_NR_ORDER_OUTCOMES *
					sizeof(*row)))
				continue;
			seq_printf(m, "%d %s %d %lu", nid,
				   thpnuma_kind_names[kind], order,
				   (PAGE_SIZE << order) / SZ_1K);
			for (o = 0; o < THPNUMA_NR_ORDER_OUTCOMES; o++)
				seq_printf(m, " %llu", row[o]);
			seq_putc(m, '\n');
		}
	}
}

/*
 * The budget policy's state of each online node: its estimate of an
 * effortful local attempt, the global budget it is held to, and while over
 * it, the probe period and the faults since the last probe.
 */
void thpnuma_budget_header(struct seq_file *m)
{
	seq_puts(m, "node estimate_ns budget_ns probe_period since_probe state\n");
}

void thpnuma_budget_rows(struct seq_file *m, int nid, const u64 *row)
{
	BUILD_BUG_ON(THPNUMA_BUDGET_COLUMNS * 2 * U64_WIDTH > SZ_4K);
	if (!node_online(nid))
		return;
	seq_printf(m, "%d %llu %llu %llu %llu %s\n", nid, row[0], row[1],
		   row[2], row[3], row[0] > row[1] ? "over" : "within");
}

/* Per-policy totals: what the default and the overrides did. */
int thpnuma_policies_show(struct seq_file *m)
{
	u64 *snap = thpnuma_policy_counters_snapshot();
	unsigned int tasks[THPNUMA_NR_POLICIES];
	int p, c;

	BUILD_BUG_ON(POLICIES_MAX > SZ_4K);
	if (!snap)
		return -ENOMEM;
	thpnuma_tasks_count_by_policy(tasks);
	seq_puts(m, "policy tasks");
	for (c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
		seq_printf(m, " %s", thpnuma_policy_counter_names[c]);
	seq_putc(m, '\n');
	for (p = 0; p < THPNUMA_NR_POLICIES; p++) {
		seq_printf(m, "%s %u", thpnuma_policy_names[p], tasks[p]);
		for (c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
			seq_printf(m, " %llu",
				   snap[p * THPNUMA_NR_POLICY_COUNTERS + c]);
		seq_putc(m, '\n');
	}
	kvfree(snap);
	return 0;
}

void thpnuma_version_show(struct seq_file *m)
{
	seq_printf(m, "version %s\nkernel %s\nhooked_symbol %s\nprobe_missed %lu\nunmatched_thp_calls %lu\n",
		   THPNUMA_VERSION, UTS_RELEASE, THPNUMA_HOOKED_SYMBOL,
		   thpnuma_probe_missed(), thpnuma_unmatched_calls());
}
