/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The always-on daemon's files (lib/daemon.c): interval boundaries on
 * multiples of --interval in Unix time, the names of the profiles of one
 * interval, their atomic writing in each format, and retention by count,
 * age and size.  builtin-daemon.c holds the session and the loop.
 *
 * A profile's files are named
 *
 *	kprof-<START>-<END>-<SEQ>.<EXT>
 *
 * START and END the interval's Unix times in UTC, YYYYmmddTHHMMSSZ (the
 * kernel's swap times, which fall a little after the boundaries), SEQ its
 * number in the daemon's run (6 digits or more), EXT kprof, pb.gz (pprof)
 * or folded.  Retention reads END and SEQ from the name, never the mtime,
 * and touches no other file.
 */
#ifndef KPROFCTL_DAEMON_H
#define KPROFCTL_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data.h"
#include "error.h"
#include "nl.h"
#include "proto.h"

enum kp_daemon_format {
	KP_DAEMON_KPROF,	/* an aggregated kprof.data: 'kprofctl report -i' */
	KP_DAEMON_PPROF,	/* profile.proto, gzip'd: 'go tool pprof' */
	KP_DAEMON_FOLDED,	/* collapsed stacks: flame graphs */
	KP_DAEMON_NR_FORMATS,
};

/* The file name extension of @f: "kprof", "pb.gz", "folded". */
const char *kp_daemon__ext(enum kp_daemon_format f);

/*
 * Parse --format: "kprof", "pprof" and "folded", comma-separated, into a
 * mask of 1 << enum kp_daemon_format.  0, or -EINVAL with @err naming
 * the bad word.
 */
int kp_daemon__parse_formats(const char *s, unsigned int *mask, struct kp_err *err);

/*
 * The first boundary after @now_ns (Unix ns): the next multiple of
 * @interval_ns since the epoch, at least @interval_ns / 2 ahead (a
 * boundary closer than that is skipped, so that no interval is shorter
 * than half of one).
 */
uint64_t kp_daemon__next_boundary(uint64_t now_ns, uint64_t interval_ns);

/*
 * The base name (without ".EXT") of interval @seq, from @start_ns to
 * @end_ns (Unix ns), into @buf.  0, or -ENAMETOOLONG.
 */
int kp_daemon__name(char *buf, size_t len, uint64_t start_ns, uint64_t end_ns, uint64_t seq);

/*
 * Is @name a profile file of the daemon?  Its START and END (Unix
 * seconds), SEQ and format, and the length of its base name.
 */
bool kp_daemon__parse_name(const char *name, uint64_t *start_s, uint64_t *end_s, uint64_t *seq,
			   enum kp_daemon_format *fmt, size_t *base_len);

/* The configuration of the files. */
struct kp_daemon_conf {
	const char		*cmd;		/* for messages */
	const char		*dir;		/* --output-dir */
	unsigned int		formats;	/* 1 << enum kp_daemon_format */
	unsigned int		keep;		/* --keep: newest intervals; 0: all */
	uint64_t		max_age_ns;	/* --max-age; 0: no limit */
	uint64_t		max_size;	/* --max-size (bytes); 0: no limit */
	/* the session, for the profiles' headers */
	const struct kp_data_info *session;
	/*
	 * --upload: each interval's pprof also goes, whole, into this
	 * directory, whence the sender spools and delivers it (NULL: no
	 * upload); the converter never waits for the network or the spool
	 */
	const char		*outbox;
};

/* What one interval gave. */
struct kp_daemon_interval {
	uint64_t	seq;
	uint64_t	start_ns, end_ns;	/* Unix ns, by the swap's clock pair */
	uint64_t	samples;
	uint64_t	offcpu_ns;
	size_t		nr_keys;		/* distinct stacks */
	uint64_t	bytes;			/* of the files written */
	char		base[96];		/* kprof-START-END-SEQ */
	char		tmp[4096];		/* its kprof.data until converted */
};

/*
 * Saving an interval, first part: read the interval @iv closed (the
 * session of @nl), as interval @seq, into a kprof.data under a temporary
 * name in the directory (@out->tmp), which no retention sees.  Quick: the
 * closed half is free for the next swap when it returns.  0, or -errno
 * with @err set (nothing left in the directory).
 */
int kp_daemon__dump(const struct kp_daemon_conf *c, struct kp_nl *nl,
		    const struct kp_agg_interval *iv, uint64_t seq,
		    struct kp_daemon_interval *out, struct kp_err *err);

/*
 * Second part: each format of @c from the kprof.data @it->tmp, written
 * under a temporary name and renamed into place when complete; the
 * kprof.data renamed into place too, or removed when kprof is not a
 * format.  With an outbox, the pprof goes there too, under the interval's
 * name.  Decoding takes seconds (symbols): the daemon runs it apart
 * from its swaps.  0 with @it->bytes set, or -errno with @err set and
 * nothing of the interval left in the directory.
 */
int kp_daemon__convert(const struct kp_daemon_conf *c, struct kp_daemon_interval *it,
		       struct kp_err *err);

/* Give up a dumped interval: its temporary file removed. */
void kp_daemon__discard(const struct kp_daemon_interval *it);

struct kp_daemon_retention {
	unsigned int	intervals;	/* profiles (intervals) in the directory */
	uint64_t	bytes;		/* their files' size */
	unsigned int	removed;	/* intervals removed now */
	unsigned int	failed;		/* files that could not be removed */
};

/*
 * Apply --keep, --max-age and --max-size to the daemon's files in c->dir
 * at Unix time @now_ns: whole intervals go, oldest first (by SEQ then
 * END); the newest interval always stays.  Other files are not touched.
 * 0, or -errno when the directory cannot be read.
 */
int kp_daemon__retain(const struct kp_daemon_conf *c, uint64_t now_ns,
		      struct kp_daemon_retention *r, struct kp_err *err);

/*
 * Lock @dir for one daemon: @dir/.kprof-daemon.lock, flock()ed and
 * holding the daemon's pid, then remove the temporary files a daemon
 * killed while writing left.  The descriptor (kept open for the run), or
 * -EBUSY with @err naming the pid that holds it, or -errno.
 */
int kp_daemon__lock(const char *dir, struct kp_err *err);

#endif /* KPROFCTL_DAEMON_H */
