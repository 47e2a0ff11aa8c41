/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kprof generic netlink protocol: one function per command building
 * the request and parsing the reply.  Pure message handling over libnl's
 * message API; the I/O goes through nl.h.
 */
#ifndef KPROFCTL_PROTO_H
#define KPROFCTL_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>
#include <linux/netlink.h>

#include "error.h"
#include "nl.h"

struct kp_session;
struct nl_msg;

#define KP_RELEASE_MAX		128

/* KPROF_CMD_VERSION reply */
struct kp_version_info {
	uint32_t	abi;			/* KPROF_ABI_VERSION encoding */
	char		release[KP_RELEASE_MAX];/* kprof.ko release; "" if unknown */
	char		kernel[KP_RELEASE_MAX];	/* kernel release it runs on */
};

/*
 * Statistics (KPROF_A_STATS): v[i] is attribute KPROF_STATS_A_INVOCATIONS + i.
 * Every counter this kprofctl knows is required in a reply.
 */
enum kp_stat {
	KP_STAT_INVOCATIONS,
	KP_STAT_SAMPLES,
	KP_STAT_LOST_FULL,
	KP_STAT_LOST_TOO_BIG,
	KP_STAT_THROTTLED,
	KP_STAT_BYTES,
	KP_STAT_SIDEBAND,
	KP_STAT_SIDEBAND_LOST,
	KP_STAT_HANDLER_NS,
	KP_STAT_HANDLER_MAX_NS,
	KP_STAT_KSTACK_TRUNC,
	KP_STAT_USTACK_TRUNC,
	KP_STAT_USTACK_FAULT,
	KP_STATS_NR
};
_Static_assert(KPROF_STATS_A_INVOCATIONS + KP_STATS_NR == KPROF_STATS_A_PAD,
	       "enum kp_stat does not match the KPROF_STATS_A_* attributes");

/*
 * The aggregation counters: agg[i] is attribute KPROF_STATS_A_AGG_SAMPLES + i.
 * Optional in a reply (a module without aggregation has none), but all or
 * none.
 */
enum kp_agg_stat {
	KP_AGG_STAT_SAMPLES,
	KP_AGG_STAT_LOST_FULL,
	KP_AGG_STAT_LOST_RESET,
	KP_AGG_STAT_USED,
	KP_AGG_STAT_CAPACITY,
	KP_AGG_STATS_NR
};
_Static_assert(KPROF_STATS_A_AGG_SAMPLES + KP_AGG_STATS_NR - 1 == KPROF_STATS_A_AGG_CAPACITY,
	       "enum kp_agg_stat does not match the KPROF_STATS_A_AGG_* attributes");

/*
 * How full the tables have been (ABI 1.14): agg_use[i] is attribute
 * KPROF_STATS_A_AGG_HIGH + i; all or none, with the aggregation counters.
 */
enum kp_agg_use {
	KP_AGG_USE_HIGH,
	KP_AGG_USE_POOL_USED,
	KP_AGG_USE_POOL_HIGH,
	KP_AGG_USE_POOL_SIZE,
	KP_AGG_USE_NR
};
_Static_assert(KPROF_STATS_A_AGG_HIGH + KP_AGG_USE_NR - 1 == KPROF_STATS_A_AGG_POOL_SIZE,
	       "enum kp_agg_use does not match the KPROF_STATS_A_AGG_* attributes of ABI 1.14");

/* The off-CPU counters (ABI 1.5): offcpu[i] is KPROF_STATS_A_OFFCPU_BLOCKS + i. */
enum kp_offcpu_stat {
	KP_OFFCPU_STAT_BLOCKS,
	KP_OFFCPU_STAT_DONE,
	KP_OFFCPU_STAT_FILTERED,
	KP_OFFCPU_STAT_LOST,
	KP_OFFCPU_STAT_LOST_FULL,
	KP_OFFCPU_STAT_LOST_RESET,
	KP_OFFCPU_STAT_OPEN,
	KP_OFFCPU_STATS_NR
};
_Static_assert(KPROF_STATS_A_OFFCPU_BLOCKS + KP_OFFCPU_STATS_NR - 1 == KPROF_STATS_A_OFFCPU_OPEN,
	       "enum kp_offcpu_stat does not match the KPROF_STATS_A_OFFCPU_* attributes");

