/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for thpnuma's debugfs orders file (per node, THP kind and order:
 * how the faults ended; kinds and outcomes named as in counters.h) and the
 * writers stat uses for it: a table summed over nodes, JSON, Prometheus.
 * No I/O besides the FILE * given.
 */
#ifndef THPNUMA_ORDERS_H
#define THPNUMA_ORDERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "counters.h"

/* An order's size: base pages are 4 KiB on x86_64, as in the file. */
#define ORDER_SIZE_KB(order)	(4u << (order))

struct order_row {
	int node;
	unsigned int kind;		/* enum thpnuma_kind */
	unsigned int order;		/* 1 to THPNUMA_MAX_THP_ORDER */
	uint64_t count[THPNUMA_NR_ORDER_OUTCOMES];
};

struct thpnuma_orders {
	unsigned int nr_rows;
	struct order_row *rows;
};

/*
 * Parse the whole orders file: the header "node kind order size_kb" and
 * the outcome columns, then rows sorted by node, kind (counters.h's
 * order) and descending order, each once. A header alone means nothing
 * was counted. On failure returns -EINVAL (or -ENOMEM) and writes a
 * one-line reason naming the line into @err.
 */
int orders_parse(const char *text, struct thpnuma_orders *o,
		 char *err, size_t errlen);
void orders_free(struct thpnuma_orders *o);

/* Keep only @node's rows; a node without any is left with none. */
void orders_select_node(struct thpnuma_orders *o, int node);

/* One row per kind and order, summed over the nodes of @o. */
void orders_write_table(FILE *out, const struct thpnuma_orders *o);
struct json_writer;
/* An "orders" member: one object per row, into the caller's document. */
void orders_write_json(struct json_writer *j, const struct thpnuma_orders *o);
void orders_write_prometheus(FILE *out, const struct thpnuma_orders *o);

#endif /* THPNUMA_ORDERS_H */
