/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the entry guard of every probe path.
 *
 * Each handler that can reach the sampling path (the perf overflow handler,
 * the kprobe and ftrace handlers) enters through kprof_guard_enter() and
 * leaves through kprof_guard_exit().  The side-band hooks do not: they
 * build their records on their own stack, not in the per-level scratch
 * space, and the ring takes nested writers.  The guard is
 * a per-CPU flag per context level (task, softirq, hardirq, NMI), as perf's
 * recursion context is (kernel/events/internal.h, get_recursion_context()).
 *
 * A handler already running at the same level on the same CPU means the
 * sampling path itself hit a probe: the unwinder was traced, a kprobe sits
 * on copy_from_user_nmi(), an ftrace probe matches kprof's own code.  Such
 * a hit is refused and counted (KPROF_LOST_RECURSION), never followed:
 * following it would recurse until the stack overflows, or build a second
 * record in the scratch space the interrupted one is being built in.
 *
 * A handler at a higher level (an NMI in the middle of a hardirq sample) is
 * a legitimate nested writer: it has its own flag and its own scratch
 * space, and the ring handles nested writers.
 *
 * Everything here is inline and notrace: the guard must be the first thing
 * a handler does, before it calls anything that could itself be probed.
 */
#ifndef _KPROF_GUARD_H
#define _KPROF_GUARD_H

#include <linux/compiler.h>
#include <linux/percpu.h>
#include <linux/preempt.h>

/* Context levels: task, softirq, hardirq, NMI (interrupt_context_level()). */
#define KPROF_CTX_LEVELS	4

struct kprof_guard {
	u8 busy[KPROF_CTX_LEVELS];
};

DECLARE_PER_CPU(struct kprof_guard, kprof_guard);

/**
 * kprof_guard_enter() - enter a probe path on this CPU at this context level
 *
 * Context: any, with preemption disabled.
 * Return: the context level (0-3) to pass to kprof_guard_exit() and to the
 * sampling path, or -1 when a kprof handler already runs at this level.
 */
static __always_inline int kprof_guard_enter(void)
{
	unsigned char level = interrupt_context_level();
	struct kprof_guard *g = this_cpu_ptr(&kprof_guard);

	if (unlikely(READ_ONCE(g->busy[level])))
		return -1;
	WRITE_ONCE(g->busy[level], 1);
	barrier();	/* the flag is set before the handler's work */
	return level;
}

/**
 * kprof_guard_exit() - leave the probe path entered at @level
 * @level: what kprof_guard_enter() returned
 */
static __always_inline void kprof_guard_exit(int level)
{
	barrier();	/* the handler's work is done before the flag clears */
	WRITE_ONCE(this_cpu_ptr(&kprof_guard)->busy[level], 0);
}

#endif /* _KPROF_GUARD_H */
