/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - a bounded set of process ids, lock-free and safe in any context
 * (NMI included): open addressing, insertion by cmpxchg into an empty slot,
 * no removal.  The side-band's set of followed processes and the set of
 * processes whose mappings an aggregating session keeps are two of them.
 */
#ifndef _KPROF_PIDSET_H
#define _KPROF_PIDSET_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/types.h>

static inline u32 kprof_pidset_slot(u32 tgid, u32 nr_slots)
{
	return (tgid * 2654435761U) % nr_slots;
}

/**
 * kprof_pidset_insert() - add @tgid to a set of @nr_slots slots
 * @slots: the set, zeroed when created (0 is never a process id here)
 * @nr_slots: its size
 * @tgid: the process, not 0
 *
 * Return: false when the set is full and @tgid is not in it.
 */
static inline bool kprof_pidset_insert(u32 *slots, u32 nr_slots, u32 tgid)
{
	u32 i, slot = kprof_pidset_slot(tgid, nr_slots);

	for (i = 0; i < nr_slots; i++, slot = (slot + 1) % nr_slots) {
		u32 old = READ_ONCE(slots[slot]);

		if (old == tgid)
			return true;
		if (!old) {
			old = cmpxchg(&slots[slot], 0, tgid);
			if (!old || old == tgid)
				return true;
		}
	}
	return false;
}

static inline bool kprof_pidset_lookup(const u32 *slots, u32 nr_slots, u32 tgid)
{
	u32 i, slot = kprof_pidset_slot(tgid, nr_slots);

	for (i = 0; i < nr_slots; i++, slot = (slot + 1) % nr_slots) {
		u32 v = READ_ONCE(slots[slot]);

		if (v == tgid)
			return true;
		if (!v)
			return false;
	}
	return false;
}

#endif /* _KPROF_PIDSET_H */
