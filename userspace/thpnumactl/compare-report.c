// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl compare's results: the analysis of its runs, the verdict,
 * and the text, JSON and SVG writers.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare-report.h"
#include "json.h"
#include "text.h"

#define COMPARE_SYSTEM_NAME(id, prefix, name)	name,
static const char *const system_names[] = {
	COMPARE_SYSTEM_COUNTERS(COMPARE_SYSTEM_NAME)
};

static double *ok_values(const struct compare_report *r, unsigned int arm,
			 unsigned int *n)
{
	double *v = calloc(r->nr_runs + 1, sizeof(*v));
	unsigned int i;

	if (!v)
		abort();
	*n = 0;
	for (i = 0; i < r->nr_runs; i++)
		if (r->runs[i].arm == arm && r->runs[i].ok)
			v[(*n)++] = r->runs[i].value;
	return v;
}

static bool ahead(const struct compare_report *r, double a, double b)
{
	return r->higher_better ? a > b : a < b;
}

void compare_analyze(struct compare_report *r)
{
	unsigned int i, j, n = r->nr_arms, *nv;
	double **v;
	bool found = false;

	v = calloc(n, sizeof(*v));
	nv = calloc(n, sizeof(*nv));
	r->pair = calloc((size_t)n * n, sizeof(*r->pair));
	if (!v || !nv || !r->pair)
		abort();
	for (i = 0; i < n; i++) {
		v[i] = ok_values(r, i, &nv[i]);
		r->arms[i].nr_ok = nv[i];
		memset(&r->arms[i].summary, 0, sizeof(r->arms[i].summary));
		if (nv[i])
			compare_summarize(v[i], nv[i], &r->arms[i].summary);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j)
				compare_two(v[i], nv[i], v[j], nv[j],
					    r->higher_better, r->confidence,
					    r->threshold, &r->pair[i * n + j]);
	/* The best median among the policies a test can compare. */
	r->best = r->base;
	for (i = 0; i < n; i++) {
		r->arms[i].vs_base = r->pair[i * n + r->base];
		if (nv[i] < 2)
			continue;
		if (!found || ahead(r, r->arms[i].summary.median,
				    r->arms[r->best].summary.median))
			r->best = i;
		found = true;
	}
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(nv);
}

static const char *figure_name(const struct compare_report *r)
{
	return r->metric ? "the --metric figure" : "wall time (s)";
}

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
	__printf(4, 5);

static size_t append(char *buf, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (at >= len)
		return at;
	va_start(ap, fmt);
	n = vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
	return n < 0 ? at : at + n;
}

static size_t append_result(char *buf, size_t len, size_t at,
			    const struct compare_report *r, unsigned int a,
			    unsigned int b)
{
	const struct compare_result *c = &r->pair[a * r->nr_arms + b];

	return append(buf, len, at, "%.3fx %s's %s (%d%% CI %.3f-%.3f, p=%.3g)",
		      c->ratio, r->arms[b].spec, r->metric ? "figure" : "time",
		      (int)lround(r->confidence * 100), c->lo, c->hi, c->p);
}

static bool beats(const struct compare_report *r, unsigned int a,
		  unsigned int b)
{
	return r->pair[a * r->nr_arms + b].outcome == COMPARE_BETTER;
}

/*
 * The best policy and those it beats; then the differences the test
 * cannot tell, those below the threshold, and the other pairs that
 * differ; or, with no pair that differs, "no difference".
 */
