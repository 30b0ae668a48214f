/* SPDX-License-Identifier: GPL-2.0 */
/*
 * thpnumactl's shared declarations: the command descriptor every cmd-*.c
 * file ends with, exit codes, paths, and the helpers of cli.c and files.c.
 */
#ifndef THPNUMACTL_H
#define THPNUMACTL_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "policy.h"
#include "text.h"

#ifndef THPNUMA_VERSION
#define THPNUMA_VERSION "unknown"
#endif
/* kernels.mk's SUPPORTED_SERIES: "5.10 6.1 ...". */
#ifndef THPNUMA_SUPPORTED_SERIES
#define THPNUMA_SUPPORTED_SERIES ""
#endif

#define PROG			"thpnumactl"
#define MODULE_NAME		"thpnuma"
#define DEBUGFS_MOUNT		"/sys/kernel/debug"
#define DEFAULT_DEBUGFS_DIR	DEBUGFS_MOUNT "/" MODULE_NAME
#define DEFAULT_SYSFS_ROOT	"/sys"
/* Under the sysfs root: the settings, and tasks and reset (lockdown-proof). */
#define PARAMS_DIR		"module/" MODULE_NAME "/parameters"
#define CONTROL_DIR		"kernel/" MODULE_NAME
#define LOCKDOWN_FILE		"kernel/security/lockdown"
/* Under the sysfs root: tracefs' directory of thpnuma's trace event. */
#define TRACE_EVENT_DIR		"kernel/tracing/events/" MODULE_NAME "/thp_fault"
#define DEFAULT_CMDLINE		"/proc/cmdline"
/* Test hooks: point the tool at a fake directory tree. */
#define ENV_DEBUGFS		"THPNUMACTL_DEBUGFS"
#define ENV_SYSFS		"THPNUMACTL_SYSFS"
/* Test hook: read modprobe.d options from these directories (a:b) alone. */
#define ENV_MODPROBE_D		"THPNUMACTL_MODPROBE_D"
/* Test hooks: another kernel command line, another kernel release. */
#define ENV_CMDLINE		"THPNUMACTL_CMDLINE"
#define ENV_KERNEL_RELEASE	"THPNUMACTL_KERNEL_RELEASE"
/* The settings file load and apply read; a test hook names another. */
#define DEFAULT_CONF_FILE	"/etc/" MODULE_NAME ".conf"
#define ENV_CONF		"THPNUMACTL_CONF"
/* Test hook: another /proc/self/mountinfo, for the cgroup2 mount. */
#define ENV_MOUNTINFO		"THPNUMACTL_MOUNTINFO"
#define MOUNT_HINT		"mount -t debugfs none " DEBUGFS_MOUNT

/* The contract: 0 success, 1 runtime failure, 2 usage error. */
enum {
	EXIT_OK		= 0,
	EXIT_FAIL	= 1,
	EXIT_USAGE	= 2,
	EXIT_NOT_LOADED	= 3,	/* status only */
};

struct command {
	const char *name;
	int (*run)(const struct command *cmd, int argc, char *argv[]);
	const char *summary;
	const char *usage;	/* full --help text: options and examples */
};

/* In the order `thpnumactl --help` lists them (thpnumactl.c). */
extern const struct command cmd_load, cmd_unload, cmd_status;	/* cmd-module.c */
extern const struct command cmd_policy, cmd_zone_reclaim, cmd_budget_us,
	cmd_scope, cmd_coverage, cmd_reset;			/* cmd-settings.c */
extern const struct command cmd_stat, cmd_watch;		/* cmd-stat.c */
extern const struct command cmd_hist;				/* cmd-hist.c */
extern const struct command cmd_run, cmd_tasks, cmd_task,
	cmd_policies;						/* cmd-tasks.c */
extern const struct command cmd_cgroups, cmd_cgroup;		/* cmd-cgroups.c */
extern const struct command cmd_apply;				/* cmd-apply.c */
extern const struct command cmd_compare;			/* cmd-compare.c */
extern const struct command cmd_help;				/* thpnumactl.c */

/* ---- cli.c: messages, options, names -------------------------------- */

/* "thpnumactl: message" on stderr. */
void error(const char *fmt, ...) __printf(1, 2);
/* "thpnumactl: note: message" on stderr: worth knowing, not a failure. */
void notice(const char *fmt, ...) __printf(1, 2);
/* "thpnumactl CMD: message" and a pointer to --help; returns EXIT_USAGE. */
int usage_error(const struct command *cmd, const char *fmt, ...)
	__printf(2, 3);
