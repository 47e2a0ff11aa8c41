// SPDX-License-Identifier: GPL-2.0
/*
 * Fork CHILDREN children one after the other, each spinning MILLISECONDS
 * of wall-clock time while the parent waits: the parent itself hardly
 * runs, so counting it without its children shows little.
 *
 * Usage: stat_fork CHILDREN MILLISECONDS
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static void spin(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;
	long ms = argc > 2 ? atol(argv[2]) : 200;
	pid_t pid;

	for (long i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (!pid) {
			spin(ms);
			_exit(0);
		}
		if (waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	return 0;
}
