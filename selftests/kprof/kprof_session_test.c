// SPDX-License-Identifier: GPL-2.0
/*
 * kprof sessions: sampling, the rings, loss accounting, targets, call
 * chains, side-band records, lifecycle and bad input.
 */
#include <dlfcn.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

FIXTURE(session) {
	int fd;
	int family;
	uint64_t stride;
	unsigned int nr_cpus;
};

FIXTURE_SETUP(session)
{
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	self->fd = kt_nl_open();
	ASSERT_LE(0, self->fd);
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family);
	kt_stop_any(self->fd, self->family);
}

FIXTURE_TEARDOWN(session)
{
	kt_stop_any(self->fd, self->family);
	close(self->fd);
	/* a test that took CPU 1 offline and failed before bringing it back */
	if (!access("/sys/devices/system/cpu/cpu1/online", W_OK))
		kt_write_file("/sys/devices/system/cpu/cpu1/online", "1");
}

/* Send a START; on success remember the ring geometry. */
static int start(struct __test_metadata *_metadata, FIXTURE_DATA(session) *self,
		 struct kt_msg *m)
{
	int ret = kt_start(self->fd, m, &self->stride, &self->nr_cpus);

	ASSERT_NE(-EPROTO, ret) TH_LOG("START's reply lacks the session id, stride or CPU count");
	return ret;
}

/* Stop, drain what is left, and check the books balance exactly. */
static void stop_and_balance(struct __test_metadata *_metadata, FIXTURE_DATA(session) *self,
			     struct kt_reader *r, struct kt_tally *t, kt_sample_fn fn, void *arg)
{
	uint64_t inv, samples, lost_full, lost_big;
	struct kt_msg m;

	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
	kt_reader_drain(r, t, fn, arg);
	EXPECT_EQ(0, t->bad) TH_LOG("malformed record: %s", t->why);

	inv = kt_stat(&m, KPROF_STATS_A_INVOCATIONS);
	samples = kt_stat(&m, KPROF_STATS_A_SAMPLES);
	lost_full = kt_stat(&m, KPROF_STATS_A_LOST_FULL);
	lost_big = kt_stat(&m, KPROF_STATS_A_LOST_TOO_BIG);
	EXPECT_EQ(inv, samples + lost_full + lost_big);
	EXPECT_EQ(samples, t->samples);
	EXPECT_EQ(lost_full, t->lost[KPROF_LOST_FULL]);
	EXPECT_EQ(lost_big, t->lost[KPROF_LOST_TOO_BIG]);
	TH_LOG("invocations %llu samples %llu lost %llu+%llu records %llu",
	       (unsigned long long)inv, (unsigned long long)samples,
	       (unsigned long long)lost_full, (unsigned long long)lost_big,
	       (unsigned long long)t->records);
}

/* Spin for @ms while draining; tests the reader and writers concurrently. */
static void spin_and_drain(struct kt_reader *r, struct kt_tally *t, unsigned int ms,
			   kt_sample_fn fn, void *arg)
{
	unsigned int i;

	for (i = 0; i < ms / 50; i++) {
		kt_spin_ms(50);
		kt_reader_drain(r, t, fn, arg);
	}
}

TEST_F(session, system_wide_cpu_clock_balances)
{
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK, 999, 1 << 20);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	spin_and_drain(&r, &t, 500, NULL, NULL);
	stop_and_balance(_metadata, self, &r, &t, NULL, NULL);
	EXPECT_LT(100, t.samples);
	EXPECT_EQ(0, t.lost[KPROF_LOST_FULL]);
	kt_reader_close(&r);
}

static uint64_t debugfs_total(const char *column)
{
	char line[512], *tok;
	int col = -1, i;
	FILE *f;

	f = fopen("/sys/kernel/debug/kprof/stats", "r");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4)) {
			for (i = 0, tok = strtok(line, " \n"); tok; tok = strtok(NULL, " \n"), i++)
				if (!strcmp(tok, column))
					col = i;
		} else if (!strncmp(line, "all ", 4) && col >= 0) {
			for (i = 0, tok = strtok(line, " \n"); tok && i < col;
			     tok = strtok(NULL, " \n"), i++)
				;
			fclose(f);
			return tok ? strtoull(tok, NULL, 10) : ~0ULL;
		}
	}
	fclose(f);
	return ~0ULL;
}

TEST_F(session, tiny_buffer_reports_every_loss)
{
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;

	/* 8 KiB rings, a sample every 20 us of CPU time, and no reader */
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK, 0,
		      KPROF_MIN_BUFFER_SIZE);
	kt_put_u64(&m, KPROF_A_SESSION_PERIOD, 20000);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	kt_spin_ms(300);
	stop_and_balance(_metadata, self, &r, &t, NULL, NULL);
	EXPECT_LT(0, t.lost[KPROF_LOST_FULL]);
	EXPECT_EQ(t.lost[KPROF_LOST_FULL], debugfs_total("lost_full"));
	EXPECT_EQ(t.samples, debugfs_total("samples"));
	kt_reader_close(&r);
}

struct pid_check {
	pid_t want;
	uint64_t match, other;
};

static void count_pid(const struct kprof_record_header *h, void *arg)
{
	struct pid_check *c = arg;
	const uint32_t *pid = (const uint32_t *)((const char *)h + 32);

	if (h->type != KPROF_RECORD_SAMPLE)
		return;
	if (*pid == (uint32_t)c->want)
		c->match++;
	else
		c->other++;
}

