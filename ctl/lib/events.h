/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event names, spelled as perf spells them, and their perf encoding:
 *
 *	hardware	cycles, instructions, cache-misses, ...	PERF_TYPE_HARDWARE
 *	software	cpu-clock, page-faults, cs, ...		PERF_TYPE_SOFTWARE
 *	cache		L1-dcache-load-misses, LLC-loads, ...	PERF_TYPE_HW_CACHE
 *	raw		rNNNN (hexadecimal)			PERF_TYPE_RAW
 *	tracepoint	SYSTEM:EVENT, globs in both halves	PERF_TYPE_TRACEPOINT
 *			(irq:*, sched:sched_s*), from tracefs
 *	kprobe		kprobe:FUNC[+OFFSET]			KPROF_TYPE_KPROBE
 *	ftrace		ftrace:GLOB				KPROF_TYPE_FTRACE
 *	PMU		PMU/term=value,.../[uk], PMU/EVENT/	the PMU's type file
 *			(cpu/event=0x3c,umask=0x01/u), from
 *			/sys/bus/event_source/devices
 *
 * A cache event's config is id | op << 8 | result << 16 (perf_event.h).
 * A name may end in modifiers: ":u" counts in user space only
 * (KPROF_EV_F_EXCLUDE_KERNEL), ":k" in the kernel only
 * (KPROF_EV_F_EXCLUDE_USER), ":uk" in both.
 */
#ifndef KPROFCTL_EVENTS_H
#define KPROFCTL_EVENTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/kprof.h>
#include <linux/perf_event.h>

#include "error.h"

/* One event of a session, as sent in KPROF_A_SESSION_EVENT. */
struct kp_event {
	uint32_t	type;			/* PERF_TYPE_* */
	uint32_t	flags;			/* KPROF_EV_F_* */
	uint64_t	config;
	char		name[KPROF_EVENT_NAME_MAX];	/* as spelled, modifiers included */
	uint64_t	period;			/* KPROF_EV_A_PERIOD; 0: not sent */
	uint32_t	offset;			/* KPROF_EV_A_OFFSET (kprobe) */
	uint64_t	min_ns, max_ns;		/* KPROF_EV_A_MIN/MAX_NS (off-CPU): sent for it */
	uint32_t	bp_type, bp_len;	/* KPROF_EV_A_BP_TYPE/_LEN (mem:): sent for it */
	uint32_t	nr_filter;		/* KPROF_EV_A_FILTER instructions */
	char		symbol[KPROF_SYMBOL_MAX];	/* KPROF_EV_A_SYMBOL; "": not sent */
	struct kprof_filter_insn filter[KPROF_FILTER_MAX_INSNS];
};

/* Classes of kp_events__list(). */
enum kp_event_class {
	KP_EVENT_HW	= 1 << 0,
	KP_EVENT_SW	= 1 << 1,
	KP_EVENT_CACHE	= 1 << 2,
	KP_EVENT_RAW	= 1 << 3,
	KP_EVENT_TRACEPOINT = 1 << 4,
	KP_EVENT_PROBE	= 1 << 5,
	KP_EVENT_PMU	= 1 << 6,
	KP_EVENT_ALL	= 0x7f,
};

/*
 * perf's PMU syntax, PMU/TERMS/MODIFIERS: PMU is a directory of
 * kp_sysroot/sys/bus/event_source/devices, whose file "type" gives the
 * type.  TERMS, comma-separated, are config=, config1=, config2=,
 * config3= (the whole word), the PMU's format/ files (a value placed bit
 * by bit into the bits the file names: "config:0-7", "config:8-15,32-35",
 * "config1:0-63"), the PMU's events/ aliases (their own terms), period=,
 * freq= and name=.  A term without a value is 1; a term replaces the
 * bits an earlier one set.
 */
struct kp_pmu_attr {
	uint32_t	type;
	uint64_t	config[4];		/* config, config1, config2, config3 */
	char		setter[4][64];		/* the term that last set bits of each */
	uint64_t	period;			/* period=; 0: none */
	uint64_t	freq;			/* freq=; 0: none */
	char		name[KPROF_EVENT_NAME_MAX];	/* name=; "": none */
	uint32_t	flags;			/* KPROF_EV_F_* of the modifiers */
};

/*
 * Does @s start as PMU syntax, a PMU name and '/'?  Returns the name's
 * length, or 0.
 */
size_t kp_events__pmu_prefix(const char *s);

/*
 * Encode the PMU event @item ("cpu/event=0x3c/u") into @a.  Returns 0, or
 * -EINVAL / -ENOENT with @err naming the bad part: "unknown term 'foo' of
 * PMU 'cpu' in event 'cpu/foo=1/' (...)".  kp_events__parse() takes only
 * what a kprof event carries (type, config, period, name, modifiers).
 */
int kp_events__pmu_attr(const char *item, struct kp_pmu_attr *a, struct kp_err *err);

/* The default event: "cycles", as in perf record. */
#define KP_DEFAULT_EVENT	"cycles"

/*
 * Parse @arg, one -e argument: a comma-separated list of events, appended to
 * @evs, of which *@nr are used (at most KPROF_MAX_EVENTS).
 *
 * Without a hardware PMU (@has_pmu false), cycles and cpu-cycles become
 * cpu-clock (with the same modifiers) and @notice (if not NULL, @len bytes)
 * gets a line naming both for the caller to print; any other hardware,
 * cache or raw event is an error.
 *
 * A tracepoint glob expands into one event per match, in sorted order,
 * named SYSTEM:EVENT.
 *
 * Returns 0, or -EINVAL / -E2BIG / -EOPNOTSUPP / -ENOENT with @err naming
 * the event: "unknown event 'cyclez' (see 'kprofctl list')".
 */
int kp_events__parse(struct kp_event *evs, unsigned int *nr, const char *arg,
		     bool has_pmu, char *notice, size_t len, struct kp_err *err);

/*
 * Compile the --filter @expr for each tracepoint of @evs (@nr of them: the
 * events of the -e it follows).  Returns 0, or -EINVAL with @err set (no
 * tracepoint among them, or the compiler's error).
 */
int kp_events__set_filter(struct kp_event *evs, unsigned int nr, const char *expr,
			  struct kp_err *err);

static inline bool kp_event__is_tracepoint(const struct kp_event *ev)
{
	return ev->type == PERF_TYPE_TRACEPOINT;
}

/* "hardware", "software", "cache", "raw" or "type N". */
const char *kp_event__type_name(uint32_t type, char *buf, size_t len);

/*
 * The canonical name of (@type, @config) without modifiers ("cycles",
 * "L1-dcache-load-misses", "r1a2"); returns @buf.
 */
char *kp_event__canonical(uint32_t type, uint64_t config, char *buf, size_t len);

/*
 * Print the known names of @classes (KP_EVENT_*) matching @glob (NULL:
 * all), as 'perf list' does.  Tracepoints come from tracefs; without it,
 * none are listed.
 */
void kp_events__list_glob(FILE *fp, unsigned int classes, const char *glob);

/* Print the known names of @classes (KP_EVENT_*), as 'perf list' does. */
void kp_events__list(FILE *fp, unsigned int classes);

#endif /* KPROFCTL_EVENTS_H */
