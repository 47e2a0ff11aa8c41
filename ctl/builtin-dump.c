// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl dump [-i <file>] [--json] [--header-only]
 *
 * The raw contents of kprof.data, one block per record, like
 * 'perf report -D'.  The text format is stable and meant to be parsed (the
 * module's tests do):
 *
 *	# key: value			the header, one line per field
 *	# event[N]: type=T config=0xC flags=0xF name=NAME
 *
 *	OFFSET [SIZE]: TYPE key=value ...	one line per record (hex offset
 *						and size), then for a SAMPLE
 *						or an AGG:
 *	... chain: nr=N
 *	.....  I: 0xADDRESS [k]		kernel frames, then [u] user frames
 *
 * Records are separated by an empty line.  Numbers are decimal, except
 * addresses, flags, misc and config (0x hexadecimal); strings are quoted
 * with C escapes.  --json prints one JSON object per line: the header,
 * then one per record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/buildid.h"
#include "lib/cpumap.h"
#include "lib/data.h"
#include "lib/events.h"
#include "lib/json.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/record.h"
#include "lib/session.h"
#include "lib/tpdecode.h"
#include "lib/util.h"

static const char * const dump_usage[] = {
	"kprofctl dump [-i <file>] [--json] [--header-only]",
	"",
	"Print the header and every record of a kprof.data file in a raw, exact",
	"and parseable form, one block per record (like 'perf report -D'), or one",
	"JSON object per line.  The file is validated as it is read: corruption",
	"stops the dump with an error naming the byte offset.",
	NULL
};

/* A C-escaped, double-quoted string. */
static void print_quoted(FILE *fp, const char *s)
{
	fputc('"', fp);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", fp);
		else if (c == '\t')
			fputs("\\t", fp);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(fp, "\\x%02x", c);
		else
			fputc(c, fp);
	}
	fputc('"', fp);
}

static const char *lost_cause(uint32_t cause)
{
	switch (cause) {
	case KPROF_LOST_FULL:
		return "full";
	case KPROF_LOST_TOO_BIG:
		return "too_big";
	case KPROF_LOST_AGG_FULL:
		return "agg_full";
	case KPROF_LOST_AGG_RESET:
		return "agg_reset";
	case KPROF_LOST_RECURSION:
		return "recursion";
	case KPROF_LOST_COST:
		return "cost";
	}
	return "unknown";
}

/*
 * The name of counter @i of a STATS record (enum kp_stat, then the
 * aggregation counters from KP_DATA_STATS_AGG); NULL for the unused slot
 * between them.
 */
static const char *stat_name(unsigned int i, char *buf, size_t len)
{
	if (i < KP_STATS_NR)
		return kp_stat__name(i);
	if (i >= KP_DATA_STATS_AGG && i < KP_DATA_STATS_AGG + KP_AGG_STATS_NR)
		return kp_agg_stat__name(i - KP_DATA_STATS_AGG);
	if (i == KP_DATA_STATS_IDX(KPROF_STATS_A_FILTERED))
		return "filtered";
	if (i == KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_RECURSION))
		return "lost_recursion";
	if (i == KP_DATA_STATS_IDX(KPROF_STATS_A_NESTED))
		return "nested";
	if (i == KP_DATA_STATS_IDX(KPROF_STATS_A_LOST_COST))
		return "lost_cost";
	if (i < KP_DATA_STATS_AGG)
		return NULL;
	snprintf(buf, len, "stat%u", i);
	return buf;
}

static void cpu_list(const struct kp_data_info *info, char *buf, size_t len)
{
	if (!info->session.cpus_bytes)
		snprintf(buf, len, "all");
	else
		kp_cpumap__format(info->session.cpus, info->session.cpus_bytes, buf, len);
}

