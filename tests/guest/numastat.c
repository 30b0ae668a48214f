// SPDX-License-Identifier: GPL-2.0
/*
 * How remote THPs show in the kernel's per-node numastat, against the
 * module's own view. With node 0 full, THP faults on node 0's CPU go to
 * node 1 under the kernel policy (the kernel's own fallback) and under
 * local-then-remote (the module's remote attempt):
 *
 * - the kernel's fallback prefers node 0, so each remote THP counts as
 *   numa_foreign on node 0 and numa_miss on node 1;
 * - local-then-remote's remote attempt leaves node 0 out of its nodemask,
 *   so the allocator prefers node 1 and counts numa_hit there;
 * - either way the module counts thp_remote on node 0 and thp_remote_in
 *   on node 1: its foreign and miss, the same for the same placement.
 *
 * Base pages (the THPs' page tables among them) count in numastat too,
 * so the kernel's numbers are checked as at least the THPs'.
 */
#include "test_util.h"
#include "kselftest.h"

#define FAULTS	32

struct numastat {
	long hit, miss, foreign;
};

static void numastat_read(int node, struct numastat *ns)
{
	char path[96], key[32];
	long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat",
		 node);
	f = fopen(path, "r");
	if (!f)
		ksft_exit_fail_msg("%s: %s\n", path, strerror(errno));
	memset(ns, 0, sizeof(*ns));
	while (fscanf(f, "%31s %ld", key, &v) == 2) {
		if (!strcmp(key, "numa_hit"))
			ns->hit = v;
		else if (!strcmp(key, "numa_miss"))
			ns->miss = v;
		else if (!strcmp(key, "numa_foreign"))
			ns->foreign = v;
	}
	fclose(f);
}

static void run(const char *policy)
{
	struct thpnuma_stats a = { 0 }, b = { 0 };
	struct numastat n0a, n0b, n1a, n1b;
	uint64_t remote, remote_in;
	char params[64], *p;
	pid_t fill;
	bool kernel = !strcmp(policy, "kernel");

	snprintf(params, sizeof(params), "policy=%s zone_reclaim=0", policy);
	if (module_fresh_load(params)) {
		ksft_test_result_fail("%s: module loads\n", policy);
		return;
	}
	fill = start_locked_fill();
	if (fill < 0)
		ksft_exit_fail_msg("%s: cannot fill node 0\n", policy);
	p = map_hpage_aligned(FAULTS * HPAGE_SIZE, MADV_HUGEPAGE);
	read_stats(&a);
	numastat_read(0, &n0a);
	numastat_read(1, &n1a);
	touch_region(p, FAULTS * HPAGE_SIZE);
	numastat_read(0, &n0b);
	numastat_read(1, &n1b);
	read_stats(&b);
	remote = stat_delta(&a, &b, 0, THPNUMA_THP_REMOTE);
	remote_in = stat_delta(&a, &b, 1, THPNUMA_THP_REMOTE_IN);
	ksft_print_msg("%s: module node 0 thp_remote %" PRIu64 ", node 1 thp_remote_in %" PRIu64
		       "; kernel node 0 numa_foreign +%ld, node 1 numa_miss +%ld numa_hit +%ld\n",
		       policy, remote, remote_in, n0b.foreign - n0a.foreign,
		       n1b.miss - n1a.miss, n1b.hit - n1a.hit);

	ksft_test_result(remote > 0 && remote == remote_in,
			 "%s: the module's foreign (node 0 thp_remote) equals its miss (node 1 thp_remote_in)\n",
			 policy);
	if (kernel) {
		ksft_test_result(n0b.foreign - n0a.foreign >= (long)remote &&
				 n1b.miss - n1a.miss >= (long)remote_in,
				 "kernel: its own fallback counts numa_foreign on node 0 and numa_miss on node 1\n");
	} else {
		ksft_test_result(n1b.hit - n1a.hit >= (long)remote_in,
				 "%s: the remote attempt counts numa_hit on node 1\n",
				 policy);
	}
	munmap(p, FAULTS * HPAGE_SIZE);
	stop_hog(fill);
	stats_free(&a);
	stats_free(&b);
	ksft_test_result(module_unload() == 0, "%s: module unloads\n", policy);
}

int main(void)
{
	static const char *const policies[] = { "kernel", "local-then-remote" };
	struct thp_knobs knobs;

	ksft_print_header();
	ksft_set_plan(3 * ARRAY_SIZE(policies));
	require_node(1);
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	pin_to_node(0);
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
		run(policies[i]);
	thp_knobs_restore(&knobs);
	ksft_finished();
}
