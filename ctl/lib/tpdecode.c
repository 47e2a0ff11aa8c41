// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint records decoded with libtraceevent; see tpdecode.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "tpdecode.h"
#include "tracefs.h"
#include "util.h"

/*
 * A raw record is at most 64 KiB (a record's size is 16 bits), and so is
 * every field of a usable format.  libtraceevent reads a field at its
 * offset, a __data_loc string at a 16-bit offset and length from its
 * field, a __rel_loc one relative to the end of its field: all within
 * three times that, then a string up to its NUL.  Records are decoded from
 * a copy in a zeroed buffer that big.
 */
#define TP_RAW_MAX		(1U << 16)
#define TP_PAD			(3 * TP_RAW_MAX + 8)
#define TP_FIELDS_MAX		256	/* of a format, common ones included */
#define TP_NEST_MAX		64	/* of (), [] and {} in a format's text */
#define TP_ARG_DEPTH		64	/* of the print format's arguments */

_Static_assert(KP_TP_FORMAT_MAX == KP_DATA_TP_FORMAT_MAX, "format size limits");

struct kp_tpdecode {
	struct tep_handle	*tep;
	struct tep_event	*event[KPROF_MAX_EVENTS];
	bool			info_ok[KPROF_MAX_EVENTS];	/* print format usable */
	char			why[KPROF_MAX_EVENTS][KP_ERR_MSG_MAX];
	const char		*text[KPROF_MAX_EVENTS];	/* the format parsed */
	char			*owned[KPROF_MAX_EVENTS];	/* read from tracefs */
	int			long_size;
	unsigned char		*pad;				/* TP_PAD bytes, zero */
	struct trace_seq	seq;
};

/* A new libtraceevent handle for records of a machine with @long_size longs. */
static struct tep_handle *tep_new(int long_size)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	/* kprof.data is little-endian, as the records are. */
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, tep_is_bigendian() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_page_size(tep, 4096);
	return tep;
}

/* The size of a long on @machine (uname -m), where the records come from. */
static int machine_long_size(const char *machine)
{
	static const char * const bits64[] = {
		"x86_64", "aarch64", "ppc64", "ppc64le", "s390x", "riscv64", "mips64",
		"loongarch64", "sparc64", "alpha", "ia64",
	};
	unsigned int i;

	if (!machine || !machine[0])
		return sizeof(long);
	for (i = 0; i < KP_ARRAY_SIZE(bits64); i++)
		if (!strcmp(machine, bits64[i]))
			return 8;
	return 4;
}

/* Printable ASCII, tabs and newlines, brackets nested at most TP_NEST_MAX deep. */
/*
 * Print formats libtraceevent 1.7.1 cannot parse safely, none of which a
 * 6.1 kernel has (all 1357 formats of the generic guest were checked):
 *  - it folds "ATOM / ATOM" and "ATOM % ATOM" while parsing, and divides by
 *    zero when the right atom reads as 0: a 0 literal, or a bare word such
 *    as "C" in "R/C->irq", which it reads with strtoull().  SIGFPE.
 *  - "sizeof(...)" as an operand is read after it was freed.
 * Refuse, outside string literals, a '/' or '%' whose right operand (past
 * any '(') is a word other than REC or a number that is 0, and any sizeof.
 */
static const char *print_fmt_check(const char *text)
{
	const char *p = strstr(text, "\nprint fmt: "), *q;
	char tok[64];
	bool quoted = false;
	size_t n;

	for (; p && *p; p++) {
		if (quoted) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = false;
			continue;
		}
		if (*p == '"') {
			quoted = true;
			continue;
		}
		if (!strncmp(p, "sizeof", 6) && !isalnum((unsigned char)p[-1]) && p[-1] != '_')
			return "its print format uses sizeof";
		if (*p != '/' && *p != '%')
			continue;
		q = p + 1;
		while (*q == ' ' || *q == '\t' || *q == '(')
			q++;
		for (n = 0; (isalnum((unsigned char)q[n]) || q[n] == '_') && n < sizeof(tok) - 1; n++)
			tok[n] = q[n];
		tok[n] = '\0';
		if (!n || !strcmp(tok, "REC"))
			continue;
		if (!isdigit((unsigned char)tok[0]) || !strtoull(tok, NULL, 0))
			return "its print format divides by zero or by a bare word";
	}
	return NULL;
}

