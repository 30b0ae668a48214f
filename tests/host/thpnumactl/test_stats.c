// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for userspace/lib: the stats parser fed a recorded stats file
 * and files generated from counters.h (gen.c), good and broken; the
 * table, JSON, Prometheus and watch writers; the text helpers and the
 * JSON writer. Fixtures and outputs: see fixture.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "fixture.h"
#include "gen.h"
#include "json.h"
#include "overrides.h"
#include "stats.h"
#include "text.h"

/* Parse @text, which is consumed. */
static int parse_text(char *text, struct thpnuma_stats *st, char *err,
		      size_t errlen)
{
	int ret = stats_parse(text, st, err, errlen);

	free(text);
	return ret;
}

/* The generated file @name: see gen.c. */
static int parse_fixture(const char *name, struct thpnuma_stats *st,
			 char *err, size_t errlen)
{
	char *text = gen_fixture(name);

	if (!text) {
		fprintf(stderr, "no generated fixture %s\n", name);
		exit(1);
	}
	return parse_text(text, st, err, errlen);
}

static void expect_refused(struct __test_metadata *_metadata,
			   const char *name, char *text, const char *reason)
{
	struct thpnuma_stats st;
	char err[256] = "";
	int ret = parse_text(text, &st, err, sizeof(err));

	EXPECT_TRUE(ret == -EINVAL && strstr(err, reason))
		TH_LOG("%s is refused with \"%s\" (got %d, \"%s\")", name, reason,
		       ret, err);
	EXPECT_TRUE(st.nodes == NULL && st.nr_nodes == 0)
		TH_LOG("%s: nothing is left allocated on error", name);
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

static void write_table_total(FILE *out, const struct thpnuma_stats *st)
{
	stats_write_table(out, st, true);
}

/* Display width of each line of a table, in characters. */
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

/*
 * good-2node.txt is a real module's stats file, kept as evidence that
 * what a module writes parses. A counter added to counters.h since it was
 * recorded is not in it, and thpnumactl refuses a header that lacks a
 * known counter (an older module's file, as this one then is). So the
 * honest test is what thpnumactl does with it: it parses while it has
 * every counter; once it lacks some, it is refused naming the first of
 * them, which can only be one added after the recording (the header is
 * the list of counters the recording's module had). The other tests use
 * its values brought up to the current table, new counters 0
 * (stats_recording()), which is the recording itself until then.
 */
TEST(recording_good_2node)
{
	char *raw = slurp("good-2node.txt"), *up = stats_recording("good-2node.txt");
	const char *lacks = gen_lacks(raw, thpnuma_counter_names,
				      THPNUMA_NR_COUNTERS);
	struct thpnuma_stats st;
	char err[256] = "", want[128];

	if (!lacks) {
		EXPECT_STREQ(raw, up)
			TH_LOG("with every counter, the upgraded copy is the recording");
		EXPECT_EQ(0, parse_text(raw, &st, err, sizeof(err)))
			TH_LOG("good-2node.txt parses (%s)", err);
		if (!err[0])
			stats_free(&st);
	} else {
		ksft_print_msg("good-2node.txt was recorded before counter %s: refused as an older module's file\n",
			       lacks);
		snprintf(want, sizeof(want), "line 1: header lacks column \"%s\"",
			 lacks);
		expect_refused(_metadata, "good-2node.txt", raw, want);
	}
	free(up);
}

TEST(good_2node)
{
	struct thpnuma_stats st;
	uint64_t total[THPNUMA_NR_COUNTERS];
	struct derived_stats d;
	char err[256] = "", *text;
	int ret;

	ret = parse_text(stats_recording("good-2node.txt"), &st, err,
			 sizeof(err));
	EXPECT_TRUE(ret == 0)
		TH_LOG("good-2node.txt parses (%s)", err);
	if (ret)
		return;
	EXPECT_TRUE(st.nr_nodes == 2 && st.nodes[0].node == 0 &&
	            st.nodes[1].node == 1)
		TH_LOG("two nodes, in order");
	EXPECT_TRUE(st.nodes[0].counter[THPNUMA_THP_LOCAL] == 100 &&
	            st.nodes[0].counter[THPNUMA_ALLOC_NS] == 214000000 &&
	            st.nodes[1].counter[THPNUMA_THP_REMOTE_IN] == 5)
		TH_LOG("values land in their counters");
	stats_total(&st, total);
	EXPECT_TRUE(total[THPNUMA_THP_LOCAL] == 100 && total[THPNUMA_THP_REMOTE_IN] == 5)
		TH_LOG("totals add the nodes");
	stats_derive(st.nodes[0].counter, &d);
	EXPECT_TRUE(d.valid && d.local_pct > 93.45 && d.local_pct < 93.46 &&
	            d.remote_pct > 4.67 && d.remote_pct < 4.68 &&
	            d.fallback_pct > 1.86 && d.fallback_pct < 1.87)
		TH_LOG("local/remote/fallback %% of local+remote+fallback");
	EXPECT_TRUE(d.avg_alloc_us == 2000.0)
		TH_LOG("avg alloc us = alloc_ns / placed / 1000 (got %f)",
		       d.avg_alloc_us);
	stats_derive(st.nodes[1].counter, &d);
	EXPECT_TRUE(!d.valid)
		TH_LOG("no THP placed: ratios undefined");

	text = capture(write_table_total, &st);
	EXPECT_TRUE(strstr(text, "Node 0") && strstr(text, "Node 1") &&
	            strstr(text, "Total"))
		TH_LOG("table has node and Total columns");
	EXPECT_TRUE(strstr(text, "local %") && strstr(text, "remote %") &&
	            strstr(text, "fallback %") && strstr(text, "avg alloc us"))
		TH_LOG("table has the derived rows");
	EXPECT_TRUE(strstr(text, "93.46") && strstr(text, "2000.00"))
		TH_LOG("table shows the derived values");
	EXPECT_TRUE(table_lines_equal_width(text))
		TH_LOG("table columns line up");
	save("good-2node.table", text);
	free(text);

	text = capture(stats_write_json, &st);
	EXPECT_TRUE(strstr(text, "{\"node\": 0, \"thp_local\": 100, ") != NULL)
		TH_LOG("JSON: one node per line, stats file order");
	EXPECT_TRUE(strstr(text, "\"local_pct\": null") != NULL)
		TH_LOG("JSON: undefined ratios are null");
	save("good-2node.json", text);
	free(text);

	text = capture(stats_write_prometheus, &st);
	EXPECT_TRUE(strstr(text, "# TYPE thpnuma_thp_local_total counter\n") &&
	            strstr(text, "thpnuma_thp_local_total{node=\"0\"} 100\n"))
		TH_LOG("Prometheus: counter type and node label");
	EXPECT_TRUE(strstr(text, "thpnuma_alloc_seconds_total{node=\"0\"} 0.214000000\n") != NULL)
		TH_LOG("Prometheus: alloc_ns exported in seconds");
	save("good-2node.prom", text);
	free(text);

	EXPECT_TRUE(stats_select_node(&st, 7) == -ENOENT && st.nr_nodes == 2)
		TH_LOG("selecting an offline node fails and keeps all");
	EXPECT_TRUE(stats_select_node(&st, 1) == 0 && st.nr_nodes == 1 &&
	            st.nodes[0].node == 1)
		TH_LOG("selecting node 1 keeps only it");
	stats_free(&st);
}

TEST(huge)
{
	struct thpnuma_stats st;
	uint64_t total[THPNUMA_NR_COUNTERS];
	struct derived_stats d;
	char err[256] = "", *text;

	if (parse_fixture("good-4node-huge.txt", &st, err, sizeof(err))) {
		EXPECT_TRUE(0)
			TH_LOG("good-4node-huge.txt parses (%s)", err);
		return;
	}
	EXPECT_TRUE(st.nr_nodes == 4 &&
	            st.nodes[3].counter[THPNUMA_THP_LOCAL] == UINT64_MAX)
		TH_LOG("UINT64_MAX parses");
	stats_total(&st, total);
	EXPECT_TRUE(total[THPNUMA_THP_LOCAL] == UINT64_MAX)
		TH_LOG("total saturates instead of wrapping");
	stats_derive(st.nodes[3].counter, &d);
	EXPECT_TRUE(d.valid && d.local_pct == 50.0)
		TH_LOG("derived ratios of huge counters do not wrap (%f)",
		       d.local_pct);
	text = capture(write_table_total, &st);
	EXPECT_TRUE(strstr(text, "18446744073709551615") &&
	            table_lines_equal_width(text))
		TH_LOG("table fits 20-digit values");
	save("good-4node-huge.table", text);
	free(text);
	text = capture(stats_write_json, &st);
	save("good-4node-huge.json", text);
	free(text);
	text = capture(stats_write_prometheus, &st);
	EXPECT_TRUE(strstr(text, "thpnuma_alloc_seconds_total{node=\"3\"} 18446744073.709551615\n") != NULL)
		TH_LOG("Prometheus seconds keep full precision");
	save("good-4node-huge.prom", text);
	free(text);
	stats_free(&st);
}

TEST(tolerated)
{
	struct thpnuma_stats st;
	char err[256] = "";

	if (parse_fixture("good-extra-unknown-column.txt", &st, err,
			  sizeof(err))) {
		EXPECT_TRUE(0)
			TH_LOG("an unknown column is skipped (%s)", err);
	} else {
		/* stats_seq(0, 1): counter c holds c + 1. */
		EXPECT_TRUE(st.nr_nodes == 1 &&
		            st.nodes[0].counter[THPNUMA_THP_LOCAL] == THPNUMA_THP_LOCAL + 1 &&
		            st.nodes[0].counter[THPNUMA_THP_REMOTE] == THPNUMA_THP_REMOTE + 1 &&
		            st.nodes[0].counter[THPNUMA_ALLOC_NS] == THPNUMA_ALLOC_NS + 1)
			TH_LOG("an unknown column is skipped, the others found by name");
		stats_free(&st);
	}
	if (parse_fixture("good-crlf.txt", &st, err, sizeof(err))) {
		EXPECT_TRUE(0)
			TH_LOG("CRLF line ends parse (%s)", err);
	} else {
		EXPECT_TRUE(st.nr_nodes == 1 &&
		            st.nodes[0].counter[THPNUMA_ALLOC_NS] == THPNUMA_ALLOC_NS + 1)
			TH_LOG("CRLF line ends parse");
		stats_free(&st);
	}
}

TEST(delta)
{
	struct thpnuma_stats prev, cur, delta;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *mem;

	parse_text(stats_recording("good-2node.txt"), &prev, err, sizeof(err));
	parse_text(stats_recording("good-2node.txt"), &cur, err, sizeof(err));
	cur.nodes[0].counter[THPNUMA_THP_LOCAL] = 130;
	cur.nodes[0].counter[THPNUMA_THP_REMOTE] = 1;	/* reset in between */
	stats_delta(&prev, &cur, &delta);
	EXPECT_TRUE(delta.nodes[0].counter[THPNUMA_THP_LOCAL] == 30 &&
	            delta.nodes[0].counter[THPNUMA_THP_FALLBACK] == 0)
		TH_LOG("delta subtracts the previous sample");
	EXPECT_TRUE(delta.nodes[0].counter[THPNUMA_THP_REMOTE] == 1)
		TH_LOG("a counter that went down (reset) counts from zero");

	mem = open_memstream(&text, &len);
	stats_write_watch_header(mem);
	stats_write_watch_rows(mem, "12:00:00", &delta);
	fclose(mem);
	EXPECT_TRUE(strstr(text, "12:00:00    0         30") &&
	            strstr(text, "12:00:00  all") && table_lines_equal_width(text))
		TH_LOG("watch rows: fixed width, one per node plus all");
	save("watch.txt", text);
	free(text);
	stats_free(&delta);
	stats_free(&prev);
	stats_free(&cur);
}

TEST(bracketed)
{
	char out[32];

	EXPECT_TRUE(bracketed_choice("kernel [strict-local] local-then-remote\n",
				out, sizeof(out)) == 0 &&
	            !strcmp(out, "strict-local"))
		TH_LOG("bracketed choice in the middle");
	EXPECT_TRUE(bracketed_choice("[all] madvise\n", out, sizeof(out)) == 0 &&
	            !strcmp(out, "all"))
		TH_LOG("bracketed choice first");
	EXPECT_TRUE(bracketed_choice("always madvise never\n", out,
				sizeof(out)) == -EINVAL)
		TH_LOG("no brackets is an error");
	EXPECT_TRUE(bracketed_choice("a [] b", out, sizeof(out)) == -EINVAL)
		TH_LOG("empty brackets is an error");
	EXPECT_TRUE(bracketed_choice("a [bbbbbbbb] c", out, 4) == -EINVAL)
		TH_LOG("too long for the buffer is an error");
}

/* The generated broken files (gen.c): a good one with one thing changed. */
FIXTURE(stats_file) {};
FIXTURE_SETUP(stats_file) {}
FIXTURE_TEARDOWN(stats_file) {}

FIXTURE_VARIANT(stats_file) {
	const char *file;
	/* A format with at most one %s: the name of counter @counter. */
	const char *reason;
	int counter;
};

/* File names have '-': the variant's name is the file's with '_'. */
FIXTURE_VARIANT_ADD(stats_file, bad_empty) {
	.file = "bad-empty.txt", .reason = "empty stats file",
};
FIXTURE_VARIANT_ADD(stats_file, bad_header_only) {
	.file = "bad-header-only.txt", .reason = "no node rows",
};
FIXTURE_VARIANT_ADD(stats_file, bad_missing_column) {
	.file = "bad-missing-column.txt", .reason = "line 2: too few fields",
};
FIXTURE_VARIANT_ADD(stats_file, bad_extra_column) {
	.file = "bad-extra-column.txt", .reason = "line 2: too many fields",
};
FIXTURE_VARIANT_ADD(stats_file, bad_non_numeric) {
	.file = "bad-non-numeric.txt",
	.reason = "line 2: %s value \"abc\" is not a number",
	.counter = THPNUMA_THP_FALLBACK,
};
FIXTURE_VARIANT_ADD(stats_file, bad_negative) {
	.file = "bad-negative.txt",
	.reason = "%s value \"-5\" is not a number",
	.counter = THPNUMA_THP_REMOTE,
};
FIXTURE_VARIANT_ADD(stats_file, bad_overflow) {
	.file = "bad-overflow.txt", .reason = "%s value \"18446744073709551616\" exceeds 64 bits",
	.counter = THPNUMA_THP_REMOTE,
};
FIXTURE_VARIANT_ADD(stats_file, bad_duplicate_node) {
	.file = "bad-duplicate-node.txt",
	.reason = "line 3: node 0 appears twice",
};
FIXTURE_VARIANT_ADD(stats_file, bad_no_header) {
	.file = "bad-no-header.txt",
	.reason = "header does not start with \"node\"",
};
FIXTURE_VARIANT_ADD(stats_file, bad_node_id) {
	.file = "bad-node-id.txt", .reason = "bad node id \"x\"",
};
FIXTURE_VARIANT_ADD(stats_file, bad_header_lacks_counter) {
	.file = "bad-header-lacks-counter.txt",
	.reason = "line 1: header lacks column \"%s\"",
	.counter = THPNUMA_NR_COUNTERS - 1,
};

TEST_F(stats_file, is_refused)
{
	char want[256];

	snprintf(want, sizeof(want), variant->reason,
		 thpnuma_counter_names[variant->counter]);
	expect_refused(_metadata, variant->file, gen_fixture(variant->file),
		       want);
}

TEST(refuses_broken_files)
{
	struct thpnuma_stats st;
	char err[256];

	EXPECT_TRUE(stats_parse("   \n\n", &st, err, sizeof(err)) == -EINVAL &&
		    strstr(err, "empty"))
		TH_LOG("blank-only text is empty");
}

/* Each counter's value broken in turn, and the error names it. */
TEST(refuses_each_broken_value)
{
	static const struct {
		const char *value, *why;
	} bad[] = {
		{ "abc", "is not a number" },
		{ "-1", "is not a number" },
		{ "0x1", "is not a number" },
		{ "18446744073709551616", "exceeds 64 bits" },
	};

	for (int c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
			char want[128];

			snprintf(want, sizeof(want),
				 "line 2: %s value \"%s\" %s",
				 thpnuma_counter_names[c], bad[i].value,
				 bad[i].why);
			expect_refused(_metadata, thpnuma_counter_names[c],
				       cat(2, stats_header(),
					   line_set(stats_seq(0, 1),
						    STATS_FIELD(c),
						    bad[i].value)),
				       want);
		}
		/* A row one field short, whichever field it lacks. */
		expect_refused(_metadata, thpnuma_counter_names[c],
			       cat(2, stats_header(),
				   line_drop(stats_seq(0, 1), STATS_FIELD(c))),
			       "line 2: too few fields");
	}
}

