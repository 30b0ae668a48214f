/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The budget policy's estimator and back-off: plain C with no kernel
 * dependencies, like policy.h, so the host unit tests compile this very
 * file.
 *
 * Per node, one u64 word holds a struct thpnuma_budget. The fault path
 * reads it with READ_ONCE(), calls the pure functions below and writes the
 * result with WRITE_ONCE(). There is no lock: a lost update only moves a
 * probe by a few faults or drops one sample.
 *
 * While the estimate is within a fault's budget, the local attempt runs
 * with its full effort. Once over, local effort is spent only on probes,
 * one every 2, 8, 32, then 128 faults: the period quadruples after each
 * probe that is still over budget, and a probe within budget (or one
 * that found free memory) resets it. With no sample yet (since load or
 * since free memory reset it), the first one is the estimate: one swap
 * storm's attempt is enough to cross.
 *
 * Why, where compaction's deferral doubles from 2 to 64: the first
 * period is as short, so that one slow attempt among cheap ones (on
 * clean page cache) costs a single skip. But a probe in a swap storm
 * costs as much as the attempt that crossed (in make bench's 6.1 storm,
 * over a thousand swap-outs for one THP), while a skipped fault's cheap
 * try still finds memory that kswapd or an exit frees: quadrupling
 * makes 4 probes in a storm's first 200 faults where doubling makes 6.
 * From 128 on, fewer than 1% of the faults probe, so their p99 stays
 * within the budget.
 *
 * Bounds, from one node and ignoring concurrency: once over budget, and
 * while the node stays expensive, F faults make at most
 * 1 + MAX_BACKOFF + ceil(F / 128) effortful local attempts (the one that
 * crossed, the probes while the period grows to 128, then one per 128
 * faults). After memory frees, each fault's cheap try is local at once,
 * and the next probe, within 128 faults, restores full effort.
 */
#ifndef THPNUMA_BUDGET_H
#define THPNUMA_BUDGET_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/limits.h>
#else
#include <stdbool.h>
#include <stdint.h>
#ifndef THPNUMA_HOST_TYPES
#define THPNUMA_HOST_TYPES
/* The kernel's names; policy.h's u32 and u64 are the same types. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
#endif
#ifndef U16_MAX
#define U16_MAX		((u16)~0U)
#endif
#ifndef U32_MAX
#define U32_MAX		((u32)~0U)
#endif
#endif
#include "counters.h"

struct thpnuma_budget {
	/*
	 * EWMA of recent local attempts that needed effort (compaction or
	 * reclaim); cheap attempts say nothing about the cost of effort.
	 */
	u32 est_ns;
	u16 since;	/* faults since the last probe, while over budget */
	u8 backoff;	/* period: 1 << (MIN_SHIFT + GROWTH_SHIFT * backoff) */
	u8 pad;
};

/* Weight 1/4 for a new sample: a few expensive attempts cross. */
#define THPNUMA_BUDGET_EWMA_SHIFT	2
/* The first probe period is 2 faults, as compaction's deferral... */
#define THPNUMA_BUDGET_MIN_SHIFT	1
/* ...it quadruples after each probe still over budget... */
#define THPNUMA_BUDGET_GROWTH_SHIFT	2
/* ...up to 128: fewer than 1% of the faults probe. */
#define THPNUMA_BUDGET_MAX_SHIFT	7
#define THPNUMA_BUDGET_MAX_BACKOFF \
	((THPNUMA_BUDGET_MAX_SHIFT - THPNUMA_BUDGET_MIN_SHIFT) / \
	 THPNUMA_BUDGET_GROWTH_SHIFT)
/* The last period is 1 << MAX_SHIFT, and it fits the u16 that counts it. */
_Static_assert((THPNUMA_BUDGET_MAX_SHIFT - THPNUMA_BUDGET_MIN_SHIFT) %
	       THPNUMA_BUDGET_GROWTH_SHIFT == 0,
	       "the probe period must reach 1 << THPNUMA_BUDGET_MAX_SHIFT");
_Static_assert(THPNUMA_BUDGET_MAX_SHIFT < 16,
	       "the probe period must fit thpnuma_budget.since");

/*
 * What a budget fault's local attempt does, for its trace event. BD_, not
 * BUDGET_: counters.h's budget_skip counter is THPNUMA_BUDGET_SKIP.
 */
#define THPNUMA_BUDGET_DECISIONS(EM, EMe)				\
	/* not the budget policy */					\
	EM(THPNUMA_BD_NONE,			"-")			\
	/* within budget: full local effort */				\
	EM(THPNUMA_BD_EFFORT,			"effort")		\
	/* over budget, this fault's turn to try the effort */		\
	EM(THPNUMA_BD_PROBE,			"probe")		\
	/* over budget: a cheap local try only */			\
	EMe(THPNUMA_BD_SKIP,			"skip")