/* A child that runs @fn(@ms) once released by kt_go(). */
static pid_t spawn_after_go(void (*fn)(unsigned int), unsigned int ms, int *go_fd)
{
	pid_t pid = kt_fork_after_go(NULL, go_fd);

	if (pid == 0) {
		fn(ms);
		_exit(0);
	}
	return pid;
}

TEST_F(session, per_task_samples_only_its_target)
{
	struct pid_check c = {};
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;
	pid_t child;
	int gofd;

	child = spawn_after_go(kt_spin_ms, 800, &gofd);
	ASSERT_LT(0, child);
	c.want = child;
	kt_start_init(&m, self->family, KPROF_SESSION_F_USER_STACK |
		      KPROF_SESSION_F_KERNEL_STACK, 999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_PID, child);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	kt_go(gofd);
	spin_and_drain(&r, &t, 400, count_pid, &c);	/* we spin too: not sampled */
	waitpid(child, NULL, 0);
	stop_and_balance(_metadata, self, &r, &t, count_pid, &c);
	EXPECT_LT(50, c.match);
	EXPECT_EQ(0, c.other);
	EXPECT_LT(0, t.exit);	/* the child's EXIT record */
	kt_reader_close(&r);
}

struct mode_check {
	uint64_t kernel, user, with_kchain, with_uchain;
};

static void count_mode(const struct kprof_record_header *h, void *arg)
{
	struct mode_check *c = arg;
	const uint16_t *nr = (const uint16_t *)((const char *)h + 48);

	if (h->type != KPROF_RECORD_SAMPLE)
		return;
	if (h->misc & KPROF_MISC_KERNEL)
		c->kernel++;
	if (h->misc & KPROF_MISC_USER)
		c->user++;
	if (nr[0])
		c->with_kchain++;
	if (nr[1])
		c->with_uchain++;
}

