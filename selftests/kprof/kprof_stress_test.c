// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: every kind of session (stream, aggregate, probes, latency, runqlat,
 * counting) through CPU hotplug and rmmod, and 1000 start/stop cycles over
 * all kinds from four processes at once, with the kernel's unreclaimable
 * slab plus vmalloc growth held under 256 KiB.
 */
#include <sched.h>
#include <sys/mount.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

#define KS_DEBUGFS	"/sys/kernel/debug/kprof"
#define KS_CPU1		"/sys/devices/system/cpu/cpu1/online"

enum ks_kind {
	KS_STREAM, KS_AGGREGATE, KS_PROBES, KS_LATENCY, KS_RUNQLAT, KS_COUNTING, KS_NR_KINDS
};

static const char * const ks_kind_names[KS_NR_KINDS] = {
	"stream", "aggregate", "probes", "latency", "runqlat", "counting",
};

/* Start a session of @kind on @fd; 0 or the error, extack in m->extack. */
static int ks_start(int fd, int family, enum ks_kind kind, struct kt_msg *m)
{
	uint32_t flags = KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_KERNEL_STACK;

	switch (kind) {
	case KS_STREAM:
		kt_start_init(m, family, flags, 999, 1 << 16);
		kt_put_event(m, &kt_cpu_clock);
		break;
	case KS_AGGREGATE:
		kt_start_init(m, family, flags | KPROF_SESSION_F_AGGREGATE, 999, 0);
		kt_put_u32(m, KPROF_A_SESSION_AGG_ENTRIES, 1024);
		kt_put_event(m, &kt_cpu_clock);
		break;
	case KS_PROBES:
		kt_start_init(m, family, flags | KPROF_SESSION_F_AGGREGATE, 99, 0);
		kt_put_u32(m, KPROF_A_SESSION_AGG_ENTRIES, 1024);
		kt_put_probe(m, KPROF_TYPE_KPROBE, 0, "kprobe:vfs_read", "vfs_read", NULL, 0);
		kt_put_probe(m, KPROF_TYPE_FTRACE, 0, "ftrace:ksys_read", "ksys_read", NULL, 0);
		break;
	case KS_LATENCY:
		kt_start_init(m, family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 1 << 16);
		kt_put_probe(m, KPROF_TYPE_LATENCY, 0, "latency:do_nanosleep", "do_nanosleep", NULL, 0);
		break;
	case KS_RUNQLAT:
		kt_start_init(m, family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 1 << 16);
		kt_put_probe(m, KPROF_TYPE_RUNQLAT, KPROF_RUNQLAT_USECS, "runqlat", NULL, NULL, 0);
		break;
	case KS_COUNTING:
		kt_msg_init(m, family, KPROF_CMD_COUNT_START, KPROF_FAMILY_VERSION);
		kt_put_u32(m, KPROF_A_SESSION_FLAGS, KPROF_SESSION_F_SYSTEM_WIDE);
		kt_put_event(m, &kt_cpu_clock);
		break;
	default:
		return -EINVAL;
	}
	return kt_transact(fd, m);
}

static int ks_stop(int fd, int family, enum ks_kind kind, struct kt_msg *m)
{
	kt_msg_init(m, family, kind == KS_COUNTING ? KPROF_CMD_COUNT_STOP : KPROF_CMD_STOP,
		    KPROF_FAMILY_VERSION);
	return kt_transact(fd, m);
}

/*
 * Every sample of the STOP reply @m of a @kind session stored or counted
 * as lost, by cause: 0, or -1 with what differs in @why.
 */
static int ks_balanced(enum ks_kind kind, struct kt_msg *m, char *why, size_t len)
{
	uint64_t in = kt_stat(m, KPROF_STATS_A_INVOCATIONS), out;

	if (kind == KS_STREAM)
		out = kt_stat(m, KPROF_STATS_A_SAMPLES) + kt_stat(m, KPROF_STATS_A_LOST_FULL) +
		      kt_stat(m, KPROF_STATS_A_LOST_TOO_BIG) +
		      kt_stat(m, KPROF_STATS_A_LOST_RECURSION);
	else if (kind == KS_AGGREGATE)
		out = kt_stat(m, KPROF_STATS_A_AGG_SAMPLES) +
		      kt_stat(m, KPROF_STATS_A_LOST_AGG_FULL) +
		      kt_stat(m, KPROF_STATS_A_LOST_AGG_RESET) +
		      kt_stat(m, KPROF_STATS_A_LOST_RECURSION);
	else
		return 0;
	if (in == out)
		return 0;
	snprintf(why, len, "%s: %llu invocations, %llu stored or lost", ks_kind_names[kind],
		 (unsigned long long)in, (unsigned long long)out);
	return -1;
}

