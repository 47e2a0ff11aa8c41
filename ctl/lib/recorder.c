// SPDX-License-Identifier: GPL-2.0
/*
 * The recording engine; see recorder.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "buildid.h"
#include "recorder.h"
#include "synth.h"
#include "sys.h"
#include "tracefs.h"
#include "util.h"

#define NSEC_PER_SEC	1000000000ULL

void kp_summary__add(struct kp_summary *sum, const struct kprof_record_header *rec)
{
	unsigned int i;

	sum->records++;
	switch (rec->type) {
	case KPROF_RECORD_SAMPLE: {
		const struct kp_rec_sample *s = (const void *)rec;

		sum->samples++;
		for (i = 0; s->flags >> i && i < KP_ARRAY_SIZE(sum->sample_flags); i++)
			if (s->flags & (1U << i))
				sum->sample_flags[i]++;
		break;
	}
	case KPROF_RECORD_LOST: {
		const struct kp_rec_lost *l = (const void *)rec;

		sum->lost_records++;
		if (l->cause < KP_ARRAY_SIZE(sum->lost))
			sum->lost[l->cause] += l->lost;
		break;
	}
	case KPROF_RECORD_THROTTLE:
		sum->throttles++;
		break;
	case KPROF_RECORD_COMM:
	case KPROF_RECORD_EXIT:
	case KPROF_RECORD_FORK:
	case KPROF_RECORD_MMAP:
		sum->sideband++;
		break;
	case KP_DATA_REC_SYNTH_DONE: {
		const struct kp_rec_synth_done *sd = (const void *)rec;

		sum->synthesized += (uint64_t)sd->nr_threads + sd->nr_mmaps;
		sum->sideband -= (uint64_t)sd->nr_threads + sd->nr_mmaps;
		break;
	}
	case KP_DATA_REC_STATS: {
		const struct kp_rec_stats *st = (const void *)rec;
		struct kp_stats v = { 0 };

		for (i = 0; i < st->nr && i < KP_STATS_NR; i++)
			v.v[i] = st->v[i];
		v.lost_recursion = kp_rec_stats__lost_recursion(st);
		v.lost_cost = kp_rec_stats__lost_cost(st);
		if (st->cpu == KP_DATA_STATS_TOTAL) {
			sum->totals = v;
			sum->has_totals = st->nr >= KP_STATS_NR;
		} else {
			sum->nr_cpus++;
			if (st->nr >= KP_STATS_NR && !kp_stats__balanced(&v))
				sum->unbalanced_cpus++;
		}
		break;
	}
	case KP_DATA_REC_SWITCH: {
		const struct kp_rec_switch *sw = (const void *)rec;

		sum->switched = true;
		sum->seq = sw->seq;
		sum->samples_before = sw->samples_before;
		break;
	}
	case KP_DATA_REC_FINISHED: {
		const struct kp_rec_finished *fin = (const void *)rec;

		sum->records--;
		sum->wakeups = fin->wakeups;
		sum->finished = true;
		break;
	}
	}
}

static double pct(uint64_t n, uint64_t total)
{
	return total ? 100.0 * n / total : 0.0;
}

#define P	"[ kprof record: "

bool kp_summary__print(const struct kp_summary *sum, FILE *fp)
{
	const struct kp_stats *t = &sum->totals;
	uint64_t lost_full = sum->lost[KPROF_LOST_FULL];
	uint64_t lost_big = sum->lost[KPROF_LOST_TOO_BIG];
	uint64_t lost_rec = sum->lost[KPROF_LOST_RECURSION];
	uint64_t lost_cost = sum->lost[KPROF_LOST_COST];
	char rec[96];
	bool ok = true;

	fprintf(fp, P "Woken up %" PRIu64 " times to write data ]\n", sum->wakeups);
	fprintf(fp, P "Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
		sum->file_bytes / 1048576.0, sum->path, sum->samples);
	if (sum->switched && sum->seq)
		fprintf(fp, P "Switched output: file %u of the session, %" PRIu64
			" samples in it and the earlier ones ]\n", sum->seq + 1,
			sum->samples_before + sum->samples);
	if (sum->offcpu_stacks)
		fprintf(fp, P "Off-CPU: %.1f ms blocked in %" PRIu64 " stacks ]\n",
			sum->offcpu_ns / 1e6, sum->offcpu_stacks);
	if (sum->has_totals) {
		lost_full = t->v[KP_STAT_LOST_FULL];
		lost_big = t->v[KP_STAT_LOST_TOO_BIG];
		lost_rec = t->lost_recursion;
		lost_cost = t->lost_cost;
	}
	fprintf(fp, P "Lost %" PRIu64 " samples: %" PRIu64 " buffer full, %" PRIu64 " too big%s ]\n",
		lost_full + lost_big + lost_rec + lost_cost, lost_full, lost_big,
		kp_fmt_lost_tail(lost_rec, lost_cost, rec, sizeof(rec)));
	if (sum->has_totals) {
		ok = kp_stats__balanced(t);
		fprintf(fp, P "Balance: %" PRIu64 " invocations = %" PRIu64 " stored + %" PRIu64
			" lost: %s ]\n", t->v[KP_STAT_INVOCATIONS], t->v[KP_STAT_SAMPLES],
			lost_full + lost_big + lost_rec + lost_cost, ok ? "ok" : "MISMATCH");
		if (sum->unbalanced_cpus) {
			fprintf(fp, P "WARNING: %u CPUs do not balance ]\n", sum->unbalanced_cpus);
			ok = false;
		}
		if (t->v[KP_STAT_SAMPLES] != sum->samples_before + sum->samples) {
			fprintf(fp, P "WARNING: wrote %" PRIu64 " samples, the module stored %" PRIu64
				" ]\n", sum->samples_before + sum->samples, t->v[KP_STAT_SAMPLES]);
			ok = false;
		}
		if (t->v[KP_STAT_THROTTLED])
			fprintf(fp, P "Throttled %" PRIu64 " times ]\n", t->v[KP_STAT_THROTTLED]);
		if (t->has_filtered && t->filtered)
			fprintf(fp, P "Filtered: %" PRIu64 " tracepoint hits dropped by --filter ]\n",
				t->filtered);
		fprintf(fp, P "Side-band: %" PRIu64 " synthesized, %" PRIu64 " from the kernel, %"
			PRIu64 " lost ]\n", sum->synthesized, sum->sideband,
			t->v[KP_STAT_SIDEBAND_LOST]);
	} else {
		fprintf(fp, P "Balance: %s ]\n", sum->switched ?
			"in the last file of the --switch-output series" :
			"unknown, no statistics from the module");
		fprintf(fp, P "Side-band: %" PRIu64 " synthesized, %" PRIu64 " from the kernel ]\n",
			sum->synthesized, sum->sideband);
	}
	fprintf(fp, P "Stacks: %.2f%% kernel truncated, %.2f%% user truncated, %.2f%% user unreadable, %.2f%% kernel unwind error ]\n",
		pct(sum->sample_flags[0], sum->samples), pct(sum->sample_flags[1], sum->samples),
		pct(sum->sample_flags[2], sum->samples), pct(sum->sample_flags[3], sum->samples));
	if (sum->has_totals)
		fprintf(fp, P "Handler: avg %" PRIu64 " ns, max %" PRIu64 " ns ]\n",
			t->v[KP_STAT_INVOCATIONS] ?
			t->v[KP_STAT_HANDLER_NS] / t->v[KP_STAT_INVOCATIONS] : 0,
			t->v[KP_STAT_HANDLER_MAX_NS]);
	return ok;
}

int kp_summary__from_file(struct kp_summary *sum, const char *path, struct kp_err *err)
{
	const struct kprof_record_header *rec;
	struct kp_data *d;
	uint64_t off;
	int ret;

	memset(sum, 0, sizeof(*sum));
	snprintf(sum->path, sizeof(sum->path), "%s", path);
	d = kp_data__open(path, err);
	if (!d)
		return -EBADMSG;
	while ((ret = kp_data__next(d, &rec, &off, err)) > 0) {
		kp_summary__add(sum, rec);
		sum->file_bytes = off + rec->size;
	}
	kp_data__close(d);
	return ret;
}

/* ---- writing records ---- */

