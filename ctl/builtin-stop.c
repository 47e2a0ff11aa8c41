// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl stop [-o <file>] [--timeout <seconds>]
 *
 * STOP the session; when 'kprofctl start' left a drainer, tell it (SIGTERM)
 * and wait, bounded, for it to finish the file, then print the summary of
 * the file, as 'kprofctl record' does.  For an aggregating session, print
 * the aggregate balance and, with -o, read its tables (they stay readable
 * after STOP until saved or the next START) into an aggregated kprof.data
 * (agg.h), then tell the module it may free them (FREE, ABI 1.12).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/recorder.h"
#include "lib/rundir.h"
#include "lib/util.h"

static const char * const stop_usage[] = {
	"kprofctl stop [--id <id> | --all] [-o <file>] [--timeout <seconds>]",
	"",
	"Stop the running session, or with --id the session with that id (as",
	"'kprofctl status' lists them; needed while several run: without it,",
	"stop then lists them), or with --all every running session.  When it was",
	"started by 'kprofctl start' with a stream, wait for its drainer to",
	"finish the file (at most --timeout seconds, default 30) and print the",
	"summary.  For an aggregating session, print its balance; with -o, save",
	"its aggregated profile to <file> for 'kprofctl report -i <file>' and the",
	"other offline commands (a session already stopped is saved too), then",
	"free its tables; without -o they stay in the kernel until saved or the",
	"next session starts.  Needs CAP_PERFMON or CAP_SYS_ADMIN; another user's",
	"session, CAP_SYS_ADMIN.",
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
	char rec[96];

	fprintf(stderr, "[ kprof stop: session %" PRIu64 " stopped: %" PRIu64 " samples, %" PRIu64
		" lost (%" PRIu64 " buffer full, %" PRIu64 " too big%s) ]\n", stop->session_id,
		t->v[KP_STAT_SAMPLES], kp_stats__lost(t), t->v[KP_STAT_LOST_FULL],
		t->v[KP_STAT_LOST_TOO_BIG], kp_fmt_lost_tail(t->lost_recursion, t->lost_cost, rec, sizeof(rec)));
	fprintf(stderr, "[ kprof stop: Balance: %" PRIu64 " invocations = %" PRIu64 " stored + %"
		PRIu64 " lost: %s ]\n", t->v[KP_STAT_INVOCATIONS], t->v[KP_STAT_SAMPLES],
		kp_stats__lost(t), kp_stats__balanced(t) ? "ok" : "MISMATCH");
}

/*
 * The aggregate counters of @stop: "[ kprof stop: ... ]" lines; with @kept,
 * where its unsaved tables stay.
 */
static bool print_agg_totals(const struct kp_stop_info *stop, bool kept)
{
	const struct kp_stats *t = &stop->stats;
	bool ok = kp_stats__agg_balanced(t);
	char rec[96];

	if (!t->has_agg) {
		fprintf(stderr, "[ kprof stop: session %" PRIu64 " stopped: no aggregation counters from kprof.ko ]\n",
			stop->session_id);
		return false;
	}
	fprintf(stderr, "[ kprof stop: session %" PRIu64 " stopped: %" PRIu64 " samples aggregated, %"
		PRIu64 " lost (%" PRIu64 " table full, %" PRIu64 " during reset%s), %" PRIu64
		" of %" PRIu64 " entries used ]\n", stop->session_id, t->agg[KP_AGG_STAT_SAMPLES],
		kp_stats__agg_lost(t), t->agg[KP_AGG_STAT_LOST_FULL],
		t->agg[KP_AGG_STAT_LOST_RESET], kp_fmt_lost_tail(t->lost_recursion, t->lost_cost, rec, sizeof(rec)),
		t->agg[KP_AGG_STAT_USED],
		t->agg[KP_AGG_STAT_CAPACITY]);
	fprintf(stderr, "[ kprof stop: Aggregate balance: %" PRIu64 " invocations = %" PRIu64
		" aggregated + %" PRIu64 " lost: %s ]\n", t->v[KP_STAT_INVOCATIONS],
		t->agg[KP_AGG_STAT_SAMPLES], kp_stats__agg_lost(t), ok ? "ok" : "MISMATCH");
	if (kept)
		fprintf(stderr, "[ kprof stop: its tables stay in the kernel until 'kprofctl stop --id %" PRIu64
			" -o FILE' saves them or the next session starts ]\n", stop->session_id);
	return ok;
}

/*
 * Save the tables of the socket's session (kp_nl__set_session()) to
 * @output; once the file is in place, a module of ABI 1.12 or later may
 * free the stopped session: its memory goes back to the kernel.  A
 * session read in intervals (@flags) is saved as its last interval: a swap
 * after the stop closes it, so that the file starts where the last
 * 'kprofctl rotate' ended.
 */
