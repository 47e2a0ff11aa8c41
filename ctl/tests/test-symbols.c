// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of lib/symbols.c and lib/machine.c against ELF files built by the
 * toolchain (the Makefile's $(TEST_ELFS), from tests/elf/): non-PIE, PIE,
 * a shared object, a stripped one with only .dynsym, and a stripped PIE
 * whose symbols are in a debug file found by build-id under a temporary
 * debug root.  The expected addresses come from nm.  Then kallsyms, JIT
 * maps, and damaged ELF files, which must degrade to no symbols.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elf-maps.h"
#include "lib/machine.h"
#include "lib/srcline.h"
#include "lib/symbols.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static const char *elf_dir;
static char root[64];

struct nm_sym {
	uint64_t	addr;
	char		name[128];
};

/* Function symbols named kpt_* or main in @file.nm. */
static int read_nm(const char *file, struct nm_sym *out, int max)
{
	char path[512], line[256], type, name[128];
	unsigned long long addr;
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/%s.nm", elf_dir, file);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp) && n < max) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if ((type != 'T' && type != 't') ||
		    (strncmp(name, "kpt_", 4) && strcmp(name, "main")))
			continue;
		out[n].addr = addr;
		snprintf(out[n].name, sizeof(out[n].name), "%s", name);
		n++;
	}
	fclose(fp);
	return n;
}

/* File offset of @vaddr through the PT_LOAD headers of @path, read here. */
static uint64_t file_offset(const char *path, uint64_t vaddr)
{
	uint64_t off = UINT64_MAX;
	size_t i, nph;
	int fd = open(path, O_RDONLY);
	Elf *elf;

	if (fd < 0)
		return off;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getphdrnum(elf, &nph)) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz)
				off = vaddr - ph.p_vaddr + ph.p_offset;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return off;
}

static void elf_path(char *buf, size_t len, const char *file)
{
	snprintf(buf, len, "%s/%s", elf_dir, file);
}

/*
 * Function @fn of @file: its source line (in @src, from @decl to @decl + 3)
 * and its declaration at @src:@decl; none when @decl is 0 (no line tables).
 */
static void check_srcline(struct kp_srcline *sl, const char *file, const char *debug_dir,
			  const char *fn, const char *src, int decl)
{
	const struct kp_sym *sym = NULL;
	const char *at = NULL, *decl_file = NULL;
	int line = 0, decl_line = 0;
	struct kp_dso *dso;
	char path[512];
	bool good;
	size_t i;

	elf_path(path, sizeof(path), file);
	dso = kp_dso__new(path);
	if (!kp_dso__load_elf(dso, path, debug_dir))
		for (i = 0; i < dso->nr_syms; i++)
			if (!strcmp(dso->syms[i].name, fn))
				sym = &dso->syms[i];
	if (!decl) {
		ok(sym && !kp_srcline__find(sl, dso, sym->start + 1, &at, &line) &&
		   !kp_srcline__function(sl, dso, sym->start + 1, &decl_file, &decl_line),
		   "%s: %s found, no line tables, no source line", file, fn);
		kp_dso__delete(dso);
		return;
	}
	good = sym && kp_srcline__find(sl, dso, sym->start + 1, &at, &line) &&
	       strstr(at, src) && line >= decl && line <= decl + 3;
	ok(good, "%s: %s+1 is in %s, lines %d-%d (%s:%d)", file, fn, src, decl, decl + 3,
	   at ? at : "none", line);
	good = sym && kp_srcline__function(sl, dso, sym->start + 1, &decl_file, &decl_line) &&
	       strstr(decl_file, src) && decl_line == decl;
	ok(good, "%s: %s is declared at %s:%d (%s:%d)", file, fn, src, decl,
	   decl_file ? decl_file : "none", decl_line);
	kp_dso__delete(dso);
}

