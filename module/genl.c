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
#include <linux/netlink.h>
#include <linux/utsname.h>
#include <net/genetlink.h>

#include "kprof.h"

/* genl_ops.internal_flags: the operation configures kprof or reads data. */
#define KPROF_NL_PERFMON	BIT(0)

static const struct nla_policy kprof_version_nl_policy[KPROF_A_VERSION_CLIENT + 1] = {
	[KPROF_A_VERSION_ABI]		= { .type = NLA_U32 },
	[KPROF_A_VERSION_CLIENT]	= { .type = NLA_NUL_STRING,
					    .len = KPROF_CLIENT_NAME_MAX - 1 },
};

static struct genl_family kprof_nl_family;

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

static int kprof_nl_pre_doit(const struct genl_ops *ops, struct sk_buff *skb,
			     struct genl_info *info)
{
	if ((ops->internal_flags & KPROF_NL_PERFMON) && !kprof_nl_capable(skb)) {
		GENL_SET_ERR_MSG(info, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required");
		return -EPERM;
	}
	return 0;
}

/**
 * kprof_nl_reply_new() - allocate a reply to @info, reusing its command id
 * @info: the request
 * @hdr: where to store the genetlink header of the reply
 *
 * Return: the message, or NULL when out of memory.
 */
static struct sk_buff *kprof_nl_reply_new(struct genl_info *info, void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;

	*hdr = genlmsg_put_reply(msg, info, &kprof_nl_family, 0, info->genlhdr->cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
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

static int kprof_nl_status_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct kprof_status st;
	struct sk_buff *msg;
	void *hdr;

	kprof_status_read(&st);

	msg = kprof_nl_reply_new(info, &hdr);
	if (!msg)
		return -ENOMEM;

	if (nla_put_u32(msg, KPROF_A_STATUS_STATE, st.state) ||
	    nla_put_u32(msg, KPROF_A_STATUS_NR_CPUS, st.nr_cpus) ||
	    nla_put_u32(msg, KPROF_A_STATUS_ONLINE_CPUS, st.online_cpus) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_SESSIONS, st.sessions, KPROF_A_PAD) ||
	    nla_put_u32(msg, KPROF_A_STATUS_READERS, st.readers) ||
	    nla_put_u64_64bit(msg, KPROF_A_STATUS_LOADED_NS, st.loaded_ns, KPROF_A_PAD))
		goto out_cancel;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_cancel:
	genlmsg_cancel(msg, hdr);
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/*
 * STATUS takes no attributes: with no .policy the genetlink core installs a
 * reject-all policy for it (resv_start_op is 0).
 */
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
};

int __init kprof_nl_init(void)
{
	return genl_register_family(&kprof_nl_family);
}

void kprof_nl_exit(void)
{
	genl_unregister_family(&kprof_nl_family);
}