/* For getopt_long's '?' and ':' returns (opterr is off). */
int option_error(const struct command *cmd, int c, char *argv[]);
int needs_root(const char *what);
void show_help(const struct command *cmd);

/*
 * The options of commands without their own: --help, and --json where
 * @json is not NULL. Returns -1 to go on, else the exit status.
 */
int parse_simple_options(const struct command *cmd, int argc, char *argv[],
			 int max_args, bool *json);
int parse_no_options(const struct command *cmd, int argc, char *argv[],
		     int max_args);

/* The run-time setting called @name ("zone_reclaim" or "zone-reclaim"). */
const struct thpnuma_setting *setting_by_name(const char *name);
int lookup_name(const char *name, const char *const *names, unsigned int nr);
void join_names(char *buf, size_t len, const char *const *names,
		unsigned int nr);
/*
 * Whether the module takes @value for setting @s, through the module's
 * own parser: 0, or -EINVAL and "invalid policy 'x' (valid: ...)" in @why.
 */
int setting_value_error(const struct thpnuma_setting *s, const char *value,
			char *why, size_t len);
/*
 * @value, as setting @s's module parameter shows it ("strict-local", "5",
 * "1000"), as thpnumactl prints it ("strict-local", "5 (reclaim,swap)",
 * "1000"); -EINVAL if the module would not show @value.
 */
int format_setting(const struct thpnuma_setting *s, const char *value,
		   char *buf, size_t len);
/* "policy, zone_reclaim, ...": every setting's name. */
void setting_names(char *buf, size_t len);
/* -1 if @name is one of @s's choices, else a usage error's exit status. */
int check_choice(const struct command *cmd, const struct thpnuma_setting *s,
		 const char *name);
/* The same for a policy name. */
int check_policy(const struct command *cmd, const char *name);

#define ZONE_RECLAIM_VALUES \
	"0-7, none, or a comma list of reclaim,write,swap"
/* One of ZONE_RECLAIM_VALUES into @bits: 0 or -EINVAL. */
int parse_zone_reclaim(const char *text, unsigned int *bits);
/* The same, but -1 to go on, else a usage error's exit status. */
int check_zone_reclaim(const struct command *cmd, const char *text,
		       unsigned int *bits);
/* "5 (reclaim,swap)" */
void format_zone_reclaim(char *buf, size_t len, unsigned int bits);
/* The policies zone_reclaim acts under, for notes, and the test. */
#define ZONE_RECLAIM_POLICIES	"local-then-remote and budget"
bool policy_uses_zone_reclaim(const char *policy);

/* budget_us as the module takes it, in microseconds: 0 or -EINVAL. */
int parse_budget_us(const char *text, unsigned int *us);
/* The same, but -1 to go on, else a usage error's exit status. */
int check_budget_us(const struct command *cmd, const char *text,
		    unsigned int *us);
/* budget_us acts only under budget. */
bool policy_uses_budget(const char *policy);
/* A time for people: "812 ns", "250 us", "1.23 ms", "2 s". */
void format_duration(char *buf, size_t len, unsigned long long ns);

/*
 * The options of run, task and cgroup: --policy, --user (run),
 * --zone-reclaim, --budget-us.
 */
struct override_options {
	const char *policy;
	int zone_reclaim;	/* -1: not given */
	int budget_us;		/* -1: not given */
	const char *user;
};

/* -1 to go on, else the exit status; @optstring says which apply. */
int parse_override_options(const struct command *cmd, int argc,
			   char *argv[], const char *optstring,
			   struct override_options *o);
/*
 * -1 to go on, else a usage error's exit status: --zone-reclaim and
 * --budget-us need a POLICY other than "default".
 */
int check_override_policy(const struct command *cmd,
			  const struct override_options *o);
/*
 * What a tasks or cgroups write takes after the PID or path, shortest:
 * "POLICY", "POLICY ZONE_RECLAIM" or "POLICY ZONE_RECLAIM|- BUDGET_US";
 * -1 follows the global setting.
 */
void format_override_words(char *buf, size_t len, const char *policy,
			   int zone_reclaim, int budget_us);
/* Notes for a @noun ("override", "setting") whose policy ignores a setting. */
void note_override_settings(const char *policy, int zone_reclaim,
			    int budget_us, const char *noun);

/* ---- files.c: debugfs and sysfs ------------------------------------- */

const char *debugfs_dir(void);
const char *sysfs_root(void);
void debugfs_path(char *buf, size_t len, const char *file);
void sysfs_path(char *buf, size_t len, const char *rel);

