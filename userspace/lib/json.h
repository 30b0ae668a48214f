/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small JSON writer, in the spirit of bpftool's json_writer: the caller
 * says what to write, the writer places commas, colons and line breaks.
 *
 * Every container is either inline ({"a": 1, "b": 2}) or broken, with one
 * member per line indented two spaces per level, so a document can keep
 * one record per line for grep and still be read whole by jq. Inside an
 * array the key is NULL.
 */
#ifndef THPNUMA_JSON_H
#define THPNUMA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	8

enum json_style {
	JSON_COMPACT,	/* {"a":1,"b":2}: the workloads' one-line records */
	JSON_SPACED,	/* {"a": 1, "b": 2}: thpnumactl's output */
};

struct json_writer {
	FILE *out;
	enum json_style style;
	int depth;			/* open containers */
	bool first[JSON_MAX_DEPTH];	/* no member written yet */
	bool broken[JSON_MAX_DEPTH];	/* one member per line */
	char close[JSON_MAX_DEPTH];	/* '}' or ']' */
};

/* Open the top-level object; json_end() closes it and ends the line. */
void json_begin(struct json_writer *j, FILE *out, enum json_style style,
		bool broken);
void json_end(struct json_writer *j);

void json_object(struct json_writer *j, const char *key, bool broken);
void json_array(struct json_writer *j, const char *key, bool broken);
void json_close(struct json_writer *j);		/* the innermost container */

void json_string(struct json_writer *j, const char *key, const char *val);
void json_long(struct json_writer *j, const char *key, long val);
void json_u64(struct json_writer *j, const char *key, uint64_t val);
void json_double(struct json_writer *j, const char *key, double val); /* %.3f */
/* 6 significant digits (%.6g), null if not finite: a measured figure. */
void json_figure(struct json_writer *j, const char *key, double val);
void json_null(struct json_writer *j, const char *key);
void json_longs(struct json_writer *j, const char *key, const long *v, int n);

/*
 * @s as a JSON string in ASCII: quotes, backslashes and control bytes
 * escaped, other characters as \uXXXX, and each byte of malformed UTF-8
 * as U+FFFD (\ufffd).
 */
void json_write_string(FILE *out, const char *s);

#endif /* THPNUMA_JSON_H */
