/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kprof - in-kernel profiler: the ABI shared by kprof.ko and kprofctl.
 *
 * Everything in this header is ABI.  Types have explicit widths, structures
 * are padded to 8 bytes, reserved fields are named __reserved_N and must be
 * zero, and growable structures start with a __u32 size.  Values marked
 * non-ABI (the __*_MAX sentinels) may change between releases.
 *
 * The control plane is the generic netlink family KPROF_FAMILY_NAME,
 * described by Documentation/netlink/specs/kprof.yaml, which is the source
 * of truth for the enums below.
 */
#ifndef _UAPI_LINUX_KPROF_H
#define _UAPI_LINUX_KPROF_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define KPROF_FAMILY_NAME	"kprof"
#define KPROF_FAMILY_VERSION	1

/*
 * ABI version.  The major number changes when an existing command, attribute
 * or structure changes meaning; the minor number when something is added.
 * A client built for major M works with any module of major M.
 */
#define KPROF_ABI_MAJOR		1
#define KPROF_ABI_MINOR		16
#define KPROF_ABI_VERSION	((KPROF_ABI_MAJOR << 16) | KPROF_ABI_MINOR)
#define KPROF_ABI_VERSION_MAJOR(v)	((__u32)(v) >> 16)
#define KPROF_ABI_VERSION_MINOR(v)	((__u32)(v) & 0xffff)

/* Longest client name accepted in KPROF_A_VERSION_CLIENT, NUL included. */
#define KPROF_CLIENT_NAME_MAX	64

/* The character device of the data path. */
#define KPROF_DEVICE_NAME	"kprof"
#define KPROF_DEVICE_PATH	"/dev/kprof"

/**
 * enum kprof_state - state of the module's profiling session
 * @KPROF_STATE_IDLE: no session is configured
 * @KPROF_STATE_RUNNING: a session is collecting samples
 * @KPROF_STATE_STOPPED: a session was stopped; its data can still be read
 * @__KPROF_STATE_MAX: one past the last state; not ABI, grows with it
 * @KPROF_STATE_MAX: the last state; not ABI, grows with it
 */
enum kprof_state {
	KPROF_STATE_IDLE = 1,
	KPROF_STATE_RUNNING,
	KPROF_STATE_STOPPED,

	__KPROF_STATE_MAX,
	KPROF_STATE_MAX = (__KPROF_STATE_MAX - 1)
};

/* Netlink commands.  A reply reuses its request's command id. */
enum {
	KPROF_CMD_VERSION = 1,	/* do: module and ABI version; any user */
	KPROF_CMD_STATUS,	/* do: module and session state; CAP_PERFMON */
	KPROF_CMD_START,	/* do: start a session; CAP_PERFMON */
	KPROF_CMD_STOP,		/* do: stop the session; CAP_PERFMON */
	KPROF_CMD_STATS,	/* dump: per-CPU statistics; CAP_PERFMON */
	KPROF_CMD_AGG_DUMP,	/* dump: aggregated stacks; CAP_PERFMON */
	KPROF_CMD_AGG_RESET,	/* do: empty the aggregation tables; CAP_PERFMON */
	KPROF_CMD_COUNT_START,	/* do: start the counting session; CAP_PERFMON */
	KPROF_CMD_COUNT_READ,	/* dump: the counting session's counts; CAP_PERFMON */
	KPROF_CMD_COUNT_STOP,	/* do: stop the counting session; CAP_PERFMON */
	KPROF_CMD_HIST_DUMP,	/* dump: latency histograms; CAP_PERFMON */
	KPROF_CMD_AGG_MAPS,	/* dump (1.2): kept mappings of exited processes; CAP_PERFMON */
	KPROF_CMD_FREE,		/* do (1.12): free a stopped session, its data saved; CAP_PERFMON */
	KPROF_CMD_AGG_SWAP,	/* do (1.15): close an interval of F_INTERVALS; CAP_PERFMON */

	/* private: non-ABI */
	__KPROF_CMD_MAX,
	KPROF_CMD_MAX = (__KPROF_CMD_MAX - 1)
};

/* Limits of a session's configuration. */
#define KPROF_MAX_EVENTS	32	/* events per session */
#define KPROF_MAX_PIDS		64	/* KPROF_A_SESSION_PID attributes */
#define KPROF_MAX_CPUS_BYTES	1024	/* KPROF_A_SESSION_CPUS: 8192 CPUs */
#define KPROF_EVENT_NAME_MAX	64	/* KPROF_EV_A_NAME, NUL included */
#define KPROF_MAX_STACK_DEPTH	512	/* frames per chain (kernel, user) */
#define KPROF_DEFAULT_STACK_DEPTH 127
#define KPROF_MIN_BUFFER_SIZE	(8U << 10)	/* per-CPU data bytes */
#define KPROF_MAX_BUFFER_SIZE	(256U << 20)
#define KPROF_DEFAULT_BUFFER_SIZE (4U << 20)
#define KPROF_MAX_PERIOD	(1ULL << 62)

/* KPROF_A_SESSION_FLAGS */
#define KPROF_SESSION_F_KERNEL_STACK	(1U << 0) /* kernel call chains */
#define KPROF_SESSION_F_USER_STACK	(1U << 1) /* user call chains (frame pointers) */
#define KPROF_SESSION_F_INHERIT		(1U << 2) /* follow children of the PIDs */
#define KPROF_SESSION_F_SYSTEM_WIDE	(1U << 3) /* per-CPU counters on KPROF_A_SESSION_CPUS */
#define KPROF_SESSION_F_STREAM		(1U << 4) /* records into the rings (default) */
#define KPROF_SESSION_F_AGGREGATE	(1U << 5) /* counts into in-kernel stack tables */
/*
 * (ABI 1.1) The session belongs to the netlink socket that started it and
 * stops when that socket closes (its owner exited, was killed, or closed
 * it).  Without it the session is detached: it runs until STOP.
 */
#define KPROF_SESSION_F_OWNED		(1U << 6)
/*
 * (ABI 1.11) The KPROF_A_SESSION_PIDs name threads, not processes: only
 * those threads are sampled or counted (perf's -t/--tid), with
 * F_INHERIT also the threads and processes they create later.  Their
 * processes' side-band is recorded.  A sampling or counting session.
 */
