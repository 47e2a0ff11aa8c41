// SPDX-License-Identifier: GPL-2.0
/*
 * perf's Python scripts in an embedded CPython; see pyscript.h.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <linux/perf_event.h>

#include "pyscript.h"
#include "util.h"

#ifndef KP_LIBEXEC_DIR
#define KP_LIBEXEC_DIR	"/usr/local/libexec/kprof"
#endif

/* Where perf's scripts find Core.py: $PERF_EXEC_PATH + this. */
#define TRACE_LIB	"/scripts/python/Perf-Trace-Util/lib/Perf/Trace"

struct kp_pyscript {
	const char		*cmd;
	const char		*path;
	struct kp_decoder	*d;
	struct kp_tpdecode	*tp;
	PyObject		*main_dict;	/* __main__'s, borrowed */
	PyObject		*context;	/* the capsule handlers get */
	bool			stopped;	/* an exception, or sys.exit() */
	int			status;		/* the exit status then */
	bool			defined[KPROF_MAX_EVENTS];	/* its flags and symbols */
	/* the tracepoint record being handled, for common_*(context) */
	struct tep_event	*ev;
	const unsigned char	*raw;
	uint32_t		raw_len;
};

/* The capsule's pointer, the state of the script it belongs to. */
static const char context_name[] = "kprof.script_context";

/*
 * perf_trace_context: common_pc(context), common_flags(context),
 * common_lock_depth(context), a common field of the record being handled,
 * 0 when its format has none, as in perf (common_pc is common_preempt_count).
 */
static PyObject *common_field(PyObject *args, const char *name)
{
	struct kp_pyscript *ps;
	struct tep_format_field *f;
	unsigned long long v;
	PyObject *ctx;

	if (!PyArg_ParseTuple(args, "O", &ctx))
		return NULL;
	ps = PyCapsule_GetPointer(ctx, context_name);
	if (!ps)
		return NULL;
	f = ps->ev ? tep_find_common_field(ps->ev, name) : NULL;
	if (!f || f->offset < 0 || (uint32_t)f->offset + f->size > ps->raw_len ||
	    tep_read_number_field(f, ps->raw, &v))
		return PyLong_FromLong(0);
	return PyLong_FromLong((int)v);
}

static PyObject *ctx_common_pc(PyObject *self, PyObject *args)
{
	(void)self;
	return common_field(args, "common_preempt_count");
}

static PyObject *ctx_common_flags(PyObject *self, PyObject *args)
{
	(void)self;
	return common_field(args, "common_flags");
}

static PyObject *ctx_common_lock_depth(PyObject *self, PyObject *args)
{
	(void)self;
	return common_field(args, "common_lock_depth");
}

static PyMethodDef context_methods[] = {
	{ "common_pc", ctx_common_pc, METH_VARARGS,
	  "The preempt count of the record being handled." },
	{ "common_flags", ctx_common_flags, METH_VARARGS,
	  "The flags (irqs-off, need-resched, ...) of the record being handled." },
	{ "common_lock_depth", ctx_common_lock_depth, METH_VARARGS,
	  "The lock depth of the record being handled (0: its format has none)." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef context_module = {
	PyModuleDef_HEAD_INIT, "perf_trace_context",
	"kprofctl script's context of the sample being handled.", -1, context_methods,
	NULL, NULL, NULL, NULL,
};

static PyObject *context_init(void)
{
	return PyModule_Create(&context_module);
}

/* Does @dir hold perf's Python library (Core.py)? */
static bool has_trace_lib(const char *dir)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s" TRACE_LIB "/Core.py", dir);
	return !access(path, R_OK);
}

/*
 * PERF_EXEC_PATH for the scripts: as set, else perf's own (Debian's
 * /usr/lib/perf-core, or /usr/libexec/perf-core), else kprof's: next to
 * kprofctl (a build tree), else where it is installed.
 */
static void set_exec_path(void)
{
	static const char * const perf_dirs[] = { "/usr/libexec/perf-core", "/usr/lib/perf-core" };
	char exe[PATH_MAX], *slash;
	ssize_t n;
	unsigned int i;

	if (getenv("PERF_EXEC_PATH"))
		return;
	for (i = 0; i < KP_ARRAY_SIZE(perf_dirs); i++) {
		if (has_trace_lib(perf_dirs[i])) {
			setenv("PERF_EXEC_PATH", perf_dirs[i], 1);
			return;
		}
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (has_trace_lib(exe)) {
				setenv("PERF_EXEC_PATH", exe, 1);
				return;
			}
		}
	}
	setenv("PERF_EXEC_PATH", KP_LIBEXEC_DIR, 1);
}

