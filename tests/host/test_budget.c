// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for module/budget.h, compiled from the module's own file. */
#include "kselftest_harness.h"
#include "counters.h"
#include "budget.h"

#define BUDGET_NS	1000ULL
#define MAX_PERIOD	(1u << THPNUMA_BUDGET_MAX_SHIFT)

static struct thpnuma_budget state(u32 est_ns, u16 since, u8 backoff)
{
	struct thpnuma_budget b = {
		.est_ns = est_ns, .since = since, .backoff = backoff,
	};

	return b;
}

static u64 word(struct thpnuma_budget b)
{
	return thpnuma_budget_pack(b);
}

/* What any interleaving of decide() and update() must leave. */
static bool valid(struct thpnuma_budget b)
{
	return b.backoff <= THPNUMA_BUDGET_MAX_BACKOFF &&
	       b.since < thpnuma_budget_period(b) && b.pad == 0;
}

/* Decisions until a probe, the probe included; 0 if none in @limit. */
static unsigned int faults_to_probe(struct thpnuma_budget *b, u64 budget_ns,
				    unsigned int limit)
{
	unsigned int n;

	for (n = 1; n <= limit; n++)
		if (thpnuma_budget_decide(b, budget_ns) == THPNUMA_BD_PROBE)
			return n;
	return 0;
}

TEST(zero_state_decides_effort_for_any_budget)
{
	static const u64 budgets[] = { 0, 1, BUDGET_NS, U32_MAX, UINT64_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(budgets); i++) {
		struct thpnuma_budget b = state(0, 0, 0);

		EXPECT_EQ(THPNUMA_BD_EFFORT,
			  thpnuma_budget_decide(&b, budgets[i]));
		EXPECT_EQ(0, word(b));
	}
}

TEST(attempt_without_effort_never_writes)
{
	static const u64 samples[] = { 0, 1, BUDGET_NS * 100, UINT64_MAX };
	struct thpnuma_budget states[] = {
		state(0, 0, 0), state(BUDGET_NS / 2, 0, 0),
		state(BUDGET_NS, 0, 0), state(BUDGET_NS + 1, 1, 3),
		state(U32_MAX, MAX_PERIOD - 1, THPNUMA_BUDGET_MAX_BACKOFF),
	};
	unsigned int i, s, got;

	for (i = 0; i < ARRAY_SIZE(states); i++)
		for (s = 0; s < ARRAY_SIZE(samples); s++)
			for (got = 0; got <= 1; got++) {
				struct thpnuma_budget b = states[i];

				thpnuma_budget_update(&b, THPNUMA_BD_EFFORT,
						      false, got, samples[s],
						      BUDGET_NS);
				EXPECT_EQ(word(states[i]), word(b));
			}
}

TEST(skip_and_none_never_write)
{
	struct thpnuma_budget over = state(BUDGET_NS * 2, 1, 2);
	struct thpnuma_budget b;
	unsigned int effort, got;

	for (effort = 0; effort <= 1; effort++)
		for (got = 0; got <= 1; got++) {
			b = over;
			thpnuma_budget_update(&b, THPNUMA_BD_SKIP, effort,
					      got, 0, BUDGET_NS);
			EXPECT_EQ(word(over), word(b));
			b = over;
			thpnuma_budget_update(&b, THPNUMA_BD_NONE, effort,
					      got, 0, BUDGET_NS);
			EXPECT_EQ(word(over), word(b));
		}
}

TEST(first_sample_is_the_estimate)
{
	struct thpnuma_budget b = state(0, 0, 0);

	/* One sample just over the budget: the next fault skips. */
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      BUDGET_NS + 1, BUDGET_NS);
	EXPECT_EQ(BUDGET_NS + 1, b.est_ns);
	EXPECT_EQ(0, b.since);
	EXPECT_EQ(0, b.backoff);
	EXPECT_EQ(THPNUMA_BD_SKIP, thpnuma_budget_decide(&b, BUDGET_NS));

	/* Exactly the budget is still within it. */
	b = state(0, 0, 0);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      BUDGET_NS, BUDGET_NS);
	EXPECT_EQ(BUDGET_NS, b.est_ns);
	EXPECT_EQ(THPNUMA_BD_EFFORT, thpnuma_budget_decide(&b, BUDGET_NS));

	/* After that, a new sample weighs 1/4. */
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      5 * BUDGET_NS, BUDGET_NS);
	EXPECT_EQ(2 * BUDGET_NS, b.est_ns);
}

