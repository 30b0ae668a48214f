// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for thpnumactl's stats.c: the parser fed recorded and broken
 * stats files, and the table, JSON, Prometheus and watch writers.
 * usage: test_stats FIXTURE_DIR OUT_DIR
 * Prints TAP lines; JSON and Prometheus outputs land in OUT_DIR for the
 * shell driver to validate with python3.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"

static const char *fixture_dir, *out_dir;
static int test_nr, test_failed;

static void result(int ok, const char *fmt, ...)
	__printf(2, 3);

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++test_nr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		test_failed++;
}

static char *slurp(const char *name)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	FILE *f, *mem;
	int c;

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	mem = open_memstream(&text, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(mem);
	fclose(f);
	return text;
}

static int parse_fixture(const char *name, struct thpnuma_stats *st,
			 char *err, size_t errlen)
{
	char *text = slurp(name);
	int ret = stats_parse(text, st, err, errlen);

	free(text);
	return ret;
}

static void expect_parse_error(const char *name, const char *reason)
{
	struct thpnuma_stats st;
	char err[256] = "";
	int ret = parse_fixture(name, &st, err, sizeof(err));

	result(ret == -EINVAL && strstr(err, reason),
	       "%s is refused with \"%s\" (got %d, \"%s\")", name, reason,
	       ret, err);
	result(st.nodes == NULL && st.nr_nodes == 0,
	       "%s: nothing is left allocated on error", name);
}

/* Run a writer into a string. */
static char *capture(void (*write)(FILE *, const struct thpnuma_stats *),
		     const struct thpnuma_stats *st)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	write(mem, st);
	fclose(mem);
	return text;
}

