// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl exporter' against the fake module: the exposition of a
 * running session (its counters, losses by cause, per-CPU samples), of an
 * idle module and of no module; of a counting session's counts (the fake
 * of tests/fake-count.c); of the top functions of an aggregating
 * session's tables (--top), and of what a streaming session, a failed
 * read or --top 0 leave out; each checked by Debian's real 'promtool
 * check metrics'; and bad input.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fake-count.h"
#include "lib/agg.h"
#include "lib/data.h"
#include "lib/rundir.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], dev[128], rundir[128], ksyms[160];

/* promtool check metrics on @text: its exit code (-1: cannot run it). */
static int promtool(const char *text, const char *what)
{
	char path[128], cmd[256];
	int rc;

	snprintf(path, sizeof(path), "%s/metrics.txt", root);
	tmpdir__write(root, "metrics.txt", text);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s > %s/promtool.out 2>&1", path, root);
	rc = system(cmd);
	if (rc) {
		snprintf(cmd, sizeof(cmd), "sed 's/^/# promtool (%s): /' %s/promtool.out", what, root);
		if (system(cmd))
			diag("promtool failed");
	}
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static void test_running(void)
{
	char want[160];
	struct run r;

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.status.sessions = 3;
	fake.session_id = 3;
	fake.stats.v[KP_STAT_INVOCATIONS] = 10;
	fake.stats.v[KP_STAT_SAMPLES] = 7;
	fake.stats.v[KP_STAT_LOST_FULL] = 2;
	fake.stats.v[KP_STAT_HANDLER_NS] = 2500000000ULL;
	fake.stats.has_nested = true;	/* the fake sends the ABI 1.1 counters with it */
	fake.stats.lost_recursion = 1;
	fake.cpu_stats[0].v[KP_STAT_SAMPLES] = 4;
	fake.cpu_stats[1].v[KP_STAT_SAMPLES] = 3;
	fake.cpu_stats[1].v[KP_STAT_LOST_FULL] = 2;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 1\n"), "exporter --once: kprof_up 1");
	snprintf(want, sizeof(want), "kprof_module_info{release=\"0.1.0\",abi=\"%u.%u\",kernel=\"6.1.0-test\"} 1\n",
		 KPROF_ABI_MAJOR, KPROF_ABI_MINOR);
	ok(strstr(r.out, want) != NULL, "kprof_module_info: release, ABI and kernel as labels");
	ok(strstr(r.out, "kprof_session_state{state=\"running\"} 1\n") &&
	   strstr(r.out, "kprof_session_state{state=\"idle\"} 0\n") &&
	   strstr(r.out, "\nkprof_sessions_total 3\n"), "the session's state, sessions started");
	ok(strstr(r.out, "\nkprof_samples_total 7\n") && strstr(r.out, "\nkprof_invocations_total 10\n"),
	   "kprof_samples_total and kprof_invocations_total: the session's totals");
	ok(strstr(r.out, "kprof_lost_samples_total{cause=\"buffer_full\"} 2\n") &&
	   strstr(r.out, "kprof_lost_samples_total{cause=\"recursion\"} 1\n") &&
	   strstr(r.out, "kprof_lost_samples_total{cause=\"cost_cap\"} 0\n"),
	   "kprof_lost_samples_total by cause");
	ok(strstr(r.out, "\nkprof_handler_seconds_total 2.5\n") != NULL,
	   "kprof_handler_seconds_total: nanoseconds as seconds");
	ok(strstr(r.out, "kprof_cpu_samples_total{cpu=\"0\"} 4\n") &&
	   strstr(r.out, "kprof_cpu_samples_total{cpu=\"1\"} 3\n") &&
	   strstr(r.out, "kprof_cpu_lost_samples_total{cpu=\"1\"} 2\n"), "per-CPU samples and losses");
	ok(strstr(r.out, "# TYPE kprof_samples_total counter\n") != NULL, "counters are typed");
	is_int(promtool(r.out, "running"), 0, "promtool check metrics: the running session's exposition");
	run_free(&r);

	fake.status.state = KPROF_STATE_IDLE;
	fake.session_id = 0;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_session_state{state=\"idle\"} 1\n") &&
	   !strstr(r.out, "kprof_samples_total"), "an idle module: its state, no session counters");
	is_int(promtool(r.out, "idle"), 0, "promtool check metrics: the idle module's");
	run_free(&r);

	fake.loaded = false;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 0\n") && !strstr(r.out, "kprof_module_info"),
	   "no module: kprof_up 0 and nothing else");
	is_int(promtool(r.out, "no module"), 0, "promtool check metrics: kprof_up 0");
	run_free(&r);
}

