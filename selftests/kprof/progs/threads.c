// SPDX-License-Identifier: GPL-2.0
/*
 * Two threads for the per-thread tests (record -t, stat -t):
 *
 *	threads MILLISECONDS spin|nap
 *
 * thread kp-a spins in spin_a() for MILLISECONDS; thread kp-b spins in
 * spin_b() (spin) or sleeps 1 ms at a time in nap_b() (nap) as long.  Once
 * both run, prints "TID_A TID_B" on one line; the main thread only waits.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long ms;
static volatile unsigned long sink;
static pthread_barrier_t ready;
static pid_t tid_a, tid_b;

static long elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

static __attribute__((noinline)) void spin_a(void)
{
	struct timespec a;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
	} while (elapsed_ms(&a) < ms);
}

static __attribute__((noinline)) void spin_b(void)
{
	struct timespec a;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		for (int i = 0; i < 10000; i++)
			sink -= i;
	} while (elapsed_ms(&a) < ms);
}

static __attribute__((noinline)) void nap_b(void)
{
	struct timespec a, nap = { 0, 1000000 };

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		nanosleep(&nap, NULL);
	while (elapsed_ms(&a) < ms);
}

static void *run_a(void *arg)
{
	pthread_setname_np(pthread_self(), "kp-a");
	tid_a = gettid();
	pthread_barrier_wait(&ready);
	spin_a();
	return arg;
}

static void *run_b(void *arg)
{
	pthread_setname_np(pthread_self(), "kp-b");
	tid_b = gettid();
	pthread_barrier_wait(&ready);
	if (arg)
		nap_b();
	else
		spin_b();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc != 3 || (strcmp(argv[2], "spin") && strcmp(argv[2], "nap"))) {
		fprintf(stderr, "usage: threads MILLISECONDS spin|nap\n");
		return 2;
	}
	ms = atol(argv[1]);
	pthread_barrier_init(&ready, NULL, 3);
	if (pthread_create(&a, NULL, run_a, NULL) ||
	    pthread_create(&b, NULL, run_b, strcmp(argv[2], "nap") ? NULL : argv[2])) {
		perror("pthread_create");
		return 1;
	}
	pthread_barrier_wait(&ready);
	printf("%d %d\n", tid_a, tid_b);
	fflush(stdout);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
