// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus' text exposition format; see prom.h.  Every metric name and
 * label of kprofctl's expositions is written here.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "prom.h"
#include "stat.h"
#include "util.h"

void kp_prom__family(FILE *fp, const char *name, const char *type, const char *help)
{
	fprintf(fp, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void kp_prom__label(FILE *fp, const char *name, const char *value)
{
	const char *p;

	fprintf(fp, "%s=\"", name);
	for (p = value; *p; p++) {
		if (*p == '\\' || *p == '"')
			fprintf(fp, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", fp);
		else
			fputc(*p, fp);
	}
	fputc('"', fp);
}

void kp_prom__labels(FILE *fp, ...)
{
	const char *name, *sep = "";
	va_list ap;

	fputc('{', fp);
	va_start(ap, fp);
	while ((name = va_arg(ap, const char *))) {
		fputs(sep, fp);
		kp_prom__label(fp, name, va_arg(ap, const char *));
		sep = ",";
	}
	va_end(ap);
	fputc('}', fp);
}

void kp_prom__value(FILE *fp, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(fp, " %.0f\n", v);
	else
		fprintf(fp, " %.15g\n", v);
}

/* One family of one unlabelled sample. */
static void prom__one(FILE *fp, const char *name, const char *type, const char *help, double v)
{
	kp_prom__family(fp, name, type, help);
	fputs(name, fp);
	kp_prom__value(fp, v);
}

/* The wait counters of one kind (offcpu[], lock[], waker[]), by outcome. */
static void prom__waits(FILE *fp, const char *kind, const uint64_t *w)
{
	static const char * const outcome[KP_OFFCPU_STATS_NR] = {
		[KP_OFFCPU_STAT_BLOCKS]		= "begun",
		[KP_OFFCPU_STAT_DONE]		= "done",
		[KP_OFFCPU_STAT_FILTERED]	= "filtered",
		[KP_OFFCPU_STAT_LOST]		= "lost_slot",
		[KP_OFFCPU_STAT_LOST_FULL]	= "lost_full",
		[KP_OFFCPU_STAT_LOST_RESET]	= "lost_reset",
		[KP_OFFCPU_STAT_OPEN]		= "open",
	};
	unsigned int i;

	for (i = 0; i < KP_OFFCPU_STATS_NR; i++) {
		fputs("kprof_waits_total", fp);
		kp_prom__labels(fp, "kind", kind, "outcome", outcome[i], NULL);
		kp_prom__value(fp, w[i]);
	}
}

void kp_prom__health(FILE *fp, const struct kp_version_info *v, const struct kp_status_info *st,
		     const struct kp_stats *cpus, unsigned int nr_cpus)
{
	const struct kp_stats *t;
	char abi[32], cpu[16];
	unsigned int i;

	prom__one(fp, "kprof_up", "gauge", "1 when kprof.ko answered this scrape.", v && st);
	if (!v || !st)
		return;
	t = &st->stats;
	snprintf(abi, sizeof(abi), "%u.%u", KPROF_ABI_VERSION_MAJOR(v->abi),
		 KPROF_ABI_VERSION_MINOR(v->abi));
	kp_prom__family(fp, "kprof_module_info", "gauge",
			"kprof.ko's release, ABI and kernel; always 1.");
	fputs("kprof_module_info", fp);
	kp_prom__labels(fp, "release", v->release, "abi", abi, "kernel", v->kernel, NULL);
	kp_prom__value(fp, 1);
	kp_prom__family(fp, "kprof_session_state", "gauge",
			"1 for the state the sampling session is in.");
	for (i = KPROF_STATE_IDLE; i <= KPROF_STATE_STOPPED; i++) {
		fputs("kprof_session_state", fp);
		kp_prom__labels(fp, "state", kp_state__name(i), NULL);
		kp_prom__value(fp, st->state == i);
	}
	prom__one(fp, "kprof_sessions_total", "counter", "Sampling sessions started since load.",
		  st->sessions);
	prom__one(fp, "kprof_readers", "gauge", "Readers of /dev/kprof.", st->readers);
	prom__one(fp, "kprof_online_cpus", "gauge", "CPUs online.", st->online_cpus);
	prom__one(fp, "kprof_loaded_seconds", "gauge", "Time since kprof.ko was loaded.",
		  st->loaded_ns / 1e9);
	if (!st->has_session || !st->has_stats)
		return;
	/* the session's counters: they restart with each session */
	prom__one(fp, "kprof_session_id", "gauge", "The current (or last) session's id.",
		  st->session_id);
	prom__one(fp, "kprof_invocations_total", "counter",
		  "Sample handler runs (overflows and probe hits) of the session.",
		  t->v[KP_STAT_INVOCATIONS]);
	prom__one(fp, "kprof_samples_total", "counter", "Samples the session stored.",
		  t->v[KP_STAT_SAMPLES]);
	kp_prom__family(fp, "kprof_lost_samples_total", "counter",
			"Samples the session could not store, by cause.");
	{
		const struct {
			const char	*cause;
			uint64_t	n;
		} lost[] = {
			{ "buffer_full", t->v[KP_STAT_LOST_FULL] },
			{ "too_big", t->v[KP_STAT_LOST_TOO_BIG] },
			{ "recursion", t->lost_recursion },
			{ "cost_cap", t->lost_cost },
			{ "table_full", t->has_agg ? t->agg[KP_AGG_STAT_LOST_FULL] : 0 },
			{ "table_reset", t->has_agg ? t->agg[KP_AGG_STAT_LOST_RESET] : 0 },
		};

		for (i = 0; i < sizeof(lost) / sizeof(lost[0]); i++) {
			fputs("kprof_lost_samples_total", fp);
			kp_prom__labels(fp, "cause", lost[i].cause, NULL);
			kp_prom__value(fp, lost[i].n);
		}
	}
	prom__one(fp, "kprof_throttled_total", "counter", "Times the kernel throttled an event.",
		  t->v[KP_STAT_THROTTLED]);
	prom__one(fp, "kprof_written_bytes_total", "counter", "Bytes of records written.",
		  t->v[KP_STAT_BYTES]);
	prom__one(fp, "kprof_sideband_records_total", "counter",
		  "Side-band records (comm, mmap, fork, exit) stored.", t->v[KP_STAT_SIDEBAND]);
	prom__one(fp, "kprof_sideband_lost_total", "counter", "Side-band records lost.",
		  t->v[KP_STAT_SIDEBAND_LOST]);
	prom__one(fp, "kprof_handler_seconds_total", "counter", "Time in the sample handler.",
		  t->v[KP_STAT_HANDLER_NS] / 1e9);
	prom__one(fp, "kprof_handler_max_seconds", "gauge", "The longest handler run.",
		  t->v[KP_STAT_HANDLER_MAX_NS] / 1e9);
	kp_prom__family(fp, "kprof_truncated_stacks_total", "counter",
			"Call chains cut at the depth limit, by chain.");
	fputs("kprof_truncated_stacks_total", fp);
	kp_prom__labels(fp, "chain", "kernel", NULL);
	kp_prom__value(fp, t->v[KP_STAT_KSTACK_TRUNC]);
	fputs("kprof_truncated_stacks_total", fp);
	kp_prom__labels(fp, "chain", "user", NULL);
	kp_prom__value(fp, t->v[KP_STAT_USTACK_TRUNC]);
	prom__one(fp, "kprof_user_stack_faults_total", "counter",
		  "User stacks that could not be read.", t->v[KP_STAT_USTACK_FAULT]);
	if (t->has_agg) {
		prom__one(fp, "kprof_aggregated_samples_total", "counter",
			  "Samples counted in the in-kernel tables.", t->agg[KP_AGG_STAT_SAMPLES]);
		prom__one(fp, "kprof_table_entries", "gauge", "Aggregation table entries in use.",
			  t->agg[KP_AGG_STAT_USED]);
		prom__one(fp, "kprof_table_capacity", "gauge", "Aggregation table entries.",
			  t->agg[KP_AGG_STAT_CAPACITY]);
	}
	if (t->has_agg_use) {
		prom__one(fp, "kprof_table_entries_high", "gauge",
			  "The most aggregation table entries each CPU had in use at once, summed.",
			  t->agg_use[KP_AGG_USE_HIGH]);
		prom__one(fp, "kprof_table_pool_frames", "gauge",
			  "Frames of the tables' pools in use.", t->agg_use[KP_AGG_USE_POOL_USED]);
		prom__one(fp, "kprof_table_pool_capacity", "gauge",
			  "Frames the tables' pools have.", t->agg_use[KP_AGG_USE_POOL_SIZE]);
	}
	if (t->has_offcpu || t->has_lock || t->has_waker) {
		kp_prom__family(fp, "kprof_waits_total", "counter",
				"Off-CPU blocks, lock waits and wakers, by outcome (begun = the others once stopped).");
		if (t->has_offcpu)
			prom__waits(fp, "offcpu", t->offcpu);
		if (t->has_lock)
			prom__waits(fp, "lock", t->lock);
		if (t->has_waker)
			prom__waits(fp, "waker", t->waker);
	}
	if (!nr_cpus)
		return;
	kp_prom__family(fp, "kprof_cpu_samples_total", "counter", "Samples stored, per CPU.");
	for (i = 0; i < nr_cpus; i++) {
		snprintf(cpu, sizeof(cpu), "%u", cpus[i].cpu);
		fputs("kprof_cpu_samples_total", fp);
		kp_prom__labels(fp, "cpu", cpu, NULL);
		kp_prom__value(fp, cpus[i].v[KP_STAT_SAMPLES]);
	}
	kp_prom__family(fp, "kprof_cpu_lost_samples_total", "counter",
			"Samples lost, every cause, per CPU.");
	for (i = 0; i < nr_cpus; i++) {
		snprintf(cpu, sizeof(cpu), "%u", cpus[i].cpu);
		fputs("kprof_cpu_lost_samples_total", fp);
		kp_prom__labels(fp, "cpu", cpu, NULL);
		kp_prom__value(fp, kp_stats__lost(&cpus[i]) +
			       (cpus[i].has_agg ? cpus[i].agg[KP_AGG_STAT_LOST_FULL] +
				cpus[i].agg[KP_AGG_STAT_LOST_RESET] : 0));
	}
}

/* --- counting: 'kprofctl stat --prometheus' and the exporter --------------- */

/* A metric's value in base units: rates per second, whatever their prefix. */
static double metric_base(const struct kp_stat_metric *m)
{
	if (!strcmp(m->unit, "G/sec"))
		return m->value * 1e9;
	if (!strcmp(m->unit, "M/sec"))
		return m->value * 1e6;
	if (!strcmp(m->unit, "K/sec"))
		return m->value * 1e3;
	return m->value;
}

static bool is_rate(const struct kp_stat_metric *m)
{
	size_t n = strlen(m->unit);

	return n >= 4 && !strcmp(m->unit + n - 4, "/sec");
}

/* "{event="E"[,cpu="N"][,session="S"]", left open for more labels. */
static void stat_labels(FILE *fp, const struct kp_stat_report *r, unsigned int row,
			unsigned int ev, const char *session)
{
	char cpu[16];

	fputc('{', fp);
	kp_prom__label(fp, "event", r->events[ev].name);
	if (r->cpus[row] >= 0) {
		snprintf(cpu, sizeof(cpu), "%d", r->cpus[row]);
		fputc(',', fp);
		kp_prom__label(fp, "cpu", cpu);
	}
	if (session) {
		fputc(',', fp);
		kp_prom__label(fp, "session", session);
	}
}

enum stat_what { STAT_COUNT, STAT_ENABLED, STAT_RUNNING, STAT_SUPPORTED };

static void stat_samples(FILE *fp, const struct kp_stat_report *r, const char *name,
			 enum stat_what what, const char *session)
{
	const struct kp_stat_value *v;
	unsigned int row, ev;
	double x;

	for (ev = 0; ev < r->nr_events; ev++) {
		for (row = 0; row < r->nr_rows; row++) {
			v = &r->v[(size_t)row * r->nr_events + ev];
			if (what == STAT_SUPPORTED)
				x = v->status != KP_STAT_NOT_SUPPORTED;
			else if (v->status != KP_STAT_COUNTED)
				continue;
			else if (what == STAT_COUNT)
				x = v->count;
			else
				x = (what == STAT_ENABLED ? v->enabled : v->running) / 1e9;
			fputs(name, fp);
			stat_labels(fp, r, row, ev, session);
			fputc('}', fp);
			kp_prom__value(fp, x);
		}
	}
}

void kp_prom__stat_counts(FILE *fp, const struct kp_stat_report *r, const char *session)
{
	kp_prom__family(fp, "kprof_stat_events_total", "counter",
		    "Events counted, scaled by time enabled / time running when multiplexed (task-clock and cpu-clock in nanoseconds).");
	stat_samples(fp, r, "kprof_stat_events_total", STAT_COUNT, session);
	kp_prom__family(fp, "kprof_stat_enabled_seconds_total", "counter",
		    "Time the event's counters were enabled.");
	stat_samples(fp, r, "kprof_stat_enabled_seconds_total", STAT_ENABLED, session);
	kp_prom__family(fp, "kprof_stat_running_seconds_total", "counter",
		    "Time the event's counters were counting; less than enabled when multiplexed.");
	stat_samples(fp, r, "kprof_stat_running_seconds_total", STAT_RUNNING, session);
	kp_prom__family(fp, "kprof_stat_supported", "gauge",
		    "1 when the event can be counted here, 0 when perf does not support it.");
	stat_samples(fp, r, "kprof_stat_supported", STAT_SUPPORTED, session);
}

void kp_prom__stat_metrics(FILE *fp, const struct kp_stat_report *r, const char *session)
{
	struct kp_stat_metric m;
	unsigned int row, ev;

	kp_prom__family(fp, "kprof_stat_metric", "gauge",
		    "Derived metrics of kprofctl stat's table; rates per second in events per second.");
	for (ev = 0; ev < r->nr_events; ev++) {
		for (row = 0; row < r->nr_rows; row++) {
			if (!kp_stat__metric(r, row, ev, &m))
				continue;
			fputs("kprof_stat_metric", fp);
			stat_labels(fp, r, row, ev, session);
			fputc(',', fp);
			kp_prom__label(fp, "metric", is_rate(&m) ? "per second" : m.unit);
			fputc('}', fp);
			kp_prom__value(fp, is_rate(&m) ? metric_base(&m) : m.value);
		}
	}

	kp_prom__family(fp, "kprof_stat_elapsed_seconds", "gauge", "Wall-clock time counted.");
	fputs("kprof_stat_elapsed_seconds", fp);
	if (session)
		kp_prom__labels(fp, "session", session, NULL);
	kp_prom__value(fp, r->walltime_ns / 1e9);
}

void kp_prom__stat(FILE *fp, const struct kp_stat_report *r)
{
	kp_prom__stat_counts(fp, r, NULL);
	kp_prom__stat_metrics(fp, r, NULL);
	kp_prom__family(fp, "kprof_stat_runs", "gauge", "Runs of the command averaged (-r).");
	fputs("kprof_stat_runs", fp);
	kp_prom__value(fp, r->runs);
	if (r->has_rusage) {
		kp_prom__family(fp, "kprof_stat_user_seconds", "gauge",
			    "CPU time of the command and its children in user space.");
		fputs("kprof_stat_user_seconds", fp);
		kp_prom__value(fp, r->user_s);
		kp_prom__family(fp, "kprof_stat_system_seconds", "gauge",
			    "CPU time of the command and its children in the kernel.");
		fputs("kprof_stat_system_seconds", fp);
		kp_prom__value(fp, r->sys_s);
	}
}

/* --- the aggregation tables' functions (exporter --top) -------------------- */

void kp_prom__functions(FILE *fp, const struct kp_prom_function *f, unsigned int nr,
			uint64_t other)
{
	unsigned int i;

	kp_prom__family(fp, "kprof_function_samples", "gauge",
			"Samples in the aggregation tables whose innermost frame is in this function, for the largest (exporter --top N).");
	for (i = 0; i < nr; i++) {
		fputs("kprof_function_samples", fp);
		kp_prom__labels(fp, "function", f[i].function, "dso", f[i].dso, NULL);
		kp_prom__value(fp, f[i].samples);
	}
	prom__one(fp, "kprof_function_samples_other", "gauge",
		  "Samples in the aggregation tables whose innermost frame is in any other function.",
		  other);
}
