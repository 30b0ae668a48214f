// SPDX-License-Identifier: GPL-2.0
/*
 * THP kinds beyond anonymous PMD faults: shmem/tmpfs huge pages (every
 * kernel) and anonymous mTHP (6.8+, the 64 kB size). Under each policy:
 * the orders file agrees exactly with the kernel's own counters, the stats
 * file's totals with the orders file, each policy places as it promises,
 * an explicit memory policy is passthrough, and coverage leaves out what
 * it says it does.
 */
#include "test_util.h"
#include "kselftest_harness.h"
#include <sys/mount.h>
#include "die.h"

#define REGION		(64 * MiB)
#define SMALL_REGION	(16 * MiB)
#define PMD_ORDER	9
#define MTHP_KB		64
#define MTHP_ORDER	4
#define MTHP_SIZE	(MTHP_KB * 1024UL)
#define MTHP_DIR	THP_SYSFS "/hugepages-64kB"
#define TMPFS_DIR	"/tmp/thp-kinds"

enum {
	ANON = THPNUMA_KIND_ANON,
	SHMEM = THPNUMA_KIND_SHMEM,
	LOCAL = THPNUMA_ORDER_LOCAL,
	REMOTE = THPNUMA_ORDER_REMOTE,
	FALLBACK = THPNUMA_ORDER_FALLBACK,
	PASSTHROUGH = THPNUMA_ORDER_PASSTHROUGH,
};

/* The kernel's counters compared against ours, from /proc/vmstat. */
enum {
	FILE_ALLOC, FILE_FALLBACK, FAULT_ALLOC, FAULT_FALLBACK, PSWPOUT,
	SCAN_DIRECT, SCAN_KSWAPD, STEAL_KSWAPD, NR_VM_ITEMS
};

static const char *const vm_names[NR_VM_ITEMS] = {
	"thp_file_alloc", "thp_file_fallback", "thp_fault_alloc",
	"thp_fault_fallback", "pswpout", "pgscan_direct", "pgscan_kswapd",
	"pgsteal_kswapd",
};

/* And the 64 kB (and 32 kB) sizes' own stats (6.9+); -1 where absent. */
enum {
	M_ANON_ALLOC, M_ANON_FALLBACK, M_SHMEM_ALLOC, M_SHMEM_FALLBACK,
	M32_ANON_ALLOC, M32_ANON_FALLBACK,
	NR_MTHP_ITEMS
};

static const char *const mthp_names[NR_MTHP_ITEMS] = {
	"anon_fault_alloc", "anon_fault_fallback", "shmem_alloc",
	"shmem_fallback", "anon_fault_alloc", "anon_fault_fallback",
};

/* Zero-initialised before the first measure_begin(). */
struct measurement {
	long vm0[NR_VM_ITEMS], vm[NR_VM_ITEMS];		/* start, delta */
	long mthp0[NR_MTHP_ITEMS], mthp[NR_MTHP_ITEMS];
	long headroom_kb, sreclaimable_kb;		/* node 0, at start */
	bool orders_ok, folios_ok;
	struct thpnuma_stats s0, s1;
	struct orders_table o0, o1;
	long folios[MAX_NODES][FOLIO_ORDERS];	/* of the region, at the end */
};

/*
 * The kernel's counters into @vm and @mthp, with no allocation: with
 * mTHP on, a page of our own heap faulted in the measured window would be
 * a 64 kB fault that one side counts and the other does not.
 */
static void kernel_counters(long *vm, long *mthp)
{
	static char text[1 << 15];
	char key[64], *at;

	if (read_file("/proc/vmstat", text + 1, sizeof(text) - 1) < 0)
		die("read /proc/vmstat");
	text[0] = '\n';
	for (int i = 0; i < NR_VM_ITEMS; i++) {
		snprintf(key, sizeof(key), "\n%s ", vm_names[i]);
		at = strstr(text, key);
		vm[i] = at ? atol(at + strlen(key)) : -1;
	}
	for (int i = 0; i < NR_MTHP_ITEMS; i++)
		mthp[i] = mthp_stat(i < M32_ANON_ALLOC ? MTHP_KB : MTHP_KB / 2,
				    mthp_names[i]);
}

/* Our two files at the start and at the end, read raw. */
static char module_text[2][2][1 << 16];

static void read_module_text(char text[2][1 << 16])
{
	if (read_file(THPNUMA_DEBUGFS "/stats", text[0], sizeof(text[0])) < 0)
		text[0][0] = '\0';
	if (read_file(THPNUMA_DEBUGFS "/orders", text[1], sizeof(text[1])) < 0)
		text[1][0] = '\0';
}

/*
 * The kernel's counters are read innermost, so both windows hold the same
 * faults: those of the region and, after warm_up(), no others. Our files
 * are parsed after the last read: parsing callocs tables, and a heap page
 * of ours faulted between two reads, with mTHP on, would be a fault in one
 * window and not the other.
 */
