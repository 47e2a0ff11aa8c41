// SPDX-License-Identifier: GPL-2.0
/*
 * sched latency, map and timehist over a recording; see sched.h.
 *
 * Where kprof and perf sched (6.1) differ, on purpose:
 * - A task preempted while runnable (sched_switch prev_state R+) waits for
 *   a CPU from that moment: latency counts that wait.  perf 6.1 indexes a
 *   state string with the raw prev_state (0x100 for R+), so it treats
 *   such a task as sleeping and leaves the wait out.
 * - Runtime is the time between a task's switch-in and switch-out on its
 *   CPU (no sched_stat_runtime needed, which fires on every tick).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "sched.h"
#include "schedev.h"
#include "util.h"

#define NSEC_PER_MSEC	UINT64_C(1000000)
#define NSEC_PER_USEC	UINT64_C(1000)
#define SCHED_MAX_TID	(4U << 20)	/* PID_MAX_LIMIT */
#define SCHED_MAX_CPUS	KP_CPUMAP_MAX_CPUS

/* ---- per-thread state: kp_hmap of tid + 1, entries of @elem bytes ---- */

struct tidtab {
	struct kp_hmap	map;
	size_t		elem;		/* bytes of an entry; its first u32 is the tid */
};

/*
 * The entry of @tid, zeroed but for its tid when new (*@fresh, if not NULL,
 * says so); NULL if out of memory or @tid is absurd.
 */
static void *tidtab__get(struct tidtab *t, uint32_t tid, bool *fresh)
{
	void *e;

	if (fresh)
		*fresh = false;
	if (tid >= SCHED_MAX_TID)
		return NULL;
	e = kp_hmap__get(&t->map, (uint64_t)tid + 1);
	if (e)
		return e;
	e = calloc(1, t->elem);
	if (!e)
		return NULL;
	memcpy(e, &tid, sizeof(tid));
	if (kp_hmap__put(&t->map, (uint64_t)tid + 1, e)) {
		free(e);
		return NULL;
	}
	if (fresh)
		*fresh = true;
	return e;
}

static void *tidtab__find(const struct tidtab *t, uint32_t tid)
{
	return kp_hmap__get(&t->map, (uint64_t)tid + 1);
}

static int cmp_tid(const void *pa, const void *pb)
{
	uint32_t a, b;

	memcpy(&a, *(void * const *)pa, sizeof(a));
	memcpy(&b, *(void * const *)pb, sizeof(b));
	return a < b ? -1 : a > b;
}

/* The entries by tid, tid 0 left out (the idle tasks); NULL if out of memory. */
static void **tidtab__sorted(const struct tidtab *t, size_t *nr)
{
	void **all = calloc(t->map.used + 1, sizeof(*all)), *val;
	size_t pos = 0, n = 0;
	uint64_t key;

	if (!all)
		return NULL;
	while (kp_hmap__next(&t->map, &pos, &key, &val))
		if (key != 1)
			all[n++] = val;
	qsort(all, n, sizeof(*all), cmp_tid);
	*nr = n;
	return all;
}

static void tidtab__exit(struct tidtab *t)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (kp_hmap__next(&t->map, &pos, &key, &val))
		free(val);
	kp_hmap__exit(&t->map);
}

/* "1234.567890": perf's timestamp__scnprintf_usec() */
static char *fmt_usec(uint64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64, (uint64_t)(ns / 1000000000ULL),
		 (uint64_t)(ns % 1000000000ULL / 1000));
	return buf;
}

static void set_comm(char *dst, const char *src)
{
	if (src[0])
		snprintf(dst, 16, "%s", src);
}

/* Print the frames of sample @rec resolved, each on a line after @indent. */
static void print_stack(struct kp_decoder *d, const struct kp_rec_sample *rec, FILE *out,
			const char *indent, struct kp_resolved *res)
{
	unsigned int i;

	kp_machine__resolve(d->machine, rec, res, 0);
	if (!res->nr_frames) {
		fprintf(out, "%s(no call chain: record with -g)\n", indent);
		return;
	}
	for (i = 0; i < res->nr_frames; i++) {
		const struct kp_frame *f = &res->frames[i];

		if (f->sym)
			fprintf(out, "%s%s+0x%" PRIx64 " (%s)\n", indent, f->sym->name,
				f->dso_addr - f->sym->start, f->dso ? f->dso->name : KP_UNKNOWN);
		else
			fprintf(out, "%s%016" PRIx64 " %s (%s)\n", indent, f->addr, KP_UNKNOWN,
				f->dso ? f->dso->name : KP_UNKNOWN);
	}
}

static const char *no_memory(const char *cmd)
{
	kp_error(cmd, "%s", strerror(ENOMEM));
	return NULL;
}

/* A message for a walk that ended with @ret. */
static int walk_error(const char *cmd, int ret)
{
	if (ret == -ENOENT)
		return KP_EXIT_FAILURE;	/* already said */
	if (ret == -ENOMEM)
		no_memory(cmd);
	else
		kp_error(cmd, "the input file changed while it was read");
	return KP_EXIT_FAILURE;
}

/* ---- latency ---- */

enum lat_state { LAT_SLEEPING, LAT_WAIT_CPU, LAT_RUNNING };

struct lat_task {
	uint32_t			tid;		/* first: struct tidtab */
	char				comm[16];
	enum lat_state			state;
	uint64_t			sched_out, wake_up;
	const struct kp_rec_sample	*out_rec;	/* its last switch-out */
	uint64_t			out_state;
	uint64_t			runtime, total_lat, max_lat, max_start, max_end;
	uint64_t			nb_atoms;
	uint32_t			max_cpu;
	const struct kp_rec_sample	*max_out_rec, *max_instead_rec;
	uint64_t			max_out_state;
	uint32_t			num_merged;
};

/* A stretch of time one task ran on a CPU, ended by its switch-out @rec. */
struct lat_seg {
	uint64_t			start, end;
	const struct kp_rec_sample	*rec;
};

