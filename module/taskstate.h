/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - a per-task timestamp table, lock-free and safe in any context:
 * the scheduler probes keep "when did this task become runnable" in it
 * and take it back when the task runs, possibly on another CPU.
 *
 * Direct-mapped by thread id: slot tid & mask holds tid (22 bits, as
 * PID_MAX_LIMIT is 2^22 on 64-bit) and the time in 256 ns units since
 * @base_ns (42 bits: 13 days) packed in one u64, so a slot is always read
 * and written whole.  Two waiting threads whose ids share a slot: the
 * later one replaces the earlier, whose wait is then lost (counted by the
 * caller).  No allocation on the probe paths.
 */
#ifndef _KPROF_TASKSTATE_H
#define _KPROF_TASKSTATE_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/types.h>

#define KPROF_TS_TID_BITS	22
#define KPROF_TS_TIME_BITS	(64 - KPROF_TS_TID_BITS)
#define KPROF_TS_SHIFT		8	/* time unit: 256 ns */

struct kprof_taskstate {
	u64 *slots;
	u32 mask;
	u64 base_ns;
};

static inline int kprof_taskstate_init(struct kprof_taskstate *ts, u32 nr_slots, u64 base_ns,
				       gfp_t gfp)
{
	ts->slots = kvcalloc(nr_slots, sizeof(u64), gfp);
	ts->mask = nr_slots - 1;
	ts->base_ns = base_ns;
	return ts->slots ? 0 : -ENOMEM;
}

static inline void kprof_taskstate_free(struct kprof_taskstate *ts)
{
	kvfree(ts->slots);
	ts->slots = NULL;
}

/*
 * Note @tid's time @now_ns.  Return: true when the slot held another live
 * thread's time, which is now lost.
 */
static __always_inline bool kprof_taskstate_set(struct kprof_taskstate *ts, u32 tid, u64 now_ns)
{
	u64 t = (now_ns - ts->base_ns) >> KPROF_TS_SHIFT;
	u64 v = ((u64)tid << KPROF_TS_TIME_BITS) | (t & ((1ULL << KPROF_TS_TIME_BITS) - 1));
	u64 old = xchg(&ts->slots[tid & ts->mask], v);

	return old && (old >> KPROF_TS_TIME_BITS) != tid;
}

/* Take @tid's time back into *@ns.  Return: false when none is kept. */
static __always_inline bool kprof_taskstate_take(struct kprof_taskstate *ts, u32 tid, u64 *ns)
{
	u64 *slot = &ts->slots[tid & ts->mask];
	u64 v = READ_ONCE(*slot);

	if (!v || (v >> KPROF_TS_TIME_BITS) != tid || cmpxchg(slot, v, 0) != v)
		return false;
	*ns = ts->base_ns + ((v & ((1ULL << KPROF_TS_TIME_BITS) - 1)) << KPROF_TS_SHIFT);
	return true;
}

#endif /* _KPROF_TASKSTATE_H */
