// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl daemon [-F <hz>] [-a | -p <pids>] [-g] [-e <events>]
 *                 [--interval <duration>] [--output-dir <dir>] [--format <formats>]
 *                 [--keep <n>] [--max-age <duration>] [--max-size <bytes>]
 *
 * Always-on profiling: one aggregating session read in intervals
 * (KPROF_SESSION_F_INTERVALS), owned by this process's socket, so that it
 * ends with the daemon whatever kills it.  At each boundary (multiples of
 * --interval in Unix time, a CLOCK_REALTIME timerfd that a clock step
 * cancels and re-arms) the module's swap closes the interval and the
 * closed half is saved into --output-dir, in each --format, every file
 * under a temporary name then renamed into place (lib/daemon.h): read
 * into a kprof.data at once, then decoded into pprof or folded by a child
 * process, one at a time, so that no swap waits for symbols.  The
 * intervals are the swaps: each starts where the one before ended, so
 * every sample is in exactly one profile.  SIGINT or SIGTERM: the last,
 * partial interval is saved, the session stopped, and the balance of the
 * intervals against the session's counters printed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/daemon.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/rundir.h"
#include "lib/session.h"
#include "lib/upload-args.h"
#include "lib/sys.h"
#include "lib/util.h"

#define NSEC_PER_SEC		1000000000ULL
#define NSEC_PER_MSEC		1000000ULL
#define DAEMON_DEFAULT_DIR	"/var/lib/kprof/profiles"
#define DAEMON_MAX_INTERVAL_MS	(24ULL * 3600 * 1000)

static const char * const daemon_usage[] = {
	"kprofctl daemon [-F <hz>] [-a | -p <pid,...>] [-e <events>] [--interval <duration>] [--output-dir <dir>] [--format <formats>] [--keep <n>] [--max-age <duration>] [--max-size <bytes>] [--upload <url> [--tag <key=value>]...]",
	"",
	"Profile always, in intervals: an aggregating session (system-wide unless",
	"-p, 19 Hz unless -F) whose tables the kernel swaps at each multiple of",
	"--interval (default 60s) in UTC; each interval is saved into --output-dir",
	"(default " DAEMON_DEFAULT_DIR ") as kprof-START-END-SEQ.EXT, in each",
	"--format (default kprof; pprof is .pb.gz, folded the collapsed stacks),",
	"written whole or not at all.  Nothing is lost between intervals: their",
	"profiles add up to the session's.  --keep, --max-age and --max-size",
	"remove the oldest intervals' files after each one.  SIGINT or SIGTERM",
	"saves the last, partial interval and stops.  One daemon per directory.",
	"",
	"--upload URL sends each interval's pprof to Pyroscope (POST URL/ingest,",
	"labels hostname= and kernel= added unless given by --tag) from a spool",
	"(default <output-dir>/.spool), oldest first, by a process of its own: a",
	"server that is down or slow never holds an interval; what it cannot take",
	"waits in the spool, retried after 1 s, 2 s, ... up to 60 s.",
	"",
	"Needs CAP_PERFMON or CAP_SYS_ADMIN, and kprof.ko ABI 1.15.",
	NULL
};

/* Intervals that may wait for their conversion; one more is not saved. */
#define DAEMON_BACKLOG		8

struct daemon {
	const char		*cmd;
	struct kp_daemon_conf	conf;
	struct kp_nl		*nl;
	uint64_t		interval_ns;
	int			verbose;
	/* state */
	uint64_t		seq;		/* intervals closed */
	uint64_t		saved;		/* ... and saved */
	uint64_t		failed;		/* ... that could not be saved */
	uint64_t		samples;	/* in the saved intervals */
	uint64_t		removed;	/* intervals removed by retention */
	int			last_errno;	/* of the last failure, logged once */
	/*
	 * The converter: a child that decodes one dumped interval into the
	 * other formats (seconds of symbol work), so that no swap waits for
	 * it; the intervals dumped meanwhile wait here, in order.
	 */
	pid_t			child;		/* 0: none running */
	int			child_fd;	/* its report: "" or why it failed */
	struct kp_daemon_interval converting;
	struct kp_daemon_interval backlog[DAEMON_BACKLOG];
	unsigned int		head, nr;
	/*
	 * --upload: a child that delivers the spool, oldest first, when
	 * poked (a byte on @poke_fd, one per interval spooled) and after a
	 * backoff when the server cannot take it: no upload ever holds a
	 * swap or a conversion.  EOF on the pipe: a last delivery, then exit.
	 */
	bool			uploading;
	struct kp_uploader	uploader;
	unsigned int		hz;		/* the sampling rate, for the upload */
	pid_t			sender;		/* 0: none */
	int			poke_fd;	/* -1: none */
	uint64_t		upload_timeout_ms;
	/* what status shows: the run directory's ID/daemon */
	struct kp_daemon_state	state;
};

