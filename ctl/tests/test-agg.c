// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of aggregation in kprofctl: --mode and --agg-entries (each bad
 * value with its one-line message), the AGG record through lib/data.c,
 * KPROF_CMD_AGG_DUMP against the fake module of tests/fake-nl.c (parsing,
 * merging, errors in NLMSG_DONE), lib/agg.c, and 'start', 'status', 'stop
 * -o' and 'dump' on an aggregating session.  /proc and /sys come from a
 * fake root.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "capture.h"
#include "fake-nl.h"
#include "lib/agg.h"
#include "lib/data.h"
#include "lib/folded.h"
#include "lib/proto.h"
#include "lib/record.h"
#include "lib/ring.h"
#include "lib/rundir.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "pprof-load.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], out[128], rundir[128], dev[128];

/* ---- options ---- */

static const char * const usage[] = { "test", NULL };

struct result {
	int			ret;
	struct kp_session	s;
	enum kp_target		target;
	struct kp_err		err;
	struct kp_session_opts	o;
};

/* "CMD ARGS..." as 'record' (@start false) or 'start' parses them. */
static void parse(struct result *r, bool start, ...)
{
	const char *argv[32] = { start ? "start" : "record" };
	const struct option options[] = {
		KP_SESSION_OPTIONS(&r->o),
		OPT_END()
	};
	struct capture c;
	va_list ap;
	int argc = 1;

	memset(r, 0, sizeof(*r));
	va_start(ap, start);
	while ((argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	r->o.aggregate_default = start;
	capture__start(&c);
	r->ret = parse_options(argc, argv, options, usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (r->ret >= 0)
		r->ret = kp_session__from_opts(&r->s, &r->target, &r->o, !start && r->ret > 0, true,
					       argv[0], &r->err);
	capture__stop(&c);
	capture__free(&c);
}

#define BAD(start, want, ...) do {						\
	struct result _r;							\
	parse(&_r, (start), __VA_ARGS__, NULL);					\
	ok(_r.ret < 0 && !strcmp(_r.err.msg, (want)), "bad: %s", (want));	\
	if (_r.ret >= 0 || strcmp(_r.err.msg, (want)))				\
		diag("got %d '%s'", _r.ret, _r.err.msg);			\
} while (0)

#define MODES	(KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE)
#define STACKS	(KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK)

static void test_options(void)
{
	struct result r;

	parse(&r, true, "-a", NULL);
	ok(!r.ret && (r.s.flags & MODES) == KPROF_SESSION_F_AGGREGATE &&
	   r.s.agg_entries == KPROF_AGG_DEFAULT_ENTRIES, "start: aggregate by default, 8K entries");
	ok((r.s.flags & STACKS) == STACKS, "start: aggregating implies -g");
	parse(&r, true, "-a", "-K", NULL);
	ok(!r.ret && (r.s.flags & STACKS) == KPROF_SESSION_F_KERNEL_STACK,
	   "start -K: kernel chains only");
	parse(&r, true, "-a", "-o", "x.data", NULL);
	ok(!r.ret && !(r.s.flags & MODES) && !r.s.agg_entries && !(r.s.flags & STACKS),
	   "start -o: streams, as before");
	parse(&r, true, "--mode", "stream", NULL);
	ok(!r.ret && !(r.s.flags & MODES), "start --mode stream: no mode flag (the module's default)");
	parse(&r, true, "--mode", "both", "--agg-entries", "64K", NULL);
	ok(!r.ret && (r.s.flags & MODES) == MODES && r.s.agg_entries == 65536,
	   "start --mode both --agg-entries 64K");
	parse(&r, true, "--mode", "aggregate", "--agg-entries", "64", NULL);
	ok(!r.ret && r.s.agg_entries == 64, "--agg-entries: the minimum");
	parse(&r, true, "--agg-entries", "4M", NULL);
	ok(!r.ret && r.s.agg_entries == KPROF_AGG_MAX_ENTRIES, "--agg-entries: the maximum");
	parse(&r, false, "--", "true", NULL);
	ok(!r.ret && !(r.s.flags & MODES), "record: streams");
	parse(&r, false, "--mode", "both", "--", "true", NULL);
	ok(!r.ret && (r.s.flags & MODES) == MODES && (r.s.flags & STACKS) == STACKS,
	   "record --mode both");
	parse(&r, true, "--events", "cpu-clock,page-faults", "--events", "cs", NULL);
	ok(!r.ret && r.s.nr_events == 3 && !strcmp(r.s.events[1].name, "page-faults"),
	   "--events: the long form of -e");

	BAD(true, "invalid mode 'aggregated': use stream, aggregate or both",
	    "--mode", "aggregated");
	BAD(false, "mode 'aggregate' writes no stream: use --mode both, or 'kprofctl start'",
	    "--mode", "aggregate", "--", "true");
	BAD(true, "-o/--output 'x.data' needs a stream: use --mode both, or save the aggregate profile with 'kprofctl stop -o'",
	    "--mode", "aggregate", "-o", "x.data");
	BAD(true, "--buffer-size '8K' sizes the stream: mode 'aggregate' has none (use --mode both)",
	    "--buffer-size", "8K");
	BAD(true, "--agg-entries '1024' needs an aggregating session: --mode aggregate or both",
	    "--mode", "stream", "--agg-entries", "1024");
	BAD(false, "--agg-entries '1024' needs an aggregating session: --mode aggregate or both",
	    "--agg-entries", "1024", "--", "true");
	BAD(true, "aggregation entries '1000' is not a power of two", "--agg-entries", "1000");
	BAD(true, "aggregation entries '32' is below the minimum of 64", "--agg-entries", "32");
	BAD(true, "aggregation entries '8M' is above the maximum of 4M", "--agg-entries", "8M");
	BAD(true, "invalid aggregation entries '16k4' (e.g. 16384, 64K)", "--agg-entries", "16k4");
	BAD(true, "invalid aggregation entries '' (e.g. 16384, 64K)", "--agg-entries", "");
	BAD(true, "aggregation entries '0x3fffffffffffffffK' is above the maximum of 4M",
	    "--agg-entries", "0x3fffffffffffffffK");
}

/* ---- the AGG record through data.c ---- */

static const uint64_t frames[] = {
	0xffffffff81001234, 0xffffffff81005678, 0x55555555a000, 0x55555555b000, 0x55555555c000,
};

static size_t make_agg(unsigned char *buf, uint32_t pid, uint16_t event, uint64_t count,
		       uint16_t nr_kernel, uint16_t nr_user, const char *comm)
{
	struct kp_rec_agg *a = (void *)buf;
	size_t size = sizeof(*a) + (nr_kernel + nr_user) * 8;

	memset(buf, 0, size);
	a->header.type = KP_DATA_REC_AGG;
	a->header.size = size;
	a->count = count;
	a->pid = pid;
	a->event = event;
	a->nr_kernel = nr_kernel;
	a->nr_user = nr_user;
	a->nr_entries = 2;
	snprintf(a->comm, sizeof(a->comm), "%s", comm);
	memcpy(a->ips, frames, (nr_kernel + nr_user) * 8);
	return size;
}

static int write_file(const char *path, uint32_t version, const struct kprof_record_header *rec)
{
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_err err;
	int ret;

	kp_data_info__init(&info);
	info.version = version;
	info.nr_cpus = 2;
	info.session.nr_events = 2;
	snprintf(info.session.events[0].name, KPROF_EVENT_NAME_MAX, "cpu-clock");
	snprintf(info.session.events[1].name, KPROF_EVENT_NAME_MAX, "page-faults");
	info.session.stack_depth = 127;
	info.session.flags = KPROF_SESSION_F_AGGREGATE;
	w = kp_data_writer__create(path, &info, &err);
	if (!w)
		return -1;
	ret = kp_data_writer__write(w, rec, &err);
	if (!ret)
		ret = kp_data_writer__finish(w, 5, 0, &err);
	kp_data_writer__delete(w);
	return ret;
}

/* Read @path back: the first record into @buf, the error into @err. */
static int read_back(const char *path, unsigned char *buf, struct kp_err *err, uint32_t *version)
{
	const struct kprof_record_header *rec;
	struct kp_data *d;
	uint64_t off;
	int ret, n = 0;

	err->msg[0] = '\0';
	d = kp_data__open(path, err);
	if (!d)
		return -1;
	*version = kp_data__info(d)->version;
	while ((ret = kp_data__next(d, &rec, &off, err)) > 0)
		if (!n++)
			memcpy(buf, rec, rec->size);
	kp_data__close(d);
	return ret;
}

/*
 * Write the record @rec (in @buf) alone into a version 2 file at @path:
 * reading it back must fail at it with @expect.  Then @remake puts the
 * good record back in @buf.
 */
static void corrupt(const char *path, const struct kprof_record_header *rec, unsigned char *buf,
		    void (*remake)(unsigned char *buf), const char *what, const char *expect)
{
	unsigned char back[2048] __attribute__((aligned(8)));
	const char *type = kp_record__type_name(rec->type);
	uint32_t version = 0;
	struct kp_err err;
	char want[512];

	write_file(path, KP_DATA_VERSION_AGG, rec);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 680 (0x2a8): %s", path,
		 expect);
	ok(read_back(path, back, &err, &version) < 0 && !strcmp(err.msg, want), "%s: %s",
	   type, what);
	if (strcmp(err.msg, want))
		diag("%s", err.msg);
	remake(buf);
}

static void remake_agg(unsigned char *buf)
{
	make_agg(buf, 42, 1, 1234, 2, 3, "hot");
}

static void test_record_roundtrip(void)
{
	unsigned char buf[2048] __attribute__((aligned(8))), back[2048] __attribute__((aligned(8)));
	struct kp_rec_agg *a = (void *)buf;
	char path[160], want[512];
	struct kp_err err;
	uint32_t version = 0;
	size_t size;

	snprintf(path, sizeof(path), "%s/agg.data", root);
	size = make_agg(buf, 42, 1, 1234, 2, 3, "hot");
	ok(!write_file(path, KP_DATA_VERSION_AGG, &a->header) &&
	   !read_back(path, back, &err, &version) && version == KP_DATA_VERSION_AGG &&
	   !memcmp(buf, back, size), "AGG: written and read back unchanged, format version 2");
	if (err.msg[0])
		diag("%s", err.msg);

	write_file(path, KP_DATA_VERSION, &a->header);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 680 (0x2a8): unknown record type 65539",
		 path);
	ok(read_back(path, back, &err, &version) < 0 && !strcmp(err.msg, want),
	   "AGG: refused in a version 1 file");
	if (strcmp(err.msg, want))
		diag("%s", err.msg);

	a->count = 0;
	corrupt(path, &a->header, buf, remake_agg, "no samples", "AGG of 0 samples");
	a->event = 2;
	corrupt(path, &a->header, buf, remake_agg,
		"event out of range", "AGG of event 2, but the session has 2 events");
	a->nr_user = 4;
	corrupt(path, &a->header, buf, remake_agg,
		"frames beyond the record", "AGG of 88 bytes cannot hold its 6 frames");
	a->nr_kernel = 200;
	a->nr_user = 0;
	a->header.size = sizeof(*a) + 200 * 8;
	corrupt(path, &a->header, buf, remake_agg,
		"deeper than the stack depth", "AGG has 200+0 frames, above the stack depth 127");
	a->__reserved = 1;
	corrupt(path, &a->header, buf, remake_agg,
		"reserved field", "AGG has a non-zero reserved field");
	memset(a->comm, 'x', sizeof(a->comm));
	corrupt(path, &a->header, buf, remake_agg,
		"unterminated name", "AGG name is not NUL-terminated");
	a->header.size = 40;
	corrupt(path, &a->header, buf, remake_agg,
		"short", "AGG of 40 bytes is shorter than its 48-byte layout");
	unlink(path);
}

