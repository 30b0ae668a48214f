// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl cgroup and cgroups: per-cgroup settings, set and listed
 * through /sys/kernel/thpnuma/cgroups, which kernel lockdown leaves
 * usable.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cgstats.h"
#include "overrides.h"
#include "text.h"
#include "thpnumactl.h"

#define MOUNTINFO	"/proc/self/mountinfo"

/* The mount that holds a path: where it is, its root, its type. */
struct mount_of {
	char point[PATH_MAX];
	char root[PATH_MAX];
	char fstype[64];
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_mountinfo(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

static bool path_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/*
 * With @path NULL, the first cgroup v2 mount; else the mount that holds
 * @path, the last one mounted over it winning. 0 or -ENOENT.
 */
static int find_mount(const char *path, struct mount_of *m)
{
	const char *file = getenv(ENV_MOUNTINFO);
	char *line = NULL, *f[32], *dash, fstype[64];
	size_t cap = 0;
	int ret = -ENOENT;
	FILE *in;

	in = fopen(file ? file : MOUNTINFO, "re");
	if (!in)
		return -errno;
	while (getline(&line, &cap, in) > 0) {
		/* ID PARENT MAJ:MIN ROOT POINT OPTIONS [TAGS...] - TYPE ... */
		dash = strstr(line, " - ");
		if (!dash || sscanf(dash + 3, "%63s", fstype) != 1)
			continue;
		*dash = '\0';
		if (split_fields(line, f, 32) < 6)
			continue;
		unescape_mountinfo(f[3]);
		unescape_mountinfo(f[4]);
		if (path ? !path_under(path, f[4]) : strcmp(fstype, "cgroup2"))
			continue;
		snprintf(m->point, sizeof(m->point), "%s", f[4]);
		snprintf(m->root, sizeof(m->root), "%s", f[3]);
		snprintf(m->fstype, sizeof(m->fstype), "%s", fstype);
		ret = 0;
		if (!path)
			break;
	}
	free(line);
	fclose(in);
	return ret;
}

/*
 * PATH as the module takes it: a cgroup v2 path such as
 * /system.slice/db.service, given as that or as its directory under the
 * cgroup2 mount (/sys/fs/cgroup/system.slice/db.service).
 */
int resolve_cgroup(const struct command *cmd, const char *arg, char *out,
		   size_t len, bool missing_ok)
{
	char real[PATH_MAX], dir[PATH_MAX];
	struct mount_of m[1];
	struct stat st;
	size_t n;

	if (realpath(arg, real) && !find_mount(real, m)) {
		if (!strcmp(m->fstype, "cgroup")) {
			error("%s is on a cgroup v1 hierarchy; " PROG
			      " sets policies on cgroup v2 (unified) cgroups only",
			      arg);
			return EXIT_FAIL;
		}
		if (!strcmp(m->fstype, "cgroup2")) {
			n = strcmp(m->point, "/") ? strlen(m->point) : 0;
			if ((size_t)snprintf(out, len, "%s%s",
					     strcmp(m->root, "/") ? m->root : "",
					     real[n] ? real + n : "/") >= len)
				return usage_error(cmd, "path too long: '%s'",
						   arg);
			return 0;
		}
	}
	if (arg[0] != '/')
		return usage_error(cmd, "'%s' is not a cgroup v2 path (such as /system.slice/db.service) or directory",
				   arg);
	if ((size_t)snprintf(out, len, "%s", arg) >= len)
		return usage_error(cmd, "path too long: '%s'", arg);
	/* Where cgroup2 is mounted, say plainly when there is no such cgroup. */
	if (!find_mount(NULL, m) && !strcmp(m->root, "/")) {
		snprintf(dir, sizeof(dir), "%s%s",
			 strcmp(m->point, "/") ? m->point : "", arg);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
			if (missing_ok)
				return -ENOENT;
			error("no cgroup %s on the cgroup v2 hierarchy (no directory %s)",
			      arg, dir);
			return EXIT_FAIL;
		}
	}
	return 0;
}

int own_cgroup_dir(char *dir, size_t len)
{
	char *text = read_text("/proc/self/cgroup"), *line, *save = NULL;
	const char *path = NULL, *rel;
	struct mount_of m[1];
	size_t n;
	int ret = EXIT_FAIL;

	if (!text) {
		error("cannot read /proc/self/cgroup: %s", strerror(errno));
		return EXIT_FAIL;
	}
	/* "0::/user.slice/..." is the cgroup v2 line. */
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "0::/", 4))
			path = line + 3;
	if (!path || find_mount(NULL, m)) {
		error("no cgroup v2 hierarchy is mounted (mount -t cgroup2 none /sys/fs/cgroup)");
		goto out;
	}
	/* Below the mount's root, the path is relative to it. */
	n = strcmp(m->root, "/") ? strlen(m->root) : 0;
	if (n && !path_under(path, m->root)) {
		error("this process's cgroup %s is outside the cgroup2 mount at %s",
		      path, m->point);
		goto out;
	}
	rel = path + n;
	if ((size_t)snprintf(dir, len, "%s%s", strcmp(m->point, "/") ?
			     m->point : "", strcmp(rel, "/") ? rel : "") >= len) {
		error("cgroup path too long: %s", path);
		goto out;
	}
	ret = 0;