static void dump_header_text(const struct kp_data_info *info, const struct kp_tp_formats *tp,
			     uint32_t vdso_size)
{
	const struct kp_session *s = &info->session;
	char buf[4096], abi[16], flags[128], canon[64], tname[32];
	size_t pos = 0;
	uint32_t i;

	printf("# version: %u\n", info->version);
	printf("# header_size: %u\n", info->header_size);
	printf("# flags: 0x%x%s\n", info->flags,
	       info->flags & KP_DATA_F_FINISHED ? " (finished)" : "");
	printf("# session_id: %" PRIu64 "\n", info->session_id);
	printf("# nr_cpus: %u\n", info->nr_cpus);
	printf("# session_flags: 0x%x (%s)\n", s->flags,
	       kp_session_flags__format(s->flags, flags, sizeof(flags)));
	printf("# freq: %u\n", s->freq);
	printf("# period: %" PRIu64 "\n", s->period);
	printf("# buffer_size: %u\n", s->buffer_size);
	printf("# stack_depth: %u\n", s->stack_depth);
	buf[0] = '\0';
	for (i = 0; i < s->nr_pids && pos < sizeof(buf); i++)
		pos += snprintf(buf + pos, sizeof(buf) - pos, "%s%u", i ? "," : "", s->pids[i]);
	printf("# %s: %s\n", s->flags & KPROF_SESSION_F_THREADS ? "tids" : "pids",
	       s->nr_pids ? buf : "none");
	cpu_list(info, buf, sizeof(buf));
	printf("# cpus: %s\n", buf);
	printf("# start_time: %" PRIu64 "\n", info->start_time);
	printf("# end_time: %" PRIu64 "\n", info->end_time);
	printf("# start_realtime: %" PRIu64 "\n", info->start_realtime);
	printf("# data_size: %" PRIu64 "\n", info->data_size);
	printf("# abi: %s\n", kp_fmt_abi(abi, sizeof(abi), info->abi_version));
	printf("# release: %s\n", info->release);
	printf("# hostname: %s\n", info->hostname);
	printf("# machine: %s\n", info->machine);
	printf("# kprofctl: %s\n", info->kprofctl_version);
	printf("# module: %s\n", info->module_release);
	printf("# cmdline: %s\n", info->cmdline);
	printf("# nr_events: %u\n", s->nr_events);
	for (i = 0; i < s->nr_events; i++) {
		const struct kp_event *ev = &s->events[i];

		printf("# event[%u]: type=%u (%s) config=0x%" PRIx64 " (%s) flags=0x%x name=%s\n",
		       i, ev->type, kp_event__type_name(ev->type, tname, sizeof(tname)),
		       ev->config, kp_event__canonical(ev->type, ev->config, canon, sizeof(canon)),
		       ev->flags, ev->name);
	}
	for (i = 0; i < s->nr_events; i++)
		if (tp->text[i])
			printf("# tp_format[%u]: %u bytes\n", i, tp->size[i]);
	if (vdso_size)
		printf("# vdso: %u bytes\n", vdso_size);
	printf("\n");
}

/* Tracepoint samples: the raw record, decoded with libtraceevent. */
static struct kp_tpdecode *dump_tp;

static void dump_raw(const struct kp_rec_sample *s, unsigned int nr)
{
	const char *text;
	const void *raw;
	uint32_t len;

	raw = kp_sample__raw(s, s->header.size, nr, &len);
	if (!raw) {
		printf("... raw: malformed\n");
		return;
	}
	printf("... raw: size=%u%s\n", len, s->flags & KPROF_SAMPLE_F_RAW_TRUNC ? " truncated" : "");
	text = dump_tp ? kp_tpdecode__fields(dump_tp, s->event, raw, len) : NULL;
	if (text)
		printf("..... %s\n", text);
}

