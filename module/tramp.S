/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hooked allocators' entry: ftrace calls it directly from their
 * fentry site (a direct call), without its own trampoline, which saves
 * every argument register whatever the callback does. A small-page call
 * returns after two compares while no fault has a pending fallback, and a
 * replacement's own call of the allocator after three. The rest build the
 * pt_regs the hook reads and edits, as ftrace_caller would, and a hook
 * that redirects the call returns into the replacement, which then
 * returns to the allocator's caller.
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

	.text
SYM_FUNC_START(thpnuma_alloc_entry)
	/* Its address is passed around: objtool wants one, if unused. */
	ENDBR
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	/* Reached by a call that no call thunk accounted. */
	CALL_DEPTH_ACCOUNT
#endif
	/* The order: the second argument of every hooked allocator. */
	testl	%esi, %esi
	jnz	.Lthp_order
	cmpl	$0, thpnuma_pending_nr(%rip)
	jnz	.Lhook
	RET
.Lthp_order:
	/*
	 * Called from this module's text: a replacement's kernel allocation.
	 * %rax is free at a function's entry (no hooked one is variadic).
	 */
	movq	8(%rsp), %rax
	subq	thpnuma_text_start(%rip), %rax
	cmpq	thpnuma_text_size(%rip), %rax
	jae	.Lhook
	RET
.Lhook:
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
	/* Our return address is in the allocator, its own is its caller. */
	movq	8(%rbp), %rsi
	movq	16(%rbp), %rdx
	call	thpnuma_alloc_hook_regs
	movq	PTREGS_IP(%rsp), %rax
	movq	PTREGS_DI(%rsp), %rdi
	movq	PTREGS_SI(%rsp), %rsi
	movq	PTREGS_DX(%rsp), %rdx
	movq	PTREGS_CX(%rsp), %rcx
	movq	PTREGS_R8(%rsp), %r8
	movq	PTREGS_R9(%rsp), %r9
	leave
	testq	%rax, %rax
	jz	.Lreturn
	/* Return into the replacement instead of the allocator. */
	movq	%rax, (%rsp)
.Lreturn:
	RET
SYM_FUNC_END(thpnuma_alloc_entry)
