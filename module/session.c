// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the profiling session: counters, targets and lifetime.
 *
 * One session exists at a time.  START creates it: rings first, then the
 * side-band hooks, then the counters (created disabled and enabled
 * together).  STOP undoes it in reverse; the rings stay until the next
 * START (or unload) so that readers can drain them and STATUS can report
 * the final statistics.
 *
 * Targets:
 *  - system-wide: one counter per (event, CPU) on the session's CPUs,
 *    following CPU hotplug through target.c: CPUs that come online get
 *    theirs from its work item, CPUs that go offline lose theirs (perf
 *    detaches them anyway).
 *  - per-task: one counter per (event, thread) of each PID, inherited by
 *    children with KPROF_SESSION_F_INHERIT.  Samples go to the ring of the
 *    CPU the task runs on.
 *
 * Lock order (never taken by the sampling path):
 *
 *	kprof_core.lock			session configuration
 *	  kprof_cpu_target::lock	the per-CPU counters (target.c)
 *	    event_mutex, perf_event_context::mutex	inside perf
 *
 * No counter is created or released under cpu_hotplug_lock: a tracepoint
 * counter takes event_mutex, which ranks above it (target.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <net/net_namespace.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "agg.h"
#include "compat.h"
#include "ktp.h"
#include "kprof.h"
#include "probes.h"
#include "procmap.h"
#include "sample.h"
#include "session.h"
#include "sideband.h"
#include "target.h"

struct kprof_session __rcu *kprof_active;

/* The current (running or stopped) session; under kprof_core.lock. */
static struct kprof_session *kprof_session;

static void kprof_attr_init(struct perf_event_attr *attr, struct kprof_session *s,
			    struct kprof_event *kev, bool per_task, bool disabled)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = kev->cfg.type;
	attr->size = sizeof(*attr);
	attr->config = kev->cfg.config;
	if (kev->cfg.period) {
		attr->sample_period = kev->cfg.period;
	} else if (s->cfg.freq) {
		attr->freq = 1;
		attr->sample_freq = s->cfg.freq;
	} else {
		attr->sample_period = s->cfg.period;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_PERIOD;
	if (attr->type == PERF_TYPE_TRACEPOINT)
		attr->sample_type |= PERF_SAMPLE_RAW;	/* the record, in data->raw */
	attr->disabled = disabled;
	attr->exclude_user = !!(kev->cfg.flags & KPROF_EV_F_EXCLUDE_USER);
	attr->exclude_kernel = !!(kev->cfg.flags & KPROF_EV_F_EXCLUDE_KERNEL);
	attr->inherit = per_task && (s->cfg.flags & KPROF_SESSION_F_INHERIT);
	kprof_attr_init_type(attr, &kev->cfg);
}

/* Create one counter; extack names the event on failure. */
static struct perf_event *kprof_counter_create(struct kprof_session *s,
					       struct kprof_event *kev, int cpu,
					       struct task_struct *task, bool disabled,
					       struct netlink_ext_ack *extack)
{
	struct perf_event_attr attr;
	struct perf_event *event;

	kprof_attr_init(&attr, s, kev, task, disabled);
	event = perf_event_create_kernel_counter(&attr, cpu, task, kprof_overflow, kev);
	if (IS_ERR(event) && extack) {
		switch (PTR_ERR(event)) {
		case -ENOENT:
		case -EOPNOTSUPP:
		case -ENODEV:
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: event not supported by this kernel or machine");
			break;
		case -EINVAL:
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: perf refused this event's configuration");
			break;
		case -EACCES:
		case -EPERM:
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: perf refused this event: permission");
			break;
		default:
			NL_SET_ERR_MSG_ATTR(extack, kev->cfg.attr,
					    "kprof: cannot create a counter for this event");
		}
	}
	return event;
}

/* --- system-wide counters and CPU hotplug ------------------------------- */

/* Called with the target's lock held. */
static int kprof_cpu_counters_create(struct kprof_session *s, unsigned int cpu,
				     bool disabled, struct netlink_ext_ack *extack)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_event *kev = &s->events[i];
		struct perf_event *event;

		if (kprof_event_is_probe(kev) || kev->percpu[cpu])
			continue;
		event = kprof_counter_create(s, kev, cpu, NULL, disabled, extack);
		if (IS_ERR(event))
			return PTR_ERR(event);
		kev->percpu[cpu] = event;
	}
	return 0;
}

