/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for thpnuma's debugfs stats file and the writers that present it
 * (table, JSON, Prometheus, watch rows). No I/O besides the FILE * given,
 * so the host and guest tests link it with the rest of userspace/lib.
 */
#ifndef THPNUMACTL_STATS_H
#define THPNUMACTL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "text.h"

/* Linux's MAX_NUMNODES tops out at 1 << 10. */
#define STATS_MAX_NODES 1024

struct node_stats {
	int node;
	uint64_t counter[THPNUMA_NR_COUNTERS];
};

struct thpnuma_stats {
	unsigned int nr_nodes;
	struct node_stats *nodes;
};

/* Ratios over the THP faults the module placed: local+remote+fallback. */
struct derived_stats {
	bool valid;		/* false when no THP fault was placed */
	double local_pct;
	double remote_pct;
	double fallback_pct;
	double avg_alloc_us;
};

/*
 * Parse the whole stats file. On failure returns -EINVAL (or -ENOMEM) and
 * writes a one-line reason naming the offending line into @err.
 */
int stats_parse(const char *text, struct thpnuma_stats *st,
		char *err, size_t errlen);
void stats_free(struct thpnuma_stats *st);

/* Keep only @node; -ENOENT if it is not online. */
int stats_select_node(struct thpnuma_stats *st, int node);

/* Sums saturate at UINT64_MAX rather than wrap. */
uint64_t add_saturating(uint64_t a, uint64_t b);
void stats_total(const struct thpnuma_stats *st,
		 uint64_t total[THPNUMA_NR_COUNTERS]);
void stats_derive(const uint64_t counter[THPNUMA_NR_COUNTERS],
		  struct derived_stats *d);

/*
 * @delta = @cur - @prev per node. A counter that went down was reset in
 * between, so its delta is the current value.
 */
int stats_delta(const struct thpnuma_stats *prev,
		const struct thpnuma_stats *cur, struct thpnuma_stats *delta);

void stats_write_table(FILE *out, const struct thpnuma_stats *st,
		       bool with_total);
void stats_write_json(FILE *out, const struct thpnuma_stats *st);
struct json_writer;
/* The "nodes" and "total" members, into a document of the caller's. */
void stats_write_json_members(struct json_writer *j,
			      const struct thpnuma_stats *st);
void stats_write_prometheus(FILE *out, const struct thpnuma_stats *st);
/* @value quoted as a Prometheus label value: \\, \" and \n escaped. */
void prometheus_write_label_value(FILE *out, const char *value);
/* @ns as a sample value in seconds, the base unit: "1.500000000", newline. */
void prometheus_write_seconds(FILE *out, uint64_t ns);
void stats_write_watch_header(FILE *out);

/*
 * numastat's layout, which the orders table shares: a 16-character label
 * column, then right-aligned cells at least 15 characters wide and
 * widened to fit 20-digit counters.
 */
#define TABLE_MIN_CELL_WIDTH	15
void table_put_label(FILE *out, const char *label);
/* The dashes under a header of @cells cells. */
void table_put_rule(FILE *out, unsigned int cells, int width);
/* @width, or wider if @value needs it. */
int table_widen(int width, uint64_t value);
void stats_write_watch_rows(FILE *out, const char *stamp,
			    const struct thpnuma_stats *delta);

#endif /* THPNUMACTL_STATS_H */
