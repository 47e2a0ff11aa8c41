// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of C++ demangling against a C++ program built by the toolchain
 * (the Makefile's $(TEST_ELF)/cxx from tests/elf/cxx.cc, its mangled names
 * in cxx.nm): kp_demangle() itself, the names of the DSO's table with and
 * without demangling, and 'report', 'script', 'folded', 'top' and
 * 'flamegraph' on a recording of that program, with and without
 * --no-demangle.  Names that are not mangled, or not validly, stay as
 * they are; folded lines with demangled names stay parseable.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf-maps.h"
#include "gen.h"
#include "lib/folded.h"
#include "lib/symbols.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

#define BIAS	0x555555554000ULL
#define PID	300

static const char *elf_dir;
static char root[64], cxx[PATH_MAX], data[256];

struct want {
	const char	*mangled;
	const char	*demangled;
	uint64_t	addr;		/* from cxx.nm */
};

enum { METHOD, TWICE, PICK, HIDDEN, USE_HIDDEN, TOP_HIDDEN, PLAIN_C, BOGUS, MAIN, NR_WANTS };

static struct want wants[NR_WANTS] = {
	[METHOD]	= { "_ZN3kpt3Cls6methodEi", "kpt::Cls::method(int)" },
	[TWICE]		= { "_ZN3kpt5twiceIiEET_S1_", "int kpt::twice<int>(int)" },
	[PICK]		= { "_ZN3kpt4pickIilEET_S1_T0_", "int kpt::pick<int, long>(int, long)" },
	[HIDDEN]	= { "_ZN3kpt12_GLOBAL__N_16hiddenEi",
			    "kpt::(anonymous namespace)::hidden(int)" },
	[USE_HIDDEN]	= { "_ZN3kpt10use_hiddenEi", "kpt::use_hidden(int)" },
	[TOP_HIDDEN]	= { "_ZN12_GLOBAL__N_114kpt_top_hiddenEi",
			    "(anonymous namespace)::kpt_top_hidden(int)" },
	[PLAIN_C]	= { "kpt_plain_c", "kpt_plain_c" },
	[BOGUS]		= { "_Zkpt_bogus", "_Zkpt_bogus" },	/* not validly mangled */
	[MAIN]		= { "main", "main" },
};

/* The addresses of wants[] from cxx.nm; how many were found. */
static int read_nm(void)
{
	char path[PATH_MAX + 8], line[512], type, name[256];
	unsigned long long addr;
	int i, found = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/cxx.nm", elf_dir);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		for (i = 0; i < NR_WANTS; i++) {
			if (!strcmp(name, wants[i].mangled) && !wants[i].addr) {
				wants[i].addr = addr;
				found++;
			}
		}
	}
	fclose(fp);
	return found;
}

static void test_kp_demangle(void)
{
	static const struct {
		const char	*in;
		const char	*out;	/* NULL: kept as it is */
	} cases[] = {
		{ "_ZN3kpt3Cls6methodEi", "kpt::Cls::method(int)" },
		{ "_ZN3foo3barEv.cold", "foo::bar() [clone .cold]" },
		{ "_ZnwmPv", "operator new(unsigned long, void*)" },
		{ "_ZN4core3ptr13drop_in_place17h1234567890abcdefE", "core::ptr::drop_in_place" },
		{ "main", NULL },
		{ "_start", NULL },
		{ "", NULL },
		{ "_", NULL },
		{ "_Z", NULL },
		{ "_Zkpt_bogus", NULL },
		{ "_ZN3kpt3Cls6methodE", "kpt::Cls::method" },
		{ "_ZN3kpt3Cls6meth", NULL },		/* truncated */
		{ "_ZN999999999999999999999x", NULL },
	};
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		char *d = kp_demangle(cases[i].in);

		if (cases[i].out)
			is_str(d ? d : "(null)", cases[i].out, "kp_demangle(\"%s\")", cases[i].in);
		else
			ok(!d, "kp_demangle(\"%s\"): not mangled, kept (got %s)", cases[i].in,
			   d ? d : "NULL");
		free(d);
	}
}

/* The DSO's table: demangled names, or with no_demangle the ELF's. */
static void test_dso(bool no_demangle)
{
	const char *how = no_demangle ? "no_demangle" : "demangled";
	struct kp_dso *dso = kp_dso__new(cxx);
	int i, good = 0;

	dso->no_demangle = no_demangle;
	is_int(kp_dso__load_elf(dso, cxx, NULL), 0, "%s: cxx loads", how);
	is_int(dso->origin, KP_DSO_SYMTAB, "%s: cxx: symbols from .symtab", how);
	for (i = 0; i < NR_WANTS; i++) {
		const char *want = no_demangle ? wants[i].mangled : wants[i].demangled;
		const struct kp_sym *s = kp_dso__find(dso, wants[i].addr + 1);

		if (s && !strcmp(s->name, want) && s->start == wants[i].addr)
			good++;
		else
			diag("%s: %s at 0x%" PRIx64 " -> %s", how, want, wants[i].addr,
			     s ? s->name : "NULL");
	}
	is_int(good, NR_WANTS, "%s: every function of cxx resolves to its name", how);
	kp_dso__delete(dso);
}

