// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl report [-i <file> | --live] [--sort keys] [-g [caller|callee]] [<options>]
 *
 * Where the samples are, in the layout of 'perf report --stdio': a header
 * with the samples and lost samples, then one section per event, one line
 * per histogram entry (the combination of the --sort keys), largest first:
 *
 *	# Overhead  Command  Shared Object      Symbol
 *	# ........  .......  .................  ..............
 *	#
 *	    72.99%  hot      hot                [.] spin
 *
 * and with -g the call graph of each entry below it, perf's "graph"
 * layout: callee order (from the sampled function to its callers) by
 * default, caller order with -g caller; branches below 0.5% of the event's
 * total are hidden.  Percentages are of the event's samples that pass the
 * filters, weighted by period.  With --children (perf's default with -g,
 * not kprofctl's), a "Children" column before the "Self" one: each entry
 * also counts the samples with it anywhere in their chain (once a sample),
 * and its call graph is that of the chains from it on.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/hmap.h"
#include "lib/parse-options.h"
#include "lib/srcline.h"
#include "lib/tui.h"
#include "lib/util.h"

static const char * const report_usage[] = {
	"kprofctl report [-i <file> | --live] [--sort <keys>] [-g [caller|callee]] [<options>]",
	"",
	"Show where the samples of kprof.data are, like 'perf report --stdio':",
	"one section per event, one line per entry of the --sort keys (default",
	"comm,dso,symbol), largest first; with -g the call graph of each entry.",
	"With --live, of the aggregation tables of the running session ('kprofctl",
	"start'), user frames named while the processes live.  On a terminal (or",
	"with --tui), the same entries in a full-screen browser, like perf's TUI:",
	"arrows move, Enter unfolds the call graph, / filters, a annotates, h helps,",
	"q quits; --stdio prints the text.",
	NULL
};

enum sort_key {
	SORT_COMM,
	SORT_DSO,
	SORT_SYM,
	SORT_PID,
	SORT_TID,
	SORT_CPU,
	SORT_SRCLINE,
	SORT_PERIOD,
	SORT_PARENT,
	SORT_NR
};

/* perf's default --parent: system calls and page faults */
#define PARENT_DEFAULT	"^sys_|^do_page_fault"
#define PARENT_OTHER	"[other]"
#define SRCLINE_UNKNOWN	"??:0"
#define MAX_STACK_DEFAULT	127

static const struct {
	const char	*name;
	const char	*header;
} sort_keys[SORT_NR] = {
	[SORT_COMM]	= { "comm", "Command" },
	[SORT_DSO]	= { "dso", "Shared Object" },
	[SORT_SYM]	= { "symbol", "Symbol" },
	[SORT_PID]	= { "pid", "Pid" },
	[SORT_TID]	= { "tid", "Tid" },
	[SORT_CPU]	= { "cpu", "CPU" },
	[SORT_SRCLINE]	= { "srcline", "Source:Line" },
	[SORT_PERIOD]	= { "period", "Period" },
	[SORT_PARENT]	= { "parent", "Parent symbol" },
};

#define SORT_KEY_NAMES	"comm, dso, symbol, pid, tid, cpu, srcline, period, parent"

/* A call graph node: one function (or unknown address) of a chain. */
struct cg_node {
	const struct kp_dso	*dso;
	const struct kp_sym	*sym;
	uint64_t		addr;		/* dso_addr, for an unknown frame */
	bool			kernel;
	uint64_t		period;
	struct cg_node		*child;		/* first child */
	struct cg_node		*next;		/* sibling */
};

struct hist_entry {
	uint64_t		hash;
	bool			used;
	uint16_t		event;
	const char		*comm;
	const struct kp_dso	*dso;
	const struct kp_sym	*sym;
	uint64_t		addr;
	bool			kernel;
	uint32_t		pid, tid, cpu;
	const char		*srcline;	/* "file:line", interned */
	const char		*parent;	/* the --parent match, interned */
	uint64_t		period;		/* self */
	uint64_t		samples;
	uint64_t		children;	/* --children: with it in the chain */
	uint64_t		seen;		/* --children: the last sample counted */
	struct cg_node		root;		/* children: the chains */
};

struct node_chunk {
	struct node_chunk	*next;
	size_t			used;
	struct cg_node		nodes[4096];
};

/* A string kept once: entries compare the pointers. */
struct intern_str {
	struct intern_str	*next;		/* same hash */
	char			s[];
};

/* -T: a thread's period per event */
struct thread_stat {
	uint32_t		pid, tid;
	uint64_t		period[KPROF_MAX_EVENTS];
};

struct report {
	struct kp_filter	filter;
	enum sort_key		keys[SORT_NR];
	unsigned int		nr_keys;
	bool			has[SORT_NR];
	bool			callgraph;
	bool			caller;
	double			cg_threshold;	/* percent */
	double			percent_limit;
	bool			show_nr;
	bool			children;	/* --children */
	uint64_t		seq;		/* samples seen, for --children */
	unsigned int		max_stack;	/* frames of a chain to use */
	bool			parent_set;	/* regex compiled */
	regex_t			parent_re;
	struct kp_srcline	*srcline;	/* --sort srcline */
	struct kp_hmap		strings;	/* hash -> struct intern_str */
	bool			threads;	/* -T */
	bool			hide_unresolved; /* -U */
	bool			exclude_other;	/* -x */
	struct kp_hmap		thread_stats;	/* pid << 32 | tid, + 1 -> struct thread_stat */
	struct hist_entry	*entries;	/* open addressing */
	size_t			mask, used;
	struct node_chunk	*chunks;
	uint64_t		total[KPROF_MAX_EVENTS];	/* period, filtered */
	uint64_t		samples[KPROF_MAX_EVENTS];	/* filtered */
	uint64_t		leaf[KP_LEAF__MAX];	/* samples by leaf fix-up outcome */
	FILE			*fp;
};

/* ---- building ---- */

static struct cg_node *report__node(struct report *rep)
{
	struct node_chunk *c = rep->chunks;

	if (!c || c->used == KP_ARRAY_SIZE(c->nodes)) {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL;
		c->next = rep->chunks;
		c->used = 0;
		rep->chunks = c;
	}
	return &c->nodes[c->used++];
}

static bool node__is(const struct cg_node *n, const struct kp_frame *f)
{
	if (n->sym || f->sym)
		return n->sym == f->sym;
	return n->dso == f->dso && n->addr == f->dso_addr;
}

static int entry__add_chain(struct report *rep, struct hist_entry *e, const struct kp_resolved *s,
			    unsigned int first, unsigned int last)
{
	struct cg_node *parent = &e->root, *n;
	uint64_t period = s->rec->period;
	unsigned int i, nr = last - first;

	parent->period += period;
	for (i = 0; i < nr; i++) {
		const struct kp_frame *f = &s->frames[rep->caller ? last - 1 - i : first + i];
		struct cg_node **link = &parent->child;

		for (n = parent->child; n; link = &n->next, n = n->next)
			if (node__is(n, f))
				break;
		if (!n) {
			n = report__node(rep);
			if (!n)
				return -ENOMEM;
			memset(n, 0, sizeof(*n));
			n->dso = f->dso;
			n->sym = f->sym;
			n->addr = f->sym ? 0 : f->dso_addr;
			n->kernel = f->kernel;
			*link = n;
		} else if (n != parent->child && n->period + period > parent->child->period) {
			/* keep the heaviest first: later samples find it sooner */
			*link = n->next;
			n->next = parent->child;
			parent->child = n;
		}
		n->period += period;
		parent = n;
	}
	return 0;
}

/* @str kept once (the same pointer for the same text); NULL: ENOMEM. */
static const char *report__intern(struct report *rep, const char *str)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct intern_str *is, *head;
	const char *c;

	for (c = str; *c; c++)
		h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
	h |= 1;		/* never the empty key */
	head = kp_hmap__get(&rep->strings, h);
	for (is = head; is; is = is->next)
		if (!strcmp(is->s, str))
			return is->s;
	is = malloc(sizeof(*is) + strlen(str) + 1);
	if (!is)
		return NULL;
	strcpy(is->s, str);
	is->next = head;
	if (kp_hmap__put(&rep->strings, h, is)) {
		free(is);
		return NULL;
	}
	return is->s;
}

