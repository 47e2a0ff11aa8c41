// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - counting mode: the counting session behind "kprofctl stat".
 *
 * A counting session counts events with perf counters that never sample
 * (sample_period 0).  It is independent of the sampling session of
 * session.c, so "kprofctl stat" works while "kprofctl record" runs, and
 * there is one at a time: COUNT_START while one counts fails with EBUSY.
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
 * Lifetime: the session belongs to the netlink socket that started it.
 * COUNT_STOP reads the final counts and releases the counters; the frozen
 * counts stay readable until the next COUNT_START.  Closing the owner's
 * socket ends the session, stopped or not, so that a killed kprofctl
 * leaves no counters behind.
 *
 * Locking, outermost first:
 *
 *	kprof_count_lock		the session: start, stop, read, free
 *	  kprof_cpu_target::lock	system-wide counters vs CPU hotplug (target.c)
 *	    perf's event_mutex, ctx->mutex
 *
 * Nothing here runs in atomic context: a counter that does not sample has
 * no overflow handler to run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "counting.h"
#include "genl.h"
#include "kprof.h"
#include "session.h"
#include "target.h"

/**
 * struct kprof_count_ctr - one counter: an event on one CPU or one thread
 * @event: the perf counter; NULL when there is none (now)
 * @value: count of the released counters (CPU gone offline, session stopped)
 * @enabled: their time enabled, ns
 * @running: their time running, ns
 * @error: positive errno when perf refused to create this counter
 */
struct kprof_count_ctr {
	struct perf_event *event;
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
 * @tried: a CPU's counter was attempted (system-wide start)
 * @ctrs: per CPU (nr_cpu_ids of them, system-wide) or per thread (nr_tasks)
 */
struct kprof_count_event {
	u32 type;
	u64 config;
	u32 flags;
	char name[KPROF_EVENT_NAME_MAX];
	const struct nlattr *attr;
	int error;
	bool tried;
	struct kprof_count_ctr *ctrs;
};

/**
 * struct kprof_count_session - the counting session
 * @id: its id, from 1, counted apart from the sampling sessions'
 * @flags: KPROF_SESSION_F_SYSTEM_WIDE, KPROF_SESSION_F_INHERIT
 * @count_flags: KPROF_COUNT_F_*
 * @running: counting, not stopped yet
 * @cpus: the requested CPUs (system-wide)
 * @cpus_seen: CPUs that have had counters at some time (system-wide)
 * @nr_pids: PIDs requested (per-task)
 * @nr_tasks: threads found (per-task): the entries of each event's ctrs
 * @owner_net: network namespace of the socket that started the session
 * @owner_portid: the netlink port of that socket
 * @start_ns: CLOCK_MONOTONIC at start
 * @stop_ns: CLOCK_MONOTONIC at stop; 0 while running
 * @nr_events: entries of @events
 * @events: the events
 * @target: the per-CPU counters following CPU hotplug (system-wide)
 */
struct kprof_count_session {
	u64 id;
	u32 flags;
	u32 count_flags;
	bool running;
	cpumask_var_t cpus;
	cpumask_var_t cpus_seen;
	unsigned int nr_pids;
	unsigned int nr_tasks;
	struct net *owner_net;
	u32 owner_portid;
	u64 start_ns;
	u64 stop_ns;
	unsigned int nr_events;
	struct kprof_count_event events[KPROF_MAX_EVENTS];
	struct kprof_cpu_target target;
};

/* What COUNT_START asks for beyond the session itself. */
struct kprof_count_req {
	pid_t pids[KPROF_MAX_PIDS];
	const struct nlattr *pid_attrs[KPROF_MAX_PIDS];
	struct task_struct **tasks;
};

static DEFINE_MUTEX(kprof_count_lock);
/* The current session, counting or stopped; under kprof_count_lock. */
static struct kprof_count_session *kprof_count;
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

static unsigned int kprof_count_nr_ctrs(const struct kprof_count_session *s)
{
	return kprof_count_system_wide(s) ? nr_cpu_ids : s->nr_tasks;
}

/* --- counters ------------------------------------------------------------ */

static struct perf_event *kprof_count_create(const struct kprof_count_session *s,
					     const struct kprof_count_event *ev, int cpu,
					     struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type		= ev->type,
		.size		= sizeof(attr),
		.config		= ev->config,
		.read_format	= PERF_FORMAT_TOTAL_TIME_ENABLED |
				  PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled	= 1,
		.exclude_user	= !!(ev->flags & KPROF_EV_F_EXCLUDE_USER),
		.exclude_kernel	= !!(ev->flags & KPROF_EV_F_EXCLUDE_KERNEL),
	};

