// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/ring.c: a fake control page and data area in memory,
 * records that wrap around the end, torn and garbage headers, a head behind
 * the tail, bad control pages; and /dev/kprof replaced by a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake-nl.h"
#include "lib/ring.h"
#include "tap.h"
#include "tmpdir.h"

#define DATA_SIZE	256
#define STRIDE		(FAKE_PAGE_SIZE + DATA_SIZE)

static unsigned char *mem;		/* two CPUs */
static unsigned char bounce[KP_RECORD_MAX_SIZE] __attribute__((aligned(8)));

static struct kprof_mmap_page *page(unsigned int cpu)
{
	return (void *)(mem + cpu * STRIDE);
}

static void setup(void)
{
	unsigned int cpu;

	memset(mem, 0, 2 * STRIDE);
	for (cpu = 0; cpu < 2; cpu++) {
		page(cpu)->version = KPROF_MMAP_VERSION;
		page(cpu)->compat_version = KPROF_MMAP_VERSION;
		page(cpu)->size = sizeof(struct kprof_mmap_page);
		page(cpu)->cpu = cpu;
		page(cpu)->session_id = 7;
		page(cpu)->data_offset = FAKE_PAGE_SIZE;
		page(cpu)->data_size = DATA_SIZE;
	}
}

/* A SAMPLE with @nr frames whose fields derive from @seq. */
static size_t make_sample(void *buf, unsigned int seq, unsigned int nr)
{
	struct kp_rec_sample *s = buf;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_KERNEL;
	s->header.size = sizeof(*s) + nr * 8;
	s->time = 1000 + seq;
	s->ip = 0xffffffff81000000ULL + seq;
	s->period = 1;
	s->pid = s->tid = 100 + seq;
	s->cpu = 1;
	s->nr_kernel = nr;
	for (i = 0; i < nr; i++)
		s->ips[i] = 0xffffffff81000000ULL + seq * 16 + i;
	return s->header.size;
}

struct collect {
	unsigned int	nr;
	unsigned int	seq[64];
	bool		bad;		/* a record's content did not match */
	int		fail_at;	/* return -EIO at this record (1-based) */
};

static int collect(const struct kprof_record_header *rec, unsigned int cpu, void *arg,
		   struct kp_err *err)
{
	struct collect *c = arg;
	const struct kp_rec_sample *s = (const void *)rec;
	unsigned char want[512] __attribute__((aligned(8)));
	unsigned int seq = s->time - 1000;

	(void)cpu;
	if (c->fail_at && (int)c->nr + 1 == c->fail_at) {
		kp_err__set(err, EIO, "callback failed");
		return -EIO;
	}
	if (rec->type == KPROF_RECORD_SAMPLE) {
		make_sample(want, seq, s->nr_kernel);
		if (memcmp(want, rec, rec->size) || (uintptr_t)rec % 8)
			c->bad = true;
	}
	if (c->nr < 64)
		c->seq[c->nr] = seq;
	c->nr++;
	return 0;
}

static const struct kp_record_ctx ctx = { .nr_events = 1, .max_depth = 127 };

static int64_t read_ring(unsigned int cpu, struct collect *c, struct kp_err *err)
{
	struct kp_ring r;
	int ret;

	ret = kp_ring__init(&r, cpu, page(cpu), STRIDE, 7, bounce, err);
	if (ret)
		return ret;
	return kp_ring__read(&r, &ctx, collect, c, err);
}

static void put(unsigned int cpu, const void *rec, size_t size)
{
	fake_ring__put(mem, STRIDE, cpu, rec, size);
}