/* What a record written adds: to the summary, and the files its samples hit. */
static int note_record(struct kp_recorder *r, const struct kprof_record_header *rec,
		       struct kp_err *err)
{
	kp_summary__add(&r->sum, rec);
	if (r->hits && kp_bid_hits__wants(rec) && kp_bid_hits__add(r->hits, rec)) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	return 0;
}

static int write_record(struct kp_recorder *r, const struct kprof_record_header *rec,
			struct kp_err *err)
{
	int ret;

	ret = kp_data_writer__write(r->w, rec, err);
	if (ret)
		return ret;
	return note_record(r, rec, err);
}

/* ---- build-ids ---- */

struct buildid_ctx {
	struct kp_recorder	*r;
	struct kp_err		*err;
	char			dir[PATH_MAX];
	struct stat		root;		/* of our / */
	bool			has_root;
};

/*
 * The path of @name as process @pid sees it: /proc/PID/root/NAME when it
 * lives under another root (a container), else @name itself; NULL when
 * the process is gone from another root, whose file we cannot tell.
 */
static const char *buildid_path(struct buildid_ctx *c, const char *name, uint32_t pid,
				char *buf, size_t size)
{
	struct stat st;

	snprintf(buf, size, "/proc/%u/root", pid);
	if (!pid || !c->has_root || stat(buf, &st))
		return name;
	if (st.st_dev == c->root.st_dev && st.st_ino == c->root.st_ino)
		return name;
	if ((size_t)snprintf(buf, size, "/proc/%u/root%s", pid, name) >= size)
		return NULL;
	return buf;
}

