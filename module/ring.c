// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - per-CPU ring buffers.
 *
 * Each CPU of a session has its own buffer: a control page shared with
 * userspace (struct kprof_mmap_page) followed by a power-of-two data area.
 * Records are written only on the buffer's own CPU, by the overflow handler
 * and the side-band hooks, which can nest (an NMI may interrupt a writer in
 * the middle of a record).  The scheme is perf's: space is reserved by
 * moving a local_t head with cmpxchg, and data_head is published only by the
 * outermost writer, after every nested writer has committed.  No locks, no
 * allocation, bounded work: safe in NMI context.
 *
 * Memory ordering with the reader (see the uapi header):
 *
 *	kernel (writer)			userspace (reader)
 *	read data_tail			read data_head
 *	smp_mb()	(A)		smp_rmb()	(C)
 *	write records			read records
 *	smp_wmb()	(B)		smp_mb()	(D)
 *	write data_head			write data_tail
 *
 * A pairs with D: the writer does not overwrite what the reader has not
 * finished reading.  B pairs with C: the reader sees complete records.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "ring.h"
#include "stages.h"
#include "tracepoints.h"

/* kprof's own tracepoints (tracepoints.h), for the modules that attach */
DEFINE_TRACE(kprof_ring_reserved,
	     TP_PROTO(unsigned int cpu, u32 len),
	     TP_ARGS(cpu, len));
EXPORT_TRACEPOINT_SYMBOL_GPL(kprof_ring_reserved);

static void kprof_ring_flush_lost(struct kprof_ring *ring, bool final);

static void kprof_ring_wakeup_fn(struct irq_work *work)
{
	struct kprof_ring *ring = container_of(work, struct kprof_ring, wakeup);
	u64 ts = kprof_stage_clock();

	wake_up_all(&ring->bufs->wait);
	kprof_stage_mark(&ts, KPROF_STAGE_WAKEUP);
}

/*
 * The scratch areas, one per CPU that has a ring, shared by the rings of
 * every session on it: a record is built there before it is copied into
 * a ring, and the entry guard lets one writer per context level at a time
 * on a CPU (guard.h), whichever session it writes for.  Allocated with the
 * first ring on the CPU, freed with the last (no writer is left by then:
 * a ring is freed after its session's counters and hooks are gone).
 */
struct kprof_scratch {
	unsigned int users;
	u64 words[KPROF_CTX_LEVELS][KPROF_SCRATCH_WORDS];
};

static DEFINE_PER_CPU(struct kprof_scratch *, kprof_scratch_area);
/* The areas' users and the bytes they take. */
static DEFINE_MUTEX(kprof_scratch_lock);
static u64 kprof_scratch_mem;

/* A reference on @cpu's scratch area, allocated for the first ring. */
static bool kprof_scratch_get(unsigned int cpu)
{
	struct kprof_scratch *sc;

	mutex_lock(&kprof_scratch_lock);
	sc = per_cpu(kprof_scratch_area, cpu);
	if (!sc) {
		sc = kvzalloc_node(sizeof(*sc), KPROF_GFP, cpu_to_node(cpu));
		if (sc) {
			per_cpu(kprof_scratch_area, cpu) = sc;
			kprof_scratch_mem += sizeof(*sc);
		}
	}
	if (sc)
		sc->users++;
	mutex_unlock(&kprof_scratch_lock);
	return sc;
}

static void kprof_scratch_put(unsigned int cpu)
{
	struct kprof_scratch *sc;

	mutex_lock(&kprof_scratch_lock);
	sc = per_cpu(kprof_scratch_area, cpu);
	if (!--sc->users) {
		per_cpu(kprof_scratch_area, cpu) = NULL;
		kprof_scratch_mem -= sizeof(*sc);
		kvfree(sc);
	}
	mutex_unlock(&kprof_scratch_lock);
}

/**
 * kprof_scratch_bytes() - the scratch areas' memory
 * @cpus: with a mask, what rings on those CPUs would add (the CPUs
 *	without an area); NULL for what the areas take now
 *
 * Context: process context.
 * Return: the bytes.
 */
