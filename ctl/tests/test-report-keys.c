// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl report's perf habits, checked against perf report itself
 * (Debian's linux-perf, on the host) on the converted recording: the sort
 * keys srcline, parent (and --parent), period, --max-stack with --children,
 * and -T/--threads; then the refusals of bad values.
 *
 * The recording: the toolchain's non-PIE test program (tests/elf/prog.c,
 * with line tables), two threads of one process and a second process;
 * samples at several instructions of kpt_leaf (called from kpt_middle,
 * kpt_outer, main), in kpt_middle, and in kpt_spin (called from main),
 * with periods that differ, on two CPUs.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd-out.h"
#include "elf-maps.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64];
static char rec[256], pd[256];

/* The recording of the comment above, and its perf.data. */
#define LIB_MAP	0x7f0000001000ULL

static int make_recording(const char *elf, const char *lib, const char *nm)
{
	uint64_t leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	uint64_t middle = elf_maps__nm_addr(nm, "kpt_middle");
	uint64_t outer = elf_maps__nm_addr(nm, "kpt_outer");
	uint64_t spin = elf_maps__nm_addr(nm, "kpt_spin");
	uint64_t mainf = elf_maps__nm_addr(nm, "main");
	struct gen_writer g;
	struct run r;
	uint64_t t = SC_T0;
	int i, rc;

	if (!leaf || !middle || !outer || !spin || !mainf)
		return -1;
	snprintf(rec, sizeof(rec), "%s/kpt.data", root);
	snprintf(pd, sizeof(pd), "%s/kpt.perf", root);
	gen__writer(&g, rec, "kprof-gen", "kprofctl record -g -- kpt");
	gen__comm(&g, t, 500, 500, "kpt", true);
	gen__comm(&g, t, 500, 501, "kpt-worker", false);
	gen__comm(&g, t, 600, 600, "kpt2", true);
	gen__mmap(&g, t, 500, 0x401000, 0x1000, 0x1000, elf);
	gen__mmap(&g, t, 600, 0x401000, 0x1000, 0x1000, elf);
	gen__mmap(&g, t, 600, LIB_MAP, 0x1000, 0x1000, lib);
	/* kpt_leaf's loop (two lines of it), from kpt_middle, kpt_outer, main */
	for (i = 0; i < 7; i++)
		gen__sample(&g, t += SC_MS, 500, 500, 0, 0, 1000000,
			    SC_IPS(leaf + (i % 3 ? 0x0e : 0x04), middle + 5, outer + 5, mainf + 15),
			    0, 4);
	/* kpt_middle after the call, with twice the period, on the worker */
	for (i = 0; i < 3; i++)
		gen__sample(&g, t += SC_MS, 500, 501, 1, 0, 2000000,
			    SC_IPS(middle + 5, outer + 5, mainf + 15), 0, 3);
	/* kpt_spin from main, in the second process */
	for (i = 0; i < 4; i++)
		gen__sample(&g, t += SC_MS, 600, 600, 1, 0, 500000 + 250000 * (i % 2),
			    SC_IPS(spin + 6, mainf + 8), 0, 2);
	/* a stripped library (symbols, no line tables), an address in no mapping */
	gen__sample(&g, t += SC_MS, 600, 600, 0, 0, 1000000, SC_IPS(LIB_MAP + 0x118, mainf + 8),
		    0, 2);
	gen__sample(&g, t += SC_MS, 600, 600, 0, 0, 1000000, SC_IPS(0x7f7700000010ULL), 0, 1);
	gen__finish(&g, t + SC_MS);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	rc = r.rc;
	if (rc)
		diag("%s", r.err);
	run_free(&r);
	return rc;
}

#define MAX_ROWS	64

/* A row of a --stdio table: its shares and its columns, joined by '|'. */
struct row {
	double	share[2];
	char	key[256];
};

struct table {
	int		nr;
	struct row	rows[MAX_ROWS];
};

/*
 * The rows of report --stdio text @out: the lines that start with a
 * percentage (not the call graph's); columns are separated by two spaces
 * or more, so that the two tools' widths do not matter.
 */
