// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl - the control utility of kprof, the in-kernel profiler.
 *
 * One binary, one builtin-<name>.c per command, in the style of tools/perf.
 * main() handles the global options and hands the rest of the arguments,
 * starting with the command name, to the command.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/util.h"

static const struct cmd_struct commands[] = {
	{ "record",	cmd_record,	"Sample a command or the system into kprof.data" },
	{ "start",	cmd_start,	"Start a session recorded in the background" },
	{ "stat",	cmd_stat,	"Count events in a command or the system, as perf stat" },
	{ "stop",	cmd_stop,	"Stop the session and finish its file" },
	{ "rotate",	cmd_rotate,	"Save the current interval of a session started with --intervals" },
	{ "daemon",	cmd_daemon,	"Profile always: one profile per interval into a directory" },
	{ "status",	cmd_status,	"Show the state of kprof.ko" },
	{ "dump",	cmd_dump,	"Print the raw contents of kprof.data" },
	{ "list",	cmd_list,	"List the event names" },
	{ "latency",	cmd_latency,	"Histograms of kernel function latency, like funclatency" },
	{ "offcpu",	cmd_offcpu,	"Off-CPU time by stack, like offcputime" },
	{ "lock",	cmd_lock,	"Kernel lock contention, like perf lock contention" },
	{ "sched",	cmd_sched,	"Scheduler analysis: record, latency, map, timehist, runqlat" },
	{ "report",	cmd_report,	"Show where the samples are, with call graphs" },
	{ "script",	cmd_script,	"Print every sample with its call chain" },
	{ "annotate",	cmd_annotate,	"Show the samples of each instruction of the hottest symbols" },
	{ "folded",	cmd_folded,	"Print collapsed stacks, the input of flame graphs" },
	{ "pprof",	cmd_pprof,	"Write a pprof profile, for go tool pprof and Pyroscope" },
	{ "exporter",	cmd_exporter,	"Serve kprof.ko's health to Prometheus (/metrics)" },
	{ "top",	cmd_top,	"Show the hottest functions live, like perf top" },
	{ "flamegraph",	cmd_flamegraph,	"Draw an interactive SVG flame graph" },
	{ "diff",	cmd_diff,	"Compare two profiles: table or differential flame graph" },
	{ "buildid-cache", cmd_buildid_cache, "Manage the build-id cache of the recorded binaries" },
	{ "convert",	cmd_convert,	"Write a recording as a perf.data file for perf" },
	{ "version",	cmd_version,	"Show the versions of kprofctl and kprof.ko" },
	{ "help",	cmd_help,	"Show the commands, or the usage of one" },
};

const struct cmd_struct *kprofctl__find_command(const char *name)
{
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void kprofctl__usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"Usage: kprofctl [--debug] [--version] [--help] <command> [<args>]\n"
		"\n"
		"kprofctl controls kprof.ko, the kprof in-kernel profiler.\n"
		"\n"
		"Commands:\n");
	for (i = 0; i < KP_ARRAY_SIZE(commands); i++) {
		/* the column of the longest name, "buildid-cache", and two blanks */
		fprintf(fp, "    %-15s%s\n", commands[i].name, commands[i].summary);
	}
	fprintf(fp,
		"\n"
		"Options:\n"
		"    --debug             dump the netlink messages on stderr\n"
		"    -v, --version       same as 'kprofctl version'\n"
		"    -h, --help          show this help\n"
		"\n"
		"See 'kprofctl help <command>' or 'kprofctl <command> --help' for the\n"
		"usage of a command.\n"
		"\n"
		"Exit status: 0 on success, 1 on failure (e.g. kprof.ko not loaded),\n"
		"2 on a bad option or argument.\n");
}

/* Optimal string alignment distance (edit distance with transpositions). */
static int edit_distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), i, j;
	int d[32][32];

	if (la >= 32 || lb >= 32)
		return 32;
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			int v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

int kprofctl__suggest(const char *name, const struct cmd_struct **out, int max)
{
	int best = 3, n = 0, dist;
	size_t i, len = strlen(name);

	for (i = 0; i < KP_ARRAY_SIZE(commands); i++) {
		/* A prefix ("ver") is as good as one typo. */
		if (len >= 2 && !strncmp(commands[i].name, name, len))
			dist = 1;
		else
			dist = edit_distance(name, commands[i].name);
		/* At most two edits, and fewer than the name has letters. */
		if (dist > 2 || dist >= (int)len || dist > best)
			continue;
		if (dist < best) {
			best = dist;
			n = 0;
		}
		if (n < max)
			out[n++] = &commands[i];
	}
	return n;
}

int kprofctl__unknown_command(const char *name)
{
	const struct cmd_struct *similar[4];
	int i, n;

	kp_error(NULL, "'%s' is not a kprofctl command. See 'kprofctl --help'.", name);
	n = kprofctl__suggest(name, similar, KP_ARRAY_SIZE(similar));
	if (n) {
		fputs("Did you mean ", stderr);
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s'%s'", i ? (i == n - 1 ? " or " : ", ") : "",
				similar[i]->name);
		fputs("?\n", stderr);
	}
	return KP_EXIT_FAILURE;
}

static int run_command(int argc, const char **argv)
{
	const struct cmd_struct *cmd = kprofctl__find_command(argv[0]);

	if (!cmd)
		return kprofctl__unknown_command(argv[0]);
	return cmd->fn(argc, argv);
}

/*
 * Hidden, for shell completion and the man pages: the command names, one
 * a line (kprofctl --list-cmds); --list-opts lists the options of main()
 * below, as every command's --list-opts lists its own (parse-options.h).
 */
static void list_commands(void)
{
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(commands); i++)
		puts(commands[i].name);
}

int main(int argc, char **argv)
{
	const char **av = (const char **)argv + 1;
	int ac = argc - 1, ret;

	kp_debug = 0;
	for (; ac > 0 && av[0][0] == '-'; ac--, av++) {
		if (!strcmp(av[0], "-h") || !strcmp(av[0], "--help")) {
			av[0] = "help";
			break;
		}
		if (!strcmp(av[0], "-v") || !strcmp(av[0], "--version")) {
			av[0] = "version";
			break;
		}
		if (!strcmp(av[0], "--debug")) {
			kp_debug++;
			continue;
		}
		if (!strcmp(av[0], "--list-cmds")) {
			list_commands();
			return KP_EXIT_OK;
		}
		if (!strcmp(av[0], "--list-opts")) {
			fputs("--debug\n--version\n--help\n", stdout);
			return KP_EXIT_OK;
		}
		kp_error(NULL, "unknown option '%s'. See 'kprofctl --help'.", av[0]);
		return KP_EXIT_USAGE;
	}
	if (!ac) {
		kprofctl__usage(stdout);
		return KP_EXIT_FAILURE;
	}

	ret = run_command(ac, av);

	/* Report a failed write of the output, e.g. to a full disk. */
	if (fflush(stdout) || ferror(stdout)) {
		kp_error(NULL, "write error: %s", strerror(errno));
		return KP_EXIT_FAILURE;
	}
	return ret;
}
