/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofctl: exit codes, error printing, number parsing and formatting.
 * Everything here is pure logic, unit-tested by tests/test-util.c.
 */
#ifndef KPROFCTL_UTIL_H
#define KPROFCTL_UTIL_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* Exit codes of every command. */
#define KP_EXIT_OK		0	/* success, or --help */
#define KP_EXIT_FAILURE		1	/* runtime error, unknown command */
#define KP_EXIT_USAGE		2	/* bad option or argument */

#define KP_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Zero-sized when @e is false, a compile error when it is true. */
#define KP_BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))

#define __printf(a, b)		__attribute__((format(printf, a, b)))

/* kprofctl's own version, from the kprof-version line of ../Kbuild. */
extern const char kprofctl_version[];

/* Set by the global --debug option. */
extern int kp_debug;

/* Print "kprofctl: [cmd: ]message" on stderr. */
void kp_error(const char *cmd, const char *fmt, ...) __printf(2, 3);
/* Print "kprofctl: debug: message" on stderr when --debug was given. */
void kp_pr_debug(const char *fmt, ...) __printf(1, 2);

/*
 * Strict number parsing: decimal or 0x-prefixed hexadecimal, no sign for
 * the unsigned variants, no leading or trailing garbage.  Return 0,
 * -EINVAL (not a number) or -ERANGE (does not fit).
 */
int kp_parse_u64(const char *s, uint64_t *val);
int kp_parse_uint(const char *s, unsigned int *val);
int kp_parse_int(const char *s, int *val);

/*
 * mkdir -p: @dir and each missing parent (mode 0755).  0, or -errno with
 * the path that could not be made in @failed (@len bytes).
 */
int kp_mkdir_p(const char *dir, char *failed, size_t len);

/*
 * A size: a number (kp_parse_u64()) with an optional K, M or G suffix
 * (powers of 1024, either case).  0, -EINVAL or -ERANGE (over UINT64_MAX).
 */
int kp_parse_size(const char *s, uint64_t *bytes);

/*
 * A duration: a decimal number with a unit, ms, s, m, h or d ("500ms",
 * "30s", "2m"); a bare number is seconds.  Into *@ms, milliseconds.  0, -EINVAL
 * or -ERANGE.
 */
int kp_parse_duration_ms(const char *s, uint64_t *ms);

/*
 * perf's --time START,END: seconds with up to 9 decimals, either side may
 * be empty ("10.5,", ",12"), into nanoseconds; an open end is 0 or
 * UINT64_MAX.  0, or -EINVAL (also for START after END).
 */
int kp_parse_time_range(const char *s, uint64_t *start, uint64_t *end);

#define KP_TIME_RANGES_MAX	16

/**
 * struct kp_time_ranges - perf's --time: the spans of a recording kept
 * @nr: spans (0: the whole recording)
 * @percent: the spans are shares of the recording, resolved against its
 *	first and last sample times by kp_time_ranges__resolve()
 * @span: each one, in ns (@start, @end) and, @percent, in shares (@from,
 *	@to, 0 to 1)
 */
struct kp_time_ranges {
	unsigned int	nr;
	bool		percent;
	struct {
		uint64_t	start, end;
		double		from, to;
	} span[KP_TIME_RANGES_MAX];
};

/*
 * Parse perf's --time: START,END ranges (kp_parse_time_range()) separated
 * by spaces, or slices of the recording in percent, comma separated:
 * "A%/N" (the Nth slice of A %: "10%/2" is 10 % to 20 %) or "A%-B%".  At
 * most KP_TIME_RANGES_MAX.  0, or -EINVAL.
 */
int kp_parse_time_ranges(const char *s, struct kp_time_ranges *t);
/* Percent spans into ns over [@first, @last]; absolute ones are kept. */
void kp_time_ranges__resolve(struct kp_time_ranges *t, uint64_t first, uint64_t last);
/* Is @time inside one of @t's spans (or @t empty)? */
bool kp_time_ranges__has(const struct kp_time_ranges *t, uint64_t time);

/*
 * Sampling error, for saying when to doubt a share: the half-width, in
 * percentage points, of the 95% normal-approximation interval of the
 * share @part / @whole of samples (1.96 standard errors of a binomial
 * proportion); and of the difference of two shares @p1 / @n1 and @p2 / @n2
 * of independent profiles (pooled under "no change", as a two-proportion
 * test).  0 when a total is 0.
 */
double kp_share_error95(uint64_t part, uint64_t whole);
double kp_share_diff_error95(uint64_t p1, uint64_t n1, uint64_t p2, uint64_t n2);

/* Below this many samples a share is worth a note (report). */
#define KP_FEW_SAMPLES	1000

/* A percentage, 0 to 100, decimal ("0.5"); 0 or -EINVAL. */
int kp_parse_percent(const char *s, double *val);

/* "1.0" from a KPROF_ABI_VERSION-encoded value; returns @buf. */
char *kp_fmt_abi(char *buf, size_t len, uint32_t abi);
/* "42s", "3m 07s", "2h 03m 07s", "1d 00h 00m 05s"; returns @buf. */
char *kp_fmt_duration(char *buf, size_t len, uint64_t ns);

/* Name of an enum kprof_state value, NULL if unknown. */
const char *kp_state__name(uint32_t state);

/*
 * Module uptime from KPROF_A_STATUS_LOADED_NS and the current
 * CLOCK_MONOTONIC time.  -ERANGE when @loaded_ns is in the future, which
 * happens when kprofctl runs in a time namespace with a monotonic offset.
 */
int kp_uptime_ns(uint64_t loaded_ns, uint64_t now_ns, uint64_t *uptime);

/* CLOCK_MONOTONIC in ns, the clock of KPROF_A_STATUS_LOADED_NS. */
uint64_t kp_clock_monotonic_ns(void);
/* The clock the commands read: kp_clock_monotonic_ns, or a test's fake. */
extern uint64_t (*kp_clock_ns)(void);

#endif /* KPROFCTL_UTIL_H */
