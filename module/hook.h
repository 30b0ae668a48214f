/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooked functions and the THP paths into them: filled in at load
 * (install.c), read on each hooked call (hook.c).
 */
#ifndef THPNUMA_HOOK_H
#define THPNUMA_HOOK_H

#include <linux/ftrace.h>
#include "compat.h"

struct thpnuma_hook {
	const char *name;
	struct ftrace_ops *ops;
	unsigned long start, size;
	bool cut_point;		/* the budget's: hooked only with budget_cut */
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
	HOOK_SHRINK_NODE,
	HOOK_SHRINK_LRUVEC,
	HOOK_SHRINK_ACTIVE,
	HOOK_SWAP_OUT,
#ifdef THPNUMA_MGLRU_EVICT_SYMBOL
	HOOK_EVICT_FOLIOS,
	HOOK_AGING,
#endif
	NR_HOOKS
};

#ifndef THPNUMA_SHMEM_HOOKED_SYMBOL
#define HOOK_SHMEM_ALLOC	HOOK_ALLOC
#endif

extern struct thpnuma_hook thpnuma_hooks[NR_HOOKS];

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

extern struct thp_path thp_paths[NR_PATHS];

/* The ftrace callback of try_to_free_pages() (hook.c). */
void thpnuma_ftrace_callback(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op,
			     struct THPNUMA_FTRACE_REGS *fregs);

#endif /* THPNUMA_HOOK_H */
