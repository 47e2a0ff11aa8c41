// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads of known scheduling behaviour, for kprof_sched_test.sh:
 *
 *	sched_prog pingpong N	two processes, kp-ping and kp-pong, pass a
 *				byte back and forth over two pipes N times:
 *				each sleeps (S) until the other wakes it
 *	sched_prog hog MS	kp-hog spins in hog_spin() for MS milliseconds
 *				of wall time, never sleeping
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The hog's own function: the "ran instead" stack of the delays it causes. */
static __attribute__((noinline)) unsigned long hog_spin(double end)
{
	volatile unsigned long x = 0;
	unsigned int i;

	while (now_ms() < end)
		for (i = 0; i < 100000; i++)
			x += i;
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	int ab[2], ba[2];
	pid_t pong;
	char c = 0;
	long i;

	if (argc > 2 && !strcmp(argv[1], "hog")) {
		prctl(PR_SET_NAME, "kp-hog");
		hog_spin(now_ms() + n);
		return 0;
	}
	if (argc <= 2 || strcmp(argv[1], "pingpong") || pipe(ab) || pipe(ba))
		return 2;
	pong = fork();
	if (pong < 0)
		return 1;
	if (!pong) {
		prctl(PR_SET_NAME, "kp-pong");
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	prctl(PR_SET_NAME, "kp-ping");
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	return waitpid(pong, NULL, 0) == pong ? 0 : 1;
}
