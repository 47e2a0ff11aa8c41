// SPDX-License-Identifier: GPL-2.0
/*
 * Session options and their validation; see session.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "session.h"
#include "sys.h"
#include "util.h"

/* Keep one more argument of a repeatable option in @args (room for @max). */
static void opts_push(struct kp_session_opts *o, const char **args, unsigned int *nr,
		      unsigned int max, const char *arg)
{
	if (*nr >= max)
		o->too_many_args = true;
	else
		args[(*nr)++] = arg;
}

int kp_session_opts__event_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_session_opts *o = opt->value;

	if (!unset)
		opts_push(o, o->events, &o->nr_event_args, KP_MAX_EVENT_ARGS, arg);
	return 0;
}

/* --filter: for the tracepoints of the preceding -e (perf's rule). */
int kp_session_opts__filter_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_session_opts *o = opt->value;

	if (unset)
		return 0;
	if (!o->nr_event_args)
		o->orphan_filter = arg;
	else if (!o->too_many_args)
		o->filters[o->nr_event_args - 1] = arg;
	return 0;
}

int kp_session_opts__pid_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_session_opts *o = opt->value;

	if (!unset)
		opts_push(o, o->pids, &o->nr_pid_args, KP_MAX_PID_ARGS, arg);
	return 0;
}

int kp_session_opts__tid_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_session_opts *o = opt->value;

	if (!unset)
		opts_push(o, o->tids, &o->nr_tid_args, KP_MAX_PID_ARGS, arg);
	return 0;
}

char *kp_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGTPE";
	int i = -1;

	while (bytes && !(bytes & 1023) && i < 5) {
		bytes >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", bytes, units[i]);
	return buf;
}

int kp_parse_buffer_size(const char *s, uint32_t *size, struct kp_err *err)
{
	char min[16], max[16];
	uint64_t v;
	int ret;

	ret = kp_parse_size(s, &v);
	if (ret == -EINVAL)
		goto invalid;
	if (ret)
		v = UINT64_MAX;

	kp_fmt_size(min, sizeof(min), KPROF_MIN_BUFFER_SIZE);
	kp_fmt_size(max, sizeof(max), KPROF_MAX_BUFFER_SIZE);
	if (v < KPROF_MIN_BUFFER_SIZE) {
		kp_err__set(err, ERANGE, "buffer size '%s' is below the minimum of %s", s, min);
		return -ERANGE;
	}
	if (v > KPROF_MAX_BUFFER_SIZE) {
		kp_err__set(err, ERANGE, "buffer size '%s' is above the maximum of %s", s, max);
		return -ERANGE;
	}
	if (v & (v - 1)) {
		kp_err__set(err, EINVAL, "buffer size '%s' is not a power of two", s);
		return -EINVAL;
	}
	*size = v;
	return 0;

invalid:
	kp_err__set(err, EINVAL, "invalid buffer size '%s' (e.g. 512K, 4M)", s);
	return -EINVAL;
}

/* A number with an optional K or M suffix (powers of 1024). */
static int parse_count_km(const char *s, uint64_t *v)
{
	unsigned int shift = 0;
	size_t len = strlen(s);
	char num[32];

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len + 1);
	if (strchr("kK", s[len - 1]))
		shift = 10;
	else if (strchr("mM", s[len - 1]))
		shift = 20;
	if (shift)
		num[len - 1] = '\0';
	if (kp_parse_u64(num, v))
		return -EINVAL;
	*v = *v > (UINT64_MAX >> shift) ? UINT64_MAX : *v << shift;
	return 0;
}

