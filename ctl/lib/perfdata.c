// SPDX-License-Identifier: GPL-2.0
/*
 * perf.data from kprof.data; see perfdata.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include <linux/perf_event.h>

#include "buildid.h"
#include "data.h"
#include "decode.h"
#include "outfile.h"
#include "perfdata.h"
#include "record.h"
#include "sys.h"
#include "tpdecode.h"
#include "tracefs.h"
#include "util.h"

#define PERF_MAGIC		0x32454c4946524550ULL	/* "PERFILE2" */
#define PERF_FEAT_BITS		256
#define PERF_NAME_ALIGN		64
#define PERF_MISC_BUILD_ID_SIZE	(1U << 15)
#define PERF_MISC_MMAP_BUILD_ID	(1U << 14)	/* PERF_RECORD_MISC_MMAP_BUILD_ID, 5.12 */
#define PERF_PID_KERNEL		0xffffffffU	/* the host machine's pid -1 */

/* perf's header feature bits (tools/perf/util/header.h) */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID	= 2,
	FEAT_HOSTNAME	= 3,
	FEAT_OSRELEASE	= 4,
	FEAT_VERSION	= 5,
	FEAT_ARCH	= 6,
	FEAT_NRCPUS	= 7,
	FEAT_CMDLINE	= 11,
	FEAT_EVENT_DESC	= 12,
	FEAT_SAMPLE_TIME = 21,	/* first and last sample's time: --time N% */
};

struct perf_section {
	uint64_t	offset;
	uint64_t	size;
};

struct perf_file_header {
	uint64_t		magic;
	uint64_t		size;
	uint64_t		attr_size;
	struct perf_section	attrs;
	struct perf_section	data;
	struct perf_section	event_types;
	uint64_t		features[PERF_FEAT_BITS / 64];
};

struct perf_file_attr {
	struct perf_event_attr	attr;
	struct perf_section	ids;
};

_Static_assert(sizeof(struct perf_file_header) == 104, "perf.data header");

/* The sample_type of every event; sample_id_all adds TID, TIME, CPU, IDENTIFIER. */
#define SAMPLE_TYPE	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

struct conv {
	FILE				*fp;
	const char			*out;
	const struct kp_data_info	*info;
	struct perf_event_attr		attrs[KPROF_MAX_EVENTS];
	bool				callchain;
	/*
	 * The tracepoint formats: the recording's, or this host's (owned[i])
	 * for a recording without them; raw[i]: event i's samples carry
	 * PERF_SAMPLE_RAW.
	 */
	struct kp_tp_formats		fmt;
	const struct kp_tp_formats	*tpf;
	bool				owned[KPROF_MAX_EVENTS];
	bool				raw[KPROF_MAX_EVENTS];
	bool				any_raw;
	char				machine[65];	/* uname -m of this host */
	struct kp_perfdata_stats	st;
	/* the BUILD_ID records (read first), for MMAP2 and the feature */
	struct kp_rec_build_id		**bids;
	size_t				nr_bids;
	/* the first and last sample's time (FEAT_SAMPLE_TIME) */
	uint64_t			first_time, last_time;
	int				error;
	/* the leaf fix-up: a decoder of the input for its machine, opened at
	 * the first sample with a stack copy
	 */
	const char			*in;
	bool				no_leaf_fixup, dec_tried, dec_open;
	struct kp_decoder		dec;
};

/* The user chain of @s, fixed up when it carries a stack copy, into @buf. */
static const uint64_t *conv_user_chain(struct conv *c, const struct kp_rec_sample *s,
				       uint64_t *buf, unsigned int *nr)
{
	struct kp_decode_opts opts = { .machine = { .cmd = "convert" } };
	const uint64_t *user = s->ips + s->nr_kernel;
	struct kp_leaf_walk w;
	struct kp_err err;

	*nr = s->nr_user;
	if (c->no_leaf_fixup || !s->nr_user || !(s->header.misc & KPROF_MISC_USER_STACK))
		return user;
	if (!c->dec_tried) {
		c->dec_tried = true;
		c->dec_open = !kp_decoder__open(&c->dec, c->in, &opts, &err);
	}
	if (!c->dec_open ||
	    kp_machine__leaf_fixup(c->dec.machine, s, KPROF_MAX_STACK_DEPTH, &w) != KP_LEAF_FIXED)
		return user;
	*nr = kp_leaf_walk__chain(&w, user, s->nr_user, buf);
	c->st.leaf_fixed++;
	return buf;
}

static uint64_t event_id(unsigned int ev)
{
	return ev + 1;
}

