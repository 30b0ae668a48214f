// SPDX-License-Identifier: GPL-2.0
/* Mappings, THP knobs and vmstat; see memory.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "die.h"
#include "memory.h"
#include "text.h"

char *map_hpage_aligned(size_t size, int advice)
{
	char *p = mmap(NULL, size + HPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		die("mmap %zu MiB", size >> 20);
	aligned = (char *)(((unsigned long)p + HPAGE_SIZE - 1) & ~(HPAGE_SIZE - 1));
	if (aligned > p)
		munmap(p, aligned - p);
	munmap(aligned + size, p + HPAGE_SIZE - aligned);
	if (advice && madvise(aligned, size, advice))
		die("madvise(%d) %zu MiB", advice, size >> 20);
	return aligned;
}

void thp_setting(const char *knob, char *out, size_t size)
{
	char path[128], *text;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", knob);
	text = read_text(path);
	if (!text || bracketed_choice(text, out, size))
		snprintf(out, size, "unknown");
	free(text);
}

const char *const vmstat_names[NR_VM] = {
	"pswpout", "pswpin", "compact_stall", "thp_fault_alloc",
	"thp_fault_fallback", "pgscan_direct",
};

void vmstat_read(struct vmstat *s)
{
	char line[256], name[64];
	long val;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("open /proc/vmstat");
	for (int i = 0; i < NR_VM; i++)
		s->v[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &val) != 2)
			continue;
		for (int i = 0; i < NR_VM; i++)
			if (!strcmp(name, vmstat_names[i]))
				s->v[i] = val;
	}
	fclose(f);
}

void vmstat_delta(struct vmstat *d, const struct vmstat *a,
		     const struct vmstat *b)
{
	for (int i = 0; i < NR_VM; i++)
		d->v[i] = b->v[i] - a->v[i];
}

long vma_thp_kb(const void *p)
{
	unsigned long addr = (unsigned long)p, lo, hi;
	char line[512];
	bool in_vma = false;
	long kb = -1, v;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		die("open /proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			in_vma = addr >= lo && addr < hi;
			continue;
		}
		if (in_vma && sscanf(line, "AnonHugePages: %ld kB", &v) == 1) {
			kb = v;
			break;
		}
	}
	fclose(f);
	return kb;
}