/* ---- counting sessions ---- */

/* A counting session 5 of @nr_events named @names, per CPU when @system_wide. */
static void fake_counting(bool system_wide, unsigned int nr_events, const char * const *names)
{
	unsigned int i;

	fake_count__reset();
	fake_count.counting = true;
	fake_count.session_id = fake_count.last_id = 5;
	fake_count.req.flags = system_wide ? KPROF_SESSION_F_SYSTEM_WIDE : 0;
	fake_count.req.nr_pids = !system_wide;
	fake_count.req.pids[0] = 42;
	fake_count.req.nr_events = nr_events;
	for (i = 0; i < nr_events; i++) {
		snprintf(fake_count.req.events[i].name, sizeof(fake_count.req.events[i].name), "%s",
			 names[i]);
		/* cycles, instructions, then a tracepoint (ABI 1.8 sends them) */
		fake_count.req.events[i].type = i < 2 ? PERF_TYPE_HARDWARE : PERF_TYPE_TRACEPOINT;
		fake_count.req.events[i].config = i == 0 ? PERF_COUNT_HW_CPU_CYCLES :
						  i == 1 ? PERF_COUNT_HW_INSTRUCTIONS : 1234;
	}
	fake_count.counted_ns = 2000000000ULL;
}

static void test_counting(void)
{
	static const char * const names[] = { "cycles", "instructions", "probe:\"odd\\name\"" };
	struct run r;

	fake_kprof__reset();
	fake_counting(true, 3, names);
	fake_count.value[0][0] = 1000;
	fake_count.enabled[0][0] = 2000000000ULL;
	fake_count.running[0][0] = 2000000000ULL;
	fake_count.value[0][1] = 300;		/* multiplexed: on the PMU half the time */
	fake_count.enabled[0][1] = 2000000000ULL;
	fake_count.running[0][1] = 1000000000ULL;
	fake_count.value[1][0] = 4000;
	fake_count.enabled[1][0] = fake_count.running[1][0] = 2000000000ULL;
	/* instructions on CPU 1 never ran: <not counted>, no count */
	fake_count.error[2] = EOPNOTSUPP;	/* perf refused the third */
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 1\n") && !strcmp(r.err, ""),
	   "a counting session: kprof_up 1, nothing on stderr");
	ok(strstr(r.out, "kprof_stat_events_total{event=\"cycles\",cpu=\"0\",session=\"5\"} 1000\n") &&
	   strstr(r.out, "kprof_stat_events_total{event=\"cycles\",cpu=\"1\",session=\"5\"} 600\n") &&
	   strstr(r.out, "kprof_stat_events_total{event=\"instructions\",cpu=\"0\",session=\"5\"} 4000\n") &&
	   !strstr(r.out, "kprof_stat_events_total{event=\"instructions\",cpu=\"1\""),
	   "kprof_stat_events_total per event and CPU, scaled as stat scales it, with the session");
	ok(strstr(r.out, "kprof_stat_running_seconds_total{event=\"cycles\",cpu=\"1\",session=\"5\"} 1\n") &&
	   strstr(r.out, "kprof_stat_enabled_seconds_total{event=\"cycles\",cpu=\"1\",session=\"5\"} 2\n"),
	   "time enabled and running, in seconds");
	ok(strstr(r.out, "kprof_stat_supported{event=\"probe:\\\"odd\\\\name\\\"\",cpu=\"0\",session=\"5\"} 0\n") &&
	   strstr(r.out, "kprof_stat_supported{event=\"cycles\",cpu=\"1\",session=\"5\"} 1\n"),
	   "kprof_stat_supported: 0 for the refused event, its name escaped");
	ok(strstr(r.out, "# TYPE kprof_stat_events_total counter\n") &&
	   strstr(r.out, "kprof_stat_session_running{session=\"5\"} 1\n") &&
	   strstr(r.out, "kprof_stat_elapsed_seconds{session=\"5\"} 2\n"),
	   "ABI 1.8: the session counts, for 2 s (kprof_stat_session_running, kprof_stat_elapsed_seconds)");
	ok(strstr(r.out, "kprof_stat_metric{event=\"instructions\",cpu=\"0\",session=\"5\",metric=\"insn per cycle\"} 4\n") != NULL,
	   "ABI 1.8: the events' types known, stat's derived metrics (4000 instructions / 1000 cycles)");
	ok(fake_count.nr_reads == 1 && fake_count.read_id == 0 && fake_count.counting,
	   "one COUNT_READ of no session id; the session goes on counting");
	is_int(promtool(r.out, "counting, system-wide"), 0,
	       "promtool check metrics: a system-wide counting session");
	run_free(&r);

	fake_counting(false, 2, names);
	fake_count.value[1][0] = 77;
	fake_count.enabled[1][0] = fake_count.running[1][0] = 1000;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_stat_events_total{event=\"instructions\",session=\"5\"} 77\n") &&
	   !strstr(r.out, "cpu=\"0\",session"), "a per-task counting session: no cpu label");
	is_int(promtool(r.out, "counting, per task"), 0, "promtool check metrics: a per-task one");
	run_free(&r);

	fake_counting(true, 2, names);
	fake_count.value[0][0] = 1000;
	fake_count.enabled[0][0] = fake_count.running[0][0] = 2000000000ULL;
	fake_count.counting = false;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_stat_session_running{session=\"5\"} 0\n") &&
	   strstr(r.out, "kprof_stat_events_total{event=\"cycles\",cpu=\"0\",session=\"5\"} 1000\n"),
	   "a stopped counting session: its frozen counts, kprof_stat_session_running 0");
	is_int(promtool(r.out, "counting, stopped"), 0, "promtool check metrics: a stopped one");
	run_free(&r);

	fake_counting(true, 2, names);
	fake_count.value[0][0] = 1000;
	fake_count.value[1][0] = 4000;
	fake_count.enabled[0][0] = fake_count.running[0][0] = 2000000000ULL;
	fake_count.enabled[1][0] = fake_count.running[1][0] = 2000000000ULL;
	fake_count.old_abi = true;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_stat_events_total{event=\"cycles\",cpu=\"0\",session=\"5\"} 1000\n") &&
	   !strstr(r.out, "kprof_stat_metric") && !strstr(r.out, "kprof_stat_elapsed_seconds") &&
	   !strstr(r.out, "kprof_stat_session_running"),
	   "a module of ABI 1.7: the counts only, no derived metrics, time or state");
	run_free(&r);

	fake_count__reset();
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_stat_") && !strcmp(r.err, "") &&
	   strstr(r.out, "\nkprof_up 1\n"), "no counting session: no kprof_stat_ metrics, no message");
	run_free(&r);

	fake_counting(true, 1, names);
	fake_count.bad_attr = KPROF_COUNT_A_VALUE;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_stat_") && strstr(r.out, "\nkprof_up 1\n") &&
	   strstr(r.err, "malformed reply") && !strchr(strchr(r.err, '\n') + 1, '\n'),
	   "a broken COUNT_READ: the health metrics, one line on stderr");
	is_int(promtool(r.out, "counting, broken"), 0, "promtool check metrics: after a failed read");
	run_free(&r);
	fake_count__reset();
}

