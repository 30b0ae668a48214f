// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl compare: run a command under each policy in turn, each run
 * in a transient cgroup of its own with a per-cgroup setting, and say
 * which policy is faster, by how much and at what confidence. The global
 * settings never change.
 */
#define _GNU_SOURCE		/* pipe2 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <getopt.h>
#include <poll.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cgstats.h"
#include "compare-report.h"
#include "overrides.h"
#include "thpnumactl.h"

#define MAX_POLICIES	8
#define MAX_ROUNDS	1000
#define DEFAULT_POLICIES "kernel,strict-local,local-then-remote"
/* A run's output kept to show when it fails. */
#define TAIL_BYTES	2048
/* How long a run's leftover processes get to die. */
#define REAP_SECONDS	10

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

/* Only to wake ppoll() when the command exits. */
static void on_child(int sig)
{
}

/*
 * SIGINT, SIGTERM and SIGHUP end the comparison, cleaned up; an ignored
 * SIGHUP (nohup) stays ignored. SIGPIPE is ignored: a closed output ends
 * a write, not thpnumactl before its cleanup. SIGCHLD wakes the wait.
 */
static void catch_signals(bool on)
{
	struct sigaction sa = { .sa_handler = on ? on_signal : SIG_DFL };
	struct sigaction chld = { .sa_handler = on ? on_child : SIG_DFL,
				  .sa_flags = SA_NOCLDSTOP };
	struct sigaction old;

	sigemptyset(&sa.sa_mask);
	sigemptyset(&chld.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, on ? SIG_IGN : SIG_DFL);
	sigaction(SIGCHLD, &chld, NULL);
}

struct compare_options {
	const char *policies, *metric, *svg;
	unsigned int rounds;
	bool json, verbose, higher_better;
	double confidence, threshold;
};

/* The transient cgroups: a parent under ours, a child per run. */
struct cgroups {
	char dir[PATH_MAX];		/* the parent's directory */
	char path[PATH_MAX];		/* ... as the module names it */
	bool made;
};

static int parse_percent(const struct command *cmd, const char *opt,
			 const char *arg, double min, double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v >= min && v <= max))
		return usage_error(cmd, "%s: '%s' is not a percentage from %g to %g",
				   opt, arg, min, max);
	*out = v / 100;
	return -1;
}

/* "POLICY[:ZONE_RECLAIM]" */
static int parse_arm(const struct command *cmd, const char *spec,
		     struct compare_arm *a)
{
	char name[sizeof(a->spec)], *colon;
	unsigned int bits;
	int ret;

	if (strlen(spec) >= sizeof(a->spec) || !*spec)
		return usage_error(cmd, "--policies: '%s' is not POLICY or POLICY:ZONE_RECLAIM",
				   spec);
	snprintf(a->spec, sizeof(a->spec), "%s", spec);
	snprintf(name, sizeof(name), "%s", spec);
	a->zone_reclaim = -1;
	colon = strchr(name, ':');
	if (colon) {
		*colon = '\0';
		if (parse_zone_reclaim(colon + 1, &bits))
			return usage_error(cmd, "--policies: '%s': zone_reclaim '%s' is not 0-7 or none",
					   spec, colon + 1);
		a->zone_reclaim = (int)bits;
	}
	ret = check_policy(cmd, name);
	if (ret >= 0)
		return ret;
	a->policy = thpnuma_policy_names[lookup_name(name,
			thpnuma_policy_names, THPNUMA_NR_POLICIES)];
	return -1;
}

static int parse_arms(const struct command *cmd, const char *list,
		      struct compare_report *r)
{
	char *copy = strdup(list), *word, *save = NULL;
	unsigned int i;
	int ret = -1;

