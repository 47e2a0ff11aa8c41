// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - waits timed per thread; see wait.h.
 *
 * The table is direct-mapped by thread id, 80 bytes a slot, each holding up
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
 * A session read in intervals moves its open waits at each swap
 * (kprof_waits_move(), Documentation/aggregation.rst "Waits across a
 * swap"): the time so far is added to the entry in the half closed and
 * the wait goes on in an entry of the new half.  The mover takes no slot:
 * it swaps a level's entry with cmpxchg() (it fails when the level holds
 * another wait now) and claims the level's time up to the swap by moving
 * its @from_ns with cmpxchg(); whoever ends the wait, or copies the level
 * elsewhere, takes @from_ns with xchg() first.  Each nanosecond of a wait
 * is added once, by whoever moved @from_ns past it.
 *
 * Context of the begin/end paths: any, with a kprof recursion guard held;
 * no locks, no allocation, bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "agg.h"
#include "compat.h"
#include "ring.h"
#include "wait.h"

/* Threads that can wait at once without sharing a slot (5 MiB). */
#define KPROF_WAIT_SLOTS	BIT(16)
#define KPROF_WAIT_BUSY		BIT_ULL(63)
/* a level's @from_ns once its wait is closed or copied elsewhere */
#define KPROF_WAIT_TAKEN	U64_MAX

/**
 * struct kprof_wait_level - one open wait
 * @start_ns: when it began: the filters and the extremes take the whole wait
 * @from_ns: the start of its part not added yet (a swap added the rest)
 * @where: its entry (kprof_wait_where())
 * @tag: what it waits for (a lock's address), matched by its end
 *
 * With @wakers (depth 1), lv[1] is the block's waker instead: @where its
 * entry, @from_ns as the block's, @tag 1 while one is noted.
 */
struct kprof_wait_level {
	u64 start_ns;
	u64 from_ns;
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

static_assert(sizeof(struct kprof_wait_slot) == 80);
/* a slot fits a wait's entry (wait.h) */
static_assert(KPROF_AGG_MAX_ENTRIES <= 1U << KPROF_WAIT_SLOT_BITS);
static_assert(KPROF_AGG_MAX_TABLES <= 1U << (64 - KPROF_WAIT_INDEX_SHIFT));

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
 * @t: the aggregation table the key was interned in
 * @slot: its entry there
 * @tid: the thread
 * @tag: what it waits for, matched by kprof_wait_end()
 * @now: the time
 *
 * The caller counted the wait as begun.  When the thread has @depth waits
 * open already, its innermost is replaced (and counted lost).
 */
void kprof_wait_begin(struct kprof_waits *w, struct kprof_cpu_stats *st,
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
	/* a swap's mover may cmpxchg() these two words of the wait replaced */
	WRITE_ONCE(lv->from_ns, now);
	WRITE_ONCE(lv->where, kprof_wait_where(t->index, READ_ONCE(t->gen), slot));
	lv->tag = tag;
	s->nr = nr + 1;
	/* release: whoever sees the tid sees the slot */
	smp_store_release(&s->tid, tid);
}

NOKPROBE_SYMBOL(kprof_wait_begin);

/*
 * Close a wait of @ns (its whole time) whose part from @from_ns is still
 * to add at @now: add it to its entry when the wait is within the limits.
 * At its end (@at_stop false) the outcome is counted as done, filtered or
 * lost_reset; at stop every wait closed is open.
 */
static void kprof_wait_close(struct kprof_waits *w, local64_t *c, u64 where, u64 ns,
			     u64 from_ns, u64 now, bool at_stop)
{
	unsigned int index;
	struct kprof_agg_cpu *t;
	u32 gen, slot;

	kprof_wait_where_decode(where, &index, &gen, &slot);

	if (ns < w->min_ns || ns > w->max_ns) {
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_FILTERED]);
		return;
	}
	t = kprof_agg_table_at(w->agg, index);
	/* the generation is checked under kprof_agg_add_time()'s handshake with a reset */
	if (t && kprof_agg_add_time(t, slot, gen, now > from_ns ? now - from_ns : 0, ns, true))
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_DONE]);
	else
		local64_inc(&c[at_stop ? KPROF_WAIT_OPEN : KPROF_WAIT_LOST_RESET]);
}