static void parse_rows(const char *out, bool children, struct table *t)
{
	const char *line, *end;

	t->nr = 0;
	for (line = out; *line; line = *end ? end + 1 : end) {
		const char *c = line;
		char *k;
		int n = 0, i;

		end = strchrnul(line, '\n');
		while (c < end && *c == ' ')
			c++;
		if (c == end || *c < '0' || *c > '9' || t->nr == MAX_ROWS)
			continue;
		for (i = 0; i < (children ? 2 : 1); i++) {
			if (sscanf(c, "%lf%%%n", &t->rows[t->nr].share[i], &n) != 1)
				break;
			c += n;
			while (c < end && *c == ' ')
				c++;
		}
		if (i < (children ? 2 : 1))
			continue;
		k = t->rows[t->nr].key;
		while (c < end && k < t->rows[t->nr].key + sizeof(t->rows[0].key) - 2) {
			if (c[0] == ' ' && c + 1 < end && c[1] == ' ') {
				while (c < end && *c == ' ')
					c++;
				if (c < end)
					*k++ = '|';
				continue;
			}
			if (*c == ' ' && c + 1 == end)
				break;
			*k++ = *c++;
		}
		*k = '\0';
		t->nr++;
	}
}

/* kprofctl report -i rec --stdio --kallsyms /dev/null @args (split at spaces). */
static void report(struct run *r, const char *args)
{
	const char *argv[RUN_MAX_ARGS + 1] = { "kprofctl", "report", "-i", rec, "--stdio",
					       "--kallsyms", "/dev/null" };
	char *copy = strdup(args), *tok, *save = NULL;
	int argc = 7;

	for (tok = strtok_r(copy, " ", &save); tok && argc < RUN_MAX_ARGS;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	run_argv(r, argc, argv);
	free(copy);
}

/*
 * kprofctl report @kargs against perf report @pargs on the converted
 * recording: the same rows (by their columns), each share within 0.01.
 */
static void same_as_perf(const char *kargs, const char *pargs, bool children)
{
	static struct table kt, pt;
	char cmd[1024], why[512] = "";
	struct run r;
	char *out;
	int i, j;

	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --stdio %s 2>/dev/null", root, pd,
		 pargs);
	out = run_out(cmd);
	parse_rows(out ? out : "", children, &pt);
	report(&r, kargs);
	parse_rows(r.out, children, &kt);
	if (r.rc)
		snprintf(why, sizeof(why), "exit %d", r.rc);
	else if (!pt.nr || pt.nr != kt.nr)
		snprintf(why, sizeof(why), "%d rows, perf's %d", kt.nr, pt.nr);
	for (i = 0; !why[0] && i < pt.nr; i++) {
		for (j = 0; j < kt.nr; j++)
			if (!strcmp(kt.rows[j].key, pt.rows[i].key))
				break;
		if (j == kt.nr) {
			snprintf(why, sizeof(why), "no row '%s'", pt.rows[i].key);
			break;
		}
		if (fabs(kt.rows[j].share[0] - pt.rows[i].share[0]) > 0.01 ||
		    (children && fabs(kt.rows[j].share[1] - pt.rows[i].share[1]) > 0.01))
			snprintf(why, sizeof(why), "'%s': %.2f%% (%.2f%%), perf's %.2f%% (%.2f%%)",
				 pt.rows[i].key, kt.rows[j].share[0], kt.rows[j].share[1],
				 pt.rows[i].share[0], pt.rows[i].share[1]);
	}
	if (!ok(!why[0], "report %s: perf report %s's %d rows and shares", kargs, pargs, pt.nr)) {
		diag("%s", why);
		diag("perf:\n%s", out ? out : "");
		diag("kprofctl:\n%s%s", r.out, r.err);
	}
	free(out);
	run_free(&r);
}

/* One line on stderr, exit 2, naming @what. */
static void refused(const char *args, const char *what)
{
	struct run r;
	const char *nl;

	report(&r, args);
	nl = strchr(r.err, '\n');
	if (!ok(r.rc == 2 && !r.out[0] && strstr(r.err, "kprofctl: report: ") && strstr(r.err, what) &&
		nl && !nl[1], "report %s: refused in one line naming %s", args, what))
		diag("exit %d: %s", r.rc, r.err);
	run_free(&r);
}

/*
 * -T: perf's table layout ("# PID  TID", then a column per event), a row
 * per thread whose count is its share of the event as perf report --sort
 * pid (perf's thread key) gives it.
 */
