// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl annotate, checked against objdump's instruction boundaries and
 * against perf annotate itself (Debian's linux-perf, on the host) on the
 * converted recording: samples at known instructions of kpt_leaf and
 * kpt_middle of the toolchain's non-PIE test program (tests/elf/prog.c,
 * built with -g); the same instructions carry the same percentages in
 * both.  Then the options (a symbol, --percent-limit, --percent-type, -n,
 * --no-source), branch targets by name, kernel code from a --vmlinux (the
 * test program standing in for it, at "KASLR" addresses of a kallsyms
 * file), and the refusals.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-out.h"
#include "elf-maps.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

#define MAX_INSNS	64
#define KASLR		UINT64_C(0xffffffff81000000)

static char root[64];

/* The instruction addresses of @sym in objdump -d of @elf; how many. */
static int objdump_insns(const char *elf, const char *sym, uint64_t *addrs, int max)
{
	char cmd[4200], line[512], head[128];
	bool in = false;
	FILE *fp;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "objdump -d --no-show-raw-insn '%s' 2>/dev/null", elf);
	snprintf(head, sizeof(head), "<%s>:", sym);
	fp = popen(cmd, "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		uint64_t a;

		if (strstr(line, head)) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (line[0] == '\n')
			break;
		if (sscanf(line, " %" SCNx64 ":", &a) == 1 && n < max)
			addrs[n++] = a;
	}
	if (fp)
		pclose(fp);
	return n;
}

/* The percentage on the line of instruction @addr ("  66.67 :   401126:   ..."), or -1. */
static double insn_percent(const char *out, uint64_t addr)
{
	char needle[64];
	const char *p;
	double v;

	snprintf(needle, sizeof(needle), " :   %" PRIx64 ":", addr);
	p = strstr(out, needle);
	if (!p)
		return -1;
	while (p > out && p[-1] != '\n')
		p--;
	return sscanf(p, " %lf", &v) == 1 ? v : -1;
}