/* Called with the target's lock held. */
static void kprof_cpu_counters_release(struct kprof_session *s, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_event *kev = &s->events[i];

		if (kev->percpu && kev->percpu[cpu]) {
			perf_event_release_kernel(kev->percpu[cpu]);
			kev->percpu[cpu] = NULL;
		}
	}
}

static int kprof_target_online(struct kprof_cpu_target *t, unsigned int cpu, bool starting,
			       struct netlink_ext_ack *extack)
{
	struct kprof_session *s = container_of(t, struct kprof_session, target);
	int ret = kprof_cpu_counters_create(s, cpu, starting, extack);

	if (ret) {
		kprof_cpu_counters_release(s, cpu);
		if (!starting)
			pr_warn("cannot resume sampling on CPU %u: %d\n", cpu, ret);
	}
	return ret;
}

static void kprof_target_offline(struct kprof_cpu_target *t, unsigned int cpu)
{
	kprof_cpu_counters_release(container_of(t, struct kprof_session, target), cpu);
}

static void kprof_target_enable(struct kprof_cpu_target *t, unsigned int cpu)
{
	struct kprof_session *s = container_of(t, struct kprof_session, target);
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		if (s->events[i].percpu[cpu])
			perf_event_enable(s->events[i].percpu[cpu]);
}

static const struct kprof_cpu_target_ops kprof_session_target_ops = {
	.online		= kprof_target_online,
	.offline	= kprof_target_offline,
	.enable		= kprof_target_enable,
};

static int kprof_system_wide_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_events; i++) {
		s->events[i].percpu = kcalloc(nr_cpu_ids, sizeof(struct perf_event *),
					      KPROF_GFP);
		if (!s->events[i].percpu)
			return -ENOMEM;
	}
	ret = kprof_cpu_target_init(&s->target, s->cfg.cpus, &kprof_session_target_ops);
	if (ret)
		return ret;
	return kprof_cpu_target_start(&s->target, extack);
}

static void kprof_system_wide_stop(struct kprof_session *s)
{
	kprof_cpu_target_stop(&s->target);
}

/* --- per-task counters -------------------------------------------------- */

/* The threads of process @nr, and the process into the session's pidset. */
static int kprof_tasks_add(struct kprof_session *s, pid_t nr, const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	pid_t tgid;
	int ret;

	ret = kprof_threads_get(nr, attr, s->tasks, &s->nr_tasks, KPROF_MAX_TASKS, &tgid,
				extack);
	if (!ret && !kprof_pidset_add(s, tgid)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: too many processes to follow");
		ret = -E2BIG;
	}
	return ret;
}

static void kprof_per_task_release(struct kprof_session *s)
{
	unsigned int i;

	if (s->task_events) {
		for (i = 0; i < s->nr_tasks * s->nr_events; i++)
			if (!IS_ERR_OR_NULL(s->task_events[i]))
				perf_event_release_kernel(s->task_events[i]);
		kvfree(s->task_events);
		s->task_events = NULL;
	}
	if (s->tasks) {
		for (i = 0; i < s->nr_tasks; i++)
			put_task_struct(s->tasks[i]);
		kvfree(s->tasks);
		s->tasks = NULL;
	}
	s->nr_tasks = 0;
}

static int kprof_per_task_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	unsigned int i, e, live = 0;
	int ret;

	s->tasks = kvcalloc(KPROF_MAX_TASKS, sizeof(*s->tasks), KPROF_GFP);
	if (!s->tasks)
		return -ENOMEM;
	for (i = 0; i < s->cfg.nr_pids; i++) {
		ret = kprof_tasks_add(s, s->cfg.pids[i], s->cfg.pid_attrs[i], extack);
		if (ret)
			return ret;
	}

	s->task_events = kvcalloc(s->nr_tasks * s->nr_events, sizeof(*s->task_events),
				  KPROF_GFP);
	if (!s->task_events)
		return -ENOMEM;

	for (i = 0; i < s->nr_tasks; i++) {
		for (e = 0; e < s->nr_events; e++) {
			struct perf_event *event;

			if (kprof_event_is_probe(&s->events[e])) {
				live++;	/* probed, not counted: see probes.c */
				continue;
			}
			event = kprof_counter_create(s, &s->events[e], -1, s->tasks[i],
						     true, extack);
			if (IS_ERR(event) && PTR_ERR(event) == -ESRCH) {
				/* the thread exited meanwhile: nothing to follow */
				s->task_events[i * s->nr_events + e] = NULL;
				continue;
			}
			if (IS_ERR(event))
				return PTR_ERR(event);
			s->task_events[i * s->nr_events + e] = event;
			live++;
		}
	}
	if (!live) {
		NL_SET_ERR_MSG(extack, "kprof: every target process has exited");
		return -ESRCH;
	}

	for (i = 0; i < s->nr_tasks * s->nr_events; i++)
		if (s->task_events[i])
			perf_event_enable(s->task_events[i]);
	return 0;
}

