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

#include "agg.h"
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
void kprof_wait_begin(struct kprof_waits *w, struct kprof_cpu_stats *st,
		      struct kprof_agg_cpu *t, u32 slot, u32 tid, u64 tag, u64 now);
void kprof_wait_end(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid, u64 tag,
		    bool any, u64 now);
void kprof_waits_drain(struct kprof_waits *w, struct kprof_cpu_stats *st, u64 now);
void kprof_waits_move(struct kprof_waits *w, unsigned int half, u64 swap_ns);
bool kprof_wait_peek(struct kprof_waits *w, u32 tid, u64 *where);
void kprof_wait_note_waker(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid,
			   u64 blocked, u64 where);

/*
 * A wait's entry: its table's place in the set (15 bits, struct
 * kprof_agg_cpu's @index), the table's generation when it was interned
 * (KPROF_AGG_GEN_BITS, 27: at a reset a second, 4.25 years before a
 * reset count could alias, where 16 bits took 18.2 hours) and the slot
 * (22 bits: KPROF_AGG_MAX_ENTRIES).
 */
#define KPROF_WAIT_INDEX_SHIFT	(KPROF_AGG_GEN_BITS + KPROF_WAIT_SLOT_BITS)
#define KPROF_WAIT_GEN_SHIFT	KPROF_WAIT_SLOT_BITS
#define KPROF_WAIT_SLOT_BITS	22

static inline u64 kprof_wait_where(unsigned int index, u32 gen, u32 slot)
{
	return (u64)index << KPROF_WAIT_INDEX_SHIFT |
	       (u64)(gen & KPROF_AGG_GEN_MASK) << KPROF_WAIT_GEN_SHIFT |
	       (slot & ((1U << KPROF_WAIT_SLOT_BITS) - 1));
}

static inline void kprof_wait_where_decode(u64 where, unsigned int *index, u32 *gen, u32 *slot)
{
	*index = where >> KPROF_WAIT_INDEX_SHIFT;
	*gen = (where >> KPROF_WAIT_GEN_SHIFT) & KPROF_AGG_GEN_MASK;
	*slot = where & ((1U << KPROF_WAIT_SLOT_BITS) - 1);
}

#endif /* _KPROF_WAIT_H */
