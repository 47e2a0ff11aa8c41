/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command after the options of 'record', 'stat' and 'latency', run as
 * perf's evlist__prepare_workload() and evlist__start_workload() do: forked
 * first and waiting for a go byte on a pipe before execvp(), so that the
 * session can be started on its PID before its first instruction.
 *
 *	struct kp_workload wl = KP_WORKLOAD_INIT;
 *
 *	kp_workload__prepare(&wl, argv, NULL, &err);	fork, the child waits
 *	... start the session on wl.pid ...
 *	kp_workload__start(&wl, &err);			let it exec
 *	... until kp_workload__reap(&wl, false) ...
 *	code = kp_workload__exit_code(&wl);
 *	kp_workload__abort(&wl, SIGKILL);		ends it if still there
 *
 * A failed execvp() comes back on a second, close-on-exec pipe, so a
 * command that cannot run is told from one that runs and exits 127.
 */
#ifndef KPROFCTL_WORKLOAD_H
#define KPROFCTL_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "error.h"

struct kp_workload {
	const char	*name;		/* argv[0], for the messages */
	pid_t		pid;		/* 0: none */
	int		go_fd;		/* write one byte to let it exec */
	int		err_fd;		/* its exec errno, or EOF after exec */
	int		exec_errno;	/* why its execvp() failed, or 0 */
	int		status;		/* wait status once reaped */
	bool		reaped;
	struct rusage	ru;		/* of it and its waited-for children */
};

#define KP_WORKLOAD_INIT	{ .go_fd = -1, .err_fd = -1 }

/*
 * Fork @argv (NULL-terminated, argv[0] looked up in PATH); the child waits
 * for kp_workload__start(), then resets SIGINT and SIGTERM to their default
 * and execs.  A caller that has caught and blocked signals before the fork
 * passes the mask the command must start with as @sigmask (its SIGCHLD
 * handler is dropped too); NULL leaves the mask as it is.  Returns 0, or a
 * negative errno with @err set.
 */
int kp_workload__prepare(struct kp_workload *wl, const char **argv, const sigset_t *sigmask,
			 struct kp_err *err);

/*
 * Let the command exec.  Returns 0 once it has, or a negative errno with
 * @err set to perf's "workload failed: cannot run 'CMD': REASON" and the
 * child reaped (exit status 127); wl->exec_errno is set when execvp()
 * failed, 0 when the go could not be sent.
 */
int kp_workload__start(struct kp_workload *wl, struct kp_err *err);

/*
 * Wait for the command (@block) or check whether it has exited; its wait
 * status goes to wl->status, its resource usage to wl->ru.  Returns true
 * once it is reaped, or when there is none.
 */
bool kp_workload__reap(struct kp_workload *wl, bool block);

/*
 * The end, whatever happened: close the pipes (a child never started
 * exits on EOF), then send @sig to a child still there and reap it.
 */
void kp_workload__abort(struct kp_workload *wl, int sig);

/* A shell's exit code of the reaped command: its status, or 128 + its signal. */
int kp_workload__exit_code(const struct kp_workload *wl);

#endif /* KPROFCTL_WORKLOAD_H */
