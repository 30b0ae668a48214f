// SPDX-License-Identifier: GPL-2.0
/*
 * The THP fault hook: one ftrace_ops on the hooked allocators and
 * try_to_free_pages(). The callback tells THP faults of each kind (the
 * paths) from every other call, decides, and sends a THP allocation to
 * the replacement of the decided action (alloc.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuset.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/huge_mm.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include "compat.h"
#include "account.h"
#include "alloc.h"
#include "inflight.h"
#define CREATE_TRACE_POINTS
#include "tracepoints.h"

/* Lets the VM tests name a caller that differs, to see the load refuse. */
static char *test_thp_fault_caller;
module_param(test_thp_fault_caller, charp, 0);
MODULE_PARM_DESC(test_thp_fault_caller,
		 "For tests only: filter on this function instead of the kernel's THP fault path");

/*
 * Lets the VM tests play a kernel whose small-page allocation after failed
 * THP attempts is not a hooked call, so that a fault's pending fallback
 * outlives it.
 */
static bool test_small_unhooked;
module_param(test_small_unhooked, bool, 0600);
MODULE_PARM_DESC(test_small_unhooked,
		 "For tests only: small-page calls do not end a fault's pending fallback");

/*
 * The configuration the current task runs under. Without overrides this
 * is one load of the global word.
 */
static inline u32 effective_config(bool *overridden)
{
	u32 word = READ_ONCE(thpnuma_config_word);

	*overridden = false;
	if (unlikely(word & THPNUMA_CFG_OVERRIDES))
		return thpnuma_task_config(word, overridden);
	return word;
}

struct thpnuma_hook {
	const char *name;
	unsigned long start, size;
};

/*
 * The hooked functions. Since 6.8 shmem's allocation is a function of its
 * own; before, HOOK_SHMEM_ALLOC is the hooked allocator.
 */
enum {
	HOOK_ALLOC,
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	HOOK_SHMEM_ALLOC,
#endif
	HOOK_RECLAIM,
	NR_HOOKS
};
#ifndef THPNUMA_SHMEM_HOOKED_SYMBOL
#define HOOK_SHMEM_ALLOC	HOOK_ALLOC
#endif

static struct thpnuma_hook thpnuma_hooks[NR_HOOKS] = {
	[HOOK_ALLOC]		= { .name = THPNUMA_HOOKED_SYMBOL },
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	[HOOK_SHMEM_ALLOC]	= { .name = THPNUMA_SHMEM_HOOKED_SYMBOL },
#endif
	[HOOK_RECLAIM]		= { .name = "try_to_free_pages" },
};

/*
 * A THP path: the function whose calls to a hooked function allocate THPs
 * of one kind. Its name is the first of @callers this kernel has; a path
 * without callers does not exist on this kernel (mTHP before 6.8).
 */
struct thp_path {
	const char *callers[2];
	unsigned int hook;
	unsigned int kind;
	bool pmd_only;		/* do_huge_pmd_anonymous_page()'s PMD fault */
	const char *caller;
	unsigned long start, size;
};

enum { PATH_ANON_PMD, PATH_ANON_MTHP, PATH_SHMEM, PATH_SWAPIN, NR_PATHS };

static struct thp_path thp_paths[NR_PATHS] = {
	[PATH_ANON_PMD] = {
		.callers	= { THPNUMA_THP_FAULT_SYMBOL },
		.hook		= HOOK_ALLOC,
		.kind		= THPNUMA_KIND_ANON,
		.pmd_only	= true,
	},
#ifdef THPNUMA_MTHP_FAULT_CALLERS
	[PATH_ANON_MTHP] = {
		.callers	= { THPNUMA_MTHP_FAULT_CALLERS },
		.hook		= HOOK_ALLOC,
		.kind		= THPNUMA_KIND_ANON,
	},
#endif
	[PATH_SHMEM] = {
		.callers	= { THPNUMA_SHMEM_CALLERS },
		.hook		= HOOK_SHMEM_ALLOC,
		.kind		= THPNUMA_KIND_SHMEM,
	},
#ifdef THPNUMA_SWAPIN_CALLERS
	[PATH_SWAPIN] = {
		.callers	= { THPNUMA_SWAPIN_CALLERS },
		.hook		= HOOK_ALLOC,
		.kind		= THPNUMA_KIND_SWAPIN,
	},
#endif
};

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
	unsigned int policy;
	bool overridden;
	u32 config;
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

	config = effective_config(&overridden);
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
		if (trace_thp_fault_enabled())
			thpnuma_trace_passthrough(node, config, overridden,
						  &fault, order);
		return;
	case THPNUMA_ACT_COUNT_ONLY:
	case THPNUMA_ACT_STRICT_LOCAL:
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		break;
	}
	thpnuma_set_arg1(regs, thpnuma_decided(config, order, path->kind,
					       overridden, node));
	instruction_pointer_set(regs, thpnuma_replacement(action));
}

