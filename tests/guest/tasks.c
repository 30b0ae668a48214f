// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process policy overrides: the tasks file, inheritance at fork,
 * cleanup at exit, PID reuse, the bounded table, and two processes with
 * different policies faulting at once on a full node.
 */
#include "test_util.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include "kselftest_harness.h"

#define TASKS_FILE	THPNUMA_DEBUGFS "/tasks"
#define POLICIES_FILE	THPNUMA_DEBUGFS "/policies"
#define SMALL_REGION	(32 * MiB)
#define STORM_REGION	(160 * MiB)

enum { POL_KERNEL, POL_STRICT_LOCAL, POL_LOCAL_THEN_REMOTE, NR_POL };
/* The columns after a policy's name: its tasks, then the policy counters. */
enum {
	PC_TASKS,
	PC_LOCAL = 1 + THPNUMA_PC_THP_LOCAL,
	PC_REMOTE = 1 + THPNUMA_PC_THP_REMOTE,
	PC_FALLBACK = 1 + THPNUMA_PC_THP_FALLBACK,
	PC_BY_OVERRIDE = 1 + THPNUMA_PC_BY_OVERRIDE,
	NR_PC = 1 + THPNUMA_NR_POLICY_COUNTERS
};

static const char *const policy_names[NR_POL] = {
	"kernel", "strict-local", "local-then-remote",
};

struct policy_stats {
	unsigned long long v[NR_POL][NR_PC];
};

/* "policy tasks thp_local ...\n", from the module's counter table. */
static void policies_header(char *buf, size_t size)
{
	size_t n = snprintf(buf, size, "policy tasks");

	for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS && n < size; c++)
		n += snprintf(buf + n, size - n, " %s", thpnuma_policy_counter_names[c]);
	if (n < size)
		snprintf(buf + n, size - n, "\n");
}

/* "NAME N N ...": NR_PC numbers into @t; 0, or -1 if the row is otherwise. */
static int policies_row(char *line, char *name, size_t size, unsigned long long *t)
{
	char *p = line, *end;
	size_t len = strcspn(p, " ");

	if (!len || len >= size || p[len] != ' ')
		return -1;
	memcpy(name, p, len);
	name[len] = '\0';
	p += len;
	for (int c = 0; c < NR_PC; c++) {
		if (*p != ' ')
			return -1;
		t[c] = strtoull(p + 1, &end, 10);
		if (end == p + 1)
			return -1;
		p = end;
	}
	return *p == '\n' || !*p ? 0 : -1;
}

static int read_policies(struct policy_stats *ps)
{
	char line[256], header[256], name[32];
	int rows = 0;
	FILE *f = fopen(POLICIES_FILE, "r");

	memset(ps, 0, sizeof(*ps));
	if (!f)
		return -1;
	policies_header(header, sizeof(header));
	if (!fgets(line, sizeof(line), f) || strcmp(line, header)) {
		fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long t[NR_PC];
		int p;

		if (policies_row(line, name, sizeof(name), t))
			break;
		for (p = 0; p < NR_POL; p++)
			if (!strcmp(name, policy_names[p]))
				break;
		if (p == NR_POL)
			break;
		memcpy(ps->v[p], t, sizeof(t));
		rows++;
	}
	fclose(f);
	return rows == NR_POL ? 0 : -1;
}

static unsigned long long pdelta(const struct policy_stats *a,
				 const struct policy_stats *b, int p, int c)
{
	return b->v[p][c] - a->v[p][c];
}

static int set_override(pid_t pid, const char *policy)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d %s\n", pid, policy);
	return write_file(TASKS_FILE, buf);
}

/*
 * 1 and the columns after the command of @pid's line ("policy zone_reclaim
 * budget_us"), 0 if it has none, -1 on error.
 */
