// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - test seams: module parameters that only kprof's own selftests
 * set, to make rare timings certain and to prove the rig's detectors work.
 * Both are off by default and cost one predictable branch where they act.
 *
 *	test_write_delay_ns	a ring write from task context waits this
 *				long between reserving its space and copying
 *				the record, with interrupts enabled, so that
 *				the samples of a timer event nest inside the
 *				window (kprof_hostile_test.sh nested).
 *				At most 100000 (0.1 ms).
 *	test_plant_bug		writing "kasan" reads one byte past a
 *				kmalloc()ed buffer, once: a KASAN report the
 *				debug guest's log scan must catch
 *				(tools/check.sh, the debug kernel).  Other
 *				values are refused.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "testseam.h"

unsigned int kprof_test_write_delay_ns;

static int kprof_test_delay_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ns;
	int ret = kstrtouint(val, 0, &ns);

	if (ret)
		return ret;
	if (ns > 100000)
		return -ERANGE;
	WRITE_ONCE(kprof_test_write_delay_ns, ns);
	return 0;
}

static const struct kernel_param_ops kprof_test_delay_ops = {
	.set	= kprof_test_delay_set,
	.get	= param_get_uint,
};
module_param_cb(test_write_delay_ns, &kprof_test_delay_ops, &kprof_test_write_delay_ns, 0600);
MODULE_PARM_DESC(test_write_delay_ns,
		 "selftests only: ns a task-context ring write waits inside its reserve-commit window");

static noinline u8 kprof_test_read_past(const u8 *buf, size_t i)
{
	return READ_ONCE(buf[i]);
}

static int kprof_test_plant_set(const char *val, const struct kernel_param *kp)
{
	size_t n = 8;
	u8 *buf;

	if (!sysfs_streq(val, "kasan"))
		return -EINVAL;
	buf = kmalloc(n, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	pr_info("test_plant_bug: reading one byte past an %zu-byte buffer\n", n);
	pr_info("test_plant_bug: read 0x%02x\n", kprof_test_read_past(buf, n));
	kfree(buf);
	return 0;
}

static const struct kernel_param_ops kprof_test_plant_ops = {
	.set	= kprof_test_plant_set,
};
module_param_cb(test_plant_bug, &kprof_test_plant_ops, NULL, 0200);
MODULE_PARM_DESC(test_plant_bug, "selftests only: \"kasan\" plants an out-of-bounds read");
