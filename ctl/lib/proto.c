// SPDX-License-Identifier: GPL-2.0
/*
 * The kprof generic netlink protocol; see proto.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <linux/kprof.h>

#include "proto.h"
#include "session.h"
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
	[KPROF_A_SESSION_ID]		= "KPROF_A_SESSION_ID",
	[KPROF_A_SESSION_FLAGS]		= "KPROF_A_SESSION_FLAGS",
	[KPROF_A_SESSION_FREQ]		= "KPROF_A_SESSION_FREQ",
	[KPROF_A_SESSION_PERIOD]	= "KPROF_A_SESSION_PERIOD",
	[KPROF_A_SESSION_CPUS]		= "KPROF_A_SESSION_CPUS",
	[KPROF_A_SESSION_PID]		= "KPROF_A_SESSION_PID",
	[KPROF_A_SESSION_BUFFER_SIZE]	= "KPROF_A_SESSION_BUFFER_SIZE",
	[KPROF_A_SESSION_STACK_DEPTH]	= "KPROF_A_SESSION_STACK_DEPTH",
	[KPROF_A_SESSION_WATERMARK]	= "KPROF_A_SESSION_WATERMARK",
	[KPROF_A_SESSION_EVENT]		= "KPROF_A_SESSION_EVENT",
	[KPROF_A_SESSION_MMAP_STRIDE]	= "KPROF_A_SESSION_MMAP_STRIDE",
	[KPROF_A_STATS]			= "KPROF_A_STATS",
	[KPROF_A_SESSION_AGG_ENTRIES]	= "KPROF_A_SESSION_AGG_ENTRIES",
	[KPROF_A_AGG_ENTRY]		= "KPROF_A_AGG_ENTRY",
	[KPROF_A_SESSION_OWNER_PID]	= "KPROF_A_SESSION_OWNER_PID",
	[KPROF_A_AGG_MAP]		= "KPROF_A_AGG_MAP",
	[KPROF_A_SESSION_MAPS]		= "KPROF_A_SESSION_MAPS",
	[KPROF_A_SESSION]		= "KPROF_A_SESSION",
	[KPROF_A_SESSION_UID]		= "KPROF_A_SESSION_UID",
	[KPROF_A_SESSION_START_NS]	= "KPROF_A_SESSION_START_NS",
	[KPROF_A_SESSION_NR_EVENTS]	= "KPROF_A_SESSION_NR_EVENTS",
	[KPROF_A_SESSION_MEMORY]	= "KPROF_A_SESSION_MEMORY",
	[KPROF_A_STATUS_MEMORY]		= "KPROF_A_STATUS_MEMORY",
	[KPROF_A_STATUS_BUDGET]		= "KPROF_A_STATUS_BUDGET",
	[KPROF_A_SESSION_CPUS_SKIPPED]	= "KPROF_A_SESSION_CPUS_SKIPPED",
	[KPROF_A_SESSION_LOST_NO_RING]	= "KPROF_A_SESSION_LOST_NO_RING",
	[KPROF_A_COUNT_SESSION]		= "KPROF_A_COUNT_SESSION",
	[KPROF_A_AGG_EPOCH]		= "KPROF_A_AGG_EPOCH",
	[KPROF_A_AGG_START_NS]		= "KPROF_A_AGG_START_NS",
	[KPROF_A_AGG_END_NS]		= "KPROF_A_AGG_END_NS",
	[KPROF_A_SESSION_USER_STACK]	= "KPROF_A_SESSION_USER_STACK",
};

static const char * const kp_stats_attr_names[KPROF_STATS_A_MAX + 1] = {
	[KPROF_STATS_A_CPU]		= "KPROF_STATS_A_CPU",
	[KPROF_STATS_A_INVOCATIONS]	= "KPROF_STATS_A_INVOCATIONS",
	[KPROF_STATS_A_SAMPLES]		= "KPROF_STATS_A_SAMPLES",
	[KPROF_STATS_A_LOST_FULL]	= "KPROF_STATS_A_LOST_FULL",
	[KPROF_STATS_A_LOST_TOO_BIG]	= "KPROF_STATS_A_LOST_TOO_BIG",
	[KPROF_STATS_A_THROTTLED]	= "KPROF_STATS_A_THROTTLED",
	[KPROF_STATS_A_BYTES]		= "KPROF_STATS_A_BYTES",
	[KPROF_STATS_A_SIDEBAND]	= "KPROF_STATS_A_SIDEBAND",
	[KPROF_STATS_A_SIDEBAND_LOST]	= "KPROF_STATS_A_SIDEBAND_LOST",
	[KPROF_STATS_A_HANDLER_NS]	= "KPROF_STATS_A_HANDLER_NS",
	[KPROF_STATS_A_HANDLER_MAX_NS]	= "KPROF_STATS_A_HANDLER_MAX_NS",
	[KPROF_STATS_A_KSTACK_TRUNC]	= "KPROF_STATS_A_KSTACK_TRUNC",
	[KPROF_STATS_A_USTACK_TRUNC]	= "KPROF_STATS_A_USTACK_TRUNC",
	[KPROF_STATS_A_USTACK_FAULT]	= "KPROF_STATS_A_USTACK_FAULT",
	[KPROF_STATS_A_PAD]		= "KPROF_STATS_A_PAD",
	[KPROF_STATS_A_AGG_SAMPLES]	= "KPROF_STATS_A_AGG_SAMPLES",
	[KPROF_STATS_A_LOST_AGG_FULL]	= "KPROF_STATS_A_LOST_AGG_FULL",
	[KPROF_STATS_A_LOST_AGG_RESET]	= "KPROF_STATS_A_LOST_AGG_RESET",
	[KPROF_STATS_A_AGG_USED]	= "KPROF_STATS_A_AGG_USED",
	[KPROF_STATS_A_AGG_CAPACITY]	= "KPROF_STATS_A_AGG_CAPACITY",
	[KPROF_STATS_A_FILTERED]	= "KPROF_STATS_A_FILTERED",
	[KPROF_STATS_A_LOST_RECURSION]	= "KPROF_STATS_A_LOST_RECURSION",
	[KPROF_STATS_A_NESTED]		= "KPROF_STATS_A_NESTED",
	[KPROF_STATS_A_LOST_COST]	= "KPROF_STATS_A_LOST_COST",
	[KPROF_STATS_A_OFFCPU_BLOCKS]	= "KPROF_STATS_A_OFFCPU_BLOCKS",
	[KPROF_STATS_A_OFFCPU_DONE]	= "KPROF_STATS_A_OFFCPU_DONE",
	[KPROF_STATS_A_OFFCPU_FILTERED]	= "KPROF_STATS_A_OFFCPU_FILTERED",
	[KPROF_STATS_A_OFFCPU_LOST]	= "KPROF_STATS_A_OFFCPU_LOST",
	[KPROF_STATS_A_OFFCPU_LOST_FULL] = "KPROF_STATS_A_OFFCPU_LOST_FULL",
	[KPROF_STATS_A_OFFCPU_LOST_RESET] = "KPROF_STATS_A_OFFCPU_LOST_RESET",
	[KPROF_STATS_A_OFFCPU_OPEN]	= "KPROF_STATS_A_OFFCPU_OPEN",
	[KPROF_STATS_A_LOCK_WAITS]	= "KPROF_STATS_A_LOCK_WAITS",
	[KPROF_STATS_A_LOCK_DONE]	= "KPROF_STATS_A_LOCK_DONE",
	[KPROF_STATS_A_LOCK_FILTERED]	= "KPROF_STATS_A_LOCK_FILTERED",
	[KPROF_STATS_A_LOCK_LOST]	= "KPROF_STATS_A_LOCK_LOST",
	[KPROF_STATS_A_LOCK_LOST_FULL]	= "KPROF_STATS_A_LOCK_LOST_FULL",
	[KPROF_STATS_A_LOCK_LOST_RESET]	= "KPROF_STATS_A_LOCK_LOST_RESET",
	[KPROF_STATS_A_LOCK_OPEN]	= "KPROF_STATS_A_LOCK_OPEN",
	[KPROF_STATS_A_WAKER_WAKES]	= "KPROF_STATS_A_WAKER_WAKES",
	[KPROF_STATS_A_WAKER_DONE]	= "KPROF_STATS_A_WAKER_DONE",
	[KPROF_STATS_A_WAKER_FILTERED] = "KPROF_STATS_A_WAKER_FILTERED",
	[KPROF_STATS_A_WAKER_LOST]	= "KPROF_STATS_A_WAKER_LOST",
	[KPROF_STATS_A_WAKER_LOST_FULL] = "KPROF_STATS_A_WAKER_LOST_FULL",
	[KPROF_STATS_A_WAKER_LOST_RESET] = "KPROF_STATS_A_WAKER_LOST_RESET",
	[KPROF_STATS_A_WAKER_OPEN]	= "KPROF_STATS_A_WAKER_OPEN",
	[KPROF_STATS_A_AGG_HIGH]	= "KPROF_STATS_A_AGG_HIGH",
	[KPROF_STATS_A_AGG_POOL_USED]	= "KPROF_STATS_A_AGG_POOL_USED",
	[KPROF_STATS_A_AGG_POOL_HIGH]	= "KPROF_STATS_A_AGG_POOL_HIGH",
	[KPROF_STATS_A_AGG_POOL_SIZE]	= "KPROF_STATS_A_AGG_POOL_SIZE",
};

static const char * const kp_stat_names[KP_STATS_NR] = {
	[KP_STAT_INVOCATIONS]		= "invocations",
	[KP_STAT_SAMPLES]		= "samples",
	[KP_STAT_LOST_FULL]		= "lost_full",
	[KP_STAT_LOST_TOO_BIG]		= "lost_too_big",
	[KP_STAT_THROTTLED]		= "throttled",
	[KP_STAT_BYTES]			= "bytes",
	[KP_STAT_SIDEBAND]		= "sideband",
	[KP_STAT_SIDEBAND_LOST]		= "sideband_lost",
	[KP_STAT_HANDLER_NS]		= "handler_ns",
	[KP_STAT_HANDLER_MAX_NS]	= "handler_max_ns",
	[KP_STAT_KSTACK_TRUNC]		= "kstack_trunc",
	[KP_STAT_USTACK_TRUNC]		= "ustack_trunc",
	[KP_STAT_USTACK_FAULT]		= "ustack_fault",
};

const char *kp_stat__name(unsigned int i)
{
	return i < KP_STATS_NR ? kp_stat_names[i] : "unknown";
}

static const char * const kp_agg_stat_names[KP_AGG_STATS_NR] = {
	[KP_AGG_STAT_SAMPLES]		= "agg_samples",
	[KP_AGG_STAT_LOST_FULL]		= "lost_agg_full",
	[KP_AGG_STAT_LOST_RESET]	= "lost_agg_reset",
	[KP_AGG_STAT_USED]		= "agg_used",
	[KP_AGG_STAT_CAPACITY]		= "agg_capacity",
};

const char *kp_agg_stat__name(unsigned int i)
{
	return i < KP_AGG_STATS_NR ? kp_agg_stat_names[i] : "unknown";
}

static const char * const kp_agg_use_names[KP_AGG_USE_NR] = {
	[KP_AGG_USE_HIGH]		= "agg_high",
	[KP_AGG_USE_POOL_USED]		= "agg_pool_used",
	[KP_AGG_USE_POOL_HIGH]		= "agg_pool_high",
	[KP_AGG_USE_POOL_SIZE]		= "agg_pool_size",
};

const char *kp_agg_use__name(unsigned int i)
{
	return i < KP_AGG_USE_NR ? kp_agg_use_names[i] : "unknown";
}

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
	[KPROF_A_SESSION_ID]		= { .type = NLA_U64 },
	[KPROF_A_SESSION_FLAGS]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_FREQ]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_PERIOD]	= { .type = NLA_U64 },
	[KPROF_A_SESSION_CPUS]		= { .type = NLA_UNSPEC },
	[KPROF_A_SESSION_PID]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_BUFFER_SIZE]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_STACK_DEPTH]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_WATERMARK]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_EVENT]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION_MMAP_STRIDE]	= { .type = NLA_U64 },
	[KPROF_A_STATS]			= { .type = NLA_NESTED },
	[KPROF_A_SESSION_AGG_ENTRIES]	= { .type = NLA_U32 },
	[KPROF_A_AGG_ENTRY]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION_OWNER_PID]	= { .type = NLA_U32 },
	[KPROF_A_AGG_MAP]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION_MAPS]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION_UID]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_START_NS]	= { .type = NLA_U64 },
	[KPROF_A_SESSION_NR_EVENTS]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_MEMORY]	= { .type = NLA_U64 },
	[KPROF_A_STATUS_MEMORY]		= { .type = NLA_U64 },
	[KPROF_A_STATUS_BUDGET]		= { .type = NLA_U64 },
	[KPROF_A_SESSION_CPUS_SKIPPED]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_LOST_NO_RING]	= { .type = NLA_U64 },
	[KPROF_A_COUNT_SESSION]		= { .type = NLA_NESTED },
	[KPROF_A_AGG_EPOCH]		= { .type = NLA_U64 },
	[KPROF_A_AGG_START_NS]		= { .type = NLA_U64 },
	[KPROF_A_AGG_END_NS]		= { .type = NLA_U64 },
	[KPROF_A_SESSION_USER_STACK]	= { .type = NLA_U32 },
};

/* Every KPROF_STATS_A_* counter is a u64; CPU a u32. */
static const struct nla_policy kp_stats_policy[KPROF_STATS_A_MAX + 1] = {
	[KPROF_STATS_A_CPU]		= { .type = NLA_U32 },
	[KPROF_STATS_A_INVOCATIONS]	= { .type = NLA_U64 },
	[KPROF_STATS_A_SAMPLES]		= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_FULL]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_TOO_BIG]	= { .type = NLA_U64 },
	[KPROF_STATS_A_THROTTLED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_BYTES]		= { .type = NLA_U64 },
	[KPROF_STATS_A_SIDEBAND]	= { .type = NLA_U64 },
	[KPROF_STATS_A_SIDEBAND_LOST]	= { .type = NLA_U64 },
	[KPROF_STATS_A_HANDLER_NS]	= { .type = NLA_U64 },
	[KPROF_STATS_A_HANDLER_MAX_NS]	= { .type = NLA_U64 },
	[KPROF_STATS_A_KSTACK_TRUNC]	= { .type = NLA_U64 },
	[KPROF_STATS_A_USTACK_TRUNC]	= { .type = NLA_U64 },
	[KPROF_STATS_A_USTACK_FAULT]	= { .type = NLA_U64 },
	[KPROF_STATS_A_PAD]		= { .type = NLA_UNSPEC },
	[KPROF_STATS_A_AGG_SAMPLES]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_AGG_FULL]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_AGG_RESET]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_USED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_CAPACITY]	= { .type = NLA_U64 },
	[KPROF_STATS_A_FILTERED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_RECURSION]	= { .type = NLA_U64 },
	[KPROF_STATS_A_NESTED]		= { .type = NLA_U64 },
	[KPROF_STATS_A_LOST_COST]	= { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_BLOCKS]	= { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_DONE]	= { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_FILTERED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_LOST]	= { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_LOST_FULL] = { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_LOST_RESET] = { .type = NLA_U64 },
	[KPROF_STATS_A_OFFCPU_OPEN]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_WAITS]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_DONE]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_FILTERED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_LOST]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_LOST_FULL]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_LOST_RESET]	= { .type = NLA_U64 },
	[KPROF_STATS_A_LOCK_OPEN]	= { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_WAKES]	= { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_DONE]	= { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_FILTERED] = { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_LOST]	= { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_LOST_FULL] = { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_LOST_RESET] = { .type = NLA_U64 },
	[KPROF_STATS_A_WAKER_OPEN]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_HIGH]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_POOL_USED]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_POOL_HIGH]	= { .type = NLA_U64 },
	[KPROF_STATS_A_AGG_POOL_SIZE]	= { .type = NLA_U64 },
};

