/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the in-guest C tests: files, counters, module, memory. */
#ifndef THPNUMA_TEST_H
#define THPNUMA_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

#define THPNUMA_DEBUGFS	"/sys/kernel/debug/thpnuma"
#define THPNUMA_KO	"/lib/thpnuma.ko"
#define THP_SYSFS	"/sys/kernel/mm/transparent_hugepage"
#define MAX_NODES	8
#define NR_STATS	11
#define HPAGE_SIZE	(2UL << 20)
#define MiB		(1UL << 20)

enum { ST_LOCAL, ST_REMOTE, ST_FALLBACK, ST_PASSTHROUGH, ST_REMOTE_IN,
	ST_COMPACT_STALL, ST_COMPACT_SUCCESS, ST_COMPACT_FAIL,
	ST_RECLAIM_STALL, ST_RECLAIM_PAGES, ST_ALLOC_NS };

static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

static inline int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* The bracketed choice of a THP-style file, e.g. "always [madvise] never". */
static inline int read_choice(const char *path, char *out, size_t size)
{
	char buf[256], *l, *r;

	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!r)
		return -1;
	*r = '\0';
	snprintf(out, size, "%s", l + 1);
	return 0;
}

static inline long vmstat(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long val = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			val = atol(line + len + 1);
	fclose(f);
	return val;
}

