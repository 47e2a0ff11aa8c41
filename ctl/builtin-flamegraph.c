// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl flamegraph [-i <file> | --live] [-o <file.svg>] [--title <text>] [--width <px>]
 *		       [--reverse] [--inverted] [--colors hot|io|mem|lock] [--minwidth <px|N%>]
 *
 * A self-contained, interactive SVG flame graph of kprof.data or of
 * collapsed stacks from any tool (FlameGraph's stackcollapse-*.pl,
 * 'kprofctl folded'), or with --live of the aggregation tables of the
 * running session (lib/agg.h).  See Documentation/flamegraph.rst.
 */
#include <stdio.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/flame.h"
#include "lib/folded.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char * const flamegraph_usage[] = {
	"kprofctl flamegraph [<options>] [<file>]",
	"",
	"Draw a flame graph of kprof.data, or of collapsed stacks ('frame;...;frame",
	"COUNT' lines, as FlameGraph's stackcollapse scripts and 'kprofctl folded'",
	"write), as a self-contained interactive SVG: click a frame to zoom, Ctrl-F",
	"to search.  Kernel frames ('_[k]' suffix) have their own hue.  With --live,",
	"of the running session's aggregation tables ('kprofctl start').",
	NULL
};

static int colors_cb(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	return kp_flame__parse_palette(arg, opt->value);
}

int cmd_flamegraph(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = "flamegraph.svg";
	struct kp_decode_args a = { 0 };
	struct kp_flame_opts o;
	bool reverse = false, two = false, no_demangle = false;
	const struct option options[] = {
		OPT_STRING('i', "input", &a.input, "file",
			   "kprof.data or folded stacks, - for stdin (default kprof.data)"),
		OPT_BOOLEAN(0, "live", &a.live,
			    "the running session's aggregation tables, not a file"),
		OPT_STRING('o', "output", &output, "file",
			   "the SVG, - for stdout (default flamegraph.svg)"),
		OPT_STRING(0, "title", &o.title, "text", "title (default Flame Graph)"),
		OPT_STRING(0, "subtitle", &o.subtitle, "text", "subtitle (default the total samples)"),
		OPT_CALLBACK(0, "width", &o.width, "px", "width of the image (default 1200)",
			     kp_flame_opt__width),
		OPT_CALLBACK(0, "height", &o.frame_height, "px", "height of a frame (default 16)",
			     kp_flame_opt__height),
		OPT_CALLBACK(0, "minwidth", &o, "px|N%",
			     "omit frames narrower than this (default 0.1 px)", kp_flame_opt__minwidth),
		OPT_CALLBACK(0, "colors", &o.palette, "palette", "hot (default), io, mem or lock",
			     colors_cb),
		OPT_BOOLEAN(0, "reverse", &reverse, "merge stacks from the leaf (icicle graph)"),
		OPT_BOOLEAN(0, "inverted", &o.inverted, "icicle graph: the root at the top"),
		OPT_STRING(0, "countname", &o.countname, "name", "what a count is (default samples)"),
		KP_DECODE_DEMANGLE_OPTION(&no_demangle),
		OPT_END()
	};
	struct kp_flame *t;
	struct kp_err err;
	int ret;

	kp_flame_opts__init(&o);
	argc = parse_options(argc, argv, options, flamegraph_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 1))
		return KP_EXIT_USAGE;
	if (argc == 1 && a.input) {
		kp_error(cmd, "give the input with -i or as an argument, not both");
		return KP_EXIT_USAGE;
	}
	if (argc == 1)
		a.input = argv[0];
	if (kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	o.inverted |= reverse;

	t = kp_flame__new(reverse);
	if (!t) {
		kp_error(cmd, "out of memory");
		return KP_EXIT_FAILURE;
	}
	if (kp_decode_args__live(&a, cmd)) {
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	kp_folded_no_demangle = no_demangle;
	ret = kp_flame__read(t, KP_FLAME_NEW, a.input, &two, &err);
	kp_folded_no_demangle = false;
	kp_decode_args__unlink(&a);
	if (ret) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	if (!kp_flame__total(t, KP_FLAME_NEW)) {
		if (a.live)
			kp_error(cmd, "no samples in the running session's tables yet");
		else
			kp_error(cmd, "no samples in '%s'", a.input);
		ret = KP_EXIT_FAILURE;
		goto out;
	}
	/* difffolded.pl output: a differential graph, as flamegraph.pl draws it. */
	if (two) {
		o.diff = true;
		o.normalize = false;
	}
	ret = KP_EXIT_OK;
	if (kp_flame__save_svg(t, &o, output, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_FAILURE;
	}
out:
	kp_flame__delete(t);
	return ret;
}
