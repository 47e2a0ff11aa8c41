// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl stat': option validation, tables, scaling and runs, perf's
 * metrics, the exact table/CSV/JSON lines of perf stat 6.1, the Prometheus
 * exposition, the COUNT_* protocol against the fake module (tests/
 * fake-count.c), and the command end to end.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kprof.h>
#include <linux/perf_event.h>
#include <netlink/msg.h>

#include "fake-count.h"
#include "fake-nl.h"
#include "lib/stat.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

/* --- options ----------------------------------------------------------------- */

/* Validate "stat ARGS..." (options only, parsed by hand for the test). */
static int opts(struct kp_stat_config *c, struct kp_err *err, bool has_command,
		void (*set)(struct kp_stat_opts *o))
{
	struct kp_stat_opts o = { 0 };

	set(&o);
	kp_err__clear(err);
	return kp_stat__from_opts(c, &o, has_command, "stat", err);
}

static void set_none(struct kp_stat_opts *o) { (void)o; }
static void set_a(struct kp_stat_opts *o) { o->s.all_cpus = true; }
static void set_d(struct kp_stat_opts *o) { o->detailed = true; }
static void set_e(struct kp_stat_opts *o)
{
	o->s.events[o->s.nr_event_args++] = "cycles,instructions:u";
}
static void set_i5(struct kp_stat_opts *o) { o->interval = "5"; }
static void set_i10(struct kp_stat_opts *o) { o->interval = "10"; }
static void set_iabc(struct kp_stat_opts *o) { o->interval = "1x"; }
static void set_r0(struct kp_stat_opts *o) { o->repeat = "0"; }
static void set_r3(struct kp_stat_opts *o) { o->repeat = "3"; }
static void set_r3i(struct kp_stat_opts *o) { o->repeat = "3"; o->interval = "100"; }
static void set_xjson(struct kp_stat_opts *o) { o->field_sep = ","; o->json = true; }
static void set_promx(struct kp_stat_opts *o) { o->field_sep = ";"; o->prometheus = true; }
static void set_x(struct kp_stat_opts *o) { o->field_sep = ";"; }
static void set_xempty(struct kp_stat_opts *o) { o->field_sep = ""; }
static void set_A(struct kp_stat_opts *o) { o->per_cpu = true; }
static void set_aA(struct kp_stat_opts *o) { o->per_cpu = true; o->s.all_cpus = true; }
static void set_noinherit(struct kp_stat_opts *o) { o->s.no_inherit = true; }
static void set_bad_event(struct kp_stat_opts *o)
{
	o->s.events[o->s.nr_event_args++] = "cycles,cyclez";
}
static void set_t(struct kp_stat_opts *o)
{
	o->s.tids[o->s.nr_tid_args++] = "1";
}
static void set_pa(struct kp_stat_opts *o)
{
	o->s.all_cpus = true;
	o->s.pids[o->s.nr_pid_args++] = "1";
}

