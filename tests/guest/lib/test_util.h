/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the in-guest C tests (test_util.c, linked into every
 * guest program): files, counters, the module, memory, cgroups, a seeded
 * PRNG. Nodes, pinning, aligned mappings, THP knobs and vmstat come from
 * the userspace library (nodes.h, memory.h), which exits on errors; the
 * stats file is parsed by name with its stats.c.
 */
#ifndef THPNUMA_TEST_UTIL_H
#define THPNUMA_TEST_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "budget.h"
#include "counters.h"
#include "policy.h"
#include "stats.h"
#include "orders.h"
#include "memory.h"
#include "nodes.h"

#define THPNUMA_DEBUGFS	"/sys/kernel/debug/thpnuma"
#define THPNUMA_KO	"/lib/thpnuma.ko"
#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage"

/* Whole-file I/O; 0 / bytes read, or -errno. */
int write_file(const char *path, const char *s);
int read_file(const char *path, char *buf, size_t size);
/* The bracketed choice of a THP-style file, e.g. "always [madvise] never". */
int read_choice(const char *path, char *out, size_t size);

/* A /proc/vmstat counter vmstat_read() does not keep (oom_kill); -1 if absent. */
long vmstat_value(const char *name);
/* THPs (AnonHugePages / 2 MiB) on each of @nodes nodes. */
void node_thps(long *thps, int nodes);

/*
 * The stats file, parsed by column name. @st starts zeroed ({ 0 }); a
 * read frees what it held before. 0, or -1 with @st empty.
 */
int read_stats(struct thpnuma_stats *st);
/* The same from text read earlier; parsing allocates (a big calloc). */
int parse_stats(const char *text, struct thpnuma_stats *st);
/* Counter @c of @node, 0 if @node has no row. */
uint64_t stat_of(const struct thpnuma_stats *st, int node, int c);
uint64_t stat_delta(const struct thpnuma_stats *a, const struct thpnuma_stats *b,
		    int node, int c);
/* Counter @c's delta summed over every node. */
uint64_t stat_delta_all(const struct thpnuma_stats *a,
			const struct thpnuma_stats *b, int c);

/* The module: finit_module/delete_module; 0 or -errno. */
/* The version file's probe_missed count; -1 if there is no such line. */
long read_probe_missed(void);
int module_load(const char *params);
int module_unload(void);
int module_loaded(void);
/* Load with @params, unloading first whatever an earlier test left. */
int module_fresh_load(const char *params);

/* set_mempolicy() with a node mask; MPOL_DEFAULT ignores @mask. */
long set_mempolicy_nodes(int mode, unsigned long mask);
void touch_region(char *p, size_t size);

/* Base-page memory bound to @node until its MemFree falls to @free_kb. */
pid_t start_hog(int node, long free_kb);
/* Node 0 just above its low watermark: the swap-storm setting. */
pid_t start_storm_hog(void);
void stop_hog(pid_t pid);
/*
 * Free memory and low watermark of @node's zones that user pages use (not
 * ZONE_DMA), in kB; node 0 filled with mlocked memory down to its low
 * watermark, which reclaim cannot free (stop it with stop_hog()).
 */
void user_zones_kb(int node, long *free_kb, long *low_kb);
pid_t start_locked_fill(void);
/*
 * The same on @node, to @above_kb (at least 4 MiB) above low, by a child
 * with oom_score_adj 1000 (the OOM killer's first choice, should the node
 * run out): the first allocations take what is left (node_headroom_kb()
 * says how much), the next ones fail, and reclaim frees nothing.
 * Tests lower vm.min_free_kbytes first: khugepaged raises it to tens of
 * MiB per node, and the per-CPU lists grow with it, so that much would
 * stay available. Its pid, or -1.
 */
pid_t start_locked_fill_on(int node, long above_kb);
/*
 * The same, then @free_kb of it freed again as scattered single pages:
 * free memory above every watermark that no THP fits in, which
 * compaction cannot join (with vm.compact_unevictable_allowed=0) and
 * reclaim skips as ready for compaction.
 */
pid_t start_fragmented_fill(int node, long free_kb);
/* Whether a swap device is active (the storm needs zram swap). */
bool swap_active(void);

/* THP knobs a test changes, saved in setup and restored in teardown. */
struct thp_knobs {
	char enabled[32], defrag[32], scan_sleep[32], proactiveness[32];
};
void thp_knobs_save(struct thp_knobs *k);
void thp_knobs_restore(const struct thp_knobs *k);
/* THP only where asked; khugepaged and proactive compaction kept quiet. */
void thp_knobs_quiet(const char *enabled, const char *defrag);

/*
 * For the tests that fill nodes: vm.min_free_kbytes back to 4 MiB
 * (khugepaged raises it to tens of MiB per node, and the per-CPU lists
 * and kswapd's refills grow with it) and vm.compact_unevictable_allowed
 * 0 (compaction may not move the fillers' mlocked pages).
 */
/*
 * @nr 2 MiB pages into @node's hugetlb pool (0 gives them back); how many
 * it holds. The pool takes free memory down to the min watermark and is
 * never reclaimed: a node without a THP-sized block of any order.
 */
