/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kprofctl reads from /proc and /sys: possible CPUs, the kernel's
 * sample rate limit, whether a process exists, whether there is a hardware
 * PMU.  Every path is looked up under kp_sysroot, which the unit tests
 * point at a fake tree.
 */
#ifndef KPROFCTL_SYS_H
#define KPROFCTL_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Prefix of every /proc, /sys and /run path; "" on a real system. */
extern const char *kp_sysroot;

/* @buf = kp_sysroot + the formatted absolute path; -ENAMETOOLONG if cut. */
int kp_path(char *buf, size_t len, const char *fmt, ...) __printf(3, 4);

/*
 * Read the small file kp_sysroot/@path into @buf (NUL-terminated, trailing
 * newline removed).  Returns the length or a negative errno.
 */
int kp_read_file(const char *path, char *buf, size_t len);

/* kernel.perf_event_max_sample_rate, or a negative errno. */
int kp_sys__max_sample_rate(unsigned int *rate);

/*
 * Possible CPUs: /sys/devices/system/cpu/possible ("0-3" or "0,2-5").
 * @nr is the highest possible CPU + 1; @text the list as the kernel wrote it.
 */
int kp_sys__possible_cpus(unsigned int *nr, char *text, size_t len);

struct kp_cpumap;

/* Online CPUs: /sys/devices/system/cpu/online.  0 or a negative errno. */
int kp_sys__online_cpus(struct kp_cpumap *map);

/* Does process @pid exist (kp_sysroot/proc/PID)? */
bool kp_sys__pid_exists(uint32_t pid);

/* Does any of the @nr processes @pids still exist? */
bool kp_sys__any_pid_exists(const uint32_t *pids, unsigned int nr);

/*
 * The process of thread @tid: the Tgid line of kp_sysroot/proc/TID/status.
 * Returns 0, or a negative errno (the thread is gone, or no such line).
 */
int kp_sys__tgid(uint32_t tid, uint32_t *tgid);

/*
 * Is there a hardware PMU: /sys/bus/event_source/devices/cpu, or cpu_core
 * or cpu_atom on hybrid machines?  There is none in most virtual machines.
 */
bool kp_sys__has_hw_pmu(void);

/*
 * The address of the kernel's _text in /proc/kallsyms (where perf's
 * "[kernel.kallsyms]_text" map starts): 0, -EPERM when kernel.kptr_restrict
 * hides it, -ENOENT or another negative errno.
 */
int kp_sys__kernel_text(uint64_t *addr);

/* A loaded module of /proc/modules: where its core sits. */
#define KP_SYS_MODULE_NAME	64
struct kp_sys_module {
	char		name[KP_SYS_MODULE_NAME];
	uint64_t	start;
	uint64_t	size;
};

/*
 * The live modules of /proc/modules into a new array *@out (free() it) of
 * *@nr; 0 or a negative errno.  Addresses read as 0 (kptr_restrict) leave
 * a module out.
 */
int kp_sys__modules(struct kp_sys_module **out, size_t *nr);

#endif /* KPROFCTL_SYS_H */
