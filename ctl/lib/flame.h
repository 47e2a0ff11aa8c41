/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs: collapsed stacks merged into a tree of frames, written as
 * a self-contained interactive SVG; differential graphs of two profiles.
 *
 *	struct kp_flame *t = kp_flame__new(reverse);
 *
 *	kp_flame__add(t, KP_FLAME_NEW, "main;work", 9, 42, &err);	per stack
 *	kp_flame__read(t, KP_FLAME_NEW, path, &err);			or a file
 *	kp_flame__write_svg(t, &opts, fp, &err);
 *	kp_flame__delete(t);
 *
 * A node counts the samples of its frame and below in total[] and those
 * where it is the leaf in self[]; [KP_FLAME_NEW] is the profile drawn (the
 * only one of a plain graph), [KP_FLAME_BASE] the baseline of a diff.
 * Children are merged by name; kernel frames keep their "_[k]" suffix in
 * the tree (so they never merge with a user frame of the same name) and
 * lose it in labels.  The layout and the SVG are described in
 * Documentation/flamegraph.rst.
 */
#ifndef KPROFCTL_FLAME_H
#define KPROFCTL_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "folded.h"

enum kp_flame_set {
	KP_FLAME_NEW,		/* the profile drawn */
	KP_FLAME_BASE,		/* the baseline of a diff */
	KP_FLAME_NR_SETS,
};

enum kp_flame_palette {
	KP_FLAME_HOT,
	KP_FLAME_IO,
	KP_FLAME_MEM,
	KP_FLAME_LOCK,		/* lock waits: "[type]" leaves red, stacks orange */
};

#define KP_FLAME_ROOT		0	/* node index of "all" */
#define KP_FLAME_NONE		UINT32_MAX

struct kp_flame_node {
	uint32_t	name;		/* index in the name table */
	uint32_t	parent;
	uint32_t	child;		/* first child, KP_FLAME_NONE if none */
	uint32_t	next;		/* next sibling, KP_FLAME_NONE if none */
	uint32_t	depth;		/* root: 0 */
	uint64_t	total[KP_FLAME_NR_SETS];
	uint64_t	self[KP_FLAME_NR_SETS];
};

struct kp_flame {
	struct kp_flame_node	*nodes;
	uint32_t		nr_nodes, alloc_nodes;
	bool			reverse;	/* stacks merged from the leaf */
	bool			sorted;		/* children in name order */
	uint32_t		max_depth;
	uint64_t		nr_lines[KP_FLAME_NR_SETS];
	/* interned frame names */
	char			*strs;
	size_t			strs_len, strs_size;
	uint32_t		*name_off;	/* offset in strs, by name index */
	uint32_t		*name_len;
	uint32_t		*name_hv;	/* hash of the name */
	uint32_t		nr_names, alloc_names;
	uint32_t		*name_hash;	/* open addressing: name index + 1 */
	uint32_t		name_hash_size;
	/* children by (parent, name): node index + 1 */
	uint32_t		*child_hash;
	uint32_t		child_hash_size;
	/* the previous stack, to reuse its common prefix */
	char			*prev;
	size_t			prev_size;
	uint32_t		*prev_off, *prev_len, *prev_node;
	uint32_t		prev_nr, prev_alloc;
	int			prev_set;
	/* frame boundaries of the current stack */
	uint32_t		*cur_off, *cur_len;
	uint32_t		cur_alloc;
};

struct kp_flame *kp_flame__new(bool reverse);
void kp_flame__delete(struct kp_flame *t);

/*
 * Add @count samples of the stack @stack (@len bytes, frames separated by
 * ';', root first) to @set.  -ERANGE when the total would overflow,
 * -ENOMEM; with @err set.
 */
int kp_flame__add(struct kp_flame *t, enum kp_flame_set set, const char *stack, size_t len,
		  uint64_t count, struct kp_err *err);

/*
 * Add every stack of @path (kp_folded__read_path()) to @set.  A file of
 * the two-count form adds its BASE counts to KP_FLAME_BASE and its NEW
 * counts to KP_FLAME_NEW, whatever @set; *@two (when not NULL) tells.
 */
int kp_flame__read(struct kp_flame *t, enum kp_flame_set set, const char *path, bool *two,
		   struct kp_err *err);

/* Total samples of @set. */
static inline uint64_t kp_flame__total(const struct kp_flame *t, enum kp_flame_set set)
{
	return t->nodes[KP_FLAME_ROOT].total[set];
}

/* The name of node @i with its suffix, and its length. */
const char *kp_flame__name(const struct kp_flame *t, uint32_t i, size_t *len);
/* Is node @i a kernel frame ("_[k]")? */
bool kp_flame__is_kernel(const struct kp_flame *t, uint32_t i);
/* The child of @parent named @name (with its suffix), or KP_FLAME_NONE. */
uint32_t kp_flame__find(const struct kp_flame *t, uint32_t parent, const char *name);
/* The node of the stack "a;b;c" (as merged), or KP_FLAME_NONE. */
uint32_t kp_flame__lookup(const struct kp_flame *t, const char *stack);

