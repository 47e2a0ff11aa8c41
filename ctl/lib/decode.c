// SPDX-License-Identifier: GPL-2.0
/*
 * Decoding kprof.data; see decode.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "util.h"

static int decoder__index(struct kp_decoder *d, uint64_t time, uint64_t off)
{
	if (d->nr_index == d->index_alloc) {
		size_t n = d->index_alloc ? d->index_alloc * 2 : 4096;
		struct kp_sample_ref *idx = realloc(d->index, n * sizeof(*idx));

		if (!idx)
			return -ENOMEM;
		d->index = idx;
		d->index_alloc = n;
	}
	d->index[d->nr_index].time = time;
	d->index[d->nr_index].offset = off;
	d->nr_index++;
	return 0;
}

static int decoder__waker(struct kp_decoder *d, uint64_t off)
{
	if (d->nr_wakers == d->wakers_alloc) {
		size_t n = d->wakers_alloc ? d->wakers_alloc * 2 : 256;
		uint64_t *v = realloc(d->wakers, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->wakers = v;
		d->wakers_alloc = n;
	}
	d->wakers[d->nr_wakers++] = off;
	return 0;
}

bool kp_decoder__has_offcpu(const struct kp_decoder *d)
{
	return d->has_offcpu;
}

/*
 * What an AGG record weighs as a SAMPLE's period: an off-CPU record's
 * count is already time (ns); beside off-CPU time, a time event's count of
 * samples becomes the time they stand for (the sampling period, or one
 * second over the frequency); otherwise its count.
 */
static uint64_t decoder__agg_period(const struct kp_decoder *d, const struct kp_rec_agg *a)
{
	const struct kp_session *s = &d->info.session;
	const struct kp_event *e = a->event < s->nr_events ? &s->events[a->event] : NULL;

	if (!e || e->type == KPROF_TYPE_OFFCPU || !kp_decoder__has_offcpu(d) ||
	    e->type != PERF_TYPE_SOFTWARE ||
	    (e->config != PERF_COUNT_SW_CPU_CLOCK && e->config != PERF_COUNT_SW_TASK_CLOCK))
		return a->count;
	if (s->period)
		return a->count * s->period;
	return s->freq ? a->count * (1000000000ULL / s->freq) : a->count;
}

static int decoder__record(struct kp_decoder *d, const struct kprof_record_header *h,
			   uint64_t off)
{
	switch (h->type) {
	case KPROF_RECORD_SAMPLE: {
		const struct kp_rec_sample *s = (const void *)h;

		d->nr_samples++;
		d->events[s->event].samples++;
		d->events[s->event].period += s->period;
		return decoder__index(d, s->time, off);
	}
	case KP_DATA_REC_AGG: {
		const struct kp_rec_agg *a = (const void *)h;

		d->nr_samples += a->count;
		d->events[a->event].samples += a->count;
		d->events[a->event].period += decoder__agg_period(d, a);
		return decoder__index(d, UINT64_MAX, off);
	}
	case KP_DATA_REC_WAKER:
		/* not samples: the blocks are the AGG records already */
		return decoder__waker(d, off);
	case KPROF_RECORD_LOST:
		d->lost += ((const struct kp_rec_lost *)h)->lost;
		return 0;
	case KPROF_RECORD_THROTTLE:
		d->throttles++;
		return 0;
	case KP_DATA_REC_STATS: {
		const struct kp_rec_stats *st = (const void *)h;

		/* v[2] lost_full, v[3] lost_too_big, lost_recursion (1.1), lost_cost (1.3) */
		if (st->cpu == KP_DATA_STATS_TOTAL && st->nr >= 4) {
			d->has_stats = true;
			d->lost_stats = st->v[2] + st->v[3] + kp_rec_stats__lost_recursion(st) +
					kp_rec_stats__lost_cost(st);
		}
		/* an aggregated profile: the samples the tables lost */
		if (st->cpu == KP_DATA_STATS_TOTAL && st->nr >= KP_DATA_STATS_AGG_NR &&
		    d->info.version >= KP_DATA_VERSION_AGG &&
		    (d->info.session.flags & KPROF_SESSION_F_AGGREGATE))
			d->lost_stats =
				st->v[KPROF_STATS_A_LOST_AGG_FULL - KPROF_STATS_A_INVOCATIONS] +
				st->v[KPROF_STATS_A_LOST_AGG_RESET - KPROF_STATS_A_INVOCATIONS] +
				kp_rec_stats__lost_recursion(st) + kp_rec_stats__lost_cost(st);
		return 0;
	}
	}
	return kp_machine__add(d->machine, h);
}