struct kp_stats {
	bool		has_cpu;		/* per-CPU (STATS dump), else totals */
	uint32_t	cpu;
	uint64_t	v[KP_STATS_NR];
	bool		has_agg;		/* agg[] came with the reply */
	uint64_t	agg[KP_AGG_STATS_NR];
	bool		has_agg_use;		/* agg_use[] came with it (ABI 1.14) */
	uint64_t	agg_use[KP_AGG_USE_NR];
	bool		has_filtered;		/* filtered came with the reply */
	uint64_t	filtered;		/* tracepoint hits a filter dropped */
	uint64_t	lost_recursion;		/* hits inside kprof's sampling path (ABI 1.1) */
	uint64_t	lost_cost;		/* probe hits over the cost cap (ABI 1.3) */
	bool		has_nested;		/* nested came with the reply (ABI 1.1) */
	uint64_t	nested;			/* records committed inside another's */
	bool		has_offcpu;		/* offcpu[] came with the reply (ABI 1.5) */
	uint64_t	offcpu[KP_OFFCPU_STATS_NR];
	bool		has_lock;		/* lock[] came with the reply (ABI 1.6) */
	uint64_t	lock[KP_OFFCPU_STATS_NR];	/* lock waits, as offcpu[] */
	bool		has_waker;		/* waker[] came with the reply (ABI 1.7) */
	uint64_t	waker[KP_OFFCPU_STATS_NR];	/* off-CPU blocks' wakers, as offcpu[] */
};

_Static_assert(KPROF_STATS_A_WAKER_WAKES + KP_OFFCPU_STATS_NR - 1 == KPROF_STATS_A_WAKER_OPEN,
	       "enum kp_offcpu_stat does not match the KPROF_STATS_A_WAKER_* attributes");

_Static_assert(KPROF_STATS_A_LOCK_WAITS + KP_OFFCPU_STATS_NR - 1 == KPROF_STATS_A_LOCK_OPEN,
	       "enum kp_offcpu_stat does not match the KPROF_STATS_A_LOCK_* attributes");

/* A wait balance (offcpu[] or lock[]), once the session has stopped. */
static inline bool kp_stats__waits_balanced(const uint64_t *o)
{
	return o[KP_OFFCPU_STAT_BLOCKS] == o[KP_OFFCPU_STAT_DONE] + o[KP_OFFCPU_STAT_FILTERED] +
					   o[KP_OFFCPU_STAT_LOST] + o[KP_OFFCPU_STAT_LOST_FULL] +
					   o[KP_OFFCPU_STAT_LOST_RESET] + o[KP_OFFCPU_STAT_OPEN];
}

/* The off-CPU balance, once the session has stopped: every block ended once. */
static inline bool kp_stats__offcpu_balanced(const struct kp_stats *st)
{
	return kp_stats__waits_balanced(st->offcpu);
}

/* "invocations", "lost_full", ... (the attribute names in lower case). */
const char *kp_stat__name(unsigned int i);

/* Samples the stream lost: lost_full + lost_too_big + lost_recursion + lost_cost. */
static inline uint64_t kp_stats__lost(const struct kp_stats *st)
{
	return st->v[KP_STAT_LOST_FULL] + st->v[KP_STAT_LOST_TOO_BIG] + st->lost_recursion +
	       st->lost_cost;
}

/*
 * ", N recursion" for N hits the module refused inside its own sampling
 * path and ", M cost cap" for M probe hits over the cost cap, "" for none:
 * the tail of the "lost (...)" lists of status, stop and record.
 */
