// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz every writable debugfs file with generated malformed input. Each
 * file has a validity oracle (independent of the module's parser) and a
 * check that an accepted value took effect. A write is accepted only if
 * it is valid; after every refused write, all readable state (settings
 * and counters) must be byte-for-byte what it was.
 *
 * A new writable file is one more entry in control_files[]; tasks is
 * fuzzed around the PID of a sleeping child.
 * Env: FUZZ_INPUTS (per file, default 500), FUZZ_SEED (default: clock).
 */
#include "test_util.h"
#include "kselftest.h"
#include "policy.h"

#define MAX_WRITE	32	/* THPNUMA_MAX_WRITE */
#define BIG_WRITE	(1 << 20)

static const char *const scope_names[] = { "all", "madvise" };
static const char *const zone_reclaim_names[] = { "0", "1", "2", "3", "4", "5", "6", "7" };
static const char *const reset_names[] = { "1" };

struct control_file {
	const char *name;
	/* Valid values; a valid write is one of them, optionally plus "\n". */
	const char *const *values;
	unsigned int nr_values;
	/* Oracle: would a write of @buf at offset 0 be valid? */
	int (*valid)(const struct control_file *cf, const char *buf, size_t len);
	/* After an accepted write of @buf: did it take effect? */
	int (*applied)(const struct control_file *cf, const char *buf, size_t len);
};

static int one_of_values(const struct control_file *cf, const char *buf, size_t len)
{
	if (len && buf[len - 1] == '\n')
		len--;
	for (unsigned int i = 0; i < cf->nr_values; i++)
		if (strlen(cf->values[i]) == len && !memcmp(buf, cf->values[i], len))
			return 1;
	return 0;
}

static int choice_applied(const struct control_file *cf, const char *buf, size_t len)
{
	char path[128], cur[64];

	if (len && buf[len - 1] == '\n')
		len--;
	snprintf(path, sizeof(path), THPNUMA_DEBUGFS "/%s", cf->name);
	if (read_choice(path, cur, sizeof(cur)))
		return 0;
	return strlen(cur) == len && !memcmp(cur, buf, len);
}

static int zone_reclaim_applied(const struct control_file *cf, const char *buf, size_t len)
{
	char cur[16];

	if (read_file(THPNUMA_DEBUGFS "/zone_reclaim", cur, sizeof(cur)) < 0)
		return 0;
	return atoi(cur) == buf[0] - '0';
}

static void fault_thps(void);

static int reset_applied(const struct control_file *cf, const char *buf, size_t len)
{
	struct thpnuma_stats s = { 0 };
	int zero = !read_stats(&s);

	for (unsigned int n = 0; zero && n < s.nr_nodes; n++)
		for (int c = 0; c < THPNUMA_NR_COUNTERS; c++)
			zero &= s.nodes[n].counter[c] == 0;
	stats_free(&s);
	/* Non-zero counters again, so later refused resets are visible. */
	fault_thps();
	return zero;
}

/*
 * tasks: "PID POLICY [0-7|- [1-1000000|-]]" or "PID default" for a live
 * user process.
 * The values name a sleeping child, filled in by main().
 */
#define NR_TASK_VALUES	8
static char task_value_buf[NR_TASK_VALUES][40];
static const char *task_values[NR_TASK_VALUES];

/* A decimal without sign or leading zero, of at most 7 digits; else -1. */
static long strict_decimal(const char *s, size_t len)
{
	long v = 0;

	if (!len || len > 7 || s[0] == '0')
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + s[i] - '0';
	}
	return v;
}

/* A user process: kernel threads have no /proc/PID/exe. */
static int user_process(long pid)
{
	char path[64], target[256];

	snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
	return readlink(path, target, sizeof(target)) > 0;
}

