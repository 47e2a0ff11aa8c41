/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Uploads of pprof profiles to Pyroscope, with a spool for the ones the
 * server could not take yet.  What 'kprofctl pprof --upload' and the
 * future daemon call; nothing here knows about kprof.data.
 *
 * The request (Pyroscope's documented ingestion API): POST URL/ingest with
 * the query parameters name (the application name and its labels,
 * "app{k=v,k2=v2}": for format=pprof Pyroscope adds the profile type to
 * it), from and until (unix seconds), format=pprof, spyName and, when
 * known, sampleRate; the body is the gzip'd profile.proto as it is
 * (Content-Type binary/octet-stream: the multipart form is only for a
 * custom sample type configuration).  units and aggregationType are not
 * sent: for pprof the profile's sample types decide them.
 *
 * Outcomes: 2xx delivered; 408, 429, 5xx and every transport error
 * (refused, timed out, TLS) "retry later"; any other status rejected, with
 * the server's message, never retried.
 *
 * The spool (a directory): a profile that could not be delivered for a
 * retryable reason is written there, its request's parameters in a short
 * text header before the body, as a temporary file renamed into place.
 * The item's name is its profile's start time and a hash of its series
 * (name, spyName) and interval (from, until), so the same interval's
 * profile spooled twice is one item, the first.  Every upload first
 * delivers the spool, oldest first (by the profile's start, then by when
 * it was spooled), removing an item only after a 2xx for
 * it; the first retryable failure stops the flush, keeping it and the
 * rest.  A crash between a 2xx and the removal sends that item again
 * once.  Writers and flushers of a spool take a lock on DIR/.lock, so
 * two never send the same item.  Bounds (files, bytes): the oldest items
 * go to make room, each drop counted in DIR/dropped.  An item the server
 * rejects for what it is (400, 413, ...) is renamed NAME.rejected and kept
 * out of the way; 401, 403, 404, 405 and 407 (who or where, not what)
 * stop the flush and keep it.
 */
#ifndef KPROFCTL_UPLOAD_H
#define KPROFCTL_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

#define KP_UPLOAD_NAME_MAX	1024	/* the name parameter, labels included */
#define KP_UPLOAD_MSG_MAX	256	/* the server's message kept */

struct kp_upload_conf {
	const char		*url;		/* http:// or https://, /ingest is appended */
	const char		*app_name;	/* [A-Za-z0-9_.-]+ */
	const char * const	*tags;		/* "KEY=VALUE" labels */
	unsigned int		nr_tags;
	const char		*spy_name;	/* NULL: "kprof" */
	const char		*token;		/* Authorization: Bearer; NULL: none */
	const char		*basic_auth;	/* "USER:PASSWORD"; NULL: none */
	const char		*tenant;	/* X-Scope-OrgID; NULL: none */
	uint64_t		connect_timeout_ms; /* 0: 10 s */
	uint64_t		timeout_ms;	/* the whole request; 0: 60 s */
	const char		*spool_dir;	/* NULL: no spool */
	unsigned int		spool_max_files; /* 0: 1000 */
	uint64_t		spool_max_bytes; /* 0: 256 MiB */
	FILE			*log;		/* one line per item sent, spooled or dropped; NULL: none */
};

/* One profile to send. */
struct kp_upload_item {
	char		name[KP_UPLOAD_NAME_MAX];	/* the name parameter, unencoded */
	char		spy_name[64];
	uint64_t	from, until;			/* unix seconds */
	unsigned int	sample_rate;			/* Hz; 0: not sent */
	const void	*body;				/* the gzip'd profile */
	size_t		len;
};

enum kp_upload_status {
	KP_UPLOAD_OK,		/* 2xx */
	KP_UPLOAD_RETRY,	/* try again later: spool it */
	KP_UPLOAD_REJECTED,	/* the server refused it: do not retry */
};

/* What one request did. */
struct kp_upload_res {
	enum kp_upload_status	status;
	long			http;			/* the HTTP status; 0: none */
	char			msg[KP_UPLOAD_MSG_MAX];	/* why not OK, one line */
};

struct kp_uploader {
	struct kp_upload_conf	c;
	char			*ingest;	/* URL/ingest */
	char			name[KP_UPLOAD_NAME_MAX]; /* app{tags} */
	void			*curl;		/* CURL * */
	void			*headers;	/* struct curl_slist * */
	int			lock_fd;	/* the spool's lock; -1: not held */
};

/* Totals of kp_uploader__profile() or __flush(). */
struct kp_upload_stats {
	unsigned int	delivered;	/* spooled items delivered */
	unsigned int	left;		/* spooled items still waiting */
	unsigned int	rejected;	/* items the server refused */
	unsigned int	dropped;	/* items the spool's bounds dropped */
	bool		spooled;	/* the new profile went to the spool */
	bool		again;		/* ... where it was already */
	char		spool_path[4096]; /* where */
	struct kp_upload_res res;	/* the new profile's request */
};

/*
 * Check @c (the URL's scheme and form, the application name, the tags,
 * the bounds) and get ready to send; a bad value is named in @err's one
 * line ("bad --upload URL 'ftp://x': ...").  0 or -errno.
 */
int kp_uploader__init(struct kp_uploader *u, const struct kp_upload_conf *c, struct kp_err *err);
void kp_uploader__exit(struct kp_uploader *u);

/* Is "KEY=VALUE" a valid label?  NULL, or why not. */
const char *kp_upload__check_tag(const char *tag);

/* Send one item: one POST, no spool. */
void kp_uploader__send(struct kp_uploader *u, const struct kp_upload_item *it,
		       struct kp_upload_res *res);

/*
 * Upload a new profile (@body, @len bytes, the time range and rate of
 * @from, @until, @hz) the way a run does: the spool first, then the
 * profile; a retryable failure spools it.  @st says what happened.
 * Returns 0 when the profile was delivered or spooled, -EAGAIN when it
 * could not be and there is no spool, -EPERM when the server rejected it,
 * other -errno (spool I/O) with @err set in every case.
 */
int kp_uploader__profile(struct kp_uploader *u, const void *body, size_t len, uint64_t from,
			 uint64_t until, unsigned int hz, struct kp_upload_stats *st,
			 struct kp_err *err);

/*
 * The profiles waiting in the spool directory @spool_dir (the backlog),
 * counted without its lock: for status, while the sender owns the spool.
 */
uint64_t kp_upload__spooled(const char *spool_dir);

/*
 * Deliver the spool, oldest first.  0 when nothing is left to retry,
 * -EAGAIN when the server could not take an item (it and the rest stay),
 * -EPERM when it refused our credentials or URL, other -errno (spool I/O);
 * @err set for every error.
 */
int kp_uploader__flush(struct kp_uploader *u, struct kp_upload_stats *st, struct kp_err *err);

/*
 * Put one profile in the spool without sending anything: the sender
 * (kp_uploader__flush(), another process) delivers the spool in order,
 * oldest first.  The spool's bounds drop its oldest items, counted in
 * @st->dropped.  0, or -errno with @err set.
 */
int kp_uploader__spool(struct kp_uploader *u, const void *body, size_t len, uint64_t from,
		       uint64_t until, unsigned int hz, struct kp_upload_stats *st,
		       struct kp_err *err);

#endif /* KPROFCTL_UPLOAD_H */
