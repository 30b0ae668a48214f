// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for module/policy.c, compiled from the module's own file. */
#include <string.h>
#include "kselftest_harness.h"
#include "counters.h"
#include "policy.h"

static int parse_policy(const char *s, size_t len, unsigned int *out)
{
	return thpnuma_parse_choice(s, len, thpnuma_policy_names,
				    THPNUMA_NR_POLICIES, out);
}

static u64 config(unsigned int policy, unsigned int zr, unsigned int scope)
{
	struct thpnuma_config cfg = {
		policy, zr, scope, THPNUMA_COVERAGE_ALL, THPNUMA_BUDGET_DEFAULT_US
	};

	return thpnuma_config_pack(&cfg);
}

TEST(parse_accepts_each_policy_name)
{
	unsigned int i, out;

	for (i = 0; i < THPNUMA_NR_POLICIES; i++) {
		const char *name = thpnuma_policy_names[i];

		out = 99;
		ASSERT_EQ(0, parse_policy(name, strlen(name), &out));
		EXPECT_EQ(i, out);
	}
	ASSERT_EQ(0, parse_policy("strict-local\n", 13, &out));
	EXPECT_EQ(THPNUMA_POLICY_STRICT_LOCAL, out);
}

TEST(parse_rejects_malformed_input)
{
	static const char *const bad[] = {
		"", "\n", "\n\n", "kernel\n\n", " kernel", "kernel ", "Kernel",
		"KERNEL", "kern", "kernelx", "strict_local", "strict-local\r\n",
		"local-then-remote\t", "kernel\nkernel",
	};
	unsigned int i, out = 42;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse_policy(bad[i], strlen(bad[i]), &out))
			TH_LOG("accepted \"%s\"", bad[i]);
	}
	/* Embedded NUL: the length says more bytes than the name. */
	EXPECT_EQ(-EINVAL, parse_policy("kernel\0", 7, &out));
	EXPECT_EQ(-EINVAL, parse_policy("kernel\0\n", 8, &out));
	EXPECT_EQ(42, out);
}

TEST(parse_rejects_oversized_input)
{
	char buf[THPNUMA_MAX_WRITE + 8];
	unsigned int out = 42;

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "kernel", 6);
	EXPECT_EQ(-EINVAL, parse_policy(buf, sizeof(buf), &out));
	EXPECT_EQ(-EINVAL, parse_policy(buf, THPNUMA_MAX_WRITE + 1, &out));
	EXPECT_EQ(42, out);
}

TEST(zone_reclaim_accepts_0_to_7)
{
	char s[3] = "0\n";
	unsigned int v, out;

	for (v = 0; v <= 7; v++) {
		s[0] = '0' + v;
		ASSERT_EQ(0, thpnuma_parse_zone_reclaim(s, 1, &out));
		EXPECT_EQ(v, out);
		ASSERT_EQ(0, thpnuma_parse_zone_reclaim(s, 2, &out));
		EXPECT_EQ(v, out);
	}
}

TEST(zone_reclaim_rejects_everything_else)
{
	static const char *const bad[] = {
		"", "\n", "8", "9", "-1", "+1", "07", "00", "1 ", " 1", "0x1",
		"10", "a", "1\n\n", "4294967297", "1\r",
	};
	unsigned int i, out = 42;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, thpnuma_parse_zone_reclaim(bad[i],
				strlen(bad[i]), &out)) TH_LOG("accepted \"%s\"", bad[i]);
	EXPECT_EQ(-EINVAL, thpnuma_parse_zone_reclaim("1\0", 2, &out));
	EXPECT_EQ(42, out);
}

TEST(format_brackets_the_current_choice)
{
	char buf[128];
	int len;

	len = thpnuma_format_choices(buf, sizeof(buf), thpnuma_policy_names,
				     THPNUMA_NR_POLICIES,
				     THPNUMA_POLICY_STRICT_LOCAL);
	EXPECT_STREQ("kernel [strict-local] local-then-remote budget\n", buf);
	EXPECT_EQ((int)strlen(buf), len);
	thpnuma_format_choices(buf, sizeof(buf), thpnuma_scope_names,
			       THPNUMA_NR_SCOPES, THPNUMA_SCOPE_ALL);
	EXPECT_STREQ("[all] madvise\n", buf);
	/* A short buffer is truncated, never overrun. */
	len = thpnuma_format_choices(buf, 8, thpnuma_policy_names,
				     THPNUMA_NR_POLICIES, 0);
	EXPECT_STREQ("[kernel", buf);
	EXPECT_EQ(7, len);
}