static const char *text_check(const char *text, uint32_t size)
{
	int depth = 0;
	uint32_t i;

	if (size < 2 || size > KP_TP_FORMAT_MAX || text[size - 1])
		return "bad size";
	for (i = 0; i < size - 1; i++) {
		unsigned char c = text[i];

		if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n')
			return "a byte that is not printable ASCII";
		if (c == '(' || c == '[' || c == '{')
			depth++;
		else if ((c == ')' || c == ']' || c == '}') && depth > 0)
			depth--;
		if (depth > TP_NEST_MAX)
			return "nested too deeply";
	}
	return print_fmt_check(text);
}

static bool field_ok(const struct tep_format_field *f)
{
	if (f->offset < 0 || f->size < 0 || (unsigned int)f->offset + f->size > TP_RAW_MAX)
		return false;
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4 && f->size != 2)
		return false;
	return f->name && f->type;
}

static bool fields_ok(struct tep_format_field *f, unsigned int *n, bool *sized)
{
	for (; f; f = f->next) {
		if (++*n > TP_FIELDS_MAX || !field_ok(f))
			return false;
		if (!f->size)
			*sized = false;
	}
	return true;
}

static struct tep_format_field *arg_field(struct tep_event *ev, struct tep_print_arg *a)
{
	if (a->type != TEP_PRINT_FIELD)
		return NULL;
	if (!a->field.field && a->field.name)
		a->field.field = tep_find_any_field(ev, a->field.name);
	return a->field.field;
}

/* A constant of the print format, at most @max; false if not one. */
static bool arg_const(const struct tep_print_arg *a, unsigned long long max,
		      unsigned long long *v)
{
	char *end;

	if (a->type != TEP_PRINT_ATOM || !a->atom.atom)
		return false;
	*v = strtoull(a->atom.atom, &end, 0);
	return end != a->atom.atom && !*end && *v <= max;
}

/* The start of a __print_hex() or __print_array(): a field or a dynamic array. */
static bool arg_base_ok(struct tep_event *ev, struct tep_print_arg *a)
{
	if (a->type == TEP_PRINT_DYNAMIC_ARRAY)
		return !a->dynarray.index;
	return arg_field(ev, a) != NULL;
}

/*
 * Does argument @a read only a bounded part of the record?  libtraceevent
 * evaluates lengths, counts and indexes from the record itself: those of
 * __print_hex(), __print_array() and REC->array[i] must be constants or
 * the length of a __data_loc array.
 */
static bool arg_ok(struct tep_event *ev, struct tep_print_arg *a, int depth)
{
	unsigned long long n, el;

	if (depth > TP_ARG_DEPTH)
		return false;
	switch (a->type) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_ATOM:
	case TEP_PRINT_FIELD:
	case TEP_PRINT_STRING:
	case TEP_PRINT_BSTRING:
	case TEP_PRINT_BITMASK:
	case TEP_PRINT_CPUMASK:
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		return true;
	case TEP_PRINT_DYNAMIC_ARRAY:
		return !a->dynarray.index;
	case TEP_PRINT_FLAGS:
		return !a->flags.field || arg_ok(ev, a->flags.field, depth + 1);
	case TEP_PRINT_SYMBOL:
		return !a->symbol.field || arg_ok(ev, a->symbol.field, depth + 1);
	case TEP_PRINT_TYPE:
		return !a->typecast.item || arg_ok(ev, a->typecast.item, depth + 1);
	case TEP_PRINT_HEX:
	case TEP_PRINT_HEX_STR:
		if (!a->hex.field || !a->hex.size || !arg_base_ok(ev, a->hex.field))
			return false;
		return a->hex.size->type == TEP_PRINT_DYNAMIC_ARRAY_LEN ||
		       arg_const(a->hex.size, TP_RAW_MAX, &n);
	case TEP_PRINT_INT_ARRAY: {
		struct tep_print_arg *c = a->int_array.count;

		if (!a->int_array.field || !c || !a->int_array.el_size ||
		    !arg_base_ok(ev, a->int_array.field) ||
		    !arg_const(a->int_array.el_size, 8, &el) || !el)
			return false;
		if (arg_const(c, TP_RAW_MAX, &n))
			return n * el <= TP_RAW_MAX;
		if (c->type == TEP_PRINT_DYNAMIC_ARRAY_LEN)
			return el == 1;
		/* __get_dynamic_array_len(x) / N, N at least the element size */
		return c->type == TEP_PRINT_OP && c->op.op && !strcmp(c->op.op, "/") &&
		       c->op.left && c->op.left->type == TEP_PRINT_DYNAMIC_ARRAY_LEN &&
		       c->op.right && arg_const(c->op.right, TP_RAW_MAX, &n) && n >= el;
	}
	case TEP_PRINT_OP:
		if (!a->op.op)
			return false;
		if (!strcmp(a->op.op, "[")) {
			struct tep_format_field *f = a->op.left ? arg_field(ev, a->op.left) : NULL;

			return f && f->arraylen && a->op.right &&
			       arg_const(a->op.right, f->arraylen - 1, &n) &&
			       (n + 1) * f->elementsize <= (unsigned int)f->size;
		}
		return (!a->op.left || arg_ok(ev, a->op.left, depth + 1)) &&
		       (!a->op.right || arg_ok(ev, a->op.right, depth + 1));
	case TEP_PRINT_FUNC:
	default:
		return false;
	}
}

