// SPDX-License-Identifier: GPL-2.0
/*
 * thp-fault-bench: THP faults per second and base-page faults per second
 * on a free node, to measure what a fault-path hook costs.
 */
#include "workload.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * What one run faults. The mTHP and shmem kinds fault with the sizes
 * the caller enabled (thpnuma-bench.sh sets the sysfs knobs per kind).
 */
struct kind {
	const char *name;
	bool shared;		/* MAP_SHARED|MAP_ANONYMOUS: shmem */
	int advice;		/* madvise() on the region, 0 for none */
	size_t stride;		/* one fault every @stride bytes */
};

static const struct kind kinds[] = {
	{ "thp", false, MADV_HUGEPAGE, HPAGE_SIZE },
	{ "base", false, MADV_NOHUGEPAGE, BASE_PAGE_SIZE },
	{ "mthp16", false, MADV_HUGEPAGE, 16 * 1024 },
	{ "mthp64", false, MADV_HUGEPAGE, 64 * 1024 },
	{ "shmem4k", true, MADV_NOHUGEPAGE, BASE_PAGE_SIZE },
	{ "shmem2m", true, MADV_HUGEPAGE, HPAGE_SIZE },
};
#define NR_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct opts {
	struct workload_options co;
	double seconds;
	long passes;		/* a fixed number of passes, if > 0 */
	bool run_kind[NR_KINDS];
};

struct rate {
	long faults, passes;
	double seconds;		/* time spent faulting only */
	/*
	 * Rates of the fastest and the median pass: a pass the host (or a
	 * VM's host) preempted is slow, never fast, so the best pass is the
	 * steadiest estimate of what a fault costs.
	 */
	double best_per_sec, median_per_sec;
	long thp_alloc, thp_fallback;	/* vmstat deltas */
};

static const char help[] =
"usage: thp-fault-bench [options]\n"
"Fault a region over and over, as THPs (MADV_HUGEPAGE) and as base pages\n"
"(MADV_NOHUGEPAGE), and report faults per second of each: overall, of the\n"
"fastest pass and of the median pass.\n"
"  --node N          run on node N's CPUs (default 0)\n"
"  --region SIZE     region mapped, faulted and unmapped per pass (default 8M)\n"
"  --seconds S       faulting time per kind (default 2)\n"
"  --passes N        N passes per kind instead (the same work on both\n"
"                    sides of an A/B under an instruction clock)\n"
"  --kinds LIST      comma-separated: thp, base, mthp16, mthp64 (anonymous\n"
"                    mTHP, of the sizes sysfs enables), shmem4k, shmem2m\n"
"                    (default thp,base)\n"
"  --json            print one JSON line instead of the summary\n"
"  --help\n";

static bool own_option(int opt, const char *arg, void *ctx)
{
	struct opts *o = ctx;
	char *end, *list, *name, *save;

	switch (opt) {
	case 's':
		o->seconds = strtod(arg, &end);
		if (end == arg || *end || o->seconds <= 0 || o->seconds > 3600)
			fail(2, "--seconds: '%s' is not a time in seconds", arg);
		return true;
	case 'p':
		o->passes = strtol(arg, &end, 10);
		if (end == arg || *end || o->passes <= 0 || o->passes > 1000000)
			fail(2, "--passes: '%s' is not a count from 1 to 1000000", arg);
		return true;
	case 'k':
		memset(o->run_kind, 0, sizeof(o->run_kind));
		list = strdup(arg);
		if (!list)
			die("strdup");
		for (name = strtok_r(list, ",", &save); name;
		     name = strtok_r(NULL, ",", &save)) {
			size_t k;

			for (k = 0; k < NR_KINDS; k++)
				if (!strcmp(name, kinds[k].name))
					break;
			if (k == NR_KINDS)
				fail(2, "--kinds: no kind '%s'", name);
			o->run_kind[k] = true;
		}
		free(list);
		return true;
	}
	return false;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "passes", required_argument, NULL, 'p' },
		{ "kinds", required_argument, NULL, 'k' },
		WORKLOAD_OPTIONS,
	};

	*o = (struct opts){ .co.region = 8 * MiB, .seconds = 2,
			    .run_kind = { true, true } };
	workload_getopt(argc, argv, longopts, help, &o->co, own_option, o);
}