/* ---- the aggregation tables' top functions ---- */

/* Entry @i of the fake tables: @count samples of @nr_kernel kernel, @nr_user user frames. */
static void fake_entry(unsigned int i, uint32_t cpu, uint32_t pid, const char *comm,
		       uint64_t count, uint32_t nr_kernel, uint32_t nr_user, const uint64_t *frames)
{
	struct fake_agg_entry *e = &fake.agg[i];

	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->pid = pid;
	e->comm = comm;
	e->count = count;
	e->nr_kernel = nr_kernel;
	e->nr_user = nr_user;
	memcpy(e->frames, frames, (nr_kernel + nr_user) * sizeof(*frames));
	if (i >= fake.nr_agg)
		fake.nr_agg = i + 1;
}

#define K(off)	(0xffffffff81000000ULL + (off))

/*
 * A running aggregating session 7 whose tables' innermost frames are:
 * func_a 10 + 5 (two stacks, two CPUs), func_b 12 + 1 (two processes),
 * func_c 4, an unnamed user address of /usr/bin/hot 3, and 2 of off-CPU
 * time (nanoseconds: not counted): 35 samples.
 */
static void fake_agg_session(void)
{
	const uint64_t a1[] = { K(0x1010), K(0x4010) }, a2[] = { K(0x1020), K(0x3010) };
	const uint64_t b[] = { K(0x2010), K(0x4020) }, c[] = { K(0x3020) };
	const uint64_t user[] = { 0x55555555a100, 0x55555555a200 };

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.status.sessions = 7;
	fake.session_id = 7;
	fake.session_flags = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE |
			     KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK;
	fake.buffer_size = KPROF_MIN_BUFFER_SIZE;
	fake.mmap_stride = 4096 + KPROF_MIN_BUFFER_SIZE;
	fake_entry(0, 0, 42, "hot", 10, 2, 0, a1);
	fake_entry(1, 1, 42, "hot", 5, 2, 0, a2);
	fake_entry(2, 0, 42, "hot", 12, 2, 0, b);
	fake_entry(3, 1, 99, "gone", 1, 2, 0, b);
	fake_entry(4, 1, 42, "hot", 4, 1, 0, c);
	fake_entry(5, 0, 42, "hot", 3, 0, 2, user);
	fake_entry(6, 0, 42, "hot", 2, 1, 0, c);
	fake.agg[6].event = 1;
	fake.agg[6].time_ns = 2;	/* an off-CPU entry: event 1 is off-CPU time */
	fake.stats.v[KP_STAT_INVOCATIONS] = 35;
	fake.stats.has_agg = true;
	fake.stats.agg[KP_AGG_STAT_SAMPLES] = 35;
	fake.stats.agg[KP_AGG_STAT_USED] = 7;
	fake.stats.agg[KP_AGG_STAT_CAPACITY] = 2 * 16384;
}

