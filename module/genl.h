/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the netlink layer (genl.c): the family, its policies, operations
 * and handlers, the only file that parses requests and builds messages.
 * The parts behind it (session.c, counting.c, aggread.c, probes.c) take
 * and fill plain structures.
 */
#ifndef _KPROF_GENL_H
#define _KPROF_GENL_H

#include <linux/types.h>

struct seq_file;

int kprof_nl_init(void);
void kprof_nl_exit(void);

/* per-command counts (debugfs "netlink") */
int kprof_netlink_show(struct seq_file *m, void *v);

#endif /* _KPROF_GENL_H */