/* A WAKER record: 2+1 blocked frames and 1+2 of the waker's, from frames[]. */
static size_t make_waker(unsigned char *buf)
{
	struct kp_rec_waker *w = (void *)buf;
	size_t size = sizeof(*w) + 6 * 8;

	memset(buf, 0, size);
	w->header.type = KP_DATA_REC_WAKER;
	w->header.size = size;
	w->count = 3;
	w->time_ns = 30000;
	w->pid = 42;
	w->event = 1;
	w->nr_kernel = 2;
	w->nr_user = 1;
	w->waker_nr_kernel = 1;
	w->waker_nr_user = 2;
	w->waker_pid = 7;
	snprintf(w->comm, sizeof(w->comm), "blocked");
	snprintf(w->waker_comm, sizeof(w->waker_comm), "waker");
	memcpy(w->ips, frames, 3 * 8);
	memcpy(w->ips + 3, frames + 1, 3 * 8);
	return size;
}

static void remake_waker(unsigned char *buf)
{
	make_waker(buf);
}

static void test_waker_record(void)
{
	unsigned char buf[2048] __attribute__((aligned(8))), back[2048] __attribute__((aligned(8)));
	struct kp_rec_waker *w = (void *)buf;
	char path[160];
	struct kp_err err;
	uint32_t version = 0;
	size_t size;

	snprintf(path, sizeof(path), "%s/waker.data", root);
	size = make_waker(buf);
	ok(!write_file(path, KP_DATA_VERSION_AGG, &w->header) &&
	   !read_back(path, back, &err, &version) && !memcmp(buf, back, size),
	   "WAKER: written and read back unchanged");
	if (err.msg[0])
		diag("%s", err.msg);
	write_file(path, KP_DATA_VERSION, &w->header);
	ok(read_back(path, back, &err, &version) < 0 &&
	   strstr(err.msg, "unknown record type 65540"), "WAKER: refused in a version 1 file");

	w->count = 0;
	corrupt(path, &w->header, buf, remake_waker, "no blocks", "WAKER of 0 blocks");
	w->event = 2;
	corrupt(path, &w->header, buf, remake_waker,
		"event out of range", "WAKER of event 2, but the session has 2 events");
	w->waker_nr_user = 3;
	corrupt(path, &w->header, buf, remake_waker,
		"frames beyond the record", "WAKER of 128 bytes cannot hold its 7 frames");
	w->waker_nr_kernel = 200;
	w->waker_nr_user = 0;
	w->header.size = sizeof(*w) + 203 * 8;
	corrupt(path, &w->header, buf, remake_waker, "deeper than the stack depth",
		 "WAKER has 2+1 and 200+0 frames, above the stack depth 127");
	w->__reserved2 = 1;
	corrupt(path, &w->header, buf, remake_waker,
		"reserved field", "WAKER has a non-zero reserved field");
	memset(w->waker_comm, 'x', sizeof(w->waker_comm));
	corrupt(path, &w->header, buf, remake_waker,
		"unterminated waker name", "WAKER name is not NUL-terminated");
	w->header.size = 72;
	corrupt(path, &w->header, buf, remake_waker,
		"short", "WAKER of 72 bytes is shorter than its 80-byte layout");
	unlink(path);
}