struct mmap_cxx {
	struct gen_writer	*g;
	uint64_t		time;
};

static void mmap_cxx_one(uint64_t start, uint64_t len, uint64_t pgoff, void *arg)
{
	struct mmap_cxx *m = arg;

	gen__mmap(m->g, m->time, PID, start, len, pgoff, cxx);
}

/* The MMAP of cxx's executable segment at BIAS, as the kernel reports it. */
static void mmap_cxx(struct gen_writer *g, uint64_t time)
{
	struct mmap_cxx m = { g, time };

	elf_maps__exec(cxx, BIAS, mmap_cxx_one, &m);
}

#define IP(w)	(BIAS + wants[w].addr + 1)

static void write_recording(void)
{
	const uint64_t s1[] = { IP(METHOD), IP(TWICE), IP(PICK), IP(MAIN) };
	const uint64_t s2[] = { IP(HIDDEN), IP(USE_HIDDEN), IP(TOP_HIDDEN), IP(MAIN) };
	const uint64_t s3[] = { IP(BOGUS), IP(PLAIN_C), IP(MAIN) };
	struct gen_writer g;
	uint64_t t = 1000000000ULL;
	int i;

	gen__writer(&g, data, "kp-demangle-host", "kprofctl record -g -- ./cxx");
	gen__comm(&g, t, PID, PID, "kp-cxx", true);
	mmap_cxx(&g, t);
	for (i = 0; i < 3; i++)
		gen__sample(&g, t + 1000 + i, PID, PID, 0, 0, 1000, s1, 0, 4);
	for (i = 0; i < 2; i++)
		gen__sample(&g, t + 2000 + i, PID, PID, 1, 0, 1000, s2, 0, 4);
	gen__sample(&g, t + 3000, PID, PID, 0, 0, 1000, s3, 0, 3);
	gen__finish(&g, t + 4000);
}

/* "kprofctl CMD -i DATA --kallsyms /nonexistent ARGS..." (NULL-terminated). */
static void decode(struct run *r, const char *cmd, ...)
{
	const char *pre[] = { cmd, strcmp(cmd, "top") ? "-i" : "--input", data,
			      "--kallsyms", "/nonexistent/kallsyms" };
	va_list ap;

	va_start(ap, cmd);
	run_va(r, pre, KP_ARRAY_SIZE(pre), ap);
	va_end(ap);
}

static const char folded_demangled[] =
	"kp-cxx;main;(anonymous namespace)::kpt_top_hidden;kpt::use_hidden;"
	"kpt::(anonymous namespace)::hidden 2\n"
	"kp-cxx;main;int kpt::pick<int, long>;int kpt::twice<int>;kpt::Cls::method 3\n"
	"kp-cxx;main;kpt_plain_c;_Zkpt_bogus 1\n";

static const char folded_mangled[] =
	"kp-cxx;main;_ZN12_GLOBAL__N_114kpt_top_hiddenEi;_ZN3kpt10use_hiddenEi;"
	"_ZN3kpt12_GLOBAL__N_16hiddenEi 2\n"
	"kp-cxx;main;_ZN3kpt4pickIilEET_S1_T0_;_ZN3kpt5twiceIiEET_S1_;_ZN3kpt3Cls6methodEi 3\n"
	"kp-cxx;main;kpt_plain_c;_Zkpt_bogus 1\n";

/* Every line of @out parses back into its stack (frames intact) and count. */
static void check_folded_parse(const char *out, const char *what)
{
	const char *line = out, *nl;
	int lines = 0, good = 0;

	for (; (nl = strchr(line, '\n')); line = nl + 1) {
		struct kp_folded_line l;
		const char *sp = nl;

		while (sp > line && sp[-1] != ' ')
			sp--;
		lines++;
		if (!kp_folded__parse_line(line, nl - line, false, &l) &&
		    l.len == (size_t)(sp - 1 - line) &&
		    l.count == strtoull(sp, NULL, 10))
			good++;
		else
			diag("%s: bad line %.*s", what, (int)(nl - line), line);
	}
	ok(lines == 3 && good == lines, "%s: the lines parse back (%d of %d)", what, good, lines);
}

