// SPDX-License-Identifier: GPL-2.0
/*
 * thp-fault-bench: THP faults per second and base-page faults per second
 * on a free node, to measure what a fault-path hook costs.
 */
#include "workload.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct opts {
	struct workload_options co;
	double seconds;
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
"  --json            print one JSON line instead of the summary\n"
"  --help\n";

static bool own_option(int opt, const char *arg, void *ctx)
{
	struct opts *o = ctx;
	char *end;

	if (opt != 's')
		return false;
	o->seconds = strtod(arg, &end);
	if (end == arg || *end || o->seconds <= 0 || o->seconds > 3600)
		fail(2, "--seconds: '%s' is not a time in seconds", arg);
	return true;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "seconds", required_argument, NULL, 's' },
		WORKLOAD_OPTIONS,
	};

	*o = (struct opts){ .co.region = 8 * MiB, .seconds = 2 };
	workload_getopt(argc, argv, longopts, help, &o->co, own_option, o);
}

/* Map, fault every @stride bytes, unmap; until @seconds of faulting. */
static void run(const struct opts *o, int advice, size_t stride, struct rate *r)
{
	const long per_pass = o->co.region / stride;
	struct vmstat a, b, d;
	double *pass = NULL;
	size_t cap = 0;

	memset(r, 0, sizeof(*r));
	vmstat_read(&a);
	while (r->seconds < o->seconds) {
		char *p = map_hpage_aligned(o->co.region, advice);
		double t = now_seconds();

		for (size_t off = 0; off < o->co.region; off += stride)
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
	struct rate thp, base;
	struct opts o;

	program_name = "thp-fault-bench";
	parse(argc, argv, &o);
	require_node(o.co.node);
	pin_to_node(o.co.node);
	run(&o, MADV_HUGEPAGE, HPAGE_SIZE, &thp);
	run(&o, MADV_NOHUGEPAGE, BASE_PAGE_SIZE, &base);
	/* A THP run that fell back measures base faults, not THP faults. */
	if (thp.thp_alloc < thp.faults * 9 / 10)
		fprintf(stderr, "thp-fault-bench: warning: only %ld of %ld THP "
			"faults got a huge page (THP disabled or memory short?)\n",
			thp.thp_alloc, thp.faults);
	if (o.co.json) {
		struct json_writer j;

		json_begin(&j, stdout, JSON_COMPACT, false);
		json_workload_context(&j, "thp-fault-bench");
		json_long(&j, "node", o.co.node);
		json_long(&j, "region_mb", o.co.region >> 20);
		json_rate(&j, "thp", &thp);
		json_rate(&j, "base", &base);
		json_end(&j);
	} else {
		printf("thp-fault-bench: node %d, %zu MiB region\n", o.co.node,
		       o.co.region >> 20);
		printf("  THP faults:       %10.0f /s (%ld faults in %.2f s, "
		       "%ld got a THP); best pass %.0f /s\n",
		       thp.faults / thp.seconds, thp.faults, thp.seconds,
		       thp.thp_alloc, thp.best_per_sec);
		printf("  base-page faults: %10.0f /s (%ld faults in %.2f s); "
		       "best pass %.0f /s\n", base.faults / base.seconds,
		       base.faults, base.seconds, base.best_per_sec);
	}
	return 0;
}
