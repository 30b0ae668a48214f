// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for userspace/lib/orders.c: the orders file parser fed the
 * recorded file, files built from counters.h's names (here and in gen.c)
 * and broken ones,
 * the node filter, and the table, JSON and Prometheus writers.
 * Fixtures and outputs: see fixture.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "fixture.h"
#include "gen.h"
#include "json.h"
#include "orders.h"

static void expect_refused(struct __test_metadata *_metadata,
			   const char *name, const char *text,
			   const char *reason)
{
	struct thpnuma_orders o;
	char err[512] = "";
	int ret = orders_parse(text, &o, err, sizeof(err));

	EXPECT_TRUE(ret == -EINVAL && strstr(err, reason))
		TH_LOG("%s is refused with \"%s\" (got %d, \"%s\")", name,
		       reason, ret, err);
	EXPECT_TRUE(o.rows == NULL && o.nr_rows == 0)
		TH_LOG("%s: nothing is left allocated on error", name);
}

/* The header counters.h implies, without outcome @skip (-1: none). */
static void header(char *buf, size_t len, int skip)
{
	int c;

	snprintf(buf, len, "node kind order size_kb");
	for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
		if (c == skip)
			continue;
		strncat(buf, " ", len - strlen(buf) - 1);
		strncat(buf, thpnuma_order_outcome_names[c],
			len - strlen(buf) - 1);
	}
	strncat(buf, "\n", len - strlen(buf) - 1);
}

static char *capture_table(const struct thpnuma_orders *o)
{
	struct capture c;

	orders_write_table(capture_start(&c), o);
	return capture_end(&c);
}

static char *capture_json(const struct thpnuma_orders *o)
{
	struct json_writer j;
	struct capture c;

	json_begin(&j, capture_start(&c), JSON_SPACED, true);
	orders_write_json(&j, o);
	json_end(&j);
	return capture_end(&c);
}

static char *capture_prometheus(const struct thpnuma_orders *o)
{
	struct capture c;

	orders_write_prometheus(capture_start(&c), o);
	return capture_end(&c);
}

/*
 * orders-2node.txt is a real module's orders file. As for good-2node.txt
 * (test_stats.c): it parses while it has every outcome of counters.h;
 * once an outcome is added after it was recorded, thpnumactl refuses it
 * as an older module's file, naming that outcome, and the other tests
 * read it brought up to the table, the new outcome 0.
 */
TEST(recording_orders_2node)
{
	char *raw = slurp("orders-2node.txt"), *up = orders_recording("orders-2node.txt");
	const char *lacks = gen_lacks(raw, thpnuma_order_outcome_names,
				      THPNUMA_NR_ORDER_OUTCOMES);
	struct thpnuma_orders o;
	char err[256] = "", want[128];

	if (!lacks) {
		EXPECT_STREQ(raw, up)
			TH_LOG("with every outcome, the upgraded copy is the recording");
		EXPECT_EQ(0, orders_parse(raw, &o, err, sizeof(err)))
			TH_LOG("orders-2node.txt parses (%s)", err);
		if (!err[0])
			orders_free(&o);
	} else {
		ksft_print_msg("orders-2node.txt was recorded before outcome %s: refused as an older module's file\n",
			       lacks);
		snprintf(want, sizeof(want), "line 1: header lacks column \"%s\"",
			 lacks);
		expect_refused(_metadata, "orders-2node.txt", raw, want);
	}
	free(raw);
	free(up);
}

