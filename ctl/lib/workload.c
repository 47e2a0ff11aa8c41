// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl: the command of record, stat and latency; see workload.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

int kp_workload__prepare(struct kp_workload *wl, const char **argv, const sigset_t *sigmask,
			 struct kp_err *err)
{
	int go[2], ex[2], e;
	char c;

	wl->name = argv[0];
	if (pipe2(go, O_CLOEXEC)) {
		kp_err__set(err, errno, "pipe: %s", strerror(errno));
		return -errno;
	}
	if (pipe2(ex, O_CLOEXEC)) {
		e = errno;
		close(go[0]);
		close(go[1]);
		kp_err__set(err, e, "pipe: %s", strerror(e));
		return -e;
	}
	fflush(NULL);
	wl->pid = fork();
	if (wl->pid < 0) {
		e = errno;
		wl->pid = 0;
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		kp_err__set(err, e, "fork: %s", strerror(e));
		return -e;
	}
	if (!wl->pid) {
		/* The child: wait for the session, then become the command. */
		close(go[1]);
		close(ex[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (sigmask) {
			signal(SIGCHLD, SIG_DFL);
			sigprocmask(SIG_SETMASK, sigmask, NULL);
		}
		execvp(argv[0], (char * const *)argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	wl->go_fd = go[1];
	wl->err_fd = ex[0];
	return 0;
}

int kp_workload__start(struct kp_workload *wl, struct kp_err *err)
{
	ssize_t n;
	int e = 0;

	if (write(wl->go_fd, "g", 1) != 1)
		e = errno;
	close(wl->go_fd);
	wl->go_fd = -1;
	if (!e) {
		do
			n = read(wl->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(wl->err_fd);
		wl->err_fd = -1;
		if (n != sizeof(e))
			return 0;	/* EOF: the exec closed the pipe */
		wl->exec_errno = e;
	}
	kp_workload__reap(wl, true);
	kp_err__set(err, e, "workload failed: cannot run '%s': %s", wl->name, strerror(e));
	return -e;
}

bool kp_workload__reap(struct kp_workload *wl, bool block)
{
	pid_t ret;

	if (!wl->pid || wl->reaped)
		return true;
	do
		ret = wait4(wl->pid, &wl->status, block ? 0 : WNOHANG, &wl->ru);
	while (ret < 0 && errno == EINTR);
	if (ret == wl->pid || (ret < 0 && errno == ECHILD))
		wl->reaped = true;
	return wl->reaped;
}

void kp_workload__abort(struct kp_workload *wl, int sig)
{
	if (wl->go_fd >= 0)
		close(wl->go_fd);
	if (wl->err_fd >= 0)
		close(wl->err_fd);
	wl->go_fd = wl->err_fd = -1;
	if (wl->pid && !wl->reaped) {
		kill(wl->pid, sig);
		kp_workload__reap(wl, true);
	}
}

int kp_workload__exit_code(const struct kp_workload *wl)
{
	if (WIFEXITED(wl->status))
		return WEXITSTATUS(wl->status);
	if (WIFSIGNALED(wl->status))
		return 128 + WTERMSIG(wl->status);
	return KP_EXIT_FAILURE;
}