static void test_options(void)
{
	struct kp_stat_config c;
	struct kp_err err;

	ok(!opts(&c, &err, true, set_none), "defaults: accepted");
	is_int(c.session.nr_events, 8, "defaults: perf stat's 8 events");
	is_str(c.session.events[0].name, "task-clock", "defaults: task-clock first");
	is_str(c.session.events[7].name, "branch-misses", "defaults: branch-misses last");
	is_int(c.session.events[4].type, PERF_TYPE_HARDWARE, "defaults: cycles stays hardware");
	is_int(c.target, KP_TARGET_COMMAND, "a command: counted per task");
	is_int(c.session.flags, KPROF_SESSION_F_INHERIT, "a command: with its children");
	ok(c.runs == 1 && !c.interval_ms && c.format == KP_STAT_FMT_TABLE && c.big_num,
	   "defaults: one run, no interval, the table with grouping");

	ok(!opts(&c, &err, false, set_t), "-t without a command: accepted");
	is_int(c.target, KP_TARGET_PIDS, "-t: counted per task");
	is_int(c.session.flags, KPROF_SESSION_F_THREADS, "-t: the thread only, no children");

	ok(!opts(&c, &err, true, set_a), "-a: accepted");
	is_str(c.session.events[0].name, "cpu-clock", "-a: cpu-clock for task-clock");
	is_int(c.session.flags, KPROF_SESSION_F_SYSTEM_WIDE, "-a: system-wide, no inherit");
	ok(!opts(&c, &err, false, set_a), "-a without a command: accepted");

	ok(!opts(&c, &err, true, set_d), "-d: accepted");
	is_int(c.session.nr_events, 12, "-d: 4 cache events more");
	is_str(c.session.events[11].name, "LLC-load-misses", "-d: LLC-load-misses last");

	ok(!opts(&c, &err, true, set_e), "-e: accepted");
	ok(c.session.nr_events == 2 && c.session.events[1].config == PERF_COUNT_HW_INSTRUCTIONS &&
	   c.session.events[1].flags == KPROF_EV_F_EXCLUDE_KERNEL &&
	   !strcmp(c.session.events[1].name, "instructions:u"), "-e: the list, modifiers kept");
	ok(!opts(&c, &err, true, set_noinherit) && !c.session.flags, "-i: no inherit");

	is_int(opts(&c, &err, true, set_i5), -EINVAL, "-I 5: refused");
	is_str(err.msg, "print interval must be >= 10ms (-I 5)", "-I 5: perf's words");
	ok(!opts(&c, &err, true, set_i10) && c.interval_ms == 10, "-I 10: accepted");
	is_str(opts(&c, &err, true, set_iabc) ? err.msg : "",
	       "invalid print interval '1x' (-I, milliseconds)", "-I 1x: refused");
	is_int(opts(&c, &err, true, set_r0), -EINVAL, "-r 0: refused");
	is_str(err.msg, "run count must be a positive number (-r 0)", "-r 0: message");
	ok(!opts(&c, &err, true, set_r3) && c.runs == 3, "-r 3: accepted");
	opts(&c, &err, false, set_r3);
	is_str(err.msg, "option -r/--repeat needs a command to run", "-r without a command: refused");
	opts(&c, &err, false, set_none);
	is_str(err.msg, "nothing to count: give a command, or -a, -C, -p or -t (see 'kprofctl stat --help')",
	       "no command, no target: refused");
	opts(&c, &err, true, set_r3i);
	is_str(err.msg, "options -I/--interval-print and -r/--repeat are mutually exclusive",
	       "-r with -I: refused");
	opts(&c, &err, true, set_xjson);
	is_str(err.msg, "options -x/--field-separator and --json are mutually exclusive",
	       "-x with --json: refused");
	ok(opts(&c, &err, true, set_promx) == -EINVAL, "--prometheus with -x: refused");
	ok(!opts(&c, &err, true, set_x) && c.format == KP_STAT_FMT_CSV && !strcmp(c.sep, ";"),
	   "-x ';': CSV");
	ok(opts(&c, &err, true, set_xempty) == -EINVAL, "-x '': refused");
	opts(&c, &err, true, set_A);
	is_str(err.msg, "option -A/--no-aggr needs -a or -C: only system-wide counts are per CPU",
	       "-A without -a: refused");
	ok(!opts(&c, &err, true, set_aA) && c.per_cpu, "-a -A: accepted");
	opts(&c, &err, true, set_bad_event);
	is_str(err.msg, "unknown event 'cyclez' (see 'kprofctl list')",
	       "bad event: the message of record and start");
	opts(&c, &err, true, set_pa);
	is_str(err.msg, "options -p/--pid and -a/-C are mutually exclusive", "-p with -a: refused");
}

/* --- tables, scaling, runs ------------------------------------------------------ */

static void test_tables(void)
{
	struct kp_stat_count c[] = {
		{ .event = 0, .cpu = 1, .value = 10, .enabled = 100, .running = 100 },
		{ .event = 0, .cpu = 0, .value = 20, .enabled = 100, .running = 50 },
		{ .event = 1, .cpu = 0, .error = ENOENT },
		{ .event = 1, .cpu = 1, .error = ENOENT },
		{ .event = 2, .cpu = 0, .error = EINVAL },
		{ .event = 2, .cpu = 1, .value = 7, .enabled = 10, .running = 10 },
	};
	struct kp_stat_counts counts = { .nr = 6, .c = c };
	struct kp_stat_table t, p, d;
	struct kp_stat_value v;
	struct kp_stat_cell cell;
	struct kp_err err;

	ok(!kp_stat_table__build(&t, &counts, 3, false, &err), "table: built");
	ok(t.nr_rows == 1 && t.cpus[0] == -1, "table: one row without -A");
	ok(t.cells[0].value == 30 && t.cells[0].enabled == 200 && t.cells[0].running == 150,
	   "table: readings summed over CPUs");
	is_int(t.cells[1].error, ENOENT, "table: refused everywhere: the error");
	ok(!t.cells[2].error && t.cells[2].value == 7, "table: refused on one CPU: the others count");
	kp_stat_cell__scale(&t.cells[0], &v);
	ok(v.status == KP_STAT_COUNTED && v.count == 40, "scale: 30 * 200 / 150 = 40");
	kp_stat_cell__scale(&t.cells[1], &v);
	is_int(v.status, KP_STAT_NOT_SUPPORTED, "scale: refused is <not supported>");
	kp_stat_table__free(&t);

	ok(!kp_stat_table__build(&t, &counts, 3, true, &err), "table -A: built");
	ok(t.nr_rows == 2 && t.cpus[0] == 0 && t.cpus[1] == 1, "table -A: CPUs in order");
	ok(t.cells[0].value == 20 && t.cells[3].value == 10, "table -A: one cell per CPU");
	ok(t.cells[2].error == EINVAL && t.cells[5].value == 7, "table -A: errors per CPU");

	c[0].value = 25;
	c[0].enabled = 150;
	c[0].running = 150;
	ok(!kp_stat_table__build(&p, &counts, 3, true, &err) &&
	   !kp_stat_table__delta(&d, &p, &t), "delta: built");
	ok(d.cells[3].value == 15 && d.cells[3].enabled == 50 && d.cells[0].value == 0 &&
	   d.cells[0].enabled == 0, "delta: per cell, zero where nothing ran");
	kp_stat_cell__scale(&d.cells[0], &v);
	is_int(v.status, KP_STAT_NOT_COUNTED, "delta: an idle interval is <not counted>");
	kp_stat_table__free(&d);
	ok(!kp_stat_table__delta(&d, &p, NULL) && d.cells[3].value == 25,
	   "delta from nothing: the counts");
	kp_stat_table__free(&d);
	kp_stat_table__free(&p);
	kp_stat_table__free(&t);

	c[0].event = 3;
	is_int(kp_stat_table__build(&t, &counts, 3, false, &err), -EBADMSG,
	       "table: an event out of range is refused");

	cell = (struct kp_stat_cell){ .present = true, .value = 5, .enabled = 10 };
	kp_stat_cell__scale(&cell, &v);
	is_int(v.status, KP_STAT_NOT_COUNTED, "scale: never running is <not counted>");
}

