// SPDX-License-Identifier: GPL-2.0
/*
 * Seeds of the fuzz corpora: the golden recording of tests/scenario.h and
 * its files, the tracepoint recording of tests/tp-record.h (formats and
 * raw records), and a recording with this kernel's vDSO image, a [vdso]
 * MMAP and a sample in it (the image also as an ELF seed).
 * usage: seed DIR  (writes DIR/data/ and DIR/elf/)
 */
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"
#include "tp-record.h"

/* A recording whose [vdso] frame is named from the stored image. */
static int vdso_seed(const char *dir)
{
	const uint64_t map = 0x7fff12340000ULL, ips[] = { map + 0x700, map + 0x900 };
	char path[1024];
	struct gen_writer g;
	uint32_t size;
	const void *image = kp_vdso__self(&size);
	FILE *fp;

	if (!image)
		return 0;
	snprintf(path, sizeof(path), "%s/data/vdso.data", dir);
	gen__writer_vdso(&g, path, "kp-fuzz", "kprofctl record", image, size);
	gen__comm(&g, 1000000000ULL, 400, 400, "kp-clock", true);
	gen__mmap(&g, 1000000000ULL, 400, map, 0x2000, 0, "[vdso]");
	gen__sample(&g, 1000001000ULL, 400, 400, 0, 0, 1000, ips, 0, 2);
	gen__finish(&g, 1000002000ULL);
	tmpdir__mkdir(dir, "elf");
	snprintf(path, sizeof(path), "%s/elf/vdso.so", dir);
	fp = fopen(path, "w");
	if (!fp || fwrite(image, 1, size, fp) != size || fclose(fp))
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	char root[512], path[1024];

	if (argc != 2) {
		fprintf(stderr, "usage: seed DIR\n");
		return 2;
	}
	if (snprintf(root, sizeof(root), "%s/root", argv[1]) >= (int)sizeof(root))
		return 2;
	tmpdir__mkdir(argv[1], "root");
	tmpdir__mkdir(argv[1], "data");
	snprintf(path, sizeof(path), "%s/data/golden.data", argv[1]);
	sc__golden(root, path);
	snprintf(path, sizeof(path), "%s/data/tp.data", argv[1]);
	tpr__write(path, true);
	return vdso_seed(argv[1]);
}