static int ref__cmp(const void *a, const void *b)
{
	const struct kp_sample_ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/*
 * Check and collect every record, straight from the mapping: the checks
 * and messages of kp_data__next() (Documentation/kprof-data.rst), without
 * copying the file through stdio.
 */
static int decoder__walk(struct kp_decoder *d, struct kp_err *err)
{
	const struct kp_record_ctx ctx = {
		.nr_events = d->info.session.nr_events,
		.max_depth = d->info.session.stack_depth,
		.file_types = true,
		.agg_types = d->info.version >= KP_DATA_VERSION_AGG,
		.switch_types = d->info.version >= KP_DATA_VERSION_SWITCH,
	};
	uint64_t off = d->info.header_size, size = d->map_len, nr = 0;
	char why[192];
	int ret;

	while (off < size) {
		const struct kprof_record_header *h = (const void *)(d->map + off);
		const char *name;

		if (d->finished)
			return kp_data__corrupt(d->path, err, off, "data after the FINISHED record");
		if (size - off < sizeof(*h))
			return kp_data__corrupt(d->path, err, off,
						"file truncated in the record header (%" PRIu64 " of %zu bytes)",
						size - off, sizeof(*h));
		if (h->size < sizeof(*h) || h->size % 8)
			return kp_data__corrupt(d->path, err, off, "bad record size %u (type %u)",
						h->size, h->type);
		if (h->size > size - off) {
			name = kp_record__type_name(h->type);
			return kp_data__corrupt(d->path, err, off, "file truncated in the %s (%" PRIu64
						" of %u bytes)", name ? name : "record", size - off,
						h->size);
		}
		if (kp_record__check(h, &ctx, why, sizeof(why)))
			return kp_data__corrupt(d->path, err, off, "%s", why);
		if (h->type == KP_DATA_REC_FINISHED) {
			const struct kp_rec_finished *fin = (const void *)h;
			uint64_t data = off - d->info.header_size;

			if (fin->nr_records != nr || fin->data_size != data)
				return kp_data__corrupt(d->path, err, off,
					"FINISHED counts %" PRIu64 " records in %" PRIu64
					" bytes, the file has %" PRIu64 " in %" PRIu64,
					fin->nr_records, fin->data_size, nr, data);
			d->finished = true;
		} else {
			nr++;
		}
		d->nr_records++;
		ret = decoder__record(d, h, off);
		if (ret) {
			kp_err__set(err, -ret, "%s", strerror(-ret));
			return ret;
		}
		off += h->size;
	}
	if ((d->info.flags & KP_DATA_F_FINISHED) && !d->finished)
		return kp_data__corrupt(d->path, err, off, "the file ends without its FINISHED record");
	return 0;
}

int kp_decoder__open(struct kp_decoder *d, const char *path, const struct kp_decode_opts *opts,
		     struct kp_err *err)
{
	struct kp_data *data;
	uint32_t vdso_size;
	struct stat st;
	uint32_t i;
	void *vdso;
	int ret, fd;

	memset(d, 0, sizeof(*d));
	d->path = path;
	d->cmd = opts->machine.cmd;
	d->max_frames = opts->max_frames;
	d->machine = kp_machine__new(&opts->machine);
	d->res = malloc(sizeof(*d->res));
	d->agg_sample = malloc(sizeof(*d->agg_sample) + 2 * KPROF_MAX_STACK_DEPTH * 8);
	d->waker_res = malloc(sizeof(*d->waker_res));
	d->waker_sample = malloc(sizeof(*d->waker_sample) + 2 * KPROF_MAX_STACK_DEPTH * 8);
	if (!d->machine || !d->res || !d->agg_sample || !d->waker_res || !d->waker_sample) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out_close;
	}
	/* the header, its sections and their checks */
	data = kp_data__open(path, err);
	if (!data) {
		ret = err->errnum ? -err->errnum : -EIO;
		goto out_close;
	}
	d->info = *kp_data__info(data);
	for (i = 0; i < d->info.session.nr_events; i++)
		d->has_offcpu |= d->info.session.events[i].type == KPROF_TYPE_OFFCPU;
	kp_data__take_tp_formats(data, &d->tp_formats);
	vdso = kp_data__take_vdso(data, &vdso_size);
	kp_machine__set_vdso(d->machine, vdso, vdso_size);
	kp_data__close(data);
	kp_machine__set_origin(d->machine, d->info.hostname, d->info.release);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		kp_err__set(err, errno, "cannot open '%s': %s", path, strerror(errno));
		ret = -EIO;
		if (fd >= 0)
			close(fd);
		goto out_close;
	}
	d->map_len = st.st_size;
	if (d->map_len > d->info.header_size) {
		d->map = mmap(NULL, d->map_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
		if (d->map == MAP_FAILED) {
			d->map = NULL;
			kp_err__set(err, errno, "cannot map '%s': %s", path, strerror(errno));
			close(fd);
			ret = -EIO;
			goto out_close;
		}
		madvise((void *)d->map, d->map_len, MADV_SEQUENTIAL);
	}
	close(fd);

	ret = d->map ? decoder__walk(d, err) : 0;
	/*
	 * A writer that was killed leaves a file without FINISHED that may
	 * end in the middle of a record: keep what precedes it.
	 */
	if (ret == -EBADMSG && !(d->info.flags & KP_DATA_F_FINISHED) &&
	    strstr(err->msg, ": file truncated in the ")) {
		kp_error(d->cmd, "warning: %s; ignoring the partial record", err->msg);
		d->partial = true;
		ret = 0;
	}
	if (ret < 0)
		goto out_close;
	ret = kp_machine__prepare(d->machine);
	if (ret) {
		kp_err__set(err, -ret, "%s", strerror(-ret));
		goto out_close;
	}
	if (opts->time.nr) {
		struct kp_time_ranges t = opts->time;
		uint64_t first = UINT64_MAX, last = 0;
		size_t i, n = 0;

		/* percent slices are of the span from the first sample to the last */
		for (i = 0; i < d->nr_index; i++) {
			first = d->index[i].time < first ? d->index[i].time : first;
			last = d->index[i].time > last ? d->index[i].time : last;
		}
		kp_time_ranges__resolve(&t, first, last);
		for (i = 0; i < d->nr_index; i++)
			if (kp_time_ranges__has(&t, d->index[i].time))
				d->index[n++] = d->index[i];
		d->nr_index = n;
	}
	if (opts->time_order && d->nr_index)
		qsort(d->index, d->nr_index, sizeof(*d->index), ref__cmp);
	return 0;

out_close:
	kp_decoder__close(d);
	return ret < 0 ? ret : -EIO;
}

