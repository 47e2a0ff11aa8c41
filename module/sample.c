// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the overflow handler: from a counter overflow to a SAMPLE record.
 *
 * Runs in whatever context the counter overflows in: NMI for hardware
 * events, hard interrupt for cpu-clock, task context with preemption
 * disabled for page faults and tracepoints.  So: no locks, no allocation,
 * no sleeping, no printk, bounded work (the chains are bounded by the
 * session's stack depth).  In each mode (stream, aggregate) every
 * invocation ends as exactly one stored or one lost sample, so that
 * invocations == stored + lost always balances.
 *
 * Every caller holds the entry guard (guard.h) for its context level; a
 * hit refused by the guard is counted by kprof_sample_recursion().  This
 * file is built without the ftrace hook (Kbuild) and its entry points are
 * kprobe-blacklisted: the sampling path cannot be probed into itself.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <asm/unwind.h>

#include "agg.h"
#include "compat.h"
#include "filter.h"
#include "guard.h"
#include "internal.h"
#include "procmap.h"
#include "sample.h"
#include "stages.h"

/* The fixed part of a SAMPLE record; see the uapi header. */
struct kprof_sample {
	struct kprof_record_header header;
	u64 time;
	u64 ip;
	u64 period;
	u32 pid;
	u32 tid;
	u32 cpu;
	u16 event;
	u16 flags;
	u16 nr_kernel;
	u16 nr_user;
	u32 __reserved;
	u64 ips[];
};

/*
 * Kernel chain with the ORC unwinder, as perf_callchain_kernel() does:
 * registers saved by a real interrupt (X86_EFLAGS_FIXED set) start at the
 * interrupted frame; registers made up by perf_fetch_caller_regs() (software
 * events, tracepoints) start at their stack pointer.
 */
static unsigned int kprof_kernel_chain(struct pt_regs *regs, u64 *ips,
				       unsigned int depth, u16 *flags)
{
	struct unwind_state state;
	unsigned int n = 0;

	if (regs->flags & X86_EFLAGS_FIXED) {
		ips[n++] = regs->ip;
		unwind_start(&state, current, regs, NULL);
	} else {
		unwind_start(&state, current, NULL, (void *)regs->sp);
	}

	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		unsigned long addr = unwind_get_return_address(&state);

		if (!addr)
			break;
		if (n == depth) {
			*flags |= KPROF_SAMPLE_F_KSTACK_TRUNC;
			break;
		}
		ips[n++] = addr;
	}
	if (unwind_error(&state))
		*flags |= KPROF_SAMPLE_F_KSTACK_ERROR;
	return n;
}

/*
 * User chain by frame pointers, read with copy_from_user_nmi() (which
 * refuses to fault pages in): { next frame pointer, return address } pairs
 * from regs->bp upwards.  The chain must climb strictly, so a corrupt frame
 * pointer cannot loop.
 */
static unsigned int kprof_user_chain(struct pt_regs *regs, u64 *ips,
				     unsigned int depth, u16 *flags)
{
	struct {
		unsigned long next;
		unsigned long ret;
	} frame;
	unsigned long fp = regs->bp;
	unsigned int n = 0;

	ips[n++] = regs->ip;
	if (!user_64bit_mode(regs))
		return n;	/* 32-bit tasks: the IP only */

	while (fp) {
		if (n == depth) {
			*flags |= KPROF_SAMPLE_F_USTACK_TRUNC;
			break;
		}
		if ((fp & (sizeof(long) - 1)) ||
		    copy_from_user_nmi(&frame, (void __user *)fp, sizeof(frame))) {
			if (n == 1)
				*flags |= KPROF_SAMPLE_F_USTACK_FAULT;
			break;
		}
		if (!frame.ret)
			break;
		ips[n++] = frame.ret;
		if (frame.next <= fp)
			break;
		fp = frame.next;
	}
	return n;
}