u64 kprof_scratch_bytes(const struct cpumask *cpus)
{
	unsigned int cpu;
	u64 bytes = 0;

	mutex_lock(&kprof_scratch_lock);
	if (!cpus) {
		bytes = kprof_scratch_mem;
	} else {
		for_each_cpu(cpu, cpus)
			if (!per_cpu(kprof_scratch_area, cpu))
				bytes += sizeof(struct kprof_scratch);
	}
	mutex_unlock(&kprof_scratch_lock);
	return bytes;
}

static void kprof_ring_free(struct kprof_ring *ring)
{
	if (!ring)
		return;
	irq_work_sync(&ring->wakeup);
	kprof_scratch_put(ring->cpu);
	vfree(ring->page);
	kvfree(ring);
}

/**
 * kprof_buffers_bytes() - the memory kprof_buffers_alloc() takes
 * @nr_cpus: the CPUs that get a ring
 * @data_size: each ring's data bytes
 *
 * Return: the bytes: per CPU, the ring, its control page and its data
 * (the CPU's scratch area is shared: kprof_scratch_bytes()).
 */
u64 kprof_buffers_bytes(unsigned int nr_cpus, u32 data_size)
{
	return (u64)nr_cpus * (sizeof(struct kprof_ring) + PAGE_SIZE + data_size);
}

static struct kprof_ring *kprof_ring_alloc(struct kprof_buffers *bufs, unsigned int cpu)
{
	struct kprof_ring *ring;
	int i;

	ring = kvzalloc_node(sizeof(*ring), KPROF_GFP, cpu_to_node(cpu));
	if (!ring)
		return NULL;

	/*
	 * Zeroed: no stale kernel data reaches userspace.  The mapping faults
	 * its pages in one by one (chardev.c), so no VM_USERMAP is needed.
	 */
	ring->page = __vmalloc(PAGE_SIZE + bufs->data_size, KPROF_GFP | __GFP_ZERO);
	if (!ring->page || !kprof_scratch_get(cpu)) {
		vfree(ring->page);
		kvfree(ring);
		return NULL;
	}
	ring->data = (void *)ring->page + PAGE_SIZE;
	ring->size = bufs->data_size;
	ring->mask = bufs->data_size - 1;
	ring->cpu = cpu;
	ring->bufs = bufs;
	local_set(&ring->head, 0);
	local_set(&ring->nest, 0);
	for (i = 0; i < __KPROF_LOST_MAX; i++)
		local64_set(&ring->lost_pending[i], 0);
	init_irq_work(&ring->wakeup, kprof_ring_wakeup_fn);

	ring->page->version = KPROF_MMAP_VERSION;
	ring->page->compat_version = KPROF_MMAP_VERSION;
	ring->page->size = sizeof(*ring->page);
	ring->page->cpu = cpu;
	ring->page->session_id = bufs->session_id;
	ring->page->data_offset = PAGE_SIZE;
	ring->page->data_size = bufs->data_size;
	return ring;
}

/**
 * kprof_buffers_alloc() - the set of a session's rings, none allocated yet
 * @session_id: the session's id, copied into each control page
 * @data_size: bytes of data per ring, a power of two
 * @watermark: bytes that wake a reader; 0 for half the data size
 *
 * kprof_buffers_add() gives a CPU its ring.
 *
 * Context: process context, may sleep.
 * Return: the set with one reference, or NULL when out of memory.
 */
struct kprof_buffers *kprof_buffers_alloc(u64 session_id, u64 data_size, u32 watermark)
{
	struct kprof_buffers *bufs;

	BUILD_BUG_ON(sizeof(struct kprof_mmap_page) > PAGE_SIZE);

	bufs = kzalloc(struct_size(bufs, rings, nr_cpu_ids), KPROF_GFP);
	if (!bufs)
		return NULL;