void compare_verdict(char *buf, size_t len, const struct compare_report *r)
{
	unsigned int i, k, n = r->nr_arms, best = r->best, usable = 0;
	int conf = (int)lround(r->confidence * 100);
	const char *faster = r->metric ? "better than" : "faster than";
	bool any = false, first, small = false;
	size_t at = 0;

	for (i = 0; i < n; i++) {
		usable += r->arms[i].nr_ok >= 2;
		for (k = 0; k < n; k++) {
			any |= i != k && beats(r, i, k);
			small |= i != k && r->pair[i * n + k].outcome ==
					   COMPARE_BELOW_THRESHOLD;
		}
	}
	if (usable < 2) {
		snprintf(buf, len,
			 "too few successful runs for a verdict: a policy needs at least 2");
		return;
	}
	if (!any) {
		at = append(buf, len, at, "no difference%s at %d%% confidence between ",
			    small ? " beyond the threshold" : "", conf);
		first = true;
		for (i = 0, k = 0; i < n; i++) {
			if (r->arms[i].nr_ok < 2)
				continue;
			k++;
			at = append(buf, len, at, "%s%s",
				    first ? "" : (k == usable ? " and " : ", "),
				    r->arms[i].spec);
			first = false;
		}
		at = append(buf, len, at, " (%u rounds)", r->rounds);
	} else {
		first = true;
		for (i = 0; i < n; i++) {
			if (i == best || !beats(r, best, i))
				continue;
			at = append(buf, len, at, first ? "%s is %s: " : ", ",
				    r->arms[best].spec,
				    r->metric ? "best" : "fastest");
			at = append_result(buf, len, at, r, best, i);
			first = false;
		}
		if (first)
			at = append(buf, len, at,
				    "no policy is %s every other at %d%% confidence",
				    faster, conf);
		for (i = 0; i < n; i++) {
			const struct compare_result *c = &r->pair[best * n + i];

			/* Said only of a best policy that beats some. */
			if (first || i == best || r->arms[i].nr_ok < 2 ||
			    beats(r, best, i))
				continue;
			if (c->outcome == COMPARE_BELOW_THRESHOLD)
				at = append(buf, len, at, "; within %g%% of %s",
					    r->threshold * 100, r->arms[i].spec);
			else
				at = append(buf, len, at,
					    "; no difference from %s at %d%% confidence (p=%.3g)",
					    r->arms[i].spec, conf, c->p);
		}
		/* Pairs without the best policy that still differ. */
		for (i = 0; i < n; i++)
			for (k = 0; k < n; k++) {
				if (i == best || k == best || !beats(r, i, k))
					continue;
				at = append(buf, len, at, "; %s is %s %s: ",
					    r->arms[i].spec, faster,
					    r->arms[k].spec);
				at = append_result(buf, len, at, r, i, k);
			}
	}
	for (i = 0; i < n; i++)
		if (r->arms[i].nr_ok < 2)
			at = append(buf, len, at, "; %s had too few successful runs",
				    r->arms[i].spec);
}

/* An arm's THP counts over its successful runs, and its merged histogram. */
static void arm_totals(const struct compare_report *r, unsigned int arm,
		       uint64_t *counter, uint64_t *system,
		       struct hist_counts *alloc)
{
	unsigned int i, c;

	memset(counter, 0, THPNUMA_NR_CGROUP_COUNTERS * sizeof(*counter));
	memset(system, 0, COMPARE_NR_SYSTEM * sizeof(*system));
	memset(alloc, 0, sizeof(*alloc));
	for (i = 0; i < r->nr_runs; i++) {
		const struct compare_run *run = &r->runs[i];

		if (run->arm != arm || !run->ok)
			continue;
		for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
			counter[c] += run->counter[c];
		for (c = 0; c < COMPARE_NR_SYSTEM; c++)
			system[c] += run->system[c];
		hist_counts_add(alloc, &run->alloc);
	}
}

static double remote_fraction(const uint64_t *counter)
{
	uint64_t placed = counter[THPNUMA_CG_THP_LOCAL] +
			  counter[THPNUMA_CG_THP_REMOTE];

	return placed ? (double)counter[THPNUMA_CG_THP_REMOTE] / placed : NAN;
}

static void run_status_text(char *buf, size_t len, const struct compare_run *run)
{
	if (run->why)
		snprintf(buf, len, "%s", run->why);
	else if (run->status > 128)
		snprintf(buf, len, "killed by signal %d", run->status - 128);
	else
		snprintf(buf, len, "exit status %d", run->status);
}