/* After the policy: "", " ZR", " ZR BUDGET", either number "-". */
static int override_numbers_valid(const char *p, const char *end)
{
	const char *sp;
	long budget;

	if (p == end)
		return 1;
	if (*p != ' ')
		return 0;
	p++;
	sp = memchr(p, ' ', end - p);
	if (!sp)
		sp = end;
	if (!(sp - p == 1 && (*p == '-' || (*p >= '0' && *p <= '7'))))
		return 0;
	if (sp == end)
		return 1;
	p = sp + 1;
	if (end - p == 1 && *p == '-')
		return 1;
	budget = strict_decimal(p, end - p);
	return budget >= 1 && budget <= THPNUMA_BUDGET_MAX_US;
}

static int task_write_valid(const struct control_file *cf, const char *buf, size_t len)
{
	const char *sp1, *sp2, *end;
	long pid;
	size_t wlen;

	if (len > THPNUMA_MAX_TASK_WRITE || !len)
		return 0;
	if (buf[len - 1] == '\n')
		len--;
	end = buf + len;
	if (memchr(buf, '\n', len) || memchr(buf, '\0', len))
		return 0;
	sp1 = memchr(buf, ' ', len);
	if (!sp1)
		return 0;
	pid = strict_decimal(buf, sp1 - buf);
	if (pid < 1 || pid > 4194304 || !user_process(pid))
		return 0;
	sp2 = memchr(sp1 + 1, ' ', end - sp1 - 1);
	wlen = (sp2 ? sp2 : end) - (sp1 + 1);
	if (wlen == 7 && !memcmp(sp1 + 1, "default", 7))
		return !sp2;
	for (unsigned int i = 0; i < THPNUMA_NR_POLICIES; i++) {
		if (strlen(thpnuma_policy_names[i]) != wlen ||
		    memcmp(sp1 + 1, thpnuma_policy_names[i], wlen))
			continue;
		return override_numbers_valid(sp1 + 1 + wlen, end);
	}
	return 0;
}