/* Resolve @s into d->res; off-CPU time is marked (kp_resolved.offcpu). */
static void decoder__resolve(struct kp_decoder *d, const struct kp_rec_sample *s)
{
	kp_machine__resolve(d->machine, s, d->res, d->max_frames);
	d->res->offcpu = s->event < d->info.session.nr_events &&
			 d->info.session.events[s->event].type == KPROF_TYPE_OFFCPU;
}

/* Chains of @pid as a SAMPLE at @s (room for 2 * KPROF_MAX_STACK_DEPTH frames). */
static void decoder__chains(const struct kp_decoder *d, struct kp_rec_sample *s, uint32_t pid,
			    uint16_t event, const uint64_t *ips, uint16_t nr_kernel,
			    uint16_t nr_user)
{
	unsigned int nr = nr_kernel + nr_user;

	memset(s, 0, sizeof(*s));
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = nr_kernel ? KPROF_MISC_KERNEL : KPROF_MISC_USER;
	s->header.size = sizeof(*s) + nr * 8;
	s->time = d->info.end_time ? d->info.end_time : UINT64_MAX - 1;
	s->ip = nr ? ips[0] : 0;
	s->pid = s->tid = pid;
	s->event = event;
	s->nr_kernel = nr_kernel;
	s->nr_user = nr_user;
	memcpy(s->ips, ips, nr * 8);
}

