// SPDX-License-Identifier: GPL-2.0
/* The JSON writer; see json.h. */
#include <inttypes.h>
#include "json.h"

void json_write_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
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
