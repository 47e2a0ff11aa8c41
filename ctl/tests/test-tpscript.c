// SPDX-License-Identifier: GPL-2.0
/*
 * Golden tests of 'kprofctl script' and 'kprofctl dump' on a recording of
 * tracepoints (tests/tp-record.h): perf script's text of every raw record
 * (tests/golden/script-tp.txt) and its fields (dump-tp.txt), byte for
 * byte, decoded from the formats the recording keeps while tracefs is
 * unavailable; a version 1 recording (no formats) decoded with tracefs's,
 * and without them; 'kprofctl record' of tracepoints (against the fake
 * module) stores their formats.  KP_UPDATE_GOLDEN=1 rewrites the golden
 * files.
 */
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lib/ring.h"
#include "lib/rundir.h"
#include "lib/sys.h"
#include "lib/tracefs.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"
#include "tp-record.h"

static char root[64], data[256], old[256], events[256], kallsyms[256];

static void script(struct run *r, const char *file, const char *cmd)
{
	if (!strcmp(cmd, "script"))
		kprofctl(r, cmd, "-i", file, "--kallsyms", kallsyms, NULL);
	else
		kprofctl(r, cmd, "-i", file, NULL);
}

static void test_stored(void)
{
	struct run r;

	/* The recording keeps its formats: no tracefs needed. */
	kp_tracefs_root = "/nonexistent/kprof/events";
	script(&r, data, "script");
	run_golden("script-tp.txt", &r);
	ok(strstr(r.out, "sched:sched_switch: prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n") &&
	   strstr(r.out, "irq:irq_handler_entry: irq=19 name=virtio0\n") &&
	   strstr(r.out, "block:block_rq_issue: 8,16 WS 4096 () 2048 + 8 [kworker/1:1H]\n"),
	   "script: perf script's text (irq=, name=, prev_comm= as the guest's tests grep)");
	run_free(&r);
	script(&r, data, "dump");
	run_golden("dump-tp.txt", &r);
	ok(strstr(r.out, "# tp_format[0]: 1489 bytes\n") && !strstr(r.out, "# tp_format[5]"),
	   "dump: the stored formats in the header");
	run_free(&r);
	kprofctl(&r, "dump", "-i", data, "--json", "--header-only", NULL);
	ok(r.rc == 0 && strstr(r.out, "\"tp_formats\":[{\"event\":0,\"size\":1489},"),
	   "dump --json: the stored formats");
	run_free(&r);
}

static void test_old(void)
{
	struct run r;
	char *want;

	/* Version 1, no formats: tracefs's, as before. */
	kp_tracefs_root = events;
	script(&r, old, "script");
	want = tmpdir__slurp("tests/golden/script-tp.txt", NULL);
	ok(r.rc == 0 && want && !strcmp(r.out, want),
	   "a recording without formats: decoded with tracefs's, the same");
	free(want);
	run_free(&r);
	kprofctl(&r, "dump", "-i", old, "--header-only", NULL);
	ok(r.rc == 0 && strstr(r.out, "# version: 1\n") && !strstr(r.out, "# tp_format"),
	   "a recording without formats is version 1");
	run_free(&r);

	/* Neither: the samples, without their records. */
	kp_tracefs_root = "/nonexistent/kprof/events";
	script(&r, old, "script");
	ok(r.rc == 0 && !*r.err &&
	   strstr(r.out, "    sched:sched_switch:\n") && !strstr(r.out, "prev_comm="),
	   "no formats and no tracefs: the samples without their records");
	run_free(&r);
	script(&r, old, "dump");
	ok(r.rc == 0 && strstr(r.out, "... raw: size=64\n") && !strstr(r.out, "..... prev_comm"),
	   "dump: the raw size, no fields");
	run_free(&r);
}

/* 'record -e sched:sched_switch -e irq:irq_handler_entry': the formats stored. */
static void test_record(void)
{
	char dev[256], out[256], rundir[256], want[64];
	struct run r;
	uint32_t vdso_size;

	run_machine(root, "0", dev, rundir, sizeof(dev));
	snprintf(out, sizeof(out), "%s/rec.data", root);
	fake_kprof__reset();
	fake.status.nr_cpus = 1;
	fake.status.online_cpus = 1;
	fake.device_path = dev;
	kp_tracefs_root = events;
	kprofctl(&r, "record", "-o", out, "--buffer-size", "8K", "-e", "sched:sched_switch",
		 "-e", "irq:irq_handler_entry", "-e", "cpu-clock",
		 "--", "true", NULL);
	ok(r.rc == 0, "record of tracepoints: exit 0");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	kp_tracefs_root = "/nonexistent/kprof/events";
	kprofctl(&r, "dump", "-i", out, "--header-only", NULL);
	snprintf(want, sizeof(want), "# tp_format[1]: %zu bytes\n", sizeof(tp_irq_entry_format));
	/* version 4 with this kernel's vDSO image, else 3 */
	ok(r.rc == 0 && strstr(r.out, kp_vdso__self(&vdso_size) ? "# version: 4\n" : "# version: 3\n") &&
	   strstr(r.out, "# tp_format[0]: 1489 bytes\n") && strstr(r.out, want) &&
	   !strstr(r.out, "# tp_format[2]"), "record stores the formats of its tracepoints");
	run_free(&r);
	kp_sysroot = "";
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	tp_fake__create(root);
	snprintf(events, sizeof(events), "%s/events", root);
	snprintf(data, sizeof(data), "%s/tp.data", root);
	snprintf(old, sizeof(old), "%s/old.data", root);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
	tmpdir__write(root, "kallsyms", "ffffffff81234000 T __schedule\nffffffff81235000 T schedule\n");
	tpr__write(data, true);
	tpr__write(old, false);

	test_stored();
	test_old();
	test_record();

	kp_tracefs_root = NULL;
	tmpdir__remove(root);
	return done_testing();
}
