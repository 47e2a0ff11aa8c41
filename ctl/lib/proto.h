/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprof generic netlink protocol: one function per command building
 * the request and parsing the reply.  Pure message handling over libnl's
 * message API; the I/O goes through nl.h.
 */
#ifndef KPROFCTL_PROTO_H
#define KPROFCTL_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "error.h"
#include "nl.h"

#define KP_RELEASE_MAX		128

/* KPROF_CMD_VERSION reply */
struct kp_version_info {
	uint32_t	abi;			/* KPROF_ABI_VERSION encoding */
	char		release[KP_RELEASE_MAX];/* kprof.ko release; "" if unknown */
	char		kernel[KP_RELEASE_MAX];	/* kernel release it runs on */
};

/* KPROF_CMD_STATUS reply */
struct kp_status_info {
	uint32_t	state;			/* enum kprof_state */
	uint32_t	nr_cpus;
	uint32_t	online_cpus;
	uint32_t	readers;
	uint64_t	sessions;
	uint64_t	loaded_ns;
};

/* "kprofctl X.Y.Z", sent in KPROF_A_VERSION_CLIENT. */
extern const char kp_client_name[];

/* "KPROF_A_STATUS_STATE" */
const char *kp_attr__name(int type);

/* Reply parsers, exposed for the unit tests. */
int kp_version__parse(const struct nlmsghdr *nlh, struct kp_version_info *v,
		      struct kp_err *err);
int kp_status__parse(const struct nlmsghdr *nlh, struct kp_status_info *st,
		     struct kp_err *err);

/*
 * KPROF_CMD_VERSION.  @send_abi adds our KPROF_A_VERSION_ABI, which makes
 * the module refuse a different ABI major with EPROTO.
 */
int kp_nl__version(struct kp_nl *nl, bool send_abi, struct kp_version_info *v,
		   struct kp_err *err);

/*
 * The version handshake every command starts with: KPROF_CMD_VERSION with
 * our ABI, and a check of the module's.  On an ABI major mismatch return
 * -EPROTO with err->msg naming both versions, and @v filled in when the
 * module's version could be learned (v->release[0] != '\0').
 */
int kp_nl__hello(struct kp_nl *nl, struct kp_version_info *v, struct kp_err *err);

/* KPROF_CMD_STATUS */
int kp_nl__status(struct kp_nl *nl, struct kp_status_info *st, struct kp_err *err);

#endif /* KPROFCTL_PROTO_H */