/* the last switches per CPU kept to find who ran during a wait */
#define LAT_SEGS	64

struct lat {
	const struct kp_sched_latency_opts *o;
	struct tidtab			tasks;
	uint64_t			cpu_in[SCHED_MAX_CPUS];		/* switch-in time */
	uint32_t			cpu_curr[SCHED_MAX_CPUS];
	struct lat_seg			*segs[SCHED_MAX_CPUS];		/* rings of LAT_SEGS */
	unsigned int			nr_segs[SCHED_MAX_CPUS];	/* pushed, in all */
	bool				use_waking;
	uint64_t			nr_timestamps, nr_unordered, nr_bugs;
	bool				nomem;
};

/* Note that a task ran on @cpu from @start to @end, switched out by @rec. */
static void lat__push(struct lat *l, unsigned int cpu, uint64_t start, uint64_t end,
		      const struct kp_rec_sample *rec)
{
	struct lat_seg *sg;

	if (!l->segs[cpu]) {
		l->segs[cpu] = calloc(LAT_SEGS, sizeof(*l->segs[cpu]));
		if (!l->segs[cpu])
			return;		/* --stacks then names the last task only */
	}
	sg = &l->segs[cpu][l->nr_segs[cpu]++ % LAT_SEGS];
	sg->start = start;
	sg->end = end;
	sg->rec = rec;
}

/*
 * The switch-out of the task that ran longest on @cpu between @from and
 * @to (a wait), among the last LAT_SEGS there; @last when none is known.
 */
static const struct kp_rec_sample *lat__ran_most(const struct lat *l, unsigned int cpu,
						 uint64_t from, uint64_t to,
						 const struct kp_rec_sample *last)
{
	const struct kp_rec_sample *best = last;
	uint64_t best_ns = 0;
	unsigned int i, n = l->nr_segs[cpu] < LAT_SEGS ? l->nr_segs[cpu] : LAT_SEGS;

	for (i = 0; l->segs[cpu] && i < n; i++) {
		const struct lat_seg *sg = &l->segs[cpu][(l->nr_segs[cpu] - 1 - i) % LAT_SEGS];
		uint64_t a = sg->start > from ? sg->start : from;
		uint64_t b = sg->end < to ? sg->end : to;

		if (sg->end <= from)
			break;		/* older ones ended before the wait */
		if (b > a && b - a > best_ns) {
			best_ns = b - a;
			best = sg->rec;
		}
	}
	return best;
}

static struct lat_task *lat__task(struct lat *l, uint32_t tid, bool *fresh)
{
	struct lat_task *t = tidtab__get(&l->tasks, tid, fresh);

	if (!t)
		l->nomem = tid < SCHED_MAX_TID;
	return t;
}

static int lat__event(const struct kp_schedev *ev, void *arg)
{
	struct lat *l = arg;
	struct lat_task *prev, *next, *t;
	bool fresh;

	if (ev->cpu >= SCHED_MAX_CPUS)
		return 0;
	switch (ev->type) {
	case KP_SCHEDEV_SWITCH:
		if (l->o->cpu >= 0 && ev->cpu != (uint32_t)l->o->cpu)
			return 0;
		prev = lat__task(l, ev->prev_pid, NULL);
		next = lat__task(l, ev->next_pid, &fresh);
		if (!prev || !next)
			return l->nomem ? -ENOMEM : 0;
		if (fresh) {
			/* first heard of running: as perf, a wait of 0 that counts */
			next->state = LAT_WAIT_CPU;
			next->wake_up = ev->time;
		}
		set_comm(prev->comm, ev->prev_comm);
		set_comm(next->comm, ev->next_comm);
		/* the time prev ran on this CPU, when its switch-in was seen */
		if (l->cpu_in[ev->cpu] && l->cpu_curr[ev->cpu] == ev->prev_pid &&
		    ev->time >= l->cpu_in[ev->cpu]) {
			prev->runtime += ev->time - l->cpu_in[ev->cpu];
			if (l->o->stacks)
				lat__push(l, ev->cpu, l->cpu_in[ev->cpu], ev->time, ev->sample->rec);
		}
		l->cpu_in[ev->cpu] = ev->time;
		l->cpu_curr[ev->cpu] = ev->next_pid;

		prev->sched_out = ev->time;
		prev->out_rec = ev->sample->rec;
		prev->out_state = ev->prev_state;
		if (kp_schedev__state_char(ev->prev_state) == 'R') {
			prev->state = LAT_WAIT_CPU;
			prev->wake_up = ev->time;
		} else {
			prev->state = LAT_SLEEPING;
		}

		if (next->state == LAT_WAIT_CPU && ev->next_pid) {
			uint64_t delta;

			if (ev->time < next->wake_up) {
				next->state = LAT_RUNNING;
				l->nr_bugs++;
				return 0;
			}
			delta = ev->time - next->wake_up;
			next->total_lat += delta;
			next->nb_atoms++;
			if (delta > next->max_lat || next->nb_atoms == 1) {
				next->max_lat = delta;
				next->max_start = next->wake_up;
				next->max_end = ev->time;
				next->max_cpu = ev->cpu;
				next->max_out_rec = next->out_rec;
				next->max_out_state = next->out_state;
				next->max_instead_rec = l->o->stacks ?
					lat__ran_most(l, ev->cpu, next->wake_up, ev->time,
						      ev->sample->rec) : ev->sample->rec;
			}
		}
		next->state = LAT_RUNNING;
		return 0;
	case KP_SCHEDEV_WAKEUP:
	case KP_SCHEDEV_WAKEUP_NEW:
	case KP_SCHEDEV_WAKING:
		if ((ev->type == KP_SCHEDEV_WAKING) != l->use_waking &&
		    ev->type != KP_SCHEDEV_WAKEUP_NEW)
			return 0;
		t = lat__task(l, ev->pid, NULL);
		if (!t)
			return l->nomem ? -ENOMEM : 0;
		set_comm(t->comm, ev->comm);
		if (t->state != LAT_SLEEPING)
			return 0;
		l->nr_timestamps++;
		if (t->sched_out > ev->time) {
			l->nr_unordered++;
			return 0;
		}
		t->state = LAT_WAIT_CPU;
		t->wake_up = ev->time;
		return 0;
	default:
		return 0;
	}
}