/*
 * Worker @w of the cycles test, in its own process with its own socket:
 * @n START/STOP pairs, the kinds in turn (counting, one session at a time,
 * only in worker 0), each stopped by its id while the other workers'
 * sessions run.  Exits 0, or 1 after a line on stderr.
 */
static void __attribute__((noreturn)) ks_worker(unsigned int w, unsigned int n)
{
	int fd = kt_nl_open(), family = fd < 0 ? -1 : kt_family(fd, KPROF_FAMILY_NAME);
	char why[160];
	struct kt_msg m;
	unsigned int i;

	if (family <= 0) {
		fprintf(stderr, "# worker %u: no kprof family\n", w);
		_exit(1);
	}
	for (i = 0; i < n; i++) {
		enum ks_kind kind = (i + w) % KS_NR_KINDS;
		uint64_t id = 0;
		int ret;

		if (kind == KS_COUNTING && w)
			kind = KS_STREAM;
		ret = ks_start(fd, family, kind, &m);
		if (!ret && kind != KS_COUNTING)
			id = m.tb[KPROF_A_SESSION_ID] ? kt_u64(m.tb[KPROF_A_SESSION_ID]) : 0;
		if (ret || (kind != KS_COUNTING && !id)) {
			fprintf(stderr, "# worker %u, cycle %u, %s START: %d %s\n", w, i,
				ks_kind_names[kind], ret, m.extack);
			_exit(1);
		}
		ret = kind == KS_COUNTING ? ks_stop(fd, family, kind, &m) :
					    kt_stop_id(fd, family, id, &m);
		if (ret || ks_balanced(kind, &m, why, sizeof(why))) {
			fprintf(stderr, "# worker %u, cycle %u, session %llu STOP: %d %s\n", w, i,
				(unsigned long long)id, ret, ret ? m.extack : why);
			_exit(1);
		}
	}
	close(fd);
	_exit(0);
}

/*
 * What a session of @kind has done on CPU @cpu (latency: on all CPUs, its
 * histogram's count), from debugfs.
 */
static unsigned long long ks_progress(enum ks_kind kind, unsigned int cpu)
{
	unsigned long long v = 0, x;
	char line[512], name[64], c[16];
	FILE *fp;

	fp = fopen(kind == KS_COUNTING ? KS_DEBUGFS "/counters" :
		   kind == KS_LATENCY || kind == KS_RUNQLAT ? KS_DEBUGFS "/probes" :
		   KS_DEBUGFS "/stats", "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		switch (kind) {
		case KS_COUNTING:
			if (sscanf(line, "%63s %15s %llu", name, c, &x) == 3 &&
			    strtoul(c, NULL, 10) == cpu && c[0] != '-')
				v += x;
			break;
		case KS_LATENCY:
		case KS_RUNQLAT:
			if (sscanf(line, " count %llu", &x) == 1)
				v += x;
			break;
		default:
			if (sscanf(line, "%15s %llu", c, &x) == 2 && c[0] >= '0' && c[0] <= '9' &&
			    strtoul(c, NULL, 10) == cpu)
				v = x;
			break;
		}
	}
	fclose(fp);
	return v;
}

/* Work every kind sees: CPU time, read()s, short sleeps. */
static void ks_work(unsigned int ms)
{
	struct timespec a, b, nap = { 0, 200000 };
	int fd = open("/dev/zero", O_RDONLY);
	char byte;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (volatile int i = 0; i < 20000; i++)
			;
		if (fd >= 0 && read(fd, &byte, 1) < 0)
			break;
		nanosleep(&nap, NULL);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	if (fd >= 0)
		close(fd);
}

static int ks_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu >= 0) {
		CPU_SET(cpu, &set);
	} else {
		for (int i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &set);
	}
	return sched_setaffinity(0, sizeof(set), &set);
}

FIXTURE(stress) {
	int fd;
	int family;
};

FIXTURE_VARIANT(stress) {
	enum ks_kind kind;
};

