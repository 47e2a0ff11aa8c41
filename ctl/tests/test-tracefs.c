// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/tracefs.c and of the tracepoint and probe syntax of
 * lib/events.c (-e SYSTEM:EVENT globs, kprobe:, ftrace:, --filter), on a
 * fake tracefs tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/events.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/tracefs.h"
#include "tap.h"
#include "tmpdir.h"
#include "tp-fake.h"

static struct kp_event evs[KPROF_MAX_EVENTS];

static int parse(const char *arg, unsigned int *nr, struct kp_err *err)
{
	*nr = 0;
	kp_err__clear(err);
	memset(evs, 0, sizeof(evs));
	return kp_events__parse(evs, nr, arg, true, NULL, 0, err);
}

static int count_cb(const char *system, const char *event, uint32_t id, void *arg)
{
	char *buf = arg;
	size_t len = strlen(buf);

	snprintf(buf + len, 512 - len, "%s%s:%s=%u", len ? " " : "", system, event, id);
	return 0;
}

static void test_dir(const char *root)
{
	char dir[4096], want[4096];
	struct kp_err err;

	snprintf(want, sizeof(want), "%s/events", root);
	kp_tracefs_root = want;
	ok(!kp_tracefs__events_dir(dir, sizeof(dir), &err) && !strcmp(dir, want),
	   "events dir: the override");
	kp_tracefs_root = "/nonexistent/kprof/events";
	is_int(kp_tracefs__events_dir(dir, sizeof(dir), &err), -ENOENT, "missing override");
	is_str(err.msg,
	       "tracefs is not available: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (as root)",
	       "missing tracefs message");
	kp_tracefs_root = NULL;
	kp_sysroot = root;
	tmpdir__mkdir(root, "sys/kernel/debug/tracing/events");
	snprintf(want, sizeof(want), "%s/sys/kernel/debug/tracing/events", root);
	ok(!kp_tracefs__events_dir(dir, sizeof(dir), &err) && !strcmp(dir, want),
	   "events dir: debugfs fallback under the sysroot");
	tmpdir__mkdir(root, "sys/kernel/tracing/events");
	snprintf(want, sizeof(want), "%s/sys/kernel/tracing/events", root);
	ok(!kp_tracefs__events_dir(dir, sizeof(dir), &err) && !strcmp(dir, want),
	   "events dir: /sys/kernel/tracing first");
	kp_sysroot = "";
}

static void test_glob(void)
{
	static const char * const good[] = {
		"irq", "*", "sched_s*", "irq_handler_?ntry", "[ab]*", "[!a]x", "a-b.c", "[]]",
	};
	static const char * const bad[] = {
		"", "[abc", "a/b", "[]", "x y", "a:b", "[a/]", "$",
	};
	unsigned int i;

	for (i = 0; i < KP_ARRAY_SIZE(good); i++)
		ok(kp_tracefs__glob_ok(good[i]), "glob '%s' is well formed", good[i]);
	for (i = 0; i < KP_ARRAY_SIZE(bad); i++)
		ok(!kp_tracefs__glob_ok(bad[i]), "glob '%s' is malformed", bad[i]);
}

static void test_walk(void)
{
	char buf[512] = "";
	struct kp_err err;

	is_int(kp_tracefs__walk("irq", "*", count_cb, buf, &err), 3, "irq:* matches 3");
	is_str(buf, "irq:irq_handler_entry=120 irq:irq_handler_exit=121 irq:softirq_entry=122",
	       "sorted, with ids");
	buf[0] = '\0';
	is_int(kp_tracefs__walk("*", "sched_s*", count_cb, buf, &err), 1, "*:sched_s* matches 1");
	is_str(buf, "sched:sched_switch=316", "sched_switch");
	is_int(kp_tracefs__walk("*", "*", NULL, NULL, &err), 47, "*:* counts every tracepoint");
	is_int(kp_tracefs__walk("nosuch", "*", NULL, NULL, &err), 0, "no match: 0");
}

