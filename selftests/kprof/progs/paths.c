// SPDX-License-Identifier: GPL-2.0
/*
 * paths: 4,096 distinct call paths, one after the other, each spinning for
 * about a millisecond of this thread's CPU time, so that a 4999 Hz sampler
 * sees every one of them: the capacity of kprof's aggregation tables
 * (kprof_memory_test.sh).  Path p descends twelve levels; at level k it
 * goes through walk_k_1() when bit k of p is set, else walk_k_0(), and
 * spins in spin() at the bottom.
 *
 * usage: paths [SWEEPS [MS_PER_PATH]]	(defaults 2 and 1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LEVELS	12
#define PATHS	(1U << LEVELS)

static volatile unsigned long sink;
static unsigned long spins;	/* iterations of spin() per path */

/*
 * One loop of one basic block, so that a sample's address in it is one.
 * A leaf: its frame (taking its address makes one whatever gcc does with
 * -mno-omit-leaf-frame-pointer) is what names its caller, walk_11_*.
 */
static __attribute__((noipa)) void spin(void)
{
	unsigned long n = spins;

	sink = (unsigned long)__builtin_frame_address(0);
	asm volatile("1: dec %0; jnz 1b" : "+r"(n));
}

static void descend(unsigned int path, unsigned int level);

/*
 * Two functions per level whose bodies differ (the stored id), so that no
 * pass folds them into one; the store after the call keeps it from being
 * a tail call, whose frame would vanish from the chain.
 */
#define LEVEL(k)								\
static __attribute__((noipa)) void walk_##k##_0(unsigned int path)	\
{									\
	descend(path, (k) + 1);						\
	sink = 2 * (k);							\
}									\
static __attribute__((noipa)) void walk_##k##_1(unsigned int path)	\
{									\
	descend(path, (k) + 1);						\
	sink = 2 * (k) + 1;						\
}

LEVEL(0) LEVEL(1) LEVEL(2) LEVEL(3) LEVEL(4) LEVEL(5)
LEVEL(6) LEVEL(7) LEVEL(8) LEVEL(9) LEVEL(10) LEVEL(11)

#define PAIR(k)	{ walk_##k##_0, walk_##k##_1 }
static void (*const walks[LEVELS][2])(unsigned int) = {
	PAIR(0), PAIR(1), PAIR(2), PAIR(3), PAIR(4), PAIR(5),
	PAIR(6), PAIR(7), PAIR(8), PAIR(9), PAIR(10), PAIR(11),
};

static __attribute__((noipa)) void descend(unsigned int path, unsigned int level)
{
	if (level == LEVELS)
		spin();
	else
		walks[level][(path >> level) & 1](path);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned int sweeps = argc > 1 ? atoi(argv[1]) : 2;
	double ms = argc > 2 ? atof(argv[2]) : 1.0;
	unsigned int s, p;
	double t0, t1;

	/* iterations per millisecond of this thread's CPU time */
	spins = 1000000;
	do {
		spins *= 2;
		t0 = cpu_seconds();
		spin();
		t1 = cpu_seconds();
	} while (t1 - t0 < 0.05);
	spins = (unsigned long)(spins * ms / 1000.0 / (t1 - t0)) + 1;

	t0 = cpu_seconds();
	for (s = 0; s < sweeps; s++)
		for (p = 0; p < PATHS; p++)
			descend(p, 0);
	t1 = cpu_seconds();
	printf("paths: %u paths x %u sweeps in %.2f s of CPU (%.3f ms each)\n", PATHS, sweeps,
	       t1 - t0, (t1 - t0) * 1000 / PATHS / sweeps);
	return 0;
}
