/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - counting mode: the counting session behind "kprofctl stat".
 */
#ifndef _KPROF_COUNTING_H
#define _KPROF_COUNTING_H

#include <linux/types.h>

struct genl_info;
struct netlink_callback;
struct seq_file;
struct sk_buff;

/* Netlink handlers of KPROF_CMD_COUNT_*, listed in kprof_nl_ops[] (genl.c). */
int kprof_count_start_doit(struct sk_buff *skb, struct genl_info *info);
int kprof_count_stop_doit(struct sk_buff *skb, struct genl_info *info);
int kprof_count_read_start(struct netlink_callback *cb);
int kprof_count_read_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int kprof_count_read_done(struct netlink_callback *cb);

/* /sys/kernel/debug/kprof/counters (debugfs.c) */
int kprof_counters_show(struct seq_file *m, void *v);

struct net;
void kprof_count_release(struct net *net, u32 portid);

void kprof_counting_exit(void);

#endif /* _KPROF_COUNTING_H */
