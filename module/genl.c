// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the "kprof" generic netlink family, the control plane.
 *
 * Documentation/netlink/specs/kprof.yaml is the source of truth for the
 * commands, attributes and per-operation policies below; 6.1 has no
 * ynl-gen, so the tables are written by hand to mirror the spec.
 *
 * Every operation has its own strict policy (resv_start_op is 0, so the
 * genetlink core validates strictly: unknown attributes, wrong lengths and
 * oversized strings are refused with -EINVAL and an extack message before a
 * handler runs).  Operations flagged KPROF_NL_PERFMON are refused with
 * -EPERM unless the sender has CAP_PERFMON or CAP_SYS_ADMIN; GENL_ADMIN_PERM
 * is not used because it tests CAP_NET_ADMIN, the wrong capability.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/hw_breakpoint.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "agg.h"
#include "aggread.h"
#include "compat.h"
#include "core.h"
#include "counting.h"
#include "debugfs.h"
#include "filter.h"
#include "genl.h"
#include "internal.h"
#include "probes.h"
#include "procmap.h"
#include "session.h"

/* genl_ops.internal_flags: the operation configures kprof or reads data. */
#define KPROF_NL_PERFMON	BIT(0)

static const struct nla_policy kprof_version_nl_policy[KPROF_A_VERSION_CLIENT + 1] = {
	[KPROF_A_VERSION_ABI]		= { .type = NLA_U32 },
	[KPROF_A_VERSION_CLIENT]	= { .type = NLA_NUL_STRING,
					    .len = KPROF_CLIENT_NAME_MAX - 1 },
};

/* not const: struct nla_policy points at them without const in 6.1 */
static struct netlink_range_validation kprof_period_range = {
	.min = 1,
	.max = KPROF_MAX_PERIOD,
};

static struct netlink_range_validation kprof_agg_entries_range = {
	.min = KPROF_AGG_MIN_ENTRIES,
	.max = KPROF_AGG_MAX_ENTRIES,
};

static struct netlink_range_validation kprof_buffer_size_range = {
	.min = KPROF_MIN_BUFFER_SIZE,
	.max = KPROF_MAX_BUFFER_SIZE,
};

static const struct nla_policy kprof_event_nl_policy[KPROF_EV_A_BP_LEN + 1] = {
	[KPROF_EV_A_TYPE]	= { .type = NLA_U32 },
	[KPROF_EV_A_CONFIG]	= { .type = NLA_U64 },
	[KPROF_EV_A_FLAGS]	= NLA_POLICY_MASK(NLA_U32, KPROF_EV_F_ALL),
	[KPROF_EV_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = KPROF_EVENT_NAME_MAX - 1 },
	[KPROF_EV_A_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U64, &kprof_period_range),
	[KPROF_EV_A_FILTER]	= { .type = NLA_BINARY, .len = KPROF_FILTER_MAX_BYTES },
	[KPROF_EV_A_SYMBOL]	= { .type = NLA_NUL_STRING, .len = KPROF_SYMBOL_MAX - 1 },
	[KPROF_EV_A_OFFSET]	= { .type = NLA_U32 },
	[KPROF_EV_A_MIN_NS]	= { .type = NLA_U64 },
	[KPROF_EV_A_MAX_NS]	= { .type = NLA_U64 },
	[KPROF_EV_A_BP_TYPE]	= NLA_POLICY_MASK(NLA_U32, KPROF_BP_F_ALL),
	[KPROF_EV_A_BP_LEN]	= NLA_POLICY_RANGE(NLA_U32, 1, 8),
};

static const struct nla_policy kprof_start_nl_policy[KPROF_A_SESSION_USER_STACK + 1] = {
	[KPROF_A_SESSION_FLAGS]		= NLA_POLICY_MASK(NLA_U32, KPROF_SESSION_F_ALL),
	[KPROF_A_SESSION_FREQ]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KPROF_A_SESSION_PERIOD]	= NLA_POLICY_FULL_RANGE(NLA_U64, &kprof_period_range),
	[KPROF_A_SESSION_CPUS]		= { .type = NLA_BINARY,
					    .len = KPROF_MAX_CPUS_BYTES },
	[KPROF_A_SESSION_PID]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KPROF_A_SESSION_BUFFER_SIZE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &kprof_buffer_size_range),
	[KPROF_A_SESSION_STACK_DEPTH]	= NLA_POLICY_RANGE(NLA_U32, 1, KPROF_MAX_STACK_DEPTH),
	[KPROF_A_SESSION_WATERMARK]	= NLA_POLICY_MIN(NLA_U32, 8),
	[KPROF_A_SESSION_EVENT]		= NLA_POLICY_NESTED(kprof_event_nl_policy),
	[KPROF_A_SESSION_AGG_ENTRIES]	= NLA_POLICY_FULL_RANGE(NLA_U32, &kprof_agg_entries_range),
	[KPROF_A_SESSION_USER_STACK]	= NLA_POLICY_MAX(NLA_U32, KPROF_USER_STACK_MAX),
};

/* COUNT_START: the events and target of START, no sampling attributes. */
static const struct nla_policy kprof_count_start_nl_policy[KPROF_A_COUNT_FLAGS + 1] = {
	[KPROF_A_SESSION_FLAGS]		= NLA_POLICY_MASK(NLA_U32, KPROF_SESSION_F_ALL),
	[KPROF_A_SESSION_CPUS]		= { .type = NLA_BINARY,
					    .len = KPROF_MAX_CPUS_BYTES },
	[KPROF_A_SESSION_PID]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KPROF_A_SESSION_EVENT]		= NLA_POLICY_NESTED(kprof_event_nl_policy),
	[KPROF_A_COUNT_FLAGS]		= NLA_POLICY_MASK(NLA_U32, KPROF_COUNT_F_ALL),
};

/*
 * Optionally, the session meant (0: as if absent): COUNT_READ and
 * COUNT_STOP's counting session; (1.10) STOP, STATUS, STATS, AGG_DUMP,
 * AGG_RESET, HIST_DUMP and AGG_MAPS's sampling session.
 */
static const struct nla_policy kprof_session_id_nl_policy[KPROF_A_SESSION_ID + 1] = {
	[KPROF_A_SESSION_ID]		= { .type = NLA_U64 },
};

/* AGG_DUMP: the session, and (1.15) the closed interval to read instead. */
static const struct nla_policy kprof_agg_dump_nl_policy[KPROF_A_AGG_EPOCH + 1] = {
	[KPROF_A_SESSION_ID]		= { .type = NLA_U64 },
	[KPROF_A_AGG_EPOCH]		= { .type = NLA_U64 },
};

static struct genl_family kprof_nl_family;

/*
 * The sampling session a request names: its KPROF_A_SESSION_ID, else the
 * default kprof_session_resolve() chooses for the requesting socket.
 */
static int kprof_nl_session(struct nlattr **attrs, struct net *net, u32 portid, u64 *id,
			    struct netlink_ext_ack *extack)
{
	u64 want = 0;

	if (attrs && attrs[KPROF_A_SESSION_ID])
		want = nla_get_u64(attrs[KPROF_A_SESSION_ID]);
	return kprof_session_resolve(want, net, portid, false, id, extack);
}

/* kprof_nl_session() for the first part of a dump. */
static int kprof_nl_dump_session(struct netlink_callback *cb, u64 *id)
{
	return kprof_nl_session(kprof_genl_dump_attrs(genl_dumpit_info(cb)),
				sock_net(cb->skb->sk), NETLINK_CB(cb->skb).portid, id,
				cb->extack);
}

/**
 * kprof_nl_capable() - does the sender of @skb hold the kprof privilege?
 * @skb: the request
 *
 * netlink_capable() checks both the socket's opener and the current task,
 * so a privileged socket handed to an unprivileged process does not confer
 * the privilege.
 *
 * Return: true for CAP_PERFMON or CAP_SYS_ADMIN in the initial namespace.
 */
static bool kprof_nl_capable(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) ||
	       netlink_capable(skb, CAP_SYS_ADMIN);
}

/*
 * Requests that got past the genetlink core's policy validation, by
 * command: handed to the handler, or refused for want of the privilege.
 * Read from debugfs ("netlink"); the netlink fuzzer asserts that its
 * messages reach every handler.
 */
static atomic_long_t kprof_nl_handled[KPROF_CMD_MAX + 1];
static atomic_long_t kprof_nl_refused[KPROF_CMD_MAX + 1];

static const char * const kprof_nl_cmd_names[KPROF_CMD_MAX + 1] = {
	[KPROF_CMD_VERSION]	= "VERSION",
	[KPROF_CMD_STATUS]	= "STATUS",
	[KPROF_CMD_START]	= "START",
	[KPROF_CMD_STOP]	= "STOP",
	[KPROF_CMD_STATS]	= "STATS",
	[KPROF_CMD_AGG_DUMP]	= "AGG_DUMP",
	[KPROF_CMD_AGG_RESET]	= "AGG_RESET",
	[KPROF_CMD_COUNT_START]	= "COUNT_START",
	[KPROF_CMD_COUNT_READ]	= "COUNT_READ",
	[KPROF_CMD_COUNT_STOP]	= "COUNT_STOP",
	[KPROF_CMD_HIST_DUMP]	= "HIST_DUMP",
	[KPROF_CMD_AGG_MAPS]	= "AGG_MAPS",
	[KPROF_CMD_FREE]	= "FREE",
	[KPROF_CMD_AGG_SWAP]	= "AGG_SWAP",
};

/**
 * kprof_nl_admit() - the privilege check of every operation, and its count
 * @cmd: the command, as validated by the genetlink core
 * @skb: the request
 * @perfmon: does the command need the kprof privilege?
 *
 * Return: true when the request may go on to its handler.
 */
