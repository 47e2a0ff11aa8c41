/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the seam between kprof and kernel APIs that change or are not
 * exported.  Only Debian's 6.1 and 6.1-rt are targeted today; a new kernel
 * should need changes here only.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/perf_event.h>

/*
 * hw_perf_event.interrupts is set to this when the core throttles an event
 * (kernel/events/core.c: MAX_INTERRUPTS, private to that file since 2.6.33).
 */
#define KPROF_PERF_MAX_INTERRUPTS	(~0ULL)

static inline bool kprof_event_throttled(struct perf_event *event)
{
	return READ_ONCE(event->hw.interrupts) == KPROF_PERF_MAX_INTERRUPTS;
}

#endif /* _KPROF_COMPAT_H */
