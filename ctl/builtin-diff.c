// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl diff [<options>] <base> <new>
 *
 * Compare two profiles (kprof.data or collapsed stacks): a table of the
 * functions that changed most, a differential flame graph (--flamegraph:
 * widths from NEW, red where a frame grew, blue where it shrank), or the
 * merged stacks as difffolded.pl writes them (--folded).  See
 * Documentation/flamegraph.rst.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lib/decode-args.h"
#include "lib/flame.h"
#include "lib/folded.h"
#include "lib/outfile.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char * const diff_usage[] = {
	"kprofctl diff [<options>] <base> <new>",
	"",
	"Compare two profiles, each kprof.data or collapsed stacks ('frame;...;frame",
	"COUNT' lines): print the functions whose self samples (--sort total: with",
	"their callees) changed most, as % of each profile's total; or draw a",
	"differential flame graph (--flamegraph): the frames of NEW, red where they",
	"grew, blue where they shrank; or print 'stack BASE NEW' lines as",
	"difffolded.pl does (--folded).",
	NULL
};

static int sort_cb(const struct option *opt, const char *arg, bool unset)
{
	(void)unset;
	if (!strcmp(arg, "self"))
		*(bool *)opt->value = false;
	else if (!strcmp(arg, "total"))
		*(bool *)opt->value = true;
	else
		return -EINVAL;
	return 0;
}

static void print_name(FILE *fp, const struct kp_flame *t, uint32_t name_idx)
{
	const char *name = t->strs + t->name_off[name_idx];
	size_t len = t->name_len[name_idx];
	bool kernel = kp_folded__is_kernel(name, len);

	if (kernel)
		len -= KP_FOLDED_KERNEL_SUFFIX_LEN;
	fprintf(fp, "[%c] %.*s\n", kernel ? 'k' : '.', (int)len, name);
}

static void print_table(FILE *fp, const struct kp_flame *t, const char *base, const char *new,
			const struct kp_diff_row *rows, int nr, unsigned int limit,
			bool total, bool normalize)
{
	char b[32], n[32], d[32], e[32];
	int i, noise = 0, shown = limit && (unsigned int)nr > limit ? (int)limit : nr;

	fprintf(fp, "# base: %s, %" PRIu64 " samples\n", base, kp_flame__total(t, KP_FLAME_BASE));
	fprintf(fp, "# new:  %s, %" PRIu64 " samples\n", new, kp_flame__total(t, KP_FLAME_NEW));
	fprintf(fp, "# %s samples, %s; largest changes first\n",
		total ? "total (self and callees)" : "self",
		normalize ? "as % of each profile's total" : "not normalized");
	fprintf(fp, "#\n");
	if (!nr) {
		fprintf(fp, "# no change\n");
		return;
	}
	if (normalize)
		fprintf(fp, "# %9s %10s %10s %8s %6s  %s\n", "Base", "New", "Delta", "Error", "Noise",
			"Function");
	else
		fprintf(fp, "# %9s %10s %10s  %s\n", "Base", "New", "Delta", "Function");
	for (i = 0; i < shown; i++) {
		const struct kp_diff_row *r = &rows[i];

		if (normalize) {
			snprintf(b, sizeof(b), "%.2f%%", r->base_pct);
			snprintf(n, sizeof(n), "%.2f%%", r->new_pct);
			snprintf(d, sizeof(d), "%+.2f%%", r->delta);
		} else {
			snprintf(b, sizeof(b), "%" PRIu64, r->count[KP_FLAME_BASE]);
			snprintf(n, sizeof(n), "%" PRIu64, r->count[KP_FLAME_NEW]);
			snprintf(d, sizeof(d), "%+.0f", r->delta);
		}
		if (normalize) {
			snprintf(e, sizeof(e), "%.2f%%", r->error);
			fprintf(fp, "%11s %10s %10s %8s %6s  ", b, n, d, e, r->noise ? "noise" : "");
			noise += r->noise;
		} else {
			fprintf(fp, "%11s %10s %10s  ", b, n, d);
		}
		print_name(fp, t, r->name);
	}
	if (shown < nr)
		fprintf(fp, "# %d more changed function%s (--limit 0 shows all)\n", nr - shown,
			nr - shown > 1 ? "s" : "");
	if (noise)
		fprintf(fp, "#\n# noise: %d of these change%s by no more than the sampling error (Error: the 95%% interval\n"
			"# of the difference of two shares of these sample counts); more samples would tell\n",
			noise, noise > 1 ? "" : "s");
}

static int read_profile(const char *cmd, struct kp_flame *t, enum kp_flame_set set,
			const char *path)
{
	struct kp_err err;
	bool two = false;

	if (kp_flame__read(t, set, path, &two, &err)) {
		kp_err__print(&err, cmd);
		return -1;
	}
	if (two) {
		kp_error(cmd, "'%s' is already a diff (two counts per line)", path);
		return -1;
	}
	if (!kp_flame__total(t, set)) {
		kp_error(cmd, "no samples in '%s'", path);
		return -1;
	}
	return 0;
}