static void test_runs(void)
{
	struct kp_stat_cell cells[2] = {
		{ .present = true, .enabled = 1, .running = 1 },
		{ .present = true, .error = ENOENT },
	};
	struct kp_stat_table t = { .nr_events = 2, .nr_rows = 1, .cells = cells };
	struct kp_stat_runs r = { 0 };
	struct kp_stat_value *v;
	int cpu = -1;
	unsigned int i;

	t.cpus = &cpu;
	for (i = 0; i < 3; i++) {
		cells[0].value = 10 + 2 * i;
		kp_stat_runs__add(&r, &t, 1e9 + i * 1e6);
	}
	v = kp_stat_runs__values(&r);
	ok(v && r.runs == 3 && v[0].count == 12, "runs: the mean of 10, 12, 14");
	/* perf: stddev of the mean, sqrt(4 / 3) = 1.1547, relative to 12 */
	ok(fabs(v[0].noise - 9.6225) < 0.001, "runs: +- 9.62%% (%.4f)", v ? v[0].noise : 0);
	is_int(v[1].status, KP_STAT_NOT_SUPPORTED, "runs: refused every time: <not supported>");
	ok(fabs(r.walltime.mean - 1.001e9) < 1 &&
	   fabs(kp_stat_stats__stderr(&r.walltime) - 577350.27) < 1, "runs: wall time mean and error");
	free(v);
	kp_stat_runs__free(&r);
}

/* --- printing ------------------------------------------------------------------ */

#define NR_EV	8
static struct kp_event ev8[KPROF_MAX_EVENTS];
static struct kp_stat_value v8[NR_EV * 2];
static int cpus1[] = { -1 };

static void report8(struct kp_stat_report *r, struct kp_stat_config *cfg)
{
	unsigned int nr = 0;
	struct kp_err err;
	int i;

	memset(ev8, 0, sizeof(ev8));
	if (kp_events__parse(ev8, &nr, "task-clock,context-switches,cpu-migrations,page-faults,"
			     "cycles,instructions,branches,branch-misses", true, NULL, 0, &err))
		abort();
	memset(v8, 0, sizeof(v8));
	for (i = 0; i < NR_EV; i++) {
		v8[i].status = KP_STAT_COUNTED;
		v8[i].enabled = v8[i].running = 2000000000ULL;
	}
	v8[0].count = 2e9;
	v8[1].count = 1500;
	v8[2].status = KP_STAT_NOT_COUNTED;
	v8[2].enabled = v8[2].running = 0;
	v8[3].status = KP_STAT_NOT_SUPPORTED;
	v8[3].enabled = v8[3].running = 0;
	v8[3].error = ENOENT;
	v8[4].count = 4e9;
	v8[5].count = 8e9;
	v8[6].count = 1e9;
	v8[7].count = 5e6;
	memset(cfg, 0, sizeof(*cfg));
	cfg->format = KP_STAT_FMT_TABLE;
	cfg->runs = 1;
	snprintf(cfg->sep, sizeof(cfg->sep), ",");
	memset(r, 0, sizeof(*r));
	r->cfg = cfg;
	r->target = "'prog 1'";
	r->nr_events = NR_EV;
	r->events = ev8;
	r->nr_rows = 1;
	r->cpus = cpus1;
	r->v = v8;
	r->runs = 1;
	r->walltime_ns = 1e9;
	r->has_rusage = true;
	r->user_s = 1.5;
	r->sys_s = 0.25;
}

