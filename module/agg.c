// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - in-kernel aggregation.
 *
 * In aggregate mode the overflow handler does not stream a record: it
 * counts the sample in its CPU's table, keyed by (event, process, task
 * name, kernel chain, user chain).  Tables are preallocated when the session starts
 * and written without locks or allocation, from any context, NMI included:
 *
 *  - a slot is claimed with cmpxchg(EMPTY -> WRITING), filled, and
 *    published with a release store of VALID; readers on other CPUs see
 *    only VALID entries, so never a torn one;
 *  - a hash match is confirmed by comparing the whole key, frames included:
 *    two different stacks are never merged (unlike BPF stack maps);
 *  - the frames live in a per-CPU pool handed out by a bump counter;
 *  - a sample that finds no slot within KPROF_AGG_PROBES probes, or no room
 *    in the pool, is counted as lost (KPROF_LOST_AGG_FULL), never written
 *    over another key.
 *
 * A writer interrupted between claiming and publishing a slot (an NMI
 * sampling the same stack) may make the nested writer take another slot for
 * the same key: readers add duplicate keys up, nothing is lost.
 *
 * Off-CPU events (offcpu.c) intern an entry when a task blocks and add the
 * block's time to it when the task runs again, from whichever CPU that is:
 * those entries' counters are atomic64_t and a reset waits for such adds
 * in flight.  Lock events (lock.c) do the same with a wait for a lock; their
 * key begins with key words (the lock's address and type) and their entries
 * keep the longest and shortest wait too (KPROF_AGG_E_MINMAX).
 *
 * Memory per CPU: nr_entries * (sizeof(struct kprof_agg_entry) +
 * KPROF_AGG_FRAMES_PER_ENTRY * 8) bytes, 256 bytes an entry; 2 MiB for
 * the default 8192 entries, twice that for a session read in intervals,
 * whose CPUs have two tables (halves): one written, one closed by the
 * last swap (kprof_agg_swap()) and read meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "agg.h"
#include "compat.h"

/**
 * kprof_agg_bytes() - kernel memory of one CPU's table
 * @nr_entries: entries per CPU
 *
 * Return: bytes: its entries, its frame pool and the table itself.
 */
u64 kprof_agg_bytes(u32 nr_entries)
{
	return sizeof(struct kprof_agg_cpu) +
	       (u64)nr_entries * (sizeof(struct kprof_agg_entry) +
				  KPROF_AGG_FRAMES_PER_ENTRY * sizeof(u64));
}

static void kprof_agg_cpu_free(struct kprof_agg_cpu *t)
{
	if (!t)
		return;
	kvfree(t->entries);
	kvfree(t->pool);
	kfree(t);
}

/**
 * kprof_agg_alloc() - the set of a session's tables, none allocated yet
 * @nr_entries: entries per CPU, a power of two
 * @halves: tables per CPU: 1, or 2 for a session read in intervals
 *
 * kprof_agg_add_cpu() gives a CPU its tables.
 *
 * Context: process context, may sleep.
 * Return: the set, or NULL when out of memory.
 */
struct kprof_agg *kprof_agg_alloc(u32 nr_entries, unsigned int halves)
{
	struct kprof_agg *agg;

	/* a table's place fits the 15 bits of a wait's entry (wait.h) */
	if (WARN_ON_ONCE(halves < 1 || halves > 2 || halves * nr_cpu_ids > KPROF_AGG_MAX_TABLES))
		return NULL;
	agg = kzalloc(struct_size(agg, cpus, (size_t)halves * nr_cpu_ids), KPROF_GFP);
	if (!agg)
		return NULL;
	agg->nr_cpus = nr_cpu_ids;
	agg->nr_entries = nr_entries;
	agg->halves = halves;
	return agg;
}

/* One table of @nr_entries on @cpu's node, or NULL. */
static struct kprof_agg_cpu *kprof_agg_cpu_alloc(u32 nr_entries, unsigned int cpu)
{
	struct kprof_agg_cpu *t;

	t = kzalloc_node(sizeof(*t), KPROF_GFP, cpu_to_node(cpu));
	if (!t)
		return NULL;
	t->nr_entries = nr_entries;
	t->pool_size = nr_entries * KPROF_AGG_FRAMES_PER_ENTRY;
	t->entries = kvzalloc_node(array_size(nr_entries, sizeof(*t->entries)), KPROF_GFP,
				   cpu_to_node(cpu));
	t->pool = kvmalloc_node(array_size(t->pool_size, sizeof(u64)), KPROF_GFP,
				cpu_to_node(cpu));
	if (!t->entries || !t->pool) {
		kprof_agg_cpu_free(t);
		return NULL;
	}
	local_set(&t->pool_used, 0);
	local_set(&t->used, 0);
	return t;
}

/**
 * kprof_agg_add_cpu() - give a CPU its tables, one per half
 * @agg: the set
 * @cpu: the CPU, which has none yet
 *
 * All of them or none.  Each is published with a release store
 * (kprof_agg_table() pairs with it), half 0's last: a CPU with half 0's
 * has every half's.  Kept until the set is freed.
 *
 * Context: process context, may sleep; calls for one set serialised by
 * its owner.
 * Return: 0, or -ENOMEM.
 */
int kprof_agg_add_cpu(struct kprof_agg *agg, unsigned int cpu)
{
	struct kprof_agg_cpu *t[2] = { };
	unsigned int h;

	if (WARN_ON_ONCE(cpu >= agg->nr_cpus || agg->cpus[cpu]))
		return -EINVAL;
	for (h = 0; h < agg->halves; h++) {
		t[h] = kprof_agg_cpu_alloc(agg->nr_entries, cpu);
		if (!t[h]) {
			kprof_agg_cpu_free(t[0]);
			return -ENOMEM;
		}
		t[h]->index = h * agg->nr_cpus + cpu;
	}
	for (h = agg->halves; h-- > 0;) {
		/* the table whole before its pointer: pairs with kprof_agg_table() */
		smp_store_release(&agg->cpus[h * agg->nr_cpus + cpu], t[h]);
	}
	return 0;
}

void kprof_agg_free(struct kprof_agg *agg)
{
	unsigned int i;

	if (!agg)
		return;
	for (i = 0; i < agg->halves * agg->nr_cpus; i++)
		kprof_agg_cpu_free(agg->cpus[i]);
	kfree(agg);
}

/* The task's name is in the key: threads named apart stay apart (kprofctl too). */
static bool kprof_agg_same(struct kprof_agg_cpu *t, const struct kprof_agg_entry *e,
			   u64 hash, u16 event, u32 pid, const char *comm,
			   const struct kprof_agg_key *k)
{
	return e->hash == hash && e->pid == pid && e->event == event &&
	       e->nr_kernel == k->nr_kernel && e->nr_user == k->nr_user &&
	       e->nr_key == k->nr_key &&
	       !memcmp(t->pool + e->frames, k->ips,
		       (k->nr_key + k->nr_kernel + k->nr_user) * sizeof(u64)) &&
	       !strncmp(e->comm, comm, sizeof(e->comm) - 1);
}

/*
 * Find or make the entry of a key; count one sample in it when @count.
 * The slot in *@slot.  See kprof_agg_add().
 */
static __always_inline int kprof_agg_lookup(struct kprof_agg_cpu *t, u16 event, u32 pid,
					    const char *comm, const struct kprof_agg_key *k,
					    bool count, u32 *found)
{
	u32 n = k->nr_key + k->nr_kernel + k->nr_user;
	u32 words = n + (k->flags & KPROF_AGG_E_MINMAX ? 2 : 0);
	u32 mask = t->nr_entries - 1;
	u32 i, slot;
	u64 hash;

	if (unlikely(READ_ONCE(t->resetting)))
		return -EBUSY;

	hash = jhash2((const u32 *)k->ips, n * 2,
		      pid ^ ((u32)event << 16) ^ k->nr_kernel ^ ((u32)k->nr_key << 24));
	hash = (hash << 32) | (pid ^ ((u64)k->nr_user << 20));
	slot = (u32)(hash >> 32) & mask;

	for (i = 0; i < KPROF_AGG_PROBES && i <= mask; i++, slot = (slot + 1) & mask) {
		struct kprof_agg_entry *e = &t->entries[slot];
		unsigned long off;
		u32 state;

		/* acquire matches the release of VALID by a writer we interrupted */
		state = smp_load_acquire(&e->state);

		if (state == KPROF_AGG_VALID) {
			if (kprof_agg_same(t, e, hash, event, pid, comm, k)) {
				if (count)
					local64_inc(&e->count);
				*found = slot;
				return 0;
			}
			continue;
		}
		if (state != KPROF_AGG_EMPTY ||
		    cmpxchg(&e->state, KPROF_AGG_EMPTY, KPROF_AGG_WRITING) != KPROF_AGG_EMPTY)
			continue;	/* a nested writer is filling it */

		off = local_add_return(words, &t->pool_used) - words;
		if (off + words > t->pool_size) {
			WRITE_ONCE(e->state, KPROF_AGG_EMPTY);
			return -ENOSPC;
		}
		memcpy(t->pool + off, k->ips, n * sizeof(u64));
		if (k->flags & KPROF_AGG_E_MINMAX) {
			t->pool[off + n] = 0;
			t->pool[off + n + 1] = U64_MAX;
		}
		e->frames = off;
		e->hash = hash;
		e->pid = pid;
		e->event = event;
		e->nr_key = k->nr_key;
		e->flags = k->flags;
		e->nr_kernel = k->nr_kernel;
		e->nr_user = k->nr_user;
		memcpy(e->comm, comm, sizeof(e->comm));
		e->comm[sizeof(e->comm) - 1] = '\0';
		local64_set(&e->count, count);
		atomic64_set(&e->time_ns, 0);
		local_inc(&t->used);
		/* release matches readers' acquire: the entry is complete */
		smp_store_release(&e->state, KPROF_AGG_VALID);
		*found = slot;
		return 1;
	}
	return -ENOSPC;
}

/**
 * kprof_agg_add() - count one sample in this CPU's table
 * @t: this CPU's table
 * @event: event index
 * @pid: process
 * @comm: the task's name
 * @ips: @nr_kernel kernel frames then @nr_user user frames
 * @nr_kernel: kernel frames
 * @nr_user: user frames
 *
 * Context: any, NMI included, on @t's own CPU.  No locks, no allocation,
 * at most KPROF_AGG_PROBES probes.
 * Return: 0 when counted in an existing entry, 1 when counted in a new one;
 * -ENOSPC when the table or its pool is full; -EBUSY while a reset clears
 * the table.
 */
int kprof_agg_add(struct kprof_agg_cpu *t, u16 event, u32 pid, const char *comm,
		  const u64 *ips, u16 nr_kernel, u16 nr_user)
{
	struct kprof_agg_key k = {
		.ips = ips, .nr_kernel = nr_kernel, .nr_user = nr_user,
	};
	u32 slot;

	return kprof_agg_lookup(t, event, pid, comm, &k, true, &slot);
}

/**
 * kprof_agg_intern() - the entry of a key in this CPU's table, uncounted
 * @t: this CPU's table
 * @event: event index
 * @pid: process
 * @comm: the task's name
 * @key: key words and frames
 * @slot: set to the entry's slot, for kprof_agg_add_time()
 *
 * An off-CPU block's stacks (or a lock wait's lock and stack) are taken
 * when it begins; its time is added when it ends, maybe on another CPU.  A
 * new entry counts 0 until then.
 *
 * Context: as kprof_agg_add().
 * Return: as kprof_agg_add().
 */
int kprof_agg_intern(struct kprof_agg_cpu *t, u16 event, u32 pid, const char *comm,
		     const struct kprof_agg_key *key, u32 *slot)
{
	return kprof_agg_lookup(t, event, pid, comm, key, false, slot);
}

/* *@word = max(*@word, @v) (@max) or min, against concurrent updates. */
static void kprof_agg_extreme(u64 *word, u64 v, bool max)
{
	u64 old = READ_ONCE(*word);

	/* each failed exchange means another add moved it towards @v */
	while (max ? v > old : v < old) {
		u64 seen = cmpxchg64(word, old, v);

		if (seen == old)
			break;
		old = seen;
	}
}

/**
 * kprof_agg_add_time() - add a wait's time to an entry of any CPU's table
 * @t: the table the entry is in
 * @slot: the entry's slot, from kprof_agg_intern()
 * @gen: @t->gen when it was interned, its KPROF_AGG_GEN_BITS low bits
 * @ns: the time to add: the wait's, or its part in the entry's interval
 * @whole_ns: with @ended, the whole wait's, for the longest and shortest
 * @ended: the wait ended: count it; else a swap adds its part so far
 *
 * A reset since the entry was interned may have given its slot to another
 * key: then nothing is added.  A reset waits for the calls in flight
 * (@t->remote) before it clears the table, so that none adds to a slot
 * being cleared.
 *
 * Context: any but NMI, on any CPU (the scheduler's switch path).
 * Return: true when added, false when a reset came between.
 */
bool kprof_agg_add_time(struct kprof_agg_cpu *t, u32 slot, u32 gen, u64 ns, u64 whole_ns,
			bool ended)
{
	unsigned long irqflags;
	bool added = false;

	/*
	 * Interrupts off: a reset's IPI landing on this CPU between the inc
	 * and the dec would wait for @remote forever (contention_end runs
	 * with interrupts on).
	 */
	local_irq_save(irqflags);
	atomic_inc(&t->remote);
	/* pairs with the barrier in kprof_agg_reset_cpu(): see it or be seen */
	smp_mb__after_atomic();
	if (!READ_ONCE(t->resetting) && (READ_ONCE(t->gen) & KPROF_AGG_GEN_MASK) == gen) {
		struct kprof_agg_entry *e = &t->entries[slot];

		if (ended)
			atomic64_inc(&e->blocks);
		atomic64_add(ns, &e->time_ns);
		if (ended && (e->flags & KPROF_AGG_E_MINMAX)) {
			u64 *mm = kprof_agg_minmax(t, e);

			kprof_agg_extreme(&mm[0], whole_ns, true);
			kprof_agg_extreme(&mm[1], whole_ns, false);
		}
		added = true;
	}
	/* the adds are done before the reset that waits for @remote sees 0 */
	smp_mb__before_atomic();
	atomic_dec(&t->remote);
	local_irq_restore(irqflags);
	return added;
}

/**
 * kprof_agg_copy_frames() - copy an entry's frames out of any CPU's table
 * @t: the table the entry is in
 * @slot: the entry's slot
 * @gen: @t->gen when it was interned, its KPROF_AGG_GEN_BITS low bits
 * @dst: where to copy its kernel, then user frames
 * @room: words at @dst
 * @nr_kernel: set to its kernel frames
 * @nr_user: set to its user frames
 *
 * Under kprof_agg_add_time()'s handshake with a reset: the entry is read
 * only while its table keeps the generation it was interned in.
 *
 * Context: any but NMI, on any CPU.
 * Return: 0; -EBUSY when a reset came between; -ENOSPC when @room is short.
 */
int kprof_agg_copy_frames(struct kprof_agg_cpu *t, u32 slot, u32 gen, u64 *dst, u32 room,
			  u16 *nr_kernel, u16 *nr_user)
{
	unsigned long irqflags;
	int ret = -EBUSY;

	local_irq_save(irqflags);
	atomic_inc(&t->remote);
	/* pairs with the barrier in kprof_agg_reset_cpu(), as in kprof_agg_add_time() */
	smp_mb__after_atomic();
	if (!READ_ONCE(t->resetting) && (READ_ONCE(t->gen) & KPROF_AGG_GEN_MASK) == gen &&
	    slot < t->nr_entries) {
		const struct kprof_agg_entry *e = kprof_agg_entry_get(t, slot);

		if (e && e->nr_kernel + e->nr_user <= room) {
			memcpy(dst, kprof_agg_frames(t, e),
			       (e->nr_kernel + e->nr_user) * sizeof(u64));
			*nr_kernel = e->nr_kernel;
			*nr_user = e->nr_user;
			ret = 0;
		} else if (e) {
			ret = -ENOSPC;
		}
	}
	/* the copy is done before the reset that waits for @remote sees 0 */
	smp_mb__before_atomic();
	atomic_dec(&t->remote);
	local_irq_restore(irqflags);
	return ret;
}

/* Runs on the table's CPU with interrupts off: no writer but an NMI. */
static void kprof_agg_reset_cpu(void *arg)
{
	struct kprof_agg_cpu *t = arg;
	struct kprof_agg_usage u;

	WRITE_ONCE(t->resetting, 1);
	/* pairs with kprof_agg_add_time(): no add lands in what is cleared */
	smp_mb();
	while (atomic_read(&t->remote))
		cpu_relax();
	kprof_agg_usage(t, &u);
	WRITE_ONCE(t->high, u.high);
	WRITE_ONCE(t->pool_high, u.pool_high);
	memset(t->entries, 0, array_size(t->nr_entries, sizeof(*t->entries)));
	local_set(&t->pool_used, 0);
	local_set(&t->used, 0);
	WRITE_ONCE(t->gen, t->gen + 1);
	/* the new generation is seen before the table is open again */
	smp_wmb();
	WRITE_ONCE(t->resetting, 0);
}

/**
 * kprof_agg_reset() - empty every table being written without stopping the
 * session
 * @agg: the tables
 *
 * Each table is cleared on its own CPU with interrupts disabled, so only an
 * NMI can sample meanwhile; it finds the table resetting and counts its
 * sample as lost (KPROF_LOST_AGG_RESET).  A CPU that is offline has no
 * writer and is cleared from here.  Of a set of two halves, the half
 * being written: a swap's closed half stays as it is.
 *
 * Context: process context; takes cpus_read_lock() to pin CPUs; calls
 * for one set (and kprof_agg_swap()) serialised by its owner.
 */
void kprof_agg_reset(struct kprof_agg *agg)
{
	unsigned int cpu;

	cpus_read_lock();
	for (cpu = 0; cpu < agg->nr_cpus; cpu++) {
		struct kprof_agg_cpu *t = kprof_agg_cpu_of(agg, cpu);

		if (!t)
			continue;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, kprof_agg_reset_cpu, t, 1);
		else
			kprof_agg_reset_cpu(t);
	}
	cpus_read_unlock();
}

