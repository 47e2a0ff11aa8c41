// SPDX-License-Identifier: GPL-2.0
/*
 * A program that lives in the vDSO: clock_gettime() in a loop, for the
 * test that names [vdso] frames.
 *
 * Usage: vdso MILLISECONDS
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return 0;
}
