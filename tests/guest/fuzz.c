// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz every writable debugfs file with generated malformed input. Each
 * file has a validity oracle (independent of the module's parser) and a
 * check that an accepted value took effect. A write is accepted only if
 * it is valid; after every refused write, all readable state (settings
 * and counters) must be byte-for-byte what it was.
 *
 * A new writable file is one more entry in control_files[].
 * Env: FUZZ_INPUTS (per file, default 500), FUZZ_SEED (default: clock).
 */
#include "thpnuma_test.h"
#include "tap.h"

#define MAX_WRITE	32	/* THPNUMA_MAX_WRITE */
#define BIG_WRITE	(1 << 20)

static const char *const policy_names[] = { "kernel", "strict-local", "local-then-remote" };
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
	struct thp_stats s;
	int zero = !read_stats(&s);

	for (int n = 0; zero && n < s.nodes; n++)
		for (int c = 0; c < NR_STATS; c++)
			zero &= s.v[n][c] == 0;
	/* Non-zero counters again, so later refused resets are visible. */
	fault_thps();
	return zero;
}

static const struct control_file control_files[] = {
	{ "policy", policy_names, 3, one_of_values, choice_applied },
	{ "zone_reclaim", zone_reclaim_names, 8, one_of_values, zone_reclaim_applied },
	{ "scope", scope_names, 2, one_of_values, choice_applied },
	{ "reset", reset_names, 1, one_of_values, reset_applied },
};
#define NR_FILES	(sizeof(control_files) / sizeof(control_files[0]))

/* Every readable file's contents: what a refused write must not change. */
static const char *const state_files[] = { "policy", "zone_reclaim", "scope", "stats" };

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
	char *p = map_region(4 * MiB, MADV_HUGEPAGE);

	if (p) {
		touch_region(p, 4 * MiB);
		munmap(p, 4 * MiB);
	}
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
	tap_diag("%s: %zu bytes at offset %lld: %s%s", what, len, (long long)off,
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
			tap_diag("open %s: %s", path, strerror(errno));
			return;
		}
		/* lseek(), not pwrite(): seq_file control files refuse pread/pwrite. */
		if (off && lseek(fd, off, SEEK_SET) != off) {
			/* No llseek (reset): pwrite() reaches the module instead. */
			n = pwrite(fd, buf, len, off);
			err = errno;
			if (n < 0 && err == ESPIPE && r->seek_failed++ < 3)
				tap_diag("%s: neither lseek nor pwrite to %lld", cf->name,
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
			tap_diag("refused with %s, not EINVAL", strerror(err));
		alen = read_state(after, sizeof(after));
		if ((alen != blen || memcmp(before, after, blen)) && r->state_changed++ < 3)
			show("refused write changed the state", buf, len, off);
	}
}

int main(void)
{
	long inputs = env_long("FUZZ_INPUTS", 500);
	struct thp_knobs knobs;
	char line[512];
	const char *splat;

	tap_plan(2 + 5 * NR_FILES + 2);
	prng_seed_from_env("FUZZ_SEED");
	thp_knobs_save(&knobs);
	thp_knobs_quiet("madvise", "madvise");
	if (!tap_ok(module_fresh_load("") == 0, "module loads"))
		return 1;
	fault_thps();
	tap_ok(vmstat("thp_fault_alloc") > 0, "THP faults happen, so counters are non-zero");

	for (size_t f = 0; f < NR_FILES; f++) {
		const struct control_file *cf = &control_files[f];
		struct file_result r = { 0 };
		char kinds[512] = "";
		size_t used = 0;

		fuzz_file(cf, inputs, &r);
		for (int g = 0; g < NR_GEN; g++)
			used += snprintf(kinds + used, sizeof(kinds) - used, "%s%s %lu",
					 g ? ", " : "", gen_names[g], r.per_gen[g]);
		tap_diag("%s: %lu inputs: %s", cf->name, r.inputs, kinds);
		tap_ok(r.inputs == (unsigned long)inputs && r.refused_invalid >= (unsigned long)inputs / 2,
		       "%s: %lu inputs written, %lu invalid refused, %lu valid accepted",
		       cf->name, r.inputs, r.refused_invalid, r.accepted_valid);
		tap_ok(r.invalid_accepted == 0, "%s: no invalid write accepted (%lu)",
		       cf->name, r.invalid_accepted);
		tap_ok(r.valid_refused == 0 && r.not_applied == 0 && r.accepted_valid > 0,
		       "%s: every valid write accepted and applied (%lu refused, %lu not applied)",
		       cf->name, r.valid_refused, r.not_applied);
		tap_ok(r.state_changed == 0,
		       "%s: state unchanged after every refused write (%lu changed)",
		       cf->name, r.state_changed);
		tap_ok(r.wrong_errno == 0 && r.seek_failed == 0,
		       "%s: every refusal is EINVAL (%lu other, %lu seeks failed)",
		       cf->name, r.wrong_errno, r.seek_failed);
	}
	tap_ok(module_unload() == 0, "module unloads");
	splat = dmesg_splat(line, sizeof(line));
	tap_ok(!splat, "dmesg clean%s%s", splat ? ": " : "", splat ? splat : "");
	thp_knobs_restore(&knobs);
	return tap_exit();
}