/* An AGG record as the SAMPLE it sums up, at the end of the recording. */
static const struct kp_rec_sample *decoder__agg(struct kp_decoder *d,
						const struct kp_rec_agg *a)
{
	struct kp_rec_sample *s = d->agg_sample;

	if (a->nr_kernel + a->nr_user > 2 * KPROF_MAX_STACK_DEPTH)
		return NULL;
	decoder__chains(d, s, a->pid, a->event, a->ips, a->nr_kernel, a->nr_user);
	/* an image left by an exec: the mappings the process had under that name */
	s->time = kp_machine__comm_time(d->machine, a->pid, a->comm, s->time);
	s->period = decoder__agg_period(d, a);
	return s;
}

int kp_decoder__for_each_waker(struct kp_decoder *d, kp_waker_fn fn, void *arg)
{
	size_t i;
	int ret;

	for (i = 0; i < d->nr_wakers; i++) {
		const struct kp_rec_waker *w;
		uint64_t off = d->wakers[i];
		unsigned int nr;

		/* The file changed since it was checked: stop, do not crash. */
		if (off + sizeof(*w) > d->map_len)
			return -EIO;
		w = (const void *)(d->map + off);
		nr = w->nr_kernel + w->nr_user;
		if (w->header.type != KP_DATA_REC_WAKER || off + w->header.size > d->map_len ||
		    sizeof(*w) + (nr + w->waker_nr_kernel + w->waker_nr_user) * 8ULL >
		    w->header.size || nr > 2 * KPROF_MAX_STACK_DEPTH ||
		    w->waker_nr_kernel + w->waker_nr_user > 2 * KPROF_MAX_STACK_DEPTH)
			return -EIO;
		decoder__chains(d, d->agg_sample, w->pid, w->event, w->ips, w->nr_kernel,
				w->nr_user);
		d->agg_sample->time = kp_machine__comm_time(d->machine, w->pid, w->comm,
							    d->agg_sample->time);
		decoder__resolve(d, d->agg_sample);
		d->res->count = w->count;
		d->res->comm = kp_machine__intern(d->machine, w->comm);
		decoder__chains(d, d->waker_sample, w->waker_pid, w->event, w->ips + nr,
				w->waker_nr_kernel, w->waker_nr_user);
		d->waker_sample->time = kp_machine__comm_time(d->machine, w->waker_pid,
							      w->waker_comm, d->waker_sample->time);
		kp_machine__resolve(d->machine, d->waker_sample, d->waker_res, d->max_frames);
		d->waker_res->count = w->count;
		d->waker_res->comm = kp_machine__intern(d->machine, w->waker_comm);
		if (!d->res->comm || !d->waker_res->comm)
			return -ENOMEM;
		ret = fn(d, w, d->res, d->waker_res, arg);
		if (ret)
			return ret;
	}
	return 0;
}