static bool kprof_nl_admit(u8 cmd, const struct sk_buff *skb, bool perfmon)
{
	bool ok = !perfmon || kprof_nl_capable(skb);

	if (cmd <= KPROF_CMD_MAX)
		atomic_long_inc(ok ? &kprof_nl_handled[cmd] : &kprof_nl_refused[cmd]);
	return ok;
}

/* debugfs "netlink": per command, requests handled and refused. */
static int kprof_netlink_show(struct seq_file *m, void *v)
{
	unsigned int cmd;

	seq_printf(m, "%-12s %12s %12s\n", "command", "handled", "refused");
	for (cmd = 1; cmd <= KPROF_CMD_MAX; cmd++)
		seq_printf(m, "%-12s %12ld %12ld\n", kprof_nl_cmd_names[cmd],
			   atomic_long_read(&kprof_nl_handled[cmd]),
			   atomic_long_read(&kprof_nl_refused[cmd]));
	return 0;
}

static int kprof_nl_pre_doit(const struct kprof_genl_pre_op *ops, struct sk_buff *skb,
			     struct genl_info *info)
{
	if (!kprof_nl_admit(ops->cmd, skb, ops->internal_flags & KPROF_NL_PERFMON)) {
		GENL_SET_ERR_MSG(info, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required");
		return -EPERM;
	}
	return 0;
}

/**
 * kprof_nl_reply_new_size() - allocate a reply to @info, reusing its command id
 * @info: the request
 * @size: the payload's room
 * @hdr: where to store the genetlink header of the reply
 *
 * Return: the message, or NULL when out of memory.
 */
static struct sk_buff *kprof_nl_reply_new_size(struct genl_info *info, size_t size, void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(size, KPROF_GFP);
	if (!msg)
		return NULL;

	*hdr = genlmsg_put_reply(msg, info, &kprof_nl_family, 0, info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct sk_buff *kprof_nl_reply_new(struct genl_info *info, void **hdr)
{
	return kprof_nl_reply_new_size(info, NLMSG_DEFAULT_SIZE, hdr);
}

static int kprof_nl_version_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *abi = info->attrs[KPROF_A_VERSION_ABI];
	struct sk_buff *msg;
	void *hdr;

	if (abi && KPROF_ABI_VERSION_MAJOR(nla_get_u32(abi)) != KPROF_ABI_MAJOR) {
		NL_SET_ERR_MSG_ATTR(info->extack, abi,
				    "kprof: client ABI major version differs from the module's");
		return -EPROTO;
	}

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	if (nla_put_u32(msg, KPROF_A_VERSION_ABI, KPROF_ABI_VERSION) ||
	    nla_put_string(msg, KPROF_A_VERSION_RELEASE, KPROF_RELEASE) ||
	    nla_put_string(msg, KPROF_A_VERSION_KERNEL, init_utsname()->release))
		goto out_cancel;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_cancel:
	genlmsg_cancel(msg, hdr);
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int kprof_nl_put_u64(struct sk_buff *msg, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(msg, type, v, pad);
}

/* The first counter attribute of each kind of wait (enum kprof_wait_kind). */
static const int kprof_wait_attrs[KPROF_WAIT_KINDS] = {
	[KPROF_WAIT_OFFCPU]	= KPROF_STATS_A_OFFCPU_BLOCKS,
	[KPROF_WAIT_LOCK]	= KPROF_STATS_A_LOCK_WAITS,
	[KPROF_WAIT_WAKER]	= KPROF_STATS_A_WAKER_WAKES,
};

/* A KPROF_A_STATS nest; @cpu < 0 for totals. */
static int kprof_nl_put_stats(struct sk_buff *msg, const struct kprof_stats_snapshot *st,
			      int cpu)
{
	struct nlattr *nest;
	int k, i;

	/* enum kprof_wait_stat runs in the attributes' order */
	BUILD_BUG_ON(KPROF_STATS_A_OFFCPU_OPEN - KPROF_STATS_A_OFFCPU_BLOCKS !=
		     KPROF_WAIT_OPEN - KPROF_WAIT_BEGUN);
	BUILD_BUG_ON(KPROF_STATS_A_LOCK_OPEN - KPROF_STATS_A_LOCK_WAITS !=
		     KPROF_WAIT_OPEN - KPROF_WAIT_BEGUN);
	BUILD_BUG_ON(KPROF_STATS_A_OFFCPU_LOST_FULL - KPROF_STATS_A_OFFCPU_BLOCKS !=
		     KPROF_WAIT_LOST_FULL);
	BUILD_BUG_ON(KPROF_STATS_A_LOCK_LOST_FULL - KPROF_STATS_A_LOCK_WAITS !=
		     KPROF_WAIT_LOST_FULL);
	BUILD_BUG_ON(KPROF_STATS_A_WAKER_OPEN - KPROF_STATS_A_WAKER_WAKES !=
		     KPROF_WAIT_OPEN - KPROF_WAIT_BEGUN);
	BUILD_BUG_ON(KPROF_STATS_A_WAKER_LOST_FULL - KPROF_STATS_A_WAKER_WAKES !=
		     KPROF_WAIT_LOST_FULL);

	nest = nla_nest_start(msg, KPROF_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if ((cpu >= 0 && nla_put_u32(msg, KPROF_STATS_A_CPU, cpu)) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_INVOCATIONS, st->invocations, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_SAMPLES, st->samples, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_FULL, st->lost_full, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_TOO_BIG, st->lost_too_big,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_THROTTLED, st->throttled, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_BYTES, st->bytes, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_SIDEBAND, st->sideband, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_SIDEBAND_LOST, st->sideband_lost,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_HANDLER_NS, st->handler_ns, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_HANDLER_MAX_NS, st->handler_max_ns,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_KSTACK_TRUNC, st->kstack_trunc,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_USTACK_TRUNC, st->ustack_trunc,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_USTACK_FAULT, st->ustack_fault,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_SAMPLES, st->agg_samples,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_AGG_FULL, st->lost_agg_full,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_AGG_RESET, st->lost_agg_reset,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_USED, st->agg_used, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_CAPACITY, st->agg_capacity,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_FILTERED, st->filtered, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_RECURSION, st->lost_recursion,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_NESTED, st->nested, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_LOST_COST, st->lost_cost, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_HIGH, st->agg_high, KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_POOL_USED, st->agg_pool_used,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_POOL_HIGH, st->agg_pool_high,
			     KPROF_STATS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_STATS_A_AGG_POOL_SIZE, st->agg_pool_size,
			     KPROF_STATS_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	/* each kind's counters, in enum kprof_wait_stat's order */
	for (k = 0; k < KPROF_WAIT_KINDS; k++)
		for (i = 0; i < KPROF_WAIT_NR_STATS; i++)
			if (kprof_nl_put_u64(msg, kprof_wait_attrs[k] + i, st->wait[k][i],
					     KPROF_STATS_A_PAD)) {
				nla_nest_cancel(msg, nest);
				return -EMSGSIZE;
			}
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * A breakpoint's KPROF_EV_A_BP_TYPE and _LEN: both there, an access kind
 * the hardware watches (read and write, write, or execute alone), a
 * length of 1, 2, 4 or 8 (the word for execute), the address aligned to it.
 */
static int kprof_nl_parse_breakpoint(struct genl_info *info, const struct nlattr *nest,
				     struct nlattr **tb, struct kprof_event_config *ev)
{
	BUILD_BUG_ON(KPROF_BP_F_R != HW_BREAKPOINT_R || KPROF_BP_F_W != HW_BREAKPOINT_W ||
		     KPROF_BP_F_X != HW_BREAKPOINT_X);
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, KPROF_EV_A_BP_TYPE) ||
	    NL_REQ_ATTR_CHECK(info->extack, nest, tb, KPROF_EV_A_BP_LEN))
		return -EINVAL;
	ev->bp_type = nla_get_u32(tb[KPROF_EV_A_BP_TYPE]);
	ev->bp_len = nla_get_u32(tb[KPROF_EV_A_BP_LEN]);
	if (!ev->bp_type || (ev->bp_type & HW_BREAKPOINT_X && ev->bp_type != HW_BREAKPOINT_X)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_BP_TYPE],
				    "kprof: breakpoint: read, write, both, or execute alone");
		return -EINVAL;
	}
	if (!is_power_of_2(ev->bp_len) ||
	    (ev->bp_type == HW_BREAKPOINT_X && ev->bp_len != sizeof(long))) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_BP_LEN],
				    "kprof: breakpoint length: 1, 2, 4 or 8 bytes (8 to execute)");
		return -EINVAL;
	}
	if (ev->config & (ev->bp_len - 1)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_CONFIG],
				    "kprof: breakpoint address not aligned to its length");
		return -EINVAL;
	}
	return 0;
}

/**
 * kprof_nl_parse_event() - one KPROF_A_SESSION_EVENT nest into @ev
 * @info: the request, for error messages
 * @nest: the nest
 * @ev: zeroed config to fill
 *
 * Used by START and COUNT_START.
 *
 * Return: 0, or a negative errno with an extack message.
 */
static int kprof_nl_parse_event(struct genl_info *info, const struct nlattr *nest,
				struct kprof_event_config *ev)
{
	struct nlattr *tb[KPROF_EV_A_BP_LEN + 1];
	int ret;

