// SPDX-License-Identifier: GPL-2.0
/*
 * Golden tests of 'kprofctl report', 'script' and 'folded' on the
 * recording of tests/scenario.h: the output byte for byte against
 * tests/golden/ (KP_UPDATE_GOLDEN=1 rewrites them), percent sums, sort
 * orders, filters, and bad input: options, truncated and corrupted files.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], data[256], kallsyms[256], debugdir[128];

/* "kprofctl CMD -i DATA --symfs ROOT ... ARGS..." (NULL-terminated). */
static void decode(struct run *r, const char *cmd, ...)
{
	const char *pre[] = { cmd, strcmp(cmd, "top") ? "-i" : "--input", data,
			      "--symfs", root, "--kallsyms", kallsyms, "--debug-dir", debugdir };
	va_list ap;

	va_start(ap, cmd);
	run_va(r, pre, KP_ARRAY_SIZE(pre), ap);
	va_end(ap);
}

static void test_golden(void)
{
	struct run r;

	decode(&r, "report", NULL);
	run_golden("report.txt", &r);
	run_free(&r);
	decode(&r, "report", "-g", NULL);
	run_golden("report-g.txt", &r);
	run_free(&r);
	decode(&r, "report", "-g", "caller", NULL);
	run_golden("report-g-caller.txt", &r);
	run_free(&r);
	/* perf's full -g form, as its documentation writes it: the same */
	decode(&r, "report", "-g", "graph,0.5,caller", NULL);
	run_golden("report-g-caller.txt", &r);
	run_free(&r);
	decode(&r, "report", "--sort", "dso,symbol", NULL);
	run_golden("report-sort-dso-symbol.txt", &r);
	run_free(&r);
	decode(&r, "report", "--sort=pid,tid,cpu", "-n", NULL);
	run_golden("report-sort-pid-tid-cpu.txt", &r);
	run_free(&r);
	decode(&r, "report", "--sort", "comm", NULL);
	run_golden("report-sort-comm.txt", &r);
	run_free(&r);
	decode(&r, "report", "--comms", "kp-app,kp-worker", "--user", NULL);
	run_golden("report-comms-user.txt", &r);
	run_free(&r);
	/* perf's -U: samples in unresolved functions left out, totals too */
	decode(&r, "report", "-U", NULL);
	run_golden("report-hide-unresolved.txt", &r);
	run_free(&r);
	decode(&r, "report", "-K", "-g", NULL);
	run_golden("report-kernel-g.txt", &r);
	run_free(&r);
	decode(&r, "report", "--percent-limit", "5", "--pids", "100,200", NULL);
	run_golden("report-limit-pids.txt", &r);
	run_free(&r);
	decode(&r, "report", "--dsos", "libkp.so", "--call-graph=caller,0", NULL);
	run_golden("report-dsos.txt", &r);
	run_free(&r);
	decode(&r, "script", NULL);
	run_golden("script.txt", &r);
	run_free(&r);
	decode(&r, "script", "--tids", "101", "-K", "--ns", NULL);
	run_golden("script-tid-kernel.txt", &r);
	run_free(&r);
	decode(&r, "folded", NULL);
	run_golden("folded.txt", &r);
	run_free(&r);
	decode(&r, "folded", "--pid", "--period", NULL);
	run_golden("folded-pid-period.txt", &r);
	run_free(&r);
	/* top reads the buffers' records back through the same path */
	decode(&r, "top", "--once", "-n", "10", NULL);
	run_golden("top-input.txt", &r);
	run_free(&r);
}

