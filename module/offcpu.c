// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - off-CPU time (KPROF_TYPE_OFFCPU): where tasks wait, by stack.
 *
 * sched_switch, for @prev (which is current there): when it leaves the CPU
 * in one of the event's states, its kernel chain (from the probe's caller,
 * __schedule()) and user chain (from its user registers) are counted into
 * the CPU's aggregation table (kprof_agg_intern(): the same engine, keys
 * and readers as the samples), and the time and the entry are noted in the
 * per-thread table below.  For @next: its note is taken back and the time
 * it was away is added to that entry (kprof_agg_add_time()), from whichever
 * CPU it runs on now, when it lies within [min_ns, max_ns].
 *
 * The per-thread table is direct-mapped by thread id, 32 bytes a slot.  A
 * slot's @tid word is its lock: a writer (the thread blocking) swaps it to
 * KPROF_OFFCPU_BUSY, fills the slot and publishes its tid with a release;
 * the reader (the thread's next switch-in) reads the slot after an acquire
 * of its tid and owns what it read only if its cmpxchg of the tid back to 0
 * succeeds.  The only other writer of a slot is a thread whose id shares
 * it: the later block replaces the earlier, which is counted lost.
 *
 * Counters (per CPU, struct kprof_cpu_stats), apart from the samples'
 * (a session may stream samples and keep off-CPU time): each switch-out in
 * the event's states is an offcpu_block, which ends exactly once:
 * offcpu_done (time added), offcpu_filtered (outside [min_ns, max_ns]),
 * offcpu_lost (a thread sharing its slot replaced it), offcpu_lost_full (no
 * table entry for its stacks), offcpu_lost_reset (the tables were reset
 * when it began or while it lasted), or offcpu_open (still blocked when the
 * session stops: closed then, its time so far added when within limits).
 *
 * Context of both probes: the scheduler's, rq lock held, interrupts off.
 * No locks, no allocation, bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "agg.h"
#include "compat.h"
#include "guard.h"
#include "ktp.h"
#include "offcpu.h"
#include "sample.h"
#include "session.h"
#include "sideband.h"

/* Threads that can be off the CPU at once without sharing a slot (2 MiB). */
#define KPROF_OFFCPU_SLOTS	BIT(16)
#define KPROF_OFFCPU_BUSY	BIT_ULL(63)

/* where: the entry of the block's stacks */
#define KPROF_OFFCPU_CPU_SHIFT	48
#define KPROF_OFFCPU_GEN_SHIFT	32

/**
 * struct kprof_offcpu_slot - one blocked thread
 * @tid: its id; 0 when free; KPROF_OFFCPU_BUSY while being written
 * @start_ns: when it left the CPU
 * @where: its entry: cpu << 48 | (table generation & 0xffff) << 32 | slot
 * @__pad: to 32 bytes
 */
struct kprof_offcpu_slot {
	u64 tid;
	u64 start_ns;
	u64 where;
	u64 __pad;
};

/**
 * struct kprof_offcpu - the off-CPU state of one event
 * @kev: its event
 * @slots: the blocked threads
 * @iter: the sched_switch tracepoint's iterator, skipped in kernel chains
 * @iter_len: its size
 * @registered: the probe is attached
 */
struct kprof_offcpu {
	struct kprof_event *kev;
	struct kprof_offcpu_slot *slots;
	unsigned long iter;
	unsigned long iter_len;
	bool registered;
};

/* The KPROF_OFFCPU_F_* class of a switch-out; 0 for one that never returns. */
static __always_inline u32 kprof_offcpu_class(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return KPROF_OFFCPU_F_R;
	if (state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))
		return 0;
	if (state & TASK_INTERRUPTIBLE)
		return KPROF_OFFCPU_F_S;
	/* PREEMPT_RT: a sleeping spinlock's wait is an uninterruptible one */
	if (state & (TASK_UNINTERRUPTIBLE | TASK_RTLOCK_WAIT))
		return KPROF_OFFCPU_F_D;
	return KPROF_OFFCPU_F_T;
}

/* @prev leaves the CPU in a wanted state: keep its stacks and the time. */
static notrace void kprof_offcpu_begin(struct kprof_offcpu *off, struct kprof_ring *ring,
				       struct task_struct *prev, u64 now, int level)
{
	struct kprof_event *kev = off->kev;
	struct kprof_session *s = kev->session;
	struct kprof_agg_cpu *t = s->agg->cpus[ring->cpu];
	struct kprof_offcpu_slot *slot;
	u16 nr_kernel, nr_user, flags;
	u64 *ips, old;
	u32 entry;
	int ret;