NOKPROBE_SYMBOL(kprof_wait_close);

/*
 * Levels @i..@nr - 1 of a slot held BUSY down one, over level @i - 1,
 * which was closed: each level's @from_ns taken with xchg() before it is
 * copied, so that a swap's mover claims nothing of the copy it left.
 */
static void kprof_wait_shift(struct kprof_wait_slot *s, u64 i, u64 nr)
{
	for (; i < nr; i++) {
		struct kprof_wait_level *to = &s->lv[i - 1], *lv = &s->lv[i];
		u64 from = xchg(&lv->from_ns, KPROF_WAIT_TAKEN);

		to->start_ns = lv->start_ns;
		to->tag = lv->tag;
		WRITE_ONCE(to->where, READ_ONCE(lv->where));
		WRITE_ONCE(to->from_ns, from);
	}
}

NOKPROBE_SYMBOL(kprof_wait_shift);

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
	u64 i, nr, from, where, wfrom = 0, wwhere = 0, start;
	bool waker = false;

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
	/* its time not added yet, taken from a swap's mover, then its entry */
	start = s->lv[i - 1].start_ns;
	from = xchg(&s->lv[i - 1].from_ns, KPROF_WAIT_TAKEN);
	where = READ_ONCE(s->lv[i - 1].where);
	if (w->wakers) {
		if (s->lv[1].tag) {
			waker = true;
			wfrom = xchg(&s->lv[1].from_ns, KPROF_WAIT_TAKEN);
			wwhere = READ_ONCE(s->lv[1].where);
		}
		s->lv[1].tag = 0;
	} else {
		kprof_wait_shift(s, i, nr);
	}
	s->nr = nr - 1;
	/* release: the next writer or reader sees the slot without this wait */
	smp_store_release(&s->tid, nr > 1 ? tid : 0);
	kprof_wait_close(w, st->wait[w->kind], where, now - start, from, now, false);
	if (waker)
		kprof_wait_close(w, st->wait[KPROF_WAIT_WAKER], wwhere, now - start, wfrom, now,
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
					 now - s->lv[j].start_ns, s->lv[j].from_ns, now, true);
		if (w->wakers && s->lv[1].tag) {
			kprof_wait_close(w, st->wait[KPROF_WAIT_WAKER], s->lv[1].where,
					 now - s->lv[0].start_ns, s->lv[1].from_ns, now, true);
			s->lv[1].tag = 0;
		}
	}
}

/*
 * Move one level of a slot whose entry is in the closed table @ot to an
 * entry of @nt (the CPU's table in the half written now); its part before
 * @swap_ns to the old entry, unless the wait is still shorter than the
 * shortest counted (then all of it goes where it ends).  The level's
 * @start_ns as seen by the caller: the wait's, or the block's for a
 * waker.
 */
static void kprof_wait_move_level(struct kprof_waits *w, struct kprof_agg_cpu *ot,
				  struct kprof_agg_cpu *nt, struct kprof_wait_level *lv,
				  u64 start, u64 swap_ns)
{
	u64 where = READ_ONCE(lv->where), from = READ_ONCE(lv->from_ns), moved;
	struct kprof_agg_entry *e;
	struct kprof_agg_key key;
	unsigned int index;
	u32 gen, slot, nslot;

	kprof_wait_where_decode(where, &index, &gen, &slot);
	if (index != ot->index || from == KPROF_WAIT_TAKEN ||
	    gen != (READ_ONCE(ot->gen) & KPROF_AGG_GEN_MASK))
		return;	/* not there, closed, or a reset took its entry */
	if (swap_ns > start && swap_ns - start > w->max_ns)
		return;	/* longer than the longest counted: filtered at its end */
	e = kprof_agg_entry_get(ot, slot);
	if (!e)
		return;
	/* the key as it is in the closed table, which no sample writes now */
	key = (struct kprof_agg_key){
		.ips = kprof_agg_keys(ot, e), .nr_key = e->nr_key,
		.nr_kernel = e->nr_kernel, .nr_user = e->nr_user, .flags = e->flags,
	};
	if (kprof_agg_intern(nt, e->event, e->pid, e->comm, &key, &nslot) < 0)
		return;	/* no room: it ends against the cleared table, lost_reset */
	moved = kprof_wait_where(nt->index, READ_ONCE(nt->gen), nslot);
	if (cmpxchg(&lv->where, where, moved) != where)
		return;	/* it ended, or the level holds another wait now */
	if (swap_ns > from && swap_ns - start >= w->min_ns &&
	    cmpxchg(&lv->from_ns, from, swap_ns) == from)
		kprof_agg_add_time(ot, slot, gen, swap_ns - from, 0, false);
}

