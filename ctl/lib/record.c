// SPDX-License-Identifier: GPL-2.0
/*
 * Record validation; see record.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proto.h"
#include "record.h"
#include "util.h"

static const struct {
	const char	*name;
	size_t		min;
} kernel_types[] = {
	[KPROF_RECORD_SAMPLE]	= { "SAMPLE",	sizeof(struct kp_rec_sample) },
	[KPROF_RECORD_LOST]	= { "LOST",	sizeof(struct kp_rec_lost) },
	[KPROF_RECORD_THROTTLE]	= { "THROTTLE",	sizeof(struct kp_rec_throttle) },
	[KPROF_RECORD_COMM]	= { "COMM",	sizeof(struct kp_rec_comm) },
	[KPROF_RECORD_EXIT]	= { "EXIT",	sizeof(struct kp_rec_exit) },
	[KPROF_RECORD_FORK]	= { "FORK",	sizeof(struct kp_rec_fork) },
	[KPROF_RECORD_MMAP]	= { "MMAP",	sizeof(struct kp_rec_mmap) + 8 },
};

static const struct {
	const char	*name;
	size_t		min;
} file_types[] = {
	[KP_DATA_REC_STATS - KP_DATA_REC_BASE]	= { "STATS", sizeof(struct kp_rec_stats) },
	[KP_DATA_REC_FINISHED - KP_DATA_REC_BASE] = { "FINISHED", sizeof(struct kp_rec_finished) },
	[KP_DATA_REC_SYNTH_DONE - KP_DATA_REC_BASE] = { "SYNTH_DONE",
						      sizeof(struct kp_rec_synth_done) },
	[KP_DATA_REC_AGG - KP_DATA_REC_BASE]	= { "AGG", sizeof(struct kp_rec_agg) },
	[KP_DATA_REC_WAKER - KP_DATA_REC_BASE]	= { "WAKER", sizeof(struct kp_rec_waker) },
	[KP_DATA_REC_SWITCH - KP_DATA_REC_BASE]	= { "SWITCH", sizeof(struct kp_rec_switch) },
	[KP_DATA_REC_BUILD_ID - KP_DATA_REC_BASE] = { "BUILD_ID",
						      sizeof(struct kp_rec_build_id) + 8 },
};

const char *kp_record__type_name(uint32_t type)
{
	if (type && type < KP_ARRAY_SIZE(kernel_types))
		return kernel_types[type].name;
	if (type >= KP_DATA_REC_BASE && type - KP_DATA_REC_BASE < KP_ARRAY_SIZE(file_types))
		return file_types[type - KP_DATA_REC_BASE].name;
	return NULL;
}

static size_t type_min(uint32_t type)
{
	if (type && type < KP_ARRAY_SIZE(kernel_types))
		return kernel_types[type].min;
	return file_types[type - KP_DATA_REC_BASE].min;
}

#define BAD(...)	do { snprintf(why, len, __VA_ARGS__); return -EBADMSG; } while (0)

int kp_record__check(const struct kprof_record_header *h, const struct kp_record_ctx *ctx,
		     char *why, size_t len)
{
	const char *name = kp_record__type_name(h->type);
	size_t size = h->size;

	if (size < sizeof(*h) || size % 8)
		BAD("bad record size %zu", size);
	if (!name || (h->type >= KP_DATA_REC_BASE && !ctx->file_types) ||
	    ((h->type == KP_DATA_REC_AGG || h->type == KP_DATA_REC_WAKER) && !ctx->agg_types) ||
	    ((h->type == KP_DATA_REC_SWITCH || h->type == KP_DATA_REC_BUILD_ID) &&
	     !ctx->switch_types))
		BAD("unknown record type %u", h->type);
	if (size < type_min(h->type))
		BAD("%s of %zu bytes is shorter than its %zu-byte layout", name, size,
		    type_min(h->type));

	switch (h->type) {
	case KPROF_RECORD_SAMPLE: {
		const struct kp_rec_sample *s = (const void *)h;
		struct kp_ustack u;
		size_t nr = (size_t)s->nr_kernel + s->nr_user;

		if (sizeof(*s) + nr * 8 > size)
			BAD("SAMPLE of %zu bytes cannot hold its %zu frames", size, nr);
		if (ctx->max_depth && (s->nr_kernel > ctx->max_depth || s->nr_user > ctx->max_depth))
			BAD("SAMPLE has %u+%u frames, above the stack depth %u",
			    s->nr_kernel, s->nr_user, ctx->max_depth);
		if (ctx->nr_events && s->event >= ctx->nr_events)
			BAD("SAMPLE of event %u, but the session has %u events", s->event,
			    ctx->nr_events);
		if (s->__reserved)
			BAD("SAMPLE has a non-zero reserved field");
		if ((s->header.misc & KPROF_MISC_USER_STACK) && !kp_sample__ustack(s, &u))
			BAD("SAMPLE's user stack part is malformed");
		break;
	}
	case KPROF_RECORD_LOST: {
		const struct kp_rec_lost *l = (const void *)h;

		/* the causes a stream reports; the aggregation ones never reach a ring */
		if (l->cause != KPROF_LOST_FULL && l->cause != KPROF_LOST_TOO_BIG &&
		    l->cause != KPROF_LOST_RECURSION && l->cause != KPROF_LOST_COST)
			BAD("LOST with unknown cause %u", l->cause);
		break;
	}
	case KPROF_RECORD_THROTTLE: {
		const struct kp_rec_throttle *t = (const void *)h;

		if (ctx->nr_events && t->event >= ctx->nr_events)
			BAD("THROTTLE of event %u, but the session has %u events", t->event,
			    ctx->nr_events);
		if (t->__reserved)
			BAD("THROTTLE has a non-zero reserved field");
		break;
	}
	case KPROF_RECORD_COMM: {
		const struct kp_rec_comm *c = (const void *)h;

		if (!memchr(c->comm, '\0', sizeof(c->comm)))
			BAD("COMM name is not NUL-terminated");
		break;
	}
	case KPROF_RECORD_MMAP: {
		const struct kp_rec_mmap *m = (const void *)h;

		if (!memchr(m->filename, '\0', size - sizeof(*m)))
			BAD("MMAP file name is not NUL-terminated");
		break;
	}
	case KP_DATA_REC_STATS: {
		const struct kp_rec_stats *st = (const void *)h;

		if (sizeof(*st) + (size_t)st->nr * 8 > size)
			BAD("STATS of %zu bytes cannot hold its %u counters", size, st->nr);
		break;
	}
	case KP_DATA_REC_AGG: {
		const struct kp_rec_agg *a = (const void *)h;
		size_t nr = (size_t)a->nr_kernel + a->nr_user;

		if (sizeof(*a) + nr * 8 > size)
			BAD("AGG of %zu bytes cannot hold its %zu frames", size, nr);
		if (ctx->max_depth &&
		    (a->nr_kernel > ctx->max_depth || a->nr_user > ctx->max_depth))
			BAD("AGG has %u+%u frames, above the stack depth %u",
			    a->nr_kernel, a->nr_user, ctx->max_depth);
		if (ctx->nr_events && a->event >= ctx->nr_events)
			BAD("AGG of event %u, but the session has %u events", a->event,
			    ctx->nr_events);
		if (!a->count)
			BAD("AGG of 0 samples");
		if (a->__reserved)
			BAD("AGG has a non-zero reserved field");
		if (!memchr(a->comm, '\0', sizeof(a->comm)))
			BAD("AGG name is not NUL-terminated");
		break;
	}
	case KP_DATA_REC_SWITCH: {
		const struct kp_rec_switch *sw = (const void *)h;

		if (sw->__reserved)
			BAD("SWITCH has a non-zero reserved field");
		if (sw->samples_before && !sw->seq)
			BAD("SWITCH of the first file counts %llu earlier samples",
			    (unsigned long long)sw->samples_before);
		break;
	}
	case KP_DATA_REC_BUILD_ID: {
		const struct kp_rec_build_id *b = (const void *)h;
		unsigned int i;

		if (!b->size || b->size > sizeof(b->build_id))
			BAD("BUILD_ID of %u bytes", b->size);
		for (i = b->size; i < sizeof(b->build_id); i++)
			if (b->build_id[i])
				BAD("BUILD_ID has non-zero bytes after its %u", b->size);
		if (b->__reserved[0] || b->__reserved[1] || b->__reserved[2] || b->__reserved2)
			BAD("BUILD_ID has a non-zero reserved field");
		if (!memchr(b->filename, '\0', size - sizeof(*b)))
			BAD("BUILD_ID file name is not NUL-terminated");
		if (b->filename[0] != '/')
			BAD("BUILD_ID file name is not an absolute path");
		break;
	}
	case KP_DATA_REC_WAKER: {
		const struct kp_rec_waker *w = (const void *)h;
		size_t nr = (size_t)w->nr_kernel + w->nr_user + w->waker_nr_kernel +
			    w->waker_nr_user;

		if (sizeof(*w) + nr * 8 > size)
			BAD("WAKER of %zu bytes cannot hold its %zu frames", size, nr);
		if (ctx->max_depth &&
		    (w->nr_kernel > ctx->max_depth || w->nr_user > ctx->max_depth ||
		     w->waker_nr_kernel > ctx->max_depth || w->waker_nr_user > ctx->max_depth))
			BAD("WAKER has %u+%u and %u+%u frames, above the stack depth %u",
			    w->nr_kernel, w->nr_user, w->waker_nr_kernel, w->waker_nr_user,
			    ctx->max_depth);
		if (ctx->nr_events && w->event >= ctx->nr_events)
			BAD("WAKER of event %u, but the session has %u events", w->event,
			    ctx->nr_events);
		if (!w->count)
			BAD("WAKER of 0 blocks");
		if (w->__reserved || w->__reserved2)
			BAD("WAKER has a non-zero reserved field");
		if (!memchr(w->comm, '\0', sizeof(w->comm)) ||
		    !memchr(w->waker_comm, '\0', sizeof(w->waker_comm)))
			BAD("WAKER name is not NUL-terminated");
		break;
	}
	}
	return 0;
}