/* First line of a small file, newline stripped; -errno on failure. */
int read_line(const char *path, char *out, size_t len);
/* One write(2) per value: the module takes one whole value per write. */
int write_value(const char *path, const char *value);

bool module_loaded(void);
/* 0 if thpnuma is loaded, else an exit status after saying how to load it. */
int ensure_module(void);
/* uname -r, or THPNUMACTL_KERNEL_RELEASE. */
const char *kernel_release(void);
/*
 * The current value of module parameter @name into @buf (newline
 * stripped); -errno if it cannot be read.
 */
int read_param(const char *name, char *buf, size_t len);
/*
 * Write @value ("strict-local", "5") to @s's module parameter. Returns
 * 0, or an exit status after saying why it was not set.
 */
int write_param(const struct thpnuma_setting *s, const char *value);
/*
 * The kernel's lockdown level ("integrity", "confidentiality") into @buf;
 * false if lockdown is off or unknown.
 */
bool lockdown_active(char *buf, size_t len);
/*
 * Whether this kernel has debugfs disabled: debugfs=off or =no-mount on
 * its command line (named in @why), or no debugfs among its filesystems.
 */
bool debugfs_disabled(char *why, size_t len);
/* reach_debugfs()'s return when the kernel has debugfs disabled. */
#define DEBUGFS_DISABLED	(-ENODEV)
/*
 * Make sure thpnuma's debugfs directory is reachable: mount debugfs if
 * it is not mounted and we may. Returns 0; DEBUGFS_DISABLED, with the
 * reason in @why and nothing printed; or an exit status after saying
 * exactly what is missing.
 */
int reach_debugfs(char *why, size_t len);
/*
 * Why a debugfs file could not be read or written, in words: root is
 * never told to run as root; under lockdown, what lockdown blocks.
 */
int debugfs_failure(const char *verb, const char *file, int err);
/* The same for a sysfs file at @path. */
int sysfs_failure(const char *verb, const char *path, int err);
/*
 * Debugfs @file whole into *@text (free it). Returns 0, or an exit
 * status after saying why.
 */
int read_debugfs(const char *file, char **text);
/* A debugfs file's contents were not what thpnumactl understands. */
int debugfs_parse_failure(const char *file, const char *reason);

/*
 * The counters, from sysfs, which any user may read: @file is a per-node
 * table (stats, hist, orders), its nodes' files joined into the debugfs
 * table, or another of CONTROL_DIR's files (policies, version). Whole
 * into *@text (free it); returns 0, or an exit status after saying why.
 */
int read_counters(const char *file, char **text);
/* Where read_counters() reads @file, "node*" standing for every node. */
void counters_path(char *buf, size_t len, const char *file);
/* What read_counters() returned was not what thpnumactl understands. */
int counters_parse_failure(const char *file, const char *reason);
/*
 * A write refused with ENOSPC: "the @what table is full (@param=N); clear
 * one with 'thpnumactl @clear' or load with a larger @param".
 */
int table_full(const char *what, const char *param, const char *clear);

/* ---- report.c: what stat and hist share ----------------------------- */

enum report_format { REPORT_TEXT, REPORT_JSON, REPORT_PROMETHEUS };

struct report_options {
	int node;			/* -1: every node */
	enum report_format format;
	const char *output;		/* -o FILE; NULL: stdout */
};

/* A per-node counter table and how to show it; @data is what read fills. */
struct report_source {
	/* 0, or an exit status after a message. */
	int (*read)(void *data);
	/* Keep only @node; non-zero if there is no such node. NULL: no -n. */
	int (*select_node)(void *data, int node);
	/* Writes @data to @out in @ro->format; returns an exit status. */
	int (*write)(FILE *out, const struct report_options *ro,
		     const void *data);
	void (*free)(void *data);
};

/*
 * A report command: parse [-n NODE] [--json | --prometheus] [-o FILE]
 * [-h], then read into @data, keep NODE and write, all through @src. -o
 * writes a temporary file renamed over FILE once complete: on any failure
 * FILE is left as it was. Returns the exit status.
 */
int run_report(const struct command *cmd, int argc, char *argv[],
	       const struct report_source *src, void *data);

/* ---- options.c: load-time options -------------------------------------- */

/* One NAME=VALUE word for the module, and where it was written. */
struct module_option {
	char *word;	/* as written, quotes included: what the kernel gets */
	char *name;	/* as the kernel matches it: '-' read as '_' */
	char *value;	/* unquoted; NULL without '=' */
	char *where;	/* "FILE:LINE" or "kernel command line" */
};

