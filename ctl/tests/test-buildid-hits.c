// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/buildid-hits.c: which mapped files a stream of records
 * hits, and the two-range cache of a process's last hits (a new mapping
 * and a reset empty it; a parent's ranges serve a child without its own).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/buildid-hits.h"
#include "tap.h"

#define PROG	"/usr/bin/prog"
#define LIBC	"/usr/lib/libc.so.6"
#define LIBM	"/usr/lib/libm.so.6"
#define OTHER	"/usr/bin/other"

static void mmap_rec(struct kp_bid_hits *h, uint32_t pid, uint64_t start, uint64_t len,
		     const char *name)
{
	union {
		struct kp_rec_mmap m;
		char b[sizeof(struct kp_rec_mmap) + 64];
	} u;

	memset(&u, 0, sizeof(u));
	u.m.header.type = KPROF_RECORD_MMAP;
	u.m.header.size = sizeof(u);
	u.m.pid = pid;
	u.m.tid = pid;
	u.m.start = start;
	u.m.len = len;
	strcpy(u.m.filename, name);
	ok(kp_bid_hits__add(h, &u.m.header) == 0, "MMAP %s of %u at %#llx", name, pid,
	   (unsigned long long)start);
}

static void fork_rec(struct kp_bid_hits *h, uint32_t pid, uint32_t ppid)
{
	struct kp_rec_fork f;

	memset(&f, 0, sizeof(f));
	f.header.type = KPROF_RECORD_FORK;
	f.header.size = sizeof(f);
	f.pid = pid;
	f.tid = pid;
	f.ppid = ppid;
	f.ptid = ppid;
	ok(kp_bid_hits__add(h, &f.header) == 0, "FORK %u of %u", pid, ppid);
}

/* A sample of @pid: its ip (a user one when @user), then @nr user frames. */
static void sample(struct kp_bid_hits *h, uint32_t pid, bool user, uint64_t ip,
		   const uint64_t *frames, unsigned int nr)
{
	union {
		struct kp_rec_sample s;
		char b[sizeof(struct kp_rec_sample) + 16 * 8];
	} u;

	memset(&u, 0, sizeof(u));
	u.s.header.type = KPROF_RECORD_SAMPLE;
	u.s.header.misc = user ? KPROF_MISC_USER : KPROF_MISC_KERNEL;
	u.s.header.size = sizeof(u.s) + (user ? 0 : 8) + nr * 8;
	u.s.pid = pid;
	u.s.tid = pid;
	u.s.ip = ip;
	u.s.nr_kernel = user ? 0 : 1;
	u.s.nr_user = nr;
	if (!user)
		u.s.ips[0] = ip;
	if (nr)
		memcpy(u.s.ips + u.s.nr_kernel, frames, nr * 8);
	if (kp_bid_hits__wants(&u.s.header))
		kp_bid_hits__add(h, &u.s.header);
}

struct hits {
	char	names[8][64];
	int	nr;
};

static int collect(const char *name, uint32_t pid, void *arg)
{
	struct hits *x = arg;

	(void)pid;
	if (x->nr < 8)
		snprintf(x->names[x->nr++], sizeof(x->names[0]), "%s", name);
	return 0;
}

static bool was_hit(const struct kp_bid_hits *h, const char *name)
{
	struct hits x = { .nr = 0 };
	int i;

	kp_bid_hits__for_each(h, collect, &x);
	for (i = 0; i < x.nr; i++)
		if (!strcmp(x.names[i], name))
			return true;
	return false;
}

static int nr_hits(const struct kp_bid_hits *h)
{
	struct hits x = { .nr = 0 };

	kp_bid_hits__for_each(h, collect, &x);
	return x.nr;
}

