/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run a kprofctl command line in the test process, through kprofctl.c's
 * main() (built as kprofctl_main()), against the fake module of
 * tests/fake-nl.c, and capture its exit status, stdout and stderr.
 *
 *	struct run r;
 *
 *	kprofctl(&r, "status", "--json", NULL);
 *	is_int(r.rc, 0, ...);
 *	is_str(r.out, ..., ...);
 *	run_free(&r);
 *
 * A command that leaves a netlink socket open is named in a diagnostic.
 */
#ifndef KPROFCTL_RUN_KPROFCTL_H
#define KPROFCTL_RUN_KPROFCTL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "fake-nl.h"
#include "lib/ring.h"
#include "lib/rundir.h"
#include "lib/sys.h"
#include "tap.h"
#include "tmpdir.h"

#define RUN_MAX_ARGS	64

int kprofctl_main(int argc, char **argv);

struct run {
	int	rc;
	char	*out;
	char	*err;
};

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Run "kprofctl ARGV[1]..." (@argc arguments, NULL after them). */
static inline void run_argv(struct run *r, int argc, const char **argv)
{
	struct capture c;

	capture__start(&c);
	r->rc = kprofctl_main(argc, (char **)argv);
	capture__stop(&c);
	r->out = c.out;
	r->err = c.err;
	if (fake.nr_open)
		diag("kprofctl %s left %d netlink sockets open", argc > 1 ? argv[1] : "",
		     fake.nr_open);
}

/* Run "kprofctl PRE... ARGS...": @nr_pre of @pre, then the NULL-terminated @ap. */
static inline void run_va(struct run *r, const char * const *pre, int nr_pre, va_list ap)
{
	const char *argv[RUN_MAX_ARGS + 1] = { "kprofctl" };
	const char *arg;
	int argc = 1, i;

	for (i = 0; i < nr_pre; i++)
		argv[argc++] = pre[i];
	while ((arg = va_arg(ap, const char *))) {
		if (argc == RUN_MAX_ARGS)
			abort();
		argv[argc++] = arg;
	}
	argv[argc] = NULL;
	run_argv(r, argc, argv);
}

/* Run "kprofctl ARGS..." (NULL-terminated). */
static inline void kprofctl(struct run *r, ...)
{
	va_list ap;

	va_start(ap, r);
	run_va(r, NULL, 0, ap);
	va_end(ap);
}

/*
 * Check that @r exited 0, said nothing on stderr and printed exactly
 * $KP_GOLDEN_DIR/@name (default tests/golden/@name); KP_UPDATE_GOLDEN=1
 * rewrites the file first.
 */
/*
 * A machine under @root for the commands that start sessions: the sample
 * rate limit 100000, the CPUs @possible ("0-1"), a software PMU, and
 * kprofctl's device and run directory, whose paths go to @dev and @rundir
 * (@len bytes each).
 */
static inline void run_machine(const char *root, const char *possible, char *dev, char *rundir,
			       size_t len)
{
	char text[64];

	snprintf(text, sizeof(text), "%s\n", possible);
	tmpdir__write(root, "proc/sys/kernel/perf_event_max_sample_rate", "100000\n");
	tmpdir__write(root, "sys/devices/system/cpu/possible", text);
	tmpdir__mkdir(root, "sys/bus/event_source/devices/software");
	snprintf(dev, len, "%s/dev-kprof", root);
	snprintf(rundir, len, "%s/run", root);
	kp_sysroot = root;
	kp_device_path = dev;
	kp_rundir = rundir;
}

static inline void run_golden(const char *name, const struct run *r)
{
	const char *dir = getenv("KP_GOLDEN_DIR") ? getenv("KP_GOLDEN_DIR") : "tests/golden";
	char path[512];
	char *want;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (getenv("KP_UPDATE_GOLDEN")) {
		fp = fopen(path, "w");
		if (!fp || fputs(r->out, fp) < 0 || fclose(fp))
			abort();
		diag("wrote %s", path);
	}
	want = tmpdir__slurp(path, NULL);
	ok(r->rc == 0, "%s: exit 0", name);
	is_str(r->err, "", "%s: nothing on stderr", name);
	if (!want) {
		ok(0, "%s: golden file %s exists", name, path);
		return;
	}
	if (!ok(!strcmp(r->out, want), "%s: output matches %s", name, path)) {
		const char *a = r->out, *b = want;
		int line = 1;

		while (*a && *a == *b) {
			line += *a == '\n';
			a++;
			b++;
		}
		diag("first difference at line %d", line);
		diag("got:      %.100s", a);
		diag("expected: %.100s", b);
	}
	free(want);
}

#endif /* KPROFCTL_RUN_KPROFCTL_H */