	if (task) {
		attr.inherit = !!(s->flags & KPROF_SESSION_F_INHERIT);
		attr.enable_on_exec = !!(s->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC);
	}
	/* sample_period 0: counting only, the overflow handler never runs */
	return perf_event_create_kernel_counter(&attr, cpu, task, NULL, NULL);
}

/* Add @c's current reading to *@value, *@enabled and *@running. */
static void kprof_count_ctr_add(const struct kprof_count_ctr *c, u64 *value, u64 *enabled,
				u64 *running)
{
	u64 e, r;

	*value += c->value;
	*enabled += c->enabled;
	*running += c->running;
	if (c->event) {
		*value += perf_event_read_value(c->event, &e, &r);
		*enabled += e;
		*running += r;
	}
}

/* Fold the counter's final reading into @c and release the counter. */
static void kprof_count_ctr_retire(struct kprof_count_ctr *c)
{
	struct perf_event *event = c->event;
	u64 enabled, running;

	if (!event)
		return;
	c->event = NULL;
	c->value += perf_event_read_value(event, &enabled, &running);
	c->enabled += enabled;
	c->running += running;
	perf_event_release_kernel(event);
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

/* --- system-wide counters and CPU hotplug -------------------------------- */

/*
 * Counters of every countable event on @cpu; the target's lock held.
 * Starting, an event that perf cannot count on the first CPU tried is
 * marked unsupported and not tried further, one refused on a later CPU
 * only misses that CPU, and any other error fails the start.  After
 * hotplug, errors only skip the CPU.
 */
static int kprof_count_target_online(struct kprof_cpu_target *t, unsigned int cpu,
				     bool starting, struct netlink_ext_ack *extack)
{
	struct kprof_count_session *s = container_of(t, struct kprof_count_session, target);
	struct perf_event *event;
	unsigned int i;
	int err;

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_count_event *ev = &s->events[i];
		struct kprof_count_ctr *c = &ev->ctrs[cpu];
		bool first = !ev->tried;

		if (ev->error || c->event)
			continue;
		ev->tried = true;
		event = kprof_count_create(s, ev, cpu, NULL);
		if (!IS_ERR(event)) {
			c->error = 0;
			c->event = event;
			if (!starting)
				perf_event_enable(event);
			continue;
		}
		err = -PTR_ERR(event);
		if (starting && !kprof_count_unsupported(err)) {
			kprof_count_set_error(extack, ev, err);
			return -err;
		}
		if (starting && first)
			ev->error = err;
		else
			c->error = err;
		if (!starting)
			pr_warn("cannot count %s on CPU %u: %d\n", ev->name, cpu, err);
	}
	cpumask_set_cpu(cpu, s->cpus_seen);
	return 0;
}

static void kprof_count_target_offline(struct kprof_cpu_target *t, unsigned int cpu)
{
	struct kprof_count_session *s = container_of(t, struct kprof_count_session, target);
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		kprof_count_ctr_retire(&s->events[i].ctrs[cpu]);
}

static void kprof_count_target_enable(struct kprof_cpu_target *t, unsigned int cpu)
{
	struct kprof_count_session *s = container_of(t, struct kprof_count_session, target);
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		if (s->events[i].ctrs[cpu].event)
			perf_event_enable(s->events[i].ctrs[cpu].event);
}

static const struct kprof_cpu_target_ops kprof_count_target_ops = {
	.online		= kprof_count_target_online,
	.offline	= kprof_count_target_offline,
	.enable		= kprof_count_target_enable,
};

/**
 * kprof_count_system_wide_start() - counters on the session's online CPUs
 * @s: the new session
 * @extack: for error messages
 *
 * Context: process context, kprof_count_lock held.
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
	ret = kprof_cpu_target_init(&s->target, s->cpus, &kprof_count_target_ops);
	if (ret)
		return ret;
	return kprof_cpu_target_start(&s->target, extack);
}

/* --- per-task counters ----------------------------------------------------- */