#define KPROF_SESSION_F_THREADS		(1U << 7)
/*
 * (ABI 1.15) An aggregating session read in intervals: two tables per CPU
 * (twice the memory), swapped by KPROF_CMD_AGG_SWAP, which replies with
 * KPROF_A_AGG_EPOCH, _START_NS and _END_NS; AGG_DUMP with that
 * KPROF_A_AGG_EPOCH reads the interval closed, frozen, until the next
 * swap (refused with EBUSY while that dump runs).  Off-CPU and lock
 * waits open at a swap are split there: their time so far in the
 * interval closed (KPROF_AGG_A_TIME_NS), the rest in the next; an
 * entry's KPROF_AGG_A_COUNT is the waits that ended in its interval.
 */
#define KPROF_SESSION_F_INTERVALS	(1U << 8)
#define KPROF_SESSION_F_ALL		0x1ffU	/* non-ABI: the flags this ABI knows */

/*
 * KPROF_A_SESSION_AGG_ENTRIES: entries per CPU, a power of two.  Each
 * entry brings 24 frames of pool: the default holds 4,096 distinct stacks
 * of 48 frames per CPU at half its entries (16384 before 1.14).
 */
#define KPROF_AGG_MIN_ENTRIES		64
#define KPROF_AGG_MAX_ENTRIES		(1U << 22)
#define KPROF_AGG_DEFAULT_ENTRIES	8192

/*
 * Event types beyond perf's PERF_TYPE_*: probes kprof places itself.
 *	KPROF_TYPE_KPROBE	a sample at every hit of KPROF_EV_A_SYMBOL
 *				(+ KPROF_EV_A_OFFSET), through a kprobe
 *	KPROF_TYPE_FTRACE	hit counts per function matching the glob
 *				KPROF_EV_A_SYMBOL, through an ftrace_ops;
 *				with a kernel stack flag, a sample per hit too
 *	KPROF_TYPE_LATENCY	time from entry to return of KPROF_EV_A_SYMBOL,
 *				through a kretprobe, into per-CPU log2
 *				histograms (KPROF_CMD_HIST_DUMP); no samples
 *	KPROF_TYPE_RUNQLAT	(1.3) run-queue latency: time from a task's
 *				wakeup (or preemption) to running, from the
 *				sched tracepoints, into per-CPU log2
 *				histograms; no samples, no symbol.
 *				KPROF_EV_A_CONFIG is the histogram's unit
 *				(KPROF_RUNQLAT_*); bucket i counts delays d in
 *				that unit with fls64(d) == i, as BCC's
 *				runqlat buckets them (0 and 1 land in 0 and 1).
 *				(1.4) With KPROF_RUNQLAT_F_PID or _F_TID in
 *				the config, a histogram per process or per
 *				thread besides (KPROF_HIST_A_KEYS), as BCC's
 *				runqlat -P and -L keep them
 *	KPROF_TYPE_OFFCPU	(1.5) off-CPU time: when a task is switched
 *				out in a state of KPROF_EV_A_CONFIG
 *				(KPROF_OFFCPU_F_*), its stacks are taken and
 *				counted in the aggregation tables; when it
 *				runs again, the time it spent off the CPU is
 *				added to that entry (KPROF_AGG_A_TIME_NS)
 *				when it lies within [KPROF_EV_A_MIN_NS,
 *				KPROF_EV_A_MAX_NS].  A streaming session
 *				gets aggregation tables for it (AGG_DUMP
 *				reads them); samples are aggregated only
 *				with KPROF_SESSION_F_AGGREGATE.  No symbol.
 *				Blocks still open when the session stops
 *				are closed then (offcpu_open).
 *	KPROF_TYPE_LOCK		(1.6) lock contention: from the kernel's
 *				lock:contention_begin/_end tracepoints (the
 *				slow paths only), the time each thread waited
 *				for a lock, counted in the aggregation tables
 *				by (thread, lock address, KPROF_LOCK_F_* type,
 *				kernel chain of the waiter): KPROF_AGG_A_COUNT
 *				waits, KPROF_AGG_A_TIME_NS their total and
 *				KPROF_AGG_A_MAX_NS/_MIN_NS, KPROF_AGG_A_LOCK
 *				and KPROF_AGG_A_LOCK_FLAGS.  PID is the
 *				thread.  A second begin for the lock a thread
 *				already waits for (a mutex spins, then sleeps)
 *				is the same wait.  Waits within
 *				[KPROF_EV_A_MIN_NS, KPROF_EV_A_MAX_NS] count.
 *				KPROF_EV_A_CONFIG: 0 (reserved).  No symbol.
 *
 * (1.9) perf's PERF_TYPE_BREAKPOINT: a hardware breakpoint (a watchpoint)
 * at the address KPROF_EV_A_CONFIG, for the accesses KPROF_EV_A_BP_TYPE
 * (HW_BREAKPOINT_R, _W, both, or _X alone) of KPROF_EV_A_BP_LEN bytes (1,
 * 2, 4 or 8; 8 for _X), the address a multiple of the length; a sample at
 * every access unless KPROF_EV_A_PERIOD says otherwise.  Both attributes
 * are needed by it and refused for any other type.
 */
/* KPROF_EV_A_BP_TYPE (1.9): the values of linux/hw_breakpoint.h */
#define KPROF_BP_F_R		(1U << 0)	/* HW_BREAKPOINT_R */
#define KPROF_BP_F_W		(1U << 1)	/* HW_BREAKPOINT_W */
#define KPROF_BP_F_X		(1U << 2)	/* HW_BREAKPOINT_X */
#define KPROF_BP_F_ALL		0x7U		/* non-ABI: the flags this ABI knows */

#define KPROF_TYPE_KPROBE	0x40000001U
#define KPROF_TYPE_FTRACE	0x40000002U
#define KPROF_TYPE_LATENCY	0x40000003U
#define KPROF_TYPE_RUNQLAT	0x40000004U
#define KPROF_TYPE_OFFCPU	0x40000005U
#define KPROF_TYPE_LOCK		0x40000006U

/* KPROF_AGG_A_LOCK_FLAGS (1.6): the kernel's contention_begin flags */
#define KPROF_LOCK_F_SPIN	(1U << 0) /* spins: a spinlock, or a sleeping lock spinning */
#define KPROF_LOCK_F_READ	(1U << 1) /* a reader of an rwlock or rwsem */
#define KPROF_LOCK_F_WRITE	(1U << 2) /* a writer */
#define KPROF_LOCK_F_RT		(1U << 3) /* an rt_mutex */
#define KPROF_LOCK_F_PERCPU	(1U << 4) /* a per-CPU rwsem */
#define KPROF_LOCK_F_MUTEX	(1U << 5) /* a mutex */

