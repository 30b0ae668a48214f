// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl: parse /sys/kernel/debug/thpnuma/stats and write it out as a
 * numastat-like table, JSON or Prometheus text exposition format.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "stats.h"
#include "text.h"

/* Up to this many columns, so newer modules may add counters. */
#define STATS_MAX_COLUMNS 64

struct stats_parser {
	int nr_columns;
	/* Column of each known counter in a row (0 is the node id). */
	int column[THPNUMA_NR_COUNTERS];
	struct thpnuma_stats *st;
	char *err;
	size_t errlen;
};

static int parse_header(char *line, unsigned int lineno, void *ctx)
{
	struct stats_parser *p = ctx;
	char *field[STATS_MAX_COLUMNS], *err = p->err;
	size_t errlen = p->errlen;
	int n;

	n = split_fields(line, field, STATS_MAX_COLUMNS);
	if (n < 0) {
		set_error(err, errlen, "line %u: more than %d columns",
			  lineno, STATS_MAX_COLUMNS);
		return -EINVAL;
	}
	if (n == 0 || strcmp(field[0], "node")) {
		set_error(err, errlen,
			  "line %u: header does not start with \"node\"",
			  lineno);
		return -EINVAL;
	}
	if (find_columns(field, 1, n, thpnuma_counter_names,
			 THPNUMA_NR_COUNTERS, p->column, lineno, err, errlen))
		return -EINVAL;
	p->nr_columns = n;
	return 0;
}

static int parse_row(char *line, unsigned int lineno, void *ctx)
{
	const struct stats_parser *p = ctx;
	struct thpnuma_stats *st = p->st;
	char *field[STATS_MAX_COLUMNS], *err = p->err;
	size_t errlen = p->errlen;
	struct node_stats *ns;
	uint64_t node;
	unsigned int i;
	int n, c;

	n = split_fields(line, field, STATS_MAX_COLUMNS);
	if (n != p->nr_columns) {
		set_error(err, errlen,
			  "line %u: %s fields, the header has %d", lineno,
			  n < 0 ? "too many" : n < p->nr_columns ?
			  "too few" : "too many", p->nr_columns);
		return -EINVAL;
	}
	if (parse_decimal(field[0], UINT64_MAX, &node) || node >= STATS_MAX_NODES) {
		set_error(err, errlen, "line %u: bad node id \"%s\"", lineno,
			  field[0]);
		return -EINVAL;
	}
	for (i = 0; i < st->nr_nodes; i++) {
		if (st->nodes[i].node == (int)node) {
			set_error(err, errlen, "line %u: node %" PRIu64
				  " appears twice", lineno, node);
			return -EINVAL;
		}
	}
	if (st->nr_nodes == STATS_MAX_NODES) {
		set_error(err, errlen, "line %u: more than %d nodes", lineno,
			  STATS_MAX_NODES);
		return -EINVAL;
	}
	ns = &st->nodes[st->nr_nodes];
	ns->node = (int)node;
	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		if (parse_counter(field[p->column[c]], thpnuma_counter_names[c],
				lineno, &ns->counter[c], err, errlen))
			return -EINVAL;
	st->nr_nodes++;
	return 0;
}

int stats_parse(const char *text, struct thpnuma_stats *st,
		char *err, size_t errlen)
{
	struct stats_parser p = { .st = st, .err = err, .errlen = errlen };
	int ret = -ENOMEM;

	st->nr_nodes = 0;
	st->nodes = calloc(STATS_MAX_NODES, sizeof(*st->nodes));
	if (st->nodes)
		ret = parse_table(text, "stats", parse_header, parse_row, &p,
				  err, errlen);
	if (ret == -ENOMEM)
		set_error(err, errlen, "out of memory");
	if (!ret && st->nr_nodes == 0) {
		set_error(err, errlen, "no node rows after the header");
		ret = -EINVAL;
	}
	if (ret)
		stats_free(st);
	return ret;
}

void stats_free(struct thpnuma_stats *st)
{
	free(st->nodes);
	st->nodes = NULL;
	st->nr_nodes = 0;
}