/**
 * kprof_agg_swap() - write the other half from now on
 * @agg: a set of two halves, the other half empty (kprof_agg_clear_half())
 *
 * A writer that read the epoch before the store may still add to the
 * half it found: the caller waits for them (synchronize_rcu()) before it
 * reads that half.
 *
 * Context: process context; calls for one set serialised by its owner.
 * Return: the epoch closed; its half is epoch & 1.
 */
u64 kprof_agg_swap(struct kprof_agg *agg)
{
	u64 closed = agg->epoch;

	if (WARN_ON_ONCE(agg->halves != 2))
		return closed;
	/* the other half was emptied before: its entries are seen cleared */
	smp_wmb();
	WRITE_ONCE(agg->epoch, closed + 1);
	return closed;
}

/**
 * kprof_agg_clear_half() - empty every table of a half nobody writes
 * @agg: the set
 * @half: not the half being written, and no writer left in it (the swap
 *	that closed it waited for them)
 *
 * From process context: with no writer there is nothing to wait for but
 * the handshake kprof_agg_reset_cpu() does anyway.  The tables' high-water
 * marks keep what was cleared.
 *
 * Context: process context; calls for one set serialised by its owner.
 */
void kprof_agg_clear_half(struct kprof_agg *agg, unsigned int half)
{
	unsigned int cpu;

	if (WARN_ON_ONCE(half >= agg->halves || half == (agg->epoch & 1)))
		return;
	for (cpu = 0; cpu < agg->nr_cpus; cpu++) {
		struct kprof_agg_cpu *t = kprof_agg_table(agg, half, cpu);

		if (t)
			kprof_agg_reset_cpu(t);
	}
}

