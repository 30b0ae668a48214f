// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl load, unload and status: the module itself, through libkmod,
 * and what the kernel says about it and the machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <syslog.h>
#include <unistd.h>
#include "overrides.h"
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

/* A node list ("0", "0-3", "0,2-3") into @nids, ascending; the count. */
static unsigned int online_nodes(const char *online,
				 unsigned long nids[STATS_MAX_NODES])
{
	const char *p = online;
	unsigned long first, last, nid;
	unsigned int n = 0;
	char *end;

	while (*p) {
		first = strtoul(p, &end, 10);
		if (end == p)
			break;
		last = first;
		if (*end == '-')
			last = strtoul(end + 1, &end, 10);
		for (nid = first; nid <= last && nid < STATS_MAX_NODES &&
		     n < STATS_MAX_NODES; nid++)
			nids[n++] = nid;
		p = *end == ',' ? end + 1 : end;
		if (*p == '\n')
			break;
	}
	return n;
}

static void print_node_memory(const char *online)
{
	unsigned long nids[STATS_MAX_NODES];
	unsigned int i, n = online_nodes(online, nids);
	char path[PATH_MAX], label[32], value[64];
	char *text, *free_line;
	unsigned long long kib;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path),
			 "%s/devices/system/node/node%lu/meminfo",
			 sysfs_root(), nids[i]);
		snprintf(label, sizeof(label), "node %lu free:", nids[i]);
		text = read_text(path);
		free_line = text ? strstr(text, "MemFree:") : NULL;
		if (free_line && sscanf(free_line, "MemFree: %llu", &kib) == 1)
			snprintf(value, sizeof(value), "%.1f MiB", kib / 1024.0);
		else
			snprintf(value, sizeof(value), "unknown");
		print_field(label, value);
		free(text);
	}
}

/*
 * The budget policy's state of a node: nodes/nodeN/budget, a header and
 * the node's row (none for a node gone offline).
 */
enum {
	BUDGET_NODE, BUDGET_ESTIMATE, BUDGET_BUDGET, BUDGET_PERIOD,
	BUDGET_SINCE, BUDGET_STATE, NR_BUDGET_COLUMNS
};

static const char *const budget_columns[NR_BUDGET_COLUMNS] = {
	"node", "estimate_ns", "budget_ns", "probe_period", "since_probe",
	"state",
};

struct node_budget {
	unsigned long nid;
	bool present;		/* the file has the node's row */
	bool over;
	uint64_t value[BUDGET_STATE];	/* the numbers, by column */
};

/* One node's file, @text, into @b; 0, or -EINVAL and why in @err. */
static int parse_node_budget(char *text, struct node_budget *b, char *err,
			     size_t errlen)
{
	char *line, *row[2], *field[32], *save = NULL;
	int column[NR_BUDGET_COLUMNS], nrows = 0, n, i;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (nrows == 2) {
			set_error(err, errlen, "more than one row");
			return -EINVAL;
		}
		row[nrows++] = line;
	}
	if (!nrows) {
		set_error(err, errlen, "empty file");
		return -EINVAL;
	}
	n = split_fields(row[0], field, ARRAY_SIZE(field));
	if (n < 0 || find_columns(field, 0, n, budget_columns,
				  NR_BUDGET_COLUMNS, column, 1, err, errlen))
		return -EINVAL;
	b->present = nrows == 2;
	if (!b->present)
		return 0;
	n = split_fields(row[1], field, ARRAY_SIZE(field));
	for (i = 0; i < NR_BUDGET_COLUMNS; i++) {
		if (n < 0 || column[i] >= n) {
			set_error(err, errlen, "line 2 has no %s",
				  budget_columns[i]);
			return -EINVAL;
		}
	}
	for (i = 0; i < BUDGET_STATE; i++)
		if (parse_counter(field[column[i]], budget_columns[i], 2,
				  &b->value[i], err, errlen))
			return -EINVAL;
	if (b->value[BUDGET_NODE] != b->nid) {
		set_error(err, errlen, "line 2 is node %s's",
			  field[column[BUDGET_NODE]]);
		return -EINVAL;
	}
	b->over = !strcmp(field[column[BUDGET_STATE]], "over");
	if (!b->over && strcmp(field[column[BUDGET_STATE]], "within")) {
		set_error(err, errlen, "line 2: state '%s' is not within or over",
			  field[column[BUDGET_STATE]]);
		return -EINVAL;
	}
	return 0;
}