static char *print(const struct kp_stat_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (!fp)
		abort();
	if (kp_stat__print(fp, r))
		abort();
	fclose(fp);
	return buf;
}

static const char table8[] =
	"\n"
	" Performance counter stats for 'prog 1':\n"
	"\n"
	"           2000.00 msec task-clock                       #    2.000 CPUs utilized          \n"
	"              1500      context-switches                 #  750.000 /sec                   \n"
	"     <not counted>      cpu-migrations                                              \n"
	"   <not supported>      page-faults                                                 \n"
	"        4000000000      cycles                           #    2.000 GHz                    \n"
	"        8000000000      instructions                     #    2.00  insn per cycle         \n"
	"        1000000000      branches                         #  500.000 M/sec                  \n"
	"           5000000      branch-misses                    #    0.50% of all branches        \n"
	"\n"
	"       1.000000000 seconds time elapsed\n"
	"\n"
	"       1.500000000 seconds user\n"
	"       0.250000000 seconds sys\n"
	"\n"
	"\n";

static void test_print_table(void)
{
	struct kp_stat_config cfg;
	struct kp_stat_report r;
	char *out;

	report8(&r, &cfg);
	out = print(&r);
	is_str(out, table8, "table: perf stat's layout, metrics, statuses and footer");
	free(out);

	/* multiplexed, and repeated */
	v8[1].running = 1000000000ULL;
	v8[1].noise = 1.5;
	r.runs = 5;
	r.has_rusage = false;
	r.walltime_err_ns = 1.234e6;
	out = print(&r);
	ok(strstr(out, " Performance counter stats for 'prog 1' (5 runs):\n"), "-r: runs in the header");
	ok(strstr(out, "              1500      context-switches                 #  750.000 /sec                     ( +-  1.50% )  (50.00%)\n"),
	   "-r: noise, then the running percentage of a multiplexed count");
	ok(strstr(out, "\n           1.00000 +- 0.00123 seconds time elapsed  ( +-  0.12% )\n\n"),
	   "-r: elapsed with perf's precision and variation");
	ok(!strstr(out, "seconds user"), "-r: no user and sys lines");
	free(out);
}

static void test_print_per_cpu_interval(void)
{
	static int cpus[] = { 0, 1 };
	struct kp_stat_value v[2] = {
		{ .status = KP_STAT_COUNTED, .count = 1e9, .enabled = 1000, .running = 1000 },
		{ .status = KP_STAT_COUNTED, .count = 5e8, .enabled = 1000, .running = 1000 },
	};
	struct kp_stat_config cfg = { .format = KP_STAT_FMT_TABLE, .sep = "," };
	struct kp_event ev[1];
	struct kp_stat_report r = {
		.cfg = &cfg, .target = "'system wide'", .nr_events = 1, .events = ev,
		.nr_rows = 2, .cpus = cpus, .v = v, .runs = 1, .walltime_ns = 1e9,
	};
	unsigned int nr = 0;
	struct kp_err err;
	char *out;

	kp_events__parse(ev, &nr, "cpu-clock", true, NULL, 0, &err);
	out = print(&r);
	ok(strstr(out, "CPU0                  1000.00 msec cpu-clock                        #    1.000 CPUs utilized          \n"
		       "CPU1                   500.00 msec cpu-clock                        #    0.500 CPUs utilized          \n"),
	   "-A: perf's CPU column");
	free(out);

	r.interval = true;
	r.timestamp_s = 1.000123456;
	r.interval_no = 0;
	out = print(&r);
	is_str(out, "#           time CPU                    counts unit events\n"
		    "     1.000123456 CPU0                  1000.00 msec cpu-clock                        #    1.000 CPUs utilized          \n"
		    "     1.000123456 CPU1                   500.00 msec cpu-clock                        #    0.500 CPUs utilized          \n",
	       "-I -A: header, timestamps, no footer");
	free(out);
	r.interval_no = 1;
	out = print(&r);
	ok(!strstr(out, "#           time"), "-I: the header every 25 prints only");
	free(out);

	cfg.format = KP_STAT_FMT_CSV;
	out = print(&r);
	is_str(out, "     1.000123456,CPU0,1000.00,msec,cpu-clock,1000,100.00,1.000,CPUs utilized\n"
		    "     1.000123456,CPU1,500.00,msec,cpu-clock,1000,100.00,0.500,CPUs utilized\n",
	       "-x, -I -A: perf's columns");
	free(out);
	cfg.format = KP_STAT_FMT_JSON;
	out = print(&r);
	is_str(strtok(out, "\n"), "{\"interval\" : 1.000123456, \"cpu\" : \"0\", \"counter-value\" : \"1000.000000\", "
	       "\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, "
	       "\"metric-value\" : 1.000000, \"metric-unit\" : \"CPUs utilized\"}",
	       "--json -I -A: interval and cpu first");
	free(out);
}