/**
 * kprof_count_per_task_start() - counters on every thread of the PIDs
 * @s: the new session
 * @req: the PIDs, and room for their threads
 * @extack: for error messages
 *
 * Not under cpu_hotplug_lock: perf takes it to create the first task
 * counter of the system.
 *
 * Context: process context, kprof_count_lock held.
 * Return: 0, -ESRCH when every target has exited, -E2BIG, -ENOMEM, or
 * perf's error.
 */
static int kprof_count_per_task_start(struct kprof_count_session *s,
				      struct kprof_count_req *req,
				      struct netlink_ext_ack *extack)
{
	unsigned int i, t, live = 0, countable = 0;
	struct perf_event *event;
	int ret = 0;

	req->tasks = kvcalloc(KPROF_MAX_TASKS, sizeof(*req->tasks), KPROF_GFP);
	if (!req->tasks)
		return -ENOMEM;
	for (i = 0; i < s->nr_pids; i++) {
		pid_t tgid;

		ret = kprof_threads_get(req->pids[i], req->pid_attrs[i], req->tasks, &s->nr_tasks,
					KPROF_MAX_TASKS, &tgid, extack);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].ctrs = kvcalloc(s->nr_tasks, sizeof(struct kprof_count_ctr),
					     KPROF_GFP);
		if (!s->events[i].ctrs)
			return -ENOMEM;
	}

	for (i = 0; i < s->nr_events; i++) {
		struct kprof_count_event *ev = &s->events[i];
		bool first = true;

		for (t = 0; t < s->nr_tasks; t++) {
			event = kprof_count_create(s, ev, -1, req->tasks[t]);
			if (!IS_ERR(event)) {
				ev->ctrs[t].event = event;
				first = false;
				live++;
				continue;
			}
			ret = -PTR_ERR(event);
			if (ret == ESRCH) {
				/* the thread exited meanwhile: nothing to count */
				ret = 0;
				continue;
			}
			if (!kprof_count_unsupported(ret)) {
				kprof_count_set_error(extack, ev, ret);
				return -ret;
			}
			if (first) {
				ev->error = ret;
				ret = 0;
				break;
			}
			ev->ctrs[t].error = ret;
			ret = 0;
		}
		if (!ev->error)
			countable++;
	}
	if (countable && !live) {
		NL_SET_ERR_MSG(extack, "kprof: every target process has exited");
		return -ESRCH;
	}

	/* with F_ENABLE_ON_EXEC, perf enables them at the target's exec */
	if (!(s->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC))
		for (i = 0; i < s->nr_events; i++)
			for (t = 0; t < s->nr_tasks; t++)
				if (s->events[i].ctrs[t].event)
					perf_event_enable(s->events[i].ctrs[t].event);
	return 0;
}

/* --- the session ------------------------------------------------------------ */

/* Everything of @s but running counters, which must be gone. */
static void kprof_count_free(struct kprof_count_session *s)
{
	unsigned int i;

	if (!s)
		return;
	kprof_cpu_target_destroy(&s->target);
	for (i = 0; i < s->nr_events; i++)
		kvfree(s->events[i].ctrs);
	free_cpumask_var(s->cpus_seen);
	free_cpumask_var(s->cpus);
	kfree(s);
}

/* Release whatever a failed start created. */
static void kprof_count_release_all(struct kprof_count_session *s)
{
	unsigned int i, n;

	for (i = 0; i < s->nr_events; i++) {
		if (!s->events[i].ctrs)
			continue;
		for (n = 0; n < kprof_count_nr_ctrs(s); n++) {
			if (s->events[i].ctrs[n].event) {
				perf_event_release_kernel(s->events[i].ctrs[n].event);
				s->events[i].ctrs[n].event = NULL;
			}
		}
	}
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
	bool system_wide = kprof_count_system_wide(s);
	unsigned int i, n;

	if (!s->running)
		return;
	if (system_wide)
		mutex_lock(&s->target.lock);
	for (i = 0; i < s->nr_events; i++)
		for (n = 0; n < kprof_count_nr_ctrs(s); n++)
			if (s->events[i].ctrs[n].event)
				perf_event_disable(s->events[i].ctrs[n].event);
	if (system_wide) {
		mutex_unlock(&s->target.lock);
		/* retires every CPU's counters; no hotplug work after it */
		kprof_cpu_target_stop(&s->target);
	}
	for (i = 0; i < s->nr_events; i++)
		for (n = 0; n < kprof_count_nr_ctrs(s); n++)
			kprof_count_ctr_retire(&s->events[i].ctrs[n]);
	s->running = false;
	s->stop_ns = ktime_get_ns();
}