/* Alternate between user spinning and kernel work (reading /dev/zero). */
static void run_mixed(unsigned int ms)
{
	static char buf[1 << 20];
	int z = open("/dev/zero", O_RDONLY);
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		kt_spin_ms(5);
		for (int i = 0; i < 4; i++)
			if (read(z, buf, sizeof(buf)) < 0)
				_exit(1);
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/*
 * Profile a child running fn(ms) with @ev until it exits, passing every
 * record to @check, then stop and check the books.  *@child is set before
 * the child runs, for @check to know it.
 */
/* The same with KPROF_A_SESSION_USER_STACK @user_stack (0: not sent). */
static void profile_child_ustack(struct __test_metadata *_metadata, FIXTURE_DATA(session) *self,
				 void (*fn)(unsigned int), unsigned int ms, uint32_t flags,
				 uint32_t user_stack, const struct kt_event *ev, kt_sample_fn check,
				 void *arg, pid_t *child)
{
	struct kt_tally t = {};
	struct kt_reader r;
	struct kt_msg m;
	int gofd;

	*child = spawn_after_go(fn, ms, &gofd);
	ASSERT_LT(0, *child);
	kt_start_init(&m, self->family, flags, 999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_PID, *child);
	if (user_stack)
		kt_put_u32(&m, KPROF_A_SESSION_USER_STACK, user_stack);
	kt_put_event(&m, ev);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	kt_go(gofd);
	while (waitpid(*child, NULL, WNOHANG) == 0) {
		kt_reader_poll(&r, 50);
		kt_reader_drain(&r, &t, check, arg);
	}
	stop_and_balance(_metadata, self, &r, &t, check, arg);
	kt_reader_close(&r);
}

static void profile_child(struct __test_metadata *_metadata, FIXTURE_DATA(session) *self,
			  void (*fn)(unsigned int), unsigned int ms, uint32_t flags,
			  const struct kt_event *ev, kt_sample_fn check, void *arg, pid_t *child)
{
	profile_child_ustack(_metadata, self, fn, ms, flags, 0, ev, check, arg, child);
}

static void run_mode(struct __test_metadata *_metadata, FIXTURE_DATA(session) *self,
		     uint32_t flags, uint32_t ev_flags, struct mode_check *c)
{
	struct kt_event ev = kt_cpu_clock;
	pid_t child;

	ev.flags = ev_flags;
	profile_child(_metadata, self, run_mixed, 600, flags, &ev, count_mode, c, &child);
}

TEST_F(session, all_kernel_drops_user_half)
{
	struct mode_check c = {};

	/* -K: events count in the kernel only, no user chains */
	run_mode(_metadata, self, KPROF_SESSION_F_KERNEL_STACK, KPROF_EV_F_EXCLUDE_USER, &c);
	EXPECT_LT(10, c.kernel);
	EXPECT_EQ(0, c.user);
	EXPECT_EQ(0, c.with_uchain);
	EXPECT_LT(0, c.with_kchain);
}

TEST_F(session, all_user_drops_kernel_half)
{
	struct mode_check c = {};

	/* -U: events count in user space only, no kernel chains */
	run_mode(_metadata, self, KPROF_SESSION_F_USER_STACK, KPROF_EV_F_EXCLUDE_KERNEL, &c);
	EXPECT_LT(10, c.user);
	EXPECT_EQ(0, c.kernel);
	EXPECT_EQ(0, c.with_kchain);
	EXPECT_LT(0, c.with_uchain);
}

/* --- user call chains: a known call path, frame pointers kept ------------ */

static volatile unsigned long sink;

__attribute__((noinline)) void kt_tick(void)
{
	__asm__ volatile("" ::: "memory");
}

/*
 * The innermost function the test looks for.  A true leaf gets no frame
 * from gcc even with -mno-omit-leaf-frame-pointer, so it calls kt_tick()
 * now and then: that makes it a non-leaf with a frame, as code built for
 * frame-pointer profiling has.
 */
__attribute__((noinline)) void kt_leaf(void)
{
	for (unsigned long i = 0; i < 200000; i++) {
		sink += i;
		if (!(i & 0xffff))
			kt_tick();
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void kt_middle(void)
{
	kt_leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void kt_outer(unsigned int ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		kt_middle();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	__asm__ volatile("" ::: "memory");
}

static const char *sym_of(uint64_t addr)
{
	Dl_info info;

	if (dladdr((void *)addr, &info) && info.dli_sname)
		return info.dli_sname;
	return "?";
}

struct chain_check {
	pid_t pid;
	uint64_t leaf, ordered, edge, misordered;
	char first_bad[256];
};

/*
 * Is @ip a point of kt_leaf() where its own frame is not set up: before
 * "mov %rsp,%rbp" completes, or on the "ret" after "pop %rbp"?  There a
 * frame-pointer walk (kprof's, perf's, any) finds the caller's frame in
 * %rbp and so skips kt_middle(): its return address is at (%rsp), which
 * the walk does not read.  Rare (TCG takes interrupts at the start of a
 * translation block, and the entry is one), but real.
 */
static bool leaf_frameless_at(uint64_t ip)
{
	const unsigned char *f = (const unsigned char *)kt_leaf;
	uint64_t base = (uintptr_t)kt_leaf;
	unsigned int i;

	for (i = 0; i < 32; i++)
		if (f[i] == 0x48 && f[i + 1] == 0x89 && f[i + 2] == 0xe5)
			break;
	if (ip >= base && ip < base + i + 3)
		return true;
	return ip > base && ip < base + 4096 && *(const unsigned char *)(uintptr_t)ip == 0xc3 &&
	       *(const unsigned char *)(uintptr_t)(ip - 1) == 0x5d;
}

static void check_chain(const struct kprof_record_header *h, void *arg)
{
	struct chain_check *c = arg;
	const char *p = (const char *)h;
	const uint16_t *nr = (const uint16_t *)(p + 48);
	const uint64_t *ips = (const uint64_t *)(p + 56) + nr[0];
	int i, mid = -1, out = -1;

	if (h->type != KPROF_RECORD_SAMPLE || *(const uint32_t *)(p + 32) != (uint32_t)c->pid ||
	    nr[1] < 3 || strcmp(sym_of(ips[0]), "kt_leaf"))
		return;
	c->leaf++;
	/* return addresses point into the callers, innermost first */
	for (i = 1; i < nr[1]; i++) {
		const char *s = sym_of(ips[i] - 1);

		if (!strcmp(s, "kt_middle") && mid < 0)
			mid = i;
		if (!strcmp(s, "kt_outer") && out < 0)
			out = i;
	}
	if (mid == 1 && out == 2) {
		c->ordered++;
	} else if (leaf_frameless_at(ips[0]) && mid < 0 && out == 1) {
		c->edge++;
	} else if (!c->misordered++) {
		snprintf(c->first_bad, sizeof(c->first_bad), "%s+%#llx <- %s <- %s",
			 sym_of(ips[0]), (unsigned long long)(ips[0] - (uintptr_t)kt_leaf),
			 sym_of(ips[1] - 1), sym_of(ips[2] - 1));
	}
}

TEST_F(session, user_chain_follows_frame_pointers)
{
	struct chain_check c = {};

	profile_child(_metadata, self, kt_outer, 700, KPROF_SESSION_F_USER_STACK, &kt_cpu_clock,
		      check_chain, &c, &c.pid);
	TH_LOG("leaf samples %llu, ordered %llu, in the leaf's prologue/epilogue %llu, misordered %llu",
	       (unsigned long long)c.leaf, (unsigned long long)c.ordered,
	       (unsigned long long)c.edge, (unsigned long long)c.misordered);
	EXPECT_LT(20, c.leaf);
	/*
	 * every chain through the leaf must be leaf <- middle <- outer, or
	 * leaf <- outer where the leaf has no frame of its own yet
	 */
	EXPECT_EQ(0, c.misordered) TH_LOG("first bad chain: %s", c.first_bad);
}

/* --- the user stack copy of the leaf fix-up (ABI 1.16) -------------------- */

struct ustack_check {
	pid_t pid;
	uint64_t stack_lo, stack_hi;	/* this process's [stack], the child's too */
	uint64_t samples, copies, in_stack, matched, bad;
	char first_bad[160];
};

static void ustack_bad(struct ustack_check *c, const char *why, uint64_t v)
{
	if (!c->bad++)
		snprintf(c->first_bad, sizeof(c->first_bad), "%s (%#llx)", why,
			 (unsigned long long)v);
}

static void check_ustack(const struct kprof_record_header *h, void *arg)
{
	struct ustack_check *c = arg;
	const char *p = (const char *)h;
	const uint16_t *nr = (const uint16_t *)(p + 48);
	const uint64_t *ips = (const uint64_t *)(p + 56), *w;
	uint32_t size;

	if (h->type != KPROF_RECORD_SAMPLE || *(const uint32_t *)(p + 32) != (uint32_t)c->pid ||
	    !nr[1])
		return;
	c->samples++;
	if (!(h->misc & KPROF_MISC_USER_STACK))
		return ustack_bad(c, "no user stack part", h->misc);
	c->copies++;
	w = ips + nr[0] + nr[1];
	size = (uint32_t)w[4];
	if ((const char *)(w + 5) + size != p + h->size)
		return ustack_bad(c, "part does not end the record", size);
	if (w[0] != KPROF_USER_REGS_MASK)
		return ustack_bad(c, "registers mask", w[0]);
	if (w[3] != ips[nr[0]])
		return ustack_bad(c, "%rip is not the chain's first address", w[3]);
	if (w[4] >> 32)
		return ustack_bad(c, "reserved word", w[4]);
	if (size > 64 || size % 8 || (*(const uint16_t *)(p + 46) & KPROF_SAMPLE_F_USTACK_SHORT))
		return ustack_bad(c, "size", size);
	if (size != 64)
		return ustack_bad(c, "short of the 64 bytes", size);
	c->in_stack += w[2] >= c->stack_lo && w[2] < c->stack_hi;
	/* a frame-pointer leaf's return address, at %rbp + 8, is the chain's */
	if (w[1] >= w[2] && w[1] + 16 <= w[2] + size && nr[1] >= 2 &&
	    !memcmp((const char *)(w + 5) + (w[1] + 8 - w[2]), &ips[nr[0] + 1], 8))
		c->matched++;
}

TEST_F(session, user_stack_copy)
{
	struct ustack_check c = {};
	unsigned long long lo, hi;
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2) {
			c.stack_lo = lo;
			c.stack_hi = hi;
		}
	fclose(f);
	profile_child_ustack(_metadata, self, kt_outer, 500,
			     KPROF_SESSION_F_USER_STACK | KPROF_SESSION_F_KERNEL_STACK, 64,
			     &kt_cpu_clock, check_ustack, &c, &c.pid);
	TH_LOG("samples %llu, with a copy %llu, %%rsp in [stack] %llu, return address as the chain's %llu, bad %llu",
	       (unsigned long long)c.samples, (unsigned long long)c.copies,
	       (unsigned long long)c.in_stack, (unsigned long long)c.matched,
	       (unsigned long long)c.bad);
	EXPECT_LT(20, c.samples);
	EXPECT_EQ(0, c.bad) TH_LOG("first bad sample: %s", c.first_bad);
	EXPECT_EQ(c.samples, c.copies);
	EXPECT_EQ(c.samples, c.in_stack);
	/*
	 * kt_outer's functions keep frame pointers: where the copy holds the
	 * leaf's frame, its return address is the chain's second entry (the
	 * copy is the stack at the sample)
	 */
	EXPECT_LT(c.samples / 2, c.matched);
}

/* --- kernel call chains: the read() path ---------------------------------- */

struct ksym {
	uint64_t addr;
	char name[64];
};

static struct ksym *ksyms;
static size_t nr_ksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_load(void)
{
	char line[256], type, name[128];
	unsigned long long addr;
	size_t cap = 0;
	FILE *f;

	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3 || !addr)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nr_ksyms == cap) {
			cap = cap ? cap * 2 : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
		}
		ksyms[nr_ksyms].addr = addr;
		snprintf(ksyms[nr_ksyms].name, sizeof(ksyms[0].name), "%.63s", name);
		nr_ksyms++;
	}
	fclose(f);
	qsort(ksyms, nr_ksyms, sizeof(*ksyms), ksym_cmp);
	return nr_ksyms ? 0 : -ENOENT;
}

