// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of 'kprofctl record', 'start', 'stop', 'dump', 'list'
 * and 'status' with a session, against the fake module of tests/fake-nl.c,
 * whose START creates a file standing for /dev/kprof with records in its
 * buffers.  /proc and /sys come from a fake root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "fake-nl.h"
#include "lib/data.h"
#include "lib/record.h"
#include "lib/ring.h"
#include "lib/agg.h"
#include "lib/rundir.h"
#include "lib/sys.h"
#include "lib/util.h"
#include "elf-maps.h"
#include "lib/buildid.h"
#include "lib/symbols.h"
#include "pprof-load.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64], dev[128], out[128], rundir[128];

/* Exit 2, exactly @line on stderr, nothing on stdout, no request. */
static void check_usage_error(const char *line, ...)
{
	struct run r;
	va_list ap;

	fake.nr_requests = 0;
	va_start(ap, line);
	run_va(&r, NULL, 0, ap);
	va_end(ap);
	ok(r.rc == KP_EXIT_USAGE && !strcmp(r.err, line) && !r.out[0] && !fake.nr_requests,
	   "usage error: %.*s", (int)strcspn(line, "\n"), line);
	if (r.rc != KP_EXIT_USAGE || strcmp(r.err, line))
		diag("rc %d, stderr '%s'", r.rc, r.err);
	run_free(&r);
}

static void test_help(void)
{
	static const char * const cmds[] = { "record", "start", "stop", "dump", "list" };
	struct run a, b;
	char prefix[64];
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(cmds); i++) {
		snprintf(prefix, sizeof(prefix), "Usage: kprofctl %s", cmds[i]);
		kprofctl(&a, cmds[i], "--help", NULL);
		kprofctl(&b, "help", cmds[i], NULL);
		ok(a.rc == 0 && !strncmp(a.out, prefix, strlen(prefix)) && !a.err[0] &&
		   strstr(a.out, "    -h, --help          show this help\n") &&
		   b.rc == 0 && !strcmp(a.out, b.out), "%s --help = help %s", cmds[i], cmds[i]);
		run_free(&a);
		run_free(&b);
	}
	kprofctl(&a, "record", "--help", NULL);
	ok(strstr(a.out, "    -F, --freq=<n|max>  samples per second per event (default 4000; max: the kernel's limit)\n") &&
	   strstr(a.out, "        --call-graph=<mode>\n") && strstr(a.out, "    -a, --all-cpus"),
	   "record --help: perf's option names");
	run_free(&a);
}

static void test_usage_errors(void)
{
	fake_kprof__reset();
	check_usage_error("kprofctl: record: unknown event 'cyclez' (see 'kprofctl list')\n",
			  "record", "-e", "cyclez", NULL);
	check_usage_error("kprofctl: record: event 'instructions' is not supported: no hardware PMU (virtual machine?)\n",
			  "record", "-e", "instructions", "--", "true", NULL);
	check_usage_error("kprofctl: record: frequency 200000 is above the maximum sample rate 100000 (kernel.perf_event_max_sample_rate)\n",
			  "record", "-F", "200000", NULL);
	check_usage_error("kprofctl: record: options -F/--freq and -c/--count are mutually exclusive\n",
			  "record", "-F", "99", "-c", "10", NULL);
	check_usage_error("kprofctl: record: buffer size '3M' is not a power of two\n",
			  "record", "--buffer-size", "3M", NULL);
	check_usage_error("kprofctl: record: CPU 2 is out of range (possible CPUs: 0-1)\n",
			  "record", "-C", "0-2", NULL);
	check_usage_error("kprofctl: record: process 777 does not exist\n",
			  "record", "-p", "777", NULL);
	check_usage_error("kprofctl: record: call graph mode 'dwarf' is not supported: only 'fp' is supported\n",
			  "record", "--call-graph", "dwarf", "--", "true", NULL);
	check_usage_error("kprofctl: record: stack depth 1000 is out of range 1..512\n",
			  "record", "--stack-depth", "1000", NULL);
	check_usage_error("kprofctl: record: unknown option '--frequency'\n",
			  "record", "--frequency", "99", NULL);
	check_usage_error("kprofctl: start: unexpected argument 'sleep'\n",
			  "start", "--", "sleep", "1", NULL);
	check_usage_error("kprofctl: start: options -p/--pid and -a/-C are mutually exclusive\n",
			  "start", "-a", "-p", "1", NULL);
	check_usage_error("kprofctl: stop: unexpected argument 'now'\n", "stop", "now", NULL);
	check_usage_error("kprofctl: dump: unexpected argument 'x.data'\n", "dump", "x.data", NULL);
	check_usage_error("kprofctl: list: unknown event class 'nosuch' (hw, sw, cache, pmu, raw, tracepoint or probe)\n",
			  "list", "nosuch", "x", NULL);
}

/* What the fake kernel writes into the buffers at START. */
static void fill_rings(void *map, uint32_t nr_cpus, uint64_t stride)
{
	unsigned char buf[256] __attribute__((aligned(8)));
	struct kp_rec_sample *s = (void *)buf;
	struct kp_rec_comm c = { .header = { KPROF_RECORD_COMM, KPROF_MISC_COMM_EXEC, sizeof(c) },
				 .time = 100, .pid = 42, .tid = 42, .comm = "true" };
	struct kp_rec_lost l = { .header = { KPROF_RECORD_LOST, 0, sizeof(l) }, .time = 102,
				 .lost = 1, .cause = KPROF_LOST_FULL, .cpu = 0 };
	unsigned int i;

	(void)nr_cpus;
	fake_ring__put(map, stride, 0, &c, sizeof(c));
	memset(buf, 0, sizeof(buf));
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_KERNEL;
	s->header.size = sizeof(*s) + 3 * 8;
	s->time = 101;
	s->ip = 0xffffffff81001234ULL;
	s->period = 250000;
	s->pid = s->tid = 42;
	s->cpu = 0;
	s->flags = KPROF_SAMPLE_F_USTACK_TRUNC;
	s->nr_kernel = 2;
	s->nr_user = 1;
	s->ips[0] = 0xffffffff81001234ULL;
	s->ips[1] = 0xffffffff81005678ULL;
	s->ips[2] = 0x55555555a000ULL;
	fake_ring__put(map, stride, 0, s, s->header.size);
	fake_ring__put(map, stride, 0, &l, sizeof(l));

	/* CPU 1: fill near the end of its 8K, consume, and wrap a sample. */
	{
		struct kprof_mmap_page *p = (void *)((char *)map + stride);

		p->data_head = p->data_tail = 8192 - 24;
	}
	s->header.misc = KPROF_MISC_USER;
	s->time = 103;
	s->ip = 0x55555555a000ULL;
	s->cpu = 1;
	s->flags = 0;
	s->nr_kernel = 0;
	s->nr_user = 3;
	for (i = 0; i < 3; i++)
		s->ips[i] = 0x55555555a000ULL + i;
	fake_ring__put(map, stride, 1, s, s->header.size);
}

static void fake_session_stats(void)
{
	fake.stats.v[KP_STAT_INVOCATIONS] = 3;
	fake.stats.v[KP_STAT_SAMPLES] = 2;
	fake.stats.v[KP_STAT_LOST_FULL] = 1;
	fake.stats.v[KP_STAT_HANDLER_NS] = 3000;
	fake.stats.v[KP_STAT_HANDLER_MAX_NS] = 1500;
	fake.stats.v[KP_STAT_SIDEBAND] = 1;
	fake.cpu_stats[0].v[KP_STAT_INVOCATIONS] = 2;
	fake.cpu_stats[0].v[KP_STAT_SAMPLES] = 1;
	fake.cpu_stats[0].v[KP_STAT_LOST_FULL] = 1;
	fake.cpu_stats[1].v[KP_STAT_INVOCATIONS] = 1;
	fake.cpu_stats[1].v[KP_STAT_SAMPLES] = 1;
}

static void fake_setup(void)
{
	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.device_path = dev;
	fake.on_start = fill_rings;
	fake_session_stats();
}

