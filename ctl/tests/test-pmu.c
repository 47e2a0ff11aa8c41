// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of perf's PMU event syntax in lib/events.c and of 'kprofctl
 * list pmu', against a fake /sys/bus/event_source/devices modelled on a
 * 6.1 x86 kernel's, and 'kprofctl list pmu' against this host's own.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "lib/events.h"
#include "lib/sys.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

#define DEV	"sys/bus/event_source/devices/"

static char root[64];

static void pmu_file(const char *pmu, const char *rel, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), DEV "%s/%s", pmu, rel);
	tmpdir__write(root, path, text);
}

/* The PMUs of a 6.1 kernel on an Intel machine, and a hybrid one's cpu_core. */
static void make_tree(void)
{
	pmu_file("breakpoint", "type", "5\n");
	pmu_file("software", "type", "1\n");
	pmu_file("tracepoint", "type", "2\n");

	pmu_file("msr", "type", "11\n");
	pmu_file("msr", "format/event", "config:0-63\n");
	pmu_file("msr", "events/tsc", "event=0x00\n");
	pmu_file("msr", "events/aperf", "event=0x01\n");
	pmu_file("msr", "events/mperf", "event=0x02\n");
	pmu_file("msr", "events/smi", "event=0x04\n");

	pmu_file("uprobe", "type", "7\n");
	pmu_file("uprobe", "format/retprobe", "config:0\n");
	pmu_file("uprobe", "format/ref_ctr_offset", "config:32-63\n");

	pmu_file("cpu", "type", "4\n");
	pmu_file("cpu", "format/event", "config:0-7\n");
	pmu_file("cpu", "format/umask", "config:8-15\n");
	pmu_file("cpu", "format/cmask", "config:24-31\n");
	pmu_file("cpu", "format/inv", "config:23\n");
	pmu_file("cpu", "format/ldlat", "config1:0-15\n");
	pmu_file("cpu", "events/cpu-cycles", "event=0x3c\n");
	pmu_file("cpu", "events/ref-cycles", "event=0x00,umask=0x03\n");
	pmu_file("cpu", "events/cache-misses", "event=0x2e,umask=0x41\n");
	pmu_file("cpu", "events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	pmu_file("cpu", "events/mem-loads.scale", "1\n");
	pmu_file("cpu", "events/offcore", "event=0xb7,umask=?\n");

	pmu_file("cpu_core", "type", "4\n");
	pmu_file("cpu_core", "format/event", "config:0-7\n");
	pmu_file("cpu_core", "format/umask", "config:8-15,32-35\n");
}

struct attr_case {
	const char	*item;
	uint32_t	type;
	uint64_t	config, config1;
	uint32_t	flags;
};

static const struct attr_case attrs[] = {
	{ "cpu/event=0x3c,umask=0x01/",		4, 0x13c, 0, 0 },
	{ "cpu/event=0x3c,umask=0x01/u",	4, 0x13c, 0, KPROF_EV_F_EXCLUDE_KERNEL },
	{ "cpu/event=60/k",			4, 0x3c, 0, KPROF_EV_F_EXCLUDE_USER },
	{ "cpu/event=0xd1,umask=0x2,cmask=3,inv/uk", 4, 0xd1 | 0x200 | 3ULL << 24 | 1ULL << 23, 0, 0 },
	{ "cpu/inv=1,cmask=0xff/",		4, 0xffULL << 24 | 1ULL << 23, 0, 0 },
	{ "cpu/cpu-cycles/",			4, 0x3c, 0, 0 },
	{ "cpu/ref-cycles/",			4, 0x300, 0, 0 },
	{ "cpu/cache-misses/",			4, 0x412e, 0, 0 },
	/* a later term replaces the bits an earlier one set */
	{ "cpu/cache-misses,umask=0x42/",	4, 0x422e, 0, 0 },
	{ "cpu/umask=0x42,cache-misses/",	4, 0x412e, 0, 0 },
	{ "cpu/event=0x3c,event=0x2e/",		4, 0x2e, 0, 0 },
	{ "cpu/config=0x1234,inv/",		4, 0x1234 | 1ULL << 23, 0, 0 },
	{ "cpu/event=0x3c,config=0x5/",		4, 0x5, 0, 0 },
	{ "cpu/mem-loads/",			4, 0x1cd, 3, 0 },
	{ "cpu/ldlat=0xffff/",			4, 0, 0xffff, 0 },
	{ "cpu/config1=7,config2=9/",		4, 0, 7, 0 },
	{ "cpu//",				4, 0, 0, 0 },
	/* split fields: the low 8 bits of umask in 8-15, the next 4 in 32-35 */
	{ "cpu_core/event=0xc0,umask=0x1ff/",	4, 0xc0 | 0xff00 | 1ULL << 32, 0, 0 },
	{ "cpu_core/umask=0xfff/",		4, 0xff00 | 0xfULL << 32, 0, 0 },
	{ "cpu_core/umask=0xa05/",		4, 0x0500 | 0xaULL << 32, 0, 0 },
	{ "msr/tsc/",				11, 0, 0, 0 },
	{ "msr/aperf/",				11, 1, 0, 0 },
	{ "msr/smi/u",				11, 4, 0, KPROF_EV_F_EXCLUDE_KERNEL },
	{ "msr/event=0xffffffffffffffff/",	11, UINT64_MAX, 0, 0 },
	{ "uprobe/retprobe/",			7, 1, 0, 0 },
	{ "uprobe/ref_ctr_offset=0x10,retprobe=0/", 7, 0x10ULL << 32, 0, 0 },
	{ "software/config=3/",			1, 3, 0, 0 },
	{ "breakpoint/config=0x1000/",		5, 0x1000, 0, 0 },
};

static void test_attrs(void)
{
	struct kp_pmu_attr a;
	struct kp_err err;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(attrs); i++) {
		const struct attr_case *c = &attrs[i];
		int ret = kp_events__pmu_attr(c->item, &a, &err);

		if (!ok(!ret && a.type == c->type && a.config[0] == c->config &&
			a.config[1] == c->config1 && a.flags == c->flags,
			"%s: type %u config %#llx config1 %#llx", c->item, c->type,
			(unsigned long long)c->config, (unsigned long long)c->config1))
			diag("got %d (%s): type %u config %#llx config1 %#llx flags %u", ret,
			     ret ? err.msg : "", a.type, (unsigned long long)a.config[0],
			     (unsigned long long)a.config[1], a.flags);
	}
	ok(!kp_events__pmu_attr("cpu/config1=7,config2=9/", &a, &err) && a.config[2] == 9 &&
	   !strcmp(a.setter[1], "config1") && !strcmp(a.setter[2], "config2"),
	   "config2= sets config2, each word knows its term");
	ok(!kp_events__pmu_attr("cpu/mem-loads/", &a, &err) && !strcmp(a.setter[1], "ldlat"),
	   "an alias's config1 bits are its ldlat term's");
	ok(!kp_events__pmu_attr("cpu/event=1,period=100003,name=ld/", &a, &err) &&
	   a.period == 100003 && !strcmp(a.name, "ld") && !a.freq, "period= and name=");
	ok(!kp_events__pmu_attr("cpu/event=1,freq=999/", &a, &err) && a.freq == 999 && !a.period,
	   "freq=");

	ok(kp_events__pmu_prefix("cpu/event=1/") == 3 && kp_events__pmu_prefix("cpu_core/x/") == 8,
	   "prefix: PMU names");
	ok(!kp_events__pmu_prefix("mem:0x10/8") && !kp_events__pmu_prefix("cycles") &&
	   !kp_events__pmu_prefix("/x/") && !kp_events__pmu_prefix("sched:*"),
	   "prefix: mem:, names, a leading slash and tracepoints are no PMU syntax");
}

