// SPDX-License-Identifier: GPL-2.0
/*
 * write-once FILE [OFFSET]: read stdin whole, then hand it to the file in
 * exactly one write(2) at OFFSET, even when it is empty. Exit 0 only if the
 * write took every byte; otherwise print the errno and exit 1.
 */
#include "test_util.h"

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t n;
	int fd;

	if (argc < 2)
		return 2;
	while ((n = read(0, buf + len, sizeof(buf) - len)) > 0)
		len += n;
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (argc > 2 && lseek(fd, strtol(argv[2], NULL, 0), SEEK_SET) < 0) {
		perror("lseek");
		return 1;
	}
	n = write(fd, buf, len);
	if (n < 0) {
		fprintf(stderr, "write: %s\n", strerror(errno));
		return 1;
	}
	return (size_t)n == len ? 0 : 1;
}
