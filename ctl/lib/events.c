// SPDX-License-Identifier: GPL-2.0
/*
 * Event names and their perf encoding; see events.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "events.h"
#include "tpdecode.h"
#include "tpfilter.h"
#include "tracefs.h"
#include "util.h"

struct kp_event_name {
	const char	*name;
	const char	*alias;		/* NULL: none */
	uint64_t	config;
};

/* perf's spellings; 'perf list' prints "alias OR name" for these. */
static const struct kp_event_name hw_events[] = {
	{ "cpu-cycles",			"cycles",		PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		NULL,			PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		NULL,			PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		NULL,			PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	"branches",		PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		NULL,			PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			NULL,			PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	"idle-cycles-frontend",	PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	"idle-cycles-backend",	PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			NULL,			PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct kp_event_name sw_events[] = {
	{ "cpu-clock",			NULL,			PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			NULL,			PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		"faults",		PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		"cs",			PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		"migrations",		PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		NULL,			PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		NULL,			PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		NULL,			PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		NULL,			PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			NULL,			PERF_COUNT_SW_DUMMY },
};

/* Cache ids, in PERF_COUNT_HW_CACHE_* order, and the ops each supports. */
#define OP_READ		(1 << PERF_COUNT_HW_CACHE_OP_READ)
#define OP_WRITE	(1 << PERF_COUNT_HW_CACHE_OP_WRITE)
#define OP_PREFETCH	(1 << PERF_COUNT_HW_CACHE_OP_PREFETCH)

static const struct {
	const char	*name;
	unsigned int	ops;
} hw_caches[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]	= { "L1-dcache",	OP_READ | OP_WRITE | OP_PREFETCH },
	[PERF_COUNT_HW_CACHE_L1I]	= { "L1-icache",	OP_READ | OP_PREFETCH },
	[PERF_COUNT_HW_CACHE_LL]	= { "LLC",		OP_READ | OP_WRITE | OP_PREFETCH },
	[PERF_COUNT_HW_CACHE_DTLB]	= { "dTLB",		OP_READ | OP_WRITE | OP_PREFETCH },
	[PERF_COUNT_HW_CACHE_ITLB]	= { "iTLB",		OP_READ },
	[PERF_COUNT_HW_CACHE_BPU]	= { "branch",		OP_READ },
	[PERF_COUNT_HW_CACHE_NODE]	= { "node",		OP_READ | OP_WRITE | OP_PREFETCH },
};

/* Op names: "<cache>-loads" (accesses) and "<cache>-load-misses". */
static const struct {
	const char	*one;
	const char	*many;
} hw_cache_ops[PERF_COUNT_HW_CACHE_OP_MAX] = {
	[PERF_COUNT_HW_CACHE_OP_READ]		= { "load",	"loads" },
	[PERF_COUNT_HW_CACHE_OP_WRITE]		= { "store",	"stores" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH]	= { "prefetch",	"prefetches" },
};

static void cache_name(char *buf, size_t len, unsigned int id, unsigned int op,
		       unsigned int result)
{
	if (result == PERF_COUNT_HW_CACHE_RESULT_MISS)
		snprintf(buf, len, "%s-%s-misses", hw_caches[id].name, hw_cache_ops[op].one);
	else
		snprintf(buf, len, "%s-%s", hw_caches[id].name, hw_cache_ops[op].many);
}

static const struct kp_event_name *find_name(const struct kp_event_name *t, size_t n,
					     const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(t[i].name, name) || (t[i].alias && !strcmp(t[i].alias, name)))
			return &t[i];
	return NULL;
}