/* perf's srcline of frame @f: "file:line" (the file's base name), "??:0" without one. */
static const char *report__srcline(struct report *rep, const struct kp_frame *f)
{
	const char *file, *base;
	char buf[4096];
	int line;

	if (!f->dso || f->kernel || !kp_srcline__find(rep->srcline, f->dso, f->dso_addr, &file, &line))
		return report__intern(rep, SRCLINE_UNKNOWN);
	base = strrchr(file, '/');
	snprintf(buf, sizeof(buf), "%s:%d", base ? base + 1 : file, line);
	return report__intern(rep, buf);
}

/*
 * The part of the chain [*first, *last) that --max-stack keeps: its
 * innermost frames in callee order, its outermost in caller order (the
 * order perf walks the chain in).
 */
static void report__max_stack(const struct report *rep, unsigned int *first, unsigned int *last)
{
	if (*last - *first <= rep->max_stack)
		return;
	if (rep->caller)
		*first = *last - rep->max_stack;
	else
		*last = *first + rep->max_stack;
}

/*
 * perf's parent: the first frame of the chain [first, last), in the order
 * it is walked, whose symbol matches --parent; "[other]" when none does.
 */
static const char *report__parent(struct report *rep, const struct kp_resolved *s,
				  unsigned int first, unsigned int last)
{
	unsigned int i;

	for (i = 0; i < last - first; i++) {
		const struct kp_frame *f = &s->frames[rep->caller ? last - 1 - i : first + i];

		if (f->sym && !regexec(&rep->parent_re, f->sym->name, 0, NULL, 0))
			return report__intern(rep, f->sym->name);
	}
	return report__intern(rep, PARENT_OTHER);
}

/* -T: add the sample to its thread's periods. */
static int report__thread(struct report *rep, const struct kp_rec_sample *r)
{
	uint64_t key = ((uint64_t)r->pid << 32 | r->tid) + 1;
	struct thread_stat *t = kp_hmap__get(&rep->thread_stats, key);

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		t->pid = r->pid;
		t->tid = r->tid;
		if (kp_hmap__put(&rep->thread_stats, key, t)) {
			free(t);
			return -ENOMEM;
		}
	}
	t->period[r->event] += r->period;
	return 0;
}

static uint64_t entry__hash(const struct hist_entry *e)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL * (e->event + 1);

	h = (h ^ (uintptr_t)e->comm) * 0x100000001b3ULL;
	h = (h ^ (uintptr_t)e->dso) * 0x100000001b3ULL;
	h = (h ^ (uintptr_t)e->sym) * 0x100000001b3ULL;
	h = (h ^ e->addr) * 0x100000001b3ULL;
	h = (h ^ ((uint64_t)e->pid << 32 | e->tid)) * 0x100000001b3ULL;
	h = (h ^ ((uint64_t)e->cpu << 1 | e->kernel)) * 0x100000001b3ULL;
	h = (h ^ (uintptr_t)e->srcline) * 0x100000001b3ULL;
	h = (h ^ (uintptr_t)e->parent) * 0x100000001b3ULL;
	return h ^ (h >> 31);
}

static bool entry__same(const struct hist_entry *a, const struct hist_entry *b)
{
	return a->hash == b->hash && a->event == b->event && a->comm == b->comm &&
	       a->dso == b->dso && a->sym == b->sym && a->addr == b->addr &&
	       a->kernel == b->kernel && a->pid == b->pid && a->tid == b->tid && a->cpu == b->cpu &&
	       a->srcline == b->srcline && a->parent == b->parent;
}

static int report__grow(struct report *rep)
{
	size_t size = rep->mask ? (rep->mask + 1) * 2 : 1024, i, j;
	struct hist_entry *n = calloc(size, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; rep->entries && i <= rep->mask; i++) {
		if (!rep->entries[i].used)
			continue;
		for (j = rep->entries[i].hash & (size - 1); n[j].used; j = (j + 1) & (size - 1))
			;
		n[j] = rep->entries[i];
	}
	free(rep->entries);
	rep->entries = n;
	rep->mask = size - 1;
	return 0;
}

/*
 * The entry of frame @f of @s (the --sort keys of it, @parent the sample's
 * --parent match), found or added; NULL: ENOMEM.  The period key is a
 * column, as in perf: it groups nothing.
 */
static struct hist_entry *report__entry(struct report *rep, const struct kp_resolved *s,
					const struct kp_frame *f, const char *parent)
{
	const struct kp_rec_sample *r = s->rec;
	struct hist_entry key = { .used = true }, *e;
	size_t i;

	key.event = r->event;
	if (rep->has[SORT_COMM])
		key.comm = s->comm;
	if (rep->has[SORT_DSO]) {
		key.dso = f->dso;
		key.kernel = f->kernel;
	}
	if (rep->has[SORT_SYM]) {
		key.dso = f->dso;
		key.sym = f->sym;
		key.addr = f->sym ? 0 : f->dso_addr;
		key.kernel = f->kernel;
	}
	if (rep->has[SORT_PID])
		key.pid = r->pid;
	if (rep->has[SORT_TID])
		key.tid = r->tid;
	if (rep->has[SORT_CPU])
		key.cpu = r->cpu;
	if (rep->has[SORT_SRCLINE]) {
		key.srcline = report__srcline(rep, f);
		if (!key.srcline)
			return NULL;
	}
	if (rep->has[SORT_PARENT])
		key.parent = parent;
	key.hash = entry__hash(&key);

	if ((!rep->entries || (rep->used + 1) * 2 > rep->mask + 1) && report__grow(rep))
		return NULL;
	for (i = key.hash & rep->mask; rep->entries[i].used; i = (i + 1) & rep->mask)
		if (entry__same(&rep->entries[i], &key))
			break;
	e = &rep->entries[i];
	if (!e->used) {
		*e = key;
		rep->used++;
	}
	return e;
}

