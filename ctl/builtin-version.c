// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl version [--json]
 *
 * Works without the module: a missing kprof.ko is reported, not an error.
 */
#include <stdio.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/json.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/util.h"

static const char * const version_usage[] = {
	"kprofctl version [--json]",
	"",
	"Show the version and ABI of kprofctl and, when it is loaded, of kprof.ko",
	"and the kernel it runs on.  Fails when their ABI major versions differ.",
	NULL
};

/* Whether kprof.ko is loaded; unknown when the netlink socket failed. */
enum module_state {
	MODULE_UNKNOWN,
	MODULE_NOT_LOADED,
	MODULE_LOADED,
};

static void version__print_text(const struct kp_version_info *v,
				enum module_state module)
{
	char abi[16];

	printf("kprofctl %s (ABI %s)\n", kprofctl_version,
	       kp_fmt_abi(abi, sizeof(abi), KPROF_ABI_VERSION));
	if (v->release[0])
		printf("kprof.ko %s (ABI %s) on %s\n", v->release,
		       kp_fmt_abi(abi, sizeof(abi), v->abi), v->kernel);
	else if (module == MODULE_NOT_LOADED)
		printf("kprof.ko: not loaded\n");
}

static void version__json_abi(struct json_writer *w, uint32_t abi)
{
	json__begin_object(w, "abi");
	json__u64(w, "major", KPROF_ABI_VERSION_MAJOR(abi));
	json__u64(w, "minor", KPROF_ABI_VERSION_MINOR(abi));
	json__end_object(w);
}

/* {"kprofctl":{...},"loaded":true|false|null,"module":{...}|null} */
static void version__print_json(const struct kp_version_info *v,
				enum module_state module)
{
	struct json_writer w;

	json_writer__init(&w, stdout);
	json__begin_object(&w, NULL);
	json__begin_object(&w, "kprofctl");
	json__string(&w, "version", kprofctl_version);
	version__json_abi(&w, KPROF_ABI_VERSION);
	json__end_object(&w);
	if (module == MODULE_UNKNOWN)
		json__null(&w, "loaded");
	else
		json__bool(&w, "loaded", module == MODULE_LOADED);
	if (v->release[0]) {
		json__begin_object(&w, "module");
		json__string(&w, "release", v->release);
		version__json_abi(&w, v->abi);
		json__string(&w, "kernel", v->kernel);
		json__end_object(&w);
	} else {
		json__null(&w, "module");
	}
	json__end_object(&w);
}

int cmd_version(int argc, const char **argv)
{
	const char *cmd = argv[0];
	bool json = false;
	const struct option options[] = {
		OPT_BOOLEAN(0, "json", &json, "print one JSON object"),
		OPT_END()
	};
	struct kp_version_info ver = { 0 };
	struct kp_err err;
	struct kp_nl *nl;
	enum module_state module = MODULE_UNKNOWN;
	int ret = KP_EXIT_OK;

	argc = parse_options(argc, argv, options, version_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	nl = kp_nl__open(&err);
	if (nl) {
		module = MODULE_LOADED;
		if (kp_nl__hello(nl, &ver, &err))
			ret = KP_EXIT_FAILURE;
		kp_nl__delete(nl);
	} else if (err.not_loaded) {
		module = MODULE_NOT_LOADED;
	} else {
		ret = KP_EXIT_FAILURE;
	}

	if (json)
		version__print_json(&ver, module);
	else
		version__print_text(&ver, module);
	if (ret)
		kp_err__print(&err, cmd);
	return ret;
}
