// SPDX-License-Identifier: GPL-2.0
/*
 * No policy may OOM-kill where the kernel would not. Small mTHP orders
 * (16 and 32 kB, up to PAGE_ALLOC_COSTLY_ORDER) are ones the page
 * allocator retries until the OOM killer runs; an attempt restricted to
 * remote nodes must stop after one round instead. Node 1 is mlocked down
 * to near its min watermark by a victim with oom_score_adj 1000, node 0
 * sits at its low watermark with memory it can swap out (to zram: the
 * MANIFEST line has zram), and a node-0 task faults 64 MiB more
 * MADV_HUGEPAGE memory than both nodes have free, with only the 16 and
 * 32 kB sizes on.
 * Under every policy and zone_reclaim value, /proc/vmstat's oom_kill does
 * not move and the victim lives.
 *
 * Env: MTHP_OOM_RUNS, "POLICY[:ZONE_RECLAIM] ..." (default: kernel,
 * strict-local and local-then-remote with every zone_reclaim value).
 */
#include "test_util.h"
#include "kselftest.h"

/* 64 MiB more than both nodes can give without reclaim. */
#define BEYOND		(64 * MiB)
#define DEFAULT_RUNS	"kernel strict-local local-then-remote:0 " \
			"local-then-remote:1 local-then-remote:2 " \
			"local-then-remote:3 local-then-remote:4 " \
			"local-then-remote:5 local-then-remote:6 " \
			"local-then-remote:7"
#define MAX_RUNS	16

/* The sizes the test turns on; every other size is turned off. */
static const int on_kb[] = { 16, 32 };

struct size_knob {
	char path[128], saved[32];
};

static struct size_knob knobs[16];
static int nr_knobs;
static struct vm_knobs vm;

static bool size_on(int kb)
{
	for (unsigned int i = 0; i < sizeof(on_kb) / sizeof(on_kb[0]); i++)
		if (on_kb[i] == kb)
			return true;
	return false;
}

/* Every hugepages-<size>kB/enabled saved, then 16 and 32 kB madvise. */
static int knobs_set(void)
{
	int kb;

	nr_knobs = 0;
	for (kb = 8; kb <= 2048 && nr_knobs < 16; kb *= 2) {
		struct size_knob *k = &knobs[nr_knobs];

		snprintf(k->path, sizeof(k->path),
			 THP_SYSFS "/hugepages-%dkB/enabled", kb);
		if (read_choice(k->path, k->saved, sizeof(k->saved)))
			continue;
		nr_knobs++;
		if (write_file(k->path, size_on(kb) ? "madvise" : "never"))
			return -1;
	}
	return 0;
}

static void knobs_restore(void)
{
	for (int i = 0; i < nr_knobs; i++)
		write_file(knobs[i].path, knobs[i].saved);
}

static bool alive(pid_t pid)
{
	return pid > 0 && waitpid(pid, NULL, WNOHANG) == 0 && !kill(pid, 0);
}

static size_t region;

/* Fault the region from node 0's CPU, in a child: what it costs is its. */
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

static void run(const char *spec, pid_t victim)
{
	char policy[32], params[64];
	const char *colon = strchr(spec, ':');
	long kills;
	int ret;

	snprintf(policy, sizeof(policy), "%.*s",
		 colon ? (int)(colon - spec) : (int)strlen(spec), spec);
	snprintf(params, sizeof(params), "policy=%s zone_reclaim=%s", policy,
		 colon ? colon + 1 : "0");
	ret = module_fresh_load(params);
	ksft_test_result(ret == 0, "%s: module loads (%s)\n", spec, params);
	if (ret)
		return;
	kills = vmstat_value("oom_kill");
	ret = fault_on_node0();
	kills = vmstat_value("oom_kill") - kills;
	ksft_print_msg("%s: faulting task %s, %ld OOM kills, 16 kB fallbacks %ld, 32 kB fallbacks %ld (totals)\n",
		       spec, ret ? "failed" : "done", kills,
		       mthp_stat(16, "anon_fault_fallback"),
		       mthp_stat(32, "anon_fault_fallback"));
	ksft_test_result(kills == 0, "%s: no OOM kill (oom_kill +%ld)\n",
			 spec, kills);
	ksft_test_result(alive(victim), "%s: the node-1 victim lives\n", spec);
	ksft_test_result(ret == 0, "%s: the faulting task completes\n", spec);
	module_unload();
}

int main(void)
{
	const char *list = getenv("MTHP_OOM_RUNS");
	char runs[512], *names[MAX_RUNS], *p, *save;
	struct thp_knobs thp;
	pid_t victim, filler;
	int n = 0;

	snprintf(runs, sizeof(runs), "%s", list ? list : DEFAULT_RUNS);
	for (p = strtok_r(runs, " ", &save); p && n < MAX_RUNS;
	     p = strtok_r(NULL, " ", &save))
		names[n++] = p;
	ksft_print_header();
	if (access(THP_SYSFS "/hugepages-16kB/enabled", F_OK))
		ksft_exit_skip("no 16 kB mTHP size on this kernel (6.8+)\n");
	if (nr_nodes() < 2)
		ksft_exit_skip("needs two nodes\n");
	ksft_set_plan(1 + 4 * n);
	if (write_file("/proc/self/oom_score_adj", "-1000"))
		ksft_exit_fail_msg("cannot exempt the test from the OOM killer\n");
	if (module_loaded())
		module_unload();

	thp_knobs_save(&thp);
	thp_knobs_quiet("madvise", "madvise");
	/* Small watermarks: kswapd refills node 0 by little at a time. */
	vm_knobs_tight(&vm);
	if (knobs_set())
		ksft_exit_fail_msg("cannot set the mTHP sizes\n");

	victim = start_locked_fill_on(1);
	filler = start_storm_hog();
	ksft_test_result(victim > 0 && filler > 0,
			 "node 1 locked to min (victim %d), node 0 at low (%d)\n",
			 victim, filler);
	region = (node_headroom_kb(0) + node_headroom_kb(1)) * 1024 + BEYOND;
	region &= ~(HPAGE_SIZE - 1);
	ksft_print_msg("free above min: node 0 %ld kB, node 1 %ld kB; region %zu MiB\n",
		       node_headroom_kb(0), node_headroom_kb(1), region / MiB);
	for (int i = 0; i < n; i++) {
		/* A run that killed the victim fails alone: the next gets one. */
		if (!alive(victim)) {
			stop_hog(victim);
			victim = start_locked_fill_on(1);
		}
		run(names[i], victim);
	}
	stop_hog(filler);
	stop_hog(victim);
	knobs_restore();
	vm_knobs_restore(&vm);
	thp_knobs_restore(&thp);
	ksft_finished();
}
