// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl latency [<options>] FUNC[,FUNC...] [-- <command> [<args>]]
 *
 * BCC funclatency on kprof: START a session of KPROF_TYPE_LATENCY events
 * (kretprobes timing each call into log2 histograms in the kernel), wait
 * for the command to exit, the -p processes to be gone, or SIGINT/SIGTERM,
 * read KPROF_CMD_HIST_DUMP, STOP, and print one histogram per function.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

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

static const char * const latency_usage[] = {
	"kprofctl latency [<options>] FUNC[,FUNC...] [-- <command> [<args>]]",
	"",
	"Time every call of the kernel functions FUNC, from entry to return, into",
	"log2 histograms, as BCC's funclatency does: for a command until it exits",
	"(with its exit status), for processes (-p) until they are gone, or for the",
	"whole system until SIGINT (Ctrl-C) or SIGTERM.  Needs CAP_PERFMON.",
	NULL
};

static volatile sig_atomic_t latency_signal;

static void latency__sighandler(int sig)
{
	latency_signal = sig;
}

/*
 * Print @h as BCC's funclatency does (print_log2_hist()), in nsecs, usecs
 * or msecs (@div 1, 1000, 1000000).  @header: several functions.
 */
static void latency__print(FILE *fp, const char *func, bool header,
			   const struct kp_hist *h, unsigned int div)
{
	const char *unit = div == 1 ? "nsecs" : div == 1000 ? "usecs" : "msecs";
	uint64_t rows[KP_HIST_ROWS];

	if (header)
		fprintf(fp, "\nFunction = %s\n", func);
	kp_hist__ns_rows(h, div, rows);
	kp_hist__print_rows(fp, rows, unit);
	if (!h->count) {
		fprintf(fp, "\nno calls of %s were timed\n", func);
	} else {
		fprintf(fp, "\navg = %" PRIu64 " %s, total: %" PRIu64 " %s, count: %" PRIu64 "\n",
			h->sum_ns / h->count / div, unit, h->sum_ns / div, unit, h->count);
		fprintf(fp, "p50 <= %" PRIu64 " %s, p99 <= %" PRIu64 " %s, max = %" PRIu64 " %s\n",
			kp_hist__quantile_ns(h, 0.5) / div, unit,
			kp_hist__quantile_ns(h, 0.99) / div, unit, h->max_ns / div, unit);
	}
	if (h->missed)
		fprintf(fp, "missed: %" PRIu64 " calls not timed (no free kretprobe instance)\n",
			h->missed);
}

static int latency__funcs(struct kp_session *s, const char *arg, struct kp_err *err)
{
	const char *p = arg, *comma;
	struct kp_event *ev;
	size_t len, i;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len || len >= KPROF_EVENT_NAME_MAX - 8) {
			kp_err__set(err, EINVAL, "invalid function name '%.*s'", (int)len, p);
			return -EINVAL;
		}
		for (i = 0; i < len; i++)
			if (!isalnum((unsigned char)p[i]) && p[i] != '_' && p[i] != '.') {
				kp_err__set(err, EINVAL, "invalid function name '%.*s'", (int)len, p);
				return -EINVAL;
			}
		if (s->nr_events >= KPROF_MAX_EVENTS) {
			kp_err__set(err, E2BIG, "too many functions: at most %d", KPROF_MAX_EVENTS);
			return -E2BIG;
		}
		ev = &s->events[s->nr_events++];
		memset(ev, 0, sizeof(*ev));
		ev->type = KPROF_TYPE_LATENCY;
		snprintf(ev->symbol, sizeof(ev->symbol), "%.*s", (int)len, p);
		snprintf(ev->name, sizeof(ev->name), "latency:%.*s", (int)len, p);
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int cmd_latency(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_session_opts opts = { 0 };
	bool usecs = false, msecs = false;
	const struct option options[] = {
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]",
			     "time the calls of these existing processes only",
			     kp_session_opts__pid_cb),
		OPT_BOOLEAN('u', "microseconds", &usecs, "microsecond histograms"),
		OPT_BOOLEAN('m', "milliseconds", &msecs, "millisecond histograms"),
		OPT_END()
	};
	struct kp_hist_run r = { .wl = KP_WORKLOAD_INIT };
	struct kp_hist *hists = NULL;
	struct kp_session *s = NULL;
	const char *funcs;
	struct kp_err err;
	int ret = KP_EXIT_FAILURE;
	unsigned int i, div;

	argc = parse_options(argc, argv, options, latency_usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (!argc) {
		kp_error(cmd, "no function given: kprofctl latency FUNC[,FUNC...] [-- COMMAND]");
		return KP_EXIT_USAGE;
	}
	if (usecs && msecs) {
		kp_error(cmd, "options -u/--microseconds and -m/--milliseconds are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	div = msecs ? 1000000 : usecs ? 1000 : 1;
	funcs = argv[0];
	argc--;
	argv++;
	if (argc && !strcmp(argv[0], "--")) {
		argc--;
		argv++;
	}

	if (kp_hist_run__session(&r, &opts, argc > 0, cmd, &err)) {
		kp_err__print(&err, cmd);
		ret = r.s ? KP_EXIT_USAGE : KP_EXIT_FAILURE;
		goto out;
	}
	s = r.s;
	if (latency__funcs(s, funcs, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_USAGE;
		goto out;
	}
	hists = calloc(s->nr_events, sizeof(*hists));
	if (!hists) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		goto out;
	}

	latency_signal = 0;
	if (kp_hist_run__start(&r, argc, argv, latency__sighandler, 0, "latency", cmd, &err))
		goto out_err;
	if (!argc)
		fprintf(stderr, "Tracing %u function%s for \"%s\"... Hit Ctrl-C to end.\n",
			s->nr_events, s->nr_events > 1 ? "s" : "", funcs);

	if (argc) {
		/* Ctrl-C: the command gets it too; wait for it. */
		kp_workload__reap(&r.wl, true);
	} else {
		kp_hist_run__wait(&r, 0, &latency_signal);
	}

	if (kp_nl__hist_dump(r.nl, hists, s->nr_events, NULL, &err))
		goto out_err;
	ret = kp_hist_run__stop(&r, &err);
	if (ret < 0)
		goto out_err;
	if (!argc)
		fprintf(stdout, "\n");
	for (i = 0; i < s->nr_events; i++)
		latency__print(stdout, s->events[i].symbol, s->nr_events > 1, &hists[i], div);
	fflush(stdout);
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	kp_hist_run__end(&r);
	free(hists);
	free(r.s);
	return ret;
}
