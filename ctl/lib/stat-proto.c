// SPDX-License-Identifier: GPL-2.0
/*
 * KPROF_CMD_COUNT_START, _READ and _STOP: requests and strict reply
 * parsers; see stat.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/kprof.h>

#include "proto.h"
#include "stat.h"
#include "util.h"

#define MALFORMED	"malformed reply from kprof.ko: "

/* The sizes every KPROF_COUNT_A_* must have; 0: string, -1: unchecked. */
static const int count_attr_len[KPROF_COUNT_A_MAX + 1] = {
	[KPROF_COUNT_A_EVENT]	= 4,
	[KPROF_COUNT_A_NAME]	= 0,
	[KPROF_COUNT_A_CPU]	= 4,
	[KPROF_COUNT_A_VALUE]	= 8,
	[KPROF_COUNT_A_ENABLED]	= 8,
	[KPROF_COUNT_A_RUNNING]	= 8,
	[KPROF_COUNT_A_ERROR]	= 4,
	[KPROF_COUNT_A_PAD]	= -1,
	[KPROF_COUNT_A_TYPE]	= 4,
	[KPROF_COUNT_A_CONFIG]	= 8,
	[KPROF_COUNT_A_STATE]	= 4,
	[KPROF_COUNT_A_ELAPSED]	= 8,
};

static const char * const count_attr_names[KPROF_COUNT_A_MAX + 1] = {
	[KPROF_COUNT_A_EVENT]	= "KPROF_COUNT_A_EVENT",
	[KPROF_COUNT_A_NAME]	= "KPROF_COUNT_A_NAME",
	[KPROF_COUNT_A_CPU]	= "KPROF_COUNT_A_CPU",
	[KPROF_COUNT_A_VALUE]	= "KPROF_COUNT_A_VALUE",
	[KPROF_COUNT_A_ENABLED]	= "KPROF_COUNT_A_ENABLED",
	[KPROF_COUNT_A_RUNNING]	= "KPROF_COUNT_A_RUNNING",
	[KPROF_COUNT_A_ERROR]	= "KPROF_COUNT_A_ERROR",
	[KPROF_COUNT_A_PAD]	= "KPROF_COUNT_A_PAD",
	[KPROF_COUNT_A_TYPE]	= "KPROF_COUNT_A_TYPE",
	[KPROF_COUNT_A_CONFIG]	= "KPROF_COUNT_A_CONFIG",
	[KPROF_COUNT_A_STATE]	= "KPROF_COUNT_A_STATE",
	[KPROF_COUNT_A_ELAPSED]	= "KPROF_COUNT_A_ELAPSED",
};

/* A KPROF_A_COUNT nest: every attribute of its exact size. */
static int parse_count_nest(struct nlattr *nest, struct nlattr **tb, struct kp_err *err)
{
	int type, len, ret;

	ret = nla_parse_nested(tb, KPROF_COUNT_A_MAX, nest, NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_COUNT: %s", nl_geterror(ret));
		return -EBADMSG;
	}
	for (type = 1; type <= KPROF_COUNT_A_MAX; type++) {
		if (!tb[type] || count_attr_len[type] < 0)
			continue;
		len = nla_len(tb[type]);
		if (!count_attr_len[type] ? !len || !memchr(nla_data(tb[type]), '\0', len) :
		    len != count_attr_len[type]) {
			kp_err__set(err, EBADMSG, MALFORMED "%s has %d bytes", count_attr_names[type],
				    len);
			return -EBADMSG;
		}
	}
	if (!tb[KPROF_COUNT_A_EVENT]) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_COUNT_A_EVENT is missing");
		return -EBADMSG;
	}
	return 0;
}

/* Check a reply's header and command; its attributes into @tb. */
static int parse_reply(const struct nlmsghdr *nlh, uint8_t cmd, struct nlattr **tb,
		       struct kp_err *err)
{
	int ret;

