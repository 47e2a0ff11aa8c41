/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The analyses of 'kprofctl sched' over a recording of the sched
 * tracepoints (schedev.h), printed in the layouts of perf sched:
 *
 *	latency   per-task scheduling delay, wakeup (or preemption) to
 *	          switch-in: perf sched latency's table; with stacks, the
 *	          worst delays with the waiting task's switch-out stack and
 *	          the stack of the task that ran instead
 *	map       one column per CPU, the task on each after every switch
 *	timehist  one line per switch: wait time, scheduling delay, run time;
 *	          wakeups, migrations; the runtime summary
 *
 * Each takes a decoder opened with time_order and writes to @out; 0, or
 * a kprofctl exit code after a one-line message.
 */
#ifndef KPROFCTL_SCHED_H
#define KPROFCTL_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cpumap.h"
#include "decode.h"

#define KP_SCHED_SORT_MAX	5

enum kp_sched_sort { KP_SORT_PID, KP_SORT_AVG, KP_SORT_MAX, KP_SORT_SWITCH, KP_SORT_RUNTIME };

struct kp_sched_latency_opts {
	enum kp_sched_sort	sort[KP_SCHED_SORT_MAX];
	unsigned int		nr_sort;
	bool			pids;		/* -p: per thread, no merge by comm */
	int			cpu;		/* -C: only this CPU; -1: all */
	unsigned int		stacks;		/* --stacks=N: the N worst delays' stacks */
};

/* "avg,max,switch,runtime": parse -s/--sort; -1 with a message naming the bad key. */
int kp_sched__parse_sort(struct kp_sched_latency_opts *o, const char *cmd, const char *keys);

int kp_sched__latency(struct kp_decoder *d, const char *cmd,
		      const struct kp_sched_latency_opts *o, FILE *out);

struct kp_sched_map_opts {
	bool			compact;
	const char		*cpus;		/* --cpus: columns of these CPUs only */
};

int kp_sched__map(struct kp_decoder *d, const char *cmd, const struct kp_sched_map_opts *o,
		  FILE *out);

struct kp_sched_timehist_opts {
	bool			wakeups;	/* -w */
	bool			migrations;	/* -M */
	bool			next;		/* -n */
	bool			state;		/* --state */
	bool			summary_only;	/* -s */
	bool			with_summary;	/* -S */
	bool			cpu_visual;	/* -V */
	bool			no_callchain;	/* -G / --no-call-graph */
	unsigned int		max_stack;	/* frames after the scheduler's own (default 5) */
	const char		*pids, *tids;	/* -p, -t */
	const char		*cpus;		/* -C */
};

int kp_sched__timehist(struct kp_decoder *d, const char *cmd,
		       const struct kp_sched_timehist_opts *o, FILE *out);

#endif /* KPROFCTL_SCHED_H */
