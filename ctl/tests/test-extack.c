// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/extack.c and lib/error.c with hand-built NLMSG_ERROR
 * messages.  Every buffer handed to the parser is copied to a heap block
 * of exactly its length, so AddressSanitizer catches any read beyond it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/error.h"
#include "lib/extack.h"
#include "nlbuild.h"
#include "tap.h"

/* Parse the first @len bytes of @b from an exact-size heap copy. */
static int parse(struct nlbuf *b, size_t len, struct kp_extack *ext)
{
	void *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, nlbuf__data(b), len);
	ret = kp_extack__parse(copy, len, ext);
	free(copy);
	return ret;
}

static void test_basic(void)
{
	struct kp_extack ext;
	struct nlbuf b;
	uint32_t offs = 20;

	/* Capped, with a message: what kprof.ko sends with CAP_ACK set. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 8);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "needs CAP_PERFMON");
	is_int(parse(&b, b.len, &ext), 0, "capped: parsed");
	is_int(ext.error, -EPERM, "capped: error");
	ok(ext.has_msg, "capped: has a message");
	is_str(ext.msg, "needs CAP_PERFMON", "capped: message");
	ok(!ext.has_offs && !ext.has_miss_type, "capped: nothing else");

	/* Not capped: the request is echoed before the TLVs. */
	nlbuf__error(&b, -EINVAL, NLM_F_ACK_TLVS, 13);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "bad attribute");
	nlbuf__attr(&b, NLMSGERR_ATTR_OFFS, &offs, sizeof(offs));
	is_int(parse(&b, b.len, &ext), 0, "uncapped: parsed");
	is_int(ext.error, -EINVAL, "uncapped: error");
	is_str(ext.msg, "bad attribute", "uncapped: message after the 13-byte echo");
	ok(ext.has_offs && ext.offs == 20, "uncapped: offset");

	/* No TLVs at all. */
	nlbuf__error(&b, -ENOENT, NLM_F_CAPPED, 0);
	is_int(parse(&b, b.len, &ext), 0, "no TLVs: parsed");
	ok(ext.error == -ENOENT && !ext.has_msg, "no TLVs: error, no message");

	/* TLVs present but NLM_F_ACK_TLVS not set: ignored. */
	nlbuf__error(&b, -EIO, NLM_F_CAPPED, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "ignored");
	is_int(parse(&b, b.len, &ext), 0, "no ACK_TLVS flag: parsed");
	ok(!ext.has_msg, "no ACK_TLVS flag: TLVs ignored");

	/* A plain ACK. */
	nlbuf__error(&b, 0, NLM_F_CAPPED, 0);
	is_int(parse(&b, b.len, &ext), 0, "ACK: parsed");
	is_int(ext.error, 0, "ACK: error 0");

	/* Missing attribute only, and an unknown TLV type before it. */
	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_u32(&b, 99, 1);
	nlbuf__attr_u32(&b, NLMSGERR_ATTR_MISS_TYPE, 5);
	is_int(parse(&b, b.len, &ext), 0, "missing type: parsed");
	ok(ext.has_miss_type && ext.miss_type == 5 && !ext.has_msg,
	   "missing type: unknown TLV skipped, type 5");
}

static void test_msg_contents(void)
{
	char longmsg[600];
	struct kp_extack ext;
	struct nlbuf b;

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "line\x1b[31mred\ttab\n");
	parse(&b, b.len, &ext);
	is_str(ext.msg, "line?[31mred?tab", "control characters replaced, newline dropped");

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr(&b, NLMSGERR_ATTR_MSG, "no-nul", 6);
	parse(&b, b.len, &ext);
	is_str(ext.msg, "no-nul", "message without NUL: bounded by the TLV");

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr(&b, NLMSGERR_ATTR_MSG, "ab\0cd", 6);
	parse(&b, b.len, &ext);
	is_str(ext.msg, "ab", "message stops at its NUL");

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr(&b, NLMSGERR_ATTR_MSG, "", 0);
	parse(&b, b.len, &ext);
	ok(ext.has_msg && !ext.msg[0], "empty message TLV");

	memset(longmsg, 'x', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, longmsg);
	parse(&b, b.len, &ext);
	is_int(strlen(ext.msg), KP_EXTACK_MSG_MAX - 1, "long message truncated");

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr(&b, NLMSGERR_ATTR_OFFS, "\1\2", 2);
	parse(&b, b.len, &ext);
	ok(!ext.has_offs, "short OFFS TLV ignored");
}

