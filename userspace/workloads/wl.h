/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the thpnuma workloads: sizes, NUMA syscalls without
 * libnuma, node memory, timed faults, THP coverage, placement and JSON.
 * Nothing here assumes a VM: it reads what a real machine exposes.
 */
#ifndef THPNUMA_WL_H
#define THPNUMA_WL_H

#define _GNU_SOURCE
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define WL_MAX_NODES	64
#define WL_PAGE		4096UL
#define WL_HPAGE	(2UL << 20)
#define WL_MiB		(1UL << 20)

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT	0
#define MPOL_PREFERRED	1
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3
#endif
#ifndef MPOL_MF_STRICT
#define MPOL_MF_STRICT	(1 << 0)
#endif

/* Print "prog: message: strerror(errno)" and exit 1. */
void wl_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "prog: message" and exit @code. */
void wl_fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
extern const char *wl_prog;

/* "400M", "2G", "4096", "64k"; returns 0 on a malformed size. */
size_t wl_parse_size(const char *s);
long wl_parse_long(const char *opt, const char *s, long min, long max);
double wl_now(void);	/* CLOCK_MONOTONIC seconds */
void wl_sort(double *v, size_t n);
/* Nearest-rank quantile of sorted @v, @q from 0 to 1. */
double wl_quantile(const double *sorted, size_t n, double q);

/* Options every workload takes: --node, --region, --json, --help. */
struct wl_common {
	int node;
	size_t region;
	bool json;
};
#define WL_COMMON_OPTIONS \
	{ "node", required_argument, NULL, 'n' }, \
	{ "region", required_argument, NULL, 'r' }, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "help", no_argument, NULL, 'h' }, \
	{ NULL, 0, NULL, 0 }
/*
 * getopt_long over @longopts, which end with WL_COMMON_OPTIONS; @own
 * takes the program's other options and returns false for unknown ones.
 * --help prints @help and exits 0; a bad option prints it and exits 2.
 */
void wl_getopt(int argc, char **argv, const struct option *longopts,
	       const char *help, struct wl_common *co,
	       bool (*own)(int opt, const char *arg, void *ctx), void *ctx);

/* Nodes and their memory. */
int wl_nr_nodes(void);			/* highest online node + 1 */
bool wl_node_online(int node);
void wl_require_node(int node);		/* exits with a message if absent */
int wl_other_node(int node);		/* nearest other node with memory, -1 if none */
long wl_node_meminfo_kb(int node, const char *key);
long wl_node_wmark_kb(int node, const char *which);	/* "min"/"low"/"high" */
/* Free 2 MiB blocks (larger ones count as several) in zones user pages can use. */
long wl_node_free_hpages(int node);
void wl_pin_to_node(int node);		/* all CPUs of @node, or exit */

/* Memory policy syscalls (no libnuma). */
void wl_mbind_node(void *p, size_t len, int mode, int node);
void wl_set_mempolicy_node(int mode, int node);	/* mode MPOL_DEFAULT: node ignored */

/* A 2 MiB-aligned anonymous mapping; @advice 0 or an madvise() advice. */
char *wl_map(size_t size, int advice);

/* THP knobs, read as the bracketed choice. */
void wl_thp_setting(const char *knob, char *out, size_t size);

/* Counters from /proc/vmstat the reports care about. */
enum { VM_PSWPOUT, VM_PSWPIN, VM_COMPACT_STALL, VM_THP_FAULT_ALLOC,
	VM_THP_FAULT_FALLBACK, VM_PGSCAN_DIRECT, NR_VM };
extern const char *const wl_vm_names[NR_VM];
struct wl_vmstat {
	long v[NR_VM];
};
void wl_vmstat_read(struct wl_vmstat *s);
void wl_vmstat_delta(struct wl_vmstat *d, const struct wl_vmstat *a,
		     const struct wl_vmstat *b);

/* The result of faulting a region in 2 MiB chunks. */
struct wl_fault {
	size_t size;
	double wall_s;		/* the whole region */
	double p50_us, p99_us, max_us;	/* per 2 MiB chunk */
	struct wl_vmstat vm;	/* deltas over the fault */
	double thp_pct;		/* AnonHugePages / size, from smaps */
	long node_pages[WL_MAX_NODES];	/* 4 KiB pages per node, move_pages */
	long missing_pages;	/* not resident (swapped out already) */
	int nodes;
};
/* Touch every 4 KiB page of @p, timing each 2 MiB chunk, then measure. */
void wl_fault_region(char *p, size_t size, struct wl_fault *f);
void wl_measure_region(char *p, size_t size, struct wl_fault *f);
double wl_local_pct(const struct wl_fault *f, int node);
long wl_thp_kb(const void *p);	/* AnonHugePages of the VMA holding @p */

/* One-line JSON, built field by field. */
struct wl_json {
	FILE *out;
	int depth;
	bool first[8];
};
void wl_json_begin(struct wl_json *j, FILE *out);
void wl_json_end(struct wl_json *j);	/* closes the line */
void wl_json_obj(struct wl_json *j, const char *key);	/* nested object */
void wl_json_close(struct wl_json *j);
void wl_json_str(struct wl_json *j, const char *key, const char *val);
void wl_json_long(struct wl_json *j, const char *key, long val);
void wl_json_double(struct wl_json *j, const char *key, double val);
void wl_json_longs(struct wl_json *j, const char *key, const long *v, int n);
/* The common context every workload reports: kernel, nodes, THP knobs. */
void wl_json_context(struct wl_json *j, const char *workload);
void wl_json_fault(struct wl_json *j, const char *key,
		   const struct wl_fault *f, int local_node);

/* Human summary of a fault, indented. */
void wl_print_fault(FILE *out, const char *title, const struct wl_fault *f,
		    int local_node);

#endif /* THPNUMA_WL_H */