static void test_parse(void)
{
	struct kp_err err;
	unsigned int nr;

	ok(!parse("irq:*", &nr, &err) && nr == 3, "irq:* expands to 3 events");
	ok(evs[0].type == PERF_TYPE_TRACEPOINT && evs[0].config == 120 &&
	   !strcmp(evs[0].name, "irq:irq_handler_entry") && !evs[0].period &&
	   !evs[0].symbol[0] && !strcmp(evs[2].name, "irq:softirq_entry") &&
	   evs[2].config == 122, "irq:* events: type, id, name");
	ok(!parse("sched:sched_switch,sched:sched_wakeup", &nr, &err) && nr == 2 &&
	   evs[0].config == 316 && evs[1].config == 318 &&
	   !strcmp(evs[1].name, "sched:sched_wakeup"), "a list of two tracepoints");
	ok(!parse("cycles,sched:sched_switch,cs:u", &nr, &err) && nr == 3 &&
	   evs[0].type == PERF_TYPE_HARDWARE && evs[1].type == PERF_TYPE_TRACEPOINT &&
	   evs[2].flags == KPROF_EV_F_EXCLUDE_KERNEL, "tracepoints mix with other events");
	ok(!parse("s*:sched_[sw]*", &nr, &err) && nr == 2, "globs in both halves");
	ok(!parse("irq:irq_handler_?ntry", &nr, &err) && nr == 1, "? glob");

	is_int(parse("sched:sched_swich", &nr, &err), -ENOENT, "unknown tracepoint");
	is_str(err.msg, "unknown tracepoint 'sched:sched_swich' (see 'kprofctl list tracepoint')",
	       "unknown tracepoint message");
	is_int(parse("nosuch:*", &nr, &err), -ENOENT, "glob without a match");
	is_str(err.msg, "no tracepoint matches 'nosuch:*' (see 'kprofctl list tracepoint')",
	       "no match message");
	is_int(parse("irq:[abc", &nr, &err), -EINVAL, "malformed glob");
	is_str(err.msg,
	       "malformed tracepoint 'irq:[abc': SYSTEM:EVENT of letters, digits, '_', and globs * ? [...]",
	       "malformed glob message");
	is_int(parse("irq:", &nr, &err), -EINVAL, "empty event half");
	is_int(parse("irq:a/b", &nr, &err), -EINVAL, "slash refused");
	is_int(parse("block:*", &nr, &err), -E2BIG, "40 tracepoints are too many");
	is_str(err.msg, "too many events: 'block:*' expands to 40 tracepoints, at most 32",
	       "too many message");
	is_int(parse("irq:*,block:block_ev[0-2]*", &nr, &err), -E2BIG, "3 + 30 are too many");
	is_str(err.msg,
	       "too many events: 'block:block_ev[0-2]*' expands to 30 tracepoints, 33 events in all, at most 32",
	       "too many in all message");
	ok(!parse("block:block_ev[0-2]*,cs", &nr, &err) && nr == 31, "30 + 1 fit");

	/* The hardware/software syntax keeps its errors. */
	is_int(parse("cyclez:u", &nr, &err), -EINVAL, "unknown event with modifier");
	is_str(err.msg, "unknown event 'cyclez' (see 'kprofctl list')", "still an unknown event");
	is_int(parse("cycles:p", &nr, &err), -EINVAL, "bad modifier");
	ok(!parse("cycles:u", &nr, &err) && nr == 1, "cycles:u");

	kp_tracefs_root = "/nonexistent/kprof/events";
	is_int(parse("irq:*", &nr, &err), -ENOENT, "no tracefs");
	ok(strstr(err.msg, "tracefs is not available") != NULL, "no tracefs message");
}

static void test_probes(void)
{
	struct kp_err err;
	unsigned int nr;

	ok(!parse("kprobe:ksys_read", &nr, &err) && nr == 1 &&
	   evs[0].type == KPROF_TYPE_KPROBE && !strcmp(evs[0].symbol, "ksys_read") &&
	   !evs[0].offset && !strcmp(evs[0].name, "kprobe:ksys_read"), "kprobe:FUNC");
	ok(!parse("kprobe:do_sys_open+0x10", &nr, &err) && evs[0].offset == 16 &&
	   !strcmp(evs[0].symbol, "do_sys_open"), "kprobe:FUNC+OFFSET (hex)");
	ok(!parse("kprobe:f.isra.0+8", &nr, &err) && evs[0].offset == 8 &&
	   !strcmp(evs[0].symbol, "f.isra.0"), "kprobe: local symbol, decimal offset");
	is_int(parse("kprobe:", &nr, &err), -EINVAL, "kprobe without function");
	is_str(err.msg, "missing function in event 'kprobe:'", "kprobe without function message");
	is_int(parse("kprobe:a*", &nr, &err), -EINVAL, "kprobe takes no glob");
	is_str(err.msg, "invalid function name 'a*' in event 'kprobe:a*'", "kprobe glob message");
	is_int(parse("kprobe:f+x", &nr, &err), -EINVAL, "bad offset");
	is_str(err.msg, "invalid offset 'x' in event 'kprobe:f+x'", "bad offset message");
	ok(!parse("ftrace:vfs_*", &nr, &err) && evs[0].type == KPROF_TYPE_FTRACE &&
	   !strcmp(evs[0].symbol, "vfs_*") && !strcmp(evs[0].name, "ftrace:vfs_*"),
	   "ftrace:GLOB");
	ok(!parse("ftrace:ksys_read,kprobe:ksys_write", &nr, &err) && nr == 2, "two probes");
	is_int(parse("ftrace:[x", &nr, &err), -EINVAL, "malformed function glob");
	is_str(err.msg, "malformed function glob '[x' in event 'ftrace:[x'",
	       "malformed function glob message");
	ok(!kp_events__parse(evs, &nr, "ftrace:a", false, NULL, 0, &err),
	   "probes need no PMU");
}