/* --- COUNT_START ----------------------------------------------------------- */

/* The scratch config of kprof_count_parse_event(), and where the events go. */
struct kprof_count_parse_ctx {
	struct kprof_event_config scratch;
	struct kprof_count_session *s;
};

/*
 * One KPROF_A_SESSION_EVENT, parsed as START parses it, then held to what
 * can be counted (kprof_nl_walk_events() callback).
 */
static int kprof_count_parse_event(struct genl_info *info, const struct nlattr *nest,
				   unsigned int index, void *arg)
{
	struct kprof_count_parse_ctx *ctx = arg;
	struct kprof_event_config *scratch = &ctx->scratch;
	struct kprof_count_event *ev = &ctx->s->events[index];
	int ret;

	memset(scratch, 0, sizeof(*scratch));
	ret = kprof_nl_parse_event(info, nest, scratch);
	if (ret)
		return ret;
	switch (scratch->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		break;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, nest, "kprof: event type not supported");
		return -EOPNOTSUPP;
	}
	ev->type = scratch->type;
	ev->config = scratch->config;
	ev->flags = scratch->flags;
	ev->attr = nest;
	strscpy(ev->name, scratch->name, sizeof(ev->name));
	return 0;
}

/* Validate a COUNT_START request into @s and @req, as START is validated. */
static int kprof_count_parse(struct genl_info *info, struct kprof_count_session *s,
			     struct kprof_count_req *req)
{
	struct nlattr **tb = info->attrs;
	struct kprof_count_parse_ctx *ctx;
	bool system_wide;
	int ret;

	s->flags = tb[KPROF_A_SESSION_FLAGS] ? nla_get_u32(tb[KPROF_A_SESSION_FLAGS]) : 0;
	s->count_flags = tb[KPROF_A_COUNT_FLAGS] ? nla_get_u32(tb[KPROF_A_COUNT_FLAGS]) : 0;
	system_wide = s->flags & KPROF_SESSION_F_SYSTEM_WIDE;

	if (s->flags & (KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_FLAGS],
				    "kprof: call chain flags do not apply to counting");
		return -EINVAL;
	}
	if (system_wide && (s->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_COUNT_FLAGS],
				    "kprof: enable-on-exec needs a per-task session");
		return -EINVAL;
	}
	ret = kprof_nl_parse_target(info, system_wide, req->pids, req->pid_attrs, &s->nr_pids);
	if (ret)
		return ret;
	if (system_wide) {
		ret = kprof_nl_parse_cpumask(tb[KPROF_A_SESSION_CPUS], s->cpus, info->extack);
		if (ret)
			return ret;
	}
	ctx = kmalloc(sizeof(*ctx), KPROF_GFP);
	if (!ctx)
		return -ENOMEM;
	ctx->s = s;
	ret = kprof_nl_walk_events(info, kprof_count_parse_event, ctx, &s->nr_events);
	kfree(ctx);
	return ret;
}

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