static void test_record(void)
{
	struct run r;
	char line[256], vdso_line[128];
	struct stat st;
	uint32_t vdso_size;
	const void *vdso = kp_vdso__self(&vdso_size);

	fake_setup();
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "-g", "--", "true", NULL);
	is_int(r.rc, 0, "record true: exit 0");
	is_str(r.out, "", "record: nothing on stdout");
	ok(!strncmp(r.err, "kprofctl: record: no hardware PMU (virtual machine?): 'cycles' falls back to 'cpu-clock'\n"
		    "[ kprof record: Woken up ", 114), "record: the notice, then the summary");
	stat(out, &st);
	snprintf(line, sizeof(line), "[ kprof record: Captured and wrote %.3f MB %s (2 samples) ]\n",
		 st.st_size / 1048576.0, out);
	ok(strstr(r.err, line), "record: captured line");
	ok(strstr(r.err, "[ kprof record: Lost 1 samples: 1 buffer full, 0 too big ]\n") &&
	   strstr(r.err, "[ kprof record: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n") &&
	   strstr(r.err, "[ kprof record: Side-band: 0 synthesized, 1 from the kernel, 0 lost ]\n") &&
	   strstr(r.err, "[ kprof record: Stacks: 0.00% kernel truncated, 50.00% user truncated, 0.00% user unreadable, 0.00% kernel unwind error ]\n") &&
	   strstr(r.err, "[ kprof record: Handler: avg 1000 ns, max 1500 ns ]\n"),
	   "record: lost, balance, side-band, stacks, handler");
	ok(!strstr(r.err, "WARNING"), "record: no warning");
	ok(fake.start_req.nr_pids == 1 && fake.start_req.pids[0] > 0 &&
	   fake.start_req.flags == (KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_KERNEL_STACK |
				    KPROF_SESSION_F_USER_STACK | KPROF_SESSION_F_OWNED) &&
	   fake.start_req.buffer_size == 8192 && fake.start_req.freq == 4000 &&
	   !strcmp(fake.start_req.events[0].name, "cpu-clock"),
	   "record: START with the command's PID, inherit, -g");
	is_int(fake.start_req.user_stack, KP_LEAF_STACK_BYTES,
	       "record -g: the stack copy of the leaf fix-up asked (KPROF_A_SESSION_USER_STACK)");
	ok(fake.nr_stops == 1 && fake.status.state == KPROF_STATE_STOPPED, "record: one STOP");
	run_free(&r);

	/* The file, as dump prints it. */
	kprofctl(&r, "dump", "-i", out, NULL);
	is_int(r.rc, 0, "dump: exit 0");
	/* the file holds this kernel's vDSO: version 4 */
	snprintf(vdso_line, sizeof(vdso_line), "# vdso: %u bytes\n", vdso_size);
	ok(vdso ? strstr(r.out, "# version: 4\n") && strstr(r.out, vdso_line) :
	   strstr(r.out, "# version: 1\n") && !strstr(r.out, "# vdso:"),
	   "dump: the vDSO image stored (%u bytes)", vdso_size);
	ok(strstr(r.out, "# header_size: ") && strstr(r.out, "# flags: 0x1 (finished)\n") &&
	   strstr(r.out, "# session_id: 1\n# nr_cpus: 2\n") &&
	   strstr(r.out, "# session_flags: 0x47 (kernel-stack|user-stack|inherit|owned)\n") &&
	   strstr(r.out, "# freq: 4000\n# period: 0\n# buffer_size: 8192\n# stack_depth: 127\n") &&
	   strstr(r.out, "# cpus: all\n") && strstr(r.out, "# module: 0.1.0\n") &&
	   strstr(r.out, "# cmdline: kprofctl record -o ") &&
	   strstr(r.out, "# nr_events: 1\n# event[0]: type=1 (software) config=0x0 (cpu-clock) flags=0x0 name=cpu-clock\n"),
	   "dump: header");
	ok(strstr(r.out, ": SYNTH_DONE misc=0x0 time=864000000000000 nr_processes=0 nr_threads=0 nr_mmaps=0 nr_vanished=1\n"),
	   "dump: side-band synthesis (the PID is not in the fake /proc)");
	ok(strstr(r.out, ": COMM misc=0x4 time=100 pid=42 tid=42 exec=1 comm=\"true\"\n"), "dump: COMM");
	ok(strstr(r.out, ": SAMPLE misc=0x1 time=101 cpu=0 pid=42 tid=42 event=0 ip=0xffffffff81001234 [k] period=250000 flags=0x2 nr_kernel=2 nr_user=1\n"
			 "... chain: nr=3\n"
			 ".....  0: 0xffffffff81001234 [k]\n"
			 ".....  1: 0xffffffff81005678 [k]\n"
			 ".....  2: 0x000055555555a000 [u]\n\n"), "dump: kernel sample with its chain");
	ok(strstr(r.out, ": LOST misc=0x0 time=102 cpu=0 lost=1 cause=full\n"), "dump: LOST");
	ok(strstr(r.out, " [0x50]: SAMPLE misc=0x2 time=103 cpu=1 pid=42 tid=42 event=0 ip=0x000055555555a000 [u] period=250000 flags=0x0 nr_kernel=0 nr_user=3\n"
			 "... chain: nr=3\n"
			 ".....  0: 0x000055555555a000 [u]\n"
			 ".....  1: 0x000055555555a001 [u]\n"
			 ".....  2: 0x000055555555a002 [u]\n"), "dump: the sample that wrapped, intact");
	ok(strstr(r.out, ": STATS misc=0x0 cpu=0 nr=13 invocations=2 samples=1 lost_full=1 lost_too_big=0 throttled=0 ") &&
	   strstr(r.out, ": STATS misc=0x0 cpu=1 nr=13 invocations=1 samples=1 ") &&
	   strstr(r.out, ": STATS misc=0x0 cpu=total nr=13 invocations=3 samples=2 lost_full=1 "),
	   "dump: per-CPU and total STATS");
	ok(strstr(r.out, ": FINISHED misc=0x0 time=864000000000000 nr_records=8 data_size=") &&
	   strstr(r.out, "# end: 9 records\n"), "dump: FINISHED, the end line");
	run_free(&r);

	kprofctl(&r, "dump", "-i", out, "--json", NULL);
	if (vdso)
		snprintf(vdso_line, sizeof(vdso_line),
			 "\"name\":\"cpu-clock\"}],\"vdso_size\":%u}}\n", vdso_size);
	else
		snprintf(vdso_line, sizeof(vdso_line), "\"name\":\"cpu-clock\"}]}}\n");
	if (!ok(r.rc == 0 && !strncmp(r.out, vdso ? "{\"header\":{\"version\":4," :
				      "{\"header\":{\"version\":1,", 23) &&
	   strstr(r.out, "\"events\":[{\"type\":1,\"type_name\":\"software\",\"config\":\"0x0\",\"canonical\":\"cpu-clock\",\"flags\":0,") &&
	   strstr(r.out, vdso_line) &&
	   strstr(r.out, ",\"size\":80,\"type\":\"SAMPLE\",\"type_id\":1,\"misc\":1,\"time\":101,\"cpu\":0,\"pid\":42,\"tid\":42,\"event\":0,\"ip\":\"0xffffffff81001234\",\"period\":250000,\"flags\":2,\"nr_kernel\":2,\"nr_user\":1,\"kernel\":[\"0xffffffff81001234\",\"0xffffffff81005678\"],\"user\":[\"0x55555555a000\"]}\n") &&
	   strstr(r.out, "\"type\":\"STATS\",\"type_id\":65536,\"misc\":0,\"cpu\":\"total\",\"invocations\":3,"),
	   "dump --json: header and records, one object per line"))
		diag("%s", r.out);
	run_free(&r);

	kprofctl(&r, "dump", "-i", out, "--header-only", NULL);
	ok(r.rc == 0 && strstr(r.out, "# nr_events: 1\n") && !strstr(r.out, "SAMPLE"),
	   "dump --header-only");
	run_free(&r);

	/* The command's exit status. */
	fake_setup();
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--", "sh", "-c", "exit 3", NULL);
	ok(r.rc == 3 && strstr(r.err, "[ kprof record: Balance: "), "record: the command's exit status");
	run_free(&r);
	fake_setup();
	kprofctl(&r, "record", "-q", "-o", out, "--buffer-size", "8K", "--", "sh", "-c", "exit 3", NULL);
	ok(r.rc == 3 && !strstr(r.err, "[ kprof record:"),
	   "record -q: no summary lines, as perf's; the command's exit status");
	run_free(&r);
	fake_setup();
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--", "sh", "-c", "kill -TERM $$", NULL);
	is_int(r.rc, 128 + SIGTERM, "record: a killed command: 128 + signal");
	run_free(&r);

	/* exec fails: 127 and perf's message. */
	fake_setup();
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--", "/nonexistent/cmd", NULL);
	is_int(r.rc, 127, "record: exec failure: 127");
	ok(strstr(r.err, "kprofctl: record: workload failed: cannot run '/nonexistent/cmd': No such file or directory\n") &&
	   !strstr(r.err, "Balance"), "record: exec failure: one error line, no summary");
	ok(fake.nr_stops == 1, "record: exec failure: session stopped");
	run_free(&r);

	/* A session is running. */
	fake_setup();
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_id = 7;
	kprofctl(&r, "record", "-o", out, "--", "true", NULL);
	is_int(r.rc, 1, "record, busy: exit 1");
	ok(strstr(r.err, "kprofctl: record: session 7 is running; stop it first with 'kprofctl stop'\n") &&
	   !fake.nr_stops, "record, busy: names the session, stops nothing");
	run_free(&r);

	/* The module refuses the session. */
	fake_setup();
	fake.start_errno = EOPNOTSUPP;
	fake.start_extack = "event 0 (cpu-clock): perf_event_create_kernel_counter failed";
	kprofctl(&r, "record", "-o", out, "--", "true", NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: record: Operation not supported: event 0 (cpu-clock): perf_event_create_kernel_counter failed\n"),
	   "record, refused: the module's reason");
	run_free(&r);

	fake_setup();
	fake.loaded = false;
	kprofctl(&r, "record", "--", "true", NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: kprof module not loaded (insmod kprof.ko)\n"),
	   "record, no module");
	run_free(&r);

	/* A write error. */
	fake_setup();
	kprofctl(&r, "record", "-o", "/dev/full", "--buffer-size", "8K", "--", "true", NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: record: cannot write '/dev/full': No space left on device\n") &&
	   fake.nr_stops == 1, "record to /dev/full: ENOSPC, session stopped");
	run_free(&r);
}

/* The names in @dir starting with @prefix, sorted, into @names; how many. */
static int switch_files(const char *dir, const char *prefix, char names[][512], int max)
{
	struct dirent **list;
	int n, i, nr = 0;

	n = scandir(dir, &list, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (!strncmp(list[i]->d_name, prefix, strlen(prefix)) && nr < max)
			snprintf(names[nr++], 512, "%s/%s", dir, list[i]->d_name);
		free(list[i]);
	}
	if (n >= 0)
		free(list);
	return nr;
}

