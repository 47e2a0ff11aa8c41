/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the kernel's tracepoints kprof hooks itself (ktp.c).  6.1 does
 * not export the sched tracepoints to modules: they are found by name at
 * load with for_each_kernel_tracepoint(), once, here.
 */
#ifndef _KPROF_KTP_H
#define _KPROF_KTP_H

struct tracepoint;

enum kprof_ktp {
	KPROF_KTP_PROCESS_FORK,		/* sched_process_fork: side-band FORK */
	KPROF_KTP_PROCESS_EXIT,		/* sched_process_exit: side-band EXIT */
	KPROF_KTP_SWITCH,		/* sched_switch: run-queue latency */
	KPROF_KTP_WAKEUP,		/* sched_wakeup */
	KPROF_KTP_WAKEUP_NEW,		/* sched_wakeup_new */
	KPROF_KTP_WAKING,		/* sched_waking: off-CPU wakers */
	KPROF_KTP_CONTENTION_BEGIN,	/* lock:contention_begin (5.19+): lock waits */
	KPROF_KTP_CONTENTION_END,	/* lock:contention_end */
	KPROF_KTP_NR
};

struct tracepoint *kprof_ktp(enum kprof_ktp id);
unsigned long kprof_ktp_iter(enum kprof_ktp id, unsigned long *len);
int kprof_ktp_register(enum kprof_ktp id, void *probe, void *data);
void kprof_ktp_unregister(enum kprof_ktp id, void *probe, void *data);
void kprof_ktp_sync(void);
int kprof_ktp_init(void);

#endif /* _KPROF_KTP_H */
