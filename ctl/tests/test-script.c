// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl script -F/--fields, --header, --time, --symbol-filter, checked
 * against perf script itself (Debian's linux-perf, on the host) on the
 * converted recording: for each field list, both print the same text.
 * The recording: the toolchain's non-PIE test program (tests/elf/prog.c),
 * samples in kpt_leaf called from kpt_middle and in kpt_middle, on two
 * CPUs, with periods that differ.  Then perf's rules and the refusals.
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

/* kprofctl script -F @fields (and @more) against perf script -F @fields on @pd. */
static void same_as_perf(const char *rec, const char *pd, const char *fields, const char *more)
{
	char cmd[1024];
	struct run r;
	char *out;

	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -F %s %s%s%s 2>/dev/null", root, pd,
		 fields, more ? "'" : "", more ? more : "", more ? "'" : "");
	out = run_out(cmd);
	if (more)
		kprofctl(&r, "script", "-i", rec, "--kallsyms", "/dev/null", "-F", fields, more, NULL);
	else
		kprofctl(&r, "script", "-i", rec, "--kallsyms", "/dev/null", "-F", fields, NULL);
	if (!ok(r.rc == 0 && out && *out && !strcmp(r.out, out),
		"script -F %s%s%s: perf script's text (%d lines)", fields, more ? " " : "",
		more ? more : "", out ? count_lines(out) : -1)) {
		diag("perf:\n%s", out ? out : "");
		diag("kprofctl (%d):\n%s%s", r.rc, r.out, r.err);
	}
	free(out);
	run_free(&r);
}

