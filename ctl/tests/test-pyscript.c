// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl script -s (perf-style Python scripts, lib/pyscript.c) and -g
 * python, checked against perf script -s itself (Debian's linux-perf) on
 * the converted recording: a process_event() script on samples of the
 * toolchain's test program, a tracepoint handler script on
 * tests/tp-record.h's recording; both print the same lines (in any
 * order: perf's and kprof's sample orders may differ among equal times).
 * Then the generated script, and the refusals.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd-out.h"
#include "elf-maps.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"
#include "tp-record.h"

static char root[64];

/*
 * CPython frees not all it allocates when it stops (Py_FinalizeEx()), and
 * the tests start it once a kprofctl script -s: not kprof's leaks.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libpython3\n";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* @text's lines sorted, joined again: a multiset of lines as a string. */
static char *sorted_lines(const char *text)
{
	char *copy = strdup(text), **lines, *p, *out;
	size_t n = 0, i, len = strlen(text) + 2;

	lines = calloc(len, sizeof(*lines));
	out = calloc(1, len);
	if (!copy || !lines || !out)
		abort();
	for (p = strtok(copy, "\n"); p; p = strtok(NULL, "\n"))
		lines[n++] = p;
	qsort(lines, n, sizeof(*lines), cmp_str);
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(lines);
	free(copy);
	return out;
}

/* kprofctl script -s @py @arg on @rec against perf script -s @py @arg on @pd. */
static void same_as_perf(const char *what, const char *rec, const char *pd, const char *py,
			 const char *arg, int want_lines)
{
	char cmd[1024], *perf, *mine, *theirs;
	struct run r;

	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -s %s %s 2>/dev/null", root, pd, py, arg);
	perf = run_out(cmd);
	kprofctl(&r, "script", "-i", rec, "--kallsyms", "/dev/null", "-s", py, arg, NULL);
	mine = sorted_lines(r.out);
	theirs = sorted_lines(perf ? perf : "");
	if (!ok(r.rc == 0 && !strcmp(mine, theirs) && count_lines(r.out) == want_lines,
		"%s: perf script -s's lines (%d of %d)", what, count_lines(r.out), want_lines)) {
		diag("perf:\n%s", perf ? perf : "");
		diag("kprofctl (%d):\n%s%s", r.rc, r.out, r.err);
	}
	free(mine);
	free(theirs);
	free(perf);
	run_free(&r);
}

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp))
		abort();
}

static const char process_py[] =
	"import sys\n"
	"n = 0\n"
	"def trace_begin():\n"
	"    print('argv', sys.argv[1:])\n"
	"def process_event(param_dict):\n"
	"    global n\n"
	"    n += 1\n"
	"    s = param_dict['sample']\n"
	"    print(param_dict['comm'], param_dict['ev_name'], param_dict.get('symbol'),\n"
	"          s['pid'], s['tid'], s['cpu'], s['time'], s['period'],\n"
	"          [f['sym']['name'] for f in param_dict['callchain'] if 'sym' in f])\n"
	"def trace_end():\n"
	"    print('count', n)\n";

