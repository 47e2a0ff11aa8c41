// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.data: writer and validating reader; see data.h and
 * Documentation/kprof-data.rst.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "data.h"
#include "util.h"

#define KP_WRITE_BUF	(256U << 10)

static uint32_t align8(uint32_t n)
{
	return (n + 7) & ~7U;
}

void kp_tp_formats__exit(struct kp_tp_formats *f)
{
	unsigned int i;

	for (i = 0; i < KPROF_MAX_EVENTS; i++) {
		free(f->text[i]);
		f->text[i] = NULL;
		f->size[i] = 0;
	}
}

bool kp_tp_formats__any(const struct kp_tp_formats *f)
{
	unsigned int i;

	for (i = 0; f && i < KPROF_MAX_EVENTS; i++)
		if (f->text[i])
			return true;
	return false;
}

/*
 * Is @text (@size bytes, NUL included) a format kprof.data may hold?  NULL,
 * or what is wrong with it.  Nothing in it is trusted beyond this.
 */
static const char *tp_format__check(const char *text, uint32_t size)
{
	uint32_t i;

	if (size < 2 || size > KP_DATA_TP_FORMAT_MAX)
		return "bad size";
	if (text[size - 1])
		return "not NUL-terminated";
	for (i = 0; i < size - 1; i++) {
		unsigned char c = text[i];

		if ((c < 0x20 || c > 0x7e) && c != '\t' && c != '\n')
			return "a byte that is not printable ASCII, a tab or a newline";
	}
	return NULL;
}

/* Is format @i of @info to be written: a tracepoint's, well formed? */
static bool tp_format__stored(const struct kp_data_info *info, unsigned int i)
{
	const struct kp_tp_formats *f = info->tp_formats;

	return f && i < info->session.nr_events && f->text[i] &&
	       info->session.events[i].type == PERF_TYPE_TRACEPOINT &&
	       !tp_format__check(f->text[i], f->size[i]);
}

