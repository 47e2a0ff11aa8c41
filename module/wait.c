// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - waits timed per thread; see wait.h.
 *
 * The table is direct-mapped by thread id, 64 bytes a slot, each holding up
 * to @depth open waits of its thread (an off-CPU block: one; lock waits:
 * a mutex and, inside its slow path, its wait_lock).  A slot's @tid word
 * is its lock: whoever changes the slot (the thread beginning a wait, or
 * the one ending it, maybe on another CPU) swaps it from the tid it
 * expects to KPROF_WAIT_BUSY, changes the slot and publishes the tid (or 0
 * when no wait is left) with a release.  The only other writer of a slot
 * is a thread whose id shares it: the later wait replaces the earlier
 * ones, which are counted lost; one that finds the slot busy counts its
 * own wait lost.  Nothing spins.
 *
 * Each wait begun ends exactly once: KPROF_WAIT_DONE (time added),
 * _FILTERED (outside [min_ns, max_ns]), _LOST, _LOST_FULL (counted by the
 * caller, which found no table entry), _LOST_RESET (the entry's table was
 * reset meanwhile: its slot may hold another key now), or _OPEN (closed
 * when the session stopped).
 *
 * Context of the begin/end paths: any, with a kprof recursion guard held;
 * no locks, no allocation, bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "agg.h"
#include "compat.h"
#include "ring.h"
#include "wait.h"

/* Threads that can wait at once without sharing a slot (4 MiB). */
#define KPROF_WAIT_SLOTS	BIT(16)
#define KPROF_WAIT_BUSY		BIT_ULL(63)

/**
 * struct kprof_wait_level - one open wait
 * @start_ns: when it began
 * @where: its entry: cpu << 48 | (table generation & 0xffff) << 32 | slot
 * @tag: what it waits for (a lock's address), matched by its end
 *
 * With @wakers (depth 1), lv[1] is the block's waker instead: @where its
 * entry, @tag 1 while one is noted.
 */
struct kprof_wait_level {
	u64 start_ns;
	u64 where;
	u64 tag;
};

/**
 * struct kprof_wait_slot - the open waits of one thread
 * @tid: its id; 0 when free; KPROF_WAIT_BUSY while being changed
 * @nr: open waits at @lv, innermost last
 * @lv: the waits
 */
struct kprof_wait_slot {
	u64 tid;
	u64 nr;
	struct kprof_wait_level lv[KPROF_WAIT_DEPTH];
};

static_assert(sizeof(struct kprof_wait_slot) == 64);

/**
 * kprof_waits_init() - allocate the table of one event's waits
 * @w: the table
 * @agg: the session's aggregation tables
 * @kind: whose counters
 * @depth: waits a thread may have open at once
 * @min_ns: the shortest wait counted
 * @max_ns: the longest
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int kprof_waits_init(struct kprof_waits *w, struct kprof_agg *agg, enum kprof_wait_kind kind,
		     unsigned int depth, u64 min_ns, u64 max_ns)
{
	w->agg = agg;
	w->kind = kind;
	w->depth = clamp(depth, 1U, (unsigned int)KPROF_WAIT_DEPTH);
	w->wakers = false;
	w->min_ns = min_ns;
	w->max_ns = max_ns;
	w->slots = kvcalloc(KPROF_WAIT_SLOTS, sizeof(*w->slots), KPROF_GFP);
	return w->slots ? 0 : -ENOMEM;
}

/**
 * kprof_waits_bytes() - the memory kprof_waits_init() takes
 *
 * Return: the bytes of one event's wait slots.
 */
u64 kprof_waits_bytes(void)
{
	return (u64)KPROF_WAIT_SLOTS * sizeof(struct kprof_wait_slot);
}

void kprof_waits_free(struct kprof_waits *w)
{
	kvfree(w->slots);
	w->slots = NULL;
}

static __always_inline struct kprof_wait_slot *kprof_wait_slot(struct kprof_waits *w, u32 tid)
{
	return &w->slots[tid & (KPROF_WAIT_SLOTS - 1)];
}

/**
 * kprof_wait_open() - does a thread wait for @tag already?
 * @w: the table
 * @tid: the thread, current
 * @tag: what it would wait for
 *
 * A mutex's slow path begins a contention twice (spinning, then
 * sleeping) for one end: the second begin is the same wait.
 *
 * Context: the thread itself, as kprof_wait_begin().
 */
