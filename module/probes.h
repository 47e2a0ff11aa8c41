/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - kprobe and ftrace probes.
 */
#ifndef _KPROF_PROBES_H
#define _KPROF_PROBES_H

#include <linux/seq_file.h>
#include <linux/types.h>
#include <uapi/linux/kprof.h>

struct kprof_event;
struct kprof_session;
struct netlink_ext_ack;

/* A latency histogram summed over CPUs. */
struct kprof_hist_sum {
	u64 buckets[KPROF_HIST_BUCKETS];
	u64 count;
	u64 sum_ns;
	u64 max_ns;
	u64 missed;
	u64 keys_lost;
};

bool kprof_probe_hist(struct kprof_event *kev, struct kprof_hist_sum *out);
unsigned int kprof_probe_hist_keys(struct kprof_event *kev, unsigned long *cursor,
				   struct kprof_hist_key *out, unsigned int max);
void kprof_probes_show_runqlat(struct seq_file *m, struct kprof_session *s);
u64 kprof_probes_bytes(const struct kprof_session *s);
int kprof_probes_start(struct kprof_session *s, struct netlink_ext_ack *extack);
void kprof_probes_stop(struct kprof_session *s);
void kprof_probes_move_waits(struct kprof_session *s, unsigned int half, u64 swap_ns);
void kprof_probes_free(struct kprof_session *s);
void kprof_probes_show_session(struct seq_file *m, struct kprof_session *s);

#endif /* _KPROF_PROBES_H */