	kref_init(&bufs->ref);
	init_waitqueue_head(&bufs->wait);
	bufs->session_id = session_id;
	bufs->data_size = data_size;
	bufs->stride = PAGE_SIZE + data_size;
	bufs->watermark = watermark ? min_t(u64, watermark, data_size) : data_size / 2;
	/* a record may take at most half the buffer, so one never starves it */
	bufs->max_record = min_t(u64, data_size / 2, U16_MAX & ~7U);
	bufs->nr_rings = nr_cpu_ids;
	return bufs;
}

/**
 * kprof_buffers_add() - give a CPU its ring
 * @bufs: the set
 * @cpu: the CPU, which has none yet
 *
 * The ring is published with a release store: a writer that finds it
 * (kprof_ring_of()) sees it initialised, and what its owner published
 * before it (the CPU's table).  Readers polling the set are woken and
 * told of it (kprof_buffers_rings_seq()).  A ring stays until the set is
 * freed, its CPU offline or not.
 *
 * Context: process context, may sleep; calls for one set serialised by
 * its owner.
 * Return: 0, or -ENOMEM.
 */
int kprof_buffers_add(struct kprof_buffers *bufs, unsigned int cpu)
{
	struct kprof_ring *ring;

	if (WARN_ON_ONCE(cpu >= bufs->nr_rings || bufs->rings[cpu]))
		return -EINVAL;
	ring = kprof_ring_alloc(bufs, cpu);
	if (!ring)
		return -ENOMEM;
	/* the ring whole, and the CPU's table, before the pointer: kprof_ring_of() */
	smp_store_release(&bufs->rings[cpu], ring);
	atomic_inc(&bufs->rings_seq);
	wake_up_all(&bufs->wait);
	return 0;
}

void kprof_buffers_get(struct kprof_buffers *bufs)
{
	kref_get(&bufs->ref);
}

static void kprof_buffers_release(struct kref *ref)
{
	struct kprof_buffers *bufs = container_of(ref, struct kprof_buffers, ref);
	unsigned int cpu;

	for (cpu = 0; cpu < bufs->nr_rings; cpu++)
		kprof_ring_free(bufs->rings[cpu]);
	kfree(bufs);
}

/**
 * kprof_buffers_put() - drop a reference; the last one frees the rings
 * @bufs: the set
 *
 * Context: process context.  No writer may be running: the session puts
 * its reference only after its counters and hooks are gone.
 */
void kprof_buffers_put(struct kprof_buffers *bufs)
{
	kref_put(&bufs->ref, kprof_buffers_release);
}

/**
 * kprof_buffers_stop() - no more records will come; wake every reader
 * @bufs: the set
 *
 * Context: process context, after the last writer is gone.
 */
void kprof_buffers_stop(struct kprof_buffers *bufs)
{
	unsigned int cpu;

	/*
	 * The last losses get their LOST records.  No writer is left, so
	 * writing a ring from another CPU cannot race with its owner.
	 */
	for (cpu = 0; cpu < bufs->nr_rings; cpu++)
		if (kprof_ring_of(bufs, cpu))
			kprof_ring_flush_lost(kprof_ring_of(bufs, cpu), true);
	WRITE_ONCE(bufs->stopped, true);
	wake_up_all(&bufs->wait);
}

/**
 * kprof_buffers_readable() - is there something for a reader?
 * @bufs: the set
 * @empty: set to whether every ring is empty
 *
 * Return: true when a ring holds at least the watermark, or any data once
 * the session has stopped.
 */
bool kprof_buffers_readable(struct kprof_buffers *bufs, bool *empty)
{
	bool stopped = READ_ONCE(bufs->stopped);
	bool readable = false;
	unsigned int cpu;

	*empty = true;
	for (cpu = 0; cpu < bufs->nr_rings; cpu++) {
		struct kprof_ring *ring = kprof_ring_of(bufs, cpu);
		u64 fill;

		if (!ring)
			continue;
		fill = READ_ONCE(ring->page->data_head) - READ_ONCE(ring->page->data_tail);
		if (fill)
			*empty = false;
		if (fill >= bufs->watermark || (stopped && fill))
			readable = true;
	}
	return readable;
}