static void test_read(void)
{
	unsigned char buf[512] __attribute__((aligned(8)));
	struct collect c = { 0 };
	struct kp_err err;
	unsigned int i, seq = 0, total = 0;
	bool ok_all = true;
	size_t n;

	setup();
	is_int(read_ring(0, &c, &err), 0, "empty ring: nothing read");
	is_int(c.nr, 0, "empty ring: no record");

	n = make_sample(buf, 1, 2);
	put(1, buf, n);
	is_int(read_ring(1, &c, &err), 72, "one sample: 72 bytes");
	ok(c.nr == 1 && c.seq[0] == 1 && !c.bad, "one sample: passed intact");
	ok(page(1)->data_tail == 72 && page(1)->data_head == 72, "one sample: tail moved to head");
	is_int(read_ring(1, &c, &err), 0, "read again: nothing new");

	/* Fill close to the end, consume, then wrap. */
	setup();
	memset(&c, 0, sizeof(c));
	n = make_sample(buf, 0, 10);		/* 136 bytes */
	put(0, buf, n);
	n = make_sample(buf, 1, 5);		/* 96 bytes: ends at 232 */
	put(0, buf, n);
	is_int(read_ring(0, &c, &err), 232, "two samples before the wrap");
	n = make_sample(buf, 2, 4);		/* 88 bytes at 232: wraps after 24 */
	put(0, buf, n);
	n = make_sample(buf, 3, 0);		/* 56 bytes at 64 */
	put(0, buf, n);
	is_int(read_ring(0, &c, &err), 144, "a wrapping sample and the next");
	ok(c.nr == 4 && c.seq[2] == 2 && c.seq[3] == 3 && !c.bad,
	   "wrapping sample copied contiguously and intact");
	ok(page(0)->data_tail == 376, "tail counts bytes, not offsets");

	/* Many laps with varying sizes: every record intact, in order. */
	setup();
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 500; i++) {
		unsigned int k, batch = 1 + i % 3, before = c.nr;
		size_t used = 0;

		for (k = 0; k < batch; k++) {
			n = make_sample(buf, seq, (seq * 7) % 20);
			if (used + n > DATA_SIZE)
				break;
			put(0, buf, n);
			used += n;
			seq++;
		}
		if (read_ring(0, &c, &err) != (int64_t)used || c.bad)
			ok_all = false;
		total += c.nr - before;
		c.nr = 0;
	}
	ok(ok_all && total == seq, "500 batches, %u records over many laps: intact", seq);
}

/* The tail the writer sees while each record is handed over. */
static uint64_t tails_seen[8];
static unsigned int nr_tails;

static int see_tail(const struct kprof_record_header *rec, unsigned int cpu, void *arg,
		    struct kp_err *err)
{
	(void)rec;
	(void)arg;
	(void)err;
	if (nr_tails < 8)
		tails_seen[nr_tails++] = __atomic_load_n(&page(cpu)->data_tail, __ATOMIC_ACQUIRE);
	return 0;
}

static void test_tail_released_while_reading(void)
{
	unsigned char buf[512] __attribute__((aligned(8)));
	struct kp_ring r;
	struct kp_err err;
	unsigned int i;
	size_t n;

	setup();
	nr_tails = 0;
	for (i = 0; i < 3; i++) {
		n = make_sample(buf, i, 2);		/* 72 bytes each */
		put(0, buf, n);
	}
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), 0, "ring for the tail test");
	is_int(kp_ring__read(&r, &ctx, see_tail, NULL, &err), 216, "three samples read");
	/* DATA_SIZE / 8 = 32 bytes: each record gives its space back at once */
	ok(nr_tails == 3 && tails_seen[0] == 0 && tails_seen[1] == 72 && tails_seen[2] == 144,
	   "data_tail moves during a long read, not only at its end (%" PRIu64 ", %" PRIu64
	   ", %" PRIu64 ")", tails_seen[0], tails_seen[1], tails_seen[2]);
	ok(page(0)->data_tail == 216, "and ends at the head");
}

/* Put raw bytes at the head, and read: expect @want as the error. */
static void expect_corrupt(const char *desc, const void *bytes, size_t len, uint64_t fake_head,
			   const char *want)
{
	struct collect c = { 0 };
	struct kp_err err;
	int64_t ret;

	setup();
	put(1, bytes, len);
	if (fake_head)
		page(1)->data_head = fake_head;
	ret = read_ring(1, &c, &err);
	ok(ret == -EBADMSG && !strcmp(err.msg, want) && !c.nr && !page(1)->data_tail,
	   "corrupt: %s", desc);
	if (ret != -EBADMSG || strcmp(err.msg, want))
		diag("got %lld '%s'", (long long)ret, err.msg);
}

