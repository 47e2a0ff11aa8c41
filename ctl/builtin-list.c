// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl list [hw|sw|cache|pmu|raw|tracepoint|probe] [GLOB]
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "lib/events.h"
#include "lib/parse-options.h"
#include "lib/sys.h"
#include "lib/util.h"

static const char * const list_usage[] = {
	"kprofctl list [hw|sw|cache|pmu|raw|tracepoint|probe] [GLOB]",
	"",
	"List the event names that -e of 'kprofctl record' and 'kprofctl start'",
	"accepts, as 'perf list' does, of one class and/or matching GLOB",
	"(e.g. 'sched:*'); hardware, cache and raw events need a hardware PMU,",
	"which most virtual machines lack.  Tracepoints come from tracefs, the",
	"kernel's PMUs (with their types) and their PMU/EVENT/ names from",
	"/sys/bus/event_source/devices.",
	NULL
};

int cmd_list(int argc, const char **argv)
{
	static const struct {
		const char	*name;
		unsigned int	classes;
	} filters[] = {
		{ "hw",		KP_EVENT_HW },
		{ "hardware",	KP_EVENT_HW },
		{ "sw",		KP_EVENT_SW },
		{ "software",	KP_EVENT_SW },
		{ "cache",	KP_EVENT_CACHE },
		{ "hwcache",	KP_EVENT_CACHE },
		{ "pmu",	KP_EVENT_PMU },
		{ "raw",	KP_EVENT_RAW },
		{ "tracepoint",	KP_EVENT_TRACEPOINT },
		{ "probe",	KP_EVENT_PROBE },
	};
	const struct option options[] = {
		OPT_END()
	};
	const char *cmd = argv[0];
	unsigned int classes = KP_EVENT_ALL;
	const char *glob = NULL;
	size_t i;

	argc = parse_options(argc, argv, options, list_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 2))
		return KP_EXIT_USAGE;
	if (argc) {
		for (i = 0; i < KP_ARRAY_SIZE(filters); i++)
			if (!strcmp(argv[0], filters[i].name))
				break;
		if (i < KP_ARRAY_SIZE(filters)) {
			classes = filters[i].classes;
			glob = argc > 1 ? argv[1] : NULL;
		} else if (argc > 1) {
			kp_error(cmd, "unknown event class '%s' (hw, sw, cache, pmu, raw, tracepoint or probe)",
				 argv[0]);
			return KP_EXIT_USAGE;
		} else {
			glob = argv[0];
		}
	}

	printf("\nList of pre-defined events (to be used in -e):\n\n");
	kp_events__list_glob(stdout, classes, glob);
	if (!glob && (classes & (KP_EVENT_HW | KP_EVENT_CACHE | KP_EVENT_RAW)) &&
	    !kp_sys__has_hw_pmu())
		printf("\nThis machine has no hardware PMU: only software events can be used\n"
		       "(cycles falls back to cpu-clock).\n");
	printf("\n");
	return KP_EXIT_OK;
}
