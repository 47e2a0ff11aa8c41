// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - the kernel's tracepoints kprof hooks itself, found at load.
 *
 * Their probes run in the tracepoint's context (sched_switch with the
 * runqueue lock held and interrupts off): each probe guards itself
 * (guard.h) and does bounded, lock-free work.  Unregistering waits for
 * the probes still running (tracepoint_synchronize_unregister()), so that
 * no probe runs on freed state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "ktp.h"

static const char * const kprof_ktp_names[KPROF_KTP_NR] = {
	[KPROF_KTP_PROCESS_FORK]	= "sched_process_fork",
	[KPROF_KTP_PROCESS_EXIT]	= "sched_process_exit",
	[KPROF_KTP_SWITCH]		= "sched_switch",
	[KPROF_KTP_WAKEUP]		= "sched_wakeup",
	[KPROF_KTP_WAKEUP_NEW]		= "sched_wakeup_new",
	[KPROF_KTP_WAKING]		= "sched_waking",
	[KPROF_KTP_CONTENTION_BEGIN]	= "contention_begin",
	[KPROF_KTP_CONTENTION_END]	= "contention_end",
};

/* Tracepoints the module loads without: their events are refused instead. */
#define KPROF_KTP_OPTIONAL	(BIT(KPROF_KTP_CONTENTION_BEGIN) | BIT(KPROF_KTP_CONTENTION_END))

static struct tracepoint *kprof_ktps[KPROF_KTP_NR];

static void kprof_ktp_lookup(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < KPROF_KTP_NR; i++)
		if (!strcmp(tp->name, kprof_ktp_names[i]))
			kprof_ktps[i] = tp;
}

struct tracepoint *kprof_ktp(enum kprof_ktp id)
{
	return kprof_ktps[id];
}

/**
 * kprof_ktp_iter() - the tracepoint's iterator function, for stack walks
 * @id: the tracepoint
 * @len: set to the function's size (0 when kallsyms does not know it)
 *
 * With several probes attached, the tracepoint calls them through its
 * iterator: a chain taken from a probe leaves that frame out.
 *
 * Return: the iterator's address.
 */
unsigned long kprof_ktp_iter(enum kprof_ktp id, unsigned long *len)
{
	unsigned long addr = (unsigned long)kprof_ktps[id]->iterator;
	char buf[KSYM_SYMBOL_LEN];
	const char *slash;

	/* "name+0x0/0x50 [mod]": the size after the slash */
	*len = 0;
	sprint_symbol(buf, addr);
	slash = strchr(buf, '/');
	if (!slash || sscanf(slash + 1, "%lx", len) != 1)
		*len = 0;
	return addr;
}

/* Hook @probe (with @data) to tracepoint @id; 0 or a negative errno. */
int kprof_ktp_register(enum kprof_ktp id, void *probe, void *data)
{
	if (!kprof_ktps[id])
		return -EOPNOTSUPP;	/* an optional one this kernel lacks */
	return tracepoint_probe_register(kprof_ktps[id], probe, data);
}

/* Unhook @probe; kprof_ktp_sync() then waits until no CPU runs it. */
void kprof_ktp_unregister(enum kprof_ktp id, void *probe, void *data)
{
	tracepoint_probe_unregister(kprof_ktps[id], probe, data);
}

/* Wait for the probes unhooked so far to be done on every CPU. */
void kprof_ktp_sync(void)
{
	tracepoint_synchronize_unregister();
}

/**
 * kprof_ktp_init() - find every tracepoint kprof hooks
 *
 * Return: 0, or -ENOENT naming the first one the kernel does not have.
 */
int __init kprof_ktp_init(void)
{
	unsigned int i;

	for_each_kernel_tracepoint(kprof_ktp_lookup, NULL);
	for (i = 0; i < KPROF_KTP_NR; i++) {
		if (!kprof_ktps[i] && !(KPROF_KTP_OPTIONAL & BIT(i))) {
			pr_err("tracepoint %s not found\n", kprof_ktp_names[i]);
			return -ENOENT;
		}
	}
	return 0;
}
