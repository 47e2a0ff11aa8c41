// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl offcpu [-a | -p PID | -- CMD] [-K | -U] [--state S,D,R,T|all]
 *                 [-m US] [-M US] [-f] [-d] [--wakers] [-o FILE] [duration]
 *
 * BCC's offcputime on kprof: START an aggregating session with one
 * KPROF_TYPE_OFFCPU event (module/offcpu.c: the stacks of each thread
 * switched out in the chosen states, and the time until it ran again,
 * summed per stack in the kernel), wait for the duration, the command or
 * Ctrl-C, STOP, and read the tables as an aggregated profile (lib/agg.h,
 * kept with -o for report, folded and flamegraph).  The output is
 * offcputime's: per stack, the kernel frames, the user frames, "-  comm
 * (pid)" and the microseconds, least first; with -f one folded line each,
 * "comm;user outermost..;kernel outermost.. usecs" ("-" between the two
 * with -d).  Keys are processes (BCC's are threads).
 *
 * --wakers is BCC's offwaketime: the event also keeps, per blocked stack,
 * the stack of the task that woke it (KPROF_OFFCPU_F_WAKERS; WAKER records
 * of the profile), printed as offwaketime prints them.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/decode.h"
#include "lib/hist.h"
#include "lib/hmap.h"
#include "lib/parse-options.h"
#include "lib/session.h"
#include "lib/util.h"

static const char * const offcpu_usage[] = {
	"kprofctl offcpu [-a | -p <pid>] [<options>] [<duration>] [-- <command>]",
	"",
	"Off-CPU time by stack, as BCC's offcputime: where threads waited and for",
	"how long, summed in the kernel.  Without -p or a command: every thread",
	"(-a).  Until <duration> seconds passed, the command ended or Ctrl-C.",
	NULL
};

static volatile sig_atomic_t offcpu_signal;

static void offcpu__sighandler(int sig)
{
	offcpu_signal = sig;
}

/* --state: S, D, R, T or all, comma-separated, into KPROF_OFFCPU_F_*. */
static int offcpu__states(const char *arg, uint32_t *mask, const char *cmd)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*mask = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "S"))
			*mask |= KPROF_OFFCPU_F_S;
		else if (!strcmp(tok, "D"))
			*mask |= KPROF_OFFCPU_F_D;
		else if (!strcmp(tok, "R"))
			*mask |= KPROF_OFFCPU_F_R;
		else if (!strcmp(tok, "T"))
			*mask |= KPROF_OFFCPU_F_T;
		else if (!strcmp(tok, "all"))
			*mask |= KPROF_OFFCPU_F_ALL;
		else {
			kp_error(cmd, "unknown --state '%s' (S sleeping, D uninterruptible, R preempted, T stopped, or all)",
				 tok);
			ret = -EINVAL;
			break;
		}
	}
	if (!ret && !*mask) {
		kp_error(cmd, "empty --state '%s'", arg);
		ret = -EINVAL;
	}
	free(copy);
	return ret;
}

/* A duration in microseconds (--min-block, --max-block), into ns. */
static int offcpu__usecs(const char *arg, const char *name, uint64_t *ns, const char *cmd)
{
	unsigned long long us;
	char *end;

	errno = 0;
	us = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || us > UINT64_MAX / 1000) {
		kp_error(cmd, "bad %s '%s': microseconds expected", name, arg);
		return -EINVAL;
	}
	*ns = us * 1000;
	return 0;
}

/* One printed stack: its lines, merged when two keys name the same frames. */
struct offcpu_stack {
	char		*text;		/* the block (or folded line) without the value */
	uint64_t	ns;
};

struct offcpu_print {
	bool			folded, delimited, kernel_only, user_only, wakers;
	struct kp_hmap		stacks;	/* hash of text -> struct offcpu_stack */
	size_t			nr;
	char			*text;	/* of the stack at hand (open_memstream) */
	size_t			len;
};

static const char *offcpu__name(const struct kp_frame *f)
{
	return f->sym ? f->sym->name : "[unknown]";
}

/* The text at hand, emptied and opened for writing; NULL on ENOMEM. */
static FILE *offcpu__open(struct offcpu_print *p)
{
	free(p->text);
	p->text = NULL;
	return open_memstream(&p->text, &p->len);
}

/*
 * The blocked stack @s: folded "comm;user..;kernel.." (outermost first,
 * ";-" between with -d), else its kernel then user lines innermost first,
 * @delim between with -d (offcputime's "--", offwaketime's "-").
 */