static int save_profile(struct kp_nl *nl, const struct kp_version_info *ver, const char *cmd,
			const char *output, const struct kp_stats *totals, uint32_t flags,
			struct kp_err *err)
{
	struct kp_agg_save_opts o = { .cmd = cmd, .totals = totals };
	struct kp_agg_interval iv;
	struct kp_agg_summary sum;
	struct kp_err free_err;
	int ret;

	if (flags & KPROF_SESSION_F_INTERVALS) {
		ret = kp_nl__agg_swap(nl, &iv, err);
		if (ret)
			return ret;
		o.interval = &iv;
	}
	ret = kp_agg__save_profile(nl, output, &o, &sum, err);
	if (ret)
		return ret;
	if (KPROF_ABI_VERSION_MINOR(ver->abi) >= 12 && kp_nl__free(nl, &free_err))
		kp_error(cmd, "warning: session %" PRIu64 " was saved but not freed: %s",
			 kp_nl__session(nl), free_err.msg);
	kp_agg_summary__print(&sum, "stop", output, NULL);
	return 0;
}

/* Up to this many sessions are listed or stopped at once. */
#define STOP_SESSIONS_MAX	KP_STATUS_SESSIONS_MAX

/* The running sessions, in @err's message: a STOP without --id was ambiguous. */
static void name_running(struct kp_nl *nl, struct kp_err *err)
{
	char list[KP_ERR_MSG_MAX - 96];
	struct kp_session_row *rows;
	struct kp_err list_err;
	unsigned int nr, n;

	rows = calloc(STOP_SESSIONS_MAX, sizeof(*rows));
	if (!rows || kp_nl__sessions(nl, rows, STOP_SESSIONS_MAX, &nr, &list_err)) {
		free(rows);
		return;
	}
	n = kp_session_rows__list(rows, nr < STOP_SESSIONS_MAX ? nr : STOP_SESSIONS_MAX, true,
				  true, list, sizeof(list));
	free(rows);
	if (n > 1)
		kp_err__set(err, EINVAL,
			    "%u sessions run: %s; name one with --id N, or stop them all with --all",
			    n, list);
}

/* The live drainer of session @id, from the run directory: true with @d set. */
static bool find_drainer(uint64_t id, struct kp_drainer_info *d)
{
	struct kp_err err;

	if (kp_rundir__read(id, d, &err))
		return false;
	if (kp_pid_alive(d->pid))
		return true;
	/* Left by a drainer that died: forget it. */
	kp_rundir__remove(id, d->pid);
	return false;
}

/* --all: stop every running session, each with its totals.  An exit code. */
static int stop_all(const char *cmd, struct kp_nl *nl, const struct kp_version_info *ver,
		    struct kp_err *err)
{
	struct kp_session_row *rows;
	struct kp_stop_info stop;
	unsigned int nr, i, stopped = 0;
	int ret = KP_EXIT_OK;

	if (KPROF_ABI_VERSION_MINOR(ver->abi) < 10) {
		kp_err__set(err, EOPNOTSUPP, "--all: kprof.ko %s has one session at a time (ABI %u.%u, --all needs 1.10); 'kprofctl stop' stops it",
			    ver->release, KPROF_ABI_VERSION_MAJOR(ver->abi),
			    KPROF_ABI_VERSION_MINOR(ver->abi));
		return KP_EXIT_FAILURE;
	}
	rows = calloc(STOP_SESSIONS_MAX, sizeof(*rows));
	if (!rows) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return KP_EXIT_FAILURE;
	}
	if (kp_nl__sessions(nl, rows, STOP_SESSIONS_MAX, &nr, err)) {
		free(rows);
		return KP_EXIT_FAILURE;
	}
	kp_err__clear(err);
	for (i = 0; i < nr && i < STOP_SESSIONS_MAX; i++) {
		struct kp_err one;

		if (rows[i].state != KPROF_STATE_RUNNING)
			continue;
		kp_nl__set_session(nl, rows[i].id);
		if (kp_nl__stop(nl, &stop, &one)) {
			/* ended meanwhile (ENOENT) is no failure */
			if (one.errnum != ENOENT) {
				kp_err__print(&one, cmd);
				ret = KP_EXIT_FAILURE;
			}
			continue;
		}
		stopped++;
		if (!(rows[i].flags & KPROF_SESSION_F_AGGREGATE) ||
		    (rows[i].flags & KPROF_SESSION_F_STREAM)) {
			print_totals(&stop);
			if (!kp_stats__balanced(&stop.stats))
				ret = KP_EXIT_FAILURE;
		}
		if ((rows[i].flags & KPROF_SESSION_F_AGGREGATE) && !print_agg_totals(&stop, !(rows[i].flags & KPROF_SESSION_F_OWNED)))
			ret = KP_EXIT_FAILURE;
	}
	free(rows);
	if (!stopped && ret == KP_EXIT_OK) {
		kp_err__set(err, ENOENT, "no session is running");
		return KP_EXIT_FAILURE;
	}
	return ret;
}

