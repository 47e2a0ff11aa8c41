/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - /sys/kernel/debug/kprof/ (debugfs.c).
 */
#ifndef _KPROF_DEBUGFS_H
#define _KPROF_DEBUGFS_H

#include <linux/fs.h>

int kprof_debugfs_init(void);
void kprof_debugfs_exit(void);
void kprof_debugfs_sessions_sync(void);
void kprof_debugfs_file(const char *name, const struct file_operations *fops);

#endif /* _KPROF_DEBUGFS_H */