	ret = kp_reply__check_header(nlh, cmd, err);
	if (ret)
		return ret;
	ret = genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, KPROF_A_MAX, NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "%s", nl_geterror(ret));
		return -EBADMSG;
	}
	if (!tb[KPROF_A_SESSION_ID] || nla_len(tb[KPROF_A_SESSION_ID]) != 8) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_SESSION_ID is missing");
		return -EBADMSG;
	}
	return 0;
}

int kp_stat_start__parse(const struct nlmsghdr *nlh, struct kp_stat_start_info *info,
			 unsigned int nr_events, struct kp_err *err)
{
	struct nlattr *tb[KPROF_A_MAX + 1], *ctb[KPROF_COUNT_A_MAX + 1], *nla;
	struct nlmsghdr *h = (struct nlmsghdr *)nlh;
	uint32_t ev;
	int ret, rem;

	memset(info, 0, sizeof(*info));
	ret = parse_reply(nlh, KPROF_CMD_COUNT_START, tb, err);
	if (ret)
		return ret;
	info->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(h), 0),
			  genlmsg_attrlen(nlmsg_data(h), 0), rem) {
		if (nla_type(nla) != KPROF_A_COUNT)
			continue;
		ret = parse_count_nest(nla, ctb, err);
		if (ret)
			return ret;
		ev = nla_get_u32(ctb[KPROF_COUNT_A_EVENT]);
		if (ev >= nr_events || ev >= KPROF_MAX_EVENTS) {
			kp_err__set(err, EBADMSG, MALFORMED "event %u of %u", ev, nr_events);
			return -EBADMSG;
		}
		if (ctb[KPROF_COUNT_A_ERROR])
			info->error[ev] = nla_get_u32(ctb[KPROF_COUNT_A_ERROR]);
	}
	return 0;
}

int kp_stat_count__parse(const struct nlmsghdr *nlh, struct kp_stat_count *c, uint64_t *id,
			 char *name, struct kp_err *err)
{
	struct nlattr *tb[KPROF_A_MAX + 1], *ctb[KPROF_COUNT_A_MAX + 1];
	int ret;

	memset(c, 0, sizeof(*c));
	if (name)
		name[0] = '\0';
	ret = parse_reply(nlh, KPROF_CMD_COUNT_READ, tb, err);
	if (ret)
		return ret;
	*id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	if (!tb[KPROF_A_COUNT]) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_COUNT is missing");
		return -EBADMSG;
	}
	ret = parse_count_nest(tb[KPROF_A_COUNT], ctb, err);
	if (ret)
		return ret;
	c->event = nla_get_u32(ctb[KPROF_COUNT_A_EVENT]);
	if (name && ctb[KPROF_COUNT_A_NAME])
		snprintf(name, KPROF_EVENT_NAME_MAX, "%s",
			 (const char *)nla_data(ctb[KPROF_COUNT_A_NAME]));
	c->cpu = ctb[KPROF_COUNT_A_CPU] ? (int32_t)nla_get_u32(ctb[KPROF_COUNT_A_CPU]) : -1;
	if (c->cpu < -1 || c->cpu >= KP_CPUMAP_MAX_CPUS) {
		kp_err__set(err, EBADMSG, MALFORMED "CPU %d", c->cpu);
		return -EBADMSG;
	}
	if (ctb[KPROF_COUNT_A_TYPE])
		c->perf_type = nla_get_u32(ctb[KPROF_COUNT_A_TYPE]);
	if (ctb[KPROF_COUNT_A_CONFIG])
		c->config = nla_get_u64(ctb[KPROF_COUNT_A_CONFIG]);
	if (ctb[KPROF_COUNT_A_STATE]) {
		c->state = nla_get_u32(ctb[KPROF_COUNT_A_STATE]);
		if (c->state != KPROF_COUNT_STATE_RUNNING && c->state != KPROF_COUNT_STATE_STOPPED) {
			kp_err__set(err, EBADMSG, MALFORMED "KPROF_COUNT_A_STATE %u", c->state);
			return -EBADMSG;
		}
	}
	if (ctb[KPROF_COUNT_A_ELAPSED])
		c->elapsed_ns = nla_get_u64(ctb[KPROF_COUNT_A_ELAPSED]);
	if (ctb[KPROF_COUNT_A_ERROR]) {
		c->error = nla_get_u32(ctb[KPROF_COUNT_A_ERROR]);
		if (!c->error) {
			kp_err__set(err, EBADMSG, MALFORMED "KPROF_COUNT_A_ERROR is 0");
			return -EBADMSG;
		}
		return 0;
	}
	if (!ctb[KPROF_COUNT_A_VALUE] || !ctb[KPROF_COUNT_A_ENABLED] ||
	    !ctb[KPROF_COUNT_A_RUNNING]) {
		kp_err__set(err, EBADMSG, MALFORMED "a count without value, enabled and running");
		return -EBADMSG;
	}
	c->value = nla_get_u64(ctb[KPROF_COUNT_A_VALUE]);
	c->enabled = nla_get_u64(ctb[KPROF_COUNT_A_ENABLED]);
	c->running = nla_get_u64(ctb[KPROF_COUNT_A_RUNNING]);
	return 0;
}

