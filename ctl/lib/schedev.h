/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler (and lock) events of a recording, for 'kprofctl
 * sched latency|map|timehist' and 'kprofctl lock report': the samples of
 * the sched:* (lock:contention_*, lockdep's lock:lock_*) tracepoints of a kprof.data (made by
 * 'kprofctl sched record', 'kprofctl lock record' or 'kprofctl record -e
 * sched:...'), in time order, with the fields each analysis reads taken from the raw record by
 * the recorded formats (libtraceevent), so that a field is found where the
 * recording kernel put it.
 *
 *	ret = kp_schedev__for_each(&d, cmd, need, fn, arg);
 *		fn(&ev, arg) for every sched event, time-ordered
 *
 * A recording without one of the tracepoints in @need is refused with a
 * one-line message naming it; a record whose fields do not fit its size
 * is skipped and counted (kp_schedev_stats.bad).
 */
#ifndef KPROFCTL_SCHEDEV_H
#define KPROFCTL_SCHEDEV_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"

enum kp_schedev_type {
	KP_SCHEDEV_SWITCH,		/* sched:sched_switch */
	KP_SCHEDEV_WAKEUP,		/* sched:sched_wakeup */
	KP_SCHEDEV_WAKEUP_NEW,		/* sched:sched_wakeup_new */
	KP_SCHEDEV_WAKING,		/* sched:sched_waking */
	KP_SCHEDEV_MIGRATE,		/* sched:sched_migrate_task */
	KP_SCHEDEV_FORK,		/* sched:sched_process_fork */
	KP_SCHEDEV_EXEC,		/* sched:sched_process_exec */
	KP_SCHEDEV_EXIT,		/* sched:sched_process_exit */
	KP_SCHEDEV_LOCK_BEGIN,		/* lock:contention_begin */
	KP_SCHEDEV_LOCK_END,		/* lock:contention_end */
	KP_SCHEDEV_LOCKDEP_ACQUIRE,	/* lock:lock_acquire (CONFIG_LOCKDEP) */
	KP_SCHEDEV_LOCKDEP_ACQUIRED,	/* lock:lock_acquired (CONFIG_LOCK_STAT) */
	KP_SCHEDEV_LOCKDEP_CONTENDED,	/* lock:lock_contended (CONFIG_LOCK_STAT) */
	KP_SCHEDEV_LOCKDEP_RELEASE,	/* lock:lock_release (CONFIG_LOCKDEP) */
	KP_SCHEDEV_NR
};

#define KP_SCHEDEV_BIT(t)	(1U << (t))

/* prev_state of sched_switch as Linux 6.1 reports it (TASK_REPORT_MAX: preempted) */
#define KP_SCHED_STATE_PREEMPT	0x100

struct kp_schedev {
	enum kp_schedev_type		type;
	uint64_t			time;
	uint32_t			cpu;
	const struct kp_resolved	*sample;	/* the sample: current task, stack */
	/* sched_switch */
	uint32_t			prev_pid, next_pid;
	int32_t				prev_prio, next_prio;
	uint64_t			prev_state;
	char				prev_comm[16], next_comm[16];
	/* wakeup*, migrate, exit: the task; fork: the child (parent_pid in ppid) */
	uint32_t			pid, ppid;
	int32_t				prio;
	int32_t				target_cpu, orig_cpu, dest_cpu;
	char				comm[16];
	/*
	 * contention_begin, _end: the lock; begin: its flags; end: ret.
	 * lock_acquire, _acquired, _contended, _release: the lockdep map in
	 * lock_addr, its name; acquire: flags (1 trylock, 2 read).
	 */
	uint64_t			lock_addr;
	uint32_t			lock_flags;
	int32_t				lock_ret;
	char				lock_name[48];
};

struct kp_schedev_stats {
	uint64_t	events;		/* sched events passed to fn */
	uint64_t	bad;		/* records whose fields were out of bounds */
};

typedef int (*kp_schedev_fn)(const struct kp_schedev *ev, void *arg);

/*
 * Call @fn for every sched event of @d (opened with time_order) whose type
 * is in @want (KP_SCHEDEV_BIT()s); the types in @need must have been
 * recorded, else a message "CMD: FILE has no sched:sched_switch events
 * (record them with 'kprofctl sched record')" and -ENOENT.  Stops at and
 * returns @fn's non-zero; -ENOMEM; 0.
 */
int kp_schedev__for_each(struct kp_decoder *d, const char *cmd, unsigned int need,
			 unsigned int want, kp_schedev_fn fn, void *arg,
			 struct kp_schedev_stats *stats);

/* Did the recording of @d have tracepoint @t among its events? */
bool kp_schedev__recorded(const struct kp_decoder *d, enum kp_schedev_type t);

/* The tracepoint name of @t: "sched:sched_switch". */
const char *kp_schedev__name(enum kp_schedev_type t);

/* 'R', 'S', 'D', ... for a sched_switch prev_state of Linux 6.1 ("R+": 'R', preempted). */
char kp_schedev__state_char(uint64_t prev_state);

#endif /* KPROFCTL_SCHEDEV_H */
