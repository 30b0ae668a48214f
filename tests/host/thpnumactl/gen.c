// SPDX-License-Identifier: GPL-2.0
/* Fixtures generated from counters.h; see gen.h. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "gen.h"
#include "hist.h"
#include "orders.h"

#define MAX_FIELDS	128
#define U64_MAX_TEXT	"18446744073709551615"
#define U64_OVER_TEXT	"18446744073709551616"	/* 2^64 */
#define LAST_BUCKET	(THPNUMA_HIST_BUCKETS - 1)

static void *must(void *p)
{
	if (!p) {
		fprintf(stderr, "gen: out of memory\n");
		exit(1);
	}
	return p;
}

char *str(const char *s)
{
	return must(strdup(s));
}

char *cat(int n, ...)
{
	struct capture c;
	va_list ap;

	capture_start(&c);
	va_start(ap, n);
	while (n--) {
		char *s = va_arg(ap, char *);

		fputs(s, c.f);
		free(s);
	}
	va_end(ap);
	return capture_end(&c);
}

/* Split @line (consumed into @buf) at spaces; the "\n" is dropped. */
static int split(char *line, char **field)
{
	char *save = NULL, *tok;
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	for (tok = strtok_r(line, " ", &save); tok && n < MAX_FIELDS;
	     tok = strtok_r(NULL, " ", &save))
		field[n++] = tok;
	return n;
}

static char *join(char **field, int n)
{
	struct capture c;

	capture_start(&c);
	for (int i = 0; i < n; i++)
		fprintf(c.f, "%s%s", i ? " " : "", field[i]);
	fputc('\n', c.f);
	return capture_end(&c);
}

/* Edit field @i of @line: drop it (@word NULL), insert @word, or set it. */
static char *edit(char *line, int i, const char *word, int insert)
{
	char *field[MAX_FIELDS + 1], *out;
	int n = split(line, field);

	if (i < 0 || i > n || (i == n && !insert) || n == MAX_FIELDS) {
		fprintf(stderr, "gen: no field %d to edit\n", i);
		exit(1);
	}
	if (!word) {
		memmove(&field[i], &field[i + 1], (n - i - 1) * sizeof(*field));
		n--;
	} else if (insert) {
		memmove(&field[i + 1], &field[i], (n - i) * sizeof(*field));
		field[i] = (char *)word;
		n++;
	} else {
		field[i] = (char *)word;
	}
	out = join(field, n);
	free(line);
	return out;
}

char *line_drop(char *line, int i)
{
	return edit(line, i, NULL, 0);
}

char *line_insert(char *line, int i, const char *word)
{
	return edit(line, i, word, 1);
}

char *line_set(char *line, int i, const char *word)
{
	return edit(line, i, word, 0);
}

/* ---- stats --------------------------------------------------------------- */

char *stats_header(void)
{
	struct capture c;

	capture_start(&c);
	fputs("node", c.f);
	for (int k = 0; k < THPNUMA_NR_COUNTERS; k++)
		fprintf(c.f, " %s", thpnuma_counter_names[k]);
	fputc('\n', c.f);
	return capture_end(&c);
}

char *stats_row(int node, const uint64_t *value)
{
	struct capture c;

	capture_start(&c);
	fprintf(c.f, "%d", node);
	for (int k = 0; k < THPNUMA_NR_COUNTERS; k++)
		fprintf(c.f, " %llu", (unsigned long long)value[k]);
	fputc('\n', c.f);
	return capture_end(&c);
}

char *stats_seq(int node, uint64_t first)
{
	uint64_t v[THPNUMA_NR_COUNTERS];

	for (int k = 0; k < THPNUMA_NR_COUNTERS; k++)
		v[k] = first + k;
	return stats_row(node, v);
}

static char *stats_zero(int node)
{
	uint64_t v[THPNUMA_NR_COUNTERS] = { 0 };

	return stats_row(node, v);
}

/* The lines of a file, with "\r\n" line ends. */
static char *crlf(char *text)
{
	struct capture c;

	capture_start(&c);
	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			fputc('\r', c.f);
		fputc(*p, c.f);
	}
	free(text);
	return capture_end(&c);
}

static char *bad_empty(void) { return str(""); }
static char *bad_no_header(void) { return str("garbage\n"); }
static char *bad_header_only(void) { return stats_header(); }