	ret = nla_parse_nested(tb, KPROF_EV_A_BP_LEN, nest, kprof_event_nl_policy, info->extack);
	if (ret)
		return ret;
	if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, KPROF_EV_A_TYPE) ||
	    NL_REQ_ATTR_CHECK(info->extack, nest, tb, KPROF_EV_A_CONFIG))
		return -EINVAL;

	ev->type = nla_get_u32(tb[KPROF_EV_A_TYPE]);
	ev->config = nla_get_u64(tb[KPROF_EV_A_CONFIG]);
	ev->flags = tb[KPROF_EV_A_FLAGS] ? nla_get_u32(tb[KPROF_EV_A_FLAGS]) : 0;
	ev->attr = nest;
	if (tb[KPROF_EV_A_NAME])
		nla_strscpy(ev->name, tb[KPROF_EV_A_NAME], sizeof(ev->name));
	else
		snprintf(ev->name, sizeof(ev->name), "%u:%llx", ev->type, ev->config);

	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
	case PERF_TYPE_TRACEPOINT:
		break;
	case PERF_TYPE_BREAKPOINT:
		ret = kprof_nl_parse_breakpoint(info, nest, tb, ev);
		if (ret)
			return ret;
		break;
	case KPROF_TYPE_KPROBE:
	case KPROF_TYPE_FTRACE:
	case KPROF_TYPE_LATENCY:
		if (NL_REQ_ATTR_CHECK(info->extack, nest, tb, KPROF_EV_A_SYMBOL))
			return -EINVAL;
		break;
	case KPROF_TYPE_RUNQLAT:
		if (tb[KPROF_EV_A_SYMBOL]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_SYMBOL],
					    "kprof: run-queue latency takes no symbol");
			return -EINVAL;
		}
		if ((ev->config & KPROF_RUNQLAT_UNIT_MASK) > KPROF_RUNQLAT_NSECS) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_CONFIG],
					    "kprof: run-queue latency unit: 0 usecs, 1 msecs, 2 nsecs");
			return -EINVAL;
		}
		if (ev->config & ~(u64)(KPROF_RUNQLAT_UNIT_MASK | KPROF_RUNQLAT_F_PID |
					KPROF_RUNQLAT_F_TID) ||
		    (ev->config & KPROF_RUNQLAT_F_PID && ev->config & KPROF_RUNQLAT_F_TID)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_CONFIG],
					    "kprof: run-queue latency flags: per process or per thread, not both");
			return -EINVAL;
		}
		break;
	case KPROF_TYPE_OFFCPU:
		if (tb[KPROF_EV_A_SYMBOL]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_SYMBOL],
					    "kprof: off-CPU time takes no symbol");
			return -EINVAL;
		}
		if (!(ev->config & KPROF_OFFCPU_F_ALL) ||
		    ev->config & ~(u64)(KPROF_OFFCPU_F_ALL | KPROF_OFFCPU_F_WAKERS)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_CONFIG],
					    "kprof: off-CPU states: a non-empty set of KPROF_OFFCPU_F_*");
			return -EINVAL;
		}
		break;
	case KPROF_TYPE_LOCK:
		if (tb[KPROF_EV_A_SYMBOL]) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_SYMBOL],
					    "kprof: lock contention takes no symbol");
			return -EINVAL;
		}
		if (ev->config) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_CONFIG],
					    "kprof: lock contention: the config is reserved, 0");
			return -EINVAL;
		}
		break;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_TYPE],
				    "kprof: event type not supported");
		return -EOPNOTSUPP;
	}
	if (tb[KPROF_EV_A_SYMBOL])
		nla_strscpy(ev->symbol, tb[KPROF_EV_A_SYMBOL], sizeof(ev->symbol));
	ev->offset = tb[KPROF_EV_A_OFFSET] ? nla_get_u32(tb[KPROF_EV_A_OFFSET]) : 0;
	ev->period = tb[KPROF_EV_A_PERIOD] ? nla_get_u64(tb[KPROF_EV_A_PERIOD]) : 0;
	ev->min_ns = tb[KPROF_EV_A_MIN_NS] ? nla_get_u64(tb[KPROF_EV_A_MIN_NS]) : 0;
	ev->max_ns = tb[KPROF_EV_A_MAX_NS] ? nla_get_u64(tb[KPROF_EV_A_MAX_NS]) : U64_MAX;
	if ((tb[KPROF_EV_A_MIN_NS] || tb[KPROF_EV_A_MAX_NS]) &&
	    !kprof_event_type_waits(ev->type)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[KPROF_EV_A_MIN_NS] ?: tb[KPROF_EV_A_MAX_NS],
				    "kprof: time limits apply to off-CPU and lock events only");
		return -EINVAL;
	}
	if (ev->min_ns > ev->max_ns) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_MIN_NS],
				    "kprof: the shortest wait counted is above the longest");
		return -EINVAL;
	}
	if ((tb[KPROF_EV_A_BP_TYPE] || tb[KPROF_EV_A_BP_LEN]) && ev->type != PERF_TYPE_BREAKPOINT) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_BP_TYPE] ?: tb[KPROF_EV_A_BP_LEN],
				    "kprof: breakpoint attributes apply to breakpoint events only");
		return -EINVAL;
	}
	if ((ev->type == PERF_TYPE_TRACEPOINT || ev->type == PERF_TYPE_BREAKPOINT) && !ev->period)
		ev->period = 1;		/* every hit, as perf does */

	if (tb[KPROF_EV_A_FILTER]) {
		int len = nla_len(tb[KPROF_EV_A_FILTER]);

		if (ev->type != PERF_TYPE_TRACEPOINT) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_FILTER],
					    "kprof: filters apply to tracepoints only");
			return -EINVAL;
		}
		if (len % sizeof(struct kprof_filter_insn)) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_FILTER],
					    "kprof: filter: not whole instructions");
			return -EINVAL;
		}
		ev->nr_filter = len / sizeof(struct kprof_filter_insn);
		nla_memcpy(ev->filter, tb[KPROF_EV_A_FILTER], sizeof(ev->filter));
		ret = kprof_filter_check(ev->filter, ev->nr_filter, tb[KPROF_EV_A_FILTER],
					 info->extack);
		if (ret)
			return ret;
	}
	if ((ev->flags & KPROF_EV_F_EXCLUDE_USER) && (ev->flags & KPROF_EV_F_EXCLUDE_KERNEL)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_EV_A_FLAGS],
				    "kprof: an event cannot exclude both user and kernel");
		return -EINVAL;
	}
	return 0;
}

/**
 * kprof_nl_parse_cpumask() - a KPROF_A_SESSION_CPUS bitmap into @mask
 * @attr: the attribute; NULL for every possible CPU
 * @mask: zeroed mask to fill
 * @extack: for error messages
 *
 * Return: 0, or -EINVAL for a malformed or empty bitmap or one naming a CPU
 * that does not exist.
 */
static int kprof_nl_parse_cpumask(const struct nlattr *attr, struct cpumask *mask,
				  struct netlink_ext_ack *extack)
{
	const u8 *bytes;
	unsigned int i;
	int len;

	if (!attr) {
		cpumask_copy(mask, cpu_possible_mask);
		return 0;
	}
	bytes = nla_data(attr);
	len = nla_len(attr);
	if (len % sizeof(u64)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: CPU bitmap is not whole 64-bit words");
		return -EINVAL;
	}
	for (i = 0; i < len * 8; i++) {
		if (!(bytes[i / 8] & BIT(i % 8)))
			continue;
		if (i >= nr_cpu_ids || !cpu_possible(i)) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "kprof: CPU bitmap names a CPU that does not exist");
			return -EINVAL;
		}
		cpumask_set_cpu(i, mask);
	}
	if (cpumask_empty(mask)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: CPU bitmap is empty");
		return -EINVAL;
	}
	return 0;
}

/**
 * kprof_nl_parse_target() - check a request's target; collect its PIDs
 * @info: the START or COUNT_START request
 * @flags: its KPROF_A_SESSION_FLAGS
 * @pids: room for KPROF_MAX_PIDS PIDs
 * @pid_attrs: the attribute of each PID, for later error messages
 * @nr_pids: set to the number of PIDs
 *
 * A system-wide session takes CPUs and no PIDs; a per-task one at least
 * one PID (or TID, with KPROF_SESSION_F_THREADS) and no CPUs.
 *
 * Return: 0, or -EINVAL / -E2BIG with an extack message.
 */
static int kprof_nl_parse_target(struct genl_info *info, u32 flags, pid_t *pids,
				 const struct nlattr **pid_attrs, unsigned int *nr_pids)
{
	bool system_wide = flags & KPROF_SESSION_F_SYSTEM_WIDE;
	struct nlattr **tb = info->attrs;
	struct nlattr *attr;
	int rem;

	if (system_wide && (flags & KPROF_SESSION_F_THREADS)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_FLAGS],
				    "kprof: threads given to a system-wide session");
		return -EINVAL;
	}
	if (system_wide && tb[KPROF_A_SESSION_PID]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_PID],
				    "kprof: PIDs given to a system-wide session");
		return -EINVAL;
	}
	if (!system_wide && tb[KPROF_A_SESSION_CPUS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_CPUS],
				    "kprof: CPUs given to a per-task session");
		return -EINVAL;
	}
	if (!system_wide && !tb[KPROF_A_SESSION_PID]) {
		GENL_SET_ERR_MSG(info, "kprof: a per-task session needs at least one PID");
		return -EINVAL;
	}
	/* repeated attributes: info->attrs holds only the last of each */
	*nr_pids = 0;
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != KPROF_A_SESSION_PID)
			continue;
		if (*nr_pids == KPROF_MAX_PIDS) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr, "kprof: too many PIDs");
			return -E2BIG;
		}
		pid_attrs[*nr_pids] = attr;
		pids[(*nr_pids)++] = nla_get_u32(attr);
	}
	return 0;
}

/* A callback of kprof_nl_walk_events(): event @index at @nest. */
typedef int (*kprof_nl_event_fn)(struct genl_info *info, const struct nlattr *nest,
				 unsigned int index, void *arg);

