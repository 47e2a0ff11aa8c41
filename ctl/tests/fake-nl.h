/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake kprof.ko behind the lib/nl.h API, for the unit tests.  It parses
 * the real requests and answers with real generic netlink replies (built
 * with libnl) or real NLMSG_ERROR messages with extack TLVs, so everything
 * but the socket I/O runs as with the module.
 */
#ifndef KPROFCTL_FAKE_NL_H
#define KPROFCTL_FAKE_NL_H

/* The ABI version kprofctl and the fake module speak, as text: "1.2". */
#define KP_TEST_STR_(x)	#x
#define KP_TEST_STR(x)	KP_TEST_STR_(x)
#define KP_TEST_ABI	KP_TEST_STR(KPROF_ABI_MAJOR) "." KP_TEST_STR(KPROF_ABI_MINOR)

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "lib/proto.h"
#include "lib/session.h"

#define FAKE_PAGE_SIZE		4096
#define FAKE_AGG_MAX		16

/* One entry of a CPU's aggregation table, as KPROF_CMD_AGG_DUMP sends it. */
struct fake_agg_entry {
	uint32_t		cpu, event, pid;
	const char		*comm;
	uint64_t		count;
	uint64_t		time_ns;	/* off-CPU entries (ABI 1.5); 0: not sent */
	bool			has_lock;	/* lock entries (ABI 1.6): these four sent */
	uint64_t		lock, max_ns, min_ns;
	uint32_t		lock_flags;
	uint32_t		nr_kernel, nr_user;
	uint64_t		frames[8];	/* nr_kernel, then nr_user */
	bool			has_waker;	/* a block's waker (ABI 1.7): these sent */
	uint32_t		waker_pid;
	const char		*waker_comm;
	uint32_t		waker_nr_kernel, waker_nr_user;
	uint64_t		waker_frames[8];	/* as frames */
};

struct fake_kprof {
	/* kp_nl__open() */
	bool			loaded;
	int			open_errno;	/* != 0: fail with this errno */
	/* KPROF_CMD_VERSION */
	uint32_t		abi;
	const char		*release;
	const char		*kernel;
	bool			no_abi_check;	/* accept any client ABI */
	bool			refuse_all;	/* EPROTO even without KPROF_A_VERSION_ABI */
	/* KPROF_CMD_STATUS */
	bool			privileged;	/* else EPERM with an extack */
	struct kp_status_info	status;
	unsigned int		nr_table;	/* KPROF_A_SESSION nests (ABI 1.10) */
	struct kp_session_row	table[4];
	/* Break the replies. */
	int			omit_attr;	/* leave this attribute out */
	int			bad_len_attr;	/* send this attribute with 2 extra bytes */
	/* What the module saw. */
	int			nr_requests;
	int			last_cmd;
	bool			saw_abi;
	uint32_t		client_abi;
	bool			saw_client;
	char			client[KPROF_CLIENT_NAME_MAX];
	int			nr_open;	/* sockets open right now */
	/* The clock seen by the commands (kp_clock_ns). */
	uint64_t		now_ns;

	/* KPROF_CMD_START */
	int			start_errno;	/* != 0: fail with it and start_extack */
	const char		*start_extack;
	int			start_bad_event; /* >= 1: refuse event N-1, offset to its nest */
	struct kp_session	start_req;	/* the last request, parsed back */
	bool			saw_period;
	bool			saw_watermark;
	int			nr_unaligned_u64; /* 64-bit payloads not 8-byte aligned (fine) */
	int			nr_unnested;	/* EVENT nests without NLA_F_NESTED */
	bool			symbol_events;	/* take KPROF_EV_A_SYMBOL ('latency') */
	bool			offcpu_events;	/* take KPROF_EV_A_MIN/MAX_NS ('offcpu') */
	uint64_t		session_id;	/* of the current session */
	uint32_t		session_flags;
	uint32_t		buffer_size;
	uint64_t		mmap_stride;	/* 0: FAKE_PAGE_SIZE + buffer size */
	/*
	 * The "device": START creates this file, nr_cpus mappings of the
	 * stride each with their control page set up, then calls on_start.
	 */
	const char		*device_path;
	void			(*on_start)(void *map, uint32_t nr_cpus, uint64_t stride);
	/* KPROF_CMD_STOP and STATUS: totals; KPROF_CMD_STATS: per CPU. */
	struct kp_stats		stats;
	struct kp_stats		cpu_stats[8];
	int			stop_errno;	/* != 0: STOP fails with it */
	int			nr_stops;
	int			nr_frees;	/* KPROF_CMD_FREE requests */
	uint64_t		freed_id;	/* the last one's session */
	uint64_t		agg_dump_id;	/* the last AGG_DUMP's KPROF_A_SESSION_ID, 0: none */
	int			omit_stat;	/* leave this KPROF_STATS_A_* out */

	/*
	 * KPROF_CMD_AGG_DUMP: the tables' entries, in order.  Like kprof.ko,
	 * without a session or with one that does not aggregate, the dump
	 * fails at once; errors come in NLMSG_DONE, as the kernel sends them.
	 * The stats' agg counters are sent when has_agg is set.
	 */
	struct fake_agg_entry	agg[FAKE_AGG_MAX];
	unsigned int		nr_agg;
	int			agg_done_errno;	/* != 0: in NLMSG_DONE after the entries */
	int			agg_bad_attr;	/* this KPROF_AGG_A_* with 3 extra bytes */
	int			agg_omit_attr;	/* leave this KPROF_AGG_A_* out */
	int			nr_agg_dumps;

	/* KPROF_CMD_AGG_MAPS (ABI 1.2): the mappings kept of gone processes */
	struct fake_agg_map {
		uint32_t	pid;
		const char	*comm;
		uint64_t	start, len, pgoff, dev, ino;
		const char	*path;
	} maps[4];
	unsigned int		nr_maps;
	/* KPROF_CMD_HIST_DUMP: event 0's histogram, when has_hist */
	bool			has_hist;
	uint64_t		hist_buckets[KPROF_HIST_BUCKETS];
	uint64_t		hist_count, hist_sum_ns, hist_max_ns, hist_missed;
	int			nr_hist_dumps;
	int			nr_map_dumps;
};

extern struct fake_kprof fake;

/*
 * Loaded, same ABI, privileged caller, idle, 4 CPUs, loaded 1h 02m 03s
 * ago by a fake clock.  Keeps nr_open.
 */
void fake_kprof__reset(void);

/*
 * Answer with an NLMSG_ERROR as netlink_ack() builds it (capped, with
 * @extack if not NULL): @err as kprofctl reads it, -errnum returned.
 */
int fake_error(int errnum, const char *extack, struct kp_err *err);
/* The end of a failed dump: NLMSG_DONE with the error (and @extack). */
int fake_done_error(int errnum, const char *extack, struct kp_err *err);

/* Write @size bytes of @rec into CPU @cpu's fake buffer at position data_head. */
void fake_ring__put(void *map, uint64_t stride, uint32_t cpu, const void *rec, size_t size);

#endif /* KPROFCTL_FAKE_NL_H */