/**
 * kprof_chains_here() - the current task's chains, from a probe of kprof's
 * @s: the session: its stack flags and depth
 * @ips: room for 2 * stack_depth frames: kernel ones, then user ones
 * @skip: a function's start whose frame is skipped too (a tracepoint's
 *	iterator, which calls the probe when several are attached)
 * @skip_len: its size
 * @user: the user chain too, when the session takes user stacks
 * @nr_kernel: set to the kernel frames
 * @nr_user: set to the user frames
 *
 * The kernel chain starts at the probe's caller: frames in kprof's own
 * code and in [@skip, @skip + @skip_len) are left out.  The user chain
 * starts at the task's user registers (task_pt_regs()).
 *
 * Context: a probe with preemption disabled; no locks, no allocation.
 * Return: KPROF_SAMPLE_F_* flags saying how good the chains are.
 */
u16 kprof_chains_here(struct kprof_session *s, u64 *ips, unsigned long skip,
		      unsigned long skip_len, bool user, u16 *nr_kernel, u16 *nr_user)
{
	unsigned int depth = s->cfg.stack_depth, n = 0;
	struct task_struct *task = current;
	struct unwind_state state;
	bool skipping = true;
	u16 flags = 0;

	*nr_kernel = 0;
	*nr_user = 0;
	if (s->cfg.flags & KPROF_SESSION_F_KERNEL_STACK) {
		for (unwind_start(&state, task, NULL, NULL); !unwind_done(&state);
		     unwind_next_frame(&state)) {
			unsigned long addr = unwind_get_return_address(&state);

			if (!addr)
				break;
			if (skipping) {
				if (within_module(addr, THIS_MODULE) || addr - skip < skip_len)
					continue;
				skipping = false;
			}
			if (n == depth) {
				flags |= KPROF_SAMPLE_F_KSTACK_TRUNC;
				break;
			}
			ips[n++] = addr;
		}
		if (unwind_error(&state))
			flags |= KPROF_SAMPLE_F_KSTACK_ERROR;
		*nr_kernel = n;
	}
	if (user && (s->cfg.flags & KPROF_SESSION_F_USER_STACK) && task->mm &&
	    !(task->flags & (PF_KTHREAD | PF_EXITING)))
		*nr_user = kprof_user_chain(task_pt_regs(task), ips + n, depth, &flags);
	return flags;
}

NOKPROBE_SYMBOL(kprof_chains_here);

/*
 * Append the raw tracepoint record after the chains: { u32 size; u32 0;
 * bytes, zero-padded to 8 }, cut at KPROF_RAW_MAX.  Returns the new length.
 */
static u32 kprof_raw_append(struct kprof_sample *rec, u32 len, struct perf_raw_record *raw)
{
	u32 size = min_t(u32, raw->frag.size, KPROF_RAW_MAX);
	u32 *hdr = (void *)rec + len;
	u32 padded = ALIGN(size, 8);

	if (size < raw->frag.size)
		rec->flags |= KPROF_SAMPLE_F_RAW_TRUNC;
	hdr[0] = size;
	hdr[1] = 0;
	memcpy(hdr + 2, raw->frag.data, size);
	memset((void *)(hdr + 2) + size, 0, padded - size);
	rec->header.misc |= KPROF_MISC_RAW;
	return len + 8 + padded;
}

/*
 * Append the user stack part (uapi: KPROF_MISC_USER_STACK): %rbp, %rsp and
 * %rip of @uregs, then @bytes of stack from %rsp, cut at the first
 * unreadable page; copy_from_user_nmi() does not fault pages in.  Returns
 * the new length.
 */
static u32 kprof_user_stack_append(struct kprof_sample *rec, u32 len, struct pt_regs *uregs,
				   u32 bytes)
{
	u64 *w = (void *)rec + len;
	unsigned long left;
	u32 size = bytes;

	w[0] = KPROF_USER_REGS_MASK;
	w[1] = uregs->bp;
	w[2] = uregs->sp;
	w[3] = uregs->ip;
	left = copy_from_user_nmi(w + 5, (void __user *)uregs->sp, size);
	if (left) {
		rec->flags |= KPROF_SAMPLE_F_USTACK_SHORT;
		size = (size - left) & ~7U;
	}
	w[4] = size;	/* stack_size, then __reserved3 = 0 (little-endian) */
	rec->header.misc |= KPROF_MISC_USER_STACK;
	return len + 5 * sizeof(u64) + size;
}