TEST(cut_attempt_counts_over_the_budget)
{
	struct thpnuma_budget b = state(0, 0, 0);

	EXPECT_EQ(BUDGET_NS + 1, thpnuma_budget_sample(0, true, BUDGET_NS));
	EXPECT_EQ(BUDGET_NS + 1,
		  thpnuma_budget_sample(BUDGET_NS, true, BUDGET_NS));
	EXPECT_EQ(3 * BUDGET_NS,
		  thpnuma_budget_sample(3 * BUDGET_NS, true, BUDGET_NS));
	/* Uncut, the time is the sample, within the budget or not. */
	EXPECT_EQ(BUDGET_NS / 2,
		  thpnuma_budget_sample(BUDGET_NS / 2, false, BUDGET_NS));
	EXPECT_EQ(3 * BUDGET_NS,
		  thpnuma_budget_sample(3 * BUDGET_NS, false, BUDGET_NS));

	/* The first attempt, cut before its probes timed much: skip next. */
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, false,
			      thpnuma_budget_sample(BUDGET_NS / 10, true,
						    BUDGET_NS), BUDGET_NS);
	EXPECT_EQ(THPNUMA_BD_SKIP, thpnuma_budget_decide(&b, BUDGET_NS));

	/* A cut probe backs off, as one over the budget does. */
	b = state(BUDGET_NS * 10, 0, 0);
	ASSERT_EQ(2, faults_to_probe(&b, BUDGET_NS, 1000));
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, false,
			      thpnuma_budget_sample(0, true, BUDGET_NS),
			      BUDGET_NS);
	EXPECT_EQ(1, b.backoff);
	EXPECT_EQ(8, faults_to_probe(&b, BUDGET_NS, 1000));
}

TEST(steady_one_and_a_half_budgets_after_half_ones_cross_on_third_sample)
{
	/* From 0.5: 0.75, 0.937, 1.077 x the budget. */
	static const u32 est[] = { 750, 937, 1077 };
	struct thpnuma_budget b = state(BUDGET_NS / 2, 0, 0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(est); i++) {
		ASSERT_EQ(THPNUMA_BD_EFFORT,
			  thpnuma_budget_decide(&b, BUDGET_NS));
		thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
				      BUDGET_NS * 3 / 2, BUDGET_NS);
		EXPECT_EQ(est[i], b.est_ns);
	}
	EXPECT_EQ(0, b.since);
	EXPECT_EQ(0, b.backoff);
	EXPECT_EQ(THPNUMA_BD_SKIP, thpnuma_budget_decide(&b, BUDGET_NS));
}

TEST(crossing_resets_the_backoff)
{
	/* A backoff left from an earlier episode does not carry over. */
	struct thpnuma_budget b = state(BUDGET_NS, 5, 3);

	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      BUDGET_NS * 2, BUDGET_NS);
	EXPECT_EQ(BUDGET_NS * 5 / 4, b.est_ns);
	EXPECT_EQ(0, b.since);
	EXPECT_EQ(0, b.backoff);

	/* Already over (another CPU crossed): the back-off stays. */
	b = state(BUDGET_NS * 2, 1, 3);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      BUDGET_NS * 2, BUDGET_NS);
	EXPECT_EQ(1, b.since);
	EXPECT_EQ(3, b.backoff);
}