static char *bad_missing_column(void)
{
	return cat(2, stats_header(),
		   line_drop(stats_seq(0, 1), THPNUMA_NR_COUNTERS));
}

static char *bad_extra_column(void)
{
	return cat(2, stats_header(),
		   line_insert(stats_seq(0, 1), 1 + THPNUMA_NR_COUNTERS, "99"));
}

static char *bad_non_numeric(void)
{
	return cat(2, stats_header(),
		   line_set(stats_seq(0, 1), STATS_FIELD(THPNUMA_THP_FALLBACK),
			    "abc"));
}

static char *bad_negative(void)
{
	return cat(2, stats_header(),
		   line_set(stats_seq(0, 1), STATS_FIELD(THPNUMA_THP_REMOTE),
			    "-5"));
}

static char *bad_overflow(void)
{
	return cat(2, stats_header(),
		   line_set(stats_seq(0, 1), STATS_FIELD(THPNUMA_THP_REMOTE),
			    U64_OVER_TEXT));
}

static char *bad_duplicate_node(void)
{
	return cat(3, stats_header(), stats_seq(0, 1), stats_seq(0, 1));
}

static char *bad_node_id(void)
{
	return cat(2, stats_header(), line_set(stats_seq(0, 1), 0, "x"));
}

/* The last counter's column gone from the header and the row. */
static char *bad_header_lacks_counter(void)
{
	return cat(2, line_drop(stats_header(), THPNUMA_NR_COUNTERS),
		   line_drop(stats_seq(0, 1), THPNUMA_NR_COUNTERS));
}

/* UINT64_MAX where the table, JSON and Prometheus writers need width. */
static char *good_4node_huge(void)
{
	return cat(5, stats_header(), stats_seq(0, 1),
		   stats_seq(1, 1 + THPNUMA_NR_COUNTERS), stats_zero(2),
		   line_set(line_set(line_set(stats_zero(3),
				STATS_FIELD(THPNUMA_THP_LOCAL), U64_MAX_TEXT),
				STATS_FIELD(THPNUMA_THP_REMOTE), U64_MAX_TEXT),
				STATS_FIELD(THPNUMA_ALLOC_NS), U64_MAX_TEXT));
}

static char *good_crlf(void)
{
	return crlf(cat(2, stats_header(), stats_seq(0, 1)));
}

/* A column a newer module added, after the first counter; a blank line. */
static char *good_extra_unknown_column(void)
{
	return cat(3, line_insert(stats_header(), 2, "new_counter"),
		   line_insert(stats_seq(0, 1), 2, "999"), str("\n"));
}

/* Named values, 0 for the others; a name counters.h lacks is an error. */
struct named {
	const char *name;
	uint64_t value;
};

static char *stats_named(int node, const struct named *v)
{
	uint64_t value[THPNUMA_NR_COUNTERS] = { 0 };

	for (; v->name; v++) {
		int k;

		for (k = 0; k < THPNUMA_NR_COUNTERS &&
			    strcmp(v->name, thpnuma_counter_names[k]); k++)
			;
		if (k == THPNUMA_NR_COUNTERS) {
			fprintf(stderr, "gen: no counter %s\n", v->name);
			exit(1);
		}
		value[k] = v->value;
	}
	return stats_row(node, value);
}

/* The stats that go with orders-2node.txt: its sums per node. */
static char *good_2node_orders(void)
{
	static const struct named node0[] = {
		{ "thp_local", 117 }, { "thp_remote", 3 },
		{ "thp_fallback", 1 }, { "passthrough", 2 },
		{ "thp_remote_in", 4 }, { "compact_stall", 3 },
		{ "compact_success", 2 }, { "compact_fail", 1 },
		{ "alloc_ns", 242000000 }, { NULL, 0 },
	}, node1[] = {
		{ "thp_local", 3 }, { "thp_remote", 4 },
		{ "thp_fallback", 7 }, { "passthrough", 1 },
		{ "thp_remote_in", 3 }, { "alloc_ns", 28000000 }, { NULL, 0 },
	};

	return cat(3, stats_header(), stats_named(0, node0),
		   stats_named(1, node1));
}

/* ---- orders -------------------------------------------------------------- */

