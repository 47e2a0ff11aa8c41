// SPDX-License-Identifier: GPL-2.0
/*
 * Event names and their perf encoding; see events.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/perf_event.h>

#include "events.h"
#include "sys.h"
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

/*
 * The modifiers @mods of event @item into *@flags: u counts in user space
 * only, k in the kernel only, both (or none) everywhere; @only names them
 * in the message.
 */
static int parse_mods(const char *mods, const char *item, const char *only, uint32_t *flags,
		      struct kp_err *err)
{
	bool u = false, k = false;
	const char *p;

	for (p = mods; *p; p++) {
		if (*p == 'u') {
			u = true;
		} else if (*p == 'k') {
			k = true;
		} else {
			kp_err__set(err, EINVAL, "unsupported modifier '%c' in event '%s' (only %s)",
				    *p, item, only);
			return -EINVAL;
		}
	}
	*flags = u == k ? 0 : u ? KPROF_EV_F_EXCLUDE_KERNEL : KPROF_EV_F_EXCLUDE_USER;
	return 0;
}

/* One event of a list: "name[:mods]", @len bytes at @s. */
static int parse_one(struct kp_event *ev, const char *s, size_t len, bool has_pmu,
		     char *notice, size_t notice_len, struct kp_err *err)
{
	char item[256], base[256], *colon;
	const char *mods = "";
	uint32_t flags = 0;

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
		if (parse_mods(mods, item, ":u and :k", &flags, err))
			return -EINVAL;
	}

	memset(ev, 0, sizeof(*ev));
	if (!*base || lookup(base, ev)) {
		kp_err__set(err, EINVAL, "unknown event '%s' (see 'kprofctl list')", base);
		return -EINVAL;
	}
	ev->flags = flags;

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

/*
 * perf's PMU syntax, "PMU/TERMS/MODIFIERS", from the PMUs the kernel
 * registered under PMU_DIR: see kp_pmu_attr in events.h.
 */
#define PMU_DIR		"/sys/bus/event_source/devices"

static const char * const config_words[] = { "config", "config1", "config2", "config3" };

static bool pmu_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

size_t kp_events__pmu_prefix(const char *s)
{
	size_t n = 0;

	while (pmu_name_char(s[n]))
		n++;
	return n && s[n] == '/' ? n : 0;
}

/* Read kp_sysroot/PMU_DIR/@pmu/@rel into @buf: its length or a negative errno. */
static int pmu_read(const char *pmu, const char *rel, char *buf, size_t len)
{
	char path[4096];
	int n;

	n = snprintf(path, sizeof(path), PMU_DIR "/%s/%s", pmu, rel);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	return kp_read_file(path, buf, len);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

static void free_names(char **names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/*
 * The sorted names in the directory kp_sysroot/@dir, hidden ones left out,
 * and with @plain those with a '.' too (an event's .scale, .unit, ...
 * files).  Returns 0 or a negative errno.
 */
static int read_names(const char *dir, bool plain, char ***names, size_t *nr)
{
	char path[4096], **v = NULL, **nv;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*names = NULL;
	*nr = 0;
	if (kp_path(path, sizeof(path), "%s", dir))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (plain && strchr(de->d_name, '.')))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				goto nomem;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_names);
	*names = v;
	*nr = n;
	return 0;
nomem:
	closedir(d);
	free_names(v, n);
	return -ENOMEM;
}

/*
 * A format file, "config:0-7", "config:8-15,32-35", "config1:63": the
 * word it sets (index of config_words) and the mask of its bits.
 */
static int parse_format(const char *text, unsigned int *word, uint64_t *mask)
{
	const char *colon = strchr(text, ':'), *p;
	unsigned long lo, hi;
	size_t n;
	char *end;

	if (!colon)
		return -EINVAL;
	n = colon - text;
	for (*word = 0; *word < KP_ARRAY_SIZE(config_words); (*word)++)
		if (strlen(config_words[*word]) == n && !strncmp(text, config_words[*word], n))
			break;
	if (*word == KP_ARRAY_SIZE(config_words))
		return -EINVAL;
	*mask = 0;
	for (p = colon + 1;; p++) {
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		p = end;
		if (*p == '-') {
			if (!isdigit((unsigned char)p[1]))
				return -EINVAL;
			hi = strtoul(p + 1, &end, 10);
			p = end;
		}
		if (lo > hi || hi > 63)
			return -EINVAL;
		*mask |= (hi == 63 ? UINT64_MAX : (1ULL << (hi + 1)) - 1) & ~((1ULL << lo) - 1);
		if (!*p)
			return 0;
		if (*p != ',')
			return -EINVAL;
	}
}