/* record --switch-output: rotation on SIGUSR2, by time, retention, errors. */
static void test_switch_output(void)
{
	char dir[128], output[160], names[8][512], line[640];
	struct run r, d;
	int n, i;
	bool alone = true;

	snprintf(dir, sizeof(dir), "%s/switch", root);
	mkdir(dir, 0755);
	snprintf(output, sizeof(output), "%s/kprof.data", dir);

	/* Two SIGUSR2 from the command: three files. */
	fake_setup();
	kprofctl(&r, "record", "-o", output, "--buffer-size", "8K", "--switch-output", "--",
		 "sh", "-c", "kill -USR2 $PPID; sleep 0.4; kill -USR2 $PPID; sleep 0.4", NULL);
	is_int(r.rc, 0, "switch-output: exit 0");
	n = switch_files(dir, "kprof.data.", names, 8);
	if (!is_int(n, 3, "switch-output: two SIGUSR2, three files"))
		diag("%s", r.err);
	ok(access(output, F_OK) && errno == ENOENT, "switch-output: no kprof.data left, all renamed");
	ok(n == 3 && strlen(names[0]) == strlen(dir) + strlen("/kprof.data.") + 16,
	   "switch-output: perf's name, OUTPUT.YYYYmmddHHMMSScc");
	if (n >= 1) {
		snprintf(line, sizeof(line), "[ kprof record: Dump %s (2 samples) ]\n", names[0]);
		ok(strstr(r.err, line), "switch-output: the first file dumped with the 2 samples");
	}
	ok(strstr(r.err, "[ kprof record: Switched output: file 3 of the session, 2 samples in it and the earlier ones ]\n") &&
	   strstr(r.err, "[ kprof record: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n") &&
	   !strstr(r.err, "WARNING"), "switch-output: the session balances over the three files");
	if (n == 3) {
		snprintf(line, sizeof(line), " MB %s (0 samples) ]\n", names[2]);
		ok(strstr(r.err, line), "switch-output: the summary names the last file");
	}
	ok(fake.nr_stops == 1, "switch-output: one session, one STOP");
	for (i = 0; i < n; i++) {
		kprofctl(&d, "dump", "-i", names[i], NULL);
		snprintf(line, sizeof(line), ": SWITCH misc=0x0 time=864000000000000 seq=%d samples_before=%d\n",
			 i, i ? 2 : 0);
		if (d.rc || !strstr(d.out, "# version: 5\n") || !strstr(d.out, line) ||
		    !strstr(d.out, ": SYNTH_DONE ") || !strstr(d.out, ": FINISHED ")) {
			alone = false;
			diag("%s: rc %d\n%s%s", names[i], d.rc, d.out, d.err);
		}
		if (i == 0 && !strstr(d.out, ": SAMPLE "))
			alone = false;
		if (i == 2 && !strstr(d.out, ": STATS misc=0x0 cpu=total "))
			alone = false;
		run_free(&d);
	}
	ok(alone, "switch-output: each file decodes alone: version 5, SWITCH, side-band, FINISHED; samples in the first, the session's STATS in the last");
	if (n == 3) {
		kprofctl(&d, "dump", "-i", names[1], "--json", NULL);
		ok(d.rc == 0 && strstr(d.out, "\"type\":\"SWITCH\",\"type_id\":65541,\"misc\":0,\"time\":864000000000000,\"seq\":1,\"samples_before\":2}"),
		   "switch-output: dump --json of SWITCH");
		run_free(&d);
		kprofctl(&d, "report", "-i", names[0], "--stdio", NULL);
		ok(d.rc == 0 && strstr(d.out, "# Samples: 2 "), "switch-output: report of the first file");
		if (d.rc)
			diag("%s%s", d.out, d.err);
		run_free(&d);
	}
	for (i = 0; i < n; i++)
		unlink(names[i]);
	run_free(&r);

	/* --switch-max-files 2: the oldest of three is deleted. */
	fake_setup();
	kprofctl(&r, "record", "-o", output, "--buffer-size", "8K", "--switch-output=signal",
		 "--switch-max-files", "2", "--", "sh", "-c",
		 "kill -USR2 $PPID; sleep 0.4; kill -USR2 $PPID; sleep 0.4", NULL);
	n = switch_files(dir, "kprof.data.", names, 8);
	ok(r.rc == 0 && n == 2 && strstr(r.err, "Switched output: file 3 of the session"),
	   "switch-max-files 2: two files left of three");
	if (r.rc || n != 2)
		diag("%s", r.err);
	for (i = 0; i < n; i++)
		unlink(names[i]);
	run_free(&r);

	/* By time. */
	fake_setup();
	kprofctl(&r, "record", "-o", output, "--buffer-size", "8K", "--switch-output=1s", "--",
		 "sleep", "1.6", NULL);
	n = switch_files(dir, "kprof.data.", names, 8);
	ok(r.rc == 0 && n == 2, "switch-output=1s: a 1.6 s command, two files");
	if (r.rc || n != 2)
		diag("%d files: %s", n, r.err);
	for (i = 0; i < n; i++)
		unlink(names[i]);
	run_free(&r);

	/* By size: a file is full once it holds 1 byte. */
	fake_setup();
	kprofctl(&r, "record", "-o", output, "--buffer-size", "8K", "--switch-output=1B",
		 "--switch-max-files", "3", "--", "sleep", "0.6", NULL);
	n = switch_files(dir, "kprof.data.", names, 8);
	ok(r.rc == 0 && n == 3 && strstr(r.err, "Balance: 3 invocations = 2 stored + 1 lost: ok"),
	   "switch-output=1B: a switch at every wake-up, three files kept, the session balances");
	if (r.rc || n != 3)
		diag("%d files: %s", n, r.err);
	for (i = 0; i < n; i++)
		unlink(names[i]);
	run_free(&r);

	check_usage_error("kprofctl: record: invalid value '5x' for option '--switch-output'\n",
			  "record", "--switch-output=5x", "--", "true", NULL);
	check_usage_error("kprofctl: record: invalid value '100' for option '--switch-output'\n",
			  "record", "--switch-output=100", "--", "true", NULL);
	check_usage_error("kprofctl: record: invalid value '0s' for option '--switch-output'\n",
			  "record", "--switch-output=0s", "--", "true", NULL);
	check_usage_error("kprofctl: record: --switch-max-files 2 needs --switch-output\n",
			  "record", "--switch-max-files", "2", "--", "true", NULL);
	check_usage_error("kprofctl: record: --switch-output: '/dev/null' is not a regular file\n",
			  "record", "-o", "/dev/null", "--switch-output", "--", "true", NULL);
	rmdir(dir);
}

/* The program the build-id test maps, and where kpt_leaf is in it. */
static char bid_prog[256];
static uint64_t bid_leaf;

/* The fake kernel's buffers: pid 77 maps bid_prog's text and is sampled in kpt_leaf. */
static void fill_bid_rings(void *map, uint32_t nr_cpus, uint64_t stride)
{
	unsigned char buf[512] __attribute__((aligned(8)));
	struct kp_rec_comm c = { .header = { KPROF_RECORD_COMM, KPROF_MISC_COMM_EXEC, sizeof(c) },
				 .time = 100, .pid = 77, .tid = 77, .comm = "kpt" };
	struct kp_rec_mmap *m = (void *)buf;
	struct kp_rec_sample *s = (void *)buf;
	size_t len = strlen(bid_prog);
	int i;

	(void)nr_cpus;
	fake_ring__put(map, stride, 0, &c, sizeof(c));
	memset(buf, 0, sizeof(buf));
	m->header.type = KPROF_RECORD_MMAP;
	m->header.size = (sizeof(*m) + len + 1 + 7) & ~7UL;
	m->time = 100;
	m->pid = m->tid = 77;
	/* the non-PIE test program's text: file offset 0x1000 at 0x401000 */
	m->start = 0x401000;
	m->len = 0x1000;
	m->pgoff = 0x1000;
	memcpy(m->filename, bid_prog, len);
	fake_ring__put(map, stride, 0, m, m->header.size);
	for (i = 0; i < 2; i++) {
		memset(buf, 0, sizeof(buf));
		s->header.type = KPROF_RECORD_SAMPLE;
		s->header.misc = KPROF_MISC_USER;
		s->header.size = sizeof(*s) + 8;
		s->time = 101 + i;
		s->ip = bid_leaf + 2;
		s->period = 250000;
		s->pid = s->tid = 77;
		s->cpu = i;
		s->nr_user = 1;
		s->ips[0] = bid_leaf + 2;
		fake_ring__put(map, stride, i, s, s->header.size);
	}
}

/*
 * Build-ids: record writes a BUILD_ID record of the file its samples hit
 * and adds the file to the build-id cache; report reads the cache when the
 * file was replaced since; -N and -B; a replaced file with no cache entry
 * is refused, with a warning, rather than misread.
 */