static const char *ksym_of(uint64_t addr)
{
	size_t lo = 0, hi = nr_ksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? ksyms[lo - 1].name : "?";
}

struct kchain_check {
	pid_t pid;
	uint64_t kernel, read_path, syscall_entry;
};

static void check_kchain(const struct kprof_record_header *h, void *arg)
{
	struct kchain_check *c = arg;
	const char *p = (const char *)h;
	const uint16_t *nr = (const uint16_t *)(p + 48);
	const uint64_t *ips = (const uint64_t *)(p + 56);
	bool read_path = false, entry = false;
	int i;

	if (h->type != KPROF_RECORD_SAMPLE || *(const uint32_t *)(p + 32) != (uint32_t)c->pid ||
	    !nr[0])
		return;
	c->kernel++;
	for (i = 0; i < nr[0]; i++) {
		const char *s = ksym_of(ips[i]);

		if (strstr(s, "ksys_read") || strstr(s, "vfs_read"))
			read_path = true;
		if (!strcmp(s, "do_syscall_64"))
			entry = true;
	}
	c->read_path += read_path;
	c->syscall_entry += entry;
}

TEST_F(session, kernel_chain_shows_syscall_path)
{
	struct kchain_check c = {};
	struct kt_event ev = kt_cpu_clock;

	if (ksyms_load())
		SKIP(return, "no /proc/kallsyms addresses (kptr_restrict?)");
	ev.flags = KPROF_EV_F_EXCLUDE_USER;
	profile_child(_metadata, self, run_mixed, 700, KPROF_SESSION_F_KERNEL_STACK, &ev,
		      check_kchain, &c, &c.pid);
	TH_LOG("kernel samples %llu, via read() %llu, via do_syscall_64 %llu",
	       (unsigned long long)c.kernel, (unsigned long long)c.read_path,
	       (unsigned long long)c.syscall_entry);
	EXPECT_LT(10, c.kernel);
	/* the child is in the kernel only to read /dev/zero */
	EXPECT_LE(c.kernel * 8 / 10, c.read_path);
	EXPECT_LE(c.kernel * 8 / 10, c.syscall_entry);
}

