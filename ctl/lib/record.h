/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records of the data path, as C structures, and their validation.
 *
 * include/uapi/linux/kprof.h describes the kernel's records (enum
 * kprof_record_type) in comments; the structures below spell those layouts
 * out and are checked against them at compile time.  kprof.data adds
 * file-only records with types from KP_DATA_REC_BASE, which no kernel
 * record type can reach (they are below __KPROF_RECORD_MAX).
 */
#ifndef KPROFCTL_RECORD_H
#define KPROFCTL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#define KP_COMM_LEN		16

struct kp_rec_sample {
	struct kprof_record_header	header;
	uint64_t	time;
	uint64_t	ip;
	uint64_t	period;
	uint32_t	pid, tid;
	uint32_t	cpu;
	uint16_t	event;
	uint16_t	flags;			/* KPROF_SAMPLE_F_* */
	uint16_t	nr_kernel;
	uint16_t	nr_user;
	uint32_t	__reserved;
	uint64_t	ips[];			/* nr_kernel, then nr_user */
};

struct kp_rec_lost {
	struct kprof_record_header	header;
	uint64_t	time;
	uint64_t	lost;
	uint32_t	cause;			/* enum kprof_lost_cause */
	uint32_t	cpu;
};

struct kp_rec_throttle {
	struct kprof_record_header	header;
	uint64_t	time;
	uint32_t	cpu;
	uint16_t	event;
	uint16_t	__reserved;
};

struct kp_rec_comm {
	struct kprof_record_header	header;
	uint64_t	time;
	uint32_t	pid, tid;
	char		comm[KP_COMM_LEN];
};

struct kp_rec_exit {
	struct kprof_record_header	header;
	uint64_t	time;
	uint32_t	pid, tid;
};

struct kp_rec_fork {
	struct kprof_record_header	header;
	uint64_t	time;
	uint32_t	pid, tid;
	uint32_t	ppid, ptid;
};

struct kp_rec_mmap {
	struct kprof_record_header	header;
	uint64_t	time;
	uint32_t	pid, tid;
	uint64_t	start;
	uint64_t	len;
	uint64_t	pgoff;
	char		filename[];		/* NUL-terminated, padded to 8 */
};

/* File-only record types of kprof.data (Documentation/kprof-data.rst). */
#define KP_DATA_REC_BASE	0x10000
#define KP_DATA_REC_STATS	0x10000	/* statistics from the module */
#define KP_DATA_REC_FINISHED	0x10001	/* the last record of a complete file */
#define KP_DATA_REC_SYNTH_DONE	0x10002	/* end of the side-band synthesized at start */
#define KP_DATA_REC_AGG		0x10003	/* one stack of the aggregation tables */
#define KP_DATA_REC_WAKER	0x10004	/* an off-CPU stack with its waker's */
#define KP_DATA_REC_SWITCH	0x10005	/* one file of a --switch-output series */
#define KP_DATA_REC_BUILD_ID	0x10006	/* the GNU build-id of a mapped file */

#define KP_DATA_STATS_TOTAL	0xffffffffU	/* kp_rec_stats.cpu of the totals */

/*
 * Statistics: v[i] is KPROF_STATS_A_INVOCATIONS + i, as in enum kp_stat;
 * the aggregation counters, when present, from v[KP_DATA_STATS_AGG]
 * (v[13], KPROF_STATS_A_PAD's place, is 0).  From an ABI 1.1 module, every
 * counter up to KPROF_STATS_A_NESTED, the aggregation ones 0 for a stream;
 * from this kprofctl on, up to KPROF_STATS_A_LOST_COST (nr =
 * KP_DATA_STATS_EXT_NR; 0 from modules before 1.3).
 */
#define KP_DATA_STATS_IDX(attr)	((attr) - KPROF_STATS_A_INVOCATIONS)
#define KP_DATA_STATS_AGG	KP_DATA_STATS_IDX(KPROF_STATS_A_AGG_SAMPLES)
#define KP_DATA_STATS_AGG_NR	(KP_DATA_STATS_IDX(KPROF_STATS_A_AGG_CAPACITY) + 1)
#define KP_DATA_STATS_EXT_NR	(KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_COST) + 1)

struct kp_rec_stats {
	struct kprof_record_header	header;
	uint32_t	cpu;			/* KP_DATA_STATS_TOTAL: totals from STOP */
	uint32_t	nr;			/* counters that follow */
	uint64_t	v[];
};

/* A STATS record with room for every counter this kprofctl writes. */
struct kp_rec_stats_buf {
	struct kp_rec_stats	rec;
	uint64_t		v[KP_DATA_STATS_EXT_NR];
};

