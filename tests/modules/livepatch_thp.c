// SPDX-License-Identifier: GPL-2.0
/*
 * Test module: a livepatch of the THP fault path's caller (the function
 * thpnuma filters on), whose new copy calls the hooked allocator from its
 * own text, as a kpatch of that function would. The copy allocates the
 * PMD folio, frees it and falls back to small pages: harmless, and every
 * call comes from a caller thpnuma knows nothing of.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/livepatch.h>
#include <linux/mm.h>
#include <linux/huge_mm.h>
#include <linux/module.h>
#include "compat.h"	/* thpnuma's, copied beside this file */

static void alloc_and_free(struct vm_area_struct *vma, unsigned long addr)
{
	struct thpnuma_thp *thp;

	/* After the address: 5.10's node and hugepage, later hugepage. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 11, 0)
	thp = thpnuma_kernel_alloc(GFP_TRANSHUGE_LIGHT, HPAGE_PMD_ORDER, vma,
				   addr & HPAGE_PMD_MASK, numa_node_id(), 1);
#else
	thp = thpnuma_kernel_alloc(GFP_TRANSHUGE_LIGHT, HPAGE_PMD_ORDER, vma,
				   addr & HPAGE_PMD_MASK, 1, 0);
#endif
	if (!thp)
		return;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0)
	folio_put(thp);
#else
	__free_pages(thp, HPAGE_PMD_ORDER);
#endif
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
static struct folio *livepatch_fault_alloc(struct vm_area_struct *vma,
					   unsigned long addr)
{
	alloc_and_free(vma, addr);
	return NULL;
}
#else
static vm_fault_t livepatch_fault_alloc(struct vm_fault *vmf)
{
	alloc_and_free(vmf->vma, vmf->address);
	return VM_FAULT_FALLBACK;
}
#endif

static struct klp_func funcs[] = {
	{
		.old_name = THPNUMA_THP_FAULT_SYMBOL,
		.new_func = livepatch_fault_alloc,
	}, { }
};

static struct klp_object objs[] = {
	{
		/* name NULL: vmlinux */
		.funcs = funcs,
	}, { }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init livepatch_thp_init(void)
{
	return klp_enable_patch(&patch);
}

static void __exit livepatch_thp_exit(void)
{
}

module_init(livepatch_thp_init);
module_exit(livepatch_thp_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("Livepatches " THPNUMA_THP_FAULT_SYMBOL " with a copy that calls the THP allocator itself");
