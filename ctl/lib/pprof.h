/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof profiles (proto/profile.proto, gzip'd) from a decoded recording:
 * what 'kprofctl pprof' writes and 'go tool pprof' reads.
 *
 * One Sample per distinct stack (kp_decoder__for_each_stack()), its
 * location ids leaf first: the kernel frames, then the user ones.  Values,
 * in sample_type order: "samples" (count, the on-CPU events'), then, when
 * there are on-CPU events, "cpu" (nanoseconds, of the time events:
 * cpu-clock, task-clock) when the first counts time, else "events" (the
 * first's periods), then "off-cpu" (nanoseconds) when the recording has
 * off-CPU time (record --off-cpu, offcpu -o).  An aggregated profile's
 * time is its counts times the sampling period.  Labels: "pid" (num),
 * "comm" and, with several events, "event".  One Mapping per DSO
 * (filename and hex build id; the kernel is "[kernel.kallsyms]"), one
 * Location per (DSO, address as recorded), one Function per symbol; a
 * frame without a symbol has a Location without lines.  With the DSO's
 * DWARF line tables (in it or in a separate debug file, lib/srcline.h),
 * a Function has its source file and first line and a Line its line (of
 * the call, for a return address); kernel frames have none.
 */
#ifndef KPROFCTL_PPROF_H
#define KPROFCTL_PPROF_H

#include "decode.h"
#include "error.h"

struct kp_pprof_opts {
	const struct kp_filter	*filter;	/* samples kept; NULL: all */
	unsigned int		stack_flags;	/* KP_STACK_* of the walk */
	bool			no_srclines;	/* no source files and lines (DWARF) */
};

/*
 * Write the profile of @d to @path ("-": standard output), gzip'd.
 * Returns the number of samples (distinct stacks) written, or -errno with
 * @err set.
 */
long kp_pprof__write(struct kp_decoder *d, const char *path, const struct kp_pprof_opts *o,
		     struct kp_err *err);

/*
 * The same profile in memory: *@buf (malloc'd; free() it), *@len bytes,
 * the gzip'd bytes kp_pprof__write() writes.  Returns the number of
 * samples, or -errno with @err set.
 */
long kp_pprof__build(struct kp_decoder *d, const struct kp_pprof_opts *o, void **buf,
		     size_t *len, struct kp_err *err);

/* Write @len bytes of a built profile to @path ("-": standard output); 0 or -EIO. */
int kp_pprof__save(const void *buf, size_t len, const char *path, struct kp_err *err);

/* The time range and rate a profile of @d covers (what an upload says of it). */
struct kp_pprof_span {
	uint64_t	from, until;	/* unix seconds: time_nanos, + duration_nanos rounded up */
	unsigned int	hz;		/* the on-CPU sampling rate; 0: not known */
};

/* @now_s: the time when the recording has no start time (unix seconds). */
void kp_pprof__span(const struct kp_decoder *d, uint64_t now_s, struct kp_pprof_span *span);

#endif /* KPROFCTL_PPROF_H */
