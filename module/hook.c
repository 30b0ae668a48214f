// SPDX-License-Identifier: GPL-2.0
/*
 * The THP fault hook: a direct call on the hooked allocators (tramp.S),
 * an ftrace_ops on try_to_free_pages(). The hook tells THP faults of each
 * kind (the paths) from every other call, decides, and sends a THP
 * allocation to the replacement of the decided action (alloc.c).
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
#include <linux/stacktrace.h>
#include "compat.h"
#include "account.h"
#include "alloc.h"
#include "inflight.h"
#include "tramp.h"
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
	struct ftrace_ops *ops;
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

static struct ftrace_ops thpnuma_ops, thpnuma_direct_ops;

#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
#define DIRECT_HOOKED_NAMES \
	THPNUMA_HOOKED_SYMBOL " or " THPNUMA_SHMEM_HOOKED_SYMBOL
#else
#define DIRECT_HOOKED_NAMES	THPNUMA_HOOKED_SYMBOL
#endif

/* The allocators take a direct call (tramp.S); reclaim, the callback. */
static struct thpnuma_hook thpnuma_hooks[NR_HOOKS] = {
	[HOOK_ALLOC]		= { .name = THPNUMA_HOOKED_SYMBOL,
				    .ops = &thpnuma_direct_ops },
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	[HOOK_SHMEM_ALLOC]	= { .name = THPNUMA_SHMEM_HOOKED_SYMBOL,
				    .ops = &thpnuma_direct_ops },
#endif
	[HOOK_RECLAIM]		= { .name = "try_to_free_pages",
				    .ops = &thpnuma_ops },
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

/* Whether tramp.S returns into @hook's function, behind its fentry call. */
static __always_inline bool returns_after_fentry(unsigned int hook,
						 unsigned long ret_ip)
{
	/* The fentry call is the first instruction, or follows an ENDBR. */
	return ret_ip - thpnuma_hooks[hook].start - MCOUNT_INSN_SIZE <= 4;
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
 * @parent_ip in its caller. Our own calls come from this module, so they
 * never match a path.
 */
void notrace thpnuma_alloc_hook_regs(struct pt_regs *regs,
				     unsigned long ret_ip,
				     unsigned long parent_ip)
{
	unsigned int order = (unsigned int)thpnuma_arg(regs, 1);
	const struct thp_path *path;
	unsigned int hook = HOOK_ALLOC;

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
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	if (!returns_after_fentry(HOOK_ALLOC, ret_ip))
		hook = HOOK_SHMEM_ALLOC;
#endif
	/*
	 * An IPMODIFY user (ftrace_regs_caller runs it before us when it
	 * shares the function) sent the call elsewhere: leave it there.
	 */
	if (unlikely(!returns_after_fentry(hook, ret_ip))) {
		pr_warn_once("another ftrace user redirected an order-%u call of a hooked allocator to %pS: the policy does not apply to it\n",
			     order, (void *)ret_ip);
		return;
	}
	path = thp_path_of(hook, parent_ip);
	if (unlikely(!path)) {
		/* A replacement's own allocation. */
		if (within_module(parent_ip, THIS_MODULE))
			return;
		parent_ip = recover_parent(hook, parent_ip);
		path = thp_path_of(hook, parent_ip);
	}
	if (path)
		thpnuma_thp_hook(regs, path, order);
	else
		thpnuma_unmatched_call(parent_ip, order);
}

static void notrace thpnuma_ftrace_callback(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct THPNUMA_FTRACE_REGS *fregs)
{
	thpnuma_reclaim_hook(thpnuma_ftrace_regs(fregs));
}

/*
 * Every anonymous fault calls a hooked allocator, so they take a direct
 * call to tramp.S: ftrace's own trampoline would save every argument
 * register on each small-page fault (about 35 instructions, half the
 * hook's cost there). The direct call owns the function as an IPMODIFY
 * user does: a livepatch or another redirecting user is refused, and
 * refuses us, in either order.
 */
static struct ftrace_ops thpnuma_direct_ops;

/*
 * try_to_free_pages() runs on reclaim only: a plain callback, without
 * SAVE_REGS where the kernel allows (THPNUMA_FTRACE_FLAGS), and no
 * recursion wrapper, as it cannot recurse: it calls nothing that
 * allocates or reclaims.
 */
static struct ftrace_ops thpnuma_ops = {
	.func	= thpnuma_ftrace_callback,
	/*
	 * PERMANENT, as livepatch does: kernel.ftrace_enabled=0 would NOP our
	 * call sites and leave a loaded module that applies no policy. With
	 * it the load fails while ftrace is off, and the sysctl refuses to
	 * turn ftrace off while we are loaded, direct calls included.
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

static void report_register_error(int err, bool direct)
{
	const char *conflict;

	if (err != -EBUSY) {
		pr_err("cannot register the ftrace hook: %d\n", err);
		return;
	}
	conflict = ipmodify_conflict();
	if (conflict)
		pr_err("cannot hook %s: another ftrace user with IPMODIFY (a livepatch?) or a direct call owns it\n",
		       conflict);
	else if (direct)
		/*
		 * A function takes one direct call. A BPF trampoline shares
		 * with the probe above; 5.10's direct calls need ftrace on.
		 */
		pr_err("cannot hook %s: another ftrace user calls it directly (a BPF fentry/fexit program?), or ftrace is disabled (sysctl kernel.ftrace_enabled=0)\n",
		       DIRECT_HOOKED_NAMES);
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

/*
 * Only a broken ftrace (ftrace_kill() after an ftrace bug) refuses to
 * unregister: the call sites still jump to our code, and the module
 * loader frees our text as soon as we return, whatever the refcount. So
 * never return: a stuck rmmod (or failed insmod) beats an oops on the
 * next page fault. TASK_IDLE keeps the hung-task detector quiet.
 */
static void ftrace_unregistered(int err)
{
	if (!err)
		return;
	pr_crit("cannot unregister the ftrace hook (%d): ftrace still calls into thpnuma, so its code must stay; this rmmod/insmod will never return, reboot to remove thpnuma\n",
		err);
	for (;;)
		schedule_timeout_idle(MAX_SCHEDULE_TIMEOUT);
}

/* The functions that take the direct call (5.10 registers each). */
static unsigned long direct_funcs[NR_HOOKS];
static unsigned int nr_direct_funcs;

static int direct_register(void)
{
	return thpnuma_direct_register(&thpnuma_direct_ops,
				       (unsigned long)thpnuma_alloc_entry,
				       direct_funcs, nr_direct_funcs);
}

static int direct_unregister(void)
{
	return thpnuma_direct_unregister(&thpnuma_direct_ops,
					 (unsigned long)thpnuma_alloc_entry,
					 direct_funcs, nr_direct_funcs);
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
		err = ftrace_set_filter(hook->ops, (unsigned char *)hook->name,
					strlen(hook->name), 0);
		if (err) {
			pr_err("cannot hook %s: not traceable (%d)\n",
			       hook->name, err);
			goto rollback;
		}
		if (hook->ops == &thpnuma_direct_ops)
			direct_funcs[nr_direct_funcs++] = hook->start;
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
		report_register_error(err, false);
		goto rollback;
	}
	/*
	 * The direct call last: from here on faults enter the replacements,
	 * and only thpnuma_hooks_remove() waits for them to leave.
	 */
	err = direct_register();
	if (err) {
		/* Ours on try_to_free_pages is not the IPMODIFY user to find. */
		ftrace_unregistered(unregister_ftrace_function(&thpnuma_ops));
		report_register_error(err, true);
		goto rollback;
	}
	return 0;

rollback:
	nr_direct_funcs = 0;
	/* Drops every filter entry added so far, newest included. */
	thpnuma_ftrace_free_filter(&thpnuma_direct_ops);
	thpnuma_ftrace_free_filter(&thpnuma_ops);
	return err;
}

void thpnuma_hooks_remove(void)
{
	ftrace_unregistered(direct_unregister() ?:
			    unregister_ftrace_function(&thpnuma_ops));
	thpnuma_ftrace_free_filter(&thpnuma_direct_ops);
	thpnuma_ftrace_free_filter(&thpnuma_ops);

	/*
	 * Unregistering waited for an RCU-tasks grace period (compat.h on
	 * 5.10), so no task is still between tramp.S and its in-flight count.
	 * Tasks inside a replacement can sleep in reclaim: wait for them.
	 */
	while (thpnuma_replacing_sum())
		msleep(20);
	/* Let the last ones return out of this module's text. */
	synchronize_rcu_tasks();
}