int kp_parse_agg_entries(const char *s, uint32_t *entries, struct kp_err *err)
{
	char max[16];
	uint64_t v;

	if (parse_count_km(s, &v)) {
		kp_err__set(err, EINVAL, "invalid aggregation entries '%s' (e.g. 16384, 64K)", s);
		return -EINVAL;
	}
	if (v < KPROF_AGG_MIN_ENTRIES) {
		kp_err__set(err, ERANGE, "aggregation entries '%s' is below the minimum of %u", s,
			    KPROF_AGG_MIN_ENTRIES);
		return -ERANGE;
	}
	if (v > KPROF_AGG_MAX_ENTRIES) {
		kp_err__set(err, ERANGE, "aggregation entries '%s' is above the maximum of %s", s,
			    kp_fmt_size(max, sizeof(max), KPROF_AGG_MAX_ENTRIES));
		return -ERANGE;
	}
	if (v & (v - 1)) {
		kp_err__set(err, EINVAL, "aggregation entries '%s' is not a power of two", s);
		return -EINVAL;
	}
	*entries = v;
	return 0;
}

const char *kp_session_mode__name(uint32_t flags)
{
	switch (flags & (KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE)) {
	case KPROF_SESSION_F_AGGREGATE:
		return "aggregate";
	case KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE:
		return "both";
	}
	return "stream";
}

/* --mode and --agg-entries into s->flags and s->agg_entries. */
static int parse_mode(struct kp_session *s, const struct kp_session_opts *o, struct kp_err *err)
{
	uint32_t mode = 0;
	int ret;

	if (!o->mode) {
		if (o->aggregate_default && !o->output)
			mode = KPROF_SESSION_F_AGGREGATE;
	} else if (!strcmp(o->mode, "aggregate")) {
		mode = KPROF_SESSION_F_AGGREGATE;
	} else if (!strcmp(o->mode, "both")) {
		mode = KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE;
	} else if (strcmp(o->mode, "stream")) {
		kp_err__set(err, EINVAL, "invalid mode '%s': use stream, aggregate or both", o->mode);
		return -EINVAL;
	}
	if (mode == KPROF_SESSION_F_AGGREGATE) {
		if (!o->aggregate_default) {
			kp_err__set(err, EINVAL,
				    "mode 'aggregate' writes no stream: use --mode both, or 'kprofctl start'");
			return -EINVAL;
		}
		if (o->output) {
			kp_err__set(err, EINVAL,
				    "-o/--output '%s' needs a stream: use --mode both, or save the aggregate profile with 'kprofctl stop -o'",
				    o->output);
			return -EINVAL;
		}
		if (o->buffer_size || o->mmap_pages) {
			kp_err__set(err, EINVAL,
				    "%s '%s' sizes the stream: mode 'aggregate' has none (use --mode both)",
				    o->buffer_size ? "--buffer-size" : "-m/--mmap-pages",
				    o->buffer_size ? o->buffer_size : o->mmap_pages);
			return -EINVAL;
		}
	}
	if (o->agg_entries && !(mode & KPROF_SESSION_F_AGGREGATE)) {
		kp_err__set(err, EINVAL,
			    "--agg-entries '%s' needs an aggregating session: --mode aggregate or both",
			    o->agg_entries);
		return -EINVAL;
	}
	s->flags |= mode;
	if (!(mode & KPROF_SESSION_F_AGGREGATE))
		return 0;
	s->agg_entries = KPROF_AGG_DEFAULT_ENTRIES;
	if (o->agg_entries) {
		ret = kp_parse_agg_entries(o->agg_entries, &s->agg_entries, err);
		if (ret)
			return ret;
	}
	return 0;
}

void kp_session__own(struct kp_session *s, uint32_t module_abi)
{
	if (KPROF_ABI_VERSION_MINOR(module_abi) >= 1)
		s->flags |= KPROF_SESSION_F_OWNED;
}

bool kp_session__streams(const struct kp_session *s)
{
	/* neither mode flag: the module's default, a stream */
	return (s->flags & KPROF_SESSION_F_STREAM) || !(s->flags & KPROF_SESSION_F_AGGREGATE);
}

