// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl lock contention [-a | -p PID | -- CMD] [-k KEY] [-t | -l] [-E N]
 *                          [--max-stack N] [-v] [--folded] [duration]
 *
 * perf lock contention on kprof: START an aggregating session with one
 * KPROF_TYPE_LOCK event (module/lock.c: each wait in a kernel lock's slow
 * path, from lock:contention_begin to contention_end, counted in the
 * kernel by thread, lock, type and the waiter's kernel stack, with its
 * total, longest and shortest time), wait for the duration, the command or
 * Ctrl-C, STOP, read the tables (AGG_DUMP) and print perf's table:
 * contended, total wait, max wait, avg wait, type, and the caller (the
 * first frame outside the kernel's lock and scheduler text, see
 * lock__caller(); perf skips a fixed 3 frames first, which on 6.1 lands one
 * frame further out, in the caller's caller); per thread with -t, per lock
 * address with -l, with the stacks with -v.  --folded prints the waiters' stacks weighted by wait time (ns),
 * the lock type as the leaf, for flamegraph --colors lock.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/hist.h"
#include "lib/hmap.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/schedev.h"
#include "lib/session.h"
#include "lib/symbols.h"
#include "lib/tracefs.h"
#include "lib/util.h"

static const char * const lock_usage[] = {
	"kprofctl lock contention [-a | -p <pid>] [<options>] [<duration>] [-- <command>]",
	"",
	"Kernel lock contention, as perf lock contention: who waited for which",
	"lock, from where and how long, counted in the kernel from the",
	"lock:contention_begin/end tracepoints.  Without -p or a command: every",
	"thread (-a).  Until <duration> seconds passed, the command ended or Ctrl-C.",
	NULL
};

static volatile sig_atomic_t lock_signal;

static void lock__sighandler(int sig)
{
	lock_signal = sig;
}

/* The sort keys, as perf lock contention's -k names them. */
enum lock_key {
	LOCK_KEY_CONTENDED,
	LOCK_KEY_WAIT_TOTAL,
	LOCK_KEY_WAIT_MAX,
	LOCK_KEY_WAIT_MIN,
	LOCK_KEY_AVG_WAIT,
};

static const char * const lock_key_names[] = {
	[LOCK_KEY_CONTENDED]	= "contended",
	[LOCK_KEY_WAIT_TOTAL]	= "wait_total",
	[LOCK_KEY_WAIT_MAX]	= "wait_max",
	[LOCK_KEY_WAIT_MIN]	= "wait_min",
	[LOCK_KEY_AVG_WAIT]	= "avg_wait",
};

/* One printed row: the waits of a caller (or thread, or lock), summed. */
struct lock_row {
	uint64_t	contended;
	uint64_t	total_ns;
	uint64_t	max_ns;
	uint64_t	min_ns;
	uint32_t	flags;		/* KPROF_LOCK_F_* */
	uint32_t	pid;		/* -t: the thread */
	char		comm[16];
	uint64_t	lock;		/* -l: the lock */
	uint64_t	caller;		/* the caller's address */
	uint32_t	nr_frames;	/* the first row's stack (-v) */
	uint64_t	*frames;
};

enum lock_aggr {
	LOCK_AGGR_CALLER,
	LOCK_AGGR_TASK,
	LOCK_AGGR_ADDR,
};

struct lock_report {
	enum lock_aggr		aggr;
	struct kp_kernel	kernel;
	struct kp_hmap		index;		/* key hash -> row index + 1 */
	struct lock_row		*rows;
	size_t			nr, alloc;
	uint64_t		session_id;
	unsigned int		max_stack;
	bool			folded;
	uint32_t		event;		/* the lock event's index */
};

/* perf lock contention's name of a KPROF_LOCK_F_* type. */
static const char *lock__type(uint32_t flags)
{
	static const struct {
		uint32_t	flags;
		const char	*name;
	} types[] = {
		{ 0,						"semaphore" },
		{ KPROF_LOCK_F_SPIN,				"spinlock" },
		{ KPROF_LOCK_F_SPIN | KPROF_LOCK_F_READ,	"rwlock:R" },
		{ KPROF_LOCK_F_SPIN | KPROF_LOCK_F_WRITE,	"rwlock:W" },
		{ KPROF_LOCK_F_READ,				"rwsem:R" },
		{ KPROF_LOCK_F_WRITE,				"rwsem:W" },
		{ KPROF_LOCK_F_RT,				"rtmutex" },
		{ KPROF_LOCK_F_RT | KPROF_LOCK_F_READ,		"rwlock-rt:R" },
		{ KPROF_LOCK_F_RT | KPROF_LOCK_F_WRITE,		"rwlock-rt:W" },
		{ KPROF_LOCK_F_PERCPU | KPROF_LOCK_F_READ,	"pcpu-sem:R" },
		{ KPROF_LOCK_F_PERCPU | KPROF_LOCK_F_WRITE,	"pcpu-sem:W" },
		{ KPROF_LOCK_F_MUTEX,				"mutex" },
		{ KPROF_LOCK_F_MUTEX | KPROF_LOCK_F_SPIN,	"mutex" },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (types[i].flags == flags)
			return types[i].name;
	return "unknown";
}

/* A type's key: a mutex that spins first is the same mutex. */
static uint32_t lock__type_key(uint32_t flags)
{
	return flags & KPROF_LOCK_F_MUTEX ? KPROF_LOCK_F_MUTEX : flags;
}

/*
 * A BPF trampoline or program ("[bpf]" in kallsyms): a tracer's fentry on
 * a lock function (BCC's klockstat on mutex_lock) puts one between the lock
 * function and its caller.
 */
static bool lock__bpf_frame(struct lock_report *r, uint64_t addr)
{
	struct kp_dso *dso = NULL;

	return kp_kernel__find(&r->kernel, addr, &dso) && dso && !strcmp(dso->name, "[bpf]");
}

/*
 * The caller of a wait: its first kernel frame outside the lock functions
 * (the kernel's lock and scheduler text) after one inside them.  The slow
 * paths that call the tracepoint are not all in that text (qspinlock's
 * queued_spin_lock_slowpath(), PREEMPT_RT's __rt_mutex_slowlock_locked()),
 * but the lock function that called them is.
 */
static uint64_t lock__caller(struct lock_report *r, const uint64_t *frames, uint32_t nr)
{
	bool seen = false;
	uint32_t i;

	for (i = 0; i < nr; i++) {
		if (kp_kernel__in_lock_text(&r->kernel, frames[i]))
			seen = true;
		else if (seen && !lock__bpf_frame(r, frames[i]))
			return frames[i];
	}
	/* no lock function in the chain: its first frame */
	return nr ? frames[seen ? nr - 1 : 0] : 0;
}

/* "name+0xoff", or the address when kallsyms does not know it. */
static void lock__symoff(struct lock_report *r, uint64_t addr, char *buf, size_t len)
{
	const struct kp_sym *sym = addr ? kp_kernel__find(&r->kernel, addr, NULL) : NULL;

	if (sym)
		snprintf(buf, len, "%s+0x%" PRIx64, sym->name, addr - sym->start);
	else
		snprintf(buf, len, "0x%" PRIx64, addr);
}

/* Add the waits of @e (an AGG entry, or one recorded wait) to their row. */
static int lock__add(struct lock_report *r, const struct kp_agg_entry *e, struct kp_err *err)
{
	uint32_t nr = e->nr_kernel < r->max_stack ? e->nr_kernel : r->max_stack;
	uint32_t type = lock__type_key(e->lock_flags);
	struct lock_row *row;
	uint64_t h, caller;
	void *v;

	caller = lock__caller(r, e->kernel, e->nr_kernel);
	switch (r->aggr) {
	case LOCK_AGGR_TASK:
		h = kp_hash64(e->pid);
		break;
	case LOCK_AGGR_ADDR:
		h = kp_hash64(e->lock ^ type);
		break;
	default:
		h = kp_hash64(caller ^ ((uint64_t)type << 56));
		break;
	}
	/* distinct keys that hash alike chain on: h + 1, h + 2, ... */
	for (h |= 1;; h += 2) {
		v = kp_hmap__get(&r->index, h);
		if (!v)
			break;
		row = &r->rows[(uintptr_t)v - 1];
		if (r->aggr == LOCK_AGGR_TASK ? row->pid == e->pid :
		    r->aggr == LOCK_AGGR_ADDR ? row->lock == e->lock && row->flags == type :
		    row->caller == caller && row->flags == type)
			break;
	}
	if (!v) {
		if (r->nr == r->alloc) {
			size_t n = r->alloc ? 2 * r->alloc : 64;
			struct lock_row *rows = realloc(r->rows, n * sizeof(*rows));

			if (!rows)
				goto nomem;
			r->rows = rows;
			r->alloc = n;
		}
		row = &r->rows[r->nr];
		memset(row, 0, sizeof(*row));
		row->min_ns = UINT64_MAX;
		row->flags = type;
		row->pid = e->pid;
		snprintf(row->comm, sizeof(row->comm), "%s", e->comm);
		row->lock = e->lock;
		row->caller = caller;
		row->frames = malloc((nr ? nr : 1) * sizeof(*row->frames));
		if (!row->frames)
			goto nomem;
		memcpy(row->frames, e->kernel, nr * sizeof(*row->frames));
		row->nr_frames = nr;
		if (kp_hmap__put(&r->index, h, (void *)(uintptr_t)(r->nr + 1))) {
			free(row->frames);
			goto nomem;
		}
		r->nr++;
	}
	row->contended += e->count;
	row->total_ns += e->time_ns;
	if (e->has_minmax) {
		if (e->max_ns > row->max_ns)
			row->max_ns = e->max_ns;
		if (e->min_ns < row->min_ns)
			row->min_ns = e->min_ns;
	}
	return 0;

nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

static int lock__entry(const struct kp_agg_entry *e, void *arg, struct kp_err *err)
{
	struct lock_report *r = arg;

	if (!e->has_lock || e->event != r->event || !e->count)
		return 0;
	if (r->session_id && e->session_id && e->session_id != r->session_id) {
		kp_err__set(err, EAGAIN, "another session started while the tables were read");
		return -EAGAIN;
	}
	return lock__add(r, e, err);
}

static enum lock_key lock_sort_key;

static uint64_t lock__key_value(const struct lock_row *row)
{
	switch (lock_sort_key) {
	case LOCK_KEY_CONTENDED:
		return row->contended;
	case LOCK_KEY_WAIT_MAX:
		return row->max_ns;
	case LOCK_KEY_WAIT_MIN:
		return row->min_ns;
	case LOCK_KEY_AVG_WAIT:
		return row->contended ? row->total_ns / row->contended : 0;
	default:
		return row->total_ns;
	}
}

static int lock__cmp(const void *a, const void *b)
{
	const struct lock_row *x = a, *y = b;
	uint64_t vx = lock__key_value(x), vy = lock__key_value(y);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	if (x->contended != y->contended)
		return x->contended > y->contended ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

/* A time as perf lock prints it: "%*.2f unit" in @len columns. */
static void lock__time(uint64_t ns, int len)
{
	static const struct {
		double		base;
		const char	*unit;
	} units[] = {
		{ 1e9 * 3600, "h " }, { 1e9 * 60, "m " }, { 1e9, "s " }, { 1e6, "ms" }, { 1e3, "us" },
	};
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns >= units[i].base) {
			printf("%*.2f %s ", len - 3, ns / units[i].base, units[i].unit);
			return;
		}
	}
	printf("%*" PRIu64 " %s ", len - 3, ns, "ns");
}

static void lock__print(struct lock_report *r, long max_entries, bool verbose)
{
	char buf[256];
	size_t i;
	uint32_t j;

	qsort(r->rows, r->nr, sizeof(*r->rows), lock__cmp);
	if (r->folded) {
		for (i = 0; i < r->nr; i++) {
			const struct lock_row *row = &r->rows[i];

			fputs(row->comm[0] && r->aggr == LOCK_AGGR_TASK ? row->comm : "lock", stdout);
			for (j = row->nr_frames; j-- > 0;) {
				const struct kp_sym *sym = kp_kernel__find(&r->kernel, row->frames[j],
									   NULL);

				printf(";%s", sym ? sym->name : "[unknown]");
			}
			printf(";[%s] %" PRIu64 "\n", lock__type(row->flags), row->total_ns);
		}
		return;
	}
	printf("%10s %12s %12s %12s ", "contended", "total wait", "max wait", "avg wait");
	if (r->aggr == LOCK_AGGR_TASK)
		printf("  %10s   %s\n\n", "pid", "comm");
	else if (r->aggr == LOCK_AGGR_ADDR)
		printf("%18s   %-15s   %s\n\n", "address", "type", "symbol");
	else
		printf("  %10s   %s\n\n", "type", "caller");
	for (i = 0; i < r->nr && (max_entries < 0 || (long)i < max_entries); i++) {
		const struct lock_row *row = &r->rows[i];

		printf("%10" PRIu64 " ", row->contended);
		lock__time(row->total_ns, 12);
		lock__time(row->max_ns, 12);
		lock__time(row->contended ? row->total_ns / row->contended : 0, 12);
		if (r->aggr == LOCK_AGGR_TASK) {
			printf("  %10u   %s\n", row->pid, row->comm);
		} else if (r->aggr == LOCK_AGGR_ADDR) {
			const struct kp_sym *sym = row->lock ?
				kp_kernel__find_data(&r->kernel, row->lock) : NULL;

			printf("  %#16" PRIx64 "   %-15s   %s\n", row->lock, lock__type(row->flags),
			       sym && row->lock < sym->end ? sym->name : "");
		} else {
			lock__symoff(r, row->caller, buf, sizeof(buf));
			printf("  %10s   %s\n", lock__type(row->flags), buf);
		}
		for (j = 0; verbose && j < row->nr_frames; j++) {
			lock__symoff(r, row->frames[j], buf, sizeof(buf));
			printf("\t\t\t%#" PRIx64 "  %s\n", row->frames[j], buf);
		}
	}
}

static void lock__exit(struct lock_report *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		free(r->rows[i].frames);
	free(r->rows);
	kp_hmap__exit(&r->index);
	kp_kernel__exit(&r->kernel);
}

/* The stopped session's lock counters, on stderr when a wait was lost. */
static void lock__report_losses(struct kp_nl *nl, const char *cmd)
{
	struct kp_status_info st;
	struct kp_err err;

	if (!kp_nl__status(nl, &st, &err) && st.has_stats && st.stats.has_lock)
		kp_hist__report_waits(st.stats.lock, "lock waits", cmd);
}

/* A positive count (-E, --max-stack) into @v. */
static int lock__count(const char *arg, const char *name, long *v, const char *cmd)
{
	char *end;

	errno = 0;
	*v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || *v <= 0 || *v > 1000000) {
		kp_error(cmd, "bad %s '%s': a positive number expected", name, arg);
		return -EINVAL;
	}
	return 0;
}

/* The options of the table, shared by 'contention' and 'report'. */
struct lock_print_opts {
	const char	*key, *entries, *max_stack, *kallsyms;
	bool		threads, addrs, verbose;
	long		max_entries;
};

#define LOCK_PRINT_OPTIONS(o, rep)							\
	OPT_STRING('k', "key", &(o)->key, "key",					\
		   "sort by: contended, wait_total (default), wait_max, wait_min, avg_wait"), \
	OPT_BOOLEAN('t', "threads", &(o)->threads, "one row per thread"),		\
	OPT_BOOLEAN('l', "lock-addr", &(o)->addrs, "one row per lock address"),	\
	OPT_STRING('E', "entries", &(o)->entries, "n", "print only the first <n> rows"), \
	OPT_STRING(0, "max-stack", &(o)->max_stack, "n",				\
		   "frames of a waiter's stack kept (default 8)"),			\
	OPT_BOOLEAN('v', "verbose", &(o)->verbose, "the waiters' stacks under each row"), \
	OPT_STRING(0, "kallsyms", &(o)->kallsyms, "file",				\
		   "kernel symbols (default /proc/kallsyms)"),				\
	OPT_BOOLEAN(0, "folded", &(rep)->folded,					\
		    "folded stacks weighted by wait time (ns), for flamegraph --colors lock")

/* Check the table's options into @rep; 0, or -EINVAL with a line said. */
static int lock__print_opts(struct lock_print_opts *o, struct lock_report *rep, const char *cmd)
{
	long depth;
	size_t i;

	for (i = 0; i < sizeof(lock_key_names) / sizeof(lock_key_names[0]); i++)
		if (!strcmp(o->key, lock_key_names[i]))
			break;
	if (i == sizeof(lock_key_names) / sizeof(lock_key_names[0])) {
		kp_error(cmd, "unknown sort key '%s' (contended, wait_total, wait_max, wait_min, avg_wait)",
			 o->key);
		return -EINVAL;
	}
	lock_sort_key = i;
	o->max_entries = -1;
	if (o->entries && lock__count(o->entries, "-E/--entries", &o->max_entries, cmd))
		return -EINVAL;
	if (o->max_stack) {
		if (lock__count(o->max_stack, "--max-stack", &depth, cmd))
			return -EINVAL;
		if (depth > KPROF_MAX_STACK_DEPTH - 16) {
			kp_error(cmd, "bad --max-stack '%s': at most %d", o->max_stack,
				 KPROF_MAX_STACK_DEPTH - 16);
			return -EINVAL;
		}
		rep->max_stack = depth;
	}
	if (o->threads && o->addrs) {
		kp_error(cmd, "options -t/--threads and -l/--lock-addr are mutually exclusive");
		return -EINVAL;
	}
	rep->aggr = o->threads ? LOCK_AGGR_TASK : o->addrs ? LOCK_AGGR_ADDR : LOCK_AGGR_CALLER;
	return 0;
}

static int lock_contention(int argc, const char **argv)
{
	const char *cmd = "lock contention";
	struct kp_session_opts opts = { 0 };
	struct lock_report rep = { .max_stack = 8 };
	struct lock_print_opts po = { .key = "wait_total", .kallsyms = "/proc/kallsyms" };
	bool all = false;
	const struct option options[] = {
		OPT_BOOLEAN('a', "all-cpus", &all, "every thread (the default without -p or a command; with a command, until it exits)"),
		OPT_CALLBACK('p', "pid", &opts, "pid[,pid]", "these existing processes only",
			     kp_session_opts__pid_cb),
		LOCK_PRINT_OPTIONS(&po, &rep),
		OPT_END()
	};
	struct kp_hist_run r = { .wl = KP_WORKLOAD_INIT };
	const char **command = NULL;
	unsigned long duration = 0;
	struct kp_event *ev;
	struct kp_err err;
	int nr_command = 0, ret = KP_EXIT_USAGE;

	argc = kp_hist_run__split_command(argc, argv, &command, &nr_command);
	argc = parse_options(argc, argv, options, lock_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (lock__print_opts(&po, &rep, cmd))
		return KP_EXIT_USAGE;
	if (kp_hist_run__args(argc, argv, all, opts.nr_pid_args, command, nr_command, &duration,
			      cmd))
		return KP_EXIT_USAGE;

	/* no pid and no command: kp_session__from_opts() goes system-wide */
	opts.all_cpus = all;
	if (kp_hist_run__session(&r, &opts, nr_command > 0, cmd, &err)) {
		kp_err__print(&err, cmd);
		goto out;
	}
	r.s->flags &= ~KPROF_SESSION_F_STREAM;
	r.s->flags |= KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_KERNEL_STACK;
	/* the lock functions' own frames come first: room for them */
	r.s->stack_depth = rep.max_stack + 16;
	r.s->nr_events = 1;
	ev = &r.s->events[0];
	memset(ev, 0, sizeof(*ev));
	ev->type = KPROF_TYPE_LOCK;
	ev->min_ns = 0;
	ev->max_ns = UINT64_MAX;
	snprintf(ev->name, sizeof(ev->name), "lock");

	ret = KP_EXIT_FAILURE;
	if (kp_hist_run__start(&r, nr_command, command, lock__sighandler, (1 << 16) | 6,
			       "lock contention", cmd, &err))
		goto out_err;
	rep.session_id = r.info.session_id;
	fprintf(stderr, "Tracing kernel lock contention of %s", kp_hist_run__whom(&r));
	kp_hist_run__until(duration);
	kp_hist_run__wait(&r, duration, &lock_signal);

	ret = kp_hist_run__stop(&r, &err);
	if (ret < 0)
		goto out_err;
	if ((rep.aggr == LOCK_AGGR_ADDR ? kp_kernel__load_data : kp_kernel__load)(&rep.kernel,
										     po.kallsyms)) {
		kp_err__set(&err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_err;
	}
	if (kp_nl__agg_dump(r.nl, lock__entry, &rep, &err))
		goto out_err;
	lock__report_losses(r.nl, cmd);
	lock__print(&rep, po.max_entries, po.verbose);
	goto out;

out_err:
	kp_err__print(&err, cmd);
	ret = KP_EXIT_FAILURE;
out:
	kp_hist_run__end(&r);
	lock__exit(&rep);
	free(r.s);
	return ret;
}

static const char lock_record_events[] = "lock:contention_begin,lock:contention_end";
static const char lockdep_record_events[] =
	"lock:lock_acquire,lock:lock_acquired,lock:lock_contended,lock:lock_release";

/* Has this kernel lockdep's lock:lock_acquire and lock_stat's lock:lock_contended? */
static bool lock__have_lockdep(void)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	struct kp_err err;

	if (kp_tracefs__events_dir(dir, sizeof(dir), &err))
		return false;
	snprintf(path, sizeof(path), "%s/lock/lock_acquire", dir);
	if (access(path, F_OK))
		return false;
	snprintf(path, sizeof(path), "%s/lock/lock_contended", dir);
	return !access(path, F_OK);
}

/*
 * 'kprofctl record -e lock:contention_begin,lock:contention_end -g' with the
 * options given; on a kernel with lockdep and lock_stat, lockdep's four
 * events instead, without stacks, as perf lock record takes them there:
 * every acquisition and release of every lock, the report by lock.
 */
static int lock_record(int argc, const char **argv)
{
	static const char * const pre[] = { "-e", lock_record_events, "-g", NULL };
	static const char * const pre_lockdep[] = { "-e", lockdep_record_events, NULL };
	char help[1024];

	snprintf(help, sizeof(help),
		 " Usage: kprofctl lock record [<record options>] [-- <command> [<args>]]\n\n"
		 "    'kprofctl record -e %s -g' with the options given: -a,\n"
		 "    -p, -o (default kprof.data), --buffer-size...; see 'kprofctl record\n"
		 "    --help'.  Each contention begin and end with the waiter's stack;\n"
		 "    'kprofctl lock report' reads it.  On a kernel with CONFIG_LOCKDEP and\n"
		 "    CONFIG_LOCK_STAT, as perf lock record: -e %s\n"
		 "    instead, without stacks (every acquisition and release: use -p or a\n"
		 "    command, not -a), for 'lock report -k acquired'.\n",
		 lock_record_events, lockdep_record_events);
	return cmd_record_with(argc, argv, lock__have_lockdep() ? pre_lockdep : pre, help,
			       "lock record");
}

/* A recorded wait that began and has not ended: by (thread, lock). */
struct lock_pending {
	uint32_t	tid;
	bool		open;
	uint64_t	lock;
	uint32_t	flags;
	uint64_t	time;
	const char	*comm;
	uint32_t	nr;
	uint64_t	frames[KPROF_MAX_STACK_DEPTH];
};

struct lock_replay {
	struct lock_report	*rep;
	struct kp_hmap		pending;	/* hash of (tid, lock) -> struct lock_pending */
	struct kp_err		*err;
};

/* The pending wait of (@tid, @lock), or NULL; *@h its key or where to put it. */
static struct lock_pending *lock__pending(struct lock_replay *p, uint32_t tid, uint64_t lock,
					  uint64_t *h)
{
	struct lock_pending *w;

	for (*h = kp_hash64(lock ^ ((uint64_t)tid << 48 | tid)) | 1;; *h += 2) {
		w = kp_hmap__get(&p->pending, *h);
		if (!w || (w->tid == tid && w->lock == lock))
			return w;
	}
}

static int lock__replay(const struct kp_schedev *ev, void *arg)
{
	struct lock_replay *p = arg;
	const struct kp_rec_sample *rec = ev->sample->rec;
	struct lock_pending *w;
	struct kp_agg_entry e;
	uint64_t h;

	w = lock__pending(p, rec->tid, ev->lock_addr, &h);
	if (ev->type == KP_SCHEDEV_LOCK_BEGIN) {
		/* a second begin of one wait (a mutex spins, then sleeps) */
		if (w && w->open)
			return 0;
		if (!w) {
			w = calloc(1, sizeof(*w));
			if (!w || kp_hmap__put(&p->pending, h, w)) {
				free(w);
				kp_err__set(p->err, ENOMEM, "%s", strerror(ENOMEM));
				return -ENOMEM;
			}
		}
		w->tid = rec->tid;
		w->lock = ev->lock_addr;
		w->open = true;
		w->flags = ev->lock_flags;
		w->time = ev->time;
		w->comm = ev->sample->comm;
		w->nr = rec->nr_kernel < KPROF_MAX_STACK_DEPTH ? rec->nr_kernel : KPROF_MAX_STACK_DEPTH;
		memcpy(w->frames, rec->ips, w->nr * sizeof(*w->frames));
		return 0;
	}
	/* an end whose begin came before the recording: left out */
	if (!w || !w->open)
		return 0;
	w->open = false;
	memset(&e, 0, sizeof(e));
	e.pid = w->tid;
	snprintf(e.comm, sizeof(e.comm), "%s", w->comm ? w->comm : "");
	e.count = 1;
	e.time_ns = ev->time >= w->time ? ev->time - w->time : 0;
	e.has_minmax = true;
	e.max_ns = e.min_ns = e.time_ns;
	e.has_lock = true;
	e.lock = w->lock;
	e.lock_flags = w->flags;
	e.nr_kernel = w->nr;
	e.kernel = w->frames;
	return lock__add(p->rep, &e, p->err) ? -ENOMEM : 0;
}

/*
 * The lockdep report (perf lock report): from lock:lock_acquire, _acquired,
 * _contended and _release (a kernel with CONFIG_LOCKDEP and
 * CONFIG_LOCK_STAT), per lock instance (its lockdep map) or per thread
 * (-t): acquisitions, contentions, and the wait from each contended to its
 * acquired.  The sequence of each (thread, lock) is followed as perf does;
 * an event out of sequence marks the lock broken (counted, said with -v)
 * and restarts its sequence.
 */
enum lockdep_state {
	LOCKDEP_NONE,		/* no sequence, or it ended (perf: uninitialized) */
	LOCKDEP_ACQUIRING,
	LOCKDEP_CONTENDED,
	LOCKDEP_ACQUIRED,
	LOCKDEP_READ_ACQUIRED,
};

#define LOCKDEP_TRYLOCK		1
#define LOCKDEP_READ		2

/* perf lock report's keys, in its column order */
enum lockdep_key {
	LOCKDEP_KEY_ACQUIRED,
	LOCKDEP_KEY_CONTENDED,
	LOCKDEP_KEY_AVG_WAIT,
	LOCKDEP_KEY_WAIT_TOTAL,
	LOCKDEP_KEY_WAIT_MAX,
	LOCKDEP_KEY_WAIT_MIN,
	LOCKDEP_NR_KEYS
};

static const char * const lockdep_key_names[LOCKDEP_NR_KEYS] = {
	"acquired", "contended", "avg_wait", "wait_total", "wait_max", "wait_min",
};

static const char * const lockdep_key_headers[LOCKDEP_NR_KEYS] = {
	"acquired", "contended", "avg wait", "total wait", "max wait", "min wait",
};

struct lockdep_stat {
	uint64_t	key;		/* the lockdep map, or -t: the thread */
	char		name[48];
	uint64_t	acquired, contended, total_ns, max_ns, min_ns;
	bool		broken;
};

struct lockdep_seq {
	uint32_t		tid;
	uint64_t		addr;
	enum lockdep_state	state;
	uint32_t		read_count;
	uint64_t		time;
};

struct lockdep_replay {
	struct kp_hmap		stats;		/* key + 1 hash -> struct lockdep_stat */
	struct kp_hmap		seqs;		/* (tid, addr) hash -> struct lockdep_seq */
	bool			threads;
	uint64_t		broken[4];	/* locks broken by: acquire, acquired, contended, release */
	enum lockdep_key	sort[LOCKDEP_NR_KEYS];
	unsigned int		nr_sort;
};

static uint64_t lockdep__value(const struct lockdep_stat *st, enum lockdep_key k)
{
	switch (k) {
	case LOCKDEP_KEY_ACQUIRED:	return st->acquired;
	case LOCKDEP_KEY_CONTENDED:	return st->contended;
	case LOCKDEP_KEY_AVG_WAIT:	return st->contended ? st->total_ns / st->contended : 0;
	case LOCKDEP_KEY_WAIT_TOTAL:	return st->total_ns;
	case LOCKDEP_KEY_WAIT_MAX:	return st->max_ns;
	default:			return st->min_ns == UINT64_MAX ? 0 : st->min_ns;
	}
}

static const struct lockdep_replay *lockdep_sorting;

static int lockdep__cmp(const void *a, const void *b)
{
	const struct lockdep_stat *x = *(const struct lockdep_stat * const *)a;
	const struct lockdep_stat *y = *(const struct lockdep_stat * const *)b;
	unsigned int i;
	int c;

	for (i = 0; i < lockdep_sorting->nr_sort; i++) {
		uint64_t vx = lockdep__value(x, lockdep_sorting->sort[i]);
		uint64_t vy = lockdep__value(y, lockdep_sorting->sort[i]);

		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	c = strcmp(x->name, y->name);
	return c ? c : (x->key > y->key) - (x->key < y->key);
}

/* The hash-map slot of a (@tid, @addr) sequence, or of a stat's @key: like lock__pending(). */
static struct lockdep_seq *lockdep__seq(struct lockdep_replay *p, uint32_t tid, uint64_t addr)
{
	struct lockdep_seq *q;
	uint64_t h;

	for (h = kp_hash64(addr ^ ((uint64_t)tid << 48 | tid)) | 1;; h += 2) {
		q = kp_hmap__get(&p->seqs, h);
		if (q && q->tid == tid && q->addr == addr)
			return q;
		if (!q)
			break;
	}
	q = calloc(1, sizeof(*q));
	if (!q || kp_hmap__put(&p->seqs, h, q)) {
		free(q);
		return NULL;
	}
	q->tid = tid;
	q->addr = addr;
	return q;
}

static struct lockdep_stat *lockdep__stat(struct lockdep_replay *p, uint64_t key,
					  const char *name)
{
	struct lockdep_stat *st = kp_hmap__get(&p->stats, key + 1);

	if (st)
		return st;
	st = calloc(1, sizeof(*st));
	if (!st || kp_hmap__put(&p->stats, key + 1, st)) {
		free(st);
		return NULL;
	}
	st->key = key;
	st->min_ns = UINT64_MAX;
	snprintf(st->name, sizeof(st->name), "%s", name);
	return st;
}

/* An event out of its (thread, lock) sequence: the lock is broken, the sequence restarts. */
static void lockdep__broken(struct lockdep_replay *p, struct lockdep_stat *st,
			    struct lockdep_seq *q, unsigned int by)
{
	if (!st->broken) {
		st->broken = true;
		p->broken[by]++;
	}
	q->state = LOCKDEP_NONE;
}

static int lockdep__replay(const struct kp_schedev *ev, void *arg)
{
	struct lockdep_replay *p = arg;
	const struct kp_rec_sample *rec = ev->sample->rec;
	struct lockdep_stat *st;
	struct lockdep_seq *q;
	uint64_t wait;

	st = p->threads ? lockdep__stat(p, rec->tid, ev->sample->comm ? ev->sample->comm : "") :
		lockdep__stat(p, ev->lock_addr, ev->lock_name);
	q = st ? lockdep__seq(p, rec->tid, ev->lock_addr) : NULL;
	if (!q)
		return -ENOMEM;
	/* a thread is named by its latest comm, as perf names it (after exec) */
	if (p->threads && ev->sample->comm && strcmp(st->name, ev->sample->comm))
		snprintf(st->name, sizeof(st->name), "%s", ev->sample->comm);
	switch (ev->type) {
	case KP_SCHEDEV_LOCKDEP_ACQUIRE:
		if (q->state == LOCKDEP_NONE) {
			if (!ev->lock_flags) {
				q->state = LOCKDEP_ACQUIRING;
			} else {
				/* a trylock or a read lock is acquired at once */
				q->state = LOCKDEP_READ_ACQUIRED;
				q->read_count = 1;
				st->acquired++;
			}
		} else if (q->state == LOCKDEP_READ_ACQUIRED && ev->lock_flags & LOCKDEP_READ) {
			q->read_count++;
			st->acquired++;
			return 0;
		} else {
			lockdep__broken(p, st, q, 0);
			return 0;
		}
		break;
	case KP_SCHEDEV_LOCKDEP_ACQUIRED:
		if (q->state == LOCKDEP_NONE)
			return 0;	/* its acquire came before the recording */
		if (q->state == LOCKDEP_CONTENDED) {
			wait = ev->time >= q->time ? ev->time - q->time : 0;
			st->total_ns += wait;
			if (wait < st->min_ns)
				st->min_ns = wait;
			if (wait > st->max_ns)
				st->max_ns = wait;
		} else if (q->state != LOCKDEP_ACQUIRING) {
			lockdep__broken(p, st, q, 1);
			return 0;
		}
		q->state = LOCKDEP_ACQUIRED;
		st->acquired++;
		break;
	case KP_SCHEDEV_LOCKDEP_CONTENDED:
		if (q->state == LOCKDEP_NONE)
			return 0;
		if (q->state != LOCKDEP_ACQUIRING) {
			lockdep__broken(p, st, q, 2);
			return 0;
		}
		q->state = LOCKDEP_CONTENDED;
		st->contended++;
		break;
	case KP_SCHEDEV_LOCKDEP_RELEASE:
		if (q->state == LOCKDEP_NONE)
			return 0;
		if (q->state == LOCKDEP_READ_ACQUIRED && --q->read_count)
			return 0;
		if (q->state != LOCKDEP_ACQUIRED && q->state != LOCKDEP_READ_ACQUIRED) {
			lockdep__broken(p, st, q, 3);
			return 0;
		}
		q->state = LOCKDEP_NONE;
		return 0;
	default:
		return 0;
	}
	q->time = ev->time;
	return 0;
}

/* perf lock report's table: "%20s " names cut to 16 characters and "...", then the keys. */
static void lockdep__print(struct lockdep_replay *p, long max_entries, bool verbose)
{
	struct lockdep_stat **v = NULL;
	size_t n = 0, i, pos = 0, bad = 0;
	long printed = 0;
	uint64_t key;
	void *val;
	int k;

	v = calloc(p->stats.used ? p->stats.used : 1, sizeof(*v));
	if (!v) {
		kp_error("lock report", "%s", strerror(ENOMEM));
		return;
	}
	while (kp_hmap__next(&p->stats, &pos, &key, &val)) {
		v[n] = val;
		bad += v[n]->broken;
		n++;
	}
	lockdep_sorting = p;
	qsort(v, n, sizeof(*v), lockdep__cmp);
	printf("%20s ", "Name");
	for (k = 0; k < LOCKDEP_NR_KEYS; k++)
		printf("%*s ", k < LOCKDEP_KEY_AVG_WAIT ? 10 : 12, lockdep_key_headers[k]);
	printf("\n\n");
	for (i = 0; i < n && (max_entries < 0 || printed < max_entries); i++) {
		if (!v[i]->acquired)
			continue;
		printed++;
		if (strlen(v[i]->name) < 20)
			printf("%20s ", v[i]->name);
		else
			printf(" %.16s... ", v[i]->name);
		printf("%10" PRIu64 " %10" PRIu64 " ", v[i]->acquired, v[i]->contended);
		for (k = LOCKDEP_KEY_AVG_WAIT; k < LOCKDEP_NR_KEYS; k++)
			lock__time(lockdep__value(v[i], k), 12);
		printf("\n");
	}
	/* perf's debug lines: the locks whose sequence broke, by the event that broke it */
	if (verbose || bad) {
		static const char * const by[] = { "acquire", "acquired", "contended", "release" };

		printf("\n=== output for debug===\n\n");
		printf("bad: %zu, total: %zu\n", bad, n);
		printf("bad rate: %.2f %%\n", n ? 100.0 * bad / n : 0.0);
		printf("histogram of events caused bad sequence\n");
		for (k = 0; k < 4; k++)
			printf(" %10s: %" PRIu64 "\n", by[k], p->broken[k]);
	}
	free(v);
}

static void lockdep__exit(struct lockdep_replay *p)
{
	size_t pos = 0;
	uint64_t key;
	void *val;

	while (kp_hmap__next(&p->stats, &pos, &key, &val))
		free(val);
	pos = 0;
	while (kp_hmap__next(&p->seqs, &pos, &key, &val))
		free(val);
	kp_hmap__exit(&p->stats);
	kp_hmap__exit(&p->seqs);
}

/* --sort KEY[,KEY...] or -k KEY of the lockdep report into @p; 0 or -EINVAL said. */
static int lockdep__sort_keys(struct lockdep_replay *p, const char *list, const char *cmd)
{
	char buf[256], *tok, *save = NULL;
	unsigned int i;

	if (strlen(list) >= sizeof(buf)) {
		kp_error(cmd, "bad sort keys '%.32s...': too long", list);
		return -EINVAL;
	}
	strcpy(buf, list);
	p->nr_sort = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < LOCKDEP_NR_KEYS; i++)
			if (!strcmp(tok, lockdep_key_names[i]))
				break;
		if (i == LOCKDEP_NR_KEYS) {
			kp_error(cmd, "unknown sort key '%s' (acquired, contended, avg_wait, wait_total, wait_max, wait_min)",
				 tok);
			return -EINVAL;
		}
		if (p->nr_sort == LOCKDEP_NR_KEYS) {
			kp_error(cmd, "bad sort keys '%s': at most %d", list, LOCKDEP_NR_KEYS);
			return -EINVAL;
		}
		p->sort[p->nr_sort++] = i;
	}
	if (!p->nr_sort) {
		kp_error(cmd, "bad sort keys '%s': none given", list);
		return -EINVAL;
	}
	return 0;
}

#define LOCKDEP_EVENTS	(KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_ACQUIRE) |		\
			 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_ACQUIRED) |		\
			 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_CONTENDED) |	\
			 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_RELEASE))

