// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - counting mode: the counting session behind "kprofctl stat".
 *
 * A counting session counts events with perf counters that never sample
 * (sample_period 0).  It is independent of the sampling sessions of
 * session.c, so "kprofctl stat" works while "kprofctl record" runs, and
 * (ABI 1.13) up to KPROF_COUNT_SESSIONS_MAX count side by side, as perf
 * stat runs do: their counters share the PMU with every other perf user
 * anyway, multiplexed by perf, and nothing else is shared.  Before 1.13
 * there was one at a time (COUNT_START while one counted was EBUSY).
 *
 * Targets, as for sampling:
 *  - system-wide: one counter per event and online CPU of the requested
 *    set.  CPU hotplug is followed: the counters of a CPU going offline are
 *    read into the totals and released, a CPU coming online gets new ones.
 *  - per-task: one counter per event and thread of each PID, inherited by
 *    the children created later (F_INHERIT); perf_event_read_value() adds
 *    the counts of live and exited children.  With F_ENABLE_ON_EXEC the
 *    counters start at the target's next exec, as perf stat's do.
 *
 * An event perf refuses as unknown or unsupported (no such PMU, e.g. the
 * hardware events in a virtual machine) is marked with the error and
 * skipped, the way perf stat prints <not supported> and goes on; any other
 * failure fails the start.
 *
 * Lifetime: a session belongs to the netlink socket that started it, and
 * to its user (another user's STOP or READ is EACCES without
 * CAP_SYS_ADMIN).  COUNT_STOP reads the final counts and releases the
 * counters; the frozen counts stay readable until the owner's socket
 * starts another counting session or closes.  Closing the owner's socket
 * ends its sessions, stopped or not, so that a killed kprofctl leaves no
 * counters behind.  A request without an id names the most recently
 * started session.
 *
 * Locking, outermost first:
 *
 *	kprof_count_lock		the list of sessions: stop, read, free;
 *					not held while a start creates counters
 *	  kprof_counters_lock()		system-wide counters vs CPU hotplug (target.c)
 *	    perf's event_mutex, ctx->mutex
 *
 * Nothing here runs in atomic context: a counter that does not sample has
 * no overflow handler to run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "core.h"
#include "counting.h"
#include "target.h"

/**
 * struct kprof_count_ctr - what one counter (an event on one CPU or one
 * thread, target.c) counted before it was released
 * @value: count of the released counters (CPU gone offline, session stopped)
 * @enabled: their time enabled, ns
 * @running: their time running, ns
 * @error: positive errno when perf refused to create this counter
 */
struct kprof_count_ctr {
	u64 value;
	u64 enabled;
	u64 running;
	int error;
};

/**
 * struct kprof_count_event - one event of the counting session
 * @type: PERF_TYPE_*
 * @config: perf_event_attr.config
 * @flags: KPROF_EV_F_*
 * @name: as the user spelled it
 * @attr: its request attribute, for error messages; during COUNT_START only
 * @error: positive errno when perf cannot count the event at all
 * @ctrs: per CPU (nr_cpu_ids of them, system-wide) or per thread (nr_tasks)
 */
struct kprof_count_event {
	u32 type;
	u64 config;
	u32 flags;
	char name[KPROF_EVENT_NAME_MAX];
	const struct nlattr *attr;
	int error;
	struct kprof_count_ctr *ctrs;
};

/**
 * struct kprof_count_session - one counting session
 * @id: its id, from 1, counted apart from the sampling sessions'
 * @node: on kprof_count_sessions, oldest first
 * @uid: the user that started it
 * @flags: KPROF_SESSION_F_SYSTEM_WIDE, _F_INHERIT, _F_THREADS
 * @count_flags: KPROF_COUNT_F_*
 * @running: counting, not stopped yet
 * @cpus: the requested CPUs (system-wide)
 * @cpus_seen: CPUs that have had counters at some time (system-wide)
 * @nr_pids: PIDs requested (per-task)
 * @owner_net: network namespace of the socket that started the session
 * @owner_portid: the netlink port of that socket
 * @owner_pid: the process that started it
 * @start_ns: CLOCK_MONOTONIC at start
 * @stop_ns: CLOCK_MONOTONIC at stop; 0 while running
 * @nr_events: entries of @events
 * @events: the events
 * @pc: the perf counters, per CPU following CPU hotplug or per thread
 *	(target.c)
 */