static void test_commands(void)
{
	char svg[128], exe[PATH_MAX], *text;
	const char *saved = kp_folded_exe;
	struct run r;

	decode(&r, "report", "--sort", "symbol", NULL);
	ok(r.rc == 0 && strstr(r.out, "[.] kpt::Cls::method(int)\n") &&
	   strstr(r.out, "[.] kpt::(anonymous namespace)::hidden(int)\n") &&
	   strstr(r.out, "[.] _Zkpt_bogus\n") && !strstr(r.out, "_ZN3kpt"),
	   "report: demangled names; the bogus one as it is");
	if (r.rc)
		diag("%s%s", r.out, r.err);
	run_free(&r);

	decode(&r, "report", "--sort", "symbol", "--no-demangle", NULL);
	ok(r.rc == 0 && strstr(r.out, "[.] _ZN3kpt3Cls6methodEi\n") &&
	   strstr(r.out, "[.] _Zkpt_bogus\n") && !strstr(r.out, "kpt::"),
	   "report --no-demangle: the ELF file's names");
	run_free(&r);

	decode(&r, "report", "-g", NULL);
	ok(r.rc == 0 && strstr(r.out, "---kpt::Cls::method(int)\n") &&
	   strstr(r.out, "int kpt::twice<int>(int)\n") &&
	   strstr(r.out, "int kpt::pick<int, long>(int, long)\n"),
	   "report -g: demangled call graph");
	run_free(&r);

	decode(&r, "folded", NULL);
	is_str(r.out, folded_demangled, "folded: demangled names, tidied as stackcollapse-perf.pl");
	ok(r.rc == 0 && !*r.err, "folded: exit 0, nothing on stderr");
	check_folded_parse(r.out, "folded");
	run_free(&r);

	decode(&r, "folded", "--no-demangle", NULL);
	is_str(r.out, folded_mangled, "folded --no-demangle: mangled names");
	check_folded_parse(r.out, "folded --no-demangle");
	run_free(&r);

	decode(&r, "script", NULL);
	ok(r.rc == 0 && strstr(r.out, " kpt::Cls::method(int)+0x1 (") &&
	   strstr(r.out, " int kpt::pick<int, long>(int, long)+0x1 (") &&
	   strstr(r.out, " _Zkpt_bogus+0x1 ("), "script: demangled names");
	run_free(&r);

	decode(&r, "script", "--no-demangle", NULL);
	ok(r.rc == 0 && strstr(r.out, " _ZN3kpt3Cls6methodEi+0x1 (") && !strstr(r.out, "kpt::"),
	   "script --no-demangle: mangled names");
	run_free(&r);

	decode(&r, "top", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kpt::Cls::method(int)"), "top --input: demangled names");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);

	decode(&r, "top", "--once", "--no-demangle", NULL);
	ok(r.rc == 0 && strstr(r.out, "_ZN3kpt3Cls6methodEi") && !strstr(r.out, "kpt::"),
	   "top --input --no-demangle: mangled names");
	run_free(&r);

	/* flamegraph and diff convert kprof.data with 'kprofctl folded' */
	snprintf(svg, sizeof(svg), "%s/flame.svg", root);
	if (!realpath("kprofctl", exe)) {
		ok(1, "flamegraph # SKIP no ./kprofctl");
		ok(1, "flamegraph --no-demangle # SKIP no ./kprofctl");
		return;
	}
	kp_folded_exe = exe;
	kprofctl(&r, "flamegraph", "-i", data, "-o", svg, NULL);
	text = tmpdir__slurp(svg, NULL);
	ok(r.rc == 0 && text && strstr(text, "kpt::Cls::method") &&
	   strstr(text, "int kpt::pick&lt;int, long&gt;") && !strstr(text, "_ZN3kpt"),
	   "flamegraph: demangled names");
	if (r.rc)
		diag("%s", r.err);
	free(text);
	run_free(&r);
	kprofctl(&r, "flamegraph", "-i", data, "-o", svg, "--no-demangle", NULL);
	text = tmpdir__slurp(svg, NULL);
	ok(r.rc == 0 && text && strstr(text, "_ZN3kpt3Cls6methodEi") && !strstr(text, "kpt::"),
	   "flamegraph --no-demangle: mangled names");
	free(text);
	run_free(&r);
	kprofctl(&r, "diff", "--folded", data, data, "--no-demangle", NULL);
	ok(r.rc == 0 && strstr(r.out, "_ZN3kpt3Cls6methodEi") && !strstr(r.out, "kpt::"),
	   "diff --no-demangle: mangled names");
	run_free(&r);
	kp_folded_exe = saved;
}

int main(void)
{
	char path[PATH_MAX + 8];

	elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	test_kp_demangle();
	snprintf(path, sizeof(path), "%s/cxx", elf_dir);
	if (!realpath(path, cxx)) {
		ok(0, "%s exists (make -C ctl test builds it with g++)", path);
		return done_testing();
	}
	is_int(read_nm(), NR_WANTS, "cxx.nm lists the test functions");
	tmpdir__create(root, sizeof(root));
	snprintf(data, sizeof(data), "%s/kprof.data", root);
	test_dso(false);
	test_dso(true);
	write_recording();
	test_commands();
	tmpdir__remove(root);
	return done_testing();
}
