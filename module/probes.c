// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - probes kprof places itself: kprobes and ftrace function probes.
 *
 * KPROF_TYPE_KPROBE
 *	a kprobe on a function (+ offset); every hit is a sample, with the
 *	same chains and modes as any other event.
 * KPROF_TYPE_FTRACE
 *	an ftrace_ops filtered on a glob of traceable functions; every hit is
 *	counted per function and CPU (debugfs probes) and is a sample whose IP
 *	is the function's, so reports count hits per function, with their
 *	call chains when the session records them.
 * KPROF_TYPE_LATENCY
 *	a kretprobe timing each call from entry to return into per-CPU log2
 *	histograms of nanoseconds (debugfs latency, KPROF_CMD_HIST_DUMP);
 *	calls the kretprobe had no instance for are counted as missed.
 * KPROF_TYPE_RUNQLAT
 *	run-queue latency, as BCC's runqlat measures it: sched_wakeup and
 *	sched_wakeup_new (and sched_switch of a preempted task) note when a
 *	task became runnable in a per-task table (taskstate.h); sched_switch
 *	to it takes the time back and counts the wait in the CPU's
 *	histogram, in the unit of the event's config.  Nothing per event is
 *	stored; waits lost to a table slot shared by two waiting threads are
 *	counted as missed.  With KPROF_RUNQLAT_F_PID/_F_TID, each wait is
 *	also counted in its process's or thread's histogram, in a per-CPU
 *	table of KPROF_RUNQLAT_MAX_KEYS keys (a bounded probe for a slot;
 *	waits that find none are counted as keys_lost).
 *
 * Per-task sessions take only the hits of the processes they follow.
 * Probes are registered after the counters exist and unregistered when the
 * session stops, errors out or the module goes away; both unregister calls
 * wait for handlers still running, so no handler can run in freed module
 * code.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "guard.h"
#include "internal.h"
#include "ktp.h"
#include "lock.h"
#include "offcpu.h"
#include "probes.h"
#include "sample.h"
#include "taskstate.h"
#include "wait.h"

/* per-CPU hit counts of an ftrace probe: open addressing on the function */
#define KPROF_FUNC_SLOTS	(2 * KPROF_MAX_PROBE_FUNCS)

struct kprof_func_count {
	unsigned long ip;
	local64_t hits;
};

/* A per-CPU latency histogram; bucket i: [2^i, 2^(i+1)) ns (runqlat: its unit). */
struct kprof_hist {
	local64_t buckets[KPROF_HIST_BUCKETS];
	local64_t count;
	local64_t sum_ns;
	local64_t max_ns;
	local64_t missed;
	local64_t keys_lost;
};

/* One key's histogram on one CPU; @key is the tgid or tid + 1 (0: free). */
struct kprof_rq_key {
	u32 key;
	local64_t buckets[KPROF_RUNQLAT_KEY_BUCKETS];
};

/* slots tried for a key before its wait counts as keys_lost */
#define KPROF_RQ_KEY_PROBES	32

/* Run-queue latency: slots of the table of waiting threads (512 KiB). */
#define KPROF_RQ_SLOTS		BIT(16)

/**
 * struct kprof_probe - a probe of one event
 * @kev: its event
 * @kp: the kprobe (KPROF_TYPE_KPROBE)
 * @ops: the ftrace_ops (KPROF_TYPE_FTRACE)
 * @hits: hits per CPU, of the process filter's survivors
 * @funcs: per CPU, hits per function (ftrace)
 * @rp: the kretprobe (KPROF_TYPE_LATENCY)
 * @hist: per-CPU latency histograms (KPROF_TYPE_LATENCY, KPROF_TYPE_RUNQLAT)
 * @wait: when each waiting task became runnable (KPROF_TYPE_RUNQLAT)
 * @keys: per CPU, the per-process or per-thread histograms (runqlat -P/-L)
 * @registered: @kp, @ops or @rp (or the sched tracepoint probes) is live
 */
struct kprof_probe {
	struct kprof_event *kev;
	struct kprobe kp;
	struct ftrace_ops ops;
	struct kretprobe rp;
	struct kprof_hist __percpu *hist;
	u64 __percpu *hits;
	struct kprof_func_count **funcs;
	struct kprof_taskstate wait;
	struct kprof_rq_key **keys;
	bool registered;
};