static void test_print_machine(void)
{
	struct kp_stat_config cfg;
	struct kp_stat_report r;
	char *out;

	report8(&r, &cfg);
	cfg.format = KP_STAT_FMT_CSV;
	out = print(&r);
	is_str(out,
	       "2000.00,msec,task-clock,2000000000,100.00,2.000,CPUs utilized\n"
	       "1500,,context-switches,2000000000,100.00,750.000,/sec\n"
	       "<not counted>,,cpu-migrations,0,100.00,,\n"
	       "<not supported>,,page-faults,0,100.00,,\n"
	       "4000000000,,cycles,2000000000,100.00,2.000,GHz\n"
	       "8000000000,,instructions,2000000000,100.00,2.00,insn per cycle\n"
	       "1000000000,,branches,2000000000,100.00,500.000,M/sec\n"
	       "5000000,,branch-misses,2000000000,100.00,0.50,of all branches\n",
	       "-x,: perf's columns, metric digits only");
	free(out);

	cfg.format = KP_STAT_FMT_JSON;
	out = print(&r);
	ok(strstr(out, "{\"counter-value\" : \"2000.000000\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
		       "\"event-runtime\" : 2000000000, \"pcnt-running\" : 100.00, \"metric-value\" : 2.000000, "
		       "\"metric-unit\" : \"CPUs utilized\"}\n"), "--json: perf's object for task-clock");
	ok(strstr(out, "{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"page-faults\", "
		       "\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
		       "\"metric-unit\" : \"\"}\n"), "--json: <not supported> as perf");
	ok(strstr(out, "\n{\"elapsed-seconds\" : 1.000000000, \"user-seconds\" : 1.500000000, "
		       "\"sys-seconds\" : 0.250000000}\n"), "--json: the footer's numbers, last");
	free(out);

	cfg.format = KP_STAT_FMT_PROMETHEUS;
	out = print(&r);
	ok(strstr(out, "# HELP kprof_stat_events_total ") &&
	   strstr(out, "\n# TYPE kprof_stat_events_total counter\n"
		       "kprof_stat_events_total{event=\"task-clock\"} 2000000000\n"
		       "kprof_stat_events_total{event=\"context-switches\"} 1500\n"
		       "kprof_stat_events_total{event=\"cycles\"} 4000000000\n"),
	   "--prometheus: HELP, TYPE, the counted events only");
	ok(strstr(out, "kprof_stat_supported{event=\"cpu-migrations\"} 1\n"
		       "kprof_stat_supported{event=\"page-faults\"} 0\n"),
	   "--prometheus: supported or not");
	ok(strstr(out, "kprof_stat_metric{event=\"context-switches\",metric=\"per second\"} 750\n") &&
	   strstr(out, "kprof_stat_metric{event=\"branches\",metric=\"per second\"} 500000000\n") &&
	   strstr(out, "kprof_stat_metric{event=\"instructions\",metric=\"insn per cycle\"} 2\n"),
	   "--prometheus: metrics, rates in events per second");
	ok(strstr(out, "kprof_stat_elapsed_seconds 1\n") && strstr(out, "kprof_stat_user_seconds 1.5\n"),
	   "--prometheus: elapsed, user and sys");
	ok(!strstr(out, "\n\n") && out[strlen(out) - 1] == '\n', "--prometheus: no blank line");
	free(out);

	/* label values escaped */
	snprintf(ev8[1].name, sizeof(ev8[1].name), "a\"b\\c");
	out = print(&r);
	ok(strstr(out, "kprof_stat_events_total{event=\"a\\\"b\\\\c\"} 1500\n"),
	   "--prometheus: label values escaped");
	free(out);
	cfg.format = KP_STAT_FMT_JSON;
	out = print(&r);
	ok(strstr(out, "\"event\" : \"a\\\"b\\\\c\""), "--json: event names escaped");
	free(out);
}

