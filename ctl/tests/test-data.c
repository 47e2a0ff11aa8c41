// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/data.c: kprof.data written and read back, and the
 * reader against hostile files: truncated at every length, every byte
 * flipped, broken sections and counts.  Write errors (ENOSPC) too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "fake-nl.h"
#include "lib/data.h"
#include "lib/proto.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], path[128];

static void info_init(struct kp_data_info *info)
{
	struct kp_session *s = &info->session;

	kp_data_info__init(info);
	info->start_time = 1000;
	info->start_realtime = 1700000000000000000ULL;
	info->nr_cpus = 4;
	info->session_id = 42;
	snprintf(info->module_release, sizeof(info->module_release), "0.1.0");
	snprintf(info->cmdline, sizeof(info->cmdline), "kprofctl record -g -- ./a.out");
	s->flags = KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK |
		   KPROF_SESSION_F_INHERIT;
	s->freq = 4000;
	s->buffer_size = 1 << 20;
	s->stack_depth = 127;
	s->nr_pids = 3;
	s->pids[0] = 100;
	s->pids[1] = 200;
	s->pids[2] = 300;
	s->cpus_bytes = 8;
	s->cpus[0] = 0xd;
	s->nr_events = 2;
	s->events[0].type = PERF_TYPE_SOFTWARE;
	s->events[0].config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(s->events[0].name, sizeof(s->events[0].name), "cpu-clock");
	s->events[1].type = PERF_TYPE_HW_CACHE;
	s->events[1].config = 0x10002;
	s->events[1].flags = KPROF_EV_F_EXCLUDE_KERNEL;
	snprintf(s->events[1].name, sizeof(s->events[1].name), "LLC-load-misses:u");
}

/* Write a file with one record of each type; returns its size. */
static long write_file(const char *p, bool finish)
{
	unsigned char buf[256] __attribute__((aligned(8)));
	struct kp_rec_sample *s = (void *)buf;
	struct kp_rec_mmap *m = (void *)buf;
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_err err;
	struct stat st;
	struct kp_rec_comm c = { .header = { KPROF_RECORD_COMM, KPROF_MISC_COMM_EXEC, sizeof(c) },
				 .time = 5, .pid = 100, .tid = 101, .comm = "a.out" };
	struct kp_rec_lost l = { .header = { KPROF_RECORD_LOST, 0, sizeof(l) }, .time = 6,
				 .lost = 3, .cause = KPROF_LOST_FULL, .cpu = 2 };
	struct kp_rec_throttle t = { .header = { KPROF_RECORD_THROTTLE, 0, sizeof(t) },
				     .time = 7, .cpu = 3, .event = 1 };
	struct kp_rec_exit x = { .header = { KPROF_RECORD_EXIT, 0, sizeof(x) }, .time = 8,
				 .pid = 100, .tid = 101 };
	struct kp_rec_fork f = { .header = { KPROF_RECORD_FORK, 0, sizeof(f) }, .time = 9,
				 .pid = 102, .tid = 102, .ppid = 100, .ptid = 100 };
	struct kp_rec_synth_done sd = { .header = { KP_DATA_REC_SYNTH_DONE, 0, sizeof(sd) },
					.time = 1000, .nr_processes = 1, .nr_threads = 1,
					.nr_mmaps = 1 };
	struct {
		struct kp_rec_stats	rec;
		uint64_t		v[KP_STATS_NR];
	} stats = { .rec = { .header = { KP_DATA_REC_STATS, 0, sizeof(stats) },
			     .cpu = KP_DATA_STATS_TOTAL, .nr = KP_STATS_NR } };
	unsigned int i;
	int ret = 0;

	info_init(&info);
	w = kp_data_writer__create(p, &info, &err);
	if (!w)
		return -1;
	ret |= kp_data_writer__write(w, &c.header, &err);
	memset(buf, 0, sizeof(buf));
	m->header.type = KPROF_RECORD_MMAP;
	m->header.size = sizeof(*m) + 16;
	m->time = 5;
	m->pid = m->tid = 100;
	m->start = 0x400000;
	m->len = 0x1000;
	strcpy(m->filename, "/tmp/a.out");
	ret |= kp_data_writer__write(w, &m->header, &err);
	ret |= kp_data_writer__write(w, &sd.header, &err);
	memset(buf, 0, sizeof(buf));
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_USER;
	s->header.size = sizeof(*s) + 3 * 8;
	s->time = 10;
	s->ip = 0x401000;
	s->period = 250000;
	s->pid = 100;
	s->tid = 101;
	s->cpu = 2;
	s->event = 1;
	s->flags = KPROF_SAMPLE_F_USTACK_TRUNC;
	s->nr_kernel = 1;
	s->nr_user = 2;
	s->ips[0] = 0xffffffff81000010ULL;
	s->ips[1] = 0x401000;
	s->ips[2] = 0x402000;
	ret |= kp_data_writer__write(w, &s->header, &err);
	ret |= kp_data_writer__write(w, &l.header, &err);
	ret |= kp_data_writer__write(w, &t.header, &err);
	ret |= kp_data_writer__write(w, &f.header, &err);
	ret |= kp_data_writer__write(w, &x.header, &err);
	for (i = 0; i < KP_STATS_NR; i++)
		stats.v[i] = i + 1;
	stats.v[KP_STAT_INVOCATIONS] = 10;
	stats.v[KP_STAT_SAMPLES] = 1;
	stats.v[KP_STAT_LOST_FULL] = 3;
	stats.v[KP_STAT_LOST_TOO_BIG] = 6;
	ret |= kp_data_writer__write(w, &stats.rec.header, &err);
	if (finish)
		ret |= kp_data_writer__finish(w, 2000, 17, &err);
	kp_data_writer__delete(w);
	if (ret || stat(p, &st))
		return -1;
	return st.st_size;
}