static void put(struct conv *c, const void *p, size_t len)
{
	if (!c->error && len && fwrite(p, 1, len, c->fp) != len)
		c->error = errno ? errno : EIO;
}

static void put_zero(struct conv *c, size_t len)
{
	static const char zero[PERF_NAME_ALIGN];

	while (len) {
		size_t n = len < sizeof(zero) ? len : sizeof(zero);

		put(c, zero, n);
		len -= n;
	}
}

/* perf's perf_header_string: u32 len (NUL included, aligned to 64), the text. */
static void put_string(struct conv *c, const char *s)
{
	uint32_t olen = strlen(s) + 1, len = (olen + PERF_NAME_ALIGN - 1) & ~(PERF_NAME_ALIGN - 1);

	put(c, &len, sizeof(len));
	put(c, s, olen);
	put_zero(c, len - olen);
}

static void attrs_init(struct conv *c)
{
	const struct kp_session *s = &c->info->session;
	unsigned int i;

	c->callchain = s->flags & (KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK);
	for (i = 0; i < s->nr_events; i++) {
		struct perf_event_attr *a = &c->attrs[i];

		memset(a, 0, sizeof(*a));
		a->type = s->events[i].type;
		a->size = sizeof(*a);
		a->config = s->events[i].config;
		if (s->period) {
			a->sample_period = s->period;
		} else if (s->freq) {
			a->freq = 1;
			a->sample_freq = s->freq;
		}
		a->sample_type = SAMPLE_TYPE | (c->callchain ? PERF_SAMPLE_CALLCHAIN : 0);
		if (s->events[i].type == PERF_TYPE_TRACEPOINT) {
			/* every hit a sample, as perf record takes a tracepoint */
			a->freq = 0;
			a->sample_period = 1;
			/* its fields, when the recording kept the format to decode them */
			if (c->tpf && c->tpf->text[i]) {
				c->raw[i] = true;
				c->any_raw = true;
				a->sample_type |= PERF_SAMPLE_RAW;
			}
		}
		a->exclude_kernel = !!(s->events[i].flags & KPROF_EV_F_EXCLUDE_KERNEL);
		a->exclude_user = !!(s->events[i].flags & KPROF_EV_F_EXCLUDE_USER);
		a->inherit = !!(s->flags & KPROF_SESSION_F_INHERIT);
		a->sample_id_all = 1;
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
		if (!i) {
			/* the side-band comes with the first event, as perf record's */
			a->mmap = 1;
			a->mmap2 = 1;
			a->comm = 1;
			a->task = 1;
			a->comm_exec = 1;
		}
	}
}

/* The sample_id of a side-band record: pid, tid, time, cpu, res, identifier. */
static void put_sample_id(struct conv *c, uint32_t pid, uint32_t tid, uint64_t time,
			  uint32_t cpu)
{
	struct {
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
		uint64_t	id;
	} sid = { pid, tid, time, cpu, 0, event_id(0) };

	put(c, &sid, sizeof(sid));
}

#define SAMPLE_ID_SIZE	32

static void put_header(struct conv *c, uint32_t type, uint16_t misc, size_t size)
{
	struct perf_event_header h = { .type = type, .misc = misc, .size = size };

	put(c, &h, sizeof(h));
}

