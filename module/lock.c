// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - lock contention (KPROF_TYPE_LOCK): who waits for which lock,
 * from where, how long.
 *
 * The kernel's lock:contention_begin and contention_end tracepoints fire in
 * the slow paths of its locks only (queued spinlocks and rwlocks, mutexes,
 * rwsems, rt_mutexes, per-CPU rwsems, semaphores), with or without
 * lockdep.  At a begin, the waiter's kernel chain (from the lock function
 * that called the tracepoint; kprof's frames and the tracepoint's iterator
 * left out) is interned in the CPU's aggregation table with the lock's
 * address and type as key words, keyed by thread (kprof_agg_intern()), and
 * the wait is opened in the per-thread table (wait.c, KPROF_WAIT_LOCK
 * counters).  At the end its time is added to that entry, with the
 * longest and shortest wait, from whichever CPU the thread runs on then.
 *
 * A mutex's slow path begins twice (spinning, then sleeping) for one end:
 * a begin for a lock the thread already waits for is the same wait.  A
 * wait inside another (a mutex's wait_lock inside the mutex's slow path)
 * is a wait of its own: a thread keeps two open.
 *
 * Context: the lock's slow path, which may be anywhere, interrupts off and
 * other locks held included (a probe here may run while the CPU contends
 * a runqueue lock).  The probes take no lock of any kind, allocate
 * nothing, do bounded work, and are guarded: a probe hit inside kprof's
 * own path is counted as lost_recursion, never through itself.  Waits in
 * NMI are counted and lost (kprof_agg_add_time() is not NMI-safe).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>

#include "agg.h"
#include "compat.h"
#include "guard.h"
#include "internal.h"
#include "ktp.h"
#include "lock.h"
#include "sample.h"
#include "wait.h"

/**
 * struct kprof_lock - the lock contention state of one event
 * @kev: its event
 * @waits: the threads waiting
 * @iter: contention_begin's iterator, skipped in kernel chains
 * @iter_len: its size
 * @registered: the probes are attached
 */
struct kprof_lock {
	struct kprof_event *kev;
	struct kprof_waits waits;
	unsigned long iter;
	unsigned long iter_len;
	bool registered;
};

