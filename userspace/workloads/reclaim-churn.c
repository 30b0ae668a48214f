// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-churn: reclaim with no THP fault anywhere. Workers bound to one
 * node cycle over more memory than the node holds (kswapd and direct
 * reclaim, swapping), and workers in a memory cgroup cycle over more than
 * its memory.max (memcg reclaim). THP is disabled for the process
 * (PR_SET_THP_DISABLE, inherited by the workers), so whatever a THP-fault
 * hook costs here is its cost to the rest of the system.
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define CGROUP_ROOT	"/sys/fs/cgroup"
#define MAX_WORKERS	256

struct opts {
	struct workload_options co;	/* region: all node workers together */
	long workers, memcg_workers, passes, cpu;
	size_t memcg_max, memcg_region;
};

static const char help[] =
"usage: reclaim-churn [options]\n"
"Reclaim without THP faults: THP is disabled for the process, workers bound\n"
"to --node write every page of more memory than the node holds, pass after\n"
"pass, and workers in a memory cgroup do the same over more than its\n"
"memory.max. Needs swap, and root for the cgroup. Workers the OOM killer\n"
"kills are reported (workers_oom_killed), not failures.\n"
"  --node N              node whose memory is overcommitted (default 0)\n"
"  --region SIZE         memory of the node workers together\n"
"                        (default: 5/4 of the node's MemTotal)\n"
"  --workers K           workers bound to the node (default: its CPUs)\n"
"  --memcg-max SIZE      memory.max of the cgroup (default 32M; 0: no cgroup)\n"
"  --memcg-region SIZE   memory of the cgroup's workers together\n"
"                        (default: twice --memcg-max)\n"
"  --memcg-workers K     workers in the cgroup (default: as --workers)\n"
"  --passes P            passes over each worker's memory (default 2)\n"
"  --cpu C               every worker on CPU C (default: node workers on\n"
"                        the node's CPUs, cgroup workers anywhere)\n"
"  --json                print one JSON line instead of the summary\n"
"  --help\n";

static bool own_option(int opt, const char *arg, void *ctx)
{
	struct opts *o = ctx;

	switch (opt) {
	case 'w':
		o->workers = parse_long_option("workers", arg, 1, MAX_WORKERS);
		return true;
	case 'W':
		o->memcg_workers = parse_long_option("memcg-workers", arg, 1,
						     MAX_WORKERS);
		return true;
	case 'p':
		o->passes = parse_long_option("passes", arg, 1, 1000);
		return true;
	case 'c':
		o->cpu = parse_long_option("cpu", arg, 0, CPU_SETSIZE - 1);
		return true;
	case 'm':
		o->memcg_max = parse_size(arg);
		return true;
	case 'M':
		o->memcg_region = parse_size(arg);
		return true;
	}
	return false;
}

/* CPUs in /sys/devices/system/node/nodeN/cpulist ("0-3,8"). */
static long node_cpu_count(int node)
{
	char path[80], buf[1024], *s, *tok, *save;
	long count = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		die("read %s", path);
	fclose(f);
	for (s = buf; (tok = strtok_r(s, ",\n", &save)); s = NULL) {
		char *end;
		long a = strtol(tok, &end, 10);

		count += *end == '-' ? strtol(end + 1, NULL, 10) - a + 1 : 1;
	}
	return count;
}

static void parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "workers", required_argument, NULL, 'w' },
		{ "memcg-workers", required_argument, NULL, 'W' },
		{ "passes", required_argument, NULL, 'p' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "memcg-max", required_argument, NULL, 'm' },
		{ "memcg-region", required_argument, NULL, 'M' },
		WORKLOAD_OPTIONS,
	};

	*o = (struct opts){ .passes = 2, .cpu = -1, .memcg_max = 32 * MiB,
			    .memcg_region = (size_t)-1 };
	workload_getopt(argc, argv, longopts, help, &o->co, own_option, o);
	require_node(o->co.node);
	if (!o->workers)
		o->workers = node_cpu_count(o->co.node) ?: 1;
	if (!o->memcg_workers)
		o->memcg_workers = o->workers;
	if (!o->co.region)
		o->co.region = node_meminfo_kb(o->co.node, "MemTotal") * 1024 / 4 * 5;
	if (o->memcg_region == (size_t)-1)
		o->memcg_region = 2 * o->memcg_max;
}