/* Parse @arg as a one-event list. */
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

static void test_events(void)
{
	struct kp_event evs[KPROF_MAX_EVENTS];
	unsigned int nr = 0;
	struct kp_event ev;
	struct kp_err err;

	ok(!kp_events__parse(evs, &nr, "cpu/event=0x3c,umask=0x01/u,cs,cpu_core/umask=0x1ff/",
				  true, NULL, 0, &err) && nr == 3,
	   "a list: the PMU event's commas are its terms'");
	ok(evs[0].type == PERF_TYPE_RAW && evs[0].config == 0x13c &&
	   evs[0].flags == KPROF_EV_F_EXCLUDE_KERNEL && !evs[0].period &&
	   !strcmp(evs[0].name, "cpu/event=0x3c,umask=0x01/u"),
	   "cpu/event=0x3c,umask=0x01/u: raw 0x13c in user space, named as spelled");
	ok(evs[1].type == PERF_TYPE_SOFTWARE && !strcmp(evs[1].name, "cs"), "then cs");
	ok(evs[2].type == PERF_TYPE_RAW && evs[2].config == (0xff00 | 1ULL << 32),
	   "then cpu_core's split umask");
	nr = 0;
	ok(!kp_events__parse(evs, &nr, "mem:0x1000/8,cpu/ref-cycles/,mem:0x2000/4:w", true,
			     NULL, 0, &err) && nr == 3 && evs[0].type == PERF_TYPE_BREAKPOINT &&
	   evs[0].bp_len == 8 && evs[1].config == 0x300 && evs[2].config == 0x2000,
	   "mem:ADDR/LEN around a PMU event");

	ok(!parse1("cpu/event=0x3c,period=100003,name=loads/k", &ev, &err) &&
	   ev.period == 100003 && !strcmp(ev.name, "loads") && ev.flags == KPROF_EV_F_EXCLUDE_USER,
	   "period= is the event's period, name= its name");
	ok(!parse1("software/config=3/", &ev, &err) && ev.type == PERF_TYPE_SOFTWARE &&
	   ev.config == PERF_COUNT_SW_CONTEXT_SWITCHES, "software/config=3/ is cs");

	is_int(parse1("msr/tsc/", &ev, &err), -EOPNOTSUPP, "a dynamic PMU refused");
	is_str(err.msg, "event 'msr/tsc/': PMU 'msr' has the dynamic type 11, which the kprof module does not open (only hardware, software, cache and raw types)",
	       "dynamic PMU: named with its type");
	is_int(parse1("cpu/mem-loads/", &ev, &err), -EOPNOTSUPP, "config1 refused");
	is_str(err.msg, "event 'cpu/mem-loads/': term 'ldlat' sets config1, which kprof cannot send (its events carry config only)",
	       "config1: the alias's term named");
	is_int(parse1("cpu/event=1,config2=0x10/", &ev, &err), -EOPNOTSUPP, "config2 refused");
	is_str(err.msg, "event 'cpu/event=1,config2=0x10/': term 'config2' sets config2, which kprof cannot send (its events carry config only)",
	       "config2: named");
	ok(!parse1("cpu/event=1,config1=0/", &ev, &err) && ev.config == 1,
	   "config1=0 needs nothing sent: accepted");
	is_int(parse1("cpu/event=1,freq=1000/", &ev, &err), -EOPNOTSUPP, "freq= refused");
	is_str(err.msg, "event 'cpu/event=1,freq=1000/': kprof has no per-event frequency (freq=): use -F for the session, or period=",
	       "freq=: message");
	is_int(parse1("tracepoint/config=5/", &ev, &err), -EOPNOTSUPP, "tracepoint PMU refused");
	is_str(err.msg, "event 'tracepoint/config=5/': give a tracepoint as SYSTEM:EVENT (see 'kprofctl list tracepoint')",
	       "tracepoint PMU: points at SYSTEM:EVENT");
	is_int(parse1("breakpoint/config=0x1000/", &ev, &err), -EOPNOTSUPP, "breakpoint PMU refused");
	is_str(err.msg, "event 'breakpoint/config=0x1000/': give a breakpoint as mem:ADDR[/LEN][:rwx]",
	       "breakpoint PMU: points at mem:");
}