bool kprof_wait_open(struct kprof_waits *w, u32 tid, u64 tag)
{
	struct kprof_wait_slot *slot = kprof_wait_slot(w, tid);
	u64 i, nr;

	/* acquire: pairs with the release that published the slot */
	if (smp_load_acquire(&slot->tid) != tid)
		return false;
	nr = min_t(u64, READ_ONCE(slot->nr), KPROF_WAIT_DEPTH);
	for (i = 0; i < nr; i++)
		if (READ_ONCE(slot->lv[i].tag) == tag)
			break;
	if (i == nr)
		return false;
	/*
	 * Still ours after the read: a thread sharing the slot that took it
	 * meanwhile (and whose tag we may have read) made the tid its own or
	 * busy first.  Then the wait is begun, and counted lost there.
	 */
	smp_rmb();
	return READ_ONCE(slot->tid) == tid;
}

NOKPROBE_SYMBOL(kprof_wait_open);

/**
 * kprof_wait_begin() - a thread begins a wait whose key is interned
 * @w: the table
 * @st: this CPU's counters
 * @cpu: the CPU of the table @t
 * @t: the aggregation table the key was interned in
 * @slot: its entry there
 * @tid: the thread
 * @tag: what it waits for, matched by kprof_wait_end()
 * @now: the time
 *
 * The caller counted the wait as begun.  When the thread has @depth waits
 * open already, its innermost is replaced (and counted lost).
 */
void kprof_wait_begin(struct kprof_waits *w, struct kprof_cpu_stats *st, unsigned int cpu,
		      struct kprof_agg_cpu *t, u32 slot, u32 tid, u64 tag, u64 now)
{
	local64_t *c = st->wait[w->kind];
	struct kprof_wait_slot *s = kprof_wait_slot(w, tid);
	struct kprof_wait_level *lv;
	u64 old, nr;

	old = READ_ONCE(s->tid);
	if ((old & KPROF_WAIT_BUSY) || cmpxchg(&s->tid, old, KPROF_WAIT_BUSY) != old) {
		/* a thread sharing the slot changes it right now */
		local64_inc(&c[KPROF_WAIT_LOST]);
		return;
	}
	nr = old ? min_t(u64, s->nr, w->depth) : 0;
	if (old != tid && nr) {
		/* another thread's waits (or stale ones of ours): lost */
		local64_add(nr, &c[KPROF_WAIT_LOST]);
		nr = 0;
	} else if (nr == w->depth) {
		local64_inc(&c[KPROF_WAIT_LOST]);
		nr--;
	}
	if (w->wakers && s->lv[1].tag) {
		/* the waker of a block that was replaced (or never ended) */
		local64_inc(&st->wait[KPROF_WAIT_WAKER][KPROF_WAIT_LOST]);
		s->lv[1].tag = 0;
	}
	lv = &s->lv[nr];
	lv->start_ns = now;
	lv->where = kprof_wait_where(cpu, READ_ONCE(t->gen), slot);
	lv->tag = tag;
	s->nr = nr + 1;
	/* release: whoever sees the tid sees the slot */
	smp_store_release(&s->tid, tid);
}

NOKPROBE_SYMBOL(kprof_wait_begin);

/*
 * Close a wait of @ns: add it to its entry when within the limits.  At its
 * end (@at_stop false) the outcome is counted as done, filtered or
 * lost_reset; at stop every wait closed is open.
 */
static void kprof_wait_close(struct kprof_waits *w, local64_t *c, u64 where, u64 ns,
			     bool at_stop)
{
	unsigned int cpu;
	u32 kept_gen, slot;
	struct kprof_agg_cpu *t;
	u32 gen;

	kprof_wait_where_decode(where, &cpu, &kept_gen, &slot);

	if (ns < w->min_ns || ns > w->max_ns) {
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_FILTERED]);
		return;
	}
	t = kprof_agg_cpu_of(w->agg, cpu);
	gen = t ? READ_ONCE(t->gen) : 0;
	/* the generation as kept (its low 16 bits), then exactly, under the handshake */
	if (t && (gen & 0xffff) == kept_gen && kprof_agg_add_time(t, slot, gen, ns))
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_DONE]);
	else
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_LOST_RESET]);
}

NOKPROBE_SYMBOL(kprof_wait_close);

/**
 * kprof_wait_end() - a thread's wait ends: add its time
 * @w: the table
 * @st: this CPU's counters
 * @tid: the thread
 * @tag: what it waited for
 * @any: end its innermost wait, whatever its tag
 * @now: the time
 *
 * Nothing happens when the thread has no such wait open (it began before
 * the session, or it was counted lost).
 */
