/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the perf counters of every session kind (target.c): per event
 * and CPU, following CPU hotplug, or per event and thread of the followed
 * processes.  The only file that creates or releases a perf counter, and
 * the only one that follows CPU hotplug: struct kprof_cpu_target also
 * serves owners that keep other per-CPU state (a session's rings).
 */
#ifndef _KPROF_TARGET_H
#define _KPROF_TARGET_H

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <uapi/linux/kprof.h>

struct kprof_cpu_target;
struct netlink_ext_ack;

/**
 * struct kprof_cpu_target_ops - what an owner does for one CPU
 * @online: create @cpu's counters.  @starting: from kprof_cpu_target_start(),
 *	which fails with the error (create them disabled: @enable starts every
 *	CPU at once when all exist, and @extack names the problem); otherwise
 *	after hotplug (create them enabled, @extack is NULL, the error only
 *	skips the CPU).
 * @offline: release @cpu's counters; NULL for an owner that keeps its
 *	per-CPU state when the CPU goes down
 * @enable: enable @cpu's counters created by a starting @online; may be
 *	NULL
 *
 * Each is called with the target's lock held.
 */
struct kprof_cpu_target_ops {
	int (*online)(struct kprof_cpu_target *t, unsigned int cpu, bool starting,
		      struct netlink_ext_ack *extack);
	void (*offline)(struct kprof_cpu_target *t, unsigned int cpu);
	void (*enable)(struct kprof_cpu_target *t, unsigned int cpu);
};

/**
 * struct kprof_cpu_target - a set of per-CPU counters kept on online CPUs
 * @lock: serialises the owner's start and stop with @online and @offline
 * @cpus: the CPUs to cover (the owner's mask, alive as long as @t is)
 * @covered: CPUs whose counters exist
 * @gen: per CPU, its hotplug generation when its counters were created
 * @ops: the owner's per-CPU operations
 * @work: follows hotplug, outside cpu_hotplug_lock
 * @node: on the list of hooked targets
 * @hooked: on that list
 */
struct kprof_cpu_target {
	struct mutex lock;		/* see above */
	const struct cpumask *cpus;
	cpumask_var_t covered;
	unsigned int *gen;
	const struct kprof_cpu_target_ops *ops;
	struct work_struct work;
	struct list_head node;
	bool hooked;
};

int kprof_cpu_target_init(struct kprof_cpu_target *t, const struct cpumask *cpus,
			  const struct kprof_cpu_target_ops *ops);
int kprof_cpu_target_start(struct kprof_cpu_target *t, struct netlink_ext_ack *extack);
void kprof_cpu_target_stop(struct kprof_cpu_target *t);
void kprof_cpu_target_destroy(struct kprof_cpu_target *t);

/*
 * Per-task targets: the threads of the PIDs one per-task session (sampling
 * or counting) follows, at most KPROF_MAX_TASKS.
 */
#define KPROF_MAX_TASKS		4096

struct kprof_counters;
struct nlattr;
struct perf_event;
struct perf_event_attr;
struct perf_sample_data;
struct pt_regs;
struct task_struct;

/**
 * struct kprof_counter_ops - an engine's counters, as target.c makes them
 * @attr: fill @attr (zeroed but for size and disabled) for event @e's
 *	counter on @slot, on @task when per task, and the overflow handler's
 *	@context; false when @e has no counter (a probe event, or one the
 *	owner found uncountable)
 * @overflow: the overflow handler, or NULL for counters that only count
 * @refused: perf refused event @e's counter on @slot with @err (a positive
 *	errno); @first: no counter of @e was created or refused before;
 *	@starting: from kprof_counters_start() (@extack names the problem)
 *	rather than after CPU hotplug (@extack NULL).  Return 0 to go on
 *	without that counter, or a negative errno: the start fails, or after
 *	hotplug the CPU is skipped
 * @retire: fold a counter's last reading (kprof_counters_read()) into the
 *	owner's totals before it is released; may be NULL
 * @prepare: system-wide, before @cpu's counters are created (at the start
 *	and after it comes up): what the owner's overflow handler needs there;
 *	an error fails the start, or after hotplug skips the CPU; may be NULL
 */
struct kprof_counter_ops {
	bool (*attr)(struct kprof_counters *c, unsigned int e, unsigned int slot,
		     struct task_struct *task, struct perf_event_attr *attr, void **context);
	void (*overflow)(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs);
	int (*refused)(struct kprof_counters *c, unsigned int e, unsigned int slot, int err,
		       bool first, bool starting, struct netlink_ext_ack *extack);
	void (*retire)(struct kprof_counters *c, unsigned int e, unsigned int slot);
	int (*prepare)(struct kprof_counters *c, unsigned int cpu, struct netlink_ext_ack *extack);
};

/**
 * struct kprof_counters - an engine's perf counters: one per event and CPU
 * (system-wide) or per event and thread (per task)
 * @ops: the engine's operations
 * @priv: the engine's, for @ops
 * @nr_events: events
 * @nr_slots: counters per event: nr_cpu_ids, or the threads
 * @events: the counters, [event * @nr_slots + slot], NULL where none
 * @tried: events of which a counter was created or refused
 * @live: counters created by kprof_counters_start()
 * @system_wide: per CPU, following CPU hotplug through @cpu
 * @tasks: per task, until started: the threads, referenced
 * @nr_tasks: per task: the threads found
 * @cpu: system-wide: the CPUs covered
 */
struct kprof_counters {
	const struct kprof_counter_ops *ops;
	void *priv;
	unsigned int nr_events;
	unsigned int nr_slots;
	struct perf_event **events;
	DECLARE_BITMAP(tried, KPROF_MAX_EVENTS);
	unsigned int live;
	bool system_wide;
	struct task_struct **tasks;
	unsigned int nr_tasks;
	struct kprof_cpu_target cpu;
};

int kprof_counters_init(struct kprof_counters *c, const struct kprof_counter_ops *ops,
			void *priv, unsigned int nr_events, const struct cpumask *cpus);
/**
 * struct kprof_target_id - what a followed PID or TID resolved to
 * @tgid: the process, in the init namespace
 * @tid: the thread when one thread was named, else 0
 */
struct kprof_target_id {
	pid_t tgid;
	pid_t tid;
};

int kprof_counters_add_process(struct kprof_counters *c, pid_t nr, bool one,
			       const struct nlattr *attr, struct kprof_target_id *id,
			       struct netlink_ext_ack *extack);
int kprof_counters_start(struct kprof_counters *c, bool enable, struct netlink_ext_ack *extack);
void kprof_counters_disable(struct kprof_counters *c);
void kprof_counters_stop(struct kprof_counters *c);
void kprof_counters_destroy(struct kprof_counters *c);
bool kprof_counters_read(struct kprof_counters *c, unsigned int e, unsigned int slot,
			 u64 *value, u64 *enabled, u64 *running);
void kprof_counters_lock(struct kprof_counters *c);
void kprof_counters_unlock(struct kprof_counters *c);

int kprof_target_init(void);
void kprof_target_exit(void);

#endif /* _KPROF_TARGET_H */
