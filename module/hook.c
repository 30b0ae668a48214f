// SPDX-License-Identifier: GPL-2.0
/*
 * The THP fault allocation hook and the probes that observe compaction and
 * reclaim on behalf of hooked allocations.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuset.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/huge_mm.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/list_bl.h>
#include <linux/log2.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/compaction.h>
#include <linux/mmzone.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "compat.h"
#include "thpnuma.h"
#define CREATE_TRACE_POINTS
#include "tracepoints.h"

/*
 * Hooked allocations in flight, so the reclaim hook and the probes can tell
 * ours from everyone else's. Each lives on its allocating task's stack for
 * exactly as long as the allocation, published in a hash keyed by the task:
 * no capacity to run out of, and a lookup that reads one bucket head when
 * no hooked allocation of a task hashing there is in flight. Only the owner
 * ever adds, finds or removes its own entry; the bucket lock keeps the
 * others' entries (on other stacks) stable while a chain is walked.
 */
#define NO_LOCAL_ATTEMPT	(-1)

struct inflight_alloc {
	struct hlist_bl_node hash;
	struct task_struct *task;
	int local_effort;	/* zone_reclaim during the local attempt */
	int reclaim_node;	/* first node direct reclaim scanned */
	/* The faulting CPU's node and what the fault cost, as traced. */
	struct thpnuma_fault_record record;
};

/* Enough buckets that a chain stays short with every CPU faulting. */
#define INFLIGHT_MIN_BUCKETS	1024

static struct hlist_bl_head *inflight_buckets;
static unsigned int inflight_bits;
/* Faults that tried THP orders in vain, by task, sized like the above. */
static struct hlist_bl_head *pending_buckets;

/* Tasks inside a replacement function; the sum over CPUs is exact. */
static DEFINE_PER_CPU(long, thpnuma_inflight);

/* Lets the VM tests name a caller that differs, to see the load refuse. */
static char *test_thp_fault_caller;
module_param(test_thp_fault_caller, charp, 0);
MODULE_PARM_DESC(test_thp_fault_caller,
		 "For tests only: filter on this function instead of the kernel's THP fault path");

static struct hlist_bl_head *inflight_bucket(struct task_struct *task)
{
	return &inflight_buckets[hash_ptr(task, inflight_bits)];
}

static struct hlist_bl_head *pending_bucket(struct task_struct *task)
{
	return &pending_buckets[hash_ptr(task, inflight_bits)];
}

static void inflight_enter(struct inflight_alloc *alloc)
{
	struct hlist_bl_head *head = inflight_bucket(current);

	alloc->task = current;
	alloc->local_effort = NO_LOCAL_ATTEMPT;
	alloc->reclaim_node = NUMA_NO_NODE;
	hlist_bl_lock(head);
	hlist_bl_add_head(&alloc->hash, head);
	hlist_bl_unlock(head);
}

static void inflight_exit(struct inflight_alloc *alloc)
{
	struct hlist_bl_head *head = inflight_bucket(alloc->task);

	hlist_bl_lock(head);
	hlist_bl_del(&alloc->hash);
	hlist_bl_unlock(head);
}

/* Compaction and reclaim: the current task's hooked allocation, if any. */
static struct inflight_alloc *inflight_find(void)
{
	struct hlist_bl_head *head = inflight_bucket(current);
	struct inflight_alloc *alloc, *found = NULL;
	struct hlist_bl_node *pos;

	/*
	 * Lockless: an entry of ours was added by this task, so it is
	 * visible here; anyone else's is not what we look for.
	 */
	if (hlist_bl_empty(head))
		return NULL;
	hlist_bl_lock(head);
	hlist_bl_for_each_entry(alloc, pos, head, hash) {
		if (alloc->task == current) {
			found = alloc;
			break;
		}
	}
	hlist_bl_unlock(head);
	return found;
}

static void inflight_free(void)
{
	kvfree(pending_buckets);
	kvfree(inflight_buckets);
	pending_buckets = NULL;
	inflight_buckets = NULL;
}

static int inflight_init(void)
{
	unsigned int nr = max_t(unsigned int, 4 * num_possible_cpus(),
				INFLIGHT_MIN_BUCKETS);

	inflight_bits = order_base_2(nr);
	inflight_buckets = kvcalloc(1u << inflight_bits,
				    sizeof(*inflight_buckets), GFP_KERNEL);
	pending_buckets = kvcalloc(1u << inflight_bits,
				   sizeof(*pending_buckets), GFP_KERNEL);
	if (!inflight_buckets || !pending_buckets) {
		inflight_free();
		return -ENOMEM;
	}
	return 0;
}

