/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists ("0,2-3", the kernel's cpulist format) and the CPU bitmap of
 * KPROF_A_SESSION_CPUS: __u64 words, CPU n is bit n % 64 of word n / 64.
 */
#ifndef KPROFCTL_CPUMAP_H
#define KPROFCTL_CPUMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#define KP_CPUMAP_MAX_CPUS	(KPROF_MAX_CPUS_BYTES * 8)
#define KP_CPUMAP_WORDS		(KP_CPUMAP_MAX_CPUS / 64)

struct kp_cpumap {
	uint64_t	bits[KP_CPUMAP_WORDS];
	unsigned int	nr;		/* CPUs set */
	int		max_cpu;	/* highest CPU set, -1 if none */
};

/*
 * Parse @list: comma-separated CPUs and ranges "N-M" (N <= M), decimal, no
 * blanks, at least one item.  Returns 0, -EINVAL for a syntax error, or
 * -ERANGE with *@bad (if not NULL) set to the first CPU >= @limit.
 */
int kp_cpumap__parse(struct kp_cpumap *map, const char *list, unsigned int limit,
		     unsigned int *bad);

/* Is CPU @cpu set in the first @bytes (whole words) of bitmap @bits? */
static inline bool kp_cpumap__bit(const uint64_t *bits, size_t bytes, size_t cpu)
{
	return cpu < bytes / 8 * 64 && (bits[cpu / 64] >> (cpu % 64)) & 1;
}

static inline int kp_cpumap__test(const struct kp_cpumap *map, unsigned int cpu)
{
	return kp_cpumap__bit(map->bits, sizeof(map->bits), cpu);
}

/* Bytes of the bitmap covering @nr_cpus CPUs: whole __u64 words. */
static inline size_t kp_cpumap__bytes(unsigned int nr_cpus)
{
	return (nr_cpus + 63) / 64 * 8;
}

/*
 * Format the first @bytes of bitmap @bits as a CPU list ("0,2-3"; "" when
 * empty) into @buf; returns @buf.  A list too long for @buf ends in "...".
 */
char *kp_cpumap__format(const uint64_t *bits, size_t bytes, char *buf, size_t len);

#endif /* KPROFCTL_CPUMAP_H */