static void test_format(void)
{
	const struct kp_tp_field *f;
	struct kp_tp_format *fmt = malloc(sizeof(*fmt));
	struct kp_err err;

	ok(!kp_tracefs__format("sched", "sched_switch", fmt, &err), "sched_switch format");
	is_int(fmt->id, 316, "id");
	is_int(fmt->nr_fields, 11, "11 fields");
	f = kp_tp_format__field(fmt, "prev_comm");
	ok(f && f->offset == 8 && f->size == 16 && f->is_string && f->is_array &&
	   !f->is_signed && !strcmp(f->type, "char[16]"), "prev_comm: char[16] at 8");
	f = kp_tp_format__field(fmt, "prev_state");
	ok(f && f->offset == 32 && f->size == 8 && f->is_signed && !f->is_string &&
	   !strcmp(f->type, "long"), "prev_state: long at 32");
	f = kp_tp_format__field(fmt, "common_pid");
	ok(f && f->is_common && f->size == 4 && f->is_signed, "common_pid");
	ok(!strncmp(fmt->print_fmt, "\"prev_comm=%s prev_pid=%d", 25), "print fmt");
	ok(!kp_tracefs__format("irq", "irq_handler_entry", fmt, &err), "irq_handler_entry");
	f = kp_tp_format__field(fmt, "name");
	ok(f && f->is_dynamic && !f->is_string && !f->is_array && f->offset == 12 &&
	   !strcmp(f->type, "__data_loc char[]"), "__data_loc name");
	is_int(kp_tracefs__format("irq", "nosuch", fmt, &err), -ENOENT, "no format");
	is_str(err.msg, "unknown tracepoint 'irq:nosuch' (see 'kprofctl list tracepoint')",
	       "no format message");
	is_int(kp_tp_format__parse(fmt, "format:\n\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n",
				   &err), -EINVAL, "a field without a name");
	free(fmt);
}

static void test_filter_and_period(void)
{
	struct kp_session_opts o;
	struct kp_session *s = calloc(1, sizeof(*s));
	enum kp_target target;
	struct kp_err err;
	unsigned int nr;

	ok(!parse("sched:sched_switch", &nr, &err) &&
	   !kp_events__set_filter(evs, nr, "prev_pid == 1", &err) && evs[0].nr_filter == 1 &&
	   evs[0].filter[0].op == KPROF_FILTER_EQ && evs[0].filter[0].offset == 24,
	   "set_filter compiles for the tracepoint");
	ok(!parse("cycles", &nr, &err) &&
	   kp_events__set_filter(evs, nr, "prev_pid == 1", &err) == -EINVAL, "no tracepoint");
	is_str(err.msg,
	       "--filter 'prev_pid == 1' follows no tracepoint event: it applies to the -e before it",
	       "no tracepoint message");
	ok(!parse("sched:sched_switch", &nr, &err) &&
	   kp_events__set_filter(evs, nr, "pid == 1", &err) == -EINVAL, "unknown field");
	is_str(err.msg, "filter 'pid == 1' on sched:sched_switch: unknown field 'pid'",
	       "unknown field message");

	memset(&o, 0, sizeof(o));
	o.events[0] = "cs";
	o.events[1] = "sched:sched_switch";
	o.filters[1] = "next_comm == \"kworker\"";
	o.nr_event_args = 2;
	o.count = "10";
	ok(!kp_session__from_opts(s, &target, &o, false, true, "record", &err) &&
	   s->nr_events == 2 && !s->events[0].nr_filter && s->events[1].nr_filter == 3 &&
	   s->events[1].period == 10 && !s->events[0].period && s->period == 10,
	   "session: --filter on the second -e, -c sets the tracepoint's period");
	o.count = NULL;
	o.freq = NULL;
	o.orphan_filter = "x == 1";
	is_int(kp_session__from_opts(s, &target, &o, false, true, "record", &err), -EINVAL,
	       "--filter before any -e");
	free(s);
}

