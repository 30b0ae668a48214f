// SPDX-License-Identifier: GPL-2.0
/*
 * thp-swapstorm: the 2015-2019 regression. Fill one node, then fault a
 * MADV_HUGEPAGE region from a CPU of that node and see what it costs:
 * swap-outs, compaction stalls, fault latency, where the pages went. The
 * region is anonymous memory or, like a database's shared buffer, shmem.
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FILL_CHUNK	(4 * MiB)

struct opts {
	struct workload_options co;
	const char *fill_level;
	bool fill_pagecache;
	const char *fill_dir;
	bool shmem;
};

static const char help[] =
"usage: thp-swapstorm [options]\n"
"Fill a NUMA node, then fault a MADV_HUGEPAGE region from one of its CPUs.\n"
"  --node N          node to fill and fault from (default 0)\n"
"  --fill-level L    how full to make the node: 'wmark' (just above its low\n"
"                    watermark, the default), 'N%%' of its memory in use, or\n"
"                    0 (no fill: a free node)\n"
"  --fill-kind K     anon (bound anonymous memory, the default) or pagecache\n"
"                    (a file written under --fill-dir, page cache bound to\n"
"                    the node; on tmpfs that is shmem, which swaps)\n"
"  --fill-dir DIR    where the pagecache fill file goes (default .)\n"
"  --region SIZE     size of the faulted region (default 400M)\n"
"  --memory M        anon (MAP_PRIVATE, the default) or shmem (MAP_SHARED|\n"
"                    MAP_ANONYMOUS, a database's shared buffer: huge pages\n"
"                    need shmem_enabled always or advise)\n"
"  --json            print one JSON line instead of the summary\n"
"  --help\n"
"Reports wall time, fault latency per 2 MiB (p50, p99, max), /proc/vmstat\n"
"deltas, THP coverage (smaps) and per-node placement (move_pages).\n";

static bool own_option(int opt, const char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'l':
		o->fill_level = arg;
		return true;
	case 'k':
		if (strcmp(arg, "anon") && strcmp(arg, "pagecache"))
			fail(2, "--fill-kind: '%s' is not anon or pagecache", arg);
		o->fill_pagecache = !strcmp(arg, "pagecache");
		return true;
	case 'd':
		o->fill_dir = arg;
		return true;
	case 'm':
		if (strcmp(arg, "anon") && strcmp(arg, "shmem"))
			fail(2, "--memory: '%s' is not anon or shmem", arg);
		o->shmem = !strcmp(arg, "shmem");
		return true;
	}
	return false;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "fill-level", required_argument, NULL, 'l' },
		{ "fill-kind", required_argument, NULL, 'k' },
		{ "fill-dir", required_argument, NULL, 'd' },
		{ "memory", required_argument, NULL, 'm' },
		WORKLOAD_OPTIONS,
	};

	*o = (struct opts){ .fill_level = "wmark", .fill_dir = ".",
			    .co.region = 400 * MiB };
	workload_getopt(argc, argv, longopts, help, &o->co, own_option, o);
}

/* MemFree, in kB, at which the fill stops. */
static long fill_target_kb(const struct opts *o)
{
	long total = node_meminfo_kb(o->co.node, "MemTotal");
	long floor = node_watermark_kb(o->co.node, "min") + 8 * 1024;
	long target;
	char *end;
	double pct;

	if (!strcmp(o->fill_level, "wmark"))
		return node_watermark_kb(o->co.node, "low") + 4 * 1024;
	pct = strtod(o->fill_level, &end);
	if (end == o->fill_level || (*end && strcmp(end, "%")) || pct < 0 || pct > 100)
		fail(2, "--fill-level: '%s' is not 'wmark' or a percentage",
			o->fill_level);
	if (pct == 0)
		return -1;
	target = total - (long)(total * pct / 100);
	/* Below the min watermark a bound fill would only meet the OOM killer. */
	return target < floor ? floor : target;
}

