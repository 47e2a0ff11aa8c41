/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof.data, the file of 'kprofctl record' and 'kprofctl start'; the
 * format is described in Documentation/kprof-data.rst.
 *
 * Writing:
 *
 *	w = kp_data_writer__create(path, &info, &err);
 *	kp_data_writer__write(w, rec, &err);	for each record
 *	kp_data_writer__finish(w, end_time, &err);
 *	kp_data_writer__delete(w);
 *
 * Reading validates everything: the header, every section and every record;
 * corruption is reported as one error naming the byte offset.
 *
 *	d = kp_data__open(path, &err);
 *	while ((ret = kp_data__next(d, &rec, &offset, &err)) > 0)
 *		...
 *	kp_data__close(d);
 */
#ifndef KPROFCTL_DATA_H
#define KPROFCTL_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "error.h"
#include "record.h"
#include "session.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kprof.data is little-endian; kprofctl does not convert byte order yet"
#endif

#define KP_DATA_MAGIC		"KPROFDAT"	/* 8 bytes, no NUL */
#define KP_DATA_VERSION		1	/* what kp_data_info__init() writes */
#define KP_DATA_VERSION_AGG	2	/* a file with AGG records (aggregated profile) */
#define KP_DATA_VERSION_TP	3	/* a file with the tracepoint formats section */
#define KP_DATA_VERSION_VDSO	4	/* a file with the vDSO image section */
#define KP_DATA_VERSION_SWITCH	5	/* a file of a --switch-output series (SWITCH record) */
#define KP_DATA_VERSION_MAX	5	/* readers read versions 1 .. this */
#define KP_DATA_HEADER_MAX	(1U << 20)	/* header_size limit of readers */

/*
 * The tracepoint formats section (version 3): one entry per tracepoint
 * event of the session whose tracefs format file was read when the
 * session started, in event order.
 */
#define KP_DATA_TP_FORMAT_MAX	(16U << 10)	/* bytes of one format, NUL included */

/*
 * The vDSO image section (version 4): the ELF image of the recording
 * host's vDSO, to name user frames in [vdso] mappings.
 */
#define KP_DATA_VDSO_MAX	(64U << 10)	/* bytes */

/* kp_data_header.flags */
#define KP_DATA_F_FINISHED	(1U << 0)	/* end_time and data_size are set */
#define KP_DATA_F_ALL		0x1U

/* The fixed part of the file header, at offset 0; 512 bytes. */
struct kp_data_header {
	char		magic[8];		/* KP_DATA_MAGIC */
	uint32_t	version;		/* KP_DATA_VERSION */
	uint32_t	header_size;		/* offset of the first record */
	uint32_t	flags;			/* KP_DATA_F_* */
	uint32_t	nr_cpus;		/* per-CPU buffers of the session */
	uint64_t	session_id;
	uint32_t	session_flags;		/* KPROF_SESSION_F_* */
	uint32_t	freq;			/* samples/s, or 0 */
	uint64_t	period;			/* events/sample, or 0 */
	uint32_t	buffer_size;
	uint32_t	stack_depth;
	uint64_t	start_time;		/* CLOCK_MONOTONIC ns */
	uint64_t	end_time;		/* CLOCK_MONOTONIC ns; 0: not finished */
	uint64_t	start_realtime;		/* CLOCK_REALTIME ns at start */
	uint64_t	data_size;		/* bytes of records; 0: not finished */
	uint32_t	abi_version;		/* KPROF_ABI_VERSION of kprofctl */
	uint32_t	nr_events;
	uint32_t	events_offset;		/* nr_events struct kp_data_event */
	uint32_t	nr_pids;
	uint32_t	pids_offset;		/* nr_pids __u32 */
	uint32_t	cpus_bytes;		/* 0: all CPUs */
	uint32_t	cpus_offset;		/* CPU bitmap, __u64 words */
	uint32_t	cmdline_size;		/* NUL included */
	uint32_t	cmdline_offset;
	uint32_t	__reserved_0;
	char		release[128];		/* uname -r */
	char		hostname[72];		/* uname -n */
	char		machine[24];		/* uname -m */
	char		kprofctl_version[32];
	char		module_release[32];	/* kprof.ko's release */
	uint32_t	tp_formats_size;	/* bytes of the tracepoint formats section */
	uint32_t	tp_formats_offset;	/* (version 3; 0 and 0: none) */
	uint32_t	vdso_size;		/* bytes of the vDSO image section */
	uint32_t	vdso_offset;		/* (version 4; 0 and 0: none) */
	uint64_t	__reserved_1[10];
};