static void dump_record_text(const struct kprof_record_header *h, uint64_t off)
{
	const char *name = kp_record__type_name(h->type);
	unsigned int i;

	printf("0x%" PRIx64 " [0x%x]: %s misc=0x%x", off, h->size, name, h->misc);
	switch (h->type) {
	case KPROF_RECORD_SAMPLE: {
		const struct kp_rec_sample *s = (const void *)h;
		unsigned int nr = s->nr_kernel + s->nr_user;
		struct kp_ustack u;

		printf(" time=%" PRIu64 " cpu=%u pid=%u tid=%u event=%u ip=0x%016" PRIx64
		       " [%s] period=%" PRIu64 " flags=0x%x nr_kernel=%u nr_user=%u\n",
		       s->time, s->cpu, s->pid, s->tid, s->event, s->ip,
		       h->misc & KPROF_MISC_KERNEL ? "k" : h->misc & KPROF_MISC_USER ? "u" : "?",
		       s->period, s->flags, s->nr_kernel, s->nr_user);
		printf("... chain: nr=%u\n", nr);
		for (i = 0; i < nr; i++)
			printf(".....  %u: 0x%016" PRIx64 " [%s]\n", i, s->ips[i],
			       i < s->nr_kernel ? "k" : "u");
		if (h->misc & KPROF_MISC_RAW)
			dump_raw(s, nr);
		if (kp_sample__ustack(s, &u))	/* as perf report -D prints its user regs */
			printf("... user regs: bp 0x%016" PRIx64 " sp 0x%016" PRIx64 " ip 0x%016"
			       PRIx64 "\n... ustack: size %u\n", u.bp, u.sp, u.ip, u.size);
		break;
	}
	case KPROF_RECORD_LOST: {
		const struct kp_rec_lost *l = (const void *)h;

		printf(" time=%" PRIu64 " cpu=%u lost=%" PRIu64 " cause=%s\n", l->time, l->cpu,
		       l->lost, lost_cause(l->cause));
		break;
	}
	case KPROF_RECORD_THROTTLE: {
		const struct kp_rec_throttle *t = (const void *)h;

		printf(" time=%" PRIu64 " cpu=%u event=%u\n", t->time, t->cpu, t->event);
		break;
	}
	case KPROF_RECORD_COMM: {
		const struct kp_rec_comm *c = (const void *)h;

		printf(" time=%" PRIu64 " pid=%u tid=%u exec=%d comm=", c->time, c->pid, c->tid,
		       !!(h->misc & KPROF_MISC_COMM_EXEC));
		print_quoted(stdout, c->comm);
		printf("\n");
		break;
	}
	case KPROF_RECORD_EXIT: {
		const struct kp_rec_exit *x = (const void *)h;

		printf(" time=%" PRIu64 " pid=%u tid=%u\n", x->time, x->pid, x->tid);
		break;
	}
	case KPROF_RECORD_FORK: {
		const struct kp_rec_fork *f = (const void *)h;

		printf(" time=%" PRIu64 " pid=%u tid=%u ppid=%u ptid=%u\n", f->time, f->pid,
		       f->tid, f->ppid, f->ptid);
		break;
	}
	case KPROF_RECORD_MMAP: {
		const struct kp_rec_mmap *m = (const void *)h;

		printf(" time=%" PRIu64 " pid=%u tid=%u start=0x%" PRIx64 " len=0x%" PRIx64
		       " pgoff=0x%" PRIx64 " filename=", m->time, m->pid, m->tid, m->start, m->len,
		       m->pgoff);
		print_quoted(stdout, m->filename);
		printf("\n");
		break;
	}
	case KP_DATA_REC_STATS: {
		const struct kp_rec_stats *st = (const void *)h;

		if (st->cpu == KP_DATA_STATS_TOTAL)
			printf(" cpu=total");
		else
			printf(" cpu=%u", st->cpu);
		printf(" nr=%u", st->nr);
		for (i = 0; i < st->nr; i++) {
			char buf[16];
			const char *name = stat_name(i, buf, sizeof(buf));

			if (name)
				printf(" %s=%" PRIu64, name, st->v[i]);
		}
		printf("\n");
		break;
	}
	case KP_DATA_REC_AGG: {
		const struct kp_rec_agg *a = (const void *)h;
		unsigned int nr = a->nr_kernel + a->nr_user;

		printf(" event=%u pid=%u comm=", a->event, a->pid);
		print_quoted(stdout, a->comm);
		printf(" count=%" PRIu64 " nr_entries=%u nr_kernel=%u nr_user=%u\n", a->count,
		       a->nr_entries, a->nr_kernel, a->nr_user);
		printf("... chain: nr=%u\n", nr);
		for (i = 0; i < nr; i++)
			printf(".....  %u: 0x%016" PRIx64 " [%s]\n", i, a->ips[i],
			       i < a->nr_kernel ? "k" : "u");
		break;
	}
	case KP_DATA_REC_FINISHED: {
		const struct kp_rec_finished *f = (const void *)h;

		printf(" time=%" PRIu64 " nr_records=%" PRIu64 " data_size=%" PRIu64
		       " wakeups=%" PRIu64 "\n", f->time, f->nr_records, f->data_size, f->wakeups);
		break;
	}
	case KP_DATA_REC_BUILD_ID: {
		const struct kp_rec_build_id *b = (const void *)h;
		char hex[KP_BUILDID_HEX_MAX];

		printf(" pid=%u size=%u build_id=%s filename=%s\n", b->pid, b->size,
		       kp_buildid__hex(b->build_id, b->size, hex), b->filename);
		break;
	}
	case KP_DATA_REC_SWITCH: {
		const struct kp_rec_switch *sw = (const void *)h;

		printf(" time=%" PRIu64 " seq=%u samples_before=%" PRIu64 "\n", sw->time, sw->seq,
		       sw->samples_before);
		break;
	}
	case KP_DATA_REC_SYNTH_DONE: {
		const struct kp_rec_synth_done *sd = (const void *)h;

		printf(" time=%" PRIu64 " nr_processes=%u nr_threads=%u nr_mmaps=%u nr_vanished=%u\n",
		       sd->time, sd->nr_processes, sd->nr_threads, sd->nr_mmaps, sd->nr_vanished);
		break;
	}
	default:
		printf("\n");
	}
	printf("\n");
}