void kp_data_info__init(struct kp_data_info *info)
{
	struct utsname u;
	struct timespec ts;

	memset(info, 0, sizeof(*info));
	info->version = KP_DATA_VERSION;
	info->abi_version = KPROF_ABI_VERSION;
	if (!uname(&u)) {
		snprintf(info->release, sizeof(info->release), "%.127s", u.release);
		snprintf(info->hostname, sizeof(info->hostname), "%.71s", u.nodename);
		snprintf(info->machine, sizeof(info->machine), "%.23s", u.machine);
	}
	snprintf(info->kprofctl_version, sizeof(info->kprofctl_version), "%s", kprofctl_version);
	info->start_time = kp_clock_ns();
	clock_gettime(CLOCK_REALTIME, &ts);
	info->start_realtime = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- writer ---- */

struct kp_data_writer {
	int			fd;
	char			*path;
	unsigned char		*buf;
	size_t			len;
	uint64_t		offset;		/* bytes written or buffered */
	uint64_t		nr_records;
	int			error;		/* sticky write error, positive errno */
	bool			seekable;
	bool			finished;
	struct kp_data_header	hdr;
};

static int writer__error(struct kp_data_writer *w, struct kp_err *err)
{
	kp_err__set(err, w->error, "cannot write '%s': %s", w->path, strerror(w->error));
	return -w->error;
}

static int writer__flush(struct kp_data_writer *w, struct kp_err *err)
{
	size_t done = 0;
	ssize_t n;

	if (w->error)
		return writer__error(w, err);
	while (done < w->len) {
		n = write(w->fd, w->buf + done, w->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->error = n < 0 ? errno : EIO;
			return writer__error(w, err);
		}
		done += n;
	}
	w->len = 0;
	return 0;
}

static int writer__put(struct kp_data_writer *w, const void *p, size_t len,
		       struct kp_err *err)
{
	size_t n;
	int ret;

	if (w->error)
		return writer__error(w, err);
	while (len) {
		if (w->len == KP_WRITE_BUF) {
			ret = writer__flush(w, err);
			if (ret)
				return ret;
		}
		n = KP_WRITE_BUF - w->len;
		if (n > len)
			n = len;
		memcpy(w->buf + w->len, p, n);
		w->len += n;
		w->offset += n;
		p = (const unsigned char *)p + n;
		len -= n;
	}
	return 0;
}

static int writer__pad(struct kp_data_writer *w, size_t len, struct kp_err *err)
{
	static const unsigned char zero[8];

	return len ? writer__put(w, zero, len, err) : 0;
}

static void header__from_info(struct kp_data_header *h, const struct kp_data_info *info)
{
	const struct kp_session *s = &info->session;
	uint32_t off = sizeof(*h);
	unsigned int i;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, KP_DATA_MAGIC, sizeof(h->magic));
	h->version = info->version >= KP_DATA_VERSION && info->version <= KP_DATA_VERSION_MAX ?
		     info->version : KP_DATA_VERSION;
	h->nr_cpus = info->nr_cpus;
	h->session_id = info->session_id;
	h->session_flags = s->flags;
	h->freq = s->freq;
	h->period = s->period;
	h->buffer_size = s->buffer_size;
	h->stack_depth = s->stack_depth;
	h->start_time = info->start_time;
	h->start_realtime = info->start_realtime;
	h->abi_version = info->abi_version;
	h->nr_events = s->nr_events;
	h->events_offset = off;
	off += s->nr_events * sizeof(struct kp_data_event);
	h->nr_pids = s->nr_pids;
	h->pids_offset = off;
	off += align8(s->nr_pids * sizeof(uint32_t));
	h->cpus_bytes = s->cpus_bytes;
	h->cpus_offset = off;
	off += align8(s->cpus_bytes);
	h->cmdline_size = strnlen(info->cmdline, sizeof(info->cmdline) - 1) + 1;
	h->cmdline_offset = off;
	off += align8(h->cmdline_size);
	for (i = 0; i < KPROF_MAX_EVENTS; i++)
		if (tp_format__stored(info, i))
			h->tp_formats_size += sizeof(struct kp_data_tp_format) +
					      align8(info->tp_formats->size[i]);
	if (h->tp_formats_size) {
		h->tp_formats_offset = off;
		off += h->tp_formats_size;
		if (h->version < KP_DATA_VERSION_TP)
			h->version = KP_DATA_VERSION_TP;
	}
	if (info->vdso && info->vdso_size && info->vdso_size <= KP_DATA_VDSO_MAX) {
		h->vdso_size = info->vdso_size;
		h->vdso_offset = off;
		off += align8(h->vdso_size);
		if (h->version < KP_DATA_VERSION_VDSO)
			h->version = KP_DATA_VERSION_VDSO;
	}
	h->header_size = off;
	snprintf(h->release, sizeof(h->release), "%s", info->release);
	snprintf(h->hostname, sizeof(h->hostname), "%s", info->hostname);
	snprintf(h->machine, sizeof(h->machine), "%s", info->machine);
	snprintf(h->kprofctl_version, sizeof(h->kprofctl_version), "%s", info->kprofctl_version);
	snprintf(h->module_release, sizeof(h->module_release), "%s", info->module_release);
}

static int writer__header(struct kp_data_writer *w, const struct kp_data_info *info,
			  struct kp_err *err)
{
	const struct kp_session *s = &info->session;
	struct kp_data_event ev;
	uint32_t i;
	int ret;

