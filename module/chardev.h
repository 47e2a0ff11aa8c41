/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - /dev/kprof, the rings' reader device (chardev.c).
 */
#ifndef _KPROF_CHARDEV_H
#define _KPROF_CHARDEV_H

int kprof_chardev_init(void);
void kprof_chardev_exit(void);

#endif /* _KPROF_CHARDEV_H */