/* KPROF_EV_A_CONFIG of KPROF_TYPE_OFFCPU (1.5): the switch-outs that count */
#define KPROF_OFFCPU_F_S	(1U << 0) /* TASK_INTERRUPTIBLE: sleeping */
#define KPROF_OFFCPU_F_D	(1U << 1) /* TASK_UNINTERRUPTIBLE: disk, locks (and idle) */
#define KPROF_OFFCPU_F_R	(1U << 2) /* preempted, or still runnable */
#define KPROF_OFFCPU_F_T	(1U << 3) /* stopped, traced, parked, and any other state */
#define KPROF_OFFCPU_F_ALL	0xfU	/* every switch-out */
/*
 * (1.7) and who woke each block, as BCC's offwaketime: at sched_waking of a
 * blocked thread, the waker's chains (current's, from the probe's caller)
 * are counted with the blocked ones in the waker's CPU's table, and the
 * block's time is added to that entry too when it ends (besides its own).
 * Such an entry carries KPROF_AGG_A_WAKER_*; its KPROF_AGG_A_COUNT is the
 * blocks it woke that ended.  Outcomes in KPROF_STATS_A_WAKER_*.
 */
#define KPROF_OFFCPU_F_WAKERS	(1U << 4)

/* KPROF_EV_A_CONFIG of KPROF_TYPE_RUNQLAT: the histogram's unit (bits 0-7) */
#define KPROF_RUNQLAT_USECS	0
#define KPROF_RUNQLAT_MSECS	1
#define KPROF_RUNQLAT_NSECS	2
#define KPROF_RUNQLAT_UNIT_MASK	0xffU
/* (1.4) and a histogram per process (key: tgid) or per thread (key: tid) */
#define KPROF_RUNQLAT_F_PID	(1U << 8)
#define KPROF_RUNQLAT_F_TID	(1U << 9)

/*
 * (1.4) One key's run-queue latency histogram (KPROF_HIST_A_KEYS), of one
 * CPU: the same key comes once per CPU it waited on, to be added up.
 * Bucket i as in the event's histogram; waits of fls64(d) >= 31 in the
 * last.  Each CPU keeps up to KPROF_RUNQLAT_MAX_KEYS keys; waits of other
 * keys on a full CPU are counted in KPROF_HIST_A_KEYS_LOST.
 */
#define KPROF_RUNQLAT_KEY_BUCKETS	32
#define KPROF_RUNQLAT_MAX_KEYS		1024

struct kprof_hist_key {
	__u32	key;
	__u32	__reserved;			/* zero */
	__u64	buckets[KPROF_RUNQLAT_KEY_BUCKETS];
};

/*
 * Latency histograms: bucket i counts durations in [2^i, 2^(i+1)) ns
 * (KPROF_TYPE_RUNQLAT: see above).
 */
#define KPROF_HIST_BUCKETS	64
#define KPROF_MAX_PROBE_FUNCS	4096	/* functions one ftrace event may match */

/*
 * A tracepoint filter: a program for a small stack machine, run on the raw
 * record before a sample is stored.  Comparisons push 0 or 1, AND and OR
 * pop two values and push one, NOT replaces the top; the sample is kept
 * when the program leaves exactly one non-zero value.  Field comparisons
 * read @size bytes (1, 2, 4 or 8) at @offset of the raw record and compare
 * them with @value; string comparisons (STR_EQ, STR_NE) compare the
 * NUL-padded field of @size bytes (at most KPROF_FILTER_STR_MAX) with the
 * string held in the @value of the (@size + 7) / 8 instructions that
 * follow, which are not executed.  A field outside the record makes its
 * comparison false.
 */
#define KPROF_FILTER_MAX_INSNS	64
#define KPROF_FILTER_MAX_BYTES	(KPROF_FILTER_MAX_INSNS * 16)
#define KPROF_FILTER_STR_MAX	64
#define KPROF_SYMBOL_MAX	256	/* KPROF_EV_A_SYMBOL, NUL included */

enum kprof_filter_op {
	KPROF_FILTER_EQ = 1,
	KPROF_FILTER_NE,
	KPROF_FILTER_LT,		/* unsigned */
	KPROF_FILTER_LE,
	KPROF_FILTER_GT,
	KPROF_FILTER_GE,
	KPROF_FILTER_SLT,		/* signed */
	KPROF_FILTER_SLE,
	KPROF_FILTER_SGT,
	KPROF_FILTER_SGE,
	KPROF_FILTER_STR_EQ,
	KPROF_FILTER_STR_NE,
	KPROF_FILTER_AND,
	KPROF_FILTER_OR,
	KPROF_FILTER_NOT,

	/* private: non-ABI */
	__KPROF_FILTER_MAX,
};

struct kprof_filter_insn {
	__u8 op;		/* enum kprof_filter_op */
	__u8 size;
	__u16 offset;
	__u32 __reserved;	/* must be zero */
	__u64 value;
};

/* KPROF_EV_A_FLAGS */
#define KPROF_EV_F_EXCLUDE_USER		(1U << 0) /* ":k", count in the kernel only */
#define KPROF_EV_F_EXCLUDE_KERNEL	(1U << 1) /* ":u", count in user space only */
#define KPROF_EV_F_ALL			0x3U	/* non-ABI */

