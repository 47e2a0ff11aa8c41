/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A generator of recordings for the decoding tests and benchmarks: small
 * ELF files written byte by byte (so that their layout does not depend on
 * the compiler), a kallsyms file, and kprof.data files written with the
 * data.c writer, with synthetic processes, MMAPs of the ELF files and
 * samples of known stacks.
 *
 *	gen__elf(path, &elf);			an ELF with chosen symbols
 *	w = gen__writer(path, hostname);	kprof.data with two events
 *	gen__comm(w, ...); gen__mmap(w, ...); gen__sample(w, ...);
 *	gen__finish(w);
 */
#ifndef KPROFCTL_TESTS_GEN_H
#define KPROFCTL_TESTS_GEN_H

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/data.h"

/* ---- ELF files ---- */

#define GEN_TEXT_OFF	0x1000		/* file offset and vaddr offset of .text */
#define GEN_NOTE_OFF	0x200

enum gen_syms {
	GEN_SYMTAB,			/* .symtab */
	GEN_DYNSYM,			/* .dynsym only */
	GEN_NOSYMS,			/* no symbol table at all */
};

struct gen_sym {
	const char	*name;
	uint64_t	off;		/* from the start of .text */
	uint64_t	size;
	bool		global;
};

struct gen_elf {
	uint16_t		type;		/* ET_EXEC or ET_DYN */
	uint64_t		base;		/* vaddr of file offset 0 */
	uint64_t		text_size;
	const struct gen_sym	*syms;
	unsigned int		nr_syms;
	enum gen_syms		kind;
	const unsigned char	*build_id;	/* 20 bytes, or NULL */
};

static inline void gen__put(FILE *fp, long off, const void *p, size_t len)
{
	if (fseek(fp, off, SEEK_SET) || fwrite(p, 1, len, fp) != len)
		abort();
}

/* Write @e to @path: one PT_LOAD of [0, text end), notes, symbols. */
static inline void gen__elf(const char *path, const struct gen_elf *e)
{
	static const char shstr[] = "\0.note.gnu.build-id\0.text\0.symtab\0.strtab\0"
				    ".dynsym\0.dynstr\0.shstrtab";
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	Elf64_Shdr sh[6] = { { 0 } };
	unsigned char note[40] = { 0 };
	uint64_t text_end = GEN_TEXT_OFF + e->text_size;
	uint64_t off = (text_end + 7) & ~7ULL, symoff, stroff, shstroff, shoff;
	size_t strsize = 1, i, nsh = 0, nsyms;
	Elf64_Sym *syms;
	char *strs;
	FILE *fp;

	fp = fopen(path, "w+");
	if (!fp)
		abort();
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = e->type;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_entry = e->base + GEN_TEXT_OFF;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = e->build_id ? 2 : 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);

	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = 0;
	ph[0].p_vaddr = ph[0].p_paddr = e->base;
	ph[0].p_filesz = ph[0].p_memsz = text_end;
	ph[0].p_align = 0x1000;
	if (e->build_id) {
		Elf64_Nhdr nh = { .n_namesz = 4, .n_descsz = 20, .n_type = NT_GNU_BUILD_ID };

		memcpy(note, &nh, sizeof(nh));
		memcpy(note + 12, "GNU", 4);
		memcpy(note + 16, e->build_id, 20);
		ph[1].p_type = PT_NOTE;
		ph[1].p_flags = PF_R;
		ph[1].p_offset = GEN_NOTE_OFF;
		ph[1].p_vaddr = ph[1].p_paddr = e->base + GEN_NOTE_OFF;
		ph[1].p_filesz = ph[1].p_memsz = 36;
		ph[1].p_align = 4;
		gen__put(fp, GEN_NOTE_OFF, note, 36);
	}

	/* .text: int3 everywhere */
	strs = malloc(e->text_size > 4096 ? e->text_size : 4096);
	if (!strs)
		abort();
	memset(strs, 0xcc, e->text_size);
	gen__put(fp, GEN_TEXT_OFF, strs, e->text_size);
	free(strs);

	nsyms = e->kind == GEN_NOSYMS ? 0 : e->nr_syms + 1;
	syms = calloc(nsyms + 1, sizeof(*syms));
	strs = calloc(1, 1);
	if (!syms || !strs)
		abort();
	for (i = 0; i < e->nr_syms && nsyms; i++) {
		size_t len = strlen(e->syms[i].name) + 1;
		Elf64_Sym *s = &syms[i + 1];

		strs = realloc(strs, strsize + len);
		if (!strs)
			abort();
		memcpy(strs + strsize, e->syms[i].name, len);
		s->st_name = strsize;
		strsize += len;
		s->st_info = ELF64_ST_INFO(e->syms[i].global ? STB_GLOBAL : STB_LOCAL, STT_FUNC);
		s->st_shndx = 2;
		s->st_value = e->base + GEN_TEXT_OFF + e->syms[i].off;
		s->st_size = e->syms[i].size;
	}
	symoff = off;
	if (nsyms)
		gen__put(fp, symoff, syms, nsyms * sizeof(*syms));
	stroff = symoff + nsyms * sizeof(*syms);
	if (nsyms)
		gen__put(fp, stroff, strs, strsize);
	shstroff = stroff + (nsyms ? strsize : 0);
	gen__put(fp, shstroff, shstr, sizeof(shstr));
	shoff = (shstroff + sizeof(shstr) + 7) & ~7ULL;

	/* section headers: null, note, text, [symtab, strtab], shstrtab */
	nsh = 1;
	sh[nsh].sh_name = 1;			/* .note.gnu.build-id */
	sh[nsh].sh_type = SHT_NOTE;
	sh[nsh].sh_flags = SHF_ALLOC;
	sh[nsh].sh_addr = e->base + GEN_NOTE_OFF;
	sh[nsh].sh_offset = GEN_NOTE_OFF;
	sh[nsh].sh_size = e->build_id ? 36 : 0;
	sh[nsh].sh_addralign = 4;
	nsh++;
	sh[nsh].sh_name = 20;			/* .text */
	sh[nsh].sh_type = SHT_PROGBITS;
	sh[nsh].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
	sh[nsh].sh_addr = e->base + GEN_TEXT_OFF;
	sh[nsh].sh_offset = GEN_TEXT_OFF;
	sh[nsh].sh_size = e->text_size;
	sh[nsh].sh_addralign = 16;
	nsh++;
	if (nsyms) {
		bool dyn = e->kind == GEN_DYNSYM;

		sh[nsh].sh_name = dyn ? 42 : 26;	/* .dynsym / .symtab */
		sh[nsh].sh_type = dyn ? SHT_DYNSYM : SHT_SYMTAB;
		sh[nsh].sh_flags = dyn ? SHF_ALLOC : 0;
		sh[nsh].sh_offset = symoff;
		sh[nsh].sh_size = nsyms * sizeof(*syms);
		sh[nsh].sh_link = nsh + 1;
		sh[nsh].sh_info = 1;
		sh[nsh].sh_addralign = 8;
		sh[nsh].sh_entsize = sizeof(Elf64_Sym);
		nsh++;
		sh[nsh].sh_name = dyn ? 50 : 34;	/* .dynstr / .strtab */
		sh[nsh].sh_type = SHT_STRTAB;
		sh[nsh].sh_offset = stroff;
		sh[nsh].sh_size = strsize;
		sh[nsh].sh_addralign = 1;
		nsh++;
	}
	sh[nsh].sh_name = 58;			/* .shstrtab */
	sh[nsh].sh_type = SHT_STRTAB;
	sh[nsh].sh_offset = shstroff;
	sh[nsh].sh_size = sizeof(shstr);
	sh[nsh].sh_addralign = 1;
	nsh++;
	gen__put(fp, shoff, sh, nsh * sizeof(Elf64_Shdr));
	eh.e_shoff = shoff;
	eh.e_shnum = nsh;
	eh.e_shstrndx = nsh - 1;
	gen__put(fp, 0, &eh, sizeof(eh));
	gen__put(fp, sizeof(eh), ph, eh.e_phnum * sizeof(Elf64_Phdr));
	free(syms);
	free(strs);
	if (fclose(fp))
		abort();
}

