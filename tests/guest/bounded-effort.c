// SPDX-License-Identifier: GPL-2.0
/*
 * One reclaim round per attempt, for every order: 16, 32 and 64 kB mTHP
 * and 2 MiB alike, on the local node and the remote one. Node 0 is full
 * to its low watermark of memory it can swap out (zram: the MANIFEST line
 * has zram), node 1 of mlocked memory, and the region is larger than
 * what both have free, so that THP attempts reclaim and fail and faults
 * step down through every enabled order. From the trace
 * events: no event of strict-local or local-then-remote shows more than
 * one reclaim stall per node it tried (local, then remote), under every
 * zone_reclaim value. The kernel policy is the kernel's own allocation and
 * effort, logged only. No OOM kill either (the victim has score 1000).
 *
 * Env: EFFORT_RUNS, "POLICY[:ZONE_RECLAIM] ..." (default: every value).
 */
#include "test_util.h"
#include "kselftest.h"

/* 16 MiB more than both nodes can give without reclaim. */
#define BEYOND		(16 * MiB)
#define MAX_EVENTS	32768
#define MAX_RUNS	16
#define DEFAULT_RUNS	"kernel strict-local local-then-remote:0 " \
			"local-then-remote:1 local-then-remote:2 " \
			"local-then-remote:3 local-then-remote:4 " \
			"local-then-remote:5 local-then-remote:6 " \
			"local-then-remote:7"

/* The orders whose attempts must all be seen: 16, 32, 64 kB and PMD. */
static const int orders[] = { 2, 3, 4, 9 };
#define NR_ORDERS	(int)(sizeof(orders) / sizeof(orders[0]))

static struct fault_event ev[MAX_EVENTS];

static void size_enable(int kb, const char *mode)
{
	char path[128];

	snprintf(path, sizeof(path), THP_SYSFS "/hugepages-%dkB/enabled", kb);
	write_file(path, mode);
}

static size_t region;