/* Netlink attributes (one attribute space; attribute 0 is never used). */
enum {
	KPROF_A_VERSION_ABI = 1,	/* u32: KPROF_ABI_VERSION */
	KPROF_A_VERSION_RELEASE,	/* string: module release, e.g. "0.1.0" */
	KPROF_A_VERSION_CLIENT,		/* string: client name, < KPROF_CLIENT_NAME_MAX */
	KPROF_A_VERSION_KERNEL,		/* string: kernel release built against */
	KPROF_A_STATUS_STATE,		/* u32: enum kprof_state */
	KPROF_A_STATUS_NR_CPUS,		/* u32: possible CPUs */
	KPROF_A_STATUS_ONLINE_CPUS,	/* u32: online CPUs */
	KPROF_A_STATUS_SESSIONS,	/* u64: sessions started since load */
	KPROF_A_STATUS_READERS,		/* u32: open /dev/kprof descriptors */
	KPROF_A_STATUS_LOADED_NS,	/* u64: CLOCK_MONOTONIC ns at load */
	KPROF_A_PAD,			/* padding for 64-bit attributes */
	KPROF_A_SESSION_ID,		/* u64: id of the session, from 1 */
	KPROF_A_SESSION_FLAGS,		/* u32: KPROF_SESSION_F_* */
	KPROF_A_SESSION_FREQ,		/* u32: samples per second per event */
	KPROF_A_SESSION_PERIOD,		/* u64: events per sample */
	KPROF_A_SESSION_CPUS,		/* binary: CPU bitmap, __u64 words, LE bit order */
	KPROF_A_SESSION_PID,		/* u32, repeated: processes (threads: F_THREADS) */
	KPROF_A_SESSION_BUFFER_SIZE,	/* u32: per-CPU data bytes, power of two */
	KPROF_A_SESSION_STACK_DEPTH,	/* u32: frames per chain */
	KPROF_A_SESSION_WATERMARK,	/* u32: bytes that wake a reader */
	KPROF_A_SESSION_EVENT,		/* nest (kprof-event), repeated */
	KPROF_A_SESSION_MMAP_STRIDE,	/* u64: bytes between CPUs' mmap offsets */
	KPROF_A_STATS,			/* nest (kprof-stats) */
	KPROF_A_SESSION_AGG_ENTRIES,	/* u32: aggregation entries per CPU */
	KPROF_A_AGG_ENTRY,		/* nest (kprof-agg): one aggregated stack */
	KPROF_A_COUNT,			/* nest (kprof-count); repeated in COUNT_START */
	KPROF_A_COUNT_FLAGS,		/* u32: KPROF_COUNT_F_* */
	KPROF_A_HIST,			/* nest (kprof-hist): one latency histogram */
	KPROF_A_SESSION_OWNER_PID,	/* u32 (1.1): process that owns the session, 0: detached */
	KPROF_A_AGG_MAP,		/* nest (kprof-map) (1.2): one kept mapping */
	KPROF_A_SESSION_MAPS,		/* nest (kprof-maps) (1.2): what the kept mappings hold */
	/* nest (1.10), repeated in STATUS: one session, in kprof's own
	 * attributes: SESSION_ID, STATUS_STATE (the session's), SESSION_FLAGS,
	 * SESSION_OWNER_PID, SESSION_UID, SESSION_START_NS, SESSION_NR_EVENTS,
	 * SESSION_BUFFER_SIZE, SESSION_MEMORY, (1.13) SESSION_CPUS_SKIPPED and
	 * SESSION_LOST_NO_RING, STATS (its totals)
	 */
	KPROF_A_SESSION,
	KPROF_A_SESSION_UID,		/* u32 (1.10): its user, in the reader's userns */
	KPROF_A_SESSION_START_NS,	/* u64 (1.10): CLOCK_MONOTONIC ns at its start */
	KPROF_A_SESSION_NR_EVENTS,	/* u32 (1.10): its events */
	KPROF_A_SESSION_MEMORY,		/* u64 (1.10): bytes it counts against the budget */
	KPROF_A_STATUS_MEMORY,		/* u64 (1.10): bytes all sessions count */
	KPROF_A_STATUS_BUDGET,		/* u64 (1.10): the budget (max_memory_mb) */
	/* u32 (1.13), in KPROF_A_SESSION: CPUs that came up during the
	 * session and could not be given its ring and table (out of memory,
	 * or over the budget); nothing of the session is recorded there
	 */
	KPROF_A_SESSION_CPUS_SKIPPED,
	/* u64 (1.13), in KPROF_A_SESSION: events of the session lost on one
	 * of its CPUs that had no ring: one skipped, or one that came up
	 * moments before its ring was allocated
	 */
	KPROF_A_SESSION_LOST_NO_RING,
	/* nest (1.14), repeated in STATUS after the KPROF_A_SESSIONs: one
	 * counting session (COUNT_START's, numbered apart), in kprof's own
	 * attributes: SESSION_ID, STATUS_STATE (running, or stopped and held
	 * for its owner's reads), SESSION_FLAGS, SESSION_OWNER_PID,
	 * SESSION_UID, SESSION_START_NS, SESSION_NR_EVENTS, SESSION_MEMORY
	 * (what kprof allocated for it; not counted against the budget)
	 */
	KPROF_A_COUNT_SESSION,
	/* u64 (1.15): in AGG_SWAP's reply, the interval closed; in an
	 * AGG_DUMP request, read that interval (the last one closed) instead
	 * of the tables being written
	 */
	KPROF_A_AGG_EPOCH,
	KPROF_A_AGG_START_NS,		/* u64 (1.15): AGG_SWAP: its start (CLOCK_MONOTONIC) */
	KPROF_A_AGG_END_NS,		/* u64 (1.15): AGG_SWAP: its end, the swap */
	/* u32 (1.16), START: with F_USER_STACK and F_STREAM, each SAMPLE with
	 * a user chain carries the user registers and up to this many bytes
	 * of user stack from the user %rsp up (KPROF_MISC_USER_STACK), a
	 * multiple of 8 up to KPROF_USER_STACK_MAX; 0 or absent: none
	 */
	KPROF_A_SESSION_USER_STACK,

	/* private: non-ABI */
	__KPROF_A_MAX,
	KPROF_A_MAX = (__KPROF_A_MAX - 1)
};

/* Attributes nested in KPROF_A_SESSION_EVENT. */
enum {
	KPROF_EV_A_TYPE = 1,		/* u32: PERF_TYPE_* */
	KPROF_EV_A_CONFIG,		/* u64: perf_event_attr.config */
	KPROF_EV_A_FLAGS,		/* u32: KPROF_EV_F_* */
	KPROF_EV_A_NAME,		/* string: as the user spelled it */
	KPROF_EV_A_PAD,
	KPROF_EV_A_PERIOD,		/* u64: this event's period (tracepoints: 1) */
	KPROF_EV_A_FILTER,		/* binary: struct kprof_filter_insn[] */
	KPROF_EV_A_SYMBOL,		/* string: kprobe function, or ftrace glob */
	KPROF_EV_A_OFFSET,		/* u32: kprobe offset in the function */
	KPROF_EV_A_MIN_NS,		/* u64 (1.5): off-CPU: shortest block counted */
	KPROF_EV_A_MAX_NS,		/* u64 (1.5): off-CPU: longest block counted */
	KPROF_EV_A_BP_TYPE,		/* u32 (1.9): breakpoint: HW_BREAKPOINT_R|_W|_X */
	KPROF_EV_A_BP_LEN,		/* u32 (1.9): breakpoint: bytes watched */

