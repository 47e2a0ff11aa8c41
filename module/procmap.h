/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the mappings an aggregating session keeps of processes that are
 * gone, to name their frames.
 */
#ifndef _KPROF_PROCMAP_H
#define _KPROF_PROCMAP_H

#include <linux/netlink.h>
#include <linux/types.h>

struct kprof_procmap;
struct netlink_ext_ack;

/**
 * struct kprof_procmap_stats - what the kept mappings hold
 * @procs: processes whose mappings were kept
 * @kept: mappings kept
 * @lost: mappings not kept, no room
 * @lost_pids: processes with counted stacks not followed, no room
 * @unowned: address spaces freed outside their process (not attributable)
 */
struct kprof_procmap_stats {
	u64 procs;
	u64 kept;
	u64 lost;
	u64 lost_pids;
	u64 unowned;
};

/**
 * struct kprof_procmap_info - one kept mapping, as readers see it
 * @pid: process
 * @comm: its name while the mapping existed
 * @start: first address
 * @len: bytes
 * @pgoff: file offset of @start
 * @dev: the file's device (new_encode_dev)
 * @ino: the file's inode
 * @path: the file's path, or "[vdso]"
 */
struct kprof_procmap_info {
	u32 pid;
	const char *comm;
	u64 start;
	u64 len;
	u64 pgoff;
	u64 dev;
	u64 ino;
	const char *path;
};

u64 kprof_procmap_bytes(unsigned int halves);
struct kprof_procmap *kprof_procmap_alloc(unsigned int halves, const u64 *epoch);
void kprof_procmap_clear_half(struct kprof_procmap *pm, unsigned int half);
void kprof_procmap_free(struct kprof_procmap *pm);
int kprof_procmap_start(struct kprof_procmap *pm, struct netlink_ext_ack *extack);
bool kprof_procmap_stop(struct kprof_procmap *pm);
void kprof_procmap_keep_live(struct kprof_procmap *pm);
void kprof_procmap_note_pid(struct kprof_procmap *pm, u32 tgid);
void kprof_procmap_stats(struct kprof_procmap *pm, struct kprof_procmap_stats *st);
bool kprof_procmap_get(struct kprof_procmap *pm, u32 index, struct kprof_procmap_info *info,
		       bool reader);
int kprof_procmap_name(struct kprof_procmap *pm, u32 pid, const char *comm, bool same_comm,
		       u64 addr, char *buf, size_t len);

#endif /* _KPROF_PROCMAP_H */
