// SPDX-License-Identifier: GPL-2.0
/*
 * The replacement allocators. The hook redirects a THP allocation it
 * decided to the trampoline of its action, which has the hooked
 * function's register layout; the allocation itself, its timing, trace
 * event and accounting happen in hooked_alloc().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuset.h>
#include <linux/huge_mm.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/timekeeping.h>
#include "compat.h"
#include "account.h"
#include "alloc.h"
#include "inflight.h"
#include "tracepoints.h"

/*
 * One reclaim and compaction round per attempt, whatever the order. For
 * orders up to PAGE_ALLOC_COSTLY_ORDER the page allocator otherwise
 * retries reclaim for as long as it makes progress and then calls the
 * OOM killer: a policy that leaves out nodes (the remote attempt) would
 * kill for a 16 KiB folio that the kernel gets by reclaiming the local
 * node or by falling back to small pages. Costly orders stop after one
 * round by themselves.
 */
static gfp_t bounded_gfp(gfp_t gfp, int order)
{
	if (order <= PAGE_ALLOC_COSTLY_ORDER)
		gfp |= __GFP_NORETRY;
	return gfp;
}

static struct thpnuma_thp *alloc_strict_local(gfp_t gfp, int order, int local)
{
	return thpnuma_thp_alloc(gfp | __GFP_THISNODE, order, local, NULL);
}

/* The local attempt's gfp: the effort @zone_reclaim allows. */
static gfp_t local_gfp(gfp_t gfp, int order, unsigned int zone_reclaim)
{
	struct thpnuma_local_effort effort = thpnuma_local_effort(zone_reclaim);
	gfp_t local_gfp = gfp | __GFP_THISNODE;

	/*
	 * Without reclaim bits: compaction only. For orders up to
	 * PAGE_ALLOC_COSTLY_ORDER, NORETRY still allows one reclaim round
	 * (9c9828d3ead6 stops it for larger ones only), so the reclaim hook
	 * refuses that round. With reclaim bits, one full round of local
	 * reclaim runs, restricted to what the bits allow: a larger order
	 * gets that round only without the NORETRY a caller may have set
	 * (defrag=always outside MADV_HUGEPAGE, shmem).
	 */
	if (!effort.reclaim)
		local_gfp |= __GFP_NORETRY;
	else if (order > PAGE_ALLOC_COSTLY_ORDER)
		local_gfp &= ~__GFP_NORETRY;
	if (!effort.wake_kswapd)
		local_gfp &= ~__GFP_KSWAPD_RECLAIM;
	return local_gfp;
}

/*
 * The budget policy's try on a node over its budget: free lists only. No
 * compaction, reclaim or kswapd wake-up, which in a swap storm would only
 * feed it.
 */
static gfp_t cheap_local_gfp(gfp_t gfp)
{
	return (gfp | __GFP_THISNODE | __GFP_NORETRY | __GFP_NOWARN) &
	       ~(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM);
}

/*
 * Local attempts with a deadline now; while none has, the cut points
 * return at their entry (tramp.S). Only budget attempts that take the
 * full effort write it.
 */
atomic_t thpnuma_budget_deadlines = ATOMIC_INIT(0);

/*
 * The local attempt of local-then-remote and budget, with @local_gfp and
 * the reclaim hook held to @zone_reclaim; its time goes in the record.
 * With @budget_ns, its reclaim stops once it has taken that long.
 */
static struct thpnuma_thp *try_local(gfp_t local_gfp, int order, int local,
				     int zone_reclaim, u64 budget_ns,
				     struct inflight_alloc *inflight)
{
	struct thpnuma_fault_record *record = &inflight->record;
	struct thpnuma_thp *thp;
	u64 start = ktime_get_ns();

	inflight->local_effort = zone_reclaim;
	if (budget_ns) {
		inflight->deadline_ns = start + budget_ns;
		atomic_inc(&thpnuma_budget_deadlines);
	}
	thp = thpnuma_thp_alloc(local_gfp, order, local, NULL);
	if (budget_ns) {
		atomic_dec(&thpnuma_budget_deadlines);
		inflight->deadline_ns = 0;
	}
	inflight->local_effort = NO_LOCAL_ATTEMPT;
	record->local_ns = ktime_get_ns() - start;
	record->local_attempt = thp ? THPNUMA_LOCAL_SUCCEEDED :
				      THPNUMA_LOCAL_FAILED;
	return thp;
}

/* The local zonelist minus the local node: remote nodes by distance. */
static struct thpnuma_thp *alloc_remote(gfp_t gfp, int order, int local)
{
	nodemask_t remote;

	nodes_and(remote, cpuset_current_mems_allowed, node_states[N_MEMORY]);
	node_clear(local, remote);
	if (nodes_empty(remote))
		return NULL;
	return thpnuma_thp_alloc(gfp, order, local, &remote);
}

