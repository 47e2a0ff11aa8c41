// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the /dev/kprof character device, the data path.
 *
 * Only privileged users may open it (CAP_PERFMON or CAP_SYS_ADMIN), whatever
 * the file mode says; the node itself is created 0600.
 *
 * An open file is bound to the rings of the session that exists when it is
 * opened (none: mmap fails with -ENODEV).  mmap() at offset
 * cpu * stride maps that CPU's control page and data; every mapping holds a
 * reference on the rings, so they outlive the session until unmapped.
 * poll() waits for a ring to reach the watermark, or for the session to
 * stop.  See the uapi header for the reader's protocol.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>

#include "chardev.h"
#include "compat.h"
#include "core.h"
#include "session.h"

static int kprof_dev_open(struct inode *inode, struct file *file)
{
	if (!kprof_privileged())
		return -EPERM;

	file->private_data = kprof_session_buffers(0);
	atomic_inc(&kprof_core.readers);
	return nonseekable_open(inode, file);
}

static int kprof_dev_release(struct inode *inode, struct file *file)
{
	struct kprof_buffers *bufs = file->private_data;

	if (bufs)
		kprof_buffers_put(bufs);
	atomic_dec(&kprof_core.readers);
	return 0;
}

static void kprof_vm_open(struct vm_area_struct *vma)
{
	kprof_buffers_get(vma->vm_private_data);
}

static void kprof_vm_close(struct vm_area_struct *vma)
{
	kprof_buffers_put(vma->vm_private_data);
}

static vm_fault_t kprof_vm_fault(struct vm_fault *vmf)
{
	struct kprof_buffers *bufs = vmf->vma->vm_private_data;
	struct page *page;

	page = kprof_ring_page(bufs, vmf->pgoff);
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct kprof_vm_ops = {
	.open	= kprof_vm_open,
	.close	= kprof_vm_close,
	.fault	= kprof_vm_fault,
};

static int kprof_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kprof_buffers *bufs = file->private_data;
	unsigned long per_cpu, cpu;

	if (!bufs)
		return -ENODEV;		/* opened when no session existed */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	per_cpu = bufs->stride >> PAGE_SHIFT;
	if (vma->vm_end - vma->vm_start != bufs->stride || vma->vm_pgoff % per_cpu)
		return -EINVAL;
	cpu = vma->vm_pgoff / per_cpu;
	if (cpu >= bufs->nr_rings || !bufs->rings[cpu])
		return -ENXIO;

	kprof_vma_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	vma->vm_private_data = bufs;
	vma->vm_ops = &kprof_vm_ops;
	kprof_buffers_get(bufs);
	return 0;
}

static __poll_t kprof_dev_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kprof_buffers *bufs = file->private_data;
	__poll_t mask = 0;
	bool empty;

	if (!bufs)
		return EPOLLERR;
	poll_wait(file, &bufs->wait, wait);
	if (kprof_buffers_readable(bufs, &empty))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(bufs->stopped) && empty)
		mask |= EPOLLHUP;
	return mask;
}

static const struct file_operations kprof_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_dev_open,
	.release	= kprof_dev_release,
	.mmap		= kprof_dev_mmap,
	.poll		= kprof_dev_poll,
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