/* The lockdep report of @d (it has lock:lock_acquire); an exit code. */
static int lockdep_report(struct kp_decoder *d, const char *keys, bool threads,
			  long max_entries, bool verbose, const char *cmd)
{
	struct lockdep_replay p = { .threads = threads };
	struct kp_schedev_stats stats;
	int ret = KP_EXIT_FAILURE;

	if (lockdep__sort_keys(&p, keys, cmd))
		return KP_EXIT_USAGE;
	/* lock_acquired and lock_contended need CONFIG_LOCK_STAT as well */
	ret = kp_schedev__for_each(d, cmd, KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_ACQUIRE) |
				   KP_SCHEDEV_BIT(KP_SCHEDEV_LOCKDEP_RELEASE), LOCKDEP_EVENTS,
				   lockdep__replay, &p, &stats);
	if (ret) {
		if (ret == -ENOMEM)
			kp_error(cmd, "%s", strerror(ENOMEM));
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	if (!kp_schedev__recorded(d, KP_SCHEDEV_LOCKDEP_CONTENDED))
		kp_error(cmd, "note: no lock:lock_contended events (a kernel without CONFIG_LOCK_STAT): no contentions or waits");
	if (stats.bad)
		kp_error(cmd, "%" PRIu64 " lock records were malformed and skipped", stats.bad);
	lockdep__print(&p, max_entries, verbose);
	ret = KP_EXIT_OK;
out:
	lockdep__exit(&p);
	return ret;
}

