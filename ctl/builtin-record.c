// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl record [<options>] [-- <command> [<args>]]
 *
 * perf record's model: with a command, fork it stopped (it waits on a pipe
 * before execvp()), START a session on its PID with F_INHERIT, map the
 * buffers, synthesize the side-band, then let it run and drain the buffers
 * into the file until it exits; STOP, drain the rest, finish the file,
 * print the summary and exit with the command's status.  Without a command,
 * record until SIGINT or SIGTERM (or until the -p processes are gone).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/recorder.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "lib/workload.h"

static const char * const record_usage[] = {
	"kprofctl record [<options>] [-- <command> [<args>]]",
	"",
	"Sample a command, some processes (-p) or the whole system (-a, -C, or no",
	"command) into kprof.data, as 'perf record' does: with a command, until it",
	"exits, with its exit status; otherwise until SIGINT (Ctrl-C) or SIGTERM.",
	"Needs CAP_PERFMON or CAP_SYS_ADMIN.",
	NULL
};

static volatile sig_atomic_t record_signal;
static volatile sig_atomic_t record_sigchld;
static volatile sig_atomic_t record_switch;

static void record__sighandler(int sig)
{
	if (sig == SIGCHLD)
		record_sigchld = 1;
	else if (sig == SIGUSR2)
		record_switch = 1;
	else
		record_signal = sig;
}

struct record_signals {
	struct sigaction	old_int, old_term, old_chld, old_usr2;
	bool			usr2;
};

/*
 * --switch-output[=signal|SIZE|TIME], perf's grammar: "signal" (the
 * default) switches on SIGUSR2 only; SIZE takes a B, K, M or G suffix,
 * TIME an s, m, h or d one (case matters: 5M is bytes, 5m minutes).
 * SIGUSR2 switches in every mode.
 */
static int record__switch_output_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_switch_output *sw = opt->value;
	size_t len = arg ? strlen(arg) : 0;
	uint64_t v;
	char num[32];
	int ret;

	sw->enabled = !unset;
	sw->size = 0;
	sw->time_ns = 0;
	if (unset || !arg || !strcmp(arg, "signal"))
		return 0;
	if (!len || len >= sizeof(num))
		return -EINVAL;
	if (strchr("BKMG", arg[len - 1])) {
		memcpy(num, arg, len + 1);
		if (num[len - 1] == 'B')
			num[len - 1] = '\0';
		ret = kp_parse_size(num, &v);
		if (ret)
			return ret;
		if (!v)
			return -EINVAL;
		sw->size = v;
		return 0;
	}
	if (!strchr("smhd", arg[len - 1]))
		return -EINVAL;
	ret = kp_parse_duration_ms(arg, &v);
	if (ret)
		return ret;
	if (!v || v > UINT64_MAX / 1000000)
		return v ? -ERANGE : -EINVAL;
	sw->time_ns = v * 1000000;
	return 0;
}

static void record__signals_install(struct record_signals *rs)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = record__sighandler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: poll() returns on a signal. */
	sigaction(SIGINT, &sa, &rs->old_int);
	sigaction(SIGTERM, &sa, &rs->old_term);
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, &rs->old_chld);
	if (rs->usr2) {
		sa.sa_flags = 0;
		sigaction(SIGUSR2, &sa, &rs->old_usr2);
	}
}

static void record__signals_restore(struct record_signals *rs)
{
	sigaction(SIGINT, &rs->old_int, NULL);
	sigaction(SIGTERM, &rs->old_term, NULL);
	sigaction(SIGCHLD, &rs->old_chld, NULL);
	if (rs->usr2)
		sigaction(SIGUSR2, &rs->old_usr2, NULL);
}

struct record_state {
	struct kp_workload	wl;
	bool			has_command;
	uint64_t		last_pid_check;
};

static bool record__done(struct kp_recorder *r, void *arg)
{
	struct record_state *st = arg;
	uint64_t now;

	if (st->has_command) {
		record_sigchld = 0;
		return kp_workload__reap(&st->wl, false);
	}
	if (r->target != KP_TARGET_PIDS)
		return false;
	now = kp_clock_ns();
	if (now - st->last_pid_check < 1000000000ULL)
		return false;
	st->last_pid_check = now;
	if (kp_sys__any_pid_exists(r->session.pids, r->session.nr_pids))
		return false;
	kp_error(r->cmd, "the profiled processes have exited");
	return true;
}

/* "kprofctl record -g -- ls -l" into @buf, cut to fit. */
void kp_join_cmdline(char *buf, size_t len, int argc, const char **argv)
{
	size_t pos;
	int i, n;

	snprintf(buf, len, "kprofctl");
	pos = strlen(buf);
	for (i = 0; i < argc && pos < len; i++) {
		n = snprintf(buf + pos, len - pos, " %s", argv[i]);
		if (n < 0)
			break;
		pos += n;
	}
}