	/* private: non-ABI */
	__KPROF_EV_A_MAX,
	KPROF_EV_A_MAX = (__KPROF_EV_A_MAX - 1)
};

/*
 * Attributes nested in KPROF_A_STATS: totals in STATUS and STOP replies,
 * one CPU per message in the STATS dump.  For every CPU and in total, once
 * the session has stopped, each of its modes balances on its own:
 *	stream:		invocations == samples + lost_full + lost_too_big
 *			+ lost_recursion
 *	aggregate:	invocations == agg_samples + lost_agg_full + lost_agg_reset
 *			+ lost_recursion
 *	off-CPU (1.5):	offcpu_blocks == offcpu_done + offcpu_filtered
 *			+ offcpu_lost + offcpu_lost_full + offcpu_lost_reset
 *			+ offcpu_open
 * (off-CPU switch-outs are offcpu_blocks, not invocations: the other two
 * balances hold for the samples of a session that has both)
 * (lost_recursion is absent from ABI 1.0 modules: read it as 0.)
 */
enum {
	KPROF_STATS_A_CPU = 1,		/* u32: CPU (absent in totals) */
	KPROF_STATS_A_INVOCATIONS,	/* u64: overflow handler runs */
	KPROF_STATS_A_SAMPLES,		/* u64: samples stored */
	KPROF_STATS_A_LOST_FULL,	/* u64: samples lost, buffer full */
	KPROF_STATS_A_LOST_TOO_BIG,	/* u64: samples lost, record too large */
	KPROF_STATS_A_THROTTLED,	/* u64: times the kernel throttled an event */
	KPROF_STATS_A_BYTES,		/* u64: bytes written, all records */
	KPROF_STATS_A_SIDEBAND,		/* u64: side-band records stored */
	KPROF_STATS_A_SIDEBAND_LOST,	/* u64: side-band records lost */
	KPROF_STATS_A_HANDLER_NS,	/* u64: time in the sample handler */
	KPROF_STATS_A_HANDLER_MAX_NS,	/* u64: longest handler run */
	KPROF_STATS_A_KSTACK_TRUNC,	/* u64: kernel chains cut at the depth limit */
	KPROF_STATS_A_USTACK_TRUNC,	/* u64: user chains cut at the depth limit */
	KPROF_STATS_A_USTACK_FAULT,	/* u64: user stacks that could not be read */
	KPROF_STATS_A_PAD,
	KPROF_STATS_A_AGG_SAMPLES,	/* u64: samples counted in the tables */
	KPROF_STATS_A_LOST_AGG_FULL,	/* u64: samples lost, table or pool full */
	KPROF_STATS_A_LOST_AGG_RESET,	/* u64: samples lost while a reset ran */
	KPROF_STATS_A_AGG_USED,		/* u64: table entries in use */
	KPROF_STATS_A_AGG_CAPACITY,	/* u64: table entries */
	KPROF_STATS_A_FILTERED,		/* u64: hits a filter dropped (not invocations) */
	KPROF_STATS_A_LOST_RECURSION,	/* u64 (1.1): hits inside kprof's own sampling path */
	KPROF_STATS_A_NESTED,		/* u64 (1.1): records committed inside another's write */
	KPROF_STATS_A_LOST_COST,	/* u64 (1.3): probe hits dropped by the cost cap */
	KPROF_STATS_A_OFFCPU_BLOCKS,	/* u64 (1.5): off-CPU blocks begun */
	KPROF_STATS_A_OFFCPU_DONE,	/* u64 (1.5): ... ended, their time added */
	KPROF_STATS_A_OFFCPU_FILTERED,	/* u64 (1.5): ... ended outside [min, max] */
	KPROF_STATS_A_OFFCPU_LOST,	/* u64 (1.5): ... lost: a thread sharing its slot */
	KPROF_STATS_A_OFFCPU_LOST_FULL,	/* u64 (1.5): ... lost: no table entry for the stacks */
	KPROF_STATS_A_OFFCPU_LOST_RESET, /* u64 (1.5): ... lost: the tables were reset */
	KPROF_STATS_A_OFFCPU_OPEN,	/* u64 (1.5): ... still open at stop, closed then */
	KPROF_STATS_A_LOCK_WAITS,	/* u64 (1.6): lock waits begun */
	KPROF_STATS_A_LOCK_DONE,	/* u64 (1.6): ... ended, their time added */
	KPROF_STATS_A_LOCK_FILTERED,	/* u64 (1.6): ... ended outside [min, max] */
	KPROF_STATS_A_LOCK_LOST,	/* u64 (1.6): ... lost: slot shared, or nested deeper */
	KPROF_STATS_A_LOCK_LOST_FULL,	/* u64 (1.6): ... lost: no table entry for the key */
	KPROF_STATS_A_LOCK_LOST_RESET,	/* u64 (1.6): ... lost: the tables were reset */
	KPROF_STATS_A_LOCK_OPEN,	/* u64 (1.6): ... still open at stop, closed then */
	KPROF_STATS_A_WAKER_WAKES,	/* u64 (1.7): wakers noted on an open block */
	KPROF_STATS_A_WAKER_DONE,	/* u64 (1.7): ... its block ended, time added */
	KPROF_STATS_A_WAKER_FILTERED,	/* u64 (1.7): ... its block ended outside [min, max] */
	KPROF_STATS_A_WAKER_LOST,	/* u64 (1.7): ... lost: slot busy, or its block replaced */
	KPROF_STATS_A_WAKER_LOST_FULL,	/* u64 (1.7): ... lost: no table entry for the stacks */
	KPROF_STATS_A_WAKER_LOST_RESET,	/* u64 (1.7): ... lost: the tables were reset */
	KPROF_STATS_A_WAKER_OPEN,	/* u64 (1.7): ... its block still open at stop */
	/*
	 * (1.14) How full each aggregation table has been: the most entries
	 * in use at once since the session started (resets included), its
	 * frame pool's frames in use now, their most at once, and the
	 * pool's frames (key words and times count as frames).  Summed over
	 * the CPUs in the totals.
	 */
	KPROF_STATS_A_AGG_HIGH,		/* u64 (1.14): most table entries in use */
	KPROF_STATS_A_AGG_POOL_USED,	/* u64 (1.14): pool frames in use */
	KPROF_STATS_A_AGG_POOL_HIGH,	/* u64 (1.14): most pool frames in use */
	KPROF_STATS_A_AGG_POOL_SIZE,	/* u64 (1.14): pool frames */

