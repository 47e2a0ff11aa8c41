// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/flame.c (the tree, the SVG, the diff) and of the
 * 'kprofctl flamegraph' and 'kprofctl diff' commands.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/flame.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

/* ---- helpers ---- */

static struct kp_flame *tree(bool reverse, ...)
{
	struct kp_flame *t = kp_flame__new(reverse);
	const char *stack;
	struct kp_err err;
	va_list ap;

	va_start(ap, reverse);
	while ((stack = va_arg(ap, const char *))) {
		uint64_t count = va_arg(ap, uint64_t);

		if (kp_flame__add(t, KP_FLAME_NEW, stack, strlen(stack), count, &err))
			abort();
	}
	va_end(ap);
	return t;
}

#define C(n)	((uint64_t)(n))

static uint64_t total_of(struct kp_flame *t, const char *stack)
{
	uint32_t n = kp_flame__lookup(t, stack);

	return n == KP_FLAME_NONE ? UINT64_MAX : t->nodes[n].total[KP_FLAME_NEW];
}

static uint64_t self_of(struct kp_flame *t, const char *stack)
{
	uint32_t n = kp_flame__lookup(t, stack);

	return n == KP_FLAME_NONE ? UINT64_MAX : t->nodes[n].self[KP_FLAME_NEW];
}