/* Put the children of every node in name order (done by the writers). */
int kp_flame__sort(struct kp_flame *t, struct kp_err *err);

struct kp_flame_opts {
	const char		*title;		/* NULL: by kind */
	const char		*subtitle;	/* NULL: the total samples */
	const char		*countname;	/* "samples" */
	unsigned int		width;		/* of the image, px */
	unsigned int		frame_height;	/* px */
	double			minwidth;	/* omit narrower frames: px, or ... */
	bool			minwidth_pct;	/* ... % of the total */
	bool			inverted;	/* icicle: root at the top */
	enum kp_flame_palette	palette;
	bool			diff;		/* colour by BASE -> NEW */
	bool			normalize;	/* diff: scale BASE to NEW's total */
};

#define KP_FLAME_WIDTH_DEFAULT		1200
#define KP_FLAME_WIDTH_MIN		200
#define KP_FLAME_WIDTH_MAX		100000
#define KP_FLAME_HEIGHT_DEFAULT		16
#define KP_FLAME_HEIGHT_MIN		10
#define KP_FLAME_HEIGHT_MAX		100
#define KP_FLAME_MINWIDTH_DEFAULT	0.1

void kp_flame_opts__init(struct kp_flame_opts *o);

/* Geometry constants of the SVG, also used by the tests. */
#define KP_FLAME_XPAD		10	/* left and right margins */
#define KP_FLAME_FONT_SIZE	12
#define KP_FLAME_FONT_WIDTH	0.59	/* average glyph width / font size */

/* Write the SVG of @t to @fp.  -EINVAL when there are no samples. */
int kp_flame__write_svg(struct kp_flame *t, const struct kp_flame_opts *o, FILE *fp,
			struct kp_err *err);

/*
 * Write @s (@len bytes) for XML text and attribute values: &<>"' escaped,
 * control characters and invalid UTF-8 replaced by U+FFFD.
 */
void kp_xml__escape(FILE *fp, const char *s, size_t len);

/* "rgb(r,g,b)" of @name's frame in @palette (kernel frames in their hue). */
void kp_flame__color(enum kp_flame_palette palette, const char *name, size_t len,
		     char *buf, size_t size);
/* "rgb(r,g,b)" of a diff frame: red when @delta > 0, blue when < 0. */
void kp_flame__diff_color(double delta, double maxdelta, char *buf, size_t size);
/* "hot", "io", "mem", "lock" -> palette; -EINVAL for other names. */
int kp_flame__parse_palette(const char *s, enum kp_flame_palette *p);
/* "0.5" (px) or "1%" -> @o->minwidth*; -EINVAL / -ERANGE. */
int kp_flame__parse_minwidth(const char *s, struct kp_flame_opts *o);

/* Scale of BASE counts in a diff: NEW total / BASE total, or 1. */
double kp_flame__base_scale(const struct kp_flame *t, bool normalize);

/* One function of a diff table. */
struct kp_diff_row {
	uint32_t	name;		/* name index */
	uint64_t	count[KP_FLAME_NR_SETS];	/* self or total samples */
	double		base_pct, new_pct;	/* of each profile's total */
	double		delta;		/* NEW - BASE: % points, or samples (scaled) */
	double		error;		/* normalized: the delta's 95% sampling error, points */
	bool		noise;		/* normalized: |delta| within ->error */
};

/*
 * The functions of a diff with their self samples (or with @total, their
 * samples including callees, recursion counted once), sorted by the
 * absolute delta, largest first.  The delta is in % points when
 * @normalize, else in samples.  Rows without a change are left out.
 * Returns the number of rows in *@rows (to free()), or -ENOMEM.
 */
int kp_flame__diff_rows(struct kp_flame *t, bool total, bool normalize,
			struct kp_diff_row **rows, struct kp_err *err);

/*
 * Write the stacks of @t as difffolded.pl does: "stack BASE NEW" per line,
 * BASE scaled to NEW's total (rounded down) when @normalize.
 */
int kp_flame__write_folded2(struct kp_flame *t, bool normalize, FILE *fp, struct kp_err *err);

/*
 * Write the SVG to the file @output ("-": stdout), removed again on a
 * failure.  Returns 0 or a negative errno with @err naming the file.
 */
int kp_flame__save_svg(struct kp_flame *t, const struct kp_flame_opts *o, const char *output,
		       struct kp_err *err);

/* Option callbacks shared by the commands drawing flame graphs. */
struct option;
int kp_flame_opt__width(const struct option *opt, const char *arg, bool unset);
int kp_flame_opt__height(const struct option *opt, const char *arg, bool unset);
/* @opt->value is the struct kp_flame_opts. */
int kp_flame_opt__minwidth(const struct option *opt, const char *arg, bool unset);

/* lib/flame.js and lib/flame.css, as flame.c embeds them (NUL-terminated) */
extern const char kp_flame_script[];
extern const char kp_flame_style[];

#endif /* KPROFCTL_FLAME_H */