int stats_select_node(struct thpnuma_stats *st, int node)
{
	unsigned int i;

	for (i = 0; i < st->nr_nodes; i++) {
		if (st->nodes[i].node == node) {
			st->nodes[0] = st->nodes[i];
			st->nr_nodes = 1;
			return 0;
		}
	}
	return -ENOENT;
}

uint64_t add_saturating(uint64_t a, uint64_t b)
{
	uint64_t sum;

	if (__builtin_add_overflow(a, b, &sum))
		return UINT64_MAX;
	return sum;
}

void stats_total(const struct thpnuma_stats *st,
		 uint64_t total[THPNUMA_NR_COUNTERS])
{
	unsigned int i;
	int c;

	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		total[c] = 0;
	for (i = 0; i < st->nr_nodes; i++)
		for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
			total[c] = add_saturating(total[c],
						  st->nodes[i].counter[c]);
}

void stats_derive(const uint64_t counter[THPNUMA_NR_COUNTERS],
		  struct derived_stats *d)
{
	/* In double: the sum of three huge u64 values must not wrap. */
	double placed = (double)counter[THPNUMA_THP_LOCAL] +
			(double)counter[THPNUMA_THP_REMOTE] +
			(double)counter[THPNUMA_THP_FALLBACK];

	memset(d, 0, sizeof(*d));
	if (placed == 0)
		return;
	d->valid = true;
	d->local_pct = 100.0 * counter[THPNUMA_THP_LOCAL] / placed;
	d->remote_pct = 100.0 * counter[THPNUMA_THP_REMOTE] / placed;
	d->fallback_pct = 100.0 * counter[THPNUMA_THP_FALLBACK] / placed;
	d->avg_alloc_us = counter[THPNUMA_ALLOC_NS] / placed / 1000.0;
}

int stats_delta(const struct thpnuma_stats *prev,
		const struct thpnuma_stats *cur, struct thpnuma_stats *delta)
{
	unsigned int i, j;
	int c;

	delta->nodes = calloc(cur->nr_nodes ? cur->nr_nodes : 1,
			      sizeof(*delta->nodes));
	if (!delta->nodes)
		return -ENOMEM;
	delta->nr_nodes = cur->nr_nodes;
	for (i = 0; i < cur->nr_nodes; i++) {
		const struct node_stats *before = NULL;
		struct node_stats *d = &delta->nodes[i];

		*d = cur->nodes[i];
		for (j = 0; j < prev->nr_nodes; j++)
			if (prev->nodes[j].node == cur->nodes[i].node)
				before = &prev->nodes[j];
		if (!before)
			continue;	/* node came online: all of it is new */
		for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
			if (d->counter[c] >= before->counter[c])
				d->counter[c] -= before->counter[c];
	}
	return 0;
}

#define LABEL_WIDTH	16

/* Pads by characters, should a label ever hold UTF-8. */
void table_put_label(FILE *out, const char *label)
{
	int chars = 0;
	const char *p;

	for (p = label; *p; p++)
		if ((*p & 0xc0) != 0x80)
			chars++;
	fputs(label, out);
	for (; chars < LABEL_WIDTH; chars++)
		fputc(' ', out);
}

static void put_pct_cell(FILE *out, int width, const struct derived_stats *d,
			 double value)
{
	if (d->valid)
		fprintf(out, " %*.2f", width, value);
	else
		fprintf(out, " %*s", width, "-");
}

int table_widen(int width, uint64_t value)
{
	int n = snprintf(NULL, 0, "%" PRIu64, value);

	return n > width ? n : width;
}

void table_put_rule(FILE *out, unsigned int cells, int width)
{
	unsigned int i;
	int c;

	table_put_label(out, "");
	for (i = 0; i < cells; i++) {
		fputc(' ', out);
		for (c = 0; c < width; c++)
			fputc('-', out);
	}
	fputc('\n', out);
}