static void save(const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void write_table_total(FILE *out, const struct thpnuma_stats *st)
{
	stats_write_table(out, st, true);
}

/* Display width of each line of a table, "µ" counting as one column. */
static int table_lines_equal_width(const char *text)
{
	int width = -1, cur = 0;
	const char *p;

	for (p = text; *p; p++) {
		if (*p == '\n') {
			if (width >= 0 && cur != width)
				return 0;
			width = cur;
			cur = 0;
		} else if ((*p & 0xc0) != 0x80) {
			cur++;
		}
	}
	return 1;
}

static void test_good_2node(void)
{
	struct thpnuma_stats st;
	uint64_t total[THPNUMA_NR_COUNTERS];
	struct derived_stats d;
	char err[256] = "", *text;
	int ret;

	ret = parse_fixture("good-2node.txt", &st, err, sizeof(err));
	result(ret == 0, "good-2node.txt parses (%s)", err);
	if (ret)
		return;
	result(st.nr_nodes == 2 && st.nodes[0].node == 0 &&
	       st.nodes[1].node == 1, "two nodes, in order");
	result(st.nodes[0].counter[THPNUMA_THP_LOCAL] == 100 &&
	       st.nodes[0].counter[THPNUMA_ALLOC_NS] == 214000000 &&
	       st.nodes[1].counter[THPNUMA_THP_REMOTE_IN] == 5,
	       "values land in their counters");
	stats_total(&st, total);
	result(total[THPNUMA_THP_LOCAL] == 100 && total[THPNUMA_THP_REMOTE_IN] == 5,
	       "totals add the nodes");
	stats_derive(st.nodes[0].counter, &d);
	result(d.valid && d.local_pct > 93.45 && d.local_pct < 93.46 &&
	       d.remote_pct > 4.67 && d.remote_pct < 4.68 &&
	       d.fallback_pct > 1.86 && d.fallback_pct < 1.87,
	       "local/remote/fallback %% of local+remote+fallback");
	result(d.avg_alloc_us == 2000.0,
	       "avg alloc µs = alloc_ns / placed / 1000 (got %f)",
	       d.avg_alloc_us);
	stats_derive(st.nodes[1].counter, &d);
	result(!d.valid, "no THP placed: ratios undefined");

	text = capture(write_table_total, &st);
	result(strstr(text, "Node 0") && strstr(text, "Node 1") &&
	       strstr(text, "Total"), "table has node and Total columns");
	result(strstr(text, "local %") && strstr(text, "remote %") &&
	       strstr(text, "fallback %") && strstr(text, "avg alloc µs"),
	       "table has the derived rows");
	result(strstr(text, "93.46") && strstr(text, "2000.00"),
	       "table shows the derived values");
	result(table_lines_equal_width(text), "table columns line up");
	save("good-2node.table", text);
	free(text);

	text = capture(stats_write_json, &st);
	result(strstr(text, "{\"node\": 0, \"thp_local\": 100, ") != NULL,
	       "JSON: one node per line, stats file order");
	result(strstr(text, "\"local_pct\": null") != NULL,
	       "JSON: undefined ratios are null");
	save("good-2node.json", text);
	free(text);

	text = capture(stats_write_prometheus, &st);
	result(strstr(text, "# TYPE thpnuma_thp_local_total counter\n") &&
	       strstr(text, "thpnuma_thp_local_total{node=\"0\"} 100\n"),
	       "Prometheus: counter type and node label");
	result(strstr(text, "thpnuma_alloc_seconds_total{node=\"0\"} 0.214000000\n") != NULL,
	       "Prometheus: alloc_ns exported in seconds");
	save("good-2node.prom", text);
	free(text);

	result(stats_select_node(&st, 7) == -ENOENT && st.nr_nodes == 2,
	       "selecting an offline node fails and keeps all");
	result(stats_select_node(&st, 1) == 0 && st.nr_nodes == 1 &&
	       st.nodes[0].node == 1, "selecting node 1 keeps only it");
	stats_free(&st);
}

static void test_huge(void)
{
	struct thpnuma_stats st;
	uint64_t total[THPNUMA_NR_COUNTERS];
	struct derived_stats d;
	char err[256] = "", *text;

	if (parse_fixture("good-4node-huge.txt", &st, err, sizeof(err))) {
		result(0, "good-4node-huge.txt parses (%s)", err);
		return;
	}
	result(st.nr_nodes == 4 &&
	       st.nodes[3].counter[THPNUMA_THP_LOCAL] == UINT64_MAX,
	       "UINT64_MAX parses");
	stats_total(&st, total);
	result(total[THPNUMA_THP_LOCAL] == UINT64_MAX,
	       "total saturates instead of wrapping");
	stats_derive(st.nodes[3].counter, &d);
	result(d.valid && d.local_pct == 50.0,
	       "derived ratios of huge counters do not wrap (%f)",
	       d.local_pct);
	text = capture(write_table_total, &st);
	result(strstr(text, "18446744073709551615") &&
	       table_lines_equal_width(text),
	       "table fits 20-digit values");
	save("good-4node-huge.table", text);
	free(text);
	text = capture(stats_write_json, &st);
	save("good-4node-huge.json", text);
	free(text);
	text = capture(stats_write_prometheus, &st);
	result(strstr(text, "thpnuma_alloc_seconds_total{node=\"3\"} 18446744073.709551615\n") != NULL,
	       "Prometheus seconds keep full precision");
	save("good-4node-huge.prom", text);
	free(text);
	stats_free(&st);
}

static void test_tolerated(void)
{
	struct thpnuma_stats st;
	char err[256] = "";

	if (parse_fixture("good-extra-unknown-column.txt", &st, err,
			  sizeof(err))) {
		result(0, "an unknown column is skipped (%s)", err);
	} else {
		result(st.nr_nodes == 1 &&
		       st.nodes[0].counter[THPNUMA_THP_LOCAL] == 1 &&
		       st.nodes[0].counter[THPNUMA_THP_REMOTE] == 2 &&
		       st.nodes[0].counter[THPNUMA_ALLOC_NS] == 11,
		       "an unknown column is skipped, the others found by name");
		stats_free(&st);
	}
	if (parse_fixture("good-crlf.txt", &st, err, sizeof(err))) {
		result(0, "CRLF line ends parse (%s)", err);
	} else {
		result(st.nr_nodes == 1 &&
		       st.nodes[0].counter[THPNUMA_ALLOC_NS] == 11,
		       "CRLF line ends parse");
		stats_free(&st);
	}
}

static void test_delta(void)
{
	struct thpnuma_stats prev, cur, delta;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *mem;

	parse_fixture("good-2node.txt", &prev, err, sizeof(err));
	parse_fixture("good-2node.txt", &cur, err, sizeof(err));
	cur.nodes[0].counter[THPNUMA_THP_LOCAL] = 130;
	cur.nodes[0].counter[THPNUMA_THP_REMOTE] = 1;	/* reset in between */
	stats_delta(&prev, &cur, &delta);
	result(delta.nodes[0].counter[THPNUMA_THP_LOCAL] == 30 &&
	       delta.nodes[0].counter[THPNUMA_THP_FALLBACK] == 0,
	       "delta subtracts the previous sample");
	result(delta.nodes[0].counter[THPNUMA_THP_REMOTE] == 1,
	       "a counter that went down (reset) counts from zero");

	mem = open_memstream(&text, &len);
	stats_write_watch_header(mem);
	stats_write_watch_rows(mem, "12:00:00", &delta);
	fclose(mem);
	result(strstr(text, "12:00:00    0         30") &&
	       strstr(text, "12:00:00  all") && table_lines_equal_width(text),
	       "watch rows: fixed width, one per node plus all");
	save("watch.txt", text);
	free(text);
	stats_free(&delta);
	stats_free(&prev);
	stats_free(&cur);
}

static void test_bracketed(void)
{
	char out[32];

	result(bracketed_choice("kernel [strict-local] local-then-remote\n",
				out, sizeof(out)) == 0 &&
	       !strcmp(out, "strict-local"), "bracketed choice in the middle");
	result(bracketed_choice("[all] madvise\n", out, sizeof(out)) == 0 &&
	       !strcmp(out, "all"), "bracketed choice first");
	result(bracketed_choice("always madvise never\n", out,
				sizeof(out)) == -EINVAL,
	       "no brackets is an error");
	result(bracketed_choice("a [] b", out, sizeof(out)) == -EINVAL,
	       "empty brackets is an error");
	result(bracketed_choice("a [bbbbbbbb] c", out, 4) == -EINVAL,
	       "too long for the buffer is an error");
}

int main(int argc, char *argv[])
{
	struct thpnuma_stats st;
	char err[256];

	if (argc != 3) {
		fprintf(stderr, "usage: %s FIXTURE_DIR OUT_DIR\n", argv[0]);
		return 2;
	}
	fixture_dir = argv[1];
	out_dir = argv[2];

	test_good_2node();
	test_huge();
	test_tolerated();
	test_delta();
	test_bracketed();

	expect_parse_error("bad-empty.txt", "empty stats file");
	expect_parse_error("bad-header-only.txt", "no node rows");
	expect_parse_error("bad-missing-column.txt", "line 2: too few fields");
	expect_parse_error("bad-extra-column.txt", "line 2: too many fields");
	expect_parse_error("bad-non-numeric.txt",
			   "thp_fallback value \"abc\" is not a number");
	expect_parse_error("bad-negative.txt", "\"-5\" is not a number");
	expect_parse_error("bad-overflow.txt", "exceeds 64 bits");
	expect_parse_error("bad-header-lacks-counter.txt",
			   "header lacks column \"alloc_ns\"");
	expect_parse_error("bad-duplicate-node.txt",
			   "line 3: node 0 appears twice");
	expect_parse_error("bad-no-header.txt",
			   "header does not start with \"node\"");
	expect_parse_error("bad-node-id.txt", "bad node id \"x\"");
	result(stats_parse("   \n\n", &st, err, sizeof(err)) == -EINVAL &&
	       strstr(err, "empty"), "blank-only text is empty");

	printf("# stats unit tests: %d run, %d failed\n", test_nr,
	       test_failed);
	return test_failed ? 1 : 0;
}
