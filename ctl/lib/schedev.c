// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler events of a recording; see schedev.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "schedev.h"
#include "tpdecode.h"
#include "util.h"

static const char * const schedev_names[KP_SCHEDEV_NR] = {
	[KP_SCHEDEV_SWITCH]	= "sched:sched_switch",
	[KP_SCHEDEV_WAKEUP]	= "sched:sched_wakeup",
	[KP_SCHEDEV_WAKEUP_NEW]	= "sched:sched_wakeup_new",
	[KP_SCHEDEV_WAKING]	= "sched:sched_waking",
	[KP_SCHEDEV_MIGRATE]	= "sched:sched_migrate_task",
	[KP_SCHEDEV_FORK]	= "sched:sched_process_fork",
	[KP_SCHEDEV_EXEC]	= "sched:sched_process_exec",
	[KP_SCHEDEV_EXIT]	= "sched:sched_process_exit",
	[KP_SCHEDEV_LOCK_BEGIN]	= "lock:contention_begin",
	[KP_SCHEDEV_LOCK_END]	= "lock:contention_end",
	[KP_SCHEDEV_LOCKDEP_ACQUIRE]	= "lock:lock_acquire",
	[KP_SCHEDEV_LOCKDEP_ACQUIRED]	= "lock:lock_acquired",
	[KP_SCHEDEV_LOCKDEP_CONTENDED]	= "lock:lock_contended",
	[KP_SCHEDEV_LOCKDEP_RELEASE]	= "lock:lock_release",
};

/* The fields read, by event type; NULL ends a list. */
enum {
	F_PREV_PID, F_NEXT_PID, F_PREV_PRIO, F_NEXT_PRIO, F_PREV_STATE, F_PREV_COMM, F_NEXT_COMM,
	F_PID, F_PRIO, F_TARGET_CPU, F_ORIG_CPU, F_DEST_CPU, F_COMM,
	F_PARENT_PID, F_CHILD_PID, F_CHILD_COMM, F_LOCK_ADDR, F_FLAGS, F_RET, F_LOCKDEP_ADDR,
	F_NAME, F_NR
};

static const char * const field_names[F_NR] = {
	"prev_pid", "next_pid", "prev_prio", "next_prio", "prev_state", "prev_comm", "next_comm",
	"pid", "prio", "target_cpu", "orig_cpu", "dest_cpu", "comm",
	"parent_pid", "child_pid", "child_comm", "lock_addr", "flags", "ret", "lockdep_addr",
	"name",
};

/* Fields an event of each type must have (else its records are bad). */
static const uint32_t required[KP_SCHEDEV_NR] = {
	[KP_SCHEDEV_SWITCH]	= 1U << F_PREV_PID | 1U << F_NEXT_PID | 1U << F_PREV_STATE,
	[KP_SCHEDEV_WAKEUP]	= 1U << F_PID,
	[KP_SCHEDEV_WAKEUP_NEW]	= 1U << F_PID,
	[KP_SCHEDEV_WAKING]	= 1U << F_PID,
	[KP_SCHEDEV_MIGRATE]	= 1U << F_PID | 1U << F_ORIG_CPU | 1U << F_DEST_CPU,
	[KP_SCHEDEV_FORK]	= 1U << F_PARENT_PID | 1U << F_CHILD_PID,
	[KP_SCHEDEV_EXEC]	= 1U << F_PID,
	[KP_SCHEDEV_EXIT]	= 1U << F_PID,
	[KP_SCHEDEV_LOCK_BEGIN]	= 1U << F_LOCK_ADDR | 1U << F_FLAGS,
	[KP_SCHEDEV_LOCK_END]	= 1U << F_LOCK_ADDR,
	[KP_SCHEDEV_LOCKDEP_ACQUIRE]	= 1U << F_LOCKDEP_ADDR | 1U << F_FLAGS,
	[KP_SCHEDEV_LOCKDEP_ACQUIRED]	= 1U << F_LOCKDEP_ADDR,
	[KP_SCHEDEV_LOCKDEP_CONTENDED]	= 1U << F_LOCKDEP_ADDR,
	[KP_SCHEDEV_LOCKDEP_RELEASE]	= 1U << F_LOCKDEP_ADDR,
};

struct schedev_event {
	int			type;		/* -1: not a sched event */
	struct tep_format_field	*field[F_NR];
};