	/* private: non-ABI */
	__KPROF_STATS_A_MAX,
	KPROF_STATS_A_MAX = (__KPROF_STATS_A_MAX - 1)
};

/*
 * Counting (KPROF_CMD_COUNT_*): counting sessions, independent of the
 * sampling sessions; (1.13) up to 16 side by side, ENOSPC beyond (before
 * 1.13 one at a time, EBUSY).  COUNT_START takes the events
 * (KPROF_A_SESSION_EVENT) and the target as START does:
 * KPROF_A_SESSION_FLAGS (F_SYSTEM_WIDE with KPROF_A_SESSION_CPUS, or
 * KPROF_A_SESSION_PIDs and optionally F_INHERIT) and KPROF_A_COUNT_FLAGS.
 * A session belongs to the netlink socket that started it, and to its
 * user; it ends when that socket is closed.  COUNT_STOP freezes the
 * counts, which COUNT_READ still reports until the same socket starts
 * another session.  COUNT_STOP and COUNT_READ name a session by
 * KPROF_A_SESSION_ID (ESTALE when it is gone, EACCES when it is another
 * user's), or without it the most recently started one.
 *
 * Each KPROF_A_COUNT nest of COUNT_READ is one event of a per-task session
 * (all its threads and inherited children summed), or one event on one CPU
 * of a system-wide session.  An event perf cannot count (no such PMU or
 * event, e.g. hardware events in a virtual machine) does not fail
 * COUNT_START: its nests carry KPROF_COUNT_A_ERROR instead of the counts.
 * A multiplexed count is scaled by the reader: value * enabled / running.
 * (1.8) Each nest also says the event's perf type and config, whether the
 * session still counts and how long it has counted, so that a reader that
 * did not start it (the exporter) can tell frozen counts from live ones.
 */
#define KPROF_COUNT_F_ENABLE_ON_EXEC	(1U << 0) /* per-task: count from the next exec */
#define KPROF_COUNT_F_ALL		0x1U	/* non-ABI */

/* KPROF_COUNT_A_STATE: the session counts, or COUNT_STOP froze its counts */
enum {
	KPROF_COUNT_STATE_RUNNING = 1,
	KPROF_COUNT_STATE_STOPPED,
};

/* Attributes nested in KPROF_A_COUNT. */
enum {
	KPROF_COUNT_A_EVENT = 1,	/* u32: index in the request's event list */
	KPROF_COUNT_A_NAME,		/* string: the event's name */
	KPROF_COUNT_A_CPU,		/* u32: CPU (system-wide sessions only) */
	KPROF_COUNT_A_VALUE,		/* u64: count */
	KPROF_COUNT_A_ENABLED,		/* u64: ns the counter was enabled */
	KPROF_COUNT_A_RUNNING,		/* u64: ns it was on the PMU */
	KPROF_COUNT_A_ERROR,		/* u32: errno of perf's refusal; no counts */
	KPROF_COUNT_A_PAD,
	KPROF_COUNT_A_TYPE,		/* u32 (1.8): the event's PERF_TYPE_* */
	KPROF_COUNT_A_CONFIG,		/* u64 (1.8): its perf_event_attr.config */
	KPROF_COUNT_A_STATE,		/* u32 (1.8): KPROF_COUNT_STATE_* at the read */
	KPROF_COUNT_A_ELAPSED,		/* u64 (1.8): ns counted: start to the read or the stop */

	/* private: non-ABI */
	__KPROF_COUNT_A_MAX,
	KPROF_COUNT_A_MAX = (__KPROF_COUNT_A_MAX - 1)
};

/*
 * Attributes nested in KPROF_A_AGG_ENTRY: one entry of a CPU's aggregation
 * table.  The same key may appear on several CPUs (and, rarely, twice on
 * one CPU); readers add them up.
 */
enum {
	KPROF_AGG_A_CPU = 1,		/* u32 */
	KPROF_AGG_A_EVENT,		/* u32: event index */
	KPROF_AGG_A_PID,		/* u32: process */
	KPROF_AGG_A_COMM,		/* string: its name when first seen */
	KPROF_AGG_A_COUNT,		/* u64: samples */
	KPROF_AGG_A_KERNEL,		/* binary: __u64 kernel frames, innermost first */
	KPROF_AGG_A_USER,		/* binary: __u64 user frames, innermost first */
	KPROF_AGG_A_PAD,
	KPROF_AGG_A_TIME_NS,		/* u64 (1.5): off-CPU: time blocked; lock (1.6): waited */
	KPROF_AGG_A_MAX_NS,		/* u64 (1.6): lock events: longest wait */
	KPROF_AGG_A_MIN_NS,		/* u64 (1.6): lock events: shortest wait */
	KPROF_AGG_A_LOCK,		/* u64 (1.6): lock events: the lock's address */
	KPROF_AGG_A_LOCK_FLAGS,		/* u32 (1.6): lock events: KPROF_LOCK_F_* */
	KPROF_AGG_A_WAKER_PID,		/* u32 (1.7): off-CPU with wakers: the waker's process */
	KPROF_AGG_A_WAKER_COMM,		/* string (1.7): its thread's name */
	KPROF_AGG_A_WAKER_KERNEL,	/* binary (1.7): __u64 waker's kernel frames */
	KPROF_AGG_A_WAKER_USER,		/* binary (1.7): __u64 waker's user frames */

	/* private: non-ABI */
	__KPROF_AGG_A_MAX,
	KPROF_AGG_A_MAX = (__KPROF_AGG_A_MAX - 1)
};

/*
 * Attributes nested in KPROF_A_AGG_MAP (1.2).  An aggregating session keeps
 * the executable file mappings (and the vDSO) of every process with a
 * counted user stack when the process's address space goes away (exit, or
 * exec: then with the name it had before), so its frames can be named
 * after it is gone.  Bounded: KPROF_MAPS_* of the session's
 * KPROF_A_SESSION_MAPS count what could not be kept.
 */
