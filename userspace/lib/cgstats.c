// SPDX-License-Identifier: GPL-2.0
/* The per-cgroup counters and histograms; see cgstats.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "cgstats.h"
#include "json.h"
#include "stats.h"
#include "text.h"

/* cgroup outcome count sum_ns, then one column per bucket. */
#define HIST_LEAD	4
#define HIST_COLUMNS	(HIST_LEAD + THPNUMA_HIST_BUCKETS)
#define STATS_COLUMNS	(1 + THPNUMA_NR_CGROUP_COUNTERS)

struct cg_parser {
	struct cgroup_stats *cs;
	const char *file;
	bool *has_hist;		/* per row: its histograms were read */
	char *err;
	size_t errlen;
};

static int layout_error(struct cg_parser *p, unsigned int lineno)
{
	set_error(p->err, p->errlen,
		  "%s line %u: not the header thpnumactl expects: the module's layout is not thpnumactl's (a version mismatch?)",
		  p->file, lineno);
	return -EINVAL;
}

static int stats_line(char *line, unsigned int lineno, void *ctx)
{
	struct cg_parser *p = ctx;
	struct cgroup_stats *cs = p->cs;
	struct cgroup_stats_row *row;
	char *field[STATS_COLUMNS];
	int n, c;

	n = split_fields(line, field, STATS_COLUMNS);
	if (lineno == 1) {
		if (n != STATS_COLUMNS || strcmp(field[0], "cgroup"))
			return layout_error(p, lineno);
		for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
			if (strcmp(field[c + 1], thpnuma_cgroup_counter_names[c]))
				return layout_error(p, lineno);
		return 0;
	}
	if (n != STATS_COLUMNS || field[0][0] != '/') {
		set_error(p->err, p->errlen,
			  "%s line %u: expected a cgroup path and %d counters",
			  p->file, lineno, THPNUMA_NR_CGROUP_COUNTERS);
		return -EINVAL;
	}
	row = realloc(cs->rows, (cs->nr + 1) * sizeof(*row));
	if (!row)
		return -ENOMEM;
	cs->rows = row;
	row += cs->nr;
	memset(row, 0, sizeof(*row));
	for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
		if (parse_counter(field[c + 1], thpnuma_cgroup_counter_names[c],
				  lineno, &row->counter[c], p->err, p->errlen))
			return -EINVAL;
	row->path = strdup(field[0]);
	if (!row->path)
		return -ENOMEM;
	cs->nr++;
	return 0;
}

static int compare_rows(const void *a, const void *b)
{
	return strcmp(((const struct cgroup_stats_row *)a)->path,
		      ((const struct cgroup_stats_row *)b)->path);
}

static struct cgroup_stats_row *find_row(const struct cgroup_stats *cs,
					 const char *path)
{
	struct cgroup_stats_row key = { .path = (char *)path };

	return bsearch(&key, cs->rows, cs->nr, sizeof(key), compare_rows);
}

/* The hist file's header names: a bucket's upper bound, or "inf". */
static bool hist_header_ok(char **field, int n)
{
	static const char *const lead[HIST_LEAD] = {
		"cgroup", "outcome", "count", "sum_ns",
	};
	char want[32];
	int b;

	if (n != HIST_COLUMNS)
		return false;
	for (b = 0; b < HIST_LEAD; b++)
		if (strcmp(field[b], lead[b]))
			return false;
	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++) {
		if (b < THPNUMA_HIST_BUCKETS - 1)
			snprintf(want, sizeof(want), "%llu",
				 thpnuma_hist_bound(b));
		else
			snprintf(want, sizeof(want), "inf");
		if (strcmp(field[HIST_LEAD + b], want))
			return false;
	}
	return true;
}