TEST(fixture)
{
	char err[256] = "", *text = orders_recording("orders-2node.txt");
	struct thpnuma_orders o;
	const struct order_row *r;

	ASSERT_EQ(0, orders_parse(text, &o, err, sizeof(err)))
		TH_LOG("orders-2node.txt parses (%s)", err);
	free(text);
	ASSERT_EQ(5, o.nr_rows);
	r = &o.rows[1];
	EXPECT_TRUE(r->node == 0 && r->kind == THPNUMA_KIND_ANON &&
		    r->order == 4 && r->count[THPNUMA_ORDER_LOCAL] == 100 &&
		    r->count[THPNUMA_ORDER_REMOTE] == 3)
		TH_LOG("row 2: node 0 anon order 4, local 100 remote 3");
	r = &o.rows[4];
	EXPECT_TRUE(r->node == 1 && r->kind == THPNUMA_KIND_SHMEM &&
		    r->order == 2 && r->count[THPNUMA_ORDER_FALLBACK] == 7)
		TH_LOG("row 5: node 1 shmem order 2, fallback 7");

	text = capture_table(&o);
	EXPECT_TRUE(strstr(text, "\nanon 2048kB                   15               4               1               1\n") != NULL)
		TH_LOG("table: anon 2048kB summed over both nodes:\n%s", text);
	EXPECT_TRUE(strstr(text, "anon 2048kB") < strstr(text, "anon 64kB") &&
		    strstr(text, "anon 64kB") < strstr(text, "shmem 2048kB") &&
		    strstr(text, "shmem 2048kB") < strstr(text, "shmem 16kB"))
		TH_LOG("table: by kind, the largest size first");
	free(text);

	text = capture_json(&o);
	save("orders-2node.json", text);
	EXPECT_TRUE(strstr(text, "{\"node\": 1, \"kind\": \"shmem\", \"order\": 2, \"size_kb\": 16, \"local\": 0, \"remote\": 0, \"fallback\": 7, \"passthrough\": 0}") != NULL)
		TH_LOG("JSON: one row per line, the file's keys:\n%s", text);
	free(text);

	text = capture_prometheus(&o);
	save("orders-2node.prom", text);
	EXPECT_TRUE(strstr(text, "thpnuma_order_fallback_total{node=\"1\",kind=\"shmem\",size_kb=\"16\"} 7\n") != NULL)
		TH_LOG("Prometheus: node, kind and size_kb labels");
	free(text);

	orders_select_node(&o, 1);
	EXPECT_TRUE(o.nr_rows == 2 && o.rows[0].node == 1 &&
		    o.rows[1].node == 1)
		TH_LOG("selecting node 1 keeps its two rows, in order");
	text = capture_table(&o);
	EXPECT_TRUE(strstr(text, "\nanon 2048kB                    3               4               0               1\n") &&
		    !strstr(text, "64kB"))
		TH_LOG("table of node 1 alone:\n%s", text);
	free(text);
	orders_select_node(&o, 7);
	EXPECT_EQ(0, o.nr_rows);
	text = capture_table(&o);
	EXPECT_STREQ("orders: no THP of any kind or order counted yet\n", text);
	free(text);
	orders_free(&o);
}

/* Every kind and order of counters.h, UINT64_MAX on two nodes. */
TEST(every_kind_and_order)
{
	char *text, err[256] = "";
	size_t len = 1 << 16, used;
	struct thpnuma_orders o;
	int node, k, ord, c;

	text = malloc(len);
	ASSERT_NE(NULL, text);
	header(text, len, -1);
	used = strlen(text);
	for (node = 0; node < 2; node++)
		for (k = 0; k < THPNUMA_NR_KINDS; k++)
			for (ord = THPNUMA_MAX_THP_ORDER; ord > 0; ord--) {
				used += snprintf(text + used, len - used,
						 "%d %s %d %u", node,
						 thpnuma_kind_names[k], ord,
						 ORDER_SIZE_KB(ord));
				for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++)
					used += snprintf(text + used,
							 len - used,
							 " 18446744073709551615");
				used += snprintf(text + used, len - used, "\n");
			}
	ASSERT_EQ(0, orders_parse(text, &o, err, sizeof(err)))
		TH_LOG("%s", err);
	free(text);
	EXPECT_EQ(2 * THPNUMA_NR_KINDS * THPNUMA_MAX_THP_ORDER, o.nr_rows);
	text = capture_table(&o);
	EXPECT_TRUE(strstr(text, " 18446744073709551615\n") != NULL)
		TH_LOG("table: the sum of two nodes saturates");
	EXPECT_TRUE(strstr(text, "anon 8kB") && strstr(text, "shmem 2048kB"))
		TH_LOG("table: order 1 (8kB) to 9 (2048kB)");
	free(text);
	text = capture_json(&o);
	save("orders-every.json", text);
	free(text);
	text = capture_prometheus(&o);
	save("orders-every.prom", text);
	free(text);
	orders_free(&o);
}

/* A header without any one outcome is refused, naming it. */
TEST(insists_on_every_outcome)
{
	char text[512], err[256];
	struct thpnuma_orders o;
	int c;

	for (c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
		header(text, sizeof(text), c);
		EXPECT_EQ(-EINVAL, orders_parse(text, &o, err, sizeof(err)));
		EXPECT_TRUE(strstr(err, thpnuma_order_outcome_names[c]) != NULL)
			TH_LOG("without %s: \"%s\"",
			       thpnuma_order_outcome_names[c], err);
	}
}