static struct thpnuma_thp *alloc_local_then_remote(gfp_t gfp, int order,
						   int local,
						   unsigned int zone_reclaim,
						   struct inflight_alloc *inflight)
{
	struct thpnuma_thp *thp = NULL;

	if (node_isset(local, cpuset_current_mems_allowed))
		thp = try_local(local_gfp(gfp, order, zone_reclaim), order,
				local, zone_reclaim, 0, inflight);
	return thp ?: alloc_remote(gfp, order, local);
}

/*
 * local-then-remote while the node's recent effortful local attempts cost
 * no more than the budget; over it, a cheap local try, and now and then a
 * probe with the full effort to notice recovery (budget.h). An attempt's
 * reclaim stops once it has taken the budget (thpnuma_budget_cut_hook()).
 * The state is re-read after the attempt, which may have slept in
 * reclaim; no lock: a lost update only moves a probe by a few faults.
 */
static struct thpnuma_thp *alloc_budget(gfp_t gfp, int order, int local,
					unsigned int zone_reclaim,
					struct inflight_alloc *inflight)
{
	struct thpnuma_fault_record *record = &inflight->record;
	u64 budget_ns = (u64)record->budget_us * NSEC_PER_USEC;
	u64 *word = thpnuma_budget_word(local);
	u64 old = READ_ONCE(*word), now;
	struct thpnuma_budget b = thpnuma_budget_unpack(old);
	struct thpnuma_thp *thp = NULL;
	u64 sample;
	bool effort;

	if (!node_isset(local, cpuset_current_mems_allowed))
		return alloc_remote(gfp, order, local);

	record->budget = thpnuma_budget_decide(&b, budget_ns);
	if (record->budget != THPNUMA_BD_EFFORT)
		WRITE_ONCE(*word, thpnuma_budget_pack(b));
	if (record->budget == THPNUMA_BD_SKIP) {
		thpnuma_count(local, THPNUMA_BUDGET_SKIP, 1);
		thp = try_local(cheap_local_gfp(gfp), order, local, 0, 0,
				inflight);
		return thp ?: alloc_remote(gfp, order, local);
	}

	thp = try_local(local_gfp(gfp, order, zone_reclaim), order, local,
			zone_reclaim, budget_ns, inflight);
	/*
	 * The probes count and time the local attempt's compaction and
	 * reclaim: it runs first. Their time is the sample, without the
	 * zeroing of a THP that a remote one would cost as well. A cut
	 * attempt took effort even where no probe saw it (node reclaim).
	 */
	effort = record->compact_stall || record->reclaim_stall ||
		 inflight->cut;
	sample = thpnuma_budget_sample(record->effort_ns, inflight->cut,
				       budget_ns);
	old = READ_ONCE(*word);
	b = thpnuma_budget_unpack(old);
	thpnuma_budget_update(&b, record->budget, effort, thp, sample,
			      budget_ns);
	now = thpnuma_budget_pack(b);
	if (now != old)
		WRITE_ONCE(*word, now);
	return thp ?: alloc_remote(gfp, order, local);
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

/* The policy whose decision an action carries out. */
static unsigned int action_policy(enum thpnuma_action action)
{
	switch (action) {
	case THPNUMA_ACT_STRICT_LOCAL:
		return THPNUMA_POLICY_STRICT_LOCAL;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		return THPNUMA_POLICY_LOCAL_THEN_REMOTE;
	case THPNUMA_ACT_BUDGET:
		return THPNUMA_POLICY_BUDGET;
	case THPNUMA_ACT_IGNORE:
	case THPNUMA_ACT_PASSTHROUGH:
	case THPNUMA_ACT_COUNT_ONLY:
		break;
	}
	return THPNUMA_POLICY_KERNEL;
}

static struct thpnuma_thp *hooked_alloc(gfp_t gfp, unsigned long decided,
					unsigned long arg2, unsigned long arg3,
					unsigned long arg4, unsigned long arg5,
					enum thpnuma_action action)
{
	int order = (decided >> DECIDED_ORDER_SHIFT) & DECIDED_ORDER_MASK;
	unsigned int kind = (decided >> DECIDED_KIND_SHIFT) & DECIDED_KIND_MASK;
	int local = decided >> DECIDED_NODE_SHIFT;
	struct inflight_alloc inflight = {
		.record = thpnuma_fault_record(local, decided,
					       decided & DECIDED_BY_OVERRIDE,
					       action, kind, order),
	};
	struct thpnuma_fault_record *record = &inflight.record;
	struct thpnuma_thp *thp = NULL;
	u64 start;

	record->by_cgroup = !!(decided & DECIDED_BY_CGROUP);
	this_cpu_inc(thpnuma_replacing);
	inflight_enter(&inflight);
	start = ktime_get_ns();