static void measure_begin(struct measurement *m)
{
	m->headroom_kb = node_headroom_kb(0);
	m->sreclaimable_kb = node_meminfo_kb(0, "SReclaimable");
	read_module_text(module_text[0]);
	kernel_counters(m->vm0, m->mthp0);
}

static void measure_end(struct measurement *m, char *p, size_t size)
{
	long vm[NR_VM_ITEMS], mthp[NR_MTHP_ITEMS];

	kernel_counters(vm, mthp);
	read_module_text(module_text[1]);
	parse_stats(module_text[0][0], &m->s0);
	parse_stats(module_text[1][0], &m->s1);
	m->orders_ok = !parse_orders(module_text[0][1], &m->o0) &&
		       !parse_orders(module_text[1][1], &m->o1);
	for (int i = 0; i < NR_VM_ITEMS; i++)
		m->vm[i] = vm[i] - m->vm0[i];
	for (int i = 0; i < NR_MTHP_ITEMS; i++)
		m->mthp[i] = mthp[i] < 0 || m->mthp0[i] < 0 ? -1 :
			     mthp[i] - m->mthp0[i];
	m->folios_ok = !region_folios(p, size, m->folios);
}

/*
 * One measurement for nothing, then every page we have locked in place:
 * the buffers, heap and stack the real one uses are already faulted.
 */
static void warm_up(struct measurement *m)
{
	measure_begin(m);
	measure_end(m, NULL, 0);
	mlockall(MCL_CURRENT);
}

/* Our count of @kind, @order and @outcome for faults on @node. */
static long od(const struct measurement *m, int node, int kind, int order,
	       int outcome)
{
	return orders_delta(&m->o0, &m->o1, node, kind, order, outcome);
}

static long od_all_nodes(const struct measurement *m, int kind, int order,
			 int outcome)
{
	long sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		sum += od(m, n, kind, order, outcome);
	return sum;
}

static long sd(const struct measurement *m, int node, int c)
{
	return stat_delta(&m->s0, &m->s1, node, c);
}

/* The region's folios of @order on nodes other than 0. */
static long folios_off_node0(const struct measurement *m, int order)
{
	long sum = 0;

	for (int n = 1; n < nr_nodes(); n++)
		sum += m->folios[n][order];
	return sum;
}

static void log_measurement(struct __test_metadata *_metadata,
			    const struct measurement *m)
{
	for (int n = 0; n < nr_nodes(); n++) {
		for (int k = 0; k < THPNUMA_NR_KINDS; k++)
			for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++)
				if (od(m, n, k, o, LOCAL) || od(m, n, k, o, REMOTE) ||
				    od(m, n, k, o, FALLBACK) ||
				    od(m, n, k, o, PASSTHROUGH))
					TH_LOG("orders: node%d %s order %d: local %ld remote %ld fallback %ld passthrough %ld",
					       n, thpnuma_kind_names[k], o,
					       od(m, n, k, o, LOCAL),
					       od(m, n, k, o, REMOTE),
					       od(m, n, k, o, FALLBACK),
					       od(m, n, k, o, PASSTHROUGH));
		TH_LOG("node%d: stats local %ld remote %ld fallback %ld passthrough %ld reclaim_stall %ld; region folios: order 0 %ld, 4 %ld, 9 %ld",
		       n, sd(m, n, THPNUMA_THP_LOCAL), sd(m, n, THPNUMA_THP_REMOTE),
		       sd(m, n, THPNUMA_THP_FALLBACK), sd(m, n, THPNUMA_PASSTHROUGH),
		       sd(m, n, THPNUMA_RECLAIM_STALL), m->folios[n][0],
		       m->folios[n][MTHP_ORDER], m->folios[n][PMD_ORDER]);
	}
	TH_LOG("vmstat: thp_file_alloc %ld thp_file_fallback %ld thp_fault_alloc %ld thp_fault_fallback %ld pswpout %ld pgscan_direct %ld pgscan_kswapd %ld pgsteal_kswapd %ld",
	       m->vm[FILE_ALLOC], m->vm[FILE_FALLBACK], m->vm[FAULT_ALLOC],
	       m->vm[FAULT_FALLBACK], m->vm[PSWPOUT], m->vm[SCAN_DIRECT],
	       m->vm[SCAN_KSWAPD], m->vm[STEAL_KSWAPD]);
	TH_LOG("64kB: anon_fault_alloc %ld anon_fault_fallback %ld shmem_alloc %ld shmem_fallback %ld (-1: absent)",
	       m->mthp[M_ANON_ALLOC], m->mthp[M_ANON_FALLBACK],
	       m->mthp[M_SHMEM_ALLOC], m->mthp[M_SHMEM_FALLBACK]);
	TH_LOG("node0 at start: headroom above min %ld kB, SReclaimable %ld kB",
	       m->headroom_kb, m->sreclaimable_kb);
}

