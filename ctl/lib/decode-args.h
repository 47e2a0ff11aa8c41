/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options the commands that decode kprof.data share (report, folded;
 * flamegraph and top a part of them): the input or --live, where the
 * symbols are, and the sample filters.
 *
 *	struct kp_decode_args a = { 0 };
 *	struct kp_decode_opts opts = { 0 };
 *	const struct option options[] = {
 *		KP_DECODE_INPUT_OPTIONS(&a),
 *		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
 *		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
 *		...
 *	};
 *
 *	parse_options(...);
 *	if (kp_decode_args__check(&a, cmd))		--live with -i
 *		return KP_EXIT_USAGE;
 *	ret = kp_decode_args__filter(&a, &filter, cmd);
 *	...
 *	if (kp_decode_args__open(&a, &d, &opts, cmd))	the file, or --live's
 *		return KP_EXIT_FAILURE;
 *	ret = kp_decoder__for_each(&d, fn, arg);
 *	kp_decoder__close(&d);
 *	return kp_decode__exit_code(cmd, ret);
 */
#ifndef KPROFCTL_DECODE_ARGS_H
#define KPROFCTL_DECODE_ARGS_H

#include <limits.h>
#include <stdbool.h>

#include "decode.h"
#include "parse-options.h"

struct kp_decode_args {
	const char	*input;		/* -i; kp_decode_args__check(): never NULL */
	bool		live;		/* --live: the running session's tables */
	const char	*comms, *pids, *tids, *dsos;
	bool		kernel, user;	/* -K, -U (report: --user) */
	bool		no_offcpu, offcpu_only;	/* --no-off-cpu, --off-cpu-only */
	const char	*time;		/* --time START,END */
	char		live_path[PATH_MAX];	/* --live's profile, until unlinked */
};

/* -i and --live, into struct kp_decode_args @a. */
#define KP_DECODE_INPUT_OPTIONS(a)						\
	OPT_STRING('i', "input", &(a)->input, "file", "input file (default kprof.data)"), \
	OPT_BOOLEAN(0, "live", &(a)->live,					\
		    "the running session's aggregation tables ('kprofctl start'), not a file")

/*
 * --kallsyms, --symfs, --debug-dir, --buildid-dir, --no-demangle and
 * --no-leaf-fixup, into struct kp_machine_opts @m.
 */
#define KP_DECODE_SYMBOL_OPTIONS(m)						\
	KP_DECODE_SYMBOL_FILE_OPTIONS(m),					\
	OPT_BOOLEAN(0, "no-leaf-fixup", &(m)->no_leaf_fixup,			\
		    "user chains as recorded: no caller of a frameless leaf from the stack copy")

/* The same without --no-leaf-fixup (top: record's option sets it). */
#define KP_DECODE_SYMBOL_FILE_OPTIONS(m)					\
	OPT_STRING(0, "kallsyms", &(m)->kallsyms, "file",			\
		   "kernel symbols (default /proc/kallsyms)"),			\
	OPT_STRING(0, "symfs", &(m)->symfs, "dir",				\
		   "look for user files relative to this directory"),		\
	OPT_STRING(0, "debug-dir", &(m)->debug_dir, "dir",			\
		   "root of .build-id/ debug files (default /usr/lib/debug)"),	\
	OPT_STRING(0, "buildid-dir", &(m)->buildid_dir, "dir",			\
		   "the build-id cache (default $KPROF_BUILDID_DIR or ~/.kprof/buildid)"), \
	KP_DECODE_DEMANGLE_OPTION(&(m)->no_demangle)

/* --no-demangle, as perf's, into the bool @no_demangle. */
#define KP_DECODE_DEMANGLE_OPTION(no_demangle)					\
	OPT_BOOLEAN(0, "no-demangle", no_demangle,				\
		    "do not demangle C++ and Rust symbol names")

/* The filters of struct kp_filter; @what --dsos keeps: "samples", "entries". */
#define KP_DECODE_FILTER_OPTIONS(a, what) KP_DECODE_FILTER_OPTIONS_USER(a, what, 'U')

/*
 * The same with --user's short name @ushort: 0 where -U means what perf's
 * does (report's -U is --hide-unresolved).
 */
