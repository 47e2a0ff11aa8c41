// SPDX-License-Identifier: GPL-2.0
/*
 * pprof profiles from a decoded recording; see pprof.h.
 *
 * The profile is built as protobuf-c messages (proto/profile.pb-c.h, made
 * from proto/profile.proto by protoc-c), packed once at the end and
 * written through zlib's gzip stream.  Strings, mappings, locations and
 * functions are interned in hash maps: ids are positions + 1, string 0 is
 * "".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hmap.h"
#include "outfile.h"
#include "pprof.h"
#include "srcline.h"
#include "proto/profile.pb-c.h"
#include "util.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_value_type;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

/* A growing array of pointers. */
struct ptrs {
	void	**v;
	size_t	nr, cap;
};

static int ptrs__push(struct ptrs *p, void *x)
{
	if (!x)
		return -ENOMEM;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		void **v = realloc(p->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->nr++] = x;
	return 0;
}

struct pprof {
	struct kp_decoder	*d;
	const struct kp_pprof_opts *o;
	struct ptrs		strs;		/* char *, [0] = "" */
	struct kp_hmap		str_ids;	/* hash -> index + 1, chained by +2 */
	struct ptrs		mappings;	/* pb_mapping * */
	struct kp_hmap		mapping_ids;	/* dso (NULL: none) -> id */
	struct ptrs		locations;	/* pb_location * */
	struct kp_hmap		location_ids;	/* hash (dso, address) -> id, chained */
	struct ptrs		functions;	/* pb_function * */
	struct kp_hmap		function_ids;	/* symbol -> id */
	struct ptrs		samples;	/* pb_sample * */
	size_t			nr_values;
	int			i_cpu;		/* value of the on-CPU events' periods; -1: none */
	int			i_off;		/* value of the off-CPU time; -1: none */
	unsigned int		first_ev;	/* the first on-CPU event */
	bool			time;		/* it counts time: i_cpu is cpu ns */
	bool			agg_counts;	/* the file's periods are counts (aggregated) */
	uint64_t		nominal_ns;	/* a sample's time then */
	int64_t			k_pid, k_comm, k_event;	/* label keys */
	struct kp_srcline	*sl;		/* source lines; NULL: none */
};

static uint64_t pprof__hash(const void *p, size_t len, uint64_t h)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return h ? h : 1;
}

/* The index of @s in the string table, added when new; -1 on ENOMEM. */
static int64_t pprof__str(struct pprof *pp, const char *s)
{
	uint64_t h = pprof__hash(s, strlen(s), 0xcbf29ce484222325ULL) | 1;
	void *v;

	if (!*s)
		return 0;
	/* distinct strings that hash alike chain on: h + 2, h + 4, ... */
	for (;; h += 2) {
		v = kp_hmap__get(&pp->str_ids, h);
		if (!v)
			break;
		if (!strcmp(pp->strs.v[(uintptr_t)v - 1], s))
			return (int64_t)(uintptr_t)v - 1;
	}
	if (ptrs__push(&pp->strs, strdup(s)) ||
	    kp_hmap__put(&pp->str_ids, h, (void *)(uintptr_t)pp->strs.nr))
		return -1;
	return pp->strs.nr - 1;
}

static pb_value_type *pprof__value_type(struct pprof *pp, const char *type, const char *unit)
{
	pb_value_type *vt = malloc(sizeof(*vt));

	if (!vt)
		return NULL;
	perftools__profiles__value_type__init(vt);
	vt->type = pprof__str(pp, type);
	vt->unit = pprof__str(pp, unit);
	if (vt->type < 0 || vt->unit < 0) {
		free(vt);
		return NULL;
	}
	return vt;
}

