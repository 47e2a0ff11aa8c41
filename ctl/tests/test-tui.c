// SPDX-License-Identifier: GPL-2.0
/*
 * The full-screen browser of report and top (lib/tui.c), driven in a
 * terminal of Debian's tmux (a server of its own, -L): the real ./kprofctl
 * on a recording of the toolchain's test program (tests/elf/prog.c):
 * kpt_leaf called from kpt_middle from kpt_outer, kpt_middle alone,
 * kpt_spin.  The first screen has the rows --stdio prints, Down and Enter
 * unfold the call graph -g prints for the second row, '/' filters, 'a'
 * shows annotate's text, q leaves it and q quits, the shell's prompt back
 * on a clean screen.  top's browser is driven through --input (the tests
 * have no module for a live session): the same code path as a refresh.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd-out.h"
#include "elf-maps.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static char sock[64];
static char root[64];

static int tmux(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "tmux -L SOCK ARGS": its exit status. */
static int tmux(const char *fmt, ...)
{
	char args[4096], cmd[4200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "tmux -L %s -f /dev/null %s >/dev/null 2>&1", sock, args);
	return system(cmd);
}

/* What the pane shows, malloc()ed. */
static char *screen(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "tmux -L %s capture-pane -p -t kptui 2>/dev/null", sock);
	return run_out(cmd);
}