/* Does the session follow this task? */
static __always_inline bool kprof_lock_wanted(struct kprof_session *s, struct task_struct *task)
{
	return task->pid && ((s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ||
			     kprof_task_followed(s, task));
}

static notrace void kprof_lock_begin(void *data, void *lock, unsigned int flags)
{
	struct kprof_lock *lk = data;
	struct kprof_event *kev = lk->kev;
	struct kprof_session *s = kev->session;
	struct task_struct *task = current;
	struct kprof_agg_key key = { };
	struct kprof_agg_cpu *t;
	struct kprof_ring *ring;
	local64_t *c;
	u64 now, *ips;
	u32 entry;
	int level, ret;

	level = kprof_guard_enter();
	if (level < 0) {
		/* counted as a hit refused inside kprof (lost_recursion) */
		kprof_sample_recursion(kev);
		return;
	}
	now = ktime_get_mono_fast_ns();
	if (!kprof_lock_wanted(s, task))
		goto out;
	ring = kprof_session_ring(s);
	if (unlikely(!ring) || kprof_wait_open(&lk->waits, task->pid, (unsigned long)lock))
		goto out;
	c = ring->stats.wait[KPROF_WAIT_LOCK];
	local64_inc(&c[KPROF_WAIT_BEGUN]);
	if (unlikely(in_nmi())) {
		local64_inc(&c[KPROF_WAIT_LOST]);
		goto out;
	}

	ips = kprof_ring_scratch(ring, level);
	ips[0] = (unsigned long)lock;
	ips[1] = flags;
	key.ips = ips;
	key.nr_key = 2;
	key.flags = KPROF_AGG_E_MINMAX;
	kprof_count_stack_flags(ring, kprof_chains_here(s, ips + 2, lk->iter, lk->iter_len,
							false, &key.nr_kernel,
							&key.nr_user));
	t = kprof_agg_cpu_of(s->agg, ring->cpu);
	ret = kprof_agg_intern(t, kev->index, task->pid, task->comm, &key, &entry);
	if (ret < 0) {
		local64_inc(&c[ret == -EBUSY ? KPROF_WAIT_LOST_RESET : KPROF_WAIT_LOST_FULL]);
		goto out;
	}
	kprof_wait_begin(&lk->waits, &ring->stats, t, entry, task->pid,
			 (unsigned long)lock, now);
out:
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_lock_begin);

static notrace void kprof_lock_end(void *data, void *lock, int ret)
{
	struct kprof_lock *lk = data;
	struct kprof_event *kev = lk->kev;
	struct kprof_ring *ring;
	int level;

	level = kprof_guard_enter();
	if (level < 0) {
		kprof_sample_recursion(kev);
		return;
	}
	ring = kprof_ring_of(kev->session->bufs, smp_processor_id());
	if (likely(ring) && current->pid)
		kprof_wait_end(&lk->waits, &ring->stats, current->pid, (unsigned long)lock,
			       false, ktime_get_mono_fast_ns());
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_lock_end);

/**
 * kprof_lock_start() - attach a lock event's probes
 * @kev: the event
 * @extack: for error messages
 *
 * Context: process context, the session lock held (session.c).
 * Return: 0, or a negative errno with an extack message.
 */
int kprof_lock_start(struct kprof_event *kev, struct netlink_ext_ack *extack)
{
	struct kprof_session *s = kev->session;
	struct kprof_lock *lk;
	int ret;

	/* the session allocated them for us when it does not aggregate */
	if (WARN_ON_ONCE(!s->agg))
		return -EINVAL;
	if (!kprof_ktp(KPROF_KTP_CONTENTION_BEGIN) || !kprof_ktp(KPROF_KTP_CONTENTION_END)) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: this kernel has no lock:contention_begin/end tracepoints (5.19 and later)");
		return -EOPNOTSUPP;
	}
	if ((s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) &&
	    !cpumask_equal(s->cfg.cpus, cpu_possible_mask)) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: lock waits follow threads across CPUs: take every CPU or processes");
		return -EINVAL;
	}
	lk = kzalloc(sizeof(*lk), KPROF_GFP);
	if (!lk)
		return -ENOMEM;
	lk->kev = kev;
	ret = kprof_waits_init(&lk->waits, s->agg, KPROF_WAIT_LOCK, KPROF_WAIT_DEPTH,
			       kev->cfg.min_ns, kev->cfg.max_ns);
	if (ret)
		goto out_free;
	lk->iter = kprof_ktp_iter(KPROF_KTP_CONTENTION_BEGIN, &lk->iter_len);

	/* the end first: a begin is never left without its end hooked */
	ret = kprof_ktp_register(KPROF_KTP_CONTENTION_END, kprof_lock_end, lk);
	if (!ret) {
		ret = kprof_ktp_register(KPROF_KTP_CONTENTION_BEGIN, kprof_lock_begin, lk);
		if (ret) {
			kprof_ktp_unregister(KPROF_KTP_CONTENTION_END, kprof_lock_end, lk);
			kprof_ktp_sync();
		}
	}
	if (ret) {
		NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
				    "kprof: cannot hook the lock contention tracepoints");
		goto out_free;
	}
	lk->registered = true;
	kev->lock = lk;
	return 0;

out_free:
	kprof_waits_free(&lk->waits);
	kfree(lk);
	return ret;
}

/**
 * kprof_lock_stop() - detach the probes and close the waits still open
 * @kev: the event
 *
 * Each wait still open is closed now (lock_open), its time so far added
 * when within the event's limits.
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_lock_stop(struct kprof_event *kev)
{
	struct kprof_lock *lk = kev->lock;
	struct kprof_ring *ring;

	if (!lk || !lk->registered)
		return;
	kprof_ktp_unregister(KPROF_KTP_CONTENTION_BEGIN, kprof_lock_begin, lk);
	kprof_ktp_unregister(KPROF_KTP_CONTENTION_END, kprof_lock_end, lk);
	kprof_ktp_sync();
	lk->registered = false;

	preempt_disable();
	ring = kprof_ring_of(kev->session->bufs, smp_processor_id());
	if (ring)
		kprof_waits_drain(&lk->waits, &ring->stats, ktime_get_mono_fast_ns());
	preempt_enable();
}

/**
 * kprof_lock_waits() - the open waits of a lock event
 * @kev: any event
 *
 * Return: its table of waits, or NULL (not a lock event, or not started).
 */
struct kprof_waits *kprof_lock_waits(struct kprof_event *kev)
{
	return kev->lock ? &kev->lock->waits : NULL;
}

void kprof_lock_free(struct kprof_event *kev)
{
	struct kprof_lock *lk = kev->lock;

	if (!lk)
		return;
	kprof_waits_free(&lk->waits);
	kfree(lk);
	kev->lock = NULL;
}
