/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - readers of the aggregation tables.
 */
#ifndef _KPROF_AGGREAD_H
#define _KPROF_AGGREAD_H

#include <linux/seq_file.h>
#include <linux/types.h>

struct kprof_agg_cpu;
struct kprof_session;
struct kprof_agg_entry;

/**
 * struct kprof_agg_folded_iter - a reader of the debugfs folded file
 * @id: the session read: the default one when the file was opened
 * @s: that session, between seq_file's start and stop (locked and
 *	referenced, looked up again at each read(2))
 * @t: the table of the entry being shown
 * @kptr: the reader may see kernel addresses (kptr_restrict)
 * @which: the entries shown, enum kprof_agg_which
 */
struct kprof_agg_folded_iter {
	u64 id;
	struct kprof_session *s;
	struct kprof_agg_cpu *t;
	bool kptr;
	int which;
};

/* Entries a reader walks: all, those of samples, off-CPU time, lock waits. */
enum kprof_agg_which {
	KPROF_AGG_ALL,
	KPROF_AGG_SAMPLES,
	KPROF_AGG_OFFCPU,
	KPROF_AGG_LOCK,
	KPROF_AGG_WAKERS,
};

/**
 * struct kprof_agg_view - one entry as a dump shows it
 * @e: the entry
 * @frames: its frames, kernel ones zeroed when the reader may not see them
 * @has_lock: the entry is a lock event's: @lock and @lock_flags are its
 * @lock: a lock event's lock address (0 when hidden, as its frames)
 * @lock_flags: its KPROF_LOCK_F_* type
 * @minmax: @max_ns and @min_ns are kept
 * @max_ns: the longest time added
 * @min_ns: the shortest
 * @has_waker: an off-CPU block's waker entry: the waker_* fields are its
 * @waker_pid: the waker's process
 * @waker_comm: its thread's name
 * @waker_nr_kernel: its kernel frames at @waker_frames (zero when hidden)
 * @waker_nr_user: its user frames after them
 * @waker_frames: the frames
 */
struct kprof_agg_view {
	const struct kprof_agg_entry *e;
	const u64 *frames;
	bool has_lock;
	u64 lock;
	u32 lock_flags;
	bool minmax;
	u64 max_ns;
	u64 min_ns;
	bool has_waker;
	u32 waker_pid;
	char waker_comm[16];
	u16 waker_nr_kernel;
	u16 waker_nr_user;
	const u64 *waker_frames;
};

int kprof_agg_report(struct seq_file *m, u64 id);
extern const struct seq_operations kprof_agg_folded_sops;

/**
 * struct kprof_agg_cursor - a read of the tables across calls
 * @pos: the next entry (cpu << 32 | slot) or kept mapping
 * @id: the session to read, 0 for the default one; after the first call,
 *	the session it read
 * @begun: the first call found the session
 * @stale: the session was freed between two calls
 * @epoch: 0 to read the tables being written; else the closed interval
 *	to read, + 1 (KPROF_A_AGG_EPOCH)
 * @held: the first call held that interval (kprof_session_agg_hold()):
 *	the reader lets go of it with kprof_session_agg_release()
 */
struct kprof_agg_cursor {
	u64 pos;
	u64 id;
	bool begun;
	bool stale;
	u64 epoch;
	bool held;
};

struct kprof_procmap_info;
struct netlink_ext_ack;
typedef int (*kprof_agg_put_fn)(void *arg, u64 id, unsigned int cpu,
				const struct kprof_agg_view *v);
typedef int (*kprof_agg_map_put_fn)(void *arg, u64 id, const struct kprof_procmap_info *map);

int kprof_agg_read(struct kprof_agg_cursor *cur, kprof_agg_put_fn put, void *arg,
		   struct netlink_ext_ack *extack);
int kprof_agg_read_maps(struct kprof_agg_cursor *cur, kprof_agg_map_put_fn put, void *arg,
			struct netlink_ext_ack *extack);

#endif /* _KPROF_AGGREAD_H */