/* Every known column is required: a header without any one is refused. */
TEST(insists_on_every_known_column)
{
	for (int c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		char want[128];

		snprintf(want, sizeof(want), "line 1: header lacks column \"%s\"",
			 thpnuma_counter_names[c]);
		expect_refused(_metadata, thpnuma_counter_names[c],
			       cat(2, line_drop(stats_header(), STATS_FIELD(c)),
				   line_drop(stats_seq(0, 1), STATS_FIELD(c))),
			       want);
	}
}

TEST(parse_decimal_is_strict)
{
	static const char *const bad[] = { "", "-1", "+1", " 1", "1 ", "0x1",
					   "1a" };
	uint64_t v = 7;

	EXPECT_EQ(0, parse_decimal("0", UINT64_MAX, &v));
	EXPECT_EQ(0, v);
	EXPECT_EQ(0, parse_decimal("18446744073709551615", UINT64_MAX, &v));
	EXPECT_EQ(UINT64_MAX, v);
	EXPECT_EQ(-ERANGE, parse_decimal("18446744073709551616", UINT64_MAX,
					 &v));
	EXPECT_EQ(0, parse_decimal("7", 7, &v));
	EXPECT_EQ(-ERANGE, parse_decimal("8", 7, &v));
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, parse_decimal(bad[i], UINT64_MAX, &v))
			TH_LOG("accepted \"%s\"", bad[i]);
	}
	EXPECT_EQ(7, v);
}

