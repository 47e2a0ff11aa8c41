/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - off-CPU time by stack (offcpu.c).
 */
#ifndef _KPROF_OFFCPU_H
#define _KPROF_OFFCPU_H

struct kprof_event;
struct kprof_waits;
struct netlink_ext_ack;

int kprof_offcpu_start(struct kprof_event *kev, struct netlink_ext_ack *extack);
void kprof_offcpu_stop(struct kprof_event *kev);
struct kprof_waits *kprof_offcpu_waits(struct kprof_event *kev);
void kprof_offcpu_free(struct kprof_event *kev);

#endif /* _KPROF_OFFCPU_H */
