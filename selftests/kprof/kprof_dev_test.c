// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/kprof and /sys/kernel/debug/kprof: present, answering, and closed to
 * callers without CAP_PERFMON or CAP_SYS_ADMIN.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define DEBUGFS_KPROF "/sys/kernel/debug/kprof"

/* Read a whole small file into @buf; bytes read or a negative errno. */
static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* The value of "key: value" in @text, copied to @val. */
static bool kv(const char *text, const char *key, char *val, size_t len)
{
	const char *p = text;
	size_t klen = strlen(key);

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':' && p[klen + 1] == ' ') {
			snprintf(val, len, "%.*s", (int)strcspn(p + klen + 2, "\n"),
				 p + klen + 2);
			return true;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

FIXTURE(dev) {
	char unused;
};

FIXTURE_SETUP(dev)
{
	struct stat st;
	int ret = kt_ensure_loaded();

	ASSERT_EQ(0, ret) TH_LOG("cannot load %s: %s", kt_ko_path(), strerror(-ret));
	if (stat("/sys/kernel/debug/kprof", &st))
		TH_LOG("debugfs not mounted at /sys/kernel/debug?");
}

FIXTURE_TEARDOWN(dev)
{
}

TEST_F(dev, node_is_0600_char_device)
{
	struct stat st;

	ASSERT_EQ(0, stat(KPROF_DEVICE_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
}

TEST_F(dev, open_counts_readers)
{
	char buf[1024], val[64];
	int fd;

	fd = open(KPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_LT(0, read_file(DEBUGFS_KPROF "/status", buf, sizeof(buf)));
	ASSERT_TRUE(kv(buf, "readers", val, sizeof(val)));
	EXPECT_STREQ("1", val);
	close(fd);
	ASSERT_LT(0, read_file(DEBUGFS_KPROF "/status", buf, sizeof(buf)));
	ASSERT_TRUE(kv(buf, "readers", val, sizeof(val)));
	EXPECT_STREQ("0", val);
}

/*
 * Neither the device nor debugfs's reset file can seek: both leave
 * .llseek NULL, which the VFS turns into ESPIPE on 6.1 and 6.12 alike
 * (6.12 has no no_llseek any more).
 */
TEST_F(dev, device_and_reset_file_do_not_seek)
{
	int fd;

	fd = open(KPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
	fd = open(DEBUGFS_KPROF "/reset", O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open reset: %s", strerror(errno));
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_CUR));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

TEST_F(dev, debugfs_version)
{
	char buf[512], val[128], rel[128] = "";
	FILE *f;

	ASSERT_LT(0, read_file(DEBUGFS_KPROF "/version", buf, sizeof(buf)));
	ASSERT_TRUE(kv(buf, "release", val, sizeof(val)));
	EXPECT_LT(0, strlen(val));
	ASSERT_TRUE(kv(buf, "abi", val, sizeof(val)));
	snprintf(rel, sizeof(rel), "%u.%u", KPROF_ABI_MAJOR, KPROF_ABI_MINOR);
	EXPECT_STREQ(rel, val);
	ASSERT_TRUE(kv(buf, "kernel", val, sizeof(val)));
	f = fopen("/proc/sys/kernel/osrelease", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(rel, sizeof(rel), f));
	fclose(f);
	rel[strcspn(rel, "\n")] = '\0';
	EXPECT_STREQ(rel, val);
}

TEST_F(dev, debugfs_status)
{
	char buf[1024], val[64];

	ASSERT_LT(0, read_file(DEBUGFS_KPROF "/status", buf, sizeof(buf)));
	ASSERT_TRUE(kv(buf, "state", val, sizeof(val)));
	EXPECT_STREQ("idle", val);
	ASSERT_TRUE(kv(buf, "cpus_online", val, sizeof(val)));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), atol(val));
	ASSERT_TRUE(kv(buf, "cpus_possible", val, sizeof(val)));
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF), atol(val));
	EXPECT_TRUE(kv(buf, "sessions", val, sizeof(val)));
	EXPECT_TRUE(kv(buf, "loaded_ns", val, sizeof(val)));
}

/* In a child with reduced privilege, open @path; the child's errno or 0. */
static int open_as(struct __test_metadata *_metadata, int (*drop)(void),
		   const char *path)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd;

		if (drop())
			_exit(100);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		_exit(fd < 0 ? errno : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	return WEXITSTATUS(status);
}

TEST_F(dev, nobody_cannot_open_device)
{
	EXPECT_EQ(EACCES, open_as(_metadata, kt_become_nobody, KPROF_DEVICE_PATH));
}

TEST_F(dev, root_without_perfmon_cannot_open_device)
{
	/* file mode allows root; only kprof's own check can refuse */
	EXPECT_EQ(EPERM, open_as(_metadata, kt_drop_perfmon, KPROF_DEVICE_PATH));
}

TEST_F(dev, root_without_perfmon_cannot_read_debugfs_status)
{
	EXPECT_EQ(EPERM, open_as(_metadata, kt_drop_perfmon, DEBUGFS_KPROF "/status"));
}

TEST_F(dev, root_without_perfmon_can_read_debugfs_version)
{
	EXPECT_EQ(0, open_as(_metadata, kt_drop_perfmon, DEBUGFS_KPROF "/version"));
}

TEST_HARNESS_MAIN
