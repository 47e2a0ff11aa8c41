/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - test seams (testseam.c): set only by kprof's selftests.
 */
#ifndef _KPROF_TESTSEAM_H
#define _KPROF_TESTSEAM_H

#include <linux/compiler.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <asm/processor.h>

extern unsigned int kprof_test_write_delay_ns;

void kprof_test_nmi_target(unsigned long ip);
void kprof_testseam_exit(void);

/* Widen a task-context write's reserve-commit window, for the nesting test. */
static __always_inline void kprof_test_write_delay(void)
{
	unsigned int ns = READ_ONCE(kprof_test_write_delay_ns);
	u64 end;

	if (likely(!ns) || !in_task())
		return;
	/* a clock loop, not ndelay(): TCG's MWAITX makes delays short */
	end = ktime_get_mono_fast_ns() + ns;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
}

#endif /* _KPROF_TESTSEAM_H */
