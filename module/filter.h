/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - tracepoint filters.
 */
#ifndef _KPROF_FILTER_H
#define _KPROF_FILTER_H

#include <linux/types.h>
#include <uapi/linux/kprof.h>

struct netlink_ext_ack;
struct nlattr;

int kprof_filter_check(const struct kprof_filter_insn *insns, unsigned int nr,
		       const struct nlattr *attr, struct netlink_ext_ack *extack);
bool kprof_filter_run(const struct kprof_filter_insn *insns, unsigned int nr,
		      const u8 *raw, u32 len);

#endif /* _KPROF_FILTER_H */