/*
 * The pending exception: its traceback printed, the script stopped.  A
 * SystemExit stops it with its status, as python itself does.
 */
static void stop(struct kp_pyscript *ps, const char *where)
{
	PyObject *type, *value, *tb, *code;

	ps->stopped = true;
	if (!PyErr_ExceptionMatches(PyExc_SystemExit)) {
		PyErr_Print();
		kp_error(ps->cmd, "%s: %s", ps->path, where);
		ps->status = KP_EXIT_FAILURE;
		return;
	}
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	code = value ? PyObject_GetAttrString(value, "code") : NULL;
	PyErr_Clear();
	if (!code || code == Py_None) {
		ps->status = KP_EXIT_OK;
	} else if (PyLong_Check(code)) {
		ps->status = (int)PyLong_AsLong(code) & 0xff;
	} else {
		PyObject_Print(code, stderr, Py_PRINT_RAW);
		fputc('\n', stderr);
		ps->status = KP_EXIT_FAILURE;
	}
	PyErr_Clear();
	Py_XDECREF(code);
	Py_XDECREF(type);
	Py_XDECREF(value);
	Py_XDECREF(tb);
}

/* The script's function @name, borrowed, or NULL when it has none. */
static PyObject *handler(struct kp_pyscript *ps, const char *name)
{
	PyObject *h = PyDict_GetItemString(ps->main_dict, name);

	return h && PyCallable_Check(h) ? h : NULL;
}

/* Call @h(*@args) (@args stolen; NULL: none); false when it raised. */
static bool call(struct kp_pyscript *ps, PyObject *h, const char *name, PyObject *args)
{
	PyObject *ret = PyObject_CallObject(h, args);
	char where[320];

	Py_XDECREF(args);
	if (ret) {
		Py_DECREF(ret);
		return true;
	}
	snprintf(where, sizeof(where), "an exception in %s()", name);
	stop(ps, where);
	return false;
}

/* How many positional parameters @h has (perf: co_argcount); 0 if unknown. */
static int nr_params(PyObject *h)
{
	PyObject *code = PyObject_GetAttrString(h, "__code__"), *n = NULL;
	int ret = 0;

	if (code)
		n = PyObject_GetAttrString(code, "co_argcount");
	if (n)
		ret = (int)PyLong_AsLong(n);
	PyErr_Clear();
	Py_XDECREF(n);
	Py_XDECREF(code);
	return ret;
}

/* d[key] = v, @v stolen (NULL: out of memory, left out). */
static void put(PyObject *d, const char *key, PyObject *v)
{
	if (!v) {
		PyErr_Clear();
		return;
	}
	PyDict_SetItemString(d, key, v);
	Py_DECREF(v);
}

static PyObject *frame_dict(const struct kp_frame *f)
{
	PyObject *d = PyDict_New(), *sym;

	if (!d)
		return NULL;
	put(d, "ip", PyLong_FromUnsignedLongLong(f->addr));
	if (f->sym) {
		sym = PyDict_New();
		if (sym) {
			put(sym, "start", PyLong_FromUnsignedLongLong(f->sym->start));
			put(sym, "end", PyLong_FromUnsignedLongLong(f->sym->end));
			put(sym, "binding", PyLong_FromLong(1));	/* STB_GLOBAL */
			put(sym, "name", PyUnicode_DecodeUTF8(f->sym->name, strlen(f->sym->name),
							      "replace"));
		}
		put(d, "sym", sym);
		put(d, "sym_off", PyLong_FromUnsignedLongLong(f->dso_addr - f->sym->start));
	}
	if (f->dso)
		put(d, "dso", PyUnicode_DecodeUTF8(f->dso->name, strlen(f->dso->name), "replace"));
	return d;
}

/* common_callchain and param_dict['callchain']: the frames, innermost first. */
static PyObject *callchain(const struct kp_resolved *s, unsigned int first, unsigned int last)
{
	PyObject *l = PyList_New(0), *f;
	unsigned int i;

	for (i = first; l && i < last; i++) {
		f = frame_dict(&s->frames[i]);
		if (f) {
			PyList_Append(l, f);
			Py_DECREF(f);
		}
	}
	return l;
}

static PyObject *str(const char *s)
{
	return PyUnicode_DecodeUTF8(s, strlen(s), "replace");
}

/*
 * raw_buf: the record as perf reads it from the kernel's (or kprofctl
 * convert's) PERF_SAMPLE_RAW, zero-padded so that its u32 size and it
 * end on 8 bytes.
 */
