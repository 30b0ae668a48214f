// SPDX-License-Identifier: GPL-2.0
/*
 * What the THP counters count when the fault drops the THP it was given:
 * a process in a memory cgroup whose memory.max holds a few THPs faults
 * many, one byte each, so the charge of every THP after the first few
 * fails and the fault falls back to a small page (the kernel counts
 * thp_fault_fallback and thp_fault_fallback_charge; large charges never
 * invoke the memcg OOM killer). Under each policy, exactly:
 *
 *   thp_local + thp_remote = thp_fault_alloc + thp_fault_fallback_charge
 *   thp_fallback           = thp_fault_fallback - thp_fault_fallback_charge
 *
 * since the module counts what the allocator returned, not what the fault
 * mapped.
 */
#include "test_util.h"
#include <sys/mount.h>
#include "kselftest.h"

#define CGROUP		"/sys/fs/cgroup"
#define MEMCG		CGROUP "/thpnuma-memcg"
#define FAULTS		48

static bool memcg_setup(void)
{
	char controllers[256];

	if (access(CGROUP "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP, "cgroup2", 0, NULL))
		return false;
	if (read_file(CGROUP "/cgroup.controllers", controllers,
		      sizeof(controllers)) <= 0 || !strstr(controllers, "memory"))
		return false;
	if (write_file(CGROUP "/cgroup.subtree_control", "+memory"))
		return false;
	if (mkdir(MEMCG, 0755) && errno != EEXIST)
		return false;
	/* No swap for the group: its THPs cannot be reclaimed to make room. */
	write_file(MEMCG "/memory.swap.max", "0");
	return !write_file(MEMCG "/memory.max", "8M");
}

/* A child in the group faults FAULTS THPs, one byte each; 0 if it ran. */
static int fault_in_memcg(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char self[16], *p;

		snprintf(self, sizeof(self), "%d", getpid());
		if (write_file(MEMCG "/cgroup.procs", self))
			_exit(2);
		p = map_hpage_aligned(FAULTS * HPAGE_SIZE, MADV_HUGEPAGE);
		for (int i = 0; i < FAULTS; i++)
			p[i * HPAGE_SIZE] = 1;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void run(const char *policy)
{
	struct thpnuma_stats a = { 0 }, b = { 0 };
	long alloc, fallback, charge;
	uint64_t placed, fell_back;
	char params[64];
	int rc;

	snprintf(params, sizeof(params), "policy=%s", policy);
	if (module_fresh_load(params)) {
		ksft_test_result_fail("%s: module loads\n", policy);
		return;
	}
	read_stats(&a);
	alloc = vmstat_value("thp_fault_alloc");
	fallback = vmstat_value("thp_fault_fallback");
	charge = vmstat_value("thp_fault_fallback_charge");
	rc = fault_in_memcg();
	read_stats(&b);
	alloc = vmstat_value("thp_fault_alloc") - alloc;
	fallback = vmstat_value("thp_fault_fallback") - fallback;
	charge = vmstat_value("thp_fault_fallback_charge") - charge;
	placed = stat_delta_all(&a, &b, THPNUMA_THP_LOCAL) +
		 stat_delta_all(&a, &b, THPNUMA_THP_REMOTE);
	fell_back = stat_delta_all(&a, &b, THPNUMA_THP_FALLBACK);
	ksft_print_msg("%s: module placed %" PRIu64 " fell back %" PRIu64
		       "; kernel thp_fault_alloc +%ld thp_fault_fallback +%ld thp_fault_fallback_charge +%ld\n",
		       policy, placed, fell_back, alloc, fallback, charge);

	ksft_test_result(rc == 0, "%s: the faulting process ran in the group\n",
			 policy);
	ksft_test_result(charge > 0 && alloc > 0,
			 "%s: some THPs were charged, later ones failed the charge\n",
			 policy);
	ksft_test_result(placed == (uint64_t)(alloc + charge),
			 "%s: thp_local + thp_remote = thp_fault_alloc + thp_fault_fallback_charge\n",
			 policy);
	ksft_test_result(fell_back == (uint64_t)(fallback - charge),
			 "%s: thp_fallback = thp_fault_fallback - thp_fault_fallback_charge\n",
			 policy);
	stats_free(&a);
	stats_free(&b);
	ksft_test_result(module_unload() == 0, "%s: module unloads\n", policy);
}

int main(void)
{
	static const char *const policies[] = {
		"kernel", "strict-local", "local-then-remote",
	};
	struct thp_knobs knobs;

	ksft_print_header();
	if (!memcg_setup())
		ksft_exit_skip("no cgroup-v2 memory controller\n");
	ksft_set_plan(5 * ARRAY_SIZE(policies));
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	pin_to_node(0);
	for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
		run(policies[i]);
	thp_knobs_restore(&knobs);
	rmdir(MEMCG);
	ksft_finished();
}