static int fault_on_node0(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *p;

		pin_to_node(0);
		p = map_hpage_aligned(region, MADV_HUGEPAGE);
		touch_region(p, region);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

/* Nodes an event's allocation tried: the local one, then a remote one. */
static unsigned int nodes_tried(const struct fault_event *e)
{
	if (!strcmp(e->action, "local-then-remote") &&
	    strcmp(e->local_attempt, "succeeded"))
		return 2;
	return 1;
}

static void run(const char *spec)
{
	char policy[32], params[64];
	const char *colon = strchr(spec, ':');
	bool kernel_policy, seen[NR_ORDERS] = { false };
	unsigned long long worst = 0, stalls = 0;
	long nr, lost, over = 0, kills;
	int ret;

	snprintf(policy, sizeof(policy), "%.*s",
		 colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	snprintf(params, sizeof(params), "policy=%s zone_reclaim=%s", policy,
		 colon ? colon + 1 : "0");
	kernel_policy = !strcmp(policy, "kernel");
	ret = module_fresh_load(params);
	ksft_test_result(ret == 0, "%s: module loads\n", spec);
	if (ret)
		return;
	kills = vmstat_value("oom_kill");
	ret = fault_trace_start();
	ret = ret ?: fault_on_node0();
	write_file(FAULT_EVENT_DIR "/enable", "0");
	kills = vmstat_value("oom_kill") - kills;
	nr = fault_trace_read(ev, MAX_EVENTS, &lost);
	for (long i = 0; i < nr; i++) {
		const struct fault_event *e = &ev[i];

		if (!strcmp(e->action, "passthrough"))
			continue;
		stalls += e->reclaim_stall;
		if (e->reclaim_stall > worst)
			worst = e->reclaim_stall;
		if (e->reclaim_stall > nodes_tried(e)) {
			if (over++ < 5)
				ksft_print_msg("%s: order %d %s local %s: %llu reclaim stalls\n",
					       spec, e->order, e->action,
					       e->local_attempt, e->reclaim_stall);
		}
		for (int o = 0; o < NR_ORDERS; o++)
			seen[o] |= e->order == orders[o];
	}
	ksft_print_msg("%s: %ld events (%ld lost), %llu reclaim stalls, at most %llu in one, %ld over the bound, %ld OOM kills; orders seen: 2 %d, 3 %d, 4 %d, 9 %d\n",
		       spec, nr, lost, stalls, worst, over, kills, seen[0],
		       seen[1], seen[2], seen[3]);
	ksft_test_result(ret == 0 && nr > 0 && lost == 0,
			 "%s: the region faulted, every event read\n", spec);
	/*
	 * strict-local steps through every order; local-then-remote only
	 * once the remote node is short too: a PMD and a small one at least.
	 */
	ret = seen[3] && (seen[0] || seen[1]);
	if (!strcmp(policy, "strict-local"))
		ret = ret && seen[0] && seen[1] && seen[2];
	ksft_test_result(ret, "%s: attempts of the PMD and the small orders traced\n",
			 spec);
	if (kernel_policy)
		ksft_test_result_skip("%s: the kernel's own effort (%llu stalls at most)\n",
				      spec, worst);
	else
		ksft_test_result(over == 0, "%s: at most one reclaim stall per node tried (%ld events over)\n",
				 spec, over);
	ksft_test_result(kills == 0, "%s: no OOM kill\n", spec);
	module_unload();
}

int main(void)
{
	const char *list = getenv("EFFORT_RUNS");
	char runs[512], *names[MAX_RUNS], *p, *save;
	struct vm_knobs vm;
	char saved[4][32];
	static const int sizes[] = { 16, 32, 64, 2048 };
	struct thp_knobs thp;
	pid_t node0, node1;
	int n = 0;

	snprintf(runs, sizeof(runs), "%s", list ? list : DEFAULT_RUNS);
	for (p = strtok_r(runs, " ", &save); p && n < MAX_RUNS;
	     p = strtok_r(NULL, " ", &save))
		names[n++] = p;
	ksft_print_header();
	if (access(THP_SYSFS "/hugepages-16kB/enabled", F_OK))
		ksft_exit_skip("no 16 kB mTHP size on this kernel (6.8+)\n");
	ksft_set_plan(1 + 5 * n);
	if (write_file("/proc/self/oom_score_adj", "-1000"))
		ksft_exit_fail_msg("cannot exempt the test from the OOM killer\n");
	/* The trace buffer, allocated while there is memory for it. */
	if (module_fresh_load("") || fault_trace_start())
		ksft_exit_fail_msg("cannot set up the trace buffer\n");
	write_file(FAULT_EVENT_DIR "/enable", "0");

	thp_knobs_save(&thp);
	thp_knobs_quiet("madvise", "madvise");
	for (int i = 0; i < 4; i++) {
		char path[128];

		snprintf(path, sizeof(path),
			 THP_SYSFS "/hugepages-%dkB/enabled", sizes[i]);
		if (read_choice(path, saved[i], sizeof(saved[i])))
			saved[i][0] = 0;
		size_enable(sizes[i], "madvise");
	}
	vm_knobs_tight(&vm);

	node0 = start_storm_hog();
	node1 = start_locked_fill_on(1);
	ksft_test_result(node0 > 0 && node1 > 0,
			 "node 0 filled to low, node 1 locked to low\n");
	region = (node_headroom_kb(0) + node_headroom_kb(1)) * 1024 + BEYOND;
	region &= ~(HPAGE_SIZE - 1);
	ksft_print_msg("free above min: node 0 %ld kB, node 1 %ld kB; region %zu MiB\n",
		       node_headroom_kb(0), node_headroom_kb(1), region / MiB);
	for (int i = 0; i < n; i++) {
		if (waitpid(node1, NULL, WNOHANG) != 0) {
			node1 = start_locked_fill_on(1);
			ksft_print_msg("node 1 filled again\n");
		}
		run(names[i]);
	}
	stop_hog(node1);
	stop_hog(node0);
	for (int i = 0; i < 4; i++)
		if (saved[i][0])
			size_enable(sizes[i], saved[i]);
	vm_knobs_restore(&vm);
	thp_knobs_restore(&thp);
	ksft_finished();
}