struct kprof_count_session {
	u64 id;
	struct list_head node;
	kuid_t uid;
	u32 flags;
	u32 count_flags;
	bool running;
	cpumask_var_t cpus;
	cpumask_var_t cpus_seen;
	unsigned int nr_pids;
	struct net *owner_net;
	u32 owner_portid;
	u32 owner_pid;
	u64 start_ns;
	u64 stop_ns;
	unsigned int nr_events;
	struct kprof_count_event events[KPROF_MAX_EVENTS];
	struct kprof_counters pc;
};

/* The most counting sessions at once, counting or stopped and held. */
#define KPROF_COUNT_SESSIONS_MAX	16

static DEFINE_MUTEX(kprof_count_lock);
/* The sessions, counting or stopped, oldest first; under kprof_count_lock. */
static LIST_HEAD(kprof_count_sessions);
/* Starts between their check of the limit and their session's insertion. */
static unsigned int kprof_count_starting;
static u64 kprof_count_last_id;

/* perf stat's list: errors that mean "this event cannot be counted here". */
static bool kprof_count_unsupported(int err)
{
	switch (err) {
	case EINVAL:
	case ENOENT:
	case EOPNOTSUPP:
	case ENXIO:
	case ENODEV:
		return true;
	default:
		return false;
	}
}

static bool kprof_count_system_wide(const struct kprof_count_session *s)
{
	return s->flags & KPROF_SESSION_F_SYSTEM_WIDE;
}

static void kprof_count_set_error(struct netlink_ext_ack *extack,
				  const struct kprof_count_event *ev, int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
		NL_SET_ERR_MSG_ATTR(extack, ev->attr, "kprof: perf refused this event: permission");
		break;
	case EBUSY:
		NL_SET_ERR_MSG_ATTR(extack, ev->attr,
				    "kprof: this event's PMU is in exclusive use");
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, ev->attr,
				    "kprof: cannot create a counter for this event");
	}
}

/* --- counters (target.c) ---------------------------------------------------- */

/* Event @e's counter on @slot: none once perf refused the event altogether. */
static bool kprof_count_attr(struct kprof_counters *c, unsigned int e, unsigned int slot,
			     struct task_struct *task, struct perf_event_attr *attr,
			     void **context)
{
	struct kprof_count_session *s = c->priv;
	struct kprof_count_event *ev = &s->events[e];

	if (!task)
		cpumask_set_cpu(slot, s->cpus_seen);
	if (ev->error)
		return false;
	ev->ctrs[slot].error = 0;
	attr->type = ev->type;
	attr->config = ev->config;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->exclude_user = !!(ev->flags & KPROF_EV_F_EXCLUDE_USER);
	attr->exclude_kernel = !!(ev->flags & KPROF_EV_F_EXCLUDE_KERNEL);
	if (task) {
		attr->inherit = !!(s->flags & KPROF_SESSION_F_INHERIT);
		attr->enable_on_exec = !!(s->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC);
	}
	/* sample_period 0: counting only, there is no overflow handler */
	return true;
}

/*
 * Starting, an event perf cannot count on the first CPU or thread tried is
 * marked unsupported and not tried further, one refused later only misses
 * that CPU or thread, and any other error fails the start (perf stat's
 * rule).  After hotplug, errors only skip the CPU.
 */
static int kprof_count_refused(struct kprof_counters *c, unsigned int e, unsigned int slot,
			       int err, bool first, bool starting,
			       struct netlink_ext_ack *extack)
{
	struct kprof_count_session *s = c->priv;
	struct kprof_count_event *ev = &s->events[e];

	if (starting && !kprof_count_unsupported(err)) {
		kprof_count_set_error(extack, ev, err);
		return -err;
	}
	if (starting && first)
		ev->error = err;
	else
		ev->ctrs[slot].error = err;
	if (!starting)
		pr_warn("cannot count %s on CPU %u: %d\n", ev->name, slot, err);
	return 0;
}

/* Fold a counter's final reading into its totals before it is released. */
static void kprof_count_retire(struct kprof_counters *c, unsigned int e, unsigned int slot)
{
	struct kprof_count_session *s = c->priv;

	kprof_counters_read(c, e, slot, &s->events[e].ctrs[slot].value,
			    &s->events[e].ctrs[slot].enabled, &s->events[e].ctrs[slot].running);
}