/**
 * kprof_agg_cpu_usage() - how full a CPU's tables are, and have been
 * @agg: the set
 * @cpu: a CPU with tables
 * @u: where to store it: the half being written, with the high-water
 *	marks of every half
 */
void kprof_agg_cpu_usage(struct kprof_agg *agg, unsigned int cpu, struct kprof_agg_usage *u)
{
	unsigned int cur = READ_ONCE(agg->epoch) & 1, h;
	struct kprof_agg_usage other;

	memset(u, 0, sizeof(*u));
	if (kprof_agg_table(agg, cur, cpu))
		kprof_agg_usage(kprof_agg_table(agg, cur, cpu), u);
	for (h = 0; h < agg->halves; h++) {
		if (h == cur || !kprof_agg_table(agg, h, cpu))
			continue;
		kprof_agg_usage(kprof_agg_table(agg, h, cpu), &other);
		u->high = max(u->high, other.high);
		u->pool_high = max(u->pool_high, other.pool_high);
	}
}

/**
 * kprof_agg_usage() - how full a table is, and the most it has been
 * @t: the table
 * @u: where to store it
 *
 * The high-water marks cover the table's whole life: a reset folds the
 * occupancy it clears into them, so that intervals read and reset keep
 * the most any of them needed.
 *
 * Context: any; the values are a racy snapshot of a running table.
 */
void kprof_agg_usage(struct kprof_agg_cpu *t, struct kprof_agg_usage *u)
{
	u->used = local_read(&t->used);
	u->capacity = t->nr_entries;
	/* a failed allocation still advanced @pool_used */
	u->pool_used = min_t(unsigned long, local_read(&t->pool_used), t->pool_size);
	u->pool_size = t->pool_size;
	u->high = max_t(u64, READ_ONCE(t->high), u->used);
	u->pool_high = max_t(u64, READ_ONCE(t->pool_high), u->pool_used);
}