const char *kp_fmt_lost_tail(uint64_t recursion, uint64_t cost, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (recursion)
		n = snprintf(buf, len, ", %" PRIu64 " recursion", recursion);
	if (cost && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, ", %" PRIu64 " cost cap", cost);
	return buf;
}

const char *kp_attr__name(int type)
{
	if (type > 0 && type <= KPROF_A_MAX && kp_attr_names[type])
		return kp_attr_names[type];
	return "unknown attribute";
}

static const char *kp_stats_attr__name(int type)
{
	if (type > 0 && type <= KPROF_STATS_A_MAX && kp_stats_attr_names[type])
		return kp_stats_attr_names[type];
	return "unknown attribute";
}

#define MALFORMED	"malformed reply from kprof.ko: "

/*
 * Check the attributes parsed into @tb against @policy: exact integer
 * sizes, NUL-terminated strings; then that every attribute of @required
 * (ending with 0) is present.
 */
static int kp_attrs__check(struct nlattr **tb, int max, const struct nla_policy *policy,
			   const char *(*name)(int type), const int *required,
			   struct kp_err *err)
{
	int type, len, want;

	for (type = 1; type <= max; type++) {
		if (!tb[type])
			continue;
		len = nla_len(tb[type]);
		switch (policy[type].type) {
		case NLA_U32:
			want = sizeof(uint32_t);
			break;
		case NLA_U64:
			want = sizeof(uint64_t);
			break;
		case NLA_STRING:
			if (len > 0 && memchr(nla_data(tb[type]), '\0', len))
				continue;
			kp_err__set(err, EBADMSG, MALFORMED "%s is not a string", name(type));
			return -EBADMSG;
		default:
			continue;
		}
		if (len != want) {
			kp_err__set(err, EBADMSG, MALFORMED "%s has %d bytes, expected %d",
				    name(type), len, want);
			return -EBADMSG;
		}
	}