int main(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char elf[4096], nm[4096], rec[256], pd[256], cmd[1024];
	char *out;
	uint64_t leaf, middle;
	struct gen_writer g;
	struct run r;
	int i;

	tmpdir__create(root, sizeof(root));
	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!ok(!system("perf --version >/dev/null 2>&1"), "perf runs on this machine") ||
	    !ok(realpath(nm, elf) != NULL, "the test program %s is built", nm)) {
		tmpdir__remove(root);
		return done_testing();
	}
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	middle = elf_maps__nm_addr(nm, "kpt_middle");

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

	/* the same text as perf script, field list by field list */
	same_as_perf(rec, pd, "comm,pid,tid,cpu,time,event,ip,sym,dso,period", NULL);
	same_as_perf(rec, pd, "comm,tid,time,ip,sym,symoff,dso", NULL);
	same_as_perf(rec, pd, "pid,cpu,period,event", NULL);
	same_as_perf(rec, pd, "comm,tid", NULL);
	same_as_perf(rec, pd, "tid,time,ip", "--ns");
	same_as_perf(rec, pd, "comm,pid,ip,sym", "--time=1.005,1.011");
	/* several spans, and perf's percent slices of the recording */
	same_as_perf(rec, pd, "tid,time,ip,sym", "--time=1.002,1.004 1.010,1.012");
	same_as_perf(rec, pd, "tid,time,ip,sym", "--time=10%/2");
	same_as_perf(rec, pd, "tid,time,ip,sym", "--time=25%/1,25%/4");
	same_as_perf(rec, pd, "tid,time,ip,sym", "--time=0%-30%,60%-100%");

	/* --symbol-filter: the samples with that symbol in their chain */
	kprofctl(&r, "script", "-i", rec, "-F", "tid,ip,sym", "--symbol-filter", "kpt_leaf", NULL);
	ok(r.rc == 0 && count_lines(r.out) == 6 * 4, "script --symbol-filter kpt_leaf: its 6 samples (%d lines)",
	   count_lines(r.out));
	run_free(&r);
	/* --header: perf's header lines */
	kprofctl(&r, "script", "-i", rec, "--header-only", NULL);
	ok(r.rc == 0 && strstr(r.out, "# ========\n") && strstr(r.out, "# hostname : kprof-gen\n") &&
	   strstr(r.out, "# os release : 6.1.0-kprof-test\n") &&
	   strstr(r.out, "# cmdline : kprofctl record -g -- kpt\n") &&
	   strstr(r.out, "# event : name = cpu-clock, ") && strstr(r.out, "# nrcpus online : 4\n") &&
	   !strstr(r.out, "kpt_leaf"), "script --header-only: the header, no sample");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "--header", "-F", "comm", NULL);
	ok(r.rc == 0 && strstr(r.out, "# ========\n#\n") && strstr(r.out, "kpt\n"),
	   "script --header: the header, then the samples");
	run_free(&r);
	kprofctl(&r, "report", "-i", rec, "--header-only", NULL);
	ok(r.rc == 0 && strstr(r.out, "# hostname : kprof-gen\n") && !strstr(r.out, "kpt_leaf"),
	   "report --header-only: the header, no table");
	run_free(&r);
	kprofctl(&r, "report", "-i", rec, "--header", "--time", "1.010,", "--kallsyms", "/dev/null", NULL);
	ok(r.rc == 0 && strstr(r.out, "# hostname : kprof-gen\n") && strstr(r.out, "100.00%") &&
	   strstr(r.out, "kpt_middle") && !strstr(r.out, "kpt_leaf"),
	   "report --header --time 1.010,: the header, then only kpt_middle's later samples");
	run_free(&r);
	/* -F with + and -: the default changed */
	kprofctl(&r, "script", "-i", rec, "--kallsyms", "/dev/null", "-F", "-dso,-symoff,-period,-time,-cpu,-pid",
		 NULL);
	ok(r.rc == 0 && strstr(r.out, "kpt   500   cpu-clock: \n\t            1108 kpt_leaf\n"),
	   "script -F -field,...: the default without those");
	if (r.rc || !strstr(r.out, "kpt   500   cpu-clock: \n\t            1108 kpt_leaf\n"))
		diag("%s%s", r.out, r.err);
	run_free(&r);

	/* perf's rules and bad values */
	kprofctl(&r, "script", "-i", rec, "-F", "comm,trace", NULL);
	ok(r.rc == 2 && strstr(r.err, "-F trace") && strstr(r.err, "'cpu-clock'") &&
	   !strchr(strchr(r.err, '\n') + 1, '\n'), "script -F trace on samples without one: refused, naming it");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "-F", "comm,bogus", NULL);
	ok(r.rc == 2 && strstr(r.err, "unknown field 'bogus'"), "script -F: an unknown field is named");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "-F", "ip,symoff", NULL);
	ok(r.rc == 2 && strstr(r.err, "symoff needs sym"), "script -F symoff without sym: refused");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "-F", "comm,sym", NULL);
	ok(r.rc == 2 && strstr(r.err, "-F sym needs ip"),
	   "script -F sym without ip: refused (perf prints nothing)");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "--time", "5,1", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --time value '5,1'"), "script --time: START after END is refused");
	run_free(&r);
	kprofctl(&r, "report", "-i", rec, "--time", "1.5", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --time value '1.5'"), "report --time: no comma, refused");
	run_free(&r);
	kprofctl(&r, "script", "-i", rec, "--time", "x,", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad --time value 'x,'"), "script --time: not a number");
	run_free(&r);
	{
		static const char *const bad[] = { "10%", "10%/0", "20%/6", "50%-10%", "0%-101%",
						   "10%/2,", "1,2 10%/1", "%/1" };

		for (i = 0; i < (int)KP_ARRAY_SIZE(bad); i++) {
			kprofctl(&r, "script", "-i", rec, "--time", bad[i], NULL);
			ok(r.rc == 2 && strstr(r.err, "bad --time value"),
			   "script --time %s: refused in one line", bad[i]);
			run_free(&r);
		}
	}

	/*
	 * A tracepoint recording (tests/tp-record.h: sched_switch, irq, wakeup
	 * and block records of 6.1 with their formats): converted, its samples
	 * carry their fields and the file the TRACING_DATA feature, so perf
	 * script decodes each record as kprofctl script does.
	 */
	snprintf(rec, sizeof(rec), "%s/tp.data", root);
	tpr__write(rec, true);
	snprintf(pd, sizeof(pd), "%s/tp.perf", root);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	ok(r.rc == 0 && !strstr(r.err, "without their fields"),
	   "convert: a tracepoint recording, every sample with its fields");
	run_free(&r);
	same_as_perf(rec, pd, "comm,pid,tid,cpu,time,event,trace", NULL);
	same_as_perf(rec, pd, "event,trace", NULL);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf report -D -i %s 2>&1", root, pd);
	out = run_out(cmd);
	ok(out && strstr(out, "SAMPLE events:         10") &&
	   !strstr(out, "FAILED TO PARSE") && !strstr(out, "problem processing"),
	   "perf report -D: the 10 samples, none refused");
	if (!out || !strstr(out, "SAMPLE events:         10"))
		diag("%s", out ? out : "");
	free(out);
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s --header-only 2>&1", root, pd);
	out = run_out(cmd);
	snprintf(cmd, sizeof(cmd), "# event : name = sched:sched_switch, , id = { 1 }, type = 2, size = 128, config = %#x, { sample_period, sample_freq } = 1, sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD|RAW|IDENTIFIER,",
		 TP_SCHED_SWITCH_ID);
	ok(out && strstr(out, cmd),
	   "perf script --header-only: sched_switch a tracepoint (its id), every hit a sample, with RAW");
	if (!out || !strstr(out, cmd))
		diag("%s", out ? out : "");
	free(out);
	/* without the formats section, on another kernel: refused, naming the event */
	snprintf(rec, sizeof(rec), "%s/tp-old.data", root);
	tpr__write(rec, false);
	snprintf(pd, sizeof(pd), "%s/tp-old.perf", root);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	ok(r.rc == 1 && strstr(r.err, "has no format for tracepoint 'sched:sched_switch'") &&
	   !strchr(strchr(r.err, '\n') + 1, '\n') && access(pd, F_OK),
	   "convert: a tracepoint without its recorded format, on another kernel: refused in one line, no file");
	if (r.rc != 1)
		diag("%s", r.err);
	run_free(&r);

	tmpdir__remove(root);
	return done_testing();
}