TEST(parse_size_takes_units)
{
	EXPECT_EQ(4096, parse_size("4096"));
	EXPECT_EQ(64 << 10, parse_size("64k"));
	EXPECT_EQ(400UL << 20, parse_size("400M"));
	EXPECT_EQ(2UL << 30, parse_size("2GiB"));
	EXPECT_EQ(0, parse_size("2X"));
	EXPECT_EQ(0, parse_size(""));
}

TEST(split_fields_counts_and_limits)
{
	char line[] = " a\tb  c\r", many[] = "a b c d";
	char *f[3];

	ASSERT_EQ(3, split_fields(line, f, 3));
	EXPECT_STREQ("a", f[0]);
	EXPECT_STREQ("b", f[1]);
	EXPECT_STREQ("c", f[2]);
	EXPECT_EQ(-E2BIG, split_fields(many, f, 3));
}

struct seen_lines {
	char text[128];
	unsigned int stop_at;
};

static int note_line(char *line, unsigned int lineno, void *ctx)
{
	struct seen_lines *seen = ctx;
	size_t used = strlen(seen->text);

	snprintf(seen->text + used, sizeof(seen->text) - used, "%u:%s;",
		 lineno, line);
	return lineno == seen->stop_at ? -EINVAL : 0;
}

TEST(for_each_line_skips_blanks_and_stops)
{
	struct seen_lines seen = { "", 0 };

	EXPECT_EQ(0, for_each_line("a\n\n  \nb\r\nc", note_line, &seen));
	EXPECT_STREQ("1:a;4:b;5:c;", seen.text);
	seen = (struct seen_lines){ "", 4 };
	EXPECT_EQ(-EINVAL, for_each_line("a\n\n\nb\nc\n", note_line, &seen));
	EXPECT_STREQ("1:a;4:b;", seen.text);
}