static const struct kprof_counter_ops kprof_count_counter_ops = {
	.attr		= kprof_count_attr,
	.refused	= kprof_count_refused,
	.retire		= kprof_count_retire,
};

/* Add event @e's count on @slot, released and live, to @value, @enabled and @running. */
static void kprof_count_ctr_add(struct kprof_count_session *s, unsigned int e, unsigned int slot,
				u64 *value, u64 *enabled, u64 *running)
{
	const struct kprof_count_ctr *c = &s->events[e].ctrs[slot];

	*value += c->value;
	*enabled += c->enabled;
	*running += c->running;
	kprof_counters_read(&s->pc, e, slot, value, enabled, running);
}

/* Each event's totals, one per counter slot. */
static int kprof_count_alloc_ctrs(struct kprof_count_session *s, unsigned int nr_slots)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		s->events[i].ctrs = kvcalloc(nr_slots, sizeof(struct kprof_count_ctr), KPROF_GFP);
		if (!s->events[i].ctrs)
			return -ENOMEM;
	}
	return 0;
}

/**
 * kprof_count_system_wide_start() - counters on the session's online CPUs
 * @s: the new session
 * @extack: for error messages
 *
 * Context: process context; @s is not on the list yet.
 * Return: 0, -ENODEV when no requested CPU is online, or perf's error.
 */
static int kprof_count_system_wide_start(struct kprof_count_session *s,
					 struct netlink_ext_ack *extack)
{
	int ret;

	if (!cpumask_intersects(s->cpus, cpu_online_mask)) {
		NL_SET_ERR_MSG(extack, "kprof: none of the requested CPUs is online");
		return -ENODEV;
	}
	ret = kprof_count_alloc_ctrs(s, nr_cpu_ids);
	if (!ret)
		ret = kprof_counters_init(&s->pc, &kprof_count_counter_ops, s, s->nr_events,
					  s->cpus);
	if (!ret)
		ret = kprof_counters_start(&s->pc, true, extack);
	return ret;
}

/**
 * kprof_count_per_task_start() - counters on every thread of the PIDs
 * @s: the new session
 * @req: the PIDs
 * @extack: for error messages
 *
 * Not under cpu_hotplug_lock: perf takes it to create the first task
 * counter of the system.
 *
 * Context: process context; @s is not on the list yet.
 * Return: 0, -ESRCH when every target has exited, -E2BIG, -ENOMEM, or
 * perf's error.
 */
static int kprof_count_per_task_start(struct kprof_count_session *s,
				      const struct kprof_count_request *req,
				      struct netlink_ext_ack *extack)
{
	unsigned int i, countable = 0;
	struct kprof_target_id id;
	int ret;

	ret = kprof_counters_init(&s->pc, &kprof_count_counter_ops, s, s->nr_events, NULL);
	for (i = 0; !ret && i < s->nr_pids; i++)
		ret = kprof_counters_add_process(&s->pc, req->pids[i],
						 s->flags & KPROF_SESSION_F_THREADS,
						 req->pid_attrs[i], &id, extack);
	if (!ret)
		ret = kprof_count_alloc_ctrs(s, s->pc.nr_tasks);
	/* with F_ENABLE_ON_EXEC, perf enables them at the target's exec */
	if (!ret)
		ret = kprof_counters_start(&s->pc,
					   !(s->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC),
					   extack);
	if (ret)
		return ret;
	for (i = 0; i < s->nr_events; i++)
		if (!s->events[i].error)
			countable++;
	if (countable && !s->pc.live) {
		NL_SET_ERR_MSG(extack, "kprof: every target process has exited");
		return -ESRCH;
	}
	return 0;
}

/* --- the session ------------------------------------------------------------ */

/* Everything of @s, its counters released. */
static void kprof_count_free(struct kprof_count_session *s)
{
	unsigned int i;

	if (!s)
		return;
	kprof_counters_destroy(&s->pc);
	for (i = 0; i < s->nr_events; i++)
		kvfree(s->events[i].ctrs);
	free_cpumask_var(s->cpus_seen);
	free_cpumask_var(s->cpus);
	kfree(s);
}

/**
 * kprof_count_freeze() - stop counting and keep the final counts
 * @s: a running session, or one no longer reachable
 *
 * Every counter is disabled first, so that they stop at nearly the same
 * time, then read and released.
 *
 * Context: process context; kprof_count_lock held, or @s unreachable.
 */
