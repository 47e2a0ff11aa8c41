// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl option parsing; see parse-options.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "parse-options.h"
#include "util.h"

/* Width of the option column in the usage. */
#define USAGE_OPTS_WIDTH	24
#define USAGE_GAP		2

/* parse_long()'s answer to --list-opts, turned into PARSE_OPT_HELP */
#define PARSE_OPT_LIST_OPTS	(-3)

struct parse_ctx {
	const char		*cmd;
	const struct option	*options;
	int			argc;
	const char		**argv;
	int			idx;		/* argument being parsed */
};

static bool takes_value(const struct option *opt)
{
	switch (opt->type) {
	case OPTION_INTEGER:
	case OPTION_UINTEGER:
	case OPTION_U64:
	case OPTION_STRING:
	case OPTION_CALLBACK:
	case OPTION_CALLBACK_OPTARG:
		return true;
	default:
		return false;
	}
}

static const struct option *find_long(const struct option *opt, const char *name,
				      size_t len)
{
	for (; opt->type != OPTION_END; opt++)
		if (opt->long_name && strlen(opt->long_name) == len &&
		    !strncmp(opt->long_name, name, len))
			return opt;
	return NULL;
}

static const struct option *find_short(const struct option *opt, int c)
{
	for (; opt->type != OPTION_END; opt++)
		if (opt->short_name == c)
			return opt;
	return NULL;
}

static const char *bad_value_reason(int err)
{
	return err == -ERANGE ? ": out of range" : ": not a number";
}

/* Store @arg into @opt; @name is the option as the user spelled it. */
static int apply_option(struct parse_ctx *ctx, const struct option *opt,
			const char *name, const char *arg, bool unset)
{
	int ret = 0;

	switch (opt->type) {
	case OPTION_BOOLEAN:
		*(bool *)opt->value = !unset;
		return 0;
	case OPTION_INCR:
		if (unset)
			*(int *)opt->value = 0;
		else
			(*(int *)opt->value)++;
		return 0;
	case OPTION_STRING:
		*(const char **)opt->value = arg;
		return 0;
	case OPTION_INTEGER:
		ret = kp_parse_int(arg, opt->value);
		break;
	case OPTION_UINTEGER:
		ret = kp_parse_uint(arg, opt->value);
		break;
	case OPTION_U64:
		ret = kp_parse_u64(arg, opt->value);
		break;
	case OPTION_CALLBACK:
	case OPTION_CALLBACK_OPTARG:
		ret = opt->callback(opt, arg, unset);
		if (ret < 0) {
			if (!arg)
				kp_error(ctx->cmd, "option '%s' needs a value", name);
			else
				kp_error(ctx->cmd, "invalid value '%s' for option '%s'%s", arg,
					 name, ret == -ERANGE ? ": out of range" : "");
			return PARSE_OPT_ERROR;
		}
		return 0;
	case OPTION_END:
		break;
	}
	if (ret) {
		kp_error(ctx->cmd, "invalid value '%s' for option '%s'%s", arg, name,
			 bad_value_reason(ret));
		return PARSE_OPT_ERROR;
	}
	return 0;
}

/* The next argument as the value of @name, or an error. */
static const char *next_value(struct parse_ctx *ctx, const char *name)
{
	if (ctx->idx + 1 >= ctx->argc) {
		kp_error(ctx->cmd, "option '%s' requires a value", name);
		return NULL;
	}
	return ctx->argv[++ctx->idx];
}

/* @arg is "--name" or "--name=value". */
static int parse_long(struct parse_ctx *ctx, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '='), *value = NULL;
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *opt;
	bool unset = false;
	char spelled[128];

	snprintf(spelled, sizeof(spelled), "--%.*s", (int)len, name);
	if (eq)
		value = eq + 1;

	opt = find_long(ctx->options, name, len);
	if (!opt && len > 3 && !strncmp(name, "no-", 3)) {
		opt = find_long(ctx->options, name + 3, len - 3);
		if (opt && opt->type != OPTION_BOOLEAN && opt->type != OPTION_INCR)
			opt = NULL;
		unset = true;
	}
	if (!opt) {
		if (len == 4 && !strncmp(name, "help", 4)) {
			if (!value)
				return PARSE_OPT_HELP;
			kp_error(ctx->cmd, "option '%s' takes no value", spelled);
			return PARSE_OPT_ERROR;
		}
		if (len == 9 && !strncmp(name, "list-opts", 9) && !value)
			return PARSE_OPT_LIST_OPTS;
		kp_error(ctx->cmd, "unknown option '%s'", spelled);
		return PARSE_OPT_ERROR;
	}

	if (opt->type == OPTION_CALLBACK_OPTARG) {
		/* the value, if any, after '=' */
	} else if (!takes_value(opt)) {
		if (value) {
			kp_error(ctx->cmd, "option '%s' takes no value", spelled);
			return PARSE_OPT_ERROR;
		}
	} else if (!value) {
		value = next_value(ctx, spelled);
		if (!value)
			return PARSE_OPT_ERROR;
	}
	return apply_option(ctx, opt, spelled, value, unset);
}

