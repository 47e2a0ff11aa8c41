/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state 'kprofctl start' leaves for 'kprofctl stop' in /run/kprof:
 *
 *	drainer.pid	the drainer's PID, one line
 *	session		"id N", "pid P" and "output PATH" lines
 */
#ifndef KPROFCTL_RUNDIR_H
#define KPROFCTL_RUNDIR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"

/* "/run/kprof"; the unit tests point it elsewhere. */
extern const char *kp_rundir;

struct kp_drainer_info {
	pid_t		pid;
	uint64_t	session_id;
	char		output[4096];	/* absolute path of the file */
};

/* Create kp_rundir (mode 0755) and write both files for @d. */
int kp_rundir__write(const struct kp_drainer_info *d, struct kp_err *err);
/* Read them: 0, -ENOENT when there is no drainer, -EBADMSG when they are garbled. */
int kp_rundir__read(struct kp_drainer_info *d, struct kp_err *err);
/* Remove both files if they still describe @pid. */
void kp_rundir__remove(pid_t pid);

/* Is @pid alive (and not a zombie)? */
bool kp_pid_alive(pid_t pid);

#endif /* KPROFCTL_RUNDIR_H */
