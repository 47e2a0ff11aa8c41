// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - per-CPU counters that follow CPU hotplug, for the sampling and
 * the counting sessions alike.
 *
 * Creating or releasing a perf counter of a tracepoint takes event_mutex,
 * and registering a tracepoint takes cpu_hotplug_lock under event_mutex
 * (tracepoint_add_func() -> static_call_update() -> cpus_read_lock()).  So
 * no counter may be created or released with cpu_hotplug_lock held, in a
 * hotplug callback or under cpus_read_lock(): lockdep reports the cycle
 * (event_mutex -> cpu_hotplug_lock -> ... -> event_mutex), and with a CPU
 * coming up at the wrong moment it is a deadlock.
 *
 * Hence one hotplug state for all of kprof, whose callbacks only queue the
 * work item of every hooked target; the work item, in process context
 * with no hotplug lock, brings each target's counters in line with the
 * online CPUs: created for CPUs that came up, released for CPUs that went
 * down (perf has already detached those).  Samples of a CPU that just came
 * up start when the work item has run, a few milliseconds later.
 *
 * Lock order: the owner's locks, then kprof_cpu_target::lock, then perf's
 * (event_mutex, ctx->mutex); kprof_targets_lock is a spinlock taken alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/cpuhotplug.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "target.h"

static LIST_HEAD(kprof_targets);
static DEFINE_SPINLOCK(kprof_targets_lock);
static enum cpuhp_state kprof_target_hp_state;
/*
 * The CPUs past kprof's hotplug state, and a generation per CPU bumped
 * each time one goes down: counters created before that are detached by
 * perf, even if the CPU is back up before the work item runs.  Written by
 * the hotplug callbacks only (serialised by the hotplug core).
 */
static struct cpumask kprof_cpus_up;
static DEFINE_PER_CPU(unsigned int, kprof_cpu_gen);

static unsigned int kprof_cpu_gen_of(unsigned int cpu)
{
	return READ_ONCE(per_cpu(kprof_cpu_gen, cpu));
}

/* Bring @t's counters in line with the CPUs that are up. */
static void kprof_cpu_target_work(struct work_struct *work)
{
	struct kprof_cpu_target *t = container_of(work, struct kprof_cpu_target, work);
	unsigned int cpu;

	mutex_lock(&t->lock);
	if (!t->hooked)
		goto out;
	for_each_cpu(cpu, t->cpus) {
		bool up = cpumask_test_cpu(cpu, &kprof_cpus_up);
		unsigned int gen = kprof_cpu_gen_of(cpu);

		if (cpumask_test_cpu(cpu, t->covered) && (!up || t->gen[cpu] != gen)) {
			t->ops->offline(t, cpu);
			cpumask_clear_cpu(cpu, t->covered);
		}
		if (up && !cpumask_test_cpu(cpu, t->covered)) {
			t->gen[cpu] = gen;
			if (!t->ops->online(t, cpu, false, NULL))
				cpumask_set_cpu(cpu, t->covered);
		}
	}
out:
	mutex_unlock(&t->lock);
}

static void kprof_targets_kick(unsigned int cpu)
{
	struct kprof_cpu_target *t;

	spin_lock(&kprof_targets_lock);
	list_for_each_entry(t, &kprof_targets, node)
		if (cpumask_test_cpu(cpu, t->cpus))
			queue_work(system_unbound_wq, &t->work);
	spin_unlock(&kprof_targets_lock);
}

/* Hotplug callbacks: cpu_hotplug_lock is held; only note and queue. */
static int kprof_target_hp_online(unsigned int cpu)
{
	cpumask_set_cpu(cpu, &kprof_cpus_up);
	kprof_targets_kick(cpu);
	return 0;	/* never keep a CPU from coming up */
}

static int kprof_target_hp_offline(unsigned int cpu)
{
	cpumask_clear_cpu(cpu, &kprof_cpus_up);
	per_cpu(kprof_cpu_gen, cpu)++;
	kprof_targets_kick(cpu);
	return 0;
}

/**
 * kprof_cpu_target_init() - prepare a target
 * @t: the target
 * @cpus: the CPUs to cover
 * @ops: the owner's per-CPU operations (static, outlives @t)
 *
 * Return: 0 or -ENOMEM.
 */
int kprof_cpu_target_init(struct kprof_cpu_target *t, const struct cpumask *cpus,
			  const struct kprof_cpu_target_ops *ops)
{
	t->gen = kcalloc(nr_cpu_ids, sizeof(*t->gen), GFP_KERNEL | __GFP_NOWARN);
	if (!t->gen)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&t->covered, GFP_KERNEL | __GFP_NOWARN)) {
		kfree(t->gen);
		t->gen = NULL;
		return -ENOMEM;
	}
	mutex_init(&t->lock);
	t->cpus = cpus;
	t->ops = ops;
	INIT_WORK(&t->work, kprof_cpu_target_work);
	INIT_LIST_HEAD(&t->node);
	t->hooked = false;
	return 0;
}

