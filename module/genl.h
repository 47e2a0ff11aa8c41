/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the netlink layer (genl.c): the family, its policies and
 * operations, and the helpers every handler builds its replies with.
 * Handlers of other files (counting.c, aggread.c) use these and never the
 * genetlink core's message functions directly, so that there is one way to
 * start a reply, to start a dump message, to refuse a dump and to walk the
 * repeated attributes of a request.
 */
#ifndef _KPROF_GENL_H
#define _KPROF_GENL_H

#include <linux/types.h>

struct cpumask;
struct genl_info;
struct netlink_callback;
struct netlink_ext_ack;
struct nlattr;
struct seq_file;
struct sk_buff;
struct kprof_event_config;

int kprof_nl_init(void);
void kprof_nl_exit(void);

/* privilege and per-command counts (debugfs "netlink") */
bool kprof_nl_admit(u8 cmd, const struct sk_buff *skb, bool perfmon);
int kprof_netlink_show(struct seq_file *m, void *v);

/* replies and dump messages */
struct sk_buff *kprof_nl_reply_new(struct genl_info *info, void **hdr);
void *kprof_nl_dump_msg(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd, u64 id);
int kprof_nl_put_u64(struct sk_buff *msg, int type, u64 v, int pad);
bool kprof_nl_dump_admit(struct netlink_callback *cb);
int kprof_nl_dump_start(struct netlink_callback *cb);
bool kprof_nl_dump_refused(struct netlink_callback *cb);

/* request parsing shared by START and COUNT_START */
int kprof_nl_parse_cpumask(const struct nlattr *attr, struct cpumask *mask,
			   struct netlink_ext_ack *extack);
int kprof_nl_parse_target(struct genl_info *info, bool system_wide, pid_t *pids,
			  const struct nlattr **pid_attrs, unsigned int *nr_pids);
int kprof_nl_parse_event(struct genl_info *info, const struct nlattr *nest,
			 struct kprof_event_config *ev);
typedef int (*kprof_nl_event_fn)(struct genl_info *info, const struct nlattr *nest,
				 unsigned int index, void *arg);
int kprof_nl_walk_events(struct genl_info *info, kprof_nl_event_fn fn, void *arg,
			 unsigned int *nr_events);

#endif /* _KPROF_GENL_H */