static void kprof_count_max(local64_t *max, u64 v)
{
	u64 old = local64_read(max);

	while (v > old) {
		u64 prev = local64_cmpxchg(max, old, v);

		if (prev == old)
			break;
		old = prev;
	}
}

static void kprof_throttle_record(struct kprof_ring *ring, struct kprof_event *kev, u64 now)
{
	struct {
		struct kprof_record_header header;
		u64 time;
		u32 cpu;
		u16 event;
		u16 __reserved;
	} rec = {
		.header = { .type = KPROF_RECORD_THROTTLE, .size = sizeof(rec) },
		.time = now,
		.cpu = ring->cpu,
		.event = kev->index,
	};

	local64_inc(&ring->stats.throttled);
	if (kprof_ring_write(ring, &rec, sizeof(rec)))
		local64_inc(&ring->stats.sideband_lost);
	else
		local64_inc(&ring->stats.sideband);
}

/**
 * kprof_sample_recursion() - count a hit the entry guard refused
 * @kev: the event that was hit
 *
 * The hit is an invocation that ends lost (KPROF_LOST_RECURSION), in both
 * modes' balances; a stream session reports it in a LOST record.  Only
 * this CPU's counters are touched, with local64 operations, which are safe
 * against the interrupted writer.
 *
 * Context: any, with preemption disabled.
 */
void kprof_sample_recursion(struct kprof_event *kev)
{
	struct kprof_session *s = kev->session;
	struct kprof_ring *ring = kprof_session_ring(s);

	if (unlikely(!ring))
		return;
	local64_inc(&ring->stats.invocations);
	if (s->cfg.flags & KPROF_SESSION_F_STREAM)
		kprof_ring_lost(ring, KPROF_LOST_RECURSION);
	else
		local64_inc(&ring->stats.lost[KPROF_LOST_RECURSION]);
}

NOKPROBE_SYMBOL(kprof_sample_recursion);

/*
 * The probe cost cap, as perf_cpu_time_max_percent is for perf's samples:
 * per CPU, across all sessions, the time kprof_sample() spends on probe
 * and tracepoint hits in each KPROF_COST_WINDOW_NS may not exceed
 * probe_cost_max_percent of it.  Over it, hits are counted and dropped
 * (KPROF_LOST_COST, charged to the session whose hit it was) until the
 * window ends, so that probes on a hot function slow the machine by a
 * bounded share instead of stalling it, however many sessions put them
 * there.  Timer and counter samples are left to perf's own throttling.
 */
#define KPROF_COST_WINDOW_NS	(10 * NSEC_PER_MSEC)

/**
 * struct kprof_cost_window - one CPU's probe budget, all sessions together
 * @start: start of the window
 * @ns: probe handler time spent in it
 */
struct kprof_cost_window {
	local64_t start;
	local64_t ns;
};

static DEFINE_PER_CPU(struct kprof_cost_window, kprof_cost);

static unsigned int probe_cost_max_percent = 25;
module_param(probe_cost_max_percent, uint, 0644);
MODULE_PARM_DESC(probe_cost_max_percent,
		 "share of each CPU's time probe and tracepoint hits may take, 1-100 (100: no cap)");

/*
 * Is this CPU over its probe budget at @now?  Starts a new window when the
 * last one ended.  Nested callers may race on the window start; local64
 * keeps every value whole, and the budget is approximate by design.
 */
static __always_inline bool kprof_cost_over(u64 now)
{
	struct kprof_cost_window *w = this_cpu_ptr(&kprof_cost);
	unsigned int pct = READ_ONCE(probe_cost_max_percent);

	if (pct >= 100)
		return false;
	if (now - local64_read(&w->start) >= KPROF_COST_WINDOW_NS) {
		local64_set(&w->start, now);
		local64_set(&w->ns, 0);
		return false;
	}
	return local64_read(&w->ns) > KPROF_COST_WINDOW_NS / 100 * max(pct, 1U);
}

/**
 * kprof_sample() - take one sample: store it, aggregate it, or count it lost
 * @kev: the event
 * @regs: the interrupted (or probed) registers
 * @period: events the sample stands for
 * @raw: a tracepoint's raw record, or NULL
 * @throttled: the perf core throttled the event at this sample
 * @level: the context level of the caller's guard (kprof_guard_enter())
 * @now: ktime_get_mono_fast_ns() at the hit: the sample's time
 *
 * The one sampling path of every kind of event: perf counters (through
 * kprof_overflow()), kprobes and ftrace probes.
 *
 * Context: NMI, hard or soft interrupt, or task context with preemption
 * disabled, inside kprof_guard_enter().  NMI-safe: no locks, no
 * allocation, bounded time.
 */