static int hist_line(char *line, unsigned int lineno, void *ctx)
{
	struct cg_parser *p = ctx;
	char *field[HIST_COLUMNS];
	struct cgroup_stats_row *row;
	struct hist_counts *hc;
	uint64_t total = 0;
	int n, o, b;

	n = split_fields(line, field, HIST_COLUMNS);
	if (lineno == 1)
		return hist_header_ok(field, n) ? 0 : layout_error(p, lineno);
	if (n != HIST_COLUMNS || field[0][0] != '/') {
		set_error(p->err, p->errlen,
			  "%s line %u: expected a cgroup path, an outcome and %d numbers",
			  p->file, lineno, HIST_COLUMNS - 2);
		return -EINVAL;
	}
	for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
		if (!strcmp(field[1], thpnuma_hist_outcome_names[o]))
			break;
	if (o == THPNUMA_NR_HIST_OUTCOMES) {
		set_error(p->err, p->errlen, "%s line %u: unknown outcome \"%s\"",
			  p->file, lineno, field[1]);
		return -EINVAL;
	}
	row = find_row(p->cs, field[0]);
	/* A setting made since the counters were read. */
	if (!row)
		return 0;
	p->has_hist[row - p->cs->rows] = true;
	hc = &row->hist[o];
	if (parse_counter(field[2], "count", lineno, &hc->count, p->err,
			  p->errlen) ||
	    parse_counter(field[3], "sum_ns", lineno, &hc->sum_ns, p->err,
			  p->errlen))
		return -EINVAL;
	for (b = 0; b < THPNUMA_HIST_BUCKETS; b++) {
		if (parse_counter(field[HIST_LEAD + b], "bucket", lineno,
				  &hc->bucket[b], p->err, p->errlen))
			return -EINVAL;
		total = add_saturating(total, hc->bucket[b]);
	}
	if (total != hc->count) {
		set_error(p->err, p->errlen,
			  "%s line %u: count %" PRIu64 " is not the sum of the buckets (%" PRIu64 ")",
			  p->file, lineno, hc->count, total);
		return -EINVAL;
	}
	return 0;
}

/* Rows without histograms: settings removed between the two reads. */
static void drop_unjoined(struct cgroup_stats *cs, const bool *has_hist)
{
	unsigned int i, kept = 0;

	for (i = 0; i < cs->nr; i++) {
		if (has_hist[i])
			cs->rows[kept++] = cs->rows[i];
		else
			free(cs->rows[i].path);
	}
	cs->nr = kept;
}

int cgroup_stats_parse(const char *stats_text, const char *hist_text,
		       struct cgroup_stats *cs, char *err, size_t errlen)
{
	struct cg_parser p = {
		.cs = cs, .file = "cgroup_stats", .err = err, .errlen = errlen,
	};
	int ret;

	cs->nr = 0;
	cs->rows = NULL;
	ret = for_each_line(stats_text, stats_line, &p);
	if (!ret) {
		qsort(cs->rows, cs->nr, sizeof(*cs->rows), compare_rows);
		p.has_hist = calloc(cs->nr + 1, sizeof(*p.has_hist));
		p.file = "cgroup_hist";
		ret = p.has_hist ? for_each_line(hist_text, hist_line, &p) :
		      -ENOMEM;
	}
	if (!ret)
		drop_unjoined(cs, p.has_hist);
	free(p.has_hist);
	if (ret) {
		if (ret == -ENOMEM)
			set_error(err, errlen, "out of memory");
		cgroup_stats_free(cs);
	}
	return ret;
}

void cgroup_stats_free(struct cgroup_stats *cs)
{
	for (unsigned int i = 0; i < cs->nr; i++)
		free(cs->rows[i].path);
	free(cs->rows);
	cs->rows = NULL;
	cs->nr = 0;
}

/* Every outcome's histogram in one: the allocations whatever came of them. */
static struct hist_counts all_outcomes(const struct cgroup_stats_row *row)
{
	struct hist_counts all = { 0 };
	int o, b;

	for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
		all.count = add_saturating(all.count, row->hist[o].count);
		all.sum_ns = add_saturating(all.sum_ns, row->hist[o].sum_ns);
		for (b = 0; b < THPNUMA_HIST_BUCKETS; b++)
			all.bucket[b] = add_saturating(all.bucket[b],
						       row->hist[o].bucket[b]);
	}
	return all;
}

static void percentile_cell(char *buf, size_t len, const struct hist_counts *hc,
			    unsigned int pct)
{
	int b = hist_percentile(hc, pct);

	if (b < 0)
		snprintf(buf, len, "-");
	else
		hist_bound_text(buf, len, b);
}

