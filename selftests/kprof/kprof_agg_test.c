// SPDX-License-Identifier: GPL-2.0
/*
 * kprof in-kernel aggregation: the debugfs report and folded views, exact
 * counts against a simultaneous stream, distinct stacks kept distinct in a
 * crowded table, a full table's losses, reset, reading while sampling, and
 * bad input.
 */
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

#define DEBUGFS_KPROF "/sys/kernel/debug/kprof"

FIXTURE(agg) {
	int fd;
	int family;
	uint64_t stride;
	unsigned int nr_cpus;
};

FIXTURE_SETUP(agg)
{
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	self->fd = kt_nl_open();
	ASSERT_LE(0, self->fd);
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family);
	kt_stop_any(self->fd, self->family);
}

FIXTURE_TEARDOWN(agg)
{
	kt_stop_any(self->fd, self->family);
	close(self->fd);
}

static int start(FIXTURE_DATA(agg) *self, struct kt_msg *m)
{
	return kt_start(self->fd, m, &self->stride, &self->nr_cpus);
}

/* --- workloads: many distinct call stacks through one binary -------------- */

static volatile unsigned long sink;

__attribute__((noinline)) void agg_tick(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void agg_hot(void)
{
	for (unsigned long i = 0; i < 100000; i++) {
		sink += i;
		if (!(i & 0xffff))
			agg_tick();
	}
}

/* depth-d recursion, then agg_hot: one distinct user stack per depth */
__attribute__((noinline)) void agg_rec(int d)
{
	if (d > 0)
		agg_rec(d - 1);
	else
		agg_hot();
	__asm__ volatile("" ::: "memory");
}

static void run_stacks(unsigned int ms, int depths)
{
	struct timespec a, b;
	int d = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		agg_rec(d);
		d = (d + 1) % depths;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/*
 * A child that runs run_stacks() once kt_go() is called; with @linger it then
 * stays alive (its mappings name its frames) until killed.
 */
static pid_t spawn_child(unsigned int ms, int depths, bool linger, int *go_fd)
{
	pid_t pid = kt_fork_after_go(NULL, go_fd);

	if (pid == 0) {
		run_stacks(ms, depths);
		while (linger)
			pause();
		_exit(0);
	}
	return pid;
}

static pid_t spawn_stacks(unsigned int ms, int depths, int *go_fd)
{
	return spawn_child(ms, depths, false, go_fd);
}

/* --- keys: (pid, kernel frames, user frames) -> count ---------------------- */

struct key {
	uint32_t pid;
	uint16_t nk, nu;
	uint64_t ips[2 * KPROF_DEFAULT_STACK_DEPTH];
	uint64_t count;
};

struct keyset {
	struct key *k;
	size_t n, cap;
};

static void keyset_add(struct keyset *s, uint32_t pid, const uint64_t *ips, uint16_t nk,
		       uint16_t nu, uint64_t count)
{
	size_t i, n = nk + nu;

	for (i = 0; i < s->n; i++) {
		struct key *k = &s->k[i];

		if (k->pid == pid && k->nk == nk && k->nu == nu &&
		    !memcmp(k->ips, ips, n * 8)) {
			k->count += count;
			return;
		}
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->k = realloc(s->k, s->cap * sizeof(*s->k));
	}
	s->k[s->n] = (struct key){ .pid = pid, .nk = nk, .nu = nu, .count = count };
	memcpy(s->k[s->n].ips, ips, n * 8);
	s->n++;
}

static struct key *keyset_find(struct keyset *s, const struct key *x)
{
	for (size_t i = 0; i < s->n; i++) {
		struct key *k = &s->k[i];

		if (k->pid == x->pid && k->nk == x->nk && k->nu == x->nu &&
		    !memcmp(k->ips, x->ips, (x->nk + x->nu) * 8))
			return k;
	}
	return NULL;
}

static void stream_key(const struct kprof_record_header *h, void *arg)
{
	const char *p = (const char *)h;
	const uint16_t *nr = (const uint16_t *)(p + 48);

	if (h->type == KPROF_RECORD_SAMPLE)
		keyset_add(arg, *(const uint32_t *)(p + 32), (const uint64_t *)(p + 56),
			   nr[0], nr[1], 1);
}

/* Send AGG_DUMP on @fd: of the closed interval *@epoch, or (NULL) the tables. */
static int agg_dump_send(FIXTURE_DATA(agg) *self, int fd, const uint64_t *epoch)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_AGG_DUMP, KPROF_FAMILY_VERSION);
	m.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (epoch)
		kt_put_u64(&m, KPROF_A_AGG_EPOCH, *epoch);
	return send(fd, m.buf, m.nlh.nlmsg_len, 0) < 0 ? -errno : 0;
}