/* --- side-band -------------------------------------------------------------- */

struct sb_check {
	pid_t pid;
	uint64_t exec_comm, mmap_ld, mmap_sh, fork, exit;
	uint64_t exec_time, mmap_sh_time;	/* the first of each */
};

static void check_sideband(const struct kprof_record_header *h, void *arg)
{
	struct sb_check *c = arg;
	const char *p = (const char *)h;

	switch (h->type) {
	case KPROF_RECORD_COMM:
		if (*(const uint32_t *)(p + 16) == (uint32_t)c->pid &&
		    (h->misc & KPROF_MISC_COMM_EXEC) && !strcmp(p + 24, "sh") &&
		    !c->exec_comm++)
			c->exec_time = *(const uint64_t *)(p + 8);
		break;
	case KPROF_RECORD_MMAP:
		if (*(const uint32_t *)(p + 16) != (uint32_t)c->pid)
			break;
		if (strstr(p + 48, "/ld-linux"))
			c->mmap_ld++;
		if ((strstr(p + 48, "/dash") || strstr(p + 48, "/bash")) && !c->mmap_sh++)
			c->mmap_sh_time = *(const uint64_t *)(p + 8);
		break;
	case KPROF_RECORD_FORK:
		if (*(const uint32_t *)(p + 24) == (uint32_t)c->pid)
			c->fork++;
		break;
	case KPROF_RECORD_EXIT:
		if (*(const uint32_t *)(p + 16) == (uint32_t)c->pid)
			c->exit++;
		break;
	}
}

TEST_F(session, sideband_follows_exec_fork_mmap_exit)
{
	struct sb_check c = {};
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;
	int go[2];
	char x;

	ASSERT_EQ(0, pipe(go));
	c.pid = fork();
	ASSERT_LE(0, c.pid);
	if (c.pid == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(1);
		execl("/bin/sh", "sh", "-c", "/bin/true; /bin/true", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	kt_start_init(&m, self->family, KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_USER_STACK,
		      999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_PID, c.pid);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	ASSERT_EQ(1, write(go[1], "x", 1));
	close(go[1]);
	waitpid(c.pid, NULL, 0);
	stop_and_balance(_metadata, self, &r, &t, check_sideband, &c);
	EXPECT_EQ(1, c.exec_comm);
	EXPECT_LE(1, c.mmap_ld);
	EXPECT_LE(1, c.mmap_sh);
	/* as perf: exec's COMM when it renames the task, before it maps the program */
	EXPECT_LT(c.exec_time, c.mmap_sh_time);
	EXPECT_LE(2, c.fork);		/* sh forks /bin/true twice */
	EXPECT_LE(1, c.exit);
	kt_reader_close(&r);
}

/* --- lifecycle -------------------------------------------------------------- */

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

struct cpu_check {
	uint64_t after_ns;
	unsigned int cpu;
	uint64_t hits;
};

static void count_cpu_after(const struct kprof_record_header *h, void *arg)
{
	struct cpu_check *c = arg;
	const char *p = (const char *)h;

	if (h->type == KPROF_RECORD_SAMPLE && *(const uint32_t *)(p + 40) == c->cpu &&
	    *(const uint64_t *)(p + 8) > c->after_ns)
		c->hits++;
}

/*
 * Spin @ms on CPU 1 (which came up), draining; then stop with an exact
 * balance: CPU 1 must have been sampled, into its ring, since now.
 */
static void cpu1_sampled_from_now(struct __test_metadata *_metadata,
				  FIXTURE_DATA(session) *self, struct kt_reader *r,
				  struct kt_tally *t, unsigned int ms)
{
	struct cpu_check c = { .cpu = 1 };
	struct timespec ts;
	cpu_set_t set;
	int i;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	c.after_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	spin_and_drain(r, t, ms, count_cpu_after, &c);
	CPU_ZERO(&set);
	for (i = 0; i < (int)self->nr_cpus; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
	stop_and_balance(_metadata, self, r, t, count_cpu_after, &c);
	EXPECT_LT(10, c.hits);
}

TEST_F(session, cpu_offline_online_during_session)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;

	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline here");
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_KERNEL_STACK, 999, 1 << 20);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	kt_spin_ms(100);
	ASSERT_EQ(0, write_str(online, "0"));
	kt_spin_ms(100);
	kt_reader_drain(&r, &t, NULL, NULL);
	ASSERT_EQ(0, write_str(online, "1"));
	/* run on the CPU that came back: it must be sampled again */
	cpu1_sampled_from_now(_metadata, self, &r, &t, 300);
	kt_reader_close(&r);
}

/*
 * ABI 1.13: a session has rings on the CPUs up at its start only; a CPU
 * that comes up gets one before it records, poll() says EPOLLPRI until the
 * reader asks KPROF_IOC_RINGS, and the new ring maps and fills.
 */
TEST_F(session, cpu_up_mid_session_gets_a_ring)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	struct pollfd pfd = { .events = POLLIN | POLLPRI };
	uint64_t before = 0, after = 0;
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;
	int i, rev = 0;

	if (access(online, W_OK) || write_str(online, "0"))
		SKIP(return, "CPU 1 cannot be taken offline here");
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 1 << 20);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	EXPECT_EQ(NULL, r.maps[1]) TH_LOG("CPU 1 was offline at the start: no ring");
	ASSERT_EQ(0, ioctl(r.fd, KPROF_IOC_RINGS, &before)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), (long)before);
	pfd.fd = r.fd;
	ASSERT_LE(0, poll(&pfd, 1, 0));
	EXPECT_FALSE(pfd.revents & POLLPRI);

	ASSERT_EQ(0, write_str(online, "1"));
	for (i = 0; i < 100 && !(rev & POLLPRI); i++) {
		ASSERT_LE(0, poll(&pfd, 1, 100));
		rev = pfd.revents;
		kt_reader_drain(&r, &t, NULL, NULL);
	}
	EXPECT_TRUE(rev & POLLPRI) TH_LOG("no POLLPRI within 10 s of CPU 1 coming up");
	ASSERT_EQ(0, ioctl(r.fd, KPROF_IOC_RINGS, &after));
	EXPECT_EQ(before + 1, after);
	ASSERT_LE(0, poll(&pfd, 1, 0));
	EXPECT_FALSE(pfd.revents & POLLPRI) TH_LOG("POLLPRI stays after KPROF_IOC_RINGS");
	r.maps[1] = mmap(NULL, self->stride, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd,
			 (off_t)self->stride);
	ASSERT_NE(MAP_FAILED, r.maps[1]) TH_LOG("mmap of CPU 1's new ring: %s", strerror(errno));
	/* on the CPU that came up: sampled there, into its new ring */
	cpu1_sampled_from_now(_metadata, self, &r, &t, 500);
	kt_reader_close(&r);
}