static const struct lat *lat_sorting;

static int lat__cmp1(const struct lat_task *a, const struct lat_task *b, enum kp_sched_sort k)
{
	uint64_t x, y;

	switch (k) {
	case KP_SORT_PID:
		return a->tid < b->tid ? -1 : a->tid > b->tid;
	case KP_SORT_AVG:
		x = a->nb_atoms ? a->total_lat / a->nb_atoms : 0;
		y = b->nb_atoms ? b->total_lat / b->nb_atoms : 0;
		break;
	case KP_SORT_MAX:
		x = a->max_lat;
		y = b->max_lat;
		break;
	case KP_SORT_SWITCH:
		x = a->nb_atoms;
		y = b->nb_atoms;
		break;
	default:
		x = a->runtime;
		y = b->runtime;
		break;
	}
	/* descending, as perf sorts */
	return x > y ? -1 : x < y;
}

static int lat__cmp(const void *pa, const void *pb)
{
	const struct lat_task *a = *(const struct lat_task * const *)pa;
	const struct lat_task *b = *(const struct lat_task * const *)pb;
	unsigned int i;
	int c;

	for (i = 0; i < lat_sorting->o->nr_sort; i++) {
		c = lat__cmp1(a, b, lat_sorting->o->sort[i]);
		if (c)
			return c;
	}
	c = strcmp(a->comm, b->comm);
	return c ? c : (a->tid < b->tid ? -1 : a->tid > b->tid);
}

static int cmp_comm(const void *pa, const void *pb)
{
	const struct lat_task *a = *(const struct lat_task * const *)pa;
	const struct lat_task *b = *(const struct lat_task * const *)pb;
	int c = strcmp(a->comm, b->comm);

	return c ? c : (a->tid < b->tid ? -1 : a->tid > b->tid);
}

static int cmp_max(const void *pa, const void *pb)
{
	const struct lat_task *a = *(const struct lat_task * const *)pa;
	const struct lat_task *b = *(const struct lat_task * const *)pb;

	return a->max_lat > b->max_lat ? -1 : a->max_lat < b->max_lat;
}

/* The rows: one per thread with -p, else threads of one comm merged into one. */
static size_t lat__rows(struct lat *l, struct lat_task ***rowsp)
{
	struct lat_task **rows;
	size_t i, all, n = 0, out;

	rows = (struct lat_task **)tidtab__sorted(&l->tasks, &all);
	if (!rows)
		return (size_t)-1;
	for (i = 0; i < all; i++) {
		struct lat_task *t = rows[i];

		if (t->nb_atoms) {
			t->num_merged = 1;
			rows[n++] = t;
		}
	}
	if (!l->o->pids && n) {
		qsort(rows, n, sizeof(*rows), cmp_comm);
		for (i = 1, out = 1; i < n; i++) {
			struct lat_task *m = rows[out - 1], *t = rows[i];

			if (strcmp(m->comm, t->comm)) {
				rows[out++] = t;
				continue;
			}
			m->num_merged++;
			m->runtime += t->runtime;
			m->nb_atoms += t->nb_atoms;
			m->total_lat += t->total_lat;
			if (t->max_lat > m->max_lat) {
				m->max_lat = t->max_lat;
				m->max_start = t->max_start;
				m->max_end = t->max_end;
				m->max_cpu = t->max_cpu;
				m->max_out_rec = t->max_out_rec;
				m->max_out_state = t->max_out_state;
				m->max_instead_rec = t->max_instead_rec;
				m->tid = t->tid;
			}
		}
		n = out;
	}
	lat_sorting = l;
	qsort(rows, n, sizeof(*rows), lat__cmp);
	*rowsp = rows;
	return n;
}

static void lat__print_stacks(struct kp_decoder *d, struct lat *l, struct lat_task **rows,
			      size_t n, FILE *out)
{
	struct kp_resolved *res = malloc(sizeof(*res));
	char start[32], end[32];
	size_t i;

	if (!res)
		return;
	qsort(rows, n, sizeof(*rows), cmp_max);
	if (n > l->o->stacks)
		n = l->o->stacks;
	fprintf(out, " Worst scheduling delays, with the stacks of the waiting task and of the task that ran instead:\n\n");
	for (i = 0; i < n; i++) {
		const struct lat_task *t = rows[i];
		const struct kp_rec_sample *in = t->max_instead_rec;
		char st = kp_schedev__state_char(t->max_out_state);

		fprintf(out, "  %s:%u  delay %.3f ms on CPU %u, from %s s to %s s\n", t->comm, t->tid,
			(double)t->max_lat / NSEC_PER_MSEC, t->max_cpu,
			fmt_usec(t->max_start, start, sizeof(start)),
			fmt_usec(t->max_end, end, sizeof(end)));
		if (t->max_out_rec) {
			fprintf(out, "    switched out (%c%s) at:\n", st,
				t->max_out_state & KP_SCHED_STATE_PREEMPT ? "+, preempted" : "");
			print_stack(d, t->max_out_rec, out, "      ", res);
		} else {
			fprintf(out, "    switched out: before the recording\n");
		}
		if (in) {
			const struct lat_task *o = tidtab__find(&l->tasks, in->tid);

			fprintf(out, "    ran instead (the longest of the wait): %s:%u, switched out at:\n",
				o && o->comm[0] ? o->comm : "?", in->tid);
			print_stack(d, in, out, "      ", res);
		}
		fprintf(out, "\n");
	}
	free(res);
}