/*
 * Each online node's budget state, while the policy is budget or a node
 * is over its budget (an override's or a cgroup's budget policy). Nothing
 * from a module without the files. 0, or an exit status after a message.
 */
static int print_node_budgets(const char *online)
{
	unsigned long nids[STATS_MAX_NODES];
	unsigned int i, n = online_nodes(online, nids);
	char path[PATH_MAX], policy[64], label[32], value[128], err[256];
	char est[32], budget[32];
	struct node_budget *b;
	bool show = false;
	char *text;
	int ret = 0;

	b = calloc(n ? n : 1, sizeof(*b));
	if (!b) {
		error("out of memory");
		return EXIT_FAIL;
	}
	if (!read_param("policy", policy, sizeof(policy)))
		show = policy_uses_budget(policy);
	for (i = 0; i < n && !ret; i++) {
		b[i].nid = nids[i];
		snprintf(path, sizeof(path), "%s/" CONTROL_DIR "/nodes/node%lu/budget",
			 sysfs_root(), nids[i]);
		text = read_text(path);
		if (!text && errno == ENOENT)
			continue;	/* an older module, or the node went */
		if (!text) {
			ret = sysfs_failure("read", path, errno);
			break;
		}
		if (parse_node_budget(text, &b[i], err, sizeof(err))) {
			error("cannot parse %s: %s", path, err);
			ret = EXIT_FAIL;
		}
		free(text);
		show |= b[i].over;
	}
	for (i = 0; show && !ret && i < n; i++) {
		if (!b[i].present)
			continue;
		format_duration(est, sizeof(est), b[i].value[BUDGET_ESTIMATE]);
		format_duration(budget, sizeof(budget),
				b[i].value[BUDGET_BUDGET]);
		if (b[i].over)
			snprintf(value, sizeof(value),
				 "estimate %s, over the %s budget, probe every %" PRIu64 " faults",
				 est, budget, b[i].value[BUDGET_PERIOD]);
		else
			snprintf(value, sizeof(value),
				 "estimate %s, within the %s budget", est,
				 budget);
		snprintf(label, sizeof(label), "budget node %lu:", b[i].nid);
		print_field(label, value);
	}
	free(b);
	return ret;
}

/*
 * unmatched_thp_calls: hooked calls of THP orders that came from no known
 * fault path (a livepatched or unknown caller), whose faults bypassed the
 * policy. status describes a module of another version too, which may
 * lack the line. Returns 0 or an exit status.
 */
#define UNMATCHED_KEY	"unmatched_thp_calls"

