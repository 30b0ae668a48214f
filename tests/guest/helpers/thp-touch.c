// SPDX-License-Identifier: GPL-2.0
/* Fault N MiB of MADV_HUGEPAGE memory on node 0's CPU: a THP workload for shell tests. */
#include "test_util.h"

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 32) * MiB;
	char *p;

	pin_to_node(0);
	p = map_hpage_aligned(size, MADV_HUGEPAGE);
	touch_region(p, size);
	printf("faulted %zu MiB\n", size / MiB);
	return 0;
}
