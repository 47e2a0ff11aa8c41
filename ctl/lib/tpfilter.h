/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoint filters: perf's --filter expressions, parsed by libtraceevent
 * (tep_filter_add_filter_str() on the event's format), whose tree (struct
 * tep_filter_arg) is compiled into the stack-machine program of
 * KPROF_EV_A_FILTER (struct kprof_filter_insn), in postfix order.
 *
 *	expr	:= and { '||' and } | and { '&&' and }	one of them per level
 *	and	:= '!' and | '(' expr ')' | FIELD OP CONSTANT
 *	OP	:= '==' | '!=' | '<' | '<=' | '>' | '>=' (integer fields)
 *		   '==' | '!=' (char-array fields, "string" or 'string')
 *
 * libtraceevent evaluates '&&' and '||' from left to right, without C's
 * precedence that perf's kernel filters have: 'a || b && c' would mean
 * '(a || b) && c' there and 'a || (b && c)' in the kernel, so kprofctl
 * adds the parentheses that make '&&' bind tighter.  Constants are
 * decimal, 0x hexadecimal or 0 octal, negative only for signed fields,
 * and must fit the field; the comparison is signed when the format says
 * the field is.  libtraceevent's grammar has no negative numbers ('-1' is
 * a subtraction there), so each negative constant reaches it as a marker
 * and is put back when the tree is compiled.  Before libtraceevent sees
 * the expression, it is checked token by token, so that what
 * libtraceevent 1.7 would misread (an unknown field is false, '12abc' is
 * 12, 'x' is a pointer) or crash on (an unterminated string, a trailing
 * '&&') is refused with an error naming the token.
 */
#ifndef KPROFCTL_TPFILTER_H
#define KPROFCTL_TPFILTER_H

#include <linux/kprof.h>

#include "error.h"

/* Operand stack depth of the kernel's machine (module/filter.c). */
#define KP_TPFILTER_MAX_DEPTH	16
/* Characters of an expression: libtraceevent's error buffer holds twice as many. */
#define KP_TPFILTER_EXPR_MAX	500

struct tep_event;

/*
 * Compile @expr for the tracepoint @event ("SYSTEM:EVENT" @name, parsed
 * by libtraceevent: see kp_tpdecode__event()) into @insns (room for
 * KPROF_FILTER_MAX_INSNS), *@nr of them used.  Returns 0, or -EINVAL /
 * -ERANGE / -EOPNOTSUPP / -E2BIG with @err naming the problem, one line:
 * "filter 'x == 1' on sched:sched_switch: unknown field 'x'".
 */
int kp_tpfilter__compile(struct tep_event *event, const char *name, const char *expr,
			 struct kprof_filter_insn *insns, unsigned int *nr,
			 struct kp_err *err);

#endif /* KPROFCTL_TPFILTER_H */
