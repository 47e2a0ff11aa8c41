// SPDX-License-Identifier: GPL-2.0
/*
 * A syscall-heavy program for the recording tests: reads /dev/zero in
 * 1 MiB blocks, so nearly all its time is spent in the kernel's read path.
 *
 * Usage: sysread MILLISECONDS
 */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 20];

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 1000;
	int fd = open("/dev/zero", O_RDONLY);
	struct timespec a, b;

	if (fd < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
	return 0;
}
