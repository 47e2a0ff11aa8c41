/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - side-band records of a stream session (sideband.c): COMM, MMAP,
 * FORK and EXIT.
 */
#ifndef _KPROF_SIDEBAND_H
#define _KPROF_SIDEBAND_H

#include <linux/types.h>

struct kprof_session;
struct netlink_ext_ack;

u64 kprof_sideband_mem(void);
int kprof_sideband_start(struct kprof_session *s, struct netlink_ext_ack *extack);
bool kprof_sideband_unhook(struct kprof_session *s);
void kprof_sideband_stop(struct kprof_session *s);

#endif /* _KPROF_SIDEBAND_H */
