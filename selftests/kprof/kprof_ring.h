/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Selftest helpers for sessions: START requests and a strict reader of the
 * /dev/kprof rings that checks every record it consumes.
 */
#ifndef _KPROF_RING_H
#define _KPROF_RING_H

#include <poll.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

#include "kprof_test.h"

struct kt_event {
	uint32_t type;
	uint64_t config;
	uint32_t flags;
	const char *name;
};

static const struct kt_event kt_cpu_clock = {
	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, "cpu-clock"
};

static inline void kt_put_u64(struct kt_msg *m, uint16_t type, uint64_t v)
{
	kt_put(m, type, &v, sizeof(v));
}

/* Open a nest; close it with kt_nest_end(). */
static inline struct nlattr *kt_nest_start(struct kt_msg *m, uint16_t type)
{
	struct nlattr *a = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh.nlmsg_len));

	a->nla_type = type | NLA_F_NESTED;
	a->nla_len = NLA_HDRLEN;
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_HDRLEN;
	return a;
}

static inline void kt_nest_end(struct kt_msg *m, struct nlattr *a)
{
	a->nla_len = (char *)m->buf + m->nlh.nlmsg_len - (char *)a;
}

static inline void kt_put_event(struct kt_msg *m, const struct kt_event *ev)
{
	struct nlattr *n = kt_nest_start(m, KPROF_A_SESSION_EVENT);

	kt_put_u32(m, KPROF_EV_A_TYPE, ev->type);
	kt_put_u64(m, KPROF_EV_A_CONFIG, ev->config);
	if (ev->flags)
		kt_put_u32(m, KPROF_EV_A_FLAGS, ev->flags);
	if (ev->name)
		kt_put_str(m, KPROF_EV_A_NAME, ev->name);
	kt_nest_end(m, n);
}

/* An event of any type: a probe's SYMBOL, a tracepoint's FILTER when given. */
static inline void kt_put_probe(struct kt_msg *m, uint32_t type, uint64_t config,
				const char *name, const char *symbol, const void *filter,
				size_t filter_len)
{
	struct nlattr *n = kt_nest_start(m, KPROF_A_SESSION_EVENT);

	kt_put_u32(m, KPROF_EV_A_TYPE, type);
	kt_put_u64(m, KPROF_EV_A_CONFIG, config);
	kt_put_str(m, KPROF_EV_A_NAME, name);
	if (symbol)
		kt_put_str(m, KPROF_EV_A_SYMBOL, symbol);
	if (filter)
		kt_put(m, KPROF_EV_A_FILTER, filter, filter_len);
	kt_nest_end(m, n);
}

/* A START request with the common attributes; callers add targets. */
static inline void kt_start_init(struct kt_msg *m, int family, uint32_t flags,
				 uint32_t freq, uint32_t buffer_size)
{
	kt_msg_init(m, family, KPROF_CMD_START, KPROF_FAMILY_VERSION);
	kt_put_u32(m, KPROF_A_SESSION_FLAGS, flags);
	if (freq)
		kt_put_u32(m, KPROF_A_SESSION_FREQ, freq);
	if (buffer_size)
		kt_put_u32(m, KPROF_A_SESSION_BUFFER_SIZE, buffer_size);
}

static inline int kt_stop(int fd, int family, struct kt_msg *m)
{
	kt_msg_init(m, family, KPROF_CMD_STOP, KPROF_FAMILY_VERSION);
	return kt_transact(fd, m);
}

/* STOP of the session @id (ABI 1.10). */
static inline int kt_stop_id(int fd, int family, uint64_t id, struct kt_msg *m)
{
	kt_msg_init(m, family, KPROF_CMD_STOP, KPROF_FAMILY_VERSION);
	kt_put(m, KPROF_A_SESSION_ID, &id, sizeof(id));
	return kt_transact(fd, m);
}

/*
 * The ids (and states, when @states) of the sessions STATUS lists in its
 * KPROF_A_SESSION nests (ABI 1.10), up to @max; their number, or a
 * negative errno.
 */