/*
 * The configuration 'kprofctl start' leaves for session 7: cpu-clock and
 * off-CPU time, so that the decoder tells the off-CPU entries apart.
 */
static void save_session(void)
{
	static struct kp_data_info info;
	struct kp_err err;

	kp_data_info__init(&info);
	info.session_id = 7;
	info.start_time = fake.now_ns;
	info.nr_cpus = 2;
	info.session.flags = fake.session_flags;
	info.session.buffer_size = fake.buffer_size;
	info.session.stack_depth = KPROF_MAX_STACK_DEPTH;
	info.session.nr_events = 2;
	info.session.events[0].type = PERF_TYPE_SOFTWARE;
	info.session.events[0].config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(info.session.events[0].name, sizeof(info.session.events[0].name), "cpu-clock");
	info.session.events[1].type = KPROF_TYPE_OFFCPU;
	snprintf(info.session.events[1].name, sizeof(info.session.events[1].name), "offcpu");
	if (kp_agg__save_session(&info, &err))
		diag("kp_agg__save_session: %s", err.msg);
}

/* The lines of @text that begin with @prefix. */
static int count_lines(const char *text, const char *prefix)
{
	const char *p;
	int n = 0;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, strlen(prefix));
	return n;
}

static void test_top(void)
{
	char path[PATH_MAX];
	struct run r;

	fake_agg_session();
	save_session();
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 1\n") && strstr(r.out, "\nkprof_aggregated_samples_total 35\n"),
	   "--top 2: the health metrics");
	ok(strstr(r.out, "\nkprof_function_samples{function=\"func_a\",dso=\"[kernel.kallsyms]\"} 15\n") &&
	   strstr(r.out, "\nkprof_function_samples{function=\"func_b\",dso=\"[kernel.kallsyms]\"} 13\n") &&
	   count_lines(r.out, "kprof_function_samples{") == 2,
	   "--top 2: the two functions most often innermost, their stacks, CPUs and processes added up");
	ok(strstr(r.out, "\nkprof_function_samples_other 7\n") != NULL,
	   "kprof_function_samples_other: the rest (func_c 4, the user address 3), not the off-CPU time");
	ok(strstr(r.out, "# HELP kprof_function_samples ") && strstr(r.out, "# TYPE kprof_function_samples gauge\n") &&
	   strstr(r.out, "# TYPE kprof_function_samples_other gauge\n"), "HELP and TYPE of both");
	ok(strstr(r.out, "\nkprof_function_samples{function=\"func_a\"") <
	   strstr(r.out, "\nkprof_function_samples{function=\"func_b\""), "the largest first");
	is_int(promtool(r.out, "top 2"), 0, "promtool check metrics: --top 2");
	ok(!strcmp(r.err, ""), "--top: nothing on stderr");
	run_free(&r);

	kprofctl(&r, "exporter", "--once", "--top", "100", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && count_lines(r.out, "kprof_function_samples{") == 4 &&
	   strstr(r.out, "kprof_function_samples{function=\"func_c\",dso=\"[kernel.kallsyms]\"} 4\n") &&
	   strstr(r.out, "kprof_function_samples{function=\"[unknown]\",dso=\"/usr/bin/hot\"} 3\n") &&
	   strstr(r.out, "\nkprof_function_samples_other 0\n"),
	   "--top 100: every function (an unnamed user frame as [unknown] of its file), _other 0");
	is_int(promtool(r.out, "top 100"), 0, "promtool check metrics: --top 100");
	run_free(&r);

	/*
	 * A daemon's session is read in intervals: its tables restart at each
	 * swap, no counter.  Alone, no function metrics; beside an older
	 * aggregating session, that one's.
	 */
	fake.session_flags |= KPROF_SESSION_F_INTERVALS;
	fake.nr_agg_dumps = 0;
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_function_samples") && !fake.nr_agg_dumps,
	   "--top 2, only a session read in intervals (a daemon's): no function metrics");
	run_free(&r);
	fake.nr_table = 2;
	fake.table[0] = (struct kp_session_row){ .id = 7, .state = KPROF_STATE_RUNNING,
						 .flags = fake.session_flags, .start_ns = 2000 };
	fake.table[1] = (struct kp_session_row){ .id = 5, .state = KPROF_STATE_RUNNING,
						 .flags = KPROF_SESSION_F_AGGREGATE, .start_ns = 1000 };
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && count_lines(r.out, "kprof_function_samples{") == 2 &&
	   fake.agg_dump_id == 5,
	   "--top 2 beside a daemon's session: the newest aggregating session not read in intervals (5)");
	run_free(&r);
	fake.nr_table = 0;
	fake.session_flags &= ~KPROF_SESSION_F_INTERVALS;

	fake.nr_agg_dumps = 0;
	kprofctl(&r, "exporter", "--once", "--top", "0", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_function_samples") && !fake.nr_agg_dumps,
	   "--top 0: no function metrics, the tables not read");
	run_free(&r);
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_function_samples") && !fake.nr_agg_dumps,
	   "no --top: the same");
	run_free(&r);

	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE;
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_samples_total") && !strstr(r.out, "kprof_function_samples") &&
	   !strcmp(r.err, "") && !fake.nr_agg_dumps,
	   "--top 2, a streaming session: the health metrics, no function metrics, no message");
	run_free(&r);

	fake_agg_session();
	fake.nr_agg = 0;
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && !strstr(r.out, "kprof_function_samples{") &&
	   strstr(r.out, "\nkprof_function_samples_other 0\n") && !strcmp(r.err, ""),
	   "--top 2, empty tables: no function, _other 0");
	is_int(promtool(r.out, "top, empty tables"), 0, "promtool check metrics: empty tables");
	run_free(&r);

	fake_agg_session();
	fake.agg_done_errno = EIO;
	kprofctl(&r, "exporter", "--once", "--top", "2", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 1\n") && strstr(r.out, "\nkprof_aggregated_samples_total 35\n") &&
	   !strstr(r.out, "kprof_function_samples") && r.err[0] && !strchr(strchr(r.err, '\n') + 1, '\n'),
	   "--top 2, the tables' dump fails: the health metrics, one line on stderr");
	is_int(promtool(r.out, "top, failed read"), 0, "promtool check metrics: after a failed dump");
	run_free(&r);

	fake_agg_session();
	fake.status.state = KPROF_STATE_IDLE;
	fake.session_id = 0;
	kprofctl(&r, "exporter", "--once", "--top", "2", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_session_state{state=\"idle\"} 1\n") &&
	   !strstr(r.out, "kprof_function_samples") && !strcmp(r.err, ""),
	   "--top 2 without a session: the health metrics only");
	run_free(&r);
	fake.loaded = false;
	kprofctl(&r, "exporter", "--once", "--top", "2", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 0\n") && !strstr(r.out, "kprof_function_samples"),
	   "--top 2 without the module: kprof_up 0");
	run_free(&r);
	ok(!tmpdir__count(root, "kprof-exporter."), "--top: no temporary file left");
	fake_kprof__reset();
	kp_agg__session_path(7, path, sizeof(path));
	unlink(path);
}

