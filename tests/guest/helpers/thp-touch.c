// SPDX-License-Identifier: GPL-2.0
/*
 * Fault N MiB of MADV_HUGEPAGE memory on node 0's CPU: a THP workload for
 * shell tests. With "read-first", each huge page is read before it is
 * written: the read maps the huge zero page, the write replaces it. With
 * "read-only", it is only read. With "mempolicy", the process prefers
 * node 0 through set_mempolicy(): thpnuma leaves its faults to the kernel
 * (passthrough). With a third argument, a file: once the
 * first N MiB are faulted, wait until the file exists, then fault N MiB
 * more, so that the process can be moved to another cgroup in between.
 */
#include "test_util.h"
#include "die.h"

int main(int argc, char **argv)
{
	size_t size = (argc > 1 ? strtoul(argv[1], NULL, 0) : 32) * MiB;
	const char *mode = argc > 2 ? argv[2] : "";
	char *p;

	pin_to_node(0);
	if (!strcmp(mode, "mempolicy")) {
		unsigned long node0 = 1;

		/* MPOL_PREFERRED: 1 */
		if (syscall(SYS_set_mempolicy, 1, &node0, 8 * sizeof(node0)))
			die("set_mempolicy");
	}
	p = map_hpage_aligned(size, MADV_HUGEPAGE);
	if (!strcmp(mode, "read-first") || !strcmp(mode, "read-only")) {
		size_t off;
		unsigned long sum = 0;

		for (off = 0; off < size; off += 2 * MiB)
			sum += p[off];
		if (sum)
			fprintf(stderr, "fresh memory reads non-zero\n");
	}
	if (strcmp(mode, "read-only"))
		touch_region(p, size);
	printf("faulted %zu MiB\n", size / MiB);
	if (argc > 3) {
		fflush(stdout);
		while (access(argv[3], F_OK))
			usleep(20000);
		touch_region(map_hpage_aligned(size, MADV_HUGEPAGE), size);
		printf("faulted %zu MiB more\n", size / MiB);
	}
	return 0;
}