static void test_buildid(void)
{
	const char *elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	char src[4096], nm[4096], cache[128], other[128], line[1024], hex[KP_BUILDID_HEX_MAX];
	char cached[4096], cmd[8192];
	unsigned char id[KP_BUILD_ID_MAX];
	int n;
	struct run r, d;

	snprintf(nm, sizeof(nm), "%s/nopie", elf_dir);
	if (!realpath(nm, src)) {
		ok(0, "the test program %s is built", nm);
		return;
	}
	snprintf(nm, sizeof(nm), "%s/nopie.nm", elf_dir);
	bid_leaf = elf_maps__nm_addr(nm, "kpt_leaf");
	n = kp_elf__build_id(src, id, sizeof(id));
	ok(n == 20 && bid_leaf, "build-id: the test program has a 20-byte build-id and kpt_leaf");
	if (n <= 0)
		return;
	kp_buildid__hex(id, n, hex);
	snprintf(bid_prog, sizeof(bid_prog), "%s/bin/kprof-bidtest", root);
	tmpdir__mkdirs(root, "bin/kprof-bidtest", 0);
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, bid_prog);
	ok(!system(cmd), "build-id: a copy of the program to replace later");
	snprintf(cache, sizeof(cache), "%s/bidcache", root);
	snprintf(other, sizeof(other), "%s/bidother", root);

	fake_setup();
	fake.on_start = fill_bid_rings;
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--buildid-dir", cache, "-v",
		 "--", "true", NULL);
	is_int(r.rc, 0, "build-id: record: exit 0");
	ok(strstr(r.err, "kprofctl: record: 1 build-ids of the files hit, 1 new in "),
	   "build-id: record -v: one file hit, added to the cache");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	kprofctl(&d, "dump", "-i", out, NULL);
	snprintf(line, sizeof(line), ": BUILD_ID misc=0x0 pid=77 size=20 build_id=%s filename=%s\n",
		 hex, bid_prog);
	ok(d.rc == 0 && strstr(d.out, "# version: 5\n") && strstr(d.out, line),
	   "build-id: dump: version 5, the BUILD_ID record of the program");
	if (d.rc || !strstr(d.out, line))
		diag("want %s%s", line, d.out);
	run_free(&d);
	ok(!kp_buildid_cache__path(cache, id, n, cached, sizeof(cached)),
	   "build-id: the cache has the program");

	/* The program replaced by another ELF file: the cache still names kpt_leaf. */
	snprintf(cmd, sizeof(cmd), "cp %s/libkpt.so %s.new && mv %s.new %s", elf_dir, bid_prog,
		 bid_prog, bid_prog);
	ok(!system(cmd), "build-id: the program replaced");
	kprofctl(&d, "report", "-i", out, "--stdio", "--kallsyms", "/dev/null", "--buildid-dir", cache,
		 NULL);
	ok(d.rc == 0 && strstr(d.out, "kpt_leaf") && !strstr(d.err, "warning"),
	   "build-id: report of a replaced program names kpt_leaf from the cache");
	if (d.rc || !strstr(d.out, "kpt_leaf"))
		diag("%s%s", d.out, d.err);
	run_free(&d);
	kprofctl(&d, "report", "-i", out, "--stdio", "--kallsyms", "/dev/null", "--buildid-dir", other,
		 NULL);
	snprintf(line, sizeof(line), "kprofctl: report: warning: '%s' is not the file recorded (build-id %s), and the build-id cache %s does not have it: its frames stay unnamed\n",
		 bid_prog, hex, other);
	ok(d.rc == 0 && !strstr(d.out, "kpt_leaf") && strstr(d.err, line),
	   "build-id: without the cache entry, the replaced file is not misread: a warning");
	if (!strstr(d.err, line))
		diag("want %s%s", line, d.err);
	run_free(&d);

	/* -N: the record, no cache entry; -B: neither. */
	snprintf(cmd, sizeof(cmd), "cp %s %s", src, bid_prog);
	ok(!system(cmd), "build-id: the program back");
	fake_setup();
	fake.on_start = fill_bid_rings;
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--buildid-dir", other, "-N",
		 "--", "true", NULL);
	kprofctl(&d, "dump", "-i", out, NULL);
	ok(r.rc == 0 && strstr(d.out, ": BUILD_ID ") && tmpdir__count(other, "") <= 0,
	   "build-id: record -N: the BUILD_ID record, nothing cached");
	run_free(&r);
	run_free(&d);
	fake_setup();
	fake.on_start = fill_bid_rings;
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--buildid-dir", other, "-B",
		 "--", "true", NULL);
	kprofctl(&d, "dump", "-i", out, NULL);
	ok(r.rc == 0 && !strstr(d.out, ": BUILD_ID ") && !strstr(d.out, "# version: 5\n") &&
	   tmpdir__count(other, "") <= 0, "build-id: record -B: no BUILD_ID record, an older version");
	run_free(&r);
	run_free(&d);
}

static void corrupt_cpu1(void *map, uint32_t nr_cpus, uint64_t stride)
{
	unsigned char junk[16] __attribute__((aligned(8))) = { 1, 0, 0, 0, 0, 0, 12, 0 };

	(void)nr_cpus;
	fake_ring__put(map, stride, 1, junk, sizeof(junk));
}

static void test_record_corrupt(void)
{
	struct run r;

	fake_setup();
	fake.on_start = corrupt_cpu1;
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--", "true", NULL);
	is_int(r.rc, 1, "corrupt buffer: exit 1");
	ok(strstr(r.err, "kprofctl: record: CPU 1: corrupt buffer at offset 0 (position 0): bad record size 12 (type 1)\n"),
	   "corrupt buffer: names the CPU and the offset");
	ok(fake.nr_stops == 1, "corrupt buffer: session stopped");
	run_free(&r);

	/* dump of a damaged file: the records before, then one error line. */
	{
		FILE *fp;

		fake_setup();
		kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "--", "true", NULL);
		run_free(&r);
		fp = fopen(out, "r+");
		fseek(fp, -40 + 6, SEEK_END);		/* FINISHED's size */
		fputc(0x33, fp);
		fclose(fp);
	}
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(r.rc == 1 && strstr(r.out, ": STATS misc=0x0 cpu=total") && strstr(r.err, "' is corrupt at byte offset ") &&
	   strstr(r.err, ": bad record size 51 (type 65537)\n") && !strchr(strchr(r.err, '\n') + 1, '\n'),
	   "dump of a damaged file: the records before it, one error line");
	run_free(&r);
	kprofctl(&r, "dump", "-i", "/nonexistent.data", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: dump: cannot open '/nonexistent.data': No such file or directory\n"),
	   "dump of a missing file");
	run_free(&r);
}

/* A clock that moves one second per reading. */
static uint64_t tick_ns;

static uint64_t ticking_clock(void)
{
	tick_ns += 1000000000ULL;
	return tick_ns;
}

static void raise_sigint(void *map, uint32_t nr_cpus, uint64_t stride)
{
	fill_rings(map, nr_cpus, stride);
	raise(SIGINT);
}

static void stop_elsewhere(void *map, uint32_t nr_cpus, uint64_t stride)
{
	fill_rings(map, nr_cpus, stride);
	fake.status.state = KPROF_STATE_STOPPED;
}

static void kill_pid_55(void *map, uint32_t nr_cpus, uint64_t stride)
{
	char path[256];

	fill_rings(map, nr_cpus, stride);
	snprintf(path, sizeof(path), "%s/proc/55/task/55/comm", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/55/task/55", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc/55/task", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/proc/55/maps", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/55", root);
	rmdir(path);
}