/* The COUNT_START reply: the session's id and each event's fate. */
static int kprof_count_fill_start(struct sk_buff *msg, const struct kprof_count_session *s)
{
	struct nlattr *nest;
	unsigned int i;

	if (kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, s->id, KPROF_A_PAD))
		return -EMSGSIZE;
	for (i = 0; i < s->nr_events; i++) {
		nest = nla_nest_start(msg, KPROF_A_COUNT);
		if (!nest ||
		    nla_put_u32(msg, KPROF_COUNT_A_EVENT, i) ||
		    nla_put_string(msg, KPROF_COUNT_A_NAME, s->events[i].name) ||
		    (s->events[i].error &&
		     nla_put_u32(msg, KPROF_COUNT_A_ERROR, s->events[i].error)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * kprof_count_start_doit() - KPROF_CMD_COUNT_START
 * @skb: the request
 * @info: its parsed form; the sender becomes the session's owner
 *
 * Context: process context, genl_mutex held.
 * Return: 0 with the reply sent, -EBUSY while a session counts, or the
 * error of the validation or of perf.
 */
int kprof_count_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_count_session *s, *old = NULL;
	struct kprof_count_req *req;
	struct sk_buff *msg = NULL;
	unsigned int i, t;
	void *hdr;
	int ret;

	s = kprof_count_alloc();
	req = kzalloc(sizeof(*req), KPROF_GFP);
	if (!s || !req) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = kprof_count_parse(info, s, req);
	if (ret)
		goto out_free;

	/* allocate the reply first: a started session must be reported */
	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg) {
		ret = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&kprof_count_lock);
	if (kprof_count && kprof_count->running) {
		NL_SET_ERR_MSG(info->extack, "kprof: a counting session is already running");
		ret = -EBUSY;
		goto out_unlock;
	}
	s->owner_net = genl_info_net(info);
	s->owner_portid = info->snd_portid;
	s->id = kprof_count_last_id + 1;
	s->start_ns = ktime_get_ns();
	if (kprof_count_system_wide(s)) {
		for (i = 0; i < s->nr_events; i++) {
			s->events[i].ctrs = kvcalloc(nr_cpu_ids, sizeof(struct kprof_count_ctr),
						     KPROF_GFP);
			if (!s->events[i].ctrs) {
				ret = -ENOMEM;
				goto out_unlock;
			}
		}
		ret = kprof_count_system_wide_start(s, info->extack);
	} else {
		ret = kprof_count_per_task_start(s, req, info->extack);
	}
	if (ret)
		goto out_release;

	for (i = 0; i < s->nr_events; i++)
		s->events[i].attr = NULL;	/* the request goes away */
	s->running = true;
	kprof_count_last_id = s->id;
	old = kprof_count;
	kprof_count = s;
	/* cannot fail: at most 32 small nests in a default-size message */
	ret = kprof_count_fill_start(msg, s);
	mutex_unlock(&kprof_count_lock);
	s = NULL;
	kprof_count_free(old);
	if (ret)
		goto out_free;
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	msg = NULL;
	goto out_free;

out_release:
	kprof_count_release_all(s);
out_unlock:
	mutex_unlock(&kprof_count_lock);
out_free:
	if (req && req->tasks) {
		for (t = 0; t < KPROF_MAX_TASKS && req->tasks[t]; t++)
			put_task_struct(req->tasks[t]);
		kvfree(req->tasks);
	}
	kfree(req);
	nlmsg_free(msg);
	kprof_count_free(s);
	return ret;
}

/* --- COUNT_STOP ------------------------------------------------------------ */

/* The current session, checked against a KPROF_A_SESSION_ID; kprof_count_lock held. */
static struct kprof_count_session *kprof_count_lookup(const struct nlattr *id, int *err)
{
	struct kprof_count_session *s = kprof_count;

	if (!s) {
		*err = -ENOENT;
		return NULL;
	}
	if (id && nla_get_u64(id) != s->id) {
		*err = -ESTALE;
		return NULL;
	}
	return s;
}

/* The message of a refusal by kprof_count_lookup() or of privilege. */
static void kprof_count_refusal_msg(struct netlink_ext_ack *extack, int err)
{
	switch (err) {
	case -ENOENT:
		NL_SET_ERR_MSG(extack, "kprof: no counting session");
		break;
	case -ESTALE:
		NL_SET_ERR_MSG(extack, "kprof: that counting session is gone");
		break;
	case -EPERM:
		NL_SET_ERR_MSG(extack, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required");
		break;
	}
}

/**
 * kprof_count_stop_doit() - KPROF_CMD_COUNT_STOP
 * @skb: the request
 * @info: its parsed form
 *
 * Context: process context, genl_mutex held.
 * Return: 0 with the reply sent, -ENOENT when no session counts, -ESTALE
 * when the session named is not the current one.
 */
int kprof_count_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_count_session *s;
	struct sk_buff *msg;
	void *hdr;
	int ret = 0;

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&kprof_count_lock);
	s = kprof_count_lookup(info->attrs[KPROF_A_SESSION_ID], &ret);
	if (!s) {
		kprof_count_refusal_msg(info->extack, ret);
	} else if (!s->running) {
		NL_SET_ERR_MSG(info->extack, "kprof: the counting session is stopped already");
		ret = -ENOENT;
	} else if (s) {
		kprof_count_freeze(s);
		ret = kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, s->id, KPROF_A_PAD);
	}
	mutex_unlock(&kprof_count_lock);
	if (ret)
		goto out_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
	return ret;
}