static void offcpu__blocked(const struct offcpu_print *p, FILE *f, const struct kp_resolved *s,
			    const char *delim)
{
	unsigned int nk = s->nr_kernel, nu = s->nr_frames - s->nr_kernel, i;
	bool kernel = !p->user_only, user = !p->kernel_only;

	if (p->folded) {
		fputs(s->comm, f);
		for (i = nu; user && i-- > 0;)
			fprintf(f, ";%s", offcpu__name(&s->frames[nk + i]));
		if (p->delimited && kernel && user && nk && nu)
			fputs(";-", f);
		for (i = nk; kernel && i-- > 0;)
			fprintf(f, ";%s", offcpu__name(&s->frames[i]));
		return;
	}
	for (i = 0; kernel && i < nk; i++)
		fprintf(f, "    %s\n", offcpu__name(&s->frames[i]));
	if (p->delimited && kernel && user && nk && nu)
		fprintf(f, "    %s\n", delim);
	for (i = 0; user && i < nu; i++)
		fprintf(f, "    %s\n", offcpu__name(&s->frames[nk + i]));
}

/* Text of @s: BCC's block (kernel, "--", user, "-  comm (pid)") or folded line. */
static int offcpu__text(struct offcpu_print *p, const struct kp_resolved *s)
{
	FILE *f = offcpu__open(p);

	if (!f)
		return -ENOMEM;
	offcpu__blocked(p, f, s, "--");
	if (!p->folded)
		fprintf(f, "    %-16s %s (%u)\n", "-", s->comm, s->rec->pid);
	return fclose(f) ? -ENOMEM : 0;
}

/*
 * Text of a block @t and its waker @w, as BCC's offwaketime prints them:
 * folded, "comm;user..;kernel..;--;waker kernel..;waker user..;waker"
 * (the blocked frames outermost first, the waker's innermost first); else
 * the waker's frames outermost first under "waker:", "--", the blocked
 * ones innermost first, "target:".
 */
static int offcpu__waker_text(struct offcpu_print *p, const struct kp_resolved *t,
			      const struct kp_resolved *w, uint32_t waker_pid)
{
	unsigned int wk = w->nr_kernel, wu = w->nr_frames - w->nr_kernel, i;
	bool kernel = !p->user_only, user = !p->kernel_only;
	FILE *f = offcpu__open(p);

	if (!f)
		return -ENOMEM;
	if (p->folded) {
		offcpu__blocked(p, f, t, "-");
		fputs(";--", f);
		for (i = 0; kernel && i < wk; i++)
			fprintf(f, ";%s", offcpu__name(&w->frames[i]));
		if (p->delimited && kernel && user && wk && wu)
			fputs(";-", f);
		for (i = 0; user && i < wu; i++)
			fprintf(f, ";%s", offcpu__name(&w->frames[wk + i]));
		fprintf(f, ";%s", w->comm);
	} else {
		fprintf(f, "    %-16s %s %u\n", "waker:", w->comm, waker_pid);
		for (i = wu; user && i-- > 0;)
			fprintf(f, "    %s\n", offcpu__name(&w->frames[wk + i]));
		if (p->delimited && kernel && user && wk && wu)
			fputs("    -\n", f);
		for (i = wk; kernel && i-- > 0;)
			fprintf(f, "    %s\n", offcpu__name(&w->frames[i]));
		fprintf(f, "    %-16s %s\n", "--", "--");
		offcpu__blocked(p, f, t, "-");
		fprintf(f, "    %-16s %s %u\n", "target:", t->comm, t->rec->pid);
	}
	return fclose(f) ? -ENOMEM : 0;
}

/* Add @ns to the stack of the text at hand, a new one when it is new. */
static int offcpu__add(struct offcpu_print *p, uint64_t ns)
{
	struct offcpu_stack *st;
	uint64_t h;

	/* distinct texts that hash alike chain on: h + 1, h + 2, ... */
	for (h = kp_hash_str(p->text) | 1;; h += 2) {
		st = kp_hmap__get(&p->stacks, h);
		if (!st || !strcmp(st->text, p->text))
			break;
	}
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st || !(st->text = strdup(p->text)) || kp_hmap__put(&p->stacks, h, st)) {
			if (st)
				free(st->text);
			free(st);
			return -ENOMEM;
		}
		p->nr++;
	}
	st->ns += ns;
	return 0;
}

static int offcpu__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct offcpu_print *p = arg;
	int ret;

	if (d->info.session.events[s->rec->event].type != KPROF_TYPE_OFFCPU)
		return 0;
	ret = offcpu__text(p, s);
	/* an off-CPU AGG's count is its time in ns */
	return ret ? ret : offcpu__add(p, s->count);
}