int cmd_record(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_session_opts opts = { 0 };
	struct kp_recorder r = { .cmd = cmd };
	bool quiet = false;
	const struct option options[] = {
		KP_SESSION_OPTIONS(&opts),
		OPT_CALLBACK_OPTARG(0, "switch-output", &r.sw, "signal|size|time",
				    "end the file and go on in OUTPUT.<timestamp>: on SIGUSR2 (the default), every size (e.g. 100M) or time (e.g. 30s, 5m)",
				    record__switch_output_cb),
		OPT_UINTEGER(0, "switch-max-files", &r.sw.max_files, "n",
			     "with --switch-output: keep the newest n files, deleting older ones"),
		OPT_BOOLEAN('B', "no-buildid", &r.no_buildid,
			    "no build-ids of the files the samples hit (nor their cache entries)"),
		OPT_BOOLEAN('N', "no-buildid-cache", &r.no_buildid_cache,
			    "build-ids in the file, but do not add the files to the build-id cache"),
		OPT_STRING(0, "buildid-dir", &r.buildid_dir, "dir",
			   "the build-id cache (default $KPROF_BUILDID_DIR or ~/.kprof/buildid)"),
		OPT_BOOLEAN('q', "quiet", &quiet,
			    "no summary lines at the end, as perf's -q (the exit status still says whether the balance holds)"),
		OPT_END()
	};
	FILE *summary = NULL;
	struct record_state st = { .wl = KP_WORKLOAD_INIT };
	struct record_signals sigs = { 0 };
	struct stat sb;
	struct kp_err err, finish_err;
	bool signals = false;
	int ret = KP_EXIT_FAILURE;

	memset(&r.rings, 0, sizeof(r.rings));
	r.rings.fd = -1;
	kp_join_cmdline(r.cmdline, sizeof(r.cmdline), argc, argv);

	argc = parse_options(argc, argv, options, record_usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (argc < 0)
		return parse_options_exit_code(argc);
	st.has_command = argc > 0;
	if (r.sw.max_files && !r.sw.enabled) {
		kp_error(cmd, "--switch-max-files %u needs --switch-output", r.sw.max_files);
		return KP_EXIT_USAGE;
	}
	if (r.sw.enabled && opts.output && !stat(opts.output, &sb) && !S_ISREG(sb.st_mode)) {
		kp_error(cmd, "--switch-output: '%s' is not a regular file", opts.output);
		return KP_EXIT_USAGE;
	}

	if (kp_session__from_opts(&r.session, &r.target, &opts, st.has_command,
				  kp_sys__has_hw_pmu(), cmd, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	r.output = opts.output ? opts.output : KP_DEFAULT_OUTPUT;
	r.sw.signal = r.sw.enabled ? &record_switch : NULL;
	sigs.usr2 = r.sw.enabled;
	r.verbose = opts.verbose;
	r.progress = isatty(STDERR_FILENO);
	r.owned = true;

	r.nl = kp_nl__open(&err);
	if (!r.nl || kp_nl__hello(r.nl, &r.ver, &err))
		goto out_err;

	if (st.has_command) {
		if (kp_workload__prepare(&st.wl, argv, NULL, &err))
			goto out_err;
		if (r.target == KP_TARGET_COMMAND) {
			r.session.pids[0] = st.wl.pid;
			r.session.nr_pids = 1;
		}
	}

	record_signal = 0;
	record_sigchld = 0;
	record_switch = 0;
	record__signals_install(&sigs);
	signals = true;

	if (kp_recorder__start(&r, &err))
		goto out_err;
	if (r.verbose)
		kp_error(cmd, "session %llu started", (unsigned long long)r.start.session_id);

	if (st.has_command && kp_workload__start(&st.wl, &err)) {
		kp_recorder__finish(&r, &finish_err);
		kp_err__print(&err, cmd);
		ret = 127;
		goto out;
	}

	/*
	 * Woken by the watermark, by SIGCHLD when the command ends and by the
	 * other signals; the timeout only paces the progress line and the
	 * check that the session still runs, once a second (and the switches
	 * of --switch-output, sooner: poll_timeout()).  Each wake-up costs
	 * the profiled CPUs a context switch and a drain.
	 */
	if (kp_recorder__loop(&r, &record_signal, record__done, &st, 1000, &err))
		goto out_err;
	if (record_signal && r.verbose)
		kp_error(cmd, "stopping on signal %d", (int)record_signal);
	if (kp_recorder__finish(&r, &err))
		goto out_err;

	if (st.has_command && !kp_workload__reap(&st.wl, false)) {
		/* Interrupted: end the command as perf does. */
		kp_workload__abort(&st.wl, SIGTERM);
	}
	if (quiet)
		summary = fopen("/dev/null", "we");
	ret = kp_summary__print(&r.sum, summary ? summary : stderr) ? KP_EXIT_OK : KP_EXIT_FAILURE;
	if (summary)
		fclose(summary);
	if (st.has_command && st.wl.reaped)
		ret = kp_workload__exit_code(&st.wl);
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	kp_recorder__exit(&r);
	kp_workload__abort(&st.wl, SIGKILL);
	if (signals)
		record__signals_restore(&sigs);
	kp_nl__delete(r.nl);
	return ret;
}

int cmd_record_with(int argc, const char **argv, const char * const *pre, const char *help,
		    const char *cmd)
{
	const char **rec_argv;
	int i, n = 0, nr_pre = 0, ret;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help, stdout);
			return KP_EXIT_OK;
		}
	}
	while (pre[nr_pre])
		nr_pre++;
	rec_argv = calloc(argc + nr_pre + 2, sizeof(*rec_argv));
	if (!rec_argv) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		return KP_EXIT_FAILURE;
	}
	rec_argv[n++] = "record";
	for (i = 0; i < nr_pre; i++)
		rec_argv[n++] = pre[i];
	for (i = 1; i < argc; i++)
		rec_argv[n++] = argv[i];
	rec_argv[n] = NULL;
	ret = cmd_record(n, rec_argv);
	free(rec_argv);
	return ret;
}
