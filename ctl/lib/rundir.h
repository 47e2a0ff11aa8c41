/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The state 'kprofctl start' leaves for 'kprofctl stop' in the run
 * directory ($KPROF_RUNDIR, else /run/kprof), the one owner of it, one
 * directory per session (sessions run side by side, ABI 1.10):
 *
 *	ID/drainer.pid		the drainer's PID, one line
 *	ID/session		"id N", "pid P" and "output PATH" lines
 *	ID/aggregate.data	the configuration of an aggregating session
 *				(lib/agg.c)
 *	ID/daemon		'kprofctl daemon''s state: "key value" lines,
 *				rewritten after each interval, for status
 *
 * Commands that start, read and stop their own session (offcpu, lock,
 * latency, sched) write nothing here.  The directories of sessions the
 * module no longer has go at the next 'kprofctl start' (kp_rundir__prune()).
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

/*
 * The directory of session @id's state in @buf: 0, or -ENAMETOOLONG with
 * @err set when @err is not NULL.
 */
int kp_rundir__session_dir(uint64_t id, char *buf, size_t len, struct kp_err *err);

/* Session @id's state file @name in @buf: 0, or -ENAMETOOLONG. */
int kp_rundir__state_path(uint64_t id, const char *name, char *buf, size_t len);

/* Create session @id's directory (and the run directory): 0 or a negative errno. */
int kp_rundir__ensure_session(uint64_t id, struct kp_err *err);

/* Create @d's session directory and write both files for @d. */
int kp_rundir__write(const struct kp_drainer_info *d, struct kp_err *err);
/*
 * Read session @id's: 0, -ENOENT when it has no drainer, -EBADMSG when they
 * are garbled.
 */
int kp_rundir__read(uint64_t id, struct kp_drainer_info *d, struct kp_err *err);
/* Remove session @id's drainer files if they still describe @pid. */
void kp_rundir__remove(uint64_t id, pid_t pid);

/*
 * Remove the state of every session but the @nr in @live (the module's
 * table): what sessions of an earlier load or a killed drainer left.
 */
void kp_rundir__prune(const uint64_t *live, unsigned int nr);

/* What 'kprofctl daemon' says of itself (ID/daemon). */
struct kp_daemon_state {
	pid_t		pid;
	uint64_t	session_id;
	uint64_t	interval_ms;
	uint64_t	intervals;		/* closed */
	uint64_t	saved, not_saved, removed;
	uint64_t	last_seq;		/* the last saved; 0: none yet */
	uint64_t	last_start_ns, last_end_ns;	/* Unix */
	uint64_t	last_samples;
	uint64_t	spooled;		/* upload: profiles waiting in the spool */
	char		formats[64];
	char		dir[4096];
	char		upload[1024];		/* the URL; "": no upload */
};

/* Write @s as session @s->session_id's ID/daemon, whole. */
int kp_rundir__write_daemon(const struct kp_daemon_state *s, struct kp_err *err);

/*
 * Session @id's daemon state: 0, -ENOENT when it has none (or its daemon
 * is gone), or -EBADMSG with @err set.
 */
int kp_rundir__read_daemon(uint64_t id, struct kp_daemon_state *s, struct kp_err *err);

/* The daemon of session @id ends: its state goes (and the directory, when empty). */
void kp_rundir__remove_daemon(uint64_t id);

/* Is @pid alive (and not a zombie)? */
bool kp_pid_alive(pid_t pid);

#endif /* KPROFCTL_RUNDIR_H */
