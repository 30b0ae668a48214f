// SPDX-License-Identifier: GPL-2.0
/*
 * /etc/thpnuma.conf: the settings that load applies with the module and
 * apply applies again, global ones and per-cgroup ones by path. The file
 * is read and checked whole first, so that a bad line is named as
 * FILE:LINE and nothing is applied.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "thpnumactl.h"

/* "cgroup PATH POLICY ZONE_RECLAIM BUDGET_US", one more to say "too many". */
#define CONF_MAX_WORDS	6

struct conf_reader {
	struct thpnuma_conf *conf;
	bool bad;
};

const char *conf_default_path(void)
{
	const char *env = getenv(ENV_CONF);

	return env && *env ? env : DEFAULT_CONF_FILE;
}

static void bad_line(struct conf_reader *r, unsigned int lineno,
		     const char *fmt, ...) __printf(3, 4);

static void bad_line(struct conf_reader *r, unsigned int lineno,
		     const char *fmt, ...)
{
	char why[1536];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	error("%s:%u: %s", r->conf->path, lineno, why);
	r->bad = true;
}

/* A setting's value as its module parameter takes it ("5", not "reclaim,swap"). */
static void read_setting(struct conf_reader *r, unsigned int lineno,
			 char **word, int nr)
{
	const struct thpnuma_setting *s = setting_by_name(word[0]);
	struct thpnuma_conf *conf = r->conf;
	unsigned int bits;
	char why[256];

	if (nr != 2) {
		bad_line(r, lineno, "%s takes one value (%s VALUE)", s->name,
			 s->name);
		return;
	}
	if (conf->line[s->id]) {
		bad_line(r, lineno, "%s is set again (first on line %u)",
			 s->name, conf->line[s->id]);
		return;
	}
	switch (s->kind) {
	case THPNUMA_SETTING_CHOICE:
	case THPNUMA_SETTING_MICROSECONDS:
		/* As the module parameter takes it, or not at all. */
		if (setting_value_error(s, word[1], why, sizeof(why))) {
			bad_line(r, lineno, "%s", why);
			return;
		}
		snprintf(conf->value[s->id], sizeof(conf->value[s->id]), "%s",
			 word[1]);
		break;
	case THPNUMA_SETTING_BITS:
		if (parse_zone_reclaim(word[1], &bits)) {
			bad_line(r, lineno, "invalid zone_reclaim '%s' (%s)",
				 word[1], ZONE_RECLAIM_VALUES);
			return;
		}
		snprintf(conf->value[s->id], sizeof(conf->value[s->id]), "%u",
			 bits);
		break;
	}
	conf->line[s->id] = lineno;
}

/*
 * An optional number of a cgroup line: "-" or absent follows the global
 * setting (-1). 0, or -EINVAL after naming the line.
 */
