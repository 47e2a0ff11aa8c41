/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus' text exposition format (version 0.0.4): the writer of
 * 'kprofctl stat --prometheus' and of 'kprofctl exporter', the one place
 * that names their metrics and escapes their labels.
 *
 *	kp_prom__family(fp, "kprof_samples_total", "counter", "Samples stored.");
 *	fputs("kprof_samples_total", fp);	then labels, if any:
 *	kp_prom__labels(fp, "cpu", "0", NULL);
 *	kp_prom__value(fp, 42);			" 42\n"
 */
#ifndef KPROFCTL_PROM_H
#define KPROFCTL_PROM_H

#include <stdint.h>
#include <stdio.h>

#include "proto.h"

/* The exposition's Content-Type. */
#define KP_PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

/* "# HELP name help" and "# TYPE name type". */
void kp_prom__family(FILE *fp, const char *name, const char *type, const char *help);
/* name="value", the value escaped (backslash, double quote, line feed). */
void kp_prom__label(FILE *fp, const char *name, const char *value);
/* "{n1="v1",n2="v2"}" of NULL-terminated name, value pairs. */
void kp_prom__labels(FILE *fp, ...);
/* " value\n": integers exactly, else 15 significant digits. */
void kp_prom__value(FILE *fp, double v);

/*
 * kprof.ko's health as 'kprofctl exporter' serves it: kprof_up (0 and
 * nothing else when @v is NULL: the module did not answer), the module,
 * its session and the session's counters (@st totals, @cpus per CPU).
 */
void kp_prom__health(FILE *fp, const struct kp_version_info *v, const struct kp_status_info *st,
		     const struct kp_stats *cpus, unsigned int nr_cpus);

struct kp_stat_report;

/*
 * The counts of a counting session: kprof_stat_events_total (scaled),
 * kprof_stat_enabled_seconds_total, kprof_stat_running_seconds_total and
 * kprof_stat_supported, by event and CPU (a row of CPU -1: no cpu label),
 * with a session label when @session is not NULL (the exporter's).
 */
void kp_prom__stat_counts(FILE *fp, const struct kp_stat_report *r, const char *session);
/*
 * The derived metrics of stat's table (kprof_stat_metric{...,metric}: the
 * events' types must be known) and kprof_stat_elapsed_seconds (the
 * report's walltime_ns), with a session label when @session is not NULL.
 */
void kp_prom__stat_metrics(FILE *fp, const struct kp_stat_report *r, const char *session);
/*
 * 'kprofctl stat --prometheus': kp_prom__stat_counts() and the derived
 * metrics (kprof_stat_metric), the wall-clock time, the runs, rusage.
 */
void kp_prom__stat(FILE *fp, const struct kp_stat_report *r);

/* One function of kp_prom__functions(): its samples in the tables. */
struct kp_prom_function {
	const char	*function;	/* symbol, or "[unknown]" */
	const char	*dso;		/* path, "[kernel.kallsyms]", "[module]", "[unknown]" */
	uint64_t	samples;
};

/*
 * The largest functions of the aggregation tables (exporter --top):
 * kprof_function_samples{function,dso} for each of @f, then
 * kprof_function_samples_other for @other, the samples of all the others;
 * at most @nr + 1 series.  The pairs of @f must be distinct.
 */
void kp_prom__functions(FILE *fp, const struct kp_prom_function *f, unsigned int nr,
			uint64_t other);

#endif /* KPROFCTL_PROM_H */