static PyObject *raw_bytes(const void *raw, uint32_t len)
{
	uint32_t padded = raw ? ((len + 4 + 7) & ~7U) - 4 : 0;
	PyObject *b = PyBytes_FromStringAndSize(NULL, padded);

	if (b && padded) {
		memset(PyBytes_AS_STRING(b), 0, padded);
		memcpy(PyBytes_AS_STRING(b), raw, len);
	}
	return b;
}

/* perf's param_dict / perf_sample_dict of sample @s, @chain borrowed. */
static PyObject *sample_dict(struct kp_pyscript *ps, const struct kp_resolved *s,
			     PyObject *chain, const void *raw, uint32_t raw_len)
{
	const struct kp_rec_sample *r = s->rec;
	const struct kp_session *se = &ps->d->info.session;
	const struct kp_frame *f = s->nr_frames && s->frames[0].addr == r->ip ? &s->frames[0] : NULL;
	struct perf_event_attr attr = { 0 };
	PyObject *d = PyDict_New(), *smp = PyDict_New();

	if (!d || !smp) {
		Py_XDECREF(d);
		Py_XDECREF(smp);
		return NULL;
	}
	if (r->event < se->nr_events) {
		attr.type = se->events[r->event].type;
		attr.config = se->events[r->event].config;
		attr.sample_period = se->events[r->event].period ? se->events[r->event].period :
				     se->period;
	}
	attr.size = sizeof(attr);
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD | (r->nr_kernel + r->nr_user ? PERF_SAMPLE_CALLCHAIN : 0) |
			   (raw ? PERF_SAMPLE_RAW : 0);
	put(d, "ev_name", str(kp_decoder__event_name(ps->d, r->event)));
	put(d, "attr", PyBytes_FromStringAndSize((const char *)&attr, sizeof(attr)));
	put(smp, "pid", PyLong_FromLong(r->pid));
	put(smp, "tid", PyLong_FromLong(r->tid));
	put(smp, "cpu", PyLong_FromLong(r->cpu));
	put(smp, "ip", PyLong_FromUnsignedLongLong(r->ip));
	put(smp, "time", PyLong_FromUnsignedLongLong(r->time));
	put(smp, "period", PyLong_FromUnsignedLongLong(r->period));
	put(smp, "phys_addr", PyLong_FromLong(0));
	put(smp, "addr", PyLong_FromLong(0));
	put(smp, "weight", PyLong_FromLong(0));
	put(smp, "transaction", PyLong_FromLong(0));
	put(smp, "cpumode", PyLong_FromLong(r->header.misc & KPROF_MISC_KERNEL ?
					    PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER));
	put(d, "sample", smp);
	put(d, "raw_buf", raw_bytes(raw, raw_len));
	put(d, "comm", str(s->comm));
	if (f && f->dso) {
		char hex[2 * KP_BUILD_ID_MAX + 1];

		put(d, "dso", str(f->dso->name));
		put(d, "dso_bid", str(f->dso->build_id_len ?
				      kp_dso__build_id_hex(f->dso, hex, sizeof(hex)) : ""));
	}
	if (f && f->sym) {
		put(d, "symbol", str(f->sym->name));
		put(d, "symoff", PyLong_FromUnsignedLongLong(f->dso_addr - f->sym->start));
	}
	Py_INCREF(chain);
	put(d, "callchain", chain);
	put(d, "brstack", PyList_New(0));
	put(d, "brstacksym", PyList_New(0));
	return d;
}

/* Is [p, p + n) a NUL-terminated printable string (perf's test for str)? */
static bool printable(const unsigned char *p, uint32_t n)
{
	uint32_t i;

	if (!n || p[n - 1])
		return false;
	for (i = 0; i < n - 1 && p[i]; i++)
		if (!isprint(p[i]) && !isspace(p[i]))
			return false;
	return true;
}

/*
 * Field @f of the record, as perf hands it to scripts: an int, a str for
 * a printable char array or __data_loc string, else a bytearray; None
 * when the record is too short for it.
 */