	local64_inc(&ring->stats.offcpu_blocks);
	ips = kprof_ring_scratch(ring, level);
	flags = kprof_chains_here(s, ips, off->iter, off->iter_len, &nr_kernel, &nr_user);
	if (flags & KPROF_SAMPLE_F_KSTACK_TRUNC)
		local64_inc(&ring->stats.kstack_trunc);
	if (flags & KPROF_SAMPLE_F_USTACK_TRUNC)
		local64_inc(&ring->stats.ustack_trunc);
	if (flags & KPROF_SAMPLE_F_USTACK_FAULT)
		local64_inc(&ring->stats.ustack_fault);

	ret = kprof_agg_intern(t, kev->index, task_tgid_nr(prev), prev->comm, ips, nr_kernel,
			       nr_user, &entry);
	if (ret < 0) {
		local64_inc(ret == -EBUSY ? &ring->stats.offcpu_lost_reset :
					    &ring->stats.offcpu_lost_full);
		return;
	}
	if (ret > 0 && nr_user)
		kprof_procmap_note_pid(s->procmap, task_tgid_nr(prev));

	slot = &off->slots[prev->pid & (KPROF_OFFCPU_SLOTS - 1)];
	old = READ_ONCE(slot->tid);
	if ((old & KPROF_OFFCPU_BUSY) || cmpxchg(&slot->tid, old, KPROF_OFFCPU_BUSY) != old) {
		/* a thread sharing the slot is writing it right now */
		local64_inc(&ring->stats.offcpu_lost);
		return;
	}
	if (old)	/* another thread's block (or a stale one of ours): lost */
		local64_inc(&ring->stats.offcpu_lost);
	slot->start_ns = now;
	slot->where = (u64)ring->cpu << KPROF_OFFCPU_CPU_SHIFT |
		      (u64)(READ_ONCE(t->gen) & 0xffff) << KPROF_OFFCPU_GEN_SHIFT | entry;
	/* release: the reader that sees the tid sees the slot */
	smp_store_release(&slot->tid, prev->pid);
}

NOKPROBE_SYMBOL(kprof_offcpu_begin);

/*
 * Close a block of @ns: add it to its entry when within the limits.  At a
 * switch-in (@at_stop false) the outcome is counted as offcpu_done,
 * offcpu_filtered or offcpu_lost_reset; at stop every block closed is
 * offcpu_open.
 */
static notrace void kprof_offcpu_close(struct kprof_offcpu *off, struct kprof_ring *ring,
				       u64 where, u64 ns, bool at_stop)
{
	struct kprof_session *s = off->kev->session;
	unsigned int cpu = where >> KPROF_OFFCPU_CPU_SHIFT;
	u32 kept_gen = (where >> KPROF_OFFCPU_GEN_SHIFT) & 0xffff;
	struct kprof_cpu_stats *st = &ring->stats;
	struct kprof_agg_cpu *t;
	u32 gen;

	if (ns < off->kev->cfg.min_ns || ns > off->kev->cfg.max_ns) {
		local64_inc(at_stop ? &st->offcpu_open : &st->offcpu_filtered);
		return;
	}
	t = cpu < s->agg->nr_cpus ? s->agg->cpus[cpu] : NULL;
	gen = t ? READ_ONCE(t->gen) : 0;
	/* the generation as kept (its low 16 bits), then exactly, under the handshake */
	if (t && (gen & 0xffff) == kept_gen && kprof_agg_add_time(t, (u32)where, gen, ns))
		local64_inc(at_stop ? &st->offcpu_open : &st->offcpu_done);
	else
		local64_inc(at_stop ? &st->offcpu_open : &st->offcpu_lost_reset);
}

NOKPROBE_SYMBOL(kprof_offcpu_close);

/* @next is about to run: end its block, if it has one. */
static notrace void kprof_offcpu_end(struct kprof_offcpu *off, struct kprof_ring *ring,
				     struct task_struct *next, u64 now)
{
	struct kprof_offcpu_slot *slot = &off->slots[next->pid & (KPROF_OFFCPU_SLOTS - 1)];
	u64 start, where;

	/* acquire: pairs with the writer's release of the tid */
	if (smp_load_acquire(&slot->tid) != next->pid)
		return;
	start = READ_ONCE(slot->start_ns);
	where = READ_ONCE(slot->where);
	/* ours only if no writer took the slot meanwhile (it counted us lost) */
	if (cmpxchg(&slot->tid, next->pid, 0) != next->pid)
		return;
	kprof_offcpu_close(off, ring, where, now - start, false);
}

NOKPROBE_SYMBOL(kprof_offcpu_end);