/* Run @write with a JSON writer into a string. */
static char *capture_json(void (*write)(struct json_writer *j),
			  enum json_style style)
{
	struct json_writer j;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	json_begin(&j, mem, style, false);
	write(&j);
	json_end(&j);
	fclose(mem);
	return text;
}

static void write_sample(struct json_writer *j)
{
	static const long nodes[] = { 1, 2 };

	json_string(j, "s", "a\"b\\c\n");
	json_long(j, "l", -3);
	json_u64(j, "u", UINT64_MAX);
	json_double(j, "d", 1.5);
	json_null(j, "n");
	json_object(j, "o", false);
	json_close(j);
	json_longs(j, "a", nodes, 2);
}

TEST(json_writer_compact_and_spaced)
{
	char *text = capture_json(write_sample, JSON_COMPACT);

	EXPECT_STREQ("{\"s\":\"a\\\"b\\\\c\\u000a\",\"l\":-3,"
		     "\"u\":18446744073709551615,\"d\":1.500,\"n\":null,"
		     "\"o\":{},\"a\":[1,2]}\n", text);
	free(text);
	text = capture_json(write_sample, JSON_SPACED);
	EXPECT_STREQ("{\"s\": \"a\\\"b\\\\c\\u000a\", \"l\": -3, "
		     "\"u\": 18446744073709551615, \"d\": 1.500, "
		     "\"n\": null, \"o\": {}, \"a\": [1, 2]}\n", text);
	free(text);
}

