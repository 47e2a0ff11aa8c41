/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the sessions' control API (session.c): start, stop, a socket's
 * release, status, a session looked up by id.  Called by the interfaces (netlink, /dev/kprof,
 * debugfs) and main.c; the parts share the session's types through
 * internal.h instead.
 */
#ifndef _KPROF_SESSION_H
#define _KPROF_SESSION_H

#include <linux/types.h>

#include "procmap.h"
#include "ring.h"

struct kprof_session;
struct kprof_session_config;
struct kprof_status;
struct netlink_ext_ack;

/**
 * struct kprof_session_info - a snapshot of the session for reports
 * @id: the session's id
 * @state: KPROF_STATE_*
 * @flags: KPROF_SESSION_F_*
 * @freq: as struct kprof_session_config
 * @period: as struct kprof_session_config
 * @buffer_size: as struct kprof_session_config
 * @stride: bytes between two CPUs' mmap offsets of /dev/kprof
 * @watermark: the bytes that wake a reader, as applied
 * @stack_depth: as struct kprof_session_config
 * @nr_events: events in the session
 * @nr_tasks: threads followed by a per-task session
 * @start_ns: CLOCK_MONOTONIC at start
 * @agg_entries: as struct kprof_session_config
 * @owner_pid: as struct kprof_session_config
 * @uid: the user that started it, in the reader's user namespace
 * @mem: its rings, tables, kept mappings and queues, in bytes
 * @cpus_skipped: CPUs that came up and could not be given its ring
 * @lost_no_ring: hits lost on its CPUs without a ring
 * @totals: the counters of all CPUs summed
 * @has_maps: @maps is filled (an aggregating session)
 * @maps: what the kept mappings hold
 */
struct kprof_session_info {
	u64 id;
	u32 state;
	u32 flags;
	u32 freq;
	u64 period;
	u32 buffer_size;
	u64 stride;
	u32 watermark;
	u32 stack_depth;
	unsigned int nr_events;
	unsigned int nr_tasks;
	u64 start_ns;
	u32 agg_entries;
	u32 owner_pid;
	u32 uid;
	u64 mem;
	u32 cpus_skipped;
	u64 lost_no_ring;
	struct kprof_stats_snapshot totals;
	bool has_maps;
	struct kprof_procmap_stats maps;
};

struct net;
int kprof_session_start(struct kprof_session_config *cfg, struct net *net, u32 portid, u64 *id,
			struct netlink_ext_ack *extack);
int kprof_session_stop(u64 id, struct net *net, u32 portid, u64 *stopped,
		       struct netlink_ext_ack *extack);
bool kprof_session_release(struct net *net, u32 portid);
int kprof_session_free_saved(u64 id, struct net *net, u32 portid,
			     struct netlink_ext_ack *extack);
int kprof_session_resolve(u64 id, struct net *net, u32 portid, bool running_only, u64 *out,
			  struct netlink_ext_ack *extack);
unsigned int kprof_session_ids(u64 *ids, unsigned int max);
struct kprof_session *kprof_session_lock_id(u64 id);
void kprof_session_unlock_put(struct kprof_session *s);
u64 kprof_session_default_id(void);
void kprof_status_read(struct kprof_status *st);
bool kprof_session_info(u64 id, struct kprof_session_info *info);
int kprof_session_cpu_stats(u64 *id, unsigned int cpu, struct kprof_stats_snapshot *st);
struct kprof_buffers *kprof_session_buffers(u64 id);
int kprof_session_agg_reset(u64 id, struct netlink_ext_ack *extack);

/**
 * struct kprof_agg_interval - an interval a swap closed
 * @epoch: its epoch: AGG_DUMP reads it with KPROF_A_AGG_EPOCH
 * @start_ns: when it began (CLOCK_MONOTONIC)
 * @end_ns: when it ended: the swap
 */
struct kprof_agg_interval {
	u64 epoch;
	u64 start_ns;
	u64 end_ns;
};

int kprof_session_agg_swap(u64 id, struct kprof_agg_interval *iv,
			   struct netlink_ext_ack *extack);
int kprof_session_agg_hold(struct kprof_session *s, u64 epoch, struct netlink_ext_ack *extack);
void kprof_session_agg_release(u64 id, u64 epoch);
void kprof_session_totals(struct kprof_session *s, struct kprof_stats_snapshot *t);

int kprof_session_init(void);
void kprof_session_exit(void);

#endif /* _KPROF_SESSION_H */
