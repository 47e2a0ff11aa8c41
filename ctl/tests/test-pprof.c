// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl pprof' on the recording of tests/scenario.h: the profile is
 * unpacked with protobuf-c and checked against the recording (every
 * sample counted once, time in nanoseconds, the ids consistent, names and
 * labels), then read by the real client, Debian's 'go tool pprof': its
 * -top must name the same top function as 'kprofctl report', with the
 * same share within 1 %, and -raw must list the samples.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/decode.h"
#include "lib/util.h"
#include "elf-maps.h"
#include "pprof-load.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], data[256], kallsyms[256], debugdir[128], out[256];

static void decode(struct run *r, const char *cmd, ...)
{
	const char *pre[] = { cmd, "-i", data, "--symfs", root, "--kallsyms", kallsyms,
			      "--debug-dir", debugdir };
	va_list ap;

	va_start(ap, cmd);
	run_va(r, pre, KP_ARRAY_SIZE(pre), ap);
	va_end(ap);
}

/* The samples and the cpu-clock periods of the recording, as the decoder counts them. */
static void recording_totals(uint64_t *samples, uint64_t *cpu_period)
{
	struct kp_decode_opts opts = { 0 };
	struct kp_decoder d;
	struct kp_err err;

	opts.machine.symfs = root;
	opts.machine.kallsyms = kallsyms;
	*samples = *cpu_period = 0;
	if (kp_decoder__open(&d, data, &opts, &err)) {
		diag("%s", err.msg);
		return;
	}
	*samples = d.nr_samples;
	*cpu_period = d.events[0].period;
	kp_decoder__close(&d);
}

