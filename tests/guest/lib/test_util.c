// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the in-guest C tests; see test_util.h. */
#include "test_util.h"
#include <regex.h>
#include "die.h"
#include <sys/klog.h>
#include <sys/mount.h>

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

int read_choice(const char *path, char *out, size_t size)
{
	char buf[256];

	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return bracketed_choice(buf, out, size) ? -1 : 0;
}

long read_probe_missed(void)
{
	char buf[1024], *line;
	long n;

	if (read_file(THPNUMA_DEBUGFS "/version", buf, sizeof(buf)) < 0)
		return -1;
	for (line = buf; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "probe_missed %ld", &n) == 1)
			return n;
	}
	return -1;
}

long vmstat_value(const char *name)
{
	char line[256];
	size_t len = strlen(name);
	long val = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ' ')
			val = atol(line + len + 1);
	fclose(f);
	return val;
}

/*
 * Node counters fold per-CPU deltas in batches; before 5.14 AnonHugePages
 * counted THPs, not pages, so a node's lagged by up to a batch of THPs.
 * stat_refresh folds them all first.
 */
void node_thps(long *thps, int nodes)
{
	write_file("/proc/sys/vm/stat_refresh", "1");
	for (int n = 0; n < nodes; n++)
		thps[n] = node_meminfo_kb(n, "AnonHugePages") / 2048;
}

int read_stats(struct thpnuma_stats *st)
{
	static char text[1 << 16];

	stats_free(st);
	if (read_file(THPNUMA_DEBUGFS "/stats", text, sizeof(text)) < 0)
		return -1;
	return parse_stats(text, st);
}

int parse_stats(const char *text, struct thpnuma_stats *st)
{
	char err[256];

	stats_free(st);
	if (stats_parse(text, st, err, sizeof(err))) {
		printf("# stats: %s\n", err);
		return -1;
	}
	return st->nr_nodes ? 0 : -1;
}

uint64_t stat_of(const struct thpnuma_stats *st, int node, int c)
{
	for (unsigned int i = 0; i < st->nr_nodes; i++)
		if (st->nodes[i].node == node)
			return st->nodes[i].counter[c];
	return 0;
}

uint64_t stat_delta(const struct thpnuma_stats *a, const struct thpnuma_stats *b,
		    int node, int c)
{
	return stat_of(b, node, c) - stat_of(a, node, c);
}

uint64_t stat_delta_all(const struct thpnuma_stats *a,
			const struct thpnuma_stats *b, int c)
{
	uint64_t sum = 0;

	for (int n = 0; n < nr_nodes(); n++)
		sum += stat_delta(a, b, n, c);
	return sum;
}

int module_load(const char *params)
{
	int fd = open(THPNUMA_KO, O_RDONLY | O_CLOEXEC);
	int ret;

	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, params, 0) ? -errno : 0;
	close(fd);
	return ret;
}

int module_unload(void)
{
	return syscall(SYS_delete_module, "thpnuma", O_NONBLOCK) ? -errno : 0;
}

int module_loaded(void)
{
	return access("/sys/module/thpnuma", F_OK) == 0;
}

int module_fresh_load(const char *params)
{
	if (module_loaded())
		module_unload();
	return module_load(params);
}

long set_mempolicy_nodes(int mode, unsigned long mask)
{
	return syscall(SYS_set_mempolicy, mode, mode ? &mask : NULL,
		       mode ? 8 * sizeof(mask) : 0);
}

void touch_region(char *p, size_t size)
{
	for (size_t off = 0; off < size; off += BASE_PAGE_SIZE)
		p[off] = 1;
}

/*
 * A child bound to @node runs @fill(@arg), tells us it is done, then holds
 * what it allocated until it is killed. Its pid, or -1.
 */
static pid_t start_holder(int node, void (*fill)(int node, long arg), long arg)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		if (set_mempolicy_nodes(MPOL_BIND, 1UL << node))
			_exit(1);
		fill(node, arg);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	if (pid < 0 || read(pipefd[0], &c, 1) != 1) {
		close(pipefd[0]);
		return -1;
	}
	close(pipefd[0]);
	return pid;
}