const char *kp_fmt_lost_tail(uint64_t recursion, uint64_t cost, char *buf, size_t len);

/* The module's invariant: invocations == samples + every lost cause of the stream. */
static inline bool kp_stats__balanced(const struct kp_stats *st)
{
	return st->v[KP_STAT_INVOCATIONS] == st->v[KP_STAT_SAMPLES] + kp_stats__lost(st);
}

/* "agg_samples", "lost_agg_full", ... */
const char *kp_agg_stat__name(unsigned int i);

/* "agg_high", "agg_pool_used", ... */
const char *kp_agg_use__name(unsigned int i);

/* Samples the tables lost: lost_agg_full + lost_agg_reset + lost_recursion + lost_cost. */
static inline uint64_t kp_stats__agg_lost(const struct kp_stats *st)
{
	return st->agg[KP_AGG_STAT_LOST_FULL] + st->agg[KP_AGG_STAT_LOST_RESET] +
	       st->lost_recursion + st->lost_cost;
}

/* Aggregation's invariant: invocations == agg_samples + kp_stats__agg_lost(). */
static inline bool kp_stats__agg_balanced(const struct kp_stats *st)
{
	return st->v[KP_STAT_INVOCATIONS] == st->agg[KP_AGG_STAT_SAMPLES] + kp_stats__agg_lost(st);
}

/* KPROF_A_SESSION_MAPS: the mappings an aggregating session kept (1.2) */
struct kp_maps_stats {
	uint64_t	procs;			/* processes whose mappings were kept */
	uint64_t	kept;			/* mappings kept */
	uint64_t	lost;			/* mappings not kept: no room */
	uint64_t	lost_pids;		/* processes not followed: no room */
	uint64_t	unowned;		/* address spaces freed outside their process */
};

/* KPROF_CMD_STATUS reply */
/* One counting session of STATUS (ABI 1.14): kprofctl stat's. */
struct kp_count_row {
	uint64_t	id;			/* counting sessions' own numbering */
	uint32_t	state;			/* running, or stopped and held */
	uint32_t	flags;			/* KPROF_SESSION_F_* */
	uint32_t	owner_pid;
	uint32_t	uid;
	uint64_t	start_ns;		/* CLOCK_MONOTONIC */
	uint32_t	nr_events;
	uint64_t	mem;			/* bytes kprof allocated for it */
};

/* The most counting sessions kprof.ko holds. */
#define KP_COUNT_SESSIONS_MAX	16

struct kp_status_info {
	uint32_t	state;			/* enum kprof_state */
	uint32_t	nr_cpus;
	uint32_t	online_cpus;
	uint32_t	readers;
	uint64_t	sessions;
	uint64_t	loaded_ns;
	bool		has_budget;		/* ABI 1.10: */
	uint64_t	mem;			/* bytes all sessions count */
	uint64_t	budget;			/* their budget */
	/* When a session exists (running or stopped): */
	bool		has_session;
	uint64_t	session_id;
	uint32_t	session_flags;
	uint32_t	buffer_size;
	uint64_t	mmap_stride;
	bool		has_owner;		/* owner_pid came with the reply (ABI 1.1) */
	uint32_t	owner_pid;		/* 0: detached */
	bool		has_stats;
	struct kp_stats	stats;			/* totals */
	bool		has_maps;		/* an aggregating session (ABI 1.2) */
	struct kp_maps_stats maps;
	unsigned int	nr_counts;		/* counting sessions (ABI 1.14) */
	struct kp_count_row counts[KP_COUNT_SESSIONS_MAX];
};

/* The most sessions kprof.ko lists (its max_sessions at most). */
#define KP_STATUS_SESSIONS_MAX	256