/*
 * Read an AGG_DUMP's messages on @fd into a keyset, @rxlen bytes a
 * recv(), at most @parts of them (0: to the end); returns entries read,
 * or a negative errno.
 */
static int agg_dump_recv(int fd, struct keyset *s, size_t rxlen, int parts)
{
	static char rx[1 << 16];
	int entries = 0, recvs;

	for (recvs = 0; !parts || recvs < parts; recvs++) {
		ssize_t n = recv(fd, rx, rxlen, 0);
		struct nlmsghdr *nlh;
		int len = n;

		if (n < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)rx; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			struct kt_msg one = {};
			struct nlattr *e, *a;
			uint64_t ips[2 * KPROF_MAX_STACK_DEPTH];
			uint32_t pid = 0;
			uint16_t nk = 0, nu = 0;
			uint64_t count = 0;
			int alen;

			if (nlh->nlmsg_type == NLMSG_DONE) {
				int err = *(int *)NLMSG_DATA(nlh);

				return err < 0 ? err : entries;	/* a dump's error */
			}
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			kt_parse_attrs(&one, (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN),
				       nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			e = one.tb[KPROF_A_AGG_ENTRY];
			if (!e)
				return -EPROTO;
			alen = e->nla_len - NLA_HDRLEN;
			for (a = (struct nlattr *)((char *)e + NLA_HDRLEN);
			     alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= alen;
			     alen -= NLA_ALIGN(a->nla_len),
			     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len))) {
				int plen = a->nla_len - NLA_HDRLEN;

				switch (a->nla_type & NLA_TYPE_MASK) {
				case KPROF_AGG_A_PID: pid = kt_u32(a); break;
				case KPROF_AGG_A_COUNT: count = kt_u64(a); break;
				case KPROF_AGG_A_KERNEL:
					nk = plen / 8;
					memcpy(ips, (char *)a + NLA_HDRLEN, plen);
					break;
				case KPROF_AGG_A_USER:
					nu = plen / 8;
					memcpy(ips + nk, (char *)a + NLA_HDRLEN, plen);
					break;
				}
			}
			keyset_add(s, pid, ips, nk, nu, count);
			entries++;
		}
	}
	return entries;
}

/* AGG_DUMP into a keyset; returns entries read or a negative errno. */
static int agg_dump(FIXTURE_DATA(agg) *self, struct keyset *s)
{
	int ret = agg_dump_send(self, self->fd, NULL);

	return ret ? ret : agg_dump_recv(self->fd, s, 1 << 16, 0);
}

/* Stats of the stopped session from its STOP reply. */
static void stop_stats(struct __test_metadata *_metadata, FIXTURE_DATA(agg) *self,
		       struct kt_msg *m)
{
	ASSERT_EQ(0, kt_stop(self->fd, self->family, m)) TH_LOG("%s", m->extack);
	EXPECT_EQ(kt_stat(m, KPROF_STATS_A_INVOCATIONS),
		  kt_stat(m, KPROF_STATS_A_AGG_SAMPLES) + kt_stat(m, KPROF_STATS_A_LOST_AGG_FULL) +
		  kt_stat(m, KPROF_STATS_A_LOST_AGG_RESET));
}

