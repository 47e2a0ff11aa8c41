// SPDX-License-Identifier: GPL-2.0
/*
 * Writes bp_var N times (argv[1], default 1000), for the hardware
 * breakpoint test (kprof_record_test.sh): built without PIE, so that
 * nm's address of bp_var is the one it runs at.
 */
#include <stdlib.h>

volatile int bp_var;

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 1000;

	for (i = 0; i < n; i++)
		bp_var = i;
	return 0;
}