struct err_case {
	const char	*item;
	int		ret;
	const char	*msg;
};

static const struct err_case errs[] = {
	{ "nosuch/event=1/", -ENOENT,
	  "unknown PMU 'nosuch' in event 'nosuch/event=1/' (see 'kprofctl list pmu')" },
	{ "../event=1/", -ENOENT,
	  "unknown PMU '..' in event '../event=1/' (see 'kprofctl list pmu')" },
	{ "cpu/frob=1/", -EINVAL,
	  "unknown term 'frob' of PMU 'cpu' in event 'cpu/frob=1/' (terms: cmask, event, inv, ldlat, umask, config, config1, config2, period, freq, name; events: 'kprofctl list pmu')" },
	{ "msr/nosuch/", -EINVAL,
	  "unknown term 'nosuch' of PMU 'msr' in event 'msr/nosuch/' (terms: event, config, config1, config2, period, freq, name; events: 'kprofctl list pmu')" },
	{ "software/event=1/", -EINVAL,
	  "unknown term 'event' of PMU 'software' in event 'software/event=1/' (terms: config, config1, config2, period, freq, name; events: 'kprofctl list pmu')" },
	{ "cpu/event=0x100/", -ERANGE,
	  "value '0x100' of term 'event' in event 'cpu/event=0x100/' does not fit its 8 bits (at most 0xff)" },
	{ "cpu/inv=2/", -ERANGE,
	  "value '2' of term 'inv' in event 'cpu/inv=2/' does not fit its 1 bit (at most 0x1)" },
	{ "cpu_core/umask=0x1000/", -ERANGE,
	  "value '0x1000' of term 'umask' in event 'cpu_core/umask=0x1000/' does not fit its 12 bits (at most 0xfff)" },
	{ "cpu/event=0x10000000000000000/", -ERANGE,
	  "value '0x10000000000000000' of term 'event' in event 'cpu/event=0x10000000000000000/' does not fit 64 bits" },
	{ "cpu/event=zz/", -EINVAL,
	  "bad value 'zz' of term 'event' in event 'cpu/event=zz/' (a decimal or 0x hexadecimal number)" },
	{ "cpu/event=-1/", -EINVAL,
	  "bad value '-1' of term 'event' in event 'cpu/event=-1/' (a decimal or 0x hexadecimal number)" },
	{ "cpu/event=/", -EINVAL, "missing value of term 'event' in event 'cpu/event=/'" },
	{ "cpu/=1/", -EINVAL, "bad term name '' in event 'cpu/=1/'" },
	{ "cpu/ev ent=1/", -EINVAL, "bad term name 'ev ent' in event 'cpu/ev ent=1/'" },
	{ "cpu/event=1,,umask=1/", -EINVAL, "empty term in event 'cpu/event=1,,umask=1/'" },
	{ "cpu/event=1,/", -EINVAL, "empty term in event 'cpu/event=1,/'" },
	{ "cpu/event=1", -EINVAL,
	  "missing '/' after the terms of PMU event 'cpu/event=1' (PMU/term=value,.../)" },
	{ "cpu/event=1,umask=2", -EINVAL,
	  "missing '/' after the terms of PMU event 'cpu/event=1,umask=2' (PMU/term=value,.../)" },
	{ "cpu/event=1/p", -EINVAL,
	  "unsupported modifier 'p' in event 'cpu/event=1/p' (only u and k after the last '/')" },
	{ "cpu/event=1/:u", -EINVAL,
	  "unsupported modifier ':' in event 'cpu/event=1/:u' (only u and k after the last '/')" },
	{ "cpu/cpu-cycles=1/", -EINVAL,
	  "event alias 'cpu-cycles' takes no value ('1') in event 'cpu/cpu-cycles=1/'" },
	{ "cpu/offcore/", -EOPNOTSUPP,
	  "alias 'offcore' of event 'cpu/offcore/' leaves term 'umask' to the user (umask=?), which kprof does not support" },
	{ "cpu/event=1,period=0/", -ERANGE,
	  "term 'period' in event 'cpu/event=1,period=0/' is out of range 1..4611686018427387904" },
	{ "cpu/event=1,period/", -EINVAL, "missing value of term 'period' in event 'cpu/event=1,period/'" },
	{ "cpu/name=/", -EINVAL, "missing value of term 'name' in event 'cpu/name=/'" },
	{ "cpu/event=0x3c,umask=0x01,cmask=0x01,inv,event=0x3c,umask=0x01,cmask=1/", -EINVAL,
	  "event name 'cpu/event=0x3c,umask=0x01,cmask=0x01,inv,event=0x3c,umask=0x01,cmask=1/' is too long (at most 63 characters)" },
};