static PyObject *field_value(const struct tep_format_field *f, const unsigned char *raw,
			     uint32_t len)
{
	unsigned long long v;
	uint32_t off = f->offset, size = f->size;

	if (f->offset < 0 || off + size > len)
		Py_RETURN_NONE;
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			if (tep_read_number_field((struct tep_format_field *)f, raw, &v))
				Py_RETURN_NONE;
			off = v & 0xffff;
			size = f->size == 4 ? (v >> 16) & 0xffff : len - off;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off += f->offset + f->size;
			if (off > len || size > len - off)
				Py_RETURN_NONE;
		}
		if ((f->flags & TEP_FIELD_IS_STRING) && printable(raw + off, size))
			return PyUnicode_DecodeLatin1((const char *)raw + off,
						      strlen((const char *)raw + off), NULL);
		return PyByteArray_FromStringAndSize((const char *)raw + off, size);
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return PyByteArray_FromStringAndSize((const char *)raw + off, size);
	if (tep_read_number_field((struct tep_format_field *)f, raw, &v))
		Py_RETURN_NONE;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		long long sv = size == 8 ? (long long)v :
			       (long long)(v << (64 - 8 * size)) >> (64 - 8 * size);

		return PyLong_FromLongLong(sv);
	}
	return PyLong_FromUnsignedLongLong(v);
}

/* Call the script's @fn(@a, @b, @c[, @d]) if it has it (Core.py's define_*()). */
static void define(struct kp_pyscript *ps, const char *fn, const char *ev, const char *field,
		   PyObject *c, PyObject *d)
{
	PyObject *h = handler(ps, fn), *args;

	if (!h || ps->stopped || !field) {
		Py_XDECREF(c);
		Py_XDECREF(d);
		return;
	}
	args = d ? Py_BuildValue("(ssNN)", ev, field, c, d) :
		   c ? Py_BuildValue("(ssN)", ev, field, c) : Py_BuildValue("(ss)", ev, field);
	if (args)
		call(ps, h, fn, args);
	else
		PyErr_Clear();
}

/* A flag's or symbol's value, as perf reads it ("0x1", or a softirq's name). */
static unsigned long long flag_value(const char *s)
{
	static const char * const names[] = {
		"HI_SOFTIRQ", "TIMER_SOFTIRQ", "NET_TX_SOFTIRQ", "NET_RX_SOFTIRQ", "BLOCK_SOFTIRQ",
		"IRQ_POLL_SOFTIRQ", "TASKLET_SOFTIRQ", "SCHED_SOFTIRQ", "HRTIMER_SOFTIRQ",
		"RCU_SOFTIRQ",
	};
	unsigned int i;

	if (isdigit((unsigned char)*s))
		return strtoull(s, NULL, 0);
	for (i = 0; i < KP_ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i]))
			return i;
	if (!strcmp(s, "HRTIMER_RESTART"))
		return 1;
	return 0;
}

/*
 * The __print_flags() and __print_symbolic() tables of a print format
 * handed to the script's define_flag_field(), define_flag_value(),
 * define_symbolic_field() and define_symbolic_value() (Core.py's), which
 * flag_str() and symbol_str() read, before its first record.  @field: the
 * name of the last field seen, which the tables are of; as in perf, an
 * atom (a ?: branch's constant) is the text of flag value 0.
 */
static void define_symbols(struct kp_pyscript *ps, const char *ev, struct tep_print_arg *a,
			   const char **field, int depth)
{
	struct tep_print_flag_sym *fs;
	bool flags;

	for (; a && depth < 64 && !ps->stopped; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_ATOM:
			if (a->atom.atom)
				define(ps, "define_flag_value", ev, *field, PyLong_FromLong(0),
				       str(a->atom.atom));
			break;
		case TEP_PRINT_FIELD:
			*field = a->field.name;
			break;
		case TEP_PRINT_FLAGS:
		case TEP_PRINT_SYMBOL:
			flags = a->type == TEP_PRINT_FLAGS;
			define_symbols(ps, ev, flags ? a->flags.field : a->symbol.field, field,
				       depth + 1);
			if (flags)
				define(ps, "define_flag_field", ev, *field,
				       str(a->flags.delim ? a->flags.delim : ""), NULL);
			else
				define(ps, "define_symbolic_field", ev, *field, NULL, NULL);
			for (fs = flags ? a->flags.flags : a->symbol.symbols; fs; fs = fs->next)
				define(ps, flags ? "define_flag_value" : "define_symbolic_value", ev,
				       *field, PyLong_FromUnsignedLongLong(flag_value(fs->value)),
				       str(fs->str ? fs->str : ""));
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			define_symbols(ps, ev, a->hex.field, field, depth + 1);
			define_symbols(ps, ev, a->hex.size, field, depth + 1);
			break;
		case TEP_PRINT_INT_ARRAY:
			define_symbols(ps, ev, a->int_array.field, field, depth + 1);
			define_symbols(ps, ev, a->int_array.count, field, depth + 1);
			define_symbols(ps, ev, a->int_array.el_size, field, depth + 1);
			break;
		case TEP_PRINT_TYPE:
			define_symbols(ps, ev, a->typecast.item, field, depth + 1);
			break;
		case TEP_PRINT_OP:
			define_symbols(ps, ev, a->op.left, field, depth + 1);
			define_symbols(ps, ev, a->op.right, field, depth + 1);
			break;
		default:
			break;
		}
	}
}