static void test_record_targets(void)
{
	struct run r;

	/* System-wide until SIGINT, with the side-band of the fake /proc. */
	tmpdir__write(root, "proc/55/task/55/comm", "server\n");
	tmpdir__write(root, "proc/55/maps", "00400000-00500000 r-xp 00000000 fd:01 7 /usr/sbin/server\n");
	fake_setup();
	fake.on_start = raise_sigint;
	kprofctl(&r, "record", "-a", "-o", out, "--buffer-size", "8K", "-F", "99", NULL);
	ok(r.rc == 0 && strstr(r.err, "[ kprof record: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n") &&
	   strstr(r.err, "[ kprof record: Side-band: 2 synthesized, 1 from the kernel, 0 lost ]\n"),
	   "record -a: SIGINT stops it cleanly, with the summary");
	ok(fake.nr_stops == 1 &&
	   fake.start_req.flags == (KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_OWNED) &&
	   fake.start_req.freq == 99 && !fake.start_req.nr_pids, "record -a: system-wide, stopped");
	is_int(fake.start_req.user_stack, 0, "record -a without -g: no user stack copy");
	run_free(&r);
	/* the leaf fix-up's copy: asked with user chains in a stream only */
	fake_setup();
	fake.on_start = raise_sigint;
	kprofctl(&r, "record", "-a", "-g", "--no-leaf-fixup", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && (fake.start_req.flags & KPROF_SESSION_F_USER_STACK) &&
	   !fake.start_req.user_stack, "record -a -g --no-leaf-fixup: user chains, no stack copy");
	run_free(&r);
	fake_setup();
	fake.on_start = raise_sigint;
	kprofctl(&r, "record", "-a", "-g", "--mode", "both", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && fake.start_req.user_stack == KP_LEAF_STACK_BYTES,
	   "record -a -g --mode both: the stream's samples carry the stack copy");
	run_free(&r);
	fake_setup();
	fake.on_start = raise_sigint;
	kprofctl(&r, "record", "-a", "-g", "--all-kernel", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && !fake.start_req.user_stack, "record -a -g -K: no user chains, no stack copy");
	run_free(&r);
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(strstr(r.out, ": COMM misc=0x0 time=864000000000000 pid=55 tid=55 exec=0 comm=\"server\"\n") &&
	   strstr(r.out, ": MMAP misc=0x0 time=864000000000000 pid=55 tid=55 start=0x400000 len=0x100000 pgoff=0x0 filename=\"/usr/sbin/server\"\n") &&
	   strstr(r.out, "SYNTH_DONE misc=0x0 time=864000000000000 nr_processes=1 nr_threads=1 nr_mmaps=1 nr_vanished=0\n"),
	   "record -a: COMM and MMAP synthesized from /proc at the start time");
	run_free(&r);

	/* -p: until the process is gone. */
	fake_setup();
	fake.on_start = kill_pid_55;
	tick_ns = fake.now_ns;
	kp_clock_ns = ticking_clock;
	kprofctl(&r, "record", "-p", "55", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && strstr(r.err, "kprofctl: record: the profiled processes have exited\n") &&
	   strstr(r.err, "Balance: 3 invocations"), "record -p: ends when the process is gone");
	ok(fake.start_req.nr_pids == 1 && fake.start_req.pids[0] == 55 &&
	   fake.start_req.flags == (KPROF_SESSION_F_INHERIT | KPROF_SESSION_F_OWNED) &&
	   fake.nr_stops == 1, "record -p: the PID, inherit, stopped");
	run_free(&r);

	/*
	 * -t: threads 57 and 58 of process 55 only, no children (perf's -t);
	 * their process's COMM and MMAP synthesized once.
	 */
	tmpdir__write(root, "proc/55/task/55/comm", "server\n");
	tmpdir__write(root, "proc/55/task/57/comm", "worker\n");
	tmpdir__write(root, "proc/55/maps", "00400000-00500000 r-xp 00000000 fd:01 7 /usr/sbin/server\n");
	tmpdir__write(root, "proc/57/status", "Name:\tworker\nUmask:\t0022\nState:\tR (running)\nTgid:\t55\nNgid:\t0\nPid:\t57\n");
	tmpdir__write(root, "proc/58/status", "Name:\tworker\nTgid:\t55\nPid:\t58\n");
	fake_setup();
	fake.on_start = raise_sigint;
	kprofctl(&r, "record", "-t", "57,58", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && strstr(r.err, "Balance: 3 invocations"), "record -t: recorded (%d: %s)",
	   r.rc, r.err);
	ok(fake.start_req.nr_pids == 2 && fake.start_req.pids[0] == 57 &&
	   fake.start_req.pids[1] == 58 &&
	   fake.start_req.flags == (KPROF_SESSION_F_THREADS | KPROF_SESSION_F_OWNED),
	   "record -t: the TIDs, F_THREADS, no inherit (flags 0x%x)", fake.start_req.flags);
	run_free(&r);
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(strstr(r.out, "comm=\"worker\"") && strstr(r.out, "# tids: 57,58\n") &&
	   strstr(r.out, "SYNTH_DONE misc=0x0 time=864000000000000 nr_processes=1 nr_threads=2 nr_mmaps=1 nr_vanished=0\n"),
	   "record -t: the thread's process synthesized once, the header says tids");
	run_free(&r);
	tmpdir__remove_path(root, "proc/55");
	tmpdir__remove_path(root, "proc/57");
	tmpdir__remove_path(root, "proc/58");

	/* -t on a module before ABI 1.11: refused before START, in one line. */
	tmpdir__write(root, "proc/57/status", "Tgid:\t55\n");
	fake_setup();
	fake.abi = (KPROF_ABI_MAJOR << 16) | 10;
	fake.no_abi_check = true;
	kprofctl(&r, "record", "-t", "57", "-e", "cpu-clock", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc != 0 && !fake.start_req.nr_pids &&
	   !strcmp(r.err, "kprofctl: record: -t/--tid needs kprof.ko ABI 1.11; the loaded module has 1.10 (load the new one)\n"),
	   "record -t, ABI 1.10 module: refused naming the option (%s)", r.err);
	run_free(&r);
	tmpdir__remove_path(root, "proc/57");

	/* ABI 1.1 and 1.3 counters: recursion and cost losses balance, the file keeps them. */
	fake_setup();
	fake.stats.v[KP_STAT_INVOCATIONS] = 6;
	fake.stats.has_nested = true;
	fake.stats.lost_recursion = 2;
	fake.stats.lost_cost = 1;
	fake.stats.nested = 7;
	fake.cpu_stats[0].v[KP_STAT_INVOCATIONS] = 4;
	fake.cpu_stats[0].has_nested = true;
	fake.cpu_stats[0].lost_recursion = 2;
	fake.cpu_stats[1].has_nested = true;
	kprofctl(&r, "record", "-a", "-o", out, "--buffer-size", "8K", "--", "true", NULL);
	ok(r.rc == 0 &&
	   strstr(r.err, "[ kprof record: Lost 4 samples: 1 buffer full, 0 too big, 2 recursion, "
		  "1 cost cap ]\n") &&
	   strstr(r.err, "[ kprof record: Balance: 6 invocations = 2 stored + 4 lost: ok ]\n") &&
	   !strstr(r.err, "WARNING"), "record: recursion and cost losses in the summary and the balance");
	run_free(&r);
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(r.rc == 0 && strstr(r.out, " cpu=total nr=23 invocations=6 samples=2 lost_full=1 ") &&
	   strstr(r.out, " filtered=0 lost_recursion=2 nested=7 lost_cost=1\n") &&
	   strstr(r.out, " cpu=0 nr=23 invocations=4 "),
	   "dump: STATS keep lost_recursion, nested (ABI 1.1) and lost_cost (1.3) (nr=23)");
	run_free(&r);
	kprofctl(&r, "report", "-i", out, "--stdio", NULL);
	ok(r.rc == 0 && strstr(r.out, "# Total Lost Samples: 4\n"),
	   "report: the recursion and cost losses among the lost samples");
	run_free(&r);

	/* An ABI 1.0 module knows no owned sessions: the flag is not sent. */
	tmpdir__write(root, "proc/55/task/55/comm", "server\n");
	tmpdir__write(root, "proc/55/maps", "00400000-00500000 r-xp 00000000 fd:01 7 /usr/sbin/server\n");
	fake_setup();
	fake.abi = KPROF_ABI_MAJOR << 16;
	fake.no_abi_check = true;
	fake.on_start = kill_pid_55;
	tick_ns = fake.now_ns;
	kp_clock_ns = ticking_clock;
	kprofctl(&r, "record", "-p", "55", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && fake.start_req.flags == KPROF_SESSION_F_INHERIT,
	   "record -p, ABI 1.0 module: no owned flag (flags 0x%x)", fake.start_req.flags);
	run_free(&r);

	/* Stopped by someone else: no STOP, the totals from STATUS. */
	fake_setup();
	fake.on_start = stop_elsewhere;
	tick_ns = fake.now_ns;
	kp_clock_ns = ticking_clock;
	kprofctl(&r, "record", "-a", "-o", out, "--buffer-size", "8K", NULL);
	ok(r.rc == 0 && !fake.nr_stops &&
	   strstr(r.err, "[ kprof record: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n"),
	   "record: a session stopped elsewhere ends the recording, totals from STATUS");
	run_free(&r);
	fake_kprof__reset();
}

static void test_start_stop(void)
{
	struct kp_drainer_info d;
	struct kp_err err;
	struct run r;
	char line[512];

	fake_setup();
	kprofctl(&r, "stop", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: stop: no session is running\n"),
	   "stop without a session: one line, exit 1");
	run_free(&r);

	/* A session started elsewhere (no drainer): the totals. */
	fake_setup();
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_id = 9;
	kprofctl(&r, "stop", NULL);
	ok(r.rc == 0 && !strcmp(r.err, "[ kprof stop: session 9 stopped: 2 samples, 1 lost (1 buffer full, 0 too big) ]\n"
					"[ kprof stop: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n"),
	   "stop without a drainer: the totals");
	run_free(&r);

	/* ABI 1.10: several run; stop without --id names them, --all stops them all */
	fake_setup();
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_id = 5;
	fake.nr_table = 3;
	fake.table[0] = (struct kp_session_row){ .id = 3, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE };
	fake.table[0].stats.has_agg = true;
	fake.table[0].stats.v[KP_STAT_INVOCATIONS] = 4;
	fake.table[0].stats.agg[KP_AGG_STAT_SAMPLES] = 4;
	fake.table[1] = (struct kp_session_row){ .id = 4, .state = KPROF_STATE_STOPPED };
	fake.table[2] = (struct kp_session_row){ .id = 5, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_STREAM, .owner_pid = 777, .uid = 1000 };
	fake.table[2].stats.v[KP_STAT_INVOCATIONS] = 2;
	fake.table[2].stats.v[KP_STAT_SAMPLES] = 2;
	kprofctl(&r, "stop", NULL);
	is_str(r.err, "kprofctl: stop: 2 sessions run: 3 (aggregate, detached, uid 0), "
		      "5 (stream, pid 777, uid 1000); name one with --id N, or stop them all with --all\n",
	       "stop while two run, no --id: one line naming both");
	is_int(r.rc, 1, "stop while two run, no --id: exit 1");
	run_free(&r);
	kprofctl(&r, "stop", "--all", "-o", out, NULL);
	ok(r.rc == 2 || (r.rc == 1 && strstr(r.err, "--all stops every session: not with -o/--output")),
	   "stop --all -o: refused");
	run_free(&r);
	kprofctl(&r, "stop", "--all", NULL);
	is_int(r.rc, 0, "stop --all: exit 0");
	ok(strstr(r.err, "[ kprof stop: session 3 stopped: 4 samples aggregated") &&
	   strstr(r.err, "[ kprof stop: session 5 stopped: 2 samples, 0 lost") &&
	   !strstr(r.err, "session 4") && fake.table[0].state == KPROF_STATE_STOPPED &&
	   fake.table[2].state == KPROF_STATE_STOPPED,
	   "stop --all: both running sessions stopped, each its totals; the stopped one left alone");
	if (!strstr(r.err, "session 3 stopped"))
		diag("%s", r.err);
	run_free(&r);
	kprofctl(&r, "stop", "--all", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: stop: no session is running\n"),
	   "stop --all with none running: one line, exit 1");
	run_free(&r);
	fake.nr_table = 0;

	/* start, then stop. */
	fake_setup();
	kprofctl(&r, "start", "-o", out, "--buffer-size", "8K", "-a", NULL);
	is_int(r.rc, 0, "start: exit 0");
	ok(kp_rundir__read(1, &d, &err) == 0 && d.session_id == 1 && !strcmp(d.output, out) &&
	   kp_pid_alive(d.pid), "start: the drainer runs and is recorded in the run directory");
	snprintf(line, sizeof(line),
		 "kprof session 1 started: writing %s (drainer pid %d); 'kprofctl stop' ends it\n",
		 out, (int)d.pid);
	is_str(r.out, line, "start: one line naming the session, the file and the drainer");
	ok(fake.start_req.flags == KPROF_SESSION_F_SYSTEM_WIDE && fake.status.state == KPROF_STATE_RUNNING,
	   "start: system-wide session left running");
	run_free(&r);

	kprofctl(&r, "start", "-o", out, NULL);
	ok(r.rc == 1 && strstr(r.err, "kprofctl: start: session 1 is running; stop it first with 'kprofctl stop'\n"),
	   "start twice: busy");
	run_free(&r);

	kprofctl(&r, "stop", NULL);
	is_int(r.rc, 0, "stop: exit 0");
	ok(strstr(r.err, "[ kprof record: Captured and wrote ") &&
	   strstr(r.err, "(2 samples) ]\n") &&
	   strstr(r.err, "[ kprof record: Balance: 3 invocations = 2 stored + 1 lost: ok ]\n"),
	   "stop: the summary of the file");
	ok(!kp_pid_alive(d.pid) && kp_rundir__read(1, &d, &err) == -ENOENT,
	   "stop: the drainer is gone and so is its run directory entry");
	run_free(&r);
	kprofctl(&r, "dump", "-i", out, NULL);
	ok(r.rc == 0 && strstr(r.out, "# flags: 0x1 (finished)\n") &&
	   strstr(r.out, "# session_flags: 0x8 (system-wide)\n") && strstr(r.out, ": FINISHED "),
	   "the drainer's file is complete");
	run_free(&r);
}

