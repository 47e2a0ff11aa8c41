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
 *
 * With -F/--fields, perf script's fields in perf's layout: the chosen
 * ones of "COMM PID/TID [CPU] SECS.USECS: PERIOD EVENT: TRACE", then the
 * sample's address (ip, sym, symoff, dso) on the same line, or its call
 * chain below it in a recording with call chains.
 *
 * With -s SCRIPT.py [ARGS...], every sample goes to the handlers of a
 * perf-style Python script instead (lib/pyscript.c); -g python writes
 * perf-script.py, a starter one for the recording's events.
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
#include "lib/pyscript.h"
#include "lib/session.h"
#include "lib/tpdecode.h"
#include "lib/util.h"

static const char * const script_usage[] = {
	"kprofctl script [-i <file>] [<options>]",
	"kprofctl script [-i <file>] [<options>] -s <script.py> [<args>...]",
	"kprofctl script [-i <file>] -g python",
	"",
	"Print every sample with its resolved call chain, in time order, in the",
	"layout of 'perf script' (stackcollapse-perf.pl reads it unchanged);",
	"or hand them to a perf-style Python script (-s), or write one (-g python).",
	NULL
};

/* perf script's fields (-F) */
enum {
	F_COMM = 1U << 0, F_PID = 1U << 1, F_TID = 1U << 2, F_CPU = 1U << 3,
	F_TIME = 1U << 4, F_EVENT = 1U << 5, F_IP = 1U << 6, F_SYM = 1U << 7,
	F_DSO = 1U << 8, F_SYMOFF = 1U << 9, F_PERIOD = 1U << 10, F_TRACE = 1U << 11,
};

static const struct {
	const char	*name;
	unsigned int	bit;
} script_fields[] = {
	{ "comm", F_COMM }, { "pid", F_PID }, { "tid", F_TID }, { "cpu", F_CPU },
	{ "time", F_TIME }, { "event", F_EVENT }, { "ip", F_IP }, { "sym", F_SYM },
	{ "dso", F_DSO }, { "symoff", F_SYMOFF }, { "period", F_PERIOD }, { "trace", F_TRACE },
};

/* What kprofctl script prints without -F (its frames carry sym, symoff, dso). */
#define F_DEFAULT	(F_COMM | F_PID | F_TID | F_CPU | F_TIME | F_PERIOD | F_EVENT | F_TRACE | \
			 F_IP | F_SYM | F_SYMOFF | F_DSO)

struct script {
	struct kp_filter	filter;
	unsigned int		fields;		/* F_*; 0: the default layout */
	unsigned int		asked;		/* F_* named in -F (not by default) */
	bool			chains;		/* the recording has call chains */
	const char		*symbol;	/* --symbol-filter */
	struct kp_out		*out;
	int			name_width;
	bool			ns;
	bool			show_build_id;
	struct kp_tpdecode	*tp;		/* tracepoint records, with libtraceevent */
	struct kp_pyscript	*py;		/* -s: the samples go to the script */
};

/* What script__sample() returns when the script stopped. */
#define SCRIPT_STOPPED	1

/*
 * A tracepoint sample's record, as perf script prints it after "EVENT:",
 * with a space before it when @space (-F has printed "EVENT: " already).
 */
static void script__raw(struct script *sc, const struct kp_rec_sample *r, bool space)
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
	if (space)
		kp_out__chr(sc->out, ' ');
	kp_out__str(sc->out, text);
}

/*
 * A frame: "ADDRESS SYMBOL+0xOFFSET (DSO)", the parts -F chose, as perf
 * prints them: @lead ('\t' on a chain's lines) before the address only, a
 * space before the symbol and the DSO always.
 */
