// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/tracefs.c, of the tracepoint and probe syntax of
 * lib/events.c (-e SYSTEM:EVENT globs, kprobe:, ftrace:, --filter), on a
 * fake tracefs tree with Linux 6.1's formats, and of lib/tpdecode.c: raw
 * records decoded with libtraceevent as 'perf script' prints them, from
 * stored formats or tracefs's, and hostile formats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/events.h"
#include "lib/session.h"
#include "lib/sys.h"
#include "lib/tpdecode.h"
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

static void test_format(const char *root)
{
	struct kp_err err;
	uint32_t size;
	char *text, *big;

	ok(!kp_tracefs__read_format("sched", "sched_switch", &text, &size, &err) &&
	   size == sizeof(tp_sched_switch_format) && !strcmp(text, tp_sched_switch_format),
	   "sched_switch: the text of its format file, NUL included");
	free(text);
	is_int(kp_tracefs__read_format("irq", "nosuch", &text, &size, &err), -ENOENT, "no format");
	ok(!text && !size, "no format: no text");
	is_str(err.msg, "unknown tracepoint 'irq:nosuch' (see 'kprofctl list tracepoint')",
	       "no format message");

	big = malloc(KP_TP_FORMAT_MAX + 1);
	memset(big, 'x', KP_TP_FORMAT_MAX - 1);
	big[KP_TP_FORMAT_MAX - 1] = '\0';
	tp_fake__event(root, "big", "fits", 2000, big);
	ok(!kp_tracefs__read_format("big", "fits", &text, &size, &err) &&
	   size == KP_TP_FORMAT_MAX, "a format of 16 KiB - 1 bytes and its NUL fits");
	free(text);
	big[KP_TP_FORMAT_MAX - 1] = 'x';
	big[KP_TP_FORMAT_MAX] = '\0';
	tp_fake__event(root, "big", "huge", 2001, big);
	is_int(kp_tracefs__read_format("big", "huge", &text, &size, &err), -EFBIG, "16 KiB is too big");
	is_str(err.msg, "the format of tracepoint 'big:huge' is not text of less than 16384 bytes",
	       "too big message");
	free(big);
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

/* The events of the decoding tests: names and tracefs ids. */
static const struct {
	const char	*name;
	uint32_t	id;
} tp_events[] = {
	{ "sched:sched_switch", TP_SCHED_SWITCH_ID },
	{ "irq:irq_handler_entry", TP_IRQ_ENTRY_ID },
	{ "irq:irq_handler_exit", TP_IRQ_EXIT_ID },
	{ "sched:sched_wakeup", TP_SCHED_WAKEUP_ID },
	{ "block:block_rq_issue", TP_BLOCK_RQ_ISSUE_ID },
	{ "kprof:test", TP_TEST_ID },
	{ "cpu-clock", 0 },
	{ "sched:sched_process_exit", 312 },	/* a format that is not one */
	{ "sched:sched_switch", TP_SCHED_SWITCH_ID },	/* twice */
};

static void tp_session(struct kp_session *s)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < KP_ARRAY_SIZE(tp_events); i++) {
		s->events[i].type = tp_events[i].id ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
		s->events[i].config = tp_events[i].id;
		snprintf(s->events[i].name, sizeof(s->events[i].name), "%s", tp_events[i].name);
	}
	s->nr_events = KP_ARRAY_SIZE(tp_events);
}

/* The common fields: type @id, pid 7. */
static void common(uint8_t *raw, size_t len, uint16_t id)
{
	tp_fake__common(raw, len, id, 7);
}

static void sw_record(uint8_t *raw, const char *prev, int32_t pid, int32_t prio, uint64_t state,
		      const char *next)
{
	common(raw, 64, TP_SCHED_SWITCH_ID);
	tp_fake__switch(raw, prev, pid, prio, state, next, 0);
}

