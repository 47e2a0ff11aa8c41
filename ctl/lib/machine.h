/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The profiled machine as the side-band describes it, through time:
 * threads and their names, processes and their executable mappings, and
 * the DSOs behind them.  Side-band records are added in any order and
 * applied sorted by time (kp_machine__prepare()), so that a sample
 * resolves against the mappings valid at its time, whatever the order of
 * the records in the file.
 *
 *	m = kp_machine__new(&opts);
 *	kp_machine__add(m, rec);		every COMM, EXIT, FORK, MMAP
 *	kp_machine__prepare(m);
 *	kp_machine__resolve(m, sample, &rs);	for every SAMPLE
 *	kp_machine__delete(m);
 *
 * New side-band may be added and prepared again at any time (kprofctl top).
 */
#ifndef KPROFCTL_MACHINE_H
#define KPROFCTL_MACHINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "record.h"
#include "symbols.h"
#include "unwind.h"

struct kp_machine_opts {
	const char	*kallsyms;	/* default /proc/kallsyms */
	const char	*symfs;		/* prefix of every user path; NULL: none */
	const char	*debug_dir;	/* default $KPROF_DEBUG_DIR or /usr/lib/debug */
	const char	*jit_dir;	/* directory of perf-PID.map; default /tmp */
	const char	*buildid_dir;	/* the build-id cache; default lib/buildid.h's */
	bool		proc_root;	/* try /proc/PID/root/PATH (live processes) */
	bool		no_kernel;	/* do not load kallsyms */
	bool		no_demangle;	/* keep C++ names mangled (--no-demangle) */
	bool		no_leaf_fixup;	/* user chains as recorded (--no-leaf-fixup) */
	const char	*cmd;		/* for notices: "report" */
};

/* One frame of a resolved sample. */
struct kp_frame {
	uint64_t		addr;		/* as recorded */
	uint64_t		dso_addr;	/* ELF address in the DSO; addr without one */
	struct kp_dso		*dso;		/* NULL: no mapping ([unknown]) */
	const struct kp_sym	*sym;		/* NULL: [unknown] */
	bool			kernel;
};

#define KP_MAX_FRAMES	(2 * KPROF_MAX_STACK_DEPTH + 1)

/* A sample with its frames resolved, innermost first. */
struct kp_resolved {
	const struct kp_rec_sample	*rec;
	const char			*comm;	/* interned: compare pointers */
	uint64_t			count;	/* samples it stands for (AGG: > 1) */
	bool				offcpu;	/* off-CPU time (rec->period ns), not samples */
	unsigned int			nr_frames;
	unsigned int			nr_kernel;	/* frames[0 .. nr_kernel - 1] */
	enum kp_leaf			leaf;	/* the leaf fix-up's (unwind.h) */
	struct kp_frame			frames[KP_MAX_FRAMES];
};

struct kp_machine;

struct kp_machine *kp_machine__new(const struct kp_machine_opts *opts);
/* Where separate debug files are looked for: the option, $KPROF_DEBUG_DIR or the default. */
const char *kp_machine__debug_dir(const struct kp_machine *m);
void kp_machine__delete(struct kp_machine *m);

/* Queue a side-band record (COMM, EXIT, FORK, MMAP; others are ignored). */
int kp_machine__add(struct kp_machine *m, const struct kprof_record_header *rec);
/* Apply what was queued, in time order. */
int kp_machine__prepare(struct kp_machine *m);

/*
 * The leaf fix-up of the valid SAMPLE @s (unwind.h) into @w, walking at
 * most @max frames; KP_LEAF_NONE (and nothing walked) without a copy or
 * with no_leaf_fixup.  kp_machine__resolve() applies it.
 */
enum kp_leaf kp_machine__leaf_fixup(struct kp_machine *m, const struct kp_rec_sample *s,
				    unsigned int max, struct kp_leaf_walk *w);

/*
 * Resolve the frames of @s (a valid SAMPLE) into @out: the first @max of
 * the kernel chain and the first @max of the user chain (0: all of them).
 * The others keep only their address.
 */
void kp_machine__resolve(struct kp_machine *m, const struct kp_rec_sample *s,
			 struct kp_resolved *out, unsigned int max);

/* The name of @tid at @time; interned; ":TID" when unknown. */
const char *kp_machine__comm(struct kp_machine *m, uint32_t pid, uint32_t tid, uint64_t time);

/*
 * When process @pid (its main thread) was last named @comm, at or before
 * @time: @time itself when it still is, else the last instant before its
 * next name; @time when it never was.  A sum over a process's life (an
 * AGG record) is resolved then, against the mappings of that image.
 */
uint64_t kp_machine__comm_time(struct kp_machine *m, uint32_t pid, const char *comm,
			       uint64_t time);

/*
 * How many times the mappings of @pid changed up to @time: two samples of
 * one process with equal epochs resolve their addresses alike.
 */
uint32_t kp_machine__epoch(struct kp_machine *m, uint32_t pid, uint64_t time);

/* One copy of @s (e.g. a command name) for pointer comparisons; NULL: ENOMEM. */
const char *kp_machine__intern(struct kp_machine *m, const char *s);

/* The kernel's tables (loaded on first use). */
struct kp_kernel *kp_machine__kernel(struct kp_machine *m);

/*
 * Set the host the recording was made on, to decide whether /proc/PID/root
 * and the host's kallsyms describe it; notices go to stderr.
 */
void kp_machine__set_origin(struct kp_machine *m, const char *hostname, const char *release);

/*
 * The vDSO image of the recording (kp_data__take_vdso()), for the DSO of
 * [vdso] mappings; @m owns it (free()d), NULL: none, [vdso] frames stay
 * unnamed.  Set it before the first frame is resolved.
 */
void kp_machine__set_vdso(struct kp_machine *m, void *image, uint32_t size);

/* Name of a symbol-less frame: "[unknown]". */
#define KP_UNKNOWN	"[unknown]"

#endif /* KPROFCTL_MACHINE_H */
