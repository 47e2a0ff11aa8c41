// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl convert, checked by perf itself (Debian's linux-perf, on the
 * host): a recording of the toolchain's non-PIE test program
 * (tests/elf/prog.c), samples in kpt_leaf called from kpt_middle and in
 * kpt_middle itself, with a build-id; perf report gives each symbol the
 * share kprofctl report gives it, perf script prints every sample with
 * its call chain, perf report -D accepts every record and the headers
 * read back; then the refusals.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "elf-maps.h"
#include "lib/buildid.h"
#include "lib/symbols.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64];

/* The first line of @cmd's output containing @needle, into @line; "" when none. */
static void first_line(const char *cmd, const char *needle, char *line, size_t len)
{
	FILE *fp = popen(cmd, "r");

	line[0] = '\0';
	while (fp && fgets(line, len, fp))
		if (strstr(line, needle))
			break;
		else
			line[0] = '\0';
	if (fp)
		pclose(fp);
}

/* How many lines of @cmd's output contain @needle. */
static int count_lines(const char *cmd, const char *needle)
{
	char line[4096];
	FILE *fp = popen(cmd, "r");
	int n = 0;

	while (fp && fgets(line, sizeof(line), fp))
		n += strstr(line, needle) != NULL;
	if (fp)
		pclose(fp);
	return n;
}

/* The percentage at the start of @line ("  60.00%  ..."), or -1. */
static double share(const char *line)
{
	double v;

	return sscanf(line, " %lf%%", &v) == 1 ? v : -1;
}

