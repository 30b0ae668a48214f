// SPDX-License-Identifier: GPL-2.0
/*
 * No policy may OOM-kill where the kernel would not. Small mTHP orders
 * (16 and 32 kB, up to PAGE_ALLOC_COSTLY_ORDER) are ones the page
 * allocator retries until the OOM killer runs; an attempt restricted to
 * remote nodes must stop after one round instead. Node 1 is mlocked by a
 * victim with oom_score_adj 1000 and has no block left for them, node 0
 * sits at its low watermark with memory it can swap out (to zram: the
 * MANIFEST line has zram), and a node-0 task faults 64 MiB more
 * MADV_HUGEPAGE memory than node 0 has free, with only the 16 and 32 kB
 * sizes on.
 * Under every policy and zone_reclaim value, /proc/vmstat's oom_kill does
 * not move and the victim lives.
 *
 * Env: MTHP_OOM_RUNS, "POLICY[:ZONE_RECLAIM] ..." (default: kernel,
 * strict-local and local-then-remote with every zone_reclaim value).
 */
#include "test_util.h"
#include "kselftest.h"

/*
 * The nodes' free memory goes into their hugetlb pools (2 MiB pages, taken
 * down to the min watermark, never reclaimed): no 16 or 32 kB block is
 * left for long. Node 1 has nothing to reclaim either; node 0 has memory
 * it can swap out, and the region is 64 MiB more than it had free. Local
 * attempts that do not reclaim (zone_reclaim 0) fail and go remote; the
 * kernel policy, strict-local and the small-page fallback reclaim node 0.
 */

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

/* 4 MiB mlocked on @node by a child the OOM killer takes first. */
static pid_t start_victim(int node)
{
	int pipefd[2];
	pid_t pid;
	char c = 0;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		char *p = mmap(NULL, 4 * MiB, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (write_file("/proc/self/oom_score_adj", "1000") ||
		    set_mempolicy_nodes(MPOL_BIND, 1UL << node) ||
		    p == MAP_FAILED || mlock(p, 4 * MiB) ||
		    write(pipefd[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &c, 1) != 1)
		pid = -1;
	close(pipefd[0]);
	return pid;
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
		/*
		 * Page tables first, one small page each: their allocations
		 * would wake node 0's kswapd, which the local attempts (without
		 * __GFP_KSWAPD_RECLAIM at zone_reclaim 0) do not, and it would
		 * keep node 0 above min and the remote attempts rare.
		 */
		p = map_hpage_aligned(region, MADV_NOHUGEPAGE);
		for (size_t off = HPAGE_SIZE - BASE_PAGE_SIZE; off < region;
		     off += HPAGE_SIZE)
			p[off] = 1;
		madvise(p, region, MADV_HUGEPAGE);
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
	struct thpnuma_stats s0 = { 0 }, s1 = { 0 };
	long kills, swapped;
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
	swapped = vmstat_value("pswpout");
	read_stats(&s0);
	ret = fault_on_node0();
	read_stats(&s1);
	kills = vmstat_value("oom_kill") - kills;
	swapped = vmstat_value("pswpout") - swapped;
	ksft_print_msg("%s: faulting task %s, %ld OOM kills; node-0 faults: %llu local, %llu remote, %llu fallback; %ld pages swapped out\n",
		       spec, ret ? "failed" : "done", kills,
		       (unsigned long long)stat_delta(&s0, &s1, 0, THPNUMA_THP_LOCAL),
		       (unsigned long long)stat_delta(&s0, &s1, 0, THPNUMA_THP_REMOTE),
		       (unsigned long long)stat_delta(&s0, &s1, 0, THPNUMA_THP_FALLBACK),
		       swapped);
	stats_free(&s0);
	stats_free(&s1);
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
	long pool0, pool1;
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
	ksft_set_plan(5 * n);
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

	for (int i = 0; i < n; i++) {
		/*
		 * Both nodes filled afresh for each run: the last one's swap-outs
		 * left node 0 free, and its OOM kill may have taken the victim.
		 */
		victim = start_victim(1);
		filler = start_storm_hog();
		pool1 = hugetlb_take(1, 100000);
		pool0 = hugetlb_take(0, node_headroom_kb(0) / 2048);
		ksft_test_result(victim > 0 && filler > 0 && pool1 > 0,
				 "%s: node 1's free memory in %ld huge pages (victim %d), node 0 swappable, its free memory in %ld\n",
				 names[i], pool1, victim, pool0);
		region = node_headroom_kb(0) * 1024 + BEYOND;
		region &= ~(HPAGE_SIZE - 1);
		ksft_print_msg("%s: free above min: node 0 %ld kB, node 1 %ld kB; region %zu MiB\n",
			       names[i], node_headroom_kb(0),
			       node_headroom_kb(1), region / MiB);
		run(names[i], victim);
		hugetlb_take(0, 0);
		hugetlb_take(1, 0);
		stop_hog(filler);
		stop_hog(victim);
	}
	knobs_restore();
	vm_knobs_restore(&vm);
	thp_knobs_restore(&thp);
	ksft_finished();
}
