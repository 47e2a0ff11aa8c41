// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl lock report' of a recording of lockdep's lock:lock_acquire,
 * lock_acquired, lock_contended and lock_release (a CONFIG_LOCKDEP +
 * CONFIG_LOCK_STAT kernel's, raw records in Linux 6.1's layout) whose every
 * wait is known, written with tests/gen.h:
 *
 *   ms   thread        events
 *   1-6  100 "writer"  A: acquire, acquired, release; three times
 *   7    101 "reader"  A: acquire, contended; acquired at 9 (waited 2 ms)
 *   10   101           A: release
 *   11   100           A: acquire, contended; acquired at 15 (waited 4 ms)
 *   16   100           A: release
 *   17   101           B (a long name): trylock acquire, release
 *   18   101           B: read acquire twice, release twice
 *   19   100           C: release with no acquire (before the recording: ignored)
 *   20   100           C: acquired with no acquire (ignored); D: acquire,
 *                      acquired, acquire again without a release (broken)
 *
 * A: acquired 5, contended 2, total 6 ms, max 4 ms, min 2 ms, avg 3 ms;
 * B: acquired 3; D: broken by its second acquire.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lib/tracefs.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"
#include "tp-record.h"

static char root[64], data[256];

enum { EV_ACQUIRE, EV_ACQUIRED, EV_CONTENDED, EV_RELEASE, EV_NR };

static const uint16_t ids[EV_NR] = { 400, 401, 402, 403 };

static const char fmt_acquire[] =
	"name: lock_acquire\nID: 400\n" TP_COMMON
	"\tfield:unsigned int flags;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:void * lockdep_addr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"%p %s%s%s\", REC->lockdep_addr, (REC->flags & 1) ? \"try \" : \"\", "
	"(REC->flags & 2) ? \"read \" : \"\", __get_str(name)\n";

/* the lock class's events: @name and @id filled in */
#define FMT_LOCK(name, id)							\
	"name: " name "\nID: " id "\n" TP_COMMON				\
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"	\
	"\tfield:void * lockdep_addr;\toffset:16;\tsize:8;\tsigned:0;\n\n"	\
	"print fmt: \"%p %s\", REC->lockdep_addr, __get_str(name)\n"

static const char * const fmts[EV_NR] = {
	fmt_acquire,
	FMT_LOCK("lock_acquired", "401"),
	FMT_LOCK("lock_contended", "402"),
	FMT_LOCK("lock_release", "403"),
};

static const char * const names[EV_NR] = {
	"lock:lock_acquire", "lock:lock_acquired", "lock:lock_contended", "lock:lock_release",
};

#define LOCK_A	0xffff888001000000ULL
#define LOCK_B	0xffff888001000100ULL
#define LOCK_C	0xffff888001000200ULL
#define LOCK_D	0xffff888001000300ULL

static const char *lock_name(uint64_t addr)
{
	return addr == LOCK_A ? "&pipe->mutex" :
	       addr == LOCK_B ? "&sb->s_type->i_mutex_key" :
	       addr == LOCK_C ? "rcu_read_lock" : "jiffies_lock";
}

/* One lockdep event of @tid at @us microseconds; @flags: 1 try, 2 read. */
static void ev(struct gen_writer *g, unsigned int us, uint32_t tid, unsigned int type,
	       uint64_t addr, uint32_t flags)
{
	const char *name = lock_name(addr);
	uint32_t n = strlen(name) + 1, at = type == EV_ACQUIRE ? 12 : 8;
	uint8_t raw[64] = { 0 };

	tpr__common(raw, sizeof(raw), ids[type], tid);
	if (type == EV_ACQUIRE)
		tp_fake__put32(raw, 8, flags);
	tp_fake__put32(raw, at, 24 | n << 16);
	memcpy(raw + 16, &addr, 8);
	memcpy(raw + 24, name, n);
	tpr__sample_at(g, TPR_T0 + us * 1000ULL, tid, tid & 1, type, raw, (24 + n + 7) & ~7U);
}

/* acquire, maybe contended for @wait_us, acquired, held 100 us, release */
static unsigned int take(struct gen_writer *g, unsigned int us, uint32_t tid, uint64_t addr,
			 unsigned int wait_us)
{
	ev(g, us, tid, EV_ACQUIRE, addr, 0);
	if (wait_us)
		ev(g, us + 1, tid, EV_CONTENDED, addr, 0);
	ev(g, us + 1 + wait_us, tid, EV_ACQUIRED, addr, 0);
	ev(g, us + 101 + wait_us, tid, EV_RELEASE, addr, 0);
	return us + 1000 + wait_us;
}