struct kp_data_event {
	uint32_t	type;			/* PERF_TYPE_* */
	uint32_t	flags;			/* KPROF_EV_F_* */
	uint64_t	config;
	char		name[KPROF_EVENT_NAME_MAX];
};

/* An entry of the tracepoint formats section, 8-byte aligned. */
struct kp_data_tp_format {
	uint32_t	event;			/* index in the event table */
	uint32_t	size;			/* of text, NUL included */
	char		text[];			/* the format file, zero-padded to 8 */
};

_Static_assert(sizeof(struct kp_data_header) == 512, "kprof.data header layout");
_Static_assert(sizeof(struct kp_data_event) == 80, "kprof.data event layout");
_Static_assert(sizeof(struct kp_data_tp_format) == 8, "kprof.data format entry layout");

/*
 * The format files (SYSTEM/EVENT/format of tracefs) of a session's
 * tracepoint events, by event index: NUL-terminated text of size[i] bytes
 * (NUL included), or NULL.  Read from a file, they are checked: at most
 * KP_DATA_TP_FORMAT_MAX bytes of printable ASCII, tabs and newlines, for
 * tracepoint events only; what they say is not (see lib/tpdecode.h).
 */
struct kp_tp_formats {
	char		*text[KPROF_MAX_EVENTS];
	uint32_t	size[KPROF_MAX_EVENTS];
};

/* Free the texts of @f (not @f itself). */
void kp_tp_formats__exit(struct kp_tp_formats *f);
/* Does @f hold a format? */
bool kp_tp_formats__any(const struct kp_tp_formats *f);

#define KP_CMDLINE_MAX		4096

/* The header in host form. */
struct kp_data_info {
	uint32_t		version;	/* written as is: 1, or 2 for AGG records */
	uint32_t		header_size;
	uint32_t		flags;
	uint32_t		nr_cpus;
	uint64_t		session_id;
	struct kp_session	session;	/* flags, freq, ..., events */
	uint64_t		start_time;
	uint64_t		end_time;
	uint64_t		start_realtime;
	uint64_t		data_size;
	uint32_t		abi_version;
	char			release[128];
	char			hostname[72];
	char			machine[24];
	char			kprofctl_version[32];
	char			module_release[32];
	char			cmdline[KP_CMDLINE_MAX];
	/*
	 * Writing: the tracepoint formats to store, or NULL (borrowed; a
	 * file with formats is version 3 at least).  Reading: always NULL;
	 * see kp_data__tp_formats().
	 */
	const struct kp_tp_formats *tp_formats;
	/*
	 * Writing: the vDSO image to store (borrowed; at most
	 * KP_DATA_VDSO_MAX bytes, else none; a file with it is version 4),
	 * or NULL.  Reading: always NULL; see kp_data__vdso().
	 */
	const void		*vdso;
	uint32_t		vdso_size;
};

/*
 * Fill the host fields of @info: kernel release, host name, machine, our
 * version and the clocks' start times.
 */
void kp_data_info__init(struct kp_data_info *info);

struct kp_data_writer;

/*
 * Create @path (an existing non-empty regular file is renamed to
 * @path.old first, as perf does) and write the header for @info.
 */
