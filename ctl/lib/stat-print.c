// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl stat' output: perf stat 6.1's table, CSV (-x) and JSON layouts,
 * column for column, and the Prometheus text exposition format (lib/prom.c's
 * kp_prom__stat()); see stat.h.
 */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "json.h"
#include "prom.h"
#include "stat.h"
#include "util.h"

/* perf's widths: counts, units, event names (two of them), metrics. */
#define COUNTS_LEN		18
#define UNIT_LEN		4
#define EVNAME_LEN		32
#define EVNAME_LEN_UNCOUNTED	25
#define METRIC_LEN		35

#define NOT_SUPPORTED		"<not supported>"
#define NOT_COUNTED		"<not counted>"

#define CACHE(id, op, res)	((id) | (PERF_COUNT_HW_CACHE_OP_ ## op) << 8 | \
				 (uint64_t)(PERF_COUNT_HW_CACHE_RESULT_ ## res) << 16)

static bool is_clock(const struct kp_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_TASK_CLOCK || e->config == PERF_COUNT_SW_CPU_CLOCK);
}

static bool is_hw(const struct kp_event *e, uint64_t config)
{
	return e->type == PERF_TYPE_HARDWARE && e->config == config;
}

static bool is_cache(const struct kp_event *e, uint64_t config)
{
	return e->type == PERF_TYPE_HW_CACHE && e->config == config;
}

static const char *unit_of(const struct kp_event *e)
{
	return is_clock(e) ? "msec" : "";
}

/* Clocks count ns and print msec. */
static double display_of(const struct kp_event *e, double count)
{
	return is_clock(e) ? count / 1e6 : count;
}

static const struct kp_stat_value *value_of(const struct kp_stat_report *r, unsigned int row,
					    unsigned int ev)
{
	return &r->v[(size_t)row * r->nr_events + ev];
}

/*
 * The count of the first counted event (@type, @config) in @row with the
 * modifiers of @like: cycles:u goes with instructions:u, as in perf.
 */
static bool find(const struct kp_stat_report *r, unsigned int row, const struct kp_event *like,
		 uint32_t type, uint64_t config, double *val)
{
	const struct kp_event *e;
	unsigned int i;

	for (i = 0; i < r->nr_events; i++) {
		e = &r->events[i];
		if (e->type != type || e->config != config || e->flags != like->flags ||
		    value_of(r, row, i)->status != KP_STAT_COUNTED)
			continue;
		*val = value_of(r, row, i)->count;
		return true;
	}
	return false;
}

static bool find_clock(const struct kp_stat_report *r, unsigned int row,
		       const struct kp_event *like, double *ns)
{
	return find(r, row, like, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, ns) ||
	       find(r, row, like, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, ns);
}

static bool ratio(struct kp_stat_metric *m, const char *fmt, const char *unit, double num,
		  double den, double scale)
{
	m->fmt = fmt;
	m->unit = unit;
	m->value = den ? num / den * scale : 0;
	return true;
}

/* The misses of a cache event and the accesses they are a share of. */
static const struct {
	uint64_t	misses;
	uint64_t	accesses;
	const char	*unit;
} cache_ratios[] = {
	{ CACHE(PERF_COUNT_HW_CACHE_L1D, READ, MISS), CACHE(PERF_COUNT_HW_CACHE_L1D, READ, ACCESS),
	  "of all L1-dcache accesses" },
	{ CACHE(PERF_COUNT_HW_CACHE_L1I, READ, MISS), CACHE(PERF_COUNT_HW_CACHE_L1I, READ, ACCESS),
	  "of all L1-icache accesses" },
	{ CACHE(PERF_COUNT_HW_CACHE_LL, READ, MISS), CACHE(PERF_COUNT_HW_CACHE_LL, READ, ACCESS),
	  "of all LL-cache accesses" },
	{ CACHE(PERF_COUNT_HW_CACHE_DTLB, READ, MISS), CACHE(PERF_COUNT_HW_CACHE_DTLB, READ, ACCESS),
	  "of all dTLB cache accesses" },
	{ CACHE(PERF_COUNT_HW_CACHE_ITLB, READ, MISS), CACHE(PERF_COUNT_HW_CACHE_ITLB, READ, ACCESS),
	  "of all iTLB cache accesses" },
};

bool kp_stat__metric(const struct kp_stat_report *r, unsigned int row, unsigned int ev,
		     struct kp_stat_metric *m)
{
	const struct kp_event *e = &r->events[ev];
	const struct kp_stat_value *v = value_of(r, row, ev);
	double base, rate;
	const char *u;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (v->status != KP_STAT_COUNTED)
		return false;