static void test_bad(void)
{
	static const char * const bad_top[] = { "101", "-1", "x", "", "2x", "99999999999" };
	static const char * const bad[] = { "9464", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536",
					    "localhost:9464", "[::1:9464", "1.2.3.4:x" };
	unsigned int i;
	struct run r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		kprofctl(&r, "exporter", "--listen", bad[i], NULL);
		snprintf(want, sizeof(want), "bad --listen '%s'", bad[i]);
		ok(r.rc == 2 && strstr(r.err, want), "exporter --listen %s: named, exit 2", bad[i]);
		run_free(&r);
	}
	for (i = 0; i < sizeof(bad_top) / sizeof(bad_top[0]); i++) {
		char want[128];

		kprofctl(&r, "exporter", "--once", "--top", bad_top[i], NULL);
		snprintf(want, sizeof(want),
			 "kprofctl: exporter: bad --top '%s': a number of functions from 0 to 100 expected\n",
			 bad_top[i]);
		ok(r.rc == 2 && !strcmp(r.err, want) && !strcmp(r.out, ""),
		   "exporter --top '%s': one line naming it, exit 2", bad_top[i]);
		run_free(&r);
	}
	kprofctl(&r, "exporter", "--help", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprofctl exporter [--listen <addr>:<port>] [--once] [--top <n>]") &&
	   strstr(r.out, "--top=<n>") && strstr(r.out, "--kallsyms=<file>"), "exporter --help");
	run_free(&r);
	kprofctl(&r, "exporter", "extra", NULL);
	ok(r.rc == 2, "exporter with an argument: a usage error");
	run_free(&r);
}