/* Sum the overhead column of each event section of a report. */
static void check_percents(const char *what, const char *out)
{
	const char *p = out;
	double sum = 0, prev = 1000;
	int sections = 0, entries = 0;
	bool sorted = true;

	for (;;) {
		const char *nl = strchr(p, '\n');
		double v;

		if (!strncmp(p, "# Samples:", 10) || !*p) {
			if (sections) {
				ok(sum > 99.9 && sum < 100.1, "%s: section %d sums to %.2f%%",
				   what, sections, sum);
				ok(sorted, "%s: section %d is sorted by overhead", what,
				   sections);
			}
			if (!*p)
				break;
			sections++;
			sum = 0;
			prev = 1000;
			sorted = true;
		} else if (p[0] == ' ' && sscanf(p, " %lf%%", &v) == 1 && strchr(p, '%') < nl &&
			   !strstr(p, "|") && !strstr(p, "---")) {
			sum += v;
			entries++;
			if (v > prev)
				sorted = false;
			prev = v;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	ok(sections == 2 && entries > 2, "%s: two event sections, entries", what);
}

static void test_percents(void)
{
	static const char * const sorts[] = {
		"comm,dso,symbol", "symbol", "dso", "cpu,comm", "pid,symbol", "tid",
	};
	struct run r;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(sorts); i++) {
		char what[64];

		decode(&r, "report", "--sort", sorts[i], NULL);
		snprintf(what, sizeof(what), "report --sort %s", sorts[i]);
		is_int(r.rc, 0, "%s: exit 0", what);
		check_percents(what, r.out);
		run_free(&r);
	}
}

static void test_counts(void)
{
	struct run r;
	const char *p;
	uint64_t sum = 0;

	/* 149 samples: 139 cpu-clock, 10 page-faults */
	decode(&r, "script", NULL);
	{
		int blocks = 0;

		for (p = r.out; (p = strstr(p, ":\n\t")); p++)
			blocks++;
		is_int(blocks, 149, "script: one block per sample");
	}
	ok(strstr(r.out, "\tffffffff80000010 [unknown] ([kernel.kallsyms])\n") != NULL,
	   "script: kernel address below the first symbol is [unknown]");
	ok(strstr(r.out, "\t        12345678 [unknown] ([unknown])\n") != NULL,
	   "script: unmapped user address is [unknown] ([unknown])");
	ok(strstr(r.out, "dbg_work+0x10 (/usr/bin/kp-debug)") != NULL,
	   "script: symbols from the build-id debug file");
	ok(strstr(r.out, "exported_fn+0x10 (/usr/lib/libstripped.so)") != NULL,
	   "script: .dynsym of a stripped DSO");
	ok(strstr(r.out, "[unknown] (/usr/lib/notelf.so)") &&
	   strstr(r.out, "[unknown] (/usr/lib/trunc.so)"),
	   "script: not an ELF and a truncated ELF are [unknown]");
	ok(strstr(r.out, "Interpreter::run(int)+0x20 (/tmp/perf-400.map)") != NULL,
	   "script: JIT map");
	ok(strstr(r.out, "kpmod_helper+0x4 ([kpmod])") != NULL, "script: module symbol");
	run_free(&r);

	decode(&r, "folded", NULL);
	for (p = r.out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *sp = strchr(p, '\n');
		const char *c = p;

		while (sp && c < sp && memchr(c, ' ', sp - c))
			c = (const char *)memchr(c, ' ', sp - c) + 1;
		sum += strtoull(c, NULL, 10);
	}
	is_int(sum, 149, "folded: counts sum to the samples");
	run_free(&r);
}

static void test_bad_options(void)
{
	static const struct {
		const char	*args[4];
		const char	*err;
	} cases[] = {
		{ { "report", "--sort", "comm,bogus" },
		  "kprofctl: report: unknown --sort key 'bogus' (comm, dso, symbol, pid, tid, cpu, srcline, period, parent)\n" },
		{ { "report", "--pids", "12x" },
		  "kprofctl: report: bad --pids value '12x': not a number\n" },
		{ { "report", "--percent-limit", "abc" },
		  "kprofctl: report: bad --percent-limit value 'abc' (0 to 100)\n" },
		{ { "report", "--call-graph", "sideways" },
		  "kprofctl: report: bad --call-graph value 'sideways' (graph, caller, callee, none, "
		  "or a threshold in percent)\n" },
		{ { "report", "-g", "flat" },
		  "kprofctl: report: bad --call-graph value 'flat' (graph, caller, callee, none, "
		  "or a threshold in percent; kprofctl prints graphs: 'kprofctl folded' folds)\n" },
		{ { "report", "-g", "graph,0.5,sideways" },
		  "kprofctl: report: unexpected argument 'graph,0.5,sideways'\n" },
		{ { "script", "-K", "-U" }, "kprofctl: script: --kernel and --user exclude each other\n" },
		{ { "folded", "--tids", "," }, "kprofctl: folded: bad --tids value ','\n" },
		{ { "folded", "extra" }, "kprofctl: folded: unexpected argument 'extra'\n" },
	};
	struct run r;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		decode(&r, cases[i].args[0], cases[i].args[1], cases[i].args[2],
			 cases[i].args[3], NULL);
		is_int(r.rc, KP_EXIT_USAGE, "%s %s: exit 2", cases[i].args[0], cases[i].args[1]);
		is_str(r.err, cases[i].err, "%s %s: error line", cases[i].args[0],
		       cases[i].args[1]);
		run_free(&r);
	}
}

