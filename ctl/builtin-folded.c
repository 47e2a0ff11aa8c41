// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl folded [-i <file> | --live] [<options>]
 *
 * Collapsed stacks, the input of flame graphs: one line per distinct
 * stack, "COMM;OUTERMOST;...;INNERMOST COUNT", sorted, named as
 * FlameGraph's stackcollapse-perf.pl names 'kprofctl script' output, so
 * both routes give the same lines (lib/collapse.c).  --live reads the
 * aggregation tables of the running session instead (lib/agg.h).
 */
#include <stdio.h>

#include "builtin.h"
#include "lib/collapse.h"
#include "lib/decode-args.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char * const folded_usage[] = {
	"kprofctl folded [-i <file> | --live] [<options>]",
	"",
	"Print the collapsed stacks of kprof.data, 'comm;outer;...;inner count',",
	"one line per distinct stack, sorted: the input of flame graphs.  With",
	"--live, of the aggregation tables of the running session ('kprofctl",
	"start'), user frames named while the processes live.",
	NULL
};

int cmd_folded(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { 0 };
	struct kp_filter filter = { 0 };
	struct kp_collapse_opts co = { .filter = &filter };
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
		OPT_BOOLEAN(0, "period", &co.period, "count periods, not samples"),
		OPT_BOOLEAN(0, "annotate-kernel", &co.annotate_kernel,
			    "suffix kernel frames with _[k], as stackcollapse-perf.pl --kernel"),
		OPT_BOOLEAN(0, "pid", &co.pid, "COMM-PID as the first frame"),
		OPT_BOOLEAN(0, "tid", &co.tid, "COMM-PID/TID as the first frame"),
		OPT_END()
	};
	struct kp_decoder d;
	int ret;

	argc = parse_options(argc, argv, options, folded_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0) || kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	ret = kp_decode_args__filter(&a, &filter, cmd);
	if (ret)
		goto out;
	if (kp_decode_args__open(&a, &d, &opts, cmd)) {
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	ret = kp_collapse__write(&d, &co, stdout);
	kp_decoder__close(&d);
	ret = kp_decode__exit_code(cmd, ret);
out:
	kp_filter__exit(&filter);
	return ret;
}