static struct nl_msg *request_new(struct kp_nl *nl, uint8_t cmd, int flags, struct kp_err *err)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0, flags,
			       cmd, KPROF_FAMILY_VERSION))
		return msg;
	nlmsg_free(msg);
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return NULL;
}

/* No PAD attributes: kprof.ko's strict policies refuse them (see proto.c). */
static int put_event(struct nl_msg *msg, const struct kp_event *ev)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, KPROF_A_SESSION_EVENT | NLA_F_NESTED);
	if (!nest ||
	    nla_put_u32(msg, KPROF_EV_A_TYPE, ev->type) < 0 ||
	    nla_put_u64(msg, KPROF_EV_A_CONFIG, ev->config) < 0 ||
	    nla_put_u32(msg, KPROF_EV_A_FLAGS, ev->flags) < 0 ||
	    nla_put_string(msg, KPROF_EV_A_NAME, ev->name) < 0)
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int kp_stat_start__put(struct nl_msg *msg, const struct kp_session *s, uint32_t count_flags)
{
	bool system_wide = s->flags & KPROF_SESSION_F_SYSTEM_WIDE;
	uint32_t i;

	if (nla_put_u32(msg, KPROF_A_SESSION_FLAGS,
			s->flags & (KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_INHERIT |
				    KPROF_SESSION_F_THREADS)) < 0)
		return -EMSGSIZE;
	if (count_flags && nla_put_u32(msg, KPROF_A_COUNT_FLAGS, count_flags) < 0)
		return -EMSGSIZE;
	if (system_wide && s->cpus_bytes &&
	    nla_put(msg, KPROF_A_SESSION_CPUS, s->cpus_bytes, s->cpus) < 0)
		return -EMSGSIZE;
	for (i = 0; !system_wide && i < s->nr_pids; i++)
		if (nla_put_u32(msg, KPROF_A_SESSION_PID, s->pids[i]) < 0)
			return -EMSGSIZE;
	for (i = 0; i < s->nr_events; i++)
		if (put_event(msg, &s->events[i]))
			return -EMSGSIZE;
	return 0;
}

struct start_ctx {
	struct kp_stat_start_info	*info;
	unsigned int			nr_events;
};

static int start_reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct start_ctx *ctx = arg;

	return kp_stat_start__parse(nlh, ctx->info, ctx->nr_events, err);
}

int kp_nl__count_start(struct kp_nl *nl, const struct kp_session *s, uint32_t count_flags,
		       struct kp_stat_start_info *info, struct kp_err *err)
{
	struct start_ctx ctx = { .info = info, .nr_events = s->nr_events };
	struct nl_msg *msg;
	int ret;