TEST(json_writer_breaks_lines)
{
	struct json_writer j;
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	json_begin(&j, mem, JSON_SPACED, true);
	json_array(&j, "rows", true);
	json_object(&j, NULL, false);
	json_long(&j, "a", 1);
	json_long(&j, "b", 2);
	json_close(&j);
	json_object(&j, NULL, false);
	json_close(&j);
	json_close(&j);
	json_object(&j, "total", false);
	json_long(&j, "a", 1);
	json_end(&j);
	fclose(mem);
	EXPECT_STREQ("{\n  \"rows\": [\n    {\"a\": 1, \"b\": 2},\n    {}\n"
		     "  ],\n  \"total\": {\"a\": 1}\n}\n", text);
	free(text);
}

static char *json_string_text(const char *in)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	json_write_string(mem, in);
	fclose(mem);
	return text;
}

/* Every byte a process may put in its name gives valid, ASCII JSON. */
TEST(json_string_hostile_bytes)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "a\tb\nc\r", "\"a\\u0009b\\u000ac\\u000d\"" },
		{ "q\"b\\", "\"q\\\"b\\\\\"" },
		{ "\x7f\x01", "\"\\u007f\\u0001\"" },
		{ "caf\xc3\xa9", "\"caf\\u00e9\"" },		/* UTF-8 e-acute */
		{ "\xe2\x80\xa6", "\"\\u2026\"" },		/* U+2026 */
		{ "\xf0\x9f\x98\x80", "\"\\ud83d\\ude00\"" },	/* U+1F600 */
		{ "\xff", "\"\\ufffd\"" },
		{ "\x80x", "\"\\ufffdx\"" },			/* lone continuation */
		{ "\xc3", "\"\\ufffd\"" },			/* cut short */
		{ "\xc3(", "\"\\ufffd(\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },		/* overlong '/' */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		char *text = json_string_text(cases[i].in);

		EXPECT_STREQ(cases[i].want, text);
		free(text);
	}
	/* Every byte 0x01-0xff, for run.sh's json.tool. */
	{
		char all[256], *text, path[4096];
		FILE *f;

		for (int b = 1; b < 256; b++)
			all[b - 1] = (char)b;
		all[255] = '\0';
		text = json_string_text(all);
		for (const char *p = text; *p; p++)
			EXPECT_TRUE((unsigned char)*p >= 0x20 &&
				    (unsigned char)*p < 0x7f);
		snprintf(path, sizeof(path), "%s/every-byte.json",
			 env_dir("TEST_OUT"));
		f = fopen(path, "w");
		ASSERT_NE(NULL, f);
		fprintf(f, "{\"s\": %s}\n", text);
		fclose(f);
		free(text);
	}
}

