// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl run, tasks, task and policies: per-process overrides, set
 * through the module's tasks file, and the per-policy totals.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "overrides.h"
#include "thpnumactl.h"

/* A PID as the tasks file takes it: decimal, 1 to THPNUMA_PID_MAX. */
static int parse_pid(const char *text, int *pid)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || !isdigit((unsigned char)text[0]) ||
	    v == 0 || v > THPNUMA_PID_MAX)
		return -EINVAL;
	*pid = (int)v;
	return 0;
}

/*
 * Write "PID POLICY [BITS|- [US]]" or "PID default" to
 * /sys/kernel/thpnuma/tasks, which kernel lockdown leaves usable. A
 * setting < 0: the override follows the global one.
 */
static int write_override(int pid, const char *policy, int zone_reclaim,
			  int budget_us)
{
	char tasks[PATH_MAX], words[THPNUMA_MAX_TASK_WRITE];
	char line[THPNUMA_MAX_TASK_WRITE + 16];
	int ret;

	format_override_words(words, sizeof(words), policy, zone_reclaim,
			      budget_us);
	snprintf(line, sizeof(line), "%d %s", pid, words);
	sysfs_path(tasks, sizeof(tasks), CONTROL_DIR "/tasks");
	ret = write_value(tasks, line);
	switch (-ret) {
	case 0:
		return EXIT_OK;
	case ESRCH:
		error("no process with PID %d", pid);
		return EXIT_FAIL;
	case ENOSPC:
		return table_full("override", "max_tasks", "task PID default");
	case EINVAL:
		error("the module refused '%s' (is PID %d a kernel thread?)",
		      line, pid);
		return EXIT_FAIL;
	default:
		return sysfs_failure("write", tasks, -ret);
	}
}

/* With debugfs disabled: /sys/kernel/thpnuma/tasks, in the same format. */
static int read_sysfs_tasks(struct task_list *tl)
{
	char reason[256], *text;
	int ret;

	ret = read_counters("tasks", &text);
	if (ret)
		return ret;
	ret = tasks_parse(text, tl, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("tasks", reason) : 0;
}

/*
 * The overrides, parsed, from the read-only twin of the tasks file, which
 * lockdown leaves readable; from sysfs when the kernel has debugfs
 * disabled.
 */
int read_overrides(struct task_list *tl)
{
	char reason[256], *text;
	int ret;

	ret = reach_debugfs(reason, sizeof(reason));
	if (ret == DEBUGFS_DISABLED)
		return read_sysfs_tasks(tl);
	if (ret)
		return ret;
	ret = read_debugfs("overrides", &text);
	if (ret)
		return ret;
	ret = tasks_parse(text, tl, reason, sizeof(reason));
	free(text);
	return ret ? debugfs_parse_failure("overrides", reason) : 0;
}

/* The same for the policies file. */
int read_policies(struct policy_table *pt)
{
	char reason[256], *text;
	int ret;

	ret = read_counters("policies", &text);
	if (ret)
		return ret;
	ret = policies_parse(text, pt, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("policies", reason) : 0;
}

static int do_tasks(const struct command *cmd, int argc, char *argv[])
{
	struct task_list tl;
	bool json;
	int ret;

	ret = parse_simple_options(cmd, argc, argv, 0, &json);
	if (ret >= 0)
		return ret;
	ret = read_overrides(&tl);
	if (ret)
		return ret;
	if (json)
		tasks_write_json(stdout, &tl);
	else
		tasks_write_table(stdout, &tl);
	tasks_free(&tl);
	return EXIT_OK;
}

static int do_policies(const struct command *cmd, int argc, char *argv[])
{
	struct policy_table pt;
	bool json;
	int ret;

	ret = parse_simple_options(cmd, argc, argv, 0, &json);
	if (ret >= 0)
		return ret;
	ret = read_policies(&pt);
	if (ret)
		return ret;
	if (json)
		policies_write_json(stdout, &pt);
	else
		policies_write_table(stdout, &pt);
	policies_free(&pt);
	return EXIT_OK;
}

static int do_task(const struct command *cmd, int argc, char *argv[])
{
	struct override_options o;
	const struct task_entry *t;
	struct task_list tl;
	char path[PATH_MAX];
	int pid, ret;

	ret = parse_override_options(cmd, argc, argv, ":z:b:h", &o);
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return usage_error(cmd, "missing PID");
	if (parse_pid(argv[optind], &pid))
		return usage_error(cmd, "invalid PID '%s'", argv[optind]);
	if (argc - optind > 2)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind + 2]);
	o.policy = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (o.policy && strcmp(o.policy, "default")) {
		ret = check_policy(cmd, o.policy);
		if (ret >= 0)
			return ret;
	}
	ret = check_override_policy(cmd, &o);
	if (ret >= 0)
		return ret;
	ret = ensure_module();
	if (ret)
		return ret;

	if (o.policy) {
		ret = write_override(pid, o.policy, o.zone_reclaim,
				     o.budget_us);
		if (!ret) {
			printf("%d %s\n", pid, o.policy);
			note_override_settings(o.policy, o.zone_reclaim,
					       o.budget_us, "override");
		}
		return ret;
	}
	ret = read_overrides(&tl);
	if (ret)
		return ret;
	t = tasks_find(&tl, pid);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (t) {
		struct task_list one = { 1, (struct task_entry *)t };

		tasks_write_table(stdout, &one);
	} else if (access(path, F_OK)) {
		error("no process with PID %d", pid);
		ret = EXIT_FAIL;
	} else {
		printf("%d default\n", pid);
	}
	tasks_free(&tl);
	return ret;
}