int kp_sched__latency(struct kp_decoder *d, const char *cmd,
		      const struct kp_sched_latency_opts *o, FILE *out)
{
	const unsigned int want = KP_SCHEDEV_BIT(KP_SCHEDEV_SWITCH) |
		KP_SCHEDEV_BIT(KP_SCHEDEV_WAKEUP) | KP_SCHEDEV_BIT(KP_SCHEDEV_WAKEUP_NEW) |
		KP_SCHEDEV_BIT(KP_SCHEDEV_WAKING);
	struct kp_schedev_stats stats;
	struct lat *l = calloc(1, sizeof(*l));
	struct lat_task **rows = NULL;
	uint64_t all_runtime = 0, all_count = 0, lost;
	unsigned int i;
	size_t n, r;
	int ret;

	if (!l) {
		no_memory(cmd);
		return KP_EXIT_FAILURE;
	}
	l->o = o;
	l->tasks.elem = sizeof(struct lat_task);
	/* sched_wakeup as perf sched latency reads it; sched_waking when only it was recorded */
	l->use_waking = !kp_schedev__recorded(d, KP_SCHEDEV_WAKEUP);
	ret = kp_schedev__for_each(d, cmd, KP_SCHEDEV_BIT(KP_SCHEDEV_SWITCH), want, lat__event,
				   l, &stats);
	if (ret) {
		ret = walk_error(cmd, ret);
		goto out;
	}
	n = lat__rows(l, &rows);
	if (n == (size_t)-1) {
		no_memory(cmd);
		ret = KP_EXIT_FAILURE;
		goto out;
	}

	fprintf(out, "\n -------------------------------------------------------------------------------------------------------------------------------------------\n");
	fprintf(out, "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start           | Max delay end          |\n");
	fprintf(out, " -------------------------------------------------------------------------------------------------------------------------------------------\n");
	for (r = 0; r < n; r++) {
		const struct lat_task *t = rows[r];
		char start[32], end[32];
		int w;

		all_runtime += t->runtime;
		all_count += t->nb_atoms;
		if (t->num_merged > 1)
			w = fprintf(out, "  %s:(%u) ", t->comm, t->num_merged);
		else
			w = fprintf(out, "  %s:%u ", t->comm[0] ? t->comm : ":", t->tid);
		for (; w < 24; w++)
			fputc(' ', out);
		fprintf(out, "|%11.3f ms |%9" PRIu64 " | avg:%8.3f ms | max:%8.3f ms | max start: %12s s | max end: %12s s\n",
			(double)t->runtime / NSEC_PER_MSEC, t->nb_atoms,
			(double)(t->total_lat / t->nb_atoms) / NSEC_PER_MSEC,
			(double)t->max_lat / NSEC_PER_MSEC,
			fmt_usec(t->max_start, start, sizeof(start)),
			fmt_usec(t->max_end, end, sizeof(end)));
	}
	fprintf(out, " -----------------------------------------------------------------------------------------------------------------\n");
	fprintf(out, "  TOTAL:                |%11.3f ms |%9" PRIu64 " |\n",
		(double)all_runtime / NSEC_PER_MSEC, all_count);
	fprintf(out, " ---------------------------------------------------\n");
	if (l->nr_unordered && l->nr_timestamps)
		fprintf(out, "  INFO: %.3f%% unordered timestamps (%" PRIu64 " out of %" PRIu64 ")\n",
			(double)l->nr_unordered / l->nr_timestamps * 100.0, l->nr_unordered,
			l->nr_timestamps);
	lost = kp_decoder__lost(d);
	if (lost)
		fprintf(out, "  INFO: %.3f%% lost events (%" PRIu64 " out of %" PRIu64 ")\n",
			(double)lost / (lost + d->nr_samples) * 100.0, lost, lost + d->nr_samples);
	if (l->nr_bugs && l->nr_timestamps)
		fprintf(out, "  INFO: %.3f%% context switch bugs (%" PRIu64 " out of %" PRIu64 ")%s\n",
			(double)l->nr_bugs / l->nr_timestamps * 100.0, l->nr_bugs, l->nr_timestamps,
			lost ? " (due to lost events?)" : "");
	if (stats.bad)
		fprintf(out, "  INFO: %" PRIu64 " sched records too short for their format, skipped\n",
			stats.bad);
	fprintf(out, "\n");
	if (o->stacks && n)
		lat__print_stacks(d, l, rows, n, out);
	ret = KP_EXIT_OK;
out:
	free(rows);
	tidtab__exit(&l->tasks);
	for (i = 0; i < SCHED_MAX_CPUS; i++)
		free(l->segs[i]);
	free(l);
	return ret;
}

int kp_sched__parse_sort(struct kp_sched_latency_opts *o, const char *cmd, const char *keys)
{
	static const char * const names[] = { "pid", "avg", "max", "switch", "runtime" };
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	o->nr_sort = 0;
	snprintf(buf, sizeof(buf), "%s", keys);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		for (i = 0; i < 5; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == 5) {
			kp_error(cmd, "unknown sort key '%s' (pid, avg, max, switch, runtime)", tok);
			return -1;
		}
		if (o->nr_sort == KP_SCHED_SORT_MAX) {
			kp_error(cmd, "too many sort keys in '%s'", keys);
			return -1;
		}
		o->sort[o->nr_sort++] = i;
	}
	if (!o->nr_sort) {
		kp_error(cmd, "empty sort key list '%s'", keys);
		return -1;
	}
	return 0;
}

/* ---- map ---- */

struct map_task {
	uint32_t	tid;		/* first: struct tidtab */
	char		shortname[3];
	char		comm[16];
	bool		comm_changed;
};

struct map {
	const struct kp_sched_map_opts	*o;
	FILE				*out;
	struct tidtab			tasks;
	struct kp_cpumap		cpus;
	int				curr[SCHED_MAX_CPUS];	/* tid + 1; 0: none yet */
	unsigned int			comp_cpus[SCHED_MAX_CPUS];
	unsigned int			nr_comp;
	bool				comp_seen[SCHED_MAX_CPUS];
	unsigned int			nr_cpus;
	char				next1, next2;
	uint64_t			lines;
};

