// SPDX-License-Identifier: GPL-2.0
/* thpnumactl: the per-process overrides (tasks) and per-policy totals. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "overrides.h"

const char *const policy_counter_names[PC_NR_COUNTERS] = {
	[PC_TASKS]		= "tasks",
	[PC_THP_LOCAL]		= "thp_local",
	[PC_THP_REMOTE]		= "thp_remote",
	[PC_THP_FALLBACK]	= "thp_fallback",
	[PC_PASSTHROUGH]	= "passthrough",
	[PC_BY_OVERRIDE]	= "by_override",
};

static void set_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Decimal digits only, at most @max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *val)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*val = v;
	return 0;
}

/* Undo seq_escape()'s \ooo octal escapes; -EINVAL on a bad escape. */
static int unescape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in) {
		char c = *in++;

		if (c == '\\') {
			if (in[0] < '0' || in[0] > '3' || in[1] < '0' ||
			    in[1] > '7' || in[2] < '0' || in[2] > '7')
				return -EINVAL;
			c = (char)((in[0] - '0') << 6 | (in[1] - '0') << 3 |
				   (in[2] - '0'));
			in += 3;
		}
		if (o + 1 >= len)
			return -EINVAL;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* Split @line at blanks into at most @max words; the count. */
static int split(char *line, char **words, int max)
{
	char *save = NULL, *w;
	int n = 0;

	for (w = strtok_r(line, " \t\r", &save); w;
	     w = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return max + 1;
		words[n++] = w;
	}
	return n;
}

static int parse_task_line(char *line, struct task_entry *t, char *err,
			   size_t errlen, unsigned int lineno)
{
	char *w[4];
	uint64_t v;

	if (split(line, w, 4) != 4) {
		set_error(err, errlen, "line %u: expected 4 fields", lineno);
		return -EINVAL;
	}
	if (parse_uint(w[0], INT32_MAX, &v) || !v) {
		set_error(err, errlen, "line %u: bad pid '%s'", lineno, w[0]);
		return -EINVAL;
	}
	t->pid = (int)v;
	if (unescape(w[1], t->comm, sizeof(t->comm))) {
		set_error(err, errlen, "line %u: bad command name", lineno);
		return -EINVAL;
	}
	if (strlen(w[2]) >= sizeof(t->policy)) {
		set_error(err, errlen, "line %u: bad policy", lineno);
		return -EINVAL;
	}
	strcpy(t->policy, w[2]);
	if (!strcmp(w[3], "-")) {
		t->zone_reclaim = -1;
	} else if (parse_uint(w[3], 7, &v)) {
		set_error(err, errlen, "line %u: bad zone_reclaim '%s'",
			  lineno, w[3]);
		return -EINVAL;
	} else {
		t->zone_reclaim = (int)v;
	}
	return 0;
}

/* Call @fn on each line of a copy of @text; stops at the first error. */
static int for_each_line(const char *text, void *ctx,
			 int (*fn)(char *line, unsigned int lineno, void *ctx))
{
	char *copy = strdup(text), *line, *save = NULL;
	unsigned int lineno = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save))
		ret = fn(line, ++lineno, ctx);
	free(copy);
	return ret;
}

struct parse_ctx {
	void *list;
	char *err;
	size_t errlen;
};

