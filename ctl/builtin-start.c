// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl start [<options>] [--mode aggregate|stream|both] [-o <file>]
 *
 * Start a session that runs in the background.
 *
 * Aggregate mode, the default without --mode and -o: START with
 * KPROF_SESSION_F_AGGREGATE and return; the module counts stacks in its
 * tables with nobody attached (Documentation/aggregation.rst).  The
 * session's configuration is left in /run/kprof/ID/aggregate.data for
 * 'stop -o' and the --live reports, which name its events from it.
 *
 * Stream mode (--mode stream or both, or -o): START, map the buffers,
 * create the file and synthesize the side-band here, so that every error
 * is reported to the caller; then hand everything to a detached drainer
 * (double fork, setsid, stdio on /dev/null) that writes the file like
 * 'kprofctl record' until the session stops ('kprofctl stop', or SIGTERM,
 * which stops it too).  The drainer's PID is in /run/kprof/ID/drainer.pid
 * (lib/rundir.h: one directory per session; those of sessions the module
 * no longer has are removed here first).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/cpumap.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/recorder.h"
#include "lib/rundir.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/util.h"

static const char * const start_usage[] = {
	"kprofctl start [<options>] [--mode aggregate|stream|both] [-o <file>]",
	"",
	"Start a session in the background and return: print the session id.",
	"Without -p: system-wide.  Needs CAP_PERFMON or CAP_SYS_ADMIN.",
	"",
	"--mode aggregate, the default without -o: the module counts the call",
	"chains (-g is implied) in per-CPU tables of --agg-entries entries (8K by",
	"default; 256 bytes each per CPU, 2 MiB per CPU by default) and nothing",
	"needs to read it: 'kprofctl report/folded/flamegraph --live' and",
	"/sys/kernel/debug/kprof/report show it while it runs; 'kprofctl stop -o",
	"<file>' stops it and saves the profile for the offline commands.  With",
	"--intervals each CPU has two tables (twice the memory), and 'kprofctl",
	"rotate -o <file>' saves the interval since the last rotation while",
	"sampling goes on into the other one, losing nothing in between.",
	"",
	"--mode stream (the default with -o) or both: a background drainer writes",
	"the records to the file (default kprof.data); 'kprofctl stop' stops it,",
	"waits for the file and prints the summary.",
	NULL
};

/* "8 MiB", "16 KiB": the tables' kernel memory (a multiple of 16 KiB). */
static void fmt_memory(char *buf, size_t len, uint64_t bytes)
{
	if (bytes >= (1ULL << 30) && !(bytes % (1ULL << 30)))
		snprintf(buf, len, "%" PRIu64 " GiB", bytes >> 30);
	else if (bytes >= (1ULL << 20) && !(bytes % (1ULL << 20)))
		snprintf(buf, len, "%" PRIu64 " MiB", bytes >> 20);
	else
		snprintf(buf, len, "%" PRIu64 " KiB", bytes >> 10);
}

/*
 * "8192 entries per CPU on 2 CPUs: 4 MiB" ("..., two halves: 8 MiB" with
 * --intervals): the tables are allocated on
 * the session's CPUs (-C, else all) that are online (kprof.ko ABI 1.13; a
 * CPU that comes up later gets its own); without the online list, on
 * the -C CPUs or every possible one (the START reply's count).
 */
static void agg_tables(char *buf, size_t len, const struct kp_session *s,
		       const struct kp_start_info *start)
{
	bool subset = (s->flags & KPROF_SESSION_F_SYSTEM_WIDE) && s->cpus_bytes;
	unsigned int nr = start->nr_cpus, i, halves;
	struct kp_cpumap online;
	char mem[32];

	if (!kp_sys__online_cpus(&online)) {
		for (nr = 0, i = 0; (int)i <= online.max_cpu; i++)
			if (kp_cpumap__test(&online, i) &&
			    (!subset || kp_cpumap__bit(s->cpus, s->cpus_bytes, i)))
				nr++;
	} else if (subset) {
		for (nr = 0, i = 0; i < s->cpus_bytes / 8; i++)
			nr += __builtin_popcountll(s->cpus[i]);
	}
	halves = s->flags & KPROF_SESSION_F_INTERVALS ? 2 : 1;
	fmt_memory(mem, sizeof(mem), (uint64_t)s->agg_entries * KP_AGG_ENTRY_BYTES * nr * halves);
	snprintf(buf, len, "%u entries per CPU on %u CPU%s%s: %s", s->agg_entries, nr,
		 nr == 1 ? "" : "s", halves > 1 ? ", two halves" : "", mem);
}

