/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - lock contention by lock and stack (lock.c).
 */
#ifndef _KPROF_LOCK_H
#define _KPROF_LOCK_H

struct kprof_event;
struct kprof_waits;
struct netlink_ext_ack;

int kprof_lock_start(struct kprof_event *kev, struct netlink_ext_ack *extack);
void kprof_lock_stop(struct kprof_event *kev);
struct kprof_waits *kprof_lock_waits(struct kprof_event *kev);
void kprof_lock_free(struct kprof_event *kev);

#endif /* _KPROF_LOCK_H */