/**
 * kprof_nl_walk_events() - call @fn for each KPROF_A_SESSION_EVENT of @info
 * @info: a START or COUNT_START request
 * @fn: called with each event nest and its index, from 0
 * @arg: passed to @fn
 * @nr_events: set to the number of events
 *
 * The events are repeated attributes (info->attrs holds only the last):
 * they are walked in the message.  At most KPROF_MAX_EVENTS, at least one.
 *
 * Return: 0, the first error of @fn, or -E2BIG / -EINVAL with an extack.
 */
static int kprof_nl_walk_events(struct genl_info *info, kprof_nl_event_fn fn, void *arg,
				unsigned int *nr_events)
{
	struct nlattr *attr;
	int rem, ret;

	*nr_events = 0;
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != KPROF_A_SESSION_EVENT)
			continue;
		if (*nr_events == KPROF_MAX_EVENTS) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr, "kprof: too many events");
			return -E2BIG;
		}
		ret = fn(info, attr, *nr_events, arg);
		if (ret)
			return ret;
		(*nr_events)++;
	}
	if (!*nr_events) {
		GENL_SET_ERR_MSG(info, "kprof: a session needs at least one event");
		return -EINVAL;
	}
	return 0;
}

static int kprof_nl_start_event(struct genl_info *info, const struct nlattr *nest,
				unsigned int index, void *arg)
{
	struct kprof_session_config *cfg = arg;

	return kprof_nl_parse_event(info, nest, &cfg->events[index]);
}

/* KPROF_SESSION_F_INTERVALS (1.15): the tables of an aggregating session, in two halves. */
static int kprof_nl_check_intervals(struct genl_info *info,
				    const struct kprof_session_config *cfg)
{
	if ((cfg->flags & KPROF_SESSION_F_INTERVALS) && !(cfg->flags & KPROF_SESSION_F_AGGREGATE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KPROF_A_SESSION_FLAGS],
				    "kprof: intervals need an aggregating session");
		return -EINVAL;
	}
	return 0;
}

/* Validate a START request into @cfg; everything not ABI-typed is checked here. */
/*
 * KPROF_A_SESSION_USER_STACK: the bytes of user stack each stream SAMPLE
 * copies (0: none), a multiple of 8, for sessions that take user stacks
 * into a stream.
 */
static int kprof_nl_parse_user_stack(struct genl_info *info, struct kprof_session_config *cfg)
{
	struct nlattr *attr = info->attrs[KPROF_A_SESSION_USER_STACK];

	cfg->user_stack = attr ? nla_get_u32(attr) : 0;
	if (!cfg->user_stack)
		return 0;
	if (cfg->user_stack % 8) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "kprof: user stack bytes must be a multiple of 8");
		return -EINVAL;
	}
	if (!(cfg->flags & KPROF_SESSION_F_USER_STACK) || !(cfg->flags & KPROF_SESSION_F_STREAM)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "kprof: a user stack copy needs user call chains in a stream");
		return -EINVAL;
	}
	return 0;
}

static int kprof_nl_parse_start(struct genl_info *info, struct kprof_session_config *cfg)
{
	struct nlattr **tb = info->attrs;
	int ret;

	cfg->flags = tb[KPROF_A_SESSION_FLAGS] ? nla_get_u32(tb[KPROF_A_SESSION_FLAGS]) : 0;
	if (!(cfg->flags & (KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE)))
		cfg->flags |= KPROF_SESSION_F_STREAM;	/* the default mode */

	cfg->agg_entries = tb[KPROF_A_SESSION_AGG_ENTRIES] ?
			   nla_get_u32(tb[KPROF_A_SESSION_AGG_ENTRIES]) :
			   KPROF_AGG_DEFAULT_ENTRIES;
	if (!is_power_of_2(cfg->agg_entries)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_AGG_ENTRIES],
				    "kprof: aggregation entries must be a power of two");
		return -EINVAL;
	}
	if (tb[KPROF_A_SESSION_AGG_ENTRIES] && !(cfg->flags & KPROF_SESSION_F_AGGREGATE)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_AGG_ENTRIES],
				    "kprof: aggregation entries given to a session that does not aggregate");
		return -EINVAL;
	}

	if (!!tb[KPROF_A_SESSION_FREQ] == !!tb[KPROF_A_SESSION_PERIOD]) {
		GENL_SET_ERR_MSG(info, "kprof: give exactly one of a frequency and a period");
		return -EINVAL;
	}
	if (tb[KPROF_A_SESSION_FREQ]) {
		cfg->freq = nla_get_u32(tb[KPROF_A_SESSION_FREQ]);
		if (cfg->freq > kprof_max_sample_rate()) {
			NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_FREQ],
					    "kprof: frequency above kernel.perf_event_max_sample_rate");
			return -EINVAL;
		}
	} else {
		cfg->period = nla_get_u64(tb[KPROF_A_SESSION_PERIOD]);
	}

	cfg->buffer_size = tb[KPROF_A_SESSION_BUFFER_SIZE] ?
			   nla_get_u32(tb[KPROF_A_SESSION_BUFFER_SIZE]) :
			   KPROF_DEFAULT_BUFFER_SIZE;
	if (!is_power_of_2(cfg->buffer_size)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_BUFFER_SIZE],
				    "kprof: buffer size must be a power of two");
		return -EINVAL;
	}
	cfg->stack_depth = tb[KPROF_A_SESSION_STACK_DEPTH] ?
			   nla_get_u32(tb[KPROF_A_SESSION_STACK_DEPTH]) :
			   KPROF_DEFAULT_STACK_DEPTH;
	cfg->watermark = tb[KPROF_A_SESSION_WATERMARK] ?
			 nla_get_u32(tb[KPROF_A_SESSION_WATERMARK]) : 0;
	if (cfg->watermark > cfg->buffer_size) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_WATERMARK],
				    "kprof: watermark larger than the buffer");
		return -EINVAL;
	}
	ret = kprof_nl_parse_user_stack(info, cfg);
	if (ret)
		return ret;

	ret = kprof_nl_parse_target(info, cfg->flags, cfg->pids, cfg->pid_attrs, &cfg->nr_pids);
	if (ret)
		return ret;
	ret = kprof_nl_parse_cpumask(info->attrs[KPROF_A_SESSION_CPUS], cfg->cpus, info->extack);
	if (ret)
		return ret;

	ret = kprof_nl_walk_events(info, kprof_nl_start_event, cfg, &cfg->nr_events);
	if (ret)
		return ret;
	return kprof_nl_check_intervals(info, cfg);
}

static int kprof_nl_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_session_config *cfg;
	struct kprof_session_info si;
	struct sk_buff *msg;
	void *hdr;
	u64 id;
	int ret;

	cfg = kvzalloc(sizeof(*cfg), KPROF_GFP);
	if (!cfg)
		return -ENOMEM;
	cfg->cpus = kzalloc(cpumask_size(), KPROF_GFP);
	if (!cfg->cpus) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = kprof_nl_parse_start(info, cfg);
	if (ret)
		goto out_free;
	if (cfg->flags & KPROF_SESSION_F_OWNED) {
		/* genetlink runs the request in the sender's context */
		cfg->owner_net = genl_info_net(info);
		cfg->owner_portid = info->snd_portid;
		cfg->owner_pid = task_tgid_nr(current);
	}

	/* allocate the reply first: a started session must be reported */
	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = kprof_session_start(cfg, genl_info_net(info), info->snd_portid, &id, info->extack);
	kprof_debugfs_sessions_sync();	/* the new one, and those it freed */
	if (ret) {
		nlmsg_free(msg);
		goto out_free;
	}
	if (!kprof_session_info(id, &si) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, id, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_SESSION_BUFFER_SIZE, si.buffer_size) ||
	    nla_put_u32(msg, KPROF_A_STATUS_NR_CPUS, nr_cpu_ids) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_MMAP_STRIDE, si.stride, KPROF_A_PAD)) {
		/* cannot happen with a fresh default-size message */
		nlmsg_free(msg);
		ret = -EMSGSIZE;
		goto out_free;
	}
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
out_free:
	kfree(cfg->cpus);
	kvfree(cfg);
	return ret;
}

static int kprof_nl_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_session_info si;
	struct sk_buff *msg;
	void *hdr;
	u64 id;
	int ret;

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = kprof_session_resolve(info->attrs[KPROF_A_SESSION_ID] ?
				    nla_get_u64(info->attrs[KPROF_A_SESSION_ID]) : 0,
				    genl_info_net(info), info->snd_portid, true, &id, info->extack);
	if (ret)
		goto out_free;
	/* the stopping socket holds the stopped session until it closes */
	ret = kprof_session_stop(id, genl_info_net(info), info->snd_portid, &id, info->extack);
	if (ret)
		goto out_free;
	kprof_debugfs_sessions_sync();	/* the session it held before may have gone */
	ret = -EMSGSIZE;
	if (!kprof_session_info(id, &si) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, si.id, KPROF_A_PAD) ||
	    kprof_nl_put_stats(msg, &si.totals, -1))
		goto out_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
	return ret;
}

/*
 * End a dump whose session went away between two parts: its NLMSG_DONE
 * carries NLM_F_DUMP_INTR (nl_dump_check_consistent() flags a message
 * when the sequence moved since the previous one).
 */
static void kprof_nl_dump_interrupted(struct netlink_callback *cb)
{
	cb->prev_seq = 1;
	cb->seq = 2;
}

/**
 * kprof_nl_dump_msg() - start one message of a dump, with the session id
 * @skb: the dump's buffer
 * @cb: the dump
 * @cmd: KPROF_CMD_*
 * @id: the session the message is about
 *
 * Return: the genetlink header for genlmsg_end() or genlmsg_cancel(), or
 * NULL when @skb is full (nothing is left in it).
 */
