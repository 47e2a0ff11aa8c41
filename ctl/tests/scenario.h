/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recordings of the decoding tests (tests/test-decode.c, golden
 * outputs in tests/golden/) and of the decoding benchmark
 * (tests/kp-gen.c), written with tests/gen.h under a root directory that
 * the commands read with --symfs ROOT --kallsyms ROOT/kallsyms
 * --debug-dir ROOT/debug:
 *
 *	/usr/bin/kp-app		non-PIE, .symtab
 *	/usr/bin/kp-pie		PIE, .symtab
 *	/usr/lib/libkp.so	shared object, .symtab, mapped at two addresses
 *	/usr/lib/libstripped.so	.dynsym only
 *	/usr/bin/kp-nosym	no symbols at all
 *	/usr/bin/kp-debug	no symbols, a build-id; debug/.build-id/... has them
 *	/usr/lib/notelf.so	not an ELF
 *	/usr/lib/trunc.so	an ELF cut after 100 bytes
 *	/tmp/perf-400.map	a JIT map
 *	/kallsyms		the kernel and a module [kpmod]
 *
 * The records are not in time order: CPUs' batches are interleaved and
 * pid 300's MMAP of kp-debug comes after the samples that need it.
 */
#ifndef KPROFCTL_TESTS_SCENARIO_H
#define KPROFCTL_TESTS_SCENARIO_H

#include "gen.h"
#include "tmpdir.h"

#define SC_T0		1000000000ULL		/* session start */
#define SC_MS		1000000ULL

#define APP_BASE	0x400000ULL
#define APP_MAP		(APP_BASE + GEN_TEXT_OFF)
#define LIB_MAP_100	0x7f0000001000ULL
#define LIB_MAP_200	0x7f1000001000ULL
#define STRIP_MAP	0x7f0000011000ULL
#define NOTELF_MAP	0x7f0000021000ULL
#define TRUNC_MAP	0x7f0000031000ULL
#define PIE_MAP		0x555555555000ULL
#define DBG_MAP		0x560000001000ULL
#define JIT_BASE	0x7f4000000000ULL

/* kp-app */
#define _START		(APP_MAP + 0x000)
#define MAIN		(APP_MAP + 0x100)
#define APP_OUTER	(APP_MAP + 0x200)
#define APP_MIDDLE	(APP_MAP + 0x300)
#define APP_LEAF	(APP_MAP + 0x400)
#define APP_SPIN	(APP_MAP + 0x600)
#define APP_READ	(APP_MAP + 0x700)
/* libkp.so, at pid 100's address */
#define LIB_ENTRY(m)	((m) + 0x000)
#define LIB_WORK(m)	((m) + 0x100)
#define LIB_HASH(m)	((m) + 0x300)
/* kp-pie */
#define PIE_MAIN	(PIE_MAP + 0x000)
#define PIE_WORK	(PIE_MAP + 0x100)
#define PIE_WEIRD	(PIE_MAP + 0x200)
/* kp-debug */
#define DBG_MAIN	(DBG_MAP + 0x000)
#define DBG_WORK	(DBG_MAP + 0x100)
/* the kernel */
#define K_ENTRY		0xffffffff81000100ULL
#define K_DO_SYSCALL	0xffffffff81000400ULL
#define K_KSYS_READ	0xffffffff81001000ULL
#define K_VFS_READ	0xffffffff81001400ULL
#define K_COPY		0xffffffff81002000ULL
#define K_IDLE		0xffffffff81004000ULL
#define K_IDLE_CALL	0xffffffff81004100ULL
#define K_DO_IDLE	0xffffffff81004200ULL
#define K_STARTUP	0xffffffff81004400ULL
#define K_MOD_READ	0xffffffffc0001000ULL
#define K_MOD_HELPER	0xffffffffc0001100ULL

