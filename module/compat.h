/* SPDX-License-Identifier: GPL-2.0 */
/* Differences between the supported kernels, in one place. */
#ifndef THPNUMA_COMPAT_H
#define THPNUMA_COMPAT_H

#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/version.h>

#ifndef CONFIG_X86_64
#error "thpnuma supports x86_64 only: the hook edits argument registers"
#endif
/*
 * The fork and exit tracepoints run with preemption off, and the override
 * table takes a spinlock and allocates there: both sleep on PREEMPT_RT.
 */
#ifdef CONFIG_PREEMPT_RT
#error "thpnuma does not support PREEMPT_RT kernels (-rt flavours): its fork/exit probes lock and allocate with preemption disabled"
#endif
/*
 * The hook reads and edits argument registers and redirects the call:
 * ftrace_regs with the arguments (5.11+), or before ftrace_regs, the full
 * pt_regs that only DYNAMIC_FTRACE_WITH_REGS saves.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#error "thpnuma needs ftrace_regs with arguments (DYNAMIC_FTRACE_WITH_ARGS)"
#endif
#elif !defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#error "thpnuma needs ftrace with saved registers (DYNAMIC_FTRACE_WITH_REGS)"
#endif

/* A module's core text (MOD_TEXT since 6.4, the core layout before). */
static inline void thpnuma_module_text(struct module *mod,
				       unsigned long *start,
				       unsigned long *size)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	*start = (unsigned long)mod->mem[MOD_TEXT].base;
	*size = mod->mem[MOD_TEXT].size;
#else
	*start = (unsigned long)mod->core_layout.base;
	*size = mod->core_layout.text_size;
#endif
}

/*
 * The hooked allocator and what it returns (struct thpnuma_thp). The
 * replacements take its registers: after (gfp, order, vma, addr) come the
 * raw arg4 and arg5, which only the one that leaves the call to the kernel
 * reads, each as the type the kernel gave it (an int or a bool fills only
 * the low bits of its register). THPNUMA_HUGEPAGE_ARG: the argument that
 * says a THP fault allocates, or -1 where the order alone says it.
 *
 * Memory allocation profiling (6.10) renamed the exported allocators to
 * *_noprof; the caller's alloc_hooks() has already set the tag, so the
 * replacement calls the _noprof variants and keeps the caller's attribution.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define thpnuma_thp			folio
#define thpnuma_thp_nid			folio_nid
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define THPNUMA_HOOKED_SYMBOL		"vma_alloc_folio_noprof"
#define thpnuma_thp_alloc		__folio_alloc_noprof
/* 6.10+ ignores "hugepage"; mTHP passes true too, so order decides. */
#define THPNUMA_HUGEPAGE_ARG		(-1)
#else
#define THPNUMA_HOOKED_SYMBOL		"vma_alloc_folio"
#define thpnuma_thp_alloc		__folio_alloc
/* vma_alloc_folio(gfp, order, vma, addr, hugepage) */
#define THPNUMA_HUGEPAGE_ARG		4
#endif
static inline struct folio *
thpnuma_kernel_alloc(gfp_t gfp, int order, struct vm_area_struct *vma,
		     unsigned long addr, unsigned long arg4, unsigned long arg5)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	/* 6.13 removed the unused "hugepage" argument (6359c39c9de6). */
	return vma_alloc_folio_noprof(gfp, order, vma, addr);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return vma_alloc_folio_noprof(gfp, order, vma, addr, (u8)arg4);
#else
	return vma_alloc_folio(gfp, order, vma, addr, (u8)arg4);
#endif
}
#elif LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
/*
 * Before folios the THP fault allocates a compound page with
 * alloc_pages_vma(gfp, order, vma, addr, node, hugepage) and runs
 * prep_transhuge_page() on it itself; "node" is numa_node_id().
 */
#define THPNUMA_HOOKED_SYMBOL		"alloc_pages_vma"
#define thpnuma_thp			page
#define thpnuma_thp_nid			page_to_nid
#define thpnuma_thp_alloc		__alloc_pages_nodemask
#define THPNUMA_HUGEPAGE_ARG		5
static inline struct page *
thpnuma_kernel_alloc(gfp_t gfp, int order, struct vm_area_struct *vma,
		     unsigned long addr, unsigned long arg4, unsigned long arg5)
{
	return alloc_pages_vma(gfp, order, vma, addr, (int)arg4, (u8)arg5);
}
#else
/* Between the two, the allocators were renamed more than once. */
#error "thpnuma supports Linux 5.10 and 6.1 or later, not the series between"
#endif