/* ABI 1.13: a /dev/kprof file maps the session it is bound to, or nothing. */
TEST_F(session, unbound_mmap_refused)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t n;
	struct kt_msg m;
	void *p;
	int fd;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 1 << 16);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	fd = open(KPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	p = mmap(NULL, self->stride, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, KPROF_IOC_RINGS, &n));
	EXPECT_EQ(ENODEV, errno);
	pfd.fd = fd;
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	close(fd);

	/* bound, the same file maps CPU 0's ring */
	fd = open(KPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_BIND, &kt_session_id)) TH_LOG("%s", strerror(errno));
	p = mmap(NULL, self->stride, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("%s", strerror(errno));
	munmap(p, self->stride);
	close(fd);
}

TEST_F(session, reader_killed_mid_read)
{
	struct kt_msg m;
	uint64_t stride;
	unsigned int nr;
	pid_t child;
	int status;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 1 << 16);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	stride = self->stride;
	nr = self->nr_cpus;
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct kt_reader r;
		struct kt_tally t = {};

		if (kt_reader_open(&r, nr, stride))
			_exit(1);
		for (;;) {
			kt_reader_poll(&r, -1);
			kt_reader_drain(&r, &t, NULL, NULL);
		}
	}
	kt_spin_ms(200);
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m));

	kt_msg_init(&m, self->family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	ASSERT_EQ(0, kt_transact(self->fd, &m));
	EXPECT_EQ(0, kt_u32(m.tb[KPROF_A_STATUS_READERS]));
	EXPECT_EQ(KPROF_STATE_STOPPED, kt_u32(m.tb[KPROF_A_STATUS_STATE]));
}

TEST_F(session, reader_blocked_in_poll_wakes_on_stop)
{
	struct kt_reader r;
	struct kt_msg m;
	pid_t child;
	int status;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 10, 1 << 20);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(_metadata, self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		struct kt_tally t = {};
		int rev;

		/* 10 Hz never reaches the watermark: only the stop wakes us */
		do {
			rev = kt_reader_poll(&r, 20000);
			kt_reader_drain(&r, &t, NULL, NULL);
		} while (rev > 0 && !(rev & POLLHUP));
		_exit(rev > 0 && (rev & POLLHUP) ? 0 : 2);
	}
	usleep(300000);
	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	kt_reader_close(&r);
}

TEST_F(session, hardware_cycles_or_skip)
{
	struct kt_event cycles = {
		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles"
	};
	struct kt_reader r;
	struct kt_tally t = {};
	struct kt_msg m;
	int ret;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 1 << 20);
	kt_put_event(&m, &cycles);
	ret = start(_metadata, self, &m);
	if (ret == -EOPNOTSUPP || ret == -ENOENT || ret == -ENODEV) {
		EXPECT_NE(NULL, strstr(m.extack, "not supported")) TH_LOG("%s", m.extack);
		SKIP(return, "no hardware PMU in this guest (%s)", m.extack);
	}
	ASSERT_EQ(0, ret) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	spin_and_drain(&r, &t, 300, NULL, NULL);
	stop_and_balance(_metadata, self, &r, &t, NULL, NULL);
	EXPECT_LT(0, t.samples);
	kt_reader_close(&r);
}

/* --- bad input: one bad field each, errno and extack asserted ------------- */

static int start_err(FIXTURE_DATA(session) *self, struct kt_msg *m)
{
	int ret = kt_transact(self->fd, m);

	if (!ret)
		kt_stop_any(self->fd, self->family);
	return ret;
}