/* The tasks line of the written PID says what was written, or is gone. */
static int task_write_applied(const struct control_file *cf, const char *buf, size_t len)
{
	char tasks[8192], want_pol[32] = "", want_zr[8] = "-", want_budget[16] = "-";
	char written[THPNUMA_MAX_TASK_WRITE + 1], *line, *save = NULL;
	int pid, found = 0;

	/* @buf is not NUL-terminated: what follows it is an older input. */
	memcpy(written, buf, len);
	written[len] = '\0';
	if (sscanf(written, "%d %31s %7s %15s", &pid, want_pol, want_zr,
		   want_budget) < 2 ||
	    read_file(THPNUMA_DEBUGFS "/tasks", tasks, sizeof(tasks)) < 0)
		return 0;
	for (line = strtok_r(tasks, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char pol[32], zr[8], budget[16];
		int p;

		if (sscanf(line, "%d %*s %31s %7s %15s", &p, pol, zr, budget) == 4 &&
		    p == pid)
			found = !strcmp(pol, want_pol) && !strcmp(zr, want_zr) &&
				!strcmp(budget, want_budget) ? 1 : -1;
	}
	return strcmp(want_pol, "default") ? found == 1 : found == 0;
}

static const struct control_file control_files[] = {
	{ "policy", thpnuma_policy_names, THPNUMA_NR_POLICIES, one_of_values, choice_applied },
	{ "zone_reclaim", zone_reclaim_names, 8, one_of_values, zone_reclaim_applied },
	{ "scope", scope_names, 2, one_of_values, choice_applied },
	{ "reset", reset_names, 1, one_of_values, reset_applied },
	{ "tasks", task_values, NR_TASK_VALUES, task_write_valid, task_write_applied },
};
#define NR_FILES	(sizeof(control_files) / sizeof(control_files[0]))

/* Every readable file's contents: what a refused write must not change. */
static const char *const state_files[] = { "policy", "zone_reclaim", "scope", "tasks",
	"stats" };

/* A child that sleeps until killed: the PID the tasks values name. */
static pid_t start_task_target(void)
{
	static const char *const forms[NR_TASK_VALUES] = { "kernel", "strict-local",
		"local-then-remote", "local-then-remote 3", "strict-local 7", "budget - 500",
		"budget 7 1000000", "default" };
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	for (int i = 0; pid > 0 && i < NR_TASK_VALUES; i++) {
		snprintf(task_value_buf[i], sizeof(task_value_buf[i]), "%d %s", pid, forms[i]);
		task_values[i] = task_value_buf[i];
	}
	return pid;
}

static size_t read_state(char *buf, size_t size)
{
	size_t used = 0;

	for (size_t i = 0; i < sizeof(state_files) / sizeof(state_files[0]); i++) {
		char path[128];
		int n;

		snprintf(path, sizeof(path), THPNUMA_DEBUGFS "/%s", state_files[i]);
		n = read_file(path, buf + used, size - used);
		if (n < 0)
			n = snprintf(buf + used, size - used, "<%s: %s>", path, strerror(-n));
		used += n;
	}
	return used;
}

static void fault_thps(void)
{
	char *p = map_hpage_aligned(4 * MiB, MADV_HUGEPAGE);

	touch_region(p, 4 * MiB);
	munmap(p, 4 * MiB);
}

enum gen { G_RANDOM, G_NEAR_LIMIT, G_FAR_OVER, G_NUL, G_NUMBER, G_SPACE,
	   G_CASE, G_OFFSET, G_EMPTY, G_TRUNCATE, G_OTHER_FILE, G_VALID, NR_GEN };
static const char *const gen_names[NR_GEN] = { "random bytes", "near limit",
	"far over limit", "embedded NUL", "numbers", "whitespace", "case change",
	"non-zero offset", "empty", "truncated/extended", "other file's value",
	"valid" };

static const char *random_value(const struct control_file *cf)
{
	return cf->values[prng_below(cf->nr_values)];
}

/* A value of any control file: the wrong file's words are good bait. */
static const char *any_value(void)
{
	return random_value(&control_files[prng_below(NR_FILES)]);
}

static size_t put(char *buf, size_t at, const char *s)
{
	size_t n = strlen(s);

	memcpy(buf + at, s, n);
	return at + n;
}

/* Build one input of kind @g into @buf; sets *off for offset writes. */
static size_t generate(const struct control_file *cf, enum gen g, char *buf, off_t *off)
{
	static const char *const numbers[] = { "-1", "8", "9", "10", "-0", "+1",
		"0x7", "07", "00", "1e3", "4294967296", "4294967303",
		"18446744073709551615", "18446744073709551617",
		"99999999999999999999999999999", "2147483648", "-2147483649",
		"3.0", "Ⅷ", "٣", "1 1", "0,1", "½" };
	static const char *const spaces[] = { " ", "\t", "\n", "\r", "\r\n", "\n\n",
		"\v", "\f", "  " };
	const char *v = random_value(cf);
	size_t len = 0, n;

	*off = 0;
	switch (g) {
	case G_RANDOM:
		len = 1 + prng_below(64);
		for (size_t i = 0; i < len; i++)
			buf[i] = (char)prng();
		break;
	case G_NEAR_LIMIT:
		/* A valid value padded to MAX_WRITE - 2 .. MAX_WRITE + 2. */
		n = MAX_WRITE - 2 + prng_below(5);
		len = put(buf, 0, v);
		while (len < n)
			buf[len++] = " \n0ak\t"[prng_below(6)];
		if (prng_below(2))
			buf[n - 1] = '\n';
		len = n;
		break;
	case G_FAR_OVER: {
		static const size_t sizes[] = { 64, 100, 255, 4096, 4097, 65536, BIG_WRITE };
		len = sizes[prng_below(7)];
		for (size_t at = 0; at + strlen(v) + 1 <= len; at = put(buf, at, v))
			;
		memset(buf + len - (len % 7), 'x', len % 7);
		buf[len - 1] = '\n';
		break;
	}
	case G_NUL:
		len = put(buf, 0, v);
		n = prng_below(len + 1);
		memmove(buf + n + 1, buf + n, len - n);
		buf[n] = '\0';
		len++;
		if (prng_below(2))
			buf[len++] = '\n';
		break;
	case G_NUMBER:
		len = put(buf, 0, numbers[prng_below(sizeof(numbers) / sizeof(numbers[0]))]);
		if (prng_below(2))
			buf[len++] = '\n';
		break;
	case G_SPACE: {
		const char *s = spaces[prng_below(sizeof(spaces) / sizeof(spaces[0]))];

		switch (prng_below(3)) {
		case 0:
			len = put(buf, put(buf, 0, s), v);
			break;
		case 1:
			len = put(buf, put(buf, 0, v), s);
			break;
		default:
			len = put(buf, put(buf, put(buf, 0, s), v), s);
		}
		break;
	}
	case G_CASE:
		len = put(buf, 0, v);
		for (size_t i = 0; i < len; i++)
			if (prng_below(2) && buf[i] >= 'a' && buf[i] <= 'z')
				buf[i] -= 32;
		break;
	case G_OFFSET: {
		static const off_t offs[] = { 1, 2, 5, 31, 32, 33, 4096, 1 << 20, (off_t)1 << 40 };
		*off = offs[prng_below(sizeof(offs) / sizeof(offs[0]))];
		len = put(buf, 0, v);
		if (prng_below(2))
			buf[len++] = '\n';
		break;
	}
	case G_EMPTY:
		len = 0;
		break;
	case G_TRUNCATE:
		len = put(buf, 0, v);
		if (prng_below(2) && len > 1)
			len = 1 + prng_below(len - 1);
		else
			buf[len++] = "x-_0a1["[prng_below(7)];
		break;
	case G_OTHER_FILE:
		len = put(buf, 0, any_value());
		break;
	case G_VALID:
		len = put(buf, 0, v);
		if (prng_below(2))
			buf[len++] = '\n';
		break;
	default:
		break;
	}
	return len;
}

struct file_result {
	unsigned long inputs, valid, accepted_valid, refused_invalid;
	unsigned long invalid_accepted, valid_refused, not_applied;
	unsigned long state_changed, wrong_errno, seek_failed;
	unsigned long per_gen[NR_GEN];
};

static void show(const char *what, const char *buf, size_t len, off_t off)
{
	char hex[3 * 24 + 1] = "";

	for (size_t i = 0; i < len && i < 24; i++)
		sprintf(hex + 3 * i, "%02x ", (unsigned char)buf[i]);
	ksft_print_msg("%s: %zu bytes at offset %lld: %s%s\n", what, len, (long long)off,
		 hex, len > 24 ? "..." : "");
}

static void fuzz_file(const struct control_file *cf, long inputs, struct file_result *r)
{
	static char buf[BIG_WRITE + 64], before[8192], after[8192];
	char path[128];

	snprintf(path, sizeof(path), THPNUMA_DEBUGFS "/%s", cf->name);
	for (long i = 0; i < inputs; i++) {
		/* One in ten inputs is valid, so state keeps moving. */
		enum gen g = prng_below(10) == 0 ? G_VALID : prng_below(NR_GEN - 1);
		size_t len, blen, alen;
		ssize_t n;
		off_t off;
		int fd, valid, err;

		len = generate(cf, g, buf, &off);
		valid = off == 0 && cf->valid(cf, buf, len);
		blen = read_state(before, sizeof(before));
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			r->state_changed++;
			ksft_print_msg("open %s: %s\n", path, strerror(errno));
			return;
		}
		/* lseek(), not pwrite(): seq_file control files refuse pread/pwrite. */
		if (off && lseek(fd, off, SEEK_SET) != off) {
			/* No llseek (reset): pwrite() reaches the module instead. */
			n = pwrite(fd, buf, len, off);
			err = errno;
			if (n < 0 && err == ESPIPE && r->seek_failed++ < 3)
				ksft_print_msg("%s: neither lseek nor pwrite to %lld\n", cf->name,
					 (long long)off);
		} else {
			n = write(fd, buf, len);
			err = errno;
		}
		close(fd);
		r->inputs++;
		r->per_gen[g]++;
		r->valid += valid;
		if (valid) {
			if (n != (ssize_t)len) {
				if (r->valid_refused++ < 3)
					show("valid write refused", buf, len, off);
			} else {
				r->accepted_valid++;
				if (!cf->applied(cf, buf, len) && r->not_applied++ < 3)
					show("accepted write did not take effect", buf, len, off);
			}
			continue;
		}
		if (n >= 0) {
			if (r->invalid_accepted++ < 3)
				show("invalid write accepted", buf, len, off);
			continue;
		}
		r->refused_invalid++;
		if (err != EINVAL && r->wrong_errno++ < 3)
			ksft_print_msg("refused with %s, not EINVAL\n", strerror(err));
		alen = read_state(after, sizeof(after));
		if ((alen != blen || memcmp(before, after, blen)) && r->state_changed++ < 3)
			show("refused write changed the state", buf, len, off);
	}
}