NOKPROBE_SYMBOL(kprof_wait_move_level);

/* What a swap's mover does on one CPU (kprof_waits_move()). */
struct kprof_wait_move {
	struct kprof_waits *w;
	unsigned int half;
	unsigned int cpu;
	u64 swap_ns;
};

/* The slots checked between two chances to reschedule. */
#define KPROF_WAIT_MOVE_BATCH	1024

static int kprof_waits_move_cpu(void *arg)
{
	struct kprof_wait_move *m = arg;
	struct kprof_waits *w = m->w;
	struct kprof_agg_cpu *ot = kprof_agg_table(w->agg, m->half, m->cpu);
	struct kprof_agg_cpu *nt = kprof_agg_table(w->agg, m->half ^ 1, m->cpu);
	u32 i, end;

	if (!ot || !nt)
		return 0;
	for (i = 0; i < KPROF_WAIT_SLOTS; i = end) {
		end = i + KPROF_WAIT_MOVE_BATCH;
		/* @nt's CPU: its table's local counters have one writer at a time */
		preempt_disable();
		for (; i < end; i++) {
			struct kprof_wait_slot *s = &w->slots[i];
			u64 tid, j, nr;

			/* acquire: pairs with the release that published the slot */
			tid = smp_load_acquire(&s->tid);
			if (!tid || (tid & KPROF_WAIT_BUSY))
				continue;
			nr = min_t(u64, READ_ONCE(s->nr), w->depth);
			for (j = 0; j < nr; j++)
				kprof_wait_move_level(w, ot, nt, &s->lv[j],
						      READ_ONCE(s->lv[j].start_ns), m->swap_ns);
			if (w->wakers && READ_ONCE(s->lv[1].tag))
				kprof_wait_move_level(w, ot, nt, &s->lv[1],
						      READ_ONCE(s->lv[0].start_ns), m->swap_ns);
		}
		preempt_enable();
		cond_resched();
	}
	return 0;
}

/**
 * kprof_waits_move() - a swap closed a half: move the open waits in it
 * @w: the waits of one event
 * @half: the half closed, no sample writes it any more
 * @swap_ns: the swap's time
 *
 * On each CPU with a table, from that CPU (a CPU that is offline has no
 * writer and is moved from here): each open wait whose entry is in the
 * closed half gets an entry in the CPU's new half, and its time up to
 * @swap_ns goes to the old entry.  A wait that ends meanwhile adds its
 * time to one entry or the other, once; the caller waits for such ends
 * (synchronize_rcu()) before the closed half is read.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 */
void kprof_waits_move(struct kprof_waits *w, unsigned int half, u64 swap_ns)
{
	struct kprof_wait_move m = { .w = w, .half = half, .swap_ns = swap_ns };
	struct kprof_agg *agg = w->agg;

	if (!w->slots || agg->halves != 2)
		return;
	cpus_read_lock();
	for (m.cpu = 0; m.cpu < agg->nr_cpus; m.cpu++) {
		if (!kprof_agg_table(agg, half, m.cpu))
			continue;
		if (!cpu_online(m.cpu) || smp_call_on_cpu(m.cpu, kprof_waits_move_cpu, &m, false))
			kprof_waits_move_cpu(&m);
	}
	cpus_read_unlock();
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
		/* its time is the block's from now on (a swap took the rest) */
		s->lv[1].start_ns = 0;
		WRITE_ONCE(s->lv[1].from_ns, READ_ONCE(s->lv[0].from_ns));
		WRITE_ONCE(s->lv[1].where, where);
		s->lv[1].tag = 1;
	}
	/* release: the slot as it was, with the waker */
	smp_store_release(&s->tid, tid);
}

NOKPROBE_SYMBOL(kprof_wait_note_waker);