static void write_data(const char *path)
{
	struct kp_rec_synth_done sd = { .header = { KP_DATA_REC_SYNTH_DONE, 0, sizeof(sd) },
					.time = TPR_T0, .nr_processes = 2, .nr_threads = 2 };
	struct kp_tp_formats tp = { 0 };
	struct kp_data_info info;
	struct kp_session *s = &info.session;
	struct gen_writer g;
	struct kp_err err;
	unsigned int i, us = 1000;

	tpr__info(&info, "kprofctl lock record -- prog");
	s->flags = 0;
	s->nr_events = EV_NR;
	for (i = 0; i < EV_NR; i++) {
		s->events[i].type = PERF_TYPE_TRACEPOINT;
		s->events[i].config = ids[i];
		snprintf(s->events[i].name, sizeof(s->events[i].name), "%s", names[i]);
		tp.text[i] = (char *)fmts[i];
		tp.size[i] = strlen(fmts[i]) + 1;
	}
	info.tp_formats = &tp;
	g.w = kp_data_writer__create(path, &info, &err);
	if (!g.w)
		gen__check(-1, &err);
	gen__comm(&g, TPR_T0, 100, 100, "writer", false);
	gen__comm(&g, TPR_T0, 101, 101, "reader", false);
	gen__write(&g, &sd);

	for (i = 0; i < 3; i++)
		us = take(&g, us, 100, LOCK_A, 0);
	us = take(&g, 7000, 101, LOCK_A, 2000);
	us = take(&g, 11000, 100, LOCK_A, 4000);
	/* B: a trylock, then two read locks held at once */
	ev(&g, 17000, 101, EV_ACQUIRE, LOCK_B, 1);
	ev(&g, 17100, 101, EV_RELEASE, LOCK_B, 0);
	ev(&g, 18000, 101, EV_ACQUIRE, LOCK_B, 2);
	ev(&g, 18100, 101, EV_ACQUIRE, LOCK_B, 2);
	ev(&g, 18200, 101, EV_RELEASE, LOCK_B, 0);
	ev(&g, 18300, 101, EV_RELEASE, LOCK_B, 0);
	/* C: the ends of what began before the recording */
	ev(&g, 19000, 100, EV_RELEASE, LOCK_C, 0);
	ev(&g, 20000, 100, EV_ACQUIRED, LOCK_C, 0);
	/* D: acquired twice without a release */
	ev(&g, 20100, 100, EV_ACQUIRE, LOCK_D, 0);
	ev(&g, 20200, 100, EV_ACQUIRED, LOCK_D, 0);
	ev(&g, 20300, 100, EV_ACQUIRE, LOCK_D, 0);
	gen__finish(&g, TPR_T0 + 30 * TPR_MS);
}

static void check(bool cond, const char *name, const struct run *r)
{
	if (!ok(cond, "%s", name))
		diag("rc=%d\nstdout:\n%s\nstderr:\n%s", r->rc, r->out, r->err);
}

/* The line of @out whose first column is @name, or NULL. */
static const char *row(const char *out, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *q = p;

		while (*q == ' ')
			q++;
		if (!strncmp(q, name, n) && q[n] == ' ')
			return p;
	}
	return NULL;
}

static bool row_is(const char *out, const char *line)
{
	const char *p = strstr(out, line);

	return p && (p == out || p[-1] == '\n') && (p[strlen(line)] == '\n');
}

static void test_report(void)
{
	struct run r = { 0 };
	const char *a, *b;

	kprofctl(&r, "lock", "report", "-i", data, NULL);
	check(r.rc == 0 && row_is(r.out, "                Name   acquired  contended     avg wait   "
				  "total wait     max wait     min wait "),
	      "lock report: perf lock report's header", &r);
	check(row_is(r.out, "        &pipe->mutex          5          2      3.00 ms      6.00 ms"
			    "      4.00 ms      2.00 ms "),
	      "&pipe->mutex: acquired 5, contended 2, waits 2 and 4 ms", &r);
	check(row_is(r.out, " &sb->s_type->i_m...          3          0         0 ns         0 ns"
			    "         0 ns         0 ns "),
	      "a trylock and two read locks held at once: acquired 3, its name cut as perf cuts it",
	      &r);
	check(!row(r.out, "rcu_read_lock"), "ends of what began before the recording: no row", &r);
	a = row(r.out, "&pipe->mutex");
	b = row(r.out, "&sb->s_type->i_m...");
	check(a && b && a < b, "sorted by acquired, most first", &r);
	check(strstr(r.out, "=== output for debug===\n\nbad: 1, total: 4\n") &&
	      strstr(r.out, "    acquire: 1\n"),
	      "jiffies_lock acquired twice: broken, in perf's debug histogram", &r);
	run_free(&r);

	kprofctl(&r, "lock", "report", "-i", data, "--sort", "contended,acquired", "-E", "1", NULL);
	check(r.rc == 0 && row(r.out, "&pipe->mutex") && !row(r.out, "&sb->s_type->i_m..."),
	      "--sort contended,acquired -E 1: the contended lock only", &r);
	run_free(&r);

	kprofctl(&r, "lock", "report", "-i", data, "-k", "wait_max", "-t", NULL);
	a = row(r.out, "writer");
	b = row(r.out, "reader");
	check(r.rc == 0 && a && b && a < b,
	      "-t -k wait_max: one row a thread, the longest wait (writer's) first", &r);
	check(row_is(r.out, "              writer          5          1      4.00 ms      4.00 ms"
			    "      4.00 ms      4.00 ms "),
	      "-t: writer acquired 5 (A 4 times, D once before its broken acquire), contended once",
	      &r);
	check(row_is(r.out, "              reader          4          1      2.00 ms      2.00 ms"
			    "      2.00 ms      2.00 ms "),
	      "-t: reader acquired 4 (A once, B 3 times), contended once for 2 ms", &r);
	check(strstr(r.out, "bad: 1, total: 2\n") != NULL, "-t: one of the two threads broken", &r);
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	tp_fake__create(root);
	snprintf(data, sizeof(data), "%s/lock.data", root);
	kp_tracefs_root = "/nonexistent/kprof/events";
	write_data(data);

	test_report();

	kp_tracefs_root = NULL;
	tmpdir__remove(root);
	return done_testing();
}