static void conv_sample(struct conv *c, const struct kp_rec_sample *s)
{
	if (!c->first_time || s->time < c->first_time)
		c->first_time = s->time;
	if (s->time > c->last_time)
		c->last_time = s->time;
	uint64_t nr = 0, ctx, fixed[2 * KPROF_MAX_STACK_DEPTH];
	unsigned int nr_user = 0;
	const uint64_t *user = NULL;
	struct {
		uint64_t	id, ip;
		uint32_t	pid, tid;
		uint64_t	time;
		uint32_t	cpu, res;
		uint64_t	period;
	} body = {
		event_id(s->event), s->ip, s->pid, s->tid, s->time, s->cpu, 0, s->period,
	};
	size_t size = sizeof(struct perf_event_header) + sizeof(body);
	bool with_raw = s->event < KPROF_MAX_EVENTS && c->raw[s->event];
	uint32_t raw_len = 0, raw_size = 0;
	const void *raw = NULL;

	if (c->callchain) {
		user = conv_user_chain(c, s, fixed, &nr_user);
		nr = (s->nr_kernel ? 1 + s->nr_kernel : 0) + (nr_user ? 1 + nr_user : 0);
		size += 8 + 8 * nr;
	}
	if (s->header.misc & KPROF_MISC_RAW) {
		raw = kp_sample__raw(s, s->header.size, s->nr_kernel + s->nr_user, &raw_len);
		if (!with_raw || !raw) {
			c->st.raw_dropped++;
			raw = NULL;
			raw_len = 0;
		}
	}
	if (with_raw) {
		/* perf's PERF_SAMPLE_RAW: u32 size, then the bytes, the two 8-byte aligned */
		raw_size = ((raw_len + 4 + 7) & ~7U) - 4;
		size += 4 + raw_size;
		if (raw)
			c->st.raw++;
	}
	put_header(c, PERF_RECORD_SAMPLE, s->header.misc & KPROF_MISC_KERNEL ?
		   PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, size);
	put(c, &body, sizeof(body));
	if (c->callchain) {
		put(c, &nr, sizeof(nr));
		if (s->nr_kernel) {
			ctx = PERF_CONTEXT_KERNEL;
			put(c, &ctx, sizeof(ctx));
			put(c, s->ips, 8 * s->nr_kernel);
		}
		if (nr_user) {
			ctx = PERF_CONTEXT_USER;
			put(c, &ctx, sizeof(ctx));
			put(c, user, 8 * nr_user);
		}
	}
	if (with_raw) {
		put(c, &raw_size, sizeof(raw_size));
		put(c, raw, raw_len);
		put_zero(c, raw_size - raw_len);
	}
	c->st.samples++;
}

static void conv_comm(struct conv *c, const struct kp_rec_comm *r)
{
	char comm[KP_COMM_LEN] = { 0 };

	snprintf(comm, sizeof(comm), "%s", r->comm);
	put_header(c, PERF_RECORD_COMM,
		   r->header.misc & KPROF_MISC_COMM_EXEC ? PERF_RECORD_MISC_COMM_EXEC : 0,
		   sizeof(struct perf_event_header) + 8 + sizeof(comm) + SAMPLE_ID_SIZE);
	put(c, &r->pid, 4);
	put(c, &r->tid, 4);
	put(c, comm, sizeof(comm));
	put_sample_id(c, r->pid, r->tid, r->time, 0);
}

/* The build-id of @filename as process @pid mapped it: its BUILD_ID record, or NULL. */
static const struct kp_rec_build_id *find_build_id(const struct conv *c, const char *filename,
						   uint32_t pid)
{
	const struct kp_rec_build_id *any = NULL;
	size_t i;

	for (i = 0; i < c->nr_bids; i++) {
		if (strcmp(c->bids[i]->filename, filename))
			continue;
		if (c->bids[i]->pid == pid)
			return c->bids[i];
		if (!any)
			any = c->bids[i];
	}
	return any;
}

/*
 * PERF_RECORD_MMAP2 of an executable mapping: the build-id in place of
 * the device and inode (PERF_RECORD_MISC_MMAP_BUILD_ID) when the recording
 * has one for the file, else no device or inode (kprof records none).
 */
static void conv_mmap(struct conv *c, const struct kp_rec_mmap *m)
{
	size_t len = strnlen(m->filename, m->header.size - sizeof(*m)) + 1;
	size_t padded = (len + 7) & ~(size_t)7;
	const struct kp_rec_build_id *b = find_build_id(c, m->filename, m->pid);
	uint16_t misc = PERF_RECORD_MISC_USER;
	struct {
		uint32_t	pid, tid;
		uint64_t	start, len, pgoff;
		uint8_t		id[24];		/* maj, min, ino, ino_generation; or the build-id */
		uint32_t	prot, flags;
	} body = {
		m->pid, m->tid, m->start, m->len, m->pgoff, { 0 },
		PROT_READ | PROT_EXEC, MAP_PRIVATE,
	};

	if (b) {
		misc |= PERF_MISC_MMAP_BUILD_ID;
		body.id[0] = b->size;
		memcpy(body.id + 4, b->build_id, sizeof(b->build_id));
		c->st.mmap_build_ids++;
	}
	put_header(c, PERF_RECORD_MMAP2, misc,
		   sizeof(struct perf_event_header) + sizeof(body) + padded + SAMPLE_ID_SIZE);
	put(c, &body, sizeof(body));
	put(c, m->filename, len - 1);
	put_zero(c, padded - len + 1);
	put_sample_id(c, m->pid, m->tid, m->time, 0);
}

