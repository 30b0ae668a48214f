// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl - load, configure and observe the thpnuma kernel module.
 *
 * One command table, one getopt_long parser per command. Exit status:
 * 0 success, 1 runtime failure, 2 usage error. Messages go to stderr and
 * say why.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libkmod.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include "overrides.h"
#include "policy.h"
#include "stats.h"

#ifndef THPNUMA_VERSION
#define THPNUMA_VERSION "unknown"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define PROG			"thpnumactl"
#define MODULE_NAME		"thpnuma"
#define DEBUGFS_MOUNT		"/sys/kernel/debug"
#define DEFAULT_DEBUGFS_DIR	DEBUGFS_MOUNT "/" MODULE_NAME
#define DEFAULT_SYSFS_ROOT	"/sys"
/* Test hooks: point the tool at a fake directory tree. */
#define ENV_DEBUGFS		"THPNUMACTL_DEBUGFS"
#define ENV_SYSFS		"THPNUMACTL_SYSFS"
#define MOUNT_HINT		"mount -t debugfs none " DEBUGFS_MOUNT

enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,
	EXIT_USAGE	= 2,
};

struct command {
	const char *name;
	int (*run)(const struct command *cmd, int argc, char *argv[]);
	const char *summary;
	const char *usage;	/* full --help text: options and examples */
};

static void error(const char *fmt, ...) __printf(1, 2);

static void error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_error(const struct command *cmd, const char *fmt, ...)
	__printf(2, 3);

static int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG " %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " %s --help'.\n", cmd->name);
	return EXIT_USAGE;
}

/* For getopt_long's '?' and ':' returns (opterr is off). */
static int option_error(const struct command *cmd, int c, char *argv[])
{
	if (c == ':')
		return usage_error(cmd, "option '%s' needs an argument",
				   argv[optind - 1]);
	if (optopt)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

static int needs_root(const char *what)
{
	error("%s needs root; run it as root (for example with sudo)", what);
	return EXIT_FAIL;
}

static void show_help(const struct command *cmd)
{
	printf("Usage: " PROG " %s\n", cmd->usage);
}

/*
 * The options of commands without their own: --help, and --json where
 * @json is not NULL. Returns -1 to go on, else the exit status.
 */
static int parse_simple_options(const struct command *cmd, int argc,
				char *argv[], int max_args, bool *json)
{
	enum { OPT_JSON = 256 };
	static const struct option with_json[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const struct option *options = json ? with_json : with_json + 1;
	int c;

	if (json)
		*json = false;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == OPT_JSON) {
			*json = true;
			continue;
		}
		if (c == 'h') {
			show_help(cmd);
			return EXIT_OK;
		}
		return option_error(cmd, c, argv);
	}
	if (argc - optind > max_args)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind + max_args]);
	return -1;
}

static int parse_no_options(const struct command *cmd, int argc, char *argv[],
			    int max_args)
{
	return parse_simple_options(cmd, argc, argv, max_args, NULL);
}

/* ---- files ---------------------------------------------------------- */

static const char *debugfs_dir(void)
{
	const char *dir = getenv(ENV_DEBUGFS);

	return dir && *dir ? dir : DEFAULT_DEBUGFS_DIR;
}

static const char *sysfs_root(void)
{
	const char *dir = getenv(ENV_SYSFS);

	return dir && *dir ? dir : DEFAULT_SYSFS_ROOT;
}

/* Read a whole small file. Returns a malloc'd string or NULL with errno. */
static char *read_text(const char *path)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	ssize_t n;
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (len + 1 == size) {
			char *bigger = realloc(buf, size * 2);

			if (!bigger) {
				errno = ENOMEM;
				goto fail_fd;
			}
			buf = bigger;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_fd;
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;

fail_fd:
	saved = errno;
	close(fd);
	errno = saved;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

/* First line of a small file, newline stripped; -errno on failure. */
static int read_line(const char *path, char *out, size_t len)
{
	char *text = read_text(path);

	if (!text)
		return -errno;
	text[strcspn(text, "\n")] = '\0';
	snprintf(out, len, "%s", text);
	free(text);
	return 0;
}

/* One write(2) per value: the module takes one whole value per write. */
static int write_value(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

static void debugfs_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", debugfs_dir(), file);
}

static void sysfs_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", sysfs_root(), rel);
}

static bool module_loaded(void)
{
	char path[PATH_MAX];

	/* initstate exists for loadable modules only, once they are in. */
	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/initstate");
	return access(path, F_OK) == 0;
}

static bool debugfs_mounted(void)
{
	char *mounts = read_text("/proc/mounts");
	char *line, *save = NULL;
	bool found = false;

	if (!mounts)
		return false;
	for (line = strtok_r(mounts, "\n", &save); line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[PATH_MAX], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
		    !strcmp(dir, DEBUGFS_MOUNT))
			found = true;
	}
	free(mounts);
	return found;
}

/*
 * Make sure thpnuma's debugfs directory is reachable: mount debugfs if
 * it is not mounted and we may, else say exactly what is missing.
 * Returns 0 or an exit status after a message.
 */