/* Does this hit concern the session?  Context: preemption disabled. */
static notrace bool kprof_probe_wanted(struct kprof_event *kev)
{
	struct kprof_session *s = kev->session;

	return (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ?
		cpumask_test_cpu(smp_processor_id(), s->cfg.cpus) :
		kprof_task_followed(s, current);
}

NOKPROBE_SYMBOL(kprof_probe_wanted);

static notrace void kprof_func_count(struct kprof_probe *p, unsigned long ip)
{
	struct kprof_func_count *t = p->funcs[smp_processor_id()];
	u32 i, slot = hash_long(ip, 32) % KPROF_FUNC_SLOTS;

	for (i = 0; i < KPROF_FUNC_SLOTS; i++, slot = (slot + 1) % KPROF_FUNC_SLOTS) {
		unsigned long cur = READ_ONCE(t[slot].ip);

		if (!cur)
			cur = cmpxchg(&t[slot].ip, 0, ip) ?: ip;
		if (cur == ip) {
			local64_inc(&t[slot].hits);
			return;
		}
	}
}

NOKPROBE_SYMBOL(kprof_func_count);

/*
 * A probe hit, behind the entry guard: counted and sampled, or counted as
 * lost to recursion when a kprof handler already runs at this level.
 * Context: preemption disabled.
 */
static notrace void kprof_probe_hit(struct kprof_probe *p, struct pt_regs *regs,
				    unsigned long ip)
{
	int level = kprof_guard_enter();

	if (unlikely(level < 0)) {
		if (kprof_probe_wanted(p->kev))
			kprof_sample_recursion(p->kev);
		return;
	}
	if (kprof_probe_wanted(p->kev)) {
		this_cpu_inc(*p->hits);
		if (ip)
			kprof_func_count(p, ip);
		kprof_sample(p->kev, regs, 1, NULL, false, level, ktime_get_mono_fast_ns());
	}
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_probe_hit);

/*
 * Runs from the int3 handler (in_nmi()) or, optimized, from a jump in the
 * probed code's own context; kprobes already refuses a kprobe hit inside
 * another kprobe's handler (counted in its nmissed).
 *
 * The registers are the ones an int3 leaves: x86 kprobes set ip one byte
 * past the probed address, for optimized and ftrace-based probes too.  The
 * probed instruction has not run, so its address is the sample's ip and
 * the place the unwinder must look the frame up: from ip + 1 it reads the
 * next instruction's ORC entry when the probed one is a single byte (a
 * push), and the chain ends at its first frame (6.12's run_timer_softirq+9;
 * perf's kprobe samples stop there too).  A copy carries the probed address.
 */
static notrace int kprof_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_regs at = *regs;

	instruction_pointer_set(&at, (unsigned long)kp->addr);
	kprof_probe_hit(container_of(kp, struct kprof_probe, kp), &at, 0);
	return 0;
}

NOKPROBE_SYMBOL(kprof_kprobe_pre);

static notrace int kprof_lat_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kprof_probe *p = container_of(get_kretprobe(ri), struct kprof_probe, rp);

	if (!kprof_probe_wanted(p->kev))
		return 1;	/* not ours: no return probe for this call */
	*(u64 *)ri->data = ktime_get_mono_fast_ns();
	return 0;
}

NOKPROBE_SYMBOL(kprof_lat_entry);

/* Count @ns in this CPU's histogram of @p, in bucket @b. */
static notrace void kprof_hist_add(struct kprof_probe *p, unsigned int b, u64 ns)
{
	struct kprof_hist *h = this_cpu_ptr(p->hist);
	u64 old;

	this_cpu_inc(*p->hits);
	local64_inc(&h->buckets[min_t(unsigned int, b, KPROF_HIST_BUCKETS - 1)]);
	local64_inc(&h->count);
	local64_add(ns, &h->sum_ns);
	old = local64_read(&h->max_ns);
	while (ns > old) {
		u64 prev = local64_cmpxchg(&h->max_ns, old, ns);

		if (prev == old)
			break;
		old = prev;
	}
}

NOKPROBE_SYMBOL(kprof_hist_add);

static notrace int kprof_lat_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kprof_probe *p = container_of(get_kretprobe(ri), struct kprof_probe, rp);
	u64 ns = ktime_get_mono_fast_ns() - *(u64 *)ri->data;

	kprof_hist_add(p, ns ? fls64(ns) - 1 : 0, ns);
	return 0;
}