static int buildid_one(const char *name, uint32_t pid, void *arg)
{
	struct buildid_ctx *c = arg;
	struct kp_recorder *r = c->r;
	union {
		struct kp_rec_build_id	rec;
		char			buf[sizeof(struct kp_rec_build_id) + PATH_MAX + 8];
	} u;
	unsigned char id[KP_BUILD_ID_MAX];
	char buf[PATH_MAX + 32];
	size_t len = strlen(name), size;
	const char *path;
	struct kp_err warn;
	int n, ret;

	path = buildid_path(c, name, pid, buf, sizeof(buf));
	if (!path || len >= PATH_MAX)
		return 0;
	n = kp_elf__build_id(path, id, sizeof(id));
	if (n <= 0)
		return 0;	/* gone, not an ELF file, or no build-id */
	size = (sizeof(u.rec) + len + 1 + 7) & ~(size_t)7;
	memset(&u, 0, size);
	u.rec.header.type = KP_DATA_REC_BUILD_ID;
	u.rec.header.size = size;
	u.rec.pid = pid;
	u.rec.size = n;
	memcpy(u.rec.build_id, id, n);
	memcpy(u.rec.filename, name, len);
	ret = kp_data_writer__raise_version(r->w, KP_DATA_VERSION_SWITCH, c->err);
	if (!ret)
		ret = write_record(r, &u.rec.header, c->err);
	if (ret)
		return ret;
	r->sum.build_ids++;
	if (r->no_buildid_cache)
		return 0;
	ret = kp_buildid_cache__add(c->dir, path, name, id, n, &warn);
	if (ret > 0)
		r->sum.build_ids_cached++;
	if (ret < 0 && !r->buildid_warned) {
		r->buildid_warned = true;
		kp_error(r->cmd, "warning: build-id cache %s: %s", c->dir, warn.msg);
	}
	return 0;
}

/*
 * The BUILD_ID records of the files this file's samples hit, at its end,
 * and their entries in the build-id cache.  Not for an output that cannot
 * seek: its header, of an older version, is out already.
 */
static int write_build_ids(struct kp_recorder *r, struct kp_err *err)
{
	struct buildid_ctx c = { .r = r, .err = err };
	int ret;

	if (!r->hits)
		return 0;
	c.has_root = !stat("/", &c.root);
	kp_buildid_cache__dir(r->buildid_dir, c.dir, sizeof(c.dir));
	ret = kp_bid_hits__for_each(r->hits, buildid_one, &c);
	if (ret == -ESPIPE) {
		kp_pr_debug("%s", err->msg);
		ret = 0;
	}
	kp_bid_hits__reset(r->hits);
	if (!ret && r->verbose)
		kp_error(r->cmd, "%u build-ids of the files hit, %u new in %s", r->sum.build_ids,
			 r->sum.build_ids_cached, r->no_buildid_cache ? "(no cache)" : c.dir);
	return ret;
}