static void *kprof_nl_dump_msg(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd, u64 id)
{
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &kprof_nl_family, NLM_F_MULTI, cmd);
	if (hdr && kprof_nl_put_u64(skb, KPROF_A_SESSION_ID, id, KPROF_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/**
 * kprof_nl_dump_nest() - start a dump message holding one nest
 * @skb: the dump's buffer
 * @cb: the dump
 * @cmd: KPROF_CMD_*
 * @id: the session
 * @type: the nest's attribute
 * @nest: set to the nest
 *
 * Return: the genetlink header for kprof_nl_dump_nest_end(), or NULL when
 * @skb is full.
 */
static void *kprof_nl_dump_nest(struct sk_buff *skb, struct netlink_callback *cb, u8 cmd,
				u64 id, int type, struct nlattr **nest)
{
	void *hdr = kprof_nl_dump_msg(skb, cb, cmd, id);

	if (!hdr)
		return NULL;
	*nest = nla_nest_start(skb, type);
	if (!*nest) {
		genlmsg_cancel(skb, hdr);
		return NULL;
	}
	return hdr;
}

/* End the message of kprof_nl_dump_nest(), or cancel it when @err (full). */
static int kprof_nl_dump_nest_end(struct sk_buff *skb, void *hdr, struct nlattr *nest, int err)
{
	if (err) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Dumps: pre_doit does not run for them, and 6.1 gives .start no extack
 * (cb->extack is set only around the dumpit).  .start notes a refusal in
 * cb->args[KPROF_NL_DUMP_REFUSED]; the first dumpit, which runs in the
 * requester's context right after it, fails with the message, which
 * reaches the client in NLMSG_DONE.
 */
#define KPROF_NL_DUMP_REFUSED	5

/**
 * kprof_nl_dump_admit() - the privilege check of a dump, in its .start
 * @cb: the dump
 *
 * Counts the request (debugfs "netlink") and notes a refusal for
 * kprof_nl_dump_refused().  The one way every kprof dump refuses.
 *
 * Return: true when the requester may read.
 */
static bool kprof_nl_dump_admit(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);

	if (kprof_nl_admit(info->op.cmd, cb->skb, true))
		return true;
	cb->args[KPROF_NL_DUMP_REFUSED] = 1;
	return false;
}

/* .start of the dumps that need nothing else before their first message */
static int kprof_nl_dump_start(struct netlink_callback *cb)
{
	kprof_nl_dump_admit(cb);
	return 0;
}

/* In a dumpit: was the dump refused?  Then the extack says why (-EPERM). */
static bool kprof_nl_dump_refused(struct netlink_callback *cb)
{
	if (!cb->args[KPROF_NL_DUMP_REFUSED])
		return false;
	NL_SET_ERR_MSG(cb->extack, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required");
	return true;
}

/* One message per CPU with a ring; cb->args[0] is the next CPU. */
static int kprof_nl_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kprof_stats_snapshot st;
	unsigned int cpu;
	void *hdr;
	u64 id;
	int ret;

	if (kprof_nl_dump_refused(cb))
		return -EPERM;
	if (!cb->args[1]) {
		ret = kprof_nl_dump_session(cb, &id);
		if (ret)
			return ret;
		cb->args[1] = id;
	}
	for (cpu = cb->args[0]; cpu < nr_cpu_ids; cpu++) {
		/* the session of the first part in every part */
		id = cb->args[1];
		ret = kprof_session_cpu_stats(&id, cpu, &st);
		if (ret == -ENOENT) {
			kprof_nl_dump_interrupted(cb);
			return 0;
		}
		if (ret)
			continue;

		hdr = kprof_nl_dump_msg(skb, cb, KPROF_CMD_STATS, id);
		if (!hdr)
			break;
		if (kprof_nl_put_stats(skb, &st, cpu)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = cpu;
	return skb->len;
}

/* KPROF_A_SESSION_MAPS of STATUS. */
static int kprof_nl_put_maps(struct sk_buff *msg, const struct kprof_procmap_stats *st)
{
	struct nlattr *nest = nla_nest_start(msg, KPROF_A_SESSION_MAPS);

	if (!nest)
		return -EMSGSIZE;
	if (kprof_nl_put_u64(msg, KPROF_MAPS_A_PROCS, st->procs, KPROF_MAPS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_MAPS_A_KEPT, st->kept, KPROF_MAPS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_MAPS_A_LOST, st->lost, KPROF_MAPS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_MAPS_A_LOST_PIDS, st->lost_pids, KPROF_MAPS_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_MAPS_A_UNOWNED, st->unowned, KPROF_MAPS_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* One KPROF_A_SESSION nest of STATUS. */
static int kprof_nl_put_session(struct sk_buff *msg, const struct kprof_session_info *si)
{
	struct nlattr *nest = nla_nest_start(msg, KPROF_A_SESSION);

	if (!nest)
		return -EMSGSIZE;
	if (kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, si->id, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_STATUS_STATE, si->state) ||
	    nla_put_u32(msg, KPROF_A_SESSION_FLAGS, si->flags) ||
	    nla_put_u32(msg, KPROF_A_SESSION_OWNER_PID, si->owner_pid) ||
	    nla_put_u32(msg, KPROF_A_SESSION_UID, si->uid) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_START_NS, si->start_ns, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_SESSION_NR_EVENTS, si->nr_events) ||
	    nla_put_u32(msg, KPROF_A_SESSION_BUFFER_SIZE, si->buffer_size) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_MEMORY, si->mem, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_SESSION_CPUS_SKIPPED, si->cpus_skipped) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_LOST_NO_RING, si->lost_no_ring, KPROF_A_PAD) ||
	    kprof_nl_put_stats(msg, &si->totals, -1)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* One KPROF_A_COUNT_SESSION nest of STATUS (1.14). */
static int kprof_nl_put_count_session(struct sk_buff *msg, const struct kprof_count_info *ci)
{
	struct nlattr *nest = nla_nest_start(msg, KPROF_A_COUNT_SESSION);

	if (!nest)
		return -EMSGSIZE;
	if (kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, ci->id, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_STATUS_STATE, ci->state) ||
	    nla_put_u32(msg, KPROF_A_SESSION_FLAGS, ci->flags) ||
	    nla_put_u32(msg, KPROF_A_SESSION_OWNER_PID, ci->owner_pid) ||
	    nla_put_u32(msg, KPROF_A_SESSION_UID, ci->uid) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_START_NS, ci->start_ns, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_SESSION_NR_EVENTS, ci->nr_events) ||
	    kprof_nl_put_u64(msg, KPROF_A_SESSION_MEMORY, ci->mem, KPROF_A_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* The counting sessions STATUS lists: all there can be. */
#define KPROF_NL_STATUS_COUNTS		16
/* A generous bound on one KPROF_A_COUNT_SESSION nest's size. */
#define KPROF_NL_COUNT_NEST_SIZE	128

/* The sessions STATUS lists, and the most it lists. */
#define KPROF_NL_STATUS_SESSIONS	256
/* A generous bound on one KPROF_A_SESSION nest's size. */
#define KPROF_NL_SESSION_NEST_SIZE	1024

/*
 * The module, the session the request names (its id, else the default one)
 * in top-level attributes as before 1.10, then (1.10) one KPROF_A_SESSION
 * nest per session on the table, oldest first, then (1.14) one
 * KPROF_A_COUNT_SESSION per counting session.
 */
static int kprof_nl_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_count_info *ci = NULL;
	struct kprof_session_info *si;
	struct kprof_status st;
	struct sk_buff *msg;
	unsigned int i, n, nc;
	u64 *ids, id = 0;
	int ret = -ENOMEM;
	void *hdr;

	if (info->attrs[KPROF_A_SESSION_ID]) {
		ret = kprof_nl_session(info->attrs, genl_info_net(info), info->snd_portid, &id,
				       info->extack);
		if (ret)
			return ret;
	}
	si = kzalloc(sizeof(*si), KPROF_GFP);
	ids = kcalloc(KPROF_NL_STATUS_SESSIONS, sizeof(*ids), KPROF_GFP);
	ci = kcalloc(KPROF_NL_STATUS_COUNTS, sizeof(*ci), KPROF_GFP);
	if (!si || !ids || !ci)
		goto out_free;
	kprof_status_read(&st);
	n = min_t(unsigned int, kprof_session_ids(ids, KPROF_NL_STATUS_SESSIONS),
		  KPROF_NL_STATUS_SESSIONS);
	nc = kprof_count_list(ci, KPROF_NL_STATUS_COUNTS);

	msg = kprof_nl_reply_new_size(info, NLMSG_DEFAULT_SIZE + n * KPROF_NL_SESSION_NEST_SIZE +
				      nc * KPROF_NL_COUNT_NEST_SIZE, &hdr);
	if (!msg)
		goto out_free;
	ret = -EMSGSIZE;
	if (nla_put_u32(msg, KPROF_A_STATUS_STATE, st.state) ||
	    nla_put_u32(msg, KPROF_A_STATUS_NR_CPUS, st.nr_cpus) ||
	    nla_put_u32(msg, KPROF_A_STATUS_ONLINE_CPUS, st.online_cpus) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_SESSIONS, st.sessions, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_STATUS_READERS, st.readers) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_LOADED_NS, st.loaded_ns, KPROF_A_PAD) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_MEMORY, st.mem, KPROF_A_PAD) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_BUDGET, st.budget, KPROF_A_PAD))
		goto out_cancel;

	if (kprof_session_info(id, si) &&
	    (nla_put_u64_64bit(msg, KPROF_A_SESSION_ID, si->id, KPROF_A_PAD) ||
	     nla_put_u32(msg, KPROF_A_SESSION_FLAGS, si->flags) ||
	     nla_put_u32(msg, KPROF_A_SESSION_BUFFER_SIZE, si->buffer_size) ||
	     nla_put_u64_64bit(msg, KPROF_A_SESSION_MMAP_STRIDE, si->stride, KPROF_A_PAD) ||
	     kprof_nl_put_stats(msg, &si->totals, -1) ||
	     nla_put_u32(msg, KPROF_A_SESSION_OWNER_PID, si->owner_pid) ||
	     (si->has_maps && kprof_nl_put_maps(msg, &si->maps))))
		goto out_cancel;

	/* a session freed since the ids were taken is left out */
	for (i = 0; i < n; i++)
		if (kprof_session_info(ids[i], si) && kprof_nl_put_session(msg, si))
			goto out_cancel;
	for (i = 0; i < nc; i++)
		if (kprof_nl_put_count_session(msg, &ci[i]))
			goto out_cancel;

	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	goto out_free;

out_cancel:
	genlmsg_cancel(msg, hdr);
	nlmsg_free(msg);
out_free:
	kfree(ci);
	kfree(ids);
	kfree(si);
	return ret;
}

/* A dump's message buffer and state, for the readers' put callbacks. */
struct kprof_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
};