/* One row per cgroup, its path last as in the cgroups listing. */
void cgroup_stats_write_table(FILE *out, const struct cgroup_stats *cs)
{
	char p50[32], p99[32], remote[16];
	struct hist_counts all;
	uint64_t placed;

	fprintf(out, "%12s %12s %12s %12s %8s %12s %12s  %s\n", "thp_local",
		"thp_remote", "thp_fallback", "passthrough", "remote%",
		"alloc_p50", "alloc_p99", "cgroup");
	for (unsigned int i = 0; i < cs->nr; i++) {
		const struct cgroup_stats_row *r = &cs->rows[i];

		all = all_outcomes(r);
		percentile_cell(p50, sizeof(p50), &all, 50);
		percentile_cell(p99, sizeof(p99), &all, 99);
		placed = r->counter[THPNUMA_CG_THP_LOCAL] +
			 r->counter[THPNUMA_CG_THP_REMOTE];
		if (placed)
			snprintf(remote, sizeof(remote), "%.1f",
				 100.0 * r->counter[THPNUMA_CG_THP_REMOTE] /
				 placed);
		else
			snprintf(remote, sizeof(remote), "-");
		fprintf(out, "%12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
			" %8s %12s %12s  %s\n",
			r->counter[THPNUMA_CG_THP_LOCAL],
			r->counter[THPNUMA_CG_THP_REMOTE],
			r->counter[THPNUMA_CG_THP_FALLBACK],
			r->counter[THPNUMA_CG_PASSTHROUGH], remote, p50, p99,
			r->path);
	}
}

void cgroup_stats_write_json(FILE *out, const struct cgroup_stats *cs)
{
	struct json_writer j;
	int c, o;

	json_begin(&j, out, JSON_SPACED, true);
	json_array(&j, "cgroups", true);
	for (unsigned int i = 0; i < cs->nr; i++) {
		const struct cgroup_stats_row *r = &cs->rows[i];

		json_object(&j, NULL, false);
		json_string(&j, "path", r->path);
		for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
			json_u64(&j, thpnuma_cgroup_counter_names[c],
				 r->counter[c]);
		json_array(&j, "histograms", false);
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
			json_object(&j, NULL, false);
			json_string(&j, "outcome",
				    thpnuma_hist_outcome_names[o]);
			hist_json_counts(&j, &r->hist[o]);
			json_close(&j);
		}
		json_close(&j);
		json_close(&j);
	}
	json_close(&j);
	json_end(&j);
}

void cgroup_stats_write_prometheus(FILE *out, const struct cgroup_stats *cs)
{
	unsigned int i;
	int c, o;

	for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++) {
		/* As stat's: base units, alloc_ns becomes seconds. */
		const char *metric = c == THPNUMA_CG_ALLOC_NS ? "alloc_seconds" :
				     thpnuma_cgroup_counter_names[c];

		fprintf(out, "# HELP thpnuma_cgroup_%s_total %s\n", metric,
			thpnuma_cgroup_counter_help[c]);
		fprintf(out, "# TYPE thpnuma_cgroup_%s_total counter\n", metric);
		for (i = 0; i < cs->nr; i++) {
			uint64_t v = cs->rows[i].counter[c];

			fprintf(out, "thpnuma_cgroup_%s_total{cgroup=", metric);
			prometheus_write_label_value(out, cs->rows[i].path);
			fputs("} ", out);
			if (c == THPNUMA_CG_ALLOC_NS)
				prometheus_write_seconds(out, v);
			else
				fprintf(out, "%" PRIu64 "\n", v);
		}
	}
	fputs("# HELP thpnuma_cgroup_alloc_duration_seconds Time each THP allocation a cgroup's setting decided took, by outcome.\n"
	      "# TYPE thpnuma_cgroup_alloc_duration_seconds histogram\n", out);
	for (i = 0; i < cs->nr; i++)
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
			hist_write_prometheus_series(out,
				"thpnuma_cgroup_alloc_duration_seconds",
				"cgroup", cs->rows[i].path, o,
				&cs->rows[i].hist[o]);
}
