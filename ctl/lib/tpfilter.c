// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint filter compiler; see tpfilter.h.  A recursive-descent parser
 * that emits the program in postfix order as it goes.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tpfilter.h"
#include "util.h"

struct tpf {
	const struct kp_tp_format	*fmt;
	const char			*expr;
	const char			*p;
	struct kprof_filter_insn	*insns;
	unsigned int			nr;
	unsigned int			depth;
	struct kp_err			*err;
	int				ret;
};

__printf(3, 4)
static int fail(struct tpf *c, int errnum, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (c->ret)
		return c->ret;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* A long expression is abbreviated: the message is one line. */
	if (strlen(c->expr) > 80)
		kp_err__set(c->err, errnum, "filter '%.60s...' on %s:%s: %s", c->expr,
			    c->fmt->system, c->fmt->name, msg);
	else
		kp_err__set(c->err, errnum, "filter '%s' on %s:%s: %s", c->expr, c->fmt->system,
			    c->fmt->name, msg);
	c->ret = -errnum;
	return c->ret;
}

static void skip_space(struct tpf *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

/* Append one instruction; @push: its effect on the operand stack. */
static int emit(struct tpf *c, uint8_t op, uint8_t size, uint16_t offset, uint64_t value,
		int push)
{
	struct kprof_filter_insn *in;

	if (c->nr >= KPROF_FILTER_MAX_INSNS)
		return fail(c, E2BIG, "too complex: more than %d instructions",
			    KPROF_FILTER_MAX_INSNS);
	in = &c->insns[c->nr++];
	memset(in, 0, sizeof(*in));
	in->op = op;
	in->size = size;
	in->offset = offset;
	in->value = value;
	c->depth += push;
	if (c->depth > KP_TPFILTER_MAX_DEPTH)
		return fail(c, E2BIG, "too complex: nested too deeply (at most %d pending terms)",
			    KP_TPFILTER_MAX_DEPTH);
	return 0;
}

/* The characters of an operator token. */
static size_t op_len(const char *p)
{
	size_t n = 0;

	while (p[n] && strchr("=!<>~&|", p[n]))
		n++;
	return n;
}

static int parse_expr(struct tpf *c);

/* A "string" or 'string' constant at c->p into @buf. */
static int parse_string(struct tpf *c, char *buf, size_t len, size_t *out)
{
	char quote = *c->p++;
	size_t n = 0;

	for (; *c->p && *c->p != quote; c->p++) {
		if (*c->p == '\\' && c->p[1])
			c->p++;
		if (n + 1 >= len)
			return fail(c, EINVAL, "string constant is too long (at most %zu characters)",
				    len - 1);
		buf[n++] = *c->p;
	}
	if (!*c->p)
		return fail(c, EINVAL, "unterminated string constant");
	c->p++;
	buf[n] = '\0';
	*out = n;
	return 0;
}

static int parse_string_cmp(struct tpf *c, const struct kp_tp_field *f, const char *op)
{
	char s[KPROF_FILTER_STR_MAX + 1] = "";
	unsigned int words, i;
	size_t n = 0;

	if (f->size > KPROF_FILTER_STR_MAX)
		return fail(c, EINVAL, "field '%s' is too long to compare (%u bytes, at most %d)",
			    f->name, f->size, KPROF_FILTER_STR_MAX);
	if (strcmp(op, "==") && strcmp(op, "!="))
		return fail(c, EINVAL, "bad operator '%s' for string field '%s' (use == or !=)",
			    op, f->name);
	if (*c->p != '"' && *c->p != '\'') {
		size_t len = strcspn(c->p, " \t&|)");

		return fail(c, EINVAL,
			    "type mismatch: field '%s' is a string, '%.*s' is not (quote it)",
			    f->name, (int)len, c->p);
	}
	if (parse_string(c, s, sizeof(s), &n))
		return c->ret;
	if (n > f->size)
		return fail(c, EINVAL, "string \"%s\" is longer than field '%s' (%u bytes)", s,
			    f->name, f->size);
	if (strpbrk(s, "*?["))
		return fail(c, EINVAL, "wildcards in \"%s\" are not supported", s);
	if (emit(c, strcmp(op, "==") ? KPROF_FILTER_STR_NE : KPROF_FILTER_STR_EQ, f->size,
		 f->offset, 0, 1))
		return c->ret;
	words = (f->size + 7) / 8;
	for (i = 0; i < words; i++) {
		uint64_t v = 0;
		size_t off = 8 * i;

		if (off < n)
			memcpy(&v, s + off, n - off < 8 ? n - off : 8);
		if (emit(c, 0, 0, 0, v, 0))
			return c->ret;
	}
	return 0;
}

static int parse_int_cmp(struct tpf *c, const struct kp_tp_field *f, const char *op)
{
	static const struct {
		const char	*op;
		uint8_t		u, s;
	} ops[] = {
		{ "==", KPROF_FILTER_EQ, KPROF_FILTER_EQ },
		{ "!=", KPROF_FILTER_NE, KPROF_FILTER_NE },
		{ "<",  KPROF_FILTER_LT, KPROF_FILTER_SLT },
		{ "<=", KPROF_FILTER_LE, KPROF_FILTER_SLE },
		{ ">",  KPROF_FILTER_GT, KPROF_FILTER_SGT },
		{ ">=", KPROF_FILTER_GE, KPROF_FILTER_SGE },
	};
	unsigned int bits = f->size * 8, i;
	const char *start = c->p;
	bool neg = false;
	uint64_t v, value;
	char *end;
	uint8_t code;

	for (i = 0; i < KP_ARRAY_SIZE(ops); i++)
		if (!strcmp(ops[i].op, op))
			break;
	if (i == KP_ARRAY_SIZE(ops))
		return fail(c, EINVAL, "bad operator '%s'", op);
	code = f->is_signed ? ops[i].s : ops[i].u;

	if (*c->p == '"' || *c->p == '\'')
		return fail(c, EINVAL, "type mismatch: field '%s' is an integer, %s is a string",
			    f->name, c->p);
	if (*c->p == '-') {
		neg = true;
		c->p++;
	}
	if (!isdigit((unsigned char)*c->p)) {
		size_t len = strcspn(start, " \t&|)");

		return fail(c, EINVAL, "invalid constant '%.*s' for field '%s'", (int)len, start,
			    f->name);
	}
	errno = 0;
	v = strtoull(c->p, &end, 0);
	if (isalnum((unsigned char)*end) || *end == '_' || *end == '.') {
		size_t len = strcspn(start, " \t&|)");

		return fail(c, EINVAL, "invalid constant '%.*s' for field '%s'", (int)len, start,
			    f->name);
	}
	c->p = end;
	if (errno == ERANGE)
		goto range;
	if (f->is_signed) {
		uint64_t max = bits == 64 ? INT64_MAX : (1ULL << (bits - 1)) - 1;

		if (neg ? v > max + 1 : v > max)
			goto range;
		value = neg ? -v : v;
		/* EQ/NE compare the zero-extended field: truncate. */
		if ((code == KPROF_FILTER_EQ || code == KPROF_FILTER_NE) && bits < 64)
			value &= (1ULL << bits) - 1;
	} else {
		if (neg || (bits < 64 && v >> bits))
			goto range;
		value = v;
	}
	return emit(c, code, f->size, f->offset, value, 1);

range:
	return fail(c, ERANGE, "constant '%.*s' is out of range for field '%s' (%u-bit %s)",
		    (int)(c->p - start), start, f->name, bits,
		    f->is_signed ? "signed" : "unsigned");
}

static int parse_cmp(struct tpf *c)
{
	const struct kp_tp_field *f;
	char name[KP_TP_NAME_MAX], op[8];
	const char *start = c->p;
	size_t n;

	while (isalnum((unsigned char)*c->p) || *c->p == '_')
		c->p++;
	n = c->p - start;
	if (!n) {
		if (!*c->p)
			return fail(c, EINVAL, "unexpected end, expected a field name");
		return fail(c, EINVAL, "unexpected '%s', expected a field name", c->p);
	}
	if (n >= sizeof(name))
		return fail(c, EINVAL, "unknown field '%.*s'", (int)n, start);
	memcpy(name, start, n);
	name[n] = '\0';
	f = kp_tp_format__field(c->fmt, name);
	if (!f)
		return fail(c, EINVAL, "unknown field '%s'", name);

	skip_space(c);
	n = op_len(c->p);
	if (!n) {
		if (!*c->p)
			return fail(c, EINVAL, "unexpected end after '%s', expected an operator",
				    name);
		return fail(c, EINVAL, "bad operator at '%s', after '%s'", c->p, name);
	}
	if (n >= sizeof(op))
		n = sizeof(op) - 1;
	memcpy(op, c->p, n);
	op[n] = '\0';
	c->p += n;
	skip_space(c);
	if (!*c->p)
		return fail(c, EINVAL, "unexpected end after '%s %s', expected a constant", name,
			    op);

	if (f->is_dynamic)
		return fail(c, EOPNOTSUPP, "field '%s' is a dynamic string (%s): not supported",
			    f->name, f->type);
	if (f->is_string)
		return parse_string_cmp(c, f, op);
	if (f->is_array)
		return fail(c, EOPNOTSUPP, "field '%s' is an array (%s): not supported", f->name,
			    f->type);
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return fail(c, EOPNOTSUPP, "field '%s' has an unsupported size (%u bytes)",
			    f->name, f->size);
	return parse_int_cmp(c, f, op);
}

static int parse_unary(struct tpf *c)
{
	skip_space(c);
	if (*c->p == '!' && c->p[1] != '=') {
		c->p++;
		if (parse_unary(c))
			return c->ret;
		return emit(c, KPROF_FILTER_NOT, 0, 0, 0, 0);
	}
	if (*c->p == '(') {
		c->p++;
		if (parse_expr(c))
			return c->ret;
		skip_space(c);
		if (*c->p != ')')
			return fail(c, EINVAL, "missing ')'");
		c->p++;
		return 0;
	}
	return parse_cmp(c);
}

static int parse_and(struct tpf *c)
{
	if (parse_unary(c))
		return c->ret;
	for (;;) {
		skip_space(c);
		if (strncmp(c->p, "&&", 2))
			return 0;
		c->p += 2;
		if (parse_unary(c) || emit(c, KPROF_FILTER_AND, 0, 0, 0, -1))
			return c->ret;
	}
}

static int parse_expr(struct tpf *c)
{
	if (parse_and(c))
		return c->ret;
	for (;;) {
		skip_space(c);
		if (strncmp(c->p, "||", 2))
			return 0;
		c->p += 2;
		if (parse_and(c) || emit(c, KPROF_FILTER_OR, 0, 0, 0, -1))
			return c->ret;
	}
}

int kp_tpfilter__compile(const struct kp_tp_format *fmt, const char *expr,
			 struct kprof_filter_insn *insns, unsigned int *nr,
			 struct kp_err *err)
{
	struct tpf c = {
		.fmt = fmt, .expr = expr, .p = expr, .insns = insns, .err = err,
	};

	*nr = 0;
	skip_space(&c);
	if (!*c.p)
		return fail(&c, EINVAL, "empty filter");
	if (parse_expr(&c))
		return c.ret;
	skip_space(&c);
	if (*c.p == ')')
		return fail(&c, EINVAL, "unbalanced ')'");
	if (*c.p) {
		size_t n = op_len(c.p);

		if (n)
			return fail(&c, EINVAL, "bad operator '%.*s'", (int)n, c.p);
		return fail(&c, EINVAL, "unexpected '%s'", c.p);
	}
	*nr = c.nr;
	return 0;
}