/* --- COUNT_READ ------------------------------------------------------------ */

/**
 * struct kprof_count_reading - one count of a COUNT_READ snapshot
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
 * @state: KPROF_COUNT_STATE_RUNNING, or _STOPPED once COUNT_STOP froze it
 * @elapsed_ns: ns counted, from the start to this read or to the stop
 * @nr: entries of @r
 * @pos: the next entry to send
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

/**
 * kprof_count_read_event() - the count of one event, on one CPU or overall
 * @s: the session
 * @i: the event
 * @cpu: the CPU (system-wide), or -1 for the sum of a per-task session
 * @r: where to store it
 *
 * Context: kprof_count_lock held; the target's lock too when system-wide.
 */
static void kprof_count_read_event(const struct kprof_count_session *s, unsigned int i,
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
			kprof_count_ctr_add(&ev->ctrs[cpu], &r->value, &r->enabled, &r->running);
		return;
	}
	for (t = 0; t < s->nr_tasks; t++)
		kprof_count_ctr_add(&ev->ctrs[t], &r->value, &r->enabled, &r->running);
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
	mutex_lock(&s->target.lock);
	for (i = 0; i < s->nr_events; i++)
		for_each_cpu(cpu, s->cpus_seen)
			kprof_count_read_event(s, i, cpu, &snap->r[n++]);
	mutex_unlock(&s->target.lock);
	snap->nr = n;
}

/* Readings a snapshot of @s needs room for; kprof_count_lock held. */
static unsigned int kprof_count_nr_readings(const struct kprof_count_session *s)
{
	/* cpus_seen only grows under the target's lock: count all possible */
	return s->nr_events * (kprof_count_system_wide(s) ? num_possible_cpus() : 1);
}

/**
 * kprof_count_read_start() - start of the KPROF_CMD_COUNT_READ dump
 * @cb: the dump; cb->args[0] gets the snapshot, cb->args[1] why there is none
 *
 * Checks the privilege (pre_doit does not run for dumps) and reads every
 * count at once, so that the dump is consistent whatever its length.  A
 * refusal is left for the dumpit to report: 6.1 gives .start no extack,
 * the dumpit's reaches the client in NLMSG_DONE.
 *
 * Context: process context, genl_mutex held.
 * Return: 0, or -ENOMEM.
 */
int kprof_count_read_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct kprof_count_snapshot *snap;
	struct kprof_count_session *s;
	int ret = 0;

	if (!kprof_nl_dump_admit(cb))
		return 0;	/* the dumpit reports the refusal */

	mutex_lock(&kprof_count_lock);
	s = kprof_count_lookup(kprof_genl_dump_attrs(info)[KPROF_A_SESSION_ID], &ret);
	if (!s) {
		cb->args[1] = ret;
		ret = 0;
		goto out_unlock;
	}
	snap = kvzalloc(struct_size(snap, r, kprof_count_nr_readings(s)), KPROF_GFP);
	if (!snap) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	kprof_count_read_all(s, snap);
	cb->args[0] = (long)snap;
out_unlock:
	mutex_unlock(&kprof_count_lock);
	return ret;
}

