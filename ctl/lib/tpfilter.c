// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint filter compiler; see tpfilter.h.  The expression is checked
 * token by token (check()), parsed by libtraceevent (parse()), and its
 * tree compiled into the kernel's program (compile()).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "tpfilter.h"
#include "util.h"

#define PAREN_MAX	32
/*
 * A negative constant reaches libtraceevent, whose grammar has none, as
 * NEG_MARK + its index in tpf.neg: a value no signed field's constant can
 * have (check() refuses those above the field's maximum), and negative
 * constants are taken for signed fields only.
 */
#define NEG_MARK	(1ULL << 63)
#define NEG_MAX		KPROF_FILTER_MAX_INSNS

struct tpf {
	struct tep_event		*event;
	const char			*name;		/* "SYSTEM:EVENT" */
	const char			*expr;
	const char			*p;		/* check(): the next token */
	struct kprof_filter_insn	*insns;
	unsigned int			nr;
	unsigned int			depth;
	int64_t				neg[NEG_MAX];	/* negative constants, in order */
	unsigned int			nr_neg;
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
		kp_err__set(c->err, errnum, "filter '%.60s...' on %s: %s", c->expr, c->name, msg);
	else
		kp_err__set(c->err, errnum, "filter '%s' on %s: %s", c->expr, c->name, msg);
	c->ret = -errnum;
	return c->ret;
}

/* ---- check(): the tokens, before libtraceevent reads them ---- */

enum tok_type {
	T_END,
	T_LPAREN,
	T_RPAREN,
	T_NOT,		/* ! */
	T_AND,		/* && */
	T_OR,		/* || */
	T_CMP,		/* == != < <= > >= */
	T_REGEX,	/* =~ !~ */
	T_BADOP,	/* any other run of = ! < > ~ & | */
	T_STRING,	/* "..." or '...', quotes included */
	T_NUMBER,	/* a digit, then letters, digits, '_' and '.' */
	T_NEGATIVE,	/* '-', then the same */
	T_IDENT,
	T_OTHER,	/* one other character */
};

struct tok {
	enum tok_type	type;
	const char	*p;
	size_t		len;
};