struct module_options {
	unsigned int nr;
	struct module_option *opt;
};

/* The modprobe.d directories libkmod reads (THPNUMACTL_MODPROBE_D). */
const char *const *modprobe_dirs(void);
/* /proc/cmdline, or THPNUMACTL_CMDLINE. */
const char *cmdline_path(void);
/*
 * The next word of a kernel parameter string from *@p, as the kernel
 * splits them (double quotes keep spaces); NULL at the end.
 */
const char *kernel_arg_next(const char **p, size_t *len);
/* The value of the last @name=VALUE on the kernel command line. */
bool kernel_cmdline_param(const char *name, char *buf, size_t len);
/*
 * thpnuma's options in modprobe.d, in libkmod's order, then those of the
 * kernel command line. Returns 0 or an exit status after a message.
 */
int module_options_read(struct module_options *mo);
void module_options_free(struct module_options *mo);
/*
 * 0 if the module takes @o, else -EINVAL and why in @why: an unknown
 * parameter, no value, or a value its parser refuses.
 */
int module_option_check(const struct module_option *o, char *why,
			size_t len);

/* ---- cmd-tasks.c ----------------------------------------------------- */

struct cgroup_list;
struct policy_table;
struct task_list;
/* The policies file, parsed; 0 or an exit status after a message. */
int read_policies(struct policy_table *pt);
/*
 * The per-process overrides: debugfs' overrides file, or, when the kernel
 * has debugfs disabled, /sys/kernel/thpnuma/tasks. Returns 0 or an exit
 * status after a message.
 */
int read_overrides(struct task_list *tl);
/* The per-cgroup settings, parsed; 0 or an exit status after a message. */
int read_cgroups(struct cgroup_list *cl);
/*
 * The per-cgroup counters into @data, a struct cgroup_stats: both
 * world-readable files, the histograms read second. 0 or an exit status
 * after a message.
 */
int read_cgroup_stats(void *data);
/*
 * @arg, a cgroup v2 path or its directory under the cgroup2 mount, as the
 * module takes it, into @out. Returns 0; -ENOENT, with nothing printed,
 * when there is no such cgroup and @missing_ok; else an exit status after
 * a message.
 */
int resolve_cgroup(const struct command *cmd, const char *arg, char *out,
		   size_t len, bool missing_ok);
/*
 * Set @cgroup's @policy, @zone_reclaim and @budget_us (-1: the global
 * one), or clear it with policy "default". The same returns as
 * resolve_cgroup().
 */
int write_cgroup_setting(const char *cgroup, const char *policy,
			 int zone_reclaim, int budget_us, bool missing_ok);
/*
 * This process's cgroup on the cgroup v2 hierarchy, as a directory under
 * the cgroup2 mount. Returns 0, or an exit status after a message.
 */
int own_cgroup_dir(char *dir, size_t len);

/* ---- conffile.c: the settings file ------------------------------------- */

/* A per-cgroup line: "cgroup PATH POLICY [ZONE_RECLAIM [BUDGET_US]]". */
struct conf_cgroup {
	char *path;		/* as written: a cgroup path or its directory */
	const char *policy;	/* one of thpnuma_policy_names */
	int zone_reclaim;	/* -1: the global setting */
	int budget_us;		/* -1: the global setting */
	unsigned int line;
};

struct thpnuma_conf {
	char path[PATH_MAX];
	/* Per run-time setting: the parameter's value, its line (0: unset). */
	char value[THPNUMA_NR_SETTINGS][THPNUMA_MAX_WRITE + 1];
	unsigned int line[THPNUMA_NR_SETTINGS];
	unsigned int nr_cgroups;
	struct conf_cgroup *cgroups;
};

/* THPNUMACTL_CONF, or /etc/thpnuma.conf. */
const char *conf_default_path(void);
/*
 * Read and check @path whole. Returns 0 (with nothing set when @path does
 * not exist and @optional); EXIT_USAGE after naming FILE:LINE of every
 * bad line; or EXIT_FAIL when it cannot be read.
 */
int conf_read(const char *path, bool optional, struct thpnuma_conf *conf);
void conf_free(struct thpnuma_conf *conf);
bool conf_empty(const struct thpnuma_conf *conf);
/*
 * Apply the global settings (when @settings) through the module
 * parameters, then the per-cgroup ones, printing each, or what it would
 * do when @dry_run. A cgroup that does not exist yet gets a note. Returns
 * an exit status.
 */
int conf_apply(const struct command *cmd, const struct thpnuma_conf *conf,
	       bool settings, bool dry_run);

#endif /* THPNUMACTL_H */