	switch (action) {
	case THPNUMA_ACT_STRICT_LOCAL:
		thp = alloc_strict_local(bounded_gfp(gfp, order), order, local);
		record->local_attempt = thp ? THPNUMA_LOCAL_SUCCEEDED :
						THPNUMA_LOCAL_FAILED;
		break;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		thp = alloc_local_then_remote(bounded_gfp(gfp, order), order,
					      local, record->zone_reclaim,
					      &inflight);
		break;
	case THPNUMA_ACT_BUDGET:
		thp = alloc_budget(bounded_gfp(gfp, order), order, local,
				   record->zone_reclaim, &inflight);
		break;
	case THPNUMA_ACT_COUNT_ONLY:
		thp = kernel_alloc(kind, gfp, order, arg2, arg3, arg4, arg5);
		break;
	case THPNUMA_ACT_IGNORE:
	case THPNUMA_ACT_PASSTHROUGH:
		/* The hook sends these to the kernel, never here. */
		break;
	}

	record->alloc_ns = ktime_get_ns() - start;
	if (action == THPNUMA_ACT_STRICT_LOCAL)
		record->local_ns = record->alloc_ns;
	thpnuma_record_result(record, thp ? thpnuma_thp_nid(thp) :
					    NUMA_NO_NODE);
	trace_thp_fault(record);
	/* The anonymous PMD fault makes one attempt; its fallback is final. */
	if (kind == THPNUMA_KIND_ANON && order == HPAGE_PMD_ORDER)
		thpnuma_account_fault(record, action_policy(action));
	else
		thpnuma_account_attempt(record, action_policy(action));
	inflight_exit(&inflight);
	this_cpu_dec(thpnuma_replacing);
	return thp;
}

/*
 * Trampolines with the hooked functions' register layout, one per action;
 * the second argument carries the decision in place of the order, and the
 * others are the hooked function's own (compat.h).
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

static struct thpnuma_thp *
thpnuma_alloc_budget(gfp_t gfp, unsigned long decided, unsigned long arg2,
		     unsigned long arg3, unsigned long arg4, unsigned long arg5)
{
	return hooked_alloc(gfp, decided, arg2, arg3, arg4, arg5,
			    THPNUMA_ACT_BUDGET);
}

unsigned long thpnuma_replacement(enum thpnuma_action action)
{
	switch (action) {
	case THPNUMA_ACT_COUNT_ONLY:
		return (unsigned long)thpnuma_alloc_count_only;
	case THPNUMA_ACT_STRICT_LOCAL:
		return (unsigned long)thpnuma_alloc_strict_local;
	case THPNUMA_ACT_LOCAL_THEN_REMOTE:
		return (unsigned long)thpnuma_alloc_local_then_remote;
	case THPNUMA_ACT_BUDGET:
		return (unsigned long)thpnuma_alloc_budget;
	case THPNUMA_ACT_IGNORE:
	case THPNUMA_ACT_PASSTHROUGH:
		break;
	}
	return 0;
}

/* Replaces try_to_free_pages() when the local attempt may not reclaim. */
static unsigned long thpnuma_skip_reclaim(struct zonelist *zonelist, int order,
					  gfp_t gfp_mask, nodemask_t *nodemask)
{
	return 0;
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

void notrace thpnuma_reclaim_hook(struct pt_regs *regs)
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

/*
 * Replaces, for an attempt past its budget: shrink_node(), shrink_lruvec()
 * and shrink_active_list() (void), MGLRU's evict_folios() (0 scanned)
 * and try_to_inc_max_seq() (false: no aging).
 */
static long thpnuma_cut_reclaim(void)
{
	return 0;
}

/* Replaces the swap-out of a page for an attempt past its budget. */
static long thpnuma_refuse_swap_out(void *folio)
{
	return THPNUMA_SWAP_OUT_REFUSED;
}

/*
 * The budget's first attempt on a node comes before any estimate, and a
 * probe in a swap storm is as costly: order-9 reclaim loops in
 * shrink_node() while should_continue_reclaim() finds too little free
 * for compaction, then starts over at the next priority, and in a storm
 * every pass swaps out. Past its deadline the attempt swaps out nothing
 * more and starts no further scan: no node, lruvec, active list, MGLRU
 * eviction or aging.
 */
void notrace thpnuma_budget_cut_hook(struct pt_regs *regs, bool swap_out)
{
	struct inflight_alloc *inflight = inflight_find();

	if (!inflight || !inflight->deadline_ns ||
	    ktime_get_ns() < inflight->deadline_ns)
		return;
	inflight->cut = true;
	instruction_pointer_set(regs, swap_out ?
				(unsigned long)thpnuma_refuse_swap_out :
				(unsigned long)thpnuma_cut_reclaim);
}