/* Metrics: cache ratios, modifiers, rates' prefixes, missing bases. */
static void test_metrics(void)
{
	struct kp_stat_config cfg = { .format = KP_STAT_FMT_TABLE };
	struct kp_stat_value v[6];
	struct kp_event ev[6];
	struct kp_stat_report r = {
		.cfg = &cfg, .events = ev, .nr_rows = 1, .cpus = cpus1, .v = v, .runs = 1,
		.walltime_ns = 1e9,
	};
	struct kp_stat_metric m;
	unsigned int nr = 0, i;
	struct kp_err err;

	kp_events__parse(ev, &nr, "task-clock:u,instructions:u,cycles,L1-dcache-loads,"
			 "L1-dcache-load-misses,cache-misses", true, NULL, 0, &err);
	r.nr_events = nr;
	for (i = 0; i < nr; i++)
		v[i] = (struct kp_stat_value){ .status = KP_STAT_COUNTED, .enabled = 1, .running = 1 };
	v[0].count = 1e6;
	v[1].count = 3e9;
	v[2].count = 2e9;
	v[3].count = 4e9;
	v[4].count = 1e8;
	v[5].count = 10;
	ok(!kp_stat__metric(&r, 0, 1, &m), "instructions:u without cycles:u: no IPC");
	ok(kp_stat__metric(&r, 0, 2, &m) == false, "cycles without task-clock (only :u): no GHz");
	ok(kp_stat__metric(&r, 0, 4, &m) && !strcmp(m.unit, "of all L1-dcache accesses") &&
	   m.value == 2.5, "L1-dcache-load-misses: 2.50%% of all L1-dcache accesses");
	ok(!kp_stat__metric(&r, 0, 5, &m), "cache-misses without cache-references: none");
	ok(kp_stat__metric(&r, 0, 0, &m) && !strcmp(m.unit, "CPUs utilized") && m.value == 0.001,
	   "task-clock:u: CPUs utilized");
	ev[0].flags = 0;
	ok(kp_stat__metric(&r, 0, 3, &m) && !strcmp(m.unit, "G/sec") && m.value == 4000,
	   "L1-dcache-loads: a rate, G/sec above 1e9");
	ok(kp_stat__metric(&r, 0, 2, &m) && !strcmp(m.unit, "GHz") && m.value == 2000,
	   "cycles: GHz against task-clock");
	v[0].status = KP_STAT_NOT_SUPPORTED;
	ok(!kp_stat__metric(&r, 0, 3, &m), "no clock counted: no rate");
}

/* --- the protocol against the fake module ------------------------------------------- */

static struct kp_nl *nl_open(void)
{
	struct kp_err err;

	return kp_nl__open(&err);
}

static void test_proto(void)
{
	struct kp_stat_counts counts = { 0 };
	struct kp_stat_start_info info;
	struct kp_session s = { 0 };
	struct kp_nl *nl;
	struct kp_err err;
	unsigned int nr = 0;

	fake_kprof__reset();
	fake_count__reset();
	nl = nl_open();
	kp_events__parse(s.events, &nr, "task-clock,cycles", true, NULL, 0, &err);
	s.nr_events = nr;
	s.flags = KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_THREADS;
	s.pids[s.nr_pids++] = 4242;
	fake_count.error[1] = ENOENT;
	fake_count.value[0][0] = 123;
	fake_count.enabled[0][0] = 456;
	fake_count.running[0][0] = 400;

	ok(!kp_nl__count_start(nl, &s, KPROF_COUNT_F_ENABLE_ON_EXEC, &info, &err),
	   "COUNT_START: accepted");
	ok(info.session_id == 1 && !info.error[0] && info.error[1] == ENOENT,
	   "COUNT_START: the id and the unsupported event");
	ok(fake_count.req.flags == (KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_THREADS) &&
	   fake_count.req.nr_pids == 1 &&
	   fake_count.req.pids[0] == 4242 && fake_count.count_flags == KPROF_COUNT_F_ENABLE_ON_EXEC &&
	   fake_count.req.nr_events == 2 && fake_count.req.events[1].type == PERF_TYPE_HARDWARE &&
	   !strcmp(fake_count.req.events[1].name, "cycles"), "COUNT_START: the request, parsed back (-t's threads flag too)");
	is_int(kp_nl__count_start(nl, &s, 0, &info, &err), -EBUSY, "COUNT_START again: EBUSY");
	is_str(err.msg, "a counting session is running (another 'kprofctl stat'?); this kprof.ko counts one at a time",
	       "COUNT_START again: one clear line");

	ok(!kp_nl__count_read(nl, 1, 2, &counts, &err), "COUNT_READ: accepted");
	ok(counts.nr == 2 && counts.session_id == 1 && fake_count.read_id == 1,
	   "COUNT_READ: one count per event, the session named");
	ok(counts.c[0].cpu == -1 && counts.c[0].value == 123 && counts.c[0].enabled == 456 &&
	   counts.c[0].running == 400 && !counts.c[0].error, "COUNT_READ: value, enabled, running");
	ok(counts.c[1].error == ENOENT, "COUNT_READ: the refused event's error");

	is_int(kp_nl__count_read(nl, 7, 2, &counts, &err), -ESTALE, "COUNT_READ of another id: ESTALE");
	ok(strstr(err.msg, "that counting session is gone") != NULL,
	   "COUNT_READ error: the extack of NLMSG_DONE (%s)", err.msg);
	fake_count.bad_attr = KPROF_COUNT_A_VALUE;
	is_int(kp_nl__count_read(nl, 1, 2, &counts, &err), -EBADMSG, "a value of 9 bytes: EBADMSG");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_COUNT_A_VALUE has 9 bytes",
	       "a value of 9 bytes: named");
	fake_count.bad_attr = 0;
	fake_count.no_id = true;
	is_int(kp_nl__count_read(nl, 1, 2, &counts, &err), -EBADMSG, "no session id: EBADMSG");
	fake_count.no_id = false;
	is_int(kp_nl__count_read(nl, 1, 1, &counts, &err), -EBADMSG, "an unknown event: EBADMSG");

	ok(!kp_nl__count_stop(nl, 1, &err) && fake_count.stop_id == 1, "COUNT_STOP: accepted");
	is_int(kp_nl__count_stop(nl, 1, &err), -ENOENT, "COUNT_STOP again: ENOENT");

	s.flags = KPROF_SESSION_F_SYSTEM_WIDE;
	s.cpus_bytes = 8;
	s.cpus[0] = 3;
	fake_count.error[1] = 0;
	ok(!kp_nl__count_start(nl, &s, 0, &info, &err), "COUNT_START -C 0-1: accepted");
	ok(fake_count.req.cpus_bytes == 8 && fake_count.req.cpus[0] == 3 && !fake_count.req.nr_pids &&
	   !fake_count.count_flags, "COUNT_START -C: the CPU bitmap, no PIDs, no flags");
	ok(!kp_nl__count_read(nl, 0, 2, &counts, &err) && counts.nr == 4 &&
	   counts.c[0].cpu == 0 && counts.c[1].cpu == 1, "COUNT_READ system-wide: per CPU");
	kp_stat_counts__free(&counts);
	kp_nl__delete(nl);
}