static char *map_region(const struct kind *k, size_t size)
{
	char *p, *start;

	if (!k->shared)
		return map_hpage_aligned(size, k->advice);
	/* 2 MiB more, for a 2 MiB-aligned start, as map_hpage_aligned(). */
	p = mmap(NULL, size + HPAGE_SIZE, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		die("mmap %zu MiB shared", size >> 20);
	start = (char *)(((uintptr_t)p + HPAGE_SIZE - 1) &
			 ~(uintptr_t)(HPAGE_SIZE - 1));
	if ((start > p && munmap(p, start - p)) ||
	    munmap(start + size, p + HPAGE_SIZE - start))
		die("munmap");
	if (madvise(start, size, k->advice))
		die("madvise");
	return start;
}

static bool more_passes(const struct opts *o, const struct rate *r)
{
	return o->passes > 0 ? r->passes < o->passes : r->seconds < o->seconds;
}

/* Map, fault every stride bytes, unmap; for --passes or --seconds. */
static void run(const struct opts *o, const struct kind *k, struct rate *r)
{
	const long per_pass = o->co.region / k->stride;
	struct vmstat a, b, d;
	double *pass = NULL;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	vmstat_read(&a);
	while (more_passes(o, r)) {
		char *p = map_region(k, o->co.region);
		double t = now_seconds();

		for (size_t off = 0; off < o->co.region; off += k->stride)
			p[off] = 1;
		t = now_seconds() - t;
		if ((size_t)r->passes == cap) {
			cap = cap ? 2 * cap : 256;
			pass = realloc(pass, cap * sizeof(*pass));
			if (!pass)
				die("realloc");
		}
		pass[r->passes++] = per_pass / t;
		r->seconds += t;
		r->faults += per_pass;
		if (munmap(p, o->co.region))
			die("munmap");
	}
	sort_doubles(pass, r->passes);
	r->best_per_sec = quantile(pass, r->passes, 1);
	r->median_per_sec = quantile(pass, r->passes, 0.5);
	free(pass);
	vmstat_read(&b);
	vmstat_delta(&d, &a, &b);
	r->thp_alloc = d.v[VM_THP_FAULT_ALLOC];
	r->thp_fallback = d.v[VM_THP_FAULT_FALLBACK];
}


static void json_rate(struct json_writer *j, const char *key, const struct rate *r)
{
	json_object(j, key, false);
	json_long(j, "faults", r->faults);
	json_double(j, "seconds", r->seconds);
	json_double(j, "per_sec", r->faults / r->seconds);
	json_long(j, "passes", r->passes);
	json_double(j, "best_pass_per_sec", r->best_per_sec);
	json_double(j, "median_pass_per_sec", r->median_per_sec);
	json_long(j, "thp_fault_alloc", r->thp_alloc);
	json_long(j, "thp_fault_fallback", r->thp_fallback);
	json_close(j);
}

int main(int argc, char **argv)
{
	struct rate rate[NR_KINDS];
	struct opts o;

	program_name = "thp-fault-bench";
	parse(argc, argv, &o);
	require_node(o.co.node);
	pin_to_node(o.co.node);
	for (size_t k = 0; k < NR_KINDS; k++)
		if (o.run_kind[k])
			run(&o, &kinds[k], &rate[k]);
	/* A THP run that fell back measures base faults, not THP faults. */
	if (o.run_kind[0] && rate[0].thp_alloc < rate[0].faults * 9 / 10)
		fprintf(stderr, "thp-fault-bench: warning: only %ld of %ld THP "
			"faults got a huge page (THP disabled or memory short?)\n",
			rate[0].thp_alloc, rate[0].faults);
	if (o.co.json) {
		struct json_writer j;

		json_begin(&j, stdout, JSON_COMPACT, false);
		json_workload_context(&j, "thp-fault-bench");
		json_long(&j, "node", o.co.node);
		json_long(&j, "region_mb", o.co.region >> 20);
		for (size_t k = 0; k < NR_KINDS; k++)
			if (o.run_kind[k])
				json_rate(&j, kinds[k].name, &rate[k]);
		json_end(&j);
		return 0;
	}
	printf("thp-fault-bench: node %d, %zu MiB region\n", o.co.node,
	       o.co.region >> 20);
	for (size_t k = 0; k < NR_KINDS; k++)
		if (o.run_kind[k])
			printf("  %-8s faults: %10.0f /s (%ld faults in %.2f s, "
			       "%ld PMD THPs); best pass %.0f /s\n",
			       kinds[k].name, rate[k].faults / rate[k].seconds,
			       rate[k].faults, rate[k].seconds,
			       rate[k].thp_alloc, rate[k].best_per_sec);
	return 0;
}