struct schedev_walk {
	struct schedev_event	ev[KPROF_MAX_EVENTS];
	unsigned int		want;
	kp_schedev_fn		fn;
	void			*arg;
	struct kp_schedev_stats	*stats;
};

const char *kp_schedev__name(enum kp_schedev_type t)
{
	return (unsigned int)t < KP_SCHEDEV_NR ? schedev_names[t] : "?";
}

bool kp_schedev__recorded(const struct kp_decoder *d, enum kp_schedev_type t)
{
	unsigned int i;

	for (i = 0; i < d->info.session.nr_events && i < KPROF_MAX_EVENTS; i++)
		if (d->info.session.events[i].type == PERF_TYPE_TRACEPOINT &&
		    !strcmp(d->info.session.events[i].name, kp_schedev__name(t)))
			return true;
	return false;
}

char kp_schedev__state_char(uint64_t prev_state)
{
	static const char chars[] = "SDTtXZPI";
	unsigned int bit;

	if (!prev_state || prev_state & KP_SCHED_STATE_PREEMPT)
		return 'R';
	bit = __builtin_ctzll(prev_state);
	return bit < sizeof(chars) - 1 ? chars[bit] : '?';
}

/* Field @f of the record @raw of @len bytes: false if it is not within it. */
static bool read_num(const struct tep_format_field *f, const void *raw, uint32_t len,
		     uint64_t *val)
{
	const uint8_t *p = raw;
	uint64_t v = 0;

	if (!f || f->offset < 0 || f->size <= 0 || (uint32_t)(f->offset + f->size) > len)
		return false;
	switch (f->size) {
	case 1: v = p[f->offset]; break;
	case 2: { uint16_t x; memcpy(&x, p + f->offset, 2); v = x; break; }
	case 4: { uint32_t x; memcpy(&x, p + f->offset, 4); v = x; break; }
	case 8: memcpy(&v, p + f->offset, 8); break;
	default: return false;
	}
	/* sign-extend signed fields (pid_t, int, long) */
	if (f->flags & TEP_FIELD_IS_SIGNED && f->size < 8 && v >> (f->size * 8 - 1))
		v |= ~0ULL << (f->size * 8);
	*val = v;
	return true;
}

/*
 * Text field @f: a char array (6.1's comm fields), or a __data_loc string
 * (later kernels'), its offset and length checked against the record.
 */
static void read_str(const struct tep_format_field *f, const void *raw, uint32_t len,
		     char *out, size_t size)
{
	const uint8_t *p = raw;
	uint32_t off, n;

	out[0] = '\0';
	if (!f || f->offset < 0 || f->size <= 0 || (uint32_t)(f->offset + f->size) > len)
		return;
	off = f->offset;
	n = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->size != 4)
			return;
		memcpy(&loc, p + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + 4;
		if (off > len || n > len - off)
			return;
	}
	if (n > size - 1)
		n = size - 1;
	memcpy(out, p + off, n);
	out[n] = '\0';
}

