// SPDX-License-Identifier: GPL-2.0
/*
 * The fake kprof.ko's counting session; see fake-count.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "fake-count.h"
#include "fake-nl.h"
#include "lib/util.h"

struct fake_count fake_count;

/*
 * The commands read the clock once after COUNT_START (the start of the
 * counting) and again later: from the second read on, elapsed_ns has passed.
 */
static uint64_t fake_count_clock(void)
{
	if (fake_count.clock_reads++ == 1)
		fake_count.now_ns += fake_count.elapsed_ns;
	return fake_count.now_ns;
}

void fake_count__reset(void)
{
	memset(&fake_count, 0, sizeof(fake_count));
	fake_count.nr_cpus = 2;
	fake_count.now_ns = 1000000000ULL;
	kp_clock_ns = fake_count_clock;
}

static struct nl_msg *count_msg(int family, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 42, family, 0, flags, cmd, KPROF_FAMILY_VERSION))
		abort();
	return msg;
}

static void count_put(struct nl_msg *msg, int type, const void *data, int len)
{
	char buf[16] = { 0 };

	if (type == fake_count.bad_attr) {
		memcpy(buf, data, len);
		data = buf;
		len++;
	}
	if (nla_put(msg, type, len, data) < 0)
		abort();
}

static void count_put_u32(struct nl_msg *msg, int type, uint32_t v)
{
	count_put(msg, type, &v, sizeof(v));
}

/* Like nla_put_u64_64bit(): a PAD first when the payload would be unaligned. */
static void count_put_u64(struct nl_msg *msg, int type, int pad, uint64_t v)
{
	if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 && nla_put(msg, pad, 0, NULL) < 0)
		abort();
	count_put(msg, type, &v, sizeof(v));
}

static int count_start(int family, const struct nlmsghdr *nlh, kp_nl_reply_fn fn, void *arg,
		       struct kp_err *err)
{
	struct nlattr *nla, *etb[KPROF_EV_A_MAX + 1];
	struct kp_session *s = &fake_count.req;
	struct kp_event *ev;
	struct nlattr *nest;
	struct nl_msg *msg;
	uint32_t i;
	int rem, ret = 0;

	fake_count.nr_starts++;
	if (fake_count.counting)
		return fake_error(EBUSY, "kprof: a counting session is already running", err);
	if (fake_count.start_errno)
		return fake_error(fake_count.start_errno, fake_count.start_extack, err);
	memset(s, 0, sizeof(*s));
	fake_count.count_flags = 0;
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		switch (nla_type(nla)) {
		case KPROF_A_SESSION_FLAGS:
			s->flags = nla_get_u32(nla);
			break;
		case KPROF_A_COUNT_FLAGS:
			fake_count.count_flags = nla_get_u32(nla);
			break;
		case KPROF_A_SESSION_PID:
			s->pids[s->nr_pids++] = nla_get_u32(nla);
			break;
		case KPROF_A_SESSION_CPUS:
			s->cpus_bytes = nla_len(nla);
			memcpy(s->cpus, nla_data(nla), s->cpus_bytes);
			break;
		case KPROF_A_SESSION_EVENT:
			if (!(nla->nla_type & NLA_F_NESTED) ||
			    nla_parse_nested(etb, KPROF_EV_A_MAX, nla, NULL) ||
			    !etb[KPROF_EV_A_TYPE] || !etb[KPROF_EV_A_CONFIG] || !etb[KPROF_EV_A_NAME])
				return fake_error(EINVAL, "bad event", err);
			ev = &s->events[s->nr_events++];
			ev->type = nla_get_u32(etb[KPROF_EV_A_TYPE]);
			ev->config = nla_get_u64(etb[KPROF_EV_A_CONFIG]);
			ev->flags = etb[KPROF_EV_A_FLAGS] ? nla_get_u32(etb[KPROF_EV_A_FLAGS]) : 0;
			snprintf(ev->name, sizeof(ev->name), "%s",
				 (char *)nla_data(etb[KPROF_EV_A_NAME]));
			break;
		default:
			/* kprof.ko's strict policy refuses anything else */
			return fake_error(EINVAL, "Unsupported attribute", err);
		}
	}
	if (!s->nr_events)
		return fake_error(EINVAL, "kprof: a session needs at least one event", err);
	if (!(s->flags & KPROF_SESSION_F_SYSTEM_WIDE) && !s->nr_pids)
		return fake_error(EINVAL, "kprof: a per-task session needs at least one PID", err);

	fake_count.counting = true;
	fake_count.session_id = ++fake_count.last_id;
	fake_count.clock_reads = 0;
	msg = count_msg(family, KPROF_CMD_COUNT_START, 0);
	count_put_u64(msg, KPROF_A_SESSION_ID, KPROF_A_PAD, fake_count.session_id);
	for (i = 0; i < s->nr_events; i++) {
		nest = nla_nest_start(msg, KPROF_A_COUNT);
		count_put_u32(msg, KPROF_COUNT_A_EVENT, i);
		count_put(msg, KPROF_COUNT_A_NAME, s->events[i].name, strlen(s->events[i].name) + 1);
		if (fake_count.error[i])
			count_put_u32(msg, KPROF_COUNT_A_ERROR, fake_count.error[i]);
		nla_nest_end(msg, nest);
	}
	if (fn)
		ret = fn(nlmsg_hdr(msg), arg, err);
	nlmsg_free(msg);
	return ret;
}

