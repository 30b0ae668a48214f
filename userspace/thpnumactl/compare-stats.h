/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of `thpnumactl compare`: medians and spread of each
 * policy's runs, a two-sided Mann-Whitney rank test between two policies,
 * a bootstrap confidence interval of the ratio of their medians, and the
 * verdict they make together. Deterministic: the bootstrap has a fixed
 * seed. No I/O.
 */
#ifndef THPNUMACTL_COMPARE_STATS_H
#define THPNUMACTL_COMPARE_STATS_H

#include <stdbool.h>

/* Bootstrap resamples per interval. */
#define COMPARE_RESAMPLES	4000

struct compare_summary {
	unsigned int n;
	double median, min, max, q1, q3;	/* q1, q3: the quartiles */
};

/* @v (@n > 0) is left as it is. */
void compare_summarize(const double *v, unsigned int n,
		       struct compare_summary *s);

/*
 * The two-sided p value of the Mann-Whitney U test of @a against @b, ties
 * at mid-ranks: exact (every split of the pooled runs) up to a million
 * splits, else the normal approximation with the tie correction. 1 when
 * either side is empty.
 */
double compare_rank_test(const double *a, unsigned int na,
			 const double *b, unsigned int nb);

/*
 * The percentile bootstrap interval at @level (0.95) of median(@a) /
 * median(@b), each side resampled on its own. Medians of zero on the
 * @b side are skipped; *@lo = *@hi = NaN when no resample is usable.
 */
void compare_ratio_interval(const double *a, unsigned int na,
			    const double *b, unsigned int nb, double level,
			    double *lo, double *hi);

enum compare_outcome {
	COMPARE_TOO_FEW,	/* fewer than 2 runs on a side */
	COMPARE_NO_DIFFERENCE,	/* p >= 1 - confidence */
	COMPARE_BELOW_THRESHOLD, /* significant, but under --threshold */
	COMPARE_BETTER,		/* a beats b */
	COMPARE_WORSE,		/* b beats a */
};

extern const char *const compare_outcome_names[];

struct compare_result {
	double ratio;		/* median(a) / median(b); NaN if median(b) is 0 */
	double lo, hi;		/* its interval at the confidence */
	double p;
	enum compare_outcome outcome;
};

/*
 * @a against @b. @higher_better: the figure's direction. @confidence in
 * (0, 1); a significant difference smaller than @threshold (0.01: 1%) of
 * median(b) is COMPARE_BELOW_THRESHOLD.
 */
void compare_two(const double *a, unsigned int na, const double *b,
		 unsigned int nb, bool higher_better, double confidence,
		 double threshold, struct compare_result *r);

#endif /* THPNUMACTL_COMPARE_STATS_H */
