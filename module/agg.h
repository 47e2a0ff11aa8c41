/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - in-kernel aggregation of samples into per-CPU stack tables.
 */
#ifndef _KPROF_AGG_H
#define _KPROF_AGG_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/local.h>
#include <asm/local64.h>
#include <uapi/linux/kprof.h>

/* frames of stack pool per entry (average depth the pool is sized for) */
#define KPROF_AGG_FRAMES_PER_ENTRY	24
/* probes of the open-addressing table before the sample counts as lost */
#define KPROF_AGG_PROBES		64
/* tables of a set (both halves of every possible CPU): a wait's entry names one */
#define KPROF_AGG_MAX_TABLES		BIT(15)
/* bits of a table's generation a wait's entry keeps (kprof_agg_add_time()) */
#define KPROF_AGG_GEN_BITS		27
#define KPROF_AGG_GEN_MASK		(BIT(KPROF_AGG_GEN_BITS) - 1)

/*
 * The key words of an off-CPU block's waker entry (offcpu.c): its
 * process, its name (two words), its frames' counts (kernel | user << 16),
 * then its kernel and user frames; the entry's own frames are the block's.
 */
#define KPROF_AGG_WAKER_PID	0
#define KPROF_AGG_WAKER_COMM	1
#define KPROF_AGG_WAKER_NR	3
#define KPROF_AGG_WAKER_HDR	4

/* struct kprof_agg_entry's flags */
#define KPROF_AGG_E_MINMAX	BIT(0)	/* keeps the longest and shortest time */

/**
 * struct kprof_agg_key - what an entry is counted by, besides event and task
 * @ips: @nr_key key words, @nr_kernel kernel frames, @nr_user user frames
 * @nr_key: key words
 * @nr_kernel: kernel frames
 * @nr_user: user frames
 * @flags: KPROF_AGG_E_* of a new entry
 */
struct kprof_agg_key {
	const u64 *ips;
	u16 nr_key;
	u16 nr_kernel;
	u16 nr_user;
	u8 flags;
};

enum kprof_agg_state {
	KPROF_AGG_EMPTY = 0,
	KPROF_AGG_WRITING,
	KPROF_AGG_VALID,
};

/**
 * struct kprof_agg_entry - one distinct (event, process, stacks) key
 * @state: enum kprof_agg_state; VALID is published after everything else
 * @event: event index
 * @nr_kernel: kernel frames after the key words
 * @nr_user: user frames after them
 * @nr_key: key words before the frames (a lock's address and type; an
 *	off-CPU block's waker)
 * @pid: process (tgid); the thread for lock events
 * @frames: offset of the entry's words in the CPU's pool: @nr_key key
 *	words, the frames, then with KPROF_AGG_E_MINMAX the longest and
 *	shortest time added (kprof_agg_minmax())
 * @flags: KPROF_AGG_E_*
 * @hash: hash of the key, checked before the full comparison
 * @count: samples of this key, written only on the table's CPU
 * @blocks: off-CPU events instead: blocks of this key that ended, added
 *	from any CPU (kprof_agg_add_time()), so atomic
 * @time_ns: off-CPU events: their time, added from any CPU
 * @comm: the task's name when the key was first seen
 */
struct kprof_agg_entry {
	u32 state;
	u16 event;
	u16 nr_kernel;
	u16 nr_user;
	u16 nr_key;
	u32 pid;
	u32 frames;
	u8 flags;
	u64 hash;
	union {
		local64_t count;
		atomic64_t blocks;
	};
	atomic64_t time_ns;
	char comm[16];
};

/**
 * struct kprof_agg_cpu - one CPU's table
 * @entries: open-addressing table, @nr_entries (a power of two) slots
 * @nr_entries: slots in @entries
 * @pool: frames of the entries
 * @pool_size: frames in @pool
 * @pool_used: frames handed out
 * @pool_used: frames handed out (past @pool_size once an entry did not fit)
 * @used: entries in use
 * @high: the most entries in use before a reset, since the table was made
 * @pool_high: the most frames in use before a reset
 * @resetting: a reset is clearing this table
 * @gen: resets so far; an entry's slot is only meaningful within one
 * @remote: kprof_agg_add_time() calls in flight, which a reset waits for
 * @index: its place in its set: half * nr_cpus + cpu (kprof_agg_table_at())
 */
struct kprof_agg_cpu {
	struct kprof_agg_entry *entries;
	u32 nr_entries;
	u64 *pool;
	u32 pool_size;
	local_t pool_used;
	local_t used;
	u32 high;
	u32 pool_high;
	int resetting;
	u32 gen;
	atomic_t remote;
	unsigned int index;
};

/**
 * struct kprof_agg_usage - how full one CPU's table is and has been
 * @used: entries in use
 * @high: the most entries in use at once since the table was made
 * @capacity: the table's entries
 * @pool_used: frames (and key words) in use
 * @pool_high: the most frames in use at once
 * @pool_size: frames the pool has
 */
struct kprof_agg_usage {
	u64 used;
	u64 high;
	u64 capacity;
	u64 pool_used;
	u64 pool_high;
	u64 pool_size;
};