static const unsigned char sc_build_id[20] = {
	0x4b, 0x50, 0x52, 0x4f, 0x46, 0x01, 0x02, 0x03, 0x04, 0x05,
	0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

static inline void sc__path(char *buf, size_t len, const char *root, const char *rel)
{
	snprintf(buf, len, "%s/%s", root, rel);
}

/* The files of the root directory (above); @root exists. */
static inline void sc__files(const char *root)
{
	static const struct gen_sym app[] = {
		{ "_start", 0x000, 0x40, true },
		{ "main", 0x100, 0x80, true },
		{ "app_outer", 0x200, 0x80, true },
		{ "app_middle", 0x300, 0x80, true },
		{ "app_leaf", 0x400, 0x100, true },
		{ "app_spin", 0x600, 0x40, false },
		{ "app_read", 0x700, 0x40, true },
	};
	static const struct gen_sym lib[] = {
		{ "lib_entry", 0x000, 0x100, true },
		{ "lib_work", 0x100, 0x200, true },
		{ "lib_hash", 0x300, 0x100, false },
	};
	static const struct gen_sym strip[] = {
		{ "exported_fn", 0x000, 0x80, true },
		{ "other_fn", 0x100, 0x80, true },
	};
	static const struct gen_sym pie[] = {
		{ "main", 0x000, 0x100, true },
		{ "pie_work", 0x100, 0x100, true },
		{ "weird;name(int)", 0x200, 0x40, true },
	};
	static const struct gen_sym dbg[] = {
		{ "dbg_main", 0x000, 0x100, true },
		{ "dbg_work", 0x100, 0x100, false },
	};
	struct gen_elf e = { .type = ET_EXEC, .base = APP_BASE, .text_size = 0x1000,
			     .syms = app, .nr_syms = KP_ARRAY_SIZE(app), .kind = GEN_SYMTAB };
	char path[4096], hex[64];
	unsigned int i;
	FILE *fp;

	tmpdir__mkdir(root, "usr/bin");
	tmpdir__mkdir(root, "usr/lib");
	tmpdir__mkdir(root, "tmp");
	sc__path(path, sizeof(path), root, "usr/bin/kp-app");
	gen__elf(path, &e);

	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .syms = lib,
			      .nr_syms = KP_ARRAY_SIZE(lib), .kind = GEN_SYMTAB };
	sc__path(path, sizeof(path), root, "usr/lib/libkp.so");
	gen__elf(path, &e);

	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .syms = strip,
			      .nr_syms = KP_ARRAY_SIZE(strip), .kind = GEN_DYNSYM };
	sc__path(path, sizeof(path), root, "usr/lib/libstripped.so");
	gen__elf(path, &e);

	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .syms = pie,
			      .nr_syms = KP_ARRAY_SIZE(pie), .kind = GEN_SYMTAB };
	sc__path(path, sizeof(path), root, "usr/bin/kp-pie");
	gen__elf(path, &e);

	e = (struct gen_elf){ .type = ET_EXEC, .base = APP_BASE, .text_size = 0x1000,
			      .kind = GEN_NOSYMS };
	sc__path(path, sizeof(path), root, "usr/bin/kp-nosym");
	gen__elf(path, &e);

	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .kind = GEN_NOSYMS,
			      .build_id = sc_build_id };
	sc__path(path, sizeof(path), root, "usr/bin/kp-debug");
	gen__elf(path, &e);
	for (i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", sc_build_id[i]);
	snprintf(path, sizeof(path), "debug/.build-id/%.2s", hex);
	tmpdir__mkdir(root, path);
	snprintf(path, sizeof(path), "%s/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .syms = dbg,
			      .nr_syms = KP_ARRAY_SIZE(dbg), .kind = GEN_SYMTAB,
			      .build_id = sc_build_id };
	gen__elf(path, &e);

	tmpdir__write(root, "usr/lib/notelf.so", "this is not an ELF file\n");
	/* an ELF cut short */
	sc__path(path, sizeof(path), root, "usr/lib/trunc.so");
	e = (struct gen_elf){ .type = ET_DYN, .text_size = 0x1000, .syms = lib,
			      .nr_syms = KP_ARRAY_SIZE(lib), .kind = GEN_SYMTAB };
	gen__elf(path, &e);
	if (truncate(path, 100))
		abort();

	tmpdir__write(root, "tmp/perf-400.map",
		      "7f4000000000 100 jit_compiled_fn\n"
		      "7f4000000100 80 Interpreter::run(int)\n"
		      "garbage line\n");
	tmpdir__write(root, "kallsyms",
		      "ffffffff81000000 T _stext\n"
		      "ffffffff81000100 T entry_SYSCALL_64\n"
		      "ffffffff81000400 T do_syscall_64\n"
		      "ffffffff81001000 T ksys_read\n"
		      "ffffffff81001400 T vfs_read\n"
		      "ffffffff81002000 t copy_page_to_iter\n"
		      "ffffffff81004000 T default_idle\n"
		      "ffffffff81004100 T default_idle_call\n"
		      "ffffffff81004200 T do_idle\n"
		      "ffffffff81004400 T cpu_startup_entry\n"
		      "ffffffff81005000 D some_data\n"
		      "ffffffff81006000 T _etext\n"
		      "ffffffffc0001000 t kpmod_read\t[kpmod]\n"
		      "ffffffffc0001100 t kpmod_helper\t[kpmod]\n");
	fp = NULL;
	(void)fp;
}