static int report__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct report *rep = arg;
	const struct kp_rec_sample *r = s->rec;
	unsigned int first, last, cf, cl, j;
	const char *parent = NULL;
	struct hist_entry *e, *self;

	(void)d;
	if (!kp_filter__sample(&rep->filter, s, &first, &last))
		return 0;
	/* as perf's: the sample is left out, of the totals too */
	if (rep->hide_unresolved && !s->frames[first].sym)
		return 0;
	/* the chain used for call graphs, --children and --parent: [cf, cl) */
	cf = first;
	cl = last;
	report__max_stack(rep, &cf, &cl);
	if (rep->has[SORT_PARENT]) {
		parent = report__parent(rep, s, cf, cl);
		if (!parent)
			return -ENOMEM;
	}
	if (rep->threads && report__thread(rep, r))
		return -ENOMEM;
	self = e = report__entry(rep, s, &s->frames[first], parent);
	if (!e)
		return -ENOMEM;
	e->period += r->period;
	e->samples += s->count;
	rep->total[r->event] += r->period;
	rep->samples[r->event] += s->count;
	rep->leaf[s->leaf] += s->count;
	if (!rep->children)
		return rep->callgraph ? entry__add_chain(rep, e, s, cf, cl) : 0;
	/*
	 * The sample's own entry, then every entry of the chain, once each,
	 * with the chain from it on (perf counts the sampled function even
	 * when --max-stack cuts it from the chain).
	 */
	rep->seq++;
	self->seen = rep->seq;
	self->children += r->period;
	if (rep->callgraph && entry__add_chain(rep, self, s, cf > first ? cf : first, cl))
		return -ENOMEM;
	for (j = cf; j < cl; j++) {
		e = report__entry(rep, s, &s->frames[j], parent);
		if (!e)
			return -ENOMEM;
		if (e->seen == rep->seq)
			continue;
		e->seen = rep->seq;
		e->children += r->period;
		if (rep->callgraph && entry__add_chain(rep, e, s, j, cl))
			return -ENOMEM;
	}
	return 0;
}

/* ---- printing ---- */

static const char *frame_name(const struct kp_dso *dso, const struct kp_sym *sym, uint64_t addr,
			      char *buf, size_t len)
{
	(void)dso;
	if (sym)
		return sym->name;
	snprintf(buf, len, "0x%016" PRIx64, addr);
	return buf;
}

static void entry__column(const struct report *rep, const struct hist_entry *e,
			  enum sort_key k, char *buf, size_t len)
{
	char addr[32];

	switch (k) {
	case SORT_COMM:
		snprintf(buf, len, "%s", e->comm);
		break;
	case SORT_DSO:
		snprintf(buf, len, "%s", e->dso ? e->dso->short_name : KP_UNKNOWN);
		break;
	case SORT_SYM:
		snprintf(buf, len, "[%c] %s", e->kernel ? 'k' : '.',
			 frame_name(e->dso, e->sym, e->addr, addr, sizeof(addr)));
		break;
	case SORT_PID:
		snprintf(buf, len, "%u", e->pid);
		break;
	case SORT_TID:
		snprintf(buf, len, "%u", e->tid);
		break;
	case SORT_CPU:
		snprintf(buf, len, "%03u", e->cpu);
		break;
	case SORT_SRCLINE:
		snprintf(buf, len, "%s", e->srcline);
		break;
	case SORT_PERIOD:
		snprintf(buf, len, "%" PRIu64, e->period);
		break;
	case SORT_PARENT:
		snprintf(buf, len, "%s", e->parent);
		break;
	default:
		buf[0] = '\0';
	}
	(void)rep;
}

static const struct report *cmp_rep;