static int add_task_line(char *line, unsigned int lineno, void *arg)
{
	struct parse_ctx *ctx = arg;
	struct task_list *tl = ctx->list;
	struct task_entry *grown;

	grown = realloc(tl->tasks, (tl->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	tl->tasks = grown;
	if (parse_task_line(line, &tl->tasks[tl->nr], ctx->err, ctx->errlen,
			    lineno))
		return -EINVAL;
	tl->nr++;
	return 0;
}

int tasks_parse(const char *text, struct task_list *tl, char *err,
		size_t errlen)
{
	struct parse_ctx ctx = { tl, err, errlen };
	int ret;

	tl->nr = 0;
	tl->tasks = NULL;
	ret = for_each_line(text, &ctx, add_task_line);
	if (ret) {
		if (ret == -ENOMEM)
			set_error(err, errlen, "out of memory");
		tasks_free(tl);
	}
	return ret;
}

void tasks_free(struct task_list *tl)
{
	free(tl->tasks);
	tl->tasks = NULL;
	tl->nr = 0;
}

const struct task_entry *tasks_find(const struct task_list *tl, int pid)
{
	for (unsigned int i = 0; i < tl->nr; i++)
		if (tl->tasks[i].pid == pid)
			return &tl->tasks[i];
	return NULL;
}

static int compare_pid(const void *a, const void *b)
{
	const struct task_entry *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void sort_by_pid(const struct task_list *tl)
{
	if (tl->nr)
		qsort(tl->tasks, tl->nr, sizeof(*tl->tasks), compare_pid);
}

void tasks_write_table(FILE *out, const struct task_list *tl)
{
	char zr[16];

	sort_by_pid(tl);
	fprintf(out, "%8s  %-16s  %-18s  %s\n", "PID", "COMMAND", "POLICY",
		"ZONE_RECLAIM");
	for (unsigned int i = 0; i < tl->nr; i++) {
		const struct task_entry *t = &tl->tasks[i];

		if (t->zone_reclaim < 0)
			snprintf(zr, sizeof(zr), "global");
		else
			snprintf(zr, sizeof(zr), "%d", t->zone_reclaim);
		fprintf(out, "%8d  %-16s  %-18s  %s\n", t->pid, t->comm,
			t->policy, zr);
	}
}

/* A JSON string: quotes, backslashes and control bytes escaped. */
static void write_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void tasks_write_json(FILE *out, const struct task_list *tl)
{
	sort_by_pid(tl);
	fprintf(out, "{\"tasks\": [");
	for (unsigned int i = 0; i < tl->nr; i++) {
		const struct task_entry *t = &tl->tasks[i];

		fprintf(out, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "",
			t->pid);
		write_json_string(out, t->comm);
		fprintf(out, ", \"policy\": ");
		write_json_string(out, t->policy);
		if (t->zone_reclaim < 0)
			fprintf(out, ", \"zone_reclaim\": null}");
		else
			fprintf(out, ", \"zone_reclaim\": %d}", t->zone_reclaim);
	}
	fprintf(out, "]}\n");
}

static int add_policy_line(char *line, unsigned int lineno, void *arg)
{
	struct parse_ctx *ctx = arg;
	struct policy_table *pt = ctx->list;
	char *w[PC_NR_COUNTERS + 2];
	struct policy_row *row, *grown;
	int n = split(line, w, PC_NR_COUNTERS + 1);

	if (lineno == 1) {
		bool ok = n == PC_NR_COUNTERS + 1 && !strcmp(w[0], "policy");

		for (int c = 0; ok && c < PC_NR_COUNTERS; c++)
			ok = !strcmp(w[c + 1], policy_counter_names[c]);
		if (!ok) {
			set_error(ctx->err, ctx->errlen,
				  "line 1: not the policies header");
			return -EINVAL;
		}
		return 0;
	}
	if (n != PC_NR_COUNTERS + 1 || strlen(w[0]) >= sizeof(row->policy)) {
		set_error(ctx->err, ctx->errlen, "line %u: expected %d fields",
			  lineno, PC_NR_COUNTERS + 1);
		return -EINVAL;
	}
	grown = realloc(pt->rows, (pt->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	pt->rows = grown;
	row = &pt->rows[pt->nr];
	strcpy(row->policy, w[0]);
	for (int c = 0; c < PC_NR_COUNTERS; c++) {
		if (parse_uint(w[c + 1], UINT64_MAX, &row->counter[c])) {
			set_error(ctx->err, ctx->errlen,
				  "line %u: bad %s '%s'", lineno,
				  policy_counter_names[c], w[c + 1]);
			return -EINVAL;
		}
	}
	pt->nr++;
	return 0;
}

int policies_parse(const char *text, struct policy_table *pt, char *err,
		   size_t errlen)
{
	struct parse_ctx ctx = { pt, err, errlen };
	int ret;

	pt->nr = 0;
	pt->rows = NULL;
	ret = for_each_line(text, &ctx, add_policy_line);
	if (!ret && !pt->nr) {
		set_error(err, errlen, "no policy rows");
		ret = -EINVAL;
	}
	if (ret) {
		if (ret == -ENOMEM)
			set_error(err, errlen, "out of memory");
		policies_free(pt);
	}
	return ret;
}

void policies_free(struct policy_table *pt)
{
	free(pt->rows);
	pt->rows = NULL;
	pt->nr = 0;
}

void policies_write_table(FILE *out, const struct policy_table *pt)
{
	fprintf(out, "%-18s", "policy");
	for (int c = 0; c < PC_NR_COUNTERS; c++)
		fprintf(out, " %14s", policy_counter_names[c]);
	fputc('\n', out);
	for (unsigned int i = 0; i < pt->nr; i++) {
		fprintf(out, "%-18s", pt->rows[i].policy);
		for (int c = 0; c < PC_NR_COUNTERS; c++)
			fprintf(out, " %14" PRIu64, pt->rows[i].counter[c]);
		fputc('\n', out);
	}
}

void policies_write_json(FILE *out, const struct policy_table *pt)
{
	fprintf(out, "{\"policies\": {");
	for (unsigned int i = 0; i < pt->nr; i++) {
		fprintf(out, "%s", i ? ", " : "");
		write_json_string(out, pt->rows[i].policy);
		fprintf(out, ": {");
		for (int c = 0; c < PC_NR_COUNTERS; c++)
			fprintf(out, "%s\"%s\": %" PRIu64, c ? ", " : "",
				policy_counter_names[c], pt->rows[i].counter[c]);
		fprintf(out, "}");
	}
	fprintf(out, "}}\n");
}
