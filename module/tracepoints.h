/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpnuma's trace events: /sys/kernel/tracing/events/thpnuma/. One event
 * per THP fault the hook sees, with the decision and what it cost.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM thpnuma

#if !defined(THPNUMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define THPNUMA_TRACE_H

#include <linux/tracepoint.h>
#include "thpnuma.h"

/*
 * The symbolic names come from the lists in policy.h and counters.h: once
 * as TRACE_DEFINE_ENUM, so that the format file shows the values, and
 * once for __print_symbolic(). THPNUMA_ACT_IGNORE is never traced.
 */
#define THPNUMA_TRACE_DEFINE_ENUM(a, b)	TRACE_DEFINE_ENUM(a);

THPNUMA_POLICIES(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_ACTIONS(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_PASSTHROUGH_REASONS(THPNUMA_TRACE_DEFINE_ENUM,
			    THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_FAULT_RESULTS(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_LOCAL_ATTEMPTS(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_KINDS(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)
THPNUMA_BUDGET_DECISIONS(THPNUMA_TRACE_DEFINE_ENUM, THPNUMA_TRACE_DEFINE_ENUM)

#define THPNUMA_TRACE_SYMBOL(a, b)	{ a, b },
#define THPNUMA_TRACE_SYMBOL_LAST(a, b)	{ a, b }
#define THPNUMA_TRACE_SYMBOLS(list) \
	list(THPNUMA_TRACE_SYMBOL, THPNUMA_TRACE_SYMBOL_LAST)

TRACE_EVENT(thp_fault,

	TP_PROTO(const struct thpnuma_fault_record *r),

	TP_ARGS(r),

	TP_STRUCT__entry(
		__field(pid_t,		pid)
		__field(int,		node)
		__field(int,		nid)
		__field(u8,		policy)
		__field(u8,		zone_reclaim)
		__field(u8,		override)
		__field(u8,		action)
		__field(u8,		reason)
		__field(u8,		result)
		__field(u8,		local_attempt)
		__field(u8,		kind)
		__field(u8,		order)
		__field(unsigned int,	compact_stall)
		__field(unsigned int,	compact_success)
		__field(unsigned int,	reclaim_stall)
		__field(unsigned long,	reclaim_pages)
		__field(u64,		alloc_ns)
		__field(unsigned int,	budget_us)
		__field(u8,		budget)
		__field(u64,		local_ns)
		__field(u64,		effort_ns)
	),

	TP_fast_assign(
		__entry->pid		= current->tgid;
		__entry->node		= r->node;
		__entry->nid		= r->nid;
		__entry->policy		= r->policy;
		__entry->zone_reclaim	= r->zone_reclaim;
		__entry->override	= r->override;
		__entry->action		= r->action;
		__entry->reason		= r->reason;
		__entry->result		= r->result;
		__entry->local_attempt	= r->local_attempt;
		__entry->kind		= r->kind;
		__entry->order		= r->order;
		__entry->compact_stall	= r->compact_stall;
		__entry->compact_success = r->compact_success;
		__entry->reclaim_stall	= r->reclaim_stall;
		__entry->reclaim_pages	= r->reclaim_pages;
		__entry->alloc_ns	= r->alloc_ns;
		__entry->budget_us	= r->budget_us;
		__entry->budget		= r->budget;
		__entry->local_ns	= r->local_ns;
		__entry->effort_ns	= r->effort_ns;
	),

	TP_printk("pid=%d node=%d policy=%s zone_reclaim=%u override=%u action=%s reason=%s kind=%s order=%u result=%s nid=%d local_attempt=%s compact_stall=%u compact_success=%u reclaim_stall=%u reclaim_pages=%lu alloc_ns=%llu budget_us=%u budget=%s local_ns=%llu effort_ns=%llu",
		  __entry->pid, __entry->node,
		  __print_symbolic(__entry->policy, THPNUMA_TRACE_SYMBOLS(THPNUMA_POLICIES)),
		  __entry->zone_reclaim, __entry->override,
		  __print_symbolic(__entry->action, THPNUMA_TRACE_SYMBOLS(THPNUMA_ACTIONS)),
		  __print_symbolic(__entry->reason, THPNUMA_TRACE_SYMBOLS(THPNUMA_PASSTHROUGH_REASONS)),
		  __print_symbolic(__entry->kind, THPNUMA_TRACE_SYMBOLS(THPNUMA_KINDS)),
		  __entry->order,
		  __print_symbolic(__entry->result, THPNUMA_TRACE_SYMBOLS(THPNUMA_FAULT_RESULTS)),
		  __entry->nid,
		  __print_symbolic(__entry->local_attempt,
			THPNUMA_TRACE_SYMBOLS(THPNUMA_LOCAL_ATTEMPTS)),
		  __entry->compact_stall, __entry->compact_success,
		  __entry->reclaim_stall, __entry->reclaim_pages,
		  __entry->alloc_ns, __entry->budget_us,
		  __print_symbolic(__entry->budget,
			THPNUMA_TRACE_SYMBOLS(THPNUMA_BUDGET_DECISIONS)),
		  __entry->local_ns, __entry->effort_ns)
);

#endif /* THPNUMA_TRACE_H */

/* Out of tree: define_trace.h finds this file through -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE tracepoints
#include <trace/define_trace.h>
