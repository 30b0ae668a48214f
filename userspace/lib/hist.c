// SPDX-License-Identifier: GPL-2.0
/* The hist file's parser and writers; see hist.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "json.h"
#include "stats.h"
#include "text.h"

/* node outcome count sum_ns, then one column per bucket. */
#define HIST_LEAD_COLUMNS	4
#define HIST_COLUMNS		(HIST_LEAD_COLUMNS + THPNUMA_HIST_BUCKETS)
#define HIST_LAST		(THPNUMA_HIST_BUCKETS - 1)
/* The bar of a text row, as wide as bpftrace's. */
#define BAR_WIDTH		52

static const char *const lead_columns[HIST_LEAD_COLUMNS] = {
	"node", "outcome", "count", "sum_ns",
};

uint64_t hist_lower(unsigned int b)
{
	return b ? thpnuma_hist_bound(b - 1) : 0;
}

/* The header's name for column @col: a bucket's upper bound, or "inf". */
static void column_name(char *buf, size_t len, int col)
{
	int b = col - HIST_LEAD_COLUMNS;

	if (b < 0)
		snprintf(buf, len, "%s", lead_columns[col]);
	else if (b < HIST_LAST)
		snprintf(buf, len, "%llu", thpnuma_hist_bound(b));
	else
		snprintf(buf, len, "inf");
}

struct hist_parser {
	/* The outcome the next row must have; a new node starts at 0. */
	int next_outcome;
	struct thpnuma_hist *h;
	char *err;
	size_t errlen;
};

static int parse_header(char *line, unsigned int lineno, void *ctx)
{
	const struct hist_parser *p = ctx;
	char *field[HIST_COLUMNS], want[32], *err = p->err;
	size_t errlen = p->errlen;
	int n, col;

	n = split_fields(line, field, HIST_COLUMNS);
	for (col = 0; col < (n < 0 ? HIST_COLUMNS : n); col++) {
		column_name(want, sizeof(want), col);
		if (strcmp(field[col], want)) {
			set_error(err, errlen,
				  "line %u: column %d is \"%s\", expected \"%s\": the module's histogram layout is not thpnumactl's (a version mismatch?)",
				  lineno, col + 1, field[col], want);
			return -EINVAL;
		}
	}
	if (n == HIST_COLUMNS)
		return 0;
	set_error(err, errlen,
		  "line %u: header has %s than the %d columns thpnumactl expects, up to \"inf\": the module's histogram layout is not thpnumactl's (a version mismatch?)",
		  lineno, n < 0 ? "more" : "fewer", HIST_COLUMNS);
	return -EINVAL;
}

static struct node_hist *find_node(const struct thpnuma_hist *h, int node)
{
	unsigned int i;

	for (i = 0; i < h->nr_nodes; i++)
		if (h->nodes[i].node == node)
			return &h->nodes[i];
	return NULL;
}

/*
 * The node a row belongs to: a new one for its first outcome, else the
 * node of the rows before it.
 */
static struct node_hist *row_node(struct hist_parser *p, unsigned int lineno,
				  const char *text, const char *outcome)
{
	struct thpnuma_hist *h = p->h;
	struct node_hist *cur = h->nr_nodes ? &h->nodes[h->nr_nodes - 1] : NULL;
	const char *want = thpnuma_hist_outcome_names[p->next_outcome];
	uint64_t node;

	if (parse_decimal(text, STATS_MAX_NODES - 1, &node)) {
		set_error(p->err, p->errlen, "line %u: bad node id \"%s\"",
			  lineno, text);
		return NULL;
	}
	if (p->next_outcome && (int)node != cur->node) {
		set_error(p->err, p->errlen, "line %u: node %d lacks outcome \"%s\"",
			  lineno, cur->node, want);
		return NULL;
	}
	if (strcmp(outcome, want)) {
		set_error(p->err, p->errlen,
			  "line %u: outcome \"%s\" where \"%s\" was expected (each node has local, remote, fallback in that order)",
			  lineno, outcome, want);
		return NULL;
	}
	if (p->next_outcome)
		return cur;
	if (find_node(h, (int)node)) {
		set_error(p->err, p->errlen, "line %u: node %" PRIu64
			  " appears twice", lineno, node);
		return NULL;
	}
	cur = &h->nodes[h->nr_nodes++];
	cur->node = (int)node;
	return cur;
}