static void test_corrupt(void)
{
	unsigned char buf[512] __attribute__((aligned(8)));
	struct kprof_record_header *h = (void *)buf;
	struct kp_rec_sample *s = (void *)buf;
	struct collect c = { 0 };
	struct kp_err err;
	size_t n;

	memset(buf, 0, sizeof(buf));
	h->type = KPROF_RECORD_SAMPLE;
	h->size = 4;
	expect_corrupt("torn header", buf, 4, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): torn record header before data_head");
	h->size = 12;
	expect_corrupt("size not a multiple of 8", buf, 16, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): bad record size 12 (type 1)");
	h->size = 0;
	expect_corrupt("size 0", buf, 16, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): bad record size 0 (type 1)");
	h->size = 264;
	expect_corrupt("size beyond the buffer", buf, 16, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): bad record size 264 (type 1)");
	n = make_sample(buf, 0, 1);
	expect_corrupt("record past the head", buf, n - 8, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): record of 64 bytes runs past data_head (56 bytes left)");
	n = make_sample(buf, 0, 1);
	h->type = 99;
	expect_corrupt("unknown type", buf, n, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): unknown record type 99");
	h->type = KP_DATA_REC_STATS;
	expect_corrupt("a file-only type", buf, n, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): unknown record type 65536");
	n = make_sample(buf, 0, 1);
	s->nr_kernel = 2;
	expect_corrupt("more frames than the record holds", buf, n, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): SAMPLE of 64 bytes cannot hold its 2 frames");
	n = make_sample(buf, 0, 1);
	s->event = 1;
	expect_corrupt("event index beyond the events", buf, n, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): SAMPLE of event 1, but the session has 1 events");
	n = make_sample(buf, 0, 0);
	h->size = 48;
	expect_corrupt("sample shorter than its layout", buf, 48, 0,
		       "CPU 1: corrupt buffer at offset 0 (position 0): SAMPLE of 48 bytes is shorter than its 56-byte layout");

	/* The second record is bad: the first was passed, the tail stops after it. */
	setup();
	n = make_sample(buf, 0, 0);
	put(1, buf, n);
	h->size = 12;
	put(1, buf, 16);
	is_int(read_ring(1, &c, &err), -EBADMSG, "bad second record: error");
	is_str(err.msg, "CPU 1: corrupt buffer at offset 56 (position 56): bad record size 12 (type 1)",
	       "bad second record: names its offset");
	ok(page(1)->data_tail == 56, "bad second record: tail after the first, not past the bad one");

	/* Positions beyond the first lap. */
	setup();
	page(0)->data_head = page(0)->data_tail = 4096;
	memset(mem + FAKE_PAGE_SIZE, 0xff, DATA_SIZE);
	page(0)->data_head = 4096 + 8;
	is_int(read_ring(0, &c, &err), -EBADMSG, "garbage header after laps");
	is_str(err.msg, "CPU 0: corrupt buffer at offset 0 (position 4096): bad record size 65535 (type 4294967295)",
	       "garbage header: offset and position");

	setup();
	page(1)->data_head = 8;
	page(1)->data_tail = 16;
	is_int(read_ring(1, &c, &err), -EBADMSG, "head behind tail");
	is_str(err.msg, "CPU 1: corrupt buffer at offset 16 (position 16): data_head 8 is behind data_tail 16",
	       "head behind tail: message");
	setup();
	page(1)->data_head = 264;
	is_int(read_ring(1, &c, &err), -EBADMSG, "head too far ahead");
	ok(strstr(err.msg, "more than the 256-byte buffer") != NULL, "head too far ahead: message");
	setup();
	page(1)->data_tail = 4;
	page(1)->data_head = 12;
	is_int(read_ring(1, &c, &err), -EBADMSG, "unaligned tail");

	/* A failing callback: its error; the tail after the records it took. */
	setup();
	memset(&c, 0, sizeof(c));
	n = make_sample(buf, 0, 0);
	put(0, buf, n);
	put(0, buf, n);
	c.fail_at = 2;
	is_int(read_ring(0, &c, &err), -EIO, "callback error returned");
	ok(page(0)->data_tail == 56 && c.nr == 1,
	   "callback error: tail after the record taken, not the refused one");
}

static void test_control_page(void)
{
	struct kp_ring r;
	struct kp_err err;

	setup();
	ok(!kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err) && r.data_size == DATA_SIZE &&
	   r.data == mem + FAKE_PAGE_SIZE, "control page: good");
	ok(!kp_ring__init(&r, 0, page(0), STRIDE, 0, bounce, &err), "control page: any session");
	is_int(kp_ring__init(&r, 0, page(0), 100, 7, bounce, &err), -EBADMSG, "mapping too small");
	is_str(err.msg, "CPU 0: mapping of 100 bytes is smaller than the control page",
	       "mapping too small: message");
	is_int(kp_ring__init(&r, 1, page(0), STRIDE, 7, bounce, &err), -EBADMSG, "wrong CPU");
	is_str(err.msg, "CPU 1: bad control page: size 1152, cpu 0, session 7, data at 4096 of 256 bytes in a 4352-byte mapping",
	       "wrong CPU: message");
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 8, bounce, &err), -EBADMSG, "wrong session");
	is_int(kp_ring__init(&r, 0, page(0), STRIDE - 8, 7, bounce, &err), -EBADMSG,
	       "data beyond the mapping");
	page(0)->data_size = 200;
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), -EBADMSG,
	       "data size not a power of two");
	setup();
	page(0)->data_offset = 1000;
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), -EBADMSG,
	       "data offset inside the control page");
	setup();
	page(0)->data_offset = ~0ULL - 8;
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), -EBADMSG,
	       "huge data offset");
	setup();
	page(0)->size = 64;
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), -EBADMSG,
	       "control page size too small");
	setup();
	page(0)->version = 2;
	ok(!kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err),
	   "newer version compatible with ours: fine");
	page(0)->compat_version = 2;
	is_int(kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err), -EPROTO,
	       "incompatible version");
	is_str(err.msg, "CPU 0: control page version 2 (compatible with 2) is not supported; kprofctl reads version 1",
	       "incompatible version: message");
}

