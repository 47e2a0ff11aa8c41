// SPDX-License-Identifier: GPL-2.0
/*
 * A program with exactly known tracepoint and probe hits, for
 * kprof_tp_test.sh:
 *
 *	tp_prog read N		N one-byte read()s of /dev/zero
 *	tp_prog sleep N MS	N nanosleep()s of MS milliseconds
 *	tp_prog badread N	N read()s of fd -1, each failing with EBADF
 *	tp_prog rcvtimeo N	N recv()s on an AF_UNIX socket with a 1 ms
 *				SO_RCVTIMEO: each ends by a timer_list timer,
 *				so in the timer softirq (process_timeout())
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	long i;

	if (argc > 2 && !strcmp(argv[1], "read")) {
		int fd = open("/dev/zero", O_RDONLY);
		char c;

		if (fd < 0)
			return 1;
		for (i = 0; i < n; i++)
			if (read(fd, &c, 1) != 1)
				return 1;
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "badread")) {
		char c;

		for (i = 0; i < n; i++)
			if (read(-1, &c, 1) != -1)
				return 1;
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "sleep")) {
		long ms = atol(argv[3]);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

		for (i = 0; i < n; i++)
			nanosleep(&ts, NULL);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "rcvtimeo")) {
		struct timeval tv = { 0, 1000 };
		int sv[2];
		char c;

		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) ||
		    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			return 1;
		for (i = 0; i < n; i++)
			if (recv(sv[0], &c, 1, 0) != -1 || errno != EAGAIN)
				return 1;
		return 0;
	}
	return 2;
}
