// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/daemon.c: --format parsing, the boundaries on
 * multiples of the interval, the profile names and their parsing back,
 * retention by --keep, --max-age and --max-size over whole intervals
 * (never another file, never the newest interval), the directory lock,
 * and 'kprofctl daemon''s refusals of bad options, one line each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/daemon.h"
#include "lib/error.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

#define SEC	1000000000ULL

static char root[64];

static void test_formats(void)
{
	unsigned int mask;
	struct kp_err err;

	ok(!kp_daemon__parse_formats("kprof", &mask, &err) && mask == 1U << KP_DAEMON_KPROF,
	   "--format kprof");
	ok(!kp_daemon__parse_formats("pprof,folded,kprof", &mask, &err) && mask == 7,
	   "--format pprof,folded,kprof: all three");
	ok(kp_daemon__parse_formats("pprof,svg", &mask, &err) == -EINVAL &&
	   strstr(err.msg, "'svg'"), "--format pprof,svg: refused naming svg (%s)", err.msg);
	ok(kp_daemon__parse_formats("", &mask, &err) == -EINVAL, "--format '': refused");
	ok(kp_daemon__parse_formats("kprof,", &mask, &err) == -EINVAL, "--format 'kprof,': refused");
	is_str(kp_daemon__ext(KP_DAEMON_PPROF), "pb.gz", "pprof files end in .pb.gz");
}

static void test_boundaries(void)
{
	uint64_t i = 60 * SEC;

	/* 2026-12-07 13:15:10 UTC */
	is_int(kp_daemon__next_boundary(1796649310ULL * SEC, i), 1796649360ULL * SEC,
	       "60 s: 13:15:10 -> 13:16:00");
	is_int(kp_daemon__next_boundary(1796649340ULL * SEC, i), 1796649420ULL * SEC,
	       "60 s: 13:15:40 -> 13:17:00 (20 s is under half an interval)");
	is_int(kp_daemon__next_boundary(1796649360ULL * SEC, i), 1796649420ULL * SEC,
	       "60 s: on a boundary -> the next one");
	is_int(kp_daemon__next_boundary(1796649360ULL * SEC + 1, 5 * SEC), 1796649365ULL * SEC,
	       "5 s: just after a boundary -> 5 s on");
}

static void test_names(void)
{
	enum kp_daemon_format fmt;
	uint64_t start, end, seq;
	size_t base;
	char buf[96];

	ok(!kp_daemon__name(buf, sizeof(buf), 1796649300ULL * SEC + 3000000,
			    1796649360ULL * SEC + 2000000, 42), "a name");
	is_str(buf, "kprof-20261207T131500Z-20261207T131600Z-000042", "UTC start, end, sequence");
	strcat(buf, ".pb.gz");
	ok(kp_daemon__parse_name(buf, &start, &end, &seq, &fmt, &base) && start == 1796649300ULL &&
	   end == 1796649360ULL &&
	   seq == 42 && fmt == KP_DAEMON_PPROF && base == strlen(buf) - 6,
	   "parsed back: start, end, seq, format, base length");
	ok(kp_daemon__parse_name("kprof-20261207T131500Z-20261207T131600Z-1234567.folded", &start, &end,
				 &seq, &fmt, &base) && seq == 1234567,
	   "a sequence of 7 digits");
	ok(!kp_daemon__parse_name("kprof-20261207T131500Z-20261207T131600Z-000042.svg", &start, &end, &seq,
				  &fmt, &base), "another extension: not ours");
	ok(!kp_daemon__parse_name("kprof-20261207T131600Z-20261207T131500Z-000042.kprof", &start, &end,
				  &seq, &fmt, &base), "an end before the start: not ours");
	ok(!kp_daemon__parse_name("kprof-20261207T131500Z-20261207T131600Z-42.kprof", &start, &end, &seq,
				  &fmt, &base), "a short sequence: not ours");
	ok(!kp_daemon__parse_name(".kprof-20261207T131500Z-20261207T131600Z-000042.kprof.tmp", &start, &end, &seq, &fmt, &base), "a temporary file: not a profile");
	ok(!kp_daemon__parse_name("perf.data", &start, &end, &seq, &fmt, &base), "perf.data: not ours");
}