static int map__event(const struct kp_schedev *ev, void *arg)
{
	struct map *m = arg;
	struct map_task *t;
	bool new_shortname = false, new_cpu = false;
	unsigned int i, nr;
	char ts[32];

	if (ev->cpu >= SCHED_MAX_CPUS)
		return 0;
	if (ev->type == KP_SCHEDEV_EXEC) {
		t = tidtab__find(&m->tasks, ev->pid);
		if (t)
			t->comm_changed = true;
		return 0;
	}
	if (ev->type != KP_SCHEDEV_SWITCH)
		return 0;
	t = tidtab__get(&m->tasks, ev->next_pid, NULL);
	if (!t)
		return ev->next_pid < SCHED_MAX_TID ? -ENOMEM : 0;
	if (ev->cpu >= m->nr_cpus)
		m->nr_cpus = ev->cpu + 1;
	if (m->o->compact && !m->comp_seen[ev->cpu]) {
		m->comp_seen[ev->cpu] = true;
		m->comp_cpus[m->nr_comp++] = ev->cpu;
		new_cpu = true;
	}
	nr = m->o->compact ? m->nr_comp : m->nr_cpus;
	m->curr[ev->cpu] = ev->next_pid + 1;
	if (strcmp(t->comm, ev->next_comm) && t->comm[0])
		t->comm_changed = true;
	set_comm(t->comm, ev->next_comm);
	if (!t->shortname[0]) {
		if (!ev->next_pid) {
			t->shortname[0] = '.';
			t->shortname[1] = ' ';
		} else {
			t->shortname[0] = m->next1;
			t->shortname[1] = m->next2;
			if (m->next1 < 'Z') {
				m->next1++;
			} else {
				m->next1 = 'A';
				m->next2 = m->next2 < '9' ? m->next2 + 1 : '0';
			}
		}
		new_shortname = true;
	}

	fputs("  ", m->out);
	for (i = 0; i < nr; i++) {
		unsigned int cpu = m->o->compact ? m->comp_cpus[i] : i;
		struct map_task *c;

		if (m->o->cpus && !kp_cpumap__test(&m->cpus, cpu))
			continue;
		fputc(cpu == ev->cpu ? '*' : ' ', m->out);
		c = m->curr[cpu] ? tidtab__find(&m->tasks, m->curr[cpu] - 1) : NULL;
		if (c)
			fprintf(m->out, "%2s ", c->shortname);
		else
			fputs("   ", m->out);
	}
	if (!m->o->cpus || kp_cpumap__test(&m->cpus, ev->cpu)) {
		fprintf(m->out, "  %12s secs ", fmt_usec(ev->time, ts, sizeof(ts)));
		if (new_shortname || t->comm_changed) {
			fprintf(m->out, "%s => %s:%u", t->shortname,
				ev->next_pid ? t->comm : "swapper", ev->next_pid);
			t->comm_changed = false;
		}
		if (m->o->compact && new_cpu)
			fprintf(m->out, " (CPU %u)", ev->cpu);
	}
	fputc('\n', m->out);
	m->lines++;
	return 0;
}

int kp_sched__map(struct kp_decoder *d, const char *cmd, const struct kp_sched_map_opts *o,
		  FILE *out)
{
	struct map *m = calloc(1, sizeof(*m));
	int ret;

	if (!m) {
		no_memory(cmd);
		return KP_EXIT_FAILURE;
	}
	m->o = o;
	m->out = out;
	m->tasks.elem = sizeof(struct map_task);
	m->next1 = 'A';
	m->next2 = '0';
	/* perf prints a column for every CPU of the machine */
	m->nr_cpus = d->info.nr_cpus < SCHED_MAX_CPUS ? d->info.nr_cpus : SCHED_MAX_CPUS;
	if (o->cpus) {
		unsigned int bad = 0;

		ret = kp_cpumap__parse(&m->cpus, o->cpus, SCHED_MAX_CPUS, &bad);
		if (ret) {
			kp_error(cmd, "bad --cpus value '%s'", o->cpus);
			ret = KP_EXIT_USAGE;
			goto out;
		}
	}
	ret = kp_schedev__for_each(d, cmd, KP_SCHEDEV_BIT(KP_SCHEDEV_SWITCH),
				   KP_SCHEDEV_BIT(KP_SCHEDEV_SWITCH) |
				   KP_SCHEDEV_BIT(KP_SCHEDEV_EXEC), map__event, m, NULL);
	ret = ret ? walk_error(cmd, ret) : KP_EXIT_OK;
out:
	tidtab__exit(&m->tasks);
	free(m);
	return ret;
}

/* ---- timehist ---- */

struct th_stats {
	uint64_t	n;
	double		mean, m2;	/* Welford */
	uint64_t	min, max;
};

static void th_stats__add(struct th_stats *s, uint64_t v)
{
	double delta;

	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
	if (s->n == 1 || v < s->min)
		s->min = v;
	if (v > s->max)
		s->max = v;
}

struct th_task {
	uint32_t	tid, pid, ppid;	/* tid first: struct tidtab */
	bool		dead, ppid_known;
	char		comm[16];
	uint64_t	last_time, ready_to_run;
	uint64_t	last_state;
	uint64_t	dt_run, dt_delay, dt_sleep, dt_iowait, dt_preempt;
	uint64_t	total_run, total_delay, total_sleep, total_iowait, total_preempt;
	uint64_t	migrations;
	struct th_stats	run;
};

