// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the thpnuma workloads; see wl.h. */
#include "wl.h"

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

const char *wl_prog = "workload";

void wl_die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", wl_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

void wl_fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

size_t wl_parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
		break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	return *end ? 0 : v;
}

long wl_parse_long(const char *opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		wl_fail(2, "--%s: '%s' is not a number from %ld to %ld",
			opt, s, min, max);
	return v;
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void wl_getopt(int argc, char **argv, const struct option *longopts,
	       const char *help, struct wl_common *co,
	       bool (*own)(int opt, const char *arg, void *ctx), void *ctx)
{
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			co->node = wl_parse_long("node", optarg, 0, WL_MAX_NODES - 1);
			break;
		case 'r':
			co->region = wl_parse_size(optarg);
			if (co->region < WL_HPAGE || co->region % WL_HPAGE)
				wl_fail(2, "--region: '%s' is not a multiple of 2 MiB",
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
		wl_fail(2, "unexpected argument '%s' (see --help)", argv[optind]);
}

static int read_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return n;
}

bool wl_node_online(int node)
{
	char path[80];

	if (node < 0 || node >= WL_MAX_NODES)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	return access(path, R_OK) == 0;
}

int wl_nr_nodes(void)
{
	int last = -1;

	for (int n = 0; n < WL_MAX_NODES; n++)
		if (wl_node_online(n))
			last = n;
	return last + 1;
}

void wl_require_node(int node)
{
	if (!wl_node_online(node))
		wl_fail(2, "node %d does not exist here (see /sys/devices/system/node)",
			node);
}

/* SLIT distance from /sys; 10 for the node itself, a large value if unknown. */
static int node_distance(int from, int to)
{
	char path[80], buf[512], *p = buf, *end;
	long d = 255;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", from);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return from == to ? 10 : 255;
	for (int i = 0; i <= to; i++) {
		d = strtol(p, &end, 10);
		if (end == p)
			return 255;
		p = end;
	}
	return d;
}

int wl_other_node(int node)
{
	int best = -1, best_d = 1 << 30;

	for (int n = 0; n < wl_nr_nodes(); n++) {
		int d;

		if (n == node || !wl_node_online(n) ||
		    wl_node_meminfo_kb(n, "MemTotal") <= 0)
			continue;
		d = node_distance(node, n);
		if (d < best_d) {
			best = n;
			best_d = d;
		}
	}
	return best;
}

long wl_node_meminfo_kb(int node, const char *key)
{
	char path[80], line[256], name[64];
	long val = -1, kb;
	int nid;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d %63[^:]: %ld", &nid, name, &kb) == 3 &&
		    !strcmp(name, key))
			val = kb;
	fclose(f);
	return val;
}

long wl_node_wmark_kb(int node, const char *which)
{
	char fmt[32], line[256];
	long sum = 0, pages;
	int nid, in_node = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		wl_die("open /proc/zoneinfo");
	snprintf(fmt, sizeof(fmt), " %s %%ld", which);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &nid) == 1)
			in_node = nid == node;
		else if (in_node && sscanf(line, fmt, &pages) == 1)
			sum += pages;
	}
	fclose(f);
	return sum * (WL_PAGE / 1024);
}

/*
 * Whether a user-page allocation can ever use this zone of @node: not if
 * its lowmem reserve for the highest zone is all it has (e.g. ZONE_DMA).
 */
static bool zone_serves_user_pages(int node, const char *zone)
{
	char line[512], name[32];
	long managed = -1, prot = 0;
	int nid, in_zone = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		wl_die("open /proc/zoneinfo");
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (sscanf(line, "Node %d, zone %31s", &nid, name) == 2) {
			in_zone = nid == node && !strcmp(name, zone);
			continue;
		}
		if (!in_zone)
			continue;
		if (sscanf(line, " managed %ld", &managed) == 1)
			continue;
		p = strstr(line, "protection: (");
		if (p) {
			/* The last entry: the reserve against the highest zone. */
			char *last = strrchr(p, ',');

			prot = atol(last ? last + 1 : p + strlen("protection: ("));
		}
	}
	fclose(f);
	return managed > prot;
}

long wl_node_free_hpages(int node)
{
	const int hpage_order = 9;	/* 2 MiB of 4 KiB pages */
	char line[512], zone[32];
	long total = 0;
	int nid, off;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p;
		long count;

		if (sscanf(line, "Node %d, zone %31s%n", &nid, zone, &off) != 2 ||
		    nid != node || !zone_serves_user_pages(node, zone))
			continue;
		p = line + off;
		for (int order = 0; ; order++) {
			char *end;

			count = strtol(p, &end, 10);
			if (end == p)
				break;
			p = end;
			if (order >= hpage_order)
				total += count << (order - hpage_order);
		}
	}
	fclose(f);
	return total;
}

/* Parse a cpulist such as "0-3,8-11" into @set. */
static int parse_cpulist(const char *s, cpu_set_t *set)
{
	int count = 0;

	CPU_ZERO(set);
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			s = end;
		}
		for (long c = a; c <= b && c < CPU_SETSIZE; c++) {
			CPU_SET(c, set);
			count++;
		}
		if (*s == ',')
			s++;
	}
	return count;
}