TEST_F(agg, counts_match_a_simultaneous_stream_in_a_crowded_table)
{
	struct keyset stream = {}, table = {};
	struct kt_tally t = {};
	struct kt_reader r;
	struct kt_msg m;
	size_t i, mismatched = 0;
	pid_t child;
	int gofd;

	/*
	 * 40 distinct stacks into 256 slots per CPU: home buckets collide.
	 * User stacks only: with kernel chains, the debug kernel's samples in
	 * the kernel (KASAN, lockdep) made more distinct keys than the table
	 * holds, and this test is about a crowded table, not a full one.
	 */
	child = spawn_stacks(800, 40, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE |
		      KPROF_SESSION_F_USER_STACK, 999, 1 << 20);
	kt_put_u32(&m, KPROF_A_SESSION_AGG_ENTRIES, 256);
	kt_put_u32(&m, KPROF_A_SESSION_PID, child);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, kt_reader_open(&r, self->nr_cpus, self->stride));
	kt_go(gofd);
	while (waitpid(child, NULL, WNOHANG) == 0) {
		kt_reader_poll(&r, 50);
		kt_reader_drain(&r, &t, stream_key, &stream);
	}
	stop_stats(_metadata, self, &m);
	kt_reader_drain(&r, &t, stream_key, &stream);
	EXPECT_EQ(0, t.bad);
	ASSERT_EQ(0, kt_stat(&m, KPROF_STATS_A_LOST_FULL));
	ASSERT_EQ(0, kt_stat(&m, KPROF_STATS_A_LOST_AGG_FULL));
	EXPECT_EQ(kt_stat(&m, KPROF_STATS_A_SAMPLES), kt_stat(&m, KPROF_STATS_A_AGG_SAMPLES));

	ASSERT_LT(0, agg_dump(self, &table));
	TH_LOG("%zu distinct stacks streamed, %zu in the tables", stream.n, table.n);
	EXPECT_LT(20, stream.n);
	EXPECT_EQ(stream.n, table.n);
	for (i = 0; i < stream.n; i++) {
		struct key *k = keyset_find(&table, &stream.k[i]);

		if (!k || k->count != stream.k[i].count)
			mismatched++;
	}
	/* every stack counted exactly as often as it was streamed: none merged */
	EXPECT_EQ(0, mismatched);
	kt_reader_close(&r);
}

TEST_F(agg, full_table_counts_its_losses)
{
	struct kt_msg m;
	pid_t child;
	int gofd;

	/* 64 slots per CPU, 120 distinct stacks: the table fills */
	child = spawn_stacks(800, 120, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_USER_STACK,
		      999, 0);
	kt_put_u32(&m, KPROF_A_SESSION_AGG_ENTRIES, KPROF_AGG_MIN_ENTRIES);
	kt_put_u32(&m, KPROF_A_SESSION_PID, child);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	kt_go(gofd);
	waitpid(child, NULL, 0);
	stop_stats(_metadata, self, &m);
	EXPECT_LT(0, kt_stat(&m, KPROF_STATS_A_LOST_AGG_FULL));
	EXPECT_LT(0, kt_stat(&m, KPROF_STATS_A_AGG_SAMPLES));
	EXPECT_EQ(0, kt_stat(&m, KPROF_STATS_A_SAMPLES));	/* no stream */
	/* (1.14) the full table's high-water mark: never past its entries */
	EXPECT_LE(kt_stat(&m, KPROF_STATS_A_AGG_HIGH), kt_stat(&m, KPROF_STATS_A_AGG_CAPACITY));
	EXPECT_LT(0, kt_stat(&m, KPROF_STATS_A_AGG_HIGH));
	EXPECT_LE(kt_stat(&m, KPROF_STATS_A_AGG_POOL_HIGH), kt_stat(&m, KPROF_STATS_A_AGG_POOL_SIZE));
}

/* Read a whole debugfs file; NULL on error. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* Sum of the counts of folded lines; -1 if a line is malformed. */
static long long folded_sum(const char *text, long *lines)
{
	long long sum = 0;
	const char *p = text;

	*lines = 0;
	while (*p) {
		const char *nl = strchr(p, '\n'), *sp;
		char *end;
		long long c;

		if (!nl)
			return -1;
		sp = p;
		for (const char *q = p; q < nl; q++)
			if (*q == ' ')
				sp = q;
		if (sp == p || sp + 1 >= nl)
			return -1;
		c = strtoll(sp + 1, &end, 10);
		if (end != nl || c <= 0)
			return -1;
		sum += c;
		++*lines;
		p = nl + 1;
	}
	return sum;
}

