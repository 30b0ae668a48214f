// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl: the per-process overrides (tasks), the per-cgroup settings
 * (cgroups) and the per-policy totals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "policy.h"
#include "overrides.h"
#include "stats.h"
#include "text.h"

/*
 * Undo seq_escape()'s \ooo octal escapes. The module escapes every
 * control character, space and backslash: -EINVAL on a bad escape or on
 * a control character that arrives raw.
 */
static int unescape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	while (*in) {
		char c = *in++;

		if ((unsigned char)c < 0x20 || c == 0x7f)
			return -EINVAL;
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

struct parse_ctx {
	void *list;
	char *err;
	size_t errlen;
	bool seen_header;	/* policies only */
};

/* A number field: "-" (follows the global setting: -1), or @min to @max. */
static int parse_number_field(const char *w, uint64_t min, uint64_t max,
			      int *out)
{
	uint64_t v;

	if (!strcmp(w, "-")) {
		*out = -1;
		return 0;
	}
	if (parse_decimal(w, max, &v) || v < min)
		return -EINVAL;
	*out = (int)v;
	return 0;
}

/*
 * The three words that end every override row, as thpnuma_format_override()
 * writes them: POLICY ZONE_RECLAIM BUDGET_US.
 */
static int parse_override_words(char **w, char *policy, size_t policy_len,
				int *zone_reclaim, int *budget_us,
				struct parse_ctx *ctx, unsigned int lineno)
{
	if (strlen(w[0]) >= policy_len) {
		set_error(ctx->err, ctx->errlen, "line %u: bad policy", lineno);
		return -EINVAL;
	}
	strcpy(policy, w[0]);
	if (parse_number_field(w[1], 0, 7, zone_reclaim)) {
		set_error(ctx->err, ctx->errlen,
			  "line %u: bad zone_reclaim '%s'", lineno, w[1]);
		return -EINVAL;
	}
	if (parse_number_field(w[2], 1, THPNUMA_BUDGET_MAX_US, budget_us)) {
		set_error(ctx->err, ctx->errlen, "line %u: bad budget_us '%s'",
			  lineno, w[2]);
		return -EINVAL;
	}
	return 0;
}

static int parse_task_line(char *line, struct task_entry *t,
			   struct parse_ctx *ctx, unsigned int lineno)
{
	char *w[5];
	uint64_t v;

	if (split_fields(line, w, 5) != 5) {
		set_error(ctx->err, ctx->errlen,
			  "line %u: expected PID COMMAND POLICY ZONE_RECLAIM BUDGET_US",
			  lineno);
		return -EINVAL;
	}
	if (parse_decimal(w[0], INT32_MAX, &v) || !v) {
		set_error(ctx->err, ctx->errlen, "line %u: bad pid '%s'",
			  lineno, w[0]);
		return -EINVAL;
	}
	t->pid = (int)v;
	if (unescape(w[1], t->comm, sizeof(t->comm))) {
		set_error(ctx->err, ctx->errlen, "line %u: bad command name",
			  lineno);
		return -EINVAL;
	}
	return parse_override_words(&w[2], t->policy, sizeof(t->policy),
				    &t->zone_reclaim, &t->budget_us, ctx,
				    lineno);
}

static int add_task_line(char *line, unsigned int lineno, void *arg)
{
	struct parse_ctx *ctx = arg;
	struct task_list *tl = ctx->list;
	struct task_entry *grown;

	grown = realloc(tl->tasks, (tl->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	tl->tasks = grown;
	if (parse_task_line(line, &tl->tasks[tl->nr], ctx, lineno))
		return -EINVAL;
	tl->nr++;
	return 0;
}

int tasks_parse(const char *text, struct task_list *tl, char *err,
		size_t errlen)
{
	struct parse_ctx ctx = { tl, err, errlen, false };
	int ret;

	tl->nr = 0;
	tl->tasks = NULL;
	ret = for_each_line(text, add_task_line, &ctx);
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

/* An override's number in a table: "global" when it follows the global one. */
static const char *table_number(char *buf, size_t len, int v)
{
	if (v < 0)
		return "global";
	snprintf(buf, len, "%d", v);
	return buf;
}

/* The same in JSON: null. */
static void json_number(struct json_writer *j, const char *key, int v)
{
	if (v < 0)
		json_null(j, key);
	else
		json_long(j, key, v);
}

void tasks_write_table(FILE *out, const struct task_list *tl)
{
	char zr[16], budget[16], comm[4 * sizeof(tl->tasks->comm)];

	sort_by_pid(tl);
	fprintf(out, "%8s  %-16s  %-18s  %-12s  %s\n", "PID", "COMMAND",
		"POLICY", "ZONE_RECLAIM", "BUDGET_US");
	for (unsigned int i = 0; i < tl->nr; i++) {
		const struct task_entry *t = &tl->tasks[i];

		/* The name is the process's own choice: no raw bytes. */
		escape_text(comm, sizeof(comm), t->comm);
		fprintf(out, "%8d  %-16s  %-18s  %-12s  %s\n", t->pid, comm,
			t->policy, table_number(zr, sizeof(zr), t->zone_reclaim),
			table_number(budget, sizeof(budget), t->budget_us));
	}
}

void tasks_write_json(FILE *out, const struct task_list *tl)
{
	struct json_writer j;

	sort_by_pid(tl);
	json_begin(&j, out, JSON_SPACED, false);
	json_array(&j, "tasks", false);
	for (unsigned int i = 0; i < tl->nr; i++) {
		const struct task_entry *t = &tl->tasks[i];

		json_object(&j, NULL, false);
		json_long(&j, "pid", t->pid);
		json_string(&j, "comm", t->comm);
		json_string(&j, "policy", t->policy);
		json_number(&j, "zone_reclaim", t->zone_reclaim);
		json_number(&j, "budget_us", t->budget_us);
		json_close(&j);
	}
	json_end(&j);
}

static int add_cgroup_line(char *line, unsigned int lineno, void *arg)
{
	struct parse_ctx *ctx = arg;
	struct cgroup_list *cl = ctx->list;
	struct cgroup_entry *grown, *c;
	char *w[4];

	if (split_fields(line, w, 4) != 4 || w[0][0] != '/') {
		set_error(ctx->err, ctx->errlen,
			  "line %u: expected PATH POLICY ZONE_RECLAIM BUDGET_US",
			  lineno);
		return -EINVAL;
	}
	grown = realloc(cl->cgroups, (cl->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	cl->cgroups = grown;
	c = &cl->cgroups[cl->nr];
	if (parse_override_words(&w[1], c->policy, sizeof(c->policy),
				 &c->zone_reclaim, &c->budget_us, ctx, lineno))
		return -EINVAL;
	c->path = strdup(w[0]);
	if (!c->path)
		return -ENOMEM;
	cl->nr++;
	return 0;
}

int cgroups_parse(const char *text, struct cgroup_list *cl, char *err,
		  size_t errlen)
{
	struct parse_ctx ctx = { cl, err, errlen, false };
	int ret;

	cl->nr = 0;
	cl->cgroups = NULL;
	ret = for_each_line(text, add_cgroup_line, &ctx);
	if (ret) {
		if (ret == -ENOMEM)
			set_error(err, errlen, "out of memory");
		cgroups_free(cl);
	}
	return ret;
}

void cgroups_free(struct cgroup_list *cl)
{
	for (unsigned int i = 0; i < cl->nr; i++)
		free(cl->cgroups[i].path);
	free(cl->cgroups);
	cl->cgroups = NULL;
	cl->nr = 0;
}

const struct cgroup_entry *cgroups_find(const struct cgroup_list *cl,
					const char *path)
{
	for (unsigned int i = 0; i < cl->nr; i++)
		if (!strcmp(cl->cgroups[i].path, path))
			return &cl->cgroups[i];
	return NULL;
}

/* Whether @ancestor is @path or one of the cgroups above it. */
static bool is_ancestor(const char *ancestor, const char *path)
{
	size_t n = strlen(ancestor);

	if (!strcmp(ancestor, "/"))
		return true;
	return !strncmp(ancestor, path, n) && (!path[n] || path[n] == '/');
}

const struct cgroup_entry *cgroups_applying(const struct cgroup_list *cl,
					    const char *path)
{
	const struct cgroup_entry *best = NULL;

	for (unsigned int i = 0; i < cl->nr; i++) {
		const struct cgroup_entry *c = &cl->cgroups[i];

		if (is_ancestor(c->path, path) &&
		    (!best || strlen(c->path) > strlen(best->path)))
			best = c;
	}
	return best;
}

static int compare_path(const void *a, const void *b)
{
	const struct cgroup_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

static void sort_by_path(const struct cgroup_list *cl)
{
	if (cl->nr)
		qsort(cl->cgroups, cl->nr, sizeof(*cl->cgroups), compare_path);
}

void cgroups_write_table(FILE *out, const struct cgroup_list *cl)
{
	char zr[16], budget[16];

	sort_by_path(cl);
	fprintf(out, "%-18s  %-12s  %-9s  %s\n", "POLICY", "ZONE_RECLAIM",
		"BUDGET_US", "CGROUP");
	for (unsigned int i = 0; i < cl->nr; i++) {
		const struct cgroup_entry *c = &cl->cgroups[i];

		fprintf(out, "%-18s  %-12s  %-9s  %s\n", c->policy,
			table_number(zr, sizeof(zr), c->zone_reclaim),
			table_number(budget, sizeof(budget), c->budget_us),
			c->path);
	}
}

void cgroups_write_json(FILE *out, const struct cgroup_list *cl)
{
	struct json_writer j;

	sort_by_path(cl);
	json_begin(&j, out, JSON_SPACED, false);
	json_array(&j, "cgroups", false);
	for (unsigned int i = 0; i < cl->nr; i++) {
		const struct cgroup_entry *c = &cl->cgroups[i];

		json_object(&j, NULL, false);
		json_string(&j, "path", c->path);
		json_string(&j, "policy", c->policy);
		json_number(&j, "zone_reclaim", c->zone_reclaim);
		json_number(&j, "budget_us", c->budget_us);
		json_close(&j);
	}
	json_end(&j);
}

/* The policies header: "policy tasks" and then the policy counters. */
static bool is_policies_header(char **w, int n)
{
	if (n != THPNUMA_NR_POLICY_COUNTERS + 2 || strcmp(w[0], "policy") ||
	    strcmp(w[1], "tasks"))
		return false;
	for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
		if (strcmp(w[c + 2], thpnuma_policy_counter_names[c]))
			return false;
	return true;
}

static int add_policy_line(char *line, unsigned int lineno, void *arg)
{
	enum { NR_FIELDS = THPNUMA_NR_POLICY_COUNTERS + 2 };
	struct parse_ctx *ctx = arg;
	struct policy_table *pt = ctx->list;
	char *w[NR_FIELDS];
	struct policy_row *row, *grown;
	int n = split_fields(line, w, NR_FIELDS);

	if (!ctx->seen_header) {
		ctx->seen_header = true;
		if (is_policies_header(w, n))
			return 0;
		set_error(ctx->err, ctx->errlen,
			  "line %u: not the policies header", lineno);
		return -EINVAL;
	}
	if (n != NR_FIELDS || strlen(w[0]) >= sizeof(row->policy)) {
		set_error(ctx->err, ctx->errlen, "line %u: expected %d fields",
			  lineno, NR_FIELDS);
		return -EINVAL;
	}
	grown = realloc(pt->rows, (pt->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	pt->rows = grown;
	row = &pt->rows[pt->nr];
	strcpy(row->policy, w[0]);
	if (parse_decimal(w[1], UINT64_MAX, &row->tasks)) {
		set_error(ctx->err, ctx->errlen, "line %u: bad tasks '%s'",
			  lineno, w[1]);
		return -EINVAL;
	}
	for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++) {
		if (parse_decimal(w[c + 2], UINT64_MAX, &row->counter[c])) {
			set_error(ctx->err, ctx->errlen,
				  "line %u: bad %s '%s'", lineno,
				  thpnuma_policy_counter_names[c], w[c + 2]);
			return -EINVAL;
		}
	}
	pt->nr++;
	return 0;
}

int policies_parse(const char *text, struct policy_table *pt, char *err,
		   size_t errlen)
{
	struct parse_ctx ctx = { pt, err, errlen, false };
	int ret;

	pt->nr = 0;
	pt->rows = NULL;
	ret = for_each_line(text, add_policy_line, &ctx);
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
	fprintf(out, "%-18s %14s", "policy", "tasks");
	for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
		fprintf(out, " %14s", thpnuma_policy_counter_names[c]);
	fputc('\n', out);
	for (unsigned int i = 0; i < pt->nr; i++) {
		fprintf(out, "%-18s %14" PRIu64, pt->rows[i].policy,
			pt->rows[i].tasks);
		for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
			fprintf(out, " %14" PRIu64, pt->rows[i].counter[c]);
		fputc('\n', out);
	}
}

void policies_write_json(FILE *out, const struct policy_table *pt)
{
	struct json_writer j;

	json_begin(&j, out, JSON_SPACED, false);
	json_object(&j, "policies", false);
	for (unsigned int i = 0; i < pt->nr; i++) {
		json_object(&j, pt->rows[i].policy, false);
		json_u64(&j, "tasks", pt->rows[i].tasks);
		for (int c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++)
			json_u64(&j, thpnuma_policy_counter_names[c],
				 pt->rows[i].counter[c]);
		json_close(&j);
	}
	json_end(&j);
}

void policies_write_prometheus(FILE *out, const struct policy_table *pt)
{
	unsigned int i;
	int c;

	fputs("# HELP thpnuma_policy_tasks Processes with an override to this policy.\n"
	      "# TYPE thpnuma_policy_tasks gauge\n", out);
	for (i = 0; i < pt->nr; i++) {
		fputs("thpnuma_policy_tasks{policy=", out);
		prometheus_write_label_value(out, pt->rows[i].policy);
		fprintf(out, "} %" PRIu64 "\n", pt->rows[i].tasks);
	}
	for (c = 0; c < THPNUMA_NR_POLICY_COUNTERS; c++) {
		const char *name = thpnuma_policy_counter_names[c];

		fprintf(out, "# HELP thpnuma_policy_%s_total %s\n", name,
			thpnuma_policy_counter_help[c]);
		fprintf(out, "# TYPE thpnuma_policy_%s_total counter\n", name);
		for (i = 0; i < pt->nr; i++) {
			fprintf(out, "thpnuma_policy_%s_total{policy=", name);
			prometheus_write_label_value(out, pt->rows[i].policy);
			fprintf(out, "} %" PRIu64 "\n", pt->rows[i].counter[c]);
		}
	}
}
