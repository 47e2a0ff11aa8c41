// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl sched record|latency|map|timehist|runqlat
 *
 * record: 'kprofctl record' of the sched tracepoints perf sched and the
 * analyses below need (with -g, the stack of every switched-out task);
 * latency, map, timehist: perf sched's analyses of such a recording
 * (lib/sched.c), from kprof.data or any recording with sched_switch.
 *
 * runqlat: BCC's runqlat on kprof: START a session with a KPROF_TYPE_RUNQLAT event
 * (the sched tracepoints timing each task's wait on a run queue, from
 * wakeup or preemption to running, into log2 histograms in the kernel;
 * nothing per event reaches userspace), print the histogram as runqlat
 * does, once at the end or every interval (each interval's own counts).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/hist.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/decode-args.h"
#include "lib/decode.h"
#include "lib/sched.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "lib/workload.h"

static const char * const sched_usage[] = {
	"kprofctl sched record [<record options>] [-- <command> [<args>]]",
	"kprofctl sched latency [-i <file>] [-s <keys>] [-p] [-C <cpu>] [--stacks <n>]",
	"kprofctl sched map [-i <file>] [--compact] [--cpus <cpus>]",
	"kprofctl sched timehist [-i <file>] [-w] [-M] [-n] [--state] [-s|-S] [-V]",
	"kprofctl sched runqlat [<options>] [interval [count]] [-- <command> [<args>]]",
	"",
	"Scheduler analysis, as perf sched and BCC's runqlat.  record: the sched",
	"tracepoints (switch with its stack under -g, wakeups, migrations, fork,",
	"exec, exit) into kprof.data; latency: per-task scheduling delay; map: the",
	"task on each CPU after every switch; timehist: one line per switch with",
	"wait, delay and run time.  runqlat: the run-queue latency histogram, the time",
	"tasks wait on a run queue from wakeup (or preemption) until they run, kept",
	"in the kernel as BCC's runqlat keeps it: for the whole system (default),",
	"processes (-p) or a command, until Ctrl-C, the command's exit, or count",
	"intervals of interval seconds.  Needs CAP_PERFMON.",
	NULL
};

static volatile sig_atomic_t sched_signal;

static void sched__sighandler(int sig)
{
	sched_signal = sig;
}

/* A positive whole number of @what from @arg, or 0 with a message. */
static unsigned long sched__positive(const char *cmd, const char *what, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !v || v > 86400 * 365) {
		kp_error(cmd, "invalid %s '%s': a positive whole number", what, arg);
		return 0;
	}
	return v;
}


/*
 * One histogram, as runqlat prints it; with @keys (-P, -L) one per process
 * or thread of event @h->event instead, headed "pid = N" / "tid = N".
 */
static void sched__print(const struct kp_hist *h, const struct kp_hist_keys *keys,
			 const char *section, const char *unit, bool timestamp)
{
	uint64_t rows[KP_HIST_ROWS];
	char stamp[16];
	time_t now;
	size_t i;

	if (timestamp) {
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		printf("%-8s\n", stamp);
	}
	if (!keys) {
		kp_hist__unit_rows(h, rows);
		kp_hist__print_rows(stdout, rows, unit);
	}
	for (i = 0; keys && i < keys->nr; i++) {
		struct kp_hist one;

		if (keys->keys[i].event != h->event)
			continue;
		kp_hist_key__hist(&keys->keys[i], &one);
		printf("\n%s = %u\n", section, keys->keys[i].key);
		kp_hist__unit_rows(&one, rows);
		kp_hist__print_rows(stdout, rows, unit);
	}
	if (h->missed)
		fprintf(stderr, "runqlat: %" PRIu64 " waits not timed (two waiting threads "
			"shared a slot of the kernel's table)\n", h->missed);
	if (keys && h->keys_lost)
		fprintf(stderr, "runqlat: %" PRIu64 " waits in no %s's histogram (more than %u "
			"keys on a CPU)\n", h->keys_lost, section, KPROF_RUNQLAT_MAX_KEYS);
	fflush(stdout);
}