static uint64_t stats_row(const char *text, const char *row, int col)
{
	const char *p = strstr(text, row);
	char line[512], *tok;
	int i = 0;

	if (!p)
		return ~0ULL;
	p += strspn(p, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	for (tok = strtok(line, " "); tok && i < col; tok = strtok(NULL, " "))
		i++;
	return tok ? strtoull(tok, NULL, 10) : ~0ULL;
}

/* The address of a "binary+0xoff" user frame of this very program. */
static void *frame_addr(const char *dso_off)
{
	unsigned long start, end, pgoff, off;
	char line[512], self[256], perms[8], path[256];
	const char *plus = strrchr(dso_off, '+');
	ssize_t n;
	FILE *f;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0 || !plus)
		return NULL;
	self[n] = '\0';
	off = strtoul(plus + 1, NULL, 16);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end, perms, &pgoff,
			   path) == 5 && !strcmp(path, self) && off >= pgoff &&
		    off < pgoff + (end - start)) {
			fclose(f);
			return (void *)(start + off - pgoff);
		}
	}
	if (f)
		fclose(f);
	return NULL;
}

TEST_F(agg, debugfs_report_folded_and_stats_agree)
{
	char *report, *folded, *stats, *line, comm[32], sym[256], *save;
	const char *name = "?";
	long lines;
	long long sum;
	struct kt_msg m;
	Dl_info info;
	pid_t child;
	int gofd;

	child = spawn_child(1000, 3, true, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_USER_STACK | KPROF_SESSION_F_KERNEL_STACK, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	kt_go(gofd);
	/* the child spins 1 s, then waits, alive, until killed */
	usleep(1300000);
	report = slurp(DEBUGFS_KPROF "/report");	/* while the session runs */
	ASSERT_NE(NULL, report);
	stop_stats(_metadata, self, &m);
	free(report);

	report = slurp(DEBUGFS_KPROF "/report");	/* and after it stopped */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	folded = slurp(DEBUGFS_KPROF "/folded");
	stats = slurp(DEBUGFS_KPROF "/stats");
	ASSERT_NE(NULL, report);
	ASSERT_NE(NULL, folded);
	ASSERT_NE(NULL, stats);

	/* the child's (comm: the test's own name) hottest row is agg_hot */
	for (line = strtok_r(report, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char mark;

		if (line[0] == '#' ||
		    sscanf(line, "%*s %*s %31s [%c] %255s", comm, &mark, sym) != 3)
			continue;
		if (strncmp(comm, "kprof_agg_test", 15) || mark != '.')
			continue;
		if (dladdr(frame_addr(sym), &info) && info.dli_sname)
			name = info.dli_sname;
		break;
	}
	EXPECT_STREQ("agg_hot", name) TH_LOG("top user row: %s", sym);

	sum = folded_sum(folded, &lines);
	ASSERT_LE(0, sum) TH_LOG("malformed folded line");
	EXPECT_LT(0, lines);
	/* every counted sample is in exactly one folded line */
	EXPECT_EQ(kt_stat(&m, KPROF_STATS_A_AGG_SAMPLES), (uint64_t)sum);
	EXPECT_EQ(kt_stat(&m, KPROF_STATS_A_AGG_SAMPLES), stats_row(stats, "\nagg all", 2))
		TH_LOG("%s", stats);
	free(report);
	free(folded);
	free(stats);
}

TEST_F(agg, reset_empties_tables_and_keeps_counting)
{
	long long before, after, more;
	uint64_t at_reset, at_read, used, pool;
	char *folded, *stats;
	long lines;
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_USER_STACK, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	run_stacks(500, 5);
	folded = slurp(DEBUGFS_KPROF "/folded");
	before = folded_sum(folded, &lines);
	ASSERT_LE(0, before);
	EXPECT_LT(100, before);
	free(folded);

	/* (1.14) what the tables hold before the reset: their high-water marks keep it */
	kt_msg_init(&m, self->family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	ASSERT_EQ(0, kt_transact(self->fd, &m));
	used = kt_stat(&m, KPROF_STATS_A_AGG_USED);
	pool = kt_stat(&m, KPROF_STATS_A_AGG_POOL_USED);
	ASSERT_NE(~0ULL, used);
	ASSERT_NE(~0ULL, pool);
	EXPECT_LT(0, used);
	EXPECT_LE(used, kt_stat(&m, KPROF_STATS_A_AGG_HIGH));
	EXPECT_EQ(kt_stat(&m, KPROF_STATS_A_AGG_CAPACITY) * 24,
		  kt_stat(&m, KPROF_STATS_A_AGG_POOL_SIZE)) TH_LOG("24 frames of pool an entry");

	/* through debugfs; the netlink AGG_RESET does the same */
	stats = slurp(DEBUGFS_KPROF "/stats");
	ASSERT_NE(NULL, stats);
	at_reset = stats_row(stats, "\nagg all", 2);
	free(stats);
	ASSERT_EQ(0, kt_write_file(DEBUGFS_KPROF "/reset", "1"));
	folded = slurp(DEBUGFS_KPROF "/folded");
	after = folded_sum(folded, &lines);
	ASSERT_LE(0, after);
	free(folded);
	stats = slurp(DEBUGFS_KPROF "/stats");
	ASSERT_NE(NULL, stats);
	at_read = stats_row(stats, "\nagg all", 2);
	free(stats);
	/*
	 * Only what was aggregated between the reset and the read: at most
	 * the session's count over that window, however long the window (a
	 * loaded host stretches it: 61 of 613 once, against a bound of a
	 * tenth); a reset that kept the tables would hold all of them.
	 */
	ASSERT_NE(~0ULL, at_reset);
	ASSERT_NE(~0ULL, at_read);
	EXPECT_GE((long long)(at_read - at_reset), after)
		TH_LOG("%lld samples before, %lld after, %llu aggregated in between", before, after,
		       (unsigned long long)(at_read - at_reset));

	run_stacks(500, 5);
	folded = slurp(DEBUGFS_KPROF "/folded");
	more = folded_sum(folded, &lines);
	EXPECT_LT(after + 100, more);
	free(folded);

	kt_msg_init(&m, self->family, KPROF_CMD_AGG_RESET, KPROF_FAMILY_VERSION);
	EXPECT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_msg_init(&m, self->family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	ASSERT_EQ(0, kt_transact(self->fd, &m));
	EXPECT_EQ(KPROF_STATE_RUNNING, kt_u32(m.tb[KPROF_A_STATUS_STATE]));
	stop_stats(_metadata, self, &m);
	/* two resets later: at least the first one's occupancy, however little is left */
	EXPECT_LE(used, kt_stat(&m, KPROF_STATS_A_AGG_HIGH));
	EXPECT_LE(pool, kt_stat(&m, KPROF_STATS_A_AGG_POOL_HIGH));
	EXPECT_LE(kt_stat(&m, KPROF_STATS_A_AGG_POOL_USED), kt_stat(&m, KPROF_STATS_A_AGG_POOL_HIGH));
}

TEST_F_TIMEOUT(agg, read_in_a_loop_at_the_highest_rate, 120)
{
	unsigned int rate = 0;
	struct kt_msg m;
	pid_t child;
	int i, gofd;
	FILE *f;

	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%u", &rate));
	fclose(f);
	child = spawn_stacks(3000, 30, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE |
		      KPROF_SESSION_F_USER_STACK | KPROF_SESSION_F_KERNEL_STACK, rate, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("rate %u: %s", rate, m.extack);
	kt_go(gofd);
	for (i = 0; waitpid(child, NULL, WNOHANG) == 0; i++) {
		char *folded = slurp(DEBUGFS_KPROF "/folded");
		char *report = slurp(DEBUGFS_KPROF "/report");
		long lines;

		ASSERT_NE(NULL, folded);
		ASSERT_NE(NULL, report);
		EXPECT_LE(0, folded_sum(folded, &lines)) TH_LOG("read %d", i);
		EXPECT_NE(NULL, strstr(report, "# Overhead"));
		free(folded);
		free(report);
	}
	TH_LOG("%d reads at %u Hz", i, rate);
	stop_stats(_metadata, self, &m);
}

TEST_F(agg, refuse_bad_aggregation_input)
{
	struct keyset s = {};
	struct kt_msg m;

	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE,
		      99, 0);
	kt_put_u32(&m, KPROF_A_SESSION_AGG_ENTRIES, 1000);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("kprof: aggregation entries must be a power of two", m.extack);

	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE,
		      99, 0);
	kt_put_u32(&m, KPROF_A_SESSION_AGG_ENTRIES, 16);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-ERANGE, kt_transact(self->fd, &m));

	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
	kt_put_u32(&m, KPROF_A_SESSION_AGG_ENTRIES, 1024);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));

	/* a streaming session has no tables */
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE, 99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	kt_msg_init(&m, self->family, KPROF_CMD_AGG_RESET, KPROF_FAMILY_VERSION);
	EXPECT_EQ(-EOPNOTSUPP, kt_transact(self->fd, &m));
	EXPECT_STREQ("kprof: the session does not aggregate", m.extack);
	EXPECT_EQ(-EOPNOTSUPP, agg_dump(self, &s));
}

