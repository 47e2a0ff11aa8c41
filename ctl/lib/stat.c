// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl stat': options, tables of counts, scaling and runs; see stat.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"
#include "util.h"

/* The default events with cpu-clock for task-clock: perf stat -a's. */
#define KP_STAT_DEFAULT_EVENTS_SYSTEM	"cpu-clock,context-switches,cpu-migrations,page-faults," \
					"cycles,instructions,branches,branch-misses"

static int parse_interval(struct kp_stat_config *c, const char *arg, struct kp_err *err)
{
	unsigned int ms;

	if (kp_parse_uint(arg, &ms)) {
		kp_err__set(err, EINVAL, "invalid print interval '%s' (-I, milliseconds)", arg);
		return -EINVAL;
	}
	if (ms < KP_STAT_MIN_INTERVAL_MS) {
		kp_err__set(err, EINVAL, "print interval must be >= %ums (-I %s)",
			    KP_STAT_MIN_INTERVAL_MS, arg);
		return -EINVAL;
	}
	c->interval_ms = ms;
	return 0;
}

static int parse_repeat(struct kp_stat_config *c, const char *arg, struct kp_err *err)
{
	unsigned int n;
	int ret;

	ret = kp_parse_uint(arg, &n);
	if (ret == -EINVAL) {
		kp_err__set(err, EINVAL, "invalid run count '%s' (-r)", arg);
		return -EINVAL;
	}
	if (!ret && !n) {
		kp_err__set(err, EINVAL, "run count must be a positive number (-r %s)", arg);
		return -EINVAL;
	}
	if (ret || n > KP_STAT_MAX_RUNS) {
		kp_err__set(err, ERANGE, "run count '%s' is out of range 1..%u (-r)", arg,
			    KP_STAT_MAX_RUNS);
		return -ERANGE;
	}
	c->runs = n;
	return 0;
}

static int parse_format(struct kp_stat_config *c, const struct kp_stat_opts *o,
			struct kp_err *err)
{
	if (o->field_sep && o->json) {
		kp_err__set(err, EINVAL,
			    "options -x/--field-separator and --json are mutually exclusive");
		return -EINVAL;
	}
	if (o->prometheus && (o->field_sep || o->json)) {
		kp_err__set(err, EINVAL,
			    "option --prometheus and options -x/--field-separator and --json are mutually exclusive");
		return -EINVAL;
	}
	if (o->field_sep) {
		if (!o->field_sep[0] || strlen(o->field_sep) >= sizeof(c->sep)) {
			kp_err__set(err, EINVAL, "invalid field separator '%s' (-x): 1 to %zu characters",
				    o->field_sep, sizeof(c->sep) - 1);
			return -EINVAL;
		}
		snprintf(c->sep, sizeof(c->sep), "%s", o->field_sep);
		c->format = KP_STAT_FMT_CSV;
	} else if (o->json) {
		c->format = KP_STAT_FMT_JSON;
	} else if (o->prometheus) {
		c->format = KP_STAT_FMT_PROMETHEUS;
	}
	return 0;
}

