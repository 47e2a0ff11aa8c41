/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state 'kprofctl start' leaves for 'kprofctl stop' in the run
 * directory ($KPROF_RUNDIR, else /run/kprof), the one owner of it:
 *
 *	drainer.pid	the drainer's PID, one line
 *	session		"id N", "pid P" and "output PATH" lines
 *	aggregate.data	the configuration of an aggregating session (lib/agg.c)
 *
 * Commands that start, read and stop their own session (offcpu, lock,
 * latency, sched) write nothing here.
 */
#ifndef KPROFCTL_RUNDIR_H
#define KPROFCTL_RUNDIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* Set by the unit tests; NULL: $KPROF_RUNDIR, else /run/kprof. */
extern const char *kp_rundir;

/* The run directory: kp_rundir, $KPROF_RUNDIR or /run/kprof. */
const char *kp_rundir__dir(void);

/*
 * Create the run directory with its parents (mode 0755) when missing.
 * Return: 0, or a negative errno with @err naming the directory and
 * KPROF_RUNDIR.
 */
int kp_rundir__ensure(struct kp_err *err);

struct kp_drainer_info {
	pid_t		pid;
	uint64_t	session_id;
	char		output[4096];	/* absolute path of the file */
};

/* Create the run directory (kp_rundir__ensure()) and write both files for @d. */
int kp_rundir__write(const struct kp_drainer_info *d, struct kp_err *err);
/* Read them: 0, -ENOENT when there is no drainer, -EBADMSG when they are garbled. */
int kp_rundir__read(struct kp_drainer_info *d, struct kp_err *err);
/* Remove both files if they still describe @pid. */
void kp_rundir__remove(pid_t pid);

/* Is @pid alive (and not a zombie)? */
bool kp_pid_alive(pid_t pid);

#endif /* KPROFCTL_RUNDIR_H */