char *orders_header(void)
{
	struct capture c;

	capture_start(&c);
	fputs("node kind order size_kb", c.f);
	for (int o = 0; o < THPNUMA_NR_ORDER_OUTCOMES; o++)
		fprintf(c.f, " %s", thpnuma_order_outcome_names[o]);
	fputc('\n', c.f);
	return capture_end(&c);
}

char *orders_row(int node, const char *kind, int order, unsigned int size_kb,
		 uint64_t local)
{
	struct capture c;

	capture_start(&c);
	fprintf(c.f, "%d %s %d %u", node, kind, order, size_kb);
	for (int o = 0; o < THPNUMA_NR_ORDER_OUTCOMES; o++)
		fprintf(c.f, " %llu", o ? 0ULL : (unsigned long long)local);
	fputc('\n', c.f);
	return capture_end(&c);
}

#define ANON	thpnuma_kind_names[THPNUMA_KIND_ANON]
#define PMD	THPNUMA_MAX_THP_ORDER
#define PMD_KB	ORDER_SIZE_KB(THPNUMA_MAX_THP_ORDER)

/* The good row the bad ones change. */
static char *orders_one(void)
{
	return orders_row(0, ANON, PMD, PMD_KB, 1);
}

static char *orders_bad_duplicate(void)
{
	return cat(3, orders_header(), orders_one(),
		   orders_row(0, ANON, PMD, PMD_KB, 2));
}

static char *orders_bad_header_lacks_outcome(void)
{
	return cat(2, line_drop(orders_header(),
				ORDERS_FIELD(THPNUMA_ORDER_FALLBACK)),
		   line_drop(orders_one(),
			     ORDERS_FIELD(THPNUMA_ORDER_FALLBACK)));
}

/* "kind" and "order" swapped. */
static char *orders_bad_header(void)
{
	return line_set(line_set(orders_header(), 1, "order"), 2, "kind");
}

static char *orders_bad_kind(void)
{
	return cat(2, orders_header(), line_set(orders_one(), 1, "file"));
}

static char *orders_bad_missing_field(void)
{
	return cat(2, orders_header(),
		   line_drop(orders_one(), ORDERS_FIELD(
				THPNUMA_NR_ORDER_OUTCOMES - 1)));
}

static char *orders_bad_non_numeric(void)
{
	return cat(2, orders_header(),
		   line_set(orders_one(), ORDERS_FIELD(THPNUMA_ORDER_REMOTE),
			    "x"));
}

static char *orders_bad_order_range(void)
{
	return cat(2, orders_header(),
		   orders_row(0, ANON, PMD + 1, ORDER_SIZE_KB(PMD + 1), 1));
}

/* Rows in order are by node, kind, and the largest order first. */
static char *orders_bad_order(void)
{
	return cat(3, orders_header(),
		   orders_row(0, ANON, 4, ORDER_SIZE_KB(4), 1),
		   orders_row(0, ANON, PMD, PMD_KB, 2));
}

static char *orders_bad_overflow(void)
{
	return cat(2, orders_header(),
		   line_set(orders_one(), ORDERS_FIELD(THPNUMA_ORDER_LOCAL),
			    U64_OVER_TEXT));
}

static char *orders_bad_size(void)
{
	return cat(2, orders_header(),
		   orders_row(0, ANON, PMD, 2 * PMD_KB, 1));
}

/* ---- hist ---------------------------------------------------------------- */

char *hist_header(void)
{
	struct capture c;

	capture_start(&c);
	fputs("node outcome count sum_ns", c.f);
	for (int b = 0; b < LAST_BUCKET; b++)
		fprintf(c.f, " %llu", thpnuma_hist_bound(b));
	fputs(" inf\n", c.f);
	return capture_end(&c);
}

