// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/util.c: number, size and duration parsing and formatting.
 */
#include <errno.h>
#include <stdint.h>

#include <linux/kprof.h>

#include "capture.h"
#include "lib/util.h"
#include "tap.h"

#define NS	1000000000ULL

static void test_parse_u64(void)
{
	uint64_t v = 7;

	is_int(kp_parse_u64("0", &v), 0, "u64: 0");
	is_int(v, 0, "u64: 0 value");
	is_int(kp_parse_u64("18446744073709551615", &v), 0, "u64: max");
	ok(v == UINT64_MAX, "u64: max value");
	is_int(kp_parse_u64("18446744073709551616", &v), -ERANGE, "u64: max + 1 is out of range");
	is_int(kp_parse_u64("0x10", &v), 0, "u64: hex");
	is_int(v, 16, "u64: hex value");
	is_int(kp_parse_u64("010", &v), 0, "u64: leading zero is decimal");
	is_int(v, 10, "u64: leading zero value");
	is_int(kp_parse_u64("", &v), -EINVAL, "u64: empty");
	is_int(kp_parse_u64("0x", &v), -EINVAL, "u64: bare 0x");
	is_int(kp_parse_u64("-1", &v), -EINVAL, "u64: negative");
	is_int(kp_parse_u64("+1", &v), -EINVAL, "u64: plus sign");
	is_int(kp_parse_u64(" 1", &v), -EINVAL, "u64: leading blank");
	is_int(kp_parse_u64("1 ", &v), -EINVAL, "u64: trailing blank");
	is_int(kp_parse_u64("12abc", &v), -EINVAL, "u64: trailing garbage");
	is_int(kp_parse_u64(NULL, &v), -EINVAL, "u64: NULL");
}

static void test_parse_int(void)
{
	unsigned int u;
	int i;

	is_int(kp_parse_uint("4294967295", &u), 0, "uint: max");
	ok(u == 4294967295U, "uint: max value");
	is_int(kp_parse_uint("4294967296", &u), -ERANGE, "uint: max + 1");
	is_int(kp_parse_int("2147483647", &i), 0, "int: max");
	is_int(i, 2147483647, "int: max value");
	is_int(kp_parse_int("2147483648", &i), -ERANGE, "int: max + 1");
	is_int(kp_parse_int("-2147483648", &i), 0, "int: min");
	is_int(i, -2147483647 - 1, "int: min value");
	is_int(kp_parse_int("-2147483649", &i), -ERANGE, "int: min - 1");
	is_int(kp_parse_int("-", &i), -EINVAL, "int: bare minus");
	is_int(kp_parse_int("--1", &i), -EINVAL, "int: double minus");
	is_int(kp_parse_int("-0x10", &i), 0, "int: negative hex");
	is_int(i, -16, "int: negative hex value");
}

static void test_parse_size_duration(void)
{
	uint64_t v = 7;

	ok(!kp_parse_size("4096", &v) && v == 4096, "size: bare bytes");
	ok(!kp_parse_size("16k", &v) && v == 16384, "size: k");
	ok(!kp_parse_size("256M", &v) && v == 256ULL << 20, "size: M");
	ok(!kp_parse_size("2G", &v) && v == 2ULL << 30, "size: G");
	is_int(kp_parse_size("17179869184G", &v), -ERANGE, "size: over 2^64 with a suffix");
	is_int(kp_parse_size("4T", &v), -EINVAL, "size: unknown suffix");
	is_int(kp_parse_size("K", &v), -EINVAL, "size: a suffix alone");
	is_int(kp_parse_size("", &v), -EINVAL, "size: empty");

	ok(!kp_parse_duration_ms("500ms", &v) && v == 500, "duration: ms");
	ok(!kp_parse_duration_ms("30s", &v) && v == 30000, "duration: s");
	ok(!kp_parse_duration_ms("2m", &v) && v == 120000, "duration: m");
	ok(!kp_parse_duration_ms("1h", &v) && v == 3600000, "duration: h");
	ok(!kp_parse_duration_ms("10", &v) && v == 10000, "duration: a bare number is seconds");
	ok(!kp_parse_duration_ms("0s", &v) && v == 0, "duration: zero");
	is_int(kp_parse_duration_ms("1.5s", &v), -EINVAL, "duration: no fractions");
	ok(!kp_parse_duration_ms("2d", &v) && v == 172800000, "duration: d");
	is_int(kp_parse_duration_ms("5w", &v), -EINVAL, "duration: unknown unit");
	is_int(kp_parse_duration_ms("-1s", &v), -EINVAL, "duration: negative");
	is_int(kp_parse_duration_ms("s", &v), -EINVAL, "duration: a unit alone");
	is_int(kp_parse_duration_ms(" 1s", &v), -EINVAL, "duration: leading blank");
	is_int(kp_parse_duration_ms("99999999999999999999h", &v), -ERANGE, "duration: too long");
	is_int(kp_parse_duration_ms("", &v), -EINVAL, "duration: empty");
}

