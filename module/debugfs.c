// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - debugfs files under /sys/kernel/debug/kprof/.
 *
 *	version	module release, ABI version and kernel release (0444)
 *	status	module and session state, one "key: value" per line (0400)
 *
 * Files that expose profiling state also check the kprof privilege on open,
 * so that a relaxed debugfs mount does not widen access.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>

#include "kprof.h"

static struct dentry *kprof_debugfs_root;

static int kprof_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "release: %s\nabi: %u.%u\nkernel: %s\n", KPROF_RELEASE,
		   KPROF_ABI_MAJOR, KPROF_ABI_MINOR, init_utsname()->release);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprof_version);

static int kprof_status_show(struct seq_file *m, void *v)
{
	struct kprof_status st;

	kprof_status_read(&st);
	seq_printf(m, "state: %s\n", kprof_state_name(st.state));
	seq_printf(m, "cpus_possible: %u\n", st.nr_cpus);
	seq_printf(m, "cpus_online: %u\n", st.online_cpus);
	seq_printf(m, "sessions: %llu\n", st.sessions);
	seq_printf(m, "readers: %u\n", st.readers);
	seq_printf(m, "loaded_ns: %llu\n", st.loaded_ns);
	return 0;
}

static int kprof_status_open(struct inode *inode, struct file *file)
{
	if (!kprof_privileged())
		return -EPERM;
	return single_open(file, kprof_status_show, inode->i_private);
}

static const struct file_operations kprof_status_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_status_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * kprof_debugfs_init() - create /sys/kernel/debug/kprof/
 *
 * Return: 0, or a negative errno when debugfs is available but the
 * directory cannot be created.  A kernel without debugfs (or booted with
 * debugfs=off) is not an error: kprof works without its debugfs view.
 */
int __init kprof_debugfs_init(void)
{
	struct dentry *root;

	root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(root)) {
		if (PTR_ERR(root) == -ENODEV) {
			pr_info("debugfs unavailable, no /sys/kernel/debug/kprof\n");
			return 0;
		}
		pr_err("cannot create debugfs directory: %ld\n", PTR_ERR(root));
		return PTR_ERR(root);
	}
	kprof_debugfs_root = root;

	debugfs_create_file("version", 0444, root, NULL, &kprof_version_fops);
	debugfs_create_file("status", 0400, root, NULL, &kprof_status_fops);
	return 0;
}

void kprof_debugfs_exit(void)
{
	debugfs_remove(kprof_debugfs_root);
	kprof_debugfs_root = NULL;
}