/* ---- kprof.data ---- */

struct gen_writer {
	struct kp_data_writer	*w;
	uint64_t		time;
};

static inline void gen__check(int ret, const struct kp_err *err)
{
	if (ret) {
		fprintf(stderr, "gen: %s\n", err->msg);
		abort();
	}
}

/* A finished-later file with events cpu-clock and page-faults (and a vDSO image). */
/*
 * The same on kernel @release, started at @start_time (CLOCK_MONOTONIC) and
 * @start_realtime: e.g. this host's release and clocks, for a recording
 * "of this boot".
 */
static inline void gen__writer_full(struct gen_writer *g, const char *path, const char *hostname,
				    const char *release, const char *cmdline, uint64_t start_time,
				    uint64_t start_realtime, const void *vdso, uint32_t vdso_size)
{
	struct kp_data_info info;
	struct kp_session *s = &info.session;
	struct kp_err err;

	kp_data_info__init(&info);
	info.start_time = start_time;
	info.start_realtime = start_realtime;
	info.nr_cpus = 4;
	info.session_id = 7;
	snprintf(info.hostname, sizeof(info.hostname), "%s", hostname);
	snprintf(info.release, sizeof(info.release), "%s", release);
	snprintf(info.kprofctl_version, sizeof(info.kprofctl_version), "0.0.0");
	snprintf(info.module_release, sizeof(info.module_release), "0.0.0");
	snprintf(info.cmdline, sizeof(info.cmdline), "%s", cmdline);
	s->flags = KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK |
		   KPROF_SESSION_F_SYSTEM_WIDE;
	s->freq = 1000;
	s->buffer_size = 1 << 20;
	s->stack_depth = 127;
	s->nr_events = 2;
	s->events[0].type = PERF_TYPE_SOFTWARE;
	s->events[0].config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(s->events[0].name, sizeof(s->events[0].name), "cpu-clock");
	s->events[1].type = PERF_TYPE_SOFTWARE;
	s->events[1].config = PERF_COUNT_SW_PAGE_FAULTS;
	snprintf(s->events[1].name, sizeof(s->events[1].name), "page-faults");
	info.vdso = vdso;
	info.vdso_size = vdso_size;
	g->w = kp_data_writer__create(path, &info, &err);
	if (!g->w)
		gen__check(-1, &err);
	g->time = info.start_time;
}

