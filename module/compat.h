/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the seam between kprof and kernel APIs that change or are not
 * exported.  Debian's 6.1 and 6.12 LTS kernels (generic and PREEMPT_RT)
 * are targeted; each difference between them is one named helper here,
 * gated by LINUX_VERSION_CODE, and the parts use only the helper
 * (Documentation/compat.rst has the table).  A new kernel should need
 * changes here only.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/security.h>
#include <linux/version.h>
#include <net/genetlink.h>

/*
 * The one test of the kernel's version: every seam below is gated by it,
 * and no other file of kprof names LINUX_VERSION_CODE (make check greps).
 */
#define KPROF_LINUX_AT_LEAST(major, minor) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(major, minor, 0))

/*
 * get_unaligned() and friends: <asm/unaligned.h> moved to
 * <linux/unaligned.h> in 6.12 (the asm header is gone there).
 */
#if KPROF_LINUX_AT_LEAST(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/**
 * kprof_vma_flags_mod() - set and clear flags of a VMA being mapped
 * @vma: the VMA, in an ->mmap() handler (mmap_lock held for writing)
 * @set: VM_* flags to set
 * @clear: VM_* flags to clear
 *
 * vm_flags is read-only since 6.3 (vm_flags_mod(), which also marks the
 * VMA for per-VMA locking); 6.1 has no such helper and writes the field.
 */
static inline void kprof_vma_flags_mod(struct vm_area_struct *vma, vm_flags_t set,
				       vm_flags_t clear)
{
#if KPROF_LINUX_AT_LEAST(6, 3)
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * The operation a genl family's pre_doit is given: struct genl_ops on
 * 6.1, struct genl_split_ops (the do or dump half of an op) since 6.2.
 * Both carry ->cmd and ->internal_flags, which is all kprof reads.
 */
#if KPROF_LINUX_AT_LEAST(6, 2)
#define kprof_genl_pre_op	genl_split_ops
#else
#define kprof_genl_pre_op	genl_ops
#endif

/**
 * kprof_genl_dump_attrs() - the parsed attributes of a dump request
 * @info: genl_dumpit_info(cb)
 *
 * 6.1 keeps them in ->attrs; since 6.2 the dump has a struct genl_info of
 * its own (->info.attrs), as a doit does.
 *
 * Return: the attribute table, indexed by attribute type.
 */
static inline struct nlattr **kprof_genl_dump_attrs(const struct genl_dumpit_info *info)
{
#if KPROF_LINUX_AT_LEAST(6, 2)
	return info->info.attrs;
#else
	return info->attrs;
#endif
}

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

/**
 * kprof_swevent_late_ns() - how late a clock counter's timer fired
 * @event: a cpu-clock or task-clock sampling counter, in its overflow handler
 * @now: CLOCK_MONOTONIC now, in ns
 *
 * perf's software clock events sample from an hrtimer (hw_perf_event's
 * software member, the same on 6.1 and 6.12) and call the overflow handler
 * before forwarding it (kernel/events/core.c: perf_swevent_hrtimer()), so
 * the timer still holds the expiry that fired.
 *
 * Return: @now minus that expiry; negative when the clocks disagree.
 */
static inline s64 kprof_swevent_late_ns(struct perf_event *event, u64 now)
{
	return (s64)(now - (u64)ktime_to_ns(hrtimer_get_expires(&event->hw.hrtimer)));
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
