// SPDX-License-Identifier: GPL-2.0
/*
 * kprof generic netlink family: the answers to good requests, the refusals
 * of malformed and unprivileged ones (errno and extack text both asserted).
 */
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

FIXTURE(genl) {
	int fd;
	int family;
};

FIXTURE_SETUP(genl)
{
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	self->fd = kt_nl_open();
	ASSERT_LE(0, self->fd);
	self->family = kt_family(self->fd, KPROF_FAMILY_NAME);
	ASSERT_LT(0, self->family) TH_LOG("family " KPROF_FAMILY_NAME " not registered");
}

FIXTURE_TEARDOWN(genl)
{
	close(self->fd);
}

TEST_F(genl, version)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	kt_put_str(&m, KPROF_A_VERSION_CLIENT, "kprof selftest");
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	ASSERT_NE(NULL, m.tb[KPROF_A_VERSION_ABI]);
	EXPECT_EQ(KPROF_ABI_VERSION, kt_u32(m.tb[KPROF_A_VERSION_ABI]));
	ASSERT_NE(NULL, m.tb[KPROF_A_VERSION_RELEASE]);
	EXPECT_LT(0, strlen(kt_str(m.tb[KPROF_A_VERSION_RELEASE])));
	ASSERT_NE(NULL, m.tb[KPROF_A_VERSION_KERNEL]);
}

TEST_F(genl, version_kernel_release_matches_uname)
{
	char rel[128] = "";
	struct kt_msg m;
	FILE *f;

	f = fopen("/proc/sys/kernel/osrelease", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(rel, sizeof(rel), f));
	fclose(f);
	rel[strcspn(rel, "\n")] = '\0';

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	ASSERT_EQ(0, kt_transact(self->fd, &m));
	ASSERT_NE(NULL, m.tb[KPROF_A_VERSION_KERNEL]);
	EXPECT_STREQ(rel, kt_str(m.tb[KPROF_A_VERSION_KERNEL]));
}

TEST_F(genl, version_abi_major_mismatch)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_VERSION_ABI, (KPROF_ABI_MAJOR + 1) << 16);
	EXPECT_EQ(-EPROTO, kt_transact(self->fd, &m));
	EXPECT_NE(NULL, strstr(m.extack, "ABI major")) TH_LOG("extack: '%s'", m.extack);
}

TEST_F(genl, status)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	ASSERT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_STATE]);
	EXPECT_EQ(KPROF_STATE_IDLE, kt_u32(m.tb[KPROF_A_STATUS_STATE]));
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_NR_CPUS]);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), kt_u32(m.tb[KPROF_A_STATUS_NR_CPUS]));
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_ONLINE_CPUS]);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), kt_u32(m.tb[KPROF_A_STATUS_ONLINE_CPUS]));
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_SESSIONS]);
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_READERS]);
	EXPECT_EQ(0, kt_u32(m.tb[KPROF_A_STATUS_READERS]));
	ASSERT_NE(NULL, m.tb[KPROF_A_STATUS_LOADED_NS]);
	EXPECT_LT(0, kt_u64(m.tb[KPROF_A_STATUS_LOADED_NS]));
}

/* One bad field in an otherwise valid request each time. */

TEST_F(genl, reject_unknown_attribute)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	kt_put_u32(&m, 200, 1);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("Unknown attribute type", m.extack);
}

TEST_F(genl, reject_attribute_not_for_this_op)
{
	struct kt_msg m;

	/* a known attribute, but one VERSION does not take */
	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_STATUS_STATE, 1);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("Unknown attribute type", m.extack);
}

TEST_F(genl, reject_attribute_on_status)
{
	struct kt_msg m;

	/* STATUS takes no attributes at all */
	kt_msg_init(&m, self->family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_LT(0, strlen(m.extack));
}

TEST_F(genl, reject_wrong_type)
{
	uint64_t wide = KPROF_ABI_VERSION;
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put(&m, KPROF_A_VERSION_ABI, &wide, sizeof(wide));
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("invalid attribute length", m.extack);
}

TEST_F(genl, reject_short_u32)
{
	uint16_t narrow = 1;
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put(&m, KPROF_A_VERSION_ABI, &narrow, sizeof(narrow));
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_LT(0, strlen(m.extack));
}

TEST_F(genl, reject_oversized_string)
{
	char name[KPROF_CLIENT_NAME_MAX + 16];
	struct kt_msg m;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_str(&m, KPROF_A_VERSION_CLIENT, name);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("Attribute failed policy validation", m.extack);
}

TEST_F(genl, accept_longest_string)
{
	char name[KPROF_CLIENT_NAME_MAX];
	struct kt_msg m;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_str(&m, KPROF_A_VERSION_CLIENT, name);
	EXPECT_EQ(0, kt_transact(self->fd, &m)) TH_LOG("%s", m.extack);
}

TEST_F(genl, reject_unterminated_string)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put(&m, KPROF_A_VERSION_CLIENT, "abc", 3);
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_LT(0, strlen(m.extack));
}

