// SPDX-License-Identifier: GPL-2.0
/*
 * thpnumactl's messages, option helpers and setting names. Messages go to
 * stderr and say why; usage errors point to the command's --help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "thpnumactl.h"

void error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void notice(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": note: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int usage_error(const struct command *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG " %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " %s --help'.\n", cmd->name);
	return EXIT_USAGE;
}

int option_error(const struct command *cmd, int c, char *argv[])
{
	if (c == ':')
		return usage_error(cmd, "option '%s' needs an argument",
				   argv[optind - 1]);
	if (optopt)
		return usage_error(cmd, "unknown option '-%c'", optopt);
	return usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

int needs_root(const char *what)
{
	error("%s needs root; run it as root (for example with sudo)", what);
	return EXIT_FAIL;
}

void show_help(const struct command *cmd)
{
	printf("Usage: " PROG " %s\n", cmd->usage);
}

int parse_simple_options(const struct command *cmd, int argc, char *argv[],
			 int max_args, bool *json)
{
	enum { OPT_JSON = 256 };
	static const struct option with_json[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const struct option *options = json ? with_json : with_json + 1;
	int c;

	if (json)
		*json = false;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		if (c == OPT_JSON) {
			*json = true;
			continue;
		}
		if (c == 'h') {
			show_help(cmd);
			return EXIT_OK;
		}
		return option_error(cmd, c, argv);
	}
	if (argc - optind > max_args)
		return usage_error(cmd, "unexpected argument '%s'",
				   argv[optind + max_args]);
	return -1;
}

int parse_no_options(const struct command *cmd, int argc, char *argv[],
		     int max_args)
{
	return parse_simple_options(cmd, argc, argv, max_args, NULL);
}

int lookup_name(const char *name, const char *const *names, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

void join_names(char *buf, size_t len, const char *const *names,
		unsigned int nr)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < nr && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", names[i]);
}

int setting_value_error(const struct thpnuma_setting *s, const char *value,
			char *why, size_t len)
{
	size_t n = strlen(value);
	unsigned int v;
	char valid[128];

	/* The module's limit and parser, as its parameter and file use. */
	if (n <= THPNUMA_MAX_WRITE && !strchr(value, '\n') &&
	    !thpnuma_parse_setting(s, value, n, &v))
		return 0;
	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		join_names(valid, sizeof(valid), s->choices, s->nr_choices);
		snprintf(why, len, "invalid %s '%s' (valid: %s)", s->name,
			 value, valid);
		break;
	case THPNUMA_SETTING_BITS:
		snprintf(why, len,
			 "invalid %s '%s' (%s: a sum of 1 reclaim, 2 write, 4 swap)",
			 s->name, value, s->range);
		break;
	case THPNUMA_SETTING_MICROSECONDS:
		snprintf(why, len,
			 "invalid %s '%s' (%s microseconds, written without sign or leading zeros)",
			 s->name, value, s->range);
		break;
	}
	return -EINVAL;
}

int format_setting(const struct thpnuma_setting *s, const char *value,
		   char *buf, size_t len)
{
	unsigned int v;

	/* The module's parser: what it takes is what it shows. */
	if (strlen(value) > THPNUMA_MAX_WRITE || strchr(value, '\n') ||
	    thpnuma_parse_setting(s, value, strlen(value), &v))
		return -EINVAL;
	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
		snprintf(buf, len, "%s", s->choices[v]);
		break;
	case THPNUMA_SETTING_BITS:
		format_zone_reclaim(buf, len, v);
		break;
	case THPNUMA_SETTING_MICROSECONDS:
		/* The name says the unit: a plain number, as written. */
		snprintf(buf, len, "%u", v);
		break;
	}
	return 0;
}

void setting_names(char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < THPNUMA_NR_SETTINGS && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 i ? ", " : "", thpnuma_settings[i].name);
}

const struct thpnuma_setting *setting_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < THPNUMA_NR_SETTINGS; i++) {
		const char *a = thpnuma_settings[i].name, *b = name;

		while (*a && (*a == *b || (*a == '_' && *b == '-')))
			a++, b++;
		if (!*a && !*b)
			return &thpnuma_settings[i];
	}
	return NULL;
}

int check_choice(const struct command *cmd, const struct thpnuma_setting *s,
		 const char *name)
{
	char why[256];

	if (!setting_value_error(s, name, why, sizeof(why)))
		return -1;
	return usage_error(cmd, "%s", why);
}

int check_policy(const struct command *cmd, const char *name)
{
	return check_choice(cmd, &thpnuma_settings[THPNUMA_SETTING_POLICY],
			    name);
}

static const char *const zone_reclaim_names[] = {
	"reclaim", "write", "swap",	/* bits 0, 1, 2 */
};

int parse_zone_reclaim(const char *text, unsigned int *bits)
{
	char *copy, *word, *save = NULL;
	int ret = 0;

	if (text[0] >= '0' && text[0] <= '7' && text[1] == '\0') {
		*bits = text[0] - '0';
		return 0;
	}
	if (!strcmp(text, "none")) {
		*bits = 0;
		return 0;
	}
	if (!*text || text[0] == ',' || text[strlen(text) - 1] == ',' ||
	    strstr(text, ",,"))
		return -EINVAL;
	copy = strdup(text);
	if (!copy)
		return -ENOMEM;
	*bits = 0;
	for (word = strtok_r(copy, ",", &save); word && !ret;
	     word = strtok_r(NULL, ",", &save)) {
		int bit = lookup_name(word, zone_reclaim_names,
				      ARRAY_SIZE(zone_reclaim_names));

		if (bit < 0)
			ret = -EINVAL;
		else
			*bits |= 1u << bit;
	}
	free(copy);
	return ret;
}