static inline int kt_session_ids(int fd, int family, uint64_t *ids, uint32_t *states, int max)
{
	struct nlmsghdr *r;
	struct nlattr *a;
	struct kt_msg m;
	int len, n = 0;

	kt_msg_init(&m, family, KPROF_CMD_STATUS, KPROF_FAMILY_VERSION);
	if (kt_transact(fd, &m))
		return m.err;
	r = (struct nlmsghdr *)m.reply;
	a = (struct nlattr *)((char *)NLMSG_DATA(r) + GENL_HDRLEN);
	len = r->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == KPROF_A_SESSION && n < max) {
			struct nlattr *b = (struct nlattr *)((char *)a + NLA_HDRLEN);
			int blen = a->nla_len - NLA_HDRLEN;

			while (blen >= (int)NLA_HDRLEN && b->nla_len >= NLA_HDRLEN &&
			       b->nla_len <= blen) {
				int type = b->nla_type & NLA_TYPE_MASK;

				if (type == KPROF_A_SESSION_ID)
					memcpy(&ids[n], (char *)b + NLA_HDRLEN, sizeof(ids[n]));
				if (type == KPROF_A_STATUS_STATE && states)
					memcpy(&states[n], (char *)b + NLA_HDRLEN, sizeof(states[n]));
				blen -= NLA_ALIGN(b->nla_len);
				b = (struct nlattr *)((char *)b + NLA_ALIGN(b->nla_len));
			}
			n++;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return n;
}

/*
 * Stop every session that runs; for clean starts and teardowns.  A module
 * before ABI 1.10 lists none: its one session gets a STOP without an id.
 */
static inline void kt_stop_any(int fd, int family)
{
	uint32_t states[64];
	uint64_t ids[64];
	struct kt_msg m;
	int i, n;

	n = kt_session_ids(fd, family, ids, states, 64);
	if (n <= 0) {
		kt_stop(fd, family, &m);
		return;
	}
	for (i = 0; i < n && i < 64; i++)
		if (states[i] == KPROF_STATE_RUNNING)
			kt_stop_id(fd, family, ids[i], &m);
}

/* A u64 from a KPROF_A_STATS nest of a reply. */
static inline uint64_t kt_stat(struct kt_msg *m, int type)
{
	struct nlattr *nest = m->tb[KPROF_A_STATS], *a;
	int len;

	if (!nest)
		return ~0ULL;
	len = nest->nla_len - NLA_HDRLEN;
	a = (struct nlattr *)((char *)nest + NLA_HDRLEN);
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a->nla_len - NLA_HDRLEN == 8 ? kt_u64(a) : kt_u32(a);
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return ~0ULL;
}

/* What a reader saw. */
struct kt_tally {
	uint64_t records;
	uint64_t samples;
	uint64_t lost[__KPROF_LOST_MAX];
	uint64_t throttle;
	uint64_t comm, exit, fork, mmap;
	uint64_t bad;		/* malformed records */
	char why[160];		/* the first malformation */
};

typedef void (*kt_sample_fn)(const struct kprof_record_header *h, void *arg);

struct kt_reader {
	int fd;
	unsigned int nr_cpus;
	uint64_t stride;
	void *maps[256];
};

static inline int kt_reader_open(struct kt_reader *r, unsigned int nr_cpus, uint64_t stride)
{
	unsigned int cpu;

	memset(r, 0, sizeof(*r));
	r->fd = open(KPROF_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (r->fd < 0)
		return -errno;
	/* ABI 1.13: an unbound file maps nothing */
	if (ioctl(r->fd, KPROF_IOC_BIND, &kt_session_id))
		return -errno;
	r->nr_cpus = nr_cpus < 256 ? nr_cpus : 256;
	r->stride = stride;
	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		void *p = mmap(NULL, stride, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
			       (off_t)cpu * stride);

		if (p == MAP_FAILED) {
			if (errno == ENXIO)
				continue;	/* no ring for this CPU */
			return -errno;
		}
		r->maps[cpu] = p;
	}
	return 0;
}

static inline void kt_reader_close(struct kt_reader *r)
{
	unsigned int cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++)
		if (r->maps[cpu])
			munmap(r->maps[cpu], r->stride);
	close(r->fd);
}

