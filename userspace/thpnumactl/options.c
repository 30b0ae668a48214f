// SPDX-License-Identifier: GPL-2.0
/*
 * thpnuma's load-time options as modprobe would pass them: the "options
 * thpnuma ..." lines of modprobe.d, read as libkmod reads them, and the
 * kernel command line's thpnuma.PARAM=VALUE words, which libkmod adds
 * after them. Each option keeps where it came from ("FILE:LINE"), so that
 * load can name a bad value before the kernel refuses the whole module.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "thpnumactl.h"

/*
 * libkmod's directories, in its order of precedence: a file hides any of
 * the same name in a later directory.
 */
static const char *const default_modprobe_dirs[] = {
	"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d",
	"/lib/modprobe.d", "/usr/lib/modprobe.d", NULL,
};

const char *const *modprobe_dirs(void)
{
	static const char *dirs[16];
	static char *copy;
	const char *env = getenv(ENV_MODPROBE_D);
	char *dir, *save = NULL;
	unsigned int nr = 0;

	if (!env || !*env)
		return default_modprobe_dirs;
	if (!copy) {
		copy = strdup(env);
		if (!copy)
			return default_modprobe_dirs;
		for (dir = strtok_r(copy, ":", &save);
		     dir && nr < ARRAY_SIZE(dirs) - 1;
		     dir = strtok_r(NULL, ":", &save))
			dirs[nr++] = dir;
	}
	return dirs;
}

const char *kernel_arg_next(const char **p, size_t *len)
{
	const char *start, *s = *p;
	bool in_quote = false;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return NULL;
	/* The kernel's next_arg(): spaces inside double quotes do not split. */
	for (start = s; *s && (in_quote || !isspace((unsigned char)*s)); s++)
		if (*s == '"')
			in_quote = !in_quote;
	*len = s - start;
	*p = s;
	return start;
}

/*
 * @word as the kernel's next_arg() and parameq() read it: the name before
 * the first '=', with '-' for '_', and the value after it, without the
 * quotes around either. *@value is NULL without an '='.
 */
static int split_option(const char *word, size_t len, char **name,
			char **value)
{
	const char *end = word + len, *eq, *v;
	bool quoted = *word == '"';
	char *p;

	if (quoted)
		word++;
	eq = memchr(word, '=', end - word);
	*value = NULL;
	if (eq) {
		v = eq + 1;
		if (*v == '"' && v < end) {
			v++;
			if (end > v && end[-1] == '"')
				end--;
		} else if (quoted && end > v && end[-1] == '"') {
			end--;
		}
		*value = strndup(v, end - v);
	} else if (quoted && end > word && end[-1] == '"') {
		end--;
	}
	*name = strndup(word, (eq ? eq : end) - word);
	if (!*name || (eq && !*value)) {
		free(*name);
		free(*value);
		return -ENOMEM;
	}
	for (p = *name; *p; p++)
		if (*p == '-')
			*p = '_';
	return 0;
}