void kp_session__fit_abi(struct kp_session *s, uint32_t module_abi)
{
	if (KPROF_ABI_VERSION_MINOR(module_abi) < 16 && s->user_stack) {
		kp_pr_debug("kprof.ko ABI %u.%u copies no user stack (1.16): no leaf fix-up",
			    KPROF_ABI_VERSION_MAJOR(module_abi), KPROF_ABI_VERSION_MINOR(module_abi));
		s->user_stack = 0;
	}
}

int kp_session__check_abi(const struct kp_session *s, uint32_t module_abi,
			  struct kp_err *err)
{
	if ((s->flags & KPROF_SESSION_F_INTERVALS) && KPROF_ABI_VERSION_MINOR(module_abi) < 15) {
		kp_err__set(err, EOPNOTSUPP,
			    "--intervals: kprof.ko has no intervals (ABI %u.%u, --intervals needs 1.15)",
			    KPROF_ABI_VERSION_MAJOR(module_abi), KPROF_ABI_VERSION_MINOR(module_abi));
		return -EOPNOTSUPP;
	}
	if ((s->flags & KPROF_SESSION_F_THREADS) && KPROF_ABI_VERSION_MINOR(module_abi) < 11) {
		kp_err__set(err, EOPNOTSUPP,
			    "-t/--tid needs kprof.ko ABI 1.11; the loaded module has %u.%u (load the new one)",
			    KPROF_ABI_VERSION_MAJOR(module_abi), KPROF_ABI_VERSION_MINOR(module_abi));
		return -EOPNOTSUPP;
	}
	return 0;
}

char *kp_session_flags__format(uint32_t flags, char *buf, size_t len)
{
	static const char * const names[] = {
		"kernel-stack", "user-stack", "inherit", "system-wide", "stream", "aggregate",
		"owned", "threads", "intervals",
	};
	size_t pos = 0, i;
	int n;

	/* every flag this ABI knows has its name */
	_Static_assert(KPROF_SESSION_F_ALL == (1U << KP_ARRAY_SIZE(names)) - 1,
		       "a KPROF_SESSION_F_* flag without a name");

	buf[0] = '\0';
	if (!flags) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (i = 0; i < KP_ARRAY_SIZE(names) && pos < len; i++) {
		if (!(flags & (1U << i)))
			continue;
		n = snprintf(buf + pos, len - pos, "%s%s", pos ? "|" : "", names[i]);
		if (n > 0)
			pos += n;
	}
	flags &= ~((1U << KP_ARRAY_SIZE(names)) - 1);
	if (flags && pos < len)
		snprintf(buf + pos, len - pos, "%s0x%x", pos ? "|" : "", flags);
	return buf;
}

/*
 * perf's -m/--mmap-pages: a number of pages (a power of two), or a size
 * with a unit; the per-CPU buffer is that many bytes (the data part of
 * perf's mapping, without its header page).
 */
static int parse_mmap_pages(struct kp_session *s, const char *arg, struct kp_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	char bytes[32];
	uint64_t pages;

	if (arg[0] && !arg[strspn(arg, "0123456789")]) {
		if (kp_parse_u64(arg, &pages) || !pages || (pages & (pages - 1)) ||
		    pages > KPROF_MAX_BUFFER_SIZE / (uint64_t)page) {
			kp_err__set(err, EINVAL,
				    "-m/--mmap-pages '%s': a power of two of pages up to %" PRIu64 ", or a size such as 4M",
				    arg, (uint64_t)KPROF_MAX_BUFFER_SIZE / (uint64_t)page);
			return -EINVAL;
		}
		snprintf(bytes, sizeof(bytes), "%" PRIu64, pages * (uint64_t)page);
		return kp_parse_buffer_size(bytes, &s->buffer_size, err);
	}
	return kp_parse_buffer_size(arg, &s->buffer_size, err);
}