void compare_write_text(FILE *out, const struct compare_report *r)
{
	uint64_t counter[THPNUMA_NR_CGROUP_COUNTERS], system[COMPARE_NR_SYSTEM];
	struct hist_counts alloc;
	char verdict[2048], ci[32], p[16], p99[32], why[128];
	unsigned int i, k, failed = 0;
	double per, remote;

	fprintf(out, "command:");
	for (k = 0; r->argv[k]; k++)
		fprintf(out, " %s", r->argv[k]);
	fprintf(out, "\n%u policies x %u rounds, the order rotated each round; %s, %s is better\n\n",
		r->nr_arms, r->rounds, r->metric ? r->metric : "wall time (s)",
		r->higher_better ? "higher" : "lower");
	fprintf(out, "%-22s %4s %6s %10s %10s %10s %9s %-15s %7s\n", "policy",
		"runs", "failed", "median", "min", "max", "ratio", "CI", "p");
	for (i = 0; i < r->nr_arms; i++) {
		const struct compare_arm *a = &r->arms[i];
		const struct compare_result *c = &a->vs_base;
		unsigned int runs = 0;

		for (k = 0; k < r->nr_runs; k++)
			runs += r->runs[k].arm == i;
		if (i == r->base || isnan(c->lo)) {
			snprintf(ci, sizeof(ci), "-");
			snprintf(p, sizeof(p), "-");
		} else {
			snprintf(ci, sizeof(ci), "%.3f-%.3f", c->lo, c->hi);
			snprintf(p, sizeof(p), "%.3g", c->p);
		}
		if (!a->nr_ok) {
			fprintf(out, "%-22s %4u %6u %10s %10s %10s %9s %-15s %7s\n",
				a->spec, runs, runs, "-", "-", "-", "-", "-", "-");
			continue;
		}
		fprintf(out, "%-22s %4u %6u %10.4g %10.4g %10.4g %9.3f %-15s %7s\n",
			a->spec, runs, runs - a->nr_ok, a->summary.median,
			a->summary.min, a->summary.max,
			i == r->base ? 1.0 : c->ratio, ci, p);
	}
	fprintf(out, "(ratio: the median's to %s's, with its %d%% confidence interval and the rank test's p)\n\n",
		r->arms[r->base].spec, (int)lround(r->confidence * 100));

	fprintf(out, "%-22s %10s %10s %8s %10s %12s %11s %11s\n", "per run, mean",
		"THP local", "THP remote", "remote", "fallback", "alloc p99",
		"swap-outs*", "reclaim*");
	for (i = 0; i < r->nr_arms; i++) {
		const struct compare_arm *a = &r->arms[i];

		if (!a->nr_ok)
			continue;
		arm_totals(r, i, counter, system, &alloc);
		per = 1.0 / a->nr_ok;
		remote = remote_fraction(counter);
		if (alloc.count)
			hist_bound_text(p99, sizeof(p99),
					hist_percentile(&alloc, 99));
		else
			snprintf(p99, sizeof(p99), "-");
		fprintf(out, "%-22s %10.0f %10.0f %7.1f%% %10.0f %12s %11.0f %11.0f\n",
			a->spec, counter[THPNUMA_CG_THP_LOCAL] * per,
			counter[THPNUMA_CG_THP_REMOTE] * per,
			isnan(remote) ? 0 : remote * 100,
			counter[THPNUMA_CG_THP_FALLBACK] * per, p99,
			system[COMPARE_SYS_SWAP_OUT] * per,
			system[COMPARE_SYS_DIRECT_RECLAIM] * per);
	}
	fprintf(out, "(* system-wide: every task's swap-outs and direct-reclaim stalls during the run)\n");

	for (k = 0; k < r->nr_runs; k++) {
		const struct compare_run *run = &r->runs[k];

		if (run->ok)
			continue;
		if (!failed++)
			fprintf(out, "\nfailed runs:\n");
		run_status_text(why, sizeof(why), run);
		fprintf(out, "  run %u (%s, round %u): %s\n", run->seq,
			r->arms[run->arm].spec, run->round + 1, why);
	}
	compare_verdict(verdict, sizeof(verdict), r);
	fprintf(out, "\nverdict: %s\n", verdict);
}

