// SPDX-License-Identifier: GPL-2.0
/*
 * Direct reclaim counted on the node it was for, when it scans no node at
 * all: for a THP, reclaim skips zones that are ready for compaction and
 * returns at once. Nodes 1 and 2 hold free memory that no THP fits in
 * (scattered single pages among mlocked ones, which compaction may not
 * move), node 3's free memory is in its hugetlb pool. In a child cpuset,
 * which makes the kernel pass the cpuset's nodes as the nodemask:
 *  - strict-local from node 1 (cpuset 0-3): the stalls count on node 1,
 *    not on node 0, the cpuset's first node;
 *  - local-then-remote from node 3 (cpuset 1-3): the remote attempt's
 *    stalls count on node 2, the nearest remote node (distance 20), not
 *    on node 1, the lowest-numbered one (distance 30); a call that scans
 *    counts on the first node it scanned, which may be node 1 when node
 *    2 was ready for compaction, so most, not all, are node 2's.
 * vm.min_free_kbytes is lowered for the test: free pages below min could
 * hold a whole THP.
 * Needs the 4n topology (ring distances: 20 to a neighbour, 30 beyond).
 */
#include "test_util.h"
#include "kselftest.h"

#define REGION		(64 * MiB)
#define SCATTERED_KB	(32 * 1024)
#define CPUSET		"reclaim-node"

static int fault_on_node(int node)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *p;

		pin_to_node(node);
		p = map_hpage_aligned(REGION, MADV_HUGEPAGE);
		touch_region(p, REGION);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* Free blocks per order of each zone, as the scattered fill left them. */
static void print_buddyinfo(void)
{
	char line[256];
	FILE *f = fopen("/proc/buddyinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		ksft_print_msg("%s", line);
	if (f)
		fclose(f);
}

/* Reclaim stalls per node while a node-@node task faults the region. */
static int stalls_of_fault(int node, const char *mems, const char *params,
			   long *stalls)
{
	struct thpnuma_stats s0 = { 0 }, s1 = { 0 };
	int err;

	err = module_fresh_load(params);
	err = err ?: cpuset_enter(CPUSET, mems);
	err = err ?: read_stats(&s0);
	err = err ?: fault_on_node(node);
	err = err ?: read_stats(&s1);
	cpuset_leave(CPUSET);
	for (int n = 0; n < nr_nodes(); n++)
		stalls[n] = err ? -1 : (long)stat_delta(&s0, &s1, n,
						THPNUMA_RECLAIM_STALL);
	ksft_print_msg("%s from node %d, cpuset %s: reclaim_stall per node %ld %ld %ld %ld%s\n",
		       params, node, mems, stalls[0], stalls[1], stalls[2],
		       stalls[3], err ? " (setup failed)" : "");
	stats_free(&s0);
	stats_free(&s1);
	module_unload();
	return err;
}

int main(void)
{
	struct vm_knobs vm;
	struct thp_knobs thp;
	long stalls[MAX_NODES];
	pid_t holders[2];
	long pool;
	int err;

	ksft_print_header();
	if (nr_nodes() != 4)
		ksft_exit_skip("needs the 4n topology\n");
	if (!cpuset_available())
		ksft_exit_skip("no cgroup-v2 cpuset controller\n");
	ksft_set_plan(6);
	if (write_file("/proc/self/oom_score_adj", "-1000"))
		ksft_exit_fail_msg("cannot exempt the test from the OOM killer\n");
	thp_knobs_save(&thp);
	thp_knobs_quiet("madvise", "madvise");
	vm_knobs_tight(&vm);

	holders[0] = start_fragmented_fill(1, SCATTERED_KB);
	holders[1] = start_fragmented_fill(2, SCATTERED_KB);
	/* Node 3's free memory in its hugetlb pool: its attempts fail. */
	pool = hugetlb_take(3, 100000);
	ksft_test_result(holders[0] > 0 && holders[1] > 0 && pool > 0,
			 "nodes 1 and 2 scattered, node 3's free memory in %ld huge pages\n",
			 pool);
	ksft_print_msg("free above min: node 1 %ld kB, node 2 %ld kB, node 3 %ld kB\n",
		       node_headroom_kb(1), node_headroom_kb(2),
		       node_headroom_kb(3));
	print_buddyinfo();

	err = stalls_of_fault(1, "0-3", "policy=strict-local", stalls);
	ksft_test_result(!err && stalls[1] > 0,
			 "strict-local: the local attempts reclaimed (%ld stalls on node 1)\n",
			 stalls[1]);
	ksft_test_result(!err && !stalls[0] && !stalls[2] && !stalls[3],
			 "strict-local: no stall counted on another node (node 0: %ld)\n",
			 stalls[0]);

	err = stalls_of_fault(3, "1-3",
			      "policy=local-then-remote zone_reclaim=0",
			      stalls);
	ksft_test_result(!err && stalls[2] > 0,
			 "local-then-remote: the remote attempts' stalls count on the nearest node, 2 (%ld)\n",
			 stalls[2]);
	/* A call that did scan starts with a node not ready: maybe node 1. */
	ksft_test_result(!err && stalls[2] > stalls[1],
			 "local-then-remote: fewer on node 1, the lowest-numbered remote one (%ld)\n",
			 stalls[1]);
	ksft_test_result(!err && !stalls[3],
			 "local-then-remote: none on node 3, whose attempt may not reclaim (%ld)\n",
			 stalls[3]);

	hugetlb_take(3, 0);
	for (int i = 0; i < 2; i++)
		stop_hog(holders[i]);
	vm_knobs_restore(&vm);
	thp_knobs_restore(&thp);
	ksft_finished();
}
