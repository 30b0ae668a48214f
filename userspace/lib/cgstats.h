/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-cgroup counters (cgroup_stats) and latency histograms
 * (cgroup_hist) of /sys/kernel/thpnuma, parsed and joined by cgroup, and
 * their table, JSON and Prometheus writers. No I/O besides the FILE *
 * given.
 */
#ifndef THPNUMA_CGSTATS_H
#define THPNUMA_CGSTATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"
#include "hist.h"

/* What one cgroup's setting decided. */
struct cgroup_stats_row {
	char *path;
	uint64_t counter[THPNUMA_NR_CGROUP_COUNTERS];
	struct hist_counts hist[THPNUMA_NR_HIST_OUTCOMES];
};

struct cgroup_stats {
	unsigned int nr;
	struct cgroup_stats_row *rows;	/* by path */
};

/*
 * Both files whole. Each cgroup's histograms come from @hist_text, read
 * after @stats_text: a cgroup in only one of them (a setting made or
 * removed in between) is left out. Returns 0, or -EINVAL (-ENOMEM) with
 * a one-line reason naming the file and line in @err.
 */
int cgroup_stats_parse(const char *stats_text, const char *hist_text,
		       struct cgroup_stats *cs, char *err, size_t errlen);
void cgroup_stats_free(struct cgroup_stats *cs);

void cgroup_stats_write_table(FILE *out, const struct cgroup_stats *cs);
void cgroup_stats_write_json(FILE *out, const struct cgroup_stats *cs);
void cgroup_stats_write_prometheus(FILE *out, const struct cgroup_stats *cs);

#endif /* THPNUMA_CGSTATS_H */
