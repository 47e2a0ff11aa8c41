/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct kp_err: why an operation failed, as one line for the user.
 */
#ifndef KPROFCTL_ERROR_H
#define KPROFCTL_ERROR_H

#include <stdbool.h>
#include <stddef.h>

#include "extack.h"
#include "util.h"

#define KP_ERR_MSG_MAX		512

struct kp_err {
	int	errnum;				/* positive errno; 0: no error */
	bool	not_loaded;			/* the kprof family is not registered */
	char	extack[KP_EXTACK_MSG_MAX];	/* the module's message, or "" */
	bool	has_offs;			/* the module named a bad attribute: */
	uint32_t offs;				/* its offset in the request */
	char	msg[KP_ERR_MSG_MAX];		/* one line for the user */
};

void kp_err__clear(struct kp_err *err);

/* A local failure: @fmt describes it. */
void kp_err__set(struct kp_err *err, int errnum, const char *fmt, ...) __printf(3, 4);

/*
 * A failure reported by the kernel: "strerror(errnum)[: extack][ hint]",
 * where EPERM and EACCES get the hint about the needed capabilities.
 */
void kp_err__set_remote(struct kp_err *err, int errnum, const char *extack);

/* From the NLMSG_ERROR or NLMSG_DONE @buf of @len bytes (kp_extack__parse()). */
void kp_err__from_nlerr(struct kp_err *err, const void *buf, size_t len);

/*
 * Append " (@what)" to the message: the request's part that the kernel's
 * bad-attribute offset (has_offs/offs) points at, e.g. "event 'kprobe:f'".
 */
void kp_err__name_attr(struct kp_err *err, const char *what);

/*
 * Print "kprofctl: CMD: MSG" on stderr.  The "module not loaded" line is
 * the same for every command and is printed without CMD.
 */
void kp_err__print(const struct kp_err *err, const char *cmd);

#endif /* KPROFCTL_ERROR_H */
