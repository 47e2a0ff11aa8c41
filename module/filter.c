// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - tracepoint filters: a small stack machine run on the raw record
 * in the overflow handler, before a sample is stored (see struct
 * kprof_filter_insn in the uapi header).  Programs are checked once, when
 * the session starts, so that running one is bounded and cannot fail:
 * every opcode known, reserved fields zero, field sizes 1/2/4/8, string
 * sizes up to KPROF_FILTER_STR_MAX with their constant present, the stack
 * never under- or overflowing, and exactly one value left at the end.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/string.h>

#include "compat.h"
#include "filter.h"

#define KPROF_FILTER_STACK	16

static bool kprof_filter_is_cmp(u8 op)
{
	return op >= KPROF_FILTER_EQ && op <= KPROF_FILTER_SGE;
}

static bool kprof_filter_is_str(u8 op)
{
	return op == KPROF_FILTER_STR_EQ || op == KPROF_FILTER_STR_NE;
}

/**
 * kprof_filter_check() - validate a filter program
 * @insns: the program
 * @nr: its length
 * @attr: the attribute it came from, for the error message
 * @extack: for the error message
 *
 * Context: process context.
 * Return: 0, or -EINVAL with an extack message naming the problem.
 */
int kprof_filter_check(const struct kprof_filter_insn *insns, unsigned int nr,
		       const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	unsigned int i, depth = 0;

	if (!nr || nr > KPROF_FILTER_MAX_INSNS) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: empty or too long");
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		const struct kprof_filter_insn *in = &insns[i];

		if (in->__reserved) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: reserved field set");
			return -EINVAL;
		}
		if (kprof_filter_is_cmp(in->op)) {
			if (in->size != 1 && in->size != 2 && in->size != 4 && in->size != 8) {
				NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: bad field size");
				return -EINVAL;
			}
			depth++;
		} else if (kprof_filter_is_str(in->op)) {
			unsigned int words = DIV_ROUND_UP(in->size, 8);

			if (!in->size || in->size > KPROF_FILTER_STR_MAX || i + words >= nr) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "kprof: filter: bad string comparison");
				return -EINVAL;
			}
			i += words;	/* the constant: data, not code */
			depth++;
		} else if (in->op == KPROF_FILTER_AND || in->op == KPROF_FILTER_OR) {
			if (depth < 2) {
				NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: stack underflow");
				return -EINVAL;
			}
			depth--;
		} else if (in->op == KPROF_FILTER_NOT) {
			if (depth < 1) {
				NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: stack underflow");
				return -EINVAL;
			}
		} else {
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: unknown operation");
			return -EINVAL;
		}
		if (depth > KPROF_FILTER_STACK) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: expression too deep");
			return -EINVAL;
		}
	}
	if (depth != 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "kprof: filter: does not leave one result");
		return -EINVAL;
	}
	return 0;
}

static u64 kprof_filter_load(const u8 *raw, u8 size)
{
	switch (size) {
	case 1:
		return *raw;
	case 2:
		return get_unaligned((const u16 *)raw);
	case 4:
		return get_unaligned((const u32 *)raw);
	default:
		return get_unaligned((const u64 *)raw);
	}
}

static s64 kprof_filter_sext(u64 v, u8 size)
{
	return size == 8 ? (s64)v : sign_extend64(v, size * 8 - 1);
}

static bool kprof_filter_cmp(const struct kprof_filter_insn *in, const u8 *raw, u32 len)
{
	u64 v;

	if (in->offset + in->size > len)
		return false;
	v = kprof_filter_load(raw + in->offset, in->size);
	switch (in->op) {
	case KPROF_FILTER_EQ:	return v == in->value;
	case KPROF_FILTER_NE:	return v != in->value;
	case KPROF_FILTER_LT:	return v < in->value;
	case KPROF_FILTER_LE:	return v <= in->value;
	case KPROF_FILTER_GT:	return v > in->value;
	case KPROF_FILTER_GE:	return v >= in->value;
	case KPROF_FILTER_SLT:	return kprof_filter_sext(v, in->size) < (s64)in->value;
	case KPROF_FILTER_SLE:	return kprof_filter_sext(v, in->size) <= (s64)in->value;
	case KPROF_FILTER_SGT:	return kprof_filter_sext(v, in->size) > (s64)in->value;
	default:		return kprof_filter_sext(v, in->size) >= (s64)in->value;
	}
}

/* Field of in->size bytes against the NUL-padded constant that follows. */
static bool kprof_filter_str(const struct kprof_filter_insn *in, const u8 *raw, u32 len)
{
	char want[KPROF_FILTER_STR_MAX];
	unsigned int i;
	bool same;

	if (in->offset + in->size > len)
		return false;
	for (i = 0; i < DIV_ROUND_UP(in->size, 8); i++)
		memcpy(want + 8 * i, &in[1 + i].value, min_t(unsigned int, 8, in->size - 8 * i));
	same = !strncmp((const char *)raw + in->offset, want, in->size);
	return in->op == KPROF_FILTER_STR_EQ ? same : !same;
}

/**
 * kprof_filter_run() - does a raw record pass a checked filter?
 * @insns: the program, checked by kprof_filter_check()
 * @nr: its length
 * @raw: the raw tracepoint record
 * @len: its size
 *
 * Context: any, NMI included.  No locks, no allocation, at most
 * KPROF_FILTER_MAX_INSNS steps.
 * Return: true to keep the sample.
 */
bool kprof_filter_run(const struct kprof_filter_insn *insns, unsigned int nr,
		      const u8 *raw, u32 len)
{
	bool stack[KPROF_FILTER_STACK];
	unsigned int i, sp = 0;

	for (i = 0; i < nr; i++) {
		const struct kprof_filter_insn *in = &insns[i];

		if (kprof_filter_is_cmp(in->op)) {
			stack[sp++] = kprof_filter_cmp(in, raw, len);
		} else if (kprof_filter_is_str(in->op)) {
			stack[sp++] = kprof_filter_str(in, raw, len);
			i += DIV_ROUND_UP(in->size, 8);
		} else if (in->op == KPROF_FILTER_AND) {
			sp--;
			stack[sp - 1] = stack[sp - 1] && stack[sp];
		} else if (in->op == KPROF_FILTER_OR) {
			sp--;
			stack[sp - 1] = stack[sp - 1] || stack[sp];
		} else {
			stack[sp - 1] = !stack[sp - 1];
		}
	}
	return sp == 1 && stack[0];
}
