// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl: the options of the decoding commands; see decode-args.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "decode-args.h"
#include "events.h"
#include "session.h"
#include "util.h"

int kp_decode_args__check(struct kp_decode_args *a, const char *cmd)
{
	if (a->live && a->input) {
		kp_error(cmd, "--live reads the running session: no input file '%s'", a->input);
		return -1;
	}
	if (!a->input)
		a->input = KP_DEFAULT_OUTPUT;
	return 0;
}

int kp_decode_opts__time(struct kp_decode_opts *opts, const char *time, const char *cmd)
{
	if (!time)
		return 0;
	if (kp_parse_time_ranges(time, &opts->time)) {
		kp_error(cmd, "bad --time value '%s' (START,END in seconds, either may be empty, "
			 "several separated by spaces; or slices: 10%%/2, 0%%-10%%, ...)", time);
		return KP_EXIT_USAGE;
	}
	return 0;
}

int kp_decode_args__filter(const struct kp_decode_args *a, struct kp_filter *f,
			   const char *cmd)
{
	struct kp_decode_opts o = { 0 };
	int ret;

	if (kp_decode_opts__time(&o, a->time, cmd))
		return KP_EXIT_USAGE;
	if (a->no_offcpu && a->offcpu_only) {
		kp_error(cmd, "options --no-off-cpu and --off-cpu-only are mutually exclusive");
		return KP_EXIT_USAGE;
	}
	ret = kp_filter__init(f, cmd, a->comms, a->pids, a->tids, a->dsos, a->kernel, a->user);
	f->no_offcpu = a->no_offcpu;
	f->offcpu_only = a->offcpu_only;
	return ret;
}

int kp_decode_args__live(struct kp_decode_args *a, const char *cmd)
{
	struct kp_err err;

	if (!a->live)
		return 0;
	if (kp_agg__live_profile(cmd, a->live_path, sizeof(a->live_path), &err)) {
		kp_err__print(&err, cmd);
		return -1;
	}
	a->input = a->live_path;
	return 0;
}

void kp_decode_args__unlink(struct kp_decode_args *a)
{
	if (a->live)
		unlink(a->live_path);
}

int kp_decode_args__open(struct kp_decode_args *a, struct kp_decoder *d,
			 struct kp_decode_opts *opts, const char *cmd)
{
	struct kp_err err;
	int ret;

	opts->machine.cmd = cmd;
	opts->machine.proc_root = true;
	if (kp_decode_opts__time(opts, a->time, cmd))	/* checked by kp_decode_args__filter() */
		return -1;
	if (kp_decode_args__live(a, cmd))
		return -1;
	ret = kp_decoder__open(d, a->input, opts, &err);
	kp_decode_args__unlink(a);	/* mapped: read on after the unlink */
	if (ret) {
		kp_err__print(&err, cmd);
		return -1;
	}
	return 0;
}

int kp_decode__exit_code(const char *cmd, int ret)
{
	if (!ret)
		return KP_EXIT_OK;
	kp_error(cmd, "%s", ret == -ENOMEM ? strerror(ENOMEM) :
		 "the input file changed while it was read");
	return KP_EXIT_FAILURE;
}

void kp_decoder__fprintf_header(const struct kp_decoder *d, FILE *fp)
{
	const struct kp_data_info *info = &d->info;
	const struct kp_session *s = &info->session;
	char buf[128], tname[32], canon[64];
	time_t when = info->start_realtime / 1000000000ULL;
	struct tm tm;
	unsigned int i;

	fprintf(fp, "# ========\n");
	if (info->start_realtime && gmtime_r(&when, &tm) &&
	    strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y UTC", &tm))
		fprintf(fp, "# captured on    : %s\n", buf);
	fprintf(fp, "# header version : %u\n", info->version);
	fprintf(fp, "# data offset    : %u\n", info->header_size);
	fprintf(fp, "# data size      : %" PRIu64 "\n", info->data_size);
	fprintf(fp, "# hostname : %s\n", info->hostname);
	fprintf(fp, "# os release : %s\n", info->release);
	fprintf(fp, "# kprofctl version : %s\n", info->kprofctl_version);
	fprintf(fp, "# kprof.ko version : %s\n", info->module_release);
	fprintf(fp, "# arch : %s\n", info->machine);
	fprintf(fp, "# nrcpus online : %u\n", info->nr_cpus);
	fprintf(fp, "# cmdline : %s\n", info->cmdline);
	for (i = 0; i < s->nr_events; i++) {
		const struct kp_event *ev = &s->events[i];

		fprintf(fp, "# event : name = %s, type = %u (%s), config = %#" PRIx64 " (%s), ",
			ev->name, ev->type, kp_event__type_name(ev->type, tname, sizeof(tname)),
			ev->config, kp_event__canonical(ev->type, ev->config, canon, sizeof(canon)));
		if (ev->period)
			fprintf(fp, "sample_period = %" PRIu64 "\n", ev->period);
		else if (s->freq)
			fprintf(fp, "sample_freq = %u, freq = 1\n", s->freq);
		else
			fprintf(fp, "sample_period = %" PRIu64 "\n", s->period);
	}
	fprintf(fp, "# kprof session : %s, stack depth %u, buffer %u bytes per CPU\n",
		kp_session_flags__format(s->flags, buf, sizeof(buf)), s->stack_depth,
		s->buffer_size);
	if (info->end_time > info->start_time)
		fprintf(fp, "# sample duration : %10.3f ms\n",
			(info->end_time - info->start_time) / 1e6);
	fprintf(fp, "# samples : %" PRIu64 ", lost : %" PRIu64 "%s\n", d->nr_samples,
		kp_decoder__lost(d), d->finished ? "" : " (the recording did not finish)");
	fprintf(fp, "# ========\n#\n");
}
