// SPDX-License-Identifier: GPL-2.0
/* The JSON writer; see json.h. */
#include <inttypes.h>
#include <math.h>
#include "json.h"

/*
 * Length of the well-formed UTF-8 sequence at @s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF) and its code point, or 0.
 */
static int utf8_sequence(const unsigned char *s, unsigned int *cp)
{
	unsigned int c = s[0], min;
	int len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2, min = 0x80, c &= 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, min = 0x800, c &= 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, min = 0x10000, c &= 0x07;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * ASCII only, so the text is the same in every locale: other characters
 * as \uXXXX (a surrogate pair above U+FFFF), and each byte that is not
 * part of well-formed UTF-8 as U+FFFD, so that the document stays valid
 * JSON whatever the bytes (a process may name itself anything).
 */
void json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned int cp;
	int len;

	fputc('"', out);
	while (*s) {
		unsigned char c = *s;

		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(out, "\\u%04x", c);
		} else if (c < 0x80) {
			fputc(c, out);
		} else {
			len = utf8_sequence(s, &cp);
			if (!len) {
				fputs("\\ufffd", out);
				s++;
				continue;
			}
			if (cp >= 0x10000)
				fprintf(out, "\\u%04x\\u%04x",
					0xd800 + ((cp - 0x10000) >> 10),
					0xdc00 + ((cp - 0x10000) & 0x3ff));
			else
				fprintf(out, "\\u%04x", cp);
			s += len;
			continue;
		}
		s++;
	}
	fputc('"', out);
}

static void indent(struct json_writer *j, int depth)
{
	fputc('\n', j->out);
	for (int i = 0; i < depth; i++)
		fputs("  ", j->out);
}

/* The separator before a member, then its key if it has one. */
static void member(struct json_writer *j, const char *key)
{
	int d = j->depth - 1;

	if (!j->first[d])
		fputs(j->broken[d] || j->style == JSON_COMPACT ? "," : ", ",
		      j->out);
	j->first[d] = false;
	if (j->broken[d])
		indent(j, j->depth);
	if (key) {
		json_write_string(j->out, key);
		fputs(j->style == JSON_COMPACT ? ":" : ": ", j->out);
	}
}

static void open_container(struct json_writer *j, char open, char close,
			   bool broken)
{
	fputc(open, j->out);
	if (j->depth == JSON_MAX_DEPTH)
		return;		/* a programming error: keep the text valid */
	j->first[j->depth] = true;
	j->broken[j->depth] = broken;
	j->close[j->depth] = close;
	j->depth++;
}

void json_begin(struct json_writer *j, FILE *out, enum json_style style,
		bool broken)
{
	j->out = out;
	j->style = style;
	j->depth = 0;
	open_container(j, '{', '}', broken);
}

void json_close(struct json_writer *j)
{
	if (!j->depth)
		return;
	j->depth--;
	if (j->broken[j->depth] && !j->first[j->depth])
		indent(j, j->depth);
	fputc(j->close[j->depth], j->out);
}

void json_end(struct json_writer *j)
{
	while (j->depth)
		json_close(j);
	fputc('\n', j->out);
	fflush(j->out);
}

void json_object(struct json_writer *j, const char *key, bool broken)
{
	member(j, key);
	open_container(j, '{', '}', broken);
}

void json_array(struct json_writer *j, const char *key, bool broken)
{
	member(j, key);
	open_container(j, '[', ']', broken);
}

void json_string(struct json_writer *j, const char *key, const char *val)
{
	member(j, key);
	json_write_string(j->out, val);
}

void json_long(struct json_writer *j, const char *key, long val)
{
	member(j, key);
	fprintf(j->out, "%ld", val);
}

void json_u64(struct json_writer *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, val);
}

void json_double(struct json_writer *j, const char *key, double val)
{
	member(j, key);
	fprintf(j->out, "%.3f", val);
}

void json_figure(struct json_writer *j, const char *key, double val)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->out, "%.6g", val);
	else
		fputs("null", j->out);
}

void json_null(struct json_writer *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void json_longs(struct json_writer *j, const char *key, const long *v, int n)
{
	json_array(j, key, false);
	for (int i = 0; i < n; i++)
		json_long(j, NULL, v[i]);
	json_close(j);
}
