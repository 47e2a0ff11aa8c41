/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - waits timed per thread (wait.c): an off-CPU block (offcpu.c) or a
 * wait for a lock (lock.c) begins on one thread, with its key interned in
 * the aggregation tables, and ends later, maybe on another CPU, when its
 * time is added to that entry.
 */
#ifndef _KPROF_WAIT_H
#define _KPROF_WAIT_H

#include <linux/types.h>

#include "waitkind.h"

/* Waits one thread can have open at once (a mutex, then its wait_lock). */
#define KPROF_WAIT_DEPTH	2

struct kprof_agg;
struct kprof_agg_cpu;
struct kprof_cpu_stats;
struct kprof_wait_slot;

/**
 * struct kprof_waits - the open waits of one event, by thread
 * @slots: direct-mapped by thread id
 * @agg: the tables the waits' entries are in
 * @kind: which counters
 * @depth: waits one thread may have open, at most KPROF_WAIT_DEPTH
 * @wakers: depth 1 only: a block's waker may be noted (kprof_wait_note_waker())
 * @min_ns: the shortest wait counted
 * @max_ns: the longest wait counted
 */
struct kprof_waits {
	struct kprof_wait_slot *slots;
	struct kprof_agg *agg;
	enum kprof_wait_kind kind;
	unsigned int depth;
	bool wakers;
	u64 min_ns;
	u64 max_ns;
};

int kprof_waits_init(struct kprof_waits *w, struct kprof_agg *agg, enum kprof_wait_kind kind,
		     unsigned int depth, u64 min_ns, u64 max_ns);
void kprof_waits_free(struct kprof_waits *w);
u64 kprof_waits_bytes(void);
bool kprof_wait_open(struct kprof_waits *w, u32 tid, u64 tag);
void kprof_wait_begin(struct kprof_waits *w, struct kprof_cpu_stats *st, unsigned int cpu,
		      struct kprof_agg_cpu *t, u32 slot, u32 tid, u64 tag, u64 now);
void kprof_wait_end(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid, u64 tag,
		    bool any, u64 now);
void kprof_waits_drain(struct kprof_waits *w, struct kprof_cpu_stats *st, u64 now);
bool kprof_wait_peek(struct kprof_waits *w, u32 tid, u64 *where);
void kprof_wait_note_waker(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid,
			   u64 blocked, u64 where);

/* A wait's entry: cpu << 48 | (table generation & 0xffff) << 32 | slot */
#define KPROF_WAIT_CPU_SHIFT	48
#define KPROF_WAIT_GEN_SHIFT	32

static inline u64 kprof_wait_where(unsigned int cpu, u32 gen, u32 slot)
{
	return (u64)cpu << KPROF_WAIT_CPU_SHIFT | (u64)(gen & 0xffff) << KPROF_WAIT_GEN_SHIFT |
	       slot;
}

static inline void kprof_wait_where_decode(u64 where, unsigned int *cpu, u32 *gen16, u32 *slot)
{
	*cpu = where >> KPROF_WAIT_CPU_SHIFT;
	*gen16 = (where >> KPROF_WAIT_GEN_SHIFT) & 0xffff;
	*slot = (u32)where;
}

#endif /* _KPROF_WAIT_H */