static int cell_width(const struct thpnuma_stats *st, const uint64_t *total)
{
	int width = TABLE_MIN_CELL_WIDTH;
	unsigned int i;
	int c;

	for (c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		width = table_widen(width, total[c]);
		for (i = 0; i < st->nr_nodes; i++)
			width = table_widen(width, st->nodes[i].counter[c]);
	}
	return width;
}

/* One derived row; @which picks the field of struct derived_stats. */
enum derived_row { ROW_LOCAL, ROW_REMOTE, ROW_FALLBACK, ROW_ALLOC_US };

static double derived_value(const struct derived_stats *d,
			    enum derived_row which)
{
	switch (which) {
	case ROW_LOCAL:
		return d->local_pct;
	case ROW_REMOTE:
		return d->remote_pct;
	case ROW_FALLBACK:
		return d->fallback_pct;
	case ROW_ALLOC_US:
		break;
	}
	return d->avg_alloc_us;
}

void stats_write_table(FILE *out, const struct thpnuma_stats *st,
		       bool with_total)
{
	static const char *const derived_labels[] = {
		[ROW_LOCAL]	= "local %",
		[ROW_REMOTE]	= "remote %",
		[ROW_FALLBACK]	= "fallback %",
		[ROW_ALLOC_US]	= "avg alloc us",
	};
	uint64_t total[THPNUMA_NR_COUNTERS];
	struct derived_stats total_derived;
	struct derived_stats *node_derived;
	char name[32];
	unsigned int i;
	int c, r, width;

	stats_total(st, total);
	width = cell_width(st, total);
	stats_derive(total, &total_derived);
	node_derived = calloc(st->nr_nodes ? st->nr_nodes : 1,
			      sizeof(*node_derived));
	if (!node_derived)
		return;
	for (i = 0; i < st->nr_nodes; i++)
		stats_derive(st->nodes[i].counter, &node_derived[i]);

	table_put_label(out, "");
	for (i = 0; i < st->nr_nodes; i++) {
		snprintf(name, sizeof(name), "Node %d", st->nodes[i].node);
		fprintf(out, " %*s", width, name);
	}
	if (with_total)
		fprintf(out, " %*s", width, "Total");
	fputc('\n', out);

	table_put_rule(out, st->nr_nodes + with_total, width);

	for (c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		table_put_label(out, thpnuma_counter_names[c]);
		for (i = 0; i < st->nr_nodes; i++)
			fprintf(out, " %*" PRIu64, width,
				st->nodes[i].counter[c]);
		if (with_total)
			fprintf(out, " %*" PRIu64, width, total[c]);
		fputc('\n', out);
	}
	for (r = ROW_LOCAL; r <= ROW_ALLOC_US; r++) {
		table_put_label(out, derived_labels[r]);
		for (i = 0; i < st->nr_nodes; i++)
			put_pct_cell(out, width, &node_derived[i],
				     derived_value(&node_derived[i], r));
		if (with_total)
			put_pct_cell(out, width, &total_derived,
				     derived_value(&total_derived, r));
		fputc('\n', out);
	}
	free(node_derived);
}

static void json_counters(struct json_writer *j, const uint64_t *counter)
{
	static const char *const derived_keys[] = {
		[ROW_LOCAL]	= "local_pct",
		[ROW_REMOTE]	= "remote_pct",
		[ROW_FALLBACK]	= "fallback_pct",
		[ROW_ALLOC_US]	= "avg_alloc_us",
	};
	struct derived_stats d;
	int c, r;

	stats_derive(counter, &d);
	for (c = 0; c < THPNUMA_NR_COUNTERS; c++)
		json_u64(j, thpnuma_counter_names[c], counter[c]);
	/* No THP fault placed: the ratios are undefined, not zero. */
	for (r = ROW_LOCAL; r <= ROW_ALLOC_US; r++) {
		if (d.valid)
			json_double(j, derived_keys[r], derived_value(&d, r));
		else
			json_null(j, derived_keys[r]);
	}
}

/*
 * One node per line, keys in the stats file's order, so shell scripts can
 * grep a node's line as well as jq can read the document.
 */