	for (; required && *required; required++) {
		if (!tb[*required]) {
			kp_err__set(err, EBADMSG, MALFORMED "%s is missing", name(*required));
			return -EBADMSG;
		}
	}
	return 0;
}

int kp_reply__check_header(const struct nlmsghdr *nlh, uint8_t cmd, struct kp_err *err)
{
	const struct genlmsghdr *gh;

	if (!genlmsg_valid_hdr((struct nlmsghdr *)nlh, 0)) {
		kp_err__set(err, EBADMSG, MALFORMED "truncated message");
		return -EBADMSG;
	}
	gh = nlmsg_data(nlh);
	if (gh->cmd != cmd) {
		kp_err__set(err, EBADMSG, MALFORMED "command %u, expected %u", gh->cmd, cmd);
		return -EBADMSG;
	}
	return 0;
}

/*
 * Check the generic netlink header and command of a reply, parse its
 * attributes into @tb and check them; @required ends with 0.
 */
static int kp_reply__parse(const struct nlmsghdr *nlh, uint8_t cmd,
			   struct nlattr **tb, const int *required,
			   struct kp_err *err)
{
	struct nlmsghdr *h = (struct nlmsghdr *)nlh;
	int ret;

	ret = kp_reply__check_header(nlh, cmd, err);
	if (ret)
		return ret;
	ret = genlmsg_parse(h, 0, tb, KPROF_A_MAX, kp_reply_policy);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "%s", nl_geterror(ret));
		return -EBADMSG;
	}

	return kp_attrs__check(tb, KPROF_A_MAX, kp_reply_policy, kp_attr__name,
			       required, err);
}

/* @nr counters from attribute @first on: all there, or false. */
static bool kp_stats__all(struct nlattr **tb, int first, int nr, uint64_t *v)
{
	bool all = true;
	int i;

	for (i = 0; i < nr; i++) {
		if (tb[first + i])
			v[i] = nla_get_u64(tb[first + i]);
		else
			all = false;
	}
	return all;
}

/* A KPROF_A_STATS nest: every counter is required. */
static int kp_stats__parse_nest(struct nlattr *nest, struct kp_stats *st,
				struct kp_err *err)
{
	struct nlattr *tb[KPROF_STATS_A_MAX + 1];
	int required[KP_STATS_NR + 1];
	unsigned int i;
	int ret;

	for (i = 0; i < KP_STATS_NR; i++)
		required[i] = KPROF_STATS_A_INVOCATIONS + i;
	required[KP_STATS_NR] = 0;
	memset(st, 0, sizeof(*st));
	/* No libnl policy: kp_attrs__check() names a wrong size exactly. */
	ret = nla_parse_nested(tb, KPROF_STATS_A_MAX, nest, NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_STATS: %s", nl_geterror(ret));
		return -EBADMSG;
	}
	ret = kp_attrs__check(tb, KPROF_STATS_A_MAX, kp_stats_policy, kp_stats_attr__name,
			      required, err);
	if (ret)
		return ret;
	for (i = 0; i < KP_STATS_NR; i++)
		st->v[i] = nla_get_u64(tb[KPROF_STATS_A_INVOCATIONS + i]);
	/* The aggregation counters: all or none. */
	for (i = 0; i < KP_AGG_STATS_NR; i++) {
		if (!tb[KPROF_STATS_A_AGG_SAMPLES + i] != !tb[KPROF_STATS_A_AGG_SAMPLES]) {
			kp_err__set(err, EBADMSG, MALFORMED "%s is missing",
				    kp_stats_attr__name(tb[KPROF_STATS_A_AGG_SAMPLES] ?
							KPROF_STATS_A_AGG_SAMPLES + i :
							KPROF_STATS_A_AGG_SAMPLES));
			return -EBADMSG;
		}
		if (tb[KPROF_STATS_A_AGG_SAMPLES + i])
			st->agg[i] = nla_get_u64(tb[KPROF_STATS_A_AGG_SAMPLES + i]);
	}
	st->has_agg = tb[KPROF_STATS_A_AGG_SAMPLES];
	/* optional: not in kprof.data's STATS records, absent from older modules */
	st->has_filtered = tb[KPROF_STATS_A_FILTERED];
	if (st->has_filtered)
		st->filtered = nla_get_u64(tb[KPROF_STATS_A_FILTERED]);
	/* ABI 1.1: absent from older modules, and then 0 */
	if (tb[KPROF_STATS_A_LOST_RECURSION])
		st->lost_recursion = nla_get_u64(tb[KPROF_STATS_A_LOST_RECURSION]);
	/* ABI 1.3 */
	if (tb[KPROF_STATS_A_LOST_COST])
		st->lost_cost = nla_get_u64(tb[KPROF_STATS_A_LOST_COST]);
	/* the waits' counters, each kind all or none: ABI 1.5, 1.6, 1.7 */
	st->has_offcpu = kp_stats__all(tb, KPROF_STATS_A_OFFCPU_BLOCKS, KP_OFFCPU_STATS_NR,
				       st->offcpu);
	st->has_lock = kp_stats__all(tb, KPROF_STATS_A_LOCK_WAITS, KP_OFFCPU_STATS_NR, st->lock);
	st->has_waker = kp_stats__all(tb, KPROF_STATS_A_WAKER_WAKES, KP_OFFCPU_STATS_NR,
				      st->waker);
	/* ABI 1.14: the tables' high-water marks and pools */
	st->has_agg_use = st->has_agg &&
			  kp_stats__all(tb, KPROF_STATS_A_AGG_HIGH, KP_AGG_USE_NR, st->agg_use);
	st->has_nested = tb[KPROF_STATS_A_NESTED];
	if (st->has_nested)
		st->nested = nla_get_u64(tb[KPROF_STATS_A_NESTED]);
	st->has_cpu = tb[KPROF_STATS_A_CPU];
	if (st->has_cpu)
		st->cpu = nla_get_u32(tb[KPROF_STATS_A_CPU]);
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

static const char *kp_maps_attr__name(int type)
{
	static const char * const names[KPROF_MAPS_A_MAX + 1] = {
		[KPROF_MAPS_A_PROCS]	= "KPROF_MAPS_A_PROCS",
		[KPROF_MAPS_A_KEPT]	= "KPROF_MAPS_A_KEPT",
		[KPROF_MAPS_A_LOST]	= "KPROF_MAPS_A_LOST",
		[KPROF_MAPS_A_LOST_PIDS] = "KPROF_MAPS_A_LOST_PIDS",
		[KPROF_MAPS_A_UNOWNED]	= "KPROF_MAPS_A_UNOWNED",
		[KPROF_MAPS_A_PAD]	= "KPROF_MAPS_A_PAD",
	};

	if (type > 0 && type <= KPROF_MAPS_A_MAX && names[type])
		return names[type];
	return "unknown attribute";
}

static const struct nla_policy kp_maps_policy[KPROF_MAPS_A_MAX + 1] = {
	[KPROF_MAPS_A_PROCS]	= { .type = NLA_U64 },
	[KPROF_MAPS_A_KEPT]	= { .type = NLA_U64 },
	[KPROF_MAPS_A_LOST]	= { .type = NLA_U64 },
	[KPROF_MAPS_A_LOST_PIDS] = { .type = NLA_U64 },
	[KPROF_MAPS_A_UNOWNED]	= { .type = NLA_U64 },
	[KPROF_MAPS_A_PAD]	= { .type = NLA_UNSPEC },
};

static int kp_maps__parse_nest(struct nlattr *nest, struct kp_maps_stats *m, struct kp_err *err)
{
	static const int required[] = {
		KPROF_MAPS_A_PROCS, KPROF_MAPS_A_KEPT, KPROF_MAPS_A_LOST,
		KPROF_MAPS_A_LOST_PIDS, KPROF_MAPS_A_UNOWNED, 0
	};
	struct nlattr *tb[KPROF_MAPS_A_MAX + 1];
	int ret;

	ret = nla_parse_nested(tb, KPROF_MAPS_A_MAX, nest, NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_SESSION_MAPS: %s", nl_geterror(ret));
		return -EBADMSG;
	}
	ret = kp_attrs__check(tb, KPROF_MAPS_A_MAX, kp_maps_policy, kp_maps_attr__name,
			      required, err);
	if (ret)
		return ret;
	m->procs = nla_get_u64(tb[KPROF_MAPS_A_PROCS]);
	m->kept = nla_get_u64(tb[KPROF_MAPS_A_KEPT]);
	m->lost = nla_get_u64(tb[KPROF_MAPS_A_LOST]);
	m->lost_pids = nla_get_u64(tb[KPROF_MAPS_A_LOST_PIDS]);
	m->unowned = nla_get_u64(tb[KPROF_MAPS_A_UNOWNED]);
	return 0;
}

static int kp_session_row__parse(struct nlattr *nest, struct kp_session_row *r,
				 struct kp_err *err);

/* One KPROF_A_COUNT_SESSION nest (ABI 1.14): a session nest without stats. */
static int kp_count_row__parse(struct nlattr *nest, struct kp_count_row *c, struct kp_err *err)
{
	struct kp_session_row r;
	int ret;

	ret = kp_session_row__parse(nest, &r, err);
	if (ret)
		return ret;
	*c = (struct kp_count_row){
		.id = r.id, .state = r.state, .flags = r.flags, .owner_pid = r.owner_pid,
		.uid = r.uid, .start_ns = r.start_ns, .nr_events = r.nr_events, .mem = r.mem,
	};
	return 0;
}

/* The counting sessions of a STATUS reply, at most KP_COUNT_SESSIONS_MAX. */
static int kp_status__parse_counts(const struct nlmsghdr *nlh, struct kp_status_info *st,
				   struct kp_err *err)
{
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct nlattr *nla;
	int rem, ret;