enum {
	KPROF_MAP_A_PID = 1,		/* u32: process (tgid) */
	KPROF_MAP_A_COMM,		/* string: its name while the mapping existed */
	KPROF_MAP_A_START,		/* u64: first address */
	KPROF_MAP_A_LEN,		/* u64: bytes */
	KPROF_MAP_A_PGOFF,		/* u64: file offset of START, bytes */
	KPROF_MAP_A_DEV,		/* u64: device of the file (new_encode_dev) */
	KPROF_MAP_A_INO,		/* u64: inode of the file */
	KPROF_MAP_A_PATH,		/* string: the file's path, or "[vdso]" */
	KPROF_MAP_A_PAD,

	/* private: non-ABI */
	__KPROF_MAP_A_MAX,
	KPROF_MAP_A_MAX = (__KPROF_MAP_A_MAX - 1)
};

/* Attributes nested in KPROF_A_SESSION_MAPS (STATUS, 1.2). */
enum {
	KPROF_MAPS_A_PROCS = 1,		/* u64: processes whose mappings were kept */
	KPROF_MAPS_A_KEPT,		/* u64: mappings kept */
	KPROF_MAPS_A_LOST,		/* u64: mappings not kept: no room */
	KPROF_MAPS_A_LOST_PIDS,		/* u64: processes not followed: no room */
	KPROF_MAPS_A_UNOWNED,		/* u64: address spaces freed by no process of theirs */
	KPROF_MAPS_A_PAD,

	/* private: non-ABI */
	__KPROF_MAPS_A_MAX,
	KPROF_MAPS_A_MAX = (__KPROF_MAPS_A_MAX - 1)
};

/*
 * Attributes nested in KPROF_A_HIST: one latency event, summed over CPUs;
 * (1.4) then, for per-key run-queue latency, messages of its keys.
 */
enum {
	KPROF_HIST_A_EVENT = 1,		/* u32: event index */
	KPROF_HIST_A_COUNT,		/* u64: returns timed */
	KPROF_HIST_A_SUM_NS,		/* u64: their total duration */
	KPROF_HIST_A_MAX_NS,		/* u64: the longest */
	KPROF_HIST_A_MISSED,		/* u64: calls not timed (no free instance) */
	KPROF_HIST_A_BUCKETS,		/* binary: __u64[KPROF_HIST_BUCKETS] */
	KPROF_HIST_A_PAD,
	KPROF_HIST_A_TYPE,		/* u32 (1.4): the event's type */
	KPROF_HIST_A_CONFIG,		/* u64 (1.4): the event's config */
	KPROF_HIST_A_KEYS_LOST,		/* u64 (1.4): waits not in a key's histogram */
	/* binary (1.4): struct kprof_hist_key[], in the messages after the
	 * event's first, which has the attributes above
	 */
	KPROF_HIST_A_KEYS,

	/* private: non-ABI */
	__KPROF_HIST_A_MAX,
	KPROF_HIST_A_MAX = (__KPROF_HIST_A_MAX - 1)
};

/*
 * The data path: /dev/kprof.
 *
 * While a session exists, mmap() of /dev/kprof at offset
 * cpu * KPROF_A_SESSION_MMAP_STRIDE maps that CPU's buffer: one control
 * page (struct kprof_mmap_page) followed by data_size bytes of records.
 * Map it PROT_READ | PROT_WRITE (the reader writes data_tail); the length
 * must be the stride.  The mapping keeps the buffers alive after the
 * session stops, so the last records can be drained.
 *
 * Records are written at data_head modulo data_size and may wrap around
 * the end of the data area.  The reader:
 *
 *	head = READ_ONCE(page->data_head);
 *	smp_rmb();			(C, matches the kernel's B)
 *	... read records in [tail, head) ...
 *	smp_mb();			(D, matches the kernel's A)
 *	WRITE_ONCE(page->data_tail, head);
 *
 * poll() reports EPOLLIN when some CPU's buffer holds at least the
 * watermark, or any data once the session has stopped, and EPOLLHUP once
 * the session has stopped and the buffers mapped by this file are empty.
 *
 * (1.13) A session has buffers on the CPUs that were online when it
 * started (of its CPUs), and gets one on each CPU that comes up later,
 * before it records there; a buffer stays until the session is freed,
 * its CPU offline or not.  mmap() of a CPU without a buffer is ENXIO.
 * poll() reports EPOLLPRI while buffers were added since this file last
 * asked with KPROF_IOC_RINGS: the reader then asks, and maps the CPUs it
 * has not mapped.
 */
#define KPROF_MMAP_VERSION	1

/*
 * (1.10) Bind an open /dev/kprof to the session with this id (a __u64)
 * before mmap(); binding another user's session needs CAP_SYS_ADMIN
 * (EACCES), an unknown id is ENOENT, a second bind or one after mmap()
 * EBUSY.  (1.13) Without a bind, mmap() is EINVAL and poll() EPOLLERR
 * (1.10 to 1.12 mapped the session that was the default when the file was
 * opened, the most recently started running one).
 */
#define KPROF_IOC_MAGIC		0xb7
#define KPROF_IOC_BIND		_IOW(KPROF_IOC_MAGIC, 1, __u64)
/*
 * (1.13) The number of buffers the bound session has had so far (a __u64,
 * which only grows); clears EPOLLPRI until another is added.  ENODEV
 * without a session.
 */
#define KPROF_IOC_RINGS		_IOR(KPROF_IOC_MAGIC, 2, __u64)

struct kprof_mmap_page {
	__u32 version;		/* KPROF_MMAP_VERSION */
	__u32 compat_version;	/* lowest version this page is compatible with */
	__u32 size;		/* sizeof(struct kprof_mmap_page) */
	__u32 cpu;
	__u64 session_id;
	__u64 data_offset;	/* from the start of the mapping */
	__u64 data_size;	/* power of two */
	__u64 __reserved_1[123];/* pads to 1 KiB */

	/* written by the kernel only; cache line of its own */
	__u64 data_head;
	__u64 __reserved_2[7];

	/* written by the reader only */
	__u64 data_tail;
	__u64 __reserved_3[7];
};

/*
 * Records.  Every record starts with this header; size counts the whole
 * record, header included, and is a multiple of 8.  The layouts below are
 * ABI; what a raw tracepoint payload holds is the kernel's, not kprof's.
 */
