// SPDX-License-Identifier: GPL-2.0
/* What the workloads share beyond userspace/lib; see workload.h. */
#include "workload.h"

#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

long parse_long_option(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		fail(2, "--%s: '%s' is not a number from %ld to %ld",
			opt, s, min, max);
	return v;
}

double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void workload_getopt(int argc, char **argv, const struct option *longopts,
	       const char *help, struct workload_options *co,
	       bool (*own)(int opt, const char *arg, void *ctx), void *ctx)
{
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			co->node = parse_long_option("node", optarg, 0, MAX_NODES - 1);
			break;
		case 'r':
			co->region = parse_size(optarg);
			if (co->region < HPAGE_SIZE || co->region % HPAGE_SIZE)
				fail(2, "--region: '%s' is not a multiple of 2 MiB",
					optarg);
			break;
		case 'j':
			co->json = true;
			break;
		case 'h':
			fputs(help, stdout);
			exit(0);
		default:
			if (c == '?' || !own || !own(c, optarg, ctx)) {
				fputs(help, stderr);
				exit(2);
			}
		}
	}
	if (optind < argc)
		fail(2, "unexpected argument '%s' (see --help)", argv[optind]);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double quantile(const double *sorted, size_t n, double q)
{
	return n ? sorted[(size_t)((n - 1) * q)] : 0;
}

long vma_pmd_mapped_kb(const void *p)
{
	/* A VMA has one of them: anonymous, shmem or file memory. */
	static const char *const fields[] = {
		"AnonHugePages:", "ShmemPmdMapped:", "FilePmdMapped:",
	};
	unsigned long addr = (unsigned long)p, lo, hi;
	char line[512], name[64];
	bool in_vma = false, found = false;
	long kb = 0, v;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		die("open /proc/self/smaps");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (found)
				break;
			in_vma = addr >= lo && addr < hi;
			continue;
		}
		if (!in_vma || sscanf(line, "%63s %ld kB", name, &v) != 2)
			continue;
		for (size_t i = 0; i < sizeof(fields) / sizeof(*fields); i++) {
			if (!strcmp(name, fields[i])) {
				kb += v;
				found = true;
			}
		}
	}
	fclose(f);
	return found ? kb : -1;
}

static const char *const file_vm_names[NR_FILE_VM] = {
	"thp_file_alloc", "thp_file_fallback",
};

static void file_vm_read(long *v)
{
	char line[256], name[64];
	long val;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("open /proc/vmstat");
	for (int i = 0; i < NR_FILE_VM; i++)
		v[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &val) != 2)
			continue;
		for (int i = 0; i < NR_FILE_VM; i++)
			if (!strcmp(name, file_vm_names[i]))
				v[i] = val;
	}
	fclose(f);
}

void measure_region(char *p, size_t size, struct region_fault *f)
{
	enum { BATCH = 4096 };
	void *pages[BATCH];
	int status[BATCH];
	long kb = vma_pmd_mapped_kb(p);

	f->thp_pct = kb < 0 ? 0 : 100.0 * kb * 1024 / size;
	f->nodes = nr_nodes();
	f->missing_pages = 0;
	for (int n = 0; n < MAX_NODES; n++)
		f->node_pages[n] = 0;
	for (size_t off = 0; off < size; ) {
		long n = 0;

		for (; n < BATCH && off < size; n++, off += BASE_PAGE_SIZE)
			pages[n] = p + off;
		/* Query mode: no target nodes, status gets each page's node. */
		if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
			die("move_pages (query)");
		for (long i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < MAX_NODES)
				f->node_pages[status[i]]++;
			else
				f->missing_pages++;
		}
	}
}

