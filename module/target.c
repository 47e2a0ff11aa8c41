// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the perf counters of the sampling and the counting sessions
 * alike: the one place kprof creates and releases them.  An engine (a
 * session kind) describes its events through struct kprof_counter_ops;
 * this file creates one counter per event and CPU (system-wide, following
 * CPU hotplug) or per event and thread (per task), enables, reads, retires
 * and releases them.
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
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/cpuhotplug.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "compat.h"
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
			if (t->ops->offline)
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
	if (!ret && t->ops->enable)
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
		if (t->ops->offline)
			t->ops->offline(t, cpu);
	cpumask_clear(t->covered);
	mutex_unlock(&t->lock);
}

/**
 * kprof_cpu_target_destroy() - stop @t and free what kprof_cpu_target_init()
 * allocated
 * @t: the target; one never initialised (zeroed) is left alone
 */
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
 * kprof_threads_get() - take a reference on every thread of a process, or
 * on one thread
 * @nr: a PID (or TID) in the caller's namespace
 * @one: take only the thread @nr names
 * @attr: the attribute that named it, for error messages
 * @tasks: where to append the threads
 * @nr_tasks: entries of @tasks in use, updated
 * @max: room in @tasks
 * @id: set to the process's TGID and, with @one, the thread's TID
 *	(init namespace, as the probes compare them)
 * @extack: for error messages
 *
 * On -E2BIG the threads taken so far stay in @tasks for the caller to put.
 *
 * Return: 0, -ESRCH when there is no such process or thread, -E2BIG past
 * @max.
 */
static int kprof_threads_get(pid_t nr, bool one, const struct nlattr *attr,
			     struct task_struct **tasks, unsigned int *nr_tasks,
			     unsigned int max, struct kprof_target_id *id,
			     struct netlink_ext_ack *extack)
{
	struct task_struct *leader, *t;
	struct pid *pid;
	int ret = 0;

	pid = find_get_pid(nr);
	leader = pid ? get_pid_task(pid, one ? PIDTYPE_PID : PIDTYPE_TGID) : NULL;
	put_pid(pid);
	if (!leader) {
		if (one)
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: no such thread");
		else
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: no such process");
		return -ESRCH;
	}
	id->tgid = task_tgid_nr(leader);
	id->tid = one ? task_pid_nr(leader) : 0;
	if (one) {
		if (*nr_tasks == max) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: too many threads to follow");
			put_task_struct(leader);
			return -E2BIG;
		}
		tasks[(*nr_tasks)++] = leader;	/* its reference moves there */
		return 0;
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
	put_task_struct(leader);
	return ret;
}

/* --- counter sets ------------------------------------------------------ */

static struct perf_event **kprof_counter_slot(struct kprof_counters *c, unsigned int e,
					      unsigned int slot)
{
	return &c->events[e * c->nr_slots + slot];
}

/*
 * Create event @e's counter on @slot (a CPU, or a thread's index), disabled.
 * Return: 0 with the counter or none (the owner skips @e, or the thread has
 * exited), or the owner's refusal.
 */
static int kprof_counter_create(struct kprof_counters *c, unsigned int e, unsigned int slot,
				bool starting, struct netlink_ext_ack *extack)
{
	struct task_struct *task = c->system_wide ? NULL : c->tasks[slot];
	struct perf_event **ctr = kprof_counter_slot(c, e, slot);
	struct perf_event_attr attr;
	struct perf_event *event;
	void *context = NULL;
	bool first;

	if (*ctr)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.disabled = 1;
	if (!c->ops->attr(c, e, slot, task, &attr, &context))
		return 0;
	event = perf_event_create_kernel_counter(&attr, c->system_wide ? slot : -1, task,
						 c->ops->overflow, context);
	first = !test_and_set_bit(e, c->tried);
	if (!IS_ERR(event)) {
		*ctr = event;
		c->live++;
		return 0;
	}
	if (task && PTR_ERR(event) == -ESRCH) {
		if (first)
			clear_bit(e, c->tried);	/* nothing was tried on it */
		return 0;	/* the thread exited meanwhile: nothing to follow */
	}
	return c->ops->refused(c, e, slot, -PTR_ERR(event), first, starting, extack);
}

/* Fold event @e's counter on @slot into the owner's totals and release it. */
static void kprof_counter_release(struct kprof_counters *c, unsigned int e, unsigned int slot)
{
	struct perf_event **ctr = kprof_counter_slot(c, e, slot);
	struct perf_event *event = *ctr;

	if (!event)
		return;
	if (c->ops->retire)
		c->ops->retire(c, e, slot);	/* reads it through kprof_counters_read() */
	*ctr = NULL;
	perf_event_release_kernel(event);
}

