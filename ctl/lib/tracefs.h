/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: the kernel's tracepoints, their ids and record formats.
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
#define KP_TP_FIELDS_MAX	64
#define KP_TP_PRINT_MAX		1024

/* A field of a tracepoint's record, from its format file. */
struct kp_tp_field {
	char		name[KP_TP_NAME_MAX];
	char		type[96];	/* "unsigned int", "char[16]", "__data_loc char[]" */
	uint16_t	offset;
	uint16_t	size;
	bool		is_signed;
	bool		is_array;	/* "type name[N]" */
	bool		is_string;	/* a char array of fixed size */
	bool		is_dynamic;	/* __data_loc */
	bool		is_common;	/* common_* header field */
};

struct kp_tp_format {
	char			system[KP_TP_NAME_MAX];
	char			name[KP_TP_NAME_MAX];
	uint32_t		id;
	unsigned int		nr_fields;
	struct kp_tp_field	fields[KP_TP_FIELDS_MAX];
	char			print_fmt[KP_TP_PRINT_MAX];	/* "" if absent */
};

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

/* Read SYSTEM/EVENT/format into @fmt; -ENOENT with @err if there is none. */
int kp_tracefs__format(const char *system, const char *event, struct kp_tp_format *fmt,
		       struct kp_err *err);

/* Parse the text of a format file (tests, and kp_tracefs__format()). */
int kp_tp_format__parse(struct kp_tp_format *fmt, const char *text, struct kp_err *err);

const struct kp_tp_field *kp_tp_format__field(const struct kp_tp_format *fmt,
					      const char *name);

/*
 * Format the fields of the raw record @raw (@len bytes) of @fmt's
 * tracepoint into @buf as "name=value" pairs separated by spaces, common
 * fields left out: integers in decimal, char arrays and __data_loc strings
 * as text, other arrays in hex ("arr={0x1,0x2}").  A field past @len is
 * left out.  Returns @buf.
 */
char *kp_tp_format__print(const struct kp_tp_format *fmt, const void *raw, size_t len,
			  char *buf, size_t buflen);

/*
 * As kp_tp_format__print(), in perf script's layout where it differs:
 * sched:sched_switch as "prev_comm=... prev_pid=... prev_prio=...
 * prev_state=S ==> next_comm=... next_pid=... next_prio=...".
 */
char *kp_tp_format__print_perf(const struct kp_tp_format *fmt, const void *raw, size_t len,
			       char *buf, size_t buflen);

/* The formats of a session's tracepoint events, read once each. */
struct kp_tp_cache {
	struct kp_tp_format	*fmt[KPROF_MAX_EVENTS];
	bool			tried[KPROF_MAX_EVENTS];
};

/* The format of event @event named @name ("SYSTEM:EVENT"), or NULL. */
const struct kp_tp_format *kp_tp_cache__get(struct kp_tp_cache *c, unsigned int event,
					    const char *name);
void kp_tp_cache__exit(struct kp_tp_cache *c);

/*
 * The raw record of a SAMPLE record of @size bytes at @rec whose chains
 * hold @nr frames, when it carries one (KPROF_MISC_RAW): its bytes and
 * length, or NULL if absent or malformed.
 */
const void *kp_sample__raw(const void *rec, size_t size, unsigned int nr, uint32_t *len);

#endif /* KPROFCTL_TRACEFS_H */
