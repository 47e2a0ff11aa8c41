/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - counting mode (counting.c): the counting session behind
 * "kprofctl stat".  Its requests and replies are made by the netlink layer
 * (genl.c) from and into the plain structures below.
 */
#ifndef _KPROF_COUNTING_H
#define _KPROF_COUNTING_H

#include <linux/types.h>
#include <uapi/linux/kprof.h>

struct cpumask;
struct net;
struct netlink_ext_ack;
struct nlattr;
struct seq_file;

/**
 * struct kprof_count_event_request - one event to count
 * @type: PERF_TYPE_HARDWARE, _SOFTWARE, _HW_CACHE or _RAW
 * @config: perf_event_attr.config
 * @flags: KPROF_EV_F_*
 * @name: as the user spelled it
 * @attr: its request attribute, for error messages
 */
struct kprof_count_event_request {
	u32 type;
	u64 config;
	u32 flags;
	char name[KPROF_EVENT_NAME_MAX];
	const struct nlattr *attr;
};

/**
 * struct kprof_count_request - a validated COUNT_START request
 * @flags: KPROF_SESSION_F_SYSTEM_WIDE, _F_INHERIT, _F_THREADS
 * @count_flags: KPROF_COUNT_F_*
 * @cpus: system-wide: the CPUs to count on
 * @nr_pids: per task: entries of @pids
 * @pids: the processes counted (the threads, with F_THREADS)
 * @pid_attrs: the attribute of each, for error messages
 * @owner_net: the network namespace of the socket that owns the session
 * @owner_portid: its netlink port
 * @owner_pid: the process that asked (its tgid), for STATUS
 * @nr_events: entries of @events
 * @events: the events
 */
struct kprof_count_request {
	u32 flags;
	u32 count_flags;
	const struct cpumask *cpus;
	unsigned int nr_pids;
	pid_t pids[KPROF_MAX_PIDS];
	const struct nlattr *pid_attrs[KPROF_MAX_PIDS];
	struct net *owner_net;
	u32 owner_portid;
	u32 owner_pid;
	unsigned int nr_events;
	struct kprof_count_event_request events[KPROF_MAX_EVENTS];
};

/**
 * struct kprof_count_info - one counting session, as STATUS lists it
 * @id: its id (the counting sessions' own numbering)
 * @state: KPROF_STATE_RUNNING or KPROF_STATE_STOPPED (held for its reads)
 * @flags: KPROF_SESSION_F_SYSTEM_WIDE, _F_INHERIT, _F_THREADS
 * @owner_pid: the process that started it; it ends with that socket
 * @uid: the user that started it, in the reader's user namespace
 * @start_ns: CLOCK_MONOTONIC at its start
 * @nr_events: its events
 * @mem: what kprof allocated for it, in bytes (the perf counters apart)
 */
struct kprof_count_info {
	u64 id;
	u32 state;
	u32 flags;
	u32 owner_pid;
	u32 uid;
	u64 start_ns;
	u32 nr_events;
	u64 mem;
};

/**
 * struct kprof_count_reading - one count of a snapshot
 * @value: count
 * @enabled: time enabled, ns
 * @running: time running, ns
 * @event: index of the event
 * @cpu: the CPU, or -1 for a per-task session
 * @error: positive errno when perf refused the counter, else 0
 */
struct kprof_count_reading {
	u64 value;
	u64 enabled;
	u64 running;
	u32 event;
	s32 cpu;
	u32 error;
};

/**
 * struct kprof_count_snapshot - every count of the session at one time
 * @id: the session's id
 * @state: KPROF_COUNT_STATE_RUNNING, or _STOPPED once stopped
 * @elapsed_ns: ns counted, from the start to this read or to the stop
 * @nr: entries of @r
 * @pos: the reader's: the next entry to send
 * @names: the events' names
 * @types: their PERF_TYPE_*
 * @configs: their perf_event_attr.config
 * @r: the counts
 */
struct kprof_count_snapshot {
	u64 id;
	u32 state;
	u64 elapsed_ns;
	unsigned int nr;
	unsigned int pos;
	char names[KPROF_MAX_EVENTS][KPROF_EVENT_NAME_MAX];
	u32 types[KPROF_MAX_EVENTS];
	u64 configs[KPROF_MAX_EVENTS];
	struct kprof_count_reading r[];
};

int kprof_count_start(const struct kprof_count_request *req, u64 *id, u32 *errors,
		      struct netlink_ext_ack *extack);
int kprof_count_stop(const u64 *id, u64 *stopped, struct netlink_ext_ack *extack);
unsigned int kprof_count_list(struct kprof_count_info *out, unsigned int max);
struct kprof_count_snapshot *kprof_count_read(const u64 *id, int *err);
void kprof_count_refusal(struct netlink_ext_ack *extack, int err);
void kprof_count_release(struct net *net, u32 portid);

/* /sys/kernel/debug/kprof/counters (debugfs.c) */
int kprof_counters_show(struct seq_file *m, void *v);

void kprof_counting_exit(void);

#endif /* _KPROF_COUNTING_H */
