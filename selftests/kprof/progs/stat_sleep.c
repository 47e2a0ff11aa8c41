// SPDX-License-Identifier: GPL-2.0
/*
 * Sleep COUNT times for a millisecond: at least COUNT context switches,
 * for the counting tests.
 *
 * Usage: stat_sleep COUNT
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	struct timespec ts = { 0, 1000000 };

	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return 0;
}
