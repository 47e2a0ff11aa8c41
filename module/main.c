// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - in-kernel profiler: module entry points and shared state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/timekeeping.h>

#include "chardev.h"
#include "counting.h"
#include "debugfs.h"
#include "genl.h"
#include "kprof.h"
#include "session.h"
#include "target.h"

struct kprof_core kprof_core = {
	.lock = __MUTEX_INITIALIZER(kprof_core.lock),
	.state = KPROF_STATE_IDLE,
	.sessions = ATOMIC64_INIT(0),
	.readers = ATOMIC_INIT(0),
};

/**
 * kprof_privileged() - may the current task configure kprof or read samples?
 *
 * The one privilege rule of kprof, used by the character device and debugfs;
 * netlink requests use the socket-aware equivalent in genl.c.
 *
 * Context: process context.
 * Return: true when the caller has CAP_PERFMON or CAP_SYS_ADMIN.
 */
bool kprof_privileged(void)
{
	return perfmon_capable();
}

/**
 * kprof_state_name() - the name of an enum kprof_state value
 * @state: the state
 *
 * Return: a static string, "unknown" for values outside the enum.
 */
const char *kprof_state_name(u32 state)
{
	switch (state) {
	case KPROF_STATE_IDLE:
		return "idle";
	case KPROF_STATE_RUNNING:
		return "running";
	case KPROF_STATE_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}

/**
 * kprof_status_read() - take a snapshot of the module's status
 * @st: where to store it
 *
 * Context: any context that may sleep; takes kprof_core.lock so that the
 * state and the session count agree.
 */
void kprof_status_read(struct kprof_status *st)
{
	mutex_lock(&kprof_core.lock);
	st->state = READ_ONCE(kprof_core.state);
	st->sessions = atomic64_read(&kprof_core.sessions);
	mutex_unlock(&kprof_core.lock);

	st->nr_cpus = num_possible_cpus();
	st->online_cpus = num_online_cpus();
	st->readers = atomic_read(&kprof_core.readers);
	st->loaded_ns = kprof_core.loaded_ns;
}

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
