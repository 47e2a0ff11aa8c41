/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint filters: perf's --filter expressions compiled into the
 * stack-machine program of KPROF_EV_A_FILTER (struct kprof_filter_insn).
 *
 *	expr	:= and { '||' and }
 *	and	:= unary { '&&' unary }
 *	unary	:= '!' unary | '(' expr ')' | field op constant
 *	op	:= '==' | '!=' | '<' | '<=' | '>' | '>=' (integer fields)
 *		   '==' | '!=' (char-array fields, "string" or 'string')
 *
 * Integer constants are decimal, 0x hexadecimal or 0 octal, optionally
 * negative, and must fit the field; the comparison is signed when the
 * format file says the field is.
 */
#ifndef KPROFCTL_TPFILTER_H
#define KPROFCTL_TPFILTER_H

#include <linux/kprof.h>

#include "error.h"
#include "tracefs.h"

/* Operand stack depth of the kernel's machine (module/filter.c). */
#define KP_TPFILTER_MAX_DEPTH	16

/*
 * Compile @expr for the tracepoint @fmt into @insns (room for
 * KPROF_FILTER_MAX_INSNS), *@nr of them used.  Returns 0, or -EINVAL /
 * -E2BIG with @err naming the problem: "filter 'x == 1' on
 * sched:sched_switch: unknown field 'x'".
 */
int kp_tpfilter__compile(const struct kp_tp_format *fmt, const char *expr,
			 struct kprof_filter_insn *insns, unsigned int *nr,
			 struct kp_err *err);

#endif /* KPROFCTL_TPFILTER_H */