TEST(escape_text_for_tables)
{
	char out[64];

	escape_text(out, sizeof(out), "a b\tc\nd\\e\xff\x7f");
	EXPECT_STREQ("a b\\011c\\012d\\134e\\377\\177", out);
	escape_text(out, 6, "ab\ncd");		/* \012 does not fit */
	EXPECT_STREQ("ab", out);
}

/*
 * The module escapes every control character, space and backslash; a high
 * byte is part of the name, a raw control character is not its format.
 */
TEST(tasks_parse_hostile_names)
{
	static const char *const raw[] = {
		"6 x\ry strict-local 3 -\n",
		"6 x\ty strict-local 3 -\n",
		"6 x\001y strict-local 3 -\n",
		"6 x\x7fy strict-local 3 -\n",
	};
	struct task_list tl;
	char err[128], *text = NULL;
	size_t len = 0;
	FILE *mem;

	ASSERT_EQ(0, tasks_parse("5 a\\011b\\012c\\134\\040d kernel - -\n"
				 "6 x\\015y\xff\x80 strict-local 3 -\n"
				 "7 \\012412\\040fake\\040kernel kernel - -\r\n",
				 &tl, err, sizeof(err)));
	ASSERT_EQ(3, tl.nr);
	EXPECT_STREQ("a\tb\nc\\ d", tl.tasks[0].comm);
	EXPECT_STREQ("x\ry\xff\x80", tl.tasks[1].comm);
	EXPECT_STREQ("strict-local", tl.tasks[1].policy);
	mem = open_memstream(&text, &len);
	tasks_write_table(mem, &tl);
	fclose(mem);
	/* A header and three rows: no name adds a line. */
	EXPECT_STREQ("     PID  COMMAND           POLICY              ZONE_RECLAIM  BUDGET_US\n"
		     "       5  a\\011b\\012c\\134 d  kernel              global        global\n"
		     "       6  x\\015y\\377\\200    strict-local        3             global\n"
		     "       7  \\012412 fake kernel  kernel              global        global\n",
		     text);
	free(text);
	tasks_free(&tl);
	EXPECT_EQ(-EINVAL, tasks_parse("5 a\\9 kernel - -\n", &tl, err,
				       sizeof(err)));
	for (unsigned int i = 0; i < ARRAY_SIZE(raw); i++)
		EXPECT_EQ(-EINVAL, tasks_parse(raw[i], &tl, err, sizeof(err)));
}

