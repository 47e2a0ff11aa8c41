// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/parse-options.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "lib/parse-options.h"
#include "tap.h"

static bool json;
static int verbose, nice_val, cb_calls;
static unsigned int cpu;
static uint64_t size;
static const char *name;
static char mode[16];
static char sw[16];

static int mode_cb(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	cb_calls++;
	if (!strcmp(arg, "huge"))
		return -ERANGE;
	if (strcmp(arg, "fast") && strcmp(arg, "slow"))
		return -EINVAL;
	snprintf(opt->value, sizeof(mode), "%s", arg);
	return 0;
}

/* An optional value: "(none)" without one, else the value; "bad" is refused. */
static int switch_cb(const struct option *opt, const char *arg, bool unset)
{
	if (arg && !strcmp(arg, "bad"))
		return -EINVAL;
	snprintf(opt->value, sizeof(sw), "%s", unset ? "(unset)" : arg ? arg : "(none)");
	return 0;
}

static const struct option options[] = {
	OPT_BOOLEAN('j', "json", &json, "print JSON"),
	OPT_INCR('v', "verbose", &verbose, "more output"),
	OPT_UINTEGER('c', "cpu", &cpu, "cpu", "CPU to profile"),
	OPT_INTEGER(0, "nice", &nice_val, "n", "niceness"),
	OPT_U64(0, "size", &size, "bytes", "buffer size"),
	OPT_STRING('o', "output", &name, "file", "output file"),
	OPT_CALLBACK(0, "mode", mode, "mode", "fast or slow", mode_cb),
	OPT_CALLBACK_OPTARG('s', "switch", sw, "when", "switch, now or when", switch_cb),
	OPT_END()
};

static const char * const usage[] = {
	"kprofctl test [<options>] [<args>...]",
	"kprofctl test --other",
	"",
	"Test the option parser.",
	NULL
};

struct result {
	int		ret;
	const char	*args[16];
	struct capture	c;
};

/* Run parse_options() on a NULL-terminated list of arguments. */
static void run(struct result *r, int flags, ...)
{
	static const char *argv[32];
	const char *arg;
	va_list ap;
	int argc = 0, i;

	json = false;
	verbose = nice_val = cb_calls = 0;
	cpu = 0;
	size = 0;
	name = NULL;
	mode[0] = '\0';
	sw[0] = '\0';

	argv[argc++] = "test";
	va_start(ap, flags);
	while ((arg = va_arg(ap, const char *)))
		argv[argc++] = arg;
	va_end(ap);
	argv[argc] = NULL;

	capture__start(&r->c);
	r->ret = parse_options(argc, argv, options, usage, flags);
	capture__stop(&r->c);
	memset(r->args, 0, sizeof(r->args));
	for (i = 0; i < r->ret && i < 15; i++)
		r->args[i] = argv[i];
	if (r->ret >= 0 && argv[r->ret])
		r->args[15] = "argv not NULL-terminated";
}

/* Check a parse error: result PARSE_OPT_ERROR and exactly @line on stderr. */
#define is_error(r, line, desc) do {						\
	is_int((r)->ret, PARSE_OPT_ERROR, "%s: fails", desc);			\
	is_str((r)->c.err, line "\n", "%s: error line", desc);			\
	is_str((r)->c.out, "", "%s: nothing on stdout", desc);			\
	capture__free(&(r)->c);							\
} while (0)