/* --- the command ---------------------------------------------------------------- */

static void counts_grow(unsigned int nr_reads)
{
	fake_count.value[0][0] = 100000000ULL * nr_reads;
	fake_count.enabled[0][0] = fake_count.running[0][0] = 100000000ULL * nr_reads;
}

static void test_command(void)
{
	char dir[64], path[128], *text;
	struct run r;

	fake_kprof__reset();
	fake_count__reset();
	fake_count.elapsed_ns = 2000000000ULL;
	fake_count.value[0][0] = 1000000000ULL;
	fake_count.enabled[0][0] = fake_count.running[0][0] = 1000000000ULL;
	fake_count.value[1][0] = 20;
	fake_count.enabled[1][0] = fake_count.running[1][0] = 1000000000ULL;
	fake_count.error[2] = ENOENT;
	kprofctl(&r, "stat", "-e", "task-clock,cs,cycles", "--", "true", NULL);
	is_int(r.rc, 0, "stat -- true: exit 0");
	is_str(r.out, "", "stat: nothing on stdout (perf writes stderr)");
	ok(strstr(r.err, "\n Performance counter stats for 'true':\n\n"
			 "           1000.00 msec task-clock                       #    0.500 CPUs utilized          \n"
			 "                20      cs                               #   20.000 /sec                   \n"
			 "   <not supported>      cycles                                                      \n"
			 "\n"
			 "       2.000000000 seconds time elapsed\n\n"),
	   "stat: the table, the command's wall time from the fake clock");
	ok(strstr(r.err, " seconds user\n") && strstr(r.err, " seconds sys\n\n\n"),
	   "stat: user and sys of the command");
	ok(fake_count.req.nr_pids == 1 && fake_count.req.flags == KPROF_SESSION_F_INHERIT &&
	   fake_count.count_flags == KPROF_COUNT_F_ENABLE_ON_EXEC && fake_count.nr_stops == 1 &&
	   fake_count.read_id == 1, "stat: the command's PID, inherit, enable-on-exec, stop, read");
	ok(fake.nr_open == 0, "stat: the socket is closed");
	run_free(&r);

	kprofctl(&r, "stat", "-e", "task-clock", "--", "sh", "-c", "exit 3", NULL);
	is_int(r.rc, 3, "stat -- sh -c 'exit 3': exit 3");
	ok(strstr(r.err, "Performance counter stats for 'sh -c exit 3':"), "stat: the command line");
	run_free(&r);

	fake_count.counting = false;
	kprofctl(&r, "stat", "-e", "task-clock", "-v", "--", "/nonexistent/prog", NULL);
	is_int(r.rc, 127, "stat -- missing program: exit 127");
	is_str(r.err, "kprofctl: stat: workload failed: cannot run '/nonexistent/prog': No such file or directory\n",
	       "stat -- missing program: one line");
	ok(!fake_count.counting, "stat -- missing program: the session is stopped");
	run_free(&r);

	fake_count.counting = true;
	kprofctl(&r, "stat", "-e", "task-clock", "--", "true", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: stat: a counting session is running (another 'kprofctl stat'?); this kprof.ko counts one at a time\n"),
	   "stat while another counts: exit 1, one line");
	run_free(&r);
	fake_count.counting = false;

	fake.loaded = false;
	kprofctl(&r, "stat", "--", "true", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: kprof module not loaded (insmod kprof.ko)\n"),
	   "stat without the module: the common line");
	run_free(&r);
	fake.loaded = true;

	kprofctl(&r, "stat", "-I", "5", "--", "true", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: stat: print interval must be >= 10ms (-I 5)\n"),
	   "stat -I 5: exit 2, one line");
	run_free(&r);

	/* -a -A -x, to a file */
	tmpdir__create(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	fake_count.value[0][1] = 500000000ULL;
	fake_count.enabled[0][1] = fake_count.running[0][1] = 1000000000ULL;
	kprofctl(&r, "stat", "-a", "-A", "-x", ";", "-e", "cpu-clock", "-o", path, "--", "true", NULL);
	ok(r.rc == 0 && !r.err[0], "stat -a -A -x';' -o FILE: exit 0, nothing on stderr");
	text = tmpdir__slurp(path, NULL);
	is_str(text, "CPU0;1000.00;msec;cpu-clock;1000000000;100.00;0.500;CPUs utilized\n"
		     "CPU1;500.00;msec;cpu-clock;1000000000;100.00;0.250;CPUs utilized\n",
	       "stat -a -A -x';': per-CPU CSV in the file");
	free(text);
	ok(fake_count.req.flags == KPROF_SESSION_F_SYSTEM_WIDE && !fake_count.req.nr_pids &&
	   !fake_count.count_flags, "stat -a -- true: system-wide, no enable-on-exec");
	run_free(&r);

	/* -r 3 */
	fake_count.nr_starts = 0;
	kprofctl(&r, "stat", "-r", "3", "-e", "task-clock", "--", "true", NULL);
	ok(r.rc == 0 && fake_count.nr_starts == 3 &&
	   strstr(r.err, "Performance counter stats for 'true' (3 runs):") &&
	   strstr(r.err, "       2.00000 +- 0.00000 seconds time elapsed\n") == NULL &&
	   strstr(r.err, " seconds time elapsed"), "stat -r 3: three sessions, one summary");
	run_free(&r);

	/* -I with the real clock: intervals from the growing counts */
	kp_clock_ns = kp_clock_monotonic_ns;
	fake_count.on_read = counts_grow;
	fake_count.nr_reads = 0;
	kprofctl(&r, "stat", "-I", "50", "-e", "task-clock", "--", "sleep", "0.2", NULL);
	ok(r.rc == 0 && !strncmp(r.err, "#           time             counts unit events\n", 48) &&
	   fake_count.nr_reads >= 3, "stat -I 50 -- sleep 0.2: header and %d reads",
	   fake_count.nr_reads);
	ok(strstr(r.err, "   100.00 msec task-clock") && !strstr(r.err, "Performance counter stats"),
	   "stat -I: the counts of each interval, no summary");
	run_free(&r);
	fake_count.on_read = NULL;

	snprintf(path, sizeof(path), "%s/out.prom", dir);
	kprofctl(&r, "stat", "-I", "50", "--prometheus", "-o", path, "-e", "task-clock", "--",
		 "sleep", "0.1", NULL);
	text = tmpdir__slurp(path, NULL);
	snprintf(path, sizeof(path), "%s/out.prom.tmp", dir);
	ok(r.rc == 0 && text && !strncmp(text, "# HELP kprof_stat_events_total ", 31) &&
	   !strstr(text, "\n\n") && access(path, F_OK),
	   "stat -I --prometheus -o: the file is one exposition, replaced whole");
	free(text);
	run_free(&r);
	tmpdir__remove(dir);
	fake_count__reset();
}

int main(void)
{
	kp_sysroot = "";
	fake_kprof__reset();
	fake_count__reset();
	test_options();
	test_tables();
	test_runs();
	test_print_table();
	test_print_per_cpu_interval();
	test_print_machine();
	test_metrics();
	test_proto();
	test_command();
	return done_testing();
}
