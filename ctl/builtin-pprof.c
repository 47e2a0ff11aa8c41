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
#include "lib/upload.h"
#include "lib/util.h"

#define PPROF_MAX_TAGS	32

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
struct pprof_tags {
	const char	*v[PPROF_MAX_TAGS];
	unsigned int	nr;
};

static int pprof__tag_cb(const struct option *opt, const char *arg, bool unset)
{
	struct pprof_tags *t = opt->value;

	if (unset) {
		t->nr = 0;
		return 0;
	}
	if (t->nr == PPROF_MAX_TAGS)
		return -ERANGE;
	t->v[t->nr++] = arg;
	return 0;
}

struct pprof_upload {
	const char	*url, *app_name, *spool_dir, *timeout, *spool_max_size;
	const char	*token, *basic_auth, *tenant;
	unsigned int	spool_max_files;
	bool		flush;
	struct pprof_tags tags;
};

/* The uploader of @p's options, or a line said and KP_EXIT_USAGE. */
static int pprof__uploader(const struct pprof_upload *p, struct kp_uploader *u, const char *cmd)
{
	struct kp_upload_conf c = {
		.url = p->url, .app_name = p->app_name ? p->app_name : "kprof",
		.tags = p->tags.v, .nr_tags = p->tags.nr, .spool_dir = p->spool_dir,
		.spool_max_files = p->spool_max_files, .log = stderr,
		.token = p->token ? p->token : getenv("KPROF_UPLOAD_TOKEN"),
		.basic_auth = p->basic_auth ? p->basic_auth : getenv("KPROF_UPLOAD_BASIC_AUTH"),
		.tenant = p->tenant,
	};
	struct kp_err err;

	if (c.token && !*c.token)
		c.token = NULL;
	if (c.basic_auth && !*c.basic_auth)
		c.basic_auth = NULL;
	if (p->timeout) {
		if (kp_parse_duration_ms(p->timeout, &c.timeout_ms) || !c.timeout_ms) {
			kp_error(cmd, "bad --upload-timeout '%s' (e.g. 500ms, 30s, 2m)", p->timeout);
			return KP_EXIT_USAGE;
		}
		c.connect_timeout_ms = c.timeout_ms < 10000 ? c.timeout_ms : 10000;
	}
	if (p->spool_max_size &&
	    (kp_parse_size(p->spool_max_size, &c.spool_max_bytes) || !c.spool_max_bytes)) {
		kp_error(cmd, "bad --spool-max-size '%s' (e.g. 64M, 1G)", p->spool_max_size);
		return KP_EXIT_USAGE;
	}
	if (kp_uploader__init(u, &c, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	return KP_EXIT_OK;
}

/* The option given without --upload, or NULL. */
static const char *pprof__needs_upload(const struct pprof_upload *p)
{
	if (p->app_name)
		return "--app-name";
	if (p->tags.nr)
		return "--tag";
	if (p->spool_dir)
		return "--spool-dir";
	if (p->timeout)
		return "--upload-timeout";
	if (p->spool_max_files || p->spool_max_size)
		return p->spool_max_files ? "--spool-max-files" : "--spool-max-size";
	if (p->token || p->basic_auth || p->tenant)
		return p->token ? "--upload-token" : p->basic_auth ? "--upload-basic-auth" :
								     "--upload-tenant";
	if (p->flush)
		return "--flush-spool";
	return NULL;
}

/* --flush-spool */
static int pprof__flush(const struct pprof_upload *p, const char *cmd)
{
	struct kp_upload_stats st;
	struct kp_uploader u;
	struct kp_err err;
	int ret;

	if (!p->spool_dir) {
		kp_error(cmd, "--flush-spool needs --spool-dir");
		return KP_EXIT_USAGE;
	}
	ret = pprof__uploader(p, &u, cmd);
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
	struct pprof_upload up = { 0 };
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
		OPT_STRING(0, "upload", &up.url, "url",
			   "send the profile to Pyroscope at this http(s) URL (POST url/ingest)"),
		OPT_STRING(0, "app-name", &up.app_name, "name",
			   "the application name in Pyroscope (default kprof)"),
		OPT_CALLBACK(0, "tag", &up.tags, "key=value",
			     "a label of the uploaded profile (repeatable)", pprof__tag_cb),
		OPT_STRING(0, "spool-dir", &up.spool_dir, "dir",
			   "keep what cannot be uploaded yet here, deliver it first next time"),
		OPT_UINTEGER(0, "spool-max-files", &up.spool_max_files, "n",
			     "at most n spooled profiles, the oldest dropped (default 1000)"),
		OPT_STRING(0, "spool-max-size", &up.spool_max_size, "size",
			   "at most this many bytes spooled, the oldest dropped (default 256M)"),
		OPT_STRING(0, "upload-timeout", &up.timeout, "duration",
			   "give up on a request after this long (default 60s; connect: 10s at most)"),
		OPT_STRING(0, "upload-token", &up.token, "token",
			   "Authorization: Bearer token (default $KPROF_UPLOAD_TOKEN)"),
		OPT_STRING(0, "upload-basic-auth", &up.basic_auth, "user:password",
			   "basic auth (default $KPROF_UPLOAD_BASIC_AUTH)"),
		OPT_STRING(0, "upload-tenant", &up.tenant, "id",
			   "X-Scope-OrgID, the tenant of a multi-tenant Pyroscope"),
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
	bad = up.url ? NULL : pprof__needs_upload(&up);
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
		ret = pprof__uploader(&up, &u, cmd);
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