/* Source lines (lib/srcline.h): in the file, in its debug file, or none. */
static void check_srclines(const char *debug_dir)
{
	struct kp_srcline *sl = kp_srcline__new(debug_dir);
	const char *prog = "tests/elf/prog.c", *lib = "tests/elf/lib.c";

	check_srcline(sl, "nopie", NULL, "kpt_middle", prog, 15);
	check_srcline(sl, "pie", NULL, "kpt_middle", prog, 15);
	check_srcline(sl, "debugged", debug_dir, "kpt_middle", prog, 15);
	check_srcline(sl, "libkpt.so", NULL, "kpt_lib_work", lib, 11);
	check_srcline(sl, "stripped.so", NULL, "kpt_lib_work", lib, 0);
	ok(!kp_srcline__find(sl, NULL, 0x1000, NULL, NULL), "no DSO: no source line");
	kp_srcline__delete(sl);
}

/*
 * Load @file and check every function of @nm_file: its file offset maps
 * back to its address and it resolves to its name.  @hidden: names that
 * must not resolve (static functions of a stripped file).
 */
static void check_dso(const char *file, const char *nm_file, const char *debug_dir,
		      enum kp_dso_origin origin, const char * const *hidden)
{
	struct nm_sym syms[32];
	struct kp_dso *dso;
	char path[512];
	int n, i, good = 0, mapped = 0;

	elf_path(path, sizeof(path), file);
	dso = kp_dso__new(path);
	is_int(kp_dso__load_elf(dso, path, debug_dir), 0, "%s: loads", file);
	is_int(dso->origin, origin, "%s: symbols from the expected table", file);
	ok(dso->build_id_len == 20, "%s: build-id read", file);
	n = read_nm(nm_file, syms, 32);
	ok(n >= 3, "%s: nm lists the test functions (%d)", file, n);
	for (i = 0; i < n; i++) {
		const struct kp_sym *s;
		bool is_hidden = false;
		int h;

		for (h = 0; hidden && hidden[h]; h++)
			is_hidden |= !strcmp(hidden[h], syms[i].name);
		mapped += kp_dso__map_ip(dso, file_offset(path, syms[i].addr)) == syms[i].addr;
		s = kp_dso__find(dso, syms[i].addr + 1);
		if (is_hidden) {
			if (!s || strcmp(s->name, syms[i].name))
				good++;
			else
				diag("%s: %s resolved", file, syms[i].name);
		} else if (s && !strcmp(s->name, syms[i].name) && s->start == syms[i].addr) {
			good++;
		} else {
			diag("%s: %s at 0x%" PRIx64 " -> %s", file, syms[i].name, syms[i].addr,
			     s ? s->name : "NULL");
		}
	}
	is_int(mapped, n, "%s: file offsets map to ELF addresses", file);
	is_int(good, n, "%s: every function resolves to itself", file);
	kp_dso__delete(dso);
}

struct add_mmaps {
	struct kp_machine	*m;
	uint32_t		pid;
	const char		*name;
	uint64_t		time;
};

static void add_mmap(uint64_t start, uint64_t len, uint64_t pgoff, void *arg)
{
	struct add_mmaps *a = arg;
	uint64_t buf[64] = { 0 };
	struct kp_rec_mmap *rec = (void *)buf;

	rec->header.type = KPROF_RECORD_MMAP;
	rec->header.size = (sizeof(*rec) + strlen(a->name) + 1 + 7) & ~7UL;
	rec->time = a->time;
	rec->pid = rec->tid = a->pid;
	rec->start = start;
	rec->len = len;
	rec->pgoff = pgoff;
	strcpy(rec->filename, a->name);
	if (kp_machine__add(a->m, &rec->header))
		abort();
}

/* The kernel's MMAP records of @file's executable segments at @bias. */
static void add_mmaps(struct kp_machine *m, uint32_t pid, const char *name, const char *path,
		      uint64_t bias, uint64_t time)
{
	struct add_mmaps a = { m, pid, name, time };

	elf_maps__exec(path, bias, add_mmap, &a);
}

