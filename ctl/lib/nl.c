// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl netlink I/O over libnl-3; see nl.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <linux/kprof.h>

#include "nl.h"
#include "util.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

struct kp_nl {
	struct nl_sock	*sk;
	int		family;
	uint64_t	session;	/* the session requests name, 0: none */
};

/* State of one request/reply exchange. */
struct kp_nl_txn {
	kp_nl_reply_fn	fn;
	void		*arg;
	struct kp_err	*err;
	int		ret;		/* first failure, negative errno */
	bool		done;		/* ACK, error or DONE received */
};

static void kp_nl__setsockopt(struct kp_nl *nl, int opt, const char *name)
{
	int one = 1;

	/* Old kernels lack these; errors then just carry no message. */
	if (setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, opt, &one, sizeof(one)))
		kp_pr_debug("setsockopt(%s): %s", name, strerror(errno));
}

struct kp_nl *kp_nl__open(struct kp_err *err)
{
	struct nl_cb *cb = NULL;
	struct kp_nl *nl;
	int ret;

	nl = calloc(1, sizeof(*nl));
	if (!nl)
		goto out_nomem;
	/* --debug: libnl dumps every message sent and received. */
	cb = nl_cb_alloc(kp_debug ? NL_CB_DEBUG : NL_CB_DEFAULT);
	if (!cb)
		goto out_nomem;
	nl->sk = nl_socket_alloc_cb(cb);
	nl_cb_put(cb);
	if (!nl->sk)
		goto out_nomem;

	ret = genl_connect(nl->sk);
	if (ret < 0) {
		kp_err__set(err, EIO, "cannot open a generic netlink socket: %s",
			    nl_geterror(ret));
		goto out_free;
	}
	kp_nl__setsockopt(nl, NETLINK_EXT_ACK, "NETLINK_EXT_ACK");
	kp_nl__setsockopt(nl, NETLINK_CAP_ACK, "NETLINK_CAP_ACK");

	nl->family = genl_ctrl_resolve(nl->sk, KPROF_FAMILY_NAME);
	if (nl->family == -NLE_OBJ_NOTFOUND) {
		kp_err__set(err, ENOENT, "kprof module not loaded (insmod kprof.ko)");
		err->not_loaded = true;
		goto out_free;
	}
	if (nl->family < 0) {
		kp_err__set(err, EIO, "cannot resolve the generic netlink family '%s': %s",
			    KPROF_FAMILY_NAME, nl_geterror(nl->family));
		goto out_free;
	}
	kp_pr_debug("generic netlink family '%s' has id %d", KPROF_FAMILY_NAME,
		    nl->family);
	return nl;

out_nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
out_free:
	kp_nl__delete(nl);
	return NULL;
}

void kp_nl__delete(struct kp_nl *nl)
{
	if (!nl)
		return;
	nl_socket_free(nl->sk);
	free(nl);
}

int kp_nl__family(const struct kp_nl *nl)
{
	return nl->family;
}

int kp_nl__fd(const struct kp_nl *nl)
{
	return nl_socket_get_fd(nl->sk);
}

uint64_t kp_nl__session(const struct kp_nl *nl)
{
	return nl->session;
}

void kp_nl__set_session(struct kp_nl *nl, uint64_t id)
{
	nl->session = id;
}

static int kp_nl__valid_cb(struct nl_msg *msg, void *arg)
{
	struct kp_nl_txn *txn = arg;
	int ret;

	/* After a failure, keep reading up to the ACK but parse nothing. */
	if (txn->ret || !txn->fn)
		return NL_SKIP;
	ret = txn->fn(nlmsg_hdr(msg), txn->arg, txn->err);
	if (ret < 0)
		txn->ret = ret;
	return NL_SKIP;
}

/* The ACK of a request, or the NLMSG_DONE ending a dump. */
static int kp_nl__done_cb(struct nl_msg *msg, void *arg)
{
	const struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct kp_nl_txn *txn = arg;
	struct kp_extack ext;

	txn->done = true;
	/* A dump that failed midway reports its error in NLMSG_DONE. */
	if (nlh->nlmsg_type == NLMSG_DONE &&
	    !kp_extack__parse(nlh, nlh->nlmsg_len, &ext) && ext.error) {
		kp_err__from_nlerr(txn->err, nlh, nlh->nlmsg_len);
		txn->ret = -txn->err->errnum;
	}
	return NL_STOP;
}

static int kp_nl__err_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	/* libnl hands us the payload; the header precedes it. */
	const struct nlmsghdr *nlh = (const void *)((const char *)e - NLMSG_HDRLEN);
	struct kp_nl_txn *txn = arg;

	(void)nla;
	/* libnl checked that nlmsg_len lies within the received buffer. */
	kp_err__from_nlerr(txn->err, nlh, nlh->nlmsg_len);
	txn->ret = -txn->err->errnum;
	txn->done = true;
	return NL_STOP;
}

int kp_nl__request(struct kp_nl *nl, struct nl_msg *msg, kp_nl_reply_fn fn,
		   void *arg, struct kp_err *err)
{
	struct kp_nl_txn txn = { .fn = fn, .arg = arg, .err = err };
	struct nl_cb *sk_cb, *cb;
	int ret;

	sk_cb = nl_socket_get_cb(nl->sk);
	cb = nl_cb_clone(sk_cb);
	nl_cb_put(sk_cb);
	if (!cb) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, kp_nl__valid_cb, &txn);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, kp_nl__done_cb, &txn);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, kp_nl__done_cb, &txn);
	nl_cb_err(cb, NL_CB_CUSTOM, kp_nl__err_cb, &txn);

	/* Sets NLM_F_REQUEST | NLM_F_ACK, the port and the sequence number. */
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		kp_err__set(err, EIO, "cannot send the request: %s", nl_geterror(ret));
		txn.ret = -EIO;
		goto out;
	}

	while (!txn.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !txn.done) {
			kp_err__set(err, EIO, "cannot receive the reply: %s",
				    nl_geterror(ret));
			txn.ret = -EIO;
			break;
		}
	}
out:
	nl_cb_put(cb);
	return txn.ret;
}