TEST(settings_parse_and_format_through_the_table)
{
	const struct thpnuma_setting *policy =
		&thpnuma_settings[THPNUMA_SETTING_POLICY];
	const struct thpnuma_setting *zr =
		&thpnuma_settings[THPNUMA_SETTING_ZONE_RECLAIM];
	const struct thpnuma_setting *scope =
		&thpnuma_settings[THPNUMA_SETTING_SCOPE];
	unsigned int out = 42, i;
	char buf[128];

	for (i = 0; i < THPNUMA_NR_SETTINGS; i++)
		EXPECT_EQ(i, thpnuma_settings[i].id);
	EXPECT_STREQ("policy", policy->name);
	EXPECT_STREQ("zone_reclaim", zr->name);
	EXPECT_STREQ("scope", scope->name);

	EXPECT_EQ(0, thpnuma_parse_setting(policy, "local-then-remote\n",
					   18, &out));
	EXPECT_EQ(THPNUMA_POLICY_LOCAL_THEN_REMOTE, out);
	EXPECT_EQ(0, thpnuma_parse_setting(zr, "5", 1, &out));
	EXPECT_EQ(5, out);
	EXPECT_EQ(-EINVAL, thpnuma_parse_setting(zr, "kernel", 6, &out));
	EXPECT_EQ(-EINVAL, thpnuma_parse_setting(scope, "5", 1, &out));
	EXPECT_EQ(-EINVAL, thpnuma_parse_setting(policy, "all", 3, &out));
	EXPECT_EQ(5, out);

	thpnuma_format_setting(policy, THPNUMA_POLICY_KERNEL, buf, sizeof(buf));
	EXPECT_STREQ("[kernel] strict-local local-then-remote budget\n", buf);
	thpnuma_format_setting(zr, 6, buf, sizeof(buf));
	EXPECT_STREQ("6\n", buf);
	thpnuma_format_setting(scope, THPNUMA_SCOPE_MADVISE, buf, sizeof(buf));
	EXPECT_STREQ("all [madvise]\n", buf);
}

TEST(budget_us_setting_parses_and_formats)
{
	const struct thpnuma_setting *budget =
		&thpnuma_settings[THPNUMA_SETTING_BUDGET_US];
	static const char *const bad[] = {
		"", "0", "01", "1000001", "-1", "+5", " 5", "5 ", "0x10", "1e3",
		"10000000", "budget", "\n",
	};
	unsigned int out = 42, i;
	char buf[32];

	EXPECT_STREQ("budget_us", budget->name);
	EXPECT_EQ(THPNUMA_SETTING_MICROSECONDS, budget->kind);
	EXPECT_STREQ("1-1000000", budget->range);
	EXPECT_EQ(0, thpnuma_parse_setting(budget, "1", 1, &out));
	EXPECT_EQ(1, out);
	EXPECT_EQ(0, thpnuma_parse_setting(budget, "1000000\n", 8, &out));
	EXPECT_EQ(THPNUMA_BUDGET_MAX_US, out);
	EXPECT_EQ(0, thpnuma_parse_setting(budget, "500", 3, &out));
	EXPECT_EQ(500, out);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, thpnuma_parse_setting(budget, bad[i],
							 strlen(bad[i]), &out));
	EXPECT_EQ(500, out);
	thpnuma_format_setting(budget, 500, buf, sizeof(buf));
	EXPECT_STREQ("500\n", buf);
}

TEST(config_word_holds_the_budget_above_the_lookup_flags)
{
	struct thpnuma_config max = {
		THPNUMA_POLICY_BUDGET, THPNUMA_ZR_INHERIT, THPNUMA_SCOPE_MADVISE,
		THPNUMA_COVERAGE_ALL, THPNUMA_BUDGET_MAX_US,
	};
	struct thpnuma_config cfg;
	u64 word = thpnuma_config_pack(&max);

	cfg = thpnuma_config_unpack(word);
	EXPECT_EQ(THPNUMA_BUDGET_MAX_US, cfg.budget_us);
	EXPECT_EQ(THPNUMA_POLICY_BUDGET, cfg.policy);
	EXPECT_EQ(THPNUMA_ZR_INHERIT, cfg.zone_reclaim);
	/* Clear of the lookup flags and of the decided word's node. */
	EXPECT_EQ(0, word & THPNUMA_CFG_LOOKUPS);
	EXPECT_EQ(0, word >> 52);
	EXPECT_EQ(THPNUMA_BUDGET_DEFAULT_US,
		  thpnuma_config_unpack(THPNUMA_CFG_DEFAULT).budget_us);
	EXPECT_EQ(THPNUMA_COVERAGE_ALL,
		  thpnuma_config_unpack(THPNUMA_CFG_DEFAULT).coverage);
}

TEST(override_without_a_budget_keeps_the_global_one)
{
	struct thpnuma_config g = {
		THPNUMA_POLICY_KERNEL, 0, 0, THPNUMA_COVERAGE_ALL, 2500,
	};
	struct thpnuma_config o = {
		THPNUMA_POLICY_BUDGET, 7, 0, 0, THPNUMA_BUDGET_INHERIT,
	};
	struct thpnuma_config cfg;

	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(
		thpnuma_config_pack(&g), thpnuma_config_pack(&o)));
	EXPECT_EQ(THPNUMA_POLICY_BUDGET, cfg.policy);
	EXPECT_EQ(7, cfg.zone_reclaim);
	EXPECT_EQ(2500, cfg.budget_us);
	o.budget_us = 40;
	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(
		thpnuma_config_pack(&g), thpnuma_config_pack(&o)));
	EXPECT_EQ(40, cfg.budget_us);
}

TEST(coverage_setting_parses_and_formats)
{
	const struct thpnuma_setting *coverage =
		&thpnuma_settings[THPNUMA_SETTING_COVERAGE];
	static const char *const bad[] = {
		"", "PMD", "pmd+", "mthp", "pmd mthp", "pmd+mthp+shmem", "2",
		" all", "all ",
	};
	unsigned int out = 42, i;
	char buf[128];

	EXPECT_STREQ("coverage", coverage->name);
	EXPECT_EQ(0, thpnuma_parse_setting(coverage, "pmd+mthp\n", 9, &out));
	EXPECT_EQ(THPNUMA_COVERAGE_PMD_MTHP, out);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, thpnuma_parse_setting(coverage, bad[i],
							 strlen(bad[i]), &out));
	EXPECT_EQ(THPNUMA_COVERAGE_PMD_MTHP, out);
	thpnuma_format_setting(coverage, THPNUMA_COVERAGE_ALL, buf,
			       sizeof(buf));
	EXPECT_STREQ("pmd pmd+mthp [all]\n", buf);
}