static void test_errors(void)
{
	struct kp_event ev;
	struct kp_err err;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(errs); i++) {
		const struct err_case *c = &errs[i];

		is_int(parse1(c->item, &ev, &err), c->ret, "%s refused", c->item);
		is_str(err.msg, c->msg, "%s: the message names it", c->item);
	}
	ok(!parse1("cpu/event=0x3c,umask=0x01,cmask=0x01,inv,event=0x3c,umask=0x01,name=x/", &ev, &err) &&
	   !strcmp(ev.name, "x"), "a long spelling with a short name= is fine");
}

/* A sysfs tree the kernel would not make: malformed type and format files. */
static void test_bad_sysfs(void)
{
	struct kp_event ev;
	struct kp_err err;
	char saved[64];

	snprintf(saved, sizeof(saved), "%s", root);
	tmpdir__create(root, sizeof(root));
	kp_sysroot = root;
	pmu_file("odd", "type", "4\n");
	pmu_file("odd", "format/back", "config:7-3\n");
	pmu_file("odd", "format/word", "config9:0-1\n");
	pmu_file("odd", "format/wide", "config:0-64\n");
	pmu_file("odd", "format/open", "config:0-\n");
	pmu_file("broken", "type", "four\n");

	is_int(parse1("odd/back=1/", &ev, &err), -EINVAL, "a backwards range refused");
	is_str(err.msg, "malformed format 'config:7-3' of term 'back' of PMU 'odd' in sysfs (config:BITS[,BITS])",
	       "a backwards range: the file named");
	is_int(parse1("odd/word=1/", &ev, &err), -EINVAL, "an unknown word refused");
	is_int(parse1("odd/wide=1/", &ev, &err), -EINVAL, "bit 64 refused");
	is_int(parse1("odd/open=1/", &ev, &err), -EINVAL, "an open range refused");
	is_int(parse1("broken/config=1/", &ev, &err), -EINVAL, "a bad type file refused");
	is_str(err.msg, "cannot read the type of PMU 'broken' in sysfs: not a number",
	       "a bad type file: named");
	tmpdir__remove(root);
	snprintf(root, sizeof(root), "%s", saved);
	kp_sysroot = root;
}