static void kprof_counters_offline(struct kprof_cpu_target *t, unsigned int cpu)
{
	struct kprof_counters *c = container_of(t, struct kprof_counters, cpu);
	unsigned int e;

	for (e = 0; e < c->nr_events; e++)
		kprof_counter_release(c, e, cpu);
}

static void kprof_counters_enable_cpu(struct kprof_cpu_target *t, unsigned int cpu)
{
	struct kprof_counters *c = container_of(t, struct kprof_counters, cpu);
	unsigned int e;

	for (e = 0; e < c->nr_events; e++)
		if (*kprof_counter_slot(c, e, cpu))
			perf_event_enable(*kprof_counter_slot(c, e, cpu));
}

/* Every event's counter on @cpu; after hotplug (not @starting) enabled at once. */
static int kprof_counters_online(struct kprof_cpu_target *t, unsigned int cpu, bool starting,
				 struct netlink_ext_ack *extack)
{
	struct kprof_counters *c = container_of(t, struct kprof_counters, cpu);
	unsigned int e;
	int ret = 0;

	if (c->ops->prepare)
		ret = c->ops->prepare(c, cpu, extack);
	for (e = 0; e < c->nr_events && !ret; e++)
		ret = kprof_counter_create(c, e, cpu, starting, extack);
	if (ret)
		kprof_counters_offline(t, cpu);
	else if (!starting)
		kprof_counters_enable_cpu(t, cpu);
	return ret;
}

static const struct kprof_cpu_target_ops kprof_counters_cpu_ops = {
	.online		= kprof_counters_online,
	.offline	= kprof_counters_offline,
	.enable		= kprof_counters_enable_cpu,
};

/**
 * kprof_counters_init() - prepare an engine's counter set
 * @c: the set, zeroed
 * @ops: the engine's operations (static, outlives @c)
 * @priv: the engine's, for @ops
 * @nr_events: events, at most KPROF_MAX_EVENTS
 * @cpus: the CPUs to cover (system-wide; alive as long as @c), or NULL for
 *	a per-task set, whose threads kprof_counters_add_process() adds
 *
 * Context: process context.
 * Return: 0 or -ENOMEM; kprof_counters_destroy() frees what was allocated.
 */
int kprof_counters_init(struct kprof_counters *c, const struct kprof_counter_ops *ops,
			void *priv, unsigned int nr_events, const struct cpumask *cpus)
{
	c->ops = ops;
	c->priv = priv;
	c->nr_events = nr_events;
	c->system_wide = cpus;
	if (!cpus) {
		c->tasks = kvcalloc(KPROF_MAX_TASKS, sizeof(*c->tasks), KPROF_GFP);
		return c->tasks ? 0 : -ENOMEM;
	}
	c->nr_slots = nr_cpu_ids;
	c->events = kvcalloc(nr_events * c->nr_slots, sizeof(*c->events), KPROF_GFP);
	if (!c->events)
		return -ENOMEM;
	return kprof_cpu_target_init(&c->cpu, cpus, &kprof_counters_cpu_ops);
}

/**
 * kprof_counters_add_process() - follow every thread of a process, or one
 * thread
 * @c: a per-task set, not started
 * @nr: a PID (or TID) in the caller's namespace
 * @one: follow only the thread @nr names (KPROF_SESSION_F_THREADS)
 * @attr: the attribute that named it, for error messages
 * @id: set to the process's TGID and, with @one, the thread's TID
 * @extack: for error messages
 *
 * Return: 0, -ESRCH when there is no such process or thread, -E2BIG past
 * KPROF_MAX_TASKS threads.
 */
int kprof_counters_add_process(struct kprof_counters *c, pid_t nr, bool one,
			       const struct nlattr *attr, struct kprof_target_id *id,
			       struct netlink_ext_ack *extack)
{
	return kprof_threads_get(nr, one, attr, c->tasks, &c->nr_tasks, KPROF_MAX_TASKS, id,
				 extack);
}

/* A per-task set's threads are no longer needed: their counters hold them. */
static void kprof_counters_put_tasks(struct kprof_counters *c)
{
	unsigned int t;

	if (!c->tasks)
		return;
	for (t = 0; t < c->nr_tasks; t++)
		put_task_struct(c->tasks[t]);
	kvfree(c->tasks);
	c->tasks = NULL;
}

