// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of [vdso] frames: this process's vDSO image (kp_vdso__self()),
 * its symbols read from memory, the vDSO image section of kprof.data
 * (written, read back, shown by dump, corrupt headers refused), and
 * report, script and folded on a recording with a [vdso] MMAP and samples
 * inside clock_gettime: named from the stored image, [unknown] without
 * one.  Hostile images (garbage, truncated) give no symbols, never a crash.
 */
#include <inttypes.h>
#include <libelf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"
#include "lib/data.h"
#include "lib/symbols.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

#define VDSO_MAP	0x7fff12340000ULL
#define PID		400

static char root[64];
static const void *image;
static uint32_t image_size;

/* The start of @name in a copy of the image, or 0. */
static uint64_t vdso_sym(const char *name)
{
	void *copy = malloc(image_size);
	struct kp_dso *dso = kp_dso__new(KP_DSO_VDSO_NAME);
	uint64_t addr = 0;
	size_t i;

	memcpy(copy, image, image_size);
	kp_dso__load_elf_mem(dso, copy, image_size, NULL);
	for (i = 0; i < dso->nr_syms; i++)
		if (!strcmp(dso->syms[i].name, name))
			addr = dso->syms[i].start;
	kp_dso__delete(dso);
	free(copy);
	return addr;
}

static void test_self(void)
{
	const unsigned char *p;
	void *copy;
	struct kp_dso *dso;

	p = image = kp_vdso__self(&image_size);
	ok(p && image_size >= 64 && image_size <= KP_DATA_VDSO_MAX && !memcmp(p, "\177ELF", 4),
	   "kp_vdso__self: an ELF image of %u bytes", image_size);
	copy = malloc(image_size);
	memcpy(copy, image, image_size);
	dso = kp_dso__new(KP_DSO_VDSO_NAME);
	is_int(kp_dso__load_elf_mem(dso, copy, image_size, NULL), 0, "vDSO image loads");
	ok(dso->nr_syms > 0 && dso->origin != KP_DSO_NONE, "vDSO: %zu symbols", dso->nr_syms);
	ok(vdso_sym("__vdso_clock_gettime") != 0, "vDSO: __vdso_clock_gettime is named");
	kp_dso__delete(dso);
	free(copy);
}

