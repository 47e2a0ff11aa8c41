// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/session.c and lib/cpumap.c: the options of 'record'
 * and 'start', each bad value with its one-line message, CPU lists and
 * bitmaps, buffer sizes; limits come from a fake /proc and /sys.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "capture.h"
#include "lib/cpumap.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64];

static const char * const usage[] = { "test", NULL };

struct result {
	int			ret;		/* parse_options() < 0, else from_opts */
	struct kp_session	s;
	enum kp_target		target;
	struct kp_err		err;
	struct kp_session_opts	o;
	char			*stderr_text;
};

/* "record ARGS..." (NULL-terminated); has_pmu as given. */
static void run(struct result *r, bool has_pmu, ...)
{
	const char *argv[32] = { "record" };
	const struct option options[] = {
		KP_SESSION_OPTIONS(&r->o),
		OPT_END()
	};
	struct capture c;
	va_list ap;
	int argc = 1;

	memset(r, 0, sizeof(*r));
	va_start(ap, has_pmu);
	while ((argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);

	capture__start(&c);
	r->ret = parse_options(argc, argv, options, usage, PARSE_OPT_STOP_AT_NON_OPTION);
	if (r->ret >= 0)
		r->ret = kp_session__from_opts(&r->s, &r->target, &r->o, r->ret > 0, has_pmu,
					       "record", &r->err);
	capture__stop(&c);
	r->stderr_text = c.err;
	free(c.out);
}

static void done(struct result *r)
{
	free(r->stderr_text);
}

/* Expect a validation error: @msg exactly. */
#define BAD(want, ...) do {							\
	struct result _r;							\
	run(&_r, true, __VA_ARGS__, NULL);					\
	ok(_r.ret < 0 && !strcmp(_r.err.msg, (want)) && !_r.stderr_text[0],	\
	   "bad: %s", (want));							\
	if (_r.ret >= 0 || strcmp(_r.err.msg, (want)))				\
		diag("got %d '%s'", _r.ret, _r.err.msg);			\
	done(&_r);								\
} while (0)

/*
 * The default buffer holds half a second of samples at the -F rate, each
 * 56 bytes and 8 per frame of 32 kernel and 32 user frames (issue 38).
 */
static void test_default_buffer(void)
{
	static const struct {
		const char *args[6];
		uint32_t want;
		const char *what;
	} cases[] = {
		/* each user chain also carries 168 B: the leaf fix-up's registers and copy */
		{ { "-g" }, 2U << 20, "-g -F 4000: 2000 x (568 + 168) B = 1.5 MB, 2M" },
		{ { "-g", "-F", "4999" }, 2U << 20, "-g -F 4999: 1.4 MB, 2M" },
		{ { "-g", "-F", "20000" }, 8U << 20, "-g -F 20000: 5.7 MB, 8M" },
		{ { "-g", "-F", "99" }, 256U << 10, "-g -F 99: at least 256K" },
		{ { "-g", "--stack-depth", "8" }, 1U << 20,
		  "-g --stack-depth 8: 2000 x (56 + 128 + 168) B, 1M" },
		{ { "-g", "--stack-depth", "8", "--no-leaf-fixup" }, 512U << 10,
		  "-g --stack-depth 8 --no-leaf-fixup: 2000 x (56 + 128) B, 512K" },
		{ { "--call-graph", "fp", "-U" }, 1U << 20,
		  "user stacks only (-U): 2000 x (312 + 168) B, 1M" },
		{ { "-g", "-e", "cycles,instructions" }, 4U << 20,
		  "two events at 4000 Hz: twice the samples, 4M" },
		{ { "-g", "-c", "100000" }, KPROF_DEFAULT_BUFFER_SIZE,
		  "-c: no known rate, the 4M default" },
		{ { "--off-cpu", "-F", "499" }, 256U << 10,
		  "--off-cpu -F 499: the off-CPU time goes to the tables, 256K" },
		{ { "-g", "-m", "8" }, 0, "-m wins over the default" },
	};
	unsigned int i;

	for (i = 0; i < KP_ARRAY_SIZE(cases); i++) {
		const char *const *a = cases[i].args;
		struct result r;

		run(&r, true, a[0], a[1], a[2], a[3], a[4], a[5], NULL);
		if (cases[i].want)
			ok(!r.ret && r.s.buffer_size == cases[i].want, "default buffer: %s",
			   cases[i].what);
		else
			ok(!r.ret && r.s.buffer_size == 8 * (uint32_t)sysconf(_SC_PAGESIZE),
			   "default buffer: %s", cases[i].what);
		if (r.ret || (cases[i].want && r.s.buffer_size != cases[i].want))
			diag("got %d, %" PRIu32 " bytes", r.ret, r.s.buffer_size);
		done(&r);
	}
}