TEST(tolerated)
{
	struct thpnuma_orders o;
	char err[256] = "";

	/* An outcome a newer module adds; outcomes found by name. */
	ASSERT_EQ(0, orders_parse("node kind order size_kb passthrough new local remote fallback\r\n"
				  "0 anon 9 2048 1 99 2 3 4\r\n\n",
				  &o, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_TRUE(o.nr_rows == 1 && o.rows[0].count[THPNUMA_ORDER_LOCAL] == 2 &&
		    o.rows[0].count[THPNUMA_ORDER_PASSTHROUGH] == 1 &&
		    o.rows[0].count[THPNUMA_ORDER_FALLBACK] == 4)
		TH_LOG("unknown column skipped, CRLF and blank lines too");
	orders_free(&o);
	ASSERT_EQ(0, orders_parse("node kind order size_kb local remote fallback passthrough\n",
				  &o, err, sizeof(err)));
	EXPECT_EQ(0, o.nr_rows);
	orders_free(&o);
}

TEST(refuses_broken_files)
{
	char h[256], text[512];

	header(h, sizeof(h), -1);
	expect_refused(_metadata, "empty", "\n\t\n", "empty orders file");
	expect_refused(_metadata, "no header", "0 anon 9 2048 1 0 0 0\n",
		       "line 1: header does not start with");
	expect_refused(_metadata, "twice",
		       "node kind order size_kb local remote local fallback passthrough\n",
		       "column \"local\" appears twice");
#define ROW(name, row, reason) do {					\
		snprintf(text, sizeof(text), "%s%s", h, row);		\
		expect_refused(_metadata, name, text, reason);		\
	} while (0)
	ROW("node", "x anon 9 2048 1 0 0 0\n", "line 2: bad node id \"x\"");
	ROW("node 1024", "1024 anon 9 2048 1 0 0 0\n", "bad node id \"1024\"");
	ROW("kind", "0 ANON 9 2048 1 0 0 0\n", "unknown THP kind \"ANON\"");
	ROW("order 0", "0 anon 0 4 1 0 0 0\n", "bad order \"0\" (1 to 9)");
	ROW("order -1", "0 anon -1 2 1 0 0 0\n", "bad order \"-1\"");
	ROW("size", "0 anon 4 2048 1 0 0 0\n",
	    "size_kb \"2048\" is not order 4's 64");
	ROW("size text", "0 anon 9 2M 1 0 0 0\n", "size_kb \"2M\"");
	ROW("few", "0 anon 9 2048 1 0 0\n", "too few fields");
	ROW("many", "0 anon 9 2048 1 0 0 0 0\n", "too many fields");
	ROW("negative", "0 anon 9 2048 1 -1 0 0\n",
	    "remote value \"-1\" is not a number");
	ROW("overflow", "0 anon 9 2048 18446744073709551616 0 0 0\n",
	    "exceeds 64 bits");
	ROW("duplicate", "0 anon 9 2048 1 0 0 0\n0 anon 9 2048 1 0 0 0\n",
	    "line 3: node 0 anon order 9 appears twice");
	ROW("orders rising", "0 anon 4 64 1 0 0 0\n0 anon 9 2048 1 0 0 0\n",
	    "line 3: out of order");
	ROW("kinds", "0 shmem 9 2048 1 0 0 0\n0 anon 9 2048 1 0 0 0\n",
	    "line 3: out of order");
	ROW("nodes", "1 anon 9 2048 1 0 0 0\n0 anon 9 2048 1 0 0 0\n",
	    "line 3: out of order");
#undef ROW
}

/* The generated broken files (gen.c), as cli.sh feeds them to stat. */
FIXTURE(orders_file) {};
FIXTURE_SETUP(orders_file) {}
FIXTURE_TEARDOWN(orders_file) {}

FIXTURE_VARIANT(orders_file) {
	const char *file, *reason;
};

#define REFUSED(id, name, why)						\
	FIXTURE_VARIANT_ADD(orders_file, id) {				\
		.file = name, .reason = why,				\
	}
REFUSED(orders_bad_empty, "orders-bad-empty.txt", "empty orders file");
REFUSED(orders_bad_header, "orders-bad-header.txt",
	"line 1: header does not start with \"node kind order size_kb\"");
REFUSED(orders_bad_header_lacks_outcome,
	"orders-bad-header-lacks-outcome.txt",
	"line 1: header lacks column \"fallback\"");
REFUSED(orders_bad_kind, "orders-bad-kind.txt",
	"line 2: unknown THP kind \"file\"");
REFUSED(orders_bad_order_range, "orders-bad-order-range.txt",
	"line 2: bad order \"10\" (1 to 9)");
REFUSED(orders_bad_size, "orders-bad-size.txt",
	"line 2: size_kb \"4096\" is not order 9's 2048");
REFUSED(orders_bad_duplicate, "orders-bad-duplicate.txt",
	"line 3: node 0 anon order 9 appears twice");
REFUSED(orders_bad_order, "orders-bad-order.txt", "line 3: out of order");
REFUSED(orders_bad_non_numeric, "orders-bad-non-numeric.txt",
	"line 2: remote value \"x\" is not a number");
REFUSED(orders_bad_overflow, "orders-bad-overflow.txt",
	"line 2: local value \"18446744073709551616\" exceeds 64 bits");
REFUSED(orders_bad_missing_field, "orders-bad-missing-field.txt",
	"line 2: too few fields");
#undef REFUSED

TEST_F(orders_file, is_refused)
{
	char *text = gen_fixture(variant->file);

	ASSERT_NE(NULL, text);
	expect_refused(_metadata, variant->file, text, variant->reason);
	free(text);
}

TEST_HARNESS_MAIN