static void json_hex(struct json_writer *w, const char *key, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	json__string(w, key, buf);
}

static void dump_header_json(const struct kp_data_info *info, const struct kp_tp_formats *tp,
			     uint32_t vdso_size)
{
	const struct kp_session *s = &info->session;
	char buf[4096], canon[64], tname[32];
	struct json_writer w;
	uint32_t i;

	json_writer__init(&w, stdout);
	json__begin_object(&w, NULL);
	json__begin_object(&w, "header");
	json__u64(&w, "version", info->version);
	json__u64(&w, "header_size", info->header_size);
	json__u64(&w, "flags", info->flags);
	json__bool(&w, "finished", info->flags & KP_DATA_F_FINISHED);
	json__u64(&w, "session_id", info->session_id);
	json__u64(&w, "nr_cpus", info->nr_cpus);
	json__u64(&w, "session_flags", s->flags);
	json__u64(&w, "freq", s->freq);
	json__u64(&w, "period", s->period);
	json__u64(&w, "buffer_size", s->buffer_size);
	json__u64(&w, "stack_depth", s->stack_depth);
	json__begin_array(&w, "pids");
	for (i = 0; i < s->nr_pids; i++)
		json__u64(&w, NULL, s->pids[i]);
	json__end_array(&w);
	cpu_list(info, buf, sizeof(buf));
	json__string(&w, "cpus", buf);
	json__u64(&w, "start_time", info->start_time);
	json__u64(&w, "end_time", info->end_time);
	json__u64(&w, "start_realtime", info->start_realtime);
	json__u64(&w, "data_size", info->data_size);
	json__u64(&w, "abi_version", info->abi_version);
	json__string(&w, "release", info->release);
	json__string(&w, "hostname", info->hostname);
	json__string(&w, "machine", info->machine);
	json__string(&w, "kprofctl", info->kprofctl_version);
	json__string(&w, "module", info->module_release);
	json__string(&w, "cmdline", info->cmdline);
	json__begin_array(&w, "events");
	for (i = 0; i < s->nr_events; i++) {
		const struct kp_event *ev = &s->events[i];

		json__begin_object(&w, NULL);
		json__u64(&w, "type", ev->type);
		json__string(&w, "type_name", kp_event__type_name(ev->type, tname, sizeof(tname)));
		json_hex(&w, "config", ev->config);
		json__string(&w, "canonical",
			     kp_event__canonical(ev->type, ev->config, canon, sizeof(canon)));
		json__u64(&w, "flags", ev->flags);
		json__string(&w, "name", ev->name);
		json__end_object(&w);
	}
	json__end_array(&w);
	if (kp_tp_formats__any(tp)) {
		json__begin_array(&w, "tp_formats");
		for (i = 0; i < s->nr_events; i++) {
			if (!tp->text[i])
				continue;
			json__begin_object(&w, NULL);
			json__u64(&w, "event", i);
			json__u64(&w, "size", tp->size[i]);
			json__end_object(&w);
		}
		json__end_array(&w);
	}
	if (vdso_size)
		json__u64(&w, "vdso_size", vdso_size);
	json__end_object(&w);
	json__end_object(&w);
	json_writer__finish(&w);
}