/* "2026-12-07 13:15:00" (UTC) of Unix ns @ns. */
static const char *utc(char *buf, size_t len, uint64_t ns)
{
	time_t t = ns / NSEC_PER_SEC;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "?");
	return buf;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Arm @tfd for the next boundary after now; a step of the clock cancels it. */
static int arm(const struct daemon *dm, int tfd, uint64_t *next)
{
	struct itimerspec its = { 0 };

	*next = kp_daemon__next_boundary(realtime_ns(), dm->interval_ns);
	its.it_value.tv_sec = *next / NSEC_PER_SEC;
	its.it_value.tv_nsec = *next % NSEC_PER_SEC;
	return timerfd_settime(tfd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &its, NULL);
}

/* Swap, retrying while another reader holds the closed half (-EBUSY). */
static int swap(struct daemon *dm, struct kp_agg_interval *iv, struct kp_err *err)
{
	int tries, ret = 0;

	for (tries = 0; tries < 50; tries++) {
		ret = kp_nl__agg_swap(dm->nl, iv, err);
		if (ret != -EBUSY)
			break;
		usleep(100000);
	}
	return ret;
}

static uint64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/*
 * The intervals' pprof profiles in the outbox, oldest first, into the
 * spool (whose bounds drop its oldest items), each removed once spooled.
 * Only the sender takes the spool's lock: a converter never waits for it.
 */
static void outbox_spool(struct daemon *dm)
{
	const char *dir = dm->conf.outbox;
	struct kp_upload_stats st;
	struct dirent **names;
	enum kp_daemon_format fmt;
	uint64_t start_s, end_s, seq;
	char path[4400];
	size_t base_len;
	struct kp_err err;
	struct stat sb;
	int i, n, fd;
	void *body;

	n = scandir(dir, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (!kp_daemon__parse_name(name, &start_s, &end_s, &seq, &fmt, &base_len) ||
		    fmt != KP_DAEMON_PPROF ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
			goto next;
		body = NULL;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &sb) || !(body = malloc(sb.st_size + 1)) ||
		    read(fd, body, sb.st_size) != sb.st_size)
			kp_err__set(&err, errno ? errno : EIO, "%s", strerror(errno ? errno : EIO));
		else if (!kp_uploader__spool(&dm->uploader, body, sb.st_size, start_s, end_s + 1,
					     dm->hz, &st, &err) || st.dropped)
			unlink(path);	/* spooled, or over the spool's bounds: dropped, counted */
		if (fd < 0 || access(path, F_OK) == 0)
			kp_error(dm->cmd, "upload: '%s' is not spooled: %s", path, err.msg);
		free(body);
		if (fd >= 0)
			close(fd);
next:
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/*
 * The sender: deliver the spool when poked; when the server cannot take
 * it, again after a backoff doubling from 1 s to 60 s with a quarter of
 * jitter (pokes meanwhile wait for it); at EOF one last delivery.
 */
static void __attribute__((noreturn)) sender_run(struct daemon *dm, int fd)
{
	uint64_t backoff = 0, due = 0, now;
	struct kp_upload_stats st;
	struct kp_err err;
	int last = 0, ret = 0, timeout;
	bool eof = false, poked;
	char buf[64];
	ssize_t n;

	srandom(getpid() ^ (unsigned int)monotonic_ms());
	/* what an earlier run left in the spool goes first: no wait at first */
	for (timeout = 0;; timeout = -1) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		now = monotonic_ms();
		if (backoff)
			timeout = due > now ? (int)(due - now) : 0;
		poked = false;
		if (poll(&pf, 1, timeout) > 0) {
			n = read(fd, buf, sizeof(buf));
			eof = !n;
			poked = n > 0;
		}
		/* a poke during a backoff waits for it */
		if (!eof && backoff && poked && monotonic_ms() < due)
			continue;
		outbox_spool(dm);
		ret = kp_uploader__flush(&dm->uploader, &st, &err);
		if (ret) {
			if (ret != last)
				kp_error(dm->cmd, "upload: %s (retrying)", err.msg);
			backoff = backoff ? backoff * 2 : 1000;
			if (backoff > 60000)
				backoff = 60000;
			due = monotonic_ms() + backoff - backoff / 8 + random() % (backoff / 4 + 1);
		} else {
			if (last)
				fprintf(stderr, "[ kprof daemon: upload: the spool is delivered again (%u profiles) ]\n",
					st.delivered);
			backoff = 0;
		}
		last = ret;
		if (eof)
			_exit(ret ? 1 : 0);
	}
}