static int parse_value(struct hist_parser *p, unsigned int lineno, int col,
		       const char *text, uint64_t *val)
{
	char name[32];

	column_name(name, sizeof(name), col);
	return parse_counter(text, name, lineno, val, p->err, p->errlen);
}

static int parse_counts(struct hist_parser *p, unsigned int lineno,
			char **field, struct hist_counts *hc)
{
	uint64_t total = 0;
	int b;

	if (parse_value(p, lineno, 2, field[2], &hc->count) ||
	    parse_value(p, lineno, 3, field[3], &hc->sum_ns))
		return -EINVAL;
	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++) {
		if (parse_value(p, lineno, HIST_LEAD_COLUMNS + b,
				field[HIST_LEAD_COLUMNS + b], &hc->bucket[b]))
			return -EINVAL;
		if (__builtin_add_overflow(total, hc->bucket[b], &total))
			total = UINT64_MAX;
	}
	if (total == hc->count)
		return 0;
	set_error(p->err, p->errlen,
		  "line %u: count %" PRIu64 " is not the sum of the buckets (%"
		  PRIu64 ")", lineno, hc->count, total);
	return -EINVAL;
}

static int parse_row(char *line, unsigned int lineno, void *ctx)
{
	struct hist_parser *p = ctx;
	char *field[HIST_COLUMNS];
	struct node_hist *nh;
	int n;

	n = split_fields(line, field, HIST_COLUMNS);
	if (n != HIST_COLUMNS) {
		set_error(p->err, p->errlen,
			  "line %u: %s fields, the header has %d", lineno,
			  n >= 0 && n < HIST_COLUMNS ? "too few" : "too many",
			  HIST_COLUMNS);
		return -EINVAL;
	}
	if (p->h->nr_nodes == STATS_MAX_NODES && !p->next_outcome) {
		set_error(p->err, p->errlen, "line %u: more than %d nodes",
			  lineno, STATS_MAX_NODES);
		return -EINVAL;
	}
	nh = row_node(p, lineno, field[0], field[1]);
	if (!nh)
		return -EINVAL;
	if (parse_counts(p, lineno, field, &nh->outcome[p->next_outcome]))
		return -EINVAL;
	p->next_outcome = (p->next_outcome + 1) % THPNUMA_NR_HIST_OUTCOMES;
	return 0;
}

/* What the file as a whole lacks, once every line parsed. */
static int check_complete(const struct hist_parser *p)
{
	const struct thpnuma_hist *h = p->h;

	if (!h->nr_nodes)
		set_error(p->err, p->errlen, "no node rows after the header");
	else if (p->next_outcome)
		set_error(p->err, p->errlen, "node %d lacks outcome \"%s\"",
			  h->nodes[h->nr_nodes - 1].node,
			  thpnuma_hist_outcome_names[p->next_outcome]);
	else
		return 0;
	return -EINVAL;
}

int hist_parse(const char *text, struct thpnuma_hist *h,
	       char *err, size_t errlen)
{
	struct hist_parser p = { .h = h, .err = err, .errlen = errlen };
	int ret = -ENOMEM;

	h->nr_nodes = 0;
	h->nodes = calloc(STATS_MAX_NODES, sizeof(*h->nodes));
	if (h->nodes)
		ret = parse_table(text, "hist", parse_header, parse_row, &p,
				  err, errlen);
	if (ret == -ENOMEM)
		set_error(err, errlen, "out of memory");
	if (!ret)
		ret = check_complete(&p);
	if (ret)
		hist_free(h);
	return ret;
}

void hist_free(struct thpnuma_hist *h)
{
	free(h->nodes);
	h->nodes = NULL;
	h->nr_nodes = 0;
}

int hist_select_node(struct thpnuma_hist *h, int node)
{
	struct node_hist *nh = find_node(h, node);

	if (!nh)
		return -ENOENT;
	h->nodes[0] = *nh;
	h->nr_nodes = 1;
	return 0;
}

void hist_counts_add(struct hist_counts *to, const struct hist_counts *from)
{
	unsigned int b;

	to->count += from->count;
	to->sum_ns += from->sum_ns;
	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		to->bucket[b] += from->bucket[b];
}

