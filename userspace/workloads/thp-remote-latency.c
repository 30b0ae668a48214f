// SPDX-License-Identifier: GPL-2.0
/*
 * thp-remote-latency: David Rientjes' side of the debate. Fragment the
 * local node so no free 2 MiB block remains, fault a MADV_HUGEPAGE region
 * and measure random-access latency with a dependent pointer chase, next
 * to three baselines from the same run: local base pages, local THP and
 * remote THP (mbind).
 */
#include "workload.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>


struct opts {
	struct workload_options co;
	int remote;
	long accesses;
	bool baselines, fragment;
};

struct run {
	const char *name;
	struct region_fault f;
	double ns_per_access;
};

static const char help[] =
"usage: thp-remote-latency [options]\n"
"Local base pages vs local THP vs remote THP, and a THP fault on a\n"
"fragmented local node, compared by random-access latency.\n"
"  --node N          local node (default 0)\n"
"  --remote-node M   node for the remote-THP baseline (default: nearest)\n"
"  --region SIZE     size of each measured region (default 256M)\n"
"  --accesses N      pointer-chase steps per measurement (default 2000000)\n"
"  --no-baselines    skip the three baselines\n"
"  --no-fragment     fault the last region without fragmenting first\n"
"  --json            print one JSON line instead of the summary\n"
"  --help\n"
"Fragmenting fills the node's free memory with mlocked 4 KiB pages, frees\n"
"every other one, takes the free 2 MiB blocks left with mlocked THPs, and\n"
"sets vm.compact_unevictable_allowed=0 until exit so compaction cannot\n"
"undo it: run as root.\n";

static bool own_option(int opt, const char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'm':
		o->remote = parse_long_option("remote-node", arg, 0, MAX_NODES - 1);
		return true;
	case 'a':
		o->accesses = parse_long_option("accesses", arg, 1, 1L << 40);
		return true;
	case 'B':
		o->baselines = false;
		return true;
	case 'F':
		o->fragment = false;
		return true;
	}
	return false;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "remote-node", required_argument, NULL, 'm' },
		{ "accesses", required_argument, NULL, 'a' },
		{ "no-baselines", no_argument, NULL, 'B' },
		{ "no-fragment", no_argument, NULL, 'F' },
		WORKLOAD_OPTIONS,
	};

	*o = (struct opts){ .remote = -1, .co.region = 256 * MiB,
			    .accesses = 2000000, .baselines = true,
			    .fragment = true };
	workload_getopt(argc, argv, longopts, help, &o->co, own_option, o);
}

/*
 * One pointer per 4 KiB page, at a random cache line, in one random cycle
 * (Sattolo): every step is a dependent load on a page the TLB has likely
 * forgotten. Returns ns per step.
 */
