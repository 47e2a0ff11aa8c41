/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which mapped files a recording's samples hit, as the recorder writes the
 * records: the files whose build-ids a kprof.data gets (BUILD_ID records)
 * and the build-id cache keeps, perf's "DSOs with hits".  A sample hits
 * the file of its user ip and of each of its user frames.
 *
 * This is not lib/machine.c: that one queues the side-band and applies it
 * in time order once a file is read, with symbols; this one follows the
 * records as they stream, knows only address ranges and file names, and
 * errs towards more hits (a process that exec()s keeps its old ranges
 * behind its new ones, searched newest first; a forked child without
 * mappings of its own is looked up in its parent's).
 *
 *	struct kp_bid_hits *h = kp_bid_hits__new();
 *	kp_bid_hits__add(h, rec);		every record written
 *	kp_bid_hits__for_each(h, fn, arg);	the files hit since the last reset
 *	kp_bid_hits__reset(h);			a new file: no hits, ranges kept
 *	kp_bid_hits__delete(h);
 */
#ifndef KPROFCTL_BUILDID_HITS_H
#define KPROFCTL_BUILDID_HITS_H

#include <stdbool.h>
#include <stdint.h>

#include "record.h"

struct kp_bid_hits;

struct kp_bid_hits *kp_bid_hits__new(void);
void kp_bid_hits__delete(struct kp_bid_hits *h);

/*
 * Can @rec add to what the hits know?  A sample in the kernel without user
 * frames cannot: the recorder skips the call for those (most tracepoint
 * samples).
 */
static inline bool kp_bid_hits__wants(const struct kprof_record_header *rec)
{
	const struct kp_rec_sample *s = (const void *)rec;

	return rec->type != KPROF_RECORD_SAMPLE || (rec->misc & KPROF_MISC_USER) || s->nr_user;
}

/* Follow @rec: MMAP (a range), FORK (a parent), SAMPLE (hits); others ignored. 0 or -ENOMEM. */
int kp_bid_hits__add(struct kp_bid_hits *h, const struct kprof_record_header *rec);

/*
 * Call @fn with each file hit since the last reset: its name as recorded
 * (an absolute path) and a process that mapped it.  A non-zero return
 * stops the walk and is returned.
 */
typedef int (*kp_bid_hit_fn)(const char *name, uint32_t pid, void *arg);
int kp_bid_hits__for_each(const struct kp_bid_hits *h, kp_bid_hit_fn fn, void *arg);

/* Forget the hits (the ranges stay, for the next file of a series). */
void kp_bid_hits__reset(struct kp_bid_hits *h);

#endif /* KPROFCTL_BUILDID_HITS_H */