	header__from_info(&w->hdr, info);
	ret = writer__put(w, &w->hdr, sizeof(w->hdr), err);
	for (i = 0; !ret && i < s->nr_events; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.type = s->events[i].type;
		ev.flags = s->events[i].flags;
		ev.config = s->events[i].config;
		memcpy(ev.name, s->events[i].name, sizeof(ev.name));
		ev.name[sizeof(ev.name) - 1] = '\0';
		ret = writer__put(w, &ev, sizeof(ev), err);
	}
	if (!ret)
		ret = writer__put(w, s->pids, s->nr_pids * sizeof(uint32_t), err);
	if (!ret)
		ret = writer__pad(w, align8(s->nr_pids * 4) - s->nr_pids * 4, err);
	if (!ret)
		ret = writer__put(w, s->cpus, s->cpus_bytes, err);
	if (!ret)
		ret = writer__pad(w, align8(s->cpus_bytes) - s->cpus_bytes, err);
	if (!ret)
		ret = writer__put(w, info->cmdline, w->hdr.cmdline_size - 1, err);
	if (!ret)
		ret = writer__pad(w, align8(w->hdr.cmdline_size) - (w->hdr.cmdline_size - 1), err);
	for (i = 0; !ret && i < KPROF_MAX_EVENTS; i++) {
		struct kp_data_tp_format tf = { .event = i };

		if (!tp_format__stored(info, i))
			continue;
		tf.size = info->tp_formats->size[i];
		ret = writer__put(w, &tf, sizeof(tf), err);
		if (!ret)
			ret = writer__put(w, info->tp_formats->text[i], tf.size, err);
		if (!ret)
			ret = writer__pad(w, align8(tf.size) - tf.size, err);
	}
	if (!ret && w->hdr.vdso_size) {
		ret = writer__put(w, info->vdso, w->hdr.vdso_size, err);
		if (!ret)
			ret = writer__pad(w, align8(w->hdr.vdso_size) - w->hdr.vdso_size, err);
	}
	return ret;
}

struct kp_data_writer *kp_data_writer__create(const char *path,
					      const struct kp_data_info *info,
					      struct kp_err *err)
{
	struct kp_data_writer *w;
	char old[4096];
	struct stat st;

	if (info->session.nr_events > KPROF_MAX_EVENTS || info->session.nr_pids > KPROF_MAX_PIDS ||
	    info->session.cpus_bytes > KPROF_MAX_CPUS_BYTES) {
		kp_err__set(err, EINVAL, "bad session for '%s'", path);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	w->fd = -1;
	w->buf = malloc(KP_WRITE_BUF);
	w->path = strdup(path);
	if (!w->buf || !w->path) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_free;
	}

	/* Keep the previous recording, as perf does. */
	if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size &&
	    snprintf(old, sizeof(old), "%s.old", path) < (int)sizeof(old))
		rename(path, old);

	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w->fd < 0) {
		kp_err__set(err, errno, "cannot create '%s': %s", path, strerror(errno));
		goto out_free;
	}
	w->seekable = !fstat(w->fd, &st) && S_ISREG(st.st_mode);
	if (writer__header(w, info, err) || writer__flush(w, err))
		goto out_free;
	return w;

out_free:
	kp_data_writer__delete(w);
	return NULL;
}

int kp_data_writer__write(struct kp_data_writer *w, const struct kprof_record_header *rec,
			  struct kp_err *err)
{
	int ret;

	ret = writer__put(w, rec, rec->size, err);
	if (!ret)
		w->nr_records++;
	return ret;
}

/* write(2) all of @p, or the sticky error. */
static int writer__write_all(struct kp_data_writer *w, const void *p, size_t len,
			     struct kp_err *err)
{
	ssize_t n;

	while (len) {
		n = write(w->fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			w->error = n < 0 ? errno : EIO;
			return writer__error(w, err);
		}
		p = (const unsigned char *)p + n;
		len -= n;
	}
	return 0;
}

int kp_data_writer__write_span(struct kp_data_writer *w, const void *p, size_t len,
			       unsigned int nr, struct kp_err *err)
{
	int ret;

	if (w->error)
		return writer__error(w, err);
	/* small spans are buffered; large ones go out from where they are */
	if (len < KP_WRITE_BUF / 4) {
		ret = writer__put(w, p, len, err);
	} else {
		ret = writer__flush(w, err);
		if (!ret)
			ret = writer__write_all(w, p, len, err);
		if (!ret)
			w->offset += len;
	}
	if (!ret)
		w->nr_records += nr;
	return ret;
}

int kp_data_writer__finish(struct kp_data_writer *w, uint64_t end_time, uint64_t wakeups,
			   struct kp_err *err)
{
	struct kp_rec_finished fin = {
		.header = { .type = KP_DATA_REC_FINISHED, .size = sizeof(fin) },
		.time = end_time,
		.nr_records = w->nr_records,
		.data_size = w->offset - w->hdr.header_size,
		.wakeups = wakeups,
	};
	ssize_t n;
	int ret;