/* Start the sender; without it the spool waits for the next daemon. */
static void sender_start(struct daemon *dm)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		kp_error(dm->cmd, "upload: %s: the spool waits", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (!pid) {
		close(kp_nl__fd(dm->nl));
		close(p[1]);
		sender_run(dm, p[0]);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		kp_error(dm->cmd, "upload: %s: the spool waits", strerror(errno));
		return;
	}
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	dm->sender = pid;
	dm->poke_fd = p[1];
}

/* An interval was spooled: the sender may deliver it (a full pipe is a poke). */
static void sender_poke(struct daemon *dm)
{
	if (dm->poke_fd >= 0 && write(dm->poke_fd, "", 1) < 0 && errno != EAGAIN)
		kp_error(dm->cmd, "upload: the sender is gone: %s", strerror(errno));
}

/* Did the sender end (it should not): restart it. */
static void sender_reap(struct daemon *dm)
{
	int status;

	if (!dm->sender || waitpid(dm->sender, &status, WNOHANG) != dm->sender)
		return;
	kp_error(dm->cmd, "upload: the sender ended (status %#x): started again", status);
	close(dm->poke_fd);
	dm->poke_fd = -1;
	dm->sender = 0;
	sender_start(dm);
}

/*
 * The last delivery: EOF to the sender, which tries once more; what it
 * cannot deliver within the upload timeout stays in the spool.
 */
static void sender_stop(struct daemon *dm)
{
	uint64_t deadline = monotonic_ms() + dm->upload_timeout_ms + 5000;
	int status;

	if (!dm->sender)
		return;
	close(dm->poke_fd);
	dm->poke_fd = -1;
	while (waitpid(dm->sender, &status, WNOHANG) == 0) {
		if (monotonic_ms() > deadline) {
			kill(dm->sender, SIGKILL);
			waitpid(dm->sender, &status, 0);
			kp_error(dm->cmd, "upload: the last delivery took too long: the rest waits in '%s'",
				 dm->uploader.c.spool_dir);
			break;
		}
		usleep(50000);
	}
	dm->sender = 0;
}

/* Profiles in @dir named *@suffix (the spool's items, the outbox's). */
static uint64_t count_files(const char *dir, const char *suffix)
{
	size_t slen = strlen(suffix), len;
	struct dirent *de;
	uint64_t n = 0;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		n += de->d_name[0] != '.' && len > slen && !strcmp(de->d_name + len - slen, suffix);
	}
	closedir(d);
	return n;
}

/* The state status shows, rewritten (a failure is said once). */
static void state_write(struct daemon *dm)
{
	struct kp_daemon_state *st = &dm->state;
	struct kp_err err;
	static bool warned;

	st->intervals = dm->seq;
	st->saved = dm->saved;
	st->not_saved = dm->failed;
	st->removed = dm->removed;
	if (dm->uploading)
		st->spooled = kp_upload__spooled(dm->uploader.c.spool_dir) +
			      count_files(dm->conf.outbox, ".pb.gz");
	if (kp_rundir__write_daemon(st, &err) && !warned) {
		kp_error(dm->cmd, "warning: status will not show the daemon: %s", err.msg);
		warned = true;
	}
}

