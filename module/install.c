// SPDX-License-Identifier: GPL-2.0
/*
 * Putting the hook in place and taking it out: each path's caller and
 * each hooked function found, checked and registered with ftrace (direct
 * calls to tramp.S on the allocators and the budget's cut points, an
 * ftrace_ops on try_to_free_pages()); a refusal named; removal that waits
 * for every fault still in a replacement.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include "compat.h"
#include "hook.h"
#include "inflight.h"
#include "tramp.h"

/*
 * Off, reclaim's functions other than try_to_free_pages() stay free for a
 * livepatch, and a budget attempt's reclaim runs on past its budget.
 */
static bool budget_cut = true;
module_param(budget_cut, bool, 0444);
MODULE_PARM_DESC(budget_cut,
		 "Hook reclaim to stop a budget attempt's reclaim at its budget (default Y; N leaves shrink_node() and the other cut points to a livepatch)");

/* Lets the VM tests name a caller that differs, to see the load refuse. */
static char *test_thp_fault_caller;
module_param(test_thp_fault_caller, charp, 0);
MODULE_PARM_DESC(test_thp_fault_caller,
		 "For tests only: filter on this function instead of the kernel's THP fault path");

/*
 * Every anonymous fault calls a hooked allocator, and every reclaimer the
 * budget's cut points (each swap-out among them), so they take a direct
 * call to tramp.S: ftrace's own trampoline would save every argument
 * register on each call (about 35 instructions, half the hook's cost on
 * a small-page fault). A direct call owns its function as an IPMODIFY
 * user does: a livepatch or another redirecting user is refused, and
 * refuses us, in either order. 5.10 registers each function on its own.
 */
struct direct_call {
	struct ftrace_ops ops;
	void (*entry)(void);
	const char *names;		/* its functions, for errors */
	unsigned long funcs[NR_HOOKS];
	unsigned int nr_funcs;
};

#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
#define ALLOC_NAMES	THPNUMA_HOOKED_SYMBOL " or " THPNUMA_SHMEM_HOOKED_SYMBOL
#else
#define ALLOC_NAMES	THPNUMA_HOOKED_SYMBOL
#endif

static struct direct_call alloc_direct = {
	.entry	= thpnuma_alloc_entry,
	.names	= ALLOC_NAMES,
};

static struct direct_call cut_direct = {
	.entry	= thpnuma_cut_entry,
	.names	= "shrink_node() or another of the budget's cut points (budget_cut=N leaves them alone)",
};

static struct ftrace_ops thpnuma_ops;

/*
 * The allocators and the cut points take a direct call (tramp.S);
 * try_to_free_pages(), the callback.
 */
struct thpnuma_hook thpnuma_hooks[NR_HOOKS] = {
	[HOOK_ALLOC]		= { .name = THPNUMA_HOOKED_SYMBOL,
				    .ops = &alloc_direct.ops },
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	[HOOK_SHMEM_ALLOC]	= { .name = THPNUMA_SHMEM_HOOKED_SYMBOL,
				    .ops = &alloc_direct.ops },
#endif
	[HOOK_RECLAIM]		= { .name = "try_to_free_pages",
				    .ops = &thpnuma_ops },
	[HOOK_SHRINK_NODE]	= { .name = "shrink_node",
				    .ops = &cut_direct.ops,
				    .cut_point = true },
	[HOOK_SHRINK_LRUVEC]	= { .name = "shrink_lruvec",
				    .ops = &cut_direct.ops,
				    .cut_point = true },
	[HOOK_SHRINK_ACTIVE]	= { .name = "shrink_active_list",
				    .ops = &cut_direct.ops,
				    .cut_point = true },
#ifdef THPNUMA_MGLRU_EVICT_SYMBOL
	[HOOK_EVICT_FOLIOS]	= { .name = THPNUMA_MGLRU_EVICT_SYMBOL,
				    .ops = &cut_direct.ops,
				    .cut_point = true },
	[HOOK_AGING]		= { .name = THPNUMA_MGLRU_AGING_SYMBOL,
				    .ops = &cut_direct.ops,
				    .cut_point = true },
#endif
	[HOOK_SWAP_OUT]		= { .name = THPNUMA_SWAP_OUT_SYMBOL,
				    .ops = &cut_direct.ops,
				    .cut_point = true },
};

struct thp_path thp_paths[NR_PATHS] = {
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

/*
 * try_to_free_pages() runs once per direct reclaim: a plain callback,
 * without SAVE_REGS where the kernel allows (THPNUMA_FTRACE_FLAGS), and
 * no recursion wrapper, as it cannot recurse: it calls nothing that
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

static bool hooked(const struct thpnuma_hook *hook)
{
	return budget_cut || !hook->cut_point;
}

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
		if (!hooked(&thpnuma_hooks[i]))
			continue;
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

/* @direct: the direct call that failed; NULL: thpnuma_ops. */
static void report_register_error(int err, const struct direct_call *direct)
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
		       direct->names);
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

/* With budget_cut=N the cut points' call has no function to take. */
static int direct_register(struct direct_call *direct)
{
	if (!direct->nr_funcs)
		return 0;
	return thpnuma_direct_register(&direct->ops,
				       (unsigned long)direct->entry,
				       direct->funcs, direct->nr_funcs);
}

static int direct_unregister(struct direct_call *direct)
{
	if (!direct->nr_funcs)
		return 0;
	return thpnuma_direct_unregister(&direct->ops,
					 (unsigned long)direct->entry,
					 direct->funcs, direct->nr_funcs);
}

static void direct_forget(struct direct_call *direct)
{
	direct->nr_funcs = 0;
	/* Drops every filter entry added so far, newest included. */
	thpnuma_ftrace_free_filter(&direct->ops);
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
		if (!hooked(hook))
			continue;
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
		if (hook->ops != &thpnuma_ops) {
			struct direct_call *direct =
				container_of(hook->ops, struct direct_call, ops);

			direct->funcs[direct->nr_funcs++] = hook->start;
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
		report_register_error(err, NULL);
		goto rollback;
	}
	err = direct_register(&cut_direct);
	if (err) {
		/* Ours on try_to_free_pages is not the IPMODIFY user to find. */
		ftrace_unregistered(unregister_ftrace_function(&thpnuma_ops));
		report_register_error(err, &cut_direct);
		goto rollback;
	}
	/*
	 * The allocators' direct call last: from here on faults enter the
	 * replacements, and only thpnuma_hooks_remove() waits for them to
	 * leave.
	 */
	thpnuma_module_text(THIS_MODULE, &thpnuma_text_start,
			    &thpnuma_text_size);
	err = direct_register(&alloc_direct);
	if (err) {
		ftrace_unregistered(direct_unregister(&cut_direct) ?:
				    unregister_ftrace_function(&thpnuma_ops));
		report_register_error(err, &alloc_direct);
		goto rollback;
	}
	return 0;

rollback:
	direct_forget(&alloc_direct);
	direct_forget(&cut_direct);
	thpnuma_ftrace_free_filter(&thpnuma_ops);
	return err;
}

void thpnuma_hooks_remove(void)
{
	ftrace_unregistered(direct_unregister(&alloc_direct) ?:
			    direct_unregister(&cut_direct) ?:
			    unregister_ftrace_function(&thpnuma_ops));
	direct_forget(&alloc_direct);
	direct_forget(&cut_direct);
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