/* One session of STATUS (ABI 1.10). */
struct kp_session_row {
	uint64_t	id;
	uint32_t	state;			/* enum kprof_state */
	uint32_t	flags;			/* KPROF_SESSION_F_* */
	uint32_t	owner_pid;		/* 0: detached */
	uint32_t	uid;
	uint64_t	start_ns;		/* CLOCK_MONOTONIC */
	uint32_t	nr_events;
	uint32_t	buffer_size;
	uint64_t	mem;			/* bytes against the budget */
	uint32_t	cpus_skipped;		/* 1.13: CPUs up later, no buffer */
	uint64_t	lost_no_ring;		/* 1.13: events lost there */
	bool		has_stats;
	struct kp_stats	stats;			/* totals */
};

/* KPROF_CMD_START reply */
struct kp_start_info {
	uint64_t	session_id;
	uint32_t	buffer_size;		/* per-CPU data bytes */
	uint32_t	nr_cpus;		/* per-CPU buffers: CPUs 0..nr_cpus-1 */
	uint64_t	mmap_stride;		/* bytes between CPUs' mmap offsets */
};

/* KPROF_CMD_STOP reply */
struct kp_stop_info {
	uint64_t	session_id;
	struct kp_stats	stats;			/* totals */
};

/* "kprofctl X.Y.Z", sent in KPROF_A_VERSION_CLIENT. */
extern const char kp_client_name[];

/* "KPROF_A_STATUS_STATE" */
const char *kp_attr__name(int type);

/* Is @nlh a whole generic netlink reply to @cmd?  0, or -EBADMSG with @err set. */
int kp_reply__check_header(const struct nlmsghdr *nlh, uint8_t cmd, struct kp_err *err);

/* Reply parsers, exposed for the unit tests. */
int kp_version__parse(const struct nlmsghdr *nlh, struct kp_version_info *v,
		      struct kp_err *err);
int kp_status__parse(const struct nlmsghdr *nlh, struct kp_status_info *st,
		     struct kp_err *err);
int kp_start__parse(const struct nlmsghdr *nlh, struct kp_start_info *info,
		    struct kp_err *err);
int kp_stop__parse(const struct nlmsghdr *nlh, struct kp_stop_info *info,
		   struct kp_err *err);
/* One message of the KPROF_CMD_STATS dump: per-CPU stats. */
int kp_stats__parse_msg(const struct nlmsghdr *nlh, struct kp_stats *st,
			struct kp_err *err);

/*
 * Put the attributes of a KPROF_CMD_START request for @s into @msg:
 * FLAGS, FREQ or PERIOD, CPUS (with F_SYSTEM_WIDE and a CPU list), PIDs,
 * BUFFER_SIZE, STACK_DEPTH, WATERMARK (if set), AGG_ENTRIES (if set, with
 * F_AGGREGATE), and one nested EVENT per event, in order.  No PAD
 * attributes: kprof.ko's strict policies refuse them (see
 * KP_REQUEST_PAD_U64 in proto.c).  With @ev_offs (KPROF_MAX_EVENTS
 * entries), the offset of event i's nest from the message header goes into
 * ev_offs[i]: the kernel's NLMSGERR_ATTR_OFFS of a refused event.
 * Returns 0 or -EMSGSIZE.
 */
int kp_start__put(struct nl_msg *msg, const struct kp_session *s, uint32_t *ev_offs);

/*
 * KPROF_CMD_VERSION.  @send_abi adds our KPROF_A_VERSION_ABI, which makes
 * the module refuse a different ABI major with EPROTO.
 */
int kp_nl__version(struct kp_nl *nl, bool send_abi, struct kp_version_info *v,
		   struct kp_err *err);

/*
 * The version handshake every command starts with: KPROF_CMD_VERSION with
 * our ABI, and a check of the module's.  On an ABI major mismatch return
 * -EPROTO with err->msg naming both versions, and @v filled in when the
 * module's version could be learned (v->release[0] != '\0').
 */
int kp_nl__hello(struct kp_nl *nl, struct kp_version_info *v, struct kp_err *err);

