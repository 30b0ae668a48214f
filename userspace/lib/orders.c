// SPDX-License-Identifier: GPL-2.0
/* The orders file's parser and writers; see orders.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "orders.h"
#include "stats.h"
#include "text.h"

/* node kind order size_kb, then the outcomes. */
#define ORDERS_LEAD_COLUMNS	4
/* Room for the outcome columns a newer module may add. */
#define ORDERS_MAX_COLUMNS	32
/* Every (node, kind, order) once: rows can be no more (their ranks rise). */
#define ORDERS_MAX_ROWS \
	(STATS_MAX_NODES * THPNUMA_NR_KINDS * THPNUMA_MAX_THP_ORDER)

static const char *const lead_columns[ORDERS_LEAD_COLUMNS] = {
	"node", "kind", "order", "size_kb",
};

struct orders_parser {
	int nr_columns;
	/* Column of each outcome in a row. */
	int column[THPNUMA_NR_ORDER_OUTCOMES];
	struct thpnuma_orders *o;
	char *err;
	size_t errlen;
};

static int parse_header(char *line, unsigned int lineno, void *ctx)
{
	struct orders_parser *p = ctx;
	char *field[ORDERS_MAX_COLUMNS];
	int n, i;

	n = split_fields(line, field, ORDERS_MAX_COLUMNS);
	if (n < 0) {
		set_error(p->err, p->errlen, "line %u: more than %d columns",
			  lineno, ORDERS_MAX_COLUMNS);
		return -EINVAL;
	}
	for (i = 0; i < ORDERS_LEAD_COLUMNS; i++) {
		if (i < n && !strcmp(field[i], lead_columns[i]))
			continue;
		set_error(p->err, p->errlen,
			  "line %u: header does not start with \"node kind order size_kb\"",
			  lineno);
		return -EINVAL;
	}
	p->nr_columns = n;
	return find_columns(field, ORDERS_LEAD_COLUMNS, n,
			    thpnuma_order_outcome_names,
			    THPNUMA_NR_ORDER_OUTCOMES, p->column, lineno,
			    p->err, p->errlen);
}

/* The file's sort key: node, kind, then the largest order first. */
static unsigned long row_rank(const struct order_row *r)
{
	return ((unsigned long)r->node * THPNUMA_NR_KINDS + r->kind) *
	       THPNUMA_ORDER_SLOTS + THPNUMA_MAX_THP_ORDER - r->order;
}

static int lookup_kind(const char *name)
{
	int k;

	for (k = 0; k < THPNUMA_NR_KINDS; k++)
		if (!strcmp(name, thpnuma_kind_names[k]))
			return k;
	return -1;
}

/* A row's node, kind, order and size_kb into @r. */
static int parse_key(char **field, unsigned int lineno,
		     struct order_row *r, struct orders_parser *p)
{
	int kind = lookup_kind(field[1]);
	uint64_t node, order, size;

	if (parse_decimal(field[0], STATS_MAX_NODES - 1, &node)) {
		set_error(p->err, p->errlen, "line %u: bad node id \"%s\"",
			  lineno, field[0]);
		return -EINVAL;
	}
	if (kind < 0) {
		set_error(p->err, p->errlen,
			  "line %u: unknown THP kind \"%s\" (a module newer than thpnumactl?)",
			  lineno, field[1]);
		return -EINVAL;
	}
	if (parse_decimal(field[2], THPNUMA_MAX_THP_ORDER, &order) ||
	    !order) {
		set_error(p->err, p->errlen,
			  "line %u: bad order \"%s\" (1 to %d)", lineno,
			  field[2], THPNUMA_MAX_THP_ORDER);
		return -EINVAL;
	}
	if (parse_decimal(field[3], UINT64_MAX, &size) ||
	    size != ORDER_SIZE_KB(order)) {
		set_error(p->err, p->errlen,
			  "line %u: size_kb \"%s\" is not order %" PRIu64
			  "'s %u", lineno, field[3], order,
			  ORDER_SIZE_KB(order));
		return -EINVAL;
	}
	r->node = (int)node;
	r->kind = kind;
	r->order = order;
	return 0;
}

static int parse_row(char *line, unsigned int lineno, void *ctx)
{
	struct orders_parser *p = ctx;
	struct thpnuma_orders *o = p->o;
	struct order_row *r = &o->rows[o->nr_rows];
	char *field[ORDERS_MAX_COLUMNS];
	int n, c;

	n = split_fields(line, field, ORDERS_MAX_COLUMNS);
	if (n != p->nr_columns) {
		set_error(p->err, p->errlen,
			  "line %u: %s fields, the header has %d", lineno,
			  n >= 0 && n < p->nr_columns ? "too few" : "too many",
			  p->nr_columns);
		return -EINVAL;
	}
	if (parse_key(field, lineno, r, p))
		return -EINVAL;
	if (o->nr_rows && row_rank(r) <= row_rank(r - 1)) {
		if (row_rank(r) == row_rank(r - 1))
			set_error(p->err, p->errlen,
				  "line %u: node %d %s order %u appears twice",
				  lineno, r->node, thpnuma_kind_names[r->kind],
				  r->order);
		else
			set_error(p->err, p->errlen,
				  "line %u: out of order (rows go by node, then kind, then order from largest to smallest)",
				  lineno);
		return -EINVAL;
	}
	for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
		if (parse_counter(field[p->column[c]],
				thpnuma_order_outcome_names[c], lineno,
				&r->count[c], p->err, p->errlen))
			return -EINVAL;
	o->nr_rows++;
	return 0;
}

