// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl load, unload and status: the module itself, through libkmod,
 * and what the kernel says about it and the machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>
#include "stats.h"
#include "thpnumactl.h"

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
		} else if (!strcmp(key, "probe_missed")) {
			/* Above 0, the compaction and reclaim counts are short. */
			print_field("probe missed:", value);
		}
	}
	free(text);

	/* Module parameters show the live settings and need no root. */
	for (i = 0; i < THPNUMA_NR_SETTINGS; i++) {
		const struct thpnuma_setting *s = &thpnuma_settings[i];

		snprintf(key, sizeof(key), "%s:", s->name);
		snprintf(path, sizeof(path), "%s/module/" MODULE_NAME
			 "/parameters/%s", sysfs_root(), s->name);
		if (read_line(path, line, sizeof(line)))
			snprintf(line, sizeof(line), "unknown");
		else if (!s->choices && line[0] >= '0' && line[0] <= '7' &&
			 !line[1])
			format_zone_reclaim(line, sizeof(line), line[0] - '0');
		print_field(key, line);
	}
}

static int do_status(const struct command *cmd, int argc, char *argv[])
{
	char path[PATH_MAX], online[256];
	bool loaded = module_loaded();
	int ret;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (loaded)
		print_module_status();
	else
		print_field("module:", "not loaded");
	/* LSB's "program is not running", as systemctl status says it. */
	ret = loaded ? EXIT_OK : EXIT_NOT_LOADED;
	print_sysfs_choice("THP enabled:",
			   "kernel/mm/transparent_hugepage/enabled");
	print_sysfs_choice("THP defrag:",
			   "kernel/mm/transparent_hugepage/defrag");
	/* Under lockdown, debugfs' tasks list is closed (see the man page). */
	print_sysfs_choice("lockdown:", LOCKDOWN_FILE);
	sysfs_path(path, sizeof(path), "devices/system/node/online");
	if (read_line(path, online, sizeof(online))) {
		print_field("nodes online:", "unknown");
		return ret;
	}
	print_field("nodes online:", online);
	print_node_memory(online);
	return ret;
}

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

/*
 * libkmod with modprobe's configuration (/etc/modprobe.d and the other
 * standard directories, and the kernel command line), or, for the tests,
 * the one directory in THPNUMACTL_MODPROBE_D.
 */
static struct kmod_ctx *kmod_context(void)
{
	const char *dir = getenv(ENV_MODPROBE_D), *paths[2] = { NULL };
	struct kmod_ctx *ctx;