static void copy_prefix(const char *from, const char *to, off_t len)
{
	char *buf = tmpdir__slurp(from, NULL);
	int fd;

	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, buf, len) != len || close(fd))
		abort();
	free(buf);
}

static void test_bad_files(void)
{
	char saved[256], bad[160];
	struct stat st;
	struct run r;
	off_t cuts[] = { 0, 100, 511, 600, 1000, 1003, 4096 }, size;
	size_t i;
	int fd, crashes = 0, msgs = 0;
	static const char *cmds[] = { "report", "script", "folded" };

	snprintf(saved, sizeof(saved), "%s", data);
	snprintf(bad, sizeof(bad), "%s/bad.data", root);
	if (stat(saved, &st))
		abort();
	size = st.st_size;

	/* truncated finished files: an error naming the offset */
	snprintf(data, sizeof(data), "%s", bad);
	for (i = 0; i < KP_ARRAY_SIZE(cuts); i++) {
		copy_prefix(saved, bad, cuts[i] < size ? cuts[i] : size - 8);
		decode(&r, cmds[i % 3], NULL);
		if (r.rc != KP_EXIT_FAILURE)
			crashes++;
		if (strstr(r.err, "corrupt at byte offset") || strstr(r.err, "truncated"))
			msgs++;
		run_free(&r);
	}
	is_int(crashes, 0, "truncated files: exit 1");
	is_int(msgs, (int)KP_ARRAY_SIZE(cuts), "truncated files: the error names the offset");

	/* every byte of the first records flipped: never a crash */
	crashes = 0;
	for (i = 512; i < 1400 && (off_t)i < size; i += 3) {
		char *buf = tmpdir__slurp(saved, NULL);

		buf[i] ^= 0x5a;
		fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, buf, size) != size || close(fd))
			abort();
		free(buf);
		decode(&r, cmds[i % 3], NULL);
		if (r.rc != 0 && r.rc != KP_EXIT_FAILURE)
			crashes++;
		if (r.rc && !strstr(r.err, "byte offset"))
			crashes++;
		run_free(&r);
	}
	is_int(crashes, 0, "flipped bytes: success, or exit 1 naming the offset");

	/* an unfinished file cut in a record: what precedes is used */
	{
		char *buf = tmpdir__slurp(saved, NULL);
		uint32_t flags = 0;

		memcpy(buf + 16, &flags, 4);		/* not finished */
		memset(buf + 64, 0, 8);			/* end_time */
		memset(buf + 80, 0, 8);			/* data_size */
		fd = open(bad, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || write(fd, buf, size - 100) != size - 100 || close(fd))
			abort();
		free(buf);
		decode(&r, "report", NULL);
		is_int(r.rc, 0, "unfinished, cut file: exit 0");
		ok(strstr(r.err, "warning: ") && strstr(r.err, "ignoring the partial record"),
		   "unfinished, cut file: a warning");
		ok(strstr(r.out, "# warning: the recording did not finish") != NULL,
		   "unfinished, cut file: the report says so");
		run_free(&r);
	}

	/* no such file */
	snprintf(data, sizeof(data), "%s/nonexistent.data", root);
	decode(&r, "report", NULL);
	is_int(r.rc, KP_EXIT_FAILURE, "missing file: exit 1");
	ok(strstr(r.err, "cannot open") && strstr(r.err, "nonexistent.data"),
	   "missing file: error names it");
	run_free(&r);
	snprintf(data, sizeof(data), "%s", saved);
}

