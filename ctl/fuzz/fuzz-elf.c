// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the symbolizer's readers of untrusted files: an ELF
 * file (symbols, segments, build-id notes), and the same bytes as a JIT
 * map and as kallsyms.  Stripped, truncated or garbage input must load as
 * an empty or partial table, never crash or hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/symbols.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t probes[] = {
		0, 0x10, 0x1000, 0x1129, 0x400000, 0x401000, 0xffffffff81000000ULL, UINT64_MAX - 1,
	};
	unsigned char id[KP_BUILD_ID_MAX];
	struct kp_kernel k;
	struct kp_dso *dso;
	void *copy;
	char path[64];
	size_t i;
	int fd;

	fd = memfd_create("elf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	dso = kp_dso__new(path);
	if (dso) {
		kp_dso__load_elf(dso, path, "/nonexistent");
		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			kp_dso__find(dso, kp_dso__map_ip(dso, probes[i]));
		for (i = 0; i < dso->nr_syms; i++)
			kp_dso__find(dso, dso->syms[i].start);
		/* the same bytes as an in-memory image (a stored vDSO), on a copy */
		copy = size ? malloc(size) : NULL;
		if (copy) {
			memcpy(copy, data, size);
			kp_dso__load_elf_mem(dso, copy, size, "/nonexistent");
			for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
				kp_dso__find(dso, kp_dso__map_ip(dso, probes[i]));
			free(copy);
		}
		kp_dso__load_perf_map(dso, path);
		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			kp_dso__find(dso, probes[i]);
		kp_dso__delete(dso);
	}
	kp_elf__build_id(path, id, sizeof(id));
	if (!kp_kernel__load(&k, path)) {
		struct kp_dso *kd;

		for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
			kp_kernel__find(&k, probes[i], &kd);
	}
	kp_kernel__exit(&k);
	close(fd);
	return 0;
}
