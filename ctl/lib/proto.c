// SPDX-License-Identifier: GPL-2.0
/*
 * The kprof generic netlink protocol; see proto.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/kprof.h>

#include "proto.h"
#include "util.h"

const char kp_client_name[] = "kprofctl " KPROF_VERSION;
_Static_assert(sizeof("kprofctl " KPROF_VERSION) <= KPROF_CLIENT_NAME_MAX,
	       "KPROF_VERSION too long for KPROF_A_VERSION_CLIENT");

static const char * const kp_attr_names[KPROF_A_MAX + 1] = {
	[KPROF_A_VERSION_ABI]		= "KPROF_A_VERSION_ABI",
	[KPROF_A_VERSION_RELEASE]	= "KPROF_A_VERSION_RELEASE",
	[KPROF_A_VERSION_CLIENT]	= "KPROF_A_VERSION_CLIENT",
	[KPROF_A_VERSION_KERNEL]	= "KPROF_A_VERSION_KERNEL",
	[KPROF_A_STATUS_STATE]		= "KPROF_A_STATUS_STATE",
	[KPROF_A_STATUS_NR_CPUS]	= "KPROF_A_STATUS_NR_CPUS",
	[KPROF_A_STATUS_ONLINE_CPUS]	= "KPROF_A_STATUS_ONLINE_CPUS",
	[KPROF_A_STATUS_SESSIONS]	= "KPROF_A_STATUS_SESSIONS",
	[KPROF_A_STATUS_READERS]	= "KPROF_A_STATUS_READERS",
	[KPROF_A_STATUS_LOADED_NS]	= "KPROF_A_STATUS_LOADED_NS",
	[KPROF_A_PAD]			= "KPROF_A_PAD",
};

/*
 * Types of the reply attributes (one attribute space for all commands).
 * libnl checks minimum lengths and NUL-terminated strings; kp_reply__parse()
 * adds exact integer sizes.  Attributes newer than this kprofctl are ignored.
 */
static const struct nla_policy kp_reply_policy[KPROF_A_MAX + 1] = {
	[KPROF_A_VERSION_ABI]		= { .type = NLA_U32 },
	[KPROF_A_VERSION_RELEASE]	= { .type = NLA_STRING },
	[KPROF_A_VERSION_CLIENT]	= { .type = NLA_STRING },
	[KPROF_A_VERSION_KERNEL]	= { .type = NLA_STRING },
	[KPROF_A_STATUS_STATE]		= { .type = NLA_U32 },
	[KPROF_A_STATUS_NR_CPUS]	= { .type = NLA_U32 },
	[KPROF_A_STATUS_ONLINE_CPUS]	= { .type = NLA_U32 },
	[KPROF_A_STATUS_SESSIONS]	= { .type = NLA_U64 },
	[KPROF_A_STATUS_READERS]	= { .type = NLA_U32 },
	[KPROF_A_STATUS_LOADED_NS]	= { .type = NLA_U64 },
	[KPROF_A_PAD]			= { .type = NLA_UNSPEC },
};

const char *kp_attr__name(int type)
{
	if (type > 0 && type <= KPROF_A_MAX && kp_attr_names[type])
		return kp_attr_names[type];
	return "unknown attribute";
}

#define MALFORMED	"malformed reply from kprof.ko: "

/*
 * Check the generic netlink header and command of a reply, parse its
 * attributes into @tb and check them; @required ends with 0.
 */
static int kp_reply__parse(const struct nlmsghdr *nlh, uint8_t cmd,
			   struct nlattr **tb, const int *required,
			   struct kp_err *err)
{
	struct nlmsghdr *h = (struct nlmsghdr *)nlh;
	const struct genlmsghdr *gh;
	int type, ret, len, want;

	if (!genlmsg_valid_hdr(h, 0)) {
		kp_err__set(err, EBADMSG, MALFORMED "truncated message");
		return -EBADMSG;
	}
	gh = nlmsg_data(h);
	if (gh->cmd != cmd) {
		kp_err__set(err, EBADMSG, MALFORMED "command %u, expected %u",
			    gh->cmd, cmd);
		return -EBADMSG;
	}
	ret = genlmsg_parse(h, 0, tb, KPROF_A_MAX, kp_reply_policy);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "%s", nl_geterror(ret));
		return -EBADMSG;
	}

	for (type = 1; type <= KPROF_A_MAX; type++) {
		if (!tb[type])
			continue;
		len = nla_len(tb[type]);
		switch (kp_reply_policy[type].type) {
		case NLA_U32:
			want = sizeof(uint32_t);
			break;
		case NLA_U64:
			want = sizeof(uint64_t);
			break;
		case NLA_STRING:
			if (len > 0 && memchr(nla_data(tb[type]), '\0', len))
				continue;
			kp_err__set(err, EBADMSG, MALFORMED "%s is not a string",
				    kp_attr__name(type));
			return -EBADMSG;
		default:
			continue;
		}
		if (len != want) {
			kp_err__set(err, EBADMSG, MALFORMED "%s has %d bytes, expected %d",
				    kp_attr__name(type), len, want);
			return -EBADMSG;
		}
	}

	for (; *required; required++) {
		if (!tb[*required]) {
			kp_err__set(err, EBADMSG, MALFORMED "%s is missing",
				    kp_attr__name(*required));
			return -EBADMSG;
		}
	}
	return 0;
}