NOKPROBE_SYMBOL(kprof_lat_return);

/* --- run-queue latency ------------------------------------------------ */

/* @t became runnable now: note it, when the session follows it. */
static notrace void kprof_rq_enqueue(struct kprof_probe *p, struct task_struct *t)
{
	struct kprof_session *s = p->kev->session;

	if (!t->pid)
		return;		/* the idle task never waits */
	if (!(s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) &&
	    !kprof_task_followed(s, t))
		return;
	if (kprof_taskstate_set(&p->wait, t->pid, ktime_get_mono_fast_ns()))
		local64_inc(&this_cpu_ptr(p->hist)->missed);
}

NOKPROBE_SYMBOL(kprof_rq_enqueue);

/* sched_wakeup, sched_wakeup_new: any context, the task's rq lock held. */
static notrace void kprof_rq_wakeup(void *data, struct task_struct *t)
{
	int level = kprof_guard_enter();

	if (level < 0)
		return;
	kprof_rq_enqueue(data, t);
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_rq_wakeup);

/*
 * sched_switch: the rq lock held, interrupts off.  A preempted @prev (or
 * one still TASK_RUNNING) waits on the run queue again; @next's wait ends.
 */
/* Count a wait of bucket @b in @key's histogram of this CPU.  Context: irqs off. */
static notrace void kprof_rq_key_add(struct kprof_probe *p, u32 key, unsigned int b)
{
	struct kprof_rq_key *t = p->keys[smp_processor_id()];
	u32 i, slot = hash_32(key, 32) % KPROF_RUNQLAT_MAX_KEYS;

	key++;
	for (i = 0; i < KPROF_RQ_KEY_PROBES; i++, slot = (slot + 1) % KPROF_RUNQLAT_MAX_KEYS) {
		u32 cur = READ_ONCE(t[slot].key);

		if (!cur)
			cur = cmpxchg(&t[slot].key, 0, key) ?: key;
		if (cur == key) {
			local64_inc(&t[slot].buckets[min_t(unsigned int, b,
							   KPROF_RUNQLAT_KEY_BUCKETS - 1)]);
			return;
		}
	}
	local64_inc(&this_cpu_ptr(p->hist)->keys_lost);
}

NOKPROBE_SYMBOL(kprof_rq_key_add);

static notrace void kprof_rq_switch(void *data, bool preempt, struct task_struct *prev,
				    struct task_struct *next, unsigned int prev_state)
{
	static const u64 div[] = {
		[KPROF_RUNQLAT_USECS] = NSEC_PER_USEC,
		[KPROF_RUNQLAT_MSECS] = NSEC_PER_MSEC,
		[KPROF_RUNQLAT_NSECS] = 1,
	};
	struct kprof_probe *p = data;
	struct kprof_session *s = p->kev->session;
	int level = kprof_guard_enter();
	u64 then, ns;