int check_zone_reclaim(const struct command *cmd, const char *text,
		       unsigned int *bits)
{
	if (!parse_zone_reclaim(text, bits))
		return -1;
	return usage_error(cmd, "invalid zone reclaim mode '%s' (" ZONE_RECLAIM_VALUES ")",
			   text);
}

/*
 * No default: a new policy is a build error here (-Werror=switch-enum)
 * until it says whether it reads zone_reclaim and budget_us.
 */
static bool policy_reads(const char *policy, enum thpnuma_setting_id id)
{
	int p = lookup_name(policy, thpnuma_policy_names, THPNUMA_NR_POLICIES);

	if (p < 0)
		return false;
	switch ((enum thpnuma_policy)p) {
	case THPNUMA_POLICY_KERNEL:
	case THPNUMA_POLICY_STRICT_LOCAL:
		return false;
	case THPNUMA_POLICY_LOCAL_THEN_REMOTE:
		return id == THPNUMA_SETTING_ZONE_RECLAIM;
	case THPNUMA_POLICY_BUDGET:
		/* zone_reclaim is its effort within the budget. */
		return id == THPNUMA_SETTING_ZONE_RECLAIM ||
		       id == THPNUMA_SETTING_BUDGET_US;
	}
	return false;
}

bool policy_uses_zone_reclaim(const char *policy)
{
	return policy_reads(policy, THPNUMA_SETTING_ZONE_RECLAIM);
}

bool policy_uses_budget(const char *policy)
{
	return policy_reads(policy, THPNUMA_SETTING_BUDGET_US);
}

int parse_budget_us(const char *text, unsigned int *us)
{
	size_t len = strlen(text);

	/* The module's parser takes a trailing newline; an argument may not. */
	if (len > THPNUMA_MAX_WRITE || strchr(text, '\n') ||
	    thpnuma_parse_budget_us(text, len, us))
		return -EINVAL;
	return 0;
}

int check_budget_us(const struct command *cmd, const char *text,
		    unsigned int *us)
{
	char why[256];

	if (!parse_budget_us(text, us))
		return -1;
	setting_value_error(&thpnuma_settings[THPNUMA_SETTING_BUDGET_US],
			    text, why, sizeof(why));
	return usage_error(cmd, "%s", why);
}

void format_duration(char *buf, size_t len, unsigned long long ns)
{
	/* Units so that three significant digits stay below 1000. */
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", ns);
	else if (ns < 999500)
		snprintf(buf, len, "%.3g us", ns / 1e3);
	else if (ns < 999500000)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else if (ns < 999500000000ULL)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else
		snprintf(buf, len, "%.0f s", ns / 1e9);
}

void format_zone_reclaim(char *buf, size_t len, unsigned int bits)
{
	size_t used;
	unsigned int i;

	used = snprintf(buf, len, "%u (", bits);
	if (!bits)
		used += snprintf(buf + used, len - used, "none");
	for (i = 0; i < ARRAY_SIZE(zone_reclaim_names) && used < len; i++)
		if (bits & (1u << i))
			used += snprintf(buf + used, len - used, "%s%s",
					 bits & ((1u << i) - 1) ? "," : "",
					 zone_reclaim_names[i]);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

void note_override_settings(const char *policy, int zone_reclaim,
			    int budget_us, const char *noun)
{
	if (zone_reclaim > 0 && !policy_uses_zone_reclaim(policy))
		notice("zone_reclaim applies only under " ZONE_RECLAIM_POLICIES "; this %s's policy is %s",
		       noun, policy);
	/* As budget-us: any budget given is noted, none means nothing. */
	if (budget_us > 0 && !policy_uses_budget(policy))
		notice("budget_us applies only under budget; this %s's policy is %s",
		       noun, policy);
}

void format_override_words(char *buf, size_t len, const char *policy,
			   int zone_reclaim, int budget_us)
{
	char zr[12] = "-";

	if (zone_reclaim >= 0)
		snprintf(zr, sizeof(zr), "%d", zone_reclaim);
	/* The shortest form: trailing words that follow the global go. */
	if (budget_us >= 0)
		snprintf(buf, len, "%s %s %d", policy, zr, budget_us);
	else if (zone_reclaim >= 0)
		snprintf(buf, len, "%s %s", policy, zr);
	else
		snprintf(buf, len, "%s", policy);
}

int check_override_policy(const struct command *cmd,
			  const struct override_options *o)
{
	if (o->policy && strcmp(o->policy, "default"))
		return -1;
	if (o->zone_reclaim >= 0)
		return usage_error(cmd, "--zone-reclaim needs a POLICY");
	if (o->budget_us >= 0)
		return usage_error(cmd, "--budget-us needs a POLICY");
	return -1;
}

int parse_override_options(const struct command *cmd, int argc,
				  char *argv[], const char *optstring,
				  struct override_options *o)
{
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "budget-us", required_argument, NULL, 'b' },
		{ "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int bits, us;
	int c, ret;

	o->policy = NULL;
	o->zone_reclaim = -1;
	o->budget_us = -1;
	o->user = NULL;
	optind = 0;
	while ((c = getopt_long(argc, argv, optstring, options, NULL)) != -1) {
		switch (c) {
		case 'p':
			ret = check_policy(cmd, optarg);
			if (ret >= 0)
				return ret;
			o->policy = optarg;
			break;
		case 'z':
			ret = check_zone_reclaim(cmd, optarg, &bits);
			if (ret >= 0)
				return ret;
			o->zone_reclaim = (int)bits;
			break;
		case 'b':
			ret = check_budget_us(cmd, optarg, &us);
			if (ret >= 0)
				return ret;
			o->budget_us = (int)us;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 'h':
			show_help(cmd);
			return EXIT_OK;
		default:
			return option_error(cmd, c, argv);
		}
	}
	return -1;
}