/*
 * mTHP and shmem faults try their enabled orders from the largest down and
 * end on a small page: one fault, several calls. A failed attempt leaves a
 * pending fallback for its task; the fault's next attempt takes it over,
 * and a success counts only what the kernel finally mapped. The small
 * page's allocation, the task's next order-0 call of a hooked function,
 * counts the fallback once, at the largest order the fault tried.
 */
struct pending_fallback {
	struct hlist_bl_node hash;
	struct task_struct *task;
	unsigned int policy;
	unsigned int last_order;	/* the fault's latest failed attempt */
	/* The fault's first attempt; alloc_ns sums every attempt. */
	struct thpnuma_fault_record record;
};

/* The current task's pending fallback, taken out of the table. */
static struct pending_fallback *pending_take(void)
{
	struct hlist_bl_head *head = pending_bucket(current);
	struct pending_fallback *p, *found = NULL;
	struct hlist_bl_node *pos;

	if (hlist_bl_empty(head))
		return NULL;
	hlist_bl_lock(head);
	hlist_bl_for_each_entry(p, pos, head, hash) {
		if (p->task == current) {
			hlist_bl_del(&p->hash);
			found = p;
			break;
		}
	}
	hlist_bl_unlock(head);
	return found;
}

static void pending_put(struct pending_fallback *p)
{
	struct hlist_bl_head *head = pending_bucket(current);

	p->task = current;
	hlist_bl_lock(head);
	hlist_bl_add_head(&p->hash, head);
	hlist_bl_unlock(head);
}

/* Unload, with no hooked call left: faults cut short count nothing. */
static void pending_free_all(void)
{
	struct pending_fallback *p;
	struct hlist_bl_node *pos, *n;
	unsigned int i;

	for (i = 0; i < 1u << inflight_bits; i++) {
		hlist_bl_for_each_entry_safe(p, pos, n, &pending_buckets[i],
					     hash) {
			hlist_bl_del(&p->hash);
			kfree(p);
		}
	}
}

static struct thpnuma_thp *alloc_strict_local(gfp_t gfp, int order, int local)
{
	return thpnuma_thp_alloc(gfp | __GFP_THISNODE, order, local, NULL);
}

static struct thpnuma_thp *alloc_local_then_remote(gfp_t gfp, int order,
						   int local,
						   unsigned int zone_reclaim,
						   struct inflight_alloc *inflight)
{
	struct thpnuma_local_effort effort = thpnuma_local_effort(zone_reclaim);
	gfp_t local_gfp = gfp | __GFP_THISNODE;
	struct thpnuma_thp *thp = NULL;
	nodemask_t remote;

	/*
	 * Without reclaim bits: compaction only. NORETRY alone still allows
	 * one reclaim round on kernels before the 2026 page allocator change,
	 * so the reclaim hook refuses that round. With reclaim bits, one full
	 * round of local reclaim runs, restricted to what the bits allow.
	 */
	if (!effort.reclaim)
		local_gfp |= __GFP_NORETRY;
	if (!effort.wake_kswapd)
		local_gfp &= ~__GFP_KSWAPD_RECLAIM;

	if (node_isset(local, cpuset_current_mems_allowed)) {
		inflight->local_effort = zone_reclaim;
		thp = thpnuma_thp_alloc(local_gfp, order, local, NULL);
		inflight->local_effort = NO_LOCAL_ATTEMPT;
		if (thp) {
			inflight->record.local_attempt = THPNUMA_LOCAL_SUCCEEDED;
			return thp;
		}
		inflight->record.local_attempt = THPNUMA_LOCAL_FAILED;
	}

	/* The local zonelist minus the local node: remote nodes by distance. */
	nodes_and(remote, cpuset_current_mems_allowed, node_states[N_MEMORY]);
	node_clear(local, remote);
	if (nodes_empty(remote))
		return NULL;
	return thpnuma_thp_alloc(gfp, order, local, &remote);
}

/* The policy whose decision an action carries out. */
static unsigned int action_policy(enum thpnuma_action action)
{
	switch (action) {
	case THPNUMA_ACT_STRICT_LOCAL:
		return THPNUMA_POLICY_STRICT_LOCAL;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		return THPNUMA_POLICY_LOCAL_THEN_REMOTE;
	default:
		return THPNUMA_POLICY_KERNEL;
	}
}

