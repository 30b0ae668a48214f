/* SPDX-License-Identifier: GPL-2.0 */
/* Differences between the supported kernels, in one place. */
#ifndef THPNUMA_COMPAT_H
#define THPNUMA_COMPAT_H

#include <linux/ftrace.h>
#include <linux/gfp.h>
#include <linux/ptrace.h>
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
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#error "thpnuma needs ftrace_regs with arguments (DYNAMIC_FTRACE_WITH_ARGS)"
#endif

/*
 * Memory allocation profiling (6.10) renamed the exported allocators to
 * *_noprof; the caller's alloc_hooks() has already set the tag, so the
 * replacement calls the _noprof variants and keeps the caller's attribution.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define THPNUMA_HOOKED_SYMBOL		"vma_alloc_folio_noprof"
/*
 * 6.13 removed the unused "hugepage" argument (6359c39c9de6). The
 * replacements keep the 5-argument prototype; the fifth is never read.
 */
static inline struct folio *
thpnuma_kernel_vma_alloc_folio(gfp_t gfp, int order, struct vm_area_struct *vma,
			       unsigned long addr, bool hugepage)
{
	return vma_alloc_folio_noprof(gfp, order, vma, addr);
}
#define thpnuma_folio_alloc		__folio_alloc_noprof
#define thpnuma_hugepage_arg_matters	false
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define THPNUMA_HOOKED_SYMBOL		"vma_alloc_folio_noprof"
#define thpnuma_kernel_vma_alloc_folio	vma_alloc_folio_noprof
#define thpnuma_folio_alloc		__folio_alloc_noprof
/* 6.10+ ignores "hugepage"; mTHP passes true too, so order decides. */
#define thpnuma_hugepage_arg_matters	false
#else
#define THPNUMA_HOOKED_SYMBOL		"vma_alloc_folio"
#define thpnuma_kernel_vma_alloc_folio	vma_alloc_folio
#define thpnuma_folio_alloc		__folio_alloc
#define thpnuma_hugepage_arg_matters	true
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
 * sched_process_exit gained "bool group_dead" in 6.16 (3e816361e94a); a
 * probe must have the tracepoint's prototype (kCFI checks it).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define THPNUMA_EXIT_PROBE_ARGS(task) \
	struct task_struct *task, bool group_dead
#else
#define THPNUMA_EXIT_PROBE_ARGS(task)	struct task_struct *task
#endif

/*
 * The registers ftrace saved for the callback. Without SAVE_REGS (a
 * cheaper trampoline on every anonymous fault), x86 still saves the
 * argument registers and the ip, and restores them after the callback:
 * enough to read and edit arguments and to redirect the call. 6.12 made
 * ftrace_regs opaque behind arch_ftrace_regs().
 */
static __always_inline struct pt_regs *
thpnuma_ftrace_regs(struct ftrace_regs *fregs)
{
#ifdef arch_ftrace_regs
	return &arch_ftrace_regs(fregs)->regs;
#else
	return &fregs->regs;
#endif
}

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
