// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the module's core state: the session state, the privilege
 * rule, the list of running sessions and the probe paths' per-CPU entry
 * guard.  Everything else builds on this file, which calls no other part
 * of the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/percpu.h>

#include "core.h"
#include "guard.h"
#include "internal.h"

/* the probe paths' recursion guard (guard.h) */
DEFINE_PER_CPU(struct kprof_guard, kprof_guard);

/* written by session.c, walked under RCU by the hooks (internal.h) */
LIST_HEAD(kprof_active_sessions);

struct kprof_core kprof_core = {
	.state = KPROF_STATE_IDLE,
	.sessions = ATOMIC64_INIT(0),
	.readers = ATOMIC_INIT(0),
};

/**
 * kprof_privileged() - may the current task configure kprof or read samples?
 *
 * The one privilege rule of kprof, used by the character device and debugfs;
 * netlink requests use the socket-aware equivalent in genl.c.
 *
 * Context: process context.
 * Return: true when the caller has CAP_PERFMON or CAP_SYS_ADMIN.
 */
bool kprof_privileged(void)
{
	return perfmon_capable();
}

/**
 * kprof_uid_may_access() - may the current task act on what a user started?
 * @uid: that user
 *
 * Stop it, read its data, map its rings: that user may; others need
 * CAP_SYS_ADMIN.  Sampling and counting sessions alike.
 *
 * Context: process context.
 * Return: true when it may.
 */
bool kprof_uid_may_access(kuid_t uid)
{
	return uid_eq(uid, current_uid()) || has_capability_noaudit(current, CAP_SYS_ADMIN);
}

/**
 * kprof_state_name() - the name of an enum kprof_state value
 * @state: the state
 *
 * Return: a static string, "unknown" for values outside the enum.
 */
const char *kprof_state_name(u32 state)
{
	switch (state) {
	case KPROF_STATE_IDLE:
		return "idle";
	case KPROF_STATE_RUNNING:
		return "running";
	case KPROF_STATE_STOPPED:
		return "stopped";
	default:
		return "unknown";
	}
}