static inline void gen__writer_vdso(struct gen_writer *g, const char *path, const char *hostname,
				    const char *cmdline, const void *vdso, uint32_t vdso_size)
{
	gen__writer_full(g, path, hostname, "6.1.0-kprof-test", cmdline, 1000000000ULL,
			 1700000000000000000ULL, vdso, vdso_size);
}

static inline void gen__writer(struct gen_writer *g, const char *path, const char *hostname,
			       const char *cmdline)
{
	gen__writer_vdso(g, path, hostname, cmdline, NULL, 0);
}

static inline void gen__write(struct gen_writer *g, const void *rec)
{
	struct kp_err err;

	gen__check(kp_data_writer__write(g->w, rec, &err), &err);
}

static inline void gen__comm(struct gen_writer *g, uint64_t time, uint32_t pid, uint32_t tid,
			     const char *comm, bool exec)
{
	struct kp_rec_comm c = {
		.header = { KPROF_RECORD_COMM, exec ? KPROF_MISC_COMM_EXEC : 0, sizeof(c) },
		.time = time, .pid = pid, .tid = tid,
	};

	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	gen__write(g, &c);
}

static inline void gen__fork(struct gen_writer *g, uint64_t time, uint32_t pid, uint32_t tid,
			     uint32_t ppid, uint32_t ptid)
{
	struct kp_rec_fork f = {
		.header = { KPROF_RECORD_FORK, 0, sizeof(f) },
		.time = time, .pid = pid, .tid = tid, .ppid = ppid, .ptid = ptid,
	};

	gen__write(g, &f);
}

static inline void gen__mmap(struct gen_writer *g, uint64_t time, uint32_t pid, uint64_t start,
			     uint64_t len, uint64_t pgoff, const char *file)
{
	uint64_t buf[(sizeof(struct kp_rec_mmap) + 4096 + 8) / 8] = { 0 };
	struct kp_rec_mmap *m = (void *)buf;
	size_t n = strlen(file) + 1;

	m->header.type = KPROF_RECORD_MMAP;
	m->header.size = (sizeof(*m) + n + 7) & ~7UL;
	m->time = time;
	m->pid = pid;
	m->tid = pid;
	m->start = start;
	m->len = len;
	m->pgoff = pgoff;
	memcpy(m->filename, file, n);
	gen__write(g, m);
}

/*
 * A sample: @nk kernel frames then @nu user frames, innermost first, in
 * @ips; the ip is the first of them.
 */
static inline void gen__sample(struct gen_writer *g, uint64_t time, uint32_t pid, uint32_t tid,
			       uint32_t cpu, uint16_t event, uint64_t period,
			       const uint64_t *ips, unsigned int nk, unsigned int nu)
{
	uint64_t buf[(sizeof(struct kp_rec_sample) / 8) + 2 * 127 + 1] = { 0 };
	struct kp_rec_sample *s = (void *)buf;

	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = nk ? KPROF_MISC_KERNEL : KPROF_MISC_USER;
	s->header.size = sizeof(*s) + (nk + nu) * 8;
	s->time = time;
	s->ip = ips[0];
	s->period = period;
	s->pid = pid;
	s->tid = tid;
	s->cpu = cpu;
	s->event = event;
	s->nr_kernel = nk;
	s->nr_user = nu;
	memcpy(s->ips, ips, (nk + nu) * 8);
	gen__write(g, s);
}

/* A sample without a call chain. */
static inline void gen__sample_ip(struct gen_writer *g, uint64_t time, uint32_t pid,
				  uint32_t tid, uint32_t cpu, uint64_t period, uint64_t ip,
				  bool kernel)
{
	struct kp_rec_sample s = {
		.header = { KPROF_RECORD_SAMPLE, kernel ? KPROF_MISC_KERNEL : KPROF_MISC_USER,
			    sizeof(s) },
		.time = time, .ip = ip, .period = period, .pid = pid, .tid = tid, .cpu = cpu,
	};

	gen__write(g, &s);
}

static inline void gen__lost(struct gen_writer *g, uint64_t time, uint32_t cpu, uint64_t lost)
{
	struct kp_rec_lost l = {
		.header = { KPROF_RECORD_LOST, 0, sizeof(l) },
		.time = time, .lost = lost, .cause = KPROF_LOST_FULL, .cpu = cpu,
	};

	gen__write(g, &l);
}

static inline void gen__finish(struct gen_writer *g, uint64_t end)
{
	struct kp_err err;

	gen__check(kp_data_writer__finish(g->w, end, 0, &err), &err);
	kp_data_writer__delete(g->w);
	g->w = NULL;
}

#endif /* KPROFCTL_TESTS_GEN_H */