static void fill_to_free_kb(int node, long free_kb)
{
	const size_t chunk = 4 * MiB;

	while (node_meminfo_kb(node, "MemFree") > free_kb + 4096) {
		char *p = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			break;
		madvise(p, chunk, MADV_NOHUGEPAGE);
		/* Same-filled pages: zram stores them almost for free. */
		memset(p, 0x5a, chunk);
	}
}

pid_t start_hog(int node, long free_kb)
{
	return start_holder(node, fill_to_free_kb, free_kb);
}

/*
 * Node 0 kept just above its low watermark, since below it kswapd would
 * start swapping on its own and blur what the policies do.
 */
pid_t start_storm_hog(void)
{
	return start_hog(0, node_watermark_kb(0, "low") + 4 * 1024);
}

void stop_hog(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

bool swap_active(void)
{
	char swaps[512];

	return read_file("/proc/swaps", swaps, sizeof(swaps)) > 0 &&
	       strchr(strchr(swaps, '\n') ?: "", '/');
}

void thp_knobs_save(struct thp_knobs *k)
{
	thp_setting("enabled", k->enabled, sizeof(k->enabled));
	thp_setting("defrag", k->defrag, sizeof(k->defrag));
	read_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", k->scan_sleep,
		  sizeof(k->scan_sleep));
	read_file("/proc/sys/vm/compaction_proactiveness", k->proactiveness,
		  sizeof(k->proactiveness));
}

void thp_knobs_restore(const struct thp_knobs *k)
{
	write_file(THP_SYSFS "/enabled", k->enabled);
	write_file(THP_SYSFS "/defrag", k->defrag);
	write_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", k->scan_sleep);
	write_file("/proc/sys/vm/compaction_proactiveness", k->proactiveness);
}

void thp_knobs_quiet(const char *enabled, const char *defrag)
{
	write_file(THP_SYSFS "/enabled", enabled);
	write_file(THP_SYSFS "/defrag", defrag);
	write_file(THP_SYSFS "/khugepaged/scan_sleep_millisecs", "3600000");
	write_file("/proc/sys/vm/compaction_proactiveness", "0");
}

/* /proc/self/pagemap gives PFNs and /proc/kpageflags their THP bit. */
long hugetlb_take(int node, long nr)
{
	char path[128], val[32];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages",
		 node);
	snprintf(val, sizeof(val), "%ld", nr);
	write_file(path, val);
	return read_file(path, val, sizeof(val)) > 0 ? atol(val) : -1;
}

#define MIN_FREE	"/proc/sys/vm/min_free_kbytes"
#define UNEVICTABLE	"/proc/sys/vm/compact_unevictable_allowed"

void vm_knobs_tight(struct vm_knobs *k)
{
	if (read_file(MIN_FREE, k->min_free, sizeof(k->min_free)) < 0)
		k->min_free[0] = 0;
	if (read_file(UNEVICTABLE, k->unevictable, sizeof(k->unevictable)) < 0)
		k->unevictable[0] = 0;
	write_file(MIN_FREE, "4096");
	write_file(UNEVICTABLE, "0");
}

void vm_knobs_restore(const struct vm_knobs *k)
{
	if (k->min_free[0])
		write_file(MIN_FREE, k->min_free);
	if (k->unevictable[0])
		write_file(UNEVICTABLE, k->unevictable);
}