/*
 * Read the tables (AGG_DUMP) or the kept mappings (AGG_MAPS) into @skb,
 * the reader's cursor kept in cb->args[0] (position), cb->args[1] (the
 * session), cb->args[2] (the session was found), cb->args[3] (AGG_DUMP of
 * a closed interval: its epoch + 1) and cb->args[4] (the dump holds that
 * interval: kprof_nl_agg_dump_done() lets go of it); the session freed
 * since the first part marks the dump interrupted and ends it.
 */
static int kprof_nl_agg_read(struct sk_buff *skb, struct netlink_callback *cb,
			     kprof_agg_put_fn put, kprof_agg_map_put_fn map_put)
{
	struct kprof_agg_cursor cur = {
		.pos = cb->args[0], .id = cb->args[1], .begun = cb->args[2],
		.epoch = cb->args[3], .held = cb->args[4],
	};
	struct kprof_nl_dump d = { .skb = skb, .cb = cb };
	struct nlattr **attrs;
	int ret;

	if (kprof_nl_dump_refused(cb))
		return -EPERM;
	if (!cur.begun) {
		ret = kprof_nl_dump_session(cb, &cur.id);
		if (ret)
			return ret;
		attrs = kprof_genl_dump_attrs(genl_dumpit_info(cb));
		if (put && attrs && attrs[KPROF_A_AGG_EPOCH]) {
			cur.epoch = nla_get_u64(attrs[KPROF_A_AGG_EPOCH]) + 1;
			if (!cur.epoch) {
				NL_SET_ERR_MSG_ATTR(cb->extack, attrs[KPROF_A_AGG_EPOCH],
						    "kprof: no such interval");
				return -EINVAL;
			}
		}
	}
	if (put)
		ret = kprof_agg_read(&cur, put, &d, cb->extack);
	else
		ret = kprof_agg_read_maps(&cur, map_put, &d, cb->extack);
	cb->args[1] = cur.id;
	cb->args[2] = cur.begun;
	cb->args[3] = cur.epoch;
	cb->args[4] = cur.held;
	if (ret)
		return ret;
	if (cur.stale) {
		kprof_nl_dump_interrupted(cb);
		return 0;
	}
	cb->args[0] = cur.pos;
	return skb->len;
}

/* One AGG_DUMP message; non-zero when the dump's skb is full. */
static int kprof_nl_agg_put(void *arg, u64 id, unsigned int cpu, const struct kprof_agg_view *v)
{
	struct sk_buff *skb = ((struct kprof_nl_dump *)arg)->skb;
	struct netlink_callback *cb = ((struct kprof_nl_dump *)arg)->cb;
	const struct kprof_agg_entry *e = v->e;
	const u64 *frames = v->frames;
	struct nlattr *nest;
	void *hdr;
	int err;

	hdr = kprof_nl_dump_nest(skb, cb, KPROF_CMD_AGG_DUMP, id, KPROF_A_AGG_ENTRY, &nest);
	if (!hdr)
		return -EMSGSIZE;
	err = nla_put_u32(skb, KPROF_AGG_A_CPU, cpu) ||
	      nla_put_u32(skb, KPROF_AGG_A_EVENT, e->event) ||
	      nla_put_u32(skb, KPROF_AGG_A_PID, e->pid) ||
	      nla_put_string(skb, KPROF_AGG_A_COMM, e->comm) ||
	      kprof_nl_put_u64(skb, KPROF_AGG_A_COUNT, local64_read(&e->count), KPROF_AGG_A_PAD) ||
	      nla_put(skb, KPROF_AGG_A_KERNEL, e->nr_kernel * sizeof(u64), frames) ||
	      nla_put(skb, KPROF_AGG_A_USER, e->nr_user * sizeof(u64), frames + e->nr_kernel) ||
	      (atomic64_read(&e->time_ns) &&
	       kprof_nl_put_u64(skb, KPROF_AGG_A_TIME_NS, atomic64_read(&e->time_ns),
				KPROF_AGG_A_PAD)) ||
	      (v->minmax &&
	       (kprof_nl_put_u64(skb, KPROF_AGG_A_MAX_NS, v->max_ns, KPROF_AGG_A_PAD) ||
		kprof_nl_put_u64(skb, KPROF_AGG_A_MIN_NS, v->min_ns, KPROF_AGG_A_PAD))) ||
	      (v->has_lock &&
	       (kprof_nl_put_u64(skb, KPROF_AGG_A_LOCK, v->lock, KPROF_AGG_A_PAD) ||
		nla_put_u32(skb, KPROF_AGG_A_LOCK_FLAGS, v->lock_flags))) ||
	      (v->has_waker &&
	       (nla_put_u32(skb, KPROF_AGG_A_WAKER_PID, v->waker_pid) ||
		nla_put_string(skb, KPROF_AGG_A_WAKER_COMM, v->waker_comm) ||
		nla_put(skb, KPROF_AGG_A_WAKER_KERNEL, v->waker_nr_kernel * sizeof(u64),
			v->waker_frames) ||
		nla_put(skb, KPROF_AGG_A_WAKER_USER, v->waker_nr_user * sizeof(u64),
			v->waker_frames + v->waker_nr_kernel)));
	return kprof_nl_dump_nest_end(skb, hdr, nest, err);
}

static int kprof_nl_agg_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kprof_nl_agg_read(skb, cb, kprof_nl_agg_put, NULL);
}

/* The end of an AGG_DUMP (or its socket's close): the interval it held. */
static int kprof_nl_agg_dump_done(struct netlink_callback *cb)
{
	if (cb->args[4])
		kprof_session_agg_release(cb->args[1], cb->args[3] - 1);
	cb->args[4] = 0;
	return 0;
}

/* One AGG_MAPS message; non-zero when the dump's skb is full. */
static int kprof_nl_map_put(void *arg, u64 id, const struct kprof_procmap_info *map)
{
	struct sk_buff *skb = ((struct kprof_nl_dump *)arg)->skb;
	struct netlink_callback *cb = ((struct kprof_nl_dump *)arg)->cb;
	struct nlattr *nest;
	void *hdr;
	int err;

	hdr = kprof_nl_dump_nest(skb, cb, KPROF_CMD_AGG_MAPS, id, KPROF_A_AGG_MAP, &nest);
	if (!hdr)
		return -EMSGSIZE;
	err = nla_put_u32(skb, KPROF_MAP_A_PID, map->pid) ||
	      nla_put_string(skb, KPROF_MAP_A_COMM, map->comm) ||
	      kprof_nl_put_u64(skb, KPROF_MAP_A_START, map->start, KPROF_MAP_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_MAP_A_LEN, map->len, KPROF_MAP_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_MAP_A_PGOFF, map->pgoff, KPROF_MAP_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_MAP_A_DEV, map->dev, KPROF_MAP_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_MAP_A_INO, map->ino, KPROF_MAP_A_PAD) ||
	      nla_put_string(skb, KPROF_MAP_A_PATH, map->path);
	return kprof_nl_dump_nest_end(skb, hdr, nest, err);
}

static int kprof_nl_agg_maps_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return kprof_nl_agg_read(skb, cb, NULL, kprof_nl_map_put);
}

/* One HIST_DUMP message; non-zero when @skb is full. */
static int kprof_nl_hist_put(struct sk_buff *skb, struct netlink_callback *cb, u64 id,
			     unsigned int event, const struct kprof_event *kev,
			     const struct kprof_hist_sum *h)
{
	struct nlattr *nest;
	void *hdr;
	int err;

	hdr = kprof_nl_dump_nest(skb, cb, KPROF_CMD_HIST_DUMP, id, KPROF_A_HIST, &nest);
	if (!hdr)
		return -EMSGSIZE;
	err = nla_put_u32(skb, KPROF_HIST_A_EVENT, event) ||
	      nla_put_u32(skb, KPROF_HIST_A_TYPE, kev->cfg.type) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_CONFIG, kev->cfg.config, KPROF_HIST_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_COUNT, h->count, KPROF_HIST_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_SUM_NS, h->sum_ns, KPROF_HIST_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_MAX_NS, h->max_ns, KPROF_HIST_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_MISSED, h->missed, KPROF_HIST_A_PAD) ||
	      kprof_nl_put_u64(skb, KPROF_HIST_A_KEYS_LOST, h->keys_lost, KPROF_HIST_A_PAD) ||
	      nla_put(skb, KPROF_HIST_A_BUCKETS, sizeof(h->buckets), h->buckets);
	return kprof_nl_dump_nest_end(skb, hdr, nest, err);
}

/* per-key histograms per HIST_DUMP message: about 6 KiB */
#define KPROF_NL_HIST_KEYS	24

