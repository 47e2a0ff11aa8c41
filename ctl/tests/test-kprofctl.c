// SPDX-License-Identifier: GPL-2.0
/*
 * End-to-end tests of the kprofctl CLI: kprofctl.c (with main() renamed
 * kprofctl_main) and every builtin, against the fake module of
 * tests/fake-nl.c.  Checks exact output lines and exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "capture.h"
#include "fake-nl.h"
#include "lib/rundir.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "tap.h"

#define VERSION_LINE	"kprofctl " KPROF_VERSION " (ABI " KP_TEST_ABI ")\n"

static void test_dispatch(void)
{
	struct run r, u;

	kprofctl(&u, NULL);
	is_int(u.rc, KP_EXIT_FAILURE, "no command: exit 1");
	ok(!strncmp(u.out, "Usage: kprofctl ", 16), "no command: usage on stdout");
	ok(strstr(u.out, "\n    status         Show the state of kprof.ko\n") &&
	   strstr(u.out, "\n    version        ") && strstr(u.out, "\n    help           ") &&
	   strstr(u.out, "\n    buildid-cache  Manage "),
	   "no command: lists every command");
	is_str(u.err, "", "no command: nothing on stderr");

	kprofctl(&r, "--help", NULL);
	ok(r.rc == 0 && !strcmp(r.out, u.out) && !r.err[0], "--help: same list, exit 0");
	run_free(&r);
	kprofctl(&r, "-h", NULL);
	ok(r.rc == 0 && !strcmp(r.out, u.out), "-h: same list, exit 0");
	run_free(&r);
	kprofctl(&r, "help", NULL);
	ok(r.rc == 0 && !strcmp(r.out, u.out), "help: same list, exit 0");
	run_free(&r);
	run_free(&u);

	kprofctl(&r, "xyzzy", NULL);
	is_int(r.rc, 1, "unknown command: exit 1");
	is_str(r.err, "kprofctl: 'xyzzy' is not a kprofctl command. See 'kprofctl --help'.\n",
	       "unknown command: one line, no suggestion");
	is_str(r.out, "", "unknown command: nothing on stdout");
	run_free(&r);

	kprofctl(&r, "stauts", NULL);
	is_str(r.err, "kprofctl: 'stauts' is not a kprofctl command. See 'kprofctl --help'.\n"
		      "Did you mean 'status'?\n", "typo: transposition suggested");
	run_free(&r);
	kprofctl(&r, "verison", "--json", NULL);
	ok(r.rc == 1 && strstr(r.err, "Did you mean 'version'?\n"), "typo: version suggested");
	run_free(&r);
	kprofctl(&r, "ver", NULL);
	ok(r.rc == 1 && strstr(r.err, "Did you mean 'version'?\n"),
	   "prefix: suggested, not run (no abbreviations)");
	run_free(&r);
	kprofctl(&r, "x", NULL);
	ok(r.rc == 1 && !strstr(r.err, "Did you mean"), "one letter: no suggestion");
	run_free(&r);
	kprofctl(&r, "STATUS", NULL);
	ok(r.rc == 1 && strstr(r.err, "'STATUS' is not a kprofctl command"),
	   "commands are case-sensitive");
	run_free(&r);
	kprofctl(&r, "help", "xyzzy", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: 'xyzzy' is not a kprofctl command. "
				       "See 'kprofctl --help'.\n"), "help foo: unknown command");
	run_free(&r);

	kprofctl(&r, "--bogus", "status", NULL);
	is_int(r.rc, KP_EXIT_USAGE, "unknown global option: exit 2");
	is_str(r.err, "kprofctl: unknown option '--bogus'. See 'kprofctl --help'.\n",
	       "unknown global option: one line");
	run_free(&r);
	kprofctl(&r, "-x", NULL);
	is_str(r.err, "kprofctl: unknown option '-x'. See 'kprofctl --help'.\n",
	       "unknown short global option");
	run_free(&r);

	{
		const struct cmd_struct *m[4];

		is_int(kprofctl__suggest("statsu", m, 4), 1, "suggest: statsu");
		is_int(kprofctl__suggest("zzzzzz", m, 4), 0, "suggest: nothing close");
		is_int(kprofctl__suggest("hepl", m, 4), 1, "suggest: hepl");
		is_str(m[0]->name, "help", "suggest: hepl -> help");
		ok(kprofctl__find_command("status") && !kprofctl__find_command("statu"),
		   "find_command: exact names only");
	}
}

/* "kprofctl CMD --help" and "kprofctl help CMD" print the same usage. */
static void test_command_help(const char *cmd)
{
	struct run a, b, c;
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "Usage: kprofctl %s", cmd);
	kprofctl(&a, cmd, "--help", NULL);
	kprofctl(&b, "help", cmd, NULL);
	kprofctl(&c, "-h", cmd, NULL);
	is_int(a.rc, 0, "%s --help: exit 0", cmd);
	ok(!strncmp(a.out, prefix, strlen(prefix)), "%s --help: usage on stdout", cmd);
	ok(strstr(a.out, "    -h, --help          show this help\n"), "%s --help: lists -h", cmd);
	is_str(a.err, "", "%s --help: nothing on stderr", cmd);
	ok(b.rc == 0 && !strcmp(a.out, b.out), "help %s: same usage", cmd);
	ok(c.rc == 0 && !strcmp(a.out, c.out), "-h %s: same usage", cmd);
	run_free(&a);
	run_free(&b);
	run_free(&c);
}