static void test_status_session(void)
{
	struct run r;

	fake_setup();
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_id = 5;
	fake.session_flags = KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_KERNEL_STACK;
	fake.buffer_size = 1 << 20;
	fake.mmap_stride = 4096 + (1 << 20);
	kprofctl(&r, "status", NULL);
	ok(r.rc == 0 && strstr(r.out, "state:     running\n") &&
	   strstr(r.out, "session:   5, flags kernel-stack|system-wide, 1M buffer per CPU\n"
			 "mode:      stream\n"
			 "samples:   2 stored, 1 lost (1 buffer full, 0 too big), 0 throttled\n"
			 "balance:   3 invocations = 2 stored + 1 lost: ok\n"
			 "side-band: 1 records, 0 lost\n"), "status: the session and its totals");
	ok(!strstr(r.out, "invocations    "), "status: no per-CPU table without -v");
	run_free(&r);

	fake.cpu_stats[1].v[KP_STAT_INVOCATIONS] = 9;
	kprofctl(&r, "status", "-v", NULL);
	ok(r.rc == 0 && strstr(r.out, "\n cpu    invocations        samples      lost_full") &&
	   strstr(r.out, "\n   0              2              1              1 ") &&
	   strstr(r.out, "       ok\n   1              9              1              0 ") &&
	   strstr(r.out, " MISMATCH\n"), "status -v: per-CPU rows with their balance");
	run_free(&r);

	kprofctl(&r, "status", "-v", "--json", NULL);
	ok(r.rc == 0 && strstr(r.out, ",\"session\":{\"id\":5,\"flags\":9,\"flag_names\":\"kernel-stack|system-wide\",\"mode\":\"stream\",\"buffer_size\":1048576,\"mmap_stride\":1052672,\"stats\":{\"invocations\":3,") &&
	   strstr(r.out, "\"cpus\":[{\"cpu\":0,\"invocations\":2,") && strstr(r.out, "\"balanced\":false}]}}\n"),
	   "status -v --json: session, totals and CPUs");
	run_free(&r);
}

#define LATENCY_NONE	"     nsecs               : count     distribution\n\n" \
			"no calls of vfs_read were timed\n"

/* latency's command: its exit status, and the line when it cannot run. */
static void test_latency_command(void)
{
	struct run r;

	fake_setup();
	fake.symbol_events = true;
	kprofctl(&r, "latency", "vfs_read", "--", "sh", "-c", "exit 3", NULL);
	is_int(r.rc, 3, "latency: the command's exit status");
	is_str(r.out, LATENCY_NONE, "latency: the histogram");
	ok(!r.err[0] && fake.nr_stops == 1, "latency: nothing on stderr, the session stopped");
	run_free(&r);

	fake_setup();
	fake.symbol_events = true;
	kprofctl(&r, "latency", "vfs_read", "--", "sh", "-c", "kill -TERM $$", NULL);
	is_int(r.rc, 128 + SIGTERM, "latency: a killed command: 128 + signal");
	run_free(&r);

	fake_setup();
	fake.symbol_events = true;
	kprofctl(&r, "latency", "vfs_read", "--", "/nonexistent/cmd", NULL);
	is_int(r.rc, 127, "latency: exec failure: 127");
	is_str(r.err, "kprofctl: latency: cannot run '/nonexistent/cmd': No such file or directory\n",
	       "latency: exec failure: its line");
	ok(!strcmp(r.out, LATENCY_NONE) && fake.nr_stops == 1,
	   "latency: exec failure: the histogram, the session stopped");
	run_free(&r);
}

#define RUNQLAT_ROWS	"     usecs               : count     distribution\n" \
			"         0 -> 1          : 5        |****************************************|\n" \
			"         2 -> 3          : 5        |****************************************|\n" \
			"         4 -> 7          : 0        |                                        |\n" \
			"         8 -> 15         : 1        |********                                |\n"

/* sched runqlat: its START, BCC's rows, intervals, bad input. */
static void test_sched_runqlat(void)
{
	struct run r;

	fake_setup();
	fake.has_hist = true;
	fake.hist_buckets[0] = 2;	/* 0 us: row "0 -> 1" with 1 us, as BCC's */
	fake.hist_buckets[1] = 3;
	fake.hist_buckets[2] = 5;
	fake.hist_buckets[4] = 1;
	fake.hist_count = 11;
	kprofctl(&r, "sched", "runqlat", "--", "true", NULL);
	is_int(r.rc, 0, "sched runqlat: exit 0 with the command's status");
	ok(fake.start_req.nr_events == 1 && fake.start_req.events[0].type == KPROF_TYPE_RUNQLAT &&
	   fake.start_req.events[0].config == KPROF_RUNQLAT_USECS && fake.nr_stops == 1,
	   "sched runqlat: one RUNQLAT event in usecs, stopped");
	is_str(r.out, "\n" RUNQLAT_ROWS, "sched runqlat: BCC's rows, 0 and 1 us together");
	run_free(&r);

	fake_setup();
	fake.has_hist = true;
	fake.hist_buckets[3] = 4;
	kprofctl(&r, "sched", "runqlat", "-m", "1", "2", NULL);
	ok(r.rc == 0 && fake.start_req.events[0].config == KPROF_RUNQLAT_MSECS &&
	   fake.nr_hist_dumps == 2 &&
	   !strcmp(r.out, "\n     msecs               : count     distribution\n"
		   "         0 -> 1          : 0        |                                        |\n"
		   "         2 -> 3          : 0        |                                        |\n"
		   "         4 -> 7          : 4        |****************************************|\n"
		   "\n     msecs               : count     distribution\n"),
	   "sched runqlat -m 1 2: msecs, two intervals, each its own counts");
	run_free(&r);

	kprofctl(&r, "sched", "runqlat", "0", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: sched runqlat: invalid interval '0': a positive whole number\n"),
	   "sched runqlat 0: a one-line error naming the interval");
	run_free(&r);
	kprofctl(&r, "sched", "runqlat", "1", "x", NULL);
	ok(r.rc == 2 && strstr(r.err, "invalid count 'x'"), "sched runqlat 1 x: the count named");
	run_free(&r);
	kprofctl(&r, "sched", "runqlat", "-m", "-u", NULL);
	ok(r.rc == 2 && strstr(r.err, "mutually exclusive"), "sched runqlat -m -u: refused");
	run_free(&r);
	kprofctl(&r, "sched", "nosuch", NULL);
	ok(r.rc == 2 && strstr(r.err, "unknown sched command 'nosuch'"),
	   "sched nosuch: a one-line error");
	run_free(&r);
}

/* offcpu: its START, the tables read after STOP, offcputime's two layouts, bad input. */
static void fake_offcpu_entry(unsigned int i, uint32_t cpu, uint64_t blocks, uint64_t ns,
			      uint32_t nr_kernel)
{
	struct fake_agg_entry *e = &fake.agg[i];
	uint32_t j;

	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->pid = 42;
	e->comm = "hot";
	e->count = blocks;
	e->time_ns = ns;
	e->nr_kernel = nr_kernel;
	e->nr_user = 1;
	for (j = 0; j < nr_kernel; j++)
		e->frames[j] = 0xffffffff81001000ULL + j;
	e->frames[nr_kernel] = 0x55555555a000ULL;
	if (i >= fake.nr_agg)
		fake.nr_agg = i + 1;
}

