/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the sampling path's stages, timed in make bench's stage build
 * only (stages.c, built with KPROF_BENCH_STAGES=y: make bench-stages).
 *
 * Under QEMU's -icount (shift 0) a guest nanosecond is one instruction, so
 * the clock read at each stage's end gives the instructions the stage
 * took, that read included (KPROF_STAGE_MARK measures one read alone).
 * In every other build the marks below are empty inlines: the shipped
 * module has no stage clock, no counter and no "stages" file.
 */
#ifndef _KPROF_STAGES_H
#define _KPROF_STAGES_H

#include <linux/types.h>

struct dentry;

/**
 * enum kprof_stage - a stretch of the sampling path
 * @KPROF_STAGE_HANDLER: kprof_overflow(), whole: the guard, the sample, the
 *	stage marks; the entry and exit work is what the stages below leave
 * @KPROF_STAGE_ADMIT: kprof_sample()'s clock read, the filter, the
 *	throttle record and the cost cap
 * @KPROF_STAGE_HEADER: the record's fixed fields
 * @KPROF_STAGE_KERNEL: the kernel call chain (the ORC unwinder)
 * @KPROF_STAGE_USER: the user call chain (frame pointers, nofault copies)
 *	and the chain flags' counters
 * @KPROF_STAGE_RING: pending LOST records, reserve, copy, commit (and the
 *	wakeup's irq_work_queue())
 * @KPROF_STAGE_AGG: aggregation: hash, find or insert, count
 * @KPROF_STAGE_EXIT: the closing clock read and the handler statistics
 * @KPROF_STAGE_WAKEUP: the reader's wakeup, in its irq_work
 * @KPROF_STAGE_MARK: one stage mark's own cost, measured once per sample
 * @__KPROF_STAGE_MAX: the number of stages
 */
enum kprof_stage {
	KPROF_STAGE_HANDLER,
	KPROF_STAGE_ADMIT,
	KPROF_STAGE_HEADER,
	KPROF_STAGE_KERNEL,
	KPROF_STAGE_USER,
	KPROF_STAGE_RING,
	KPROF_STAGE_AGG,
	KPROF_STAGE_EXIT,
	KPROF_STAGE_WAKEUP,
	KPROF_STAGE_MARK,
	__KPROF_STAGE_MAX
};

#ifdef KPROF_BENCH_STAGES
u64 kprof_stage_clock(void);
void kprof_stage_mark(u64 *t, enum kprof_stage stage);
void kprof_stages_debugfs(struct dentry *root);
#else
static __always_inline u64 kprof_stage_clock(void)
{
	return 0;
}

static __always_inline void kprof_stage_mark(u64 *t, enum kprof_stage stage)
{
}

static inline void kprof_stages_debugfs(struct dentry *root)
{
}
#endif

#endif /* _KPROF_STAGES_H */