	memset(info, 0, sizeof(*info));
	msg = request_new(nl, KPROF_CMD_COUNT_START, 0, err);
	if (!msg)
		return -ENOMEM;
	if (kp_stat_start__put(msg, s, count_flags)) {
		nlmsg_free(msg);
		kp_err__set(err, EMSGSIZE, "the counting request is too large");
		return -EMSGSIZE;
	}
	ret = kp_nl__request(nl, msg, start_reply, &ctx, err);
	if (!ret && !info->session_id) {
		kp_err__set(err, EBADMSG, MALFORMED "no COUNT_START reply");
		return -EBADMSG;
	}
	if (ret == -EBUSY)
		kp_err__set(err, EBUSY,
			    "a counting session is running (another 'kprofctl stat'?); this kprof.ko counts one at a time");
	return ret;
}

struct read_ctx {
	struct kp_stat_counts	*counts;
	uint64_t		id;
	unsigned int		nr_events;
};

static int read_reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct read_ctx *ctx = arg;
	struct kp_stat_counts *counts = ctx->counts;
	char name[KPROF_EVENT_NAME_MAX];
	struct kp_stat_count *n;
	uint64_t id;
	int ret;

	if (counts->nr == counts->cap) {
		/* at most one per event and CPU */
		if (counts->cap >= KPROF_MAX_EVENTS * KP_CPUMAP_MAX_CPUS) {
			kp_err__set(err, EBADMSG, MALFORMED "too many counts");
			return -EBADMSG;
		}
		n = reallocarray(counts->c, counts->cap ? counts->cap * 2 : 64, sizeof(*n));
		if (!n) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		counts->c = n;
		counts->cap = counts->cap ? counts->cap * 2 : 64;
	}
	ret = kp_stat_count__parse(nlh, &counts->c[counts->nr], &id, name, err);
	if (ret)
		return ret;
	if (ctx->id && id != ctx->id) {
		kp_err__set(err, ESTALE, "counting session %" PRIu64 " replaced by %" PRIu64,
			    ctx->id, id);
		return -ESTALE;
	}
	if (counts->c[counts->nr].event >= ctx->nr_events) {
		kp_err__set(err, EBADMSG, MALFORMED "event %u of %u",
			    counts->c[counts->nr].event, ctx->nr_events);
		return -EBADMSG;
	}
	counts->session_id = id;
	if (counts->c[counts->nr].state) {
		/* one read: every message says the same */
		counts->state = counts->c[counts->nr].state;
		counts->elapsed_ns = counts->c[counts->nr].elapsed_ns;
	}
	if (counts->c[counts->nr].event < KPROF_MAX_EVENTS) {
		if (name[0])
			memcpy(counts->names[counts->c[counts->nr].event], name, sizeof(name));
		if (counts->c[counts->nr].event >= counts->nr_events)
			counts->nr_events = counts->c[counts->nr].event + 1;
	}
	counts->nr++;
	return 0;
}

int kp_nl__count_read(struct kp_nl *nl, uint64_t id, unsigned int nr_events,
		      struct kp_stat_counts *counts, struct kp_err *err)
{
	struct read_ctx ctx = { .counts = counts, .id = id, .nr_events = nr_events };
	struct nl_msg *msg;

	counts->nr = 0;
	counts->session_id = 0;
	counts->nr_events = 0;
	counts->state = 0;
	counts->elapsed_ns = 0;
	memset(counts->names, 0, sizeof(counts->names));
	msg = request_new(nl, KPROF_CMD_COUNT_READ, NLM_F_DUMP, err);
	if (!msg)
		return -ENOMEM;
	if (id && nla_put_u64(msg, KPROF_A_SESSION_ID, id) < 0) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return kp_nl__request(nl, msg, read_reply, &ctx, err);
}

static int stop_reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct nlattr *tb[KPROF_A_MAX + 1];

	(void)arg;
	return parse_reply(nlh, KPROF_CMD_COUNT_STOP, tb, err);
}

int kp_nl__count_stop(struct kp_nl *nl, uint64_t id, struct kp_err *err)
{
	struct nl_msg *msg;

	msg = request_new(nl, KPROF_CMD_COUNT_STOP, 0, err);
	if (!msg)
		return -ENOMEM;
	if (id && nla_put_u64(msg, KPROF_A_SESSION_ID, id) < 0) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return kp_nl__request(nl, msg, stop_reply, NULL, err);
}
