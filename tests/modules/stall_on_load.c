// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: insmod sleeps uninterruptibly for @seconds, where
 * SIGKILL cannot end it, as a task stuck in the kernel would; then the
 * module refuses to stay loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>

static unsigned int seconds = 120;
module_param(seconds, uint, 0);
MODULE_PARM_DESC(seconds, "How long insmod sleeps in the kernel");

static int __init stall_on_load_init(void)
{
	unsigned int i;

	/* Short sleeps: the hung-task detector must not be what reports it. */
	for (i = 0; i < seconds * 10; i++)
		msleep(100);
	return -ENODEV;
}
module_init(stall_on_load_init);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Sleeps in insmod so the VM harness can prove it ends a stuck test");