void wl_pin_to_node(int node)
{
	char path[80], buf[4096];
	cpu_set_t set;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (read_text(path, buf, sizeof(buf)) < 0)
		wl_die("read %s", path);
	if (parse_cpulist(buf, &set) <= 0)
		wl_fail(2, "node %d has no CPUs: a process cannot run there", node);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_die("sched_setaffinity to node %d's CPUs", node);
}

void wl_mbind_node(void *p, size_t len, int mode, int node)
{
	unsigned long mask[WL_MAX_NODES / (8 * sizeof(long))] = { 0 };

	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	/* maxnode is one more than the bits: the kernel's off-by-one. */
	if (syscall(SYS_mbind, p, len, mode, mask, WL_MAX_NODES + 1, 0))
		wl_die("mbind to node %d", node);
}

void wl_set_mempolicy_node(int mode, int node)
{
	unsigned long mask[WL_MAX_NODES / (8 * sizeof(long))] = { 0 };
	long ret;

	if (mode == MPOL_DEFAULT) {
		ret = syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	} else {
		mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
		ret = syscall(SYS_set_mempolicy, mode, mask, WL_MAX_NODES + 1);
	}
	if (ret)
		wl_die("set_mempolicy(%d, node %d)", mode, node);
}

char *wl_map(size_t size, int advice)
{
	char *p = mmap(NULL, size + WL_HPAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		wl_die("mmap %zu MiB", size >> 20);
	aligned = (char *)(((unsigned long)p + WL_HPAGE - 1) & ~(WL_HPAGE - 1));
	if (aligned > p)
		munmap(p, aligned - p);
	munmap(aligned + size, p + WL_HPAGE - aligned);
	if (advice && madvise(aligned, size, advice))
		wl_die("madvise(%d) %zu MiB", advice, size >> 20);
	return aligned;
}

void wl_thp_setting(const char *knob, char *out, size_t size)
{
	char path[128], buf[256], *l, *r;

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", knob);
	snprintf(out, size, "unknown");
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return;
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (r) {
		*r = '\0';
		snprintf(out, size, "%s", l + 1);
	}
}

const char *const wl_vm_names[NR_VM] = {
	"pswpout", "pswpin", "compact_stall", "thp_fault_alloc",
	"thp_fault_fallback", "pgscan_direct",
};

void wl_vmstat_read(struct wl_vmstat *s)
{
	char line[256], name[64];
	long val;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		wl_die("open /proc/vmstat");
	for (int i = 0; i < NR_VM; i++)
		s->v[i] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &val) != 2)
			continue;
		for (int i = 0; i < NR_VM; i++)
			if (!strcmp(name, wl_vm_names[i]))
				s->v[i] = val;
	}
	fclose(f);
}

void wl_vmstat_delta(struct wl_vmstat *d, const struct wl_vmstat *a,
		     const struct wl_vmstat *b)
{
	for (int i = 0; i < NR_VM; i++)
		d->v[i] = b->v[i] - a->v[i];
}

long wl_thp_kb(const void *p)
{
	unsigned long addr = (unsigned long)p, lo, hi;
	char line[512];
	bool in_vma = false;
	long kb = -1, v;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		wl_die("open /proc/self/smaps");
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void wl_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double wl_quantile(const double *sorted, size_t n, double q)
{
	return n ? sorted[(size_t)((n - 1) * q)] : 0;
}

void wl_measure_region(char *p, size_t size, struct wl_fault *f)
{
	enum { BATCH = 4096 };
	void *pages[BATCH];
	int status[BATCH];
	long kb = wl_thp_kb(p);

	f->thp_pct = kb < 0 ? 0 : 100.0 * kb * 1024 / size;
	f->nodes = wl_nr_nodes();
	f->missing_pages = 0;
	for (int n = 0; n < WL_MAX_NODES; n++)
		f->node_pages[n] = 0;
	for (size_t off = 0; off < size; ) {
		long n = 0;

		for (; n < BATCH && off < size; n++, off += WL_PAGE)
			pages[n] = p + off;
		/* Query mode: no target nodes, status gets each page's node. */
		if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
			wl_die("move_pages (query)");
		for (long i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < WL_MAX_NODES)
				f->node_pages[status[i]]++;
			else
				f->missing_pages++;
		}
	}
}

