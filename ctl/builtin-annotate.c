// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl annotate [-i <file> | --live] [<symbol>] [<options>]
 *
 * perf annotate --stdio: each symbol's disassembly with the share of its
 * samples at every instruction, hottest symbol first (or only the one
 * named), source lines interleaved where the DSO has line tables.  The
 * sample's own address (the first frame) counts, as in perf.  User code
 * is read from its ELF file (or the build-id cache), kernel and module
 * code from /proc/kcore, the text the kernel runs, or the kernel's from a
 * --vmlinux.  lib/annotate.h does the counting and the printing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/annotate.h"
#include "lib/decode-args.h"
#include "lib/parse-options.h"
#include "lib/srcline.h"
#include "lib/symbols.h"
#include "lib/util.h"

static const char * const annotate_usage[] = {
	"kprofctl annotate [-i <file> | --live] [<symbol>] [<options>]",
	"",
	"Show the disassembly of the symbols with samples in kprof.data, each",
	"instruction with its share of the symbol's samples, like 'perf annotate",
	"--stdio': the hottest symbol first, or only <symbol>.  Kernel and module",
	"code is read from /proc/kcore (root) or the kernel's from --vmlinux.",
	NULL
};

struct annotate {
	struct kp_annotate	a;
	struct kp_filter	filter;
	const char		*module;	/* -m: "[name]" */
	char			module_name[64];
};

static int annotate__sample(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	struct annotate *an = arg;
	unsigned int first, last;
	const struct kp_frame *f;

	(void)d;
	if (!s->nr_frames || !kp_filter__sample(&an->filter, s, &first, &last))
		return 0;
	/* the sample's address is its first frame: -U keeps samples in user code only */
	if (an->filter.user_only && s->nr_kernel)
		return 0;
	f = &s->frames[0];
	if (an->module && (!f->dso || strcmp(f->dso->name, an->module_name)))
		return 0;
	return kp_annotate__add(&an->a, s->rec->event, f, s->count, s->rec->period);
}

/* Is the recording's kernel the one running here, whose /proc/kcore we would read? */
static bool same_kernel(const struct kp_decoder *d, const struct kp_machine_opts *m)
{
	char host[256] = "";
	struct utsname u;

	if (m->kallsyms && strcmp(m->kallsyms, "/proc/kallsyms"))
		return false;
	if (gethostname(host, sizeof(host) - 1) || uname(&u))
		return false;
	return !strcmp(host, d->info.hostname) && !strcmp(u.release, d->info.release);
}

