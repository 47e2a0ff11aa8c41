// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl list [hw|sw|cache|raw]
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "lib/events.h"
#include "lib/parse-options.h"
#include "lib/sys.h"
#include "lib/util.h"

static const char * const list_usage[] = {
	"kprofctl list [hw|sw|cache|raw]",
	"",
	"List the event names that -e of 'kprofctl record' and 'kprofctl start'",
	"accepts, as 'perf list' does; hardware, cache and raw events need a",
	"hardware PMU, which most virtual machines lack.",
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
		{ "raw",	KP_EVENT_RAW },
	};
	const struct option options[] = {
		OPT_END()
	};
	const char *cmd = argv[0];
	unsigned int classes = KP_EVENT_ALL;
	size_t i;

	argc = parse_options(argc, argv, options, list_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 1))
		return KP_EXIT_USAGE;
	if (argc) {
		for (i = 0; i < KP_ARRAY_SIZE(filters); i++)
			if (!strcmp(argv[0], filters[i].name))
				break;
		if (i == KP_ARRAY_SIZE(filters)) {
			kp_error(cmd, "unknown event class '%s' (hw, sw, cache or raw)", argv[0]);
			return KP_EXIT_USAGE;
		}
		classes = filters[i].classes;
	}

	printf("\nList of pre-defined events (to be used in -e):\n\n");
	kp_events__list(stdout, classes);
	if ((classes & (KP_EVENT_HW | KP_EVENT_CACHE | KP_EVENT_RAW)) && !kp_sys__has_hw_pmu())
		printf("\nThis machine has no hardware PMU: only software events can be used\n"
		       "(cycles falls back to cpu-clock).\n");
	printf("\n");
	return KP_EXIT_OK;
}
