/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooked functions' entries: ftrace calls them directly from the
 * functions' fentry site (a direct call), without its own trampoline,
 * which saves every argument register whatever the callback does.
 *
 * The allocators' entry returns after two compares for a small-page call
 * while no fault has a pending fallback, and for a replacement's own call
 * of the allocator after three. The budget's cut points in reclaim return
 * after one while no budget attempt has a deadline. The rest build the
 * pt_regs the hook reads and edits, as ftrace_caller would, and a hook
 * that redirects the call returns into the replacement, which then
 * returns to the hooked function's caller.
 */
#include <linux/linkage.h>
#include <linux/version.h>
#include <asm/nospec-branch.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#include <asm/ibt.h>
#else
#define ENDBR
#endif
#include "tramp.h"

.macro DIRECT_ENTRY
	/* Its address is passed around: objtool wants one, if unused. */
	ENDBR
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	/* Reached by a call that no call thunk accounted. */
	CALL_DEPTH_ACCOUNT
#endif
.endm

/*
 * hook(regs, ret_ip, parent_ip): our return address is in the hooked
 * function, its own is its caller.
 */
.macro CALL_HOOK hook:req
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$PTREGS_SIZE, %rsp
	movq	%rdi, PTREGS_DI(%rsp)
	movq	%rsi, PTREGS_SI(%rsp)
	movq	%rdx, PTREGS_DX(%rsp)
	movq	%rcx, PTREGS_CX(%rsp)
	movq	%r8, PTREGS_R8(%rsp)
	movq	%r9, PTREGS_R9(%rsp)
	movq	$0, PTREGS_IP(%rsp)
	movq	%rsp, %rdi
	movq	8(%rbp), %rsi
	movq	16(%rbp), %rdx
	call	\hook
	movq	PTREGS_IP(%rsp), %rax
	movq	PTREGS_DI(%rsp), %rdi
	movq	PTREGS_SI(%rsp), %rsi
	movq	PTREGS_DX(%rsp), %rdx
	movq	PTREGS_CX(%rsp), %rcx
	movq	PTREGS_R8(%rsp), %r8
	movq	PTREGS_R9(%rsp), %r9
	leave
	testq	%rax, %rax
	jz	1f
	/* Return into the replacement instead of the hooked function. */
	movq	%rax, (%rsp)
1:
	RET
.endm

	.text
SYM_FUNC_START(thpnuma_alloc_entry)
	DIRECT_ENTRY
	/* The order: the second argument of every hooked allocator. */
	testl	%esi, %esi
	jnz	.Lthp_order
	cmpl	$0, thpnuma_pending_nr(%rip)
	jnz	.Lalloc_hook
	RET
.Lthp_order:
	/*
	 * Called from this module's text: a replacement's kernel allocation.
	 * %rax is free at a function's entry (no hooked one is variadic).
	 */
	movq	8(%rsp), %rax
	subq	thpnuma_text_start(%rip), %rax
	cmpq	thpnuma_text_size(%rip), %rax
	jae	.Lalloc_hook
	RET
.Lalloc_hook:
	CALL_HOOK thpnuma_alloc_hook_regs
SYM_FUNC_END(thpnuma_alloc_entry)

SYM_FUNC_START(thpnuma_cut_entry)
	DIRECT_ENTRY
	cmpl	$0, thpnuma_budget_deadlines(%rip)
	jnz	.Lcut_hook
	RET
.Lcut_hook:
	CALL_HOOK thpnuma_cut_hook_regs
SYM_FUNC_END(thpnuma_cut_entry)