/**
 * kprof_ring_page() - the page behind an offset of a /dev/kprof mapping
 * @bufs: the set
 * @pgoff: page offset in the mapping's file space
 *
 * Return: the page, or NULL when no ring backs that offset.
 */
struct page *kprof_ring_page(struct kprof_buffers *bufs, unsigned long pgoff)
{
	unsigned long per_cpu = bufs->stride >> PAGE_SHIFT;
	unsigned long cpu = pgoff / per_cpu;
	struct kprof_ring *ring;

	if (cpu >= bufs->nr_rings)
		return NULL;
	ring = kprof_ring_of(bufs, cpu);
	if (!ring)
		return NULL;
	return vmalloc_to_page((void *)ring->page + ((pgoff % per_cpu) << PAGE_SHIFT));
}

/*
 * Publish data_head once the outermost writer on this CPU commits, as
 * perf_output_put_handle() does.  Only the outermost writer (nest == 1)
 * writes data_head; a nested one just leaves.  Two orders matter:
 *
 *  - data_head is published before nest drops to 0.  Were it the other way
 *    round, an interrupting writer could see nest == 0, publish its newer
 *    head, and our stale store would then move data_head backwards.
 *  - nest drops to 0 before head is read again.  A writer that reserved
 *    after our read of head either saw nest > 0 (and left publishing to
 *    us: the re-read catches it, and we go round again) or saw nest == 0
 *    (and published its own head, which is newer than ours).
 */
static void kprof_ring_commit(struct kprof_ring *ring)
{
	unsigned long head;
	long nest = local_read(&ring->nest);

	if (nest > 1) {
		local64_inc(&ring->stats.nested);
		local_set(&ring->nest, nest - 1);
		return;
	}
again:
	/* the load of head comes after nest was raised (reserve, or below) */
	barrier();
	head = local_read(&ring->head);
	/* an interrupt may move head on from here: the re-check below sees it */
	smp_wmb(); /* B, matches C */
	WRITE_ONCE(ring->page->data_head, head);
	/* publish the head before dropping nest, or a newer one may be overwritten */
	barrier();
	local_set(&ring->nest, 0);
	/* nest is 0 before head is validated, so the last nested update is seen */
	barrier();
	if (unlikely(head != local_read(&ring->head))) {
		local_set(&ring->nest, 1);
		goto again;
	}

	if (head - ring->wakeup_head >= ring->bufs->watermark) {
		ring->wakeup_head = head;
		irq_work_queue(&ring->wakeup);
	}
}

/*
 * Room kept free for the LOST records of every cause, so that the losses
 * can always be reported once the reader catches up or the session stops.
 */
#define KPROF_LOST_HEADROOM	(32 * (__KPROF_LOST_MAX - 1))

/*
 * Reserve @len bytes, leaving @headroom bytes free; on success the caller
 * copies and commits.  On failure the nesting level is already undone.
 */
static int kprof_ring_reserve(struct kprof_ring *ring, u32 len, u32 headroom,
			      unsigned long *offset)
{
	unsigned long head, tail;

	local_set(&ring->nest, local_read(&ring->nest) + 1);
	barrier();
	do {
		tail = READ_ONCE(ring->page->data_tail);
		head = local_read(&ring->head);
		smp_mb(); /* A, matches D */
		/* a tail beyond head or too far behind is the reader's bug: full */
		if (unlikely(head - tail > ring->size ||
			     ring->size - (head - tail) < (u64)len + headroom)) {
			kprof_ring_commit(ring);
			return -ENOSPC;
		}
	} while (local_cmpxchg(&ring->head, head, head + len) != head);

	*offset = head;
	return 0;
}

static void kprof_ring_copy(struct kprof_ring *ring, unsigned long offset,
			    const void *src, u32 len)
{
	unsigned long off = offset & ring->mask;
	u32 first = min_t(u64, len, ring->size - off);

	memcpy(ring->data + off, src, first);
	if (first < len)
		memcpy(ring->data, src + first, len - first);
}

