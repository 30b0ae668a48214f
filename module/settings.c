// SPDX-License-Identifier: GPL-2.0
/*
 * The settings: their table, the configuration word's fields, and the
 * strict parsers and formatters of what users write and read (module
 * parameters, sysfs, debugfs, the override files, thpnumactl).
 * Kernel-free: the host unit tests and thpnumactl compile it as it is.
 */
#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <stdio.h>
#include <string.h>
#include <stdarg.h>
#define scnprintf thpnuma_scnprintf
/* The kernel's scnprintf(): returns what was written, never more. */
static int thpnuma_scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!size)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (n < 0)
		return 0;
	return (size_t)n >= size ? (int)size - 1 : n;
}
#endif

#include "policy.h"

const struct thpnuma_setting thpnuma_settings[THPNUMA_NR_SETTINGS] = {
	[THPNUMA_SETTING_POLICY] = {
		.id		= THPNUMA_SETTING_POLICY,
		.name		= "policy",
		.kind		= THPNUMA_SETTING_CHOICE,
		.choices	= thpnuma_policy_names,
		.nr_choices	= THPNUMA_NR_POLICIES,
	},
	[THPNUMA_SETTING_ZONE_RECLAIM] = {
		.id		= THPNUMA_SETTING_ZONE_RECLAIM,
		.name		= "zone_reclaim",
		.kind		= THPNUMA_SETTING_BITS,
		.range		= "0-7",
	},
	[THPNUMA_SETTING_SCOPE] = {
		.id		= THPNUMA_SETTING_SCOPE,
		.name		= "scope",
		.kind		= THPNUMA_SETTING_CHOICE,
		.choices	= thpnuma_scope_names,
		.nr_choices	= THPNUMA_NR_SCOPES,
	},
	[THPNUMA_SETTING_COVERAGE] = {
		.id		= THPNUMA_SETTING_COVERAGE,
		.name		= "coverage",
		.kind		= THPNUMA_SETTING_CHOICE,
		.choices	= thpnuma_coverage_names,
		.nr_choices	= THPNUMA_NR_COVERAGES,
	},
	[THPNUMA_SETTING_BUDGET_US] = {
		.id		= THPNUMA_SETTING_BUDGET_US,
		.name		= "budget_us",
		.kind		= THPNUMA_SETTING_MICROSECONDS,
		.range		= "1-1000000",
	},
};

unsigned int thpnuma_config_get_field(const struct thpnuma_config *cfg,
				      enum thpnuma_setting_id id)
{
	switch (id) {
	case THPNUMA_SETTING_POLICY:
		return cfg->policy;
	case THPNUMA_SETTING_ZONE_RECLAIM:
		return cfg->zone_reclaim;
	case THPNUMA_SETTING_SCOPE:
		return cfg->scope;
	case THPNUMA_SETTING_COVERAGE:
		return cfg->coverage;
	case THPNUMA_SETTING_BUDGET_US:
		return cfg->budget_us;
	}
	return 0;
}

void thpnuma_config_set_field(struct thpnuma_config *cfg,
			      enum thpnuma_setting_id id, unsigned int value)
{
	switch (id) {
	case THPNUMA_SETTING_POLICY:
		cfg->policy = value;
		break;
	case THPNUMA_SETTING_ZONE_RECLAIM:
		cfg->zone_reclaim = value;
		break;
	case THPNUMA_SETTING_SCOPE:
		cfg->scope = value;
		break;
	case THPNUMA_SETTING_COVERAGE:
		cfg->coverage = value;
		break;
	case THPNUMA_SETTING_BUDGET_US:
		cfg->budget_us = value;
		break;
	}
}

/* Length of @buf without one trailing newline; -1 if the input is bad. */
static long strip_newline_max(const char *buf, size_t len, size_t max)
{
	if (!len || len > max)
		return -1;
	if (buf[len - 1] == '\n')
		len--;
	if (!len)
		return -1;
	return (long)len;
}