struct kp_data_writer *kp_data_writer__create(const char *path,
					      const struct kp_data_info *info,
					      struct kp_err *err);
/*
 * Append the record @rec (rec->size bytes), buffered.  Write errors,
 * ENOSPC included, are reported here or by a later call, naming the file.
 */
int kp_data_writer__write(struct kp_data_writer *w, const struct kprof_record_header *rec,
			  struct kp_err *err);
/*
 * Append @nr whole records, @len bytes at @p (a span of a buffer read by
 * kp_ring__read_spans(), already checked), as kp_data_writer__write() of
 * each would; a large span is written from @p without a copy.
 */
int kp_data_writer__write_span(struct kp_data_writer *w, const void *p, size_t len,
			       unsigned int nr, struct kp_err *err);
/*
 * Raise the format version of the file being written to @version (when
 * lower), in the header on disk at once: before writing a record of that
 * version.  -ESPIPE for an output that cannot seek (a pipe).
 */
int kp_data_writer__raise_version(struct kp_data_writer *w, uint32_t version, struct kp_err *err);
/* Write what is buffered (e.g. before a fork()). */
int kp_data_writer__flush(struct kp_data_writer *w, struct kp_err *err);
/*
 * Write the FINISHED record, flush, and set end_time, data_size and
 * KP_DATA_F_FINISHED in the header (when the file is seekable).
 */
int kp_data_writer__finish(struct kp_data_writer *w, uint64_t end_time, uint64_t wakeups,
			   struct kp_err *err);
/* Bytes written so far, header included; records so far. */
uint64_t kp_data_writer__bytes(const struct kp_data_writer *w);
uint64_t kp_data_writer__records(const struct kp_data_writer *w);
/* Close without finishing when not finished.  NULL is fine. */
void kp_data_writer__delete(struct kp_data_writer *w);

struct kp_data;

/*
 * -EBADMSG, with @err saying that file @path is corrupt at byte @off and
 * why: the one wording of every reader of kprof.data.
 */
int kp_data__corrupt(const char *path, struct kp_err *err, uint64_t off, const char *fmt, ...)
	__printf(4, 5);

/* Open and validate the header of @path. */
struct kp_data *kp_data__open(const char *path, struct kp_err *err);
const struct kp_data_info *kp_data__info(const struct kp_data *d);
/*
 * The next record, valid and 8-byte aligned, in *@rec (until the next
 * call), and its file offset in *@offset.  Returns 1, 0 at the end, or
 * -EBADMSG / -EIO with @err naming the byte offset.
 */
int kp_data__next(struct kp_data *d, const struct kprof_record_header **rec,
		  uint64_t *offset, struct kp_err *err);
/* Did the file end with a FINISHED record (after kp_data__next() returned 0)? */
bool kp_data__finished(const struct kp_data *d);
/*
 * The tracepoint formats the file holds (none before version 3), checked
 * as struct kp_tp_formats says; valid until kp_data__close(), or moved out
 * with kp_data__take_tp_formats() (which leaves @d none).
 */
const struct kp_tp_formats *kp_data__tp_formats(const struct kp_data *d);
void kp_data__take_tp_formats(struct kp_data *d, struct kp_tp_formats *out);
/*
 * The vDSO image the file holds (none before version 4): its bytes and
 * size, NULL when none.  Only its size is checked (at most
 * KP_DATA_VDSO_MAX): the bytes are whatever the file says.  Valid until
 * kp_data__close(), or moved out (malloc()ed) with kp_data__take_vdso().
 */
const void *kp_data__vdso(const struct kp_data *d, uint32_t *size);
void *kp_data__take_vdso(struct kp_data *d, uint32_t *size);
/* The image of this process's vDSO (getauxval(AT_SYSINFO_EHDR)), or NULL. */
const void *kp_vdso__self(uint32_t *size);
void kp_data__close(struct kp_data *d);

#endif /* KPROFCTL_DATA_H */
