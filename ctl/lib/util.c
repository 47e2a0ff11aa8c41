// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl: error printing, number parsing and formatting helpers.
 */
#include <ctype.h>
#include <math.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include <linux/kprof.h>

#include "util.h"

#ifndef KPROF_VERSION
#error "KPROF_VERSION is not defined; build with make KPROF_VERSION=X.Y.Z"
#endif

const char kprofctl_version[] = KPROF_VERSION;
int kp_debug;

void kp_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("kprofctl: ", stderr);
	if (cmd)
		fprintf(stderr, "%s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void kp_pr_debug(const char *fmt, ...)
{
	va_list ap;

	if (!kp_debug)
		return;
	fputs("kprofctl: debug: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int kp_parse_u64(const char *s, uint64_t *val)
{
	unsigned long long v;
	int base = 10;
	char *end;

	/* strtoull() would skip blanks and accept a sign: refuse both. */
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		base = 16;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*val = v;
	return 0;
}

int kp_parse_uint(const char *s, unsigned int *val)
{
	uint64_t v;
	int ret;

	ret = kp_parse_u64(s, &v);
	if (ret)
		return ret;
	if (v > UINT_MAX)
		return -ERANGE;
	*val = v;
	return 0;
}

int kp_parse_int(const char *s, int *val)
{
	bool neg = false;
	uint64_t v;
	int ret;

	if (s && *s == '-') {
		neg = true;
		s++;
	}
	ret = kp_parse_u64(s, &v);
	if (ret)
		return ret;
	if (neg ? v > (uint64_t)INT_MAX + 1 : v > INT_MAX)
		return -ERANGE;
	*val = neg ? (int)(0 - v) : (int)v;
	return 0;
}

/* "12.345" seconds into nanoseconds; the whole of [@s, @e). */
static int parse_seconds(const char *s, const char *e, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0, fdigits = 0;

	for (; s < e && isdigit((unsigned char)*s); s++, digits++) {
		if (sec > (UINT64_MAX / 1000000000ULL - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (*s - '0');
	}
	if (s < e && *s == '.') {
		for (s++; s < e && isdigit((unsigned char)*s); s++, fdigits++) {
			if (fdigits == 9)
				return -EINVAL;
			frac = frac * 10 + (*s - '0');
		}
	}
	if (s != e || (!digits && !fdigits))
		return -EINVAL;
	for (; fdigits < 9; fdigits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

int kp_parse_time_range(const char *s, uint64_t *start, uint64_t *end)
{
	const char *comma = s ? strchr(s, ',') : NULL;
	const char *stop;

	if (!comma || strchr(comma + 1, ','))
		return -EINVAL;
	stop = comma + strlen(comma);
	*start = 0;
	*end = UINT64_MAX;
	if (comma > s && parse_seconds(s, comma, start))
		return -EINVAL;
	if (stop > comma + 1 && parse_seconds(comma + 1, stop, end))
		return -EINVAL;
	return *start <= *end ? 0 : -EINVAL;
}

/* "A%/N" or "A%-B%" in [@s, @e) into shares of the recording. */
static int parse_percent_span(const char *s, const char *e, double *from, double *to)
{
	char buf[64], *end, *pct;
	double a, b;
	long n;

	if (e - s <= 0 || e - s >= (long)sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, e - s);
	buf[e - s] = '\0';
	pct = strchr(buf, '%');
	if (!pct || pct == buf || !isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	a = strtod(buf, &end);
	if (errno || end != pct || a < 0 || a > 100)
		return -EINVAL;
	if (pct[1] == '/') {
		if (!isdigit((unsigned char)pct[2]))
			return -EINVAL;
		n = strtol(pct + 2, &end, 10);
		if (*end || n < 1 || a <= 0 || (n - 1) * a >= 100)
			return -EINVAL;
		*from = (n - 1) * a / 100;
		*to = n * a / 100 > 1 ? 1 : n * a / 100;
		return 0;
	}
	if (pct[1] != '-' || !isdigit((unsigned char)pct[2]))
		return -EINVAL;
	b = strtod(pct + 2, &end);
	if (end[0] != '%' || end[1] || b < a || b > 100)
		return -EINVAL;
	*from = a / 100;
	*to = b / 100;
	return 0;
}

int kp_parse_time_ranges(const char *s, struct kp_time_ranges *t)
{
	const char *p, *e;

	memset(t, 0, sizeof(*t));
	if (!s)
		return -EINVAL;
	t->percent = strchr(s, '%') != NULL;
	for (p = s; *p; p = *e ? e + 1 : e) {
		char sep = t->percent ? ',' : ' ';
		char buf[64];

		e = strchr(p, sep);
		if (!e)
			e = p + strlen(p);
		if (e == p) {
			if (*e && sep == ' ')
				continue;	/* spaces between ranges */
			return -EINVAL;
		}
		if (t->nr == KP_TIME_RANGES_MAX)
			return -EINVAL;
		if (t->percent) {
			if (parse_percent_span(p, e, &t->span[t->nr].from, &t->span[t->nr].to))
				return -EINVAL;
		} else {
			if (e - p >= (long)sizeof(buf))
				return -EINVAL;
			memcpy(buf, p, e - p);
			buf[e - p] = '\0';
			if (kp_parse_time_range(buf, &t->span[t->nr].start, &t->span[t->nr].end))
				return -EINVAL;
		}
		t->nr++;
		if (*e == ',' && !e[1])
			return -EINVAL;	/* a slice missing after the comma */
	}
	return t->nr ? 0 : -EINVAL;
}

void kp_time_ranges__resolve(struct kp_time_ranges *t, uint64_t first, uint64_t last)
{
	double len = last > first ? (double)(last - first) : 0;
	unsigned int i;

	if (!t->percent)
		return;
	for (i = 0; i < t->nr; i++) {
		t->span[i].start = first + (uint64_t)(t->span[i].from * len);
		t->span[i].end = t->span[i].to >= 1 ? last : first + (uint64_t)(t->span[i].to * len);
	}
}

bool kp_time_ranges__has(const struct kp_time_ranges *t, uint64_t time)
{
	unsigned int i;

	if (!t->nr)
		return true;
	for (i = 0; i < t->nr; i++)
		if (time >= t->span[i].start && time <= t->span[i].end)
			return true;
	return false;
}

double kp_share_error95(uint64_t part, uint64_t whole)
{
	double p;

	if (!whole)
		return 0;
	p = (double)part / (double)whole;
	return 196.0 * sqrt(p * (1 - p) / (double)whole);
}

double kp_share_diff_error95(uint64_t p1, uint64_t n1, uint64_t p2, uint64_t n2)
{
	double p;

	if (!n1 || !n2)
		return 0;
	p = ((double)p1 + (double)p2) / ((double)n1 + (double)n2);
	return 196.0 * sqrt(p * (1 - p) * (1.0 / (double)n1 + 1.0 / (double)n2));
}

int kp_parse_percent(const char *s, double *val)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || *end || !(v >= 0 && v <= 100))
		return -EINVAL;
	*val = v;
	return 0;
}

int kp_mkdir_p(const char *dir, char *failed, size_t len)
{
	char path[4096], *p, c;
	int e;

	if ((size_t)snprintf(path, sizeof(path), "%s", dir) >= sizeof(path)) {
		snprintf(failed, len, "%.64s...", dir);
		return -ENAMETOOLONG;
	}
	/* each parent, then the directory */
	for (p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			e = errno;
			snprintf(failed, len, "%s", path);
			return -e;
		}
		if (!c)
			return 0;
		*p = c;
	}
}

int kp_parse_size(const char *s, uint64_t *bytes)
{
	unsigned int shift = 0;
	char num[32];
	size_t len;
	uint64_t v;
	int ret;

	len = s ? strlen(s) : 0;
	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len + 1);
	switch (s[len - 1]) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	}
	if (shift)
		num[len - 1] = '\0';
	ret = kp_parse_u64(num, &v);
	if (ret)
		return ret;
	if (v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = v << shift;
	return 0;
}

int kp_parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct {
		const char	*unit;
		uint64_t	ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
		      { "", 1000 } };
	size_t len, i, n;
	char num[32];
	uint64_t v;

	len = s ? strlen(s) : 0;
	for (n = 0; n < len && isdigit((unsigned char)s[n]); n++)
		;
	if (!n || n >= sizeof(num))
		return n ? -ERANGE : -EINVAL;
	for (i = 0; i < KP_ARRAY_SIZE(units); i++)
		if (!strcmp(s + n, units[i].unit))
			break;
	if (i == KP_ARRAY_SIZE(units))
		return -EINVAL;
	memcpy(num, s, n);
	num[n] = '\0';
	errno = 0;
	v = strtoull(num, NULL, 10);
	if (errno == ERANGE || v > UINT64_MAX / units[i].ms)
		return -ERANGE;
	*ms = v * units[i].ms;
	return 0;
}

char *kp_fmt_abi(char *buf, size_t len, uint32_t abi)
{
	snprintf(buf, len, "%u.%u", KPROF_ABI_VERSION_MAJOR(abi),
		 KPROF_ABI_VERSION_MINOR(abi));
	return buf;
}

char *kp_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	uint64_t s = ns / 1000000000ULL;
	unsigned int sec = s % 60, min = s / 60 % 60, hour = s / 3600 % 24;
	uint64_t day = s / 86400;

	if (day)
		snprintf(buf, len, "%" PRIu64 "d %02uh %02um %02us", day, hour, min, sec);
	else if (hour)
		snprintf(buf, len, "%uh %02um %02us", hour, min, sec);
	else if (min)
		snprintf(buf, len, "%um %02us", min, sec);
	else
		snprintf(buf, len, "%us", sec);
	return buf;
}

const char *kp_state__name(uint32_t state)
{
	switch (state) {
	case KPROF_STATE_IDLE:
		return "idle";
	case KPROF_STATE_RUNNING:
		return "running";
	case KPROF_STATE_STOPPED:
		return "stopped";
	}
	return NULL;
}

int kp_uptime_ns(uint64_t loaded_ns, uint64_t now_ns, uint64_t *uptime)
{
	if (loaded_ns > now_ns)
		return -ERANGE;
	*uptime = now_ns - loaded_ns;
	return 0;
}

uint64_t kp_clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

uint64_t (*kp_clock_ns)(void) = kp_clock_monotonic_ns;
