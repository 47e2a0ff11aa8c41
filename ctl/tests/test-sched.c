// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl sched latency|map|timehist' on a recording of sched_switch and
 * sched_wakeup whose every delay is known (written with tests/gen.h, raw
 * records as Linux 6.1 makes them, tests/tp-fake.h), two CPUs:
 *
 *   ms  CPU 0                            CPU 1
 *    1  swapper -> ping:200 (new)
 *    2                                   swapper -> hog:300 (new)
 *    3  ping S -> swapper
 *    4                                   wakeup ping:200
 *    6  swapper -> ping (delay 2 ms)
 *    7  ping R+ -> pong:201 (new)
 *   10  pong S -> ping (delay 3 ms)
 *   12                                   hog R+ -> ping:202 (new)
 *   13                                   ping:202 S -> hog (delay 1 ms)
 *   14                                   migrate pong:201 0 -> 1
 *
 * sched_migrate_task in the layout of Linux 6.18 (comm a __data_loc
 * string), to read a field where another kernel put it.
 * Golden files: tests/golden/sched-*.txt (KP_UPDATE_GOLDEN=1 rewrites);
 * asserted besides: the numbers above, the merge by command name, the
 * stacks of the worst delay, and the errors of bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lib/tracefs.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"
#include "tp-record.h"

static char root[64], data[256], nosched[256], kallsyms[256];

#define TP_MIGRATE_ID	371

static const char tp_migrate_format[] =
	"name: sched_migrate_task\nID: 371\n" TP_COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", __get_str(comm), "
	"REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu\n";

static void migrate(struct gen_writer *g, unsigned int ms, uint32_t cpu, uint32_t cur,
		    const char *comm, uint32_t pid, uint32_t from, uint32_t to)
{
	uint8_t raw[40] = { 0 };
	uint32_t n = strlen(comm) + 1;

	tpr__common(raw, sizeof(raw), TP_MIGRATE_ID, cur);
	tp_fake__put32(raw, 8, 28 | n << 16);
	tp_fake__put32(raw, 12, pid);
	tp_fake__put32(raw, 16, 120);
	tp_fake__put32(raw, 20, from);
	tp_fake__put32(raw, 24, to);
	memcpy(raw + 28, comm, n);
	tpr__sample(g, ms, cur, cpu, 2, raw, sizeof(raw));
}

static void wakeup(struct gen_writer *g, unsigned int ms, uint32_t cpu, uint32_t waker,
		   const char *comm, uint32_t pid, uint32_t target)
{
	uint8_t raw[36];

	tpr__common(raw, sizeof(raw), TP_SCHED_WAKEUP_ID, waker);
	memcpy(raw + 8, comm, strlen(comm));
	tp_fake__put32(raw, 24, pid);
	tp_fake__put32(raw, 28, 120);
	tp_fake__put32(raw, 32, target);
	tpr__sample(g, ms, waker, cpu, 1, raw, sizeof(raw));
}