static int count_str(const char *s, const char *needle)
{
	int n = 0;

	for (; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	uint64_t leaf[MAX_INSNS], mid[MAX_INSNS], call = 0;
	char elf[4096], nm[4096], rec[256], pd[256], ks[256], krec[256], cmd[8192];
	struct gen_writer g;
	struct run r;
	int nl, nmid, i;
	char *out;
	double p, q;
	FILE *fp;

	tmpdir__create(root, sizeof(root));
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!ok(realpath(nm, elf) != NULL, "the test program %s is built", nm))
		return done_testing();
	nl = objdump_insns(elf, "kpt_leaf", leaf, MAX_INSNS);
	nmid = objdump_insns(elf, "kpt_middle", mid, MAX_INSNS);
	if (!ok(nl >= 5 && nmid >= 2, "objdump: kpt_leaf has %d instructions, kpt_middle %d", nl, nmid))
		return done_testing();

	/*
	 * kpt_leaf: 4 samples at its 3rd instruction, 2 in the middle of its
	 * 5th (one byte in, as a skid would not be, but an address inside
	 * counts for the instruction around it); kpt_middle: 4 at its 2nd.
	 */
	snprintf(rec, sizeof(rec), "%s/kpt.data", root);
	gen__writer(&g, rec, "kprof-gen", "kprofctl record -- kpt");
	gen__comm(&g, SC_T0, 500, 500, "kpt", true);
	gen__mmap(&g, SC_T0, 500, 0x401000, 0x1000, 0x1000, elf);
	for (i = 0; i < 10; i++) {
		uint64_t ip = i < 4 ? leaf[2] : i < 6 ? leaf[4] + (leaf[5] - leaf[4] > 1) : mid[1];

		gen__sample(&g, SC_T0 + (i + 1) * SC_MS, 500, 500, 0, 0, 1000000, SC_IPS(ip), 0, 1);
	}
	gen__finish(&g, SC_T0 + 20 * SC_MS);

	kprofctl(&r, "annotate", "-i", rec, "--stdio", NULL);
	ok(r.rc == 0 && count_str(r.out, "Source code & Disassembly of nopie for cpu-clock") == 2 &&
	   strstr(r.out, "(6 samples, percent: local period)") &&
	   strstr(r.out, "(6 samples") < strstr(r.out, "(4 samples"),
	   "annotate: kpt_leaf (6 samples) first, then kpt_middle (4)");
	if (r.rc)
		diag("%s", r.err);
	p = insn_percent(r.out, leaf[2]);
	q = insn_percent(r.out, leaf[4]);
	if (!ok(p > 66.66 && p < 66.68 && q > 33.32 && q < 33.34 && insn_percent(r.out, leaf[0]) == 0 &&
	   insn_percent(r.out, leaf[3]) == 0 && insn_percent(r.out, mid[1]) == 100,
	   "annotate: 66.67%% at kpt_leaf's 3rd instruction, 33.33%% at its 5th (a sample inside it), 100%% at kpt_middle's 2nd (%.2f, %.2f)",
	   p, q))
		diag("%s", r.out);
	for (i = 0; i < nl; i++)
		if (insn_percent(r.out, leaf[i]) < 0)
			break;
	ok(i == nl, "annotate: every instruction objdump finds in kpt_leaf has its line (%d of %d)", i, nl);
	ok(strstr(r.out, "s += i * kpt_sink;") && strstr(r.out, "return kpt_leaf(n) + 1;"),
	   "annotate: the source lines of prog.c are interleaved");
	{
		const char *t = strstr(r.out, " <kpt_leaf>\n"), *l = t;

		while (l && l > r.out && l[-1] != '\n')
			l--;
		call = t && memmem(l, t - l, "call", 4);
	}
	ok(call, "annotate: kpt_middle's call names its target, <kpt_leaf>");
	run_free(&r);

	/* perf annotate of the same samples, through convert */
	snprintf(pd, sizeof(pd), "%s/kpt.perf", root);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf annotate -i %s --stdio --no-source kpt_leaf 2>/dev/null",
		 root, pd);
	out = run_out(cmd);
	p = out ? insn_percent(out, leaf[2]) : -1;
	q = out ? insn_percent(out, leaf[4]) : -1;
	kprofctl(&r, "annotate", "-i", rec, "kpt_leaf", NULL);
	if (!ok(p >= 0 && q >= 0 && p - insn_percent(r.out, leaf[2]) < 0.01 &&
		insn_percent(r.out, leaf[2]) - p < 0.01 && q - insn_percent(r.out, leaf[4]) < 0.01 &&
		insn_percent(r.out, leaf[4]) - q < 0.01,
		"perf annotate: kpt_leaf's 3rd and 5th instructions at %.2f%% and %.2f%%, as kprofctl annotate",
		p, q))
		diag("%s", out ? out : "");
	ok(r.rc == 0 && count_str(r.out, "Source code & Disassembly") == 1 &&
	   insn_percent(r.out, mid[1]) < 0, "annotate SYMBOL: only that symbol");
	free(out);
	run_free(&r);

	kprofctl(&r, "annotate", "-i", rec, "--percent-limit", "50", NULL);
	ok(r.rc == 0 && count_str(r.out, "Source code & Disassembly") == 1 &&
	   strstr(r.out, "(6 samples"), "annotate --percent-limit 50: kpt_leaf (60%%) only");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "--percent-type", "global-period", "-n", "--no-source",
		 "kpt_leaf", NULL);
	snprintf(cmd, sizeof(cmd), "       4    40.00 :   %" PRIx64 ":", leaf[2]);
	ok(r.rc == 0 && strstr(r.out, cmd) && strstr(r.out, "percent: global period") &&
	   !strstr(r.out, "kpt_sink;"),
	   "annotate --percent-type global-period -n --no-source: 40%% of the event, 4 samples, no source");
	run_free(&r);

	/* kernel code from a vmlinux, at the addresses of a kallsyms file */
	snprintf(ks, sizeof(ks), "%s/kallsyms", root);
	fp = fopen(ks, "w");
	if (fp) {
		fprintf(fp, "%016" PRIx64 " T kpt_leaf\n%016" PRIx64 " T kpt_middle\n"
			"%016" PRIx64 " T kpt_outer\n", KASLR + leaf[0], KASLR + mid[0],
			KASLR + mid[nmid - 1] + 1);
		fclose(fp);
	}
	snprintf(krec, sizeof(krec), "%s/kernel.data", root);
	gen__writer(&g, krec, "kprof-gen", "kprofctl record -a");
	for (i = 0; i < 4; i++)
		gen__sample(&g, SC_T0 + (i + 1) * SC_MS, 0, 0, 0, 0, 1000000,
			    SC_IPS(KASLR + leaf[i < 3 ? 1 : 3]), 1, 0);
	gen__finish(&g, SC_T0 + 20 * SC_MS);
	kprofctl(&r, "annotate", "-i", krec, "--kallsyms", ks, "--vmlinux", elf, NULL);
	p = insn_percent(r.out, KASLR + leaf[1]);
	ok(r.rc == 0 && strstr(r.out, "Disassembly of [kernel.kallsyms] for cpu-clock (4 samples") &&
	   p == 75.0 && insn_percent(r.out, KASLR + leaf[3]) == 25.0 &&
	   insn_percent(r.out, KASLR + leaf[nl - 1]) == 0 && strstr(r.out, "s += i * kpt_sink;"),
	   "annotate --vmlinux: the kernel symbol's code and source from the file, at the running addresses (%.2f%%)",
	   p);
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	kprofctl(&r, "annotate", "-i", krec, "--kallsyms", ks, NULL);
	ok(r.rc == 1 && strstr(r.err, "was recorded on kprof-gen") && strstr(r.err, "--vmlinux") &&
	   !strchr(strchr(r.err, '\n') + 1, '\n'),
	   "annotate: kernel symbols of another machine's recording need --vmlinux (one line)");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", krec, "--kallsyms", ks, "-m", "kprof", NULL);
	ok(r.rc == 1 && strstr(r.err, "no samples to annotate in ") && strstr(r.err, "that module"),
	   "annotate -m kprof: no samples in the module, said so");
	run_free(&r);

	/* refusals */
	kprofctl(&r, "annotate", "-i", rec, "no_such_function", NULL);
	if (!ok(r.rc == 1 && strstr(r.err, "no samples in symbol 'no_such_function'") &&
		!strchr(strchr(r.err, '\n') + 1, '\n'), "annotate: a symbol not in the recording: one line"))
		diag("%d %s", r.rc, r.err);
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "--percent-type", "hits", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --percent-type value 'hits'"),
	   "annotate: a bad --percent-type names the value");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "--percent-limit", "101", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --percent-limit value '101'"),
	   "annotate: a bad --percent-limit names the value");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "-m", "[kprof]", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --module value '[kprof]'"), "annotate: a bad -m names the value");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "--vmlinux", "/nonexistent/vmlinux", NULL);
	ok(r.rc == 1 && strstr(r.err, "'/nonexistent/vmlinux'"), "annotate: a missing --vmlinux is named");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", rec, "a", "b", NULL);
	ok(r.rc == 2 && strstr(r.err, "unexpected argument 'b'"), "annotate: one symbol at most");
	run_free(&r);
	kprofctl(&r, "annotate", "-i", "/nonexistent/kprof.data", NULL);
	ok(r.rc == 1 && strstr(r.err, "/nonexistent/kprof.data"), "annotate: a missing input is named");
	run_free(&r);
	tmpdir__remove(root);
	return done_testing();
}