static void test_malformed(void)
{
	struct kp_extack ext;
	struct nlbuf b;
	size_t len, full;
	bool all_ok = true;

	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "needs CAP_PERFMON");
	full = b.len;

	/* Every truncation of a valid message: no overread (ASan), sane result. */
	for (len = 0; len < full; len++) {
		int ret = parse(&b, len, &ext);

		if (len < NLMSG_HDRLEN + sizeof(struct nlmsgerr)) {
			all_ok &= ret == -EBADMSG;
		} else {
			all_ok &= ret == 0 && ext.error == -EPERM;
			/* The TLV is dropped unless it fits entirely. */
			all_ok &= !ext.has_msg || len >= full - 2;
		}
	}
	ok(all_ok, "every truncation of the buffer is handled");

	/* nlmsg_len claims more than the buffer holds. */
	nlbuf__hdr(&b)->nlmsg_len = 4096;
	is_int(parse(&b, full, &ext), 0, "nlmsg_len beyond the buffer: parsed");
	is_str(ext.msg, "needs CAP_PERFMON", "nlmsg_len beyond the buffer: buffer length wins");

	/* nlmsg_len shorter than the buffer: it wins, the TLV is cut off. */
	nlbuf__hdr(&b)->nlmsg_len = NLMSG_HDRLEN + sizeof(struct nlmsgerr) + 8;
	is_int(parse(&b, full, &ext), 0, "short nlmsg_len: parsed");
	ok(!ext.has_msg, "short nlmsg_len: TLV beyond it ignored");

	/* nlmsg_len too short for struct nlmsgerr. */
	nlbuf__hdr(&b)->nlmsg_len = NLMSG_HDRLEN + 4;
	is_int(parse(&b, full, &ext), -EBADMSG, "nlmsg_len < nlmsgerr: EBADMSG");

	/* Neither NLMSG_ERROR nor NLMSG_DONE. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED, 0);
	nlbuf__hdr(&b)->nlmsg_type = 0x20;
	is_int(parse(&b, b.len, &ext), -EBADMSG, "a reply message: EBADMSG");

	/* nlmsg_len below a header. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED, 0);
	nlbuf__hdr(&b)->nlmsg_len = 8;
	is_int(parse(&b, b.len, &ext), -EBADMSG, "nlmsg_len < header: EBADMSG");

	/* A TLV claiming more than is left. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_len(&b, NLMSGERR_ATTR_MSG, "abcd", 4, 200);
	is_int(parse(&b, b.len, &ext), 0, "oversized TLV: parsed");
	ok(!ext.has_msg, "oversized TLV: ignored");

	/* A TLV shorter than its header would loop forever if not caught. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_len(&b, NLMSGERR_ATTR_MSG, "abcd", 4, 2);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "after");
	is_int(parse(&b, b.len, &ext), 0, "undersized TLV: parsed");
	ok(!ext.has_msg, "undersized TLV: walk stops");

	/* A zero-length TLV header (nla_len 0). */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_len(&b, NLMSGERR_ATTR_MSG, "", 0, 0xffff);
	((struct nlattr *)(nlbuf__data(&b) + b.len - NLA_HDRLEN))->nla_len = 0;
	is_int(parse(&b, b.len, &ext), 0, "zero nla_len: parsed");
	ok(!ext.has_msg, "zero nla_len: walk stops");

	/* Good TLV, then garbage: the good one is kept. */
	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "kept");
	nlbuf__attr_len(&b, NLMSGERR_ATTR_OFFS, "\0\0\0\0", 4, 999);
	is_int(parse(&b, b.len, &ext), 0, "good TLV then garbage: parsed");
	ok(ext.has_msg && !strcmp(ext.msg, "kept") && !ext.has_offs,
	   "good TLV then garbage: message kept");

	/* Uncapped, but the echoed request claims to be larger than the message. */
	nlbuf__error(&b, -EPERM, NLM_F_ACK_TLVS, 4);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "lost");
	((struct nlmsgerr *)(nlbuf__data(&b) + NLMSG_HDRLEN))->msg.nlmsg_len = 0xfffffff0;
	is_int(parse(&b, b.len, &ext), 0, "huge echoed length: parsed");
	ok(ext.error == -EPERM && !ext.has_msg, "huge echoed length: no TLVs read");

	/* Uncapped, echoed length below a header. */
	((struct nlmsgerr *)(nlbuf__data(&b) + NLMSG_HDRLEN))->msg.nlmsg_len = 3;
	is_int(parse(&b, b.len, &ext), 0, "tiny echoed length: parsed");
	ok(!ext.has_msg, "tiny echoed length: no TLVs read");

	/* Unaligned buffer. */
	{
		unsigned char *raw = malloc(b.len + 1);

		nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
		nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "odd");
		memcpy(raw + 1, nlbuf__data(&b), b.len);
		is_int(kp_extack__parse(raw + 1, b.len, &ext), 0, "unaligned buffer: parsed");
		is_str(ext.msg, "odd", "unaligned buffer: message");
		free(raw);
	}
}

