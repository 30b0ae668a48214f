/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `thpnumactl compare` measured, shared by its runner (cmd-compare.c)
 * and its writers (compare-report.c): text, JSON and an SVG chart.
 */
#ifndef THPNUMACTL_COMPARE_REPORT_H
#define THPNUMACTL_COMPARE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "compare-stats.h"
#include "counters.h"
#include "hist.h"

/* System-wide /proc/vmstat deltas of a run: other tasks' count too. */
#define COMPARE_SYSTEM_COUNTERS(C)					\
	C(SWAP_OUT,	 "pswpout",	  "swap_outs")			\
	C(DIRECT_RECLAIM, "allocstall",	  "direct_reclaim_stalls")	\
	C(DIRECT_SCAN,	 "pgscan_direct", "direct_reclaim_scanned")	\
	C(COMPACT_STALL, "compact_stall", "compaction_stalls")

#define COMPARE_SYSTEM_ENUM(id, prefix, name)	COMPARE_SYS_##id,
enum compare_system_counter {
	COMPARE_SYSTEM_COUNTERS(COMPARE_SYSTEM_ENUM)
	COMPARE_NR_SYSTEM
};

struct compare_run {
	unsigned int arm;		/* index into the policies */
	unsigned int round;
	unsigned int seq;		/* 1-based, in the order run */
	int status;			/* exit status, or 128 + signal */
	bool ok;			/* exited 0 and gave its figure */
	const char *why;		/* why not ok, or NULL */
	double value;			/* the figure */
	double wall_s;
	uint64_t counter[THPNUMA_NR_CGROUP_COUNTERS];
	struct hist_counts alloc;	/* every outcome's allocations */
	uint64_t system[COMPARE_NR_SYSTEM];
};

struct compare_arm {
	char spec[48];			/* as given: "local-then-remote:5" */
	const char *policy;
	int zone_reclaim;		/* -1: the global setting */
	struct compare_summary summary;	/* of its successful runs */
	unsigned int nr_ok;
	struct compare_result vs_base;	/* against the baseline arm */
};

struct compare_report {
	char *const *argv;		/* the command */
	const char *metric;		/* --metric's regex, or NULL: wall time */
	bool higher_better;
	double confidence, threshold;
	unsigned int rounds, nr_arms, base, best;
	struct compare_arm *arms;
	unsigned int nr_runs;
	struct compare_run *runs;
	/* arm i against arm j (i != j) at pair[i * nr_arms + j] */
	struct compare_result *pair;
};

/* Summaries, comparisons and the best arm, from the runs. */
void compare_analyze(struct compare_report *r);
void compare_write_text(FILE *out, const struct compare_report *r);
void compare_write_json(FILE *out, const struct compare_report *r);
void compare_write_svg(FILE *out, const struct compare_report *r);
/* The verdict in one sentence. */
void compare_verdict(char *buf, size_t len, const struct compare_report *r);

#endif /* THPNUMACTL_COMPARE_REPORT_H */