static int parse_freq(struct kp_session *s, const char *arg, struct kp_err *err)
{
	unsigned int freq, max;
	int ret;

	/* perf's -F max: the kernel's limit, kernel.perf_event_max_sample_rate */
	if (!strcmp(arg, "max")) {
		if (kp_sys__max_sample_rate(&max) || !max) {
			kp_err__set(err, EINVAL,
				    "-F max: cannot read kernel.perf_event_max_sample_rate");
			return -EINVAL;
		}
		s->freq = max;
		return 0;
	}
	ret = kp_parse_uint(arg, &freq);
	if (ret == -ERANGE) {
		kp_err__set(err, ERANGE, "frequency '%s' is out of range", arg);
		return -ERANGE;
	}
	if (ret) {
		kp_err__set(err, EINVAL, "invalid frequency '%s'", arg);
		return -EINVAL;
	}
	if (!freq) {
		kp_err__set(err, EINVAL, "frequency 0 is invalid: sample at least once per second");
		return -EINVAL;
	}
	if (!kp_sys__max_sample_rate(&max) && freq > max) {
		kp_err__set(err, ERANGE,
			    "frequency %u is above the maximum sample rate %u (kernel.perf_event_max_sample_rate)",
			    freq, max);
		return -ERANGE;
	}
	s->freq = freq;
	return 0;
}

static int parse_count(struct kp_session *s, const char *arg, struct kp_err *err)
{
	uint64_t period;
	int ret;

	ret = kp_parse_u64(arg, &period);
	if (ret == -EINVAL) {
		kp_err__set(err, EINVAL, "invalid period '%s'", arg);
		return -EINVAL;
	}
	if (ret || !period || period > KPROF_MAX_PERIOD) {
		kp_err__set(err, ERANGE, "period '%s' is out of range 1..%llu", arg,
			    (unsigned long long)KPROF_MAX_PERIOD);
		return -ERANGE;
	}
	s->period = period;
	return 0;
}

