/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofctl commands.  Each lives in builtin-<name>.c, owns its option
 * table and usage text, and is listed in commands[] in kprofctl.c.
 *
 * A command gets its arguments with argv[0] set to its name and returns
 * the process exit code (KP_EXIT_* in lib/util.h).
 *
 * Adding a command:
 *  - builtin-<name>.c with cmd_<name>(), its struct option table and usage
 *    (the Makefile picks up every builtin-*.c), declared below and listed
 *    in commands[] in kprofctl.c;
 *  - for a new netlink command: its reply attributes in kp_reply_policy and
 *    kp_attr_names and a kp_nl__<name>() in lib/proto.c, and the fake
 *    module's answer in tests/fake-nl.c;
 *  - CLI tests in tests/test-kprofctl.c (every tests/test-*.c is run).
 */
#ifndef KPROFCTL_BUILTIN_H
#define KPROFCTL_BUILTIN_H

#include <stdio.h>

struct cmd_struct {
	const char	*name;
	int		(*fn)(int argc, const char **argv);
	const char	*summary;	/* one line for 'kprofctl help' */
};

int cmd_annotate(int argc, const char **argv);
int cmd_buildid_cache(int argc, const char **argv);
int cmd_convert(int argc, const char **argv);
int cmd_diff(int argc, const char **argv);
int cmd_dump(int argc, const char **argv);
int cmd_flamegraph(int argc, const char **argv);
int cmd_folded(int argc, const char **argv);
int cmd_pprof(int argc, const char **argv);
int cmd_exporter(int argc, const char **argv);
int cmd_help(int argc, const char **argv);
int cmd_list(int argc, const char **argv);
int cmd_latency(int argc, const char **argv);
int cmd_offcpu(int argc, const char **argv);
int cmd_lock(int argc, const char **argv);
int cmd_sched(int argc, const char **argv);
int cmd_record(int argc, const char **argv);
/*
 * 'kprofctl record' with the words of @pre (NULL-ended, e.g. "-e", EVENTS)
 * before the options given (@argv[1..]): the recording commands of 'sched'
 * and 'lock'.  -h/--help before any "--" prints @help instead.
 */
int cmd_record_with(int argc, const char **argv, const char * const *pre, const char *help,
		    const char *cmd);
int cmd_report(int argc, const char **argv);
/*
 * report's counting for top's full-screen view: entries of dso,symbol
 * with their callee graphs, as 'kprofctl report -g --sort dso,symbol'
 * counts and prints them; top__views() gives lib/tui.h's views of the
 * events (KPROF_MAX_EVENTS at most) that have samples: how many, or -errno.
 */
struct report;
struct kp_resolved;
struct kp_tui_view;
struct report *report__top_new(void);
int report__top_add(struct report *rep, const struct kp_resolved *s);
int report__top_views(struct report *rep, const char * const *names, unsigned int nr_events,
		      const char *more, struct kp_tui_view *views);
void report__top_delete(struct report *rep);
int cmd_script(int argc, const char **argv);
int cmd_start(int argc, const char **argv);
int cmd_stat(int argc, const char **argv);
int cmd_status(int argc, const char **argv);
int cmd_stop(int argc, const char **argv);
int cmd_rotate(int argc, const char **argv);
int cmd_daemon(int argc, const char **argv);
int cmd_top(int argc, const char **argv);
int cmd_version(int argc, const char **argv);

/* "kprofctl ARGV..." into @buf (kprof.data's command line), cut to fit. */
void kp_join_cmdline(char *buf, size_t len, int argc, const char **argv);

/* Command table access, in kprofctl.c. */
const struct cmd_struct *kprofctl__find_command(const char *name);
/* Print the global usage and the command list. */
void kprofctl__usage(FILE *fp);
/* Print the unknown-command error (and a suggestion); returns the exit code. */
int kprofctl__unknown_command(const char *name);
/* Close matches of @name, at most @max; returns how many were stored. */
int kprofctl__suggest(const char *name, const struct cmd_struct **out, int max);

#endif /* KPROFCTL_BUILTIN_H */