/*
 * shmem/tmpfs huge pages. Before 6.8 they come from the hooked allocator,
 * called with a pseudo-VMA whose vm_policy is the file's shared policy.
 * Since 6.8 shmem_alloc_folio(gfp, order, info, index) allocates them
 * itself with folio_alloc_mpol(): the hook is on it, a second hooked
 * function, so that anonymous faults do not pay for a second callback.
 * Its kernel policy replacement allocates as it would, through
 * vma_alloc_folio_noprof() and a pseudo-VMA without a policy: the task's
 * policy, the faulting CPU's node, the same THP first attempt. It runs
 * only for allocations without an explicit mempolicy.
 *
 * The shmem callers: the first of each list this kernel has (the second
 * is what the first is inlined into). Multi-size anonymous THP (6.8):
 * alloc_anon_folio() calls the hooked allocator with orders below PMD.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#include <linux/mempolicy.h>
#include <linux/mm_types.h>
#include <linux/rbtree.h>
#include <linux/shmem_fs.h>

#define THPNUMA_SHMEM_HOOKED_SYMBOL	"shmem_alloc_folio"
#define THPNUMA_SHMEM_CALLERS		"shmem_alloc_and_add_folio"
#define THPNUMA_MTHP_FAULT_CALLERS	"alloc_anon_folio", "do_anonymous_page"

/*
 * Whether the file has a policy of its own at the index (arg3): what
 * mpol_shared_policy_lookup() finds, which modules may not call.
 */
static inline bool thpnuma_shmem_has_policy(unsigned long arg2,
					    unsigned long arg3)
{
	struct shared_policy *sp = &((struct shmem_inode_info *)arg2)->policy;
	struct rb_node *n;

	if (!READ_ONCE(sp->root.rb_node))
		return false;
	read_lock(&sp->lock);
	n = sp->root.rb_node;
	while (n) {
		struct sp_node *p = rb_entry(n, struct sp_node, nd);

		if (arg3 >= p->end)
			n = n->rb_right;
		else if (arg3 < p->start)
			n = n->rb_left;
		else
			break;
	}
	read_unlock(&sp->lock);
	return n;
}

/*
 * shmem_alloc_folio() sets the allocation tag itself (alloc_hooks()), so
 * with CONFIG_MEM_ALLOC_PROFILING, which Debian leaves off, the
 * replacements' shmem folios are untagged.
 */
static inline struct folio *
thpnuma_shmem_kernel_alloc(gfp_t gfp, int order, unsigned long arg2,
			   unsigned long arg3, unsigned long arg4,
			   unsigned long arg5)
{
	struct vm_area_struct pvma = {};

	return thpnuma_kernel_alloc(gfp, order, &pvma, 0, 0, 0);
}
#else
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
#define THPNUMA_SHMEM_CALLERS		"shmem_alloc_hugefolio", \
					"shmem_alloc_and_acct_folio"
#else
#define THPNUMA_SHMEM_CALLERS		"shmem_alloc_hugepage", \
					"shmem_alloc_and_acct_page"
#endif

/* The pseudo-VMA's policy is the file's own at that index, or NULL. */
static inline bool thpnuma_shmem_has_policy(unsigned long arg2,
					    unsigned long arg3)
{
	return ((struct vm_area_struct *)arg2)->vm_policy;
}

static inline struct thpnuma_thp *
thpnuma_shmem_kernel_alloc(gfp_t gfp, int order, unsigned long arg2,
			   unsigned long arg3, unsigned long arg4,
			   unsigned long arg5)
{
	return thpnuma_kernel_alloc(gfp, order,
				    (struct vm_area_struct *)arg2, arg3,
				    arg4, arg5);
}
#endif