static int ensure_debugfs(void)
{
	const char *dir = debugfs_dir();
	struct stat st;

	if (stat(dir, &st) == 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return needs_root("reading or changing thpnuma's settings in debugfs");
	if (errno != ENOENT) {
		error("cannot access %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	if (!getenv(ENV_DEBUGFS) && !debugfs_mounted()) {
		if (geteuid() != 0) {
			error("debugfs is not mounted at " DEBUGFS_MOUNT
			      "; as root, mount it with: " MOUNT_HINT);
			return EXIT_FAIL;
		}
		if (mount("none", DEBUGFS_MOUNT, "debugfs", 0, NULL)) {
			error("debugfs is not mounted and mounting it failed (%s); try: "
			      MOUNT_HINT, strerror(errno));
			return EXIT_FAIL;
		}
		if (stat(dir, &st) == 0)
			return 0;
	}
	if (!module_loaded()) {
		error(MODULE_NAME " is not loaded; load it with: " PROG " load");
		return EXIT_FAIL;
	}
	error("%s is missing although " MODULE_NAME " is loaded", dir);
	return EXIT_FAIL;
}

/* Why a debugfs file could not be read or written, in words. */
static int debugfs_failure(const char *verb, const char *file, int err)
{
	if (err == EACCES || err == EPERM) {
		char what[128];

		snprintf(what, sizeof(what), "%s %s", verb, file);
		return needs_root(what);
	}
	error("cannot %s %s/%s: %s", verb, debugfs_dir(), file,
	      strerror(err));
	return EXIT_FAIL;
}

/* ---- policy, scope, zone-reclaim ------------------------------------ */

static int lookup_name(const char *name, const char *const *names,
		       unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

static void join_names(char *buf, size_t len, const char *const *names,
		       unsigned int nr)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < nr && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", names[i]);
}

/* -1 if @name is a policy, else a usage error's exit status. */
static int check_policy(const struct command *cmd, const char *name)
{
	char valid[128];

	if (lookup_name(name, thpnuma_policy_names, THPNUMA_NR_POLICIES) >= 0)
		return -1;
	join_names(valid, sizeof(valid), thpnuma_policy_names,
		   THPNUMA_NR_POLICIES);
	return usage_error(cmd, "invalid policy '%s' (valid: %s)", name, valid);
}

static const char *const zone_reclaim_names[] = {
	"reclaim", "write", "swap",	/* bits 0, 1, 2 */
};

/* "0"-"7", "none", or a comma list of reclaim,write,swap. */
static int parse_zone_reclaim(const char *text, unsigned int *bits)
{
	char *copy, *word, *save = NULL;
	int ret = 0;

	if (text[0] >= '0' && text[0] <= '7' && text[1] == '\0') {
		*bits = text[0] - '0';
		return 0;
	}
	if (!strcmp(text, "none")) {
		*bits = 0;
		return 0;
	}
	if (!*text || text[0] == ',' || text[strlen(text) - 1] == ',' ||
	    strstr(text, ",,"))
		return -EINVAL;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	*bits = 0;
	for (word = strtok_r(copy, ",", &save); word && !ret;
	     word = strtok_r(NULL, ",", &save)) {
		int bit = lookup_name(word, zone_reclaim_names,
				      ARRAY_SIZE(zone_reclaim_names));

		if (bit < 0)
			ret = -EINVAL;
		else
			*bits |= 1u << bit;
	}
	free(copy);
	return ret;
}

static void format_zone_reclaim(char *buf, size_t len, unsigned int bits)
{
	size_t used;
	unsigned int i;

	used = snprintf(buf, len, "%u (", bits);
	if (!bits)
		used += snprintf(buf + used, len - used, "none");
	for (i = 0; i < ARRAY_SIZE(zone_reclaim_names) && used < len; i++)
		if (bits & (1u << i))
			used += snprintf(buf + used, len - used, "%s%s",
					 bits & ((1u << i) - 1) ? "," : "",
					 zone_reclaim_names[i]);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/* Read or set a debugfs choice file (policy, scope). */
static int run_choice(const struct command *cmd, int argc, char *argv[],
		      const char *file, const char *const *names,
		      unsigned int nr)
{
	char path[PATH_MAX], line[256], value[64], valid[128];
	const char *wanted = NULL;
	int ret;

	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		wanted = argv[optind];
		if (lookup_name(wanted, names, nr) < 0) {
			join_names(valid, sizeof(valid), names, nr);
			return usage_error(cmd, "invalid %s '%s' (valid: %s)",
					   file, wanted, valid);
		}
	}
	ret = ensure_debugfs();
	if (ret)
		return ret;
	debugfs_path(path, sizeof(path), file);
	if (wanted) {
		ret = write_value(path, wanted);
		if (ret == -EINVAL) {
			error("the module refused %s '%s'", file, wanted);
			return EXIT_FAIL;
		}
		if (ret)
			return debugfs_failure("change", file, -ret);
		/* The write was accepted whole: that is the new value. */
		printf("%s\n", wanted);
		return EXIT_OK;
	}
	ret = read_line(path, line, sizeof(line));
	if (ret)
		return debugfs_failure("read", file, -ret);
	if (bracketed_choice(line, value, sizeof(value))) {
		error("unexpected contents in %s: '%s'", path, line);
		return EXIT_FAIL;
	}
	printf("%s\n", value);
	return EXIT_OK;
}

static int cmd_policy(const struct command *cmd, int argc, char *argv[])
{
	return run_choice(cmd, argc, argv, "policy", thpnuma_policy_names,
			  THPNUMA_NR_POLICIES);
}

static int cmd_scope(const struct command *cmd, int argc, char *argv[])
{
	return run_choice(cmd, argc, argv, "scope", thpnuma_scope_names,
			  THPNUMA_NR_SCOPES);
}

static int cmd_zone_reclaim(const struct command *cmd, int argc,
			    char *argv[])
{
	char path[PATH_MAX], line[64], text[64], *end;
	unsigned int bits = 0;
	unsigned long value;
	bool set = false;
	int ret;

	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind < argc) {
		if (parse_zone_reclaim(argv[optind], &bits))
			return usage_error(cmd,
					   "invalid zone reclaim mode '%s' (0-7, none, or a comma list of reclaim,write,swap)",
					   argv[optind]);
		set = true;
	}
	ret = ensure_debugfs();
	if (ret)
		return ret;
	debugfs_path(path, sizeof(path), "zone_reclaim");
	if (set) {
		snprintf(text, sizeof(text), "%u", bits);
		ret = write_value(path, text);
		if (ret == -EINVAL) {
			error("the module refused zone_reclaim %u", bits);
			return EXIT_FAIL;
		}
		if (ret)
			return debugfs_failure("change", "zone_reclaim", -ret);
		format_zone_reclaim(text, sizeof(text), bits);
		printf("%s\n", text);
		return EXIT_OK;
	}
	ret = read_line(path, line, sizeof(line));
	if (ret)
		return debugfs_failure("read", "zone_reclaim", -ret);
	errno = 0;
	value = strtoul(line, &end, 10);
	if (errno || end == line || *end || value > THPNUMA_ZR_MASK) {
		error("unexpected contents in %s: '%s'", path, line);
		return EXIT_FAIL;
	}
	format_zone_reclaim(text, sizeof(text), value);
	printf("%s\n", text);
	return EXIT_OK;
}

static int cmd_reset(const struct command *cmd, int argc, char *argv[])
{
	char path[PATH_MAX];
	int ret;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	ret = ensure_debugfs();
	if (ret)
		return ret;
	debugfs_path(path, sizeof(path), "reset");
	ret = write_value(path, "1");
	if (ret)
		return debugfs_failure("write", "reset", -ret);
	printf("counters reset\n");
	return EXIT_OK;
}

/* ---- stat and watch ------------------------------------------------- */

/*
 * Read debugfs @file whole and parse it with @parse. Returns 0, or an
 * exit status after saying why.
 */
static int load_debugfs(const char *file,
			int (*parse)(const char *text, void *out, char *err,
				     size_t errlen),
			void *out)
{
	char path[PATH_MAX], reason[256];
	char *text;
	int ret;

	debugfs_path(path, sizeof(path), file);
	text = read_text(path);
	if (!text) {
		if (errno == ENOENT && !module_loaded() &&
		    !getenv(ENV_DEBUGFS)) {
			error(MODULE_NAME " is no longer loaded");
			return EXIT_FAIL;
		}
		return debugfs_failure("read", file, errno);
	}
	ret = parse(text, out, reason, sizeof(reason));
	free(text);
	if (ret) {
		error("cannot parse %s: %s", path, reason);
		return EXIT_FAIL;
	}
	return 0;
}

static int parse_stats(const char *text, void *out, char *err, size_t len)
{
	return stats_parse(text, out, err, len);
}

static int load_stats(struct thpnuma_stats *st)
{
	return load_debugfs("stats", parse_stats, st);
}

/* A node number: decimal, below the kernel's node limit. */
static int parse_node(const char *text, int *node)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' ||
	    v >= STATS_MAX_NODES)
		return -EINVAL;
	*node = (int)v;
	return 0;
}