/* The files parsed, and the stats file's totals are the orders' sums. */
static void expect_totals(struct __test_metadata *_metadata,
			  const struct measurement *m)
{
	static const int stat_of[THPNUMA_NR_ORDER_OUTCOMES] = {
		[LOCAL] = THPNUMA_THP_LOCAL,
		[REMOTE] = THPNUMA_THP_REMOTE,
		[FALLBACK] = THPNUMA_THP_FALLBACK,
		[PASSTHROUGH] = THPNUMA_PASSTHROUGH,
	};

	ASSERT_TRUE(m->orders_ok);
	/*
	 * Pages kswapd swapped out have no node to read (seen on 5.10 under
	 * strict-local); then only the counters speak for the placement.
	 */
	if (!m->folios_ok && m->vm[PSWPOUT] > 0)
		TH_LOG("region's folios unreadable after %ld swap-outs",
		       m->vm[PSWPOUT]);
	else
		ASSERT_TRUE(m->folios_ok);
	for (int n = 0; n < nr_nodes(); n++) {
		for (int c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
			long sum = 0;

			for (int k = 0; k < THPNUMA_NR_KINDS; k++)
				for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++)
					sum += od(m, n, k, o, c);
			EXPECT_EQ(sd(m, n, stat_of[c]), sum) {
				TH_LOG("node %d %s", n,
				       thpnuma_order_outcome_names[c]);
			}
		}
	}
	/* No probe ran out of instances: the counts are complete. */
	EXPECT_EQ(0, read_probe_missed());
}

/*
 * Only @kind at @order was counted, and exactly as the kernel counted it:
 * each THP it got is our local or remote, each fallback ours.
 */
static void expect_exact(struct __test_metadata *_metadata,
			 const struct measurement *m, int kind, int order,
			 long alloc, long fallback)
{
	expect_totals(_metadata, m);
	EXPECT_LE(0, alloc);		/* the kernel has the counter */
	EXPECT_EQ(alloc, od_all_nodes(m, kind, order, LOCAL) +
			 od_all_nodes(m, kind, order, REMOTE));
	EXPECT_EQ(fallback, od_all_nodes(m, kind, order, FALLBACK));
	for (int k = 0; k < THPNUMA_NR_KINDS; k++) {
		for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++) {
			for (int c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
				if (k == kind && o == order)
					continue;
				EXPECT_EQ(0, od_all_nodes(m, k, o, c)) {
					TH_LOG("%s order %d %s",
					       thpnuma_kind_names[k], o,
					       thpnuma_order_outcome_names[c]);
				}
			}
		}
	}
}

static void expect_shmem_exact(struct __test_metadata *_metadata,
			       const struct measurement *m)
{
	expect_exact(_metadata, m, SHMEM, PMD_ORDER, m->vm[FILE_ALLOC],
		     m->vm[FILE_FALLBACK]);
}

static void expect_mthp_exact(struct __test_metadata *_metadata,
			      const struct measurement *m)
{
	expect_exact(_metadata, m, ANON, MTHP_ORDER, m->mthp[M_ANON_ALLOC],
		     m->mthp[M_ANON_FALLBACK]);
}

/* Nothing at all was counted: every counter of both files unchanged. */
static void expect_uncounted(struct __test_metadata *_metadata,
			     const struct measurement *m)
{
	ASSERT_TRUE(m->orders_ok);
	/* The EXPECT macros are two statements: loops need braces. */
	for (int c = 0; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
		for (int k = 0; k < THPNUMA_NR_KINDS; k++) {
			for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++) {
				EXPECT_EQ(0, od_all_nodes(m, k, o, c)) {
					TH_LOG("%s order %d %s",
					       thpnuma_kind_names[k], o,
					       thpnuma_order_outcome_names[c]);
				}
			}
		}
	}
	for (int c = 0; c < THPNUMA_NR_COUNTERS; c++) {
		EXPECT_EQ(0ULL, stat_delta_all(&m->s0, &m->s1, c)) {
			TH_LOG("%s", thpnuma_counter_names[c]);
		}
	}
}

enum region_type { ANON_SHARED, MEMFD, TMPFS_FILE, ANON_PRIVATE };

/*
 * Fault @size bytes of @type on this CPU and measure; @bind_to >= 0
 * binds the region there first (a shmem file's shared policy).
 */