/*
 * The completion helpers: --list-cmds names every command of the usage,
 * and each command (and sched's and lock's subcommands) answers
 * --list-opts with its long options, --help last, and exit 0.
 */
static void test_list(void)
{
	struct run cmds, u, r, subs, h;
	char line[64], *name, *save = NULL, *sub, *save2;

	kprofctl(&cmds, "--list-cmds", NULL);
	kprofctl(&u, "--help", NULL);
	is_int(cmds.rc, 0, "--list-cmds: exit 0");
	ok(!strncmp(cmds.out, "record\n", 7) && strstr(cmds.out, "\nhelp\n"),
	   "--list-cmds: one name a line");
	for (name = strtok_r(cmds.out, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		snprintf(line, sizeof(line), "\n    %-12s", name);
		ok(strstr(u.out, line), "--list-cmds: %s is in the usage", name);
		fake.nr_requests = 0;
		kprofctl(&r, name, "--list-opts", NULL);
		ok(r.rc == 0 && !r.err[0] && !fake.nr_requests &&
		   strlen(r.out) >= 7 && !strcmp(r.out + strlen(r.out) - 7, "--help\n"),
		   "%s --list-opts: exit 0, ends with --help, asks the module nothing", name);
		run_free(&r);
		if (strcmp(name, "sched") && strcmp(name, "lock"))
			continue;
		kprofctl(&subs, name, "--list-cmds", NULL);
		is_int(subs.rc, 0, "%s --list-cmds: exit 0", name);
		for (sub = strtok_r(subs.out, "\n", &save2); sub; sub = strtok_r(NULL, "\n", &save2)) {
			snprintf(line, sizeof(line), "kprofctl %s %s ", name, sub);
			kprofctl(&h, name, sub, "--help", NULL);
			ok(h.rc == 0 && strstr(h.out, line), "%s %s --help: its usage", name, sub);
			run_free(&h);
			kprofctl(&r, name, sub, "--list-opts", NULL);
			ok(r.rc == 0 && !r.err[0] && strstr(r.out, "--help\n"),
			   "%s %s --list-opts: exit 0", name, sub);
			run_free(&r);
		}
		run_free(&subs);
	}
	run_free(&cmds);
	run_free(&u);

	kprofctl(&r, "--list-opts", NULL);
	ok(r.rc == 0 && !strcmp(r.out, "--debug\n--version\n--help\n"),
	   "--list-opts: the global options");
	run_free(&r);

	kprofctl(&r, "record", "--list-opts", NULL);
	ok(strstr(r.out, "\n--freq=\n") && strstr(r.out, "\n--all-cpus\n"),
	   "record --list-opts: --freq= and --all-cpus");
	run_free(&r);
}

/* A usage error of a builtin: exit 2, exactly @line on stderr. */
static void check_usage_error(const char *line, const char *desc, ...)
{
	struct run r;
	va_list ap;

	fake.nr_requests = 0;
	va_start(ap, desc);
	run_va(&r, NULL, 0, ap);
	va_end(ap);
	is_int(r.rc, KP_EXIT_USAGE, "%s: exit 2", desc);
	is_str(r.err, line, "%s: error line", desc);
	ok(!r.out[0] && !fake.nr_requests, "%s: no output, no request", desc);
	run_free(&r);
}

static void test_options(void)
{
	fake_kprof__reset();
	check_usage_error("kprofctl: status: unknown option '--jsn'\n", "status --jsn",
			  "status", "--jsn", NULL);
	check_usage_error("kprofctl: status: unknown option '-j'\n", "status -j",
			  "status", "-j", NULL);
	check_usage_error("kprofctl: status: option '--json' takes no value\n", "status --json=yes",
			  "status", "--json=yes", NULL);
	check_usage_error("kprofctl: status: unexpected argument 'extra'\n", "status extra",
			  "status", "extra", NULL);
	check_usage_error("kprofctl: status: unexpected argument 'a'\n", "status --json a",
			  "status", "--json", "a", NULL);
	check_usage_error("kprofctl: version: unknown option '--jason'\n", "version --jason",
			  "version", "--jason", NULL);
	check_usage_error("kprofctl: version: unexpected argument 'now'\n", "version now",
			  "version", "now", NULL);
	check_usage_error("kprofctl: help: unexpected argument 'version'\n", "help status version",
			  "help", "status", "version", NULL);
	check_usage_error("kprofctl: help: unknown option '--all'\n", "help --all",
			  "help", "--all", NULL);
	check_usage_error("kprofctl: version: unknown option '--jsn'\n", "-v --jsn",
			  "-v", "--jsn", NULL);
}

static const char status_text[] =
	"state:     idle\n"
	"module:    kprof.ko 0.1.0 (ABI " KP_TEST_ABI ") on 6.1.0-test\n"
	"cpus:      4 possible, 4 online\n"
	"sessions:  0 started\n"
	"readers:   0 open\n"
	"uptime:    1h 02m 03s\n";

static void test_status(void)
{
	char want[64], line[192];
	uint64_t up;
	struct run r;
	char *p;

	fake_kprof__reset();
	fake.loaded = false;
	kprofctl(&r, "status", NULL);
	is_int(r.rc, 1, "status, not loaded: exit 1");
	is_str(r.err, "kprofctl: kprof module not loaded (insmod kprof.ko)\n",
	       "status, not loaded: the one line");
	is_str(r.out, "", "status, not loaded: nothing on stdout");
	run_free(&r);
	kprofctl(&r, "status", "--json", NULL);
	ok(r.rc == 1 && !r.out[0] && strstr(r.err, "not loaded"),
	   "status --json, not loaded: error, no JSON");
	run_free(&r);

	fake_kprof__reset();
	kprofctl(&r, "status", NULL);
	is_int(r.rc, 0, "status: exit 0");
	is_str(r.out, status_text, "status: text");
	is_str(r.err, "", "status: nothing on stderr");
	ok(fake.last_cmd == KPROF_CMD_STATUS && fake.nr_requests == 2,
	   "status: VERSION handshake, then STATUS");
	run_free(&r);

	fake.status.state = KPROF_STATE_RUNNING;
	fake.status.sessions = 12345678901ULL;
	fake.status.readers = 2;
	fake.status.online_cpus = 3;
	fake.status.loaded_ns = fake.now_ns - 90061ULL * 1000000000ULL;
	kprofctl(&r, "status", NULL);
	ok(strstr(r.out, "state:     running\n") && strstr(r.out, "sessions:  12345678901 started\n") &&
	   strstr(r.out, "readers:   2 open\n") && strstr(r.out, "cpus:      4 possible, 3 online\n") &&
	   strstr(r.out, "uptime:    1d 01h 01m 01s\n"), "status: running values");
	run_free(&r);

	fake.status.state = 7;
	fake.status.loaded_ns = fake.now_ns + 1;
	kprofctl(&r, "status", NULL);
	ok(strstr(r.out, "state:     unknown (7)\n") &&
	   strstr(r.out, "uptime:    unknown (clock mismatch)\n"),
	   "status: unknown state, load time in the future");
	run_free(&r);

	/* JSON, with a deterministic (unknown) uptime. */
	fake_kprof__reset();
	fake.release = "0.1.0-\"rc\"\n";
	fake.status.loaded_ns = UINT64_MAX;
	kprofctl(&r, "status", "--json", NULL);
	is_int(r.rc, 0, "status --json: exit 0");
	is_str(r.out, "{\"state\":\"idle\",\"state_id\":1,\"release\":\"0.1.0-\\\"rc\\\"\\n\","
		      "\"abi\":{\"major\":1,\"minor\":" KP_TEST_STR(KPROF_ABI_MINOR) "},\"kernel\":\"6.1.0-test\","
		      "\"cpus_possible\":4,\"cpus_online\":4,\"sessions\":0,\"readers\":0,"
		      "\"loaded_ns\":18446744073709551615,\"uptime_ns\":null,\"session_table\":[],\"counting_sessions\":[],"
		      "\"session\":null}\n",
	       "status --json: one escaped JSON object");
	run_free(&r);

	/* ABI 1.10: every session the module holds, one line each */
	fake_kprof__reset();
	fake.nr_table = 2;
	fake.table[0] = (struct kp_session_row){ .id = 3, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_SYSTEM_WIDE, .uid = 0,
		.nr_events = 1, .start_ns = fake.now_ns - 61ULL * 1000000000ULL };
	fake.table[0].stats.agg[KP_AGG_STAT_SAMPLES] = 4242;
	fake.table[0].stats.has_agg = true;
	fake.table[1] = (struct kp_session_row){ .id = 5, .state = KPROF_STATE_STOPPED,
		.flags = KPROF_SESSION_F_STREAM | KPROF_SESSION_F_OWNED, .owner_pid = 999999999,
		.uid = 1000, .nr_events = 2, .start_ns = fake.now_ns - 2000000000ULL };
	fake.table[1].stats.v[KP_STAT_SAMPLES] = 99;
	fake.table[0].mem = 18ULL << 20;
	fake.table[1].mem = 4ULL << 20;
	fake.status.has_budget = true;
	fake.status.mem = 22ULL << 20;
	fake.status.budget = 256ULL << 20;
	fake.table[1].stats.v[KP_STAT_LOST_FULL] = 7;
	/* ABI 1.14: a kprofctl stat beside them, this process (its name shown) */
	fake.status.nr_counts = 1;
	fake.status.counts[0] = (struct kp_count_row){ .id = 2, .state = KPROF_STATE_RUNNING,
		.flags = KPROF_SESSION_F_SYSTEM_WIDE, .owner_pid = getpid(), .uid = 0,
		.nr_events = 3, .start_ns = fake.now_ns - 3000000000ULL, .mem = 2048 };
	snprintf(want, sizeof(want), "pid %d (%.15s)", (int)getpid(), program_invocation_short_name);
	snprintf(line, sizeof(line), "    c2  running  counting          %-22s      0      3           3s"
		 "      0.0M            -          -\n", want);
	kprofctl(&r, "status", NULL);
	is_int(r.rc, 0, "status, two sessions: exit 0");
	ok(strstr(r.out, "\n    ID  STATE    MODE              OWNER                     UID EVENTS      STARTED"
			 "    MEMORY      SAMPLES       LOST\n"
			 "     3  running  aggregate         detached                    0      1       1m 01s"
			 "     18.0M         4242          0\n"
			 "     5  stopped  stream            pid 999999999            1000      2           2s"
			 "      4.0M           99          7\n") &&
	   strstr(r.out, line) &&
	   strstr(r.out, "memory:    22.0M of the sessions' budget of 256.0M\n") &&
	   fake.nr_requests == 2,
	   "status, two sessions and a counting one: one line each, from the one STATUS");
	if (!strstr(r.out, line))
		diag("no line '%s' in:\n%s", line, r.out);
	run_free(&r);
	kprofctl(&r, "status", "--json", NULL);
	ok(strstr(r.out, "\"session_table\":[{\"id\":3,\"state\":\"running\",") &&
	   strstr(r.out, "{\"id\":5,\"state\":\"stopped\",") &&
	   strstr(r.out, "\"owner_pid\":999999999,\"uid\":1000,\"nr_events\":2,") &&
	   strstr(r.out, "\"counting_sessions\":[{\"id\":2,\"state\":\"running\",\"flags\":8,"
			 "\"flag_names\":\"system-wide\","),
	   "status --json, two sessions and a counting one: session_table, counting_sessions");
	run_free(&r);

	/* session 3 is a daemon's (its state in the run directory): one line more */
	{
		struct kp_daemon_state d = {
			.pid = getpid(), .session_id = 3, .interval_ms = 60000, .intervals = 43,
			.saved = 42, .not_saved = 1, .removed = 2, .last_seq = 43,
			.last_start_ns = 1796649300ULL * 1000000000ULL,
			.last_end_ns = 1796649360ULL * 1000000000ULL, .last_samples = 4242,
			.spooled = 3,
		};
		const char *saved_rundir = kp_rundir;
		char rundir[64];
		struct kp_err err;

		tmpdir__create(rundir, sizeof(rundir));
		kp_rundir = rundir;
		snprintf(d.formats, sizeof(d.formats), "kprof,pprof");
		snprintf(d.dir, sizeof(d.dir), "/var/lib/kprof/profiles");
		snprintf(d.upload, sizeof(d.upload), "http://127.0.0.1:4040");
		ok(!kp_rundir__write_daemon(&d, &err), "a daemon's state written");
		kprofctl(&r, "status", NULL);
		ok(strstr(r.out, "session 3: kprofctl daemon (pid ") &&
		   strstr(r.out, "), 60 s intervals into /var/lib/kprof/profiles (kprof,pprof): 42 saved, "
				 "1 not saved, 2 removed; last 43: 2026-12-07 13:15:00 to 13:16:00 UTC, "
				 "4242 samples; upload to http://127.0.0.1:4040: 3 waiting\n"),
		   "status: the daemon's line under its session");
		run_free(&r);
		kprofctl(&r, "status", "--json", NULL);
		ok(strstr(r.out, "\"daemon\":{\"pid\":") &&
		   strstr(r.out, "\"saved\":42,\"not_saved\":1,\"removed\":2,\"last_seq\":43,") &&
		   strstr(r.out, "\"upload\":\"http://127.0.0.1:4040\",\"upload_waiting\":3}"),
		   "status --json: the daemon's object in its session's row");
		run_free(&r);
		d.pid = 999999999;
		kp_rundir__write_daemon(&d, &err);
		kprofctl(&r, "status", NULL);
		ok(!strstr(r.out, "kprofctl daemon"), "status: a daemon that is gone is not shown");
		run_free(&r);
		kp_rundir__remove_daemon(3);
		tmpdir__remove(rundir);
		kp_rundir = saved_rundir;
	}

	fake_kprof__reset();
	fake.now_ns += 5;
	kprofctl(&r, "status", "--json", NULL);
	p = strstr(r.out, "\"uptime_ns\":");
	ok(p && sscanf(p, "\"uptime_ns\":%" SCNu64 "}", &up) == 1 &&
	   up == 3723ULL * 1000000000ULL + 5,
	   "status --json: uptime_ns from LOADED_NS and the monotonic clock");
	run_free(&r);

	/* Errors from the module. */
	fake_kprof__reset();
	fake.privileged = false;
	kprofctl(&r, "status", NULL);
	is_int(r.rc, 1, "status, unprivileged: exit 1");
	is_str(r.err, "kprofctl: status: Operation not permitted: kprof status needs CAP_PERFMON "
		      "(try sudo)\n",
	       "status, unprivileged: extack and hint");
	is_str(r.out, "", "status, unprivileged: nothing on stdout");
	run_free(&r);

	fake_kprof__reset();
	fake.abi = 2 << 16;
	fake.release = "2.0.0";
	kprofctl(&r, "status", NULL);
	is_int(r.rc, 1, "status, ABI mismatch: exit 1");
	is_str(r.err, "kprofctl: status: ABI mismatch: kprofctl " KPROF_VERSION " uses ABI " KP_TEST_ABI " "
		      "but kprof.ko 2.0.0 uses ABI 2.0; install matching versions\n",
	       "status, ABI mismatch: names both versions");
	ok(fake.last_cmd == KPROF_CMD_VERSION, "status, ABI mismatch: STATUS not sent");
	run_free(&r);

	fake_kprof__reset();
	fake.omit_attr = KPROF_A_STATUS_READERS;
	kprofctl(&r, "status", NULL);
	ok(r.rc == 1 && !strcmp(r.err, "kprofctl: status: malformed reply from kprof.ko: "
				       "KPROF_A_STATUS_READERS is missing\n"),
	   "status, malformed reply: one line");
	run_free(&r);

	fake_kprof__reset();
	fake.open_errno = EPROTONOSUPPORT;
	kprofctl(&r, "status", NULL);
	ok(r.rc == 1 && !strncmp(r.err, "kprofctl: status: cannot open a generic netlink socket: ", 56),
	   "status, socket error: one line naming the command");
	run_free(&r);
}

static void test_version(void)
{
	char want[96];
	struct run r;

	fake_kprof__reset();
	fake.loaded = false;
	kprofctl(&r, "version", NULL);
	is_int(r.rc, 0, "version, not loaded: exit 0");
	is_str(r.out, VERSION_LINE "kprof.ko: not loaded\n", "version, not loaded: output");
	is_str(r.err, "", "version, not loaded: nothing on stderr");
	run_free(&r);
	kprofctl(&r, "version", "--json", NULL);
	is_int(r.rc, 0, "version --json, not loaded: exit 0");
	is_str(r.out, "{\"kprofctl\":{\"version\":\"" KPROF_VERSION "\",\"abi\":{\"major\":1,"
		      "\"minor\":" KP_TEST_STR(KPROF_ABI_MINOR) "}},\"loaded\":false,\"module\":null}\n",
	       "version --json, not loaded");
	run_free(&r);

	fake_kprof__reset();
	kprofctl(&r, "version", NULL);
	is_int(r.rc, 0, "version: exit 0");
	is_str(r.out, VERSION_LINE "kprof.ko 0.1.0 (ABI " KP_TEST_ABI ") on 6.1.0-test\n",
	       "version: output");
	ok(fake.saw_abi && fake.saw_client, "version: sends ABI and client name");
	run_free(&r);
	kprofctl(&r, "-v", NULL);
	ok(r.rc == 0 && !strcmp(r.out, VERSION_LINE "kprof.ko 0.1.0 (ABI " KP_TEST_ABI ") on 6.1.0-test\n"),
	   "-v: same as version");
	run_free(&r);
	kprofctl(&r, "--debug", "--version", "--json", NULL);
	is_int(r.rc, 0, "--debug --version --json: exit 0");
	is_str(r.out, "{\"kprofctl\":{\"version\":\"" KPROF_VERSION "\",\"abi\":{\"major\":1,"
		      "\"minor\":" KP_TEST_STR(KPROF_ABI_MINOR) "}},\"loaded\":true,\"module\":{\"release\":\"0.1.0\","
		      "\"abi\":{\"major\":1,\"minor\":" KP_TEST_STR(KPROF_ABI_MINOR) "},\"kernel\":\"6.1.0-test\"}}\n",
	       "--version --json, loaded");
	run_free(&r);

	/* Version works for any user: no EPERM path, newer minor is fine. */
	fake.abi = KPROF_ABI_VERSION + 2;
	fake.privileged = false;
	kprofctl(&r, "version", NULL);
	snprintf(want, sizeof(want), "kprof.ko 0.1.0 (ABI %d.%d) on 6.1.0-test\n",
		 KPROF_ABI_MAJOR, KPROF_ABI_MINOR + 2);
	ok(r.rc == 0 && strstr(r.out, want), "version: newer minor, unprivileged");
	run_free(&r);

	fake_kprof__reset();
	fake.abi = 3 << 16 | 1;
	fake.release = "3.1.0";
	kprofctl(&r, "version", NULL);
	is_int(r.rc, 1, "version, ABI mismatch: exit 1");
	is_str(r.out, VERSION_LINE "kprof.ko 3.1.0 (ABI 3.1) on 6.1.0-test\n",
	       "version, ABI mismatch: both versions on stdout");
	is_str(r.err, "kprofctl: version: ABI mismatch: kprofctl " KPROF_VERSION " uses ABI " KP_TEST_ABI " "
		      "but kprof.ko 3.1.0 uses ABI 3.1; install matching versions\n",
	       "version, ABI mismatch: one error line");
	run_free(&r);

	fake_kprof__reset();
	fake.open_errno = ENOBUFS;
	kprofctl(&r, "version", NULL);
	ok(r.rc == 1 && !strcmp(r.out, VERSION_LINE) &&
	   !strncmp(r.err, "kprofctl: version: cannot open", 30),
	   "version, socket error: exit 1, own line still printed");
	run_free(&r);
}

static void test_write_error(void)
{
	struct capture c;
	int fd, rc;
	const char *argv[] = { "kprofctl", "version", NULL };

	fd = open("/dev/full", O_WRONLY);
	if (fd < 0) {
		ok(1, "# SKIP no /dev/full");
		return;
	}
	fake_kprof__reset();
	capture__start(&c);
	dup2(fd, STDOUT_FILENO);
	rc = kprofctl_main(2, (char **)argv);
	capture__stop(&c);
	close(fd);
	is_int(rc, 1, "write error: exit 1");
	is_str(c.err, "kprofctl: write error: No space left on device\n", "write error: reported");
	capture__free(&c);
}

int main(void)
{
	fake_kprof__reset();
	test_dispatch();
	test_command_help("status");
	test_command_help("version");
	test_command_help("help");
	test_list();
	test_options();
	test_status();
	test_version();
	test_write_error();
	return done_testing();
}