static void test_defaults(void)
{
	struct result r;

	run(&r, true, NULL);
	is_int(r.ret, 0, "defaults: valid");
	ok(r.target == KP_TARGET_SYSTEM && r.s.flags == KPROF_SESSION_F_SYSTEM_WIDE,
	   "defaults: no target and no command is system-wide, no stacks");
	ok(r.s.freq == 4000 && !r.s.period, "defaults: -F 4000");
	ok(r.s.buffer_size == 256U << 10 && r.s.stack_depth == 127,
	   "defaults: 256K buffer (half a second of 4000 Hz without stacks), 127 frames");
	ok(r.s.nr_events == 1 && r.s.events[0].type == PERF_TYPE_HARDWARE &&
	   r.s.events[0].config == PERF_COUNT_HW_CPU_CYCLES && !strcmp(r.s.events[0].name, "cycles"),
	   "defaults: cycles");
	ok(!r.s.cpus_bytes && !r.s.nr_pids && !r.s.watermark, "defaults: all CPUs, no PIDs");
	ok(!r.o.output, "defaults: no -o (kprof.data)");
	done(&r);

	run(&r, true, "--", "ls", "-l", NULL);
	ok(!r.ret && r.target == KP_TARGET_COMMAND && r.s.flags == KPROF_SESSION_F_INHERIT,
	   "command: inherit, not system-wide");
	done(&r);
	run(&r, true, "ls", "-l", NULL);
	ok(!r.ret && r.target == KP_TARGET_COMMAND && !r.o.callchain,
	   "command without --: options end at it ('-l' is its own)");
	done(&r);
	run(&r, true, "-i", "--", "ls", NULL);
	ok(!r.ret && r.target == KP_TARGET_COMMAND && !r.s.flags, "-i: no inherit");
	done(&r);
	run(&r, true, "-a", "--", "sleep", "1", NULL);
	ok(!r.ret && r.target == KP_TARGET_SYSTEM && r.s.flags == KPROF_SESSION_F_SYSTEM_WIDE,
	   "-a with a command: system-wide");
	done(&r);

	run(&r, false, NULL);
	ok(!r.ret && r.s.events[0].type == PERF_TYPE_SOFTWARE &&
	   r.s.events[0].config == PERF_COUNT_SW_CPU_CLOCK, "no PMU: default cycles -> cpu-clock");
	is_str(r.stderr_text,
	       "kprofctl: record: no hardware PMU (virtual machine?): 'cycles' falls back to 'cpu-clock'\n",
	       "no PMU: one notice line");
	done(&r);
	run(&r, false, "-F", "0", NULL);
	ok(r.ret < 0 && !r.stderr_text[0], "no PMU and a bad option: the error only, no notice");
	done(&r);
}

