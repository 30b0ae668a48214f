// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol lookup through kprobes, which works on every supported kernel, and
 * the check that the THP fault path calls the hooked function.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/string.h>
#include "compat.h"

/*
 * Resolve @name to its text range. The kprobe is registered disabled: it
 * only asks kprobes to resolve the address and is never armed. The size
 * comes from the "sym+off/size" form that sprint_symbol() prints.
 */
int thpnuma_lookup_function(const char *name, unsigned long *start,
			    unsigned long *size)
{
	struct kprobe kp = {
		.symbol_name	= name,
		.flags		= KPROBE_FLAG_DISABLED,
	};
	char buf[KSYM_SYMBOL_LEN];
	unsigned long addr, offset, len;
	const char *plus;
	int ret;

	/* A missing symbol is for the caller to report: it may try another. */
	ret = register_kprobe(&kp);
	if (ret) {
		if (ret != -ENOENT)
			pr_err("cannot resolve symbol %s: %d\n", name, ret);
		return ret;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);

	sprint_symbol(buf, addr);
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &offset, &len) != 2 ||
	    !len || offset >= len) {
		pr_err("cannot find the size of %s (got \"%s\")\n", name, buf);
		return -ENOENT;
	}
	*start = addr - offset;
	*size = len;
	return 0;
}

/*
 * Whether the text [caller, caller + size) holds a direct call (E8 rel32)
 * to @callee: a byte scan, not a decoder. A stray E8 whose rel32 lands
 * exactly on @callee is vanishingly unlikely, and the answer only decides
 * whether to load. With call depth tracking, calls go to a thunk in the
 * padding in front of the function.
 */
bool thpnuma_calls_directly(unsigned long caller, unsigned long size,
			    unsigned long callee)
{
	const u8 *p = (const u8 *)caller, *end = p + size;
	unsigned long target;
	s32 rel;

	for (; p + 5 <= end; p++) {
		if (*p != 0xe8)
			continue;
		memcpy(&rel, p + 1, sizeof(rel));
		target = (unsigned long)p + 5 + rel;
		if (target == callee)
			return true;
#ifdef CONFIG_CALL_THUNKS
		if (target < callee &&
		    target >= callee - CONFIG_FUNCTION_PADDING_BYTES)
			return true;
#endif
	}
	return false;
}