/*
 * Place @value bit by bit into the bits of @mask of *@word, lowest first,
 * replacing what they held: -ERANGE if it has more bits than @mask.
 */
static int place_bits(uint64_t mask, uint64_t value, uint64_t *word)
{
	unsigned int bit, vbit = 0, nbits = __builtin_popcountll(mask);
	uint64_t out = 0;

	if (nbits < 64 && value >> nbits)
		return -ERANGE;
	for (bit = 0; bit < 64; bit++) {
		if (!(mask & 1ULL << bit))
			continue;
		if (value & 1ULL << vbit)
			out |= 1ULL << bit;
		vbit++;
	}
	*word = (*word & ~mask) | out;
	return 0;
}

struct pmu_ctx {
	const char		*item;		/* the event, as spelled */
	const char		*pmu;
	struct kp_pmu_attr	*a;
	struct kp_err		*err;
};

static int pmu_terms(struct pmu_ctx *c, const char *terms, const char *alias);

/* "unknown term": with the PMU's format terms, for the user to pick from. */
static int unknown_term(struct pmu_ctx *c, const char *term, const char *where)
{
	char dir[512], list[256] = "";
	size_t nr = 0, i, off = 0;
	char **names;

	snprintf(dir, sizeof(dir), PMU_DIR "/%s/format", c->pmu);
	if (!read_names(dir, false, &names, &nr)) {
		for (i = 0; i < nr && off < sizeof(list); i++)
			off += snprintf(list + off, sizeof(list) - off, "%s, ", names[i]);
		free_names(names, nr);
	}
	kp_err__set(c->err, EINVAL,
		    "unknown term '%s' of PMU '%s' in %s (terms: %sconfig, config1, config2, period, freq, name; events: 'kprofctl list pmu')",
		    term, c->pmu, where, list);
	return -EINVAL;
}