/* Cache names are case-insensitive, as in perf. */
static int find_cache(const char *name, uint64_t *config)
{
	unsigned int id, op, res;
	char buf[64];

	for (id = 0; id < PERF_COUNT_HW_CACHE_MAX; id++) {
		for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!(hw_caches[id].ops & (1 << op)))
				continue;
			for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				cache_name(buf, sizeof(buf), id, op, res);
				if (!strcasecmp(buf, name)) {
					*config = id | op << 8 | res << 16;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

/* "r" and 1 to 16 hexadecimal digits. */
static int parse_raw(const char *name, uint64_t *config)
{
	const char *p = name + 1;
	uint64_t v = 0;
	size_t n = 0;

	if (name[0] != 'r' || !*p)
		return -ENOENT;
	for (; *p; p++, n++) {
		if (!isxdigit((unsigned char)*p) || n >= 16)
			return -ENOENT;
		v = v << 4 | (isdigit((unsigned char)*p) ? *p - '0' :
			      tolower((unsigned char)*p) - 'a' + 10);
	}
	*config = v;
	return 0;
}

/* Resolve @base (no modifiers) into @ev->type and @ev->config. */
static int lookup(const char *base, struct kp_event *ev)
{
	const struct kp_event_name *e;

	e = find_name(hw_events, KP_ARRAY_SIZE(hw_events), base);
	if (e) {
		ev->type = PERF_TYPE_HARDWARE;
		ev->config = e->config;
		return 0;
	}
	e = find_name(sw_events, KP_ARRAY_SIZE(sw_events), base);
	if (e) {
		ev->type = PERF_TYPE_SOFTWARE;
		ev->config = e->config;
		return 0;
	}
	if (!find_cache(base, &ev->config)) {
		ev->type = PERF_TYPE_HW_CACHE;
		return 0;
	}
	if (!parse_raw(base, &ev->config)) {
		ev->type = PERF_TYPE_RAW;
		return 0;
	}
	return -ENOENT;
}

/* One event of a list: "name[:mods]", @len bytes at @s. */
static int parse_one(struct kp_event *ev, const char *s, size_t len, bool has_pmu,
		     char *notice, size_t notice_len, struct kp_err *err)
{
	char item[256], base[256], *colon;
	const char *mods = "";
	bool u = false, k = false;
	const char *p;

	if (!len) {
		kp_err__set(err, EINVAL, "empty event name in the event list");
		return -EINVAL;
	}
	if (len >= sizeof(item))
		len = sizeof(item) - 1;
	memcpy(item, s, len);
	item[len] = '\0';
	memcpy(base, item, len + 1);
	colon = strchr(base, ':');
	if (colon) {
		*colon = '\0';
		mods = colon + 1;
		if (!*mods) {
			kp_err__set(err, EINVAL, "empty modifier in event '%s'", item);
			return -EINVAL;
		}
		for (p = mods; *p; p++) {
			if (*p == 'u') {
				u = true;
			} else if (*p == 'k') {
				k = true;
			} else {
				kp_err__set(err, EINVAL,
					    "unsupported modifier '%c' in event '%s' (only :u and :k)",
					    *p, item);
				return -EINVAL;
			}
		}
	}

	memset(ev, 0, sizeof(*ev));
	if (!*base || lookup(base, ev)) {
		kp_err__set(err, EINVAL, "unknown event '%s' (see 'kprofctl list')", base);
		return -EINVAL;
	}
	if (u != k)
		ev->flags = u ? KPROF_EV_F_EXCLUDE_KERNEL : KPROF_EV_F_EXCLUDE_USER;

	if (!has_pmu && ev->type != PERF_TYPE_SOFTWARE) {
		if (ev->type == PERF_TYPE_HARDWARE && ev->config == PERF_COUNT_HW_CPU_CYCLES) {
			/* perf's fallback: a timer where there is no PMU. */
			if (notice)
				snprintf(notice, notice_len,
					 "no hardware PMU (virtual machine?): '%s' falls back to 'cpu-clock'",
					 base);
			ev->type = PERF_TYPE_SOFTWARE;
			ev->config = PERF_COUNT_SW_CPU_CLOCK;
			snprintf(base, sizeof(base), "cpu-clock%s%s", colon ? ":" : "", mods);
			memcpy(item, base, sizeof(item));
		} else {
			kp_err__set(err, EOPNOTSUPP,
				    "event '%s' is not supported: no hardware PMU (virtual machine?)",
				    item);
			return -EOPNOTSUPP;
		}
	}
	if (strlen(item) >= KPROF_EVENT_NAME_MAX) {
		kp_err__set(err, EINVAL, "event name '%s' is too long (at most %d characters)",
			    item, KPROF_EVENT_NAME_MAX - 1);
		return -EINVAL;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", item);
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* "kprobe:FUNC[+OFFSET]" or "ftrace:GLOB"; @rest follows the colon. */
static int parse_probe(struct kp_event *ev, const char *item, bool kprobe, const char *rest,
		       struct kp_err *err)
{
	char sym[KPROF_SYMBOL_MAX];
	const char *plus = kprobe ? strchr(rest, '+') : NULL;
	size_t len = plus ? (size_t)(plus - rest) : strlen(rest);
	const char *p;
	uint64_t off = 0;

	memset(ev, 0, sizeof(*ev));
	if (!len) {
		kp_err__set(err, EINVAL, "missing %s in event '%s'",
			    kprobe ? "function" : "function glob", item);
		return -EINVAL;
	}
	if (len >= sizeof(sym)) {
		kp_err__set(err, EINVAL, "function name in event '%s' is too long", item);
		return -EINVAL;
	}
	memcpy(sym, rest, len);
	sym[len] = '\0';
	if (kprobe) {
		for (p = sym; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.') {
				kp_err__set(err, EINVAL, "invalid function name '%s' in event '%s'",
					    sym, item);
				return -EINVAL;
			}
		if (plus && (kp_parse_u64(plus + 1, &off) || off > UINT32_MAX)) {
			kp_err__set(err, EINVAL, "invalid offset '%s' in event '%s'", plus + 1, item);
			return -EINVAL;
		}
		ev->type = KPROF_TYPE_KPROBE;
		ev->offset = off;
	} else {
		if (!kp_tracefs__glob_ok(sym)) {
			kp_err__set(err, EINVAL, "malformed function glob '%s' in event '%s'", sym,
				    item);
			return -EINVAL;
		}
		ev->type = KPROF_TYPE_FTRACE;
	}
	snprintf(ev->symbol, sizeof(ev->symbol), "%s", sym);
	if (strlen(item) >= KPROF_EVENT_NAME_MAX) {
		kp_err__set(err, EINVAL, "event name '%s' is too long (at most %d characters)",
			    item, KPROF_EVENT_NAME_MAX - 1);
		return -EINVAL;
	}
	snprintf(ev->name, sizeof(ev->name), "%s", item);
	return 0;
}

/*
 * perf's "mem:ADDR[/LEN][:ACCESS]", a hardware breakpoint: ACCESS of r, w
 * and x (default rw; x alone), LEN 1, 2, 4 or 8 (default 4; 8 for x), ADDR
 * a multiple of LEN.  @rest follows "mem:".
 */
static int parse_breakpoint(struct kp_event *ev, const char *item, const char *rest,
			    struct kp_err *err)
{
	char addr[32], len_s[16] = "";
	const char *slash = strchr(rest, '/'), *colon = strchr(rest, ':'), *p;
	size_t alen = slash ? (size_t)(slash - rest) : colon ? (size_t)(colon - rest) : strlen(rest);
	uint64_t a, len = 0;

	memset(ev, 0, sizeof(*ev));
	if (slash && colon && colon < slash)
		slash = NULL;
	if (!alen || alen >= sizeof(addr)) {
		kp_err__set(err, EINVAL, "missing or bad address in breakpoint '%s' (mem:ADDR[/LEN][:rwx])",
			    item);
		return -EINVAL;
	}
	memcpy(addr, rest, alen);
	addr[alen] = '\0';
	if (kp_parse_u64(addr, &a)) {
		kp_err__set(err, EINVAL, "bad address '%s' in breakpoint '%s'", addr, item);
		return -EINVAL;
	}
	if (slash) {
		size_t n = colon ? (size_t)(colon - slash - 1) : strlen(slash + 1);

		if (n >= sizeof(len_s))
			n = sizeof(len_s) - 1;
		memcpy(len_s, slash + 1, n);
		len_s[n] = '\0';
		if (kp_parse_u64(len_s, &len) || !(len == 1 || len == 2 || len == 4 || len == 8)) {
			kp_err__set(err, EINVAL,
				    "bad breakpoint length '%s' in '%s': 1, 2, 4 or 8 bytes", len_s, item);
			return -EINVAL;
		}
	}
	if (colon) {
		for (p = colon + 1; *p; p++) {
			uint32_t bit = *p == 'r' ? KPROF_BP_F_R : *p == 'w' ? KPROF_BP_F_W :
				       *p == 'x' ? KPROF_BP_F_X : 0;

			if (!bit || (ev->bp_type & bit)) {
				kp_err__set(err, EINVAL,
					    "bad breakpoint access '%s' in '%s': r, w, rw or x",
					    colon + 1, item);
				return -EINVAL;
			}
			ev->bp_type |= bit;
		}
	}
	if (!ev->bp_type)
		ev->bp_type = KPROF_BP_F_R | KPROF_BP_F_W;
	if ((ev->bp_type & KPROF_BP_F_X) && ev->bp_type != KPROF_BP_F_X) {
		kp_err__set(err, EINVAL, "bad breakpoint access '%s' in '%s': x cannot go with r or w",
			    colon + 1, item);
		return -EINVAL;
	}
	if (!len)
		len = ev->bp_type == KPROF_BP_F_X ? sizeof(long) : 4;
	if (ev->bp_type == KPROF_BP_F_X && len != sizeof(long)) {
		kp_err__set(err, EINVAL, "breakpoint '%s': an execute breakpoint is %zu bytes long",
			    item, sizeof(long));
		return -EINVAL;
	}
	if (a & (len - 1)) {
		kp_err__set(err, EINVAL, "breakpoint '%s': address %#" PRIx64 " is not a multiple of its length %" PRIu64,
			    item, a, len);
		return -EINVAL;
	}
	if (strlen(item) >= KPROF_EVENT_NAME_MAX) {
		kp_err__set(err, EINVAL, "event name '%s' is too long (at most %d characters)",
			    item, KPROF_EVENT_NAME_MAX - 1);
		return -EINVAL;
	}
	ev->type = PERF_TYPE_BREAKPOINT;
	ev->config = a;
	ev->bp_len = len;
	ev->period = 1;		/* every access, as perf does */
	snprintf(ev->name, sizeof(ev->name), "%s", item);
	return 0;
}

struct tp_add {
	struct kp_event	*evs;
	unsigned int	*nr;
	struct kp_err	*err;
};

static int tp_add_one(const char *system, const char *event, uint32_t id, void *arg)
{
	struct tp_add *a = arg;
	struct kp_event *ev = &a->evs[*a->nr];

	memset(ev, 0, sizeof(*ev));
	if (strlen(system) + 1 + strlen(event) >= KPROF_EVENT_NAME_MAX) {
		kp_err__set(a->err, EINVAL,
			    "tracepoint name '%s:%s' is too long (at most %d characters)",
			    system, event, KPROF_EVENT_NAME_MAX - 1);
		return -EINVAL;
	}
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	snprintf(ev->name, sizeof(ev->name), "%s:%s", system, event);
	(*a->nr)++;
	return 0;
}

/* "SYSTEM:EVENT", globs allowed in both halves, expanded from tracefs. */
static int parse_tracepoint(struct kp_event *evs, unsigned int *nr, const char *item,
			    struct kp_err *err)
{
	char sys[KP_TP_NAME_MAX], name[256];
	const char *colon = strchr(item, ':');
	struct tp_add a = { evs, nr, err };
	size_t len = colon - item;
	int n;

	if (len >= sizeof(sys) || strlen(colon + 1) >= sizeof(name)) {
		kp_err__set(err, EINVAL, "tracepoint name '%s' is too long", item);
		return -EINVAL;
	}
	memcpy(sys, item, len);
	sys[len] = '\0';
	snprintf(name, sizeof(name), "%s", colon + 1);
	if (!kp_tracefs__glob_ok(sys) || !kp_tracefs__glob_ok(name)) {
		kp_err__set(err, EINVAL,
			    "malformed tracepoint '%s': SYSTEM:EVENT of letters, digits, '_', and globs * ? [...]",
			    item);
		return -EINVAL;
	}
	n = kp_tracefs__walk(sys, name, NULL, NULL, err);
	if (n < 0)
		return n;
	if (!n && !has_glob(item)) {
		kp_err__set(err, ENOENT, "unknown tracepoint '%s' (see 'kprofctl list tracepoint')",
			    item);
		return -ENOENT;
	}
	if (!n) {
		kp_err__set(err, ENOENT, "no tracepoint matches '%s' (see 'kprofctl list tracepoint')",
			    item);
		return -ENOENT;
	}
	if (*nr + n > KPROF_MAX_EVENTS) {
		if (*nr)
			kp_err__set(err, E2BIG,
				    "too many events: '%s' expands to %d tracepoints, %u events in all, at most %d",
				    item, n, *nr + n, KPROF_MAX_EVENTS);
		else
			kp_err__set(err, E2BIG,
				    "too many events: '%s' expands to %d tracepoints, at most %d",
				    item, n, KPROF_MAX_EVENTS);
		return -E2BIG;
	}
	n = kp_tracefs__walk(sys, name, tp_add_one, &a, err);
	return n < 0 ? n : 0;
}

/* Only u and k: the modifiers of a hardware/software event. */
static bool only_mods(const char *s)
{
	return *s && strspn(s, "uk") == strlen(s);
}

/* One item of the list, @len bytes at @s: appended to @evs. */
static int parse_item(struct kp_event *evs, unsigned int *nr, const char *s, size_t len,
		      bool has_pmu, char *notice, size_t notice_len, struct kp_err *err)
{
	char item[256], prefix[256];
	const char *colon;
	struct kp_event tmp;
	int ret;

	if (len >= sizeof(item))
		len = sizeof(item) - 1;
	memcpy(item, s, len);
	item[len] = '\0';
	colon = strchr(item, ':');
	if (colon && colon > item) {
		memcpy(prefix, item, colon - item);
		prefix[colon - item] = '\0';
		if (!strcmp(prefix, "mem")) {
			if (*nr >= KPROF_MAX_EVENTS)
				goto too_many;
			ret = parse_breakpoint(&evs[*nr], item, colon + 1, err);
			if (!ret)
				(*nr)++;
			return ret;
		}
		if (!strcmp(prefix, "kprobe") || !strcmp(prefix, "ftrace")) {
			if (*nr >= KPROF_MAX_EVENTS)
				goto too_many;
			ret = parse_probe(&evs[*nr], item, prefix[0] == 'k', colon + 1, err);
			if (!ret)
				(*nr)++;
			return ret;
		}
		if (lookup(prefix, &tmp) && !only_mods(colon + 1))
			return parse_tracepoint(evs, nr, item, err);
	}
	if (*nr >= KPROF_MAX_EVENTS)
		goto too_many;
	ret = parse_one(&evs[*nr], s, len, has_pmu, notice, notice_len, err);
	if (!ret)
		(*nr)++;
	return ret;

too_many:
	kp_err__set(err, E2BIG, "too many events: at most %d", KPROF_MAX_EVENTS);
	return -E2BIG;
}

int kp_events__parse(struct kp_event *evs, unsigned int *nr, const char *arg,
		     bool has_pmu, char *notice, size_t notice_len, struct kp_err *err)
{
	const char *p = arg, *comma;
	size_t len;
	int ret;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len) {
			kp_err__set(err, EINVAL, "empty event name in the event list");
			return -EINVAL;
		}
		ret = parse_item(evs, nr, p, len, has_pmu, notice, notice_len, err);
		if (ret)
			return ret;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int kp_events__set_filter(struct kp_event *evs, unsigned int nr, const char *expr,
			  struct kp_err *err)
{
	struct kp_tpdecode *t;
	unsigned int i, done = 0;
	int ret = 0;

	/* The events' formats as tracefs has them now, parsed by libtraceevent. */
	t = kp_tpdecode__new_events(evs, nr, "", NULL);
	if (!t) {
		kp_err__set(err, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < nr; i++) {
		struct tep_event *ev;

		if (!kp_event__is_tracepoint(&evs[i]))
			continue;
		ev = kp_tpdecode__event(t, i);
		if (!ev) {
			kp_err__set(err, EINVAL, "cannot filter %s: %s", evs[i].name,
				    kp_tpdecode__why(t, i) ? kp_tpdecode__why(t, i) : "no format");
			ret = -EINVAL;
			goto out;
		}
		ret = kp_tpfilter__compile(ev, evs[i].name, expr, evs[i].filter, &evs[i].nr_filter,
					   err);
		if (ret)
			goto out;
		done++;
	}
	if (!done) {
		kp_err__set(err, EINVAL,
			    "--filter '%s' follows no tracepoint event: it applies to the -e before it",
			    expr);
		ret = -EINVAL;
	}
out:
	kp_tpdecode__delete(t);
	return ret;
}

const char *kp_event__type_name(uint32_t type, char *buf, size_t len)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
		return "hardware";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_HW_CACHE:
		return "cache";
	case PERF_TYPE_RAW:
		return "raw";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case KPROF_TYPE_KPROBE:
		return "kprobe";
	case KPROF_TYPE_FTRACE:
		return "ftrace";
	case KPROF_TYPE_LATENCY:
		return "latency";
	case KPROF_TYPE_RUNQLAT:
		return "runqlat";
	case KPROF_TYPE_OFFCPU:
		return "offcpu";
	}
	snprintf(buf, len, "type %u", type);
	return buf;
}

char *kp_event__canonical(uint32_t type, uint64_t config, char *buf, size_t len)
{
	unsigned int id = config & 0xff, op = config >> 8 & 0xff, res = config >> 16 & 0xff;
	size_t i;

	switch (type) {
	case PERF_TYPE_HARDWARE:
		for (i = 0; i < KP_ARRAY_SIZE(hw_events); i++)
			if (hw_events[i].config == config) {
				snprintf(buf, len, "%s", hw_events[i].alias &&
					 config == PERF_COUNT_HW_CPU_CYCLES ?
					 hw_events[i].alias : hw_events[i].name);
				return buf;
			}
		break;
	case PERF_TYPE_SOFTWARE:
		for (i = 0; i < KP_ARRAY_SIZE(sw_events); i++)
			if (sw_events[i].config == config) {
				snprintf(buf, len, "%s", sw_events[i].name);
				return buf;
			}
		break;
	case PERF_TYPE_HW_CACHE:
		if (config >> 24 || id >= PERF_COUNT_HW_CACHE_MAX ||
		    op >= PERF_COUNT_HW_CACHE_OP_MAX || res >= PERF_COUNT_HW_CACHE_RESULT_MAX ||
		    !(hw_caches[id].ops & (1 << op)))
			break;
		cache_name(buf, len, id, op, res);
		return buf;
	case PERF_TYPE_RAW:
		snprintf(buf, len, "r%" PRIx64, config);
		return buf;
	case PERF_TYPE_TRACEPOINT:
		snprintf(buf, len, "tracepoint:%" PRIu64, config);
		return buf;
	}
	snprintf(buf, len, "%u:0x%" PRIx64, type, config);
	return buf;
}

static bool list_match(const char *glob, const char *name, const char *alias)
{
	return !glob || !fnmatch(glob, name, 0) || (alias && !fnmatch(glob, alias, 0));
}

static void list_names(FILE *fp, const struct kp_event_name *t, size_t n, const char *what,
		       const char *glob)
{
	char buf[128];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!list_match(glob, t[i].name, t[i].alias))
			continue;
		if (t[i].alias)
			snprintf(buf, sizeof(buf), "%s OR %s", t[i].name, t[i].alias);
		else
			snprintf(buf, sizeof(buf), "%s", t[i].name);
		fprintf(fp, "  %-50s [%s]\n", buf, what);
	}
}

struct list_tp {
	FILE		*fp;
	const char	*glob;
};

static int list_tp_one(const char *system, const char *event, uint32_t id, void *arg)
{
	struct list_tp *l = arg;
	char buf[2 * KP_TP_NAME_MAX + 8];

	(void)id;
	snprintf(buf, sizeof(buf), "%s:%s", system, event);
	if (list_match(l->glob, buf, NULL))
		fprintf(l->fp, "  %-50s [Tracepoint event]\n", buf);
	return 0;
}

void kp_events__list_glob(FILE *fp, unsigned int classes, const char *glob)
{
	unsigned int id, op, res;
	char buf[64];

	if (classes & KP_EVENT_HW)
		list_names(fp, hw_events, KP_ARRAY_SIZE(hw_events), "Hardware event", glob);
	if (classes & KP_EVENT_SW)
		list_names(fp, sw_events, KP_ARRAY_SIZE(sw_events), "Software event", glob);
	if (classes & KP_EVENT_CACHE) {
		for (id = 0; id < PERF_COUNT_HW_CACHE_MAX; id++)
			for (op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++)
				for (res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
					if (!(hw_caches[id].ops & (1 << op)))
						continue;
					cache_name(buf, sizeof(buf), id, op, res);
					if (list_match(glob, buf, NULL))
						fprintf(fp, "  %-50s [Hardware cache event]\n", buf);
				}
	}
	if ((classes & KP_EVENT_RAW) && list_match(glob, "rNNN", NULL))
		fprintf(fp, "  %-50s [Raw hardware event descriptor]\n", "rNNN");
	if (classes & KP_EVENT_TRACEPOINT) {
		struct list_tp l = { fp, glob };
		struct kp_err err;

		/* Without tracefs (or as a user who cannot read it): none. */
		kp_tracefs__walk("*", "*", list_tp_one, &l, &err);
	}
	if (classes & KP_EVENT_PROBE) {
		if (list_match(glob, "kprobe:FUNC[+OFFSET]", NULL))
			fprintf(fp, "  %-50s [Kernel probe]\n", "kprobe:FUNC[+OFFSET]");
		if (list_match(glob, "ftrace:GLOB", NULL))
			fprintf(fp, "  %-50s [Function trace]\n", "ftrace:GLOB");
		if (list_match(glob, "mem:<addr>[/len][:access]", NULL))
			fprintf(fp, "  %-50s [Hardware breakpoint]\n", "mem:<addr>[/len][:access]");
	}
}

void kp_events__list(FILE *fp, unsigned int classes)
{
	kp_events__list_glob(fp, classes, NULL);
}