/* Interval @seq was not saved: counted, and said once per kind of failure. */
static void failure(struct daemon *dm, uint64_t seq, int errnum, const char *msg)
{
	dm->failed++;
	if (errnum != dm->last_errno)
		kp_error(dm->cmd, "interval %" PRIu64 " not saved: %s (sampling goes on; %" PRIu64 " not saved so far)",
			 seq, msg, dm->failed);
	dm->last_errno = errnum;
	state_write(dm);
}

/* Interval @it is in the directory: counted, then retention. */
static void saved(struct daemon *dm, const struct kp_daemon_interval *it)
{
	struct kp_daemon_retention rt;
	struct kp_err err;
	char a[32], b[32];

	if (dm->last_errno)
		fprintf(stderr, "[ kprof daemon: interval %" PRIu64 " saved again after %" PRIu64 " not saved ]\n",
			it->seq, dm->failed);
	dm->last_errno = 0;
	dm->saved++;
	dm->samples += it->samples;
	sender_poke(dm);
	if (dm->verbose)
		fprintf(stderr, "[ kprof daemon: %s: %s to %s UTC (%.3f s), %" PRIu64 " samples in %zu stacks, %.1f KB ]\n",
			it->base, utc(a, sizeof(a), it->start_ns), utc(b, sizeof(b), it->end_ns),
			(it->end_ns - it->start_ns) / 1e9, it->samples, it->nr_keys,
			it->bytes / 1024.0);
	if (kp_daemon__retain(&dm->conf, realtime_ns(), &rt, &err)) {
		kp_error(dm->cmd, "retention: %s", err.msg);
		memset(&rt, 0, sizeof(rt));
	}
	dm->removed += rt.removed;
	if (rt.failed)
		kp_error(dm->cmd, "retention: %u files could not be removed from '%s'", rt.failed,
			 dm->conf.dir);
	dm->state.last_seq = it->seq;
	dm->state.last_start_ns = it->start_ns;
	dm->state.last_end_ns = it->end_ns;
	dm->state.last_samples = it->samples;
	state_write(dm);
}

/* The converter of @it, in a child: reports "" or why not on @fd. */
static void __attribute__((noreturn)) convert_child(struct daemon *dm,
						    struct kp_daemon_interval *it, int fd)
{
	struct kp_err err;
	char ok[32];
	int ret;

	/* the session's owner socket is the parent's alone */
	close(kp_nl__fd(dm->nl));
	ret = kp_daemon__convert(&dm->conf, it, &err);
	if (ret) {
		if (write(fd, err.msg, strlen(err.msg)) < 0)
			_exit(2);
		_exit(1);
	}
	snprintf(ok, sizeof(ok), "%" PRIu64, it->bytes);
	_exit(write(fd, ok, strlen(ok)) < 0 ? 2 : 0);
}

/* Start the converter on the oldest interval waiting, if none runs. */
static void convert_next(struct daemon *dm)
{
	struct kp_daemon_interval *it;
	int p[2];
	pid_t pid;

	while (!dm->child && dm->nr) {
		it = &dm->backlog[dm->head];
		dm->head = (dm->head + 1) % DAEMON_BACKLOG;
		dm->nr--;
		if (pipe2(p, O_CLOEXEC)) {
			kp_daemon__discard(it);
			failure(dm, it->seq, errno, strerror(errno));
			continue;
		}
		fflush(NULL);
		pid = fork();
		if (!pid) {
			close(p[0]);
			convert_child(dm, it, p[1]);
		}
		close(p[1]);
		if (pid < 0) {
			close(p[0]);
			kp_daemon__discard(it);
			failure(dm, it->seq, errno, strerror(errno));
			continue;
		}
		dm->child = pid;
		dm->child_fd = p[0];
		dm->converting = *it;
		/* the backlog's copy is done with: it may be reused */
		memset(it, 0, sizeof(*it));
	}
}