/* --- the session ---------------------------------------------------------- */

/* Does the request have an off-CPU or lock event (which keep time in tables)? */
static bool kprof_session_keeps_waits(const struct kprof_session_config *cfg)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_events; i++)
		if (kprof_event_type_waits(cfg->events[i].type))
			return true;
	return false;
}

static void kprof_session_free(struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		kfree(s->events[i].percpu);
	kprof_cpu_target_destroy(&s->target);
	kprof_agg_free(s->agg);
	kprof_procmap_free(s->procmap);
	kprof_probes_free(s);
	if (s->bufs)
		kprof_buffers_put(s->bufs);
	kfree(s->cfg.cpus);
	kvfree(s);
}

/*
 * Everything that can run a handler or hook is gone when this returns.
 * The counters go first: the grace periods that unhooking the side-band
 * waits for (synchronize_rcu(), which also waits for NMI handlers) then
 * cover the last overflow handlers too, and a stop costs no extra one.
 */
static void kprof_session_quiesce(struct kprof_session *s)
{
	RCU_INIT_POINTER(kprof_active, NULL);
	kprof_probes_stop(s);
	if (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)
		kprof_system_wide_stop(s);
	else
		kprof_per_task_release(s);
	kprof_procmap_stop(s->procmap);
	if (s->sideband_on)
		kprof_sideband_stop(s);
	else
		synchronize_rcu();
	kprof_buffers_stop(s->bufs);
}

/**
 * kprof_session_start() - start the session
 * @cfg: the validated request; its cpumask is taken over
 * @id: the new session's id
 * @extack: for error messages
 *
 * Context: process context; takes kprof_core.lock.
 * Return: 0, -EBUSY when a session runs, -ENOMEM, -ESRCH for a vanished
 * target, or perf's error for an event it cannot count.
 */
int kprof_session_start(struct kprof_session_config *cfg, u64 *id,
			struct netlink_ext_ack *extack)
{
	const struct cpumask *cpus;
	struct kprof_session *s;
	unsigned int i;
	int ret;

	mutex_lock(&kprof_core.lock);
	if (kprof_core.state == KPROF_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "kprof: a session is already running");
		ret = -EBUSY;
		goto out_unlock;
	}

	s = kvzalloc(sizeof(*s), KPROF_GFP);
	if (!s) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	s->cfg = *cfg;
	cfg->cpus = NULL;	/* taken over */
	s->nr_events = s->cfg.nr_events;
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].session = s;
		s->events[i].index = i;
		s->events[i].cfg = s->cfg.events[i];
	}
	s->id = atomic64_read(&kprof_core.sessions) + 1;
	s->start_ns = ktime_get_ns();

	/*
	 * Per-task samples land on whichever CPU the task runs on.  Without
	 * streaming the rings only carry the per-CPU counters and scratch
	 * space: the smallest size does.
	 */
	cpus = (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ? s->cfg.cpus : cpu_possible_mask;
	if (!(s->cfg.flags & KPROF_SESSION_F_STREAM))
		s->cfg.buffer_size = KPROF_MIN_BUFFER_SIZE;
	/* rings of more than a quarter of the memory: refused, not attempted */
	if ((u64)s->cfg.buffer_size * cpumask_weight(cpus) >
	    (u64)totalram_pages() * PAGE_SIZE / 4) {
		NL_SET_ERR_MSG(extack, "kprof: the rings would take over a quarter of the memory");
		ret = -ENOMEM;
		goto out_free;
	}
	s->bufs = kprof_buffers_alloc(s->id, cpus, s->cfg.buffer_size, s->cfg.watermark);
	if (!s->bufs) {
		NL_SET_ERR_MSG(extack, "kprof: cannot allocate the ring buffers");
		ret = -ENOMEM;
		goto out_free;
	}
	if ((s->cfg.flags & KPROF_SESSION_F_AGGREGATE) || kprof_session_keeps_waits(&s->cfg)) {
		/*
		 * allocated before any counter exists: never on the sampling
		 * path; a streaming session keeps its off-CPU time there too
		 */
		s->agg = kprof_agg_alloc(cpus, s->cfg.agg_entries);
		if (!s->agg) {
			NL_SET_ERR_MSG(extack, "kprof: cannot allocate the aggregation tables");
			ret = -ENOMEM;
			goto out_free;
		}
		s->procmap = kprof_procmap_alloc();
		if (!s->procmap) {
			NL_SET_ERR_MSG(extack, "kprof: cannot allocate the kept mappings");
			ret = -ENOMEM;
			goto out_free;
		}
		ret = kprof_procmap_start(s->procmap, extack);
		if (ret)
			goto out_free;
	}

	/* side-band names what a stream reader decodes; tables are named live */
	if (s->cfg.flags & KPROF_SESSION_F_STREAM) {
		ret = kprof_sideband_start(s, extack);
		if (ret)
			goto out_free;
	}
	rcu_assign_pointer(kprof_active, s);

	if (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)
		ret = kprof_system_wide_start(s, extack);
	else
		ret = kprof_per_task_start(s, extack);
	if (!ret)
		ret = kprof_probes_start(s, extack);
	if (ret)
		goto out_quiesce;

	/* the previous, stopped session goes; its mapped rings stay alive */
	if (kprof_session)
		kprof_session_free(kprof_session);
	kprof_session = s;
	atomic64_inc(&kprof_core.sessions);
	WRITE_ONCE(kprof_core.state, KPROF_STATE_RUNNING);
	*id = s->id;
	mutex_unlock(&kprof_core.lock);
	return 0;

out_quiesce:
	kprof_session_quiesce(s);
out_free:
	kprof_session_free(s);
out_unlock:
	mutex_unlock(&kprof_core.lock);
	return ret;
}

