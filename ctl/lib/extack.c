// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink extended ACK parser; see extack.h.
 */
#include <errno.h>
#include <string.h>

#include <linux/netlink.h>

#include "extack.h"

/* Copy a string attribute payload up to its NUL, sanitised for a terminal. */
static void copy_msg(struct kp_extack *ext, const unsigned char *p, size_t len)
{
	size_t i, n = strnlen((const char *)p, len);

	/* Kernel messages rarely end with a newline; never print it. */
	while (n && p[n - 1] == '\n')
		n--;
	if (n > sizeof(ext->msg) - 1)
		n = sizeof(ext->msg) - 1;
	for (i = 0; i < n; i++)
		ext->msg[i] = p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
	ext->msg[n] = '\0';
	ext->has_msg = true;
}

static bool get_u32(const unsigned char *p, size_t len, uint32_t *val)
{
	if (len < sizeof(*val))
		return false;
	memcpy(val, p, sizeof(*val));
	return true;
}

int kp_extack__parse(const void *buf, size_t len, struct kp_extack *ext)
{
	const unsigned char *b = buf;
	struct nlmsghdr nlh;
	struct nlmsgerr e;
	size_t off;
	int error;

	memset(ext, 0, sizeof(*ext));
	if (len < NLMSG_HDRLEN)
		return -EBADMSG;
	memcpy(&nlh, b, sizeof(nlh));
	if (nlh.nlmsg_len < NLMSG_HDRLEN)
		return -EBADMSG;
	if (nlh.nlmsg_len < len)
		len = nlh.nlmsg_len;

	if (nlh.nlmsg_type == NLMSG_DONE) {
		/* The end of a dump: an int error, then the TLVs. */
		if (len < NLMSG_HDRLEN + sizeof(error))
			return 0;
		memcpy(&error, b + NLMSG_HDRLEN, sizeof(error));
		ext->error = error;
		off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(error));
	} else if (nlh.nlmsg_type == NLMSG_ERROR) {
		if (len < NLMSG_HDRLEN + sizeof(e))
			return -EBADMSG;
		memcpy(&e, b + NLMSG_HDRLEN, sizeof(e));
		ext->error = e.error;
		/* The TLVs follow the struct nlmsgerr and, uncapped, the request. */
		off = sizeof(e);
		if (!(nlh.nlmsg_flags & NLM_F_CAPPED)) {
			if (e.msg.nlmsg_len < NLMSG_HDRLEN || e.msg.nlmsg_len > len)
				return 0;
			off += e.msg.nlmsg_len - NLMSG_HDRLEN;
		}
		off = NLMSG_HDRLEN + NLMSG_ALIGN(off);
	} else {
		return -EBADMSG;
	}

	if (!(nlh.nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;

	while (off <= len && len - off >= NLA_HDRLEN) {
		const unsigned char *payload = b + off + NLA_HDRLEN;
		struct nlattr nla;
		size_t plen;

		memcpy(&nla, b + off, sizeof(nla));
		if (nla.nla_len < NLA_HDRLEN || nla.nla_len > len - off)
			break;
		plen = nla.nla_len - NLA_HDRLEN;

		switch (nla.nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			copy_msg(ext, payload, plen);
			break;
		case NLMSGERR_ATTR_OFFS:
			ext->has_offs = get_u32(payload, plen, &ext->offs);
			break;
		case NLMSGERR_ATTR_MISS_TYPE:
			ext->has_miss_type = get_u32(payload, plen, &ext->miss_type);
			break;
		}
		off += NLA_ALIGN(nla.nla_len);
	}
	return 0;
}
