// SPDX-License-Identifier: GPL-2.0
/*
 * A fake kprof.ko for the unit tests; see fake-nl.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "fake-nl.h"
#include "lib/nl.h"
#include "lib/util.h"
#include "nlbuild.h"

#define FAKE_FAMILY	0x1d

struct fake_kprof fake;

struct kp_nl {
	int	family;
};

static uint64_t fake_clock_ns(void)
{
	return fake.now_ns;
}

void fake_kprof__reset(void)
{
	int nr_open = fake.nr_open;

	memset(&fake, 0, sizeof(fake));
	fake.nr_open = nr_open;
	/* Ten days after boot; loaded_ns must not depend on the host's uptime. */
	fake.now_ns = 864000ULL * 1000000000ULL;
	kp_clock_ns = fake_clock_ns;
	fake.loaded = true;
	fake.abi = KPROF_ABI_VERSION;
	fake.release = "0.1.0";
	fake.kernel = "6.1.0-test";
	fake.privileged = true;
	fake.status.state = KPROF_STATE_IDLE;
	fake.status.nr_cpus = 4;
	fake.status.online_cpus = 4;
	fake.status.sessions = 0;
	fake.status.readers = 0;
	fake.status.loaded_ns = fake.now_ns - 3723ULL * 1000000000ULL;
}

struct kp_nl *kp_nl__open(struct kp_err *err)
{
	struct kp_nl *nl;

	if (fake.open_errno) {
		kp_err__set(err, fake.open_errno, "cannot open a generic netlink socket: %s",
			    strerror(fake.open_errno));
		return NULL;
	}
	if (!fake.loaded) {
		kp_err__set(err, ENOENT, "kprof module not loaded (insmod kprof.ko)");
		err->not_loaded = true;
		return NULL;
	}
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		abort();
	nl->family = FAKE_FAMILY;
	fake.nr_open++;
	return nl;
}

void kp_nl__delete(struct kp_nl *nl)
{
	if (!nl)
		return;
	fake.nr_open--;
	free(nl);
}

int kp_nl__family(const struct kp_nl *nl)
{
	return nl->family;
}

/* Answer with an NLMSG_ERROR as netlink_ack() builds it (capped, extack). */
static int fake_error(int errnum, const char *extack, struct kp_err *err)
{
	struct nlbuf b;

	nlbuf__error(&b, -errnum, NLM_F_CAPPED | (extack ? NLM_F_ACK_TLVS : 0), 0);
	if (extack)
		nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, extack);
	kp_err__from_nlerr(err, nlbuf__data(&b), b.len);
	return -err->errnum;
}

static void fake_put(struct nl_msg *msg, int type, const void *data, int len)
{
	char buf[64] = { 0 };

	if (type == fake.omit_attr)
		return;
	if (type == fake.bad_len_attr) {
		memcpy(buf, data, len);
		len += 2;
		data = buf;
	}
	if (nla_put(msg, type, len, data) < 0)
		abort();
}

static void fake_put_u32(struct nl_msg *msg, int type, uint32_t val)
{
	fake_put(msg, type, &val, sizeof(val));
}

/* Like the kernel's nla_put_u64_64bit(): pad so the payload is aligned. */
static void fake_put_u64(struct nl_msg *msg, int type, uint64_t val)
{
	if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
	    nla_put(msg, KPROF_A_PAD, 0, NULL) < 0)
		abort();
	fake_put(msg, type, &val, sizeof(val));
}

static void fake_put_string(struct nl_msg *msg, int type, const char *s)
{
	fake_put(msg, type, s, strlen(s) + 1);
}

