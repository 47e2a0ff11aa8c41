// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl help [<command>]
 */
#include "builtin.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char * const help_usage[] = {
	"kprofctl help [<command>]",
	"",
	"Show the list of commands, or the usage of one command (the same as",
	"'kprofctl <command> --help').",
	NULL
};

int cmd_help(int argc, const char **argv)
{
	const struct option options[] = {
		OPT_END()
	};
	const char *cmd_argv[] = { NULL, "--help", NULL };
	const char *cmd_name = argv[0];
	const struct cmd_struct *cmd;

	argc = parse_options(argc, argv, options, help_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd_name, argc, argv, 1))
		return KP_EXIT_USAGE;

	if (!argc) {
		kprofctl__usage(stdout);
		return KP_EXIT_OK;
	}
	cmd = kprofctl__find_command(argv[0]);
	if (!cmd)
		return kprofctl__unknown_command(argv[0]);

	/* Let the command print its own usage. */
	cmd_argv[0] = cmd->name;
	return cmd->fn(2, cmd_argv);
}