/* The mapping of @dso (NULL: none, id 0). */
static uint64_t pprof__mapping(struct pprof *pp, const struct kp_dso *dso)
{
	char hex[2 * KP_BUILD_ID_MAX + 1];
	pb_mapping *m;
	void *v;
	unsigned int i;

	if (!dso)
		return 0;
	v = kp_hmap__get(&pp->mapping_ids, (uintptr_t)dso);
	if (v)
		return (uintptr_t)v;
	m = malloc(sizeof(*m));
	if (!m)
		return UINT64_MAX;
	perftools__profiles__mapping__init(m);
	m->id = pp->mappings.nr + 1;
	m->filename = pprof__str(pp, dso->name);
	for (i = 0; i < dso->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", dso->build_id[i]);
	hex[2 * i] = '\0';
	m->build_id = pprof__str(pp, hex);
	m->has_functions = 1;
	if (m->filename < 0 || m->build_id < 0 || ptrs__push(&pp->mappings, m)) {
		free(m);
		return UINT64_MAX;
	}
	if (kp_hmap__put(&pp->mapping_ids, (uintptr_t)dso, (void *)(uintptr_t)m->id))
		return UINT64_MAX;
	return m->id;
}

/* The function of @sym; 0 on ENOMEM. */
static uint64_t pprof__function(struct pprof *pp, const struct kp_sym *sym)
{
	const char *file;
	pb_function *f;
	int line;
	void *v = kp_hmap__get(&pp->function_ids, (uintptr_t)sym);

	if (v)
		return (uintptr_t)v;
	f = malloc(sizeof(*f));
	if (!f)
		return 0;
	perftools__profiles__function__init(f);
	f->id = pp->functions.nr + 1;
	f->name = pprof__str(pp, sym->name);
	f->system_name = f->name;
	/* its source file and first line: where DWARF says it is declared */
	if (kp_srcline__function(pp->sl, sym->dso, sym->start, &file, &line)) {
		f->filename = pprof__str(pp, file);
		f->start_line = line;
	}
	if (f->name < 0 || f->filename < 0 || ptrs__push(&pp->functions, f)) {
		free(f);
		return 0;
	}
	if (kp_hmap__put(&pp->function_ids, (uintptr_t)sym, (void *)(uintptr_t)f->id))
		return 0;
	return f->id;
}

/*
 * The location of frame @f; 0 on ENOMEM.  Its line is that of the address,
 * or of the call before it when @f is a return address (not @exact).
 */
static uint64_t pprof__location(struct pprof *pp, const struct kp_frame *f, bool exact)
{
	const char *file;
	int nr;
	uint64_t h = pprof__hash(&f->addr, sizeof(f->addr),
				 pprof__hash(&f->dso, sizeof(f->dso), 0xcbf29ce484222325ULL)) | 1;
	uint64_t mapping = pprof__mapping(pp, f->dso);
	pb_location *l;
	pb_line *line;
	void *v;

	if (mapping == UINT64_MAX)
		return 0;
	for (;; h += 2) {
		v = kp_hmap__get(&pp->location_ids, h);
		if (!v)
			break;
		l = pp->locations.v[(uintptr_t)v - 1];
		if (l->address == f->addr && l->mapping_id == mapping)
			return l->id;
	}
	l = calloc(1, sizeof(*l) + sizeof(*line) + sizeof(line));
	if (!l)
		return 0;
	perftools__profiles__location__init(l);
	l->id = pp->locations.nr + 1;
	l->mapping_id = mapping;
	l->address = f->addr;
	if (f->sym) {
		/* one line, in the same allocation: the function, no line number */
		line = (pb_line *)(l + 1);
		perftools__profiles__line__init(line);
		line->function_id = pprof__function(pp, f->sym);
		if (kp_srcline__find(pp->sl, f->dso, f->dso_addr - !exact, &file, &nr))
			line->line = nr;
		l->line = (pb_line **)(line + 1);
		l->line[0] = line;
		l->n_line = 1;
		if (!line->function_id) {
			free(l);
			return 0;
		}
	}
	if (ptrs__push(&pp->locations, l)) {
		free(l);
		return 0;
	}
	if (kp_hmap__put(&pp->location_ids, h, (void *)(uintptr_t)l->id))
		return 0;
	return l->id;
}

static pb_label *pprof__label(struct pprof *pp, int64_t key, const char *str, int64_t num)
{
	pb_label *l = malloc(sizeof(*l));

	if (!l)
		return NULL;
	perftools__profiles__label__init(l);
	l->key = key;
	if (str) {
		l->str = pprof__str(pp, str);
		if (l->str < 0) {
			free(l);
			return NULL;
		}
	} else {
		l->num = num;
	}
	return l;
}

/* Is event @e one that counts time in ns (its periods)? */
static bool pprof__time_event(const struct kp_event *e)
{
	return e->type == PERF_TYPE_SOFTWARE &&
	       (e->config == PERF_COUNT_SW_CPU_CLOCK || e->config == PERF_COUNT_SW_TASK_CLOCK);
}

static int pprof__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct pprof *pp = arg;
	unsigned int first = 0, last = s->nr_frames, i, nr_labels = 2;
	uint64_t period = s->rec->period;
	pb_sample *smp;

	if (pp->o->filter && !kp_filter__sample(pp->o->filter, s, &first, &last))
		return 0;
	if (d->info.session.nr_events > 1)
		nr_labels++;
	smp = calloc(1, sizeof(*smp) + pp->nr_values * sizeof(int64_t) +
		     (last - first) * sizeof(uint64_t) + nr_labels * sizeof(pb_label *));
	if (!smp)
		return -ENOMEM;
	perftools__profiles__sample__init(smp);
	smp->value = (int64_t *)(smp + 1);
	smp->n_value = pp->nr_values;
	smp->location_id = (uint64_t *)(smp->value + pp->nr_values);
	smp->label = (pb_label **)(smp->location_id + (last - first));
	if (ptrs__push(&pp->samples, smp)) {
		free(smp);
		return -ENOMEM;
	}
	if (s->offcpu) {
		if (pp->i_off >= 0)
			smp->value[pp->i_off] = period;
	} else {
		smp->value[0] = s->count;
		/* cpu: the time events' only; events: the first event's periods */
		if (pp->i_cpu < 0 || s->rec->event >= d->info.session.nr_events)
			;
		else if (!pp->time)
			smp->value[pp->i_cpu] = s->rec->event == pp->first_ev ? period : 0;
		else if (pprof__time_event(&d->info.session.events[s->rec->event]))
			smp->value[pp->i_cpu] = pp->agg_counts ? s->count * pp->nominal_ns : period;
	}
	/* leaf first, as the frames are */
	for (i = first; i < last; i++) {
		/* a chain's first kernel and first user frame are where it was, not returns */
		bool exact = i == first || (!s->frames[i].kernel && s->frames[i - 1].kernel);
		uint64_t id = pprof__location(pp, &s->frames[i], exact);

		if (!id)
			return -ENOMEM;
		smp->location_id[smp->n_location_id++] = id;
	}
	smp->label[smp->n_label++] = pprof__label(pp, pp->k_pid, NULL, s->rec->pid);
	smp->label[smp->n_label++] = pprof__label(pp, pp->k_comm, s->comm, 0);
	if (nr_labels > 2)
		smp->label[smp->n_label++] = pprof__label(pp, pp->k_event,
							  kp_decoder__event_name(d, s->rec->event), 0);
	for (i = 0; i < smp->n_label; i++)
		if (!smp->label[i])
			return -ENOMEM;
	return 0;
}

