// SPDX-License-Identifier: GPL-2.0
/*
 * One demo round: fill node 0 with a swappable hog, fault a 400 MiB
 * MADV_HUGEPAGE region from node 0's CPU, and say where the THPs went.
 */
#include "test_util.h"

#define REGION	(400 * MiB)

int main(void)
{
	long before[MAX_NODES], after[MAX_NODES];
	int nodes = nr_nodes();
	struct vmstat vm0, vm1, d;
	pid_t hog;
	char *p;

	pin_to_node(0);
	drop_caches();
	hog = start_storm_hog();
	if (hog < 0) {
		fprintf(stderr, "thp-demo: setup failed\n");
		return 1;
	}
	p = map_hpage_aligned(REGION, MADV_HUGEPAGE);
	printf("  node 0 filled by a hog: %ld MiB free; faulting %lu MiB from node 0\n",
	       node_meminfo_kb(0, "MemFree") / 1024, REGION / MiB);
	node_thps(before, nodes);
	vmstat_read(&vm0);
	touch_region(p, REGION);
	node_thps(after, nodes);
	vmstat_read(&vm1);
	vmstat_delta(&d, &vm0, &vm1);

	printf("  huge pages placed:");
	for (int n = 0; n < nodes; n++)
		printf("  node%d %ld", n, after[n] - before[n]);
	printf("  (fell back to small pages: %ld of %lu)\n", d.v[VM_THP_FAULT_FALLBACK],
	       REGION / HPAGE_SIZE);
	printf("  swap-outs during the fault: %ld pages\n", d.v[VM_PSWPOUT]);
	munmap(p, REGION);
	stop_hog(hog);
	return 0;
}