static bool args_ok(struct tep_event *ev, struct tep_print_arg *a, int depth)
{
	unsigned int n = 0;

	for (; a; a = a->next)
		if (++n > TP_FIELDS_MAX || !arg_ok(ev, a, depth))
			return false;
	return true;
}

/*
 * Is @ev, parsed from the format of event @s->events[@i], one of it?
 * NULL, or why not.  *@info: its print format may be used too.
 */
static const char *event_check(struct tep_event *ev, const struct kp_event *kev,
			       const char *name, bool *info)
{
	struct tep_format_field *ct;
	unsigned int n = 0;
	bool sized = true;

	*info = false;
	if (!ev->name || strcmp(ev->name, name))
		return "the format is of another event";
	if ((uint64_t)(uint32_t)ev->id != kev->config || ev->id < 0)
		return "the format's ID is not the event's";
	ct = tep_find_common_field(ev, "common_type");
	if (!ct || ct->offset || ct->size != 2)
		return "no 2-byte common_type at offset 0";
	if (!fields_ok(ev->format.common_fields, &n, &sized) ||
	    !fields_ok(ev->format.fields, &n, &sized))
		return "a field beyond 64 KiB, of a bad size, or too many fields";
	/* A format whose print format failed prints "[FAILED TO PARSE]" and its fields. */
	*info = sized && ((ev->flags & TEP_EVENT_FL_FAILED) ||
			  args_ok(ev, ev->print_fmt.args, 0));
	return NULL;
}

/*
 * Does every REC->NAME of the print format of @text name a field?
 * libtraceevent 1.7.1 crashes parsing __print_flags(REC->x ...) of a
 * format without x: its fields are parsed first, without the print format,
 * into a handle of their own.
 */