	ret = writer__put(w, &fin, sizeof(fin), err);
	if (!ret)
		ret = writer__flush(w, err);
	if (ret)
		return ret;
	w->finished = true;
	if (w->seekable) {
		w->hdr.flags |= KP_DATA_F_FINISHED;
		w->hdr.end_time = end_time;
		w->hdr.data_size = w->offset - w->hdr.header_size;
		n = pwrite(w->fd, &w->hdr, sizeof(w->hdr), 0);
		if (n != (ssize_t)sizeof(w->hdr)) {
			w->error = n < 0 ? errno : EIO;
			return writer__error(w, err);
		}
	}
	if (close(w->fd)) {
		w->fd = -1;
		w->error = errno;
		return writer__error(w, err);
	}
	w->fd = -1;
	return 0;
}

int kp_data_writer__raise_version(struct kp_data_writer *w, uint32_t version, struct kp_err *err)
{
	uint32_t v = version;

	if (w->hdr.version >= version)
		return 0;
	if (!w->seekable || w->finished) {
		kp_err__set(err, ESPIPE, "'%s': cannot raise its format version to %u", w->path,
			    version);
		return -ESPIPE;
	}
	if (pwrite(w->fd, &v, sizeof(v), offsetof(struct kp_data_header, version)) != sizeof(v)) {
		w->error = errno ? errno : EIO;
		return writer__error(w, err);
	}
	w->hdr.version = version;
	return 0;
}

int kp_data_writer__flush(struct kp_data_writer *w, struct kp_err *err)
{
	return writer__flush(w, err);
}

uint64_t kp_data_writer__bytes(const struct kp_data_writer *w)
{
	return w->offset;
}

uint64_t kp_data_writer__records(const struct kp_data_writer *w)
{
	return w->nr_records;
}

void kp_data_writer__delete(struct kp_data_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		/* Keep what can be kept of an unfinished file. */
		if (!w->error && w->len) {
			struct kp_err ignored;

			writer__flush(w, &ignored);
		}
		close(w->fd);
	}
	free(w->buf);
	free(w->path);
	free(w);
}

/* ---- reader ---- */

struct kp_data {
	FILE			*fp;
	char			*path;
	struct kp_data_info	info;
	uint64_t		file_size;
	uint64_t		offset;		/* of the next record */
	uint64_t		pos;		/* of the stream */
	uint64_t		nr_records;
	bool			finished;	/* the FINISHED record was read */
	struct kp_record_ctx	ctx;
	unsigned char		*rec;		/* KP_RECORD_MAX_SIZE, 8-aligned */
	struct kp_tp_formats	tp;
	void			*vdso;		/* the vDSO image, or NULL */
	uint32_t		vdso_size;
};

int kp_data__corrupt(const char *path, struct kp_err *err, uint64_t off, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	kp_err__set(err, EBADMSG, "'%s' is corrupt at byte offset %" PRIu64 " (0x%" PRIx64 "): %s",
		    path, off, off, why);
	return -EBADMSG;
}

/*
 * Read @len bytes at @off; a short read is corruption (truncation) of the
 * @what starting at @start.
 */
static int read_part(struct kp_data *d, void *buf, size_t len, uint64_t off, uint64_t start,
		     size_t done, const char *what, struct kp_err *err)
{
	size_t n;

	/* Records are read in order: seek only to the header's sections. */
	if (d->pos != off) {
		if (fseeko(d->fp, off, SEEK_SET)) {
			kp_err__set(err, errno, "cannot read '%s': %s", d->path, strerror(errno));
			return -EIO;
		}
		d->pos = off;
	}
	n = fread(buf, 1, len, d->fp);
	d->pos += n;
	if (n == len)
		return 0;
	if (ferror(d->fp)) {
		kp_err__set(err, EIO, "cannot read '%s': %s", d->path, strerror(errno));
		return -EIO;
	}
	return kp_data__corrupt(d->path, err, start, "file truncated in the %s (%zu of %zu bytes)", what,
		       done + n, done + len);
}

static int read_at(struct kp_data *d, void *buf, size_t len, uint64_t off, const char *what,
		   struct kp_err *err)
{
	return read_part(d, buf, len, off, off, 0, what, err);
}

