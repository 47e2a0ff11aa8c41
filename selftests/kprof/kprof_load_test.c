// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.ko loads and unloads cleanly, any number of times, and each time
 * registers and removes all its parts: the netlink family, /dev/kprof and
 * /sys/kernel/debug/kprof.
 */
#include <sys/stat.h>
#include <time.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

/*
 * 50 cycles, or as many as fit in 20 s past the first 10: the harness
 * gives a test 30 s, and the debug kernel (KASAN, lockdep) takes about
 * 0.6 s a cycle.
 */
#define LOAD_CYCLES		50
#define LOAD_CYCLES_MIN		10
#define LOAD_SECONDS		20

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool path_exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

TEST(load_unload_cycles)
{
	double t0 = now_s();
	int i, ret;

	if (kt_kprof_loaded())
		ASSERT_EQ(0, kt_unload());

	for (i = 0; i < LOAD_CYCLES; i++) {
		if (i >= LOAD_CYCLES_MIN && now_s() - t0 > LOAD_SECONDS) {
			TH_LOG("%d cycles in %.1f s", i, now_s() - t0);
			break;
		}
		struct kt_msg m;
		struct stat st;
		int fd, family;

		ret = kt_load();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: load %s: %s", i, kt_ko_path(),
					 strerror(-ret));

		fd = kt_nl_open();
		ASSERT_LE(0, fd);
		family = kt_family(fd, KPROF_FAMILY_NAME);
		ASSERT_LT(0, family) TH_LOG("cycle %d: family missing", i);
		kt_msg_init(&m, family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
		ASSERT_EQ(0, kt_transact(fd, &m)) TH_LOG("cycle %d: %s", i, m.extack);
		close(fd);

		ASSERT_EQ(0, stat(KPROF_DEVICE_PATH, &st)) TH_LOG("cycle %d", i);
		ASSERT_TRUE(S_ISCHR(st.st_mode));
		ASSERT_EQ(0600, st.st_mode & 07777);
		ASSERT_TRUE(path_exists("/sys/kernel/debug/kprof/status"));

		ret = kt_unload();
		ASSERT_EQ(0, ret) TH_LOG("cycle %d: unload: %s", i, strerror(-ret));
		ASSERT_FALSE(kt_kprof_loaded()) TH_LOG("cycle %d: family left behind", i);
		ASSERT_FALSE(path_exists(KPROF_DEVICE_PATH));
		ASSERT_FALSE(path_exists("/sys/kernel/debug/kprof"));
	}
	/* leave it loaded for the tests that follow */
	ASSERT_EQ(0, kt_load());
}

TEST(double_load_refused)
{
	ASSERT_EQ(0, kt_ensure_loaded());
	EXPECT_EQ(-EEXIST, kt_load());
	EXPECT_TRUE(kt_kprof_loaded());
}

TEST(unload_refused_while_device_open)
{
	int fd;

	ASSERT_EQ(0, kt_ensure_loaded());
	fd = open(KPROF_DEVICE_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	/* an open file pins the module: O_NONBLOCK unload must fail, not hang */
	EXPECT_EQ(-EWOULDBLOCK, kt_unload());
	close(fd);
	EXPECT_EQ(0, kt_unload());
	ASSERT_EQ(0, kt_load());
}

TEST_HARNESS_MAIN
