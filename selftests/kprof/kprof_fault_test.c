// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures on kprof's setup paths, one site at a time: with
 * failslab and fail_page_alloc armed for this task only (fail-nth), START
 * (stream, aggregate, with tracepoint/kprobe/ftrace probes) and COUNT_START
 * are sent with the Nth fault-injection point failing, for N = 1, 2, ...
 * until the request succeeds with no fault left to inject.  Each failure
 * must give a clean errno and leave nothing running; the module must work
 * afterwards.  Leaks are kmemleak's job (tools/guest-selftests.sh scans
 * after the final rmmod).
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS, FAILSLAB and
 * FAIL_PAGE_ALLOC (the debug guest); skips elsewhere.  The kernel's own
 * warn_alloc() reports of injected failures (vmalloc and module_alloc
 * inside the kernel's own code) fall in a window marked in the kernel log,
 * in which tools/kprof-vm does not count a bare stack dump as a splat;
 * every other report (KASAN, lockdep, BUG, WARNING) still is one.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

#define FAULT_DIR	"/sys/kernel/debug"
#define MAX_SITES	4000

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

static void kmsg(const char *s)
{
	write_str("/dev/kmsg", s);
}

/* Arm failslab and fail_page_alloc for fail-nth: GFP_KERNEL too, quietly. */
static int arm(void)
{
	static const char * const knobs[][2] = {
		{ FAULT_DIR "/failslab/ignore-gfp-wait", "N" },
		{ FAULT_DIR "/failslab/verbose", "0" },
		{ FAULT_DIR "/fail_page_alloc/ignore-gfp-wait", "N" },
		{ FAULT_DIR "/fail_page_alloc/ignore-gfp-highmem", "N" },
		{ FAULT_DIR "/fail_page_alloc/min-order", "0" },
		{ FAULT_DIR "/fail_page_alloc/verbose", "0" },
	};
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		ret = write_str(knobs[i][0], knobs[i][1]);
		if (ret)
			return ret;
	}
	return 0;
}

/* fail-nth of this thread: the calls left before the fault, 0 once it fired. */
static int fail_nth_fd = -1;

static int set_fail_nth(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	return pwrite(fail_nth_fd, buf, len, 0) == len ? 0 : -errno;
}