static int add_option(struct module_options *mo, const char *word,
		      size_t len, const char *where)
{
	struct module_option *grown, *o;

	grown = realloc(mo->opt, (mo->nr + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	mo->opt = grown;
	o = &mo->opt[mo->nr];
	o->word = strndup(word, len);
	o->where = strdup(where);
	if (!o->word || !o->where ||
	    split_option(word, len, &o->name, &o->value)) {
		free(o->word);
		free(o->where);
		return -ENOMEM;
	}
	mo->nr++;
	return 0;
}

void module_options_free(struct module_options *mo)
{
	unsigned int i;

	for (i = 0; i < mo->nr; i++) {
		free(mo->opt[i].word);
		free(mo->opt[i].where);
		free(mo->opt[i].name);
		free(mo->opt[i].value);
	}
	free(mo->opt);
	mo->opt = NULL;
	mo->nr = 0;
}

/*
 * One logical line, as libkmod's freadline_wrapped(): a backslash before a
 * newline joins the next physical line, before any other character it is
 * dropped. @lines[i] is the physical line of text[i].
 */
struct conf_line {
	char *text;
	unsigned int *lines;
	size_t len, size;
};

static int conf_line_add(struct conf_line *l, char c, unsigned int lineno)
{
	if (l->len + 1 >= l->size) {
		size_t size = l->size ? 2 * l->size : 256;
		char *text = realloc(l->text, size);
		unsigned int *lines;

		if (!text)
			return -ENOMEM;
		l->text = text;
		lines = realloc(l->lines, size * sizeof(*lines));
		if (!lines)
			return -ENOMEM;
		l->lines = lines;
		l->size = size;
	}
	l->lines[l->len] = lineno;
	l->text[l->len++] = c;
	l->text[l->len] = '\0';
	return 0;
}

/* 1 with a line in @l, 0 at the end of the file, or -ENOMEM. */
static int conf_line_read(FILE *f, struct conf_line *l, unsigned int *lineno)
{
	int c, ret = 0;

	l->len = 0;
	if (l->text)
		l->text[0] = '\0';
	while ((c = getc(f)) != EOF) {
		if (c == '\n') {
			++*lineno;
			return 1;
		}
		if (c == '\\') {
			c = getc(f);
			if (c == '\n') {
				++*lineno;
				continue;
			}
			if (c == EOF)
				break;
		}
		ret = conf_line_add(l, (char)c, *lineno);
		if (ret)
			return ret;
	}
	if (!l->len)
		return 0;
	++*lineno;
	return 1;
}

static bool is_delimiter(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "options thpnuma WORDS": its words, each with its own physical line.
 * Lines of any other form are libkmod's business, not ours.
 */
static int parse_conf_line(const struct conf_line *l, const char *path,
			   struct module_options *mo)
{
	const char *t = l->text, *word, *p;
	char where[PATH_MAX + 16];
	size_t i = 0, start, len;
	int ret;

	if (!l->len || t[0] == '#')
		return 0;
	while (is_delimiter(t[i]))
		i++;
	start = i;
	while (t[i] && !is_delimiter(t[i]))
		i++;
	if (i - start != strlen("options") || strncmp(t + start, "options", i - start))
		return 0;
	while (is_delimiter(t[i]))
		i++;
	start = i;
	while (t[i] && !is_delimiter(t[i]))
		i++;
	/* The module name as libkmod's underscores() reads it. */
	if (i - start != strlen(MODULE_NAME))
		return 0;
	for (len = 0; len < i - start; len++) {
		char c = t[start + len] == '-' ? '_' : t[start + len];

		if (c != MODULE_NAME[len])
			return 0;
	}
	if (!t[i])
		return 0;	/* no options: libkmod ignores the line */
	p = t + i + 1;
	while ((word = kernel_arg_next(&p, &len))) {
		snprintf(where, sizeof(where), "%s:%u", path,
			 l->lines[word - t]);
		ret = add_option(mo, word, len, where);
		if (ret)
			return ret;
	}
	return 0;
}

static int read_conf_file(const char *path, struct module_options *mo)
{
	struct conf_line l = { NULL };
	unsigned int lineno = 1;
	FILE *f = fopen(path, "re");
	int ret;

	/* libkmod skips a file it cannot open; modprobe would not see it. */
	if (!f)
		return 0;
	while ((ret = conf_line_read(f, &l, &lineno)) > 0) {
		ret = parse_conf_line(&l, path, mo);
		if (ret)
			break;
	}
	fclose(f);
	free(l.text);
	free(l.lines);
	return ret;
}

/* libkmod reads *.conf and *.alias, not hidden files or directories. */
static bool is_conf_name(const char *name)
{
	size_t len = strlen(name);

	if (name[0] == '.')
		return false;
	return (len > 5 && !strcmp(name + len - 5, ".conf")) ||
	       (len > 6 && !strcmp(name + len - 6, ".alias"));
}

struct conf_file {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
};

static int compare_conf_files(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name,
		      ((const struct conf_file *)b)->name);
}

/* Add @path as @name, unless an earlier directory had a file of that name. */
static int add_conf_file(struct conf_file **files, unsigned int *nr,
			 const char *name, const char *path)
{
	struct conf_file *grown;
	unsigned int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp((*files)[i].name, name))
			return 0;
	grown = realloc(*files, (*nr + 1) * sizeof(**files));
	if (!grown)
		return -ENOMEM;
	*files = grown;
	snprintf(grown[*nr].name, sizeof(grown[*nr].name), "%s", name);
	snprintf(grown[*nr].path, sizeof(grown[*nr].path), "%s", path);
	++*nr;
	return 0;
}

/* @dir's configuration files; libkmod also takes a file for a directory. */
static int list_conf_dir(const char *dir, struct conf_file **files,
			 unsigned int *nr)
{
	char path[PATH_MAX];
	struct dirent *ent;
	struct stat st;
	int ret = 0;
	DIR *d;

	if (stat(dir, &st))
		return 0;
	if (S_ISREG(st.st_mode)) {
		const char *base = strrchr(dir, '/');

		return add_conf_file(files, nr, base ? base + 1 : dir, dir);
	}
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (ent = readdir(d))) {
		if (!is_conf_name(ent->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, ent->d_name);
		if (!stat(path, &st) && !S_ISDIR(st.st_mode))
			ret = add_conf_file(files, nr, ent->d_name, path);
	}
	closedir(d);
	return ret;
}

const char *cmdline_path(void)
{
	const char *path = getenv(ENV_CMDLINE);

	return path && *path ? path : DEFAULT_CMDLINE;
}

/*
 * Call @fn on each kernel parameter of the command line, up to the "--"
 * after which the words are init's. Returns what @fn returned if not 0;
 * -errno if the command line cannot be read.
 */
static int walk_kernel_params(int (*fn)(const char *word, size_t len,
					void *ctx), void *ctx)
{
	char *text = read_text(cmdline_path());
	const char *p = text, *word;
	size_t len;
	int ret = 0;

	if (!text)
		return -errno;
	while (!ret && (word = kernel_arg_next(&p, &len))) {
		if (len == 2 && !strncmp(word, "--", 2))
			break;
		ret = fn(word, len, ctx);
	}
	free(text);
	return ret;
}

struct param_lookup {
	const char *name;
	char *buf;
	size_t len;
	bool found;
};

static int match_param(const char *word, size_t len, void *arg)
{
	struct param_lookup *pl = arg;
	size_t n = strlen(pl->name);

	/* The last one counts: the kernel calls the handler for each. */
	if (len > n && !strncmp(word, pl->name, n) && word[n] == '=') {
		snprintf(pl->buf, pl->len, "%.*s", (int)(len - n - 1),
			 word + n + 1);
		pl->found = true;
	}
	return 0;
}

bool kernel_cmdline_param(const char *name, char *buf, size_t len)
{
	struct param_lookup pl = { name, buf, len, false };

	walk_kernel_params(match_param, &pl);
	return pl.found;
}

/* libkmod's reading: MODULE.PARAM=VALUE, the module name with '-' as '_'. */
static int add_cmdline_option(const char *word, size_t len, void *arg)
{
	size_t n = strlen(MODULE_NAME), i;
	const char *eq = memchr(word, '=', len);

	if (len <= n + 1 || word[n] != '.' || !eq || eq < word + n + 1)
		return 0;
	for (i = 0; i < n; i++)
		if ((word[i] == '-' ? '_' : word[i]) != MODULE_NAME[i])
			return 0;
	return add_option(arg, word + n + 1, len - n - 1,
			  "kernel command line");
}

int module_options_read(struct module_options *mo)
{
	const char *const *dirs = modprobe_dirs();
	struct conf_file *files = NULL;
	unsigned int nr = 0, i;
	int ret = 0;

	mo->nr = 0;
	mo->opt = NULL;
	for (i = 0; dirs[i] && !ret; i++)
		ret = list_conf_dir(dirs[i], &files, &nr);
	/* libkmod reads them in name order, whatever their directory. */
	if (nr)
		qsort(files, nr, sizeof(*files), compare_conf_files);
	for (i = 0; i < nr && !ret; i++)
		ret = read_conf_file(files[i].path, mo);
	free(files);
	if (!ret) {
		ret = walk_kernel_params(add_cmdline_option, mo);
		if (ret != -ENOMEM)
			ret = 0;	/* no /proc: no options from it */
	}
	if (ret) {
		error("cannot read thpnuma's options from modprobe.d: %s",
		      strerror(-ret));
		module_options_free(mo);
		return EXIT_FAIL;
	}
	return 0;
}

/*
 * The module's load-time parameters, outside the settings table: a table
 * size, 1-@max as module/tasks.c and cgroups.c take it, or a bool (@max 0).
 */
static const struct load_param {
	const char *name;
	unsigned int max;
} load_params[] = {
	{ "max_tasks", THPNUMA_MAX_TASKS_LIMIT },
	{ "max_cgroups", THPNUMA_MAX_CGROUPS_LIMIT },
	{ "budget_cut", 0 },
};

/* kstrtouint(@s, 10) then 1-@max. */
static bool valid_table_size(const char *s, unsigned int max)
{
	unsigned long v;
	char *end;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end == '\n')
		end++;
	return !errno && !*end && v >= 1 && v <= max;
}