struct th {
	const struct kp_sched_timehist_opts *o;
	struct kp_decoder		*d;
	FILE				*out;
	struct tidtab			tasks;
	struct th_task			*idle[SCHED_MAX_CPUS];
	uint64_t			cpu_time[SCHED_MAX_CPUS];	/* last switch */
	struct kp_cpumap		cpus;
	struct kp_filter		filter;
	bool				use_waking;
	unsigned int			nr_cpus;
	int				comm_width;
	uint64_t			first, last, skipped;
	char				commstr[64];
};

static const char *th__commstr(struct th *h, const struct th_task *t)
{
	int n;

	if (!t->pid)
		n = snprintf(h->commstr, sizeof(h->commstr), "%s", t->comm);
	else if (t->tid != t->pid)
		n = snprintf(h->commstr, sizeof(h->commstr), "%s[%u/%u]", t->comm, t->tid, t->pid);
	else
		n = snprintf(h->commstr, sizeof(h->commstr), "%s[%u]", t->comm, t->tid);
	if (n > h->comm_width)
		h->comm_width = n;
	return h->commstr;
}

static void th__time(FILE *out, uint64_t ns, int width)
{
	fprintf(out, "%*" PRIu64 ".%03" PRIu64 " ", width, ns / NSEC_PER_MSEC,
		ns % NSEC_PER_MSEC / NSEC_PER_USEC);
}

static struct th_task *th__task(struct th *h, uint32_t tid, uint64_t time)
{
	bool fresh;
	struct th_task *t = tidtab__get(&h->tasks, tid, &fresh);

	if (fresh) {
		t->pid = tid;
		/* the side-band's name until a record names it */
		snprintf(t->comm, sizeof(t->comm), "%s",
			 kp_machine__comm(h->d->machine, tid, tid, time));
	}
	return t;
}

static struct th_task *th__idle(struct th *h, unsigned int cpu)
{
	if (!h->idle[cpu]) {
		h->idle[cpu] = calloc(1, sizeof(struct th_task));
		if (h->idle[cpu])
			snprintf(h->idle[cpu]->comm, sizeof(h->idle[cpu]->comm), "<idle>");
	}
	return h->idle[cpu];
}

static bool th__filtered(const struct th *h, const struct th_task *t)
{
	unsigned int i;

	if (!h->filter.nr_pids && !h->filter.nr_tids)
		return false;
	for (i = 0; i < h->filter.nr_pids; i++)
		if (h->filter.pids[i] == t->pid)
			return false;
	for (i = 0; i < h->filter.nr_tids; i++)
		if (h->filter.tids[i] == t->tid)
			return false;
	return true;
}

static bool th__cpu_shown(const struct th *h, unsigned int cpu)
{
	return !h->o->cpus || kp_cpumap__test(&h->cpus, cpu);
}

static bool skip_sym(const char *name)
{
	return !strcmp(name, "schedule") || !strcmp(name, "__schedule") ||
	       !strcmp(name, "preempt_schedule");
}

/* perf's one-line call chain: "sym <- sym <- ..." */
static void th__callchain(struct th *h, const struct kp_resolved *s)
{
	unsigned int i, shown = 0;

	if (h->o->no_callchain)
		return;
	for (i = 0; i < s->nr_frames && shown < h->o->max_stack; i++) {
		const struct kp_frame *f = &s->frames[i];

		if (f->sym && skip_sym(f->sym->name))
			continue;
		fprintf(h->out, "%s%s", shown ? " <- " : "  ", f->sym ? f->sym->name : KP_UNKNOWN);
		shown++;
	}
}

static void th__prefix(struct th *h, const struct kp_schedev *ev, char mark)
{
	char ts[32];
	unsigned int i;

	fprintf(h->out, "%15s [%04u] ", fmt_usec(ev->time, ts, sizeof(ts)), ev->cpu);
	if (h->o->cpu_visual) {
		/* perf pads a migration's CPU columns with two blanks, others with one */
		fputs(mark == 'm' ? "  " : " ", h->out);
		for (i = 0; i < h->nr_cpus; i++)
			fputc(i == ev->cpu ? mark : ' ', h->out);
		fputs(mark == 'm' ? "  " : " ", h->out);
	}
}

static void th__switch(struct th *h, const struct kp_schedev *ev)
{
	const struct kp_rec_sample *r = ev->sample->rec;
	uint64_t t = ev->time, tprev = h->cpu_time[ev->cpu];
	struct th_task *task;

	task = ev->prev_pid ? th__task(h, ev->prev_pid, ev->time) : th__idle(h, ev->cpu);
	h->cpu_time[ev->cpu] = t;
	if (!task)
		return;
	if (ev->prev_pid) {
		task->pid = r->tid == ev->prev_pid ? r->pid : task->pid;
		set_comm(task->comm, ev->prev_comm);
	}
	if (!h->first)
		h->first = t;
	h->last = t;
	if (th__filtered(h, task)) {
		h->skipped++;
		goto out;
	}
	if (th__cpu_shown(h, ev->cpu)) {
		task->dt_run = task->dt_delay = task->dt_sleep = task->dt_iowait = 0;
		task->dt_preempt = 0;
		if (tprev) {
			task->dt_run = t - tprev;
			if (task->ready_to_run && task->ready_to_run <= tprev)
				task->dt_delay = tprev - task->ready_to_run;
			if (task->last_time && task->last_time <= tprev) {
				uint64_t wait = tprev - task->last_time;
				char st = kp_schedev__state_char(task->last_state);

				if (st == 'R')
					task->dt_preempt = wait;
				else if (st == 'D')
					task->dt_iowait = wait;
				else
					task->dt_sleep = wait;
			}
		}
		th_stats__add(&task->run, task->dt_run);
		task->total_run += task->dt_run;
		task->total_delay += task->dt_delay;
		task->total_sleep += task->dt_sleep;
		task->total_iowait += task->dt_iowait;
		task->total_preempt += task->dt_preempt;
	}
	if (!h->o->summary_only && th__cpu_shown(h, ev->cpu)) {
		th__prefix(h, ev, ev->prev_pid ? 's' : 'i');
		fprintf(h->out, " %-*s ", h->comm_width, th__commstr(h, task));
		th__time(h->out, task->dt_sleep + task->dt_iowait + task->dt_preempt, 6);
		th__time(h->out, task->dt_delay, 6);
		th__time(h->out, task->dt_run, 6);
		if (h->o->state)
			fprintf(h->out, " %5c ",
				ev->prev_pid ? kp_schedev__state_char(ev->prev_state) : 'I');
		if (h->o->next) {
			char nstr[40];

			snprintf(nstr, sizeof(nstr), "next: %s[%u]", ev->next_comm, ev->next_pid);
			fprintf(h->out, " %-*s", h->comm_width, nstr);
		}
		if (h->o->wakeups && !h->o->next)
			fprintf(h->out, "  %-*s", h->comm_width, "");
		if (ev->prev_pid)
			th__callchain(h, ev->sample);
		fputc('\n', h->out);
	}
out:
	task->last_time = ev->time;
	task->last_state = ev->prev_state;
	task->ready_to_run = 0;
}

