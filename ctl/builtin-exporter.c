// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl exporter [--listen ADDR:PORT] [--once] [--top N]
 *
 * A Prometheus exporter of kprof.ko's health: an HTTP server
 * (libmicrohttpd, its own thread) whose /metrics asks the module for its
 * version, status and per-CPU statistics at each scrape and answers in
 * the text exposition format (lib/prom.h: kprof_up, kprof_samples_total,
 * kprof_lost_samples_total{cause}, ...).  It binds 127.0.0.1:9464 unless
 * told otherwise and runs until SIGINT or SIGTERM.  --once prints one
 * exposition on standard output instead (for promtool, or cron).
 *
 * Each scrape also reads the counting session ('kprofctl stat'), when one
 * exists (COUNT_READ of no session id: the module keeps at most one), and
 * renders its counts per event and CPU as 'stat --prometheus' does, with
 * a session label.  With --top N and an aggregating sampling session (the
 * newest running one not read in intervals: a daemon's tables restart at
 * each swap, which no counter may), it
 * reads the aggregation tables as the --live commands do (an aggregated
 * profile in a temporary file, decoded and symbolized), adds the samples
 * up by their innermost frame's function and DSO and serves the N largest
 * plus one series for the rest.  Whatever of those fails, the health
 * metrics are served.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/decode-args.h"
#include "lib/decode.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/prom.h"
#include "lib/proto.h"
#include "lib/rundir.h"
#include "lib/stat.h"
#include "lib/util.h"

/* --top's bound: the series of kprof_function_samples. */
#define EXPORTER_MAX_TOP	100

static const char * const exporter_usage[] = {
	"kprofctl exporter [--listen <addr>:<port>] [--once] [--top <n>]",
	"",
	"Serve kprof.ko's health to Prometheus: GET /metrics answers with the",
	"module's counters (samples, losses by cause, handler time, sessions) in",
	"the text exposition format; while 'kprofctl stat' counts, its counts per",
	"event and CPU; with --top N and an aggregating session ('kprofctl",
	"start'; the newest, of those not read in intervals as a daemon's are),",
	"the samples of the N functions most often innermost in the",
	"aggregation tables, and of all the others together.  Binds",
	"127.0.0.1:9464 by default; runs until SIGINT or SIGTERM.",
	NULL
};

struct exporter {
	const char		*cmd;
	unsigned int		top;		/* 0: no kprof_function_samples */
	struct kp_decode_opts	opts;		/* --kallsyms, --symfs, ... */
};

/* --- the counting session ---------------------------------------------------- */

/*
 * The counting session's counts, per event and CPU, as 'stat --prometheus'
 * renders them (kp_prom__stat_counts()), labelled with its id.  Nothing
 * without one (-ENOENT) or when the read fails.
 */