/*
 * A record of the buffers: noted here, written with the others of its
 * span by ring_span(), from the mapping (see kp_ring__read_spans()).
 */
static int ring_record(const struct kprof_record_header *rec, unsigned int cpu, void *arg,
		       struct kp_err *err)
{
	(void)cpu;
	return note_record(arg, rec, err);
}

static int ring_span(const void *p, size_t len, unsigned int nr, unsigned int cpu, void *arg,
		     struct kp_err *err)
{
	struct kp_recorder *r = arg;

	(void)cpu;
	return kp_data_writer__write_span(r->w, p, len, nr, err);
}

static int synth_record(const struct kprof_record_header *rec, void *arg, struct kp_err *err)
{
	return write_record(arg, rec, err);
}

static int synthesize(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_rec_synth_done done = {
		.header = { .type = KP_DATA_REC_SYNTH_DONE, .size = sizeof(done) },
		.time = r->info.start_time,
	};
	uint32_t tgids[KPROF_MAX_PIDS] = { 0 };
	struct kp_synth_stats st = { 0 };
	uint32_t i;
	int ret = 0;

	/*
	 * A later file of --switch-output: with inherit, the processes the
	 * first ones forked are the session's too, so all of them.
	 */
	if (r->target == KP_TARGET_SYSTEM ||
	    (r->sum.seq && (r->session.flags & KPROF_SESSION_F_INHERIT)))
		ret = kp_synth__all(done.time, synth_record, r, &st, err);
	else
		for (i = 0; !ret && i < r->session.nr_pids; i++) {
			uint32_t pid = r->session.pids[i], j, tgid;

			/* -t: each thread's process, once */
			if (r->session.flags & KPROF_SESSION_F_THREADS) {
				if (kp_sys__tgid(pid, &tgid)) {
					st.nr_vanished++;
					continue;
				}
				for (j = 0; j < i && tgids[j] != tgid; j++)
					;
				tgids[i] = tgid;
				if (j < i)
					continue;
				pid = tgid;
			}
			ret = kp_synth__process(pid, done.time, synth_record, r, &st, err);
		}
	if (ret)
		return ret;
	done.nr_processes = st.nr_processes;
	done.nr_threads = st.nr_threads;
	done.nr_mmaps = st.nr_mmaps;
	done.nr_vanished = st.nr_vanished;
	if (r->verbose)
		kp_error(r->cmd, "synthesized %u processes, %u threads, %u mappings",
			 st.nr_processes, st.nr_threads, st.nr_mmaps);
	return write_record(r, &done.header, err);
}

/*
 * The format files of the tracepoint events, for kprof.data: its raw
 * records can then be decoded without this machine's tracefs.  One that
 * cannot be read is left out; the decoder reads tracefs's instead.
 */
static void read_tp_formats(struct kp_recorder *r)
{
	char sys[KPROF_EVENT_NAME_MAX], *ev;
	struct kp_err err;
	uint32_t i;

	for (i = 0; i < r->session.nr_events; i++) {
		if (r->session.events[i].type != PERF_TYPE_TRACEPOINT)
			continue;
		snprintf(sys, sizeof(sys), "%s", r->session.events[i].name);
		ev = strchr(sys, ':');
		if (!ev)
			continue;
		*ev++ = '\0';
		if (kp_tracefs__read_format(sys, ev, &r->tp_formats.text[i], &r->tp_formats.size[i],
					    &err))
			kp_error(r->cmd, "warning: %s: not stored, decoding will read tracefs",
				 err.msg);
	}
}

/* Create the output, with its SWITCH record under --switch-output, and synthesize. */
static int open_file(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_rec_switch sw = {
		.header = { .type = KP_DATA_REC_SWITCH, .size = sizeof(sw) },
		.time = r->info.start_time,
		.samples_before = r->sum.samples_before,
		.seq = r->sum.seq,
	};
	int ret;

	r->w = kp_data_writer__create(r->output, &r->info, err);
	if (!r->w)
		return -EIO;
	if (r->sw.enabled) {
		r->sw.file_start = kp_clock_monotonic_ns();
		ret = write_record(r, &sw.header, err);
		if (ret)
			return ret;
	}
	return synthesize(r, err);
}