int hist_percentile(const struct hist_counts *hc, unsigned int pct)
{
	/* ceil(count * pct / 100) without overflowing 64 bits. */
	uint64_t rank = hc->count / 100 * pct +
			(hc->count % 100 * pct + 99) / 100;
	uint64_t seen = 0;
	int b;

	if (!hc->count)
		return -1;
	if (!rank)
		rank = 1;
	for (b = 0; b < HIST_LAST; b++) {
		seen += hc->bucket[b];
		if (seen >= rank)
			return b;
	}
	return HIST_LAST;
}

int hist_max_bucket(const struct hist_counts *hc)
{
	int b;

	for (b = HIST_LAST; b >= 0; b--)
		if (hc->bucket[b])
			return b;
	return -1;
}

static int min_bucket(const struct hist_counts *hc)
{
	int b;

	for (b = 0; b < HIST_LAST; b++)
		if (hc->bucket[b])
			return b;
	return HIST_LAST;
}

/* bpftrace's labels: a power of two as 1, 2, ... 512 and K, M, G, T. */
static void power_label(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "\0KMGTPE";
	int shift;

	if (!v || (v & (v - 1))) {
		snprintf(buf, len, "%" PRIu64, v);
		return;
	}
	shift = __builtin_ctzll(v);
	snprintf(buf, len, "%u%.1s", 1u << (shift % 10), &suffix[shift / 10]);
}

/* "< 2M ns", or ">= 16G ns" for the last, unbounded bucket. */
void hist_bound_text(char *buf, size_t len, int b)
{
	char label[16];

	if (b == HIST_LAST) {
		power_label(label, sizeof(label), hist_lower(b));
		snprintf(buf, len, ">= %s ns", label);
	} else {
		power_label(label, sizeof(label), thpnuma_hist_bound(b));
		snprintf(buf, len, "< %s ns", label);
	}
}

/* A total time in decimal units: "812 ns", "5.12 ms", "1.23 s". */
static void duration_text(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

static void write_heading(FILE *out, int node, int outcome,
			  const struct hist_counts *hc)
{
	char sum[32], p50[32], p99[32], max[32];

	duration_text(sum, sizeof(sum), hc->sum_ns);
	hist_bound_text(p50, sizeof(p50), hist_percentile(hc, 50));
	hist_bound_text(p99, sizeof(p99), hist_percentile(hc, 99));
	hist_bound_text(max, sizeof(max), hist_max_bucket(hc));
	fprintf(out, "node %d %s: %" PRIu64 " allocation%s, sum %s, p50 %s, p99 %s, max %s\n",
		node, thpnuma_hist_outcome_names[outcome], hc->count,
		hc->count == 1 ? "" : "s", sum, p50, p99, max);
}

/* bpftrace's hist() rows: "[1K, 2K)    count |@@@@   |". */
static void write_rows(FILE *out, const struct hist_counts *hc)
{
	int b, last = hist_max_bucket(hc);
	uint64_t top = 0;
	char lo[16], hi[16], range[40], bar[BAR_WIDTH + 1];

	for (b = 0; b <= last; b++)
		if (hc->bucket[b] > top)
			top = hc->bucket[b];
	for (b = min_bucket(hc); b <= last; b++) {
		int width = (int)((double)hc->bucket[b] / top * BAR_WIDTH);

		power_label(lo, sizeof(lo), hist_lower(b));
		if (b == HIST_LAST)
			snprintf(hi, sizeof(hi), "...");
		else
			power_label(hi, sizeof(hi), thpnuma_hist_bound(b));
		snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		memset(bar, '@', width);
		bar[width] = '\0';
		fprintf(out, "%-16s%8" PRIu64 " |%-*s|\n", range,
			hc->bucket[b], BAR_WIDTH, bar);
	}
}

void hist_write_text(FILE *out, const struct thpnuma_hist *h)
{
	bool any = false;
	unsigned int i;
	int o;

	for (i = 0; i < h->nr_nodes; i++) {
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
			const struct hist_counts *hc = &h->nodes[i].outcome[o];

			if (!hc->count)
				continue;
			if (any)
				fputc('\n', out);
			write_heading(out, h->nodes[i].node, o, hc);
			write_rows(out, hc);
			any = true;
		}
	}
	if (!any)
		fputs("no THP allocation timed yet: every histogram is empty\n",
		      out);
}