static const char tp_py[] =
	"import os, sys\n"
	"sys.path.append(os.environ['PERF_EXEC_PATH'] + \\\n"
	"    '/scripts/python/Perf-Trace-Util/lib/Perf/Trace')\n"
	"from perf_trace_context import *\n"
	"from Core import *\n"
	"switches = 0\n"
	"def sched__sched_switch(event_name, context, common_cpu, common_secs,\n"
	"        common_nsecs, common_pid, common_comm, common_callchain,\n"
	"        prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid,\n"
	"        next_prio):\n"
	"    global switches\n"
	"    switches += 1\n"
	"    print(event_name, common_cpu, common_secs, common_nsecs, common_pid,\n"
	"          common_comm, prev_comm, prev_pid, next_comm, next_pid,\n"
	"          flag_str(event_name, 'prev_state', prev_state),\n"
	"          common_flags(context), common_pc(context), common_lock_depth(context))\n"
	"def irq__irq_handler_entry(event_name, context, common_cpu, common_secs,\n"
	"        common_nsecs, common_pid, common_comm, common_callchain, irq, name,\n"
	"        perf_sample_dict):\n"
	"    print(event_name, irq, repr(name), perf_sample_dict['sample']['tid'],\n"
	"          perf_sample_dict['ev_name'], len(perf_sample_dict['raw_buf']))\n"
	"def trace_unhandled(event_name, context, event_fields_dict):\n"
	"    print(event_name, sorted((k, v) for k, v in event_fields_dict.items()\n"
	"          if k != 'common_callchain'))\n"
	"def process_event(param_dict):\n"
	"    print('other', param_dict['ev_name'], param_dict['comm'])\n"
	"def trace_end():\n"
	"    print('switches', switches, sys.argv[1:])\n";

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[4096], nm[4096], rec[256], pd[256], py[256], tprec[256], tppd[256], cwd[4096];
	char cmd[1024], *out;
	uint64_t leaf, middle;
	struct gen_writer g;
	struct run r;
	int i;

	tmpdir__create(root, sizeof(root));
	kprofctl(&r, "script", "--help", NULL);
	run_golden("script-help.txt", &r);
	run_free(&r);
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!ok(!system("perf --version >/dev/null 2>&1"), "perf runs on this machine") ||
	    !ok(realpath(nm, elf) != NULL, "the test program %s is built", nm) ||
	    !ok(getcwd(cwd, sizeof(cwd)) != NULL, "the current directory")) {
		tmpdir__remove(root);
		return done_testing();
	}
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	middle = elf_maps__nm_addr(nm, "kpt_middle");

	/* (a) process_event() on the samples of the test program */
	snprintf(rec, sizeof(rec), "%s/kpt.data", root);
	gen__writer(&g, rec, "kprof-gen", "kprofctl record -g -- kpt");
	gen__comm(&g, SC_T0, 500, 500, "kpt", true);
	gen__comm(&g, SC_T0, 500, 501, "kpt-worker", false);
	gen__mmap(&g, SC_T0, 500, 0x401000, 0x1000, 0x1000, elf);
	for (i = 0; i < 6; i++)
		gen__sample(&g, SC_T0 + (i + 1) * SC_MS + i * 1234, 500, 500 + i % 2, i % 2, 0,
			    1000000 + i * 7, SC_IPS(leaf + 2, middle + 5), 0, 2);
	for (i = 0; i < 4; i++)
		gen__sample(&g, SC_T0 + (i + 10) * SC_MS, 500, 500, 1, 0, 999999,
			    SC_IPS(middle + 5), 0, 1);
	gen__finish(&g, SC_T0 + 20 * SC_MS);
	snprintf(pd, sizeof(pd), "%s/kpt.perf", root);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	ok(r.rc == 0, "convert: the recording as perf.data");
	run_free(&r);
	snprintf(py, sizeof(py), "%s/process.py", root);
	write_file(py, process_py);
	same_as_perf("script -s: process_event() and trace_end()", rec, pd, py, "an-arg", 10 + 2);
	kprofctl(&r, "script", "-i", rec, "-s", py, "x", "y", NULL);
	ok(r.rc == 0 && strstr(r.out, "argv ['x', 'y']\n") && strstr(r.out, "count 10\n") &&
	   strstr(r.out, "kpt-worker cpu-clock kpt_leaf 500 501 1 "),
	   "script -s: sys.argv, each sample with its symbol and chain");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "--comms", "kpt-worker", "-s", py, NULL);
	ok(r.rc == 0 && strstr(r.out, "count 3\n"), "script -s --comms: only those samples go to it");
	run_free(&r);

	/* (b) a tracepoint handler, trace_unhandled(), Core.py, perf_trace_context */
	snprintf(tprec, sizeof(tprec), "%s/tp.data", root);
	tpr__write(tprec, true);
	snprintf(tppd, sizeof(tppd), "%s/tp.perf", root);
	kprofctl(&r, "convert", "-i", tprec, "-o", tppd, NULL);
	ok(r.rc == 0, "convert: the tracepoint recording");
	run_free(&r);
	snprintf(py, sizeof(py), "%s/tp.py", root);
	write_file(py, tp_py);
	same_as_perf("script -s: SYSTEM__EVENT handlers, trace_unhandled()", tprec, tppd, py, "tp",
		     10 + 1);
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 0 &&
	   strstr(r.out, "sched__sched_switch 0 1 10000000 100 bash bash 100 swapper/0 0 D | I 1 0 0\n") &&
	   strstr(r.out, "irq__irq_handler_entry 25 'virtio0-requests' 100 irq:irq_handler_entry 36\n") &&
	   strstr(r.out, "block__block_rq_issue [('bytes', 4096), ('cmd', ''), ('comm', 'kworker/1:1H'), ") &&
	   strstr(r.out, "other cpu-clock bash\n") && strstr(r.out, "switches 4 []\n"),
	   "script -s: the fields with perf's types, the flags, common_*(context)");
	if (r.rc)
		diag("%s%s", r.out, r.err);
	run_free(&r);
	/* kprof's own Core.py (ctl/scripts/python), as without perf's */
	setenv("PERF_EXEC_PATH", cwd, 1);
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 0 && strstr(r.out, "bash 100 swapper/1 0 S 1 0 0\n") &&
	   strstr(r.out, "D | I 1 0 0\n") && strstr(r.out, "switches 4 []\n"),
	   "script -s: kprof's Core.py gives the same flag_str()");
	if (r.rc)
		diag("%s%s", r.out, r.err);
	run_free(&r);
	unsetenv("PERF_EXEC_PATH");

	/* (c) -g python: perf-script.py in the current directory, which runs */
	if (chdir(root))
		abort();
	kprofctl(&r, "script", "-i", tprec, "-g", "python", NULL);
	ok(r.rc == 0 && !access("perf-script.py", R_OK) && strstr(r.err, "perf-script.py"),
	   "script -g python: writes perf-script.py");
	run_free(&r);
	out = tmpdir__slurp("perf-script.py", NULL);
	ok(out && strstr(out, "def trace_begin():\n") && strstr(out, "def trace_end():\n") &&
	   strstr(out, "def process_event(param_dict):\n") &&
	   strstr(out, "def trace_unhandled(event_name, context, event_fields_dict, perf_sample_dict):\n") &&
	   strstr(out, "def sched__sched_switch(event_name, context, common_cpu,\n") &&
	   strstr(out, "def block__block_rq_issue(") && strstr(out, "from Core import *\n") &&
	   strstr(out, "flag_str(\"sched__sched_switch\", \"prev_state\", prev_state)"),
	   "script -g python: perf's shape, a handler per tracepoint");
	free(out);
	kprofctl(&r, "script", "-i", tprec, "--kallsyms", "/dev/null", "-s", "perf-script.py", NULL);
	ok(r.rc == 0 && strstr(r.out, "in trace_begin\n") && strstr(r.out, "in trace_end\n") &&
	   strstr(r.out, "prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S next_comm=swapper/1") &&
	   strstr(r.out, "irq=25 name=virtio0-requests\n") && strstr(r.out, "cpu-clock ") &&
	   strstr(r.out, "rwbs=WS comm=kworker/1:1H cmd=\n"),
	   "script -s perf-script.py: the generated script runs");
	if (r.rc)
		diag("%s%s", r.out, r.err);
	run_free(&r);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -s perf-script.py 2>&1", root, tppd);
	out = run_out(cmd);
	ok(out && strstr(out, "in trace_end\n") && strstr(out, "irq=25 name=virtio0-requests\n") &&
	   !strstr(out, "Traceback"), "perf script -s perf-script.py: perf runs it too");
	if (!out || !strstr(out, "in trace_end\n"))
		diag("%s", out ? out : "");
	free(out);
	if (chdir(cwd))
		abort();

	/* (d) errors and refusals */
	kprofctl(&r, "script", "-i", tprec, "-s", py, "-F", "comm", NULL);
	ok(r.rc == 2 && strstr(r.err, "-s and -F") && count_lines(r.err) == 1 && !*r.out,
	   "script -s -F: refused in one line");
	run_free(&r);
	kprofctl(&r, "script", "-i", tprec, "-F", "comm", "-s", py, NULL);
	ok(r.rc == 2 && strstr(r.err, "-s and -F") && count_lines(r.err) == 1 && !*r.out,
	   "script -F -s: refused in one line");
	run_free(&r);
	kprofctl(&r, "script", "-i", tprec, "-F", "comm", "-g", "python", NULL);
	ok(r.rc == 2 && strstr(r.err, "-g and -F") && count_lines(r.err) == 1,
	   "script -F -g: refused in one line");
	run_free(&r);
	kprofctl(&r, "script", "-i", tprec, "-g", "perl", NULL);
	ok(r.rc == 2 && strstr(r.err, "-g perl") && count_lines(r.err) == 1,
	   "script -g perl: refused, Python only");
	run_free(&r);
	kprofctl(&r, "script", "-i", tprec, "-s", py, "-g", "python", NULL);
	ok(r.rc == 2 && strstr(r.err, "-s and -g") && count_lines(r.err) == 1,
	   "script -s -g: refused in one line");
	run_free(&r);
	kprofctl(&r, "script", "-i", tprec, "extra", NULL);
	ok(r.rc == 2 && strstr(r.err, "unexpected argument 'extra'"),
	   "script ARG without -s: refused");
	run_free(&r);
	snprintf(py, sizeof(py), "%s/missing.py", root);
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 1 && strstr(r.err, "cannot open the script") && strstr(r.err, "missing.py"),
	   "script -s: a script that does not exist");
	run_free(&r);
	snprintf(py, sizeof(py), "%s/syntax.py", root);
	write_file(py, "def trace_begin(:\n    pass\n");
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 1 && strstr(r.err, "SyntaxError") && strstr(r.err, "syntax.py\", line 1") &&
	   strstr(r.err, "does not compile"), "script -s: a syntax error, with Python's message");
	run_free(&r);
	snprintf(py, sizeof(py), "%s/raise.py", root);
	write_file(py, "n = 0\ndef trace_end():\n    print('not reached')\n"
		   "def sched__sched_switch(*args):\n    global n\n    n += 1\n"
		   "    if n == 2:\n        raise ValueError('second switch')\n"
		   "    print('switch', n)\n");
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 1 && strstr(r.err, "Traceback (most recent call last):") &&
	   strstr(r.err, "ValueError: second switch") &&
	   strstr(r.err, "an exception in sched__sched_switch()") &&
	   strstr(r.out, "switch 1\n") && !strstr(r.out, "not reached"),
	   "script -s: an exception in a handler: the traceback, exit 1, no more samples");
	run_free(&r);
	write_file(py, "import sys\ndef trace_begin():\n    sys.exit(3)\n");
	kprofctl(&r, "script", "-i", tprec, "-s", py, NULL);
	ok(r.rc == 3 && !strstr(r.err, "Traceback"), "script -s: sys.exit(3) is the exit status");
	run_free(&r);

	tmpdir__remove(root);
	return done_testing();
}