/*
 * The function whose calls to the hooked one are THP faults. Since 6.13
 * (ebcfc63d6bca) the PMD folio comes from vma_alloc_anon_folio_pmd(), which
 * serves the anonymous fault and the huge zero page's write fault
 * (1ced09e0331f); before, do_huge_pmd_anonymous_page() called it itself.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define THPNUMA_THP_FAULT_SYMBOL	"vma_alloc_anon_folio_pmd"
#else
#define THPNUMA_THP_FAULT_SYMBOL	"do_huge_pmd_anonymous_page"
#endif

/*
 * Anonymous swap-in as a large folio (6.12, from SWP_SYNCHRONOUS_IO
 * devices such as zram, while zswap has never been enabled) allocates
 * through the hooked allocator with the fault's THP gfp and steps down
 * through the orders like an mTHP fault: alloc_swap_folio() (inlined
 * into do_swap_page()); since 7.2 __swap_cache_alloc() (inlined into
 * swap_cache_alloc_folio()), whose small-page swap-ins from such devices
 * also come here (readahead swap-ins allocate with folio_alloc_mpol()).
 * shmem's large swap-in allocates with folio_alloc_mpol(), which is not
 * hooked: the kernel places it, uncounted.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define THPNUMA_SWAPIN_CALLERS		"__swap_cache_alloc", \
					"swap_cache_alloc_folio"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define THPNUMA_SWAPIN_CALLERS		"alloc_swap_folio", "do_swap_page"
#endif

/*
 * MGLRU (6.1 on, where built; Debian builds it): its eviction and its
 * aging, which the budget cuts too.
 */
#ifdef CONFIG_LRU_GEN
#define THPNUMA_MGLRU_EVICT_SYMBOL	"evict_folios"
#define THPNUMA_MGLRU_AGING_SYMBOL	"try_to_inc_max_seq"
#endif