static void kp_copy_string(char *dst, size_t size, const struct nlattr *nla)
{
	snprintf(dst, size, "%s", (const char *)nla_data(nla));
}

int kp_version__parse(const struct nlmsghdr *nlh, struct kp_version_info *v,
		      struct kp_err *err)
{
	static const int required[] = {
		KPROF_A_VERSION_ABI, KPROF_A_VERSION_RELEASE, KPROF_A_VERSION_KERNEL, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_VERSION, tb, required, err);
	if (ret)
		return ret;
	v->abi = nla_get_u32(tb[KPROF_A_VERSION_ABI]);
	kp_copy_string(v->release, sizeof(v->release), tb[KPROF_A_VERSION_RELEASE]);
	kp_copy_string(v->kernel, sizeof(v->kernel), tb[KPROF_A_VERSION_KERNEL]);
	return 0;
}

int kp_status__parse(const struct nlmsghdr *nlh, struct kp_status_info *st,
		     struct kp_err *err)
{
	static const int required[] = {
		KPROF_A_STATUS_STATE, KPROF_A_STATUS_NR_CPUS,
		KPROF_A_STATUS_ONLINE_CPUS, KPROF_A_STATUS_SESSIONS,
		KPROF_A_STATUS_READERS, KPROF_A_STATUS_LOADED_NS, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_STATUS, tb, required, err);
	if (ret)
		return ret;
	st->state = nla_get_u32(tb[KPROF_A_STATUS_STATE]);
	st->nr_cpus = nla_get_u32(tb[KPROF_A_STATUS_NR_CPUS]);
	st->online_cpus = nla_get_u32(tb[KPROF_A_STATUS_ONLINE_CPUS]);
	st->sessions = nla_get_u64(tb[KPROF_A_STATUS_SESSIONS]);
	st->readers = nla_get_u32(tb[KPROF_A_STATUS_READERS]);
	st->loaded_ns = nla_get_u64(tb[KPROF_A_STATUS_LOADED_NS]);
	return 0;
}

/* A request for @cmd with the generic netlink header filled in. */
static struct nl_msg *kp_request__new(struct kp_nl *nl, uint8_t cmd,
				      struct kp_err *err)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		goto nomem;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0, 0,
			 cmd, KPROF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		goto nomem;
	}
	return msg;
nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return NULL;
}

static int kp_version__reply(const struct nlmsghdr *nlh, void *arg,
			     struct kp_err *err)
{
	return kp_version__parse(nlh, arg, err);
}

int kp_nl__version(struct kp_nl *nl, bool send_abi, struct kp_version_info *v,
		   struct kp_err *err)
{
	struct nl_msg *msg;

	memset(v, 0, sizeof(*v));
	msg = kp_request__new(nl, KPROF_CMD_VERSION, err);
	if (!msg)
		return -ENOMEM;
	if ((send_abi && nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION) < 0) ||
	    nla_put_string(msg, KPROF_A_VERSION_CLIENT, kp_client_name) < 0) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return kp_nl__request(nl, msg, kp_version__reply, v, err);
}

int kp_nl__hello(struct kp_nl *nl, struct kp_version_info *v, struct kp_err *err)
{
	char ours[16], theirs[16], refusal[KP_EXTACK_MSG_MAX];
	struct kp_err probe_err;
	int ret;

	kp_fmt_abi(ours, sizeof(ours), KPROF_ABI_VERSION);
	ret = kp_nl__version(nl, true, v, err);
	if (ret == -EPROTO) {
		/*
		 * The module refused our ABI.  Ask again without it, only to
		 * name the module's version in the error.
		 */
		if (kp_nl__version(nl, false, v, &probe_err) ||
		    KPROF_ABI_VERSION_MAJOR(v->abi) == KPROF_ABI_MAJOR) {
			snprintf(refusal, sizeof(refusal), "%s",
				 err->extack[0] ? err->extack : strerror(EPROTO));
			memset(v, 0, sizeof(*v));
			kp_err__set(err, EPROTO,
				    "ABI mismatch: kprof.ko refused kprofctl %s (ABI %s): %s",
				    kprofctl_version, ours, refusal);
			return -EPROTO;
		}
	} else if (ret) {
		return ret;
	}

	if (KPROF_ABI_VERSION_MAJOR(v->abi) != KPROF_ABI_MAJOR) {
		kp_err__set(err, EPROTO,
			    "ABI mismatch: kprofctl %s uses ABI %s but kprof.ko %s uses ABI %s; install matching versions",
			    kprofctl_version, ours, v->release,
			    kp_fmt_abi(theirs, sizeof(theirs), v->abi));
		return -EPROTO;
	}
	return 0;
}

static int kp_status__reply(const struct nlmsghdr *nlh, void *arg,
			    struct kp_err *err)
{
	return kp_status__parse(nlh, arg, err);
}

int kp_nl__status(struct kp_nl *nl, struct kp_status_info *st, struct kp_err *err)
{
	struct nl_msg *msg;

	memset(st, 0, sizeof(*st));
	msg = kp_request__new(nl, KPROF_CMD_STATUS, err);
	if (!msg)
		return -ENOMEM;
	return kp_nl__request(nl, msg, kp_status__reply, st, err);
}