	if (level < 0)
		return;
	if (preempt || prev_state == TASK_RUNNING)
		kprof_rq_enqueue(p, prev);
	if (next->pid && kprof_taskstate_take(&p->wait, next->pid, &then) &&
	    (!(s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ||
	     cpumask_test_cpu(smp_processor_id(), s->cfg.cpus))) {
		u64 config = p->kev->cfg.config;
		unsigned int b;

		ns = ktime_get_mono_fast_ns() - then;
		b = fls64(div64_u64(ns, div[config & KPROF_RUNQLAT_UNIT_MASK]));
		kprof_hist_add(p, b, ns);
		if (config & KPROF_RUNQLAT_F_PID)
			kprof_rq_key_add(p, next->tgid, b);
		else if (config & KPROF_RUNQLAT_F_TID)
			kprof_rq_key_add(p, next->pid, b);
	}
	kprof_guard_exit(level);
}

NOKPROBE_SYMBOL(kprof_rq_switch);

static int kprof_rq_register(struct kprof_probe *p)
{
	int ret;

	ret = kprof_ktp_register(KPROF_KTP_WAKEUP, kprof_rq_wakeup, p);
	if (ret)
		return ret;
	ret = kprof_ktp_register(KPROF_KTP_WAKEUP_NEW, kprof_rq_wakeup, p);
	if (ret)
		goto out_wakeup;
	ret = kprof_ktp_register(KPROF_KTP_SWITCH, kprof_rq_switch, p);
	if (ret)
		goto out_wakeup_new;
	return 0;

out_wakeup_new:
	kprof_ktp_unregister(KPROF_KTP_WAKEUP_NEW, kprof_rq_wakeup, p);
out_wakeup:
	kprof_ktp_unregister(KPROF_KTP_WAKEUP, kprof_rq_wakeup, p);
	kprof_ktp_sync();
	return ret;
}

/* Unhook the three probes; returns when none runs any more. */
static void kprof_rq_unregister(struct kprof_probe *p)
{
	kprof_ktp_unregister(KPROF_KTP_SWITCH, kprof_rq_switch, p);
	kprof_ktp_unregister(KPROF_KTP_WAKEUP_NEW, kprof_rq_wakeup, p);
	kprof_ktp_unregister(KPROF_KTP_WAKEUP, kprof_rq_wakeup, p);
	kprof_ktp_sync();
}

/*
 * ftrace calls this without its own recursion protection (no
 * FTRACE_OPS_FL_RECURSION): kprof's guard is the protection, and counts
 * what it refuses.  The callback may be called preemptible, so preemption
 * goes off first: the guard and the rings are per CPU.
 */
static void notrace kprof_ftrace_func(unsigned long ip, unsigned long parent_ip,
				      struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct kprof_probe *p = container_of(ops, struct kprof_probe, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (!regs)
		return;
	preempt_disable_notrace();
	kprof_probe_hit(p, regs, ip);
	preempt_enable_notrace();
}

static void kprof_probe_free(struct kprof_probe *p)
{
	unsigned int cpu;

	if (!p)
		return;
	if (p->funcs) {
		for_each_possible_cpu(cpu)
			kvfree(p->funcs[cpu]);
		kfree(p->funcs);
	}
	if (p->keys) {
		for_each_possible_cpu(cpu)
			kvfree(p->keys[cpu]);
		kfree(p->keys);
	}
	kprof_taskstate_free(&p->wait);
	free_percpu(p->hist);
	free_percpu(p->hits);
	kfree(p);
}

/* A latency probe's kretprobe instances: sleeping functions hold one each. */
static int kprof_lat_maxactive(void)
{
	return max_t(int, 64, 4 * num_possible_cpus());
}

/**
 * kprof_probes_bytes() - the memory a session's probes take
 * @s: the session, not started
 *
 * For the sessions' budget: each probe's per-CPU counts and histograms
 * (per possible CPU), its wait slots or task-state table, a kretprobe's
 * instances.
 *
 * Return: the bytes.
 */
u64 kprof_probes_bytes(const struct kprof_session *s)
{
	u64 per_cpu, bytes = 0;
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		const struct kprof_event_config *cfg = &s->events[i].cfg;

		if (!kprof_event_is_probe(&s->events[i]))
			continue;
		if (cfg->type == KPROF_TYPE_OFFCPU || cfg->type == KPROF_TYPE_LOCK) {
			bytes += kprof_waits_bytes();
			continue;
		}
		per_cpu = sizeof(u64);
		bytes += sizeof(struct kprof_probe);
		if (cfg->type == KPROF_TYPE_RUNQLAT) {
			per_cpu += sizeof(struct kprof_hist);
			bytes += (u64)KPROF_RQ_SLOTS * sizeof(u64);
			if (cfg->config & (KPROF_RUNQLAT_F_PID | KPROF_RUNQLAT_F_TID))
				per_cpu += KPROF_RUNQLAT_MAX_KEYS * sizeof(struct kprof_rq_key);
		} else if (cfg->type == KPROF_TYPE_LATENCY) {
			per_cpu += sizeof(struct kprof_hist);
			bytes += (u64)kprof_lat_maxactive() *
				 (sizeof(struct kretprobe_instance) + sizeof(u64));
		} else if (cfg->type == KPROF_TYPE_FTRACE) {
			per_cpu += (u64)KPROF_FUNC_SLOTS * sizeof(struct kprof_func_count);
		}
		bytes += per_cpu * num_possible_cpus();
	}
	return bytes;
}

static int kprof_probe_start(struct kprof_event *kev, struct netlink_ext_ack *extack)
{
	struct kprof_probe *p;
	unsigned int cpu;
	int ret;

	if (kev->cfg.type == KPROF_TYPE_OFFCPU)
		return kprof_offcpu_start(kev, extack);
	if (kev->cfg.type == KPROF_TYPE_LOCK)
		return kprof_lock_start(kev, extack);

	/* what tracefs refuses under lockdown, kprof refuses too */
	if (kev->cfg.type == KPROF_TYPE_RUNQLAT) {
		/* tracepoints, as perf sched reads them: not locked down */
	} else if (kev->cfg.type == KPROF_TYPE_FTRACE) {
		ret = kprof_lockdown_ftrace();
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: function tracing refused: kernel locked down");
			return ret;
		}
	} else {
		ret = kprof_lockdown_kprobes();
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: kprobes refused: kernel locked down");
			return ret;
		}
	}

	p = kzalloc(sizeof(*p), KPROF_GFP);
	if (!p)
		return -ENOMEM;
	p->kev = kev;
	p->hits = alloc_percpu_gfp(u64, KPROF_GFP);
	if (!p->hits) {
		ret = -ENOMEM;
		goto out_free;
	}

	if (kev->cfg.type == KPROF_TYPE_RUNQLAT) {
		p->hist = alloc_percpu_gfp(struct kprof_hist, KPROF_GFP);
		if (!p->hist) {
			ret = -ENOMEM;
			goto out_free;
		}
		ret = kprof_taskstate_init(&p->wait, KPROF_RQ_SLOTS, ktime_get_mono_fast_ns(),
					   KPROF_GFP);
		if (ret)
			goto out_free;
		if (kev->cfg.config & (KPROF_RUNQLAT_F_PID | KPROF_RUNQLAT_F_TID)) {
			ret = -ENOMEM;
			p->keys = kcalloc(nr_cpu_ids, sizeof(*p->keys), KPROF_GFP);
			if (!p->keys)
				goto out_free;
			for_each_possible_cpu(cpu) {
				p->keys[cpu] = kvcalloc(KPROF_RUNQLAT_MAX_KEYS, sizeof(**p->keys),
							KPROF_GFP);
				if (!p->keys[cpu])
					goto out_free;
			}
		}
		ret = kprof_rq_register(p);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot hook the scheduler tracepoints");
			goto out_free;
		}
	} else if (kev->cfg.type == KPROF_TYPE_LATENCY) {
		p->hist = alloc_percpu_gfp(struct kprof_hist, KPROF_GFP);
		if (!p->hist) {
			ret = -ENOMEM;
			goto out_free;
		}
		p->rp.kp.symbol_name = kev->cfg.symbol;
		p->rp.entry_handler = kprof_lat_entry;
		p->rp.handler = kprof_lat_return;
		p->rp.data_size = sizeof(u64);
		p->rp.maxactive = kprof_lat_maxactive();
		ret = register_kretprobe(&p->rp);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot probe this function (missing, notrace or blacklisted)");
			goto out_free;
		}
	} else if (kev->cfg.type == KPROF_TYPE_KPROBE) {
		p->kp.symbol_name = kev->cfg.symbol;
		p->kp.offset = kev->cfg.offset;
		p->kp.pre_handler = kprof_kprobe_pre;
		ret = register_kprobe(&p->kp);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot probe this function (missing, notrace or blacklisted)");
			goto out_free;
		}
	} else {
		p->funcs = kcalloc(nr_cpu_ids, sizeof(*p->funcs), KPROF_GFP);
		if (!p->funcs) {
			ret = -ENOMEM;
			goto out_free;
		}
		for_each_possible_cpu(cpu) {
			p->funcs[cpu] = kvcalloc(KPROF_FUNC_SLOTS, sizeof(**p->funcs), KPROF_GFP);
			if (!p->funcs[cpu]) {
				ret = -ENOMEM;
				goto out_free;
			}
		}
		p->ops.func = kprof_ftrace_func;
		p->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
		ret = ftrace_set_filter(&p->ops, kev->cfg.symbol, strlen(kev->cfg.symbol), 1);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: no traceable function matches the glob");
			goto out_free_hash;
		}
		ret = register_ftrace_function(&p->ops);
		if (ret) {
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot register the ftrace probe");
			goto out_free_hash;
		}
	}
	p->registered = true;
	kev->probe = p;
	return 0;

