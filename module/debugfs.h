/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - /sys/kernel/debug/kprof/ (debugfs.c).
 */
#ifndef _KPROF_DEBUGFS_H
#define _KPROF_DEBUGFS_H

int kprof_debugfs_init(void);
void kprof_debugfs_exit(void);

#endif /* _KPROF_DEBUGFS_H */