static void on_start(void *map, uint32_t nr_cpus, uint64_t stride)
{
	unsigned char buf[512] __attribute__((aligned(8)));
	size_t n = make_sample(buf, 5, 3);

	(void)nr_cpus;
	fake_ring__put(map, stride, 1, buf, n);
}

static void test_device(void)
{
	struct kp_start_info info = { .session_id = 1, .buffer_size = 8192, .nr_cpus = 2,
				      .mmap_stride = 4096 + 8192 };
	struct kp_session s = { .flags = KPROF_SESSION_F_SYSTEM_WIDE, .freq = 99,
				.buffer_size = 8192, .stack_depth = 127, .nr_events = 1 };
	struct collect c = { 0 };
	char root[64], dev[128];
	struct kp_rings rs;
	struct kp_err err;
	struct kp_nl *nl;

	tmpdir__create(root, sizeof(root));
	snprintf(dev, sizeof(dev), "%s/kprof", root);
	kp_device_path = dev;
	is_int(kp_rings__open(&rs, &info, &err), -ENOENT, "no device");
	ok(!strncmp(err.msg, "cannot open /tmp/", 17) &&
	   strstr(err.msg, "/kprof: No such file or directory"), "no device: message");

	/* The fake module creates the device file at START. */
	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.device_path = dev;
	fake.on_start = on_start;
	snprintf(s.events[0].name, sizeof(s.events[0].name), "cpu-clock");
	s.events[0].type = 1;
	nl = kp_nl__open(&err);
	ok(!kp_nl__start(nl, &s, &info, &err), "fake START");
	ok(!kp_rings__open(&rs, &info, &err) && rs.nr == 2 && !rs.nr_skipped, "two CPUs mapped");
	ok(kp_rings__poll(&rs, 0, &err) & POLLIN, "poll: readable");
	is_int(kp_rings__read(&rs, &ctx, collect, &c, &err), 80, "read both rings: 80 bytes");
	ok(c.nr == 1 && c.seq[0] == 5 && !c.bad, "the sample of CPU 1");
	is_int(kp_ring__pending(&rs.rings[1]), 0, "nothing pending");
	kp_rings__close(&rs);
	kp_rings__close(&rs);
	ok(rs.fd == -1 && !rs.rings, "close twice is fine");

	/* A session id that does not match the control pages. */
	info.session_id = 99;
	is_int(kp_rings__open(&rs, &info, &err), -EBADMSG, "other session's pages");
	ok(strstr(err.msg, "CPU 0: bad control page:") != NULL, "other session: names CPU 0");
	/* mmap of /dev/null fails with ENODEV: CPUs without a buffer are skipped. */
	info.session_id = 1;
	kp_device_path = "/dev/null";
	is_int(kp_rings__open(&rs, &info, &err), -ENODEV, "ENODEV on every CPU: all skipped");
	is_str(err.msg, "no CPU has a buffer in /dev/null", "ENODEV on every CPU: message");
	kp_device_path = "/dev/zero";
	info.mmap_stride = 4096;
	is_int(kp_rings__open(&rs, &info, &err), -EPROTO, "a mapping of zeros: bad control page");
	ok(strstr(err.msg, "CPU 0: control page version 0") != NULL, "zeros: version 0 refused");
	kp_nl__delete(nl);
	kp_device_path = KPROF_DEVICE_PATH;
	tmpdir__remove(root);
}

/* What kp_ring__read_spans() handed to the span function. */
struct spans {
	unsigned char	bytes[1024];
	size_t		len;
	unsigned int	nr_spans, nr_records;
	bool		fail;
};

