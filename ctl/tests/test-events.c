// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/events.c: every event name, modifiers, raw events,
 * lists, errors, and the fallback without a hardware PMU (fake sysfs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "capture.h"
#include "lib/events.h"
#include "lib/sys.h"
#include "tap.h"
#include "tmpdir.h"

struct name_case {
	const char	*name;
	uint32_t	type;
	uint64_t	config;
};

#define C(id, op, res)	((id) | (op) << 8 | (res) << 16)

static const struct name_case names[] = {
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "L1-dcache-loads",		PERF_TYPE_HW_CACHE, C(0, 0, 0) },
	{ "L1-dcache-load-misses",	PERF_TYPE_HW_CACHE, C(0, 0, 1) },
	{ "L1-dcache-stores",		PERF_TYPE_HW_CACHE, C(0, 1, 0) },
	{ "L1-dcache-store-misses",	PERF_TYPE_HW_CACHE, C(0, 1, 1) },
	{ "L1-dcache-prefetches",	PERF_TYPE_HW_CACHE, C(0, 2, 0) },
	{ "L1-dcache-prefetch-misses",	PERF_TYPE_HW_CACHE, C(0, 2, 1) },
	{ "L1-icache-loads",		PERF_TYPE_HW_CACHE, C(1, 0, 0) },
	{ "L1-icache-load-misses",	PERF_TYPE_HW_CACHE, C(1, 0, 1) },
	{ "LLC-loads",			PERF_TYPE_HW_CACHE, C(2, 0, 0) },
	{ "LLC-load-misses",		PERF_TYPE_HW_CACHE, C(2, 0, 1) },
	{ "LLC-stores",			PERF_TYPE_HW_CACHE, C(2, 1, 0) },
	{ "LLC-store-misses",		PERF_TYPE_HW_CACHE, C(2, 1, 1) },
	{ "dTLB-loads",			PERF_TYPE_HW_CACHE, C(3, 0, 0) },
	{ "dTLB-load-misses",		PERF_TYPE_HW_CACHE, C(3, 0, 1) },
	{ "dTLB-stores",		PERF_TYPE_HW_CACHE, C(3, 1, 0) },
	{ "iTLB-loads",			PERF_TYPE_HW_CACHE, C(4, 0, 0) },
	{ "iTLB-load-misses",		PERF_TYPE_HW_CACHE, C(4, 0, 1) },
	{ "branch-loads",		PERF_TYPE_HW_CACHE, C(5, 0, 0) },
	{ "branch-load-misses",		PERF_TYPE_HW_CACHE, C(5, 0, 1) },
	{ "node-loads",			PERF_TYPE_HW_CACHE, C(6, 0, 0) },
	{ "node-load-misses",		PERF_TYPE_HW_CACHE, C(6, 0, 1) },
	{ "llc-LOAD-misses",		PERF_TYPE_HW_CACHE, C(2, 0, 1) },
	{ "r0",				PERF_TYPE_RAW, 0 },
	{ "r003c",			PERF_TYPE_RAW, 0x3c },
	{ "r1A2b",			PERF_TYPE_RAW, 0x1a2b },
	{ "rffffffffffffffff",		PERF_TYPE_RAW, UINT64_MAX },
};

/* Parse @arg as a one-event list with a PMU. */
static int parse1(const char *arg, struct kp_event *ev, struct kp_err *err)
{
	struct kp_event evs[KPROF_MAX_EVENTS];
	unsigned int nr = 0;
	int ret;

	ret = kp_events__parse(evs, &nr, arg, true, NULL, 0, err);
	if (!ret && nr == 1)
		*ev = evs[0];
	return ret ? ret : nr == 1 ? 0 : -1;
}