	nla_for_each_attr(nla, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(nla) != KPROF_A_COUNT_SESSION ||
		    st->nr_counts == KP_COUNT_SESSIONS_MAX)
			continue;
		ret = kp_count_row__parse(nla, &st->counts[st->nr_counts], err);
		if (ret)
			return ret;
		st->nr_counts++;
	}
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
	st->nr_counts = 0;
	ret = kp_status__parse_counts(nlh, st, err);
	if (ret)
		return ret;
	st->state = nla_get_u32(tb[KPROF_A_STATUS_STATE]);
	st->nr_cpus = nla_get_u32(tb[KPROF_A_STATUS_NR_CPUS]);
	st->online_cpus = nla_get_u32(tb[KPROF_A_STATUS_ONLINE_CPUS]);
	st->sessions = nla_get_u64(tb[KPROF_A_STATUS_SESSIONS]);
	st->readers = nla_get_u32(tb[KPROF_A_STATUS_READERS]);
	st->loaded_ns = nla_get_u64(tb[KPROF_A_STATUS_LOADED_NS]);
	st->has_budget = tb[KPROF_A_STATUS_MEMORY] && tb[KPROF_A_STATUS_BUDGET];
	if (st->has_budget) {
		st->mem = nla_get_u64(tb[KPROF_A_STATUS_MEMORY]);
		st->budget = nla_get_u64(tb[KPROF_A_STATUS_BUDGET]);
	}

	/* The session's attributes, when there is one. */
	st->has_session = tb[KPROF_A_SESSION_ID];
	if (!st->has_session)
		return 0;
	st->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	if (tb[KPROF_A_SESSION_FLAGS])
		st->session_flags = nla_get_u32(tb[KPROF_A_SESSION_FLAGS]);
	if (tb[KPROF_A_SESSION_BUFFER_SIZE])
		st->buffer_size = nla_get_u32(tb[KPROF_A_SESSION_BUFFER_SIZE]);
	if (tb[KPROF_A_SESSION_MMAP_STRIDE])
		st->mmap_stride = nla_get_u64(tb[KPROF_A_SESSION_MMAP_STRIDE]);
	st->has_owner = tb[KPROF_A_SESSION_OWNER_PID];
	if (st->has_owner)
		st->owner_pid = nla_get_u32(tb[KPROF_A_SESSION_OWNER_PID]);
	if (tb[KPROF_A_STATS]) {
		ret = kp_stats__parse_nest(tb[KPROF_A_STATS], &st->stats, err);
		if (ret)
			return ret;
		st->has_stats = true;
	}
	if (tb[KPROF_A_SESSION_MAPS]) {
		ret = kp_maps__parse_nest(tb[KPROF_A_SESSION_MAPS], &st->maps, err);
		if (ret)
			return ret;
		st->has_maps = true;
	}
	return 0;
}

int kp_start__parse(const struct nlmsghdr *nlh, struct kp_start_info *info,
		    struct kp_err *err)
{
	static const int required[] = {
		KPROF_A_SESSION_ID, KPROF_A_SESSION_BUFFER_SIZE, KPROF_A_STATUS_NR_CPUS,
		KPROF_A_SESSION_MMAP_STRIDE, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_START, tb, required, err);
	if (ret)
		return ret;
	info->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	info->buffer_size = nla_get_u32(tb[KPROF_A_SESSION_BUFFER_SIZE]);
	info->nr_cpus = nla_get_u32(tb[KPROF_A_STATUS_NR_CPUS]);
	info->mmap_stride = nla_get_u64(tb[KPROF_A_SESSION_MMAP_STRIDE]);
	if (!info->nr_cpus || info->nr_cpus > KP_CPUMAP_MAX_CPUS) {
		kp_err__set(err, EBADMSG, MALFORMED "%u CPUs", info->nr_cpus);
		return -EBADMSG;
	}
	if (!info->buffer_size || info->buffer_size & (info->buffer_size - 1) ||
	    info->mmap_stride <= info->buffer_size || info->mmap_stride % 4096 ||
	    info->mmap_stride > (1ULL << 40)) {
		kp_err__set(err, EBADMSG, MALFORMED "buffer size %u with mmap stride %" PRIu64,
			    info->buffer_size, info->mmap_stride);
		return -EBADMSG;
	}
	return 0;
}

int kp_stop__parse(const struct nlmsghdr *nlh, struct kp_stop_info *info,
		   struct kp_err *err)
{
	static const int required[] = { KPROF_A_SESSION_ID, KPROF_A_STATS, 0 };
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_STOP, tb, required, err);
	if (ret)
		return ret;
	info->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	return kp_stats__parse_nest(tb[KPROF_A_STATS], &info->stats, err);
}

int kp_stats__parse_msg(const struct nlmsghdr *nlh, struct kp_stats *st,
			struct kp_err *err)
{
	static const int required[] = { KPROF_A_STATS, 0 };
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_STATS, tb, required, err);
	if (ret)
		return ret;
	ret = kp_stats__parse_nest(tb[KPROF_A_STATS], st, err);
	if (ret)
		return ret;
	if (!st->has_cpu) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_STATS_A_CPU is missing");
		return -EBADMSG;
	}
	return 0;
}

/* Commands about one sampling session, which name it (ABI 1.10). */
static bool kp_cmd__names_session(uint8_t cmd)
{
	switch (cmd) {
	case KPROF_CMD_STATUS:
	case KPROF_CMD_STOP:
	case KPROF_CMD_STATS:
	case KPROF_CMD_AGG_DUMP:
	case KPROF_CMD_AGG_RESET:
	case KPROF_CMD_HIST_DUMP:
	case KPROF_CMD_AGG_MAPS:
	case KPROF_CMD_FREE:
	case KPROF_CMD_AGG_SWAP:
		return true;
	default:
		return false;
	}
}

/*
 * A request for @cmd with the generic netlink header filled in, and the
 * socket's session (kp_nl__session()) when @cmd is about one: a module
 * older than ABI 1.10 ignores it and acts on its only session.
 */
static struct nl_msg *kp_request__new_flags(struct kp_nl *nl, uint8_t cmd, int flags,
					    struct kp_err *err)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		goto nomem;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0, flags,
			 cmd, KPROF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		goto nomem;
	}
	if (kp_cmd__names_session(cmd) && kp_nl__session(nl) &&
	    nla_put_u64(msg, KPROF_A_SESSION_ID, kp_nl__session(nl))) {
		nlmsg_free(msg);
		goto nomem;
	}
	return msg;
nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return NULL;
}