int kp_decoder__for_each(struct kp_decoder *d, kp_sample_fn fn, void *arg)
{
	size_t i;
	int ret;

	for (i = 0; i < d->nr_index; i++) {
		const struct kprof_record_header *h;
		const struct kp_rec_sample *s;
		uint64_t off = d->index[i].offset;

		/* The file changed since it was checked: stop, do not crash. */
		if (off + sizeof(*s) > d->map_len)
			return -EIO;
		h = (const void *)(d->map + off);
		if (off + h->size > d->map_len)
			return -EIO;
		if (h->type == KP_DATA_REC_AGG) {
			const struct kp_rec_agg *a = (const void *)h;

			s = decoder__agg(d, a);
			if (!s)
				return -EIO;
			decoder__resolve(d, s);
			d->res->count = a->count;
			d->res->comm = kp_machine__intern(d->machine, a->comm);
			if (!d->res->comm)
				return -ENOMEM;
		} else {
			s = (const void *)h;
			if (h->type != KPROF_RECORD_SAMPLE ||
			    sizeof(*s) + (s->nr_kernel + s->nr_user) * 8ULL > h->size)
				return -EIO;
			decoder__resolve(d, s);
		}
		ret = fn(d, d->res, arg);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- samples added up by stack ---- */

#define STACK_HDR	4		/* key words before the addresses */
#define STACK_FLUSH	(8U << 20)	/* key words kept before resolving */

struct stack_ent {
	uint64_t	hash;
	uint64_t	word;		/* first key word in ->words */
	uint32_t	nr;		/* key words */
	uint32_t	used;
	uint64_t	count;
	uint64_t	period;
	uint64_t	time;		/* of the first sample */
};

struct stack_table {
	struct stack_ent	*ents;
	size_t			mask, used;
	uint64_t		*words;
	size_t			nr_words, words_alloc;
	uint64_t		key[STACK_HDR + 2 * KPROF_MAX_STACK_DEPTH + 1];	/* leaf fix-up within */
};

static int stacks__grow(struct stack_table *t)
{
	size_t size = t->mask ? (t->mask + 1) * 2 : 4096, i, j;
	struct stack_ent *n = calloc(size, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (i = 0; t->ents && i <= t->mask; i++) {
		if (!t->ents[i].used)
			continue;
		for (j = t->ents[i].hash & (size - 1); n[j].used; j = (j + 1) & (size - 1))
			;
		n[j] = t->ents[i];
	}
	free(t->ents);
	t->ents = n;
	t->mask = size - 1;
	return 0;
}

/* A hash of @nr words in four independent lanes: no dependency chain. */
static uint64_t words__hash(const uint64_t *w, uint32_t nr)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xc2b2ae3d27d4eb4fULL;
	uint64_t c = 0x165667b19e3779f9ULL, d = 0x27d4eb2f165667c5ULL, h;
	uint32_t k = 0;

	for (; k + 4 <= nr; k += 4) {
		a = (a ^ w[k]) * 0xff51afd7ed558ccdULL;
		b = (b ^ w[k + 1]) * 0xc4ceb9fe1a85ec53ULL;
		c = (c ^ w[k + 2]) * 0xff51afd7ed558ccdULL;
		d = (d ^ w[k + 3]) * 0xc4ceb9fe1a85ec53ULL;
	}
	for (; k < nr; k++)
		a = (a ^ w[k]) * 0xff51afd7ed558ccdULL;
	h = (a ^ (b >> 29)) + (c ^ (d >> 31)) * 0x9e3779b97f4a7c15ULL + nr;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	return h ^ (h >> 32);
}

static int stacks__add(struct stack_table *t, uint32_t nr, uint64_t period, uint64_t time)
{
	uint64_t h = words__hash(t->key, nr), *key = t->key;
	struct stack_ent *e;
	size_t i;

	if ((!t->ents || (t->used + 1) * 2 > t->mask + 1) && stacks__grow(t))
		return -ENOMEM;
	for (i = h & t->mask; t->ents[i].used; i = (i + 1) & t->mask) {
		e = &t->ents[i];
		if (e->hash == h && e->nr == nr &&
		    !memcmp(&t->words[e->word], key, nr * sizeof(*key))) {
			e->count++;
			e->period += period;
			return 0;
		}
	}
	if (t->nr_words + nr > t->words_alloc) {
		size_t n = t->words_alloc ? t->words_alloc * 2 : 65536;
		uint64_t *w;

		while (n < t->nr_words + nr)
			n *= 2;
		w = realloc(t->words, n * sizeof(*w));
		if (!w)
			return -ENOMEM;
		t->words = w;
		t->words_alloc = n;
	}
	memcpy(&t->words[t->nr_words], key, nr * sizeof(*key));
	e = &t->ents[i];
	e->used = 1;
	e->hash = h;
	e->word = t->nr_words;
	e->nr = nr;
	e->count = 1;
	e->period = period;
	e->time = time;
	t->nr_words += nr;
	t->used++;
	return 0;
}

/* Resolve each distinct stack once and hand it to @fn; empty the table. */
static int stacks__flush(struct kp_decoder *d, struct stack_table *t, kp_sample_fn fn,
			 void *arg)
{
	struct kp_rec_sample *s = d->agg_sample;
	size_t i;
	int ret = 0;

	for (i = 0; t->ents && i <= t->mask && !ret; i++) {
		const struct stack_ent *e = &t->ents[i];
		const uint64_t *w;

		if (!e->used)
			continue;
		w = &t->words[e->word];
		memset(s, 0, sizeof(*s));
		s->header.type = KPROF_RECORD_SAMPLE;
		s->event = w[0] & 0xffff;
		s->nr_kernel = (w[0] >> 16) & 0xffff;
		s->nr_user = (w[0] >> 32) & 0xffff;
		/* w[0]'s top bits: the misc of a sample without frames, else the leaf fix-up's */
		s->header.misc = (s->nr_kernel + s->nr_user) ? 0 : (w[0] >> 48) & 0xffff;
		s->pid = w[1] & 0xffffffff;
		s->tid = w[1] >> 32;
		s->cpu = w[3] >> 32;
		s->time = e->time;
		s->period = e->period;
		if (s->nr_kernel + s->nr_user) {
			memcpy(s->ips, w + STACK_HDR, (s->nr_kernel + s->nr_user) * 8);
			s->ip = s->ips[0];
		} else {
			s->ip = w[STACK_HDR];
		}
		s->header.size = sizeof(*s) + (s->nr_kernel + s->nr_user) * 8;
		decoder__resolve(d, s);
		if (s->nr_kernel + s->nr_user)
			d->res->leaf = (enum kp_leaf)((w[0] >> 48) & 0xff);
		d->res->count = e->count;
		d->res->comm = (const char *)(uintptr_t)w[2];
		ret = fn(d, d->res, arg);
	}
	if (t->ents)
		memset(t->ents, 0, (t->mask + 1) * sizeof(*t->ents));
	t->used = 0;
	t->nr_words = 0;
	return ret;
}

int kp_decoder__for_each_stack(struct kp_decoder *d, unsigned int flags, kp_sample_fn fn,
			       void *arg)
{
	struct stack_table *t = calloc(1, sizeof(*t));
	size_t i;
	int ret = 0;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < d->nr_index && !ret; i++) {
		const struct kprof_record_header *h;
		const struct kp_rec_sample *s;
		uint64_t off = d->index[i].offset, *key = t->key;
		struct kp_leaf_walk w;
		unsigned int nr, nu;
		const char *comm;
		enum kp_leaf leaf;

		if (off + sizeof(*s) > d->map_len) {
			ret = -EIO;
			break;
		}
		h = (const void *)(d->map + off);
		if (off + h->size > d->map_len) {
			ret = -EIO;
			break;
		}
		if (h->type == KP_DATA_REC_AGG) {
			const struct kp_rec_agg *a = (const void *)h;

			s = decoder__agg(d, a);
			if (!s) {
				ret = -EIO;
				break;
			}
			decoder__resolve(d, s);
			d->res->count = a->count;
			d->res->comm = kp_machine__intern(d->machine, a->comm);
			ret = d->res->comm ? fn(d, d->res, arg) : -ENOMEM;
			continue;
		}
		s = (const void *)h;
		nr = s->nr_kernel + s->nr_user;
		if (h->type != KPROF_RECORD_SAMPLE || sizeof(*s) + nr * 8ULL > h->size ||
		    nr > 2 * KPROF_MAX_STACK_DEPTH) {
			ret = -EIO;
			break;
		}
		comm = kp_machine__comm(d->machine, s->pid, s->tid, s->time);
		/* the leaf fix-up's frames are part of the stack */
		leaf = kp_machine__leaf_fixup(d->machine, s, 2 * KPROF_MAX_STACK_DEPTH - nr, &w);
		nu = s->nr_user;
		if (w.nr_walk)
			nu = kp_leaf_walk__chain(&w, s->ips + s->nr_kernel, s->nr_user,
						 key + STACK_HDR + s->nr_kernel);
		else if (nu)
			memcpy(key + STACK_HDR + s->nr_kernel, s->ips + s->nr_kernel, nu * 8);
		if (s->nr_kernel)
			memcpy(key + STACK_HDR, s->ips, s->nr_kernel * 8);
		if (!nr)
			key[STACK_HDR] = s->ip;
		key[0] = s->event | (uint64_t)s->nr_kernel << 16 | (uint64_t)nu << 32 |
			 (uint64_t)(nr ? leaf : h->misc) << 48;
		key[1] = s->pid | (uint64_t)(flags & KP_STACK_TID ? s->tid : s->pid) << 32;
		key[2] = (uintptr_t)comm;
		key[3] = kp_machine__epoch(d->machine, s->pid, s->time) |
			 (uint64_t)(flags & KP_STACK_CPU ? s->cpu : 0) << 32;
		nr = s->nr_kernel + nu;
		ret = stacks__add(t, STACK_HDR + (nr ? nr : 1), s->period, s->time);
		if (!ret && t->nr_words > STACK_FLUSH)
			ret = stacks__flush(d, t, fn, arg);
	}
	if (!ret)
		ret = stacks__flush(d, t, fn, arg);
	free(t->ents);
	free(t->words);
	free(t);
	return ret;
}

void kp_decoder__close(struct kp_decoder *d)
{
	if (d->map)
		munmap((void *)d->map, d->map_len);
	kp_machine__delete(d->machine);
	free(d->index);
	free(d->res);
	free(d->agg_sample);
	free(d->wakers);
	free(d->waker_res);
	free(d->waker_sample);
	kp_tp_formats__exit(&d->tp_formats);
	memset(d, 0, sizeof(*d));
}

uint64_t kp_decoder__lost(const struct kp_decoder *d)
{
	return d->has_stats && d->lost_stats > d->lost ? d->lost_stats : d->lost;
}

const char *kp_decoder__event_name(const struct kp_decoder *d, unsigned int i)
{
	if (i >= d->info.session.nr_events)
		return "[unknown]";
	return d->info.session.events[i].name;
}

/* ---- filters ---- */

/* Split @list (a copy in *@cursor's buffer) at commas into @out. */
static int filter__split(char **cursor, const char *list, const char **out, unsigned int *nr)
{
	char *p = *cursor, *tok, *save = NULL;
	size_t len = strlen(list) + 1;

	memcpy(p, list, len);
	*cursor = p + len;
	for (tok = strtok_r(p, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*nr == KP_FILTER_MAX)
			return -E2BIG;
		out[(*nr)++] = tok;
	}
	return *nr ? 0 : -EINVAL;
}

static int filter__ids(const char *cmd, const char *opt, const char *list, uint32_t *ids,
		       unsigned int *nr)
{
	const char *tok[KP_FILTER_MAX];
	unsigned int i, n = 0;
	char *copy = strdup(list), *cursor = copy;
	int ret;

	if (!copy)
		return -ENOMEM;
	ret = filter__split(&cursor, list, tok, &n);
	for (i = 0; !ret && i < n; i++) {
		unsigned int v;

		if (kp_parse_uint(tok[i], &v)) {
			kp_error(cmd, "bad --%s value '%s': not a number", opt, tok[i]);
			free(copy);
			return KP_EXIT_USAGE;
		}
		ids[i] = v;
	}
	*nr = n;
	free(copy);
	if (ret) {
		kp_error(cmd, "bad --%s value '%s'%s", opt, list,
			 ret == -E2BIG ? ": too many entries" : "");
		return KP_EXIT_USAGE;
	}
	return 0;
}

int kp_filter__init(struct kp_filter *f, const char *cmd, const char *comms, const char *pids,
		    const char *tids, const char *dsos, bool kernel_only, bool user_only)
{
	size_t len = (comms ? strlen(comms) + 1 : 0) + (dsos ? strlen(dsos) + 1 : 0) + 1;
	char *cursor;
	int ret;

	memset(f, 0, sizeof(*f));
	if (kernel_only && user_only) {
		kp_error(cmd, "--kernel and --user exclude each other");
		return KP_EXIT_USAGE;
	}
	f->kernel_only = kernel_only;
	f->user_only = user_only;
	f->buf = malloc(len);
	if (!f->buf) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		return KP_EXIT_FAILURE;
	}
	cursor = f->buf;
	if (comms && filter__split(&cursor, comms, f->comms, &f->nr_comms)) {
		kp_error(cmd, "bad --comms value '%s'", comms);
		return KP_EXIT_USAGE;
	}
	if (dsos && filter__split(&cursor, dsos, f->dsos, &f->nr_dsos)) {
		kp_error(cmd, "bad --dsos value '%s'", dsos);
		return KP_EXIT_USAGE;
	}
	if (pids) {
		ret = filter__ids(cmd, "pids", pids, f->pids, &f->nr_pids);
		if (ret)
			return ret;
	}
	if (tids) {
		ret = filter__ids(cmd, "tids", tids, f->tids, &f->nr_tids);
		if (ret)
			return ret;
	}
	return 0;
}