/*
 * A daemon's session: its state in the run directory becomes the
 * kprof_daemon_* families; a second session beside it, so that STATS must
 * name the session STATUS details.
 */
static void test_daemon(void)
{
	struct kp_daemon_state d = {
		.pid = getpid(), .session_id = 3, .interval_ms = 60000, .intervals = 43,
		.saved = 42, .not_saved = 1, .removed = 2, .last_seq = 42,
		.last_start_ns = 1796649300ULL * 1000000000ULL,
		.last_end_ns = 1796649360ULL * 1000000000ULL, .last_samples = 4242, .spooled = 3,
	};
	struct kp_err err;
	struct run r;

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_id = 3;
	fake.cpu_stats[0].v[KP_STAT_SAMPLES] = 4;
	fake.nr_table = 2;
	fake.table[0] = (struct kp_session_row){ .id = 3, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_OWNED, .owner_pid = getpid() };
	fake.table[1] = (struct kp_session_row){ .id = 4, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_STREAM | KPROF_SESSION_F_OWNED, .owner_pid = getpid() };
	snprintf(d.formats, sizeof(d.formats), "pprof");
	snprintf(d.dir, sizeof(d.dir), "/var/lib/kprof/\"profiles\"");
	snprintf(d.upload, sizeof(d.upload), "http://127.0.0.1:4040");
	ok(!kp_rundir__write_daemon(&d, &err), "a daemon's state for session 3");
	kprofctl(&r, "exporter", "--once", NULL);
	ok(strstr(r.out, "kprof_daemon_intervals_total{session=\"3\",outcome=\"saved\"} 42\n") &&
	   strstr(r.out, "kprof_daemon_intervals_total{session=\"3\",outcome=\"not_saved\"} 1\n") &&
	   strstr(r.out, "kprof_daemon_removed_intervals_total{session=\"3\"} 2\n") &&
	   strstr(r.out, "kprof_daemon_last_interval_end_seconds{session=\"3\"} 1796649360\n") &&
	   strstr(r.out, "kprof_daemon_upload_waiting{session=\"3\"} 3\n"),
	   "the daemon's intervals, removals, last end and upload backlog");
	ok(strstr(r.out, "dir=\"/var/lib/kprof/\\\"profiles\\\"\",formats=\"pprof\"} 1\n") != NULL,
	   "kprof_daemon_info: its directory, quotes escaped");
	ok(strstr(r.out, "kprof_cpu_samples_total{cpu=\"0\"} 4\n") != NULL,
	   "with two sessions, the per-CPU counters of the one STATUS details");
	is_int(promtool(r.out, "daemon"), 0, "promtool check metrics: a daemon's session");
	run_free(&r);
	d.pid = 999999999;
	kp_rundir__write_daemon(&d, &err);
	kprofctl(&r, "exporter", "--once", NULL);
	ok(!strstr(r.out, "kprof_daemon_"), "a daemon that is gone: no kprof_daemon_ families");
	run_free(&r);
	kp_rundir__remove_daemon(3);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	run_machine(root, "0-1", dev, rundir, sizeof(dev));
	tmpdir__write(root, "proc/42/task/42/comm", "hot\n");
	tmpdir__write(root, "proc/42/maps",
		      "55555555a000-55555555b000 r-xp 00000000 fd:01 7 /usr/bin/hot\n");
	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", root);
	tmpdir__write(root, "kallsyms", "ffffffff81001000 T func_a\nffffffff81002000 T func_b\n"
		      "ffffffff81003000 T func_c\nffffffff81004000 T func_d\n"
		      "ffffffff81100000 T _etext\n");
	setenv("TMPDIR", root, 1);
	if (system("command -v promtool >/dev/null 2>&1"))
		diag("promtool is missing: tools/deps.sh installs prometheus");
	test_running();
	test_counting();
	test_top();
	test_daemon();
	test_bad();
	tmpdir__remove(root);
	return done_testing();
}