/* A PERF_RECORD_MMAP of the kernel or a module (pid -1), as perf record synthesizes them. */
static void put_kernel_mmap(struct conv *c, const char *name, uint64_t start, uint64_t end,
			    uint64_t pgoff)
{
	size_t len = strlen(name) + 1, padded = (len + 7) & ~(size_t)7;
	struct {
		uint32_t	pid, tid;
		uint64_t	start, len, pgoff;
	} body = { PERF_PID_KERNEL, 0, start, end - start, pgoff };

	put_header(c, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
		   sizeof(struct perf_event_header) + sizeof(body) + padded + SAMPLE_ID_SIZE);
	put(c, &body, sizeof(body));
	put(c, name, len);
	put_zero(c, padded - len);
	put_sample_id(c, PERF_PID_KERNEL, 0, 0, 0);
}

static int mod_cmp(const void *a, const void *b)
{
	const struct kp_sys_module *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Was the recording made in this very boot of this host?  Its boot time
 * (CLOCK_REALTIME minus CLOCK_MONOTONIC at the start) is this boot's, to
 * within the clock adjustments since.
 */
static bool same_boot(const struct kp_data_info *info)
{
	struct timespec mono, real;
	struct utsname uts;
	int64_t now, then;

	if (uname(&uts) || strcmp(uts.nodename, info->hostname) ||
	    strcmp(uts.release, info->release) || !info->start_realtime ||
	    clock_gettime(CLOCK_MONOTONIC, &mono) || clock_gettime(CLOCK_REALTIME, &real))
		return false;
	now = (real.tv_sec - mono.tv_sec) * 1000000000LL + (real.tv_nsec - mono.tv_nsec);
	then = (int64_t)(info->start_realtime - info->start_time);
	return llabs(now - then) < 2000000000LL;
}

/*
 * The kernel map ("[kernel.kallsyms]_text" from _text, its pgoff the
 * address of _text, which perf relocates against) and one map per module
 * ("[name]"), as perf record writes them, ahead of the side-band: only for
 * a recording of this boot, whose layout /proc/kallsyms and /proc/modules
 * still describe.  Else none: perf then uses its own machine's kernel.
 */
static int kernel_maps(struct conv *c)
{
	struct kp_sys_module *mods;
	uint64_t text, end = ~0ULL;
	size_t nr, i;
	char name[KP_SYS_MODULE_NAME + 2];
	int ret;

	if (!same_boot(c->info) || kp_sys__kernel_text(&text))
		return 0;
	ret = kp_sys__modules(&mods, &nr);
	if (ret == -ENOMEM)
		return ret;
	if (ret)
		nr = 0;
	qsort(mods, nr, sizeof(*mods), mod_cmp);
	for (i = 0; i < nr; i++)
		if (mods[i].start > text) {
			end = mods[i].start;
			break;
		}
	put_kernel_mmap(c, "[kernel.kallsyms]_text", text, end, text);
	for (i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "[%s]", mods[i].name);
		put_kernel_mmap(c, name, mods[i].start, mods[i].start + mods[i].size, 0);
	}
	c->st.kernel_maps = 1 + nr;
	free(mods);
	return 0;
}

/* FORK and EXIT: pid, ppid, tid, ptid, time. */
static void conv_task(struct conv *c, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		      uint32_t ptid, uint64_t time)
{
	struct {
		uint32_t	pid, ppid, tid, ptid;
		uint64_t	time;
	} t = { pid, ppid, tid, ptid, time };

	put_header(c, type, 0, sizeof(struct perf_event_header) + sizeof(t) + SAMPLE_ID_SIZE);
	put(c, &t, sizeof(t));
	put_sample_id(c, pid, tid, time, 0);
}