static void fault_region(struct measurement *m, enum region_type type,
			 size_t size, int bind_to)
{
	int fd = -1;
	char *p;

	/* Before the mapping: mlockall() would fault it in. */
	warm_up(m);
	if (type == MEMFD)
		fd = memfd_create("thp-kinds", 0);
	else if (type == TMPFS_FILE)
		fd = open(TMPFS_DIR "/f", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (type == MEMFD || type == TMPFS_FILE) {
		if (fd < 0 || ftruncate(fd, size))
			die("file for region type %d", type);
	}
	p = type == ANON_PRIVATE ? map_hpage_aligned(size, 0) :
				   map_shared_aligned(size, fd);
	if (bind_to >= 0)
		mbind_node(p, size, MPOL_BIND, bind_to);
	measure_begin(m);
	touch_region(p, size);
	measure_end(m, p, size);
	munmap(p, size);
	if (fd >= 0)
		close(fd);
	if (type == TMPFS_FILE)
		unlink(TMPFS_DIR "/f");
}

static bool mthp_available(void)
{
	return access(MTHP_DIR "/enabled", F_OK) == 0;
}

/* THP knobs of every kind a test changes, saved and restored. */
struct kinds_knobs {
	struct thp_knobs thp;
	char shmem[32], mthp[32], mthp_shmem[32];
};

static void save_choice(const char *path, char *out, size_t size)
{
	if (read_choice(path, out, size))
		out[0] = '\0';
}

static void restore_choice(const char *path, const char *value)
{
	if (value[0])
		write_file(path, value);
}

static void kinds_knobs_save(struct kinds_knobs *k)
{
	thp_knobs_save(&k->thp);
	save_choice(THP_SYSFS "/shmem_enabled", k->shmem, sizeof(k->shmem));
	save_choice(MTHP_DIR "/enabled", k->mthp, sizeof(k->mthp));
	save_choice(MTHP_DIR "/shmem_enabled", k->mthp_shmem,
		    sizeof(k->mthp_shmem));
}

static void kinds_knobs_restore(const struct kinds_knobs *k)
{
	restore_choice(MTHP_DIR "/enabled", k->mthp);
	restore_choice(MTHP_DIR "/shmem_enabled", k->mthp_shmem);
	restore_choice(THP_SYSFS "/shmem_enabled", k->shmem);
	thp_knobs_restore(&k->thp);
}

/*
 * Anonymous THP only where advised, shmem huge pages always (PMD size:
 * the mTHP sizes stay off until a test turns 64 kB on), khugepaged quiet.
 */
static void kinds_knobs_quiet(struct __test_metadata *_metadata)
{
	thp_knobs_quiet("madvise", "madvise");
	ASSERT_EQ(0, write_file(THP_SYSFS "/shmem_enabled", "always"));
	if (mthp_available()) {
		ASSERT_EQ(0, write_file(MTHP_DIR "/enabled", "never"));
		write_file(MTHP_DIR "/shmem_enabled", "never");
	}
}

/* Anonymous faults of the 64 kB size only: PMD never, 64 kB always. */
static void mthp_only(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, write_file(THP_SYSFS "/enabled", "never"));
	ASSERT_EQ(0, write_file(MTHP_DIR "/enabled", "always"));
}

#define NO_MTHP "no " MTHP_DIR ": anonymous mTHP needs 6.8+"

FIXTURE(free_node) {
	struct kinds_knobs knobs;
};

FIXTURE_VARIANT(free_node) {
	const char *params;
};

FIXTURE_VARIANT_ADD(free_node, kernel) { .params = "policy=kernel" };
FIXTURE_VARIANT_ADD(free_node, strict_local) {
	.params = "policy=strict-local",
};
FIXTURE_VARIANT_ADD(free_node, local_then_remote) {
	.params = "policy=local-then-remote zone_reclaim=0",
};

FIXTURE_SETUP(free_node)
{
	kinds_knobs_save(&self->knobs);
	kinds_knobs_quiet(_metadata);
	ASSERT_EQ(0, module_fresh_load(variant->params));
	pin_to_node(0);
	drop_caches();
}

FIXTURE_TEARDOWN(free_node)
{
	if (module_loaded())
		module_unload();
	kinds_knobs_restore(&self->knobs);
	umount2(TMPFS_DIR, MNT_DETACH);
}

/* Every fault on node 0's CPU got a local PMD-size shmem THP. */
static void expect_shmem_all_local(struct __test_metadata *_metadata,
				   const struct measurement *m, long want)
{
	log_measurement(_metadata, m);
	expect_shmem_exact(_metadata, m);
	EXPECT_EQ(want, m->vm[FILE_ALLOC]);
	EXPECT_EQ(want, m->folios[0][PMD_ORDER]);
	EXPECT_EQ(0, folios_off_node0(m, PMD_ORDER));
	EXPECT_EQ(want, od(m, 0, SHMEM, PMD_ORDER, LOCAL));
	EXPECT_EQ(want, sd(m, 0, THPNUMA_THP_LOCAL));
	EXPECT_EQ(0, od_all_nodes(m, SHMEM, PMD_ORDER, REMOTE) +
		     od_all_nodes(m, SHMEM, PMD_ORDER, FALLBACK) +
		     od_all_nodes(m, SHMEM, PMD_ORDER, PASSTHROUGH));
}

TEST_F_TIMEOUT(free_node, shmem_anon_all_local, 120)
{
	struct measurement m = { 0 };

	fault_region(&m, ANON_SHARED, REGION, -1);
	expect_shmem_all_local(_metadata, &m, REGION / HPAGE_SIZE);
}