static void pprof__free(struct pprof *pp, pb_profile *p)
{
	size_t i;

	for (i = 0; i < pp->strs.nr; i++)
		free(pp->strs.v[i]);
	for (i = 0; i < pp->mappings.nr; i++)
		free(pp->mappings.v[i]);
	for (i = 0; i < pp->locations.nr; i++)
		free(pp->locations.v[i]);
	for (i = 0; i < pp->functions.nr; i++)
		free(pp->functions.v[i]);
	for (i = 0; i < pp->samples.nr; i++) {
		pb_sample *s = pp->samples.v[i];
		size_t j;

		for (j = 0; j < s->n_label; j++)
			free(s->label[j]);
		free(s);
	}
	free(pp->strs.v);
	free(pp->mappings.v);
	free(pp->locations.v);
	free(pp->functions.v);
	free(pp->samples.v);
	for (i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample_type);
	free(p->period_type);
	free(p->comment);
	kp_hmap__exit(&pp->str_ids);
	kp_hmap__exit(&pp->mapping_ids);
	kp_hmap__exit(&pp->location_ids);
	kp_hmap__exit(&pp->function_ids);
	kp_srcline__delete(pp->sl);
}

/* Pack @p and gzip it into *@out (malloc'd), *@out_len bytes. */
static int pprof__gzip(const pb_profile *p, void **out, size_t *out_len, struct kp_err *err)
{
	size_t len = perftools__profiles__profile__get_packed_size(p);
	uint8_t *buf = malloc(len ? len : 1), *gz = NULL;
	z_stream zs = { 0 };
	uLong cap;
	int ret;

	if (!buf)
		goto nomem;
	perftools__profiles__profile__pack(p, buf);
	/* 15 + 16: a gzip header and trailer around the deflate stream */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		goto nomem;
	cap = deflateBound(&zs, len) + 32;
	gz = malloc(cap);
	if (!gz) {
		deflateEnd(&zs);
		goto nomem;
	}
	zs.next_in = buf;
	zs.avail_in = len;
	zs.next_out = gz;
	zs.avail_out = cap;
	ret = deflate(&zs, Z_FINISH);
	deflateEnd(&zs);
	free(buf);
	if (ret != Z_STREAM_END) {
		free(gz);
		kp_err__set(err, EIO, "cannot gzip the profile: zlib error %d", ret);
		return -EIO;
	}
	*out = gz;
	*out_len = zs.total_out;
	return 0;
nomem:
	free(buf);
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

int kp_pprof__save(const void *buf, size_t len, const char *path, struct kp_err *err)
{
	struct kp_outfile o;
	int ret;

	ret = kp_outfile__open(&o, path, false, err);
	if (ret)
		return ret;
	fwrite(buf, 1, len, o.fp);	/* a short write shows in ferror() */
	return kp_outfile__commit(&o, err);
}

long kp_pprof__build(struct kp_decoder *d, const struct kp_pprof_opts *o, void **buf,
		     size_t *len, struct kp_err *err)
{
	const struct kp_session *sess = &d->info.session;
	pb_profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	struct pprof pp = { .d = d, .o = o };
	int64_t cmdline;
	long ret = -ENOMEM;

	if (!o->no_srclines) {
		pp.sl = kp_srcline__new(kp_machine__debug_dir(d->machine));
		if (!pp.sl)
			goto out;
	}

	/* the first on-CPU event names the second value: cpu or events */
	pp.i_cpu = pp.i_off = -1;
	for (pp.first_ev = 0; pp.first_ev < sess->nr_events; pp.first_ev++)
		if (sess->events[pp.first_ev].type != KPROF_TYPE_OFFCPU)
			break;
	pp.time = pp.first_ev < sess->nr_events && pprof__time_event(&sess->events[pp.first_ev]);
	/* an aggregated profile without off-CPU time: its periods are sample counts */
	pp.agg_counts = d->info.version >= KP_DATA_VERSION_AGG &&
			(sess->flags & KPROF_SESSION_F_AGGREGATE) && !kp_decoder__has_offcpu(d);
	pp.nominal_ns = sess->period ? sess->period : sess->freq ? 1000000000ULL / sess->freq : 1;
	pp.nr_values = 1;
	if (pp.first_ev < sess->nr_events)
		pp.i_cpu = pp.nr_values++;
	if (kp_decoder__has_offcpu(d))
		pp.i_off = pp.nr_values++;
	if (ptrs__push(&pp.strs, strdup("")))
		goto out;
	p.sample_type = calloc(pp.nr_values, sizeof(*p.sample_type));
	if (!p.sample_type)
		goto out;
	p.sample_type[p.n_sample_type++] = pprof__value_type(&pp, "samples", "count");
	if (pp.i_cpu >= 0)
		p.sample_type[p.n_sample_type++] =
			pp.time ? pprof__value_type(&pp, "cpu", "nanoseconds") :
				  pprof__value_type(&pp, "events", "count");
	if (pp.i_off >= 0)
		p.sample_type[p.n_sample_type++] = pprof__value_type(&pp, "off-cpu",
								     "nanoseconds");
	p.period_type = pp.time || pp.i_cpu < 0 ? pprof__value_type(&pp, "cpu", "nanoseconds") :
						  pprof__value_type(&pp, "events", "count");
	pp.k_pid = pprof__str(&pp, "pid");
	pp.k_comm = pprof__str(&pp, "comm");
	pp.k_event = pprof__str(&pp, "event");
	cmdline = pprof__str(&pp, d->info.cmdline);
	p.comment = malloc(sizeof(*p.comment));
	if (!p.period_type || !p.comment || pp.k_pid < 0 || pp.k_comm < 0 || pp.k_event < 0 ||
	    cmdline < 0)
		goto out;
	for (size_t i = 0; i < p.n_sample_type; i++)
		if (!p.sample_type[i])
			goto out;
	if (cmdline)
		p.comment[p.n_comment++] = cmdline;
	p.period = pp.time ? pp.nominal_ns : sess->period ? sess->period : 1;
	p.time_nanos = d->info.start_realtime;
	if (d->info.end_time > d->info.start_time)
		p.duration_nanos = d->info.end_time - d->info.start_time;

	ret = kp_decoder__for_each_stack(d, o->stack_flags, pprof__sample, &pp);
	if (ret)
		goto out;
	p.n_string_table = pp.strs.nr;
	p.string_table = (char **)pp.strs.v;
	p.n_mapping = pp.mappings.nr;
	p.mapping = (pb_mapping **)pp.mappings.v;
	p.n_location = pp.locations.nr;
	p.location = (pb_location **)pp.locations.v;
	p.n_function = pp.functions.nr;
	p.function = (pb_function **)pp.functions.v;
	p.n_sample = pp.samples.nr;
	p.sample = (pb_sample **)pp.samples.v;
	ret = pprof__gzip(&p, buf, len, err);
	if (!ret)
		ret = pp.samples.nr;
	pprof__free(&pp, &p);
	return ret;
out:
	if (ret == -ENOMEM)
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	else
		kp_err__set(err, -ret, "cannot read the recording: %s", strerror(-ret));
	pprof__free(&pp, &p);
	return ret;
}

long kp_pprof__write(struct kp_decoder *d, const char *path, const struct kp_pprof_opts *o,
		     struct kp_err *err)
{
	size_t len;
	void *buf;
	long n;

	n = kp_pprof__build(d, o, &buf, &len, err);
	if (n < 0)
		return n;
	if (kp_pprof__save(buf, len, path, err))
		n = -EIO;
	free(buf);
	return n;
}

void kp_pprof__span(const struct kp_decoder *d, uint64_t now_s, struct kp_pprof_span *span)
{
	const struct kp_session *sess = &d->info.session;
	uint64_t start = d->info.start_realtime, dur = 0;
	unsigned int i;

	if (d->info.end_time > d->info.start_time)
		dur = d->info.end_time - d->info.start_time;
	if (start) {
		span->from = start / 1000000000ULL;
		span->until = (start + dur + 999999999ULL) / 1000000000ULL;
	} else {
		span->from = span->until = now_s;
	}
	/* the first on-CPU event's rate: -F, or a time event's period */
	span->hz = 0;
	for (i = 0; i < sess->nr_events; i++)
		if (sess->events[i].type != KPROF_TYPE_OFFCPU)
			break;
	if (i == sess->nr_events)
		return;
	if (sess->freq)
		span->hz = sess->freq;
	else if (sess->period && pprof__time_event(&sess->events[i]) &&
		 sess->period <= 1000000000ULL)
		span->hz = 1000000000ULL / sess->period;
}