static void script__frame(struct script *sc, const struct kp_frame *f, unsigned int fields,
			  char lead)
{
	struct kp_out *o = sc->out;

	if (fields & F_IP) {
		if (lead)
			kp_out__chr(o, lead);
		/* perf: a user frame of a chain as its offset in the binary */
		if (lead && sc->fields && f->dso && !f->kernel && f->dso->nr_segs)
			kp_out__hex(o, kp_dso__file_offset(f->dso, f->dso_addr), 16);
		else
			kp_out__hex(o, f->addr, 16);
	}
	if (fields & F_SYM) {
		kp_out__chr(o, ' ');
		if (f->sym) {
			kp_out__str(o, f->sym->name);
			if (fields & F_SYMOFF) {
				kp_out__str(o, "+0x");
				kp_out__hex(o, f->dso_addr - f->sym->start, 0);
			}
		} else {
			kp_out__str(o, KP_UNKNOWN);
		}
	}
	if (!(fields & F_DSO))
		return;
	kp_out__str(o, " (");
	kp_out__str(o, f->dso ? f->dso->name : KP_UNKNOWN);
	if (sc->show_build_id && f->dso && f->dso->build_id_len) {
		char hex[2 * KP_BUILD_ID_MAX + 1];

		kp_out__str(o, " buildid:");
		kp_out__str(o, kp_dso__build_id_hex(f->dso, hex, sizeof(hex)));
	}
	kp_out__chr(o, ')');
}

/* Does any frame of [first, last) have the --symbol-filter symbol? */
static bool script__has_symbol(const struct script *sc, const struct kp_resolved *s,
			       unsigned int first, unsigned int last)
{
	unsigned int i;

	for (i = first; i < last; i++)
		if (s->frames[i].sym && !strcmp(s->frames[i].sym->name, sc->symbol))
			return true;
	return false;
}

/* The time: "SECS.USECS" (or .NSECS with --ns). */
static void script__time(struct script *sc, uint64_t t)
{
	kp_out__u64(sc->out, t / 1000000000ULL, 5, ' ');
	kp_out__chr(sc->out, '.');
	if (sc->ns)
		kp_out__u64(sc->out, t % 1000000000ULL, 9, '0');
	else
		kp_out__u64(sc->out, t % 1000000000ULL / 1000, 6, '0');
}

/* "%*s": @s right-aligned in @width columns. */
static void script__right(struct kp_out *o, const char *s, int width)
{
	int n;

	for (n = strlen(s); n < width; n++)
		kp_out__chr(o, ' ');
	kp_out__str(o, s);
}

/* One sample with -F, in perf script's layout for those fields. */
static void script__fields(struct script *sc, struct kp_decoder *d, const struct kp_resolved *s,
			   unsigned int first, unsigned int last)
{
	const struct kp_rec_sample *r = s->rec;
	unsigned int fl = sc->fields, i;
	struct kp_out *o = sc->out;
	bool where = fl & F_IP;

	if (fl & F_COMM) {
		if (where && sc->chains) {
			kp_out__str(o, s->comm);
		} else {
			script__right(o, s->comm, 16);
		}
		kp_out__chr(o, ' ');
	}
	if ((fl & (F_PID | F_TID)) == (F_PID | F_TID)) {
		kp_out__u64(o, r->pid, 5, ' ');
		kp_out__chr(o, '/');
		kp_out__u64(o, r->tid, 0, ' ');
		for (i = r->tid < 10 ? 1 : r->tid < 100 ? 2 : r->tid < 1000 ? 3 : 4; i < 5; i++)
			kp_out__chr(o, ' ');
		kp_out__chr(o, ' ');
	} else if (fl & (F_PID | F_TID)) {
		kp_out__u64(o, fl & F_PID ? r->pid : r->tid, 5, ' ');
		kp_out__chr(o, ' ');
	}
	if (fl & F_CPU) {
		kp_out__chr(o, '[');
		kp_out__u64(o, r->cpu, 3, '0');
		kp_out__str(o, "] ");
	}
	if (fl & F_TIME) {
		script__time(sc, r->time);
		kp_out__str(o, ": ");
	}
	if (fl & F_PERIOD) {
		kp_out__u64(o, r->period, 10, ' ');
		kp_out__chr(o, ' ');
	}
	if (fl & F_EVENT) {
		script__right(o, kp_decoder__event_name(d, r->event), sc->name_width);
		kp_out__str(o, ": ");
	}
	if (fl & F_TRACE)
		script__raw(sc, r, false);
	if (where && sc->chains) {
		kp_out__chr(o, '\n');
		for (i = first; i < last; i++) {
			script__frame(sc, &s->frames[i], fl, '\t');
			kp_out__chr(o, '\n');
		}
	} else if (where) {
		kp_out__chr(o, ' ');
		script__frame(sc, &s->frames[first], fl, 0);
	}
	kp_out__chr(o, '\n');
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
	if (sc->symbol && !script__has_symbol(sc, s, first, last))
		return 0;
	if (sc->py)
		return kp_pyscript__sample(sc->py, s, first, last) ? SCRIPT_STOPPED : 0;
	if (sc->fields) {
		script__fields(sc, d, s, first, last);
		return 0;
	}
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
	script__time(sc, r->time);
	kp_out__str(o, ": ");
	kp_out__u64(o, r->period, 10, ' ');
	kp_out__chr(o, ' ');
	script__right(o, ev, sc->name_width);
	kp_out__chr(o, ':');
	script__raw(sc, r, true);
	kp_out__chr(o, '\n');
	for (i = first; i < last; i++) {
		script__frame(sc, &s->frames[i], F_DEFAULT, '\t');
		kp_out__chr(o, '\n');
	}
	kp_out__chr(o, '\n');
	return 0;
}

