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
	is_str(err.msg, "ABI mismatch: kprofctl " KPROF_VERSION " uses ABI " KP_TEST_ABI " but kprof.ko "
			"9.0.0 uses ABI 2.3; install matching versions", "hello: names both versions");
	is_str(v.release, "9.0.0", "hello: module version learned");

	/* An old module accepting any ABI: kprofctl checks itself. */
	fake.no_abi_check = true;
	is_int(kp_nl__hello(nl, &v, &err), -EPROTO, "hello: unchecked major");
	is_str(err.msg, "ABI mismatch: kprofctl " KPROF_VERSION " uses ABI " KP_TEST_ABI " but kprof.ko "
			"9.0.0 uses ABI 2.3; install matching versions",
	       "hello: client-side check names both versions");

	/* Refused even without ABI: fall back to the module's message. */
	fake.no_abi_check = false;
	fake.refuse_all = true;
	is_int(kp_nl__hello(nl, &v, &err), -EPROTO, "hello: refused, probe refused too");
	is_str(err.msg, "ABI mismatch: kprof.ko refused kprofctl " KPROF_VERSION " (ABI " KP_TEST_ABI "): "
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

static void session_init(struct kp_session *s)
{
	memset(s, 0, sizeof(*s));
	s->flags = KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_KERNEL_STACK;
	s->freq = 4000;
	s->buffer_size = 1 << 16;
	s->stack_depth = 127;
	s->nr_events = 3;
	s->events[0].type = 1;
	s->events[0].config = 0;
	snprintf(s->events[0].name, KPROF_EVENT_NAME_MAX, "cpu-clock");
	s->events[1].type = 3;
	s->events[1].config = 0x10002;
	s->events[1].flags = KPROF_EV_F_EXCLUDE_KERNEL;
	snprintf(s->events[1].name, KPROF_EVENT_NAME_MAX, "LLC-load-misses:u");
	s->events[2].type = 4;
	s->events[2].config = 0x123456789abcdefULL;
	s->events[2].flags = KPROF_EV_F_EXCLUDE_USER;
	snprintf(s->events[2].name, KPROF_EVENT_NAME_MAX, "r123456789abcdef:k");
}

static void test_start(void)
{
	struct kp_start_info info;
	struct kp_status_info st;
	struct kp_stop_info stop;
	struct kp_stats *cpus;
	struct kp_session s;
	unsigned int nr, i;
	struct kp_err err;
	struct kp_nl *nl;
	char want[KP_ERR_MSG_MAX];

	fake_kprof__reset();
	nl = kp_nl__open(&err);
	session_init(&s);
	s.cpus_bytes = 16;
	s.cpus[0] = 0xf0;
	s.cpus[1] = 1;
	s.watermark = 4096;
	is_int(kp_nl__start(nl, &s, &info, &err), 0, "START: accepted");
	ok(fake.last_cmd == KPROF_CMD_START, "START: command");
	ok(info.session_id == 1 && info.buffer_size == 1 << 16 && info.nr_cpus == 4 &&
	   info.mmap_stride == 4096 + (1 << 16), "START: reply");
	ok(!memcmp(&fake.start_req, &s, sizeof(s)), "START: the module parsed back every field");
	ok(!fake.saw_period && fake.saw_watermark, "START: FREQ, not PERIOD; WATERMARK");
	is_int(fake.nr_unnested, 0, "START: events carry NLA_F_NESTED");
	{
		struct nl_msg *msg = reply_new(KPROF_CMD_START);
		struct nlattr *nla, *e;
		int rem, erem, pads = 0, events = 0;

		s.freq = 0;
		s.period = 12345;
		ok(!kp_start__put(msg, &s, NULL), "START attributes built");
		nlmsg_for_each_attr(nla, nlmsg_hdr(msg), GENL_HDRLEN, rem) {
			pads += nla_type(nla) == KPROF_A_PAD;
			if (nla_type(nla) != KPROF_A_SESSION_EVENT)
				continue;
			events++;
			nla_for_each_nested(e, nla, erem)
				pads += nla_type(e) == KPROF_EV_A_PAD;
		}
		ok(!pads && events == 3,
		   "START: no PAD attribute (kprof.ko's strict policies refuse them), 3 event nests");
		nlmsg_free(msg);
		s.freq = 4000;
		s.period = 0;
	}

	is_int(kp_nl__status(nl, &st, &err), 0, "STATUS with a session");
	ok(st.has_session && st.session_id == 1 && st.session_flags == s.flags &&
	   st.buffer_size == 1 << 16 && st.mmap_stride == 4096 + (1 << 16) && st.has_stats,
	   "STATUS: session attributes");

	is_int(kp_nl__start(nl, &s, &info, &err), -EBUSY, "START while running: EBUSY");
	is_str(err.msg, "session 1 is running; stop it first with 'kprofctl stop'",
	       "EBUSY: names the running session");

	/* ABI 1.10: at the module's limit, say which sessions hold it */
	fake.start_errno = ENOSPC;
	fake.start_extack = "kprof: too many sessions (module parameter max_sessions); kprofctl status lists them";
	fake.nr_table = 2;
	fake.table[0] = (struct kp_session_row){ .id = 1, .state = KPROF_STATE_RUNNING };
	fake.table[1] = (struct kp_session_row){ .id = 4, .state = KPROF_STATE_STOPPED,
		.owner_pid = 77, .uid = 1000 };
	is_int(kp_nl__start(nl, &s, &info, &err), -ENOSPC, "START at the limit: ENOSPC");
	is_str(err.msg, "kprof.ko holds as many sessions as its max_sessions parameter allows (2): "
	       "1 (running, detached, uid 0), 4 (stopped, pid 77, uid 1000); "
	       "stop one with 'kprofctl stop --id N'", "ENOSPC: names the sessions");
	/* over the memory budget instead: the memory each session takes */
	fake.start_extack = "kprof: the sessions' memory would exceed the budget (module parameter max_memory_mb); kprofctl status lists them";
	fake.table[0].mem = 9ULL << 20;
	fake.table[1].mem = 48ULL << 20;
	fake.status.has_budget = true;
	fake.status.mem = 57ULL << 20;
	fake.status.budget = 58ULL << 20;
	is_int(kp_nl__start(nl, &s, &info, &err), -ENOSPC, "START over the budget: ENOSPC");
	is_str(err.msg, "the session would take kprof.ko's sessions over their memory budget "
	       "(57.0 of 58.0 MiB in use, module parameter max_memory_mb): 1 (running, 9.0 MiB), "
	       "4 (stopped, 48.0 MiB); stop one with 'kprofctl stop --id N', or ask for less "
	       "(-m, --agg-entries, -C)", "ENOSPC over the budget: names the sessions' memory");
	fake.status.has_budget = false;
	fake.start_errno = 0;
	fake.nr_table = 0;

	fake.stats.v[KP_STAT_INVOCATIONS] = 10;
	fake.stats.v[KP_STAT_SAMPLES] = 7;
	fake.stats.v[KP_STAT_LOST_FULL] = 2;
	fake.stats.v[KP_STAT_LOST_TOO_BIG] = 1;
	fake.stats.v[KP_STAT_USTACK_FAULT] = 1ULL << 40;
	is_int(kp_nl__stop(nl, &stop, &err), 0, "STOP");
	ok(stop.session_id == 1 && stop.stats.v[KP_STAT_SAMPLES] == 7 &&
	   stop.stats.v[KP_STAT_USTACK_FAULT] == 1ULL << 40 && !stop.stats.has_cpu &&
	   kp_stats__balanced(&stop.stats), "STOP: totals");
	ok(!stop.stats.has_filtered, "STOP: no filtered count from a module that sends none");
	is_int(kp_nl__stop(nl, &stop, &err), -ENOENT, "STOP again: ENOENT");
	is_str(err.msg, "No such file or directory: no session is running", "STOP again: extack");

	for (i = 0; i < 4; i++) {
		fake.cpu_stats[i].v[KP_STAT_INVOCATIONS] = i * 2;
		fake.cpu_stats[i].v[KP_STAT_SAMPLES] = i;
		fake.cpu_stats[i].v[KP_STAT_LOST_FULL] = i;
	}
	fake.cpu_stats[1].has_filtered = true;
	fake.cpu_stats[1].filtered = 1ULL << 35;
	is_int(kp_nl__stats(nl, &cpus, &nr, &err), 0, "STATS dump");
	ok(nr == 4 && cpus[3].has_cpu && cpus[3].cpu == 3 && cpus[3].v[KP_STAT_SAMPLES] == 3 &&
	   kp_stats__balanced(&cpus[2]), "STATS: one entry per CPU");
	ok(nr == 4 && cpus[1].has_filtered && cpus[1].filtered == 1ULL << 35 &&
	   !cpus[0].has_filtered, "STATS: the filtered count, where the module sends it");
	fake.cpu_stats[1].has_filtered = false;
	free(cpus);
	fake.cpu_stats[1].v[KP_STAT_INVOCATIONS] = 5;
	ok(!kp_nl__stats(nl, &cpus, &nr, &err) && !kp_stats__balanced(&cpus[1]),
	   "STATS: an unbalanced CPU is seen");
	free(cpus);

	/* A period, PIDs and no CPUs. */
	session_init(&s);
	s.flags = KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_USER_STACK;
	s.freq = 0;
	s.period = 1ULL << 62;
	s.nr_pids = 2;
	s.pids[0] = 10;
	s.pids[1] = 20;
	is_int(kp_nl__start(nl, &s, &info, &err), 0, "START: period and PIDs");
	ok(!memcmp(&fake.start_req, &s, sizeof(s)) && fake.saw_period && !fake.saw_watermark,
	   "START: period and PIDs parsed back");
	ok(info.session_id == 2, "START: second session");

	/* Errors. */
	fake_kprof__reset();
	fake.start_errno = EOPNOTSUPP;
	fake.start_extack = "event 1 (LLC-load-misses:u): perf cannot create the counter";
	is_int(kp_nl__start(nl, &s, &info, &err), -EOPNOTSUPP, "START: EOPNOTSUPP");
	is_str(err.msg, "Operation not supported: event 1 (LLC-load-misses:u): perf cannot create the counter",
	       "START: the module's extack");
	fake_kprof__reset();
	fake.start_bad_event = 2;
	is_int(kp_nl__start(nl, &s, &info, &err), -EINVAL, "START: one event refused");
	snprintf(want, sizeof(want),
		 "Invalid argument: kprof: cannot probe this function (missing, notrace or blacklisted) (event '%s')",
		 s.events[1].name);
	is_str(err.msg, want, "START: the refused event is named from the extack's offset");
	fake_kprof__reset();
	fake.privileged = false;
	is_int(kp_nl__start(nl, &s, &info, &err), -EPERM, "START: EPERM");
	fake_kprof__reset();
	fake.omit_attr = KPROF_A_SESSION_MMAP_STRIDE;
	is_int(kp_nl__start(nl, &s, &info, &err), -EBADMSG, "START: reply without stride");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_SESSION_MMAP_STRIDE is missing",
	       "START: names the missing attribute");
	fake_kprof__reset();
	fake.mmap_stride = 4096 + 100;
	is_int(kp_nl__start(nl, &s, &info, &err), -EBADMSG, "START: stride not page-aligned");
	fake_kprof__reset();
	fake.omit_stat = KPROF_STATS_A_HANDLER_NS;
	kp_nl__start(nl, &s, &info, &err);
	is_int(kp_nl__stop(nl, &stop, &err), -EBADMSG, "STOP: stats without HANDLER_NS");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_STATS_A_HANDLER_NS is missing",
	       "STOP: names the missing counter");
	fake_kprof__reset();
	is_int(kp_nl__stats(nl, &cpus, &nr, &err), -ENOENT, "STATS without a session");
	ok(!cpus && !nr, "STATS error: nothing returned");
	kp_nl__delete(nl);
}

