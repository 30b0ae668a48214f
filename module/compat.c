// SPDX-License-Identifier: GPL-2.0
/* Symbol lookup through kprobes, which works on every supported kernel. */
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

	ret = register_kprobe(&kp);
	if (ret) {
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
