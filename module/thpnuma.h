/* SPDX-License-Identifier: GPL-2.0 */
#ifndef THPNUMA_H
#define THPNUMA_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>
#include "policy.h"

/* Per-node counters; the order is the column order of the stats file. */
enum thpnuma_counter {
	THPNUMA_THP_LOCAL,
	THPNUMA_THP_REMOTE,
	THPNUMA_THP_FALLBACK,
	THPNUMA_PASSTHROUGH,
	THPNUMA_THP_REMOTE_IN,
	THPNUMA_COMPACT_STALL,
	THPNUMA_COMPACT_SUCCESS,
	THPNUMA_COMPACT_FAIL,
	THPNUMA_RECLAIM_STALL,
	THPNUMA_RECLAIM_PAGES,
	THPNUMA_ALLOC_NS,
	THPNUMA_NR_COUNTERS,
};

extern const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS];

/* [nid * THPNUMA_NR_COUNTERS + counter], one copy per CPU. */
extern u64 __percpu *thpnuma_counters;

/* Callers run with preemption disabled or accept this_cpu_add's guarantee. */
static inline void thpnuma_count(int nid, enum thpnuma_counter c, u64 delta)
{
	this_cpu_add(thpnuma_counters[nid * THPNUMA_NR_COUNTERS + c], delta);
}

int thpnuma_counters_init(void);
void thpnuma_counters_exit(void);
u64 *thpnuma_counters_snapshot(void);
void thpnuma_counters_reset(void);

/* Run-time configuration: updated under a lock, read locklessly. */
extern u32 thpnuma_config_word;

static inline struct thpnuma_config thpnuma_config_get(void)
{
	return thpnuma_config_unpack(READ_ONCE(thpnuma_config_word));
}

void thpnuma_config_update(size_t field_offset, unsigned int value);

int thpnuma_hooks_install(void);
void thpnuma_hooks_remove(void);
int thpnuma_probes_install(void);
void thpnuma_probes_remove(void);

int thpnuma_debugfs_init(void);
void thpnuma_debugfs_exit(void);

#endif /* THPNUMA_H */
