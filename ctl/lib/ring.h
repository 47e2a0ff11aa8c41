/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reader of the per-CPU buffers of /dev/kprof (see "The data path" in
 * include/uapi/linux/kprof.h).
 *
 * struct kp_ring reads one CPU's buffer from memory: the control page and
 * the data area after it, as mapped, or as built by a unit test.  struct
 * kp_rings opens /dev/kprof and maps the buffers of a session.
 */
#ifndef KPROFCTL_RING_H
#define KPROFCTL_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "error.h"
#include "proto.h"
#include "record.h"

/* KPROF_DEVICE_PATH; the unit tests point it at a file. */
extern const char *kp_device_path;

struct kp_ring {
	unsigned int		cpu;
	struct kprof_mmap_page	*page;
	const unsigned char	*data;		/* the data area */
	uint64_t		data_size;	/* power of two */
	unsigned char		*bounce;	/* KP_RECORD_MAX_SIZE bytes, 8-aligned */
	void			*map;		/* the mapping, NULL if not mapped */
	size_t			map_len;
	uint64_t		bytes;		/* read so far */
	uint64_t		records;
};

/*
 * Called for each record, which is valid (kp_record__check()) and
 * contiguous, until the call returns.  Return 0 or a negative errno with
 * @err set.
 */
typedef int (*kp_ring_fn)(const struct kprof_record_header *rec, unsigned int cpu,
			  void *arg, struct kp_err *err);

/*
 * Called with @len bytes at @p: @nr whole records, in order, that @fn
 * took, contiguous in memory (in the mapping, or one wrapped record in
 * the bounce buffer), before the tail gives their space back.  Return 0
 * or a negative errno with @err set.
 */
typedef int (*kp_ring_span_fn)(const void *p, size_t len, unsigned int nr, unsigned int cpu,
			       void *arg, struct kp_err *err);

/*
 * Set @r up for the @len bytes at @base, CPU @cpu's mapping, after checking
 * its control page: version, size, CPU, @session_id (unless 0), data_offset
 * and data_size.  @bounce: a buffer of KP_RECORD_MAX_SIZE bytes for the
 * records that wrap around the end of the data area.
 */
int kp_ring__init(struct kp_ring *r, unsigned int cpu, void *base, size_t len,
		  uint64_t session_id, unsigned char *bounce, struct kp_err *err);

/*
 * Read the records between data_tail and data_head (load-acquire of the
 * head, then the records, then a store-release of the tail), passing each
 * to @fn.  The tail moves on after every eighth of the buffer handed over,
 * so the kernel can reuse space during a long read.  A record that is not
 * valid (header size not a multiple of 8, shorter than its layout, beyond
 * the head, an unknown type, ...) or a head behind the tail is fatal:
 * -EBADMSG with @err naming the CPU and offset.  On any error the tail
 * ends after the last record @fn took.  Returns the bytes read, or a
 * negative errno.
 */
int64_t kp_ring__read(struct kp_ring *r, const struct kp_record_ctx *ctx, kp_ring_fn fn,
		      void *arg, struct kp_err *err);
/*
 * The same, and the records @fn took also to @span_fn (may be NULL) in
 * spans as long as the mapping allows: a writer of whole records (record)
 * copies them from the mapping in one write.  The tail ends after the
 * records both took.
 */
int64_t kp_ring__read_spans(struct kp_ring *r, const struct kp_record_ctx *ctx, kp_ring_fn fn,
			    kp_ring_span_fn span_fn, void *arg, struct kp_err *err);

/* Bytes waiting in @r. */
uint64_t kp_ring__pending(const struct kp_ring *r);

/* The buffers of a session. */
struct kp_rings {
	int		fd;			/* /dev/kprof */
	unsigned int	nr;			/* mapped buffers */
	unsigned int	nr_skipped;		/* CPUs without a buffer */
	unsigned int	nr_cpus;		/* CPUs that may have one */
	unsigned int	nr_added;		/* mapped after the open */
	uint64_t	stride;
	uint64_t	session_id;
	struct kp_ring	*rings;
	unsigned char	*bounce;
};

/*
 * Open kp_device_path and map the buffer of each CPU of @info: the stride
 * bytes at offset cpu * stride.  A CPU whose mmap fails with ENODEV or ENXIO
 * has no buffer and is skipped.
 */
int kp_rings__open(struct kp_rings *rs, const struct kp_start_info *info,
		   struct kp_err *err);
/*
 * After poll() said POLLPRI (ABI 1.13: a CPU came up and the session gave
 * it a buffer): acknowledge with KPROF_IOC_RINGS and map the buffers of
 * the CPUs not mapped yet.  Return: the buffers mapped, or a negative
 * errno with @err set.
 */
int kp_rings__rescan(struct kp_rings *rs, struct kp_err *err);
void kp_rings__close(struct kp_rings *rs);

/* Read every buffer once; returns the bytes read or a negative errno. */
int64_t kp_rings__read(struct kp_rings *rs, const struct kp_record_ctx *ctx, kp_ring_fn fn,
		       void *arg, struct kp_err *err);
int64_t kp_rings__read_spans(struct kp_rings *rs, const struct kp_record_ctx *ctx,
			     kp_ring_fn fn, kp_ring_span_fn span_fn, void *arg,
			     struct kp_err *err);

/*
 * poll() the device for @timeout_ms: returns the revents (POLLIN: some
 * buffer reached the watermark, or has data after the stop; POLLHUP: the
 * session stopped and the buffers are empty), 0 on timeout or EINTR, or a
 * negative errno.
 */
int kp_rings__poll(struct kp_rings *rs, int timeout_ms, struct kp_err *err);

#endif /* KPROFCTL_RING_H */