static void test_values(void)
{
	struct result r;

	run(&r, true, "-e", "cycles,instructions:u", "-e", "cs", "-F", "99", "-g", NULL);
	ok(!r.ret && r.s.nr_events == 3 && r.s.freq == 99 &&
	   r.s.flags == (KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_KERNEL_STACK |
			 KPROF_SESSION_F_USER_STACK), "-e lists, -F, -g");
	ok(r.s.events[1].flags == KPROF_EV_F_EXCLUDE_KERNEL && !strcmp(r.s.events[2].name, "cs"),
	   "event order and flags");
	done(&r);

	run(&r, true, "-F", "100000", NULL);
	ok(!r.ret && r.s.freq == 100000, "-F at the maximum");
	done(&r);
	run(&r, true, "-m", "16", NULL);
	ok(!r.ret && r.s.buffer_size == 16 * (uint32_t)sysconf(_SC_PAGESIZE),
	   "-m 16: 16 pages a CPU, as perf's --mmap-pages");
	done(&r);
	run(&r, true, "--mmap-pages", "1M", NULL);
	ok(!r.ret && r.s.buffer_size == 1 << 20, "--mmap-pages 1M: a size");
	done(&r);
	run(&r, true, "-F", "max", NULL);
	ok(!r.ret && r.s.freq == 100000, "-F max: kernel.perf_event_max_sample_rate, as perf");
	done(&r);
	run(&r, true, "-c", "100000", NULL);
	ok(!r.ret && r.s.period == 100000 && !r.s.freq, "-c sets the period");
	done(&r);
	run(&r, true, "-c", "4611686018427387904", NULL);
	ok(!r.ret && r.s.period == KPROF_MAX_PERIOD, "-c at KPROF_MAX_PERIOD");
	done(&r);
	run(&r, true, "--call-graph", "fp", NULL);
	ok(!r.ret && (r.s.flags & KPROF_SESSION_F_USER_STACK) &&
	   (r.s.flags & KPROF_SESSION_F_KERNEL_STACK), "--call-graph fp = -g");
	done(&r);
	run(&r, true, "--call-graph=fp", "-K", "-e", "cycles:u,cs", NULL);
	ok(!r.ret && (r.s.flags & KPROF_SESSION_F_KERNEL_STACK) &&
	   !(r.s.flags & KPROF_SESSION_F_USER_STACK) &&
	   r.s.events[0].flags == KPROF_EV_F_EXCLUDE_USER &&
	   r.s.events[1].flags == KPROF_EV_F_EXCLUDE_USER, "-K: events :k, no user chain");
	done(&r);
	run(&r, true, "-gU", NULL);
	ok(!r.ret && !(r.s.flags & KPROF_SESSION_F_KERNEL_STACK) &&
	   (r.s.flags & KPROF_SESSION_F_USER_STACK) &&
	   r.s.events[0].flags == KPROF_EV_F_EXCLUDE_KERNEL, "-U: events :u, no kernel chain");
	done(&r);
	run(&r, true, "-K", NULL);
	ok(!r.ret && !(r.s.flags & (KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK)),
	   "-K without -g: no chains");
	done(&r);

	run(&r, true, "--buffer-size", "8K", "--stack-depth", "512", "-o", "x.data", NULL);
	ok(!r.ret && r.s.buffer_size == 8192 && r.s.stack_depth == 512 &&
	   !strcmp(r.o.output, "x.data"), "--buffer-size 8K, --stack-depth 512, -o");
	done(&r);
	run(&r, true, "--buffer-size=256M", "--stack-depth=1", NULL);
	ok(!r.ret && r.s.buffer_size == 256U << 20 && r.s.stack_depth == 1,
	   "--buffer-size 256M, --stack-depth 1");
	done(&r);
	run(&r, true, "--buffer-size=1m", NULL);
	ok(!r.ret && r.s.buffer_size == 1U << 20, "lower-case suffix");
	done(&r);
	run(&r, true, "--buffer-size=65536", NULL);
	ok(!r.ret && r.s.buffer_size == 65536, "bytes without a suffix");
	done(&r);

	run(&r, true, "-p", "1234", "-p", "1,1234", NULL);
	ok(!r.ret && r.target == KP_TARGET_PIDS && r.s.nr_pids == 2 && r.s.pids[0] == 1234 &&
	   r.s.pids[1] == 1 && r.s.flags == KPROF_SESSION_F_INHERIT,
	   "-p: PIDs, duplicates merged, inherit, not system-wide");
	done(&r);

	run(&r, true, "-t", "1234", "--tid", "1", NULL);
	ok(!r.ret && r.target == KP_TARGET_PIDS && r.s.nr_pids == 2 && r.s.pids[0] == 1234 &&
	   r.s.pids[1] == 1 && r.s.flags == KPROF_SESSION_F_THREADS,
	   "-t: TIDs, F_THREADS, no inherit (perf's -t), not system-wide");
	done(&r);

	run(&r, true, "-C", "0,2-3", NULL);
	ok(!r.ret && r.target == KP_TARGET_SYSTEM && (r.s.flags & KPROF_SESSION_F_SYSTEM_WIDE) &&
	   r.s.cpus_bytes == 8 && r.s.cpus[0] == 0xd, "-C 0,2-3: system-wide, bitmap 0xd");
	done(&r);
	run(&r, true, "-C", "3", "--", "sleep", "1", NULL);
	ok(!r.ret && r.target == KP_TARGET_SYSTEM && r.s.cpus[0] == 0x8,
	   "-C with a command: system-wide on the CPU");
	done(&r);
}

