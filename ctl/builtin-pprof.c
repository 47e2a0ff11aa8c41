// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl pprof [-i <file> | --live] [-o <file>] [<filters>]
 *
 * The recording (or, with --live, the running session's aggregation
 * tables) as a gzip'd pprof profile (lib/pprof.h), for 'go tool pprof',
 * Pyroscope, Parca and the other readers of profile.proto.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/parse-options.h"
#include "lib/pprof.h"
#include "lib/util.h"

static const char * const pprof_usage[] = {
	"kprofctl pprof [-i <file> | --live] [-o <file>] [<options>]",
	"",
	"Write kprof.data as a pprof profile (profile.proto, gzip'd), for 'go tool",
	"pprof' and the continuous profilers: one sample per distinct stack, with",
	"sample counts and time (cpu, off-cpu: nanoseconds), pid and comm labels.",
	"With --live, of the running session's aggregation tables.",
	NULL
};

int cmd_pprof(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = "profile.pb.gz";
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { 0 };
	struct kp_filter filter = { 0 };
	bool tid = false;
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		OPT_STRING('o', "output", &output, "file",
			   "the profile (default profile.pb.gz; - for standard output)"),
		OPT_BOOLEAN(0, "tid", &tid, "one sample per thread, not per process"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
		OPT_END()
	};
	struct kp_pprof_opts po = { .filter = &filter };
	struct kp_decoder d;
	struct kp_err err;
	long n;
	int ret;

	argc = parse_options(argc, argv, options, pprof_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0) || kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	if (!*output) {
		kp_error(cmd, "empty -o/--output");
		return KP_EXIT_USAGE;
	}
	ret = kp_decode_args__filter(&a, &filter, cmd);
	if (ret) {
		kp_filter__exit(&filter);
		return ret;
	}
	if (kp_decode_args__open(&a, &d, &opts, cmd)) {
		kp_filter__exit(&filter);
		return KP_EXIT_FAILURE;
	}
	po.stack_flags = tid || filter.nr_tids ? KP_STACK_TID : 0;
	n = kp_pprof__write(&d, output, &po, &err);
	kp_decoder__close(&d);
	kp_filter__exit(&filter);
	if (n < 0) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	if (strcmp(output, "-"))
		fprintf(stderr, "Wrote %ld stacks to %s\n", n, output);
	return KP_EXIT_OK;
}