/* ---- AGG_DUMP against the fake module ---- */

static void fake_entry(unsigned int i, uint32_t cpu, uint32_t pid, const char *comm,
		       uint64_t count, uint32_t nr_kernel, uint32_t nr_user, uint64_t salt)
{
	struct fake_agg_entry *e = &fake.agg[i];
	uint32_t j;

	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->pid = pid;
	e->comm = comm;
	e->count = count;
	e->nr_kernel = nr_kernel;
	e->nr_user = nr_user;
	for (j = 0; j < nr_kernel; j++)
		e->frames[j] = frames[j] + salt;		/* kernel addresses */
	for (j = 0; j < nr_user; j++)
		e->frames[nr_kernel + j] = frames[2 + j] + salt;	/* user ones */
	if (i >= fake.nr_agg)
		fake.nr_agg = i + 1;
}

/* A running aggregating session 7 on 2 CPUs with 5 entries, 3 keys. */
static void fake_agg_session(void)
{
	unsigned int i;

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.status.sessions = 7;
	fake.session_id = 7;
	fake.session_flags = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE | STACKS;
	fake.buffer_size = KPROF_MIN_BUFFER_SIZE;
	fake.mmap_stride = 4096 + KPROF_MIN_BUFFER_SIZE;
	fake_entry(0, 0, 42, "hot", 10, 0, 3, 0);
	fake_entry(1, 1, 42, "hot", 5, 0, 3, 0);	/* same key on CPU 1 */
	fake_entry(2, 0, 42, "hot", 7, 2, 3, 0);	/* kernel frames too */
	fake_entry(3, 1, 99, "gone", 3, 2, 0, 0x10);
	fake_entry(4, 1, 42, "hot", 1, 0, 3, 0);	/* twice on one CPU */
	fake.stats.v[KP_STAT_INVOCATIONS] = 30;
	fake.stats.has_agg = true;
	fake.stats.agg[KP_AGG_STAT_SAMPLES] = 26;
	fake.stats.agg[KP_AGG_STAT_LOST_FULL] = 3;
	fake.stats.agg[KP_AGG_STAT_LOST_RESET] = 1;
	fake.stats.agg[KP_AGG_STAT_USED] = 5;
	fake.stats.agg[KP_AGG_STAT_CAPACITY] = 2 * 16384;
	for (i = 0; i < 2; i++) {
		fake.cpu_stats[i].has_agg = true;
		fake.cpu_stats[i].v[KP_STAT_INVOCATIONS] = 15;
		fake.cpu_stats[i].agg[KP_AGG_STAT_SAMPLES] = 13;
		fake.cpu_stats[i].agg[KP_AGG_STAT_LOST_FULL] = 2 - i * 1;
		fake.cpu_stats[i].agg[KP_AGG_STAT_LOST_RESET] = i;
		fake.cpu_stats[i].agg[KP_AGG_STAT_USED] = 2 + i;
		fake.cpu_stats[i].agg[KP_AGG_STAT_CAPACITY] = 16384;
		/* ABI 1.14: CPU 0's table held the most, CPU 1's pool */
		fake.cpu_stats[i].has_agg_use = true;
		fake.cpu_stats[i].agg_use[KP_AGG_USE_HIGH] = 9000 - i * 1000;
		fake.cpu_stats[i].agg_use[KP_AGG_USE_POOL_USED] = 100 + i;
		fake.cpu_stats[i].agg_use[KP_AGG_USE_POOL_HIGH] = 100000 + i * 200000;
		fake.cpu_stats[i].agg_use[KP_AGG_USE_POOL_SIZE] = 393216;
	}
}

