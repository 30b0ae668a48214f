// SPDX-License-Identifier: GPL-2.0
/*
 * Memory exhaustion: one hog per node (pinned to the node's CPU, half of
 * its memory MADV_HUGEPAGE) allocates until the OOM killer stops it, with
 * the module absent and then in each policy. The OOM killer must behave
 * as without the module: every hog, and nothing else, is killed; this
 * test survives; and the module keeps answering afterwards.
 *
 * Env: OOM_POLICIES (default "kernel strict-local local-then-remote").
 */
#include "test_util.h"
#include "kselftest.h"
#include "policy.h"

#define CHUNK		(8 * MiB)
#define HOG_TIMEOUT	300	/* seconds for every hog to be killed */

static int set_oom_score_adj(const char *val)
{
	return write_file("/proc/self/oom_score_adj", val);
}

static pid_t start_oom_hog(int node)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	set_oom_score_adj("1000");
	pin_to_node(node);
	/* MAP_NORESERVE mappings: the touches, not mmap(), run out of memory. */
	for (unsigned long i = 0;; i++)
		touch_region(map_hpage_aligned(CHUNK, i % 2 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE), CHUNK);
}

struct oom_outcome {
	int hogs, killed, timed_out;
	long oom_kills;
};

/* Start one hog per node and wait until every hog has died. */
static void exhaust(struct oom_outcome *o)
{
	pid_t hogs[MAX_NODES];
	long kills = vmstat_value("oom_kill");
	time_t deadline = time(NULL) + HOG_TIMEOUT;
	int left;

	memset(o, 0, sizeof(*o));
	o->hogs = nr_nodes();
	for (int n = 0; n < o->hogs; n++)
		hogs[n] = start_oom_hog(n);
	left = o->hogs;
	while (left > 0 && time(NULL) < deadline) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid <= 0) {
			usleep(100000);
			continue;
		}
		left--;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			o->killed++;
		else
			ksft_print_msg("hog %d ended with status 0x%x\n", pid, status);
	}
	if (left > 0) {
		o->timed_out = left;
		for (int n = 0; n < o->hogs; n++)
			kill(hogs[n], SIGKILL);
		while (waitpid(-1, NULL, 0) > 0)
			;
	}
	o->oom_kills = vmstat_value("oom_kill") - kills;
}

static void run(const char *label, const char *policy, const struct oom_outcome *ref,
		struct oom_outcome *o)
{
	struct thpnuma_stats s = { 0 };
	char params[64], cur[64];
	int ret;

	if (policy) {
		snprintf(params, sizeof(params), "policy=%s zone_reclaim=7", policy);
		ret = module_load(params);
		ksft_test_result(ret == 0, "%s: module loads\n", label);
		if (ret)
			return;
	}
	exhaust(o);
	ksft_print_msg("%s: %d hogs, %d killed by SIGKILL, %ld OOM kills, %d timed out\n",
		 label, o->hogs, o->killed, o->oom_kills, o->timed_out);
	ksft_test_result(o->killed == o->hogs && !o->timed_out,
	       "%s: every hog killed by SIGKILL (%d of %d)\n", label, o->killed, o->hogs);
	ksft_test_result(o->oom_kills == o->hogs, "%s: the OOM killer killed the hogs and only them (%ld kills)\n",
	       label, o->oom_kills);
	if (ref)
		ksft_test_result(o->killed == ref->killed && o->oom_kills == ref->oom_kills,
		       "%s: same outcome as with the module absent\n", label);
	if (!policy)
		return;
	ksft_test_result(read_stats(&s) == 0, "%s: stats still readable\n", label);
	stats_free(&s);
	ksft_test_result(write_file(THPNUMA_DEBUGFS "/policy", "kernel") == 0 &&
	       !read_choice(THPNUMA_DEBUGFS "/policy", cur, sizeof(cur)) &&
	       !strcmp(cur, "kernel"), "%s: policy still writable\n", label);
	ksft_test_result(module_unload() == 0, "%s: module unloads\n", label);
}

int main(void)
{
	const char *list = getenv("OOM_POLICIES");
	char policies[256] = "", *names[128], *p, *save;
	struct oom_outcome ref, o;
	struct thp_knobs knobs;
	int n = 0;

	/* By default every policy of the module's list (policy.h). */
	if (list)
		snprintf(policies, sizeof(policies), "%s", list);
	for (unsigned int i = 0; !list && i < THPNUMA_NR_POLICIES; i++)
		snprintf(policies + strlen(policies),
			 sizeof(policies) - strlen(policies), "%s%s",
			 i ? " " : "", thpnuma_policy_names[i]);
	for (p = strtok_r(policies, " ", &save); p; p = strtok_r(NULL, " ", &save))
		names[n++] = p;
	/* Exempt, 2 without the module, 7 per policy, the last load. */
	ksft_print_header();
	ksft_set_plan(1 + 2 + 7 * n + 1);
	thp_knobs_save(&knobs);
	thp_knobs_quiet("always", "madvise");
	ksft_test_result(set_oom_score_adj("-1000") == 0, "this test is exempt from the OOM killer\n");
	if (module_loaded())
		module_unload();
	run("module absent", NULL, NULL, &ref);
	for (int i = 0; i < n; i++)
		run(names[i], names[i], &ref, &o);
	ksft_test_result(module_load("") == 0 && module_unload() == 0, "module loads and unloads after all\n");
	thp_knobs_restore(&knobs);
	ksft_finished();
}