TEST_F(genl, reject_truncated_attribute)
{
	struct kt_msg m;
	struct nlattr *a;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_put_u32(&m, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	/* claim more payload than the message holds */
	a = (struct nlattr *)(m.buf + NLMSG_LENGTH(GENL_HDRLEN));
	a->nla_len = 64;
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
}

TEST_F(genl, reject_reserved_header_field)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
	kt_genl_hdr(&m)->reserved = 1;
	EXPECT_EQ(-EINVAL, kt_transact(self->fd, &m));
	EXPECT_STREQ("genlmsghdr.reserved field is not 0", m.extack);
}

TEST_F(genl, reject_unknown_command)
{
	struct kt_msg m;

	kt_msg_init(&m, self->family, KPROF_CMD_MAX + 50, KPROF_FAMILY_VERSION);
	EXPECT_EQ(-EOPNOTSUPP, kt_transact(self->fd, &m));
}

/* Send @cmd (a dump with @dump) from a child with reduced privilege; the child's errno. */
static int request_as(struct __test_metadata *_metadata, int self_family,
		      int (*drop)(void), int cmd, bool dump, char *extack, size_t len)
{
	int pipefd[2];
	int status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kt_msg m;
		int fd;

		close(pipefd[0]);
		if (drop())
			_exit(100);
		fd = kt_nl_open();
		if (fd < 0)
			_exit(101);
		kt_msg_init(&m, self_family, cmd, KPROF_FAMILY_VERSION);
		if (dump)
			m.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		kt_transact(fd, &m);
		if (write(pipefd[1], m.extack, strlen(m.extack) + 1) < 0)
			_exit(102);
		_exit(-m.err);
	}
	close(pipefd[1]);
	memset(extack, 0, len);
	if (read(pipefd[0], extack, len - 1) < 0)
		extack[0] = '\0';
	close(pipefd[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int status_as(struct __test_metadata *_metadata, int self_family,
		     int (*drop)(void), char *extack, size_t len)
{
	return request_as(_metadata, self_family, drop, KPROF_CMD_STATUS, false, extack, len);
}

TEST_F(genl, unprivileged_nobody_refused)
{
	char extack[256];

	EXPECT_EQ(EPERM, status_as(_metadata, self->family, kt_become_nobody,
				   extack, sizeof(extack)));
	EXPECT_NE(NULL, strstr(extack, "CAP_PERFMON")) TH_LOG("extack: '%s'", extack);
}

TEST_F(genl, root_without_perfmon_refused)
{
	char extack[256];

	EXPECT_EQ(EPERM, status_as(_metadata, self->family, kt_drop_perfmon,
				   extack, sizeof(extack)));
	EXPECT_NE(NULL, strstr(extack, "CAP_PERFMON")) TH_LOG("extack: '%s'", extack);
}

/* Dumps get no pre_doit: each checks, and its refusal carries the message too. */
TEST_F(genl, unprivileged_dumps_refused)
{
	static const int dumps[] = { KPROF_CMD_STATS, KPROF_CMD_AGG_DUMP, KPROF_CMD_HIST_DUMP,
				     KPROF_CMD_COUNT_READ };
	char extack[256];

	for (unsigned int i = 0; i < sizeof(dumps) / sizeof(dumps[0]); i++) {
		EXPECT_EQ(EPERM, request_as(_metadata, self->family, kt_drop_perfmon, dumps[i],
					    true, extack, sizeof(extack))) TH_LOG("command %d", dumps[i]);
		EXPECT_NE(NULL, strstr(extack, "CAP_PERFMON"))
			TH_LOG("command %d: extack '%s'", dumps[i], extack);
	}
}

static int keep_privilege(void)
{
	return 0;
}

TEST_F(genl, privileged_child_allowed)
{
	char extack[256];

	/* the same path as the refusals above, with privilege kept */
	EXPECT_EQ(0, status_as(_metadata, self->family, keep_privilege,
			       extack, sizeof(extack)));
}

TEST_F(genl, unprivileged_version_allowed)
{
	int pid, status;

	/* VERSION is discoverable by anyone: it reveals no profiling data */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct kt_msg m;
		int fd;

		if (kt_become_nobody())
			_exit(100);
		fd = kt_nl_open();
		kt_msg_init(&m, self->family, KPROF_CMD_VERSION, KPROF_FAMILY_VERSION);
		_exit(kt_transact(fd, &m) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_HARNESS_MAIN