static void test_flags(void)
{
	struct result r;

	run(&r, 0, NULL);
	is_int(r.ret, 0, "no arguments");
	ok(!json && !verbose, "no arguments: nothing set");
	is_str(r.c.err, "", "no arguments: no error");
	capture__free(&r.c);

	run(&r, 0, "--json", NULL);
	ok(r.ret == 0 && json, "--json sets the boolean");
	capture__free(&r.c);
	run(&r, 0, "--json", "--no-json", NULL);
	ok(r.ret == 0 && !json, "--no-json clears it");
	capture__free(&r.c);
	run(&r, 0, "-j", NULL);
	ok(r.ret == 0 && json, "-j sets it");
	capture__free(&r.c);
	run(&r, 0, "-vvv", "--verbose", NULL);
	ok(r.ret == 0 && verbose == 4, "-vvv --verbose counts 4");
	capture__free(&r.c);
	run(&r, 0, "-vjv", NULL);
	ok(r.ret == 0 && json && verbose == 2, "bundle -vjv");
	capture__free(&r.c);
	run(&r, 0, "-v", "--no-verbose", NULL);
	ok(r.ret == 0 && verbose == 0, "--no-verbose resets the counter");
	capture__free(&r.c);

	run(&r, 0, "--json=1", NULL);
	is_error(&r, "kprofctl: test: option '--json' takes no value", "--json=1");
	run(&r, 0, "--no-json=yes", NULL);
	is_error(&r, "kprofctl: test: option '--no-json' takes no value", "--no-json=yes");
}

static void test_values(void)
{
	struct result r;

	run(&r, 0, "--cpu", "3", NULL);
	ok(r.ret == 0 && cpu == 3, "--cpu 3");
	capture__free(&r.c);
	run(&r, 0, "--cpu=4", NULL);
	ok(r.ret == 0 && cpu == 4, "--cpu=4");
	capture__free(&r.c);
	run(&r, 0, "-c5", NULL);
	ok(r.ret == 0 && cpu == 5, "-c5");
	capture__free(&r.c);
	run(&r, 0, "-c", "6", NULL);
	ok(r.ret == 0 && cpu == 6, "-c 6");
	capture__free(&r.c);
	run(&r, 0, "-jc7", NULL);
	ok(r.ret == 0 && json && cpu == 7, "-jc7: a value ends the bundle");
	capture__free(&r.c);
	run(&r, 0, "--nice", "-5", NULL);
	ok(r.ret == 0 && nice_val == -5, "--nice -5: a value may start with '-'");
	capture__free(&r.c);
	run(&r, 0, "--size=0x1000", NULL);
	ok(r.ret == 0 && size == 4096, "--size=0x1000");
	capture__free(&r.c);
	run(&r, 0, "--size", "18446744073709551615", NULL);
	ok(r.ret == 0 && size == UINT64_MAX, "--size u64 max");
	capture__free(&r.c);
	run(&r, 0, "-o", "out.data", NULL);
	is_str(name, "out.data", "-o out.data");
	capture__free(&r.c);
	run(&r, 0, "--output=", NULL);
	is_str(name, "", "--output= gives an empty string");
	capture__free(&r.c);
	run(&r, 0, "--output=a=b", NULL);
	is_str(name, "a=b", "--output=a=b splits at the first '='");
	capture__free(&r.c);
	run(&r, 0, "--mode", "fast", NULL);
	ok(r.ret == 0 && cb_calls == 1, "--mode fast calls the callback");
	is_str(mode, "fast", "--mode fast stored");
	capture__free(&r.c);

	run(&r, 0, "--cpu=abc", NULL);
	is_error(&r, "kprofctl: test: invalid value 'abc' for option '--cpu': not a number",
		 "--cpu=abc");
	run(&r, 0, "-c", "-1", NULL);
	is_error(&r, "kprofctl: test: invalid value '-1' for option '-c': not a number",
		 "-c -1");
	run(&r, 0, "--cpu", "4294967296", NULL);
	is_error(&r, "kprofctl: test: invalid value '4294967296' for option '--cpu': out of range",
		 "--cpu 2^32");
	run(&r, 0, "--nice=", NULL);
	is_error(&r, "kprofctl: test: invalid value '' for option '--nice': not a number",
		 "--nice= (empty)");
	run(&r, 0, "--size=1k", NULL);
	is_error(&r, "kprofctl: test: invalid value '1k' for option '--size': not a number",
		 "--size=1k");
	run(&r, 0, "--cpu", NULL);
	is_error(&r, "kprofctl: test: option '--cpu' requires a value", "--cpu without value");
	run(&r, 0, "-j", "-c", NULL);
	is_error(&r, "kprofctl: test: option '-c' requires a value", "-c without value");
	run(&r, 0, "--mode=medium", NULL);
	is_error(&r, "kprofctl: test: invalid value 'medium' for option '--mode'",
		 "--mode=medium rejected by the callback");
	run(&r, 0, "--mode=huge", NULL);
	is_error(&r, "kprofctl: test: invalid value 'huge' for option '--mode': out of range",
		 "--mode=huge out of range");
}