/* Interval @seq ending at minute @min after 13:00 of 2026-12-07, @bytes in each format. */
static void put_interval(const char *dir, uint64_t seq, unsigned int min, size_t bytes,
			 unsigned int formats)
{
	uint64_t end = 1796648400ULL + min * 60ULL;
	char base[96], rel[160], *text;
	unsigned int f;

	kp_daemon__name(base, sizeof(base), (end - 60) * SEC, end * SEC, seq);
	text = malloc(bytes + 1);
	memset(text, 'x', bytes);
	text[bytes] = '\0';
	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++) {
		if (!(formats & (1U << f)))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s.%s", dir, base, kp_daemon__ext(f));
		tmpdir__write(root, rel, text);
	}
	free(text);
}

static bool has_interval(const char *dir, uint64_t seq, unsigned int min, const char *ext)
{
	uint64_t end = 1796648400ULL + min * 60ULL;
	char base[96], path[4096];

	kp_daemon__name(base, sizeof(base), (end - 60) * SEC, end * SEC, seq);
	snprintf(path, sizeof(path), "%s/%s/%s.%s", root, dir, base, ext);
	return !access(path, F_OK);
}

static void test_retention(void)
{
	struct kp_daemon_conf c = { .cmd = "daemon" };
	struct kp_daemon_retention r;
	struct kp_err err;
	char dir[4096];
	unsigned int i;
	int ret;

	/* --keep 3 over 6 intervals in two formats, beside files not ours */
	snprintf(dir, sizeof(dir), "%s/keep", root);
	for (i = 1; i <= 6; i++)
		put_interval("keep", i, i, 10, 1U << KP_DAEMON_KPROF | 1U << KP_DAEMON_PPROF);
	tmpdir__write(root, "keep/perf.data", "mine");
	tmpdir__write(root, "keep/kprof-notes.txt", "mine");
	c.dir = dir;
	c.keep = 3;
	ret = kp_daemon__retain(&c, 1796648400ULL * SEC, &r, &err);
	ok(!ret && r.removed == 3 && r.intervals == 3 && r.bytes == 60,
	   "--keep 3: three intervals removed, three left, 60 bytes (%u, %u, %llu)", r.removed,
	   r.intervals, (unsigned long long)r.bytes);
	ok(!has_interval("keep", 3, 3, "kprof") && !has_interval("keep", 3, 3, "pb.gz") &&
	   has_interval("keep", 4, 4, "kprof") && has_interval("keep", 6, 6, "pb.gz"),
	   "the oldest went, every format of each");
	ok(tmpdir__count(dir, "perf.data") == 1 && tmpdir__count(dir, "kprof-notes") == 1,
	   "files not the daemon's stay");

	/* --max-age 10m at 13:30: intervals that ended before 13:20 go */
	snprintf(dir, sizeof(dir), "%s/age", root);
	for (i = 1; i <= 6; i++)
		put_interval("age", i, 5 * i, 10, 1U << KP_DAEMON_FOLDED);
	c = (struct kp_daemon_conf){ .cmd = "daemon", .dir = dir, .max_age_ns = 600 * SEC };
	ok(!kp_daemon__retain(&c, (1796648400ULL + 30 * 60) * SEC, &r, &err) && r.removed == 3 &&
	   has_interval("age", 4, 20, "folded") && !has_interval("age", 3, 15, "folded"),
	   "--max-age 10m: the three that ended before 13:20 removed (%u)", r.removed);
	ok(!kp_daemon__retain(&c, (1796648400ULL + 300 * 60) * SEC, &r, &err) && r.removed == 2 &&
	   r.intervals == 1 && has_interval("age", 6, 30, "folded"),
	   "--max-age long past every end: the newest stays");

	/* --max-size 250 bytes over 5 x 100 */
	snprintf(dir, sizeof(dir), "%s/size", root);
	for (i = 1; i <= 5; i++)
		put_interval("size", i, i, 100, 1U << KP_DAEMON_KPROF);
	c = (struct kp_daemon_conf){ .cmd = "daemon", .dir = dir, .max_size = 250 };
	ret = kp_daemon__retain(&c, 1796648400ULL * SEC, &r, &err);
	ok(!ret && r.removed == 3 && r.bytes == 200 && has_interval("size", 4, 4, "kprof"),
	   "--max-size 250: the oldest three removed, 200 bytes left (%u, %llu)", r.removed,
	   (unsigned long long)r.bytes);

	/* a restarted daemon counts from 1 again: order by end first */
	snprintf(dir, sizeof(dir), "%s/restart", root);
	put_interval("restart", 7, 1, 10, 1U << KP_DAEMON_KPROF);
	put_interval("restart", 8, 2, 10, 1U << KP_DAEMON_KPROF);
	put_interval("restart", 1, 3, 10, 1U << KP_DAEMON_KPROF);
	c = (struct kp_daemon_conf){ .cmd = "daemon", .dir = dir, .keep = 1 };
	ok(!kp_daemon__retain(&c, 1796648400ULL * SEC, &r, &err) && r.removed == 2 &&
	   has_interval("restart", 1, 3, "kprof"),
	   "after a restart: the newest by its end stays (seq 1, not seq 8)");

	c.dir = "/nonexistent/kprof";
	ok(kp_daemon__retain(&c, 0, &r, &err) == -ENOENT && strstr(err.msg, "/nonexistent/kprof"),
	   "a missing directory: an error naming it");
}

