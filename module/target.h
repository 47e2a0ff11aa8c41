/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the targets of sessions (target.c): per-CPU counters that follow
 * CPU hotplug, and the threads of per-task sessions.
 */
#ifndef _KPROF_TARGET_H
#define _KPROF_TARGET_H

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

struct kprof_cpu_target;
struct netlink_ext_ack;

/**
 * struct kprof_cpu_target_ops - what an owner does for one CPU
 * @online: create @cpu's counters.  @starting: from kprof_cpu_target_start(),
 *	which fails with the error (create them disabled: @enable starts every
 *	CPU at once when all exist, and @extack names the problem); otherwise
 *	after hotplug (create them enabled, @extack is NULL, the error only
 *	skips the CPU).
 * @offline: release @cpu's counters
 * @enable: enable @cpu's counters created by a starting @online
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

struct nlattr;
struct task_struct;
int kprof_threads_get(pid_t nr, const struct nlattr *attr, struct task_struct **tasks,
		      unsigned int *nr_tasks, unsigned int max, pid_t *tgid,
		      struct netlink_ext_ack *extack);

int kprof_target_init(void);
void kprof_target_exit(void);

#endif /* _KPROF_TARGET_H */