	if (is_clock(e)) {
		if (r->walltime_ns <= 0)
			return false;
		return ratio(m, "%8.3f", "CPUs utilized", v->count, r->walltime_ns, 1);
	}
	if (is_hw(e, PERF_COUNT_HW_CPU_CYCLES))
		return find_clock(r, row, e, &base) && base &&
		       ratio(m, "%8.3f", "GHz", v->count, base, 1);
	if (is_hw(e, PERF_COUNT_HW_INSTRUCTIONS))
		return find(r, row, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, &base) &&
		       base && ratio(m, "%7.2f ", "insn per cycle", v->count, base, 1);
	if (is_hw(e, PERF_COUNT_HW_BRANCH_MISSES))
		return find(r, row, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
			    &base) && ratio(m, "%7.2f%%", "of all branches", v->count, base, 100);
	if (is_hw(e, PERF_COUNT_HW_CACHE_MISSES))
		return find(r, row, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, &base) &&
		       ratio(m, "%7.2f%%", "of all cache refs", v->count, base, 100);
	if (is_hw(e, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND) ||
	    is_hw(e, PERF_COUNT_HW_STALLED_CYCLES_BACKEND))
		return find(r, row, e, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, &base) &&
		       ratio(m, "%7.2f%%", e->config == PERF_COUNT_HW_STALLED_CYCLES_FRONTEND ?
			     "frontend cycles idle" : "backend cycles idle", v->count, base, 100);
	for (i = 0; i < KP_ARRAY_SIZE(cache_ratios); i++)
		if (is_cache(e, cache_ratios[i].misses))
			return find(r, row, e, PERF_TYPE_HW_CACHE, cache_ratios[i].accesses,
				    &base) &&
			       ratio(m, "%7.2f%%", cache_ratios[i].unit, v->count, base, 100);

	/* Anything else: a rate per second of task-clock or cpu-clock. */
	if (!find_clock(r, row, e, &base))
		return false;
	rate = base ? 1e9 * v->count / base : 0;
	m->value = rate;
	u = "/sec";
	if (rate > 1e9) {
		m->value = rate / 1e9;
		u = "G/sec";
	} else if (rate > 1e6) {
		m->value = rate / 1e6;
		u = "M/sec";
	} else if (rate > 1e3) {
		m->value = rate / 1e3;
		u = "K/sec";
	}
	snprintf(m->unit_buf, sizeof(m->unit_buf), "%s", u);
	m->unit = m->unit_buf;
	m->fmt = "%8.3f";
	return true;
}

static double pct_running(const struct kp_stat_value *v)
{
	return v->running != v->enabled && v->enabled ?
	       100.0 * (double)v->running / (double)v->enabled : 100.0;
}

static const char *status_text(const struct kp_stat_value *v)
{
	return v->status == KP_STAT_NOT_SUPPORTED ? NOT_SUPPORTED : NOT_COUNTED;
}

/* "     1.000123456": seconds.nanoseconds, as perf's interval prefix. */
static void fmt_timestamp(char *buf, size_t len, double s)
{
	unsigned long long ns = llround(s * 1e9);

	snprintf(buf, len, "%6llu.%09llu", ns / 1000000000ULL, ns % 1000000000ULL);
}

/* --- the table --------------------------------------------------------------- */

static void table_prefix(FILE *fp, const struct kp_stat_report *r, unsigned int row)
{
	char ts[32];

	if (r->interval) {
		fmt_timestamp(ts, sizeof(ts), r->timestamp_s);
		fprintf(fp, "%s ", ts);
	}
	if (r->cpus[row] >= 0)
		fprintf(fp, "CPU%-7d ", r->cpus[row]);
}