	if (!copy)
		return EXIT_FAIL;
	r->arms = calloc(MAX_POLICIES, sizeof(*r->arms));
	if (!r->arms) {
		free(copy);
		return EXIT_FAIL;
	}
	for (word = strtok_r(copy, ",", &save); word && ret < 0;
	     word = strtok_r(NULL, ",", &save)) {
		if (r->nr_arms == MAX_POLICIES) {
			ret = usage_error(cmd, "--policies: at most %d policies",
					  MAX_POLICIES);
			break;
		}
		ret = parse_arm(cmd, word, &r->arms[r->nr_arms]);
		for (i = 0; ret < 0 && i < r->nr_arms; i++)
			if (!strcmp(r->arms[i].spec, word))
				ret = usage_error(cmd, "--policies: '%s' is named twice",
						  word);
		r->nr_arms++;
	}
	free(copy);
	if (ret < 0 && r->nr_arms < 2)
		ret = usage_error(cmd, "--policies: name at least two policies to compare");
	if (ret >= 0)
		return ret;
	r->base = 0;
	for (i = 0; i < r->nr_arms; i++)
		if (!strcmp(r->arms[i].spec, "kernel"))
			r->base = i;
	return -1;
}

static int parse_options(const struct command *cmd, int argc, char *argv[],
			 struct compare_options *o)
{
	enum { OPT_JSON = 256, OPT_SVG, OPT_BETTER, OPT_CONFIDENCE,
	       OPT_THRESHOLD };
	static const struct option longopts[] = {
		{ "policies",	required_argument, NULL, 'p' },
		{ "rounds",	required_argument, NULL, 'r' },
		{ "metric",	required_argument, NULL, 'm' },
		{ "better",	required_argument, NULL, OPT_BETTER },
		{ "confidence",	required_argument, NULL, OPT_CONFIDENCE },
		{ "threshold",	required_argument, NULL, OPT_THRESHOLD },
		{ "json",	no_argument,	   NULL, OPT_JSON },
		{ "svg",	required_argument, NULL, OPT_SVG },
		{ "verbose",	no_argument,	   NULL, 'v' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ }
	};
	uint64_t rounds;
	int c, ret;

	*o = (struct compare_options){
		.policies = DEFAULT_POLICIES, .rounds = 5,
		.confidence = 0.95, .threshold = 0.01,
	};
	opterr = 0;
	optind = 1;
	/* '+': the command's own options are not ours. */
	while ((c = getopt_long(argc, argv, "+:p:r:m:vh", longopts,
				NULL)) != -1) {
		ret = -1;
		switch (c) {
		case 'p':
			o->policies = optarg;
			break;
		case 'r':
			if (parse_decimal(optarg, MAX_ROUNDS, &rounds) ||
			    !rounds)
				return usage_error(cmd, "--rounds: '%s' is not a number from 1 to %d",
						   optarg, MAX_ROUNDS);
			o->rounds = (unsigned int)rounds;
			break;
		case 'm':
			o->metric = optarg;
			break;
		case OPT_BETTER:
			if (strcmp(optarg, "lower") && strcmp(optarg, "higher"))
				return usage_error(cmd, "--better: '%s' is not lower or higher",
						   optarg);
			o->higher_better = !strcmp(optarg, "higher");
			break;
		case OPT_CONFIDENCE:
			ret = parse_percent(cmd, "--confidence", optarg, 50,
					    99.9, &o->confidence);
			break;
		case OPT_THRESHOLD:
			ret = parse_percent(cmd, "--threshold", optarg, 0, 100,
					    &o->threshold);
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_SVG:
			o->svg = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
		if (ret >= 0)
			return ret;
	}
	if (optind == argc)
		return usage_error(cmd, "missing command to run (after --)");
	if (o->higher_better && !o->metric)
		return usage_error(cmd, "--better needs --metric: wall time is lower-is-better");
	return -1;
}

/*
 * What would win over every run's cgroup setting, so that each policy
 * measured the same: an override of this process (the runs inherit it)
 * or a mempolicy of its own. 0, or an exit status after saying which.
 */
static int check_nothing_wins(void)
{
	const struct task_entry *t;
	struct task_list tl;
	int ret, mode = 0;

	ret = read_overrides(&tl);
	if (ret)
		return ret;
	t = tasks_find(&tl, (int)getpid());
	if (t)
		error("this process has a per-process override (%s), which every run would inherit and which wins over the runs' cgroup settings; run compare outside 'thpnumactl run' or clear it with 'thpnumactl task %d default'",
		      t->policy, t->pid);
	tasks_free(&tl);
	if (t)
		return EXIT_FAIL;
	/* The module leaves a fault with a mempolicy to the kernel. */
	if (!syscall(SYS_get_mempolicy, &mode, NULL, 0UL, NULL, 0UL) && mode) {
		error("this process has a NUMA memory policy (mode %d, as numactl sets), which every run would inherit and under which the module leaves THP faults to the kernel; run compare without numactl",
		      mode);
		return EXIT_FAIL;
	}
	return 0;
}

/* ---- the transient cgroups ------------------------------------------ */

/* Whether @pid's cgroup is @cgroup or below it (/proc/PID/cgroup). */
static bool pid_in_cgroup(int pid, const char *cgroup)
{
	char file[64], *text, *line, *save = NULL;
	size_t n = strlen(cgroup);
	bool in = false;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid);
	text = read_text(file);
	if (!text)
		return false;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "0::", 3) && !strncmp(line + 3, cgroup, n) &&
		    (!line[3 + n] || line[3 + n] == '/'))
			in = true;
	free(text);
	return in;
}

