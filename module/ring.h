/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof - per-CPU ring buffers of records, shared with userspace by mmap.
 */
#ifndef _KPROF_RING_H
#define _KPROF_RING_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <asm/barrier.h>
#include <asm/local.h>
#include <asm/local64.h>
#include <uapi/linux/kprof.h>

#include "guard.h"
#include "waitkind.h"

/*
 * Largest record: a sample with full kernel and user chains, a raw record
 * and a user stack part.
 */
#define KPROF_SAMPLE_FIXED	56
#define KPROF_RECORD_MAX	(KPROF_SAMPLE_FIXED + 2 * KPROF_MAX_STACK_DEPTH * 8 + \
				 8 + KPROF_RAW_MAX + 5 * 8 + KPROF_USER_STACK_MAX)
#define KPROF_SCRATCH_WORDS	(KPROF_RECORD_MAX / 8)

/**
 * struct kprof_cpu_stats - per-CPU counters of one session
 *
 * Written only on their own CPU, possibly by nested writers (an NMI
 * interrupting an interrupt handler), hence local64_t.  The balance
 * invocations == samples + lost[FULL] + lost[TOO_BIG] + lost[RECURSION] +
 * lost[COST] holds once no handler is running, and for each kind of wait
 * (wait.h: off-CPU blocks, lock waits) wait[k][BEGUN] == the sum of its
 * outcomes (kprof_stats_wait_ended()) once the session has stopped.
 *
 * @invocations: handler calls of the session's events (filtered hits not)
 * @samples: samples stored in the ring
 * @lost: samples lost, per enum kprof_lost_cause
 * @throttled: times the perf core throttled an event (each writes a
 *	THROTTLE record, counted with the side-band)
 * @bytes: bytes written into the ring
 * @sideband: side-band records written (COMM, MMAP, FORK, EXIT, THROTTLE)
 * @sideband_lost: side-band records that found no room
 * @handler_ns: time spent in the sampling handler
 * @handler_max_ns: the longest handler call
 * @kstack_trunc: kernel chains cut at the stack depth
 * @ustack_trunc: user chains cut at the stack depth
 * @ustack_fault: user chains that stopped at their first frame (no frame
 *	pointer could be read)
 * @agg_samples: samples counted in the aggregation table
 * @filtered: hits a tracepoint filter dropped
 * @nested: records committed while another writer on the CPU was between
 *	its reserve and its commit
 * @wait: per kind of wait (wait.h), its begin and outcome counters
 */
struct kprof_cpu_stats {
	local64_t invocations;
	local64_t samples;
	local64_t lost[__KPROF_LOST_MAX];
	local64_t throttled;
	local64_t bytes;
	local64_t sideband;
	local64_t sideband_lost;
	local64_t handler_ns;
	local64_t handler_max_ns;
	local64_t kstack_trunc;
	local64_t ustack_trunc;
	local64_t ustack_fault;
	local64_t agg_samples;
	local64_t filtered;
	local64_t nested;
	local64_t wait[KPROF_WAIT_KINDS][KPROF_WAIT_NR_STATS];
};

/**
 * struct kprof_stats_snapshot - struct kprof_cpu_stats as plain numbers
 *
 * While handlers run, a snapshot may count an invocation whose outcome is
 * not yet counted; once the session has stopped the balance is exact.
 *
 * @invocations: as struct kprof_cpu_stats
 * @samples: as struct kprof_cpu_stats
 * @lost_full: lost[KPROF_LOST_FULL]
 * @lost_too_big: lost[KPROF_LOST_TOO_BIG]
 * @throttled: as struct kprof_cpu_stats
 * @bytes: as struct kprof_cpu_stats
 * @sideband: as struct kprof_cpu_stats
 * @sideband_lost: as struct kprof_cpu_stats
 * @handler_ns: as struct kprof_cpu_stats
 * @handler_max_ns: as struct kprof_cpu_stats
 * @kstack_trunc: as struct kprof_cpu_stats
 * @ustack_trunc: as struct kprof_cpu_stats
 * @ustack_fault: as struct kprof_cpu_stats
 * @agg_samples: as struct kprof_cpu_stats
 * @lost_agg_full: lost[KPROF_LOST_AGG_FULL]: the aggregation table was full
 * @lost_agg_reset: lost[KPROF_LOST_AGG_RESET]: the table was being reset
 * @agg_used: aggregation entries in use on the CPU
 * @agg_capacity: aggregation entries the CPU's table has
 * @agg_high: the most aggregation entries in use at once
 * @agg_pool_used: frames of the table's pool in use
 * @agg_pool_high: the most frames of the pool in use at once
 * @agg_pool_size: frames the pool has
 * @filtered: as struct kprof_cpu_stats
 * @lost_recursion: lost[KPROF_LOST_RECURSION]
 * @nested: as struct kprof_cpu_stats
 * @lost_cost: lost[KPROF_LOST_COST]: the probe cost cap
 * @wait: as struct kprof_cpu_stats
 */
struct kprof_stats_snapshot {
	u64 invocations;
	u64 samples;
	u64 lost_full;
	u64 lost_too_big;
	u64 throttled;
	u64 bytes;
	u64 sideband;
	u64 sideband_lost;
	u64 handler_ns;
	u64 handler_max_ns;
	u64 kstack_trunc;
	u64 ustack_trunc;
	u64 ustack_fault;
	u64 agg_samples;
	u64 lost_agg_full;
	u64 lost_agg_reset;
	u64 agg_used;
	u64 agg_capacity;
	u64 agg_high;
	u64 agg_pool_used;
	u64 agg_pool_high;
	u64 agg_pool_size;
	u64 filtered;
	u64 lost_recursion;
	u64 nested;
	u64 lost_cost;
	u64 wait[KPROF_WAIT_KINDS][KPROF_WAIT_NR_STATS];
};