int cmd_annotate(int argc, const char **argv)
{
	const char *cmd = argv[0];
	struct kp_decode_args a = { 0 };
	struct kp_decode_opts opts = { .max_frames = 1 };
	struct kp_annotate_opts ao = { .source = true };
	struct annotate an = { 0 };
	const char *limit = NULL, *ptype = NULL, *vmlinux = NULL, *symbol = NULL;
	bool stdio_ = false, kernel_ok, shown_kernel_note = false;
	double percent_limit = 0;
	const struct option options[] = {
		KP_DECODE_INPUT_OPTIONS(&a),
		OPT_BOOLEAN('s', "source", &ao.source,
			    "interleave source lines (the default when there are line tables; --no-source)"),
		OPT_STRING('m', "module", &an.module, "module",
			   "only the symbols of this kernel module (e.g. kprof)"),
		OPT_STRING(0, "percent-limit", &limit, "percent",
			   "leave out symbols with less of their event than this"),
		OPT_STRING(0, "percent-type", &ptype, "type",
			   "local-period (default), global-period, local-hits or global-hits"),
		OPT_BOOLEAN('n', "show-nr-samples", &ao.show_nr, "a column of sample counts"),
		OPT_BOOLEAN(0, "stdio", &stdio_, "text output (the only one)"),
		OPT_STRING(0, "vmlinux", &vmlinux, "file",
			   "the kernel's code and source lines from this vmlinux, not /proc/kcore"),
		KP_DECODE_SYMBOL_OPTIONS(&opts.machine),
		KP_DECODE_FILTER_OPTIONS(&a, "samples"),
		KP_DECODE_PERF_PID_OPTIONS(&a),
		OPT_END()
	};
	struct kp_dso *vm = NULL;
	struct kp_decoder d;
	struct kp_err err;
	size_t i, shown = 0, failed = 0;
	int ret = 0;

	argc = parse_options(argc, argv, options, annotate_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 1) || kp_decode_args__check(&a, cmd))
		return KP_EXIT_USAGE;
	(void)stdio_;
	symbol = argc ? argv[0] : NULL;
	if (limit && kp_parse_percent(limit, &percent_limit)) {
		kp_error(cmd, "bad --percent-limit value '%s' (0 to 100)", limit);
		return KP_EXIT_USAGE;
	}
	if (ptype && kp_percent_type__parse(ptype, &ao.percent_type)) {
		kp_error(cmd, "bad --percent-type value '%s' (local-period, global-period, local-hits or global-hits)",
			 ptype);
		return KP_EXIT_USAGE;
	}
	if (an.module) {
		if (!*an.module || strpbrk(an.module, "[] \t/") ||
		    strlen(an.module) + 3 > sizeof(an.module_name)) {
			kp_error(cmd, "bad --module value '%s' (a module name, e.g. kprof)", an.module);
			return KP_EXIT_USAGE;
		}
		snprintf(an.module_name, sizeof(an.module_name), "[%s]", an.module);
	}
	if (vmlinux) {
		vm = kp_dso__new("vmlinux");
		if (!vm || kp_dso__load_elf(vm, vmlinux, NULL) || !vm->nr_syms) {
			kp_error(cmd, "cannot read the symbols of the vmlinux '%s'%s", vmlinux,
				 access(vmlinux, R_OK) ? ": no such file" : "");
			kp_dso__delete(vm);
			return KP_EXIT_FAILURE;
		}
	}
	ret = kp_decode_args__filter(&a, &an.filter, cmd);
	if (ret) {
		kp_dso__delete(vm);
		return ret;
	}
	/* blocked time sits at the switch: not an instruction's cost */
	if (!an.filter.offcpu_only)
		an.filter.no_offcpu = true;
	if (kp_decode_args__open(&a, &d, &opts, cmd)) {
		kp_filter__exit(&an.filter);
		kp_dso__delete(vm);
		return KP_EXIT_FAILURE;
	}
	ret = kp_decoder__for_each(&d, annotate__sample, &an);
	if (ret)
		goto out;
	kp_annotate__sort(&an.a);
	kernel_ok = vm || same_kernel(&d, &opts.machine);
	ao.vmlinux = vm;
	ao.srcline = kp_srcline__new(kp_machine__debug_dir(d.machine));
	for (i = 0; i < an.a.nr; i++) {
		const struct kp_annotate_sym *s = an.a.list[i];

		if (symbol && strcmp(s->sym->name, symbol))
			continue;
		if (!symbol && percent_limit > 0 &&
		    kp_annotate__share(&an.a, s, ao.percent_type) < percent_limit)
			continue;
		if (s->sym->dso && s->sym->dso->kernel && !kernel_ok) {
			if (!shown_kernel_note)
				fprintf(stderr, "kprofctl: %s: %s was recorded on %s (%s), not on this kernel: its kernel symbols need --vmlinux\n",
					cmd, a.input, d.info.hostname, d.info.release);
			shown_kernel_note = true;
			failed++;
			continue;
		}
		/* branch targets in the kernel: its symbols, loaded once a kernel symbol is shown */
		if (s->sym->dso && s->sym->dso->kernel)
			ao.kernel = kp_machine__kernel(d.machine);
		ao.event_name = kp_decoder__event_name(&d, s->event);
		if (shown)
			fputc('\n', stdout);
		kp_err__clear(&err);
		if (kp_annotate__print(&an.a, s, &ao, stdout, &err)) {
			kp_err__print(&err, cmd);
			failed++;
			continue;
		}
		shown++;
	}
	if (!shown && !failed) {
		if (symbol)
			kp_error(cmd, "no samples in symbol '%s' in %s", symbol, a.input);
		else
			kp_error(cmd, "no samples to annotate in %s%s", a.input,
				 an.module ? " in that module" : "");
		ret = KP_EXIT_FAILURE;
	} else if (!shown) {
		ret = KP_EXIT_FAILURE;
	}
	kp_srcline__delete(ao.srcline);
out:
	kp_decoder__close(&d);
	kp_annotate__exit(&an.a);
	kp_filter__exit(&an.filter);
	kp_dso__delete(vm);
	if (ret == KP_EXIT_FAILURE)
		return ret;
	return kp_decode__exit_code(cmd, ret);
}