/* Resolve @file's functions loaded at @bias in a process, through the machine. */
static void check_process(const char *file, uint64_t bias)
{
	struct kp_machine_opts opts = { .no_kernel = true, .symfs = elf_dir };
	uint64_t buf[32] = { 0 };
	struct kp_rec_sample *s = (void *)buf;
	struct kp_resolved *res = malloc(sizeof(*res));
	struct kp_machine *m = kp_machine__new(&opts);
	struct nm_sym syms[32];
	char path[512], name[64];
	int n, i, good = 0;

	elf_path(path, sizeof(path), file);
	snprintf(name, sizeof(name), "/%s", file);
	add_mmaps(m, 42, name, path, bias, 100);
	is_int(kp_machine__prepare(m), 0, "%s at 0x%" PRIx64 ": side-band applied", file, bias);
	n = read_nm(file, syms, 32);
	for (i = 0; i < n; i++) {
		s->header.type = KPROF_RECORD_SAMPLE;
		s->header.misc = KPROF_MISC_USER;
		s->pid = s->tid = 42;
		s->time = 200;
		s->nr_user = 2;
		s->ips[0] = bias + syms[i].addr + 2;
		s->ips[1] = bias + syms[i].addr;
		kp_machine__resolve(m, s, res, 0);
		if (res->nr_frames == 2 && res->frames[0].sym && res->frames[1].sym &&
		    !strcmp(res->frames[0].sym->name, syms[i].name) &&
		    res->frames[0].dso_addr == syms[i].addr + 2 && res->frames[0].dso &&
		    !strcmp(res->frames[0].dso->name, name))
			good++;
		else
			diag("%s: %s not resolved in the process", file, syms[i].name);
	}
	ok(n > 0 && good == n, "%s at 0x%" PRIx64 ": %d of %d functions resolved", file, bias,
	   good, n);
	kp_machine__delete(m);
	free(res);
}