static int cmd_stat(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_JSON = 256, OPT_PROMETHEUS };
	static const struct option options[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "prometheus", no_argument, NULL, OPT_PROMETHEUS },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	enum { TABLE, JSON, PROMETHEUS } format = TABLE;
	struct thpnuma_stats st;
	int node = -1;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":n:h", options, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_node(optarg, &node))
				return usage_error(cmd, "invalid node '%s'",
						   optarg);
			break;
		case OPT_JSON:
		case OPT_PROMETHEUS:
			if (format != TABLE)
				return usage_error(cmd,
						   "--json and --prometheus exclude each other");
			format = c == OPT_JSON ? JSON : PROMETHEUS;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	ret = ensure_debugfs();
	if (ret)
		return ret;
	ret = load_stats(&st);
	if (ret)
		return ret;
	if (node >= 0 && stats_select_node(&st, node)) {
		error("node %d is not online", node);
		stats_free(&st);
		return EXIT_FAIL;
	}
	if (format == JSON)
		stats_write_json(stdout, &st);
	else if (format == PROMETHEUS)
		stats_write_prometheus(stdout, &st);
	else
		stats_write_table(stdout, &st, node < 0);
	stats_free(&st);
	return EXIT_OK;
}

/* volatile sig_atomic_t: what C allows a signal handler to write. */
static volatile sig_atomic_t watch_stop;

/* Async-signal-safe: only sets a flag the loop polls. */
static void watch_on_signal(int sig)
{
	watch_stop = 1;
}

/* Sleep @seconds unless a stop signal arrives first. */
static void watch_sleep(double seconds)
{
	struct timespec left = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (!watch_stop && nanosleep(&left, &left) && errno == EINTR)
		;
}