struct readall {
	int		ret;
	unsigned int	nr;
	uint32_t	types[16];
	struct kp_err	err;
	bool		finished;
};

static void read_all(const char *p, struct readall *ra)
{
	const struct kprof_record_header *rec;
	struct kp_data *d;
	uint64_t off;

	memset(ra, 0, sizeof(*ra));
	d = kp_data__open(p, &ra->err);
	if (!d) {
		ra->ret = -1;
		return;
	}
	while ((ra->ret = kp_data__next(d, &rec, &off, &ra->err)) > 0) {
		if (ra->nr < 16)
			ra->types[ra->nr] = rec->type;
		ra->nr++;
	}
	ra->finished = kp_data__finished(d);
	kp_data__close(d);
}

static void test_round_trip(void)
{
	const struct kprof_record_header *rec;
	const struct kp_data_info *info;
	struct kp_data_info want;
	struct kp_data *d;
	struct kp_err err;
	struct readall ra;
	uint64_t off;
	long size;

	size = write_file(path, true);
	ok(size > 0, "write: %ld bytes", size);
	info_init(&want);
	d = kp_data__open(path, &err);
	ok(d, "open");
	if (!d)
		return;
	info = kp_data__info(d);
	ok(info->version == 1 && info->header_size == 512 + 2 * 80 + 16 + 8 + 32 &&
	   info->flags == KP_DATA_F_FINISHED, "header: version, size, finished");
	ok(info->session_id == 42 && info->nr_cpus == 4 && info->start_time == 1000 &&
	   info->end_time == 2000 && info->start_realtime == want.start_realtime,
	   "header: session, CPUs, times");
	ok(info->data_size == (uint64_t)size - info->header_size, "header: data size");
	ok(!memcmp(&info->session.events, &want.session.events, sizeof(want.session.events)) &&
	   info->session.nr_events == 2, "header: events");
	ok(info->session.nr_pids == 3 && info->session.pids[2] == 300 &&
	   info->session.cpus_bytes == 8 && info->session.cpus[0] == 0xd, "header: PIDs and CPUs");
	ok(info->session.flags == want.session.flags && info->session.freq == 4000 &&
	   !info->session.period && info->session.buffer_size == 1 << 20 &&
	   info->session.stack_depth == 127, "header: options");
	is_str(info->cmdline, "kprofctl record -g -- ./a.out", "header: command line");
	is_str(info->module_release, "0.1.0", "header: module release");
	is_str(info->release, want.release, "header: kernel release");
	is_str(info->kprofctl_version, KPROF_VERSION, "header: kprofctl version");
	ok(info->abi_version == KPROF_ABI_VERSION, "header: ABI");

	ok(kp_data__next(d, &rec, &off, &err) == 1 && rec->type == KPROF_RECORD_COMM &&
	   off == info->header_size && rec->misc == KPROF_MISC_COMM_EXEC,
	   "first record: COMM at the header size");
	kp_data__close(d);

	read_all(path, &ra);
	ok(!ra.ret && ra.nr == 10 && ra.finished, "10 records, finished");
	ok(ra.types[0] == KPROF_RECORD_COMM && ra.types[1] == KPROF_RECORD_MMAP &&
	   ra.types[2] == KP_DATA_REC_SYNTH_DONE && ra.types[3] == KPROF_RECORD_SAMPLE &&
	   ra.types[8] == KP_DATA_REC_STATS && ra.types[9] == KP_DATA_REC_FINISHED,
	   "records in order");

	/* The previous file became .old. */
	write_file(path, true);
	{
		char old[160];
		struct stat st;

		snprintf(old, sizeof(old), "%s.old", path);
		ok(!stat(old, &st) && st.st_size == size, "the previous file is kept as .old");
	}

	/* An unfinished file (the writer died): readable, not finished. */
	write_file(path, false);
	read_all(path, &ra);
	ok(!ra.ret && ra.nr == 9 && !ra.finished, "unfinished: 9 records, no FINISHED");
}

