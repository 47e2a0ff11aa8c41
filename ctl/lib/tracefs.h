/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: the kernel's tracepoints, their ids and the text of their
 * record formats.
 *
 * The events directory is kp_tracefs_root if set (the unit tests' fake
 * tree, holding SYSTEM/EVENT/{id,format}), else the first of
 * kp_sysroot/sys/kernel/tracing/events and
 * kp_sysroot/sys/kernel/debug/tracing/events that exists; on the real
 * system (kp_sysroot "") tracefs is mounted at /sys/kernel/tracing when
 * neither does.
 */
#ifndef KPROFCTL_TRACEFS_H
#define KPROFCTL_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "error.h"

/* Override of the events directory; NULL: find it as above. */
extern const char *kp_tracefs_root;

#define KP_TP_NAME_MAX		64	/* one half of "system:event", NUL included */
#define KP_TP_FORMAT_MAX	(16U << 10)	/* bytes of a format file, NUL included */

/*
 * The events directory into @buf; -ENOENT with @err ("tracefs is not
 * mounted ...") when there is none.
 */
int kp_tracefs__events_dir(char *buf, size_t len, struct kp_err *err);

/*
 * Is @glob a well-formed tracepoint glob (letters, digits, '_', '-', '.',
 * '*', '?', and closed, non-empty [...] classes)?  Empty is not.
 */
bool kp_tracefs__glob_ok(const char *glob);

/* Called for each match, in sorted order; a non-zero return stops the walk. */
typedef int (*kp_tracefs_cb)(const char *system, const char *event, uint32_t id, void *arg);

/*
 * Call @cb for each tracepoint whose system matches @sys_glob and event
 * matches @ev_glob (fnmatch).  Returns the number of matches (>= 0), the
 * first non-zero return of @cb, or a negative errno with @err set (no
 * tracefs, unreadable id).
 */
int kp_tracefs__walk(const char *sys_glob, const char *ev_glob, kp_tracefs_cb cb,
		     void *arg, struct kp_err *err);

/*
 * Read the text of SYSTEM/EVENT/format into a new NUL-terminated buffer
 * *@text of *@size bytes (NUL included), at most KP_TP_FORMAT_MAX.
 * Returns 0, or -ENOENT ("unknown tracepoint ..."), -EFBIG, -EIO, -ENOMEM
 * with @err set.  What the text says is for libtraceevent (tpdecode.h).
 */
int kp_tracefs__read_format(const char *system, const char *event, char **text,
			    uint32_t *size, struct kp_err *err);

/*
 * The same for the events directory's "header_page" or "header_event" (the
 * ring buffer's page and event headers, which perf keeps in its tracing
 * data); -EINVAL for another @name.
 */
int kp_tracefs__read_header(const char *name, char **text, uint32_t *size,
			    struct kp_err *err);

#endif /* KPROFCTL_TRACEFS_H */