int orders_parse(const char *text, struct thpnuma_orders *o,
		 char *err, size_t errlen)
{
	struct orders_parser p = { .o = o, .err = err, .errlen = errlen };
	int ret = -ENOMEM;

	o->nr_rows = 0;
	o->rows = calloc(ORDERS_MAX_ROWS, sizeof(*o->rows));
	if (o->rows)
		ret = parse_table(text, "orders", parse_header, parse_row, &p,
				  err, errlen);
	if (ret == -ENOMEM)
		set_error(err, errlen, "out of memory");
	if (ret)
		orders_free(o);
	return ret;
}

void orders_free(struct thpnuma_orders *o)
{
	free(o->rows);
	o->rows = NULL;
	o->nr_rows = 0;
}

void orders_select_node(struct thpnuma_orders *o, int node)
{
	unsigned int i, kept = 0;

	for (i = 0; i < o->nr_rows; i++)
		if (o->rows[i].node == node)
			o->rows[kept++] = o->rows[i];
	o->nr_rows = kept;
}

void orders_write_table(FILE *out, const struct thpnuma_orders *o)
{
	uint64_t sum[THPNUMA_NR_KINDS][THPNUMA_ORDER_SLOTS]
		    [THPNUMA_NR_ORDER_OUTCOMES] = { 0 };
	bool seen[THPNUMA_NR_KINDS][THPNUMA_ORDER_SLOTS] = { 0 };
	int width = TABLE_MIN_CELL_WIDTH, k, ord, c;
	char label[32];
	unsigned int i;

	if (!o->nr_rows) {
		fputs("orders: no THP of any kind or order counted yet\n", out);
		return;
	}
	for (i = 0; i < o->nr_rows; i++) {
		const struct order_row *r = &o->rows[i];

		seen[r->kind][r->order] = true;
		for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
			uint64_t *s = &sum[r->kind][r->order][c];

			*s = add_saturating(*s, r->count[c]);
			width = table_widen(width, *s);
		}
	}
	table_put_label(out, "orders");
	for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
		fprintf(out, " %*s", width, thpnuma_order_outcome_names[c]);
	fputc('\n', out);
	table_put_rule(out, THPNUMA_NR_ORDER_OUTCOMES, width);
	for (k = 0; k < THPNUMA_NR_KINDS; k++) {
		for (ord = THPNUMA_MAX_THP_ORDER; ord > 0; ord--) {
			if (!seen[k][ord])
				continue;
			snprintf(label, sizeof(label), "%s %ukB",
				 thpnuma_kind_names[k], ORDER_SIZE_KB(ord));
			table_put_label(out, label);
			for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
				fprintf(out, " %*" PRIu64, width,
					sum[k][ord][c]);
			fputc('\n', out);
		}
	}
}

/* One row per line, as the file has them: per node, not summed. */
void orders_write_json(struct json_writer *j, const struct thpnuma_orders *o)
{
	unsigned int i;
	int c;

	json_array(j, "orders", true);
	for (i = 0; i < o->nr_rows; i++) {
		const struct order_row *r = &o->rows[i];

		json_object(j, NULL, false);
		json_long(j, "node", r->node);
		json_string(j, "kind", thpnuma_kind_names[r->kind]);
		json_long(j, "order", r->order);
		json_long(j, "size_kb", ORDER_SIZE_KB(r->order));
		for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
			json_u64(j, thpnuma_order_outcome_names[c],
				 r->count[c]);
		json_close(j);
	}
	json_close(j);
}

/*
 * One counter per outcome, as stat's per-node counters: passthrough
 * counts allocations, the others THPs or faults, so no outcome label
 * invites summing them.
 */
void orders_write_prometheus(FILE *out, const struct thpnuma_orders *o)
{
	unsigned int i;
	int c;

	for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
		const char *name = thpnuma_order_outcome_names[c];

		fprintf(out, "# HELP thpnuma_order_%s_total %s\n", name,
			thpnuma_order_outcome_help[c]);
		fprintf(out, "# TYPE thpnuma_order_%s_total counter\n", name);
		for (i = 0; i < o->nr_rows; i++) {
			const struct order_row *r = &o->rows[i];

			fprintf(out, "thpnuma_order_%s_total{node=\"%d\",kind=\"%s\",size_kb=\"%u\"} %"
				PRIu64 "\n", name, r->node,
				thpnuma_kind_names[r->kind],
				ORDER_SIZE_KB(r->order), r->count[c]);
		}
	}
}