static void test_bad(void)
{
	BAD("unknown event 'cyclez' (see 'kprofctl list')", "-e", "cyclez");
	BAD("unknown event 'foo' (see 'kprofctl list')", "-e", "cycles", "-e", "cs,foo:u");
	BAD("frequency 0 is invalid: sample at least once per second", "-F", "0");
	BAD("frequency 100001 is above the maximum sample rate 100000 (kernel.perf_event_max_sample_rate)",
	    "-F", "100001");
	BAD("invalid frequency 'fast'", "-F", "fast");
	BAD("-m/--mmap-pages '3': a power of two of pages up to 65536, or a size such as 4M", "-m", "3");
	BAD("-m/--mmap-pages '16' and --buffer-size '4M' both size the buffer: give one",
	    "-m", "16", "--buffer-size", "4M");
	BAD("invalid frequency '-5'", "-F", "-5");
	BAD("frequency '99999999999' is out of range", "-F", "99999999999");
	BAD("options -F/--freq and -c/--count are mutually exclusive", "-F", "99", "-c", "1000");
	BAD("invalid period 'x'", "-c", "x");
	BAD("period '0' is out of range 1..4611686018427387904", "-c", "0");
	BAD("period '4611686018427387905' is out of range 1..4611686018427387904",
	    "-c", "4611686018427387905");
	BAD("period '99999999999999999999' is out of range 1..4611686018427387904",
	    "-c", "99999999999999999999");
	BAD("invalid PID 'abc'", "-p", "abc");
	BAD("invalid PID '0'", "-p", "0");
	BAD("invalid PID ''", "-p", "1234,");
	BAD("process 4321 does not exist", "-p", "1234,4321");
	BAD("invalid TID 'x'", "-t", "x");
	BAD("thread 4321 does not exist", "-t", "1,4321");
	BAD("options -p/--pid and -t/--tid are mutually exclusive: a session follows processes or threads",
	    "-p", "1", "-t", "1234");
	BAD("options -t/--tid and -a/-C are mutually exclusive", "-t", "1", "-a");
	BAD("options -p/--pid and -a/-C are mutually exclusive", "-p", "1234", "-a");
	BAD("options -p/--pid and -a/-C are mutually exclusive", "-p", "1234", "-C", "0");
	BAD("CPU 4 is out of range (possible CPUs: 0-3)", "-C", "4");
	BAD("CPU 4 is out of range (possible CPUs: 0-3)", "-C", "1,2-7");
	BAD("CPU 100000 is out of range (possible CPUs: 0-3)", "-C", "100000");
	BAD("invalid CPU list '3-1' (e.g. 0,2-3)", "-C", "3-1");
	BAD("invalid CPU list 'a' (e.g. 0,2-3)", "-C", "a");
	BAD("invalid CPU list '0,' (e.g. 0,2-3)", "-C", "0,");
	BAD("invalid CPU list '' (e.g. 0,2-3)", "-C", "");
	BAD("invalid CPU list ' 1' (e.g. 0,2-3)", "-C", " 1");
	BAD("call graph mode 'dwarf' is not supported: only 'fp' is supported",
	    "--call-graph", "dwarf");
	BAD("call graph mode 'lbr' is not supported: only 'fp' is supported", "--call-graph=lbr");
	BAD("options -K/--all-kernel and -U/--all-user are mutually exclusive", "-K", "-U");
	BAD("buffer size '12K' is not a power of two", "--buffer-size", "12K");
	BAD("buffer size '4K' is below the minimum of 8K", "--buffer-size", "4K");
	BAD("buffer size '0' is below the minimum of 8K", "--buffer-size", "0");
	BAD("buffer size '512M' is above the maximum of 256M", "--buffer-size", "512M");
	BAD("buffer size '1G' is above the maximum of 256M", "--buffer-size", "1G");
	BAD("buffer size '99999999999G' is above the maximum of 256M", "--buffer-size", "99999999999G");
	BAD("invalid buffer size 'lots' (e.g. 512K, 4M)", "--buffer-size", "lots");
	BAD("invalid buffer size '4T' (e.g. 512K, 4M)", "--buffer-size", "4T");
	BAD("invalid buffer size 'K' (e.g. 512K, 4M)", "--buffer-size", "K");
	BAD("invalid buffer size '' (e.g. 512K, 4M)", "--buffer-size", "");
	BAD("invalid stack depth 'deep'", "--stack-depth", "deep");
	BAD("stack depth 0 is out of range 1..512", "--stack-depth", "0");
	BAD("stack depth 513 is out of range 1..512", "--stack-depth", "513");
}