/*
 * Send @sig to every process in @dir and the cgroups below it (module
 * path @cgroup). Each is pinned by a pidfd and checked to be still in the
 * cgroup before the signal: a PID reused meanwhile is never hit. Returns
 * how many processes were found.
 */
static unsigned int signal_cgroup(const char *dir, const char *cgroup,
				  int sig)
{
	char file[PATH_MAX + 32], *text, *line, *save = NULL;
	unsigned int found = 0;
	struct dirent *d;
	DIR *sub;
	int pid, fd;

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	text = read_text(file);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		pid = atoi(line);
		if (pid <= 0)
			continue;
		found++;
		fd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (fd < 0)
			continue;
		if (pid_in_cgroup(pid, cgroup))
			syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
		close(fd);
	}
	free(text);
	sub = opendir(dir);
	while (sub && (d = readdir(sub))) {
		char child_dir[PATH_MAX + 32], child[PATH_MAX + 32];

		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(child_dir, sizeof(child_dir), "%s/%s", dir, d->d_name);
		snprintf(child, sizeof(child), "%s/%s", cgroup, d->d_name);
		found += signal_cgroup(child_dir, child, sig);
	}
	if (sub)
		closedir(sub);
	return found;
}

/* Until @dir and the cgroups below it hold no process, at most @ms. */
static bool wait_empty(const char *dir, unsigned int ms)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char file[PATH_MAX + 32], line[64];
	unsigned int i;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cgroup.events", dir);
	for (i = 0; i <= ms / 20; i++) {
		f = fopen(file, "re");
		if (!f)
			return true;
		while (fgets(line, sizeof(line), f))
			if (!strcmp(line, "populated 0\n")) {
				fclose(f);
				return true;
			}
		fclose(f);
		nanosleep(&pause, NULL);
	}
	return false;
}

/*
 * End what is left in the run's cgroup @dir (@cgroup as the module names
 * it): SIGTERM, a second to exit, then SIGKILL.
 */
static void empty_cgroup(const char *dir, const char *cgroup)
{
	if (!signal_cgroup(dir, cgroup, SIGTERM) || wait_empty(dir, 1000))
		return;
	signal_cgroup(dir, cgroup, SIGKILL);
	if (!wait_empty(dir, REAP_SECONDS * 1000))
		error("processes are left in cgroup %s after SIGKILL", dir);
}

/* Remove @dir, whose last processes may still be exiting. */
static void remove_cgroup(const char *dir)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	unsigned int i;

	for (i = 0; i < REAP_SECONDS * 50; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return;
		if (errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	error("cannot remove cgroup %s: %s; remove it with rmdir", dir,
	      strerror(errno));
}

static int make_parent(const struct command *cmd, struct cgroups *cg)
{
	char own[PATH_MAX];
	int ret;

	ret = own_cgroup_dir(own, sizeof(own));
	if (ret)
		return ret;
	if ((size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/thpnuma-compare.%d",
			     own, (int)getpid()) >= sizeof(cg->dir)) {
		error("cgroup path too long under %s", own);
		return EXIT_FAIL;
	}
	if (mkdir(cg->dir, 0755)) {
		error("cannot create cgroup %s: %s (compare runs the command in cgroups of its own below this process's)",
		      cg->dir, strerror(errno));
		return EXIT_FAIL;
	}
	cg->made = true;
	ret = resolve_cgroup(cmd, cg->dir, cg->path, sizeof(cg->path), false);
	return ret ? ret : 0;
}

/* ---- one run ---------------------------------------------------------- */

static void read_vmstat(uint64_t *sys)
{
#define COMPARE_SYSTEM_PREFIX(id, prefix, name)	prefix,
	static const char *const prefix[] = {
		COMPARE_SYSTEM_COUNTERS(COMPARE_SYSTEM_PREFIX)
	};
	char *text = read_text("/proc/vmstat"), *line, *save = NULL, *sp;
	unsigned int c;

	memset(sys, 0, COMPARE_NR_SYSTEM * sizeof(*sys));
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		/* allocstall_normal, pgscan_direct: not pgscan_direct_throttle */
		for (c = 0; c < COMPARE_NR_SYSTEM; c++)
			if (!strncmp(line, prefix[c], strlen(prefix[c])) &&
			    !strstr(line, "throttle"))
				sys[c] += strtoull(sp + 1, NULL, 10);
	}
	free(text);
}