static void dump_record_json(const struct kprof_record_header *h, uint64_t off)
{
	struct json_writer w;
	unsigned int i;

	json_writer__init(&w, stdout);
	json__begin_object(&w, NULL);
	json__u64(&w, "offset", off);
	json__u64(&w, "size", h->size);
	json__string(&w, "type", kp_record__type_name(h->type));
	json__u64(&w, "type_id", h->type);
	json__u64(&w, "misc", h->misc);
	switch (h->type) {
	case KPROF_RECORD_SAMPLE: {
		const struct kp_rec_sample *s = (const void *)h;
		struct kp_ustack u;

		json__u64(&w, "time", s->time);
		json__u64(&w, "cpu", s->cpu);
		json__u64(&w, "pid", s->pid);
		json__u64(&w, "tid", s->tid);
		json__u64(&w, "event", s->event);
		json_hex(&w, "ip", s->ip);
		json__u64(&w, "period", s->period);
		json__u64(&w, "flags", s->flags);
		json__u64(&w, "nr_kernel", s->nr_kernel);
		json__u64(&w, "nr_user", s->nr_user);
		json__begin_array(&w, "kernel");
		for (i = 0; i < s->nr_kernel; i++)
			json_hex(&w, NULL, s->ips[i]);
		json__end_array(&w);
		json__begin_array(&w, "user");
		for (i = 0; i < s->nr_user; i++)
			json_hex(&w, NULL, s->ips[s->nr_kernel + i]);
		json__end_array(&w);
		if (kp_sample__ustack(s, &u)) {	/* the leaf fix-up's registers and copy size */
			json_hex(&w, "user_bp", u.bp);
			json_hex(&w, "user_sp", u.sp);
			json_hex(&w, "user_ip", u.ip);
			json__u64(&w, "user_stack_size", u.size);
		}
		break;
	}
	case KPROF_RECORD_LOST: {
		const struct kp_rec_lost *l = (const void *)h;

		json__u64(&w, "time", l->time);
		json__u64(&w, "cpu", l->cpu);
		json__u64(&w, "lost", l->lost);
		json__string(&w, "cause", lost_cause(l->cause));
		break;
	}
	case KPROF_RECORD_THROTTLE: {
		const struct kp_rec_throttle *t = (const void *)h;

		json__u64(&w, "time", t->time);
		json__u64(&w, "cpu", t->cpu);
		json__u64(&w, "event", t->event);
		break;
	}
	case KPROF_RECORD_COMM: {
		const struct kp_rec_comm *c = (const void *)h;

		json__u64(&w, "time", c->time);
		json__u64(&w, "pid", c->pid);
		json__u64(&w, "tid", c->tid);
		json__bool(&w, "exec", h->misc & KPROF_MISC_COMM_EXEC);
		json__string(&w, "comm", c->comm);
		break;
	}
	case KPROF_RECORD_EXIT: {
		const struct kp_rec_exit *x = (const void *)h;

		json__u64(&w, "time", x->time);
		json__u64(&w, "pid", x->pid);
		json__u64(&w, "tid", x->tid);
		break;
	}
	case KPROF_RECORD_FORK: {
		const struct kp_rec_fork *f = (const void *)h;

		json__u64(&w, "time", f->time);
		json__u64(&w, "pid", f->pid);
		json__u64(&w, "tid", f->tid);
		json__u64(&w, "ppid", f->ppid);
		json__u64(&w, "ptid", f->ptid);
		break;
	}
	case KPROF_RECORD_MMAP: {
		const struct kp_rec_mmap *m = (const void *)h;

		json__u64(&w, "time", m->time);
		json__u64(&w, "pid", m->pid);
		json__u64(&w, "tid", m->tid);
		json_hex(&w, "start", m->start);
		json_hex(&w, "len", m->len);
		json_hex(&w, "pgoff", m->pgoff);
		json__string(&w, "filename", m->filename);
		break;
	}
	case KP_DATA_REC_STATS: {
		const struct kp_rec_stats *st = (const void *)h;
		char name[32];

		if (st->cpu == KP_DATA_STATS_TOTAL)
			json__string(&w, "cpu", "total");
		else
			json__u64(&w, "cpu", st->cpu);
		for (i = 0; i < st->nr; i++) {
			const char *n = stat_name(i, name, sizeof(name));

			if (n)
				json__u64(&w, n, st->v[i]);
		}
		break;
	}
	case KP_DATA_REC_AGG: {
		const struct kp_rec_agg *a = (const void *)h;

		json__u64(&w, "event", a->event);
		json__u64(&w, "pid", a->pid);
		json__string(&w, "comm", a->comm);
		json__u64(&w, "count", a->count);
		json__u64(&w, "nr_entries", a->nr_entries);
		json__u64(&w, "nr_kernel", a->nr_kernel);
		json__u64(&w, "nr_user", a->nr_user);
		json__begin_array(&w, "kernel");
		for (i = 0; i < a->nr_kernel; i++)
			json_hex(&w, NULL, a->ips[i]);
		json__end_array(&w);
		json__begin_array(&w, "user");
		for (i = 0; i < a->nr_user; i++)
			json_hex(&w, NULL, a->ips[a->nr_kernel + i]);
		json__end_array(&w);
		break;
	}
	case KP_DATA_REC_FINISHED: {
		const struct kp_rec_finished *f = (const void *)h;

		json__u64(&w, "time", f->time);
		json__u64(&w, "nr_records", f->nr_records);
		json__u64(&w, "data_size", f->data_size);
		json__u64(&w, "wakeups", f->wakeups);
		break;
	}
	case KP_DATA_REC_BUILD_ID: {
		const struct kp_rec_build_id *b = (const void *)h;
		char hex[KP_BUILDID_HEX_MAX];

		json__u64(&w, "pid", b->pid);
		json__string(&w, "build_id", kp_buildid__hex(b->build_id, b->size, hex));
		json__string(&w, "filename", b->filename);
		break;
	}
	case KP_DATA_REC_SWITCH: {
		const struct kp_rec_switch *sw = (const void *)h;

		json__u64(&w, "time", sw->time);
		json__u64(&w, "seq", sw->seq);
		json__u64(&w, "samples_before", sw->samples_before);
		break;
	}
	case KP_DATA_REC_SYNTH_DONE: {
		const struct kp_rec_synth_done *sd = (const void *)h;

		json__u64(&w, "time", sd->time);
		json__u64(&w, "nr_processes", sd->nr_processes);
		json__u64(&w, "nr_threads", sd->nr_threads);
		json__u64(&w, "nr_mmaps", sd->nr_mmaps);
		json__u64(&w, "nr_vanished", sd->nr_vanished);
		break;
	}
	}
	json__end_object(&w);
	json_writer__finish(&w);
}

