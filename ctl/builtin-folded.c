// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl folded [-i <file> | --live] [<options>]
 *
 * Collapsed stacks, the input of flame graphs: one line per distinct
 * stack, "COMM;OUTERMOST;...;INNERMOST COUNT", sorted.  The names are the
 * ones FlameGraph's stackcollapse-perf.pl makes of 'kprofctl script'
 * (a frame without a symbol is [DSO basename], or [unknown]; ';' becomes
 * ':', what follows a '(' and quotes are dropped; spaces in COMM become
 * '_'), so both routes give the same lines.  COUNT is the number of
 * samples, or with --period the sum of their periods; in a recording with
 * off-CPU time (record --off-cpu) always the periods, nanoseconds for
 * both, the off-CPU stacks under an "[off-cpu]" frame after COMM.  --live reads the
 * aggregation tables of the running session instead (lib/agg.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/hmap.h"
#include "lib/out.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char * const folded_usage[] = {
	"kprofctl folded [-i <file> | --live] [<options>]",
	"",
	"Print the collapsed stacks of kprof.data, 'comm;outer;...;inner count',",
	"one line per distinct stack, sorted: the input of flame graphs.  With",
	"--live, of the aggregation tables of the running session ('kprofctl",
	"start'), user frames named while the processes live.",
	NULL
};


/* Distinct stacks: words are interned name pointers, comm first. */
struct stack_entry {
	uint64_t	hash;
	size_t		word;		/* first word in ->words */
	uint32_t	nr;		/* words */
	uint64_t	count;
	char		*line;		/* when printing */
};

struct folded {
	struct kp_filter	filter;
	bool			period;
	bool			time;		/* off-CPU time in the file: weigh by ns */
	bool			annotate_kernel;	/* "_[k]" after kernel frames */
	bool			pid, tid;
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

static char *folded__keep(struct folded *fo, char *s)
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
static const char *folded__name(struct folded *fo, const struct kp_frame *f, bool java)
{
	uint64_t key = (uintptr_t)(f->sym ? (const void *)f->sym : (const void *)f->dso);
	const char *name;
	char *s;

	if (!key)
		return KP_UNKNOWN;
	if (java) {
		/* rare: not cached, the tidying depends on the comm */
		s = tidy_name(f->sym ? f->sym->name : KP_UNKNOWN, true);
		return folded__keep(fo, s);
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
	name = folded__keep(fo, s);
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
static const char *folded__intern(struct folded *fo, const char *s)
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
	fo->interned[i] = folded__keep(fo, strdup(s));
	if (fo->interned[i])
		fo->iused++;
	return fo->interned[i];
}

static int folded__grow(struct folded *fo)
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

static int folded__add(struct folded *fo, const char **key, uint32_t nr, uint64_t count)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	struct stack_entry *e;
	uint32_t k;
	size_t i;

	for (k = 0; k < nr; k++)
		h = (h ^ (uintptr_t)key[k]) * 0x100000001b3ULL;
	h ^= h >> 29;
	if ((!fo->stacks || (fo->used + 1) * 2 > fo->mask + 1) && folded__grow(fo))
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

static int folded__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct folded *fo = arg;
	unsigned int i, first, last;
	uint32_t nr = 0;
	bool java;
	char buf[64];

	(void)d;
	if (!kp_filter__sample(&fo->filter, s, &first, &last))
		return 0;
	java = !strcmp(s->comm, "java");
	if (fo->pid || fo->tid) {
		char *p;

		if (fo->tid)
			snprintf(buf, sizeof(buf), "%s-%u/%u", s->comm, s->rec->pid, s->rec->tid);
		else
			snprintf(buf, sizeof(buf), "%s-%u", s->comm, s->rec->pid);
		for (p = buf; *p; p++)
			if (*p == ' ')
				*p = '_';
		fo->key[nr++] = folded__intern(fo, buf);
	} else {
		fo->key[nr++] = s->comm;
	}
	if (!fo->key[0])
		return -ENOMEM;
	/* record --off-cpu: the blocked time under its own root, beside the samples */
	if (s->offcpu)
		fo->key[nr++] = "[off-cpu]";
	for (i = last; i-- > first;) {
		const char *name = folded__name(fo, &s->frames[i], java);

		if (!name)
			return -ENOMEM;
		if (*name && fo->annotate_kernel && s->frames[i].kernel) {
			char *k;

			if (asprintf(&k, "%s_[k]", name) < 0)
				return -ENOMEM;
			name = folded__intern(fo, k);
			free(k);
			if (!name)
				return -ENOMEM;
		}
		if (*name)
			fo->key[nr++] = name;
	}
	return folded__add(fo, fo->key, nr, fo->period || fo->time ? s->rec->period : s->count);
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

static int folded__print(struct folded *fo)
{
	struct kp_out *out = kp_out__new(stdout);
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

static void folded__exit(struct folded *fo)
{
	size_t i;

	for (i = 0; i < fo->nr_strs; i++)
		free(fo->strs[i]);
	free(fo->strs);
	kp_hmap__exit(&fo->names);
	free(fo->interned);
	free(fo->stacks);
	free(fo->words);
	kp_filter__exit(&fo->filter);
}

int cmd_folded(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { 0 };
	struct folded fo = { 0 };
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
		OPT_BOOLEAN(0, "period", &fo.period, "count periods, not samples"),
		OPT_BOOLEAN(0, "annotate-kernel", &fo.annotate_kernel,
			    "suffix kernel frames with _[k], as stackcollapse-perf.pl --kernel"),
		OPT_BOOLEAN(0, "pid", &fo.pid, "COMM-PID as the first frame"),
		OPT_BOOLEAN(0, "tid", &fo.tid, "COMM-PID/TID as the first frame"),
		OPT_END()
	};
	struct kp_decoder d;
	int ret;

	argc = parse_options(argc, argv, options, folded_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0) || kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	ret = kp_decode_args__filter(&a, &fo.filter, cmd);
	if (ret) {
		kp_filter__exit(&fo.filter);
		return ret;
	}
	if (kp_decode_args__open(&a, &d, &opts, cmd)) {
		folded__exit(&fo);
		return KP_EXIT_FAILURE;
	}
	fo.time = kp_decoder__has_offcpu(&d);
	ret = kp_decoder__for_each_stack(&d, fo.tid || fo.filter.nr_tids ? KP_STACK_TID : 0,
					 folded__sample, &fo);
	if (!ret)
		ret = folded__print(&fo);
	kp_decoder__close(&d);
	folded__exit(&fo);
	return kp_decode__exit_code(cmd, ret);
}