void stats_write_json_members(struct json_writer *j,
			      const struct thpnuma_stats *st)
{
	uint64_t total[THPNUMA_NR_COUNTERS];
	unsigned int i;

	stats_total(st, total);
	json_array(j, "nodes", true);
	for (i = 0; i < st->nr_nodes; i++) {
		json_object(j, NULL, false);
		json_long(j, "node", st->nodes[i].node);
		json_counters(j, st->nodes[i].counter);
		json_close(j);
	}
	json_close(j);
	json_object(j, "total", false);
	json_counters(j, total);
	json_close(j);
}

void stats_write_json(FILE *out, const struct thpnuma_stats *st)
{
	struct json_writer j;

	json_begin(&j, out, JSON_SPACED, true);
	stats_write_json_members(&j, st);
	json_end(&j);
}

void prometheus_write_label_value(FILE *out, const char *value)
{
	fputc('"', out);
	for (; *value; value++) {
		if (*value == '\\' || *value == '"')
			fprintf(out, "\\%c", *value);
		else if (*value == '\n')
			fputs("\\n", out);
		else
			fputc(*value, out);
	}
	fputc('"', out);
}

void prometheus_write_seconds(FILE *out, uint64_t ns)
{
	fprintf(out, "%" PRIu64 ".%09" PRIu64 "\n", ns / 1000000000,
		ns % 1000000000);
}

void stats_write_prometheus(FILE *out, const struct thpnuma_stats *st)
{
	unsigned int i;
	int c;

	for (c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		/* Prometheus wants base units: alloc_ns becomes seconds. */
		const char *metric = c == THPNUMA_ALLOC_NS ? "alloc_seconds" :
				     thpnuma_counter_names[c];

		fprintf(out, "# HELP thpnuma_%s_total %s\n", metric,
			thpnuma_counter_help[c]);
		fprintf(out, "# TYPE thpnuma_%s_total counter\n", metric);
		for (i = 0; i < st->nr_nodes; i++) {
			uint64_t v = st->nodes[i].counter[c];

			fprintf(out, "thpnuma_%s_total{node=\"%d\"} ", metric,
				st->nodes[i].node);
			if (c == THPNUMA_ALLOC_NS)
				prometheus_write_seconds(out, v);
			else
				fprintf(out, "%" PRIu64 "\n", v);
		}
	}
}

/* Watch rows: fixed width so a terminal reads them as columns. */
#define WATCH_FMT_HEAD	"%-8s %4s %10s %10s %10s %10s %10s %10s %10s\n"
#define WATCH_FMT_ROW	"%-8s %4s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 \
			" %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s\n"

void stats_write_watch_header(FILE *out)
{
	fprintf(out, WATCH_FMT_HEAD, "time", "node", "local", "remote",
		"fallback", "passthru", "compact", "reclaim", "avg_us");
}

static void put_watch_row(FILE *out, const char *stamp, const char *node,
			  const uint64_t *counter)
{
	struct derived_stats d;
	char avg[32] = "-";

	stats_derive(counter, &d);
	if (d.valid)
		snprintf(avg, sizeof(avg), "%.1f", d.avg_alloc_us);
	fprintf(out, WATCH_FMT_ROW, stamp, node, counter[THPNUMA_THP_LOCAL],
		counter[THPNUMA_THP_REMOTE], counter[THPNUMA_THP_FALLBACK],
		counter[THPNUMA_PASSTHROUGH], counter[THPNUMA_COMPACT_STALL],
		counter[THPNUMA_RECLAIM_STALL], avg);
}

void stats_write_watch_rows(FILE *out, const char *stamp,
			    const struct thpnuma_stats *delta)
{
	uint64_t total[THPNUMA_NR_COUNTERS];
	char node[16];
	unsigned int i;

	for (i = 0; i < delta->nr_nodes; i++) {
		snprintf(node, sizeof(node), "%d", delta->nodes[i].node);
		put_watch_row(out, stamp, node, delta->nodes[i].counter);
	}
	if (delta->nr_nodes > 1) {
		stats_total(delta, total);
		put_watch_row(out, stamp, "all", total);
	}
}