/* Copy @len bytes of @src to @dst, with the byte at @flip (if >= 0) xor 0xff. */
static void copy_file(const char *src, const char *dst, long len, long flip)
{
	unsigned char buf[8192];
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
	size_t n;

	if (!in || !out)
		abort();
	n = fread(buf, 1, sizeof(buf), in);
	if ((long)n < len)
		abort();
	if (flip >= 0)
		buf[flip] ^= 0xff;
	if (fwrite(buf, 1, len, out) != (size_t)len)
		abort();
	fclose(in);
	fclose(out);
}

static bool names_offset(const struct kp_err *err)
{
	return strstr(err->msg, "is corrupt at byte offset ") != NULL;
}

static void test_hostile(void)
{
	char bad[160];
	struct readall ra;
	char want[512];
	long size, i, header, detected = 0, undetected = 0;
	bool all = true;

	size = write_file(path, true);
	snprintf(bad, sizeof(bad), "%s.bad", path);
	read_all(path, &ra);
	header = 512 + 2 * 80 + 16 + 8 + 32;

	/* Every truncation is an error naming an offset. */
	for (i = 0; i < size; i++) {
		copy_file(path, bad, i, -1);
		read_all(bad, &ra);
		if (!(ra.ret < 0 && names_offset(&ra.err))) {
			all = false;
			diag("truncated to %ld: ret %d '%s'", i, ra.ret, ra.err.msg);
		}
	}
	ok(all, "truncated at each of %ld lengths: one error naming the offset", size);

	copy_file(path, bad, 100, -1);
	read_all(bad, &ra);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 0 (0x0): file truncated in the header (100 of 512 bytes)",
		 bad);
	is_str(ra.err.msg, want, "truncated header: message");
	{
		char unfinished[160];

		snprintf(unfinished, sizeof(unfinished), "%s.unfinished", path);
		write_file(unfinished, false);
		copy_file(unfinished, bad, header + 60, -1);
		unlink(unfinished);
	}
	read_all(bad, &ra);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset %ld (0x%lx): file truncated in the MMAP (20 of 64 bytes)",
		 bad, header + 40, header + 40);
	is_str(ra.err.msg, want, "truncated record: message");
	copy_file(path, bad, size - 40, -1);
	read_all(bad, &ra);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset %ld (0x%lx): the header says %ld bytes of records, the file has %ld",
		 bad, 80L, 80L, size - header, size - 40 - header);
	is_str(ra.err.msg, want, "finished file truncated: the header's data size");

	/* Patched fields: each named. */
	{
		struct kp_rec_exit x = { .header = { KPROF_RECORD_EXIT, 0, sizeof(x) } };
		uint32_t v;
		uint64_t n;
		FILE *fp;

		copy_file(path, bad, size, -1);
		fp = fopen(bad, "r+");
		n = 5;
		fseek(fp, size - 24, SEEK_SET);		/* FINISHED.nr_records */
		fwrite(&n, 8, 1, fp);
		fclose(fp);
		read_all(bad, &ra);
		snprintf(want, sizeof(want), "'%s' is corrupt at byte offset %ld (0x%lx): FINISHED counts 5 records in %ld bytes, the file has 9 in %ld",
			 bad, size - 40, size - 40, size - 40 - header, size - 40 - header);
		is_str(ra.err.msg, want, "FINISHED with a wrong count");

		copy_file(path, bad, size, -1);
		fp = fopen(bad, "r+");
		v = 0;
		fseek(fp, 16, SEEK_SET);		/* flags: not finished */
		fwrite(&v, 4, 1, fp);
		fseek(fp, 0, SEEK_END);
		fwrite(&x, sizeof(x), 1, fp);
		fclose(fp);
		read_all(bad, &ra);
		snprintf(want, sizeof(want), "'%s' is corrupt at byte offset %ld (0x%lx): data after the FINISHED record",
			 bad, size, size);
		ok(ra.nr == 10 && !strcmp(ra.err.msg, want), "a record after FINISHED");

		copy_file(path, bad, size, -1);
		fp = fopen(bad, "r+");
		v = KP_DATA_VERSION_MAX + 1;
		fseek(fp, 8, SEEK_SET);			/* version */
		fwrite(&v, 4, 1, fp);
		fclose(fp);
		read_all(bad, &ra);
		snprintf(want, sizeof(want), "'%s' has format version %d; this kprofctl reads versions 1 to %d",
			 bad, KP_DATA_VERSION_MAX + 1, KP_DATA_VERSION_MAX);
		is_str(ra.err.msg, want, "a newer format version");

		copy_file(path, bad, size, -1);
		fp = fopen(bad, "r+");
		fseek(fp, 0, SEEK_SET);
		fputs("PERFILE2", fp);
		fclose(fp);
		read_all(bad, &ra);
		snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 0 (0x0): not a kprof.data file (bad magic)", bad);
		is_str(ra.err.msg, want, "a perf.data file: bad magic");
	}

	/* Every flipped byte: an error naming the offset, or a valid file. */
	all = true;
	for (i = 0; i < size; i++) {
		copy_file(path, bad, size, i);
		read_all(bad, &ra);
		if (ra.ret < 0 && (names_offset(&ra.err) || strstr(ra.err.msg, "format version")))
			detected++;
		else if (!ra.ret)
			undetected++;
		else
			all = false;
	}
	ok(all, "each of %ld bytes flipped: %ld detected, %ld harmless, no other outcome", size,
	   detected, undetected);
}

