// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists and bitmaps; see cpumap.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cpumap.h"

/* A decimal CPU number at *@s; ULONG values above the map saturate. */
static int parse_cpu(const char **s, unsigned long *cpu)
{
	const char *p = *s;
	unsigned long v = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (*p - '0');
		if (v > 0xffffffffUL)
			v = 0xffffffffUL;
	}
	*s = p;
	*cpu = v;
	return 0;
}

int kp_cpumap__parse(struct kp_cpumap *map, const char *list, unsigned int limit,
		     unsigned int *bad)
{
	const char *p = list;
	unsigned long first, last, cpu;

	memset(map, 0, sizeof(*map));
	map->max_cpu = -1;
	if (limit > KP_CPUMAP_MAX_CPUS)
		limit = KP_CPUMAP_MAX_CPUS;
	if (!p || !*p)
		return -EINVAL;

	for (;;) {
		if (parse_cpu(&p, &first))
			return -EINVAL;
		last = first;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &last) || last < first)
				return -EINVAL;
		}
		if (*p && *p != ',')
			return -EINVAL;
		if (last >= limit) {
			if (bad)
				*bad = first >= limit ? first : limit;
			return -ERANGE;
		}
		for (cpu = first; cpu <= last; cpu++) {
			if (!kp_cpumap__test(map, cpu))
				map->nr++;
			map->bits[cpu / 64] |= 1ULL << (cpu % 64);
		}
		if ((int)last > map->max_cpu)
			map->max_cpu = last;
		if (!*p)
			return 0;
		p++;
	}
}

char *kp_cpumap__format(const uint64_t *bits, size_t bytes, char *buf, size_t len)
{
	size_t nbits = bytes / 8 * 64, i = 0, j, pos = 0;
	int n;

	if (!len)
		return buf;
	buf[0] = '\0';
	while (i < nbits) {
		if (!kp_cpumap__bit(bits, bytes, i)) {
			i++;
			continue;
		}
		for (j = i; kp_cpumap__bit(bits, bytes, j + 1); j++)
			;
		if (j == i)
			n = snprintf(buf + pos, len - pos, "%s%zu", pos ? "," : "", i);
		else
			n = snprintf(buf + pos, len - pos, "%s%zu-%zu", pos ? "," : "", i, j);
		if (n < 0 || (size_t)n >= len - pos) {
			if (len >= 4)
				strcpy(buf + len - 4, "...");
			return buf;
		}
		pos += n;
		i = j + 1;
	}
	return buf;
}
