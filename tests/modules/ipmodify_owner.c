// SPDX-License-Identifier: GPL-2.0
/*
 * Test module: a second IPMODIFY ftrace user (as a livepatch would be) on
 * a function thpnuma hooks, so thpnuma's load must fail cleanly. sym=
 * picks which one (default: the THP allocation function).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "compat.h"	/* thpnuma's, copied beside this file */

#define HOOKED THPNUMA_HOOKED_SYMBOL

static char *sym = HOOKED;
module_param(sym, charp, 0444);
MODULE_PARM_DESC(sym, "The function to own (default " HOOKED ")");

static void notrace ipmodify_owner_func(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *op,
					struct THPNUMA_FTRACE_REGS *fregs)
{
}

static struct ftrace_ops ipmodify_owner_ops = {
	.func	= ipmodify_owner_func,
	.flags	= FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		  THPNUMA_FTRACE_FLAGS,
};

static int __init ipmodify_owner_init(void)
{
	int err = ftrace_set_filter(&ipmodify_owner_ops, (unsigned char *)sym,
				    strlen(sym), 0);

	if (!err)
		err = register_ftrace_function(&ipmodify_owner_ops);
	if (err)
		thpnuma_ftrace_free_filter(&ipmodify_owner_ops);
	return err;
}

static void __exit ipmodify_owner_exit(void)
{
	unregister_ftrace_function(&ipmodify_owner_ops);
	thpnuma_ftrace_free_filter(&ipmodify_owner_ops);
}

module_init(ipmodify_owner_init);
module_exit(ipmodify_owner_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Owns " HOOKED " with IPMODIFY, like a livepatch");