static void test_lock(void)
{
	struct kp_err err;
	char dir[4096];
	int fd, status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/lock", root);
	tmpdir__mkdir(root, "lock");
	tmpdir__write(root, "lock/.kprof-20261207T131500Z-20261207T131600Z-000001.kprof.tmp", "x");
	tmpdir__write(root, "lock/.other.kprof.tmp", "x");
	fd = kp_daemon__lock(dir, &err);
	ok(fd >= 0, "the first daemon locks the directory");
	ok(tmpdir__count(dir, ".kprof-2026") == 0 && tmpdir__count(dir, ".other") == 1,
	   "its stale temporary profiles removed, nothing else");
	pid = fork();
	if (!pid) {
		int again = kp_daemon__lock(dir, &err);
		char want[64];

		snprintf(want, sizeof(want), "(pid %d)", (int)getppid());
		_exit(again == -EBUSY && strstr(err.msg, want) ? 0 : 1);
	}
	ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	   !WEXITSTATUS(status), "a second daemon is refused, naming the first's pid");
	{
		struct run r;
		char want[4200];

		snprintf(want, sizeof(want), "another daemon (pid %d) writes to '%s'",
			 (int)getpid(), dir);
		kprofctl(&r, "daemon", "-e", "cpu-clock", "--output-dir", dir, NULL);
		ok(r.rc == KP_EXIT_FAILURE && strstr(r.err, want) && !strchr(r.err, '\n')[1],
		   "kprofctl daemon on a locked directory: exit 1, one line naming the holder (%.*s)",
		   (int)strcspn(r.err, "\n"), r.err);
		run_free(&r);
	}
	close(fd);
	fd = kp_daemon__lock(dir, &err);
	ok(fd >= 0, "once the first ends, another may lock it");
	close(fd);
}

static void test_refusals(void)
{
	static const struct {
		const char *args[4];
		const char *want;
	} bad[] = {
		{ { "--interval", "500ms" }, "bad --interval '500ms'" },
		{ { "--interval", "25h" }, "bad --interval '25h'" },
		{ { "--format", "pprof,png" }, "bad --format 'png'" },
		{ { "--max-age", "soon" }, "bad --max-age 'soon'" },
		{ { "--max-size", "0" }, "bad --max-size '0'" },
		{ { "--output-dir", "" }, "empty --output-dir" },
		{ { "-F", "fast" }, "fast" },
		{ { "--tag", "env=test" }, "--tag needs --upload" },
		{ { "--upload", "ftp://127.0.0.1/" }, "bad upload URL 'ftp://127.0.0.1/'" },
		{ { "--upload-timeout", "soon" }, "--upload-timeout needs --upload" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *nl;
		struct run r;

		kprofctl(&r, "daemon", bad[i].args[0], bad[i].args[1], NULL);
		nl = r.err ? strchr(r.err, '\n') : NULL;
		ok(r.rc == KP_EXIT_USAGE && strstr(r.err, bad[i].want) && nl && !nl[1],
		   "daemon %s '%s': a usage error in one line naming it (%.*s)", bad[i].args[0],
		   bad[i].args[1], r.err ? (int)strcspn(r.err, "\n") : 0, r.err ? r.err : "");
		run_free(&r);
	}
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	test_formats();
	test_boundaries();
	test_names();
	test_retention();
	test_lock();
	test_refusals();
	tmpdir__remove(root);
	return done_testing();
}