/* The converter ended (@status): its interval saved or not, the next started. */
static void converted(struct daemon *dm, int status)
{
	struct kp_daemon_interval *it = &dm->converting;
	char msg[KP_ERR_MSG_MAX];
	ssize_t n;

	do
		n = read(dm->child_fd, msg, sizeof(msg) - 1);
	while (n < 0 && errno == EINTR);
	msg[n > 0 ? n : 0] = '\0';
	close(dm->child_fd);
	dm->child = 0;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		it->bytes = strtoull(msg, NULL, 10);
		saved(dm, it);
	} else {
		/* killed, or its own error: nothing of it is in the directory */
		kp_daemon__discard(it);
		if (!*msg && WIFSIGNALED(status))
			snprintf(msg, sizeof(msg), "its converter was killed by signal %d (%s)",
				 WTERMSIG(status), strsignal(WTERMSIG(status)));
		else if (!*msg)
			snprintf(msg, sizeof(msg), "its converter ended with status %#x", status);
		failure(dm, it->seq, WIFEXITED(status) ? EIO : EINTR, msg);
	}
	convert_next(dm);
}

/* Reap the converter if it ended; with @block, wait for every interval. */
static void reap(struct daemon *dm, bool block)
{
	int status;
	pid_t pid;

	while (dm->child) {
		pid = waitpid(dm->child, &status, block ? 0 : WNOHANG);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid <= 0) {
			if (pid < 0) {
				/* not ours to wait for (cannot be): count it lost */
				status = 0x100;
				converted(dm, status);
				continue;
			}
			return;
		}
		converted(dm, status);
	}
}

/*
 * Save the interval @iv closed: dump it now (the closed half is then free
 * for the next swap); the kprof format alone is renamed into place at
 * once, other formats are left to the converter.
 */
static void save(struct daemon *dm, const struct kp_agg_interval *iv)
{
	struct kp_daemon_interval *it;
	struct kp_err err;
	unsigned int tail;

	dm->seq++;
	if (dm->nr == DAEMON_BACKLOG) {
		/* the converter is that far behind: this interval is not saved */
		kp_err__set(&err, EAGAIN, "%u intervals wait for their conversion already",
			    DAEMON_BACKLOG);
		failure(dm, dm->seq, err.errnum, err.msg);
		/* its half is cleared at the next swap: nothing to undo */
		return;
	}
	tail = (dm->head + dm->nr) % DAEMON_BACKLOG;
	it = &dm->backlog[tail];
	if (kp_daemon__dump(&dm->conf, dm->nl, iv, dm->seq, it, &err)) {
		failure(dm, dm->seq, err.errnum, err.msg);
		return;
	}
	if (dm->conf.formats == 1U << KP_DAEMON_KPROF && !dm->conf.outbox) {
		if (kp_daemon__convert(&dm->conf, it, &err))
			failure(dm, it->seq, err.errnum, err.msg);
		else
			saved(dm, it);
		return;
	}
	dm->nr++;
	convert_next(dm);
}

/* The last interval and the balance, after STOP. */
static int finish(struct daemon *dm)
{
	struct kp_agg_interval iv;
	struct kp_stop_info stop;
	const struct kp_stats *t = &stop.stats;
	struct kp_err err;
	uint64_t lost;
	bool ok;

	if (kp_nl__stop(dm->nl, &stop, &err)) {
		kp_err__print(&err, dm->cmd);
		return KP_EXIT_FAILURE;
	}
	if (swap(dm, &iv, &err)) {
		kp_err__print(&err, dm->cmd);
		return KP_EXIT_FAILURE;
	}
	save(dm, &iv);
	/* every interval converted: the summary counts them all */
	reap(dm, true);
	sender_stop(dm);
	if (kp_nl__free(dm->nl, &err))
		kp_error(dm->cmd, "warning: session %" PRIu64 " was not freed: %s",
			 kp_nl__session(dm->nl), err.msg);
	lost = kp_stats__agg_lost(t);
	fprintf(stderr, "[ kprof daemon: session %" PRIu64 " stopped: %" PRIu64 " intervals, %" PRIu64
		" saved, %" PRIu64 " not saved, %" PRIu64 " removed by retention ]\n",
		stop.session_id, dm->seq, dm->saved, dm->failed, dm->removed);
	if (!t->has_agg) {
		fprintf(stderr, "[ kprof daemon: no aggregation counters from kprof.ko ]\n");
		return KP_EXIT_FAILURE;
	}
	ok = kp_stats__agg_balanced(t);
	fprintf(stderr, "[ kprof daemon: Aggregate balance: %" PRIu64 " invocations = %" PRIu64
		" aggregated + %" PRIu64 " lost: %s ]\n", t->v[KP_STAT_INVOCATIONS],
		t->agg[KP_AGG_STAT_SAMPLES], lost, ok ? "ok" : "MISMATCH");
	/* the saved intervals hold every aggregated sample when none failed */
	fprintf(stderr, "[ kprof daemon: Intervals: %" PRIu64 " samples in the saved profiles%s ]\n",
		dm->samples, dm->failed ? " (some intervals not saved)" :
			     dm->samples == t->agg[KP_AGG_STAT_SAMPLES] ? ", all of them: ok" :
									  ": MISMATCH");
	if (!ok || (!dm->failed && dm->samples != t->agg[KP_AGG_STAT_SAMPLES]))
		return KP_EXIT_FAILURE;
	return KP_EXIT_OK;
}

