// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the sampling path's stage clock (make bench's stage build only;
 * see stages.h).  Each CPU sums, per stage, the nanoseconds between marks
 * and how many marks ended it; /sys/kernel/debug/kprof/stages prints the
 * sums over all CPUs, never reset (make bench reads it before and after
 * each run).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>
#include <asm/local64.h>

#include "stages.h"

struct kprof_stage_sums {
	local64_t ns[__KPROF_STAGE_MAX];
	local64_t marks[__KPROF_STAGE_MAX];
};

static DEFINE_PER_CPU(struct kprof_stage_sums, kprof_stage_sums);

static const char * const kprof_stage_names[__KPROF_STAGE_MAX] = {
	[KPROF_STAGE_HANDLER]	= "handler",
	[KPROF_STAGE_ADMIT]	= "admit",
	[KPROF_STAGE_HEADER]	= "header",
	[KPROF_STAGE_KERNEL]	= "kernel_unwind",
	[KPROF_STAGE_USER]	= "user_walk",
	[KPROF_STAGE_RING]	= "ring_write",
	[KPROF_STAGE_AGG]	= "aggregate",
	[KPROF_STAGE_EXIT]	= "exit",
	[KPROF_STAGE_WAKEUP]	= "wakeup",
	[KPROF_STAGE_MARK]	= "mark",
};

/**
 * kprof_stage_clock() - the stage clock
 *
 * Context: any, NMI included.
 * Return: the monotonic clock in ns, NMI-safe.
 */
notrace u64 kprof_stage_clock(void)
{
	return ktime_get_mono_fast_ns();
}

NOKPROBE_SYMBOL(kprof_stage_clock);

/**
 * kprof_stage_mark() - end a stage: add the time since *@t to @stage
 * @t: the last mark's time; set to now
 * @stage: the stage that ends here
 *
 * Context: any, NMI included, preemption disabled (a per-CPU local64 sum).
 */
notrace void kprof_stage_mark(u64 *t, enum kprof_stage stage)
{
	struct kprof_stage_sums *sums = this_cpu_ptr(&kprof_stage_sums);
	u64 now = ktime_get_mono_fast_ns();

	local64_add(now - *t, &sums->ns[stage]);
	local64_inc(&sums->marks[stage]);
	*t = now;
}

NOKPROBE_SYMBOL(kprof_stage_mark);

static int kprof_stages_show(struct seq_file *m, void *v)
{
	int stage, cpu;

	seq_puts(m, "# stage ns marks\n");
	for (stage = 0; stage < __KPROF_STAGE_MAX; stage++) {
		u64 ns = 0, marks = 0;

		for_each_possible_cpu(cpu) {
			struct kprof_stage_sums *sums = per_cpu_ptr(&kprof_stage_sums, cpu);

			ns += local64_read(&sums->ns[stage]);
			marks += local64_read(&sums->marks[stage]);
		}
		seq_printf(m, "%s %llu %llu\n", kprof_stage_names[stage], ns, marks);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprof_stages);

/**
 * kprof_stages_debugfs() - create the "stages" file in kprof's directory
 * @root: /sys/kernel/debug/kprof
 */
void kprof_stages_debugfs(struct dentry *root)
{
	debugfs_create_file("stages", 0400, root, NULL, &kprof_stages_fops);
}
