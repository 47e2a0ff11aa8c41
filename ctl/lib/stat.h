/* SPDX-License-Identifier: GPL-2.0 */
/*
 * 'kprofctl stat': counting mode, perf stat's equal.
 *
 *	kp_stat__from_opts()	validate the options (record's event parser)
 *	kp_nl__count_*()	KPROF_CMD_COUNT_START, _READ, _STOP
 *	kp_stat_table__build()	the counts of a READ, one cell per event (and CPU)
 *	kp_stat_runs__add()	scale a table, add it to the runs (-r)
 *	kp_stat__print()	table, CSV (-x), JSON (--json), Prometheus
 *
 * Counts are scaled as perf scales them when counters are multiplexed:
 * the readings of an event are summed (over CPUs or threads), then the sum
 * is multiplied by time enabled / time running.  An event that never ran
 * is <not counted>; one perf refused (e.g. hardware events without a PMU)
 * is <not supported>.
 */
#ifndef KPROFCTL_STAT_H
#define KPROFCTL_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "error.h"
#include "nl.h"
#include "session.h"

struct nl_msg;

#define KP_STAT_MIN_INTERVAL_MS	10
#define KP_STAT_MAX_RUNS	100000
/* Interval lines between two headers, as in perf. */
#define KP_STAT_HEADER_EVERY	25

/* perf stat's default events; -a and -C count cpu-clock for task-clock. */
#define KP_STAT_DEFAULT_EVENTS	"task-clock,context-switches,cpu-migrations,page-faults," \
				"cycles,instructions,branches,branch-misses"
/* Added by -d. */
#define KP_STAT_DETAILED_EVENTS	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses"

enum kp_stat_format {
	KP_STAT_FMT_TABLE,
	KP_STAT_FMT_CSV,		/* -x SEP */
	KP_STAT_FMT_JSON,		/* --json: one object per line, perf's keys */
	KP_STAT_FMT_PROMETHEUS,		/* --prometheus: text exposition format */
};

/* The options as given on the command line. */
struct kp_stat_opts {
	struct kp_session_opts	s;		/* -e, -p, -a, -C, -i, -v */
	bool			per_cpu;	/* -A */
	bool			detailed;	/* -d */
	bool			json;
	bool			prometheus;
	bool			no_big_num;
	const char		*interval;	/* -I */
	const char		*repeat;	/* -r */
	const char		*field_sep;	/* -x */
	const char		*output;	/* -o */
};

/* What to count and how to print it, validated. */
struct kp_stat_config {
	struct kp_session	session;	/* events, PIDs, CPUs, F_SYSTEM_WIDE, F_INHERIT */
	enum kp_target		target;
	bool			has_command;
	bool			per_cpu;
	unsigned int		interval_ms;	/* 0: none */
	unsigned int		runs;
	enum kp_stat_format	format;
	char			sep[16];	/* CSV separator */
	bool			big_num;	/* thousands grouping per the locale */
	const char		*output;	/* NULL: stderr */
	const char		*cpu_list;	/* -C as given */
	int			verbose;
};

/*
 * Validate @o into @c.  @has_command: a command follows the options.
 * Returns 0, or a negative errno with @err naming the problem; the event
 * errors are those of 'kprofctl start'.
 */
int kp_stat__from_opts(struct kp_stat_config *c, const struct kp_stat_opts *o,
		       bool has_command, const char *cmd, struct kp_err *err);

/* --- the module's counts --------------------------------------------------- */

/* One KPROF_A_COUNT of a COUNT_READ. */
struct kp_stat_count {
	uint32_t	event;
	int32_t		cpu;		/* -1: the whole per-task session */
	uint32_t	error;		/* errno of perf's refusal: no counts */
	uint64_t	value;
	uint64_t	enabled;	/* ns */
	uint64_t	running;	/* ns */
	/* ABI 1.8: the event, and the session at the read; state 0: not sent */
	uint32_t	perf_type;	/* PERF_TYPE_* */
	uint64_t	config;
	uint32_t	state;		/* KPROF_COUNT_STATE_* */
	uint64_t	elapsed_ns;	/* counted so far, or until the stop */
};

