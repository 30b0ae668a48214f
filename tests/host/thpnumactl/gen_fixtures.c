// SPDX-License-Identifier: GPL-2.0
/*
 * Write the generated fixtures (gen.c) and the recordings brought up to
 * counters.h's tables into a directory, for cli.sh and completion.sh,
 * which read files: run.sh makes the directory.
 * usage: TEST_FIXTURES=fixtures TEST_OUT=DIR gen_fixtures
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "gen.h"

int main(void)
{
	static const struct {
		const char *name;
		char *(*read)(const char *name);
	} recordings[] = {
		{ "good-2node.txt",	stats_recording },
		{ "orders-2node.txt",	orders_recording },
		{ "policies.txt",	policies_recording },
	};
	const char *name;

	for (size_t i = 0; (name = gen_fixture_name(i)); i++) {
		char *text = gen_fixture(name);

		save(name, text);
		free(text);
	}
	for (size_t i = 0; i < sizeof(recordings) / sizeof(recordings[0]); i++) {
		char *text = recordings[i].read(recordings[i].name);

		save(recordings[i].name, text);
		free(text);
	}
	return 0;
}
