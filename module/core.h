/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the module's core state (core.c): the session state, the
 * privilege rule and the status snapshot (taken by session.c).  The order in which the parts
 * start is kprof_init()'s (main.c) and Documentation/kprof.rst's.
 */
#ifndef _KPROF_CORE_H
#define _KPROF_CORE_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <uapi/linux/kprof.h>

/* The module's release; the single source of truth is kprof-version in Kbuild. */
#ifndef KPROF_RELEASE
#error "KPROF_RELEASE must be set by Kbuild"
#endif

/**
 * struct kprof_core - state of the loaded module
 * @state: enum kprof_state, written under the session lock (session.c),
 *	read locklessly by status reporters
 * @sessions: sessions started since the module was loaded
 * @readers: open file descriptions of /dev/kprof
 * @loaded_ns: CLOCK_MONOTONIC time of module load, in ns
 */
struct kprof_core {
	int state;
	atomic64_t sessions;
	atomic_t readers;
	u64 loaded_ns;
};

extern struct kprof_core kprof_core;

/**
 * struct kprof_status - a consistent snapshot of the module's status
 * @state: enum kprof_state
 * @nr_cpus: possible CPUs
 * @online_cpus: online CPUs
 * @sessions: sessions started since load
 * @readers: open /dev/kprof descriptors
 * @loaded_ns: CLOCK_MONOTONIC ns at load
 * @mem: the memory the sessions count against their budget, in bytes
 * @budget: that budget, in bytes
 */
struct kprof_status {
	u32 state;
	u32 nr_cpus;
	u32 online_cpus;
	u64 sessions;
	u32 readers;
	u64 loaded_ns;
	u64 mem;
	u64 budget;
};

const char *kprof_state_name(u32 state);
bool kprof_privileged(void);
bool kprof_uid_may_access(kuid_t uid);

#endif /* _KPROF_CORE_H */