static int th__event(const struct kp_schedev *ev, void *arg)
{
	struct th *h = arg;
	const struct kp_rec_sample *r = ev->sample->rec;
	struct th_task *t, *cur;
	char who[64];

	if (ev->cpu >= SCHED_MAX_CPUS)
		return 0;
	if (ev->cpu >= h->nr_cpus)
		h->nr_cpus = ev->cpu + 1;
	switch (ev->type) {
	case KP_SCHEDEV_SWITCH:
		th__switch(h, ev);
		return 0;
	case KP_SCHEDEV_WAKEUP:
	case KP_SCHEDEV_WAKING:
	case KP_SCHEDEV_WAKEUP_NEW:
		if ((ev->type == KP_SCHEDEV_WAKING) != h->use_waking &&
		    ev->type != KP_SCHEDEV_WAKEUP_NEW)
			return 0;
		t = th__task(h, ev->pid, ev->time);
		if (!t)
			return 0;
		set_comm(t->comm, ev->comm);
		if (!t->ready_to_run)
			t->ready_to_run = ev->time;
		if (!h->o->wakeups || h->o->summary_only)
			return 0;
		cur = r->tid ? th__task(h, r->tid, ev->time) : th__idle(h, ev->cpu);
		if (!cur)
			return 0;
		if (r->tid)
			cur->pid = r->pid;
		if (th__filtered(h, cur) && th__filtered(h, t))
			return 0;
		th__prefix(h, ev, ' ');
		fprintf(h->out, " %-*s ", h->comm_width, th__commstr(h, cur));
		fprintf(h->out, "  %9s  %9s  %9s ", "", "", "");
		fprintf(h->out, "awakened: %s\n", th__commstr(h, t));
		return 0;
	case KP_SCHEDEV_MIGRATE:
		t = th__task(h, ev->pid, ev->time);
		if (!t)
			return 0;
		set_comm(t->comm, ev->comm);
		t->migrations++;
		if (!h->o->migrations || h->o->summary_only)
			return 0;
		cur = r->tid ? th__task(h, r->tid, ev->time) : th__idle(h, ev->cpu);
		if (!cur || (th__filtered(h, cur) && th__filtered(h, t)))
			return 0;
		th__prefix(h, ev, 'm');
		fprintf(h->out, " %-*s ", h->comm_width, th__commstr(h, cur));
		fprintf(h->out, "  %9s  %9s  %9s ", "", "", "");
		snprintf(who, sizeof(who), "%s", th__commstr(h, t));
		fprintf(h->out, "migrated: %s cpu %d => %d\n", who, ev->orig_cpu, ev->dest_cpu);
		return 0;
	case KP_SCHEDEV_FORK:
		t = th__task(h, ev->pid, ev->time);
		if (t) {
			t->ppid = ev->ppid;
			t->ppid_known = true;
			set_comm(t->comm, ev->comm);
		}
		return 0;
	case KP_SCHEDEV_EXIT:
		t = th__task(h, ev->pid, ev->time);
		if (t)
			t->dead = true;
		return 0;
	default:
		return 0;
	}
}

static void th__header(struct th *h)
{
	static const char dots[] = "------------------------------------------------------------"
		"------------------------------------------------------------";
	FILE *out = h->out;
	unsigned int i;

	fprintf(out, "%15s %6s ", "time", "cpu");
	if (h->o->cpu_visual) {
		fputc(' ', out);
		for (i = 0; i < h->nr_cpus; i++)
			fprintf(out, "%x", i % 16);
		fputc(' ', out);
	}
	fprintf(out, " %-*s  %9s  %9s  %9s", h->comm_width, "task name", "wait time", "sch delay",
		"run time");
	if (h->o->state)
		fprintf(out, "  %s", "state");
	fprintf(out, "\n%15s %-6s ", "", "");
	if (h->o->cpu_visual)
		fprintf(out, " %*s ", h->nr_cpus, "");
	fprintf(out, " %-*s  %9s  %9s  %9s", h->comm_width, "[tid/pid]", "(msec)", "(msec)",
		"(msec)");
	if (h->o->state)
		fprintf(out, "  %5s", "");
	fprintf(out, "\n%.15s %.6s ", dots, dots);
	if (h->o->cpu_visual)
		fprintf(out, " %.*s ", h->nr_cpus, dots);
	fprintf(out, " %.*s  %.9s  %.9s  %.9s", h->comm_width, dots, dots, dots, dots);
	if (h->o->state)
		fprintf(out, "  %.5s", dots);
	fputc('\n', out);
}