static void test_unknown(void)
{
	struct result r;

	run(&r, 0, "--jsn", NULL);
	is_error(&r, "kprofctl: test: unknown option '--jsn'", "--jsn");
	run(&r, 0, "--jsn=1", NULL);
	is_error(&r, "kprofctl: test: unknown option '--jsn'", "--jsn=1 names the option");
	run(&r, 0, "-x", NULL);
	is_error(&r, "kprofctl: test: unknown option '-x'", "-x");
	run(&r, 0, "-jx", NULL);
	is_error(&r, "kprofctl: test: unknown option '-x'", "-jx names the bad letter");
	run(&r, 0, "--no-cpu", NULL);
	is_error(&r, "kprofctl: test: unknown option '--no-cpu'", "--no-cpu: not a boolean");
	run(&r, 0, "--no-", NULL);
	is_error(&r, "kprofctl: test: unknown option '--no-'", "--no-");
	run(&r, 0, "--js", NULL);
	is_error(&r, "kprofctl: test: unknown option '--js'", "no abbreviations: --js");
	run(&r, 0, "---json", NULL);
	is_error(&r, "kprofctl: test: unknown option '---json'", "---json");
}

static void test_args(void)
{
	struct result r;

	run(&r, 0, "a", "--json", "b", NULL);
	is_int(r.ret, 2, "arguments around an option");
	ok(json, "arguments around an option: option parsed");
	ok(r.args[0] && !strcmp(r.args[0], "a") && r.args[1] && !strcmp(r.args[1], "b"),
	   "arguments moved to argv[0..1]");
	ok(!r.args[15], "argv is NULL-terminated");
	capture__free(&r.c);

	run(&r, 0, "-", NULL);
	ok(r.ret == 1 && !strcmp(r.args[0], "-"), "'-' is an argument");
	capture__free(&r.c);

	run(&r, 0, "--json", "--", "--cpu", "-x", NULL);
	ok(r.ret == 2 && json && !strcmp(r.args[0], "--cpu") && !strcmp(r.args[1], "-x"),
	   "'--' ends the options");
	capture__free(&r.c);

	run(&r, PARSE_OPT_KEEP_DASHDASH, "--", "x", NULL);
	ok(r.ret == 2 && !strcmp(r.args[0], "--") && !strcmp(r.args[1], "x"),
	   "PARSE_OPT_KEEP_DASHDASH keeps '--'");
	capture__free(&r.c);

	run(&r, PARSE_OPT_STOP_AT_NON_OPTION, "-j", "ls", "-l", "--cpu", NULL);
	ok(r.ret == 3 && json && cpu == 0 && !strcmp(r.args[0], "ls") &&
	   !strcmp(r.args[1], "-l") && !strcmp(r.args[2], "--cpu"),
	   "PARSE_OPT_STOP_AT_NON_OPTION leaves the rest alone");
	capture__free(&r.c);
}

static const char expected_usage[] =
	"Usage: kprofctl test [<options>] [<args>...]\n"
	"   or: kprofctl test --other\n"
	"\n"
	"    Test the option parser.\n"
	"\n"
	"    -j, --json          print JSON\n"
	"    -v, --verbose       more output\n"
	"    -c, --cpu=<cpu>     CPU to profile\n"
	"        --nice=<n>      niceness\n"
	"        --size=<bytes>  buffer size\n"
	"    -o, --output=<file>\n"
	"                        output file\n"
	"        --mode=<mode>   fast or slow\n"
	"    -s, --switch[=<when>]\n"
	"                        switch, now or when\n"
	"    -h, --help          show this help\n";

