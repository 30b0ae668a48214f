// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for thpnumactl compare's statistics (compare-stats.c) and
 * report (compare-report.c): medians, the rank test against values worked
 * out by hand, the bootstrap interval, the outcome of a comparison, the
 * verdict, and the JSON and SVG it writes (into TEST_OUT, which run.sh
 * validates).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "compare-report.h"
#include "compare-stats.h"

#define N(a)	(sizeof(a) / sizeof((a)[0]))

TEST(summary_of_five)
{
	double v[] = { 5, 1, 3, 2, 4 };
	struct compare_summary s;

	compare_summarize(v, N(v), &s);
	EXPECT_EQ(5, s.n);
	EXPECT_EQ(3, s.median);
	EXPECT_EQ(2, s.q1);
	EXPECT_EQ(4, s.q3);
	EXPECT_EQ(1, s.min);
	EXPECT_EQ(5, s.max);
	EXPECT_EQ(5, v[0]);	/* left as it was */
}

TEST(median_of_even_count)
{
	double v[] = { 4, 1, 3, 2 };
	struct compare_summary s;

	compare_summarize(v, N(v), &s);
	EXPECT_EQ(2.5, s.median);
}

/* Five against five, apart: 2 of the C(10,5) = 252 splits are as extreme. */
TEST(rank_test_exact_separated)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };

	EXPECT_LT(fabs(compare_rank_test(a, 5, b, 5) - 2.0 / 252), 1e-12);
	EXPECT_LT(fabs(compare_rank_test(b, 5, a, 5) - 2.0 / 252), 1e-12);
}

/* Three against three can never reach 5%: 2 of 20 splits. */
TEST(rank_test_three_rounds_cannot_decide)
{
	double a[] = { 1, 2, 3 }, b[] = { 10, 20, 30 };

	EXPECT_LT(fabs(compare_rank_test(a, 3, b, 3) - 0.1), 1e-12);
}

TEST(rank_test_ties_and_equal)
{
	double a[] = { 1, 1, 1, 1 }, b[] = { 1, 1, 1, 1 };
	double c[] = { 1, 2, 3, 4 }, d[] = { 1, 2, 3, 4 };

	EXPECT_EQ(1, compare_rank_test(a, 4, b, 4));
	EXPECT_EQ(1, compare_rank_test(c, 4, d, 4));
	EXPECT_EQ(1, compare_rank_test(a, 0, b, 4));
}

/*
 * Tied runs share their mean rank, whichever side they are on: 4 of the
 * C(8,4) = 70 splits are as extreme (worked out by enumerating them).
 */
TEST(rank_test_ties_share_their_rank)
{
	double a[] = { 11, 12, 12, 12 }, b[] = { 10, 10, 11, 10 };

	EXPECT_LT(fabs(compare_rank_test(a, 4, b, 4) - 4.0 / 70), 1e-12);
	EXPECT_LT(fabs(compare_rank_test(b, 4, a, 4) - 4.0 / 70), 1e-12);
}