/*
 * -F's list into *@fields: perf's names, comma-separated; "+f,..." or
 * "-f,..." adds to or takes from the default.  0, or KP_EXIT_USAGE with the
 * bad name printed.
 */
static int parse_fields(const char *cmd, const char *list, unsigned int *fields,
			unsigned int *asked)
{
	char *copy = strdup(list), *tok, *save = NULL;
	unsigned int i, f = 0;
	int ret = 0, mode = 0;	/* 0: a list, '+': add, '-': remove */

	if (!copy)
		return KP_EXIT_FAILURE;
	if (*copy == '+' || *copy == '-')
		f = F_DEFAULT;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*tok == '+' || *tok == '-')
			mode = *tok++;
		for (i = 0; i < KP_ARRAY_SIZE(script_fields); i++)
			if (!strcmp(tok, script_fields[i].name))
				break;
		if (i == KP_ARRAY_SIZE(script_fields)) {
			kp_error(cmd, "unknown field '%s' in -F (comm, pid, tid, cpu, time, event, ip, sym, symoff, dso, period, trace)",
				 tok);
			ret = KP_EXIT_USAGE;
			break;
		}
		if (mode == '-') {
			f &= ~script_fields[i].bit;
		} else {
			f |= script_fields[i].bit;
			*asked |= script_fields[i].bit;
		}
	}
	free(copy);
	if (!ret && !f) {
		kp_error(cmd, "-F '%s' leaves no field to print", list);
		ret = KP_EXIT_USAGE;
	}
	if (!ret && (f & F_SYMOFF) && !(f & F_SYM)) {
		kp_error(cmd, "-F symoff needs sym: the offset is from the symbol");
		ret = KP_EXIT_USAGE;
	}
	/* perf prints neither without the address (silently); say so instead */
	if (!ret && (f & (F_SYM | F_DSO)) && !(f & F_IP)) {
		kp_error(cmd, "-F %s needs ip: the %s of the sample's address", f & F_SYM ? "sym" : "dso",
			 f & F_SYM ? "symbol" : "DSO");
		ret = KP_EXIT_USAGE;
	}
	*fields = f;
	return ret;
}

/* perf's rule: a field the samples lack is an error naming it. */
static int check_fields(const struct script *sc, const struct kp_decoder *d, const char *cmd)
{
	const struct kp_session *s = &d->info.session;
	unsigned int i;

	if (!(sc->asked & F_TRACE))
		return 0;
	for (i = 0; i < s->nr_events; i++)
		if (s->events[i].type == PERF_TYPE_TRACEPOINT)
			return 0;
	kp_error(cmd, "-F trace: the samples of '%s' have no tracepoint record: the field needs a tracepoint event",
		 s->nr_events ? s->events[0].name : "?");
	return KP_EXIT_USAGE;
}