int kp_stat__from_opts(struct kp_stat_config *c, const struct kp_stat_opts *o,
		       bool has_command, const char *cmd, struct kp_err *err)
{
	struct kp_session_opts so = o->s;
	bool system_wide = o->s.all_cpus || o->s.cpus;
	int ret;

	memset(c, 0, sizeof(*c));
	c->runs = 1;
	c->big_num = !o->no_big_num;
	c->output = o->output;
	c->per_cpu = o->per_cpu;
	c->has_command = has_command;
	c->verbose = o->s.verbose;
	c->cpu_list = o->s.cpus;

	ret = parse_format(c, o, err);
	if (ret)
		return ret;
	if (o->interval) {
		ret = parse_interval(c, o->interval, err);
		if (ret)
			return ret;
	}
	if (o->repeat) {
		ret = parse_repeat(c, o->repeat, err);
		if (ret)
			return ret;
	}
	if (c->runs > 1 && c->interval_ms) {
		kp_err__set(err, EINVAL,
			    "options -I/--interval-print and -r/--repeat are mutually exclusive");
		return -EINVAL;
	}
	if (c->runs > 1 && !has_command) {
		kp_err__set(err, EINVAL, "option -r/--repeat needs a command to run");
		return -EINVAL;
	}
	if (!has_command && !system_wide && !o->s.nr_pid_args && !o->s.nr_tid_args) {
		kp_err__set(err, EINVAL,
			    "nothing to count: give a command, or -a, -C, -p or -t (see 'kprofctl stat --help')");
		return -EINVAL;
	}
	if (o->per_cpu && !system_wide) {
		kp_err__set(err, EINVAL,
			    "option -A/--no-aggr needs -a or -C: only system-wide counts are per CPU");
		return -EINVAL;
	}

	/* -e, or perf stat's defaults; -d appends the cache events either way. */
	if (!so.nr_event_args && !so.too_many_args)
		so.events[so.nr_event_args++] = system_wide ? KP_STAT_DEFAULT_EVENTS_SYSTEM :
							      KP_STAT_DEFAULT_EVENTS;
	if (o->detailed) {
		if (so.nr_event_args < KP_MAX_EVENT_ARGS)
			so.events[so.nr_event_args++] = KP_STAT_DETAILED_EVENTS;
		else
			so.too_many_args = true;
	}
	/* Counting has no period: keep the sampling options out of the way. */
	so.freq = NULL;
	so.count = NULL;
	so.call_graph = NULL;
	so.callchain = false;

	/* The parser of 'record' and 'start'; a PMU is assumed: perf says no. */
	ret = kp_session__from_opts(&c->session, &c->target, &so, has_command, true, cmd, err);
	if (ret)
		return ret;
	c->session.flags &= KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_INHERIT |
			    KPROF_SESSION_F_THREADS;
	return 0;
}

/* --- counts and tables ----------------------------------------------------- */