static int offcpu__waker(struct kp_decoder *d, const struct kp_rec_waker *w,
			 const struct kp_resolved *blocked, const struct kp_resolved *waker,
			 void *arg)
{
	struct offcpu_print *p = arg;
	int ret;

	(void)d;
	ret = offcpu__waker_text(p, blocked, waker, w->waker_pid);
	return ret ? ret : offcpu__add(p, w->time_ns);
}

static int offcpu__cmp(const void *a, const void *b)
{
	const struct offcpu_stack *x = *(const struct offcpu_stack * const *)a;
	const struct offcpu_stack *y = *(const struct offcpu_stack * const *)b;

	if (x->ns / 1000 != y->ns / 1000)
		return x->ns / 1000 < y->ns / 1000 ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* Print the stacks, least time first, as offcputime does. */
static int offcpu__print(struct offcpu_print *p)
{
	struct offcpu_stack **v = calloc(p->nr ? p->nr : 1, sizeof(*v));
	size_t pos = 0, n = 0, i;
	uint64_t key;
	void *val;

	if (!v)
		return -ENOMEM;
	while (kp_hmap__next(&p->stacks, &pos, &key, &val))
		v[n++] = val;
	qsort(v, n, sizeof(*v), offcpu__cmp);
	for (i = 0; i < n; i++) {
		if (p->folded)
			printf("%s %" PRIu64 "\n", v[i]->text, v[i]->ns / 1000);
		else
			printf("%s        %" PRIu64 "\n\n", v[i]->text, v[i]->ns / 1000);
	}
	free(v);
	return 0;
}

static void offcpu__exit(struct offcpu_print *p)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (kp_hmap__next(&p->stacks, &pos, &key, &val)) {
		free(((struct offcpu_stack *)val)->text);
		free(val);
	}
	kp_hmap__exit(&p->stacks);
	free(p->text);
}

/*
 * The session's configuration, so that its profile names its event: given
 * to the reader in memory, nothing left in the run directory (the session
 * is offcpu's own, read and stopped by it).
 */
static struct kp_data_info *offcpu__session_info(struct kp_hist_run *r, struct kp_err *err)
{
	struct kp_data_info *info = malloc(sizeof(*info));

	if (!info) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	kp_data_info__init(info);
	info->nr_cpus = r->info.nr_cpus;
	info->session_id = r->info.session_id;
	info->session = *r->s;
	info->session.buffer_size = r->info.buffer_size;
	snprintf(info->module_release, sizeof(info->module_release), "%.31s", r->ver.release);
	snprintf(info->cmdline, sizeof(info->cmdline), "kprofctl offcpu");
	return info;
}

