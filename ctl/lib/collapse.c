// SPDX-License-Identifier: GPL-2.0
/*
 * Collapsed stacks of decoded samples: one line per distinct stack,
 * "COMM;OUTERMOST;...;INNERMOST COUNT", sorted, with the names that
 * FlameGraph's stackcollapse-perf.pl makes of 'kprofctl script' (a frame
 * without a symbol is [DSO basename], or [unknown]; ';' becomes ':', what
 * follows a '(' and quotes are dropped; spaces in COMM become '_').  COUNT
 * is the number of samples, or with ->period the sum of their periods; in
 * a recording with off-CPU time always the periods, nanoseconds for both,
 * the off-CPU stacks under an "[off-cpu]" frame after COMM.  What 'kprofctl
 * folded' prints and the daemon's folded profiles hold.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collapse.h"
#include "hmap.h"
#include "out.h"

/* kp_collapse_opts.filter NULL: every sample, every frame */
static const struct kp_filter no_filter;

/* Distinct stacks: words are interned name pointers, comm first. */
struct stack_entry {
	uint64_t	hash;
	size_t		word;		/* first word in ->words */
	uint32_t	nr;		/* words */
	uint64_t	count;
	char		*line;		/* when printing */
};

struct collapse {
	const struct kp_collapse_opts *o;
	bool			time;		/* off-CPU time in the file: weigh by ns */
	struct kp_hmap		names;	/* symbol (or DSO) -> its name, tidied once */
	struct stack_entry	*stacks;	/* open addressing; nr == 0: empty */
	size_t			mask, used;
	const char		**words;
	size_t			nr_words, words_alloc;
	char			**strs;		/* names made here */
	size_t			nr_strs;
	const char		**interned;		/* "comm-pid/tid" names */
	size_t			imask, iused;
	const char		*key[KP_MAX_FRAMES + 2];	/* comm, [off-cpu], frames */
};

static char *collapse__keep(struct collapse *fo, char *s)
{
	char **strs;

	if (!s)
		return NULL;
	strs = realloc(fo->strs, (fo->nr_strs + 1) * sizeof(*strs));
	if (!strs) {
		free(s);
		return NULL;
	}
	fo->strs = strs;
	strs[fo->nr_strs++] = s;
	return s;
}

/* stackcollapse-perf.pl's tidying of a function name, without "+0x..". */
static char *tidy_name(const char *name, bool java)
{
	const char *paren = NULL, *p;
	char *out = malloc(strlen(name) + 1), *o = out;

	if (!out)
		return NULL;
	/* Go methods ("net/http.(*Client).Do") keep their parentheses. */
	p = strchr(name, '(');
	if (p && !(strstr(name, ".(") && strstr(p, ")."))) {
		for (p = name; (p = strchr(p, '(')); p++) {
			if (strncmp(p, "(anonymous namespace)", 21)) {
				paren = p;
				break;
			}
		}
	}
	for (p = name; *p && p != paren; p++) {
		if (*p == ';')
			*o++ = ':';
		else if (*p != '"' && *p != '\'')
			*o++ = *p;
	}
	*o = '\0';
	if (java && out[0] == 'L' && strchr(out, '/'))
		memmove(out, out + 1, strlen(out));
	return out;
}

