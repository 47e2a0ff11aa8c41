// SPDX-License-Identifier: GPL-2.0
/*
 * Functions with frames that spend their time in libc functions without
 * one, for the leaf fix-up test: write_loop() in write() to /dev/null (a
 * system call wrapper: nearly every sample is taken in the kernel, with
 * the user registers in write()), gettime_loop() in clock_gettime() (the
 * vDSO).  A frame-pointer walk from write() goes to main and skips
 * write_loop; kprof's fix-up and perf --call-graph dwarf find it.
 *
 * Usage: leaf write|gettime MILLISECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

__attribute__((noinline)) long write_loop(long ms)
{
	int fd = open("/dev/null", O_WRONLY);
	struct timespec a;
	long n = 0;
	int i;

	if (fd < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (i = 0; i < 256; i++)
			n += write(fd, &n, 1);
	} while (elapsed_ms(&a) < ms);
	close(fd);
	return n;
}

__attribute__((noinline)) long gettime_loop(long ms)
{
	struct timespec a, b;
	long n = 0;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		clock_gettime(CLOCK_MONOTONIC, &b);
		n++;
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return n;
}

int main(int argc, char **argv)
{
	long ms, n;

	if (argc != 3)
		return 2;
	ms = atol(argv[2]);
	if (!strcmp(argv[1], "write"))
		n = write_loop(ms);
	else if (!strcmp(argv[1], "gettime"))
		n = gettime_loop(ms);
	else
		return 2;
	printf("%ld\n", n);
	return n < 0;
}
