// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graphs; see flame.h and Documentation/flamegraph.rst.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"
#include "outfile.h"
#include "parse-options.h"

#define NAME_ALL	"all"

/* FNV-1a, then a final avalanche so that every bit counts. */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

/* murmur3's finalizer of the pair. */
static uint32_t hash_pair(uint32_t a, uint32_t b)
{
	uint64_t h = (uint64_t)a << 32 | b;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/* Grow *@p (of *@alloc elements of @size bytes) to hold @need. */
static int grow(void *p, uint32_t *alloc, uint32_t need, size_t size)
{
	uint64_t n = *alloc ? *alloc : 64;
	void *q;

	if (need <= *alloc)
		return 0;
	while (n < need)
		n *= 2;
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	if (n < need)
		return -ENOMEM;
	q = realloc(*(void **)p, n * size);
	if (!q)
		return -ENOMEM;
	*(void **)p = q;
	*alloc = n;
	return 0;
}

/* ---- interned names ---- */

static int name_hash__resize(struct kp_flame *t, uint32_t size)
{
	uint32_t *tab = calloc(size, sizeof(*tab)), i, j;

	if (!tab)
		return -ENOMEM;
	for (i = 0; i < t->nr_names; i++) {
		for (j = t->name_hv[i] & (size - 1); tab[j]; j = (j + 1) & (size - 1))
			;
		tab[j] = i + 1;
	}
	free(t->name_hash);
	t->name_hash = tab;
	t->name_hash_size = size;
	return 0;
}

static int intern(struct kp_flame *t, const char *s, size_t len, uint32_t *out)
{
	uint32_t h = hash_bytes(s, len), j, i;

	for (j = h & (t->name_hash_size - 1); t->name_hash[j]; j = (j + 1) & (t->name_hash_size - 1)) {
		i = t->name_hash[j] - 1;
		if (t->name_hv[i] == h && t->name_len[i] == len &&
		    !memcmp(t->strs + t->name_off[i], s, len)) {
			*out = i;
			return 0;
		}
	}
	if (len >= UINT32_MAX || t->strs_len + len + 1 > UINT32_MAX)
		return -ENOMEM;
	if (t->nr_names + 1 > t->alloc_names) {
		uint32_t a = t->alloc_names, b = t->alloc_names, c = t->alloc_names;

		if (grow(&t->name_off, &a, t->nr_names + 1, sizeof(*t->name_off)) ||
		    grow(&t->name_len, &b, t->nr_names + 1, sizeof(*t->name_len)) ||
		    grow(&t->name_hv, &c, t->nr_names + 1, sizeof(*t->name_hv)))
			return -ENOMEM;
		t->alloc_names = a;
	}
	if (t->strs_len + len + 1 > t->strs_size) {
		size_t size = t->strs_size ? t->strs_size : 4096;
		char *p;

		while (size < t->strs_len + len + 1)
			size *= 2;
		p = realloc(t->strs, size);
		if (!p)
			return -ENOMEM;
		t->strs = p;
		t->strs_size = size;
	}
	i = t->nr_names++;
	memcpy(t->strs + t->strs_len, s, len);
	t->strs[t->strs_len + len] = '\0';
	t->name_off[i] = t->strs_len;
	t->name_len[i] = len;
	t->name_hv[i] = h;
	t->strs_len += len + 1;
	t->name_hash[j] = i + 1;
	*out = i;
	if (t->nr_names * 2 > t->name_hash_size)
		return name_hash__resize(t, t->name_hash_size * 2);
	return 0;
}

static const char *name_str(const struct kp_flame *t, uint32_t name)
{
	return t->strs + t->name_off[name];
}

const char *kp_flame__name(const struct kp_flame *t, uint32_t i, size_t *len)
{
	uint32_t name = t->nodes[i].name;

	if (len)
		*len = t->name_len[name];
	return name_str(t, name);
}

bool kp_flame__is_kernel(const struct kp_flame *t, uint32_t i)
{
	size_t len;
	const char *s = kp_flame__name(t, i, &len);

	return i != KP_FLAME_ROOT && kp_folded__is_kernel(s, len);
}

/* ---- nodes ---- */

static int child_hash__resize(struct kp_flame *t, uint32_t size)
{
	uint32_t *tab = calloc(size, sizeof(*tab)), i, j;

	if (!tab)
		return -ENOMEM;
	for (i = 1; i < t->nr_nodes; i++) {
		const struct kp_flame_node *n = &t->nodes[i];

		for (j = hash_pair(n->parent, n->name) & (size - 1); tab[j]; j = (j + 1) & (size - 1))
			;
		tab[j] = i + 1;
	}
	free(t->child_hash);
	t->child_hash = tab;
	t->child_hash_size = size;
	return 0;
}

static uint32_t find_child(const struct kp_flame *t, uint32_t parent, uint32_t name,
			   uint32_t *slot)
{
	uint32_t mask = t->child_hash_size - 1, j, i;

	for (j = hash_pair(parent, name) & mask; t->child_hash[j]; j = (j + 1) & mask) {
		i = t->child_hash[j] - 1;
		if (t->nodes[i].parent == parent && t->nodes[i].name == name)
			return i;
	}
	if (slot)
		*slot = j;
	return KP_FLAME_NONE;
}

static int new_node(struct kp_flame *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	struct kp_flame_node *n, *p;
	uint32_t i;

	if (t->nr_nodes >= UINT32_MAX - 2 ||
	    grow(&t->nodes, &t->alloc_nodes, t->nr_nodes + 1, sizeof(*t->nodes)))
		return -ENOMEM;
	i = t->nr_nodes++;
	n = &t->nodes[i];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->child = KP_FLAME_NONE;
	n->next = KP_FLAME_NONE;
	if (parent != KP_FLAME_NONE) {
		p = &t->nodes[parent];
		n->depth = p->depth + 1;
		n->next = p->child;
		p->child = i;
		t->sorted = false;
		if (n->depth > t->max_depth)
			t->max_depth = n->depth;
	}
	*out = i;
	return 0;
}

/* The child @name of @parent, created if needed. */
static int get_child(struct kp_flame *t, uint32_t parent, uint32_t name, uint32_t *out)
{
	uint32_t slot, i;
	int ret;

	i = find_child(t, parent, name, &slot);
	if (i != KP_FLAME_NONE) {
		*out = i;
		return 0;
	}
	ret = new_node(t, parent, name, &i);
	if (ret)
		return ret;
	t->child_hash[slot] = i + 1;
	if (t->nr_nodes * 2 > t->child_hash_size) {
		ret = child_hash__resize(t, t->child_hash_size * 2);
		if (ret)
			return ret;
	}
	*out = i;
	return 0;
}

struct kp_flame *kp_flame__new(bool reverse)
{
	struct kp_flame *t = calloc(1, sizeof(*t));
	uint32_t name, root;

	if (!t)
		return NULL;
	t->reverse = reverse;
	t->sorted = true;
	t->name_hash_size = 1024;
	t->child_hash_size = 1024;
	t->name_hash = calloc(t->name_hash_size, sizeof(*t->name_hash));
	t->child_hash = calloc(t->child_hash_size, sizeof(*t->child_hash));
	if (!t->name_hash || !t->child_hash || intern(t, NAME_ALL, strlen(NAME_ALL), &name) ||
	    new_node(t, KP_FLAME_NONE, name, &root)) {
		kp_flame__delete(t);
		return NULL;
	}
	return t;
}

void kp_flame__delete(struct kp_flame *t)
{
	if (!t)
		return;
	free(t->nodes);
	free(t->strs);
	free(t->name_off);
	free(t->name_len);
	free(t->name_hv);
	free(t->name_hash);
	free(t->child_hash);
	free(t->prev);
	free(t->prev_off);
	free(t->prev_len);
	free(t->prev_node);
	free(t->cur_off);
	free(t->cur_len);
	free(t);
}

static int nomem(struct kp_err *err)
{
	kp_err__set(err, ENOMEM, "out of memory building the flame graph");
	return -ENOMEM;
}

int kp_flame__add(struct kp_flame *t, enum kp_flame_set set, const char *stack, size_t len,
		  uint64_t count, struct kp_err *err)
{
	struct kp_flame_node *root = &t->nodes[KP_FLAME_ROOT];
	uint32_t nr = 0, i, j, same, node, name, a;
	size_t start = 0, k;

	if (root->total[set] + count < root->total[set]) {
		kp_err__set(err, ERANGE, "the sample counts add up to more than %" PRIu64,
			    UINT64_MAX);
		return -ERANGE;
	}
	if (len > UINT32_MAX)
		return nomem(err);
	/* Split into frames. */
	for (k = 0; len && k <= len; k++) {
		if (k < len && stack[k] != ';')
			continue;
		if (nr + 1 > t->cur_alloc) {
			a = t->cur_alloc;
			if (grow(&t->cur_off, &a, nr + 1, sizeof(uint32_t)) ||
			    grow(&t->cur_len, &t->cur_alloc, nr + 1, sizeof(uint32_t)))
				return nomem(err);
		}
		t->cur_off[nr] = start;
		t->cur_len[nr] = k - start;
		nr++;
		start = k + 1;
	}
	if (t->reverse) {
		for (i = 0, j = nr ? nr - 1 : 0; i < j; i++, j--) {
			uint32_t o = t->cur_off[i], l = t->cur_len[i];

			t->cur_off[i] = t->cur_off[j];
			t->cur_len[i] = t->cur_len[j];
			t->cur_off[j] = o;
			t->cur_len[j] = l;
		}
	}
	/* Frames in common with the previous stack have the same nodes. */
	for (same = 0; same < nr && same < t->prev_nr; same++)
		if (t->cur_len[same] != t->prev_len[same] ||
		    memcmp(stack + t->cur_off[same], t->prev + t->prev_off[same], t->cur_len[same]))
			break;

	if (nr > t->prev_alloc) {
		a = t->prev_alloc;
		if (grow(&t->prev_off, &a, nr, sizeof(uint32_t)))
			return nomem(err);
		a = t->prev_alloc;
		if (grow(&t->prev_len, &a, nr, sizeof(uint32_t)) ||
		    grow(&t->prev_node, &t->prev_alloc, nr, sizeof(uint32_t)))
			return nomem(err);
	}
	node = same ? t->prev_node[same - 1] : KP_FLAME_ROOT;
	for (i = same; i < nr; i++) {
		if (intern(t, stack + t->cur_off[i], t->cur_len[i], &name) ||
		    get_child(t, node, name, &node))
			goto fail;
		t->prev_node[i] = node;
	}
	/* Remember this stack. */
	if (len > t->prev_size) {
		char *p = realloc(t->prev, len);

		if (!p)
			goto fail;
		t->prev = p;
		t->prev_size = len;
	}
	memcpy(t->prev, stack, len);
	memcpy(t->prev_off, t->cur_off, nr * sizeof(uint32_t));
	memcpy(t->prev_len, t->cur_len, nr * sizeof(uint32_t));
	t->prev_nr = nr;

	t->nodes[KP_FLAME_ROOT].total[set] += count;
	for (i = 0; i < nr; i++)
		t->nodes[t->prev_node[i]].total[set] += count;
	t->nodes[nr ? t->prev_node[nr - 1] : KP_FLAME_ROOT].self[set] += count;
	t->nr_lines[set]++;
	return 0;
fail:
	t->prev_nr = 0;
	return nomem(err);
}

struct read_ctx {
	struct kp_flame		*t;
	enum kp_flame_set	set;
	bool			two;
};

static int read_line(void *arg, const struct kp_folded_line *l, struct kp_err *err)
{
	struct read_ctx *ctx = arg;
	int ret;

	ctx->two = l->two;
	if (l->two) {
		ret = kp_flame__add(ctx->t, KP_FLAME_BASE, l->stack, l->len, l->count0, err);
		if (ret)
			return ret;
		return kp_flame__add(ctx->t, KP_FLAME_NEW, l->stack, l->len, l->count, err);
	}
	return kp_flame__add(ctx->t, ctx->set, l->stack, l->len, l->count, err);
}

int kp_flame__read(struct kp_flame *t, enum kp_flame_set set, const char *path, bool *two,
		   struct kp_err *err)
{
	struct read_ctx ctx = { .t = t, .set = set };
	int ret;

	ret = kp_folded__read_path(path, read_line, &ctx, err);
	if (two)
		*two = ctx.two;
	return ret;
}

uint32_t kp_flame__find(const struct kp_flame *t, uint32_t parent, const char *name)
{
	size_t len = strlen(name);
	uint32_t h = hash_bytes(name, len), j, i;

	for (j = h & (t->name_hash_size - 1); t->name_hash[j]; j = (j + 1) & (t->name_hash_size - 1)) {
		i = t->name_hash[j] - 1;
		if (t->name_len[i] == len && !memcmp(name_str(t, i), name, len))
			return find_child(t, parent, i, NULL);
	}
	return KP_FLAME_NONE;
}

uint32_t kp_flame__lookup(const struct kp_flame *t, const char *stack)
{
	uint32_t node = KP_FLAME_ROOT;
	char frame[4096];
	const char *p = stack, *semi;
	size_t len;

	while (node != KP_FLAME_NONE && *p) {
		semi = strchr(p, ';');
		len = semi ? (size_t)(semi - p) : strlen(p);
		if (len >= sizeof(frame))
			return KP_FLAME_NONE;
		memcpy(frame, p, len);
		frame[len] = '\0';
		node = kp_flame__find(t, node, frame);
		p += len + !!semi;
	}
	return node;
}

/* ---- traversal ---- */

/*
 * Pre-order walk of the tree: @enter(node) (false: skip the subtree), and
 * @leave(node) after the subtree of every entered node.
 */
static void walk(const struct kp_flame *t, bool (*enter)(uint32_t n, void *ctx),
		 void (*leave)(uint32_t n, void *ctx), void *ctx)
{
	uint32_t n = KP_FLAME_ROOT;

	for (;;) {
		if (enter(n, ctx) && t->nodes[n].child != KP_FLAME_NONE) {
			n = t->nodes[n].child;
			continue;
		}
		for (;;) {
			if (leave)
				leave(n, ctx);
			if (n == KP_FLAME_ROOT)
				return;
			if (t->nodes[n].next != KP_FLAME_NONE) {
				n = t->nodes[n].next;
				break;
			}
			n = t->nodes[n].parent;
		}
	}
}

static int cmp_names(const void *a, const void *b, void *arg)
{
	const struct kp_flame *t = arg;

	return strcmp(kp_flame__name(t, *(const uint32_t *)a, NULL),
		      kp_flame__name(t, *(const uint32_t *)b, NULL));
}

int kp_flame__sort(struct kp_flame *t, struct kp_err *err)
{
	uint32_t *kids = NULL, alloc = 0, nr, i, c;

	if (t->sorted)
		return 0;
	for (i = 0; i < t->nr_nodes; i++) {
		struct kp_flame_node *n = &t->nodes[i];

		if (n->child == KP_FLAME_NONE || t->nodes[n->child].next == KP_FLAME_NONE)
			continue;
		nr = 0;
		for (c = n->child; c != KP_FLAME_NONE; c = t->nodes[c].next) {
			if (grow(&kids, &alloc, nr + 1, sizeof(*kids))) {
				free(kids);
				return nomem(err);
			}
			kids[nr++] = c;
		}
		qsort_r(kids, nr, sizeof(*kids), cmp_names, t);
		n->child = kids[0];
		for (c = 0; c + 1 < nr; c++)
			t->nodes[kids[c]].next = kids[c + 1];
		t->nodes[kids[nr - 1]].next = KP_FLAME_NONE;
	}
	free(kids);
	t->sorted = true;
	return 0;
}

/* ---- colours ---- */

int kp_flame__parse_palette(const char *s, enum kp_flame_palette *p)
{
	if (!strcmp(s, "hot"))
		*p = KP_FLAME_HOT;
	else if (!strcmp(s, "io"))
		*p = KP_FLAME_IO;
	else if (!strcmp(s, "mem"))
		*p = KP_FLAME_MEM;
	else if (!strcmp(s, "lock"))
		*p = KP_FLAME_LOCK;
	else
		return -EINVAL;
	return 0;
}

void kp_flame__color(enum kp_flame_palette palette, const char *name, size_t len,
		     char *buf, size_t size)
{
	bool kernel = kp_folded__is_kernel(name, len);
	uint32_t h;
	double v1, v2, v3;
	int r, g, b;

	if (kernel)
		len -= KP_FOLDED_KERNEL_SUFFIX_LEN;
	/* The shade comes from the name alone: the same in every graph. */
	h = hash_bytes(name, len);
	v1 = (h & 0x3ff) / 1023.0;
	v2 = (h >> 10 & 0x3ff) / 1023.0;
	v3 = (h >> 20 & 0x3ff) / 1023.0;
	switch (palette) {
	case KP_FLAME_IO:
		if (kernel) {		/* purple */
			r = 190 + 65 * v1;
			g = 80 + 60 * v2;
			b = 190 + 65 * v1;
		} else {		/* blue */
			r = 80 + 60 * v1;
			g = r;
			b = 190 + 55 * v2;
		}
		break;
	case KP_FLAME_MEM:
		if (kernel) {		/* yellow */
			r = 175 + 55 * v1;
			g = r;
			b = 50 + 20 * v2;
		} else {		/* green */
			r = 0;
			g = 190 + 50 * v2;
			b = 210 * v1;
		}
		break;
	case KP_FLAME_LOCK:
		if (len && name[0] == '[') {	/* the lock type: red */
			r = 200 + 55 * v1;
			g = 40 * v2;
			b = 40 * v2;
		} else {		/* the waiters' frames: orange */
			r = 220 + 35 * v1;
			g = 120 + 60 * v2;
			b = 30 * v3;
		}
		break;
	case KP_FLAME_HOT:
	default:
		if (kernel) {		/* aqua */
			r = 50 + 60 * v1;
			g = 165 + 55 * v2;
			b = 165 + 55 * v2;
		} else {		/* red to yellow */
			r = 205 + 50 * v3;
			g = 230 * v1;
			b = 55 * v2;
		}
		break;
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

void kp_flame__diff_color(double delta, double maxdelta, char *buf, size_t size)
{
	int r = 255, g = 255, b = 255;

	if (maxdelta > 0 && delta > 0) {
		g = b = 210 * (maxdelta - delta) / maxdelta;
	} else if (maxdelta > 0 && delta < 0) {
		r = g = 210 * (maxdelta + delta) / maxdelta;
	}
	snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

double kp_flame__base_scale(const struct kp_flame *t, bool normalize)
{
	uint64_t base = kp_flame__total(t, KP_FLAME_BASE), new = kp_flame__total(t, KP_FLAME_NEW);

	if (!normalize || !base || !new)
		return 1.0;
	return (double)new / base;
}

/* ---- SVG ---- */

void kp_flame_opts__init(struct kp_flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->countname = "samples";
	o->width = KP_FLAME_WIDTH_DEFAULT;
	o->frame_height = KP_FLAME_HEIGHT_DEFAULT;
	o->minwidth = KP_FLAME_MINWIDTH_DEFAULT;
	o->palette = KP_FLAME_HOT;
	o->normalize = true;
}

int kp_flame__parse_minwidth(const char *s, struct kp_flame_opts *o)
{
	char *end;
	double v;
	bool pct;

	if (!*s || *s == ' ')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno)
		return errno == ERANGE ? -ERANGE : -EINVAL;
	pct = *end == '%';
	if (pct)
		end++;
	else if (!strcmp(end, "px"))
		end += 2;
	if (*end || !isfinite(v))
		return -EINVAL;
	if (v < 0 || (pct && v > 100))
		return -ERANGE;
	o->minwidth = v;
	o->minwidth_pct = pct;
	return 0;
}

/* Length of the longest valid XML UTF-8 character at @s, or 0. */
static size_t utf8_char(const unsigned char *s, size_t len)
{
	size_t n, i;
	unsigned char c = s[0];

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (c == 0xe0 && s[1] < 0xa0)		/* overlong */
		return 0;
	if (c == 0xed && s[1] >= 0xa0)		/* surrogate */
		return 0;
	if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)	/* U+FFFE, U+FFFF */
		return 0;
	if (c == 0xf0 && s[1] < 0x90)		/* overlong */
		return 0;
	if (c == 0xf4 && s[1] >= 0x90)		/* > U+10FFFF */
		return 0;
	return n;
}

void kp_xml__escape(FILE *fp, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0, n;

	while (i < len) {
		unsigned char c = p[i];
		const char *rep = NULL;

		if (c >= 0x80) {
			n = utf8_char(p + i, len - i);
			if (n) {
				i += n;
				continue;
			}
			rep = "\xef\xbf\xbd";	/* U+FFFD */
		} else if (c < 0x20) {
			rep = "\xef\xbf\xbd";
		} else if (c == '&') {
			rep = "&amp;";
		} else if (c == '<') {
			rep = "&lt;";
		} else if (c == '>') {
			rep = "&gt;";
		} else if (c == '"') {
			rep = "&quot;";
		} else if (c == '\'') {
			rep = "&apos;";
		}
		if (!rep) {
			i++;
			continue;
		}
		fwrite(s + run, 1, i - run, fp);
		fputs(rep, fp);
		run = ++i;
	}
	fwrite(s + run, 1, i - run, fp);
}

static void xml_str(FILE *fp, const char *s)
{
	kp_xml__escape(fp, s, strlen(s));
}

/* 1234567 -> "1,234,567" */
static char *fmt_count(char *buf, size_t size, uint64_t v)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%" PRIu64, v), i, pos = 0;

	for (i = 0; i < len && pos + 2 < (int)size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[pos++] = ',';
		buf[pos++] = tmp[i];
	}
	buf[pos] = '\0';
	return buf;
}

/* How many bytes of the @len-byte label fit in @w px; 0 when none. */
static size_t label_fit(const char *s, size_t len, double w, bool *dots)
{
	double chars = floor((w - 6) / (KP_FLAME_FONT_SIZE * KP_FLAME_FONT_WIDTH));
	size_t cut;

	*dots = false;
	if (chars < 3)
		return 0;
	if ((double)len <= chars)
		return len;
	cut = chars - 2;
	/* Do not cut a UTF-8 character. */
	while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
		cut--;
	*dots = true;
	return cut;
}

struct svg_ctx {
	struct kp_flame			*t;
	const struct kp_flame_opts	*o;
	FILE				*fp;
	double				wps;		/* px per sample */
	double				minw;		/* samples */
	uint64_t			*xs;		/* x (samples) by depth */
	uint32_t			max_depth;	/* of the visible frames */
	uint32_t			nr_frames;
	int				top;		/* y of the frames' area */
	double				scale;		/* of BASE counts */
	double				maxdelta;
	bool				emit;
};

static bool svg_visible(const struct svg_ctx *c, uint32_t n)
{
	uint64_t total = c->t->nodes[n].total[KP_FLAME_NEW];

	return total && (double)total >= c->minw;
}

static double self_delta(const struct svg_ctx *c, uint32_t n)
{
	const struct kp_flame_node *nd = &c->t->nodes[n];

	return (double)nd->self[KP_FLAME_NEW] - (double)nd->self[KP_FLAME_BASE] * c->scale;
}

static void emit_frame(struct svg_ctx *c, uint32_t n, uint64_t x)
{
	const struct kp_flame_node *nd = &c->t->nodes[n];
	const struct kp_flame_opts *o = c->o;
	uint64_t total = nd->total[KP_FLAME_NEW];
	uint64_t all = kp_flame__total(c->t, KP_FLAME_NEW);
	bool kernel = kp_flame__is_kernel(c->t, n), dots;
	double px = KP_FLAME_XPAD + x * c->wps, w = total * c->wps;
	char fill[32], num[32];
	const char *name;
	size_t len, fit;
	int y;

	name = kp_flame__name(c->t, n, &len);
	if (kernel)
		len -= KP_FOLDED_KERNEL_SUFFIX_LEN;
	if (o->inverted)
		y = c->top + nd->depth * o->frame_height;
	else
		y = c->top + (c->max_depth - nd->depth) * o->frame_height;

	fprintf(c->fp, "<g id=\"f%u\"><title>", c->nr_frames++);
	kp_xml__escape(c->fp, name, len);
	fprintf(c->fp, " (%s", kernel ? "kernel, " : "");
	fputs(fmt_count(num, sizeof(num), total), c->fp);
	fputc(' ', c->fp);
	xml_str(c->fp, o->countname);
	fprintf(c->fp, ", %.2f%%", 100.0 * total / all);
	if (o->diff) {
		double d = self_delta(c, n);

		fprintf(c->fp, "; %s%.2f%%", d > 0 ? "+" : "", 100.0 * d / all);
	}
	fputs(")</title>", c->fp);

	if (o->diff)
		kp_flame__diff_color(self_delta(c, n), c->maxdelta, fill, sizeof(fill));
	else
		kp_flame__color(o->palette, name, len + (kernel ? KP_FOLDED_KERNEL_SUFFIX_LEN : 0),
				fill, sizeof(fill));
	fprintf(c->fp, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%u\" fill=\"%s\"/>",
		px, y, w, o->frame_height - 1, fill);
	fprintf(c->fp, "<text x=\"%.2f\" y=\"%.1f\">", px + 3, y + o->frame_height / 2.0 + 4);
	fit = label_fit(name, len, w, &dots);
	kp_xml__escape(c->fp, name, fit);
	if (dots)
		fputs("..", c->fp);
	fputs("</text></g>\n", c->fp);
}

static bool svg_enter(uint32_t n, void *arg)
{
	struct svg_ctx *c = arg;
	uint32_t depth = c->t->nodes[n].depth;

	if (!svg_visible(c, n))
		return false;
	if (c->emit)
		emit_frame(c, n, c->xs[depth]);
	else if (depth > c->max_depth)
		c->max_depth = depth;
	c->xs[depth + 1] = c->xs[depth];
	return true;
}

static void svg_leave(uint32_t n, void *arg)
{
	struct svg_ctx *c = arg;

	c->xs[c->t->nodes[n].depth] += c->t->nodes[n].total[KP_FLAME_NEW];
}

/*
 * The flame graph's script and style: lib/flame.js and lib/flame.css,
 * embedded at build time (.incbin; the Makefile passes their paths and
 * rebuilds this file when they change), each NUL-terminated.
 */
#define KP_FLAME_EMBED(sym, path)						\
	__asm__(".pushsection .rodata\n"					\
		".global " #sym "\n"						\
		".type " #sym ", @object\n"					\
		#sym ":\n"							\
		".incbin \"" path "\"\n"					\
		".byte 0\n"							\
		".size " #sym ", . - " #sym "\n"				\
		".popsection\n")

KP_FLAME_EMBED(kp_flame_script, KP_FLAME_JS);
KP_FLAME_EMBED(kp_flame_style, KP_FLAME_CSS);

int kp_flame__write_svg(struct kp_flame *t, const struct kp_flame_opts *o, FILE *fp,
			struct kp_err *err)
{
	uint64_t all = kp_flame__total(t, KP_FLAME_NEW);
	struct svg_ctx c = { .t = t, .o = o, .fp = fp };
	const char *title = o->title;
	char num[32], sub[128];
	int height, ypad2, ret;
	uint32_t n;

	if (!all) {
		kp_err__set(err, EINVAL, "no samples to draw");
		return -EINVAL;
	}
	ret = kp_flame__sort(t, err);
	if (ret)
		return ret;
	c.xs = calloc(t->max_depth + 2, sizeof(*c.xs));
	if (!c.xs)
		return nomem(err);
	c.wps = (double)(o->width - 2 * KP_FLAME_XPAD) / all;
	c.minw = o->minwidth_pct ? all * o->minwidth / 100 : o->minwidth / c.wps;
	c.scale = kp_flame__base_scale(t, o->normalize);
	/* The largest change of a frame sets the deepest colour. */
	for (n = 0; o->diff && n < t->nr_nodes; n++)
		if (fabs(self_delta(&c, n)) > c.maxdelta)
			c.maxdelta = fabs(self_delta(&c, n));

	walk(t, svg_enter, svg_leave, &c);	/* the visible depth */
	memset(c.xs, 0, (t->max_depth + 2) * sizeof(*c.xs));

	if (!title)
		title = o->diff ? "Differential Flame Graph" :
			o->inverted ? "Icicle Graph" : "Flame Graph";
	if (!o->subtitle)
		snprintf(sub, sizeof(sub), "%s %s", fmt_count(num, sizeof(num), all),
			 o->countname);
	c.top = KP_FLAME_FONT_SIZE * 5;
	ypad2 = KP_FLAME_FONT_SIZE * 2 + 10;
	height = c.top + (c.max_depth + 1) * o->frame_height + ypad2;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
	fprintf(fp, "<svg version=\"1.1\" width=\"%u\" height=\"%d\" viewBox=\"0 0 %u %d\" "
		"onload=\"init(evt)\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		o->width, height, o->width, height);
	fputs("<!-- Generated by kprofctl " KPROF_VERSION
	      ". Click a frame to zoom, Ctrl-F to search; the URL fragment"
	      " #search=REGEX&zoom=fN&ignorecase sets both on load. -->\n", fp);
	fputs("<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>", fp);
	fprintf(fp, "<stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n",
		o->diff ? "#eeeeee" : "#eeeeb0");
	fprintf(fp, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", kp_flame_style);
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var cfg = { width: %u, xpad: %d, fh: %u, fs: %d, fw: %g, top: %d, maxdepth: %u, "
		"inverted: %s, searchcolor: \"rgb(230,0,230)\" };\n%s]]></script>\n",
		o->width, KP_FLAME_XPAD, o->frame_height, KP_FLAME_FONT_SIZE, KP_FLAME_FONT_WIDTH,
		c.top, c.max_depth, o->inverted ? "true" : "false", kp_flame_script);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%d\" fill=\"url(#background)\"/>\n",
		o->width, height);
	fprintf(fp, "<text id=\"title\" x=\"%u\" y=\"%d\">", o->width / 2, KP_FLAME_FONT_SIZE * 2);
	xml_str(fp, title);
	fprintf(fp, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"%d\">", o->width / 2,
		KP_FLAME_FONT_SIZE * 4);
	xml_str(fp, o->subtitle ? o->subtitle : sub);
	fprintf(fp, "</text>\n<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n", KP_FLAME_XPAD,
		height - ypad2 / 2);
	fprintf(fp, "<text id=\"unzoom\" x=\"%d\" y=\"%d\" style=\"opacity:0\">Reset Zoom</text>\n",
		KP_FLAME_XPAD, KP_FLAME_FONT_SIZE * 2);
	fprintf(fp, "<text id=\"search\" x=\"%u\" y=\"%d\" style=\"opacity:0.5\">Search</text>\n",
		o->width - KP_FLAME_XPAD - 30, KP_FLAME_FONT_SIZE * 2);
	fprintf(fp, "<text id=\"ignorecase\" x=\"%u\" y=\"%d\" style=\"opacity:0.5\">ic</text>\n",
		o->width - KP_FLAME_XPAD, KP_FLAME_FONT_SIZE * 2);
	fprintf(fp, "<text id=\"matched\" x=\"%u\" y=\"%d\"> </text>\n", o->width - KP_FLAME_XPAD,
		height - ypad2 / 2);

	fputs("<g id=\"frames\">\n", fp);
	c.emit = true;
	walk(t, svg_enter, svg_leave, &c);
	fputs("</g>\n</svg>\n", fp);
	free(c.xs);
	return 0;
}

/* ---- diff ---- */

struct rows_ctx {
	struct kp_flame		*t;
	uint64_t		(*count)[KP_FLAME_NR_SETS];	/* by name */
	uint32_t		*active;			/* by name: on the path */
	bool			total;
};

static bool rows_enter(uint32_t n, void *arg)
{
	struct rows_ctx *c = arg;
	const struct kp_flame_node *nd = &c->t->nodes[n];
	int s;

	if (n == KP_FLAME_ROOT)
		return true;
	for (s = 0; s < KP_FLAME_NR_SETS; s++) {
		if (!c->total)
			c->count[nd->name][s] += nd->self[s];
		else if (!c->active[nd->name])
			c->count[nd->name][s] += nd->total[s];
	}
	c->active[nd->name]++;
	return true;
}

static void rows_leave(uint32_t n, void *arg)
{
	struct rows_ctx *c = arg;

	if (n != KP_FLAME_ROOT)
		c->active[c->t->nodes[n].name]--;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct kp_flame *t = arg;
	const struct kp_diff_row *x = a, *y = b;
	double dx = fabs(x->delta), dy = fabs(y->delta);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(name_str(t, x->name), name_str(t, y->name));
}

int kp_flame__diff_rows(struct kp_flame *t, bool total, bool normalize,
			struct kp_diff_row **rows, struct kp_err *err)
{
	uint64_t all[KP_FLAME_NR_SETS] = {
		kp_flame__total(t, KP_FLAME_NEW), kp_flame__total(t, KP_FLAME_BASE),
	};
	struct rows_ctx c = { .t = t, .total = total };
	struct kp_diff_row *r;
	uint32_t name, nr = 0;

	c.count = calloc(t->nr_names, sizeof(*c.count));
	c.active = calloc(t->nr_names, sizeof(*c.active));
	r = calloc(t->nr_names, sizeof(*r));
	if (!c.count || !c.active || !r) {
		free(c.count);
		free(c.active);
		free(r);
		return nomem(err);
	}
	walk(t, rows_enter, rows_leave, &c);
	for (name = 0; name < t->nr_names; name++) {
		uint64_t cn = c.count[name][KP_FLAME_NEW], cb = c.count[name][KP_FLAME_BASE];
		struct kp_diff_row *row = &r[nr];

		if (!cn && !cb)
			continue;
		/* Exactly no change: cn / all_new == cb / all_base. */
		if (normalize ? (unsigned __int128)cn * all[KP_FLAME_BASE] ==
				(unsigned __int128)cb * all[KP_FLAME_NEW] : cn == cb)
			continue;
		row->name = name;
		row->count[KP_FLAME_NEW] = cn;
		row->count[KP_FLAME_BASE] = cb;
		row->new_pct = all[KP_FLAME_NEW] ? 100.0 * cn / all[KP_FLAME_NEW] : 0;
		row->base_pct = all[KP_FLAME_BASE] ? 100.0 * cb / all[KP_FLAME_BASE] : 0;
		row->delta = normalize ? row->new_pct - row->base_pct : (double)cn - (double)cb;
		row->error = normalize ? kp_share_diff_error95(cb, all[KP_FLAME_BASE], cn,
							       all[KP_FLAME_NEW]) : 0;
		row->noise = normalize && fabs(row->delta) <= row->error;
		nr++;
	}
	qsort_r(r, nr, sizeof(*r), cmp_rows, t);
	free(c.count);
	free(c.active);
	*rows = r;
	return nr;
}

struct folded2_ctx {
	struct kp_flame		*t;
	FILE			*fp;
	char			*path;
	size_t			*len;		/* of the path, by depth */
	size_t			size;
	uint64_t		num, den;	/* BASE scale */
	bool			nomem;
};

static bool folded2_enter(uint32_t n, void *arg)
{
	struct folded2_ctx *c = arg;
	const struct kp_flame_node *nd = &c->t->nodes[n];
	size_t nlen, pos;
	const char *name;
	uint64_t base;

	if (n == KP_FLAME_ROOT) {
		c->len[0] = 0;
		return true;
	}
	name = kp_flame__name(c->t, n, &nlen);
	pos = c->len[nd->depth - 1];
	if (pos + nlen + 2 > c->size) {
		size_t size = (pos + nlen + 2) * 2;
		char *p = realloc(c->path, size);

		if (!p) {
			c->nomem = true;
			return false;
		}
		c->path = p;
		c->size = size;
	}
	if (pos)
		c->path[pos++] = ';';
	memcpy(c->path + pos, name, nlen);
	c->len[nd->depth] = pos + nlen;
	if (nd->self[KP_FLAME_NEW] || nd->self[KP_FLAME_BASE]) {
		base = nd->self[KP_FLAME_BASE];
		if (c->den)
			base = (unsigned __int128)base * c->num / c->den;
		fwrite(c->path, 1, c->len[nd->depth], c->fp);
		fprintf(c->fp, " %" PRIu64 " %" PRIu64 "\n", base, nd->self[KP_FLAME_NEW]);
	}
	return true;
}

int kp_flame__write_folded2(struct kp_flame *t, bool normalize, FILE *fp, struct kp_err *err)
{
	struct folded2_ctx c = { .t = t, .fp = fp };
	uint64_t base = kp_flame__total(t, KP_FLAME_BASE), new = kp_flame__total(t, KP_FLAME_NEW);
	int ret;

	ret = kp_flame__sort(t, err);
	if (ret)
		return ret;
	if (normalize && base && new && base != new) {
		c.num = new;
		c.den = base;
	}
	c.len = calloc(t->max_depth + 1, sizeof(*c.len));
	if (!c.len)
		return nomem(err);
	walk(t, folded2_enter, NULL, &c);
	free(c.path);
	free(c.len);
	if (c.nomem)
		return nomem(err);
	return 0;
}

/* ---- command-line helpers ---- */

int kp_flame__save_svg(struct kp_flame *t, const struct kp_flame_opts *o, const char *output,
		       struct kp_err *err)
{
	struct kp_outfile out;
	int ret;

	ret = kp_outfile__open(&out, output, false, err);
	if (ret)
		return ret;
	ret = kp_flame__write_svg(t, o, out.fp, err);
	if (ret) {
		kp_outfile__abort(&out);
		return ret;
	}
	return kp_outfile__commit(&out, err);
}

static int uint_in_range(const struct option *opt, const char *arg, unsigned int min,
			 unsigned int max)
{
	unsigned int v;
	int ret;

	ret = kp_parse_uint(arg, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*(unsigned int *)opt->value = v;
	return 0;
}

int kp_flame_opt__width(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	return uint_in_range(opt, arg, KP_FLAME_WIDTH_MIN, KP_FLAME_WIDTH_MAX);
}

int kp_flame_opt__height(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	return uint_in_range(opt, arg, KP_FLAME_HEIGHT_MIN, KP_FLAME_HEIGHT_MAX);
}

int kp_flame_opt__minwidth(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	return kp_flame__parse_minwidth(arg, opt->value);
}