static const char *print_fields_check(int long_size, const char *text, const char *sys)
{
	static const char pf[] = "\nprint fmt: ";
	struct tep_handle *scratch;
	struct tep_event *ev = NULL;
	const char *p, *fmt, *why = NULL;
	char *head, name[128];
	size_t n;

	fmt = strstr(text, pf);
	if (!fmt)
		return NULL;	/* no print format: nothing to check */
	head = malloc(fmt - text + sizeof(pf) + 4);
	if (!head)
		return strerror(ENOMEM);
	scratch = tep_new(long_size);
	if (!scratch) {
		free(head);
		return strerror(ENOMEM);
	}
	memcpy(head, text, fmt - text);
	strcpy(head + (fmt - text), "\nprint fmt: \"\"\n");
	if (tep_parse_format(scratch, &ev, head, strlen(head), sys) || !ev)
		why = "libtraceevent cannot parse its fields";
	free(head);
	for (p = fmt; !why && (p = strstr(p, "REC->")); p += n) {
		p += 5;
		for (n = 0; isalnum((unsigned char)p[n]) || p[n] == '_'; n++)
			;
		if (!n || n >= sizeof(name)) {
			why = "its print format names a field it does not have";
			break;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		if (!tep_find_any_field(ev, name))
			why = "its print format names a field it does not have";
	}
	tep_free(scratch);
	return why;
}

static void set_why(struct kp_tpdecode *t, unsigned int i, const char *name, const char *why)
{
	snprintf(t->why[i], sizeof(t->why[i]), "%s: %s", name, why);
}

/*
 * Parse the format of event @i: first into a handle of its own, to check
 * it, then, when it is good, into t->tep, which keeps only good formats
 * (tep_print_event() looks events up by the common_type of a record).
 */
static void add_format(struct kp_tpdecode *t, const struct kp_event *evs, unsigned int i,
		       const struct kp_tp_formats *stored)
{
	const struct kp_event *kev = &evs[i];
	char sys[KPROF_EVENT_NAME_MAX], *name;
	struct tep_event *ev = NULL;
	struct tep_handle *scratch;
	const char *text, *why;
	enum tep_errno ret;
	struct kp_err err;
	uint32_t size;
	unsigned int j;
	bool info;

	snprintf(sys, sizeof(sys), "%s", kev->name);
	name = strchr(sys, ':');
	if (!name) {
		set_why(t, i, kev->name, "not SYSTEM:EVENT");
		return;
	}
	*name++ = '\0';
	if (stored && stored->text[i]) {
		text = stored->text[i];
		size = stored->size[i];
	} else if (kp_tracefs__read_format(sys, name, &t->owned[i], &size, &err)) {
		snprintf(t->why[i], sizeof(t->why[i]), "%s", err.msg);
		return;
	} else {
		text = t->owned[i];
	}
	why = text_check(text, size);
	if (why) {
		set_why(t, i, kev->name, why);
		return;
	}
	/* The same tracepoint twice (two -e with other filters): one format. */
	for (j = 0; j < i; j++) {
		if (evs[j].type != PERF_TYPE_TRACEPOINT || evs[j].config != kev->config)
			continue;
		if (!t->text[j] || strcmp(t->text[j], text)) {
			set_why(t, i, kev->name, "another format of the same ID");
			return;
		}
		t->event[i] = t->event[j];
		t->info_ok[i] = t->info_ok[j];
		t->text[i] = text;
		return;
	}

	why = print_fields_check(t->long_size, text, sys);
	if (why) {
		set_why(t, i, kev->name, why);
		return;
	}
	scratch = tep_new(t->long_size);
	if (!scratch) {
		set_why(t, i, kev->name, strerror(ENOMEM));
		return;
	}
	ret = tep_parse_format(scratch, &ev, text, size - 1, sys);
	if (!ev || (ret && !(ev->flags & TEP_EVENT_FL_FAILED)))
		why = "libtraceevent cannot parse it";
	else if (ret && ret != TEP_ERRNO__READ_PRINT_FAILED)
		why = "libtraceevent cannot parse its fields";
	else
		why = event_check(ev, kev, name, &info);
	tep_free(scratch);
	if (why) {
		set_why(t, i, kev->name, why);
		return;
	}
	ev = NULL;
	ret = tep_parse_format(t->tep, &ev, text, size - 1, sys);
	if (!ev) {
		set_why(t, i, kev->name, "libtraceevent cannot parse it");
		return;
	}
	t->event[i] = ev;
	t->info_ok[i] = info;
	t->text[i] = text;
}

struct kp_tpdecode *kp_tpdecode__new_events(const struct kp_event *evs, unsigned int nr,
					    const char *machine,
					    const struct kp_tp_formats *stored)
{
	struct kp_tpdecode *t;
	unsigned int i;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->long_size = machine_long_size(machine);
	t->pad = calloc(1, TP_PAD);
	t->tep = tep_new(t->long_size);
	if (!t->pad || !t->tep) {
		kp_tpdecode__delete(t);
		return NULL;
	}
	/* Not a word on stderr about what it cannot parse: kp_tpdecode__why(). */
	tep_set_loglevel(TEP_LOG_NONE);
	trace_seq_init(&t->seq);
	for (i = 0; i < nr && i < KPROF_MAX_EVENTS; i++)
		if (evs[i].type == PERF_TYPE_TRACEPOINT)
			add_format(t, evs, i, stored);
	return t;
}

struct kp_tpdecode *kp_tpdecode__new(const struct kp_session *s, const char *machine,
				     const struct kp_tp_formats *stored)
{
	return kp_tpdecode__new_events(s->events, s->nr_events, machine, stored);
}

void kp_tpdecode__delete(struct kp_tpdecode *t)
{
	unsigned int i;

	if (!t)
		return;
	if (t->tep) {
		trace_seq_destroy(&t->seq);
		tep_free(t->tep);
	}
	for (i = 0; i < KPROF_MAX_EVENTS; i++)
		free(t->owned[i]);
	free(t->pad);
	free(t);
}

const char *kp_tpdecode__why(const struct kp_tpdecode *t, unsigned int event)
{
	if (event >= KPROF_MAX_EVENTS || t->event[event] || !t->why[event][0])
		return NULL;
	return t->why[event];
}

struct tep_event *kp_tpdecode__event(const struct kp_tpdecode *t, unsigned int event)
{
	return event < KPROF_MAX_EVENTS ? t->event[event] : NULL;
}

/* Event @event's format, @raw copied into t->pad when it is a record of it. */
static struct tep_event *load(struct kp_tpdecode *t, unsigned int event, const void *raw,
			      uint32_t len)
{
	struct tep_event *ev = kp_tpdecode__event(t, event);
	uint16_t type;

	if (!ev || len < 2 || len > TP_RAW_MAX)
		return NULL;
	memcpy(&type, raw, 2);
	if (type != ev->id)
		return NULL;
	memcpy(t->pad, raw, len);
	trace_seq_reset(&t->seq);
	return ev;
}

/* The record is decoded: t->pad zero again, the text terminated. */
static const char *done(struct kp_tpdecode *t, uint32_t len)
{
	memset(t->pad, 0, len);
	trace_seq_terminate(&t->seq);
	return t->seq.state == TRACE_SEQ__GOOD ? t->seq.buffer : NULL;
}

static void put_text(struct trace_seq *s, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n && p[i]; i++)
		trace_seq_putc(s, p[i] > ' ' && p[i] < 0x7f ? p[i] : '.');
}

