// SPDX-License-Identifier: GPL-2.0
/*
 * Counting THP faults once each. The anonymous PMD fault is one attempt.
 * mTHP and shmem faults step down through orders (thpnuma_step_down() in
 * policy.c says how): a failed attempt leaves a pending fallback for its
 * task, a success counts what the kernel finally mapped, and the end of
 * the fault without a THP counts the fallback once, at the largest order
 * it tried. A THP fault left to the kernel is traced here, and a THP
 * allocation from no known caller counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include "compat.h"
#include "account.h"
#include "inflight.h"
#include "tracepoints.h"

/*
 * A pending fallback is allocated in the fault path, GFP_NOWAIT: when
 * that fails (all nodes short of memory, when it matters most), each CPU
 * has a spare, so that the fault's next attempt still finds its record
 * and the fault is not counted twice. Freed entries refill it.
 */
static DEFINE_PER_CPU(struct pending_fallback *, pending_spare);

/* The VM tests' stand-in for a machine out of memory on every node. */
static bool test_pending_nomem;
module_param(test_pending_nomem, bool, 0600);
MODULE_PARM_DESC(test_pending_nomem,
		 "For tests only: the pending fallback's GFP_NOWAIT allocation fails");

static struct pending_fallback *pending_alloc(void)
{
	struct pending_fallback *p = NULL;

	if (!READ_ONCE(test_pending_nomem))
		p = kmalloc(sizeof(*p), GFP_NOWAIT | __GFP_NOWARN);
	if (!p)
		p = this_cpu_xchg(pending_spare, NULL);
	return p;
}

static void pending_release(struct pending_fallback *p)
{
	if (this_cpu_cmpxchg(pending_spare, NULL, p))
		kfree(p);
}

void notrace thpnuma_trace_passthrough(int node, u64 config, bool overridden,
				       const struct thpnuma_fault *fault,
				       unsigned int order)
{
	struct thpnuma_fault_record record;

	record = thpnuma_fault_record(node, config, overridden,
				      THPNUMA_ACT_PASSTHROUGH, fault->kind,
				      order);
	record.reason = thpnuma_passthrough_reason(config, fault);
	trace_thp_fault(&record);
}

void thpnuma_account_fault(const struct thpnuma_fault_record *r,
			   unsigned int policy)
{
	enum thpnuma_order_outcome order_outcome;
	enum thpnuma_hist_outcome outcome;
	int local = r->node;

	thpnuma_count(local, THPNUMA_ALLOC_NS, r->alloc_ns);
	if (r->override)
		thpnuma_count_policy(policy, THPNUMA_PC_BY_OVERRIDE);
	switch ((enum thpnuma_fault_result)r->result) {
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
	case THPNUMA_RESULT_FALLBACK:
	case THPNUMA_RESULT_NONE:
		thpnuma_count(local, THPNUMA_THP_FALLBACK, 1);
		thpnuma_count_policy(policy, THPNUMA_PC_THP_FALLBACK);
		outcome = THPNUMA_HIST_FALLBACK;
		order_outcome = THPNUMA_ORDER_FALLBACK;
		break;
	}
	thpnuma_hist_add(local, outcome, r->alloc_ns);
	thpnuma_count_order(local, r->kind, r->order, order_outcome);
	if (r->by_cgroup)
		thpnuma_cgroup_count_fault(outcome, r->alloc_ns);
}

/* An attempt of a fault that failed an attempt before, or fails this one. */
static noinline void account_step_down(const struct thpnuma_fault_record *r,
				       unsigned int policy)
{
	struct pending_fallback *p = pending_take(current);
	struct thpnuma_fault_record done;
	struct thpnuma_step step;

	step = thpnuma_step_down(p != NULL, p ? p->record.kind : 0,
				 p ? p->last_order : 0, r->kind, r->order,
				 r->result != THPNUMA_RESULT_FALLBACK);
	if (step.end_pending) {
		thpnuma_account_fault(&p->record, p->policy);
		pending_release(p);
		p = NULL;
	}
	if (step.count_attempt) {
		done = *r;
		if (p) {
			done.alloc_ns += p->record.alloc_ns;
			pending_release(p);
		}
		thpnuma_account_fault(&done, policy);
		return;
	}
	if (p) {
		p->record.alloc_ns += r->alloc_ns;
	} else {
		p = pending_alloc();
		if (!p) {
			/* No memory and no spare: counted now, maybe again. */
			thpnuma_account_fault(r, policy);
			return;
		}
		p->record = *r;
		p->policy = policy;
	}
	p->last_order = r->order;
	pending_put(p);
}

void thpnuma_account_attempt(const struct thpnuma_fault_record *r,
			     unsigned int policy)
{
	/* thpnuma_step_down() without a pending fallback: a THP counts now. */
	if (r->result != THPNUMA_RESULT_FALLBACK && !pending_maybe(current)) {
		thpnuma_account_fault(r, policy);
		return;
	}
	account_step_down(r, policy);
}

void notrace thpnuma_pending_end(struct task_struct *task)
{
	struct pending_fallback *p = pending_take(task);

	if (p) {
		thpnuma_account_fault(&p->record, p->policy);
		pending_release(p);
	}
}

/* Callers of THP orders that are not faults (compat.h); may be absent. */
static const char *const other_caller_names[] = { THPNUMA_OTHER_CALLERS };
static struct {
	unsigned long start, size;
} other_callers[ARRAY_SIZE(other_caller_names)];

/* Calls of THP orders from no known caller, since load. */
static DEFINE_PER_CPU(unsigned long, unmatched_calls);

unsigned long thpnuma_unmatched_calls(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(unmatched_calls, cpu);
	return sum;
}

void notrace thpnuma_unmatched_call(unsigned long parent_ip,
				    unsigned int order)
{
	int i;

	/*
	 * The hook leaves out a replacement's own calls before this, but
	 * under a return probe it finds the parent only afterwards, through
	 * the unwinder.
	 */
	if (within_module(parent_ip, THIS_MODULE))
		return;
	for (i = 0; i < ARRAY_SIZE(other_callers); i++)
		if (parent_ip - other_callers[i].start < other_callers[i].size)
			return;
	this_cpu_inc(unmatched_calls);
	pr_warn_once("an order-%u allocation from %pS is on no THP fault path thpnuma knows (a livepatch or a driver): the policy does not apply to it; counted in unmatched_thp_calls\n",
		     order, (void *)parent_ip);
}

static void spares_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		kfree(per_cpu(pending_spare, cpu));
		per_cpu(pending_spare, cpu) = NULL;
	}
}

int thpnuma_account_init(void)
{
	struct pending_fallback *p;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		p = kmalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			spares_free();
			return -ENOMEM;
		}
		per_cpu(pending_spare, cpu) = p;
	}
	/* Inlined or absent, a known other caller is simply not excluded. */
	for (i = 0; i < ARRAY_SIZE(other_callers); i++)
		if (thpnuma_lookup_function(other_caller_names[i],
					    &other_callers[i].start,
					    &other_callers[i].size))
			other_callers[i].start = other_callers[i].size = 0;
	return 0;
}

void thpnuma_account_exit(void)
{
	spares_free();
}