void kprof_sample(struct kprof_event *kev, struct pt_regs *regs, u64 period,
		  struct perf_raw_record *raw, bool throttled, int level, u64 now)
{
	struct kprof_session *s = kev->session;
	struct kprof_session_config *cfg = &s->cfg;
	struct task_struct *task = current;
	struct pt_regs *uregs = NULL;
	struct kprof_sample *rec;
	struct kprof_ring *ring;
	unsigned int n = 0;
	u64 t0, dt, ts;
	u32 len;
	int ret;

	ts = kprof_stage_clock();
	t0 = now;
	ring = kprof_session_ring(s);
	if (unlikely(!ring))
		return;

	/* a hit its filter drops is no sample: counted apart, not an invocation */
	if (kev->cfg.nr_filter && raw &&
	    !kprof_filter_run(kev->cfg.filter, kev->cfg.nr_filter, raw->frag.data,
			      raw->frag.size)) {
		local64_inc(&ring->stats.filtered);
		return;
	}

	local64_inc(&ring->stats.invocations);
	if (unlikely(throttled))
		kprof_throttle_record(ring, kev, t0);
	if (kprof_event_is_capped(kev) && unlikely(kprof_cost_over(t0))) {
		if (cfg->flags & KPROF_SESSION_F_STREAM)
			kprof_ring_lost(ring, KPROF_LOST_COST);
		else
			local64_inc(&ring->stats.lost[KPROF_LOST_COST]);
		return;
	}

	kprof_stage_mark(&ts, KPROF_STAGE_ADMIT);

	/* the layout of the uapi header's SAMPLE record, which kprofctl reads */
	BUILD_BUG_ON(sizeof(struct kprof_sample) != 56);
	BUILD_BUG_ON(offsetof(struct kprof_sample, time) != 8);
	BUILD_BUG_ON(offsetof(struct kprof_sample, pid) != 32);
	BUILD_BUG_ON(offsetof(struct kprof_sample, event) != 44);
	BUILD_BUG_ON(offsetof(struct kprof_sample, ips) != 56);

	rec = kprof_ring_scratch(ring, level);
	rec->time = t0;
	rec->ip = instruction_pointer(regs);
	rec->period = period;
	rec->pid = task_tgid_nr(task);
	rec->tid = task_pid_nr(task);
	rec->cpu = ring->cpu;
	rec->event = kev->index;
	rec->flags = 0;
	rec->__reserved = 0;
	rec->header.type = KPROF_RECORD_SAMPLE;
	rec->header.misc = user_mode(regs) ? KPROF_MISC_USER : KPROF_MISC_KERNEL;
	kprof_stage_mark(&ts, KPROF_STAGE_HEADER);

	rec->nr_kernel = 0;
	if ((cfg->flags & KPROF_SESSION_F_KERNEL_STACK) && !user_mode(regs))
		rec->nr_kernel = kprof_kernel_chain(regs, rec->ips, cfg->stack_depth,
						    &rec->flags);
	n = rec->nr_kernel;
	kprof_stage_mark(&ts, KPROF_STAGE_KERNEL);

	rec->nr_user = 0;
	if ((cfg->flags & KPROF_SESSION_F_USER_STACK) && task->mm &&
	    !(task->flags & (PF_KTHREAD | PF_EXITING))) {
		uregs = user_mode(regs) ? regs : task_pt_regs(task);
		rec->nr_user = kprof_user_chain(uregs, rec->ips + n, cfg->stack_depth,
						&rec->flags);
		n += rec->nr_user;
	}

	kprof_count_stack_flags(ring, rec->flags);
	kprof_stage_mark(&ts, KPROF_STAGE_USER);