/**
 * struct kprof_ring - one CPU's buffer
 * @page: the control page, shared with userspace; data follows it
 * @data: the data area, @size bytes
 * @size: bytes in @data, a power of two
 * @mask: @size - 1
 * @head: reservation head, in bytes since the start (never wraps)
 * @nest: writers currently between reserve and commit on this CPU
 * @lost_pending: samples lost per cause and not yet reported by a LOST record
 * @wakeup_head: @head at the last reader wakeup
 * @wakeup: irq_work that wakes readers; queued from any context
 * @bufs: the set this ring belongs to
 * @cpu: the CPU it serves
 * @stats: the CPU's counters
 *
 * Records are built in the CPU's scratch area (kprof_ring_scratch()),
 * which every session's ring on that CPU shares.
 */
struct kprof_ring {
	struct kprof_mmap_page *page;
	void *data;
	u64 size;
	u64 mask;
	local_t head;
	local_t nest;
	local64_t lost_pending[__KPROF_LOST_MAX];
	u64 wakeup_head;
	struct irq_work wakeup;
	struct kprof_buffers *bufs;
	unsigned int cpu;
	struct kprof_cpu_stats stats;
};

/**
 * struct kprof_buffers - the rings of one session
 * @ref: held by the session and by every mapping of /dev/kprof
 * @session_id: the session's id
 * @data_size: bytes of data per CPU, a power of two
 * @stride: bytes between two CPUs' mmap offsets (control page + data)
 * @watermark: bytes that wake a reader
 * @max_record: largest record accepted, in bytes
 * @stopped: the session stopped: no more records will come
 * @wait: readers in poll()
 * @rings_seq: rings added so far (kprof_buffers_add()), for readers
 * @nr_rings: entries in @rings (nr_cpu_ids)
 * @rings: per possible CPU; NULL for a CPU without one (outside the
 *	session, not yet online, or its allocation failed); read through
 *	kprof_ring_of()
 */
struct kprof_buffers {
	struct kref ref;
	u64 session_id;
	u64 data_size;
	u64 stride;
	u32 watermark;
	u32 max_record;
	bool stopped;
	wait_queue_head_t wait;
	atomic_t rings_seq;
	unsigned int nr_rings;
	struct kprof_ring *rings[];
};

/**
 * kprof_ring_of() - a CPU's ring, once published
 * @bufs: the set
 * @cpu: a CPU below @bufs->nr_rings
 *
 * An acquire load, which pairs with kprof_buffers_add(): what was
 * published before the ring (the ring itself, the CPU's table) is seen.
 * Safe in any context.
 *
 * Return: the ring or NULL.
 */
static __always_inline struct kprof_ring *kprof_ring_of(struct kprof_buffers *bufs,
							unsigned int cpu)
{
	/* pairs with kprof_buffers_add()'s release */
	return smp_load_acquire(&bufs->rings[cpu]);
}

u64 kprof_buffers_bytes(unsigned int nr_cpus, u32 data_size);
u64 kprof_scratch_bytes(const struct cpumask *cpus);
struct kprof_buffers *kprof_buffers_alloc(u64 session_id, u64 data_size, u32 watermark);
int kprof_buffers_add(struct kprof_buffers *bufs, unsigned int cpu);
void kprof_buffers_get(struct kprof_buffers *bufs);
void kprof_buffers_put(struct kprof_buffers *bufs);
void kprof_buffers_stop(struct kprof_buffers *bufs);
bool kprof_buffers_readable(struct kprof_buffers *bufs, bool *empty);

/* What each mode lost: the right-hand sides of its balance (uapi header). */
static inline u64 kprof_stats_lost(const struct kprof_stats_snapshot *st)
{
	return st->lost_full + st->lost_too_big + st->lost_recursion + st->lost_cost;
}

/* The waits of kind @k that ended, one way or another. */
static inline u64 kprof_stats_wait_ended(const struct kprof_stats_snapshot *st,
					 enum kprof_wait_kind k)
{
	u64 sum = 0;
	int i;

	for (i = KPROF_WAIT_BEGUN + 1; i < KPROF_WAIT_NR_STATS; i++)
		sum += st->wait[k][i];
	return sum;
}

static inline u64 kprof_stats_agg_lost(const struct kprof_stats_snapshot *st)
{
	return st->lost_agg_full + st->lost_agg_reset + st->lost_recursion + st->lost_cost;
}

void kprof_ring_stats(struct kprof_ring *ring, struct kprof_stats_snapshot *st);
void kprof_stats_add(struct kprof_stats_snapshot *sum, const struct kprof_stats_snapshot *one);
void *kprof_ring_scratch(struct kprof_ring *ring, int level);

int kprof_ring_write(struct kprof_ring *ring, const void *rec, u32 len);
void kprof_ring_lost(struct kprof_ring *ring, enum kprof_lost_cause cause);
struct page *kprof_ring_page(struct kprof_buffers *bufs, unsigned long pgoff);

#endif /* _KPROF_RING_H */