void wl_fault_region(char *p, size_t size, struct wl_fault *f)
{
	size_t chunks = size / WL_HPAGE;
	double *lat = calloc(chunks ? chunks : 1, sizeof(*lat));
	struct wl_vmstat a, b;
	double t0;

	if (!lat)
		wl_die("calloc");
	f->size = size;
	wl_vmstat_read(&a);
	t0 = wl_now();
	for (size_t c = 0; c < chunks; c++) {
		char *chunk = p + c * WL_HPAGE;
		double t = wl_now();

		/* The first touch may map a THP; the rest cover the fallback. */
		for (size_t off = 0; off < WL_HPAGE; off += WL_PAGE)
			chunk[off] = 1;
		lat[c] = (wl_now() - t) * 1e6;
	}
	f->wall_s = wl_now() - t0;
	wl_vmstat_read(&b);
	wl_vmstat_delta(&f->vm, &a, &b);
	wl_sort(lat, chunks);
	f->p50_us = wl_quantile(lat, chunks, 0.5);
	f->p99_us = wl_quantile(lat, chunks, 0.99);
	f->max_us = wl_quantile(lat, chunks, 1);
	free(lat);
	wl_measure_region(p, size, f);
}

double wl_local_pct(const struct wl_fault *f, int node)
{
	long total = 0;

	for (int n = 0; n < f->nodes; n++)
		total += f->node_pages[n];
	return total ? 100.0 * f->node_pages[node] / total : 0;
}

static void json_key(struct wl_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	fprintf(j->out, "\"%s\":", key);
}

void wl_json_begin(struct wl_json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->first[0] = true;
	fputc('{', out);
}

void wl_json_end(struct wl_json *j)
{
	fputs("}\n", j->out);
	fflush(j->out);
}

void wl_json_obj(struct wl_json *j, const char *key)
{
	json_key(j, key);
	fputc('{', j->out);
	j->first[++j->depth] = true;
}

void wl_json_close(struct wl_json *j)
{
	fputc('}', j->out);
	j->depth--;
}

void wl_json_str(struct wl_json *j, const char *key, const char *val)
{
	json_key(j, key);
	fputc('"', j->out);
	for (; *val; val++)
		if (*val == '"' || *val == '\\')
			fprintf(j->out, "\\%c", *val);
		else if ((unsigned char)*val >= 0x20)
			fputc(*val, j->out);
	fputc('"', j->out);
}

void wl_json_long(struct wl_json *j, const char *key, long val)
{
	json_key(j, key);
	fprintf(j->out, "%ld", val);
}

void wl_json_double(struct wl_json *j, const char *key, double val)
{
	json_key(j, key);
	fprintf(j->out, "%.3f", val);
}

void wl_json_longs(struct wl_json *j, const char *key, const long *v, int n)
{
	json_key(j, key);
	fputc('[', j->out);
	for (int i = 0; i < n; i++)
		fprintf(j->out, "%s%ld", i ? "," : "", v[i]);
	fputc(']', j->out);
}

void wl_json_context(struct wl_json *j, const char *workload)
{
	struct utsname u;
	char knob[32];

	uname(&u);
	wl_json_str(j, "workload", workload);
	wl_json_str(j, "kernel", u.release);
	wl_json_long(j, "nodes", wl_nr_nodes());
	wl_thp_setting("enabled", knob, sizeof(knob));
	wl_json_str(j, "thp_enabled", knob);
	wl_thp_setting("defrag", knob, sizeof(knob));
	wl_json_str(j, "thp_defrag", knob);
}

void wl_json_fault(struct wl_json *j, const char *key,
		   const struct wl_fault *f, int local_node)
{
	wl_json_obj(j, key);
	wl_json_long(j, "region_mb", f->size >> 20);
	wl_json_double(j, "wall_ms", f->wall_s * 1e3);
	wl_json_double(j, "fault_p50_us", f->p50_us);
	wl_json_double(j, "fault_p99_us", f->p99_us);
	wl_json_double(j, "fault_max_us", f->max_us);
	wl_json_obj(j, "vmstat");
	for (int i = 0; i < NR_VM; i++)
		wl_json_long(j, wl_vm_names[i], f->vm.v[i]);
	wl_json_close(j);
	wl_json_double(j, "thp_pct", f->thp_pct);
	wl_json_longs(j, "node_pages", f->node_pages, f->nodes);
	wl_json_long(j, "missing_pages", f->missing_pages);
	wl_json_double(j, "local_pct", wl_local_pct(f, local_node));
	wl_json_close(j);
}

void wl_print_fault(FILE *out, const char *title, const struct wl_fault *f,
		    int local_node)
{
	fprintf(out, "%s: %zu MiB faulted in %.1f ms\n", title, f->size >> 20,
		f->wall_s * 1e3);
	fprintf(out, "  fault latency per 2 MiB: p50 %.0f us, p99 %.0f us, max %.0f us\n",
		f->p50_us, f->p99_us, f->max_us);
	fprintf(out, "  vmstat:");
	for (int i = 0; i < NR_VM; i++)
		fprintf(out, " %s %ld", wl_vm_names[i], f->vm.v[i]);
	fprintf(out, "\n  THP coverage %.1f%%; pages per node:", f->thp_pct);
	for (int n = 0; n < f->nodes; n++)
		fprintf(out, " node%d %ld", n, f->node_pages[n]);
	if (f->missing_pages)
		fprintf(out, " (not resident %ld)", f->missing_pages);
	fprintf(out, "; local (node %d) %.1f%%\n", local_node,
		wl_local_pct(f, local_node));
}