int cmd_diff(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = NULL;
	bool flamegraph = false, folded = false, reverse = false, total = false;
	bool no_demangle = false;
	unsigned int limit = 20;
	struct kp_flame_opts o;
	const struct option options[] = {
		OPT_BOOLEAN(0, "flamegraph", &flamegraph, "draw a differential flame graph"),
		OPT_BOOLEAN(0, "folded", &folded, "print 'stack BASE NEW' lines (difffolded.pl)"),
		OPT_STRING('o', "output", &output, "file",
			   "write there (--flamegraph: default diff.svg; - for stdout)"),
		OPT_BOOLEAN('n', "normalize", &o.normalize,
			    "scale BASE to NEW's total (default; --no-normalize: raw counts)"),
		OPT_UINTEGER(0, "limit", &limit, "n", "rows of the table (default 20; 0: all)"),
		OPT_CALLBACK(0, "sort", &total, "key",
			     "self (default) or total: what the table compares", sort_cb),
		OPT_STRING(0, "title", &o.title, "text", "title of the flame graph"),
		OPT_STRING(0, "subtitle", &o.subtitle, "text", "subtitle of the flame graph"),
		OPT_CALLBACK(0, "width", &o.width, "px", "width of the image (default 1200)",
			     kp_flame_opt__width),
		OPT_CALLBACK(0, "height", &o.frame_height, "px", "height of a frame (default 16)",
			     kp_flame_opt__height),
		OPT_CALLBACK(0, "minwidth", &o, "px|N%",
			     "omit frames narrower than this (default 0.1 px)", kp_flame_opt__minwidth),
		OPT_BOOLEAN(0, "reverse", &reverse, "merge stacks from the leaf (icicle graph)"),
		OPT_BOOLEAN(0, "inverted", &o.inverted, "icicle graph: the root at the top"),
		KP_DECODE_DEMANGLE_OPTION(&no_demangle),
		OPT_END()
	};
	struct kp_outfile out = { 0 };
	struct kp_diff_row *rows = NULL;
	struct kp_flame *t = NULL;
	FILE *fp;
	char subtitle[256];
	struct kp_err err;
	int ret, nr;

	kp_flame_opts__init(&o);
	argc = parse_options(argc, argv, options, diff_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 2))
		return KP_EXIT_USAGE;
	if (argc < 2) {
		kp_error(cmd, "needs two profiles: BASE and NEW. See 'kprofctl diff --help'.");
		return KP_EXIT_USAGE;
	}
	if (flamegraph && folded) {
		kp_error(cmd, "--flamegraph and --folded do not go together");
		return KP_EXIT_USAGE;
	}
	if (reverse && !flamegraph) {
		kp_error(cmd, "--reverse is an option of --flamegraph");
		return KP_EXIT_USAGE;
	}
	o.inverted |= reverse;
	o.diff = true;

	ret = KP_EXIT_FAILURE;
	t = kp_flame__new(reverse);
	if (!t) {
		kp_error(cmd, "out of memory");
		goto out;
	}
	kp_folded_no_demangle = no_demangle;
	ret = read_profile(cmd, t, KP_FLAME_BASE, argv[0]) ||
	      read_profile(cmd, t, KP_FLAME_NEW, argv[1]) ? KP_EXIT_FAILURE : KP_EXIT_OK;
	kp_folded_no_demangle = false;
	if (ret)
		goto out;
	ret = KP_EXIT_FAILURE;

	if (flamegraph) {
		if (!o.subtitle) {
			snprintf(subtitle, sizeof(subtitle),
				 "%" PRIu64 " samples of %s against %" PRIu64 " of %s%s",
				 kp_flame__total(t, KP_FLAME_NEW), argv[1],
				 kp_flame__total(t, KP_FLAME_BASE), argv[0],
				 o.normalize ? ", normalized" : "");
			o.subtitle = subtitle;
		}
		if (kp_flame__save_svg(t, &o, output ? output : "diff.svg", &err)) {
			kp_err__print(&err, cmd);
			goto out;
		}
		ret = KP_EXIT_OK;
		goto out;
	}

	if (kp_outfile__open(&out, output ? output : "-", false, &err)) {
		kp_err__print(&err, cmd);
		goto out;
	}
	fp = out.fp;
	if (folded) {
		if (kp_flame__write_folded2(t, o.normalize, fp, &err)) {
			kp_err__print(&err, cmd);
			goto out;
		}
	} else {
		nr = kp_flame__diff_rows(t, total, o.normalize, &rows, &err);
		if (nr < 0) {
			kp_err__print(&err, cmd);
			goto out;
		}
		print_table(fp, t, argv[0], argv[1], rows, nr, limit, total, o.normalize);
	}
	ret = KP_EXIT_OK;
	if (kp_outfile__commit(&out, &err)) {
		kp_err__print(&err, cmd);
		ret = KP_EXIT_FAILURE;
	}
out:
	kp_outfile__abort(&out);
	free(rows);
	kp_flame__delete(t);
	return ret;
}