static void test_decode(void)
{
	struct kp_session *s = malloc(sizeof(*s));
	uint8_t raw[256];
	struct kp_tpdecode *t;
	uint64_t sector = 2048;

	tp_session(s);
	t = kp_tpdecode__new(s, "x86_64", NULL);
	ok(t && kp_tpdecode__event(t, 0) && kp_tpdecode__event(t, 4) &&
	   kp_tpdecode__event(t, 8) == kp_tpdecode__event(t, 0) && !kp_tpdecode__event(t, 6),
	   "formats of Linux 6.1 from tracefs, parsed by libtraceevent; one per tracepoint");
	ok(!kp_tpdecode__why(t, 0) && !kp_tpdecode__why(t, 6) && kp_tpdecode__why(t, 7) &&
	   strstr(kp_tpdecode__why(t, 7), "sched:sched_process_exit: ") == kp_tpdecode__why(t, 7),
	   "why: nothing for good formats and other events; the event of a bad one");

	/* perf script's text: the print format applied. */
	sw_record(raw, "tp prog", 42, 120, 1, "swapper/0");
	is_str(kp_tpdecode__info(t, 0, 1, raw, 64),
	       "prev_comm=tp prog prev_pid=42 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120",
	       "sched_switch: sleeping");
	sw_record(raw, "bash", 1, 120, 0x100, "kworker/1:2");
	is_str(kp_tpdecode__info(t, 0, 1, raw, 64),
	       "prev_comm=bash prev_pid=1 prev_prio=120 prev_state=R+ ==> next_comm=kworker/1:2 next_pid=0 next_prio=120",
	       "sched_switch: preempted, R+");
	sw_record(raw, "bash", 1, 98, 0x82, "x");
	ok(strstr(kp_tpdecode__info(t, 8, 0, raw, 64), " prev_prio=98 prev_state=D|I ==> ") != NULL,
	   "sched_switch: two state flags, D|I (the same format, twice)");
	sw_record(raw, "bash", 1, 120, 0, "x");
	ok(strstr(kp_tpdecode__info(t, 0, 0, raw, 64), " prev_state=R ==> ") != NULL,
	   "sched_switch: running, R");

	common(raw, 24, TP_IRQ_ENTRY_ID);
	tp_fake__put32(raw, 8, 19);
	tp_fake__put32(raw, 12, 16 | 8 << 16);	/* __data_loc: 8 bytes at 16 */
	memcpy(raw + 16, "virtio0", 8);
	is_str(kp_tpdecode__info(t, 1, 0, raw, 24), "irq=19 name=virtio0", "irq_handler_entry");
	is_str(kp_tpdecode__fields(t, 1, raw, 24), "irq=19 name=virtio0",
	       "irq_handler_entry: fields");
	is_str(kp_tpdecode__fields(t, 1, raw, 20), "irq=19 name=",
	       "fields: a string past the record is left empty");
	is_str(kp_tpdecode__fields(t, 1, raw, 10), "", "fields: a field past the record is left out");
	ok(!kp_tpdecode__info(t, 2, 0, raw, 24), "a record of another event (common_type): none");
	ok(!kp_tpdecode__info(t, 6, 0, raw, 24) && !kp_tpdecode__info(t, 7, 0, raw, 24) &&
	   !kp_tpdecode__info(t, 40, 0, raw, 24), "no format: none");

	common(raw, 16, TP_IRQ_EXIT_ID);
	tp_fake__put32(raw, 8, 19);
	tp_fake__put32(raw, 12, 1);
	is_str(kp_tpdecode__info(t, 2, 0, raw, 16), "irq=19 ret=handled", "irq_handler_exit");
	tp_fake__put32(raw, 12, 0);
	is_str(kp_tpdecode__info(t, 2, 0, raw, 16), "irq=19 ret=unhandled",
	       "irq_handler_exit: unhandled");

	common(raw, 40, TP_SCHED_WAKEUP_ID);
	memcpy(raw + 8, "bash", 4);
	tp_fake__put32(raw, 24, 1234);
	tp_fake__put32(raw, 28, 120);
	tp_fake__put32(raw, 32, 2);
	is_str(kp_tpdecode__info(t, 3, 0, raw, 40), "comm=bash pid=1234 prio=120 target_cpu=002",
	       "sched_wakeup");

	common(raw, 64, TP_BLOCK_RQ_ISSUE_ID);
	tp_fake__block_rq_issue(raw, sector, "kworker/0:1H");
	is_str(kp_tpdecode__info(t, 4, 0, raw, 64), "8,16 WS 4096 () 2048 + 8 [kworker/0:1H]",
	       "block_rq_issue");
	is_str(kp_tpdecode__fields(t, 4, raw, 64),
	       "dev=8388624 sector=2048 nr_sector=8 bytes=4096 rwbs=WS comm=kworker/0:1H cmd=",
	       "block_rq_issue: fields");

	sw_record(raw, "tp prog", 42, -1, 1, "swapper/0");
	is_str(kp_tpdecode__fields(t, 0, raw, 64),
	       "prev_comm=tp.prog prev_pid=42 prev_prio=-1 prev_state=1 next_comm=swapper/0 next_pid=0 next_prio=120",
	       "sched_switch: fields, a space in a name shown as '.'");
	memset(raw, 0, sizeof(raw));
	common(raw, 164, TP_TEST_ID);
	ok(strstr(kp_tpdecode__fields(t, 5, raw, 164),
		  "u8f=0 s16f=0 u32f=0 u64f=0 s64f=0 name= big=") == kp_tpdecode__fields(t, 5, raw, 164),
	   "kprof:test: fields");
	ok(strstr(kp_tpdecode__fields(t, 5, raw, 164), " arr={00,00,00,00,00,00,00,00,00,00,00,00,00,00,00,00} dyn= c3= odd3={00,00,00}") != NULL,
	   "arrays in hexadecimal");
	kp_tpdecode__delete(t);
	free(s);
}