/* Event 0 cpu-clock, 1 and 2 tracepoints; formats of @nr_formats of them. */
static const char fmt_a[] = "name: a\nID: 7\nformat:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n";
static const char fmt_b[] = "name: b\nID: 8\nformat:\n\nprint fmt: \"b\"\n";

static long write_tp_file(const char *p, const struct kp_tp_formats *tp)
{
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_err err;
	struct stat st;
	int ret;

	info_init(&info);
	info.session.nr_events = 3;
	info.session.events[1].type = PERF_TYPE_TRACEPOINT;
	info.session.events[1].config = 7;
	info.session.events[1].flags = 0;
	snprintf(info.session.events[1].name, KPROF_EVENT_NAME_MAX, "s:a");
	info.session.events[2] = info.session.events[1];
	info.session.events[2].config = 8;
	snprintf(info.session.events[2].name, KPROF_EVENT_NAME_MAX, "s:b");
	info.tp_formats = tp;
	w = kp_data_writer__create(p, &info, &err);
	if (!w)
		return -1;
	ret = kp_data_writer__finish(w, 2000, 0, &err);
	kp_data_writer__delete(w);
	if (ret || stat(p, &st))
		return -1;
	return st.st_size;
}

static void patch(const char *p, long off, const void *v, size_t len)
{
	FILE *fp = fopen(p, "r+");

	if (!fp || fseek(fp, off, SEEK_SET) || fwrite(v, len, 1, fp) != 1)
		abort();
	fclose(fp);
}