static void test_time_percent(void)
{
	uint64_t a, b;
	double p;

	ok(!kp_parse_time_range("1.5,2.000000001", &a, &b) && a == 1500000000ULL &&
	   b == 2000000001ULL, "time range: seconds with decimals, to ns");
	ok(!kp_parse_time_range("10,", &a, &b) && a == 10000000000ULL && b == UINT64_MAX,
	   "time range: an open end");
	ok(!kp_parse_time_range(",.25", &a, &b) && a == 0 && b == 250000000ULL,
	   "time range: an open start, a bare fraction");
	ok(!kp_parse_time_range(",", &a, &b) && a == 0 && b == UINT64_MAX, "time range: both open");
	is_int(kp_parse_time_range("2,1", &a, &b), -EINVAL, "time range: start after end");
	is_int(kp_parse_time_range("1", &a, &b), -EINVAL, "time range: no comma");
	is_int(kp_parse_time_range("1,2,3", &a, &b), -EINVAL, "time range: two commas");
	is_int(kp_parse_time_range("1.0000000001,", &a, &b), -EINVAL, "time range: 10 decimals");
	is_int(kp_parse_time_range("-1,", &a, &b), -EINVAL, "time range: a sign");
	is_int(kp_parse_time_range("1e3,", &a, &b), -EINVAL, "time range: an exponent");
	is_int(kp_parse_time_range("99999999999999999999,", &a, &b), -EINVAL, "time range: too large");
	p = kp_share_error95(500, 1000);
	ok(p > 3.098 && p < 3.100, "share error: 50%% of 1000 samples, +-3.10 points (%.4f)", p);
	ok(kp_share_error95(0, 0) == 0 && kp_share_error95(10, 10) == 0,
	   "share error: none without samples, none at 100%%");
	p = kp_share_diff_error95(500, 1000, 520, 1000);
	ok(p > 4.381 && p < 4.383, "share difference error: 50%% and 52%% of 1000, +-4.38 points (%.4f)", p);
	ok(!kp_parse_percent("0.5", &p) && p == 0.5, "percent: 0.5");
	ok(!kp_parse_percent("100", &p) && p == 100, "percent: 100");
	is_int(kp_parse_percent("100.1", &p), -EINVAL, "percent: above 100");
	is_int(kp_parse_percent(" 5", &p), -EINVAL, "percent: a leading blank");
	is_int(kp_parse_percent("5%", &p), -EINVAL, "percent: a suffix");
	is_int(kp_parse_percent("nan", &p), -EINVAL, "percent: nan");
}

static void test_format(void)
{
	char buf[64], want[32];

	snprintf(want, sizeof(want), "%d.%d", KPROF_ABI_MAJOR, KPROF_ABI_MINOR);
	is_str(kp_fmt_abi(buf, sizeof(buf), KPROF_ABI_VERSION), want, "abi: ours");
	is_str(kp_fmt_abi(buf, sizeof(buf), (2 << 16) | 13), "2.13", "abi: 2.13");
	is_str(kp_fmt_abi(buf, sizeof(buf), 0xffffffff), "65535.65535", "abi: max");

	is_str(kp_fmt_duration(buf, sizeof(buf), 0), "0s", "duration: 0");
	is_str(kp_fmt_duration(buf, sizeof(buf), 999999999), "0s", "duration: < 1s");
	is_str(kp_fmt_duration(buf, sizeof(buf), 59 * NS + 999999999), "59s",
	       "duration: 59.99s truncates");
	is_str(kp_fmt_duration(buf, sizeof(buf), 60 * NS), "1m 00s", "duration: 1m");
	is_str(kp_fmt_duration(buf, sizeof(buf), 3599 * NS), "59m 59s", "duration: 59m 59s");
	is_str(kp_fmt_duration(buf, sizeof(buf), 3723 * NS), "1h 02m 03s", "duration: 1h 02m 03s");
	is_str(kp_fmt_duration(buf, sizeof(buf), 86400 * NS), "1d 00h 00m 00s", "duration: 1d");
	is_str(kp_fmt_duration(buf, sizeof(buf), 90061 * NS), "1d 01h 01m 01s", "duration: 1d 1h 1m 1s");
	is_str(kp_fmt_duration(buf, sizeof(buf), UINT64_MAX), "213503d 23h 34m 33s",
	       "duration: u64 max");
	is_str(kp_fmt_duration(buf, 6, 3723 * NS), "1h 02", "duration: truncated to the buffer");
}

static void test_state_uptime(void)
{
	uint64_t up = 1;

	is_str(kp_state__name(KPROF_STATE_IDLE), "idle", "state: idle");
	is_str(kp_state__name(KPROF_STATE_RUNNING), "running", "state: running");
	is_str(kp_state__name(KPROF_STATE_STOPPED), "stopped", "state: stopped");
	ok(!kp_state__name(0), "state: 0 is unknown");
	ok(!kp_state__name(KPROF_STATE_MAX + 1), "state: MAX + 1 is unknown");

	is_int(kp_uptime_ns(100, 350, &up), 0, "uptime: now after load");
	is_int(up, 250, "uptime: value");
	is_int(kp_uptime_ns(100, 100, &up), 0, "uptime: now at load");
	is_int(up, 0, "uptime: zero");
	is_int(kp_uptime_ns(101, 100, &up), -ERANGE, "uptime: loaded in the future");
	ok(kp_clock_monotonic_ns() > 0, "clock: monotonic");
}

static void test_error(void)
{
	struct capture c;

	capture__start(&c);
	kp_error("status", "unknown option '%s'", "--jsn");
	kp_error(NULL, "'%s' is not a kprofctl command", "foo");
	kp_pr_debug("hidden");
	kp_debug = 1;
	kp_pr_debug("shown %d", 1);
	kp_debug = 0;
	capture__stop(&c);
	is_str(c.err, "kprofctl: status: unknown option '--jsn'\n"
		      "kprofctl: 'foo' is not a kprofctl command\n"
		      "kprofctl: debug: shown 1\n", "kp_error and kp_pr_debug lines");
	is_str(c.out, "", "nothing on stdout");
	capture__free(&c);

	is_str(kprofctl_version, KPROF_VERSION, "kprofctl_version is KPROF_VERSION");
}

int main(void)
{
	test_parse_u64();
	test_parse_int();
	test_parse_size_duration();
	test_time_percent();
	test_format();
	test_state_uptime();
	test_error();
	return done_testing();
}