int cmd_dump(int argc, const char **argv)
{
	const char *cmd = argv[0], *input = KP_DEFAULT_OUTPUT;
	bool json = false, header_only = false;
	const struct option options[] = {
		OPT_STRING('i', "input", &input, "file", "input file (default kprof.data)"),
		OPT_BOOLEAN(0, "json", &json, "one JSON object per line"),
		OPT_BOOLEAN(0, "header-only", &header_only, "print the header only"),
		OPT_END()
	};
	const struct kprof_record_header *rec;
	uint64_t off, nr = 0;
	uint32_t vdso_size;
	struct kp_data *d;
	struct kp_err err;
	int ret;

	argc = parse_options(argc, argv, options, dump_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	d = kp_data__open(input, &err);
	if (!d) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	kp_data__vdso(d, &vdso_size);
	if (json)
		dump_header_json(kp_data__info(d), kp_data__tp_formats(d), vdso_size);
	else
		dump_header_text(kp_data__info(d), kp_data__tp_formats(d), vdso_size);
	if (header_only) {
		kp_data__close(d);
		return KP_EXIT_OK;
	}
	dump_tp = kp_tpdecode__new(&kp_data__info(d)->session, kp_data__info(d)->machine,
				   kp_data__tp_formats(d));
	while ((ret = kp_data__next(d, &rec, &off, &err)) > 0) {
		if (json)
			dump_record_json(rec, off);
		else
			dump_record_text(rec, off);
		nr++;
	}
	if (!ret && !json)
		printf("# end: %" PRIu64 " records%s\n", nr,
		       kp_data__finished(d) ? "" : ", unfinished (no FINISHED record)");
	kp_data__close(d);
	kp_tpdecode__delete(dump_tp);
	dump_tp = NULL;
	if (ret < 0) {
		kp_err__print(&err, cmd);
		return KP_EXIT_FAILURE;
	}
	return KP_EXIT_OK;
}