static void exporter__counting(FILE *fp, const struct exporter *ex, struct kp_nl *nl)
{
	struct kp_stat_counts *counts = calloc(1, sizeof(*counts));
	struct kp_stat_value *v = NULL;
	struct kp_event *events = NULL;
	struct kp_stat_report r = { 0 };
	struct kp_stat_table t = { 0 };
	char session[32];
	unsigned int i;
	struct kp_err err;
	size_t n;
	int ret;

	if (!counts)
		return;
	ret = kp_nl__count_read(nl, 0, KPROF_MAX_EVENTS, counts, &err);
	if (ret) {
		if (ret != -ENOENT)
			kp_err__print(&err, ex->cmd);
		goto out;
	}
	if (!counts->nr || kp_stat_table__build(&t, counts, counts->nr_events, true, &err))
		goto out;
	n = (size_t)t.nr_rows * t.nr_events;
	v = calloc(n, sizeof(*v));
	events = calloc(t.nr_events, sizeof(*events));
	if (!v || !events)
		goto out;
	for (i = 0; i < n; i++)
		kp_stat_cell__scale(&t.cells[i], &v[i]);
	for (i = 0; i < t.nr_events; i++) {
		if (counts->names[i][0])
			snprintf(events[i].name, sizeof(events[i].name), "%s", counts->names[i]);
		else
			snprintf(events[i].name, sizeof(events[i].name), "event%u", i);
	}
	/* ABI 1.8: what each event is, for stat's derived metrics */
	for (i = 0; i < counts->nr; i++) {
		if (counts->c[i].state && counts->c[i].event < t.nr_events) {
			events[counts->c[i].event].type = counts->c[i].perf_type;
			events[counts->c[i].event].config = counts->c[i].config;
		}
	}
	r.nr_events = t.nr_events;
	r.events = events;
	r.nr_rows = t.nr_rows;
	r.cpus = t.cpus;
	r.v = v;
	r.walltime_ns = counts->elapsed_ns;
	snprintf(session, sizeof(session), "%" PRIu64, counts->session_id);
	kp_prom__stat_counts(fp, &r, session);
	if (counts->state) {
		/* the module says whether it still counts, and for how long */
		kp_prom__family(fp, "kprof_stat_session_running", "gauge",
				"1 while the counting session counts, 0 once stopped (its counts frozen).");
		fputs("kprof_stat_session_running", fp);
		kp_prom__labels(fp, "session", session, NULL);
		kp_prom__value(fp, counts->state == KPROF_COUNT_STATE_RUNNING);
		kp_prom__stat_metrics(fp, &r, session);
	}
out:
	free(events);
	free(v);
	kp_stat_table__free(&t);
	kp_stat_counts__free(counts);
	free(counts);
}

/* --- the aggregation tables' functions ------------------------------------- */

struct functions {
	struct kp_prom_function	*f;
	size_t			nr, alloc;
	uint64_t		total;
};

/* One distinct stack: its samples go to its innermost frame's function. */
static int functions__stack(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	const struct kp_frame *leaf = s->nr_frames ? &s->frames[0] : NULL;
	struct functions *fn = arg;
	struct kp_prom_function *f;

	(void)d;
	if (s->offcpu)		/* nanoseconds blocked, not samples */
		return 0;
	if (fn->nr == fn->alloc) {
		size_t alloc = fn->alloc ? fn->alloc * 2 : 256;

		f = reallocarray(fn->f, alloc, sizeof(*f));
		if (!f)
			return -ENOMEM;
		fn->f = f;
		fn->alloc = alloc;
	}
	f = &fn->f[fn->nr++];
	f->function = leaf && leaf->sym ? leaf->sym->name : KP_UNKNOWN;
	f->dso = leaf && leaf->dso ? leaf->dso->name : KP_UNKNOWN;
	f->samples = s->count;
	fn->total += s->count;
	return 0;
}

static int function__cmp_name(const void *a, const void *b)
{
	const struct kp_prom_function *x = a, *y = b;
	int c = strcmp(x->dso, y->dso);

	return c ? c : strcmp(x->function, y->function);
}

/* The most samples first; ties by DSO and name, so that scrapes agree. */
static int function__cmp_samples(const void *a, const void *b)
{
	const struct kp_prom_function *x = a, *y = b;

	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return function__cmp_name(a, b);
}

/*
 * Add up the stacks of the same function (by name and DSO: two symbols of
 * one name are one series) and sort them, the largest first.
 */
static void functions__merge(struct functions *fn)
{
	size_t i, n = 0;

	if (!fn->nr)
		return;
	qsort(fn->f, fn->nr, sizeof(*fn->f), function__cmp_name);
	for (i = 1; i < fn->nr; i++) {
		if (!function__cmp_name(&fn->f[n], &fn->f[i]))
			fn->f[n].samples += fn->f[i].samples;
		else
			fn->f[++n] = fn->f[i];
	}
	fn->nr = n + 1;
	qsort(fn->f, fn->nr, sizeof(*fn->f), function__cmp_samples);
}

/*
 * kprof_function_samples of the ex->top largest functions and _other, when
 * the sampling session aggregates; nothing when it does not or a read
 * fails (the reason on stderr).
 */