#define STR_FIELD(h, d, field, err)						\
	(memchr((h)->field, '\0', sizeof((h)->field)) ? 0 :			\
	 kp_data__corrupt((d)->path, (err), offsetof(struct kp_data_header, field),		\
		 "header field '" #field "' is not NUL-terminated"))

/* Is the section [@off, @off + @len) within the header, after the fixed part? */
static bool section_ok(const struct kp_data_header *h, uint32_t off, uint64_t len)
{
	return off >= sizeof(*h) && off % 8 == 0 && off <= h->header_size &&
	       len <= h->header_size - off;
}

static int header__check(struct kp_data *d, const struct kp_data_header *h, struct kp_err *err)
{
	static const uint64_t zero[12];
	int ret;

	if (memcmp(h->magic, KP_DATA_MAGIC, sizeof(h->magic)))
		return kp_data__corrupt(d->path, err, 0, "not a kprof.data file (bad magic)");
	if (h->version < KP_DATA_VERSION || h->version > KP_DATA_VERSION_MAX) {
		kp_err__set(err, EPROTO,
			    "'%s' has format version %u; this kprofctl reads versions %u to %u",
			    d->path, h->version, KP_DATA_VERSION, KP_DATA_VERSION_MAX);
		return -EPROTO;
	}
	if (h->header_size < sizeof(*h) || h->header_size % 8 || h->header_size > KP_DATA_HEADER_MAX)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, header_size),
			       "bad header size %u", h->header_size);
	if (h->header_size > d->file_size)
		return kp_data__corrupt(d->path, err, d->file_size, "file truncated in the header (%" PRIu64
			       " of %u bytes)", d->file_size, h->header_size);
	if (h->flags & ~KP_DATA_F_ALL)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, flags),
			       "unknown flags 0x%x", h->flags);
	if (!h->nr_cpus || h->nr_cpus > KP_CPUMAP_MAX_CPUS)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, nr_cpus),
			       "bad number of CPUs %u", h->nr_cpus);
	if (!h->nr_events || h->nr_events > KPROF_MAX_EVENTS ||
	    !section_ok(h, h->events_offset, (uint64_t)h->nr_events * sizeof(struct kp_data_event)))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, nr_events),
			       "bad event table: %u events at %u", h->nr_events, h->events_offset);
	if (h->nr_pids > KPROF_MAX_PIDS || !section_ok(h, h->pids_offset, h->nr_pids * 4ULL))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, nr_pids),
			       "bad PID list: %u PIDs at %u", h->nr_pids, h->pids_offset);
	if (h->cpus_bytes > KPROF_MAX_CPUS_BYTES || h->cpus_bytes % 8 ||
	    !section_ok(h, h->cpus_offset, h->cpus_bytes))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, cpus_bytes),
			       "bad CPU bitmap: %u bytes at %u", h->cpus_bytes, h->cpus_offset);
	if (!h->cmdline_size || h->cmdline_size > KP_CMDLINE_MAX ||
	    !section_ok(h, h->cmdline_offset, h->cmdline_size))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, cmdline_size),
			       "bad command line: %u bytes at %u", h->cmdline_size,
			       h->cmdline_offset);
	if (!h->stack_depth || h->stack_depth > KPROF_MAX_STACK_DEPTH)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, stack_depth),
			       "bad stack depth %u", h->stack_depth);
	if ((h->flags & KP_DATA_F_FINISHED) && h->data_size != d->file_size - h->header_size)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, data_size),
			       "the header says %" PRIu64 " bytes of records, the file has %" PRIu64,
			       h->data_size, d->file_size - h->header_size);
	if (h->__reserved_0 || memcmp(h->__reserved_1, zero, sizeof(h->__reserved_1)))
		return kp_data__corrupt(d->path, err, h->__reserved_0 ? offsetof(struct kp_data_header, __reserved_0) :
			       offsetof(struct kp_data_header, __reserved_1),
			       "reserved header fields are not zero");
	if (h->version < KP_DATA_VERSION_TP && (h->tp_formats_size || h->tp_formats_offset))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, tp_formats_size),
			       "reserved header fields are not zero");
	if (h->tp_formats_size &&
	    (h->tp_formats_size % 8 || !section_ok(h, h->tp_formats_offset, h->tp_formats_size)))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, tp_formats_size),
			       "bad tracepoint formats section: %u bytes at %u", h->tp_formats_size,
			       h->tp_formats_offset);
	if (!h->tp_formats_size && h->tp_formats_offset)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, tp_formats_offset),
			       "bad tracepoint formats section: 0 bytes at %u", h->tp_formats_offset);
	if (h->version < KP_DATA_VERSION_VDSO && (h->vdso_size || h->vdso_offset))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, vdso_size),
			       "reserved header fields are not zero");
	if (h->vdso_size && (h->vdso_size > KP_DATA_VDSO_MAX ||
			     !section_ok(h, h->vdso_offset, align8(h->vdso_size))))
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, vdso_size),
			       "bad vDSO image section: %u bytes at %u", h->vdso_size,
			       h->vdso_offset);
	if (!h->vdso_size && h->vdso_offset)
		return kp_data__corrupt(d->path, err, offsetof(struct kp_data_header, vdso_offset),
			       "bad vDSO image section: 0 bytes at %u", h->vdso_offset);
	ret = STR_FIELD(h, d, release, err);
	if (!ret)
		ret = STR_FIELD(h, d, hostname, err);
	if (!ret)
		ret = STR_FIELD(h, d, machine, err);
	if (!ret)
		ret = STR_FIELD(h, d, kprofctl_version, err);
	if (!ret)
		ret = STR_FIELD(h, d, module_release, err);
	return ret;
}