static void test_perf_reads_it(const char *elf)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char nm[4096], rec[256], pd[256], cmd[1024], line[1024], want[512];
	unsigned char id[KP_BUILD_ID_MAX];
	uint64_t leaf, middle, buf[16] = { 0 };
	struct kp_rec_build_id *b = (void *)buf;
	struct gen_writer g;
	struct kp_err err;
	struct run r;
	double p_leaf, p_mid, k_leaf, k_mid;
	int i, n;

	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	middle = elf_maps__nm_addr(nm, "kpt_middle");
	n = kp_elf__build_id(elf, id, sizeof(id));
	snprintf(rec, sizeof(rec), "%s/kpt.data", root);
	snprintf(pd, sizeof(pd), "%s/perf.data", root);

	gen__writer(&g, rec, "kprof-gen", "kprofctl record -g -- kpt");
	gen__comm(&g, SC_T0, 500, 500, "kpt", true);
	gen__mmap(&g, SC_T0, 500, 0x401000, 0x1000, 0x1000, elf);
	for (i = 0; i < 6; i++)
		gen__sample(&g, SC_T0 + (i + 1) * SC_MS, 500, 500, i % 2, 0, 1000000,
			    SC_IPS(leaf + 2, middle + 5), 0, 2);
	for (i = 0; i < 4; i++)
		gen__sample(&g, SC_T0 + (i + 10) * SC_MS, 500, 500, 0, 0, 1000000,
			    SC_IPS(middle + 5), 0, 1);
	b->header.type = KP_DATA_REC_BUILD_ID;
	b->header.size = (sizeof(*b) + strlen(elf) + 1 + 7) & ~7UL;
	b->pid = 500;
	b->size = n;
	memcpy(b->build_id, id, n);
	if (b->header.size > sizeof(buf))
		abort();
	memcpy(b->filename, elf, strlen(elf) + 1);
	gen__check(kp_data_writer__raise_version(g.w, KP_DATA_VERSION_SWITCH, &err), &err);
	gen__write(&g, b);
	gen__finish(&g, SC_T0 + 20 * SC_MS);

	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	snprintf(want, sizeof(want), "[ kprof convert: %s: 10 samples, 2 side-band records, 1 build-ids ]\n",
		 pd);
	ok(r.rc == 0 && !strcmp(r.err, want), "convert: exit 0, the summary line");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);

	/* perf report: the two symbols with kprofctl report's shares */
	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --stdio --no-children -g none --sort sym 2>&1",
		 root, pd);
	first_line(cmd, "[.] kpt_leaf", line, sizeof(line));
	p_leaf = share(line);
	first_line(cmd, "[.] kpt_middle", line, sizeof(line));
	p_mid = share(line);
	snprintf(cmd, sizeof(cmd), "./kprofctl report -i %s --stdio --sort sym --kallsyms /dev/null 2>&1",
		 rec);
	first_line(cmd, "[.] kpt_leaf", line, sizeof(line));
	k_leaf = share(line);
	first_line(cmd, "[.] kpt_middle", line, sizeof(line));
	k_mid = share(line);
	if (!ok(p_leaf == 60.0 && p_mid == 40.0 && k_leaf == p_leaf && k_mid == p_mid,
		"perf report: kpt_leaf %.2f%%, kpt_middle %.2f%%, as kprofctl report (%.2f%%, %.2f%%)",
		p_leaf, p_mid, k_leaf, k_mid)) {
		snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --stdio --no-children --sort sym 2>&1 | head -30",
			 root, pd);
		system(cmd);
	}

	/* perf report --children: the inclusive and self shares, as kprofctl report --children */
	{
		static const char * const syms[] = { "[.] kpt_middle", "[.] kpt_leaf" };
		double pc[2], ps[2], kc[2], ks[2];
		unsigned int j;

		for (j = 0; j < 2; j++) {
			snprintf(cmd, sizeof(cmd),
				 "HOME=%s perf report -i %s --stdio --children -g none --sort sym 2>&1",
				 root, pd);
			first_line(cmd, syms[j], line, sizeof(line));
			if (sscanf(line, " %lf%% %lf%%", &pc[j], &ps[j]) != 2)
				pc[j] = ps[j] = -1;
			snprintf(cmd, sizeof(cmd),
				 "./kprofctl report -i %s --stdio --children --sort sym --kallsyms /dev/null 2>&1",
				 rec);
			first_line(cmd, syms[j], line, sizeof(line));
			if (sscanf(line, " %lf%% %lf%%", &kc[j], &ks[j]) != 2)
				kc[j] = ks[j] = -2;
		}
		ok(pc[0] == 100 && ps[0] == 40 && pc[1] == 60 && ps[1] == 60 && kc[0] == pc[0] &&
		   ks[0] == ps[0] && kc[1] == pc[1] && ks[1] == ps[1],
		   "perf report --children: kpt_middle %.2f%%/%.2f%%, kpt_leaf %.2f%%/%.2f%%, as kprofctl report --children",
		   pc[0], ps[0], pc[1], ps[1]);
		snprintf(cmd, sizeof(cmd),
			 "./kprofctl report -i %s --stdio --children --sort sym --kallsyms /dev/null 2>&1", rec);
		first_line(cmd, "# Children      Self  Symbol", line, sizeof(line));
		ok(line[0] && strstr(line, "Children") < strstr(line, "Self"),
		   "report --children: the Children column before Self");
	}

	/* perf script: every sample, its comm and pid, its chain named */
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -F comm,pid,ip,sym 2>&1", root, pd);
	n = count_lines(cmd, "kpt   500");
	ok(n == 10, "perf script: the 10 samples of kpt/500 (%d)", n);
	n = count_lines(cmd, " kpt_leaf");
	i = count_lines(cmd, " kpt_middle");
	ok(n == 6 && i == 10, "perf script: the chains, kpt_leaf in 6, kpt_middle in all 10 (%d, %d)",
	   n, i);

	/* perf report -D: no record it cannot read; the headers */
	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -D -i %s 2>&1", root, pd);
	n = count_lines(cmd, "PERF_RECORD_SAMPLE(IP, 0x2)");
	i = count_lines(cmd, "unhandled") + count_lines(cmd, "non matching sample_id") +
	    count_lines(cmd, "Invalid") + count_lines(cmd, "failed to process");
	ok(n == 10 && i == 0, "perf report -D: 10 user samples, no record refused (%d, %d)", n, i);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --header-only 2>&1", root, pd);
	ok(count_lines(cmd, "# hostname : kprof-gen") == 1 &&
	   count_lines(cmd, "# os release : 6.1.0-kprof-test") == 1 &&
	   count_lines(cmd, "# nrcpus online : 4") == 1 &&
	   count_lines(cmd, "# cmdline : kprofctl record -g -- kpt") == 1 &&
	   count_lines(cmd, "# event : name = cpu-clock") == 1,
	   "perf report --header-only: host, release, CPUs, command line, events");
	snprintf(cmd, sizeof(cmd), "HOME=%s perf buildid-list -i %s 2>&1", root, pd);
	kp_buildid__hex(id, kp_elf__build_id(elf, id, sizeof(id)), want);
	strcat(want, " ");
	strcat(want, elf);
	ok(count_lines(cmd, want) == 1, "perf buildid-list: the program's build-id");
	/* the mapping as MMAP2, with the file's build-id in it */
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s --show-mmap-events 2>&1", root, pd);
	kp_buildid__hex(id, kp_elf__build_id(elf, id, sizeof(id)), want);
	first_line(cmd, "PERF_RECORD_MMAP2", line, sizeof(line));
	ok(strstr(line, "PERF_RECORD_MMAP2 500/500: [0x401000(0x1000) @ 0x1000 ") &&
	   strstr(line, want) && strstr(line, "r-xp") && strstr(line, elf),
	   "perf script --show-mmap-events: the mapping an MMAP2 with its build-id");
	if (!strstr(line, want))
		diag("%s", line);
}