static int cmd_watch(const struct command *cmd, int argc, char *argv[])
{
	static const struct option options[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct thpnuma_stats prev, cur, delta;
	struct sigaction sa = { .sa_handler = watch_on_signal };
	unsigned long count = 0, done;
	double interval = 1.0;
	char stamp[16], *end;
	time_t now;
	int c, ret;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":i:c:h", options, NULL)) != -1) {
		switch (c) {
		case 'i':
			errno = 0;
			interval = strtod(optarg, &end);
			if (errno || end == optarg || *end ||
			    !(interval >= 0.1 && interval <= 86400))
				return usage_error(cmd,
						   "invalid interval '%s' (0.1 to 86400 seconds)",
						   optarg);
			break;
		case 'c':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end ||
			    optarg[0] == '-' || count == 0)
				return usage_error(cmd,
						   "invalid count '%s' (a positive number)",
						   optarg);
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	ret = ensure_debugfs();
	if (ret)
		return ret;
	ret = load_stats(&prev);
	if (ret)
		return ret;

	/* No SA_RESTART: the signal must cut nanosleep short. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	stats_write_watch_header(stdout);
	fflush(stdout);
	for (done = 0; !count || done < count; done++) {
		watch_sleep(interval);
		if (watch_stop)
			break;
		ret = load_stats(&cur);
		if (ret)
			break;
		if (stats_delta(&prev, &cur, &delta)) {
			error("out of memory");
			stats_free(&cur);
			ret = EXIT_FAIL;
			break;
		}
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		stats_write_watch_rows(stdout, stamp, &delta);
		fflush(stdout);
		stats_free(&delta);
		stats_free(&prev);
		prev = cur;
	}
	stats_free(&prev);
	return ret;
}

/* ---- status --------------------------------------------------------- */

static void print_field(const char *label, const char *value)
{
	printf("%-16s %s\n", label, value);
}

/* The bracketed word of a sysfs choice file, or why there is none. */
static void print_sysfs_choice(const char *label, const char *rel)
{
	char path[PATH_MAX], line[256], value[300];
	int ret;

	sysfs_path(path, sizeof(path), rel);
	ret = read_line(path, line, sizeof(line));
	if (ret)
		snprintf(value, sizeof(value), "unknown (%s)", strerror(-ret));
	else if (bracketed_choice(line, value, sizeof(value)))
		snprintf(value, sizeof(value), "%s", line);
	print_field(label, value);
}

static void print_node_memory(const char *online)
{
	const char *p = online;
	char path[PATH_MAX], label[32], value[64];
	char *text, *free_line, *end;
	unsigned long first, last, nid;
	unsigned long long kib;

	/* A node list: "0", "0-3", "0,2-3". */
	while (*p) {
		first = strtoul(p, &end, 10);
		if (end == p)
			return;
		last = first;
		if (*end == '-')
			last = strtoul(end + 1, &end, 10);
		for (nid = first; nid <= last && nid < STATS_MAX_NODES; nid++) {
			snprintf(path, sizeof(path),
				 "%s/devices/system/node/node%lu/meminfo",
				 sysfs_root(), nid);
			snprintf(label, sizeof(label), "node %lu free:", nid);
			text = read_text(path);
			free_line = text ? strstr(text, "MemFree:") : NULL;
			if (free_line &&
			    sscanf(free_line, "MemFree: %llu", &kib) == 1)
				snprintf(value, sizeof(value), "%.1f MiB",
					 kib / 1024.0);
			else
				snprintf(value, sizeof(value), "unknown");
			print_field(label, value);
			free(text);
		}
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
}

static void print_module_status(void)
{
	static const char *const params[] = { "policy", "zone_reclaim",
					      "scope" };
	char path[PATH_MAX], line[256], value[300], key[32];
	struct utsname uts;
	char *text, *row, *save = NULL;
	unsigned int i;

	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/initstate");
	if (read_line(path, line, sizeof(line)))
		snprintf(line, sizeof(line), "unknown");
	snprintf(value, sizeof(value), "loaded (%s)", line);
	print_field("module:", value);

	debugfs_path(path, sizeof(path), "version");
	text = read_text(path);
	if (!text) {
		snprintf(value, sizeof(value), "unknown (%s)",
			 errno == EACCES ? "reading debugfs needs root" :
			 strerror(errno));
		print_field("version:", value);
	}
	uname(&uts);
	for (row = text ? strtok_r(text, "\n", &save) : NULL; row;
	     row = strtok_r(NULL, "\n", &save)) {
		if (sscanf(row, "%31s %255s", key, value) != 2)
			continue;
		if (!strcmp(key, "version")) {
			print_field("version:", value);
		} else if (!strcmp(key, "kernel")) {
			size_t len = strlen(value);

			snprintf(value + len, sizeof(value) - len,
				 strcmp(value, uts.release) ?
				 " (running %s: mismatch)" : "", uts.release);
			print_field("built for:", value);
		} else if (!strcmp(key, "hooked_symbol")) {
			print_field("hooked symbol:", value);
		}
	}
	free(text);

	/* Module parameters show the live settings and need no root. */
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		snprintf(key, sizeof(key), "%s:", params[i]);
		snprintf(path, sizeof(path), "%s/module/" MODULE_NAME
			 "/parameters/%s", sysfs_root(), params[i]);
		if (read_line(path, line, sizeof(line)))
			snprintf(line, sizeof(line), "unknown");
		else if (i == 1 && line[0] >= '0' && line[0] <= '7' && !line[1])
			format_zone_reclaim(line, sizeof(line), line[0] - '0');
		print_field(key, line);
	}
}

static int cmd_status(const struct command *cmd, int argc, char *argv[])
{
	char path[PATH_MAX], online[256];
	int ret;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (module_loaded())
		print_module_status();
	else
		print_field("module:", "not loaded");
	print_sysfs_choice("THP enabled:",
			   "kernel/mm/transparent_hugepage/enabled");
	print_sysfs_choice("THP defrag:",
			   "kernel/mm/transparent_hugepage/defrag");
	sysfs_path(path, sizeof(path), "devices/system/node/online");
	if (read_line(path, online, sizeof(online))) {
		print_field("nodes online:", "unknown");
		return EXIT_OK;
	}
	print_field("nodes online:", online);
	print_node_memory(online);
	return EXIT_OK;
}

/* ---- load and unload ------------------------------------------------ */

#define KMSG_KEEP 4

/*
 * The module says why it refused to load in the kernel log. Open
 * /dev/kmsg before loading, positioned at its end, so that only what
 * this load produced is read back afterwards.
 */
static int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Print the last few "thpnuma:" messages logged since kmsg_open_at_end. */
static void kmsg_show_module_lines(int fd)
{
	char kept[KMSG_KEEP][512];
	unsigned int nr = 0, i;
	char record[8192];
	ssize_t n;

	if (fd < 0)
		return;
	for (;;) {
		char *msg, *end;

		n = read(fd, record, sizeof(record) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* EPIPE: records overwritten, go on */
		if (n <= 0)
			break;
		record[n] = '\0';
		/* "prio,seq,usec,flags;text\n" then " KEY=value" lines */
		msg = strchr(record, ';');
		if (!msg)
			continue;
		msg++;
		end = strchr(msg, '\n');
		if (end)
			*end = '\0';
		if (strncmp(msg, MODULE_NAME ":", strlen(MODULE_NAME) + 1))
			continue;
		snprintf(kept[nr % KMSG_KEEP], sizeof(kept[0]), "%s", msg);
		nr++;
	}
	close(fd);
	i = nr > KMSG_KEEP ? nr - KMSG_KEEP : 0;
	if (i < nr)
		fprintf(stderr, "kernel log:\n");
	for (; i < nr; i++)
		fprintf(stderr, "  %s\n", kept[i % KMSG_KEEP]);
}

static struct kmod_ctx *kmod_context(void)
{
	struct kmod_ctx *ctx = kmod_new(NULL, NULL);

	if (!ctx) {
		error("cannot initialise libkmod");
		return NULL;
	}
	/* Our own messages explain failures; libkmod's would repeat them. */
	kmod_set_log_priority(ctx, getenv("THPNUMACTL_DEBUG") ?
			      LOG_DEBUG : LOG_EMERG);
	return ctx;
}

static int report_insert_failure(int err, const char *what, int kmsg_fd)
{
	switch (err) {
	case EEXIST:
		error(MODULE_NAME " is already loaded; unload it first with: "
		      PROG " unload");
		break;
	case EPERM:
		if (geteuid() != 0) {
			close(kmsg_fd);
			return needs_root("loading a kernel module");
		}
		error("the kernel does not permit loading %s (kernel lockdown, module signature enforcement or kernel.modules_disabled)",
		      what);
		break;
	case ENOEXEC:
		error("cannot load %s: invalid module format (not a kernel module, or built for another kernel)",
		      what);
		break;
	case ENOENT:
		error("cannot load %s: unknown symbol in module (built for another kernel?)",
		      what);
		break;
	case EKEYREJECTED:
	case EBADMSG:
		error("cannot load %s: module signature rejected", what);
		break;
	default:
		error("this kernel refused %s: %s", what, strerror(err));
		break;
	}
	kmsg_show_module_lines(kmsg_fd);
	return EXIT_FAIL;
}

static int cmd_load(const struct command *cmd, int argc, char *argv[])
{
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "scope", required_argument, NULL, 's' },
		{ "module", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *policy = NULL, *scope = NULL, *module_path = NULL;
	char params[256], valid[128], what[PATH_MAX + 16];
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	unsigned int zone_reclaim = 0;
	bool set_zone_reclaim = false;
	size_t used = 0;
	int c, ret, err, kmsg_fd;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":p:z:s:m:h", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy = optarg;
			ret = check_policy(cmd, policy);
			if (ret >= 0)
				return ret;
			break;
		case 'z':
			if (parse_zone_reclaim(optarg, &zone_reclaim))
				return usage_error(cmd,
						   "invalid zone reclaim mode '%s' (0-7, none, or a comma list of reclaim,write,swap)",
						   optarg);
			set_zone_reclaim = true;
			break;
		case 's':
			scope = optarg;
			if (lookup_name(scope, thpnuma_scope_names,
					THPNUMA_NR_SCOPES) < 0) {
				join_names(valid, sizeof(valid),
					   thpnuma_scope_names,
					   THPNUMA_NR_SCOPES);
				return usage_error(cmd,
						   "invalid scope '%s' (valid: %s)",
						   scope, valid);
			}
			break;
		case 'm':
			module_path = optarg;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);

	params[0] = '\0';
	if (policy)
		used += snprintf(params + used, sizeof(params) - used,
				 "policy=%s ", policy);
	if (set_zone_reclaim)
		used += snprintf(params + used, sizeof(params) - used,
				 "zone_reclaim=%u ", zone_reclaim);
	if (scope)
		used += snprintf(params + used, sizeof(params) - used,
				 "scope=%s ", scope);

	if (geteuid() != 0)
		return needs_root("loading a kernel module");

	ctx = kmod_context();
	if (!ctx)
		return EXIT_FAIL;
	ret = EXIT_FAIL;
	if (module_path) {
		snprintf(what, sizeof(what), "%s", module_path);
		err = kmod_module_new_from_path(ctx, module_path, &mod);
		if (err < 0) {
			error("cannot use module file %s: %s", module_path,
			      err == -ENOENT ? "no such file" :
			      strerror(-err));
			goto out;
		}
	} else {
		struct utsname uts;

		uname(&uts);
		snprintf(what, sizeof(what), MODULE_NAME);
		err = kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
		if (err < 0) {
			error("cannot look up " MODULE_NAME ": %s",
			      strerror(-err));
			goto out;
		}
		if (kmod_module_get_initstate(mod) < 0 &&
		    !kmod_module_get_path(mod)) {
			error("module " MODULE_NAME " not found in /lib/modules/%s; install it or pass --module PATH",
			      uts.release);
			goto out;
		}
	}
	/* Same question the kernel would answer with EEXIST, asked first. */
	if (!strcmp(kmod_module_get_name(mod), MODULE_NAME) &&
	    kmod_module_get_initstate(mod) >= 0) {
		error(MODULE_NAME " is already loaded; unload it first with: "
		      PROG " unload");
		goto out;
	}

	kmsg_fd = kmsg_open_at_end();
	err = kmod_module_insert_module(mod, 0, params);
	if (err < 0) {
		ret = report_insert_failure(-err, what, kmsg_fd);
		goto out;
	}
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	printf("loaded %s%s%s\n", what, params[0] ? " with " : "", params);
	ret = EXIT_OK;
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

/* The checks rmmod makes before removing: not built in, no users. */
static int check_unloadable(struct kmod_module *mod)
{
	struct kmod_list *holders, *itr;
	int state = kmod_module_get_initstate(mod);
	int refcnt;

	if (state == KMOD_MODULE_BUILTIN) {
		error(MODULE_NAME " is built into the kernel; it cannot be unloaded");
		return -EINVAL;
	}
	if (state < 0) {
		error(MODULE_NAME " is not loaded");
		return -ENOENT;
	}
	holders = kmod_module_get_holders(mod);
	if (holders) {
		fprintf(stderr, PROG ": " MODULE_NAME
			" is in use by other modules:");
		kmod_list_foreach(itr, holders) {
			struct kmod_module *holder = kmod_module_get_module(itr);

			fprintf(stderr, " %s", kmod_module_get_name(holder));
			kmod_module_unref(holder);
		}
		fputc('\n', stderr);
		kmod_module_unref_list(holders);
		return -EBUSY;
	}
	refcnt = kmod_module_get_refcnt(mod);
	if (refcnt > 0) {
		error(MODULE_NAME " is in use (reference count %d); close its debugfs files and try again",
		      refcnt);
		return -EBUSY;
	}
	return 0;
}

static int cmd_unload(const struct command *cmd, int argc, char *argv[])
{
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	int ret, err;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (geteuid() != 0)
		return needs_root("unloading a kernel module");
	ctx = kmod_context();
	if (!ctx)
		return EXIT_FAIL;
	ret = EXIT_FAIL;
	err = kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
	if (err < 0) {
		error("cannot look up " MODULE_NAME ": %s", strerror(-err));
		goto out;
	}
	if (check_unloadable(mod))
		goto out;
	err = kmod_module_remove_module(mod, 0);
	if (err == -EBUSY || err == -EAGAIN)
		error(MODULE_NAME " is in use; try again when it is idle");
	else if (err == -EPERM)
		error("the kernel does not permit unloading modules here");
	else if (err == -ENOENT)
		error(MODULE_NAME " is not loaded");
	else if (err < 0)
		error("cannot unload " MODULE_NAME ": %s", strerror(-err));
	else
		ret = EXIT_OK;
	if (!ret)
		printf("unloaded " MODULE_NAME "\n");
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

/* ---- per-process overrides ---------------------------------------- */

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
 * Write "PID POLICY [BITS]" or "PID default" to the tasks file.
 * @zone_reclaim < 0: the override follows the global zone_reclaim.
 */
static int write_override(int pid, const char *policy, int zone_reclaim)
{
	char path[PATH_MAX], line[64], max[32];
	int ret;

	if (zone_reclaim >= 0)
		snprintf(line, sizeof(line), "%d %s %d", pid, policy,
			 zone_reclaim);
	else
		snprintf(line, sizeof(line), "%d %s", pid, policy);
	debugfs_path(path, sizeof(path), "tasks");
	ret = write_value(path, line);
	switch (-ret) {
	case 0:
		return EXIT_OK;
	case ESRCH:
		error("no process with PID %d", pid);
		return EXIT_FAIL;
	case ENOSPC:
		sysfs_path(path, sizeof(path),
			   "module/" MODULE_NAME "/parameters/max_tasks");
		if (read_line(path, max, sizeof(max)))
			snprintf(max, sizeof(max), "?");
		error("the override table is full (max_tasks=%s); clear one with '"
		      PROG " task PID default' or load with a larger max_tasks", max);
		return EXIT_FAIL;
	case EINVAL:
		error("the module refused '%s' (is PID %d a kernel thread?)",
		      line, pid);
		return EXIT_FAIL;
	default:
		return debugfs_failure("write", "tasks", -ret);
	}
}

static int parse_tasks(const char *text, void *out, char *err, size_t len)
{
	return tasks_parse(text, out, err, len);
}

static int load_tasks(struct task_list *tl)
{
	return load_debugfs("tasks", parse_tasks, tl);
}

static int parse_policies(const char *text, void *out, char *err,
			  size_t len)
{
	return policies_parse(text, out, err, len);
}

static int cmd_tasks(const struct command *cmd, int argc, char *argv[])
{
	struct task_list tl;
	bool json;
	int ret;

	ret = parse_simple_options(cmd, argc, argv, 0, &json);
	if (ret >= 0)
		return ret;
	ret = ensure_debugfs();
	if (!ret)
		ret = load_tasks(&tl);
	if (ret)
		return ret;
	if (json)
		tasks_write_json(stdout, &tl);
	else
		tasks_write_table(stdout, &tl);
	tasks_free(&tl);
	return EXIT_OK;
}

static int cmd_policies(const struct command *cmd, int argc, char *argv[])
{
	struct policy_table pt;
	bool json;
	int ret;

	ret = parse_simple_options(cmd, argc, argv, 0, &json);
	if (ret >= 0)
		return ret;
	ret = ensure_debugfs();
	if (!ret)
		ret = load_debugfs("policies", parse_policies, &pt);
	if (ret)
		return ret;
	if (json)
		policies_write_json(stdout, &pt);
	else
		policies_write_table(stdout, &pt);
	policies_free(&pt);
	return EXIT_OK;
}

/* The options of run and task: --policy (run only) and --zone-reclaim. */
struct override_options {
	const char *policy;
	int zone_reclaim;
};

static int parse_override_options(const struct command *cmd, int argc,
				  char *argv[], const char *optstring,
				  struct override_options *o)
{
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int bits;
	int c, ret;

	o->policy = NULL;
	o->zone_reclaim = -1;
	optind = 0;
	while ((c = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
		switch (c) {
		case 'p':
			ret = check_policy(cmd, optarg);
			if (ret >= 0)
				return ret;
			o->policy = optarg;
			break;
		case 'z':
			if (parse_zone_reclaim(optarg, &bits))
				return usage_error(cmd,
						   "invalid zone reclaim mode '%s' (0-7, none, or a comma list of reclaim,write,swap)",
						   optarg);
			o->zone_reclaim = (int)bits;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	return -1;
}

static int cmd_task(const struct command *cmd, int argc, char *argv[])
{
	struct override_options o;
	const struct task_entry *t;
	struct task_list tl;
	char path[PATH_MAX];
	int pid, ret;

	ret = parse_override_options(cmd, argc, argv, ":z:h", &o);
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
	if (o.zone_reclaim >= 0 && (!o.policy || !strcmp(o.policy, "default")))
		return usage_error(cmd, "--zone-reclaim needs a POLICY");
	ret = ensure_debugfs();
	if (ret)
		return ret;

	if (o.policy) {
		ret = write_override(pid, o.policy, o.zone_reclaim);
		if (!ret)
			printf("%d %s\n", pid, o.policy);
		return ret;
	}
	ret = load_tasks(&tl);
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

static int cmd_run(const struct command *cmd, int argc, char *argv[])
{
	struct override_options o;
	int ret;

	/* '+': the command's own options are not ours. */
	ret = parse_override_options(cmd, argc, argv, "+:p:z:h", &o);
	if (ret >= 0)
		return ret;
	if (!o.policy)
		return usage_error(cmd, "--policy is required");
	if (optind == argc)
		return usage_error(cmd, "missing command to run");
	ret = ensure_debugfs();
	if (ret)
		return ret;
	/* The override is on this process: exec keeps it, children inherit. */
	ret = write_override(getpid(), o.policy, o.zone_reclaim);
	if (ret)
		return ret;
	execvp(argv[optind], &argv[optind]);
	error("cannot run '%s': %s", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}

/* ---- command table -------------------------------------------------- */

static int cmd_help(const struct command *cmd, int argc, char *argv[]);

static const struct command commands[] = {
	{ "load", cmd_load, "load the module with initial settings",
	  "load [--policy P] [--zone-reclaim N] [--scope S] [--module PATH]\n"
	  "Load thpnuma through libkmod: from /lib/modules/$(uname -r), or\n"
	  "from PATH. Needs root.\n\n"
	  "  -p, --policy P        kernel, strict-local or local-then-remote\n"
	  "  -z, --zone-reclaim N  0-7, none, or a comma list of reclaim,write,swap\n"
	  "  -s, --scope S         all or madvise\n"
	  "  -m, --module PATH     load this .ko file instead\n"
	  "  -h, --help            show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl load --policy strict-local\n"
	  "  thpnumactl load --policy local-then-remote --zone-reclaim reclaim,write\n"
	  "  thpnumactl load --module ./thpnuma.ko --scope madvise\n" },
	{ "unload", cmd_unload, "unload the module if nothing uses it",
	  "unload\n"
	  "Unload thpnuma, after checking that no module holds it and its\n"
	  "reference count is zero, as rmmod does. Needs root.\n\n"
	  "Example:\n"
	  "  thpnumactl unload\n" },
	{ "status", cmd_status, "module, settings, THP mode and node memory",
	  "status\n"
	  "Show whether thpnuma is loaded, its version, the kernel it was built\n"
	  "for, the hooked symbol, its settings, the kernel's THP mode and the\n"
	  "free memory of each online node.\n\n"
	  "Example:\n"
	  "  thpnumactl status\n" },
	{ "policy", cmd_policy, "show or set the placement policy",
	  "policy [kernel|strict-local|local-then-remote]\n"
	  "Without an argument, print the current policy; with one, set it.\n\n"
	  "Examples:\n"
	  "  thpnumactl policy\n"
	  "  thpnumactl policy local-then-remote\n" },
	{ "zone-reclaim", cmd_zone_reclaim,
	  "show or set the local reclaim effort",
	  "zone-reclaim [BITS | none | reclaim,write,swap]\n"
	  "How hard local-then-remote tries on the local node before going\n"
	  "remote: 1 reclaim clean page cache, 2 may write to the filesystem,\n"
	  "4 may swap. Prints the value as \"BITS (names)\".\n\n"
	  "Examples:\n"
	  "  thpnumactl zone-reclaim\n"
	  "  thpnumactl zone-reclaim 3\n"
	  "  thpnumactl zone-reclaim reclaim,swap\n" },
	{ "scope", cmd_scope, "show or set which THP faults are covered",
	  "scope [all|madvise]\n"
	  "all: every THP fault; madvise: only MADV_HUGEPAGE regions.\n\n"
	  "Examples:\n"
	  "  thpnumactl scope\n"
	  "  thpnumactl scope madvise\n" },
	{ "stat", cmd_stat, "per-node counters as a table, JSON or Prometheus",
	  "stat [-n NODE] [--json | --prometheus]\n"
	  "Counters per node (columns) with a Total column and the local,\n"
	  "remote and fallback shares and average allocation time.\n\n"
	  "  -n, --node NODE   only this node\n"
	  "      --json        one JSON object\n"
	  "      --prometheus  Prometheus text format (node_exporter textfile)\n"
	  "  -h, --help        show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl stat\n"
	  "  thpnumactl stat -n 1 --json\n"
	  "  thpnumactl stat --prometheus > /var/lib/node_exporter/thpnuma.prom\n" },
	{ "watch", cmd_watch, "per-interval counter deltas until Ctrl-C",
	  "watch [-i SECONDS] [-c COUNT]\n"
	  "Print what changed in each interval, one row per node and a total.\n\n"
	  "  -i, --interval SECONDS  time between rows (default 1, min 0.1)\n"
	  "  -c, --count COUNT       stop after COUNT intervals\n"
	  "  -h, --help              show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl watch\n"
	  "  thpnumactl watch -i 5 -c 12\n" },
	{ "run", cmd_run, "run a command under its own policy",
	  "run --policy P [--zone-reclaim N] [--] COMMAND [ARGS...]\n"
	  "Set a per-process override on this process, then exec COMMAND: the\n"
	  "command and the children it forks from then on fault THPs under P,\n"
	  "whatever the global policy. Needs root.\n\n"
	  "  -p, --policy P        kernel, strict-local or local-then-remote\n"
	  "  -z, --zone-reclaim N  0-7, none, or reclaim,write,swap (default:\n"
	  "                        follow the global zone_reclaim)\n"
	  "  -h, --help            show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl run --policy strict-local -- ./numa-local-db\n"
	  "  thpnumactl run -p local-then-remote -z 1 -- make -j8\n" },
	{ "tasks", cmd_tasks, "list the per-process overrides",
	  "tasks [--json]\n"
	  "One row per process with an override: PID, command, policy and\n"
	  "zone_reclaim (\"global\" when it follows the global setting).\n\n"
	  "      --json   one JSON object\n"
	  "  -h, --help   show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl tasks\n"
	  "  thpnumactl tasks --json\n" },
	{ "task", cmd_task, "show, set or clear one process's override",
	  "task [--zone-reclaim N] PID [POLICY|default]\n"
	  "Without POLICY, show PID's override. With POLICY, set it for PID's\n"
	  "whole process; \"default\" removes it. Children forked afterwards\n"
	  "inherit it; the override ends with the process. Needs root.\n\n"
	  "  -z, --zone-reclaim N  0-7, none, or reclaim,write,swap\n"
	  "  -h, --help            show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl task 4242\n"
	  "  thpnumactl task 4242 strict-local\n"
	  "  thpnumactl task -z reclaim 4242 local-then-remote\n"
	  "  thpnumactl task 4242 default\n" },
	{ "policies", cmd_policies, "per-policy totals, overrides included",
	  "policies [--json]\n"
	  "For each policy: processes with an override to it, THP faults it\n"
	  "placed locally, remotely or let fall back, faults it passed through,\n"
	  "and how many of those an override decided.\n\n"
	  "      --json   one JSON object\n"
	  "  -h, --help   show this help\n\n"
	  "Examples:\n"
	  "  thpnumactl policies\n"
	  "  thpnumactl policies --json\n" },
	{ "reset", cmd_reset, "zero the counters",
	  "reset\n"
	  "Zero all counters. Needs root.\n\n"
	  "Example:\n"
	  "  thpnumactl reset\n" },
	{ "help", cmd_help, "show help for a command",
	  "help [COMMAND]\n" },
};

static const struct command *find_command(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void show_overview(FILE *out)
{
	unsigned int i;

	fprintf(out,
		"Usage: " PROG " [--help] [--version] COMMAND [ARGS]\n"
		"Load, configure and observe the thpnuma kernel module.\n\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-14s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(out, "\nRun '" PROG " COMMAND --help' for a command's options.\n");
}

static int cmd_help(const struct command *cmd, int argc, char *argv[])
{
	const struct command *topic;
	int ret;

	ret = parse_no_options(cmd, argc, argv, 1);
	if (ret >= 0)
		return ret;
	if (optind == argc) {
		show_overview(stdout);
		return EXIT_OK;
	}
	topic = find_command(argv[optind]);
	if (!topic)
		return usage_error(cmd, "unknown command '%s'", argv[optind]);
	show_help(topic);
	return EXIT_OK;
}

int main(int argc, char *argv[])
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ }
	};
	const struct command *cmd;
	int c;

	opterr = 0;
	/* '+': stop at the command name; its options are its own. */
	while ((c = getopt_long(argc, argv, "+hV", options, NULL)) != -1) {
		switch (c) {
		case 'h':
			show_overview(stdout);
			return EXIT_OK;
		case 'V':
			printf(PROG " " THPNUMA_VERSION "\n");
			return EXIT_OK;
		default:
			if (optopt)
				error("unknown option '-%c'", optopt);
			else
				error("unknown option '%s'", argv[optind - 1]);
			fprintf(stderr, "Try '" PROG " --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		error("missing command");
		show_overview(stderr);
		return EXIT_USAGE;
	}
	cmd = find_command(argv[optind]);
	if (!cmd) {
		error("unknown command '%s'", argv[optind]);
		fprintf(stderr, "Try '" PROG " --help'.\n");
		return EXIT_USAGE;
	}
	return cmd->run(cmd, argc - optind, argv + optind);
}