static int read_cgroup_number(struct conf_reader *r, unsigned int lineno,
			      const char *word, enum thpnuma_setting_id id,
			      int *out)
{
	char why[256];
	unsigned int v;

	*out = -1;
	if (!word || !strcmp(word, "-"))
		return 0;
	if (id == THPNUMA_SETTING_ZONE_RECLAIM) {
		if (parse_zone_reclaim(word, &v)) {
			bad_line(r, lineno, "invalid zone_reclaim '%s' (%s; - for the global one)",
				 word, ZONE_RECLAIM_VALUES);
			return -EINVAL;
		}
	} else if (parse_budget_us(word, &v)) {
		setting_value_error(&thpnuma_settings[id], word, why,
				    sizeof(why));
		bad_line(r, lineno, "%s", why);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

/*
 * "cgroup PATH POLICY [ZONE_RECLAIM [BUDGET_US]]", PATH as thpnumactl
 * cgroup takes it, either number "-" for the global setting.
 */
static void read_cgroup(struct conf_reader *r, unsigned int lineno,
			char **word, int nr)
{
	const struct thpnuma_setting *policy =
		&thpnuma_settings[THPNUMA_SETTING_POLICY];
	struct thpnuma_conf *conf = r->conf;
	struct thpnuma_cgroup_write w;
	struct conf_cgroup *c;
	char why[256], line[THPNUMA_MAX_CGROUP_WRITE + 1];
	int len, zone_reclaim, budget_us;
	unsigned int i;

	if (nr < 3 || nr > 5) {
		bad_line(r, lineno, "cgroup takes a path, a policy, an optional zone_reclaim and budget_us (cgroup PATH POLICY [ZONE_RECLAIM|- [BUDGET_US|-]])");
		return;
	}
	len = snprintf(line, sizeof(line), "%s kernel", word[1]);
	if (word[1][0] != '/' || len >= (int)sizeof(line) ||
	    thpnuma_parse_cgroup_write(line, len, &w)) {
		bad_line(r, lineno, "'%s' is not a cgroup v2 path (such as /system.slice/db.service: no '.' or '..' components, at most %d bytes)",
			 word[1], THPNUMA_CGROUP_PATH_MAX);
		return;
	}
	if (setting_value_error(policy, word[2], why, sizeof(why))) {
		bad_line(r, lineno, "%s", why);
		return;
	}
	if (read_cgroup_number(r, lineno, nr > 3 ? word[3] : NULL,
			       THPNUMA_SETTING_ZONE_RECLAIM, &zone_reclaim) ||
	    read_cgroup_number(r, lineno, nr > 4 ? word[4] : NULL,
			       THPNUMA_SETTING_BUDGET_US, &budget_us))
		return;
	for (i = 0; i < conf->nr_cgroups; i++) {
		if (!strcmp(conf->cgroups[i].path, word[1])) {
			bad_line(r, lineno, "cgroup %s is set again (first on line %u)",
				 word[1], conf->cgroups[i].line);
			return;
		}
	}
	c = realloc(conf->cgroups, (conf->nr_cgroups + 1) * sizeof(*c));
	if (!c) {
		bad_line(r, lineno, "out of memory");
		return;
	}
	conf->cgroups = c;
	c += conf->nr_cgroups;
	c->path = strdup(word[1]);
	if (!c->path) {
		bad_line(r, lineno, "out of memory");
		return;
	}
	c->policy = thpnuma_policy_names[lookup_name(word[2], policy->choices,
						      policy->nr_choices)];
	c->zone_reclaim = zone_reclaim;
	c->budget_us = budget_us;
	c->line = lineno;
	conf->nr_cgroups++;
}

static int read_line_words(char *text, unsigned int lineno, void *arg)
{
	struct conf_reader *r = arg;
	char *word[CONF_MAX_WORDS], names[128];
	int nr, i;

	/* More words than any line takes still say "too many". */
	nr = split_fields(text, word, CONF_MAX_WORDS);
	if (nr == -E2BIG)
		nr = CONF_MAX_WORDS;
	/* A word that starts with '#' starts a comment. */
	for (i = 0; i < nr; i++) {
		if (word[i][0] == '#') {
			nr = i;
			break;
		}
	}
	if (!nr)
		return 0;
	if (!strcmp(word[0], "cgroup")) {
		read_cgroup(r, lineno, word, nr);
	} else if (setting_by_name(word[0])) {
		read_setting(r, lineno, word, nr);
	} else {
		setting_names(names, sizeof(names));
		bad_line(r, lineno, "unknown setting '%s' (%s or cgroup)",
			 word[0], names);
	}
	return 0;
}

int conf_read(const char *path, bool optional, struct thpnuma_conf *conf)
{
	struct conf_reader r = { .conf = conf };
	char *text;
	int err;

	memset(conf, 0, sizeof(*conf));
	snprintf(conf->path, sizeof(conf->path), "%s", path);
	text = read_text(path);
	if (!text) {
		err = errno;
		if (optional && err == ENOENT)
			return 0;
		error("cannot read %s: %s", path, strerror(err));
		return EXIT_FAIL;
	}
	err = for_each_line(text, read_line_words, &r);
	free(text);
	if (err) {
		error("cannot read %s: %s", path, strerror(-err));
		return EXIT_FAIL;
	}
	if (r.bad) {
		error("nothing was applied: correct %s first", path);
		conf_free(conf);
		return EXIT_USAGE;
	}
	return 0;
}

void conf_free(struct thpnuma_conf *conf)
{
	unsigned int i;

	for (i = 0; i < conf->nr_cgroups; i++)
		free(conf->cgroups[i].path);
	free(conf->cgroups);
	conf->cgroups = NULL;
	conf->nr_cgroups = 0;
}

bool conf_empty(const struct thpnuma_conf *conf)
{
	unsigned int i;

	for (i = 0; i < THPNUMA_NR_SETTINGS; i++)
		if (conf->line[i])
			return false;
	return !conf->nr_cgroups;
}

/* One global setting through its module parameter, as thpnumactl policy. */
static int apply_setting(const struct thpnuma_conf *conf, unsigned int id,
			 bool dry_run)
{
	const struct thpnuma_setting *s = &thpnuma_settings[id];
	const char *value = conf->value[id];
	char shown[64];
	int ret;

	/* conf_read() checked it: as the module shows it, so it formats. */
	if (format_setting(s, value, shown, sizeof(shown)))
		snprintf(shown, sizeof(shown), "%s", value);
	if (dry_run) {
		printf("would set %s %s\n", s->name, shown);
		return EXIT_OK;
	}
	ret = write_param(s, value);
	if (ret) {
		error("%s:%u: %s %s was not set", conf->path, conf->line[id],
		      s->name, value);
		return ret;
	}
	printf("%s %s\n", s->name, shown);
	return EXIT_OK;
}

/*
 * A cgroup that does not exist yet is no error: a service's cgroup comes
 * with its start, a pod's with the pod.
 */
static int apply_cgroup(const struct command *cmd,
			const struct thpnuma_conf *conf,
			const struct conf_cgroup *c, bool dry_run,
			unsigned int *applied)
{
	char cgroup[PATH_MAX], words[THPNUMA_MAX_TASK_WRITE];
	int ret;

	ret = resolve_cgroup(cmd, c->path, cgroup, sizeof(cgroup), true);
	if (!ret && !dry_run)
		ret = write_cgroup_setting(cgroup, c->policy, c->zone_reclaim,
					   c->budget_us, true);
	if (ret == -ENOENT) {
		notice("%s:%u: no cgroup %s on the cgroup v2 hierarchy yet; its setting applies once it exists and '"
		       PROG " apply' runs again", conf->path, c->line, c->path);
		return EXIT_OK;
	}
	if (ret)
		return ret;
	(*applied)++;
	/* As written to the module: a line of this file, the path resolved. */
	format_override_words(words, sizeof(words), c->policy, c->zone_reclaim,
			      c->budget_us);
	printf("%scgroup %s %s\n", dry_run ? "would set " : "", cgroup, words);
	return EXIT_OK;
}

int conf_apply(const struct command *cmd, const struct thpnuma_conf *conf,
	       bool settings, bool dry_run)
{
	/*
	 * zone_reclaim and budget_us before policy: never a moment of an
	 * old, harder one under the new policy.
	 */
	static const unsigned int order[] = {
		THPNUMA_SETTING_ZONE_RECLAIM, THPNUMA_SETTING_BUDGET_US,
		THPNUMA_SETTING_SCOPE, THPNUMA_SETTING_COVERAGE,
		THPNUMA_SETTING_POLICY,
	};
	unsigned int i, applied = 0;
	int ret, status = EXIT_OK;

	_Static_assert(ARRAY_SIZE(order) == THPNUMA_NR_SETTINGS,
		       "every setting has its place in the order");

	for (i = 0; settings && i < ARRAY_SIZE(order); i++) {
		if (!conf->line[order[i]])
			continue;
		ret = apply_setting(conf, order[i], dry_run);
		if (ret)
			return ret;
	}
	for (i = 0; i < conf->nr_cgroups; i++) {
		ret = apply_cgroup(cmd, conf, &conf->cgroups[i], dry_run,
				   &applied);
		if (ret)
			status = ret;
	}
	if (conf->nr_cgroups && applied < conf->nr_cgroups)
		printf("%s %u of %u cgroup settings from %s\n",
		       dry_run ? "would apply" : "applied", applied,
		       conf->nr_cgroups, conf->path);
	return status;
}