out:
	free(text);
	return ret;
}

int write_cgroup_setting(const char *cgroup, const char *policy,
			 int zone_reclaim, int budget_us, bool missing_ok)
{
	char file[PATH_MAX], line[PATH_MAX + 64];
	char words[THPNUMA_MAX_TASK_WRITE];
	int ret;

	format_override_words(words, sizeof(words), policy, zone_reclaim,
			      budget_us);
	snprintf(line, sizeof(line), "%s %s", cgroup, words);
	sysfs_path(file, sizeof(file), CONTROL_DIR "/cgroups");
	/* The module's ENOENT means no such cgroup, not no such file. */
	if (access(file, F_OK))
		return sysfs_failure("write", file, errno);
	ret = write_value(file, line);
	switch (-ret) {
	case 0:
		return EXIT_OK;
	case ENOENT:
		if (missing_ok)
			return -ENOENT;
		error("no cgroup %s on the cgroup v2 hierarchy (removed?)",
		      cgroup);
		return EXIT_FAIL;
	case ENOSPC:
		return table_full("cgroup", "max_cgroups", "cgroup PATH default");
	case EINVAL:
		error("the module refused '%s' (a path without spaces, '.' or '..', at most 1024 bytes)",
		      line);
		return EXIT_FAIL;
	default:
		return sysfs_failure("write", file, -ret);
	}
}

int read_cgroups(struct cgroup_list *cl)
{
	char reason[256], *text;
	int ret;

	ret = read_counters("cgroups", &text);
	if (ret)
		return ret;
	ret = cgroups_parse(text, cl, reason, sizeof(reason));
	free(text);
	return ret ? counters_parse_failure("cgroups", reason) : 0;
}

int read_cgroup_stats(void *data)
{
	char reason[256], *stats, *hist;
	int ret;

	ret = read_counters("cgroup_stats", &stats);
	if (ret)
		return ret;
	ret = read_counters("cgroup_hist", &hist);
	if (ret) {
		free(stats);
		return ret;
	}
	ret = cgroup_stats_parse(stats, hist, data, reason, sizeof(reason));
	free(stats);
	free(hist);
	return ret ? counters_parse_failure("cgroup_stats", reason) : 0;
}

static int write_cgroup_stats(FILE *out, const struct report_options *ro,
			      const void *data)
{
	switch (ro->format) {
	case REPORT_JSON:
		cgroup_stats_write_json(out, data);
		break;
	case REPORT_PROMETHEUS:
		cgroup_stats_write_prometheus(out, data);
		break;
	case REPORT_TEXT:
		cgroup_stats_write_table(out, data);
		break;
	}
	return EXIT_OK;
}

static void free_cgroup_stats(void *data)
{
	cgroup_stats_free(data);
}

/* cgroups --stat [--json | --prometheus] [-o FILE]: a report, as stat's. */
static int cgroup_stats_report(const struct command *cmd, int argc,
			       char *argv[])
{
	static const struct report_source source = {
		.read = read_cgroup_stats,
		.write = write_cgroup_stats,
		.free = free_cgroup_stats,
	};
	struct cgroup_stats cs;
	char *args[64];
	int i, n = 0;

	if (argc > (int)ARRAY_SIZE(args))
		return usage_error(cmd, "too many arguments");
	for (i = 0; i < argc; i++)
		if (i == 0 || strcmp(argv[i], "--stat"))
			args[n++] = argv[i];
	return run_report(cmd, n, args, &source, &cs);
}

static int do_cgroups(const struct command *cmd, int argc, char *argv[])
{
	struct cgroup_list cl;
	bool json;
	int ret, i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--stat"))
			return cgroup_stats_report(cmd, argc, argv);
	ret = parse_simple_options(cmd, argc, argv, 0, &json);
	if (ret >= 0)
		return ret;
	ret = read_cgroups(&cl);
	if (ret)
		return ret;
	if (json)
		cgroups_write_json(stdout, &cl);
	else
		cgroups_write_table(stdout, &cl);
	cgroups_free(&cl);
	return EXIT_OK;
}