/* @sched: sched_switch + sched_wakeup; else one irq event only. */
static void write_data(const char *path, bool sched)
{
	struct kp_rec_synth_done sd = { .header = { KP_DATA_REC_SYNTH_DONE, 0, sizeof(sd) },
					.time = TPR_T0, .nr_processes = 4, .nr_threads = 4 };
	struct kp_tp_formats tp = { 0 };
	struct kp_data_info info;
	struct kp_session *s = &info.session;
	struct gen_writer g;
	struct kp_err err;

	tpr__info(&info, "kprofctl sched record -a");
	s->nr_events = sched ? 3 : 2;
	s->events[0].type = PERF_TYPE_TRACEPOINT;
	s->events[1].type = PERF_TYPE_TRACEPOINT;
	if (sched) {
		s->events[0].config = TP_SCHED_SWITCH_ID;
		snprintf(s->events[0].name, sizeof(s->events[0].name), "sched:sched_switch");
		s->events[1].config = TP_SCHED_WAKEUP_ID;
		snprintf(s->events[1].name, sizeof(s->events[1].name), "sched:sched_wakeup");
		tp.text[0] = (char *)tp_sched_switch_format;
		tp.size[0] = strlen(tp_sched_switch_format) + 1;
		tp.text[1] = (char *)tp_sched_wakeup_format;
		tp.size[1] = strlen(tp_sched_wakeup_format) + 1;
		s->events[2].type = PERF_TYPE_TRACEPOINT;
		s->events[2].config = TP_MIGRATE_ID;
		snprintf(s->events[2].name, sizeof(s->events[2].name), "sched:sched_migrate_task");
		tp.text[2] = (char *)tp_migrate_format;
		tp.size[2] = strlen(tp_migrate_format) + 1;
	} else {
		/* event 1, as tpr__irq_entry() writes it */
		s->events[0].type = PERF_TYPE_SOFTWARE;
		snprintf(s->events[0].name, sizeof(s->events[0].name), "cpu-clock");
		s->events[1].config = TP_IRQ_ENTRY_ID;
		snprintf(s->events[1].name, sizeof(s->events[1].name), "irq:irq_handler_entry");
		tp.text[1] = (char *)tp_irq_entry_format;
		tp.size[1] = strlen(tp_irq_entry_format) + 1;
	}
	info.tp_formats = &tp;
	g.w = kp_data_writer__create(path, &info, &err);
	if (!g.w)
		gen__check(-1, &err);
	gen__comm(&g, TPR_T0, 200, 200, "ping", false);
	gen__comm(&g, TPR_T0, 200, 202, "ping", false);
	gen__comm(&g, TPR_T0, 201, 201, "pong", false);
	gen__comm(&g, TPR_T0, 300, 300, "hog", false);
	gen__write(&g, &sd);
	if (sched) {
		tpr__switch(&g, 1, 0, "swapper/0", 0, 0, "ping", 200);
		tpr__switch(&g, 2, 1, "swapper/1", 0, 0, "hog", 300);
		tpr__switch(&g, 3, 0, "ping", 200, 1, "swapper/0", 0);
		wakeup(&g, 4, 1, 300, "ping", 200, 0);
		tpr__switch(&g, 6, 0, "swapper/0", 0, 0, "ping", 200);
		tpr__switch(&g, 7, 0, "ping", 200, 0x100, "pong", 201);
		tpr__switch(&g, 10, 0, "pong", 201, 1, "ping", 200);
		tpr__switch(&g, 12, 1, "hog", 300, 0x100, "ping", 202);
		tpr__switch(&g, 13, 1, "ping", 202, 1, "hog", 300);
		migrate(&g, 14, 1, 300, "pong", 201, 0, 1);
	} else {
		tpr__irq_entry(&g, 2, 1, 0, 19, "virtio0");
	}
	gen__finish(&g, TPR_T0 + 20 * TPR_MS);
}

/* check(), with the output of @r when it fails */
static void check(bool cond, const char *name, const struct run *r)
{
	if (!ok(cond, "%s", name))
		diag("rc=%d\nstdout:\n%s\nstderr:\n%s", r->rc, r->out, r->err);
}