/* The folded name of @f; NULL on ENOMEM, "" for a frame to skip. */
static const char *collapse__name(struct collapse *fo, const struct kp_frame *f, bool java)
{
	uint64_t key = (uintptr_t)(f->sym ? (const void *)f->sym : (const void *)f->dso);
	const char *name;
	char *s;

	if (!key)
		return KP_UNKNOWN;
	if (java) {
		/* rare: not cached, the tidying depends on the comm */
		s = tidy_name(f->sym ? f->sym->name : KP_UNKNOWN, true);
		return collapse__keep(fo, s);
	}
	name = kp_hmap__get(&fo->names, key);
	if (name)
		return name;
	if (f->sym) {
		s = tidy_name(f->sym->name, false);
	} else {
		const char *base = strrchr(f->dso->name, '/');
		char *tmp;

		base = base ? base + 1 : f->dso->name;
		if (asprintf(&tmp, "[%s]", base) < 0)
			return NULL;
		s = tidy_name(tmp, false);
		free(tmp);
	}
	name = collapse__keep(fo, s);
	if (!name)
		return NULL;
	/*
	 * stackcollapse-perf.pl skips names starting with '(' (perf's
	 * unresolved "(dso)"); a C++ "(anonymous namespace)::f" is kept.
	 */
	if (name[0] == '(' && strncmp(name, "(anonymous namespace)", 21))
		name = "";
	/* out of memory: named again next time, nothing is lost */
	kp_hmap__put(&fo->names, key, (void *)name);
	return name;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* One copy of each "comm-pid/tid" name, so that stacks compare pointers. */
static const char *collapse__intern(struct collapse *fo, const char *s)
{
	size_t i, j;

	if (!fo->interned || (fo->iused + 1) * 2 > fo->imask + 1) {
		size_t size = fo->interned ? (fo->imask + 1) * 2 : 256;
		const char **n = calloc(size, sizeof(*n));

		if (!n)
			return NULL;
		for (i = 0; fo->interned && i <= fo->imask; i++) {
			if (!fo->interned[i])
				continue;
			for (j = str_hash(fo->interned[i]) & (size - 1); n[j]; j = (j + 1) & (size - 1))
				;
			n[j] = fo->interned[i];
		}
		free(fo->interned);
		fo->interned = n;
		fo->imask = size - 1;
	}
	for (i = str_hash(s) & fo->imask; fo->interned[i]; i = (i + 1) & fo->imask)
		if (!strcmp(fo->interned[i], s))
			return fo->interned[i];
	fo->interned[i] = collapse__keep(fo, strdup(s));
	if (fo->interned[i])
		fo->iused++;
	return fo->interned[i];
}

static int collapse__grow(struct collapse *fo)
{
	size_t size = fo->mask ? (fo->mask + 1) * 2 : 4096, i, j;
	struct stack_entry *n = calloc(size, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; fo->stacks && i <= fo->mask; i++) {
		if (!fo->stacks[i].nr)
			continue;
		for (j = fo->stacks[i].hash & (size - 1); n[j].nr; j = (j + 1) & (size - 1))
			;
		n[j] = fo->stacks[i];
	}
	free(fo->stacks);
	fo->stacks = n;
	fo->mask = size - 1;
	return 0;
}

static int collapse__add(struct collapse *fo, const char **key, uint32_t nr, uint64_t count)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stack_entry *e;
	uint32_t k;
	size_t i;

	for (k = 0; k < nr; k++)
		h = (h ^ (uintptr_t)key[k]) * 0x100000001b3ULL;
	h ^= h >> 29;
	if ((!fo->stacks || (fo->used + 1) * 2 > fo->mask + 1) && collapse__grow(fo))
		return -ENOMEM;
	for (i = h & fo->mask; fo->stacks[i].nr; i = (i + 1) & fo->mask) {
		e = &fo->stacks[i];
		if (e->hash == h && e->nr == nr &&
		    !memcmp(&fo->words[e->word], key, nr * sizeof(*key))) {
			e->count += count;
			return 0;
		}
	}
	if (fo->nr_words + nr > fo->words_alloc) {
		size_t n = fo->words_alloc ? fo->words_alloc : 65536;
		const char **w;

		while (n < fo->nr_words + nr)
			n *= 2;
		w = realloc(fo->words, n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		fo->words = w;
		fo->words_alloc = n;
	}
	memcpy(&fo->words[fo->nr_words], key, nr * sizeof(*key));
	e = &fo->stacks[i];
	e->hash = h;
	e->word = fo->nr_words;
	e->nr = nr;
	e->count = count;
	fo->nr_words += nr;
	fo->used++;
	return 0;
}

static int collapse__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct collapse *fo = arg;
	unsigned int i, first, last;
	uint32_t nr = 0;
	bool java;
	char buf[64];

	(void)d;
	if (!kp_filter__sample(fo->o->filter ? fo->o->filter : &no_filter, s, &first, &last))
		return 0;
	java = !strcmp(s->comm, "java");
	if (fo->o->pid || fo->o->tid) {
		char *p;

		if (fo->o->tid)
			snprintf(buf, sizeof(buf), "%s-%u/%u", s->comm, s->rec->pid, s->rec->tid);
		else
			snprintf(buf, sizeof(buf), "%s-%u", s->comm, s->rec->pid);
		for (p = buf; *p; p++)
			if (*p == ' ')
				*p = '_';
		fo->key[nr++] = collapse__intern(fo, buf);
	} else {
		fo->key[nr++] = s->comm;
	}
	if (!fo->key[0])
		return -ENOMEM;
	/* record --off-cpu: the blocked time under its own root, beside the samples */
	if (s->offcpu)
		fo->key[nr++] = "[off-cpu]";
	for (i = last; i-- > first;) {
		const char *name = collapse__name(fo, &s->frames[i], java);

		if (!name)
			return -ENOMEM;
		if (*name && fo->o->annotate_kernel && s->frames[i].kernel) {
			char *k;

			if (asprintf(&k, "%s_[k]", name) < 0)
				return -ENOMEM;
			name = collapse__intern(fo, k);
			free(k);
			if (!name)
				return -ENOMEM;
		}
		if (*name)
			fo->key[nr++] = name;
	}
	return collapse__add(fo, fo->key, nr, fo->o->period || fo->time ? s->rec->period : s->count);
}