static void print_fields(struct kp_tpdecode *t, struct tep_event *ev, uint32_t len)
{
	const unsigned char *r = t->pad;
	struct tep_format_field *f;
	unsigned long long v;
	bool first = true;
	int i;

	for (f = ev->format.fields; f; f = f->next) {
		unsigned int off = f->offset, size = f->size;

		if (off + size > len)
			continue;
		trace_seq_printf(&t->seq, "%s%s=", first ? "" : " ", f->name);
		first = false;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if (tep_read_number_field(f, r, &v))
				continue;
			off = v & 0xffff;
			size = f->size == 2 ? len - off : (v >> 16) & 0xffff;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += f->offset + f->size;
			if (off <= len && size <= len - off)
				put_text(&t->seq, r + off, size);
		} else if (f->flags & TEP_FIELD_IS_STRING) {
			put_text(&t->seq, r + off, size);
		} else if ((f->flags & TEP_FIELD_IS_ARRAY) ||
			   (size != 1 && size != 2 && size != 4 && size != 8)) {
			trace_seq_putc(&t->seq, '{');
			for (i = 0; i < (int)size; i++)
				trace_seq_printf(&t->seq, "%s%02x", i ? "," : "", r[off + i]);
			trace_seq_putc(&t->seq, '}');
		} else if (!tep_read_number_field(f, r, &v)) {
			if (f->flags & TEP_FIELD_IS_SIGNED) {
				long long sv = size == 8 ? (long long)v :
					(long long)(v << (64 - 8 * size)) >> (64 - 8 * size);

				trace_seq_printf(&t->seq, "%lld", sv);
			} else {
				trace_seq_printf(&t->seq, "%llu", v);
			}
		}
	}
}

const char *kp_tpdecode__info(struct kp_tpdecode *t, unsigned int event, unsigned int cpu,
			      const void *raw, uint32_t len)
{
	struct tep_record record = { 0 };
	struct tep_event *ev = load(t, event, raw, len);

	if (!ev)
		return NULL;
	if (t->info_ok[event]) {
		record.data = t->pad;
		record.size = len;
		record.cpu = cpu;
		tep_print_event(t->tep, &t->seq, &record, "%s", TEP_PRINT_INFO);
	} else {
		print_fields(t, ev, len);
	}
	return done(t, len);
}

const char *kp_tpdecode__fields(struct kp_tpdecode *t, unsigned int event, const void *raw,
				uint32_t len)
{
	struct tep_event *ev = load(t, event, raw, len);

	if (!ev)
		return NULL;
	print_fields(t, ev, len);
	return done(t, len);
}