/* A bound in JSON: null for the unbounded end or an empty histogram. */
static void json_bound(struct json_writer *j, const char *key, int b)
{
	if (b < 0 || b == HIST_LAST)
		json_null(j, key);
	else
		json_u64(j, key, thpnuma_hist_bound(b));
}

static void json_histogram(struct json_writer *j, int node, int outcome,
			   const struct hist_counts *hc)
{
	json_object(j, NULL, false);
	json_long(j, "node", node);
	json_string(j, "outcome", thpnuma_hist_outcome_names[outcome]);
	hist_json_counts(j, hc);
	json_close(j);
}

void hist_json_counts(struct json_writer *j, const struct hist_counts *hc)
{
	int b;

	json_u64(j, "count", hc->count);
	json_u64(j, "sum_ns", hc->sum_ns);
	json_bound(j, "p50_ns", hist_percentile(hc, 50));
	json_bound(j, "p99_ns", hist_percentile(hc, 99));
	json_bound(j, "max_ns", hist_max_bucket(hc));
	json_array(j, "buckets", false);
	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++) {
		json_object(j, NULL, false);
		json_u64(j, "ge_ns", hist_lower(b));
		json_bound(j, "lt_ns", b);
		json_u64(j, "count", hc->bucket[b]);
		json_close(j);
	}
	json_close(j);
}

/* One histogram per line, every node and outcome, empty ones too. */
void hist_write_json(FILE *out, const struct thpnuma_hist *h)
{
	struct json_writer j;
	unsigned int i;
	int o;

	json_begin(&j, out, JSON_SPACED, true);
	json_array(&j, "histograms", true);
	for (i = 0; i < h->nr_nodes; i++)
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
			json_histogram(&j, h->nodes[i].node, o,
				       &h->nodes[i].outcome[o]);
	json_close(&j);
	json_end(&j);
}

/*
 * A bucket's bound in seconds, as the shortest decimal that reads back
 * as the same double (as Go's client libraries write "le"): 1.024e-06.
 */
static void le_text(char *buf, size_t len, uint64_t ns)
{
	double s = ns / 1e9;
	int prec;

	for (prec = 1; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, s);
		if (strtod(buf, NULL) == s)
			return;
	}
	snprintf(buf, len, "%.17g", s);
}

static void prometheus_labels(FILE *out, const char *key,
			      const char *value, int outcome)
{
	fprintf(out, "{%s=", key);
	prometheus_write_label_value(out, value);
	fputs(",outcome=", out);
	prometheus_write_label_value(out, thpnuma_hist_outcome_names[outcome]);
}

void hist_write_prometheus_series(FILE *out, const char *metric,
				  const char *key, const char *value,
				  int outcome, const struct hist_counts *hc)
{
	uint64_t total = 0;
	char le[32];
	int b;

	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++) {
		if (__builtin_add_overflow(total, hc->bucket[b], &total))
			total = UINT64_MAX;
		if (b == HIST_LAST)
			snprintf(le, sizeof(le), "+Inf");
		else
			le_text(le, sizeof(le), thpnuma_hist_bound(b));
		fprintf(out, "%s_bucket", metric);
		prometheus_labels(out, key, value, outcome);
		fprintf(out, ",le=\"%s\"} %" PRIu64 "\n", le, total);
	}
	fprintf(out, "%s_sum", metric);
	prometheus_labels(out, key, value, outcome);
	fputs("} ", out);
	prometheus_write_seconds(out, hc->sum_ns);
	fprintf(out, "%s_count", metric);
	prometheus_labels(out, key, value, outcome);
	fprintf(out, "} %" PRIu64 "\n", hc->count);
}

void hist_write_prometheus(FILE *out, const struct thpnuma_hist *h)
{
	unsigned int i;
	char node[16];
	int o;

	fputs("# HELP thpnuma_alloc_duration_seconds Time each hooked THP allocation took, by faulting node and outcome.\n"
	      "# TYPE thpnuma_alloc_duration_seconds histogram\n", out);
	for (i = 0; i < h->nr_nodes; i++) {
		snprintf(node, sizeof(node), "%d", h->nodes[i].node);
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
			hist_write_prometheus_series(out,
				"thpnuma_alloc_duration_seconds", "node", node,
				o, &h->nodes[i].outcome[o]);
	}
}