/* KPROF_CMD_STATUS */
int kp_nl__status(struct kp_nl *nl, struct kp_status_info *st, struct kp_err *err);
/*
 * The sessions on the module's table, oldest first: up to @max in @rows,
 * their number in *@nr (which may exceed @max); 0 from a module older
 * than ABI 1.10.
 */
int kp_nl__sessions(struct kp_nl *nl, struct kp_session_row *rows, unsigned int max,
		    unsigned int *nr, struct kp_err *err);
/* "pid N" for a session its owner's socket holds, else "detached"; @buf. */
const char *kp_session_row__owner(const struct kp_session_row *r, char *buf, size_t len);

/*
 * "ID (WHAT, OWNER, uid U), ..." of @rows into @buf: every one, or the
 * running ones with @running_only; WHAT is the state, or the mode with
 * @mode.  Returns the number listed.
 */
unsigned int kp_session_rows__list(const struct kp_session_row *rows, unsigned int nr,
				   bool running_only, bool mode, char *buf, size_t len);

/* kp_nl__status() and kp_nl__sessions() in one STATUS request. */
int kp_nl__status_sessions(struct kp_nl *nl, struct kp_status_info *st,
			   struct kp_session_row *rows, unsigned int max, unsigned int *nr,
			   struct kp_err *err);

/*
 * KPROF_CMD_START.  -EBUSY when a session exists: err->msg then names the
 * running session's id when STATUS could tell it.
 */
int kp_nl__start(struct kp_nl *nl, const struct kp_session *s,
		 struct kp_start_info *info, struct kp_err *err);

/* KPROF_CMD_STOP.  -ENOENT when no session is running. */
int kp_nl__stop(struct kp_nl *nl, struct kp_stop_info *info, struct kp_err *err);

/*
 * KPROF_CMD_FREE (ABI 1.12) of the socket's session (kp_nl__set_session(),
 * which kp_nl__stop() sets): its data was saved, the module may free it.
 * -EBUSY while it runs.
 */
int kp_nl__free(struct kp_nl *nl, struct kp_err *err);

/*
 * KPROF_CMD_STATS dump: *@stats (malloc'ed, to be freed) gets one entry per
 * message, *@nr of them, in the order received.
 */
int kp_nl__stats(struct kp_nl *nl, struct kp_stats **stats, unsigned int *nr,
		 struct kp_err *err);

/*
 * KPROF_CMD_AGG_DUMP: one entry of a CPU's aggregation table.  The same
 * key (event, pid, kernel and user frames) may come from several CPUs, or
 * twice from one: add them up (see agg.h).
 */
struct kp_agg_entry {
	uint32_t	cpu;
	uint32_t	event;
	uint32_t	pid;
	char		comm[16];		/* the task's name when first seen */
	uint64_t	count;			/* samples; off-CPU events: blocks */
	uint64_t	time_ns;		/* off-CPU events: their time (ABI 1.5) */
	bool		has_minmax;		/* lock events (ABI 1.6): */
	uint64_t	max_ns, min_ns;		/* the longest and shortest wait */
	bool		has_lock;		/* lock events (ABI 1.6): */
	uint64_t	lock;			/* the lock's address (0: hidden) */
	uint32_t	lock_flags;		/* KPROF_LOCK_F_* */
	uint32_t	nr_kernel;
	uint32_t	nr_user;
	const uint64_t	*kernel;		/* innermost first, within the message */
	const uint64_t	*user;
	bool		has_waker;		/* off-CPU with wakers (ABI 1.7): */
	uint32_t	waker_pid;		/* the waking process */
	char		waker_comm[16];		/* the waking thread's name */
	uint32_t	waker_nr_kernel;
	uint32_t	waker_nr_user;
	const uint64_t	*waker_kernel;		/* innermost first */
	const uint64_t	*waker_user;
	uint64_t	session_id;		/* 0 when the message had none */
};

/* Words of the buffer kp_agg__parse_msg() copies unaligned frames to. */
#define KP_AGG_FRAMES_WORDS	(4 * KPROF_MAX_STACK_DEPTH)

