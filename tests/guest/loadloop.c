// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload the module over and over while another CPU keeps
 * faulting THPs on a node under memory pressure, so that unload races
 * with tasks sleeping in reclaim inside the hook's replacement, half the
 * time with the trace event recording.
 */
#include "test_util.h"
#include "kselftest_harness.h"

/* LOADLOOP_CYCLES overrides; make check runs a short form. */
#define CYCLES		60
#define FAULT_REGION	(16 * MiB)
#define TRACE_EVENT_ENABLE "/sys/kernel/tracing/events/thpnuma/thp_fault/enable"

static const char *const cycle_params[] = {
	"policy=strict-local",
	"policy=local-then-remote zone_reclaim=0",
	"policy=kernel",
	"policy=local-then-remote zone_reclaim=7",
	"policy=strict-local scope=madvise",
};

/* Fault and unmap THP regions on @node's CPU until killed. */
static pid_t start_faulter(int node, int *count_fd)
{
	int pipefd[2];
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		unsigned long rounds = 0;

		close(pipefd[0]);
		pin_to_node(node);
		for (;;) {
			char *p = map_hpage_aligned(FAULT_REGION, MADV_HUGEPAGE);

			touch_region(p, FAULT_REGION);
			munmap(p, FAULT_REGION);
			if (++rounds % 16 == 0 &&
			    write(pipefd[1], &rounds, sizeof(rounds)) < 0)
				_exit(1);
		}
	}
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	*count_fd = pipefd[0];
	return pid;
}

FIXTURE(loadloop) {
	struct thp_knobs knobs;
	pid_t hog, faulter;
	int count_fd;
};

FIXTURE_SETUP(loadloop)
{
	self->hog = self->faulter = -1;
	thp_knobs_save(&self->knobs);
	thp_knobs_quiet("always", "madvise");
	if (module_loaded())
		module_unload();
	/* Pressure on node 1, where the faulter runs. */
	self->hog = start_hog(1, node_watermark_kb(1, "low") + 4 * 1024);
	ASSERT_LT(0, self->hog);
	self->faulter = start_faulter(1, &self->count_fd);
	ASSERT_LT(0, self->faulter);
	pin_to_node(0);
}

FIXTURE_TEARDOWN(loadloop)
{
	stop_hog(self->faulter);
	stop_hog(self->hog);
	if (module_loaded())
		module_unload();
	thp_knobs_restore(&self->knobs);
}

static unsigned long faulter_rounds(int fd)
{
	unsigned long rounds = 0, r;

	while (read(fd, &r, sizeof(r)) == sizeof(r))
		rounds = r;
	return rounds;
}

TEST_F_TIMEOUT(loadloop, load_unload_under_thp_faults, 1200)
{
	const char *env = getenv("LOADLOOP_CYCLES");
	int cycles = env && *env ? atoi(env) : CYCLES;
	unsigned long hooked = 0, rounds = 0;
	int load_failures = 0, unload_failures = 0;
	int trace_failures = 0, hist_failures = 0;
	struct thpnuma_stats s = { 0 };
	static char hist[8192];

	for (int i = 0; i < cycles; i++) {
		const char *params = cycle_params[i % ARRAY_SIZE(cycle_params)];
		int ret = module_load(params);

		if (ret) {
			load_failures++;
			TH_LOG("cycle %d: load \"%s\": %s", i, params, strerror(-ret));
			continue;
		}
		/* Every other cycle unloads with the trace event recording. */
		if (i % 2 && write_file(TRACE_EVENT_ENABLE, "1"))
			trace_failures++;
		usleep(20000);
		if (read_file(THPNUMA_DEBUGFS "/hist", hist, sizeof(hist)) <= 0)
			hist_failures++;
		if (!read_stats(&s))
			hooked += stat_of(&s, 1, THPNUMA_THP_LOCAL) +
				  stat_of(&s, 1, THPNUMA_THP_REMOTE) +
				  stat_of(&s, 1, THPNUMA_THP_FALLBACK);
		ret = module_unload();
		if (ret) {
			unload_failures++;
			TH_LOG("cycle %d: unload: %s", i, strerror(-ret));
		}
		rounds += faulter_rounds(self->count_fd) ? 1 : 0;
	}
	stats_free(&s);
	TH_LOG("%d cycles; %lu THP faults seen by the hook; faulter progressed in %lu cycles",
	       cycles, hooked, rounds);
	EXPECT_EQ(0, load_failures);
	EXPECT_EQ(0, unload_failures);
	EXPECT_EQ(0, trace_failures);
	EXPECT_EQ(0, hist_failures);
	EXPECT_FALSE(module_loaded());
	EXPECT_NE(0, access("/sys/kernel/tracing/events/thpnuma", F_OK));
	/* The races were real: faults went through the hook meanwhile. */
	EXPECT_LT(0UL, hooked);
	EXPECT_LT(0UL, rounds);
}

TEST_HARNESS_MAIN