/* memfd lives on the internal shmem mount: shmem_enabled rules it too. */
TEST_F_TIMEOUT(free_node, memfd_all_local, 120)
{
	struct measurement m = { 0 };

	fault_region(&m, MEMFD, SMALL_REGION, -1);
	expect_shmem_all_local(_metadata, &m, SMALL_REGION / HPAGE_SIZE);
}

/* A tmpfs mount's huge=always, with shmem_enabled never. */
TEST_F_TIMEOUT(free_node, tmpfs_huge_all_local, 120)
{
	struct measurement m = { 0 };

	ASSERT_EQ(0, write_file(THP_SYSFS "/shmem_enabled", "never"));
	mkdir(TMPFS_DIR, 0755);
	ASSERT_EQ(0, mount("tmpfs", TMPFS_DIR, "tmpfs", 0, "huge=always"));
	fault_region(&m, TMPFS_FILE, SMALL_REGION, -1);
	expect_shmem_all_local(_metadata, &m, SMALL_REGION / HPAGE_SIZE);
}

TEST_F_TIMEOUT(free_node, mthp_all_local, 120)
{
	const long want = SMALL_REGION / MTHP_SIZE;
	struct measurement m = { 0 };

	if (!mthp_available())
		SKIP(return, NO_MTHP);
	mthp_only(_metadata);
	fault_region(&m, ANON_PRIVATE, SMALL_REGION, -1);
	log_measurement(_metadata, &m);
	expect_mthp_exact(_metadata, &m);
	EXPECT_EQ(want, m.mthp[M_ANON_ALLOC]);
	EXPECT_EQ(want, m.folios[0][MTHP_ORDER]);
	EXPECT_EQ(0, folios_off_node0(&m, MTHP_ORDER));
	EXPECT_EQ(want, od(&m, 0, ANON, MTHP_ORDER, LOCAL));
	EXPECT_EQ(want, sd(&m, 0, THPNUMA_THP_LOCAL));
	EXPECT_EQ(0, m.vm[FAULT_ALLOC] + m.vm[FAULT_FALLBACK]);
}

/* Anonymous shmem of the 64 kB size only (6.11+: per-size shmem_enabled). */
TEST_F_TIMEOUT(free_node, shmem_mthp_all_local, 120)
{
	const long want = SMALL_REGION / MTHP_SIZE;
	struct measurement m = { 0 };

	if (access(MTHP_DIR "/shmem_enabled", F_OK))
		SKIP(return, "no " MTHP_DIR "/shmem_enabled: needs 6.11+");
	ASSERT_EQ(0, write_file(THP_SYSFS "/shmem_enabled", "never"));
	ASSERT_EQ(0, write_file(MTHP_DIR "/shmem_enabled", "always"));
	fault_region(&m, ANON_SHARED, SMALL_REGION, -1);
	log_measurement(_metadata, &m);
	expect_exact(_metadata, &m, SHMEM, MTHP_ORDER, m.mthp[M_SHMEM_ALLOC],
		     m.mthp[M_SHMEM_FALLBACK]);
	EXPECT_EQ(want, m.mthp[M_SHMEM_ALLOC]);
	EXPECT_EQ(want, m.folios[0][MTHP_ORDER]);
	EXPECT_EQ(0, folios_off_node0(&m, MTHP_ORDER));
	EXPECT_EQ(want, od(&m, 0, SHMEM, MTHP_ORDER, LOCAL));
	EXPECT_EQ(want, sd(&m, 0, THPNUMA_THP_LOCAL));
	EXPECT_EQ(0, m.vm[FILE_ALLOC] + m.vm[FILE_FALLBACK]);
}

/*
 * An explicit policy on the shmem file (mbind on its mapping, or the
 * tmpfs mount's mpol=) wins over every thpnuma policy: each THP
 * allocation is passthrough, counted on the faulting node, and the
 * kernel puts it on node 1.
 */
static void expect_passthrough(struct __test_metadata *_metadata,
			       const struct measurement *m, long want)
{
	log_measurement(_metadata, m);
	expect_totals(_metadata, m);
	EXPECT_EQ(want, m->vm[FILE_ALLOC]);
	EXPECT_EQ(want, m->folios[1][PMD_ORDER]);
	EXPECT_EQ(0, m->folios[0][PMD_ORDER]);
	EXPECT_EQ(want, od(m, 0, SHMEM, PMD_ORDER, PASSTHROUGH));
	EXPECT_EQ(want, sd(m, 0, THPNUMA_PASSTHROUGH));
	for (int c = LOCAL; c < THPNUMA_NR_ORDER_OUTCOMES; c++) {
		if (c == PASSTHROUGH)
			continue;
		EXPECT_EQ(0, od_all_nodes(m, SHMEM, PMD_ORDER, c)) {
			TH_LOG("%s", thpnuma_order_outcome_names[c]);
		}
	}
}