static int count_entries(const struct kp_agg_entry *e, void *arg, struct kp_err *err)
{
	uint64_t *sum = arg;

	(void)err;
	sum[0]++;
	sum[1] += e->count;
	sum[2] += e->nr_kernel + e->nr_user;
	if (e->session_id != 7 || strcmp(e->comm, e->pid == 42 ? "hot" : "gone"))
		sum[3]++;
	return 0;
}

static void test_dump(void)
{
	const struct kp_rec_agg * const *recs;
	uint64_t sum[4] = { 0 };
	struct kp_stats *cpus;
	struct kp_status_info st;
	unsigned int nr_cpus;
	struct kp_agg *a;
	struct kp_err err;
	struct kp_nl *nl;
	uint32_t *pids;
	size_t nr, nr_pids;

	fake_agg_session();
	nl = kp_nl__open(&err);
	ok(!kp_nl__agg_dump(nl, count_entries, sum, &err) && sum[0] == 5 && sum[1] == 26 &&
	   sum[2] == 16 && !sum[3], "AGG_DUMP: every entry, with its session, comm, count and frames");

	a = kp_agg__new();
	ok(!kp_agg__fetch(a, nl, &err) && kp_agg__nr_keys(a) == 3 && kp_agg__nr_entries(a) == 5 &&
	   kp_agg__samples(a) == 26 && kp_agg__max_event(a) == 0 && kp_agg__max_depth(a) == 3,
	   "merged: the same key on two CPUs and twice on one CPU adds up");
	ok(!kp_agg__sort(a, &err), "sorted");
	recs = kp_agg__records(a, &nr);
	ok(nr == 3 && recs[0]->count == 16 && recs[0]->nr_entries == 3 && recs[0]->pid == 42 &&
	   !recs[0]->nr_kernel && recs[0]->nr_user == 3 && recs[0]->ips[0] == frames[2] &&
	   recs[1]->count == 7 && recs[1]->nr_kernel == 2 && recs[2]->count == 3 &&
	   recs[2]->pid == 99 && !strcmp(recs[2]->comm, "gone") &&
	   recs[2]->ips[1] == frames[1] + 0x10 && recs[2]->header.size == sizeof(**recs) + 16,
	   "records: by count, frames kept, kernel first");
	ok(!kp_agg__pids(a, &pids, &nr_pids, &err) && nr_pids == 2 && pids[0] == 42 &&
	   pids[1] == 99, "the distinct pids");
	free(pids);
	kp_agg__delete(a);

	/* Tasks sharing a pid and a stack but not a name stay apart. */
	fake_entry(5, 0, 0, "swapper/0", 2, 2, 0, 0x20);
	fake_entry(6, 1, 0, "swapper/1", 4, 2, 0, 0x20);
	fake_entry(7, 1, 0, "swapper/1", 1, 2, 0, 0x20);
	a = kp_agg__new();
	ok(!kp_agg__fetch(a, nl, &err) && kp_agg__nr_keys(a) == 5 && !kp_agg__sort(a, &err),
	   "pid 0 on two CPUs: swapper/0 and swapper/1 apart");
	recs = kp_agg__records(a, &nr);
	ok(nr == 5 && recs[1]->count == 7 && recs[2]->count == 5 && !recs[2]->pid &&
	   !strcmp(recs[2]->comm, "swapper/1") && recs[2]->nr_entries == 2 &&
	   recs[3]->count == 3 && recs[3]->pid == 99 && recs[4]->count == 2 && !recs[4]->pid &&
	   !strcmp(recs[4]->comm, "swapper/0"), "... each with its own count");
	kp_agg__delete(a);
	fake.nr_agg = 5;

	ok(!kp_nl__status(nl, &st, &err) && st.stats.has_agg && st.stats.agg[KP_AGG_STAT_SAMPLES] == 26 &&
	   st.stats.agg[KP_AGG_STAT_CAPACITY] == 32768 && kp_stats__agg_balanced(&st.stats),
	   "STATUS: the aggregation counters, balanced");
	ok(!kp_nl__stats(nl, &cpus, &nr_cpus, &err) && nr_cpus == 2 && cpus[1].has_agg &&
	   cpus[1].agg[KP_AGG_STAT_LOST_RESET] == 1 && kp_stats__agg_balanced(&cpus[0]) &&
	   kp_stats__agg_balanced(&cpus[1]), "STATS: per CPU too");
	free(cpus);

	fake.omit_stat = KPROF_STATS_A_AGG_USED;
	ok(kp_nl__status(nl, &st, &err) == -EBADMSG &&
	   !strcmp(err.msg, "malformed reply from kprof.ko: KPROF_STATS_A_AGG_USED is missing"),
	   "stats: the aggregation counters come all or none");
	fake.omit_stat = 0;

	/* Errors, in NLMSG_DONE as the kernel sends them. */
	fake.agg_done_errno = EIO;
	sum[0] = 0;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -EIO && sum[0] == 5 &&
	   !strcmp(err.msg, "Input/output error: kprof: the dump failed"),
	   "a dump failing midway: the error of NLMSG_DONE");
	fake.agg_done_errno = 0;

	fake.agg_bad_attr = KPROF_AGG_A_USER;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -EBADMSG &&
	   !strcmp(err.msg, "malformed reply from kprof.ko: KPROF_AGG_A_USER has 27 bytes"),
	   "malformed: frames not whole __u64s");
	fake.agg_bad_attr = KPROF_AGG_A_COUNT;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -EBADMSG &&
	   !strcmp(err.msg, "malformed reply from kprof.ko: KPROF_AGG_A_COUNT has 11 bytes, expected 8"),
	   "malformed: a count of the wrong size");
	fake.agg_bad_attr = 0;
	fake.agg_omit_attr = KPROF_AGG_A_PID;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -EBADMSG &&
	   !strcmp(err.msg, "malformed reply from kprof.ko: KPROF_AGG_A_PID is missing"),
	   "malformed: a missing pid");
	fake.agg_omit_attr = 0;

	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -EOPNOTSUPP &&
	   !strcmp(err.msg, "the session does not aggregate: start it with --mode aggregate or both"),
	   "a streaming session: one clear line");
	fake.status.state = KPROF_STATE_IDLE;
	ok(kp_nl__agg_dump(nl, count_entries, sum, &err) == -ENOENT &&
	   !strcmp(err.msg, "no session: start one with 'kprofctl start'"),
	   "no session: one clear line");
	kp_nl__delete(nl);
}