static void test_stats_parse(void)
{
	struct kp_stats st;
	struct kp_err err;
	struct nl_msg *msg;
	struct nlattr *nest;
	unsigned int i;

	msg = reply_new(KPROF_CMD_STATS);
	nest = nla_nest_start(msg, KPROF_A_STATS);
	nla_put_u32(msg, KPROF_STATS_A_CPU, 5);
	for (i = 0; i < KP_STATS_NR; i++)
		nla_put_u64(msg, KPROF_STATS_A_INVOCATIONS + i, 100 + i);
	nla_nest_end(msg, nest);
	ok(!kp_stats__parse_msg(nlmsg_hdr(msg), &st, &err) && st.has_cpu && st.cpu == 5 &&
	   st.v[0] == 100 && st.v[KP_STATS_NR - 1] == 100 + KP_STATS_NR - 1, "stats: parsed");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_STATS);
	nest = nla_nest_start(msg, KPROF_A_STATS);
	for (i = 0; i < KP_STATS_NR; i++)
		nla_put_u64(msg, KPROF_STATS_A_INVOCATIONS + i, 1);
	nla_nest_end(msg, nest);
	is_int(kp_stats__parse_msg(nlmsg_hdr(msg), &st, &err), -EBADMSG, "stats dump: no CPU");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_STATS_A_CPU is missing",
	       "stats dump: no CPU message");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_STATS);
	nest = nla_nest_start(msg, KPROF_A_STATS);
	nla_put_u32(msg, KPROF_STATS_A_CPU, 0);
	for (i = 0; i < KP_STATS_NR; i++)
		nla_put_u32(msg, KPROF_STATS_A_INVOCATIONS + i, 1);
	nla_nest_end(msg, nest);
	is_int(kp_stats__parse_msg(nlmsg_hdr(msg), &st, &err), -EBADMSG, "stats: u32 counters");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_STATS_A_INVOCATIONS has 4 bytes, expected 8",
	       "stats: wrong size message");
	nlmsg_free(msg);

	is_str(kp_stat__name(KP_STAT_LOST_TOO_BIG), "lost_too_big", "stat name");
	is_str(kp_stat__name(KP_STATS_NR), "unknown", "stat name: out of range");
}

