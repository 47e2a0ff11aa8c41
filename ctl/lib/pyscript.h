/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofctl script -s SCRIPT.py: perf's Python scripts, run unchanged in
 * an embedded CPython, with perf 6.1's calling conventions:
 *
 *	trace_begin()				before the first sample
 *	SYSTEM__EVENT(event_name, context, common_cpu, common_secs,
 *		      common_nsecs, common_pid, common_comm,
 *		      common_callchain, FIELD..., [perf_sample_dict])
 *						a tracepoint sample
 *	trace_unhandled(event_name, context, event_fields_dict,
 *			[perf_sample_dict])	one without its handler
 *	process_event(param_dict)		any other sample
 *	trace_end()				after the last one
 *
 * and a built-in module perf_trace_context (common_pc(), common_flags(),
 * common_lock_depth()); PERF_EXEC_PATH names a directory with
 * scripts/python/Perf-Trace-Util/lib/Perf/Trace (perf's, else kprof's).
 *
 *	ps = kp_pyscript__start(cmd, path, argc, argv, d, tp, &rc);
 *	kp_pyscript__sample(ps, resolved, first, last) for each sample
 *	rc = kp_pyscript__end(ps, ok);
 *
 * kp_pyscript__generate() writes a starter script (script -g python).
 */
#ifndef KPROFCTL_PYSCRIPT_H
#define KPROFCTL_PYSCRIPT_H

#include <stdbool.h>

#include "decode.h"
#include "tpdecode.h"

struct kp_pyscript;

/*
 * Start the interpreter, run the script at @path with sys.argv [@path,
 * @argv[0..@argc - 1]], call its trace_begin().  NULL with *@rc the exit
 * status when it cannot (the message and the Python traceback printed).
 */
struct kp_pyscript *kp_pyscript__start(const char *cmd, const char *path, int argc,
				       const char **argv, struct kp_decoder *d,
				       struct kp_tpdecode *tp, int *rc);

/*
 * Hand sample @s, its frames [@first, @last), to the script's handler.
 * 0, or -1 when the script stopped (an exception, sys.exit()).
 */
int kp_pyscript__sample(struct kp_pyscript *ps, const struct kp_resolved *s,
			unsigned int first, unsigned int last);

/*
 * Call trace_end() unless the script stopped or !@ok, and stop the
 * interpreter: the exit status (KP_EXIT_*, or sys.exit()'s).
 */
int kp_pyscript__end(struct kp_pyscript *ps, bool ok);

/*
 * Write @file ("perf-script.py"): a script with trace_begin(),
 * trace_end(), process_event(), trace_unhandled() and a handler for each
 * tracepoint of the recording that has a format in @tp.  A KP_EXIT_*.
 */
int kp_pyscript__generate(const char *cmd, const char *file, const struct kp_decoder *d,
			  const struct kp_tpdecode *tp);

#endif /* KPROFCTL_PYSCRIPT_H */
