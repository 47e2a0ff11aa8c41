/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fake kprof.ko's counting session (KPROF_CMD_COUNT_*), behind
 * tests/fake-nl.c: it parses the real requests and answers with real
 * replies, dump messages and errors with extack, as kprof.ko does.
 */
#ifndef KPROFCTL_FAKE_COUNT_H
#define KPROFCTL_FAKE_COUNT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "lib/nl.h"
#include "lib/session.h"

#define FAKE_COUNT_CPUS		8

struct fake_count {
	/* The session: counting, stopped (readable) or none (id 0). */
	bool		counting;
	uint64_t	session_id;
	uint64_t	last_id;
	/* The last COUNT_START, parsed back. */
	struct kp_session req;
	uint32_t	count_flags;
	int		start_errno;	/* != 0: COUNT_START fails with it */
	const char	*start_extack;
	/* Per event: perf's refusal, reported at start and in every READ. */
	uint32_t	error[KPROF_MAX_EVENTS];
	/* System-wide sessions report CPUs 0..nr_cpus-1 (default 2). */
	unsigned int	nr_cpus;
	/* The counts, [event][cpu]; per-task sessions use cpu 0. */
	uint64_t	value[KPROF_MAX_EVENTS][FAKE_COUNT_CPUS];
	uint64_t	enabled[KPROF_MAX_EVENTS][FAKE_COUNT_CPUS];
	uint64_t	running[KPROF_MAX_EVENTS][FAKE_COUNT_CPUS];
	/* Called before each READ answers: tests make the counts grow. */
	void		(*on_read)(unsigned int nr_reads);
	/* The clock of the commands: elapsed_ns passes after the first read since COUNT_START. */
	uint64_t	now_ns;
	uint64_t	elapsed_ns;
	unsigned int	clock_reads;
	/* KPROF_COUNT_A_ELAPSED (ABI 1.8); old_abi: none of 1.8's attributes */
	uint64_t	counted_ns;
	bool		old_abi;
	/* Break the replies. */
	int		bad_attr;	/* a KPROF_COUNT_A_* sent with 1 byte too many */
	bool		no_id;		/* READ messages without KPROF_A_SESSION_ID */
	/* What the module saw. */
	int		nr_starts, nr_reads, nr_stops;
	uint64_t	read_id;	/* KPROF_A_SESSION_ID of the last READ, 0: none */
	uint64_t	stop_id;	/* of the last STOP */
};

extern struct fake_count fake_count;

/* No session, 2 CPUs, everything counts 0; kp_clock_ns reads now_ns. */
void fake_count__reset(void);

/* Answer a KPROF_CMD_COUNT_* request @nlh, as kp_nl__request() does. */
int fake_count__request(int family, const struct nlmsghdr *nlh, kp_nl_reply_fn fn, void *arg,
			struct kp_err *err);

#endif /* KPROFCTL_FAKE_COUNT_H */