static int keep_build_id(struct conv *c, const struct kp_rec_build_id *b)
{
	struct kp_rec_build_id **v, *copy;

	v = realloc(c->bids, (c->nr_bids + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->bids = v;
	copy = malloc(b->header.size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, b, b->header.size);
	c->bids[c->nr_bids++] = copy;
	return 0;
}

static int conv_record(struct conv *c, const struct kprof_record_header *h)
{
	switch (h->type) {
	case KPROF_RECORD_SAMPLE:
		conv_sample(c, (const void *)h);
		return 0;
	case KPROF_RECORD_COMM:
		conv_comm(c, (const void *)h);
		c->st.sideband++;
		return 0;
	case KPROF_RECORD_MMAP:
		conv_mmap(c, (const void *)h);
		c->st.sideband++;
		return 0;
	case KPROF_RECORD_FORK: {
		const struct kp_rec_fork *f = (const void *)h;

		conv_task(c, PERF_RECORD_FORK, f->pid, f->ppid, f->tid, f->ptid, f->time);
		c->st.sideband++;
		return 0;
	}
	case KPROF_RECORD_EXIT: {
		const struct kp_rec_exit *x = (const void *)h;

		conv_task(c, PERF_RECORD_EXIT, x->pid, x->pid, x->tid, x->tid, x->time);
		c->st.sideband++;
		return 0;
	}
	case KPROF_RECORD_LOST: {
		const struct kp_rec_lost *l = (const void *)h;
		uint64_t v[2] = { event_id(0), l->lost };

		put_header(c, PERF_RECORD_LOST, 0,
			   sizeof(struct perf_event_header) + sizeof(v) + SAMPLE_ID_SIZE);
		put(c, v, sizeof(v));
		put_sample_id(c, 0, 0, l->time, l->cpu);
		c->st.other++;
		return 0;
	}
	case KPROF_RECORD_THROTTLE: {
		const struct kp_rec_throttle *t = (const void *)h;
		uint64_t v[3] = { t->time, event_id(t->event), event_id(t->event) };

		put_header(c, PERF_RECORD_THROTTLE, 0,
			   sizeof(struct perf_event_header) + sizeof(v) + SAMPLE_ID_SIZE);
		put(c, v, sizeof(v));
		put_sample_id(c, 0, 0, t->time, t->cpu);
		c->st.other++;
		return 0;
	}
	case KP_DATA_REC_BUILD_ID:
		return 0;	/* read before (read_build_ids()) */
	case KP_DATA_REC_AGG:
	case KP_DATA_REC_WAKER:
		return -EOPNOTSUPP;
	}
	return 0;	/* STATS, FINISHED, SYNTH_DONE, SWITCH: kprof's own */
}

/* The recording's BUILD_ID records, read before its MMAP records need them. */
static int read_build_ids(struct conv *c, const char *in, struct kp_err *err)
{
	const struct kprof_record_header *rec;
	struct kp_data *d;
	uint64_t off;
	int ret;

	d = kp_data__open(in, err);
	if (!d)
		return -EBADMSG;
	while ((ret = kp_data__next(d, &rec, &off, err)) > 0)
		if (rec->type == KP_DATA_REC_BUILD_ID) {
			ret = keep_build_id(c, (const void *)rec);
			if (ret) {
				kp_err__set(err, -ret, "%s", strerror(-ret));
				break;
			}
		}
	kp_data__close(d);
	return ret;
}

/* ---- the features, after the data ---- */

static void feat_cmdline(struct conv *c)
{
	char buf[KP_CMDLINE_MAX], *save = NULL, *w;
	uint32_t nr = 0;
	long start = ftell(c->fp);

	put(c, &nr, sizeof(nr));
	snprintf(buf, sizeof(buf), "%s", c->info->cmdline[0] ? c->info->cmdline : "kprofctl");
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		put_string(c, w);
		nr++;
	}
	/* the count, now known */
	if (!c->error && (fseek(c->fp, start, SEEK_SET) || fwrite(&nr, 4, 1, c->fp) != 1 ||
			  fseek(c->fp, 0, SEEK_END)))
		c->error = errno ? errno : EIO;
}

static void feat_event_desc(struct conv *c)
{
	const struct kp_session *s = &c->info->session;
	uint32_t nr = s->nr_events, size = sizeof(struct perf_event_attr), one = 1;
	unsigned int i;
	uint64_t id;

	put(c, &nr, sizeof(nr));
	put(c, &size, sizeof(size));
	for (i = 0; i < nr; i++) {
		put(c, &c->attrs[i], size);
		put(c, &one, sizeof(one));
		put_string(c, s->events[i].name);
		id = event_id(i);
		put(c, &id, sizeof(id));
	}
}

static void feat_build_id(struct conv *c)
{
	size_t i;

	for (i = 0; i < c->nr_bids; i++) {
		const struct kp_rec_build_id *b = c->bids[i];
		size_t len = strlen(b->filename) + 1;
		size_t padded = (len + PERF_NAME_ALIGN - 1) & ~(size_t)(PERF_NAME_ALIGN - 1);
		struct {
			int32_t		pid;
			uint8_t		data[20];
			uint8_t		size;
			uint8_t		res1;
			uint16_t	res2;
		} bev = { .pid = -1, .size = b->size };

		/* pid -1: the host machine's DSO, as perf record writes it */
		memcpy(bev.data, b->build_id, sizeof(bev.data));
		put_header(c, 0, PERF_RECORD_MISC_USER | PERF_MISC_BUILD_ID_SIZE,
			   sizeof(struct perf_event_header) + sizeof(bev) + padded);
		put(c, &bev, sizeof(bev));
		put(c, b->filename, len);
		put_zero(c, padded - len);
	}
}

/* A tracefs header file of this host for the tracing data: u64 size, the text. */
static void put_tracefs_header(struct conv *c, const char *name)
{
	struct kp_err err = { 0 };
	uint64_t size = 0;
	uint32_t len;
	char *text;

	put(c, name, strlen(name) + 1);
	/*
	 * The ring buffer's page and event layout: the same on every kernel of
	 * an architecture, so this host's when it is the recording's; none
	 * (size 0, which libtraceevent reads as "use the defaults") else.
	 */
	if (strcmp(c->info->machine, c->machine) ||
	    kp_tracefs__read_header(name, &text, &len, &err)) {
		put(c, &size, sizeof(size));
		return;
	}
	size = len - 1;
	put(c, &size, sizeof(size));
	put(c, text, size);
	free(text);
}

/* The system of tracepoint event @ev: its name up to the ":". */
static size_t tp_system(const struct kp_event *ev, const char **sys)
{
	const char *colon = strchr(ev->name, ':');

	*sys = ev->name;
	return colon ? (size_t)(colon - ev->name) : 0;
}

/*
 * perf's tracing data (tools/perf/util/trace-event-read.c reads it): the
 * "\027\010\104tracing" magic, version "0.6", endianness, long and page
 * sizes, the header_page and header_event files, no ftrace formats, the
 * recorded format file of each tracepoint grouped by system, then empty
 * kallsyms, printk formats and saved command lines.  'perf script' decodes
 * the PERF_SAMPLE_RAW fields with it.
 */
static void feat_tracing_data(struct conv *c)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const struct kp_session *s = &c->info->session;
	uint8_t endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, long_size = sizeof(long);
	uint32_t page = sysconf(_SC_PAGESIZE), nr_systems = 0, zero4 = 0, count;
	bool done[KPROF_MAX_EVENTS] = { false };
	uint64_t zero8 = 0, size;
	unsigned int i, j;

	put(c, magic, sizeof(magic));
	put(c, "0.6", 4);
	put(c, &endian, 1);
	put(c, &long_size, 1);
	put(c, &page, sizeof(page));
	put_tracefs_header(c, "header_page");
	put_tracefs_header(c, "header_event");
	put(c, &zero4, sizeof(zero4));		/* ftrace formats */

	/* systems: count them first (an event's format once, by its id) */
	for (i = 0; i < s->nr_events; i++) {
		const char *sys, *sys2;
		size_t len;

		if (!c->raw[i] || done[i])
			continue;
		len = tp_system(&s->events[i], &sys);
		nr_systems++;
		for (j = i; j < s->nr_events; j++)
			if (c->raw[j] && tp_system(&s->events[j], &sys2) == len &&
			    !memcmp(sys, sys2, len))
				done[j] = true;
	}
	put(c, &nr_systems, sizeof(nr_systems));
	memset(done, 0, sizeof(done));
	for (i = 0; i < s->nr_events; i++) {
		const char *sys, *sys2;
		size_t len;
		long at;

		if (!c->raw[i] || done[i])
			continue;
		len = tp_system(&s->events[i], &sys);
		put(c, sys, len);
		put_zero(c, 1);
		at = ftell(c->fp);
		count = 0;
		put(c, &count, sizeof(count));
		for (j = i; j < s->nr_events; j++) {
			unsigned int k;
			bool dup = false;

			if (!c->raw[j] || tp_system(&s->events[j], &sys2) != len ||
			    memcmp(sys, sys2, len))
				continue;
			done[j] = true;
			for (k = i; k < j; k++)
				if (c->raw[k] && s->events[k].config == s->events[j].config)
					dup = true;
			if (dup)
				continue;
			size = c->tpf->size[j] - 1;
			put(c, &size, sizeof(size));
			put(c, c->tpf->text[j], size);
			count++;
		}
		if (!c->error && (fseek(c->fp, at, SEEK_SET) ||
				  fwrite(&count, sizeof(count), 1, c->fp) != 1 ||
				  fseek(c->fp, 0, SEEK_END)))
			c->error = errno ? errno : EIO;
	}
	put(c, &zero4, sizeof(zero4));		/* kallsyms */
	put(c, &zero4, sizeof(zero4));		/* printk formats */
	put(c, &zero8, sizeof(zero8));		/* saved command lines */
}