/*
 * Where reclaim adds a page it chose to swap out to the swap cache, and
 * what that function returns when it does not: 5.10's add_to_swap()
 * returns int, 0 on failure; 6.1's and 6.12's bool; 7.2's and 7.3's
 * folio_alloc_swap() returns 0 on success and -ENOMEM without swap
 * space. The budget policy refuses it to an attempt past its budget.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#define THPNUMA_SWAP_OUT_SYMBOL		"folio_alloc_swap"
#define THPNUMA_SWAP_OUT_REFUSED	(-ENOMEM)
#else
#define THPNUMA_SWAP_OUT_SYMBOL		"add_to_swap"
#define THPNUMA_SWAP_OUT_REFUSED	0
#endif

/*
 * Kernel functions that call a hooked one with THP orders outside any
 * fault, left to the kernel: page migration under mbind() before 6.12
 * (new_page() in mm/mempolicy.c), and shmem's copy of a swapped-in folio
 * into another zone (shmem_replace_folio(), inlined into
 * shmem_swapin_folio() in Debian's builds). Any other caller of a THP
 * order is unmatched: a livepatched copy of a fault path, whose faults
 * the policy then misses, or a driver (7.2's GPU SVM migrates device
 * memory back into folios of up to PMD order).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define THPNUMA_OTHER_CALLERS		"shmem_replace_folio", \
					"shmem_swapin_folio"
#else
#define THPNUMA_OTHER_CALLERS		"new_page"
#endif

/*
 * sched_process_exit gained "bool group_dead" in 6.16 (3e816361e94a); a
 * probe must have the tracepoint's prototype (kCFI checks it).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define THPNUMA_EXIT_PROBE_ARGS(task) \
	struct task_struct *task, bool group_dead
#else
#define THPNUMA_EXIT_PROBE_ARGS(task)	struct task_struct *task
#endif

/* sysfs passes bin_attribute callbacks a const attribute since 6.16. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define THPNUMA_BIN_ATTR_CONST		const
#else
#define THPNUMA_BIN_ATTR_CONST
#endif

/*
 * The registers ftrace saved for the callback. Without SAVE_REGS (a
 * cheaper trampoline on every anonymous fault), x86 still saves the
 * argument registers and the ip, and restores them after the callback:
 * enough to read and edit arguments and to redirect the call. 6.12 made
 * ftrace_regs opaque behind arch_ftrace_regs().
 *
 * Before ftrace_regs (5.11), the callback gets pt_regs, which ftrace saves
 * only for a SAVE_REGS ops (IPMODIFY requires it), and the flag that
 * spares the callback ftrace's recursion wrapper is RECURSION_SAFE (5.11
 * inverted it into RECURSION).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define THPNUMA_FTRACE_REGS		ftrace_regs
#define THPNUMA_FTRACE_FLAGS		0
static __always_inline struct pt_regs *
thpnuma_ftrace_regs(struct ftrace_regs *fregs)
{
#ifdef arch_ftrace_regs
	return &arch_ftrace_regs(fregs)->regs;
#else
	return &fregs->regs;
#endif
}
#else
#define THPNUMA_FTRACE_REGS		pt_regs
#define THPNUMA_FTRACE_FLAGS		(FTRACE_OPS_FL_SAVE_REGS | \
					 FTRACE_OPS_FL_RECURSION_SAFE)
static __always_inline struct pt_regs *thpnuma_ftrace_regs(struct pt_regs *regs)
{
	return regs;
}
#endif

/*
 * Drop every function from an ops' filter. 5.10 does not export
 * ftrace_free_filter(); a resetting ftrace_set_filter() frees the same.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define thpnuma_ftrace_free_filter	ftrace_free_filter
#else
static inline void thpnuma_ftrace_free_filter(struct ftrace_ops *ops)
{
	ftrace_set_filter(ops, NULL, 0, 1);
}
#endif

/*
 * A direct call (tramp.S), on every function in @ops' filter. 6.5 gave
 * register_ftrace_direct() an ops, as 6.1's _multi variant; 5.10 takes
 * one function at a time, by address (before IBT, its fentry site is its
 * first instruction).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define thpnuma_register_direct_ops	register_ftrace_direct
#define thpnuma_unregister_direct_ops(ops, addr) \
	unregister_ftrace_direct(ops, addr, false)
#else
#define thpnuma_register_direct_ops	register_ftrace_direct_multi
#define thpnuma_unregister_direct_ops	unregister_ftrace_direct_multi
#endif
static inline int thpnuma_direct_register(struct ftrace_ops *ops,
					  unsigned long addr,
					  const unsigned long *funcs,
					  unsigned int nr)
{
	return thpnuma_register_direct_ops(ops, addr);
}

static inline int thpnuma_direct_unregister(struct ftrace_ops *ops,
					    unsigned long addr,
					    const unsigned long *funcs,
					    unsigned int nr)
{
	return thpnuma_unregister_direct_ops(ops, addr);
}
#else
static inline int thpnuma_direct_unregister(struct ftrace_ops *ops,
					    unsigned long addr,
					    const unsigned long *funcs,
					    unsigned int nr)
{
	int err = 0;

	while (nr--)
		err = unregister_ftrace_direct(funcs[nr], addr) ?: err;
	/*
	 * 5.10 waits for RCU-tasks only in the call that drops the last site
	 * of @addr, so not at all if one of them failed: wait here, so that
	 * on return no task is between tramp.S and a replacement's in-flight
	 * count, as after the ops API's unregistration.
	 */
	synchronize_rcu_tasks();
	return err;
}

static inline int thpnuma_direct_register(struct ftrace_ops *ops,
					  unsigned long addr,
					  const unsigned long *funcs,
					  unsigned int nr)
{
	unsigned int i;
	int err;

	for (i = 0; i < nr; i++) {
		err = register_ftrace_direct(funcs[i], addr);
		if (err) {
			thpnuma_direct_unregister(ops, addr, funcs, i);
			return err;
		}
	}
	return 0;
}
#endif

/* Argument registers of a traced function, from ftrace's saved regs. */
static __always_inline unsigned long thpnuma_arg(struct pt_regs *regs,
						 unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/* x86_64 SysV: the second and third arguments live in %rsi and %rdx. */
static __always_inline void thpnuma_set_arg1(struct pt_regs *regs,
					     unsigned long val)
{
	regs->si = val;
}

static __always_inline void thpnuma_set_arg2(struct pt_regs *regs,
					     unsigned long val)
{
	regs->dx = val;
}

int thpnuma_lookup_function(const char *name, unsigned long *start,
			    unsigned long *size);
bool thpnuma_calls_directly(unsigned long caller, unsigned long size,
			    unsigned long callee);

#endif /* THPNUMA_COMPAT_H */