static int print_unmatched_calls(const char *value)
{
	char reason[128], field[32];
	uint64_t n;

	if (parse_decimal(value, UINT64_MAX, &n)) {
		snprintf(reason, sizeof(reason),
			 "unmatched_thp_calls '%s' is not a number", value);
		return counters_parse_failure("version", reason);
	}
	snprintf(field, sizeof(field), "%" PRIu64, n);
	print_field("unmatched calls:", field);
	if (n)
		error("warning: %" PRIu64 " THP allocation%s bypassed the policy: the hook saw %s from no known THP fault path, most likely a livepatched or unknown kernel caller; see dmesg",
		      n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
	return 0;
}

/* The version file's lines; 0, or an exit status if one is malformed. */
static int print_version_file(void)
{
	char path[PATH_MAX], value[300], key[32];
	char *text, *row, *save = NULL;
	int ret = 0;

	counters_path(path, sizeof(path), "version");
	text = read_text(path);
	if (!text) {
		snprintf(value, sizeof(value), "unknown (%s)", strerror(errno));
		print_field("version:", value);
		return 0;
	}
	for (row = strtok_r(text, "\n", &save); row;
	     row = strtok_r(NULL, "\n", &save)) {
		size_t klen = strcspn(row, " ");

		/* The whole rest of the line must be the number. */
		if (klen == strlen(UNMATCHED_KEY) &&
		    !strncmp(row, UNMATCHED_KEY, klen)) {
			if (!ret)
				ret = print_unmatched_calls(row[klen] ?
							    row + klen + 1 : "");
			continue;
		}
		if (sscanf(row, "%31s %255s", key, value) != 2)
			continue;
		if (!strcmp(key, "version")) {
			print_field("version:", value);
		} else if (!strcmp(key, "kernel")) {
			size_t len = strlen(value);
			const char *running = kernel_release();

			snprintf(value + len, sizeof(value) - len,
				 strcmp(value, running) ?
				 " (running %s: mismatch)" : "", running);
			print_field("built for:", value);
		} else if (!strcmp(key, "hooked_symbol")) {
			print_field("hooked symbol:", value);
		} else if (!strcmp(key, "probe_missed")) {
			/* Above 0, the compaction and reclaim counts are short. */
			print_field("probe missed:", value);
		}
	}
	free(text);
	return ret;
}

static int print_module_status(void)
{
	char path[PATH_MAX], line[256], value[300], key[32];
	unsigned int i;
	int ret;

	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/initstate");
	if (read_line(path, line, sizeof(line)))
		snprintf(line, sizeof(line), "unknown");
	snprintf(value, sizeof(value), "loaded (%s)", line);
	print_field("module:", value);
	ret = print_version_file();

	/* Module parameters show the live settings and need no root. */
	for (i = 0; i < THPNUMA_NR_SETTINGS; i++) {
		const struct thpnuma_setting *s = &thpnuma_settings[i];

		snprintf(key, sizeof(key), "%s:", s->name);
		if (read_param(s->name, line, sizeof(line)))
			print_field(key, "unknown");
		else if (format_setting(s, line, value, sizeof(value)))
			print_field(key, line);	/* another module's: as it is */
		else
			print_field(key, value);
	}
	return ret;
}

static int do_status(const struct command *cmd, int argc, char *argv[])
{
	char path[PATH_MAX], online[256];
	bool loaded = module_loaded();
	int ret, failed = 0;

	ret = parse_no_options(cmd, argc, argv, 0);
	if (ret >= 0)
		return ret;
	if (loaded)
		failed = print_module_status();
	else
		print_field("module:", "not loaded");
	/* LSB's "program is not running", as systemctl status says it. */
	ret = failed ? failed : loaded ? EXIT_OK : EXIT_NOT_LOADED;
	print_sysfs_choice("THP enabled:",
			   "kernel/mm/transparent_hugepage/enabled");
	print_sysfs_choice("THP defrag:",
			   "kernel/mm/transparent_hugepage/defrag");
	/* Under lockdown, debugfs' control files are closed (see the man page). */
	print_sysfs_choice("lockdown:", LOCKDOWN_FILE);
	sysfs_path(path, sizeof(path), "devices/system/node/online");
	if (read_line(path, online, sizeof(online))) {
		print_field("nodes online:", "unknown");
		return ret;
	}
	print_field("nodes online:", online);
	print_node_memory(online);
	if (loaded) {
		failed = print_node_budgets(online);
		if (failed && !ret)
			ret = failed;
	}
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
 * libkmod with the modprobe.d directories that options.c reads (the
 * standard ones, or THPNUMACTL_MODPROBE_D's), for the running kernel's
 * modules (or THPNUMACTL_KERNEL_RELEASE's).
 */
static struct kmod_ctx *kmod_context(void)
{
	char dir[PATH_MAX];
	struct kmod_ctx *ctx;

	snprintf(dir, sizeof(dir), "/lib/modules/%s", kernel_release());
	ctx = kmod_new(getenv(ENV_KERNEL_RELEASE) ? dir : NULL,
		       modprobe_dirs());
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

/* "6.1" of "6.1.0-57-amd64": the first two fields, as kernels.mk takes them. */
static void kernel_series(const char *release, char *buf, size_t len)
{
	size_t major = strcspn(release, ".");
	size_t minor = release[major] ? strcspn(release + major + 1, ".") : 0;

	snprintf(buf, len, "%.*s", (int)(major + (minor ? minor + 1 : 0)),
		 release);
}

/* Whether @series is in THPNUMA_SUPPORTED_SERIES; true if that is empty. */
static bool series_supported(const char *series)
{
	const char *p = THPNUMA_SUPPORTED_SERIES, *word;
	size_t len;

	if (!*p)
		return true;
	while ((word = kernel_arg_next(&p, &len)))
		if (len == strlen(series) && !strncmp(word, series, len))
			return true;
	return false;
}

/*
 * No module file for the running kernel. On a series the project does
 * not support, installing will not help: say so, and where DKMS says
 * what it built.
 */
static void explain_missing_module(void)
{
	const char *release = kernel_release(), *p = THPNUMA_SUPPORTED_SERIES;
	char series[64], list[128] = "", *end = list;
	const char *word;
	size_t len;

	kernel_series(release, series, sizeof(series));
	if (!series_supported(series)) {
		while ((word = kernel_arg_next(&p, &len)) &&
		       end + len + 3 < list + sizeof(list))
			end += sprintf(end, "%s%.*s", end == list ? "" : ", ",
				       (int)len, word);
		error(MODULE_NAME " does not support kernel %s (series %s; supported series: %s), so no module was built for it; 'dkms status "
		      MODULE_NAME "' lists the kernels it was built for",
		      release, series, list);
		return;
	}
	error("module " MODULE_NAME " not found in /lib/modules/%s; 'dkms status "
	      MODULE_NAME "' lists the kernels it was built for (DKMS builds it once this kernel's headers are installed: linux-headers-%s), or install it with 'make install' from the source, or pass --module PATH",
	      release, release);
}

/*
 * What load passes: modprobe.d's options it keeps, then its own, from the
 * settings file or, winning over it, from the command line.
 */
struct load_options {
	struct module_options conf;
	bool *keep;		/* per conf option */
	char ours[THPNUMA_NR_SETTINGS][THPNUMA_MAX_WRITE + 32];
	bool given[THPNUMA_NR_SETTINGS];
	/* "--policy", or the settings file's "FILE:LINE". */
	char source[THPNUMA_NR_SETTINGS][PATH_MAX + 16];
};

/* Setting @id given as @value, its parameter's text: "name=value". */
static void give_setting(struct load_options *lo, enum thpnuma_setting_id id,
			 const char *value)
{
	snprintf(lo->ours[id], sizeof(lo->ours[id]), "%s=%s",
		 thpnuma_settings[id].name, value);
	lo->given[id] = true;
}

static int given_setting(const struct load_options *lo, const char *name)
{
	unsigned int i;

	for (i = 0; i < THPNUMA_NR_SETTINGS; i++)
		if (lo->given[i] && !strcmp(name, thpnuma_settings[i].name))
			return i;
	return -1;
}

/*
 * Check every option modprobe.d and the kernel command line give thpnuma,
 * as the module would parse it, naming FILE:LINE of a bad one. An option
 * of ours replaces theirs of the same parameter, bad or not, except when
 * libkmod does the load (@via_modprobe): it passes them all.
 * Returns 0, or EXIT_USAGE after the messages.
 */
static int check_config_options(struct load_options *lo, bool via_modprobe)
{
	unsigned int i;
	bool bad = false;
	char why[512];
	int id;

	for (i = 0; i < lo->conf.nr; i++) {
		const struct module_option *o = &lo->conf.opt[i];

		id = given_setting(lo, o->name);
		lo->keep[i] = via_modprobe || id < 0;
		if (!module_option_check(o, why, sizeof(why)))
			continue;
		if (!lo->keep[i]) {
			notice("%s: %s; %s replaces it for this load, but modprobe would fail",
			       o->where, why, lo->source[id]);
			continue;
		}
		error("%s: %s", o->where, why);
		if (via_modprobe && id >= 0)
			error("modprobe.d has an install command or a softdep for " MODULE_NAME
			      ": libkmod passes its options as they are, and %s cannot replace them",
			      lo->source[id]);
		bad = true;
	}
	return bad ? EXIT_USAGE : 0;
}

/* The options as one string: modprobe.d's kept, ours, or both. */
static void join_options(const struct load_options *lo, bool conf,
			 bool ours, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; conf && i < lo->conf.nr && used < len; i++)
		if (lo->keep[i])
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", lo->conf.opt[i].word);
	for (i = 0; ours && i < THPNUMA_NR_SETTINGS && used < len; i++)
		if (lo->given[i])
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? " " : "", lo->ours[i]);
}

/*
 * zone_reclaim acts only under local-then-remote and budget, budget_us
 * only under budget: the kernel takes the last value of each parameter,
 * and a setting not given stays at the module's default (policy kernel,
 * zone_reclaim 0; budget_us is noted whenever it is given).
 */
static void note_unused_settings(const struct load_options *lo)
{
	const char *policy = thpnuma_policy_names[THPNUMA_POLICY_KERNEL];
	const char *zone_reclaim = "0";
	bool budget_us = lo->given[THPNUMA_SETTING_BUDGET_US];
	unsigned int i;

	for (i = 0; i < lo->conf.nr; i++) {
		const struct module_option *o = &lo->conf.opt[i];

		if (!lo->keep[i] || !o->value)
			continue;
		if (!strcmp(o->name, "policy"))
			policy = o->value;
		else if (!strcmp(o->name, "zone_reclaim"))
			zone_reclaim = o->value;
		else if (!strcmp(o->name, "budget_us"))
			budget_us = true;
	}
	if (lo->given[THPNUMA_SETTING_POLICY])
		policy = strchr(lo->ours[THPNUMA_SETTING_POLICY], '=') + 1;
	if (lo->given[THPNUMA_SETTING_ZONE_RECLAIM])
		zone_reclaim = strchr(lo->ours[THPNUMA_SETTING_ZONE_RECLAIM],
				      '=') + 1;
	if (strcmp(zone_reclaim, "0") && !policy_uses_zone_reclaim(policy))
		notice("zone_reclaim applies only under " ZONE_RECLAIM_POLICIES "; the policy will be %s",
		       policy);
	if (budget_us && !policy_uses_budget(policy))
		notice("budget_us applies only under budget; the policy will be %s",
		       policy);
}

/* An install command or a softdep: modprobe's rules, which libkmod runs. */
static bool needs_modprobe(struct kmod_module *mod)
{
	struct kmod_list *pre = NULL, *post = NULL;
	bool ret = kmod_module_get_install_commands(mod) != NULL;

	if (!ret && !kmod_module_get_softdeps(mod, &pre, &post))
		ret = pre || post;
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	return ret;
}

/*
 * Load what @mod depends on (modules.dep), then @mod with exactly
 * @options: not through kmod_module_probe_insert_module(), which would
 * put modprobe.d's options before ours, replaced or not.
 */
static int insert_direct(struct kmod_module *mod, const char *options,
			 bool dry_run)
{
	struct kmod_list *deps = kmod_module_get_dependencies(mod), *itr;
	unsigned int flags = KMOD_PROBE_IGNORE_LOADED;
	int err = 0;

	if (dry_run)
		flags |= KMOD_PROBE_DRY_RUN;
	kmod_list_foreach(itr, deps) {
		struct kmod_module *dep = kmod_module_get_module(itr);

		if (!err)
			err = kmod_module_probe_insert_module(dep, flags, NULL,
							      NULL, NULL,
							      print_action);
		kmod_module_unref(dep);
	}
	kmod_module_unref_list(deps);
	if (err)
		return err;
	if (dry_run) {
		print_action(mod, false, options);
		return 0;
	}
	return kmod_module_insert_module(mod, 0, options);
}

/*
 * The settings file's global settings become options of the load, unless
 * the command line gives them: given @path must exist, the default need
 * not. Returns 0 or an exit status after the messages.
 */
static int read_settings_file(struct load_options *lo, const char *path,
			      struct thpnuma_conf *settings)
{
	unsigned int id;
	char *p;
	int ret;

	ret = conf_read(path ? path : conf_default_path(), !path, settings);
	if (ret)
		return ret;
	for (id = 0; id < THPNUMA_NR_SETTINGS; id++) {
		const char *name = thpnuma_settings[id].name;

		if (lo->given[id]) {
			snprintf(lo->source[id], sizeof(lo->source[id]),
				 "--%s", name);
			for (p = lo->source[id]; *p; p++)
				if (*p == '_')
					*p = '-';
		} else if (settings->line[id]) {
			give_setting(lo, id, settings->value[id]);
			snprintf(lo->source[id], sizeof(lo->source[id]),
				 "%s:%u", settings->path, settings->line[id]);
		}
	}
	return 0;
}

static int do_load(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_DRY_RUN = 256 };
	/* No -n: that is --node, in every command that has one. */
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "budget-us", required_argument, NULL, 'b' },
		{ "scope", required_argument, NULL, 's' },
		{ "coverage", required_argument, NULL, 'c' },
		{ "module", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct load_options lo = { .keep = NULL };
	const char *module_path = NULL, *conf_path = NULL;
	struct thpnuma_conf settings;
	char config[4096], params[512], all[4608], what[PATH_MAX + 16];
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	unsigned int zone_reclaim, budget_us;
	char number[16];
	bool dry_run = false, via_modprobe;
	int c, id, ret, err, kmsg_fd;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":p:z:b:s:c:m:C:h", options, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 's':
		case 'c':
			id = c == 'p' ? THPNUMA_SETTING_POLICY :
			     c == 's' ? THPNUMA_SETTING_SCOPE :
			     THPNUMA_SETTING_COVERAGE;
			ret = check_choice(cmd, &thpnuma_settings[id], optarg);
			if (ret >= 0)
				return ret;
			give_setting(&lo, id, optarg);
			break;
		case 'z':
			ret = check_zone_reclaim(cmd, optarg, &zone_reclaim);
			if (ret >= 0)
				return ret;
			snprintf(number, sizeof(number), "%u", zone_reclaim);
			give_setting(&lo, THPNUMA_SETTING_ZONE_RECLAIM, number);
			break;
		case 'b':
			ret = check_budget_us(cmd, optarg, &budget_us);
			if (ret >= 0)
				return ret;
			snprintf(number, sizeof(number), "%u", budget_us);
			give_setting(&lo, THPNUMA_SETTING_BUDGET_US, number);
			break;
		case 'm':
			module_path = optarg;
			break;
		case 'C':
			conf_path = optarg;
			break;
		case OPT_DRY_RUN:
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
	ret = read_settings_file(&lo, conf_path, &settings);
	if (ret)
		return ret;
	/*
	 * As the module applies them: policy, zone_reclaim, scope, coverage,
	 * budget_us.
	 */
	join_options(&lo, false, true, params, sizeof(params));

	ret = EXIT_FAIL;
	ctx = NULL;
	if (geteuid() != 0 && !dry_run) {
		ret = needs_root("loading a kernel module");
		goto out;
	}
	ctx = kmod_context();
	if (!ctx)
		goto out;
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
		snprintf(what, sizeof(what), MODULE_NAME);
		err = kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
		if (err < 0) {
			error("cannot look up " MODULE_NAME ": %s",
			      strerror(-err));
			goto out;
		}
		if (kmod_module_get_initstate(mod) < 0 &&
		    !kmod_module_get_path(mod)) {
			explain_missing_module();
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

	ret = module_options_read(&lo.conf);
	if (ret)
		goto out;
	lo.keep = calloc(lo.conf.nr + 1, sizeof(*lo.keep));
	if (!lo.keep) {
		error("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	via_modprobe = needs_modprobe(mod);
	ret = check_config_options(&lo, via_modprobe);
	if (ret)
		goto out;
	note_unused_settings(&lo);
	join_options(&lo, true, false, config, sizeof(config));
	join_options(&lo, true, true, all, sizeof(all));

	ret = EXIT_FAIL;
	/*
	 * With an install command or a softdep, as modprobe does: libkmod
	 * runs them and puts modprobe.d's options before ours (the kernel
	 * applies the last value of a parameter).
	 */
	if (via_modprobe) {
		unsigned int flags = KMOD_PROBE_FAIL_ON_LOADED;

		if (dry_run)
			flags |= KMOD_PROBE_DRY_RUN;
		kmsg_fd = dry_run ? -1 : kmsg_open_at_end();
		err = kmod_module_probe_insert_module(mod, flags, params,
						      NULL, NULL,
						      dry_run ? print_action :
						      NULL);
	} else {
		kmsg_fd = dry_run ? -1 : kmsg_open_at_end();
		err = insert_direct(mod, all, dry_run);
	}
	if (err < 0) {
		if (dry_run) {
			error("cannot load %s: %s", what, strerror(-err));
			goto out;
		}
		ret = report_insert_failure(-err, what, kmsg_fd);
		goto out;
	}
	if (kmsg_fd >= 0)
		close(kmsg_fd);
	if (dry_run) {
		if (!dry_run_printed)
			printf("would load nothing\n");
	} else {
		printf("loaded %s", what);
		if (*config)
			printf(" with %s from modprobe.d", config);
		if (*params)
			printf("%s %s", *config ? " and" : " with", params);
		printf("\n");
	}
	/* The per-cgroup settings: the module now takes them. */
	ret = conf_apply(cmd, &settings, false, dry_run);
out:
	conf_free(&settings);
	module_options_free(&lo.conf);
	free(lo.keep);
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}

/* Who may hold a reference: tracers of the trace event, debugfs readers. */
static void explain_users(int refcnt)
{
	char dir[PATH_MAX], path[PATH_MAX + 16], line[16];
	char *text, *row, *save = NULL;

	error(MODULE_NAME " is in use (reference count %d): a tracer of " MODULE_NAME
	      ":thp_fault (perf, bpftrace, or a tracefs event or trigger on it) or an open file in debugfs holds it; stop them and try again",
	      refcnt);
	sysfs_path(dir, sizeof(dir), TRACE_EVENT_DIR);
	snprintf(path, sizeof(path), "%s/enable", dir);
	/* "1", or "1*" while a trigger holds it soft-disabled. */
	if (!read_line(path, line, sizeof(line)) && line[0] == '1')
		error("the " MODULE_NAME ":thp_fault event is enabled (echo 0 > %s)",
		      path);
	snprintf(path, sizeof(path), "%s/trigger", dir);
	text = read_text(path);
	for (row = text ? strtok_r(text, "\n", &save) : NULL; row;
	     row = strtok_r(NULL, "\n", &save)) {
		char *state = strstr(row, " [");

		if (row[0] == '#')
			continue;
		/* "hist:... [active]": the trigger is what precedes " [". */
		if (state)
			*state = '\0';
		error("a trigger is set on " MODULE_NAME ":thp_fault (%s: %s); remove it with: echo '!%s' >> %s",
		      path, row, row, path);
	}
	free(text);
}

/*
 * The checks rmmod makes before removing (not built in, no holders, no
 * references), from /sys/module/thpnuma as libkmod reads them: through
 * the sysfs root, so that the tests' tree stands in for it.
 */
static int check_unloadable(void)
{
	char path[PATH_MAX], line[32];
	struct dirent *ent;
	bool first = true;
	DIR *d;

	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/initstate");
	if (access(path, F_OK)) {
		sysfs_path(path, sizeof(path), "module/" MODULE_NAME);
		if (!access(path, F_OK))
			error(MODULE_NAME " is built into the kernel; it cannot be unloaded");
		else
			error(MODULE_NAME " is not loaded");
		return EXIT_FAIL;
	}
	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/holders");
	d = opendir(path);
	while (d && (ent = readdir(d))) {
		if (ent->d_name[0] == '.')
			continue;
		fprintf(stderr, "%s %s", first ? PROG ": " MODULE_NAME
			" is in use by other modules:" : "", ent->d_name);
		first = false;
	}
	if (d)
		closedir(d);
	if (!first) {
		fputc('\n', stderr);
		return EXIT_FAIL;
	}
	sysfs_path(path, sizeof(path), "module/" MODULE_NAME "/refcnt");
	if (!read_line(path, line, sizeof(line)) && atoi(line) > 0) {
		explain_users(atoi(line));
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * Overrides live in the module: unloading drops them, and a process
 * started with `run` goes on under the global policy. Refuse unless the
 * admin says --force.
 */
static int check_no_overrides(void)
{
	struct task_list tl;
	int ret = read_overrides(&tl);

	if (ret) {
		error("cannot tell whether processes have per-process overrides, which unloading would lose; unload --force unloads anyway");
		return EXIT_FAIL;
	}
	if (tl.nr) {
		error("%u process%s a per-process override; unloading would lose %s:",
		      tl.nr, tl.nr == 1 ? " has" : "es have",
		      tl.nr == 1 ? "it" : "them");
		tasks_write_table(stderr, &tl);
		error("unload --force unloads anyway and the overrides are lost (after the next load, set them again with '"
		      PROG " task PID POLICY')");
		ret = EXIT_FAIL;
	}
	tasks_free(&tl);
	return ret;
}

/* The same for per-cgroup settings. */
static int check_no_cgroup_settings(void)
{
	struct cgroup_list cl;
	int ret = read_cgroups(&cl);

	if (ret) {
		error("cannot tell whether cgroups have settings, which unloading would lose; unload --force unloads anyway");
		return EXIT_FAIL;
	}
	if (cl.nr) {
		error("%u cgroup%s a setting; unloading would lose %s:", cl.nr,
		      cl.nr == 1 ? " has" : "s have",
		      cl.nr == 1 ? "it" : "them");
		cgroups_write_table(stderr, &cl);
		error("unload --force unloads anyway and the settings are lost (after the next load, set them again with '"
		      PROG " cgroup PATH POLICY')");
		ret = EXIT_FAIL;
	}
	cgroups_free(&cl);
	return ret;
}

static int do_unload(const struct command *cmd, int argc, char *argv[])
{
	enum { OPT_FORCE = 256 };
	static const struct option options[] = {
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	struct kmod_module *mod = NULL;
	struct kmod_ctx *ctx;
	bool force = false;
	int c, ret, err;

	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == OPT_FORCE) {
			force = true;
		} else if (c == 'h') {
			show_help(cmd);
			return EXIT_OK;
		} else {
			return option_error(cmd, c, argv);
		}
	}
	if (optind < argc)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind]);
	if (geteuid() != 0)
		return needs_root("unloading a kernel module");
	ret = check_unloadable();
	if (!ret && !force)
		ret = check_no_overrides();
	if (!ret && !force)
		ret = check_no_cgroup_settings();
	if (ret)
		return ret;
	/* The checks read a test tree: the running kernel's module is not it. */
	if (getenv(ENV_SYSFS)) {
		error(ENV_SYSFS " is set: not unloading the running kernel's " MODULE_NAME);
		return EXIT_FAIL;
	}
	ctx = kmod_context();
	if (!ctx)
		return EXIT_FAIL;
	ret = EXIT_FAIL;
	err = kmod_module_new_from_name(ctx, MODULE_NAME, &mod);
	if (err < 0) {
		error("cannot look up " MODULE_NAME ": %s", strerror(-err));
		goto out;
	}
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
	"load [--policy P] [--zone-reclaim N] [--budget-us US]\n"
	"                       [--scope S] [--coverage C] [--module PATH]\n"
	"                       [--config FILE] [--dry-run]\n"
	"Load thpnuma through libkmod: from /lib/modules/$(uname -r), or from\n"
	"PATH. Its options come from modprobe.d (\"options thpnuma policy=...\")\n"
	"and the kernel command line (thpnuma.policy=...), then from the\n"
	"settings file (/etc/thpnuma.conf), then from here: a later source\n"
	"replaces a setting an earlier one gives. Every option and the whole\n"
	"settings file are checked first: a bad one is named with its FILE:LINE\n"
	"and nothing is loaded (exit status 2). Once loaded, the file's\n"
	"per-cgroup settings are applied. Needs root.\n\n"
	"  -p, --policy P        " THPNUMA_POLICY_CHOICES "\n"
	"  -z, --zone-reclaim N  0-7, none, or a comma list of reclaim,write,swap\n"
	"  -b, --budget-us US    budget's bound on local effort, 1-1000000\n"
	"                        microseconds (default 1000)\n"
	"  -s, --scope S         " THPNUMA_SCOPE_CHOICES "\n"
	"  -c, --coverage C      " THPNUMA_COVERAGE_CHOICES "\n"
	"  -m, --module PATH     load this .ko file instead\n"
	"  -C, --config FILE     the settings file (default /etc/thpnuma.conf,\n"
	"                        which need not exist)\n"
	"      --dry-run         print the module, options and settings, load nothing\n"
	"  -h, --help            show this help\n\n"
	"Examples:\n"
	"  thpnumactl load --policy strict-local\n"
	"  thpnumactl load --dry-run\n"
	"  thpnumactl load --policy local-then-remote --zone-reclaim reclaim,write\n"
	"  thpnumactl load --policy budget --budget-us 500\n"
	"  thpnumactl load --module ./thpnuma.ko --scope madvise\n",
};

const struct command cmd_unload = {
	.name = "unload", .run = do_unload,
	.summary = "unload the module if nothing uses it",
	.usage =
	"unload [--force]\n"
	"Unload thpnuma, after checking that no module holds it and its\n"
	"reference count is zero, as rmmod does (a tracer of thpnuma:thp_fault\n"
	"or an open debugfs file holds a reference), and that no process has\n"
	"a per-process override and no cgroup a setting, which unloading would\n"
	"lose. Needs root.\n\n"
	"      --force   unload even if there are overrides or cgroup settings\n"
	"                (they are lost)\n"
	"  -h, --help    show this help\n\n"
	"Examples:\n"
	"  thpnumactl unload\n"
	"  thpnumactl unload --force\n",
};

const struct command cmd_status = {
	.name = "status", .run = do_status,
	.summary = "module, settings, THP mode and node memory",
	.usage =
	"status\n"
	"Show whether thpnuma is loaded, its version, the kernel it was built\n"
	"for, the hooked symbol, THP allocations that bypassed the policy\n"
	"(unmatched calls), its settings, the kernel's THP mode and the free\n"
	"memory of each online node. Exit status 0 when thpnuma is loaded, 3\n"
	"when it is not (LSB's \"not running\").\n\n"
	"Example:\n"
	"  thpnumactl status\n",
};