/* ---- the commands ---- */

static void test_start_status(void)
{
	char path[256];
	struct run r;
	struct stat st;

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	kprofctl(&r, "start", "-a", "-e", "cpu-clock", NULL);
	is_int(r.rc, 0, "start: exit 0");
	is_str(r.out, "kprof session 1 started: aggregating in the kernel (8192 entries per CPU on 2 CPUs: 4 MiB); 'kprofctl report --live' shows it, 'kprofctl stop [-o <file>]' ends it\n",
	       "start: aggregating, with the tables' memory");
	ok((fake.start_req.flags & MODES) == KPROF_SESSION_F_AGGREGATE &&
	   fake.start_req.agg_entries == 8192 && fake.status.state == KPROF_STATE_RUNNING,
	   "start: F_AGGREGATE and AGG_ENTRIES sent, the session left running");
	kp_agg__session_path(1, path, sizeof(path));
	ok(!stat(path, &st), "start: the configuration is left in the run directory");
	ok(!strstr(r.err, "drainer"), "start: no drainer");
	run_free(&r);

	/* ABI 1.13: the tables are on the CPUs that are online, of 64 possible */
	fake_kprof__reset();
	fake.status.nr_cpus = 64;
	tmpdir__write(root, "sys/devices/system/cpu/online", "0-2\n");
	kprofctl(&r, "start", "-a", "-e", "cpu-clock", NULL);
	ok(r.rc == 0 && strstr(r.out, "(8192 entries per CPU on 3 CPUs: 6 MiB)"),
	   "start: the tables of the 3 online CPUs of 64 possible");
	run_free(&r);
	fake_kprof__reset();
	kprofctl(&r, "start", "-C", "1-3", "-e", "cpu-clock", NULL);
	ok(r.rc == 0 && strstr(r.out, "(8192 entries per CPU on 2 CPUs: 4 MiB)"),
	   "start -C 1-3: the tables of its 2 online CPUs");
	run_free(&r);
	tmpdir__remove_path(root, "sys/devices/system/cpu/online");

	fake_kprof__reset();
	fake.status.nr_cpus = 4;
	kprofctl(&r, "start", "-C", "1", "--agg-entries", "64", "-e", "cpu-clock", NULL);
	ok(r.rc == 0 && strstr(r.out, "(64 entries per CPU on 1 CPU: 16 KiB)"),
	   "start -C 1 --agg-entries 64: one CPU's tables");
	run_free(&r);

	kprofctl(&r, "start", "--agg-entries", "100", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: start: aggregation entries '100' is not a power of two\n"),
	   "start: a bad --agg-entries, one line");
	run_free(&r);

	fake_agg_session();
	kprofctl(&r, "status", NULL);
	ok(r.rc == 0 && strstr(r.out, "session:   7, flags kernel-stack|user-stack|system-wide|aggregate, 8K buffer per CPU\n"
					"mode:      aggregate\n"
					"aggregate: 26 samples in 5 of 32768 entries, 4 lost (3 table full, 1 during reset), 0 throttled\n"
					"balance:   30 invocations = 26 aggregated + 4 lost: ok\n"
					"tables:    at most 9000 of 16384 entries (54%, CPU 0), 300000 of 393216 pool frames (76%, CPU 1)\n"
					"stacks: "), "status: the mode, the aggregate counters, the fullest table");
	run_free(&r);
	fake.cpu_stats[0].has_agg_use = fake.cpu_stats[1].has_agg_use = false;
	kprofctl(&r, "status", NULL);
	ok(r.rc == 0 && strstr(r.out, "balance:   30 invocations = 26 aggregated + 4 lost: ok\nstacks: "),
	   "status: no tables line from a module before ABI 1.14");
	fake.cpu_stats[0].has_agg_use = fake.cpu_stats[1].has_agg_use = true;
	run_free(&r);
	fake.session_flags |= KPROF_SESSION_F_STREAM;
	kprofctl(&r, "status", "-v", NULL);
	ok(r.rc == 0 && strstr(r.out, "mode:      both\n") &&
	   strstr(r.out, "balance:   30 invocations = 0 stored + 0 lost: MISMATCH\n") &&
	   strstr(r.out, "balance:   30 invocations = 26 aggregated + 4 lost: ok\n") &&
	   strstr(r.out, "    agg_samples  lost_agg_full lost_agg_reset       agg_used   agg_capacity agg_balance       agg_high  agg_pool_used  agg_pool_high  agg_pool_size\n") &&
	   strstr(r.out, "             13              1              1              3          16384          ok           8000            101         300000         393216\n"),
	   "status -v: both modes' balances, per-CPU aggregation counters");
	run_free(&r);
	kprofctl(&r, "status", "--json", NULL);
	ok(r.rc == 0 && strstr(r.out, "\"mode\":\"both\"") &&
	   strstr(r.out, "\"agg_samples\":26,\"lost_agg_full\":3,\"lost_agg_reset\":1,\"agg_used\":5,\"agg_capacity\":32768,\"agg_balanced\":true"),
	   "status --json: the mode and the aggregation counters");
	run_free(&r);
}

