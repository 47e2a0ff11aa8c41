// SPDX-License-Identifier: GPL-2.0
/*
 * kprof counting sessions (KPROF_CMD_COUNT_*): per-task and system-wide
 * counts, inheritance, enable-on-exec, unsupported events, the freeze at
 * stop, ownership by the socket, independence from the sampling session,
 * the debugfs view, privilege and bad input.
 */
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

#define KC_MAX_READINGS	1024

static const struct kt_event kc_task_clock = {
	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, "task-clock"
};
static const struct kt_event kc_cs = {
	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, "context-switches"
};
static const struct kt_event kc_faults = {
	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, "page-faults"
};
static const struct kt_event kc_cycles = {
	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, "cycles"
};

/* One count of a COUNT_READ dump. */
struct kc_reading {
	uint64_t id;
	uint32_t event;
	int32_t cpu;			/* -1: no KPROF_COUNT_A_CPU */
	uint32_t error;
	bool has_value;
	uint64_t value, enabled, running;
	char name[KPROF_EVENT_NAME_MAX];
	/* ABI 1.8 */
	uint32_t type, state;
	uint64_t config, elapsed;
};

static void kc_parse_count(const struct nlattr *nest, struct kc_reading *r)
{
	const struct nlattr *a = (const void *)((const char *)nest + NLA_HDRLEN);
	int len = nest->nla_len - NLA_HDRLEN;

	r->cpu = -1;
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		switch (a->nla_type & NLA_TYPE_MASK) {
		case KPROF_COUNT_A_EVENT:
			r->event = kt_u32(a);
			break;
		case KPROF_COUNT_A_NAME:
			snprintf(r->name, sizeof(r->name), "%s", kt_str(a));
			break;
		case KPROF_COUNT_A_CPU:
			r->cpu = kt_u32(a);
			break;
		case KPROF_COUNT_A_ERROR:
			r->error = kt_u32(a);
			break;
		case KPROF_COUNT_A_VALUE:
			r->value = kt_u64(a);
			r->has_value = true;
			break;
		case KPROF_COUNT_A_ENABLED:
			r->enabled = kt_u64(a);
			break;
		case KPROF_COUNT_A_RUNNING:
			r->running = kt_u64(a);
			break;
		case KPROF_COUNT_A_TYPE:
			r->type = kt_u32(a);
			break;
		case KPROF_COUNT_A_CONFIG:
			r->config = kt_u64(a);
			break;
		case KPROF_COUNT_A_STATE:
			r->state = kt_u32(a);
			break;
		case KPROF_COUNT_A_ELAPSED:
			r->elapsed = kt_u64(a);
			break;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/*
 * COUNT_READ (optionally of session @id) into @r; returns the number of
 * readings or a negative errno, with the extack text in @extack.
 */
static int kc_read(int fd, int family, uint64_t id, struct kc_reading *r, int max,
		   char *extack, size_t extack_len)
{
	static char rx[65536];
	struct kt_msg m;
	int n = 0;
	ssize_t len;

	kt_msg_init(&m, family, KPROF_CMD_COUNT_READ, KPROF_FAMILY_VERSION);
	m.nlh.nlmsg_flags |= NLM_F_DUMP;
	m.nlh.nlmsg_seq = 77;
	if (id)
		kt_put_u64(&m, KPROF_A_SESSION_ID, id);
	if (extack)
		extack[0] = '\0';
	if (send(fd, m.buf, m.nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *nlh;
		int left;

		len = recv(fd, rx, sizeof(rx), 0);
		if (len < 0)
			return -errno;
		left = len;
		for (nlh = (struct nlmsghdr *)rx; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
			struct nlattr *a;
			int alen;

			if (nlh->nlmsg_seq != 77)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				if (!e->error)
					continue;
				m.extack[0] = '\0';
				kt_parse_extack(&m, nlh);
				if (extack)
					snprintf(extack, extack_len, "%s", m.extack);
				return e->error;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)NLMSG_DATA(nlh);

				/* a failed dump: its extack follows the error */
				a = (struct nlattr *)((char *)NLMSG_DATA(nlh) + sizeof(int));
				alen = nlh->nlmsg_len - NLMSG_LENGTH(sizeof(int));
				while (err && extack && (nlh->nlmsg_flags & NLM_F_ACK_TLVS) &&
				       alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
				       a->nla_len <= alen) {
					if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG)
						snprintf(extack, extack_len, "%.*s",
							 (int)(a->nla_len - NLA_HDRLEN), kt_str(a));
					alen -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
				}
				return err ? err : n;
			}
			if (n == max)
				return -E2BIG;
			memset(&r[n], 0, sizeof(r[n]));
			a = (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
			alen = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			while (alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
			       a->nla_len <= alen) {
				if ((a->nla_type & NLA_TYPE_MASK) == KPROF_A_SESSION_ID)
					r[n].id = kt_u64(a);
				else if ((a->nla_type & NLA_TYPE_MASK) == KPROF_A_COUNT)
					kc_parse_count(a, &r[n]);
				alen -= NLA_ALIGN(a->nla_len);
				a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
			}
			n++;
		}
	}
}

static void kc_start_init(struct kt_msg *m, int family, uint32_t flags)
{
	kt_msg_init(m, family, KPROF_CMD_COUNT_START, KPROF_FAMILY_VERSION);
	kt_put_u32(m, KPROF_A_SESSION_FLAGS, flags);
}

static int kc_stop(int fd, int family, struct kt_msg *m)
{
	kt_msg_init(m, family, KPROF_CMD_COUNT_STOP, KPROF_FAMILY_VERSION);
	return kt_transact(fd, m);
}

/* The sum over CPUs of event @ev's counts; -1 when it has an error. */
static int64_t kc_sum(const struct kc_reading *r, int n, uint32_t ev, uint64_t *enabled)
{
	uint64_t sum = 0, ena = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (r[i].event != ev)
			continue;
		if (r[i].error)
			return -1;
		sum += r[i].value;
		ena += r[i].enabled;
	}
	if (enabled)
		*enabled = ena;
	return sum;
}