/* An NLMSG_DONE ending a dump: int error, then TLVs. */
static void nlbuf__done(struct nlbuf *b, int error, uint16_t flags)
{
	memset(b, 0, sizeof(*b));
	nlbuf__hdr(b)->nlmsg_type = NLMSG_DONE;
	nlbuf__hdr(b)->nlmsg_flags = NLM_F_MULTI | flags;
	memcpy(nlbuf__data(b) + NLMSG_HDRLEN, &error, sizeof(error));
	b->len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(error));
	nlbuf__set_len(b);
}

static void test_done(void)
{
	struct kp_extack ext;
	struct kp_err err;
	struct nlbuf b;

	nlbuf__done(&b, 0, 0);
	is_int(parse(&b, b.len, &ext), 0, "DONE: parsed");
	ok(!ext.error && !ext.has_msg, "DONE: success");

	nlbuf__done(&b, -ENOBUFS, NLM_F_ACK_TLVS);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "dump failed");
	is_int(parse(&b, b.len, &ext), 0, "DONE with error: parsed");
	ok(ext.error == -ENOBUFS && ext.has_msg && !strcmp(ext.msg, "dump failed"),
	   "DONE with error: error and message");
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_str(err.msg, "No buffer space available: dump failed", "DONE with error: kp_err");

	nlbuf__done(&b, -EIO, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "ignored");
	parse(&b, b.len, &ext);
	ok(ext.error == -EIO && !ext.has_msg, "DONE without ACK_TLVS: TLVs ignored");

	/* Old kernels send NLMSG_DONE without payload. */
	nlbuf__done(&b, -EIO, 0);
	b.len = NLMSG_HDRLEN;
	nlbuf__set_len(&b);
	is_int(parse(&b, b.len, &ext), 0, "DONE without payload: parsed");
	is_int(ext.error, 0, "DONE without payload: success");

	nlbuf__done(&b, -EIO, NLM_F_ACK_TLVS);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "truncated");
	is_int(parse(&b, b.len - 3, &ext), 0, "DONE truncated: parsed");
	ok(ext.error == -EIO && !ext.has_msg, "DONE truncated: TLV dropped");
}

static void test_error_format(void)
{
	struct kp_err err;
	struct nlbuf b;

	nlbuf__error(&b, -EPERM, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "needs CAP_PERFMON");
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_int(err.errnum, EPERM, "err: errnum");
	is_str(err.extack, "needs CAP_PERFMON", "err: extack kept");
	is_str(err.msg, "Operation not permitted: needs CAP_PERFMON "
			"(try sudo)", "err: EPERM with hint");

	nlbuf__error(&b, -EACCES, NLM_F_CAPPED, 0);
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_str(err.msg, "Permission denied (needs CAP_PERFMON or CAP_SYS_ADMIN; try sudo)",
	       "err: EACCES without extack");

	nlbuf__error(&b, -EPROTO, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, "ABI 2 required");
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_str(err.msg, "Protocol error: ABI 2 required", "err: EPROTO, no hint");

	nlbuf__error(&b, -EINVAL, NLM_F_CAPPED | NLM_F_ACK_TLVS, 0);
	nlbuf__attr_u32(&b, NLMSGERR_ATTR_MISS_TYPE, 7);
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_str(err.msg, "Invalid argument: missing attribute 7", "err: missing attribute");

	nlbuf__error(&b, 12345, NLM_F_CAPPED, 0);
	kp_err__from_nlerr(&err, nlbuf__data(&b), b.len);
	is_int(err.errnum, EIO, "err: nonsense error code becomes EIO");

	kp_err__from_nlerr(&err, nlbuf__data(&b), 8);
	ok(err.errnum == EBADMSG && !strcmp(err.msg, "malformed netlink error message"),
	   "err: malformed message");

	kp_err__set(&err, ENOENT, "kprof module not loaded (insmod kprof.ko)");
	ok(err.errnum == ENOENT && !err.not_loaded && !err.extack[0], "err: local error");
}

int main(void)
{
	test_basic();
	test_msg_contents();
	test_malformed();
	test_done();
	test_error_format();
	return done_testing();
}
