/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - readers of the aggregation tables.
 */
#ifndef _KPROF_AGGREAD_H
#define _KPROF_AGGREAD_H

#include <linux/netlink.h>
#include <linux/seq_file.h>
#include <linux/types.h>

struct kprof_agg_cpu;
struct kprof_agg_entry;

/**
 * struct kprof_agg_folded_iter - a reader of the debugfs folded file
 * @t: the table of the entry being shown
 * @kptr: the reader may see kernel addresses (kptr_restrict)
 * @which: the entries shown, enum kprof_agg_which
 */
struct kprof_agg_folded_iter {
	struct kprof_agg_cpu *t;
	bool kptr;
	int which;
};

/* Entries a reader walks: all, those of samples, those of off-CPU time. */
enum kprof_agg_which {
	KPROF_AGG_ALL,
	KPROF_AGG_SAMPLES,
	KPROF_AGG_OFFCPU,
};

int kprof_agg_report_show(struct seq_file *m, void *v);
extern const struct seq_operations kprof_agg_folded_sops;
ssize_t kprof_agg_reset_write(struct file *file, const char __user *ubuf, size_t count,
			      loff_t *ppos);
int kprof_agg_dump(struct sk_buff *skb, struct netlink_callback *cb,
		   int (*put)(struct sk_buff *skb, struct netlink_callback *cb, u64 id,
			      unsigned int cpu, const struct kprof_agg_entry *e,
			      const u64 *frames));

struct kprof_procmap_info;
int kprof_procmap_dump(struct sk_buff *skb, struct netlink_callback *cb,
		       int (*put)(struct sk_buff *skb, struct netlink_callback *cb, u64 id,
				  const struct kprof_procmap_info *map));

#endif /* _KPROF_AGGREAD_H */