/*
 * The callback hands its decision to the replacement in the order argument
 * register: the configuration it decided under, the order and kind of the
 * allocation, this bit when a per-process override chose it, and above
 * them the node it decided for. One override lookup per fault, and the
 * replacement carries out exactly what was decided even if the
 * configuration changes, or the task moves to another node's CPU, in
 * between.
 */
#define DECIDED_ORDER_SHIFT	25
#define DECIDED_ORDER_MASK	0xfu
#define DECIDED_KIND_SHIFT	29
#define DECIDED_KIND_MASK	0x1u
#define DECIDED_BY_OVERRIDE	(1u << 31)
#define DECIDED_NODE_SHIFT	32

/* A THP fault's record before its allocation: who, where, and what rules. */
static struct thpnuma_fault_record fault_record(int node, u32 config,
						bool overridden,
						enum thpnuma_action action,
						unsigned int kind,
						unsigned int order)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	return (struct thpnuma_fault_record) {
		.node		= node,
		.nid		= NUMA_NO_NODE,
		.policy		= cfg.policy,
		.zone_reclaim	= cfg.zone_reclaim,
		.override	= overridden,
		.action		= action,
		.result		= THPNUMA_RESULT_NONE,
		.kind		= kind,
		.order		= order,
	};
}

/* Where the THP came from, for the record. */
static void record_result(struct thpnuma_fault_record *r,
			  struct thpnuma_thp *thp)
{
	if (!thp) {
		r->result = THPNUMA_RESULT_FALLBACK;
		return;
	}
	r->nid = thpnuma_thp_nid(thp);
	r->result = r->nid == r->node ? THPNUMA_RESULT_LOCAL :
					THPNUMA_RESULT_REMOTE;
}

/* Count a fault's outcome and how long it took: once per fault. */
static void account_fault(const struct thpnuma_fault_record *r,
			  unsigned int policy)
{
	enum thpnuma_order_outcome order_outcome;
	enum thpnuma_hist_outcome outcome;
	int local = r->node;

	thpnuma_count(local, THPNUMA_ALLOC_NS, r->alloc_ns);
	if (r->override)
		thpnuma_count_policy(policy, THPNUMA_PC_BY_OVERRIDE);
	switch (r->result) {
	case THPNUMA_RESULT_LOCAL:
		thpnuma_count(local, THPNUMA_THP_LOCAL, 1);
		thpnuma_count_policy(policy, THPNUMA_PC_THP_LOCAL);
		outcome = THPNUMA_HIST_LOCAL;
		order_outcome = THPNUMA_ORDER_LOCAL;
		break;
	case THPNUMA_RESULT_REMOTE:
		thpnuma_count(local, THPNUMA_THP_REMOTE, 1);
		thpnuma_count(r->nid, THPNUMA_THP_REMOTE_IN, 1);
		thpnuma_count_policy(policy, THPNUMA_PC_THP_REMOTE);
		outcome = THPNUMA_HIST_REMOTE;
		order_outcome = THPNUMA_ORDER_REMOTE;
		break;
	default:
		thpnuma_count(local, THPNUMA_THP_FALLBACK, 1);
		thpnuma_count_policy(policy, THPNUMA_PC_THP_FALLBACK);
		outcome = THPNUMA_HIST_FALLBACK;
		order_outcome = THPNUMA_ORDER_FALLBACK;
		break;
	}
	thpnuma_hist_add(local, outcome, r->alloc_ns);
	thpnuma_count_order(local, r->kind, r->order, order_outcome);
}

/*
 * One attempt of a fault that tries several orders (mTHP, shmem): a
 * success ends the fault; a failure leaves or extends its pending
 * fallback. Without memory for one, the failure counts at once.
 */
static void account_attempt(struct thpnuma_fault_record *r,
			    unsigned int policy)
{
	struct pending_fallback *p = pending_take();

	/*
	 * Not the same fault stepping down: one whose small page came
	 * without a hooked call (6.1's shmem out of space) ended before.
	 */
	if (p && (p->record.kind != r->kind || r->order >= p->last_order)) {
		account_fault(&p->record, p->policy);
		kfree(p);
		p = NULL;
	}
	if (r->result != THPNUMA_RESULT_FALLBACK) {
		if (p) {
			r->alloc_ns += p->record.alloc_ns;
			kfree(p);
		}
		account_fault(r, policy);
		return;
	}
	if (p) {
		p->record.alloc_ns += r->alloc_ns;
		p->last_order = r->order;
	} else {
		p = kmalloc(sizeof(*p), GFP_NOWAIT | __GFP_NOWARN);
		if (!p) {
			account_fault(r, policy);
			return;
		}
		p->record = *r;
		p->policy = policy;
		p->last_order = r->order;
	}
	pending_put(p);
}

