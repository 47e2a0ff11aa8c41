/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - /sys/kernel/debug/kprof/ (debugfs.c).
 */
#ifndef _KPROF_DEBUGFS_H
#define _KPROF_DEBUGFS_H

struct seq_file;

int kprof_debugfs_init(void);
void kprof_debugfs_exit(void);
void kprof_debugfs_sessions_sync(void);
void kprof_debugfs_show_file(const char *name, int (*show)(struct seq_file *m, void *v));

#endif /* _KPROF_DEBUGFS_H */
