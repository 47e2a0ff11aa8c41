/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build NLMSG_ERROR messages by hand, as the kernel's netlink_ack() does,
 * for the extack parser tests and the fake kprof module.
 */
#ifndef KPROFCTL_NLBUILD_H
#define KPROFCTL_NLBUILD_H

#include <stdint.h>
#include <string.h>

#include <linux/netlink.h>

struct nlbuf {
	unsigned char	data[2048] __attribute__((aligned(8)));
	size_t		len;
};

static inline unsigned char *nlbuf__data(struct nlbuf *b)
{
	return b->data;
}

static inline struct nlmsghdr *nlbuf__hdr(struct nlbuf *b)
{
	return (struct nlmsghdr *)b->data;
}

static inline void nlbuf__set_len(struct nlbuf *b)
{
	struct nlmsghdr *nlh = nlbuf__hdr(b);

	nlh->nlmsg_len = b->len;
}

/*
 * Start an NLMSG_ERROR for a request of @req_payload bytes after its
 * nlmsghdr, echoed unless @flags has NLM_F_CAPPED.
 */
static inline void nlbuf__error(struct nlbuf *b, int error, uint16_t flags,
				size_t req_payload)
{
	struct nlmsghdr *nlh = nlbuf__hdr(b);
	struct nlmsgerr *e;
	size_t payload = sizeof(*e);

	memset(b, 0, sizeof(*b));
	if (!(flags & NLM_F_CAPPED))
		payload += req_payload;
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = 42;
	e = (struct nlmsgerr *)(nlbuf__data(b) + NLMSG_HDRLEN);
	e->error = error;
	e->msg.nlmsg_len = NLMSG_HDRLEN + req_payload;
	e->msg.nlmsg_type = 0x20;
	e->msg.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	e->msg.nlmsg_seq = 42;
	/* The echoed request payload: recognisable garbage. */
	if (!(flags & NLM_F_CAPPED))
		memset(nlbuf__data(b) + NLMSG_HDRLEN + sizeof(*e), 0xa5, req_payload);
	b->len = NLMSG_HDRLEN + NLMSG_ALIGN(payload);
	nlbuf__set_len(b);
}

/* Append a TLV, padded to 4 bytes; @nla_len overrides the length if set. */
static inline void nlbuf__attr_len(struct nlbuf *b, uint16_t type, const void *data,
				   size_t len, uint16_t nla_len)
{
	struct nlattr nla = {
		.nla_len = nla_len ? nla_len : NLA_HDRLEN + len,
		.nla_type = type,
	};

	memcpy(nlbuf__data(b) + b->len, &nla, sizeof(nla));
	memcpy(nlbuf__data(b) + b->len + NLA_HDRLEN, data, len);
	b->len += NLA_ALIGN(NLA_HDRLEN + len);
	nlbuf__set_len(b);
}

static inline void nlbuf__attr(struct nlbuf *b, uint16_t type, const void *data,
			       size_t len)
{
	nlbuf__attr_len(b, type, data, len, 0);
}

static inline void nlbuf__attr_str(struct nlbuf *b, uint16_t type, const char *s)
{
	nlbuf__attr(b, type, s, strlen(s) + 1);
}

static inline void nlbuf__attr_u32(struct nlbuf *b, uint16_t type, uint32_t v)
{
	nlbuf__attr(b, type, &v, sizeof(v));
}

#endif /* KPROFCTL_NLBUILD_H */
