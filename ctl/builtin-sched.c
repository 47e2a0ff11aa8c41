// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl sched runqlat [<options>] [interval [count]] [-- <command>]
 *
 * BCC's runqlat on kprof: START a session with a KPROF_TYPE_RUNQLAT event
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
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "lib/workload.h"

static const char * const sched_usage[] = {
	"kprofctl sched runqlat [<options>] [interval [count]] [-- <command> [<args>]]",
	"",
	"Scheduler analysis.  runqlat: the run-queue latency histogram, the time",
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

/* Sleep @secs seconds, or until a signal or the end of the target. */
static bool sched__wait(unsigned long secs, const struct kp_session *s, enum kp_target target,
			struct kp_workload *wl)
{
	struct timespec nap = { 0, 100000000 };
	unsigned long ticks = secs * 10, i;

	for (i = 0; !secs || i < ticks; i++) {
		if (sched_signal)
			return false;
		nanosleep(&nap, NULL);
		if (target == KP_TARGET_COMMAND && kp_workload__reap(wl, false))
			return false;
		if (target == KP_TARGET_PIDS && !kp_sys__any_pid_exists(s->pids, s->nr_pids))
			return false;
	}
	return true;
}

static void sched__print(const struct kp_hist *h, const char *unit, bool timestamp)
{
	uint64_t rows[KP_HIST_ROWS];
	char stamp[16];
	time_t now;

	if (timestamp) {
		now = time(NULL);
		strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
		printf("%-8s\n", stamp);
	}
	kp_hist__unit_rows(h, rows);
	kp_hist__print_rows(stdout, rows, unit);
	if (h->missed)
		fprintf(stderr, "runqlat: %" PRIu64 " waits not timed (two waiting threads "
			"shared a slot of the kernel's table)\n", h->missed);
	fflush(stdout);
}

static int sched_runqlat(int argc, const char **argv, const char *cmd)
{
	struct kp_session_opts opts = { 0 };
	bool msecs = false, usecs = false, timestamp = false;
	const struct option options[] = {
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]",
			     "the run-queue latency of these existing processes only",
			     kp_session_opts__pid_cb),
		OPT_BOOLEAN('m', "milliseconds", &msecs, "millisecond histogram"),
		OPT_BOOLEAN('u', "microseconds", &usecs, "microsecond histogram (default)"),
		OPT_BOOLEAN('T', "timestamp", &timestamp, "the time of day with each interval"),
		OPT_END()
	};
	unsigned long interval = 0, count = 0, done = 0;
	struct kp_hist now, prev = { 0 }, delta;
	struct kp_hist_run r = { .wl = KP_WORKLOAD_INIT };
	struct kp_event *ev;
	struct kp_err err;
	int ret = KP_EXIT_FAILURE;
	const char **command = NULL, *unit;
	int i, nr_command = 0;

	/* [options] [interval [count]] [-- command]: the command is split off first */
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			command = argv + i + 1;
			nr_command = argc - i - 1;
			argv[i] = NULL;
			argc = i;
			break;
		}
	}
	argc = parse_options(argc, argv, options, sched_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (msecs && usecs) {
		kp_error(cmd, "options -u/--microseconds and -m/--milliseconds are mutually exclusive");
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

	r.s = calloc(1, sizeof(*r.s));
	if (!r.s) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		return KP_EXIT_FAILURE;
	}
	/* Only the target of the session options: the event is ours. */
	opts.events[0] = "cpu-clock";
	opts.nr_event_args = 1;
	opts.buffer_size = "8K";
	if (kp_session__from_opts(r.s, &r.target, &opts, argc > 0, true, cmd, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_USAGE;
		goto out;
	}
	r.s->flags &= ~(KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK);
	r.s->nr_events = 1;
	ev = &r.s->events[0];
	memset(ev, 0, sizeof(*ev));
	ev->type = KPROF_TYPE_RUNQLAT;
	ev->config = msecs ? KPROF_RUNQLAT_MSECS : KPROF_RUNQLAT_USECS;
	snprintf(ev->name, sizeof(ev->name), "runqlat");

	if (kp_hist_run__start(&r, argc, argv, sched__sighandler, (1 << 16) | 3,
			       "run-queue latency", cmd, &err))
		goto out_err;
	if (!argc)
		fprintf(stderr, "Tracing run queue latency... Hit Ctrl-C to end.\n");

	for (;;) {
		bool more = sched__wait(interval, r.s, r.target, &r.wl);

		if (kp_nl__hist_dump(r.nl, &now, 1, &err))
			goto out_err;
		if (interval) {
			kp_hist__sub(&delta, &now, &prev);
			prev = now;
			printf("\n");
			sched__print(&delta, unit, timestamp);
			if (count && ++done == count)
				break;
		}
		if (!more)
			break;
	}
	if (!interval) {
		printf("\n");
		sched__print(&now, unit, timestamp);
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
	free(r.s);
	return ret;
}

int cmd_sched(int argc, const char **argv)
{
	const char *cmd = argv[0];

	static const struct option none[] = { OPT_END() };

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_with_options(argc < 2 ? stderr : stdout, sched_usage, none);
		return argc < 2 ? KP_EXIT_USAGE : KP_EXIT_OK;
	}
	if (!strcmp(argv[1], "runqlat"))
		return sched_runqlat(argc - 1, argv + 1, "sched runqlat");
	kp_error(cmd, "unknown sched command '%s' (runqlat)", argv[1]);
	return KP_EXIT_USAGE;
}