static int entry__cmp(const void *a, const void *b)
{
	const struct hist_entry *x = *(struct hist_entry * const *)a;
	const struct hist_entry *y = *(struct hist_entry * const *)b;
	char bx[512], by[512];
	unsigned int i;
	int c;

	if (cmp_rep->children && x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	for (i = 0; i < cmp_rep->nr_keys; i++) {
		enum sort_key k = cmp_rep->keys[i];

		if (k == SORT_PID && x->pid != y->pid)
			return x->pid < y->pid ? -1 : 1;
		if (k == SORT_TID && x->tid != y->tid)
			return x->tid < y->tid ? -1 : 1;
		if (k == SORT_CPU && x->cpu != y->cpu)
			return x->cpu < y->cpu ? -1 : 1;
		if (k == SORT_PERIOD)
			continue;	/* the same, above */
		entry__column(cmp_rep, x, k, bx, sizeof(bx));
		entry__column(cmp_rep, y, k, by, sizeof(by));
		c = strcmp(bx, by);
		if (c)
			return c;
	}
	/* same text, different objects (e.g. two DSOs of one name) */
	if (x->dso != y->dso && x->dso && y->dso)
		return strcmp(x->dso->name, y->dso->name);
	return 0;
}

struct child_ref {
	const struct cg_node	*node;
};

static int node__cmp(const void *a, const void *b)
{
	const struct cg_node *x = ((const struct child_ref *)a)->node;
	const struct cg_node *y = ((const struct child_ref *)b)->node;
	char bx[32], by[32];
	int c;

	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	c = strcmp(frame_name(x->dso, x->sym, x->addr, bx, sizeof(bx)),
		   frame_name(y->dso, y->sym, y->addr, by, sizeof(by)));
	if (c)
		return c;
	return strcmp(x->dso ? x->dso->name : "", y->dso ? y->dso->name : "");
}

/* The children of @n above the threshold, heaviest first; how many. */
static size_t node__children(const struct cg_node *n, uint64_t min, struct child_ref **out)
{
	const struct cg_node *c;
	size_t nr = 0;

	for (c = n->child; c; c = c->next)
		nr += c->period >= min;
	*out = NULL;
	if (!nr)
		return 0;
	*out = malloc(nr * sizeof(**out));
	if (!*out)
		return 0;
	nr = 0;
	for (c = n->child; c; c = c->next)
		if (c->period >= min)
			(*out)[nr++].node = c;
	qsort(*out, nr, sizeof(**out), node__cmp);
	return nr;
}

static void graph__name(FILE *fp, const struct cg_node *n)
{
	char buf[32];

	fputs(frame_name(n->dso, n->sym, n->addr, buf, sizeof(buf)), fp);
	fputc('\n', fp);
}

/* Follow single-child chains of equal weight; returns the last node. */
static const struct cg_node *graph__chain(FILE *fp, const struct cg_node *n, uint64_t min,
					  const char *prefix)
{
	struct child_ref *kids;
	size_t nr;

	for (;;) {
		nr = node__children(n, min, &kids);
		if (nr != 1 || kids[0].node->period != n->period) {
			free(kids);
			return n;
		}
		n = kids[0].node;
		free(kids);
		fprintf(fp, "%s", prefix);
		graph__name(fp, n);
	}
}

static void graph__children(FILE *fp, const struct cg_node *n, uint64_t total, uint64_t min,
			    const char *prefix)
{
	struct child_ref *kids;
	size_t nr, i, plen = strlen(prefix);
	char *sub;

	nr = node__children(n, min, &kids);
	sub = malloc(plen + 64);
	if (!sub) {
		free(kids);
		return;
	}
	for (i = 0; i < nr; i++) {
		const struct cg_node *c = kids[i].node, *end;
		bool last = i == nr - 1;
		char pct[32];
		int w;

		snprintf(pct, sizeof(pct), "%.2f%%", 100.0 * c->period / total);
		fprintf(fp, "%s|\n", prefix);
		fprintf(fp, "%s%s--%s--", prefix, last ? " " : "|", pct);
		graph__name(fp, c);
		/* continuation lines start below the name */
		w = 1 + 2 + strlen(pct) + 2;
		snprintf(sub, plen + 64, "%s%c%*s", prefix, last ? ' ' : '|', w - 1, "");
		end = graph__chain(fp, c, min, sub);
		if (end->child)
			graph__children(fp, end, total, min, sub);
	}
	free(sub);
	free(kids);
}

static void entry__graph(const struct report *rep, const struct hist_entry *e, uint64_t total)
{
	static const char *indent = "            ";	/* below the Overhead column */
	double exact = total * rep->cg_threshold / 100.0;
	uint64_t min = (uint64_t)exact;
	struct child_ref *kids;
	FILE *fp = rep->fp;
	size_t nr;
	char sub[64];

	if ((double)min < exact)
		min++;
	if (!min)
		min = 1;
	nr = node__children(&e->root, min, &kids);
	if (!nr) {
		free(kids);
		return;
	}
	if (nr == 1 && kids[0].node->period == e->root.period) {
		const struct cg_node *end;

		fprintf(fp, "%s|\n", indent);
		fprintf(fp, "%s---", indent);
		graph__name(fp, kids[0].node);
		snprintf(sub, sizeof(sub), "%s   ", indent);
		end = graph__chain(fp, kids[0].node, min, sub);
		if (end->child)
			graph__children(fp, end, total, min, sub);
	} else {
		graph__children(fp, &e->root, total, min, indent);
	}
	free(kids);
	fputc('\n', fp);
}

static void print_dots(FILE *fp, int n)
{
	while (n-- > 0)
		fputc('.', fp);
}

/*
 * Say when to doubt a row: those that rest on fewer than KP_FEW_SAMPLES
 * samples, and how far off their shares may be (the widest 95% interval
 * among them).
 */
static void report__print_doubt(const struct report *rep, struct hist_entry * const *list,
				size_t n, unsigned int ev)
{
	size_t i, few = 0;
	double worst = 0;

	for (i = 0; i < n; i++) {
		double err;

		if (list[i]->samples >= KP_FEW_SAMPLES)
			continue;
		few++;
		err = kp_share_error95(list[i]->samples, rep->samples[ev]);
		if (err > worst)
			worst = err;
	}
	if (few)
		fprintf(rep->fp, "#\n# %zu of %zu rows rest on fewer than %d samples: their shares may be off by up to %.2f points (95%% interval)\n",
			few, n, KP_FEW_SAMPLES, worst);
}

/* The entries of one event as printed: filtered, sorted, the column widths. */
struct report_table {
	struct hist_entry	**list;
	size_t			n;
	uint64_t		total;
	int			width[SORT_NR], nwidth;
};

static int report__table(struct report *rep, unsigned int ev, struct report_table *tb)
{
	uint64_t total = rep->total[ev];
	char buf[512];
	unsigned int k;
	size_t i, n = 0;

	memset(tb, 0, sizeof(*tb));
	tb->total = total;
	tb->nwidth = 7;
	tb->list = malloc((rep->used + 1) * sizeof(*tb->list));
	if (!tb->list)
		return -ENOMEM;
	for (i = 0; rep->entries && i <= rep->mask; i++) {
		struct hist_entry *e = &rep->entries[i];

		if (!e->used || e->event != ev)
			continue;
		if (rep->exclude_other && e->parent && !strcmp(e->parent, PARENT_OTHER))
			continue;
		if (total && 100.0 * (rep->children ? e->children : e->period) / total <
			     rep->percent_limit)
			continue;
		tb->list[n++] = e;
	}
	tb->n = n;
	cmp_rep = rep;
	qsort(tb->list, n, sizeof(*tb->list), entry__cmp);
	cmp_rep = NULL;

	for (k = 0; k < rep->nr_keys; k++)
		tb->width[k] = rep->keys[k] == SORT_PERIOD ? 12 :
			       (int)strlen(sort_keys[rep->keys[k]].header);
	for (i = 0; i < n; i++) {
		for (k = 0; k < rep->nr_keys; k++) {
			int w;

			entry__column(rep, tb->list[i], rep->keys[k], buf, sizeof(buf));
			w = strlen(buf);
			if (w > tb->width[k])
				tb->width[k] = w;
		}
		snprintf(buf, sizeof(buf), "%" PRIu64, tb->list[i]->samples);
		if ((int)strlen(buf) > tb->nwidth)
			tb->nwidth = strlen(buf);
	}
	return 0;
}

/* The column names, after @lead ("#" in the text, " " in the browser). */
static void report__fprint_names(const struct report *rep, const struct report_table *tb,
				 const char *lead, FILE *fp)
{
	unsigned int k;

	fprintf(fp, "%s%s", lead, rep->children ? " Children      Self" : " Overhead");
	if (rep->show_nr)
		fprintf(fp, "  %*s", tb->nwidth, "Samples");
	for (k = 0; k < rep->nr_keys; k++)
		if (rep->keys[k] == SORT_PERIOD)
			fprintf(fp, "  %*s", tb->width[k], sort_keys[SORT_PERIOD].header);
		else
			fprintf(fp, "  %-*s", k + 1 < rep->nr_keys ? tb->width[k] : 0,
				sort_keys[rep->keys[k]].header);
}

/* The line of entry @e, without its newline. */
static void report__fprint_entry(const struct report *rep, const struct report_table *tb,
				 const struct hist_entry *e, FILE *fp)
{
	uint64_t total = tb->total;
	char buf[512];
	unsigned int k;

	if (rep->children)
		fprintf(fp, "  %7.2f%%", total ? 100.0 * e->children / total : 0.0);
	fprintf(fp, "  %7.2f%%", total ? 100.0 * e->period / total : 0.0);
	if (rep->show_nr)
		fprintf(fp, "  %*" PRIu64, tb->nwidth, e->samples);
	for (k = 0; k < rep->nr_keys; k++) {
		enum sort_key key = rep->keys[k];
		bool num = key == SORT_PID || key == SORT_TID || key == SORT_CPU ||
			   key == SORT_PERIOD;

		entry__column(rep, e, key, buf, sizeof(buf));
		if (num)
			fprintf(fp, "  %*s", tb->width[k], buf);
		else
			fprintf(fp, "  %-*s", k + 1 < rep->nr_keys ? tb->width[k] : 0, buf);
	}
}

static int report__print_event(struct report *rep, struct kp_decoder *d, unsigned int ev)
{
	struct report_table tb;
	FILE *fp = rep->fp;
	unsigned int k;
	size_t i;
	int ret;

	fprintf(fp, "# Samples: %" PRIu64 " of event '%s'\n", rep->samples[ev],
		kp_decoder__event_name(d, ev));
	if (rep->samples[ev] != d->events[ev].samples)
		fprintf(fp, "# Samples filtered out: %" PRIu64 "\n",
			d->events[ev].samples - rep->samples[ev]);
	fprintf(fp, "# Event count (approx.): %" PRIu64 "\n#\n", rep->total[ev]);

	ret = report__table(rep, ev, &tb);
	if (ret)
		return ret;
	report__fprint_names(rep, &tb, "#", fp);
	fprintf(fp, rep->children ? "\n# ........  ........" : "\n# ........");
	if (rep->show_nr) {
		fprintf(fp, "  ");
		print_dots(fp, tb.nwidth);
	}
	for (k = 0; k < rep->nr_keys; k++) {
		fprintf(fp, "  ");
		print_dots(fp, tb.width[k]);
	}
	fprintf(fp, "\n#\n");

	for (i = 0; i < tb.n; i++) {
		report__fprint_entry(rep, &tb, tb.list[i], fp);
		fputc('\n', fp);
		if (rep->callgraph)
			entry__graph(rep, tb.list[i], tb.total);
	}
	if (tb.n < rep->used && rep->percent_limit > 0)
		fprintf(fp, "#\n# (entries below %g%% are hidden)\n", rep->percent_limit);
	report__print_doubt(rep, tb.list, tb.n, ev);
	fprintf(fp, "\n");
	free(tb.list);
	return 0;
}

/* A time event: its period is nanoseconds on the CPU. */
static bool report__time_event(const struct kp_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE && (e->config == PERF_COUNT_SW_CPU_CLOCK ||
						 e->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * record --off-cpu: the time on the CPU (the time events' periods) and off
 * it (the off-CPU event's), of what the filters kept, as shares of their sum.
 */
static void report__print_wall(struct report *rep, struct kp_decoder *d)
{
	const struct kp_session *s = &d->info.session;
	uint64_t on = 0, off = 0;
	unsigned int ev;

	for (ev = 0; ev < s->nr_events; ev++) {
		if (s->events[ev].type == KPROF_TYPE_OFFCPU)
			off += rep->total[ev];
		else if (report__time_event(&s->events[ev]))
			on += rep->total[ev];
	}
	if (!on && !off)
		return;
	fprintf(rep->fp, "# Wall-clock time: on-CPU %.1f ms (%.1f%%), off-CPU %.1f ms (%.1f%%)\n#\n",
		on / 1e6, 100.0 * on / (on + off), off / 1e6, 100.0 * off / (on + off));
}

static int thread_stat__cmp(const void *a, const void *b)
{
	const struct thread_stat *x = *(struct thread_stat * const *)a;
	const struct thread_stat *y = *(struct thread_stat * const *)b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * -T: perf report's per-thread table (perf_read_values' layout): PID, TID
 * and a column per event, the thread's count of it.  perf's counts are
 * those of perf record -s (PERF_RECORD_READ at each thread's exit), which
 * kprof does not record: here, the periods of the thread's samples that
 * pass the filters, the same approximation as "Event count (approx.)".
 * Threads by PID, then TID.
 */
static int report__print_threads(struct report *rep, struct kp_decoder *d)
{
	unsigned int ev, nr_events = d->info.session.nr_events, nr_cols = 0;
	unsigned int cols[KPROF_MAX_EVENTS];
	int pidw = 3, tidw = 3, w[KPROF_MAX_EVENTS];
	struct thread_stat **list;
	size_t i, n = 0, pos = 0;
	FILE *fp = rep->fp;
	uint64_t key;
	char buf[32];
	void *v;

	for (ev = 0; ev < nr_events; ev++) {
		if (!d->events[ev].samples && nr_events > 1)
			continue;
		w[nr_cols] = strlen(kp_decoder__event_name(d, ev));
		cols[nr_cols++] = ev;
	}
	list = malloc((rep->thread_stats.used + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	while (kp_hmap__next(&rep->thread_stats, &pos, &key, &v))
		list[n++] = v;
	qsort(list, n, sizeof(*list), thread_stat__cmp);
	for (i = 0; i < n; i++) {
		unsigned int c;
		int len;

		len = snprintf(buf, sizeof(buf), "%u", list[i]->pid);
		if (len > pidw)
			pidw = len;
		len = snprintf(buf, sizeof(buf), "%u", list[i]->tid);
		if (len > tidw)
			tidw = len;
		for (c = 0; c < nr_cols; c++) {
			len = snprintf(buf, sizeof(buf), "%" PRIu64, list[i]->period[cols[c]]);
			if (len > w[c])
				w[c] = len;
		}
	}
	fprintf(fp, "# %*s  %*s", pidw, "PID", tidw, "TID");
	for (ev = 0; ev < nr_cols; ev++)
		fprintf(fp, "  %*s", w[ev], kp_decoder__event_name(d, cols[ev]));
	fputc('\n', fp);
	for (i = 0; i < n; i++) {
		fprintf(fp, "  %*u  %*u", pidw, list[i]->pid, tidw, list[i]->tid);
		for (ev = 0; ev < nr_cols; ev++)
			fprintf(fp, "  %*" PRIu64, w[ev], list[i]->period[cols[ev]]);
		fputc('\n', fp);
	}
	free(list);
	return 0;
}

/*
 * The leaf fix-up's line (unwind.h), when samples carried a stack copy:
 * how many user chains gained the caller of a frameless leaf, needed
 * nothing, were left as recorded with %rbp in use ("marked": maybe
 * wrong), or could not be fixed (the copy too short, no CFI, a PLT or
 * signal frame).
 */
static void report__print_leaf(const struct report *rep)
{
	uint64_t copies = 0;
	unsigned int i;

	for (i = KP_LEAF_NONE + 1; i < KP_LEAF__MAX; i++)
		copies += rep->leaf[i];
	if (!copies)
		return;
	fprintf(rep->fp, "# Leaf frames of %" PRIu64 " user chains:", copies);
	for (i = KP_LEAF_NONE + 1; i < KP_LEAF__MAX; i++)
		fprintf(rep->fp, "%s %" PRIu64 " %s", i == KP_LEAF_NONE + 1 ? "" : ",",
			rep->leaf[i], kp_leaf_names[i]);
	fprintf(rep->fp, "\n#\n");
}

static int report__print(struct report *rep, struct kp_decoder *d)
{
	const struct kp_data_info *info = &d->info;
	FILE *fp = rep->fp;
	unsigned int ev, nr_events = info->session.nr_events;
	int ret;

	fprintf(fp, "# kprofctl report\n");
	fprintf(fp, "# cmdline: %s\n", info->cmdline);
	fprintf(fp, "# host: %s, kernel %s, %u CPUs\n", info->hostname, info->release,
		info->nr_cpus);
	if (!d->finished)
		fprintf(fp, "# warning: the recording did not finish (no FINISHED record)\n");
	fprintf(fp, "#\n# Total Lost Samples: %" PRIu64 "\n#\n", kp_decoder__lost(d));
	report__print_leaf(rep);
	if (kp_decoder__has_offcpu(d))
		report__print_wall(rep, d);
	for (ev = 0; ev < nr_events; ev++) {
		if (!d->events[ev].samples && nr_events > 1)
			continue;
		ret = report__print_event(rep, d, ev);
		if (ret)
			return ret;
	}
	return rep->threads ? report__print_threads(rep, d) : 0;
}

static void report__exit(struct report *rep)
{
	struct node_chunk *c, *n;
	struct intern_str *is, *next;
	size_t pos = 0;
	uint64_t key;
	void *v;

	for (c = rep->chunks; c; c = n) {
		n = c->next;
		free(c);
	}
	free(rep->entries);
	while (kp_hmap__next(&rep->strings, &pos, &key, &v))
		for (is = v; is; is = next) {
			next = is->next;
			free(is);
		}
	kp_hmap__exit(&rep->strings);
	pos = 0;
	while (kp_hmap__next(&rep->thread_stats, &pos, &key, &v))
		free(v);
	kp_hmap__exit(&rep->thread_stats);
	if (rep->parent_set)
		regfree(&rep->parent_re);
	kp_srcline__delete(rep->srcline);
	kp_filter__exit(&rep->filter);
}

/* ---- the full-screen browser (lib/tui.h) ---- */

/* The text @fn(@rep, ...) prints, malloc'd; NULL: ENOMEM. */
static char *report__text(struct report *rep, void (*fn)(struct report *rep, const void *arg),
			  const void *arg)
{
	FILE *saved = rep->fp;
	char *text = NULL;
	size_t len = 0;

	rep->fp = open_memstream(&text, &len);
	if (!rep->fp) {
		rep->fp = saved;
		return NULL;
	}
	fn(rep, arg);
	if (fclose(rep->fp)) {
		free(text);
		text = NULL;
	}
	rep->fp = saved;
	return text;
}

struct tui_entry_arg {
	const struct report_table	*tb;
	const struct hist_entry		*e;
};

static void tui__entry_text(struct report *rep, const void *arg)
{
	const struct tui_entry_arg *ta = arg;

	report__fprint_entry(rep, ta->tb, ta->e, rep->fp);
}

static void tui__entry_graph(struct report *rep, const void *arg)
{
	const struct tui_entry_arg *ta = arg;

	entry__graph(rep, ta->e, ta->tb->total);
}

static void tui__names(struct report *rep, const void *arg)
{
	report__fprint_names(rep, arg, " ", rep->fp);
}

/* What identifies @e across top's refreshes: its key columns. */
static void tui__entry_key(struct report *rep, const void *arg)
{
	const struct tui_entry_arg *ta = arg;
	char buf[512];
	unsigned int k;

	for (k = 0; k < rep->nr_keys; k++) {
		if (rep->keys[k] == SORT_PERIOD)
			continue;
		entry__column(rep, ta->e, rep->keys[k], buf, sizeof(buf));
		fprintf(rep->fp, "%s\t", buf);
	}
	if (ta->e->dso)
		fprintf(rep->fp, "%s", ta->e->dso->name);
}

/*
 * The browser's view of event @ev: the rows of report__print_event(),
 * each with the call graph it prints below the row with -g.  @name is the
 * event's, @more a text after the status line's counts (or "").
 */
static int report__tui_view(struct report *rep, unsigned int ev, const char *name,
			    const char *more, struct kp_tui_view *v)
{
	struct report_table tb;
	size_t i;
	int ret;

	ret = report__table(rep, ev, &tb);
	if (ret)
		return ret;
	ret = kp_tui_view__title(v, "Samples: %" PRIu64 " of event '%s', Event count (approx.): %" PRIu64 "%s",
				 rep->samples[ev], name, rep->total[ev], more);
	v->header = report__text(rep, tui__names, &tb);
	if (!v->header)
		ret = -ENOMEM;
	for (i = 0; !ret && i < tb.n; i++) {
		struct tui_entry_arg ta = { .tb = &tb, .e = tb.list[i] };
		char *text = report__text(rep, tui__entry_text, &ta);
		char *key = report__text(rep, tui__entry_key, &ta);
		char *graph = rep->callgraph ? report__text(rep, tui__entry_graph, &ta) : NULL;
		char sym[32];
		const char *symbol = NULL;
		size_t len;

		if (rep->has[SORT_SYM])
			symbol = frame_name(tb.list[i]->dso, tb.list[i]->sym, tb.list[i]->addr,
					    sym, sizeof(sym));
		/* entry__graph()'s blank line after the graph */
		len = graph ? strlen(graph) : 0;
		if (len > 1 && graph[len - 1] == '\n' && graph[len - 2] == '\n')
			graph[len - 1] = '\0';
		if (!text || !key || (rep->callgraph && !graph))
			ret = -ENOMEM;
		else
			ret = kp_tui_view__add(v, text, key, symbol, graph);
		free(text);
		free(key);
		free(graph);
	}
	free(tb.list);
	return ret;
}

/*
 * The views of the events with samples (all of them when there is one),
 * into @views (KPROF_MAX_EVENTS of them): how many, or -ENOMEM.
 */
static int report__tui_views(struct report *rep, const char * const *names, unsigned int nr_events,
			     const uint64_t *samples, const char *more, struct kp_tui_view *views)
{
	unsigned int ev;
	int nr = 0, ret;

	for (ev = 0; ev < nr_events && ev < KPROF_MAX_EVENTS; ev++) {
		if (!samples[ev] && nr_events > 1)
			continue;
		memset(&views[nr], 0, sizeof(views[nr]));
		ret = report__tui_view(rep, ev, names[ev], more, &views[nr]);
		nr++;
		if (ret) {
			while (nr--)
				kp_tui_view__exit(&views[nr]);
			return ret;
		}
	}
	return nr;
}

/* What 'a' annotates with: the report's input, symbols and filters. */
struct report_annotate {
	const struct kp_decode_args	*a;
	const struct kp_machine_opts	*m;
};

static int push_arg(const char **av, int *ac, int max, const char *opt, const char *val, char *buf,
		    size_t len)
{
	if (*ac + 1 >= max)
		return -1;
	if (val) {
		snprintf(buf, len, "%s=%s", opt, val);
		av[(*ac)++] = buf;
	} else {
		av[(*ac)++] = opt;
	}
	return 0;
}

/*
 * 'a': kprofctl annotate of @symbol on the report's input, with its symbol
 * options and filters, in a child whose stdout and stderr are the text.
 */
static char *report__annotate(void *arg, const char *symbol)
{
	const struct report_annotate *ra = arg;
	const struct kp_decode_args *a = ra->a;
	const struct kp_machine_opts *m = ra->m;
	char bufs[12][PATH_MAX + 32], *text = NULL;
	const char *av[32];
	size_t len = 0, alloc = 0;
	int ac = 0, b = 0, fds[2], status;
	pid_t pid;

	av[ac++] = "annotate";
	av[ac++] = "--stdio";
	if (a->live) {
		av[ac++] = "--live";
	} else {
		av[ac++] = "-i";
		av[ac++] = a->input;
	}
#define ARG(opt, val)							\
	do {								\
		if (b < (int)KP_ARRAY_SIZE(bufs))			\
			push_arg(av, &ac, KP_ARRAY_SIZE(av), opt, val,	\
				 bufs[b++], sizeof(bufs[0]));		\
	} while (0)
	if (m->kallsyms)
		ARG("--kallsyms", m->kallsyms);
	if (m->symfs)
		ARG("--symfs", m->symfs);
	if (m->debug_dir)
		ARG("--debug-dir", m->debug_dir);
	if (m->buildid_dir)
		ARG("--buildid-dir", m->buildid_dir);
	if (a->comms)
		ARG("--comms", a->comms);
	if (a->pids)
		ARG("--pids", a->pids);
	if (a->tids)
		ARG("--tids", a->tids);
	if (a->dsos)
		ARG("--dsos", a->dsos);
	if (a->time)
		ARG("--time", a->time);
#undef ARG
	if (m->no_demangle)
		av[ac++] = "--no-demangle";
	if (a->kernel)
		av[ac++] = "-K";
	if (a->user)
		av[ac++] = "--user";
	if (a->offcpu_only)
		av[ac++] = "--off-cpu-only";
	av[ac++] = symbol;
	av[ac] = NULL;

	if (pipe(fds))
		return NULL;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY);

		close(fds[0]);
		if (devnull >= 0)
			dup2(devnull, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[1]);
		status = cmd_annotate(ac, av);
		fflush(stdout);
		fflush(stderr);
		_exit(status);
	}
	close(fds[1]);
	for (;;) {
		ssize_t n;

		if (len + 4096 + 1 > alloc) {
			char *t = realloc(text, alloc = alloc ? alloc * 2 : 65536);

			if (!t)
				break;
			text = t;
		}
		n = read(fds[0], text + len, alloc - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!text)
		return NULL;
	text[len] = '\0';
	if (!len) {
		free(text);
		return strdup("kprofctl annotate printed nothing\n");
	}
	return text;
}

static const char report_tui_help[] =
	"kprofctl report: the entries of 'kprofctl report --stdio', one line each;\n"
	"the call graph below an entry is the one -g prints; 'a' shows what\n"
	"'kprofctl annotate SYMBOL' prints for the entry's symbol.\n";

/* The browser over what was counted: 0, 1 when there is no terminal for it, -errno. */
static int report__browse(struct report *rep, struct kp_decoder *d, const struct kp_decode_args *a,
			  const struct kp_machine_opts *m)
{
	struct report_annotate ra = { .a = a, .m = m };
	const struct kp_tui_ops ops = {
		.annotate = report__annotate, .arg = &ra, .help = report_tui_help,
	};
	struct kp_tui_view views[KPROF_MAX_EVENTS];
	const char *names[KPROF_MAX_EVENTS];
	uint64_t samples[KPROF_MAX_EVENTS];
	unsigned int ev, nr_events = d->info.session.nr_events;
	char more[64] = "";
	struct kp_tui *t;
	int nr;

	if (nr_events > KPROF_MAX_EVENTS)
		nr_events = KPROF_MAX_EVENTS;
	for (ev = 0; ev < nr_events; ev++) {
		names[ev] = kp_decoder__event_name(d, ev);
		samples[ev] = d->events[ev].samples;
	}
	if (kp_decoder__lost(d))
		snprintf(more, sizeof(more), ", Lost: %" PRIu64, kp_decoder__lost(d));
	nr = report__tui_views(rep, names, nr_events, samples, more, views);
	if (nr < 0)
		return nr;
	t = kp_tui__open(&ops);
	if (!t) {
		while (nr--)
			kp_tui_view__exit(&views[nr]);
		return 1;
	}
	kp_tui__set_views(t, views, nr);
	while (!kp_tui__poll(t, -1))
		;
	kp_tui__close(t);
	return 0;
}

/* ---- top's full-screen view: its samples counted as report counts them ---- */

static int parse_sort(struct report *rep, const char *cmd, const char *s);

struct report *report__top_new(void)
{
	struct report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return NULL;
	rep->fp = stdout;
	rep->cg_threshold = 0.5;
	rep->max_stack = MAX_STACK_DEFAULT;
	rep->callgraph = true;
	if (parse_sort(rep, "top", "dso,symbol") ||
	    kp_filter__init(&rep->filter, "top", NULL, NULL, NULL, NULL, false, false)) {
		free(rep);
		return NULL;
	}
	return rep;
}

int report__top_add(struct report *rep, const struct kp_resolved *s)
{
	return report__sample(NULL, s, rep);
}

int report__top_views(struct report *rep, const char * const *names, unsigned int nr_events,
		      const char *more, struct kp_tui_view *views)
{
	return report__tui_views(rep, names, nr_events, rep->samples, more, views);
}

void report__top_delete(struct report *rep)
{
	if (!rep)
		return;
	report__exit(rep);
	free(rep);
}

/* ---- options ---- */

static int parse_sort(struct report *rep, const char *cmd, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	unsigned int k;

	if (!copy)
		return KP_EXIT_FAILURE;
	rep->nr_keys = 0;
	memset(rep->has, 0, sizeof(rep->has));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < SORT_NR; k++)
			if (!strcmp(tok, sort_keys[k].name) ||
			    (k == SORT_SYM && !strcmp(tok, "sym")))
				break;
		if (k == SORT_NR) {
			kp_error(cmd, "unknown --sort key '%s' (" SORT_KEY_NAMES ")", tok);
			free(copy);
			return KP_EXIT_USAGE;
		}
		if (rep->has[k])
			continue;
		rep->has[k] = true;
		rep->keys[rep->nr_keys++] = k;
	}
	free(copy);
	if (!rep->nr_keys) {
		kp_error(cmd, "bad --sort value '%s'", s);
		return KP_EXIT_USAGE;
	}
	return 0;
}

/* "caller", "callee", "graph", a threshold, separated by commas. */
static int parse_call_graph(struct report *rep, const char *cmd, const char *s)
{
	char *copy = strdup(s), *tok, *save = NULL;
	int ret = 0;

	if (!copy)
		return KP_EXIT_FAILURE;
	rep->callgraph = true;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double v;

		if (!strcmp(tok, "caller")) {
			rep->caller = true;
		} else if (!strcmp(tok, "callee")) {
			rep->caller = false;
		} else if (!strcmp(tok, "graph")) {
			continue;
		} else if (!strcmp(tok, "none")) {
			rep->callgraph = false;
		} else {
			if (kp_parse_percent(tok, &v)) {
				bool kind = !strcmp(tok, "flat") || !strcmp(tok, "fractal") ||
					    !strcmp(tok, "folded");

				kp_error(cmd, "bad --call-graph value '%s' (graph, caller, callee, none, "
					 "or a threshold in percent%s)", tok,
					 kind ? "; kprofctl prints graphs: 'kprofctl folded' folds" : "");
				ret = KP_EXIT_USAGE;
				break;
			}
			rep->cg_threshold = v;
		}
	}
	free(copy);
	return ret;
}

/*
 * Is @s the value of perf's "-g VALUE" (given as the next argument): words
 * of --call-graph (graph, caller, callee, none, a threshold) separated by
 * commas?  Anything else is the next option.
 */
static bool report__is_call_graph(const char *s)
{
	static const char *const words[] = { "graph", "caller", "callee", "none",
					      "flat", "fractal", "folded" };	/* refused later */
	const char *p = s, *e;
	size_t i;

	if (!*s || *s == '-')
		return false;
	for (; *p; p = *e ? e + 1 : e) {
		bool known = false;

		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		for (i = 0; i < KP_ARRAY_SIZE(words); i++)
			known |= (size_t)(e - p) == strlen(words[i]) && !strncmp(p, words[i], e - p);
		if (!known && (e == p || !isdigit((unsigned char)*p)))
			return false;
	}
	return true;
}

int cmd_report(int argc, const char **argv)
{
	const char *cmd = argv[0], *sort = "comm,dso,symbol";
	const char *call_graph = NULL, *limit = NULL, *max_stack = NULL, *parent = NULL;
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { 0 };
	struct report rep = { .fp = stdout, .cg_threshold = 0.5, .max_stack = MAX_STACK_DEFAULT };
	bool graph = false, inverted = false, stdio_ = false, tui_ = false, header = false;
	bool header_only = false, tui;
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		OPT_STRING('s', "sort", &sort, "key[,key...]",
			   "sort by comm, dso, symbol, pid, tid, cpu, srcline, period, parent (default comm,dso,symbol)"),
		OPT_STRING('p', "parent", &parent, "regex",
			   "the parent: the first caller matching this (default '" PARENT_DEFAULT "'); adds --sort parent"),
		OPT_BOOLEAN('x', "exclude-other", &rep.exclude_other,
			    "only the entries with a parent (--sort parent)"),
		OPT_BOOLEAN('g', NULL, &graph, "show call graphs (-g caller: from the callers)"),
		OPT_STRING(0, "call-graph", &call_graph, "caller|callee[,threshold]",
			   "call graph order and threshold (default callee,0.5)"),
		OPT_BOOLEAN('G', "inverted", &inverted, "call graphs in caller order"),
		OPT_STRING(0, "percent-limit", &limit, "percent", "hide entries below this"),
		OPT_BOOLEAN('n', "show-nr-samples", &rep.show_nr, "show the number of samples"),
		OPT_BOOLEAN(0, "stdio", &stdio_, "text output, not the full-screen browser"),
		OPT_BOOLEAN(0, "tui", &tui_, "the full-screen browser even when not on a terminal"),
		OPT_BOOLEAN(0, "children", &rep.children,
			    "a Children column: the samples with the entry anywhere in their chain"),
		OPT_STRING(0, "max-stack", &max_stack, "n",
			   "use n frames of each call chain (-g, --children, --parent; default 127)"),
		OPT_BOOLEAN('T', "threads", &rep.threads, "then the event counts of each thread"),
		OPT_BOOLEAN(0, "header", &header, "show the recording's header first"),
		OPT_BOOLEAN(0, "header-only", &header_only, "show the recording's header only"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS_USER(&a, "entries", 0),
		OPT_BOOLEAN('U', "hide-unresolved", &rep.hide_unresolved,
			    "only samples whose function is resolved to a symbol (perf's -U)"),
		KP_DECODE_PERF_PID_OPTIONS(&a),
		OPT_END()
	};
	const char *av[64];
	struct kp_decoder d;
	bool chains;
	int ac, i, ret;

	/* perf's "-g caller", "-g graph,0.5,caller": an optional value in the next argument */
	if (argc > (int)KP_ARRAY_SIZE(av) - 2) {
		kp_error(cmd, "too many arguments");
		return KP_EXIT_USAGE;
	}
	for (i = ac = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-g") && i + 1 < argc && report__is_call_graph(argv[i + 1])) {
			av[ac++] = "--call-graph";
			av[ac++] = argv[++i];
			continue;
		}
		av[ac++] = argv[i];
	}
	av[ac] = NULL;
	ac = parse_options(ac, av, options, report_usage, 0);
	if (ac < 0)
		return parse_options_exit_code(ac);
	if (parse_options_max_args(cmd, ac, av, 0) || kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	if (stdio_ && tui_) {
		kp_error(cmd, "--stdio and --tui exclude each other");
		return KP_EXIT_USAGE;
	}
	ret = parse_sort(&rep, cmd, sort);
	/* perf: -p adds the parent key */
	if (!ret && parent && !rep.has[SORT_PARENT] && rep.nr_keys < SORT_NR) {
		rep.has[SORT_PARENT] = true;
		rep.keys[rep.nr_keys++] = SORT_PARENT;
	}
	if (!ret && rep.has[SORT_PARENT]) {
		int err = regcomp(&rep.parent_re, parent ? parent : PARENT_DEFAULT,
				  REG_EXTENDED | REG_NOSUB);

		if (err) {
			char msg[128];

			regerror(err, &rep.parent_re, msg, sizeof(msg));
			kp_error(cmd, "bad --parent regex '%s': %s", parent, msg);
			ret = KP_EXIT_USAGE;
		} else {
			rep.parent_set = true;
		}
	}
	if (!ret && max_stack && kp_parse_uint(max_stack, &rep.max_stack)) {
		kp_error(cmd, "bad --max-stack value '%s' (a number of frames, 0 or more)",
			 max_stack);
		ret = KP_EXIT_USAGE;
	}
	if (!ret && graph)
		rep.callgraph = true;
	if (!ret && call_graph)
		ret = parse_call_graph(&rep, cmd, call_graph);
	if (!ret && inverted) {
		rep.callgraph = true;
		rep.caller = true;
	}
	if (!ret && limit && kp_parse_percent(limit, &rep.percent_limit)) {
		kp_error(cmd, "bad --percent-limit value '%s' (0 to 100)", limit);
		ret = KP_EXIT_USAGE;
	}
	if (!ret)
		ret = kp_decode_args__filter(&a, &rep.filter, cmd);
	if (ret) {
		report__exit(&rep);
		return ret;
	}
	/* the browser: not for the header or -T's table; its entries unfold */
	tui = kp_tui__wanted(tui_, stdio_) && !header && !header_only && !rep.threads;
	if (tui && !call_graph && !graph && !inverted)
		rep.callgraph = true;
	/* a flat report needs the innermost frames only, --parent all of them */
	chains = rep.callgraph || rep.children || rep.has[SORT_PARENT];
	opts.max_frames = chains ? 0 : 1;
	if (kp_decode_args__open(&a, &d, &opts, cmd)) {
		report__exit(&rep);
		return KP_EXIT_FAILURE;
	}
	if (rep.has[SORT_SRCLINE]) {
		rep.srcline = kp_srcline__new(kp_machine__debug_dir(d.machine));
		if (!rep.srcline) {
			kp_decoder__close(&d);
			report__exit(&rep);
			return kp_decode__exit_code(cmd, -ENOMEM);
		}
	}
	if (header || header_only) {
		kp_decoder__fprintf_header(&d, rep.fp);
		if (header_only) {
			kp_decoder__close(&d);
			report__exit(&rep);
			return KP_EXIT_OK;
		}
	}
	/* call graphs: resolve each distinct stack once; flat: one frame a sample */
	if (chains)
		ret = kp_decoder__for_each_stack(&d, (rep.has[SORT_TID] || rep.filter.nr_tids ||
						      rep.threads ? KP_STACK_TID : 0) |
						 (rep.has[SORT_CPU] ? KP_STACK_CPU : 0),
						 report__sample, &rep);
	else
		ret = kp_decoder__for_each(&d, report__sample, &rep);
	if (!ret && tui) {
		ret = report__browse(&rep, &d, &a, &opts.machine);
		if (ret > 0)
			fprintf(stderr, "kprofctl: report: no terminal for the browser (TERM=%s): the text instead\n",
				getenv("TERM") ? getenv("TERM") : "");
		if (ret > 0 && !graph && !call_graph && !inverted)
			rep.callgraph = false;
		tui = ret == 0;
		if (ret > 0)
			ret = 0;
	}
	if (!ret && !tui)
		ret = report__print(&rep, &d);
	kp_decoder__close(&d);
	report__exit(&rep);
	return kp_decode__exit_code(cmd, ret);
}