static void exporter__functions(FILE *fp, const struct exporter *ex, struct kp_nl *nl)
{
	struct kp_agg_save_opts o = { .cmd = ex->cmd, .quiet = true };
	struct kp_decode_opts opts = ex->opts;
	struct functions fn = { 0 };
	struct kp_agg_summary sum;
	char path[PATH_MAX];
	struct kp_decoder d;
	struct kp_err err;
	uint64_t top = 0;
	size_t i, nr;
	int ret;

	ret = kp_agg__tmpfile(path, sizeof(path), "kprof-exporter", &err);
	if (!ret) {
		ret = kp_agg__save_profile(nl, path, &o, &sum, &err);
		if (!ret)
			ret = kp_decoder__open(&d, path, &opts, &err);
		unlink(path);	/* mapped: read on after the unlink */
	}
	if (ret) {
		if (ret != -ENOENT && ret != -EOPNOTSUPP)
			kp_err__print(&err, ex->cmd);
		return;
	}
	ret = kp_decoder__for_each_stack(&d, 0, functions__stack, &fn);
	if (ret) {
		kp_error(ex->cmd, "the aggregation tables: %s", strerror(-ret));
	} else {
		functions__merge(&fn);
		nr = fn.nr < ex->top ? fn.nr : ex->top;
		for (i = 0; i < nr; i++)
			top += fn.f[i].samples;
		kp_prom__functions(fp, fn.f, nr, fn.total - top);
	}
	kp_decoder__close(&d);
	free(fn.f);
}

static double daemon_saved(const struct kp_daemon_state *d) { return d->saved; }
static double daemon_not_saved(const struct kp_daemon_state *d) { return d->not_saved; }
static double daemon_removed(const struct kp_daemon_state *d) { return d->removed; }
static double daemon_last_end(const struct kp_daemon_state *d) { return d->last_end_ns / 1e9; }
static double daemon_waiting(const struct kp_daemon_state *d) { return d->spooled; }

/*
 * The kprof_daemon_* series of one value per daemon, in family order; a
 * row without a type continues the family above it.
 */
static const struct {
	const char	*name, *type, *help;
	const char	*outcome;	/* its outcome label, or NULL */
	bool		upload;		/* daemons with --upload only */
	double		(*value)(const struct kp_daemon_state *d);
} daemon_series[] = {
	{ "kprof_daemon_intervals_total", "counter",
	  "Intervals the daemon closed, by outcome: saved (every format in its directory) or not_saved.",
	  "saved", false, daemon_saved },
	{ "kprof_daemon_intervals_total", NULL, NULL, "not_saved", false, daemon_not_saved },
	{ "kprof_daemon_removed_intervals_total", "counter",
	  "Intervals whose files retention removed (--keep, --max-age, --max-size).",
	  NULL, false, daemon_removed },
	{ "kprof_daemon_last_interval_end_seconds", "gauge",
	  "Unix time of the end of the last interval saved (0: none yet).",
	  NULL, false, daemon_last_end },
	{ "kprof_daemon_upload_waiting", "gauge",
	  "Profiles of a daemon with --upload waiting to be delivered (spool and outbox).",
	  NULL, true, daemon_waiting },
};

/*
 * The daemons ('kprofctl daemon') of the sessions listed: what each says
 * of itself in the run directory (lib/rundir.h), labelled with its
 * session; nothing when none runs.
 */