static void table_line(FILE *fp, const struct kp_stat_report *r, unsigned int row,
		       unsigned int ev)
{
	const struct kp_event *e = &r->events[ev];
	const struct kp_stat_value *v = value_of(r, row, ev);
	struct kp_stat_metric m;
	char val[64];
	int n;

	table_prefix(fp, r, row);
	if (v->status != KP_STAT_COUNTED) {
		fprintf(fp, "%*s %-*s %-*s%-*s", COUNTS_LEN, status_text(v), UNIT_LEN, unit_of(e),
			EVNAME_LEN_UNCOUNTED, e->name, METRIC_LEN, "");
	} else {
		if (r->cfg->big_num)
			fprintf(fp, is_clock(e) ? "%'*.2f " : "%'*.0f ", COUNTS_LEN,
				display_of(e, v->count));
		else
			fprintf(fp, is_clock(e) ? "%*.2f " : "%*.0f ", COUNTS_LEN,
				display_of(e, v->count));
		fprintf(fp, "%-*s %-*s", UNIT_LEN, unit_of(e), EVNAME_LEN, e->name);
		if (kp_stat__metric(r, row, ev, &m)) {
			n = snprintf(val, sizeof(val), " # ");
			n += snprintf(val + n, sizeof(val) - n, m.fmt, m.value);
			fprintf(fp, "%s %-*s", val, METRIC_LEN - n - 1, m.unit);
		} else {
			fprintf(fp, "%-*s", METRIC_LEN, "");
		}
	}
	if (r->runs > 1 && v->noise)
		fprintf(fp, "  ( +-%6.2f%% )", v->noise);
	if (v->status == KP_STAT_COUNTED && pct_running(v) != 100.0)
		fprintf(fp, "  (%.2f%%)", pct_running(v));
	fputc('\n', fp);
}

/* Digits to show of a value known to +- @sd: perf's get_precision() + 2. */
static int precision_of(double sd)
{
	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	return (int)lround(ceil(-log10(sd))) + 2;
}

static void table_print(FILE *fp, const struct kp_stat_report *r)
{
	unsigned int row, ev;
	double s, sd;
	int prec;

	if (r->interval) {
		if (!(r->interval_no % KP_STAT_HEADER_EVERY)) {
			if (r->cpus[0] >= 0)
				fprintf(fp, "#           time CPU                    counts %*s events\n",
					UNIT_LEN, "unit");
			else
				fprintf(fp, "#           time             counts %*s events\n",
					UNIT_LEN, "unit");
		}
	} else {
		fprintf(fp, "\n Performance counter stats for %s", r->target);
		if (r->runs > 1)
			fprintf(fp, " (%u runs)", r->runs);
		fprintf(fp, ":\n\n");
	}

	/* event by event, then CPU by CPU, as perf -A */
	for (ev = 0; ev < r->nr_events; ev++)
		for (row = 0; row < r->nr_rows; row++)
			table_line(fp, r, row, ev);
	if (r->interval)
		return;

	s = r->walltime_ns / 1e9;
	fputc('\n', fp);
	if (r->runs > 1) {
		sd = r->walltime_err_ns / 1e9;
		prec = precision_of(sd);
		fprintf(fp, " %17.*f +- %.*f seconds time elapsed", prec, s, prec, sd);
		if (s && sd)
			fprintf(fp, "  ( +-%6.2f%% )", 100.0 * sd / s);
	} else {
		fprintf(fp, " %17.9f seconds time elapsed", s);
		if (r->has_rusage) {
			fprintf(fp, "\n\n");
			fprintf(fp, " %17.9f seconds user\n", r->user_s);
			fprintf(fp, " %17.9f seconds sys\n", r->sys_s);
		}
	}
	fprintf(fp, "\n\n");
}

/* --- CSV (-x) ---------------------------------------------------------------- */

/* perf keeps the digits of a metric only: "  3.68%" -> "3.68". */
static void csv_metric_value(char *out, size_t len, const char *fmt, double val)
{
	char buf[64], *p, *end;

	snprintf(buf, sizeof(buf), fmt, val);
	for (p = buf; *p == ' '; p++)
		;
	for (end = p; isdigit((unsigned char)*end) || *end == '.' || *end == '-'; end++)
		;
	*end = '\0';
	snprintf(out, len, "%s", p);
}

static void csv_line(FILE *fp, const struct kp_stat_report *r, unsigned int row,
		     unsigned int ev)
{
	const struct kp_event *e = &r->events[ev];
	const struct kp_stat_value *v = value_of(r, row, ev);
	const char *sep = r->cfg->sep;
	struct kp_stat_metric m;
	char ts[32], val[64];

	if (r->interval) {
		fmt_timestamp(ts, sizeof(ts), r->timestamp_s);
		fprintf(fp, "%s%s", ts, sep);
	}
	if (r->cpus[row] >= 0)
		fprintf(fp, "CPU%d%s", r->cpus[row], sep);
	if (v->status == KP_STAT_COUNTED)
		fprintf(fp, is_clock(e) ? "%.2f" : "%.0f", display_of(e, v->count));
	else
		fprintf(fp, "%s", status_text(v));
	fprintf(fp, "%s%s%s%s", sep, unit_of(e), sep, e->name);
	if (r->runs > 1)
		fprintf(fp, "%s%.2f%%", sep, v->noise);
	fprintf(fp, "%s%llu%s%.2f", sep, (unsigned long long)v->running, sep, pct_running(v));
	if (kp_stat__metric(r, row, ev, &m)) {
		csv_metric_value(val, sizeof(val), m.fmt, m.value);
		fprintf(fp, "%s%s%s%s", sep, val, sep, m.unit);
	} else {
		fprintf(fp, "%s%s", sep, sep);
	}
	fputc('\n', fp);
}