static void test_too_many(void)
{
	const char *argv[2 * KP_MAX_PID_ARGS + 4] = { "record" };
	struct kp_session_opts o = { 0 };
	const struct option options[] = {
		KP_SESSION_OPTIONS(&o),
		OPT_END()
	};
	struct kp_session s;
	enum kp_target t;
	struct kp_err err;
	int argc = 1, i;

	for (i = 0; i < KP_MAX_EVENT_ARGS + 1; i++) {
		argv[argc++] = "-e";
		argv[argc++] = "cs";
	}
	ok(parse_options(argc, argv, options, usage, 0) == 0, "65 -e options parse");
	is_int(kp_session__from_opts(&s, &t, &o, false, true, "record", &err), -E2BIG,
	       "65 -e options refused");
	is_str(err.msg, "too many -e, -p or -t options: at most 64 each", "too many options message");

	memset(&o, 0, sizeof(o));
	argc = 1;
	for (i = 0; i < KPROF_MAX_EVENTS + 1; i++) {
		argv[argc++] = "-e";
		argv[argc++] = "cs";
	}
	parse_options(argc, argv, options, usage, 0);
	is_int(kp_session__from_opts(&s, &t, &o, false, true, "record", &err), -E2BIG,
	       "33 events refused");
	is_str(err.msg, "too many events: at most 32", "33 events message");
}

static void test_cpumap(void)
{
	struct kp_cpumap m;
	unsigned int bad = 0;
	char buf[64];

	ok(!kp_cpumap__parse(&m, "0", 4, NULL) && m.nr == 1 && m.max_cpu == 0 && m.bits[0] == 1,
	   "cpumap: 0");
	ok(!kp_cpumap__parse(&m, "0,2-3", 4, NULL) && m.nr == 3 && m.max_cpu == 3 &&
	   m.bits[0] == 0xd, "cpumap: 0,2-3");
	ok(!kp_cpumap__parse(&m, "3,1,1-2", 4, NULL) && m.nr == 3 && m.bits[0] == 0xe,
	   "cpumap: overlaps and any order");
	ok(!kp_cpumap__parse(&m, "63-64,8191", 8192, NULL) && m.nr == 3 &&
	   m.bits[0] == 1ULL << 63 && m.bits[1] == 1 && m.bits[127] == 1ULL << 63 &&
	   m.max_cpu == 8191, "cpumap: word boundaries and the last CPU");
	is_int(kp_cpumap__parse(&m, "8192", 100000, &bad), -ERANGE, "cpumap: 8192 is too many");
	is_int(bad, 8192, "cpumap: names 8192");
	is_int(kp_cpumap__parse(&m, "2-9", 4, &bad), -ERANGE, "cpumap: range beyond the limit");
	is_int(bad, 4, "cpumap: names the first CPU out of range");
	is_int(kp_cpumap__parse(&m, "0-", 4, NULL), -EINVAL, "cpumap: open range");
	is_int(kp_cpumap__parse(&m, "-1", 4, NULL), -EINVAL, "cpumap: negative");
	is_int(kp_cpumap__parse(&m, "1 ", 4, NULL), -EINVAL, "cpumap: trailing blank");
	is_int(kp_cpumap__parse(&m, "1,,2", 4, NULL), -EINVAL, "cpumap: empty item");
	is_int(kp_cpumap__parse(&m, "0x1", 4, NULL), -EINVAL, "cpumap: hex");
	is_int(kp_cpumap__parse(&m, NULL, 4, NULL), -EINVAL, "cpumap: NULL");
	is_int(kp_cpumap__bytes(1), 8, "cpumap bytes: 1 CPU");
	is_int(kp_cpumap__bytes(64), 8, "cpumap bytes: 64 CPUs");
	is_int(kp_cpumap__bytes(65), 16, "cpumap bytes: 65 CPUs");

	kp_cpumap__parse(&m, "0,2-3,63-65,100", 128, NULL);
	is_str(kp_cpumap__format(m.bits, 16, buf, sizeof(buf)), "0,2-3,63-65,100",
	       "cpumap format: round trip");
	is_str(kp_cpumap__format(m.bits, 8, buf, sizeof(buf)), "0,2-3,63", "cpumap format: one word");
	is_str(kp_cpumap__format(m.bits, 0, buf, sizeof(buf)), "", "cpumap format: empty");
	is_str(kp_cpumap__format(m.bits, 16, buf, 8), "0,2-...", "cpumap format: truncated");
}