/*
 * The first number in [@s, @end): digits, a point, an exponent; a sign
 * only where it starts a word ("run-3" holds 3, not -3). Finite only.
 */
static bool number_in(const char *s, const char *end, double *v)
{
	char text[64], *stop;
	const char *p, *q;
	size_t len;

	for (p = s; p < end; p++) {
		q = p;
		if ((*q == '-' || *q == '+') &&
		    (q == s || !isalnum((unsigned char)q[-1])))
			q++;
		if (q < end && *q == '.')
			q++;
		if (q >= end || !isdigit((unsigned char)*q))
			continue;
		len = (size_t)(end - p) < sizeof(text) - 1 ? (size_t)(end - p) :
							     sizeof(text) - 1;
		memcpy(text, p, len);
		text[len] = '\0';
		*v = strtod(text, &stop);
		if (stop > text && isfinite(*v))
			return true;
	}
	return false;
}

/* The figure in one line of output: the regex's first group, or its match. */
static bool metric_in_line(const regex_t *re, const char *line, double *v)
{
	regmatch_t m[2];

	if (regexec(re, line, 2, m, 0))
		return false;
	if (m[1].rm_so >= 0)
		return number_in(line + m[1].rm_so, line + m[1].rm_eo, v);
	return number_in(line + m[0].rm_so, line + m[0].rm_eo, v);
}

struct output {
	const regex_t *re;
	bool verbose, have_value;
	double value;
	char line[4096];
	size_t len;
	char tail[TAIL_BYTES];
	size_t tail_len;
};

static void output_line(struct output *o)
{
	double v;

	/* A CRLF line ends before its CR, for a '$' in the regex. */
	if (o->len && o->line[o->len - 1] == '\r')
		o->len--;
	o->line[o->len] = '\0';
	if (o->re && metric_in_line(o->re, o->line, &v)) {
		o->value = v;
		o->have_value = true;
	}
	o->len = 0;
}

static void output_bytes(struct output *o, const char *buf, size_t n)
{
	size_t i, keep;

	if (o->verbose)
		fwrite(buf, 1, n, stderr);
	keep = n < TAIL_BYTES ? n : TAIL_BYTES;
	if (o->tail_len + keep > TAIL_BYTES) {
		size_t drop = o->tail_len + keep - TAIL_BYTES;

		memmove(o->tail, o->tail + drop, o->tail_len - drop);
		o->tail_len -= drop;
	}
	memcpy(o->tail + o->tail_len, buf + n - keep, keep);
	o->tail_len += keep;
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n')
			output_line(o);
		else if (o->len < sizeof(o->line) - 1)
			o->line[o->len++] = buf[i];
	}
}

/*
 * Until the command @pid exits, copy its output from @fd into @out; on
 * an interrupt, end the run's cgroup. Waiting on the exit, not on the
 * end of the output: a process it left running may hold the pipe open.
 * SIGCHLD, blocked but for ppoll(), wakes the wait. Its wait status.
 */