static void test_offcpu(void)
{
	struct kp_err err;
	const struct kp_event *ev = &fake.start_req.events[0];
	Perftools__Profiles__Profile *p;
	char path[256], pb[256];
	long long ns;
	size_t i;
	struct run r;

	fake_setup();
	fake.offcpu_events = true;
	fake_offcpu_entry(0, 0, 3, 5000000, 2);
	fake_offcpu_entry(1, 1, 1, 1000400, 2);	/* the same key on CPU 1 */
	fake_offcpu_entry(2, 0, 2, 2000000, 1);
	fake_offcpu_entry(3, 1, 0, 0, 3);	/* interned, no block ended: no line */
	kprofctl(&r, "offcpu", "-f", "--", "true", NULL);
	is_int(r.rc, 0, "offcpu -f -- true: exit 0");
	ok(fake.start_req.nr_events == 1 && ev->type == KPROF_TYPE_OFFCPU &&
	   ev->config == KPROF_OFFCPU_F_ALL && ev->min_ns == 1000 && ev->max_ns == UINT64_MAX &&
	   (fake.start_req.flags & KPROF_SESSION_F_AGGREGATE) &&
	   !(fake.start_req.flags & KPROF_SESSION_F_STREAM) &&
	   (fake.start_req.flags & KPROF_SESSION_F_KERNEL_STACK) &&
	   (fake.start_req.flags & KPROF_SESSION_F_USER_STACK) && fake.nr_stops == 1 &&
	   fake.nr_agg_dumps == 1,
	   "offcpu: one OFFCPU event (every state, 1 us up), both stacks, aggregating; stopped, then read");
	is_str(r.out, "hot;[unknown];common_interrupt_return 2000\n"
		      "hot;[unknown];common_interrupt_return;common_interrupt_return 6000\n",
	       "offcpu -f: folded, user then kernel frames, microseconds, least first, CPUs merged");
	ok(strstr(r.err, "Tracing off-CPU time (us) of the command by user + kernel stack") != NULL,
	   "offcpu: offcputime's header on stderr");
	run_free(&r);

	/* a run directory that cannot exist (no /run in a container): offcpu
	 * starts, reads and stops its own session and writes nothing there */
	{
		const char *saved = kp_rundir;
		char blocked[256], agg[300];

		snprintf(blocked, sizeof(blocked), "%s/not-a-dir", root);
		tmpdir__write(root, "not-a-dir", "x\n");
		strcat(blocked, "/run/kprof");
		snprintf(agg, sizeof(agg), "%s/1/aggregate.data", saved);
		unlink(agg);
		kp_rundir = blocked;
		fake_setup();
		fake.offcpu_events = true;
		fake_offcpu_entry(0, 0, 3, 5000000, 2);
		kprofctl(&r, "offcpu", "-f", "--", "true", NULL);
		ok(r.rc == 0 && strstr(r.out, "hot;") && !strstr(r.err, "cannot create"),
		   "offcpu with no usable run directory: runs, reads and prints (rc %d: %s)", r.rc, r.err);
		run_free(&r);
		kp_rundir = saved;
		ok(access(agg, F_OK), "offcpu: nothing left in the run directory");
		/* start, where the run directory matters: created with its parents, or
		 * the error names it and KPROF_RUNDIR */
		kp_rundir = blocked;
		ok(kp_rundir__ensure(&err) == -ENOTDIR && strstr(err.msg, "not-a-dir/run") &&
		   strstr(err.msg, "KPROF_RUNDIR"),
		   "a run directory that cannot be made: the error names it and KPROF_RUNDIR (%s)", err.msg);
		snprintf(blocked, sizeof(blocked), "%s/deep/a/b/run", root);
		ok(!kp_rundir__ensure(&err) && !access(blocked, W_OK),
		   "a missing run directory is created with its parents");
		kp_rundir = NULL;
		setenv("KPROF_RUNDIR", blocked, 1);
		ok(!strcmp(kp_rundir__dir(), blocked), "$KPROF_RUNDIR names the run directory");
		unsetenv("KPROF_RUNDIR");
		ok(!strcmp(kp_rundir__dir(), "/run/kprof"), "else /run/kprof");
		kp_rundir = saved;
	}

	/* one directory per session: two drainers side by side, pruned by the table */
	{
		struct kp_drainer_info d1 = { .pid = getpid(), .session_id = 4 };
		struct kp_drainer_info d2 = { .pid = 999999, .session_id = 5 }, got;
		struct kp_data_info info;
		const uint64_t live[] = { 4 };
		char path[4200];

		snprintf(d1.output, sizeof(d1.output), "/tmp/one.data");
		snprintf(d2.output, sizeof(d2.output), "/tmp/two.data");
		kp_data_info__init(&info);
		info.session_id = 5;
		ok(!kp_rundir__write(&d1, &err) && !kp_rundir__write(&d2, &err) &&
		   !kp_agg__save_session(&info, &err), "run directory: two sessions' state written");
		ok(!kp_rundir__read(4, &got, &err) && got.pid == getpid() &&
		   !strcmp(got.output, "/tmp/one.data") && !kp_rundir__read(5, &got, &err) &&
		   got.pid == 999999 && !strcmp(got.output, "/tmp/two.data") &&
		   kp_rundir__read(6, &got, &err) == -ENOENT,
		   "run directory: each session reads back its own drainer, none for a third");
		kp_agg__session_path(5, path, sizeof(path));
		ok(!access(path, F_OK) && strstr(path, "/5/aggregate.data"),
		   "run directory: the aggregating configuration under the session's id");
		kp_rundir__prune(live, 1);
		ok(!kp_rundir__read(4, &got, &err) && kp_rundir__read(5, &got, &err) == -ENOENT &&
		   access(path, F_OK), "prune: a session the module no longer has goes, all of it");
		kp_rundir__prune(NULL, 0);
		ok(!kp_rundir__read(4, &got, &err),
		   "prune: a live drainer keeps its directory whatever the table says");
		kp_rundir__remove(4, getpid());
		kp_rundir__session_dir(4, path, sizeof(path), NULL);
		ok(access(path, F_OK), "remove: the drainer's files and its directory go");
	}

	fake_setup();
	fake.offcpu_events = true;
	fake_offcpu_entry(0, 0, 3, 5000000, 2);
	kprofctl(&r, "offcpu", "-K", "-d", "--state", "D,S", "-m", "10", "-M", "2000", "--", "true",
		 NULL);
	ok(r.rc == 0 && ev->config == (KPROF_OFFCPU_F_D | KPROF_OFFCPU_F_S) && ev->min_ns == 10000 &&
	   ev->max_ns == 2000000 && !(fake.start_req.flags & KPROF_SESSION_F_USER_STACK),
	   "offcpu -K --state D,S -m 10 -M 2000: the states, the limits in ns, no user stacks");
	is_str(r.out, "    common_interrupt_return\n    common_interrupt_return\n"
		      "    -                hot (42)\n        5000\n\n",
	       "offcpu: offcputime's block, kernel frames, '-  comm (pid)', the microseconds");
	run_free(&r);

	/* its profile as pprof: samples and off-CPU time, no cpu */
	fake_setup();
	fake.offcpu_events = true;
	fake_offcpu_entry(0, 0, 3, 5000000, 2);
	fake_offcpu_entry(1, 1, 1, 1000400, 1);
	snprintf(path, sizeof(path), "%s/offcpu.data", root);
	snprintf(pb, sizeof(pb), "%s/offcpu.pb.gz", root);
	kprofctl(&r, "offcpu", "-o", path, "--", "true", NULL);
	run_free(&r);
	kprofctl(&r, "pprof", "-i", path, "-o", pb, NULL);
	p = pprof_load(pb);
	ok(r.rc == 0 && p && p->n_sample_type == 2 &&
	   !strcmp(pprof_str(p, p->sample_type[1]->type), "off-cpu") &&
	   !strcmp(pprof_str(p, p->sample_type[1]->unit), "nanoseconds"),
	   "pprof of offcpu -o: sample types samples/count and off-cpu/nanoseconds");
	for (i = 0, ns = 0; p && i < p->n_sample; i++)
		ns += p->sample[i]->n_value == 2 ? p->sample[i]->value[1] : 0;
	is_int(ns, 6000400, "pprof of offcpu -o: the blocked time, in ns");
	if (p)
		perftools__profiles__profile__free_unpacked(p, NULL);
	run_free(&r);

	/* a block's waker entry: the block's key and time, and the waker's */
	fake_setup();
	fake.offcpu_events = true;
	fake_offcpu_entry(0, 0, 3, 5000000, 2);
	fake_offcpu_entry(1, 1, 2, 3000000, 2);
	fake.agg[1].has_waker = true;
	fake.agg[1].waker_pid = 7;
	fake.agg[1].waker_comm = "wk";
	fake.agg[1].waker_nr_kernel = 1;
	fake.agg[1].waker_nr_user = 1;
	fake.agg[1].waker_frames[0] = 0xffffffff81001000ULL;
	fake.agg[1].waker_frames[1] = 0x55555555b000ULL;
	kprofctl(&r, "offcpu", "-f", "--", "true", NULL);
	is_str(r.out, "hot;[unknown];common_interrupt_return;common_interrupt_return 5000\n",
	       "offcpu without --wakers: a waker entry does not count its block twice");
	run_free(&r);
	kprofctl(&r, "offcpu", "--wakers", "-f", "--", "true", NULL);
	ok(r.rc == 0 && ev->config == (KPROF_OFFCPU_F_ALL | KPROF_OFFCPU_F_WAKERS),
	   "offcpu --wakers: the event asks for wakers");
	is_str(r.out, "hot;[unknown];common_interrupt_return;common_interrupt_return;--;"
		      "common_interrupt_return;[unknown];wk 3000\n",
	       "offcpu --wakers -f: offwaketime's folded line, the waker innermost first after '--'");
	ok(strstr(r.err, "Tracing blocked time (us) of the command by user + kernel off-CPU and waker stack") != NULL,
	   "offcpu --wakers: offwaketime's header on stderr");
	run_free(&r);
	kprofctl(&r, "offcpu", "--wakers", "-K", "--", "true", NULL);
	is_str(r.out, "    waker:           wk 7\n    common_interrupt_return\n"
		      "    --               --\n"
		      "    common_interrupt_return\n    common_interrupt_return\n"
		      "    target:          hot 42\n        3000\n\n",
	       "offcpu --wakers -K: offwaketime's block, waker above '--', target below");
	run_free(&r);

	kprofctl(&r, "offcpu", "-m", "500", "-M", "100", "1", NULL);
	ok(r.rc == 2 && !strcmp(r.err, "kprofctl: offcpu: --min-block 500 is above --max-block 100\n"),
	   "offcpu -m 500 -M 100: one line naming both");
	run_free(&r);
	kprofctl(&r, "offcpu", "--state", "Q", NULL);
	ok(r.rc == 2 && strstr(r.err, "unknown --state 'Q'"), "offcpu --state Q: named");
	run_free(&r);
	kprofctl(&r, "offcpu", "0", NULL);
	ok(r.rc == 2 && strstr(r.err, "bad duration '0'"), "offcpu 0: the duration named");
	run_free(&r);
	kprofctl(&r, "offcpu", "-a", "-p", "1", NULL);
	ok(r.rc == 2 && strstr(r.err, "-a takes no -p"), "offcpu -a -p: refused");
	run_free(&r);
	kprofctl(&r, "offcpu", "-a", "2", "--", "true", NULL);
	ok(r.rc == 2 && strstr(r.err, "a duration ('2') and a command"),
	   "offcpu -a 2 -- true: the duration named");
	run_free(&r);
}

