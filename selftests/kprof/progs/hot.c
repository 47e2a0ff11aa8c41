// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound program with a known call path, for the recording tests:
 * main -> hot_outer -> hot_middle -> hot_leaf, where hot_leaf burns most of
 * the time.  Built with frame pointers (leaf functions included).
 *
 * Usage: hot MILLISECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void hot_tick(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void hot_leaf(void)
{
	for (unsigned long i = 0; i < 300000; i++) {
		sink += i * i;
		if (!(i & 0xffff))
			hot_tick();	/* not a leaf: keeps its frame */
	}
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void hot_middle(void)
{
	hot_leaf();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void hot_outer(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		hot_middle();
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	hot_outer(argc > 1 ? atol(argv[1]) : 1000);
	printf("%lu\n", sink & 1);
	return 0;
}
