/* SPDX-License-Identifier: GPL-2.0 */
/* Plain TAP output for guest C tests that count thousands of checks. */
#ifndef THPNUMA_TAP_H
#define THPNUMA_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", stdout);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
}

/* One TAP line; returns @pass so callers can stop early. */
static inline int tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s %d ", pass ? "ok" : "not ok", ++tap_n);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	fflush(stdout);
	if (!pass)
		tap_failed++;
	return pass;
}

static inline void tap_skip(const char *name, const char *why)
{
	printf("ok %d %s # SKIP %s\n", ++tap_n, name, why);
	fflush(stdout);
}

static inline int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

/* Seeded xorshift64*: runs repeat from the printed seed. */
static unsigned long long prng_state = 88172645463325252ULL;

static inline void prng_seed(unsigned long long seed)
{
	prng_state = seed ? seed : 88172645463325252ULL;
}

static inline unsigned long long prng(void)
{
	prng_state ^= prng_state >> 12;
	prng_state ^= prng_state << 25;
	prng_state ^= prng_state >> 27;
	return prng_state * 2685821657736338717ULL;
}

static inline unsigned int prng_below(unsigned int n)
{
	return (unsigned int)(prng() % n);
}

/* Seed from @env if set, otherwise from the clock; printed for replay. */
static inline unsigned long long prng_seed_from_env(const char *env)
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
	tap_diag("seed %llu (replay with %s=%llu)", seed, env, seed);
	return seed;
}

static inline long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

#include <sys/klog.h>

/* The first kernel log line that looks like a splat, or NULL. */
static inline const char *dmesg_splat(char *line, size_t size)
{
	static const char *const bad[] = { "WARNING:", "BUG:", "Oops",
		"general protection", "Kernel panic", "lockdep",
		"inconsistent lock state", "soft lockup", "hung_task",
		"blocked for more than", "KFENCE" };
	static char log[1 << 20];
	int n = klogctl(3, log, sizeof(log) - 1);	/* SYSLOG_ACTION_READ_ALL */
	char *l, *save;

	if (n < 0)
		return NULL;
	log[n] = '\0';
	for (l = strtok_r(log, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(l, bad[i])) {
				snprintf(line, size, "%s", l);
				return line;
			}
	return NULL;
}

#endif /* THPNUMA_TAP_H */
