// SPDX-License-Identifier: GPL-2.0
/*
 * The THP fault hook, on each call of a hooked allocator (from tramp.S):
 * it tells THP faults of each kind (the paths) from every other call,
 * decides, and sends a THP allocation to the replacement of the decided
 * action (alloc.c). Also the entries of try_to_free_pages() and of the
 * budget's cut points. install.c puts them in place.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuset.h>
#include <linux/huge_mm.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include "compat.h"
#include "account.h"
#include "alloc.h"
#include "hook.h"
#include "inflight.h"
#include "tramp.h"
#define CREATE_TRACE_POINTS
#include "tracepoints.h"

/*
 * Lets the VM tests play a kernel whose small-page allocation after failed
 * THP attempts is not a hooked call, so that a fault's pending fallback
 * outlives it.
 */
static bool test_small_unhooked;
module_param(test_small_unhooked, bool, 0600);
MODULE_PARM_DESC(test_small_unhooked,
		 "For tests only: small-page calls do not end a fault's pending fallback");

unsigned long thpnuma_text_start __read_mostly;
unsigned long thpnuma_text_size __read_mostly;

/*
 * The configuration of a task that may have an override or be in a cgroup
 * with a setting: its own override first, then its cgroup's.
 */
static noinline u64 looked_up_config(u64 word, bool *overridden,
				     bool *by_cgroup)
{
	u64 config;

	if (word & THPNUMA_CFG_OVERRIDES) {
		config = thpnuma_task_config(word, overridden);
		if (*overridden)
			return config;
	}
	if (word & THPNUMA_CFG_CGROUPS) {
		config = thpnuma_cgroup_config(word, overridden);
		*by_cgroup = *overridden;
		return config;
	}
	return word;
}

/*
 * The configuration the current task runs under. Without overrides and
 * cgroup settings this is one load of the global word.
 */
static inline u64 effective_config(bool *overridden, bool *by_cgroup)
{
	u64 word = READ_ONCE(thpnuma_config_word);

	*overridden = false;
	*by_cgroup = false;
	if (unlikely(word & THPNUMA_CFG_LOOKUPS))
		return looked_up_config(word, overridden, by_cgroup);
	return word;
}

/* A THP allocation: send it to the replacement for the action. */
static void notrace thpnuma_thp_hook(struct pt_regs *regs,
				     const struct thp_path *path,
				     unsigned int order)
{
	unsigned long arg2 = thpnuma_arg(regs, 2);
	struct thpnuma_fault fault = {
		.kind		= path->kind,
		.thp_fault	= true,
	};
	enum thpnuma_action action;
	bool overridden, by_cgroup;
	unsigned int policy;
	u64 config;
	int node;

	fault.pmd_order = order == HPAGE_PMD_ORDER &&
			  (THPNUMA_HUGEPAGE_ARG < 0 ||
			   (u8)thpnuma_arg(regs, THPNUMA_HUGEPAGE_ARG));
	if ((path->pmd_only && !fault.pmd_order) ||
	    order > THPNUMA_MAX_THP_ORDER)
		return;

	node = numa_node_id();
	if (path->kind == THPNUMA_KIND_SHMEM) {
		fault.has_mempolicy = current->mempolicy ||
				      thpnuma_shmem_has_policy(arg2,
							thpnuma_arg(regs, 3));
	} else {
		struct vm_area_struct *vma = (struct vm_area_struct *)arg2;

		fault.madvised = vma->vm_flags & VM_HUGEPAGE;
		fault.has_mempolicy = vma->vm_policy || current->mempolicy;
	}
	fault.local_disallowed = !node_isset(node, cpuset_current_mems_allowed);

	config = effective_config(&overridden, &by_cgroup);
	action = thpnuma_decide(config, &fault);
	switch (action) {
	case THPNUMA_ACT_IGNORE:
		/* Out of scope or coverage: traced, not counted. */
		if (!path->pmd_only)
			thpnuma_pending_end(current);
		if (trace_thp_fault_enabled())
			thpnuma_trace_passthrough(node, config, overridden,
						  &fault, order);
		return;
	case THPNUMA_ACT_PASSTHROUGH:
		/* The kernel takes over the fault (a policy on part of a file). */
		if (!path->pmd_only)
			thpnuma_pending_end(current);
		thpnuma_count(node, THPNUMA_PASSTHROUGH, 1);
		thpnuma_count_order(node, path->kind, order,
				    THPNUMA_ORDER_PASSTHROUGH);
		policy = thpnuma_config_unpack(config).policy;
		thpnuma_count_policy(policy, THPNUMA_PC_PASSTHROUGH);
		if (overridden)
			thpnuma_count_policy(policy, THPNUMA_PC_BY_OVERRIDE);
		if (by_cgroup)
			thpnuma_cgroup_count_passthrough();
		if (trace_thp_fault_enabled())
			thpnuma_trace_passthrough(node, config, overridden,
						  &fault, order);
		return;
	case THPNUMA_ACT_COUNT_ONLY:
	case THPNUMA_ACT_STRICT_LOCAL:
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
	case THPNUMA_ACT_BUDGET:
		break;
	}
	thpnuma_set_arg1(regs, thpnuma_decided(config, order, path->kind,
					       overridden, by_cgroup, node));
	instruction_pointer_set(regs, thpnuma_replacement(action));
}