TEST_F(session, refuse_no_event)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 0);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: a session needs at least one event", m.extack);
}

TEST_F(session, refuse_freq_and_period)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 0);
	kt_put_u64(&m, KPROF_A_SESSION_PERIOD, 1000);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: give exactly one of a frequency and a period", m.extack);
}

TEST_F(session, refuse_zero_freq)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_START, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_SESSION_FLAGS, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_u32(&m, KPROF_A_SESSION_FREQ, 0);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ERANGE, start_err(self, &m));
	EXPECT_LT(0, strlen(m.extack));
}

TEST_F(session, refuse_freq_above_max_sample_rate)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 100000000, 0);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: frequency above kernel.perf_event_max_sample_rate", m.extack);
}

TEST_F(session, refuse_bad_user_stack)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_USER_STACK,
		      999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_USER_STACK, 12);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: user stack bytes must be a multiple of 8", m.extack);

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_USER_STACK, 64);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: a user stack copy needs user call chains in a stream", m.extack);

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_USER_STACK,
		      999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_USER_STACK, KPROF_USER_STACK_MAX + 8);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ERANGE, start_err(self, &m));
}

TEST_F(session, refuse_buffer_not_power_of_two)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 3 * 8192);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: buffer size must be a power of two", m.extack);
}

TEST_F(session, refuse_buffer_too_small_or_large)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 4096);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ERANGE, start_err(self, &m));
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 1U << 31);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ERANGE, start_err(self, &m));
}

TEST_F(session, refuse_missing_pid)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, 0, 999, 0);
	kt_put_u32(&m, KPROF_A_SESSION_PID, 4000000);	/* above any pid_max */
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ESRCH, start_err(self, &m));
	EXPECT_STREQ("kprof: no such process", m.extack);
}

TEST_F(session, refuse_cpu_out_of_range)
{
	uint64_t words[4] = { 0, 0, 0, 1ULL << 63 };	/* CPU 255 */
	struct kt_msg m;

	if (self->nr_cpus > 255)
		SKIP(return, "machine has CPU 255");
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 0);
	kt_put(&m, KPROF_A_SESSION_CPUS, words, sizeof(words));
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_STREQ("kprof: CPU bitmap names a CPU that does not exist", m.extack);
}

TEST_F(session, refuse_unknown_flag)
{
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE | (1U << 30), 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, start_err(self, &m));
	EXPECT_LT(0, strlen(m.extack));
}

/*
 * ABI 1.10: sessions side by side, each its own; a STOP without an id is
 * ambiguous while several run, and names one once one is left.
 */