/*
 * The task allocates a small page, or the kernel takes over its fault: the
 * fault's THP attempts so far all failed.
 */
static noinline void notrace pending_flush(void)
{
	struct pending_fallback *p = pending_take();

	if (p) {
		account_fault(&p->record, p->policy);
		kfree(p);
	}
}

/* The kernel's own allocation, for the kernel policy. */
static struct thpnuma_thp *kernel_alloc(unsigned int kind, gfp_t gfp,
					int order, unsigned long arg2,
					unsigned long arg3, unsigned long arg4,
					unsigned long arg5)
{
	if (kind == THPNUMA_KIND_SHMEM)
		return thpnuma_shmem_kernel_alloc(gfp, order, arg2, arg3,
						  arg4, arg5);
	return thpnuma_kernel_alloc(gfp, order, (struct vm_area_struct *)arg2,
				    arg3, arg4, arg5);
}

static struct thpnuma_thp *hooked_alloc(gfp_t gfp, unsigned long decided,
					unsigned long arg2, unsigned long arg3,
					unsigned long arg4, unsigned long arg5,
					enum thpnuma_action action)
{
	struct thpnuma_config cfg = thpnuma_config_unpack((u32)decided);
	int order = (decided >> DECIDED_ORDER_SHIFT) & DECIDED_ORDER_MASK;
	unsigned int kind = (decided >> DECIDED_KIND_SHIFT) & DECIDED_KIND_MASK;
	int local = decided >> DECIDED_NODE_SHIFT;
	struct inflight_alloc inflight = {
		.record = fault_record(local, (u32)decided,
				       decided & DECIDED_BY_OVERRIDE, action,
				       kind, order),
	};
	struct thpnuma_fault_record *record = &inflight.record;
	struct thpnuma_thp *thp;
	u64 start;

	this_cpu_inc(thpnuma_inflight);
	inflight_enter(&inflight);
	start = ktime_get_ns();

	switch (action) {
	case THPNUMA_ACT_STRICT_LOCAL:
		thp = alloc_strict_local(gfp, order, local);
		record->local_attempt = thp ? THPNUMA_LOCAL_SUCCEEDED :
						THPNUMA_LOCAL_FAILED;
		break;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		thp = alloc_local_then_remote(gfp, order, local,
					      cfg.zone_reclaim, &inflight);
		break;
	default:
		thp = kernel_alloc(kind, gfp, order, arg2, arg3, arg4, arg5);
		break;
	}

	record->alloc_ns = ktime_get_ns() - start;
	record_result(record, thp);
	trace_thp_fault(record);
	/* The anonymous PMD fault makes one attempt; its fallback is final. */
	if (kind == THPNUMA_KIND_ANON && order == HPAGE_PMD_ORDER)
		account_fault(record, action_policy(action));
	else
		account_attempt(record, action_policy(action));
	inflight_exit(&inflight);
	this_cpu_dec(thpnuma_inflight);
	return thp;
}

/*
 * Replacements with the hooked functions' register layout, one per
 * action; the second argument carries the decision in place of the order,
 * and the others are the hooked function's own (compat.h).
 */
static struct thpnuma_thp *
thpnuma_alloc_count_only(gfp_t gfp, unsigned long decided, unsigned long arg2,
			 unsigned long arg3, unsigned long arg4,
			 unsigned long arg5)
{
	return hooked_alloc(gfp, decided, arg2, arg3, arg4, arg5,
			    THPNUMA_ACT_COUNT_ONLY);
}

static struct thpnuma_thp *
thpnuma_alloc_strict_local(gfp_t gfp, unsigned long decided,
			   unsigned long arg2, unsigned long arg3,
			   unsigned long arg4, unsigned long arg5)
{
	return hooked_alloc(gfp, decided, arg2, arg3, arg4, arg5,
			    THPNUMA_ACT_STRICT_LOCAL);
}