static void test_names(void)
{
	struct kp_event ev;
	struct kp_err err;
	char buf[64], tn[16];
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(names); i++) {
		const struct name_case *c = &names[i];

		ok(!parse1(c->name, &ev, &err) && ev.type == c->type && ev.config == c->config &&
		   !ev.flags && !strcmp(ev.name, c->name),
		   "event %s: type %u config 0x%llx", c->name, c->type,
		   (unsigned long long)c->config);
	}
	/* Canonical names round-trip. */
	for (i = 0; i < KP_ARRAY_SIZE(names); i++) {
		const struct name_case *c = &names[i];

		kp_event__canonical(c->type, c->config, buf, sizeof(buf));
		ok(!parse1(buf, &ev, &err) && ev.type == c->type && ev.config == c->config,
		   "canonical %s of %s parses back", buf, c->name);
	}
	is_str(kp_event__canonical(PERF_TYPE_HARDWARE, 0, buf, sizeof(buf)), "cycles",
	       "canonical: cycles");
	is_str(kp_event__canonical(PERF_TYPE_HW_CACHE, C(4, 1, 0), buf, sizeof(buf)), "3:0x104",
	       "canonical: iTLB stores are not a perf name");
	is_str(kp_event__canonical(9, 5, buf, sizeof(buf)), "9:0x5", "canonical: unknown type");
	is_str(kp_event__type_name(PERF_TYPE_RAW, tn, sizeof(tn)), "raw", "type name: raw");
	is_str(kp_event__type_name(7, tn, sizeof(tn)), "type 7", "type name: unknown");
}

static void test_modifiers(void)
{
	struct kp_event ev;
	struct kp_err err;

	ok(!parse1("cycles:u", &ev, &err) && ev.flags == KPROF_EV_F_EXCLUDE_KERNEL &&
	   !strcmp(ev.name, "cycles:u"), ":u excludes the kernel");
	ok(!parse1("cs:k", &ev, &err) && ev.flags == KPROF_EV_F_EXCLUDE_USER &&
	   !strcmp(ev.name, "cs:k"), ":k excludes user space");
	ok(!parse1("instructions:uk", &ev, &err) && !ev.flags, ":uk counts both");
	ok(!parse1("instructions:ku", &ev, &err) && !ev.flags, ":ku counts both");
	ok(!parse1("r1a2:u", &ev, &err) && ev.type == PERF_TYPE_RAW && ev.config == 0x1a2 &&
	   ev.flags == KPROF_EV_F_EXCLUDE_KERNEL, "raw with :u");
	ok(!parse1("LLC-load-misses:k", &ev, &err) && ev.flags == KPROF_EV_F_EXCLUDE_USER,
	   "cache with :k");

	is_int(parse1("cycles:p", &ev, &err), -EINVAL, ":p refused");
	is_str(err.msg, "unsupported modifier 'p' in event 'cycles:p' (only :u and :k)",
	       ":p message");
	is_int(parse1("cycles:", &ev, &err), -EINVAL, "empty modifier refused");
	is_str(err.msg, "empty modifier in event 'cycles:'", "empty modifier message");
	is_int(parse1("cycles:u:k", &ev, &err), -EINVAL, "second colon refused");
	is_str(err.msg, "unsupported modifier ':' in event 'cycles:u:k' (only :u and :k)",
	       "second colon message");
}

static void test_errors(void)
{
	struct kp_event evs[KPROF_MAX_EVENTS + 4];
	char longname[100];
	struct kp_event ev;
	struct kp_err err;
	unsigned int nr, i;

	is_int(parse1("cyclez", &ev, &err), -EINVAL, "unknown event");
	is_str(err.msg, "unknown event 'cyclez' (see 'kprofctl list')", "unknown event message");
	is_int(parse1("cyclez:u", &ev, &err), -EINVAL, "unknown event with modifier");
	is_str(err.msg, "unknown event 'cyclez' (see 'kprofctl list')",
	       "unknown event named without its modifier");
	is_int(parse1("CYCLES", &ev, &err), -EINVAL, "hardware names are case-sensitive");
	is_int(parse1(":u", &ev, &err), -EINVAL, "modifier alone");
	is_str(err.msg, "unknown event '' (see 'kprofctl list')", "modifier alone message");
	is_int(parse1("r", &ev, &err), -EINVAL, "raw without digits");
	is_int(parse1("rxyz", &ev, &err), -EINVAL, "raw with non-hex digits");
	is_int(parse1("r10000000000000000", &ev, &err), -EINVAL, "raw of 17 digits");
	is_int(parse1("iTLB-stores", &ev, &err), -EINVAL, "illegal cache combination");
	is_int(parse1("branch-prefetches", &ev, &err), -EINVAL, "illegal cache op");
	is_int(parse1("", &ev, &err), -EINVAL, "empty list");
	is_str(err.msg, "empty event name in the event list", "empty list message");

	nr = 0;
	is_int(kp_events__parse(evs, &nr, "cycles,,cs", true, NULL, 0, &err), -EINVAL,
	       "empty item in a list");
	is_str(err.msg, "empty event name in the event list", "empty item message");
	nr = 0;
	is_int(kp_events__parse(evs, &nr, "cs,", true, NULL, 0, &err), -EINVAL,
	       "trailing comma");

	nr = 0;
	ok(!kp_events__parse(evs, &nr, "cycles,instructions:u,cs", true, NULL, 0, &err) &&
	   nr == 3 && !strcmp(evs[1].name, "instructions:u") && evs[2].type == PERF_TYPE_SOFTWARE,
	   "a list of three");
	ok(!kp_events__parse(evs, &nr, "faults", true, NULL, 0, &err) && nr == 4 &&
	   !strcmp(evs[3].name, "faults"), "a second -e appends");

	nr = 0;
	for (i = 0; i < KPROF_MAX_EVENTS; i++)
		if (kp_events__parse(evs, &nr, "cs", true, NULL, 0, &err))
			break;
	is_int(nr, KPROF_MAX_EVENTS, "KPROF_MAX_EVENTS events accepted");
	is_int(kp_events__parse(evs, &nr, "cs", true, NULL, 0, &err), -E2BIG, "one more refused");
	is_str(err.msg, "too many events: at most 32", "too many events message");

	snprintf(longname, sizeof(longname), "cpu-clock:%s", "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu");
	is_int(parse1(longname, &ev, &err), -EINVAL, "name of 65 characters refused");
	ok(strstr(err.msg, "is too long (at most 63 characters)"), "too long message");
}