static void th__task_row(struct th *h, struct th_task *t)
{
	FILE *out = h->out;
	double stddev;

	fprintf(out, "%*s   %5d  %9" PRIu64 " ", h->comm_width, th__commstr(h, t),
		t->ppid_known ? (int)t->ppid : -1, t->run.n);
	th__time(out, t->total_run, 8);
	if (h->o->state) {
		th__time(out, t->total_sleep, 6);
		fputc(' ', out);
		th__time(out, t->total_iowait, 6);
		fputc(' ', out);
		th__time(out, t->total_preempt, 6);
		fputc(' ', out);
		th__time(out, t->total_delay, 6);
		fputc('\n', out);
		return;
	}
	/* perf's rel_stddev_stats(): the standard error of the mean, in % of it */
	stddev = t->run.n > 1 && t->run.mean ?
		100.0 * sqrt(t->run.m2 / (t->run.n - 1) / t->run.n) / t->run.mean : 0;
	th__time(out, t->run.min, 6);
	fputc(' ', out);
	th__time(out, (uint64_t)t->run.mean, 6);
	fputc(' ', out);
	th__time(out, t->run.max, 6);
	fprintf(out, "  %5.2f   %5" PRIu64 "\n", stddev, t->migrations);
}

static void th__summary(struct th *h)
{
	static const char dots[] = "------------------------------------------------------------"
		"------------------------------------------------------------";
	uint64_t nr_tasks = 0, scheds = 0, run = 0, span = h->last - h->first;
	FILE *out = h->out;
	unsigned int pass, cpu;
	struct th_task **tasks;
	size_t i, nr;

	tasks = (struct th_task **)tidtab__sorted(&h->tasks, &nr);
	if (!tasks) {
		no_memory("sched timehist");
		return;
	}

	if (h->o->state) {
		fprintf(out, "\nWait-time summary\n%*s  parent   sched-in  ", h->comm_width, "comm");
		fprintf(out, "   run-time      sleep      iowait     preempt       delay\n");
	} else {
		fprintf(out, "\nRuntime summary\n%*s  parent   sched-in  ", h->comm_width, "comm");
		fprintf(out, "   run-time    min-run     avg-run     max-run  stddev  migrations\n");
	}
	fprintf(out, "%*s            (count)  ", h->comm_width, "");
	fprintf(out, "     (msec)     (msec)      (msec)      (msec)       %s\n",
		h->o->state ? "(msec)" : "%");
	fprintf(out, "%.117s\n", dots);
	for (pass = 0; pass < 2; pass++) {
		uint64_t before = nr_tasks;

		if (pass)
			fprintf(out, "\nTerminated tasks:\n");
		for (i = 0; i < nr; i++) {
			struct th_task *t = tasks[i];

			if (!t->run.n || t->dead != (pass == 1) || th__filtered(h, t))
				continue;
			nr_tasks++;
			scheds += t->run.n;
			run += t->total_run;
			th__task_row(h, t);
		}
		if (nr_tasks == before)
			fprintf(out, pass ? "<no terminated tasks>\n" : "<no still running tasks>\n");
	}
	if (!h->skipped) {
		fprintf(out, "\nIdle stats:\n");
		for (cpu = 0; cpu < h->nr_cpus; cpu++) {
			const struct th_task *t = h->idle[cpu];

			if (!th__cpu_shown(h, cpu))
				continue;
			if (t && t->run.n) {
				scheds += t->run.n;
				fprintf(out, "    CPU %2u idle for ", cpu);
				th__time(out, t->total_run, 6);
				fprintf(out, " msec  (%6.2f%%)\n",
					span ? 100.0 * t->total_run / span : 0.0);
			} else {
				fprintf(out, "    CPU %2u idle entire time window\n", cpu);
			}
		}
	}
	fprintf(out, "\n    Total number of unique tasks: %" PRIu64 "\n"
		"Total number of context switches: %" PRIu64 "\n", nr_tasks, scheds);
	fprintf(out, "           Total run time (msec): ");
	th__time(out, run, 2);
	fprintf(out, "\n    Total scheduling time (msec): ");
	th__time(out, span, 2);
	fprintf(out, " (x %u)\n", h->nr_cpus);
	free(tasks);
}

int kp_sched__timehist(struct kp_decoder *d, const char *cmd,
		       const struct kp_sched_timehist_opts *o, FILE *out)
{
	const unsigned int want = ~0U;
	struct th *h = calloc(1, sizeof(*h));
	unsigned int cpu;
	int ret;

	if (!h) {
		no_memory(cmd);
		return KP_EXIT_FAILURE;
	}
	h->o = o;
	h->d = d;
	h->out = out;
	h->tasks.elem = sizeof(struct th_task);
	h->comm_width = 30;
	h->nr_cpus = d->info.nr_cpus < SCHED_MAX_CPUS ? d->info.nr_cpus : SCHED_MAX_CPUS;
	if (!h->nr_cpus)
		h->nr_cpus = 1;
	ret = kp_filter__init(&h->filter, cmd, NULL, o->pids, o->tids, NULL, false, false);
	if (ret)
		goto out;
	if (o->cpus) {
		unsigned int bad = 0;

		if (kp_cpumap__parse(&h->cpus, o->cpus, SCHED_MAX_CPUS, &bad)) {
			kp_error(cmd, "bad --cpu value '%s'", o->cpus);
			ret = KP_EXIT_USAGE;
			goto out;
		}
	}
	/* sched_waking when it was recorded, as perf sched timehist prefers it */
	h->use_waking = kp_schedev__recorded(d, KP_SCHEDEV_WAKING);
	if (!o->summary_only)
		th__header(h);
	ret = kp_schedev__for_each(d, cmd, KP_SCHEDEV_BIT(KP_SCHEDEV_SWITCH), want, th__event,
				   h, NULL);
	if (ret) {
		ret = walk_error(cmd, ret);
		goto out;
	}
	if (o->summary_only || o->with_summary)
		th__summary(h);
	ret = KP_EXIT_OK;
out:
	kp_filter__exit(&h->filter);
	tidtab__exit(&h->tasks);
	for (cpu = 0; cpu < SCHED_MAX_CPUS; cpu++)
		free(h->idle[cpu]);
	free(h);
	return ret;
}
