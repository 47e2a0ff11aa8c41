// SPDX-License-Identifier: GPL-2.0
/*
 * Per-instruction sample counts and their disassembly: see annotate.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "disasm.h"
#include "srcline.h"
#include "symbols.h"

/* The most bytes of one symbol disassembled (a kallsyms symbol's end is the next one's start). */
#define ANNOTATE_MAX_BYTES	(256U << 10)

static const char * const percent_names[] = {
	[KP_PERCENT_LOCAL_PERIOD]	= "local-period",
	[KP_PERCENT_GLOBAL_PERIOD]	= "global-period",
	[KP_PERCENT_LOCAL_HITS]		= "local-hits",
	[KP_PERCENT_GLOBAL_HITS]	= "global-hits",
};

int kp_percent_type__parse(const char *s, enum kp_percent_type *type)
{
	unsigned int i;

	for (i = 0; i < sizeof(percent_names) / sizeof(percent_names[0]); i++) {
		if (!strcmp(s, percent_names[i])) {
			*type = i;
			return 0;
		}
	}
	return -EINVAL;
}

static struct kp_annotate_sym *annotate__sym(struct kp_annotate *a, const struct kp_sym *sym,
					     unsigned int event)
{
	uint64_t key = ((uint64_t)(uintptr_t)sym << 5) | event;
	struct kp_annotate_sym *s = kp_hmap__get(&a->syms, key), **list;

	if (s)
		return s;
	if (a->nr == a->alloc) {
		size_t n = a->alloc ? 2 * a->alloc : 64;

		list = realloc(a->list, n * sizeof(*list));
		if (!list)
			return NULL;
		a->list = list;
		a->alloc = n;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->sym = sym;
	s->event = event;
	if (kp_hmap__put(&a->syms, key, s)) {
		free(s);
		return NULL;
	}
	a->list[a->nr++] = s;
	return s;
}

int kp_annotate__add(struct kp_annotate *a, unsigned int event, const struct kp_frame *f,
		     uint64_t hits, uint64_t period)
{
	struct kp_annotate_sym *s;
	struct kp_annotate_hit *h;
	uintptr_t slot;

	if (event >= KPROF_MAX_EVENTS)
		return 0;
	a->hits[event] += hits;
	a->period[event] += period;
	if (!f->sym) {
		a->unresolved[event] += hits;
		return 0;
	}
	s = annotate__sym(a, f->sym, event);
	if (!s)
		return -ENOMEM;
	slot = (uintptr_t)kp_hmap__get(&s->index, f->dso_addr + 1);
	if (!slot) {
		if (s->nr_addrs == s->addrs_alloc) {
			size_t n = s->addrs_alloc ? 2 * s->addrs_alloc : 16;

			h = realloc(s->addrs, n * sizeof(*h));
			if (!h)
				return -ENOMEM;
			s->addrs = h;
			s->addrs_alloc = n;
		}
		slot = ++s->nr_addrs;
		s->addrs[slot - 1] = (struct kp_annotate_hit){ .addr = f->dso_addr };
		if (kp_hmap__put(&s->index, f->dso_addr + 1, (void *)slot))
			return -ENOMEM;
	}
	h = &s->addrs[slot - 1];
	h->hits += hits;
	h->period += period;
	s->hits += hits;
	s->period += period;
	return 0;
}

static int sym__cmp(const void *pa, const void *pb)
{
	const struct kp_annotate_sym *a = *(const struct kp_annotate_sym * const *)pa;
	const struct kp_annotate_sym *b = *(const struct kp_annotate_sym * const *)pb;

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	if (a->period != b->period)
		return a->period > b->period ? -1 : 1;
	if (a->hits != b->hits)
		return a->hits > b->hits ? -1 : 1;
	return strcmp(a->sym->name, b->sym->name);
}

void kp_annotate__sort(struct kp_annotate *a)
{
	if (a->nr)
		qsort(a->list, a->nr, sizeof(*a->list), sym__cmp);
}

void kp_annotate__exit(struct kp_annotate *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++) {
		kp_hmap__exit(&a->list[i]->index);
		free(a->list[i]->addrs);
		free(a->list[i]);
	}
	free(a->list);
	kp_hmap__exit(&a->syms);
	memset(a, 0, sizeof(*a));
}

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* @hits and @period of @s's event's or @s's total, as @type says. */
static double annotate__percent(const struct kp_annotate *a, const struct kp_annotate_sym *s,
				enum kp_percent_type type, uint64_t hits, uint64_t period)
{
	switch (type) {
	case KP_PERCENT_GLOBAL_PERIOD:
		return percent(period, a->period[s->event]);
	case KP_PERCENT_LOCAL_HITS:
		return percent(hits, s->hits);
	case KP_PERCENT_GLOBAL_HITS:
		return percent(hits, a->hits[s->event]);
	case KP_PERCENT_LOCAL_PERIOD:
	default:
		return percent(period, s->period);
	}
}

