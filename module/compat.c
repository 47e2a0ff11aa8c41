// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - kernel policy the module reads but the kernel does not export:
 * sysctl values, and the kptr_restrict rule of /proc/kallsyms.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "compat.h"

/**
 * kprof_sysctl_int() - an integer sysctl, read through /proc/sys
 * @path: e.g. "/proc/sys/kernel/kptr_restrict"
 * @def: the value when it cannot be read
 *
 * The variables behind kernel.perf_event_max_sample_rate, kptr_restrict
 * and perf_event_paranoid are not exported to modules.
 *
 * Context: process context.
 * Return: the value, or @def.
 */
int kprof_sysctl_int(const char *path, int def)
{
	char buf[24] = "";
	struct file *f;
	loff_t pos = 0;
	ssize_t n;
	int v;

	f = filp_open(path, O_RDONLY, 0);
	if (IS_ERR(f))
		return def;
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n <= 0 || kstrtoint(strim(buf), 10, &v))
		return def;
	return v;
}

/**
 * kprof_kptr_visible() - may the caller see kernel addresses?
 *
 * The rule of /proc/kallsyms (kallsyms_show_value(), not exported):
 * kptr_restrict 0 shows them when perf_event_paranoid <= 1 or to
 * CAP_SYSLOG, 1 only to CAP_SYSLOG, 2 to no one.  Readers hold
 * CAP_PERFMON already; this is the kernel's own policy on top.
 *
 * Context: process context: the reader's.
 */
bool kprof_kptr_visible(void)
{
	switch (kprof_sysctl_int("/proc/sys/kernel/kptr_restrict", 2)) {
	case 0:
		if (kprof_sysctl_int("/proc/sys/kernel/perf_event_paranoid", 2) <= 1)
			return true;
		fallthrough;
	case 1:
		return has_capability_noaudit(current, CAP_SYSLOG);
	default:
		return false;
	}
}