static void test_kallsyms(void)
{
	char path[256];
	struct run r;

	/* kptr_restrict: every address reads as zero */
	snprintf(path, sizeof(path), "%s/kallsyms-restricted", root);
	tmpdir__write(root, "kallsyms-restricted",
		      "0000000000000000 T _stext\n0000000000000000 T do_idle\n");
	snprintf(kallsyms, sizeof(kallsyms), "%s", path);
	decode(&r, "report", NULL);
	is_int(r.rc, 0, "restricted kallsyms: exit 0");
	ok(strstr(r.err, "are hidden (kernel.kptr_restrict)") != NULL,
	   "restricted kallsyms: a notice");
	ok(strstr(r.out, "[k] 0xffffffff81004005") != NULL,
	   "restricted kallsyms: kernel frames unresolved");
	run_free(&r);
	snprintf(kallsyms, sizeof(kallsyms), "%s/nonexistent", root);
	decode(&r, "folded", NULL);
	is_int(r.rc, 0, "missing kallsyms: exit 0");
	ok(strstr(r.err, "cannot read") != NULL, "missing kallsyms: a notice");
	run_free(&r);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
}

/* A writer of an aggregated profile (format version 2) at @path: one cpu-clock event at 99 Hz. */
static struct kp_data_writer *agg_writer(const char *path, unsigned int nr_cpus)
{
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_err err;

	kp_data_info__init(&info);
	info.version = KP_DATA_VERSION_AGG;
	info.nr_cpus = nr_cpus;
	snprintf(info.hostname, sizeof(info.hostname), "kprof-gen");
	snprintf(info.cmdline, sizeof(info.cmdline), "kprofctl stop -o agg.data");
	info.session.nr_events = 1;
	info.session.stack_depth = 127;
	info.session.freq = 99;
	snprintf(info.session.events[0].name, sizeof(info.session.events[0].name), "cpu-clock");
	w = kp_data_writer__create(path, &info, &err);
	if (!w)
		abort();
	return w;
}

/* An aggregated profile (format version 2): AGG records count as samples. */
static void test_agg(void)
{
	char saved[256], path[256];
	struct kp_data_writer *w;
	struct run r;
	uint64_t buf[16];
	struct kp_rec_agg *a = (void *)buf;
	static const uint64_t app[] = { APP_LEAF + 0x10, APP_MIDDLE + 0x20, MAIN + 0x40 };

	snprintf(saved, sizeof(saved), "%s", data);
	snprintf(path, sizeof(path), "%s/agg.data", root);
	w = agg_writer(path, 2);
	{
		struct gen_writer g = { .w = w };

		gen__mmap(&g, 5, 100, APP_MAP, 0x1000, 0x1000, "/usr/bin/kp-app");
		memset(buf, 0, sizeof(buf));
		a->header.type = KP_DATA_REC_AGG;
		a->header.size = sizeof(*a) + 3 * 8;
		a->count = 30;
		a->pid = 100;
		a->nr_entries = 2;
		a->nr_user = 3;
		snprintf(a->comm, sizeof(a->comm), "kp-app");
		memcpy(a->ips, app, sizeof(app));
		gen__write(&g, a);
		a->count = 10;
		a->nr_user = 1;
		a->ips[0] = MAIN + 0x10;
		gen__write(&g, a);
		gen__finish(&g, 100);
	}
	snprintf(data, sizeof(data), "%s", path);
	decode(&r, "report", NULL);
	is_int(r.rc, 0, "AGG: report exit 0");
	ok(strstr(r.out, "# Samples: 40 of event 'cpu-clock'") &&
	   strstr(r.out, "    75.00%  kp-app   kp-app         [.] app_leaf\n") &&
	   strstr(r.out, "    25.00%  kp-app   kp-app         [.] main\n"),
	   "AGG: records count as their samples");
	if (r.rc || !strstr(r.out, "75.00%"))
		diag("%s%s", r.out, r.err);
	run_free(&r);
	decode(&r, "folded", NULL);
	is_str(r.out, "kp-app;main 10\nkp-app;main;app_middle;app_leaf 30\n",
	       "AGG: folded counts");
	run_free(&r);
	snprintf(data, sizeof(data), "%s", saved);
}