out_free_hash:
	ftrace_free_filter(&p->ops);
out_free:
	kprof_probe_free(p);
	return ret;
}

static void kprof_probe_stop(struct kprof_event *kev)
{
	struct kprof_probe *p = kev->probe;

	kprof_offcpu_stop(kev);
	kprof_lock_stop(kev);
	if (!p || !p->registered)
		return;
	/* each waits for handlers still running */
	if (kev->cfg.type == KPROF_TYPE_RUNQLAT) {
		kprof_rq_unregister(p);
	} else if (kev->cfg.type == KPROF_TYPE_LATENCY) {
		unregister_kretprobe(&p->rp);
	} else if (kev->cfg.type == KPROF_TYPE_KPROBE) {
		unregister_kprobe(&p->kp);
	} else {
		unregister_ftrace_function(&p->ops);
		ftrace_free_filter(&p->ops);
	}
	p->registered = false;
}

/**
 * kprof_probes_start() - register the probes of a session's probe events
 * @s: the session, its counters created
 * @extack: for error messages
 *
 * Context: process context, the session lock held (session.c).
 * Return: 0, or a negative errno with every probe of @s unregistered.
 */
int kprof_probes_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_events; i++) {
		if (!kprof_event_is_probe(&s->events[i]))
			continue;
		ret = kprof_probe_start(&s->events[i], extack);
		if (ret) {
			kprof_probes_stop(s);
			return ret;
		}
	}
	return 0;
}