FIXTURE_VARIANT_ADD(stress, stream) { .kind = KS_STREAM };
FIXTURE_VARIANT_ADD(stress, aggregate) { .kind = KS_AGGREGATE };
FIXTURE_VARIANT_ADD(stress, probes) { .kind = KS_PROBES };
FIXTURE_VARIANT_ADD(stress, latency) { .kind = KS_LATENCY };
FIXTURE_VARIANT_ADD(stress, runqlat) { .kind = KS_RUNQLAT };
FIXTURE_VARIANT_ADD(stress, counting) { .kind = KS_COUNTING };

/* Both fixtures: the module loaded, tracefs mounted, a socket and the family. */
static void ks_setup(struct __test_metadata *_metadata, int *fd, int *family)
{
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	if (access("/sys/kernel/tracing/events", R_OK))
		mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL);
	*fd = kt_nl_open();
	ASSERT_LE(0, *fd);
	*family = kt_family(*fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, *family);
}

FIXTURE_SETUP(stress)
{
	ks_setup(_metadata, &self->fd, &self->family);
}

FIXTURE_TEARDOWN(stress)
{
	struct kt_msg m;

	kt_write_file(KS_CPU1, "1");
	ks_pin(-1);
	ks_stop(self->fd, self->family, variant->kind, &m);
	close(self->fd);
}

/*
 * CPU 1 goes offline and online three times while the session runs; then
 * work pinned to CPU 1 must be seen again.
 */