static struct nl_msg *kp_request__new(struct kp_nl *nl, uint8_t cmd,
				      struct kp_err *err)
{
	return kp_request__new_flags(nl, cmd, 0, err);
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

/* ---- the sessions STATUS lists (ABI 1.10) ---- */

struct kp_sessions_arg {
	struct kp_session_row	*rows;
	unsigned int		max;
	unsigned int		nr;
};

/* One KPROF_A_SESSION nest into @r. */
static int kp_session_row__parse(struct nlattr *nest, struct kp_session_row *r,
				 struct kp_err *err)
{
	static const int required[] = {
		KPROF_A_SESSION_ID, KPROF_A_STATUS_STATE, KPROF_A_SESSION_FLAGS, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	if (nla_parse_nested(tb, KPROF_A_MAX, nest, (struct nla_policy *)kp_reply_policy) < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "a KPROF_A_SESSION nest");
		return -EBADMSG;
	}
	ret = kp_attrs__check(tb, KPROF_A_MAX, kp_reply_policy, kp_attr__name, required, err);
	if (ret)
		return ret;
	memset(r, 0, sizeof(*r));
	r->id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	r->state = nla_get_u32(tb[KPROF_A_STATUS_STATE]);
	r->flags = nla_get_u32(tb[KPROF_A_SESSION_FLAGS]);
	if (tb[KPROF_A_SESSION_OWNER_PID])
		r->owner_pid = nla_get_u32(tb[KPROF_A_SESSION_OWNER_PID]);
	if (tb[KPROF_A_SESSION_UID])
		r->uid = nla_get_u32(tb[KPROF_A_SESSION_UID]);
	if (tb[KPROF_A_SESSION_START_NS])
		r->start_ns = nla_get_u64(tb[KPROF_A_SESSION_START_NS]);
	if (tb[KPROF_A_SESSION_NR_EVENTS])
		r->nr_events = nla_get_u32(tb[KPROF_A_SESSION_NR_EVENTS]);
	if (tb[KPROF_A_SESSION_BUFFER_SIZE])
		r->buffer_size = nla_get_u32(tb[KPROF_A_SESSION_BUFFER_SIZE]);
	if (tb[KPROF_A_SESSION_MEMORY])
		r->mem = nla_get_u64(tb[KPROF_A_SESSION_MEMORY]);
	if (tb[KPROF_A_SESSION_CPUS_SKIPPED])
		r->cpus_skipped = nla_get_u32(tb[KPROF_A_SESSION_CPUS_SKIPPED]);
	if (tb[KPROF_A_SESSION_LOST_NO_RING])
		r->lost_no_ring = nla_get_u64(tb[KPROF_A_SESSION_LOST_NO_RING]);
	if (tb[KPROF_A_STATS]) {
		ret = kp_stats__parse_nest(tb[KPROF_A_STATS], &r->stats, err);
		if (ret)
			return ret;
		r->has_stats = true;
	}
	return 0;
}

static int kp_sessions__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_sessions_arg *a = arg;
	struct genlmsghdr *gh;
	struct nlattr *nla;
	int rem, ret;

	ret = kp_reply__check_header(nlh, KPROF_CMD_STATUS, err);
	if (ret)
		return ret;
	gh = nlmsg_data(nlh);
	nla_for_each_attr(nla, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(nla) != KPROF_A_SESSION)
			continue;
		if (a->nr < a->max) {
			ret = kp_session_row__parse(nla, &a->rows[a->nr], err);
			if (ret)
				return ret;
		}
		a->nr++;
	}
	return 0;
}

struct kp_status_sessions_arg {
	struct kp_status_info	*st;
	struct kp_sessions_arg	sessions;
};

static int kp_status_sessions__reply(const struct nlmsghdr *nlh, void *arg,
				     struct kp_err *err)
{
	struct kp_status_sessions_arg *a = arg;
	int ret = 0;

	if (a->st)
		ret = kp_status__parse(nlh, a->st, err);
	return ret ? ret : kp_sessions__reply(nlh, &a->sessions, err);
}

int kp_nl__status_sessions(struct kp_nl *nl, struct kp_status_info *st,
			   struct kp_session_row *rows, unsigned int max, unsigned int *nr,
			   struct kp_err *err)
{
	struct kp_status_sessions_arg a = {
		.st = st, .sessions = { .rows = rows, .max = max },
	};
	struct nl_msg *msg;
	int ret;

	*nr = 0;
	if (st)
		memset(st, 0, sizeof(*st));
	msg = kp_request__new(nl, KPROF_CMD_STATUS, err);
	if (!msg)
		return -ENOMEM;
	ret = kp_nl__request(nl, msg, kp_status_sessions__reply, &a, err);
	if (!ret)
		*nr = a.sessions.nr;
	return ret;
}

int kp_nl__sessions(struct kp_nl *nl, struct kp_session_row *rows, unsigned int max,
		    unsigned int *nr, struct kp_err *err)
{
	return kp_nl__status_sessions(nl, NULL, rows, max, nr, err);
}

const char *kp_session_row__owner(const struct kp_session_row *r, char *buf, size_t len)
{
	if (r->owner_pid)
		snprintf(buf, len, "pid %u", r->owner_pid);
	else
		snprintf(buf, len, "detached");
	return buf;
}

unsigned int kp_session_rows__list(const struct kp_session_row *rows, unsigned int nr,
				   bool running_only, bool mode, char *buf, size_t len)
{
	unsigned int i, n = 0;
	size_t pos = 0;
	char owner[32];

	buf[0] = '\0';
	for (i = 0; i < nr && pos < len; i++) {
		if (running_only && rows[i].state != KPROF_STATE_RUNNING)
			continue;
		pos += snprintf(buf + pos, len - pos, "%s%" PRIu64 " (%s, %s, uid %u)",
				n++ ? ", " : "", rows[i].id,
				mode ? kp_session_mode__name(rows[i].flags) :
				       kp_state__name(rows[i].state),
				kp_session_row__owner(&rows[i], owner, sizeof(owner)), rows[i].uid);
	}
	return n;
}

/*
 * The start was refused at the module's limit (ENOSPC): its number of
 * sessions, or (the extack names it) the memory budget.  Say who holds
 * what, with the memory each takes against the budget in the latter case.
 */
static void kp_start__name_sessions(struct kp_nl *nl, struct kp_err *err)
{
	struct kp_session_row rows[16];
	char list[KP_ERR_MSG_MAX - 192];
	struct kp_status_info st;
	struct kp_err list_err;
	unsigned int nr, i;
	size_t pos = 0;

	if (!strstr(err->extack, "budget")) {
		if (kp_nl__sessions(nl, rows, KP_ARRAY_SIZE(rows), &nr, &list_err) || !nr)
			return;
		kp_session_rows__list(rows, nr < KP_ARRAY_SIZE(rows) ? nr : KP_ARRAY_SIZE(rows),
				      false, false, list, sizeof(list));
		kp_err__set(err, ENOSPC,
			    "kprof.ko holds as many sessions as its max_sessions parameter allows (%u): %s%s; stop one with 'kprofctl stop --id N'",
			    nr, list, nr > KP_ARRAY_SIZE(rows) ? ", ..." : "");
		return;
	}
	if (kp_nl__status_sessions(nl, &st, rows, KP_ARRAY_SIZE(rows), &nr, &list_err) ||
	    !st.has_budget)
		return;
	list[0] = '\0';
	for (i = 0; i < nr && i < KP_ARRAY_SIZE(rows) && pos < sizeof(list); i++)
		pos += snprintf(list + pos, sizeof(list) - pos, "%s%" PRIu64 " (%s, %.1f MiB)",
				i ? ", " : "", rows[i].id, kp_state__name(rows[i].state),
				rows[i].mem / 1048576.0);
	kp_err__set(err, ENOSPC,
		    "the session would take kprof.ko's sessions over their memory budget (%.1f of %.1f MiB in use, module parameter max_memory_mb): %s%s; stop one with 'kprofctl stop --id N', or ask for less (-m, --agg-entries, -C)",
		    st.mem / 1048576.0, st.budget / 1048576.0, nr ? list : "no session",
		    nr > KP_ARRAY_SIZE(rows) ? ", ..." : "");
}

/*
 * Whether 64-bit request attributes get a PAD attribute before them to be
 * 8-byte aligned, as the kernel's nla_put_u64_64bit() does in replies.
 * Off: kprof.ko parses requests strictly (resv_start_op 0) and its START
 * policies accept no PAD attribute (KPROF_A_PAD is NLA_UNSPEC, refused as
 * "Unsupported attribute"; KPROF_EV_A_PAD is above the event policy's
 * maxattr, refused as "Unknown attribute type"), while nla_get_u64() copies
 * the value, so its alignment does not matter.  Turn it on only together
 * with PAD entries in those policies.
 */
#define KP_REQUEST_PAD_U64	0

