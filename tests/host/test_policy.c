// SPDX-License-Identifier: GPL-2.0
/* Host unit tests for module/policy.c, compiled from the module's own file. */
#include <string.h>
#include "kselftest_harness.h"
#include "policy.h"

static int parse_policy(const char *s, size_t len, unsigned int *out)
{
	return thpnuma_parse_choice(s, len, thpnuma_policy_names,
				    THPNUMA_NR_POLICIES, out);
}

static u32 config(unsigned int policy, unsigned int zr, unsigned int scope)
{
	struct thpnuma_config cfg = { policy, zr, scope };

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
	EXPECT_STREQ("kernel [strict-local] local-then-remote\n", buf);
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

FIXTURE_SETUP(decide)
{
	self->fault.pmd_order = true;
	self->fault.thp_fault = true;
	self->fault.madvised = false;
	self->fault.has_mempolicy = false;
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
	u32 cfg = config(variant->policy, 7, THPNUMA_SCOPE_ALL);

	self->fault.pmd_order = false;
	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
	self->fault.pmd_order = true;
	self->fault.thp_fault = false;
	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
}

TEST_F(decide, explicit_mempolicy_wins)
{
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_ACT_PASSTHROUGH,
		  thpnuma_decide(config(variant->policy, 0, THPNUMA_SCOPE_ALL),
				 &self->fault));
}

TEST_F(decide, madvise_scope_skips_unadvised_vmas)
{
	u32 cfg = config(variant->policy, 0, THPNUMA_SCOPE_MADVISE);

	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
	/* Not even counted as passthrough: out of scope is untouched. */
	self->fault.has_mempolicy = true;
	EXPECT_EQ(THPNUMA_ACT_IGNORE, thpnuma_decide(cfg, &self->fault));
	self->fault.has_mempolicy = false;
	self->fault.madvised = true;
	EXPECT_EQ(variant->action, thpnuma_decide(cfg, &self->fault));
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

TEST_HARNESS_MAIN