static void test_elves(void)
{
	static const char * const lib_static[] = { "kpt_lib_static", NULL };
	static const char * const prog_static[] = { "kpt_leaf", NULL };
	char dbg[512], dir[512], src[512], hex[64], *buf;
	unsigned char id[20];
	size_t size;
	int i, n, fd;

	check_dso("nopie", "nopie", NULL, KP_DSO_SYMTAB, NULL);
	check_dso("pie", "pie", NULL, KP_DSO_SYMTAB, NULL);
	check_dso("libkpt.so", "libkpt.so", NULL, KP_DSO_SYMTAB, NULL);
	check_dso("stripped.so", "libkpt.so", NULL, KP_DSO_DYNSYM, lib_static);

	/* the debug file, under a temporary debug root */
	elf_path(src, sizeof(src), "debugged");
	n = kp_elf__build_id(src, id, sizeof(id));
	is_int(n, 20, "debugged: build-id of the stripped file");
	for (i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(dir, sizeof(dir), "debug/.build-id/%.2s", hex);
	tmpdir__mkdir(root, dir);
	snprintf(dbg, sizeof(dbg), "%s/debug/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	elf_path(src, sizeof(src), "debugged.debug");
	buf = tmpdir__slurp(src, &size);
	fd = open(dbg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (!buf || fd < 0 || write(fd, buf, size) != (ssize_t)size || close(fd))
		abort();
	free(buf);
	snprintf(dir, sizeof(dir), "%s/debug", root);
	check_dso("debugged", "debugged", dir, KP_DSO_DEBUG, NULL);
	check_srclines(dir);
	/* without it: nothing for its static functions */
	snprintf(dir, sizeof(dir), "%s/no-debug", root);
	{
		struct kp_dso *dso;

		elf_path(src, sizeof(src), "debugged");
		dso = kp_dso__new(src);
		kp_dso__load_elf(dso, src, dir);
		ok(dso->origin != KP_DSO_DEBUG && dso->origin != KP_DSO_SYMTAB,
		   "debugged without its debug file: no .symtab");
		kp_dso__delete(dso);
	}
	(void)prog_static;

	check_process("nopie", 0);
	check_process("pie", 0x555555554000ULL);
	check_process("libkpt.so", 0x7f1234560000ULL);
}

static void test_damaged(void)
{
	char src[512], dst[512], *buf;
	int fd, crashes = 0, tries = 0;
	size_t size;
	off_t len;

	elf_path(src, sizeof(src), "libkpt.so");
	buf = tmpdir__slurp(src, &size);
	if (!buf)
		abort();
	snprintf(dst, sizeof(dst), "%s/damaged.so", root);
	for (len = 0; len < (off_t)size; len += len < 128 ? 7 : 997) {
		struct kp_dso *dso;

		fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, buf, len) != len || close(fd))
			abort();
		dso = kp_dso__new(dst);
		kp_dso__load_elf(dso, dst, NULL);
		kp_dso__find(dso, 0x1120);
		kp_dso__map_ip(dso, 0x1120);
		crashes += dso->nr_syms > 1000;
		kp_dso__delete(dso);
		tries++;
	}
	is_int(crashes, 0, "truncated ELF, %d lengths: loaded or empty", tries);
	free(buf);

	tmpdir__write(root, "text.so", "#!/bin/sh\necho not an ELF\n");
	snprintf(dst, sizeof(dst), "%s/text.so", root);
	{
		struct kp_dso *dso = kp_dso__new(dst);

		ok(kp_dso__load_elf(dso, dst, NULL) < 0 && !dso->nr_syms &&
		   !kp_dso__find(dso, 0x10), "not an ELF: no symbols, an error");
		kp_dso__delete(dso);
		dso = kp_dso__new("/nonexistent/file.so");
		ok(kp_dso__load_elf(dso, "/nonexistent/file.so", NULL) == -ENOENT &&
		   !kp_dso__find(dso, 0x10), "missing file: -ENOENT, no symbols");
		kp_dso__delete(dso);
	}
}

static void test_kallsyms(void)
{
	struct kp_kernel k;
	struct kp_dso *dso;
	const struct kp_sym *s;
	char path[256];

	tmpdir__write(root, "kallsyms",
		      "ffffffff81000000 T _stext\n"
		      "ffffffff81000010 t local_fn\n"
		      "ffffffff81000020 W weak_fn\n"
		      "ffffffff81000100 D data_thing\n"
		      "ffffffff81000200 T after_data\n"
		      "bogus line\n"
		      "ffffffffc0000000 t mod_fn\t[mymod]\n"
		      "ffffffffc0000100 t other_fn\t[othermod]\n");
	snprintf(path, sizeof(path), "%s/kallsyms", root);
	is_int(kp_kernel__load(&k, path), 0, "kallsyms: loads");
	is_int(k.nr_syms, 6, "kallsyms: text symbols only");
	is_int(k.nr_mods, 2, "kallsyms: two modules");
	s = kp_kernel__find(&k, 0xffffffff81000015ULL, &dso);
	ok(s && !strcmp(s->name, "local_fn") && !strcmp(dso->name, "[kernel.kallsyms]"),
	   "kallsyms: local symbol in the kernel");
	s = kp_kernel__find(&k, 0xffffffff81000150ULL, &dso);
	ok(s && !strcmp(s->name, "weak_fn"), "kallsyms: data symbols do not split functions");
	s = kp_kernel__find(&k, 0xffffffffc0000004ULL, &dso);
	ok(s && !strcmp(s->name, "mod_fn") && !strcmp(dso->name, "[mymod]") && dso->kernel,
	   "kallsyms: module symbol, module DSO");
	s = kp_kernel__find(&k, 0xffffffff80000000ULL, &dso);
	ok(!s && dso == k.kernel, "kallsyms: below the first symbol: unknown, kernel DSO");
	s = kp_kernel__find(&k, 0xffffffff81000015ULL, &dso);
	ok(s && !strcmp(s->name, "local_fn"), "kallsyms: cached lookup");
	kp_kernel__exit(&k);

	tmpdir__write(root, "kallsyms0", "0000000000000000 T _stext\n0000000000000000 t x\n");
	snprintf(path, sizeof(path), "%s/kallsyms0", root);
	is_int(kp_kernel__load(&k, path), 0, "kptr_restrict kallsyms: loads");
	ok(k.restricted && !k.nr_syms, "kptr_restrict kallsyms: detected");
	kp_kernel__exit(&k);
	is_int(kp_kernel__load(&k, "/nonexistent/kallsyms"), 0, "missing kallsyms: 0");
	ok(k.missing, "missing kallsyms: detected");
	kp_kernel__exit(&k);
}

static void test_perf_map(void)
{
	struct kp_dso *dso = kp_dso__new("/tmp/perf-1.map");
	const struct kp_sym *s;
	char path[256];

	tmpdir__write(root, "perf-1.map",
		      "1000 10 first\n"
		      "1010 20 second with spaces\n"
		      "zzz 10 bad\n"
		      "2000 0 empty\n"
		      "3000 8 third\r\n");
	snprintf(path, sizeof(path), "%s/perf-1.map", root);
	is_int(kp_dso__load_perf_map(dso, path), 0, "perf map: loads");
	is_int(dso->nr_syms, 3, "perf map: bad lines skipped");
	s = kp_dso__find(dso, 0x1015);
	ok(s && !strcmp(s->name, "second with spaces"), "perf map: names with spaces");
	ok(!kp_dso__find(dso, 0x1030), "perf map: gaps are unknown");
	s = kp_dso__find(dso, 0x3004);
	ok(s && !strcmp(s->name, "third"), "perf map: CRLF");
	kp_dso__delete(dso);
}

/*
 * A live process in another root (a chroot here, a mount namespace alike):
 * its MMAP path exists only under /proc/PID/root.
 */
static void test_proc_root(void)
{
	struct kp_machine_opts opts = { .no_kernel = true, .proc_root = true };
	uint64_t buf[16] = { 0 };
	struct kp_rec_sample *s = (void *)buf;
	char croot[128], host[256] = "", rel[128] = "";
	struct kp_resolved *res;
	struct kp_machine *m;
	int go[2], status;
	FILE *fp;
	pid_t pid;

	snprintf(croot, sizeof(croot), "%s/chroot", root);
	tmpdir__mkdir(root, "chroot");
	sc__files(croot);
	if (pipe(go))
		abort();
	pid = fork();
	if (!pid) {
		char c;

		close(go[1]);
		if (chroot(croot))
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	usleep(100000);
	if (waitpid(pid, &status, WNOHANG) == pid) {
		ok(1, "# SKIP chroot not permitted");
		close(go[1]);
		return;
	}
	gethostname(host, sizeof(host) - 1);
	fp = fopen("/proc/sys/kernel/osrelease", "r");
	if (fp) {
		if (fgets(rel, sizeof(rel), fp))
			rel[strcspn(rel, "\n")] = '\0';
		fclose(fp);
	}
	m = kp_machine__new(&opts);
	res = malloc(sizeof(*res));
	kp_machine__set_origin(m, host, rel);
	{
		uint64_t mb[16] = { 0 };
		struct kp_rec_mmap *mm = (void *)mb;

		mm->header.type = KPROF_RECORD_MMAP;
		mm->header.size = sizeof(*mm) + 16;
		mm->time = 10;
		mm->pid = mm->tid = pid;
		mm->start = APP_MAP;
		mm->len = 0x1000;
		mm->pgoff = GEN_TEXT_OFF;
		strcpy(mm->filename, "/usr/bin/kp-app");
		kp_machine__add(m, &mm->header);
	}
	kp_machine__prepare(m);
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_USER;
	s->pid = s->tid = pid;
	s->time = 20;
	s->nr_user = 1;
	s->ips[0] = APP_LEAF + 4;
	kp_machine__resolve(m, s, res, 0);
	ok(res->frames[0].sym && !strcmp(res->frames[0].sym->name, "app_leaf") &&
	   !strcmp(res->frames[0].dso->name, "/usr/bin/kp-app"),
	   "live process in another root: read through /proc/PID/root");
	kp_machine__delete(m);
	free(res);
	if (write(go[1], "x", 1) != 1)
		abort();
	close(go[1]);
	waitpid(pid, &status, 0);
}

int main(void)
{
	elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	tmpdir__create(root, sizeof(root));
	test_elves();
	test_damaged();
	test_kallsyms();
	test_perf_map();
	test_proc_root();
	tmpdir__remove(root);
	return done_testing();
}
