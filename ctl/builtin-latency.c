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

/* One function's histogram, summed over CPUs. */
struct kp_latency_hist {
	uint32_t	event;
	uint64_t	count;
	uint64_t	sum_ns;
	uint64_t	max_ns;
	uint64_t	missed;
	uint64_t	buckets[KPROF_HIST_BUCKETS];
};

struct latency_dump {
	struct kp_latency_hist	*hists;
	unsigned int		nr;		/* events of the session */
};

static int latency__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct latency_dump *d = arg;
	struct nlattr *tb[KPROF_A_MAX + 1], *nest, *a;
	struct kp_latency_hist h = { 0 };
	bool has_event = false;
	int rem;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, KPROF_A_MAX, NULL) < 0)
		goto bad;
	nest = tb[KPROF_A_HIST];
	if (!nest)
		return 0;
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case KPROF_HIST_A_EVENT:
			if (nla_len(a) != 4)
				goto bad;
			h.event = nla_get_u32(a);
			has_event = true;
			break;
		case KPROF_HIST_A_COUNT:
			h.count = nla_get_u64(a);
			break;
		case KPROF_HIST_A_SUM_NS:
			h.sum_ns = nla_get_u64(a);
			break;
		case KPROF_HIST_A_MAX_NS:
			h.max_ns = nla_get_u64(a);
			break;
		case KPROF_HIST_A_MISSED:
			h.missed = nla_get_u64(a);
			break;
		case KPROF_HIST_A_BUCKETS:
			if (nla_len(a) != sizeof(h.buckets))
				goto bad;
			memcpy(h.buckets, nla_data(a), sizeof(h.buckets));
			break;
		}
	}
	if (!has_event || h.event >= d->nr)
		goto bad;
	d->hists[h.event] = h;
	d->hists[h.event].event = h.event;
	return 0;
bad:
	kp_err__set(err, EBADMSG, "malformed HIST_DUMP reply from kprof.ko");
	return -EBADMSG;
}

static int latency__dump(struct kp_nl *nl, struct latency_dump *d, struct kp_err *err)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0,
				 NLM_F_DUMP, KPROF_CMD_HIST_DUMP, KPROF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return kp_nl__request(nl, msg, latency__reply, d, err);
}

/* The value below which @q of the calls fall, from the buckets (upper bound). */
static uint64_t latency__quantile(const struct kp_latency_hist *h, double q)
{
	uint64_t want, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * h->count + 0.999999);
	if (!want)
		want = 1;
	for (i = 0; i < KPROF_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= want) {
			uint64_t hi = i >= 63 ? UINT64_MAX : (2ULL << i) - 1;

			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}

/*
 * Print @h as BCC's funclatency does (print_log2_hist()), in nsecs, usecs
 * or msecs (@div 1, 1000, 1000000): row i counts [2^(i-1), 2^i) units,
 * from row 1 to the last non-empty one.  @header: several functions.
 */