/* Anonymous base pages bound to the node, same-filled so zram stores them cheaply. */
static size_t fill_anon(int node, long target_kb)
{
	size_t cap = (size_t)node_meminfo_kb(node, "MemTotal") * 1024;
	char *p = map_hpage_aligned(cap, MADV_NOHUGEPAGE);
	size_t used = 0;

	mbind_node(p, cap, MPOL_BIND, node);
	while (used + FILL_CHUNK <= cap &&
	       node_meminfo_kb(node, "MemFree") > target_kb + 4096) {
		memset(p + used, 0x5a, FILL_CHUNK);
		used += FILL_CHUNK;
	}
	return used;
}

/* Page cache of an unlinked file under @dir, allocated on the node. */
static size_t fill_pagecache(int node, long target_kb, const char *dir)
{
	static char buf[1 << 20];
	char path[4096];
	size_t used = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/thp-swapstorm.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		die("create a fill file in %s", dir);
	/* Kept open, gone from the directory: it cannot outlive the process. */
	if (unlink(path))
		die("unlink %s", path);
	memset(buf, 0x5a, sizeof(buf));
	set_mempolicy_node(MPOL_BIND, node);
	while (node_meminfo_kb(node, "MemFree") > target_kb + 4096) {
		for (size_t off = 0; off < FILL_CHUNK; ) {
			ssize_t n = write(fd, buf, sizeof(buf));

			if (n < 0)
				die("write the fill file in %s (%zu MiB written)",
				       dir, used >> 20);
			off += n;
			used += n;
		}
	}
	set_mempolicy_node(MPOL_DEFAULT, 0);
	return used;
}

/*
 * A shared anonymous mapping, as PostgreSQL maps its shared buffers:
 * shmem, put in place of an aligned reservation so that the address and
 * the file offset (0) are both 2 MiB-aligned, which a PMD mapping needs.
 */
static char *map_shmem(size_t size)
{
	char *p = map_hpage_aligned(size, 0);

	if (mmap(p, size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		die("mmap shared %zu MiB", size >> 20);
	if (madvise(p, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE) shared %zu MiB", size >> 20);
	return p;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct region_fault f;
	long target_kb, free_before, free_filled;
	size_t filled = 0;
	char *region;

	program_name = "thp-swapstorm";
	parse(argc, argv, &o);
	require_node(o.co.node);
	pin_to_node(o.co.node);
	target_kb = fill_target_kb(&o);
	free_before = node_meminfo_kb(o.co.node, "MemFree");
	if (target_kb >= 0)
		filled = o.fill_pagecache ?
			fill_pagecache(o.co.node, target_kb, o.fill_dir) :
			fill_anon(o.co.node, target_kb);
	free_filled = node_meminfo_kb(o.co.node, "MemFree");

	region = o.shmem ? map_shmem(o.co.region) :
		map_hpage_aligned(o.co.region, MADV_HUGEPAGE);
	fault_region(region, o.co.region, &f);

	if (o.co.json) {
		struct json_writer j;

		json_begin(&j, stdout, JSON_COMPACT, false);
		json_workload_context(&j, "thp-swapstorm");
		json_long(&j, "node", o.co.node);
		json_string(&j, "memory", o.shmem ? "shmem" : "anon");
		json_string(&j, "fill_kind", o.fill_pagecache ? "pagecache" : "anon");
		json_string(&j, "fill_level", o.fill_level);
		json_long(&j, "fill_mb", filled >> 20);
		json_long(&j, "node_free_kb_before", free_before);
		json_long(&j, "node_free_kb_filled", free_filled);
		json_long(&j, "node_free_kb_after",
			     node_meminfo_kb(o.co.node, "MemFree"));
		json_region_fault(&j, "fault", &f, o.co.node);
		json_end(&j);
	} else {
		printf("thp-swapstorm: node %d, fill %s %s: %zu MiB "
		       "(MemFree %ld -> %ld MiB), %s region\n", o.co.node,
		       o.fill_pagecache ? "pagecache" : "anon", o.fill_level,
		       filled >> 20, free_before / 1024, free_filled / 1024,
		       o.shmem ? "shmem" : "anon");
		print_region_fault(stdout, "region", &f, o.co.node);
	}
	return 0;
}
