/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprofctl option parsing, modelled on tools/perf's parse-options.
 *
 * Every builtin describes its options in a struct option table ending with
 * OPT_END() and calls parse_options().  -h/--help is implicit.  Long
 * options take "--name value" or "--name=value"; short ones "-n value" or
 * "-nvalue", and flag-like short options can be bundled ("-ab").  Booleans
 * can be negated with --no-name.  "--" ends the options.
 *
 * --list-opts, when the table has no such option, is a hidden -h/--help
 * for shell completion: it prints the long options, one a line, "--name="
 * for those taking a value, and parse_options() returns PARSE_OPT_HELP.
 *
 * Do not include <getopt.h> next to this header: both define struct option.
 */
#ifndef KPROFCTL_PARSE_OPTIONS_H
#define KPROFCTL_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

enum parse_opt_type {
	OPTION_END,
	OPTION_BOOLEAN,		/* bool *; --no-NAME clears it */
	OPTION_INCR,		/* int *; every occurrence adds one */
	OPTION_INTEGER,		/* int * */
	OPTION_UINTEGER,	/* unsigned int * */
	OPTION_U64,		/* uint64_t * */
	OPTION_STRING,		/* const char ** */
	OPTION_CALLBACK,	/* ->callback(opt, arg, unset) with a value */
	OPTION_CALLBACK_OPTARG,	/* ... arg NULL without one: a value only as
				 * --name=value or -nvalue (perf's PARSE_OPT_OPTARG) */
};

struct option;

/* Return 0, or -EINVAL / -ERANGE to reject @arg. */
typedef int parse_opt_cb(const struct option *opt, const char *arg, bool unset);

struct option {
	enum parse_opt_type	type;
	int			short_name;	/* 0: none */
	const char		*long_name;	/* NULL: none */
	void			*value;
	const char		*argh;		/* value name in the help */
	const char		*help;
	parse_opt_cb		*callback;
};

/* Compile error when @v is not of type @type. */
#define OPT_CHECK_TYPE(v, type)	\
	((v) + KP_BUILD_BUG_ON_ZERO(!__builtin_types_compatible_p(__typeof__(v), type)))

#define OPT_END()	{ .type = OPTION_END }
#define OPT_BOOLEAN(s, l, v, h)	\
	{ .type = OPTION_BOOLEAN, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, bool *), .help = (h) }
#define OPT_INCR(s, l, v, h)	\
	{ .type = OPTION_INCR, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, int *), .help = (h) }
#define OPT_INTEGER(s, l, v, a, h)	\
	{ .type = OPTION_INTEGER, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, int *), .argh = (a), .help = (h) }
#define OPT_UINTEGER(s, l, v, a, h)	\
	{ .type = OPTION_UINTEGER, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, unsigned int *), .argh = (a), .help = (h) }
#define OPT_U64(s, l, v, a, h)	\
	{ .type = OPTION_U64, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, uint64_t *), .argh = (a), .help = (h) }
#define OPT_STRING(s, l, v, a, h)	\
	{ .type = OPTION_STRING, .short_name = (s), .long_name = (l), \
	  .value = OPT_CHECK_TYPE(v, const char **), .argh = (a), .help = (h) }
#define OPT_CALLBACK(s, l, v, a, h, cb)	\
	{ .type = OPTION_CALLBACK, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h), .callback = (cb) }

#define OPT_CALLBACK_OPTARG(s, l, v, a, h, cb)	\
	{ .type = OPTION_CALLBACK_OPTARG, .short_name = (s), .long_name = (l), \
	  .value = (v), .argh = (a), .help = (h), .callback = (cb) }

/* parse_options() flags */
#define PARSE_OPT_STOP_AT_NON_OPTION	(1 << 0)	/* options precede arguments */
#define PARSE_OPT_KEEP_DASHDASH		(1 << 1)	/* leave "--" in the arguments */

/* parse_options() results besides an argument count */
#define PARSE_OPT_HELP			(-1)	/* usage was printed on stdout */
#define PARSE_OPT_ERROR			(-2)	/* an error line was printed */

/*
 * Parse argv[1..argc-1]; argv[0] is the command name used in messages
 * ("kprofctl: status: unknown option '--jsn'").  The non-option arguments
 * are moved to argv[0..n-1], argv[n] is set to NULL, and n is returned.
 *
 * @usagestr: the usage lines ("kprofctl status [<options>]"), then
 * optionally "" and description lines, then NULL.
 */
int parse_options(int argc, const char **argv, const struct option *options,
		  const char * const *usagestr, int flags);

/* Print the usage and the option list. */
void usage_with_options(FILE *fp, const char * const *usagestr,
			const struct option *options);

/* Print the long options, one a line, as --list-opts does. */
void list_options(FILE *fp, const struct option *options);

/* Exit code for a negative parse_options() result. */
static inline int parse_options_exit_code(int ret)
{
	return ret == PARSE_OPT_HELP ? KP_EXIT_OK : KP_EXIT_USAGE;
}

/*
 * Refuse more than @max non-option arguments: print
 * "kprofctl: CMD: unexpected argument 'ARG'" and return -1; else 0.
 */
int parse_options_max_args(const char *cmd, int argc, const char **argv, int max);

#endif /* KPROFCTL_PARSE_OPTIONS_H */
