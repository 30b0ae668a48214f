/* SPDX-License-Identifier: GPL-2.0 */
/* Fatal errors of small programs: the workloads and the guest tests. */
#ifndef THPNUMA_DIE_H
#define THPNUMA_DIE_H

/* The "prog: " of every message; NULL: the name the program ran as. */
extern const char *program_name;

/* Print "prog: message: strerror(errno)" and exit 1. */
void die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Print "prog: message" and exit @code. */
void fail(int code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

#endif /* THPNUMA_DIE_H */