static int override_of(pid_t pid, char *policy, size_t size)
{
	char line[256], pol[32], zr[8], budget[16];
	int found = 0, nr;
	FILE *f = fopen(TASKS_FILE, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%d %*s %31s %7s %15s", &nr, pol, zr,
			   budget) != 4) {
			found = -1;
			break;
		}
		if (nr == pid) {
			snprintf(policy, size, "%s %s %s", pol, zr, budget);
			found++;
		}
	}
	fclose(f);
	return found;
}

static int nr_override_lines(void)
{
	char buf[8192];
	int n = 0;

	if (read_file(TASKS_FILE, buf, sizeof(buf)) < 0)
		return -1;
	for (char *c = buf; *c; c++)
		n += *c == '\n';
	return n;
}

/* A child that waits to be killed; returns once it runs. */
static pid_t spawn_sleeper(void)
{
	int fd[2];
	pid_t pid;
	char c;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fd[0]);
		if (write(fd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], &c, 1) != 1)
		pid = -1;
	close(fd[0]);
	return pid;
}

static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void fault_and_unmap(size_t size)
{
	char *p = map_hpage_aligned(size, MADV_HUGEPAGE);

	touch_region(p, size);
	munmap(p, size);
}

/* Fault @size in a child process; its exit status. */
static int fault_in_child(size_t size)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fault_and_unmap(size);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void *fault_thread(void *arg)
{
	fault_and_unmap(*(size_t *)arg);
	return NULL;
}

FIXTURE(tasks) {
	struct thp_knobs knobs;
	pid_t child[16];
	int nr_children;
	char pid_max[32];
};

FIXTURE_SETUP(tasks)
{
	thp_knobs_save(&self->knobs);
	read_file("/proc/sys/kernel/pid_max", self->pid_max,
		  sizeof(self->pid_max));
	thp_knobs_quiet("madvise", "madvise");
	ASSERT_EQ(0, module_load("policy=kernel"));
	pin_to_node(0);
	drop_caches();
}

FIXTURE_TEARDOWN(tasks)
{
	for (int i = 0; i < self->nr_children; i++)
		reap(self->child[i]);
	write_file("/proc/sys/kernel/pid_max", self->pid_max);
	if (module_loaded()) {
		int err = module_unload();

		if (err)
			TH_LOG("unload failed: %s", strerror(-err));
	}
	thp_knobs_restore(&self->knobs);
}

static pid_t add_sleeper(FIXTURE_DATA(tasks) *self)
{
	pid_t pid = spawn_sleeper();

	if (pid > 0)
		self->child[self->nr_children++] = pid;
	return pid;
}

TEST_F(tasks, set_update_list_and_clear)
{
	struct policy_stats ps;
	char pol[64], line[256];
	pid_t pid = add_sleeper(self);

	ASSERT_LT(0, pid);
	EXPECT_EQ(0, override_of(pid, pol, sizeof(pol)));
	ASSERT_EQ(0, set_override(pid, "strict-local"));
	ASSERT_EQ(1, override_of(pid, pol, sizeof(pol)));
	EXPECT_STREQ("strict-local - -", pol);
	ASSERT_EQ(0, read_policies(&ps));
	EXPECT_EQ(1ULL, ps.v[POL_STRICT_LOCAL][PC_TASKS]);

	/* The line names the process: "pid comm policy zone_reclaim budget". */
	ASSERT_LT(0, read_file(TASKS_FILE, line, sizeof(line)));
	TH_LOG("tasks: %s", line);
	EXPECT_NE(NULL, strstr(line, "tasks strict-local - -\n"));

	ASSERT_EQ(0, set_override(pid, "budget - 250"));
	ASSERT_EQ(1, override_of(pid, pol, sizeof(pol)));
	EXPECT_STREQ("budget - 250", pol);
	ASSERT_EQ(0, set_override(pid, "budget 3 -"));
	ASSERT_EQ(1, override_of(pid, pol, sizeof(pol)));
	EXPECT_STREQ("budget 3 -", pol);

	ASSERT_EQ(0, set_override(pid, "local-then-remote 7"));
	ASSERT_EQ(1, override_of(pid, pol, sizeof(pol)));
	EXPECT_STREQ("local-then-remote 7 -", pol);
	ASSERT_EQ(0, read_policies(&ps));
	EXPECT_EQ(0ULL, ps.v[POL_STRICT_LOCAL][PC_TASKS]);
	EXPECT_EQ(1ULL, ps.v[POL_LOCAL_THEN_REMOTE][PC_TASKS]);

	ASSERT_EQ(0, set_override(pid, "default"));
	EXPECT_EQ(0, override_of(pid, pol, sizeof(pol)));
	EXPECT_EQ(0, nr_override_lines());
	/* Clearing what is not set is not an error. */
	EXPECT_EQ(0, set_override(pid, "default"));
}