/* A tracepoint sample: its SYSTEM__EVENT() handler, else trace_unhandled(). */
static int tracepoint(struct kp_pyscript *ps, const struct kp_resolved *s, unsigned int first,
		      unsigned int last)
{
	const struct kp_rec_sample *r = s->rec;
	struct tep_event *ev = kp_tpdecode__event(ps->tp, r->event);
	const char *fn = "trace_unhandled";
	struct tep_format_field *f;
	PyObject *h, *args = NULL, *fields = NULL, *chain;
	const unsigned char *raw = NULL;
	unsigned long long pid = r->pid;
	char name[512];
	uint32_t len = 0;
	Py_ssize_t n = 0, nr;
	bool ok;

	if (r->header.misc & KPROF_MISC_RAW)
		raw = kp_sample__raw(r, r->header.size, r->nr_kernel + r->nr_user, &len);
	if (!ev || !raw || len < 2 || raw[0] != (ev->id & 0xff) || raw[1] != ((ev->id >> 8) & 0xff))
		return 0;	/* no format, or not a record of it: nothing to decode */
	snprintf(name, sizeof(name), "%s__%s", ev->system, ev->name);
	if (r->event < KPROF_MAX_EVENTS && !ps->defined[r->event]) {
		const char *field = NULL;

		ps->defined[r->event] = true;
		define_symbols(ps, name, ev->print_fmt.args, &field, 0);
		if (ps->stopped)
			return -1;
	}
	h = handler(ps, name);
	if (h)
		fn = name;
	else if (!(h = handler(ps, fn)))
		return 0;
	f = tep_find_common_field(ev, "common_pid");
	if (f && f->offset >= 0 && (uint32_t)f->offset + f->size <= len)
		tep_read_number_field(f, raw, &pid);
	nr = 8 + 2;
	for (f = ev->format.fields; f; f = f->next)
		nr++;
	chain = callchain(s, first, last);
	args = PyTuple_New(nr);
	if (!chain || !args)
		goto nomem;
	PyTuple_SET_ITEM(args, n++, str(name));
	Py_INCREF(ps->context);
	PyTuple_SET_ITEM(args, n++, ps->context);
	if (fn == name) {
		PyTuple_SET_ITEM(args, n++, PyLong_FromLong(r->cpu));
		PyTuple_SET_ITEM(args, n++, PyLong_FromUnsignedLongLong(r->time / 1000000000ULL));
		PyTuple_SET_ITEM(args, n++, PyLong_FromUnsignedLongLong(r->time % 1000000000ULL));
		PyTuple_SET_ITEM(args, n++, PyLong_FromLong((int)pid));
		PyTuple_SET_ITEM(args, n++, str(s->comm));
		Py_INCREF(chain);
		PyTuple_SET_ITEM(args, n++, chain);
		for (f = ev->format.fields; f; f = f->next)
			PyTuple_SET_ITEM(args, n++, field_value(f, raw, len));
	} else {
		fields = PyDict_New();
		if (!fields)
			goto nomem;
		put(fields, "common_cpu", PyLong_FromLong(r->cpu));
		put(fields, "common_s", PyLong_FromUnsignedLongLong(r->time / 1000000000ULL));
		put(fields, "common_ns", PyLong_FromUnsignedLongLong(r->time % 1000000000ULL));
		put(fields, "common_pid", PyLong_FromLong((int)pid));
		put(fields, "common_comm", str(s->comm));
		Py_INCREF(chain);
		put(fields, "common_callchain", chain);
		for (f = ev->format.fields; f; f = f->next)
			put(fields, f->name, field_value(f, raw, len));
		PyTuple_SET_ITEM(args, n++, fields);
	}
	/* one parameter more: perf_sample_dict */
	if (nr_params(h) == n + 1)
		PyTuple_SET_ITEM(args, n++, sample_dict(ps, s, chain, raw, len));
	Py_DECREF(chain);
	chain = NULL;
	if (_PyTuple_Resize(&args, n))
		goto nomem;
	ps->ev = ev;
	ps->raw = raw;
	ps->raw_len = len;
	ok = call(ps, h, fn, args);
	ps->ev = NULL;
	ps->raw = NULL;
	return ok ? 0 : -1;
nomem:
	Py_XDECREF(chain);
	Py_XDECREF(args);
	PyErr_NoMemory();
	stop(ps, "out of memory");
	return -1;
}