static inline unsigned int kt_min_size(uint32_t type)
{
	switch (type) {
	case KPROF_RECORD_SAMPLE:	return 56;
	case KPROF_RECORD_LOST:		return 32;
	case KPROF_RECORD_THROTTLE:	return 24;
	case KPROF_RECORD_COMM:		return 40;
	case KPROF_RECORD_EXIT:		return 24;
	case KPROF_RECORD_FORK:		return 32;
	case KPROF_RECORD_MMAP:		return 48;
	}
	return 0;
}

/*
 * Consume every record in every ring, checking each: known type, size a
 * multiple of 8 and no smaller than its type's fixed part, samples' chain
 * lengths matching their size.  Calls @fn for each record.
 */
static inline void kt_reader_drain(struct kt_reader *r, struct kt_tally *t,
				   kt_sample_fn fn, void *arg)
{
	static uint64_t rec[65536 / 8];	/* any u16 size fits */
	unsigned int cpu;

	for (cpu = 0; cpu < r->nr_cpus; cpu++) {
		struct kprof_mmap_page *pg = r->maps[cpu];
		uint64_t head, tail, size;
		char *data;

		if (!pg)
			continue;
		size = pg->data_size;
		data = (char *)pg + pg->data_offset;
		head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
		tail = pg->data_tail;
		while (tail < head) {
			struct kprof_record_header h;
			uint64_t off = tail & (size - 1);
			uint64_t first;

			memcpy(&h, data + off, sizeof(h));	/* 8-aligned: never wraps */
			if (h.size < 8 || h.size % 8 ||
			    h.size > head - tail || h.size < kt_min_size(h.type)) {
				if (!t->bad++)
					snprintf(t->why, sizeof(t->why),
						 "cpu %u offset %llu: type %u size %u", cpu,
						 (unsigned long long)tail, h.type, h.size);
				tail = head;	/* cannot resynchronise */
				break;
			}
			first = size - off < h.size ? size - off : h.size;
			memcpy(rec, data + off, first);
			memcpy((char *)rec + first, data, h.size - first);
			t->records++;
			switch (h.type) {
			case KPROF_RECORD_SAMPLE: {
				const uint16_t *nr = (const uint16_t *)((char *)rec + 48);

				unsigned int want = 56 + 8 * (nr[0] + nr[1]);

				if (h.misc & KPROF_MISC_RAW)	/* + u32 size, u32 0, padded raw */
					want += 8 + ((*(uint32_t *)((char *)rec + want) + 7) & ~7U);
				/* + the registers' mask, 3 registers, u32 size, u32 0, the copy */
				if ((h.misc & KPROF_MISC_USER_STACK) && want + 40 <= h.size)
					want += 40 + *(uint32_t *)((char *)rec + want + 32);
				if (want != h.size && !t->bad++)
					snprintf(t->why, sizeof(t->why),
						 "cpu %u: sample size %u with %u+%u frames",
						 cpu, h.size, nr[0], nr[1]);
				t->samples++;
				break;
			}
			case KPROF_RECORD_LOST: {
				uint32_t cause = *(uint32_t *)((char *)rec + 24);

				if (cause > 0 && cause < __KPROF_LOST_MAX)
					t->lost[cause] += rec[2];
				else if (!t->bad++)
					snprintf(t->why, sizeof(t->why), "LOST cause %u", cause);
				break;
			}
			case KPROF_RECORD_THROTTLE: t->throttle++; break;
			case KPROF_RECORD_COMM: t->comm++; break;
			case KPROF_RECORD_EXIT: t->exit++; break;
			case KPROF_RECORD_FORK: t->fork++; break;
			case KPROF_RECORD_MMAP: t->mmap++; break;
			}
			if (fn)
				fn((struct kprof_record_header *)rec, arg);
			tail += h.size;
		}
		__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	}
}

static inline int kt_reader_poll(struct kt_reader *r, int timeout_ms)
{
	struct pollfd p = { .fd = r->fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) < 0 ? -errno : p.revents;
}

/* Write a string to a file; 0 or a negative errno. */
static inline int kt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* Burn CPU for @ms milliseconds. */
static inline void kt_spin_ms(unsigned int ms)
{
	struct timespec a, b;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

#endif /* _KPROF_RING_H */