static void test_tp_formats(void)
{
	struct kp_tp_formats tp = { 0 }, moved;
	const struct kp_tp_formats *got;
	const struct kp_data_info *info;
	const long la = 8 + ((sizeof(fmt_a) + 7) & ~7UL), lb = 8 + ((sizeof(fmt_b) + 7) & ~7UL);
	long size, base, i, detected = 0, undetected = 0;
	char bad[160], want[512], text[64];
	struct readall ra;
	struct kp_data *d;
	struct kp_err err;
	uint32_t v;
	bool all = true;

	snprintf(bad, sizeof(bad), "%s.bad", path);
	tp.text[1] = (char *)fmt_a;
	tp.size[1] = sizeof(fmt_a);
	tp.text[2] = (char *)fmt_b;
	tp.size[2] = sizeof(fmt_b);
	size = write_tp_file(path, &tp);
	base = 512 + 3 * 80 + 16 + 8 + 32;
	ok(size == base + la + lb + 40, "formats: written after the command line (%ld)",
	   size);
	d = kp_data__open(path, &err);
	ok(d != NULL, "formats: open");
	if (!d)
		return;
	info = kp_data__info(d);
	got = kp_data__tp_formats(d);
	ok(info->version == KP_DATA_VERSION_TP && info->header_size == base + la + lb &&
	   !info->tp_formats, "formats: version 3, in the header");
	ok(!got->text[0] && got->size[1] == sizeof(fmt_a) && !strcmp(got->text[1], fmt_a) &&
	   got->size[2] == sizeof(fmt_b) && !strcmp(got->text[2], fmt_b), "formats: read back");
	kp_data__take_tp_formats(d, &moved);
	ok(!kp_tp_formats__any(kp_data__tp_formats(d)) && kp_tp_formats__any(&moved) &&
	   !strcmp(moved.text[2], fmt_b), "formats: moved out");
	kp_data__close(d);
	kp_tp_formats__exit(&moved);
	read_all(path, &ra);
	ok(!ra.ret && ra.nr == 1 && ra.finished, "formats: the records follow");

	/* Not written: a format of a non-tracepoint, or not ASCII; none is version 1. */
	tp.text[0] = (char *)fmt_a;
	tp.size[0] = sizeof(fmt_a);
	memcpy(text, fmt_b, sizeof(fmt_b));
	text[3] = '\x01';
	tp.text[2] = text;
	ok(write_tp_file(path, &tp) == base + la + 40, "only well-formed formats of tracepoints");
	tp.text[1] = tp.text[2] = NULL;
	ok(write_tp_file(path, &tp) == base + 40, "no format: no section");
	d = kp_data__open(path, &err);
	ok(d && kp_data__info(d)->version == KP_DATA_VERSION &&
	   !kp_tp_formats__any(kp_data__tp_formats(d)), "no format: version 1");
	kp_data__close(d);

	/* Hostile sections. */
	tp.text[0] = NULL;
	tp.text[1] = (char *)fmt_a;
	tp.text[2] = (char *)fmt_b;
	tp.size[2] = sizeof(fmt_b);
	size = write_tp_file(path, &tp);
	copy_file(path, bad, size, -1);
	patch(bad, base + 8 + 3, "\x7f", 1);
	read_all(bad, &ra);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset %ld (0x%lx): tracepoint format of event 1: a byte that is not printable ASCII, a tab or a newline",
		 bad, base, base);
	is_str(ra.err.msg, want, "a control byte in a format");
	copy_file(path, bad, size, -1);
	patch(bad, base + 8 + sizeof(fmt_a) - 1, "x", 1);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": tracepoint format of event 1: not NUL-terminated") != NULL,
	   "a format without its NUL");
	copy_file(path, bad, size, -1);
	v = 0;
	patch(bad, base, &v, 4);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": tracepoint format of event 0, not a tracepoint") != NULL,
	   "a format of a non-tracepoint event");
	copy_file(path, bad, size, -1);
	v = 1;
	patch(bad, base + la, &v, 4);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": tracepoint format of bad event 1") != NULL, "two formats of one event");
	copy_file(path, bad, size, -1);
	v = 3;
	patch(bad, base, &v, 4);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": tracepoint format of bad event 3") != NULL, "an event past the table");
	copy_file(path, bad, size, -1);
	v = 4000;
	patch(bad, base + 4, &v, 4);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": tracepoint format of event 1: 4000 bytes past the section") != NULL,
	   "a format past the section");
	copy_file(path, bad, size, -1);
	v = KP_DATA_TP_FORMAT_MAX + 1;
	patch(bad, base + 4, &v, 4);
	read_all(bad, &ra);
	ok(ra.ret < 0 && names_offset(&ra.err), "a huge format size");
	copy_file(path, bad, size, -1);
	v = 2;
	patch(bad, 8, &v, 4);			/* version 2: the fields are reserved */
	read_all(bad, &ra);
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 416 (0x1a0): reserved header fields are not zero",
		 bad);
	is_str(ra.err.msg, want, "a formats section in a version 2 file");
	copy_file(path, bad, size, -1);
	v = 12;
	patch(bad, 416, &v, 4);
	read_all(bad, &ra);
	ok(strstr(ra.err.msg, ": bad tracepoint formats section: 12 bytes at ") != NULL,
	   "a section size not a multiple of 8");
	copy_file(path, bad, size, -1);
	v = 1 << 20;
	patch(bad, 416, &v, 4);
	read_all(bad, &ra);
	ok(ra.ret < 0 && names_offset(&ra.err), "a section past the header");

	/* Every byte of the section flipped: an error naming the offset, or valid. */
	for (i = base; i < base + la + lb; i++) {
		copy_file(path, bad, size, i);
		read_all(bad, &ra);
		if (ra.ret < 0 && names_offset(&ra.err))
			detected++;
		else if (!ra.ret)
			undetected++;
		else
			all = false;
	}
	ok(all, "each byte of the section flipped: %ld detected, %ld harmless", detected,
	   undetected);
	for (i = 0; i < size; i++) {
		copy_file(path, bad, i, -1);
		read_all(bad, &ra);
		if (!(ra.ret < 0 && names_offset(&ra.err)))
			all = false;
	}
	ok(all, "truncated at each of %ld lengths: one error naming the offset", size);
}

