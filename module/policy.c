// SPDX-License-Identifier: GPL-2.0
/*
 * Policy decision for thpnuma. No kernel headers beyond basic types: the
 * host unit tests compile this file as it is.
 */
#ifdef __KERNEL__
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
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

#include "budget.h"
#include "counters.h"
#include "policy.h"

const char *const thpnuma_policy_names[THPNUMA_NR_POLICIES] = {
	THPNUMA_POLICIES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_scope_names[THPNUMA_NR_SCOPES] = {
	THPNUMA_SCOPES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_coverage_names[THPNUMA_NR_COVERAGES] = {
	THPNUMA_COVERAGES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_action_names[THPNUMA_NR_ACTIONS] = {
	THPNUMA_ACTIONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const
thpnuma_passthrough_reason_names[THPNUMA_NR_PASSTHROUGH_REASONS] = {
	THPNUMA_PASSTHROUGH_REASONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_fault_result_names[THPNUMA_NR_FAULT_RESULTS] = {
	THPNUMA_FAULT_RESULTS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_local_attempt_names[THPNUMA_NR_LOCAL_ATTEMPTS] = {
	THPNUMA_LOCAL_ATTEMPTS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_budget_decision_names[THPNUMA_NR_BUDGET_DECISIONS] = {
	THPNUMA_BUDGET_DECISIONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_kind_names[THPNUMA_NR_KINDS] = {
	THPNUMA_KINDS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

#define COUNTER_NAME(id, name, help)	#name,
#define COUNTER_HELP(id, name, help)	help,

const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS] = {
	THPNUMA_NODE_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_counter_help[THPNUMA_NR_COUNTERS] = {
	THPNUMA_NODE_COUNTERS(COUNTER_HELP)
};

const char *const thpnuma_policy_counter_names[THPNUMA_NR_POLICY_COUNTERS] = {
	THPNUMA_POLICY_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_policy_counter_help[THPNUMA_NR_POLICY_COUNTERS] = {
	THPNUMA_POLICY_COUNTERS(COUNTER_HELP)
};

const char *const thpnuma_cgroup_counter_names[THPNUMA_NR_CGROUP_COUNTERS] = {
	THPNUMA_CGROUP_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_cgroup_counter_help[THPNUMA_NR_CGROUP_COUNTERS] = {
	THPNUMA_CGROUP_COUNTERS(COUNTER_HELP)
};

#define HIST_OUTCOME_NAME(id, name)	#name,

const char *const thpnuma_hist_outcome_names[THPNUMA_NR_HIST_OUTCOMES] = {
	THPNUMA_HIST_OUTCOMES(HIST_OUTCOME_NAME)
};

const char *const thpnuma_order_outcome_names[THPNUMA_NR_ORDER_OUTCOMES] = {
	THPNUMA_ORDER_OUTCOMES(COUNTER_NAME)
};

const char *const thpnuma_order_outcome_help[THPNUMA_NR_ORDER_OUTCOMES] = {
	THPNUMA_ORDER_OUTCOMES(COUNTER_HELP)
};

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

u64 thpnuma_config_apply_override(u64 global, u64 override)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(global);
	struct thpnuma_config o = thpnuma_config_unpack(override);

	cfg.policy = o.policy;
	if (o.zone_reclaim != THPNUMA_ZR_INHERIT)
		cfg.zone_reclaim = o.zone_reclaim;
	if (o.budget_us != THPNUMA_BUDGET_INHERIT)
		cfg.budget_us = o.budget_us;
	return thpnuma_config_pack(&cfg);
}

/*
 * shmem and tmpfs huge pages are always asked for: by the mount's huge=
 * option, shmem_enabled, or the advice the kernel already checked.
 */
static bool madvised(const struct thpnuma_fault *f)
{
	return f->kind == THPNUMA_KIND_SHMEM || f->madvised;
}

bool thpnuma_covers(unsigned int coverage, const struct thpnuma_fault *f)
{
	switch ((enum thpnuma_coverage)coverage) {
	case THPNUMA_COVERAGE_PMD:
		return f->kind == THPNUMA_KIND_ANON && f->pmd_order;
	case THPNUMA_COVERAGE_PMD_MTHP:
		return f->kind != THPNUMA_KIND_SHMEM;
	case THPNUMA_COVERAGE_ALL:
		break;
	}
	return true;
}

enum thpnuma_action thpnuma_decide(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	if (!f->thp_fault || !thpnuma_covers(cfg.coverage, f))
		return THPNUMA_ACT_IGNORE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !madvised(f))
		return THPNUMA_ACT_IGNORE;
	/*
	 * An explicit memory policy is the user's word: it wins. So does a
	 * cpuset that keeps the task off its CPU's node: there is no local
	 * node to prefer, and strict-local would never get a THP.
	 */
	if (f->has_mempolicy || f->local_disallowed)
		return THPNUMA_ACT_PASSTHROUGH;

	switch ((enum thpnuma_policy)cfg.policy) {
	case THPNUMA_POLICY_KERNEL:
		break;
	case THPNUMA_POLICY_STRICT_LOCAL:
		return THPNUMA_ACT_STRICT_LOCAL;
	case THPNUMA_POLICY_LOCAL_THEN_REMOTE:
		return THPNUMA_ACT_LOCAL_THEN_REMOTE;
	case THPNUMA_POLICY_BUDGET:
		return THPNUMA_ACT_BUDGET;
	}
	/* The kernel policy, and no other value reaches the word. */
	return THPNUMA_ACT_COUNT_ONLY;
}

enum thpnuma_passthrough_reason
thpnuma_passthrough_reason(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	/* In thpnuma_decide()'s order, so the first reason that applied. */
	if (!thpnuma_covers(cfg.coverage, f))
		return THPNUMA_PT_COVERAGE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !madvised(f))
		return THPNUMA_PT_SCOPE;
	if (f->has_mempolicy)
		return THPNUMA_PT_MEMPOLICY;
	if (f->local_disallowed)
		return THPNUMA_PT_CPUSET;
	return THPNUMA_PT_NONE;
}

struct thpnuma_local_effort thpnuma_local_effort(unsigned int zone_reclaim)
{
	struct thpnuma_local_effort e = {
		.reclaim	= zone_reclaim & THPNUMA_ZR_MASK,
		.enter_fs	= zone_reclaim & THPNUMA_ZR_WRITE,
		.swap		= zone_reclaim & THPNUMA_ZR_SWAP,
		.wake_kswapd	= zone_reclaim & THPNUMA_ZR_MASK,
	};

	return e;
}

struct thpnuma_step thpnuma_step_down(bool pending, unsigned int pending_kind,
				      unsigned int last_order,
				      unsigned int kind, unsigned int order,
				      bool got_thp)
{
	/*
	 * A fault steps down within one kind; a pending fallback of another
	 * kind, or of an order not above this one, is a fault that ended
	 * without a hooked small-page call (6.1's shmem out of space).
	 */
	bool continues = pending && pending_kind == kind && order < last_order;
	struct thpnuma_step step = {
		.end_pending	= pending && !continues,
		.continues	= continues,
		.count_attempt	= got_thp,
		.keep_pending	= !got_thp,
	};

	return step;
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
