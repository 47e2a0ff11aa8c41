// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/workload.c: the command of record, stat and latency,
 * forked waiting for the go, its exec failures and its exit status.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/util.h"
#include "lib/workload.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64];

/* Run "sh -c @script" to its end; returns its exit code, -1 if it could not run. */
static int run_sh(const char *script, const sigset_t *sigmask)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	struct kp_workload wl = KP_WORKLOAD_INIT;
	struct kp_err err;
	int code = -1;

	if (kp_workload__prepare(&wl, argv, sigmask, &err)) {
		diag("prepare: %s", err.msg);
		return -1;
	}
	if (kp_workload__start(&wl, &err))
		diag("start: %s", err.msg);
	else if (kp_workload__reap(&wl, true))
		code = kp_workload__exit_code(&wl);
	kp_workload__abort(&wl, SIGKILL);
	return code;
}

static void test_exit_status(void)
{
	const char *argv[] = { "sh", "-c", "exit 0", NULL };
	struct kp_workload wl = KP_WORKLOAD_INIT;
	struct kp_err err;

	is_int(run_sh("exit 0", NULL), 0, "exit 0: 0");
	is_int(run_sh("exit 3", NULL), 3, "exit 3: 3");
	is_int(run_sh("exit 255", NULL), 255, "exit 255: 255");
	is_int(run_sh("kill -KILL $$", NULL), 128 + SIGKILL, "killed by SIGKILL: 137");
	/* a command that runs and exits 127 is not an exec failure */
	is_int(run_sh("exit 127", NULL), 127, "a command's own exit 127");

	ok(!kp_workload__prepare(&wl, argv, NULL, &err) && wl.pid > 0 && wl.go_fd >= 0 &&
	   wl.err_fd >= 0 && !wl.reaped, "prepare: a child and its pipes");
	ok(!kp_workload__start(&wl, &err) && !wl.exec_errno && wl.go_fd < 0 && wl.err_fd < 0,
	   "start: exec'd, the pipes closed");
	ok(kp_workload__reap(&wl, true) && wl.reaped && kp_workload__exit_code(&wl) == 0,
	   "reap: exit 0");
	ok(wl.ru.ru_maxrss > 0, "reap: the command's resource usage");
	ok(kp_workload__reap(&wl, false) && kp_workload__reap(&wl, true), "reap again: no wait");
	kp_workload__abort(&wl, SIGKILL);
}

/* perf's message and 127 when the command cannot run. */
static void check_exec_failure(const char *name, int errnum, const char *desc)
{
	const char *argv[] = { name, "arg", NULL };
	struct kp_workload wl = KP_WORKLOAD_INIT;
	char want[512];
	struct kp_err err;
	int ret;

	snprintf(want, sizeof(want), "workload failed: cannot run '%s': %s", name,
		 strerror(errnum));
	ok(!kp_workload__prepare(&wl, argv, NULL, &err), "%s: prepare", desc);
	ret = kp_workload__start(&wl, &err);
	is_int(ret, -errnum, "%s: start fails with -%s", desc, strerrorname_np(errnum));
	is_int(wl.exec_errno, errnum, "%s: exec_errno", desc);
	is_str(err.msg, want, "%s: perf's message", desc);
	is_int(err.errnum, errnum, "%s: err.errnum", desc);
	ok(wl.reaped && kp_workload__exit_code(&wl) == 127, "%s: reaped, exit code 127", desc);
	kp_workload__abort(&wl, SIGKILL);
}

static void test_exec_failure(void)
{
	char path[128];

	check_exec_failure("/nonexistent/cmd", ENOENT, "no such file");
	check_exec_failure("kprofctl-test-no-such-command", ENOENT, "not in PATH");
	/* not executable (root too needs an x bit) */
	tmpdir__write(root, "not-exec", "#!/bin/sh\nexit 0\n");
	snprintf(path, sizeof(path), "%s/not-exec", root);
	check_exec_failure(path, EACCES, "not executable");
}

static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = '\0';
	fp = fopen(path, "r");
	if (!fp)
		return;
	if (!fgets(buf, len, fp))
		buf[0] = '\0';
	fclose(fp);
}

/* The child runs nothing before the go: the session is started first. */
static void test_waits_for_go(void)
{
	char script[256], mark[128], self[32], child[32];
	const char *argv[] = { "sh", "-c", script, NULL };
	struct kp_workload wl = KP_WORKLOAD_INIT;
	struct stat st;
	struct kp_err err;

	snprintf(mark, sizeof(mark), "%s/ran", root);
	snprintf(script, sizeof(script), ": > %s", mark);
	read_comm(getpid(), self, sizeof(self));

	ok(!kp_workload__prepare(&wl, argv, NULL, &err), "go: prepare");
	usleep(200000);
	read_comm(wl.pid, child, sizeof(child));
	ok(!kp_workload__reap(&wl, false) && stat(mark, &st) && errno == ENOENT,
	   "go: before it, the command has not run");
	is_str(child, self, "go: before it, the child is still this program");
	ok(!kp_workload__start(&wl, &err) && kp_workload__reap(&wl, true) &&
	   kp_workload__exit_code(&wl) == 0 && !stat(mark, &st), "go: after it, the command ran");
	kp_workload__abort(&wl, SIGKILL);
	unlink(mark);

	/* never started: the abort ends it, the command never runs */
	wl = (struct kp_workload)KP_WORKLOAD_INIT;
	ok(!kp_workload__prepare(&wl, argv, NULL, &err), "abort: prepare");
	kp_workload__abort(&wl, SIGKILL);
	ok(wl.reaped && wl.go_fd < 0 && wl.err_fd < 0 && stat(mark, &st) && errno == ENOENT,
	   "abort: reaped, the command never ran");
	kp_workload__abort(&wl, SIGKILL);
	ok(wl.reaped, "abort twice");
}

static void test_signals(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int;
	sigset_t term, old_mask;

	/* SIGINT is the command's again, even when kprofctl ignores it */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	is_int(run_sh("kill -INT $$; exit 0", NULL), 128 + SIGINT, "SIGINT back to its default");
	sigaction(SIGINT, &old_int, NULL);

	/* kprofctl blocks SIGTERM; the command starts with @sigmask */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old_mask);
	is_int(run_sh("kill -TERM $$; exit 0", &old_mask), 128 + SIGTERM,
	       "the command starts with the mask given");
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
}

/* No command (-a, -p): nothing to reap or end. */
static void test_none(void)
{
	struct kp_workload wl = KP_WORKLOAD_INIT;

	ok(kp_workload__reap(&wl, false) && kp_workload__reap(&wl, true), "no command: reaped");
	kp_workload__abort(&wl, SIGKILL);
	ok(!wl.pid && !wl.reaped, "no command: abort does nothing");
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	test_exit_status();
	test_exec_failure();
	test_waits_for_go();
	test_signals();
	test_none();
	tmpdir__remove(root);
	return done_testing();
}
