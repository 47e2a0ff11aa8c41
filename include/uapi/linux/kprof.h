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

	/* private: non-ABI */
	__KPROF_CMD_MAX,
	KPROF_CMD_MAX = (__KPROF_CMD_MAX - 1)
};

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

	/* private: non-ABI */
	__KPROF_A_MAX,
	KPROF_A_MAX = (__KPROF_A_MAX - 1)
};

#endif /* _UAPI_LINUX_KPROF_H */