static void latency__print(FILE *fp, const char *func, bool header,
			   const struct kp_latency_hist *h, unsigned int div)
{
	const char *unit = div == 1 ? "nsecs" : div == 1000 ? "usecs" : "msecs";
	uint64_t rows[KPROF_HIST_BUCKETS + 1] = { 0 }, max = 0;
	unsigned int i, last = 0, w;
	char star[41];

	for (i = 0; i < KPROF_HIST_BUCKETS; i++) {
		uint64_t v = (1ULL << i) / div;

		rows[v ? 64 - __builtin_clzll(v) : 1] += h->buckets[i];
	}
	for (i = 1; i <= KPROF_HIST_BUCKETS; i++) {
		if (rows[i])
			last = i;
		if (rows[i] > max)
			max = rows[i];
	}
	if (header)
		fprintf(fp, "\nFunction = %s\n", func);
	w = last <= 32 ? 10 : 20;
	if (last <= 32)
		fprintf(fp, "     %-19s : count     distribution\n", unit);
	else
		fprintf(fp, "               %-29s : count     distribution\n", unit);
	for (i = 1; i <= last; i++) {
		uint64_t low = (1ULL << (i - 1)), high = i == 64 ? UINT64_MAX : (1ULL << i) - 1;
		unsigned int n = max ? (unsigned int)(rows[i] * 40 / max) : 0;

		if (low == high)
			low--;
		memset(star, '*', n);
		star[n] = '\0';
		fprintf(fp, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |%-40s|\n", w, low, w,
			high, rows[i], star);
	}
	if (!h->count) {
		fprintf(fp, "\nno calls of %s were timed\n", func);
	} else {
		fprintf(fp, "\navg = %" PRIu64 " %s, total: %" PRIu64 " %s, count: %" PRIu64 "\n",
			h->sum_ns / h->count / div, unit, h->sum_ns / div, unit, h->count);
		fprintf(fp, "p50 <= %" PRIu64 " %s, p99 <= %" PRIu64 " %s, max = %" PRIu64 " %s\n",
			latency__quantile(h, 0.5) / div, unit, latency__quantile(h, 0.99) / div,
			unit, h->max_ns / div, unit);
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
	struct kp_session *s = NULL;
	struct latency_dump d = { 0 };
	struct kp_start_info info;
	struct kp_stop_info stop;
	struct sigaction sa, old_int, old_term;
	struct kp_version_info ver;
	struct kp_nl *nl = NULL;
	enum kp_target target;
	const char *funcs;
	struct kp_workload wl = KP_WORKLOAD_INIT;
	struct kp_err err;
	int ret = KP_EXIT_FAILURE, e;
	bool started = false, signals = false;
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

	s = calloc(1, sizeof(*s));
	if (!s) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		return KP_EXIT_FAILURE;
	}
	/* Only the target of the session options: the events are ours. */
	opts.events[0] = "cpu-clock";
	opts.nr_event_args = 1;
	opts.buffer_size = "8K";
	if (kp_session__from_opts(s, &target, &opts, argc > 0, true, cmd, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_USAGE;
		goto out;
	}
	s->nr_events = 0;
	s->flags &= ~(KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK);
	if (latency__funcs(s, funcs, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_USAGE;
		goto out;
	}
	d.nr = s->nr_events;
	d.hists = calloc(d.nr, sizeof(*d.hists));
	if (!d.hists) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		goto out;
	}

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__hello(nl, &ver, &err))
		goto out_err;

	if (argc) {
		if (kp_workload__prepare(&wl, argv, NULL, &err))
			goto out_err;
		if (target == KP_TARGET_COMMAND) {
			s->pids[0] = wl.pid;
			s->nr_pids = 1;
		}
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = latency__sighandler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signals = true;
	latency_signal = 0;

	kp_session__own(s, ver.abi);
	if (kp_nl__start(nl, s, &info, &err))
		goto out_err;
	started = true;
	if (!argc)
		fprintf(stderr, "Tracing %u function%s for \"%s\"... Hit Ctrl-C to end.\n",
			s->nr_events, s->nr_events > 1 ? "s" : "", funcs);

	if (argc) {
		e = -kp_workload__start(&wl, &err);
		if (e && !wl.exec_errno) {
			kp_err__set(&err, e, "cannot start the command: %s", strerror(e));
			goto out_err;
		}
		/* The histograms of a command that cannot run are empty. */
		if (e)
			kp_error(cmd, "cannot run '%s': %s", argv[0], strerror(wl.exec_errno));
		/* Ctrl-C: the command gets it too; wait for it. */
		kp_workload__reap(&wl, true);
	} else {
		while (!latency_signal) {
			usleep(200000);
			if (target != KP_TARGET_PIDS)
				continue;
			for (i = 0; i < s->nr_pids; i++)
				if (kp_sys__pid_exists(s->pids[i]))
					break;
			if (i == s->nr_pids)
				break;
		}
	}

	if (latency__dump(nl, &d, &err))
		goto out_err;
	started = false;
	if (kp_nl__stop(nl, &stop, &err))
		goto out_err;
	if (!argc)
		fprintf(stdout, "\n");
	for (i = 0; i < d.nr; i++)
		latency__print(stdout, s->events[i].symbol, d.nr > 1, &d.hists[i], div);
	fflush(stdout);
	ret = argc ? kp_workload__exit_code(&wl) : KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	if (started)
		kp_nl__stop(nl, &stop, &err);
	kp_workload__abort(&wl, SIGKILL);
	if (signals) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
	}
	kp_nl__delete(nl);
	free(d.hists);
	free(s);
	return ret;
}