/*
 * A process that exec'd (pid 101: "kp-sh" running kp-pie, then "kp-app"
 * at the same address): its AGG records are resolved against the image it
 * had under the record's name, as 'stop -o' writes the kept generations.
 */
static void test_agg_exec(void)
{
	char saved[256], path[256];
	struct kp_data_writer *w;
	struct run r;
	uint64_t buf[16];
	struct kp_rec_agg *a = (void *)buf;

	snprintf(saved, sizeof(saved), "%s", data);
	snprintf(path, sizeof(path), "%s/agg-exec.data", root);
	w = agg_writer(path, 1);
	{
		struct gen_writer g = { .w = w };

		gen__comm(&g, 5, 101, 101, "kp-sh", false);
		gen__mmap(&g, 5, 101, APP_MAP, 0x1000, 0x1000, "/usr/bin/kp-pie");
		gen__comm(&g, 6, 101, 101, "kp-app", true);
		gen__mmap(&g, 6, 101, APP_MAP, 0x1000, 0x1000, "/usr/bin/kp-app");
		memset(buf, 0, sizeof(buf));
		a->header.type = KP_DATA_REC_AGG;
		a->header.size = sizeof(*a) + 8;
		a->pid = 101;
		a->nr_entries = 1;
		a->nr_user = 1;
		a->count = 5;
		snprintf(a->comm, sizeof(a->comm), "kp-sh");
		a->ips[0] = APP_MAP + 0x110;
		gen__write(&g, a);
		a->count = 7;
		snprintf(a->comm, sizeof(a->comm), "kp-app");
		gen__write(&g, a);
		a->count = 2;
		snprintf(a->comm, sizeof(a->comm), "kp-thread");	/* never the process's name */
		gen__write(&g, a);
		gen__finish(&g, 100);
	}
	snprintf(data, sizeof(data), "%s", path);
	decode(&r, "folded", NULL);
	is_str(r.out, "kp-app;main 7\nkp-sh;pie_work 5\nkp-thread;main 2\n",
	       "AGG: a record of the name before an exec is named from that image");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	snprintf(data, sizeof(data), "%s", saved);
}

static void test_help(void)
{
	static const char * const cmds[] = { "report", "script", "folded", "top", "flamegraph" };
	char name[64];
	struct run r;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(cmds); i++) {
		kprofctl(&r, cmds[i], "--help", NULL);
		ok(r.rc == 0 && strstr(r.out, "kprofctl ") && strstr(r.out, "input"),
		   "%s --help: usage, exit 0", cmds[i]);
		/* the options they share (lib/decode-args.h), in each one's order */
		if (strcmp(cmds[i], "script")) {
			snprintf(name, sizeof(name), "%s-help.txt", cmds[i]);
			run_golden(name, &r);
		}
		run_free(&r);
	}
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	snprintf(data, sizeof(data), "%s/kprof.data", root);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
	snprintf(debugdir, sizeof(debugdir), "%s/debug", root);
	sc__golden(root, data);

	test_golden();
	test_percents();
	test_counts();
	test_bad_options();
	test_bad_files();
	test_kallsyms();
	test_agg();
	test_agg_exec();
	test_help();

	tmpdir__remove(root);
	return done_testing();
}
