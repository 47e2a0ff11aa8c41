// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregated profiles; see agg.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "rundir.h"
#include "synth.h"
#include "util.h"

struct kp_agg_slot {
	uint64_t		hash;
	struct kp_rec_agg	*rec;		/* NULL: empty */
};

struct kp_agg {
	struct kp_agg_slot	*slots;
	size_t			cap;		/* a power of two */
	size_t			nr;
	uint64_t		nr_entries;
	uint64_t		samples;
	uint64_t		offcpu_ns;	/* off-CPU entries' time, not samples */
	int			max_event;
	unsigned int		max_depth;
	const struct kp_rec_agg	**sorted;	/* kp_agg__sort() */
	size_t			nr_sorted;
	struct kp_rec_waker	**wakers;	/* waker entries, as they came */
	size_t			nr_wakers, wakers_cap;
};

struct kp_agg *kp_agg__new(void)
{
	struct kp_agg *a = calloc(1, sizeof(*a));

	if (a)
		a->max_event = -1;
	return a;
}

void kp_agg__delete(struct kp_agg *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->cap; i++)
		free(a->slots[i].rec);
	for (i = 0; i < a->nr_wakers; i++)
		free(a->wakers[i]);
	free(a->wakers);
	free(a->slots);
	free(a->sorted);
	free(a);
}