/* 20 against 20 is past the exact limit: the normal approximation. */
TEST(rank_test_normal_approximation)
{
	double a[20], b[20];
	int i;

	for (i = 0; i < 20; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	EXPECT_LT(compare_rank_test(a, 20, b, 20), 1e-6);
	for (i = 0; i < 20; i++)
		b[i] = i + (i % 2 ? 0.5 : -0.5);
	EXPECT_GT(compare_rank_test(a, 20, b, 20), 0.5);
}

TEST(ratio_interval_deterministic)
{
	double a[] = { 9, 10, 11, 10, 10.5 }, b[] = { 19, 20, 21, 20, 20.5 };
	double lo1, hi1, lo2, hi2;

	compare_ratio_interval(a, 5, b, 5, 0.95, &lo1, &hi1);
	compare_ratio_interval(a, 5, b, 5, 0.95, &lo2, &hi2);
	EXPECT_EQ(lo1, lo2);
	EXPECT_EQ(hi1, hi2);
	EXPECT_LE(lo1, 0.5);
	EXPECT_GE(hi1, 0.5);
	EXPECT_GT(lo1, 0.4);
	EXPECT_LT(hi1, 0.6);
}

TEST(outcomes)
{
	double fast[] = { 10, 11, 10.5, 10.2, 10.8 };
	double slow[] = { 20, 21, 20.5, 20.2, 20.8 };
	double tight[] = { 10.00, 10.01, 10.02, 10.03, 10.04 };
	double near[] = { 10.05, 10.06, 10.07, 10.08, 10.09 };
	double one[] = { 1 };
	struct compare_result r;

	compare_two(fast, 5, slow, 5, false, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_BETTER, r.outcome);
	EXPECT_LT(fabs(r.ratio - 10.5 / 20.5), 1e-12);
	compare_two(slow, 5, fast, 5, false, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_WORSE, r.outcome);
	compare_two(slow, 5, fast, 5, true, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_BETTER, r.outcome);
	/* Every run slower, by 0.5%: significant, but under a 1% threshold. */
	compare_two(near, 5, tight, 5, false, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_BELOW_THRESHOLD, r.outcome);
	compare_two(near, 5, tight, 5, false, 0.95, 0, &r);
	EXPECT_EQ(COMPARE_WORSE, r.outcome);
	compare_two(fast, 3, slow, 3, false, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_NO_DIFFERENCE, r.outcome);
	compare_two(one, 1, slow, 5, false, 0.95, 0.01, &r);
	EXPECT_EQ(COMPARE_TOO_FEW, r.outcome);
}

static char *const command[] = { "thp-swapstorm", "--region", "200M", NULL };

/* Three policies, five rounds: @value[arm][round]. */
static void fill_report(struct compare_report *r, struct compare_arm *arms,
			struct compare_run *runs, double value[3][5])
{
	static const char *const names[] = {
		"kernel", "strict-local", "local-then-remote",
	};
	unsigned int a, k;

	memset(r, 0, sizeof(*r));
	memset(arms, 0, 3 * sizeof(*arms));
	memset(runs, 0, 15 * sizeof(*runs));
	for (a = 0; a < 3; a++) {
		snprintf(arms[a].spec, sizeof(arms[a].spec), "%s", names[a]);
		arms[a].policy = names[a];
		arms[a].zone_reclaim = -1;
	}
	for (k = 0; k < 15; k++) {
		runs[k].round = k / 3;
		runs[k].arm = (runs[k].round + k % 3) % 3;
		runs[k].seq = k + 1;
		runs[k].ok = true;
		runs[k].value = runs[k].wall_s =
			value[runs[k].arm][runs[k].round];
		runs[k].counter[THPNUMA_CG_THP_LOCAL] = 10;
		runs[k].counter[THPNUMA_CG_THP_REMOTE] = 90;
		runs[k].alloc.count = 1;
		runs[k].alloc.bucket[3] = 1;
		runs[k].system[COMPARE_SYS_SWAP_OUT] = runs[k].arm == 1 ? 1000 : 0;
	}
	r->argv = command;
	r->confidence = 0.95;
	r->threshold = 0.01;
	r->rounds = 5;
	r->nr_arms = 3;
	r->arms = arms;
	r->nr_runs = 15;
	r->runs = runs;
}

static FILE *out_file(const char *name)
{
	const char *dir = getenv("TEST_OUT");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : ".", name);
	return fopen(path, "w");
}

TEST(storm_verdict)
{
	double value[3][5] = {
		{ 3.0, 3.1, 2.9, 3.05, 3.0 },	/* kernel */
		{ 6.0, 6.2, 5.9, 6.1, 6.3 },	/* strict-local */
		{ 2.95, 3.12, 2.91, 3.0, 3.02 },	/* local-then-remote */
	};
	struct compare_arm arms[3];
	struct compare_run runs[15];
	struct compare_report r;
	char verdict[2048];
	FILE *f;

	fill_report(&r, arms, runs, value);
	runs[4].ok = false;
	runs[4].status = 1;
	compare_analyze(&r);
	EXPECT_EQ(2, r.best);
	EXPECT_EQ(COMPARE_BETTER, r.pair[2 * 3 + 1].outcome);
	EXPECT_EQ(COMPARE_NO_DIFFERENCE, r.pair[2 * 3 + 0].outcome);
	EXPECT_EQ(COMPARE_WORSE, arms[1].vs_base.outcome);
	EXPECT_EQ(4, arms[runs[4].arm].nr_ok);
	compare_verdict(verdict, sizeof(verdict), &r);
	EXPECT_NE(NULL, strstr(verdict, "local-then-remote is fastest: 0."));
	EXPECT_NE(NULL, strstr(verdict, "strict-local's time"));
	EXPECT_NE(NULL, strstr(verdict, "no difference from kernel at 95% confidence"));
	f = out_file("compare-storm.json");
	ASSERT_NE(NULL, f);
	compare_write_json(f, &r);
	fclose(f);
	f = out_file("compare-storm.svg");
	ASSERT_NE(NULL, f);
	compare_write_svg(f, &r);
	fclose(f);
	f = out_file("compare-storm.txt");
	ASSERT_NE(NULL, f);
	compare_write_text(f, &r);
	fclose(f);
	free(r.pair);
}

