/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text helpers shared by thpnumactl, the workloads and the guest tests:
 * strict number parsing, field splitting, line iteration and the
 * "a [b] c" choice format of debugfs and sysfs files.
 */
#ifndef THPNUMA_TEXT_H
#define THPNUMA_TEXT_H

#include <stddef.h>
#include <stdint.h>

#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* vsnprintf into @err, a parser's one-line reason; @err may be NULL. */
void set_error(char *err, size_t errlen, const char *fmt, ...) __printf(3, 4);

/*
 * Decimal digits only, at most @max: strtoull would take "-1", "+1" and
 * " 1". Returns 0, -EINVAL (empty or not a digit) or -ERANGE (above @max).
 */
int parse_decimal(const char *s, uint64_t max, uint64_t *val);

/*
 * parse_decimal() for the @name column of line @lineno of a debugfs
 * table: 0, or -EINVAL and the reason in @err ("line 3: local value
 * \"x\" is not a number", "... exceeds 64 bits").
 */
int parse_counter(const char *text, const char *name, unsigned int lineno,
		uint64_t *val, char *err, size_t errlen);

/*
 * Find each of @names[0..@nr) among a header's @field[@first..@n) and
 * store its index in @column. Unknown fields are skipped: a newer module
 * may add columns. Returns 0, or -EINVAL with the reason in @err when a
 * name appears twice or not at all.
 */
int find_columns(char **field, int first, int n, const char *const *names,
		 int nr, int *column, unsigned int lineno, char *err,
		 size_t errlen);

/* "400M", "2G", "4096", "64k", "1GiB"; returns 0 on a malformed size. */
size_t parse_size(const char *s);

/*
 * Split @line in place at blanks into at most @max fields. Returns the
 * number of fields, or -E2BIG if there are more than @max.
 */
int split_fields(char *line, char **field, int max);
/* The same, at any of the characters in @seps. */
int split_fields_at(char *line, const char *seps, char **field, int max);

/*
 * Call @fn on each non-blank line of a copy of @text, with its 1-based
 * line number and anything from a '\r' on cut off. Stops at the first
 * non-zero return and returns it; -ENOMEM if the copy fails.
 */
int for_each_line(const char *text,
		  int (*fn)(char *line, unsigned int lineno, void *ctx),
		  void *ctx);

/*
 * A debugfs table through for_each_line(): @header gets the first
 * non-blank line, @row each later one, both with @ctx. Returns the first
 * non-zero return, -ENOMEM, or -EINVAL with "empty @what file" in @err
 * when there is no line at all.
 */
int parse_table(const char *text, const char *what,
		int (*header)(char *line, unsigned int lineno, void *ctx),
		int (*row)(char *line, unsigned int lineno, void *ctx),
		void *ctx, char *err, size_t errlen);

/*
 * Copy the bracketed word of "a [b] c" (debugfs choice files, THP sysfs
 * files) into @out. Returns 0, or -EINVAL if there is no bracketed word.
 */
int bracketed_choice(const char *text, char *out, size_t len);

/*
 * Copy @in to @out for a terminal or a table: printable ASCII as is, any
 * other byte and the backslash as \ooo, as the kernel's seq_escape()
 * writes them. A control byte then cannot move the cursor or end a row.
 * Stops before a character that would not fit; @len >= 4 * strlen + 1
 * holds all of it.
 */
void escape_text(char *out, size_t len, const char *in);

/* A whole small file, NUL-terminated and malloc'd; NULL with errno set. */
char *read_text(const char *path);

#endif /* THPNUMA_TEXT_H */