/* The error of event @ev in a COUNT_START reply, 0 if none, -1 if absent. */
static int kc_start_error(const struct kt_msg *m, uint32_t ev)
{
	const struct nlmsghdr *nlh = (const void *)m->reply;
	const struct nlattr *a = (const void *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	int len = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == KPROF_A_COUNT) {
			struct kc_reading r = {};

			kc_parse_count(a, &r);
			if (r.event == ev)
				return r.error;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
	return -1;
}

static bool kc_have_hw_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

/* Fork a child that waits for a byte on a pipe, then runs @fn(@arg). */
static pid_t kc_spawn(void (*fn)(unsigned int), unsigned int arg, int *go_fd)
{
	pid_t pid = kt_fork_after_go(NULL, go_fd);

	if (pid == 0) {
		fn(arg);
		_exit(0);
	}
	return pid;
}

static void kc_spin(unsigned int ms)
{
	kt_spin_ms(ms);
}

/*
 * Sleep @n times for 10 ms: at least @n context switches (a sleep that has
 * expired before the task blocks, as on a stalled TCG vCPU, does not switch).
 */
static void kc_sleeper(unsigned int n)
{
	struct timespec ts = { 0, 10000000 };
	unsigned int i;

	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

/* Two children spin @ms each, one after the other, then the parent exits. */
static void kc_forker(unsigned int ms)
{
	pid_t a, b;

	a = fork();
	if (a == 0) {
		kt_spin_ms(ms);
		_exit(0);
	}
	waitpid(a, NULL, 0);
	b = fork();
	if (b == 0) {
		kt_spin_ms(ms);
		_exit(0);
	}
	waitpid(b, NULL, 0);
}

FIXTURE(count) {
	int fd;
	int family;
	struct kc_reading r[KC_MAX_READINGS];
};

FIXTURE_SETUP(count)
{
	struct kt_msg m;
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	self->fd = kt_nl_open();
	ASSERT_LE(0, self->fd);
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family);
	kc_stop(self->fd, self->family, &m);
}

FIXTURE_TEARDOWN(count)
{
	struct kt_msg m;

	kc_stop(self->fd, self->family, &m);
	close(self->fd);
}

TEST_F(count, per_task_counts_and_unsupported_events)
{
	uint64_t id, enabled;
	int go, n, status;
	int64_t tc, cs;
	struct kt_msg m;
	pid_t pid;

	pid = kc_spawn(kc_sleeper, 50, &go);
	ASSERT_LT(0, pid);
	kc_start_init(&m, self->family, 0);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kc_task_clock);
	kt_put_event(&m, &kc_cs);
	kt_put_event(&m, &kc_cycles);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	ASSERT_NE(NULL, m.tb[KPROF_A_SESSION_ID]);
	id = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	EXPECT_EQ(0, kc_start_error(&m, 0));
	EXPECT_EQ(0, kc_start_error(&m, 1));
	EXPECT_EQ(kc_have_hw_pmu() ? 0 : ENOENT, kc_start_error(&m, 2));

	kt_go(go);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(3, n);
	EXPECT_EQ(id, self->r[0].id);
	EXPECT_STREQ("task-clock", self->r[0].name);
	EXPECT_EQ(-1, self->r[0].cpu);
	tc = kc_sum(self->r, n, 0, &enabled);
	cs = kc_sum(self->r, n, 1, NULL);
	EXPECT_LT(0, tc);
	/* task-clock counts its own running time: enabled == value */
	EXPECT_EQ(self->r[0].running, self->r[0].enabled);
	EXPECT_LE(50, cs);
	if (!kc_have_hw_pmu()) {
		EXPECT_EQ(ENOENT, self->r[2].error);
		EXPECT_FALSE(self->r[2].has_value);
	}
	EXPECT_EQ(0, kc_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(id, kt_u64(m.tb[KPROF_A_SESSION_ID]));
	TH_LOG("task-clock %lld ns, context-switches %lld", (long long)tc, (long long)cs);
}

TEST_F(count, inherit_counts_children)
{
	int go, n, status;
	struct kt_msg m;
	int64_t tc;
	pid_t pid;

	pid = kc_spawn(kc_forker, 150, &go);
	ASSERT_LT(0, pid);
	kc_start_init(&m, self->family, KPROF_SESSION_F_INHERIT);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kc_task_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_go(go);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(1, n);
	tc = kc_sum(self->r, n, 0, NULL);
	/*
	 * Two children spun 150 ms each; the parent itself hardly ran.  The
	 * upper bound only catches counting things twice: a loaded TCG host
	 * stretches guest CPU time.
	 */
	EXPECT_LT(280000000LL, tc) TH_LOG("task-clock %lld ns", (long long)tc);
	EXPECT_GT(900000000LL, tc) TH_LOG("task-clock %lld ns", (long long)tc);
}

TEST_F(count, no_inherit_counts_only_the_parent)
{
	int go, n, status;
	struct kt_msg m;
	int64_t tc;
	pid_t pid;

	pid = kc_spawn(kc_forker, 400, &go);
	ASSERT_LT(0, pid);
	kc_start_init(&m, self->family, 0);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kc_task_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_go(go);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(1, n);
	tc = kc_sum(self->r, n, 0, NULL);
	/*
	 * Less than one child's 400 ms: the children are not counted.  The
	 * parent's own two forks and waits took 153 ms in the debug guest
	 * (KASAN, kmemleak), over the 150 ms its children spun before.
	 */
	EXPECT_GT(400000000LL, tc) TH_LOG("task-clock %lld ns", (long long)tc);
}

TEST_F(count, enable_on_exec_starts_at_exec)
{
	int go, n, status;
	struct kt_msg m;
	pid_t pid;

	pid = kc_spawn(kc_spin, 300, &go);
	ASSERT_LT(0, pid);
	kc_start_init(&m, self->family, KPROF_SESSION_F_INHERIT);
	kt_put_u32(&m, KPROF_A_COUNT_FLAGS, KPROF_COUNT_F_ENABLE_ON_EXEC);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kc_task_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_go(go);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(1, n);
	/* the child spun 300 ms without exec: nothing counted */
	EXPECT_EQ(0, self->r[0].value);
	EXPECT_EQ(0, self->r[0].enabled);
}

TEST_F(count, enable_on_exec_counts_the_program)
{
	int go[2], n, status;
	struct kt_msg m;
	pid_t pid;
	char x;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &x, 1) != 1)
			_exit(1);
		kt_spin_ms(100);	/* before exec: not counted */
		execlp("sh", "sh", "-c", "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done", NULL);
		_exit(127);
	}
	close(go[0]);
	kc_start_init(&m, self->family, KPROF_SESSION_F_INHERIT);
	kt_put_u32(&m, KPROF_A_COUNT_FLAGS, KPROF_COUNT_F_ENABLE_ON_EXEC);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kc_task_clock);
	kt_put_event(&m, &kc_faults);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_go(go[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(2, n);
	EXPECT_LT(0, self->r[0].value);
	EXPECT_LT(10, self->r[1].value);	/* exec maps and faults the program */
	TH_LOG("task-clock %llu ns from exec on, page-faults %llu",
	       (unsigned long long)self->r[0].value, (unsigned long long)self->r[1].value);
}

TEST_F(count, system_wide_per_cpu)
{
	int n, i, seen = 0, cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t sum = 0;
	struct kt_msg m;

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	kt_put_event(&m, &kc_cycles);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	usleep(200000);
	ASSERT_EQ(0, kc_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_EQ(2 * cpus, n);
	for (i = 0; i < n; i++) {
		if (self->r[i].event != 0) {
			if (!kc_have_hw_pmu())
				EXPECT_EQ(ENOENT, self->r[i].error);
			continue;
		}
		EXPECT_LE(0, self->r[i].cpu);
		EXPECT_EQ(0, self->r[i].error);
		/* cpu-clock runs on an idle CPU too: about 200 ms each */
		EXPECT_LT(150000000ULL, self->r[i].value);
		sum += self->r[i].value;
		seen |= 1 << self->r[i].cpu;
	}
	EXPECT_EQ((1 << cpus) - 1, seen);
	TH_LOG("cpu-clock over %d CPUs: %llu ns", cpus, (unsigned long long)sum);
}

static uint64_t kc_cpu_value(const struct kc_reading *r, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].cpu == cpu)
			return r[i].value;
	return ~0ULL;
}