static struct thpnuma_thp *
thpnuma_alloc_local_then_remote(gfp_t gfp, unsigned long decided,
				unsigned long arg2, unsigned long arg3,
				unsigned long arg4, unsigned long arg5)
{
	return hooked_alloc(gfp, decided, arg2, arg3, arg4, arg5,
			    THPNUMA_ACT_LOCAL_THEN_REMOTE);
}

/* Replaces try_to_free_pages() when the local attempt may not reclaim. */
static unsigned long thpnuma_skip_reclaim(struct zonelist *zonelist, int order,
					  gfp_t gfp_mask, nodemask_t *nodemask)
{
	return 0;
}

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

static struct thpnuma_hook thpnuma_hooks[NR_HOOKS] = {
	[HOOK_ALLOC]		= { .name = THPNUMA_HOOKED_SYMBOL },
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	[HOOK_SHMEM_ALLOC]	= { .name = THPNUMA_SHMEM_HOOKED_SYMBOL },
#endif
	[HOOK_RECLAIM]		= { .name = "try_to_free_pages" },
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

enum { PATH_ANON_PMD, PATH_ANON_MTHP, PATH_SHMEM, NR_PATHS };

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
};

/* The event of a THP fault left to the kernel: nothing allocated here. */
static noinline void notrace trace_passthrough(int node, u32 config,
					       bool overridden,
					       const struct thpnuma_fault *fault,
					       unsigned int order)
{
	struct thpnuma_fault_record record;

	record = fault_record(node, config, overridden,
			      THPNUMA_ACT_PASSTHROUGH, fault->kind, order);
	record.reason = thpnuma_passthrough_reason(config, fault);
	trace_thp_fault(&record);
}

/* A THP allocation: send it to the replacement for the action. */
static void notrace thpnuma_thp_hook(struct pt_regs *regs,
				     const struct thp_path *path,
				     unsigned int order)
{
	unsigned long target, arg2 = thpnuma_arg(regs, 2);
	struct thpnuma_fault fault = {
		.kind		= path->kind,
		.thp_fault	= true,
	};
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
	switch (thpnuma_decide(config, &fault)) {
	case THPNUMA_ACT_IGNORE:
		/* Out of scope or coverage: traced, not counted. */
		if (!path->pmd_only)
			pending_flush();
		if (trace_thp_fault_enabled())
			trace_passthrough(node, config, overridden, &fault,
					  order);
		return;
	case THPNUMA_ACT_PASSTHROUGH:
		/* The kernel takes over the fault (a policy on part of a file). */
		if (!path->pmd_only)
			pending_flush();
		thpnuma_count(node, THPNUMA_PASSTHROUGH, 1);
		thpnuma_count_order(node, path->kind, order,
				    THPNUMA_ORDER_PASSTHROUGH);
		policy = thpnuma_config_unpack(config).policy;
		thpnuma_count_policy(policy, THPNUMA_PC_PASSTHROUGH);
		if (overridden)
			thpnuma_count_policy(policy, THPNUMA_PC_BY_OVERRIDE);
		if (trace_thp_fault_enabled())
			trace_passthrough(node, config, overridden, &fault,
					  order);
		return;
	case THPNUMA_ACT_COUNT_ONLY:
		target = (unsigned long)thpnuma_alloc_count_only;
		break;
	case THPNUMA_ACT_STRICT_LOCAL:
		target = (unsigned long)thpnuma_alloc_strict_local;
		break;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		target = (unsigned long)thpnuma_alloc_local_then_remote;
		break;
	default:
		return;
	}
	config &= ~THPNUMA_CFG_OVERRIDES;
	config |= order << DECIDED_ORDER_SHIFT |
		  path->kind << DECIDED_KIND_SHIFT;
	if (overridden)
		config |= DECIDED_BY_OVERRIDE;
	thpnuma_set_arg1(regs, (unsigned long)node << DECIDED_NODE_SHIFT | config);
	instruction_pointer_set(regs, target);
}

/*
 * A call of a hooked allocator. Every anonymous page fault comes here:
 * small pages leave after a compare and a read of their task's bucket.
 * Our own calls come from this module, so they never match a path.
 */