static int kprof_count_put_reading(struct sk_buff *skb, const struct kprof_count_snapshot *snap,
				   const struct kprof_count_reading *r)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KPROF_A_COUNT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KPROF_COUNT_A_EVENT, r->event) ||
	    nla_put_string(skb, KPROF_COUNT_A_NAME, snap->names[r->event]) ||
	    (r->cpu >= 0 && nla_put_u32(skb, KPROF_COUNT_A_CPU, r->cpu)) ||
	    nla_put_u32(skb, KPROF_COUNT_A_TYPE, snap->types[r->event]) ||
	    kprof_nl_put_u64(skb, KPROF_COUNT_A_CONFIG, snap->configs[r->event],
			     KPROF_COUNT_A_PAD) ||
	    nla_put_u32(skb, KPROF_COUNT_A_STATE, snap->state) ||
	    kprof_nl_put_u64(skb, KPROF_COUNT_A_ELAPSED, snap->elapsed_ns, KPROF_COUNT_A_PAD))
		return -EMSGSIZE;
	if (r->error) {
		if (nla_put_u32(skb, KPROF_COUNT_A_ERROR, r->error))
			return -EMSGSIZE;
	} else if (kprof_nl_put_u64(skb, KPROF_COUNT_A_VALUE, r->value, KPROF_COUNT_A_PAD) ||
		   kprof_nl_put_u64(skb, KPROF_COUNT_A_ENABLED, r->enabled, KPROF_COUNT_A_PAD) ||
		   kprof_nl_put_u64(skb, KPROF_COUNT_A_RUNNING, r->running, KPROF_COUNT_A_PAD)) {
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * kprof_count_read_dumpit() - the messages of the KPROF_CMD_COUNT_READ dump
 * @skb: the message buffer to fill
 * @cb: the dump; cb->args[0] is the snapshot taken by kprof_count_read_start()
 *
 * Return: the bytes filled, 0 when done.
 */
int kprof_count_read_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kprof_count_snapshot *snap = (struct kprof_count_snapshot *)cb->args[0];
	void *hdr;

	if (kprof_nl_dump_refused(cb))
		return -EPERM;
	if (!snap) {
		kprof_count_refusal_msg(cb->extack, cb->args[1]);
		return cb->args[1];
	}
	for (; snap->pos < snap->nr; snap->pos++) {
		hdr = kprof_nl_dump_msg(skb, cb, KPROF_CMD_COUNT_READ, snap->id);
		if (!hdr)
			break;
		if (kprof_count_put_reading(skb, snap, &snap->r[snap->pos])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

int kprof_count_read_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
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
 * One line per event (per-task sessions: all threads and children) or per
 * event and CPU (system-wide), read now; raw counts, not scaled.
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
	s = kprof_count;
	if (!s) {
		seq_puts(m, "no counting session\n");
		goto out_unlock;
	}
	seq_printf(m, "session %llu (%s) %s", s->id, s->running ? "running" : "stopped",
		   kprof_count_system_wide(s) ? "system-wide" : "per-task");
	if (kprof_count_system_wide(s))
		seq_printf(m, " cpus %*pbl\n", cpumask_pr_args(s->cpus));
	else
		seq_printf(m, " pids %u threads %u%s\n", s->nr_pids, s->nr_tasks,
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
	mutex_lock(&s->target.lock);
	for (i = 0; i < s->nr_events; i++) {
		for_each_cpu(cpu, s->cpus_seen) {
			kprof_count_read_event(s, i, cpu, &r);
			snprintf(name, sizeof(name), "%u", cpu);
			kprof_counters_row(m, s->events[i].name, name, &r);
		}
	}
	mutex_unlock(&s->target.lock);
out_unlock:
	mutex_unlock(&kprof_count_lock);
	return 0;
}

/* --- owner and module lifetime ----------------------------------------------- */

/**
 * kprof_count_release() - a netlink socket is closing: end the session it owns
 * @net: the socket's network namespace
 * @portid: its port
 *
 * Context: process context (genl.c's NETLINK_URELEASE notifier).
 */
void kprof_count_release(struct net *net, u32 portid)
{
	struct kprof_count_session *s;

	mutex_lock(&kprof_count_lock);
	s = kprof_count;
	if (s && s->owner_portid == portid && net_eq(s->owner_net, net)) {
		kprof_count = NULL;
		kprof_count_freeze(s);
	} else {
		s = NULL;
	}
	mutex_unlock(&kprof_count_lock);
	kprof_count_free(s);
}

/* Stop and free the session; the module is going away. */
void kprof_counting_exit(void)
{
	struct kprof_count_session *s;

	mutex_lock(&kprof_count_lock);
	s = kprof_count;
	kprof_count = NULL;
	if (s)
		kprof_count_freeze(s);
	mutex_unlock(&kprof_count_lock);
	kprof_count_free(s);
}