long hugetlb_take(int node, long nr);

struct vm_knobs {
	char min_free[16], unevictable[8];
};
void vm_knobs_tight(struct vm_knobs *k);
void vm_knobs_restore(const struct vm_knobs *k);

/* THP chunks of [p, p + size) per node (needs root); 0 or -1. */
int region_thp_nodes(char *p, size_t size, long *per_node);

/* cgroup v2 cpusets: mounts cgroup2 if needed. */
bool cpuset_available(void);
int cpuset_enter(const char *name, const char *mems);	/* 0 or -errno */
void cpuset_leave(const char *name);
void drop_caches(void);

/* Seeded xorshift64*: runs repeat from the printed seed. */
void prng_seed(unsigned long long seed);
unsigned long long prng(void);
unsigned int prng_below(unsigned int n);
/* Seed from @env if set, otherwise from the clock; printed for replay. */
unsigned long long prng_seed_from_env(const char *env);
long env_long(const char *name, long def);

/*
 * The first kernel log line matching the harness's splat pattern (the
 * THPNUMA_SPLATS environment variable, from tools/vm/harness.py), or NULL.
 * *@known is false when no pattern was given.
 */
const char *dmesg_splat(char *line, size_t size, bool *known);

/*
 * The orders file (parsed by orders.c) as a table: per faulting node, THP
 * kind and order, the outcomes local, remote, fallback and passthrough.
 * 0, or -1 (the file is absent or malformed) with @t zeroed.
 */
struct orders_table {
	uint64_t v[MAX_NODES][THPNUMA_NR_KINDS][THPNUMA_ORDER_SLOTS]
		  [THPNUMA_NR_ORDER_OUTCOMES];
};
int read_orders(struct orders_table *t);
int parse_orders(const char *text, struct orders_table *t);
uint64_t orders_delta(const struct orders_table *a,
		      const struct orders_table *b, int node, int kind,
		      int order, int outcome);
/* @outcome's delta summed over every node, kind and order. */
uint64_t orders_delta_all(const struct orders_table *a,
			  const struct orders_table *b, int outcome);

/*
 * Folios mapped in [p, p + size), which must hold whole folios, by node
 * and order (order 0: pages of no large folio), from pagemap, kpageflags
 * and move_pages() (needs root). 0, or -1 if a page could not be read.
 */
#define FOLIO_ORDERS	(THPNUMA_MAX_THP_ORDER + 1)
int region_folios(char *p, size_t size, long per_node[][FOLIO_ORDERS]);

/*
 * A shared mapping of @fd (-1: MAP_ANONYMOUS) from offset 0, placed
 * 2 MiB-aligned so that shmem can map its huge pages; exits on failure.
 */
char *map_shared_aligned(size_t size, int fd);

/* An mTHP size's per-size stat (anon_fault_alloc, ...); -1 if absent. */
long mthp_stat(int size_kb, const char *name);

/*
 * What @node can give without reclaim, in kB: per zone, free pages above
 * the min watermark (boost left out), plus the per-CPU lists' pages.
 */
long node_headroom_kb(int node);

/* The thpnuma:thp_fault trace event, as its printed line gives it. */
#define TRACEFS		"/sys/kernel/tracing"
#define FAULT_EVENT_DIR	TRACEFS "/events/thpnuma/thp_fault"

struct fault_event {
	int pid, node, nid, order, override;
	unsigned int zone_reclaim;
	char policy[24], action[24], reason[16], kind[8], result[16],
	     local_attempt[16];
	unsigned long long compact_stall, compact_success, reclaim_stall;
	unsigned long long reclaim_pages, alloc_ns;
	unsigned int budget_us;
	char budget[8];			/* "-", effort, probe or skip */
	unsigned long long local_ns;	/* the local attempt's time */
	unsigned long long effort_ns;	/* in compaction and direct reclaim */
};

/* The event's names for the values of policy.h's lists. */
#define ACTION_NAME(a)	thpnuma_action_names[THPNUMA_ACT_##a]
#define REASON_NAME(r)	thpnuma_passthrough_reason_names[THPNUMA_PT_##r]
#define RESULT_NAME(r)	thpnuma_fault_result_names[THPNUMA_RESULT_##r]
#define LOCAL_NAME(l)	thpnuma_local_attempt_names[THPNUMA_LOCAL_##l]
#define BUDGET_NAME(d)	thpnuma_budget_decision_names[THPNUMA_BD_##d]

/* 1: @line is an event, parsed; 0: it is not one; -1: malformed. */
int parse_fault_event(const char *line, struct fault_event *e);
/* An empty 4 MiB trace buffer, tracing on, the event enabled; 0 or -errno. */
int fault_trace_start(void);
/*
 * The buffer's events, at most @max into @ev; how many. *@lost counts those
 * the buffer dropped and lines that did not parse (-1: no trace file).
 */
long fault_trace_read(struct fault_event *ev, long max, long *lost);

#endif /* THPNUMA_TEST_UTIL_H */