void fault_region(char *p, size_t size, struct region_fault *f)
{
	size_t chunks = size / HPAGE_SIZE;
	double *lat = calloc(chunks ? chunks : 1, sizeof(*lat));
	struct vmstat a, b;
	long fa[NR_FILE_VM], fb[NR_FILE_VM];
	double t0;

	if (!lat)
		die("calloc");
	f->size = size;
	vmstat_read(&a);
	file_vm_read(fa);
	t0 = now_seconds();
	for (size_t c = 0; c < chunks; c++) {
		char *chunk = p + c * HPAGE_SIZE;
		double t = now_seconds();

		/* The first touch may map a THP; the rest cover the fallback. */
		for (size_t off = 0; off < HPAGE_SIZE; off += BASE_PAGE_SIZE)
			chunk[off] = 1;
		lat[c] = (now_seconds() - t) * 1e6;
	}
	f->wall_s = now_seconds() - t0;
	vmstat_read(&b);
	file_vm_read(fb);
	vmstat_delta(&f->vm, &a, &b);
	for (int i = 0; i < NR_FILE_VM; i++)
		f->file_vm[i] = fb[i] - fa[i];
	sort_doubles(lat, chunks);
	f->p50_us = quantile(lat, chunks, 0.5);
	f->p99_us = quantile(lat, chunks, 0.99);
	f->max_us = quantile(lat, chunks, 1);
	free(lat);
	measure_region(p, size, f);
}

double region_local_pct(const struct region_fault *f, int node)
{
	long total = 0;

	for (int n = 0; n < f->nodes; n++)
		total += f->node_pages[n];
	return total ? 100.0 * f->node_pages[node] / total : 0;
}

void json_workload_context(struct json_writer *j, const char *workload)
{
	struct utsname u;
	char knob[32];

	uname(&u);
	json_string(j, "workload", workload);
	json_string(j, "kernel", u.release);
	json_long(j, "nodes", nr_nodes());
	thp_setting("enabled", knob, sizeof(knob));
	json_string(j, "thp_enabled", knob);
	thp_setting("defrag", knob, sizeof(knob));
	json_string(j, "thp_defrag", knob);
	thp_setting("shmem_enabled", knob, sizeof(knob));
	json_string(j, "thp_shmem_enabled", knob);
}

void json_region_fault(struct json_writer *j, const char *key,
		   const struct region_fault *f, int local_node)
{
	json_object(j, key, false);
	json_long(j, "region_mb", f->size >> 20);
	json_double(j, "wall_ms", f->wall_s * 1e3);
	json_double(j, "fault_p50_us", f->p50_us);
	json_double(j, "fault_p99_us", f->p99_us);
	json_double(j, "fault_max_us", f->max_us);
	json_object(j, "vmstat", false);
	for (int i = 0; i < NR_VM; i++)
		json_long(j, vmstat_names[i], f->vm.v[i]);
	for (int i = 0; i < NR_FILE_VM; i++)
		json_long(j, file_vm_names[i], f->file_vm[i]);
	json_close(j);
	json_double(j, "thp_pct", f->thp_pct);
	json_longs(j, "node_pages", f->node_pages, f->nodes);
	json_long(j, "missing_pages", f->missing_pages);
	json_double(j, "local_pct", region_local_pct(f, local_node));
	json_close(j);
}

void print_region_fault(FILE *out, const char *title, const struct region_fault *f,
		    int local_node)
{
	fprintf(out, "%s: %zu MiB faulted in %.1f ms\n", title, f->size >> 20,
		f->wall_s * 1e3);
	fprintf(out, "  fault latency per 2 MiB: p50 %.0f us, p99 %.0f us, max %.0f us\n",
		f->p50_us, f->p99_us, f->max_us);
	fprintf(out, "  vmstat:");
	for (int i = 0; i < NR_VM; i++)
		fprintf(out, " %s %ld", vmstat_names[i], f->vm.v[i]);
	for (int i = 0; i < NR_FILE_VM; i++)
		fprintf(out, " %s %ld", file_vm_names[i], f->file_vm[i]);
	fprintf(out, "\n  THP coverage %.1f%%; pages per node:", f->thp_pct);
	for (int n = 0; n < f->nodes; n++)
		fprintf(out, " node%d %ld", n, f->node_pages[n]);
	if (f->missing_pages)
		fprintf(out, " (not resident %ld)", f->missing_pages);
	fprintf(out, "; local (node %d) %.1f%%\n", local_node,
		region_local_pct(f, local_node));
}