/* Stop the running session; it stays as the current one.  kprof_core.lock held. */
static void kprof_session_end_locked(void)
{
	lockdep_assert_held(&kprof_core.lock);
	kprof_session_quiesce(kprof_session);
	WRITE_ONCE(kprof_core.state, KPROF_STATE_STOPPED);
}

/**
 * kprof_session_stop() - stop the running session
 * @extack: for error messages
 *
 * Context: process context; takes kprof_core.lock.
 * Return: 0, or -ENOENT when no session runs.
 */
int kprof_session_stop(struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&kprof_core.lock);
	if (kprof_core.state != KPROF_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "kprof: no session is running");
		ret = -ENOENT;
		goto out_unlock;
	}
	kprof_session_end_locked();
out_unlock:
	mutex_unlock(&kprof_core.lock);
	return ret;
}

/**
 * kprof_session_release() - a netlink socket is closing: stop what it owns
 * @net: the socket's network namespace
 * @portid: its port
 *
 * A session started with KPROF_SESSION_F_OWNED ends with its owner's
 * socket, as perf's events end with their file descriptors: a killed
 * `kprofctl record` leaves nothing sampling.
 *
 * Context: process context (the NETLINK_URELEASE notifier); takes
 * kprof_core.lock.
 */
void kprof_session_release(struct net *net, u32 portid)
{
	struct kprof_session *s;

	mutex_lock(&kprof_core.lock);
	s = kprof_session;
	if (kprof_core.state == KPROF_STATE_RUNNING &&
	    (s->cfg.flags & KPROF_SESSION_F_OWNED) &&
	    s->cfg.owner_portid == portid && net_eq(s->cfg.owner_net, net)) {
		pr_debug("session %llu: its owner's socket closed, stopping\n", s->id);
		kprof_session_end_locked();
	}
	mutex_unlock(&kprof_core.lock);
}

/**
 * kprof_session_current() - the current session, running or stopped
 *
 * Context: kprof_core.lock held.
 * Return: the session or NULL.
 */
struct kprof_session *kprof_session_current(void)
{
	lockdep_assert_held(&kprof_core.lock);
	return kprof_session;
}

/* One CPU's counters, table occupancy included; the CPU must have a ring. */
static void kprof_session_cpu_stats_locked(struct kprof_session *s, unsigned int cpu,
					   struct kprof_stats_snapshot *st)
{
	kprof_ring_stats(s->bufs->rings[cpu], st);
	if (s->agg && s->agg->cpus[cpu]) {
		st->agg_used = local_read(&s->agg->cpus[cpu]->used);
		st->agg_capacity = s->agg->cpus[cpu]->nr_entries;
	}
}

/**
 * kprof_session_totals() - the session's counters summed over its CPUs
 * @s: the session
 * @t: where to store the sums
 */
