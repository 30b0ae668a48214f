// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics of `thpnumactl compare` (compare-stats.h).
 */
#include "compare-stats.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Splits of the pooled runs the exact rank test enumerates at most. */
#define EXACT_SPLITS	1000000.0

const char *const compare_outcome_names[] = {
	[COMPARE_TOO_FEW]		= "too-few-runs",
	[COMPARE_NO_DIFFERENCE]		= "no-difference",
	[COMPARE_BELOW_THRESHOLD]	= "below-threshold",
	[COMPARE_BETTER]		= "better",
	[COMPARE_WORSE]			= "worse",
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double *sorted_copy(const double *v, unsigned int n)
{
	double *s = malloc((n ? n : 1) * sizeof(*s));

	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* The @q quantile of sorted @s, interpolated between neighbours. */
static double quantile(const double *s, unsigned int n, double q)
{
	double pos = q * (n - 1);
	unsigned int i = (unsigned int)pos;

	if (i + 1 >= n)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

void compare_summarize(const double *v, unsigned int n,
		       struct compare_summary *s)
{
	double *sorted = sorted_copy(v, n);

	s->n = n;
	s->min = sorted[0];
	s->max = sorted[n - 1];
	s->q1 = quantile(sorted, n, 0.25);
	s->median = quantile(sorted, n, 0.5);
	s->q3 = quantile(sorted, n, 0.75);
	free(sorted);
}

struct pooled {
	double value;
	bool from_a;
};

static int cmp_pooled(const void *a, const void *b)
{
	return cmp_double(&((const struct pooled *)a)->value,
			  &((const struct pooled *)b)->value);
}

struct splits {
	const long *rank2;	/* doubled mid-ranks, in pooled order */
	unsigned int n;
	long center2;		/* na * (n + 1): twice the mean rank sum */
	long observed;		/* |rank sum * 2 - center2| observed */
	double total, extreme;
};

/* Every choice of @left more runs from position @from on. */
static void enumerate(struct splits *s, unsigned int from,
		      unsigned int left, long sum2)
{
	unsigned int i;

	if (!left) {
		s->total++;
		if (labs(sum2 - s->center2) >= s->observed)
			s->extreme++;
		return;
	}
	for (i = from; i + left <= s->n; i++)
		enumerate(s, i + 1, left - 1, sum2 + s->rank2[i]);
}

static double binomial(unsigned int n, unsigned int k)
{
	double c = 1;
	unsigned int i;

	for (i = 1; i <= k; i++)
		c = c * (n - k + i) / i;
	return c;
}

double compare_rank_test(const double *a, unsigned int na,
			 const double *b, unsigned int nb)
{
	unsigned int n = na + nb, i, j, k;
	struct pooled *p;
	long *rank2, sum2 = 0;
	double ties = 0, u, mean, var, z, result;

	if (!na || !nb)
		return 1;
	p = malloc(n * sizeof(*p));
	rank2 = malloc(n * sizeof(*rank2));
	if (!p || !rank2)
		abort();
	for (i = 0; i < n; i++) {
		p[i].from_a = i < na;
		p[i].value = i < na ? a[i] : b[i - na];
	}
	qsort(p, n, sizeof(*p), cmp_pooled);
	/* Runs i..j-1 tie: each has their mean rank, (i + 1 + j) / 2, doubled. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && p[j].value == p[i].value; j++)
			;
		ties += pow(j - i, 3) - (j - i);
		for (k = i; k < j; k++) {
			rank2[k] = i + 1 + j;
			if (p[k].from_a)
				sum2 += rank2[k];
		}
	}
	if (binomial(n, na) <= EXACT_SPLITS) {
		struct splits s = {
			.rank2 = rank2, .n = n, .center2 = (long)na * (n + 1),
		};

		s.observed = labs(sum2 - s.center2);
		enumerate(&s, 0, na, 0);
		result = s.extreme / s.total;
	} else {
		u = sum2 / 2.0 - na * (na + 1) / 2.0;
		mean = na * (double)nb / 2;
		var = na * (double)nb / 12 *
		      ((n + 1) - ties / ((double)n * (n - 1)));
		if (var <= 0) {
			result = 1;
		} else {
			z = (fabs(u - mean) - 0.5) / sqrt(var);
			result = z <= 0 ? 1 : erfc(z / sqrt(2));
		}
	}
	free(p);
	free(rank2);
	return result > 1 ? 1 : result;
}

/* xorshift64*: the same intervals on every run and machine. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

static double resampled_median(const double *v, unsigned int n,
			       double *buf, uint64_t *state)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		buf[i] = v[next_random(state) % n];
	qsort(buf, n, sizeof(*buf), cmp_double);
	return quantile(buf, n, 0.5);
}

void compare_ratio_interval(const double *a, unsigned int na,
			    const double *b, unsigned int nb, double level,
			    double *lo, double *hi)
{
	double *ratios, *buf, ma, mb;
	uint64_t state = 0x9E3779B97F4A7C15ULL;
	unsigned int i, k = 0;

	*lo = *hi = NAN;
	if (!na || !nb)
		return;
	ratios = malloc(COMPARE_RESAMPLES * sizeof(*ratios));
	buf = malloc((na > nb ? na : nb) * sizeof(*buf));
	if (!ratios || !buf)
		abort();
	for (i = 0; i < COMPARE_RESAMPLES; i++) {
		ma = resampled_median(a, na, buf, &state);
		mb = resampled_median(b, nb, buf, &state);
		if (mb != 0)
			ratios[k++] = ma / mb;
	}
	if (k) {
		qsort(ratios, k, sizeof(*ratios), cmp_double);
		*lo = quantile(ratios, k, (1 - level) / 2);
		*hi = quantile(ratios, k, 1 - (1 - level) / 2);
	}
	free(ratios);
	free(buf);
}

void compare_two(const double *a, unsigned int na, const double *b,
		 unsigned int nb, bool higher_better, double confidence,
		 double threshold, struct compare_result *r)
{
	struct compare_summary sa, sb;
	bool a_ahead;

	memset(r, 0, sizeof(*r));
	r->ratio = r->lo = r->hi = NAN;
	r->p = 1;
	r->outcome = COMPARE_TOO_FEW;
	if (na < 2 || nb < 2)
		return;
	compare_summarize(a, na, &sa);
	compare_summarize(b, nb, &sb);
	if (sb.median != 0)
		r->ratio = sa.median / sb.median;
	compare_ratio_interval(a, na, b, nb, confidence, &r->lo, &r->hi);
	r->p = compare_rank_test(a, na, b, nb);
	if (r->p >= 1 - confidence) {
		r->outcome = COMPARE_NO_DIFFERENCE;
		return;
	}
	if (fabs(sa.median - sb.median) < threshold * fabs(sb.median)) {
		r->outcome = COMPARE_BELOW_THRESHOLD;
		return;
	}
	a_ahead = higher_better ? sa.median > sb.median
				: sa.median < sb.median;
	r->outcome = a_ahead ? COMPARE_BETTER : COMPARE_WORSE;
}
