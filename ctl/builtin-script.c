// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl script [-i <file>] [<options>]
 *
 * Every sample of kprof.data, in time order, in the layout of 'perf
 * script' with call chains, which FlameGraph's stackcollapse-perf.pl reads
 * unchanged:
 *
 *	COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT:
 *	\tADDRESS SYMBOL+0xOFFSET (DSO)		one line per frame, innermost
 *	\tADDRESS [unknown] (DSO)		first; DSO is [unknown] without
 *						a mapping
 *	(an empty line)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/decode.h"
#include "lib/out.h"
#include "lib/parse-options.h"
#include "lib/session.h"
#include "lib/tpdecode.h"
#include "lib/util.h"

static const char * const script_usage[] = {
	"kprofctl script [-i <file>] [<options>]",
	"",
	"Print every sample with its resolved call chain, in time order, in the",
	"layout of 'perf script' (stackcollapse-perf.pl reads it unchanged).",
	NULL
};

struct script {
	struct kp_filter	filter;
	struct kp_out		*out;
	int			name_width;
	bool			ns;
	bool			show_build_id;
	struct kp_tpdecode	*tp;		/* tracepoint records, with libtraceevent */
};

/* A tracepoint sample's record, as perf script prints it after "EVENT:". */
static void script__raw(struct script *sc, const struct kp_rec_sample *r)
{
	const char *text;
	const void *raw;
	uint32_t len;

	if (!(r->header.misc & KPROF_MISC_RAW))
		return;
	raw = kp_sample__raw(r, r->header.size, r->nr_kernel + r->nr_user, &len);
	text = raw ? kp_tpdecode__info(sc->tp, r->event, r->cpu, raw, len) : NULL;
	if (!text)
		return;
	kp_out__chr(sc->out, ' ');
	kp_out__str(sc->out, text);
}

static void script__frame(struct script *sc, const struct kp_frame *f)
{
	struct kp_out *o = sc->out;

	kp_out__chr(o, '\t');
	kp_out__hex(o, f->addr, 16);
	kp_out__chr(o, ' ');
	if (f->sym) {
		kp_out__str(o, f->sym->name);
		kp_out__str(o, "+0x");
		kp_out__hex(o, f->dso_addr - f->sym->start, 0);
	} else {
		kp_out__str(o, KP_UNKNOWN);
	}
	kp_out__str(o, " (");
	kp_out__str(o, f->dso ? f->dso->name : KP_UNKNOWN);
	if (sc->show_build_id && f->dso && f->dso->build_id_len) {
		char hex[2 * KP_BUILD_ID_MAX + 1];

		kp_out__str(o, " buildid:");
		kp_out__str(o, kp_dso__build_id_hex(f->dso, hex, sizeof(hex)));
	}
	kp_out__str(o, ")\n");
}

static int script__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct script *sc = arg;
	const struct kp_rec_sample *r = s->rec;
	unsigned int i, first, last;
	const char *ev;
	struct kp_out *o = sc->out;
	int n;

	if (!kp_filter__sample(&sc->filter, s, &first, &last))
		return 0;
	ev = kp_decoder__event_name(d, r->event);
	kp_out__str(o, s->comm);
	kp_out__chr(o, ' ');
	kp_out__u64(o, r->pid, 5, ' ');
	kp_out__chr(o, '/');
	kp_out__u64(o, r->tid, 0, ' ');
	for (n = r->tid < 10 ? 1 : r->tid < 100 ? 2 : r->tid < 1000 ? 3 : 4; n < 5; n++)
		kp_out__chr(o, ' ');
	kp_out__str(o, " [");
	kp_out__u64(o, r->cpu, 3, '0');
	kp_out__str(o, "] ");
	kp_out__u64(o, r->time / 1000000000ULL, 5, ' ');
	kp_out__chr(o, '.');
	if (sc->ns)
		kp_out__u64(o, r->time % 1000000000ULL, 9, '0');
	else
		kp_out__u64(o, r->time % 1000000000ULL / 1000, 6, '0');
	kp_out__str(o, ": ");
	kp_out__u64(o, r->period, 10, ' ');
	kp_out__chr(o, ' ');
	for (n = strlen(ev); n < sc->name_width; n++)
		kp_out__chr(o, ' ');
	kp_out__str(o, ev);
	kp_out__chr(o, ':');
	script__raw(sc, r);
	kp_out__chr(o, '\n');
	for (i = first; i < last; i++)
		script__frame(sc, &s->frames[i]);
	kp_out__chr(o, '\n');
	return 0;
}

int cmd_script(int argc, const char **argv)
{
	const char *cmd = argv[0], *input = KP_DEFAULT_OUTPUT;
	const char *comms = NULL, *pids = NULL, *tids = NULL, *dsos = NULL;
	struct kp_decode_opts opts = { .time_order = true };
	struct script sc = { 0 };
	bool kernel = false, user = false;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		OPT_STRING(0, "comms", &comms, "comm[,comm...]", "only these commands"),
		OPT_STRING(0, "pids", &pids, "pid[,pid...]", "only these processes"),
		OPT_STRING(0, "tids", &tids, "tid[,tid...]", "only these threads"),
		OPT_STRING(0, "dsos", &dsos, "dso[,dso...]", "only samples in these DSOs"),
		OPT_BOOLEAN('K', "kernel", &kernel, "kernel frames only"),
		OPT_BOOLEAN('U', "user", &user, "user frames only"),
		OPT_BOOLEAN(0, "ns", &sc.ns, "times in nanoseconds"),
		OPT_BOOLEAN(0, "show-build-id", &sc.show_build_id, "show the DSOs' build-ids"),
		OPT_END()
	};
	struct kp_decoder d;
	struct kp_err err;
	unsigned int i;
	int ret;

	argc = parse_options(argc, argv, options, script_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	ret = kp_filter__init(&sc.filter, cmd, comms, pids, tids, dsos, kernel, user);
	if (ret) {
		kp_filter__exit(&sc.filter);
		return ret;
	}
	opts.machine.cmd = cmd;
	opts.machine.proc_root = true;
	if (kp_decoder__open(&d, input, &opts, &err)) {
		kp_err__print(&err, cmd);
		kp_filter__exit(&sc.filter);
		return KP_EXIT_FAILURE;
	}
	for (i = 0; i < d.info.session.nr_events; i++) {
		int n = strlen(d.info.session.events[i].name);

		if (n > sc.name_width)
			sc.name_width = n;
	}
	sc.out = kp_out__new(stdout);
	sc.tp = kp_tpdecode__new(&d.info.session, d.info.machine, &d.tp_formats);
	ret = sc.out && sc.tp ? kp_decoder__for_each(&d, script__sample, &sc) : -ENOMEM;
	kp_out__delete(sc.out);
	kp_tpdecode__delete(sc.tp);
	kp_decoder__close(&d);
	kp_filter__exit(&sc.filter);
	if (ret) {
		kp_error(cmd, "%s", ret == -ENOMEM ? strerror(ENOMEM) :
			 "the input file changed while it was read");
		return KP_EXIT_FAILURE;
	}
	return KP_EXIT_OK;
}