/* A format of @s's event @i of its own: @text. */
static const char *decode_with(struct kp_session *s, unsigned int i, const char *text,
			       const void *raw, uint32_t len, char *why, size_t why_len)
{
	static char out[512];
	struct kp_tp_formats f = { 0 };
	struct kp_tpdecode *t;
	const char *r;

	f.text[i] = (char *)text;
	f.size[i] = strlen(text) + 1;
	t = kp_tpdecode__new(s, "x86_64", &f);
	r = kp_tpdecode__info(t, i, 0, raw, len);
	snprintf(out, sizeof(out), "%s", r ? r : "");
	snprintf(why, why_len, "%s", kp_tpdecode__why(t, i) ? kp_tpdecode__why(t, i) : "");
	kp_tpdecode__delete(t);
	return r ? out : NULL;
}

#define SW_HEAD	"name: sched_switch\nID: 316\n" TP_COMMON

static void test_stored(void)
{
	struct kp_session *s = malloc(sizeof(*s));
	char why[512], text[1024];
	uint8_t raw[64];

	tp_session(s);
	sw_record(raw, "bash", 42, 120, 1, "x");
	ok(decode_with(s, 0, tp_sched_switch_format, raw, 64, why, sizeof(why)) &&
	   !strncmp(decode_with(s, 0, tp_sched_switch_format, raw, 64, why, sizeof(why)),
		    "prev_comm=bash prev_pid=42 ", 27), "a stored format");
	snprintf(text, sizeof(text), "%s\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
		 "print fmt: \"pid %%d\", REC->prev_pid\n", SW_HEAD);
	is_str(decode_with(s, 0, text, raw, 64, why, sizeof(why)), "pid 42",
	       "the stored format, not tracefs's");
	kp_tracefs_root = "/nonexistent/kprof/events";
	is_str(decode_with(s, 0, text, raw, 64, why, sizeof(why)), "pid 42",
	       "a stored format needs no tracefs");
	ok(!decode_with(s, 1, tp_irq_entry_format, raw, 64, why, sizeof(why)) && !why[0],
	   "a record of another event: none");

	/* Hostile formats: refused, or their print format left unused. */
	ok(!decode_with(s, 0, "name: sched_switch\nID: 317\n" TP_COMMON "\nprint fmt: \"x\"\n", raw,
			64, why, sizeof(why)) && !strcmp(why, "sched:sched_switch: the format's ID is not the event's"),
	   "another ID: refused (%s)", why);
	ok(!decode_with(s, 0, "name: sched_wakeup\nID: 316\n" TP_COMMON "\nprint fmt: \"x\"\n", raw,
			64, why, sizeof(why)) && strstr(why, "another event"), "another name: refused");
	ok(!decode_with(s, 0, SW_HEAD "\tfield:int x;\toffset:65534;\tsize:4;\tsigned:1;\n\nprint fmt: \"x\"\n",
			raw, 64, why, sizeof(why)) && strstr(why, "beyond 64 KiB"), "a field beyond 64 KiB: refused");
	ok(!decode_with(s, 0, "name: sched_switch\nID: 316\nformat:\n\tfield:int common_type;\toffset:4;\tsize:4;\tsigned:1;\n\n\nprint fmt: \"x\"\n",
			raw, 64, why, sizeof(why)) && strstr(why, "common_type"), "common_type elsewhere: refused");
	ok(!decode_with(s, 0, "name: sched_switch\nID: 316\n\x01\n", raw, 64, why, sizeof(why)) &&
	   strstr(why, "printable"), "a control character: refused");
	ok(!decode_with(s, 0, "garbage", raw, 64, why, sizeof(why)) && strstr(why, "libtraceevent"),
	   "garbage: refused (%s)", why);
	/* libtraceevent 1.7.1 crashes on this one: __print_flags() of a field it has not */
	ok(!decode_with(s, 0, SW_HEAD "\tfield:long state;\toffset:32;\tsize:8;\tsigned:1;\n\n"
			"print fmt: \"%s\", __print_flags(REC->prev_state & 3, \"|\", { 1, \"S\" })\n",
			raw, 64, why, sizeof(why)) &&
	   !strcmp(why, "sched:sched_switch: its print format names a field it does not have"),
	   "a print format naming a field the format has not: refused");
	/* ... dies of SIGFPE folding "ATOM / ATOM" whose right side reads as 0,
	 * and reads sizeof() after freeing it */
	{
		static const char * const bad[] = {
			"R/C->prev_pid, 2", "1 / 0, 2", "1/(0), 2", "1/0x0, 2", "5 % C, 2", "1 / sizeof(int), 2",
		};
		static const char * const bad_sizeof[] = {
			"REC->prev_pid + sizeof(int), 2", "sizeof(int), 2", "REC->prev_pid * sizeof(long), 2",
		};
		static const char * const good[] = {
			"REC->prev_pid / 2, 2", "REC->prev_pid % 1000L, 2", "(REC->prev_pid) / (4), 2",
		};
		char fmt[512];
		unsigned int k;

		for (k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			snprintf(fmt, sizeof(fmt), SW_HEAD "\tfield:int prev_pid;\toffset:24;\tsize:4;"
				 "\tsigned:1;\n\nprint fmt: \"%%d %%d %%s\", %s, \"a/0\"\n", bad[k]);
			ok(!decode_with(s, 0, fmt, raw, 64, why, sizeof(why)) &&
			   !strcmp(why, "sched:sched_switch: its print format divides by zero or by a bare word"),
			   "print format '%s': refused (%s)", bad[k], why);
		}
		for (k = 0; k < sizeof(bad_sizeof) / sizeof(bad_sizeof[0]); k++) {
			snprintf(fmt, sizeof(fmt), SW_HEAD "\tfield:int prev_pid;\toffset:24;\tsize:4;"
				 "\tsigned:1;\n\nprint fmt: \"%%d %%d %%s\", %s, \"sizeof\"\n", bad_sizeof[k]);
			ok(!decode_with(s, 0, fmt, raw, 64, why, sizeof(why)) &&
			   !strcmp(why, "sched:sched_switch: its print format uses sizeof"),
			   "print format '%s': refused (%s)", bad_sizeof[k], why);
		}
		for (k = 0; k < sizeof(good) / sizeof(good[0]); k++) {
			snprintf(fmt, sizeof(fmt), SW_HEAD "\tfield:int prev_pid;\toffset:24;\tsize:4;"
				 "\tsigned:1;\n\nprint fmt: \"%%d %%d %%s\", %s, \"a/0\"\n", good[k]);
			ok(decode_with(s, 0, fmt, raw, 64, why, sizeof(why)) != NULL,
			   "print format '%s': decodes (%s)", good[k], why);
		}
	}
	is_str(decode_with(s, 0, SW_HEAD "\tfield:int prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
			   "print fmt: \"%s\", __print_hex(REC->prev_pid, 100000)\n", raw, 64, why, sizeof(why)),
	       "prev_pid=42", "__print_hex() of 100000 bytes: the fields instead");
	is_str(decode_with(s, 0, SW_HEAD "\tfield:int arr[2];\toffset:24;\tsize:8;\tsigned:1;\n\n"
			   "print fmt: \"%d %d\", REC->arr[1], REC->arr[0]\n", raw, 64, why, sizeof(why)),
	       "120 42", "REC->arr[1]: within the array");
	ok(strstr(decode_with(s, 0, SW_HEAD "\tfield:int arr[2];\toffset:24;\tsize:8;\tsigned:1;\n\n"
				"print fmt: \"%d\", REC->arr[100000]\n", raw, 64, why, sizeof(why)), "arr={") != NULL,
	   "REC->arr[100000]: the fields instead");
	is_str(decode_with(s, 0, SW_HEAD "\tfield:int prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
			   "print fmt: \"%d\", nosuchfunc(REC->prev_pid\n", raw, 64, why, sizeof(why)),
	       "[FAILED TO PARSE] prev_pid=42", "a broken print format: what perf prints");
	kp_tracefs_root = NULL;
	free(s);
}

static void test_raw(void)
{
	uint8_t rec[56 + 16 + 8 + 24] = { 0 };
	const void *r;
	uint32_t len;

	/* SAMPLE with two frames and a 20-byte raw record. */
	len = 20;
	memcpy(rec + 56 + 16, &len, 4);
	memcpy(rec + 56 + 16 + 8, "abcdefghijklmnopqrst", 20);
	r = kp_sample__raw(rec, sizeof(rec), 2, &len);
	ok(r == rec + 80 && len == 20, "raw block after the frames");
	ok(!kp_sample__raw(rec, 80, 2, &len), "no room for the raw block");
	len = 25;
	memcpy(rec + 56 + 16, &len, 4);
	ok(!kp_sample__raw(rec, sizeof(rec), 2, &len), "raw size past the record");
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
	test_format(root);
	test_filter_and_period();
	test_decode();
	test_stored();
	kp_tracefs_root = events;
	test_raw();

	tmpdir__remove(root);
	return done_testing();
}
