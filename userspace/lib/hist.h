/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for thpnuma's debugfs hist file (latency histograms of hooked
 * THP allocations, per faulting node and outcome; the layout is in
 * counters.h) and the writers that present it: bpftrace-like text, JSON
 * and a Prometheus histogram. No I/O besides the FILE * given.
 */
#ifndef THPNUMA_HIST_H
#define THPNUMA_HIST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"

/* One histogram: bucket b counts times in [hist_lower(b), bound(b)). */
struct hist_counts {
	uint64_t count;		/* the sum of the buckets */
	uint64_t sum_ns;
	uint64_t bucket[THPNUMA_HIST_BUCKETS];
};

struct node_hist {
	int node;
	struct hist_counts outcome[THPNUMA_NR_HIST_OUTCOMES];
};

struct thpnuma_hist {
	unsigned int nr_nodes;
	struct node_hist *nodes;
};

/*
 * Parse the whole hist file. The header must name exactly the columns
 * counters.h implies; every node has one row per outcome, in order, and
 * each row's count is the sum of its buckets. On failure returns -EINVAL
 * (or -ENOMEM) and writes a one-line reason naming the line into @err.
 */
int hist_parse(const char *text, struct thpnuma_hist *h,
	       char *err, size_t errlen);
void hist_free(struct thpnuma_hist *h);

/* Keep only @node; -ENOENT if the file has no rows for it. */
int hist_select_node(struct thpnuma_hist *h, int node);

/* Bucket @b's inclusive lower bound in ns. */
uint64_t hist_lower(unsigned int b);
/*
 * The bucket that holds the @pct-th percentile (1-100) of @hc: the first
 * whose running total reaches ceil(count * pct / 100). Its upper bound
 * is an upper bound of the percentile. -1 if @hc is empty.
 */
int hist_percentile(const struct hist_counts *hc, unsigned int pct);
/* Add @from's count, sum and buckets to @to. */
void hist_counts_add(struct hist_counts *to, const struct hist_counts *from);
/* The highest non-empty bucket; -1 if @hc is empty. */
int hist_max_bucket(const struct hist_counts *hc);

/* Bucket @b's bound as text: "< 2M ns", ">= 16G ns" for the last. */
void hist_bound_text(char *buf, size_t len, int b);
void hist_write_text(FILE *out, const struct thpnuma_hist *h);
void hist_write_json(FILE *out, const struct thpnuma_hist *h);
void hist_write_prometheus(FILE *out, const struct thpnuma_hist *h);

struct json_writer;
/*
 * One histogram's members in the open JSON object: count, sum_ns, p50_ns,
 * p99_ns, max_ns and the buckets.
 */
void hist_json_counts(struct json_writer *j, const struct hist_counts *hc);
/*
 * One histogram as the series of Prometheus histogram @metric, labelled
 * @key="@value" and its outcome (the # HELP and # TYPE lines are the
 * caller's).
 */
void hist_write_prometheus_series(FILE *out, const char *metric,
				  const char *key, const char *value,
				  int outcome, const struct hist_counts *hc);

#endif /* THPNUMA_HIST_H */