/* Until SIGINT or SIGTERM: one interval per boundary. */
static int run(struct daemon *dm)
{
	struct signalfd_siginfo si;
	struct kp_agg_interval iv;
	struct pollfd pfd[2];
	struct kp_err err;
	uint64_t next, ticks;
	sigset_t set;
	char when[32];
	int tfd, sfd, ret = KP_EXIT_FAILURE;
	ssize_t n;

	/* a sender that died: its poke fails with EPIPE, not a signal */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	tfd = timerfd_create(CLOCK_REALTIME, TFD_CLOEXEC);
	if (sfd < 0 || tfd < 0 || arm(dm, tfd, &next)) {
		kp_error(dm->cmd, "timer: %s", strerror(errno));
		goto out;
	}
	pfd[0] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			kp_error(dm->cmd, "poll: %s", strerror(errno));
			goto out;
		}
		if (pfd[1].revents & POLLIN) {
			n = read(sfd, &si, sizeof(si));
			if (n == sizeof(si) && (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM))
				break;
			if (n == sizeof(si) && si.ssi_signo == SIGCHLD) {
				reap(dm, false);
				sender_reap(dm);
			}
			else if (n == sizeof(si))
				fprintf(stderr, "[ kprof daemon: SIGHUP: nothing to reload (no configuration file) ]\n");
		}
		if (!(pfd[0].revents & POLLIN))
			continue;
		n = read(tfd, &ticks, sizeof(ticks));
		if (n < 0 && errno == ECANCELED) {
			/* the clock was set: the next boundary by the new time */
			if (arm(dm, tfd, &next))
				goto out;
			fprintf(stderr, "[ kprof daemon: the clock was set; next interval ends at %s UTC ]\n",
				utc(when, sizeof(when), next));
			continue;
		}
		if (n != sizeof(ticks))
			continue;
		if (swap(dm, &iv, &err)) {
			/* stopped by someone else, or the module went away */
			kp_err__print(&err, dm->cmd);
			goto out;
		}
		save(dm, &iv);
		if (arm(dm, tfd, &next)) {
			kp_error(dm->cmd, "timer: %s", strerror(errno));
			goto out;
		}
	}
	ret = finish(dm);
out:
	/* on an error too, the intervals dumped are converted or removed */
	reap(dm, true);
	if (tfd >= 0)
		close(tfd);
	if (sfd >= 0)
		close(sfd);
	return ret;
}

/*
 * --upload: the spool (default DIR/.spool, which retention never sees),
 * the host's and kernel's labels unless given, the uploader.
 */
static int daemon_uploader(struct daemon *dm, struct kp_upload_args *up, const char *dir,
			   char *spool, size_t spool_len, char *host_tag, char *kernel_tag,
			   size_t tag_len)
{
	struct utsname u;
	unsigned int i;
	bool host = false, kernel = false;
	int ret;

	if (!up->spool_dir) {
		snprintf(spool, spool_len, "%s/.spool", dir);
		up->spool_dir = spool;
	}
	for (i = 0; i < up->nr_tags; i++) {
		host |= !strncmp(up->tags[i], "hostname=", 9);
		kernel |= !strncmp(up->tags[i], "kernel=", 7);
	}
	if (!uname(&u)) {
		snprintf(host_tag, tag_len, "hostname=%s", u.nodename);
		snprintf(kernel_tag, tag_len, "kernel=%s", u.release);
		if (!host && up->nr_tags < KP_UPLOAD_MAX_TAGS)
			up->tags[up->nr_tags++] = host_tag;
		if (!kernel && up->nr_tags < KP_UPLOAD_MAX_TAGS)
			up->tags[up->nr_tags++] = kernel_tag;
	}
	up->quiet = !dm->verbose;
	ret = kp_upload_args__uploader(up, &dm->uploader, dm->cmd);
	if (ret)
		return ret;
	dm->uploading = true;
	dm->upload_timeout_ms = dm->uploader.c.timeout_ms;
	return KP_EXIT_OK;
}