static void test_stop_save(void)
{
	struct run r;
	char want[512];

	/* A session left by 'start': its events are known. */
	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	kprofctl(&r, "start", "-a", "-e", "cpu-clock", "-F", "99", NULL);
	run_free(&r);
	fake_agg_session();
	fake.session_id = 1;
	/* the module kept the gone process's mapping (and one of a pid not in the tables) */
	fake.maps[0] = (struct fake_agg_map) { 99, "gone", 0x400000, 0x2000, 0x1000, 0x801, 1234,
					       "/usr/bin/gone" };
	fake.maps[1] = (struct fake_agg_map) { 7, "other", 0x500000, 0x1000, 0, 0x801, 99,
					       "/usr/bin/other" };
	fake.nr_maps = 2;
	kprofctl(&r, "stop", "-o", out, NULL);
	snprintf(want, sizeof(want),
		 " %s (3 stacks, 26 samples, 2 processes, 1 gone, 1 of them with kept mappings) ]\n",
		 out);
	ok(r.rc == 0 && strstr(r.err, "[ kprof stop: session 1 stopped: 26 samples aggregated, 4 lost (3 table full, 1 during reset), 5 of 32768 entries used ]\n"
					"[ kprof stop: Aggregate balance: 30 invocations = 26 aggregated + 4 lost: ok ]\n"
					"[ kprof stop: Wrote ") && strstr(r.err, want) &&
	   !strstr(r.err, "Balance: 30 invocations = 0 stored"),
	   "stop -o: the aggregate balance, the file written");
	if (!strstr(r.err, want))
		diag("%s", r.err);
	ok(fake.status.state == KPROF_STATE_STOPPED && fake.nr_agg_dumps == 1,
	   "stop -o: stopped first, then the tables read");
	ok(fake.nr_frees == 1 && fake.freed_id == 1 && fake.last_cmd == KPROF_CMD_FREE,
	   "stop -o: the file in place, session 1 freed last (FREE, ABI 1.12)");
	run_free(&r);

	kprofctl(&r, "dump", "-i", out, NULL);
	/* with this machine's vDSO image (version 4) when it has a vDSO */
	ok(r.rc == 0 &&
	   (getauxval(AT_SYSINFO_EHDR) ? strstr(r.out, "# version: 4\n") &&
					  strstr(r.out, "\n# vdso: ") :
					  strstr(r.out, "# version: 2\n") != NULL) &&
	   strstr(r.out, "# session_flags: 0x") && strstr(r.out, "name=cpu-clock\n") &&
	   strstr(r.out, "# freq: 99\n"),
	   "the profile: AGG records and the vDSO image, the session of 'start'");
	ok(strstr(r.out, ": COMM misc=0x0 time=864000000000000 pid=42 tid=42 exec=0 comm=\"hot\"\n") &&
	   strstr(r.out, ": MMAP misc=0x0 time=864000000000000 pid=42 tid=42 start=0x55555555a000 len=0x1000 pgoff=0x0 filename=\"/usr/bin/hot\"\n") &&
	   /* the kept generation, dated just before the profile's time */
	   strstr(r.out, ": COMM misc=0x0 time=863999999999999 pid=99 tid=99 exec=0 comm=\"gone\"\n") &&
	   strstr(r.out, ": MMAP misc=0x0 time=863999999999999 pid=99 tid=99 start=0x400000 len=0x2000 pgoff=0x1000 filename=\"/usr/bin/gone\"\n") &&
	   !strstr(r.out, "/usr/bin/other") &&
	   strstr(r.out, ": SYNTH_DONE misc=0x0 time=864000000000000 nr_processes=1 nr_threads=1 nr_mmaps=2 nr_vanished=1\n"),
	   "the profile: side-band from /proc for the live pid, from the tables and the kept mappings for the gone one");
	ok(fake.nr_map_dumps == 1, "stop -o: the kept mappings read once");
	ok(strstr(r.out, ": AGG misc=0x0 event=0 pid=42 comm=\"hot\" count=16 nr_entries=3 nr_kernel=0 nr_user=3\n"
			 "... chain: nr=3\n"
			 ".....  0: 0x000055555555a000 [u]\n") &&
	   strstr(r.out, ": AGG misc=0x0 event=0 pid=42 comm=\"hot\" count=7 nr_entries=1 nr_kernel=2 nr_user=3\n"
			 "... chain: nr=5\n"
			 ".....  0: 0xffffffff81001234 [k]\n") &&
	   strstr(r.out, ": AGG misc=0x0 event=0 pid=99 comm=\"gone\" count=3 nr_entries=1 nr_kernel=2 nr_user=0\n"),
	   "the profile: one AGG record per merged key, hottest first");
	ok(strstr(r.out, ": STATS misc=0x0 cpu=1 nr=19 invocations=15 ") &&
	   strstr(r.out, " ustack_fault=0 agg_samples=13 lost_agg_full=1 lost_agg_reset=1 agg_used=3 agg_capacity=16384\n") &&
	   strstr(r.out, ": STATS misc=0x0 cpu=total nr=19 invocations=30 ") &&
	   strstr(r.out, "agg_samples=26 lost_agg_full=3 lost_agg_reset=1 agg_used=5 agg_capacity=32768\n") &&
	   strstr(r.out, ": FINISHED ") && strstr(r.out, "# end: 12 records\n"),
	   "the profile: STATS with the aggregation counters, finished");
	run_free(&r);
	kprofctl(&r, "dump", "--json", "-i", out, NULL);
	ok(r.rc == 0 && strstr(r.out, "\"type\":\"AGG\",\"type_id\":65539,\"misc\":0,\"event\":0,\"pid\":42,\"comm\":\"hot\",\"count\":7,\"nr_entries\":1,\"nr_kernel\":2,\"nr_user\":3,\"kernel\":[\"0xffffffff81001234\",\"0xffffffff81005678\"],\"user\":[\"0x55555555a000\",\"0x55555555b000\",\"0x55555555c000\"]}\n"),
	   "dump --json: the AGG record");
	run_free(&r);

	/* Stopped already: the tables can still be saved; not without -o. */
	kprofctl(&r, "stop", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: stop: no session is running\n"),
	   "stop again: no session is running");
	run_free(&r);
	unlink(out);
	kprofctl(&r, "stop", "-o", out, NULL);
	ok(r.rc == 0 && strstr(r.err, "[ kprof stop: Wrote ") && !strstr(r.err, "Aggregate balance") &&
	   access(out, R_OK) == 0, "stop -o a stopped session: its tables are saved");
	ok(fake.nr_frees == 2 && fake.freed_id == 1, "... and then freed, by its id");
	run_free(&r);

	/* A save that fails frees nothing: the tables stay for another try. */
	fake_agg_session();
	fake.agg_done_errno = EIO;
	unlink(out);
	kprofctl(&r, "stop", "-o", out, NULL);
	ok(r.rc == 1 && !fake.nr_frees && access(out, F_OK) != 0,
	   "stop -o whose read fails: no file, nothing freed");
	run_free(&r);

	/* A module of ABI 1.11 has no FREE: the save alone. */
	fake_agg_session();
	fake.abi = (KPROF_ABI_MAJOR << 16) | 11;
	kprofctl(&r, "stop", "-o", out, NULL);
	ok(r.rc == 0 && !fake.nr_frees && strstr(r.err, "[ kprof stop: Wrote "),
	   "stop -o with an ABI 1.11 module: saved, no FREE sent");
	run_free(&r);

	/* A session not started by 'kprofctl start' here: generic events. */
	fake_agg_session();
	fake.session_id = 5;
	kprofctl(&r, "stop", "-o", out, NULL);
	ok(r.rc == 0 && strstr(r.err, "kprofctl: stop: session 5 was not started by 'kprofctl start': its events are named event0, event1, ...\n"),
	   "stop -o: an unknown session's events are named event0...");
	run_free(&r);
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(r.rc == 0 && strstr(r.out, "# nr_events: 1\n# event[0]: type=4294967295 (type 4294967295) config=0x0") &&
	   strstr(r.out, "name=event0\n"), "... and the file says so");
	run_free(&r);

	/* Streams: -o is refused before anything is stopped. */
	fake_agg_session();
	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE;
	kprofctl(&r, "stop", "-o", out, NULL);
	snprintf(want, sizeof(want),
		 "kprofctl: stop: -o/--output '%s': session 7 does not aggregate (mode stream)\n", out);
	ok(r.rc == 1 && !strcmp(r.err, want) && fake.status.state == KPROF_STATE_RUNNING &&
	   !fake.nr_stops, "stop -o on a streaming session: one line, nothing stopped");
	run_free(&r);

	/* Without -o: the balance only. */
	fake_agg_session();
	fake.stats.agg[KP_AGG_STAT_SAMPLES] = 25;
	kprofctl(&r, "stop", NULL);
	ok(r.rc == 1 && strstr(r.err, "[ kprof stop: Aggregate balance: 30 invocations = 25 aggregated + 4 lost: MISMATCH ]\n") &&
	   !fake.nr_agg_dumps, "stop: a broken balance fails; no -o, no dump");
	ok(strstr(r.err, "[ kprof stop: its tables stay in the kernel until 'kprofctl stop --id 7 -o FILE' saves them or the next session starts ]\n") &&
	   !fake.nr_frees, "stop without -o: says where the unsaved tables are, frees nothing");
	run_free(&r);
}