static void test_no_pmu(void)
{
	struct kp_event evs[KPROF_MAX_EVENTS];
	char root[64], notice[160] = "";
	unsigned int nr = 0;
	struct kp_err err;

	tmpdir__create(root, sizeof(root));
	kp_sysroot = root;
	tmpdir__mkdir(root, "sys/bus/event_source/devices/software");
	ok(!kp_sys__has_hw_pmu(), "fake sysfs without cpu: no PMU");

	ok(!kp_events__parse(evs, &nr, "cycles", false, notice, sizeof(notice), &err) &&
	   evs[0].type == PERF_TYPE_SOFTWARE && evs[0].config == PERF_COUNT_SW_CPU_CLOCK &&
	   !strcmp(evs[0].name, "cpu-clock"), "no PMU: cycles becomes cpu-clock");
	is_str(notice, "no hardware PMU (virtual machine?): 'cycles' falls back to 'cpu-clock'",
	       "no PMU: notice");
	notice[0] = '\0';
	ok(!kp_events__parse(evs, &nr, "cpu-cycles:u", false, notice, sizeof(notice), &err) &&
	   evs[1].config == PERF_COUNT_SW_CPU_CLOCK && evs[1].flags == KPROF_EV_F_EXCLUDE_KERNEL &&
	   !strcmp(evs[1].name, "cpu-clock:u"), "no PMU: cpu-cycles:u becomes cpu-clock:u");
	is_str(notice, "no hardware PMU (virtual machine?): 'cpu-cycles' falls back to 'cpu-clock'",
	       "no PMU: notice names cpu-cycles");
	ok(!kp_events__parse(evs, &nr, "cs,page-faults", false, NULL, 0, &err) && nr == 4,
	   "no PMU: software events are fine");
	is_int(kp_events__parse(evs, &nr, "instructions", false, NULL, 0, &err), -EOPNOTSUPP,
	       "no PMU: instructions refused");
	is_str(err.msg, "event 'instructions' is not supported: no hardware PMU (virtual machine?)",
	       "no PMU: names the event");
	is_int(kp_events__parse(evs, &nr, "LLC-loads:u", false, NULL, 0, &err), -EOPNOTSUPP,
	       "no PMU: cache event refused");
	is_str(err.msg, "event 'LLC-loads:u' is not supported: no hardware PMU (virtual machine?)",
	       "no PMU: names the cache event");
	is_int(kp_events__parse(evs, &nr, "r3c", false, NULL, 0, &err), -EOPNOTSUPP,
	       "no PMU: raw event refused");

	tmpdir__mkdir(root, "sys/bus/event_source/devices/cpu");
	ok(kp_sys__has_hw_pmu(), "fake sysfs with cpu: PMU");
	tmpdir__remove(root);
	tmpdir__create(root, sizeof(root));
	tmpdir__mkdir(root, "sys/bus/event_source/devices/cpu_core");
	ok(kp_sys__has_hw_pmu(), "hybrid cpu_core: PMU");
	tmpdir__remove(root);
	tmpdir__create(root, sizeof(root));
	tmpdir__mkdir(root, "sys/bus/event_source/devices/cpu_atom");
	ok(kp_sys__has_hw_pmu(), "hybrid cpu_atom: PMU");
	tmpdir__remove(root);
	kp_sysroot = "";
}