TEST(free_node_no_difference)
{
	double value[3][5] = {
		{ 1.0, 1.2, 0.9, 1.1, 1.05 },
		{ 1.1, 0.95, 1.0, 1.15, 1.02 },
		{ 1.05, 1.0, 1.12, 0.92, 1.08 },
	};
	struct compare_arm arms[3];
	struct compare_run runs[15];
	struct compare_report r;
	char verdict[2048];

	fill_report(&r, arms, runs, value);
	compare_analyze(&r);
	compare_verdict(verdict, sizeof(verdict), &r);
	EXPECT_STREQ("no difference at 95% confidence between kernel, strict-local and local-then-remote (5 rounds)",
		     verdict);
	free(r.pair);
}

/* A policy with one successful run is neither best nor "no difference". */
TEST(verdict_leaves_out_policies_without_runs)
{
	double value[3][5] = {
		{ 3.0, 3.1, 2.9, 3.05, 3.0 },
		{ 1.0, 1.0, 1.0, 1.0, 1.0 },
		{ 6.0, 6.2, 5.9, 6.1, 6.3 },
	};
	struct compare_arm arms[3];
	struct compare_run runs[15];
	struct compare_report r;
	char verdict[2048];
	unsigned int k, kept = 0;

	fill_report(&r, arms, runs, value);
	for (k = 0; k < 15; k++)
		if (runs[k].arm == 1 && kept++)
			runs[k].ok = false;
	compare_analyze(&r);
	EXPECT_EQ(0, r.best);
	compare_verdict(verdict, sizeof(verdict), &r);
	EXPECT_NE(NULL, strstr(verdict, "kernel is fastest: 0."));
	EXPECT_NE(NULL, strstr(verdict, "local-then-remote's time"));
	EXPECT_NE(NULL, strstr(verdict, "; strict-local had too few successful runs"));
	EXPECT_EQ(NULL, strstr(verdict, "no difference"));
	free(r.pair);
}

/* The best median beats nobody, but two others differ: said, not hidden. */
TEST(verdict_names_a_difference_between_others)
{
	double value[3][5] = {
		{ 0.5, 1, 2, 5, 6 },
		{ 2.1, 2.2, 2.3, 2.4, 2.5 },
		{ 2.6, 2.7, 2.8, 2.9, 3.0 },
	};
	struct compare_arm arms[3];
	struct compare_run runs[15];
	struct compare_report r;
	char verdict[2048];

	fill_report(&r, arms, runs, value);
	compare_analyze(&r);
	EXPECT_EQ(0, r.best);
	compare_verdict(verdict, sizeof(verdict), &r);
	EXPECT_NE(NULL, strstr(verdict, "no policy is faster than every other at 95% confidence"));
	EXPECT_NE(NULL, strstr(verdict, "; strict-local is faster than local-then-remote: 0.821x"));
	free(r.pair);
}

TEST(too_few_runs)
{
	double value[3][5] = { { 1 }, { 2 }, { 3 } };
	struct compare_arm arms[3];
	struct compare_run runs[15];
	struct compare_report r;
	char verdict[2048];
	unsigned int k;

	fill_report(&r, arms, runs, value);
	for (k = 3; k < 15; k++)
		runs[k].ok = false;
	compare_analyze(&r);
	compare_verdict(verdict, sizeof(verdict), &r);
	EXPECT_NE(NULL, strstr(verdict, "too few successful runs"));
	free(r.pair);
}

TEST_HARNESS_MAIN
