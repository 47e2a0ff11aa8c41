// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl rotate [--id <id>] -o <file>
 *
 * End the current interval of a session started with 'kprofctl start
 * --intervals' and save it: AGG_SWAP (kprof.ko ABI 1.15) closes the
 * interval, sampling goes on into the other half of the tables, and the
 * closed half, frozen, is read into an aggregated kprof.data (agg.h)
 * whose start and end are the interval's.  Nothing is lost between two
 * rotations: each sample is in one interval.  Documentation/aggregation.rst,
 * "Intervals: the swap".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "lib/agg.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/util.h"

static const char * const rotate_usage[] = {
	"kprofctl rotate [--id <id>] -o <file>",
	"",
	"End the current interval of an aggregating session started with",
	"'kprofctl start --intervals', and save it to <file>, an aggregated",
	"profile for 'kprofctl report -i <file>' and the other offline commands,",
	"whose start and end are the interval's.  The session goes on sampling",
	"into the next interval; each sample is in exactly one of them, so the",
	"files of successive rotations add up to the session's profile.  Off-CPU",
	"and lock time of a wait still open is split at the rotation.  Without",
	"--id, the running session (needed while several run).  Needs",
	"CAP_PERFMON or CAP_SYS_ADMIN, and kprof.ko ABI 1.15.",
	NULL
};

int cmd_rotate(int argc, const char **argv)
{
	const char *cmd = argv[0], *output = NULL;
	uint64_t id = 0;
	const struct option options[] = {
		OPT_U64(0, "id", &id, "id", "the session (kprofctl status lists them)"),
		OPT_STRING('o', "output", &output, "file", "where to save the interval"),
		OPT_END()
	};
	struct kp_agg_save_opts o = { .cmd = cmd, .quiet = false };
	struct kp_version_info ver;
	struct kp_agg_interval iv;
	struct kp_agg_summary sum;
	char what[128];
	struct kp_status_info st;
	struct kp_err err;
	struct kp_nl *nl;
	int ret = KP_EXIT_FAILURE;

	argc = parse_options(argc, argv, options, rotate_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (!output) {
		kp_error(cmd, "-o/--output is needed: where to save the interval");
		return KP_EXIT_USAGE;
	}

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__hello(nl, &ver, &err))
		goto out_err;
	if (KPROF_ABI_VERSION_MINOR(ver.abi) < 15) {
		kp_err__set(&err, EOPNOTSUPP, "kprof.ko %s has no intervals (ABI %u.%u, rotate needs 1.15)",
			    ver.release, KPROF_ABI_VERSION_MAJOR(ver.abi),
			    KPROF_ABI_VERSION_MINOR(ver.abi));
		goto out_err;
	}
	kp_nl__set_session(nl, id);
	if (kp_nl__status(nl, &st, &err))
		goto out_err;
	if (!st.has_session || st.state == KPROF_STATE_IDLE) {
		kp_err__set(&err, ENOENT, "no session: start one with 'kprofctl start --intervals'");
		goto out_err;
	}
	if (!(st.session_flags & KPROF_SESSION_F_INTERVALS)) {
		kp_err__set(&err, EOPNOTSUPP,
			    "session %" PRIu64 " was not started with --intervals: 'kprofctl stop -o <file>' saves it",
			    st.session_id);
		goto out_err;
	}
	/* the swap, the dump and the mappings all read this session */
	kp_nl__set_session(nl, st.session_id);
	if (kp_nl__agg_swap(nl, &iv, &err))
		goto out_err;
	o.interval = &iv;
	if (kp_agg__save_profile(nl, output, &o, &sum, &err))
		goto out_err;
	snprintf(what, sizeof(what), "interval %" PRIu64 " of session %" PRIu64 ", %.3f s",
		 iv.epoch, st.session_id, (iv.end_ns - iv.start_ns) / 1e9);
	kp_agg_summary__print(&sum, "rotate", output, what);
	ret = KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	kp_nl__delete(nl);
	return ret;
}
