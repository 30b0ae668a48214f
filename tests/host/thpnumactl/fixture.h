/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests share: fixtures in, writers' output captured and
 * saved for run.sh to validate.
 * env: TEST_FIXTURES (the fixtures directory), TEST_OUT (a directory where
 * JSON and Prometheus outputs land for run.sh to validate with python3).
 */
#ifndef THPNUMA_TEST_FIXTURE_H
#define THPNUMA_TEST_FIXTURE_H

#include <stddef.h>
#include <stdio.h>

/* A directory named by the environment, as run.sh passes them; or exit. */
const char *env_dir(const char *name);
/* The fixture @name whole, malloc'd; or exit. */
char *slurp(const char *name);
/* Write @text to @name in TEST_OUT; or exit. */
void save(const char *name, const char *text);

/* A memory stream: a writer writes to capture_start(), capture_end() has it. */
struct capture {
	FILE *f;
	char *text;
	size_t len;
};

FILE *capture_start(struct capture *c);
char *capture_end(struct capture *c);	/* malloc'd */

#endif /* THPNUMA_TEST_FIXTURE_H */