static void test_help(void)
{
	struct result r;

	run(&r, 0, "--help", NULL);
	is_int(r.ret, PARSE_OPT_HELP, "--help");
	is_str(r.c.out, expected_usage, "--help prints the usage on stdout");
	is_str(r.c.err, "", "--help: nothing on stderr");
	capture__free(&r.c);

	run(&r, 0, "-jh", "--bogus", NULL);
	is_int(r.ret, PARSE_OPT_HELP, "-jh: help wins over later errors");
	is_str(r.c.out, expected_usage, "-jh prints the usage");
	capture__free(&r.c);

	run(&r, 0, "--help=1", NULL);
	is_error(&r, "kprofctl: test: option '--help' takes no value", "--help=1");

	is_int(parse_options_exit_code(PARSE_OPT_HELP), KP_EXIT_OK, "exit code after --help");
	is_int(parse_options_exit_code(PARSE_OPT_ERROR), KP_EXIT_USAGE, "exit code after an error");
}

static void test_list_opts(void)
{
	struct result r;

	run(&r, 0, "-j", "--list-opts", "--bogus", NULL);
	is_int(r.ret, PARSE_OPT_HELP, "--list-opts: as --help");
	is_str(r.c.out, "--json\n--verbose\n--cpu=\n--nice=\n--size=\n--output=\n--mode=\n--switch\n--help\n",
	       "--list-opts: the long options, '=' after those taking a value (not an optional one)");
	is_str(r.c.err, "", "--list-opts: nothing on stderr");
	capture__free(&r.c);

	run(&r, 0, "--list-opts=1", NULL);
	is_error(&r, "kprofctl: test: unknown option '--list-opts'", "--list-opts=1");
}

/* OPT_CALLBACK_OPTARG: a value only as --name=value or -nvalue. */
static void test_optarg(void)
{
	struct result r;

	run(&r, 0, "--switch", "later", NULL);
	ok(r.ret == 1 && !strcmp(sw, "(none)") && r.args[0] && !strcmp(r.args[0], "later"),
	   "optarg: --switch without '=': no value, the next word an argument");
	capture__free(&r.c);
	run(&r, 0, "--switch=5s", NULL);
	ok(r.ret == 0 && !strcmp(sw, "5s"), "optarg: --switch=5s");
	capture__free(&r.c);
	run(&r, 0, "-s2m", NULL);
	ok(r.ret == 0 && !strcmp(sw, "2m"), "optarg: -s2m");
	capture__free(&r.c);
	run(&r, 0, "-js", "-v", NULL);
	ok(r.ret == 0 && json && !strcmp(sw, "(none)") && verbose == 1,
	   "optarg: -js, last in a bundle, no value");
	capture__free(&r.c);
	run(&r, 0, "--switch=bad", NULL);
	is_error(&r, "kprofctl: test: invalid value 'bad' for option '--switch'", "optarg: --switch=bad");
}

static void test_max_args(void)
{
	const char *argv[] = { "a", "b", NULL };
	struct capture c;
	int ret;

	capture__start(&c);
	ret = parse_options_max_args("test", 2, argv, 2);
	capture__stop(&c);
	ok(ret == 0 && !c.err[0], "max_args: 2 of 2 allowed");
	capture__free(&c);

	capture__start(&c);
	ret = parse_options_max_args("test", 2, argv, 1);
	capture__stop(&c);
	is_int(ret, -1, "max_args: 2 of 1");
	is_str(c.err, "kprofctl: test: unexpected argument 'b'\n", "max_args: names the extra one");
	capture__free(&c);

	capture__start(&c);
	ret = parse_options_max_args("test", 2, argv, 0);
	capture__stop(&c);
	is_str(c.err, "kprofctl: test: unexpected argument 'a'\n", "max_args: names the first");
	capture__free(&c);
}

int main(void)
{
	test_flags();
	test_values();
	test_unknown();
	test_args();
	test_help();
	test_list_opts();
	test_optarg();
	test_max_args();
	return done_testing();
}
