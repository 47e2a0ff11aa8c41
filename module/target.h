/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - per-CPU counters that follow CPU hotplug (target.c).
 */
#ifndef _KPROF_TARGET_H
#define _KPROF_TARGET_H

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

struct kprof_cpu_target;
struct netlink_ext_ack;

/*
 * Create @cpu's counters.  @starting: from kprof_cpu_target_start(), which
 * fails with the error (create them disabled: the owner enables all CPUs
 * at once when it returns, and @extack names the problem); otherwise after
 * hotplug (create them enabled, @extack is NULL, the error only skips the
 * CPU).
 */
typedef int (*kprof_cpu_online_fn)(struct kprof_cpu_target *t, unsigned int cpu,
				   bool starting, struct netlink_ext_ack *extack);
typedef void (*kprof_cpu_offline_fn)(struct kprof_cpu_target *t, unsigned int cpu);

/**
 * struct kprof_cpu_target - a set of per-CPU counters kept on online CPUs
 * @lock: serialises the owner's start and stop with @online and @offline
 * @cpus: the CPUs to cover (the owner's mask, alive as long as @t is)
 * @covered: CPUs whose counters exist
 * @gen: per CPU, its hotplug generation when its counters were created
 * @online: create a CPU's counters; @lock held
 * @offline: release a CPU's counters; @lock held
 * @work: follows hotplug, outside cpu_hotplug_lock
 * @node: on the list of hooked targets
 * @hooked: on that list
 */
struct kprof_cpu_target {
	struct mutex lock;		/* see above */
	const struct cpumask *cpus;
	cpumask_var_t covered;
	unsigned int *gen;
	kprof_cpu_online_fn online;
	kprof_cpu_offline_fn offline;
	struct work_struct work;
	struct list_head node;
	bool hooked;
};

int kprof_cpu_target_init(struct kprof_cpu_target *t, const struct cpumask *cpus,
			  kprof_cpu_online_fn online, kprof_cpu_offline_fn offline);
int kprof_cpu_target_start(struct kprof_cpu_target *t, struct netlink_ext_ack *extack);
void kprof_cpu_target_stop(struct kprof_cpu_target *t);
void kprof_cpu_target_destroy(struct kprof_cpu_target *t);

int kprof_target_init(void);
void kprof_target_exit(void);

#endif /* _KPROF_TARGET_H */
