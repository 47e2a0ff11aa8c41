/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Annotation: the samples of each symbol by instruction address, and the
 * symbol's disassembly (lib/disasm.h) with each instruction's share of
 * them, laid out as 'perf annotate --stdio' lays it out, source lines
 * interleaved when the DSO has line tables (lib/srcline.h).
 *
 *	struct kp_annotate a = { 0 };
 *	kp_annotate__add(&a, event, &resolved->frames[0], count, period);
 *	kp_annotate__sort(&a);			hottest first, per event
 *	for (i = 0; i < a.nr; i++)
 *		kp_annotate__print(&a, a.list[i], &opts, stdout, &err);
 *	kp_annotate__exit(&a);
 *
 * A user symbol's bytes come from its DSO's ELF file (at ELF addresses); a
 * kernel or module symbol's from /proc/kcore (the running kernel's text,
 * as patched) or, with a vmlinux, from that file, located by the symbol's
 * name so that KASLR does not matter (module symbols need kcore).
 */
#ifndef KPROFCTL_ANNOTATE_H
#define KPROFCTL_ANNOTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "error.h"
#include "hmap.h"
#include "machine.h"

/* The samples at one instruction address. */
struct kp_annotate_hit {
	uint64_t	addr;		/* ELF address (user), kernel address */
	uint64_t	hits;
	uint64_t	period;
};

/* One symbol of one event. */
struct kp_annotate_sym {
	const struct kp_sym	*sym;
	unsigned int		event;
	uint64_t		hits, period;
	struct kp_annotate_hit	*addrs;
	size_t			nr_addrs, addrs_alloc;
	struct kp_hmap		index;		/* addr + 1 -> slot in addrs + 1 */
};

struct kp_annotate {
	struct kp_hmap		syms;		/* (sym, event) -> struct kp_annotate_sym */
	struct kp_annotate_sym	**list;
	size_t			nr, alloc;
	uint64_t		hits[KPROF_MAX_EVENTS];
	uint64_t		period[KPROF_MAX_EVENTS];
	uint64_t		unresolved[KPROF_MAX_EVENTS];	/* samples without a symbol */
};

/* perf annotate's --percent-type */
enum kp_percent_type {
	KP_PERCENT_LOCAL_PERIOD = 0,	/* of the symbol's period: perf's default */
	KP_PERCENT_GLOBAL_PERIOD,	/* of the event's */
	KP_PERCENT_LOCAL_HITS,		/* of the symbol's samples */
	KP_PERCENT_GLOBAL_HITS,
};

/* "local-period" etc. into *@type: 0, or -EINVAL. */
int kp_percent_type__parse(const char *s, enum kp_percent_type *type);

/*
 * Count @hits samples of @period at frame @f (a sample's first frame) of
 * @event; a frame without a symbol is only counted as unresolved.
 * 0 or -ENOMEM.
 */
int kp_annotate__add(struct kp_annotate *a, unsigned int event, const struct kp_frame *f,
		     uint64_t hits, uint64_t period);

/* Order ->list by event, then by period, largest first. */
void kp_annotate__sort(struct kp_annotate *a);

void kp_annotate__exit(struct kp_annotate *a);

struct kp_srcline;
struct kp_kernel;
struct kp_dso;

struct kp_annotate_opts {
	enum kp_percent_type	percent_type;
	bool			source;		/* interleave source lines */
	bool			show_nr;	/* a samples column (-n) */
	const char		*event_name;	/* of the symbols printed */
	const char		*kcore;		/* default /proc/kcore */
	struct kp_dso		*vmlinux;	/* a loaded vmlinux, or NULL: kcore */
	struct kp_kernel	*kernel;	/* names of kernel branch targets */
	struct kp_srcline	*srcline;	/* NULL: no source lines */
};

/*
 * Print @s's annotation to @fp.  0, or -errno with @err set when its
 * bytes cannot be read (nothing printed then).
 */
int kp_annotate__print(const struct kp_annotate *a, const struct kp_annotate_sym *s,
		       const struct kp_annotate_opts *o, FILE *fp, struct kp_err *err);

/* The share of @s of its event's total (for --percent-limit), in percent. */
double kp_annotate__share(const struct kp_annotate *a, const struct kp_annotate_sym *s,
			  enum kp_percent_type type);

#endif /* KPROFCTL_ANNOTATE_H */