TEST(over_budget_skips_then_probes)
{
	struct thpnuma_budget b = state(BUDGET_NS + 1, 0, 0);
	unsigned int i;

	for (i = 0; i < (1u << THPNUMA_BUDGET_MIN_SHIFT) - 1; i++)
		EXPECT_EQ(THPNUMA_BD_SKIP,
			  thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_EQ(THPNUMA_BD_PROBE, thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_EQ(0, b.since);
}

TEST(each_probe_over_budget_quadruples_the_period_up_to_128)
{
	static const unsigned int period[] = { 2, 8, 32, 128, 128, 128 };
	struct thpnuma_budget b = state(BUDGET_NS * 10, 0, 0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(period); i++) {
		EXPECT_EQ(period[i], faults_to_probe(&b, BUDGET_NS, 1000));
		thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, false,
				      BUDGET_NS * 10, BUDGET_NS);
		EXPECT_TRUE(valid(b));
	}
	EXPECT_EQ(THPNUMA_BUDGET_MAX_BACKOFF, b.backoff);
}

TEST(probe_within_budget_recovers)
{
	struct thpnuma_budget b = state(BUDGET_NS * 10, 0, 3);

	ASSERT_EQ(128, faults_to_probe(&b, BUDGET_NS, 1000));
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, true,
			      BUDGET_NS / 2, BUDGET_NS);
	EXPECT_EQ(BUDGET_NS / 2, b.est_ns);
	EXPECT_EQ(0, b.backoff);
	EXPECT_EQ(0, b.since);
	EXPECT_EQ(THPNUMA_BD_EFFORT, thpnuma_budget_decide(&b, BUDGET_NS));
}

TEST(probe_without_effort_that_got_local_recovers)
{
	struct thpnuma_budget b = state(BUDGET_NS * 10, 0, 2);

	ASSERT_EQ(32, faults_to_probe(&b, BUDGET_NS, 1000));
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, false, true, 0,
			      BUDGET_NS);
	EXPECT_EQ(0, word(b));
	EXPECT_EQ(THPNUMA_BD_EFFORT, thpnuma_budget_decide(&b, BUDGET_NS));
}

TEST(probe_without_effort_that_failed_keeps_the_period)
{
	struct thpnuma_budget b = state(BUDGET_NS * 10, 0, 2);
	u64 before;

	ASSERT_EQ(32, faults_to_probe(&b, BUDGET_NS, 1000));
	before = word(b);
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, false, false,
			      BUDGET_NS * 10, BUDGET_NS);
	EXPECT_EQ(before, word(b));
	EXPECT_EQ(32, faults_to_probe(&b, BUDGET_NS, 1000));
}

TEST(budgets_share_the_estimate)
{
	struct thpnuma_budget b = state(BUDGET_NS * 3 / 2, 0, 0);
	u64 before = word(b);

	EXPECT_EQ(THPNUMA_BD_EFFORT,
		  thpnuma_budget_decide(&b, BUDGET_NS * 2));
	EXPECT_EQ(before, word(b));
	EXPECT_EQ(THPNUMA_BD_SKIP, thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_TRUE(thpnuma_budget_over(b, BUDGET_NS));
	EXPECT_FALSE(thpnuma_budget_over(b, BUDGET_NS * 2));
}

TEST(estimate_saturates_at_u32_max)
{
	struct thpnuma_budget b = state(U32_MAX, 0, 0);
	u32 last = 0;
	unsigned int i;

	/* At the top, a larger sample keeps it there. */
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true, 1ULL << 40,
			      UINT64_MAX);
	EXPECT_EQ(U32_MAX, b.est_ns);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true, UINT64_MAX,
			      UINT64_MAX);
	EXPECT_EQ(U32_MAX, b.est_ns);

	/* From zero, the clamped sample is the estimate. */
	b = state(0, 0, 0);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true, 1ULL << 40,
			      BUDGET_NS);
	EXPECT_EQ(U32_MAX, b.est_ns);

	/* From 1, it weighs 1/4 and est only rises. */
	b = state(1, 0, 0);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true, 1ULL << 40,
			      BUDGET_NS);
	EXPECT_EQ(1 + (U32_MAX - 1) / 4, b.est_ns);
	for (i = 0; i < 200; i++) {
		last = b.est_ns;
		thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
				      UINT64_MAX, BUDGET_NS);
		ASSERT_LE(last, b.est_ns);
	}
	EXPECT_LE(U32_MAX - 3, b.est_ns);

	/* A probe over budget at the top stays at the top. */
	b = state(U32_MAX, 0, THPNUMA_BUDGET_MAX_BACKOFF);
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, false,
			      UINT64_MAX, BUDGET_NS);
	EXPECT_EQ(U32_MAX, b.est_ns);
	EXPECT_EQ(THPNUMA_BUDGET_MAX_BACKOFF, b.backoff);

	/* A sample within a budget past u32 is clamped, not truncated. */
	b = state(U32_MAX, 0, 3);
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, true,
			      (1ULL << 40) + 1, 1ULL << 41);
	EXPECT_EQ(U32_MAX, b.est_ns);
	EXPECT_EQ(0, b.backoff);

	/* A cheap sample brings it back down from the top. */
	b = state(U32_MAX, 0, 0);
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true, 0,
			      UINT64_MAX);
	EXPECT_EQ(U32_MAX - U32_MAX / 4 - 1, b.est_ns);
}

