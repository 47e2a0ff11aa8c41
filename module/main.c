// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - in-kernel profiler: the module's load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/timekeeping.h>

#include "chardev.h"
#include "core.h"
#include "counting.h"
#include "debugfs.h"
#include "genl.h"
#include "session.h"
#include "target.h"

static int __init kprof_init(void)
{
	int ret;

	kprof_core.loaded_ns = ktime_get_ns();

	/* uapi structures: their sizes are the ABI (kprof.h) */
	BUILD_BUG_ON(sizeof(struct kprof_record_header) != 8);
	BUILD_BUG_ON(sizeof(struct kprof_filter_insn) != 16);
	BUILD_BUG_ON(sizeof(struct kprof_hist_key) != 8 + 8 * KPROF_RUNQLAT_KEY_BUCKETS);
	BUILD_BUG_ON(offsetof(struct kprof_mmap_page, data_head) != 1024);
	BUILD_BUG_ON(offsetof(struct kprof_mmap_page, data_tail) != 1088);
	BUILD_BUG_ON(sizeof(struct kprof_mmap_page) != 1152);

	/*
	 * ORDER: the CPU hotplug state (target.c), sessions (tracepoint
	 * lookup), debugfs, char device, netlink (the socket release hook,
	 * then the family); kprof_exit() undoes it backwards (and frees a
	 * counting session, which needs nothing at load).
	 */
	ret = kprof_target_init();
	if (ret)
		return ret;

	ret = kprof_session_init();
	if (ret)
		goto out_target_exit;

	ret = kprof_debugfs_init();
	if (ret)
		goto out_session_exit;

	ret = kprof_chardev_init();
	if (ret)
		goto out_debugfs_exit;

	ret = kprof_nl_init();
	if (ret)
		goto out_chardev_exit;

	pr_info("loaded, release %s, ABI %u.%u\n", KPROF_RELEASE,
		KPROF_ABI_MAJOR, KPROF_ABI_MINOR);
	return 0;

out_chardev_exit:
	kprof_chardev_exit();
out_debugfs_exit:
	kprof_debugfs_exit();
out_session_exit:
	kprof_session_exit();
out_target_exit:
	kprof_target_exit();
	return ret;
}

static void __exit kprof_exit(void)
{
	kprof_nl_exit();
	kprof_chardev_exit();
	kprof_debugfs_exit();
	kprof_counting_exit();
	kprof_session_exit();
	kprof_target_exit();
	pr_info("unloaded\n");
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_AUTHOR("The kprof authors");
MODULE_DESCRIPTION("kprof: in-kernel sampling profiler and tracer");
MODULE_LICENSE("GPL");
MODULE_VERSION(KPROF_RELEASE);