/* What applies to @cgroup: its own setting, an ancestor's, or the global. */
static int show_setting(const char *cgroup)
{
	const struct cgroup_entry *c;
	struct cgroup_list cl;
	char zr[16] = "global", budget[16] = "global";
	int ret;

	ret = read_cgroups(&cl);
	if (ret)
		return ret;
	c = cgroups_applying(&cl, cgroup);
	if (c) {
		if (c->zone_reclaim >= 0)
			snprintf(zr, sizeof(zr), "%d", c->zone_reclaim);
		if (c->budget_us >= 0)
			snprintf(budget, sizeof(budget), "%d", c->budget_us);
		printf("%s %s zone_reclaim=%s budget_us=%s", cgroup, c->policy,
		       zr, budget);
		if (strcmp(c->path, cgroup))
			printf(" (from %s)", c->path);
		putchar('\n');
	} else {
		printf("%s default\n", cgroup);
	}
	cgroups_free(&cl);
	return EXIT_OK;
}

static int do_cgroup(const struct command *cmd, int argc, char *argv[])
{
	struct override_options o;
	char cgroup[PATH_MAX];
	int ret;

	ret = parse_override_options(cmd, argc, argv, ":z:b:h", &o);
	if (ret >= 0)
		return ret;
	if (optind == argc)
		return usage_error(cmd, "missing PATH");
	if (argc - optind > 2)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind + 2]);
	if (argc - optind == 2) {
		o.policy = argv[optind + 1];
		if (strcmp(o.policy, "default")) {
			ret = check_policy(cmd, o.policy);
			if (ret >= 0)
				return ret;
		}
	}
	ret = check_override_policy(cmd, &o);
	if (ret >= 0)
		return ret;
	ret = resolve_cgroup(cmd, argv[optind], cgroup, sizeof(cgroup), false);
	if (ret)
		return ret;
	ret = ensure_module();
	if (ret)
		return ret;
	if (!o.policy)
		return show_setting(cgroup);
	ret = write_cgroup_setting(cgroup, o.policy, o.zone_reclaim,
				   o.budget_us, false);
	if (!ret) {
		printf("%s %s\n", cgroup, o.policy);
		note_override_settings(o.policy, o.zone_reclaim, o.budget_us,
				       "setting");
	}
	return ret;
}

const struct command cmd_cgroups = {
	.name = "cgroups", .run = do_cgroups,
	.summary = "list the per-cgroup settings",
	.usage =
	"cgroups [--json]\n"
	"cgroups --stat [--json | --prometheus] [-o FILE]\n"
	"One row per cgroup with a setting: policy, zone_reclaim, budget_us\n"
	"(\"global\" when it follows the global setting) and the cgroup's\n"
	"path. Needs root. With --stat, what each setting decided: THP\n"
	"faults placed locally and remotely, fallen back and left to the\n"
	"kernel, the share placed remotely, and bounds of the allocation\n"
	"time's median and 99th percentile; any user may read them.\n\n"
	"      --stat          the per-cgroup counters and histograms\n"
	"      --json          one JSON object\n"
	"      --prometheus    Prometheus text (with --stat)\n"
	"  -o, --output FILE   write FILE atomically, mode 0644 (with --stat)\n"
	"  -h, --help          show this help\n\n"
	"Examples:\n"
	"  thpnumactl cgroups\n"
	"  thpnumactl cgroups --json\n"
	"  thpnumactl cgroups --stat\n"
	"  thpnumactl cgroups --stat --prometheus -o /var/lib/prometheus/node-exporter/thpnuma_cgroups.prom\n",
};

const struct command cmd_cgroup = {
	.name = "cgroup", .run = do_cgroup,
	.summary = "show, set or clear one cgroup's policy",
	.usage =
	"cgroup [--zone-reclaim N] [--budget-us US] PATH [POLICY|default]\n"
	"PATH is a cgroup v2 path (/system.slice/db.service) or its directory\n"
	"(/sys/fs/cgroup/system.slice/db.service). With POLICY, every task in\n"
	"the cgroup and below it, including tasks that join later, faults THPs\n"
	"under POLICY; a setting further down, or a process's own override,\n"
	"wins. \"default\" removes the setting; so does removing the cgroup.\n"
	"Without POLICY, show what applies to PATH. Needs root.\n\n"
	"  -z, --zone-reclaim N  0-7, none, or reclaim,write,swap\n"
	"  -b, --budget-us US    1-1000000 microseconds, for policy budget\n"
	"  -h, --help            show this help\n\n"
	"Without -z or -b, the setting follows the global one.\n\n"
	"Examples:\n"
	"  thpnumactl cgroup /system.slice/db.service strict-local\n"
	"  thpnumactl cgroup -z reclaim /kubepods.slice local-then-remote\n"
	"  thpnumactl cgroup -b 250 /system.slice/batch.slice budget\n"
	"  thpnumactl cgroup /system.slice/db.service\n"
	"  thpnumactl cgroup /system.slice/db.service default\n",
};