static char *svg_of(struct kp_flame *t, const struct kp_flame_opts *o)
{
	struct kp_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	if (kp_flame__write_svg(t, o, fp, &err)) {
		diag("write_svg: %s", err.msg);
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	return buf;
}

struct frame {
	char	name[256];	/* the title up to " (" */
	char	title[512];
	char	fill[32];
	char	label[256];
	double	x, y, w;
};

/* Copy what follows @key in @s up to @end into @buf; the position after it. */
static const char *grab(const char *s, const char *key, char end, char *buf, size_t size)
{
	const char *p = strstr(s, key), *q;

	if (!p)
		return NULL;
	p += strlen(key);
	q = strchr(p, end);
	if (!q || (size_t)(q - p) >= size)
		return NULL;
	memcpy(buf, p, q - p);
	buf[q - p] = '\0';
	return q;
}

/* The frames of an SVG, in order. */
static int frames_of(const char *svg, struct frame *f, int max)
{
	const char *p = strstr(svg, "<g id=\"frames\">");
	char num[64], *cut;
	int n = 0;

	while (p && n < max && (p = strstr(p, "<g id=\"f"))) {
		struct frame *fr = &f[n];

		if (!(p = grab(p, "<title>", '<', fr->title, sizeof(fr->title))))
			break;
		snprintf(fr->name, sizeof(fr->name), "%s", fr->title);
		cut = strstr(fr->name, " (");
		if (cut)
			*cut = '\0';
		p = grab(p, "x=\"", '"', num, sizeof(num));
		fr->x = atof(num);
		p = grab(p, "y=\"", '"', num, sizeof(num));
		fr->y = atof(num);
		p = grab(p, "width=\"", '"', num, sizeof(num));
		fr->w = atof(num);
		p = grab(p, "fill=\"", '"', fr->fill, sizeof(fr->fill));
		p = grab(p, "\">", '<', fr->label, sizeof(fr->label));
		if (!p)
			break;
		n++;
	}
	return n;
}

static const struct frame *frame_named(const struct frame *f, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

static bool near(double a, double b)
{
	return fabs(a - b) <= 0.006;
}

#define FULL	(KP_FLAME_WIDTH_DEFAULT - 2 * KP_FLAME_XPAD)

/* ---- tree ---- */

static void test_tree(void)
{
	struct kp_flame *t;
	struct kp_err err;
	uint32_t n;

	t = tree(false, "a;b;c", C(1), "a;b;d", C(2), "a;e", C(3), "a;b;c", C(4), NULL);
	is_int(kp_flame__total(t, KP_FLAME_NEW), 10, "merge: total");
	is_int(total_of(t, "a"), 10, "merge: a has every sample");
	is_int(total_of(t, "a;b"), 7, "merge: a;b");
	is_int(self_of(t, "a;b"), 0, "merge: a;b has no self samples");
	is_int(self_of(t, "a;b;c"), 5, "merge: duplicate stacks summed");
	is_int(total_of(t, "a;e"), 3, "merge: a;e");
	is_int(t->nr_nodes, 6, "merge: one node per distinct frame path");
	is_int(t->max_depth, 3, "merge: depth");
	ok(kp_flame__lookup(t, "a;c") == KP_FLAME_NONE, "merge: no a;c");
	n = kp_flame__lookup(t, "a;b;d");
	ok(n != KP_FLAME_NONE && t->nodes[n].depth == 3 &&
	   t->nodes[t->nodes[n].parent].parent == kp_flame__lookup(t, "a"), "merge: parents");
	kp_flame__delete(t);

	/* Unsorted input merges the same; a kernel frame is not the user one. */
	t = tree(false, "x;f_[k]", C(2), "a;b", C(1), "x;f", C(5), "a;b", C(1), "x;f_[k]", C(3),
		 NULL);
	is_int(total_of(t, "x;f_[k]"), 5, "kernel frame: its own node");
	is_int(total_of(t, "x;f"), 5, "kernel frame: the user frame of the same name");
	ok(kp_flame__is_kernel(t, kp_flame__lookup(t, "x;f_[k]")) &&
	   !kp_flame__is_kernel(t, kp_flame__lookup(t, "x;f")), "kernel frame: is_kernel");
	is_int(self_of(t, "a;b"), 2, "unsorted duplicates summed");
	kp_flame__delete(t);

	/* --reverse: merged from the leaf. */
	t = tree(true, "a;b;c", C(1), "x;b;c", C(2), "y;c", C(4), "z", C(8), NULL);
	is_int(total_of(t, "c"), 7, "reverse: the leaf c is a root child");
	is_int(total_of(t, "c;b"), 3, "reverse: c;b");
	is_int(self_of(t, "c;b;a"), 1, "reverse: c;b;a");
	is_int(self_of(t, "c;b;x"), 2, "reverse: c;b;x");
	is_int(self_of(t, "c;y"), 4, "reverse: c;y");
	is_int(self_of(t, "z"), 8, "reverse: one frame");
	ok(kp_flame__lookup(t, "a") == KP_FLAME_NONE, "reverse: no root-first path");
	kp_flame__delete(t);

	/* Huge counts: up to 2^64-1 in all, then an error. */
	t = tree(false, "a;b", UINT64_MAX - 5, "a;c", C(5), NULL);
	is_int(kp_flame__total(t, KP_FLAME_NEW) == UINT64_MAX, 1, "huge counts: total 2^64-1");
	is_int(kp_flame__add(t, KP_FLAME_NEW, "a;d", 3, 1, &err), -ERANGE, "huge counts: overflow");
	is_str(err.msg, "the sample counts add up to more than 18446744073709551615",
	       "huge counts: overflow message");
	ok(total_of(t, "a") == UINT64_MAX && kp_flame__lookup(t, "a;d") == KP_FLAME_NONE,
	   "huge counts: nothing added on overflow");
	kp_flame__delete(t);

	/* Many siblings and deep stacks: the hash tables grow. */
	t = kp_flame__new(false);
	{
		char stack[64];
		int i;

		for (i = 0; i < 5000; i++) {
			snprintf(stack, sizeof(stack), "root;fn%d;leaf%d", i % 2500, i % 3);
			kp_flame__add(t, KP_FLAME_NEW, stack, strlen(stack), 1, &err);
		}
	}
	is_int(total_of(t, "root;fn7"), 2, "many siblings: merged");
	is_int(self_of(t, "root;fn2498;leaf2"), 1, "many siblings: found");
	is_int(t->nr_nodes, 1 + 1 + 2500 + 5000, "many siblings: node count");
	kp_flame__delete(t);
}

/* ---- SVG ---- */

static void test_svg_widths(void)
{
	struct kp_flame_opts o;
	struct frame f[64];
	const struct frame *a, *b, *c, *d, *e, *root;
	struct kp_flame *t;
	char *svg;
	int n;

	kp_flame_opts__init(&o);
	t = tree(false, "a;c", C(30), "a;b", C(10), "a;b;d", C(20), "e", C(40), NULL);
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 64);
	is_int(n, 6, "svg: one frame per node");
	root = frame_named(f, n, "all");
	a = frame_named(f, n, "a");
	b = frame_named(f, n, "b");
	c = frame_named(f, n, "c");
	d = frame_named(f, n, "d");
	e = frame_named(f, n, "e");
	ok(root && a && b && c && d && e, "svg: every frame is there");
	if (!(root && a && b && c && d && e))
		goto out;
	ok(root == &f[0] && !strcmp(root->title, "all (100 samples, 100.00%)"),
	   "svg: the root comes first, with its tooltip");
	is_str(a->title, "a (60 samples, 60.00%)", "svg: tooltip with samples and %%");
	ok(near(root->x, KP_FLAME_XPAD) && near(root->w, FULL), "svg: the root spans the width");
	ok(near(a->w, FULL * 0.6) && near(b->w, FULL * 0.3) && near(c->w, FULL * 0.3) &&
	   near(d->w, FULL * 0.2) && near(e->w, FULL * 0.4), "svg: widths proportional to counts");
	ok(near(a->x, KP_FLAME_XPAD) && near(b->x, a->x) && near(d->x, b->x),
	   "svg: the first child starts at its parent");
	ok(near(c->x, b->x + b->w) && near(e->x, a->x + a->w),
	   "svg: siblings side by side, in name order");
	ok(b < c && a < e, "svg: pre-order, children in name order");
	ok(root->y > a->y && a->y > b->y && b->y > d->y && near(a->y - b->y, 16),
	   "svg: flame: the root at the bottom, 16 px per level");
	is_str(a->label, "a", "svg: label");
	ok(strstr(svg, "<text id=\"title\" x=\"600\" y=\"24\">Flame Graph</text>") &&
	   strstr(svg, ">100 samples</text>"), "svg: title and subtitle with the total");
	ok(strstr(svg, "<svg version=\"1.1\" width=\"1200\" height=\"158\" viewBox=\"0 0 1200 158\""),
	   "svg: size: 60 + 3 levels x 16 + 34");
	ok(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[") && strstr(svg, "<style") &&
	   strstr(svg, "function zoom(") && strstr(svg, "function search(") &&
	   !strstr(svg, "href="), "svg: self-contained: inline script and style, no links");
	free(svg);

	/* --width, --height, --inverted, --title, --subtitle, --countname */
	o.width = 500;
	o.frame_height = 20;
	o.inverted = true;
	o.title = "T <1>";
	o.subtitle = "S & s";
	o.countname = "events";
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 64);
	a = frame_named(f, n, "a");
	ok(n == 6 && near(f[0].w, 480) && a && near(a->w, 288),
	   "svg: --width 500: widths scale to 480 px");
	ok(a && f[0].y < a->y && near(a->y - f[0].y, 20), "svg: --inverted: the root on top");
	ok(strstr(svg, ">T &lt;1&gt;</text>") && strstr(svg, ">S &amp; s</text>"),
	   "svg: title and subtitle escaped");
	ok(a && !strcmp(a->title, "a (60 events, 60.00%)"), "svg: --countname");
	ok(strstr(svg, "inverted: true"), "svg: the script knows it is inverted");
	free(svg);
out:
	kp_flame__delete(t);
}

static void test_svg_minwidth(void)
{
	struct kp_flame_opts o;
	struct frame f[64];
	const struct frame *a, *big;
	struct kp_flame *t;
	char *svg;
	int n;

	/* 1 sample of 23600 is 0.05 px. */
	t = tree(false, "a;big", C(22000), "a;tiny", C(3), "a;tiny;deeper", C(1), "small", C(1596),
		 NULL);
	kp_flame_opts__init(&o);
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 64);
	ok(n == 5 && frame_named(f, n, "tiny") && !frame_named(f, n, "deeper"),
	   "minwidth 0.1 px (default): a 0.2 px frame stays, a 0.05 px one goes");
	free(svg);

	o.minwidth = 1;
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 64);
	a = frame_named(f, n, "a");
	big = frame_named(f, n, "big");
	ok(n == 4 && !frame_named(f, n, "tiny") && frame_named(f, n, "small"),
	   "minwidth 1 px: the narrow frame and its callees are omitted");
	ok(a && big && near(a->w, FULL * 22004.0 / 23600) && near(big->w, FULL * 22000.0 / 23600),
	   "minwidth: the parent keeps its width");
	free(svg);

	o.minwidth = 10;
	o.minwidth_pct = true;
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 64);
	ok(n == 3 && !frame_named(f, n, "small"), "minwidth 10%%: 6.8%% frames omitted");
	ok(strstr(svg, "height=\"142\""), "minwidth: the height counts visible levels only");
	free(svg);
	kp_flame__delete(t);

	t = kp_flame__new(false);
	kp_flame_opts__init(&o);
	ok(svg_of(t, &o) == NULL, "svg: no samples: an error");
	kp_flame__delete(t);
}