int kp_recorder__start(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_err warn;
	int ret;

	kp_data_info__init(&r->info);
	read_tp_formats(r);
	snprintf(r->sum.path, sizeof(r->sum.path), "%s", r->output);
	r->ctx.nr_events = r->session.nr_events;
	r->ctx.max_depth = r->session.stack_depth;

	if (!r->no_buildid && !r->hits) {
		r->hits = kp_bid_hits__new();
		if (!r->hits) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	if (r->owned)
		kp_session__own(&r->session, r->ver.abi);
	kp_session__fit_abi(&r->session, r->ver.abi);
	ret = kp_session__check_abi(&r->session, r->ver.abi, err);
	if (ret)
		return ret;
	ret = kp_nl__start(r->nl, &r->session, &r->start, err);
	if (ret)
		return ret;
	r->started = true;
	kp_pr_debug("session %" PRIu64 ": %u CPUs, %u-byte buffers, stride %" PRIu64,
		    r->start.session_id, r->start.nr_cpus, r->start.buffer_size,
		    r->start.mmap_stride);

	ret = kp_rings__open(&r->rings, &r->start, err);
	if (ret)
		return ret;
	if (r->rings.nr_skipped && r->verbose)
		kp_error(r->cmd, "%u of %u CPUs have no buffer", r->rings.nr_skipped,
			 r->start.nr_cpus);

	r->info.nr_cpus = r->start.nr_cpus;
	r->info.session_id = r->start.session_id;
	r->info.session = r->session;
	r->info.session.buffer_size = r->start.buffer_size;
	snprintf(r->info.module_release, sizeof(r->info.module_release), "%.31s", r->ver.release);
	snprintf(r->info.cmdline, sizeof(r->info.cmdline), "%s", r->cmdline);
	/* --mode both: the events of the tables, for 'stop -o' and --live */
	if ((r->session.flags & KPROF_SESSION_F_AGGREGATE) &&
	    kp_agg__save_session(&r->info, &warn))
		kp_error(r->cmd, "warning: %s", warn.msg);
	/* --off-cpu: the off-CPU time comes as AGG records at the end */
	if (kp_session__has_offcpu(&r->session) && r->info.version < KP_DATA_VERSION_AGG)
		r->info.version = KP_DATA_VERSION_AGG;
	if (r->sw.enabled && r->info.version < KP_DATA_VERSION_SWITCH)
		r->info.version = KP_DATA_VERSION_SWITCH;
	r->info.tp_formats = &r->tp_formats;
	/* this kernel's vDSO, to name [vdso] frames (see kp_vdso__self()) */
	r->info.vdso = kp_vdso__self(&r->info.vdso_size);
	return open_file(r, err);
}

static int drain(struct kp_recorder *r, struct kp_err *err)
{
	int64_t n;

	n = kp_rings__read_spans(&r->rings, &r->ctx, ring_record, ring_span, r, err);
	return n < 0 ? (int)n : 0;
}

/* Does STATUS still show our session running? */
static bool session_running(struct kp_recorder *r)
{
	struct kp_status_info st;
	struct kp_err err;

	if (kp_nl__status(r->nl, &st, &err))
		return true;	/* cannot tell; poll() will */
	return st.state == KPROF_STATE_RUNNING && st.has_session &&
	       st.session_id == r->start.session_id;
}

static void progress(struct kp_recorder *r, uint64_t now, bool last)
{
	bool tty = isatty(STDERR_FILENO);

	if (!r->progress && !r->verbose)
		return;
	if (!last && now - r->last_progress < NSEC_PER_SEC)
		return;
	if (last && !tty)
		return;
	r->last_progress = now;
	if (last) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "%s[ kprof %s: %" PRIu64 "s, %.3f MB, %" PRIu64 " samples, %" PRIu64
		" lost ]%s", tty ? "\r\033[K" : "", r->cmd,
		(uint64_t)((now - r->info.start_time) / NSEC_PER_SEC),
		kp_data_writer__bytes(r->w) / 1048576.0, r->sum.samples,
		r->sum.lost[KPROF_LOST_FULL] + r->sum.lost[KPROF_LOST_TOO_BIG] +
		r->sum.lost[KPROF_LOST_RECURSION] + r->sum.lost[KPROF_LOST_COST], tty ? "" : "\n");
	fflush(stderr);
}