/* The word at load covers everything and leaves the rest at zero. */
TEST(default_config_covers_every_kind)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(THPNUMA_CFG_DEFAULT);
	struct thpnuma_config max = {
		THPNUMA_NR_POLICIES - 1, THPNUMA_ZR_MASK, THPNUMA_NR_SCOPES - 1,
		THPNUMA_NR_COVERAGES - 1, THPNUMA_BUDGET_MAX_US
	};

	EXPECT_EQ(THPNUMA_POLICY_KERNEL, cfg.policy);
	EXPECT_EQ(0, cfg.zone_reclaim);
	EXPECT_EQ(THPNUMA_SCOPE_ALL, cfg.scope);
	EXPECT_EQ(THPNUMA_COVERAGE_ALL, cfg.coverage);
	/* Every field round-trips and none reaches the overrides flag. */
	cfg = thpnuma_config_unpack(thpnuma_config_pack(&max));
	EXPECT_EQ(max.policy, cfg.policy);
	EXPECT_EQ(max.zone_reclaim, cfg.zone_reclaim);
	EXPECT_EQ(max.scope, cfg.scope);
	EXPECT_EQ(max.coverage, cfg.coverage);
	EXPECT_EQ(0, thpnuma_config_pack(&max) & ~(THPNUMA_CFG_OVERRIDES - 1));
}

TEST(config_fields_by_setting)
{
	struct thpnuma_config cfg = { 0 };

	thpnuma_config_set_field(&cfg, THPNUMA_SETTING_POLICY, 2);
	thpnuma_config_set_field(&cfg, THPNUMA_SETTING_ZONE_RECLAIM, 7);
	thpnuma_config_set_field(&cfg, THPNUMA_SETTING_SCOPE, 1);
	EXPECT_EQ(2, cfg.policy);
	EXPECT_EQ(7, cfg.zone_reclaim);
	EXPECT_EQ(1, cfg.scope);
	EXPECT_EQ(2, thpnuma_config_get_field(&cfg, THPNUMA_SETTING_POLICY));
	EXPECT_EQ(7, thpnuma_config_get_field(&cfg,
					      THPNUMA_SETTING_ZONE_RECLAIM));
	EXPECT_EQ(1, thpnuma_config_get_field(&cfg, THPNUMA_SETTING_SCOPE));
}

/* Every counter has a unique column name and a meaning. */
TEST(counter_tables_are_complete)
{
	unsigned int i, j;

	for (i = 0; i < THPNUMA_NR_COUNTERS; i++) {
		ASSERT_NE(NULL, thpnuma_counter_names[i]);
		ASSERT_NE(NULL, thpnuma_counter_help[i]);
		EXPECT_NE(0, strlen(thpnuma_counter_help[i]));
		for (j = 0; j < i; j++)
			EXPECT_STRNE(thpnuma_counter_names[i],
				     thpnuma_counter_names[j]);
	}
	for (i = 0; i < THPNUMA_NR_POLICY_COUNTERS; i++) {
		ASSERT_NE(NULL, thpnuma_policy_counter_names[i]);
		ASSERT_NE(NULL, thpnuma_policy_counter_help[i]);
		for (j = 0; j < i; j++)
			EXPECT_STRNE(thpnuma_policy_counter_names[i],
				     thpnuma_policy_counter_names[j]);
	}
	EXPECT_STREQ("thp_local", thpnuma_counter_names[THPNUMA_THP_LOCAL]);
	EXPECT_STREQ("alloc_ns", thpnuma_counter_names[THPNUMA_ALLOC_NS]);
	EXPECT_STREQ("by_override",
		     thpnuma_policy_counter_names[THPNUMA_PC_BY_OVERRIDE]);
	for (i = 0; i < THPNUMA_NR_ORDER_OUTCOMES; i++) {
		ASSERT_NE(NULL, thpnuma_order_outcome_names[i]);
		EXPECT_NE(0, strlen(thpnuma_order_outcome_help[i]));
		for (j = 0; j < i; j++)
			EXPECT_STRNE(thpnuma_order_outcome_names[i],
				     thpnuma_order_outcome_names[j]);
	}
	EXPECT_STREQ("anon", thpnuma_kind_names[THPNUMA_KIND_ANON]);
	EXPECT_STREQ("shmem", thpnuma_kind_names[THPNUMA_KIND_SHMEM]);
	EXPECT_STREQ("passthrough",
		     thpnuma_order_outcome_names[THPNUMA_ORDER_PASSTHROUGH]);
	/* Each node, kind, order and outcome has a slot of its own. */
	EXPECT_EQ(THPNUMA_ORDERS_PER_NODE - 1,
		  thpnuma_order_slot(THPNUMA_NR_KINDS - 1,
				     THPNUMA_MAX_THP_ORDER,
				     THPNUMA_NR_ORDER_OUTCOMES - 1));
}

TEST(config_round_trips)
{
	unsigned int p, z, s;

	for (p = 0; p < THPNUMA_NR_POLICIES; p++)
		for (z = 0; z <= THPNUMA_ZR_MASK; z++)
			for (s = 0; s < THPNUMA_NR_SCOPES; s++) {
				struct thpnuma_config c =
					thpnuma_config_unpack(config(p, z, s));

				EXPECT_EQ(p, c.policy);
				EXPECT_EQ(z, c.zone_reclaim);
				EXPECT_EQ(s, c.scope);
			}
}

