// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for userspace/lib/hist.c: the hist file parser fed a recorded
 * file and files generated from counters.h's layout (gen.c), the
 * percentiles, and the text, JSON and Prometheus writers. Fixtures and
 * outputs: see fixture.h.
 *
 * hist-2node.txt is read as recorded: its columns are the histogram
 * layout and the outcomes, which a new counter leaves alone; a new
 * outcome or bucket is a new layout, refused by thpnumactl (it says so),
 * and then needs a new recording, as the module's file changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "fixture.h"
#include "gen.h"
#include "hist.h"
#include "stats.h"

#define LAST	(THPNUMA_HIST_BUCKETS - 1)

/* The recording hist-2node.txt, or a generated file (gen.c). */
static int parse_hist_fixture(const char *name, struct thpnuma_hist *h,
			      char *err, size_t errlen)
{
	char *text = strcmp(name, "hist-2node.txt") ? gen_fixture(name) :
		     slurp(name);
	int ret = hist_parse(text, h, err, errlen);

	free(text);
	return ret;
}

static void expect_refused(struct __test_metadata *_metadata,
			   const char *name, const char *text,
			   const char *reason)
{
	struct thpnuma_hist h;
	char err[512] = "";
	int ret = hist_parse(text, &h, err, sizeof(err));

	EXPECT_TRUE(ret == -EINVAL && strstr(err, reason))
		TH_LOG("%s is refused with \"%s\" (got %d, \"%s\")", name,
		       reason, ret, err);
	EXPECT_TRUE(h.nodes == NULL && h.nr_nodes == 0)
		TH_LOG("%s: nothing is left allocated on error", name);
}

static void expect_fixture_refused(struct __test_metadata *_metadata,
				   const char *name, const char *reason)
{
	char *text = gen_fixture(name);

	expect_refused(_metadata, name, text, reason);
	free(text);
}

/* The header counters.h implies, with column @col (from 0) as @instead. */
static void header_with(char *buf, size_t len, int col, const char *instead)
{
	size_t used = snprintf(buf, len, "node outcome count sum_ns");
	int b;

	for (b = 0; b < THPNUMA_HIST_BUCKETS && used < len; b++) {
		char name[32];

		if (b == LAST)
			snprintf(name, sizeof(name), "inf");
		else
			snprintf(name, sizeof(name), "%llu",
				 thpnuma_hist_bound(b));
		used += snprintf(buf + used, len - used, " %s",
				 col == 4 + b && instead ? instead : name);
	}
}

TEST(parses_counts)
{
	struct thpnuma_hist h;
	char err[512] = "";

	ASSERT_EQ(0, parse_hist_fixture("hist-2node.txt", &h, err,
					sizeof(err)))
		TH_LOG("hist-2node.txt parses (%s)", err);
	ASSERT_EQ(2, h.nr_nodes);
	EXPECT_EQ(0, h.nodes[0].node);
	EXPECT_EQ(1, h.nodes[1].node);
	EXPECT_EQ(100, h.nodes[0].outcome[THPNUMA_HIST_LOCAL].count);
	EXPECT_EQ(190000000, h.nodes[0].outcome[THPNUMA_HIST_LOCAL].sum_ns);
	EXPECT_EQ(60, h.nodes[0].outcome[THPNUMA_HIST_LOCAL].bucket[11]);
	EXPECT_EQ(3, h.nodes[0].outcome[THPNUMA_HIST_REMOTE].bucket[13]);
	EXPECT_EQ(2, h.nodes[0].outcome[THPNUMA_HIST_FALLBACK].count);
	EXPECT_EQ(0, h.nodes[1].outcome[THPNUMA_HIST_FALLBACK].count);
	EXPECT_EQ(0, hist_select_node(&h, 1));
	EXPECT_TRUE(h.nr_nodes == 1 && h.nodes[0].node == 1);
	EXPECT_EQ(-ENOENT, hist_select_node(&h, 0));
	hist_free(&h);
}