void kp_rec_stats__fill(struct kp_rec_stats_buf *s, uint32_t cpu, const struct kp_stats *st,
			bool agg)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->rec.header.type = KP_DATA_REC_STATS;
	s->rec.cpu = cpu;
	s->rec.nr = agg ? KP_DATA_STATS_AGG_NR : KP_STATS_NR;
	memcpy(s->v, st->v, sizeof(st->v));
	for (i = 0; agg && i < KP_AGG_STATS_NR; i++)
		s->v[KP_DATA_STATS_AGG + i] = st->agg[i];
	if (st->has_nested) {
		s->rec.nr = KP_DATA_STATS_EXT_NR;
		s->v[KP_DATA_STATS_IDX(KPROF_STATS_A_FILTERED)] = st->filtered;
		s->v[KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_RECURSION)] = st->lost_recursion;
		s->v[KP_DATA_STATS_IDX(KPROF_STATS_A_NESTED)] = st->nested;
		s->v[KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_COST)] = st->lost_cost;
	}
	s->rec.header.size = sizeof(s->rec) + s->rec.nr * sizeof(uint64_t);
}

uint64_t kp_rec_stats__lost_recursion(const struct kp_rec_stats *st)
{
	unsigned int i = KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_RECURSION);

	return st->nr > i ? st->v[i] : 0;
}