TEST_F_TIMEOUT(free_node, shmem_anon_mbind_is_passthrough, 120)
{
	struct measurement m = { 0 };

	fault_region(&m, ANON_SHARED, SMALL_REGION, 1);
	expect_passthrough(_metadata, &m, SMALL_REGION / HPAGE_SIZE);
}

TEST_F_TIMEOUT(free_node, memfd_mbind_is_passthrough, 120)
{
	struct measurement m = { 0 };

	fault_region(&m, MEMFD, SMALL_REGION, 1);
	expect_passthrough(_metadata, &m, SMALL_REGION / HPAGE_SIZE);
}

TEST_F_TIMEOUT(free_node, tmpfs_mpol_is_passthrough, 120)
{
	struct measurement m = { 0 };

	mkdir(TMPFS_DIR, 0755);
	ASSERT_EQ(0, mount("tmpfs", TMPFS_DIR, "tmpfs", 0,
			   "huge=always,mpol=bind:1"));
	fault_region(&m, TMPFS_FILE, SMALL_REGION, -1);
	expect_passthrough(_metadata, &m, SMALL_REGION / HPAGE_SIZE);
}

enum expectation {
	EXACT_ONLY,		/* kernel */
	NO_REMOTE,		/* strict-local */
	NO_RECLAIM,		/* local-then-remote, zone_reclaim=0 */
};

FIXTURE(full_node) {
	struct kinds_knobs knobs;
	pid_t fill;
};

FIXTURE_VARIANT(full_node) {
	const char *params;
	enum expectation expect;
};

FIXTURE_VARIANT_ADD(full_node, kernel) {
	.params = "policy=kernel",
	.expect = EXACT_ONLY,
};

FIXTURE_VARIANT_ADD(full_node, strict_local) {
	.params = "policy=strict-local",
	.expect = NO_REMOTE,
};

FIXTURE_VARIANT_ADD(full_node, local_then_remote_zr0) {
	.params = "policy=local-then-remote zone_reclaim=0",
	.expect = NO_RECLAIM,
};

/*
 * Until kswapd stops scanning (at most 10 s): the fill woke it, and what
 * it does after the fill is not the faults' doing.
 */
static void wait_kswapd_idle(void)
{
	long last = vmstat_value("pgscan_kswapd"), now;

	for (int i = 0; i < 20; i++) {
		usleep(500 * 1000);
		now = vmstat_value("pgscan_kswapd");
		if (now == last)
			return;
		last = now;
	}
}

/*
 * Node 0 filled to its low watermark with mlocked memory: quick to fill,
 * and neither reclaim nor kswapd can give it back, so what node 0 can
 * still give is its headroom above min.
 */
FIXTURE_SETUP(full_node)
{
	self->fill = -1;
	kinds_knobs_save(&self->knobs);
	if (!swap_active())
		SKIP(return, "no swap device: the full node needs zram swap");
	/* Before the fill, which would cost 15 s for nothing. */
	if (strstr(_metadata->name, "mthp") && !mthp_available())
		SKIP(return, NO_MTHP);
	kinds_knobs_quiet(_metadata);
	ASSERT_EQ(0, module_fresh_load(variant->params));
	pin_to_node(0);
	drop_caches();
	self->fill = start_locked_fill();
	ASSERT_LT(0, self->fill);
	wait_kswapd_idle();
	TH_LOG("node0 MemFree after fill: %ld kB (watermarks min %ld low %ld kB)",
	       node_meminfo_kb(0, "MemFree"), node_watermark_kb(0, "min"),
	       node_watermark_kb(0, "low"));
}

FIXTURE_TEARDOWN(full_node)
{
	stop_hog(self->fill);
	if (module_loaded())
		module_unload();
	kinds_knobs_restore(&self->knobs);
}

/*
 * The most THPs of @size_kb node 0 could give without direct reclaim: its
 * headroom at the start, what kswapd reclaimed meanwhile (on any node, so
 * an upper bound) and, if kswapd ran, the slab its shrinkers may free.
 */
static long local_bound(const struct measurement *m, long size_kb)
{
	long kb = m->headroom_kb + m->vm[STEAL_KSWAPD] * (BASE_PAGE_SIZE / 1024);

	if (m->vm[SCAN_KSWAPD] > 0)
		kb += m->sreclaimable_kb;
	return kb / size_kb;
}