/* One term, "name[=value]", of the event or of the alias @alias (NULL: none). */
static int pmu_term(struct pmu_ctx *c, char *term, const char *alias)
{
	struct kp_pmu_attr *a = c->a;
	char *eq = strchr(term, '='), *val = NULL;
	char where[384], text[256], rel[320];
	unsigned int w;
	uint64_t v = 1, mask;
	const char *p;
	int ret;

	if (alias)
		snprintf(where, sizeof(where), "alias '%s' of event '%s'", alias, c->item);
	else
		snprintf(where, sizeof(where), "event '%s'", c->item);
	if (eq) {
		*eq = '\0';
		val = eq + 1;
	}
	for (p = term; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			break;
	if (!*term || *p) {
		kp_err__set(c->err, EINVAL, "bad term name '%s' in %s", term, where);
		return -EINVAL;
	}
	if (val && !*val) {
		kp_err__set(c->err, EINVAL, "missing value of term '%s' in %s", term, where);
		return -EINVAL;
	}
	if (!strcmp(term, "name")) {
		if (!val || strlen(val) >= sizeof(a->name)) {
			kp_err__set(c->err, EINVAL, "term 'name' in %s needs a name of 1 to %zu characters",
				    where, sizeof(a->name) - 1);
			return -EINVAL;
		}
		snprintf(a->name, sizeof(a->name), "%s", val);
		return 0;
	}
	if (val && alias && !strcmp(val, "?")) {
		kp_err__set(c->err, EOPNOTSUPP,
			    "%s leaves term '%s' to the user (%s=?), which kprof does not support",
			    where, term, term);
		return -EOPNOTSUPP;
	}
	if (val) {
		ret = kp_parse_u64(val, &v);
		if (ret == -ERANGE) {
			kp_err__set(c->err, ERANGE, "value '%s' of term '%s' in %s does not fit 64 bits",
				    val, term, where);
			return -ERANGE;
		}
		if (ret) {
			kp_err__set(c->err, EINVAL,
				    "bad value '%s' of term '%s' in %s (a decimal or 0x hexadecimal number)",
				    val, term, where);
			return -EINVAL;
		}
	}

	for (w = 0; w < KP_ARRAY_SIZE(config_words); w++) {
		if (strcmp(term, config_words[w]))
			continue;
		a->config[w] = v;
		snprintf(a->setter[w], sizeof(a->setter[w]), "%s", term);
		return 0;
	}
	if (!strcmp(term, "period") || !strcmp(term, "freq")) {
		if (!val) {
			kp_err__set(c->err, EINVAL, "missing value of term '%s' in %s", term, where);
			return -EINVAL;
		}
		if (!v || v > KPROF_MAX_PERIOD) {
			kp_err__set(c->err, ERANGE, "term '%s' in %s is out of range 1..%llu", term,
				    where, (unsigned long long)KPROF_MAX_PERIOD);
			return -ERANGE;
		}
		*(term[0] == 'p' ? &a->period : &a->freq) = v;
		return 0;
	}

	snprintf(rel, sizeof(rel), "format/%s", term);
	ret = pmu_read(c->pmu, rel, text, sizeof(text));
	if (ret >= 0) {
		if (parse_format(text, &w, &mask)) {
			kp_err__set(c->err, EINVAL,
				    "malformed format '%s' of term '%s' of PMU '%s' in sysfs (config:BITS[,BITS])",
				    text, term, c->pmu);
			return -EINVAL;
		}
		if (place_bits(mask, v, &a->config[w])) {
			kp_err__set(c->err, ERANGE,
				    "value '%s' of term '%s' in %s does not fit its %d bit%s (at most %#llx)",
				    val ? val : "1", term, where, __builtin_popcountll(mask),
				    __builtin_popcountll(mask) == 1 ? "" : "s",
				    (1ULL << __builtin_popcountll(mask)) - 1);
			return -ERANGE;
		}
		if (v)
			snprintf(a->setter[w], sizeof(a->setter[w]), "%s", term);
		return 0;
	}

	snprintf(rel, sizeof(rel), "events/%s", term);
	if (!alias && pmu_read(c->pmu, rel, text, sizeof(text)) >= 0) {
		if (val) {
			kp_err__set(c->err, EINVAL, "event alias '%s' takes no value ('%s') in %s",
				    term, val, where);
			return -EINVAL;
		}
		return pmu_terms(c, text, term);
	}
	return unknown_term(c, term, where);
}

/*
 * The comma that ends the list item at @p, or NULL: a PMU event's terms
 * are comma-separated too, so its item runs to the closing '/' first.
 */
static const char *list_comma(const char *p)
{
	size_t pmu = kp_events__pmu_prefix(p);
	const char *close;

	if (!pmu)
		return strchr(p, ',');
	close = strchr(p + pmu + 1, '/');
	return close ? strchr(close, ',') : NULL;
}

/* The comma-separated @terms (of the alias @alias, NULL: of the event). */
static int pmu_terms(struct pmu_ctx *c, const char *terms, const char *alias)
{
	const char *p = terms, *comma;
	char term[256];
	size_t len;
	int ret;

	if (!*terms)
		return 0;
	for (;;) {
		comma = list_comma(p);
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (!len) {
			if (alias)
				kp_err__set(c->err, EINVAL, "empty term in alias '%s' of event '%s'",
					    alias, c->item);
			else
				kp_err__set(c->err, EINVAL, "empty term in event '%s'", c->item);
			return -EINVAL;
		}
		if (len >= sizeof(term))
			len = sizeof(term) - 1;
		memcpy(term, p, len);
		term[len] = '\0';
		ret = pmu_term(c, term, alias);
		if (ret)
			return ret;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

int kp_events__pmu_attr(const char *item, struct kp_pmu_attr *a, struct kp_err *err)
{
	size_t n = kp_events__pmu_prefix(item);
	struct pmu_ctx c = { item, NULL, a, err };
	char pmu[256], terms[256], text[64];
	const char *close;
	int ret;

	memset(a, 0, sizeof(*a));
	if (!n || n >= sizeof(pmu)) {
		kp_err__set(err, EINVAL, "malformed PMU event '%s' (PMU/term=value,.../)", item);
		return -EINVAL;
	}
	memcpy(pmu, item, n);
	pmu[n] = '\0';
	c.pmu = pmu;
	close = strchr(item + n + 1, '/');
	if (!close) {
		kp_err__set(err, EINVAL, "missing '/' after the terms of PMU event '%s' (PMU/term=value,.../)",
			    item);
		return -EINVAL;
	}
	ret = pmu_read(pmu, "type", text, sizeof(text));
	if (pmu[0] == '.' || ret == -ENOENT || ret == -ENOTDIR) {
		kp_err__set(err, ENOENT, "unknown PMU '%s' in event '%s' (see 'kprofctl list pmu')",
			    pmu, item);
		return -ENOENT;
	}
	if (ret < 0 || kp_parse_uint(text, &a->type)) {
		kp_err__set(err, EINVAL, "cannot read the type of PMU '%s' in sysfs: %s", pmu,
			    ret < 0 ? strerror(-ret) : "not a number");
		return -EINVAL;
	}
	if ((size_t)(close - item - n - 1) >= sizeof(terms)) {
		kp_err__set(err, EINVAL, "the terms of PMU event '%s' are too long", item);
		return -EINVAL;
	}
	memcpy(terms, item + n + 1, close - item - n - 1);
	terms[close - item - n - 1] = '\0';
	ret = pmu_terms(&c, terms, NULL);
	if (ret)
		return ret;
	return parse_mods(close + 1, item, "u and k after the last '/'", &a->flags, err);
}

/*
 * A PMU event, as far as a kprof event carries it: the type, config,
 * period, name and modifiers.  What it cannot carry is refused, naming the
 * term, rather than dropped.
 */
static int parse_pmu(struct kp_event *ev, const char *item, struct kp_err *err)
{
	struct kp_pmu_attr a;
	unsigned int w;
	int ret;

	memset(ev, 0, sizeof(*ev));
	ret = kp_events__pmu_attr(item, &a, err);
	if (ret)
		return ret;
	for (w = 1; w < KP_ARRAY_SIZE(config_words); w++) {
		if (!a.config[w])
			continue;
		kp_err__set(err, EOPNOTSUPP,
			    "event '%s': term '%s' sets %s, which kprof cannot send (its events carry config only)",
			    item, a.setter[w], config_words[w]);
		return -EOPNOTSUPP;
	}
	if (a.freq) {
		kp_err__set(err, EOPNOTSUPP,
			    "event '%s': kprof has no per-event frequency (freq=): use -F for the session, or period=",
			    item);
		return -EOPNOTSUPP;
	}
	if (a.type == PERF_TYPE_TRACEPOINT) {
		kp_err__set(err, EOPNOTSUPP,
			    "event '%s': give a tracepoint as SYSTEM:EVENT (see 'kprofctl list tracepoint')",
			    item);
		return -EOPNOTSUPP;
	}
	if (a.type == PERF_TYPE_BREAKPOINT) {
		kp_err__set(err, EOPNOTSUPP, "event '%s': give a breakpoint as mem:ADDR[/LEN][:rwx]",
			    item);
		return -EOPNOTSUPP;
	}
	if (a.type >= PERF_TYPE_MAX) {
		kp_err__set(err, EOPNOTSUPP,
			    "event '%s': PMU '%.*s' has the dynamic type %u, which the kprof module does not open (only hardware, software, cache and raw types)",
			    item, (int)kp_events__pmu_prefix(item), item, a.type);
		return -EOPNOTSUPP;
	}
	if (!a.name[0] && strlen(item) >= KPROF_EVENT_NAME_MAX) {
		kp_err__set(err, EINVAL, "event name '%s' is too long (at most %d characters)",
			    item, KPROF_EVENT_NAME_MAX - 1);
		return -EINVAL;
	}
	ev->type = a.type;
	ev->config = a.config[0];
	ev->flags = a.flags;
	ev->period = a.period;
	snprintf(ev->name, sizeof(ev->name), "%s", a.name[0] ? a.name : item);
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
	if (kp_events__pmu_prefix(item)) {
		if (*nr >= KPROF_MAX_EVENTS)
			goto too_many;
		ret = parse_pmu(&evs[*nr], item, err);
		if (!ret)
			(*nr)++;
		return ret;
	}
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
		comma = list_comma(p);
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

/*
 * Each PMU, "[Kernel PMU, type N]", and its events/ aliases as PMU/EVENT/,
 * "[Kernel PMU event]", sorted as 'perf list pmu' sorts them.
 */
static void list_pmus(FILE *fp, const char *glob)
{
	char rel[512], text[64], what[64], buf[600];
	char **pmus, **evs;
	size_t nr, nr_ev, i, j;
	unsigned int type;

	if (read_names(PMU_DIR, false, &pmus, &nr))
		return;
	for (i = 0; i < nr; i++) {
		if (pmu_read(pmus[i], "type", text, sizeof(text)) >= 0 && !kp_parse_uint(text, &type))
			snprintf(what, sizeof(what), "Kernel PMU, type %u", type);
		else
			snprintf(what, sizeof(what), "Kernel PMU");
		if (list_match(glob, pmus[i], NULL))
			fprintf(fp, "  %-50s [%s]\n", pmus[i], what);
		snprintf(rel, sizeof(rel), PMU_DIR "/%s/events", pmus[i]);
		if (read_names(rel, true, &evs, &nr_ev))
			continue;
		for (j = 0; j < nr_ev; j++) {
			snprintf(buf, sizeof(buf), "%s/%s/", pmus[i], evs[j]);
			if (list_match(glob, buf, evs[j]))
				fprintf(fp, "  %-50s [Kernel PMU event]\n", buf);
		}
		free_names(evs, nr_ev);
	}
	free_names(pmus, nr);
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
	if (classes & KP_EVENT_PMU)
		list_pmus(fp, glob);
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
