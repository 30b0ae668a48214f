// SPDX-License-Identifier: GPL-2.0
/* NUMA nodes from /sys and /proc, and the syscalls that use them; see nodes.h. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "die.h"
#include "memory.h"
#include "nodes.h"
#include "text.h"

bool node_online(int node)
{
	char path[80];

	if (node < 0 || node >= MAX_NODES)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	return access(path, R_OK) == 0;
}

int nr_nodes(void)
{
	int last = -1;

	for (int n = 0; n < MAX_NODES; n++)
		if (node_online(n))
			last = n;
	return last + 1;
}

void require_node(int node)
{
	if (!node_online(node))
		fail(2, "node %d does not exist here (see /sys/devices/system/node)",
			node);
}

/* SLIT distance from /sys; 10 for the node itself, a large value if unknown. */
static int node_distance(int from, int to)
{
	char path[80], *text, *p, *end;
	long d = 255;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", from);
	text = read_text(path);
	if (!text)
		return from == to ? 10 : 255;
	p = text;
	for (int i = 0; i <= to; i++) {
		d = strtol(p, &end, 10);
		if (end == p) {
			d = 255;
			break;
		}
		p = end;
	}
	free(text);
	return d;
}

int nearest_other_node(int node)
{
	int best = -1, best_d = 1 << 30;

	for (int n = 0; n < nr_nodes(); n++) {
		int d;

		if (n == node || !node_online(n) ||
		    node_meminfo_kb(n, "MemTotal") <= 0)
			continue;
		d = node_distance(node, n);
		if (d < best_d) {
			best = n;
			best_d = d;
		}
	}
	return best;
}

long node_meminfo_kb(int node, const char *key)
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

long node_watermark_kb(int node, const char *which)
{
	char fmt[32], line[256];
	long sum = 0, pages;
	int nid, in_node = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("open /proc/zoneinfo");
	snprintf(fmt, sizeof(fmt), " %s %%ld", which);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &nid) == 1)
			in_node = nid == node;
		else if (in_node && sscanf(line, fmt, &pages) == 1)
			sum += pages;
	}
	fclose(f);
	return sum * (BASE_PAGE_SIZE / 1024);
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
		die("open /proc/zoneinfo");
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

long node_free_hpages(int node)
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

void pin_to_node(int node)
{
	char path[80], *cpulist;
	cpu_set_t set;
	int nr_cpus;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	cpulist = read_text(path);
	if (!cpulist)
		die("read %s", path);
	nr_cpus = parse_cpulist(cpulist, &set);
	free(cpulist);
	if (nr_cpus <= 0)
		fail(2, "node %d has no CPUs: a process cannot run there", node);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity to node %d's CPUs", node);
}

void mbind_node(void *p, size_t len, int mode, int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(long))] = { 0 };

	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	/* maxnode is one more than the bits: the kernel's off-by-one. */
	if (syscall(SYS_mbind, p, len, mode, mask, MAX_NODES + 1, 0))
		die("mbind to node %d", node);
}

void set_mempolicy_node(int mode, int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(long))] = { 0 };
	long ret;

	if (mode == MPOL_DEFAULT) {
		ret = syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0);
	} else {
		mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
		ret = syscall(SYS_set_mempolicy, mode, mask, MAX_NODES + 1);
	}
	if (ret)
		die("set_mempolicy(%d, node %d)", mode, node);
}