char *hist_row(int node, const char *outcome, uint64_t count, uint64_t sum,
	       int nr, ...)
{
	uint64_t bucket[THPNUMA_HIST_BUCKETS] = { 0 };
	struct capture c;
	va_list ap;

	va_start(ap, nr);
	while (nr--) {
		int b = va_arg(ap, int);

		bucket[b] = va_arg(ap, uint64_t);
	}
	va_end(ap);
	capture_start(&c);
	fprintf(c.f, "%d %s %llu %llu", node, outcome,
		(unsigned long long)count, (unsigned long long)sum);
	for (int b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		fprintf(c.f, " %llu", (unsigned long long)bucket[b]);
	fputc('\n', c.f);
	return capture_end(&c);
}

#define HIST_NAME(o)	thpnuma_hist_outcome_names[THPNUMA_HIST_##o]

static char *hist_zero(int node, int outcome)
{
	return hist_row(node, thpnuma_hist_outcome_names[outcome], 0, 0, 0);
}

char *hist_zero_rows(int node)
{
	char *text = str("");

	for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
		text = cat(2, text, hist_zero(node, o));
	return text;
}

/*
 * The first bucket and the unbounded last one; a fallback whose sum is
 * not in its bucket's range (the parser does not check that).
 */
static char *hist_edges_rows(void)
{
	char *text = str("");

	for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
		char *row;

		if (o == THPNUMA_HIST_LOCAL)
			row = hist_row(3, HIST_NAME(LOCAL), 2,
				       thpnuma_hist_bound(LAST_BUCKET - 1) +
				       thpnuma_hist_bound(0), 2,
				       0, (uint64_t)1, LAST_BUCKET, (uint64_t)1);
		else if (o == THPNUMA_HIST_FALLBACK)
			row = hist_row(3, HIST_NAME(FALLBACK), 1, 40000, 1,
				       5, (uint64_t)1);
		else
			row = hist_zero(3, o);
		text = cat(2, text, row);
	}
	return text;
}

static char *hist_edges(void)
{
	return cat(2, hist_header(), hist_edges_rows());
}

static char *hist_bad_bound(void)
{
	return cat(2, line_set(hist_header(), HIST_FIELD(0), "1000"),
		   hist_edges_rows());
}

static char *hist_bad_fewer_buckets(void)
{
	return cat(2, line_drop(hist_header(), HIST_FIELD(LAST_BUCKET - 1)),
		   hist_edges_rows());
}

static char *hist_bad_more_buckets(void)
{
	char bound[32];

	snprintf(bound, sizeof(bound), "%llu",
		 2 * thpnuma_hist_bound(LAST_BUCKET - 1));
	return cat(2, line_insert(hist_header(), HIST_FIELD(LAST_BUCKET), bound),
		   hist_edges_rows());
}

/* Local's count says 3, its buckets hold 2. */
static char *hist_bad_count(void)
{
	char *text = cat(2, hist_header(),
			 hist_row(0, HIST_NAME(LOCAL), 3, 5000, 1,
				  3, (uint64_t)2));

	for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
		if (o != THPNUMA_HIST_LOCAL)
			text = cat(2, text, hist_zero(0, o));
	return text;
}

/* Node 0 without its fallback row, node 1 whole. */
static char *hist_bad_missing_outcome(void)
{
	char *text = hist_header();

	for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
		if (o != THPNUMA_HIST_FALLBACK)
			text = cat(2, text, hist_zero(0, o));
	return cat(2, text, hist_zero_rows(1));
}

/* Remote and fallback swapped. */
static char *hist_bad_order(void)
{
	return cat(4, hist_header(), hist_zero(0, THPNUMA_HIST_LOCAL),
		   hist_zero(0, THPNUMA_HIST_FALLBACK),
		   hist_zero(0, THPNUMA_HIST_REMOTE));
}

/* The file ends before node 0's last outcome. */
static char *hist_bad_truncated(void)
{
	char *text = hist_header();

	for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES - 1; o++)
		text = cat(2, text, hist_zero(0, o));
	return text;
}

/* ---- by name ------------------------------------------------------------- */

