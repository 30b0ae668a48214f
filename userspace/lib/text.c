// SPDX-License-Identifier: GPL-2.0
/* Text helpers; see text.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "text.h"

void set_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int parse_decimal(const char *s, uint64_t max, uint64_t *val)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int digit;

		if (*s < '0' || *s > '9')
			return -EINVAL;
		digit = *s - '0';
		/* digit > max: max - digit would wrap. */
		if (digit > max || v > (max - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*val = v;
	return 0;
}

int parse_counter(const char *text, const char *name, unsigned int lineno,
		uint64_t *val, char *err, size_t errlen)
{
	int ret = parse_decimal(text, UINT64_MAX, val);

	if (!ret)
		return 0;
	set_error(err, errlen, "line %u: %s value \"%s\" %s", lineno, name,
		  text, ret == -ERANGE ? "exceeds 64 bits" : "is not a number");
	return -EINVAL;
}

int find_columns(char **field, int first, int n, const char *const *names,
		 int nr, int *column, unsigned int lineno, char *err,
		 size_t errlen)
{
	int i, c;

	for (c = 0; c < nr; c++)
		column[c] = -1;
	for (i = first; i < n; i++) {
		for (c = 0; c < nr && strcmp(field[i], names[c]); c++)
			;
		if (c == nr)
			continue;
		if (column[c] >= 0) {
			set_error(err, errlen,
				  "line %u: column \"%s\" appears twice",
				  lineno, field[i]);
			return -EINVAL;
		}
		column[c] = i;
	}
	for (c = 0; c < nr; c++) {
		if (column[c] < 0) {
			set_error(err, errlen,
				  "line %u: header lacks column \"%s\"",
				  lineno, names[c]);
			return -EINVAL;
		}
	}
	return 0;
}

size_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return 0;
	switch (toupper((unsigned char)*end)) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
		end++;
		break;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	return *end ? 0 : v;
}

int split_fields_at(char *line, const char *seps, char **field, int max)
{
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, seps, &save); tok;
	     tok = strtok_r(NULL, seps, &save)) {
		if (n == max)
			return -E2BIG;
		field[n++] = tok;
	}
	return n;
}

int split_fields(char *line, char **field, int max)
{
	return split_fields_at(line, " \t\r", field, max);
}

int for_each_line(const char *text,
		  int (*fn)(char *line, unsigned int lineno, void *ctx),
		  void *ctx)
{
	char *copy = strdup(text), *line, *next;
	unsigned int lineno = 0;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = copy; line && !ret; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		/* Blank lines carry nothing; a trailing one is normal. */
		if (line[strspn(line, " \t")] == '\0')
			continue;
		ret = fn(line, lineno, ctx);
	}
	free(copy);
	return ret;
}

struct table_lines {
	bool seen_header;
	int (*header)(char *line, unsigned int lineno, void *ctx);
	int (*row)(char *line, unsigned int lineno, void *ctx);
	void *ctx;
};

static int table_line(char *line, unsigned int lineno, void *arg)
{
	struct table_lines *t = arg;

	if (t->seen_header)
		return t->row(line, lineno, t->ctx);
	t->seen_header = true;
	return t->header(line, lineno, t->ctx);
}

int parse_table(const char *text, const char *what,
		int (*header)(char *line, unsigned int lineno, void *ctx),
		int (*row)(char *line, unsigned int lineno, void *ctx),
		void *ctx, char *err, size_t errlen)
{
	struct table_lines t = { .header = header, .row = row, .ctx = ctx };
	int ret = for_each_line(text, table_line, &t);

	if (ret || t.seen_header)
		return ret;
	set_error(err, errlen, "empty %s file", what);
	return -EINVAL;
}

int bracketed_choice(const char *text, char *out, size_t len)
{
	const char *open = strchr(text, '[');
	const char *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (!close || close == open + 1)
		return -EINVAL;
	n = close - open - 1;
	if (n >= len)
		return -EINVAL;
	memcpy(out, open + 1, n);
	out[n] = '\0';
	return 0;
}

char *read_text(const char *path)
{
	size_t len = 0, size = 4096;
	char *buf = malloc(size);
	ssize_t n;
	int fd, saved;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	for (;;) {
		if (len + 1 == size) {
			char *bigger = realloc(buf, size * 2);

			if (!bigger) {
				errno = ENOMEM;
				goto fail_fd;
			}
			buf = bigger;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail_fd;
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;

fail_fd:
	saved = errno;
	close(fd);
	errno = saved;
fail:
	saved = errno;
	free(buf);
	errno = saved;
	return NULL;
}

void escape_text(char *out, size_t len, const char *in)
{
	size_t o = 0;

	if (!len)
		return;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		int ascii = c >= 0x20 && c < 0x7f && c != '\\';

		if (o + (ascii ? 1 : 4) >= len)
			break;
		if (ascii)
			out[o++] = c;
		else
			o += snprintf(out + o, len - o, "\\%03o", c);
	}
	out[o] = '\0';
}