/* --switch-output: is it time for a new file? */
static bool switch_due(struct kp_recorder *r)
{
	struct kp_switch_output *sw = &r->sw;

	if (!sw->enabled)
		return false;
	if (sw->signal && *sw->signal) {
		*sw->signal = 0;
		return true;
	}
	if (sw->size && kp_data_writer__bytes(r->w) >= sw->size)
		return true;
	/* the real clock: tests fake kp_clock_ns() */
	return sw->time_ns && kp_clock_monotonic_ns() - sw->file_start >= sw->time_ns;
}

/*
 * Rename the finished output to OUTPUT.<timestamp> (perf's
 * YYYYmmddHHMMSScc), never over an existing file: a second one in the same
 * centisecond gets a ".N" suffix, which sorts after it.  Under
 * --switch-max-files, delete the file that falls out of the newest N.
 */
static int switch_rename(struct kp_recorder *r, char *name, size_t len, struct kp_err *err)
{
	struct kp_switch_output *sw = &r->sw;
	char stamp[32], dt[24];
	struct timeval tv;
	struct stat st;
	struct tm tm;
	unsigned int n;
	int ret;

	if (lstat(r->output, &st) || !S_ISREG(st.st_mode)) {
		kp_err__set(err, EINVAL, "--switch-output: '%s' is not a regular file", r->output);
		return -EINVAL;
	}
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
	snprintf(stamp, sizeof(stamp), "%s%02u", dt, (unsigned int)(tv.tv_usec / 10000));
	for (n = 0; n < 1000; n++) {
		if (n)
			ret = snprintf(name, len, "%s.%s.%u", r->output, stamp, n);
		else
			ret = snprintf(name, len, "%s.%s", r->output, stamp);
		if (ret < 0 || (size_t)ret >= len) {
			kp_err__set(err, ENAMETOOLONG, "'%s': the file name is too long for --switch-output",
				    r->output);
			return -ENAMETOOLONG;
		}
		ret = renameat2(AT_FDCWD, r->output, AT_FDCWD, name, RENAME_NOREPLACE);
		if (ret && errno == EINVAL) {
			/* a file system without RENAME_NOREPLACE */
			if (!lstat(name, &st))
				continue;
			ret = rename(r->output, name);
		}
		if (!ret)
			break;
		if (errno != EEXIST) {
			ret = -errno;
			kp_err__set(err, -ret, "cannot rename '%s' to '%s': %s", r->output, name,
				    strerror(-ret));
			return ret;
		}
	}
	if (n == 1000) {
		kp_err__set(err, EEXIST, "'%s.%s': too many files of that name", r->output, stamp);
		return -EEXIST;
	}
	if (!sw->max_files)
		return 0;
	if (!sw->files) {
		sw->files = calloc(sw->max_files, sizeof(*sw->files));
		if (!sw->files) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
	}
	if (sw->files[sw->next]) {
		if (unlink(sw->files[sw->next]) && errno != ENOENT)
			kp_error(r->cmd, "warning: cannot remove '%s': %s", sw->files[sw->next],
				 strerror(errno));
		else if (r->verbose)
			kp_error(r->cmd, "removed %s (--switch-max-files %u)", sw->files[sw->next],
				 sw->max_files);
		free(sw->files[sw->next]);
	}
	sw->files[sw->next] = strdup(name);
	if (!sw->files[sw->next]) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	sw->next = (sw->next + 1) % sw->max_files;
	return 0;
}