	paths[0] = dir;
	ctx = kmod_new(NULL, dir && *dir ? paths : NULL);

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
	char level[64];

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
		if (lockdown_active(level, sizeof(level))) {
			error("kernel lockdown (%s) refused %s: only signed modules load under lockdown (Secure Boot); sign it with a key the machine trusts (on Debian, DKMS's MOK key: see the README)",
			      level, what);
			break;
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

/* A dry run: say what modprobe -n -v would, in words. */
static bool dry_run_printed;

static void print_action(struct kmod_module *m, bool install,
			 const char *options)
{
	char opts[4096];
	size_t len;

	/* libkmod leaves a blank where no option follows the config's. */
	snprintf(opts, sizeof(opts), "%s", options ? options : "");
	len = strlen(opts);
	while (len && opts[len - 1] == ' ')
		opts[--len] = '\0';
	if (install)
		printf("would run modprobe.d's install command for %s: %s (options: %s)\n",
		       kmod_module_get_name(m),
		       kmod_module_get_install_commands(m),
		       *opts ? opts : "none");
	else
		printf("would load %s with options: %s\n",
		       kmod_module_get_path(m) ? kmod_module_get_path(m) :
		       kmod_module_get_name(m), *opts ? opts : "none");
	dry_run_printed = true;
}

static int do_load(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_DRY_RUN = 256 };
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "scope", required_argument, NULL, 's' },
		{ "coverage", required_argument, NULL, 'c' },
		{ "module", required_argument, NULL, 'm' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *policy = NULL, *module_path = NULL;
	/* The settings given by name alone (scope, coverage), by id. */
	const char *named[THPNUMA_NR_SETTINGS] = { NULL };
	char params[256], what[PATH_MAX + 16];
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	unsigned int zone_reclaim = 0, flags;
	bool set_zone_reclaim = false, dry_run = false;
	const char *config;
	size_t used = 0;
	int c, id, ret, err, kmsg_fd;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":p:z:s:c:m:nh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			policy = optarg;
			ret = check_policy(cmd, policy);
			if (ret >= 0)
				return ret;
			break;
		case 'z':
			ret = check_zone_reclaim(cmd, optarg, &zone_reclaim);
			if (ret >= 0)
				return ret;
			set_zone_reclaim = true;
			break;
		case 's':
		case 'c':
			id = c == 's' ? THPNUMA_SETTING_SCOPE :
			     THPNUMA_SETTING_COVERAGE;
			ret = check_choice(cmd, &thpnuma_settings[id], optarg);
			if (ret >= 0)
				return ret;
			named[id] = optarg;
			break;
		case 'm':
			module_path = optarg;
			break;
		case 'n':
			dry_run = true;
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
	for (id = 0; id < THPNUMA_NR_SETTINGS; id++)
		if (named[id])
			used += snprintf(params + used, sizeof(params) - used,
					 "%s=%s ", thpnuma_settings[id].name,
					 named[id]);
	if (used)
		params[used - 1] = '\0';

	if (geteuid() != 0 && !dry_run)
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

	/*
	 * As modprobe does: the options of modprobe.d and the kernel command
	 * line, then ours, which win because the kernel applies the last
	 * value of a parameter. Install commands run too.
	 */
	config = kmod_module_get_options(mod);
	flags = KMOD_PROBE_FAIL_ON_LOADED;
	if (dry_run) {
		err = kmod_module_probe_insert_module(mod,
						      flags | KMOD_PROBE_DRY_RUN,
						      params, NULL, NULL,
						      print_action);
		if (err < 0) {
			error("cannot load %s: %s", what, strerror(-err));
			goto out;
		}
		if (!dry_run_printed)
			printf("would load nothing\n");
		ret = EXIT_OK;
		goto out;
	}
	kmsg_fd = kmsg_open_at_end();
	err = kmod_module_probe_insert_module(mod, flags, params, NULL, NULL,
					      NULL);
	if (err < 0) {
		ret = report_insert_failure(-err, what, kmsg_fd);
		goto out;
	}
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	printf("loaded %s", what);
	if (config && *config)
		printf(" with %s from modprobe.d", config);
	if (params[0])
		printf("%s %s", config && *config ? " and" : " with", params);
	printf("\n");
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

static int do_unload(const struct command *cmd, int argc, char *argv[])
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

const struct command cmd_load = {
	.name = "load", .run = do_load,
	.summary = "load the module with initial settings",
	.usage =
	"load [--policy P] [--zone-reclaim N] [--scope S] [--coverage C]\n"
	"                       [--module PATH] [--dry-run]\n"
	"Load thpnuma through libkmod as modprobe does: from\n"
	"/lib/modules/$(uname -r), or from PATH, with the options that\n"
	"modprobe.d gives thpnuma (\"options thpnuma policy=...\") and then\n"
	"those given here, which take precedence. Needs root.\n\n"
	"  -p, --policy P        kernel, strict-local or local-then-remote\n"
	"  -z, --zone-reclaim N  0-7, none, or a comma list of reclaim,write,swap\n"
	"  -s, --scope S         all or madvise\n"
	"  -c, --coverage C      pmd, pmd+mthp or all\n"
	"  -m, --module PATH     load this .ko file instead\n"
	"  -n, --dry-run         print the module and options, load nothing\n"
	"  -h, --help            show this help\n\n"
	"Examples:\n"
	"  thpnumactl load --policy strict-local\n"
	"  thpnumactl load --dry-run\n"
	"  thpnumactl load --policy local-then-remote --zone-reclaim reclaim,write\n"
	"  thpnumactl load --module ./thpnuma.ko --scope madvise\n",
};

const struct command cmd_unload = {
	.name = "unload", .run = do_unload,
	.summary = "unload the module if nothing uses it",
	.usage =
	"unload\n"
	"Unload thpnuma, after checking that no module holds it and its\n"
	"reference count is zero, as rmmod does. Needs root.\n\n"
	"Example:\n"
	"  thpnumactl unload\n",
};

const struct command cmd_status = {
	.name = "status", .run = do_status,
	.summary = "module, settings, THP mode and node memory",
	.usage =
	"status\n"
	"Show whether thpnuma is loaded, its version, the kernel it was built\n"
	"for, the hooked symbol, its settings, the kernel's THP mode and the\n"
	"free memory of each online node. Exit status 0 when thpnuma is\n"
	"loaded, 3 when it is not (LSB's \"not running\").\n\n"
	"Example:\n"
	"  thpnumactl status\n",
};
