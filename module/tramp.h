/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tramp.S and C share: the x86_64 struct pt_regs offsets it fills
 * (hook.c checks them at build time), its entry points and the hooks
 * they call.
 */
#ifndef THPNUMA_TRAMP_H
#define THPNUMA_TRAMP_H

#define PTREGS_R9	64
#define PTREGS_R8	72
#define PTREGS_CX	88
#define PTREGS_DX	96
#define PTREGS_SI	104
#define PTREGS_DI	112
#define PTREGS_IP	128
#define PTREGS_SIZE	168

#ifndef __ASSEMBLY__
struct pt_regs;

/* This module's text, where the replacements call the allocator from. */
extern unsigned long thpnuma_text_start, thpnuma_text_size;

void thpnuma_alloc_entry(void);
void thpnuma_alloc_hook_regs(struct pt_regs *regs, unsigned long ret_ip,
			     unsigned long parent_ip);
void thpnuma_cut_entry(void);
void thpnuma_cut_hook_regs(struct pt_regs *regs, unsigned long ret_ip,
			   unsigned long parent_ip);
#endif

#endif /* THPNUMA_TRAMP_H */