TEST(since_never_wraps)
{
	struct thpnuma_budget b;
	unsigned int i, probes = 0;

	/* A word with since near or at its top: the next decision probes. */
	b = state(U32_MAX, U16_MAX - 1, THPNUMA_BUDGET_MAX_BACKOFF);
	EXPECT_EQ(THPNUMA_BD_PROBE, thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_EQ(0, b.since);
	b = state(U32_MAX, U16_MAX, THPNUMA_BUDGET_MAX_BACKOFF);
	EXPECT_EQ(THPNUMA_BD_PROBE, thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_EQ(0, b.since);

	/* A corrupt backoff counts as the maximum, not a wild shift. */
	b = state(U32_MAX, U16_MAX, 255);
	EXPECT_EQ(MAX_PERIOD, thpnuma_budget_period(b));
	EXPECT_EQ(THPNUMA_BD_PROBE, thpnuma_budget_decide(&b, BUDGET_NS));
	EXPECT_EQ(0, b.since);
	b = state(U32_MAX, 0, 255);
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, true, false,
			      UINT64_MAX, BUDGET_NS);
	EXPECT_EQ(THPNUMA_BUDGET_MAX_BACKOFF, b.backoff);

	/* More faults than since can count: one probe per period, no wrap. */
	b = state(U32_MAX, 0, THPNUMA_BUDGET_MAX_BACKOFF);
	for (i = 0; i < 70000; i++) {
		enum thpnuma_budget_decision d;

		d = thpnuma_budget_decide(&b, BUDGET_NS);
		ASSERT_NE(THPNUMA_BD_EFFORT, d);
		ASSERT_GT(MAX_PERIOD, b.since);
		probes += d == THPNUMA_BD_PROBE;
	}
	EXPECT_EQ(70000 / MAX_PERIOD, probes);
	EXPECT_EQ(70000 % MAX_PERIOD, b.since);
}

TEST(recovery_within_the_longest_period_from_the_worst_state)
{
	struct thpnuma_budget b = state(U32_MAX, 0, THPNUMA_BUDGET_MAX_BACKOFF);
	unsigned int n;

	n = faults_to_probe(&b, BUDGET_NS, 1000);
	EXPECT_LT(0, n);
	EXPECT_GE(MAX_PERIOD, n);
	/* The probe was cheap and got a local THP: free memory again. */
	thpnuma_budget_update(&b, THPNUMA_BD_PROBE, false, true, 0,
			      BUDGET_NS);
	EXPECT_EQ(THPNUMA_BD_EFFORT, thpnuma_budget_decide(&b, BUDGET_NS));
}

TEST(update_on_a_stale_word_stays_valid)
{
	/* CPU A probes; meanwhile B, under a larger budget, lowers est. */
	u64 w = word(state(BUDGET_NS * 5, 31, 2));
	struct thpnuma_budget a = thpnuma_budget_unpack(w);
	struct thpnuma_budget b;

	ASSERT_EQ(THPNUMA_BD_PROBE, thpnuma_budget_decide(&a, BUDGET_NS));
	w = word(a);
	b = thpnuma_budget_unpack(w);
	ASSERT_EQ(THPNUMA_BD_EFFORT,
		  thpnuma_budget_decide(&b, BUDGET_NS * 10));
	thpnuma_budget_update(&b, THPNUMA_BD_EFFORT, true, true,
			      BUDGET_NS / 2, BUDGET_NS * 10);
	w = word(b);
	EXPECT_EQ(3875, b.est_ns);

	/* A's re-read copy is B's; its probe was still over budget. */
	a = thpnuma_budget_unpack(w);
	thpnuma_budget_update(&a, THPNUMA_BD_PROBE, true, false,
			      BUDGET_NS * 3, BUDGET_NS);
	EXPECT_EQ(3656, a.est_ns);
	EXPECT_EQ(3, a.backoff);
	EXPECT_TRUE(valid(a));

	/* A recovered word, then a probe's stale expensive sample. */
	a = state(0, 0, 0);
	thpnuma_budget_update(&a, THPNUMA_BD_PROBE, true, false,
			      BUDGET_NS * 100, BUDGET_NS);
	EXPECT_EQ(BUDGET_NS * 100, a.est_ns);
	EXPECT_EQ(1, a.backoff);
	EXPECT_TRUE(valid(a));
}

static u64 xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

TEST(interleaved_cpus_keep_the_word_valid)
{
	static const u64 budgets[] = { 1, BUDGET_NS, BUDGET_NS * 1000,
				       U32_MAX, UINT64_MAX };
	static const u64 samples[] = { 0, 1, BUDGET_NS / 2, BUDGET_NS,
				       BUDGET_NS * 3, U32_MAX, 1ULL << 40,
				       UINT64_MAX };
	struct {
		bool pending;
		enum thpnuma_budget_decision d;
		u64 budget_ns;
	} cpu[4] = { 0 };
	u64 seed = 0x9e3779b97f4a7c15ULL, w = 0;
	unsigned int i, bad = 0;

	for (i = 0; i < 200000; i++) {
		unsigned int c = xorshift(&seed) % 4;
		struct thpnuma_budget b = thpnuma_budget_unpack(w);
		u64 r = xorshift(&seed);

		if (!cpu[c].pending) {
			cpu[c].budget_ns = budgets[r % 5];
			cpu[c].d = thpnuma_budget_decide(&b, cpu[c].budget_ns);
			cpu[c].pending = true;
		} else {
			thpnuma_budget_update(&b, cpu[c].d, r & 1, r & 2,
					      samples[(r >> 2) % 8],
					      cpu[c].budget_ns);
			cpu[c].pending = false;
		}
		/* Sometimes a CPU's write is lost to another's. */
		if (r & 0x100)
			w = word(b);
		bad += !valid(thpnuma_budget_unpack(w));
	}
	EXPECT_EQ(0, bad);
}

TEST(pack_and_unpack_round_trip)
{
	struct thpnuma_budget values[] = {
		state(0, 0, 0), state(1, 1, 1), state(BUDGET_NS, 63, 5),
		state(U32_MAX, 0, 0), state(0, U16_MAX, 0), state(0, 0, 255),
		state(U32_MAX, U16_MAX, 255), state(0x12345678, 0xabcd, 0x5a),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(values); i++) {
		struct thpnuma_budget b = thpnuma_budget_unpack(word(values[i]));

		EXPECT_EQ(values[i].est_ns, b.est_ns);
		EXPECT_EQ(values[i].since, b.since);
		EXPECT_EQ(values[i].backoff, b.backoff);
		EXPECT_EQ(0, b.pad);
	}
	EXPECT_EQ(0x005aabcd12345678ULL, word(values[7]));
	EXPECT_EQ(0x00ffffffffffffffULL, word(values[6]));
	/* The top byte is unused: unpack ignores it, pack leaves it clear. */
	EXPECT_EQ(0x005aabcd12345678ULL,
		  word(thpnuma_budget_unpack(0xff5aabcd12345678ULL)));
}

TEST_HARNESS_MAIN
