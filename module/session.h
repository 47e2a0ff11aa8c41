/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - profiling sessions.
 */
#ifndef _KPROF_SESSION_H
#define _KPROF_SESSION_H

#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <uapi/linux/kprof.h>

#include "procmap.h"
#include "ring.h"
#include "target.h"

struct netlink_ext_ack;
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
	u32 bp_type;	/* PERF_TYPE_BREAKPOINT: HW_BREAKPOINT_* */
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
 */
struct kprof_session_config {
	u32 flags;
	u32 freq;
	u64 period;
	u32 buffer_size;
	u32 stack_depth;
	u32 watermark;
	u32 agg_entries;
	struct net *owner_net;	/* with KPROF_SESSION_F_OWNED: the owner's socket */
	u32 owner_portid;
	pid_t owner_pid;	/* the owner's process, for STATUS */
	struct cpumask *cpus;	/* kzalloc(cpumask_size()), owned */
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
 * @percpu: system-wide counters, one per CPU (NULL where none)
 * @probe: the kprobe or ftrace probe of a probe event
 * @offcpu: the state of an off-CPU event (offcpu.c)
 * @lock: the state of a lock contention event (lock.c)
 */
struct kprof_event {
	struct kprof_session *session;
	u16 index;
	struct kprof_event_config cfg;
	struct perf_event **percpu;
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

/**
 * struct kprof_mmap_queue - one CPU's MMAP notes awaiting their path
 *
 * Filled by the perf_event_mmap probe on its CPU (single producer),
 * emptied by the session's work item (single consumer).
 */
#define KPROF_MMAP_QUEUE	256
struct kprof_mmap_note {
	u64 time;
	u32 pid, tid;
	u64 start, len, pgoff;
	struct file *file;	/* NULL for the vDSO */
};

struct kprof_mmap_queue {
	unsigned int head;	/* producer */
	unsigned int tail;	/* consumer */
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
 * @tasks: per-task targets (threads of the PIDs), referenced
 * @nr_tasks: entries in @tasks
 * @task_events: per-task counters, nr_tasks x nr_events
 * @pidset: processes whose side-band is recorded (per-task sessions)
 * @pidset_full: a process could not be added to @pidset
 * @mmap_queues: per-CPU MMAP notes
 * @mmap_work: turns MMAP notes into records
 * @sideband_on: the side-band hooks are registered
 * @agg: aggregation tables (KPROF_SESSION_F_AGGREGATE), else NULL
 */
struct kprof_session {
	u64 id;
	struct kprof_session_config cfg;
	u64 start_ns;
	struct kprof_buffers *bufs;
	unsigned int nr_events;
	struct kprof_event events[KPROF_MAX_EVENTS];
	struct task_struct **tasks;
	unsigned int nr_tasks;
	struct perf_event **task_events;
	u32 pidset[KPROF_PIDSET_SLOTS];
	bool pidset_full;
	struct kprof_mmap_queue **mmap_queues;
	struct work_struct mmap_work;
	bool sideband_on;
	struct kprof_agg *agg;
	struct kprof_procmap *procmap;
	struct kprof_cpu_target target;
};

/**
 * struct kprof_session_info - a snapshot of the session for reports
 */
struct kprof_session_info {
	u64 id;
	u32 state;
	u32 flags;
	u32 freq;
	u64 period;
	u32 buffer_size;
	u64 stride;
	u32 watermark;
	u32 stack_depth;
	unsigned int nr_events;
	unsigned int nr_tasks;
	u64 start_ns;
	u32 agg_entries;
	u32 owner_pid;
	struct kprof_stats_snapshot totals;
	bool has_maps;
	struct kprof_procmap_stats maps;
};

/* The running session, for the side-band hooks; NULL when none. */
extern struct kprof_session __rcu *kprof_active;

int kprof_session_start(struct kprof_session_config *cfg, u64 *id,
			struct netlink_ext_ack *extack);
int kprof_session_stop(struct netlink_ext_ack *extack);
struct net;
void kprof_session_release(struct net *net, u32 portid);
struct kprof_session *kprof_session_current(void);
bool kprof_session_info(struct kprof_session_info *info);
int kprof_session_cpu_stats(unsigned int cpu, u64 *id, struct kprof_stats_snapshot *st);
struct kprof_buffers *kprof_session_buffers(void);
int kprof_session_agg_reset(struct netlink_ext_ack *extack);
void kprof_session_totals(struct kprof_session *s, struct kprof_stats_snapshot *t);

int kprof_session_init(void);
void kprof_session_exit(void);

#endif /* _KPROF_SESSION_H */
