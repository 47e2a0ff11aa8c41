// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the /dev/kprof character device, the data path.
 *
 * Only privileged users may open it (CAP_PERFMON or CAP_SYS_ADMIN), whatever
 * the file mode says; the node itself is created 0600.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "kprof.h"

static int kprof_dev_open(struct inode *inode, struct file *file)
{
	if (!kprof_privileged())
		return -EPERM;

	atomic_inc(&kprof_core.readers);
	return nonseekable_open(inode, file);
}

static int kprof_dev_release(struct inode *inode, struct file *file)
{
	atomic_dec(&kprof_core.readers);
	return 0;
}

static const struct file_operations kprof_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_dev_open,
	.release	= kprof_dev_release,
	.llseek		= no_llseek,
};

static struct miscdevice kprof_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= KPROF_DEVICE_NAME,
	.fops	= &kprof_dev_fops,
	.mode	= 0600,
};

int __init kprof_chardev_init(void)
{
	int ret;

	ret = misc_register(&kprof_miscdev);
	if (ret)
		pr_err("cannot register /dev/%s: %d\n", KPROF_DEVICE_NAME, ret);
	return ret;
}

void kprof_chardev_exit(void)
{
	misc_deregister(&kprof_miscdev);
}
