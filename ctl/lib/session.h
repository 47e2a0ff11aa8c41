/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration of a sampling session: the options 'record' and
 * 'start' share (perf record's names), their validation, and struct
 * kp_session, which is what KPROF_CMD_START sends and kprof.data records.
 */
#ifndef KPROFCTL_SESSION_H
#define KPROFCTL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "cpumap.h"
#include "error.h"
#include "events.h"
#include "parse-options.h"

#define KP_DEFAULT_FREQ		4000		/* perf record's default -F */
#define KP_DEFAULT_OUTPUT	"kprof.data"
#define KP_MAX_EVENT_ARGS	64		/* -e options */
#define KP_MAX_PID_ARGS		64		/* -p options */

/*
 * Aggregation: KPROF_A_SESSION_AGG_ENTRIES entries per CPU, each costing
 * KP_AGG_ENTRY_BYTES of kernel memory (a 64-byte entry and 192 bytes of
 * frame pool; Documentation/aggregation.rst).
 */
#define KP_AGG_ENTRY_BYTES	256

/*
 * Bytes of user stack above %rsp each stream sample with a user chain
 * copies (KPROF_A_SESSION_USER_STACK), for the leaf fix-up (unwind.h).
 * tools/bench/leaf-cfa.py on Debian 12's libc: the return address of a
 * frameless function lies within 128 bytes at 375 of its 378 syscall
 * sites where %rbp is left alone (read(), write(), poll(), ...: 8 or 48
 * bytes; openat(): 128).
 */
#define KP_LEAF_STACK_BYTES	128

/* A session's configuration; what KPROF_CMD_START carries. */
struct kp_session {
	uint32_t	flags;			/* KPROF_SESSION_F_* */
	uint32_t	freq;			/* samples/s; 0 when period is used */
	uint64_t	period;			/* events/sample; 0 when freq is used */
	uint32_t	buffer_size;		/* per-CPU data bytes */
	uint32_t	stack_depth;
	uint32_t	watermark;		/* 0: not sent (module default) */
	uint32_t	agg_entries;		/* with F_AGGREGATE; 0: not sent */
	uint32_t	user_stack;		/* with F_USER_STACK and F_STREAM; 0: not sent */
	uint32_t	nr_pids;
	uint32_t	pids[KPROF_MAX_PIDS];
	uint32_t	cpus_bytes;		/* 0: all CPUs (no KPROF_A_SESSION_CPUS) */
	uint64_t	cpus[KP_CPUMAP_WORDS];
	uint32_t	nr_events;
	struct kp_event	events[KPROF_MAX_EVENTS];
};

/* The options as given on the command line, before validation. */
struct kp_session_opts {
	const char	*events[KP_MAX_EVENT_ARGS];
	unsigned int	nr_event_args;
	const char	*pids[KP_MAX_PID_ARGS];
	unsigned int	nr_pid_args;
	const char	*tids[KP_MAX_PID_ARGS];	/* -t: threads, not processes */
	unsigned int	nr_tid_args;
	bool		too_many_args;		/* more -e or -p than the arrays hold */
	const char	*freq;
	const char	*count;
	const char	*cpus;
	const char	*call_graph;
	const char	*buffer_size;
	const char	*mmap_pages;		/* -m: perf's pages or size */
	const char	*stack_depth;
	const char	*output;
	const char	*mode;			/* --mode */
	const char	*agg_entries;		/* --agg-entries */
	bool		aggregate_default;	/* 'start': aggregate without --mode, -o */
	bool		all_cpus;
	bool		callchain;		/* -g */
	bool		all_kernel;
	bool		all_user;
	bool		no_inherit;
	bool		off_cpu;		/* --off-cpu */
	bool		no_leaf_fixup;		/* --no-leaf-fixup */
	int		verbose;
	const char	*filters[KP_MAX_EVENT_ARGS];	/* --filter after events[i] */
	const char	*orphan_filter;		/* a --filter before any -e */
};

parse_opt_cb kp_session_opts__event_cb;
parse_opt_cb kp_session_opts__pid_cb;
parse_opt_cb kp_session_opts__tid_cb;
parse_opt_cb kp_session_opts__filter_cb;

/* The option table entries of 'record' and 'start', for @o. */
#define KP_SESSION_OPTIONS(o)							\
	OPT_CALLBACK('e', "event", (o), "event",				\
		     "event(s) to sample, e.g. cycles,instructions:u (see 'kprofctl list')", \
		     kp_session_opts__event_cb),				\
	OPT_CALLBACK(0, "events", (o), "event", "same as -e/--event",		\
		     kp_session_opts__event_cb),				\
	OPT_CALLBACK(0, "filter", (o), "filter",				\
		     "tracepoint filter for the preceding -e, e.g. 'prev_pid == 1 && next_prio < 100'", \
		     kp_session_opts__filter_cb),				\
	OPT_STRING('F', "freq", &(o)->freq, "n|max",				\
		   "samples per second per event (default 4000; max: the kernel's limit)"), \
	OPT_STRING('c', "count", &(o)->count, "n", "sample every n events (the period)"), \
	OPT_BOOLEAN('a', "all-cpus", &(o)->all_cpus, "system-wide, on all CPUs"), \
	OPT_CALLBACK('p', "pid", (o), "pid[,pid]",				\
		     "profile these existing processes", kp_session_opts__pid_cb), \
	OPT_CALLBACK('t', "tid", (o), "tid[,tid]",				\
		     "profile these existing threads only (no children, as perf's -t)", \
		     kp_session_opts__tid_cb),					\
	OPT_STRING('C', "cpu", &(o)->cpus, "cpu-list",				\
		   "system-wide on these CPUs only, e.g. 0,2-3"),		\
	OPT_BOOLEAN('g', NULL, &(o)->callchain,				\
		    "record kernel and user call chains"),			\
	OPT_STRING(0, "call-graph", &(o)->call_graph, "mode",			\
		   "call chains: 'fp' (frame pointers), same as -g"),		\
	OPT_BOOLEAN('K', "all-kernel", &(o)->all_kernel,			\
		    "sample the kernel only (events :k, no user chain)"),	\
	OPT_BOOLEAN('U', "all-user", &(o)->all_user,				\
		    "sample user space only (events :u, no kernel chain)"),	\
	OPT_BOOLEAN('i', "no-inherit", &(o)->no_inherit,			\
		    "do not follow the children of the profiled processes"),	\
	OPT_BOOLEAN(0, "off-cpu", &(o)->off_cpu,				\
		    "also the off-CPU time by stack, beside cpu-clock samples: where the wall-clock time went"), \
	OPT_STRING(0, "buffer-size", &(o)->buffer_size, "size",		\
		   "per-CPU buffer: power of two, 8K to 256M (default: half a second of samples, at least 256K)"),	\
	OPT_STRING('m', "mmap-pages", &(o)->mmap_pages, "pages",		\
		   "per-CPU buffer in pages (a power of two) or a size with B/K/M/G, as perf's"), \
	OPT_STRING(0, "stack-depth", &(o)->stack_depth, "n",			\
		   "frames per call chain, 1 to 512 (default 127)"),		\
	OPT_STRING('o', "output", &(o)->output, "file",			\
		   "output file (default kprof.data)"),			\
	OPT_STRING(0, "mode", &(o)->mode, "mode",				\
		   "stream (into the file), aggregate (stack counts in the kernel) or both"), \
	OPT_STRING(0, "agg-entries", &(o)->agg_entries, "n",			\
		   "aggregation entries per CPU: power of two, 64 to 4M (default 8K: 4096 stacks), 256 bytes each"), \
	OPT_BOOLEAN(0, "no-leaf-fixup", &(o)->no_leaf_fixup,			\
		    "user chains without the stack copy that finds the caller of a frameless leaf (as perf -g)"), \
	OPT_INCR('v', "verbose", &(o)->verbose, "show progress and details")

/* Does @s have an off-CPU event (--off-cpu)? */
bool kp_session__has_offcpu(const struct kp_session *s);

/* How the session's target is chosen. */
enum kp_target {
	KP_TARGET_SYSTEM,	/* -a, -C, or nothing: per-CPU counters */
	KP_TARGET_PIDS,		/* -p, or -t with KPROF_SESSION_F_THREADS */
	KP_TARGET_COMMAND,	/* the command to run, with F_INHERIT */
};

/*
 * The stream buffer per CPU @s gets without -m or --buffer-size: half a
 * second of its samples at their -F rate with 32 + 32 frames of call
 * chain, a power of two from 256 KiB (the off-CPU and lock events write
 * nothing there); KPROF_DEFAULT_BUFFER_SIZE when an event's rate is not
 * known (every hit, -c).  Events, rate, depth and flags must be set.
 */
uint32_t kp_session__default_buffer(const struct kp_session *s);

/*
 * Validate @o and fill @s (everything but the command's PID).  The mode:
 * --mode stream (no mode flag: the module's default), aggregate
 * (F_AGGREGATE) or both; without --mode, aggregate when
 * @o->aggregate_default and no -o, else stream.  Aggregate alone refuses
 * -o and --buffer-size, and needs @o->aggregate_default ('record' always
 * streams).  @has_command:
 * a command follows the options.  @has_pmu: see kp_events__parse().  The
 * limits come from kp_sysroot (possible CPUs, perf_event_max_sample_rate,
 * /proc/PID).  Returns 0, or -EINVAL / -ERANGE / -ESRCH / -EOPNOTSUPP with
 * @err naming the bad value.  On success, a fallback of cycles to cpu-clock
 * (no hardware PMU) is noted on stderr, one line for @cmd.
 */
int kp_session__from_opts(struct kp_session *s, enum kp_target *target,
			  const struct kp_session_opts *o, bool has_command,
			  bool has_pmu, const char *cmd, struct kp_err *err);

/*
 * Parse a buffer size: a number with an optional K, M or G suffix (powers
 * of 1024), a power of two in [KPROF_MIN_BUFFER_SIZE, KPROF_MAX_BUFFER_SIZE].
 */
int kp_parse_buffer_size(const char *s, uint32_t *size, struct kp_err *err);

/*
 * Parse --agg-entries: a number with an optional K or M suffix (powers of
 * 1024), a power of two in [KPROF_AGG_MIN_ENTRIES, KPROF_AGG_MAX_ENTRIES].
 */
int kp_parse_agg_entries(const char *s, uint32_t *entries, struct kp_err *err);

/* "stream", "aggregate", "both" from KPROF_SESSION_F_STREAM/AGGREGATE (none: stream). */
const char *kp_session_mode__name(uint32_t flags);

/*
 * Make @s end when our netlink socket closes (KPROF_SESSION_F_OWNED), when
 * the module's ABI (@module_abi, from the version handshake) knows owned
 * sessions: 1.1 and later.
 */
void kp_session__own(struct kp_session *s, uint32_t module_abi);

/* Does @s write a stream (KPROF_SESSION_F_STREAM, or no mode flag)? */
bool kp_session__streams(const struct kp_session *s);

/*
 * Leave out of @s what the module (ABI @module_abi) does not know and
 * needs no refusal: the user stack copy (1.16) of the leaf fix-up.
 */
void kp_session__fit_abi(struct kp_session *s, uint32_t module_abi);

/*
 * Can the module (ABI @module_abi) run @s?  -t/--tid (KPROF_SESSION_F_THREADS)
 * needs 1.11.  Returns 0, or -EOPNOTSUPP with @err naming the option.
 */
int kp_session__check_abi(const struct kp_session *s, uint32_t module_abi,
			  struct kp_err *err);

/* "4M", "8K", "12345": the shortest exact spelling of @bytes. */
char *kp_fmt_size(char *buf, size_t len, uint64_t bytes);

/*
 * "kernel-stack|user-stack|inherit|system-wide|stream|aggregate" ("0" for
 * none; hex for unknown bits).
 */
char *kp_session_flags__format(uint32_t flags, char *buf, size_t len);

#endif /* KPROFCTL_SESSION_H */
