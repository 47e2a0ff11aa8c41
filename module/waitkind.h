/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - the kinds of waits timed per thread (wait.c) and their outcomes:
 * the rings' statistics (ring.h) count each, so both include this.
 */
#ifndef _KPROF_WAITKIND_H
#define _KPROF_WAITKIND_H

/* The kinds of waits, each with its own counters. */
enum kprof_wait_kind {
	KPROF_WAIT_OFFCPU,
	KPROF_WAIT_LOCK,
	KPROF_WAIT_WAKER,	/* an off-CPU block's waker, noted until the block ends */
	KPROF_WAIT_KINDS
};

/*
 * The outcomes of waits: each wait BEGUN ends exactly once, in one of the
 * others.  In the order of KPROF_STATS_A_OFFCPU_BLOCKS.. and
 * KPROF_STATS_A_LOCK_WAITS.. (the uapi header).
 */
enum kprof_wait_stat {
	KPROF_WAIT_BEGUN,
	KPROF_WAIT_DONE,	/* ended, its time added */
	KPROF_WAIT_FILTERED,	/* ended outside [min_ns, max_ns] */
	KPROF_WAIT_LOST,	/* a thread sharing its slot replaced it; or too deep */
	KPROF_WAIT_LOST_FULL,	/* no table entry for its key */
	KPROF_WAIT_LOST_RESET,	/* the tables were reset when it began or meanwhile */
	KPROF_WAIT_OPEN,	/* still open when the session stopped: closed then */
	KPROF_WAIT_NR_STATS
};

#endif /* _KPROF_WAITKIND_H */