/*
 * A recording of this very boot (this host's name and release, its boot
 * time): the kernel's map and the modules' from (fake) /proc/kallsyms and
 * /proc/modules, as perf record writes them; perf puts the samples in the
 * kernel and in the module in them.  Another boot's recording gets none.
 */
static void test_kernel_maps(void)
{
	char dir[256], path[300], rec[256], pd[256], cmd[1024], line[1024];
	struct timespec mono, real;
	struct gen_writer g;
	struct utsname uts;
	uint64_t t0;
	struct run r;
	FILE *fp;
	int n;

	snprintf(dir, sizeof(dir), "%s/sysroot", root);
	snprintf(path, sizeof(path), "%s/proc", dir);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proc/kallsyms", dir);
	fp = fopen(path, "w");
	fprintf(fp, "ffffffff81000000 T startup_64\nffffffff81000000 T _text\nffffffff81001000 T kp_func\n"
		    "ffffffffc0a01000 t kp_mod_func\t[kpmod]\n");
	fclose(fp);
	snprintf(path, sizeof(path), "%s/proc/modules", dir);
	fp = fopen(path, "w");
	fprintf(fp, "kpmod 45056 0 - Live 0xffffffffc0a00000 (OE)\n"
		    "gone 8192 0 - Unloading 0xffffffffc0b00000\n");
	fclose(fp);

	uname(&uts);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	clock_gettime(CLOCK_REALTIME, &real);
	snprintf(rec, sizeof(rec), "%s/boot.data", root);
	snprintf(pd, sizeof(pd), "%s/boot.perf", root);
	t0 = mono.tv_sec * 1000000000ULL + mono.tv_nsec;
	gen__writer_full(&g, rec, uts.nodename, uts.release, "kprofctl record -a", t0,
			 real.tv_sec * 1000000000ULL + real.tv_nsec, NULL, 0);
	gen__comm(&g, t0, 0, 0, "swapper/0", false);
	gen__sample(&g, t0 + SC_MS, 0, 0, 0, 0, 1000000, SC_IPS(0xffffffff81001010ULL), 1, 0);
	gen__sample(&g, t0 + 2 * SC_MS, 0, 0, 0, 0, 1000000, SC_IPS(0xffffffffc0a01010ULL), 1, 0);
	gen__finish(&g, t0 + 20 * SC_MS);

	kp_sysroot = dir;
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	kp_sysroot = "";
	ok(r.rc == 0 && strstr(r.err, "the maps of the kernel and 1 module of this boot"),
	   "convert: a recording of this boot gets the kernel's and the modules' maps");
	if (r.rc || !strstr(r.err, "of this boot"))
		diag("%s", r.err);
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s --show-mmap-events 2>&1", root, pd);
	first_line(cmd, "[kernel.kallsyms]_text", line, sizeof(line));
	ok(strstr(line, "PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x3fa00000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text"),
	   "perf script: the kernel map from _text to the first module, its pgoff _text");
	if (!line[0] || !strstr(line, "0x3fa00000"))
		diag("%s", line);
	first_line(cmd, "[kpmod]", line, sizeof(line));
	ok(strstr(line, "PERF_RECORD_MMAP -1/0: [0xffffffffc0a00000(0xb000) @ 0]: x [kpmod]") != NULL,
	   "perf script: the live module's map, the unloading one left out");
	n = count_lines(cmd, "[gone]");
	ok(n == 0, "perf script: no map of a module being unloaded");
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -F ip,dso 2>&1", root, pd);
	first_line(cmd, "ffffffffc0a01010", line, sizeof(line));
	ok(strstr(line, "([kpmod])") != NULL, "perf script: the module's sample in the module's map");
	if (!strstr(line, "([kpmod])"))
		diag("%s", line);

	/* another boot (the generator's clocks): no kernel map */
	snprintf(rec, sizeof(rec), "%s/other.data", root);
	gen__writer(&g, rec, uts.nodename, "kprofctl record -a");
	gen__comm(&g, SC_T0, 0, 0, "swapper/0", false);
	gen__sample(&g, SC_T0 + SC_MS, 0, 0, 0, 0, 1000000, SC_IPS(0xffffffff81001010ULL), 1, 0);
	gen__finish(&g, SC_T0 + 20 * SC_MS);
	kp_sysroot = dir;
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	kp_sysroot = "";
	ok(r.rc == 0 && !strstr(r.err, "of this boot"), "convert: another boot's recording: no kernel map");
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s --show-mmap-events 2>&1", root, pd);
	ok(count_lines(cmd, "[kernel.kallsyms]_text") == 0, "perf script: none in the file");
}

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[4096], nm[4096], agg[256], pd[256];
	struct gen_writer g;
	struct kp_err err;
	struct run r;

	tmpdir__create(root, sizeof(root));
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	/* tools/deps.sh installs Debian's linux-perf: a missing perf fails */
	if (!ok(!system("perf --version >/dev/null 2>&1"), "perf runs on this machine")) {
		tmpdir__remove(root);
		return done_testing();
	}
	if (!ok(realpath(nm, elf) != NULL, "the test program %s is built", nm))
		return done_testing();
	test_perf_reads_it(elf);
	test_kernel_maps();

	/* refusals */
	snprintf(pd, sizeof(pd), "%s/x.perf", root);
	kprofctl(&r, "convert", "-i", "/nonexistent/kprof.data", "-o", pd, NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: convert: ") && strstr(r.err, "/nonexistent/kprof.data") &&
	   !strchr(strchr(r.err, '\n') + 1, '\n'), "convert: a missing input: one line naming it");
	run_free(&r);
	snprintf(agg, sizeof(agg), "%s/agg.data", root);
	gen__writer(&g, agg, "kprof-gen", "kprofctl stop -o");
	{
		uint64_t buf[16] = { 0 };
		struct kp_rec_agg *a = (void *)buf;

		a->header.type = KP_DATA_REC_AGG;
		a->header.size = sizeof(*a) + 8;
		a->count = 3;
		a->pid = 1;
		a->nr_user = 1;
		a->ips[0] = 0x401000;
		gen__check(kp_data_writer__raise_version(g.w, KP_DATA_VERSION_AGG, &err), &err);
		gen__write(&g, a);
	}
	gen__finish(&g, SC_T0 + SC_MS);
	kprofctl(&r, "convert", "-i", agg, "-o", pd, NULL);
	ok(r.rc == 1 && strstr(r.err, "is an aggregated profile") && access(pd, F_OK),
	   "convert: an aggregated profile is refused, no output left");
	run_free(&r);
	/* an existing file at -o is left as it was by a refusal */
	tmpdir__write(root, "x.perf", "keep\n");
	kprofctl(&r, "convert", "-i", agg, "-o", pd, NULL);
	{
		char *kept = tmpdir__slurp(pd, NULL);

		ok(r.rc == 1 && kept && !strcmp(kept, "keep\n"),
		   "convert: a refused conversion leaves the existing output file as it was");
		free(kept);
	}
	run_free(&r);
	/* the input as the output: by name, by a symbolic and a hard link */
	{
		char sl[4200], hl[4200], *before, *after;
		size_t len_b = 0, len_a = 0;
		const char *outs[3];
		int i;

		snprintf(sl, sizeof(sl), "%s/sym.data", root);
		snprintf(hl, sizeof(hl), "%s/hard.data", root);
		before = tmpdir__slurp(agg, &len_b);
		outs[0] = agg;
		outs[1] = sl;
		outs[2] = hl;
		ok(!symlink(agg, sl) && !link(agg, hl), "links to the input made");
		for (i = 0; i < 3; i++) {
			kprofctl(&r, "convert", "-i", agg, "-o", outs[i], NULL);
			after = tmpdir__slurp(agg, &len_a);
			ok(r.rc == 1 && strstr(r.err, "is the input file too") &&
			   !strchr(strchr(r.err, '\n') + 1, '\n') && before && after &&
			   len_a == len_b && !memcmp(before, after, len_a),
			   "convert -o %s: the input itself refused in one line, left as it was",
			   i == 0 ? "INPUT" : i == 1 ? "a symbolic link to it" : "a hard link to it");
			free(after);
			run_free(&r);
		}
		free(before);
	}
	kprofctl(&r, "convert", "extra", NULL);
	ok(r.rc == 2 && strstr(r.err, "unexpected argument 'extra'"), "convert: usage error");
	run_free(&r);
	tmpdir__remove(root);
	return done_testing();
}