static void test_latency(void)
{
	struct run r;

	kprofctl(&r, "sched", "latency", "-i", data, "--kallsyms", kallsyms, NULL);
	run_golden("sched-latency.txt", &r);
	/* ping: 3 + 1 switches in 2 threads, 5 ms of delay, the worst 3 ms at 1.007-1.010 */
	check(r.rc == 0 && strstr(r.out, "  ping:(2)              |      4.000 ms |        4 | avg:   1.250 ms | max:   3.000 ms | max start:     1.007000 s | max end:     1.010000 s\n"),
	      "latency: ping's two threads merged, its preemption wait counted", &r);
	check(strstr(r.out, "  hog:300               |     10.000 ms |        2 | avg:   0.500 ms | max:   1.000 ms |") &&
	   strstr(r.out, "  pong:201              |      3.000 ms |        1 | avg:   0.000 ms |") &&
	   strstr(r.out, "  TOTAL:                |     17.000 ms |        7 |\n") &&
	   strstr(r.out, "ping:(2)") < strstr(r.out, "hog:300") &&
	   strstr(r.out, "hog:300") < strstr(r.out, "pong:201") && !strstr(r.out, "swapper"),
	      "latency: runtimes, switches, sorted by avg, max, switch, runtime; no idle task", &r);
	run_free(&r);

	kprofctl(&r, "sched", "latency", "-i", data, "-p", "-s", "pid", NULL);
	check(r.rc == 0 && strstr(r.out, "  ping:200              |      3.000 ms |        3 | avg:   1.667 ms | max:   3.000 ms |") &&
	   strstr(r.out, "  ping:202              |      1.000 ms |        1 |") &&
	   strstr(r.out, "ping:200") < strstr(r.out, "pong:201") &&
	   strstr(r.out, "pong:201") < strstr(r.out, "ping:202"),
	      "latency -p -s pid: per thread, by thread id", &r);
	run_free(&r);

	kprofctl(&r, "sched", "latency", "-i", data, "-C", "1", NULL);
	check(r.rc == 0 && strstr(r.out, "  hog:300 ") && !strstr(r.out, "pong"),
	      "latency -C 1: the switches of CPU 1 only", &r);
	run_free(&r);

	kprofctl(&r, "sched", "latency", "-i", data, "--stacks", "1", "--kallsyms", kallsyms, NULL);
	check(r.rc == 0 && strstr(r.out, "  ping:200  delay 3.000 ms on CPU 0, from 1.007000 s to 1.010000 s\n"
			       "    switched out (R+, preempted) at:\n      __schedule+0x560 ([kernel.kallsyms])\n"
			       "    ran instead (the longest of the wait): pong:201, switched out at:\n      __schedule+0x560"),
	      "latency --stacks: the worst delay, its switch-out stack and who ran instead", &r);
	run_free(&r);
}

static void test_map_timehist(void)
{
	struct run r;

	kprofctl(&r, "sched", "map", "-i", data, NULL);
	run_golden("sched-map.txt", &r);
	check(r.rc == 0 && strstr(r.out, "  *A0           1.001000 secs A0 => ping:200\n") &&
	   strstr(r.out, "   A0 *B0       1.002000 secs B0 => hog:300\n") &&
	   strstr(r.out, "  *C0  B0       1.007000 secs C0 => pong:201\n") &&
	   strstr(r.out, "   A0 *D0       1.012000 secs D0 => ping:202\n"),
	      "map: a column per CPU, * on the switching one, shortnames as perf gives them", &r);
	run_free(&r);
	kprofctl(&r, "sched", "map", "-i", data, "--cpus", "1", NULL);
	check(r.rc == 0 && strstr(r.out, "  *B0       1.002000 secs B0 => hog:300\n") &&
	   strstr(r.out, "  *A0           1.001000 secs A0 => ping:200\n") == NULL,
	      "map --cpus 1: one column, lines of CPU 0 without a time", &r);
	run_free(&r);

	kprofctl(&r, "sched", "timehist", "-i", data, "--kallsyms", kallsyms, NULL);
	run_golden("sched-timehist.txt", &r);
	/* ping:200 out at 7 ms: 3 ms asleep (3-6), 2 ms of delay (4-6), 1 ms run (6-7) */
	check(r.rc == 0 && strstr(r.out, "       1.007000 [0000]  ping[200]                           3.000      2.000      1.000 ") &&
	   strstr(r.out, "       1.013000 [0001]  ping[202]                           0.000      0.000      1.000 "),
	      "timehist: wait, scheduling delay and run time of each switch-out", &r);
	run_free(&r);
	kprofctl(&r, "sched", "timehist", "-i", data, "-s", NULL);
	check(r.rc == 0 && strstr(r.out, "Runtime summary\n") &&
	   strstr(r.out, "Total number of context switches: 8\n") &&
	   strstr(r.out, "    CPU  0 idle for      3.000  msec  ( 25.00%)\n") && !strstr(r.out, "[0000]"),
	      "timehist -s: the summary only, idle per CPU", &r);
	run_free(&r);
	kprofctl(&r, "sched", "timehist", "-i", data, "-M", "-V", "-G", NULL);
	check(r.rc == 0 && strstr(r.out, "       1.014000 [0001]    m   hog[300]  ") &&
	      strstr(r.out, "migrated: pong[201] cpu 0 => 1\n") &&
	      strstr(r.out, "       1.003000 [0000]  s   ping[200]  ") &&
	      strstr(r.out, "       1.012000 [0001]   s  hog[300]  ") &&
	      strstr(r.out, "           time    cpu  01  task name"),
	      "timehist -M -V: the migration (a __data_loc comm), a column per CPU", &r);
	run_free(&r);
	kprofctl(&r, "sched", "map", "-i", data, "--compact", NULL);
	check(r.rc == 0 && strstr(r.out, "  *A0       1.001000 secs A0 => ping:200 (CPU 0)\n") &&
	      strstr(r.out, "   A0 *B0       1.002000 secs B0 => hog:300 (CPU 1)\n"),
	      "map --compact: a column per CPU that switched, in order, (CPU n) when new", &r);
	run_free(&r);
	kprofctl(&r, "sched", "timehist", "-i", data, "-w", "--state", "-t", "200", "-G", NULL);
	check(r.rc == 0 && strstr(r.out, "awakened: ping[200]\n") && strstr(r.out, "ping[200]") &&
	   !strstr(r.out, "pong[201]          ") && strstr(r.out, "      R  ") &&
	      strstr(r.out, "  hog[300]  "),
	      "timehist -w --state -t: wakeups, states, one thread", &r);
	run_free(&r);
}