static void test_live_profile(void)
{
	char path[256] = "x";
	struct capture c;
	int ret;
	struct kp_err err;
	struct stat st;

	fake_agg_session();
	capture__start(&c);
	ret = kp_agg__live_profile("report", path, sizeof(path), &err);
	capture__stop(&c);
	ok(!ret && !stat(path, &st) && st.st_size > 512 && fake.status.state == KPROF_STATE_RUNNING &&
	   !strcmp(c.err, "kprofctl: report: session 7 was not started by 'kprofctl start': its events are named event0, event1, ...\n"),
	   "--live: a profile of the running session in a temporary file");
	capture__free(&c);
	if (path[0])
		unlink(path);

	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE;
	ok(kp_agg__live_profile("report", path, sizeof(path), &err) == -EOPNOTSUPP && !path[0] &&
	   !strcmp(err.msg, "session 7 does not aggregate (mode stream): start it with --mode aggregate or both"),
	   "--live, streaming session: one line, no file left");
	fake.status.state = KPROF_STATE_IDLE;
	ok(kp_agg__live_profile("report", path, sizeof(path), &err) == -ENOENT &&
	   !strcmp(err.msg, "no session: start one with 'kprofctl start'"), "--live, no session");
	fake.loaded = false;
	ok(kp_agg__live_profile("report", path, sizeof(path), &err) == -ENOENT && err.not_loaded,
	   "--live, no module");
	fake_kprof__reset();
}

