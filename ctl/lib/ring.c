// SPDX-License-Identifier: GPL-2.0
/*
 * Reading the per-CPU buffers of /dev/kprof; see ring.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ring.h"
#include "util.h"

const char *kp_device_path = KPROF_DEVICE_PATH;

_Static_assert(sizeof(struct kprof_mmap_page) == 1152, "control page layout");
_Static_assert(offsetof(struct kprof_mmap_page, data_head) == 1024, "control page layout");

int kp_ring__init(struct kp_ring *r, unsigned int cpu, void *base, size_t len,
		  uint64_t session_id, unsigned char *bounce, struct kp_err *err)
{
	struct kprof_mmap_page *page = base;
	uint64_t off, size;

	memset(r, 0, sizeof(*r));
	if (len < sizeof(*page)) {
		kp_err__set(err, EBADMSG, "CPU %u: mapping of %zu bytes is smaller than the control page",
			    cpu, len);
		return -EBADMSG;
	}
	if (page->compat_version > KPROF_MMAP_VERSION || !page->version) {
		kp_err__set(err, EPROTO,
			    "CPU %u: control page version %u (compatible with %u) is not supported; kprofctl reads version %u",
			    cpu, page->version, page->compat_version, KPROF_MMAP_VERSION);
		return -EPROTO;
	}
	off = page->data_offset;
	size = page->data_size;
	if (page->size < sizeof(*page) || page->cpu != cpu ||
	    (session_id && page->session_id != session_id) ||
	    size < 8 || size & (size - 1) || off < page->size || off % 8 ||
	    off > len || size > len - off) {
		kp_err__set(err, EBADMSG,
			    "CPU %u: bad control page: size %u, cpu %u, session %" PRIu64
			    ", data at %" PRIu64 " of %" PRIu64 " bytes in a %zu-byte mapping",
			    cpu, page->size, page->cpu, (uint64_t)page->session_id, off, size, len);
		return -EBADMSG;
	}
	r->cpu = cpu;
	r->page = page;
	r->data = (const unsigned char *)base + off;
	r->data_size = size;
	r->bounce = bounce;
	return 0;
}

uint64_t kp_ring__pending(const struct kp_ring *r)
{
	return __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED);
}

static int corrupt(struct kp_ring *r, uint64_t pos, const char *why, struct kp_err *err)
{
	kp_err__set(err, EBADMSG,
		    "CPU %u: corrupt buffer at offset %" PRIu64 " (position %" PRIu64 "): %s",
		    r->cpu, pos & (r->data_size - 1), pos, why);
	return -EBADMSG;
}

/* The records handed over to @fn since the last span, as one: to @span_fn. */
struct span {
	kp_ring_span_fn		fn;
	const unsigned char	*p;
	size_t			len;
	unsigned int		nr;
};

static int span__flush(struct span *sp, unsigned int cpu, void *arg, struct kp_err *err)
{
	int ret = 0;

	if (sp->fn && sp->len)
		ret = sp->fn(sp->p, sp->len, sp->nr, cpu, arg, err);
	if (!ret) {
		sp->len = 0;
		sp->nr = 0;
	}
	return ret;
}

/* Add @rec of @size bytes to the span: it must follow it in memory, else a new one. */
static int span__add(struct span *sp, const void *rec, size_t size, unsigned int cpu,
		     void *arg, struct kp_err *err)
{
	int ret;

	if (!sp->fn)
		return 0;
	if (sp->len && sp->p + sp->len != rec) {
		ret = span__flush(sp, cpu, arg, err);
		if (ret)
			return ret;
	}
	if (!sp->len)
		sp->p = rec;
	sp->len += size;
	sp->nr++;
	return 0;
}

int64_t kp_ring__read(struct kp_ring *r, const struct kp_record_ctx *ctx, kp_ring_fn fn,
		      void *arg, struct kp_err *err)
{
	return kp_ring__read_spans(r, ctx, fn, NULL, arg, err);
}