void kp_stat_counts__free(struct kp_stat_counts *counts)
{
	free(counts->c);
	memset(counts, 0, sizeof(*counts));
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int row_of(const struct kp_stat_table *t, int cpu)
{
	const int *p;

	if (t->nr_rows == 1 && t->cpus[0] == -1)
		return 0;
	p = bsearch(&cpu, t->cpus, t->nr_rows, sizeof(int), cmp_int);
	return p ? (int)(p - t->cpus) : -1;
}

int kp_stat_table__build(struct kp_stat_table *t, const struct kp_stat_counts *counts,
			 unsigned int nr_events, bool per_cpu, struct kp_err *err)
{
	const struct kp_stat_count *c;
	struct kp_stat_cell *cell;
	unsigned int i, n;
	bool *ok;
	int row;

	memset(t, 0, sizeof(*t));
	t->nr_events = nr_events;
	t->cpus = calloc(counts->nr ? counts->nr : 1, sizeof(int));
	if (!t->cpus)
		goto nomem;
	if (per_cpu) {
		for (i = 0; i < counts->nr; i++)
			if (counts->c[i].cpu >= 0)
				t->cpus[t->nr_rows++] = counts->c[i].cpu;
		qsort(t->cpus, t->nr_rows, sizeof(int), cmp_int);
		for (i = 0, n = 0; i < t->nr_rows; i++)
			if (!n || t->cpus[n - 1] != t->cpus[i])
				t->cpus[n++] = t->cpus[i];
		t->nr_rows = n;
	}
	if (!t->nr_rows) {
		t->nr_rows = 1;
		t->cpus[0] = -1;
	}
	t->cells = calloc((size_t)t->nr_rows * nr_events, sizeof(*t->cells));
	ok = calloc((size_t)t->nr_rows * nr_events + 1, sizeof(bool));
	if (!t->cells || !ok) {
		free(ok);
		goto nomem;
	}
	/* Sum the readings perf counted; an error stays only where none did. */
	for (i = 0; i < counts->nr; i++) {
		c = &counts->c[i];
		if (c->event >= nr_events) {
			free(ok);
			kp_stat_table__free(t);
			kp_err__set(err, EBADMSG, "malformed reply from kprof.ko: event %u of %u",
				    c->event, nr_events);
			return -EBADMSG;
		}
		row = per_cpu ? row_of(t, c->cpu) : 0;
		if (row < 0)
			continue;
		cell = &t->cells[row * nr_events + c->event];
		cell->present = true;
		if (c->error) {
			if (!ok[row * nr_events + c->event])
				cell->error = c->error;
			continue;
		}
		ok[row * nr_events + c->event] = true;
		cell->error = 0;
		cell->value += c->value;
		cell->enabled += c->enabled;
		cell->running += c->running;
	}
	free(ok);
	return 0;

nomem:
	kp_stat_table__free(t);
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

int kp_stat_table__delta(struct kp_stat_table *d, const struct kp_stat_table *now,
			 const struct kp_stat_table *prev)
{
	const struct kp_stat_cell *p, *n;
	unsigned int row, ev;
	int prow;

	memset(d, 0, sizeof(*d));
	d->nr_events = now->nr_events;
	d->nr_rows = now->nr_rows;
	d->cpus = malloc(now->nr_rows * sizeof(int));
	d->cells = calloc((size_t)now->nr_rows * now->nr_events, sizeof(*d->cells));
	if (!d->cpus || !d->cells) {
		kp_stat_table__free(d);
		return -ENOMEM;
	}
	memcpy(d->cpus, now->cpus, now->nr_rows * sizeof(int));
	for (row = 0; row < now->nr_rows; row++) {
		/* a CPU that came online meanwhile has no previous counts */
		prow = prev && prev->nr_events == now->nr_events ? row_of(prev, now->cpus[row]) : -1;
		for (ev = 0; ev < now->nr_events; ev++) {
			n = &now->cells[row * now->nr_events + ev];
			p = prow >= 0 ? &prev->cells[prow * prev->nr_events + ev] : NULL;
			d->cells[row * d->nr_events + ev] = *n;
			if (!p || n->error)
				continue;
			d->cells[row * d->nr_events + ev].value = sub0(n->value, p->value);
			d->cells[row * d->nr_events + ev].enabled = sub0(n->enabled, p->enabled);
			d->cells[row * d->nr_events + ev].running = sub0(n->running, p->running);
		}
	}
	return 0;
}

void kp_stat_table__free(struct kp_stat_table *t)
{
	free(t->cpus);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* --- scaling and runs ------------------------------------------------------ */

void kp_stat_stats__add(struct kp_stat_stats *s, double v)
{
	double delta;

	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

double kp_stat_stats__stderr(const struct kp_stat_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

void kp_stat_cell__scale(const struct kp_stat_cell *c, struct kp_stat_value *v)
{
	memset(v, 0, sizeof(*v));
	v->enabled = c->enabled;
	v->running = c->running;
	v->error = c->error;
	if (c->error) {
		v->status = KP_STAT_NOT_SUPPORTED;
		return;
	}
	if (!c->present || !c->running || !c->enabled) {
		v->status = KP_STAT_NOT_COUNTED;
		return;
	}
	v->status = KP_STAT_COUNTED;
	v->count = c->running < c->enabled ?
		   (double)c->value * (double)c->enabled / (double)c->running :
		   (double)c->value;
}

static int runs_shape(struct kp_stat_runs *r, const struct kp_stat_table *t)
{
	size_t n = (size_t)t->nr_rows * t->nr_events;

	r->nr_events = t->nr_events;
	r->nr_rows = t->nr_rows;
	r->cpus = malloc(t->nr_rows * sizeof(int));
	r->count = calloc(n, sizeof(*r->count));
	r->enabled = calloc(n, sizeof(*r->enabled));
	r->running = calloc(n, sizeof(*r->running));
	r->counted = calloc(n, sizeof(*r->counted));
	r->error = calloc(n, sizeof(*r->error));
	if (!r->cpus || !r->count || !r->enabled || !r->running || !r->counted || !r->error)
		return -ENOMEM;
	memcpy(r->cpus, t->cpus, t->nr_rows * sizeof(int));
	return 0;
}

int kp_stat_runs__add(struct kp_stat_runs *r, const struct kp_stat_table *t, double walltime_ns)
{
	struct kp_stat_value v;
	unsigned int row, ev;
	size_t i;
	int trow;

	if (!r->runs && runs_shape(r, t))
		return -ENOMEM;
	for (row = 0; row < r->nr_rows; row++) {
		trow = row_of(t, r->cpus[row]);
		if (trow < 0 || t->nr_events != r->nr_events)
			continue;
		for (ev = 0; ev < r->nr_events; ev++) {
			i = (size_t)row * r->nr_events + ev;
			kp_stat_cell__scale(&t->cells[trow * t->nr_events + ev], &v);
			if (v.status == KP_STAT_NOT_SUPPORTED) {
				r->error[i] = v.error;
				continue;
			}
			if (v.status != KP_STAT_COUNTED)
				continue;
			kp_stat_stats__add(&r->count[i], v.count);
			kp_stat_stats__add(&r->enabled[i], v.enabled);
			kp_stat_stats__add(&r->running[i], v.running);
			r->counted[i]++;
		}
	}
	kp_stat_stats__add(&r->walltime, walltime_ns);
	r->runs++;
	return 0;
}

struct kp_stat_value *kp_stat_runs__values(const struct kp_stat_runs *r)
{
	size_t i, n = (size_t)r->nr_rows * r->nr_events;
	struct kp_stat_value *v;

	v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < n; i++) {
		if (r->counted[i]) {
			v[i].status = KP_STAT_COUNTED;
			v[i].count = r->count[i].mean;
			if (r->runs > 1 && r->count[i].mean)
				v[i].noise = 100.0 * kp_stat_stats__stderr(&r->count[i]) /
					     r->count[i].mean;
			v[i].enabled = llround(r->enabled[i].mean);
			v[i].running = llround(r->running[i].mean);
		} else if (r->error[i]) {
			v[i].status = KP_STAT_NOT_SUPPORTED;
			v[i].error = r->error[i];
		} else {
			v[i].status = KP_STAT_NOT_COUNTED;
		}
	}
	return v;
}

void kp_stat_runs__free(struct kp_stat_runs *r)
{
	free(r->cpus);
	free(r->count);
	free(r->enabled);
	free(r->running);
	free(r->counted);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

void kp_stat__target_name(char *buf, size_t len, const struct kp_stat_config *c,
			  int argc, const char **argv)
{
	size_t pos;
	int i;

	if (c->target == KP_TARGET_SYSTEM && c->cpu_list) {
		snprintf(buf, len, "'CPU(s) %s'", c->cpu_list);
	} else if (c->target == KP_TARGET_SYSTEM) {
		snprintf(buf, len, "'system wide'");
	} else if (c->target == KP_TARGET_PIDS) {
		snprintf(buf, len, "%s id '",
			 c->session.flags & KPROF_SESSION_F_THREADS ? "thread" : "process");
		for (i = 0, pos = strlen(buf); i < (int)c->session.nr_pids && pos < len; i++) {
			snprintf(buf + pos, len - pos, "%s%u", i ? "," : "", c->session.pids[i]);
			pos = strlen(buf);
		}
		if (pos + 1 < len)
			snprintf(buf + pos, len - pos, "'");
	} else {
		snprintf(buf, len, "'");
		for (i = 0, pos = 1; i < argc && pos < len; i++) {
			snprintf(buf + pos, len - pos, "%s%s", i ? " " : "", argv[i]);
			pos = strlen(buf);
		}
		if (pos + 1 < len)
			snprintf(buf + pos, len - pos, "'");
	}
}
