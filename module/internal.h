/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - what the module's parts share, private to the module: the
 * session's types (its request, its events, the session itself), the
 * running session's pointer and the set of processes it follows.
 *
 * The parts (sample, sideband, procmap, probes, offcpu, lock, aggread)
 * include this and never session.h, which is the control API (start, stop,
 * status) that the interfaces (netlink, /dev/kprof, debugfs) call.  The
 * state itself is defined in core.c.
 */
#ifndef _KPROF_INTERNAL_H
#define _KPROF_INTERNAL_H

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uidgid.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <uapi/linux/kprof.h>

#include "pidset.h"
#include "ring.h"
#include "target.h"

struct kprof_procmap;
struct nlattr;

/**
 * struct kprof_event_config - one event as requested
 * @type: PERF_TYPE_*
 * @config: perf_event_attr.config
 * @flags: KPROF_EV_F_*
 * @name: the user's spelling, for reports
 * @attr: the netlink attribute it came from, for error messages
 * @period: this event's period; 0 for the session's frequency or period
 * @nr_filter: instructions in @filter; 0 for none
 * @filter: a tracepoint filter, checked
 * @symbol: the kprobe's function or the ftrace event's glob
 * @offset: the kprobe's offset
 * @min_ns: an off-CPU event's shortest block counted
 * @max_ns: ... and longest
 * @bp_type: a breakpoint's kind (PERF_TYPE_BREAKPOINT: HW_BREAKPOINT_*)
 * @bp_len: a breakpoint's length in bytes
 */
struct kprof_event_config {
	u32 type;
	u64 config;
	u32 flags;
	char name[KPROF_EVENT_NAME_MAX];
	const struct nlattr *attr;
	u64 period;
	u32 nr_filter;
	struct kprof_filter_insn filter[KPROF_FILTER_MAX_INSNS];
	char symbol[KPROF_SYMBOL_MAX];
	u32 offset;
	u64 min_ns;
	u64 max_ns;
	u32 bp_type;
	u32 bp_len;
};

/*
 * The perf_event_attr fields of @cfg's type beyond type and config: a
 * breakpoint's address (config), kind and length.  Counting sessions take
 * no breakpoints (yet): they refuse the type.
 */
static inline void kprof_attr_init_type(struct perf_event_attr *attr,
					const struct kprof_event_config *cfg)
{
	if (cfg->type != PERF_TYPE_BREAKPOINT)
		return;
	attr->config = 0;
	attr->bp_addr = cfg->config;
	attr->bp_type = cfg->bp_type;
	attr->bp_len = cfg->bp_len;
}

/**
 * struct kprof_session_config - a validated START request
 * @flags: KPROF_SESSION_F_*
 * @freq: samples per second per event, or 0 for @period
 * @period: events per sample, when @freq is 0
 * @buffer_size: ring data bytes per CPU
 * @stack_depth: frames per chain, kernel and user each
 * @watermark: ring bytes that wake a reader; 0 for half the ring
 * @agg_entries: aggregation table slots per CPU
 * @user_stack: bytes of user stack each stream SAMPLE copies, 0: none
 * @owner_net: with KPROF_SESSION_F_OWNED, the owner's socket's namespace
 * @owner_portid: ... and port id
 * @owner_pid: the owner's process, for STATUS
 * @cpus: the CPUs sampled (kzalloc(cpumask_size()), owned)
 * @nr_pids: entries in @pids; 0 for a system-wide session
 * @pids: the processes followed
 * @pid_attrs: the netlink attribute of each, for error messages
 * @nr_events: entries in @events
 * @events: the events
 */
struct kprof_session_config {
	u32 flags;
	u32 freq;
	u64 period;
	u32 buffer_size;
	u32 stack_depth;
	u32 watermark;
	u32 agg_entries;
	u32 user_stack;
	struct net *owner_net;
	u32 owner_portid;
	pid_t owner_pid;
	struct cpumask *cpus;
	unsigned int nr_pids;
	pid_t pids[KPROF_MAX_PIDS];
	const struct nlattr *pid_attrs[KPROF_MAX_PIDS];
	unsigned int nr_events;
	struct kprof_event_config events[KPROF_MAX_EVENTS];
};

struct kprof_session;

/**
 * struct kprof_event - one event of a running session
 * @session: its session
 * @index: its index, as recorded in samples
 * @cfg: what was requested
 * @probe: the kprobe or ftrace probe of a probe event
 * @offcpu: the state of an off-CPU event (offcpu.c)
 * @lock: the state of a lock contention event (lock.c)
 */
struct kprof_event {
	struct kprof_session *session;
	u16 index;
	struct kprof_event_config cfg;
	struct kprof_probe *probe;
	struct kprof_offcpu *offcpu;
	struct kprof_lock *lock;
};