/* Hostile images: garbage, truncated, a header only. */
static void test_hostile(void)
{
	static unsigned char junk[4096];
	unsigned char *copy = malloc(image_size);
	struct kp_dso *dso = kp_dso__new(KP_DSO_VDSO_NAME);
	uint32_t cut;
	size_t i;
	bool fine = true;

	for (i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	ok(kp_dso__load_elf_mem(dso, junk, sizeof(junk), NULL) < 0 && !dso->nr_syms,
	   "garbage image: no symbols");
	memcpy(junk, image, 64);
	kp_dso__load_elf_mem(dso, junk, sizeof(junk), NULL);
	ok(!kp_dso__find(dso, 0x1000) || 1, "ELF header and garbage: no crash");
	for (cut = 0; cut < image_size; cut += image_size / 16 + 1) {
		memcpy(copy, image, image_size);
		kp_dso__load_elf_mem(dso, copy, cut, NULL);
		fine &= !dso->nr_syms || dso->syms[dso->nr_syms - 1].end > 0;
	}
	ok(fine, "truncated images: no crash");
	ok(kp_dso__load_elf_mem(dso, NULL, 0, NULL) < 0, "no image: an error, no symbols");
	kp_dso__delete(dso);
	free(copy);
}

static void record(const char *path, bool with_image, uint64_t ip)
{
	const uint64_t ips[] = { ip };
	struct gen_writer g;
	uint64_t t = 1000000000ULL;

	gen__writer_vdso(&g, path, "kp-vdso-host", "kprofctl record -- ./clock",
			 with_image ? image : NULL, with_image ? image_size : 0);
	gen__comm(&g, t, PID, PID, "kp-clock", true);
	gen__mmap(&g, t, PID, VDSO_MAP, 0x2000, 0, KP_DSO_VDSO_NAME);
	gen__sample(&g, t + 1000, PID, PID, 0, 0, 1000, ips, 0, 1);
	gen__sample(&g, t + 2000, PID, PID, 0, 0, 1000, ips, 0, 1);
	gen__finish(&g, t + 3000);
}

static void test_data_section(const char *path)
{
	struct kp_data *d;
	struct kp_err err;
	const void *got;
	uint32_t size = 0;

	d = kp_data__open(path, &err);
	ok(d != NULL, "a file with the vDSO image opens");
	if (!d)
		return;
	is_int(kp_data__info(d)->version, KP_DATA_VERSION_VDSO, "it is version 4");
	got = kp_data__vdso(d, &size);
	ok(got && size == image_size && !memcmp(got, image, size), "the image reads back");
	kp_data__close(d);
}

/* Rewrite the u32 at @off of @path to @val; does kp_data__open() refuse it? */
static void corrupt_u32(const char *src, const char *what, size_t off, uint32_t val,
			const char *msg)
{
	char path[128];
	size_t len;
	char *buf = tmpdir__slurp(src, &len);
	struct kp_data *d;
	struct kp_err err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/bad.data", root);
	memcpy(buf + off, &val, 4);
	fp = fopen(path, "w");
	fwrite(buf, 1, len, fp);
	fclose(fp);
	free(buf);
	d = kp_data__open(path, &err);
	ok(!d && strstr(err.msg, msg), "%s: refused (%s)", what, d ? "opened" : err.msg);
	kp_data__close(d);
}

static void test_corrupt(const char *path)
{
	corrupt_u32(path, "vDSO larger than 64 KiB", offsetof(struct kp_data_header, vdso_size),
		    KP_DATA_VDSO_MAX + 8, "bad vDSO image section");
	corrupt_u32(path, "vDSO past the header", offsetof(struct kp_data_header, vdso_size),
		    60000, "bad vDSO image section");
	corrupt_u32(path, "vDSO offset misaligned", offsetof(struct kp_data_header, vdso_offset),
		    516, "bad vDSO image section");
	corrupt_u32(path, "vDSO offset in the fixed header",
		    offsetof(struct kp_data_header, vdso_offset), 0, "bytes at 0");
	corrupt_u32(path, "vDSO in a version 3 file", offsetof(struct kp_data_header, version), 3,
		    "reserved header fields are not zero");
}

static void test_commands(const char *with, const char *without, uint64_t sym)
{
	char off[96];
	struct run r;

	kprofctl(&r, "report", "-i", with, "--kallsyms", "/nonexistent", NULL);
	ok(r.rc == 0 && strstr(r.out, "kp-clock  [vdso]         [.] __vdso_clock_gettime\n"),
	   "report: the frame is __vdso_clock_gettime in [vdso]");
	if (!strstr(r.out, "__vdso_clock_gettime"))
		diag("%s%s", r.out, r.err);
	run_free(&r);

	snprintf(off, sizeof(off), "%16" PRIx64 " __vdso_clock_gettime+0x1 ([vdso])",
		 (uint64_t)(VDSO_MAP + sym + 1));
	kprofctl(&r, "script", "-i", with, NULL);
	ok(r.rc == 0 && strstr(r.out, off), "script: %s", off);
	run_free(&r);

	kprofctl(&r, "folded", "-i", with, NULL);
	is_str(r.out, "kp-clock;__vdso_clock_gettime 2\n", "folded: __vdso_clock_gettime");
	run_free(&r);

	kprofctl(&r, "report", "-i", without, "--kallsyms", "/nonexistent", NULL);
	ok(r.rc == 0 && strstr(r.out, "[vdso]") && !strstr(r.out, "clock_gettime"),
	   "report, no image in the file: the frame is unnamed");
	run_free(&r);
	kprofctl(&r, "folded", "-i", without, NULL);
	is_str(r.out, "kp-clock;[[vdso]] 2\n", "folded, no image: [DSO], as for any unnamed frame");
	run_free(&r);

	kprofctl(&r, "dump", "-i", with, "--header-only", NULL);
	snprintf(off, sizeof(off), "# vdso: %u bytes\n", image_size);
	ok(r.rc == 0 && strstr(r.out, off) && strstr(r.out, "# version: 4\n"),
	   "dump: version 4 and the vDSO section");
	run_free(&r);
	kprofctl(&r, "dump", "-i", without, "--header-only", NULL);
	ok(r.rc == 0 && !strstr(r.out, "# vdso:") && strstr(r.out, "# version: 1\n"),
	   "dump, no image: version 1, no section");
	run_free(&r);
}

int main(void)
{
	char with[128], without[128];
	uint64_t sym;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	test_self();
	if (!image) {
		diag("no vDSO in this process: the rest is skipped");
		return done_testing();
	}
	test_hostile();
	tmpdir__create(root, sizeof(root));
	snprintf(with, sizeof(with), "%s/with.data", root);
	snprintf(without, sizeof(without), "%s/without.data", root);
	sym = vdso_sym("__vdso_clock_gettime");
	record(with, true, VDSO_MAP + sym + 1);
	record(without, false, VDSO_MAP + sym + 1);
	test_data_section(with);
	test_corrupt(with);
	test_commands(with, without, sym);
	tmpdir__remove(root);
	return done_testing();
}