/* The sum of the last field of every line of @text. */
static uint64_t folded_sum(const char *text)
{
	const char *p = text, *nl, *sp;
	uint64_t sum = 0;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		for (sp = nl; sp > p && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
	}
	return sum;
}

static void test_live_commands(void)
{
	char ksyms[160], svg[160], pb[160], exe[PATH_MAX];
	const char *saved = kp_folded_exe;
	Perftools__Profiles__Profile *prof;
	size_t i;
	long n;
	struct run r;

	snprintf(ksyms, sizeof(ksyms), "%s/kallsyms", root);
	snprintf(svg, sizeof(svg), "%s/live.svg", root);
	tmpdir__write(root, "kallsyms", "ffffffff81001000 T agg_kernel_leaf\n"
			"ffffffff81005000 T agg_kernel_caller\nffffffff81100000 T _etext\n");
	fake_agg_session();
	kprofctl(&r, "folded", "--live", "--kallsyms", ksyms, NULL);
	ok(r.rc == 0 && folded_sum(r.out) == 26 &&
	   strstr(r.out, ";agg_kernel_caller;agg_kernel_leaf 7\n") && strstr(r.out, "gone;") &&
	   strstr(r.out, "hot;"), "folded --live: the tables' stacks, their counts adding up");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);

	kprofctl(&r, "report", "--live", "--kallsyms", ksyms, "--sort", "comm,symbol", NULL);
	ok(r.rc == 0 && strstr(r.out, "# Samples: 26 of event 'event0'\n") &&
	   strstr(r.out, "# Total Lost Samples: 4\n") && strstr(r.out, "[k] agg_kernel_leaf"),
	   "report --live: the samples, the tables' losses, kernel frames named");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);

	if (realpath("kprofctl", exe)) {
		kp_folded_exe = exe;
		kprofctl(&r, "flamegraph", "--live", "-o", svg, NULL);
		ok(r.rc == 0 && !access(svg, R_OK), "flamegraph --live: the SVG");
		if (r.rc)
			diag("%s", r.err);
		run_free(&r);
		kp_folded_exe = saved;
	} else {
		ok(1, "flamegraph --live # SKIP no ./kprofctl");
	}
	snprintf(pb, sizeof(pb), "%s/live.pb.gz", root);
	kprofctl(&r, "pprof", "--live", "--kallsyms", ksyms, "-o", pb, NULL);
	prof = pprof_load(pb);
	for (i = 0, n = 0; prof && i < prof->n_sample; i++)
		n += prof->sample[i]->value[0];
	ok(r.rc == 0 && prof && n == 26, "pprof --live: the tables' 26 samples, as a pprof profile");
	if (r.rc)
		diag("%s", r.err);
	if (prof)
		perftools__profiles__profile__free_unpacked(prof, NULL);
	run_free(&r);
	ok(!tmpdir__count(root, "kprof-live."), "--live: no temporary file left");

	kprofctl(&r, "report", "--live", "-i", "x.data", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: report: --live reads the running session: no input file 'x.data'\n"),
	   "report --live -i: a usage error");
	run_free(&r);
	kprofctl(&r, "flamegraph", "--live", "x.folded", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: flamegraph: --live reads the running session: no input file 'x.folded'\n"),
	   "flamegraph --live FILE: a usage error");
	run_free(&r);

	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE;
	kprofctl(&r, "folded", "--live", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: folded: session 7 does not aggregate (mode stream): start it with --mode aggregate or both\n") &&
	   !r.out[0], "folded --live on a streaming session: one line");
	run_free(&r);
	fake.status.state = KPROF_STATE_IDLE;
	kprofctl(&r, "report", "--live", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: report: no session: start one with 'kprofctl start'\n"),
	   "report --live without a session: one line");
	run_free(&r);
	kprofctl(&r, "flamegraph", "--live", "-o", svg, NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: flamegraph: no session: start one with 'kprofctl start'\n"),
	   "flamegraph --live without a session: one line");
	run_free(&r);
	ok(!tmpdir__count(root, "kprof-live."), "--live errors: no temporary file left");
	fake_kprof__reset();
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	run_machine(root, "0-3", dev, rundir, sizeof(dev));
	tmpdir__write(root, "proc/42/task/42/comm", "hot\n");
	tmpdir__write(root, "proc/42/maps",
		      "55555555a000-55555555b000 r-xp 00000000 fd:01 7 /usr/bin/hot\n");
	snprintf(out, sizeof(out), "%s/agg-profile.data", root);
	setenv("TMPDIR", root, 1);

	test_options();
	test_record_roundtrip();
	test_waker_record();
	test_dump();
	test_start_status();
	test_stop_save();
	test_live_profile();
	test_live_commands();

	tmpdir__remove(root);
	return done_testing();
}