/* @n samples of one stack, @step ns apart from @t, on @cpu. */
static inline uint64_t sc__samples(struct gen_writer *g, unsigned int n, uint64_t t,
				   uint64_t step, uint32_t pid, uint32_t tid, uint32_t cpu,
				   uint16_t ev, uint64_t period, const uint64_t *ips,
				   unsigned int nk, unsigned int nu)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		gen__sample(g, t + i * step, pid, tid, cpu, ev, period, ips, nk, nu);
	return t + n * step;
}

#define SC_IPS(...)	((const uint64_t[]){ __VA_ARGS__ })

/* The golden recording: files under @root, kprof.data at @path. */
static inline void sc__golden(const char *root, const char *path)
{
	struct gen_writer g;
	const uint64_t t0 = SC_T0, ms = SC_MS;

	sc__files(root);
	gen__writer(&g, path, "kprof-gen", "kprofctl record -a -g -e cpu-clock,page-faults");

	/* side-band synthesized at start */
	gen__comm(&g, t0, 100, 100, "kp-app", false);
	gen__comm(&g, t0, 100, 101, "kp-app", false);
	gen__mmap(&g, t0, 100, APP_MAP, 0x1000, 0x1000, "/usr/bin/kp-app");
	gen__mmap(&g, t0, 100, LIB_MAP_100, 0x1000, 0x1000, "/usr/lib/libkp.so");
	gen__mmap(&g, t0, 100, STRIP_MAP, 0x1000, 0x1000, "/usr/lib/libstripped.so");
	gen__mmap(&g, t0, 100, NOTELF_MAP, 0x1000, 0x1000, "/usr/lib/notelf.so");
	gen__mmap(&g, t0, 100, TRUNC_MAP, 0x1000, 0x1000, "/usr/lib/trunc.so");
	gen__comm(&g, t0, 300, 300, "sh", false);
	gen__mmap(&g, t0, 300, APP_MAP, 0x1000, 0x1000, "/usr/bin/kp-nosym");
	gen__comm(&g, t0, 400, 400, "kp-jit", false);

	/* CPU 1's batch first, though later in time than CPU 0's */
	sc__samples(&g, 15, t0 + 10 * ms, 100000, 100, 100, 1, 0, 1000000,
		    SC_IPS(APP_SPIN + 8, APP_OUTER + 0x30, MAIN + 0x40, _START + 0x10), 0, 4);
	sc__samples(&g, 5, t0 + 12 * ms, 100000, 100, 100, 1, 0, 2000000,
		    SC_IPS(APP_SPIN + 8, APP_OUTER + 0x30, MAIN + 0x40, _START + 0x10), 0, 4);
	/* CPU 0 */
	sc__samples(&g, 40, t0 + 1 * ms, 100000, 100, 100, 0, 0, 1000000,
		    SC_IPS(APP_LEAF + 0x10, APP_MIDDLE + 0x20, APP_OUTER + 0x30, MAIN + 0x40,
			   _START + 0x10), 0, 5);
	sc__samples(&g, 6, t0 + 6 * ms, 100000, 100, 100, 0, 0, 1000000,
		    SC_IPS(STRIP_MAP + 0x10, LIB_HASH(LIB_MAP_100) + 4, APP_MIDDLE + 0x20,
			   MAIN + 0x40, _START + 0x10), 0, 5);
	sc__samples(&g, 3, t0 + 7 * ms, 100000, 100, 100, 0, 0, 1000000,
		    SC_IPS(NOTELF_MAP + 0x40, TRUNC_MAP + 0x20, APP_LEAF + 0x30, MAIN + 0x40),
		    0, 4);
	sc__samples(&g, 2, t0 + 8 * ms, 100000, 100, 100, 0, 0, 1000000,
		    SC_IPS(0x12345678, MAIN + 0x40), 0, 2);
	gen__sample_ip(&g, t0 + 9 * ms, 100, 100, 0, 1000000, APP_LEAF + 0x20, false);
	gen__sample_ip(&g, t0 + 9 * ms + 1, 100, 100, 0, 1000000, APP_LEAF + 0x20, false);
	sc__samples(&g, 7, t0 + 9 * ms + 10, 1000, 100, 100, 0, 1, 1,
		    SC_IPS(APP_LEAF + 0x18, APP_MIDDLE + 0x20, APP_OUTER + 0x30, MAIN + 0x40,
			   _START + 0x10), 0, 5);

	/* thread 101: renamed at 3 ms */
	sc__samples(&g, 5, t0 + 2 * ms, 100000, 100, 101, 2, 0, 1000000,
		    SC_IPS(APP_LEAF + 0x10, APP_MIDDLE + 0x20, APP_OUTER + 0x30, MAIN + 0x40,
			   _START + 0x10), 0, 5);
	gen__comm(&g, t0 + 3 * ms, 100, 101, "kp-worker", false);
	sc__samples(&g, 15, t0 + 3 * ms + 1000, 100000, 100, 101, 2, 0, 1000000,
		    SC_IPS(K_COPY + 0x20, K_VFS_READ + 0x10, K_KSYS_READ + 0x30,
			   K_DO_SYSCALL + 0x40, K_ENTRY + 0x60,
			   LIB_WORK(LIB_MAP_100) + 0x50, LIB_ENTRY(LIB_MAP_100) + 0x10,
			   APP_READ + 8, MAIN + 0x40, _START + 0x10), 5, 5);
	sc__samples(&g, 3, t0 + 5 * ms, 100000, 100, 101, 2, 0, 1000000,
		    SC_IPS(K_MOD_READ + 0x10, K_MOD_HELPER + 4, K_VFS_READ + 0x10,
			   K_DO_SYSCALL + 0x40, APP_READ + 8, MAIN + 0x40), 4, 2);
	sc__samples(&g, 1, t0 + 5 * ms + 500000, 1, 100, 101, 2, 0, 1000000,
		    SC_IPS(0xffffffff80000010ULL, K_DO_SYSCALL + 0x40, APP_READ + 8), 2, 1);
	gen__lost(&g, t0 + 6 * ms, 2, 5);

	/* pid 200: forked from 100, exec'd kp-pie */
	gen__fork(&g, t0 + 2 * ms, 200, 200, 100, 100);
	gen__mmap(&g, t0 + 2 * ms + 500, 200, PIE_MAP, 0x1000, 0x1000, "/usr/bin/kp-pie");
	gen__mmap(&g, t0 + 2 * ms + 600, 200, LIB_MAP_200, 0x1000, 0x1000, "/usr/lib/libkp.so");
	gen__comm(&g, t0 + 2 * ms + 700, 200, 200, "kp-pie", true);
	sc__samples(&g, 10, t0 + 4 * ms, 100000, 200, 200, 3, 0, 1000000,
		    SC_IPS(LIB_WORK(LIB_MAP_200) + 0x20, PIE_WORK + 0x10, PIE_MAIN + 0x20), 0, 3);
	sc__samples(&g, 4, t0 + 5 * ms, 100000, 200, 200, 3, 0, 1000000,
		    SC_IPS(PIE_WEIRD + 4, PIE_WORK + 0x10, PIE_MAIN + 0x20), 0, 3);
	sc__samples(&g, 3, t0 + 6 * ms, 1000, 200, 200, 3, 1, 1,
		    SC_IPS(PIE_WORK + 0x30, PIE_MAIN + 0x20), 0, 2);

	/* pid 300: samples before and after its exec, before the MMAP record */
	sc__samples(&g, 4, t0 + 1 * ms, 100000, 300, 300, 1, 0, 1000000,
		    SC_IPS(APP_MAP + 0x123, APP_MAP + 0x456), 0, 2);
	sc__samples(&g, 8, t0 + 16 * ms, 100000, 300, 300, 1, 0, 1000000,
		    SC_IPS(DBG_WORK + 0x10, DBG_MAIN + 0x20), 0, 2);
	gen__mmap(&g, t0 + 15 * ms, 300, DBG_MAP, 0x1000, 0x1000, "/usr/bin/kp-debug");
	gen__comm(&g, t0 + 15 * ms + 100, 300, 300, "kp-debug", true);

	/* the idle task, and a sample without a call chain */
	sc__samples(&g, 12, t0 + 1 * ms + 50000, 100000, 0, 0, 3, 0, 1000000,
		    SC_IPS(K_IDLE + 5, K_IDLE_CALL + 0x10, K_DO_IDLE + 0x20, K_STARTUP + 0x30),
		    4, 0);
	gen__sample_ip(&g, t0 + 3 * ms + 50000, 0, 0, 3, 1000000, K_IDLE + 5, true);

	/* JIT code */
	sc__samples(&g, 3, t0 + 7 * ms, 100000, 400, 400, 0, 0, 1000000,
		    SC_IPS(JIT_BASE + 0x10, JIT_BASE + 0x120, JIT_BASE + 0x1000), 0, 3);

	gen__finish(&g, t0 + 20 * ms);
}

#endif /* KPROFCTL_TESTS_SCENARIO_H */