struct kp_stats;

/*
 * Fill @s from @st for CPU @cpu (or KP_DATA_STATS_TOTAL): the stream
 * counters, with @agg the aggregation counters too, and the ABI 1.1 ones
 * (filtered, lost_recursion, nested) when the module sent them.
 */
void kp_rec_stats__fill(struct kp_rec_stats_buf *s, uint32_t cpu, const struct kp_stats *st,
			bool agg);

/* lost_recursion of a STATS record: 0 in records of ABI 1.0 modules. */
uint64_t kp_rec_stats__lost_recursion(const struct kp_rec_stats *st);

/* lost_cost of a STATS record: 0 in records with fewer counters. */
uint64_t kp_rec_stats__lost_cost(const struct kp_rec_stats *st);

struct kp_rec_finished {
	struct kprof_record_header	header;
	uint64_t	time;			/* end of the session, CLOCK_MONOTONIC */
	uint64_t	nr_records;		/* records before this one */
	uint64_t	data_size;		/* their bytes */
	uint64_t	wakeups;		/* poll() wake-ups of the reader */
};

struct kp_rec_synth_done {
	struct kprof_record_header	header;
	uint64_t	time;			/* session start */
	uint32_t	nr_processes;
	uint32_t	nr_threads;		/* COMM records */
	uint32_t	nr_mmaps;		/* MMAP records */
	uint32_t	nr_vanished;		/* processes gone while being read */
};

/*
 * One merged key of the aggregation tables (KPROF_CMD_AGG_DUMP, every CPU
 * added up): count samples of event in process pid, named comm, with these
 * call chains.
 */
struct kp_rec_agg {
	struct kprof_record_header	header;
	uint64_t	count;			/* samples, >= 1 */
	uint32_t	pid;
	uint16_t	event;			/* index in the session's event list */
	uint16_t	__reserved;
	uint16_t	nr_kernel;		/* kernel frames, innermost first */
	uint16_t	nr_user;		/* user frames, innermost first */
	uint32_t	nr_entries;		/* table entries merged into this record */
	char		comm[KP_COMM_LEN];	/* the task's name when first seen */
	uint64_t	ips[];			/* nr_kernel, then nr_user */
};

/*
 * One waker entry of the aggregation tables (off-CPU events with
 * KPROF_OFFCPU_F_WAKERS): count blocks of process pid, named comm, with
 * these call chains, woken by waker_comm of process waker_pid from its
 * chains, that lasted time_ns in all.  One per table entry: readers add
 * the same stacks up.
 */
struct kp_rec_waker {
	struct kprof_record_header	header;
	uint64_t	count;			/* blocks, >= 1 */
	uint64_t	time_ns;		/* their time */
	uint32_t	pid;			/* the blocked process */
	uint16_t	event;
	uint16_t	__reserved;
	uint16_t	nr_kernel;		/* the blocked chains, innermost first */
	uint16_t	nr_user;
	uint16_t	waker_nr_kernel;	/* the waker's */
	uint16_t	waker_nr_user;
	uint32_t	waker_pid;
	uint32_t	__reserved2;
	char		comm[KP_COMM_LEN];
	char		waker_comm[KP_COMM_LEN];
	uint64_t	ips[];			/* blocked kernel, user; waker kernel, user */
};

/*
 * The first record of each file of 'kprofctl record --switch-output'
 * (format version 5): which file of the session's series this is, and how
 * many samples the earlier ones hold, so that the last file's statistics
 * (the session's) balance against samples_before + its own.
 */
struct kp_rec_switch {
	struct kprof_record_header	header;
	uint64_t	time;			/* this file's start, CLOCK_MONOTONIC */
	uint64_t	samples_before;		/* SAMPLE records of the earlier files */
	uint32_t	seq;			/* earlier files of the session */
	uint32_t	__reserved;		/* 0 */
};

/*
 * The GNU build-id of a file the recording mapped (format version 5), read
 * by kprofctl when the file was written: the decoders read a DSO of this
 * name from the build-id cache (lib/buildid.h) when it has the id, and
 * never from a file of that name with another id.
 */
struct kp_rec_build_id {
	struct kprof_record_header	header;
	uint32_t	pid;			/* a process that mapped it; 0: none */
	uint8_t		size;			/* bytes of build_id: 1 .. 20 */
	uint8_t		__reserved[3];		/* 0 */
	uint8_t		build_id[20];		/* zero after size bytes */
	uint32_t	__reserved2;		/* 0 */
	char		filename[];		/* as in MMAP: NUL-terminated, padded to 8 */
};