static void test_profile(void)
{
	Perftools__Profiles__Profile *p;
	uint64_t samples = 0, cpu = 0, want_samples, want_cpu;
	bool ids = true, leaf_named = false, pid_label = false;
	size_t i, j, k;
	struct run r;

	decode(&r, "pprof", "-o", out, NULL);
	ok(r.rc == 0 && strstr(r.err, "stacks to ") != NULL, "pprof -o FILE: exit 0, says what it wrote");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	p = pprof_load(out);
	ok(p != NULL, "the file is a gzip'd profile.proto Profile");
	if (!p)
		return;
	ok(p->n_string_table && !strcmp(p->string_table[0], ""), "string_table[0] is \"\"");
	ok(p->n_sample_type == 2 && !strcmp(pprof_str(p, p->sample_type[0]->type), "samples") &&
	   !strcmp(pprof_str(p, p->sample_type[0]->unit), "count") &&
	   !strcmp(pprof_str(p, p->sample_type[1]->type), "cpu") &&
	   !strcmp(pprof_str(p, p->sample_type[1]->unit), "nanoseconds"),
	   "sample types: samples/count, cpu/nanoseconds (cpu-clock first)");
	ok(p->period_type && !strcmp(pprof_str(p, p->period_type->type), "cpu") && p->period == 1000000,
	   "period: cpu, the recording's 1 ms");
	ok(p->n_comment == 1 &&
	   !strcmp(pprof_str(p, p->comment[0]), "kprofctl record -a -g -e cpu-clock,page-faults"),
	   "comment: the recording's command line");
	ok(p->time_nanos > 0 && p->duration_nanos > 0, "time_nanos and duration_nanos set");

	for (i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		if (s->n_value != 2) {
			ids = false;
			continue;
		}
		samples += s->value[0];
		cpu += s->value[1];
		for (j = 0; j < s->n_location_id; j++)
			if (!s->location_id[j] || s->location_id[j] > p->n_location ||
			    p->location[s->location_id[j] - 1]->id != s->location_id[j])
				ids = false;
		for (k = 0; k < s->n_label; k++)
			if (!strcmp(pprof_str(p, s->label[k]->key), "pid") && s->label[k]->num == 100)
				pid_label = true;
	}
	for (i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *l = p->location[i];

		if (l->mapping_id > p->n_mapping)
			ids = false;
		for (j = 0; j < l->n_line; j++) {
			uint64_t f = l->line[j]->function_id;

			if (!f || f > p->n_function || p->function[f - 1]->id != f)
				ids = false;
			else if (!strcmp(pprof_str(p, p->function[f - 1]->name), "app_leaf"))
				leaf_named = true;
		}
	}
	recording_totals(&want_samples, &want_cpu);
	ok(samples == want_samples && samples > 0,
	   "every sample counted once: %" PRIu64 " in the profile, %" PRIu64 " recorded",
	   samples, want_samples);
	ok(cpu == want_cpu, "cpu: the cpu-clock periods, %" PRIu64 " ns (recorded %" PRIu64 ")",
	   cpu, want_cpu);
	ok(ids, "location, function and mapping ids are consistent, leaf first");
	ok(leaf_named, "functions are named from the symbols (app_leaf)");
	ok(pid_label, "samples carry a pid label (100)");
	for (i = 0, k = 0; i < p->n_mapping; i++)
		if (!strcmp(pprof_str(p, p->mapping[i]->filename), "[kernel.kallsyms]"))
			k++;
	ok(k == 1, "the kernel has its own mapping, [kernel.kallsyms]");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

static void test_go_pprof(void)
{
	char cmd[1024], line[1024], fn[128] = "", rfn[128] = "";
	double flat = -1, rep = -2;
	struct run r;
	char *p;

	if (system("command -v go >/dev/null 2>&1")) {
		ok(0, "go tool pprof is installed (tools/deps.sh installs golang-go)");
		return;
	}
	/* the first row under the header: "flat flat% sum% cum cum% name" */
	snprintf(cmd, sizeof(cmd),
		 "HOME=%s go tool pprof -top -sample_index=cpu %s 2>&1 | sed -n '/flat%%/,$p' | sed -n 2p",
		 root, out);
	pprof_first_line(cmd, "%", line, sizeof(line));
	if (sscanf(line, "%*s %lf%% %*s %*s %*s %127s", &flat, fn) != 2)
		diag("go tool pprof -top: '%s'", line);
	decode(&r, "report", "--sort", "sym", "--stdio", NULL);
	p = r.out ? strstr(r.out, "\n    ") : NULL;
	if (!p || sscanf(p + 1, "%lf%% [%*c] %127s", &rep, rfn) != 2)
		diag("kprofctl report: %s", r.out ? r.out : "");
	run_free(&r);
	ok(fn[0] && !strcmp(fn, rfn),
	   "go tool pprof -top: the top function is report's (%s, %s)", fn, rfn);
	ok(flat >= 0 && rep > 0 && flat > rep - 1 && flat < rep + 1,
	   "go tool pprof -top: its share within 1 %% of report's (%.2f %%, %.2f %%)", flat, rep);
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw %s 2>&1", root, out);
	pprof_first_line(cmd, "app_leaf", line, sizeof(line));
	ok(line[0] != '\0', "go tool pprof -raw lists the samples' frames (app_leaf)");
}

/* The line of tests/elf/prog.c that defines @fn ("int fn(int n)"). */
static int src_line(const char *fn)
{
	char line[256], want[64];
	int n = 0;
	FILE *fp = fopen("tests/elf/prog.c", "r");

	snprintf(want, sizeof(want), " %s(", fn);
	while (fp && fgets(line, sizeof(line), fp)) {
		n++;
		if (strstr(line, want) && !strchr(line, ';')) {
			fclose(fp);
			return n;
		}
	}
	if (fp)
		fclose(fp);
	return -1;
}

/*
 * Source lines: a recording of the toolchain's non-PIE test program
 * (-g, tests/elf/prog.c), a sample in kpt_leaf called from kpt_middle:
 * each Function names prog.c and the line that defines it, the leaf's
 * Line is within kpt_leaf and the caller's (a return address) within
 * kpt_middle; go tool pprof prints them; --no-srcline leaves them out.
 */
static void test_srclines(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[4096], nm[4096], rec[256], prof[256], cmd[1024], line[1024];
	uint64_t leaf, middle;
	Perftools__Profiles__Profile *p;
	int leaf_line = src_line("kpt_leaf"), middle_line = src_line("kpt_middle");
	int outer_line = src_line("kpt_outer");
	bool fn_leaf = false, fn_middle = false, ln_leaf = false, ln_middle = false;
	struct gen_writer g;
	struct run r;
	size_t i, j;

	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!realpath(nm, elf)) {
		ok(0, "the test program %s is built", nm);
		return;
	}
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	middle = elf_maps__nm_addr(nm, "kpt_middle");
	snprintf(rec, sizeof(rec), "%s/srcline.data", root);
	snprintf(prof, sizeof(prof), "%s/srcline.pb.gz", root);
	gen__writer(&g, rec, "kprof-gen", "kprofctl record -g");
	gen__comm(&g, SC_T0, 500, 500, "kpt", false);
	/* its text segment: file offset 0x1000 at 0x401000 */
	gen__mmap(&g, SC_T0, 500, 0x401000, 0x1000, 0x1000, elf);
	for (i = 0; i < 10; i++)
		gen__sample(&g, SC_T0 + (i + 1) * SC_MS, 500, 500, 0, 0, 1000000,
			    SC_IPS(leaf + 2, middle + 5), 0, 2);
	gen__finish(&g, SC_T0 + 20 * SC_MS);

	kprofctl(&r, "pprof", "-i", rec, "--kallsyms", kallsyms, "-o", prof, NULL);
	ok(r.rc == 0, "pprof of the test program's recording: exit 0");
	run_free(&r);
	p = pprof_load(prof);
	for (i = 0; p && i < p->n_function; i++) {
		const char *name = pprof_str(p, p->function[i]->name);
		const char *file = pprof_str(p, p->function[i]->filename);
		bool in_prog = strstr(file, "tests/elf/prog.c") != NULL;

		fn_leaf |= !strcmp(name, "kpt_leaf") && in_prog &&
			   p->function[i]->start_line == leaf_line;
		fn_middle |= !strcmp(name, "kpt_middle") && in_prog &&
			     p->function[i]->start_line == middle_line;
	}
	for (i = 0; p && i < p->n_location; i++) {
		for (j = 0; j < p->location[i]->n_line; j++) {
			int64_t l = p->location[i]->line[j]->line;

			if (p->location[i]->address == leaf + 2)
				ln_leaf = l >= leaf_line && l < middle_line;
			if (p->location[i]->address == middle + 5)
				ln_middle = l >= middle_line && l < outer_line;
		}
	}
	ok(fn_leaf && fn_middle,
	   "Functions: kpt_leaf and kpt_middle in tests/elf/prog.c, from their lines (%d, %d)",
	   leaf_line, middle_line);
	ok(ln_leaf && ln_middle,
	   "Lines: the leaf's within kpt_leaf, the return address's within kpt_middle");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);

	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw %s 2>&1", root, prof);
	pprof_first_line(cmd, "kpt_leaf ", line, sizeof(line));
	ok(strstr(line, "prog.c:") != NULL, "go tool pprof -raw: kpt_leaf at prog.c:LINE ('%s')", line);

	kprofctl(&r, "pprof", "-i", rec, "--kallsyms", kallsyms, "-o", prof, "--no-srcline", NULL);
	run_free(&r);
	p = pprof_load(prof);
	for (i = 0, j = 0; p && i < p->n_function; i++)
		j += p->function[i]->filename != 0 || p->function[i]->start_line != 0;
	ok(p && !j, "--no-srcline: no source file in any Function");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
}

static void test_bad(void)
{
	struct run r;

	decode(&r, "pprof", "-o", "", NULL);
	ok(r.rc == 2 && strstr(r.err, "empty -o/--output"), "pprof -o '': one line, exit 2");
	run_free(&r);
	decode(&r, "pprof", "-o", "/nonexistent/dir/x.pb.gz", NULL);
	ok(r.rc == 1 && strstr(r.err, "cannot create '/nonexistent/dir/x.pb.gz'"),
	   "pprof -o in a missing directory: the path named, exit 1");
	run_free(&r);
	kprofctl(&r, "pprof", "-i", "/nonexistent.data", NULL);
	ok(r.rc == 1 && strstr(r.err, "/nonexistent.data"), "pprof -i of no file: named, exit 1");
	run_free(&r);
	kprofctl(&r, "pprof", "--help", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprofctl pprof [-i <file> | --live]"), "pprof --help");
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	snprintf(data, sizeof(data), "%s/kprof.data", root);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
	snprintf(debugdir, sizeof(debugdir), "%s/debug", root);
	snprintf(out, sizeof(out), "%s/profile.pb.gz", root);
	sc__golden(root, data);

	test_profile();
	test_go_pprof();
	test_srclines();
	test_bad();
	return done_testing();
}
