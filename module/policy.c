// SPDX-License-Identifier: GPL-2.0
/*
 * The policy decision: what the hook does with a fault, given the
 * configuration word. Kernel-free, like settings.c and names.c: the host
 * unit tests compile it as it is.
 */
#include "policy.h"

u64 thpnuma_config_apply_override(u64 global, u64 override)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(global);
	struct thpnuma_config o = thpnuma_config_unpack(override);

	cfg.policy = o.policy;
	if (o.zone_reclaim != THPNUMA_ZR_INHERIT)
		cfg.zone_reclaim = o.zone_reclaim;
	if (o.budget_us != THPNUMA_BUDGET_INHERIT)
		cfg.budget_us = o.budget_us;
	return thpnuma_config_pack(&cfg);
}

/*
 * shmem and tmpfs huge pages are always asked for: by the mount's huge=
 * option, shmem_enabled, or the advice the kernel already checked.
 */
static bool madvised(const struct thpnuma_fault *f)
{
	return f->kind == THPNUMA_KIND_SHMEM || f->madvised;
}

bool thpnuma_covers(unsigned int coverage, const struct thpnuma_fault *f)
{
	switch ((enum thpnuma_coverage)coverage) {
	case THPNUMA_COVERAGE_PMD:
		return f->kind == THPNUMA_KIND_ANON && f->pmd_order;
	case THPNUMA_COVERAGE_PMD_MTHP:
		return f->kind != THPNUMA_KIND_SHMEM;
	case THPNUMA_COVERAGE_ALL:
		break;
	}
	return true;
}

enum thpnuma_action thpnuma_decide(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	if (!f->thp_fault || !thpnuma_covers(cfg.coverage, f))
		return THPNUMA_ACT_IGNORE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !madvised(f))
		return THPNUMA_ACT_IGNORE;
	/*
	 * An explicit memory policy is the user's word: it wins. So does a
	 * cpuset that keeps the task off its CPU's node: there is no local
	 * node to prefer, and strict-local would never get a THP.
	 */
	if (f->has_mempolicy || f->local_disallowed)
		return THPNUMA_ACT_PASSTHROUGH;

	switch ((enum thpnuma_policy)cfg.policy) {
	case THPNUMA_POLICY_KERNEL:
		break;
	case THPNUMA_POLICY_STRICT_LOCAL:
		return THPNUMA_ACT_STRICT_LOCAL;
	case THPNUMA_POLICY_LOCAL_THEN_REMOTE:
		return THPNUMA_ACT_LOCAL_THEN_REMOTE;
	case THPNUMA_POLICY_BUDGET:
		return THPNUMA_ACT_BUDGET;
	}
	/* The kernel policy, and no other value reaches the word. */
	return THPNUMA_ACT_COUNT_ONLY;
}

enum thpnuma_passthrough_reason
thpnuma_passthrough_reason(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	/* In thpnuma_decide()'s order, so the first reason that applied. */
	if (!thpnuma_covers(cfg.coverage, f))
		return THPNUMA_PT_COVERAGE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !madvised(f))
		return THPNUMA_PT_SCOPE;
	if (f->has_mempolicy)
		return THPNUMA_PT_MEMPOLICY;
	if (f->local_disallowed)
		return THPNUMA_PT_CPUSET;
	return THPNUMA_PT_NONE;
}

struct thpnuma_local_effort thpnuma_local_effort(unsigned int zone_reclaim)
{
	struct thpnuma_local_effort e = {
		.reclaim	= zone_reclaim & THPNUMA_ZR_MASK,
		.enter_fs	= zone_reclaim & THPNUMA_ZR_WRITE,
		.swap		= zone_reclaim & THPNUMA_ZR_SWAP,
		.wake_kswapd	= zone_reclaim & THPNUMA_ZR_MASK,
	};

	return e;
}

struct thpnuma_step thpnuma_step_down(bool pending, unsigned int pending_kind,
				      unsigned int last_order,
				      unsigned int kind, unsigned int order,
				      bool got_thp)
{
	/*
	 * A fault steps down within one kind; a pending fallback of another
	 * kind, or of an order not above this one, is a fault that ended
	 * without a hooked small-page call (6.1's shmem out of space).
	 */
	bool continues = pending && pending_kind == kind && order < last_order;
	struct thpnuma_step step = {
		.end_pending	= pending && !continues,
		.continues	= continues,
		.count_attempt	= got_thp,
		.keep_pending	= !got_thp,
	};

	return step;
}
