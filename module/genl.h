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

int kprof_nl_init(void);
void kprof_nl_exit(void);

#endif /* _KPROF_GENL_H */