static const char * const lock_report_usage[] = {
	"kprofctl lock report [-i <file>] [<options>]",
	"",
	"The lock contention of a recording ('kprofctl lock record'), as 'lock",
	"contention' prints it: each recorded begin matched with its end by",
	"thread and lock.  A recording with lockdep's events (lock:lock_acquire,",
	"_acquired, _contended, _release: a kernel with CONFIG_LOCKDEP and",
	"CONFIG_LOCK_STAT) gets perf lock report's table instead: acquired,",
	"contended and waits per lock, sorted by -k/--sort (default acquired).",
	NULL
};

static int lock_report(int argc, const char **argv)
{
	const char *cmd = "lock report", *input = "kprof.data";
	struct lock_report rep = { .max_stack = 8 };
	struct lock_print_opts po = { .kallsyms = "/proc/kallsyms" };
	const char *sort = NULL;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "the recording (default kprof.data)"),
		LOCK_PRINT_OPTIONS(&po, &rep),
		OPT_STRING(0, "sort", &sort, "key[,key...]",
			   "lockdep recordings: sort by these keys in turn (acquired, contended, avg_wait, wait_total, wait_max, wait_min)"),
		OPT_END()
	};
	struct kp_decode_opts opts = { 0 };
	struct lock_replay p = { .rep = &rep };
	struct kp_schedev_stats stats;
	struct kp_decoder d;
	struct kp_err err;
	size_t pos = 0;
	uint64_t key;
	void *val;
	int ret;

	argc = parse_options(argc, argv, options, lock_report_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (sort && po.key) {
		kp_error(cmd, "options -k/--key and --sort are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	opts.time_order = true;
	opts.machine.cmd = cmd;
	opts.machine.kallsyms = po.kallsyms;
	if (kp_decoder__open(&d, input, &opts, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	if (kp_schedev__recorded(&d, KP_SCHEDEV_LOCKDEP_ACQUIRE)) {
		const char *keys = sort ? sort : po.key ? po.key : "acquired";

		/* the table's other options (-E, -t) checked as for contention */
		po.key = "wait_total";
		ret = lock__print_opts(&po, &rep, cmd) ? KP_EXIT_USAGE :
			lockdep_report(&d, keys, po.threads, po.max_entries, po.verbose, cmd);
		goto out;
	}
	if (sort || (po.key && !strcmp(po.key, "acquired"))) {
		kp_error(cmd, "%s has no lockdep events: sorting by '%s' needs lock:lock_acquire, recorded by 'kprofctl lock record' on a kernel with CONFIG_LOCKDEP and CONFIG_LOCK_STAT",
			 input, sort ? sort : po.key);
		ret = KP_EXIT_USAGE;
		goto out;
	}
	po.key = po.key ? po.key : "wait_total";
	if (lock__print_opts(&po, &rep, cmd)) {
		ret = KP_EXIT_USAGE;
		goto out;
	}
	ret = KP_EXIT_FAILURE;
	if ((rep.aggr == LOCK_AGGR_ADDR ? kp_kernel__load_data : kp_kernel__load)(&rep.kernel,
										     po.kallsyms)) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		goto out;
	}
	p.err = &err;
	if (kp_schedev__for_each(&d, cmd,
				 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCK_BEGIN) |
				 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCK_END),
				 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCK_BEGIN) |
				 KP_SCHEDEV_BIT(KP_SCHEDEV_LOCK_END),
				 lock__replay, &p, &stats) == -ENOMEM) {
		kp_error(cmd, "%s", strerror(ENOMEM));
		goto out;
	}
	if (stats.events == 0 && !kp_schedev__recorded(&d, KP_SCHEDEV_LOCK_BEGIN))
		goto out;	/* said: the recording has no lock events */
	if (stats.bad)
		kp_error(cmd, "%" PRIu64 " lock records were malformed and skipped", stats.bad);
	lock__print(&rep, po.max_entries, po.verbose);
	ret = KP_EXIT_OK;
out:
	while (kp_hmap__next(&p.pending, &pos, &key, &val))
		free(val);
	kp_hmap__exit(&p.pending);
	kp_decoder__close(&d);
	lock__exit(&rep);
	return ret;
}

