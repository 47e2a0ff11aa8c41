// SPDX-License-Identifier: GPL-2.0
/*
 * kp-gen: write a large recording for the decoding benchmark
 * (tests/bench-decode.sh): the files of tests/scenario.h under DIR/root,
 * plus /usr/bin/kp-bench with 2048 functions, and DIR/kprof.data with
 * NR samples of DEPTH user frames (and up to 12 kernel frames), drawn from
 * 4096 distinct stacks, over 4 CPUs and 8 threads.
 *
 * usage: kp-gen DIR NR [DEPTH]
 */
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

#define NR_FUNCS	2048
#define NR_STACKS	4096
#define BENCH_BASE	0x400000ULL
#define BENCH_MAP	(BENCH_BASE + GEN_TEXT_OFF)

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

int main(int argc, char **argv)
{
	static const uint64_t kframes[] = {
		K_COPY + 0x20, K_VFS_READ + 0x10, K_KSYS_READ + 0x30, K_DO_SYSCALL + 0x40,
		K_ENTRY + 0x60, K_MOD_READ + 8, K_MOD_HELPER + 4, K_IDLE + 5, K_IDLE_CALL + 0x10,
		K_DO_IDLE + 0x20, K_STARTUP + 0x30, K_VFS_READ + 0x30,
	};
	static struct gen_sym syms[NR_FUNCS];
	static char names[NR_FUNCS][24];
	uint64_t (*stacks)[2 * 127], nr, i, t;
	unsigned int depth = 40, nk[NR_STACKS], nu[NR_STACKS];
	char root[512], path[1024];
	struct gen_elf e = { .type = ET_EXEC, .base = BENCH_BASE, .text_size = NR_FUNCS * 0x40,
			     .syms = syms, .nr_syms = NR_FUNCS, .kind = GEN_SYMTAB };
	struct gen_writer g;
	unsigned int s, f;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: kp-gen DIR NR [DEPTH]\n");
		return 2;
	}
	nr = strtoull(argv[2], NULL, 0);
	if (argc == 4)
		depth = strtoul(argv[3], NULL, 0);
	if (depth < 2 || depth > 100 || snprintf(root, sizeof(root), "%s/root", argv[1]) >=
	    (int)sizeof(root)) {
		fprintf(stderr, "kp-gen: bad DEPTH or DIR\n");
		return 2;
	}
	tmpdir__mkdir(argv[1], "root");
	sc__files(root);
	for (f = 0; f < NR_FUNCS; f++) {
		snprintf(names[f], sizeof(names[f]), "bench_fn_%04u", f);
		syms[f] = (struct gen_sym){ names[f], f * 0x40, 0x40, f & 1 };
	}
	snprintf(path, sizeof(path), "%s/usr/bin/kp-bench", root);
	gen__elf(path, &e);

	stacks = calloc(NR_STACKS, sizeof(*stacks));
	if (!stacks)
		return 1;
	for (s = 0; s < NR_STACKS; s++) {
		nk[s] = s % 3 ? 0 : 4 + rnd() % 8;
		nu[s] = depth / 2 + rnd() % (depth / 2 + 1);
		for (f = 0; f < nk[s]; f++)
			stacks[s][f] = kframes[(s + f) % KP_ARRAY_SIZE(kframes)];
		/* a common base of callers, a varied tip */
		for (f = 0; f < nu[s]; f++) {
			unsigned int fn = f + 8 < nu[s] ? (nu[s] - f) * 7 % NR_FUNCS :
				rnd() % NR_FUNCS;

			stacks[s][nk[s] + f] = BENCH_MAP + fn * 0x40 + 1 + rnd() % 0x30;
		}
	}

	snprintf(path, sizeof(path), "%s/kprof.data", argv[1]);
	gen__writer(&g, path, "kprof-gen", "kprofctl record -a -g");
	for (i = 0; i < 8; i++) {
		gen__comm(&g, SC_T0, 1000 + i / 2, 1000 + i, i & 1 ? "bench-worker" : "kp-bench",
			  false);
		if (!(i & 1)) {
			gen__mmap(&g, SC_T0, 1000 + i / 2, BENCH_MAP, NR_FUNCS * 0x40, GEN_TEXT_OFF,
				  "/usr/bin/kp-bench");
			gen__mmap(&g, SC_T0, 1000 + i / 2, LIB_MAP_100, 0x1000, 0x1000,
				  "/usr/lib/libkp.so");
		}
	}
	for (i = 0, t = SC_T0; i < nr; i++, t += 1000) {
		uint64_t tid = 1000 + rnd() % 8;

		s = rnd() % NR_STACKS;
		/* skew: a few stacks are hot */
		if (rnd() % 4)
			s %= 64;
		gen__sample(&g, t, 1000 + (tid - 1000) / 2, tid, i % 4, 0, 1000000, stacks[s], nk[s],
			    nu[s]);
	}
	gen__finish(&g, t);
	free(stacks);
	return 0;
}
