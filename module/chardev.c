// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the /dev/kprof character device, the data path.
 *
 * Only privileged users may open it (CAP_PERFMON or CAP_SYS_ADMIN), whatever
 * the file mode says; the node itself is created 0600.
 *
 * An open file is bound to one session's rings by the KPROF_IOC_BIND ioctl
 * (ABI 1.10), before it is first mapped or polled; after that a bind is
 * EBUSY.  An unbound file maps nothing (mmap() is EINVAL, ABI 1.13; before,
 * it mapped the session that was the default when it was opened).  mmap() at offset
 * cpu * stride maps that CPU's control page and data; every mapping holds a
 * reference on the rings, so they outlive the session until unmapped.
 * poll() waits for a ring to reach the watermark, for the session to stop,
 * or (EPOLLPRI) for a ring to be added on a CPU that came up, until
 * KPROF_IOC_RINGS says the reader knows.  See the uapi header for the
 * reader's protocol.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "chardev.h"
#include "compat.h"
#include "core.h"
#include "session.h"

/**
 * struct kprof_dev_file - an open /dev/kprof
 * @lock: serialises the bind with mmap() and poll()
 * @bufs: the bound session's rings (a reference), or NULL
 * @used: mapped or polled: the binding is final
 * @rings_seen: @bufs->rings_seq at the last KPROF_IOC_RINGS
 */
struct kprof_dev_file {
	struct mutex lock;		/* see above */
	struct kprof_buffers *bufs;
	bool used;
	int rings_seen;
};

static int kprof_dev_open(struct inode *inode, struct file *file)
{
	struct kprof_dev_file *df;

	if (!kprof_privileged())
		return -EPERM;
	df = kzalloc(sizeof(*df), GFP_KERNEL);
	if (!df)
		return -ENOMEM;
	mutex_init(&df->lock);
	file->private_data = df;
	atomic_inc(&kprof_core.readers);
	return nonseekable_open(inode, file);
}

static int kprof_dev_release(struct inode *inode, struct file *file)
{
	struct kprof_dev_file *df = file->private_data;

	if (df->bufs)
		kprof_buffers_put(df->bufs);
	mutex_destroy(&df->lock);
	kfree(df);
	atomic_dec(&kprof_core.readers);
	return 0;
}

/* KPROF_IOC_BIND: the rings of the session with the id at @arg. */
static long kprof_dev_bind(struct kprof_dev_file *df, u64 __user *arg)
{
	struct kprof_buffers *bufs;
	long ret = 0;
	u64 id;

	if (get_user(id, arg))
		return -EFAULT;
	if (!id)
		return -EINVAL;
	bufs = kprof_session_buffers(id);
	if (IS_ERR(bufs))
		return PTR_ERR(bufs);
	mutex_lock(&df->lock);
	if (df->used) {
		ret = -EBUSY;
	} else {
		swap(df->bufs, bufs);
		df->rings_seen = atomic_read(&df->bufs->rings_seq);
	}
	mutex_unlock(&df->lock);
	if (bufs)
		kprof_buffers_put(bufs);	/* ours when refused */
	return ret;
}

/* The file's rings, its binding now final; NULL when it has none. */
static struct kprof_buffers *kprof_dev_use(struct kprof_dev_file *df)
{
	struct kprof_buffers *bufs;

	mutex_lock(&df->lock);
	df->used = true;
	bufs = df->bufs;
	mutex_unlock(&df->lock);
	return bufs;
}

/* KPROF_IOC_RINGS: the rings added so far, which the reader now knows of. */
static long kprof_dev_rings(struct kprof_dev_file *df, u64 __user *arg)
{
	struct kprof_buffers *bufs = kprof_dev_use(df);
	int seq;

	if (!bufs)
		return -ENODEV;
	seq = atomic_read(&bufs->rings_seq);
	WRITE_ONCE(df->rings_seen, seq);
	return put_user((u64)seq, arg);
}

static long kprof_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case KPROF_IOC_BIND:
		return kprof_dev_bind(file->private_data, (u64 __user *)arg);
	case KPROF_IOC_RINGS:
		return kprof_dev_rings(file->private_data, (u64 __user *)arg);
	default:
		return -ENOTTY;
	}
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
	struct kprof_buffers *bufs = kprof_dev_use(file->private_data);
	unsigned long per_cpu, cpu;

	if (!bufs)
		return -EINVAL;		/* no session bound */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	per_cpu = bufs->stride >> PAGE_SHIFT;
	if (vma->vm_end - vma->vm_start != bufs->stride || vma->vm_pgoff % per_cpu)
		return -EINVAL;
	cpu = vma->vm_pgoff / per_cpu;
	if (cpu >= bufs->nr_rings || !kprof_ring_of(bufs, cpu))
		return -ENXIO;

	kprof_vma_flags_mod(vma, VM_DONTEXPAND | VM_DONTDUMP, VM_MAYEXEC);
	vma->vm_private_data = bufs;
	vma->vm_ops = &kprof_vm_ops;
	kprof_buffers_get(bufs);
	return 0;
}

static __poll_t kprof_dev_poll(struct file *file, struct poll_table_struct *wait)
{
	struct kprof_dev_file *df = file->private_data;
	struct kprof_buffers *bufs = kprof_dev_use(df);
	__poll_t mask = 0;
	bool empty;

	if (!bufs)
		return EPOLLERR;
	poll_wait(file, &bufs->wait, wait);
	if (atomic_read(&bufs->rings_seq) != READ_ONCE(df->rings_seen))
		mask |= EPOLLPRI;
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
	.unlocked_ioctl	= kprof_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
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