static int schedev_sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct schedev_walk *w = arg;
	const struct kp_rec_sample *r = s->rec;
	const struct schedev_event *e;
	struct kp_schedev ev;
	uint64_t v[F_NR] = { 0 };
	uint32_t len, have = 0;
	const void *raw;
	unsigned int i;

	(void)d;
	if (r->event >= KPROF_MAX_EVENTS)
		return 0;
	e = &w->ev[r->event];
	if (e->type < 0 || !(w->want & KP_SCHEDEV_BIT(e->type)))
		return 0;
	raw = (r->header.misc & KPROF_MISC_RAW) ?
		kp_sample__raw(r, r->header.size, r->nr_kernel + r->nr_user, &len) : NULL;
	if (!raw) {
		w->stats->bad++;
		return 0;
	}
	for (i = 0; i < F_NR; i++) {
		if (e->field[i] && !(e->field[i]->flags & TEP_FIELD_IS_ARRAY) &&
		    read_num(e->field[i], raw, len, &v[i]))
			have |= 1U << i;
	}
	if ((have & required[e->type]) != required[e->type]) {
		w->stats->bad++;
		return 0;
	}
	memset(&ev, 0, sizeof(ev));
	ev.type = e->type;
	ev.time = r->time;
	ev.cpu = r->cpu;
	ev.sample = s;
	ev.prev_pid = v[F_PREV_PID];
	ev.next_pid = v[F_NEXT_PID];
	ev.prev_prio = v[F_PREV_PRIO];
	ev.next_prio = v[F_NEXT_PRIO];
	ev.prev_state = v[F_PREV_STATE];
	read_str(e->field[F_PREV_COMM], raw, len, ev.prev_comm, sizeof(ev.prev_comm));
	read_str(e->field[F_NEXT_COMM], raw, len, ev.next_comm, sizeof(ev.next_comm));
	if (e->type == KP_SCHEDEV_FORK) {
		ev.pid = v[F_CHILD_PID];
		ev.ppid = v[F_PARENT_PID];
		read_str(e->field[F_CHILD_COMM], raw, len, ev.comm, sizeof(ev.comm));
	} else {
		ev.pid = v[F_PID];
		read_str(e->field[F_COMM], raw, len, ev.comm, sizeof(ev.comm));
	}
	ev.prio = v[F_PRIO];
	ev.target_cpu = have & 1U << F_TARGET_CPU ? (int32_t)v[F_TARGET_CPU] : -1;
	ev.orig_cpu = v[F_ORIG_CPU];
	ev.dest_cpu = v[F_DEST_CPU];
	ev.lock_addr = have & 1U << F_LOCK_ADDR ? v[F_LOCK_ADDR] : v[F_LOCKDEP_ADDR];
	read_str(e->field[F_NAME], raw, len, ev.lock_name, sizeof(ev.lock_name));
	ev.lock_flags = v[F_FLAGS];
	ev.lock_ret = v[F_RET];
	w->stats->events++;
	return w->fn(&ev, w->arg);
}

int kp_schedev__for_each(struct kp_decoder *d, const char *cmd, unsigned int need,
			 unsigned int want, kp_schedev_fn fn, void *arg,
			 struct kp_schedev_stats *stats)
{
	const struct kp_session *s = &d->info.session;
	struct kp_schedev_stats dummy;
	struct schedev_walk *w;
	struct kp_tpdecode *tp;
	unsigned int i, j, have = 0;
	int ret;

	if (!stats)
		stats = &dummy;
	memset(stats, 0, sizeof(*stats));
	w = calloc(1, sizeof(*w));
	tp = w ? kp_tpdecode__new(s, d->info.machine, &d->tp_formats) : NULL;
	if (!tp) {
		free(w);
		return -ENOMEM;
	}
	w->want = want;
	w->fn = fn;
	w->arg = arg;
	w->stats = stats;
	for (i = 0; i < KPROF_MAX_EVENTS; i++)
		w->ev[i].type = -1;
	for (i = 0; i < s->nr_events && i < KPROF_MAX_EVENTS; i++) {
		struct tep_event *tev;

		if (s->events[i].type != PERF_TYPE_TRACEPOINT)
			continue;
		for (j = 0; j < KP_SCHEDEV_NR; j++)
			if (!strcmp(s->events[i].name, schedev_names[j]))
				break;
		if (j == KP_SCHEDEV_NR)
			continue;
		tev = kp_tpdecode__event(tp, i);
		if (!tev) {
			const char *why = kp_tpdecode__why(tp, i);

			kp_error(cmd, "%s: cannot read %s records: %s", d->path, schedev_names[j],
				 why ? why : "no format");
			ret = -ENOENT;
			goto out;
		}
		w->ev[i].type = j;
		have |= KP_SCHEDEV_BIT(j);
		for (j = 0; j < F_NR; j++)
			w->ev[i].field[j] = tep_find_field(tev, field_names[j]);
	}
	for (j = 0; j < KP_SCHEDEV_NR; j++) {
		if ((need & KP_SCHEDEV_BIT(j)) && !(have & KP_SCHEDEV_BIT(j))) {
			kp_error(cmd, "%s has no %s events (record them with 'kprofctl %s record')",
				 d->path, schedev_names[j],
				 j >= KP_SCHEDEV_LOCK_BEGIN ? "lock" : "sched");
			ret = -ENOENT;
			goto out;
		}
	}
	ret = kp_decoder__for_each(d, schedev_sample, w);
out:
	kp_tpdecode__delete(tp);
	free(w);
	return ret;
}