FIXTURE(decide) {
	struct thpnuma_fault fault;
};

FIXTURE_VARIANT(decide) {
	unsigned int policy;
	enum thpnuma_action action;
};

FIXTURE_VARIANT_ADD(decide, kernel) {
	.policy = THPNUMA_POLICY_KERNEL,
	.action = THPNUMA_ACT_COUNT_ONLY,
};

FIXTURE_VARIANT_ADD(decide, strict_local) {
	.policy = THPNUMA_POLICY_STRICT_LOCAL,
	.action = THPNUMA_ACT_STRICT_LOCAL,
};

FIXTURE_VARIANT_ADD(decide, local_then_remote) {
	.policy = THPNUMA_POLICY_LOCAL_THEN_REMOTE,
	.action = THPNUMA_ACT_LOCAL_THEN_REMOTE,
};

FIXTURE_VARIANT_ADD(decide, budget) {
	.policy = THPNUMA_POLICY_BUDGET,
	.action = THPNUMA_ACT_BUDGET,
};

FIXTURE_SETUP(decide)
{
	self->fault.pmd_order = true;
	self->fault.thp_fault = true;
	self->fault.madvised = false;
	self->fault.has_mempolicy = false;
	self->fault.local_disallowed = false;
}

FIXTURE_TEARDOWN(decide)
{
}

TEST_F(decide, thp_fault_gets_the_policy_action)
{
	EXPECT_EQ(variant->action,
		  thpnuma_decide(config(variant->policy, 0, THPNUMA_SCOPE_ALL),
				 &self->fault));
}

TEST_F(decide, other_allocations_are_ignored)
{
	u64 cfg = config(variant->policy, 7, THPNUMA_SCOPE_ALL);

	self->fault.thp_fault = false;
	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
}

/* pmd: anonymous PMD only; pmd+mthp: anonymous; all: shmem too. */
TEST_F(decide, coverage_selects_kinds_and_orders)
{
	static const struct {
		unsigned int kind;
		bool pmd_order;
		bool covered[THPNUMA_NR_COVERAGES];
	} cases[] = {
		{ THPNUMA_KIND_ANON,  true,  { true,  true,  true } },
		{ THPNUMA_KIND_ANON,  false, { false, true,  true } },
		{ THPNUMA_KIND_SHMEM, true,  { false, false, true } },
		{ THPNUMA_KIND_SHMEM, false, { false, false, true } },
		/* A large folio's swap-in is an anonymous mTHP fault. */
		{ THPNUMA_KIND_SWAPIN, false, { false, true,  true } },
	};
	struct thpnuma_config cfg = { .policy = variant->policy };
	unsigned int i, c;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		self->fault.kind = cases[i].kind;
		self->fault.pmd_order = cases[i].pmd_order;
		for (c = 0; c < THPNUMA_NR_COVERAGES; c++) {
			u64 word;

			cfg.coverage = c;
			word = thpnuma_config_pack(&cfg);
			EXPECT_EQ(cases[i].covered[c],
				  thpnuma_covers(c, &self->fault));
			EXPECT_EQ(cases[i].covered[c] ? variant->action :
				  THPNUMA_ACT_IGNORE,
				  thpnuma_decide(word, &self->fault));
			EXPECT_EQ(cases[i].covered[c] ? THPNUMA_PT_NONE :
				  THPNUMA_PT_COVERAGE,
				  thpnuma_passthrough_reason(word,
							     &self->fault));
		}
	}
}

/* shmem's huge pages were asked for by its mount or shmem_enabled. */
TEST_F(decide, madvise_scope_covers_shmem)
{
	u64 cfg = config(variant->policy, 0, THPNUMA_SCOPE_MADVISE);

	self->fault.kind = THPNUMA_KIND_SHMEM;
	EXPECT_EQ(variant->action, thpnuma_decide(cfg, &self->fault));
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_ACT_PASSTHROUGH, thpnuma_decide(cfg, &self->fault));
}

TEST_F(decide, explicit_mempolicy_wins)
{
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_ACT_PASSTHROUGH,
		  thpnuma_decide(config(variant->policy, 0, THPNUMA_SCOPE_ALL),
				 &self->fault));
}

TEST_F(decide, cpuset_without_the_local_node_wins)
{
	self->fault.local_disallowed = true;
	EXPECT_EQ(THPNUMA_ACT_PASSTHROUGH,
		  thpnuma_decide(config(variant->policy, 0, THPNUMA_SCOPE_ALL),
				 &self->fault));
}

TEST_F(decide, madvise_scope_skips_unadvised_vmas)
{
	u64 cfg = config(variant->policy, 0, THPNUMA_SCOPE_MADVISE);

	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
	/* Not even counted as passthrough: out of scope is untouched. */
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
	self->fault.has_mempolicy = false;
	self->fault.madvised = true;
	EXPECT_EQ(variant->action, thpnuma_decide(cfg, &self->fault));
}

TEST_F(decide, passthrough_reason_names_the_first_rule_that_applied)
{
	u64 all = config(variant->policy, 0, THPNUMA_SCOPE_ALL);
	u64 madv = config(variant->policy, 0, THPNUMA_SCOPE_MADVISE);

	EXPECT_EQ(THPNUMA_PT_NONE, thpnuma_passthrough_reason(all, &self->fault));
	EXPECT_EQ(THPNUMA_PT_SCOPE, thpnuma_passthrough_reason(madv, &self->fault));
	self->fault.local_disallowed = true;
	EXPECT_EQ(THPNUMA_PT_CPUSET, thpnuma_passthrough_reason(all, &self->fault));
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_PT_MEMPOLICY,
		  thpnuma_passthrough_reason(all, &self->fault));
	/* Out of scope comes first, as in thpnuma_decide(). */
	EXPECT_EQ(THPNUMA_PT_SCOPE, thpnuma_passthrough_reason(madv, &self->fault));
	self->fault.madvised = true;
	EXPECT_EQ(THPNUMA_PT_MEMPOLICY,
		  thpnuma_passthrough_reason(madv, &self->fault));
}

