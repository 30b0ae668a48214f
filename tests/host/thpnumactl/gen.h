/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixtures generated from module/counters.h: the stats, orders and hist
 * files the tests feed the parsers, built from the counter tables and
 * the histogram layout, so that a counter added to counters.h is in every
 * fixture without a fixture to edit. The broken (bad-*) files are good
 * generated ones with one thing changed.
 *
 * Every function returning char * returns a malloc'd string; those taking
 * char * (not const) consume it: line_set(stats_seq(0, 1), 3, "abc").
 *
 * The few real recordings in fixtures/ are read with *_recording(), which
 * brings them up to the current tables: see gen_upgrade().
 */
#ifndef THPNUMA_TEST_GEN_H
#define THPNUMA_TEST_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "counters.h"

/* Surgery on one line of space-separated fields ending in "\n". */
char *line_drop(char *line, int field);
char *line_insert(char *line, int field, const char *word);
char *line_set(char *line, int field, const char *word);
/* Concatenate @n strings, consuming them. */
char *cat(int n, ...);
char *str(const char *s);

/* stats: "node" and the node counters, then one row per node. */
char *stats_header(void);
char *stats_row(int node, const uint64_t *value);
/* Node @node's row with the values @first, @first + 1, ... */
char *stats_seq(int node, uint64_t first);
#define STATS_FIELD(counter)	(1 + (counter))

/* orders: "node kind order size_kb" and the outcomes. */
char *orders_header(void);
/* A row with @local (the first outcome) and 0 for the others. */
char *orders_row(int node, const char *kind, int order, unsigned int size_kb,
		 uint64_t local);
#define ORDERS_FIELD(outcome)	(4 + (outcome))

/* hist: "node outcome count sum_ns" and one column per bucket. */
char *hist_header(void);
/* @nr (bucket, count) pairs follow @nr; unnamed buckets are 0. */
char *hist_row(int node, const char *outcome, uint64_t count, uint64_t sum,
	       int nr, ...);
/* Every outcome of @node, all 0. */
char *hist_zero_rows(int node);
#define HIST_FIELD(bucket)	(4 + (bucket))

/* The generated file @name, or NULL if none has that name. */
char *gen_fixture(const char *name);
/* The name of generated file @i, or NULL past the last. */
const char *gen_fixture_name(size_t i);

/*
 * A recording as the current module would have written it: the first
 * @fixed columns as they are, then @names in table order, each with the
 * recorded value or 0 if the recording has no such column. Identical to
 * @text when the recording has every column, in order.
 */
char *gen_upgrade(const char *text, int fixed, const char *const *names,
		  int nr);
/* The first of @names the header of @text lacks, or NULL. */
const char *gen_lacks(const char *text, const char *const *names, int nr);

/* The recordings in TEST_FIXTURES, upgraded. */
char *stats_recording(const char *name);
char *orders_recording(const char *name);
char *policies_recording(const char *name);

#endif /* THPNUMA_TEST_GEN_H */