static int kprof_counters_start_tasks(struct kprof_counters *c, bool enable,
				      struct netlink_ext_ack *extack)
{
	unsigned int e, t;
	int ret = 0;

	c->nr_slots = c->nr_tasks;
	c->events = kvcalloc(c->nr_events * c->nr_slots, sizeof(*c->events), KPROF_GFP);
	if (!c->events)
		return -ENOMEM;
	for (e = 0; e < c->nr_events && !ret; e++)
		for (t = 0; t < c->nr_tasks && !ret; t++)
			ret = kprof_counter_create(c, e, t, true, extack);
	if (!ret && enable)
		for (e = 0; e < c->nr_events * c->nr_slots; e++)
			if (c->events[e])
				perf_event_enable(c->events[e]);
	kprof_counters_put_tasks(c);
	return ret;
}

/**
 * kprof_counters_start() - create every counter, then enable them together
 * @c: the set
 * @enable: per task: enable them (false: perf enables them at exec, with
 *	perf_event_attr.enable_on_exec set by @c->ops->attr); system-wide
 *	counters are always enabled, and follow CPU hotplug from now on
 * @extack: for the owner's error messages
 *
 * @c->live counts the counters created.
 *
 * Context: process context; no hotplug lock held.
 * Return: 0, or the owner's refusal or -ENOMEM with every counter released.
 */
int kprof_counters_start(struct kprof_counters *c, bool enable, struct netlink_ext_ack *extack)
{
	int ret;

	if (c->system_wide)
		return kprof_cpu_target_start(&c->cpu, extack);
	ret = kprof_counters_start_tasks(c, enable, extack);
	if (ret)
		kprof_counters_stop(c);
	return ret;
}

/**
 * kprof_counters_disable() - stop every counter counting, at nearly one time
 * @c: the set
 *
 * Context: process context.
 */
void kprof_counters_disable(struct kprof_counters *c)
{
	unsigned int i;

	kprof_counters_lock(c);
	for (i = 0; c->events && i < c->nr_events * c->nr_slots; i++)
		if (c->events[i])
			perf_event_disable(c->events[i]);
	kprof_counters_unlock(c);
}

/**
 * kprof_counters_stop() - retire and release every counter
 * @c: the set; one never started is left alone
 *
 * System-wide, CPU hotplug is no longer followed.
 *
 * Context: process context; no hotplug lock held.
 */
void kprof_counters_stop(struct kprof_counters *c)
{
	unsigned int e, slot;

	if (c->system_wide) {
		kprof_cpu_target_stop(&c->cpu);
		return;
	}
	kprof_counters_put_tasks(c);
	for (e = 0; c->events && e < c->nr_events; e++)
		for (slot = 0; slot < c->nr_slots; slot++)
			kprof_counter_release(c, e, slot);
}

/**
 * kprof_counters_destroy() - release and free everything of @c
 * @c: the set, zeroed or initialised
 */
void kprof_counters_destroy(struct kprof_counters *c)
{
	kprof_counters_stop(c);
	if (c->system_wide)
		kprof_cpu_target_destroy(&c->cpu);
	kvfree(c->events);
	c->events = NULL;
}

/**
 * kprof_counters_read() - the current reading of one counter
 * @c: the set
 * @e: the event
 * @slot: the CPU (system-wide) or the thread's index
 * @value: count, added to
 * @enabled: ns enabled, added to
 * @running: ns running, added to
 *
 * Context: process context; kprof_counters_lock() held when system-wide.
 * Return: false when there is no such counter (now).
 */
bool kprof_counters_read(struct kprof_counters *c, unsigned int e, unsigned int slot,
			 u64 *value, u64 *enabled, u64 *running)
{
	struct perf_event *event = c->events ? *kprof_counter_slot(c, e, slot) : NULL;
	u64 en, run;

	if (!event)
		return false;
	*value += perf_event_read_value(event, &en, &run);
	*enabled += en;
	*running += run;
	return true;
}

/**
 * kprof_counters_lock() - keep CPU hotplug from changing the counters
 * @c: the set
 *
 * Context: process context; not under the owner's hotplug-sensitive locks.
 */
void kprof_counters_lock(struct kprof_counters *c)
{
	if (c->system_wide)
		mutex_lock(&c->cpu.lock);
}

/**
 * kprof_counters_unlock() - undo kprof_counters_lock()
 * @c: the set
 */
void kprof_counters_unlock(struct kprof_counters *c)
{
	if (c->system_wide)
		mutex_unlock(&c->cpu.lock);
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