static long get_fail_nth(void)
{
	char buf[16] = "";

	if (pread(fail_nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

FIXTURE(fault) {
	int fd;
	int family;
};

FIXTURE_SETUP(fault)
{
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	if (access(FAULT_DIR "/failslab", F_OK) || access(FAULT_DIR "/fail_page_alloc", F_OK))
		SKIP(return, "no failslab/fail_page_alloc in this kernel");
	ASSERT_EQ(0, arm());
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fail_nth_fd);
	self->fd = kt_nl_open();
	ASSERT_LE(0, self->fd);
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family);
	kt_stop_any(self->fd, self->family);
}

FIXTURE_TEARDOWN(fault)
{
	if (fail_nth_fd < 0)
		return;
	set_fail_nth(0);
	kt_stop_any(self->fd, self->family);
	close(self->fd);
	close(fail_nth_fd);
	fail_nth_fd = -1;
}

typedef void (*build_fn)(struct kt_msg *m, int family);

/*
 * Send @build's request with the Nth injection point failing, N = 1, 2, ...
 * Returns the number of points that failed it before it went through with
 * none left; every failure must be a clean errno with nothing left running.
 */
static int stop_req(FIXTURE_DATA(fault) *self, uint8_t cmd, struct kt_msg *started)
{
	struct kt_msg s;

	kt_msg_init(&s, self->family, cmd, KPROF_FAMILY_VERSION);
	if (cmd == KPROF_CMD_COUNT_STOP && started->tb[KPROF_A_SESSION_ID])
		kt_put_u64(&s, KPROF_A_SESSION_ID, kt_u64(started->tb[KPROF_A_SESSION_ID]));
	return kt_transact(self->fd, &s);
}

/*
 * A request failed inside the kernel's own registration of a probe
 * (register_kprobe(), register_kretprobe()'s instances, ftrace's hashes):
 * kprof sees the same error from every point in there and takes the same
 * unwinding, so those points are sampled rather than walked one by one.
 */
static bool inside_registration(int ret, const char *extack)
{
	return ret < 0 && (strstr(extack, "kprof: cannot probe") ||
			   strstr(extack, "kprof: cannot register the ftrace probe") ||
			   strstr(extack, "kprof: no traceable function"));
}

#define INNER_STRIDE	7

/*
 * walk_every() fails points 1, 1 + @stride, 1 + 2 * @stride, ... until a
 * request goes through with none left to fail.  Within a run of points
 * inside a probe's registration it goes INNER_STRIDE at a time, and when
 * such a jump lands outside the run (or past the last point), it walks
 * back over the points it jumped, so that none of kprof's own points
 * after a registration is left out.
 */
static int walk_every(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self,
		      build_fn build, uint8_t stop_cmd, const char *what, int stride)
{
	int sites = 0, fallbacks = 0, acks_lost = 0, sampled = 0, n, ret;
	int inner = 0, hi = 0;	/* last point inside, the jump's landing */
	bool verbose = getenv("KPROF_FAULT_VERBOSE");
	struct timespec t0, t1, tp;
	bool done = false, hi_done = false;
	struct kt_msg m;
	char line[128];
	long left;

	snprintf(line, sizeof(line), "kprof-vm: fault-injection begin: %s\n", what);
	kmsg(line);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (n = 1; n <= MAX_SITES; ) {
		build(&m, self->family);
		clock_gettime(CLOCK_MONOTONIC, &tp);
		ASSERT_EQ(0, set_fail_nth(n));
		ret = kt_transact(self->fd, &m);
		left = get_fail_nth();
		set_fail_nth(0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (verbose)
			TH_LOG("%s: point %d: %s (%s), %.3f s", what, n,
			       left > 0 ? "none left" : strerror(-ret), m.extack,
			       t1.tv_sec - tp.tv_sec + (t1.tv_nsec - tp.tv_nsec) / 1e9);
		if (left > 0) {
			/* no fault was left to inject: the request must have worked */
			ASSERT_EQ(0, ret) TH_LOG("%s: with no fault injected: %s (%s)", what,
						 strerror(-ret), m.extack);
			EXPECT_EQ(0, stop_req(self, stop_cmd, &m));
			done = true;
		} else {
			sites++;
			/*
			 * Started: the failed allocation had a fallback, or it
			 * was netlink's ACK after the reply (the reply came,
			 * then recv() reports ENOBUFS): it runs, and stops.
			 */
			if (!ret || m.tb[KPROF_A_SESSION_ID]) {
				fallbacks++;
				EXPECT_EQ(0, stop_req(self, stop_cmd, &m))
					TH_LOG("%s: fault %d: cannot stop", what, n);
			} else {
				EXPECT_TRUE(ret == -ENOMEM || ret == -ENOBUFS || ret == -EAGAIN)
					TH_LOG("%s: fault %d: unexpected %s (%s)", what, n,
					       strerror(-ret), m.extack);
				/*
				 * Nothing half-started: no running session to
				 * stop.  Except when the fault hit netlink's
				 * own ACK after a start that worked: netlink
				 * then sets ENOBUFS on the socket, which
				 * recv() reports before the queued reply.
				 */
				if (!stop_req(self, stop_cmd, &m)) {
					acks_lost++;
					EXPECT_EQ(-ENOBUFS, ret)
						TH_LOG("%s: fault %d: a failed start (%s) left a session running",
						       what, n, strerror(-ret));
				}
			}
		}
		/* the next point */
		if (hi) {
			/* walking back over a jump: up to its landing, done already */
			if (done)
				break;	/* the points after pass as well */
			if (++n < hi)
				continue;
			n = hi + stride;
			hi = 0;
			if (hi_done) {
				done = true;
				break;
			}
			continue;
		}
		if (stride == 1 && !done && inside_registration(ret, m.extack)) {
			inner = n;
			sampled++;
			n += INNER_STRIDE;
			continue;
		}
		if (inner && inner == n - INNER_STRIDE) {
			/* jumped out of the registration: back to the point after */
			hi = n;
			hi_done = done;
			done = false;
			n = inner + 1;
			inner = 0;
			continue;
		}
		inner = 0;
		if (done)
			break;
		n += stride;
	}
	snprintf(line, sizeof(line), "kprof-vm: fault-injection end: %s\n", what);
	kmsg(line);
	ASSERT_TRUE(done) TH_LOG("%s: still failing after %d faults", what, MAX_SITES);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("%s: %d injection points failed in turn (%d with a fallback, %d netlink ACKs lost; %d inside probe registration, at every %dth) in %.0f s",
	       what, sites, fallbacks, acks_lost, sampled, INNER_STRIDE,
	       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return sites;
}

static int walk(struct __test_metadata *_metadata, FIXTURE_DATA(fault) *self,
		build_fn build, uint8_t stop_cmd, const char *what)
{
	return walk_every(_metadata, self, build, stop_cmd, what, 1);
}

static void stream_start(struct kt_msg *m, int family)
{
	kt_start_init(m, family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_STREAM |
		      KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK, 99,
		      KPROF_MIN_BUFFER_SIZE);
	kt_put_event(m, &kt_cpu_clock);
}

static void aggregate_start(struct kt_msg *m, int family)
{
	kt_start_init(m, family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_AGGREGATE |
		      KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK, 99, 0);
	kt_put_u32(m, KPROF_A_SESSION_AGG_ENTRIES, KPROF_AGG_MIN_ENTRIES);
	kt_put_event(m, &kt_cpu_clock);
}

static void probe_session_init(struct kt_msg *m, int family)
{
	kt_start_init(m, family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_STREAM, 99,
		      KPROF_MIN_BUFFER_SIZE);
}

static void put_kprobe(struct kt_msg *m)
{
	kt_put_probe(m, KPROF_TYPE_KPROBE, 0, "kprobe:ksys_read", "ksys_read", NULL, 0);
}

static void put_ftrace(struct kt_msg *m)
{
	kt_put_probe(m, KPROF_TYPE_FTRACE, 0, "ftrace:vfs_read", "vfs_read", NULL, 0);
}

static void put_latency(struct kt_msg *m)
{
	kt_put_probe(m, KPROF_TYPE_LATENCY, 0, "latency:ksys_write", "ksys_write", NULL, 0);
}

static void kprobe_start(struct kt_msg *m, int family)
{
	probe_session_init(m, family);
	put_kprobe(m);
}

static void ftrace_start(struct kt_msg *m, int family)
{
	probe_session_init(m, family);
	put_ftrace(m);
}

static void latency_start(struct kt_msg *m, int family)
{
	probe_session_init(m, family);
	put_latency(m);
}

static void probes_start(struct kt_msg *m, int family)
{
	probe_session_init(m, family);
	put_kprobe(m);
	put_ftrace(m);
	put_latency(m);
}

static void count_start(struct kt_msg *m, int family)
{
	kt_msg_init(m, family, KPROF_CMD_COUNT_START, KPROF_FAMILY_VERSION);
	kt_put_u32(m, KPROF_A_SESSION_FLAGS, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(m, &kt_cpu_clock);
}

/* Each path has at least one allocation per possible CPU and a few more. */
static int min_sites(void)
{
	return sysconf(_SC_NPROCESSORS_CONF) + 3;
}

TEST_F_TIMEOUT(fault, start_stream_every_site, 900)
{
	EXPECT_LE(min_sites(), walk(_metadata, self, stream_start, KPROF_CMD_STOP, "START stream"));
}

TEST_F_TIMEOUT(fault, start_aggregate_every_site, 900)
{
	EXPECT_LE(min_sites(), walk(_metadata, self, aggregate_start, KPROF_CMD_STOP,
				    "START aggregate"));
}

/*
 * Each probe kind alone at every point of kprof's own, and at every
 * INNER_STRIDE-th inside the kernel's registration of the probe: text
 * patching under TCG makes a point cost half a second, and a session of
 * all three kinds has ~300 (a kretprobe's 64 instances are 64 of them).
 */
TEST_F_TIMEOUT(fault, start_kprobe_every_site, 900)
{
	EXPECT_LE(4, walk(_metadata, self, kprobe_start, KPROF_CMD_STOP, "START kprobe"));
}

TEST_F_TIMEOUT(fault, start_ftrace_every_site, 900)
{
	EXPECT_LE(4, walk(_metadata, self, ftrace_start, KPROF_CMD_STOP, "START ftrace"));
}

TEST_F_TIMEOUT(fault, start_latency_every_site, 900)
{
	EXPECT_LE(4, walk(_metadata, self, latency_start, KPROF_CMD_STOP, "START latency"));
}

/*
 * All three in one session, every 13th point (prime, so the points fall
 * through every probe's share): a later probe failing must unwind the ones
 * already armed.
 */
TEST_F_TIMEOUT(fault, start_probes_combined, 900)
{
	EXPECT_LE(4, walk_every(_metadata, self, probes_start, KPROF_CMD_STOP,
				"START probes", 13));
}

TEST_F_TIMEOUT(fault, count_start_every_site, 900)
{
	EXPECT_LE(min_sites(), walk(_metadata, self, count_start, KPROF_CMD_COUNT_STOP,
				    "COUNT_START"));
}

TEST_F(fault, module_works_afterwards)
{
	struct kt_msg m;

	stream_start(&m, self->family);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	usleep(100000);
	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m));
}

TEST_HARNESS_MAIN