int64_t kp_ring__read_spans(struct kp_ring *r, const struct kp_record_ctx *ctx, kp_ring_fn fn,
			    kp_ring_span_fn span_fn, void *arg, struct kp_err *err)
{
	struct kprof_record_header hdr;
	const struct kprof_record_header *rec;
	uint64_t head, tail, start, off, size, first, released;
	struct kp_record_ctx kctx = *ctx;
	struct span sp = { .fn = span_fn };
	char why[160];
	int ret;

	kctx.file_types = false;
	/* C, matches the kernel's B: the records are read after the head. */
	head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	/* Only this reader writes data_tail. */
	tail = start = __atomic_load_n(&r->page->data_tail, __ATOMIC_RELAXED);
	released = tail;

	if (head < tail) {
		snprintf(why, sizeof(why), "data_head %" PRIu64 " is behind data_tail %" PRIu64,
			 head, tail);
		return corrupt(r, tail, why, err);
	}
	if (head - tail > r->data_size) {
		snprintf(why, sizeof(why), "data_head %" PRIu64 " is %" PRIu64
			 " bytes ahead of data_tail, more than the %" PRIu64 "-byte buffer",
			 head, head - tail, r->data_size);
		return corrupt(r, tail, why, err);
	}
	if (tail % 8)
		return corrupt(r, tail, "data_tail is not 8-byte aligned", err);

	ret = 0;
	while (tail < head) {
		off = tail & (r->data_size - 1);
		if (head - tail < sizeof(hdr)) {
			ret = corrupt(r, tail, "torn record header before data_head", err);
			break;
		}
		/* 8-byte aligned in a power-of-two area: a header never wraps. */
		memcpy(&hdr, r->data + off, sizeof(hdr));
		size = hdr.size;
		if (size < sizeof(hdr) || size % 8 || size > r->data_size) {
			snprintf(why, sizeof(why), "bad record size %" PRIu64 " (type %u)", size,
				 hdr.type);
			ret = corrupt(r, tail, why, err);
			break;
		}
		if (size > head - tail) {
			snprintf(why, sizeof(why), "record of %" PRIu64
				 " bytes runs past data_head (%" PRIu64 " bytes left)",
				 size, head - tail);
			ret = corrupt(r, tail, why, err);
			break;
		}
		if (off + size > r->data_size) {
			/* Wraps around the end: make it contiguous. */
			first = r->data_size - off;
			memcpy(r->bounce, r->data + off, first);
			memcpy(r->bounce + first, r->data, size - first);
			rec = (const void *)r->bounce;
			/* a span of its own: the bounce buffer is reused */
			ret = span__flush(&sp, r->cpu, arg, err);
			if (ret)
				break;
		} else {
			rec = (const void *)(r->data + off);
		}
		/* ctx->file_types is ignored: the kernel writes only its own. */
		if (kp_record__check(rec, &kctx, why, sizeof(why))) {
			ret = corrupt(r, tail, why, err);
			break;
		}
		ret = fn(rec, r->cpu, arg, err);
		if (!ret)
			ret = span__add(&sp, rec, size, r->cpu, arg, err);
		if (!ret && rec == (const void *)r->bounce)
			ret = span__flush(&sp, r->cpu, arg, err);
		if (ret)
			break;
		tail += size;
		r->records++;
		/*
		 * Give space back as we go, not only at the end: a writer that
		 * keeps producing while a large backlog is copied out then
		 * fills freed space instead of losing samples.  The span's
		 * records first: their bytes are in that space.
		 */
		if (tail - released >= r->data_size / 8) {
			ret = span__flush(&sp, r->cpu, arg, err);
			if (ret)
				break;
			__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
			released = tail;
		}
	}
	/*
	 * The last span before the tail moves.  After an error, the tail
	 * covers only what the span function took: a span it did not take
	 * stays in the buffer.
	 */
	if (!ret)
		ret = span__flush(&sp, r->cpu, arg, err);
	if (ret)
		tail -= sp.len;

	/*
	 * D, matches the kernel's A: the records were read before the tail
	 * moves.  On an error, past the records handed over and no further.
	 */
	__atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
	r->bytes += tail - start;
	return ret ? ret : (int64_t)(tail - start);
}

/* Map @cpu's buffer: 1 when mapped, 0 when it has none, or -errno. */
static int map_cpu(struct kp_rings *rs, unsigned int cpu, struct kp_err *err)
{
	struct kp_ring *r;
	void *map;
	int ret;

	map = mmap(NULL, rs->stride, PROT_READ | PROT_WRITE, MAP_SHARED, rs->fd,
		   (off_t)cpu * rs->stride);
	if (map == MAP_FAILED) {
		ret = -errno;
		if (ret == -ENODEV || ret == -ENXIO) {
			kp_pr_debug("CPU %u has no buffer: %s", cpu, strerror(-ret));
			return 0;
		}
		kp_err__set(err, -ret, "cannot map the buffer of CPU %u (%" PRIu64
			    " bytes at offset %" PRIu64 "): %s", cpu, rs->stride,
			    cpu * rs->stride, strerror(-ret));
		return ret;
	}
	r = &rs->rings[rs->nr];
	ret = kp_ring__init(r, cpu, map, rs->stride, rs->session_id, rs->bounce, err);
	if (ret) {
		munmap(map, rs->stride);
		return ret;
	}
	r->map = map;
	r->map_len = rs->stride;
	rs->nr++;
	return 1;
}

static bool cpu_mapped(const struct kp_rings *rs, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (rs->rings[i].cpu == cpu)
			return true;
	return false;
}

