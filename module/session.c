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
 *	kprof_session_lock		session configuration, this file only
 *	  kprof_counters_lock()		the per-CPU counters (target.c)
 *	    event_mutex, perf_event_context::mutex	inside perf
 *
 * No counter is created or released under cpu_hotplug_lock: a tracepoint
 * counter takes event_mutex, which ranks above it (target.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
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
#include "core.h"
#include "internal.h"
#include "ktp.h"
#include "probes.h"
#include "procmap.h"
#include "sample.h"
#include "session.h"
#include "sideband.h"
#include "target.h"

/*
 * The session lock: serialises session configuration (start, stop, an
 * owner's release, reset) with every reader of the current session; never
 * taken on a sampling path, and only in this file.  Readers elsewhere hold
 * it between kprof_session_lock_current() and kprof_session_unlock().
 */
static DEFINE_MUTEX(kprof_session_lock);
/* The current (running or stopped) session; under kprof_session_lock. */
static struct kprof_session *kprof_session;

/* --- perf counters (target.c) --------------------------------------------- */

/* The counter of sampling event @e on @slot: none for a probe event. */
static bool kprof_session_attr(struct kprof_counters *c, unsigned int e, unsigned int slot,
			       struct task_struct *task, struct perf_event_attr *attr,
			       void **context)
{
	struct kprof_session *s = c->priv;
	struct kprof_event *kev = &s->events[e];

	if (kprof_event_is_probe(kev))
		return false;	/* probed, not counted: see probes.c */
	attr->type = kev->cfg.type;
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
	attr->exclude_user = !!(kev->cfg.flags & KPROF_EV_F_EXCLUDE_USER);
	attr->exclude_kernel = !!(kev->cfg.flags & KPROF_EV_F_EXCLUDE_KERNEL);
	attr->inherit = task && (s->cfg.flags & KPROF_SESSION_F_INHERIT);
	kprof_attr_init_type(attr, &kev->cfg);
	*context = kev;
	return true;
}

/* Any counter perf refuses fails the start; extack names the event. */
static int kprof_session_refused(struct kprof_counters *c, unsigned int e, unsigned int slot,
				 int err, bool first, bool starting,
				 struct netlink_ext_ack *extack)
{
	struct kprof_session *s = c->priv;
	const struct nlattr *attr = s->events[e].cfg.attr;

	if (!starting) {
		pr_warn("cannot resume sampling on CPU %u: %d\n", slot, -err);
		return -err;
	}
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "kprof: event not supported by this kernel or machine");
		break;
	case EINVAL:
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: perf refused this event's configuration");
		break;
	case EACCES:
	case EPERM:
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: perf refused this event: permission");
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: cannot create a counter for this event");
	}
	return -err;
}

static const struct kprof_counter_ops kprof_session_counter_ops = {
	.attr		= kprof_session_attr,
	.overflow	= kprof_overflow,
	.refused	= kprof_session_refused,
};

/* Is any event of @s probed rather than counted? */
static bool kprof_session_has_probes(const struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		if (kprof_event_is_probe(&s->events[i]))
			return true;
	return false;
}

/*
 * The counters of every event on the session's CPUs, or on every thread of
 * its processes, which join its pidset.
 */
static int kprof_session_counters_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	bool system_wide = s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE;
	unsigned int i;
	pid_t tgid;
	int ret;

	ret = kprof_counters_init(&s->ctrs, &kprof_session_counter_ops, s, s->nr_events,
				  system_wide ? s->cfg.cpus : NULL);
	if (ret)
		return ret;
	for (i = 0; !system_wide && i < s->cfg.nr_pids; i++) {
		ret = kprof_counters_add_process(&s->ctrs, s->cfg.pids[i], s->cfg.pid_attrs[i],
						 &tgid, extack);
		if (ret)
			return ret;
		if (!kprof_pidset_add(s, tgid)) {
			NL_SET_ERR_MSG_ATTR(extack, s->cfg.pid_attrs[i],
					    "kprof: too many processes to follow");
			return -E2BIG;
		}
	}
	ret = kprof_counters_start(&s->ctrs, true, extack);
	if (!ret && !system_wide && !s->ctrs.live && !kprof_session_has_probes(s)) {
		NL_SET_ERR_MSG(extack, "kprof: every target process has exited");
		ret = -ESRCH;
	}
	return ret;
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
	kprof_counters_destroy(&s->ctrs);
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
	kprof_counters_stop(&s->ctrs);
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
 * Context: process context; takes kprof_session_lock.
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

	mutex_lock(&kprof_session_lock);
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

	ret = kprof_session_counters_start(s, extack);
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
	mutex_unlock(&kprof_session_lock);
	return 0;

out_quiesce:
	kprof_session_quiesce(s);
out_free:
	kprof_session_free(s);
out_unlock:
	mutex_unlock(&kprof_session_lock);
	return ret;
}

/* Stop the running session; it stays as the current one.  kprof_session_lock held. */
static void kprof_session_end_locked(void)
{
	lockdep_assert_held(&kprof_session_lock);
	kprof_session_quiesce(kprof_session);
	/* what exits or execs from now on is named from what was kept */
	kprof_procmap_keep_live(kprof_session->procmap);
	WRITE_ONCE(kprof_core.state, KPROF_STATE_STOPPED);
}

/**
 * kprof_session_stop() - stop the running session
 * @extack: for error messages
 *
 * Context: process context; takes kprof_session_lock.
 * Return: 0, or -ENOENT when no session runs.
 */
int kprof_session_stop(struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&kprof_session_lock);
	if (kprof_core.state != KPROF_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "kprof: no session is running");
		ret = -ENOENT;
		goto out_unlock;
	}
	kprof_session_end_locked();