static void test_svg_labels(void)
{
	static const char long_name[] =
		"a_very_long_function_name_that_does_not_fit_in_a_narrow_frame_at_all";
	struct kp_flame_opts o;
	struct frame f[16];
	struct kp_flame *t;
	char stack[256], *svg;
	const struct frame *l, *k;
	int n;

	snprintf(stack, sizeof(stack), "main;%s", long_name);
	t = tree(false, stack, C(10), "main;other", C(90), "main;sys_x_[k]", C(100),
		 "m<a>i&n\"'\x01\xff;caf\xc3\xa9", C(100), NULL);
	kp_flame_opts__init(&o);
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 16);
	l = frame_named(f, n, long_name);
	ok(l && strlen(l->label) < strlen(long_name) && strlen(l->label) > 3 &&
	   !strcmp(l->label + strlen(l->label) - 2, "..") && !strncmp(l->label, long_name,
								      strlen(l->label) - 2),
	   "label: cut with '..' to fit the frame");
	k = frame_named(f, n, "sys_x");
	ok(k && !strcmp(k->title, "sys_x (kernel, 100 samples, 33.33%)") &&
	   !strcmp(k->label, "sys_x"), "kernel frame: suffix stripped, 'kernel' in the tooltip");
	ok(frame_named(f, n, "m&lt;a&gt;i&amp;n&quot;&apos;\xef\xbf\xbd\xef\xbf\xbd") &&
	   frame_named(f, n, "caf\xc3\xa9"), "names escaped, bad bytes replaced, UTF-8 kept");
	free(svg);
	kp_flame__delete(t);
}

static void test_svg_xmllint(void)
{
	struct kp_flame_opts o;
	struct kp_flame *t;
	char root[64], path[128], cmd[256], *svg;
	FILE *fp;

	if (system("command -v xmllint >/dev/null 2>&1")) {
		ok(1, "xmllint: well-formed SVG # SKIP xmllint not installed (libxml2-utils)");
		return;
	}
	t = tree(false, "a<b;c&d", C(3), "\"q\";'r'", C(4), "x;]]>;--;y", C(5),
		 "k_[k];\x7f\x1f\xc0\xaf\xed\xa0\x80\xef\xbf\xbe", C(6), NULL);
	kp_flame_opts__init(&o);
	o.title = "<&>\"'";
	svg = svg_of(t, &o);
	tmpdir__create(root, sizeof(root));
	snprintf(path, sizeof(path), "%s/x.svg", root);
	fp = fopen(path, "w");
	fputs(svg, fp);
	fclose(fp);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	is_int(system(cmd), 0, "xmllint: well-formed SVG with nasty names");
	free(svg);
	kp_flame__delete(t);
	tmpdir__remove(root);
}

