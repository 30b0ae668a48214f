/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory as the tests and workloads see it: 2 MiB-aligned mappings, the
 * THP knobs, /proc/vmstat counters and a VMA's AnonHugePages.
 * Functions that cannot go on without an answer exit through die.h.
 */
#ifndef THPNUMA_MEMORY_H
#define THPNUMA_MEMORY_H

#include <stddef.h>

#define BASE_PAGE_SIZE	4096UL
#define HPAGE_SIZE	(2UL << 20)	/* a PMD-sized THP on x86_64 */
#define MiB		(1UL << 20)

/*
 * A 2 MiB-aligned anonymous mapping of @size bytes (MAP_NORESERVE);
 * @advice 0 or an madvise() advice such as MADV_HUGEPAGE.
 */
char *map_hpage_aligned(size_t size, int advice);

/* A THP knob (enabled, defrag) as its bracketed choice, or "unknown". */
void thp_setting(const char *knob, char *out, size_t size);

/* AnonHugePages in kB of this process's VMA holding @p; -1 if none. */
long vma_thp_kb(const void *p);

/* Counters from /proc/vmstat the reports care about. */
enum vmstat_item {
	VM_PSWPOUT, VM_PSWPIN, VM_COMPACT_STALL, VM_THP_FAULT_ALLOC,
	VM_THP_FAULT_FALLBACK, VM_PGSCAN_DIRECT, NR_VM
};
extern const char *const vmstat_names[NR_VM];

struct vmstat {
	long v[NR_VM];
};
void vmstat_read(struct vmstat *s);
/* @d = @b - @a */
void vmstat_delta(struct vmstat *d, const struct vmstat *a,
		  const struct vmstat *b);

#endif /* THPNUMA_MEMORY_H */