void kprof_session_totals(struct kprof_session *s, struct kprof_stats_snapshot *t)
{
	struct kprof_stats_snapshot one;
	unsigned int cpu;

	memset(t, 0, sizeof(*t));
	for (cpu = 0; cpu < s->bufs->nr_rings; cpu++) {
		if (!s->bufs->rings[cpu])
			continue;
		kprof_session_cpu_stats_locked(s, cpu, &one);
		kprof_stats_add(t, &one);
	}
}

int __init kprof_session_init(void)
{
	/* the tracepoints of the side-band and of the scheduler probes */
	return kprof_ktp_init();
}

/* Stop and free everything; the module is going away. */
void kprof_session_exit(void)
{
	mutex_lock(&kprof_core.lock);
	if (kprof_core.state == KPROF_STATE_RUNNING)
		kprof_session_quiesce(kprof_session);
	if (kprof_session)
		kprof_session_free(kprof_session);
	kprof_session = NULL;
	WRITE_ONCE(kprof_core.state, KPROF_STATE_IDLE);
	mutex_unlock(&kprof_core.lock);
}

/**
 * kprof_session_info() - what STATUS and debugfs report of the session
 * @info: where to store it
 *
 * Context: process context; takes kprof_core.lock.
 * Return: false when there is no session.
 */
bool kprof_session_info(struct kprof_session_info *info)
{
	struct kprof_session *s;

	mutex_lock(&kprof_core.lock);
	s = kprof_session;
	if (s) {
		info->id = s->id;
		info->state = kprof_core.state;
		info->flags = s->cfg.flags;
		info->freq = s->cfg.freq;
		info->period = s->cfg.period;
		info->buffer_size = s->cfg.buffer_size;
		info->stride = s->bufs->stride;
		info->watermark = s->bufs->watermark;
		info->stack_depth = s->cfg.stack_depth;
		info->nr_events = s->nr_events;
		info->nr_tasks = s->nr_tasks;
		info->start_ns = s->start_ns;
		info->agg_entries = s->agg ? s->cfg.agg_entries : 0;
		info->owner_pid = (s->cfg.flags & KPROF_SESSION_F_OWNED) ? s->cfg.owner_pid : 0;
		kprof_session_totals(s, &info->totals);
		info->has_maps = s->procmap;
		kprof_procmap_stats(s->procmap, &info->maps);
	}
	mutex_unlock(&kprof_core.lock);
	return s;
}

/**
 * kprof_session_cpu_stats() - one CPU's counters of the current session
 * @cpu: the CPU
 * @id: set to the session's id
 * @st: where to store the counters
 *
 * Context: process context; takes kprof_core.lock.
 * Return: 0, -ENOENT without a session, -ENODEV when @cpu has no ring.
 */
int kprof_session_cpu_stats(unsigned int cpu, u64 *id, struct kprof_stats_snapshot *st)
{
	struct kprof_session *s;
	int ret = 0;

	mutex_lock(&kprof_core.lock);
	s = kprof_session;
	if (!s)
		ret = -ENOENT;
	else if (cpu >= s->bufs->nr_rings || !s->bufs->rings[cpu])
		ret = -ENODEV;
	else
		kprof_session_cpu_stats_locked(s, cpu, st);
	if (s)
		*id = s->id;
	mutex_unlock(&kprof_core.lock);
	return ret;
}

/**
 * kprof_session_buffers() - a reference on the current session's rings
 *
 * Context: process context; takes kprof_core.lock.
 * Return: the rings with a reference the caller puts, or NULL.
 */
struct kprof_buffers *kprof_session_buffers(void)
{
	struct kprof_buffers *bufs = NULL;

	mutex_lock(&kprof_core.lock);
	if (kprof_session) {
		bufs = kprof_session->bufs;
		kprof_buffers_get(bufs);
	}
	mutex_unlock(&kprof_core.lock);
	return bufs;
}

/**
 * kprof_session_agg_reset() - empty the session's aggregation tables
 * @extack: for error messages
 *
 * The session keeps sampling into the emptied tables.
 *
 * Context: process context; takes kprof_core.lock.
 * Return: 0, -ENOENT without a session, -EOPNOTSUPP when it does not
 * aggregate.
 */
int kprof_session_agg_reset(struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&kprof_core.lock);
	if (!kprof_session) {
		NL_SET_ERR_MSG(extack, "kprof: no session");
		ret = -ENOENT;
	} else if (!kprof_session->agg) {
		NL_SET_ERR_MSG(extack, "kprof: the session does not aggregate");
		ret = -EOPNOTSUPP;
	} else {
		kprof_agg_reset(kprof_session->agg);
	}
	mutex_unlock(&kprof_core.lock);
	return ret;
}
