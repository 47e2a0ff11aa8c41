// SPDX-License-Identifier: GPL-2.0
/*
 * Sleep COUNT times for MS milliseconds (default 1): at least COUNT context
 * switches, for the counting tests.  Longer sleeps make sure each one does
 * switch on a TCG guest whose vCPU the host may stall for a while: a sleep
 * that has expired before the task blocks does not switch.
 *
 * Usage: stat_sleep COUNT [MS]
 */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	long ms = argc > 2 ? atol(argv[2]) : 1;
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	return 0;
}