#define MAX_EVENTS	1024
static struct fault_event events[MAX_EVENTS];

/*
 * The THP faults of this process in the trace: how many, and how many ran
 * under @policy with @budget_us.
 */
static long faults_under(const char *policy, unsigned int budget_us,
			 long *matching)
{
	long n, lost, faults = 0;

	*matching = 0;
	n = fault_trace_read(events, MAX_EVENTS, &lost);
	if (n < 0 || lost)
		return -1;
	for (long i = 0; i < n; i++) {
		if (events[i].pid != getpid() || events[i].order != 9)
			continue;
		faults++;
		*matching += !strcmp(events[i].policy, policy) &&
			     events[i].budget_us == budget_us &&
			     events[i].override;
	}
	return faults;
}

/* A budget in an override is the one the fault decides with. */
TEST_F(tasks, override_budget_is_the_faults_budget)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	char global[16];
	long matching;

	if (fault_trace_start())
		SKIP(return, "no tracefs or no thpnuma:thp_fault event");
	ASSERT_EQ(0, set_override(getpid(), "budget - 77"));
	fault_and_unmap(SMALL_REGION);
	EXPECT_EQ(want, faults_under("budget", 77, &matching));
	EXPECT_EQ(want, matching);

	/* Without one, the override follows the global budget_us. */
	ASSERT_LT(0, read_file(THPNUMA_DEBUGFS "/budget_us", global,
			       sizeof(global)));
	ASSERT_EQ(0, fault_trace_start());
	ASSERT_EQ(0, set_override(getpid(), "budget"));
	fault_and_unmap(SMALL_REGION);
	EXPECT_EQ(want, faults_under("budget", strtoul(global, NULL, 10),
				     &matching));
	EXPECT_EQ(want, matching);
	ASSERT_EQ(0, set_override(getpid(), "default"));
}

/* An override covers the whole thread group, whichever thread faults. */
TEST_F(tasks, override_applies_to_every_thread)
{
	const long want = 2 * (SMALL_REGION / HPAGE_SIZE);
	size_t size = SMALL_REGION;
	struct policy_stats a, b;
	pthread_t t;

	ASSERT_EQ(0, set_override(getpid(), "strict-local"));
	ASSERT_EQ(0, read_policies(&a));
	ASSERT_EQ(0, pthread_create(&t, NULL, fault_thread, &size));
	ASSERT_EQ(0, pthread_join(t, NULL));
	fault_and_unmap(size);
	ASSERT_EQ(0, read_policies(&b));

	EXPECT_EQ(want, (long)pdelta(&a, &b, POL_STRICT_LOCAL, PC_BY_OVERRIDE));
	EXPECT_EQ(want, (long)pdelta(&a, &b, POL_STRICT_LOCAL, PC_LOCAL));
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_KERNEL, PC_LOCAL) +
		  pdelta(&a, &b, POL_KERNEL, PC_REMOTE) +
		  pdelta(&a, &b, POL_KERNEL, PC_FALLBACK));
}

