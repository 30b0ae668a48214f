// SPDX-License-Identifier: GPL-2.0
/*
 * One demo round: fill node 0 with a swappable hog, fault a 400 MiB
 * MADV_HUGEPAGE region from node 0's CPU, and say where the THPs went.
 */
#include "thpnuma_test.h"

#define REGION	(400 * MiB)

int main(void)
{
	long before[MAX_NODES], after[MAX_NODES], pswpout, fallback;
	int nodes = nr_nodes();
	pid_t hog;
	char *p;

	pin_to_node(0);
	drop_caches();
	hog = start_hog(0, wl_node_wmark_kb(0, "low") + 4 * 1024);
	if (hog < 0 || !(p = map_region(REGION, MADV_HUGEPAGE))) {
		fprintf(stderr, "thp-demo: setup failed\n");
		return 1;
	}
	printf("  node 0 filled by a hog: %ld MiB free; faulting %lu MiB from node 0\n",
	       wl_node_meminfo_kb(0, "MemFree") / 1024, REGION / MiB);
	node_thps(before, nodes);
	pswpout = vmstat("pswpout");
	fallback = vmstat("thp_fault_fallback");
	touch_region(p, REGION);
	node_thps(after, nodes);
	pswpout = vmstat("pswpout") - pswpout;
	fallback = vmstat("thp_fault_fallback") - fallback;

	printf("  huge pages placed:");
	for (int n = 0; n < nodes; n++)
		printf("  node%d %ld", n, after[n] - before[n]);
	printf("  (fell back to small pages: %ld of %lu)\n", fallback, REGION / HPAGE_SIZE);
	printf("  swap-outs during the fault: %ld pages\n", pswpout);
	munmap(p, REGION);
	stop_hog(hog);
	return 0;
}