/* The module's invariants, which the fixtures keep: see counters.h. */
TEST(fixture_agrees_with_stats)
{
	static const int counter[THPNUMA_NR_HIST_OUTCOMES] = {
		[THPNUMA_HIST_LOCAL]	= THPNUMA_THP_LOCAL,
		[THPNUMA_HIST_REMOTE]	= THPNUMA_THP_REMOTE,
		[THPNUMA_HIST_FALLBACK]	= THPNUMA_THP_FALLBACK,
	};
	struct thpnuma_stats st;
	struct thpnuma_hist h;
	char err[512] = "", *text = stats_recording("good-2node.txt");

	ASSERT_EQ(0, stats_parse(text, &st, err, sizeof(err)));
	free(text);
	ASSERT_EQ(0, parse_hist_fixture("hist-2node.txt", &h, err,
					sizeof(err)));
	ASSERT_EQ(st.nr_nodes, h.nr_nodes);
	for (unsigned int i = 0; i < h.nr_nodes; i++) {
		uint64_t sum = 0;

		for (int o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++) {
			EXPECT_EQ(st.nodes[i].counter[counter[o]],
				  h.nodes[i].outcome[o].count);
			sum += h.nodes[i].outcome[o].sum_ns;
		}
		EXPECT_EQ(st.nodes[i].counter[THPNUMA_ALLOC_NS], sum);
	}
	stats_free(&st);
	hist_free(&h);
}

TEST(percentiles)
{
	struct thpnuma_hist h;
	struct hist_counts hc = { 0 };
	const struct hist_counts *o;
	char err[512] = "";

	ASSERT_EQ(0, parse_hist_fixture("hist-2node.txt", &h, err,
					sizeof(err)));
	o = h.nodes[0].outcome;
	/* local: 10, 60, 25, 4, 0, 1 in buckets 10 to 15 */
	EXPECT_EQ(11, hist_percentile(&o[THPNUMA_HIST_LOCAL], 50));
	EXPECT_EQ(13, hist_percentile(&o[THPNUMA_HIST_LOCAL], 99));
	EXPECT_EQ(15, hist_percentile(&o[THPNUMA_HIST_LOCAL], 100));
	EXPECT_EQ(15, hist_max_bucket(&o[THPNUMA_HIST_LOCAL]));
	EXPECT_EQ(2097152, thpnuma_hist_bound(11));
	/* remote: 2, 3 in buckets 12 and 13; the 3rd of 5 is the median */
	EXPECT_EQ(13, hist_percentile(&o[THPNUMA_HIST_REMOTE], 50));
	EXPECT_EQ(12, hist_percentile(&o[THPNUMA_HIST_REMOTE], 40));
	EXPECT_EQ(-1, hist_percentile(&h.nodes[1].outcome[0], 50));
	EXPECT_EQ(-1, hist_max_bucket(&h.nodes[1].outcome[0]));
	hist_free(&h);

	ASSERT_EQ(0, parse_hist_fixture("hist-edges.txt", &h, err,
					sizeof(err)));
	o = h.nodes[0].outcome;
	EXPECT_EQ(0, hist_percentile(&o[THPNUMA_HIST_LOCAL], 50));
	EXPECT_EQ(LAST, hist_percentile(&o[THPNUMA_HIST_LOCAL], 99));
	EXPECT_EQ(LAST, hist_max_bucket(&o[THPNUMA_HIST_LOCAL]));
	EXPECT_EQ(17179869184ULL, hist_lower(LAST));
	EXPECT_EQ(0, hist_lower(0));
	hist_free(&h);

	/* 990 of 1000 fill bucket 3 exactly to the 99th percentile. */
	hc.bucket[3] = 990;
	hc.bucket[7] = 10;
	hc.count = 1000;
	EXPECT_EQ(3, hist_percentile(&hc, 99));
	hc.bucket[3] = 989;
	hc.bucket[7] = 11;
	EXPECT_EQ(7, hist_percentile(&hc, 99));
	/* Counts near 2^64 do not overflow the rank. */
	hc.bucket[3] = 1ULL << 63;
	hc.bucket[7] = (1ULL << 63) - 1;
	hc.count = UINT64_MAX;
	EXPECT_EQ(3, hist_percentile(&hc, 50));
	EXPECT_EQ(7, hist_percentile(&hc, 51));
	EXPECT_EQ(7, hist_percentile(&hc, 100));
}