/* One long from a "key value" line of a cgroup or proc file; -1 if none. */
static long keyed_value(const char *path, const char *key)
{
	size_t len = strlen(key);
	char line[256];
	long val = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ' ')
			val = atol(line + len + 1);
	fclose(f);
	return val;
}

static void write_or_die(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		die("write '%s' to %s", s, path);
	close(fd);
}

/* A new cgroup-v2 directory with memory.max @max; its path in @dir. */
static void memcg_create(char *dir, size_t size, size_t max)
{
	char path[160], val[32];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		die("mount cgroup2 on " CGROUP_ROOT);
	write_or_die(CGROUP_ROOT "/cgroup.subtree_control", "+memory");
	snprintf(dir, size, CGROUP_ROOT "/reclaim-churn-%d", getpid());
	if (mkdir(dir, 0755))
		die("mkdir %s", dir);
	snprintf(path, sizeof(path), "%s/memory.max", dir);
	snprintf(val, sizeof(val), "%zu", max);
	write_or_die(path, val);
}

/*
 * Worker: wait for the start, then write every byte of @size bytes, pass
 * after pass. Whole pages of one value: zram keeps same-filled pages
 * without compressing them, so swap costs reclaim, not compression.
 */
static void worker(int start_fd, size_t size, long passes, int bind_node,
		   const char *cgroup, long cpu)
{
	char *p, c;

	if (cgroup) {
		char path[192], pid[16];

		snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
		snprintf(pid, sizeof(pid), "%d", getpid());
		write_or_die(path, pid);
	}
	if (cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity to CPU %ld", cpu);
	} else if (bind_node >= 0) {
		pin_to_node(bind_node);
	}
	if (bind_node >= 0)
		set_mempolicy_node(MPOL_BIND, bind_node);
	p = map_hpage_aligned(size, MADV_NOHUGEPAGE);
	if (read(start_fd, &c, 1) < 0)
		die("read start pipe");
	for (long pass = 0; pass < passes; pass++)
		for (size_t off = 0; off < size; off += BASE_PAGE_SIZE)
			memset(p + off, (int)(pass + 1), BASE_PAGE_SIZE);
	_exit(0);
}

struct counts {
	struct vmstat vm;
	long scan_kswapd, steal_kswapd, memcg_scan, memcg_max_events, oom_kill;
};

static void counts_read(struct counts *c, const char *cgroup)
{
	char path[192];

	vmstat_read(&c->vm);
	c->scan_kswapd = keyed_value("/proc/vmstat", "pgscan_kswapd");
	c->steal_kswapd = keyed_value("/proc/vmstat", "pgsteal_kswapd");
	c->oom_kill = keyed_value("/proc/vmstat", "oom_kill");
	c->memcg_scan = c->memcg_max_events = 0;
	if (cgroup) {
		snprintf(path, sizeof(path), "%s/memory.stat", cgroup);
		c->memcg_scan = keyed_value(path, "pgscan");
		snprintf(path, sizeof(path), "%s/memory.events", cgroup);
		c->memcg_max_events = keyed_value(path, "max");
	}
}