/* What each policy promises on a full node 0, for @kind at @order. */
static void expect_full_node(struct __test_metadata *_metadata,
			     const struct measurement *m, enum expectation e,
			     int kind, int order, long want)
{
	long local = od(m, 0, kind, order, LOCAL);
	long remote = od(m, 0, kind, order, REMOTE);
	long bound = local_bound(m, 4L << order);

	TH_LOG("%ld faults: local %ld (bound %ld) remote %ld", want, local,
	       bound, remote);
	switch (e) {
	case NO_REMOTE:
		EXPECT_EQ(0, od_all_nodes(m, kind, order, REMOTE));
		EXPECT_EQ(0, folios_off_node0(m, order));
		EXPECT_EQ(0ULL, stat_delta_all(&m->s0, &m->s1,
					       THPNUMA_THP_REMOTE));
		break;
	case NO_RECLAIM:
		/*
		 * Compaction only on node 0, and node 1 has room: no fault
		 * falls back, none reclaims directly (module and kernel
		 * counts), so none swaps; a swap-out could only be kswapd's,
		 * which the local attempts do not wake.
		 */
		EXPECT_EQ(0, od_all_nodes(m, kind, order, FALLBACK));
		EXPECT_EQ(want, local + remote);
		EXPECT_LE(local, bound);
		if (m->folios_ok)
			EXPECT_EQ(remote, folios_off_node0(m, order));
		EXPECT_EQ(0, sd(m, 0, THPNUMA_RECLAIM_STALL));
		EXPECT_EQ(0, m->vm[SCAN_DIRECT]);
		EXPECT_LE(m->vm[PSWPOUT], m->vm[SCAN_KSWAPD]);
		if (!m->vm[SCAN_KSWAPD])
			EXPECT_EQ(0, m->vm[PSWPOUT]);
		break;
	case EXACT_ONLY:
		break;
	}
}

TEST_F_TIMEOUT(full_node, shmem, 180)
{
	const long want = REGION / HPAGE_SIZE;
	struct measurement m = { 0 };

	fault_region(&m, ANON_SHARED, REGION, -1);
	log_measurement(_metadata, &m);
	expect_shmem_exact(_metadata, &m);
	EXPECT_EQ(want, m.vm[FILE_ALLOC] + m.vm[FILE_FALLBACK]);
	expect_full_node(_metadata, &m, variant->expect, SHMEM, PMD_ORDER,
			 want);
}

TEST_F_TIMEOUT(full_node, mthp, 180)
{
	const long want = REGION / MTHP_SIZE;
	struct measurement m = { 0 };

	if (!mthp_available())
		SKIP(return, NO_MTHP);
	mthp_only(_metadata);
	/* Larger than node 0's headroom, so some must go remote or fall back. */
	fault_region(&m, ANON_PRIVATE, REGION, -1);
	log_measurement(_metadata, &m);
	expect_mthp_exact(_metadata, &m);
	EXPECT_EQ(want, m.mthp[M_ANON_ALLOC] + m.mthp[M_ANON_FALLBACK]);
	expect_full_node(_metadata, &m, variant->expect, ANON, MTHP_ORDER,
			 want);
}

#define MTHP32_DIR	THP_SYSFS "/hugepages-32kB"

/*
 * 64 kB and 32 kB both enabled: a fault whose 64 kB attempt fails tries
 * 32 kB, one that fails that too maps a small page, and a fault next to a
 * 32 kB folio starts at 32 kB. The kernel counts every step; thpnuma each
 * fault once, at the order it finally got, or one fallback at the order
 * it tried first. Every fault that ends on small pages failed at 32 kB,
 * the smallest size, last.
 */
TEST_F_TIMEOUT(full_node, mthp_two_sizes, 180)
{
	struct measurement m = { 0 };
	long a32, f32;
	char saved[32];
	int err;

	if (!mthp_available() || read_choice(MTHP32_DIR "/enabled", saved,
					     sizeof(saved)))
		SKIP(return, NO_MTHP);
	mthp_only(_metadata);
	err = write_file(MTHP32_DIR "/enabled", "always");
	if (!err)
		fault_region(&m, ANON_PRIVATE, REGION, -1);
	write_file(MTHP32_DIR "/enabled", saved);
	ASSERT_EQ(0, err);
	a32 = m.mthp[M32_ANON_ALLOC];
	f32 = m.mthp[M32_ANON_FALLBACK];
	log_measurement(_metadata, &m);
	TH_LOG("32kB: anon_fault_alloc %ld anon_fault_fallback %ld", a32, f32);

	EXPECT_EQ(m.mthp[M_ANON_ALLOC],
		  od_all_nodes(&m, ANON, MTHP_ORDER, LOCAL) +
		  od_all_nodes(&m, ANON, MTHP_ORDER, REMOTE));
	EXPECT_EQ(a32, od_all_nodes(&m, ANON, MTHP_ORDER - 1, LOCAL) +
		       od_all_nodes(&m, ANON, MTHP_ORDER - 1, REMOTE));
	/* Once per fault: counting each step would add the 64 kB ones. */
	EXPECT_EQ(f32, od_all_nodes(&m, ANON, MTHP_ORDER, FALLBACK) +
		       od_all_nodes(&m, ANON, MTHP_ORDER - 1, FALLBACK));
	EXPECT_LE(od_all_nodes(&m, ANON, MTHP_ORDER, FALLBACK),
		  m.mthp[M_ANON_FALLBACK]);
	if (variant->expect == NO_REMOTE)
		EXPECT_EQ(0, od_all_nodes(&m, ANON, MTHP_ORDER - 1, REMOTE));
}