static void exporter__daemons(FILE *fp, const struct kp_session_row *rows, unsigned int nr)
{
	struct kp_daemon_state *d = NULL;
	unsigned int n = 0, i, k;
	char id[24], pid[16];
	struct kp_err err;

	d = calloc(nr ? nr : 1, sizeof(*d));
	if (!d)
		goto out;
	for (i = 0; i < nr; i++)
		if (!kp_rundir__read_daemon(rows[i].id, &d[n], &err))
			n++;
	if (!n)
		goto out;
	kp_prom__family(fp, "kprof_daemon_info", "gauge",
			"1 for each kprofctl daemon, by session, pid and output directory.");
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof(id), "%" PRIu64, d[i].session_id);
		snprintf(pid, sizeof(pid), "%d", (int)d[i].pid);
		fputs("kprof_daemon_info", fp);
		kp_prom__labels(fp, "session", id, "pid", pid, "dir", d[i].dir, "formats",
				d[i].formats, NULL);
		kp_prom__value(fp, 1);
	}
	for (k = 0; k < KP_ARRAY_SIZE(daemon_series); k++) {
		if (daemon_series[k].type)
			kp_prom__family(fp, daemon_series[k].name, daemon_series[k].type,
					daemon_series[k].help);
		for (i = 0; i < n; i++) {
			if (daemon_series[k].upload && !*d[i].upload)
				continue;
			snprintf(id, sizeof(id), "%" PRIu64, d[i].session_id);
			fputs(daemon_series[k].name, fp);
			if (daemon_series[k].outcome)
				kp_prom__labels(fp, "session", id, "outcome", daemon_series[k].outcome,
						NULL);
			else
				kp_prom__labels(fp, "session", id, NULL);
			kp_prom__value(fp, daemon_series[k].value(&d[i]));
		}
	}
out:
	free(d);
}

/*
 * The session --top reads among @rows: the newest running aggregating
 * session that is not read in intervals (a daemon's: its tables restart at
 * each swap, so what they hold is no counter), else none (0).  @st:
 * STATUS's session, for a module that lists none (ABI before 1.10).
 */
static uint64_t exporter__top_session(const struct kp_session_row *rows, unsigned int nr,
				      const struct kp_status_info *st)
{
	const uint32_t want = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_INTERVALS;
	uint64_t id = 0, start = 0;
	unsigned int i;

	if (!nr)
		return st->has_session && st->state == KPROF_STATE_RUNNING &&
		       (st->session_flags & want) == KPROF_SESSION_F_AGGREGATE ? st->session_id : 0;
	for (i = 0; i < nr; i++)
		if (rows[i].state == KPROF_STATE_RUNNING &&
		    (rows[i].flags & want) == KPROF_SESSION_F_AGGREGATE &&
		    (!id || rows[i].start_ns > start)) {
			id = rows[i].id;
			start = rows[i].start_ns;
		}
	return id;
}

/* One exposition of the module's state now, into @fp. */
static void exporter__render(FILE *fp, const struct exporter *ex)
{
	struct kp_version_info v;
	struct kp_status_info st;
	struct kp_session_row *rows;
	struct kp_stats *cpus = NULL;
	unsigned int nr = 0, nr_rows = 0;
	struct kp_err err;
	struct kp_nl *nl;

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__version(nl, false, &v, &err) || kp_nl__status(nl, &st, &err)) {
		kp_prom__health(fp, NULL, NULL, NULL, 0);
		kp_nl__delete(nl);
		return;
	}
	/* of the session STATUS details, named: with several, the module needs its id */
	kp_nl__set_session(nl, st.session_id);
	if (st.has_session && kp_nl__stats(nl, &cpus, &nr, &err))
		nr = 0;
	kp_prom__health(fp, &v, &st, cpus, nr);
	free(cpus);
	exporter__counting(fp, ex, nl);
	/* the sessions, listed once for the daemons' state and --top's choice */
	rows = calloc(KP_STATUS_SESSIONS_MAX, sizeof(*rows));
	if (!rows || kp_nl__sessions(nl, rows, KP_STATUS_SESSIONS_MAX, &nr_rows, &err))
		nr_rows = 0;
	if (nr_rows > KP_STATUS_SESSIONS_MAX)
		nr_rows = KP_STATUS_SESSIONS_MAX;
	exporter__daemons(fp, rows, nr_rows);
	if (ex->top) {
		uint64_t id = exporter__top_session(rows, nr_rows, &st);

		if (id) {
			kp_nl__set_session(nl, id);
			exporter__functions(fp, ex, nl);
		}
	}
	free(rows);
	kp_nl__delete(nl);
}

