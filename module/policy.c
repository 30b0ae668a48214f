// SPDX-License-Identifier: GPL-2.0
/*
 * The policy's rules beside the decision (thpnuma_decide(), inline in
 * policy.h): overrides, the reason a fault was left to the kernel, the
 * local attempt's effort, and stepping down through orders. Kernel-free,
 * like settings.c and names.c: the host unit tests compile it as it is.
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

enum thpnuma_passthrough_reason
thpnuma_passthrough_reason(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	/* In thpnuma_decide()'s order, so the first reason that applied. */
	if (!thpnuma_covers(cfg.coverage, f))
		return THPNUMA_PT_COVERAGE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !thpnuma_madvised(f))
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
