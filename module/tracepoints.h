/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - kprof.ko's own tracepoints (defined in ring.c).
 *
 * Bare tracepoints (DECLARE_TRACE: no trace event, nothing in tracefs):
 * only other modules attach to them, through register_trace_<name>().  A
 * static branch skips each while nothing is attached.  kprof's selftests
 * attach to them from their own module (selftests/kprof/kprof_testmod),
 * which kprof.ko does not need and DKMS does not build.
 *
 *	kprof_ring_reserved	a ring write has reserved @len bytes of
 *				@cpu's ring and not yet copied the record:
 *				the window nested writers (an interrupt or an
 *				NMI on that CPU) must be able to run in.  Any
 *				context, NMI included; a probe must be
 *				NMI-safe and bounded.  Only where RCU is
 *				watching: a write from a probe in the idle
 *				path, where it is not, skips it.
 */
#ifndef _KPROF_TRACEPOINTS_H
#define _KPROF_TRACEPOINTS_H

#include <linux/tracepoint.h>

DECLARE_TRACE(kprof_ring_reserved,
	      TP_PROTO(unsigned int cpu, u32 len),
	      TP_ARGS(cpu, len));

#endif /* _KPROF_TRACEPOINTS_H */
