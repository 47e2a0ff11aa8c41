// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl convert [-i kprof.data] [-o perf.data]
 *
 * A recording for perf itself: 'perf report -i perf.data', 'perf script'
 * (lib/perfdata.h says what is carried and what is not).
 */
#include <inttypes.h>
#include <stdio.h>

#include "builtin.h"
#include "lib/data.h"
#include "lib/parse-options.h"
#include "lib/perfdata.h"
#include "lib/util.h"

static const char * const convert_usage[] = {
	"kprofctl convert [-i <kprof.data>] [-o <perf.data>]",
	"",
	"Write a recording as a perf.data file that perf reads ('perf report',",
	"'perf script'): samples with their call chains (the callers of frameless",
	"leaves found, as kprofctl's decoders show them), the processes and their",
	"mappings, the build-ids of the files hit.  Tracepoints lose their raw",
	"fields; an aggregated profile cannot be converted.",
	NULL
};

int cmd_convert(int argc, const char **argv)
{
	const char *cmd = argv[0], *input = KP_DEFAULT_OUTPUT, *output = "perf.data";
	bool no_leaf_fixup = false;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		OPT_STRING('o', "output", &output, "file", "output file (default perf.data)"),
		OPT_BOOLEAN(0, "no-leaf-fixup", &no_leaf_fixup,
			    "user chains as recorded: no caller of a frameless leaf from the stack copy"),
		OPT_END()
	};
	struct kp_perfdata_stats st;
	struct kp_err err;

	argc = parse_options(argc, argv, options, convert_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (kp_perfdata__convert(input, output, no_leaf_fixup, &st, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	fprintf(stderr, "[ kprof convert: %s: %" PRIu64 " samples, %" PRIu64
		" side-band records, %u build-ids ]\n", output, st.samples, st.sideband,
		st.build_ids);
	if (st.kernel_maps)
		fprintf(stderr, "[ kprof convert: the maps of the kernel and %u module%s of this boot ]\n",
			st.kernel_maps - 1, st.kernel_maps == 2 ? "" : "s");
	if (st.leaf_fixed)
		fprintf(stderr, "[ kprof convert: %" PRIu64
			" user chains with the callers of frameless leaves ]\n", st.leaf_fixed);
	if (st.raw_dropped)
		fprintf(stderr, "[ kprof convert: %" PRIu64
			" tracepoint samples without their fields (no recorded format) ]\n", st.raw_dropped);
	return KP_EXIT_OK;
}