static void csv_print(FILE *fp, const struct kp_stat_report *r)
{
	unsigned int row, ev;

	for (ev = 0; ev < r->nr_events; ev++)
		for (row = 0; row < r->nr_rows; row++)
			csv_line(fp, r, row, ev);
}

/* --- JSON: perf's keys, one object per line ------------------------------------ */

static void json_line(FILE *fp, const struct kp_stat_report *r, unsigned int row,
		      unsigned int ev)
{
	const struct kp_event *e = &r->events[ev];
	const struct kp_stat_value *v = value_of(r, row, ev);
	struct kp_stat_metric m;
	bool has_metric;
	char ts[32], *p;

	fputc('{', fp);
	if (r->interval) {
		fmt_timestamp(ts, sizeof(ts), r->timestamp_s);
		for (p = ts; *p == ' '; p++)
			;
		fprintf(fp, "\"interval\" : %s, ", p);
	}
	if (r->cpus[row] >= 0)
		fprintf(fp, "\"cpu\" : \"%d\", ", r->cpus[row]);
	if (v->status == KP_STAT_COUNTED)
		fprintf(fp, "\"counter-value\" : \"%f\", ", display_of(e, v->count));
	else
		fprintf(fp, "\"counter-value\" : \"%s\", ", status_text(v));
	fprintf(fp, "\"unit\" : \"%s\", \"event\" : ", unit_of(e));
	json__escape(fp, e->name, strlen(e->name));
	fprintf(fp, ", ");
	if (r->runs > 1)
		fprintf(fp, "\"variance\" : %.2f, ", v->noise);
	fprintf(fp, "\"event-runtime\" : %llu, \"pcnt-running\" : %.2f, ",
		(unsigned long long)v->running, pct_running(v));
	has_metric = kp_stat__metric(r, row, ev, &m);
	fprintf(fp, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n",
		has_metric ? m.value : 0.0, has_metric ? m.unit : "");
}

static void json_print(FILE *fp, const struct kp_stat_report *r)
{
	unsigned int row, ev;

	for (ev = 0; ev < r->nr_events; ev++)
		for (row = 0; row < r->nr_rows; row++)
			json_line(fp, r, row, ev);
	if (r->interval)
		return;
	/* What the table's footer says; a line without "event" perf has not. */
	fprintf(fp, "{\"elapsed-seconds\" : %.9f", r->walltime_ns / 1e9);
	if (r->runs > 1)
		fprintf(fp, ", \"elapsed-variance\" : %.2f, \"runs\" : %u",
			r->walltime_ns ? 100.0 * r->walltime_err_ns / r->walltime_ns : 0.0, r->runs);
	if (r->has_rusage)
		fprintf(fp, ", \"user-seconds\" : %.9f, \"sys-seconds\" : %.9f", r->user_s, r->sys_s);
	fprintf(fp, "}\n");
}

int kp_stat__print(FILE *fp, const struct kp_stat_report *r)
{
	locale_t loc = (locale_t)0, old = (locale_t)0;

	switch (r->cfg->format) {
	case KP_STAT_FMT_TABLE:
		/* thousands grouping, as the user's LC_NUMERIC has it (perf -B) */
		if (r->cfg->big_num) {
			loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
			if (loc)
				old = uselocale(loc);
		}
		table_print(fp, r);
		if (loc) {
			uselocale(old);
			freelocale(loc);
		}
		break;
	case KP_STAT_FMT_CSV:
		csv_print(fp, r);
		break;
	case KP_STAT_FMT_JSON:
		json_print(fp, r);
		break;
	case KP_STAT_FMT_PROMETHEUS:
		kp_prom__stat(fp, r);
		break;
	}
	if (fflush(fp) || ferror(fp))
		return -EIO;
	return 0;
}