/* Like the kernel's nla_put_u64_64bit(), when KP_REQUEST_PAD_U64. */
static int kp_put_u64_64bit(struct nl_msg *msg, int type, uint64_t val, int padattr)
{
	if (KP_REQUEST_PAD_U64 && (nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
	    nla_put(msg, padattr, 0, NULL) < 0)
		return -EMSGSIZE;
	return nla_put_u64(msg, type, val) < 0 ? -EMSGSIZE : 0;
}

static int kp_start__put_event(struct nl_msg *msg, const struct kp_event *ev)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, KPROF_A_SESSION_EVENT | NLA_F_NESTED);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, KPROF_EV_A_TYPE, ev->type) < 0 ||
	    kp_put_u64_64bit(msg, KPROF_EV_A_CONFIG, ev->config, KPROF_EV_A_PAD) ||
	    nla_put_u32(msg, KPROF_EV_A_FLAGS, ev->flags) < 0 ||
	    nla_put_string(msg, KPROF_EV_A_NAME, ev->name) < 0)
		return -EMSGSIZE;
	/* Tracepoints and probes (events.h); absent for the others. */
	if ((ev->period &&
	     kp_put_u64_64bit(msg, KPROF_EV_A_PERIOD, ev->period, KPROF_EV_A_PAD)) ||
	    (ev->nr_filter &&
	     nla_put(msg, KPROF_EV_A_FILTER, ev->nr_filter * sizeof(ev->filter[0]),
		     ev->filter) < 0) ||
	    (ev->symbol[0] && nla_put_string(msg, KPROF_EV_A_SYMBOL, ev->symbol) < 0) ||
	    (ev->offset && nla_put_u32(msg, KPROF_EV_A_OFFSET, ev->offset) < 0))
		return -EMSGSIZE;
	if (ev->type == PERF_TYPE_BREAKPOINT &&
	    (nla_put_u32(msg, KPROF_EV_A_BP_TYPE, ev->bp_type) < 0 ||
	     nla_put_u32(msg, KPROF_EV_A_BP_LEN, ev->bp_len) < 0))
		return -EMSGSIZE;
	if ((ev->type == KPROF_TYPE_OFFCPU || ev->type == KPROF_TYPE_LOCK) &&
	    (kp_put_u64_64bit(msg, KPROF_EV_A_MIN_NS, ev->min_ns, KPROF_EV_A_PAD) ||
	     kp_put_u64_64bit(msg, KPROF_EV_A_MAX_NS, ev->max_ns, KPROF_EV_A_PAD)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

int kp_start__put(struct nl_msg *msg, const struct kp_session *s, uint32_t *ev_offs)
{
	uint32_t i;

	if (nla_put_u32(msg, KPROF_A_SESSION_FLAGS, s->flags) < 0)
		return -EMSGSIZE;
	if (s->freq) {
		if (nla_put_u32(msg, KPROF_A_SESSION_FREQ, s->freq) < 0)
			return -EMSGSIZE;
	} else if (kp_put_u64_64bit(msg, KPROF_A_SESSION_PERIOD, s->period, KPROF_A_PAD)) {
		return -EMSGSIZE;
	}
	if ((s->flags & KPROF_SESSION_F_SYSTEM_WIDE) && s->cpus_bytes &&
	    nla_put(msg, KPROF_A_SESSION_CPUS, s->cpus_bytes, s->cpus) < 0)
		return -EMSGSIZE;
	if (!(s->flags & KPROF_SESSION_F_SYSTEM_WIDE))
		for (i = 0; i < s->nr_pids; i++)
			if (nla_put_u32(msg, KPROF_A_SESSION_PID, s->pids[i]) < 0)
				return -EMSGSIZE;
	if (nla_put_u32(msg, KPROF_A_SESSION_BUFFER_SIZE, s->buffer_size) < 0 ||
	    nla_put_u32(msg, KPROF_A_SESSION_STACK_DEPTH, s->stack_depth) < 0)
		return -EMSGSIZE;
	if (s->watermark && nla_put_u32(msg, KPROF_A_SESSION_WATERMARK, s->watermark) < 0)
		return -EMSGSIZE;
	if ((s->flags & KPROF_SESSION_F_AGGREGATE) && s->agg_entries &&
	    nla_put_u32(msg, KPROF_A_SESSION_AGG_ENTRIES, s->agg_entries) < 0)
		return -EMSGSIZE;
	if (s->user_stack && (s->flags & KPROF_SESSION_F_USER_STACK) && kp_session__streams(s) &&
	    nla_put_u32(msg, KPROF_A_SESSION_USER_STACK, s->user_stack) < 0)
		return -EMSGSIZE;
	for (i = 0; i < s->nr_events; i++) {
		if (ev_offs)
			ev_offs[i] = (uint32_t)((char *)nlmsg_tail(nlmsg_hdr(msg)) -
						(char *)nlmsg_hdr(msg));
		if (kp_start__put_event(msg, &s->events[i]))
			return -EMSGSIZE;
	}
	return 0;
}

static int kp_start__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	return kp_start__parse(nlh, arg, err);
}

int kp_nl__start(struct kp_nl *nl, const struct kp_session *s,
		 struct kp_start_info *info, struct kp_err *err)
{
	uint32_t ev_offs[KPROF_MAX_EVENTS + 1], i;
	struct kp_status_info st;
	struct kp_err status_err;
	struct nl_msg *msg;
	char what[KPROF_EVENT_NAME_MAX + 16];
	int ret;

	memset(info, 0, sizeof(*info));
	msg = kp_request__new(nl, KPROF_CMD_START, err);
	if (!msg)
		return -ENOMEM;
	if (kp_start__put(msg, s, ev_offs)) {
		nlmsg_free(msg);
		kp_err__set(err, EMSGSIZE, "the session's request is too large");
		return -EMSGSIZE;
	}
	ev_offs[s->nr_events] = nlmsg_hdr(msg)->nlmsg_len;
	ret = kp_nl__request(nl, msg, kp_start__reply, info, err);
	/* The module points at (an attribute of) a refused event: name it. */
	for (i = 0; ret && err->has_offs && i < s->nr_events; i++)
		if (err->offs >= ev_offs[i] && err->offs < ev_offs[i + 1]) {
			snprintf(what, sizeof(what), "event '%s'", s->events[i].name);
			kp_err__name_attr(err, what);
		}
	if (!ret) {
		/* this socket's requests name the session it started */
		kp_nl__set_session(nl, info->session_id);
		return 0;
	}
	if (ret == -ENOSPC) {
		kp_start__name_sessions(nl, err);
		return ret;
	}
	if (ret != -EBUSY)
		return ret;
	/* A module before ABI 1.10, one session at a time: name the one in the way. */
	if (!kp_nl__status(nl, &st, &status_err) && st.has_session)
		kp_err__set(err, EBUSY,
			    "session %" PRIu64 " is %s; stop it first with 'kprofctl stop'",
			    st.session_id, st.state == KPROF_STATE_RUNNING ? "running" : "in use");
	return ret;
}

static int kp_stop__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	return kp_stop__parse(nlh, arg, err);
}

int kp_nl__stop(struct kp_nl *nl, struct kp_stop_info *info, struct kp_err *err)
{
	struct nl_msg *msg;

	memset(info, 0, sizeof(*info));
	int ret;

	msg = kp_request__new(nl, KPROF_CMD_STOP, err);
	if (!msg)
		return -ENOMEM;
	ret = kp_nl__request(nl, msg, kp_stop__reply, info, err);
	/* what this socket reads next is the session it stopped */
	if (!ret && info->session_id)
		kp_nl__set_session(nl, info->session_id);
	return ret;
}

int kp_nl__free(struct kp_nl *nl, struct kp_err *err)
{
	struct nl_msg *msg;

	if (!kp_nl__session(nl)) {
		kp_err__set(err, EINVAL, "freeing a session needs its id");
		return -EINVAL;
	}
	msg = kp_request__new(nl, KPROF_CMD_FREE, err);
	if (!msg)
		return -ENOMEM;
	return kp_nl__request(nl, msg, NULL, NULL, err);
}

struct kp_stats_dump {
	struct kp_stats	*stats;
	unsigned int	nr;
	unsigned int	cap;
};

static int kp_stats__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_stats_dump *d = arg;
	struct kp_stats *n;

	if (d->nr == d->cap) {
		if (d->cap >= KP_CPUMAP_MAX_CPUS) {
			kp_err__set(err, EBADMSG, MALFORMED "more than %d STATS messages",
				    KP_CPUMAP_MAX_CPUS);
			return -EBADMSG;
		}
		n = reallocarray(d->stats, d->cap ? d->cap * 2 : 16, sizeof(*n));
		if (!n) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		d->stats = n;
		d->cap = d->cap ? d->cap * 2 : 16;
	}
	return kp_stats__parse_msg(nlh, &d->stats[d->nr++], err);
}

int kp_nl__stats(struct kp_nl *nl, struct kp_stats **stats, unsigned int *nr,
		 struct kp_err *err)
{
	struct kp_stats_dump d = { 0 };
	struct nl_msg *msg;
	int ret;

	*stats = NULL;
	*nr = 0;
	msg = kp_request__new_flags(nl, KPROF_CMD_STATS, NLM_F_DUMP, err);
	if (!msg)
		return -ENOMEM;
	ret = kp_nl__request(nl, msg, kp_stats__reply, &d, err);
	if (ret) {
		free(d.stats);
		return ret;
	}
	*stats = d.stats;
	*nr = d.nr;
	return 0;
}

/* ---- KPROF_CMD_AGG_DUMP ---- */