TEST_F(tasks, children_forked_after_the_override_inherit_it)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct policy_stats a, b;
	pid_t before, after;
	char pol[64];

	before = add_sleeper(self);
	ASSERT_LT(0, before);
	ASSERT_EQ(0, set_override(getpid(), "local-then-remote 1 400"));
	after = add_sleeper(self);
	ASSERT_LT(0, after);

	/* The whole override is inherited, its budget too. */
	EXPECT_EQ(0, override_of(before, pol, sizeof(pol)));
	ASSERT_EQ(1, override_of(after, pol, sizeof(pol)));
	EXPECT_STREQ("local-then-remote 1 400", pol);

	/* A child's faults run under the inherited override. */
	ASSERT_EQ(0, read_policies(&a));
	ASSERT_EQ(0, fault_in_child(SMALL_REGION));
	ASSERT_EQ(0, read_policies(&b));
	EXPECT_EQ(want, (long)pdelta(&a, &b, POL_LOCAL_THEN_REMOTE,
				     PC_BY_OVERRIDE));
	EXPECT_EQ(want, (long)pdelta(&a, &b, POL_LOCAL_THEN_REMOTE, PC_LOCAL));

	/* The child's copy is its own: it outlives the parent's. */
	ASSERT_EQ(0, set_override(getpid(), "default"));
	EXPECT_EQ(1, override_of(after, pol, sizeof(pol)));
	EXPECT_EQ(0, override_of(getpid(), pol, sizeof(pol)));
}

TEST_F(tasks, exit_removes_the_override)
{
	struct policy_stats ps;
	char pol[64];
	pid_t pid = spawn_sleeper();

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, set_override(pid, "strict-local"));
	ASSERT_EQ(1, override_of(pid, pol, sizeof(pol)));
	reap(pid);
	EXPECT_EQ(0, override_of(pid, pol, sizeof(pol)));
	EXPECT_EQ(0, nr_override_lines());
	ASSERT_EQ(0, read_policies(&ps));
	EXPECT_EQ(0ULL, ps.v[POL_STRICT_LOCAL][PC_TASKS]);

	/* A dead process cannot get one. */
	EXPECT_EQ(-ESRCH, set_override(pid, "strict-local"));
	EXPECT_EQ(0, nr_override_lines());
}

/*
 * Force a reuse of an overridden process's PID with a small pid_max: the
 * new process must run under the default policy.
 */
TEST_F_TIMEOUT(tasks, reused_pid_does_not_inherit, 300)
{
	const long want = SMALL_REGION / HPAGE_SIZE;
	struct policy_stats a, b;
	int go[2], done[2], forks = 0;
	pid_t old, pid;
	char pol[64], c;

	/* PIDs below 300 are not reused after a wrap: get past them. */
	ASSERT_EQ(0, write_file("/proc/sys/kernel/pid_max", "400"));
	do {
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	} while (pid < 300);
	old = spawn_sleeper();
	ASSERT_LT(0, old);
	ASSERT_GT(400, old);
	ASSERT_EQ(0, set_override(old, "strict-local"));
	reap(old);

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	for (;;) {
		ASSERT_GT(2000, ++forks);
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			if (getpid() != old)
				_exit(0);
			/* The reused PID: fault when told, under its policy. */
			if (read(go[0], &c, 1) != 1)
				_exit(1);
			fault_and_unmap(SMALL_REGION);
			if (write(done[1], "d", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
		if (pid == old)
			break;
		waitpid(pid, NULL, 0);
	}
	self->child[self->nr_children++] = pid;
	TH_LOG("pid %d reused after %d forks", old, forks);

	EXPECT_EQ(0, override_of(pid, pol, sizeof(pol)));
	ASSERT_EQ(0, read_policies(&a));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(0, read_policies(&b));
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_STRICT_LOCAL, PC_BY_OVERRIDE) +
		  pdelta(&a, &b, POL_STRICT_LOCAL, PC_LOCAL));
	EXPECT_EQ(want, (long)pdelta(&a, &b, POL_KERNEL, PC_LOCAL));
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_KERNEL, PC_BY_OVERRIDE));
}