/**
 * struct kprof_agg - the tables of a session, one per CPU it has used
 * @nr_cpus: tables per half (nr_cpu_ids)
 * @nr_entries: slots of each table
 * @halves: 1, or 2 for a session read in intervals (KPROF_SESSION_F_INTERVALS)
 * @epoch: swaps so far (kprof_agg_swap()); the half written is @epoch & 1
 * @cpus: half 0's table of each possible CPU, then half 1's; NULL for a
 *	CPU without one (outside the session, not yet online, or its
 *	allocation failed); read through kprof_agg_table()
 */
struct kprof_agg {
	unsigned int nr_cpus;
	u32 nr_entries;
	unsigned int halves;
	u64 epoch;
	struct kprof_agg_cpu *cpus[];
};

/**
 * kprof_agg_table() - a CPU's table in one half, once published
 * @agg: the set
 * @half: 0, or 1 in a set of two halves
 * @cpu: any CPU number
 *
 * An acquire load, which pairs with kprof_agg_add_cpu().  Safe in any
 * context.
 *
 * Return: the table, or NULL (none on that CPU, or @cpu out of range).
 */
static __always_inline struct kprof_agg_cpu *kprof_agg_table(struct kprof_agg *agg,
							     unsigned int half, unsigned int cpu)
{
	if (cpu >= agg->nr_cpus || half >= agg->halves)
		return NULL;
	/* pairs with kprof_agg_add_cpu()'s release */
	return smp_load_acquire(&agg->cpus[half * agg->nr_cpus + cpu]);
}

/**
 * kprof_agg_table_at() - a table by its place in the set
 * @agg: the set
 * @index: its struct kprof_agg_cpu's @index
 *
 * Return: the table, or NULL (none there, or @index out of range).
 */
static __always_inline struct kprof_agg_cpu *kprof_agg_table_at(struct kprof_agg *agg,
								unsigned int index)
{
	if (index >= agg->halves * agg->nr_cpus)
		return NULL;
	/* pairs with kprof_agg_add_cpu()'s release */
	return smp_load_acquire(&agg->cpus[index]);
}

/**
 * kprof_agg_cpu_of() - a CPU's table in the half being written
 * @agg: the set
 * @cpu: any CPU number
 *
 * The epoch is read once: a writer adds to the table returned, in the
 * same RCU read-side section (preemption or interrupts disabled, or NMI),
 * which kprof_agg_swap()'s caller waits for before it reads that half.
 *
 * Return: as kprof_agg_table().
 */
static __always_inline struct kprof_agg_cpu *kprof_agg_cpu_of(struct kprof_agg *agg,
							      unsigned int cpu)
{
	return kprof_agg_table(agg, READ_ONCE(agg->epoch) & 1, cpu);
}

struct kprof_agg *kprof_agg_alloc(u32 nr_entries, unsigned int halves);
int kprof_agg_add_cpu(struct kprof_agg *agg, unsigned int cpu);
void kprof_agg_free(struct kprof_agg *agg);
int kprof_agg_add(struct kprof_agg_cpu *t, u16 event, u32 pid, const char *comm,
		  const u64 *ips, u16 nr_kernel, u16 nr_user);
int kprof_agg_intern(struct kprof_agg_cpu *t, u16 event, u32 pid, const char *comm,
		     const struct kprof_agg_key *key, u32 *slot);
bool kprof_agg_add_time(struct kprof_agg_cpu *t, u32 slot, u32 gen, u64 ns, u64 whole_ns,
			bool ended);
int kprof_agg_copy_frames(struct kprof_agg_cpu *t, u32 slot, u32 gen, u64 *dst, u32 room,
			  u16 *nr_kernel, u16 *nr_user);
void kprof_agg_reset(struct kprof_agg *agg);
u64 kprof_agg_swap(struct kprof_agg *agg);
void kprof_agg_clear_half(struct kprof_agg *agg, unsigned int half);
void kprof_agg_usage(struct kprof_agg_cpu *t, struct kprof_agg_usage *u);
void kprof_agg_cpu_usage(struct kprof_agg *agg, unsigned int cpu, struct kprof_agg_usage *u);
u64 kprof_agg_bytes(u32 nr_entries);

/**
 * kprof_agg_entry_get() - a VALID entry of a table, or NULL
 * @t: the table
 * @slot: the slot
 *
 * Context: any reader; the entry's fields are complete once VALID is seen.
 */
static inline struct kprof_agg_entry *kprof_agg_entry_get(struct kprof_agg_cpu *t, u32 slot)
{
	struct kprof_agg_entry *e = &t->entries[slot];

	/* acquire matches the writer's release of VALID */
	if (smp_load_acquire(&e->state) != KPROF_AGG_VALID)
		return NULL;
	return e;
}

/* The key words of an entry (a lock's address and type), then its frames. */
static inline const u64 *kprof_agg_keys(struct kprof_agg_cpu *t,
					const struct kprof_agg_entry *e)
{
	return t->pool + e->frames;
}

static inline const u64 *kprof_agg_frames(struct kprof_agg_cpu *t,
					  const struct kprof_agg_entry *e)
{
	return t->pool + e->frames + e->nr_key;
}

/* With KPROF_AGG_E_MINMAX: the longest, then the shortest time added. */
static inline u64 *kprof_agg_minmax(struct kprof_agg_cpu *t, const struct kprof_agg_entry *e)
{
	return t->pool + e->frames + e->nr_key + e->nr_kernel + e->nr_user;
}

#endif /* _KPROF_AGG_H */
