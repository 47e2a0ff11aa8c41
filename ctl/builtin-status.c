// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl status [--json]
 */
#include <inttypes.h>
#include <stdio.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/json.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/util.h"

static const char * const status_usage[] = {
	"kprofctl status [--json]",
	"",
	"Show the state of kprof.ko: session state, module and kernel release,",
	"CPUs, sessions started and /dev/kprof readers open since the module was",
	"loaded, and its uptime.  Needs CAP_PERFMON or CAP_SYS_ADMIN.",
	NULL
};

static void status__print_text(const struct kp_version_info *v,
			       const struct kp_status_info *st, uint64_t now_ns)
{
	const char *state = kp_state__name(st->state);
	char abi[16], uptime[64] = "unknown (clock mismatch)";
	uint64_t up;

	if (!kp_uptime_ns(st->loaded_ns, now_ns, &up))
		kp_fmt_duration(uptime, sizeof(uptime), up);

	if (state)
		printf("state:     %s\n", state);
	else
		printf("state:     unknown (%u)\n", st->state);
	printf("module:    kprof.ko %s (ABI %s) on %s\n", v->release,
	       kp_fmt_abi(abi, sizeof(abi), v->abi), v->kernel);
	printf("cpus:      %u possible, %u online\n", st->nr_cpus, st->online_cpus);
	printf("sessions:  %" PRIu64 " started\n", st->sessions);
	printf("readers:   %u open\n", st->readers);
	printf("uptime:    %s\n", uptime);
}

static int status__print_json(const struct kp_version_info *v,
			      const struct kp_status_info *st, uint64_t now_ns)
{
	const char *state = kp_state__name(st->state);
	struct json_writer w;
	uint64_t up;

	json_writer__init(&w, stdout);
	json__begin_object(&w, NULL);
	json__string(&w, "state", state ? state : "unknown");
	json__u64(&w, "state_id", st->state);
	json__string(&w, "release", v->release);
	json__begin_object(&w, "abi");
	json__u64(&w, "major", KPROF_ABI_VERSION_MAJOR(v->abi));
	json__u64(&w, "minor", KPROF_ABI_VERSION_MINOR(v->abi));
	json__end_object(&w);
	json__string(&w, "kernel", v->kernel);
	json__u64(&w, "cpus_possible", st->nr_cpus);
	json__u64(&w, "cpus_online", st->online_cpus);
	json__u64(&w, "sessions", st->sessions);
	json__u64(&w, "readers", st->readers);
	json__u64(&w, "loaded_ns", st->loaded_ns);
	if (kp_uptime_ns(st->loaded_ns, now_ns, &up))
		json__null(&w, "uptime_ns");
	else
		json__u64(&w, "uptime_ns", up);
	json__end_object(&w);
	return json_writer__finish(&w);
}

int cmd_status(int argc, const char **argv)
{
	const char *cmd = argv[0];
	bool json = false;
	const struct option options[] = {
		OPT_BOOLEAN(0, "json", &json, "print one JSON object"),
		OPT_END()
	};
	struct kp_version_info ver;
	struct kp_status_info st;
	struct kp_err err;
	struct kp_nl *nl;
	int ret = KP_EXIT_FAILURE;

	argc = parse_options(argc, argv, options, status_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	nl = kp_nl__open(&err);
	if (!nl)
		goto out_err;
	if (kp_nl__hello(nl, &ver, &err) || kp_nl__status(nl, &st, &err))
		goto out_err;

	if (json)
		status__print_json(&ver, &st, kp_clock_ns());
	else
		status__print_text(&ver, &st, kp_clock_ns());
	ret = KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	kp_nl__delete(nl);
	return ret;
}