static void test_errors(void)
{
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_data *d;
	struct kp_err err;
	struct readall ra;
	char bad[160], want[512];
	FILE *fp;

	d = kp_data__open("/nonexistent/kprof.data", &err);
	ok(!d, "missing file");
	is_str(err.msg, "cannot open '/nonexistent/kprof.data': No such file or directory",
	       "missing file: message");
	d = kp_data__open(root, &err);
	ok(!d && strstr(err.msg, "is not a regular file"), "a directory");

	snprintf(bad, sizeof(bad), "%s/empty", root);
	fp = fopen(bad, "w");
	fclose(fp);
	read_all(bad, &ra);
	ok(ra.ret < 0, "empty file");
	snprintf(want, sizeof(want), "'%s' is corrupt at byte offset 0 (0x0): file truncated in the header (0 of 512 bytes)",
		 bad);
	is_str(ra.err.msg, want, "empty file: message");

	/* ENOSPC, reported naming the file. */
	info_init(&info);
	w = kp_data_writer__create("/dev/full", &info, &err);
	ok(!w, "/dev/full: the header write fails");
	is_str(err.msg, "cannot write '/dev/full': No space left on device", "ENOSPC: message");

	w = kp_data_writer__create("/nonexistent/dir/kprof.data", &info, &err);
	ok(!w && !strcmp(err.msg, "cannot create '/nonexistent/dir/kprof.data': No such file or directory"),
	   "cannot create: message");
}

int main(void)
{
	fake_kprof__reset();
	tmpdir__create(root, sizeof(root));
	snprintf(path, sizeof(path), "%s/kprof.data", root);
	test_round_trip();
	test_hostile();
	test_tp_formats();
	test_errors();
	tmpdir__remove(root);
	return done_testing();
}
