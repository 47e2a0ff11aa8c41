/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregated profiles: the in-kernel stack tables of an aggregating session
 * (KPROF_SESSION_F_AGGREGATE, Documentation/aggregation.rst) as kprofctl
 * reads them.
 *
 * KPROF_CMD_AGG_DUMP returns one message per table entry, per CPU; struct
 * kp_agg adds up the entries of the same key (event, pid, kernel and user
 * frames) and name into one AGG record each (struct kp_rec_agg).  The name
 * is in the key so that tasks sharing a pid but not a name stay apart
 * (pid 0 is swapper/N on CPU N).  An aggregated
 * profile is a kprof.data of format version 2 holding them:
 *
 *	header (the session's configuration, see below)
 *	COMM and MMAP synthesized from /proc for every pid of the tables that
 *	still lives (a COMM from the tables for the others), SYNTH_DONE
 *	AGG, one per merged key, by event, count (descending), pid, name,
 *	frames
 *	STATS, per CPU and total, with the aggregation counters
 *	FINISHED
 *
 * 'kprofctl stop -o FILE' saves one (kp_agg__save_profile()); 'report',
 * 'folded' and 'flamegraph' --live write one to a temporary file and read
 * it like any kprof.data.  The module does not report a session's events:
 * 'kprofctl start' leaves its configuration in the run directory's ID/aggregate.data (rundir.h)
 * (kp_agg__save_session()); for a session started otherwise the events are
 * named event0, event1, ...
 */
#ifndef KPROFCTL_AGG_H
#define KPROFCTL_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "error.h"
#include "nl.h"
#include "proto.h"
#include "record.h"

struct kp_agg;

struct kp_agg *kp_agg__new(void);
void kp_agg__delete(struct kp_agg *a);

/* Add the entry @e, merging it with an entry of the same key and name. */
int kp_agg__add(struct kp_agg *a, const struct kp_agg_entry *e, struct kp_err *err);

/* Add every entry of the session's tables (KPROF_CMD_AGG_DUMP). */
int kp_agg__fetch(struct kp_agg *a, struct kp_nl *nl, struct kp_err *err);

/* Add every entry of the interval @epoch a swap closed (ABI 1.15). */
int kp_agg__fetch_interval(struct kp_agg *a, struct kp_nl *nl, uint64_t epoch, struct kp_err *err);

/*
 * Merged keys, table entries added, samples (the sum of the counts), the
 * off-CPU entries' time (their counts are ns, not samples).
 */
size_t kp_agg__nr_keys(const struct kp_agg *a);
uint64_t kp_agg__nr_entries(const struct kp_agg *a);
uint64_t kp_agg__samples(const struct kp_agg *a);
uint64_t kp_agg__offcpu_ns(const struct kp_agg *a);
/* The highest event index seen, or -1 with no entry. */
int kp_agg__max_event(const struct kp_agg *a);
/* The most frames of one chain. */
unsigned int kp_agg__max_depth(const struct kp_agg *a);

/*
 * The merged keys as AGG records, sorted by event, count (descending),
 * pid, name, then frames; valid until the next kp_agg__add().  NULL when empty
 * or out of memory (then *@nr is 0 and -ENOMEM is returned by
 * kp_agg__sort()).
 */
int kp_agg__sort(struct kp_agg *a, struct kp_err *err);
const struct kp_rec_agg * const *kp_agg__records(const struct kp_agg *a, size_t *nr);

/*
 * The distinct pids of the tables, ascending, in *@pids (malloc'ed, to be
 * freed), *@nr of them.
 */
int kp_agg__pids(const struct kp_agg *a, uint32_t **pids, size_t *nr, struct kp_err *err);

/* session @id's aggregate.data in the run directory (rundir.h) */
int kp_agg__session_path(uint64_t id, char *buf, size_t len);

/*
 * Leave the configuration of the aggregating session @info describes for
 * 'stop -o' and --live: a header-only kprof.data at kp_agg__session_path()
 * of its id.
 */
int kp_agg__save_session(const struct kp_data_info *info, struct kp_err *err);

/*
 * The header of the aggregated profile of the session @st (STATUS) with
 * the entries @a: @known, the configuration of the caller's own session,
 * when it is that session; else the one kp_agg__save_session() left for
 * it when there is one (same id, started after the module was loaded);
 * else a generic one with events named event0, event1, ...
 * Returns true for a known configuration.
 */
bool kp_agg__session_info(struct kp_data_info *info, const struct kp_status_info *st,
			  const struct kp_agg *a, const struct kp_data_info *known);

/* What kp_agg__save_profile() wrote. */
struct kp_agg_summary {
	uint64_t		session_id;
	uint32_t		session_flags;
	size_t			nr_keys;	/* AGG records */
	uint64_t		nr_entries;	/* table entries they merge */
	uint64_t		samples;	/* their counts, added up */
	uint64_t		offcpu_ns;	/* off-CPU entries' time */
	size_t			nr_pids;
	uint32_t		nr_vanished;	/* pids no longer in /proc */
	uint32_t		nr_vanished_named; /* ... with mappings the module kept */
	bool			known_session;	/* events from 'kprofctl start' */
	bool			has_totals;
	struct kp_stats		totals;
	uint64_t		file_bytes;
};

struct kp_agg_save_opts {
	const char		*cmd;		/* for messages */
	const struct kp_stats	*totals;	/* STOP's; NULL: from STATUS */
	bool			quiet;		/* no notice about unknown events */
	/* the configuration of a session the caller started itself (nothing
	 * in the run directory then); NULL: kp_agg__save_session()'s */
	const struct kp_data_info *session;
	/*
	 * (ABI 1.15) the interval a swap closed, read instead of the tables:
	 * the profile's start and end are the interval's, and it has no
	 * STATS records (the counters are the session's, not the interval's)
	 */
	const struct kp_agg_interval *interval;
};

/*
 * The configuration of a session the caller has just started (@s, as
 * START answered @start), for kp_agg_save_opts.session: module release and
 * command line for the profile's header.
 */
void kp_agg__started_info(struct kp_data_info *info, const struct kp_session *s,
			  const struct kp_start_info *start, const char *release,
			  const char *cmdline);

/*
 * Read the tables of the session (running or stopped, see STATUS) and
 * write its aggregated profile to @path.  -ENOENT without a session,
 * -EOPNOTSUPP when it does not aggregate, with err->msg saying so in one
 * line.
 */
int kp_agg__save_profile(struct kp_nl *nl, const char *path, const struct kp_agg_save_opts *o,
			 struct kp_agg_summary *sum, struct kp_err *err);

/*
 * "[ kprof CMD: Wrote 0.123 MB PATH (WHAT, N stacks, N samples, ... gone,
 * ... with kept mappings) ]" on stderr: what @sum says was saved; @what
 * (NULL: none) names an interval.
 */
void kp_agg_summary__print(const struct kp_agg_summary *sum, const char *cmd, const char *path,
			   const char *what);

/*
 * An empty temporary file $TMPDIR/@prefix.XXXXXX (default /tmp), its path in
 * @path; the caller unlinks it.  0, or -errno with @err set and @path "".
 */
int kp_agg__tmpfile(char *path, size_t len, const char *prefix, struct kp_err *err);

/*
 * For --live: open the netlink socket, check the module and save the
 * running session's aggregated profile into a new temporary file, whose
 * path is put in @path (to be unlinked by the caller).
 */
int kp_agg__live_profile(const char *cmd, char *path, size_t len, struct kp_err *err);

#endif /* KPROFCTL_AGG_H */