static void nap(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * The screen once it shows @want (and not @unwanted, when not NULL), or
 * the last one after 10 seconds.
 */
static char *wait_for(const char *want, const char *unwanted)
{
	char *s = NULL;
	int i;

	for (i = 0; i < 200; i++) {
		free(s);
		s = screen();
		if (s && strstr(s, want) && (!unwanted || !strstr(s, unwanted)))
			return s;
		nap(50);
	}
	return s;
}

/* The keys, then a moment for the browser to draw. */
static void keys(const char *k)
{
	tmux("send-keys -t kptui %s", k);
	nap(200);
}

/* The rows of a --stdio report: its lines that are not comments. */
static int stdio_rows(const char *out, char rows[][256], int max)
{
	const char *s, *nl;
	int n = 0;

	for (s = out; *s && n < max; s = nl + 1) {
		int len;

		nl = strchr(s, '\n');
		if (!nl)
			break;
		len = nl - s;
		if (!len || s[0] == '#' || len >= 256)
			continue;
		memcpy(rows[n], s, len);
		rows[n][len] = '\0';
		n++;
	}
	return n;
}

/* Is each line of @rows on @scr, in order (from their second column: the fold mark)? */
static bool on_screen_in_order(const char *scr, char rows[][256], int n)
{
	const char *at = scr;
	int i;

	for (i = 0; i < n; i++) {
		at = strstr(at, rows[i] + 1);
		if (!at)
			return false;
		at += strlen(rows[i] + 1);
	}
	return true;
}

/* The graph lines below row @row (0-based) of a -g report, non-empty ones. */
static int graph_lines(const char *out, const char *row, char lines[][256], int max)
{
	const char *s = strstr(out, row), *nl;
	int n = 0;

	if (!s)
		return 0;
	s = strchr(s, '\n') + 1;
	for (; *s && n < max; s = nl + 1) {
		int len;

		nl = strchr(s, '\n');
		if (!nl)
			break;
		len = nl - s;
		if (!len)
			break;
		if (len >= 256)
			continue;
		memcpy(lines[n], s, len);
		lines[n][len] = '\0';
		n++;
	}
	return n;
}

/* An instruction line of annotate: "   50.00 :   401136:   add ..." */
static int instruction_lines(const char *scr)
{
	const char *s, *nl;
	int n = 0;

	for (s = scr; *s; s = nl + 1) {
		double pct;
		char addr[32];

		nl = strchr(s, '\n');
		if (sscanf(s, "%lf : %31[0-9a-f]:", &pct, addr) == 2)
			n++;
		if (!nl)
			break;
	}
	return n;
}

/* Nothing of the browser left: the prompt and what the shell printed. */
static bool clean_prompt(const char *scr, const char *rc_line)
{
	const char *last = NULL, *s;

	for (s = scr; *s; s++)
		if (!isspace((unsigned char)*s) && (s == scr || s[-1] == '\n'))
			last = s;
	return strstr(scr, rc_line) && !strstr(scr, "Samples:") && !strstr(scr, "Overhead") &&
	       !strstr(scr, "kpt_leaf") && !strstr(scr, "Annotate") && last &&
	       !strncmp(last, "kptui$", 6) && !strchr(last, '%');
}

static void start_shell(void)
{
	int i, ret = -1;

	/*
	 * The last server may still be exiting (its shell killed with it): a
	 * new-session then fails, so it is tried again, for up to 5 s.
	 */
	tmux("kill-server");
	for (i = 0; i < 50 && ret; i++) {
		if (i)
			nap(100);
		ret = tmux("new-session -d -x 120 -y 40 -s kptui -c %s \"env -u ENV PS1='kptui$ ' sh\"",
			   root);
	}
	ok(!ret, "tmux: a session of 120x40 with a shell");
	free(wait_for("kptui$", NULL));
}

static void report_tests(const char *bin, const char *rec)
{
	char rows[16][256], glines[32][256], *scr;
	char cmd[PATH_MAX * 2 + 128], want[1024];
	int nr, ng, i;
	struct run r;
	bool unfolded_first = false;

	kprofctl(&r, "report", "-i", rec, "--stdio", "--kallsyms", "/dev/null", NULL);
	nr = stdio_rows(r.out, rows, 16);
	ok(r.rc == 0 && nr == 3, "report --stdio: 3 rows (%d)", nr);
	run_free(&r);
	kprofctl(&r, "report", "-i", rec, "--stdio", "-g", "--kallsyms", "/dev/null", NULL);
	ng = nr >= 2 ? graph_lines(r.out, rows[1], glines, 32) : 0;
	ok(r.rc == 0 && ng >= 2, "report --stdio -g: the second row has a call graph (%d lines)", ng);
	run_free(&r);

	start_shell();
	snprintf(cmd, sizeof(cmd), "'%s report -i %s --tui --kallsyms /dev/null; echo kptui-rc=$?' Enter",
		 bin, rec);
	keys(cmd);
	scr = wait_for("Event count (approx.)", NULL);
	ok(strstr(scr, "Samples: 12 of event 'cpu-clock', Event count (approx.): 12000000"),
	   "report --tui: perf's status line, the samples and event count of --stdio");
	ok(on_screen_in_order(scr, rows, nr), "report --tui: the first screen has the %d rows of --stdio, in order", nr);
	ok(strstr(scr, "Overhead  Command  Shared Object") != NULL, "report --tui: the column names");
	for (i = 0; i < ng; i++)
		if (strstr(scr, glines[i]) && strchr(glines[i], '-'))
			unfolded_first = true;
	ok(!unfolded_first, "report --tui: the call graphs are folded at first");
	if (!on_screen_in_order(scr, rows, nr) || unfolded_first)
		diag("screen:\n%s", scr);
	free(scr);

	/* Down, Enter: the second row's graph, right below it */
	keys("Down Enter");
	snprintf(want, sizeof(want), "%.255s\n%.255s", rows[1] + 1, glines[0]);
	scr = wait_for(glines[ng > 1 ? 1 : 0], NULL);
	ok(ng && on_screen_in_order(scr, glines, ng) && strstr(scr, want) &&
	   strstr(scr, rows[2] + 1) > strstr(scr, glines[ng - 1]),
	   "Down Enter: the call graph of the second row (%d lines of -g's) below it, the third row after it",
	   ng);
	if (!ng || !strstr(scr, want))
		diag("screen:\n%s", scr);
	free(scr);

	/* '/kpt_leaf' Enter: only that row */
	keys("/ kpt_leaf Enter");
	scr = wait_for("Filter: 'kpt_leaf'", NULL);
	ok(strstr(scr, rows[0] + 1) && !strstr(scr, "kpt_middle") && !strstr(scr, "kpt_spin"),
	   "/kpt_leaf Enter: the kpt_leaf row alone");
	if (!strstr(scr, rows[0] + 1) || strstr(scr, "kpt_middle"))
		diag("screen:\n%s", scr);
	free(scr);

	/* 'a': annotate of kpt_leaf, its instructions */
	keys("a");
	scr = wait_for("Annotate kpt_leaf", "Annotating");
	ok(strstr(scr, "Annotate kpt_leaf") && strstr(scr, "Percent") && strstr(scr, "<kpt_leaf>:") &&
	   instruction_lines(scr) >= 3,
	   "a: the annotate view of kpt_leaf, %d instruction lines", instruction_lines(scr));
	if (instruction_lines(scr) < 3)
		diag("screen:\n%s", scr);
	free(scr);

	/* q: back to the rows, filtered still; q: quit */
	keys("q");
	scr = wait_for("Event count", NULL);
	ok(strstr(scr, rows[0] + 1) && !strstr(scr, "Annotate kpt_leaf"), "q: back to the rows");
	free(scr);
	keys("h");
	scr = wait_for("Keys of the browser", NULL);
	ok(strstr(scr, "Keys of the browser") && strstr(scr, "annotate the symbol"), "h: the help screen");
	free(scr);
	keys("Escape");
	keys("q");
	scr = wait_for("kptui-rc=", NULL);
	ok(clean_prompt(scr, "kptui-rc=0"),
	   "q, q: exit status 0, the shell's prompt on a screen without the browser's text");
	if (!clean_prompt(scr, "kptui-rc=0"))
		diag("screen:\n%s", scr);
	free(scr);

	/* Escape clears a filter: the three rows again; an empty filter too */
	start_shell();
	snprintf(cmd, sizeof(cmd), "'%s report -i %s --tui --kallsyms /dev/null; echo kptui-rc=$?' Enter",
		 bin, rec);
	keys(cmd);
	free(wait_for("Event count", NULL));
	keys("/ kpt_spin Enter");
	scr = wait_for("Filter: 'kpt_spin'", NULL);
	ok(strstr(scr, rows[2] + 1) && !strstr(scr, rows[0] + 1), "/kpt_spin: the kpt_spin row alone");
	free(scr);
	keys("Escape");
	scr = wait_for(rows[0] + 1, "Filter:");
	ok(on_screen_in_order(scr, rows, nr) && !strstr(scr, "Filter:"), "Escape: the filter cleared");
	free(scr);
	keys("End Enter");
	scr = wait_for("---kpt_spin", NULL);
	ok(strstr(scr, "---kpt_spin") != NULL, "End Enter: the last row's graph");
	free(scr);
	keys("C-c");
	scr = wait_for("kptui-rc=", NULL);
	ok(clean_prompt(scr, "kptui-rc=0"), "Ctrl-C: quits as q does, exit status 0, a clean prompt");
	free(scr);
}

static void top_tests(const char *bin, const char *rec)
{
	char cmd[PATH_MAX * 2 + 128], *scr, *out;
	struct run r;

	kprofctl(&r, "top", "--input", rec, "--kallsyms", "/dev/null", NULL);
	out = r.out;
	ok(r.rc == 0 && strstr(out, "kprofctl top: 12 samples") && strstr(out, "   50.00%  nopie") &&
	   !strstr(out, "\033"), "top --input, not on a terminal: the text table, as before");
	run_free(&r);

	start_shell();
	snprintf(cmd, sizeof(cmd), "'%s top --input %s --tui --kallsyms /dev/null; echo kptui-rc=$?' Enter",
		 bin, rec);
	keys(cmd);
	scr = wait_for("Event count", NULL);
	ok(strstr(scr, "Samples: 12 of event 'cpu-clock', Event count (approx.): 12000000") &&
	   strstr(scr, "   50.00%  nopie          [.] kpt_leaf") &&
	   strstr(scr, "   33.33%  nopie          [.] kpt_middle") &&
	   strstr(scr, "   16.67%  nopie          [.] kpt_spin"),
	   "top --tui: the status line and the rows, with top's shares");
	if (!strstr(scr, "   33.33%  nopie          [.] kpt_middle"))
		diag("screen:\n%s", scr);
	free(scr);
	keys("Down Enter");
	scr = wait_for("---kpt_middle", NULL);
	ok(strstr(scr, "---kpt_middle") && strstr(scr, "kpt_outer"), "top --tui: Down Enter unfolds the call graph");
	free(scr);
	keys("q");
	scr = wait_for("kptui-rc=", NULL);
	ok(clean_prompt(scr, "kptui-rc=0"), "top --tui: q quits, exit status 0, a clean prompt");
	if (!clean_prompt(scr, "kptui-rc=0"))
		diag("screen:\n%s", scr);
	free(scr);
}

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[PATH_MAX], nm[PATH_MAX], rec[256], kprofctl_bin[PATH_MAX];
	uint64_t leaf, middle, outer, spin, mainf;
	struct gen_writer g;
	struct run r;
	int i;

	snprintf(sock, sizeof(sock), "kptui-%d", (int)getpid());
	tmpdir__create(root, sizeof(root));
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!ok(!system("tmux -V >/dev/null 2>&1"), "tmux runs on this machine (tools/deps.sh)") ||
	    !ok(realpath(nm, elf) != NULL, "the test program %s is built", nm) ||
	    !ok(realpath("kprofctl", kprofctl_bin) != NULL, "./kprofctl is built")) {
		tmpdir__remove(root);
		return done_testing();
	}
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	middle = elf_maps__nm_addr(nm, "kpt_middle");
	outer = elf_maps__nm_addr(nm, "kpt_outer");
	spin = elf_maps__nm_addr(nm, "kpt_spin");
	mainf = elf_maps__nm_addr(nm, "main");

	snprintf(rec, sizeof(rec), "%s/kpt.data", root);
	gen__writer(&g, rec, "kprof-gen", "kprofctl record -g -- kpt");
	gen__comm(&g, SC_T0, 500, 500, "kpt", true);
	gen__mmap(&g, SC_T0, 500, 0x401000, 0x1000, 0x1000, elf);
	for (i = 0; i < 6; i++)
		gen__sample(&g, SC_T0 + (i + 1) * SC_MS, 500, 500, 0, 0, 1000000,
			    SC_IPS(leaf + 2 + 2 * (i % 3), middle + 5, outer + 5, mainf + 5), 0, 4);
	for (i = 0; i < 4; i++)
		gen__sample(&g, SC_T0 + (i + 10) * SC_MS, 500, 500, 1, 0, 1000000,
			    SC_IPS(middle + 1, outer + 5, mainf + 5), 0, 3);
	for (i = 0; i < 2; i++)
		gen__sample(&g, SC_T0 + (i + 15) * SC_MS, 500, 500, 1, 0, 1000000,
			    SC_IPS(spin + 1, mainf + 9), 0, 2);
	gen__finish(&g, SC_T0 + 20 * SC_MS);

	kprofctl(&r, "report", "-i", rec, "--stdio", "--tui", NULL);
	ok(r.rc == 2 && strstr(r.err, "--stdio and --tui exclude each other"),
	   "report --stdio --tui: refused");
	run_free(&r);
	/* not a terminal: the text, as --stdio */
	kprofctl(&r, "report", "-i", rec, "--kallsyms", "/dev/null", NULL);
	ok(r.rc == 0 && strstr(r.out, "# Overhead") && !strstr(r.out, "\033"),
	   "report, stdout not a terminal: the text");
	run_free(&r);

	report_tests(kprofctl_bin, rec);
	top_tests(kprofctl_bin, rec);

	tmux("kill-server");
	tmpdir__remove(root);
	return done_testing();
}