int main(void)
{
	long inputs = env_long("FUZZ_INPUTS", 500);
	struct thp_knobs knobs;
	struct vmstat vm;
	char line[512];
	const char *splat;
	bool splats_known;
	pid_t target;
	int ret;

	ksft_print_header();
	ksft_set_plan(2 + 5 * NR_FILES + 2);
	prng_seed_from_env("FUZZ_SEED");
	target = start_task_target();
	if (target < 0)
		ksft_exit_fail_perror("fork");
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	ret = module_fresh_load("");
	ksft_test_result(ret == 0, "module loads\n");
	if (ret)
		ksft_exit_fail();
	fault_thps();
	vmstat_read(&vm);
	ksft_test_result(vm.v[VM_THP_FAULT_ALLOC] > 0, "THP faults happen, so counters are non-zero\n");

	for (size_t f = 0; f < NR_FILES; f++) {
		const struct control_file *cf = &control_files[f];
		struct file_result r = { 0 };
		char kinds[512] = "";
		size_t used = 0;

		fuzz_file(cf, inputs, &r);
		for (int g = 0; g < NR_GEN; g++)
			used += snprintf(kinds + used, sizeof(kinds) - used, "%s%s %lu",
					 g ? ", " : "", gen_names[g], r.per_gen[g]);
		ksft_print_msg("%s: %lu inputs: %s\n", cf->name, r.inputs, kinds);
		ksft_test_result(r.inputs == (unsigned long)inputs && r.refused_invalid >= (unsigned long)inputs / 2,
		       "%s: %lu inputs written, %lu invalid refused, %lu valid accepted\n",
		       cf->name, r.inputs, r.refused_invalid, r.accepted_valid);
		ksft_test_result(r.invalid_accepted == 0, "%s: no invalid write accepted (%lu)\n",
		       cf->name, r.invalid_accepted);
		ksft_test_result(r.valid_refused == 0 && r.not_applied == 0 && r.accepted_valid > 0,
		       "%s: every valid write accepted and applied (%lu refused, %lu not applied)\n",
		       cf->name, r.valid_refused, r.not_applied);
		ksft_test_result(r.state_changed == 0,
		       "%s: state unchanged after every refused write (%lu changed)\n",
		       cf->name, r.state_changed);
		ksft_test_result(r.wrong_errno == 0 && r.seek_failed == 0,
		       "%s: every refusal is EINVAL (%lu other, %lu seeks failed)\n",
		       cf->name, r.wrong_errno, r.seek_failed);
	}
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	ksft_test_result(module_unload() == 0, "module unloads\n");
	splat = dmesg_splat(line, sizeof(line), &splats_known);
	if (!splats_known)
		ksft_test_result_skip("dmesg clean: no THPNUMA_SPLATS pattern (the harness gives it)\n");
	else
		ksft_test_result(!splat, "dmesg clean%s%s\n", splat ? ": " : "", splat ? splat : "");
	thp_knobs_restore(&knobs);
	ksft_finished();
}