/* USER as a name, or a number that names an account. */
static struct passwd *lookup_user(const char *user)
{
	struct passwd *pw = getpwnam(user);
	unsigned long uid;
	char *end;

	if (pw || !isdigit((unsigned char)user[0]))
		return pw;
	errno = 0;
	uid = strtoul(user, &end, 10);
	if (errno || *end || uid > (uid_t)-2)
		return NULL;
	return getpwuid((uid_t)uid);
}

/* initgroups, setgid, setuid: in that order, each one checked. */
static int drop_to_user(const struct passwd *pw)
{
	const char *step;

	if (initgroups(pw->pw_name, pw->pw_gid))
		step = "initgroups";
	else if (setgid(pw->pw_gid))
		step = "setgid";
	else if (setuid(pw->pw_uid))
		step = "setuid";
	else
		return 0;
	error("cannot switch to user %s (uid %u, gid %u): %s failed: %s",
	      pw->pw_name, (unsigned int)pw->pw_uid,
	      (unsigned int)pw->pw_gid, step, strerror(errno));
	return EXIT_FAIL;
}

static int do_run(const struct command *cmd, int argc, char *argv[])
{
	struct override_options o;
	struct passwd *pw = NULL;
	int ret;

	/* '+': the command's own options are not ours. */
	ret = parse_override_options(cmd, argc, argv, "+:p:z:b:u:h", &o);
	if (ret >= 0)
		return ret;
	if (!o.policy)
		return usage_error(cmd, "--policy is required");
	if (o.user) {
		errno = 0;
		pw = lookup_user(o.user);
		if (!pw && errno && errno != ENOENT && errno != ESRCH) {
			error("cannot look up user '%s': %s", o.user,
			      strerror(errno));
			return EXIT_FAIL;
		}
		if (!pw)
			return usage_error(cmd, "unknown user '%s'", o.user);
	}
	if (optind == argc)
		return usage_error(cmd, "missing command to run");
	ret = ensure_module();
	if (ret)
		return ret;
	/* The override is on this process: exec keeps it, children inherit. */
	ret = write_override(getpid(), o.policy, o.zone_reclaim, o.budget_us);
	if (ret)
		return ret;
	note_override_settings(o.policy, o.zone_reclaim, o.budget_us,
			       "override");
	/* Still this PID after the switch: the override stays with it. */
	if (pw) {
		ret = drop_to_user(pw);
		if (ret)
			return ret;
	}
	execvp(argv[optind], &argv[optind]);
	error("cannot run '%s': %s", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

const struct command cmd_run = {
	.name = "run", .run = do_run,
	.summary = "run a command under its own policy",
	.usage =
	"run --policy P [--zone-reclaim N] [--budget-us US]\n"
	"    [--user USER] [--] COMMAND [ARGS...]\n"
	"Set a per-process override on this process, then exec COMMAND: the\n"
	"command and the children it forks from then on fault THPs under P,\n"
	"whatever the global policy. Needs root; with --user, COMMAND runs as\n"
	"USER (its groups, then its gid, then its uid) and keeps the override.\n"
	"The environment is passed on unchanged.\n\n"
	"  -p, --policy P        " THPNUMA_POLICY_CHOICES "\n"
	"  -z, --zone-reclaim N  0-7, none, or reclaim,write,swap (default:\n"
	"                        follow the global zone_reclaim)\n"
	"  -b, --budget-us US    1-1000000 microseconds, for policy budget\n"
	"                        (default: follow the global budget_us)\n"
	"  -u, --user USER       run COMMAND as USER (a name or a uid)\n"
	"  -h, --help            show this help\n\n"
	"Examples:\n"
	"  thpnumactl run --policy strict-local -- ./numa-local-db\n"
	"  thpnumactl run -p local-then-remote -z 1 -- make -j8\n"
	"  thpnumactl run -p budget -b 250 -- ./batch-job\n"
	"  thpnumactl run -p strict-local -u postgres -- /usr/lib/postgresql/15/bin/postgres\n",
};

const struct command cmd_tasks = {
	.name = "tasks", .run = do_tasks,
	.summary = "list the per-process overrides",
	.usage =
	"tasks [--json]\n"
	"One row per process with an override: PID, command, policy,\n"
	"zone_reclaim and budget_us (\"global\" when it follows the global\n"
	"setting).\n\n"
	"      --json   one JSON object\n"
	"  -h, --help   show this help\n\n"
	"Examples:\n"
	"  thpnumactl tasks\n"
	"  thpnumactl tasks --json\n",
};

const struct command cmd_task = {
	.name = "task", .run = do_task,
	.summary = "show, set or clear one process's override",
	.usage =
	"task [--zone-reclaim N] [--budget-us US] PID [POLICY|default]\n"
	"Without POLICY, show PID's override. With POLICY, set it for PID's\n"
	"whole process; \"default\" removes it. Children forked afterwards\n"
	"inherit it; the override ends with the process. Needs root.\n\n"
	"  -z, --zone-reclaim N  0-7, none, or reclaim,write,swap\n"
	"  -b, --budget-us US    1-1000000 microseconds, for policy budget\n"
	"  -h, --help            show this help\n\n"
	"Without -z or -b, the override follows the global setting.\n\n"
	"Examples:\n"
	"  thpnumactl task 4242\n"
	"  thpnumactl task 4242 strict-local\n"
	"  thpnumactl task -z reclaim 4242 local-then-remote\n"
	"  thpnumactl task -b 500 4242 budget\n"
	"  thpnumactl task 4242 default\n",
};

const struct command cmd_policies = {
	.name = "policies", .run = do_policies,
	.summary = "per-policy totals, overrides included",
	.usage =
	"policies [--json]\n"
	"For each policy: processes with an override to it, THP faults it\n"
	"placed locally, remotely or let fall back, faults it passed through,\n"
	"and how many of those an override decided.\n\n"
	"      --json   one JSON object\n"
	"  -h, --help   show this help\n\n"
	"Examples:\n"
	"  thpnumactl policies\n"
	"  thpnumactl policies --json\n",
};