static const char * const lock_cmd_usage[] = {
	"kprofctl lock {contention|record|report} [<options>]",
	"",
	"Kernel lock analysis.  Subcommands:",
	"   contention   lock contention by caller, thread or lock, counted in the kernel",
	"   record       record each contention with its stack ('record -e lock:...')",
	"   report       the contention of such a recording",
	NULL
};

/* The subcommands, for shell completion (kprofctl lock --list-cmds). */
static const char * const lock_cmds[] = { "contention", "record", "report", NULL };

int cmd_lock(int argc, const char **argv)
{
	static const struct option none[] = { OPT_END() };
	int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage_with_options(argc < 2 ? stderr : stdout, lock_cmd_usage, none);
		return argc < 2 ? KP_EXIT_USAGE : KP_EXIT_OK;
	}
	/* Hidden, as kprofctl --list-cmds and CMD --list-opts are. */
	if (!strcmp(argv[1], "--list-cmds")) {
		for (i = 0; lock_cmds[i]; i++)
			puts(lock_cmds[i]);
		return KP_EXIT_OK;
	}
	if (!strcmp(argv[1], "--list-opts")) {
		list_options(stdout, none);
		return KP_EXIT_OK;
	}
	if (!strcmp(argv[1], "contention") || !strcmp(argv[1], "con"))
		return lock_contention(argc - 1, argv + 1);
	if (!strcmp(argv[1], "record"))
		return lock_record(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return lock_report(argc - 1, argv + 1);
	kp_error(argv[0], "unknown lock command '%s' (contention, record, report)", argv[1]);
	return KP_EXIT_USAGE;
}