static void kprof_count_freeze(struct kprof_count_session *s)
{
	if (!s->running)
		return;
	kprof_counters_disable(&s->pc);
	/* retires every counter; no hotplug work after it */
	kprof_counters_stop(&s->pc);
	s->running = false;
	s->stop_ns = ktime_get_ns();
}

/* --- start ---------------------------------------------------------------- */

static struct kprof_count_session *kprof_count_alloc(void)
{
	struct kprof_count_session *s;

	s = kzalloc(sizeof(*s), KPROF_GFP);
	if (!s)
		return NULL;
	if (!zalloc_cpumask_var(&s->cpus, KPROF_GFP))
		goto out_free;
	if (!zalloc_cpumask_var(&s->cpus_seen, KPROF_GFP))
		goto out_free_cpus;
	return s;

out_free_cpus:
	free_cpumask_var(s->cpus);
out_free:
	kfree(s);
	return NULL;
}

/* Is @s owned by the socket (@net, @portid)?  kprof_count_lock held. */
static bool kprof_count_owned(const struct kprof_count_session *s, struct net *net, u32 portid)
{
	return s->owner_portid == portid && net_eq(s->owner_net, net);
}

/*
 * Take the stopped sessions the socket (@net, @portid) holds off the list,
 * onto @gone: a socket's new session replaces its stopped ones.  The
 * sessions on the list and starting.  kprof_count_lock held.
 */
static unsigned int kprof_count_unhold(struct net *net, u32 portid, struct list_head *gone)
{
	struct kprof_count_session *s, *tmp;
	unsigned int n = kprof_count_starting;

	lockdep_assert_held(&kprof_count_lock);
	list_for_each_entry_safe(s, tmp, &kprof_count_sessions, node) {
		if (!s->running && kprof_count_owned(s, net, portid))
			list_move_tail(&s->node, gone);
		else
			n++;
	}
	return n;
}

/* Free the sessions of @gone, their counters released.  No lock held. */
static void kprof_count_free_list(struct list_head *gone)
{
	struct kprof_count_session *s, *tmp;

	list_for_each_entry_safe(s, tmp, gone, node) {
		list_del(&s->node);
		kprof_count_freeze(s);
		kprof_count_free(s);
	}
}

/**
 * kprof_count_start() - start a counting session
 * @req: the validated request; @req->cpus is copied
 * @id: the new session's id
 * @errors: per event of @req, a positive errno when perf cannot count it
 *	here (the session goes on without it, as perf stat does), else 0
 * @extack: for error messages
 *
 * The stopped sessions the requesting socket holds are freed.  Counters
 * are created without kprof_count_lock: stopping, reading or releasing
 * another session never waits for this start.
 *
 * Context: process context.
 * Return: 0, -ENOSPC with KPROF_COUNT_SESSIONS_MAX sessions, -ENOMEM,
 * -ESRCH, -E2BIG, -ENODEV, or perf's error.
 */
int kprof_count_start(const struct kprof_count_request *req, u64 *id, u32 *errors,
		      struct netlink_ext_ack *extack)
{
	struct kprof_count_session *s;
	unsigned int i, n;
	LIST_HEAD(gone);
	int ret;

	s = kprof_count_alloc();
	if (!s)
		return -ENOMEM;
	s->uid = current_uid();
	s->flags = req->flags;
	s->count_flags = req->count_flags;
	s->nr_pids = req->nr_pids;
	s->owner_net = req->owner_net;
	s->owner_portid = req->owner_portid;
	s->owner_pid = req->owner_pid;
	if (req->cpus)
		cpumask_copy(s->cpus, req->cpus);
	s->nr_events = req->nr_events;
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].type = req->events[i].type;
		s->events[i].config = req->events[i].config;
		s->events[i].flags = req->events[i].flags;
		s->events[i].attr = req->events[i].attr;
		strscpy(s->events[i].name, req->events[i].name, sizeof(s->events[i].name));
	}

	mutex_lock(&kprof_count_lock);
	n = kprof_count_unhold(s->owner_net, s->owner_portid, &gone);
	if (n >= KPROF_COUNT_SESSIONS_MAX) {
		mutex_unlock(&kprof_count_lock);
		NL_SET_ERR_MSG(extack, "kprof: too many counting sessions (16 at most)");
		ret = -ENOSPC;
		goto out_free;
	}
	kprof_count_starting++;
	mutex_unlock(&kprof_count_lock);
	kprof_count_free_list(&gone);

	s->start_ns = ktime_get_ns();
	if (kprof_count_system_wide(s))
		ret = kprof_count_system_wide_start(s, extack);
	else
		ret = kprof_count_per_task_start(s, req, extack);

	mutex_lock(&kprof_count_lock);
	kprof_count_starting--;
	if (!ret) {
		s->id = ++kprof_count_last_id;
		s->running = true;
		list_add_tail(&s->node, &kprof_count_sessions);
	}
	mutex_unlock(&kprof_count_lock);
	if (ret)
		goto out_free;
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].attr = NULL;	/* the request goes away */
		errors[i] = s->events[i].error;
	}
	*id = s->id;
	return 0;