int cmd_daemon(int argc, const char **argv)
{
	const char *cmd = argv[0], *interval = "60s", *dir = DAEMON_DEFAULT_DIR;
	const char *formats = "kprof", *max_age = NULL, *max_size = NULL;
	struct kp_session_opts opts = { 0 };
	struct daemon dm = { .cmd = cmd, .poke_fd = -1 };
	struct kp_upload_args up = { 0 };
	char spool[4200], outbox[4300], host_tag[128], kernel_tag[128];
	const struct option options[] = {
		OPT_CALLBACK('e', "event", &opts, "event",
			     "event(s) to sample (default cycles, cpu-clock without a hardware PMU)",
			     kp_session_opts__event_cb),
		OPT_STRING('F', "freq", &opts.freq, "n", "samples per second per event (default 19)"),
		OPT_BOOLEAN('a', "all-cpus", &opts.all_cpus, "system-wide, on all CPUs (the default)"),
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]", "profile these existing processes",
			     kp_session_opts__pid_cb),
		OPT_STRING('C', "cpu", &opts.cpus, "cpu-list", "system-wide on these CPUs only"),
		OPT_BOOLEAN('g', NULL, &opts.callchain, "kernel and user call chains (implied)"),
		OPT_BOOLEAN('K', "all-kernel", &opts.all_kernel, "sample the kernel only"),
		OPT_BOOLEAN('U', "all-user", &opts.all_user, "sample user space only"),
		OPT_BOOLEAN(0, "off-cpu", &opts.off_cpu,
			    "also the off-CPU time by stack, beside the samples (pprof: two sample types; folded: under [off-cpu])"),
		OPT_STRING(0, "stack-depth", &opts.stack_depth, "n",
			   "frames per call chain, 1 to 512 (default 127)"),
		OPT_STRING(0, "agg-entries", &opts.agg_entries, "n",
			   "aggregation entries per CPU and half (default 8K)"),
		OPT_STRING(0, "interval", &interval, "duration",
			   "length of an interval, 1s to 24h (default 60s); boundaries on its multiples in UTC"),
		OPT_STRING(0, "output-dir", &dir, "dir", "where the profiles go (default " DAEMON_DEFAULT_DIR ")"),
		OPT_STRING(0, "format", &formats, "formats",
			   "kprof, pprof and/or folded, comma-separated (default kprof)"),
		OPT_UINTEGER(0, "keep", &dm.conf.keep, "n", "keep the newest n intervals (default all)"),
		OPT_STRING(0, "max-age", &max_age, "duration",
			   "remove intervals that ended longer ago (e.g. 1d, 12h)"),
		OPT_STRING(0, "max-size", &max_size, "bytes",
			   "remove the oldest intervals while the files take more (e.g. 1G)"),
		KP_UPLOAD_OPTIONS(&up),
		OPT_INCR('v', "verbose", &dm.verbose, "one line per interval"),
		OPT_END()
	};
	struct kp_version_info ver;
	struct kp_start_info start;
	struct kp_data_info *info = NULL;
	struct kp_session s;
	enum kp_target target;
	struct kp_err err;
	uint64_t ms;
	char cmdline[KP_CMDLINE_MAX], path[4096];
	int lock_fd = -1, ret = KP_EXIT_FAILURE, e;

	kp_join_cmdline(cmdline, sizeof(cmdline), argc, argv);
	argc = parse_options(argc, argv, options, daemon_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (kp_parse_duration_ms(interval, &ms) || ms < 1000 || ms > DAEMON_MAX_INTERVAL_MS) {
		kp_error(cmd, "bad --interval '%s': 1s to 24h expected (e.g. 10s, 5m)", interval);
		return KP_EXIT_USAGE;
	}
	dm.interval_ns = ms * NSEC_PER_MSEC;
	if (max_age && (kp_parse_duration_ms(max_age, &ms) || !ms)) {
		kp_error(cmd, "bad --max-age '%s' (e.g. 30m, 12h, 7d)", max_age);
		return KP_EXIT_USAGE;
	}
	dm.conf.max_age_ns = max_age ? ms * NSEC_PER_MSEC : 0;
	if (max_size && (kp_parse_size(max_size, &dm.conf.max_size) || !dm.conf.max_size)) {
		kp_error(cmd, "bad --max-size '%s' (e.g. 512M, 2G)", max_size);
		return KP_EXIT_USAGE;
	}
	if (!*dir) {
		kp_error(cmd, "empty --output-dir");
		return KP_EXIT_USAGE;
	}
	if (kp_daemon__parse_formats(formats, &dm.conf.formats, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	if (!up.url && kp_upload_args__needs_url(&up)) {
		kp_error(cmd, "%s needs --upload", kp_upload_args__needs_url(&up));
		return KP_EXIT_USAGE;
	}
	if (up.url) {
		ret = daemon_uploader(&dm, &up, dir, spool, sizeof(spool), host_tag,
				      kernel_tag, sizeof(host_tag));
		if (ret)
			return ret;
		ret = KP_EXIT_FAILURE;
	}
	if (!opts.freq)
		opts.freq = "19";
	opts.aggregate_default = true;
	if (kp_session__from_opts(&s, &target, &opts, false, kp_sys__has_hw_pmu(), cmd, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	s.flags |= KPROF_SESSION_F_INTERVALS;
	dm.conf.cmd = cmd;
	dm.conf.dir = dir;

	e = kp_mkdir_p(dir, path, sizeof(path));
	if (e) {
		kp_err__set(&err, -e, "cannot create '%s': %s", path, strerror(-e));
		goto out_err;
	}
	lock_fd = kp_daemon__lock(dir, &err);
	if (lock_fd < 0)
		goto out_err;
	dm.nl = kp_nl__open(&err);
	if (!dm.nl || kp_nl__hello(dm.nl, &ver, &err))
		goto out_err;
	kp_session__own(&s, ver.abi);
	if (kp_session__check_abi(&s, ver.abi, &err))
		goto out_err;
	if (kp_nl__start(dm.nl, &s, &start, &err))
		goto out_err;
	kp_nl__set_session(dm.nl, start.session_id);
	info = malloc(sizeof(*info));
	if (!info) {
		kp_err__set(&err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_err;
	}
	kp_agg__started_info(info, &s, &start, ver.release, cmdline);
	dm.conf.session = info;
	dm.hz = s.freq;
	if (dm.uploading) {
		/* the converter's pprof waits here for the sender to spool it */
		snprintf(outbox, sizeof(outbox), "%s/.outbox", dm.uploader.c.spool_dir);
		e = kp_mkdir_p(outbox, path, sizeof(path));
		if (e) {
			kp_err__set(&err, -e, "cannot create '%s': %s", path, strerror(-e));
			goto out_err;
		}
		dm.conf.outbox = outbox;
		sender_start(&dm);
	}
	dm.state.pid = getpid();
	dm.state.session_id = start.session_id;
	dm.state.interval_ms = dm.interval_ns / NSEC_PER_MSEC;
	snprintf(dm.state.formats, sizeof(dm.state.formats), "%s", formats);
	snprintf(dm.state.dir, sizeof(dm.state.dir), "%s", dir);
	snprintf(dm.state.upload, sizeof(dm.state.upload), "%s", up.url ? up.url : "");
	state_write(&dm);
	fprintf(stderr, "[ kprof daemon: session %" PRIu64 " aggregating in %.0f s intervals into %s (%s) ]\n",
		start.session_id, dm.interval_ns / 1e9, dir, formats);
	ret = run(&dm);
	kp_rundir__remove_daemon(start.session_id);
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	sender_stop(&dm);
	if (dm.uploading)
		kp_uploader__exit(&dm.uploader);
	free(info);
	kp_nl__delete(dm.nl);
	if (lock_fd >= 0)
		close(lock_fd);
	return ret;
}
