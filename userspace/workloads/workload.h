/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the thpnuma workloads share beyond userspace/lib: their common
 * options, timing, and faulting a region in 2 MiB chunks and reporting
 * where it landed, as text or as one JSON line.
 */
#ifndef THPNUMA_WORKLOAD_H
#define THPNUMA_WORKLOAD_H

#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "die.h"
#include "json.h"
#include "memory.h"
#include "nodes.h"
#include "text.h"

/* @s as a number from @min to @max, or exit 2 naming option --@opt. */
long parse_long_option(const char *opt, const char *s, long min, long max);
double now_seconds(void);	/* CLOCK_MONOTONIC seconds */
void sort_doubles(double *v, size_t n);
/* Nearest-rank quantile of sorted @v, @q from 0 to 1. */
double quantile(const double *sorted, size_t n, double q);

/* Options every workload takes: --node, --region, --json, --help. */
struct workload_options {
	int node;
	size_t region;
	bool json;
};
#define WORKLOAD_OPTIONS \
	{ "node", required_argument, NULL, 'n' }, \
	{ "region", required_argument, NULL, 'r' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }
/*
 * getopt_long over @longopts, which end with WORKLOAD_OPTIONS; @own
 * takes the program's other options and returns false for unknown ones.
 * --help prints @help and exits 0; a bad option prints it and exits 2.
 */
void workload_getopt(int argc, char **argv, const struct option *longopts,
		     const char *help, struct workload_options *co,
		     bool (*own)(int opt, const char *arg, void *ctx),
		     void *ctx);

/* Shmem THP counters of /proc/vmstat, beside memory.h's. */
enum file_vm_item { FILE_VM_THP_ALLOC, FILE_VM_THP_FALLBACK, NR_FILE_VM };

/* The result of faulting a region in 2 MiB chunks. */
struct region_fault {
	size_t size;
	double wall_s;		/* the whole region */
	double p50_us, p99_us, max_us;	/* per 2 MiB chunk */
	struct vmstat vm;	/* deltas over the fault */
	long file_vm[NR_FILE_VM];	/* thp_file_* deltas */
	double thp_pct;		/* PMD-mapped THPs / size, from smaps */
	long node_pages[MAX_NODES];	/* 4 KiB pages per node, move_pages */
	long missing_pages;	/* not resident (swapped out already) */
	int nodes;
};
/* Touch every 4 KiB page of @p, timing each 2 MiB chunk, then measure. */
void fault_region(char *p, size_t size, struct region_fault *f);
void measure_region(char *p, size_t size, struct region_fault *f);
double region_local_pct(const struct region_fault *f, int node);

/* The common context every workload reports: kernel, nodes, THP knobs. */
/*
 * kB of this process's VMA holding @p mapped by PMDs: AnonHugePages,
 * ShmemPmdMapped or FilePmdMapped, whichever the VMA is; -1 if none.
 */
long vma_pmd_mapped_kb(const void *p);

void json_workload_context(struct json_writer *j, const char *workload);
void json_region_fault(struct json_writer *j, const char *key,
		       const struct region_fault *f, int local_node);

/* Human summary of a fault, indented. */
void print_region_fault(FILE *out, const char *title,
			const struct region_fault *f, int local_node);

#endif /* THPNUMA_WORKLOAD_H */