uint64_t kp_rec_stats__lost_cost(const struct kp_rec_stats *st)
{
	unsigned int i = KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_COST);

	return st->nr > i ? st->v[i] : 0;
}

const void *kp_sample__raw(const void *rec, size_t size, unsigned int nr, uint32_t *len)
{
	/* struct kp_rec_sample: 56 bytes, then the frames, then the raw block. */
	const size_t head = sizeof(struct kp_rec_sample) + (size_t)nr * 8;
	const uint8_t *p = rec;
	uint32_t raw_size;

	if (head + 8 > size)
		return NULL;
	memcpy(&raw_size, p + head, 4);
	if (raw_size > size - head - 8)
		return NULL;
	*len = raw_size;
	return p + head + 8;
}

bool kp_sample__ustack(const struct kp_rec_sample *s, struct kp_ustack *u)
{
	unsigned int nr = s->nr_kernel + s->nr_user;
	size_t off = sizeof(*s) + (size_t)nr * 8, size = s->header.size;
	const uint8_t *p = (const uint8_t *)s;
	uint32_t stack_size, reserved, raw_len;
	uint64_t mask, regs[3];

	if (!(s->header.misc & KPROF_MISC_USER_STACK))
		return false;
	if (s->header.misc & KPROF_MISC_RAW) {
		if (!kp_sample__raw(s, size, nr, &raw_len))
			return false;
		off += 8 + (((size_t)raw_len + 7) & ~(size_t)7);
	}
	if (off + 8 > size)
		return false;
	memcpy(&mask, p + off, 8);
	/* ABI 1.16 sends exactly these; a wider mask is a later ABI's */
	if (mask != KPROF_USER_REGS_MASK || off + 8 + sizeof(regs) + 8 > size)
		return false;
	memcpy(regs, p + off + 8, sizeof(regs));
	off += 8 + sizeof(regs);
	memcpy(&stack_size, p + off, 4);
	memcpy(&reserved, p + off + 4, 4);
	off += 8;
	if (reserved || stack_size % 8 || stack_size > size - off ||
	    stack_size > KPROF_USER_STACK_MAX)
		return false;
	u->bp = regs[0];
	u->sp = regs[1];
	u->ip = regs[2];
	u->size = stack_size;
	u->stack = p + off;
	return true;
}