TEST(hist_buckets_are_log2_from_1us_to_17s)
{
	unsigned int b;

	EXPECT_EQ(26, THPNUMA_HIST_BUCKETS);
	EXPECT_EQ(0, thpnuma_hist_bucket(0));
	EXPECT_EQ(0, thpnuma_hist_bucket(1023));
	EXPECT_EQ(1, thpnuma_hist_bucket(1024));
	EXPECT_EQ(1, thpnuma_hist_bucket(2047));
	EXPECT_EQ(2, thpnuma_hist_bucket(2048));
	EXPECT_EQ(THPNUMA_HIST_BUCKETS - 2, thpnuma_hist_bucket((1ULL << 34) - 1));
	EXPECT_EQ(THPNUMA_HIST_BUCKETS - 1, thpnuma_hist_bucket(1ULL << 34));
	EXPECT_EQ(THPNUMA_HIST_BUCKETS - 1, thpnuma_hist_bucket(~0ULL));
	EXPECT_EQ(0, thpnuma_hist_bound(THPNUMA_HIST_BUCKETS - 1));
	/* Every value lands below its bucket's bound and at or above the previous one. */
	for (b = 0; b < THPNUMA_HIST_BUCKETS - 1; b++) {
		unsigned long long bound = thpnuma_hist_bound(b);

		EXPECT_EQ(b, thpnuma_hist_bucket(bound - 1));
		EXPECT_EQ(b + 1, thpnuma_hist_bucket(bound));
	}
	EXPECT_STREQ("local", thpnuma_hist_outcome_names[THPNUMA_HIST_LOCAL]);
	EXPECT_STREQ("fallback", thpnuma_hist_outcome_names[THPNUMA_HIST_FALLBACK]);
}

TEST(local_effort_follows_the_bits)
{
	struct thpnuma_local_effort e;

	e = thpnuma_local_effort(0);
	EXPECT_FALSE(e.reclaim);
	EXPECT_FALSE(e.enter_fs);
	EXPECT_FALSE(e.swap);
	EXPECT_FALSE(e.wake_kswapd);

	e = thpnuma_local_effort(THPNUMA_ZR_RECLAIM);
	EXPECT_TRUE(e.reclaim);
	EXPECT_FALSE(e.enter_fs);
	EXPECT_FALSE(e.swap);

	e = thpnuma_local_effort(THPNUMA_ZR_WRITE);
	EXPECT_TRUE(e.reclaim);
	EXPECT_TRUE(e.enter_fs);
	EXPECT_FALSE(e.swap);

	e = thpnuma_local_effort(THPNUMA_ZR_SWAP);
	EXPECT_TRUE(e.reclaim);
	EXPECT_FALSE(e.enter_fs);
	EXPECT_TRUE(e.swap);

	e = thpnuma_local_effort(THPNUMA_ZR_MASK);
	EXPECT_TRUE(e.reclaim && e.enter_fs && e.swap && e.wake_kswapd);
}

static int parse_task(const char *s, struct thpnuma_task_write *w)
{
	return thpnuma_parse_task_write(s, strlen(s), w);
}

TEST(task_write_sets_and_clears)
{
	struct thpnuma_task_write w;

	ASSERT_EQ(0, parse_task("1234 strict-local", &w));
	EXPECT_EQ(1234, w.pid);
	EXPECT_FALSE(w.clear);
	EXPECT_EQ(THPNUMA_POLICY_STRICT_LOCAL, w.policy);
	EXPECT_EQ(THPNUMA_ZR_INHERIT, w.zone_reclaim);

	ASSERT_EQ(0, parse_task("7 local-then-remote 5\n", &w));
	EXPECT_EQ(7, w.pid);
	EXPECT_EQ(THPNUMA_POLICY_LOCAL_THEN_REMOTE, w.policy);
	EXPECT_EQ(5, w.zone_reclaim);

	ASSERT_EQ(0, parse_task("4194304 default\n", &w));
	EXPECT_EQ(4194304, w.pid);
	EXPECT_TRUE(w.clear);

	ASSERT_EQ(0, parse_task("1 kernel 0", &w));
	EXPECT_EQ(THPNUMA_POLICY_KERNEL, w.policy);
	EXPECT_EQ(0, w.zone_reclaim);
	EXPECT_EQ(THPNUMA_BUDGET_INHERIT, w.budget_us);
}

