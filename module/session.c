// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the profiling session: counters, targets and lifetime.
 *
 * Sessions live in a table (kprof_sessions, oldest first) under a lock
 * that guards only the table, the ids and the users count: never held
 * while a session starts or stops.  START creates one: rings first, then
 * the side-band hooks, then the counters (created disabled and enabled
 * together).  STOP undoes it in reverse; the session then stays, rings and
 * statistics included, while a netlink socket holds it (its owner, or the
 * socket that stopped it, until it closes or stops or starts another), so
 * that readers can drain it.  When no socket holds it, it goes: its
 * memory is given back (rings a reader still maps stay until unmapped),
 * and a small record of its final counters (struct kprof_session_ended)
 * answers STATUS and debugfs for the most recently freed session.  Only a
 * detached aggregating session's tables that nobody saved stay unheld,
 * until KPROF_CMD_FREE says they were saved or the next START.  Each
 * session has its own mutex, which its stop, reset and readers take, and
 * a reference count; it is freed with the last one.
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
 *	kprof_session::lock		one session's stop, reset and readers
 *	  kprof_sessions_lock		the table, ids and users (this file only)
 *	    kprof_scratch_lock		the CPUs' shared scratch areas (ring.c)
 *	  kprof_counters_lock()		the per-CPU counters (target.c)
 *	    kprof_session::cpus_lock	a CPU's ring and table (below)
 *	      kprof_sessions_lock
 *	    event_mutex, perf_event_context::mutex	inside perf
 *	kprof_session::cpus_follow.lock	its own hotplug work (target.c)
 *	  kprof_session::cpus_lock
 *
 * No counter is created or released under cpu_hotplug_lock: a tracepoint
 * counter takes event_mutex, which ranks above it (target.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/moduleparam.h>
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

static int kprof_session_cpu_prepare(struct kprof_session *s, unsigned int cpu,
				     struct netlink_ext_ack *extack);

/* A CPU's ring and table exist before its counters, whoever comes first. */
static int kprof_session_counters_prepare(struct kprof_counters *c, unsigned int cpu,
					  struct netlink_ext_ack *extack)
{
	return kprof_session_cpu_prepare(c->priv, cpu, extack);
}

static const struct kprof_counter_ops kprof_session_counter_ops = {
	.attr		= kprof_session_attr,
	.overflow	= kprof_overflow,
	.refused	= kprof_session_refused,
	.prepare	= kprof_session_counters_prepare,
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
 * its processes, which join its pidset (with F_THREADS, on the threads
 * named, which join its tidset, and their processes the pidset).
 */
static int kprof_session_counters_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	bool system_wide = s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE;
	bool threads = s->cfg.flags & KPROF_SESSION_F_THREADS;
	struct kprof_target_id id;
	unsigned int i;
	int ret;

	ret = kprof_counters_init(&s->ctrs, &kprof_session_counter_ops, s, s->nr_events,
				  system_wide ? s->cfg.cpus : NULL);
	if (ret)
		return ret;
	for (i = 0; !system_wide && i < s->cfg.nr_pids; i++) {
		ret = kprof_counters_add_process(&s->ctrs, s->cfg.pids[i], threads,
						 s->cfg.pid_attrs[i], &id, extack);
		if (ret)
			return ret;
		if (!kprof_pidset_add(s, id.tgid) || (threads && !kprof_tidset_add(s, id.tid))) {
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

/* --- the session table ----------------------------------------------------- */

/*
 * The table's lock: the sessions, their ids, @held and @state, the
 * starts in progress and the core state.  Taken inside a session's lock,
 * never across a session's start or stop work.
 */
static DEFINE_MUTEX(kprof_sessions_lock);
static LIST_HEAD(kprof_sessions);
static unsigned int kprof_sessions_starting;
static u64 kprof_sessions_last_id;

/* The most sessions max_sessions may allow. */
#define KPROF_SESSIONS_LIMIT	256

static unsigned int max_sessions = 16;
module_param(max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions,
		 "sessions that may exist at once, running or stopped and held (1-256, default 16)");

static unsigned int max_memory_mb;
module_param(max_memory_mb, uint, 0644);
MODULE_PARM_DESC(max_memory_mb,
		 "memory all sessions together may take, in MiB (0, the default: a sixteenth of RAM)");

/* The refusal of a start, or of a CPU coming up, over the budget. */
#define KPROF_MSG_OVER_BUDGET \
	"kprof: the sessions' memory would exceed the budget (module parameter max_memory_mb); kprofctl status lists them"

/* The memory of the sessions on the table and starting, in bytes. */
static u64 kprof_sessions_mem;

/**
 * struct kprof_session_ended - what is left of the most recently freed
 * session: what STATUS and debugfs report of it
 * @info: its report when it was freed (@info.uid and @info.mem unused)
 * @uid: the user that started it
 * @nr_cpus: entries in @cpus
 * @cpus: each CPU that had a ring, with its final counters
 */
struct kprof_session_ended {
	struct kprof_session_info info;
	kuid_t uid;
	unsigned int nr_cpus;
	struct kprof_session_ended_cpu {
		unsigned int cpu;
		struct kprof_stats_snapshot st;
	} cpus[];
};

/* The most recently freed session, or NULL.  kprof_sessions_lock. */
static struct kprof_session_ended *kprof_ended;

/* The sessions' memory budget, in bytes. */
static u64 kprof_sessions_budget(void)
{
	unsigned int mb = READ_ONCE(max_memory_mb);

	return mb ? (u64)mb << 20 : (u64)totalram_pages() * PAGE_SIZE / 16;
}

/*
 * What all sessions share: the CPUs' scratch areas (ring.c) and the MMAP
 * queues (sideband.c), counted in the sessions' memory and budget.
 */
static u64 kprof_shared_bytes(void)
{
	return kprof_scratch_bytes(NULL) + kprof_sideband_mem();
}

/* The sessions on the table and starting.  kprof_sessions_lock held. */
static unsigned int kprof_sessions_count(void)
{
	struct kprof_session *s;
	unsigned int n = kprof_sessions_starting;

	lockdep_assert_held(&kprof_sessions_lock);
	list_for_each_entry(s, &kprof_sessions, node)
		n++;
	return n;
}

/* kprof_uid_may_access() of @s, or of a freed session's record below. */
static bool kprof_session_may_access(const struct kprof_session *s)
{
	return kprof_uid_may_access(s->uid);
}

/*
 * The core state: running when a session runs, else stopped when a
 * session was (its record at least).  kprof_sessions_lock held.
 */
static void kprof_sessions_state_update(void)
{
	struct kprof_session *s;
	int state = kprof_ended ? KPROF_STATE_STOPPED : KPROF_STATE_IDLE;

	lockdep_assert_held(&kprof_sessions_lock);
	list_for_each_entry(s, &kprof_sessions, node) {
		if (s->state == KPROF_STATE_RUNNING) {
			state = KPROF_STATE_RUNNING;
			break;
		}
		state = KPROF_STATE_STOPPED;
	}
	WRITE_ONCE(kprof_core.state, state);
}

/*
 * The session with @id, or for 0 the default one: the most recently
 * started running session, else the most recently started one.
 * kprof_sessions_lock held.
 */
static struct kprof_session *kprof_sessions_find(u64 id)
{
	struct kprof_session *s, *last = NULL;

	lockdep_assert_held(&kprof_sessions_lock);
	list_for_each_entry_reverse(s, &kprof_sessions, node) {
		if (id ? s->id == id : s->state == KPROF_STATE_RUNNING)
			return s;
		if (!last)
			last = s;
	}
	return id ? NULL : last;
}

static void kprof_session_free(struct kprof_session *s)
{
	mutex_lock(&kprof_sessions_lock);
	kprof_sessions_mem -= s->mem;
	mutex_unlock(&kprof_sessions_lock);
	kprof_counters_destroy(&s->ctrs);
	kprof_cpu_target_destroy(&s->cpus_follow);
	kprof_agg_free(s->agg);
	kprof_procmap_free(s->procmap);
	kprof_probes_free(s);
	if (s->bufs)
		kprof_buffers_put(s->bufs);
	kfree(s->cfg.cpus);
	free_cpumask_var(s->cpus_ready);
	free_cpumask_var(s->cpus_skipped);
	mutex_destroy(&s->cpus_lock);
	mutex_destroy(&s->lock);
	kvfree(s);
}

static void kprof_session_get(struct kprof_session *s)
{
	refcount_inc(&s->ref);
}

/* Drop a reference; the last frees the session.  Process context. */
static void kprof_session_put(struct kprof_session *s)
{
	if (s && refcount_dec_and_test(&s->ref))
		kprof_session_free(s);
}

/*
 * Take stopped sessions that no socket holds off the table, onto @gone,
 * oldest first (their table references go with them); unsaved tables
 * (@unsaved) too with @all.  kprof_sessions_lock held.
 */
static void kprof_sessions_reap(struct list_head *gone, bool all)
{
	struct kprof_session *s, *tmp;

	lockdep_assert_held(&kprof_sessions_lock);
	list_for_each_entry_safe(s, tmp, &kprof_sessions, node) {
		if (s->state != KPROF_STATE_STOPPED || s->held || (s->unsaved && !all))
			continue;
		list_move_tail(&s->node, gone);
	}
}

/*
 * A socket holds at most one stopped session, the last it stopped or
 * started: let go of those (@net, @portid) holds.  kprof_sessions_lock held.
 */
static void kprof_sessions_unhold(struct net *net, u32 portid)
{
	struct kprof_session *s;

	lockdep_assert_held(&kprof_sessions_lock);
	list_for_each_entry(s, &kprof_sessions, node)
		if (s->held && s->state == KPROF_STATE_STOPPED && s->holder_portid == portid &&
		    net_eq(s->holder_net, net))
			s->held = false;
}

static void kprof_session_info_locked(struct kprof_session *s, struct kprof_session_info *info);
static void kprof_session_cpu_stats_locked(struct kprof_session *s, unsigned int cpu,
					   struct kprof_stats_snapshot *st);

/*
 * The record of @s, stopped and off the table, for kprof_ended; NULL
 * when it cannot be allocated (STATUS then forgets it).
 */
static struct kprof_session_ended *kprof_session_ended_new(struct kprof_session *s)
{
	struct kprof_session_ended *e;
	unsigned int cpu, n = 0;

	mutex_lock(&s->lock);
	for (cpu = 0; cpu < s->bufs->nr_rings; cpu++)
		n += !!kprof_ring_of(s->bufs, cpu);
	e = kzalloc(struct_size(e, cpus, n), KPROF_GFP);
	if (e) {
		kprof_session_info_locked(s, &e->info);
		e->info.mem = 0;
		e->uid = s->uid;
		for (cpu = 0; cpu < s->bufs->nr_rings; cpu++) {
			if (!kprof_ring_of(s->bufs, cpu))
				continue;
			e->cpus[e->nr_cpus].cpu = cpu;
			kprof_session_cpu_stats_locked(s, cpu, &e->cpus[e->nr_cpus].st);
			e->nr_cpus++;
		}
	}
	mutex_unlock(&s->lock);
	return e;
}

/*
 * Put the sessions kprof_sessions_reap() took, the most recent one's
 * record kept first.  Process context, no lock.
 */
static void kprof_sessions_put_list(struct list_head *gone)
{
	struct kprof_session_ended *e = NULL;
	struct kprof_session *s, *tmp;

	if (!list_empty(gone))
		e = kprof_session_ended_new(list_last_entry(gone, struct kprof_session, node));
	mutex_lock(&kprof_sessions_lock);
	if (e && (!kprof_ended || kprof_ended->info.id < e->info.id))
		swap(e, kprof_ended);
	kprof_sessions_state_update();
	mutex_unlock(&kprof_sessions_lock);
	kfree(e);

	list_for_each_entry_safe(s, tmp, gone, node) {
		list_del(&s->node);
		kprof_session_put(s);
	}
}

/*
 * The record of the freed session @id (0: the default one, when the table
 * is empty), or NULL.  kprof_sessions_lock held.
 */
static struct kprof_session_ended *kprof_sessions_ended(u64 id)
{
	lockdep_assert_held(&kprof_sessions_lock);
	if (!kprof_ended)
		return NULL;
	if (id ? kprof_ended->info.id != id : !list_empty(&kprof_sessions))
		return NULL;
	return kprof_ended;
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

/*
 * Everything that can run a handler or hook for @s is gone when this
 * returns.  The counters go first: one RCU grace period after the session
 * left kprof_active_sessions (synchronize_rcu(), which also waits for NMI
 * handlers) then covers the last overflow handlers and hooks alike.  When
 * @s was the hooks' last user, unregistering them waited for one already;
 * else it is waited for here.
 */
static void kprof_session_quiesce(struct kprof_session *s)
{
	bool waited;

	mutex_lock(&kprof_sessions_lock);
	list_del_rcu(&s->active);
	mutex_unlock(&kprof_sessions_lock);
	kprof_probes_stop(s);
	kprof_counters_stop(&s->ctrs);
	kprof_cpu_target_stop(&s->cpus_follow);
	waited = kprof_procmap_stop(s->procmap);
	waited |= kprof_sideband_unhook(s);
	if (!waited)
		synchronize_rcu();
	kprof_sideband_stop(s);
	kprof_buffers_stop(s->bufs);
}

/* A new session from the request @cfg, whose cpumask it takes over. */
static struct kprof_session *kprof_session_new(struct kprof_session_config *cfg)
{
	struct kprof_session *s;
	unsigned int i;

	s = kvzalloc(sizeof(*s), KPROF_GFP);
	if (!s)
		return NULL;
	s->cfg = *cfg;
	cfg->cpus = NULL;	/* taken over */
	s->nr_events = s->cfg.nr_events;
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].session = s;
		s->events[i].index = i;
		s->events[i].cfg = s->cfg.events[i];
	}
	/*
	 * Without streaming the rings only carry the per-CPU counters and
	 * scratch space: the smallest size does.
	 */
	if (!(s->cfg.flags & KPROF_SESSION_F_STREAM))
		s->cfg.buffer_size = KPROF_MIN_BUFFER_SIZE;
	if (!zalloc_cpumask_var(&s->cpus_ready, KPROF_GFP)) {
		kvfree(s);
		return NULL;
	}
	if (!zalloc_cpumask_var(&s->cpus_skipped, KPROF_GFP)) {
		free_cpumask_var(s->cpus_ready);
		kvfree(s);
		return NULL;
	}
	mutex_init(&s->lock);
	mutex_init(&s->cpus_lock);
	refcount_set(&s->ref, 1);	/* the table's */
	s->uid = current_uid();
	INIT_LIST_HEAD(&s->node);
	INIT_LIST_HEAD(&s->active);
	INIT_LIST_HEAD(&s->mmap_node);
	return s;
}

/*
 * The CPUs that get rings and tables: the session's, or for a per-task
 * session every possible CPU (its samples land on whichever CPU the task
 * runs on).
 */
static const struct cpumask *kprof_session_cpus(const struct kprof_session *s)
{
	return (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE) ? s->cfg.cpus : cpu_possible_mask;
}

/* Does the session keep tables (aggregating, or timing waits)? */
static bool kprof_session_has_tables(const struct kprof_session *s)
{
	return (s->cfg.flags & KPROF_SESSION_F_AGGREGATE) || kprof_session_keeps_waits(&s->cfg);
}

/* Tables per CPU: two halves for a session read in intervals. */
static unsigned int kprof_session_halves(const struct kprof_session *s)
{
	return s->cfg.flags & KPROF_SESSION_F_INTERVALS ? 2 : 1;
}

/* The memory of one CPU's tables of @s, every half. */
static u64 kprof_session_table_bytes(const struct kprof_session *s)
{
	return kprof_session_halves(s) * kprof_agg_bytes(s->cfg.agg_entries);
}

/* The memory one CPU of @s takes: its ring and its tables. */
static u64 kprof_session_cpu_bytes(const struct kprof_session *s)
{
	u64 bytes = kprof_buffers_bytes(1, s->cfg.buffer_size);

	if (kprof_session_has_tables(s))
		bytes += kprof_session_table_bytes(s);
	return bytes;
}

/*
 * The memory of @s besides its CPUs' (kept mappings, its probes' state
 * and wait slots), counted against the budget before it is taken.
 */
static u64 kprof_session_bytes(const struct kprof_session *s)
{
	u64 bytes = kprof_probes_bytes(s);

	if (kprof_session_has_tables(s))
		bytes += kprof_procmap_bytes(kprof_session_halves(s));
	return bytes;
}

/*
 * Count @bytes more against the budget for @s, with @scratch bytes of
 * new scratch areas beside; kprof_sessions_lock held.  Return: false when
 * that would exceed the budget.
 */
static bool kprof_sessions_charge(struct kprof_session *s, u64 bytes, u64 scratch)
{
	lockdep_assert_held(&kprof_sessions_lock);
	if (kprof_sessions_mem + kprof_shared_bytes() + bytes + scratch >
	    kprof_sessions_budget())
		return false;
	WRITE_ONCE(s->mem, s->mem + bytes);
	kprof_sessions_mem += bytes;
	return true;
}

/* The bytes @cpu still lacks of kprof_session_cpu_bytes().  @s->cpus_lock. */
static u64 kprof_session_cpu_missing(struct kprof_session *s, unsigned int cpu)
{
	u64 bytes = 0;

	if (s->agg && !kprof_agg_cpu_of(s->agg, cpu))
		bytes += kprof_session_table_bytes(s);
	if (!kprof_ring_of(s->bufs, cpu))
		bytes += kprof_buffers_bytes(1, s->cfg.buffer_size);
	return bytes;
}

/**
 * kprof_session_cpu_prepare() - give a CPU of @s its table and ring, in
 * that order
 * @s: the session, its containers allocated (kprof_session_alloc())
 * @cpu: one of its CPUs, up
 * @extack: at the start, for error messages; NULL after hotplug
 *
 * Called for each CPU up at the start and for each that comes up later,
 * before the CPU's counters are created, whichever of the session's
 * hotplug work items (its own, its counters') runs first.  Each piece is
 * counted against the budget before it is allocated and published with a
 * release store; the ring last, so that a hook that finds it finds the
 * rest.  A CPU that cannot be given them all keeps what it got, and the
 * next time it comes up gets the rest; after hotplug it is counted in
 * @s->cpus_skipped, and what its hooks see there in @s->lost_no_ring.
 *
 * Context: process context; takes @s->cpus_lock, then the table's lock.
 * Return: 0, -ENOSPC over the budget, or -ENOMEM.
 */
static int kprof_session_cpu_prepare(struct kprof_session *s, unsigned int cpu,
				     struct netlink_ext_ack *extack)
{
	u64 bytes, left;
	bool fits;
	int ret = 0;

	mutex_lock(&s->cpus_lock);
	if (cpumask_test_cpu(cpu, s->cpus_ready))
		goto out;
	bytes = kprof_session_cpu_missing(s, cpu);
	mutex_lock(&kprof_sessions_lock);
	fits = kprof_sessions_charge(s, bytes, kprof_ring_of(s->bufs, cpu) ? 0 :
				     kprof_scratch_bytes(cpumask_of(cpu)));
	mutex_unlock(&kprof_sessions_lock);
	if (!fits) {
		NL_SET_ERR_MSG(extack, KPROF_MSG_OVER_BUDGET);
		ret = -ENOSPC;
		goto out_skip;
	}
	if (s->agg && !kprof_agg_cpu_of(s->agg, cpu))
		ret = kprof_agg_add_cpu(s->agg, cpu);
	if (!ret)
		ret = kprof_buffers_add(s->bufs, cpu);
	if (ret) {
		/* what was not allocated is given back */
		left = kprof_session_cpu_missing(s, cpu);
		mutex_lock(&kprof_sessions_lock);
		WRITE_ONCE(s->mem, s->mem - left);
		kprof_sessions_mem -= left;
		mutex_unlock(&kprof_sessions_lock);
		NL_SET_ERR_MSG(extack, "kprof: cannot allocate the ring buffers or tables");
		goto out_skip;
	}
	cpumask_set_cpu(cpu, s->cpus_ready);
	cpumask_clear_cpu(cpu, s->cpus_skipped);
	goto out;

out_skip:
	if (!extack)
		cpumask_set_cpu(cpu, s->cpus_skipped);
out:
	mutex_unlock(&s->cpus_lock);
	return ret;
}

/* The session's own hotplug work: a CPU's memory, kept when it goes down. */
static int kprof_session_cpu_online(struct kprof_cpu_target *t, unsigned int cpu, bool starting,
				    struct netlink_ext_ack *extack)
{
	struct kprof_session *s = container_of(t, struct kprof_session, cpus_follow);

	return kprof_session_cpu_prepare(s, cpu, starting ? extack : NULL);
}

/* no .offline: a CPU that goes down keeps its ring and table */
static const struct kprof_cpu_target_ops kprof_session_cpu_ops = {
	.online		= kprof_session_cpu_online,
};

/*
 * Rings, tables, kept mappings and side-band: what the hooks need, for the
 * session's CPUs that are up, and from now on for each that comes up.
 */
static int kprof_session_alloc(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	int ret;

	s->bufs = kprof_buffers_alloc(s->id, s->cfg.buffer_size, s->cfg.watermark);
	if (!s->bufs) {
		NL_SET_ERR_MSG(extack, "kprof: cannot allocate the ring buffers");
		return -ENOMEM;
	}
	if (kprof_session_has_tables(s)) {
		/*
		 * allocated before any counter exists: never on the sampling
		 * path; a streaming session keeps its off-CPU time there too
		 */
		s->agg = kprof_agg_alloc(s->cfg.agg_entries, kprof_session_halves(s));
		if (!s->agg) {
			NL_SET_ERR_MSG(extack, "kprof: cannot allocate the aggregation tables");
			return -ENOMEM;
		}
		s->procmap = kprof_procmap_alloc(kprof_session_halves(s), &s->agg->epoch);
		if (!s->procmap) {
			NL_SET_ERR_MSG(extack, "kprof: cannot allocate the kept mappings");
			return -ENOMEM;
		}
		ret = kprof_procmap_start(s->procmap, extack);
		if (ret)
			return ret;
	}

	/* side-band names what a stream reader decodes; tables are named live */
	if (s->cfg.flags & KPROF_SESSION_F_STREAM) {
		ret = kprof_sideband_start(s, extack);
		if (ret)
			return ret;
	}
	ret = kprof_cpu_target_init(&s->cpus_follow, kprof_session_cpus(s),
				    &kprof_session_cpu_ops);
	if (!ret)
		ret = kprof_cpu_target_start(&s->cpus_follow, extack);
	if (ret && s->sideband_on) {
		/* not yet on kprof_active_sessions: no hook wrote for it */
		kprof_sideband_unhook(s);
		kprof_sideband_stop(s);
	}
	return ret;
}

/**
 * kprof_session_start() - start a session
 * @cfg: the validated request; its cpumask is taken over
 * @net: the requesting socket's network namespace
 * @portid: its port: the stopped session it held is let go of
 * @id: the new session's id
 * @extack: for error messages
 *
 * Context: process context; takes the table's lock for short sections
 * only.
 * Return: 0, -ENOSPC with max_sessions sessions, -ENOMEM, -ESRCH for a
 * vanished target, or perf's error for an event it cannot count.
 */
int kprof_session_start(struct kprof_session_config *cfg, struct net *net, u32 portid, u64 *id,
			struct netlink_ext_ack *extack)
{
	struct kprof_session *s;
	LIST_HEAD(gone);
	u64 bytes;
	int ret;

	s = kprof_session_new(cfg);
	if (!s)
		return -ENOMEM;

	/* the stopped sessions no socket holds go, unsaved tables too; mapped rings stay */
	mutex_lock(&kprof_sessions_lock);
	kprof_sessions_unhold(net, portid);
	kprof_sessions_reap(&gone, true);
	if (kprof_sessions_count() >= clamp(READ_ONCE(max_sessions), 1U, KPROF_SESSIONS_LIMIT)) {
		mutex_unlock(&kprof_sessions_lock);
		kprof_sessions_put_list(&gone);
		NL_SET_ERR_MSG(extack,
			       "kprof: too many sessions (module parameter max_sessions); kprofctl status lists them");
		kprof_session_put(s);
		return -ENOSPC;
	}
	/*
	 * what the session allocates on the CPUs up now is refused, not
	 * attempted, over the budget; each CPU's share is counted when it is
	 * allocated (kprof_session_cpu_prepare())
	 */
	cpumask_and(s->cpus_ready, kprof_session_cpus(s), cpu_online_mask);
	bytes = kprof_session_bytes(s);
	if (kprof_sessions_mem + kprof_shared_bytes() + bytes +
	    cpumask_weight(s->cpus_ready) * kprof_session_cpu_bytes(s) +
	    kprof_scratch_bytes(s->cpus_ready) > kprof_sessions_budget()) {
		mutex_unlock(&kprof_sessions_lock);
		kprof_sessions_put_list(&gone);
		NL_SET_ERR_MSG(extack, KPROF_MSG_OVER_BUDGET);
		kprof_session_put(s);
		return -ENOSPC;
	}
	cpumask_clear(s->cpus_ready);
	s->mem = bytes;
	kprof_sessions_mem += bytes;
	kprof_sessions_starting++;
	s->id = ++kprof_sessions_last_id;
	mutex_unlock(&kprof_sessions_lock);
	kprof_sessions_put_list(&gone);

	s->start_ns = ktime_get_ns();
	s->agg_since_ns = s->start_ns;
	ret = kprof_session_alloc(s, extack);
	if (ret)
		goto out_free;

	mutex_lock(&kprof_sessions_lock);
	list_add_tail_rcu(&s->active, &kprof_active_sessions);
	mutex_unlock(&kprof_sessions_lock);

	ret = kprof_session_counters_start(s, extack);
	if (!ret)
		ret = kprof_probes_start(s, extack);
	if (ret)
		goto out_quiesce;

	mutex_lock(&kprof_sessions_lock);
	s->state = KPROF_STATE_RUNNING;
	if (s->cfg.flags & KPROF_SESSION_F_OWNED) {
		s->held = true;
		s->holder_net = s->cfg.owner_net;
		s->holder_portid = s->cfg.owner_portid;
	}
	list_add_tail(&s->node, &kprof_sessions);
	kprof_sessions_starting--;
	atomic64_inc(&kprof_core.sessions);
	kprof_sessions_state_update();
	mutex_unlock(&kprof_sessions_lock);
	*id = s->id;
	return 0;

out_quiesce:
	kprof_session_quiesce(s);
out_free:
	mutex_lock(&kprof_sessions_lock);
	kprof_sessions_starting--;
	if (kprof_sessions_last_id == s->id)
		kprof_sessions_last_id--;	/* a failed start takes no id */
	mutex_unlock(&kprof_sessions_lock);
	kprof_session_put(s);
	return ret;
}

/* Stop @s; it stays on the table.  Its lock held, @s running. */
static void kprof_session_end_locked(struct kprof_session *s)
{
	lockdep_assert_held(&s->lock);
	kprof_session_quiesce(s);
	/* what exits or execs from now on is named from what was kept */
	kprof_procmap_keep_live(s->procmap);
	mutex_lock(&kprof_sessions_lock);
	s->state = KPROF_STATE_STOPPED;
	/* nobody is there to read a detached session's tables: keep them */
	s->unsaved = s->agg && !(s->cfg.flags & KPROF_SESSION_F_OWNED);
	kprof_sessions_state_update();
	mutex_unlock(&kprof_sessions_lock);
}

/**
 * kprof_session_lock_id() - a session, referenced and locked
 * @id: its id, or 0 for the default session (the most recently started
 *	running one, else the most recently started one)
 *
 * The session can be neither stopped nor freed until
 * kprof_session_unlock_put().
 *
 * Context: process context, holding no session's lock.
 * Return: the session or NULL.
 */
struct kprof_session *kprof_session_lock_id(u64 id)
{
	struct kprof_session *s;

	mutex_lock(&kprof_sessions_lock);
	s = kprof_sessions_find(id);
	if (s)
		kprof_session_get(s);
	mutex_unlock(&kprof_sessions_lock);
	if (s)
		mutex_lock(&s->lock);
	return s;
}

/**
 * kprof_session_unlock_put() - undo kprof_session_lock_id()
 * @s: the session, or NULL
 */
void kprof_session_unlock_put(struct kprof_session *s)
{
	if (!s)
		return;
	mutex_unlock(&s->lock);
	kprof_session_put(s);
}

/**
 * kprof_session_default_id() - the id kprof_session_lock_id(0) would take
 *
 * Return: that id, or 0 when there is no session.
 */
u64 kprof_session_default_id(void)
{
	struct kprof_session *s;
	u64 id;

	mutex_lock(&kprof_sessions_lock);
	s = kprof_sessions_find(0);
	id = s ? s->id : 0;
	mutex_unlock(&kprof_sessions_lock);
	return id;
}

/**
 * kprof_session_resolve() - the session a request names
 * @id: KPROF_A_SESSION_ID, or 0 when the request has none
 * @net: the requesting socket's network namespace
 * @portid: its port
 * @running_only: without @id, choose among running sessions only (STOP)
 * @out: set to the session's id
 * @extack: for error messages
 *
 * Without an id (a client of ABI 1.9 or older, or a reader of the default
 * session): the one session the socket holds (owns, or stopped), else the
 * one running session, else with none running the most recently started
 * one (none with @running_only).
 *
 * Context: process context.
 * Return: 0; -ENOENT for no such session, -EINVAL without an id while
 * several sessions run, -EACCES for another user's session without
 * CAP_SYS_ADMIN.
 */
int kprof_session_resolve(u64 id, struct net *net, u32 portid, bool running_only, u64 *out,
			  struct netlink_ext_ack *extack)
{
	struct kprof_session *s, *held = NULL, *running = NULL;
	unsigned int nr_held = 0, nr_running = 0;
	int ret = 0;

	mutex_lock(&kprof_sessions_lock);
	if (id) {
		s = kprof_sessions_find(id);
	} else {
		list_for_each_entry(s, &kprof_sessions, node) {
			if (running_only && s->state != KPROF_STATE_RUNNING)
				continue;
			if (s->held && s->holder_portid == portid && net_eq(s->holder_net, net)) {
				held = s;
				nr_held++;
			}
			if (s->state == KPROF_STATE_RUNNING) {
				running = s;
				nr_running++;
			}
		}
		if (nr_held == 1)
			s = held;
		else if (nr_running == 1)
			s = running;
		else if (!nr_running)
			s = running_only ? NULL : kprof_sessions_find(0);
		else
			s = ERR_PTR(-EINVAL);
	}
	if (!s && !running_only && kprof_sessions_ended(id)) {
		/* freed: STATUS and STATS still report its counters */
		if (kprof_uid_may_access(kprof_ended->uid)) {
			*out = kprof_ended->info.id;
		} else {
			NL_SET_ERR_MSG(extack, "kprof: the session belongs to another user");
			ret = -EACCES;
		}
	} else if (IS_ERR(s)) {
		NL_SET_ERR_MSG(extack,
			       "kprof: several sessions run: name one (KPROF_A_SESSION_ID; kprofctl status lists them)");
		ret = PTR_ERR(s);
	} else if (!s) {
		if (id)
			NL_SET_ERR_MSG(extack, "kprof: no session with this id");
		else if (running_only)
			NL_SET_ERR_MSG(extack, "kprof: no session is running");
		else
			NL_SET_ERR_MSG(extack, "kprof: no session");
		ret = -ENOENT;
	} else if (!kprof_session_may_access(s)) {
		NL_SET_ERR_MSG(extack, "kprof: the session belongs to another user");
		ret = -EACCES;
	} else {
		*out = s->id;
	}
	mutex_unlock(&kprof_sessions_lock);
	return ret;
}

/**
 * kprof_session_ids() - the ids of the sessions on the table, oldest first
 * @ids: room for @max ids
 * @max: the room
 *
 * Context: process context.
 * Return: the number of sessions, which may exceed @max.
 */
unsigned int kprof_session_ids(u64 *ids, unsigned int max)
{
	struct kprof_session *s;
	unsigned int n = 0;

	mutex_lock(&kprof_sessions_lock);
	list_for_each_entry(s, &kprof_sessions, node) {
		if (n < max)
			ids[n] = s->id;
		n++;
	}
	mutex_unlock(&kprof_sessions_lock);
	return n;
}

/**
 * kprof_session_stop() - stop a running session
 * @id: its id (kprof_session_resolve()), or 0 for the default one
 * @net: the network namespace of the socket that asks, or NULL
 * @portid: its port; the socket then holds the stopped session for
 *	reading until it closes, or stops or starts another
 * @stopped: set to the stopped session's id
 * @extack: for error messages
 *
 * Context: process context.
 * Return: 0, or -ENOENT when the session does not run.
 */
int kprof_session_stop(u64 id, struct net *net, u32 portid, u64 *stopped,
		       struct netlink_ext_ack *extack)
{
	struct kprof_session *s;
	LIST_HEAD(gone);
	int ret = 0;

	s = kprof_session_lock_id(id);
	if (!s || s->state != KPROF_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "kprof: no session is running");
		ret = -ENOENT;
		goto out_unlock;
	}
	kprof_session_end_locked(s);
	*stopped = s->id;
	mutex_lock(&kprof_sessions_lock);
	if (net) {
		/* the session it held before goes, unless unsaved */
		kprof_sessions_unhold(net, portid);
		s->held = true;
		s->holder_net = net;
		s->holder_portid = portid;
	}
	kprof_sessions_reap(&gone, false);
	mutex_unlock(&kprof_sessions_lock);
out_unlock:
	kprof_session_unlock_put(s);
	kprof_sessions_put_list(&gone);
	return ret;
}

/**
 * kprof_session_free_saved() - a stopped session's data was saved: free it
 * @id: its id (kprof_session_resolve())
 * @net: the network namespace of the socket that asks
 * @portid: its port, which lets go of the session if it held it
 * @extack: for error messages
 *
 * Its tables are no longer unsaved: the session is freed now unless
 * another socket holds it, and then when that socket lets go.  Rings a
 * reader maps stay until unmapped.
 *
 * Context: process context.
 * Return: 0 (also for a session freed already), -ENOENT without it,
 * -EBUSY while it runs.
 */
int kprof_session_free_saved(u64 id, struct net *net, u32 portid,
			     struct netlink_ext_ack *extack)
{
	struct kprof_session *s;
	LIST_HEAD(gone);
	int ret = 0;

	mutex_lock(&kprof_sessions_lock);
	s = kprof_sessions_find(id);
	if (!s) {
		if (!kprof_sessions_ended(id)) {
			NL_SET_ERR_MSG(extack, "kprof: no session with this id");
			ret = -ENOENT;
		}
	} else if (s->state == KPROF_STATE_RUNNING) {
		NL_SET_ERR_MSG(extack, "kprof: the session is running: stop it first");
		ret = -EBUSY;
	} else {
		s->unsaved = false;
		if (s->held && s->holder_portid == portid && net_eq(s->holder_net, net))
			s->held = false;
		kprof_sessions_reap(&gone, false);
	}
	mutex_unlock(&kprof_sessions_lock);
	kprof_sessions_put_list(&gone);
	return ret;
}

/**
 * kprof_session_release() - a netlink socket is closing: let go of what it holds
 * @net: the socket's network namespace
 * @portid: its port
 *
 * A running session started with KPROF_SESSION_F_OWNED ends with its
 * owner's socket, as perf's events end with their file descriptors: a
 * killed `kprofctl record` leaves nothing sampling.  Stopped sessions the
 * socket held are no longer held, and are freed unless their tables are
 * unsaved (@unsaved); STATUS and debugfs keep the last one's counters.
 *
 * Context: process context (the NETLINK_URELEASE notifier).
 * Return: true when the socket held a session (the table may have changed).
 */
bool kprof_session_release(struct net *net, u32 portid)
{
	struct kprof_session *s, *tmp;
	LIST_HEAD(owned);
	LIST_HEAD(gone);
	bool any = false;

	mutex_lock(&kprof_sessions_lock);
	list_for_each_entry(s, &kprof_sessions, node) {
		if (!s->held || s->holder_portid != portid || !net_eq(s->holder_net, net))
			continue;
		any = true;
		if (s->state == KPROF_STATE_RUNNING) {
			kprof_session_get(s);
			list_add_tail(&s->release, &owned);
		} else {
			s->held = false;
		}
	}
	mutex_unlock(&kprof_sessions_lock);
	if (!any)
		return false;

	list_for_each_entry_safe(s, tmp, &owned, release) {
		list_del(&s->release);
		mutex_lock(&s->lock);
		if (s->state == KPROF_STATE_RUNNING) {
			pr_debug("session %llu: its owner's socket closed, stopping\n", s->id);
			kprof_session_end_locked(s);
		}
		mutex_lock(&kprof_sessions_lock);
		s->held = false;
		mutex_unlock(&kprof_sessions_lock);
		kprof_session_unlock_put(s);
	}

	mutex_lock(&kprof_sessions_lock);
	kprof_sessions_reap(&gone, false);
	mutex_unlock(&kprof_sessions_lock);
	kprof_sessions_put_list(&gone);
	return true;
}

/**
 * kprof_status_read() - take a snapshot of the module's status
 * @st: where to store it
 *
 * Context: any context that may sleep; takes the table's lock so that the
 * state and the session count agree.
 */
void kprof_status_read(struct kprof_status *st)
{
	mutex_lock(&kprof_sessions_lock);
	st->state = READ_ONCE(kprof_core.state);
	st->sessions = atomic64_read(&kprof_core.sessions);
	/* the sessions', and the scratch areas their rings share */
	st->mem = kprof_sessions_mem + kprof_shared_bytes();
	st->budget = kprof_sessions_budget();
	mutex_unlock(&kprof_sessions_lock);

	st->nr_cpus = num_possible_cpus();
	st->online_cpus = num_online_cpus();
	st->readers = atomic_read(&kprof_core.readers);
	st->loaded_ns = kprof_core.loaded_ns;
}

/* One CPU's counters, table occupancy included; the CPU must have a ring. */
static void kprof_session_cpu_stats_locked(struct kprof_session *s, unsigned int cpu,
					   struct kprof_stats_snapshot *st)
{
	struct kprof_agg_cpu *t = s->agg ? kprof_agg_cpu_of(s->agg, cpu) : NULL;
	struct kprof_agg_usage u;

	kprof_ring_stats(kprof_ring_of(s->bufs, cpu), st);
	if (t) {
		kprof_agg_cpu_usage(s->agg, cpu, &u);
		st->agg_used = u.used;
		st->agg_capacity = u.capacity;
		st->agg_high = u.high;
		st->agg_pool_used = u.pool_used;
		st->agg_pool_high = u.pool_high;
		st->agg_pool_size = u.pool_size;
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
		if (!kprof_ring_of(s->bufs, cpu))
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
	struct kprof_session *s, *tmp;
	LIST_HEAD(gone);

	mutex_lock(&kprof_sessions_lock);
	list_splice_init(&kprof_sessions, &gone);
	mutex_unlock(&kprof_sessions_lock);
	list_for_each_entry_safe(s, tmp, &gone, node) {
		mutex_lock(&s->lock);
		if (s->state == KPROF_STATE_RUNNING)
			kprof_session_quiesce(s);
		mutex_unlock(&s->lock);
		list_del(&s->node);
		kprof_session_put(s);
	}
	kfree(kprof_ended);
	kprof_ended = NULL;
	WRITE_ONCE(kprof_core.state, KPROF_STATE_IDLE);
}

/**
 * kprof_session_info() - what STATUS and debugfs report of a session
 * @id: its id, or 0 for the default one
 * @info: where to store it
 *
 * Context: process context.
 * Return: false when there is no such session.
 */
bool kprof_session_info(u64 id, struct kprof_session_info *info)
{
	struct kprof_session *s = kprof_session_lock_id(id);
	struct kprof_session_ended *e;
	bool found = s;

	if (s) {
		kprof_session_info_locked(s, info);
		kprof_session_unlock_put(s);
		return true;
	}
	mutex_lock(&kprof_sessions_lock);
	e = kprof_sessions_ended(id);
	if (e) {
		*info = e->info;
		info->uid = from_kuid_munged(current_user_ns(), e->uid);
		found = true;
	}
	mutex_unlock(&kprof_sessions_lock);
	return found;
}

/* kprof_session_info() of @s, its lock held. */
static void kprof_session_info_locked(struct kprof_session *s, struct kprof_session_info *info)
{
	lockdep_assert_held(&s->lock);
	info->id = s->id;
	info->state = s->state;
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
	info->uid = from_kuid_munged(current_user_ns(), s->uid);
	info->mem = READ_ONCE(s->mem);
	mutex_lock(&s->cpus_lock);
	info->cpus_skipped = cpumask_weight(s->cpus_skipped);
	mutex_unlock(&s->cpus_lock);
	info->lost_no_ring = atomic64_read(&s->lost_no_ring);
	kprof_session_totals(s, &info->totals);
	info->has_maps = s->procmap;
	kprof_procmap_stats(s->procmap, &info->maps);
}

/**
 * kprof_session_cpu_stats() - one CPU's counters of a session
 * @id: in: the session's id, or 0 for the default one; out: its id
 * @cpu: the CPU
 * @st: where to store the counters
 *
 * Context: process context.
 * Return: 0, -ENOENT without the session, -ENODEV when @cpu has no ring.
 */
int kprof_session_cpu_stats(u64 *id, unsigned int cpu, struct kprof_stats_snapshot *st)
{
	struct kprof_session *s = kprof_session_lock_id(*id);
	struct kprof_session_ended *e;
	unsigned int i;
	int ret = 0;

	if (s) {
		if (cpu >= s->bufs->nr_rings || !kprof_ring_of(s->bufs, cpu))
			ret = -ENODEV;
		else
			kprof_session_cpu_stats_locked(s, cpu, st);
		*id = s->id;
		kprof_session_unlock_put(s);
		return ret;
	}
	/* freed: its final counters */
	mutex_lock(&kprof_sessions_lock);
	e = kprof_sessions_ended(*id);
	if (e) {
		*id = e->info.id;
		ret = -ENODEV;
		for (i = 0; i < e->nr_cpus; i++) {
			if (e->cpus[i].cpu == cpu) {
				*st = e->cpus[i].st;
				ret = 0;
				break;
			}
		}
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&kprof_sessions_lock);
	return ret;
}

/**
 * kprof_session_buffers() - a reference on a session's rings
 * @id: its id, or 0 for the default one
 *
 * Context: process context.
 * Return: the rings with a reference the caller puts; ERR_PTR(-ENOENT)
 * without the session, ERR_PTR(-EACCES) when it belongs to another user
 * and the caller lacks CAP_SYS_ADMIN.
 */
struct kprof_buffers *kprof_session_buffers(u64 id)
{
	struct kprof_session *s = kprof_session_lock_id(id);
	struct kprof_buffers *bufs = ERR_PTR(-ENOENT);

	if (s && !kprof_session_may_access(s)) {
		bufs = ERR_PTR(-EACCES);
	} else if (s) {
		bufs = s->bufs;
		kprof_buffers_get(bufs);
	}
	kprof_session_unlock_put(s);
	return bufs;
}

/**
 * kprof_session_agg_reset() - empty a session's aggregation tables
 * @id: its id, or 0 for the default one
 * @extack: for error messages
 *
 * The session keeps sampling into the emptied tables.
 *
 * Context: process context.
 * Return: 0, -ENOENT without the session, -EOPNOTSUPP when it does not
 * aggregate.
 */
int kprof_session_agg_reset(u64 id, struct netlink_ext_ack *extack)
{
	struct kprof_session *s = kprof_session_lock_id(id);
	int ret = 0;

	if (!s) {
		NL_SET_ERR_MSG(extack, "kprof: no session");
		ret = -ENOENT;
	} else if (!s->agg) {
		NL_SET_ERR_MSG(extack, "kprof: the session does not aggregate");
		ret = -EOPNOTSUPP;
	} else {
		kprof_agg_reset(s->agg);
	}
	kprof_session_unlock_put(s);
	return ret;
}

/**
 * kprof_session_agg_swap() - close the interval of a session read in
 * intervals
 * @id: its id, or 0 for the default one
 * @iv: set to the interval closed
 * @extack: for error messages
 *
 * The half the previous swap closed is cleared (it was read, or it is
 * given up), the other half is written from now on, and once every writer
 * that may still add to the closed half is done (synchronize_rcu(): they
 * run with preemption or interrupts disabled, or in NMI), the closed half
 * is frozen until the next swap: AGG_DUMP with its epoch reads it, the
 * same entries in every message.  Nothing is lost: a sample counts in one
 * half or the other.
 *
 * Context: process context, may sleep; takes the session's lock.
 * Return: 0; -ENOENT without the session, -EOPNOTSUPP when it was not
 * started for intervals, -EBUSY while a dump reads the closed half.
 */
int kprof_session_agg_swap(u64 id, struct kprof_agg_interval *iv,
			   struct netlink_ext_ack *extack)
{
	struct kprof_session *s = kprof_session_lock_id(id);
	int ret = 0;

	if (!s) {
		NL_SET_ERR_MSG(extack, "kprof: no session");
		ret = -ENOENT;
	} else if (!s->agg || s->agg->halves != 2) {
		NL_SET_ERR_MSG(extack,
			       "kprof: the session was not started for intervals (KPROF_SESSION_F_INTERVALS)");
		ret = -EOPNOTSUPP;
	} else if (s->agg_held) {
		NL_SET_ERR_MSG(extack, "kprof: the previous interval is still being read");
		ret = -EBUSY;
	} else {
		if (s->agg_closed) {
			kprof_agg_clear_half(s->agg, (s->agg->epoch + 1) & 1);
			kprof_procmap_clear_half(s->procmap, (s->agg->epoch + 1) & 1);
		}
		s->agg_closed = false;
		iv->start_ns = s->agg_since_ns;
		/* the waits' clock (NMI-safe), CLOCK_MONOTONIC */
		iv->end_ns = ktime_get_mono_fast_ns();
		iv->epoch = kprof_agg_swap(s->agg);
		/* every add to the closed half that began before the swap is done */
		synchronize_rcu();
		if (s->state == KPROF_STATE_RUNNING) {
			kprof_probes_move_waits(s, iv->epoch & 1, iv->end_ns);
			/* and every end that added to an entry there meanwhile */
			synchronize_rcu();
		}
		s->agg_closed = true;
		s->agg_since_ns = iv->end_ns;
	}
	kprof_session_unlock_put(s);
	return ret;
}

/**
 * kprof_session_agg_hold() - a dump begins to read a closed interval
 * @s: the session, locked
 * @epoch: the interval, as the swap that closed it returned it
 * @extack: for error messages
 *
 * No swap clears the half until kprof_session_agg_release().
 *
 * Return: 0; -ESTALE when @epoch is not the last interval closed (a later
 * swap cleared it), -EBUSY while another dump reads it.
 */
int kprof_session_agg_hold(struct kprof_session *s, u64 epoch, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&s->lock);
	if (!s->agg || s->agg->halves != 2) {
		NL_SET_ERR_MSG(extack,
			       "kprof: the session was not started for intervals (KPROF_SESSION_F_INTERVALS)");
		return -EOPNOTSUPP;
	}
	if (!s->agg_closed || epoch + 1 != s->agg->epoch) {
		NL_SET_ERR_MSG(extack, "kprof: that interval is not the last one closed");
		return -ESTALE;
	}
	if (s->agg_held) {
		NL_SET_ERR_MSG(extack, "kprof: another dump reads that interval");
		return -EBUSY;
	}
	s->agg_held = true;
	return 0;
}

/**
 * kprof_session_agg_release() - a dump of a closed interval ended
 * @id: the session it read
 * @epoch: the interval
 *
 * Context: process context (the dump's end, or its socket's release).
 */
void kprof_session_agg_release(u64 id, u64 epoch)
{
	struct kprof_session *s = kprof_session_lock_id(id);

	if (s && s->id == id && s->agg && epoch + 1 == s->agg->epoch)
		s->agg_held = false;
	kprof_session_unlock_put(s);
}