static void feat_write(struct conv *c, unsigned int feat)
{
	const struct kp_data_info *info = c->info;
	char ver[64];

	switch (feat) {
	case FEAT_TRACING_DATA:
		feat_tracing_data(c);
		break;
	case FEAT_BUILD_ID:
		feat_build_id(c);
		break;
	case FEAT_HOSTNAME:
		put_string(c, info->hostname);
		break;
	case FEAT_OSRELEASE:
		put_string(c, info->release);
		break;
	case FEAT_VERSION:
		snprintf(ver, sizeof(ver), "kprofctl %s", info->kprofctl_version);
		put_string(c, ver);
		break;
	case FEAT_ARCH:
		put_string(c, info->machine);
		break;
	case FEAT_NRCPUS: {
		uint32_t n[2] = { info->nr_cpus, info->nr_cpus };

		put(c, n, sizeof(n));
		break;
	}
	case FEAT_CMDLINE:
		feat_cmdline(c);
		break;
	case FEAT_EVENT_DESC:
		feat_event_desc(c);
		break;
	case FEAT_SAMPLE_TIME: {
		uint64_t t[2] = { c->first_time, c->last_time };

		put(c, t, sizeof(t));
		break;
	}
	}
}

static void write_features(struct conv *c, struct perf_file_header *h)
{
	static const unsigned int feats[] = {
		FEAT_TRACING_DATA, FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
		FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_SAMPLE_TIME,
	};
	struct perf_section secs[KP_ARRAY_SIZE(feats)];
	unsigned int i, nr = 0;
	long table, pos;

	for (i = 0; i < KP_ARRAY_SIZE(feats); i++) {
		if ((feats[i] == FEAT_BUILD_ID && !c->nr_bids) ||
		    (feats[i] == FEAT_TRACING_DATA && !c->any_raw) ||
		    (feats[i] == FEAT_SAMPLE_TIME && !c->last_time))
			continue;
		h->features[feats[i] / 64] |= 1ULL << (feats[i] % 64);
		nr++;
	}
	/* the table of sections, in bit order, then each feature */
	table = ftell(c->fp);
	put_zero(c, nr * sizeof(secs[0]));
	for (i = 0, nr = 0; i < KP_ARRAY_SIZE(feats); i++) {
		if (!(h->features[feats[i] / 64] & (1ULL << (feats[i] % 64))))
			continue;
		pos = ftell(c->fp);
		feat_write(c, feats[i]);
		secs[nr].offset = pos;
		secs[nr].size = ftell(c->fp) - pos;
		nr++;
	}
	if (!c->error && (fseek(c->fp, table, SEEK_SET) ||
			  fwrite(secs, sizeof(secs[0]), nr, c->fp) != nr))
		c->error = errno ? errno : EIO;
}