static bool is_word(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static int next_token(struct tpf *c, struct tok *t)
{
	const char *p = c->p;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	t->p = p;
	if (!*p) {
		t->type = T_END;
	} else if (*p == '(' || *p == ')') {
		t->type = *p == '(' ? T_LPAREN : T_RPAREN;
		n = 1;
	} else if (*p == '"' || *p == '\'') {
		for (n = 1; p[n] && p[n] != *p; n++) {
			if (p[n] == '\\')
				return fail(c, EINVAL, "escapes in strings are not supported");
			/* libtraceevent 1.7 takes what follows a ',' for more event names */
			if (p[n] == ',')
				return fail(c, EINVAL, "',' in strings is not supported");
		}
		if (!p[n])
			return fail(c, EINVAL, "unterminated string constant");
		t->type = T_STRING;
		n++;
	} else if (isdigit((unsigned char)*p) || *p == '-') {
		for (n = 1; is_word(p[n]) || p[n] == '.'; n++)
			;
		t->type = *p == '-' ? T_NEGATIVE : T_NUMBER;
	} else if (isalpha((unsigned char)*p) || *p == '_') {
		for (n = 1; is_word(p[n]); n++)
			;
		t->type = T_IDENT;
	} else if (*p == '!' && p[1] != '=' && p[1] != '~') {
		t->type = T_NOT;
		n = 1;
	} else if (strchr("=!<>~&|", *p)) {
		static const struct {
			const char	*op;
			enum tok_type	type;
		} ops[] = {
			{ "==", T_CMP }, { "!=", T_CMP }, { "<", T_CMP }, { "<=", T_CMP },
			{ ">", T_CMP }, { ">=", T_CMP }, { "=~", T_REGEX }, { "!~", T_REGEX },
			{ "&&", T_AND }, { "||", T_OR },
		};
		unsigned int i;

		for (n = 1; p[n] && strchr("=<>~&|", p[n]); n++)
			;
		t->type = T_BADOP;
		for (i = 0; i < KP_ARRAY_SIZE(ops); i++)
			if (strlen(ops[i].op) == n && !strncmp(ops[i].op, p, n))
				t->type = ops[i].type;
	} else {
		t->type = T_OTHER;
		n = 1;
	}
	t->len = n;
	c->p = p + n;
	return 0;
}

static bool field_is_string(const struct tep_format_field *f)
{
	return f->flags & TEP_FIELD_IS_STRING;
}

/* The field of the event named by the token @t, or NULL. */
static struct tep_format_field *find_field(struct tpf *c, const struct tok *t)
{
	char name[128];

	if (t->len >= sizeof(name))
		return NULL;
	memcpy(name, t->p, t->len);
	name[t->len] = '\0';
	return tep_find_any_field(c->event, name);
}

/* A number token: does it fit @f?  (The kernel compares @f->size bytes.) */
static int check_number(struct tpf *c, const struct tep_format_field *f, const struct tok *t)
{
	unsigned int bits = f->size > 0 && f->size < 8 ? f->size * 8 : 64;
	bool neg = t->type == T_NEGATIVE;
	unsigned long long v;
	char buf[32], *end;

	/* "-" then a number: no sign or space after the '-' */
	if (t->len >= sizeof(buf) || (neg && (t->len < 2 || !isdigit((unsigned char)t->p[1]))))
		goto invalid;
	memcpy(buf, t->p, t->len);
	buf[t->len] = '\0';
	errno = 0;
	v = strtoull(buf + neg, &end, 0);
	if (*end)
		goto invalid;
	if (neg) {
		if (!(f->flags & TEP_FIELD_IS_SIGNED))
			return fail(c, EINVAL, "negative constant '%s' for unsigned field '%s'",
				    buf, f->name);
		/* down to -2^(bits-1) */
		if (errno == ERANGE || v > 1ULL << (bits - 1))
			return fail(c, ERANGE, "constant '%s' is out of range for field '%s' (%u-bit signed)",
				    buf, f->name, bits);
		if (c->nr_neg >= NEG_MAX)
			return fail(c, E2BIG, "too complex: more than %d negative constants", NEG_MAX);
		c->neg[c->nr_neg++] = v == 1ULL << 63 ? INT64_MIN : -(int64_t)v;
		return 0;
	}
	if (errno == ERANGE || (f->flags & TEP_FIELD_IS_SIGNED ? v >> (bits - 1) :
				bits < 64 && v >> bits))
		return fail(c, ERANGE, "constant '%s' is out of range for field '%s' (%u-bit %s)",
			    buf, f->name, bits, f->flags & TEP_FIELD_IS_SIGNED ? "signed" : "unsigned");
	return 0;
invalid:
	return fail(c, EINVAL, "invalid constant '%.*s' for field '%s'", (int)t->len, t->p,
		    f->name);
}

/* FIELD OP CONSTANT, after the field @f (the token @ft). */
static int check_cmp(struct tpf *c, const struct tep_format_field *f, const struct tok *ft)
{
	struct tok op, v;

	if (next_token(c, &op))
		return c->ret;
	switch (op.type) {
	case T_CMP:
		break;
	case T_REGEX:
		return fail(c, EOPNOTSUPP, "'%.*s' (a regular expression match) is not supported",
			    (int)op.len, op.p);
	case T_BADOP:
		return fail(c, EINVAL, "bad operator '%.*s'", (int)op.len, op.p);
	case T_END:
		return fail(c, EINVAL, "unexpected end after '%s', expected an operator", f->name);
	default:
		return fail(c, EINVAL, "bad operator at '%s', after '%s'", op.p, f->name);
	}
	if (next_token(c, &v))
		return c->ret;
	switch (v.type) {
	case T_END:
		return fail(c, EINVAL, "unexpected end after '%s %.*s', expected a constant",
			    f->name, (int)op.len, op.p);
	case T_STRING:
		if (!field_is_string(f))
			return fail(c, EINVAL, "type mismatch: field '%s' is an integer, %.*s is a string",
				    f->name, (int)v.len, v.p);
		if (op.len != 2 || op.p[1] != '=' || op.p[0] == '<' || op.p[0] == '>')
			return fail(c, EINVAL, "bad operator '%.*s' for string field '%s' (use == or !=)",
				    (int)op.len, op.p, f->name);
		/* libtraceevent 1.7 takes 'x' for a number, and reads a pointer */
		if (v.len == 3 && *v.p == '\'')
			return fail(c, EINVAL, "one-character constant %.*s is not supported: write \"%c\"",
				    (int)v.len, v.p, v.p[1]);
		return 0;
	case T_NUMBER:
	case T_NEGATIVE:
	case T_IDENT:
		if (v.type == T_IDENT && find_field(c, &v))
			return fail(c, EOPNOTSUPP, "comparing two fields ('%.*s %.*s %.*s') is not supported",
				    (int)ft->len, ft->p, (int)op.len, op.p, (int)v.len, v.p);
		if (field_is_string(f))
			return fail(c, EINVAL, "type mismatch: field '%s' is a string, '%.*s' is not (quote it)",
				    f->name, (int)v.len, v.p);
		if (v.type == T_IDENT)
			return fail(c, EINVAL, "invalid constant '%.*s' for field '%s'", (int)v.len, v.p,
				    f->name);
		return check_number(c, f, &v);
	default:
		return fail(c, EINVAL, "unexpected '%s', expected a constant", v.p);
	}
}

/*
 * The expression as the grammar of tpfilter.h has it, every field one of
 * the event's, every constant one of its field: then libtraceevent reads it
 * as the kernel would.
 */
static int check(struct tpf *c)
{
	unsigned int depth = 0;
	bool operand = true;
	struct tok t;

	c->p = c->expr;
	for (;;) {
		if (next_token(c, &t))
			return c->ret;
		if (operand) {
			const struct tep_format_field *f;

			switch (t.type) {
			case T_NOT:
				continue;
			case T_LPAREN:
				if (++depth > PAREN_MAX)
					return fail(c, E2BIG, "too complex: more than %d nested parentheses",
						    PAREN_MAX);
				continue;
			case T_IDENT:
				f = find_field(c, &t);
				if (!f)
					return fail(c, EINVAL, "unknown field '%.*s'", (int)t.len, t.p);
				if (check_cmp(c, f, &t))
					return c->ret;
				operand = false;
				continue;
			case T_END:
				return fail(c, EINVAL, "unexpected end, expected a field name");
			default:
				return fail(c, EINVAL, "unexpected '%s', expected a field name", t.p);
			}
		}
		switch (t.type) {
		case T_END:
			if (depth)
				return fail(c, EINVAL, "missing ')'");
			return 0;
		case T_RPAREN:
			if (!depth)
				return fail(c, EINVAL, "unbalanced ')'");
			depth--;
			continue;
		case T_AND:
		case T_OR:
			operand = true;
			continue;
		case T_BADOP:
		case T_CMP:
		case T_REGEX:
			return fail(c, EINVAL, "bad operator '%.*s'", (int)t.len, t.p);
		default:
			return fail(c, EINVAL, "unexpected '%s'", t.p);
		}
	}
}

/* ---- precedence: '&&' before '||', as the kernel and perf read it ---- */

/* One '(' or ')' to insert before expr[pos], for the paren group @group. */
struct paren {
	size_t		pos;
	char		ch;
	unsigned int	group;
};

static int paren_cmp(const void *a, const void *b)
{
	const struct paren *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return x->group < y->group ? -1 : x->group > y->group;	/* outer first */
}

/*
 * libtraceevent 1.7 reads '&&' and '||' from left to right at one level:
 * "a || b && c" as "(a || b) && c".  The kernel's filters and perf bind
 * '&&' tighter.  For every group (the whole expression, or a parenthesized
 * part) that has a '||', wrap each run of '&&'-joined terms in parentheses
 * so that libtraceevent sees what the user meant.  @c->expr passed check().
 *
 * Return: the expression to parse (malloc'd), or NULL with c->ret set.
 */
static char *with_precedence(struct tpf *c)
{
	/* per depth: its group, where its current '||' operand starts, state */
	unsigned int group[PAREN_MAX + 1] = { 0 }, groups = 0, depth = 0;
	size_t run_start[PAREN_MAX + 1] = { 0 };
	bool wrapped[PAREN_MAX + 1] = { false }, has_or[PAREN_MAX + 1] = { false };
	bool group_or[PAREN_MAX + 2] = { false };
	struct paren *ins;
	size_t nr = 0, max, len = strlen(c->expr), i, k, o;
	char *out;
	struct tok t;

	max = 2 * (len + 1);
	ins = calloc(max, sizeof(*ins));
	if (!ins) {
		fail(c, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	c->p = c->expr;
	for (;;) {
		if (next_token(c, &t)) {
			free(ins);
			return NULL;
		}
		if (t.type == T_LPAREN) {
			depth++;
			group[depth] = ++groups;
			run_start[depth] = t.p + 1 - c->expr;
			wrapped[depth] = has_or[depth] = false;
			continue;
		}
		if (t.type == T_AND && !wrapped[depth]) {
			ins[nr++] = (struct paren){ run_start[depth], '(', group[depth] };
			wrapped[depth] = true;
		} else if (t.type == T_OR || t.type == T_RPAREN || t.type == T_END) {
			if (wrapped[depth])
				ins[nr++] = (struct paren){ t.p - c->expr, ')', group[depth] };
			wrapped[depth] = false;
			if (t.type == T_OR) {
				has_or[depth] = true;
				run_start[depth] = t.p + t.len - c->expr;
			} else {
				group_or[group[depth]] = has_or[depth];
				if (t.type == T_END)
					break;
				depth--;
			}
		}
	}

	/* only groups with a '||' need their '&&' runs wrapped */
	for (i = k = 0; i < nr; i++)
		if (group_or[ins[i].group])
			ins[k++] = ins[i];
	nr = k;
	qsort(ins, nr, sizeof(*ins), paren_cmp);
	out = malloc(len + nr + 1);
	if (!out) {
		free(ins);
		fail(c, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	for (i = k = o = 0; i <= len; i++) {
		while (k < nr && ins[k].pos == i)
			out[o++] = ins[k++].ch;
		if (i < len)
			out[o++] = c->expr[i];
	}
	out[o] = '\0';
	free(ins);
	return out;
}

/*
 * @expr (check()ed, maybe with parentheses added) with its k-th negative
 * constant written as NEG_MARK + k, for libtraceevent.
 *
 * Return: the expression to parse (malloc'd), or NULL with c->ret set.
 */
static char *with_neg_marks(struct tpf *c, const char *expr)
{
	size_t len = strlen(expr), o = 0;
	const char *from = expr;
	unsigned int k = 0;
	char *out;
	struct tok t;

	/* each mark is 19 digits, for a constant of 2 characters or more */
	out = malloc(len + 20 * (size_t)c->nr_neg + 1);
	if (!out) {
		fail(c, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	c->p = expr;
	for (;;) {
		if (next_token(c, &t)) {
			free(out);
			return NULL;
		}
		if (t.type == T_END)
			break;
		if (t.type != T_NEGATIVE)
			continue;
		memcpy(out + o, from, t.p - from);
		o += t.p - from;
		o += sprintf(out + o, "%llu", NEG_MARK + k++);
		from = t.p + t.len;
	}
	strcpy(out + o, from);
	if (k != c->nr_neg) {
		free(out);
		fail(c, EINVAL, "%u negative constants found, %u checked", k, c->nr_neg);
		return NULL;
	}
	return out;
}

/* ---- parse(): libtraceevent's filter parser ---- */

/* The message of libtraceevent's error: the last line of what it says. */
static int parse_error(struct tpf *c, struct tep_event_filter *filter, enum tep_errno ret)
{
	char buf[TEP_FILTER_ERROR_BUFSZ + 1], *line;

	if (tep_filter_strerror(filter, ret, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "error %d", ret);
	while (*buf && buf[strlen(buf) - 1] == '\n')
		buf[strlen(buf) - 1] = '\0';
	line = strrchr(buf, '\n');
	return fail(c, EINVAL, "libtraceevent: %s", line ? line + 1 : buf);
}

/* ---- compile(): the tree, as the kernel's program ---- */

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

/* A field the kernel can read: one of the event's, within a record. */
static const struct tep_format_field *record_field(struct tpf *c, struct tep_filter_arg *a)
{
	const struct tep_format_field *f;

	if (!a || a->type != TEP_FILTER_ARG_FIELD || !a->field.field ||
	    a->field.field->event != c->event) {
		fail(c, EINVAL, "libtraceevent's tree compares no field of the record");
		return NULL;
	}
	f = a->field.field;
	if (f->offset < 0 || f->size <= 0 || f->offset + f->size > 0x10000) {
		fail(c, EINVAL, "field '%s' is not within a record", f->name);
		return NULL;
	}
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		fail(c, EOPNOTSUPP, "field '%s' is a dynamic string (%s): not supported", f->name,
		     f->type);
		return NULL;
	}
	return f;
}

static int compile_num(struct tpf *c, struct tep_filter_arg_num *num)
{
	static const struct {
		enum tep_filter_cmp_type	type;
		uint8_t				u, s;
	} ops[] = {
		{ TEP_FILTER_CMP_EQ, KPROF_FILTER_EQ, KPROF_FILTER_EQ },
		{ TEP_FILTER_CMP_NE, KPROF_FILTER_NE, KPROF_FILTER_NE },
		{ TEP_FILTER_CMP_LT, KPROF_FILTER_LT, KPROF_FILTER_SLT },
		{ TEP_FILTER_CMP_LE, KPROF_FILTER_LE, KPROF_FILTER_SLE },
		{ TEP_FILTER_CMP_GT, KPROF_FILTER_GT, KPROF_FILTER_SGT },
		{ TEP_FILTER_CMP_GE, KPROF_FILTER_GE, KPROF_FILTER_SGE },
	};
	const struct tep_format_field *f = record_field(c, num->left);
	struct tep_filter_arg *r = num->right;
	unsigned long long v;
	unsigned int i, bits;
	bool is_signed;

	if (!f)
		return c->ret;
	if (r && r->type == TEP_FILTER_ARG_FIELD)
		return fail(c, EOPNOTSUPP, "comparing two fields ('%s' and '%s') is not supported",
			    f->name, r->field.field ? r->field.field->name : "?");
	if (!r || r->type != TEP_FILTER_ARG_VALUE || r->value.type != TEP_FILTER_NUMBER)
		return fail(c, EINVAL, "libtraceevent's tree compares field '%s' with no number",
			    f->name);
	if (f->flags & TEP_FIELD_IS_ARRAY)
		return fail(c, EOPNOTSUPP, "field '%s' is an array (%s): not supported", f->name,
			    f->type);
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return fail(c, EOPNOTSUPP, "field '%s' has an unsupported size (%d bytes)", f->name,
			    f->size);
	for (i = 0; i < KP_ARRAY_SIZE(ops); i++)
		if (ops[i].type == num->type)
			break;
	if (i == KP_ARRAY_SIZE(ops))
		return fail(c, EINVAL, "libtraceevent's tree has comparison %d", num->type);
	v = r->value.val;
	bits = f->size * 8;
	is_signed = f->flags & TEP_FIELD_IS_SIGNED;
	if (is_signed && v >= NEG_MARK && v - NEG_MARK < c->nr_neg) {
		/* a negative constant: the field's bytes for ==, !=; an s64 for the rest */
		v = (uint64_t)c->neg[v - NEG_MARK];
		if (bits < 64 && (ops[i].s == KPROF_FILTER_EQ || ops[i].s == KPROF_FILTER_NE))
			v &= (1ULL << bits) - 1;
		return emit(c, ops[i].s, f->size, f->offset, v, 1);
	}
	if (is_signed ? v >> (bits - 1) : bits < 64 && v >> bits)
		return fail(c, ERANGE, "constant %llu is out of range for field '%s' (%u-bit %s)",
			    v, f->name, bits, is_signed ? "signed" : "unsigned");
	return emit(c, is_signed ? ops[i].s : ops[i].u, f->size, f->offset, v, 1);
}

static int compile_str(struct tpf *c, struct tep_filter_arg_str *str)
{
	struct tep_filter_arg field = { .type = TEP_FILTER_ARG_FIELD };
	const struct tep_format_field *f;
	unsigned int words, i;
	size_t n;

	if (str->type == TEP_FILTER_CMP_REGEX || str->type == TEP_FILTER_CMP_NOT_REGEX)
		return fail(c, EOPNOTSUPP, "'%s' (a regular expression match) is not supported",
			    str->type == TEP_FILTER_CMP_REGEX ? "=~" : "!~");
	if (str->type != TEP_FILTER_CMP_MATCH && str->type != TEP_FILTER_CMP_NOT_MATCH)
		return fail(c, EINVAL, "libtraceevent's tree has string comparison %d", str->type);
	field.field.field = str->field;
	f = record_field(c, &field);
	if (!f)
		return c->ret;
	if (!field_is_string(f))
		return fail(c, EINVAL, "type mismatch: field '%s' is an integer, \"%s\" is a string",
			    f->name, str->val);
	if (f->size > KPROF_FILTER_STR_MAX)
		return fail(c, EINVAL, "field '%s' is too long to compare (%d bytes, at most %d)",
			    f->name, f->size, KPROF_FILTER_STR_MAX);
	n = strlen(str->val);
	if (n > (size_t)f->size)
		return fail(c, EINVAL, "string \"%s\" is longer than field '%s' (%d bytes)", str->val,
			    f->name, f->size);
	if (strpbrk(str->val, "*?["))
		return fail(c, EINVAL, "wildcards in \"%s\" are not supported", str->val);
	if (emit(c, str->type == TEP_FILTER_CMP_MATCH ? KPROF_FILTER_STR_EQ : KPROF_FILTER_STR_NE,
		 f->size, f->offset, 0, 1))
		return c->ret;
	words = (f->size + 7) / 8;
	for (i = 0; i < words; i++) {
		uint64_t v = 0;
		size_t off = 8 * i;

		if (off < n)
			memcpy(&v, str->val + off, n - off < 8 ? n - off : 8);
		if (emit(c, 0, 0, 0, v, 0))
			return c->ret;
	}
	return 0;
}

static const char *exp_name(enum tep_filter_exp_type type)
{
	static const char * const names[] = {
		[TEP_FILTER_EXP_ADD] = "+", [TEP_FILTER_EXP_SUB] = "-",
		[TEP_FILTER_EXP_MUL] = "*", [TEP_FILTER_EXP_DIV] = "/",
		[TEP_FILTER_EXP_MOD] = "%", [TEP_FILTER_EXP_RSHIFT] = ">>",
		[TEP_FILTER_EXP_LSHIFT] = "<<", [TEP_FILTER_EXP_AND] = "&",
		[TEP_FILTER_EXP_OR] = "|", [TEP_FILTER_EXP_XOR] = "^",
		[TEP_FILTER_EXP_NOT] = "~",
	};

	return (unsigned int)type < KP_ARRAY_SIZE(names) && names[type] ? names[type] : "?";
}

static int compile(struct tpf *c, struct tep_filter_arg *a)
{
	if (!a)
		return fail(c, EINVAL, "libtraceevent's tree misses an operand");
	switch (a->type) {
	case TEP_FILTER_ARG_OP:
		if (a->op.type == TEP_FILTER_OP_NOT) {
			if (compile(c, a->op.right))
				return c->ret;
			return emit(c, KPROF_FILTER_NOT, 0, 0, 0, 0);
		}
		if (a->op.type != TEP_FILTER_OP_AND && a->op.type != TEP_FILTER_OP_OR)
			return fail(c, EINVAL, "libtraceevent's tree has operation %d", a->op.type);
		if (compile(c, a->op.left) || compile(c, a->op.right))
			return c->ret;
		return emit(c, a->op.type == TEP_FILTER_OP_AND ? KPROF_FILTER_AND : KPROF_FILTER_OR,
			    0, 0, 0, -1);
	case TEP_FILTER_ARG_NUM:
		return compile_num(c, &a->num);
	case TEP_FILTER_ARG_STR:
		return compile_str(c, &a->str);
	case TEP_FILTER_ARG_EXP:
		return fail(c, EOPNOTSUPP, "arithmetic ('%s') is not supported", exp_name(a->exp.type));
	case TEP_FILTER_ARG_BOOLEAN:
		return fail(c, EINVAL, "the filter is always %s",
			    a->boolean.value ? "true" : "false");
	default:
		return fail(c, EINVAL, "libtraceevent's tree has a %d where a condition belongs",
			    a->type);
	}
}

int kp_tpfilter__compile(struct tep_event *event, const char *name, const char *expr,
			 struct kprof_filter_insn *insns, unsigned int *nr,
			 struct kp_err *err)
{
	struct tpf c = {
		.event = event, .name = name, .expr = expr, .insns = insns, .err = err,
	};
	struct tep_event_filter *filter;
	struct tep_filter_arg *tree = NULL;
	enum tep_errno ret;
	char *str, *prec;
	int i;

	*nr = 0;
	if (!expr[strspn(expr, " \t\n\r\f\v")])
		return fail(&c, EINVAL, "empty filter");
	if (strlen(expr) > KP_TPFILTER_EXPR_MAX)
		return fail(&c, E2BIG, "too long: more than %d characters", KP_TPFILTER_EXPR_MAX);
	if (check(&c))
		return c.ret;
	prec = with_precedence(&c);
	if (!prec)
		return c.ret;
	if (strlen(prec) > KP_TPFILTER_EXPR_MAX) {
		free(prec);
		return fail(&c, E2BIG, "too long: more than %d characters with the parentheses "
			    "that make '&&' bind tighter than '||'", KP_TPFILTER_EXPR_MAX);
	}

	if (c.nr_neg) {
		str = with_neg_marks(&c, prec);
		free(prec);
		prec = str;
		if (!prec)
			return c.ret;
	}

	/* "SYSTEM/EVENT:EXPR": the filter of the one event of that name */
	i = asprintf(&str, "%s/%s:%s", event->system, event->name, prec);
	free(prec);
	if (i < 0)
		return fail(&c, ENOMEM, "%s", strerror(ENOMEM));
	filter = tep_filter_alloc(event->tep);
	if (!filter) {
		free(str);
		return fail(&c, ENOMEM, "%s", strerror(ENOMEM));
	}
	ret = tep_filter_add_filter_str(filter, str);
	free(str);
	if (ret) {
		parse_error(&c, filter, ret);
	} else {
		for (i = 0; i < filter->filters; i++)
			if (filter->event_filters[i].event_id == event->id)
				tree = filter->event_filters[i].filter;
		if (!compile(&c, tree) && c.depth != 1)
			fail(&c, EINVAL, "libtraceevent's tree leaves %u results", c.depth);
	}
	tep_filter_free(filter);
	if (c.ret)
		return c.ret;
	*nr = c.nr;
	return 0;
}
