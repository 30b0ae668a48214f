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
	if (s->choices) {
		join_names(valid, sizeof(valid), s->choices, s->nr_choices);
		snprintf(why, len, "invalid %s '%s' (valid: %s)", s->name,
			 value, valid);
	} else {
		snprintf(why, len,
			 "invalid %s '%s' (0-7: a sum of 1 reclaim, 2 write, 4 swap)",
			 s->name, value);
	}
	return -EINVAL;
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

bool policy_uses_zone_reclaim(const char *policy)
{
	return !strcmp(policy,
		       thpnuma_policy_names[THPNUMA_POLICY_LOCAL_THEN_REMOTE]);
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

void note_override_zone_reclaim(const char *policy, int zone_reclaim,
				const char *noun)
{
	if (zone_reclaim > 0 && !policy_uses_zone_reclaim(policy))
		notice("zone_reclaim applies only under local-then-remote; this %s's policy is %s",
		       noun, policy);
}

int parse_override_options(const struct command *cmd, int argc,
				  char *argv[], const char *optstring,
				  struct override_options *o)
{
	static const struct option options[] = {
		{ "policy", required_argument, NULL, 'p' },
		{ "zone-reclaim", required_argument, NULL, 'z' },
		{ "user", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	unsigned int bits;
	int c, ret;

	o->policy = NULL;
	o->zone_reclaim = -1;
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