/*
 * A call of a hooked allocator. Every anonymous page fault comes here:
 * small pages leave after a compare and a read of their task's bucket.
 * Our own calls come from this module, so they never match a path.
 */
static __always_inline void thpnuma_alloc_hook(struct pt_regs *regs,
					       unsigned long parent_ip,
					       unsigned int hook)
{
	unsigned int order = (unsigned int)thpnuma_arg(regs, 1);
	const struct thp_path *path;

	/*
	 * The task's own bucket, not a global count: failing faults on other
	 * CPUs do not bounce a cache line every small-page fault reads.
	 */
	if (!order) {
		if (unlikely(pending_maybe(current)) &&
		    !READ_ONCE(test_small_unhooked))
			thpnuma_pending_end(current);
		return;
	}
	for (path = thp_paths; path < thp_paths + NR_PATHS; path++) {
		if (path->hook == hook && parent_ip - path->start < path->size) {
			thpnuma_thp_hook(regs, path, order);
			return;
		}
	}
	thpnuma_unmatched_call(parent_ip, order);
}

static void notrace thpnuma_ftrace_callback(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct THPNUMA_FTRACE_REGS *fregs)
{
	const struct thpnuma_hook *alloc = &thpnuma_hooks[HOOK_ALLOC];
	struct pt_regs *regs = thpnuma_ftrace_regs(fregs);

	/* Direct calls, not a handler table: indirect calls use retpolines. */
	if (ip - alloc->start < alloc->size) {
		thpnuma_alloc_hook(regs, parent_ip, HOOK_ALLOC);
		return;
	}
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	alloc = &thpnuma_hooks[HOOK_SHMEM_ALLOC];
	if (ip - alloc->start < alloc->size) {
		thpnuma_alloc_hook(regs, parent_ip, HOOK_SHMEM_ALLOC);
		return;
	}
#endif
	thpnuma_reclaim_hook(regs);
}

/*
 * One ftrace_ops for every hooked function: each unregistration waits for
 * RCU-tasks grace periods, and unload time is what load/unload cycles pay.
 * The callback runs on every anonymous fault, so it costs as little as it
 * can: no SAVE_REGS where the kernel allows (the argument registers are
 * all it needs; THPNUMA_FTRACE_FLAGS), and no recursion wrapper (an extra
 * indirect call and preemption toggle), as it cannot recurse: it calls
 * nothing that allocates or reclaims, and neither hooked function runs in
 * interrupt context. It may run preemptible: it only counts with this_cpu
 * ops and reads the configuration under RCU.
 */
static struct ftrace_ops thpnuma_ops = {
	.func	= thpnuma_ftrace_callback,
	/*
	 * PERMANENT, as livepatch does: kernel.ftrace_enabled=0 would NOP our
	 * call sites and leave a loaded module that applies no policy. With
	 * it the load fails while ftrace is off, and the sysctl refuses to
	 * turn ftrace off while we are loaded.
	 */
	.flags	= FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_PERMANENT |
		  THPNUMA_FTRACE_FLAGS,
};

static void notrace thpnuma_probe_callback(unsigned long ip,
					   unsigned long parent_ip,
					   struct ftrace_ops *op,
					   struct THPNUMA_FTRACE_REGS *fregs)
{
}

static struct ftrace_ops thpnuma_probe_ops = {
	.func	= thpnuma_probe_callback,
	.flags	= FTRACE_OPS_FL_IPMODIFY | THPNUMA_FTRACE_FLAGS,
};

/*
 * register_ftrace_function() says only -EBUSY, both for an IPMODIFY
 * conflict and for a PERMANENT ops while ftrace is off. To name the
 * cause, register an empty IPMODIFY ops on each hooked function alone:
 * it is not PERMANENT, so only a conflict refuses it. Load error path
 * only: each try costs a grace period.
 */
static const char *ipmodify_conflict(void)
{
	struct ftrace_ops *probe = &thpnuma_probe_ops;
	const char *name, *conflict = NULL;
	int i, err;

	for (i = 0; i < ARRAY_SIZE(thpnuma_hooks) && !conflict; i++) {
		name = thpnuma_hooks[i].name;
		/*
		 * Reset replaces the previous filter. ftrace_free_filter()
		 * leaves the freed hash in the ops, so it runs once, last.
		 */
		err = ftrace_set_filter(probe, (unsigned char *)name,
					strlen(name), 1);
		if (!err) {
			err = register_ftrace_function(probe);
			if (!err)
				unregister_ftrace_function(probe);
		}
		if (err == -EBUSY)
			conflict = name;
	}
	thpnuma_ftrace_free_filter(probe);
	return conflict;
}