	if (cfg->flags & KPROF_SESSION_F_STREAM) {
		len = sizeof(*rec) + n * sizeof(u64);
		if (raw)
			len = kprof_raw_append(rec, len, raw);
		/* its time counts in the RING stage, as the raw record's does */
		if (cfg->user_stack && rec->nr_user && user_64bit_mode(uregs))
			len = kprof_user_stack_append(rec, len, uregs, cfg->user_stack);
		rec->header.size = len;
		ret = kprof_ring_write(ring, rec, len);
		if (likely(!ret))
			local64_inc(&ring->stats.samples);
		else
			kprof_ring_lost(ring, ret == -E2BIG ? KPROF_LOST_TOO_BIG :
							      KPROF_LOST_FULL);
		kprof_stage_mark(&ts, KPROF_STAGE_RING);
	}
	if (cfg->flags & KPROF_SESSION_F_AGGREGATE) {
		ret = kprof_agg_add(kprof_agg_cpu_of(s->agg, ring->cpu), kev->index, rec->pid,
				    task->comm, rec->ips, rec->nr_kernel, rec->nr_user);
		if (likely(ret >= 0)) {
			local64_inc(&ring->stats.agg_samples);
			/* a new key with user frames: keep its process's mappings */
			if (ret > 0 && rec->nr_user)
				kprof_procmap_note_pid(s->procmap, rec->pid);
		} else {	/* not a stream loss: no LOST record */
			local64_inc(&ring->stats.lost[ret == -EBUSY ? KPROF_LOST_AGG_RESET :
							     KPROF_LOST_AGG_FULL]);
		}
		kprof_stage_mark(&ts, KPROF_STAGE_AGG);
	}

	dt = ktime_get_mono_fast_ns() - t0;
	if (kprof_event_is_capped(kev))
		local64_add(dt, this_cpu_ptr(&kprof_cost.ns));
	local64_add(dt, &ring->stats.handler_ns);
	kprof_count_max(&ring->stats.handler_max_ns, dt);
	kprof_stage_mark(&ts, KPROF_STAGE_EXIT);
	kprof_stage_mark(&ts, KPROF_STAGE_MARK);
}

NOKPROBE_SYMBOL(kprof_sample);

/*
 * The clock time a cpu-clock or task-clock sample stands for.  perf's timer
 * that fires late (interrupts off for long, or a virtual CPU the host did
 * not run) is forwarded over the expiries it missed, and perf reports one
 * period; kprof adds them, so that a sample weighs the clock time since the
 * previous one and on-CPU time stays comparable with off-CPU time, which
 * is measured.  perf forwards by at least 10 us (perf_swevent_hrtimer()).
 */
static __always_inline u64 kprof_clock_period(struct perf_event *event, u64 period, u64 now)
{
	u64 step = max_t(u64, 10000, READ_ONCE(event->hw.sample_period));
	s64 late = kprof_swevent_late_ns(event, now);

	if (likely(late < (s64)step))
		return period;
	return period + div64_u64(late, step) * step;
}

/**
 * kprof_overflow() - perf overflow handler of every kprof counter
 * @event: the counter; its overflow_handler_context is our struct kprof_event
 * @data: perf's sample data (period, and a tracepoint's raw record)
 * @regs: the interrupted registers
 *
 * Context: NMI, hard or soft interrupt, or task context with preemption
 * disabled.  NMI-safe: no locks, no allocation, bounded time.
 */
void kprof_overflow(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	struct kprof_event *kev = event->overflow_handler_context;
	struct perf_raw_record *raw = NULL;
	u64 ts = kprof_stage_clock();
	u64 now, period;
	int level;

	level = kprof_guard_enter();
	if (unlikely(level < 0)) {
		kprof_sample_recursion(kev);
		return;
	}
	now = ktime_get_mono_fast_ns();
	period = data->period;
	if (kprof_event_is_clock(kev))
		period = kprof_clock_period(event, period, now);
	/* a tracepoint's record: perf's own, never a copy-on-output fragment */
	if ((data->sample_flags & PERF_SAMPLE_RAW) && data->raw && !data->raw->frag.copy)
		raw = data->raw;
	kprof_sample(kev, regs, period, raw, kprof_event_throttled(event), level, now);
	kprof_guard_exit(level);
	kprof_stage_mark(&ts, KPROF_STAGE_HANDLER);
}

NOKPROBE_SYMBOL(kprof_overflow);