double kp_annotate__share(const struct kp_annotate *a, const struct kp_annotate_sym *s,
			  enum kp_percent_type type)
{
	if (type == KP_PERCENT_LOCAL_HITS || type == KP_PERCENT_GLOBAL_HITS)
		return percent(s->hits, a->hits[s->event]);
	return percent(s->period, a->period[s->event]);
}

static int hit__cmp(const void *pa, const void *pb)
{
	const struct kp_annotate_hit *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* ---- the bytes ---- */

struct code {
	uint8_t		*bytes;
	size_t		len;
	uint64_t	addr;		/* of bytes[0], as printed */
	uint64_t	file_addr;	/* of bytes[0] in ->dso (srcline), 0: none */
	struct kp_dso	*dso;		/* for branch names and source lines */
	bool		kernel;
	struct kp_kernel *k;
};

/* The symbol of @name in @dso (a vmlinux), or NULL. */
static const struct kp_sym *dso__sym_by_name(const struct kp_dso *dso, const char *name)
{
	size_t i;

	for (i = 0; i < dso->nr_syms; i++)
		if (!strcmp(dso->syms[i].name, name))
			return &dso->syms[i];
	return NULL;
}

static int code__read(struct code *c, const struct kp_annotate_sym *s,
		      const struct kp_annotate_opts *o, struct kp_err *err)
{
	const struct kp_sym *sym = s->sym;
	const char *path = sym->dso ? sym->dso->path : NULL;
	uint64_t len = sym->end > sym->start ? sym->end - sym->start : 1, from = sym->start;
	ssize_t n;

	if (len > ANNOTATE_MAX_BYTES)
		len = ANNOTATE_MAX_BYTES;
	c->addr = sym->start;
	c->dso = sym->dso;
	c->kernel = sym->dso && sym->dso->kernel;
	c->k = o->kernel;
	if (c->kernel) {
		bool module = sym->dso->name[0] == '[' && strcmp(sym->dso->name, KP_DSO_KERNEL_NAME);
		const struct kp_sym *vs = NULL;

		path = o->kcore ? o->kcore : "/proc/kcore";
		if (o->vmlinux && !module) {
			vs = dso__sym_by_name(o->vmlinux, sym->name);
			if (!vs) {
				kp_err__set(err, ENOENT, "'%s' is not in the vmlinux %s", sym->name,
					    o->vmlinux->path);
				return -ENOENT;
			}
			path = o->vmlinux->path;
			from = vs->start;
			c->dso = o->vmlinux;
			c->file_addr = vs->start;
		}
	} else {
		c->file_addr = sym->start;
	}
	if (!path) {
		kp_err__set(err, ENOENT, "no file of '%s' to read '%s' from",
			    sym->dso ? sym->dso->name : KP_UNKNOWN, sym->name);
		return -ENOENT;
	}
	c->bytes = malloc(len);
	if (!c->bytes) {
		kp_err__set(err, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	n = kp_elf__read_vaddr(path, from, c->bytes, len);
	if (n <= 0) {
		free(c->bytes);
		c->bytes = NULL;
		if (n == 0)
			n = -EFAULT;
		kp_err__set(err, (int)-n, "cannot read the text of '%s' at %#" PRIx64 " from %s: %s",
			    sym->name, from, path, n == -EFAULT ? "no such address in the file" :
			    strerror((int)-n));
		return (int)n;
	}
	c->len = n;
	return 0;
}

/* Branch target names: the symbol around @addr in the code's DSO or the kernel. */
static const char *code__name(void *arg, uint64_t addr, uint64_t *off)
{
	const struct code *c = arg;
	const struct kp_sym *sym = NULL;

	if (c->kernel && c->k)
		sym = kp_kernel__find(c->k, addr, NULL);
	else if (!c->kernel && c->dso)
		sym = kp_dso__find(c->dso, addr);
	if (!sym)
		return NULL;
	*off = addr - sym->start;
	return sym->name;
}

/* ---- source lines ---- */

#define SRC_FILES	8

struct src_file {
	char		*name;
	char		*text;
	char		**lines;	/* lines[i]: line i + 1 */
	size_t		nr_lines;
};

struct src_cache {
	struct src_file	files[SRC_FILES];
	unsigned int	nr;
};

static struct src_file *src__get(struct src_cache *sc, const char *name)
{
	struct src_file *f;
	unsigned int i;
	size_t len = 0, alloc = 0;
	FILE *fp;
	char *p;

	for (i = 0; i < sc->nr; i++)
		if (!strcmp(sc->files[i].name, name))
			return &sc->files[i];
	if (sc->nr == SRC_FILES)
		return NULL;
	f = &sc->files[sc->nr];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	sc->nr++;
	fp = fopen(name, "re");
	if (!fp)
		return f;
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > alloc) {
			char *t = realloc(f->text, alloc = alloc ? 2 * alloc : 65536);

			if (!t)
				break;
			f->text = t;
		}
		n = fread(f->text + len, 1, alloc - len - 1, fp);
		if (!n)
			break;
		len += n;
	}
	fclose(fp);
	if (!f->text)
		return f;
	f->text[len] = '\0';
	for (p = f->text; *p; ) {
		char *nl = strchr(p, '\n');
		char **lines;

		if (f->nr_lines % 256 == 0) {
			lines = realloc(f->lines, (f->nr_lines + 256) * sizeof(*lines));
			if (!lines)
				break;
			f->lines = lines;
		}
		f->lines[f->nr_lines++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return f;
}

static void src__exit(struct src_cache *sc)
{
	unsigned int i;

	for (i = 0; i < sc->nr; i++) {
		free(sc->files[i].name);
		free(sc->files[i].text);
		free(sc->files[i].lines);
	}
}

/* "         : LINE    text" when @addr starts another source line than the last one. */
static void print_source(FILE *fp, struct src_cache *sc, const struct code *c,
			 const struct kp_annotate_opts *o, uint64_t addr, const char **last_file,
			 int *last_line)
{
	const struct src_file *f;
	const char *file;
	int line;

	if (!o->source || !o->srcline || !c->file_addr || !c->dso || c->dso->kernel ||
	    !kp_srcline__find(o->srcline, c->dso, c->file_addr + (addr - c->addr), &file, &line))
		return;
	if (line == *last_line && *last_file && !strcmp(file, *last_file))
		return;
	*last_file = file;
	*last_line = line;
	f = src__get(sc, file);
	if (f && line > 0 && (size_t)line <= f->nr_lines)
		fprintf(fp, "         : %-4d    %s\n", line, f->lines[line - 1]);
	else
		fprintf(fp, "         : %-4d    %s:%d\n", line, file, line);
}

/* ---- printing ---- */

static const char * const percent_titles[] = {
	[KP_PERCENT_LOCAL_PERIOD]	= "local period",
	[KP_PERCENT_GLOBAL_PERIOD]	= "global period",
	[KP_PERCENT_LOCAL_HITS]		= "local hits",
	[KP_PERCENT_GLOBAL_HITS]	= "global hits",
};

int kp_annotate__print(const struct kp_annotate *a, const struct kp_annotate_sym *s,
		       const struct kp_annotate_opts *o, FILE *fp, struct kp_err *err)
{
	const struct kp_dso *dso = s->sym->dso;
	struct kp_annotate_hit *hits;
	struct src_cache sc = { 0 };
	const char *last_file = NULL;
	struct kp_disasm *dis;
	struct code c = { 0 };
	const uint8_t *p;
	struct kp_insn in;
	uint64_t addr, out_hits = 0;
	size_t left, h = 0;
	int last_line = -1, n, ret;

	ret = code__read(&c, s, o, err);
	if (ret)
		return ret;
	dis = kp_disasm__new();
	hits = malloc((s->nr_addrs ? s->nr_addrs : 1) * sizeof(*hits));
	if (!dis || !hits) {
		kp_err__set(err, errno ? errno : ENOMEM, "cannot start the disassembler");
		kp_disasm__delete(dis);
		free(hits);
		free(c.bytes);
		return -ENOMEM;
	}
	memcpy(hits, s->addrs, s->nr_addrs * sizeof(*hits));
	qsort(hits, s->nr_addrs, sizeof(*hits), hit__cmp);

	n = fprintf(fp, " Percent |\tSource code & Disassembly of %s for %s (%" PRIu64
		    " samples, percent: %s)\n", dso ? dso->short_name : KP_UNKNOWN,
		    o->event_name ? o->event_name : "cpu-clock", s->hits,
		    percent_titles[o->percent_type]);
	for (n += 6; n > 0; n--)	/* the tab is 8 columns wide */
		fputc('-', fp);
	fputc('\n', fp);
	fprintf(fp, "         :\n         :\n         :            %016" PRIx64 " <%s>:\n",
		c.addr, s->sym->name);

	p = c.bytes;
	left = c.len;
	addr = c.addr;
	while (h < s->nr_addrs && hits[h].addr < c.addr)
		out_hits += hits[h++].hits;
	while (kp_disasm__next(dis, &p, &left, &addr, &in, code__name, &c)) {
		uint64_t nh = 0, np = 0;

		for (; h < s->nr_addrs && hits[h].addr < in.addr + in.size; h++) {
			nh += hits[h].hits;
			np += hits[h].period;
		}
		print_source(fp, &sc, &c, o, in.addr, &last_file, &last_line);
		if (o->show_nr)
			fprintf(fp, "%8" PRIu64 " ", nh);
		fprintf(fp, "%8.2f :   %" PRIx64 ":   %s\n",
			annotate__percent(a, s, o->percent_type, nh, np), in.addr, in.text);
	}
	for (; h < s->nr_addrs; h++)
		out_hits += hits[h].hits;
	if (out_hits)
		fprintf(fp, "         : %" PRIu64 " samples outside the %zu bytes disassembled\n",
			out_hits, c.len);
	src__exit(&sc);
	kp_disasm__delete(dis);
	free(hits);
	free(c.bytes);
	return 0;
}