int region_thp_nodes(char *p, size_t size, long *per_node)
{
	size_t n = size / HPAGE_SIZE;
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int kflags = open("/proc/kpageflags", O_RDONLY);
	int ret = -1;

	memset(per_node, 0, MAX_NODES * sizeof(*per_node));
	if (pagemap < 0 || kflags < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *chunk = p + i * HPAGE_SIZE;
		unsigned long long entry, flags;
		int status;
		void *page = chunk;

		if (pread(pagemap, &entry, 8, (unsigned long)chunk / 4096 * 8) != 8)
			goto out;
		if (!(entry >> 63))
			continue;
		entry &= (1ULL << 55) - 1;
		if (pread(kflags, &flags, 8, entry * 8) != 8)
			goto out;
		if (!(flags & (1ULL << 22)))	/* KPF_THP */
			continue;
		if (syscall(SYS_move_pages, 0, 1, &page, NULL, &status, 0) ||
		    status < 0 || status >= MAX_NODES)
			goto out;
		per_node[status]++;
	}
	ret = 0;
out:
	if (pagemap >= 0)
		close(pagemap);
	if (kflags >= 0)
		close(kflags);
	return ret;
}

#define CGROUP_ROOT	"/sys/fs/cgroup"

bool cpuset_available(void)
{
	char controllers[256];

	if (access(CGROUP_ROOT "/cgroup.controllers", F_OK) &&
	    mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		return false;
	return read_file(CGROUP_ROOT "/cgroup.controllers", controllers,
			 sizeof(controllers)) > 0 && strstr(controllers, "cpuset");
}

/* Move this process into a new cgroup-v2 cpuset limited to @mems ("1"). */
int cpuset_enter(const char *name, const char *mems)
{
	char path[128], pid[16];
	int err;

	err = write_file(CGROUP_ROOT "/cgroup.subtree_control", "+cpuset");
	if (err)
		return err;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/cpuset.mems", name);
	err = write_file(path, mems);
	if (err)
		return err;
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s/cgroup.procs", name);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return write_file(path, pid);
}

/* Back to the root cgroup, and remove the one cpuset_enter() made. */
void cpuset_leave(const char *name)
{
	char path[128], pid[16];

	snprintf(pid, sizeof(pid), "%d", getpid());
	write_file(CGROUP_ROOT "/cgroup.procs", pid);
	snprintf(path, sizeof(path), CGROUP_ROOT "/%s", name);
	rmdir(path);
}

void drop_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "3");
	write_file("/proc/sys/vm/compact_memory", "1");
}

static unsigned long long prng_state = 88172645463325252ULL;

void prng_seed(unsigned long long seed)
{
	prng_state = seed ? seed : 88172645463325252ULL;
}

unsigned long long prng(void)
{
	prng_state ^= prng_state >> 12;
	prng_state ^= prng_state << 25;
	prng_state ^= prng_state >> 27;
	return prng_state * 2685821657736338717ULL;
}

unsigned int prng_below(unsigned int n)
{
	return (unsigned int)(prng() % n);
}

unsigned long long prng_seed_from_env(const char *env)
{
	const char *s = getenv(env);
	unsigned long long seed;
	struct timespec ts;

	if (s && *s) {
		seed = strtoull(s, NULL, 0);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_sec * 1000000007ULL ^ ts.tv_nsec;
	}
	prng_seed(seed);
	/* A TAP diagnostic, as ksft_print_msg() would print it. */
	printf("# seed %llu (replay with %s=%llu)\n", seed, env, seed);
	fflush(stdout);
	return seed;
}

long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

const char *dmesg_splat(char *line, size_t size, bool *known)
{
	static char log[1 << 20];
	const char *pattern = getenv("THPNUMA_SPLATS");
	const char *found = NULL;
	char *l, *save;
	regex_t re;
	int n;

	*known = pattern && *pattern &&
		 !regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
	if (!*known)
		return NULL;
	n = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */
	if (n >= 0) {
		log[n] = '\0';
		for (l = strtok_r(log, "\n", &save); l && !found;
		     l = strtok_r(NULL, "\n", &save))
			if (!regexec(&re, l, 0, NULL, 0)) {
				snprintf(line, size, "%s", l);
				found = line;
			}
	}
	regfree(&re);
	return found;
}

/*
 * Free and low watermark in kB of @node's zones that user pages use:
 * ZONE_DMA's lowmem reserve keeps them out of it.
 */