/*
 * One AGG_DUMP message into @e; the frames point into @nlh (copied to
 * @frames when not 8-byte aligned, which holds KP_AGG_FRAMES_WORDS).
 */
int kp_agg__parse_msg(const struct nlmsghdr *nlh, struct kp_agg_entry *e, uint64_t *frames,
		      struct kp_err *err);

/* Called for each entry of the dump; 0 or a negative errno with @err set. */
typedef int (*kp_agg_entry_fn)(const struct kp_agg_entry *e, void *arg, struct kp_err *err);

/*
 * KPROF_CMD_AGG_DUMP: @fn for every entry of the session's tables.
 * -ENOENT without a session, -EOPNOTSUPP when it does not aggregate, with
 * err->msg saying so; a dump that fails midway reports the module's error.
 */
int kp_nl__agg_dump(struct kp_nl *nl, kp_agg_entry_fn fn, void *arg, struct kp_err *err);

/*
 * KPROF_CMD_AGG_DUMP (ABI 1.15) of the interval @epoch, closed by the last
 * kp_nl__agg_swap() and frozen: the module refuses a swap until the dump
 * ends.  -ESTALE when it is not the last interval closed.
 */
int kp_nl__agg_dump_interval(struct kp_nl *nl, uint64_t epoch, kp_agg_entry_fn fn, void *arg,
			     struct kp_err *err);

/* An interval of a session read in intervals (KPROF_SESSION_F_INTERVALS). */
struct kp_agg_interval {
	uint64_t	epoch;			/* for kp_nl__agg_dump_interval() */
	uint64_t	start_ns;		/* CLOCK_MONOTONIC: its start */
	uint64_t	end_ns;			/* and end: the swap */
	/*
	 * CLOCK_REALTIME and CLOCK_MONOTONIC read together as the swap
	 * answered (kp_nl__agg_swap()): Unix time of a monotonic t is
	 * realtime_ns - (mono_ns - t), by the clock of the swap, whatever
	 * steps it takes later; 0 when not read
	 */
	uint64_t	realtime_ns;
	uint64_t	mono_ns;
};

/* The Unix time (ns) of the CLOCK_MONOTONIC time @t by @iv's clock pair. */
static inline uint64_t kp_agg_interval__unix_ns(const struct kp_agg_interval *iv, uint64_t t)
{
	return iv->realtime_ns - (iv->mono_ns - t);
}

/* One AGG_SWAP reply into @iv. */
int kp_swap__parse(const struct nlmsghdr *nlh, struct kp_agg_interval *iv, struct kp_err *err);

/*
 * KPROF_CMD_AGG_SWAP (ABI 1.15): close the session's interval, *@iv.
 * -EOPNOTSUPP for a session started without intervals, -EBUSY while a
 * dump reads the interval closed before; err says which.
 */
int kp_nl__agg_swap(struct kp_nl *nl, struct kp_agg_interval *iv, struct kp_err *err);

/* One KPROF_CMD_AGG_MAPS message: a kept mapping of a process that is gone. */
struct kp_agg_map {
	uint64_t	session_id;
	uint32_t	pid;
	char		comm[16];
	uint64_t	start;
	uint64_t	len;
	uint64_t	pgoff;
	uint64_t	dev;			/* new_encode_dev() */
	uint64_t	ino;
	char		path[4096];		/* or "[vdso]" */
};

typedef int (*kp_agg_map_fn)(const struct kp_agg_map *m, void *arg, struct kp_err *err);

int kp_agg_map__parse_msg(const struct nlmsghdr *nlh, struct kp_agg_map *m, struct kp_err *err);
/*
 * Every kept mapping of the current session, to @fn.  A module older than
 * ABI 1.2 keeps none: 0 with no call.
 */
int kp_nl__agg_maps(struct kp_nl *nl, kp_agg_map_fn fn, void *arg, struct kp_err *err);

#endif /* KPROFCTL_PROTO_H */
