// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_floor - the floor of a sampling profiler's cost, for make bench.
 *
 * Loading it opens one sampling counter per online CPU, the event and rate
 * a bench run gives the profilers (cpu-clock, -F RATE, as perf record -F
 * asks for it: frequency mode); unloading it closes them.  Its overflow
 * handler does only what every profiler must:
 *
 *	mode=empty	nothing: the cost of the timer, perf's core and the
 *			call of a handler (the floor of any perf-based tool)
 *	mode=walk	the kernel stack unwound with the kernel's unwinder
 *			(ORC) from the interrupted registers, and the user
 *			stack walked by frame pointers with nofault copies,
 *			up to depth frames each, into a per-CPU scratch
 *			array that nothing reads: the floor of a profiler
 *			that takes -g stacks and stores nothing
 *
 * It is written apart from kprof.ko's sampling path on purpose: the floor
 * must not move when kprof's own walk changes.  Counters (read-only
 * parameters): samples (handler calls), kernel_frames, user_frames.  Built
 * beside kprof.ko by tools/build-test-modules.sh, never installed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#define KPROF_FLOOR_MAX_DEPTH	512

static unsigned int rate = 999;
module_param(rate, uint, 0400);
MODULE_PARM_DESC(rate, "samples per second per CPU (frequency mode, as -F)");

static char *mode = "walk";
module_param(mode, charp, 0400);
MODULE_PARM_DESC(mode, "\"empty\": the handler returns; \"walk\": it unwinds both stacks");

static unsigned int depth = 127;
module_param(depth, uint, 0400);
MODULE_PARM_DESC(depth, "frames per stack, kernel and user (1-512; kprof's default 127)");

static bool kprof_floor_walk;
static struct perf_event **kprof_floor_events;

/**
 * struct kprof_floor_cpu - one CPU's counters and scratch
 * @samples: handler calls
 * @kernel_frames: kernel frames walked
 * @user_frames: user frames walked
 * @ips: where the walks put their frames; nothing reads them
 */
struct kprof_floor_cpu {
	u64 samples;
	u64 kernel_frames;
	u64 user_frames;
	u64 ips[2 * KPROF_FLOOR_MAX_DEPTH];
};

static struct kprof_floor_cpu __percpu *kprof_floor_cpus;

static unsigned int kprof_floor_kernel(struct pt_regs *regs, u64 *ips)
{
	struct unwind_state state;
	unsigned int n = 0;

	ips[n++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL);
	     !unwind_done(&state) && n < depth; unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		ips[n++] = addr;
	}
	return n;
}

static unsigned int kprof_floor_user(struct pt_regs *regs, u64 *ips)
{
	struct {
		unsigned long next;
		unsigned long ret;
	} frame;
	unsigned long fp = regs->bp;
	unsigned int n = 0;

	ips[n++] = regs->ip;
	if (!user_64bit_mode(regs))
		return n;
	while (fp && n < depth && !(fp & (sizeof(long) - 1)) &&
	       !copy_from_user_nmi(&frame, (void __user *)fp, sizeof(frame)) && frame.ret) {
		ips[n++] = frame.ret;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}

static void kprof_floor_overflow(struct perf_event *event, struct perf_sample_data *data,
				 struct pt_regs *regs)
{
	struct kprof_floor_cpu *c = this_cpu_ptr(kprof_floor_cpus);
	struct task_struct *task = current;
	unsigned int n;

	c->samples++;
	if (!kprof_floor_walk)
		return;
	if (!user_mode(regs))
		c->kernel_frames += kprof_floor_kernel(regs, c->ips);
	if (task->mm && !(task->flags & (PF_KTHREAD | PF_EXITING))) {
		n = kprof_floor_user(user_mode(regs) ? regs : task_pt_regs(task),
				     c->ips + KPROF_FLOOR_MAX_DEPTH);
		c->user_frames += n;
	}
}

/* A read-only counter: its sum over the CPUs. */
static int kprof_floor_get(char *buf, const struct kernel_param *kp)
{
	size_t off = (size_t)kp->arg;
	u64 sum = 0;
	int cpu;

	if (!kprof_floor_cpus)
		return sysfs_emit(buf, "0\n");
	for_each_possible_cpu(cpu)
		sum += *(u64 *)((char *)per_cpu_ptr(kprof_floor_cpus, cpu) + off);
	return sysfs_emit(buf, "%llu\n", sum);
}

static const struct kernel_param_ops kprof_floor_counter_ops = {
	.get	= kprof_floor_get,
};

module_param_cb(samples, &kprof_floor_counter_ops,
		(void *)offsetof(struct kprof_floor_cpu, samples), 0444);
MODULE_PARM_DESC(samples, "handler calls, all CPUs");
module_param_cb(kernel_frames, &kprof_floor_counter_ops,
		(void *)offsetof(struct kprof_floor_cpu, kernel_frames), 0444);
MODULE_PARM_DESC(kernel_frames, "kernel frames walked, all CPUs");
module_param_cb(user_frames, &kprof_floor_counter_ops,
		(void *)offsetof(struct kprof_floor_cpu, user_frames), 0444);
MODULE_PARM_DESC(user_frames, "user frames walked, all CPUs");

static void kprof_floor_close(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!IS_ERR_OR_NULL(kprof_floor_events[cpu]))
			perf_event_release_kernel(kprof_floor_events[cpu]);
	}
	kfree(kprof_floor_events);
}

static int __init kprof_floor_init(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_SOFTWARE,
		.size		= sizeof(attr),
		.config		= PERF_COUNT_SW_CPU_CLOCK,
		.freq		= 1,
		.sample_type	= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				  PERF_SAMPLE_PERIOD,
	};
	int cpu, ret;

	if (!rate || !depth || depth > KPROF_FLOOR_MAX_DEPTH) {
		pr_err("rate must be > 0 and depth 1-%d\n", KPROF_FLOOR_MAX_DEPTH);
		return -EINVAL;
	}
	if (!strcmp(mode, "walk")) {
		kprof_floor_walk = true;
	} else if (strcmp(mode, "empty")) {
		pr_err("mode must be \"empty\" or \"walk\", not \"%s\"\n", mode);
		return -EINVAL;
	}
	attr.sample_freq = rate;
	kprof_floor_cpus = alloc_percpu(struct kprof_floor_cpu);
	if (!kprof_floor_cpus)
		return -ENOMEM;
	kprof_floor_events = kcalloc(nr_cpu_ids, sizeof(*kprof_floor_events), GFP_KERNEL);
	if (!kprof_floor_events) {
		ret = -ENOMEM;
		goto err_cpus;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct perf_event *e;

		e = perf_event_create_kernel_counter(&attr, cpu, NULL, kprof_floor_overflow, NULL);
		if (IS_ERR(e)) {
			ret = PTR_ERR(e);
			cpus_read_unlock();
			pr_err("cpu-clock on CPU %d: error %d\n", cpu, ret);
			goto err_events;
		}
		kprof_floor_events[cpu] = e;
	}
	cpus_read_unlock();
	return 0;

err_events:
	kprof_floor_close();
err_cpus:
	free_percpu(kprof_floor_cpus);
	kprof_floor_cpus = NULL;
	return ret;
}

static void __exit kprof_floor_exit(void)
{
	kprof_floor_close();
	free_percpu(kprof_floor_cpus);
	kprof_floor_cpus = NULL;
}

module_init(kprof_floor_init);
module_exit(kprof_floor_exit);

MODULE_DESCRIPTION("make bench's floor: sampling with an empty or a walk-only handler");
MODULE_LICENSE("GPL");