static char *escaped(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);

	kp_xml__escape(fp, s, len);
	fclose(fp);
	return buf;
}

static void test_escape(void)
{
	static const struct {
		const char	*in;
		const char	*out;
		const char	*desc;
	} cases[] = {
		{ "plain_name", "plain_name", "plain" },
		{ "a<b&c>\"d'e", "a&lt;b&amp;c&gt;&quot;d&apos;e", "XML specials" },
		{ "std::vector<int>::push_back", "std::vector&lt;int&gt;::push_back", "C++ name" },
		{ "tab\there\n", "tab\xef\xbf\xbdhere\xef\xbf\xbd", "control characters" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5",
		  "valid UTF-8 kept" },
		{ "\xff", "\xef\xbf\xbd", "invalid byte" },
		{ "a\xc3", "a\xef\xbf\xbd", "truncated sequence" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "overlong" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "surrogate" },
		{ "\xef\xbf\xbe", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "U+FFFE" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd",
		  "beyond U+10FFFF" },
		{ "]]>", "]]&gt;", "CDATA end" },
	};
	size_t i;
	char *s;

	for (i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		s = escaped(cases[i].in, strlen(cases[i].in));
		is_str(s, cases[i].out, "escape: %s", cases[i].desc);
		free(s);
	}
	s = escaped("a\0b", 3);
	is_str(s, "a\xef\xbf\xbd" "b", "escape: NUL");
	free(s);
}

static void test_colors(void)
{
	char a[32], b[32], k[32];
	int r, g, bl, kr, kg, kb, i, ur, ug, ub;

	kp_flame__color(KP_FLAME_HOT, "do_work", 7, a, sizeof(a));
	kp_flame__color(KP_FLAME_HOT, "do_work", 7, b, sizeof(b));
	is_str(a, b, "colour: stable for a name");
	kp_flame__color(KP_FLAME_HOT, "do_wirk", 7, b, sizeof(b));
	ok(strcmp(a, b), "colour: another name, another shade");
	kp_flame__color(KP_FLAME_HOT, "do_work_[k]", 11, k, sizeof(k));
	ok(strcmp(a, k), "colour: a kernel frame differs from the user frame");

	for (i = 0; i < 3; i++) {
		static const char * const names[] = { "alpha", "beta", "gamma_delta" };
		char name[32];

		kp_flame__color(KP_FLAME_HOT, names[i], strlen(names[i]), a, sizeof(a));
		snprintf(name, sizeof(name), "%s_[k]", names[i]);
		kp_flame__color(KP_FLAME_HOT, name, strlen(name), k, sizeof(k));
		sscanf(a, "rgb(%d,%d,%d)", &ur, &ug, &ub);
		sscanf(k, "rgb(%d,%d,%d)", &kr, &kg, &kb);
		ok(ur >= 205 && ub <= 55 && kb >= 165 && kr <= 110,
		   "hot: %s red-yellow (%s), kernel aqua (%s)", names[i], a, k);
	}
	kp_flame__color(KP_FLAME_IO, "x", 1, a, sizeof(a));
	sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl);
	ok(r == g && bl >= 190, "io: blue (%s)", a);
	kp_flame__color(KP_FLAME_IO, "x_[k]", 5, a, sizeof(a));
	sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl);
	ok(r >= 190 && bl >= 190 && g <= 140, "io: kernel purple (%s)", a);
	kp_flame__color(KP_FLAME_MEM, "x", 1, a, sizeof(a));
	sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl);
	ok(r == 0 && g >= 190, "mem: green (%s)", a);
	kp_flame__color(KP_FLAME_MEM, "x_[k]", 5, a, sizeof(a));
	sscanf(a, "rgb(%d,%d,%d)", &r, &g, &bl);
	ok(r == g && r >= 175 && bl <= 70, "mem: kernel yellow (%s)", a);

	kp_flame__diff_color(10, 10, a, sizeof(a));
	is_str(a, "rgb(255,0,0)", "diff colour: the largest growth is red");
	kp_flame__diff_color(-10, 10, a, sizeof(a));
	is_str(a, "rgb(0,0,255)", "diff colour: the largest shrink is blue");
	kp_flame__diff_color(5, 10, a, sizeof(a));
	is_str(a, "rgb(255,105,105)", "diff colour: half growth is pale red");
	kp_flame__diff_color(0, 10, a, sizeof(a));
	is_str(a, "rgb(255,255,255)", "diff colour: no change is white");
}