TEST_F_TIMEOUT(stress, cpu_hotplug_during_session, 120)
{
	unsigned long long before, after;
	struct kt_msg m;
	int i;

	if (access(KS_CPU1, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline here");
	ASSERT_EQ(0, ks_start(self->fd, self->family, variant->kind, &m)) {
		TH_LOG("%s START: %s", ks_kind_names[variant->kind], m.extack);
	}
	for (i = 0; i < 3; i++) {
		ks_work(30);
		ASSERT_EQ(0, kt_write_file(KS_CPU1, "0"));
		ks_work(30);
		ASSERT_EQ(0, kt_write_file(KS_CPU1, "1"));
	}
	before = ks_progress(variant->kind, 1);
	ASSERT_EQ(0, ks_pin(1));
	ks_work(300);
	ASSERT_EQ(0, ks_pin(-1));
	after = ks_progress(variant->kind, 1);
	TH_LOG("%s: CPU 1 after three offline/online rounds: %llu -> %llu",
	       ks_kind_names[variant->kind], before, after);
	EXPECT_LT(before, after);
	EXPECT_EQ(0, ks_stop(self->fd, self->family, variant->kind, &m)) {
		TH_LOG("STOP: %s", m.extack);
	}
}

/* rmmod with the session running stops and frees it; the module loads again. */
TEST_F(stress, rmmod_during_session)
{
	struct kt_msg m;

	ASSERT_EQ(0, ks_start(self->fd, self->family, variant->kind, &m)) {
		TH_LOG("%s START: %s", ks_kind_names[variant->kind], m.extack);
	}
	ks_work(100);
	ASSERT_EQ(0, kt_unload());
	ASSERT_FALSE(kt_kprof_loaded());
	ASSERT_EQ(0, kt_load());
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family);
}

/*
 * SUnreclaim + VmallocUsed, in KiB, after the caches are dropped: the
 * lowest of the readings 300 ms apart, taken until three in a row stay
 * within 16 KiB of it (at most 12): RCU-deferred frees (tracepoint probe
 * arrays go through RCU-tasks-trace, slow under TCG), per-CPU slab lists
 * and the guest's own activity move it.
 */
static long ks_kernel_kib(void)
{
	long best = -1;
	int steady = 0;

	for (int i = 0; i < 12 && steady < 3; i++) {
		char line[128];
		long v, sum = 0;
		FILE *fp;

		sync();
		kt_write_file("/proc/sys/vm/drop_caches", "3");
		usleep(300000);
		fp = fopen("/proc/meminfo", "r");
		if (!fp)
			return -1;
		while (fgets(line, sizeof(line), fp))
			if (sscanf(line, "SUnreclaim: %ld", &v) == 1 ||
			    sscanf(line, "VmallocUsed: %ld", &v) == 1)
				sum += v;
		fclose(fp);
		if (best < 0 || sum < best - 16) {
			best = sum;
			steady = 0;
		} else {
			best = sum < best ? sum : best;
			steady++;
		}
	}
	return best;
}

FIXTURE(cycles) {
	int fd;
	int family;
};

FIXTURE_SETUP(cycles)
{
	ks_setup(_metadata, &self->fd, &self->family);
}

FIXTURE_TEARDOWN(cycles)
{
	close(self->fd);
}

/*
 * Start/stop cycles, the six kinds in turn, from KS_WORKERS processes at
 * once, each with its own socket and its sessions beside the others' (1000
 * in all by default, KPROF_STRESS_CYCLES otherwise).  Each stop waits for
 * RCU grace periods and probes patch kernel text: minutes under TCG.
 */
#define KS_WORKERS	4

/* @cycles start/stop cycles spread over KS_WORKERS processes; the ones that failed. */
static unsigned int ks_run_workers(struct __test_metadata *_metadata, unsigned int cycles)
{
	pid_t workers[KS_WORKERS];
	unsigned int i, failed = 0;
	int status;

	for (i = 0; i < KS_WORKERS; i++) {
		workers[i] = fork();
		if (workers[i] < 0)
			return KS_WORKERS;
		if (!workers[i])
			ks_worker(i, cycles / KS_WORKERS + (i < cycles % KS_WORKERS));
	}
	for (i = 0; i < KS_WORKERS; i++) {
		if (waitpid(workers[i], &status, 0) != workers[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	}
	return failed;
}

/*
 * SUnreclaim + VmallocUsed with a stopped stream session held: a stopped
 * session stays readable (stats, histograms) until the next START.
 */
static long ks_held_kib(struct __test_metadata *_metadata, FIXTURE_DATA(cycles) *self)
{
	struct kt_msg m;

	if (ks_start(self->fd, self->family, KS_STREAM, &m) ||
	    ks_stop(self->fd, self->family, KS_STREAM, &m))
		return -1;
	return ks_kernel_kib();
}

TEST_F_TIMEOUT(cycles, start_stop_cycles_four_processes_no_growth, 500)
{
	const char *env = getenv("KPROF_STRESS_CYCLES");
	unsigned int cycles = env && *env ? strtoul(env, NULL, 0) : 1000;
	long base, mid, end, during;
	unsigned int i, failed;
	struct kt_msg m;

	/* caches and per-CPU pools warmed up by a round of each kind */
	for (i = 0; i < 2 * KS_NR_KINDS; i++) {
		ASSERT_EQ(0, ks_start(self->fd, self->family, i % KS_NR_KINDS, &m)) {
			TH_LOG("warm-up, %s: %s", ks_kind_names[i % KS_NR_KINDS], m.extack);
		}
		ASSERT_EQ(0, ks_stop(self->fd, self->family, i % KS_NR_KINDS, &m));
	}
	base = ks_held_kib(_metadata, self);
	/*
	 * Two halves: a leak grows with the cycles, in the second half as in
	 * the first; what the kernel keeps once (slab pages left partial by
	 * four processes interleaving, more of them on a busy host) does not.
	 */
	failed = ks_run_workers(_metadata, cycles / 2);
	mid = ks_held_kib(_metadata, self);
	failed += ks_run_workers(_metadata, cycles - cycles / 2);
	end = ks_held_kib(_metadata, self);
	EXPECT_EQ(0, failed) TH_LOG("%u workers failed (their lines above)", failed);
	/*
	 * The instrument sees kprof: a 4 MiB ring per CPU.  (Large beside the
	 * debug kernel's KASAN quarantine, whose SUnreclaim drifts by a
	 * megabyte or more between two readings.)
	 */
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 4 << 20);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m));
	during = ks_kernel_kib();
	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m));
	TH_LOG("%u cycles from %u processes: SUnreclaim + VmallocUsed %ld KiB -> %ld KiB after "
	       "half (%+ld KiB) -> %ld KiB (%+ld KiB); %ld KiB with a stream session running",
	       cycles, KS_WORKERS, base, mid, mid - base, end, end - mid, during);
	ASSERT_LT(0, base);
	ASSERT_LT(0, mid);
	/*
	 * KPROF_STRESS_GROWTH=0 on the debug kernel: KASAN's quarantine keeps
	 * freed objects (megabytes of SUnreclaim); kmemleak checks leaks there.
	 */
	env = getenv("KPROF_STRESS_GROWTH");
	if (env && !strcmp(env, "0")) {
		TH_LOG("growth not checked (KPROF_STRESS_GROWTH=0): kmemleak decides");
	} else {
		/* a leak of 256 bytes a cycle adds 128 KiB in a half */
		EXPECT_GT(128, end - mid);
		EXPECT_GT(512, end - base);
	}
	EXPECT_LE(3600 * (long)sysconf(_SC_NPROCESSORS_ONLN), during - end);
}

TEST_HARNESS_MAIN