static __always_inline void thpnuma_alloc_hook(struct pt_regs *regs,
					       unsigned long parent_ip,
					       unsigned int hook)
{
	unsigned int order = (unsigned int)thpnuma_arg(regs, 1);
	const struct thp_path *path;

	/*
	 * The task's own bucket, not a global count: failing faults on other
	 * CPUs do not bounce a cache line every small-page fault reads.
	 */
	if (!order) {
		if (unlikely(!hlist_bl_empty(pending_bucket(current))))
			pending_flush();
		return;
	}
	for (path = thp_paths; path < thp_paths + NR_PATHS; path++) {
		if (path->hook == hook && parent_ip - path->start < path->size) {
			thpnuma_thp_hook(regs, path, order);
			return;
		}
	}
}

/*
 * What a local reclaim round without swap could free on @nid: the file
 * LRU (clean pages only without the write bit; tmpfs is on the anon LRU
 * and needs swap) and reclaimable slab. Below node_reclaim()'s minimums
 * the round would scan the node for nothing.
 */
static bool local_reclaim_worthwhile(int nid, bool write)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	long file = atomic_long_read(&pgdat->vm_stat[NR_ACTIVE_FILE]) +
		    atomic_long_read(&pgdat->vm_stat[NR_INACTIVE_FILE]);
	long slab = atomic_long_read(&pgdat->vm_stat[NR_SLAB_RECLAIMABLE_B]);

	if (!write)
		file -= atomic_long_read(&pgdat->vm_stat[NR_FILE_DIRTY]);
	return file > (long)pgdat->min_unmapped_pages ||
	       slab > (long)pgdat->min_slab_pages;
}

/* try_to_free_pages(): hold the local attempt to its zone_reclaim bits. */
static void notrace thpnuma_reclaim_hook(struct pt_regs *regs,
					 unsigned long parent_ip)
{
	struct thpnuma_local_effort effort;
	struct inflight_alloc *inflight;
	gfp_t gfp;
	int zone_reclaim;

	inflight = inflight_find();
	if (!inflight)
		return;
	zone_reclaim = inflight->local_effort;
	if (zone_reclaim == NO_LOCAL_ATTEMPT)
		return;

	effort = thpnuma_local_effort(zone_reclaim);
	if (effort.reclaim && !effort.swap &&
	    !local_reclaim_worthwhile(inflight->record.node, effort.enter_fs)) {
		/* As zone_reclaim 0 from here on, for the probe's count too. */
		inflight->local_effort = 0;
		effort.reclaim = false;
	}
	if (!effort.reclaim) {
		instruction_pointer_set(regs, (unsigned long)thpnuma_skip_reclaim);
		return;
	}
	gfp = (gfp_t)thpnuma_arg(regs, 2);
	if (!effort.enter_fs)
		gfp &= ~__GFP_FS;
	if (!effort.swap)
		gfp &= ~__GFP_IO;
	thpnuma_set_arg2(regs, (unsigned long)gfp);
}

static void notrace thpnuma_ftrace_callback(unsigned long ip,
					    unsigned long parent_ip,
					    struct ftrace_ops *op,
					    struct THPNUMA_FTRACE_REGS *fregs)
{
	const struct thpnuma_hook *alloc = &thpnuma_hooks[HOOK_ALLOC];
	struct pt_regs *regs = thpnuma_ftrace_regs(fregs);

	/* Direct calls, not a handler table: indirect calls use retpolines. */
	if (ip - alloc->start < alloc->size) {
		thpnuma_alloc_hook(regs, parent_ip, HOOK_ALLOC);
		return;
	}
#ifdef THPNUMA_SHMEM_HOOKED_SYMBOL
	alloc = &thpnuma_hooks[HOOK_SHMEM_ALLOC];
	if (ip - alloc->start < alloc->size) {
		thpnuma_alloc_hook(regs, parent_ip, HOOK_SHMEM_ALLOC);
		return;
	}
#endif
	thpnuma_reclaim_hook(regs, parent_ip);
}

/*
 * One ftrace_ops for every hooked function: each unregistration waits for
 * RCU-tasks grace periods, and unload time is what load/unload cycles pay.
 * The callback runs on every anonymous fault, so it costs as little as it
 * can: no SAVE_REGS where the kernel allows (the argument registers are
 * all it needs; THPNUMA_FTRACE_FLAGS), and no recursion wrapper (an extra
 * indirect call and preemption toggle), as it cannot recurse: it calls
 * nothing that allocates or reclaims, and neither hooked function runs in
 * interrupt context. It may run preemptible: it only counts with this_cpu
 * ops and reads the configuration under RCU.
 */