static notrace void kprof_offcpu_switch(void *data, bool preempt, struct task_struct *prev,
					struct task_struct *next, unsigned int prev_state)
{
	struct kprof_offcpu *off = data;
	struct kprof_session *s = off->kev->session;
	struct kprof_ring *ring;
	int level;
	u64 now;

	level = kprof_guard_enter();
	if (level < 0) {
		/* counted as a hit refused inside kprof (lost_recursion) */
		kprof_sample_recursion(off->kev);
		return;
	}
	ring = s->bufs->rings[smp_processor_id()];
	if (unlikely(!ring))
		goto out;
	now = ktime_get_mono_fast_ns();
	if (next->pid)
		kprof_offcpu_end(off, ring, next, now);
	if (prev->pid && (kprof_offcpu_class(preempt, prev_state) & off->kev->cfg.config) &&
	    ((s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ||
	     kprof_pidset_has(s, task_tgid_nr(prev))))
		kprof_offcpu_begin(off, ring, prev, now, level);
out:
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_offcpu_switch);

/* The size of the function at @addr, from kallsyms ("name+0x0/0x50"). */
static unsigned long kprof_offcpu_func_len(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long len = 0;
	const char *slash;

	sprint_symbol(buf, addr);
	slash = strchr(buf, '/');
	if (!slash || sscanf(slash + 1, "%lx", &len) != 1)
		return 0;
	return len;
}

/**
 * kprof_offcpu_start() - attach an off-CPU event's probe
 * @kev: the event
 * @extack: for error messages
 *
 * Context: process context, kprof_core.lock held.
 * Return: 0, or a negative errno with an extack message.
 */
int kprof_offcpu_start(struct kprof_event *kev, struct netlink_ext_ack *extack)
{
	struct kprof_session *s = kev->session;
	struct kprof_offcpu *off;
	struct tracepoint *tp;
	int ret;

	/* the session allocated them for us when it does not aggregate */
	if (WARN_ON_ONCE(!s->agg || !s->procmap))
		return -EINVAL;
	if ((s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) &&
	    !cpumask_equal(s->cfg.cpus, cpu_possible_mask)) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: off-CPU time follows threads across CPUs: take every CPU or processes");
		return -EINVAL;
	}
	off = kzalloc(sizeof(*off), KPROF_GFP);
	if (!off)
		return -ENOMEM;
	off->kev = kev;
	off->slots = kvcalloc(KPROF_OFFCPU_SLOTS, sizeof(*off->slots), KPROF_GFP);
	if (!off->slots) {
		ret = -ENOMEM;
		goto out_free;
	}
	tp = kprof_ktp(KPROF_KTP_SWITCH);
	off->iter = (unsigned long)tp->iterator;
	off->iter_len = kprof_offcpu_func_len(off->iter);

	ret = kprof_ktp_register(KPROF_KTP_SWITCH, kprof_offcpu_switch, off);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: cannot hook the sched_switch tracepoint");
		goto out_free;
	}
	off->registered = true;
	kev->offcpu = off;
	return 0;

out_free:
	kvfree(off->slots);
	kfree(off);
	return ret;
}

/**
 * kprof_offcpu_stop() - detach the probe and close the blocks still open
 * @kev: the event
 *
 * Each thread still off the CPU has its block closed now: counted as
 * offcpu_open, its time so far added when within the event's limits.
 *
 * Context: process context, kprof_core.lock held.
 */
void kprof_offcpu_stop(struct kprof_event *kev)
{
	struct kprof_offcpu *off = kev->offcpu;
	struct kprof_session *s = kev->session;
	struct kprof_ring *ring;
	u32 i;
	u64 now;

	if (!off || !off->registered)
		return;
	kprof_ktp_unregister(KPROF_KTP_SWITCH, kprof_offcpu_switch, off);
	kprof_ktp_sync();
	off->registered = false;

	now = ktime_get_mono_fast_ns();
	preempt_disable();
	ring = s->bufs->rings[smp_processor_id()];
	for (i = 0; ring && i < KPROF_OFFCPU_SLOTS; i++) {
		struct kprof_offcpu_slot *slot = &off->slots[i];
		u64 tid = xchg(&slot->tid, 0);

		if (!tid || (tid & KPROF_OFFCPU_BUSY))
			continue;
		kprof_offcpu_close(off, ring, slot->where, now - slot->start_ns, true);
	}
	preempt_enable();
}

void kprof_offcpu_free(struct kprof_event *kev)
{
	struct kprof_offcpu *off = kev->offcpu;

	if (!off)
		return;
	kvfree(off->slots);
	kfree(off);
	kev->offcpu = NULL;
}