int main(int argc, char **argv)
{
	pid_t pids[2 * MAX_WORKERS];
	struct counts a, b;
	char cgroup[128];
	int start[2], n = 0, failed = 0, killed = 0;
	size_t each, memcg_each = 0;
	struct vmstat d;
	long pages;
	double t;
	struct opts o;

	program_name = "reclaim-churn";
	parse(argc, argv, &o);
	/* Before any mapping: no VMA of ours, or our workers', may get a THP. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("prctl(PR_SET_THP_DISABLE)");
	each = o.co.region / o.workers / BASE_PAGE_SIZE * BASE_PAGE_SIZE;
	if (o.memcg_max) {
		memcg_create(cgroup, sizeof(cgroup), o.memcg_max);
		memcg_each = o.memcg_region / o.memcg_workers / BASE_PAGE_SIZE *
			     BASE_PAGE_SIZE;
	}
	if (pipe(start))
		die("pipe");
	for (long i = 0; i < o.workers + (o.memcg_max ? o.memcg_workers : 0); i++) {
		bool in_memcg = i >= o.workers;
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (!pid) {
			close(start[1]);
			worker(start[0], in_memcg ? memcg_each : each, o.passes,
			       in_memcg ? -1 : o.co.node, in_memcg ? cgroup : NULL,
			       o.cpu);
		}
		pids[n++] = pid;
	}
	close(start[0]);
	counts_read(&a, o.memcg_max ? cgroup : NULL);
	t = now_seconds();
	close(start[1]);	/* every worker's read() returns: go */
	for (int i = 0; i < n; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) < 0)
			die("waitpid");
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			killed++;
		else if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	}
	t = now_seconds() - t;
	counts_read(&b, o.memcg_max ? cgroup : NULL);
	if (o.memcg_max && rmdir(cgroup))
		die("rmdir %s", cgroup);
	/*
	 * A bound node or a small memory.max may meet the OOM killer when
	 * reclaim falls behind: that is reclaim too, so the run is reported
	 * with its kills; a SIGKILL that was no OOM kill is a failure.
	 */
	if (killed > b.oom_kill - a.oom_kill)
		failed += killed;
	if (failed)
		fail(1, "%d of %d workers failed", failed, n);
	vmstat_delta(&d, &a.vm, &b.vm);
	pages = (o.workers * each + (o.memcg_max ? o.memcg_workers * memcg_each : 0)) /
		BASE_PAGE_SIZE * o.passes;

	if (o.co.json) {
		struct json_writer j;

		json_begin(&j, stdout, JSON_COMPACT, false);
		json_workload_context(&j, "reclaim-churn");
		json_long(&j, "node", o.co.node);
		json_long(&j, "region_mb", o.co.region >> 20);
		json_long(&j, "workers", o.workers);
		json_long(&j, "memcg_max_mb", o.memcg_max >> 20);
		json_long(&j, "memcg_region_mb", o.memcg_max ? o.memcg_region >> 20 : 0);
		json_long(&j, "memcg_workers", o.memcg_max ? o.memcg_workers : 0);
		json_long(&j, "passes", o.passes);
		json_long(&j, "cpu", o.cpu);
		json_long(&j, "pages_written", pages);
		json_double(&j, "seconds", t);
		json_double(&j, "pages_per_sec", pages / t);
		for (int i = 0; i < NR_VM; i++)
			json_long(&j, vmstat_names[i], d.v[i]);
		json_long(&j, "pgscan_kswapd", b.scan_kswapd - a.scan_kswapd);
		json_long(&j, "pgsteal_kswapd", b.steal_kswapd - a.steal_kswapd);
		json_long(&j, "memcg_pgscan", b.memcg_scan - a.memcg_scan);
		json_long(&j, "memcg_max_events", b.memcg_max_events - a.memcg_max_events);
		json_long(&j, "workers_oom_killed", killed);
		json_end(&j);
	} else {
		printf("reclaim-churn: node %d, %zu MiB in %ld workers; cgroup %zu MiB in %ld workers (memory.max %zu MiB); %ld passes\n",
		       o.co.node, o.co.region >> 20, o.workers,
		       o.memcg_max ? o.memcg_region >> 20 : 0,
		       o.memcg_max ? o.memcg_workers : 0, o.memcg_max >> 20, o.passes);
		printf("  %ld pages written in %.2f s: %.0f /s\n", pages, t, pages / t);
		printf("  pgscan_kswapd %ld, pgscan_direct %ld, pswpout %ld, pswpin %ld, cgroup pgscan %ld\n",
		       b.scan_kswapd - a.scan_kswapd, d.v[VM_PGSCAN_DIRECT],
		       d.v[VM_PSWPOUT], d.v[VM_PSWPIN], b.memcg_scan - a.memcg_scan);
		printf("  thp_fault_alloc %ld, thp_fault_fallback %ld\n",
		       d.v[VM_THP_FAULT_ALLOC], d.v[VM_THP_FAULT_FALLBACK]);
		if (killed)
			printf("  %d of %d workers OOM-killed\n", killed, n);
	}
	return 0;
}
