// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/proto.c: reply parsing and the version handshake,
 * against hand-built replies and the fake module of tests/fake-nl.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/kprof.h>

#include "fake-nl.h"
#include "lib/nl.h"
#include "lib/proto.h"
#include "tap.h"

static struct nl_msg *reply_new(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 1, 0x1d, 0, 0, cmd, KPROF_FAMILY_VERSION))
		abort();
	return msg;
}

static struct nl_msg *version_reply(void)
{
	struct nl_msg *msg = reply_new(KPROF_CMD_VERSION);

	nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put_string(msg, KPROF_A_VERSION_RELEASE, "0.1.0");
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1.0-13-amd64");
	return msg;
}

static void test_version_parse(void)
{
	struct kp_version_info v;
	struct kp_err err;
	struct nl_msg *msg;
	char longrel[300];

	msg = version_reply();
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), 0, "version: parsed");
	ok(v.abi == KPROF_ABI_VERSION, "version: abi");
	is_str(v.release, "0.1.0", "version: release");
	is_str(v.kernel, "6.1.0-13-amd64", "version: kernel");
	nlmsg_free(msg);

	/* Newer attributes than ours and PAD are ignored. */
	msg = version_reply();
	nla_put(msg, KPROF_A_PAD, 0, NULL);
	nla_put_u32(msg, KPROF_A_MAX + 7, 1);
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), 0, "version: unknown attribute ignored");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1");
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: missing release");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_VERSION_RELEASE is missing",
	       "version: missing release message");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u64(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put_string(msg, KPROF_A_VERSION_RELEASE, "0.1.0");
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1");
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: u64 ABI");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_VERSION_ABI has 8 bytes, expected 4",
	       "version: wrong size message");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u16(msg, KPROF_A_VERSION_ABI, 1);
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: u16 ABI");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put(msg, KPROF_A_VERSION_RELEASE, 5, "0.1.0");
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1");
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG,
	       "version: release without NUL");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put(msg, KPROF_A_VERSION_RELEASE, 0, NULL);
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1");
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: empty release");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_STATUS);
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: wrong command");
	is_str(err.msg, "malformed reply from kprof.ko: command 2, expected 1",
	       "version: wrong command message");
	nlmsg_free(msg);

	memset(longrel, 'r', sizeof(longrel) - 1);
	longrel[sizeof(longrel) - 1] = '\0';
	msg = reply_new(KPROF_CMD_VERSION);
	nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION);
	nla_put_string(msg, KPROF_A_VERSION_RELEASE, longrel);
	nla_put_string(msg, KPROF_A_VERSION_KERNEL, "6.1");
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), 0, "version: long release");
	is_int(strlen(v.release), KP_RELEASE_MAX - 1, "version: long release truncated");
	nlmsg_free(msg);

	/* A message too short for its generic netlink header. */
	msg = nlmsg_alloc_simple(0x1d, 0);
	is_int(kp_version__parse(nlmsg_hdr(msg), &v, &err), -EBADMSG, "version: no genl header");
	nlmsg_free(msg);
}

static void test_status_parse(void)
{
	struct kp_status_info st;
	struct kp_err err;
	struct nl_msg *msg;

	msg = reply_new(KPROF_CMD_STATUS);
	nla_put_u32(msg, KPROF_A_STATUS_STATE, KPROF_STATE_RUNNING);
	nla_put_u32(msg, KPROF_A_STATUS_NR_CPUS, 64);
	nla_put_u32(msg, KPROF_A_STATUS_ONLINE_CPUS, 60);
	nla_put(msg, KPROF_A_PAD, 0, NULL);
	nla_put_u64(msg, KPROF_A_STATUS_SESSIONS, 1ULL << 40);
	nla_put_u32(msg, KPROF_A_STATUS_READERS, 2);
	nla_put_u64(msg, KPROF_A_STATUS_LOADED_NS, 123456789012345ULL);
	is_int(kp_status__parse(nlmsg_hdr(msg), &st, &err), 0, "status: parsed");
	ok(st.state == KPROF_STATE_RUNNING && st.nr_cpus == 64 && st.online_cpus == 60 &&
	   st.sessions == 1ULL << 40 && st.readers == 2 && st.loaded_ns == 123456789012345ULL,
	   "status: values");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_STATUS);
	nla_put_u32(msg, KPROF_A_STATUS_STATE, KPROF_STATE_IDLE);
	is_int(kp_status__parse(nlmsg_hdr(msg), &st, &err), -EBADMSG, "status: attributes missing");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_STATUS_NR_CPUS is missing",
	       "status: names the first missing attribute");
	nlmsg_free(msg);
}