static inline int nr_nodes(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

static inline void node_thps(long *thps, int nodes)
{
	for (int n = 0; n < nodes; n++)
		thps[n] = wl_node_meminfo_kb(n, "AnonHugePages") / 2048;
}

struct thp_stats {
	int nodes;
	unsigned long long v[MAX_NODES][NR_STATS];
};

static inline int read_stats(struct thp_stats *s)
{
	char line[512];
	FILE *f = fopen(THPNUMA_DEBUGFS "/stats", "r");
	int node;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f) || strncmp(line, "node thp_local", 14)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long *v;

		if (sscanf(line, "%d", &node) != 1 || node < 0 || node >= MAX_NODES)
			break;
		v = s->v[node];
		if (sscanf(line, "%*d %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9], &v[10]) != NR_STATS)
			break;
		s->nodes = node + 1;
	}
	fclose(f);
	return s->nodes ? 0 : -1;
}

static inline unsigned long long stat_delta(const struct thp_stats *a,
					    const struct thp_stats *b,
					    int node, int counter)
{
	return b->v[node][counter] - a->v[node][counter];
}

static inline int module_load(const char *params)
{
	int fd = open(THPNUMA_KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

static inline int module_unload(void)
{
	return syscall(SYS_delete_module, "thpnuma", O_NONBLOCK) ? -errno : 0;
}

static inline int module_loaded(void)
{
	return access("/sys/module/thpnuma", F_OK) == 0;
}

/* Load with @params, unloading first whatever an earlier test left. */
static inline int module_fresh_load(const char *params)
{
	if (module_loaded())
		module_unload();
	return module_load(params);
}

/* Run on the first CPU of @node. */
static inline int pin_to_node(int node)
{
	char path[64], buf[64];
	cpu_set_t set;
	int cpu;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (read_file(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%d", &cpu) != 1)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static inline long set_mempolicy_nodes(int mode, unsigned long mask)
{
	return syscall(SYS_set_mempolicy, mode, mode ? &mask : NULL,
		       mode ? 8 * sizeof(mask) : 0);
}

/* A 2 MiB-aligned anonymous region; @advice is 0 or an madvise() advice. */
static inline char *map_region(size_t size, int advice)
{
	char *p = mmap(NULL, size + HPAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *aligned;

	if (p == MAP_FAILED)
		return NULL;
	aligned = (char *)(((unsigned long)p + HPAGE_SIZE - 1) & ~(HPAGE_SIZE - 1));
	if (aligned > p)
		munmap(p, aligned - p);
	munmap(aligned + size, p + HPAGE_SIZE - aligned);
	if (advice && madvise(aligned, size, advice)) {
		munmap(aligned, size);
		return NULL;
	}
	return aligned;
}

static inline void touch_region(char *p, size_t size)
{
	for (size_t off = 0; off < size; off += 4096)
		p[off] = 1;
}

/* Base-page memory bound to @node until its MemFree falls to @free_kb. */
static inline pid_t start_hog(int node, long free_kb)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		const size_t chunk = 4 * MiB;

		close(pipefd[0]);
		if (set_mempolicy_nodes(MPOL_BIND, 1UL << node))
			_exit(1);
		while (wl_node_meminfo_kb(node, "MemFree") > free_kb + 4096) {
			char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				break;
			madvise(p, chunk, MADV_NOHUGEPAGE);
			/* Same-filled pages: zram stores them almost for free. */
			memset(p, 0x5a, chunk);
		}
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		return -1;
	}
	close(pipefd[0]);
	return pid;
}

/*
 * The swap-storm setting: node 0 kept just above its low watermark, since
 * below it kswapd would start swapping on its own and blur what the
 * policies do.
 */
static inline pid_t start_storm_hog(void)
{
	return start_hog(0, wl_node_wmark_kb(0, "low") + 4 * 1024);
}

/* Whether a swap device is active (the storm needs zram swap). */
static inline bool swap_active(void)
{
	char swaps[512];

	return read_file("/proc/swaps", swaps, sizeof(swaps)) > 0 &&
	       strchr(strchr(swaps, '\n') ?: "", '/');
}

static inline void stop_hog(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* THP knobs a test changes, saved in setup and restored in teardown. */
struct thp_knobs {
	char enabled[32], defrag[32], scan_sleep[32], proactiveness[32];
};

static inline void thp_knobs_save(struct thp_knobs *k)
{
	read_choice(THP_SYSFS "/enabled", k->enabled, sizeof(k->enabled));
	read_choice(THP_SYSFS "/defrag", k->defrag, sizeof(k->defrag));
	read_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", k->scan_sleep,
		  sizeof(k->scan_sleep));
	read_file("/proc/sys/vm/compaction_proactiveness", k->proactiveness,
		  sizeof(k->proactiveness));
}

static inline void thp_knobs_restore(const struct thp_knobs *k)
{
	write_file(THP_SYSFS "/enabled", k->enabled);
	write_file(THP_SYSFS "/defrag", k->defrag);
	write_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", k->scan_sleep);
	write_file("/proc/sys/vm/compaction_proactiveness", k->proactiveness);
}

/*
 * THP only where asked; khugepaged kept from collapsing and kcompactd
 * from compacting proactively mid-test.
 */
static inline void thp_knobs_quiet(const char *enabled, const char *defrag)
{
	write_file(THP_SYSFS "/enabled", enabled);
	write_file(THP_SYSFS "/defrag", defrag);
	write_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", "3600000");
	write_file("/proc/sys/vm/compaction_proactiveness", "0");
}

/*
 * Count the 2 MiB chunks of [p, p + size) that are THPs, by node. Needs
 * root: /proc/self/pagemap gives PFNs and /proc/kpageflags their THP bit.
 */
static inline int region_thp_nodes(char *p, size_t size, long *per_node)
{
	size_t n = size / HPAGE_SIZE;
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int kflags = open("/proc/kpageflags", O_RDONLY);
	int ret = -1;

	memset(per_node, 0, MAX_NODES * sizeof(*per_node));
	if (pagemap < 0 || kflags < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *chunk = p + i * HPAGE_SIZE;
		unsigned long long entry, flags;
		int status;
		void *page = chunk;

		if (pread(pagemap, &entry, 8, (unsigned long)chunk / 4096 * 8) != 8)
			goto out;
		if (!(entry >> 63))
			continue;
		entry &= (1ULL << 55) - 1;
		if (pread(kflags, &flags, 8, entry * 8) != 8)
			goto out;
		if (!(flags & (1ULL << 22)))	/* KPF_THP */
			continue;
		if (syscall(SYS_move_pages, 0, 1, &page, NULL, &status, 0) ||
		    status < 0 || status >= MAX_NODES)
			goto out;
		per_node[status]++;
	}
	ret = 0;
out:
	if (pagemap >= 0)
		close(pagemap);
	if (kflags >= 0)
		close(kflags);
	return ret;
}

#define CGROUP_ROOT	"/sys/fs/cgroup"

/* Mounts cgroup v2 if needed; whether it offers the cpuset controller. */
static inline bool cpuset_available(void)
{
	char controllers[256];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		return false;
	return read_file(CGROUP_ROOT "/cgroup.controllers", controllers,
			 sizeof(controllers)) > 0 && strstr(controllers, "cpuset");
}

/*
 * Move this process into a new cgroup-v2 cpuset limited to @mems ("1").
 * Returns 0 or -errno.
 */
static inline int cpuset_enter(const char *name, const char *mems)
{
	char path[128], pid[16];
	int err;

	err = write_file(CGROUP_ROOT "/cgroup.subtree_control", "+cpuset");
	if (err)
		return err;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/cpuset.mems", name);
	err = write_file(path, mems);
	if (err)
		return err;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/cgroup.procs", name);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(path, pid);
}

/* Back to the root cgroup, and remove the one cpuset_enter() made. */
static inline void cpuset_leave(const char *name)
{
	char path[128], pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CGROUP_ROOT "/cgroup.procs", pid);
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", name);
	rmdir(path);
}

static inline void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	write_file("/proc/sys/vm/compact_memory", "1");
}

#endif /* THPNUMA_TEST_H */
