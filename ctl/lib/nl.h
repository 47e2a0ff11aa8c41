/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct kp_nl: a generic netlink socket talking to the kprof family.
 *
 * This is the only code doing netlink I/O; everything above it (proto.c
 * and the builtins) builds requests and parses replies with libnl's message
 * API, so the unit tests replace this file with tests/fake-nl.c.
 */
#ifndef KPROFCTL_NL_H
#define KPROFCTL_NL_H

#include <stdint.h>

#include <linux/netlink.h>

#include "error.h"

struct kp_nl;
struct nl_msg;

/*
 * Called for each reply message.  Return 0, or a negative errno after
 * filling @err (e.g. -EBADMSG for a malformed reply).
 */
typedef int (*kp_nl_reply_fn)(const struct nlmsghdr *nlh, void *arg,
			      struct kp_err *err);

/*
 * Connect and resolve the kprof family.  On failure return NULL with @err
 * set; err->not_loaded tells that the family is not registered, i.e.
 * kprof.ko is not loaded.
 */
struct kp_nl *kp_nl__open(struct kp_err *err);
void kp_nl__delete(struct kp_nl *nl);

/* The resolved generic netlink family id. */
int kp_nl__family(const struct kp_nl *nl);

/*
 * The socket's descriptor: a forked child that must not keep the
 * session's owner socket open closes it.
 */
int kp_nl__fd(const struct kp_nl *nl);

/*
 * The sampling session this socket's requests name (KPROF_A_SESSION_ID of
 * STOP, STATUS, STATS, AGG_*, HIST_DUMP; ABI 1.10): the one it started, or
 * one set with kp_nl__set_session(); 0 names none (the module's default).
 */
uint64_t kp_nl__session(const struct kp_nl *nl);
void kp_nl__set_session(struct kp_nl *nl, uint64_t id);

/*
 * Send @msg (always consumed), call @fn for each reply and wait for the
 * ACK.  Returns 0 or a negative errno with @err set; a kernel error carries
 * its extack message.
 */
int kp_nl__request(struct kp_nl *nl, struct nl_msg *msg, kp_nl_reply_fn fn,
		   void *arg, struct kp_err *err);

#endif /* KPROFCTL_NL_H */
