/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histograms kept in kprof.ko (KPROF_CMD_HIST_DUMP): latency probes in
 * power-of-two nanosecond buckets, run-queue latency in power-of-two
 * buckets of its own unit; read, subtracted and printed as BCC prints
 * them (print_log2_hist()).
 */
#ifndef KPROF_CTL_HIST_H
#define KPROF_CTL_HIST_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "proto.h"
#include "session.h"
#include "workload.h"

struct kp_nl;
struct kp_err;

/*
 * A session whose results are histograms ('latency', 'sched runqlat'):
 * the netlink socket, the command when there is one, SIGINT and SIGTERM
 * caught into *signalled while it runs.
 */
struct kp_hist_run {
	struct kp_session	*s;
	enum kp_target		target;
	struct kp_nl		*nl;
	struct kp_version_info	ver;
	struct kp_start_info	info;
	struct kp_workload	wl;
	bool			has_command;
	bool			live;		/* read the running session, start none */
	bool			started;
	bool			signals;
	struct sigaction	old_int, old_term;
};

/*
 * Open kprof, prepare @argv (@argc words, the command; none: 0), catch the
 * signals with @handler, START @r->s (unless @r->live) and start the command.  An exec
 * failure is reported (kprofctl: @cmd: cannot run ...) and is no error:
 * the session's histograms are empty.  Needs ABI @min_abi.
 */
int kp_hist_run__start(struct kp_hist_run *r, int argc, const char **argv,
		       void (*handler)(int), uint32_t min_abi, const char *what,
		       const char *cmd, struct kp_err *err);

/*
 * "[options] [args] -- command": the words before the first "--" (the
 * count returned, argv[] cut there) and the command after it in *@command
 * (NULL without "--"), *@nr_command words.
 */
int kp_hist_run__split_command(int argc, const char **argv, const char ***command,
			       int *nr_command);

/*
 * r->s (calloc'ed, the caller frees it) from the target options of @opts
 * (-a, -p, -C, --stack-depth; a command follows when @has_command) with no
 * event and no stacks yet: the caller adds its own events (runqlat,
 * latency, offcpu).  0, or -1 with @err set.
 */
int kp_hist_run__session(struct kp_hist_run *r, struct kp_session_opts *opts, bool has_command,
			 const char *cmd, struct kp_err *err);

/*
 * Sleep until @secs passed (0: no limit), *@signalled is set, the command
 * ended or the processes of a -p session are all gone.  @r NULL: only the
 * time and the signal (--live).  Returns true when the time ran out.
 */
bool kp_hist_run__wait(struct kp_hist_run *r, unsigned long secs,
		       volatile sig_atomic_t *signalled);

/*
 * The words left after the options of a command that traces for a while
 * ('offcpu', 'lock contention'): at most one, the duration in whole
 * seconds, into *@duration (0 without); a command after "--" (@command,
 * @nr_command words) needs a word; -a (@all) takes no -p (@nr_pids) and no
 * command.  0, or -1 with a line said.
 */
int kp_hist_run__args(int argc, const char **argv, bool all, unsigned int nr_pids,
		      const char **command, int nr_command, unsigned long *duration,
		      const char *cmd);

/* Whom a started session traces: "all threads", "the command", "the processes". */
const char *kp_hist_run__whom(const struct kp_hist_run *r);

/* End the "Tracing ..." line: " for N secs." or "... Hit Ctrl-C to end." */
void kp_hist_run__until(unsigned long duration);

/*
 * The counters of a kind of waits (kp_stats offcpu[] or lock[]) of a
 * stopped session: a line when some were lost (@what: "blocks", "lock
 * waits"), and one when they do not balance.
 */
void kp_hist__report_waits(const uint64_t *o, const char *what, const char *cmd);

/* STOP the session; the command's exit code, or KP_EXIT_OK without one. */
int kp_hist_run__stop(struct kp_hist_run *r, struct kp_err *err);

/* Undo whatever is left: stop, kill the command, the signals, the socket. */
void kp_hist_run__end(struct kp_hist_run *r);

/* One event's histogram, summed over CPUs. */
struct kp_hist {
	uint32_t	event;
	uint32_t	type;		/* (ABI 1.4; else 0) */
	uint64_t	config;
	uint64_t	count;
	uint64_t	sum_ns;
	uint64_t	max_ns;
	uint64_t	missed;
	uint64_t	keys_lost;	/* waits in no key's histogram */
	uint64_t	buckets[KPROF_HIST_BUCKETS];
};

/* Per-key (process or thread) run-queue latency histograms, summed over CPUs. */
struct kp_hist_key {
	uint32_t	event;
	uint32_t	key;
	uint64_t	buckets[KPROF_RUNQLAT_KEY_BUCKETS];
};

struct kp_hist_keys {
	struct kp_hist_key	*keys;		/* by event, then key, once dumped */
	size_t			nr, alloc;
};

/* Rows of a printed histogram: row i counts [2^(i-1), 2^i - 1] units. */
#define KP_HIST_ROWS	(KPROF_HIST_BUCKETS + 1)

/*
 * HIST_DUMP into @hists[event] for the @nr events of the session, and
 * into @keys (NULL: not wanted) their per-key histograms, the CPUs' added
 * up, sorted by event and key.
 */
int kp_nl__hist_dump(struct kp_nl *nl, struct kp_hist *hists, unsigned int nr,
		     struct kp_hist_keys *keys, struct kp_err *err);

/* Sort and add up the entries of one key (after adding them one CPU at a time). */
void kp_hist_keys__merge(struct kp_hist_keys *k);
/* @a - @b, key by key (both merged); 0 or -ENOMEM.  @out is replaced. */
int kp_hist_keys__sub(struct kp_hist_keys *out, const struct kp_hist_keys *a,
		      const struct kp_hist_keys *b);
void kp_hist_keys__exit(struct kp_hist_keys *k);
/* A key's buckets as a histogram, for kp_hist__unit_rows(). */
void kp_hist_key__hist(const struct kp_hist_key *k, struct kp_hist *h);

/* @a - @b, bucket by bucket (an interval's histogram); max stays @a's. */
void kp_hist__sub(struct kp_hist *out, const struct kp_hist *a, const struct kp_hist *b);

/* Rows of nanosecond buckets shown in units of @div ns (1, 1000, 1000000). */
void kp_hist__ns_rows(const struct kp_hist *h, unsigned int div, uint64_t *rows);

/* Rows of buckets already in the unit (bucket i: fls64(value) == i). */
void kp_hist__unit_rows(const struct kp_hist *h, uint64_t *rows);

/* The value of nanosecond buckets below which @q of the counts fall. */
uint64_t kp_hist__quantile_ns(const struct kp_hist *h, double q);

/* BCC's print_log2_hist(): rows 1 .. the last non-empty one, with bars. */
void kp_hist__print_rows(FILE *fp, const uint64_t *rows, const char *unit);

#endif /* KPROF_CTL_HIST_H */
