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
 * With KPROF_OFFCPU_F_WAKERS, sched_waking too, for a woken thread with a
 * block open: the waker's chains (current's) and name, as key words, with
 * the blocked chains copied from the block's entry, are interned in the
 * waker's CPU's table; that entry is noted in the block's slot and gets
 * the block's time as well when it ends (offwaketime's view).  The last
 * waker before the block ends is the one kept.
 *
 * The per-thread table of open blocks is wait.c's, one block a thread;
 * the counters are its KPROF_WAIT_OFFCPU ones (struct kprof_cpu_stats,
 * apart from the samples': a session may stream samples and keep off-CPU
 * time).  Each switch-out in the event's states is a block begun, which
 * ends exactly once (wait.h); lost_full when no table entry holds its
 * stacks.
 *
 * Context of the sched_switch probe: the scheduler's, rq lock held,
 * interrupts off; of sched_waking: try_to_wake_up()'s, the woken task's
 * pi_lock held, from any context but NMI.  No locks, no allocation,
 * bounded work.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "agg.h"
#include "compat.h"
#include "guard.h"
#include "internal.h"
#include "ktp.h"
#include "offcpu.h"
#include "procmap.h"
#include "ring.h"
#include "sample.h"
#include "wait.h"

/**
 * struct kprof_offcpu - the off-CPU state of one event
 * @kev: its event
 * @waits: the blocked threads
 * @iter: the sched_switch tracepoint's iterator, skipped in kernel chains
 * @iter_len: its size
 * @waking_iter: the sched_waking tracepoint's iterator
 * @waking_iter_len: its size
 * @registered: the sched_switch probe is attached
 * @waking: the sched_waking probe is attached
 */
struct kprof_offcpu {
	struct kprof_event *kev;
	struct kprof_waits waits;
	unsigned long iter;
	unsigned long iter_len;
	unsigned long waking_iter;
	unsigned long waking_iter_len;
	bool registered;
	bool waking;
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
	struct kprof_agg_cpu *t = kprof_agg_cpu_of(s->agg, ring->cpu);
	local64_t *c = ring->stats.wait[KPROF_WAIT_OFFCPU];
	struct kprof_agg_key key = { };
	u64 *ips = kprof_ring_scratch(ring, level);
	u32 entry;
	int ret;

	local64_inc(&c[KPROF_WAIT_BEGUN]);
	key.ips = ips;
	kprof_count_stack_flags(ring, kprof_chains_here(s, ips, off->iter, off->iter_len, true,
							&key.nr_kernel, &key.nr_user));

	ret = kprof_agg_intern(t, kev->index, task_tgid_nr(prev), prev->comm, &key, &entry);
	if (ret < 0) {
		local64_inc(&c[ret == -EBUSY ? KPROF_WAIT_LOST_RESET : KPROF_WAIT_LOST_FULL]);
		return;
	}
	if (ret > 0 && key.nr_user)
		kprof_procmap_note_pid(s->procmap, task_tgid_nr(prev));
	kprof_wait_begin(&off->waits, &ring->stats, t, entry, prev->pid, 0, now);
}

NOKPROBE_SYMBOL(kprof_offcpu_begin);

/* Current wakes @p, whose block's entry is at @blocked: count the pair. */
static notrace void kprof_offcpu_waker(struct kprof_offcpu *off, struct kprof_ring *ring,
				       struct task_struct *p, u64 blocked, int level)
{
	struct kprof_session *s = off->kev->session;
	struct kprof_agg_cpu *t = kprof_agg_cpu_of(s->agg, ring->cpu), *bt;
	local64_t *c = ring->stats.wait[KPROF_WAIT_WAKER];
	struct kprof_agg_key key = { };
	u64 *ips = kprof_ring_scratch(ring, level);
	u16 nr_kernel, nr_user;
	unsigned int bindex;
	u32 bgen, bslot, entry, n;
	int ret;

	local64_inc(&c[KPROF_WAIT_BEGUN]);
	kprof_wait_where_decode(blocked, &bindex, &bgen, &bslot);
	bt = kprof_agg_table_at(s->agg, bindex);
	if (unlikely(!bt || !t)) {
		local64_inc(&c[KPROF_WAIT_LOST_RESET]);
		return;
	}
	kprof_count_stack_flags(ring, kprof_chains_here(s, ips + KPROF_AGG_WAKER_HDR,
							off->waking_iter, off->waking_iter_len,
							true, &nr_kernel, &nr_user));
	ips[KPROF_AGG_WAKER_PID] = task_tgid_nr(current);
	strscpy_pad((char *)&ips[KPROF_AGG_WAKER_COMM], current->comm, 2 * sizeof(u64));
	ips[KPROF_AGG_WAKER_NR] = nr_kernel | (u32)nr_user << 16;
	n = KPROF_AGG_WAKER_HDR + nr_kernel + nr_user;