void user_zones_kb(int node, long *free_kb, long *low_kb)
{
	char line[256], zone[32];
	int nid, in_zone = 0;
	long v;
	FILE *f = fopen("/proc/zoneinfo", "r");

	*free_kb = *low_kb = 0;
	if (!f)
		die("open /proc/zoneinfo");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %31s", &nid, zone) == 2)
			in_zone = nid == node && strcmp(zone, "DMA");
		else if (in_zone && sscanf(line, " pages free %ld", &v) == 1)
			*free_kb += v * 4;
		else if (in_zone && sscanf(line, " low %ld", &v) == 1)
			*low_kb += v * 4;
	}
	fclose(f);
}

/*
 * Node 0 filled with memory reclaim cannot free, down to its low
 * watermark: the first THP faults take what is left above min, and every
 * local attempt after them must reclaim. Below low the filler, bound to
 * node 0, would race kswapd and the highatomic reserve into the OOM killer.
 */
static void fill_locked_to_low(int node, long margin_kb)
{
	long free_kb, low_kb;

	for (;;) {
		size_t len;
		char *p;

		user_zones_kb(node, &free_kb, &low_kb);
		if (free_kb <= low_kb + margin_kb)
			break;
		len = free_kb > low_kb + margin_kb + 8192 ? 2 * HPAGE_SIZE :
							    256 * 1024;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		madvise(p, len, MADV_NOHUGEPAGE);
		if (mlock(p, len))
			_exit(1);
	}
}

pid_t start_locked_fill(void)
{
	return start_holder(0, fill_locked_to_low, 0);
}

/*
 * @node filled to @above_kb (at least 4 MiB) above its low watermark, by a
 * child that the OOM killer takes first. Preferred, not bound: an
 * allocation that finds the node short (refilling a per-CPU list can take
 * MiBs from the free count at once on 7.x) goes to another node instead
 * of reclaiming this one into the OOM killer.
 */
static void fill_locked_to_low_victim(int node, long above_kb)
{
	if (write_file("/proc/self/oom_score_adj", "1000"))
		die("node %d filler: oom_score_adj", node);
	if (set_mempolicy_nodes(MPOL_PREFERRED, 1UL << node))
		die("node %d filler: set_mempolicy", node);
	fill_locked_to_low(node, above_kb > 4096 ? above_kb : 4096);
}

pid_t start_locked_fill_on(int node, long above_kb)
{
	return start_holder(node, fill_locked_to_low_victim, above_kb);
}

/*
 * Every other page of a region faulted in order: consecutive faults take
 * physically consecutive pages, so what is freed is scattered.
 */
static void fill_fragmented(int node, long free_kb)
{
	size_t len = (size_t)free_kb * 2048;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("node %d filler: mmap %zu kB", node, len / 1024);
	madvise(p, len, MADV_NOHUGEPAGE);
	if (mlock(p, len))
		die("node %d filler: mlock %zu kB", node, len / 1024);
	fill_locked_to_low_victim(node, 0);
	for (size_t off = 0; off < len; off += 2 * BASE_PAGE_SIZE)
		if (munmap(p + off, BASE_PAGE_SIZE))
			die("node %d filler: munmap", node);
}

pid_t start_fragmented_fill(int node, long free_kb)
{
	return start_holder(node, fill_fragmented, free_kb);
}

int read_orders(struct orders_table *t)
{
	static char text[1 << 16];

	memset(t, 0, sizeof(*t));
	if (read_file(THPNUMA_DEBUGFS "/orders", text, sizeof(text)) < 0)
		return -1;
	return parse_orders(text, t);
}

int parse_orders(const char *text, struct orders_table *t)
{
	struct thpnuma_orders o = { 0 };
	char err[256];
	int ret = 0;

	memset(t, 0, sizeof(*t));
	if (orders_parse(text, &o, err, sizeof(err))) {
		printf("# orders: %s\n", err);
		return -1;
	}
	for (unsigned int i = 0; i < o.nr_rows && !ret; i++) {
		const struct order_row *r = &o.rows[i];

		if (r->node < 0 || r->node >= MAX_NODES) {
			printf("# orders: node %d out of range\n", r->node);
			memset(t, 0, sizeof(*t));
			ret = -1;
			break;
		}
		memcpy(t->v[r->node][r->kind][r->order], r->count,
		       sizeof(r->count));
	}
	orders_free(&o);
	return ret;
}