TEST(task_write_takes_a_budget)
{
	struct thpnuma_task_write w;

	ASSERT_EQ(0, parse_task("42 budget 7 500", &w));
	EXPECT_EQ(THPNUMA_POLICY_BUDGET, w.policy);
	EXPECT_EQ(7, w.zone_reclaim);
	EXPECT_EQ(500, w.budget_us);

	/* "-" follows the global setting, for either number. */
	ASSERT_EQ(0, parse_task("42 budget - 1\n", &w));
	EXPECT_EQ(THPNUMA_ZR_INHERIT, w.zone_reclaim);
	EXPECT_EQ(1, w.budget_us);
	ASSERT_EQ(0, parse_task("42 budget 3 -", &w));
	EXPECT_EQ(3, w.zone_reclaim);
	EXPECT_EQ(THPNUMA_BUDGET_INHERIT, w.budget_us);
	ASSERT_EQ(0, parse_task("42 strict-local -", &w));
	EXPECT_EQ(THPNUMA_ZR_INHERIT, w.zone_reclaim);

	/* The longest write there is. */
	ASSERT_EQ(0, parse_task("4194304 local-then-remote 7 1000000\n", &w));
	EXPECT_EQ(THPNUMA_BUDGET_MAX_US, w.budget_us);
	EXPECT_GE(THPNUMA_MAX_TASK_WRITE,
		  (int)strlen("4194304 local-then-remote 7 1000000\n"));
}

TEST(task_write_rejects_malformed_input)
{
	static const char *const bad[] = {
		"", "\n", "1234", "1234 ", " 1234 kernel", "1234  kernel",
		"1234 kernel ", "1234\tkernel", "0 kernel", "-1 kernel",
		"+1 kernel", "01 kernel", "4194305 kernel", "99999999 kernel",
		"12a4 kernel", "1234 Kernel", "1234 strict_local", "kernel 1234",
		"1234 default 1", "1234 default ", "1234 kernel 8",
		"1234 kernel 07", "1234 kernel -1", "1234 kernel 1 1 1",
		"1234 kernel\n\n", "1234 kernel 1\n\n", "1234 kernel\n1",
		"1234\n kernel", "1234 local-then-remote 7 extra-bytes-here",
		"1234 budget 7 0", "1234 budget 7 1000001", "1234 budget 7 01",
		"1234 budget 7 1 1", "1234 budget 7 ", "1234 budget - - -",
		"1234 budget -- 1", "1234 budget 7 -1", "1234 budget 7 +1",
		"1234 default -", "1234 budget  1", "1234 budget 7 1e3",
		"4194304 local-then-remote 7 1000000 padding-to-the-limit",
	};
	struct thpnuma_task_write w;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, parse_task(bad[i], &w))
			TH_LOG("accepted \"%s\"", bad[i]);
	/* Embedded NULs. */
	EXPECT_EQ(-EINVAL, thpnuma_parse_task_write("12\0 kernel", 9, &w));
	EXPECT_EQ(-EINVAL, thpnuma_parse_task_write("12 kernel\0", 10, &w));
	EXPECT_EQ(-EINVAL, thpnuma_parse_task_write("12 kernel 1\0", 12, &w));
}

static int parse_cgroup(const char *s, struct thpnuma_cgroup_write *w)
{
	return thpnuma_parse_cgroup_write(s, strlen(s), w);
}

TEST(cgroup_write_sets_and_clears)
{
	struct thpnuma_cgroup_write w;
	char path[THPNUMA_CGROUP_PATH_MAX + 16];

	ASSERT_EQ(0, parse_cgroup("/system.slice/db.service strict-local", &w));
	EXPECT_EQ(24, w.path_len);
	EXPECT_EQ(0, memcmp(w.path, "/system.slice/db.service", 24));
	EXPECT_FALSE(w.clear);
	EXPECT_EQ(THPNUMA_POLICY_STRICT_LOCAL, w.policy);
	EXPECT_EQ(THPNUMA_ZR_INHERIT, w.zone_reclaim);

	ASSERT_EQ(0, parse_cgroup("/kubepods.slice/pod-1.slice local-then-remote 5\n", &w));
	EXPECT_EQ(27, w.path_len);
	EXPECT_EQ(THPNUMA_POLICY_LOCAL_THEN_REMOTE, w.policy);
	EXPECT_EQ(5, w.zone_reclaim);

	ASSERT_EQ(0, parse_cgroup("/ default\n", &w));
	EXPECT_EQ(1, w.path_len);
	EXPECT_TRUE(w.clear);

	ASSERT_EQ(0, parse_cgroup("/db.slice budget - 250", &w));
	EXPECT_EQ(THPNUMA_POLICY_BUDGET, w.policy);
	EXPECT_EQ(THPNUMA_ZR_INHERIT, w.zone_reclaim);
	EXPECT_EQ(250, w.budget_us);

	/* systemd's escapes are part of the name. */
	ASSERT_EQ(0, parse_cgroup("/system.slice/serial\\x2dgetty.service kernel", &w));
	EXPECT_EQ(37, w.path_len);

	/* Dots inside a name are names, not "." or "..". */
	ASSERT_EQ(0, parse_cgroup("/a.b/..c/.d kernel 0", &w));
	EXPECT_EQ(THPNUMA_POLICY_KERNEL, w.policy);
	EXPECT_EQ(0, w.zone_reclaim);

	/* The longest path, and one byte more. */
	path[0] = '/';
	memset(path + 1, 'a', THPNUMA_CGROUP_PATH_MAX - 1);
	strcpy(path + THPNUMA_CGROUP_PATH_MAX, " kernel");
	EXPECT_EQ(0, parse_cgroup(path, &w));
	path[THPNUMA_CGROUP_PATH_MAX] = 'a';
	strcpy(path + THPNUMA_CGROUP_PATH_MAX + 1, " kernel");
	EXPECT_EQ(-EINVAL, parse_cgroup(path, &w));
}