static void test_helpers(void)
{
	char buf[64];
	unsigned int n;
	uint32_t size;
	struct kp_err err;

	is_str(kp_fmt_size(buf, sizeof(buf), 4 << 20), "4M", "fmt size: 4M");
	is_str(kp_fmt_size(buf, sizeof(buf), 8192), "8K", "fmt size: 8K");
	is_str(kp_fmt_size(buf, sizeof(buf), 1000), "1000", "fmt size: 1000");
	is_str(kp_fmt_size(buf, sizeof(buf), 1ULL << 30), "1G", "fmt size: 1G");
	is_str(kp_fmt_size(buf, sizeof(buf), 0), "0", "fmt size: 0");
	ok(!kp_parse_buffer_size("16k", &size, &err) && size == 16384, "buffer size 16k");
	is_str(kp_session_flags__format(0xf, buf, sizeof(buf)),
	       "kernel-stack|user-stack|inherit|system-wide", "flags: all");
	is_str(kp_session_flags__format(0, buf, sizeof(buf)), "0", "flags: none");
	is_str(kp_session_flags__format(0x30, buf, sizeof(buf)), "stream|aggregate",
	       "flags: the modes");
	is_str(kp_session_flags__format(0x208, buf, sizeof(buf)), "system-wide|0x200",
	       "flags: unknown bit in hex");
	is_str(kp_session_flags__format(0x120, buf, sizeof(buf)), "aggregate|intervals",
	       "flags: intervals (ABI 1.15)");
	is_str(kp_session_flags__format(0x80, buf, sizeof(buf)), "threads", "flags: -t's threads");

	ok(!kp_sys__possible_cpus(&n, buf, sizeof(buf)) && n == 4 && !strcmp(buf, "0-3"),
	   "possible CPUs from the fake sysfs");
	ok(!kp_sys__max_sample_rate(&n) && n == 100000, "max sample rate from the fake procfs");
	ok(kp_sys__pid_exists(1234) && !kp_sys__pid_exists(4321) && !kp_sys__pid_exists(0),
	   "PIDs of the fake procfs");
	ok(kp_path(buf, 8, "/proc/%u", 12345678) == -ENAMETOOLONG, "kp_path: too long");
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	tmpdir__write(root, "proc/sys/kernel/perf_event_max_sample_rate", "100000\n");
	tmpdir__write(root, "sys/devices/system/cpu/possible", "0-3\n");
	tmpdir__mkdir(root, "proc/1234");
	tmpdir__mkdir(root, "proc/1");
	tmpdir__mkdir(root, "sys/bus/event_source/devices/cpu");
	kp_sysroot = root;

	test_defaults();
	test_default_buffer();
	test_values();
	test_bad();
	test_too_many();
	test_cpumap();
	test_helpers();

	kp_sysroot = "";
	tmpdir__remove(root);
	return done_testing();
}