/* A lock entry: @nr_kernel frames from 0xffffffff81002000 (see test_lock()). */
static void fake_lock_entry(unsigned int i, uint32_t cpu, uint32_t pid, uint64_t waits,
			    uint64_t ns, uint64_t max, uint64_t min, uint32_t flags,
			    const uint64_t *frames, uint32_t nr_kernel)
{
	struct fake_agg_entry *e = &fake.agg[i];

	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->pid = pid;
	e->comm = pid == 7 ? "writer" : "reader";
	e->count = waits;
	e->time_ns = ns;
	e->has_lock = true;
	e->lock = 0xffff888012340000ULL;
	e->lock_flags = flags;
	e->max_ns = max;
	e->min_ns = min;
	e->nr_kernel = nr_kernel;
	memcpy(e->frames, frames, nr_kernel * sizeof(*frames));
	if (i >= fake.nr_agg)
		fake.nr_agg = i + 1;
}

static void test_lock(void)
{
	const struct kp_event *ev = &fake.start_req.events[0];
	/* __mutex_lock (lock text) <- pipe_write <- vfs_write */
	static const uint64_t w[] = { 0xffffffff81002010ULL, 0xffffffff81001020ULL,
				      0xffffffff81001120ULL };
	/* queued_spin_lock_slowpath (outside) <- _raw_spin_lock (lock text) <- pipe_read */
	static const uint64_t r[] = { 0xffffffff81000f10ULL, 0xffffffff81002110ULL,
				      0xffffffff81001210ULL };
	char ksyms[256];
	struct run run;

	snprintf(ksyms, sizeof(ksyms), "%s/lock-kallsyms", root);
	tmpdir__write(root, "lock-kallsyms",
		      "ffffffff81000f00 T queued_spin_lock_slowpath\n"
		      "ffffffff81001000 T pipe_write\n"
		      "ffffffff81001100 T vfs_write\n"
		      "ffffffff81001200 T pipe_read\n"
		      "ffffffff81002000 T __lock_text_start\n"
		      "ffffffff81002000 T __mutex_lock\n"
		      "ffffffff81002100 T _raw_spin_lock\n"
		      "ffffffff81002200 T __lock_text_end\n"
		      "ffff888012340000 b pipe_test_mutex\t[pipetest]\n");
	fake_setup();
	fake.offcpu_events = true;
	fake_lock_entry(0, 0, 7, 3, 3000000, 2000000, 100000, KPROF_LOCK_F_MUTEX | KPROF_LOCK_F_SPIN,
			w, 3);
	/* the same key on CPU 1: merged, max and min across both */
	fake_lock_entry(1, 1, 7, 1, 4000000, 4000000, 4000000, KPROF_LOCK_F_MUTEX, w, 3);
	fake_lock_entry(2, 0, 8, 10, 1500, 900, 50, KPROF_LOCK_F_SPIN, r, 3);
	fake_lock_entry(3, 1, 8, 0, 0, 0, ~0ULL, KPROF_LOCK_F_SPIN, r, 3);	/* no wait ended */
	kprofctl(&run, "lock", "contention", "--kallsyms", ksyms, "--", "true", NULL);
	is_int(run.rc, 0, "lock contention -- true: exit 0");
	ok(fake.start_req.nr_events == 1 && ev->type == KPROF_TYPE_LOCK && !ev->config &&
	   (fake.start_req.flags & KPROF_SESSION_F_AGGREGATE) &&
	   !(fake.start_req.flags & KPROF_SESSION_F_STREAM) &&
	   (fake.start_req.flags & KPROF_SESSION_F_KERNEL_STACK) &&
	   !(fake.start_req.flags & KPROF_SESSION_F_USER_STACK) && fake.nr_stops == 1,
	   "lock contention: one LOCK event, kernel stacks only, aggregating; stopped, then read");
	is_str(run.out,
	       " contended   total wait     max wait     avg wait         type   caller\n\n"
	       "         4      7.00 ms      4.00 ms      1.75 ms        mutex   pipe_write+0x20\n"
	       "        10      1.50 us       900 ns       150 ns     spinlock   pipe_read+0x10\n",
	       "lock contention: perf's table by total wait; the caller after the lock text; CPUs merged");
	run_free(&run);

	kprofctl(&run, "lock", "contention", "--kallsyms", ksyms, "-t", "-k", "contended", "-E", "1",
		 "--", "true", NULL);
	is_str(run.out,
	       " contended   total wait     max wait     avg wait          pid   comm\n\n"
	       "        10      1.50 us       900 ns       150 ns            8   reader\n",
	       "lock contention -t -k contended -E 1: per thread, most contended first, one row");
	run_free(&run);

	kprofctl(&run, "lock", "contention", "--kallsyms", ksyms, "-v", "-E", "1", "--", "true", NULL);
	ok(strstr(run.out, "pipe_write+0x20\n\t\t\t0xffffffff81002010  __mutex_lock+0x10\n"
			   "\t\t\t0xffffffff81001020  pipe_write+0x20\n"
			   "\t\t\t0xffffffff81001120  vfs_write+0x20\n") != NULL,
	   "lock contention -v: the waiter's stack under its row");
	run_free(&run);

	kprofctl(&run, "lock", "contention", "--kallsyms", ksyms, "-l", "--", "true", NULL);
	is_str(run.out,
	       " contended   total wait     max wait     avg wait            address   type              symbol\n\n"
	       "         4      7.00 ms      4.00 ms      1.75 ms   0xffff888012340000   mutex             pipe_test_mutex\n"
	       "        10      1.50 us       900 ns       150 ns   0xffff888012340000   spinlock          pipe_test_mutex\n",
	       "lock contention -l: per lock address and type, named by its data symbol (a module's too)");
	run_free(&run);

	kprofctl(&run, "lock", "contention", "--kallsyms", ksyms, "--folded", "--", "true", NULL);
	is_str(run.out, "lock;vfs_write;pipe_write;__mutex_lock;[mutex] 7000000\n"
			"lock;pipe_read;_raw_spin_lock;queued_spin_lock_slowpath;[spinlock] 1500\n",
	       "lock contention --folded: outermost first, the type as the leaf, ns");
	run_free(&run);

	kprofctl(&run, "lock", "contention", "-k", "bogus", NULL);
	ok(run.rc == 2 && strstr(run.err, "unknown sort key 'bogus'"), "lock -k bogus: named");
	run_free(&run);
	kprofctl(&run, "lock", "contention", "-E", "0", NULL);
	ok(run.rc == 2 && strstr(run.err, "bad -E/--entries '0'"), "lock -E 0: named");
	run_free(&run);
	kprofctl(&run, "lock", "contention", "-t", "-l", NULL);
	ok(run.rc == 2 && strstr(run.err, "mutually exclusive"), "lock -t -l: refused");
	run_free(&run);
	kprofctl(&run, "lock", "frob", NULL);
	ok(run.rc == 2 && strstr(run.err, "unknown lock command 'frob'"), "lock frob: named");
	run_free(&run);
}

static void test_list(void)
{
	struct run r;

	kprofctl(&r, "list", NULL);
	ok(r.rc == 0 && strstr(r.out, "List of pre-defined events (to be used in -e):\n") &&
	   strstr(r.out, "  cpu-clock ") && strstr(r.out, "  LLC-load-misses ") &&
	   strstr(r.out, "This machine has no hardware PMU"), "list: everything, and the PMU note");
	run_free(&r);
	kprofctl(&r, "list", "sw", NULL);
	ok(r.rc == 0 && strstr(r.out, "  cpu-clock ") && !strstr(r.out, "cycles") &&
	   !strstr(r.out, "no hardware PMU"), "list sw: software events only");
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	run_machine(root, "0-1", dev, rundir, sizeof(dev));
	snprintf(out, sizeof(out), "%s/kprof.data", root);

	test_help();
	test_usage_errors();
	test_record();
	test_record_corrupt();
	test_switch_output();
	test_buildid();
	test_record_targets();
	test_start_stop();
	test_status_session();
	test_list();
	test_latency_command();
	test_sched_runqlat();
	test_offcpu();
	test_lock();

	tmpdir__remove(root);
	return done_testing();
}
