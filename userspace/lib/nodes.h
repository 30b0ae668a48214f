/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NUMA nodes without libnuma: which are online, their memory, watermarks
 * and free huge pages, running on them and binding memory to them.
 * Nothing here assumes a VM: it reads what a real machine exposes.
 * Functions that cannot go on without an answer exit through die.h.
 */
#ifndef THPNUMA_NODES_H
#define THPNUMA_NODES_H

#include <stdbool.h>
#include <stddef.h>

/* Node ids the helpers look at: 0 to MAX_NODES - 1. */
#define MAX_NODES	64

#ifndef MPOL_DEFAULT
#define MPOL_DEFAULT	0
#define MPOL_PREFERRED	1
#define MPOL_BIND	2
#define MPOL_INTERLEAVE	3
#endif
#ifndef MPOL_MF_STRICT
#define MPOL_MF_STRICT	(1 << 0)
#endif

int nr_nodes(void);			/* highest online node + 1 */
bool node_online(int node);
void require_node(int node);		/* exits with a message if absent */
int nearest_other_node(int node);	/* with memory; -1 if none */

/* A "Node N Key: value kB" line of the node's meminfo; -1 if absent. */
long node_meminfo_kb(int node, const char *key);
/* The node's "min", "low" or "high" watermark summed over its zones. */
long node_watermark_kb(int node, const char *which);
/* Free 2 MiB blocks (larger ones count as several) in zones user pages can use. */
long node_free_hpages(int node);

void pin_to_node(int node);		/* all CPUs of @node, or exit */

/* Memory policy syscalls on one node; they exit on failure. */
void mbind_node(void *p, size_t len, int mode, int node);
void set_mempolicy_node(int mode, int node);	/* MPOL_DEFAULT: node ignored */

#endif /* THPNUMA_NODES_H */