/* The running session's run-queue latency event in @hists, or -1. */
static int sched__live_event(const struct kp_hist *hists, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (hists[i].type == KPROF_TYPE_RUNQLAT)
			return i;
	return -1;
}

static int sched_runqlat(int argc, const char **argv, const char *cmd)
{
	struct kp_session_opts opts = { 0 };
	bool msecs = false, usecs = false, timestamp = false, per_pid = false, per_tid = false;
	bool live = false;
	const struct option options[] = {
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]",
			     "the run-queue latency of these existing processes only",
			     kp_session_opts__pid_cb),
		OPT_BOOLEAN('m', "milliseconds", &msecs, "millisecond histogram"),
		OPT_BOOLEAN('u', "microseconds", &usecs, "microsecond histogram (default)"),
		OPT_BOOLEAN('T', "timestamp", &timestamp, "the time of day with each interval"),
		OPT_BOOLEAN('P', "pids", &per_pid, "a histogram per process ID"),
		OPT_BOOLEAN('L', "tids", &per_tid, "a histogram per thread ID"),
		OPT_BOOLEAN(0, "live", &live,
			    "the histograms of the current session (another 'sched runqlat'): now, or each interval"),
		OPT_END()
	};
	unsigned long interval = 0, count = 0, done = 0;
	static struct kp_hist hists[KPROF_MAX_EVENTS];
	struct kp_hist now, prev = { 0 }, delta;
	struct kp_hist_keys keys = { 0 }, prev_keys = { 0 }, delta_keys = { 0 }, *kp = NULL;
	struct kp_hist_run r = { .wl = KP_WORKLOAD_INIT };
	const char *section = "pid";
	struct kp_event *ev;
	struct kp_err err;
	int ret = KP_EXIT_FAILURE;
	const char **command = NULL, *unit;
	int nr_command = 0, event = 0;
	unsigned int nr_hists = 1;
	struct kp_status_info st;
	uint64_t live_id = 0;
	/* [options] [interval [count]] [-- command]: the command is split off first */
	argc = kp_hist_run__split_command(argc, argv, &command, &nr_command);
	argc = parse_options(argc, argv, options, sched_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (msecs && usecs) {
		kp_error(cmd, "options -u/--microseconds and -m/--milliseconds are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	if (per_pid && per_tid) {
		kp_error(cmd, "options -P/--pids and -L/--tids are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	if (live && (opts.nr_pid_args || msecs || usecs || per_pid || per_tid)) {
		kp_error(cmd, "--live reads the running session as it was started: no -p, -m, -u, -P or -L");
		return KP_EXIT_USAGE;
	}
	unit = msecs ? "msecs" : "usecs";
	if (argc > 2) {
		kp_error(cmd, "unexpected argument '%s' (a command goes after --)", argv[2]);
		return KP_EXIT_USAGE;
	}
	if (argc >= 1) {
		interval = sched__positive(cmd, "interval", argv[0]);
		if (!interval)
			return KP_EXIT_USAGE;
	}
	if (argc == 2) {
		count = sched__positive(cmd, "count", argv[1]);
		if (!count)
			return KP_EXIT_USAGE;
	}
	argc = nr_command;
	argv = command;
	if (command && !nr_command) {
		kp_error(cmd, "no command after --");
		return KP_EXIT_USAGE;
	}
	if (live && command) {
		kp_error(cmd, "--live reads the running session: no command");
		return KP_EXIT_USAGE;
	}

	if (kp_hist_run__session(&r, &opts, argc > 0, cmd, &err)) {
		kp_err__print(&err, cmd);
		ret = r.s ? KP_EXIT_USAGE : KP_EXIT_FAILURE;
		goto out;
	}
	r.s->nr_events = 1;
	ev = &r.s->events[0];
	memset(ev, 0, sizeof(*ev));
	ev->type = KPROF_TYPE_RUNQLAT;
	ev->config = msecs ? KPROF_RUNQLAT_MSECS : KPROF_RUNQLAT_USECS;
	if (per_pid || per_tid) {
		ev->config |= per_pid ? KPROF_RUNQLAT_F_PID : KPROF_RUNQLAT_F_TID;
		kp = &keys;
	}
	snprintf(ev->name, sizeof(ev->name), "runqlat");

	r.live = live;
	if (kp_hist_run__start(&r, argc, argv, sched__sighandler,
			       (1 << 16) | (live || kp ? 4 : 3),
			       live ? "histograms of its own kind (--live)" :
			       kp ? "per-process run-queue latency" : "run-queue latency",
			       cmd, &err))
		goto out_err;
	if (live) {
		/* the event and its unit and keys: the running session's */
		nr_hists = KPROF_MAX_EVENTS;
		if (kp_nl__hist_dump(r.nl, hists, nr_hists, NULL, &err))
			goto out_err;
		event = sched__live_event(hists, nr_hists);
		if (event < 0) {
			kp_error(cmd, "the running session has no run-queue latency event (start one with 'kprofctl sched runqlat')");
			ret = KP_EXIT_FAILURE;
			goto out;
		}
		unit = (hists[event].config & KPROF_RUNQLAT_UNIT_MASK) == KPROF_RUNQLAT_MSECS ?
			"msecs" : (hists[event].config & KPROF_RUNQLAT_UNIT_MASK) ==
			KPROF_RUNQLAT_NSECS ? "nsecs" : "usecs";
		if (hists[event].config & (KPROF_RUNQLAT_F_PID | KPROF_RUNQLAT_F_TID))
			kp = &keys;
		per_tid = hists[event].config & KPROF_RUNQLAT_F_TID;
	}
	section = per_tid ? "tid" : "pid";
	if (live && interval) {
		if (kp_nl__status(r.nl, &st, &err))
			goto out_err;
		if (st.state != KPROF_STATE_RUNNING) {
			kp_error(cmd, "the session is stopped: --live without an interval prints what it kept");
			ret = KP_EXIT_FAILURE;
			goto out;
		}
		live_id = st.session_id;
		/* each interval's own counts: from now on */
		if (kp_nl__hist_dump(r.nl, hists, nr_hists, kp ? &prev_keys : NULL, &err))
			goto out_err;
		prev = hists[event];
	}
	if (!argc)
		fprintf(stderr, "Tracing run queue latency... Hit Ctrl-C to end.\n");

	for (;;) {
		/* --live without an interval: the histograms as they are now */
		bool more = live ? interval && kp_hist_run__wait(NULL, interval, &sched_signal) :
			kp_hist_run__wait(&r, interval, &sched_signal);

		if (kp_nl__hist_dump(r.nl, hists, nr_hists, kp, &err))
			goto out_err;
		now = hists[event];
		if (live && interval && (kp_nl__status(r.nl, &st, &err) ||
					 st.state != KPROF_STATE_RUNNING ||
					 st.session_id != live_id || now.type != KPROF_TYPE_RUNQLAT)) {
			kp_error(cmd, "the session is no longer running");
			break;
		}
		if (interval) {
			kp_hist__sub(&delta, &now, &prev);
			prev = now;
			if (kp && kp_hist_keys__sub(&delta_keys, &keys, &prev_keys)) {
				kp_error(cmd, "%s", strerror(ENOMEM));
				goto out;
			}
			if (kp) {
				struct kp_hist_keys t = prev_keys;

				prev_keys = keys;
				keys = t;
			}
			printf("\n");
			sched__print(&delta, kp ? &delta_keys : NULL, section, unit, timestamp);
			if (count && ++done == count)
				break;
		}
		if (!more)
			break;
	}
	if (!interval) {
		printf("\n");
		sched__print(&now, kp, section, unit, timestamp);
	}
	ret = kp_hist_run__stop(&r, &err);
	if (ret < 0)
		goto out_err;
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	kp_hist_run__end(&r);
	kp_hist_keys__exit(&keys);
	kp_hist_keys__exit(&prev_keys);
	kp_hist_keys__exit(&delta_keys);
	free(r.s);
	return ret;
}

/* The tracepoints of 'sched record': what latency, map and timehist read, and more. */
static const char sched_record_events[] =
	"sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_waking,"
	"sched:sched_migrate_task,sched:sched_process_fork,sched:sched_process_exec,"
	"sched:sched_process_exit";

static int sched_record(int argc, const char **argv)
{
	static const char * const pre[] = { "-e", sched_record_events, NULL };
	char help[512];

	snprintf(help, sizeof(help),
		 " Usage: kprofctl sched record [<record options>] [-- <command> [<args>]]\n\n"
		 "    'kprofctl record -e %s' with the options given: -a, -p, -C,\n"
		 "    -g (the stack of each switched-out task), -o, --buffer-size...;\n"
		 "    see 'kprofctl record --help'.  Without -p, -C or a command: -a.\n",
		 sched_record_events);
	return cmd_record_with(argc, argv, pre, help, "sched record");
}

/*
 * The options of an analysis, no argument besides: true to go on, else
 * false with *@code the exit code (--help: KP_EXIT_OK).
 */
static bool sched__parse(int argc, const char **argv, const struct option *options,
			 const char *cmd, int *code)
{
	argc = parse_options(argc, argv, options, sched_usage, 0);
	if (argc < 0) {
		*code = parse_options_exit_code(argc);
		return false;
	}
	*code = KP_EXIT_USAGE;
	return !parse_options_max_args(cmd, argc, argv, 0);
}

enum sched_analysis { SCHED_LATENCY, SCHED_MAP, SCHED_TIMEHIST };

/* Analysis @what with options @o of the recording @input, time-ordered. */
static int sched__analyze(enum sched_analysis what, const void *o, const char *input,
			  struct kp_decode_opts *opts, const char *cmd)
{
	struct kp_decoder d;
	struct kp_err err;
	int ret;

	opts->time_order = true;
	opts->machine.cmd = cmd;
	opts->machine.proc_root = true;
	if (kp_decoder__open(&d, input, opts, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	if (what == SCHED_LATENCY)
		ret = kp_sched__latency(&d, cmd, o, stdout);
	else if (what == SCHED_MAP)
		ret = kp_sched__map(&d, cmd, o, stdout);
	else
		ret = kp_sched__timehist(&d, cmd, o, stdout);
	kp_decoder__close(&d);
	return ret;
}

static int sched_latency(int argc, const char **argv, const char *cmd)
{
	const char *input = KP_DEFAULT_OUTPUT, *sort = "avg,max,switch,runtime";
	struct kp_sched_latency_opts o = { .cpu = -1 };
	struct kp_decode_opts opts = { 0 };
	int cpu = -1, stacks = -1;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		OPT_STRING('s', "sort", &sort, "key[,key2...]",
			   "sort by key(s): pid, avg, max, switch, runtime (default avg,max,switch,runtime)"),
		OPT_BOOLEAN('p', "pids", &o.pids, "per thread, not merged by command name"),
		OPT_INTEGER('C', "CPU", &cpu, "cpu", "only the switches on this CPU"),
		OPT_INTEGER(0, "stacks", &stacks, "n",
			    "the stacks of the n worst delays: the waiting task's and the one that ran"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		OPT_END()
	};
	int ret;

	if (!sched__parse(argc, argv, options, cmd, &ret))
		return ret;
	if (kp_sched__parse_sort(&o, cmd, sort))
		return KP_EXIT_USAGE;
	if (cpu < -1 || cpu >= KP_CPUMAP_MAX_CPUS) {
		kp_error(cmd, "invalid -C/--CPU value %d", cpu);
		return KP_EXIT_USAGE;
	}
	if (stacks == 0 || stacks < -1 || stacks > 10000) {
		kp_error(cmd, "invalid --stacks value %d: 1 to 10000", stacks);
		return KP_EXIT_USAGE;
	}
	o.cpu = cpu;
	o.stacks = stacks > 0 ? stacks : 0;
	opts.max_frames = o.stacks ? 0 : 1;
	opts.machine.no_kernel = !o.stacks;
	return sched__analyze(SCHED_LATENCY, &o, input, &opts, cmd);
}

static int sched_map(int argc, const char **argv, const char *cmd)
{
	const char *input = KP_DEFAULT_OUTPUT;
	struct kp_sched_map_opts o = { 0 };
	struct kp_decode_opts opts = { .max_frames = 1, .machine.no_kernel = true };
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		OPT_BOOLEAN(0, "compact", &o.compact, "columns only for the CPUs that switched"),
		OPT_STRING(0, "cpus", &o.cpus, "cpus", "columns of these CPUs only, e.g. 0,2-3"),
		OPT_END()
	};
	int ret;

	if (!sched__parse(argc, argv, options, cmd, &ret))
		return ret;
	return sched__analyze(SCHED_MAP, &o, input, &opts, cmd);
}

static int sched_timehist(int argc, const char **argv, const char *cmd)
{
	const char *input = KP_DEFAULT_OUTPUT;
	struct kp_sched_timehist_opts o = { .max_stack = 5 };
	struct kp_decode_opts opts = { 0 };
	int max_stack = 5;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		OPT_BOOLEAN('w', "wakeups", &o.wakeups, "show wakeup events"),
		OPT_BOOLEAN('M', "migrations", &o.migrations, "show migration events"),
		OPT_BOOLEAN('n', "next", &o.next, "show the next task"),
		OPT_BOOLEAN(0, "state", &o.state, "show the task state at switch-out"),
		OPT_BOOLEAN('s', "summary", &o.summary_only, "only the runtime summary"),
		OPT_BOOLEAN('S', "with-summary", &o.with_summary, "the lines and the summary"),
		OPT_BOOLEAN('V', "cpu-visual", &o.cpu_visual, "a column per CPU"),
		OPT_BOOLEAN('G', "no-call-graph", &o.no_callchain, "no call chains on the lines"),
		OPT_INTEGER(0, "max-stack", &max_stack, "n", "frames of a call chain to show (default 5)"),
		OPT_STRING('p', "pid", &o.pids, "pid[,pid...]", "only these processes"),
		OPT_STRING('t', "tid", &o.tids, "tid[,tid...]", "only these threads"),
		OPT_STRING('C', "cpu", &o.cpus, "cpu", "only these CPUs, e.g. 0,2-3"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		OPT_END()
	};
	int ret;

	if (!sched__parse(argc, argv, options, cmd, &ret))
		return ret;
	if (max_stack < 1 || max_stack > 512) {
		kp_error(cmd, "invalid --max-stack value %d: 1 to 512", max_stack);
		return KP_EXIT_USAGE;
	}
	if (o.summary_only && o.with_summary) {
		kp_error(cmd, "options -s/--summary and -S/--with-summary are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	o.max_stack = max_stack;
	opts.max_frames = o.no_callchain ? 1 : max_stack + 3;
	opts.machine.no_kernel = o.no_callchain || o.summary_only;
	return sched__analyze(SCHED_TIMEHIST, &o, input, &opts, cmd);
}

/* The subcommands, for shell completion (kprofctl sched --list-cmds). */
static const char * const sched_cmds[] = {
	"record", "latency", "map", "timehist", "runqlat", NULL
};

int cmd_sched(int argc, const char **argv)
{
	const char *cmd = argv[0];
	int i;

	static const struct option none[] = { OPT_END() };

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_with_options(argc < 2 ? stderr : stdout, sched_usage, none);
		return argc < 2 ? KP_EXIT_USAGE : KP_EXIT_OK;
	}
	/* Hidden, as kprofctl --list-cmds and CMD --list-opts are. */
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; sched_cmds[i]; i++)
			puts(sched_cmds[i]);
		return KP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--list-opts")) {
		list_options(stdout, none);
		return KP_EXIT_OK;
	}
	if (!strcmp(argv[1], "runqlat"))
		return sched_runqlat(argc - 1, argv + 1, "sched runqlat");
	if (!strcmp(argv[1], "record"))
		return sched_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "latency") || !strcmp(argv[1], "lat"))
		return sched_latency(argc - 1, argv + 1, "sched latency");
	if (!strcmp(argv[1], "map"))
		return sched_map(argc - 1, argv + 1, "sched map");
	if (!strcmp(argv[1], "timehist"))
		return sched_timehist(argc - 1, argv + 1, "sched timehist");
	kp_error(cmd, "unknown sched command '%s' (record, latency, map, timehist, runqlat)",
		 argv[1]);
	return KP_EXIT_USAGE;
}