static void test_swap_parse(void)
{
	struct kp_agg_interval iv;
	struct kp_err err;
	struct nl_msg *msg;

	msg = reply_new(KPROF_CMD_AGG_SWAP);
	nla_put_u64(msg, KPROF_A_SESSION_ID, 3);
	nla_put_u64(msg, KPROF_A_AGG_EPOCH, 7);
	nla_put_u64(msg, KPROF_A_AGG_START_NS, 1000);
	nla_put_u64(msg, KPROF_A_AGG_END_NS, 5000);
	ok(!kp_swap__parse(nlmsg_hdr(msg), &iv, &err) && iv.epoch == 7 && iv.start_ns == 1000 &&
	   iv.end_ns == 5000, "swap: epoch and interval parsed");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_AGG_SWAP);
	nla_put_u64(msg, KPROF_A_AGG_EPOCH, 7);
	nla_put_u64(msg, KPROF_A_AGG_START_NS, 1000);
	is_int(kp_swap__parse(nlmsg_hdr(msg), &iv, &err), -EBADMSG, "swap: no end");
	is_str(err.msg, "malformed reply from kprof.ko: KPROF_A_AGG_END_NS is missing",
	       "swap: no end, named");
	nlmsg_free(msg);

	msg = reply_new(KPROF_CMD_AGG_SWAP);
	nla_put_u64(msg, KPROF_A_AGG_EPOCH, 7);
	nla_put_u64(msg, KPROF_A_AGG_START_NS, 5000);
	nla_put_u64(msg, KPROF_A_AGG_END_NS, 1000);
	is_int(kp_swap__parse(nlmsg_hdr(msg), &iv, &err), -EBADMSG, "swap: ends before it starts");
	is_str(err.msg, "malformed reply from kprof.ko: an interval that ends (1000) before it starts (5000)",
	       "swap: ends before it starts, named");
	nlmsg_free(msg);
}

int main(void)
{
	test_version_parse();
	test_status_parse();
	test_handshake();
	test_start();
	test_stats_parse();
	test_swap_parse();
	return done_testing();
}