int kp_rings__rescan(struct kp_rings *rs, struct kp_err *err)
{
	uint64_t seq;
	unsigned int cpu;
	int ret, n = 0;

	if (ioctl(rs->fd, KPROF_IOC_RINGS, &seq)) {
		ret = -errno;
		kp_err__set(err, -ret, "cannot ask %s for new buffers: %s", kp_device_path,
			    strerror(-ret));
		return ret;
	}
	for (cpu = 0; cpu < rs->nr_cpus && rs->nr < rs->nr_cpus; cpu++) {
		if (cpu_mapped(rs, cpu))
			continue;
		ret = map_cpu(rs, cpu, err);
		if (ret < 0)
			return ret;
		if (ret) {
			kp_pr_debug("CPU %u came up: its buffer is mapped", cpu);
			rs->nr_skipped--;
			rs->nr_added++;
			n++;
		}
	}
	return n;
}

int kp_rings__open(struct kp_rings *rs, const struct kp_start_info *info,
		   struct kp_err *err)
{
	unsigned int cpu;
	int ret;

	memset(rs, 0, sizeof(*rs));
	rs->fd = -1;
	if (info->mmap_stride > SIZE_MAX / info->nr_cpus) {
		kp_err__set(err, EOVERFLOW, "mmap stride %" PRIu64 " is too large",
			    info->mmap_stride);
		return -EOVERFLOW;
	}
	rs->rings = calloc(info->nr_cpus, sizeof(*rs->rings));
	rs->bounce = aligned_alloc(8, KP_RECORD_MAX_SIZE + 8);
	if (!rs->rings || !rs->bounce) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out_close;
	}
	rs->fd = open(kp_device_path, O_RDWR | O_CLOEXEC);
	if (rs->fd < 0) {
		ret = -errno;
		kp_err__set(err, -ret, "cannot open %s: %s", kp_device_path, strerror(-ret));
		goto out_close;
	}
	/*
	 * ABI 1.10: the rings of this session, whatever others run beside it;
	 * an older module has no bind (ENOTTY) and maps its only session.
	 */
	if (info->session_id && ioctl(rs->fd, KPROF_IOC_BIND, &info->session_id) &&
	    errno != ENOTTY) {
		ret = -errno;
		kp_err__set(err, -ret, "cannot bind %s to session %" PRIu64 ": %s",
			    kp_device_path, info->session_id, strerror(-ret));
		goto out_close;
	}

	rs->nr_cpus = info->nr_cpus;
	rs->stride = info->mmap_stride;
	rs->session_id = info->session_id;
	for (cpu = 0; cpu < info->nr_cpus; cpu++) {
		ret = map_cpu(rs, cpu, err);
		if (ret < 0)
			goto out_close;
		rs->nr_skipped += !ret;
	}
	if (!rs->nr) {
		kp_err__set(err, ENODEV, "no CPU has a buffer in %s", kp_device_path);
		ret = -ENODEV;
		goto out_close;
	}
	return 0;

out_close:
	kp_rings__close(rs);
	return ret;
}

void kp_rings__close(struct kp_rings *rs)
{
	unsigned int i;

	for (i = 0; i < rs->nr; i++)
		if (rs->rings[i].map)
			munmap(rs->rings[i].map, rs->rings[i].map_len);
	/* A zeroed, never opened struct has no descriptor: fd 0 is not ours. */
	if (rs->fd >= 0 && rs->rings)
		close(rs->fd);
	free(rs->rings);
	free(rs->bounce);
	memset(rs, 0, sizeof(*rs));
	rs->fd = -1;
}

int64_t kp_rings__read(struct kp_rings *rs, const struct kp_record_ctx *ctx, kp_ring_fn fn,
		       void *arg, struct kp_err *err)
{
	return kp_rings__read_spans(rs, ctx, fn, NULL, arg, err);
}

int64_t kp_rings__read_spans(struct kp_rings *rs, const struct kp_record_ctx *ctx,
			     kp_ring_fn fn, kp_ring_span_fn span_fn, void *arg,
			     struct kp_err *err)
{
	int64_t total = 0, n;
	unsigned int i;

	for (i = 0; i < rs->nr; i++) {
		n = kp_ring__read_spans(&rs->rings[i], ctx, fn, span_fn, arg, err);
		if (n < 0)
			return n;
		total += n;
	}
	return total;
}

int kp_rings__poll(struct kp_rings *rs, int timeout_ms, struct kp_err *err)
{
	struct pollfd pfd = { .fd = rs->fd, .events = POLLIN | POLLPRI };
	int ret;

	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0) {
		if (errno == EINTR)
			return 0;
		ret = -errno;
		kp_err__set(err, -ret, "poll %s: %s", kp_device_path, strerror(-ret));
		return ret;
	}
	if (pfd.revents & (POLLERR | POLLNVAL)) {
		kp_err__set(err, EIO, "poll %s: error on the device", kp_device_path);
		return -EIO;
	}
	return pfd.revents;
}