/* One message of @n per-key histograms of event @event. */
static int kprof_nl_hist_keys_put(struct sk_buff *skb, struct netlink_callback *cb, u64 id,
				  unsigned int event, const struct kprof_hist_key *keys,
				  unsigned int n)
{
	struct nlattr *nest;
	void *hdr;
	int err;

	hdr = kprof_nl_dump_nest(skb, cb, KPROF_CMD_HIST_DUMP, id, KPROF_A_HIST, &nest);
	if (!hdr)
		return -EMSGSIZE;
	err = nla_put_u32(skb, KPROF_HIST_A_EVENT, event) ||
	      nla_put(skb, KPROF_HIST_A_KEYS, n * sizeof(*keys), keys);
	return kprof_nl_dump_nest_end(skb, hdr, nest, err);
}

/*
 * Per latency event, a message of its histogram, then (per-key run-queue
 * latency) messages of its keys.  cb->args[0]: the event; args[1]: 0
 * before its histogram, then 1 + the key cursor of kprof_probe_hist_keys().
 */
static int kprof_nl_hist_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kprof_hist_key *keys;
	struct kprof_hist_sum *h;
	struct kprof_session *s;
	bool full = false, first = false;
	unsigned int i;
	int ret = 0;

	if (kprof_nl_dump_refused(cb))
		return -EPERM;
	h = kzalloc(sizeof(*h), KPROF_GFP);
	keys = kcalloc(KPROF_NL_HIST_KEYS, sizeof(*keys), KPROF_GFP);
	if (!h || !keys) {
		ret = -ENOMEM;
		goto out_free;
	}
	/* args[2]: the session of the first part, read by every part */
	if (!cb->args[2]) {
		u64 id;

		ret = kprof_nl_dump_session(cb, &id);
		if (ret)
			goto out_free;
		cb->args[2] = id;
		first = true;
	}
	s = kprof_session_lock_id(cb->args[2]);
	if (!s && first) {
		/* its record only: the histograms went with it */
		NL_SET_ERR_MSG(cb->extack,
			       "kprof: no session (a stopped session's histograms go when no socket holds it)");
		ret = -ENOENT;
		goto out_free;
	}
	if (!s) {
		kprof_nl_dump_interrupted(cb);	/* freed since the first part */
		goto out_unlock;
	}
	for (i = cb->args[0]; i < s->nr_events && !full; i++, cb->args[1] = 0) {
		struct kprof_event *kev = &s->events[i];
		unsigned long cursor;
		unsigned int n;

		if (!kprof_probe_hist(kev, h))
			continue;
		if (!cb->args[1]) {
			full = kprof_nl_hist_put(skb, cb, s->id, i, kev, h);
			if (full)
				break;
			cb->args[1] = 1;
		}
		for (;;) {
			cursor = cb->args[1] - 1;
			n = kprof_probe_hist_keys(kev, &cursor, keys, KPROF_NL_HIST_KEYS);
			if (!n)
				break;
			full = kprof_nl_hist_keys_put(skb, cb, s->id, i, keys, n);
			if (full)
				break;	/* go on from args[1] in the next skb */
			cb->args[1] = cursor + 1;
		}
		if (full)
			break;
	}
	cb->args[0] = i;
	ret = skb->len;
out_unlock:
	kprof_session_unlock_put(s);
out_free:
	kfree(keys);
	kfree(h);
	return ret;
}

static int kprof_nl_agg_reset_doit(struct sk_buff *skb, struct genl_info *info)
{
	u64 id;
	int ret;

	ret = kprof_nl_session(info->attrs, genl_info_net(info), info->snd_portid, &id,
			       info->extack);
	return ret ? ret : kprof_session_agg_reset(id, info->extack);
}

/* AGG_SWAP (1.15): close the interval of a session read in intervals. */
static int kprof_nl_agg_swap_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_agg_interval iv;
	struct sk_buff *msg;
	void *hdr;
	u64 id;
	int ret;

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = kprof_nl_session(info->attrs, genl_info_net(info), info->snd_portid, &id,
			       info->extack);
	if (!ret)
		ret = kprof_session_agg_swap(id, &iv, info->extack);
	if (ret)
		goto out_free;
	ret = -EMSGSIZE;
	if (kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, id, KPROF_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_A_AGG_EPOCH, iv.epoch, KPROF_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_A_AGG_START_NS, iv.start_ns, KPROF_A_PAD) ||
	    kprof_nl_put_u64(msg, KPROF_A_AGG_END_NS, iv.end_ns, KPROF_A_PAD))
		goto out_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
	return ret;
}

/* FREE: a stopped session's data was saved; the session it names goes. */
static int kprof_nl_free_doit(struct sk_buff *skb, struct genl_info *info)
{
	u64 id;
	int ret;

	if (!info->attrs[KPROF_A_SESSION_ID]) {
		NL_SET_ERR_MSG(info->extack,
			       "kprof: FREE needs the session's id (KPROF_A_SESSION_ID)");
		return -EINVAL;
	}
	ret = kprof_nl_session(info->attrs, genl_info_net(info), info->snd_portid, &id,
			       info->extack);
	if (!ret)
		ret = kprof_session_free_saved(id, genl_info_net(info), info->snd_portid,
					       info->extack);
	if (!ret)
		kprof_debugfs_sessions_sync();
	return ret;
}

/*
 * STATUS, STOP and STATS take no attributes: with no .policy the genetlink
 * core installs a reject-all policy for them (resv_start_op is 0).  The
 * perfmon check of a dump is in its .start: pre_doit does not run for dumps.
 */
/* --- COUNT_START, COUNT_STOP, COUNT_READ (the session: counting.c) --- */

/* The scratch config of kprof_nl_count_event(), and where the events go. */
struct kprof_nl_count_ctx {
	struct kprof_event_config scratch;
	struct kprof_count_request *req;
};

/*
 * One KPROF_A_SESSION_EVENT of COUNT_START, parsed as START parses it, then
 * held to what can be counted (kprof_nl_walk_events() callback).
 */
static int kprof_nl_count_event(struct genl_info *info, const struct nlattr *nest,
				unsigned int index, void *arg)
{
	struct kprof_nl_count_ctx *ctx = arg;
	struct kprof_event_config *scratch = &ctx->scratch;
	struct kprof_count_event_request *ev = &ctx->req->events[index];
	int ret;

	memset(scratch, 0, sizeof(*scratch));
	ret = kprof_nl_parse_event(info, nest, scratch);
	if (ret)
		return ret;
	switch (scratch->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		break;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, nest, "kprof: event type not supported");
		return -EOPNOTSUPP;
	}
	ev->type = scratch->type;
	ev->config = scratch->config;
	ev->flags = scratch->flags;
	ev->attr = nest;
	strscpy(ev->name, scratch->name, sizeof(ev->name));
	return 0;
}

/* Validate a COUNT_START request into @req (@cpus: its CPUs), as START is validated. */
static int kprof_nl_parse_count(struct genl_info *info, struct kprof_count_request *req,
				struct cpumask *cpus)
{
	struct nlattr **tb = info->attrs;
	struct kprof_nl_count_ctx *ctx;
	bool system_wide;
	int ret;

	req->flags = tb[KPROF_A_SESSION_FLAGS] ? nla_get_u32(tb[KPROF_A_SESSION_FLAGS]) : 0;
	req->count_flags = tb[KPROF_A_COUNT_FLAGS] ? nla_get_u32(tb[KPROF_A_COUNT_FLAGS]) : 0;
	system_wide = req->flags & KPROF_SESSION_F_SYSTEM_WIDE;

	if (req->flags & (KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_SESSION_FLAGS],
				    "kprof: call chain flags do not apply to counting");
		return -EINVAL;
	}
	if (system_wide && (req->count_flags & KPROF_COUNT_F_ENABLE_ON_EXEC)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[KPROF_A_COUNT_FLAGS],
				    "kprof: enable-on-exec needs a per-task session");
		return -EINVAL;
	}
	ret = kprof_nl_parse_target(info, req->flags, req->pids, req->pid_attrs, &req->nr_pids);
	if (ret)
		return ret;
	if (system_wide) {
		ret = kprof_nl_parse_cpumask(tb[KPROF_A_SESSION_CPUS], cpus, info->extack);
		if (ret)
			return ret;
		req->cpus = cpus;
	}
	ctx = kmalloc(sizeof(*ctx), KPROF_GFP);
	if (!ctx)
		return -ENOMEM;
	ctx->req = req;
	ret = kprof_nl_walk_events(info, kprof_nl_count_event, ctx, &req->nr_events);
	kfree(ctx);
	return ret;
}