static void test_errors(void)
{
	struct run r;

	kprofctl(&r, "sched", "latency", "-i", nosched, NULL);
	check(r.rc == 1 && strstr(r.err, "has no sched:sched_switch events (record them with 'kprofctl sched record')\n"),
	      "a recording without sched_switch: named in one line", &r);
	run_free(&r);
	kprofctl(&r, "sched", "latency", "-i", data, "-s", "avg,bogus", NULL);
	check(r.rc == 2 && strstr(r.err, "unknown sort key 'bogus'"),
	      "latency -s bogus: named", &r);
	run_free(&r);
	kprofctl(&r, "sched", "latency", "-i", data, "--stacks", "0", NULL);
	check(r.rc == 2 && strstr(r.err, "invalid --stacks value 0"),
	      "latency --stacks 0: refused", &r);
	run_free(&r);
	kprofctl(&r, "sched", "map", "-i", data, "--cpus", "1-x", NULL);
	check(r.rc == 2 && strstr(r.err, "bad --cpus value '1-x'"),
	      "map --cpus 1-x: refused", &r);
	run_free(&r);
	kprofctl(&r, "sched", "timehist", "-i", data, "-s", "-S", NULL);
	check(r.rc == 2 && strstr(r.err, "mutually exclusive"),
	      "timehist -s -S: refused", &r);
	run_free(&r);
	kprofctl(&r, "sched", "bogus", NULL);
	check(r.rc == 2 && strstr(r.err, "unknown sched command 'bogus'"),
	      "sched bogus: refused", &r);
	run_free(&r);
	kprofctl(&r, "sched", "latency", "-i", "/nonexistent/kprof.data", NULL);
	check(r.rc == 1 && strstr(r.err, "/nonexistent/kprof.data"),
	      "no such file: named", &r);
	run_free(&r);
	kprofctl(&r, "sched", "record", "--help", NULL);
	check(r.rc == 0 && strstr(r.out, "sched:sched_switch,sched:sched_wakeup,"),
	      "sched record --help: the events it records", &r);
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	tp_fake__create(root);
	snprintf(data, sizeof(data), "%s/sched.data", root);
	snprintf(nosched, sizeof(nosched), "%s/irq.data", root);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
	tmpdir__write(root, "kallsyms", "ffffffff81234000 T __schedule\nffffffff81235000 T schedule\n");
	kp_tracefs_root = "/nonexistent/kprof/events";
	write_data(data, true);
	write_data(nosched, false);

	test_latency();
	test_map_timehist();
	test_errors();

	kp_tracefs_root = NULL;
	tmpdir__remove(root);
	return done_testing();
}