static const char list_pmu_out[] =
	"\n"
	"List of pre-defined events (to be used in -e):\n"
	"\n"
	"  breakpoint                                         [Kernel PMU, type 5]\n"
	"  cpu                                                [Kernel PMU, type 4]\n"
	"  cpu/cache-misses/                                  [Kernel PMU event]\n"
	"  cpu/cpu-cycles/                                    [Kernel PMU event]\n"
	"  cpu/mem-loads/                                     [Kernel PMU event]\n"
	"  cpu/offcore/                                       [Kernel PMU event]\n"
	"  cpu/ref-cycles/                                    [Kernel PMU event]\n"
	"  cpu_core                                           [Kernel PMU, type 4]\n"
	"  msr                                                [Kernel PMU, type 11]\n"
	"  msr/aperf/                                         [Kernel PMU event]\n"
	"  msr/mperf/                                         [Kernel PMU event]\n"
	"  msr/smi/                                           [Kernel PMU event]\n"
	"  msr/tsc/                                           [Kernel PMU event]\n"
	"  software                                           [Kernel PMU, type 1]\n"
	"  tracepoint                                         [Kernel PMU, type 2]\n"
	"  uprobe                                             [Kernel PMU, type 7]\n"
	"\n";

static void test_list(void)
{
	const char *pmu, *cache, *raw;
	struct run r;

	kprofctl(&r, "list", "pmu", NULL);
	is_int(r.rc, 0, "list pmu: exit 0");
	is_str(r.out, list_pmu_out, "list pmu: each PMU with its type, then its events, sorted");
	is_str(r.err, "", "list pmu: nothing on stderr");
	run_free(&r);

	kprofctl(&r, "list", "pmu", "msr/*", NULL);
	is_str(r.out, "\nList of pre-defined events (to be used in -e):\n\n"
	       "  msr/aperf/                                         [Kernel PMU event]\n"
	       "  msr/mperf/                                         [Kernel PMU event]\n"
	       "  msr/smi/                                           [Kernel PMU event]\n"
	       "  msr/tsc/                                           [Kernel PMU event]\n\n",
	       "list pmu 'msr/*': msr's events");
	run_free(&r);

	kprofctl(&r, "list", "*cycles*", NULL);
	ok(r.rc == 0 && strstr(r.out, "  cpu/cpu-cycles/                                    [Kernel PMU event]\n") &&
	   strstr(r.out, "  cpu/ref-cycles/ ") && strstr(r.out, "  cpu-cycles OR cycles ") &&
	   !strstr(r.out, "msr/"), "list '*cycles*': the hardware events and the cpu aliases");
	run_free(&r);

	kprofctl(&r, "list", NULL);
	cache = strstr(r.out, "[Hardware cache event]");
	pmu = strstr(r.out, "  cpu/cpu-cycles/ ");
	raw = strstr(r.out, "  rNNN ");
	ok(r.rc == 0 && cache && pmu && raw && cache < pmu && pmu < raw &&
	   strstr(r.out, "  msr/tsc/                                           [Kernel PMU event]\n") &&
	   strstr(r.out, "  uprobe                                             [Kernel PMU, type 7]\n"),
	   "list: the Kernel PMU events between the cache events and rNNN, as perf has them");
	ok(!strstr(r.out, "no hardware PMU"), "list: the cpu PMU is a hardware PMU");
	ok(!strstr(r.out, "mem-loads.scale"), "list: an event's .scale file is no event");
	run_free(&r);

	kprofctl(&r, "list", "sw", NULL);
	ok(r.rc == 0 && !strstr(r.out, "Kernel PMU"), "list sw: no PMUs");
	run_free(&r);
}