struct kprof_record_header {
	__u32 type;		/* enum kprof_record_type */
	__u16 misc;		/* KPROF_MISC_* */
	__u16 size;
};

enum kprof_record_type {
	/*
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;		CLOCK_MONOTONIC ns
	 *	__u64 ip;		sampled instruction pointer
	 *	__u64 period;		events this sample stands for
	 *	__u32 pid, tid;
	 *	__u32 cpu;
	 *	__u16 event;		index in the session's event list
	 *	__u16 flags;		KPROF_SAMPLE_F_*
	 *	__u16 nr_kernel;	kernel frames, innermost first
	 *	__u16 nr_user;		user frames, innermost first
	 *	__u32 __reserved;
	 *	__u64 ips[nr_kernel + nr_user];
	 *	with KPROF_MISC_RAW in misc, the tracepoint's raw record:
	 *	__u32 raw_size;
	 *	__u32 __reserved2;
	 *	__u8 raw[raw_size], zero-padded to 8 bytes;
	 *	with KPROF_MISC_USER_STACK in misc (1.16), after those:
	 *	__u64 regs_mask;	the user registers that follow, as bits
	 *				of enum perf_event_x86_regs (asm/perf_regs.h)
	 *	__u64 regs[hweight64(regs_mask)];	in bit order
	 *	__u32 stack_size;	bytes copied from the user %rsp up
	 *	__u32 __reserved3;
	 *	__u8 stack[stack_size], zero-padded to 8 bytes;
	 * };
	 *
	 * The user stack part (1.16): with KPROF_A_SESSION_USER_STACK, every
	 * SAMPLE with a user chain.  regs_mask is KPROF_USER_REGS_MASK; the
	 * copy holds the session's bytes, fewer when it reached an unreadable
	 * page (KPROF_SAMPLE_F_USTACK_SHORT).  Readers that do not know the
	 * part skip it: the header's size covers it.
	 */
	KPROF_RECORD_SAMPLE = 1,

	/*
	 * Samples that could not be stored, since the last LOST record of
	 * this cause on this CPU.
	 *
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u64 lost;
	 *	__u32 cause;		enum kprof_lost_cause
	 *	__u32 cpu;
	 * };
	 */
	KPROF_RECORD_LOST = 2,

	/*
	 * The kernel throttled an event on this CPU (too many samples per
	 * tick, see kernel.perf_cpu_time_max_percent): it samples less often
	 * until the next tick.
	 *
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u32 cpu;
	 *	__u16 event;
	 *	__u16 __reserved;
	 * };
	 */
	KPROF_RECORD_THROTTLE = 3,

	/*
	 * A task's name: at exec (misc has KPROF_MISC_COMM_EXEC) or when it
	 * renames itself.
	 *
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u32 pid, tid;
	 *	char comm[16];		NUL-terminated
	 * };
	 */
	KPROF_RECORD_COMM = 4,

	/*
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u32 pid, tid;		the exiting task
	 * };
	 */
	KPROF_RECORD_EXIT = 5,

	/*
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u32 pid, tid;		the new task
	 *	__u32 ppid, ptid;	its parent
	 * };
	 */
	KPROF_RECORD_FORK = 6,

	/*
	 * An executable file mapping of a profiled process.
	 *
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64 time;
	 *	__u32 pid, tid;
	 *	__u64 start;		first address
	 *	__u64 len;		bytes
	 *	__u64 pgoff;		file offset of start, in bytes
	 *	char filename[];	NUL-terminated, padded to 8 bytes
	 * };
	 */
	KPROF_RECORD_MMAP = 7,

	/* private: non-ABI */
	__KPROF_RECORD_MAX,
};

/* kprof_record_header.misc */
#define KPROF_MISC_KERNEL	(1U << 0)	/* SAMPLE: ip is in the kernel */
#define KPROF_MISC_USER		(1U << 1)	/* SAMPLE: ip is in user space */
#define KPROF_MISC_COMM_EXEC	(1U << 2)	/* COMM: set by exec */
#define KPROF_MISC_RAW		(1U << 3)	/* SAMPLE: carries a raw record */

#define KPROF_MISC_USER_STACK	(1U << 4)	/* SAMPLE (1.16): user registers and stack */

/* Largest raw tracepoint record a sample carries; longer ones are cut. */
#define KPROF_RAW_MAX		2048

/*
 * (1.16) Largest KPROF_A_SESSION_USER_STACK.  The copy is raw user memory
 * of every sampled task: whatever its stack holds there (return addresses,
 * and also locals, which may be secrets) goes into the recording, as with
 * perf's PERF_SAMPLE_STACK_USER.
 */
#define KPROF_USER_STACK_MAX	1024

/* (1.16) The registers of a SAMPLE's user stack part: bits of enum perf_event_x86_regs. */
#define KPROF_USER_REGS_MASK	((1ULL << 6) | (1ULL << 7) | (1ULL << 8))	/* BP, SP, IP */

/* SAMPLE flags: how good the call chains are. */
#define KPROF_SAMPLE_F_KSTACK_TRUNC	(1U << 0) /* kernel chain cut at the depth limit */
#define KPROF_SAMPLE_F_USTACK_TRUNC	(1U << 1) /* user chain cut at the depth limit */
#define KPROF_SAMPLE_F_USTACK_FAULT	(1U << 2) /* user stack unreadable */
#define KPROF_SAMPLE_F_KSTACK_ERROR	(1U << 3) /* kernel unwinder reported an error */
#define KPROF_SAMPLE_F_RAW_TRUNC	(1U << 4) /* raw record cut at KPROF_RAW_MAX */
#define KPROF_SAMPLE_F_USTACK_SHORT	(1U << 5) /* (1.16) user stack copy cut short */

/* LOST causes. */
enum kprof_lost_cause {
	KPROF_LOST_FULL = 1,		/* the CPU's buffer was full */
	KPROF_LOST_TOO_BIG,		/* the record exceeded the buffer's limit */
	KPROF_LOST_AGG_FULL,		/* aggregation: no free entry or frame pool full */
	KPROF_LOST_AGG_RESET,		/* aggregation: the table was being reset */
	KPROF_LOST_RECURSION,		/* (1.1) the hit came from kprof's own sampling path */
	KPROF_LOST_COST,		/* (1.3) the probe's time exceeded its cost cap */

	/* private: non-ABI */
	__KPROF_LOST_MAX,
};

#endif /* _UAPI_LINUX_KPROF_H */