TEST(refuses_other_layouts)
{
	char text[2048];

	expect_fixture_refused(_metadata, "hist-bad-bound.txt",
			       "line 1: column 5 is \"1000\", expected \"1024\": the module's histogram layout is not thpnumactl's");
	expect_fixture_refused(_metadata, "hist-bad-fewer-buckets.txt",
			       "expected \"17179869184\"");
	expect_fixture_refused(_metadata, "hist-bad-more-buckets.txt",
			       "column 30 is \"34359738368\", expected \"inf\"");
	/* Any one column renamed is refused, by its name. */
	for (int col = 4; col < 4 + THPNUMA_HIST_BUCKETS; col++) {
		char want[64];

		header_with(text, sizeof(text), col, "999");
		strcat(text, "\n");
		snprintf(want, sizeof(want), "column %d is \"999\"", col + 1);
		expect_refused(_metadata, "a renamed bucket", text, want);
	}
	header_with(text, sizeof(text), -1, NULL);
	strcat(text, " extra\n");
	expect_refused(_metadata, "an extra column", text,
		       "header has more than the");
	expect_refused(_metadata, "a stats header",
		       "node thp_local thp_remote\n0 1 2\n",
		       "column 2 is \"thp_local\", expected \"outcome\"");
	expect_refused(_metadata, "no header", "", "empty hist file");
	header_with(text, sizeof(text), -1, NULL);
	expect_refused(_metadata, "header only", text, "no node rows");
}

