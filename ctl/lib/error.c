// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl error descriptions; see error.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

#define KP_CAP_HINT	"(needs CAP_PERFMON or CAP_SYS_ADMIN; try sudo)"

void kp_err__clear(struct kp_err *err)
{
	memset(err, 0, sizeof(*err));
}

void kp_err__set(struct kp_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	kp_err__clear(err);
	err->errnum = errnum;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void kp_err__set_remote(struct kp_err *err, int errnum, const char *extack)
{
	const char *hint = "";

	kp_err__clear(err);
	err->errnum = errnum;
	if (extack)
		snprintf(err->extack, sizeof(err->extack), "%s", extack);
	if ((errnum == EPERM || errnum == EACCES) && !strstr(err->extack, "locked down"))
		/* the kernel's message usually names the capability already */
		hint = strstr(err->extack, "CAP_PERFMON") ? " (try sudo)" : " " KP_CAP_HINT;
	snprintf(err->msg, sizeof(err->msg), "%s%s%s%s", strerror(errnum),
		 err->extack[0] ? ": " : "", err->extack, hint);
}

void kp_err__from_nlerr(struct kp_err *err, const void *buf, size_t len)
{
	struct kp_extack ext;
	char miss[64] = "";
	int errnum;

	if (kp_extack__parse(buf, len, &ext) < 0) {
		kp_err__set(err, EBADMSG, "malformed netlink error message");
		return;
	}
	/* nlmsgerr.error is a negative errno; be careful with nonsense. */
	errnum = ext.error < 0 && ext.error > -4096 ? -ext.error : EIO;
	if (!ext.has_msg && ext.has_miss_type)
		snprintf(miss, sizeof(miss), "missing attribute %u", ext.miss_type);
	kp_err__set_remote(err, errnum, ext.has_msg ? ext.msg : miss);
	err->has_offs = ext.has_offs;
	err->offs = ext.offs;
}

void kp_err__name_attr(struct kp_err *err, const char *what)
{
	size_t n = strlen(err->msg);

	snprintf(err->msg + n, sizeof(err->msg) - n, " (%s)", what);
}

void kp_err__print(const struct kp_err *err, const char *cmd)
{
	kp_error(err->not_loaded ? NULL : cmd, "%s", err->msg);
}
