/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mappings the kernel makes of a real ELF file's executable PT_LOAD
 * segments, for tests that write its MMAP records:
 *
 *	elf_maps__exec(path, bias, fn, arg);	fn(start, len, pgoff, arg) each
 *	addr = elf_maps__nm_addr(nm_path, "fn");	a symbol's address from 'nm'
 */
#ifndef KPROFCTL_ELF_MAPS_H
#define KPROFCTL_ELF_MAPS_H

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The address of @name in an 'nm' listing @nm_path; 0: none. */
static inline uint64_t elf_maps__nm_addr(const char *nm_path, const char *name)
{
	char line[256], sym[128];
	unsigned long long a;
	uint64_t addr = 0;
	FILE *fp = fopen(nm_path, "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "%llx %*s %127s", &a, sym) == 2 && !strcmp(sym, name))
			addr = a;
	if (fp)
		fclose(fp);
	return addr;
}

/* Each executable segment of @path loaded at @bias, in whole pages; aborts on error. */
static inline void elf_maps__exec(const char *path, uint64_t bias,
				  void (*fn)(uint64_t start, uint64_t len, uint64_t pgoff,
					     void *arg),
				  void *arg)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	size_t i, nph;

	if (!elf || elf_getphdrnum(elf, &nph))
		abort();
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t start, end;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		start = (bias + ph.p_vaddr) & ~0xfffULL;
		end = (bias + ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL;
		fn(start, end - start, ph.p_offset & ~0xfffULL, arg);
	}
	elf_end(elf);
	close(fd);
}

#endif /* KPROFCTL_ELF_MAPS_H */