struct kp_stat_counts {
	uint64_t		session_id;
	unsigned int		nr, cap;
	struct kp_stat_count	*c;
	/* The events the module named (KPROF_COUNT_A_NAME), by index; "": none. */
	unsigned int		nr_events;	/* the highest index read + 1 */
	char			names[KPROF_MAX_EVENTS][KPROF_EVENT_NAME_MAX];
	/* ABI 1.8, from the counts read: the session's state (0: not said) and time */
	uint32_t		state;		/* KPROF_COUNT_STATE_* */
	uint64_t		elapsed_ns;
};

void kp_stat_counts__free(struct kp_stat_counts *counts);

/* The COUNT_START reply. */
struct kp_stat_start_info {
	uint64_t	session_id;
	uint32_t	error[KPROF_MAX_EVENTS];	/* per event: perf's refusal, 0 */
};

/* Put a COUNT_START request for @s (and KPROF_COUNT_F_* @count_flags) into @msg. */
int kp_stat_start__put(struct nl_msg *msg, const struct kp_session *s, uint32_t count_flags);
int kp_stat_start__parse(const struct nlmsghdr *nlh, struct kp_stat_start_info *info,
			 unsigned int nr_events, struct kp_err *err);
/*
 * One COUNT_READ message into @c; @id gets its session id and @name (NULL,
 * or KPROF_EVENT_NAME_MAX bytes) the event's name, "" when not sent.
 */
int kp_stat_count__parse(const struct nlmsghdr *nlh, struct kp_stat_count *c, uint64_t *id,
			 char *name, struct kp_err *err);

/*
 * KPROF_CMD_COUNT_START.  -EBUSY while another counting session runs.
 * The session lasts as long as @nl: closing it ends the session.
 */
int kp_nl__count_start(struct kp_nl *nl, const struct kp_session *s, uint32_t count_flags,
		       struct kp_stat_start_info *info, struct kp_err *err);
/*
 * KPROF_CMD_COUNT_READ of session @id (0: whichever counts now, there is
 * at most one) into @counts (emptied first); event indexes from
 * @nr_events up are refused.  -ENOENT without a counting session.
 */
int kp_nl__count_read(struct kp_nl *nl, uint64_t id, unsigned int nr_events,
		      struct kp_stat_counts *counts, struct kp_err *err);
/* KPROF_CMD_COUNT_STOP of session @id: the counts freeze. */
int kp_nl__count_stop(struct kp_nl *nl, uint64_t id, struct kp_err *err);

/* --- tables and runs ------------------------------------------------------- */

/* One event, overall or on one CPU: the sum of its readings. */
struct kp_stat_cell {
	uint64_t	value;
	uint64_t	enabled;
	uint64_t	running;
	uint32_t	error;		/* every reading was refused with this */
	bool		present;	/* the module reported it */
};

struct kp_stat_table {
	unsigned int		nr_events;
	unsigned int		nr_rows;	/* 1, or one per CPU (-A) */
	int			*cpus;		/* per row: the CPU, -1 for all */
	struct kp_stat_cell	*cells;		/* [row * nr_events + event] */
};

/*
 * Sum @counts into @t: one row, or (@per_cpu) one row per CPU reported,
 * in increasing order.  Returns 0, -ENOMEM or -EBADMSG (an event index
 * out of range).
 */
int kp_stat_table__build(struct kp_stat_table *t, const struct kp_stat_counts *counts,
			 unsigned int nr_events, bool per_cpu, struct kp_err *err);
/* @d = @now - @prev, cell by cell (same shape); for -I. */
int kp_stat_table__delta(struct kp_stat_table *d, const struct kp_stat_table *now,
			 const struct kp_stat_table *prev);
void kp_stat_table__free(struct kp_stat_table *t);