	/* the blocked chains, after the waker's */
	ret = kprof_agg_copy_frames(bt, bslot, bgen, ips + n, KPROF_SCRATCH_WORDS - n,
				    &key.nr_kernel, &key.nr_user);
	if (ret) {
		local64_inc(&c[ret == -EBUSY ? KPROF_WAIT_LOST_RESET : KPROF_WAIT_LOST_FULL]);
		return;
	}
	key.ips = ips;
	key.nr_key = n;
	ret = kprof_agg_intern(t, off->kev->index, task_tgid_nr(p), p->comm, &key, &entry);
	if (ret < 0) {
		local64_inc(&c[ret == -EBUSY ? KPROF_WAIT_LOST_RESET : KPROF_WAIT_LOST_FULL]);
		return;
	}
	if (ret > 0 && nr_user)
		kprof_procmap_note_pid(s->procmap, task_tgid_nr(current));
	kprof_wait_note_waker(&off->waits, &ring->stats, p->pid, blocked,
			      kprof_wait_where(t->index, READ_ONCE(t->gen), entry));
}

NOKPROBE_SYMBOL(kprof_offcpu_waker);

static notrace void kprof_offcpu_waking(void *data, struct task_struct *p)
{
	struct kprof_offcpu *off = data;
	struct kprof_session *s = off->kev->session;
	struct kprof_ring *ring;
	u64 blocked;
	int level;

	if (!p->pid)
		return;
	level = kprof_guard_enter();
	if (level < 0) {
		kprof_sample_recursion(off->kev);
		return;
	}
	ring = kprof_ring_of(s->bufs, smp_processor_id());
	if (likely(ring) && kprof_wait_peek(&off->waits, p->pid, &blocked))
		kprof_offcpu_waker(off, ring, p, blocked, level);
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_offcpu_waking);

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
	ring = kprof_session_ring(s);
	if (unlikely(!ring))
		goto out;
	now = ktime_get_mono_fast_ns();
	if (next->pid)
		kprof_wait_end(&off->waits, &ring->stats, next->pid, 0, true, now);
	if (prev->pid && (kprof_offcpu_class(preempt, prev_state) & off->kev->cfg.config) &&
	    ((s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ||
	     kprof_task_followed(s, prev)))
		kprof_offcpu_begin(off, ring, prev, now, level);
out:
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_offcpu_switch);

/**
 * kprof_offcpu_start() - attach an off-CPU event's probe
 * @kev: the event
 * @extack: for error messages
 *
 * Context: process context, the session lock held (session.c).
 * Return: 0, or a negative errno with an extack message.
 */
int kprof_offcpu_start(struct kprof_event *kev, struct netlink_ext_ack *extack)
{
	struct kprof_session *s = kev->session;
	struct kprof_offcpu *off;
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
	ret = kprof_waits_init(&off->waits, s->agg, KPROF_WAIT_OFFCPU, 1, kev->cfg.min_ns,
			       kev->cfg.max_ns);
	if (ret)
		goto out_free;
	off->iter = kprof_ktp_iter(KPROF_KTP_SWITCH, &off->iter_len);

	ret = kprof_ktp_register(KPROF_KTP_SWITCH, kprof_offcpu_switch, off);
	if (ret) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: cannot hook the sched_switch tracepoint");
		goto out_free;
	}
	off->registered = true;

	if (kev->cfg.config & KPROF_OFFCPU_F_WAKERS) {
		off->waits.wakers = true;
		off->waking_iter = kprof_ktp_iter(KPROF_KTP_WAKING, &off->waking_iter_len);
		ret = kprof_ktp_register(KPROF_KTP_WAKING, kprof_offcpu_waking, off);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot hook the sched_waking tracepoint");
			goto out_switch;
		}
		off->waking = true;
	}
	kev->offcpu = off;
	return 0;

out_switch:
	kprof_ktp_unregister(KPROF_KTP_SWITCH, kprof_offcpu_switch, off);
	kprof_ktp_sync();
out_free:
	kprof_waits_free(&off->waits);
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
 * Context: process context, the session lock held (session.c).
 */
void kprof_offcpu_stop(struct kprof_event *kev)
{
	struct kprof_offcpu *off = kev->offcpu;
	struct kprof_session *s = kev->session;
	struct kprof_ring *ring;
	u64 now;

	if (!off || !off->registered)
		return;
	kprof_ktp_unregister(KPROF_KTP_SWITCH, kprof_offcpu_switch, off);
	if (off->waking)
		kprof_ktp_unregister(KPROF_KTP_WAKING, kprof_offcpu_waking, off);
	kprof_ktp_sync();
	off->registered = false;
	off->waking = false;

	now = ktime_get_mono_fast_ns();
	preempt_disable();
	ring = kprof_ring_of(s->bufs, smp_processor_id());
	if (ring)
		kprof_waits_drain(&off->waits, &ring->stats, now);
	preempt_enable();
}

/**
 * kprof_offcpu_waits() - the open blocks of an off-CPU event
 * @kev: any event
 *
 * Return: its table of waits, or NULL (not an off-CPU event, or not started).
 */
struct kprof_waits *kprof_offcpu_waits(struct kprof_event *kev)
{
	return kev->offcpu ? &kev->offcpu->waits : NULL;
}

void kprof_offcpu_free(struct kprof_event *kev)
{
	struct kprof_offcpu *off = kev->offcpu;

	if (!off)
		return;
	kprof_waits_free(&off->waits);
	kfree(off);
	kev->offcpu = NULL;
}
