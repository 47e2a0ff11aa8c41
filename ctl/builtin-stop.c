// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl stop [--timeout <seconds>]
 *
 * STOP the session; when 'kprofctl start' left a drainer, tell it (SIGTERM)
 * and wait, bounded, for it to finish the file, then print the summary of
 * the file, as 'kprofctl record' does.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/recorder.h"
#include "lib/rundir.h"
#include "lib/util.h"

static const char * const stop_usage[] = {
	"kprofctl stop [--timeout <seconds>]",
	"",
	"Stop the running session.  When it was started by 'kprofctl start', wait",
	"for its drainer to finish the file (at most --timeout seconds, default",
	"30) and print the summary.  Needs CAP_PERFMON or CAP_SYS_ADMIN.",
	NULL
};

/* How long to sleep between checks of the drainer, in ms. */
static const unsigned int kp_stop_poll_ms = 50;

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Wait for @pid to exit; false after @timeout_s seconds. */
static bool wait_drainer(const char *cmd, const struct kp_drainer_info *d,
			 unsigned int timeout_s)
{
	unsigned int waited = 0;
	bool told = false;

	while (kp_pid_alive(d->pid)) {
		if (waited >= timeout_s * 1000)
			return false;
		if (!told && waited >= 1000) {
			kp_error(cmd, "waiting for the drainer (pid %d) to finish %s ...",
				 (int)d->pid, d->output);
			told = true;
		}
		sleep_ms(kp_stop_poll_ms);
		waited += kp_stop_poll_ms;
	}
	return true;
}

static void print_totals(const struct kp_stop_info *stop)
{
	const struct kp_stats *t = &stop->stats;

	fprintf(stderr, "[ kprof stop: session %" PRIu64 " stopped: %" PRIu64 " samples, %" PRIu64
		" lost (%" PRIu64 " buffer full, %" PRIu64 " too big) ]\n", stop->session_id,
		t->v[KP_STAT_SAMPLES], t->v[KP_STAT_LOST_FULL] + t->v[KP_STAT_LOST_TOO_BIG],
		t->v[KP_STAT_LOST_FULL], t->v[KP_STAT_LOST_TOO_BIG]);
	fprintf(stderr, "[ kprof stop: Balance: %" PRIu64 " invocations = %" PRIu64 " stored + %"
		PRIu64 " lost: %s ]\n", t->v[KP_STAT_INVOCATIONS], t->v[KP_STAT_SAMPLES],
		t->v[KP_STAT_LOST_FULL] + t->v[KP_STAT_LOST_TOO_BIG],
		kp_stats__balanced(t) ? "ok" : "MISMATCH");
}

int cmd_stop(int argc, const char **argv)
{
	const char *cmd = argv[0];
	unsigned int timeout = 30;
	const struct option options[] = {
		OPT_UINTEGER(0, "timeout", &timeout, "seconds",
			     "how long to wait for the drainer (default 30)"),
		OPT_END()
	};
	struct kp_version_info ver;
	struct kp_drainer_info d;
	struct kp_stop_info stop;
	struct kp_summary sum;
	struct kp_err err;
	struct kp_nl *nl;
	bool drainer;
	int ret = KP_EXIT_FAILURE;

	argc = parse_options(argc, argv, options, stop_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__hello(nl, &ver, &err))
		goto out_err;
	drainer = !kp_rundir__read(&d, &err);
	if (drainer && !kp_pid_alive(d.pid)) {
		/* Left by a drainer that died: forget it. */
		kp_rundir__remove(d.pid);
		drainer = false;
	}

	if (kp_nl__stop(nl, &stop, &err)) {
		if (err.errnum == ENOENT)
			kp_err__set(&err, ENOENT, "no session is running");
		goto out_err;
	}
	if (!drainer || d.session_id != stop.session_id) {
		print_totals(&stop);
		ret = kp_stats__balanced(&stop.stats) ? KP_EXIT_OK : KP_EXIT_FAILURE;
		goto out;
	}

	/* The drainer sees the stop by itself; the signal only hurries it. */
	kill(d.pid, SIGTERM);
	if (!wait_drainer(cmd, &d, timeout)) {
		kp_err__set(&err, ETIMEDOUT, "the drainer (pid %d) did not finish %s within %u s",
			    (int)d.pid, d.output, timeout);
		goto out_err;
	}
	if (kp_summary__from_file(&sum, d.output, &err))
		goto out_err;
	if (!sum.finished) {
		kp_err__set(&err, EIO, "the drainer (pid %d) exited without finishing %s",
			    (int)d.pid, d.output);
		goto out_err;
	}
	ret = kp_summary__print(&sum, stderr) ? KP_EXIT_OK : KP_EXIT_FAILURE;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	kp_nl__delete(nl);
	return ret;
}