/*
 * Report samples lost since the last LOST record.  While sampling
 * (@final false) a LOST record, like any other, must leave the headroom
 * free; when the session stops (@final true) the headroom is used, so the
 * last losses are always reported.
 */
static void kprof_ring_flush_lost(struct kprof_ring *ring, bool final)
{
	struct {
		struct kprof_record_header header;
		u64 time;
		u64 lost;
		u32 cause;
		u32 cpu;
	} rec;
	unsigned long offset;
	int cause;

	for (cause = 1; cause < __KPROF_LOST_MAX; cause++) {
		u64 n = local64_read(&ring->lost_pending[cause]);

		if (likely(!n))
			continue;
		if (kprof_ring_reserve(ring, sizeof(rec), final ? 0 : KPROF_LOST_HEADROOM,
				       &offset))
			return;
		rec.header.type = KPROF_RECORD_LOST;
		rec.header.misc = 0;
		rec.header.size = sizeof(rec);
		rec.time = ktime_get_mono_fast_ns();
		rec.lost = n;
		rec.cause = cause;
		rec.cpu = ring->cpu;
		kprof_ring_copy(ring, offset, &rec, sizeof(rec));
		/* subtract, not clear: a nested writer may have added more */
		local64_sub(n, &ring->lost_pending[cause]);
		local64_add(sizeof(rec), &ring->stats.bytes);
		kprof_ring_commit(ring);
	}
}

/**
 * kprof_ring_write() - append one complete record
 * @ring: this CPU's ring
 * @rec: the record, starting with a struct kprof_record_header
 * @len: its size, a multiple of 8
 *
 * Pending LOST records go first.  Nothing is ever half-written: a record
 * is either stored whole or not at all.
 *
 * Context: any, NMI included, on @ring's own CPU with preemption disabled.
 * No locks, no allocation.
 * Return: 0; -E2BIG when @len exceeds the ring's record limit; -ENOSPC when
 * the ring is full.  The caller accounts the loss.
 */
int kprof_ring_write(struct kprof_ring *ring, const void *rec, u32 len)
{
	unsigned long offset;

	if (unlikely(len > ring->bufs->max_record))
		return -E2BIG;

	kprof_ring_flush_lost(ring, false);

	if (kprof_ring_reserve(ring, len, KPROF_LOST_HEADROOM, &offset))
		return -ENOSPC;
	/* a tracepoint needs RCU watching: a probe in the idle path writes without it */
	if (trace_kprof_ring_reserved_enabled() && rcu_is_watching())
		trace_kprof_ring_reserved(ring->cpu, len);
	kprof_ring_copy(ring, offset, rec, len);
	local64_add(len, &ring->stats.bytes);
	kprof_ring_commit(ring);
	return 0;
}

NOKPROBE_SYMBOL(kprof_ring_write);

/**
 * kprof_ring_lost() - count a sample that could not be stored
 * @ring: this CPU's ring
 * @cause: why
 *
 * Context: any, NMI included, on @ring's own CPU.
 */
void kprof_ring_lost(struct kprof_ring *ring, enum kprof_lost_cause cause)
{
	local64_inc(&ring->stats.lost[cause]);
	local64_inc(&ring->lost_pending[cause]);
}

NOKPROBE_SYMBOL(kprof_ring_lost);

/**
 * kprof_ring_scratch() - this context's scratch space on this CPU
 * @ring: this CPU's ring (which holds a reference on the CPU's area)
 * @level: the context level the caller's guard holds (kprof_guard_enter())
 *
 * The guard lets one writer per context level (task, softirq, hardirq,
 * NMI) build a record at a time on a CPU, whatever its session, so one
 * buffer per level is never used twice at once.
 *
 * Context: any, on @ring's own CPU, inside kprof_guard_enter() at @level.
 * Return: KPROF_RECORD_MAX bytes, 8-byte aligned.
 */
void *kprof_ring_scratch(struct kprof_ring *ring, int level)
{
	return this_cpu_read(kprof_scratch_area)->words[level];
}