TEST(refuses_broken_rows)
{
	char text[4096], *row;

	expect_fixture_refused(_metadata, "hist-bad-order.txt",
			       "line 3: outcome \"fallback\" where \"remote\" was expected");
	expect_fixture_refused(_metadata, "hist-bad-missing-outcome.txt",
			       "line 4: node 0 lacks outcome \"fallback\"");
	expect_fixture_refused(_metadata, "hist-bad-truncated.txt",
			       "node 0 lacks outcome \"fallback\"");
	expect_fixture_refused(_metadata, "hist-bad-count.txt",
			       "line 2: count 3 is not the sum of the buckets (2)");
	header_with(text, sizeof(text), -1, NULL);
	row = text + strlen(text);
	snprintf(row, text + sizeof(text) - row, "\n0 local 0 0 x");
	expect_refused(_metadata, "a short row", text, "line 2: too few fields");
	snprintf(row, text + sizeof(text) - row, "\n0 local 0 -1");
	for (int b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		strcat(row, " 0");
	expect_refused(_metadata, "a negative sum", text,
		       "sum_ns value \"-1\" is not a number");
	snprintf(row, text + sizeof(text) - row, "\nx local 0 0");
	for (int b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		strcat(row, " 0");
	expect_refused(_metadata, "a bad node", text, "bad node id \"x\"");
	snprintf(row, text + sizeof(text) - row, "\n0 slow 0 0");
	for (int b = 0; b < THPNUMA_HIST_BUCKETS; b++)
		strcat(row, " 0");
	expect_refused(_metadata, "an unknown outcome", text,
		       "outcome \"slow\" where \"local\" was expected");
}

TEST(text_matches_fixture)
{
	struct thpnuma_hist h;
	struct capture c;
	char err[512] = "", *text, *want = slurp("hist-2node.expected");

	ASSERT_EQ(0, parse_hist_fixture("hist-2node.txt", &h, err,
					sizeof(err)));
	hist_write_text(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_STREQ(want, text);
	free(text);
	free(want);
	EXPECT_EQ(0, hist_select_node(&h, 1));
	hist_write_text(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_STREQ("no THP allocation timed yet: every histogram is empty\n",
		     text);
	free(text);
	hist_free(&h);
}

TEST(text_edges)
{
	struct thpnuma_hist h;
	struct capture c;
	char err[512] = "", *text;

	ASSERT_EQ(0, parse_hist_fixture("hist-edges.txt", &h, err,
					sizeof(err)));
	hist_write_text(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_TRUE(strstr(text, "node 3 local: 2 allocations, sum 17.18 s, p50 < 1K ns, p99 >= 16G ns, max >= 16G ns\n"
			   "[0, 1K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
			   "[1K, 2K)               0 |                                                    |\n") != NULL)
		TH_LOG("first bucket, unbounded last one: %s", text);
	EXPECT_TRUE(strstr(text, "[16G, ...)             1 |@@@@") != NULL);
	EXPECT_TRUE(strstr(text, "node 3 remote") == NULL)
		TH_LOG("empty histograms are left out");
	EXPECT_TRUE(strstr(text, "node 3 fallback: 1 allocation, sum 40.00 us, p50 < 32K ns") != NULL);
	free(text);
	hist_write_json(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_TRUE(strstr(text, "\"p99_ns\": null, \"max_ns\": null") &&
		    strstr(text, "{\"ge_ns\": 17179869184, \"lt_ns\": null, \"count\": 1}]}"))
		TH_LOG("JSON: the unbounded bucket's bound is null");
	save("hist-edges.json", text);
	free(text);
	hist_write_prometheus(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_TRUE(strstr(text, "thpnuma_alloc_duration_seconds_bucket{node=\"3\",outcome=\"local\",le=\"17.179869184\"} 1\n"
			   "thpnuma_alloc_duration_seconds_bucket{node=\"3\",outcome=\"local\",le=\"+Inf\"} 2\n"
			   "thpnuma_alloc_duration_seconds_sum{node=\"3\",outcome=\"local\"} 17.179870208\n"
			   "thpnuma_alloc_duration_seconds_count{node=\"3\",outcome=\"local\"} 2\n") != NULL)
		TH_LOG("Prometheus: the last bound, +Inf, sum and count: %s",
		       text);
	save("hist-edges.prom", text);
	free(text);
	hist_free(&h);
}

TEST(json_and_prometheus)
{
	struct thpnuma_hist h;
	struct capture c;
	char err[512] = "", *text;

	ASSERT_EQ(0, parse_hist_fixture("hist-2node.txt", &h, err,
					sizeof(err)));
	hist_write_json(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_TRUE(strstr(text, "{\"node\": 0, \"outcome\": \"local\", \"count\": 100, \"sum_ns\": 190000000, \"p50_ns\": 2097152, \"p99_ns\": 8388608, \"max_ns\": 33554432, \"buckets\": [{\"ge_ns\": 0, \"lt_ns\": 1024, \"count\": 0}, ") != NULL)
		TH_LOG("JSON: one histogram per line: %s", text);
	EXPECT_TRUE(strstr(text, "{\"node\": 1, \"outcome\": \"fallback\", \"count\": 0, \"sum_ns\": 0, \"p50_ns\": null, ") != NULL)
		TH_LOG("JSON: empty histograms too, percentiles null");
	save("hist-2node.json", text);
	free(text);
	hist_write_prometheus(capture_start(&c), &h);
	text = capture_end(&c);
	EXPECT_TRUE(strstr(text, "# TYPE thpnuma_alloc_duration_seconds histogram\n") &&
		    strstr(text, "thpnuma_alloc_duration_seconds_bucket{node=\"0\",outcome=\"local\",le=\"1.024e-06\"} 0\n") &&
		    strstr(text, "thpnuma_alloc_duration_seconds_bucket{node=\"0\",outcome=\"local\",le=\"0.002097152\"} 70\n") &&
		    strstr(text, "thpnuma_alloc_duration_seconds_bucket{node=\"0\",outcome=\"local\",le=\"+Inf\"} 100\n") &&
		    strstr(text, "thpnuma_alloc_duration_seconds_sum{node=\"0\",outcome=\"local\"} 0.190000000\n") &&
		    strstr(text, "thpnuma_alloc_duration_seconds_count{node=\"1\",outcome=\"fallback\"} 0\n"))
		TH_LOG("Prometheus: cumulative buckets, sum in seconds: %s",
		       text);
	save("hist-2node.prom", text);
	free(text);
	hist_free(&h);
}

TEST_HARNESS_MAIN