static void test_handshake(void)
{
	struct kp_version_info v;
	struct kp_status_info st;
	struct kp_err err;
	struct kp_nl *nl;
	char client[64];

	fake_kprof__reset();
	nl = kp_nl__open(&err);
	ok(nl, "fake: open");
	is_int(kp_nl__hello(nl, &v, &err), 0, "hello: same ABI");
	ok(fake.saw_abi && fake.client_abi == KPROF_ABI_VERSION, "hello: sent our ABI");
	snprintf(client, sizeof(client), "kprofctl %s", KPROF_VERSION);
	ok(fake.saw_client, "hello: sent the client name");
	is_str(fake.client, client, "hello: client name");
	is_str(v.release, "0.1.0", "hello: module release");
	is_int(kp_nl__status(nl, &st, &err), 0, "status: fake");
	ok(st.nr_cpus == 4 && st.state == KPROF_STATE_IDLE, "status: fake values");

	/* A newer minor is fine. */
	fake.abi = KPROF_ABI_VERSION + 5;
	is_int(kp_nl__hello(nl, &v, &err), 0, "hello: newer minor accepted");

	/* The module refuses our major: probe without ABI to name its version. */
	fake.abi = (KPROF_ABI_MAJOR + 1) << 16 | 3;
	fake.release = "9.0.0";
	is_int(kp_nl__hello(nl, &v, &err), -EPROTO, "hello: refused major");
	is_str(err.msg, "ABI mismatch: kprofctl " KPROF_VERSION " uses ABI 1.0 but kprof.ko "
			"9.0.0 uses ABI 2.3; install matching versions", "hello: names both versions");
	is_str(v.release, "9.0.0", "hello: module version learned");

	/* An old module accepting any ABI: kprofctl checks itself. */
	fake.no_abi_check = true;
	is_int(kp_nl__hello(nl, &v, &err), -EPROTO, "hello: unchecked major");
	is_str(err.msg, "ABI mismatch: kprofctl " KPROF_VERSION " uses ABI 1.0 but kprof.ko "
			"9.0.0 uses ABI 2.3; install matching versions",
	       "hello: client-side check names both versions");

	/* Refused even without ABI: fall back to the module's message. */
	fake.no_abi_check = false;
	fake.refuse_all = true;
	is_int(kp_nl__hello(nl, &v, &err), -EPROTO, "hello: refused, probe refused too");
	is_str(err.msg, "ABI mismatch: kprof.ko refused kprofctl " KPROF_VERSION " (ABI 1.0): "
			"client ABI 1.x is not supported, kprof.ko has 2.3",
	       "hello: extack of the refusal");
	ok(!v.release[0], "hello: module version unknown");

	/* Malformed reply. */
	fake_kprof__reset();
	fake.omit_attr = KPROF_A_VERSION_KERNEL;
	is_int(kp_nl__hello(nl, &v, &err), -EBADMSG, "hello: malformed reply");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_VERSION_KERNEL is missing",
	       "hello: malformed reply message");
	fake.omit_attr = 0;
	fake.bad_len_attr = KPROF_A_STATUS_LOADED_NS;
	is_int(kp_nl__status(nl, &st, &err), -EBADMSG, "status: wrong size");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_STATUS_LOADED_NS has 10 bytes, expected 8",
	       "status: wrong size message");

	/* EPERM with extack. */
	fake_kprof__reset();
	fake.privileged = false;
	is_int(kp_nl__status(nl, &st, &err), -EPERM, "status: unprivileged");
	is_str(err.msg, "Operation not permitted: kprof status needs CAP_PERFMON "
			"(try sudo)", "status: EPERM message");
	kp_nl__delete(nl);
	is_int(fake.nr_open, 0, "fake: closed");

	is_str(kp_attr__name(KPROF_A_STATUS_STATE), "KPROF_A_STATUS_STATE", "attr name");
	is_str(kp_attr__name(0), "unknown attribute", "attr name: 0");
	is_str(kp_attr__name(KPROF_A_MAX + 1), "unknown attribute", "attr name: MAX + 1");
}

int main(void)
{
	test_version_parse();
	test_status_parse();
	test_handshake();
	return done_testing();
}