/* --- intervals (1.15): the tables in two halves, swapped ------------------- */

static uint64_t keyset_sum(const struct keyset *s)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < s->n; i++)
		sum += s->k[i].count;
	return sum;
}

/* AGG_SWAP of the default session; 0 or a negative errno, the reply in @m. */
static int agg_swap(FIXTURE_DATA(agg) *self, struct kt_msg *m)
{
	kt_msg_init(m, self->family, KPROF_CMD_AGG_SWAP, KPROF_FAMILY_VERSION);
	return kt_transact(self->fd, m);
}

#define INTERVALS_SESSION	(KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE | \
				 KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK | \
				 KPROF_SESSION_F_INTERVALS)

/*
 * Read every 200 ms for 6 s while stacks run: the intervals' samples and
 * what the tables hold at the stop add up to the session's samples, none
 * lost to a reset; each interval begins where the previous one ended.
 */
TEST_F_TIMEOUT(agg, intervals_add_up_to_the_balance, 120)
{
	uint64_t sum = 0, prev_end = 0, epoch = 0, samples;
	struct keyset last = {};
	int i, n, gofd, nonempty = 0;
	struct kt_msg m;
	pid_t child;

	child = spawn_stacks(6000, 8, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, INTERVALS_SESSION, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	kt_go(gofd);
	for (i = 0; waitpid(child, NULL, WNOHANG) == 0; i++) {
		struct keyset s = {};

		usleep(200000);
		ASSERT_EQ(0, agg_swap(self, &m)) TH_LOG("swap %d: %s", i, m.extack);
		ASSERT_NE(NULL, m.tb[KPROF_A_AGG_EPOCH]);
		ASSERT_NE(NULL, m.tb[KPROF_A_AGG_START_NS]);
		ASSERT_NE(NULL, m.tb[KPROF_A_AGG_END_NS]);
		EXPECT_EQ(epoch, kt_u64(m.tb[KPROF_A_AGG_EPOCH]));
		epoch = kt_u64(m.tb[KPROF_A_AGG_EPOCH]);
		if (prev_end)
			EXPECT_EQ(prev_end, kt_u64(m.tb[KPROF_A_AGG_START_NS]));
		EXPECT_LT(kt_u64(m.tb[KPROF_A_AGG_START_NS]), kt_u64(m.tb[KPROF_A_AGG_END_NS]));
		prev_end = kt_u64(m.tb[KPROF_A_AGG_END_NS]);
		n = agg_dump_send(self, self->fd, &epoch);
		ASSERT_EQ(0, n);
		n = agg_dump_recv(self->fd, &s, 1 << 16, 0);
		ASSERT_LE(0, n) TH_LOG("interval %llu: %s", (unsigned long long)epoch,
				       strerror(-n));
		sum += keyset_sum(&s);
		nonempty += n > 0;
		free(s.k);
		epoch++;
	}
	TH_LOG("%d intervals, %d with samples, %llu samples in them", i, nonempty,
	       (unsigned long long)sum);
	/* as many as the host allows in 6 s: a debug kernel's dumps are slow */
	EXPECT_LE(5, i);
	EXPECT_LE(i - 2, nonempty);
	stop_stats(_metadata, self, &m);
	samples = kt_stat(&m, KPROF_STATS_A_AGG_SAMPLES);
	EXPECT_EQ(0, kt_stat(&m, KPROF_STATS_A_LOST_AGG_RESET));
	/* what the half being written holds at the stop: the last interval */
	n = agg_dump(self, &last);
	ASSERT_LE(0, n);
	EXPECT_EQ(samples, sum + keyset_sum(&last))
		TH_LOG("%llu samples: %llu in the intervals read, %llu in the last",
		       (unsigned long long)samples, (unsigned long long)sum,
		       (unsigned long long)keyset_sum(&last));
	free(last.k);
}

/*
 * A swap while a dump reads the closed interval is refused, and the dump
 * completes; the interval is frozen: read twice, the same entries, while
 * samples go on into the other half.
 */
TEST_F(agg, swap_waits_for_the_dump_of_a_frozen_interval)
{
	struct keyset a = {}, b = {};
	int n, fd2, gofd;
	uint64_t epoch;
	struct kt_msg m;
	pid_t child;

	child = spawn_stacks(3000, 8, &gofd);
	ASSERT_LT(0, child);
	kt_start_init(&m, self->family, INTERVALS_SESSION, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	kt_go(gofd);
	usleep(1000000);
	ASSERT_EQ(0, agg_swap(self, &m)) TH_LOG("%s", m.extack);
	epoch = kt_u64(m.tb[KPROF_A_AGG_EPOCH]);

	/* a dump read in small parts, from another socket, left unfinished */
	fd2 = kt_nl_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, agg_dump_send(self, fd2, &epoch));
	n = agg_dump_recv(fd2, &a, 4096, 1);
	ASSERT_LT(0, n) TH_LOG("the first part: %s", strerror(-n));
	EXPECT_EQ(-EBUSY, agg_swap(self, &m));
	EXPECT_STREQ("kprof: the previous interval is still being read", m.extack);
	usleep(300000);
	n = agg_dump_recv(fd2, &a, 4096, 0);
	ASSERT_LE(0, n) TH_LOG("the rest: %s", strerror(-n));
	EXPECT_LT(20, a.n) TH_LOG("%zu keys: one part would do", a.n);

	/* read again, after samples went on: the same entries */
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &epoch));
	n = agg_dump_recv(self->fd, &b, 1 << 16, 0);
	ASSERT_LE(0, n);
	EXPECT_EQ(a.n, b.n);
	EXPECT_EQ(keyset_sum(&a), keyset_sum(&b));
	for (size_t i = 0; i < a.n; i++) {
		struct key *k = keyset_find(&b, &a.k[i]);

		EXPECT_TRUE(k && k->count == a.k[i].count) TH_LOG("key %zu", i);
	}

	/* an abandoned dump lets go of the interval when its socket closes */
	ASSERT_EQ(0, agg_dump_send(self, fd2, &epoch));
	free(a.k);
	a = (struct keyset){};
	ASSERT_LT(0, agg_dump_recv(fd2, &a, 4096, 1));
	EXPECT_EQ(-EBUSY, agg_swap(self, &m));
	close(fd2);
	EXPECT_EQ(0, agg_swap(self, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(epoch + 1, kt_u64(m.tb[KPROF_A_AGG_EPOCH]));
	/* the interval before is gone: cleared by this swap */
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &epoch));
	free(b.k);
	b = (struct keyset){};
	EXPECT_EQ(-ESTALE, agg_dump_recv(self->fd, &b, 1 << 16, 0));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	stop_stats(_metadata, self, &m);
	EXPECT_EQ(0, kt_stat(&m, KPROF_STATS_A_LOST_AGG_RESET));
	free(a.k);
	free(b.k);
}