/*
 * The run directory keeps what the module's sessions need: remove what
 * sessions it no longer has left (a module reloaded, a drainer killed).
 * Quietly: it is housekeeping.
 */
static void prune_rundir(struct kp_recorder *r)
{
	struct kp_session_row *rows;
	uint64_t *ids;
	unsigned int nr = 0, i;
	struct kp_err err;

	/* a module before ABI 1.10 cannot list its sessions: keep all */
	if (KPROF_ABI_VERSION_MINOR(r->ver.abi) < 10)
		return;
	rows = calloc(KP_STATUS_SESSIONS_MAX, sizeof(*rows));
	ids = calloc(KP_STATUS_SESSIONS_MAX, sizeof(*ids));
	/* more sessions than rows: some unknown, prune nothing */
	if (rows && ids && !kp_nl__sessions(r->nl, rows, KP_STATUS_SESSIONS_MAX, &nr, &err) &&
	    nr <= KP_STATUS_SESSIONS_MAX) {
		for (i = 0; i < nr; i++)
			ids[i] = rows[i].id;
		kp_rundir__prune(ids, nr);
	}
	free(ids);
	free(rows);
}

/* Aggregate mode: START, leave the configuration, no drainer. */
static int start_aggregate(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_data_info *info;
	struct kp_err warn;
	char tables[128];
	int ret;

	ret = kp_nl__start(r->nl, &r->session, &r->start, err);
	if (ret)
		return ret;
	info = malloc(sizeof(*info));
	if (info) {
		kp_agg__started_info(info, &r->session, &r->start, r->ver.release, r->cmdline);
		if (kp_agg__save_session(info, &warn))
			kp_error(r->cmd, "warning: %s; --live will name the events event0, ...",
				 warn.msg);
		free(info);
	}
	agg_tables(tables, sizeof(tables), &r->session, &r->start);
	if (r->session.flags & KPROF_SESSION_F_INTERVALS)
		printf("kprof session %" PRIu64 " started: aggregating in the kernel in intervals (%s); 'kprofctl rotate -o <file>' saves each, 'kprofctl stop [-o <file>]' ends it\n",
		       r->start.session_id, tables);
	else
		printf("kprof session %" PRIu64 " started: aggregating in the kernel (%s); 'kprofctl report --live' shows it, 'kprofctl stop [-o <file>]' ends it\n",
		       r->start.session_id, tables);
	return 0;
}

#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif

static volatile sig_atomic_t drainer_signal;

static void drainer__sighandler(int sig)
{
	drainer_signal = sig;
}

/* The absolute path of @path, whose directory must exist. */
static int absolute_path(const char *path, char *buf, size_t len, struct kp_err *err)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (!*base) {
		kp_err__set(err, EISDIR, "output '%s' is a directory", path);
		return -EISDIR;
	}
	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1,
			 path);
	else
		snprintf(dir, sizeof(dir), ".");
	if (!realpath(dir, real)) {
		kp_err__set(err, errno, "cannot resolve '%s': %s", dir, strerror(errno));
		return -errno;
	}
	if ((size_t)snprintf(buf, len, "%s/%s", strcmp(real, "/") ? real : "", base) >= len) {
		kp_err__set(err, ENAMETOOLONG, "output path '%s' is too long", path);
		return -ENAMETOOLONG;
	}
	return 0;
}

/* The drainer: never returns. */
static void __noreturn drainer__run(struct kp_recorder *r, int ready_fd)
{
	struct kp_drainer_info d = { .pid = getpid(), .session_id = r->start.session_id };
	struct sigaction sa;
	struct kp_err err;
	int fd, status = 0;

	snprintf(d.output, sizeof(d.output), "%s", r->output);
	if (kp_rundir__write(&d, &err)) {
		if (write(ready_fd, err.msg, strlen(err.msg)) < 0)
			_exit(1);
		kp_recorder__exit(r);
		_exit(1);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = drainer__sighandler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);

	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	if (chdir("/"))
		status = 1;
	/* Ready: the caller may return. */
	if (write(ready_fd, "", 1) != 1)
		status = 1;
	close(ready_fd);

	r->progress = false;
	r->verbose = 0;
	if (kp_recorder__loop(r, &drainer_signal, NULL, NULL, 1000, &err) ||
	    kp_recorder__finish(r, &err))
		status = 1;
	kp_recorder__exit(r);
	kp_nl__delete(r->nl);
	kp_rundir__remove(d.session_id, d.pid);
	_exit(status);
}

