// SPDX-License-Identifier: GPL-2.0
/* A program for the symbol tests (tests/test-symbols.c): a known call chain. */

volatile int kpt_sink;

static __attribute__((noinline)) int kpt_leaf(int n)
{
	int i, s = 0;

	for (i = 0; i < n; i++)
		s += i * kpt_sink;
	return s;
}

__attribute__((noinline)) int kpt_middle(int n)
{
	return kpt_leaf(n) + 1;
}

__attribute__((noinline)) int kpt_outer(int n)
{
	return kpt_middle(n) * 2;
}

__attribute__((noinline)) void kpt_spin(void)
{
	kpt_sink++;
}

int main(int argc, char **argv)
{
	(void)argv;
	kpt_spin();
	return kpt_outer(argc) & 1;
}