#define KP_DECODE_FILTER_OPTIONS_USER(a, what, ushort)				\
	OPT_STRING(0, "comms", &(a)->comms, "comm[,comm...]", "only these commands"), \
	OPT_STRING(0, "pids", &(a)->pids, "pid[,pid...]", "only these processes"), \
	OPT_STRING(0, "tids", &(a)->tids, "tid[,tid...]", "only these threads"), \
	OPT_STRING(0, "dsos", &(a)->dsos, "dso[,dso...]", "only " what " in these DSOs"), \
	OPT_BOOLEAN('K', "kernel", &(a)->kernel, "kernel frames only"),	\
	OPT_BOOLEAN(ushort, "user", &(a)->user, "user frames only"),		\
	OPT_BOOLEAN(0, "no-off-cpu", &(a)->no_offcpu,				\
		    "leave out the off-CPU time (record --off-cpu)"),		\
	OPT_BOOLEAN(0, "off-cpu-only", &(a)->offcpu_only,			\
		    "only the off-CPU time (record --off-cpu)"),			\
	KP_DECODE_TIME_OPTION(&(a)->time)

/*
 * perf's --pid and --tid, the same filters as --pids/--tids, for the
 * commands where perf has them (report, annotate) and the name is free
 * (folded's --pid is stackcollapse's COMM-PID frame).
 */
#define KP_DECODE_PERF_PID_OPTIONS(a)						\
	OPT_STRING(0, "pid", &(a)->pids, "pid[,pid...]", "only these processes (perf's name)"), \
	OPT_STRING(0, "tid", &(a)->tids, "tid[,tid...]", "only these threads (perf's name)")

/*
 * perf's --time: START,END spans or percent slices, into the string @time
 * (kp_decode_opts__time()).
 */
#define KP_DECODE_TIME_OPTION(time)						\
	OPT_STRING(0, "time", time, "start,end",				\
		   "only samples in this span, seconds as script shows them (spans: space-" \
		   "separated), or perf's slices: 10%/2, 0%-10%")

/*
 * Refuse --live with an input file ("kprofctl: CMD: --live reads the
 * running session: no input file 'F'", returns -1), else default the
 * input to kprof.data and return 0.
 */
int kp_decode_args__check(struct kp_decode_args *a, const char *cmd);

/*
 * --time's @time (NULL: none) into @opts: 0, or KP_EXIT_USAGE with
 * "kprofctl: CMD: bad --time value 'X' (START,END in seconds)" printed.
 */
int kp_decode_opts__time(struct kp_decode_opts *opts, const char *time, const char *cmd);

/* kp_filter__init() with the filter options: 0 or KP_EXIT_USAGE. */
int kp_decode_args__filter(const struct kp_decode_args *a, struct kp_filter *f,
			   const char *cmd);

/*
 * With --live, save the running session's aggregated profile into a
 * temporary file and make it the input: 0, or -1 with the error printed.
 * kp_decode_args__unlink() removes it once it is open (or read).
 */
int kp_decode_args__live(struct kp_decode_args *a, const char *cmd);
void kp_decode_args__unlink(struct kp_decode_args *a);

/*
 * kp_decoder__open() of the input (with --live, of the profile made for
 * it), @opts->machine on behalf of @cmd with /proc/PID/root lookups: 0, or
 * -1 with the error printed.
 */
int kp_decode_args__open(struct kp_decode_args *a, struct kp_decoder *d,
			 struct kp_decode_opts *opts, const char *cmd);

/*
 * The exit code after kp_decoder__for_each() and printing returned @ret:
 * KP_EXIT_OK, or KP_EXIT_FAILURE with "kprofctl: CMD: REASON" printed.
 */
int kp_decode__exit_code(const char *cmd, int ret);

/*
 * The recording's header as 'perf report --header' prints perf.data's:
 * "# ========" lines around "# hostname : ...", "# os release : ...",
 * "# cmdline : ...", one "# event : name = ..." per event, and so on.
 */
void kp_decoder__fprintf_header(const struct kp_decoder *d, FILE *fp);

#endif /* KPROFCTL_DECODE_ARGS_H */
