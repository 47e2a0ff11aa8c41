/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf.data from kprof.data, for perf itself ('perf report', 'perf script')
 * and the tools that read perf's file: the "PERFILE2" header, one
 * perf_event_attr per event with its id, the side-band as PERF_RECORD_COMM,
 * _MMAP2 (with the build-id of the file when the recording has it), _FORK
 * and _EXIT, the kernel's and the modules' maps as perf record writes them
 * (for a recording of this very boot, see kernel_maps()), the samples as
 * PERF_RECORD_SAMPLE (identifier, ip, tid, time, cpu, period, and the call
 * chain with PERF_CONTEXT_KERNEL
 * and PERF_CONTEXT_USER markers), losses and throttling, every record with
 * its sample_id, CLOCK_MONOTONIC times marked with use_clockid, and the
 * HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE, EVENT_DESC and
 * BUILD_ID features; tracepoint samples carry their fields
 * (PERF_SAMPLE_RAW), with the recorded format files in the TRACING_DATA
 * feature so that 'perf script' decodes them.  The layouts are those of perf's
 * Documentation/perf.data-file-format.txt and <linux/perf_event.h>.
 *
 * User chains are written fixed up (lib/unwind.h: the callers of frameless
 * leaves, from the samples' stack copies), as kprofctl's decoders show
 * them, unless @no_leaf_fixup; the copies themselves are not written.
 *
 * Not converted (refused or left out, see kp_perfdata__convert()): an
 * aggregated profile's AGG records; the raw data of a tracepoint whose
 * format the recording did not keep (counted in raw_dropped).
 */
#ifndef KPROFCTL_PERFDATA_H
#define KPROFCTL_PERFDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

struct kp_perfdata_stats {
	uint64_t	samples;
	uint64_t	sideband;	/* COMM, MMAP, FORK, EXIT */
	uint64_t	other;		/* LOST, THROTTLE */
	uint64_t	raw;		/* tracepoint samples with their raw data */
	uint64_t	raw_dropped;	/* samples whose raw data has no format to go with */
	uint32_t	build_ids;
	uint32_t	mmap_build_ids;	/* MMAP2 records with their file's build-id */
	uint32_t	kernel_maps;	/* the kernel's and modules' (a recording of this boot) */
	uint64_t	leaf_fixed;	/* user chains given frames by the leaf fix-up */
};

/*
 * Write @out (perf.data) from the kprof.data @in.  An aggregated profile
 * (AGG records) is refused with -EOPNOTSUPP: it has no samples.  0 or
 * -errno with @err set; @st (may be NULL) counts what was written.
 */
int kp_perfdata__convert(const char *in, const char *out, bool no_leaf_fixup,
			 struct kp_perfdata_stats *st, struct kp_err *err);

#endif /* KPROFCTL_PERFDATA_H */
