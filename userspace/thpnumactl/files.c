// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl's view of the module's files: where debugfs and sysfs are,
 * reading and writing them, and saying in words why that failed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "thpnumactl.h"

const char *debugfs_dir(void)
{
	const char *dir = getenv(ENV_DEBUGFS);

	return dir && *dir ? dir : DEFAULT_DEBUGFS_DIR;
}

const char *sysfs_root(void)
{
	const char *dir = getenv(ENV_SYSFS);

	return dir && *dir ? dir : DEFAULT_SYSFS_ROOT;
}

void debugfs_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", debugfs_dir(), file);
}

void sysfs_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", sysfs_root(), rel);
}

int read_line(const char *path, char *out, size_t len)
{
	char *text = read_text(path);

	if (!text)
		return -errno;
	text[strcspn(text, "\n")] = '\0';
	snprintf(out, len, "%s", text);
	free(text);
	return 0;
}

int write_value(const char *path, const char *value)
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

bool module_loaded(void)
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
 * The module is loaded, and of thpnumactl's version: there has been no
 * release, so thpnumactl knows only its own module's files.
 */
int ensure_module(void)
{
	char path[PATH_MAX], version[64];
	int ret;

	if (!module_loaded()) {
		error(MODULE_NAME " is not loaded; load it with: " PROG " load");
		return EXIT_FAIL;
	}
	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/version");
	ret = read_line(path, version, sizeof(version));
	if (ret) {
		error("cannot read %s: %s", path, strerror(-ret));
		return EXIT_FAIL;
	}
	if (strcmp(version, THPNUMA_VERSION)) {
		error("this " MODULE_NAME " module is version %s, " PROG " is "
		      THPNUMA_VERSION "; load the module of " PROG "'s version",
		      version);
		return EXIT_FAIL;
	}
	return 0;
}

const char *kernel_release(void)
{
	static struct utsname uts;
	const char *release = getenv(ENV_KERNEL_RELEASE);

	if (release && *release)
		return release;
	if (!uts.release[0])
		uname(&uts);
	return uts.release;
}

int read_param(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" PARAMS_DIR "/%s", sysfs_root(),
		 name);
	return read_line(path, buf, len);
}

int write_param(const struct thpnuma_setting *s, const char *value)
{
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/" PARAMS_DIR "/%s", sysfs_root(),
		 s->name);
	ret = write_value(path, value);
	if (ret == -EINVAL) {
		switch (s->kind) {
		case THPNUMA_SETTING_CHOICE:
			error("the module refused %s '%s'", s->name, value);
			break;
		case THPNUMA_SETTING_BITS:
		case THPNUMA_SETTING_MICROSECONDS:
			error("the module refused %s %s", s->name, value);
			break;
		}
		return EXIT_FAIL;
	}
	return ret ? sysfs_failure("change", path, -ret) : EXIT_OK;
}

bool lockdown_active(char *buf, size_t len)
{
	char path[PATH_MAX], line[128];

	sysfs_path(path, sizeof(path), LOCKDOWN_FILE);
	if (read_line(path, line, sizeof(line)) ||
	    bracketed_choice(line, buf, len))
		return false;
	return strcmp(buf, "none") != 0;
}

/* Whether the running kernel registered debugfs at all. */
static bool debugfs_registered(void)
{
	char *text = read_text("/proc/filesystems");
	bool found;

	if (!text)
		return true;	/* cannot tell: assume the usual */
	found = strstr(text, "\tdebugfs\n") != NULL;
	free(text);
	return found;
}

bool debugfs_disabled(char *why, size_t len)
{
	char value[32];

	/*
	 * fs/debugfs/inode.c: with debugfs=off or debugfs=no-mount (newer
	 * kernels read it as off), debugfs_init() returns -EPERM before it
	 * creates /sys/kernel/debug and registers the filesystem, so there
	 * is nothing to mount. CONFIG_DEBUG_FS_ALLOW_NONE and
	 * _DISALLOW_MOUNT kernels are the same without the parameter.
	 */
	if (kernel_cmdline_param("debugfs", value, sizeof(value)) &&
	    (!strcmp(value, "off") || !strcmp(value, "no-mount"))) {
		snprintf(why, len, "debugfs=%s", value);
		return true;
	}
	/* A test tree stands for a kernel with debugfs. */
	if (!getenv(ENV_DEBUGFS) && !debugfs_registered()) {
		snprintf(why, len, "no debugfs in /proc/filesystems");
		return true;
	}
	return false;
}