static const struct {
	const char *name;
	char *(*make)(void);
} fixtures[] = {
	{ "bad-empty.txt",			bad_empty },
	{ "bad-no-header.txt",			bad_no_header },
	{ "bad-header-only.txt",		bad_header_only },
	{ "bad-missing-column.txt",		bad_missing_column },
	{ "bad-extra-column.txt",		bad_extra_column },
	{ "bad-non-numeric.txt",		bad_non_numeric },
	{ "bad-negative.txt",			bad_negative },
	{ "bad-overflow.txt",			bad_overflow },
	{ "bad-duplicate-node.txt",		bad_duplicate_node },
	{ "bad-node-id.txt",			bad_node_id },
	{ "bad-header-lacks-counter.txt",	bad_header_lacks_counter },
	{ "good-4node-huge.txt",		good_4node_huge },
	{ "good-crlf.txt",			good_crlf },
	{ "good-extra-unknown-column.txt",	good_extra_unknown_column },
	{ "good-2node-orders.txt",		good_2node_orders },
	{ "orders-bad-empty.txt",		bad_empty },
	{ "orders-bad-duplicate.txt",		orders_bad_duplicate },
	{ "orders-bad-header-lacks-outcome.txt", orders_bad_header_lacks_outcome },
	{ "orders-bad-header.txt",		orders_bad_header },
	{ "orders-bad-kind.txt",		orders_bad_kind },
	{ "orders-bad-missing-field.txt",	orders_bad_missing_field },
	{ "orders-bad-non-numeric.txt",		orders_bad_non_numeric },
	{ "orders-bad-order-range.txt",		orders_bad_order_range },
	{ "orders-bad-order.txt",		orders_bad_order },
	{ "orders-bad-overflow.txt",		orders_bad_overflow },
	{ "orders-bad-size.txt",		orders_bad_size },
	{ "hist-edges.txt",			hist_edges },
	{ "hist-bad-bound.txt",			hist_bad_bound },
	{ "hist-bad-fewer-buckets.txt",		hist_bad_fewer_buckets },
	{ "hist-bad-more-buckets.txt",		hist_bad_more_buckets },
	{ "hist-bad-count.txt",			hist_bad_count },
	{ "hist-bad-missing-outcome.txt",	hist_bad_missing_outcome },
	{ "hist-bad-order.txt",			hist_bad_order },
	{ "hist-bad-truncated.txt",		hist_bad_truncated },
};

#define NR_FIXTURES	(sizeof(fixtures) / sizeof(fixtures[0]))

const char *gen_fixture_name(size_t i)
{
	return i < NR_FIXTURES ? fixtures[i].name : NULL;
}

char *gen_fixture(const char *name)
{
	for (size_t i = 0; i < NR_FIXTURES; i++)
		if (!strcmp(name, fixtures[i].name))
			return fixtures[i].make();
	return NULL;
}

/* ---- recordings ---------------------------------------------------------- */

/* The index of @name in the header fields, or -1. */
static int column_of(char **field, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(field[i], name))
			return i;
	return -1;
}

char *gen_upgrade(const char *text, int fixed, const char *const *names,
		  int nr)
{
	char *copy = str(text), *line, *save = NULL;
	char *head[MAX_FIELDS], *field[MAX_FIELDS];
	int column[MAX_FIELDS], nhead = -1;
	struct capture c;

	capture_start(&c);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char **f = nhead < 0 ? head : field;
		int n = split(line, f);

		if (!n)
			continue;
		if (nhead < 0) {
			nhead = n;
			for (int k = 0; k < nr; k++)
				column[k] = column_of(head, n, names[k]);
		}
		for (int i = 0; i < fixed && i < n; i++)
			fprintf(c.f, "%s%s", i ? " " : "", f[i]);
		for (int k = 0; k < nr; k++) {
			const char *v = f == head ? names[k] :
					column[k] < 0 ? "0" :
					column[k] < n ? f[column[k]] : "";

			fprintf(c.f, " %s", v);
		}
		fputc('\n', c.f);
	}
	free(copy);
	return capture_end(&c);
}

const char *gen_lacks(const char *text, const char *const *names, int nr)
{
	char *copy = str(text), *field[MAX_FIELDS];
	const char *lacks = NULL;
	int n;

	copy[strcspn(copy, "\n")] = '\0';
	n = split(copy, field);
	for (int k = 0; k < nr && !lacks; k++)
		if (column_of(field, n, names[k]) < 0)
			lacks = names[k];
	free(copy);
	return lacks;
}

static char *recording(const char *name, int fixed, const char *const *names,
		       int nr)
{
	char *text = slurp(name), *up = gen_upgrade(text, fixed, names, nr);

	free(text);
	return up;
}

char *stats_recording(const char *name)
{
	return recording(name, 1, thpnuma_counter_names, THPNUMA_NR_COUNTERS);
}

char *orders_recording(const char *name)
{
	return recording(name, 4, thpnuma_order_outcome_names,
			 THPNUMA_NR_ORDER_OUTCOMES);
}

char *policies_recording(const char *name)
{
	return recording(name, 2, thpnuma_policy_counter_names,
			 THPNUMA_NR_POLICY_COUNTERS);
}