enum kp_stat_status {
	KP_STAT_COUNTED,
	KP_STAT_NOT_COUNTED,		/* never ran: <not counted> */
	KP_STAT_NOT_SUPPORTED,		/* perf refused it: <not supported> */
};

/* Running mean and variance (Welford), as perf's struct stats. */
struct kp_stat_stats {
	double		n, mean, m2;
};

void kp_stat_stats__add(struct kp_stat_stats *s, double v);
/* Standard error of the mean: perf's stddev_stats(); 0 below two samples. */
double kp_stat_stats__stderr(const struct kp_stat_stats *s);

/* One printed value: a scaled cell, or the mean of the runs. */
struct kp_stat_value {
	enum kp_stat_status	status;
	double			count;		/* scaled */
	double			noise;		/* relative standard error of the mean, % */
	uint64_t		enabled;	/* mean over the runs */
	uint64_t		running;
	uint32_t		error;
};

/* Scale @c: value * enabled / running; sets the status. */
void kp_stat_cell__scale(const struct kp_stat_cell *c, struct kp_stat_value *v);

/* The runs of -r: per cell, the statistics of the scaled counts. */
struct kp_stat_runs {
	unsigned int		runs;
	unsigned int		nr_events, nr_rows;
	int			*cpus;
	struct kp_stat_stats	*count;		/* [row * nr_events + event] */
	struct kp_stat_stats	*enabled, *running;
	unsigned int		*counted;	/* runs in which the cell counted */
	uint32_t		*error;
	struct kp_stat_stats	walltime;	/* ns */
};

/* Add one run's @t (the first fixes the shape) and its wall time. */
int kp_stat_runs__add(struct kp_stat_runs *r, const struct kp_stat_table *t, double walltime_ns);
/* The values to print, malloc'ed [row * nr_events + event]. */
struct kp_stat_value *kp_stat_runs__values(const struct kp_stat_runs *r);
void kp_stat_runs__free(struct kp_stat_runs *r);

/* --- printing -------------------------------------------------------------- */

/* What one report (the summary, or one interval) shows. */
struct kp_stat_report {
	const struct kp_stat_config	*cfg;
	const char		*target;	/* "'sleep 1'", "'system wide'", ... */
	unsigned int		nr_events;
	const struct kp_event	*events;
	unsigned int		nr_rows;
	const int		*cpus;		/* per row, -1: all */
	const struct kp_stat_value *v;		/* [row * nr_events + event] */
	unsigned int		runs;
	double			walltime_ns;	/* mean; -I: the interval's length */
	double			walltime_err_ns; /* standard error of the mean (-r) */
	bool			has_rusage;	/* a single run of a command */
	double			user_s, sys_s;
	bool			interval;	/* -I: one interval */
	double			timestamp_s;	/* -I: since the start */
	unsigned int		interval_no;	/* -I: from 0, for the header */
};

/* A derived metric, printed after '#'. */
struct kp_stat_metric {
	const char	*fmt;		/* printf format of the value; NULL: none */
	const char	*unit;		/* "CPUs utilized", "K/sec", ... */
	double		value;
	char		unit_buf[16];
};

/*
 * The metric of event @ev in @row, as perf computes it: CPUs utilized for
 * task-clock and cpu-clock, GHz for cycles, insn per cycle, the miss
 * ratios ("% of all branches", "% of all cache refs", ...), else a rate
 * per second of task-clock or cpu-clock.  Returns false when none.
 */
bool kp_stat__metric(const struct kp_stat_report *r, unsigned int row, unsigned int ev,
		     struct kp_stat_metric *m);

/* "'sleep 1'", "'system wide'", "'CPU(s) 0-1'", "process id '42'". */
void kp_stat__target_name(char *buf, size_t len, const struct kp_stat_config *c,
			  int argc, const char **argv);

/* Print @r on @fp in @r->cfg->format.  Returns 0, or -EIO on a write error. */
int kp_stat__print(FILE *fp, const struct kp_stat_report *r);

#endif /* KPROFCTL_STAT_H */
