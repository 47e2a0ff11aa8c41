/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - internal declarations shared by the module's parts.
 *
 * Parts and their order of registration (kprof_init() in main.c):
 *
 *	core state  ->  debugfs  ->  /dev/kprof  ->  genetlink family
 *
 * The netlink family is registered last so that no request can reach a part
 * that is not ready, and unregistered first on unload.
 */
#ifndef _KPROF_H
#define _KPROF_H

#include <linux/atomic.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <uapi/linux/kprof.h>

/* The module's release; the single source of truth is kprof-version in Kbuild. */
#ifndef KPROF_RELEASE
#error "KPROF_RELEASE must be set by Kbuild"
#endif

/**
 * struct kprof_core - state of the loaded module
 * @lock: serialises session configuration (netlink commands that change
 *	state); never taken on a sampling path
 * @state: enum kprof_state, read locklessly by status reporters
 * @sessions: sessions started since the module was loaded
 * @readers: open file descriptions of /dev/kprof
 * @loaded_ns: CLOCK_MONOTONIC time of module load, in ns
 */
struct kprof_core {
	struct mutex lock;	/* serialises session configuration */
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
 */
struct kprof_status {
	u32 state;
	u32 nr_cpus;
	u32 online_cpus;
	u64 sessions;
	u32 readers;
	u64 loaded_ns;
};

void kprof_status_read(struct kprof_status *st);
const char *kprof_state_name(u32 state);
bool kprof_privileged(void);

#endif /* _KPROF_H */
