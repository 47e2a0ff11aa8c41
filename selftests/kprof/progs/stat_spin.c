// SPDX-License-Identifier: GPL-2.0
/*
 * Spin on the CPU for MILLISECONDS of wall-clock time, for the counting
 * tests (task-clock).  Built static: no dynamic loader work to count.
 *
 * Usage: stat_spin MILLISECONDS
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return 0;
}