static const char *kp_agg_attr__name(int type)
{
	static const char * const names[KPROF_AGG_A_MAX + 1] = {
		[KPROF_AGG_A_CPU]	= "KPROF_AGG_A_CPU",
		[KPROF_AGG_A_EVENT]	= "KPROF_AGG_A_EVENT",
		[KPROF_AGG_A_PID]	= "KPROF_AGG_A_PID",
		[KPROF_AGG_A_COMM]	= "KPROF_AGG_A_COMM",
		[KPROF_AGG_A_COUNT]	= "KPROF_AGG_A_COUNT",
		[KPROF_AGG_A_KERNEL]	= "KPROF_AGG_A_KERNEL",
		[KPROF_AGG_A_USER]	= "KPROF_AGG_A_USER",
		[KPROF_AGG_A_PAD]	= "KPROF_AGG_A_PAD",
		[KPROF_AGG_A_TIME_NS]	= "KPROF_AGG_A_TIME_NS",
		[KPROF_AGG_A_MAX_NS]	= "KPROF_AGG_A_MAX_NS",
		[KPROF_AGG_A_MIN_NS]	= "KPROF_AGG_A_MIN_NS",
		[KPROF_AGG_A_LOCK]	= "KPROF_AGG_A_LOCK",
		[KPROF_AGG_A_LOCK_FLAGS] = "KPROF_AGG_A_LOCK_FLAGS",
		[KPROF_AGG_A_WAKER_PID]	= "KPROF_AGG_A_WAKER_PID",
		[KPROF_AGG_A_WAKER_COMM] = "KPROF_AGG_A_WAKER_COMM",
		[KPROF_AGG_A_WAKER_KERNEL] = "KPROF_AGG_A_WAKER_KERNEL",
		[KPROF_AGG_A_WAKER_USER] = "KPROF_AGG_A_WAKER_USER",
	};

	if (type > 0 && type <= KPROF_AGG_A_MAX && names[type])
		return names[type];
	return "unknown attribute";
}

static const struct nla_policy kp_agg_policy[KPROF_AGG_A_MAX + 1] = {
	[KPROF_AGG_A_CPU]	= { .type = NLA_U32 },
	[KPROF_AGG_A_EVENT]	= { .type = NLA_U32 },
	[KPROF_AGG_A_PID]	= { .type = NLA_U32 },
	[KPROF_AGG_A_COMM]	= { .type = NLA_STRING },
	[KPROF_AGG_A_COUNT]	= { .type = NLA_U64 },
	[KPROF_AGG_A_KERNEL]	= { .type = NLA_UNSPEC },
	[KPROF_AGG_A_USER]	= { .type = NLA_UNSPEC },
	[KPROF_AGG_A_PAD]	= { .type = NLA_UNSPEC },
	[KPROF_AGG_A_TIME_NS]	= { .type = NLA_U64 },
	[KPROF_AGG_A_MAX_NS]	= { .type = NLA_U64 },
	[KPROF_AGG_A_MIN_NS]	= { .type = NLA_U64 },
	[KPROF_AGG_A_LOCK]	= { .type = NLA_U64 },
	[KPROF_AGG_A_LOCK_FLAGS] = { .type = NLA_U32 },
	[KPROF_AGG_A_WAKER_PID]	= { .type = NLA_U32 },
	[KPROF_AGG_A_WAKER_COMM] = { .type = NLA_STRING },
	[KPROF_AGG_A_WAKER_KERNEL] = { .type = NLA_UNSPEC },
	[KPROF_AGG_A_WAKER_USER] = { .type = NLA_UNSPEC },
};

/*
 * The frames of a KERNEL or USER attribute: whole __u64s, at most
 * KPROF_MAX_STACK_DEPTH; copied to @copy when not 8-byte aligned.
 */
static int kp_agg__frames(const struct nlattr *nla, int type, const uint64_t **frames,
			  uint32_t *nr, uint64_t *copy, struct kp_err *err)
{
	int len = nla_len(nla);

	if (len % 8 || len / 8 > KPROF_MAX_STACK_DEPTH) {
		kp_err__set(err, EBADMSG, MALFORMED "%s has %d bytes", kp_agg_attr__name(type), len);
		return -EBADMSG;
	}
	*nr = len / 8;
	*frames = nla_data(nla);
	if ((uintptr_t)*frames % 8) {
		memcpy(copy, *frames, len);
		*frames = copy;
	}
	return 0;
}

int kp_agg__parse_msg(const struct nlmsghdr *nlh, struct kp_agg_entry *e, uint64_t *frames,
		      struct kp_err *err)
{
	static const int required[] = { KPROF_A_AGG_ENTRY, 0 };
	static const int agg_required[] = {
		KPROF_AGG_A_CPU, KPROF_AGG_A_EVENT, KPROF_AGG_A_PID, KPROF_AGG_A_COMM,
		KPROF_AGG_A_COUNT, KPROF_AGG_A_KERNEL, KPROF_AGG_A_USER, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1], *atb[KPROF_AGG_A_MAX + 1];
	int ret;

	memset(e, 0, sizeof(*e));
	ret = kp_reply__parse(nlh, KPROF_CMD_AGG_DUMP, tb, required, err);
	if (ret)
		return ret;
	if (tb[KPROF_A_SESSION_ID])
		e->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	ret = nla_parse_nested(atb, KPROF_AGG_A_MAX, tb[KPROF_A_AGG_ENTRY], NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_AGG_ENTRY: %s", nl_geterror(ret));
		return -EBADMSG;
	}
	ret = kp_attrs__check(atb, KPROF_AGG_A_MAX, kp_agg_policy, kp_agg_attr__name,
			      agg_required, err);
	if (ret)
		return ret;
	e->cpu = nla_get_u32(atb[KPROF_AGG_A_CPU]);
	e->event = nla_get_u32(atb[KPROF_AGG_A_EVENT]);
	e->pid = nla_get_u32(atb[KPROF_AGG_A_PID]);
	kp_copy_string(e->comm, sizeof(e->comm), atb[KPROF_AGG_A_COMM]);
	e->count = nla_get_u64(atb[KPROF_AGG_A_COUNT]);
	if (atb[KPROF_AGG_A_TIME_NS])
		e->time_ns = nla_get_u64(atb[KPROF_AGG_A_TIME_NS]);
	/* ABI 1.6, lock events: both or neither */
	e->has_minmax = atb[KPROF_AGG_A_MAX_NS] && atb[KPROF_AGG_A_MIN_NS];
	if (e->has_minmax) {
		e->max_ns = nla_get_u64(atb[KPROF_AGG_A_MAX_NS]);
		e->min_ns = nla_get_u64(atb[KPROF_AGG_A_MIN_NS]);
	}
	e->has_lock = atb[KPROF_AGG_A_LOCK] && atb[KPROF_AGG_A_LOCK_FLAGS];
	if (e->has_lock) {
		e->lock = nla_get_u64(atb[KPROF_AGG_A_LOCK]);
		e->lock_flags = nla_get_u32(atb[KPROF_AGG_A_LOCK_FLAGS]);
	}
	ret = kp_agg__frames(atb[KPROF_AGG_A_KERNEL], KPROF_AGG_A_KERNEL, &e->kernel,
			     &e->nr_kernel, frames, err);
	if (!ret)
		ret = kp_agg__frames(atb[KPROF_AGG_A_USER], KPROF_AGG_A_USER, &e->user,
				     &e->nr_user, frames + KPROF_MAX_STACK_DEPTH, err);
	/* ABI 1.7, off-CPU events with wakers: all four or none */
	e->has_waker = atb[KPROF_AGG_A_WAKER_PID] && atb[KPROF_AGG_A_WAKER_COMM] &&
		       atb[KPROF_AGG_A_WAKER_KERNEL] && atb[KPROF_AGG_A_WAKER_USER];
	if (!ret && e->has_waker) {
		e->waker_pid = nla_get_u32(atb[KPROF_AGG_A_WAKER_PID]);
		kp_copy_string(e->waker_comm, sizeof(e->waker_comm), atb[KPROF_AGG_A_WAKER_COMM]);
		ret = kp_agg__frames(atb[KPROF_AGG_A_WAKER_KERNEL], KPROF_AGG_A_WAKER_KERNEL,
				     &e->waker_kernel, &e->waker_nr_kernel,
				     frames + 2 * KPROF_MAX_STACK_DEPTH, err);
		if (!ret)
			ret = kp_agg__frames(atb[KPROF_AGG_A_WAKER_USER], KPROF_AGG_A_WAKER_USER,
					     &e->waker_user, &e->waker_nr_user,
					     frames + 3 * KPROF_MAX_STACK_DEPTH, err);
	}
	if (ret)
		return ret;
	if (e->event >= KPROF_MAX_EVENTS) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_AGG_A_EVENT %u", e->event);
		return -EBADMSG;
	}
	return 0;
}

struct kp_agg_dump {
	kp_agg_entry_fn	fn;
	void		*arg;
	bool		failed;		/* a reply, not the module, failed */
	uint64_t	frames[KP_AGG_FRAMES_WORDS];
};

static int kp_agg__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_agg_dump *d = arg;
	struct kp_agg_entry e;
	int ret;

	ret = kp_agg__parse_msg(nlh, &e, d->frames, err);
	if (!ret)
		ret = d->fn(&e, d->arg, err);
	d->failed = ret;
	return ret;
}

/* AGG_DUMP of the tables being written, or of the closed interval *@epoch. */
static int kp_agg__dump(struct kp_nl *nl, const uint64_t *epoch, kp_agg_entry_fn fn, void *arg,
			struct kp_err *err)
{
	struct kp_agg_dump *d;
	struct nl_msg *msg;
	int ret;

