// SPDX-License-Identifier: GPL-2.0
/*
 * Threads contending one kernel lock, for kprof_lock_test.sh:
 *
 *	lock_prog THREADS SECONDS
 *
 * THREADS writer threads ("kp-writer") write 4 KiB at a time into one pipe
 * that the main thread drains, for SECONDS: pipe_write() and pipe_read()
 * take the pipe's mutex (a spin, then a sleep when its owner is slow), so
 * with more threads than CPUs the waits are in pipe_write()/pipe_read()
 * under __mutex_lock().  Prints "writes N" at the end.
 *
 *	lock_prog --loop N
 *
 * One thread writes a byte into its own pipe and reads it back, N times:
 * 2 N acquisitions of that pipe's mutex, none contended (the lockdep
 * report's known count).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

static int fds[2];
static volatile int stop;
static unsigned long writes[64];

static void *writer(void *arg)
{
	long i = (long)arg;
	char buf[4096];

	memset(buf, 'x', sizeof(buf));
	prctl(PR_SET_NAME, "kp-writer");
	while (!stop)
		if (write(fds[1], buf, sizeof(buf)) > 0)
			writes[i]++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	unsigned long total = 0;
	long i, n = argc > 1 ? atol(argv[1]) : 4;
	double secs = argc > 2 ? atof(argv[2]) : 2;
	struct timespec t0, t;
	char buf[65536];

	if (argc == 3 && !strcmp(argv[1], "--loop")) {
		long loops = atol(argv[2]);
		char c = 'x';

		if (loops < 1 || pipe(fds))
			return 2;
		for (i = 0; i < loops; i++)
			if (write(fds[1], &c, 1) != 1 || read(fds[0], &c, 1) != 1)
				return 1;
		printf("loops %ld\n", loops);
		return 0;
	}
	if (n < 1 || n > 64 || secs <= 0) {
		fprintf(stderr, "usage: lock_prog THREADS(1-64) SECONDS | lock_prog --loop N\n");
		return 2;
	}
	if (pipe(fds))
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, writer, (void *)i))
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (read(fds[0], buf, sizeof(buf)) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	stop = 1;
	/* writes in flight end; then the pipe has no writer left: EOF */
	close(fds[1]);
	while (read(fds[0], buf, sizeof(buf)) > 0)
		;
	for (i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		total += writes[i];
	}
	printf("writes %lu\n", total);
	return 0;
}