/**
 * kprof_probes_stop() - unregister a session's probes; their counts stay
 * @s: the session
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_probes_stop(struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		kprof_probe_stop(&s->events[i]);
}

/**
 * kprof_probes_move_waits() - a swap closed a half: move the open waits
 * @s: the session, read in intervals
 * @half: the half closed
 * @swap_ns: the swap's time
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_probes_move_waits(struct kprof_session *s, unsigned int half, u64 swap_ns)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_waits *w = kprof_offcpu_waits(&s->events[i]);

		if (!w)
			w = kprof_lock_waits(&s->events[i]);
		if (w)
			kprof_waits_move(w, half, swap_ns);
	}
}

void kprof_probes_free(struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		kprof_probe_free(s->events[i].probe);
		s->events[i].probe = NULL;
		kprof_offcpu_free(&s->events[i]);
		kprof_lock_free(&s->events[i]);
	}
}

/* Sum the per-CPU counts of an ftrace probe by function and print them. */
static void kprof_probe_show_funcs(struct seq_file *m, struct kprof_probe *p)
{
	struct kprof_func_sum {
		unsigned long ip;
		u64 hits;
	} *sum;
	unsigned int cpu, slot, i;

	sum = kvcalloc(KPROF_FUNC_SLOTS, sizeof(*sum), KPROF_GFP);
	if (!sum)
		return;
	for_each_possible_cpu(cpu) {
		for (slot = 0; slot < KPROF_FUNC_SLOTS; slot++) {
			unsigned long ip = READ_ONCE(p->funcs[cpu][slot].ip);
			u32 h;

			if (!ip)
				continue;
			h = hash_long(ip, 32) % KPROF_FUNC_SLOTS;
			for (i = 0; i < KPROF_FUNC_SLOTS; i++, h = (h + 1) % KPROF_FUNC_SLOTS) {
				if (!sum[h].ip || sum[h].ip == ip)
					break;
			}
			sum[h].ip = ip;
			sum[h].hits += local64_read(&p->funcs[cpu][slot].hits);
		}
	}
	for (slot = 0; slot < KPROF_FUNC_SLOTS; slot++)
		if (sum[slot].ip)
			seq_printf(m, "  %ps %llu\n", (void *)sum[slot].ip, sum[slot].hits);
	kvfree(sum);
}

/**
 * kprof_probe_hist() - a latency probe's histogram summed over CPUs
 * @kev: the event
 * @out: where to store it
 *
 * Return: false when @kev has no histogram.
 */