static void test_chains(void)
{
	struct kp_bid_hits *h = kp_bid_hits__new();
	const uint64_t prog_libc[] = { 0x401010, 0x401020, 0x7f0000001000, 0x401030 };
	const uint64_t prog_only[] = { 0x401010, 0x401040 };
	const uint64_t libm[] = { 0x7f1000000100 };
	const uint64_t outside[] = { 0x900000, 0x7f2000000000 };

	mmap_rec(h, 100, 0x400000, 0x10000, PROG);
	mmap_rec(h, 100, 0x7f0000000000, 0x200000, LIBC);
	mmap_rec(h, 100, 0x7f1000000000, 0x100000, LIBM);
	is_int(nr_hits(h), 0, "no sample: no hit");

	sample(h, 100, true, 0x401000, prog_only, 2);
	ok(was_hit(h, PROG) && nr_hits(h) == 1, "a chain in the program hits the program only");
	sample(h, 100, true, 0x401000, prog_libc, 4);
	ok(was_hit(h, LIBC) && nr_hits(h) == 2, "a frame in libc between the program's hits libc");
	/* the two ranges seen last are the program and libc: libm is a third */
	sample(h, 100, true, 0x401000, libm, 1);
	ok(was_hit(h, LIBM) && nr_hits(h) == 3, "a frame in a third range is looked up and hit");
	sample(h, 100, true, 0x401000, outside, 2);
	is_int(nr_hits(h), 3, "frames outside every mapping hit nothing");

	kp_bid_hits__reset(h);
	is_int(nr_hits(h), 0, "reset: no hit");
	/* the ranges seen before the reset must not hide the files now */
	sample(h, 100, true, 0x401000, prog_libc, 4);
	ok(was_hit(h, PROG) && was_hit(h, LIBC) && nr_hits(h) == 2,
	   "after a reset, the same chain hits the program and libc again");
	kp_bid_hits__reset(h);
	sample(h, 100, false, 0xffffffff81000000ULL, prog_only, 2);
	ok(was_hit(h, PROG) && nr_hits(h) == 1, "a kernel sample's user frames hit");
	kp_bid_hits__reset(h);
	sample(h, 100, true, 0x7f1000000200, NULL, 0);
	ok(was_hit(h, LIBM) && nr_hits(h) == 1, "a user sample's own ip hits");
	sample(h, 4242, true, 0x401000, prog_only, 2);
	is_int(nr_hits(h), 1, "a process with no mappings hits nothing");
	kp_bid_hits__delete(h);
}

/* A new mapping where the process had a range seen: the new file is hit. */
static void test_remap(void)
{
	struct kp_bid_hits *h = kp_bid_hits__new();
	const uint64_t frames[] = { 0x401010, 0x401020 };

	mmap_rec(h, 200, 0x400000, 0x10000, PROG);
	sample(h, 200, true, 0x401000, frames, 2);
	ok(was_hit(h, PROG), "the program is hit");
	kp_bid_hits__reset(h);
	/* exec: the new image at the same addresses, searched first */
	mmap_rec(h, 200, 0x400000, 0x10000, OTHER);
	sample(h, 200, true, 0x401000, frames, 2);
	ok(was_hit(h, OTHER) && !was_hit(h, PROG),
	   "after a new mapping over a seen range, its file is hit, not the old one");
	kp_bid_hits__delete(h);
}

/* A child without mappings of its own is looked up in its parent's. */
static void test_parent(void)
{
	struct kp_bid_hits *h = kp_bid_hits__new();
	const uint64_t frames[] = { 0x401010, 0x7f0000001000 };

	mmap_rec(h, 300, 0x400000, 0x10000, PROG);
	mmap_rec(h, 300, 0x7f0000000000, 0x200000, LIBC);
	fork_rec(h, 301, 300);
	mmap_rec(h, 301, 0x7f1000000000, 0x100000, LIBM);
	sample(h, 301, true, 0x7f1000000100, frames, 2);
	ok(was_hit(h, LIBM) && was_hit(h, PROG) && was_hit(h, LIBC) && nr_hits(h) == 3,
	   "a child's own mapping and its parent's both hit");
	kp_bid_hits__reset(h);
	/* the parent's ranges seen by the child stay the parent's */
	mmap_rec(h, 300, 0x400000, 0x10000, OTHER);
	sample(h, 301, true, 0x7f1000000100, frames, 2);
	ok(was_hit(h, OTHER) && !was_hit(h, PROG),
	   "the child's lookup follows the parent's newest mapping");
	kp_bid_hits__delete(h);
}

int main(void)
{
	test_chains();
	test_remap();
	test_parent();
	return done_testing();
}