out_free:
	kprof_count_free(s);
	return ret;
}

/**
 * kprof_count_list() - the counting sessions, for STATUS
 * @out: where to store them, oldest first
 * @max: entries of @out
 *
 * Every user's sessions are listed, as the sampling sessions are: their
 * counts stay with their owners.
 *
 * Context: process context; takes kprof_count_lock.
 * Return: the sessions stored.
 */
unsigned int kprof_count_list(struct kprof_count_info *out, unsigned int max)
{
	struct kprof_count_session *s;
	unsigned int n = 0, i;

	mutex_lock(&kprof_count_lock);
	list_for_each_entry(s, &kprof_count_sessions, node) {
		struct kprof_count_info *ci = &out[n];

		if (n == max)
			break;
		ci->id = s->id;
		ci->state = s->running ? KPROF_STATE_RUNNING : KPROF_STATE_STOPPED;
		ci->flags = s->flags;
		ci->owner_pid = s->owner_pid;
		ci->uid = from_kuid_munged(current_user_ns(), s->uid);
		ci->start_ns = s->start_ns;
		ci->nr_events = s->nr_events;
		ci->mem = sizeof(*s);
		for (i = 0; i < s->nr_events; i++)
			if (s->events[i].ctrs)
				ci->mem += (u64)s->pc.nr_slots * sizeof(struct kprof_count_ctr);
		if (s->pc.events)
			ci->mem += (u64)s->pc.nr_slots * s->pc.nr_events * sizeof(*s->pc.events);
		n++;
	}
	mutex_unlock(&kprof_count_lock);
	return n;
}

/* --- stop ------------------------------------------------------------------ */

/*
 * The session with @id, or without one the most recently started;
 * kprof_count_lock held.  NULL with @err: -ENOENT (none at all), -ESTALE
 * (none with @id), -EACCES (another user's, without CAP_SYS_ADMIN).
 */
static struct kprof_count_session *kprof_count_lookup(const u64 *id, int *err)
{
	struct kprof_count_session *s;

	lockdep_assert_held(&kprof_count_lock);
	if (list_empty(&kprof_count_sessions)) {
		*err = -ENOENT;
		return NULL;
	}
	if (!id) {
		s = list_last_entry(&kprof_count_sessions, struct kprof_count_session, node);
	} else {
		list_for_each_entry(s, &kprof_count_sessions, node)
			if (s->id == *id)
				goto found;
		*err = -ESTALE;
		return NULL;
	}
found:
	if (!kprof_uid_may_access(s->uid)) {
		*err = -EACCES;
		return NULL;
	}
	return s;
}

/**
 * kprof_count_refusal() - the message of a refusal by stop or read
 * @extack: where to put it
 * @err: -ENOENT (no session), -ESTALE (not the one named), -EACCES
 *	(another user's), -EPERM
 */