/* What memstream @fn writes of @list. */
#define WRITTEN(fn, list) ({					\
	char *_text = NULL;					\
	size_t _len = 0;					\
	FILE *_mem = open_memstream(&_text, &_len);		\
	fn(_mem, list);						\
	fclose(_mem);						\
	_text;							\
})

/*
 * The module's five tasks columns and four cgroups columns, "-" for what
 * follows the global setting: -1 here, "global" in tables, null in JSON.
 */
TEST(overrides_parse_budget_us)
{
	static const char *const bad_tasks[] = {
		"5 sh kernel -\n",		/* an older module's layout */
		"5 sh kernel - - -\n",
		"5 sh budget - 0\n",
		"5 sh budget - 1000001\n",
		"5 sh budget - 01x\n",
		"5 sh budget - +5\n",
		"5 sh budget 8 5\n",
	};
	static const char *const bad_cgroups[] = {
		"/a kernel -\n",
		"/a kernel - - -\n",
		"/a budget - 0\n",
		"/a budget - 1000001\n",
		"a budget - 5\n",
	};
	struct cgroup_list cl;
	struct task_list tl;
	char err[128], *text;
	unsigned int i;

	ASSERT_EQ(0, tasks_parse("9 db budget 3 1000000\n5 sh kernel - 1\n"
				 "7 x budget - -\n", &tl, err, sizeof(err)));
	ASSERT_EQ(3, tl.nr);
	EXPECT_EQ(3, tl.tasks[0].zone_reclaim);
	EXPECT_EQ(1000000, tl.tasks[0].budget_us);
	EXPECT_EQ(-1, tl.tasks[1].zone_reclaim);
	EXPECT_EQ(1, tl.tasks[1].budget_us);
	EXPECT_EQ(-1, tl.tasks[2].budget_us);
	text = WRITTEN(tasks_write_json, &tl);
	EXPECT_STREQ("{\"tasks\": ["
		     "{\"pid\": 5, \"comm\": \"sh\", \"policy\": \"kernel\", \"zone_reclaim\": null, \"budget_us\": 1}, "
		     "{\"pid\": 7, \"comm\": \"x\", \"policy\": \"budget\", \"zone_reclaim\": null, \"budget_us\": null}, "
		     "{\"pid\": 9, \"comm\": \"db\", \"policy\": \"budget\", \"zone_reclaim\": 3, \"budget_us\": 1000000}"
		     "]}\n", text);
	free(text);
	tasks_free(&tl);
	for (i = 0; i < ARRAY_SIZE(bad_tasks); i++)
		EXPECT_EQ(-EINVAL, tasks_parse(bad_tasks[i], &tl, err,
					       sizeof(err)));
	EXPECT_EQ(-EINVAL, tasks_parse("5 sh kernel -\n", &tl, err,
				       sizeof(err)));
	EXPECT_STREQ("line 1: expected PID COMMAND POLICY ZONE_RECLAIM BUDGET_US",
		     err);

	ASSERT_EQ(0, cgroups_parse("/db.slice budget 7 250\n/ kernel - -\n",
				   &cl, err, sizeof(err)));
	ASSERT_EQ(2, cl.nr);
	EXPECT_EQ(7, cl.cgroups[0].zone_reclaim);
	EXPECT_EQ(250, cl.cgroups[0].budget_us);
	EXPECT_EQ(-1, cl.cgroups[1].budget_us);
	text = WRITTEN(cgroups_write_table, &cl);
	EXPECT_STREQ("POLICY              ZONE_RECLAIM  BUDGET_US  CGROUP\n"
		     "kernel              global        global     /\n"
		     "budget              7             250        /db.slice\n",
		     text);
	free(text);
	text = WRITTEN(cgroups_write_json, &cl);
	EXPECT_STREQ("{\"cgroups\": ["
		     "{\"path\": \"/\", \"policy\": \"kernel\", \"zone_reclaim\": null, \"budget_us\": null}, "
		     "{\"path\": \"/db.slice\", \"policy\": \"budget\", \"zone_reclaim\": 7, \"budget_us\": 250}"
		     "]}\n", text);
	free(text);
	cgroups_free(&cl);
	for (i = 0; i < ARRAY_SIZE(bad_cgroups); i++)
		EXPECT_EQ(-EINVAL, cgroups_parse(bad_cgroups[i], &cl, err,
						 sizeof(err)));
}

TEST(prometheus_label_values)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	prometheus_write_label_value(mem, "a\"b\\c\nd");
	fclose(mem);
	EXPECT_STREQ("\"a\\\"b\\\\c\\nd\"", text);
	free(text);
}

TEST_HARNESS_MAIN