/* -p's processes or -t's threads (@threads) in @arg, a comma list, into @s. */
static int add_pids(struct kp_session *s, const char *arg, bool threads, struct kp_err *err)
{
	const char *p = arg, *comma;
	char item[32];
	unsigned int pid;
	uint32_t i;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, p, len);
		item[len] = '\0';
		if (kp_parse_uint(item, &pid) || !pid || pid > INT32_MAX) {
			kp_err__set(err, EINVAL, "invalid %s '%s'", threads ? "TID" : "PID", item);
			return -EINVAL;
		}
		if (!kp_sys__pid_exists(pid)) {
			kp_err__set(err, ESRCH, "%s %u does not exist", threads ? "thread" : "process",
				    pid);
			return -ESRCH;
		}
		for (i = 0; i < s->nr_pids && s->pids[i] != pid; i++)
			;
		if (i == s->nr_pids) {
			if (s->nr_pids >= KPROF_MAX_PIDS) {
				kp_err__set(err, E2BIG, "too many PIDs: at most %d", KPROF_MAX_PIDS);
				return -E2BIG;
			}
			s->pids[s->nr_pids++] = pid;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int parse_cpus(struct kp_session *s, const char *arg, struct kp_err *err)
{
	char possible[256] = "";
	struct kp_cpumap map;
	unsigned int nr = KP_CPUMAP_MAX_CPUS, bad = 0;
	int ret;

	if (kp_sys__possible_cpus(&nr, possible, sizeof(possible)))
		nr = KP_CPUMAP_MAX_CPUS;
	ret = kp_cpumap__parse(&map, arg, nr, &bad);
	if (ret == -ERANGE) {
		if (possible[0])
			kp_err__set(err, ERANGE, "CPU %u is out of range (possible CPUs: %s)",
				    bad, possible);
		else
			kp_err__set(err, ERANGE, "CPU %u is out of range", bad);
		return -ERANGE;
	}
	if (ret) {
		kp_err__set(err, EINVAL, "invalid CPU list '%s' (e.g. 0,2-3)", arg);
		return -EINVAL;
	}
	s->cpus_bytes = kp_cpumap__bytes(map.max_cpu + 1);
	memcpy(s->cpus, map.bits, s->cpus_bytes);
	return 0;
}

static int parse_depth(struct kp_session *s, const char *arg, struct kp_err *err)
{
	unsigned int depth;

	if (kp_parse_uint(arg, &depth)) {
		kp_err__set(err, EINVAL, "invalid stack depth '%s'", arg);
		return -EINVAL;
	}
	if (!depth || depth > KPROF_MAX_STACK_DEPTH) {
		kp_err__set(err, ERANGE, "stack depth %u is out of range 1..%d", depth,
			    KPROF_MAX_STACK_DEPTH);
		return -ERANGE;
	}
	s->stack_depth = depth;
	return 0;
}

bool kp_session__has_offcpu(const struct kp_session *s)
{
	uint32_t i;

	for (i = 0; i < s->nr_events; i++)
		if (s->events[i].type == KPROF_TYPE_OFFCPU)
			return true;
	return false;
}

/*
 * --off-cpu: every switch-out's time off the CPU, by stack, as a last
 * event, beside samples that weigh time too (cpu-clock, task-clock): so
 * that both halves of where the wall-clock time went are in one unit.
 */
static int add_offcpu(struct kp_session *s, const struct kp_session_opts *o, struct kp_err *err)
{
	struct kp_event *ev;
	uint32_t i;

	if (o->cpus) {
		kp_err__set(err, EINVAL,
			    "--off-cpu follows threads across CPUs: use -a, -p or a command, not -C %s",
			    o->cpus);
		return -EINVAL;
	}
	for (i = 0; i < s->nr_events; i++) {
		const struct kp_event *e = &s->events[i];

		if (e->type != PERF_TYPE_SOFTWARE || (e->config != PERF_COUNT_SW_CPU_CLOCK &&
						      e->config != PERF_COUNT_SW_TASK_CLOCK)) {
			kp_err__set(err, EINVAL,
				    "--off-cpu weighs samples by time: event '%s' is not cpu-clock or task-clock",
				    e->name);
			return -EINVAL;
		}
	}
	if (s->nr_events >= KPROF_MAX_EVENTS) {
		kp_err__set(err, E2BIG, "--off-cpu needs an event slot: at most %d events",
			    KPROF_MAX_EVENTS - 1);
		return -E2BIG;
	}
	ev = &s->events[s->nr_events++];
	memset(ev, 0, sizeof(*ev));
	ev->type = KPROF_TYPE_OFFCPU;
	ev->config = KPROF_OFFCPU_F_ALL;
	ev->min_ns = 0;
	ev->max_ns = UINT64_MAX;
	snprintf(ev->name, sizeof(ev->name), "offcpu");
	return 0;
}

/*
 * The default stream buffer per CPU holds KP_RING_MS of the session's
 * samples at their highest rate, each with a call chain of KP_RING_FRAMES
 * kernel and KP_RING_FRAMES user frames (where the session walks them):
 * deeper than the typical -g sample, whose average the memory test
 * measures.  Events without a known rate (sampled at every hit, or every
 * -c events) keep KPROF_DEFAULT_BUFFER_SIZE; the off-CPU and lock events
 * write nothing there.
 */
#define KP_RING_MS	500
#define KP_RING_FRAMES	32
#define KP_RING_MIN	(256U << 10)

/*
 * The samples per second and CPU @ev writes into the ring at -F @freq: @freq
 * for an event the perf core samples in frequency mode, 0 for the off-CPU
 * and lock events (they count in the tables and write no record), -1 when
 * the rate is not known (every hit of a tracepoint or probe).
 */
static int64_t ring_rate(const struct kp_event *ev, uint32_t freq)
{
	switch (ev->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return freq;
	case KPROF_TYPE_OFFCPU:
	case KPROF_TYPE_LOCK:
		return 0;
	default:
		return -1;
	}
}

uint32_t kp_session__default_buffer(const struct kp_session *s)
{
	uint64_t rate = 0, sample = sizeof(struct kp_rec_sample), bytes;
	uint32_t frames = s->stack_depth < KP_RING_FRAMES ? s->stack_depth : KP_RING_FRAMES;
	uint32_t size = KP_RING_MIN;
	unsigned int i;

	if (!s->freq)
		return KPROF_DEFAULT_BUFFER_SIZE;
	for (i = 0; i < s->nr_events; i++) {
		int64_t r = ring_rate(&s->events[i], s->freq);

		if (r < 0)
			return KPROF_DEFAULT_BUFFER_SIZE;
		rate += r;
	}
	if (s->flags & KPROF_SESSION_F_KERNEL_STACK)
		sample += frames * sizeof(uint64_t);
	if (s->flags & KPROF_SESSION_F_USER_STACK)
		sample += frames * sizeof(uint64_t);
	if (s->user_stack)	/* the registers, the size, the copy */
		sample += 5 * sizeof(uint64_t) + s->user_stack;
	bytes = rate * sample * KP_RING_MS / 1000;
	while (size < bytes && size < KPROF_MAX_BUFFER_SIZE)
		size <<= 1;
	return size;
}

int kp_session__from_opts(struct kp_session *s, enum kp_target *target,
			  const struct kp_session_opts *o, bool has_command,
			  bool has_pmu, const char *cmd, struct kp_err *err)
{
	bool stacks = o->callchain;
	char notice[160] = "";
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->buffer_size = KPROF_DEFAULT_BUFFER_SIZE;
	s->stack_depth = KPROF_DEFAULT_STACK_DEPTH;

	if (o->too_many_args) {
		kp_err__set(err, E2BIG, "too many -e, -p or -t options: at most %d each",
			    KP_MAX_EVENT_ARGS);
		return -E2BIG;
	}
	if (o->freq && o->count) {
		kp_err__set(err, EINVAL, "options -F/--freq and -c/--count are mutually exclusive");
		return -EINVAL;
	}
	if (o->all_kernel && o->all_user) {
		kp_err__set(err, EINVAL,
			    "options -K/--all-kernel and -U/--all-user are mutually exclusive");
		return -EINVAL;
	}
	if (o->nr_pid_args && (o->all_cpus || o->cpus)) {
		kp_err__set(err, EINVAL, "options -p/--pid and -a/-C are mutually exclusive");
		return -EINVAL;
	}
	if (o->nr_tid_args && (o->all_cpus || o->cpus)) {
		kp_err__set(err, EINVAL, "options -t/--tid and -a/-C are mutually exclusive");
		return -EINVAL;
	}
	if (o->nr_pid_args && o->nr_tid_args) {
		kp_err__set(err, EINVAL,
			    "options -p/--pid and -t/--tid are mutually exclusive: a session follows processes or threads");
		return -EINVAL;
	}

	/* Events first: their errors are the most common. */
	if (o->orphan_filter) {
		kp_err__set(err, EINVAL,
			    "--filter '%s' follows no tracepoint event: it applies to the -e before it",
			    o->orphan_filter);
		return -EINVAL;
	}
	for (i = 0; i < o->nr_event_args; i++) {
		unsigned int first = s->nr_events;

		ret = kp_events__parse(s->events, &s->nr_events, o->events[i], has_pmu,
				       notice, sizeof(notice), err);
		if (ret)
			return ret;
		if (o->filters[i]) {
			ret = kp_events__set_filter(&s->events[first], s->nr_events - first,
						    o->filters[i], err);
			if (ret)
				return ret;
		}
	}
	if (!s->nr_events) {
		/* --off-cpu: the on-CPU side in the same unit, time */
		ret = kp_events__parse(s->events, &s->nr_events,
				       o->off_cpu ? "cpu-clock" : KP_DEFAULT_EVENT, has_pmu,
				       notice, sizeof(notice), err);
		if (ret)
			return ret;
	}
	if (o->off_cpu) {
		ret = add_offcpu(s, o, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < s->nr_events; i++) {
		if (o->all_kernel)
			s->events[i].flags = KPROF_EV_F_EXCLUDE_USER;
		else if (o->all_user)
			s->events[i].flags = KPROF_EV_F_EXCLUDE_KERNEL;
	}

	if (o->count)
		ret = parse_count(s, o->count, err);
	else
		ret = parse_freq(s, o->freq ? o->freq : "4000", err);
	if (ret)
		return ret;
	/* Tracepoints sample every hit (the module's default) unless -c. */
	for (i = 0; o->count && i < s->nr_events; i++)
		if (kp_event__is_tracepoint(&s->events[i]))
			s->events[i].period = s->period;

	ret = parse_mode(s, o, err);
	if (ret)
		return ret;
	/* The tables are keyed by the call chains: aggregating implies -g. */
	if ((s->flags & KPROF_SESSION_F_AGGREGATE) || o->off_cpu)
		stacks = true;

	if (o->call_graph) {
		if (strcmp(o->call_graph, "fp")) {
			kp_err__set(err, EOPNOTSUPP,
				    "call graph mode '%s' is not supported: only 'fp' is supported",
				    o->call_graph);
			return -EOPNOTSUPP;
		}
		stacks = true;
	}
	if (stacks) {
		if (!o->all_user)
			s->flags |= KPROF_SESSION_F_KERNEL_STACK;
		if (!o->all_kernel)
			s->flags |= KPROF_SESSION_F_USER_STACK;
	}
	if ((s->flags & KPROF_SESSION_F_USER_STACK) && kp_session__streams(s) && !o->no_leaf_fixup)
		s->user_stack = KP_LEAF_STACK_BYTES;

	if (o->buffer_size && o->mmap_pages) {
		kp_err__set(err, EINVAL, "-m/--mmap-pages '%s' and --buffer-size '%s' both size the buffer: give one",
			    o->mmap_pages, o->buffer_size);
		return -EINVAL;
	}
	if (o->buffer_size) {
		ret = kp_parse_buffer_size(o->buffer_size, &s->buffer_size, err);
		if (ret)
			return ret;
	}
	if (o->mmap_pages) {
		ret = parse_mmap_pages(s, o->mmap_pages, err);
		if (ret)
			return ret;
	}
	if (o->stack_depth) {
		ret = parse_depth(s, o->stack_depth, err);
		if (ret)
			return ret;
	}

	for (i = 0; i < o->nr_pid_args; i++) {
		ret = add_pids(s, o->pids[i], false, err);
		if (ret)
			return ret;
	}
	for (i = 0; i < o->nr_tid_args; i++) {
		ret = add_pids(s, o->tids[i], true, err);
		if (ret)
			return ret;
		s->flags |= KPROF_SESSION_F_THREADS;
	}
	if (o->cpus) {
		ret = parse_cpus(s, o->cpus, err);
		if (ret)
			return ret;
	}

	if (s->nr_pids) {
		*target = KP_TARGET_PIDS;
	} else if (o->all_cpus || o->cpus || !has_command) {
		*target = KP_TARGET_SYSTEM;
		s->flags |= KPROF_SESSION_F_SYSTEM_WIDE;
	} else {
		*target = KP_TARGET_COMMAND;
	}
	/* perf's -t does not follow children either (its no_inherit for --tid) */
	if (*target != KP_TARGET_SYSTEM && !o->no_inherit && !o->nr_tid_args)
		s->flags |= KPROF_SESSION_F_INHERIT;
	if (!o->buffer_size && !o->mmap_pages)
		s->buffer_size = kp_session__default_buffer(s);
	/* Like perf's, the notice comes once the options are known to be good. */
	if (notice[0])
		kp_error(cmd, "%s", notice);
	return 0;
}
