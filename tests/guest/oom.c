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
#include "thpnuma_test.h"
#include "tap.h"

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
	for (unsigned long i = 0;; i++) {
		char *p = map_region(CHUNK, i % 2 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);

		if (!p) {
			/* mmap itself failed: keep what we have and wait to die. */
			for (;;)
				pause();
		}
		touch_region(p, CHUNK);
	}
}

struct oom_outcome {
	int hogs, killed, timed_out;
	long oom_kills;
};

/* Start one hog per node and wait until every hog has died. */
static void exhaust(struct oom_outcome *o)
{
	pid_t hogs[MAX_NODES];
	long kills = vmstat("oom_kill");
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
			tap_diag("hog %d ended with status 0x%x", pid, status);
	}
	if (left > 0) {
		o->timed_out = left;
		for (int n = 0; n < o->hogs; n++)
			kill(hogs[n], SIGKILL);
		while (waitpid(-1, NULL, 0) > 0)
			;
	}
	o->oom_kills = vmstat("oom_kill") - kills;
}

static void run(const char *label, const char *policy, const struct oom_outcome *ref,
		struct oom_outcome *o)
{
	char params[64], cur[64];
	struct thp_stats s;

	if (policy) {
		snprintf(params, sizeof(params), "policy=%s zone_reclaim=7", policy);
		if (!tap_ok(module_load(params) == 0, "%s: module loads", label))
			return;
	}
	exhaust(o);
	tap_diag("%s: %d hogs, %d killed by SIGKILL, %ld OOM kills, %d timed out",
		 label, o->hogs, o->killed, o->oom_kills, o->timed_out);
	tap_ok(o->killed == o->hogs && !o->timed_out,
	       "%s: every hog killed by SIGKILL (%d of %d)", label, o->killed, o->hogs);
	tap_ok(o->oom_kills == o->hogs, "%s: the OOM killer killed the hogs and only them (%ld kills)",
	       label, o->oom_kills);
	if (ref)
		tap_ok(o->killed == ref->killed && o->oom_kills == ref->oom_kills,
		       "%s: same outcome as with the module absent", label);
	if (!policy)
		return;
	tap_ok(read_stats(&s) == 0, "%s: stats still readable", label);
	tap_ok(write_file(THPNUMA_DEBUGFS "/policy", "kernel") == 0 &&
	       !read_choice(THPNUMA_DEBUGFS "/policy", cur, sizeof(cur)) &&
	       !strcmp(cur, "kernel"), "%s: policy still writable", label);
	tap_ok(module_unload() == 0, "%s: module unloads", label);
}

int main(void)
{
	const char *list = getenv("OOM_POLICIES");
	char policies[256], *p, *save;
	struct oom_outcome ref, o;
	struct thp_knobs knobs;
	int n = 0;

	snprintf(policies, sizeof(policies), "%s",
		 list ? list : "kernel strict-local local-then-remote");
	for (p = policies; *p; p++)
		n += *p == ' ' ? 1 : 0;
	tap_plan(2 + (n + 1) * 6);
	thp_knobs_save(&knobs);
	thp_knobs_quiet("always", "madvise");
	tap_ok(set_oom_score_adj("-1000") == 0, "this test is exempt from the OOM killer");
	if (module_loaded())
		module_unload();
	run("module absent", NULL, NULL, &ref);
	for (p = strtok_r(policies, " ", &save); p; p = strtok_r(NULL, " ", &save))
		run(p, p, &ref, &o);
	tap_ok(module_load("") == 0 && module_unload() == 0, "module loads and unloads after all");
	thp_knobs_restore(&knobs);
	return tap_exit();
}
