/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the seam between kprof and kernel APIs that change or are not
 * exported.  Only Debian's 6.1 and 6.1-rt are targeted today; a new kernel
 * should need changes here only.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/gfp.h>
#include <linux/perf_event.h>
#include <linux/security.h>

/*
 * Allocations on request paths: a failure is an errno with an extack for
 * the client (ENOMEM), not a warn_alloc() stack dump in the kernel log,
 * and never the OOM killer (__GFP_RETRY_MAYFAIL): a request for more ring
 * than the machine has fails; it does not kill processes to make room.
 */
#define KPROF_GFP	(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

/*
 * hw_perf_event.interrupts is set to this when the core throttles an event
 * (kernel/events/core.c: MAX_INTERRUPTS, private to that file since 2.6.33).
 */
#define KPROF_PERF_MAX_INTERRUPTS	(~0ULL)

static inline bool kprof_event_throttled(struct perf_event *event)
{
	return READ_ONCE(event->hw.interrupts) == KPROF_PERF_MAX_INTERRUPTS;
}

/*
 * Kernel lockdown (security_locked_down(), exported since 5.4): refuse what
 * the kernel's own interfaces refuse at the current level: kprobes and
 * kretprobes as tracefs's kprobe_events does (LOCKDOWN_KPROBES), function
 * tracing as tracefs does (LOCKDOWN_TRACEFS).  On 6.1 both belong to the
 * confidentiality level (include/linux/security.h: after
 * LOCKDOWN_INTEGRITY_MAX).
 * Returns 0 or -EPERM.
 */
static inline int kprof_lockdown_kprobes(void)
{
	return security_locked_down(LOCKDOWN_KPROBES);
}

static inline int kprof_lockdown_ftrace(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS);
}

int kprof_sysctl_int(const char *path, int def);
bool kprof_kptr_visible(void);

/* kernel.perf_event_max_sample_rate; the kernel's default if unreadable. */
static inline u32 kprof_max_sample_rate(void)
{
	int rate = kprof_sysctl_int("/proc/sys/kernel/perf_event_max_sample_rate", 100000);

	return rate > 0 ? rate : 100000;
}

#endif /* _KPROF_COMPAT_H */
