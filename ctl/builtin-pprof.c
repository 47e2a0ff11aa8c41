// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl pprof [-i <file> | --live] [-o <file>] [--upload <url> ...] [<filters>]
 * kprofctl pprof --flush-spool --upload <url> --spool-dir <dir>
 *
 * The recording (or, with --live, the running session's aggregation
 * tables) as a gzip'd pprof profile (lib/pprof.h), for 'go tool pprof',
 * Pyroscope, Parca and the other readers of profile.proto; with --upload,
 * sent to Pyroscope (lib/upload.h), spooled when it cannot take it yet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/parse-options.h"
#include "lib/pprof.h"
#include "lib/upload-args.h"
#include "lib/util.h"

static const char * const pprof_usage[] = {
	"kprofctl pprof [-i <file> | --live] [-o <file>] [<options>]",
	"kprofctl pprof [-i <file> | --live] [-o <file>] --upload <url> [--spool-dir <dir>] [<options>]",
	"kprofctl pprof --flush-spool --upload <url> --spool-dir <dir>",
	"",
	"Write kprof.data as a pprof profile (profile.proto, gzip'd), for 'go tool",
	"pprof' and the continuous profilers: one sample per distinct stack, with",
	"sample counts and time (cpu, off-cpu: nanoseconds), pid and comm labels.",
	"With --live, of the running session's aggregation tables.",
	"",
	"--upload sends it to Pyroscope (POST <url>/ingest, format=pprof, name",
	"<app-name>{<tags>}); -o is then optional.  When the server cannot take it",
	"(down, 5xx, 429, timeout) the profile goes to --spool-dir, and every later",
	"upload first delivers the spool, oldest first.  A bearer token or basic",
	"auth come from $KPROF_UPLOAD_TOKEN or $KPROF_UPLOAD_BASIC_AUTH (USER:PASSWORD)",
	"unless given as options (which 'ps' shows).",
	NULL
};

/* --tag K=V, repeatable: the tags, checked by kp_uploader__init() */
/* --flush-spool */
static int pprof__flush(const struct kp_upload_args *p, const char *cmd)
{
	struct kp_upload_stats st;
	struct kp_uploader u;
	struct kp_err err;
	int ret;

	if (!p->spool_dir) {
		kp_error(cmd, "--flush-spool needs --spool-dir");
		return KP_EXIT_USAGE;
	}
	ret = kp_upload_args__uploader(p, &u, cmd);
	if (ret)
		return ret;
	ret = kp_uploader__flush(&u, &st, &err);
	kp_uploader__exit(&u);
	if (ret) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	fprintf(stderr, "%s: %u spooled profiles delivered%s\n", p->spool_dir, st.delivered,
		st.rejected ? ", some rejected (*.rejected)" : "");
	return st.rejected ? KP_EXIT_FAILURE : KP_EXIT_OK;
}

int cmd_pprof(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = NULL;
	struct kp_upload_args up = { 0 };
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { 0 };
	struct kp_filter filter = { 0 };
	bool tid = false, no_srclines = false;
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		OPT_STRING('o', "output", &output, "file",
			   "the profile (default profile.pb.gz unless --upload; - for standard output)"),
		OPT_BOOLEAN(0, "tid", &tid, "one sample per thread, not per process"),
		OPT_BOOLEAN(0, "no-srcline", &no_srclines,
			    "no source files and lines (from the DWARF line tables, libdw)"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
		KP_UPLOAD_OPTIONS(&up),
		OPT_BOOLEAN(0, "flush-spool", &up.flush,
			    "only deliver --spool-dir's profiles to --upload, make none"),
		OPT_END()
	};
	struct kp_pprof_opts po = { .filter = &filter };
	struct kp_upload_stats st;
	struct kp_pprof_span span;
	struct kp_uploader u;
	struct kp_decoder d;
	struct kp_err err;
	const char *bad;
	size_t len;
	void *buf;
	long n;
	int ret;

	argc = parse_options(argc, argv, options, pprof_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	po.no_srclines = no_srclines;
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	bad = up.url ? NULL : kp_upload_args__needs_url(&up);
	if (bad) {
		kp_error(cmd, "%s needs --upload", bad);
		return KP_EXIT_USAGE;
	}
	if (up.flush) {
		if (a.input || a.live || output) {
			kp_error(cmd, "--flush-spool makes no profile: no -i, --live or -o");
			return KP_EXIT_USAGE;
		}
		return pprof__flush(&up, cmd);
	}
	if (kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	if (!output && !up.url)
		output = "profile.pb.gz";
	if (output && !*output) {
		kp_error(cmd, "empty -o/--output");
		return KP_EXIT_USAGE;
	}
	if (up.url) {
		ret = kp_upload_args__uploader(&up, &u, cmd);
		if (ret)
			return ret;
	}
	ret = kp_decode_args__filter(&a, &filter, cmd);
	if (ret)
		goto out_filter;
	ret = KP_EXIT_FAILURE;
	if (kp_decode_args__open(&a, &d, &opts, cmd))
		goto out_filter;
	po.stack_flags = tid || filter.nr_tids ? KP_STACK_TID : 0;
	n = kp_pprof__build(&d, &po, &buf, &len, &err);
	kp_pprof__span(&d, time(NULL), &span);
	kp_decoder__close(&d);
	if (n < 0) {
		kp_err__print(&err, cmd);
		goto out_filter;
	}
	if (output) {
		if (kp_pprof__save(buf, len, output, &err)) {
			kp_err__print(&err, cmd);
			goto out_buf;
		}
		if (strcmp(output, "-"))
			fprintf(stderr, "Wrote %ld stacks to %s\n", n, output);
	}
	ret = KP_EXIT_OK;
	if (up.url && kp_uploader__profile(&u, buf, len, span.from, span.until, span.hz, &st, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_FAILURE;
	}
out_buf:
	free(buf);
out_filter:
	kp_filter__exit(&filter);
	if (up.url)
		kp_uploader__exit(&u);
	return ret;
}