static void json_result(struct json_writer *j, const struct compare_result *c)
{
	json_figure(j, "ratio", c->ratio);
	json_figure(j, "ci_low", c->lo);
	json_figure(j, "ci_high", c->hi);
	json_figure(j, "p", c->p);
	json_string(j, "outcome", compare_outcome_names[c->outcome]);
}

void compare_write_json(FILE *out, const struct compare_report *r)
{
	uint64_t counter[THPNUMA_NR_CGROUP_COUNTERS], system[COMPARE_NR_SYSTEM];
	struct hist_counts alloc;
	struct json_writer j[1];
	char verdict[2048], why[128];
	unsigned int i, k, c;
	double remote;

	json_begin(j, out, JSON_SPACED, true);
	json_array(j, "command", false);
	for (k = 0; r->argv[k]; k++)
		json_string(j, NULL, r->argv[k]);
	json_close(j);
	json_object(j, "figure", false);
	if (r->metric)
		json_string(j, "metric", r->metric);
	else
		json_string(j, "name", "wall_time_s");
	json_string(j, "better", r->higher_better ? "higher" : "lower");
	json_close(j);
	json_long(j, "rounds", r->rounds);
	json_figure(j, "confidence", r->confidence);
	json_figure(j, "threshold", r->threshold);
	json_string(j, "baseline", r->arms[r->base].spec);

	json_array(j, "policies", true);
	for (i = 0; i < r->nr_arms; i++) {
		const struct compare_arm *a = &r->arms[i];

		arm_totals(r, i, counter, system, &alloc);
		json_object(j, NULL, false);
		json_string(j, "policy", a->spec);
		json_long(j, "runs_ok", a->nr_ok);
		if (a->nr_ok) {
			json_figure(j, "median", a->summary.median);
			json_figure(j, "q1", a->summary.q1);
			json_figure(j, "q3", a->summary.q3);
			json_figure(j, "min", a->summary.min);
			json_figure(j, "max", a->summary.max);
		}
		if (i != r->base) {
			json_object(j, "vs_baseline", false);
			json_result(j, &a->vs_base);
			json_close(j);
		}
		for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
			json_u64(j, thpnuma_cgroup_counter_names[c], counter[c]);
		remote = remote_fraction(counter);
		json_figure(j, "remote_fraction", remote);
		json_object(j, "system", false);
		for (c = 0; c < COMPARE_NR_SYSTEM; c++)
			json_u64(j, system_names[c], system[c]);
		json_close(j);
		json_close(j);
	}
	json_close(j);

	json_array(j, "pairs", true);
	for (i = 0; i < r->nr_arms; i++)
		for (k = i + 1; k < r->nr_arms; k++) {
			json_object(j, NULL, false);
			json_string(j, "a", r->arms[i].spec);
			json_string(j, "b", r->arms[k].spec);
			json_result(j, &r->pair[i * r->nr_arms + k]);
			json_close(j);
		}
	json_close(j);

	json_array(j, "runs", true);
	for (k = 0; k < r->nr_runs; k++) {
		const struct compare_run *run = &r->runs[k];

		json_object(j, NULL, false);
		json_long(j, "seq", run->seq);
		json_long(j, "round", run->round + 1);
		json_string(j, "policy", r->arms[run->arm].spec);
		json_long(j, "exit_status", run->status);
		json_string(j, "result", run->ok ? "ok" : "failed");
		if (!run->ok) {
			run_status_text(why, sizeof(why), run);
			json_string(j, "why", why);
		}
		if (run->ok)
			json_figure(j, "value", run->value);
		json_figure(j, "wall_s", run->wall_s);
		for (c = 0; c < THPNUMA_NR_CGROUP_COUNTERS; c++)
			json_u64(j, thpnuma_cgroup_counter_names[c],
				 run->counter[c]);
		remote = remote_fraction(run->counter);
		json_figure(j, "remote_fraction", remote);
		json_object(j, "alloc", false);
		hist_json_counts(j, &run->alloc);
		json_close(j);
		json_object(j, "system", false);
		for (c = 0; c < COMPARE_NR_SYSTEM; c++)
			json_u64(j, system_names[c], run->system[c]);
		json_close(j);
		json_close(j);
	}
	json_close(j);

	compare_verdict(verdict, sizeof(verdict), r);
	json_object(j, "verdict", false);
	json_string(j, "best", r->arms[r->best].nr_ok ?
			       r->arms[r->best].spec : "");
	json_string(j, "text", verdict);
	json_close(j);
	json_end(j);
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

#define SVG_WIDTH	760
#define SVG_LEFT	190
#define SVG_RIGHT	730
#define SVG_TOP		60
#define SVG_ROW		40

/* One row per policy: each run a dot, the quartiles a box, the median a bar. */
void compare_write_svg(FILE *out, const struct compare_report *r)
{
	double lo = INFINITY, hi = -INFINITY, span, x, tick;
	unsigned int i, k, height = SVG_TOP + SVG_ROW * r->nr_arms + 50;
	char verdict[2048];

	for (k = 0; k < r->nr_runs; k++)
		if (r->runs[k].ok) {
			lo = fmin(lo, r->runs[k].value);
			hi = fmax(hi, r->runs[k].value);
		}
	if (lo > hi) {
		lo = 0;
		hi = 1;
	}
	span = hi - lo;
	if (span <= 0)
		span = fabs(hi) > 0 ? fabs(hi) * 0.1 : 1;
	lo -= span * 0.05;
	hi += span * 0.05;
	span = hi - lo;
#define X(v)	(SVG_LEFT + ((v) - lo) / span * (SVG_RIGHT - SVG_LEFT))

	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" font-family=\"sans-serif\" font-size=\"12\">\n",
		SVG_WIDTH, height);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(out, "<text x=\"10\" y=\"20\" font-size=\"14\">thpnumactl compare: ");
	for (k = 0; r->argv[k]; k++) {
		fputs(k ? " " : "", out);
		xml_text(out, r->argv[k]);
	}
	fprintf(out, "</text>\n<text x=\"10\" y=\"40\">%s per run, %s is better; box: quartiles, bar: median</text>\n",
		figure_name(r), r->higher_better ? "higher" : "lower");
	for (i = 0; i <= 4; i++) {
		tick = lo + span * i / 4;
		x = X(tick);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%u\" stroke=\"#ddd\"/>\n",
			x, SVG_TOP - 5, x, SVG_TOP + SVG_ROW * r->nr_arms);
		fprintf(out, "<text x=\"%.1f\" y=\"%u\" text-anchor=\"middle\">%.4g</text>\n",
			x, SVG_TOP + SVG_ROW * r->nr_arms + 15, tick);
	}
	for (i = 0; i < r->nr_arms; i++) {
		const struct compare_arm *a = &r->arms[i];
		unsigned int y = SVG_TOP + SVG_ROW * i + SVG_ROW / 2;

		fprintf(out, "<text x=\"%d\" y=\"%u\" text-anchor=\"end\">", SVG_LEFT - 10, y + 4);
		xml_text(out, a->spec);
		fprintf(out, "</text>\n");
		if (a->nr_ok) {
			fprintf(out, "<rect x=\"%.1f\" y=\"%u\" width=\"%.1f\" height=\"16\" fill=\"#cde\" stroke=\"#579\"/>\n",
				X(a->summary.q1), y - 8,
				X(a->summary.q3) - X(a->summary.q1));
			fprintf(out, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" stroke=\"#135\" stroke-width=\"3\"/>\n",
				X(a->summary.median), y - 12,
				X(a->summary.median), y + 12);
		}
		for (k = 0; k < r->nr_runs; k++)
			if (r->runs[k].arm == i && r->runs[k].ok)
				fprintf(out, "<circle cx=\"%.1f\" cy=\"%u\" r=\"4\" fill=\"#d62\" fill-opacity=\"0.7\"/>\n",
					X(r->runs[k].value), y);
	}
#undef X
	compare_verdict(verdict, sizeof(verdict), r);
	fprintf(out, "<text x=\"10\" y=\"%u\">verdict: ", height - 10);
	xml_text(out, verdict);
	fprintf(out, "</text>\n</svg>\n");
}
