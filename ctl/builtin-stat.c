// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl stat [<options>] [--] [<command> [<args>]]
 *
 * perf stat's model: fork the command stopped (it waits on a pipe before
 * execvp()), COUNT_START on its PID with inheritance and enable-on-exec, let
 * it exec, wait for it with wait4() (its rusage gives the user and sys
 * times), COUNT_STOP, COUNT_READ and print; exit with the command's status.
 * With -a, -C or -p the counting lasts as long as the command, or until
 * SIGINT or SIGTERM without one (or until the -p processes are gone).  -I
 * prints the counts of every interval, -r repeats the command and prints
 * means with their variation.  The counting session belongs to this
 * process's netlink socket: if kprofctl dies, kprof.ko ends the session.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/stat.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "lib/workload.h"

static const char * const stat_usage[] = {
	"kprofctl stat [<options>] [--] [<command> [<args>]]",
	"",
	"Count events, as 'perf stat' does: in a command and its children until it",
	"exits (with its exit status), or in processes (-p), CPUs (-C) or the whole",
	"system (-a) for as long as a command runs, else until SIGINT (Ctrl-C) or",
	"SIGTERM.  Default events: task-clock (cpu-clock with -a or -C),",
	"context-switches, cpu-migrations, page-faults, cycles, instructions,",
	"branches, branch-misses.  The counts go to stderr, or to -o FILE.",
	"Needs CAP_PERFMON or CAP_SYS_ADMIN.",
	NULL
};

static volatile sig_atomic_t stat_signal;

static void stat__sighandler(int sig)
{
	if (sig != SIGCHLD)
		stat_signal = sig;
}

struct stat_signals {
	struct sigaction	old_int, old_term, old_chld;
	sigset_t		old_mask;	/* what ppoll() waits with */
};

static void stat__signals_install(struct stat_signals *ss)
{
	struct sigaction sa;
	sigset_t block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stat__sighandler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: ppoll() returns on a signal. */
	sigaction(SIGINT, &sa, &ss->old_int);
	sigaction(SIGTERM, &sa, &ss->old_term);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &ss->old_chld);
	/* Delivered only inside ppoll(): no wake-up is lost. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &ss->old_mask);
}

static void stat__signals_restore(struct stat_signals *ss)
{
	sigprocmask(SIG_SETMASK, &ss->old_mask, NULL);
	sigaction(SIGINT, &ss->old_int, NULL);
	sigaction(SIGTERM, &ss->old_term, NULL);
	sigaction(SIGCHLD, &ss->old_chld, NULL);
}

static double tv_seconds(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

struct stat_ctx {
	const char		*cmd;
	struct kp_stat_config	cfg;
	int			argc;		/* the command */
	const char		**argv;
	char			target[1024];
	struct kp_nl		*nl;
	FILE			*out;
	struct stat_signals	sigs;
	/* the last run's command: user and sys seconds */
	double			user_s, sys_s;
	/* -I */
	struct kp_stat_table	prev;
	uint64_t		t_start, t_prev;
	unsigned int		interval_no;
};

