/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Collapsed ("folded") stacks: one sample count per stack, one stack per
 * line, root first, as written by FlameGraph's stackcollapse scripts and
 * by 'kprofctl folded':
 *
 *	main;do_work;memcpy 42
 *	main;read;entry_SYSCALL_64_[k];ksys_read_[k] 7
 *
 * The count is the last blank-separated field; frames are separated by
 * ';' and may contain blanks.  Kernel frames carry a "_[k]" suffix.  The
 * differential form of difffolded.pl has two counts, BASE then NEW:
 *
 *	main;do_work;memcpy 40 42
 *
 * Empty lines are skipped.  Any other line without a count is bad: the
 * reader reads on and reports every bad line as one error naming the
 * first ("FILE:LINE: ...").
 *
 * Inputs are read as a stream of lines handed to a callback:
 *
 *	static int add(void *arg, const struct kp_folded_line *l) { ... }
 *
 *	ret = kp_folded__read_path(path, add, arg, &err);
 *
 * where @path is a folded file, "-" for stdin, or a kprof.data file (it
 * starts with "KPROFDAT"), which is converted by running the sibling
 * command 'kprofctl folded -i PATH' (with --no-demangle when
 * kp_folded_no_demangle is set) and reading its output.
 */
#ifndef KPROFCTL_FOLDED_H
#define KPROFCTL_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* The annotation of kernel frames, as stackcollapse-perf.pl --kernel writes. */
#define KP_FOLDED_KERNEL_SUFFIX		"_[k]"
#define KP_FOLDED_KERNEL_SUFFIX_LEN	4

struct kp_folded_line {
	const char	*stack;		/* not NUL-terminated */
	size_t		len;		/* bytes of @stack */
	uint64_t	count;		/* the (last) count: NEW in the two-count form */
	uint64_t	count0;		/* BASE in the two-count form, else 0 */
	bool		two;		/* two counts */
	unsigned long	lineno;		/* 1-based */
};

/* Return 0 to go on, or a negative errno with the error set in @err. */
typedef int kp_folded_cb(void *arg, const struct kp_folded_line *line, struct kp_err *err);

/*
 * Split one line (no newline; a trailing '\r' is fine) into its stack and
 * count(s).  @two: also take a second count before the last one.  Returns
 * 0, 1 for an empty line, -EINVAL when there is no count or no stack, or
 * -ERANGE when a count does not fit in 64 bits.
 */
int kp_folded__parse_line(const char *line, size_t len, bool two, struct kp_folded_line *out);

/*
 * Read the folded lines of @fp (@name in messages), after the @prelen
 * bytes of @pre that were read from it already.  The form (one or two
 * counts) is that of the first line with a count.  Returns 0, or a
 * negative errno with @err set.
 */
int kp_folded__read_fp(FILE *fp, const char *name, const char *pre, size_t prelen,
		       kp_folded_cb *cb, void *arg, struct kp_err *err);

/* Read @path: folded text, kprof.data, or stdin when "-". */
int kp_folded__read_path(const char *path, kp_folded_cb *cb, void *arg, struct kp_err *err);

/* Does @buf (@len bytes read from the start of a file) start a kprof.data? */
bool kp_folded__is_data(const char *buf, size_t len);

/*
 * The kprofctl binary that converts kprof.data ("/proc/self/exe"); the
 * tests point it elsewhere.
 */
extern const char *kp_folded_exe;

/*
 * Pass --no-demangle to that 'kprofctl folded' (flamegraph and diff
 * --no-demangle set it for the time of the command).
 */
extern bool kp_folded_no_demangle;

/* Is the frame @name (@len bytes) annotated as a kernel frame? */
static inline bool kp_folded__is_kernel(const char *name, size_t len)
{
	return len >= KP_FOLDED_KERNEL_SUFFIX_LEN &&
	       !__builtin_memcmp(name + len - KP_FOLDED_KERNEL_SUFFIX_LEN,
				 KP_FOLDED_KERNEL_SUFFIX, KP_FOLDED_KERNEL_SUFFIX_LEN);
}

#endif /* KPROFCTL_FOLDED_H */