/* A block's waker entry (ABI 1.7), kept as a WAKER record of its own. */
static int agg__add_waker(struct kp_agg *a, const struct kp_agg_entry *e, struct kp_err *err)
{
	uint32_t nr = e->nr_kernel + e->nr_user + e->waker_nr_kernel + e->waker_nr_user;
	size_t size = sizeof(struct kp_rec_waker) + nr * sizeof(uint64_t);
	struct kp_rec_waker *w;
	uint64_t *ips;

	if (!e->count && !e->time_ns)
		return 0;	/* no block it woke has ended (or, ABI 1.15, had time in an interval) */
	if (e->event >= KPROF_MAX_EVENTS || e->nr_kernel > KPROF_MAX_STACK_DEPTH ||
	    e->nr_user > KPROF_MAX_STACK_DEPTH || e->waker_nr_kernel > KPROF_MAX_STACK_DEPTH ||
	    e->waker_nr_user > KPROF_MAX_STACK_DEPTH) {
		kp_err__set(err, EBADMSG, "bad waker entry: event %u, %u+%u and %u+%u frames",
			    e->event, e->nr_kernel, e->nr_user, e->waker_nr_kernel,
			    e->waker_nr_user);
		return -EBADMSG;
	}
	if (a->nr_wakers == a->wakers_cap) {
		size_t cap = a->wakers_cap ? a->wakers_cap * 2 : 256;
		struct kp_rec_waker **v = realloc(a->wakers, cap * sizeof(*v));

		if (!v)
			goto nomem;
		a->wakers = v;
		a->wakers_cap = cap;
	}
	w = calloc(1, size);
	if (!w)
		goto nomem;
	w->header.type = KP_DATA_REC_WAKER;
	w->header.size = size;
	w->count = e->count;
	w->time_ns = e->time_ns;
	w->pid = e->pid;
	w->event = e->event;
	w->nr_kernel = e->nr_kernel;
	w->nr_user = e->nr_user;
	w->waker_nr_kernel = e->waker_nr_kernel;
	w->waker_nr_user = e->waker_nr_user;
	w->waker_pid = e->waker_pid;
	snprintf(w->comm, sizeof(w->comm), "%s", e->comm);
	snprintf(w->waker_comm, sizeof(w->waker_comm), "%s", e->waker_comm);
	ips = w->ips;
	memcpy(ips, e->kernel, e->nr_kernel * sizeof(uint64_t));
	ips += e->nr_kernel;
	memcpy(ips, e->user, e->nr_user * sizeof(uint64_t));
	ips += e->nr_user;
	memcpy(ips, e->waker_kernel, e->waker_nr_kernel * sizeof(uint64_t));
	ips += e->waker_nr_kernel;
	memcpy(ips, e->waker_user, e->waker_nr_user * sizeof(uint64_t));
	a->wakers[a->nr_wakers++] = w;
	if ((int)e->event > a->max_event)
		a->max_event = e->event;
	for (nr = 0; nr < 4; nr++) {
		uint32_t n = nr == 0 ? e->nr_kernel : nr == 1 ? e->nr_user :
			     nr == 2 ? e->waker_nr_kernel : e->waker_nr_user;

		if (n > a->max_depth)
			a->max_depth = n;
	}
	return 0;
nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

/* FNV-1a over the key, then a final mix. */
static uint64_t key_hash(const struct kp_agg_entry *e)
{
	uint64_t h = 0xcbf29ce484222325ULL, v[2] = { (uint64_t)e->event << 32 | e->pid,
						     (uint64_t)e->nr_kernel << 32 | e->nr_user };
	uint32_t i, n, nr_kernel = e->nr_kernel, nr_user = e->nr_user;
	const uint64_t *kernel = e->kernel, *user = e->user;
	const unsigned char *p;

	for (p = (const unsigned char *)e->comm; *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	for (n = 0; n < 4; n++) {
		const uint64_t *src = n == 0 ? v : n == 1 ? v + 1 : n == 2 ? kernel : user;
		uint32_t words = n < 2 ? 1 : n == 2 ? nr_kernel : nr_user;

		p = (const unsigned char *)src;
		for (i = 0; i < words * 8; i++) {
			h ^= p[i];
			h *= 0x100000001b3ULL;
		}
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static bool key_same(const struct kp_rec_agg *r, const struct kp_agg_entry *e)
{
	return r->event == e->event && r->pid == e->pid && r->nr_kernel == e->nr_kernel &&
	       r->nr_user == e->nr_user && !strncmp(r->comm, e->comm, sizeof(r->comm) - 1) &&
	       !memcmp(r->ips, e->kernel, e->nr_kernel * sizeof(uint64_t)) &&
	       !memcmp(r->ips + e->nr_kernel, e->user, e->nr_user * sizeof(uint64_t));
}

static int agg__grow(struct kp_agg *a)
{
	size_t cap = a->cap ? a->cap * 2 : 1024, i, j;
	struct kp_agg_slot *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < a->cap; i++) {
		if (!a->slots[i].rec)
			continue;
		for (j = a->slots[i].hash & (cap - 1); slots[j].rec; j = (j + 1) & (cap - 1))
			;
		slots[j] = a->slots[i];
	}
	free(a->slots);
	a->slots = slots;
	a->cap = cap;
	return 0;
}

int kp_agg__add(struct kp_agg *a, const struct kp_agg_entry *e, struct kp_err *err)
{
	/* an off-CPU entry's weight is its time (ns), a sample entry's its count */
	uint64_t count = e->time_ns ? e->time_ns : e->count;
	struct kp_rec_agg *r;
	uint64_t hash;
	size_t i, size;

	if (!count)
		return 0;	/* nothing counted: not a sample */
	/*
	 * A block's waker entry (ABI 1.7) repeats the block's time under the
	 * block's key: AGG records keep the blocks once, WAKER records the
	 * wakers.
	 */
	if (e->has_waker)
		return agg__add_waker(a, e, err);
	if (e->event >= KPROF_MAX_EVENTS || e->nr_kernel > KPROF_MAX_STACK_DEPTH ||
	    e->nr_user > KPROF_MAX_STACK_DEPTH) {
		kp_err__set(err, EBADMSG, "bad aggregation entry: event %u, %u+%u frames",
			    e->event, e->nr_kernel, e->nr_user);
		return -EBADMSG;
	}
	free(a->sorted);
	a->sorted = NULL;
	a->nr_sorted = 0;
	if ((a->nr + 1) * 2 > a->cap && agg__grow(a))
		goto nomem;

	hash = key_hash(e);
	for (i = hash & (a->cap - 1); a->slots[i].rec; i = (i + 1) & (a->cap - 1)) {
		r = a->slots[i].rec;
		if (a->slots[i].hash == hash && key_same(r, e)) {
			r->count += count;
			r->nr_entries++;
			goto counted;
		}
	}

	size = sizeof(*r) + ((size_t)e->nr_kernel + e->nr_user) * sizeof(uint64_t);
	r = calloc(1, size);
	if (!r)
		goto nomem;
	r->header.type = KP_DATA_REC_AGG;
	r->header.size = size;
	r->count = count;
	r->pid = e->pid;
	r->event = e->event;
	r->nr_kernel = e->nr_kernel;
	r->nr_user = e->nr_user;
	r->nr_entries = 1;
	snprintf(r->comm, sizeof(r->comm), "%s", e->comm);
	memcpy(r->ips, e->kernel, e->nr_kernel * sizeof(uint64_t));
	memcpy(r->ips + e->nr_kernel, e->user, e->nr_user * sizeof(uint64_t));
	a->slots[i].hash = hash;
	a->slots[i].rec = r;
	a->nr++;
	if ((int)e->event > a->max_event)
		a->max_event = e->event;
	if (e->nr_kernel > a->max_depth)
		a->max_depth = e->nr_kernel;
	if (e->nr_user > a->max_depth)
		a->max_depth = e->nr_user;
counted:
	a->nr_entries++;
	if (e->time_ns)
		a->offcpu_ns += count;
	else
		a->samples += count;
	return 0;

nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

static int agg__dump_entry(const struct kp_agg_entry *e, void *arg, struct kp_err *err)
{
	return kp_agg__add(arg, e, err);
}

int kp_agg__fetch(struct kp_agg *a, struct kp_nl *nl, struct kp_err *err)
{
	return kp_nl__agg_dump(nl, agg__dump_entry, a, err);
}

int kp_agg__fetch_interval(struct kp_agg *a, struct kp_nl *nl, uint64_t epoch, struct kp_err *err)
{
	return kp_nl__agg_dump_interval(nl, epoch, agg__dump_entry, a, err);
}

size_t kp_agg__nr_keys(const struct kp_agg *a)
{
	return a->nr;
}

uint64_t kp_agg__nr_entries(const struct kp_agg *a)
{
	return a->nr_entries;
}

uint64_t kp_agg__samples(const struct kp_agg *a)
{
	return a->samples;
}

uint64_t kp_agg__offcpu_ns(const struct kp_agg *a)
{
	return a->offcpu_ns;
}

int kp_agg__max_event(const struct kp_agg *a)
{
	return a->max_event;
}

unsigned int kp_agg__max_depth(const struct kp_agg *a)
{
	return a->max_depth;
}

static int rec_cmp(const void *pa, const void *pb)
{
	const struct kp_rec_agg *x = *(const struct kp_rec_agg * const *)pa;
	const struct kp_rec_agg *y = *(const struct kp_rec_agg * const *)pb;
	size_t n;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (strcmp(x->comm, y->comm))
		return strcmp(x->comm, y->comm);
	if (x->nr_kernel != y->nr_kernel)
		return x->nr_kernel < y->nr_kernel ? -1 : 1;
	if (x->nr_user != y->nr_user)
		return x->nr_user < y->nr_user ? -1 : 1;
	n = ((size_t)x->nr_kernel + x->nr_user) * sizeof(uint64_t);
	return memcmp(x->ips, y->ips, n);
}

int kp_agg__sort(struct kp_agg *a, struct kp_err *err)
{
	size_t i, n = 0;

	if (a->sorted || !a->nr)
		return 0;
	a->sorted = malloc(a->nr * sizeof(*a->sorted));
	if (!a->sorted) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < a->cap; i++)
		if (a->slots[i].rec)
			a->sorted[n++] = a->slots[i].rec;
	qsort(a->sorted, n, sizeof(*a->sorted), rec_cmp);
	a->nr_sorted = n;
	return 0;
}

const struct kp_rec_agg * const *kp_agg__records(const struct kp_agg *a, size_t *nr)
{
	*nr = a->nr_sorted;
	return a->sorted;
}

static int u32_cmp(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;

	return x < y ? -1 : x > y;
}

int kp_agg__pids(const struct kp_agg *a, uint32_t **pids, size_t *nr, struct kp_err *err)
{
	uint32_t *p;
	size_t i, n = 0, u = 0;

	*pids = NULL;
	*nr = 0;
	if (!a->nr && !a->nr_wakers)
		return 0;
	p = malloc((a->nr + 2 * a->nr_wakers) * sizeof(*p));
	if (!p) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	for (i = 0; i < a->cap; i++)
		if (a->slots[i].rec)
			p[n++] = a->slots[i].rec->pid;
	/* the wakers' processes name their frames too */
	for (i = 0; i < a->nr_wakers; i++) {
		p[n++] = a->wakers[i]->pid;
		p[n++] = a->wakers[i]->waker_pid;
	}
	qsort(p, n, sizeof(*p), u32_cmp);
	for (i = 0; i < n; i++)
		if (!u || p[u - 1] != p[i])
			p[u++] = p[i];
	*pids = p;
	*nr = u;
	return 0;
}

/* ---- the session's configuration, left by 'kprofctl start' ---- */

int kp_agg__session_path(uint64_t id, char *buf, size_t len)
{
	return kp_rundir__state_path(id, "aggregate.data", buf, len);
}

int kp_agg__save_session(const struct kp_data_info *info, struct kp_err *err)
{
	struct kp_data_writer *w;
	char path[4096], tmp[4200];

	if (kp_agg__session_path(info->session_id, path, sizeof(path))) {
		kp_err__set(err, ENAMETOOLONG, "run directory '%s' is too long (KPROF_RUNDIR)",
			    kp_rundir__dir());
		return -ENAMETOOLONG;
	}
	if (kp_rundir__ensure_session(info->session_id, err))
		return -err->errnum;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	unlink(tmp);
	w = kp_data_writer__create(tmp, info, err);
	if (!w)
		return -EIO;
	if (kp_data_writer__finish(w, info->start_time, 0, err)) {
		kp_data_writer__delete(w);
		unlink(tmp);
		return -EIO;
	}
	kp_data_writer__delete(w);
	if (rename(tmp, path)) {
		kp_err__set(err, errno, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		return -errno;
	}
	return 0;
}

bool kp_agg__session_info(struct kp_data_info *info, const struct kp_status_info *st,
			  const struct kp_agg *a, const struct kp_data_info *known)
{
	struct kp_session *s = &info->session;
	struct kp_data *d = NULL;
	char path[4096];
	struct kp_err err;
	uint32_t i;

	if (!known && !kp_agg__session_path(st->session_id, path, sizeof(path)))
		d = kp_data__open(path, &err);
	if (known || d) {
		*info = known ? *known : *kp_data__info(d);
		if (d)
			kp_data__close(d);
		/* Session ids start again at 1 when the module is reloaded. */
		if (info->session_id == st->session_id && info->start_time >= st->loaded_ns &&
		    (int)info->session.nr_events > a->max_event &&
		    info->session.stack_depth >= a->max_depth) {
			info->version = KP_DATA_VERSION_AGG;
			info->flags = 0;
			info->end_time = 0;
			info->data_size = 0;
			return true;
		}
	}

	kp_data_info__init(info);
	info->version = KP_DATA_VERSION_AGG;
	info->session_id = st->session_id;
	info->nr_cpus = st->nr_cpus ? st->nr_cpus : 1;
	s->flags = st->session_flags;
	s->buffer_size = st->buffer_size;
	s->stack_depth = KPROF_MAX_STACK_DEPTH;
	s->nr_events = a->max_event < 0 ? 1 : a->max_event + 1;
	for (i = 0; i < s->nr_events; i++) {
		s->events[i].type = UINT32_MAX;		/* unknown */
		snprintf(s->events[i].name, sizeof(s->events[i].name), "event%u", i);
	}
	return false;
}

/* ---- writing an aggregated profile ---- */

struct agg_writer {
	struct kp_data_writer	*w;
};

static int synth_record(const struct kprof_record_header *rec, void *arg, struct kp_err *err)
{
	struct agg_writer *aw = arg;

	return kp_data_writer__write(aw->w, rec, err);
}

static int write_stats(struct kp_data_writer *w, uint32_t cpu, const struct kp_stats *st,
		       struct kp_err *err)
{
	struct kp_rec_stats_buf s;

	kp_rec_stats__fill(&s, cpu, st, st->has_agg);
	return kp_data_writer__write(w, &s.rec.header, err);
}

/* The comm of @pid in the tables: that of its first record (sorted), or waker entry. */
static const char *pid_comm(const struct kp_agg *a, const struct kp_rec_agg * const *recs,
			    size_t nr, uint32_t pid)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (recs[i]->pid == pid)
			return recs[i]->comm;
	for (i = 0; i < a->nr_wakers; i++) {
		if (a->wakers[i]->pid == pid)
			return a->wakers[i]->comm;
		if (a->wakers[i]->waker_pid == pid)
			return a->wakers[i]->waker_comm;
	}
	return "";
}

/*
 * The mappings the module kept (KPROF_CMD_AGG_MAPS) as MMAP records, in the
 * order it kept them (an image left by an exec or an exit, then at the
 * stop what each noted process still had), with the name the process had.
 */
struct kept_maps {
	struct kp_rec_mmap	**recs;
	char			(*comms)[KP_COMM_LEN];
	size_t			nr, cap;
};

static int kept_map(const struct kp_agg_map *m, void *arg, struct kp_err *err)
{
	struct kept_maps *k = arg;
	size_t len = strlen(m->path), size = sizeof(struct kp_rec_mmap) + ((len + 1 + 7) & ~7UL);
	struct kp_rec_mmap *r;

	if (size > KP_RECORD_MAX_SIZE)
		return 0;
	if (k->nr == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		void *n = realloc(k->recs, cap * sizeof(*k->recs));

		if (!n)
			goto nomem;
		k->recs = n;
		n = realloc(k->comms, cap * sizeof(*k->comms));
		if (!n)
			goto nomem;
		k->comms = n;
		k->cap = cap;
	}
	r = calloc(1, size);
	if (!r)
		goto nomem;
	r->header.type = KPROF_RECORD_MMAP;
	r->header.size = size;
	r->pid = m->pid;
	r->tid = m->pid;
	r->start = m->start;
	r->len = m->len;
	r->pgoff = m->pgoff;
	memcpy(r->filename, m->path, len);
	snprintf(k->comms[k->nr], sizeof(k->comms[k->nr]), "%s", m->comm);
	k->recs[k->nr++] = r;
	return 0;
nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

static void kept_maps__free(struct kept_maps *k)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		free(k->recs[i]);
	free(k->recs);
	free(k->comms);
}

/*
 * The kept mappings of @pid, one generation per name it had when they were
 * kept, each with a COMM of that name, dated just before @now in the order
 * kept: an AGG record of a name is resolved against that name's image
 * (kp_machine__comm_time()), what the process had at @now (/proc, or the
 * last generation for a process gone) against the rest.  *@any: there was
 * one; counted in @sst.
 */
static int write_kept_maps(struct kp_data_writer *w, const struct kept_maps *k, uint32_t pid,
			   uint64_t now, struct kp_synth_stats *sst, bool *any, struct kp_err *err)
{
	struct kp_rec_comm c = {
		.header = { .type = KPROF_RECORD_COMM, .size = sizeof(c) },
		.pid = pid,
		.tid = pid,
	};
	const char *last = NULL;
	uint64_t time, gens = 0;
	size_t i;
	int ret;

	for (i = 0; i < k->nr; i++) {
		if (k->recs[i]->pid != pid)
			continue;
		if (!last || strcmp(last, k->comms[i]))
			gens++;
		last = k->comms[i];
	}
	*any = gens;
	time = now - gens;
	last = NULL;
	for (i = 0; i < k->nr; i++) {
		if (k->recs[i]->pid != pid)
			continue;
		if (!last || strcmp(last, k->comms[i])) {
			c.time = time++;
			snprintf(c.comm, sizeof(c.comm), "%s", k->comms[i]);
			ret = kp_data_writer__write(w, &c.header, err);
			if (ret)
				return ret;
		}
		last = k->comms[i];
		k->recs[i]->time = c.time;
		ret = kp_data_writer__write(w, &k->recs[i]->header, err);
		if (ret)
			return ret;
		sst->nr_mmaps++;
	}
	return 0;
}

/* @end_time: the profile's end (CLOCK_MONOTONIC ns), 0: now */
static int write_profile(const char *path, const struct kp_data_info *info, struct kp_agg *a,
			 const struct kp_stats *cpus, unsigned int nr_cpus,
			 const struct kp_stats *totals, const struct kept_maps *kept,
			 uint64_t end_time, struct kp_agg_summary *sum, struct kp_err *err)
{
	uint32_t nr_named = 0;
	struct kp_rec_synth_done done = {
		.header = { .type = KP_DATA_REC_SYNTH_DONE, .size = sizeof(done) },
	};
	const struct kp_rec_agg * const *recs;
	struct kp_synth_stats sst = { 0 };
	struct agg_writer aw = { 0 };
	uint32_t *pids = NULL, vanished;
	size_t nr_recs, nr_pids = 0, i;
	uint64_t now;
	int ret;

	ret = kp_agg__sort(a, err);
	if (!ret)
		ret = kp_agg__pids(a, &pids, &nr_pids, err);
	if (ret)
		return ret;
	recs = kp_agg__records(a, &nr_recs);

	aw.w = kp_data_writer__create(path, info, err);
	if (!aw.w) {
		free(pids);
		return -EIO;
	}
	now = kp_clock_ns();
	done.time = now;
	for (i = 0; !ret && i < nr_pids; i++) {
		bool any = false;

		/* what the module kept, images left by an exec included */
		ret = write_kept_maps(aw.w, kept, pids[i], now, &sst, &any, err);
		vanished = sst.nr_vanished;
		if (!ret)
			ret = kp_synth__process(pids[i], now, synth_record, &aw, &sst, err);
		if (!ret && sst.nr_vanished != vanished && any) {
			nr_named++;	/* gone: named by its last kept generation */
		} else if (!ret && sst.nr_vanished != vanished) {
			/* Gone, nothing kept: its name from the tables. */
			struct kp_rec_comm c = {
				.header = { .type = KPROF_RECORD_COMM, .size = sizeof(c) },
				.time = now,
				.pid = pids[i],
				.tid = pids[i],
			};

			snprintf(c.comm, sizeof(c.comm), "%s", pid_comm(a, recs, nr_recs, pids[i]));
			ret = kp_data_writer__write(aw.w, &c.header, err);
		}
	}
	done.nr_processes = sst.nr_processes;
	done.nr_threads = sst.nr_threads;
	done.nr_mmaps = sst.nr_mmaps;
	done.nr_vanished = sst.nr_vanished;
	if (!ret)
		ret = kp_data_writer__write(aw.w, &done.header, err);
	for (i = 0; !ret && i < nr_recs; i++)
		ret = kp_data_writer__write(aw.w, &recs[i]->header, err);
	for (i = 0; !ret && i < a->nr_wakers; i++)
		ret = kp_data_writer__write(aw.w, &a->wakers[i]->header, err);
	for (i = 0; !ret && i < nr_cpus; i++)
		ret = write_stats(aw.w, cpus[i].cpu, &cpus[i], err);
	if (!ret && totals)
		ret = write_stats(aw.w, KP_DATA_STATS_TOTAL, totals, err);
	if (!ret)
		ret = kp_data_writer__finish(aw.w, end_time ? end_time : kp_clock_ns(), 0, err);
	if (!ret) {
		sum->file_bytes = kp_data_writer__bytes(aw.w);
		sum->nr_keys = nr_recs;
		sum->nr_entries = kp_agg__nr_entries(a);
		sum->samples = kp_agg__samples(a);
		sum->offcpu_ns = kp_agg__offcpu_ns(a);
		sum->nr_pids = nr_pids;
		sum->nr_vanished = sst.nr_vanished;
		sum->nr_vanished_named = nr_named;
	}
	kp_data_writer__delete(aw.w);
	free(pids);
	return ret;
}

void kp_agg__started_info(struct kp_data_info *info, const struct kp_session *s,
			  const struct kp_start_info *start, const char *release,
			  const char *cmdline)
{
	kp_data_info__init(info);
	info->nr_cpus = start->nr_cpus;
	info->session_id = start->session_id;
	info->session = *s;
	info->session.buffer_size = start->buffer_size;
	snprintf(info->module_release, sizeof(info->module_release), "%.31s", release);
	snprintf(info->cmdline, sizeof(info->cmdline), "%s", cmdline);
}

int kp_agg__save_profile(struct kp_nl *nl, const char *path, const struct kp_agg_save_opts *o,
			 struct kp_agg_summary *sum, struct kp_err *err)
{
	struct kp_status_info st, after;
	struct kp_stats *cpus = NULL;
	struct kp_data_info *info;
	unsigned int nr_cpus = 0;
	struct kept_maps kept = { 0 };
	struct kp_agg *a = NULL;
	struct kp_err warn;
	int ret;

	memset(sum, 0, sizeof(*sum));
	info = malloc(sizeof(*info));
	if (!info) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = kp_nl__status(nl, &st, err);
	if (ret)
		goto out;
	if (!st.has_session || st.state == KPROF_STATE_IDLE) {
		kp_err__set(err, ENOENT, "no session: start one with 'kprofctl start'");
		ret = -ENOENT;
		goto out;
	}
	if (!(st.session_flags & KPROF_SESSION_F_AGGREGATE)) {
		kp_err__set(err, EOPNOTSUPP,
			    "session %" PRIu64 " does not aggregate (mode %s): start it with --mode aggregate or both",
			    st.session_id, kp_session_mode__name(st.session_flags));
		ret = -EOPNOTSUPP;
		goto out;
	}
	a = kp_agg__new();
	if (!a) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	if (o->interval)
		ret = kp_agg__fetch_interval(a, nl, o->interval->epoch, err);
	else
		ret = kp_agg__fetch(a, nl, err);
	if (!ret)
		ret = kp_nl__agg_maps(nl, kept_map, &kept, err);
	if (ret)
		goto out;
	/* A dump interrupted by a new session would mix two sessions. */
	ret = kp_nl__status(nl, &after, err);
	if (ret)
		goto out;
	if (!after.has_session || after.session_id != st.session_id) {
		kp_err__set(err, EAGAIN, "session %" PRIu64 " ended while its tables were read",
			    st.session_id);
		ret = -EAGAIN;
		goto out;
	}
	/* the counters are the session's, not an interval's: none with one */
	if (!o->interval && kp_nl__stats(nl, &cpus, &nr_cpus, &warn))
		kp_error(o->cmd, "warning: no per-CPU statistics: %s", warn.msg);

	sum->session_id = after.session_id;
	sum->session_flags = after.session_flags;
	if (o->totals) {
		sum->totals = *o->totals;
		sum->has_totals = true;
	} else if (after.has_stats) {
		sum->totals = after.stats;
		sum->has_totals = true;
	}
	sum->known_session = kp_agg__session_info(info, &after, a, o->session);
	if (!sum->known_session && !o->quiet)
		kp_error(o->cmd, "session %" PRIu64 " was not started by 'kprofctl start': its events are named event0, event1, ...",
			 after.session_id);
	if (o->interval) {
		/*
		 * the interval's times: CLOCK_MONOTONIC, and its start in
		 * Unix time by the clocks read at the swap (or now)
		 */
		struct kp_agg_interval iv = *o->interval;

		if (!iv.mono_ns) {
			struct timespec rt;

			clock_gettime(CLOCK_REALTIME, &rt);
			iv.mono_ns = kp_clock_ns();
			iv.realtime_ns = (uint64_t)rt.tv_sec * 1000000000ULL + rt.tv_nsec;
		}
		info->start_time = iv.start_ns;
		info->start_realtime = kp_agg_interval__unix_ns(&iv, iv.start_ns);
	}
	/* the session runs on this kernel: its vDSO names [vdso] frames */
	info->vdso = kp_vdso__self(&info->vdso_size);
	ret = write_profile(path, info, a, cpus, nr_cpus,
			    sum->has_totals && !o->interval ? &sum->totals : NULL, &kept,
			    o->interval ? o->interval->end_ns : 0, sum, err);
out:
	kept_maps__free(&kept);
	free(cpus);
	kp_agg__delete(a);
	free(info);
	return ret;
}

int kp_agg__tmpfile(char *path, size_t len, const char *prefix, struct kp_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	int fd;

	if (!tmpdir || !*tmpdir)
		tmpdir = "/tmp";
	if ((size_t)snprintf(path, len, "%s/%s.XXXXXX", tmpdir, prefix) >= len) {
		kp_err__set(err, ENAMETOOLONG, "TMPDIR '%s' is too long", tmpdir);
		path[0] = '\0';
		return -ENAMETOOLONG;
	}
	fd = mkstemp(path);
	if (fd < 0) {
		kp_err__set(err, errno, "cannot create a temporary file in '%s': %s", tmpdir,
			    strerror(errno));
		path[0] = '\0';
		return -err->errnum;
	}
	close(fd);
	return 0;
}

int kp_agg__live_profile(const char *cmd, char *path, size_t len, struct kp_err *err)
{
	struct kp_agg_save_opts o = { .cmd = cmd };
	struct kp_version_info ver;
	struct kp_agg_summary sum;
	struct kp_nl *nl;
	int ret;

	path[0] = '\0';
	nl = kp_nl__open(err);
	if (!nl)
		return -err->errnum;
	ret = kp_nl__hello(nl, &ver, err);
	if (ret)
		goto out;
	ret = kp_agg__tmpfile(path, len, "kprof-live", err);
	if (ret)
		goto out;
	ret = kp_agg__save_profile(nl, path, &o, &sum, err);
	if (ret)
		unlink(path);
out:
	if (ret)
		path[0] = '\0';
	kp_nl__delete(nl);
	return ret;
}

void kp_agg_summary__print(const struct kp_agg_summary *sum, const char *cmd, const char *path,
			   const char *what)
{
	fprintf(stderr, "[ kprof %s: Wrote %.3f MB %s (%s%s%zu stacks, %" PRIu64 " samples, ", cmd,
		sum->file_bytes / 1048576.0, path, what ? what : "", what ? ": " : "",
		sum->nr_keys, sum->samples);
	if (sum->offcpu_ns)
		fprintf(stderr, "%.1f ms off-CPU, ", sum->offcpu_ns / 1e6);
	fprintf(stderr, "%zu processes, %u gone, %u of them with kept mappings) ]\n",
		sum->nr_pids, sum->nr_vanished, sum->nr_vanished_named);
}