/*
 * Fork the drainer (double fork, new session) and wait until it is ready.
 * Returns its PID, or a negative errno with @err set.
 */
static pid_t drainer__spawn(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_drainer_info d;
	char msg[KP_ERR_MSG_MAX];
	int ready[2], status;
	pid_t pid;
	ssize_t n;

	if (kp_data_writer__flush(r->w, err))
		return -EIO;
	if (pipe2(ready, O_CLOEXEC)) {
		kp_err__set(err, errno, "pipe: %s", strerror(errno));
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		kp_err__set(err, errno, "fork: %s", strerror(errno));
		close(ready[0]);
		close(ready[1]);
		return -EAGAIN;
	}
	if (!pid) {
		close(ready[0]);
		if (setsid() < 0)
			_exit(1);
		pid = fork();
		if (pid < 0)
			_exit(1);
		if (pid)
			_exit(0);
		drainer__run(r, ready[1]);
	}
	close(ready[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	do
		n = read(ready[0], msg, sizeof(msg) - 1);
	while (n < 0 && errno == EINTR);
	close(ready[0]);
	if (n != 1 || msg[0]) {
		if (n > 0) {
			msg[n] = '\0';
			kp_err__set(err, EIO, "the drainer failed: %s", msg);
		} else {
			kp_err__set(err, EIO, "the drainer failed to start");
		}
		return -EIO;
	}
	if (kp_rundir__read(r->start.session_id, &d, err)) {
		kp_err__set(err, EIO, "the drainer did not record its PID in %s", kp_rundir__dir());
		return -EIO;
	}
	return d.pid;
}

int cmd_start(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_session_opts opts = { 0 };
	bool intervals = false;
	const struct option options[] = {
		KP_SESSION_OPTIONS(&opts),
		OPT_BOOLEAN(0, "intervals", &intervals,
			    "two tables per CPU, saved interval after interval by 'kprofctl rotate'"),
		OPT_END()
	};
	struct kp_recorder r = { .cmd = cmd };
	char output[PATH_MAX];
	struct kp_err err;
	pid_t pid;
	int ret = KP_EXIT_FAILURE;

	r.rings.fd = -1;
	kp_join_cmdline(r.cmdline, sizeof(r.cmdline), argc, argv);
	argc = parse_options(argc, argv, options, start_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	opts.aggregate_default = true;
	if (kp_session__from_opts(&r.session, &r.target, &opts, false, kp_sys__has_hw_pmu(),
				  cmd, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	if (intervals && !(r.session.flags & KPROF_SESSION_F_AGGREGATE)) {
		kp_error(cmd, "--intervals needs an aggregating session: --mode aggregate or both");
		return KP_EXIT_USAGE;
	}
	if (intervals)
		r.session.flags |= KPROF_SESSION_F_INTERVALS;
	if (!(r.session.flags & KPROF_SESSION_F_STREAM) &&
	    (r.session.flags & KPROF_SESSION_F_AGGREGATE)) {
		r.nl = kp_nl__open(&err);
		if (!r.nl || kp_nl__hello(r.nl, &r.ver, &err))
			goto out_err;
		prune_rundir(&r);
		if (start_aggregate(&r, &err))
			goto out_err;
		ret = KP_EXIT_OK;
		goto out;
	}
	if (absolute_path(opts.output ? opts.output : KP_DEFAULT_OUTPUT, output,
			  sizeof(output), &err))
		goto out_err;
	r.output = output;
	r.verbose = opts.verbose;

	r.nl = kp_nl__open(&err);
	if (!r.nl || kp_nl__hello(r.nl, &r.ver, &err))
		goto out_err;
	prune_rundir(&r);
	if (kp_recorder__start(&r, &err))
		goto out_err;
	pid = drainer__spawn(&r, &err);
	if (pid < 0)
		goto out_err;

	/* The drainer owns the session and the file now. */
	r.started = false;
	if (r.session.flags & KPROF_SESSION_F_AGGREGATE) {
		char tables[128];

		agg_tables(tables, sizeof(tables), &r.session, &r.start);
		printf("kprof session %" PRIu64 " started: writing %s (drainer pid %d) and aggregating in the kernel (%s); 'kprofctl stop' ends it\n",
		       r.start.session_id, output, (int)pid, tables);
	} else {
		printf("kprof session %" PRIu64 " started: writing %s (drainer pid %d); 'kprofctl stop' ends it\n",
		       r.start.session_id, output, (int)pid);
	}
	ret = KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	kp_recorder__exit(&r);
	kp_nl__delete(r.nl);
	return ret;
}