static void test_list(void)
{
	struct capture c;

	capture__start(&c);
	kp_events__list(stdout, KP_EVENT_ALL);
	capture__stop(&c);
	ok(strstr(c.out, "  cpu-cycles OR cycles                               [Hardware event]\n"),
	   "list: cycles alias");
	ok(strstr(c.out, "  context-switches OR cs                             [Software event]\n"),
	   "list: cs alias");
	ok(strstr(c.out, "  L1-dcache-load-misses                              [Hardware cache event]\n"),
	   "list: cache event");
	ok(strstr(c.out, "  rNNN                                               [Raw hardware event descriptor]\n"),
	   "list: raw");
	ok(!strstr(c.out, "iTLB-stores"), "list: no illegal cache combination");
	capture__free(&c);

	capture__start(&c);
	kp_events__list(stdout, KP_EVENT_SW);
	capture__stop(&c);
	ok(strstr(c.out, "cpu-clock") && !strstr(c.out, "instructions") && !strstr(c.out, "LLC"),
	   "list sw: software only");
	capture__free(&c);
}

static void test_breakpoints(void)
{
	struct kp_event ev;
	struct kp_err err;

	ok(!parse1("mem:0x404010:w", &ev, &err) && ev.type == PERF_TYPE_BREAKPOINT &&
	   ev.config == 0x404010 && ev.bp_type == KPROF_BP_F_W && ev.bp_len == 4 &&
	   ev.period == 1 && !strcmp(ev.name, "mem:0x404010:w"),
	   "mem:ADDR:w: a 4-byte write breakpoint, a sample per access");
	ok(!parse1("mem:0x404010/8", &ev, &err) && ev.bp_type == (KPROF_BP_F_R | KPROF_BP_F_W) &&
	   ev.bp_len == 8, "mem:ADDR/8: read and write by default, 8 bytes");
	ok(!parse1("mem:0x401000:x", &ev, &err) && ev.bp_type == KPROF_BP_F_X && ev.bp_len == 8,
	   "mem:ADDR:x: an execute breakpoint of a word");
	ok(!parse1("mem:4202512/2:rw", &ev, &err) && ev.config == 4202512 && ev.bp_len == 2 &&
	   ev.bp_type == (KPROF_BP_F_R | KPROF_BP_F_W), "mem:DECIMAL/2:rw");
	is_int(parse1("mem:0x404010/3:w", &ev, &err), -EINVAL, "breakpoint length 3");
	is_str(err.msg, "bad breakpoint length '3' in 'mem:0x404010/3:w': 1, 2, 4 or 8 bytes",
	       "breakpoint length 3: named");
	is_int(parse1("mem:0x404011:w", &ev, &err), -EINVAL, "unaligned breakpoint");
	ok(strstr(err.msg, "address 0x404011 is not a multiple of its length 4") != NULL,
	   "unaligned breakpoint: named");
	is_int(parse1("mem:0x401000:rx", &ev, &err), -EINVAL, "execute with read");
	is_int(parse1("mem:0x401000/4:x", &ev, &err), -EINVAL, "execute of 4 bytes");
	is_int(parse1("mem:0x404010:q", &ev, &err), -EINVAL, "unknown access");
	is_str(err.msg, "bad breakpoint access 'q' in 'mem:0x404010:q': r, w, rw or x",
	       "unknown access: named");
	is_int(parse1("mem:zz:w", &ev, &err), -EINVAL, "bad address");
	is_str(err.msg, "bad address 'zz' in breakpoint 'mem:zz:w'", "bad address: named");
	is_int(parse1("mem:", &ev, &err), -EINVAL, "no address");
}

int main(void)
{
	test_breakpoints();
	test_names();
	test_modifiers();
	test_errors();
	test_no_pmu();
	test_list();
	return done_testing();
}