/* The COUNT_START reply: the session's id and each event's fate. */
static int kprof_nl_count_fill_start(struct sk_buff *msg, const struct kprof_count_request *req,
				     u64 id, const u32 *errors)
{
	struct nlattr *nest;
	unsigned int i;

	if (kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, id, KPROF_A_PAD))
		return -EMSGSIZE;
	for (i = 0; i < req->nr_events; i++) {
		nest = nla_nest_start(msg, KPROF_A_COUNT);
		if (!nest ||
		    nla_put_u32(msg, KPROF_COUNT_A_EVENT, i) ||
		    nla_put_string(msg, KPROF_COUNT_A_NAME, req->events[i].name) ||
		    (errors[i] && nla_put_u32(msg, KPROF_COUNT_A_ERROR, errors[i])))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * kprof_nl_count_start_doit() - KPROF_CMD_COUNT_START
 * @skb: the request
 * @info: its parsed form; the sender becomes the session's owner
 *
 * Context: process context, genl_mutex held.
 * Return: 0 with the reply sent, -ENOSPC with the most counting sessions,
 * or the error of the validation or of perf.
 */
static int kprof_nl_count_start_doit(struct sk_buff *skb, struct genl_info *info)
{
	u32 errors[KPROF_MAX_EVENTS] = {};
	struct kprof_count_request *req;
	struct sk_buff *msg = NULL;
	cpumask_var_t cpus;
	void *hdr;
	u64 id;
	int ret;

	if (!zalloc_cpumask_var(&cpus, KPROF_GFP))
		return -ENOMEM;
	req = kzalloc(sizeof(*req), KPROF_GFP);
	if (!req) {
		ret = -ENOMEM;
		goto out_free;
	}
	ret = kprof_nl_parse_count(info, req, cpus);
	if (ret)
		goto out_free;
	/* allocate the reply first: a started session must be reported */
	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg) {
		ret = -ENOMEM;
		goto out_free;
	}
	req->owner_net = genl_info_net(info);
	req->owner_portid = info->snd_portid;
	req->owner_pid = task_tgid_nr(current);
	ret = kprof_count_start(req, &id, errors, info->extack);
	if (ret)
		goto out_free;
	/* cannot fail: at most 32 small nests in a default-size message */
	ret = kprof_nl_count_fill_start(msg, req, id, errors);
	if (ret)
		goto out_free;
	genlmsg_end(msg, hdr);
	ret = genlmsg_reply(msg, info);
	msg = NULL;
out_free:
	nlmsg_free(msg);
	kfree(req);
	free_cpumask_var(cpus);
	return ret;
}

/* The KPROF_A_SESSION_ID a COUNT request names, in @id; NULL when none. */
static const u64 *kprof_nl_count_id(struct nlattr **attrs, u64 *id)
{
	if (!attrs[KPROF_A_SESSION_ID])
		return NULL;
	*id = nla_get_u64(attrs[KPROF_A_SESSION_ID]);
	return id;
}

/**
 * kprof_nl_count_stop_doit() - KPROF_CMD_COUNT_STOP
 * @skb: the request
 * @info: its parsed form
 *
 * Context: process context, genl_mutex held.
 * Return: 0 with the reply sent, -ENOENT when no session counts, -ESTALE
 * when the session named is gone, -EACCES when it is another user's.
 */
static int kprof_nl_count_stop_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	u64 id, stopped;
	void *hdr;
	int ret;

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;
	ret = kprof_count_stop(kprof_nl_count_id(info->attrs, &id), &stopped, info->extack);
	if (!ret)
		ret = kprof_nl_put_u64(msg, KPROF_A_SESSION_ID, stopped, KPROF_A_PAD);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/**
 * kprof_nl_count_read_start() - start of the KPROF_CMD_COUNT_READ dump
 * @cb: the dump; cb->args[0] gets the snapshot, cb->args[1] why there is none
 *
 * Checks the privilege (pre_doit does not run for dumps) and reads every
 * count at once, so that the dump is consistent whatever its length.  A
 * refusal is left for the dumpit to report: 6.1 gives .start no extack,
 * the dumpit's reaches the client in NLMSG_DONE.
 *
 * Context: process context, genl_mutex held.
 * Return: 0, or -ENOMEM.
 */
static int kprof_nl_count_read_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct kprof_count_snapshot *snap;
	int err = 0;
	u64 id;

	if (!kprof_nl_dump_admit(cb))
		return 0;	/* the dumpit reports the refusal */
	snap = kprof_count_read(kprof_nl_count_id(kprof_genl_dump_attrs(info), &id), &err);
	if (!snap && err == -ENOMEM)
		return err;
	cb->args[0] = (long)snap;
	cb->args[1] = err;
	return 0;
}

static int kprof_nl_count_put_reading(struct sk_buff *skb,
				      const struct kprof_count_snapshot *snap,
				      const struct kprof_count_reading *r)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KPROF_A_COUNT);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, KPROF_COUNT_A_EVENT, r->event) ||
	    nla_put_string(skb, KPROF_COUNT_A_NAME, snap->names[r->event]) ||
	    (r->cpu >= 0 && nla_put_u32(skb, KPROF_COUNT_A_CPU, r->cpu)) ||
	    nla_put_u32(skb, KPROF_COUNT_A_TYPE, snap->types[r->event]) ||
	    kprof_nl_put_u64(skb, KPROF_COUNT_A_CONFIG, snap->configs[r->event],
			     KPROF_COUNT_A_PAD) ||
	    nla_put_u32(skb, KPROF_COUNT_A_STATE, snap->state) ||
	    kprof_nl_put_u64(skb, KPROF_COUNT_A_ELAPSED, snap->elapsed_ns, KPROF_COUNT_A_PAD))
		return -EMSGSIZE;
	if (r->error) {
		if (nla_put_u32(skb, KPROF_COUNT_A_ERROR, r->error))
			return -EMSGSIZE;
	} else if (kprof_nl_put_u64(skb, KPROF_COUNT_A_VALUE, r->value, KPROF_COUNT_A_PAD) ||
		   kprof_nl_put_u64(skb, KPROF_COUNT_A_ENABLED, r->enabled, KPROF_COUNT_A_PAD) ||
		   kprof_nl_put_u64(skb, KPROF_COUNT_A_RUNNING, r->running, KPROF_COUNT_A_PAD)) {
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * kprof_nl_count_read_dumpit() - the messages of the KPROF_CMD_COUNT_READ dump
 * @skb: the message buffer to fill
 * @cb: the dump; cb->args[0] is the snapshot taken by kprof_nl_count_read_start()
 *
 * Return: the bytes filled, 0 when done.
 */
static int kprof_nl_count_read_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kprof_count_snapshot *snap = (struct kprof_count_snapshot *)cb->args[0];
	void *hdr;

	if (kprof_nl_dump_refused(cb))
		return -EPERM;
	if (!snap) {
		kprof_count_refusal(cb->extack, cb->args[1]);
		return cb->args[1];
	}
	for (; snap->pos < snap->nr; snap->pos++) {
		hdr = kprof_nl_dump_msg(skb, cb, KPROF_CMD_COUNT_READ, snap->id);
		if (!hdr)
			break;
		if (kprof_nl_count_put_reading(skb, snap, &snap->r[snap->pos])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

static int kprof_nl_count_read_done(struct netlink_callback *cb)
{
	kvfree((void *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

static const struct genl_ops kprof_nl_ops[] = {
	{
		.cmd		= KPROF_CMD_VERSION,
		.doit		= kprof_nl_version_doit,
		.policy		= kprof_version_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_version_nl_policy) - 1,
	},
	{
		.cmd		= KPROF_CMD_STATUS,
		.doit		= kprof_nl_status_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_START,
		.doit		= kprof_nl_start_doit,
		.policy		= kprof_start_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_start_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_STOP,
		.doit		= kprof_nl_stop_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_STATS,
		.start		= kprof_nl_dump_start,
		.dumpit		= kprof_nl_stats_dumpit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_AGG_DUMP,
		.start		= kprof_nl_dump_start,
		.dumpit		= kprof_nl_agg_dumpit,
		.done		= kprof_nl_agg_dump_done,
		.policy		= kprof_agg_dump_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_agg_dump_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_AGG_RESET,
		.doit		= kprof_nl_agg_reset_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	/* counting (counting.c); COUNT_READ checks perfmon in .start */
	{
		.cmd		= KPROF_CMD_COUNT_START,
		.doit		= kprof_nl_count_start_doit,
		.policy		= kprof_count_start_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_count_start_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_COUNT_READ,
		.start		= kprof_nl_count_read_start,
		.dumpit		= kprof_nl_count_read_dumpit,
		.done		= kprof_nl_count_read_done,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_COUNT_STOP,
		.doit		= kprof_nl_count_stop_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_HIST_DUMP,
		.start		= kprof_nl_dump_start,
		.dumpit		= kprof_nl_hist_dumpit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_AGG_MAPS,
		.start		= kprof_nl_dump_start,
		.dumpit		= kprof_nl_agg_maps_dumpit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_FREE,
		.doit		= kprof_nl_free_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
	{
		.cmd		= KPROF_CMD_AGG_SWAP,
		.doit		= kprof_nl_agg_swap_doit,
		.policy		= kprof_session_id_nl_policy,
		.maxattr	= ARRAY_SIZE(kprof_session_id_nl_policy) - 1,
		.internal_flags	= KPROF_NL_PERFMON,
	},
};

static struct genl_family kprof_nl_family __ro_after_init = {
	.name		= KPROF_FAMILY_NAME,
	.version	= KPROF_FAMILY_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= kprof_nl_ops,
	.n_ops		= ARRAY_SIZE(kprof_nl_ops),
	.resv_start_op	= 0,
	.pre_doit	= kprof_nl_pre_doit,
	/* sessions start and stop side by side: session.c's locks suffice */
	.parallel_ops	= true,
};

/*
 * A netlink socket is going away (closed, or its process exited or was
 * killed): end the sessions it owns.  The one owner of NETLINK_URELEASE
 * for every kind of session.
 */
static int kprof_nl_release_notify(struct notifier_block *nb, unsigned long action,
				   void *data)
{
	struct netlink_notify *n = data;

	if (action != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	if (kprof_session_release(n->net, n->portid))
		kprof_debugfs_sessions_sync();
	kprof_count_release(n->net, n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block kprof_nl_release_notifier = {
	.notifier_call = kprof_nl_release_notify,
};

int __init kprof_nl_init(void)
{
	int ret;

	kprof_debugfs_show_file("netlink", kprof_netlink_show);
	ret = netlink_register_notifier(&kprof_nl_release_notifier);
	if (ret)
		return ret;
	ret = genl_register_family(&kprof_nl_family);
	if (ret)
		netlink_unregister_notifier(&kprof_nl_release_notifier);
	return ret;
}

void kprof_nl_exit(void)
{
	genl_unregister_family(&kprof_nl_family);
	netlink_unregister_notifier(&kprof_nl_release_notifier);
}