static int count_read(int family, const struct nlmsghdr *nlh, kp_nl_reply_fn fn, void *arg,
		      struct kp_err *err)
{
	struct nlattr *tb[KPROF_A_MAX + 1], *nest;
	const struct kp_session *s = &fake_count.req;
	bool system_wide = s->flags & KPROF_SESSION_F_SYSTEM_WIDE;
	unsigned int ev, cpu, ncpu;
	struct nl_msg *msg;
	int ret = 0;

	if (!(nlh->nlmsg_flags & NLM_F_DUMP))
		return fake_error(EOPNOTSUPP, NULL, err);
	fake_count.nr_reads++;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, KPROF_A_MAX, NULL) < 0)
		return fake_error(EINVAL, "invalid attribute", err);
	fake_count.read_id = tb[KPROF_A_SESSION_ID] ? nla_get_u64(tb[KPROF_A_SESSION_ID]) : 0;
	if (!fake_count.session_id)
		return fake_done_error(ENOENT, "kprof: no counting session", err);
	if (fake_count.read_id && fake_count.read_id != fake_count.session_id)
		return fake_done_error(ESTALE, "kprof: that counting session is gone", err);
	if (fake_count.on_read)
		fake_count.on_read(fake_count.nr_reads);
	ncpu = system_wide ? fake_count.nr_cpus : 1;
	for (ev = 0; !ret && ev < s->nr_events; ev++) {
		for (cpu = 0; !ret && cpu < ncpu; cpu++) {
			msg = count_msg(family, KPROF_CMD_COUNT_READ, NLM_F_MULTI);
			if (!fake_count.no_id)
				count_put_u64(msg, KPROF_A_SESSION_ID, KPROF_A_PAD,
					      fake_count.session_id);
			nest = nla_nest_start(msg, KPROF_A_COUNT);
			count_put_u32(msg, KPROF_COUNT_A_EVENT, ev);
			count_put(msg, KPROF_COUNT_A_NAME, s->events[ev].name,
				  strlen(s->events[ev].name) + 1);
			if (system_wide)
				count_put_u32(msg, KPROF_COUNT_A_CPU, cpu);
			if (!fake_count.old_abi) {
				count_put_u32(msg, KPROF_COUNT_A_TYPE, s->events[ev].type);
				count_put_u64(msg, KPROF_COUNT_A_CONFIG, KPROF_COUNT_A_PAD,
					      s->events[ev].config);
				count_put_u32(msg, KPROF_COUNT_A_STATE, fake_count.counting ?
					      KPROF_COUNT_STATE_RUNNING : KPROF_COUNT_STATE_STOPPED);
				count_put_u64(msg, KPROF_COUNT_A_ELAPSED, KPROF_COUNT_A_PAD,
					      fake_count.counted_ns);
			}
			if (fake_count.error[ev]) {
				count_put_u32(msg, KPROF_COUNT_A_ERROR, fake_count.error[ev]);
			} else {
				count_put_u64(msg, KPROF_COUNT_A_VALUE, KPROF_COUNT_A_PAD,
					      fake_count.value[ev][cpu]);
				count_put_u64(msg, KPROF_COUNT_A_ENABLED, KPROF_COUNT_A_PAD,
					      fake_count.enabled[ev][cpu]);
				count_put_u64(msg, KPROF_COUNT_A_RUNNING, KPROF_COUNT_A_PAD,
					      fake_count.running[ev][cpu]);
			}
			nla_nest_end(msg, nest);
			if (fn)
				ret = fn(nlmsg_hdr(msg), arg, err);
			nlmsg_free(msg);
		}
	}
	return ret;
}

static int count_stop(int family, const struct nlmsghdr *nlh, kp_nl_reply_fn fn, void *arg,
		      struct kp_err *err)
{
	struct nlattr *tb[KPROF_A_MAX + 1];
	struct nl_msg *msg;
	int ret = 0;

	fake_count.nr_stops++;
	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, KPROF_A_MAX, NULL) < 0)
		return fake_error(EINVAL, "invalid attribute", err);
	fake_count.stop_id = tb[KPROF_A_SESSION_ID] ? nla_get_u64(tb[KPROF_A_SESSION_ID]) : 0;
	if (!fake_count.session_id)
		return fake_error(ENOENT, "kprof: no counting session", err);
	if (fake_count.stop_id && fake_count.stop_id != fake_count.session_id)
		return fake_error(ESTALE, "kprof: that counting session is gone", err);
	if (!fake_count.counting)
		return fake_error(ENOENT, "kprof: the counting session is stopped already", err);
	fake_count.counting = false;
	msg = count_msg(family, KPROF_CMD_COUNT_STOP, 0);
	count_put_u64(msg, KPROF_A_SESSION_ID, KPROF_A_PAD, fake_count.session_id);
	if (fn)
		ret = fn(nlmsg_hdr(msg), arg, err);
	nlmsg_free(msg);
	return ret;
}

int fake_count__request(int family, const struct nlmsghdr *nlh, kp_nl_reply_fn fn, void *arg,
			struct kp_err *err)
{
	const struct genlmsghdr *gh = nlmsg_data(nlh);

	switch (gh->cmd) {
	case KPROF_CMD_COUNT_START:
		return count_start(family, nlh, fn, arg, err);
	case KPROF_CMD_COUNT_READ:
		return count_read(family, nlh, fn, arg, err);
	case KPROF_CMD_COUNT_STOP:
		return count_stop(family, nlh, fn, arg, err);
	}
	return fake_error(EOPNOTSUPP, NULL, err);
}