bool kprof_probe_hist(struct kprof_event *kev, struct kprof_hist_sum *out)
{
	struct kprof_probe *p = kev->probe;
	unsigned int cpu, b;

	if (!p || !p->hist)
		return false;
	memset(out, 0, sizeof(*out));
	for_each_possible_cpu(cpu) {
		struct kprof_hist *h = per_cpu_ptr(p->hist, cpu);

		for (b = 0; b < KPROF_HIST_BUCKETS; b++)
			out->buckets[b] += local64_read(&h->buckets[b]);
		out->count += local64_read(&h->count);
		out->sum_ns += local64_read(&h->sum_ns);
		out->max_ns = max_t(u64, out->max_ns, local64_read(&h->max_ns));
		out->missed += local64_read(&h->missed);
		out->keys_lost += local64_read(&h->keys_lost);
	}
	out->missed += READ_ONCE(p->rp.nmissed);
	return true;
}

/**
 * kprof_probe_hist_keys() - the per-key run-queue latency histograms, CPU by CPU
 * @kev: the event
 * @cursor: where to go on: 0 at first, then as returned here
 * @out: room for @max entries
 * @max: at most this many
 *
 * Return: the entries stored (0: no more, or @kev keeps no keys).
 */
unsigned int kprof_probe_hist_keys(struct kprof_event *kev, unsigned long *cursor,
				   struct kprof_hist_key *out, unsigned int max)
{
	struct kprof_probe *p = kev->probe;
	unsigned long pos = *cursor;
	unsigned int n = 0, b;

	if (!p || !p->keys)
		return 0;
	for (; n < max && pos < (unsigned long)nr_cpu_ids * KPROF_RUNQLAT_MAX_KEYS; pos++) {
		unsigned int cpu = pos / KPROF_RUNQLAT_MAX_KEYS;
		const struct kprof_rq_key *e;
		u32 key;

		if (!cpu_possible(cpu)) {
			pos = (cpu + 1UL) * KPROF_RUNQLAT_MAX_KEYS - 1;
			continue;
		}
		e = &p->keys[cpu][pos % KPROF_RUNQLAT_MAX_KEYS];
		key = READ_ONCE(e->key);
		if (!key)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].key = key - 1;
		for (b = 0; b < KPROF_RUNQLAT_KEY_BUCKETS; b++)
			out[n].buckets[b] = local64_read(&e->buckets[b]);
		n++;
	}
	*cursor = pos;
	return n;
}

/*
 * The rows of @nr buckets: funclatency's ([2^b, 2^(b+1) - 1] ns), or with
 * @runqlat BCC runqlat's (bucket b holds [2^(b-1), 2^b - 1]; 0 goes with 1).
 */
static void kprof_show_rows(struct seq_file *m, u64 *buckets, unsigned int nr, bool runqlat)
{
	unsigned int b, first = nr, last = 0;
	u64 peak = 0;

	if (runqlat) {
		buckets[1] += buckets[0];
		buckets[0] = 0;
	}
	for (b = 0; b < nr; b++) {
		if (!buckets[b])
			continue;
		first = min(first, b);
		last = b;
		peak = max(peak, buckets[b]);
	}
	for (b = first; b <= last && b < nr; b++) {
		unsigned int stars = peak ? div64_u64(buckets[b] * 40, peak) : 0;
		u64 lo = b ? 1ULL << b : 0, hi = (1ULL << (b + 1)) - 1;

		if (runqlat) {
			lo = b > 1 ? 1ULL << (b - 1) : 0;
			hi = (1ULL << b) - 1;
		}
		seq_printf(m, "  %20llu -> %-20llu : %-10llu |%-40.*s|\n", lo, hi, buckets[b],
			   stars, "****************************************");
	}
}

static const char * const kprof_rq_units[] = { "usecs", "msecs", "nsecs" };

/* funclatency-style: each non-empty bucket range, its count and a bar. */
static void kprof_probe_show_hist(struct seq_file *m, struct kprof_probe *p)
{
	bool runqlat = p->kev->cfg.type == KPROF_TYPE_RUNQLAT;
	struct kprof_hist_sum *h;

	h = kzalloc(sizeof(*h), KPROF_GFP);
	if (!h || !kprof_probe_hist(p->kev, h))
		goto out_free;
	seq_printf(m, "  count %llu avg_ns %llu max_ns %llu missed %llu\n", h->count,
		   h->count ? div64_u64(h->sum_ns, h->count) : 0, h->max_ns, h->missed);
	if (runqlat)
		seq_printf(m, "  %s\n",
			   kprof_rq_units[p->kev->cfg.config & KPROF_RUNQLAT_UNIT_MASK]);
	kprof_show_rows(m, h->buckets, KPROF_HIST_BUCKETS, runqlat);
out_free:
	kfree(h);
}