int kp_pyscript__sample(struct kp_pyscript *ps, const struct kp_resolved *s,
			unsigned int first, unsigned int last)
{
	const struct kp_rec_sample *r = s->rec;
	const struct kp_session *se = &ps->d->info.session;
	PyObject *h, *chain, *dict;
	const void *raw = NULL;
	uint32_t len = 0;

	if (ps->stopped)
		return -1;
	if (r->event < se->nr_events && se->events[r->event].type == PERF_TYPE_TRACEPOINT)
		return tracepoint(ps, s, first, last);
	h = handler(ps, "process_event");
	if (!h)
		return 0;
	if (r->header.misc & KPROF_MISC_RAW)
		raw = kp_sample__raw(r, r->header.size, r->nr_kernel + r->nr_user, &len);
	chain = callchain(s, first, last);
	dict = chain ? sample_dict(ps, s, chain, raw, len) : NULL;
	Py_XDECREF(chain);
	if (!dict) {
		PyErr_NoMemory();
		stop(ps, "out of memory");
		return -1;
	}
	return call(ps, h, "process_event", Py_BuildValue("(N)", dict)) ? 0 : -1;
}

/* Run the file: compiled as __main__, so that its functions are there. */
static bool run_file(struct kp_pyscript *ps)
{
	PyObject *code, *ret, *main_mod;
	char *text = NULL;
	size_t len = 0, n;
	FILE *fp;

	fp = fopen(ps->path, "r");
	if (!fp) {
		kp_error(ps->cmd, "cannot open the script %s: %s", ps->path, strerror(errno));
		ps->status = KP_EXIT_FAILURE;
		return false;
	}
	for (;;) {
		char *t = realloc(text, len + 65536 + 1);

		if (!t) {
			free(text);
			fclose(fp);
			kp_error(ps->cmd, "%s: %s", ps->path, strerror(ENOMEM));
			ps->status = KP_EXIT_FAILURE;
			return false;
		}
		text = t;
		n = fread(text + len, 1, 65536, fp);
		len += n;
		if (n < 65536)
			break;
	}
	fclose(fp);
	text[len] = '\0';
	main_mod = PyImport_AddModule("__main__");
	ps->main_dict = main_mod ? PyModule_GetDict(main_mod) : NULL;
	if (!ps->main_dict) {
		free(text);
		stop(ps, "no __main__ module");
		return false;
	}
	put(ps->main_dict, "__file__", str(ps->path));
	code = Py_CompileString(text, ps->path, Py_file_input);
	free(text);
	if (!code) {
		stop(ps, "the script does not compile");
		return false;
	}
	ret = PyEval_EvalCode(code, ps->main_dict, ps->main_dict);
	Py_DECREF(code);
	if (!ret) {
		stop(ps, "an exception while the script was loaded");
		return false;
	}
	Py_DECREF(ret);
	return true;
}

/* sys.path[0]: the script's directory, as python SCRIPT has it. */
static void set_sys_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	PyObject *sys_path = PySys_GetObject("path"), *dir;

	if (!sys_path || !PyList_Check(sys_path))
		return;
	dir = slash ? PyUnicode_DecodeFSDefaultAndSize(path, slash == path ? 1 : slash - path) :
		      PyUnicode_FromString("");
	if (dir) {
		PyList_Insert(sys_path, 0, dir);
		Py_DECREF(dir);
	}
	PyErr_Clear();
}

struct kp_pyscript *kp_pyscript__start(const char *cmd, const char *path, int argc,
				       const char **argv, struct kp_decoder *d,
				       struct kp_tpdecode *tp, int *rc)
{
	static bool inittab;
	struct kp_pyscript *ps;
	PyConfig config;
	PyStatus st;
	char **args;
	PyObject *h, *mod;
	int i;