/*
 * What kstrtobool() takes on every supported kernel: it reads only the
 * first character, y, n, 1 or 0 (either case), or on and off. No value
 * is Y.
 */
static bool valid_bool(const char *s)
{
	if (!s)
		return true;
	if (*s && strchr("YyNn10", *s))
		return true;
	return (s[0] == 'o' || s[0] == 'O') && s[1] && strchr("NnFf", s[1]);
}

static int load_param_error(const struct load_param *p, const char *value,
			    char *why, size_t len)
{
	if (!p->max) {
		if (valid_bool(value))
			return 0;
		snprintf(why, len, "invalid %s '%s' (Y, N, 1, 0, on or off)",
			 p->name, value);
		return -EINVAL;
	}
	if (!value) {
		snprintf(why, len, "%s has no value (%s=...)", p->name,
			 p->name);
		return -EINVAL;
	}
	if (valid_table_size(value, p->max))
		return 0;
	snprintf(why, len, "invalid %s '%s' (1-%u)", p->name, value, p->max);
	return -EINVAL;
}

int module_option_check(const struct module_option *o, char *why,
			size_t len)
{
	char names[128];
	size_t used;
	unsigned int i;

	/* The kernel's own parameters of every module. */
	if (!strcmp(o->name, "dyndbg") || !strcmp(o->name, "async_probe"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(load_params); i++)
		if (!strcmp(o->name, load_params[i].name))
			return load_param_error(&load_params[i], o->value, why,
						len);
	for (i = 0; i < THPNUMA_NR_SETTINGS; i++)
		if (!strcmp(o->name, thpnuma_settings[i].name))
			break;
	if (i == THPNUMA_NR_SETTINGS) {
		setting_names(names, sizeof(names));
		used = strlen(names);
		for (i = 0; i < ARRAY_SIZE(load_params) && used < sizeof(names);
		     i++)
			used += snprintf(names + used, sizeof(names) - used,
					 ", %s", load_params[i].name);
		snprintf(why, len, "unknown parameter '%s' (" MODULE_NAME
			 " has %s; the kernel would ignore it)", o->name,
			 names);
		return -EINVAL;
	}
	if (!o->value) {
		snprintf(why, len, "%s has no value (%s=...)", o->name,
			 o->name);
		return -EINVAL;
	}
	return setting_value_error(&thpnuma_settings[i], o->value, why, len);
}