static double chase(char *p, size_t size, long accesses)
{
	size_t pages = size / BASE_PAGE_SIZE;
	uint32_t *order = malloc(pages * sizeof(*order));
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	void **cur;
	double t;

	if (!order)
		die("malloc %zu", pages * sizeof(*order));
	for (size_t i = 0; i < pages; i++)
		order[i] = i;
	for (size_t i = pages - 1; i > 0; i--) {
		size_t j, tmp;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		j = seed % i;
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	/* Slot of page k: a cache line chosen from k, fixed for the run. */
#define SLOT(k) ((void **)(p + (size_t)(k) * BASE_PAGE_SIZE + ((k) * 37 % 64) * 64))
	for (size_t i = 0; i < pages; i++)
		*SLOT(order[i]) = SLOT(order[(i + 1) % pages]);
	cur = SLOT(order[0]);
#undef SLOT
	free(order);
	t = now_seconds();
	for (long i = 0; i < accesses; i++)
		cur = *cur;
	t = now_seconds() - t;
	/* Keep the chase from being optimised away. */
	__asm__ volatile("" : : "r"(cur));
	return t * 1e9 / accesses;
}

/* Map, optionally bind, fault, measure, chase, unmap. */
static void measure(struct run *r, const struct opts *o, int advice, int bind)
{
	char *p = map_hpage_aligned(o->co.region, advice);

	if (bind >= 0)
		mbind_node(p, o->co.region, MPOL_BIND, bind);
	fault_region(p, o->co.region, &r->f);
	r->ns_per_access = chase(p, o->co.region, o->accesses);
	if (munmap(p, o->co.region))
		die("munmap");
}

#define UNEVICTABLE_KNOB	"/proc/sys/vm/compact_unevictable_allowed"
static char unevictable_saved[16];

static void unevictable_write(const char *val)
{
	FILE *f = fopen(UNEVICTABLE_KNOB, "w");

	if (!f || fputs(val, f) < 0 || fclose(f))
		die("write %s to %s (run as root)", val, UNEVICTABLE_KNOB);
}

static void unevictable_restore(void)
{
	if (unevictable_saved[0])
		unevictable_write(unevictable_saved);
}

/* Compaction may not move mlocked pages until exit. */
static void pin_unevictable(void)
{
	FILE *f = fopen(UNEVICTABLE_KNOB, "r");

	if (!f || !fgets(unevictable_saved, sizeof(unevictable_saved), f))
		die("read %s", UNEVICTABLE_KNOB);
	fclose(f);
	atexit(unevictable_restore);
	unevictable_write("0");
}

#define FRAG_STEP	(256UL << 10)

struct frag {
	size_t locked_mb;	/* 4 KiB pages left locked */
	long mopped_thps;	/* free 2 MiB blocks taken afterwards */
	bool thp_refused;	/* a bound local THP fault then failed */
	long free_kb, free_hpages_before, free_hpages_after;
};

/* A node-bound region whose pages are mlocked as they fault. */
static char *map_locked(int node, size_t size, int advice)
{
	char *p = map_hpage_aligned(size, advice);

	mbind_node(p, size, MPOL_BIND, node);
	if (mlock2(p, size, MLOCK_ONFAULT))
		die("mlock2 %zu MiB (needs root or a large RLIMIT_MEMLOCK)",
		       size >> 20);
	return p;
}

/*
 * Fill the node with bound, mlocked base pages down to just above its
 * high watermark (kswapd stays asleep) and free every other one: half the
 * memory is free again in single pages. The free 2 MiB blocks left over
 * (the watermark reserve) are then taken with locked THPs, so none
 * remains and compaction may not move the locked pages to make one.
 */
static void fragment(int node, struct frag *fr)
{
	size_t cap = (size_t)node_meminfo_kb(node, "MemTotal") * 1024, used = 0;
	long stop_kb = node_watermark_kb(node, "high") + 8 * 1024;
	char *p, *mop;

	pin_unevictable();
	fr->free_hpages_before = node_free_hpages(node);
	p = map_locked(node, cap, MADV_NOHUGEPAGE);
	while (used + FRAG_STEP <= cap &&
	       node_meminfo_kb(node, "MemFree") > stop_kb) {
		for (size_t off = 0; off < FRAG_STEP; off += BASE_PAGE_SIZE)
			p[used + off] = 1;
		used += FRAG_STEP;
	}
	/* MADV_DONTNEED refuses locked ranges: unlock, punch, relock. */
	for (size_t chunk = 0; chunk < used; chunk += FRAG_STEP) {
		if (munlock(p + chunk, FRAG_STEP))
			die("munlock");
		for (size_t off = BASE_PAGE_SIZE; off < FRAG_STEP; off += 2 * BASE_PAGE_SIZE)
			if (madvise(p + chunk + off, BASE_PAGE_SIZE, MADV_DONTNEED))
				die("madvise(MADV_DONTNEED)");
		if (mlock2(p + chunk, FRAG_STEP, MLOCK_ONFAULT))
			die("mlock2");
	}
	fr->locked_mb = used >> 21;

	mop = map_locked(node, cap, MADV_HUGEPAGE);
	for (size_t off = 0; off < cap && node_free_hpages(node) > 0;
	     off += HPAGE_SIZE) {
		struct vmstat a, b;

		vmstat_read(&a);
		mop[off] = 1;
		vmstat_read(&b);
		/* No local THP even with compaction: nothing left to take. */
		if (b.v[VM_THP_FAULT_ALLOC] == a.v[VM_THP_FAULT_ALLOC]) {
			fr->thp_refused = true;
			break;
		}
		fr->mopped_thps++;
	}
	fr->free_kb = node_meminfo_kb(node, "MemFree");
	fr->free_hpages_after = node_free_hpages(node);
}

static void json_run(struct json_writer *j, const struct run *r, int node)
{
	json_region_fault(j, r->name, &r->f, node);
}

int main(int argc, char **argv)
{
	struct run runs[4] = {
		{ .name = "local_base" }, { .name = "local_thp" },
		{ .name = "remote_thp" }, { .name = "fragmented" },
	};
	struct frag fr = { 0 };
	struct opts o;
	int first;

	program_name = "thp-remote-latency";
	parse(argc, argv, &o);
	require_node(o.co.node);
	if (o.remote < 0)
		o.remote = nearest_other_node(o.co.node);
	if (o.remote < 0)
		fail(3, "this machine has one NUMA node with memory: remote "
			"THP cannot be measured (needs at least 2 nodes)");
	require_node(o.remote);
	if (o.remote == o.co.node)
		fail(2, "--remote-node must differ from --node");
	pin_to_node(o.co.node);

	first = o.baselines ? 0 : 3;
	if (o.baselines) {
		measure(&runs[0], &o, MADV_NOHUGEPAGE, o.co.node);
		measure(&runs[1], &o, MADV_HUGEPAGE, o.co.node);
		measure(&runs[2], &o, MADV_HUGEPAGE, o.remote);
	}
	if (o.fragment)
		fragment(o.co.node, &fr);
	/* No binding: the kernel (and thpnuma) choose the node. */
	measure(&runs[3], &o, MADV_HUGEPAGE, -1);

	if (o.co.json) {
		struct json_writer j;

		json_begin(&j, stdout, JSON_COMPACT, false);
		json_workload_context(&j, "thp-remote-latency");
		json_long(&j, "node", o.co.node);
		json_long(&j, "remote_node", o.remote);
		json_long(&j, "accesses", o.accesses);
		json_object(&j, "fragment", false);
		json_long(&j, "locked_mb", fr.locked_mb);
		json_long(&j, "node_free_kb", fr.free_kb);
		json_long(&j, "free_2m_blocks_before", fr.free_hpages_before);
		json_long(&j, "mopped_thps", fr.mopped_thps);
		json_long(&j, "local_thp_refused", fr.thp_refused);
		json_long(&j, "free_2m_blocks_after", fr.free_hpages_after);
		json_close(&j);
		json_object(&j, "ns_per_access", false);
		for (int i = first; i < 4; i++)
			json_double(&j, runs[i].name, runs[i].ns_per_access);
		json_close(&j);
		for (int i = first; i < 4; i++)
			json_run(&j, &runs[i], o.co.node);
		json_end(&j);
		return 0;
	}
	printf("thp-remote-latency: local node %d, remote node %d, %zu MiB regions, %ld accesses\n",
	       o.co.node, o.remote, o.co.region >> 20, o.accesses);
	if (o.fragment)
		printf("fragmented node %d: %zu MiB locked in every other 4 KiB page, "
		       "%ld free 2 MiB blocks taken by THPs%s; MemFree %ld MiB, "
		       "free 2 MiB blocks %ld -> %ld\n",
		       o.co.node, fr.locked_mb, fr.mopped_thps,
		       fr.thp_refused ? " until a local THP fault failed" : "",
		       fr.free_kb / 1024, fr.free_hpages_before,
		       fr.free_hpages_after);
	for (int i = first; i < 4; i++) {
		printf("%-11s %8.1f ns/access\n", runs[i].name, runs[i].ns_per_access);
		print_region_fault(stdout, "  region", &runs[i].f, o.co.node);
	}
	if (o.baselines)
		printf("remote THP / local base = %.2f, local THP / local base = %.2f, "
		       "fragmented / local base = %.2f\n",
		       runs[2].ns_per_access / runs[0].ns_per_access,
		       runs[1].ns_per_access / runs[0].ns_per_access,
		       runs[3].ns_per_access / runs[0].ns_per_access);
	return 0;
}