	d = malloc(sizeof(*d));
	if (!d) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	d->fn = fn;
	d->arg = arg;
	d->failed = false;
	msg = kp_request__new_flags(nl, KPROF_CMD_AGG_DUMP, NLM_F_DUMP, err);
	if (!msg) {
		free(d);
		return -ENOMEM;
	}
	if (epoch && kp_put_u64_64bit(msg, KPROF_A_AGG_EPOCH, *epoch, KPROF_A_PAD)) {
		nlmsg_free(msg);
		free(d);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = kp_nl__request(nl, msg, kp_agg__reply, d, err);
	if (ret == -ENOENT && !d->failed)
		kp_err__set(err, ENOENT, "no session: start one with 'kprofctl start'");
	else if (ret == -EOPNOTSUPP && !d->failed && !epoch)
		kp_err__set(err, EOPNOTSUPP,
			    "the session does not aggregate: start it with --mode aggregate or both");
	free(d);
	return ret;
}

int kp_nl__agg_dump(struct kp_nl *nl, kp_agg_entry_fn fn, void *arg, struct kp_err *err)
{
	return kp_agg__dump(nl, NULL, fn, arg, err);
}

int kp_nl__agg_dump_interval(struct kp_nl *nl, uint64_t epoch, kp_agg_entry_fn fn, void *arg,
			     struct kp_err *err)
{
	return kp_agg__dump(nl, &epoch, fn, arg, err);
}

/* ---- KPROF_CMD_AGG_SWAP ---- */

int kp_swap__parse(const struct nlmsghdr *nlh, struct kp_agg_interval *iv, struct kp_err *err)
{
	static const int required[] = {
		KPROF_A_AGG_EPOCH, KPROF_A_AGG_START_NS, KPROF_A_AGG_END_NS, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1];
	int ret;

	ret = kp_reply__parse(nlh, KPROF_CMD_AGG_SWAP, tb, required, err);
	if (ret)
		return ret;
	iv->epoch = nla_get_u64(tb[KPROF_A_AGG_EPOCH]);
	iv->start_ns = nla_get_u64(tb[KPROF_A_AGG_START_NS]);
	iv->end_ns = nla_get_u64(tb[KPROF_A_AGG_END_NS]);
	if (iv->end_ns < iv->start_ns) {
		kp_err__set(err, EBADMSG, MALFORMED "an interval that ends (%" PRIu64
			    ") before it starts (%" PRIu64 ")", iv->end_ns, iv->start_ns);
		return -EBADMSG;
	}
	return 0;
}

static int kp_swap__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	return kp_swap__parse(nlh, arg, err);
}

int kp_nl__agg_swap(struct kp_nl *nl, struct kp_agg_interval *iv, struct kp_err *err)
{
	struct timespec rt, mono;
	struct nl_msg *msg;
	int ret;

	memset(iv, 0, sizeof(*iv));
	msg = kp_request__new(nl, KPROF_CMD_AGG_SWAP, err);
	if (!msg)
		return -ENOMEM;
	ret = kp_nl__request(nl, msg, kp_swap__reply, iv, err);
	if (ret)
		return ret;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &rt);
	iv->mono_ns = (uint64_t)mono.tv_sec * 1000000000ULL + mono.tv_nsec;
	iv->realtime_ns = (uint64_t)rt.tv_sec * 1000000000ULL + rt.tv_nsec;
	return 0;
}

/* ---- KPROF_CMD_AGG_MAPS ---- */

static const char *kp_map_attr__name(int type)
{
	static const char * const names[KPROF_MAP_A_MAX + 1] = {
		[KPROF_MAP_A_PID]	= "KPROF_MAP_A_PID",
		[KPROF_MAP_A_COMM]	= "KPROF_MAP_A_COMM",
		[KPROF_MAP_A_START]	= "KPROF_MAP_A_START",
		[KPROF_MAP_A_LEN]	= "KPROF_MAP_A_LEN",
		[KPROF_MAP_A_PGOFF]	= "KPROF_MAP_A_PGOFF",
		[KPROF_MAP_A_DEV]	= "KPROF_MAP_A_DEV",
		[KPROF_MAP_A_INO]	= "KPROF_MAP_A_INO",
		[KPROF_MAP_A_PATH]	= "KPROF_MAP_A_PATH",
		[KPROF_MAP_A_PAD]	= "KPROF_MAP_A_PAD",
	};

	if (type > 0 && type <= KPROF_MAP_A_MAX && names[type])
		return names[type];
	return "unknown attribute";
}

static const struct nla_policy kp_map_policy[KPROF_MAP_A_MAX + 1] = {
	[KPROF_MAP_A_PID]	= { .type = NLA_U32 },
	[KPROF_MAP_A_COMM]	= { .type = NLA_STRING },
	[KPROF_MAP_A_START]	= { .type = NLA_U64 },
	[KPROF_MAP_A_LEN]	= { .type = NLA_U64 },
	[KPROF_MAP_A_PGOFF]	= { .type = NLA_U64 },
	[KPROF_MAP_A_DEV]	= { .type = NLA_U64 },
	[KPROF_MAP_A_INO]	= { .type = NLA_U64 },
	[KPROF_MAP_A_PATH]	= { .type = NLA_STRING },
	[KPROF_MAP_A_PAD]	= { .type = NLA_UNSPEC },
};

int kp_agg_map__parse_msg(const struct nlmsghdr *nlh, struct kp_agg_map *m, struct kp_err *err)
{
	static const int required[] = { KPROF_A_AGG_MAP, 0 };
	static const int map_required[] = {
		KPROF_MAP_A_PID, KPROF_MAP_A_COMM, KPROF_MAP_A_START, KPROF_MAP_A_LEN,
		KPROF_MAP_A_PGOFF, KPROF_MAP_A_DEV, KPROF_MAP_A_INO, KPROF_MAP_A_PATH, 0
	};
	struct nlattr *tb[KPROF_A_MAX + 1], *mtb[KPROF_MAP_A_MAX + 1];
	int ret;

	memset(m, 0, sizeof(*m));
	ret = kp_reply__parse(nlh, KPROF_CMD_AGG_MAPS, tb, required, err);
	if (ret)
		return ret;
	if (tb[KPROF_A_SESSION_ID])
		m->session_id = nla_get_u64(tb[KPROF_A_SESSION_ID]);
	ret = nla_parse_nested(mtb, KPROF_MAP_A_MAX, tb[KPROF_A_AGG_MAP], NULL);
	if (ret < 0) {
		kp_err__set(err, EBADMSG, MALFORMED "KPROF_A_AGG_MAP: %s", nl_geterror(ret));
		return -EBADMSG;
	}
	ret = kp_attrs__check(mtb, KPROF_MAP_A_MAX, kp_map_policy, kp_map_attr__name,
			      map_required, err);
	if (ret)
		return ret;
	m->pid = nla_get_u32(mtb[KPROF_MAP_A_PID]);
	kp_copy_string(m->comm, sizeof(m->comm), mtb[KPROF_MAP_A_COMM]);
	m->start = nla_get_u64(mtb[KPROF_MAP_A_START]);
	m->len = nla_get_u64(mtb[KPROF_MAP_A_LEN]);
	m->pgoff = nla_get_u64(mtb[KPROF_MAP_A_PGOFF]);
	m->dev = nla_get_u64(mtb[KPROF_MAP_A_DEV]);
	m->ino = nla_get_u64(mtb[KPROF_MAP_A_INO]);
	kp_copy_string(m->path, sizeof(m->path), mtb[KPROF_MAP_A_PATH]);
	if (!m->len || m->start + m->len < m->start || !m->path[0]) {
		kp_err__set(err, EBADMSG, MALFORMED "kept mapping %#" PRIx64 "+%#" PRIx64 " of pid %u",
			    m->start, m->len, m->pid);
		return -EBADMSG;
	}
	return 0;
}

struct kp_agg_maps_dump {
	kp_agg_map_fn	fn;
	void		*arg;
	bool		failed;		/* a reply, not the module, failed */
	struct kp_agg_map map;
};

static int kp_agg_maps__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_agg_maps_dump *d = arg;
	int ret;

	ret = kp_agg_map__parse_msg(nlh, &d->map, err);
	if (!ret)
		ret = d->fn(&d->map, d->arg, err);
	d->failed = ret;
	return ret;
}

int kp_nl__agg_maps(struct kp_nl *nl, kp_agg_map_fn fn, void *arg, struct kp_err *err)
{
	struct kp_agg_maps_dump *d;
	struct nl_msg *msg;
	int ret;

	d = malloc(sizeof(*d));
	if (!d) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	d->fn = fn;
	d->arg = arg;
	d->failed = false;
	msg = kp_request__new_flags(nl, KPROF_CMD_AGG_MAPS, NLM_F_DUMP, err);
	if (!msg) {
		free(d);
		return -ENOMEM;
	}
	ret = kp_nl__request(nl, msg, kp_agg_maps__reply, d, err);
	/* unknown to a module before ABI 1.2 (EOPNOTSUPP), or not aggregating */
	if (ret == -EOPNOTSUPP && !d->failed)
		ret = 0;
	free(d);
	return ret;
}
