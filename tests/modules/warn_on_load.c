// SPDX-License-Identifier: GPL-2.0
/* Harness self-test: provokes a kernel WARN, then refuses to stay loaded. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/module.h>

static int __init warn_on_load_init(void)
{
	WARN(1, "deliberate warning for the harness self-test\n");
	return -ENODEV;
}
module_init(warn_on_load_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Provokes a WARN so the VM harness can prove it notices");