static void report_register_error(int err)
{
	const char *conflict;

	if (err != -EBUSY) {
		pr_err("cannot register the ftrace hook: %d\n", err);
		return;
	}
	conflict = ipmodify_conflict();
	if (conflict)
		pr_err("cannot hook %s: another ftrace user with IPMODIFY (a livepatch?) owns it\n",
		       conflict);
	else
		pr_err("cannot hook: ftrace is disabled (sysctl kernel.ftrace_enabled=0); set kernel.ftrace_enabled=1 and load again\n");
}

/* The first of @path's callers this kernel has; -ENOENT if none. */
static int resolve_path(struct thp_path *path)
{
	int i, err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(path->callers) && path->callers[i]; i++) {
		err = thpnuma_lookup_function(path->callers[i], &path->start,
					      &path->size);
		if (!err) {
			path->caller = path->callers[i];
			return 0;
		}
	}
	pr_err("THP fault path differs: no function %s on this kernel\n",
	       path->callers[0]);
	return err;
}

int thpnuma_hooks_install(void)
{
	struct thpnuma_hook *hook;
	struct thp_path *path;
	int i, err;

	if (test_thp_fault_caller)
		thp_paths[PATH_ANON_PMD].callers[0] = test_thp_fault_caller;
	for (path = thp_paths; path < thp_paths + NR_PATHS; path++)
		if (path->callers[0] && resolve_path(path))
			return -ENOENT;

	for (i = 0; i < ARRAY_SIZE(thpnuma_hooks); i++) {
		hook = &thpnuma_hooks[i];
		err = thpnuma_lookup_function(hook->name, &hook->start,
					      &hook->size);
		if (err) {
			pr_err("cannot hook %s: no such function (%d)\n",
			       hook->name, err);
			goto rollback;
		}
		err = ftrace_set_filter(&thpnuma_ops, (unsigned char *)hook->name,
					strlen(hook->name), 0);
		if (err) {
			pr_err("cannot hook %s: not traceable (%d)\n",
			       hook->name, err);
			goto rollback;
		}
	}
	/*
	 * A hook that never sees a THP fault must not load: a kernel whose
	 * fault path moved the call (6.13 did) would otherwise get a module
	 * that silently counts nothing.
	 */
	for (path = thp_paths; path < thp_paths + NR_PATHS; path++) {
		if (!path->caller)
			continue;
		hook = &thpnuma_hooks[path->hook];
		if (!thpnuma_calls_directly(path->start, path->size,
					    hook->start)) {
			pr_err("THP fault path differs: %s does not call %s, so the hook would never see its %s THPs\n",
			       path->caller, hook->name,
			       thpnuma_kind_names[path->kind]);
			err = -EINVAL;
			goto rollback;
		}
	}
	err = register_ftrace_function(&thpnuma_ops);
	if (err) {
		report_register_error(err);
		goto rollback;
	}
	return 0;

rollback:
	/* Drops every filter entry added so far, newest included. */
	thpnuma_ftrace_free_filter(&thpnuma_ops);
	return err;
}

void thpnuma_hooks_remove(void)
{
	int err = unregister_ftrace_function(&thpnuma_ops);

	/*
	 * Only a broken ftrace (ftrace_kill() after an ftrace bug) refuses:
	 * the call sites still jump to our callback, and the module loader
	 * frees our text as soon as we return, whatever the refcount. So
	 * never return: a stuck rmmod (or failed insmod) beats an oops on
	 * the next page fault. TASK_IDLE keeps the hung-task detector quiet.
	 */
	if (err) {
		pr_crit("cannot unregister the ftrace hook (%d): ftrace still calls into thpnuma, so its code must stay; this rmmod/insmod will never return, reboot to remove thpnuma\n",
			err);
		for (;;)
			schedule_timeout_idle(MAX_SCHEDULE_TIMEOUT);
	}
	thpnuma_ftrace_free_filter(&thpnuma_ops);

	/*
	 * unregister_ftrace_function() waited for an RCU-tasks grace period,
	 * so no task is still between the callback and its in-flight count.
	 * Tasks inside a replacement can sleep in reclaim: wait for them.
	 */
	while (thpnuma_replacing_sum())
		msleep(20);
	/* Let the last ones return out of this module's text. */
	synchronize_rcu_tasks();
}
