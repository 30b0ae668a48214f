// SPDX-License-Identifier: GPL-2.0
/* The unit tests' fixtures and captures; see fixture.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

const char *env_dir(const char *name)
{
	const char *dir = getenv(name);

	if (!dir) {
		fprintf(stderr, "%s is not set (see run.sh)\n", name);
		exit(1);
	}
	return dir;
}

char *slurp(const char *name)
{
	char path[4096], *text = NULL;
	size_t len = 0;
	FILE *f, *mem;
	int c;

	snprintf(path, sizeof(path), "%s/%s", env_dir("TEST_FIXTURES"), name);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(errno));
		exit(1);
	}
	mem = open_memstream(&text, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, mem);
	fclose(mem);
	fclose(f);
	return text;
}

void save(const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", env_dir("TEST_OUT"), name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", path,
			strerror(errno));
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

FILE *capture_start(struct capture *c)
{
	c->text = NULL;
	c->len = 0;
	c->f = open_memstream(&c->text, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(1);
	}
	return c->f;
}

char *capture_end(struct capture *c)
{
	fclose(c->f);
	return c->text;
}