TEST_F(tasks, full_table_refuses_with_enospc)
{
	char before[4096], after[4096], pol[64];
	pid_t pid[4], extra, child;

	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, module_load("policy=kernel max_tasks=4"));
	ASSERT_EQ(0, set_override(getpid(), "strict-local"));
	for (int i = 0; i < 3; i++) {
		pid[i] = add_sleeper(self);
		ASSERT_LT(0, pid[i]);
		/* Each sleeper inherited: set its own policy anyway. */
		ASSERT_EQ(0, set_override(pid[i], "local-then-remote"));
	}
	EXPECT_EQ(4, nr_override_lines());

	/* A child forked now cannot inherit: the table is full. */
	ASSERT_EQ(0, set_override(getpid(), "default"));
	pid[3] = add_sleeper(self);
	ASSERT_EQ(0, set_override(getpid(), "strict-local"));
	EXPECT_EQ(0, override_of(pid[3], pol, sizeof(pol)));
	child = add_sleeper(self);
	ASSERT_LT(0, child);
	EXPECT_EQ(0, override_of(child, pol, sizeof(pol)));

	ASSERT_LT(0, read_file(TASKS_FILE, before, sizeof(before)));
	EXPECT_EQ(-ENOSPC, set_override(pid[3], "strict-local"));
	ASSERT_LT(0, read_file(TASKS_FILE, after, sizeof(after)));
	EXPECT_STREQ(before, after);

	/* Changing an existing override needs no new entry. */
	EXPECT_EQ(0, set_override(pid[0], "kernel 3"));
	ASSERT_EQ(1, override_of(pid[0], pol, sizeof(pol)));
	EXPECT_STREQ("kernel 3 -", pol);

	/* A freed entry makes room. */
	extra = pid[1];
	ASSERT_EQ(0, set_override(extra, "default"));
	EXPECT_EQ(0, set_override(pid[3], "strict-local"));
	EXPECT_EQ(4, nr_override_lines());
}

/*
 * A process that forks without end fills the table only to three
 * quarters: writes keep the rest.
 */
TEST_F(tasks, forking_leaves_room_for_writes)
{
	char pol[64];
	pid_t pid;
	int inherited = 0;

	ASSERT_EQ(0, module_unload());
	ASSERT_EQ(0, module_load("policy=kernel max_tasks=8"));
	ASSERT_EQ(0, set_override(getpid(), "strict-local"));
	for (int i = 0; i < 12; i++) {
		pid = add_sleeper(self);
		ASSERT_LT(0, pid);
		inherited += override_of(pid, pol, sizeof(pol)) == 1;
	}
	/* This process's entry and 5 children's: 6 of 8. */
	EXPECT_EQ(5, inherited);
	EXPECT_EQ(6, nr_override_lines());
	/* Writes for children that did not inherit still find room. */
	ASSERT_EQ(0, set_override(getpid(), "default"));
	EXPECT_EQ(0, set_override(self->child[10], "local-then-remote"));
	EXPECT_EQ(0, set_override(self->child[11], "local-then-remote"));
	EXPECT_EQ(0, set_override(getpid(), "strict-local"));
	EXPECT_EQ(8, nr_override_lines());
	EXPECT_EQ(-ENOSPC, set_override(self->child[9], "strict-local"));
}

struct fork_race {
	atomic_int target;	/* the PID the parent's next fork gets */
	atomic_int written;	/* the writer gave @target an override */
	atomic_int stop;
};

/*
 * A real-time thread on the parent's CPU, woken at random moments: with
 * full preemption it preempts the parent wherever it is, also between
 * the child becoming visible by PID and the fork tracepoint.
 */