/* AGG_MAPS: the kept mappings of @pid; all of them in *@all. */
static int maps_of(FIXTURE_DATA(agg) *self, uint32_t pid, int *all)
{
	static char rx[1 << 16];
	struct kt_msg m;
	int mine = 0;

	*all = 0;
	kt_msg_init(&m, self->family, KPROF_CMD_AGG_MAPS, KPROF_FAMILY_VERSION);
	m.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (send(self->fd, m.buf, m.nlh.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(self->fd, rx, sizeof(rx), 0);
		struct nlmsghdr *nlh;
		int len = n;

		if (n < 0)
			return -errno;
		for (nlh = (struct nlmsghdr *)rx; NLMSG_OK(nlh, len); nlh = NLMSG_NEXT(nlh, len)) {
			struct kt_msg one = {};
			struct nlattr *e, *a;
			int alen;

			if (nlh->nlmsg_type == NLMSG_DONE)
				return *(int *)NLMSG_DATA(nlh) < 0 ? *(int *)NLMSG_DATA(nlh) : mine;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			kt_parse_attrs(&one, (struct nlattr *)((char *)NLMSG_DATA(nlh) + GENL_HDRLEN),
				       nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			e = one.tb[KPROF_A_AGG_MAP];
			if (!e)
				return -EPROTO;
			(*all)++;
			alen = e->nla_len - NLA_HDRLEN;
			for (a = (struct nlattr *)((char *)e + NLA_HDRLEN);
			     alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= alen;
			     alen -= NLA_ALIGN(a->nla_len),
			     a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
				if ((a->nla_type & NLA_TYPE_MASK) == KPROF_MAP_A_PID && kt_u32(a) == pid)
					mine++;
		}
	}
}

/*
 * The kept mappings of gone processes go with their interval: ten
 * short-lived processes, one an interval; each interval's dump has the
 * stacks of the one that ran in it and its mappings, kept when it exited;
 * what is kept never holds more than the last two intervals' processes
 * (ten of them without the swap's release).
 */
TEST_F_TIMEOUT(agg, kept_mappings_go_with_their_interval, 120)
{
	int i, n, gofd, all, most = 0, first = 0;
	struct kt_msg m;
	uint64_t epoch;
	pid_t child;

	kt_start_init(&m, self->family, INTERVALS_SESSION, 999, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	for (i = 0; i < 10; i++) {
		struct keyset s = {};
		size_t k, stacks = 0;

		child = spawn_stacks(150, 5, &gofd);
		ASSERT_LT(0, child);
		kt_go(gofd);
		ASSERT_EQ(child, waitpid(child, NULL, 0));
		ASSERT_EQ(0, agg_swap(self, &m)) TH_LOG("%s", m.extack);
		epoch = kt_u64(m.tb[KPROF_A_AGG_EPOCH]);
		ASSERT_EQ(0, agg_dump_send(self, self->fd, &epoch));
		ASSERT_LE(0, agg_dump_recv(self->fd, &s, 1 << 16, 0));
		for (k = 0; k < s.n; k++)
			stacks += s.k[k].pid == (uint32_t)child && s.k[k].nu;
		free(s.k);
		n = maps_of(self, child, &all);
		ASSERT_LE(0, n);
		EXPECT_LT(0, stacks) TH_LOG("interval %d: no user stack of process %d", i, child);
		EXPECT_LT(0, n) TH_LOG("interval %d: no mapping kept of process %d", i, child);
		if (!i)
			first = n;
		if (all > most)
			most = all;
	}
	TH_LOG("%d mappings kept of each process, at most %d at once", first, most);
	EXPECT_LE(most, 3 * first);
	kt_stop_any(self->fd, self->family);
}

TEST_F(agg, refuse_bad_interval_input)
{
	struct keyset s = {};
	struct kt_msg m;

	/* intervals of a session that does not aggregate */
	kt_start_init(&m, self->family, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_STREAM |
		      KPROF_SESSION_F_INTERVALS, 99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("kprof: intervals need an aggregating session", m.extack);

	/* no swap of a session started without intervals */
	kt_start_init(&m, self->family, KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE,
		      99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	EXPECT_EQ(-EOPNOTSUPP, agg_swap(self, &m));
	EXPECT_STREQ("kprof: the session was not started for intervals (KPROF_SESSION_F_INTERVALS)",
		     m.extack);
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &(uint64_t){ 0 }));
	EXPECT_EQ(-EOPNOTSUPP, agg_dump_recv(self->fd, &s, 1 << 16, 0));
	kt_stop_any(self->fd, self->family);

	/* no interval read before the first swap, nor one never closed */
	kt_start_init(&m, self->family, INTERVALS_SESSION, 99, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, start(self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &(uint64_t){ 0 }));
	EXPECT_EQ(-ESTALE, agg_dump_recv(self->fd, &s, 1 << 16, 0));
	ASSERT_EQ(0, agg_swap(self, &m)) TH_LOG("%s", m.extack);
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &(uint64_t){ 1 }));
	EXPECT_EQ(-ESTALE, agg_dump_recv(self->fd, &s, 1 << 16, 0));
	ASSERT_EQ(0, agg_dump_send(self, self->fd, &(uint64_t){ ~0ULL }));
	EXPECT_EQ(-EINVAL, agg_dump_recv(self->fd, &s, 1 << 16, 0));
	kt_stop_any(self->fd, self->family);
	free(s.k);
}

TEST_HARNESS_MAIN