static int wait_command(pid_t pid, int fd, const char *dir, const char *cgroup,
			struct output *out)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	sigset_t chld, unblocked;
	bool eof = false, ended = false;
	char buf[4096];
	int status;
	ssize_t n;
	pid_t w;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &unblocked);
	sigdelset(&unblocked, SIGCHLD);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			status = W_EXITCODE(126, 0);
			break;
		}
		if (interrupted && !ended) {
			empty_cgroup(dir, cgroup);
			ended = true;
			continue;
		}
		/* After the end of output, ppoll() sleeps until a signal. */
		if (ppoll(&pfd, eof ? 0 : 1, NULL, &unblocked) > 0) {
			n = read(fd, buf, sizeof(buf));
			if (n > 0)
				output_bytes(out, buf, (size_t)n);
			else if (!n)
				eof = true;
		}
	}
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	return status;
}

/* What is in the pipe now, without waiting for more. */
static void drain_output(int fd, struct output *out)
{
	char buf[4096];
	ssize_t n;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		output_bytes(out, buf, (size_t)n);
	if (out->len)
		output_line(out);
}

/*
 * The child: join the run's cgroup, then exec. What fails before exec
 * goes to the parent through @err_fd as an errno and a stage.
 */
static void __attribute__((noreturn))
run_child(const char *dir, char *const argv[], int out_fd, int err_fd)
{
	char procs[PATH_MAX + 32];
	int report[2];

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(out_fd, STDOUT_FILENO) < 0) {
		report[0] = errno;
		report[1] = 0;
		goto fail;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	report[0] = -write_value(procs, "0");
	report[1] = 1;
	if (report[0])
		goto fail;
	execvp(argv[0], argv);
	report[0] = errno;
	report[1] = 2;
fail:
	if (write(err_fd, report, sizeof(report)) < 0)
		_exit(126);
	_exit(report[1] == 2 && report[0] == ENOENT ? 127 : 126);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The run's setting's counters, from cgroup_stats and cgroup_hist. */
static int read_run_stats(const char *path, struct compare_run *run)
{
	struct cgroup_stats cs;
	unsigned int i, o;
	int ret;

	ret = read_cgroup_stats(&cs);
	if (ret)
		return ret;
	for (i = 0; i < cs.nr; i++) {
		const struct cgroup_stats_row *row = &cs.rows[i];

		if (strcmp(row->path, path))
			continue;
		memcpy(run->counter, row->counter, sizeof(run->counter));
		for (o = 0; o < THPNUMA_NR_HIST_OUTCOMES; o++)
			hist_counts_add(&run->alloc, &row->hist[o]);
	}
	cgroup_stats_free(&cs);
	return 0;
}

/*
 * Run @argv once under @a in cgroup run-SEQ. Returns 0 (the run's
 * outcome is in @run), or an exit status: the command cannot be run at
 * all, or the cgroup or its setting could not be made.
 */
static int run_once(const struct compare_report *r, const struct cgroups *cg,
		    const struct compare_arm *a, const regex_t *re,
		    bool verbose, struct compare_run *run)
{
	char dir[PATH_MAX + 16], path[PATH_MAX + 16];
	uint64_t before[COMPARE_NR_SYSTEM];
	struct output out = { .re = re, .verbose = verbose };
	int out_pipe[2], err_pipe[2], report[2] = { 0, 0 }, status, ret, c;
	double start;
	ssize_t n;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/run-%u", cg->dir, run->seq);
	snprintf(path, sizeof(path), "%s/run-%u", cg->path, run->seq);
	if (mkdir(dir, 0755)) {
		error("cannot create cgroup %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	ret = write_cgroup_setting(path, a->policy, a->zone_reclaim, -1, false);
	if (ret) {
		remove_cgroup(dir);
		return ret;
	}
	if (pipe2(out_pipe, O_CLOEXEC)) {
		error("pipe: %s", strerror(errno));
		ret = EXIT_FAIL;
		goto out;
	}
	if (pipe2(err_pipe, O_CLOEXEC)) {
		error("pipe: %s", strerror(errno));
		close(out_pipe[0]);
		close(out_pipe[1]);
		ret = EXIT_FAIL;
		goto out;
	}
	fflush(NULL);
	read_vmstat(before);
	start = now_s();
	pid = fork();
	if (pid < 0) {
		error("fork: %s", strerror(errno));
		close(out_pipe[0]);
		close(out_pipe[1]);
		close(err_pipe[0]);
		close(err_pipe[1]);
		ret = EXIT_FAIL;
		goto out;
	}
	if (!pid)
		run_child(dir, r->argv, out_pipe[1], err_pipe[1]);
	close(out_pipe[1]);
	close(err_pipe[1]);
	status = wait_command(pid, out_pipe[0], dir, path, &out);
	run->wall_s = now_s() - start;
	/* What it wrote before it exited; a leftover's later output is not read. */
	drain_output(out_pipe[0], &out);
	close(out_pipe[0]);
	read_vmstat(run->system);
	for (c = 0; c < COMPARE_NR_SYSTEM; c++)
		run->system[c] = run->system[c] >= before[c] ?
				 run->system[c] - before[c] : 0;
	n = read(err_pipe[0], report, sizeof(report));
	close(err_pipe[0]);
	/* A command that left something running: it ends with the run. */
	empty_cgroup(dir, path);
	ret = read_run_stats(path, run);
	if (ret)
		goto out;
	if (n == sizeof(report)) {
		if (report[1] == 2)
			error("cannot run '%s': %s", r->argv[0],
			      strerror(report[0]));
		else
			error("cannot move the command into cgroup %s: %s",
			      dir, strerror(report[0]));
		ret = report[1] == 2 && report[0] == ENOENT ? 127 : 126;
		goto out;
	}
	run->status = WIFEXITED(status) ? WEXITSTATUS(status) :
		      128 + WTERMSIG(status);
	run->ok = !run->status;
	if (run->ok && r->metric && !out.have_value) {
		run->ok = false;
		run->why = "no line of its output matched --metric";
	}
	run->value = r->metric ? out.value : run->wall_s;
	if (!run->ok && !interrupted && out.tail_len) {
		notice("run %u (%s) failed; the end of its output:", run->seq,
		       a->spec);
		fwrite(out.tail, 1, out.tail_len, stderr);
		if (out.tail[out.tail_len - 1] != '\n')
			fputc('\n', stderr);
	}
out:
	write_cgroup_setting(path, "default", -1, -1, true);
	remove_cgroup(dir);
	return ret;
}

static void cleanup(struct cgroups *cg)
{
	if (cg->made)
		remove_cgroup(cg->dir);
	cg->made = false;
}

static int write_svg(const char *file, const struct compare_report *r)
{
	FILE *f = fopen(file, "we");

	if (!f) {
		error("cannot write %s: %s", file, strerror(errno));
		return EXIT_FAIL;
	}
	compare_write_svg(f, r);
	if (fclose(f)) {
		error("cannot write %s: %s", file, strerror(errno));
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int do_compare(const struct command *cmd, int argc, char *argv[])
{
	struct compare_report r = { 0 };
	struct compare_options o;
	struct cgroups cg = { 0 };
	unsigned int round, k, failed = 0;
	regex_t re;
	char msg[256];
	int ret, rc;

	ret = parse_options(cmd, argc, argv, &o);
	if (ret >= 0)
		return ret;
	ret = parse_arms(cmd, o.policies, &r);
	if (ret >= 0)
		goto free_arms;
	if (o.metric) {
		rc = regcomp(&re, o.metric, REG_EXTENDED);
		if (rc) {
			regerror(rc, &re, msg, sizeof(msg));
			ret = usage_error(cmd, "--metric: '%s': %s", o.metric, msg);
			goto free_arms;
		}
	}
	r.argv = &argv[optind];
	r.metric = o.metric;
	r.higher_better = o.higher_better;
	r.confidence = o.confidence;
	r.threshold = o.threshold;
	r.rounds = o.rounds;
	r.runs = calloc((size_t)o.rounds * r.nr_arms, sizeof(*r.runs));
	if (!r.runs) {
		ret = EXIT_FAIL;
		goto free_regex;
	}
	if (geteuid()) {
		ret = needs_root("compare");
		goto free_runs;
	}
	ret = ensure_module();
	if (!ret)
		ret = check_nothing_wins();
	if (ret)
		goto free_runs;
	catch_signals(true);
	ret = make_parent(cmd, &cg);
	if (ret)
		goto out;

	/* Interleaved, the order rotating: drift hits every policy alike. */
	for (round = 0; round < o.rounds && !interrupted; round++) {
		for (k = 0; k < r.nr_arms && !interrupted; k++) {
			struct compare_run *run = &r.runs[r.nr_runs];

			run->arm = (round + k) % r.nr_arms;
			run->round = round;
			run->seq = r.nr_runs + 1;
			if (!o.json)
				fprintf(stderr, PROG " compare: run %u of %u: %s, round %u\n",
					run->seq, o.rounds * r.nr_arms,
					r.arms[run->arm].spec, round + 1);
			ret = run_once(&r, &cg, &r.arms[run->arm],
				       o.metric ? &re : NULL, o.verbose, run);
			if (ret)
				goto out;
			if (interrupted)
				break;
			r.nr_runs++;
			failed += !run->ok;
		}
	}
	if (interrupted) {
		ret = 128 + interrupted;
		error("interrupted after %u of %u runs; the cgroups and their settings are removed",
		      r.nr_runs, o.rounds * r.nr_arms);
		goto out;
	}
	/* Nothing of the comparison is left before the report is written. */
	cleanup(&cg);
	compare_analyze(&r);
	if (o.json)
		compare_write_json(stdout, &r);
	else
		compare_write_text(stdout, &r);
	ret = o.svg ? write_svg(o.svg, &r) : EXIT_OK;
	if (failed) {
		error("%u of %u runs failed (listed %s): their figures are left out",
		      failed, r.nr_runs, o.json ? "in \"runs\"" : "above");
		ret = EXIT_FAIL;
	}
out:
	cleanup(&cg);
	catch_signals(false);
free_runs:
	free(r.runs);
	free(r.pair);
free_regex:
	if (o.metric)
		regfree(&re);
free_arms:
	free(r.arms);
	return ret;
}

const struct command cmd_compare = {
	.name = "compare", .run = do_compare,
	.summary = "run a command under each policy and say which is faster",
	.usage =
	"compare [--policies LIST] [--rounds N] [--metric REGEX [--better higher]]\n"
	"        [--confidence PCT] [--threshold PCT] [--json] [--svg FILE]\n"
	"        [--verbose] -- COMMAND [ARGS...]\n"
	"Run COMMAND once per policy per round, interleaved, the order rotating\n"
	"each round. Each run is in a transient cgroup of its own, below this\n"
	"process's, with a per-cgroup policy: the global settings never change.\n"
	"Then, per policy: the median and spread of the figure, its ratio to\n"
	"kernel's (or the first policy's) with a bootstrap confidence interval\n"
	"and a Mann-Whitney rank test, the run's own THP placements and\n"
	"allocation times (the per-cgroup counters), and the system's swap-outs\n"
	"and direct-reclaim stalls; and a verdict, which says when there is no\n"
	"difference at that confidence. COMMAND's standard output is read for\n"
	"--metric and shown only with --verbose (or when a run fails). Needs\n"
	"root and cgroup v2. Exit status: 0; 1 when a run failed (its figure\n"
	"is left out) or on an error; 2 on a usage error; 126 or 127 when\n"
	"COMMAND cannot be run; 128 + the signal when interrupted (the cgroups\n"
	"and their settings are removed).\n\n"
	"  -p, --policies LIST   comma-separated POLICY[:ZONE_RECLAIM] (default\n"
	"                        " DEFAULT_POLICIES ")\n"
	"  -r, --rounds N        runs per policy, 1-1000 (default 5; a verdict\n"
	"                        at 95% needs 4 or more)\n"
	"  -m, --metric REGEX    the figure: the last line of COMMAND's output\n"
	"                        that matches the extended REGEX, its first group\n"
	"                        or else its first number (default: wall time)\n"
	"      --better DIR      lower (default) or higher: the figure's direction\n"
	"      --confidence PCT  50-99.9 (default 95)\n"
	"      --threshold PCT   a significant difference smaller than this is\n"
	"                        reported as below the threshold (default 1)\n"
	"      --json            one JSON object: every run, policy and pair\n"
	"      --svg FILE        each run's figure per policy as an SVG chart\n"
	"  -v, --verbose         copy COMMAND's output to standard error\n"
	"  -h, --help            show this help\n\n"
	"Examples:\n"
	"  thpnumactl compare -- ./my-benchmark --quick\n"
	"  thpnumactl compare -p kernel,local-then-remote:5 -r 7 -- make -j8\n"
	"  thpnumactl compare -m 'ops/s: ([0-9.]+)' --better higher --json -- ./db-bench\n",
};