void kprof_count_refusal(struct netlink_ext_ack *extack, int err)
{
	switch (err) {
	case -ENOENT:
		NL_SET_ERR_MSG(extack, "kprof: no counting session");
		break;
	case -ESTALE:
		NL_SET_ERR_MSG(extack, "kprof: that counting session is gone");
		break;
	case -EACCES:
		NL_SET_ERR_MSG(extack, "kprof: another user's counting session");
		break;
	case -EPERM:
		NL_SET_ERR_MSG(extack, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required");
		break;
	}
}

/**
 * kprof_count_stop() - stop counting, keep the final counts readable
 * @id: the session to stop, or NULL for the most recently started one
 * @stopped: set to the id of the session stopped
 * @extack: for error messages
 *
 * Context: process context.
 * Return: 0, -ENOENT when no session counts (or that one is stopped),
 * -ESTALE when there is no session @id, -EACCES when it is another user's.
 */
int kprof_count_stop(const u64 *id, u64 *stopped, struct netlink_ext_ack *extack)
{
	struct kprof_count_session *s;
	int ret = 0;

	mutex_lock(&kprof_count_lock);
	s = kprof_count_lookup(id, &ret);
	if (!s) {
		kprof_count_refusal(extack, ret);
	} else if (!s->running) {
		NL_SET_ERR_MSG(extack, "kprof: the counting session is stopped already");
		ret = -ENOENT;
	} else {
		kprof_count_freeze(s);
		*stopped = s->id;
	}
	mutex_unlock(&kprof_count_lock);
	return ret;
}

/* --- read ------------------------------------------------------------- */

/**
 * kprof_count_read_event() - the count of one event, on one CPU or overall
 * @s: the session
 * @i: the event
 * @cpu: the CPU (system-wide), or -1 for the sum of a per-task session
 * @r: where to store it
 *
 * Context: kprof_count_lock held, and kprof_counters_lock().
 */
static void kprof_count_read_event(struct kprof_count_session *s, unsigned int i,
				   int cpu, struct kprof_count_reading *r)
{
	const struct kprof_count_event *ev = &s->events[i];
	unsigned int t;

	memset(r, 0, sizeof(*r));
	r->event = i;
	r->cpu = cpu;
	r->error = ev->error;
	if (ev->error)
		return;
	if (cpu >= 0) {
		r->error = ev->ctrs[cpu].error;
		if (!r->error)
			kprof_count_ctr_add(s, i, cpu, &r->value, &r->enabled, &r->running);
		return;
	}
	for (t = 0; t < s->pc.nr_tasks; t++)
		kprof_count_ctr_add(s, i, t, &r->value, &r->enabled, &r->running);
}

/* Fill @snap with every count of @s; the caller holds kprof_count_lock. */
static void kprof_count_read_all(struct kprof_count_session *s,
				 struct kprof_count_snapshot *snap)
{
	unsigned int i, cpu, n = 0;

	snap->id = s->id;
	snap->state = s->running ? KPROF_COUNT_STATE_RUNNING : KPROF_COUNT_STATE_STOPPED;
	snap->elapsed_ns = (s->running ? ktime_get_ns() : s->stop_ns) - s->start_ns;
	for (i = 0; i < s->nr_events; i++) {
		strscpy(snap->names[i], s->events[i].name, KPROF_EVENT_NAME_MAX);
		snap->types[i] = s->events[i].type;
		snap->configs[i] = s->events[i].config;
	}
	if (!kprof_count_system_wide(s)) {
		for (i = 0; i < s->nr_events; i++)
			kprof_count_read_event(s, i, -1, &snap->r[n++]);
		snap->nr = n;
		return;
	}
	kprof_counters_lock(&s->pc);
	for (i = 0; i < s->nr_events; i++)
		for_each_cpu(cpu, s->cpus_seen)
			kprof_count_read_event(s, i, cpu, &snap->r[n++]);
	kprof_counters_unlock(&s->pc);
	snap->nr = n;
}

/* Readings a snapshot of @s needs room for; kprof_count_lock held. */
static unsigned int kprof_count_nr_readings(const struct kprof_count_session *s)
{
	/* cpus_seen grows under kprof_counters_lock(): count all possible */
	return s->nr_events * (kprof_count_system_wide(s) ? num_possible_cpus() : 1);
}

/**
 * kprof_count_read() - every count of a session at once
 * @id: the session to read, or NULL for the most recently started one
 * @err: why there is none: -ENOENT, -ESTALE, -EACCES or -ENOMEM
 *
 * One snapshot, so that a reader sending it in several messages sends one
 * consistent reading whatever its length.
 *
 * Context: process context.
 * Return: the snapshot, for kvfree(); NULL with @err set.
 */
struct kprof_count_snapshot *kprof_count_read(const u64 *id, int *err)
{
	struct kprof_count_snapshot *snap = NULL;
	struct kprof_count_session *s;

	mutex_lock(&kprof_count_lock);
	s = kprof_count_lookup(id, err);
	if (!s)
		goto out_unlock;
	snap = kvzalloc(struct_size(snap, r, kprof_count_nr_readings(s)), KPROF_GFP);
	if (!snap) {
		*err = -ENOMEM;
		goto out_unlock;
	}
	kprof_count_read_all(s, snap);
out_unlock:
	mutex_unlock(&kprof_count_lock);
	return snap;
}

/* --- debugfs --------------------------------------------------------------- */

static void kprof_counters_row(struct seq_file *m, const char *name, const char *cpu,
			       const struct kprof_count_reading *r)
{
	if (r->error)
		seq_printf(m, "%-32s %5s %20s %20s %20s error %u\n", name, cpu, "-", "-", "-",
			   r->error);
	else
		seq_printf(m, "%-32s %5s %20llu %20llu %20llu\n", name, cpu, r->value,
			   r->enabled, r->running);
}

/**
 * kprof_counters_show() - /sys/kernel/debug/kprof/counters
 * @m: the file
 * @v: unused
 *
 * The most recently started session: one line per event (per-task
 * sessions: all threads and children) or per event and CPU (system-wide),
 * read now; raw counts, not scaled.  Its first line says its id and how
 * many sessions there are.
 *
 * Return: 0.
 */
int kprof_counters_show(struct seq_file *m, void *v)
{
	struct kprof_count_reading r;
	struct kprof_count_session *s;
	unsigned int i, cpu;
	char name[16];

	mutex_lock(&kprof_count_lock);
	if (list_empty(&kprof_count_sessions)) {
		seq_puts(m, "no counting session\n");
		goto out_unlock;
	}
	s = list_last_entry(&kprof_count_sessions, struct kprof_count_session, node);
	seq_printf(m, "session %llu (%s) %s", s->id, s->running ? "running" : "stopped",
		   kprof_count_system_wide(s) ? "system-wide" : "per-task");
	if (kprof_count_system_wide(s))
		seq_printf(m, " cpus %*pbl\n", cpumask_pr_args(s->cpus));
	else
		seq_printf(m, " %s %u threads %u%s\n",
			   s->flags & KPROF_SESSION_F_THREADS ? "tids" : "pids", s->nr_pids,
			   s->pc.nr_tasks,
			   s->flags & KPROF_SESSION_F_INHERIT ? " inherit" : "");
	seq_printf(m, "%-32s %5s %20s %20s %20s\n", "event", "cpu", "value", "enabled_ns",
		   "running_ns");
	if (!kprof_count_system_wide(s)) {
		for (i = 0; i < s->nr_events; i++) {
			kprof_count_read_event(s, i, -1, &r);
			kprof_counters_row(m, s->events[i].name, "all", &r);
		}
		goto out_unlock;
	}
	kprof_counters_lock(&s->pc);
	for (i = 0; i < s->nr_events; i++) {
		for_each_cpu(cpu, s->cpus_seen) {
			kprof_count_read_event(s, i, cpu, &r);
			snprintf(name, sizeof(name), "%u", cpu);
			kprof_counters_row(m, s->events[i].name, name, &r);
		}
	}
	kprof_counters_unlock(&s->pc);
out_unlock:
	mutex_unlock(&kprof_count_lock);
	return 0;
}

/* --- owner and module lifetime ----------------------------------------------- */

/**
 * kprof_count_release() - a netlink socket is closing: end the sessions it
 * owns
 * @net: the socket's network namespace
 * @portid: its port
 *
 * Context: process context (genl.c's NETLINK_URELEASE notifier).
 */
void kprof_count_release(struct net *net, u32 portid)
{
	struct kprof_count_session *s, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&kprof_count_lock);
	list_for_each_entry_safe(s, tmp, &kprof_count_sessions, node)
		if (kprof_count_owned(s, net, portid))
			list_move_tail(&s->node, &gone);
	mutex_unlock(&kprof_count_lock);
	kprof_count_free_list(&gone);
}

/* Stop and free every session; the module is going away. */
void kprof_counting_exit(void)
{
	LIST_HEAD(gone);

	mutex_lock(&kprof_count_lock);
	list_splice_init(&kprof_count_sessions, &gone);
	mutex_unlock(&kprof_count_lock);
	kprof_count_free_list(&gone);
}