TEST_F(count, cpu_hotplug_followed)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	uint64_t v1, v2, v3;
	struct kt_msg m;
	int n;

	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	usleep(100000);
	ASSERT_EQ(0, kt_write_file(online, "0"));
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	v1 = kc_cpu_value(self->r, n, 1);
	usleep(100000);
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	v2 = kc_cpu_value(self->r, n, 1);
	ASSERT_EQ(0, kt_write_file(online, "1"));
	usleep(200000);
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	v3 = kc_cpu_value(self->r, n, 1);
	EXPECT_EQ(0, kc_stop(self->fd, self->family, &m));
	/* counted until offline, kept while offline, counting again once online */
	EXPECT_LT(50000000ULL, v1);
	EXPECT_EQ(v1, v2);
	EXPECT_LT(v2 + 100000000ULL, v3);
	TH_LOG("CPU 1 cpu-clock: %llu ns at offline, %llu offline, %llu back online",
	       (unsigned long long)v1, (unsigned long long)v2, (unsigned long long)v3);
}

TEST_F(count, stop_freezes_counts)
{
	struct kt_msg m;
	uint64_t id, v1, e1;
	int n;

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	id = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	usleep(50000);
	/* ABI 1.8: every count names its event and says the session counts, and for how long */
	n = kc_read(self->fd, self->family, id, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_LT(0, n);
	EXPECT_EQ(kt_cpu_clock.type, self->r[0].type);
	EXPECT_EQ(kt_cpu_clock.config, self->r[0].config);
	EXPECT_EQ(KPROF_COUNT_STATE_RUNNING, self->r[0].state);
	EXPECT_LE(50000000ULL, self->r[0].elapsed);
	e1 = self->r[0].elapsed;
	ASSERT_EQ(0, kc_stop(self->fd, self->family, &m));
	n = kc_read(self->fd, self->family, id, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_LT(0, n);
	v1 = kc_sum(self->r, n, 0, NULL);
	EXPECT_EQ(KPROF_COUNT_STATE_STOPPED, self->r[0].state);
	EXPECT_LE(e1, self->r[0].elapsed);
	e1 = self->r[0].elapsed;
	usleep(50000);
	n = kc_read(self->fd, self->family, id, self->r, KC_MAX_READINGS, NULL, 0);
	ASSERT_LT(0, n);
	EXPECT_EQ(v1, (uint64_t)kc_sum(self->r, n, 0, NULL));
	/* the time stopped with the counts */
	EXPECT_EQ(e1, self->r[n - 1].elapsed);
	EXPECT_EQ(KPROF_COUNT_STATE_STOPPED, self->r[n - 1].state);
	/* a second stop finds nothing running */
	EXPECT_EQ(-ENOENT, kc_stop(self->fd, self->family, &m));
	EXPECT_NE(NULL, strstr(m.extack, "stopped")) TH_LOG("%s", m.extack);
}

TEST_F(count, stale_session_id_refused)
{
	char extack[256];
	struct kt_msg m;
	uint64_t id;

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	id = kt_u64(m.tb[KPROF_A_SESSION_ID]);
	EXPECT_EQ(-ESTALE, kc_read(self->fd, self->family, id + 1, self->r, KC_MAX_READINGS,
				   extack, sizeof(extack)));
	EXPECT_NE(NULL, strstr(extack, "gone")) TH_LOG("%s", extack);
	kt_msg_init(&m, self->family, KPROF_CMD_COUNT_STOP, KPROF_FAMILY_VERSION);
	kt_put_u64(&m, KPROF_A_SESSION_ID, id + 1);
	EXPECT_EQ(-ESTALE, kt_transact(self->fd, &m));
	EXPECT_EQ(0, kc_stop(self->fd, self->family, &m));
}

/* The id COUNT_START replied; 0 when it failed. */
static uint64_t kc_started(int fd, struct kt_msg *m)
{
	if (kt_transact(fd, m) || !m->tb[KPROF_A_SESSION_ID])
		return 0;
	return kt_u64(m->tb[KPROF_A_SESSION_ID]);
}

/*
 * ABI 1.13: counting sessions side by side, up to 16, each ended by its
 * owner's socket only, each read and stopped by its id.
 */
TEST_F(count, side_by_side_and_owned_by_their_sockets)
{
	int fds[16], i, n;
	uint64_t a, b, last = 0;
	struct kt_msg m;

	fds[0] = kt_nl_open();
	ASSERT_LE(0, fds[0]);
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	a = kc_started(fds[0], &m);
	ASSERT_NE(0, a) TH_LOG("%s", m.extack);

	/* a second session beside it, from another socket */
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	b = kc_started(self->fd, &m);
	ASSERT_NE(0, b) TH_LOG("%s", m.extack);
	EXPECT_NE(a, b);
	EXPECT_LT(0, kc_read(self->fd, self->family, a, self->r, KC_MAX_READINGS, NULL, 0));
	EXPECT_LT(0, kc_read(self->fd, self->family, b, self->r, KC_MAX_READINGS, NULL, 0));

	/* the first owner's socket goes: its session only */
	close(fds[0]);
	EXPECT_EQ(-ESTALE, kc_read(self->fd, self->family, a, self->r, KC_MAX_READINGS,
				   NULL, 0));
	EXPECT_LT(0, kc_read(self->fd, self->family, b, self->r, KC_MAX_READINGS, NULL, 0));

	/* 16 at most: 15 more sockets fill the table, a 17th is refused */
	for (n = 0; n < 15; n++) {
		fds[n] = kt_nl_open();
		ASSERT_LE(0, fds[n]);
		kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
		kt_put_event(&m, &kt_cpu_clock);
		last = kc_started(fds[n], &m);
		ASSERT_NE(0, last) TH_LOG("session %d: %s", n + 2, m.extack);
	}
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ENOSPC, kt_transact(self->fd, &m));
	EXPECT_NE(NULL, strstr(m.extack, "too many counting sessions")) TH_LOG("%s", m.extack);
	/* without an id: the most recently started */
	EXPECT_EQ(0, kc_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(last, kt_u64(m.tb[KPROF_A_SESSION_ID]));
	for (i = 0; i < n; i++)
		close(fds[i]);
	kt_msg_init(&m, self->family, KPROF_CMD_COUNT_STOP, KPROF_FAMILY_VERSION);
	kt_put_u64(&m, KPROF_A_SESSION_ID, b);
	EXPECT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
}

TEST_F(count, independent_of_the_sampling_session)
{
	struct kt_msg m;
	int n;

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 1 << 16);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_spin_ms(50);
	n = kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS, NULL, 0);
	EXPECT_LT(0, n);
	EXPECT_EQ(0, kc_stop(self->fd, self->family, &m));
	EXPECT_EQ(0, kt_stop(self->fd, self->family, &m)) TH_LOG("%s", m.extack);
}