static void test_threads(void)
{
	static struct table pt;
	char cmd[1024], *out, *hdr, want[64];
	const char *line;
	unsigned long long value, sum = 0, total = 0;
	unsigned int pid, tid;
	int rows = 0, good = 0, i;
	struct run r;

	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --stdio -T --sort comm 2>/dev/null",
		 root, pd);
	out = run_out(cmd);
	hdr = out ? strstr(out, "\n# PID  TID") : NULL;
	report(&r, "-T --sort comm");
	ok(r.rc == 0 && hdr && strstr(r.out, "\n# PID  TID  cpu-clock\n"),
	   "report -T: perf's header line, '# PID  TID', and a column for the event");
	free(out);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -i %s --stdio --no-children -g none --sort pid 2>/dev/null",
		 root, pd);
	out = run_out(cmd);
	parse_rows(out ? out : "", false, &pt);
	line = strstr(r.out, "# Event count (approx.): ");
	if (line)
		sscanf(line, "# Event count (approx.): %llu", &total);
	line = strstr(r.out, "\n# PID  TID");
	for (line = line ? strchr(line + 1, '\n') : NULL; line && line[1]; line = strchr(line + 1, '\n')) {
		if (sscanf(line + 1, " %u %u %llu", &pid, &tid, &value) != 3)
			break;
		rows++;
		sum += value;
		snprintf(want, sizeof(want), "%u:", tid);
		for (i = 0; i < pt.nr; i++)
			if (!strncmp(pt.rows[i].key, want, strlen(want)) && total &&
			    fabs(100.0 * value / total - pt.rows[i].share[0]) <= 0.01)
				good++;
	}
	if (!ok(rows == 3 && good == 3 && sum == total && pt.nr == 3,
		"report -T: 3 threads, each with its share of perf report --sort pid (%d rows, %d as perf, %llu of %llu)",
		rows, good, sum, total))
		diag("%s\nperf:\n%s", r.out, out ? out : "");
	free(out);
	run_free(&r);
}

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[4096], lib[4096], nm[4096];

	tmpdir__create(root, sizeof(root));
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!ok(!system("perf --version >/dev/null 2>&1"), "perf runs on this machine") ||
	    !ok(realpath(nm, elf) != NULL, "the test program %s is built", nm)) {
		tmpdir__remove(root);
		return done_testing();
	}
	snprintf(nm, sizeof(nm), "%s/stripped.so", elf_dir);
	if (!realpath(nm, lib))
		snprintf(lib, sizeof(lib), "%s", nm);
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	if (!ok(make_recording(elf, lib, nm) == 0, "the recording, converted to perf.data")) {
		tmpdir__remove(root);
		return done_testing();
	}

	/* the keys perf has, flat */
	same_as_perf("--sort srcline", "--no-children -g none --sort srcline", false);
	same_as_perf("--sort srcline,sym,dso", "--no-children -g none --sort srcline,sym,dso", false);
	same_as_perf("--sort comm,period", "--no-children -g none --sort comm,period", false);
	same_as_perf("--sort sym,period", "--no-children -g none --sort sym,period", false);
	same_as_perf("--sort period", "--no-children -g none --sort period", false);
	same_as_perf("--sort sym,parent", "--no-children -g none --sort sym,parent", false);
	/* --parent: the first match of the chain, from the sampled function on */
	same_as_perf("-p ^kpt_ --sort comm", "--no-children -g none -p ^kpt_ --sort comm", false);
	same_as_perf("--parent=kpt_outer --sort sym", "--no-children -g none --parent=kpt_outer --sort sym",
		     false);
	same_as_perf("-p main -x --sort parent", "--no-children -g none -p main -x --sort parent", false);
	/* --max-stack: the chain cut, callee order from the sample, caller order from main */
	same_as_perf("--max-stack 3 -p main --sort sym", "--no-children -g none --max-stack 3 -p main --sort sym",
		     false);
	same_as_perf("--max-stack 3 -p main --sort sym -g caller",
		     "--no-children -g caller --max-stack 3 -p main --sort sym", false);
	same_as_perf("--children --max-stack 2 --sort sym", "--children -g callee --max-stack 2 --sort sym",
		     true);
	same_as_perf("--children --max-stack 2 -g caller --sort sym",
		     "--children -g caller --max-stack 2 --sort sym", true);
	same_as_perf("--children --max-stack 0 --sort sym", "--children -g callee --max-stack 0 --sort sym",
		     true);
	same_as_perf("--children --sort comm,sym", "--children -g callee --sort comm,sym", true);
	test_threads();

	/* bad values: one line naming them */
	refused("--sort sym,bogus", "'bogus'");
	refused("--sort symoff", "'symoff'");
	refused("--max-stack x", "--max-stack value 'x'");
	refused("--max-stack -1", "--max-stack value '-1'");
	refused("--max-stack 12frames", "--max-stack value '12frames'");
	refused("--parent (", "--parent regex '('");
	refused("--sort parent -p [z-a]", "--parent regex '[z-a]'");

	if (getenv("KP_KEEP"))
		diag("kept: %s", root);
	else
		tmpdir__remove(root);
	return done_testing();
}