	if (access(path, R_OK)) {
		kp_error(cmd, "cannot open the script %s: %s", path, strerror(errno));
		*rc = KP_EXIT_FAILURE;
		return NULL;
	}
	ps = calloc(1, sizeof(*ps));
	args = calloc(argc + 2, sizeof(*args));
	if (!ps || !args) {
		free(ps);
		free(args);
		kp_error(cmd, "%s", strerror(ENOMEM));
		*rc = KP_EXIT_FAILURE;
		return NULL;
	}
	ps->cmd = cmd;
	ps->path = path;
	ps->d = d;
	ps->tp = tp;
	set_exec_path();
	if (!inittab) {
		/* once per process: the table outlives Py_FinalizeEx() */
		PyImport_AppendInittab("perf_trace_context", context_init);
		inittab = true;
	}
	PyConfig_InitPythonConfig(&config);
	config.parse_argv = 0;
	args[0] = (char *)path;
	for (i = 0; i < argc; i++)
		args[i + 1] = (char *)argv[i];
	st = PyConfig_SetBytesArgv(&config, argc + 1, args);
	free(args);
	if (!PyStatus_Exception(st))
		st = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(st)) {
		kp_error(cmd, "cannot start Python: %s", st.err_msg ? st.err_msg : "?");
		free(ps);
		*rc = KP_EXIT_FAILURE;
		return NULL;
	}
	set_sys_path(path);
	ps->context = PyCapsule_New(ps, context_name, NULL);
	mod = PyImport_ImportModule("perf_trace_context");
	if (!ps->context || !mod) {
		stop(ps, "cannot set up perf_trace_context");
		Py_XDECREF(mod);
		*rc = kp_pyscript__end(ps, false);
		return NULL;
	}
	PyModule_AddObjectRef(mod, "perf_script_context", ps->context);
	Py_DECREF(mod);
	if (!run_file(ps)) {
		*rc = kp_pyscript__end(ps, false);
		return NULL;
	}
	PyDict_SetItemString(ps->main_dict, "perf_script_context", ps->context);
	h = handler(ps, "trace_begin");
	if (h && !call(ps, h, "trace_begin", NULL)) {
		*rc = kp_pyscript__end(ps, false);
		return NULL;
	}
	return ps;
}

int kp_pyscript__end(struct kp_pyscript *ps, bool ok)
{
	PyObject *h;
	int status;

	if (ok && !ps->stopped) {
		h = handler(ps, "trace_end");
		if (h)
			call(ps, h, "trace_end", NULL);
	}
	status = ps->stopped ? ps->status : ok ? KP_EXIT_OK : KP_EXIT_FAILURE;
	Py_XDECREF(ps->context);
	/* what the script printed, before the interpreter goes */
	if (Py_FinalizeEx() < 0 && status == KP_EXIT_OK)
		status = KP_EXIT_FAILURE;
	free(ps);
	return status;
}

/* ---- script -g python ---- */

static int cmp_id(const void *a, const void *b)
{
	const struct tep_event *x = *(struct tep_event * const *)a;
	const struct tep_event *y = *(struct tep_event * const *)b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Is @f's value shown through flag_str() or symbol_str(), or as text? */
static const char *field_conv(const struct tep_format_field *f)
{
	if (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_FLAG |
			TEP_FIELD_IS_SYMBOLIC))
		return "%s";
	return f->flags & TEP_FIELD_IS_SIGNED ? "%d" : "%u";
}

static void gen_handler(FILE *fp, const struct tep_event *ev)
{
	const struct tep_format_field *f;
	int n;

	fprintf(fp, "def %s__%s(event_name, context, common_cpu,\n", ev->system, ev->name);
	fprintf(fp, "\tcommon_secs, common_nsecs, common_pid, common_comm,\n\tcommon_callchain, ");
	for (f = ev->format.fields, n = 0; f; f = f->next, n++)
		fprintf(fp, "%s%s, ", n && n % 4 == 0 ? "\n\t" : "", f->name);
	fprintf(fp, "perf_sample_dict):\n");
	fprintf(fp, "\t\"\"\"A record of %s:%s.\"\"\"\n", ev->system, ev->name);
	fprintf(fp, "\tprint_header(event_name, common_cpu, common_secs, common_nsecs,\n");
	fprintf(fp, "\t\tcommon_pid, common_comm)\n");
	fprintf(fp, "\tprint(\"");
	for (f = ev->format.fields, n = 0; f; f = f->next, n++)
		fprintf(fp, "%s%s=%s", n ? " " : "", f->name, field_conv(f));
	fprintf(fp, "\" %% (");
	for (f = ev->format.fields, n = 0; f; f = f->next, n++) {
		fprintf(fp, "%s", n ? ",\n\t\t" : "");
		if (f->flags & TEP_FIELD_IS_FLAG)
			fprintf(fp, "flag_str(\"%s__%s\", \"%s\", %s)", ev->system, ev->name,
				f->name, f->name);
		else if (f->flags & TEP_FIELD_IS_SYMBOLIC)
			fprintf(fp, "symbol_str(\"%s__%s\", \"%s\", %s)", ev->system, ev->name,
				f->name, f->name);
		else
			fprintf(fp, "%s", f->name);
	}
	fprintf(fp, "%s))\n", n == 1 ? "," : "");
	fprintf(fp, "\tprint_chain(common_callchain)\n\n");
}