int cmd_script(int argc, const char **argv)
{
	const char *cmd = argv[0], *input = KP_DEFAULT_OUTPUT;
	const char *comms = NULL, *pids = NULL, *tids = NULL, *dsos = NULL;
	struct kp_decode_opts opts = { .time_order = true };
	struct script sc = { 0 };
	bool kernel = false, user = false, header = false, header_only = false;
	const char *fields = NULL, *time = NULL, *py = NULL, *gen = NULL;
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
		OPT_STRING('F', "fields", &fields, "field[,field...]",
			   "comm,pid,tid,cpu,time,event,ip,sym,symoff,dso,period,trace; +f / -f change the default"),
		OPT_STRING(0, "symbol-filter", &sc.symbol, "symbol",
			   "only samples with this symbol in their chain"),
		KP_DECODE_TIME_OPTION(&time),
		OPT_BOOLEAN(0, "header", &header, "show the recording's header first"),
		OPT_BOOLEAN(0, "header-only", &header_only, "show the recording's header only"),
		OPT_STRING('s', "script", &py, "script.py",
			   "hand the samples to a perf-style Python script; the arguments after it are its sys.argv"),
		OPT_STRING('g', "gen-script", &gen, "python",
			   "write perf-script.py, a starter script for the recording's events"),
		OPT_END()
	};
	struct kp_decoder d;
	struct kp_err err;
	unsigned int i;
	int ret;

	argc = parse_options(argc, argv, options, script_usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (!py && parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if ((py || gen) && fields) {
		kp_error(cmd, "%s and -F do not go together: the script prints what it chooses",
			 py ? "-s" : "-g");
		return KP_EXIT_USAGE;
	}
	if (py && gen) {
		kp_error(cmd, "-s and -g do not go together: run a script or write one");
		return KP_EXIT_USAGE;
	}
	if (gen && strcmp(gen, "python") && strcmp(gen, "py")) {
		kp_error(cmd, "-g %s: kprofctl writes Python scripts only (-g python)", gen);
		return KP_EXIT_USAGE;
	}
	if ((fields && parse_fields(cmd, fields, &sc.fields, &sc.asked)) ||
	    kp_decode_opts__time(&opts, time, cmd))
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
	if (check_fields(&sc, &d, cmd)) {
		kp_decoder__close(&d);
		kp_filter__exit(&sc.filter);
		return KP_EXIT_USAGE;
	}
	if (header || header_only)
		kp_decoder__fprintf_header(&d, stdout);
	if (header_only) {
		kp_decoder__close(&d);
		kp_filter__exit(&sc.filter);
		return KP_EXIT_OK;
	}
	fflush(stdout);
	sc.chains = d.info.session.flags & (KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK);
	for (i = 0; i < d.info.session.nr_events; i++) {
		int n = strlen(d.info.session.events[i].name);

		if (n > sc.name_width)
			sc.name_width = n;
	}
	sc.out = kp_out__new(stdout);
	sc.tp = kp_tpdecode__new(&d.info.session, d.info.machine, &d.tp_formats);
	if (sc.out && sc.tp && (py || gen)) {
		int rc = KP_EXIT_OK;

		if (gen)
			rc = kp_pyscript__generate(cmd, "perf-script.py", &d, sc.tp);
		else
			sc.py = kp_pyscript__start(cmd, py, argc, argv, &d, sc.tp, &rc);
		ret = sc.py ? kp_decoder__for_each(&d, script__sample, &sc) : 0;
		if (sc.py)
			rc = kp_pyscript__end(sc.py, ret == 0);
		if (ret && ret != SCRIPT_STOPPED) {
			kp_error(cmd, "%s", ret == -ENOMEM ? strerror(ENOMEM) :
				 "the input file changed while it was read");
			rc = rc ? rc : KP_EXIT_FAILURE;
		}
		kp_out__delete(sc.out);
		kp_tpdecode__delete(sc.tp);
		kp_decoder__close(&d);
		kp_filter__exit(&sc.filter);
		return rc;
	}
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