int reach_debugfs(char *why, size_t len)
{
	const char *dir = debugfs_dir();
	struct stat st;

	int ret;

	/* A test's debugfs tree may come without a sysfs one. */
	if (module_loaded() || !getenv(ENV_DEBUGFS)) {
		ret = ensure_module();
		if (ret)
			return ret;
	}
	if (stat(dir, &st) == 0)
		return 0;
	if (errno == EACCES || errno == EPERM)
		return needs_root("reading thpnuma's statistics and overrides in debugfs");
	if (errno != ENOENT) {
		error("cannot access %s: %s", dir, strerror(errno));
		return EXIT_FAIL;
	}
	/* Mount nothing for a module that is not there. */
	if (!module_loaded())
		return ensure_module();
	if (debugfs_disabled(why, len))
		return DEBUGFS_DISABLED;
	if (!getenv(ENV_DEBUGFS) && !debugfs_mounted()) {
		if (geteuid() != 0) {
			error("debugfs is not mounted at " DEBUGFS_MOUNT
			      "; as root, mount it with: " MOUNT_HINT);
			return EXIT_FAIL;
		}
		if (mount("none", DEBUGFS_MOUNT, "debugfs", 0, NULL)) {
			/* No mount point, no filesystem: disabled at boot. */
			if (errno == ENOENT || errno == ENODEV) {
				snprintf(why, len, "mounting it fails: %s",
					 strerror(errno));
				return DEBUGFS_DISABLED;
			}
			error("debugfs is not mounted and mounting it failed (%s); try: "
			      MOUNT_HINT, strerror(errno));
			return EXIT_FAIL;
		}
		if (stat(dir, &st) == 0)
			return 0;
	}
	error("%s is missing although " MODULE_NAME " is loaded", dir);
	return EXIT_FAIL;
}

/* EPERM or EACCES for root: the kernel's doing, not a missing privilege. */
static int refused_to_root(const char *verb, const char *path, int err,
			   bool debugfs)
{
	char level[64];

	if (debugfs && err == EPERM && lockdown_active(level, sizeof(level))) {
		error("cannot %s %s: kernel lockdown (%s) refuses to open debugfs files that have a write bit, even for reading; see 'man " PROG "' (LOCKDOWN) for what works under lockdown",
		      verb, path, level);
		return EXIT_FAIL;
	}
	error("cannot %s %s: %s, although running as root (a security module or kernel lockdown?)",
	      verb, path, strerror(err));
	return EXIT_FAIL;
}

int debugfs_failure(const char *verb, const char *file, int err)
{
	char path[PATH_MAX];

	debugfs_path(path, sizeof(path), file);
	if (err == EACCES || err == EPERM) {
		char what[128];

		if (geteuid() == 0)
			return refused_to_root(verb, path, err, true);
		snprintf(what, sizeof(what), "%s %s", verb, file);
		return needs_root(what);
	}
	error("cannot %s %s: %s", verb, path, strerror(err));
	return EXIT_FAIL;
}

int sysfs_failure(const char *verb, const char *path, int err)
{
	const char *file = strrchr(path, '/');
	char what[128];

	if (err == EACCES || err == EPERM) {
		if (geteuid() == 0)
			return refused_to_root(verb, path, err, false);
		snprintf(what, sizeof(what), "%s %s", verb,
			 file ? file + 1 : path);
		return needs_root(what);
	}
	error("cannot %s %s: %s", verb, path, strerror(err));
	return EXIT_FAIL;
}

int read_debugfs(const char *file, char **text)
{
	char path[PATH_MAX];

	debugfs_path(path, sizeof(path), file);
	*text = read_text(path);
	if (*text)
		return 0;
	/* The module went away since ensure_debugfs() found it. */
	if (errno == ENOENT && !module_loaded() && !getenv(ENV_DEBUGFS)) {
		error(MODULE_NAME " is no longer loaded");
		return EXIT_FAIL;
	}
	return debugfs_failure("read", file, errno);
}

int debugfs_parse_failure(const char *file, const char *reason)
{
	char path[PATH_MAX];

	debugfs_path(path, sizeof(path), file);
	error("cannot parse %s: %s", path, reason);
	return EXIT_FAIL;
}

/* The per-node tables; any other counter file is CONTROL_DIR's own. */
static bool per_node(const char *file)
{
	return !strcmp(file, "stats") || !strcmp(file, "hist") ||
	       !strcmp(file, "orders");
}

