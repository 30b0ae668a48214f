/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsers for thpnuma's tasks, cgroups and policies files, and their
 * table and JSON writers. No I/O besides the FILE * given.
 */
#ifndef THPNUMACTL_OVERRIDES_H
#define THPNUMACTL_OVERRIDES_H

#include <stdint.h>
#include <stdio.h>
#include "counters.h"

/* One line of the tasks file: "pid comm policy zone_reclaim budget_us". */
struct task_entry {
	int pid;
	char comm[64];		/* unescaped */
	char policy[32];
	int zone_reclaim;	/* -1: follows the global setting */
	int budget_us;		/* -1: follows the global setting */
};

struct task_list {
	unsigned int nr;
	struct task_entry *tasks;
};

/* One line of the cgroups file: "path policy zone_reclaim budget_us". */
struct cgroup_entry {
	char *path;		/* a cgroup v2 path, such as /system.slice */
	char policy[32];
	int zone_reclaim;	/* -1: follows the global setting */
	int budget_us;		/* -1: follows the global setting */
};

struct cgroup_list {
	unsigned int nr;
	struct cgroup_entry *cgroups;
};

/*
 * One row of the policies file: "policy tasks <policy counters...>".
 * tasks is the number of overrides to the policy, not a fault counter.
 */
struct policy_row {
	char policy[32];
	uint64_t tasks;
	uint64_t counter[THPNUMA_NR_POLICY_COUNTERS];
};

struct policy_table {
	unsigned int nr;
	struct policy_row *rows;
};

/* On failure: -EINVAL or -ENOMEM, and a one-line reason in @err. */
int tasks_parse(const char *text, struct task_list *tl, char *err,
		size_t errlen);
void tasks_free(struct task_list *tl);
const struct task_entry *tasks_find(const struct task_list *tl, int pid);
/* Command names with non-printable bytes escaped as \ooo (escape_text). */
void tasks_write_table(FILE *out, const struct task_list *tl);
void tasks_write_json(FILE *out, const struct task_list *tl);

/* On failure: -EINVAL or -ENOMEM, and a one-line reason in @err. */
int cgroups_parse(const char *text, struct cgroup_list *cl, char *err,
		  size_t errlen);
void cgroups_free(struct cgroup_list *cl);
const struct cgroup_entry *cgroups_find(const struct cgroup_list *cl,
					const char *path);
/* The setting that applies to @path: its own or its nearest ancestor's. */
const struct cgroup_entry *cgroups_applying(const struct cgroup_list *cl,
					    const char *path);
void cgroups_write_table(FILE *out, const struct cgroup_list *cl);
void cgroups_write_json(FILE *out, const struct cgroup_list *cl);

int policies_parse(const char *text, struct policy_table *pt, char *err,
		   size_t errlen);
void policies_free(struct policy_table *pt);
void policies_write_table(FILE *out, const struct policy_table *pt);
void policies_write_json(FILE *out, const struct policy_table *pt);
/* thpnuma_policy_tasks and thpnuma_policy_<counter>_total{policy=...} */
void policies_write_prometheus(FILE *out, const struct policy_table *pt);

#endif /* THPNUMACTL_OVERRIDES_H */