enum thpnuma_budget_decision {
	THPNUMA_BUDGET_DECISIONS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

/* The trace event's names (names.c). */
extern const char *const thpnuma_budget_decision_names[];

enum {
	THPNUMA_NR_BUDGET_DECISIONS =
		0 THPNUMA_BUDGET_DECISIONS(THPNUMA_EM_COUNT, THPNUMA_EM_COUNT)
};

/* est_ns in bits 0-31, since in 32-47, backoff in 48-55. */
static inline u64 thpnuma_budget_pack(struct thpnuma_budget b)
{
	return (u64)b.est_ns | (u64)b.since << 32 | (u64)b.backoff << 48;
}

static inline struct thpnuma_budget thpnuma_budget_unpack(u64 w)
{
	struct thpnuma_budget b = {
		.est_ns		= (u32)w,
		.since		= (u16)(w >> 32),
		.backoff	= (u8)(w >> 48),
	};

	return b;
}

static inline bool thpnuma_budget_over(struct thpnuma_budget b, u64 budget_ns)
{
	return b.est_ns > budget_ns;
}

/*
 * Faults per probe while over budget. A backoff past the maximum (a
 * corrupt word) counts as the maximum rather than shifting too far.
 */
static inline unsigned int thpnuma_budget_period(struct thpnuma_budget b)
{
	unsigned int backoff = b.backoff;

	if (backoff > THPNUMA_BUDGET_MAX_BACKOFF)
		backoff = THPNUMA_BUDGET_MAX_BACKOFF;
	return 1u << (THPNUMA_BUDGET_MIN_SHIFT +
		      THPNUMA_BUDGET_GROWTH_SHIFT * backoff);
}

/*
 * Compared with this fault's budget, so that per-process and per-cgroup
 * budgets share the node's estimate. The caller writes *@b back before
 * the attempt: one fault claims the probe, concurrent ones skip.
 */
static inline enum thpnuma_budget_decision
thpnuma_budget_decide(struct thpnuma_budget *b, u64 budget_ns)
{
	if (!thpnuma_budget_over(*b, budget_ns))
		return THPNUMA_BD_EFFORT;
	if (b->since < U16_MAX)
		b->since++;
	if (b->since >= thpnuma_budget_period(*b)) {
		b->since = 0;
		return THPNUMA_BD_PROBE;
	}
	return THPNUMA_BD_SKIP;
}

/*
 * @est_ns moved 1/4 of the way to @sample_ns, both within u32; with no
 * estimate yet (0), the sample itself.
 */
static inline u32 thpnuma_budget_ewma(u32 est_ns, u64 sample_ns)
{
	s64 sample = sample_ns > U32_MAX ? U32_MAX : sample_ns;
	s64 est = est_ns;

	if (!est_ns)
		return sample;

	/* An arithmetic shift: est reaches a smaller sample, not just near. */
	est += (sample - est) >> THPNUMA_BUDGET_EWMA_SHIFT;
	if (est < 0)
		return 0;
	if (est > U32_MAX)
		return U32_MAX;
	return est;
}

/*
 * The sample of an attempt that took effort: the time its compaction and
 * reclaim took. One the budget cut (@cut) would have cost more: it counts
 * as over the budget, whatever it took until the cut.
 */
static inline u64 thpnuma_budget_sample(u64 effort_ns, bool cut,
					u64 budget_ns)
{
	if (cut && effort_ns <= budget_ns)
		return budget_ns + 1;
	return effort_ns;
}

/*
 * After the local attempt, on the state re-read then: the attempt may have
 * slept in reclaim while other faults wrote the word. @effort: the attempt
 * compacted or reclaimed, and @local_ns is its time; @got_local: it got a
 * THP on the local node.
 */
static inline void thpnuma_budget_update(struct thpnuma_budget *b,
					 enum thpnuma_budget_decision d,
					 bool effort, bool got_local,
					 u64 local_ns, u64 budget_ns)
{
	bool was_over = thpnuma_budget_over(*b, budget_ns);

	switch (d) {
	case THPNUMA_BD_EFFORT:
		/* Cheap attempts never write the word. */
		if (!effort)
			return;
		b->est_ns = thpnuma_budget_ewma(b->est_ns, local_ns);
		/* Crossed: probing starts at the shortest period. */
		if (!was_over && thpnuma_budget_over(*b, budget_ns)) {
			b->since = 0;
			b->backoff = 0;
		}
		return;
	case THPNUMA_BD_PROBE:
		if (!effort) {
			/* Free memory again: recover. A failure tells nothing. */
			if (got_local) {
				b->est_ns = 0;
				b->backoff = 0;
				b->since = 0;
			}
			return;
		}
		if (local_ns <= budget_ns) {
			/* One cheap sample outweighs an old expensive past. */
			b->est_ns = local_ns > U32_MAX ? U32_MAX : local_ns;
			b->backoff = 0;
		} else {
			b->est_ns = thpnuma_budget_ewma(b->est_ns, local_ns);
			if (b->backoff < THPNUMA_BUDGET_MAX_BACKOFF)
				b->backoff++;
			else
				b->backoff = THPNUMA_BUDGET_MAX_BACKOFF;
		}
		b->since = 0;
		return;
	case THPNUMA_BD_SKIP:
	case THPNUMA_BD_NONE:
		return;
	}
}

#endif /* THPNUMA_BUDGET_H */
