/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording engine shared by 'kprofctl record' and the drainer of
 * 'kprofctl start': start a session, map its buffers, write kprof.data
 * (header, synthesized side-band, the records as read, statistics), and
 * summarize what was recorded.
 *
 *	kp_recorder__start()	read the formats of the tracepoint events,
 *				START, map the buffers, create the file,
 *				synthesize the side-band
 *	kp_recorder__loop()	drain the buffers until told to stop
 *	kp_recorder__finish()	STOP, drain the rest, write the statistics
 *				and the FINISHED record
 *	kp_recorder__exit()	release everything (STOP if still running)
 */
#ifndef KPROFCTL_RECORDER_H
#define KPROFCTL_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buildid-hits.h"
#include "data.h"
#include "error.h"
#include "nl.h"
#include "proto.h"
#include "ring.h"
#include "session.h"

/* What the summary lines report. */
struct kp_summary {
	uint64_t	wakeups;
	uint64_t	records;		/* records written, all types */
	uint64_t	file_bytes;
	uint64_t	samples;
	uint64_t	lost[__KPROF_LOST_MAX];	/* by enum kprof_lost_cause */
	uint64_t	lost_records;
	uint64_t	throttles;
	uint64_t	sideband;		/* COMM, EXIT, FORK, MMAP from the kernel */
	uint64_t	synthesized;
	uint64_t	sample_flags[4];	/* samples with KPROF_SAMPLE_F_* bit i */
	bool		has_totals;
	struct kp_stats	totals;			/* STOP's statistics */
	unsigned int	nr_cpus;
	unsigned int	unbalanced_cpus;	/* CPUs breaking the invariant */
	bool		finished;
	uint64_t	offcpu_stacks;		/* --off-cpu: AGG records written */
	uint64_t	offcpu_ns;		/* ... their time */
	/* --switch-output: the file's place in its series (its SWITCH record) */
	bool		switched;
	uint32_t	seq;			/* earlier files of the session */
	uint64_t	samples_before;		/* their samples */
	/* BUILD_ID records of the files the samples hit, and new cache entries */
	uint32_t	build_ids;
	uint32_t	build_ids_cached;
	char		path[4096];
};

/* Account for @rec, as read from a buffer or from kprof.data. */
void kp_summary__add(struct kp_summary *sum, const struct kprof_record_header *rec);

/*
 * Print the summary, perf style ("[ kprof record: ... ]"), on @fp.
 * Returns false when the statistics do not balance.
 */
bool kp_summary__print(const struct kp_summary *sum, FILE *fp);

/* Build the summary of the file @path. */
int kp_summary__from_file(struct kp_summary *sum, const char *path, struct kp_err *err);

/*
 * --switch-output (perf's option): end the file and go on in a new one, on
 * SIGUSR2, every @size bytes or every @time_ns.  A finished file is renamed
 * OUTPUT.<timestamp>, perf's name (YYYYmmddHHMMSScc, local time); the last
 * one too.  Each begins with a SWITCH record and the side-band synthesized
 * again, so that it decodes alone; the last one also holds the session's
 * statistics.  @max_files > 0 keeps the newest that many, deleting older
 * ones.
 */
struct kp_switch_output {
	bool		enabled;
	uint64_t	size;			/* bytes; 0: not by size */
	uint64_t	time_ns;		/* 0: not by time */
	unsigned int	max_files;		/* 0: keep all */
	volatile sig_atomic_t *signal;		/* SIGUSR2 arrived: switch now */
	/* State. */
	uint64_t	file_start;		/* CLOCK_MONOTONIC */
	char		**files;		/* the newest max_files names, a ring */
	unsigned int	next;			/* next slot of @files */
};

struct kp_recorder {
	/* Set by the caller. */
	const char		*cmd;		/* for messages: "record" */
	const char		*output;
	int			verbose;
	bool			progress;	/* print progress every second */
	bool			owned;		/* the session ends with our socket */
	struct kp_session	session;
	enum kp_target		target;
	struct kp_nl		*nl;		/* after the version handshake */
	struct kp_version_info	ver;
	char			cmdline[KP_CMDLINE_MAX];
	struct kp_switch_output	sw;
	/*
	 * The build-ids of the files the samples hit: BUILD_ID records at
	 * the end of each file, and entries of the build-id cache
	 * (lib/buildid.h) in @buildid_dir (NULL: the default), perf's
	 * defaults; -B / -N turn them off.
	 */
	bool			no_buildid;
	bool			no_buildid_cache;
	const char		*buildid_dir;

	/* State. */
	struct kp_start_info	start;
	struct kp_rings		rings;
	struct kp_data_writer	*w;
	struct kp_data_info	info;
	struct kp_tp_formats	tp_formats;	/* of the tracepoint events, for the file */
	struct kp_record_ctx	ctx;
	struct kp_summary	sum;
	bool			started;	/* the session is ours to stop */
	bool			stopped;	/* ... and it was stopped */
	bool			external_stop;	/* someone else stopped it */
	struct kp_bid_hits	*hits;		/* NULL with no_buildid */
	bool			buildid_warned;	/* one warning of a cache error */
	uint64_t		last_progress;
};

int kp_recorder__start(struct kp_recorder *r, struct kp_err *err);

/* Return true to end kp_recorder__loop(). */
typedef bool (*kp_recorder_done_fn)(struct kp_recorder *r, void *arg);

/*
 * Drain the buffers until *@signalled is set, @done returns true (checked
 * after every wake-up or @timeout_ms), or the session stops (POLLHUP, or
 * STATUS, asked every second, no longer shows it running).
 */
int kp_recorder__loop(struct kp_recorder *r, volatile sig_atomic_t *signalled,
		      kp_recorder_done_fn done, void *arg, int timeout_ms,
		      struct kp_err *err);

/*
 * STOP the session (unless someone else did), drain what is left, write
 * the per-CPU and total statistics and finish the file.
 */
int kp_recorder__finish(struct kp_recorder *r, struct kp_err *err);

/*
 * --switch-output: finish the file, rename it OUTPUT.<timestamp> and go on
 * in a new OUTPUT.  kp_recorder__loop() calls it when a switch is due.
 */
int kp_recorder__switch(struct kp_recorder *r, struct kp_err *err);

/* STOP a session left running, unmap, close the file.  Not the netlink socket. */
void kp_recorder__exit(struct kp_recorder *r);

#endif /* KPROFCTL_RECORDER_H */