static struct ftrace_ops thpnuma_ops = {
	.func	= thpnuma_ftrace_callback,
	/*
	 * PERMANENT, as livepatch does: kernel.ftrace_enabled=0 would NOP our
	 * call sites and leave a loaded module that applies no policy. With
	 * it the load fails while ftrace is off, and the sysctl refuses to
	 * turn ftrace off while we are loaded.
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

static void report_register_error(int err)
{
	const char *conflict;

	if (err != -EBUSY) {
		pr_err("cannot register the ftrace hook: %d\n", err);
		return;
	}
	conflict = ipmodify_conflict();
	if (conflict)
		pr_err("cannot hook %s: another ftrace user with IPMODIFY (a livepatch?) owns it\n",
		       conflict);
	else
		pr_err("cannot hook: ftrace is disabled (sysctl kernel.ftrace_enabled=0); set kernel.ftrace_enabled=1 and load again\n");
}

static long inflight_sum(void)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(thpnuma_inflight, cpu);
	return sum;
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
		err = ftrace_set_filter(&thpnuma_ops, (unsigned char *)hook->name,
					strlen(hook->name), 0);
		if (err) {
			pr_err("cannot hook %s: not traceable (%d)\n",
			       hook->name, err);
			goto rollback;
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
		report_register_error(err);
		goto rollback;
	}
	return 0;

rollback:
	/* Drops every filter entry added so far, newest included. */
	thpnuma_ftrace_free_filter(&thpnuma_ops);
	return err;
}

void thpnuma_hooks_remove(void)
{
	int err = unregister_ftrace_function(&thpnuma_ops);

	/*
	 * Only a broken ftrace (ftrace_kill() after an ftrace bug) refuses:
	 * the call sites still jump to our callback, and the module loader
	 * frees our text as soon as we return, whatever the refcount. So
	 * never return: a stuck rmmod (or failed insmod) beats an oops on
	 * the next page fault. TASK_IDLE keeps the hung-task detector quiet.
	 */
	if (err) {
		pr_crit("cannot unregister the ftrace hook (%d): ftrace still calls into thpnuma, so its code must stay; this rmmod/insmod will never return, reboot to remove thpnuma\n",
			err);
		for (;;)
			schedule_timeout_idle(MAX_SCHEDULE_TIMEOUT);
	}
	thpnuma_ftrace_free_filter(&thpnuma_ops);

	/*
	 * unregister_ftrace_function() waited for an RCU-tasks grace period,
	 * so no task is still between the callback and its in-flight count.
	 * Tasks inside a replacement can sleep in reclaim: wait for them.
	 */
	while (inflight_sum())
		msleep(20);
	/* Let the last ones return out of this module's text. */
	synchronize_rcu_tasks();
	pending_free_all();
}

/* Observation: compaction and direct reclaim run by hooked allocations. */

struct compact_probe_data {
	struct inflight_alloc *inflight;
	int nid;
};

static int compact_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct compact_probe_data *data = (void *)ri->data;
	struct zone *zone = (struct zone *)thpnuma_arg(regs, 0);

	data->inflight = inflight_find();
	if (!data->inflight)
		return 1;
	data->nid = zone_to_nid(zone);
	return 0;
}

static int compact_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct compact_probe_data *data = (void *)ri->data;
	struct thpnuma_fault_record *record = &data->inflight->record;
	enum compact_result result = regs_return_value(regs);

	if (result == COMPACT_SKIPPED)
		return 0;
	thpnuma_count(data->nid, THPNUMA_COMPACT_STALL, 1);
	thpnuma_count(data->nid, result == COMPACT_SUCCESS ?
		      THPNUMA_COMPACT_SUCCESS : THPNUMA_COMPACT_FAIL, 1);
	record->compact_stall++;
	record->compact_success += result == COMPACT_SUCCESS;
	return 0;
}

struct reclaim_probe_data {
	struct inflight_alloc *inflight;
	int nid;	/* where a call that scans no node counts */
};

static int reclaim_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct reclaim_probe_data *data = (void *)ri->data;

	nodemask_t *nodemask = (nodemask_t *)thpnuma_arg(regs, 3);

	data->inflight = inflight_find();
	if (!data->inflight)
		return 1;
	data->inflight->reclaim_node = NUMA_NO_NODE;
	/* The remote attempt's nodemask, or the local attempt's node. */
	data->nid = nodemask && !nodes_empty(*nodemask) ?
		    first_node(*nodemask) : data->inflight->record.node;
	return 0;
}