static void test_parse_opts(void)
{
	struct kp_flame_opts o;
	enum kp_flame_palette p;

	kp_flame_opts__init(&o);
	ok(o.minwidth == 0.1 && !o.minwidth_pct && o.width == 1200 && o.palette == KP_FLAME_HOT,
	   "defaults");
	ok(!kp_flame__parse_minwidth("0.5", &o) && o.minwidth == 0.5 && !o.minwidth_pct,
	   "minwidth 0.5");
	ok(!kp_flame__parse_minwidth("2px", &o) && o.minwidth == 2 && !o.minwidth_pct,
	   "minwidth 2px");
	ok(!kp_flame__parse_minwidth("1.5%", &o) && o.minwidth == 1.5 && o.minwidth_pct,
	   "minwidth 1.5%%");
	is_int(kp_flame__parse_minwidth("abc", &o), -EINVAL, "minwidth abc");
	is_int(kp_flame__parse_minwidth("", &o), -EINVAL, "minwidth empty");
	is_int(kp_flame__parse_minwidth("1%%", &o), -EINVAL, "minwidth 1%%%%");
	is_int(kp_flame__parse_minwidth("nan", &o), -EINVAL, "minwidth nan");
	is_int(kp_flame__parse_minwidth("-1", &o), -ERANGE, "minwidth -1");
	is_int(kp_flame__parse_minwidth("101%", &o), -ERANGE, "minwidth 101%%");
	ok(!kp_flame__parse_palette("mem", &p) && p == KP_FLAME_MEM, "palette mem");
	ok(!kp_flame__parse_palette("lock", &p) && p == KP_FLAME_LOCK, "palette lock");
	{
		char leaf[32], frame[32];

		kp_flame__color(KP_FLAME_LOCK, "[mutex]", 7, leaf, sizeof(leaf));
		kp_flame__color(KP_FLAME_LOCK, "pipe_write", 10, frame, sizeof(frame));
		ok(!strncmp(leaf, "rgb(2", 5) && strcmp(leaf, frame),
		   "palette lock: the [type] leaf red, the waiters' frames apart");
	}
	is_int(kp_flame__parse_palette("java", &p), -EINVAL, "palette java");
}

/* ---- diff ---- */

static struct kp_flame *diff_tree(bool reverse, const char *base, const char *new)
{
	struct kp_flame *t = kp_flame__new(reverse);
	const char *sets[2] = { new, base }, *p, *nl, *sp;
	struct kp_err err;
	int s;

	for (s = 0; s < 2; s++) {
		for (p = sets[s]; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			sp = memrchr(p, ' ', nl - p);
			if (kp_flame__add(t, s, p, sp - p, strtoull(sp + 1, NULL, 10), &err))
				abort();
		}
	}
	return t;
}

static void test_diff_rows(void)
{
	struct kp_diff_row *rows;
	struct kp_flame *t;
	struct kp_err err;
	int nr;

	/* BASE: b and c half each of 20; NEW: b 3/4, c 1/4 of 40. */
	t = diff_tree(false, "a;b 10\na;c 10\n", "a;b 30\na;c 10\n");
	is_int(kp_flame__total(t, KP_FLAME_BASE), 20, "diff: BASE total");
	is_int(kp_flame__total(t, KP_FLAME_NEW), 40, "diff: NEW total");
	ok(kp_flame__base_scale(t, true) == 2.0 && kp_flame__base_scale(t, false) == 1.0,
	   "diff: BASE scale when normalized");

	nr = kp_flame__diff_rows(t, false, true, &rows, &err);
	is_int(nr, 2, "diff self, normalized: b and c changed, a has no self samples");
	ok(nr == 2 && !strcmp(t->strs + t->name_off[rows[0].name], "b") &&
	   rows[0].base_pct == 50 && rows[0].new_pct == 75 && rows[0].delta == 25,
	   "diff: b 50%% -> 75%%, +25");
	ok(nr == 2 && !strcmp(t->strs + t->name_off[rows[1].name], "c") && rows[1].delta == -25,
	   "diff: c 50%% -> 25%%, -25");
	free(rows);

	nr = kp_flame__diff_rows(t, false, false, &rows, &err);
	ok(nr == 1 && rows[0].delta == 20 && rows[0].count[KP_FLAME_BASE] == 10 &&
	   rows[0].count[KP_FLAME_NEW] == 30, "diff self, raw counts: b +20, c unchanged");
	free(rows);

	nr = kp_flame__diff_rows(t, true, true, &rows, &err);
	ok(nr == 2, "diff total, normalized: a is 100%% in both and left out");
	free(rows);
	nr = kp_flame__diff_rows(t, true, false, &rows, &err);
	ok(nr == 2 && !strcmp(t->strs + t->name_off[rows[0].name], "a") && rows[0].delta == 20 &&
	   !strcmp(t->strs + t->name_off[rows[1].name], "b"),
	   "diff total, raw: a +20 first (a before b at equal deltas)");
	free(rows);
	kp_flame__delete(t);

	/* Recursion is counted once in totals; functions only in one side. */
	t = diff_tree(false, "a;b;a;b 10\ngone 10\n", "a;b;a;b 10\nnew_fn_[k] 30\n");
	nr = kp_flame__diff_rows(t, true, false, &rows, &err);
	ok(nr == 2 && rows[0].delta == 30 && rows[1].delta == -10,
	   "diff total: only new_fn +30 and gone -10; recursive a, b unchanged");
	free(rows);
	nr = kp_flame__diff_rows(t, true, true, &rows, &err);
	ok(nr == 4 && fabs(rows[0].delta - 75) < 1e-9 && rows[0].base_pct == 0,
	   "diff total, normalized: new_fn 0%% -> 75%% first");
	free(rows);
	kp_flame__delete(t);
}

