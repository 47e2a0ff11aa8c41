/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Decoding kprof.data for report, script, folded: the file is read and
 * validated once (kp_data__next()), which collects the side-band into a
 * struct kp_machine, the per-event counts and an index of the samples;
 * then the samples are resolved straight from a read-only mapping of the
 * file, in file order or sorted by time, without a copy or an allocation
 * per sample.  An AGG record (an aggregated profile, format version 2)
 * comes as a SAMPLE of its stack with kp_resolved.count = its count, its
 * period the count, its time the end of the recording.
 *
 *	ret = kp_decoder__open(&d, "kprof.data", &opts, &err);
 *	ret = kp_decoder__for_each(&d, fn, arg);	fn(&d, resolved, arg)
 *	kp_decoder__close(&d);
 */
#ifndef KPROFCTL_DECODE_H
#define KPROFCTL_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "data.h"
#include "error.h"
#include "machine.h"
#include "util.h"

struct kp_decode_opts {
	struct kp_machine_opts	machine;
	bool			time_order;	/* samples sorted by time */
	unsigned int		max_frames;	/* of each chain to resolve; 0: all */
	/* --time: only the samples in these spans; none: all */
	struct kp_time_ranges	time;
};

struct kp_event_count {
	uint64_t	samples;
	uint64_t	period;
};

struct kp_sample_ref {
	uint64_t	time;
	uint64_t	offset;
};

struct kp_decoder {
	const char		*path;
	const char		*cmd;
	struct kp_data_info	info;
	struct kp_machine	*machine;
	struct kp_event_count	events[KPROF_MAX_EVENTS];
	uint64_t		nr_samples;
	uint64_t		nr_records;
	uint64_t		lost;		/* samples lost, LOST records */
	uint64_t		lost_stats;	/* lost_full + lost_too_big of STATS totals */
	bool			has_stats;
	bool			has_offcpu;	/* an off-CPU event (record --off-cpu, offcpu -o) */
	uint64_t		throttles;
	bool			finished;	/* ends with FINISHED */
	bool			partial;	/* a partial last record was ignored */
	struct kp_sample_ref	*index;
	size_t			nr_index, index_alloc;
	const unsigned char	*map;
	size_t			map_len;
	struct kp_resolved	*res;
	unsigned int		max_frames;
	struct kp_rec_sample	*agg_sample;	/* an AGG record as a SAMPLE */
	struct kp_tp_formats	tp_formats;	/* the file's tracepoint formats */
	uint64_t		*wakers;	/* offsets of the WAKER records */
	size_t			nr_wakers, wakers_alloc;
	struct kp_resolved	*waker_res;	/* a WAKER's waker side */
	struct kp_rec_sample	*waker_sample;	/* ... as a SAMPLE */
};

/* Read and check @path, collect the side-band; 0 or -errno with @err set. */
int kp_decoder__open(struct kp_decoder *d, const char *path, const struct kp_decode_opts *opts,
		     struct kp_err *err);

typedef int (*kp_sample_fn)(struct kp_decoder *d, const struct kp_resolved *s, void *arg);

/* Call @fn for every sample, resolved; stops at and returns @fn's non-zero. */
int kp_decoder__for_each(struct kp_decoder *d, kp_sample_fn fn, void *arg);

/*
 * Call @fn once per distinct stack instead of once per sample: samples
 * with the same event, process, command name, mapping epoch and raw
 * addresses (and thread, CPU with KP_STACK_TID, KP_STACK_CPU) are added up
 * first, then resolved once, at the time of the first of them; @fn gets
 * kp_resolved.count samples and rec->period their periods.  The result of
 * anything that only adds samples up (report, folded) is the same as with
 * kp_decoder__for_each(), at a fraction of the cost when stacks repeat.
 */
#define KP_STACK_TID	(1U << 0)
#define KP_STACK_CPU	(1U << 1)

int kp_decoder__for_each_stack(struct kp_decoder *d, unsigned int flags, kp_sample_fn fn,
			       void *arg);

/*
 * Call @fn for every WAKER record (offcpu --wakers): @blocked is its
 * blocked side resolved as a sample of its process, @waker the waker's as
 * one of the waker's process; stops at and returns @fn's non-zero.
 */
typedef int (*kp_waker_fn)(struct kp_decoder *d, const struct kp_rec_waker *w,
			   const struct kp_resolved *blocked, const struct kp_resolved *waker,
			   void *arg);
int kp_decoder__for_each_waker(struct kp_decoder *d, kp_waker_fn fn, void *arg);

void kp_decoder__close(struct kp_decoder *d);

/* Does the recording have an off-CPU event (record --off-cpu, offcpu -o)? */
bool kp_decoder__has_offcpu(const struct kp_decoder *d);

/* Lost samples: the module's totals when the file has them. */
uint64_t kp_decoder__lost(const struct kp_decoder *d);

/* "cpu-clock": the name of event @i. */
const char *kp_decoder__event_name(const struct kp_decoder *d, unsigned int i);

/*
 * The sample filters every decoding command shares: --comms, --pids,
 * --tids, --dsos, -K (kernel frames only), -U (user frames only).
 */
#define KP_FILTER_MAX	64

struct kp_filter {
	const char	*comms[KP_FILTER_MAX];
	unsigned int	nr_comms;
	uint32_t	pids[KP_FILTER_MAX];
	unsigned int	nr_pids;
	uint32_t	tids[KP_FILTER_MAX];
	unsigned int	nr_tids;
	const char	*dsos[KP_FILTER_MAX];
	unsigned int	nr_dsos;
	bool		kernel_only;
	bool		user_only;
	bool		no_offcpu;	/* --no-off-cpu: samples only */
	bool		offcpu_only;	/* --off-cpu-only: off-CPU time only */
	char		*buf;		/* the lists, split */
};

/*
 * Parse the comma-separated lists (any may be NULL).  On a bad value,
 * prints "kprofctl: CMD: bad --pids value 'x'" and returns KP_EXIT_USAGE.
 */
int kp_filter__init(struct kp_filter *f, const char *cmd, const char *comms, const char *pids,
		    const char *tids, const char *dsos, bool kernel_only, bool user_only);
void kp_filter__exit(struct kp_filter *f);

/*
 * Does @s pass?  The frames to use are [*first, *last), innermost first;
 * at least one.
 */
bool kp_filter__sample(const struct kp_filter *f, const struct kp_resolved *s,
		       unsigned int *first, unsigned int *last);

#endif /* KPROFCTL_DECODE_H */