void kprof_wait_end(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid, u64 tag,
		    bool any, u64 now)
{
	struct kprof_wait_slot *s = kprof_wait_slot(w, tid);
	struct kprof_wait_level lv, waker = { };
	u64 i, nr;

	/* acquire: pairs with the writer's release of the tid */
	if (smp_load_acquire(&s->tid) != tid)
		return;
	/* ours only if no thread sharing the slot took it meanwhile */
	if (cmpxchg(&s->tid, tid, KPROF_WAIT_BUSY) != tid)
		return;
	nr = min_t(u64, s->nr, w->depth);
	for (i = nr; i > 0; i--)
		if (any || s->lv[i - 1].tag == tag)
			break;
	if (!i) {
		/* release: the slot as it was, published again */
		smp_store_release(&s->tid, nr ? tid : 0);
		return;
	}
	lv = s->lv[i - 1];
	if (w->wakers) {
		waker = s->lv[1];
		s->lv[1].tag = 0;
	} else {
		for (; i < nr; i++)
			s->lv[i - 1] = s->lv[i];
	}
	s->nr = nr - 1;
	/* release: the next writer or reader sees the slot without this wait */
	smp_store_release(&s->tid, nr > 1 ? tid : 0);
	kprof_wait_close(w, st->wait[w->kind], lv.where, now - lv.start_ns, false);
	if (waker.tag)
		kprof_wait_close(w, st->wait[KPROF_WAIT_WAKER], waker.where, now - lv.start_ns,
				 false);
}

NOKPROBE_SYMBOL(kprof_wait_end);

/**
 * kprof_waits_drain() - close every wait still open
 * @w: the table
 * @st: the counters to count them in (KPROF_WAIT_OPEN)
 * @now: the time
 *
 * Context: the probes are detached and no CPU runs them any more.
 */
void kprof_waits_drain(struct kprof_waits *w, struct kprof_cpu_stats *st, u64 now)
{
	u32 i;

	for (i = 0; w->slots && i < KPROF_WAIT_SLOTS; i++) {
		struct kprof_wait_slot *s = &w->slots[i];
		u64 tid = xchg(&s->tid, 0), j, nr;

		if (!tid || (tid & KPROF_WAIT_BUSY))
			continue;
		nr = min_t(u64, s->nr, w->depth);
		for (j = 0; j < nr; j++)
			kprof_wait_close(w, st->wait[w->kind], s->lv[j].where,
					 now - s->lv[j].start_ns, true);
		if (w->wakers && s->lv[1].tag) {
			kprof_wait_close(w, st->wait[KPROF_WAIT_WAKER], s->lv[1].where,
					 now - s->lv[0].start_ns, true);
			s->lv[1].tag = 0;
		}
	}
}

/**
 * kprof_wait_peek() - the entry of a thread's open block
 * @w: the table, of depth 1
 * @tid: the thread, blocked
 * @where: set to the entry's place (kprof_wait_where_decode())
 *
 * Read without taking the slot: kprof_wait_note_waker() checks later
 * that the block is still the one seen here.
 *
 * Context: any, as kprof_wait_begin().
 * Return: true when @tid has a block open.
 */
bool kprof_wait_peek(struct kprof_waits *w, u32 tid, u64 *where)
{
	struct kprof_wait_slot *s = kprof_wait_slot(w, tid);

	/* acquire: pairs with the release that published the slot */
	if (smp_load_acquire(&s->tid) != tid || !READ_ONCE(s->nr))
		return false;
	*where = READ_ONCE(s->lv[0].where);
	/* still ours after the read, as in kprof_wait_open() */
	smp_rmb();
	return READ_ONCE(s->tid) == tid;
}

NOKPROBE_SYMBOL(kprof_wait_peek);

/**
 * kprof_wait_note_waker() - note who woke a thread's open block
 * @w: the table, with wakers
 * @st: this CPU's counters
 * @tid: the thread woken
 * @blocked: its block's entry as kprof_wait_peek() saw it
 * @where: the waker's entry (kprof_wait_where())
 *
 * The caller counted the waker (KPROF_WAIT_WAKER's BEGUN).  It is lost
 * when the slot is busy or holds another block now; a waker noted before
 * on the same block (a second wakeup) is replaced, and counted lost.
 */
void kprof_wait_note_waker(struct kprof_waits *w, struct kprof_cpu_stats *st, u32 tid,
			   u64 blocked, u64 where)
{
	local64_t *c = st->wait[KPROF_WAIT_WAKER];
	struct kprof_wait_slot *s = kprof_wait_slot(w, tid);

	if (READ_ONCE(s->tid) != tid || cmpxchg(&s->tid, tid, KPROF_WAIT_BUSY) != tid) {
		local64_inc(&c[KPROF_WAIT_LOST]);
		return;
	}
	if (s->nr != 1 || s->lv[0].where != blocked) {
		local64_inc(&c[KPROF_WAIT_LOST]);
	} else {
		if (s->lv[1].tag)
			local64_inc(&c[KPROF_WAIT_LOST]);
		s->lv[1].where = where;
		s->lv[1].start_ns = 0;
		s->lv[1].tag = 1;
	}
	/* release: the slot as it was, with the waker */
	smp_store_release(&s->tid, tid);
}

NOKPROBE_SYMBOL(kprof_wait_note_waker);