/* Events kprof probes itself, not perf counters. */
static inline bool kprof_event_is_probe(const struct kprof_event *kev)
{
	return kev->cfg.type == KPROF_TYPE_KPROBE || kev->cfg.type == KPROF_TYPE_FTRACE ||
	       kev->cfg.type == KPROF_TYPE_LATENCY || kev->cfg.type == KPROF_TYPE_RUNQLAT ||
	       kev->cfg.type == KPROF_TYPE_OFFCPU || kev->cfg.type == KPROF_TYPE_LOCK;
}

/* perf's software clocks, which sample from a timer (sample.c weighs them). */
static inline bool kprof_event_is_clock(const struct kprof_event *kev)
{
	return kev->cfg.type == PERF_TYPE_SOFTWARE &&
	       (kev->cfg.config == PERF_COUNT_SW_CPU_CLOCK ||
		kev->cfg.config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Events that time waits into the aggregation tables (wait.c). */
static inline bool kprof_event_type_waits(u32 type)
{
	return type == KPROF_TYPE_OFFCPU || type == KPROF_TYPE_LOCK;
}

/* Events whose hits come from kernel code paths: under the probe cost cap. */
static inline bool kprof_event_is_capped(const struct kprof_event *kev)
{
	return kev->cfg.type == KPROF_TYPE_KPROBE || kev->cfg.type == KPROF_TYPE_FTRACE ||
	       kev->cfg.type == PERF_TYPE_TRACEPOINT;
}

/* Processes followed by a per-task session: lock-free open addressing. */
#define KPROF_PIDSET_SLOTS	4096

#define KPROF_MMAP_QUEUE	256

/**
 * struct kprof_mmap_note - an executable mapping awaiting its path
 * @time: when it was mapped
 * @pid: the process
 * @tid: the thread that mapped it
 * @start: first address
 * @len: bytes
 * @pgoff: file offset of @start, bytes
 * @file: the mapped file, referenced; NULL for the vDSO
 */
struct kprof_mmap_note {
	u64 time;
	u32 pid, tid;
	u64 start, len, pgoff;
	struct file *file;
};

/**
 * struct kprof_mmap_queue - one CPU's MMAP notes awaiting their path
 * @head: the producer's index (the perf_event_mmap probe, on its CPU)
 * @tail: the consumer's index (the MMAP work item, sideband.c)
 * @notes: the ring of notes
 */
struct kprof_mmap_queue {
	unsigned int head;
	unsigned int tail;
	struct kprof_mmap_note notes[KPROF_MMAP_QUEUE];
};

/**
 * struct kprof_session - the profiling session
 * @id: its id, from 1
 * @cfg: the validated request
 * @start_ns: CLOCK_MONOTONIC at start
 * @bufs: its rings (one reference)
 * @nr_events: entries used in @events
 * @events: its events
 * @pidset: processes whose side-band is recorded (per-task sessions)
 * @pidset_full: a process could not be added to @pidset
 * @tidset: with KPROF_SESSION_F_THREADS, the threads followed
 * @mmap_node: on the MMAP work item's list while it records side-band
 *	(sideband.c)
 * @sideband_on: it records side-band: the hooks are registered for it
 * @agg: aggregation tables (KPROF_SESSION_F_AGGREGATE), else NULL
 * @agg_since_ns: with KPROF_SESSION_F_INTERVALS, when the interval being
 *	written began (CLOCK_MONOTONIC: the start, then the last swap);
 *	under @lock
 * @agg_closed: the half the last swap closed still holds its interval:
 *	the next swap clears it first (under @lock)
 * @agg_held: a dump reads the closed half: no swap until it ends (under
 *	@lock)
 * @procmap: mappings kept for the frames of gone processes (aggregating
 *	sessions), else NULL
 * @ctrs: its perf counters, on CPUs or on the threads of the PIDs (target.c)
 * @lock: serialises its stop, reset and readers (session.c); never taken
 *	on a sampling path
 * @ref: references: the session table's, and each reader's
 * @uid: the user that started it: only it, or CAP_SYS_ADMIN, may act on it
 * @state: KPROF_STATE_RUNNING or KPROF_STATE_STOPPED, written under @lock
 *	and the table's lock
 * @node: on the session table, oldest first (session.c)
 * @active: on kprof_active_sessions while its probes and hooks may run
 * @release: on a socket release's local list (session.c)
 * @held: a netlink socket holds the stopped session for reading: its
 *	owner, or the socket that stopped it (under the table's lock)
 * @holder_net: that socket's network namespace
 * @holder_portid: that socket's port
 * @unsaved: a detached aggregating session's tables, stopped and not yet
 *	saved (KPROF_CMD_FREE): kept when no socket holds it, until saved or
 *	the next START (under the table's lock)
 * @mem: the bytes it counts against the sessions' budget (session.c)
 * @cpus_lock: serialises giving a CPU its ring, table and queue
 *	(session.c: kprof_session_cpu_prepare())
 * @cpus_ready: CPUs given them (under @cpus_lock)
 * @cpus_follow: gives each CPU of the session that comes up them, before
 *	its counters are created (target.c)
 * @cpus_skipped: CPUs that came up and could not be given them (out of
 *	memory or over the budget): no event of the session is stored there
 *	(under @cpus_lock)
 * @lost_no_ring: hits of the session's hooks on one of its CPUs that had
 *	no ring: one that came up before its work item gave it one, or a
 *	skipped one (kprof_session_ring())
 */
struct kprof_session {
	u64 id;
	struct kprof_session_config cfg;
	u64 start_ns;
	struct kprof_buffers *bufs;
	unsigned int nr_events;
	struct kprof_event events[KPROF_MAX_EVENTS];
	u32 pidset[KPROF_PIDSET_SLOTS];
	bool pidset_full;
	u32 tidset[KPROF_PIDSET_SLOTS];
	struct list_head mmap_node;
	bool sideband_on;
	struct kprof_agg *agg;
	u64 agg_since_ns;
	bool agg_closed;
	bool agg_held;
	struct kprof_procmap *procmap;
	struct kprof_counters ctrs;
	struct mutex lock;		/* see @lock above */
	refcount_t ref;
	kuid_t uid;
	u32 state;
	struct list_head node;
	struct list_head active;
	struct list_head release;
	bool held;
	struct net *holder_net;
	u32 holder_portid;
	bool unsaved;
	u64 mem;
	struct mutex cpus_lock;		/* see @cpus_lock above */
	cpumask_var_t cpus_ready;
	struct kprof_cpu_target cpus_follow;
	cpumask_var_t cpus_skipped;
	atomic64_t lost_no_ring;
};

/*
 * The sessions whose hooks may run, for the side-band and procmap hooks,
 * which walk it under RCU (preemption disabled); written by session.c
 * (core.c).
 */
extern struct list_head kprof_active_sessions;

/**
 * kprof_pidset_add() - follow a process: its side-band, its probes' hits
 * @s: the session
 * @tgid: the process
 *
 * Lock-free; safe in any context.
 * Return: false when the set is full (and @s->pidset_full is set).
 */
static inline bool kprof_pidset_add(struct kprof_session *s, u32 tgid)
{
	if (kprof_pidset_insert(s->pidset, KPROF_PIDSET_SLOTS, tgid))
		return true;
	WRITE_ONCE(s->pidset_full, true);
	return false;
}

/**
 * kprof_pidset_has() - does a per-task session follow this process?
 * @s: the session
 * @tgid: the process
 *
 * Lock-free; safe in any context.
 * Return: true when @tgid was added.
 */
static inline bool kprof_pidset_has(struct kprof_session *s, u32 tgid)
{
	return kprof_pidset_lookup(s->pidset, KPROF_PIDSET_SLOTS, tgid);
}

/**
 * kprof_tidset_add() - follow one thread (KPROF_SESSION_F_THREADS)
 * @s: the session
 * @tid: the thread
 *
 * Lock-free; safe in any context.
 * Return: false when the set is full (and @s->pidset_full is set).
 */
static inline bool kprof_tidset_add(struct kprof_session *s, u32 tid)
{
	if (kprof_pidset_insert(s->tidset, KPROF_PIDSET_SLOTS, tid))
		return true;
	WRITE_ONCE(s->pidset_full, true);
	return false;
}

/**
 * kprof_task_followed() - does a per-task session follow this task?
 * @s: a per-task session
 * @task: the task
 *
 * Its process with the PIDs of processes, the thread itself with
 * KPROF_SESSION_F_THREADS.  Lock-free; safe in any context.
 * Return: true when it does.
 */
static inline bool kprof_task_followed(struct kprof_session *s, struct task_struct *task)
{
	if (s->cfg.flags & KPROF_SESSION_F_THREADS)
		return kprof_pidset_lookup(s->tidset, KPROF_PIDSET_SLOTS, task_pid_nr(task));
	return kprof_pidset_has(s, task_tgid_nr(task));
}

/**
 * kprof_session_ring() - this CPU's ring, for a hook of @s with an event
 * @s: the session
 *
 * Context: preemption disabled; safe in any context.
 * Return: the ring, or NULL: on a CPU outside a -C session's CPUs, where
 * the session has no events; on one of its CPUs without a ring (it came
 * up moments ago, or was skipped), the hit is counted in @s->lost_no_ring.
 */
static __always_inline struct kprof_ring *kprof_session_ring(struct kprof_session *s)
{
	unsigned int cpu = smp_processor_id();
	struct kprof_ring *ring = kprof_ring_of(s->bufs, cpu);

	if (unlikely(!ring) && (!(s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ||
				cpumask_test_cpu(cpu, s->cfg.cpus)))
		atomic64_inc(&s->lost_no_ring);
	return ring;
}

#endif /* _KPROF_INTERNAL_H */