static enum MHD_Result exporter__reply(struct MHD_Connection *c, unsigned int code,
				       const char *type, char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								 MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result exporter__request(void *cls, struct MHD_Connection *c, const char *url,
					 const char *method, const char *version,
					 const char *upload, size_t *upload_size, void **state)
{
	char *body = NULL;
	size_t len = 0;
	FILE *fp;

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return exporter__reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
				       strdup("GET /metrics\n"), 13);
	if (!strcmp(url, "/"))
		return exporter__reply(c, MHD_HTTP_OK, "text/html",
				       strdup("<html><body><a href=\"/metrics\">kprof metrics</a></body></html>\n"),
				       63);
	if (strcmp(url, "/metrics"))
		return exporter__reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
				       strdup("not found: GET /metrics\n"), 24);
	fp = open_memstream(&body, &len);
	if (!fp)
		return MHD_NO;
	exporter__render(fp, cls);
	if (fclose(fp)) {
		free(body);
		return MHD_NO;
	}
	return exporter__reply(c, MHD_HTTP_OK, KP_PROM_CONTENT_TYPE, body, len);
}

/* "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6) into @ss; false when bad. */
static bool exporter__listen(const char *arg, struct sockaddr_storage *ss)
{
	char host[64];
	const char *colon;
	unsigned long port;
	char *end;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(arg, ':');
	if (!colon || colon == arg)
		return false;
	n = colon - arg;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port == 0 || port > 65535)
		return false;
	if (arg[0] == '[') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (n < 3 || arg[n - 1] != ']' || n - 2 >= sizeof(host))
			return false;
		memcpy(host, arg + 1, n - 2);
		host[n - 2] = '\0';
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (n >= sizeof(host))
			return false;
		memcpy(host, arg, n);
		host[n] = '\0';
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		return inet_pton(AF_INET, host, &in->sin_addr) == 1;
	}
}

int cmd_exporter(int argc, const char **argv)
{
	const char *cmd = argv[0], *listen = "127.0.0.1:9464", *top = NULL;
	struct exporter ex = { .cmd = cmd };
	bool once = false;
	const struct option options[] = {
		OPT_STRING(0, "listen", &listen, "addr:port",
			   "where to serve /metrics (default 127.0.0.1:9464; [::1]:PORT for IPv6)"),
		OPT_BOOLEAN(0, "once", &once, "print one exposition on standard output and exit"),
		OPT_STRING(0, "top", &top, "n",
			   "serve the N functions most often innermost in the tables (at most 100; default 0: none)"),
		KP_DECODE_SYMBOL_OPTIONS(&ex.opts.machine),
		OPT_END()
	};
	struct sockaddr_storage ss;
	struct MHD_Daemon *daemon;
	sigset_t set;
	int sig;

	argc = parse_options(argc, argv, options, exporter_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (top && (kp_parse_uint(top, &ex.top) || ex.top > EXPORTER_MAX_TOP)) {
		kp_error(cmd, "bad --top '%s': a number of functions from 0 to %d expected", top,
			 EXPORTER_MAX_TOP);
		return KP_EXIT_USAGE;
	}
	ex.opts.machine.cmd = cmd;
	ex.opts.machine.proc_root = true;
	if (once) {
		exporter__render(stdout, &ex);
		return fflush(stdout) ? KP_EXIT_FAILURE : KP_EXIT_OK;
	}
	if (!exporter__listen(listen, &ss)) {
		kp_error(cmd, "bad --listen '%s': ADDR:PORT or [ADDR6]:PORT expected", listen);
		return KP_EXIT_USAGE;
	}
	/* the signals that end it, waited for below; the server thread never sees them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, exporter__request, &ex,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT, 64U,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10U,
				  MHD_OPTION_END);
	if (!daemon) {
		kp_error(cmd, "cannot listen on %s: %s", listen, strerror(errno ? errno : EADDRINUSE));
		return KP_EXIT_FAILURE;
	}
	fprintf(stderr, "kprofctl exporter: serving http://%s/metrics (Ctrl-C to stop)\n", listen);
	sigwait(&set, &sig);
	MHD_stop_daemon(daemon);
	return KP_EXIT_OK;
}