static void test_diff_svg(void)
{
	struct kp_flame_opts o;
	struct frame f[16];
	const struct frame *b, *c, *gone;
	struct kp_flame *t;
	char *svg, *buf = NULL;
	size_t len = 0;
	struct kp_err err;
	FILE *fp;
	int n;

	t = diff_tree(false, "a;b 10\na;c 10\na;gone 5\n", "a;b 30\na;c 10\n");
	kp_flame_opts__init(&o);
	o.diff = true;
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 16);
	b = frame_named(f, n, "b");
	c = frame_named(f, n, "c");
	gone = frame_named(f, n, "gone");
	ok(b && c && !gone && n == 4, "diff svg: the frames of NEW only");
	ok(b && near(b->w, FULL * 0.75) && c && near(c->w, FULL * 0.25),
	   "diff svg: widths from NEW");
	/* normalized: BASE x 40/25 */
	ok(b && !strcmp(b->title, "b (30 samples, 75.00%; +35.00%)") && !strcmp(b->fill, "rgb(255,0,0)"),
	   "diff svg: b grew: red, +35%% in the tooltip (%s, %s)", b ? b->title : "", b ? b->fill : "");
	ok(c && !strcmp(c->title, "c (10 samples, 25.00%; -15.00%)") &&
	   !strncmp(c->fill, "rgb(120,120,255)", 14),
	   "diff svg: c shrank: blue (%s, %s)", c ? c->title : "", c ? c->fill : "");
	ok(strstr(svg, ">Differential Flame Graph</text>"), "diff svg: title");
	free(svg);

	o.normalize = false;
	svg = svg_of(t, &o);
	n = frames_of(svg, f, 16);
	c = frame_named(f, n, "c");
	ok(c && !strcmp(c->title, "c (10 samples, 25.00%; 0.00%)") &&
	   !strcmp(c->fill, "rgb(255,255,255)"), "diff svg, raw counts: c unchanged: white");
	free(svg);

	fp = open_memstream(&buf, &len);
	is_int(kp_flame__write_folded2(t, true, fp, &err), 0, "difffolded output");
	fclose(fp);
	is_str(buf, "a;b 16 30\na;c 16 10\na;gone 8 0\n", "difffolded output, normalized (-n)");
	free(buf);
	buf = NULL;
	fp = open_memstream(&buf, &len);
	kp_flame__write_folded2(t, false, fp, &err);
	fclose(fp);
	is_str(buf, "a;b 10 30\na;c 10 10\na;gone 5 0\n", "difffolded output, raw");
	free(buf);
	kp_flame__delete(t);

	/* --reverse diff: merged from the leaf. */
	t = diff_tree(true, "x;leaf 10\n", "y;leaf 10\n");
	is_int(total_of(t, "leaf"), 10, "diff --reverse: NEW merged from the leaf");
	ok(t->nodes[kp_flame__lookup(t, "leaf;x")].self[KP_FLAME_BASE] == 10,
	   "diff --reverse: BASE merged from the leaf");
	kp_flame__delete(t);
}

/* ---- the commands ---- */

static void check_usage(const char *want_err, const char *desc, ...)
{
	struct run r;
	va_list ap;

	va_start(ap, desc);
	run_va(&r, NULL, 0, ap);
	va_end(ap);
	ok(r.rc == KP_EXIT_USAGE && !strcmp(r.err, want_err) && !r.out[0], "usage error: %s", desc);
	if (r.rc != KP_EXIT_USAGE || strcmp(r.err, want_err))
		diag("rc %d, stderr '%s'", r.rc, r.err);
	run_free(&r);
}