/**
 * kprof_ring_stats() - read one CPU's counters
 * @ring: the ring
 * @st: where to store them
 */
void kprof_ring_stats(struct kprof_ring *ring, struct kprof_stats_snapshot *st)
{
	struct kprof_cpu_stats *c = &ring->stats;
	int k, i;

	st->invocations = local64_read(&c->invocations);
	st->samples = local64_read(&c->samples);
	st->lost_full = local64_read(&c->lost[KPROF_LOST_FULL]);
	st->lost_too_big = local64_read(&c->lost[KPROF_LOST_TOO_BIG]);
	st->throttled = local64_read(&c->throttled);
	st->bytes = local64_read(&c->bytes);
	st->sideband = local64_read(&c->sideband);
	st->sideband_lost = local64_read(&c->sideband_lost);
	st->handler_ns = local64_read(&c->handler_ns);
	st->handler_max_ns = local64_read(&c->handler_max_ns);
	st->kstack_trunc = local64_read(&c->kstack_trunc);
	st->ustack_trunc = local64_read(&c->ustack_trunc);
	st->ustack_fault = local64_read(&c->ustack_fault);
	st->agg_samples = local64_read(&c->agg_samples);
	st->lost_agg_full = local64_read(&c->lost[KPROF_LOST_AGG_FULL]);
	st->lost_agg_reset = local64_read(&c->lost[KPROF_LOST_AGG_RESET]);
	st->filtered = local64_read(&c->filtered);
	st->lost_recursion = local64_read(&c->lost[KPROF_LOST_RECURSION]);
	st->nested = local64_read(&c->nested);
	st->lost_cost = local64_read(&c->lost[KPROF_LOST_COST]);
	for (k = 0; k < KPROF_WAIT_KINDS; k++)
		for (i = 0; i < KPROF_WAIT_NR_STATS; i++)
			st->wait[k][i] = local64_read(&c->wait[k][i]);
	st->agg_used = 0;
	st->agg_capacity = 0;
	st->agg_high = 0;
	st->agg_pool_used = 0;
	st->agg_pool_high = 0;
	st->agg_pool_size = 0;
}

/**
 * kprof_stats_add() - add one CPU's counters to a sum
 * @sum: the sum
 * @one: the CPU's counters
 *
 * The maximum handler time is a maximum, the rest are sums.
 */
void kprof_stats_add(struct kprof_stats_snapshot *sum, const struct kprof_stats_snapshot *one)
{
	int k, i;

	sum->invocations += one->invocations;
	sum->samples += one->samples;
	sum->lost_full += one->lost_full;
	sum->lost_too_big += one->lost_too_big;
	sum->throttled += one->throttled;
	sum->bytes += one->bytes;
	sum->sideband += one->sideband;
	sum->sideband_lost += one->sideband_lost;
	sum->handler_ns += one->handler_ns;
	sum->handler_max_ns = max(sum->handler_max_ns, one->handler_max_ns);
	sum->kstack_trunc += one->kstack_trunc;
	sum->ustack_trunc += one->ustack_trunc;
	sum->ustack_fault += one->ustack_fault;
	sum->agg_samples += one->agg_samples;
	sum->lost_agg_full += one->lost_agg_full;
	sum->lost_agg_reset += one->lost_agg_reset;
	sum->agg_used += one->agg_used;
	sum->agg_capacity += one->agg_capacity;
	sum->agg_high += one->agg_high;
	sum->agg_pool_used += one->agg_pool_used;
	sum->agg_pool_high += one->agg_pool_high;
	sum->agg_pool_size += one->agg_pool_size;
	sum->filtered += one->filtered;
	sum->lost_recursion += one->lost_recursion;
	sum->nested += one->nested;
	sum->lost_cost += one->lost_cost;
	for (k = 0; k < KPROF_WAIT_KINDS; k++)
		for (i = 0; i < KPROF_WAIT_NR_STATS; i++)
			sum->wait[k][i] += one->wait[k][i];
}