void kp_filter__exit(struct kp_filter *f)
{
	free(f->buf);
	f->buf = NULL;
}

static bool filter__has_id(const uint32_t *ids, unsigned int nr, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (ids[i] == id)
			return true;
	return false;
}

bool kp_filter__sample(const struct kp_filter *f, const struct kp_resolved *s,
		       unsigned int *first, unsigned int *last)
{
	const struct kp_rec_sample *r = s->rec;
	unsigned int i;

	if ((f->no_offcpu && s->offcpu) || (f->offcpu_only && !s->offcpu))
		return false;
	*first = 0;
	*last = s->nr_frames;
	if (f->kernel_only)
		*last = s->nr_kernel;
	else if (f->user_only)
		*first = s->nr_kernel;
	if (*first >= *last)
		return false;
	if (f->nr_pids && !filter__has_id(f->pids, f->nr_pids, r->pid))
		return false;
	if (f->nr_tids && !filter__has_id(f->tids, f->nr_tids, r->tid))
		return false;
	if (f->nr_comms) {
		for (i = 0; i < f->nr_comms; i++)
			if (!strcmp(f->comms[i], s->comm))
				break;
		if (i == f->nr_comms)
			return false;
	}
	if (f->nr_dsos) {
		const struct kp_dso *dso = s->frames[*first].dso;
		const char *name = dso ? dso->name : KP_UNKNOWN;
		const char *short_name = dso ? dso->short_name : KP_UNKNOWN;

		for (i = 0; i < f->nr_dsos; i++)
			if (!strcmp(f->dsos[i], name) || !strcmp(f->dsos[i], short_name))
				break;
		if (i == f->nr_dsos)
			return false;
	}
	return true;
}