TEST(cgroup_write_rejects_malformed_input)
{
	static const char *const bad[] = {
		"", "\n", "/a", "/a ", "a kernel", " /a kernel", "/a  kernel",
		"/a kernel ", "/a\tkernel", "//a kernel", "/a//b kernel",
		"/a/ kernel", "/. kernel", "/a/./b kernel", "/.. kernel",
		"/a/.. kernel", "/a\x01" "b kernel",
		"/a\x7f" "b kernel", "/a\xc3\xa9 kernel", "/a Kernel",
		"/a default 1", "/a kernel 8", "/a kernel 1 1 1", "/a kernel\n\n",
		"/a\n kernel", "kernel /a", "/a budget 7 0", "/a budget - 1 -",
		"/a budget 7 1000001", "/a default - -", "/a budget 7 1 ",
	};
	struct thpnuma_cgroup_write w;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(-EINVAL, parse_cgroup(bad[i], &w))
			TH_LOG("accepted \"%s\"", bad[i]);
	EXPECT_EQ(-EINVAL, thpnuma_parse_cgroup_write("/a\0 kernel", 9, &w));
	EXPECT_EQ(-EINVAL, thpnuma_parse_cgroup_write("/a kernel\0", 10, &w));
}

TEST(override_replaces_policy_and_keeps_scope)
{
	u64 global = config(THPNUMA_POLICY_KERNEL, 3, THPNUMA_SCOPE_MADVISE) |
		     THPNUMA_CFG_OVERRIDES;
	struct thpnuma_config cfg;

	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(global,
		config(THPNUMA_POLICY_STRICT_LOCAL, THPNUMA_ZR_INHERIT, 0)));
	EXPECT_EQ(THPNUMA_POLICY_STRICT_LOCAL, cfg.policy);
	EXPECT_EQ(3, cfg.zone_reclaim);
	EXPECT_EQ(THPNUMA_SCOPE_MADVISE, cfg.scope);

	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(global,
		config(THPNUMA_POLICY_LOCAL_THEN_REMOTE, 7, 0)));
	EXPECT_EQ(THPNUMA_POLICY_LOCAL_THEN_REMOTE, cfg.policy);
	EXPECT_EQ(7, cfg.zone_reclaim);
	EXPECT_EQ(THPNUMA_SCOPE_MADVISE, cfg.scope);
}

TEST(override_formats_as_it_parses)
{
	static const char *const words[] = {
		"kernel - -", "strict-local 0 -", "budget - 1",
		"budget 7 1000000", "local-then-remote 5 250",
	};
	struct thpnuma_task_write w;
	struct thpnuma_config cfg;
	char line[64], buf[THPNUMA_MAX_TASK_WRITE];
	unsigned int i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		snprintf(line, sizeof(line), "1 %s", words[i]);
		ASSERT_EQ(0, parse_task(line, &w));
		cfg = (struct thpnuma_config){
			.policy = w.policy, .zone_reclaim = w.zone_reclaim,
			.budget_us = w.budget_us,
		};
		EXPECT_EQ((int)strlen(words[i]),
			  thpnuma_format_override(buf, sizeof(buf),
						  thpnuma_config_pack(&cfg)));
		EXPECT_STREQ(words[i], buf);
	}
}

TEST(override_budget_replaces_the_global_one)
{
	struct thpnuma_config g = {
		.policy = THPNUMA_POLICY_KERNEL, .zone_reclaim = 3,
		.budget_us = THPNUMA_BUDGET_DEFAULT_US,
	}, o = {
		.policy = THPNUMA_POLICY_BUDGET,
		.zone_reclaim = THPNUMA_ZR_INHERIT, .budget_us = 20,
	}, cfg;
	u64 global = thpnuma_config_pack(&g);

	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(global,
		thpnuma_config_pack(&o)));
	EXPECT_EQ(THPNUMA_POLICY_BUDGET, cfg.policy);
	EXPECT_EQ(3, cfg.zone_reclaim);
	EXPECT_EQ(20, cfg.budget_us);

	o.budget_us = THPNUMA_BUDGET_INHERIT;
	cfg = thpnuma_config_unpack(thpnuma_config_apply_override(global,
		thpnuma_config_pack(&o)));
	EXPECT_EQ(THPNUMA_BUDGET_DEFAULT_US, cfg.budget_us);
}

TEST(overrides_flag_is_outside_the_fields)
{
	u64 word = config(THPNUMA_POLICY_LOCAL_THEN_REMOTE, 7, 1);
	struct thpnuma_config cfg;

	EXPECT_EQ(0, word & THPNUMA_CFG_OVERRIDES);
	cfg = thpnuma_config_unpack(word | THPNUMA_CFG_OVERRIDES);
	EXPECT_EQ(word, thpnuma_config_pack(&cfg));
}

/*
 * A fault's attempts as account.c counts them with thpnuma_step_down():
 * got[k][o] THPs and fell[k][o] fallbacks of kind k and order o.
 */
struct step_sim {
	bool pending;
	unsigned int kind, first_order, last_order;
	unsigned long got[THPNUMA_NR_KINDS][THPNUMA_ORDER_SLOTS];
	unsigned long fell[THPNUMA_NR_KINDS][THPNUMA_ORDER_SLOTS];
};

static void sim_attempt(struct step_sim *s, unsigned int kind,
			unsigned int order, bool got_thp)
{
	struct thpnuma_step step = thpnuma_step_down(s->pending, s->kind,
						     s->last_order, kind,
						     order, got_thp);

	if (step.end_pending) {
		s->fell[s->kind][s->first_order]++;
		s->pending = false;
	}
	if (step.count_attempt) {
		s->got[kind][order]++;
		s->pending = false;
		return;
	}
	if (!step.continues) {
		s->kind = kind;
		s->first_order = order;
	}
	s->pending = step.keep_pending;
	s->last_order = order;
}