int kp_pyscript__generate(const char *cmd, const char *file, const struct kp_decoder *d,
			  const struct kp_tpdecode *tp)
{
	const struct kp_session *s = &d->info.session;
	struct tep_event *evs[KPROF_MAX_EVENTS];
	unsigned int i, j, nr = 0;
	FILE *fp;

	for (i = 0; i < s->nr_events && i < KPROF_MAX_EVENTS; i++) {
		struct tep_event *ev = kp_tpdecode__event(tp, i);

		if (!ev)
			continue;
		for (j = 0; j < nr && evs[j] != ev; j++)
			;
		if (j == nr)
			evs[nr++] = ev;
	}
	qsort(evs, nr, sizeof(evs[0]), cmp_id);
	fp = fopen(file, "w");
	if (!fp) {
		kp_error(cmd, "cannot write %s: %s", file, strerror(errno));
		return KP_EXIT_FAILURE;
	}
	fprintf(fp, "# A kprofctl script (kprofctl script -g python) for the events of %s:\n",
		d->path);
	fprintf(fp, "# run it with 'kprofctl script -s %s' (or 'perf script -s' on the\n", file);
	fprintf(fp, "# recording converted with 'kprofctl convert').\n#\n");
	fprintf(fp, "# A tracepoint's record goes to the function named SYSTEM__EVENT, its\n");
	fprintf(fp, "# fields as parameters after the common_* ones; a tracepoint without one\n");
	fprintf(fp, "# to trace_unhandled(), any other sample to process_event().  Other\n");
	fprintf(fp, "# common fields: common_pc(context), common_flags(context),\n");
	fprintf(fp, "# common_lock_depth(context).  See Documentation/decoding.rst.\n\n");
	fprintf(fp, "import os\nimport sys\n\n");
	fprintf(fp, "sys.path.append(os.environ['PERF_EXEC_PATH'] + \\\n");
	fprintf(fp, "\t'" TRACE_LIB "')\n\n");
	fprintf(fp, "from perf_trace_context import *\nfrom Core import *\n\n\n");
	fprintf(fp, "def trace_begin():\n\tprint(\"in trace_begin\")\n\n");
	fprintf(fp, "def trace_end():\n\tprint(\"in trace_end\")\n\n");
	for (i = 0; i < nr; i++)
		gen_handler(fp, evs[i]);
	fprintf(fp, "def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):\n");
	fprintf(fp, "\tprint(event_name, fields_str(event_fields_dict))\n\n");
	fprintf(fp, "def process_event(param_dict):\n");
	fprintf(fp, "\tsample = param_dict['sample']\n");
	fprintf(fp, "\tprint_header(param_dict['ev_name'], sample['cpu'],\n");
	fprintf(fp, "\t\tsample['time'] // 1000000000, sample['time'] %% 1000000000,\n");
	fprintf(fp, "\t\tsample['pid'], param_dict['comm'])\n");
	fprintf(fp, "\tprint(\"period=%%u %%s\" %% (sample['period'],\n");
	fprintf(fp, "\t\tparam_dict.get('symbol', '[unknown]')))\n");
	fprintf(fp, "\tprint_chain(param_dict['callchain'])\n\n");
	fprintf(fp, "def print_header(event_name, cpu, secs, nsecs, pid, comm):\n");
	fprintf(fp, "\tprint(\"%%-24s %%3u %%5u.%%09u %%7u %%-16s \" %%\n");
	fprintf(fp, "\t\t(event_name, cpu, secs, nsecs, pid, comm), end=\"\")\n\n");
	fprintf(fp, "def print_chain(chain):\n");
	fprintf(fp, "\tfor frame in chain:\n");
	fprintf(fp, "\t\tname = frame['sym']['name'] if 'sym' in frame else '[unknown]'\n");
	fprintf(fp, "\t\tprint(\"\\t%%16x %%s (%%s)\" %% (frame['ip'], name,\n");
	fprintf(fp, "\t\t\tframe.get('dso', '[unknown]')))\n\n");
	fprintf(fp, "def fields_str(fields):\n");
	fprintf(fp, "\treturn ' '.join('%%s=%%s' %% (k, fields[k]) for k in sorted(fields)\n");
	fprintf(fp, "\t\tif k != 'common_callchain')\n");
	if (fclose(fp)) {
		kp_error(cmd, "cannot write %s: %s", file, strerror(errno));
		return KP_EXIT_FAILURE;
	}
	fprintf(stderr, "kprofctl script: wrote %s, a handler for each of its %u tracepoints\n",
		file, nr);
	return KP_EXIT_OK;
}