static int take_span(const void *p, size_t len, unsigned int nr, unsigned int cpu, void *arg,
		     struct kp_err *err)
{
	struct spans *sp = arg;

	(void)cpu;
	if (sp->fail) {
		kp_err__set(err, EIO, "span write failed");
		return -EIO;
	}
	if (sp->len + len <= sizeof(sp->bytes))
		memcpy(sp->bytes + sp->len, p, len);
	sp->len += len;
	sp->nr_spans++;
	sp->nr_records += nr;
	return 0;
}

static int note_only(const struct kprof_record_header *rec, unsigned int cpu, void *arg,
		     struct kp_err *err)
{
	(void)rec;
	(void)cpu;
	(void)arg;
	(void)err;
	return 0;
}

static void test_spans(void)
{
	unsigned char buf[512] __attribute__((aligned(8))), want[512];
	struct spans sp = { 0 };
	struct kp_ring r;
	struct kp_err err;
	size_t n, w = 0;

	setup();
	kp_ring__init(&r, 0, page(0), STRIDE, 7, bounce, &err);
	n = make_sample(buf, 0, 10);		/* 136 bytes */
	put(0, buf, n);
	memcpy(want, buf, n);
	w = n;
	n = make_sample(buf, 1, 5);		/* 96 bytes: ends at 232 */
	put(0, buf, n);
	memcpy(want + w, buf, n);
	w += n;
	is_int(kp_ring__read_spans(&r, &ctx, note_only, take_span, &sp, &err), 232,
	       "spans: two samples read");
	/* each passes an eighth of this small buffer: written before the tail moves */
	ok(sp.nr_spans == 2 && sp.nr_records == 2 && sp.len == w && !memcmp(sp.bytes, want, w),
	   "spans: the two samples, each written before its space is given back, byte for byte");

	/* a record that wraps is a span of its own (from the bounce buffer) */
	memset(&sp, 0, sizeof(sp));
	n = make_sample(buf, 2, 4);		/* 88 bytes at 232: wraps after 24 */
	put(0, buf, n);
	memcpy(want, buf, n);
	w = n;
	n = make_sample(buf, 3, 0);		/* 56 bytes at 64 */
	put(0, buf, n);
	memcpy(want + w, buf, n);
	w += n;
	is_int(kp_ring__read_spans(&r, &ctx, note_only, take_span, &sp, &err), 144,
	       "spans: a wrapping sample and the next read");
	ok(sp.nr_spans == 2 && sp.nr_records == 2 && sp.len == w && !memcmp(sp.bytes, want, w),
	   "spans: the wrapped sample alone, then the next, in order and intact");

	/* records within an eighth of the buffer: one span */
	memset(&sp, 0, sizeof(sp));
	{
		struct kp_rec_throttle t[2] = {
			{ .header = { KPROF_RECORD_THROTTLE, 0, sizeof(t[0]) }, .time = 5 },
			{ .header = { KPROF_RECORD_THROTTLE, 0, sizeof(t[0]) }, .time = 6 },
		};

		put(0, &t[0], sizeof(t[0]));
		put(0, &t[1], sizeof(t[1]));
		is_int(kp_ring__read_spans(&r, &ctx, note_only, take_span, &sp, &err), 48,
		       "spans: two THROTTLE records read");
		ok(sp.nr_spans == 1 && sp.nr_records == 2 && sp.len == 48 &&
		   !memcmp(sp.bytes, t, 48), "spans: two adjacent records in one span, byte for byte");
	}

	/* a span not taken stays in the buffer: the tail does not move past it */
	memset(&sp, 0, sizeof(sp));
	n = make_sample(buf, 4, 2);
	put(0, buf, n);
	sp.fail = true;
	ok(kp_ring__read_spans(&r, &ctx, note_only, take_span, &sp, &err) == -EIO &&
	   page(0)->data_tail == 424, "spans: a failed span write leaves the tail before it");
	sp.fail = false;
	is_int(kp_ring__read_spans(&r, &ctx, note_only, take_span, &sp, &err), (int)n,
	       "spans: read again, the record is still there");
	ok(sp.nr_records == 1 && page(0)->data_tail == 424 + n, "spans: then taken, and the tail moved");
}

int main(void)
{
	mem = aligned_alloc(4096, 3 * 4096);
	if (!mem)
		abort();
	test_read();
	test_spans();
	test_tail_released_while_reading();
	test_corrupt();
	test_control_page();
	test_device();
	free(mem);
	return done_testing();
}