static int fake_version(struct nlattr **tb, struct nl_msg *reply, struct kp_err *err)
{
	char extack[128];

	fake.saw_client = tb[KPROF_A_VERSION_CLIENT];
	if (fake.saw_client) {
		snprintf(fake.client, sizeof(fake.client), "%s",
			 (char *)nla_data(tb[KPROF_A_VERSION_CLIENT]));
	}
	/* Remember what the last request carried. */
	fake.saw_abi = tb[KPROF_A_VERSION_ABI];
	if (fake.saw_abi)
		fake.client_abi = nla_get_u32(tb[KPROF_A_VERSION_ABI]);
	if (fake.refuse_all ||
	    (fake.saw_abi && !fake.no_abi_check &&
	     KPROF_ABI_VERSION_MAJOR(fake.client_abi) != KPROF_ABI_VERSION_MAJOR(fake.abi))) {
		snprintf(extack, sizeof(extack), "client ABI %u.x is not supported, kprof.ko has %u.%u",
			 KPROF_ABI_VERSION_MAJOR(fake.client_abi),
			 KPROF_ABI_VERSION_MAJOR(fake.abi), KPROF_ABI_VERSION_MINOR(fake.abi));
		return fake_error(EPROTO, extack, err);
	}
	fake_put_u32(reply, KPROF_A_VERSION_ABI, fake.abi);
	fake_put_string(reply, KPROF_A_VERSION_RELEASE, fake.release);
	fake_put_string(reply, KPROF_A_VERSION_KERNEL, fake.kernel);
	return 0;
}

static int fake_status(struct nl_msg *reply, struct kp_err *err)
{
	const struct kp_status_info *st = &fake.status;

	if (!fake.privileged)
		return fake_error(EPERM, "kprof status needs CAP_PERFMON", err);
	fake_put_u32(reply, KPROF_A_STATUS_STATE, st->state);
	fake_put_u32(reply, KPROF_A_STATUS_NR_CPUS, st->nr_cpus);
	fake_put_u32(reply, KPROF_A_STATUS_ONLINE_CPUS, st->online_cpus);
	fake_put_u64(reply, KPROF_A_STATUS_SESSIONS, st->sessions);
	fake_put_u32(reply, KPROF_A_STATUS_READERS, st->readers);
	fake_put_u64(reply, KPROF_A_STATUS_LOADED_NS, st->loaded_ns);
	return 0;
}

/* The module's request policy. */
static const struct nla_policy fake_policy[KPROF_A_MAX + 1] = {
	[KPROF_A_VERSION_ABI]		= { .type = NLA_U32 },
	[KPROF_A_VERSION_CLIENT]	= { .type = NLA_STRING, .maxlen = KPROF_CLIENT_NAME_MAX },
};

int kp_nl__request(struct kp_nl *nl, struct nl_msg *msg, kp_nl_reply_fn fn,
		   void *arg, struct kp_err *err)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[KPROF_A_MAX + 1];
	struct genlmsghdr *gh;
	struct nl_msg *reply = NULL;
	int ret;

	fake.nr_requests++;
	if (nlh->nlmsg_type != nl->family || !genlmsg_valid_hdr(nlh, 0)) {
		ret = fake_error(EINVAL, "bad request header", err);
		goto out;
	}
	gh = nlmsg_data(nlh);
	fake.last_cmd = gh->cmd;
	if (gh->version != KPROF_FAMILY_VERSION) {
		ret = fake_error(EINVAL, "bad family version", err);
		goto out;
	}
	if (genlmsg_parse(nlh, 0, tb, KPROF_A_MAX, fake_policy) < 0) {
		ret = fake_error(EINVAL, "invalid attribute", err);
		goto out;
	}

	reply = nlmsg_alloc();
	if (!reply || !genlmsg_put(reply, 0, 42, nl->family, 0, 0, gh->cmd,
				   KPROF_FAMILY_VERSION))
		abort();
	switch (gh->cmd) {
	case KPROF_CMD_VERSION:
		ret = fake_version(tb, reply, err);
		break;
	case KPROF_CMD_STATUS:
		ret = fake_status(reply, err);
		break;
	default:
		ret = fake_error(EOPNOTSUPP, NULL, err);
		break;
	}
	if (!ret && fn)
		ret = fn(nlmsg_hdr(reply), arg, err);
out:
	nlmsg_free(reply);
	nlmsg_free(msg);
	return ret;
}
