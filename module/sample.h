/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the one sampling path (sample.c): every kind of event's hits end
 * in kprof_sample().
 */
#ifndef _KPROF_SAMPLE_H
#define _KPROF_SAMPLE_H

#include <linux/types.h>

#include "ring.h"

struct kprof_event;
struct kprof_session;
struct perf_event;
struct perf_raw_record;
struct perf_sample_data;
struct pt_regs;

void kprof_sample(struct kprof_event *kev, struct pt_regs *regs, u64 period,
		  struct perf_raw_record *raw, bool throttled, int level, u64 now);
void kprof_sample_recursion(struct kprof_event *kev);
u16 kprof_chains_here(struct kprof_session *s, u64 *ips, unsigned long skip,
		      unsigned long skip_len, bool user, u16 *nr_kernel, u16 *nr_user);

/* Count a chain's KPROF_SAMPLE_F_* flags in its CPU's counters. */
static __always_inline void kprof_count_stack_flags(struct kprof_ring *ring, u16 flags)
{
	if (flags & KPROF_SAMPLE_F_KSTACK_TRUNC)
		local64_inc(&ring->stats.kstack_trunc);
	if (flags & KPROF_SAMPLE_F_USTACK_TRUNC)
		local64_inc(&ring->stats.ustack_trunc);
	if (flags & KPROF_SAMPLE_F_USTACK_FAULT)
		local64_inc(&ring->stats.ustack_fault);
}

void kprof_overflow(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs);

#endif /* _KPROF_SAMPLE_H */
