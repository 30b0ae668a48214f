// SPDX-License-Identifier: GPL-2.0
/*
 * modload [PARAM...]: load thpnuma with one finit_module(2) call, the
 * parameters joined by spaces. busybox's insmod tries init_module(2)
 * after a refused finit_module(2), so each refused load ran the module's
 * init twice, about a second of TCG time. Exit 0 if it loaded; otherwise
 * print the errno's text and exit 1.
 */
#include "test_util.h"

int main(int argc, char **argv)
{
	static char params[4096];
	size_t len = 0;
	int i, ret;

	for (i = 1; i < argc; i++) {
		int n = snprintf(params + len, sizeof(params) - len, "%s%s",
				 i > 1 ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - len) {
			fprintf(stderr, "modload: parameters too long\n");
			return 2;
		}
		len += n;
	}
	ret = module_load(params);
	if (ret) {
		fprintf(stderr, "modload: cannot load %s: %s\n", THPNUMA_KO,
			strerror(-ret));
		return 1;
	}
	return 0;
}