void counters_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/" CONTROL_DIR "/%s%s", sysfs_root(),
		 per_node(file) ? "nodes/node*/" : "", file);
}

/* Why @path could not be read (@err), as an exit status after a message. */
static int counter_read_failure(const char *path, int err)
{
	/* The module went away since ensure_module() found it. */
	if (err == ENOENT && !module_loaded()) {
		error(MODULE_NAME " is no longer loaded");
		return EXIT_FAIL;
	}
	return sysfs_failure("read", path, err);
}

/* Read @path whole; an exit status after saying why it failed. */
static int read_counter_file(const char *path, char **text)
{
	*text = read_text(path);
	return *text ? 0 : counter_read_failure(path, errno);
}

static int compare_nids(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The nodes that have a directory under @dir, ascending; -1 and errno. */
static int node_dirs(const char *dir, int **nids)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	int n = 0, nid;
	char end;

	*nids = NULL;
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		int *more;

		if (sscanf(d->d_name, "node%d%c", &nid, &end) != 1 || nid < 0)
			continue;
		more = realloc(*nids, (n + 1) * sizeof(**nids));
		if (!more) {
			closedir(dp);
			errno = ENOMEM;
			return -1;
		}
		*nids = more;
		(*nids)[n++] = nid;
	}
	closedir(dp);
	qsort(*nids, n, sizeof(**nids), compare_nids);
	return n;
}

/* Append the string @from to the string *@all of *@len bytes. */
static int append(char **all, size_t *len, const char *from)
{
	size_t more = strlen(from);
	char *grown = realloc(*all, *len + more + 1);

	if (!grown) {
		error("out of memory");
		return EXIT_FAIL;
	}
	memcpy(grown + *len, from, more + 1);
	*all = grown;
	*len += more;
	return 0;
}

/*
 * Each node's file is one snapshot of that node: its rows under the
 * table's header. Joined in node order, header once, they read as the
 * debugfs table, and one parser serves both.
 */
static int read_node_tables(const char *file, char **text)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], first[PATH_MAX + 64];
	size_t len = 0, header = 0;
	char *all = NULL, *one;
	int *nids, n, i, ret = 0;

	sysfs_path(dir, sizeof(dir), CONTROL_DIR "/nodes");
	n = node_dirs(dir, &nids);
	if (n < 0) {
		ret = counter_read_failure(dir, errno);
		free(nids);
		return ret;
	}
	if (n == 0) {
		error("%s has no node directories", dir);
		free(nids);
		return EXIT_FAIL;
	}
	for (i = 0; i < n && !ret; i++) {
		snprintf(path, sizeof(path), "%s/node%d/%s", dir, nids[i],
			 file);
		ret = read_counter_file(path, &one);
		if (ret)
			break;
		if (i == 0) {
			header = strcspn(one, "\n");
			header += one[header] == '\n';
			snprintf(first, sizeof(first), "%s", path);
			ret = append(&all, &len, one);
		} else if (strncmp(one, all, header)) {
			error("cannot parse %s: its header is not %s's", path,
			      first);
			ret = EXIT_FAIL;
		} else {
			ret = append(&all, &len, one + header);
		}
		free(one);
	}
	free(nids);
	if (ret) {
		free(all);
		return ret;
	}
	*text = all;
	return 0;
}

int read_counters(const char *file, char **text)
{
	char path[PATH_MAX];
	int ret = ensure_module();

	if (ret)
		return ret;
	if (per_node(file))
		return read_node_tables(file, text);
	counters_path(path, sizeof(path), file);
	return read_counter_file(path, text);
}

int counters_parse_failure(const char *file, const char *reason)
{
	char path[PATH_MAX];

	counters_path(path, sizeof(path), file);
	error("cannot parse %s: %s", path, reason);
	return EXIT_FAIL;
}

int table_full(const char *what, const char *param, const char *clear)
{
	char path[PATH_MAX], max[32];

	snprintf(path, sizeof(path), "%s/" PARAMS_DIR "/%s", sysfs_root(),
		 param);
	if (read_line(path, max, sizeof(max)))
		snprintf(max, sizeof(max), "?");
	error("the %s table is full (%s=%s); clear one with '" PROG
	      " %s' or load with a larger %s", what, param, max, clear, param);
	return EXIT_FAIL;
}