uint64_t orders_delta(const struct orders_table *a,
		      const struct orders_table *b, int node, int kind,
		      int order, int outcome)
{
	return b->v[node][kind][order][outcome] -
	       a->v[node][kind][order][outcome];
}

uint64_t orders_delta_all(const struct orders_table *a,
			  const struct orders_table *b, int outcome)
{
	uint64_t sum = 0;

	for (int n = 0; n < MAX_NODES; n++)
		for (int k = 0; k < THPNUMA_NR_KINDS; k++)
			for (int o = 1; o <= THPNUMA_MAX_THP_ORDER; o++)
				sum += orders_delta(a, b, n, k, o, outcome);
	return sum;
}

#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16

/* kpageflags of the page mapped at @addr; 0 if none is mapped. */
static int page_flags(int pagemap, int kflags, unsigned long addr,
		      unsigned long long *pfn, unsigned long long *flags)
{
	unsigned long long entry;

	*flags = 0;
	*pfn = 0;
	if (pread(pagemap, &entry, 8, addr / BASE_PAGE_SIZE * 8) != 8)
		return -1;
	if (!(entry >> 63))
		return 0;
	*pfn = entry & ((1ULL << 55) - 1);
	return pread(kflags, flags, 8, *pfn * 8) == 8 ? 0 : -1;
}

int region_folios(char *p, size_t size, long per_node[][FOLIO_ORDERS])
{
	size_t n = size / BASE_PAGE_SIZE, i = 0;
	int pagemap = open("/proc/self/pagemap", O_RDONLY);
	int kflags = open("/proc/kpageflags", O_RDONLY);
	void **pages = calloc(n + 1, sizeof(*pages));
	int *status = calloc(n + 1, sizeof(*status));
	int ret = -1;

	memset(per_node, 0, MAX_NODES * sizeof(*per_node));
	if (pagemap < 0 || kflags < 0 || !pages || !status)
		goto out;
	for (i = 0; i < n; i++)
		pages[i] = p + i * BASE_PAGE_SIZE;
	/* Nodes NULL: each page's node in status, or -errno. */
	if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0))
		goto out;
	for (i = 0; i < n;) {
		unsigned long long pfn, flags, tpfn, tflags;
		size_t len = 1;
		int order = 0;

		if (page_flags(pagemap, kflags, (unsigned long)pages[i], &pfn,
			       &flags))
			goto out;
		if (!pfn) {		/* not faulted */
			i++;
			continue;
		}
		if (flags & (1ULL << KPF_COMPOUND_HEAD)) {
			while (i + len < n) {
				if (page_flags(pagemap, kflags,
					       (unsigned long)pages[i + len],
					       &tpfn, &tflags))
					goto out;
				if (tpfn != pfn + len ||
				    !(tflags & (1ULL << KPF_COMPOUND_TAIL)))
					break;
				len++;
			}
			while ((1UL << order) < len)
				order++;
			if ((1UL << order) != len || order >= FOLIO_ORDERS)
				goto out;	/* a folio cut by the region */
		}
		if (status[i] < 0 || status[i] >= MAX_NODES)
			goto out;
		per_node[status[i]][order]++;
		i += len;
	}
	ret = 0;
out:
	if (ret)
		printf("# %s: page %zu of %zu unreadable (status %d)\n",
		       __func__, i, n, status && i < n ? status[i] : 0);
	free(pages);
	free(status);
	if (pagemap >= 0)
		close(pagemap);
	if (kflags >= 0)
		close(kflags);
	return ret;
}

char *map_shared_aligned(size_t size, int fd)
{
	char *p = map_hpage_aligned(size, 0);
	int flags = MAP_SHARED | MAP_FIXED | (fd < 0 ? MAP_ANONYMOUS : 0);

	/* Over the aligned reservation: file offset 0 at a 2 MiB boundary. */
	if (mmap(p, size, PROT_READ | PROT_WRITE, flags, fd, 0) != p)
		die("mmap shared %zu MiB", size >> 20);
	return p;
}