/* The tracepoint formats section of @h, checked entry by entry. */
static int tp_formats__read(struct kp_data *d, const struct kp_data_header *h,
			    struct kp_err *err)
{
	const struct kp_session *s = &d->info.session;
	uint32_t pos = 0, size = h->tp_formats_size;
	unsigned char *buf;
	int next = 0, ret;

	if (!size)
		return 0;
	buf = malloc(size);
	if (!buf) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = read_at(d, buf, size, h->tp_formats_offset, "tracepoint formats", err);
	while (!ret && pos < size) {
		uint64_t off = (uint64_t)h->tp_formats_offset + pos;
		struct kp_data_tp_format e;
		const char *why;
		uint32_t i, room;

		memcpy(&e, buf + pos, sizeof(e));
		room = size - pos - sizeof(e);
		if (e.event >= s->nr_events || (int)e.event < next) {
			ret = kp_data__corrupt(d->path, err, off, "tracepoint format of bad event %u", e.event);
			break;
		}
		if (s->events[e.event].type != PERF_TYPE_TRACEPOINT) {
			ret = kp_data__corrupt(d->path, err, off, "tracepoint format of event %u, not a tracepoint",
				      e.event);
			break;
		}
		if (e.size > room || align8(e.size) > room) {
			ret = kp_data__corrupt(d->path, err, off, "tracepoint format of event %u: %u bytes past the section",
				      e.event, e.size);
			break;
		}
		why = tp_format__check((const char *)buf + pos + sizeof(e), e.size);
		for (i = e.size; !why && i < align8(e.size); i++)
			if (buf[pos + sizeof(e) + i])
				why = "padding not zero";
		if (why) {
			ret = kp_data__corrupt(d->path, err, off, "tracepoint format of event %u: %s", e.event, why);
			break;
		}
		d->tp.text[e.event] = malloc(e.size);
		if (!d->tp.text[e.event]) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			ret = -ENOMEM;
			break;
		}
		memcpy(d->tp.text[e.event], buf + pos + sizeof(e), e.size);
		d->tp.size[e.event] = e.size;
		next = e.event + 1;
		pos += sizeof(e) + align8(e.size);
	}
	free(buf);
	return ret;
}