/* Write @r to the output; with -o and --prometheus -I, replace the file whole. */
static int stat__emit(struct stat_ctx *ctx, const struct kp_stat_report *r, struct kp_err *err)
{
	char tmp[4096];
	FILE *fp;
	int ret;

	if (!(ctx->cfg.format == KP_STAT_FMT_PROMETHEUS && ctx->cfg.output &&
	      ctx->cfg.interval_ms)) {
		ret = kp_stat__print(ctx->out, r);
		if (ret)
			kp_err__set(err, EIO, "cannot write the counts: %s", strerror(errno));
		if (!ret && r->interval && ctx->cfg.format == KP_STAT_FMT_PROMETHEUS)
			fputc('\n', ctx->out);	/* one complete exposition per block */
		return ret;
	}
	/* a scraper of the file always sees a complete exposition */
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", ctx->cfg.output) >= (int)sizeof(tmp)) {
		kp_err__set(err, ENAMETOOLONG, "%s: %s", ctx->cfg.output, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	fp = fopen(tmp, "we");
	if (!fp) {
		kp_err__set(err, errno, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	ret = kp_stat__print(fp, r);
	if (fclose(fp) || ret || rename(tmp, ctx->cfg.output)) {
		kp_err__set(err, EIO, "cannot write %s: %s", ctx->cfg.output, strerror(errno));
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

static void stat__report_init(struct stat_ctx *ctx, struct kp_stat_report *r,
			      unsigned int nr_rows, const int *cpus, const struct kp_stat_value *v)
{
	memset(r, 0, sizeof(*r));
	r->cfg = &ctx->cfg;
	r->target = ctx->target;
	r->nr_events = ctx->cfg.session.nr_events;
	r->events = ctx->cfg.session.events;
	r->nr_rows = nr_rows;
	r->cpus = cpus;
	r->v = v;
	r->runs = 1;
}

/*
 * One -I line set: the counts since the previous interval (Prometheus:
 * since the start, as counters are), timed by the interval's length.
 */
static int stat__interval(struct stat_ctx *ctx, uint64_t id, struct kp_stat_counts *counts,
			  uint64_t now, struct kp_err *err)
{
	struct kp_stat_table now_t, delta;
	bool cumulative = ctx->cfg.format == KP_STAT_FMT_PROMETHEUS;
	const struct kp_stat_table *show;
	struct kp_stat_report r;
	struct kp_stat_value *v;
	unsigned int i;
	int ret;

	ret = kp_nl__count_read(ctx->nl, id, ctx->cfg.session.nr_events, counts, err);
	if (ret)
		return ret;
	ret = kp_stat_table__build(&now_t, counts, ctx->cfg.session.nr_events, ctx->cfg.per_cpu,
				   err);
	if (ret)
		return ret;
	ret = kp_stat_table__delta(&delta, &now_t, ctx->prev.cells ? &ctx->prev : NULL);
	if (ret) {
		kp_stat_table__free(&now_t);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return ret;
	}
	show = cumulative ? &now_t : &delta;
	v = calloc((size_t)show->nr_rows * show->nr_events + 1, sizeof(*v));
	if (!v) {
		ret = -ENOMEM;
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		goto out;
	}
	for (i = 0; i < show->nr_rows * show->nr_events; i++)
		kp_stat_cell__scale(&show->cells[i], &v[i]);
	stat__report_init(ctx, &r, show->nr_rows, show->cpus, v);
	r.interval = true;
	r.interval_no = ctx->interval_no++;
	r.timestamp_s = (now - ctx->t_start) / 1e9;
	r.walltime_ns = cumulative ? now - ctx->t_start : now - ctx->t_prev;
	ret = stat__emit(ctx, &r, err);
	free(v);
out:
	kp_stat_table__free(&delta);
	kp_stat_table__free(&ctx->prev);
	ctx->prev = now_t;
	ctx->t_prev = now;
	return ret;
}

static void stat__note_unsupported(struct stat_ctx *ctx, const struct kp_stat_start_info *info)
{
	unsigned int i;

	for (i = 0; ctx->cfg.verbose && i < ctx->cfg.session.nr_events; i++)
		if (info->error[i])
			kp_error(ctx->cmd, "event '%s' is not supported by this kernel or machine (%s)",
				 ctx->cfg.session.events[i].name, strerror(info->error[i]));
}

/* Are all the -p processes gone?  Checked once a second. */
static bool stat__pids_gone(struct stat_ctx *ctx, uint64_t now, uint64_t *last)
{
	if (ctx->cfg.target != KP_TARGET_PIDS || now - *last < 1000000000ULL)
		return false;
	*last = now;
	if (kp_sys__any_pid_exists(ctx->cfg.session.pids, ctx->cfg.session.nr_pids))
		return false;
	kp_error(ctx->cmd, "the counted processes have exited");
	return true;
}

/*
 * Wait for the command to exit, a signal, or the next interval; print the
 * intervals.  Returns 0 or a negative errno with @err set.
 */
static int stat__wait(struct stat_ctx *ctx, struct kp_workload *wl, uint64_t id,
		      struct kp_stat_counts *counts, struct kp_err *err)
{
	uint64_t now, next = 0, last_pid_check = 0, wait_ns;
	uint64_t period = ctx->cfg.interval_ms * 1000000ULL;
	struct timespec ts;
	int ret;

	if (period)
		next = ctx->t_start + period;
	for (;;) {
		if (wl->pid && kp_workload__reap(wl, false))
			return 0;
		if (stat_signal) {
			if (ctx->cfg.verbose)
				kp_error(ctx->cmd, "stopping on signal %d", (int)stat_signal);
			return 0;
		}
		now = kp_clock_ns();
		if (!wl->pid && stat__pids_gone(ctx, now, &last_pid_check))
			return 0;
		if (period && now >= next) {
			ret = stat__interval(ctx, id, counts, now, err);
			if (ret)
				return ret;
			/* skip the ticks a slow print has eaten */
			while (next <= now)
				next += period;
			continue;
		}
		wait_ns = period ? next - now : 0;
		if (ctx->cfg.target == KP_TARGET_PIDS && !wl->pid &&
		    (!wait_ns || wait_ns > 1000000000ULL))
			wait_ns = 1000000000ULL;
		ts.tv_sec = wait_ns / 1000000000ULL;
		ts.tv_nsec = wait_ns % 1000000000ULL;
		if (ppoll(NULL, 0, wait_ns ? &ts : NULL, &ctx->sigs.old_mask) < 0 &&
		    errno != EINTR) {
			kp_err__set(err, errno, "ppoll: %s", strerror(errno));
			return -errno;
		}
	}
}

/*
 * One run: START, the command (or the wait), STOP, READ.  The final counts
 * go into @runs, or (-I) are printed as the last interval.  *@code gets the
 * command's exit code.  Returns 0, or a negative errno with @err set.
 */
static int stat__run(struct stat_ctx *ctx, struct kp_stat_runs *runs, int *code,
		     struct kp_err *err)
{
	struct kp_workload wl = KP_WORKLOAD_INIT;
	struct kp_session s = ctx->cfg.session;
	struct kp_stat_counts counts = { 0 };
	struct kp_stat_start_info info;
	struct kp_stat_table t = { 0 };
	uint32_t count_flags = 0;
	struct kp_err stop_err;
	uint64_t t1;
	int ret;

	if (ctx->cfg.has_command) {
		ret = kp_workload__prepare(&wl, ctx->argv, &ctx->sigs.old_mask, err);
		if (ret)
			return ret;
		if (ctx->cfg.target == KP_TARGET_COMMAND) {
			s.pids[0] = wl.pid;
			s.nr_pids = 1;
			/* count the command, not kprofctl's fork before exec */
			count_flags = KPROF_COUNT_F_ENABLE_ON_EXEC;
		}
	}
	ret = kp_nl__count_start(ctx->nl, &s, count_flags, &info, err);
	if (ret)
		goto out;
	/*
	 * The wall time spans the counting: from the enable, which ends
	 * COUNT_START (creating the counters before it can take long), or
	 * the command's exec ...
	 */
	ctx->t_start = ctx->t_prev = kp_clock_ns();
	if (runs->runs == 0 && !ctx->interval_no)
		stat__note_unsupported(ctx, &info);
	if (ctx->cfg.has_command) {
		ret = kp_workload__start(&wl, err);
		if (ret) {
			kp_nl__count_stop(ctx->nl, info.session_id, &stop_err);
			*code = 127;
			goto out;
		}
	}
	ret = stat__wait(ctx, &wl, info.session_id, &counts, err);
	if (ret) {
		kp_nl__count_stop(ctx->nl, info.session_id, &stop_err);
		goto out;
	}
	/* ... to the command's exit, or the disable that starts COUNT_STOP */
	t1 = kp_clock_ns();
	ret = kp_nl__count_stop(ctx->nl, info.session_id, err);
	if (!ret)
		ret = kp_nl__count_read(ctx->nl, info.session_id, s.nr_events, &counts, err);
	if (ret)
		goto out;

	if (ctx->cfg.interval_ms) {
		/* the last, partial interval */
		ret = stat__interval(ctx, info.session_id, &counts, t1, err);
	} else {
		ret = kp_stat_table__build(&t, &counts, s.nr_events, ctx->cfg.per_cpu, err);
		if (!ret && kp_stat_runs__add(runs, &t, t1 - ctx->t_start)) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			ret = -ENOMEM;
		}
	}
	if (ctx->cfg.has_command && !wl.reaped) {
		/* interrupted: end the command as perf does */
		kp_workload__abort(&wl, SIGTERM);
	}
	if (wl.pid && wl.reaped)
		*code = kp_workload__exit_code(&wl);
out:
	if (wl.reaped) {
		ctx->user_s = tv_seconds(&wl.ru.ru_utime);
		ctx->sys_s = tv_seconds(&wl.ru.ru_stime);
	}
	kp_workload__abort(&wl, SIGKILL);
	kp_stat_table__free(&t);
	kp_stat_counts__free(&counts);
	return ret;
}

/* The summary of the runs. */
static int stat__summary(struct stat_ctx *ctx, const struct kp_stat_runs *runs,
			 struct kp_err *err)
{
	struct kp_stat_report r;
	struct kp_stat_value *v;
	int ret;

	v = kp_stat_runs__values(runs);
	if (!v) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	stat__report_init(ctx, &r, runs->nr_rows, runs->cpus, v);
	r.runs = runs->runs;
	r.walltime_ns = runs->walltime.mean;
	r.walltime_err_ns = kp_stat_stats__stderr(&runs->walltime);
	/* perf shows the command's times for a single run of it */
	r.has_rusage = runs->runs == 1 && ctx->cfg.target == KP_TARGET_COMMAND;
	r.user_s = ctx->user_s;
	r.sys_s = ctx->sys_s;
	ret = stat__emit(ctx, &r, err);
	free(v);
	return ret;
}

int cmd_stat(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_stat_opts o = { 0 };
	const struct option options[] = {
		OPT_CALLBACK('e', "event", &o.s, "event",
			     "event(s) to count, e.g. cycles,instructions:u (see 'kprofctl list')",
			     kp_session_opts__event_cb),
		OPT_BOOLEAN('a', "all-cpus", &o.s.all_cpus, "system-wide, on all CPUs"),
		OPT_STRING('C', "cpu", &o.s.cpus, "cpu-list",
			   "system-wide on these CPUs only, e.g. 0,2-3"),
		OPT_CALLBACK('p', "pid", &o.s, "pid[,pid]", "count these existing processes",
			     kp_session_opts__pid_cb),
		OPT_CALLBACK('t', "tid", &o.s, "tid[,tid]",
			     "count these existing threads only (no children, as perf's -t)",
			     kp_session_opts__tid_cb),
		OPT_BOOLEAN('A', "no-aggr", &o.per_cpu, "one count per CPU (with -a or -C)"),
		OPT_BOOLEAN('d', "detailed", &o.detailed,
			    "add the L1 data and last-level cache events"),
		OPT_STRING('I', "interval-print", &o.interval, "ms",
			   "print the counts every ms milliseconds (at least 10)"),
		OPT_STRING('r', "repeat", &o.repeat, "n",
			   "run the command n times, print means and their variation"),
		OPT_STRING('x', "field-separator", &o.field_sep, "sep",
			   "CSV output, perf's columns, fields separated by sep"),
		OPT_BOOLEAN(0, "json", &o.json, "JSON output: one object per line, perf's keys"),
		OPT_BOOLEAN(0, "prometheus", &o.prometheus,
			    "Prometheus text exposition format (with -I and -o: file rewritten)"),
		OPT_BOOLEAN('i', "no-inherit", &o.s.no_inherit,
			    "do not count the children of the command or processes"),
		OPT_BOOLEAN(0, "no-big-num", &o.no_big_num, "no thousands grouping in the table"),
		OPT_STRING('o', "output", &o.output, "file", "write the counts to file, not stderr"),
		OPT_INCR('v', "verbose", &o.s.verbose,
			 "say why events are not supported, and more"),
		OPT_END()
	};
	struct stat_ctx ctx = { .cmd = cmd };
	struct kp_stat_runs runs = { 0 };
	struct kp_version_info ver;
	struct kp_err err;
	bool signals = false;
	int ret = KP_EXIT_FAILURE, code = KP_EXIT_OK;
	unsigned int i;

	argc = parse_options(argc, argv, options, stat_usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (kp_stat__from_opts(&ctx.cfg, &o, argc > 0, cmd, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	ctx.argc = argc;
	ctx.argv = argv;
	kp_stat__target_name(ctx.target, sizeof(ctx.target), &ctx.cfg, argc, argv);

	ctx.out = stderr;
	if (ctx.cfg.output &&
	    !(ctx.cfg.format == KP_STAT_FMT_PROMETHEUS && ctx.cfg.interval_ms)) {
		ctx.out = fopen(ctx.cfg.output, "we");
		if (!ctx.out) {
			kp_err__set(&err, errno, "%s: %s", ctx.cfg.output, strerror(errno));
			kp_err__print(&err, cmd);
			return KP_EXIT_FAILURE;
		}
	}

	ctx.nl = kp_nl__open(&err);
	if (!ctx.nl || kp_nl__hello(ctx.nl, &ver, &err) ||
	    kp_session__check_abi(&ctx.cfg.session, ver.abi, &err))
		goto out_err;

	stat_signal = 0;
	stat__signals_install(&ctx.sigs);
	signals = true;

	for (i = 0; i < ctx.cfg.runs && (!i || !stat_signal); i++) {
		if (stat__run(&ctx, &runs, &code, &err)) {
			if (code != 127)
				goto out_err;
			kp_err__print(&err, cmd);
			ret = 127;
			goto out;
		}
	}
	if (!ctx.cfg.interval_ms && stat__summary(&ctx, &runs, &err))
		goto out_err;
	ret = ctx.cfg.has_command ? code : KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	if (signals)
		stat__signals_restore(&ctx.sigs);
	kp_stat_runs__free(&runs);
	kp_stat_table__free(&ctx.prev);
	kp_nl__delete(ctx.nl);
	if (ctx.out && ctx.out != stderr && fclose(ctx.out) && ret == KP_EXIT_OK) {
		kp_error(cmd, "%s: %s", ctx.cfg.output, strerror(errno));
		ret = KP_EXIT_FAILURE;
	}
	return ret;
}