/* Whether @ip, an ftrace call site, is @hook's function's. */
static __always_inline bool fentry_of(unsigned int hook, unsigned long ip)
{
	/* The fentry call is the first instruction, or follows an ENDBR. */
	return ip - thpnuma_hooks[hook].start <= 4;
}

/* Whether tramp.S returns into @hook's function, behind its fentry call. */
static __always_inline bool returns_after_fentry(unsigned int hook,
						 unsigned long ret_ip)
{
	return fentry_of(hook, ret_ip - MCOUNT_INSN_SIZE);
}

static const struct thp_path *thp_path_of(unsigned int hook,
					  unsigned long parent_ip)
{
	const struct thp_path *path;

	for (path = thp_paths; path < thp_paths + NR_PATHS; path++)
		if (path->hook == hook && parent_ip - path->start < path->size)
			return path;
	return NULL;
}

/*
 * The hooked function's caller when a return probe that shares the
 * function (a kretprobe, function_graph) has already put its trampoline
 * in the return slot tramp.S reads: the unwinder knows the real one.
 * Calls from no path only, which are rare without such a probe.
 */
static noinline unsigned long recover_parent(unsigned int hook,
					     unsigned long parent_ip)
{
	const struct thpnuma_hook *h = &thpnuma_hooks[hook];
	unsigned long entries[8];
	unsigned int i, nr;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 0);
	for (i = 0; i + 1 < nr; i++)
		if (entries[i] - h->start < h->size)
			return entries[i + 1];
	return parent_ip;
}

/*
 * A call of a hooked allocator, from tramp.S: THP orders, and small pages
 * while some fault has a pending fallback. @ret_ip is in the allocator,
 * @parent_ip in its caller. tramp.S sends our own calls (from this
 * module's text) straight on to the allocator.
 */
void notrace thpnuma_alloc_hook_regs(struct pt_regs *regs,
				     unsigned long ret_ip,
				     unsigned long parent_ip)
{
	unsigned int order = (unsigned int)thpnuma_arg(regs, 1);
	const struct thp_path *path;
	unsigned int hook;

	BUILD_BUG_ON(offsetof(struct pt_regs, r9) != PTREGS_R9 ||
		     offsetof(struct pt_regs, r8) != PTREGS_R8 ||
		     offsetof(struct pt_regs, cx) != PTREGS_CX ||
		     offsetof(struct pt_regs, dx) != PTREGS_DX ||
		     offsetof(struct pt_regs, si) != PTREGS_SI ||
		     offsetof(struct pt_regs, di) != PTREGS_DI ||
		     offsetof(struct pt_regs, ip) != PTREGS_IP ||
		     sizeof(struct pt_regs) != PTREGS_SIZE);

	if (!order) {
		if (unlikely(pending_maybe(current)) &&
		    !READ_ONCE(test_small_unhooked))
			thpnuma_pending_end(current);
		return;
	}
	/*
	 * Which allocator: tramp.S returns behind its fentry call. If behind
	 * neither, an IPMODIFY user (ftrace_regs_caller runs it before us
	 * when it shares the function) sent the call elsewhere: leave it
	 * there.
	 */
	if (likely(returns_after_fentry(HOOK_ALLOC, ret_ip))) {
		hook = HOOK_ALLOC;
	} else if (returns_after_fentry(HOOK_SHMEM_ALLOC, ret_ip)) {
		hook = HOOK_SHMEM_ALLOC;
	} else {
		pr_warn_once("another ftrace user redirected an order-%u call of a hooked allocator to %pS: the policy does not apply to it\n",
			     order, (void *)ret_ip);
		return;
	}
	path = thp_path_of(hook, parent_ip);
	if (unlikely(!path)) {
		/* tramp.S returned for a replacement's own allocation. */
		parent_ip = recover_parent(hook, parent_ip);
		path = thp_path_of(hook, parent_ip);
	}
	if (path)
		thpnuma_thp_hook(regs, path, order);
	else
		thpnuma_unmatched_call(parent_ip, order);
}

/* A call of a cut point, from tramp.S, while a budget has a deadline. */
void notrace thpnuma_cut_hook_regs(struct pt_regs *regs, unsigned long ret_ip,
				   unsigned long parent_ip)
{
	thpnuma_budget_cut_hook(regs, returns_after_fentry(HOOK_SWAP_OUT,
							   ret_ip));
}

/* try_to_free_pages(), the only function thpnuma_ops traces. */
void notrace thpnuma_ftrace_callback(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct THPNUMA_FTRACE_REGS *fregs)
{
	thpnuma_reclaim_hook(thpnuma_ftrace_regs(fregs));
}