static int reclaim_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct reclaim_probe_data *data = (void *)ri->data;
	struct thpnuma_fault_record *record = &data->inflight->record;
	unsigned long reclaimed = regs_return_value(regs);
	int effort = data->inflight->local_effort;
	int nid = data->inflight->reclaim_node;

	/* The reclaim hook sent this call to thpnuma_skip_reclaim(). */
	if (effort != NO_LOCAL_ATTEMPT && !thpnuma_local_effort(effort).reclaim)
		return 0;
	/*
	 * Every call stalls, as the kernel's allocstall counts it; one that
	 * scanned no node (zones ready for compaction) counts on the first
	 * node it could have scanned.
	 */
	if (nid == NUMA_NO_NODE)
		nid = data->nid;
	thpnuma_count(nid, THPNUMA_RECLAIM_STALL, 1);
	thpnuma_count(nid, THPNUMA_RECLAIM_PAGES, reclaimed);
	record->reclaim_stall++;
	record->reclaim_pages += reclaimed;
	return 0;
}

static int shrink_node_pre(struct kprobe *kp, struct pt_regs *regs)
{
	pg_data_t *pgdat = (pg_data_t *)thpnuma_arg(regs, 0);
	struct inflight_alloc *inflight = inflight_find();

	if (inflight && inflight->reclaim_node == NUMA_NO_NODE)
		inflight->reclaim_node = pgdat->node_id;
	return 0;
}

/*
 * A task holds a kretprobe instance for its whole compaction or reclaim
 * call, which can sleep for seconds; with none left the kernel counts a
 * miss and our counters lose the event. Size the pools like the kernel's
 * default (2 per possible CPU), and never below a floor that covers many
 * more tasks in reclaim than a small machine has CPUs.
 */
#define THPNUMA_KRETPROBE_MIN_MAXACTIVE	256

static struct kretprobe compact_probe = {
	.kp.symbol_name	= "compact_zone_order",
	.entry_handler	= compact_entry,
	.handler	= compact_return,
	.data_size	= sizeof(struct compact_probe_data),
};

static struct kretprobe reclaim_probe = {
	.kp.symbol_name	= "try_to_free_pages",
	.entry_handler	= reclaim_entry,
	.handler	= reclaim_return,
	.data_size	= sizeof(struct reclaim_probe_data),
};

static struct kprobe shrink_node_probe = {
	.symbol_name	= "shrink_node",
	.pre_handler	= shrink_node_pre,
};

/* Events the probes missed since load: our counters lack that many. */
unsigned long thpnuma_probe_missed(void)
{
	return (unsigned long)READ_ONCE(compact_probe.nmissed) +
	       READ_ONCE(reclaim_probe.nmissed) +
	       READ_ONCE(compact_probe.kp.nmissed) +
	       READ_ONCE(reclaim_probe.kp.nmissed) +
	       READ_ONCE(shrink_node_probe.nmissed);
}

int thpnuma_probes_install(void)
{
	int maxactive = max_t(int, 2 * num_possible_cpus(),
			      THPNUMA_KRETPROBE_MIN_MAXACTIVE);
	int err;

	/* The probes and the hook find hooked allocations here. */
	err = inflight_init();
	if (err)
		return err;
	compact_probe.maxactive = maxactive;
	reclaim_probe.maxactive = maxactive;
	err = register_kretprobe(&compact_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", compact_probe.kp.symbol_name, err);
		goto err_inflight;
	}
	err = register_kretprobe(&reclaim_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", reclaim_probe.kp.symbol_name, err);
		goto err_compact;
	}
	err = register_kprobe(&shrink_node_probe);
	if (err) {
		pr_err("cannot probe %s: %d\n", shrink_node_probe.symbol_name, err);
		goto err_reclaim;
	}
	return 0;

err_reclaim:
	unregister_kretprobe(&reclaim_probe);
err_compact:
	unregister_kretprobe(&compact_probe);
err_inflight:
	inflight_free();
	return err;
}

void thpnuma_probes_remove(void)
{
	struct kretprobe *kretprobes[] = { &reclaim_probe, &compact_probe };

	unregister_kprobe(&shrink_node_probe);
	/* One grace period for both instead of one each. */
	unregister_kretprobes(kretprobes, ARRAY_SIZE(kretprobes));
	inflight_free();
}