static void test_cli(void)
{
	char root[64], in[128], base[128], new[128], out[128], bad[128], empty[128];
	char *svg;
	struct run r;

	tmpdir__create(root, sizeof(root));
	snprintf(in, sizeof(in), "%s/in.folded", root);
	snprintf(base, sizeof(base), "%s/base.folded", root);
	snprintf(new, sizeof(new), "%s/new.folded", root);
	snprintf(out, sizeof(out), "%s/out.svg", root);
	snprintf(bad, sizeof(bad), "%s/bad.folded", root);
	snprintf(empty, sizeof(empty), "%s/empty.folded", root);
	tmpdir__write(root, "in.folded", "main;work 3\nmain;read;sys_read_[k] 1\n");
	tmpdir__write(root, "base.folded", "main;a 50\nmain;b 50\nmain;c_[k] 100\n");
	tmpdir__write(root, "new.folded", "main;a 150\nmain;b 50\nmain;c_[k] 100\nmain;d 100\n");
	tmpdir__write(root, "bad.folded", "main;a 1\n\nmain;b\nmain;c 2\n");
	tmpdir__write(root, "empty.folded", "\n");

	kprofctl(&r, "flamegraph", "--help", NULL);
	ok(r.rc == 0 && !strncmp(r.out, "Usage: kprofctl flamegraph [<options>] [<file>]\n", 48) &&
	   strstr(r.out, "--minwidth=<px|N%>") && strstr(r.out, "--colors=<palette>"),
	   "flamegraph --help");
	run_free(&r);
	kprofctl(&r, "diff", "--help", NULL);
	ok(r.rc == 0 && !strncmp(r.out, "Usage: kprofctl diff [<options>] <base> <new>\n", 46),
	   "diff --help");
	run_free(&r);
	kprofctl(&r, "help", "flamegraph", NULL);
	ok(r.rc == 0 && strstr(r.out, "Usage: kprofctl flamegraph"), "help flamegraph");
	run_free(&r);
	kprofctl(&r, "--help", NULL);
	ok(strstr(r.out, "\n    flamegraph     Draw an interactive SVG flame graph\n") &&
	   strstr(r.out, "\n    diff           Compare two profiles"), "both commands listed");
	run_free(&r);

	check_usage("kprofctl: flamegraph: invalid value '50' for option '--width': out of range\n",
		    "--width 50", "flamegraph", "--width", "50", in, NULL);
	check_usage("kprofctl: flamegraph: invalid value 'wide' for option '--width'\n",
		    "--width wide", "flamegraph", "--width=wide", in, NULL);
	check_usage("kprofctl: flamegraph: invalid value 'pink' for option '--colors'\n",
		    "--colors pink", "flamegraph", "--colors", "pink", in, NULL);
	check_usage("kprofctl: flamegraph: invalid value '3x' for option '--minwidth'\n",
		    "--minwidth 3x", "flamegraph", "--minwidth", "3x", in, NULL);
	check_usage("kprofctl: flamegraph: invalid value '200%' for option '--minwidth': out of range\n",
		    "--minwidth 200%", "flamegraph", "--minwidth=200%", in, NULL);
	check_usage("kprofctl: flamegraph: invalid value '1' for option '--height': out of range\n",
		    "--height 1", "flamegraph", "--height", "1", in, NULL);
	check_usage("kprofctl: flamegraph: give the input with -i or as an argument, not both\n",
		    "-i and an argument", "flamegraph", "-i", in, in, NULL);
	check_usage("kprofctl: flamegraph: unexpected argument 'b'\n", "two arguments",
		    "flamegraph", "a", "b", NULL);
	check_usage("kprofctl: flamegraph: unknown option '--bogus'\n", "--bogus", "flamegraph",
		    "--bogus", NULL);
	check_usage("kprofctl: diff: needs two profiles: BASE and NEW. See 'kprofctl diff --help'.\n",
		    "diff with one profile", "diff", base, NULL);
	check_usage("kprofctl: diff: unexpected argument 'x'\n", "diff with three", "diff", base,
		    new, "x", NULL);
	check_usage("kprofctl: diff: invalid value 'both' for option '--sort'\n", "diff --sort both",
		    "diff", "--sort", "both", base, new, NULL);
	check_usage("kprofctl: diff: --flamegraph and --folded do not go together\n",
		    "diff --flamegraph --folded", "diff", "--flamegraph", "--folded", base, new, NULL);
	check_usage("kprofctl: diff: --reverse is an option of --flamegraph\n",
		    "diff --reverse", "diff", "--reverse", base, new, NULL);

	kprofctl(&r, "flamegraph", "-i", in, "-o", out, "--title", "My <graph>", NULL);
	svg = tmpdir__slurp(out, NULL);
	ok(r.rc == 0 && !r.out[0] && !r.err[0] && svg && strstr(svg, ">My &lt;graph&gt;</text>") &&
	   strstr(svg, "<title>sys_read (kernel, 1 samples, 25.00%)</title>"),
	   "flamegraph -i FILE -o FILE");
	free(svg);
	run_free(&r);
	unlink(out);

	kprofctl(&r, "flamegraph", in, "-o", "-", "--reverse", NULL);
	ok(r.rc == 0 && !strncmp(r.out, "<?xml ", 6) && strstr(r.out, ">Icicle Graph</text>") &&
	   strstr(r.out, "<title>sys_read (kernel, 1 samples, 25.00%)</title>"),
	   "flamegraph FILE -o - --reverse: SVG on stdout");
	run_free(&r);

	kprofctl(&r, "flamegraph", bad, "-o", out, NULL);
	ok(r.rc == 1 && access(out, F_OK) && strstr(r.err, "kprofctl: flamegraph: ") &&
	   strstr(r.err, "bad.folded:3: not a folded stack line (expected 'frame;...;frame COUNT'): "
		  "'main;b'\n"), "flamegraph: a bad line: one error, exit 1, no SVG");
	run_free(&r);
	kprofctl(&r, "flamegraph", empty, "-o", out, NULL);
	ok(r.rc == 1 && access(out, F_OK) && strstr(r.err, "no samples in '") &&
	   strstr(r.err, "empty.folded'\n"), "flamegraph: no samples: exit 1");
	run_free(&r);
	kprofctl(&r, "flamegraph", "-i", "/nonexistent.folded", "-o", out, NULL);
	is_str(r.err, "kprofctl: flamegraph: cannot open '/nonexistent.folded': "
	       "No such file or directory\n", "flamegraph: missing input");
	run_free(&r);
	kprofctl(&r, "flamegraph", in, "-o", "/nonexistent/dir/x.svg", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: flamegraph: cannot create "
	   "'/nonexistent/dir/x.svg': No such file or directory\n"), "flamegraph: bad output");
	run_free(&r);

	/* diff: BASE a 25%, b 25%, c 50%; NEW a 37.5%, b 12.5%, c 25%, d 25%. */
	kprofctl(&r, "diff", base, new, NULL);
	ok(r.rc == 0 && !r.err[0], "diff: exit 0");
	ok(strstr(r.out, "samples, as % of each profile's total; largest changes first\n#\n"
		  "#      Base        New      Delta    Error  Noise  Function\n"
		  "     50.00%     25.00%    -25.00%    8.00%         [k] c\n"
		  "      0.00%     25.00%    +25.00%    6.33%         [.] d\n"
		  "     25.00%     37.50%    +12.50%    8.00%         [.] a\n"
		  "     25.00%     12.50%    -12.50%    6.33%         [.] b\n") &&
	   !strstr(r.out, "noise"), "diff: the table, each change's 95%% sampling error, none noise");
	if (!strstr(r.out, "[k] c\n"))
		diag("%s", r.out);
	run_free(&r);
	/* 1000 samples each, a 2-point change: within its sampling error */
	tmpdir__write(root, "base2.folded", "main;a 500\nmain;b 500\n");
	tmpdir__write(root, "new2.folded", "main;a 520\nmain;b 480\n");
	snprintf(bad, sizeof(bad), "%s/base2.folded", root);
	snprintf(empty, sizeof(empty), "%s/new2.folded", root);
	kprofctl(&r, "diff", bad, empty, NULL);
	ok(r.rc == 0 && strstr(r.out, "     50.00%     52.00%     +2.00%    4.38%  noise  [.] a\n") &&
	   strstr(r.out, "# noise: 2 of these change by no more than the sampling error"),
	   "diff: a 2-point change of 1000 samples is marked noise (95%% error 4.38 points)");
	run_free(&r);
	snprintf(bad, sizeof(bad), "%s/bad.folded", root);
	snprintf(empty, sizeof(empty), "%s/empty.folded", root);
	kprofctl(&r, "diff", "--no-normalize", "--limit", "1", base, new, NULL);
	ok(r.rc == 0 && strstr(r.out, "#      Base        New      Delta  Function\n"
				"         50        150       +100  [.] a\n"
				"# 1 more changed function (--limit 0 shows all)\n"),
	   "diff --no-normalize --limit 1: raw counts");
	run_free(&r);
	kprofctl(&r, "diff", base, base, NULL);
	ok(r.rc == 0 && strstr(r.out, "# no change\n"), "diff: same profile: no change");
	run_free(&r);
	kprofctl(&r, "diff", "--folded", base, new, NULL);
	is_str(r.out, "main;a 100 150\nmain;b 100 50\nmain;c_[k] 200 100\nmain;d 0 100\n",
	       "diff --folded: difffolded.pl -n lines");
	run_free(&r);
	kprofctl(&r, "diff", "--folded", "-o", out, base, new, NULL);
	svg = tmpdir__slurp(out, NULL);
	is_str(svg, "main;a 100 150\nmain;b 100 50\nmain;c_[k] 200 100\nmain;d 0 100\n",
	       "diff --folded -o FILE");
	free(svg);
	run_free(&r);

	/* ... which 'kprofctl flamegraph' draws as the same differential graph. */
	kprofctl(&r, "flamegraph", out, "-o", "-", NULL);
	ok(r.rc == 0 && strstr(r.out, "<title>d (100 samples, 25.00%; +25.00%)</title>") &&
	   strstr(r.out, ">Differential Flame Graph</text>"),
	   "flamegraph of two-count lines: a differential graph");
	run_free(&r);
	unlink(out);

	kprofctl(&r, "diff", "--flamegraph", "-o", out, base, new, NULL);
	svg = tmpdir__slurp(out, NULL);
	ok(r.rc == 0 && svg && strstr(svg, "<title>d (100 samples, 25.00%; +25.00%)</title>") &&
	   strstr(svg, "<title>c (kernel, 100 samples, 25.00%; -25.00%)</title>") &&
	   strstr(svg, ">400 samples of ") && strstr(svg, ", normalized</text>"),
	   "diff --flamegraph -o FILE");
	free(svg);
	run_free(&r);
	kprofctl(&r, "diff", bad, new, NULL);
	ok(r.rc == 1 && strstr(r.err, "bad.folded:3: not a folded stack line"), "diff: bad BASE");
	run_free(&r);
	kprofctl(&r, "diff", base, empty, NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: diff: no samples in '"), "diff: empty NEW");
	run_free(&r);

	tmpdir__remove(root);
}

/* @path's contents, NUL-terminated (malloc'ed), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc(size + 1);
		if (buf) {
			len = fread(buf, 1, size, f);
			buf[len] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* The script and style are lib/flame.js and lib/flame.css, whole, and fit a CDATA section. */
static void test_embedded(void)
{
	char *js = slurp("lib/flame.js"), *css = slurp("lib/flame.css");

	ok(js && !strcmp(js, kp_flame_script), "embedded: the script is lib/flame.js");
	ok(css && !strcmp(css, kp_flame_style), "embedded: the style is lib/flame.css");
	ok(!strstr(kp_flame_script, "]]>") && !strstr(kp_flame_style, "]]>"),
	   "embedded: no CDATA end in the script or the style");
	ok(strstr(kp_flame_script, "function init(evt)") != NULL,
	   "embedded: the script has the SVG's onload handler");
	free(js);
	free(css);
}

int main(void)
{
	test_embedded();
	test_tree();
	test_svg_widths();
	test_svg_minwidth();
	test_svg_labels();
	test_svg_xmllint();
	test_escape();
	test_colors();
	test_parse_opts();
	test_diff_rows();
	test_diff_svg();
	test_cli();
	return done_testing();
}