/* @arg is "-abc" or "-nVALUE". */
static int parse_short(struct parse_ctx *ctx, const char *arg)
{
	const struct option *opt;
	const char *p, *value;
	char spelled[3] = "-";
	int ret;

	for (p = arg + 1; *p; p++) {
		spelled[1] = *p;
		opt = find_short(ctx->options, (unsigned char)*p);
		if (!opt) {
			if (*p == 'h')
				return PARSE_OPT_HELP;
			kp_error(ctx->cmd, "unknown option '%s'", spelled);
			return PARSE_OPT_ERROR;
		}
		if (opt->type == OPTION_CALLBACK_OPTARG)
			return apply_option(ctx, opt, spelled, p[1] ? p + 1 : NULL, false);
		if (!takes_value(opt)) {
			ret = apply_option(ctx, opt, spelled, NULL, false);
			if (ret)
				return ret;
			continue;
		}
		/* The rest of the bundle, or the next argument, is the value. */
		value = p[1] ? p + 1 : next_value(ctx, spelled);
		if (!value)
			return PARSE_OPT_ERROR;
		return apply_option(ctx, opt, spelled, value, false);
	}
	return 0;
}

void list_options(FILE *fp, const struct option *options)
{
	const struct option *opt;

	for (opt = options; opt->type != OPTION_END; opt++)
		if (opt->long_name)
			fprintf(fp, "--%s%s\n", opt->long_name,
				takes_value(opt) && opt->type != OPTION_CALLBACK_OPTARG ? "=" : "");
	if (!find_long(options, "help", 4))
		fputs("--help\n", fp);
}

int parse_options(int argc, const char **argv, const struct option *options,
		  const char * const *usagestr, int flags)
{
	struct parse_ctx ctx = {
		.cmd = argv[0],
		.options = options,
		.argc = argc,
		.argv = argv,
	};
	int nargs = 0, ret;

	for (ctx.idx = 1; ctx.idx < argc; ctx.idx++) {
		const char *arg = argv[ctx.idx];

		/* "-" alone is an argument (stdin), not an option. */
		if (arg[0] != '-' || !arg[1]) {
			if (flags & PARSE_OPT_STOP_AT_NON_OPTION)
				break;
			argv[nargs++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			if (!(flags & PARSE_OPT_KEEP_DASHDASH))
				ctx.idx++;
			break;
		}
		ret = arg[1] == '-' ? parse_long(&ctx, arg) : parse_short(&ctx, arg);
		if (ret == PARSE_OPT_HELP)
			usage_with_options(stdout, usagestr, options);
		if (ret == PARSE_OPT_LIST_OPTS) {
			list_options(stdout, options);
			return PARSE_OPT_HELP;
		}
		if (ret < 0)
			return ret;
	}
	/* Everything after "--" or the first argument is an argument. */
	for (; ctx.idx < argc; ctx.idx++)
		argv[nargs++] = argv[ctx.idx];
	argv[nargs] = NULL;
	return nargs;
}

int parse_options_max_args(const char *cmd, int argc, const char **argv, int max)
{
	if (argc <= max)
		return 0;
	kp_error(cmd, "unexpected argument '%s'", argv[max]);
	return -1;
}

static void print_option(FILE *fp, int short_name, const char *long_name,
			 const char *argh, bool has_value, bool optarg, const char *help)
{
	int pos = fprintf(fp, "    ");

	if (short_name)
		pos += fprintf(fp, "-%c%s", short_name, long_name ? ", " : "");
	else
		pos += fprintf(fp, "    ");
	if (long_name)
		pos += fprintf(fp, "--%s", long_name);
	if (optarg)
		pos += fprintf(fp, long_name ? "[=<%s>]" : "[<%s>]", argh ? argh : "n");
	else if (has_value)
		pos += fprintf(fp, long_name ? "=<%s>" : " <%s>", argh ? argh : "n");

	if (pos + USAGE_GAP > USAGE_OPTS_WIDTH) {
		fputc('\n', fp);
		pos = 0;
	}
	fprintf(fp, "%*s%s\n", USAGE_OPTS_WIDTH - pos, "", help ? help : "");
}

void usage_with_options(FILE *fp, const char * const *usagestr,
			const struct option *options)
{
	const struct option *opt;

	fprintf(fp, "Usage: %s\n", *usagestr++);
	while (*usagestr && **usagestr)
		fprintf(fp, "   or: %s\n", *usagestr++);
	if (*usagestr) {
		/* Skip the "" separator; the rest is the description. */
		usagestr++;
		fputc('\n', fp);
		for (; *usagestr; usagestr++)
			fprintf(fp, "%s%s\n", **usagestr ? "    " : "", *usagestr);
	}
	fputc('\n', fp);

	for (opt = options; opt->type != OPTION_END; opt++)
		print_option(fp, opt->short_name, opt->long_name, opt->argh,
			     takes_value(opt), opt->type == OPTION_CALLBACK_OPTARG, opt->help);
	if (!find_long(options, "help", 4))
		print_option(fp, find_short(options, 'h') ? 0 : 'h', "help", NULL,
			     false, false, "show this help");
}