out_unlock:
	mutex_unlock(&kprof_session_lock);
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
 * kprof_session_lock.
 */
void kprof_session_release(struct net *net, u32 portid)
{
	struct kprof_session *s;

	mutex_lock(&kprof_session_lock);
	s = kprof_session;
	if (kprof_core.state == KPROF_STATE_RUNNING &&
	    (s->cfg.flags & KPROF_SESSION_F_OWNED) &&
	    s->cfg.owner_portid == portid && net_eq(s->cfg.owner_net, net)) {
		pr_debug("session %llu: its owner's socket closed, stopping\n", s->id);
		kprof_session_end_locked();
	}
	mutex_unlock(&kprof_session_lock);
}

/**
 * kprof_session_lock_current() - the current session, running or stopped
 *
 * Takes the session lock, which the caller holds until
 * kprof_session_unlock(): the session can be neither stopped nor freed
 * meanwhile.
 *
 * Context: process context, not under the session lock.
 * Return: the session or NULL.
 */
struct kprof_session *kprof_session_lock_current(void)
	__acquires(&kprof_session_lock)
{
	mutex_lock(&kprof_session_lock);
	return kprof_session;
}

/**
 * kprof_session_unlock() - undo kprof_session_lock_current()
 */
void kprof_session_unlock(void)
	__releases(&kprof_session_lock)
{
	mutex_unlock(&kprof_session_lock);
}

/**
 * kprof_status_read() - take a snapshot of the module's status
 * @st: where to store it
 *
 * Context: any context that may sleep; takes kprof_session_lock so that the
 * state and the session count agree.
 */
void kprof_status_read(struct kprof_status *st)
{
	mutex_lock(&kprof_session_lock);
	st->state = READ_ONCE(kprof_core.state);
	st->sessions = atomic64_read(&kprof_core.sessions);
	mutex_unlock(&kprof_session_lock);

	st->nr_cpus = num_possible_cpus();
	st->online_cpus = num_online_cpus();
	st->readers = atomic_read(&kprof_core.readers);
	st->loaded_ns = kprof_core.loaded_ns;
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
	mutex_lock(&kprof_session_lock);
	if (kprof_core.state == KPROF_STATE_RUNNING)
		kprof_session_quiesce(kprof_session);
	if (kprof_session)
		kprof_session_free(kprof_session);
	kprof_session = NULL;
	WRITE_ONCE(kprof_core.state, KPROF_STATE_IDLE);
	mutex_unlock(&kprof_session_lock);
}

/**
 * kprof_session_info() - what STATUS and debugfs report of the session
 * @info: where to store it
 *
 * Context: process context; takes kprof_session_lock.
 * Return: false when there is no session.
 */
bool kprof_session_info(struct kprof_session_info *info)
{
	struct kprof_session *s;

	mutex_lock(&kprof_session_lock);
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
		info->nr_tasks = s->ctrs.nr_tasks;
		info->start_ns = s->start_ns;
		info->agg_entries = s->agg ? s->cfg.agg_entries : 0;
		info->owner_pid = (s->cfg.flags & KPROF_SESSION_F_OWNED) ? s->cfg.owner_pid : 0;
		kprof_session_totals(s, &info->totals);
		info->has_maps = s->procmap;
		kprof_procmap_stats(s->procmap, &info->maps);
	}
	mutex_unlock(&kprof_session_lock);
	return s;
}

/**
 * kprof_session_cpu_stats() - one CPU's counters of the current session
 * @cpu: the CPU
 * @id: set to the session's id
 * @st: where to store the counters
 *
 * Context: process context; takes kprof_session_lock.
 * Return: 0, -ENOENT without a session, -ENODEV when @cpu has no ring.
 */
int kprof_session_cpu_stats(unsigned int cpu, u64 *id, struct kprof_stats_snapshot *st)
{
	struct kprof_session *s;
	int ret = 0;

	mutex_lock(&kprof_session_lock);
	s = kprof_session;
	if (!s)
		ret = -ENOENT;
	else if (cpu >= s->bufs->nr_rings || !s->bufs->rings[cpu])
		ret = -ENODEV;
	else
		kprof_session_cpu_stats_locked(s, cpu, st);
	if (s)
		*id = s->id;
	mutex_unlock(&kprof_session_lock);
	return ret;
}

/**
 * kprof_session_buffers() - a reference on the current session's rings
 *
 * Context: process context; takes kprof_session_lock.
 * Return: the rings with a reference the caller puts, or NULL.
 */
struct kprof_buffers *kprof_session_buffers(void)
{
	struct kprof_buffers *bufs = NULL;

	mutex_lock(&kprof_session_lock);
	if (kprof_session) {
		bufs = kprof_session->bufs;
		kprof_buffers_get(bufs);
	}
	mutex_unlock(&kprof_session_lock);
	return bufs;
}

/**
 * kprof_session_agg_reset() - empty the session's aggregation tables
 * @extack: for error messages
 *
 * The session keeps sampling into the emptied tables.
 *
 * Context: process context; takes kprof_session_lock.
 * Return: 0, -ENOENT without a session, -EOPNOTSUPP when it does not
 * aggregate.
 */
int kprof_session_agg_reset(struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&kprof_session_lock);
	if (!kprof_session) {
		NL_SET_ERR_MSG(extack, "kprof: no session");
		ret = -ENOENT;
	} else if (!kprof_session->agg) {
		NL_SET_ERR_MSG(extack, "kprof: the session does not aggregate");
		ret = -EOPNOTSUPP;
	} else {
		kprof_agg_reset(kprof_session->agg);
	}
	mutex_unlock(&kprof_session_lock);
	return ret;
}