int cmd_offcpu(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_session_opts opts = { 0 };
	struct offcpu_print p = { 0 };
	const char *state = "all", *min_block = NULL, *max_block = NULL, *output = NULL;
	bool all = false;
	const struct option options[] = {
		OPT_BOOLEAN('a', "all-cpus", &all, "every thread (the default without -p or a command; with a command, until it exits)"),
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]", "these existing processes only",
			     kp_session_opts__pid_cb),
		OPT_BOOLEAN('K', "kernel-stacks-only", &p.kernel_only, "kernel stacks only"),
		OPT_BOOLEAN('U', "user-stacks-only", &p.user_only, "user stacks only"),
		OPT_STRING(0, "state", &state, "S,D,R,T|all",
			   "switch-outs counted: S sleeping, D uninterruptible, R preempted, T stopped (default all)"),
		OPT_STRING('m', "min-block", &min_block, "us",
			   "the shortest block counted, in microseconds (default 1)"),
		OPT_STRING('M', "max-block", &max_block, "us",
			   "the longest block counted, in microseconds (default none)"),
		OPT_BOOLEAN('f', "folded", &p.folded, "folded output, for flame graphs"),
		OPT_BOOLEAN('d', "delimited", &p.delimited, "a '-' between kernel and user frames"),
		OPT_BOOLEAN(0, "wakers", &p.wakers,
			    "each blocked stack with the waker's stack, as BCC's offwaketime"),
		OPT_STRING(0, "stack-depth", &opts.stack_depth, "n", "frames per chain (default 127)"),
		OPT_STRING('o', "output", &output, "file",
			   "also keep the profile in <file> (report, folded, flamegraph --colors io)"),
		OPT_END()
	};
	struct kp_hist_run r = { .wl = KP_WORKLOAD_INIT };
	const char **command = NULL;
	char tmp[PATH_MAX] = "";
	struct kp_decode_opts dopts = { 0 };
	struct kp_agg_save_opts so = { .cmd = cmd, .quiet = true };
	struct kp_data_info *info = NULL;
	struct kp_agg_summary sum;
	unsigned long duration = 0;
	struct kp_decoder d;
	struct kp_event *ev;
	struct kp_err err;
	uint32_t states;
	uint64_t min_ns = 1000, max_ns = UINT64_MAX;
	int nr_command = 0, ret = KP_EXIT_USAGE;

	argc = kp_hist_run__split_command(argc, argv, &command, &nr_command);
	argc = parse_options(argc, argv, options, offcpu_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (p.kernel_only && p.user_only) {
		kp_error(cmd, "options -K/--kernel-stacks-only and -U/--user-stacks-only are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	if (offcpu__states(state, &states, cmd) ||
	    (min_block && offcpu__usecs(min_block, "--min-block", &min_ns, cmd)) ||
	    (max_block && offcpu__usecs(max_block, "--max-block", &max_ns, cmd)))
		return KP_EXIT_USAGE;
	if (min_ns > max_ns) {
		kp_error(cmd, "--min-block %s is above --max-block %s", min_block ? min_block : "1",
			 max_block);
		return KP_EXIT_USAGE;
	}
	if (kp_hist_run__args(argc, argv, all, opts.nr_pid_args, command, nr_command, &duration,
			      cmd))
		return KP_EXIT_USAGE;

	/* no pid and no command: kp_session__from_opts() goes system-wide */
	opts.all_cpus = all;
	if (kp_hist_run__session(&r, &opts, nr_command > 0, cmd, &err)) {
		kp_err__print(&err, cmd);
		goto out;
	}
	r.s->flags &= ~KPROF_SESSION_F_STREAM;
	r.s->flags |= KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_KERNEL_STACK |
		      KPROF_SESSION_F_USER_STACK;
	if (p.kernel_only)
		r.s->flags &= ~KPROF_SESSION_F_USER_STACK;
	if (p.user_only)
		r.s->flags &= ~KPROF_SESSION_F_KERNEL_STACK;
	r.s->nr_events = 1;
	ev = &r.s->events[0];
	memset(ev, 0, sizeof(*ev));
	ev->type = KPROF_TYPE_OFFCPU;
	ev->config = states | (p.wakers ? KPROF_OFFCPU_F_WAKERS : 0);
	ev->min_ns = min_ns;
	ev->max_ns = max_ns;
	snprintf(ev->name, sizeof(ev->name), "offcpu");

	ret = KP_EXIT_FAILURE;
	if (kp_hist_run__start(&r, nr_command, command, offcpu__sighandler, (1 << 16) | 5,
			       "off-CPU time", cmd, &err) ||
	    !(info = offcpu__session_info(&r, &err)))
		goto out_err;
	so.session = info;
	fprintf(stderr, "Tracing %s (us) of %s by %s %s", p.wakers ? "blocked time" : "off-CPU time",
		kp_hist_run__whom(&r), p.kernel_only ? "kernel" : p.user_only ? "user" : "user + kernel",
		p.wakers ? "off-CPU and waker stack" : "stack");
	kp_hist_run__until(duration);
	kp_hist_run__wait(&r, duration, &offcpu_signal);

	ret = kp_hist_run__stop(&r, &err);
	if (ret < 0)
		goto out_err;
	if (!output) {
		if (kp_agg__tmpfile(tmp, sizeof(tmp), "kprof-offcpu", &err))
			goto out_err;
		output = tmp;
	}
	if (kp_agg__save_profile(r.nl, output, &so, &sum, &err) < 0)
		goto out_err;
	if (sum.has_totals && sum.totals.has_offcpu)
		kp_hist__report_waits(sum.totals.offcpu, "blocks", cmd);
	if (p.wakers && sum.has_totals && sum.totals.has_waker)
		kp_hist__report_waits(sum.totals.waker, "wakers", cmd);
	if (kp_decoder__open(&d, output, &dopts, &err))
		goto out_err;
	if ((p.wakers ? kp_decoder__for_each_waker(&d, offcpu__waker, &p) :
	     kp_decoder__for_each(&d, offcpu__sample, &p)) || offcpu__print(&p)) {
		kp_decoder__close(&d);
		kp_error(cmd, "%s", strerror(ENOMEM));
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	kp_decoder__close(&d);
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	if (tmp[0])
		unlink(tmp);
	kp_hist_run__end(&r);
	offcpu__exit(&p);
	free(info);
	free(r.s);
	return ret;
}