static long strip_newline(const char *buf, size_t len)
{
	return strip_newline_max(buf, len, THPNUMA_MAX_WRITE);
}

int thpnuma_parse_choice(const char *buf, size_t len,
			 const char *const *names, unsigned int nr_names,
			 unsigned int *out)
{
	long n = strip_newline(buf, len);
	unsigned int i;

	if (n < 0)
		return -EINVAL;
	for (i = 0; i < nr_names; i++) {
		if (strlen(names[i]) == (size_t)n &&
		    !memcmp(buf, names[i], n)) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int thpnuma_parse_zone_reclaim(const char *buf, size_t len, unsigned int *out)
{
	long n = strip_newline(buf, len);

	/* Exactly one decimal digit 0-7: no signs, spaces or leading zeros. */
	if (n != 1 || buf[0] < '0' || buf[0] > '7')
		return -EINVAL;
	*out = (unsigned int)(buf[0] - '0');
	return 0;
}

/* A decimal in [1, max] without sign, spaces or leading zeros; else -1. */
static long parse_decimal(const char *s, size_t len, long max)
{
	long v = 0;
	size_t i;

	if (!len || len > 7 || s[0] == '0')
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v <= max ? v : -1;
}

int thpnuma_parse_budget_us(const char *buf, size_t len, unsigned int *out)
{
	long n = strip_newline(buf, len);
	long us = n < 0 ? -1 : parse_decimal(buf, n, THPNUMA_BUDGET_MAX_US);

	if (us < 0)
		return -EINVAL;
	*out = (unsigned int)us;
	return 0;
}

/* "-": the override follows the global setting; else @parse's number. */
static int parse_inheritable(const char *word, size_t len,
			     int (*parse)(const char *, size_t, unsigned int *),
			     unsigned int inherit, unsigned int *out)
{
	if (len == 1 && word[0] == '-') {
		*out = inherit;
		return 0;
	}
	return parse(word, len, out);
}

/*
 * What follows the PID or the path of an override write, @word to @end:
 * THPNUMA_OVERRIDE_GRAMMAR or "default".
 */
static int parse_override(const char *word, const char *end, bool *clear,
			  unsigned int *policy, unsigned int *zone_reclaim,
			  unsigned int *budget_us)
{
	const char *space = memchr(word, ' ', end - word);
	size_t wlen = (space ? space : end) - word;

	*zone_reclaim = THPNUMA_ZR_INHERIT;
	*budget_us = THPNUMA_BUDGET_INHERIT;
	*clear = wlen == 7 && !memcmp(word, "default", 7);
	if (*clear)
		return space ? -EINVAL : 0;
	if (thpnuma_parse_choice(word, wlen, thpnuma_policy_names,
				 THPNUMA_NR_POLICIES, policy))
		return -EINVAL;
	if (!space)
		return 0;
	word = space + 1;
	space = memchr(word, ' ', end - word);
	if (parse_inheritable(word, (space ? space : end) - word,
			      thpnuma_parse_zone_reclaim, THPNUMA_ZR_INHERIT,
			      zone_reclaim))
		return -EINVAL;
	if (!space)
		return 0;
	word = space + 1;
	return parse_inheritable(word, end - word, thpnuma_parse_budget_us,
				 THPNUMA_BUDGET_INHERIT, budget_us);
}

int thpnuma_format_override(char *buf, size_t size, u64 override)
{
	struct thpnuma_config o = thpnuma_config_unpack(override);
	char zr[4] = "-", budget[12] = "-";

	if (o.zone_reclaim != THPNUMA_ZR_INHERIT)
		scnprintf(zr, sizeof(zr), "%u", o.zone_reclaim);
	if (o.budget_us != THPNUMA_BUDGET_INHERIT)
		scnprintf(budget, sizeof(budget), "%u", o.budget_us);
	return scnprintf(buf, size, "%s %s %s",
			 thpnuma_policy_names[o.policy], zr, budget);
}

int thpnuma_parse_task_write(const char *buf, size_t len,
			     struct thpnuma_task_write *out)
{
	const char *space;
	long n = strip_newline_max(buf, len, THPNUMA_MAX_TASK_WRITE);
	long pid;

	/* The sub-parsers allow a newline of their own: none may remain. */
	if (n < 0 || memchr(buf, '\n', n))
		return -EINVAL;
	space = memchr(buf, ' ', n);
	if (!space)
		return -EINVAL;
	pid = parse_decimal(buf, space - buf, THPNUMA_PID_MAX);
	if (pid < 0)
		return -EINVAL;
	out->pid = (int)pid;
	return parse_override(space + 1, buf + n, &out->clear, &out->policy,
			      &out->zone_reclaim, &out->budget_us);
}

/*
 * A path is absolute, of printable ASCII without spaces, so that it is
 * one field of the listing (systemd's "\x2d" escapes are names), and has
 * no empty, "." or ".." component: such a path names no cgroup, or the
 * same one as another.
 */
static bool valid_cgroup_path(const char *p, size_t len)
{
	const char *end = p + len, *name, *slash;
	size_t i, nlen;

	if (!len || len > THPNUMA_CGROUP_PATH_MAX || p[0] != '/')
		return false;
	for (i = 0; i < len; i++)
		if (p[i] <= ' ' || p[i] > '~')
			return false;
	if (len == 1)
		return true;		/* the root cgroup */
	for (name = p + 1; name <= end; name = slash + 1) {
		slash = memchr(name, '/', end - name);
		if (!slash)
			slash = end;
		nlen = slash - name;
		if (!nlen || (nlen == 1 && name[0] == '.') ||
		    (nlen == 2 && name[0] == '.' && name[1] == '.'))
			return false;
	}
	return true;
}

int thpnuma_parse_cgroup_write(const char *buf, size_t len,
			       struct thpnuma_cgroup_write *out)
{
	long n = strip_newline_max(buf, len, THPNUMA_MAX_CGROUP_WRITE);
	const char *space;

	if (n < 0 || memchr(buf, '\n', n))
		return -EINVAL;
	space = memchr(buf, ' ', n);
	if (!space || !valid_cgroup_path(buf, space - buf))
		return -EINVAL;
	out->path = buf;
	out->path_len = space - buf;
	return parse_override(space + 1, buf + n, &out->clear, &out->policy,
			      &out->zone_reclaim, &out->budget_us);
}

int thpnuma_format_choices(char *buf, size_t size, const char *const *names,
			   unsigned int nr_names, unsigned int current_choice)
{
	int len = 0;
	unsigned int i;

	if (!size)
		return 0;
	buf[0] = '\0';
	for (i = 0; i < nr_names; i++) {
		const char *fmt = i == current_choice ? "%s[%s]" : "%s%s";

		len += scnprintf(buf + len, size - len, fmt, i ? " " : "",
				 names[i]);
	}
	len += scnprintf(buf + len, size - len, "\n");
	return len;
}

int thpnuma_parse_setting(const struct thpnuma_setting *s, const char *buf,
			  size_t len, unsigned int *out)
{
	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		return thpnuma_parse_choice(buf, len, s->choices,
					    s->nr_choices, out);
	case THPNUMA_SETTING_BITS:
		return thpnuma_parse_zone_reclaim(buf, len, out);
	case THPNUMA_SETTING_MICROSECONDS:
		break;
	}
	return thpnuma_parse_budget_us(buf, len, out);
}

int thpnuma_format_setting(const struct thpnuma_setting *s,
			   unsigned int value, char *buf, size_t size)
{
	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		return thpnuma_format_choices(buf, size, s->choices,
					      s->nr_choices, value);
	case THPNUMA_SETTING_BITS:
	case THPNUMA_SETTING_MICROSECONDS:
		break;
	}
	return scnprintf(buf, size, "%u\n", value);
}