TEST_F(count, debugfs_counters)
{
	char line[256];
	int lines = 0;
	struct kt_msg m;
	FILE *f;

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &kt_cpu_clock);
	kt_put_event(&m, &kc_cycles);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	f = fopen("/sys/kernel/debug/kprof/counters", "r");
	if (!f)
		SKIP(return, "no /sys/kernel/debug/kprof/counters: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu-clock ", 10) || !strncmp(line, "cycles ", 7))
			lines++;
	}
	fclose(f);
	EXPECT_EQ(2 * sysconf(_SC_NPROCESSORS_ONLN), lines);
}

/* Run a COUNT_START and a COUNT_READ without CAP_PERFMON in a child. */
TEST_F(count, needs_perfmon)
{
	int pid, status;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kc_reading r[4];
		char extack[256];
		struct kt_msg m;
		int fd;

		if (kt_drop_perfmon())
			_exit(10);
		fd = kt_nl_open();
		if (fd < 0)
			_exit(11);
		kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
		kt_put_event(&m, &kt_cpu_clock);
		if (kt_transact(fd, &m) != -EPERM || !strstr(m.extack, "CAP_PERFMON"))
			_exit(12);
		if (kc_read(fd, self->family, 0, r, 4, extack, sizeof(extack)) != -EPERM ||
		    !strstr(extack, "CAP_PERFMON"))
			_exit(13);
		if (kc_stop(fd, self->family, &m) != -EPERM)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* A refused COUNT_START: its error and a word of its extack message. */
static void refused(struct __test_metadata *_metadata, int fd, struct kt_msg *m, int err,
		    const char *word)
{
	EXPECT_EQ(-err, kt_transact(fd, m));
	EXPECT_NE(NULL, strstr(m->extack, word)) TH_LOG("extack: '%s'", m->extack);
}

TEST_F(count, bad_input)
{
	struct kt_event bad_type = { PERF_TYPE_TRACEPOINT, 1, 0, "tp" };
	struct kt_event both = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				 KPROF_EV_F_EXCLUDE_USER | KPROF_EV_F_EXCLUDE_KERNEL, "x" };
	uint64_t cpus = 1, big[KPROF_MAX_CPUS_BYTES / 8] = { 0 };
	struct kt_msg m;

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	refused(_metadata, self->fd, &m, EINVAL, "at least one event");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_KERNEL_STACK);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "call chain");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_u32(&m, KPROF_A_SESSION_FREQ, 99);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_u32(&m, KPROF_A_SESSION_PID, getpid());
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "PIDs given");

	kc_start_init(&m, self->family, 0);
	kt_put(&m, KPROF_A_SESSION_CPUS, &cpus, sizeof(cpus));
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "CPUs given");

	kc_start_init(&m, self->family, 0);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "at least one PID");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_u32(&m, KPROF_A_COUNT_FLAGS, KPROF_COUNT_F_ENABLE_ON_EXEC);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "per-task");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_u32(&m, KPROF_A_COUNT_FLAGS, 0x80);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &bad_type);
	refused(_metadata, self->fd, &m, EOPNOTSUPP, "type not supported");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put_event(&m, &both);
	refused(_metadata, self->fd, &m, EINVAL, "both user and kernel");

	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put(&m, KPROF_A_SESSION_CPUS, &cpus, 4);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "64-bit words");

	/* CPU 8191, the highest the attribute can name: past any possible CPU here */
	big[KPROF_MAX_CPUS_BYTES / 8 - 1] = 1ULL << 63;
	kc_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE);
	kt_put(&m, KPROF_A_SESSION_CPUS, big, sizeof(big));
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, EINVAL, "does not exist");

	kc_start_init(&m, self->family, 0);
	kt_put_u32(&m, KPROF_A_SESSION_PID, 0x3ffffff0);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, ESRCH, "no such process");

	/* nothing to read or stop */
	EXPECT_EQ(-ENOENT, kc_read(self->fd, self->family, 0, self->r, KC_MAX_READINGS,
				   NULL, 0));
	EXPECT_EQ(-ENOENT, kc_stop(self->fd, self->family, &m));
	EXPECT_NE(NULL, strstr(m.extack, "no counting session")) TH_LOG("%s", m.extack);
}

TEST_F(count, exited_target_refused)
{
	struct kt_msg m;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	/* a zombie: its task exists, but perf refuses to count it */
	usleep(100000);
	kc_start_init(&m, self->family, 0);
	kt_put_u32(&m, KPROF_A_SESSION_PID, pid);
	kt_put_event(&m, &kt_cpu_clock);
	refused(_metadata, self->fd, &m, ESRCH, "exited");
	waitpid(pid, &status, 0);
}

TEST_HARNESS_MAIN
