/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser of netlink error messages (NLMSG_ERROR, and NLMSG_DONE ending a
 * dump) and their extended ACK TLVs.  Pure and bounds-checked: it reads nothing beyond the given length,
 * whatever nlmsg_len and the TLV lengths claim.  Unit-tested by
 * tests/test-extack.c with hand-built buffers.
 */
#ifndef KPROFCTL_EXTACK_H
#define KPROFCTL_EXTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_EXTACK_MSG_MAX	256

struct kp_extack {
	int		error;			/* 0 or -errno */
	bool		has_msg;
	char		msg[KP_EXTACK_MSG_MAX];	/* NLMSGERR_ATTR_MSG, printable */
	bool		has_offs;
	uint32_t	offs;			/* NLMSGERR_ATTR_OFFS */
	bool		has_miss_type;
	uint32_t	miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
};

/*
 * Parse the NLMSG_ERROR or NLMSG_DONE message at @buf, of at most @len
 * bytes (the message's own nlmsg_len is honoured when smaller).
 *
 * In an NLMSG_ERROR, the TLVs follow the struct nlmsgerr directly when
 * NLM_F_CAPPED is set, else after the echoed request; in an NLMSG_DONE (end
 * of a dump) they follow its int error.  They are only looked for when
 * NLM_F_ACK_TLVS is set.  A malformed TLV ends the walk, keeping what was
 * parsed before it.  Control characters of the message are replaced with
 * '?' and a long message is truncated.
 *
 * Returns 0, or -EBADMSG when @buf is neither message type or is too short
 * for its header (an NLMSG_DONE without payload means success).
 */
int kp_extack__parse(const void *buf, size_t len, struct kp_extack *ext);

#endif /* KPROFCTL_EXTACK_H */