/*
 * The format of each tracepoint event: the one the recording kept, or,
 * for a recording without them (before kprof.data version 3), this host's
 * when it runs the recording's kernel and the event's id is the same.
 * perf reads no tracepoint event without its format: any other case is
 * refused, naming the event.
 */
static int formats_init(struct conv *c, const struct kp_tp_formats *stored, const char *in,
			struct kp_err *err)
{
	const struct kp_session *s = &c->info->session;
	struct utsname uts;
	bool same_kernel = !uname(&uts) && !strcmp(uts.release, c->info->release) &&
			   !strcmp(uts.nodename, c->info->hostname);
	unsigned int i;

	c->tpf = &c->fmt;
	for (i = 0; i < s->nr_events; i++) {
		const struct kp_event *ev = &s->events[i];
		char sys[KP_TP_NAME_MAX], name[KP_TP_NAME_MAX], *text;
		const char *colon, *id;
		struct kp_err ignore;
		uint32_t size;

		if (ev->type != PERF_TYPE_TRACEPOINT)
			continue;
		if (stored && stored->text[i]) {
			c->fmt.text[i] = stored->text[i];
			c->fmt.size[i] = stored->size[i];
			continue;
		}
		colon = strchr(ev->name, ':');
		if (same_kernel && colon && (size_t)(colon - ev->name) < sizeof(sys) &&
		    snprintf(name, sizeof(name), "%s", colon + 1) < (int)sizeof(name)) {
			memcpy(sys, ev->name, colon - ev->name);
			sys[colon - ev->name] = '\0';
			name[strcspn(name, "/")] = '\0';
			if (!kp_tracefs__read_format(sys, name, &text, &size, &ignore)) {
				id = strstr(text, "\nID: ");
				if (id && strtoull(id + 5, NULL, 10) == ev->config) {
					c->fmt.text[i] = text;
					c->fmt.size[i] = size;
					c->owned[i] = true;
					continue;
				}
				free(text);
			}
		}
		kp_err__set(err, EOPNOTSUPP,
			    "'%s' has no format for tracepoint '%s' (recorded before kprof.data version 3, on %s %s): perf reads no tracepoint without it; convert on the recording host",
			    in, ev->name, c->info->hostname, c->info->release);
		return -EOPNOTSUPP;
	}
	return 0;
}