static void *fork_race_writer(void *arg)
{
	struct sched_param rt = { .sched_priority = 1 };
	struct fork_race *r = arg;
	struct timespec nap;

	pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt);
	while (!atomic_load(&r->stop)) {
		nap.tv_sec = 0;
		nap.tv_nsec = 1000 + prng_below(400000);
		nanosleep(&nap, NULL);
		if (!atomic_load(&r->written) &&
		    !set_override(atomic_load(&r->target), "local-then-remote"))
			atomic_store(&r->written, 1);
	}
	return NULL;
}

static pid_t next_pid(void)
{
	char buf[32];

	if (read_file("/proc/sys/kernel/ns_last_pid", buf, sizeof(buf)) <= 0)
		return -1;
	return atoi(buf) + 1;
}

#define PREEMPT_FILE	"/sys/kernel/debug/sched/preempt"

/*
 * A child is visible by PID before the fork tracepoint that gives it its
 * parent's override: a write in between must not leave two entries.
 * Thousands of forks, each raced by a write for the child's PID.
 */
TEST_F_TIMEOUT(tasks, write_racing_fork_leaves_one_entry, 600)
{
	int rounds = env_long("FORK_RACE_ROUNDS", 3000), in_fork = 0, dup = 0;
	struct fork_race r = { 0 };
	char preempt[64] = "", pol[64], *mode;
	struct policy_stats ps;
	pthread_t writer;
	pid_t child;

	prng_seed_from_env("FORK_RACE_SEED");
	/*
	 * Full preemption where the kernel lets us choose (PREEMPT_DYNAMIC):
	 * the file reads like "none (voluntary) full".
	 */
	if (read_file(PREEMPT_FILE, preempt, sizeof(preempt)) > 0 &&
	    (mode = strchr(preempt, '('))) {
		memmove(preempt, mode + 1, strlen(mode));
		preempt[strcspn(preempt, ")")] = '\0';
		ASSERT_EQ(0, write_file(PREEMPT_FILE, "full"));
	} else {
		preempt[0] = '\0';
	}
	ASSERT_EQ(0, set_override(getpid(), "strict-local"));
	ASSERT_EQ(0, pthread_create(&writer, NULL, fork_race_writer, &r));
	for (int i = 0; i < rounds; i++) {
		atomic_store(&r.target, next_pid());
		atomic_store(&r.written, 0);
		child = fork();
		if (child == 0) {
			for (;;)
				pause();
		}
		ASSERT_LT(0, child);
		in_fork += atomic_load(&r.written);
		/* Inherited, written, or both: one entry. */
		if (override_of(child, pol, sizeof(pol)) != 1)
			dup++;
		atomic_store(&r.written, 1);
		reap(child);
	}
	atomic_store(&r.stop, 1);
	pthread_join(writer, NULL);
	if (preempt[0])
		write_file(PREEMPT_FILE, preempt);
	TH_LOG("%d forks, %d with the write landing inside fork() (preempt mode was '%s')",
	       rounds, in_fork, preempt);
	EXPECT_EQ(0, dup);
	/* Only this process's own entry is left, counted once. */
	EXPECT_EQ(1, nr_override_lines());
	ASSERT_EQ(0, read_policies(&ps));
	EXPECT_EQ(1ULL, ps.v[POL_LOCAL_THEN_REMOTE][PC_TASKS] +
		  ps.v[POL_STRICT_LOCAL][PC_TASKS] + ps.v[POL_KERNEL][PC_TASKS]);
}

/* A name cannot forge a row: control bytes, space and backslash are \ooo. */
TEST_F(tasks, hostile_names_are_escaped)
{
	char buf[4096];
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, "a\rb\nc\x1b d\\");
		for (;;)
			pause();
	}
	ASSERT_LT(0, pid);
	self->child[self->nr_children++] = pid;
	usleep(100000);
	ASSERT_EQ(0, set_override(pid, "strict-local"));
	ASSERT_LT(0, read_file(TASKS_FILE, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "a\\015b\\012c\\033\\040d\\134 strict-local"));
	EXPECT_EQ(1, nr_override_lines());
}