/* 'kprofctl list pmu' on this host lists what its sysfs has. */
static void test_host(void)
{
	const char *dir = "/sys/bus/event_source/devices";
	char line[600], path[600];
	struct dirent *de, *ee;
	unsigned int nr = 0, nr_ev = 0, lines = 0;
	const char *p;
	struct run r;
	DIR *d, *e;

	kp_sysroot = "";
	d = opendir(dir);
	if (!d) {
		diag("skipped: no %s on this host", dir);
		return;
	}
	kprofctl(&r, "list", "pmu", NULL);
	is_int(r.rc, 0, "host: list pmu exits 0");
	ok(strstr(r.out, "\n  software ") && strstr(r.out, "\n  tracepoint "),
	   "host: software and tracepoint listed");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		nr++;
		snprintf(line, sizeof(line), "\n  %-50s [Kernel PMU", de->d_name);
		if (!ok(strstr(r.out, line), "host: PMU %s listed", de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s/events", dir, de->d_name);
		e = opendir(path);
		while (e && (ee = readdir(e))) {
			if (ee->d_name[0] == '.' || strchr(ee->d_name, '.'))
				continue;
			nr_ev++;
			snprintf(line, sizeof(line), "\n  %s/%s/ ", de->d_name, ee->d_name);
			ok(strstr(r.out, line), "host: event %s/%s/ listed", de->d_name, ee->d_name);
		}
		if (e)
			closedir(e);
	}
	closedir(d);
	for (p = r.out; (p = strchr(p, '\n')); p++)
		if (p[1] == ' ')
			lines++;
	is_int(lines, nr + nr_ev, "host: one line per PMU and per event, no more (%u PMUs)", nr);
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	kp_sysroot = root;
	make_tree();

	test_attrs();
	test_events();
	test_errors();
	test_bad_sysfs();
	test_list();
	tmpdir__remove(root);
	test_host();
	return done_testing();
}
