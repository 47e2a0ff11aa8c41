// SPDX-License-Identifier: GPL-2.0
/*
 * Touch PAGES fresh anonymous pages, one write each: at least PAGES page
 * faults (no transparent huge pages), for the counting tests.
 *
 * Usage: stat_touch PAGES
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	return 0;
}