/* The small page, another call the kernel takes over, or the exit. */
static void sim_end(struct step_sim *s)
{
	if (s->pending)
		s->fell[s->kind][s->first_order]++;
	s->pending = false;
}

TEST(step_down_counts_a_fallback_once_at_the_largest_order)
{
	struct step_sim s = { 0 };

	sim_attempt(&s, THPNUMA_KIND_ANON, 4, false);
	sim_attempt(&s, THPNUMA_KIND_ANON, 3, false);
	sim_attempt(&s, THPNUMA_KIND_ANON, 2, false);
	EXPECT_EQ(0, s.fell[THPNUMA_KIND_ANON][4]);
	sim_end(&s);
	EXPECT_EQ(1, s.fell[THPNUMA_KIND_ANON][4]);
	EXPECT_EQ(0, s.fell[THPNUMA_KIND_ANON][3]);
	EXPECT_EQ(0, s.fell[THPNUMA_KIND_ANON][2]);
	sim_end(&s);
	EXPECT_EQ(1, s.fell[THPNUMA_KIND_ANON][4]);
}

TEST(step_down_counts_a_success_at_its_order_only)
{
	struct step_sim s = { 0 };

	sim_attempt(&s, THPNUMA_KIND_SWAPIN, 4, false);
	sim_attempt(&s, THPNUMA_KIND_SWAPIN, 3, true);
	sim_end(&s);
	EXPECT_EQ(1, s.got[THPNUMA_KIND_SWAPIN][3]);
	EXPECT_EQ(0, s.fell[THPNUMA_KIND_SWAPIN][4]);
	EXPECT_EQ(0, s.fell[THPNUMA_KIND_SWAPIN][3]);
}

TEST(step_down_ends_a_fault_that_did_not_continue)
{
	struct step_sim s = { 0 };

	/* Another kind, or the same or a larger order: a new fault. */
	sim_attempt(&s, THPNUMA_KIND_SHMEM, 3, false);
	sim_attempt(&s, THPNUMA_KIND_ANON, 2, false);
	EXPECT_EQ(1, s.fell[THPNUMA_KIND_SHMEM][3]);
	sim_attempt(&s, THPNUMA_KIND_ANON, 2, true);
	EXPECT_EQ(1, s.fell[THPNUMA_KIND_ANON][2]);
	EXPECT_EQ(1, s.got[THPNUMA_KIND_ANON][2]);
	sim_attempt(&s, THPNUMA_KIND_ANON, 3, false);
	sim_attempt(&s, THPNUMA_KIND_ANON, 4, true);
	EXPECT_EQ(1, s.fell[THPNUMA_KIND_ANON][3]);
	EXPECT_EQ(1, s.got[THPNUMA_KIND_ANON][4]);
	EXPECT_FALSE(s.pending);
}

/* Every list of names (policy.h, counters.h): each value named, once. */
static void expect_named_once(struct __test_metadata *_metadata,
			      const char *const *names, unsigned int nr,
			      unsigned int first)
{
	unsigned int i, j;

	for (i = first; i < nr; i++) {
		ASSERT_NE(NULL, names[i]);
		for (j = first; j < i; j++)
			EXPECT_STRNE(names[j], names[i]);
	}
}

TEST(every_list_names_each_value_once)
{
	expect_named_once(_metadata, thpnuma_policy_names,
			  THPNUMA_NR_POLICIES, 0);
	expect_named_once(_metadata, thpnuma_scope_names, THPNUMA_NR_SCOPES, 0);
	expect_named_once(_metadata, thpnuma_coverage_names,
			  THPNUMA_NR_COVERAGES, 0);
	expect_named_once(_metadata, thpnuma_kind_names, THPNUMA_NR_KINDS, 0);
	expect_named_once(_metadata, thpnuma_passthrough_reason_names,
			  THPNUMA_NR_PASSTHROUGH_REASONS, 0);
	expect_named_once(_metadata, thpnuma_fault_result_names,
			  THPNUMA_NR_FAULT_RESULTS, 0);
	expect_named_once(_metadata, thpnuma_local_attempt_names,
			  THPNUMA_NR_LOCAL_ATTEMPTS, 0);
	/* THPNUMA_ACT_IGNORE is not traced and has no name. */
	EXPECT_EQ(NULL, thpnuma_action_names[THPNUMA_ACT_IGNORE]);
	expect_named_once(_metadata, thpnuma_action_names, THPNUMA_NR_ACTIONS,
			  THPNUMA_ACT_IGNORE + 1);
	EXPECT_STREQ("kernel|strict-local|local-then-remote|budget",
		     THPNUMA_POLICY_CHOICES);
	EXPECT_STREQ("pmd|pmd+mthp|all", THPNUMA_COVERAGE_CHOICES);
}

/* A policy's action is traced under the policy's own name. */
TEST(each_policy_acts_under_its_name)
{
	struct thpnuma_fault f = {
		.kind = THPNUMA_KIND_ANON, .pmd_order = true, .thp_fault = true,
	};
	struct thpnuma_config cfg = { .coverage = THPNUMA_COVERAGE_ALL };
	unsigned int p;

	for (p = 0; p < THPNUMA_NR_POLICIES; p++) {
		cfg.policy = p;
		EXPECT_STREQ(thpnuma_policy_names[p],
			     thpnuma_action_names[thpnuma_decide(
				thpnuma_config_pack(&cfg), &f)]);
	}
}

TEST_HARNESS_MAIN
