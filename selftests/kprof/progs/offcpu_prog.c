// SPDX-License-Identifier: GPL-2.0
/*
 * A process that blocks in known places, for kprof_offcpu_test.sh:
 *
 *	offcpu_prog SECONDS
 *
 * waits for SIGUSR1 (so that the tracers attach first), then for SECONDS:
 *	kp-reader (the main thread) reads a pipe in kp_read_pipe(),
 *	kp-writer writes it every 10 ms in kp_write_pipe(), sleeping in
 *	kp_writer_sleep() between,
 *	kp-napper sleeps 5 ms at a time in kp_nap().
 * Each blocking call is a syscall instruction in that function itself, so
 * that the user stack's first frame is the function, not libc's wrapper.
 * At the end it prints the time spent in each, measured around the calls:
 * "read_us N nap_us N writer_us N", and waits to be killed (so that tools
 * that name frames at their end still find the process).
 *
 *	offcpu_prog spin SECONDS
 *
 * at once (for record --off-cpu -- CMD): two 5 ms naps in kp_nap(), then
 * as long spinning in kp_spin() as the naps took, so that half the
 * wall-clock time is on the CPU and half off it; prints "spin_us N nap_us N".
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static int pipefd[2];
static double end_ms;
static unsigned long long read_us, nap_us, writer_us;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline __attribute__((always_inline)) long sys3(long n, long a, long b, long c)
{
	long ret;

	asm volatile ("syscall" : "=a"(ret) : "a"(n), "D"(a), "S"(b), "d"(c)
		      : "rcx", "r11", "memory");
	return ret;
}

static __attribute__((noinline, noipa)) long kp_read_pipe(char *buf)
{
	return sys3(SYS_read, pipefd[0], (long)buf, 1);
}

static __attribute__((noinline, noipa)) void kp_nap(void)
{
	struct timespec ts = { 0, 5000000 };

	sys3(SYS_nanosleep, (long)&ts, 0, 0);
}

static __attribute__((noinline, noipa)) void kp_writer_sleep(void)
{
	struct timespec ts = { 0, 10000000 };

	sys3(SYS_nanosleep, (long)&ts, 0, 0);
}

/* the write that wakes the reader, in a function of its own (offcpu --wakers) */
static __attribute__((noinline, noipa)) long kp_write_pipe(void)
{
	return sys3(SYS_write, pipefd[1], (long)"x", 1);
}

static __attribute__((noinline, noipa)) unsigned long kp_spin(double until)
{
	volatile unsigned long x = 0;
	unsigned int i;

	while (now_ms() < until)
		for (i = 0; i < 10000; i++)
			x += i;
	return x;
}

static void *writer(void *arg)
{
	double t;

	prctl(PR_SET_NAME, "kp-writer");
	while (now_ms() < end_ms) {
		t = now_ms();
		kp_writer_sleep();
		writer_us += (now_ms() - t) * 1e3;
		if (kp_write_pipe() != 1)
			break;
	}
	close(pipefd[1]);
	return NULL;
}

static void *napper(void *arg)
{
	double t;

	prctl(PR_SET_NAME, "kp-napper");
	while (now_ms() < end_ms) {
		t = now_ms();
		kp_nap();
		nap_us += (now_ms() - t) * 1e3;
	}
	return NULL;
}

static __attribute__((noinline, noipa)) void kp_reader_loop(void)
{
	char c;
	double t;

	for (;;) {
		t = now_ms();
		if (kp_read_pipe(&c) != 1)
			break;
		read_us += (now_ms() - t) * 1e3;
	}
}

int main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : argc > 1 ? atof(argv[1]) : 0;
	pthread_t w, nap;
	sigset_t set;
	int sig;

	if (secs <= 0)
		return 2;
	if (argc > 2 && !strcmp(argv[1], "spin")) {
		double until = now_ms() + secs * 1e3, t, slept;
		unsigned long long spin_us = 0;

		prctl(PR_SET_NAME, "kp-spinner");
		while (now_ms() < until) {
			t = now_ms();
			kp_nap();
			kp_nap();
			slept = now_ms() - t;
			nap_us += slept * 1e3;
			t = now_ms();
			kp_spin(t + slept);
			spin_us += (now_ms() - t) * 1e3;
		}
		printf("spin_us %llu nap_us %llu\n", spin_us, nap_us);
		return 0;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);

	prctl(PR_SET_NAME, "kp-reader");
	if (pipe(pipefd))
		return 1;
	end_ms = now_ms() + secs * 1e3;
	if (pthread_create(&w, NULL, writer, NULL) || pthread_create(&nap, NULL, napper, NULL))
		return 1;
	kp_reader_loop();
	pthread_join(w, NULL);
	pthread_join(nap, NULL);
	printf("read_us %llu nap_us %llu writer_us %llu\n", read_us, nap_us, writer_us);
	fflush(stdout);
	for (;;)
		pause();
}