int kp_perfdata__convert(const char *in, const char *out, bool no_leaf_fixup,
			 struct kp_perfdata_stats *st, struct kp_err *err)
{
	struct perf_file_header h = { .magic = PERF_MAGIC, .size = sizeof(h),
				      .attr_size = sizeof(struct perf_file_attr) };
	const struct kprof_record_header *rec;
	struct conv c = { .out = out, .in = in, .no_leaf_fixup = no_leaf_fixup };
	unsigned int i, nr_events;
	struct utsname uts;
	struct kp_data *d;
	uint64_t off, id;
	struct kp_outfile o = { 0 };
	size_t k;
	int ret;

	if (kp_outfile__is_input(out, in)) {
		kp_err__set(err, EINVAL, "'%s' is the input file too: choose another -o", out);
		return -EINVAL;
	}
	d = kp_data__open(in, err);
	if (!d)
		return -EBADMSG;
	c.info = kp_data__info(d);
	if (!uname(&uts))
		snprintf(c.machine, sizeof(c.machine), "%s", uts.machine);
	nr_events = c.info->session.nr_events;
	if (!nr_events) {
		kp_err__set(err, EINVAL, "'%s' has no events", in);
		ret = -EINVAL;
		goto out_close;
	}
	ret = formats_init(&c, kp_data__tp_formats(d), in, err);
	if (ret)
		goto out_close;
	ret = kp_outfile__open(&o, out, true, err);
	if (ret)
		goto out_close;
	c.fp = o.fp;
	attrs_init(&c);

	/* header (written last), attrs with their ids, then the data */
	put_zero(&c, sizeof(h));
	h.attrs.offset = sizeof(h);
	h.attrs.size = nr_events * sizeof(struct perf_file_attr);
	for (i = 0; i < nr_events; i++) {
		struct perf_file_attr fa = { .attr = c.attrs[i] };

		fa.ids.offset = h.attrs.offset + h.attrs.size + i * 8;
		fa.ids.size = 8;
		put(&c, &fa, sizeof(fa));
	}
	for (i = 0; i < nr_events; i++) {
		id = event_id(i);
		put(&c, &id, sizeof(id));
	}
	h.data.offset = h.attrs.offset + h.attrs.size + nr_events * 8;
	ret = read_build_ids(&c, in, err);
	if (!ret)
		ret = kernel_maps(&c);
	if (ret) {
		if (ret == -ENOMEM)
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_unlink;
	}
	while ((ret = kp_data__next(d, &rec, &off, err)) > 0) {
		ret = conv_record(&c, rec);
		if (ret == -EOPNOTSUPP) {
			kp_err__set(err, EOPNOTSUPP,
				    "'%s' is an aggregated profile: its stacks have counts, not samples perf.data can hold",
				    in);
			goto out_unlink;
		}
		if (ret) {
			kp_err__set(err, -ret, "%s", strerror(-ret));
			goto out_unlink;
		}
	}
	if (ret < 0)
		goto out_unlink;
	fflush(c.fp);
	h.data.size = ftell(c.fp) - h.data.offset;
	write_features(&c, &h);
	if (!c.error && (fseek(c.fp, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, c.fp) != 1))
		c.error = errno ? errno : EIO;
	if (c.error) {
		ret = -c.error;
		kp_err__set(err, c.error, "cannot write '%s': %s", out, strerror(c.error));
		goto out_unlink;
	}
	c.fp = NULL;
	ret = kp_outfile__commit(&o, err);
	if (ret)
		goto out_close;
	c.st.build_ids = c.nr_bids;
	if (st)
		*st = c.st;
	ret = 0;
	goto out_close;

out_unlink:
	kp_outfile__abort(&o);	/* the temporary file only, never @out */
out_close:
	for (i = 0; i < KPROF_MAX_EVENTS; i++)
		if (c.owned[i])
			free(c.fmt.text[i]);
	for (k = 0; k < c.nr_bids; k++)
		free(c.bids[k]);
	free(c.bids);
	if (c.dec_open)
		kp_decoder__close(&c.dec);
	kp_data__close(d);
	return ret;
}
