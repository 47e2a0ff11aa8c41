// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl exporter' against the fake module: the exposition of a
 * running session (its counters, losses by cause, per-CPU samples), of an
 * idle module and of no module, each checked by Debian's real 'promtool
 * check metrics'; and bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static char root[64];

/* promtool check metrics on @text: its exit code (-1: cannot run it). */
static int promtool(const char *text, const char *what)
{
	char path[128], cmd[256];
	int rc;

	snprintf(path, sizeof(path), "%s/metrics.txt", root);
	tmpdir__write(root, "metrics.txt", text);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s > %s/promtool.out 2>&1", path, root);
	rc = system(cmd);
	if (rc) {
		snprintf(cmd, sizeof(cmd), "sed 's/^/# promtool (%s): /' %s/promtool.out", what, root);
		if (system(cmd))
			diag("promtool failed");
	}
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static void test_running(void)
{
	struct run r;

	fake_kprof__reset();
	fake.status.nr_cpus = 2;
	fake.status.online_cpus = 2;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.status.sessions = 3;
	fake.session_id = 3;
	fake.stats.v[KP_STAT_INVOCATIONS] = 10;
	fake.stats.v[KP_STAT_SAMPLES] = 7;
	fake.stats.v[KP_STAT_LOST_FULL] = 2;
	fake.stats.v[KP_STAT_HANDLER_NS] = 2500000000ULL;
	fake.stats.has_nested = true;	/* the fake sends the ABI 1.1 counters with it */
	fake.stats.lost_recursion = 1;
	fake.cpu_stats[0].v[KP_STAT_SAMPLES] = 4;
	fake.cpu_stats[1].v[KP_STAT_SAMPLES] = 3;
	fake.cpu_stats[1].v[KP_STAT_LOST_FULL] = 2;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 1\n"), "exporter --once: kprof_up 1");
	ok(strstr(r.out, "kprof_module_info{release=\"0.1.0\",abi=\"1.7\",kernel=\"6.1.0-test\"} 1\n") != NULL,
	   "kprof_module_info: release, ABI and kernel as labels");
	ok(strstr(r.out, "kprof_session_state{state=\"running\"} 1\n") &&
	   strstr(r.out, "kprof_session_state{state=\"idle\"} 0\n") &&
	   strstr(r.out, "\nkprof_sessions_total 3\n"), "the session's state, sessions started");
	ok(strstr(r.out, "\nkprof_samples_total 7\n") && strstr(r.out, "\nkprof_invocations_total 10\n"),
	   "kprof_samples_total and kprof_invocations_total: the session's totals");
	ok(strstr(r.out, "kprof_lost_samples_total{cause=\"buffer_full\"} 2\n") &&
	   strstr(r.out, "kprof_lost_samples_total{cause=\"recursion\"} 1\n") &&
	   strstr(r.out, "kprof_lost_samples_total{cause=\"cost_cap\"} 0\n"),
	   "kprof_lost_samples_total by cause");
	ok(strstr(r.out, "\nkprof_handler_seconds_total 2.5\n") != NULL,
	   "kprof_handler_seconds_total: nanoseconds as seconds");
	ok(strstr(r.out, "kprof_cpu_samples_total{cpu=\"0\"} 4\n") &&
	   strstr(r.out, "kprof_cpu_samples_total{cpu=\"1\"} 3\n") &&
	   strstr(r.out, "kprof_cpu_lost_samples_total{cpu=\"1\"} 2\n"), "per-CPU samples and losses");
	ok(strstr(r.out, "# TYPE kprof_samples_total counter\n") != NULL, "counters are typed");
	is_int(promtool(r.out, "running"), 0, "promtool check metrics: the running session's exposition");
	run_free(&r);

	fake.status.state = KPROF_STATE_IDLE;
	fake.session_id = 0;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprof_session_state{state=\"idle\"} 1\n") &&
	   !strstr(r.out, "kprof_samples_total"), "an idle module: its state, no session counters");
	is_int(promtool(r.out, "idle"), 0, "promtool check metrics: the idle module's");
	run_free(&r);

	fake.loaded = false;
	kprofctl(&r, "exporter", "--once", NULL);
	ok(r.rc == 0 && strstr(r.out, "\nkprof_up 0\n") && !strstr(r.out, "kprof_module_info"),
	   "no module: kprof_up 0 and nothing else");
	is_int(promtool(r.out, "no module"), 0, "promtool check metrics: kprof_up 0");
	run_free(&r);
}

static void test_bad(void)
{
	static const char * const bad[] = { "9464", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:65536",
					    "localhost:9464", "[::1:9464", "1.2.3.4:x" };
	unsigned int i;
	struct run r;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		kprofctl(&r, "exporter", "--listen", bad[i], NULL);
		snprintf(want, sizeof(want), "bad --listen '%s'", bad[i]);
		ok(r.rc == 2 && strstr(r.err, want), "exporter --listen %s: named, exit 2", bad[i]);
		run_free(&r);
	}
	kprofctl(&r, "exporter", "--help", NULL);
	ok(r.rc == 0 && strstr(r.out, "kprofctl exporter [--listen <addr>:<port>]"), "exporter --help");
	run_free(&r);
	kprofctl(&r, "exporter", "extra", NULL);
	ok(r.rc == 2, "exporter with an argument: a usage error");
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	if (system("command -v promtool >/dev/null 2>&1"))
		diag("promtool is missing: tools/deps.sh installs prometheus");
	test_running();
	test_bad();
	return done_testing();
}
