/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fast buffered text output for the decoding commands, which print tens of
 * millions of lines: a private buffer written with fwrite() when full, and
 * numbers formatted by hand instead of through printf.
 *
 *	struct kp_out *o = kp_out__new(stdout);
 *	kp_out__str(o, "name"); kp_out__hex(o, addr, 16); kp_out__chr(o, '\n');
 *	kp_out__delete(o);			flushes
 */
#ifndef KPROFCTL_OUT_H
#define KPROFCTL_OUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KP_OUT_BUF	(1U << 18)

struct kp_out {
	FILE	*fp;
	size_t	len;
	char	buf[KP_OUT_BUF];
};

static inline struct kp_out *kp_out__new(FILE *fp)
{
	struct kp_out *o = malloc(sizeof(*o));

	if (o) {
		o->fp = fp;
		o->len = 0;
	}
	return o;
}

static inline void kp_out__flush(struct kp_out *o)
{
	if (o->len)
		fwrite_unlocked(o->buf, 1, o->len, o->fp);
	o->len = 0;
}

/* Flush and free; NULL is fine.  Errors show in ferror(o->fp). */
static inline void kp_out__delete(struct kp_out *o)
{
	if (!o)
		return;
	kp_out__flush(o);
	free(o);
}

static inline void kp_out__mem(struct kp_out *o, const char *s, size_t len)
{
	if (o->len + len > sizeof(o->buf)) {
		kp_out__flush(o);
		if (len > sizeof(o->buf)) {
			fwrite_unlocked(s, 1, len, o->fp);
			return;
		}
	}
	memcpy(o->buf + o->len, s, len);
	o->len += len;
}

static inline void kp_out__str(struct kp_out *o, const char *s)
{
	kp_out__mem(o, s, strlen(s));
}

static inline void kp_out__chr(struct kp_out *o, char c)
{
	if (o->len == sizeof(o->buf))
		kp_out__flush(o);
	o->buf[o->len++] = c;
}

/* @v in @base (10 or 16, lower case), right-aligned in @width with @pad. */
static inline void kp_out__num(struct kp_out *o, uint64_t v, unsigned int base, int width,
			       char pad)
{
	char buf[32];
	size_t i = sizeof(buf);

	do {
		buf[--i] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v && i > 0);
	while (i > 0 && (int)(sizeof(buf) - i) < width)
		buf[--i] = pad;
	kp_out__mem(o, buf + i, sizeof(buf) - i);
}

/* Hexadecimal without a prefix, right-aligned in @width (0: none). */
static inline void kp_out__hex(struct kp_out *o, uint64_t v, int width)
{
	kp_out__num(o, v, 16, width, ' ');
}

/* Decimal, right-aligned in @width (0: none), padded with @pad. */
static inline void kp_out__u64(struct kp_out *o, uint64_t v, int width, char pad)
{
	kp_out__num(o, v, 10, width, pad);
}

#endif /* KPROFCTL_OUT_H */
