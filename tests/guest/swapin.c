// SPDX-License-Identifier: GPL-2.0
/*
 * Swap-in as a large folio (6.12+, from zram) is a THP fault path the
 * policy covers, counted as kind swapin. 64 kB folios are faulted on node
 * 0, paged out (MADV_PAGEOUT), and read back from node 0's CPU:
 *  - node 0 free, strict-local: they come back as local 64 kB folios,
 *    and the orders file's swapin row counts each of them;
 *  - node 0 full (mlocked to its low watermark), strict-local: no 64 kB
 *    folio comes back on node 1, the kernel's choice for some of them,
 *    and each swap-in counts once;
 *  - the same under the kernel policy: each swap-in counts once too.
 *    How many the kernel puts on node 1 is logged, not asserted: kswapd
 *    drops the swap cache's copies of the folios read back so far, and
 *    how far it keeps node 0 above its low watermark depends on timing
 *    (0 to 71 of 256 in one afternoon's runs).
 * Needs the zram flag (MANIFEST).
 */
#include "test_util.h"
#include "kselftest.h"

#define REGION		(16 * MiB)
#define ORDER_64K	4
#define BLOCKS		(long)(REGION / (64 * 1024))
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif

struct outcome {
	long folios[MAX_NODES][FOLIO_ORDERS];
	struct orders_table o0, o1;
	int err;
};

static long swapin_rows(const struct outcome *r, int outcome)
{
	long sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		sum += orders_delta(&r->o0, &r->o1, n, THPNUMA_KIND_SWAPIN,
				    ORDER_64K, outcome);
	return sum;
}

/*
 * A child on node 0's CPU faults and pages out the region, waits while
 * node 0 is filled (@fill), reads it back and reports its folios.
 */
static void swap_round_trip(bool fill, struct outcome *r)
{
	int to_child[2], to_parent[2];
	pid_t child, filler = 0;
	char c = 0;

	memset(r, 0, sizeof(*r));
	if (pipe(to_child) || pipe(to_parent)) {
		r->err = -1;
		return;
	}
	child = fork();
	if (child == 0) {
		char *p;
		long folios[MAX_NODES][FOLIO_ORDERS];
		int ret;

		pin_to_node(0);
		p = map_hpage_aligned(REGION, MADV_HUGEPAGE);
		touch_region(p, REGION);
		ret = madvise(p, REGION, MADV_PAGEOUT);
		if (write(to_parent[1], &c, 1) != 1 ||
		    read(to_child[0], &c, 1) != 1)
			_exit(1);
		for (size_t off = 0; off < REGION; off += BASE_PAGE_SIZE)
			c += ((volatile char *)p)[off];
		ret = ret ?: region_folios(p, REGION, folios);
		if (write(to_parent[1], folios, sizeof(folios)) !=
		    sizeof(folios))
			_exit(1);
		_exit(ret ? 1 : 0);
	}
	if (child < 0 || read(to_parent[0], &c, 1) != 1) {
		r->err = -1;
		return;
	}
	if (fill)
		filler = start_locked_fill();
	r->err = read_orders(&r->o0);
	if (write(to_child[1], &c, 1) != 1 ||
	    read(to_parent[0], r->folios, sizeof(r->folios)) !=
	    sizeof(r->folios))
		r->err = -1;
	r->err = r->err ?: read_orders(&r->o1);
	waitpid(child, NULL, 0);
	stop_hog(filler);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

static void report(const char *label, const struct outcome *r)
{
	ksft_print_msg("%s: 64 kB folios node 0 %ld, node 1 %ld; swapin rows local %ld remote %ld fallback %ld%s\n",
		       label, r->folios[0][ORDER_64K], r->folios[1][ORDER_64K],
		       swapin_rows(r, THPNUMA_ORDER_LOCAL),
		       swapin_rows(r, THPNUMA_ORDER_REMOTE),
		       swapin_rows(r, THPNUMA_ORDER_FALLBACK),
		       r->err ? " (a step failed)" : "");
}

int main(void)
{
	char saved64[32] = "", saved2m[32] = "";
	struct thp_knobs thp;
	struct outcome r;

	ksft_print_header();
	if (access(THP_SYSFS "/hugepages-64kB/enabled", F_OK))
		ksft_exit_skip("no 64 kB mTHP size on this kernel (6.8+)\n");
	if (!swap_active())
		ksft_exit_fail_msg("no swap: the MANIFEST line needs zram\n");
	ksft_set_plan(5);
	thp_knobs_save(&thp);
	thp_knobs_quiet("madvise", "madvise");
	read_choice(THP_SYSFS "/hugepages-64kB/enabled", saved64, sizeof(saved64));
	read_choice(THP_SYSFS "/hugepages-2048kB/enabled", saved2m, sizeof(saved2m));
	write_file(THP_SYSFS "/hugepages-64kB/enabled", "madvise");
	write_file(THP_SYSFS "/hugepages-2048kB/enabled", "never");

	module_fresh_load("policy=strict-local");
	swap_round_trip(false, &r);
	report("strict-local, node 0 free", &r);
	ksft_test_result(!r.err && r.folios[0][ORDER_64K] > 0,
			 "strict-local, node 0 free: 64 kB folios swapped back in on node 0\n");
	ksft_test_result(!r.err && swapin_rows(&r, THPNUMA_ORDER_LOCAL) ==
			 r.folios[0][ORDER_64K] + r.folios[1][ORDER_64K] &&
			 !swapin_rows(&r, THPNUMA_ORDER_REMOTE),
			 "strict-local, node 0 free: each counted as a local swapin\n");

	swap_round_trip(true, &r);
	report("strict-local, node 0 full", &r);
	ksft_test_result(!r.err && !r.folios[1][ORDER_64K] &&
			 !swapin_rows(&r, THPNUMA_ORDER_REMOTE),
			 "strict-local, node 0 full: no 64 kB folio swapped in on node 1\n");
	ksft_test_result(!r.err && swapin_rows(&r, THPNUMA_ORDER_LOCAL) +
			 swapin_rows(&r, THPNUMA_ORDER_FALLBACK) == BLOCKS,
			 "strict-local, node 0 full: each 64 kB swap-in counted once, local or fallback\n");

	module_fresh_load("policy=kernel");
	swap_round_trip(true, &r);
	report("kernel, node 0 full", &r);
	ksft_test_result(!r.err && swapin_rows(&r, THPNUMA_ORDER_LOCAL) +
			 swapin_rows(&r, THPNUMA_ORDER_REMOTE) +
			 swapin_rows(&r, THPNUMA_ORDER_FALLBACK) == BLOCKS,
			 "kernel, node 0 full: each 64 kB swap-in counted once\n");
	module_unload();

	if (saved64[0])
		write_file(THP_SYSFS "/hugepages-64kB/enabled", saved64);
	if (saved2m[0])
		write_file(THP_SYSFS "/hugepages-2048kB/enabled", saved2m);
	thp_knobs_restore(&thp);
	ksft_finished();
}