int kp_recorder__switch(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_summary prev;
	char name[sizeof(r->sum.path)];
	struct timespec ts;
	uint64_t now;
	int ret;

	ret = drain(r, err);
	if (!ret)
		ret = write_build_ids(r, err);
	if (ret)
		return ret;
	now = kp_clock_ns();
	ret = kp_data_writer__finish(r->w, now, r->sum.wakeups, err);
	if (ret)
		return ret;
	kp_data_writer__delete(r->w);
	r->w = NULL;
	/* after the last drain into it: every sample of the file counted */
	prev = r->sum;
	ret = switch_rename(r, name, sizeof(name), err);
	if (ret)
		return ret;
	progress(r, now, true);
	fprintf(stderr, "[ kprof %s: Dump %s (%" PRIu64 " samples) ]\n", r->cmd, name,
		prev.samples);

	/* The next file: its own counts, after the samples of this one. */
	memset(&r->sum, 0, sizeof(r->sum));
	snprintf(r->sum.path, sizeof(r->sum.path), "%s", r->output);
	r->sum.wakeups = prev.wakeups;
	r->sum.switched = true;
	r->sum.seq = prev.seq + 1;
	r->sum.samples_before = prev.samples_before + prev.samples;
	r->info.start_time = now;
	clock_gettime(CLOCK_REALTIME, &ts);
	r->info.start_realtime = (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
	return open_file(r, err);
}

/*
 * How long a poll may wait for the watermark: @timeout_ms, or less when a
 * --switch-output by time is due sooner, or by size (checked after each
 * wake-up: a quarter of a second of data past the size at most).
 */
static int poll_timeout(struct kp_recorder *r, int timeout_ms)
{
	struct kp_switch_output *sw = &r->sw;
	uint64_t elapsed, left;

	if (!sw->enabled || timeout_ms < 0)
		return timeout_ms;
	if (sw->size && timeout_ms > 250)
		timeout_ms = 250;
	if (sw->time_ns) {
		elapsed = kp_clock_monotonic_ns() - sw->file_start;
		left = elapsed >= sw->time_ns ? 0 : (sw->time_ns - elapsed + 999999) / 1000000;
		if (left < (uint64_t)timeout_ms)
			timeout_ms = (int)left;
	}
	return timeout_ms;
}

int kp_recorder__loop(struct kp_recorder *r, volatile sig_atomic_t *signalled,
		      kp_recorder_done_fn done, void *arg, int timeout_ms,
		      struct kp_err *err)
{
	uint64_t last_check = kp_clock_ns(), now;
	int revents, ret;

	r->last_progress = last_check;
	for (;;) {
		revents = kp_rings__poll(&r->rings, poll_timeout(r, timeout_ms), err);
		if (revents < 0)
			return revents;
		if (revents & POLLIN)
			r->sum.wakeups++;
		if (revents & POLLPRI) {
			ret = kp_rings__rescan(&r->rings, err);
			if (ret < 0)
				return ret;
		}
		ret = drain(r, err);
		if (ret)
			return ret;
		if (revents & POLLHUP) {
			kp_pr_debug("the session stopped (POLLHUP)");
			r->external_stop = true;
			break;
		}
		if ((signalled && *signalled) || (done && done(r, arg)))
			break;
		now = kp_clock_ns();
		if (switch_due(r)) {
			ret = kp_recorder__switch(r, err);
			if (ret)
				return ret;
		}
		progress(r, now, false);
		if (now - last_check >= NSEC_PER_SEC) {
			last_check = now;
			if (!session_running(r)) {
				kp_pr_debug("the session is no longer running");
				r->external_stop = true;
				break;
			}
		}
	}
	progress(r, kp_clock_ns(), true);
	return 0;
}

static int write_stats(struct kp_recorder *r, uint32_t cpu, const struct kp_stats *st,
		       struct kp_err *err)
{
	struct kp_rec_stats_buf s;

	/* --mode both: the aggregation counters too */
	kp_rec_stats__fill(&s, cpu, st,
			   st->has_agg && (r->session.flags & KPROF_SESSION_F_AGGREGATE));
	return write_record(r, &s.rec.header, err);
}

/* The totals of our stopped session, from STOP or else from STATUS. */
static int final_totals(struct kp_recorder *r, struct kp_stats *totals, struct kp_err *err)
{
	struct kp_status_info st;
	struct kp_stop_info stop;
	int ret;

	if (!r->external_stop) {
		ret = kp_nl__stop(r->nl, &stop, err);
		if (!ret) {
			r->stopped = true;
			*totals = stop.stats;
			return 0;
		}
		if (ret != -ENOENT)
			return ret;
	}
	r->stopped = true;
	ret = kp_nl__status(r->nl, &st, err);
	if (ret)
		return ret;
	if (!st.has_session || st.session_id != r->start.session_id || !st.has_stats) {
		kp_err__set(err, ENOENT, "session %" PRIu64 " is gone: no statistics",
			    r->start.session_id);
		return -ENOENT;
	}
	*totals = st.stats;
	return 0;
}

/*
 * --off-cpu: the off-CPU time the module summed per stack, one AGG record
 * per key (count: nanoseconds), after the samples and their side-band.
 */
static int write_offcpu(struct kp_recorder *r, struct kp_err *err)
{
	const struct kp_rec_agg * const *recs;
	struct kp_agg *a;
	size_t nr, i;
	int ret;

	if (!kp_session__has_offcpu(&r->session))
		return 0;
	a = kp_agg__new();
	if (!a) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = kp_agg__fetch(a, r->nl, err);
	if (!ret)
		ret = kp_agg__sort(a, err);
	recs = ret ? NULL : kp_agg__records(a, &nr);
	for (i = 0; recs && !ret && i < nr; i++) {
		if (recs[i]->event >= r->session.nr_events ||
		    r->session.events[recs[i]->event].type != KPROF_TYPE_OFFCPU)
			continue;
		ret = kp_data_writer__write(r->w, &recs[i]->header, err);
		r->sum.offcpu_stacks++;
		r->sum.offcpu_ns += recs[i]->count;
	}
	kp_agg__delete(a);
	return ret;
}

int kp_recorder__finish(struct kp_recorder *r, struct kp_err *err)
{
	struct kp_stats totals, *cpus = NULL;
	struct kp_err warn;
	unsigned int nr = 0, i;
	bool have_totals;
	int ret, pass;

	have_totals = !final_totals(r, &totals, &warn);
	if (!have_totals)
		kp_error(r->cmd, "warning: %s", warn.msg);

	/* The buffers are no longer written: empty them. */
	for (pass = 0; pass < 1000; pass++) {
		uint64_t before = r->sum.records;

		ret = drain(r, err);
		if (ret)
			return ret;
		if (r->sum.records == before)
			break;
	}

	ret = write_offcpu(r, err);
	if (!ret)
		ret = write_build_ids(r, err);
	if (ret)
		return ret;
	if (!kp_nl__stats(r->nl, &cpus, &nr, &warn)) {
		for (i = 0; i < nr; i++) {
			ret = write_stats(r, cpus[i].cpu, &cpus[i], err);
			if (ret)
				goto out_free;
		}
	} else {
		kp_error(r->cmd, "warning: no per-CPU statistics: %s", warn.msg);
	}
	if (have_totals) {
		ret = write_stats(r, KP_DATA_STATS_TOTAL, &totals, err);
		if (ret)
			goto out_free;
		/* not in the file's STATS record: for the summary only */
		r->sum.totals.has_filtered = totals.has_filtered;
		r->sum.totals.filtered = totals.filtered;
	}
	ret = kp_data_writer__finish(r->w, kp_clock_ns(), r->sum.wakeups, err);
	if (!ret) {
		r->sum.file_bytes = kp_data_writer__bytes(r->w);
		r->sum.finished = true;
	}
	if (!ret && r->sw.enabled) {
		char name[sizeof(r->sum.path)];

		kp_data_writer__delete(r->w);
		r->w = NULL;
		ret = switch_rename(r, name, sizeof(name), err);
		if (!ret)
			snprintf(r->sum.path, sizeof(r->sum.path), "%s", name);
	}
out_free:
	free(cpus);
	return ret;
}

void kp_recorder__exit(struct kp_recorder *r)
{
	struct kp_stop_info stop;
	struct kp_err err;

	if (r->started && !r->stopped && r->nl && kp_nl__stop(r->nl, &stop, &err))
		kp_pr_debug("STOP: %s", err.msg);
	r->stopped = true;
	kp_rings__close(&r->rings);
	kp_data_writer__delete(r->w);
	r->w = NULL;
	r->info.tp_formats = NULL;
	kp_tp_formats__exit(&r->tp_formats);
	kp_bid_hits__delete(r->hits);
	r->hits = NULL;
	if (r->sw.files) {
		unsigned int i;

		for (i = 0; i < r->sw.max_files; i++)
			free(r->sw.files[i]);
		free(r->sw.files);
		r->sw.files = NULL;
	}
}