static int header__read(struct kp_data *d, struct kp_err *err)
{
	struct kp_data_info *info = &d->info;
	struct kp_session *s = &info->session;
	struct kp_data_event ev;
	struct kp_data_header h;
	uint32_t i;
	int ret;

	ret = read_at(d, &h, sizeof(h), 0, "header", err);
	if (!ret)
		ret = header__check(d, &h, err);
	if (ret)
		return ret;

	info->version = h.version;
	info->header_size = h.header_size;
	info->flags = h.flags;
	info->nr_cpus = h.nr_cpus;
	info->session_id = h.session_id;
	info->start_time = h.start_time;
	info->end_time = h.end_time;
	info->start_realtime = h.start_realtime;
	info->data_size = h.data_size;
	info->abi_version = h.abi_version;
	memcpy(info->release, h.release, sizeof(h.release));
	memcpy(info->hostname, h.hostname, sizeof(h.hostname));
	memcpy(info->machine, h.machine, sizeof(h.machine));
	memcpy(info->kprofctl_version, h.kprofctl_version, sizeof(h.kprofctl_version));
	memcpy(info->module_release, h.module_release, sizeof(h.module_release));
	s->flags = h.session_flags;
	s->freq = h.freq;
	s->period = h.period;
	s->buffer_size = h.buffer_size;
	s->stack_depth = h.stack_depth;

	s->nr_events = h.nr_events;
	for (i = 0; i < h.nr_events; i++) {
		uint64_t off = h.events_offset + (uint64_t)i * sizeof(ev);

		ret = read_at(d, &ev, sizeof(ev), off, "event table", err);
		if (ret)
			return ret;
		if (!memchr(ev.name, '\0', sizeof(ev.name)))
			return kp_data__corrupt(d->path, err, off + offsetof(struct kp_data_event, name),
				       "name of event %u is not NUL-terminated", i);
		if (ev.flags & ~KPROF_EV_F_ALL)
			return kp_data__corrupt(d->path, err, off + offsetof(struct kp_data_event, flags),
				       "event %u has unknown flags 0x%x", i, ev.flags);
		s->events[i].type = ev.type;
		s->events[i].flags = ev.flags;
		s->events[i].config = ev.config;
		memcpy(s->events[i].name, ev.name, sizeof(ev.name));
	}
	s->nr_pids = h.nr_pids;
	ret = read_at(d, s->pids, h.nr_pids * 4, h.pids_offset, "PID list", err);
	if (ret)
		return ret;
	s->cpus_bytes = h.cpus_bytes;
	ret = read_at(d, s->cpus, h.cpus_bytes, h.cpus_offset, "CPU bitmap", err);
	if (ret)
		return ret;
	ret = read_at(d, info->cmdline, h.cmdline_size, h.cmdline_offset, "command line", err);
	if (ret)
		return ret;
	if (info->cmdline[h.cmdline_size - 1] ||
	    strlen(info->cmdline) != h.cmdline_size - 1)
		return kp_data__corrupt(d->path, err, h.cmdline_offset, "bad command line string");
	ret = tp_formats__read(d, &h, err);
	if (ret)
		return ret;
	if (h.vdso_size) {
		d->vdso = malloc(h.vdso_size);
		if (!d->vdso) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		d->vdso_size = h.vdso_size;
		ret = read_at(d, d->vdso, h.vdso_size, h.vdso_offset, "vDSO image", err);
		if (ret)
			return ret;
	}

	d->offset = h.header_size;
	d->ctx.nr_events = h.nr_events;
	d->ctx.max_depth = h.stack_depth;
	d->ctx.file_types = true;
	d->ctx.agg_types = h.version >= KP_DATA_VERSION_AGG;
	d->ctx.switch_types = h.version >= KP_DATA_VERSION_SWITCH;
	return 0;
}

struct kp_data *kp_data__open(const char *path, struct kp_err *err)
{
	struct kp_data *d;
	struct stat st;

	d = calloc(1, sizeof(*d));
	if (!d) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return NULL;
	}
	d->path = strdup(path);
	d->rec = aligned_alloc(8, KP_RECORD_MAX_SIZE + 8);
	if (!d->path || !d->rec) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_close;
	}
	d->fp = fopen(path, "rbe");
	if (!d->fp) {
		kp_err__set(err, errno, "cannot open '%s': %s", path, strerror(errno));
		goto out_close;
	}
	if (fstat(fileno(d->fp), &st)) {
		kp_err__set(err, errno, "cannot stat '%s': %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		kp_err__set(err, EINVAL, "'%s' is not a regular file", path);
		goto out_close;
	}
	d->file_size = st.st_size;
	if (header__read(d, err))
		goto out_close;
	return d;

out_close:
	kp_data__close(d);
	return NULL;
}