long mthp_stat(int size_kb, const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), THP_SYSFS "/hugepages-%dkB/stats/%s",
		 size_kb, name);
	return read_file(path, buf, sizeof(buf)) > 0 ? atol(buf) : -1;
}

/*
 * What @node can give without reclaim: in each zone, free pages above the
 * min watermark (the slow path's), boost left out since it can decay during
 * the run, plus the per-CPU lists' pages. Counting every zone, also one a
 * lowmem reserve keeps from user pages, only makes the bound looser.
 */
long node_headroom_kb(int node)
{
	long free = 0, boost = 0, min = 0, v, pages = 0;
	char line[256];
	int nid, in_node = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone", &nid) == 1) {
			if (in_node && free > min - boost)
				pages += free - (min - boost);
			in_node = nid == node;
			free = boost = min = 0;
		} else if (!in_node) {
			continue;
		} else if (sscanf(line, " pages free %ld", &v) == 1) {
			free = v;
		} else if (sscanf(line, " boost %ld", &v) == 1) {
			boost = v;
		} else if (sscanf(line, " min %ld", &v) == 1) {
			min = v;
		} else if (sscanf(line, " count: %ld", &v) == 1) {
			pages += v;
		}
	}
	if (in_node && free > min - boost)
		pages += free - (min - boost);
	fclose(f);
	return pages * (BASE_PAGE_SIZE / 1024);
}

int parse_fault_event(const char *line, struct fault_event *e)
{
	const char *p = strstr(line, " thp_fault: ");

	if (!p)
		return 0;
	memset(e, 0, sizeof(*e));
	return sscanf(p, " thp_fault: pid=%d node=%d policy=%23s zone_reclaim=%u override=%d action=%23s reason=%15s kind=%7s order=%d result=%15s nid=%d local_attempt=%15s compact_stall=%llu compact_success=%llu reclaim_stall=%llu reclaim_pages=%llu alloc_ns=%llu budget_us=%u budget=%7s local_ns=%llu effort_ns=%llu",
		      &e->pid, &e->node, e->policy, &e->zone_reclaim,
		      &e->override, e->action, e->reason, e->kind, &e->order,
		      e->result, &e->nid, e->local_attempt, &e->compact_stall,
		      &e->compact_success, &e->reclaim_stall, &e->reclaim_pages,
		      &e->alloc_ns, &e->budget_us, e->budget,
		      &e->local_ns, &e->effort_ns) == 21 ? 1 : -1;
}

int fault_trace_start(void)
{
	char size[32] = "";
	int err = 0;

	/* Resized only once: under memory pressure it may not allocate. */
	read_file(TRACEFS "/buffer_size_kb", size, sizeof(size));
	if (strncmp(size, "4096\n", 5))
		err = write_file(TRACEFS "/buffer_size_kb", "4096");

	/* Only an open with O_TRUNC empties the buffer. */
	if (!err) {
		int fd = open(TRACEFS "/trace", O_WRONLY | O_TRUNC);

		err = fd < 0 ? -errno : close(fd);
	}
	err = err ?: write_file(TRACEFS "/tracing_on", "1");
	return err ?: write_file(FAULT_EVENT_DIR "/enable", "1");
}

long fault_trace_read(struct fault_event *ev, long max, long *lost)
{
	unsigned long in_buffer, written;
	FILE *f = fopen(TRACEFS "/trace", "r");
	struct fault_event e;
	char line[1024];
	long nr = 0;
	int ret;

	*lost = -1;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &in_buffer, &written) == 2)
			*lost = written - in_buffer;
		ret = parse_fault_event(line, &e);
		if (ret < 0)
			(*lost)++;
		else if (ret > 0 && nr < max)
			ev[nr++] = e;
	}
	fclose(f);
	return nr;
}