_Static_assert(sizeof(struct kprof_record_header) == 8, "record header");
_Static_assert(sizeof(struct kp_rec_build_id) == 40, "BUILD_ID layout");
_Static_assert(sizeof(struct kp_rec_switch) == 32, "SWITCH layout");
_Static_assert(sizeof(struct kp_rec_waker) == 80, "WAKER layout");
_Static_assert(sizeof(struct kp_rec_sample) == 56, "SAMPLE layout");
_Static_assert(offsetof(struct kp_rec_sample, nr_user) == 50, "SAMPLE layout");
_Static_assert(sizeof(struct kp_rec_lost) == 32, "LOST layout");
_Static_assert(sizeof(struct kp_rec_throttle) == 24, "THROTTLE layout");
_Static_assert(sizeof(struct kp_rec_comm) == 40, "COMM layout");
_Static_assert(sizeof(struct kp_rec_exit) == 24, "EXIT layout");
_Static_assert(sizeof(struct kp_rec_fork) == 32, "FORK layout");
_Static_assert(sizeof(struct kp_rec_mmap) == 48, "MMAP layout");
_Static_assert(sizeof(struct kp_rec_stats) == 16, "STATS layout");
_Static_assert(sizeof(struct kp_rec_finished) == 40, "FINISHED layout");
_Static_assert(sizeof(struct kp_rec_synth_done) == 32, "SYNTH_DONE layout");
_Static_assert(sizeof(struct kp_rec_agg) == 48, "AGG layout");
_Static_assert(__KPROF_RECORD_MAX <= KP_DATA_REC_BASE, "record types collide");

/* Largest record: its size is a __u16 multiple of 8. */
#define KP_RECORD_MAX_SIZE	0xfff8

/* What a record is checked against. */
struct kp_record_ctx {
	uint32_t	nr_events;	/* SAMPLE/THROTTLE event < nr_events; 0: unchecked */
	uint32_t	max_depth;	/* nr_kernel, nr_user <= max_depth; 0: unchecked */
	bool		file_types;	/* allow the KP_DATA_REC_* types */
	bool		agg_types;	/* ... and KP_DATA_REC_AGG, _WAKER (format version 2) */
	bool		switch_types;	/* ... and KP_DATA_REC_SWITCH, _BUILD_ID (format version 5) */
};

/*
 * Check the record @h of h->size bytes (the caller checked that they are
 * there): size a multiple of 8 and at least its type's layout, a known
 * type, counts and strings within the record.  Returns 0, or -EBADMSG with
 * the reason in @why ("SAMPLE of 64 bytes has 3 frames").
 */
int kp_record__check(const struct kprof_record_header *h, const struct kp_record_ctx *ctx,
		     char *why, size_t len);

/* The module's record layouts (its BUILD_BUG_ON()s check the same sizes). */
_Static_assert(sizeof(struct kp_rec_sample) == 56, "SAMPLE record: 56 bytes before its frames");
_Static_assert(sizeof(struct kp_rec_comm) == 40, "COMM record: 40 bytes");
_Static_assert(sizeof(struct kp_rec_exit) == 24, "EXIT record: 24 bytes");
_Static_assert(sizeof(struct kp_rec_fork) == 32, "FORK record: 32 bytes");
_Static_assert(sizeof(struct kprof_record_header) == 8, "record header: 8 bytes");

/* "SAMPLE", "STATS", ...; NULL for an unknown type. */
const char *kp_record__type_name(uint32_t type);

/*
 * The raw record of a SAMPLE record of @size bytes at @rec whose chains
 * hold @nr frames, when it carries one (KPROF_MISC_RAW): its bytes and
 * length, or NULL if absent or malformed.
 */
const void *kp_sample__raw(const void *rec, size_t size, unsigned int nr, uint32_t *len);

/* A SAMPLE's user registers and stack copy (KPROF_MISC_USER_STACK, ABI 1.16). */
struct kp_ustack {
	uint64_t	bp, sp, ip;		/* the user %rbp, %rsp and %rip */
	uint32_t	size;			/* bytes of stack copied from sp up */
	const uint8_t	*stack;
};

/*
 * The user stack part of the valid SAMPLE @s (kp_record__check()): true
 * with @u filled when it carries a well-formed one with %rbp, %rsp and
 * %rip, false otherwise.
 */
bool kp_sample__ustack(const struct kp_rec_sample *s, struct kp_ustack *u);

#endif /* KPROFCTL_RECORD_H */