static int kprof_hist_key_cmp(const void *a, const void *b)
{
	const struct kprof_hist_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/* The per-key histograms of @p, added up over CPUs, by key. */
static void kprof_probe_show_keys(struct seq_file *m, struct kprof_probe *p)
{
	const char *what = p->kev->cfg.config & KPROF_RUNQLAT_F_PID ? "pid" : "tid";
	size_t max = (size_t)nr_cpu_ids * KPROF_RUNQLAT_MAX_KEYS, n = 0, i, j;
	struct kprof_hist_key *keys;
	unsigned long cursor = 0;
	unsigned int got, b;

	keys = kvcalloc(max, sizeof(*keys), KPROF_GFP);
	if (!keys)
		return;
	while (n < max && (got = kprof_probe_hist_keys(p->kev, &cursor, keys + n, max - n)))
		n += got;
	sort(keys, n, sizeof(*keys), kprof_hist_key_cmp, NULL);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].key == keys[i].key; j++)
			for (b = 0; b < KPROF_RUNQLAT_KEY_BUCKETS; b++)
				keys[i].buckets[b] += keys[j].buckets[b];
		seq_printf(m, "\n%s = %u\n", what, keys[i].key);
		kprof_show_rows(m, keys[i].buckets, KPROF_RUNQLAT_KEY_BUCKETS, true);
	}
	kvfree(keys);
}

/**
 * kprof_probes_show_runqlat() - debugfs runqlat: the run-queue latency histograms
 * @m: the seq_file
 * @s: the session
 *
 * As BCC's runqlat prints them: the whole histogram of each runqlat event,
 * then, with per-process or per-thread keys, one per key.
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_probes_show_runqlat(struct seq_file *m, struct kprof_session *s)
{
	unsigned int i, shown = 0;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_probe *p = s->events[i].probe;
		struct kprof_hist_sum *h;

		if (!p || p->kev->cfg.type != KPROF_TYPE_RUNQLAT)
			continue;
		h = kzalloc(sizeof(*h), KPROF_GFP);
		if (!h || !kprof_probe_hist(p->kev, h)) {
			kfree(h);
			continue;
		}
		seq_printf(m, "event %u: %llu waits, %llu missed, %llu not in a key's histogram\n",
			   i, h->count, h->missed, h->keys_lost);
		seq_printf(m, "  %20s : count     distribution\n",
			   kprof_rq_units[p->kev->cfg.config & KPROF_RUNQLAT_UNIT_MASK]);
		kprof_show_rows(m, h->buckets, KPROF_HIST_BUCKETS, true);
		kfree(h);
		if (p->keys)
			kprof_probe_show_keys(m, p);
		shown++;
	}
	if (!shown)
		seq_puts(m, "no run-queue latency event in the session\n");
}

static const char *kprof_probe_kind(const struct kprof_event *kev)
{
	switch (kev->cfg.type) {
	case KPROF_TYPE_KPROBE:
		return "kprobe";
	case KPROF_TYPE_FTRACE:
		return "ftrace";
	case KPROF_TYPE_RUNQLAT:
		return "runqlat";
	default:
		return "latency";
	}
}

/**
 * kprof_probes_show_session() - debugfs probes: each probe, its hits, per function
 * @m: the seq_file
 * @s: the session
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_probes_show_session(struct seq_file *m, struct kprof_session *s)
{
	unsigned int i, cpu;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_probe *p = s->events[i].probe;
		u64 hits = 0;

		if (!p)
			continue;
		for_each_possible_cpu(cpu)
			hits += *per_cpu_ptr(p->hits, cpu);
		seq_printf(m, "event %u %s %s %s hits %llu\n", i, kprof_probe_kind(p->kev),
			   p->kev->cfg.type == KPROF_TYPE_RUNQLAT ? "-" : p->kev->cfg.symbol,
			   p->registered ? "active" : "removed", hits);
		if (p->funcs)
			kprof_probe_show_funcs(m, p);
		if (p->hist)
			kprof_probe_show_hist(m, p);
	}
}
