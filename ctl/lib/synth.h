/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Side-band synthesized at the start of a session, as perf does: the
 * kernel reports what happens during the session (COMM, FORK, EXIT, MMAP
 * records), so what existed before it is read from /proc: one COMM record
 * per thread (/proc/PID/task/TID/comm) and one MMAP record per executable
 * file mapping (/proc/PID/maps lines with 'x' permission and a path).
 */
#ifndef KPROFCTL_SYNTH_H
#define KPROFCTL_SYNTH_H

#include <stdint.h>

#include "error.h"
#include "record.h"

struct kp_synth_stats {
	uint32_t	nr_processes;
	uint32_t	nr_threads;
	uint32_t	nr_mmaps;
	uint32_t	nr_vanished;	/* gone or unreadable while being read */
};

/* Called for each synthesized record; 0 or a negative errno with @err set. */
typedef int (*kp_synth_fn)(const struct kprof_record_header *rec, void *arg,
			   struct kp_err *err);

/* The records of process @pid (under kp_sysroot), with time @time. */
int kp_synth__process(uint32_t pid, uint64_t time, kp_synth_fn fn, void *arg,
		      struct kp_synth_stats *st, struct kp_err *err);

/* The records of every process of kp_sysroot/proc. */
int kp_synth__all(uint64_t time, kp_synth_fn fn, void *arg, struct kp_synth_stats *st,
		  struct kp_err *err);

/*
 * Parse one /proc/PID/maps line into @rec (pid, tid and time not set),
 * which must hold KP_RECORD_MAX_SIZE bytes.  Returns 1 for an executable
 * file mapping, 0 for any other line, -EINVAL for a malformed line.
 */
int kp_synth__parse_maps_line(const char *line, struct kp_rec_mmap *rec);

#endif /* KPROFCTL_SYNTH_H */