static void test_print(void)
{
	struct kp_tp_format *fmt = malloc(sizeof(*fmt));
	uint8_t raw[64] = { 0 }, rec[56 + 16 + 8 + 24] = { 0 };
	int32_t v;
	uint32_t loc, len;
	char buf[256];
	struct kp_err err;
	const void *r;

	ok(!kp_tracefs__format("irq", "irq_handler_entry", fmt, &err), "irq format");
	v = 19;
	memcpy(raw + 8, &v, 4);
	loc = 16 | 8 << 16;	/* __data_loc: offset 16, 8 bytes */
	memcpy(raw + 12, &loc, 4);
	memcpy(raw + 16, "virtio0", 8);
	is_str(kp_tp_format__print(fmt, raw, 24, buf, sizeof(buf)), "irq=19 name=virtio0",
	       "irq_handler_entry decoded");
	is_str(kp_tp_format__print(fmt, raw, 20, buf, sizeof(buf)), "irq=19 name=",
	       "a string past the record is left empty");
	is_str(kp_tp_format__print(fmt, raw, 10, buf, sizeof(buf)), "",
	       "a field past the record is left out");

	ok(!kp_tracefs__format("sched", "sched_switch", fmt, &err), "sched_switch format");
	memset(raw, 0, sizeof(raw));
	memcpy(raw + 8, "tp prog", 7);
	v = 42;
	memcpy(raw + 24, &v, 4);
	v = -1;
	memcpy(raw + 28, &v, 4);
	raw[32] = 1;
	memcpy(raw + 40, "swapper/0", 9);
	v = 120;
	memcpy(raw + 60, &v, 4);
	is_str(kp_tp_format__print(fmt, raw, 64, buf, sizeof(buf)),
	       "prev_comm=tp.prog prev_pid=42 prev_prio=-1 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120",
	       "sched_switch decoded, a space in a name shown as '.'");
	is_str(kp_tp_format__print(fmt, raw, 64, buf, 20), "prev_comm=tp.prog",
	       "cut to the buffer, at a field");

	is_str(kp_tp_format__print_perf(fmt, raw, 64, buf, sizeof(buf)),
	       "prev_comm=tp prog prev_pid=42 prev_prio=-1 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	       "sched_switch in perf script's layout");
	raw[32] = 0;
	raw[33] = 1;	/* preempted: 0x100 */
	ok(strstr(kp_tp_format__print_perf(fmt, raw, 64, buf, sizeof(buf)), " prev_state=R+ ==> "),
	   "preempted: R+");
	raw[32] = 0x82;
	raw[33] = 0;
	ok(strstr(kp_tp_format__print_perf(fmt, raw, 64, buf, sizeof(buf)), " prev_state=D|I ==> "),
	   "two state flags");
	ok(strstr(kp_tp_format__print_perf(fmt, raw, 40, buf, sizeof(buf)), "prev_comm=tp.prog") == buf,
	   "short record: the generic layout");

	ok(!kp_tracefs__format("kprof", "test", fmt, &err), "kprof:test format");
	memset(raw, 0, sizeof(raw));
	ok(strstr(kp_tp_format__print(fmt, raw, 64, buf, sizeof(buf)), "u8f=0 s16f=0") == buf,
	   "kprof:test decoded");

	ok(!kp_tracefs__format("irq", "irq_handler_entry", fmt, &err), "irq format again");
	memset(raw, 0, sizeof(raw));
	v = 25;
	memcpy(raw + 8, &v, 4);
	loc = 16 | 17 << 16;
	memcpy(raw + 12, &loc, 4);
	memcpy(raw + 16, "virtio0-requests", 17);
	is_str(kp_tp_format__print_perf(fmt, raw, 40, buf, sizeof(buf)),
	       "irq=25 name=virtio0-requests", "irq_handler_entry in perf script's layout");

	/* SAMPLE with two frames and a 20-byte raw record. */
	rec[50] = 0;
	len = 20;
	memcpy(rec + 56 + 16, &len, 4);
	memcpy(rec + 56 + 16 + 8, "abcdefghijklmnopqrst", 20);
	r = kp_sample__raw(rec, sizeof(rec), 2, &len);
	ok(r == rec + 80 && len == 20, "raw block after the frames");
	ok(!kp_sample__raw(rec, 80, 2, &len), "no room for the raw block");
	len = 25;
	memcpy(rec + 56 + 16, &len, 4);
	ok(!kp_sample__raw(rec, sizeof(rec), 2, &len), "raw size past the record");
	free(fmt);
}

int main(void)
{
	char root[64], events[128];

	tmpdir__create(root, sizeof(root));
	tp_fake__create(root);
	snprintf(events, sizeof(events), "%s/events", root);

	test_glob();
	test_dir(root);
	kp_tracefs_root = events;
	test_walk();
	test_parse();
	kp_tracefs_root = events;
	test_probes();
	test_format();
	test_filter_and_period();
	test_print();

	tmpdir__remove(root);
	return done_testing();
}