static int line__cmp(const void *a, const void *b)
{
	const struct stack_entry *x = *(struct stack_entry * const *)a;
	const struct stack_entry *y = *(struct stack_entry * const *)b;

	return strcmp(x->line, y->line);
}

/* The comm with spaces as '_', as stackcollapse-perf.pl writes it. */
static void put_comm(char *out, size_t *pos, const char *comm)
{
	for (; *comm; comm++)
		out[(*pos)++] = *comm == ' ' ? '_' : *comm;
}

static int collapse__print(struct collapse *fo, FILE *fp)
{
	struct kp_out *out = kp_out__new(fp);
	struct stack_entry **sorted;
	size_t i, n = 0;
	int ret = 0;

	sorted = malloc((fo->used + 1) * sizeof(*sorted));
	if (!sorted || !out) {
		free(sorted);
		free(out);
		return -ENOMEM;
	}
	for (i = 0; fo->stacks && i <= fo->mask; i++) {
		struct stack_entry *e = &fo->stacks[i];
		size_t len = 0, pos = 0;
		uint32_t k;

		if (!e->nr)
			continue;
		for (k = 0; k < e->nr; k++)
			len += strlen(fo->words[e->word + k]) + 1;
		e->line = malloc(len + 1);
		if (!e->line) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (k = 0; k < e->nr; k++) {
			const char *w = fo->words[e->word + k];

			if (k) {
				e->line[pos++] = ';';
				memcpy(e->line + pos, w, strlen(w));
				pos += strlen(w);
			} else {
				put_comm(e->line, &pos, w);
			}
		}
		e->line[pos] = '\0';
		sorted[n++] = e;
	}
	qsort(sorted, n, sizeof(*sorted), line__cmp);
	for (i = 0; i < n; i++) {
		kp_out__str(out, sorted[i]->line);
		kp_out__chr(out, ' ');
		kp_out__u64(out, sorted[i]->count, 0, ' ');
		kp_out__chr(out, '\n');
	}
out_free:
	for (i = 0; fo->stacks && i <= fo->mask; i++) {
		free(fo->stacks[i].line);
		fo->stacks[i].line = NULL;
	}
	free(sorted);
	kp_out__delete(out);
	return ret;
}

static void collapse__exit(struct collapse *fo)
{
	size_t i;

	for (i = 0; i < fo->nr_strs; i++)
		free(fo->strs[i]);
	free(fo->strs);
	kp_hmap__exit(&fo->names);
	free(fo->interned);
	free(fo->stacks);
	free(fo->words);
}

int kp_collapse__write(struct kp_decoder *d, const struct kp_collapse_opts *o, FILE *fp)
{
	struct collapse fo = { .o = o };
	int ret;

	fo.time = kp_decoder__has_offcpu(d);
	ret = kp_decoder__for_each_stack(d, o->tid || (o->filter && o->filter->nr_tids) ?
					 KP_STACK_TID : 0, collapse__sample, &fo);
	if (!ret)
		ret = collapse__print(&fo, fp);
	collapse__exit(&fo);
	return ret;
}