/* coverage: the free node's fixture, other coverage values. */
#define COVERAGE	THPNUMA_DEBUGFS "/coverage"

static void expect_coverage(struct __test_metadata *_metadata,
			    const char *want)
{
	char cur[32] = "";

	EXPECT_EQ(0, read_choice(COVERAGE, cur, sizeof(cur)));
	EXPECT_STREQ(want, cur);
}

/* The kernel tried a THP for every shmem fault; we counted none. */
static void expect_shmem_uncounted(struct __test_metadata *_metadata)
{
	struct measurement m = { 0 };

	fault_region(&m, ANON_SHARED, SMALL_REGION, -1);
	log_measurement(_metadata, &m);
	EXPECT_EQ((long)(SMALL_REGION / HPAGE_SIZE),
		  m.vm[FILE_ALLOC] + m.vm[FILE_FALLBACK]);
	expect_uncounted(_metadata, &m);
}

/* Anonymous PMD faults are in every coverage. */
static void expect_pmd_counted(struct __test_metadata *_metadata)
{
	struct measurement m = { 0 };
	const long want = SMALL_REGION / HPAGE_SIZE;
	char *p;

	warm_up(&m);
	p = map_hpage_aligned(SMALL_REGION, MADV_HUGEPAGE);
	measure_begin(&m);
	touch_region(p, SMALL_REGION);
	measure_end(&m, p, SMALL_REGION);
	munmap(p, SMALL_REGION);
	log_measurement(_metadata, &m);
	expect_exact(_metadata, &m, ANON, PMD_ORDER, m.vm[FAULT_ALLOC],
		     m.vm[FAULT_FALLBACK]);
	EXPECT_EQ(want, m.vm[FAULT_ALLOC] + m.vm[FAULT_FALLBACK]);
}

/*
 * Under coverage @value: anonymous PMD faults counted, shmem not, then
 * 64 kB faults measured into @m; false where the kernel has no mTHP.
 */
static bool fault_mthp_under_coverage(struct __test_metadata *_metadata,
				      const char *value,
				      struct measurement *m)
{
	char line[16];

	snprintf(line, sizeof(line), "%s\n", value);
	ASSERT_EQ(0, write_file(COVERAGE, line));
	expect_coverage(_metadata, value);
	expect_pmd_counted(_metadata);
	expect_shmem_uncounted(_metadata);
	if (!mthp_available()) {
		TH_LOG(NO_MTHP);
		return false;
	}
	mthp_only(_metadata);
	fault_region(m, ANON_PRIVATE, SMALL_REGION / 4, -1);
	log_measurement(_metadata, m);
	EXPECT_EQ((long)(SMALL_REGION / 4 / MTHP_SIZE),
		  m->mthp[M_ANON_ALLOC] + m->mthp[M_ANON_FALLBACK]);
	return true;
}

TEST_F_TIMEOUT(free_node, coverage_pmd_leaves_shmem_and_mthp_uncounted, 120)
{
	struct measurement m = { 0 };

	if (fault_mthp_under_coverage(_metadata, "pmd", &m))
		expect_uncounted(_metadata, &m);
}

TEST_F_TIMEOUT(free_node, coverage_pmd_mthp_leaves_shmem_uncounted, 120)
{
	const long want = SMALL_REGION / 4 / MTHP_SIZE;
	struct measurement m = { 0 };

	if (!fault_mthp_under_coverage(_metadata, "pmd+mthp", &m))
		return;
	expect_mthp_exact(_metadata, &m);
	EXPECT_EQ(want, od(&m, 0, ANON, MTHP_ORDER, LOCAL) +
			od(&m, 0, ANON, MTHP_ORDER, REMOTE) +
			od(&m, 0, ANON, MTHP_ORDER, FALLBACK));
}

/* A bad value is refused with EINVAL and changes nothing. */
TEST_F_TIMEOUT(free_node, coverage_bad_value_refused, 60)
{
	static const char *const bad[] = {
		"bogus\n", "pmd+\n", "all all\n", "PMD\n", "mthp\n",
	};

	expect_coverage(_metadata, "all");
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, write_file(COVERAGE, bad[i])) {
			TH_LOG("wrote '%s'", bad[i]);
		}
		expect_coverage(_metadata, "all");
	}
	ASSERT_EQ(0, write_file(COVERAGE, "pmd+mthp\n"));
	EXPECT_EQ(-EINVAL, write_file(COVERAGE, "bogus\n"));
	expect_coverage(_metadata, "pmd+mthp");
	ASSERT_EQ(0, write_file(COVERAGE, "all"));
	expect_coverage(_metadata, "all");
}

TEST_HARNESS_MAIN
