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
 * frame without a symbol has a Location without lines.
 */
#ifndef KPROFCTL_PPROF_H
#define KPROFCTL_PPROF_H

#include "decode.h"
#include "error.h"

struct kp_pprof_opts {
	const struct kp_filter	*filter;	/* samples kept; NULL: all */
	unsigned int		stack_flags;	/* KP_STACK_* of the walk */
};

/*
 * Write the profile of @d to @path ("-": standard output), gzip'd.
 * Returns the number of samples (distinct stacks) written, or -errno with
 * @err set.
 */
long kp_pprof__write(struct kp_decoder *d, const char *path, const struct kp_pprof_opts *o,
		     struct kp_err *err);

#endif /* KPROFCTL_PPROF_H */