/**
 * kprof_cpu_target_start() - counters on the CPUs up now, and from now on
 * @t: the target
 * @extack: for the owner's error messages
 *
 * Hooked first, so that a CPU coming up meanwhile is covered by the work
 * item, which waits for @t->lock.  A CPU that goes down while its counters
 * are created (-ENODEV) is skipped.  Once every CPU's counters exist, all
 * are enabled at once.
 *
 * Context: process context; no hotplug lock held.
 * Return: 0, or the owner's error, with everything undone.
 */
int kprof_cpu_target_start(struct kprof_cpu_target *t, struct netlink_ext_ack *extack)
{
	unsigned int cpu;
	int ret = 0;

	spin_lock(&kprof_targets_lock);
	list_add(&t->node, &kprof_targets);
	spin_unlock(&kprof_targets_lock);

	mutex_lock(&t->lock);
	t->hooked = true;
	for_each_cpu(cpu, t->cpus) {
		if (!cpumask_test_cpu(cpu, &kprof_cpus_up))
			continue;
		t->gen[cpu] = kprof_cpu_gen_of(cpu);
		ret = t->ops->online(t, cpu, true, extack);
		if (ret == -ENODEV && !cpumask_test_cpu(cpu, &kprof_cpus_up)) {
			ret = 0;
			continue;
		}
		if (ret)
			break;
		cpumask_set_cpu(cpu, t->covered);
	}
	if (!ret)
		for_each_cpu(cpu, t->covered)
			t->ops->enable(t, cpu);
	mutex_unlock(&t->lock);
	if (ret)
		kprof_cpu_target_stop(t);
	return ret;
}

/**
 * kprof_cpu_target_stop() - release every CPU's counters, stop following
 * @t: the target; one never initialised (zeroed), or stopped, is left alone
 *
 * Context: process context; no hotplug lock held.
 */
void kprof_cpu_target_stop(struct kprof_cpu_target *t)
{
	unsigned int cpu;

	if (!t->gen)
		return;

	spin_lock(&kprof_targets_lock);
	list_del_init(&t->node);
	spin_unlock(&kprof_targets_lock);
	mutex_lock(&t->lock);
	t->hooked = false;
	mutex_unlock(&t->lock);
	cancel_work_sync(&t->work);

	mutex_lock(&t->lock);
	for_each_cpu(cpu, t->covered)
		t->ops->offline(t, cpu);
	cpumask_clear(t->covered);
	mutex_unlock(&t->lock);
}

void kprof_cpu_target_destroy(struct kprof_cpu_target *t)
{
	if (!t->gen)
		return;
	kprof_cpu_target_stop(t);
	free_cpumask_var(t->covered);
	kfree(t->gen);
	t->gen = NULL;
}

/* --- per-task targets ------------------------------------------------- */

/**
 * kprof_threads_get() - take a reference on every thread of a process
 * @nr: a PID (or TID) in the caller's namespace
 * @attr: the attribute that named it, for error messages
 * @tasks: where to append the threads
 * @nr_tasks: entries of @tasks in use, updated
 * @max: room in @tasks
 * @tgid: set to the process's TGID
 * @extack: for error messages
 *
 * On -E2BIG the threads taken so far stay in @tasks for the caller to put.
 *
 * Return: 0, -ESRCH when there is no such process, -E2BIG past @max.
 */
int kprof_threads_get(pid_t nr, const struct nlattr *attr, struct task_struct **tasks,
		      unsigned int *nr_tasks, unsigned int max, pid_t *tgid,
		      struct netlink_ext_ack *extack)
{
	struct task_struct *leader, *t;
	struct pid *pid;
	int ret = 0;

	pid = find_get_pid(nr);
	leader = pid ? get_pid_task(pid, PIDTYPE_TGID) : NULL;
	put_pid(pid);
	if (!leader) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: no such process");
		return -ESRCH;
	}

	rcu_read_lock();
	for_each_thread(leader, t) {
		if (*nr_tasks == max) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: too many threads to follow");
			ret = -E2BIG;
			break;
		}
		get_task_struct(t);
		tasks[(*nr_tasks)++] = t;
	}
	rcu_read_unlock();
	*tgid = task_tgid_nr(leader);
	put_task_struct(leader);
	return ret;
}

int __init kprof_target_init(void)
{
	int ret;

	cpus_read_lock();
	cpumask_copy(&kprof_cpus_up, cpu_online_mask);
	ret = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN, "kprof:online",
						   kprof_target_hp_online,
						   kprof_target_hp_offline);
	cpus_read_unlock();
	if (ret < 0)
		return ret;
	kprof_target_hp_state = ret;
	return 0;
}

void kprof_target_exit(void)
{
	cpuhp_remove_state_nocalls(kprof_target_hp_state);
}