TEST_F(session, second_session_side_by_side)
{
	uint64_t a, b, ids[8];
	uint32_t states[8];
	struct kt_msg m;
	int n, i;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	a = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	b = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	EXPECT_EQ(a + 1, b);

	n = kt_session_ids(self->fd, self->family, ids, states, 8);
	ASSERT_EQ(2, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(KPROF_STATE_RUNNING, states[i]);
	EXPECT_EQ(a, ids[0]);
	EXPECT_EQ(b, ids[1]);

	EXPECT_EQ(-EINVAL, kt_stop(self->fd, self->family, &m));
	EXPECT_STREQ("kprof: several sessions run: name one (KPROF_A_SESSION_ID; kprofctl status lists them)",
		     m.extack);
	EXPECT_EQ(-ENOENT, kt_stop_id(self->fd, self->family, b + 100, &m));
	EXPECT_STREQ("kprof: no session with this id", m.extack);

	ASSERT_EQ(0, kt_stop_id(self->fd, self->family, a, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(a, kt_u64(m.tb[KPROF_A_SESSION_ID]));
	EXPECT_EQ(-ENOENT, kt_stop_id(self->fd, self->family, a, &m));
	EXPECT_STREQ("kprof: no session is running", m.extack);
	/* one runs: a STOP without an id is that one */
	ASSERT_EQ(0, kt_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(b, kt_u64(m.tb[KPROF_A_SESSION_ID]));
	n = kt_session_ids(self->fd, self->family, ids, states, 8);
	ASSERT_LE(1, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(KPROF_STATE_STOPPED, states[i]);
}

/* A request naming session @id (0: none) on @fd. */
static int id_request(int fd, int family, uint8_t cmd, uint64_t id, struct kt_msg *m)
{
	kt_msg_init(m, family, cmd, KPROF_FAMILY_VERSION);
	if (id)
		kt_put(m, KPROF_A_SESSION_ID, &id, sizeof(id));
	return kt_transact(fd, m);
}

/* Is @id among the sessions STATUS lists? */
static bool listed(int fd, int family, uint64_t id)
{
	uint64_t ids[64];
	int i, n = kt_session_ids(fd, family, ids, NULL, 64);

	for (i = 0; i < n && i < 64; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * A stopped session goes when no socket holds it: STATUS then reports its
 * final counters from what is kept of it, and counts no memory.  A
 * detached aggregating session's tables stay unheld until FREE (ABI 1.12)
 * says they were saved; FREE needs an id and a stopped session.
 */
TEST_F(session, stopped_session_freed_when_let_go)
{
	uint64_t a, b;
	struct kt_msg m;
	int fd;

	/* a stream session, stopped by a socket that then closes */
	fd = kt_nl_open();
	ASSERT_LE(0, fd);
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(fd, &m)) TH_LOG("%s", m.extack);
	a = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	usleep(100000);
	ASSERT_EQ(0, id_request(fd, self->family, KPROF_CMD_STOP, a, &m)) TH_LOG("%s", m.extack);
	EXPECT_TRUE(listed(self->fd, self->family, a)) TH_LOG("held by the socket that stopped it");
	close(fd);
	EXPECT_FALSE(listed(self->fd, self->family, a)) TH_LOG("freed when that socket closed");
	ASSERT_EQ(0, id_request(self->fd, self->family, KPROF_CMD_STATUS, a, &m)) TH_LOG("%s", m.extack);
	ASSERT_NE(NULL, m.tb[KPROF_A_SESSION_ID]);
	EXPECT_EQ(a, kt_u64(m.tb[KPROF_A_SESSION_ID]));
	EXPECT_NE(NULL, m.tb[KPROF_A_STATS]) TH_LOG("its final counters");
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_MEMORY]);
	EXPECT_EQ(0, kt_u64(m.tb[KPROF_A_STATUS_MEMORY]));
	EXPECT_EQ(KPROF_STATE_STOPPED, kt_u32(m.tb[KPROF_A_STATUS_STATE]));

	/* a detached aggregating one: its unsaved tables outlive the socket */
	fd = kt_nl_open();
	ASSERT_LE(0, fd);
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_AGGREGATE |
		      KPROF_SESSION_F_KERNEL_STACK, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(fd, &m)) TH_LOG("%s", m.extack);
	b = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	EXPECT_EQ(-EINVAL, id_request(fd, self->family, KPROF_CMD_FREE, 0, &m));
	EXPECT_STREQ("kprof: FREE needs the session's id (KPROF_A_SESSION_ID)", m.extack);
	EXPECT_EQ(-EBUSY, id_request(fd, self->family, KPROF_CMD_FREE, b, &m));
	EXPECT_STREQ("kprof: the session is running: stop it first", m.extack);
	EXPECT_EQ(-ENOENT, id_request(fd, self->family, KPROF_CMD_FREE, b + 100, &m));
	EXPECT_STREQ("kprof: no session with this id", m.extack);
	usleep(100000);
	ASSERT_EQ(0, id_request(fd, self->family, KPROF_CMD_STOP, b, &m)) TH_LOG("%s", m.extack);
	close(fd);
	EXPECT_TRUE(listed(self->fd, self->family, b)) TH_LOG("unsaved tables stay");
	ASSERT_EQ(0, id_request(self->fd, self->family, KPROF_CMD_STATUS, 0, &m));
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_MEMORY]);
	EXPECT_LT(0, kt_u64(m.tb[KPROF_A_STATUS_MEMORY]));
	ASSERT_EQ(0, id_request(self->fd, self->family, KPROF_CMD_FREE, b, &m)) TH_LOG("%s", m.extack);
	EXPECT_FALSE(listed(self->fd, self->family, b)) TH_LOG("saved: freed at once");
	ASSERT_EQ(0, id_request(self->fd, self->family, KPROF_CMD_STATUS, 0, &m));
	EXPECT_EQ(0, kt_u64(m.tb[KPROF_A_STATUS_MEMORY]));
	EXPECT_EQ(b, kt_u64(m.tb[KPROF_A_SESSION_ID])) TH_LOG("the default: the last one freed");
	EXPECT_EQ(0, id_request(self->fd, self->family, KPROF_CMD_FREE, b, &m))
		TH_LOG("freed already: %s", m.extack);
	/* the data is gone: a read of the tables says so */
	EXPECT_EQ(-ENOENT, id_request(self->fd, self->family, KPROF_CMD_AGG_RESET, b, &m));
}

/* The module parameter max_sessions bounds the table: ENOSPC, one fixed line. */
TEST_F(session, refuse_over_max_sessions)
{
	static const char param[] = "/sys/module/kprof/parameters/max_sessions";
	char old[16] = "";
	struct kt_msg m;
	FILE *f;
	int i;

	f = fopen(param, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(old, sizeof(old), f));
	fclose(f);
	f = fopen(param, "w");
	ASSERT_NE(NULL, f);
	fputs("2", f);
	ASSERT_EQ(0, fclose(f));
	for (i = 0; i < 3; i++) {
		kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
		kt_put_event(&m, &kt_cpu_clock);
		if (i < 2) {
			EXPECT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
		} else {
			EXPECT_EQ(-ENOSPC, kt_transact(self->fd, &m));
		}
	}
	EXPECT_STREQ("kprof: too many sessions (module parameter max_sessions); kprofctl status lists them",
		     m.extack);
	f = fopen(param, "w");
	ASSERT_NE(NULL, f);
	fputs(old, f);
	ASSERT_EQ(0, fclose(f));
}

TEST_F(session, refuse_stop_without_session)
{
	struct kt_msg m;

	EXPECT_EQ(-ENOENT, kt_stop(self->fd, self->family, &m));
	EXPECT_STREQ("kprof: no session is running", m.extack);
}

TEST_F(session, refuse_unprivileged_start)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kt_msg m;
		int fd;

		if (kt_drop_perfmon())
			_exit(100);
		fd = kt_nl_open();
		kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
		kt_put_event(&m, &kt_cpu_clock);
		_exit(-kt_transact(fd, &m));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == EPERM);
}

TEST_HARNESS_MAIN
