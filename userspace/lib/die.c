// SPDX-License-Identifier: GPL-2.0
/* Fatal errors; see die.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "die.h"

const char *program_name;

/* Unset: the name the program was run as, as glibc keeps it. */
static const char *prog(void)
{
	return program_name ? program_name : program_invocation_short_name;
}

void die(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fprintf(stderr, "%s: ", prog());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	exit(1);
}

void fail(int code, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}