TEST_F(tasks, malformed_writes_change_nothing)
{
	static const char *const bad[] = {
		"", "\n", "1", "1 ", " 1 kernel", "1  kernel", "1 kernel ",
		"1\tkernel", "0 kernel", "-1 kernel", "+1 kernel", "01 kernel",
		"4194305 kernel", "1 Kernel", "1 strict_local", "kernel 1",
		"1 default 1", "1 kernel 8", "1 kernel -1", "1 kernel 1 1 1",
		"1 kernel\n\n", "1 kernel\n1", "1 local-then-remote 1 and-more-bytes",
		"1 budget 7 0", "1 budget - 1000001", "1 budget 7 01",
		"1 default -", "1 budget - - -", "1 budget 7 1e3",
	};
	char before[4096], after[4096], buf[64];
	struct policy_stats a, b;
	pid_t pid = add_sleeper(self);
	int fd;

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, set_override(pid, "strict-local"));
	ASSERT_LT(0, read_file(TASKS_FILE, before, sizeof(before)));
	ASSERT_EQ(0, read_policies(&a));

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, write_file(TASKS_FILE, bad[i]))
			TH_LOG("accepted \"%s\"", bad[i]);
		/* The same with the sleeper's PID where the PID was 1. */
		if (bad[i][0] == '1') {
			snprintf(buf, sizeof(buf), "%d%s", pid, bad[i] + 1);
			if (strlen(buf) <= THPNUMA_MAX_TASK_WRITE)
				EXPECT_EQ(-EINVAL, write_file(TASKS_FILE, buf))
					TH_LOG("accepted \"%s\"", buf);
		}
	}
	/* A PID nobody has, and a kernel thread (kthreadd is PID 2). */
	EXPECT_EQ(-ESRCH, write_file(TASKS_FILE, "4194304 kernel"));
	EXPECT_EQ(-EINVAL, write_file(TASKS_FILE, "2 strict-local"));
	/* Embedded NUL, an offset, an oversized write. */
	fd = open(TASKS_FILE, O_WRONLY);
	ASSERT_LE(0, fd);
	snprintf(buf, sizeof(buf), "%d kernel", pid);
	buf[strlen(buf) - 1] = '\0';
	EXPECT_EQ(-1, write(fd, buf, strlen(buf) + 1));
	EXPECT_EQ(EINVAL, errno);
	snprintf(buf, sizeof(buf), "%d kernel", pid);
	ASSERT_EQ(1, lseek(fd, 1, SEEK_SET));
	EXPECT_EQ(-1, write(fd, buf, strlen(buf)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	memset(buf, '7', sizeof(buf));
	EXPECT_EQ(-1, write(fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);

	ASSERT_LT(0, read_file(TASKS_FILE, after, sizeof(after)));
	EXPECT_STREQ(before, after);
	ASSERT_EQ(0, read_policies(&b));
	for (int p = 0; p < NR_POL; p++)
		EXPECT_EQ(a.v[p][PC_TASKS], b.v[p][PC_TASKS]);
}

/* Two processes on node 0's CPU fault at once, each under its own policy. */
struct pair_result {
	long thps[MAX_NODES];
};

static pid_t start_faulter(int go_fd, int result_fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct pair_result r = { 0 };
		char *p = map_hpage_aligned(STORM_REGION, MADV_HUGEPAGE);
		char c;

		if (read(go_fd, &c, 1) != 1)
			_exit(1);
		touch_region(p, STORM_REGION);
		if (region_thp_nodes(p, STORM_REGION, r.thps))
			_exit(2);
		if (write(result_fd, &r, sizeof(r)) != sizeof(r))
			_exit(3);
		_exit(0);
	}
	return pid;
}

FIXTURE(storm) {
	struct thp_knobs knobs;
	pid_t hog;
};

FIXTURE_SETUP(storm)
{
	self->hog = -1;
	thp_knobs_save(&self->knobs);
	if (!swap_active())
		SKIP(return, "no swap device: the storm needs zram swap");
	thp_knobs_quiet("madvise", "madvise");
	ASSERT_EQ(0, module_load("policy=kernel"));
	pin_to_node(0);
	drop_caches();
	self->hog = start_storm_hog();
	ASSERT_LT(0, self->hog);
}

FIXTURE_TEARDOWN(storm)
{
	stop_hog(self->hog);
	if (module_loaded())
		module_unload();
	thp_knobs_restore(&self->knobs);
}

TEST_F_TIMEOUT(storm, two_processes_two_policies, 600)
{
	const long chunks = STORM_REGION / HPAGE_SIZE;
	struct pair_result strict, spread;
	struct policy_stats a, b;
	int go[2], res[2][2], status;
	pid_t pid[2];
	long remote = 0, pswpout;
	struct vmstat vm0, vm1;

	ASSERT_EQ(0, pipe(go));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, pipe(res[i]));
		pid[i] = start_faulter(go[0], res[i][1]);
		ASSERT_LT(0, pid[i]);
	}
	ASSERT_EQ(0, set_override(pid[0], "strict-local"));
	ASSERT_EQ(0, set_override(pid[1], "local-then-remote 0"));
	ASSERT_EQ(0, read_policies(&a));
	vmstat_read(&vm0);
	ASSERT_EQ(2, write(go[1], "gg", 2));

	ASSERT_EQ((ssize_t)sizeof(strict),
		  read(res[0][0], &strict, sizeof(strict)));
	ASSERT_EQ((ssize_t)sizeof(spread),
		  read(res[1][0], &spread, sizeof(spread)));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_EQ(0, status);
	}
	vmstat_read(&vm1);
	pswpout = vm1.v[VM_PSWPOUT] - vm0.v[VM_PSWPOUT];
	ASSERT_EQ(0, read_policies(&b));

	for (int n = 1; n < MAX_NODES; n++)
		remote += spread.thps[n];
	TH_LOG("strict-local: %ld THPs on node 0, %ld elsewhere; local-then-remote: %ld on node 0, %ld remote; pswpout %ld",
	       strict.thps[0], strict.thps[1] + strict.thps[2] + strict.thps[3],
	       spread.thps[0], remote, pswpout);

	/* strict-local: every THP on node 0, at the price of swapping. */
	EXPECT_LT(0, strict.thps[0]);
	for (int n = 1; n < MAX_NODES; n++)
		EXPECT_EQ(0, strict.thps[n]);
	EXPECT_LT(0, pswpout);
	/*
	 * local-then-remote: a THP for every chunk, the overflow on other
	 * nodes. Its share of node 0 depends on what the strict-local
	 * process reclaims meanwhile, so only "some remote" is certain.
	 */
	EXPECT_EQ(chunks, spread.thps[0] + remote);
	EXPECT_LT(0, remote);
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_LOCAL_THEN_REMOTE, PC_FALLBACK));
	EXPECT_EQ(remote, (long)pdelta(&a, &b, POL_LOCAL_THEN_REMOTE,
				       PC_REMOTE));

	/* Each fault was decided by its process's override. */
	EXPECT_EQ(chunks, (long)pdelta(&a, &b, POL_STRICT_LOCAL, PC_BY_OVERRIDE));
	EXPECT_EQ(chunks, (long)pdelta(&a, &b, POL_LOCAL_THEN_REMOTE,
				       PC_BY_OVERRIDE));
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_STRICT_LOCAL, PC_REMOTE));
	EXPECT_EQ(0ULL, pdelta(&a, &b, POL_KERNEL, PC_LOCAL) +
		  pdelta(&a, &b, POL_KERNEL, PC_REMOTE));
	/* Both exited: their overrides went with them. */
	EXPECT_EQ(0, nr_override_lines());
}

TEST_HARNESS_MAIN
