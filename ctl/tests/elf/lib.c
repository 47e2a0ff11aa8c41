// SPDX-License-Identifier: GPL-2.0
/* A shared object for the symbol tests (tests/test-symbols.c). */

volatile int kpt_lib_sink;

static __attribute__((noinline)) int kpt_lib_static(int n)
{
	return n * kpt_lib_sink;
}

__attribute__((noinline)) int kpt_lib_work(int n)
{
	return kpt_lib_static(n) + 3;
}

int kpt_lib_entry(int n)
{
	return kpt_lib_work(n) - 1;
}