const struct kp_data_info *kp_data__info(const struct kp_data *d)
{
	return &d->info;
}

bool kp_data__finished(const struct kp_data *d)
{
	return d->finished;
}

const struct kp_tp_formats *kp_data__tp_formats(const struct kp_data *d)
{
	return &d->tp;
}

void kp_data__take_tp_formats(struct kp_data *d, struct kp_tp_formats *out)
{
	*out = d->tp;
	memset(&d->tp, 0, sizeof(d->tp));
}

const void *kp_data__vdso(const struct kp_data *d, uint32_t *size)
{
	*size = d->vdso_size;
	return d->vdso;
}

void *kp_data__take_vdso(struct kp_data *d, uint32_t *size)
{
	void *vdso = d->vdso;

	*size = d->vdso_size;
	d->vdso = NULL;
	d->vdso_size = 0;
	return vdso;
}

/*
 * The vDSO is one ELF image mapped whole: its size is where the last of
 * its headers, sections and segments ends, as its ELF header says.
 */
const void *kp_vdso__self(uint32_t *size)
{
	const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Ehdr *eh = (const void *)base;
	uint64_t end, phend;
	unsigned int i;

	*size = 0;
	if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_shentsize != sizeof(Elf64_Shdr))
		return NULL;
	phend = eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr);
	end = eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr);
	if (phend > KP_DATA_VDSO_MAX || end > KP_DATA_VDSO_MAX || eh->e_phoff % 8)
		return NULL;
	if (end < phend)
		end = phend;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff + i * sizeof(*ph));

		if (ph->p_offset > KP_DATA_VDSO_MAX || ph->p_filesz > KP_DATA_VDSO_MAX)
			return NULL;
		if (ph->p_offset + ph->p_filesz > end)
			end = ph->p_offset + ph->p_filesz;
	}
	if (end > KP_DATA_VDSO_MAX || end < sizeof(*eh))
		return NULL;
	*size = end;
	return base;
}

int kp_data__next(struct kp_data *d, const struct kprof_record_header **rec,
		  uint64_t *offset, struct kp_err *err)
{
	struct kprof_record_header *h = (void *)d->rec;
	uint64_t off = d->offset, data;
	char why[192];
	int ret;

	if (off >= d->file_size) {
		if ((d->info.flags & KP_DATA_F_FINISHED) && !d->finished)
			return kp_data__corrupt(d->path, err, off, "the file ends without its FINISHED record");
		return 0;
	}
	if (d->finished)
		return kp_data__corrupt(d->path, err, off, "data after the FINISHED record");
	ret = read_at(d, h, sizeof(*h), off, "record header", err);
	if (ret)
		return ret;
	if (h->size < sizeof(*h) || h->size % 8)
		return kp_data__corrupt(d->path, err, off, "bad record size %u (type %u)", h->size, h->type);
	ret = read_part(d, h + 1, h->size - sizeof(*h), off + sizeof(*h), off, sizeof(*h),
			kp_record__type_name(h->type) ? kp_record__type_name(h->type) : "record",
			err);
	if (ret)
		return ret;
	if (kp_record__check(h, &d->ctx, why, sizeof(why)))
		return kp_data__corrupt(d->path, err, off, "%s", why);

	data = off - d->info.header_size;
	if (h->type == KP_DATA_REC_FINISHED) {
		const struct kp_rec_finished *fin = (const void *)h;

		if (fin->nr_records != d->nr_records || fin->data_size != data)
			return kp_data__corrupt(d->path, err, off,
				       "FINISHED counts %" PRIu64 " records in %" PRIu64
				       " bytes, the file has %" PRIu64 " in %" PRIu64,
				       fin->nr_records, fin->data_size, d->nr_records, data);
		d->finished = true;
	} else {
		d->nr_records++;
	}
	d->offset = off + h->size;
	*rec = h;
	*offset = off;
	return 1;
}

void kp_data__close(struct kp_data *d)
{
	if (!d)
		return;
	if (d->fp)
		fclose(d->fp);
	kp_tp_formats__exit(&d->tp);
	free(d->vdso);
	free(d->rec);
	free(d->path);
	free(d);
}
