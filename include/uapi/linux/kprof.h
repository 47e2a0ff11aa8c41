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

#include <linux/types.h>

#define KPROF_FAMILY_NAME	"kprof"
#define KPROF_FAMILY_VERSION	1

/*
 * ABI version.  The major number changes when an existing command, attribute
 * or structure changes meaning; the minor number when something is added.
 * A client built for major M works with any module of major M.
 */
#define KPROF_ABI_MAJOR		1
#define KPROF_ABI_MINOR		0
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
 */
enum kprof_state {
	KPROF_STATE_IDLE = 1,
	KPROF_STATE_RUNNING,
	KPROF_STATE_STOPPED,

	/* private: non-ABI */
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
#define KPROF_SESSION_F_ALL		0xfU	/* non-ABI: the flags this ABI knows */

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
	KPROF_A_SESSION_PID,		/* u32, repeated: processes to profile */
	KPROF_A_SESSION_BUFFER_SIZE,	/* u32: per-CPU data bytes, power of two */
	KPROF_A_SESSION_STACK_DEPTH,	/* u32: frames per chain */
	KPROF_A_SESSION_WATERMARK,	/* u32: bytes that wake a reader */
	KPROF_A_SESSION_EVENT,		/* nest (kprof-event), repeated */
	KPROF_A_SESSION_MMAP_STRIDE,	/* u64: bytes between CPUs' mmap offsets */
	KPROF_A_STATS,			/* nest (kprof-stats) */

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

	/* private: non-ABI */
	__KPROF_EV_A_MAX,
	KPROF_EV_A_MAX = (__KPROF_EV_A_MAX - 1)
};

/*
 * Attributes nested in KPROF_A_STATS: totals in STATUS and STOP replies,
 * one CPU per message in the STATS dump.  For every CPU and in total:
 *	invocations == samples + lost_full + lost_too_big
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

	/* private: non-ABI */
	__KPROF_STATS_A_MAX,
	KPROF_STATS_A_MAX = (__KPROF_STATS_A_MAX - 1)
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
 */
#define KPROF_MMAP_VERSION	1

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
	 * };
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

/* SAMPLE flags: how good the call chains are. */
#define KPROF_SAMPLE_F_KSTACK_TRUNC	(1U << 0) /* kernel chain cut at the depth limit */
#define KPROF_SAMPLE_F_USTACK_TRUNC	(1U << 1) /* user chain cut at the depth limit */
#define KPROF_SAMPLE_F_USTACK_FAULT	(1U << 2) /* user stack unreadable */
#define KPROF_SAMPLE_F_KSTACK_ERROR	(1U << 3) /* kernel unwinder reported an error */

/* LOST causes. */
enum kprof_lost_cause {
	KPROF_LOST_FULL = 1,		/* the CPU's buffer was full */
	KPROF_LOST_TOO_BIG,		/* the record exceeded the buffer's limit */

	/* private: non-ABI */
	__KPROF_LOST_MAX,
};

#endif /* _UAPI_LINUX_KPROF_H */