int cmd_stop(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = NULL;
	unsigned int timeout = 30;
	uint64_t id = 0;
	bool all = false;
	const struct option options[] = {
		OPT_U64(0, "id", &id, "id", "the session to stop (kprofctl status lists them)"),
		OPT_BOOLEAN(0, "all", &all, "stop every running session"),
		OPT_STRING('o', "output", &output, "file",
			   "save the aggregated profile of an aggregating session"),
		OPT_UINTEGER(0, "timeout", &timeout, "seconds",
			     "how long to wait for the drainer (default 30)"),
		OPT_END()
	};
	struct kp_version_info ver;
	struct kp_drainer_info d;
	struct kp_status_info st;
	struct kp_stop_info stop;
	struct kp_summary sum;
	struct kp_err err;
	struct kp_nl *nl;
	bool drainer, agg, stream, kept, ok = true;
	int ret = KP_EXIT_FAILURE;

	argc = parse_options(argc, argv, options, stop_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__hello(nl, &ver, &err))
		goto out_err;
	if (id && KPROF_ABI_VERSION_MINOR(ver.abi) < 10) {
		kp_err__set(&err, EOPNOTSUPP, "--id %" PRIu64 ": kprof.ko %s has one session at a time (ABI %u.%u, --id needs 1.10)",
			    id, ver.release, KPROF_ABI_VERSION_MAJOR(ver.abi),
			    KPROF_ABI_VERSION_MINOR(ver.abi));
		goto out_err;
	}
	if (all && (id || output)) {
		kp_err__set(&err, EINVAL, "--all stops every session: not with %s",
			    id ? "--id" : "-o/--output");
		goto out_err;
	}
	if (all) {
		ret = stop_all(cmd, nl, &ver, &err);
		if (ret == KP_EXIT_FAILURE && err.errnum)
			goto out_err;
		goto out;
	}
	kp_nl__set_session(nl, id);	/* status, stop and the save name it */
	if (kp_nl__status(nl, &st, &err))
		goto out_err;
	drainer = st.has_session && find_drainer(st.session_id, &d);
	agg = st.has_session && (st.session_flags & KPROF_SESSION_F_AGGREGATE);
	stream = !agg || (st.session_flags & KPROF_SESSION_F_STREAM);
	/* a detached session's tables, unsaved, stay in the kernel */
	kept = agg && !output && !(st.session_flags & KPROF_SESSION_F_OWNED);
	if (output && st.has_session && st.state != KPROF_STATE_IDLE && !agg) {
		kp_err__set(&err, EINVAL,
			    "-o/--output '%s': session %" PRIu64 " does not aggregate (mode stream)%s",
			    output, st.session_id,
			    drainer ? "; its drainer writes its file" : "");
		goto out_err;
	}
	if (output && drainer && !strcmp(output, d.output)) {
		kp_err__set(&err, EINVAL, "-o/--output '%s' is the drainer's file", output);
		goto out_err;
	}

	if (kp_nl__stop(nl, &stop, &err)) {
		if (err.errnum == EINVAL && !id && KPROF_ABI_VERSION_MINOR(ver.abi) >= 10)
			name_running(nl, &err);
		if (err.errnum != ENOENT)
			goto out_err;
		/* Stopped already: its tables can still be saved. */
		if (!output || !agg || st.state != KPROF_STATE_STOPPED) {
			kp_err__set(&err, ENOENT, "no session is running");
			goto out_err;
		}
		kp_nl__set_session(nl, st.session_id);
		if (save_profile(nl, &ver, cmd, output, NULL, st.session_flags, &err))
			goto out_err;
		ret = KP_EXIT_OK;
		goto out;
	}
	if (stop.session_id != st.session_id)	/* another one ran by then */
		drainer = find_drainer(stop.session_id, &d);
	if (!drainer) {
		if (stream) {
			print_totals(&stop);
			ok = kp_stats__balanced(&stop.stats);
		}
		if (agg && !print_agg_totals(&stop, kept))
			ok = false;
		if (output && agg && save_profile(nl, &ver, cmd, output, &stop.stats,
						  st.session_flags, &err))
			goto out_err;
		ret = ok ? KP_EXIT_OK : KP_EXIT_FAILURE;
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
	ok = kp_summary__print(&sum, stderr);
	if (agg && !print_agg_totals(&stop, kept))
		ok = false;
	if (output && agg && save_profile(nl, &ver, cmd, output, &stop.stats, st.session_flags,
					  &err))
		goto out_err;
	ret = ok ? KP_EXIT_OK : KP_EXIT_FAILURE;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	kp_nl__delete(nl);
	return ret;
}
