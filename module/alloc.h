/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replacement allocators: where the hook sends a THP allocation it
 * decided, and the reclaim hook that holds a local attempt to its bits.
 */
#ifndef THPNUMA_ALLOC_H
#define THPNUMA_ALLOC_H

#include <linux/atomic.h>
#include <linux/ptrace.h>
#include "thpnuma.h"

/*
 * The callback hands its decision to the replacement in the order argument
 * register: the configuration it decided under, the order and kind of the
 * allocation, whether a per-process override or a cgroup's setting chose
 * it (and which of them), and above them the node it decided for. One
 * override lookup per fault, and the replacement carries out exactly what
 * was decided even if the configuration changes, or the task moves to
 * another node's CPU, in between.
 */
#define DECIDED_BY_CGROUP	(1u << 24)
#define DECIDED_ORDER_SHIFT	25
#define DECIDED_ORDER_MASK	0xfu
#define DECIDED_KIND_SHIFT	29
#define DECIDED_KIND_MASK	0x3u
#define DECIDED_BY_OVERRIDE	(1u << 31)
/* Bits 32-51 are the config word's budget_us. */
#define DECIDED_NODE_SHIFT	52

static_assert(THPNUMA_NR_KINDS <= DECIDED_KIND_MASK + 1);
static_assert(THPNUMA_MAX_THP_ORDER <= DECIDED_ORDER_MASK);
static_assert(CFG_BUDGET_SHIFT + 20 <= DECIDED_NODE_SHIFT);
static_assert(MAX_NUMNODES <= 1ul << (64 - DECIDED_NODE_SHIFT));

static inline unsigned long thpnuma_decided(u64 config, unsigned int order,
					    unsigned int kind, bool overridden,
					    bool by_cgroup, int node)
{
	config &= ~(u64)THPNUMA_CFG_LOOKUPS;	/* not the budget above */
	config |= (u64)order << DECIDED_ORDER_SHIFT |
		  (u64)kind << DECIDED_KIND_SHIFT;
	if (overridden)
		config |= DECIDED_BY_OVERRIDE;
	if (by_cgroup)
		config |= DECIDED_BY_CGROUP;
	return (unsigned long)node << DECIDED_NODE_SHIFT | config;
}

/* The replacement that carries out @action; 0 for none (the kernel's). */
unsigned long thpnuma_replacement(enum thpnuma_action action);

/* try_to_free_pages(): a local attempt reclaims only what its bits allow. */
void thpnuma_reclaim_hook(struct pt_regs *regs);
/* Budget attempts whose reclaim may be cut (tramp.S reads it). */
extern atomic_t thpnuma_budget_deadlines;
/* A cut point (@swap_out: the swap-out), in a budget attempt. */
void thpnuma_budget_cut_hook(struct pt_regs *regs, bool swap_out);

#endif /* THPNUMA_ALLOC_H */
