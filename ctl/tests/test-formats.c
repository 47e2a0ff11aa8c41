// SPDX-License-Identifier: GPL-2.0
/*
 * kprof.data files of every format version, kept: each version's file
 * (tests/golden/formats/vN.data) was written once, when that version was
 * the newest, and every later kprofctl must read it the same way: 'dump'
 * and 'report' of each must match their golden text.  The files are never
 * written again; KP_MAKE_FORMAT_FILES=1 writes the missing ones only (for
 * a new version), from the records below.
 *
 *	v1	a stream: COMM, FORK, MMAP, SAMPLE with chains, LOST, THROTTLE,
 *		EXIT, SYNTH_DONE, STATS
 *	v2	an aggregated profile: AGG and WAKER records
 *	v3	the tracepoint formats section
 *	v4	the vDSO image section
 *	v5	a --switch-output file with SWITCH and BUILD_ID records
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/kprof.h>

#include "fake-nl.h"
#include "gen.h"
#include "lib/record.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

#define DIR	"tests/golden/formats"

static const char tp_format[] =
	"name: sched_switch\nID: 316\nformat:\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d\", REC->prev_comm, REC->prev_pid\n";

static struct kp_data_writer *golden_writer(const char *path, uint32_t version,
					    const struct kp_tp_formats *tp, const void *vdso,
					    uint32_t vdso_size)
{
	struct kp_data_info info;
	struct kp_session *s = &info.session;
	struct kp_data_writer *w;
	struct kp_err err;

	kp_data_info__init(&info);
	info.version = version;
	info.start_time = 1000000000ULL;
	info.start_realtime = 1700000000000000000ULL;
	info.nr_cpus = 2;
	info.session_id = 3;
	snprintf(info.hostname, sizeof(info.hostname), "golden");
	snprintf(info.release, sizeof(info.release), "6.1.0-kprof-golden");
	snprintf(info.kprofctl_version, sizeof(info.kprofctl_version), "0.0.%u", version);
	snprintf(info.module_release, sizeof(info.module_release), "0.0.%u", version);
	snprintf(info.cmdline, sizeof(info.cmdline), "kprofctl record -g (format %u)", version);
	s->flags = KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK |
		   KPROF_SESSION_F_SYSTEM_WIDE;
	if (version == KP_DATA_VERSION_AGG)
		s->flags |= KPROF_SESSION_F_AGGREGATE;
	s->freq = 99;
	s->buffer_size = 1 << 20;
	s->stack_depth = 127;
	s->nr_events = 1;
	s->events[0].type = PERF_TYPE_SOFTWARE;
	s->events[0].config = PERF_COUNT_SW_CPU_CLOCK;
	snprintf(s->events[0].name, sizeof(s->events[0].name), "cpu-clock");
	if (tp) {
		s->nr_events = 2;
		s->events[1].type = PERF_TYPE_TRACEPOINT;
		s->events[1].config = 316;
		snprintf(s->events[1].name, sizeof(s->events[1].name), "sched:sched_switch");
		info.tp_formats = tp;
	}
	info.vdso = vdso;
	info.vdso_size = vdso_size;
	w = kp_data_writer__create(path, &info, &err);
	if (!w)
		gen__check(-1, &err);
	return w;
}

/* The records every version's file has: two processes, chains, losses. */
static void stream_records(struct gen_writer *g)
{
	static const uint64_t ips[] = { 0xffffffff81001000ULL, 0xffffffff81002000ULL,
					0x401010ULL, 0x401020ULL };
	struct kp_rec_throttle t = { .header = { KPROF_RECORD_THROTTLE, 0, sizeof(t) },
				     .time = 1000000500ULL, .cpu = 1 };
	struct kp_rec_exit x = { .header = { KPROF_RECORD_EXIT, 0, sizeof(x) },
				 .time = 1000000900ULL, .pid = 11, .tid = 11 };
	int i;

	gen__comm(g, 1000000000ULL, 10, 10, "golden", true);
	gen__mmap(g, 1000000000ULL, 10, 0x400000, 0x2000, 0, "/nonexistent/golden");
	gen__fork(g, 1000000100ULL, 11, 11, 10, 10);
	gen__comm(g, 1000000100ULL, 11, 11, "child", true);
	for (i = 0; i < 4; i++)
		gen__sample(g, 1000000200ULL + i, 10 + i % 2, 10 + i % 2, i % 2, 0, 10101010,
			    ips + (i % 2 ? 2 : 0), i % 2 ? 0 : 2, 2);
	gen__lost(g, 1000000400ULL, 0, 5);
	gen__write(g, &t);
	gen__write(g, &x);
}

static void stats_and_finish(struct gen_writer *g)
{
	struct kp_rec_stats_buf s;
	struct kp_stats st = { 0 };

	st.v[KP_STAT_INVOCATIONS] = 9;
	st.v[KP_STAT_SAMPLES] = 4;
	st.v[KP_STAT_LOST_FULL] = 5;
	st.v[KP_STAT_HANDLER_NS] = 9000;
	st.v[KP_STAT_HANDLER_MAX_NS] = 2000;
	kp_rec_stats__fill(&s, KP_DATA_STATS_TOTAL, &st, false);
	gen__write(g, &s.rec.header);
	gen__finish(g, 1000001000ULL);
}

static void make_v1(const char *path)
{
	struct kp_rec_synth_done sd = { .header = { KP_DATA_REC_SYNTH_DONE, 0, sizeof(sd) },
					.time = 1000000000ULL, .nr_processes = 1,
					.nr_threads = 1, .nr_mmaps = 1 };
	struct gen_writer g = { .w = golden_writer(path, 1, NULL, NULL, 0) };

	stream_records(&g);
	gen__write(&g, &sd);
	stats_and_finish(&g);
}

static void make_v2(const char *path)
{
	uint64_t buf[32] = { 0 };
	struct kp_rec_agg *a = (void *)buf;
	struct kp_rec_waker *wk = (void *)buf;
	struct gen_writer g = { .w = golden_writer(path, 2, NULL, NULL, 0) };

	gen__comm(&g, 1000000000ULL, 10, 10, "golden", true);
	gen__mmap(&g, 1000000000ULL, 10, 0x400000, 0x2000, 0, "/nonexistent/golden");
	a->header.type = KP_DATA_REC_AGG;
	a->header.size = sizeof(*a) + 3 * 8;
	a->count = 42;
	a->pid = 10;
	a->nr_kernel = 1;
	a->nr_user = 2;
	snprintf(a->comm, sizeof(a->comm), "golden");
	a->ips[0] = 0xffffffff81001000ULL;
	a->ips[1] = 0x401010ULL;
	a->ips[2] = 0x401020ULL;
	gen__write(&g, a);
	memset(buf, 0, sizeof(buf));
	wk->header.type = KP_DATA_REC_WAKER;
	wk->header.size = sizeof(*wk) + 2 * 8;
	wk->count = 3;
	wk->time_ns = 3000000;
	wk->pid = 10;
	wk->nr_kernel = 1;
	wk->waker_nr_kernel = 1;
	wk->waker_pid = 11;
	snprintf(wk->comm, sizeof(wk->comm), "golden");
	snprintf(wk->waker_comm, sizeof(wk->waker_comm), "waker");
	wk->ips[0] = 0xffffffff81001000ULL;
	wk->ips[1] = 0xffffffff81002000ULL;
	gen__write(&g, wk);
	gen__finish(&g, 1000001000ULL);
}

static void make_v3(const char *path)
{
	struct kp_tp_formats tp = { 0 };
	struct gen_writer g;

	tp.text[1] = (char *)tp_format;
	tp.size[1] = sizeof(tp_format);
	g.w = golden_writer(path, 1, &tp, NULL, 0);
	stream_records(&g);
	stats_and_finish(&g);
}

static void make_v4(const char *path, const char *elf)
{
	static const struct gen_sym syms[] = { { "__vdso_clock_gettime", 0x10, 0x40, true } };
	const struct gen_elf e = { .type = ET_DYN, .text_size = 0x100, .syms = syms,
				   .nr_syms = 1, .kind = GEN_DYNSYM };
	struct gen_writer g;
	size_t size;
	char *image;

	gen__elf(elf, &e);
	image = tmpdir__slurp(elf, &size);
	g.w = golden_writer(path, 1, NULL, image, size);
	stream_records(&g);
	stats_and_finish(&g);
	free(image);
}

static void make_v5(const char *path)
{
	uint64_t buf[16] = { 0 };
	struct kp_rec_switch sw = { .header = { KP_DATA_REC_SWITCH, 0, sizeof(sw) },
				    .time = 1000000000ULL, .samples_before = 17, .seq = 2 };
	struct kp_rec_build_id *b = (void *)buf;
	struct gen_writer g = { .w = golden_writer(path, KP_DATA_VERSION_SWITCH, NULL, NULL, 0) };
	int i;

	gen__write(&g, &sw);
	stream_records(&g);
	b->header.type = KP_DATA_REC_BUILD_ID;
	b->header.size = sizeof(*b) + 24;
	b->pid = 10;
	b->size = 20;
	for (i = 0; i < 20; i++)
		b->build_id[i] = 0xa0 + i;
	snprintf(b->filename, 24, "/nonexistent/golden");
	gen__write(&g, b);
	stats_and_finish(&g);
}

int main(void)
{
	char path[256], name[64], elf[128], root[64];
	struct stat st;
	struct run r;
	int v;

	tmpdir__create(root, sizeof(root));
	for (v = 1; v <= KP_DATA_VERSION_MAX; v++) {
		snprintf(path, sizeof(path), DIR "/v%d.data", v);
		if (getenv("KP_MAKE_FORMAT_FILES") && stat(path, &st)) {
			snprintf(elf, sizeof(elf), "%s/vdso.so", root);
			switch (v) {
			case 1: make_v1(path); break;
			case 2: make_v2(path); break;
			case 3: make_v3(path); break;
			case 4: make_v4(path, elf); break;
			case 5: make_v5(path); break;
			default: abort();
			}
			diag("wrote %s", path);
		}
		if (!ok(!stat(path, &st), "format version %d: %s is kept", v, path))
			continue;
		kprofctl(&r, "dump", "-i", path, NULL);
		ok(strstr(r.out, "# version: ") && atoi(strstr(r.out, "# version: ") + 11) == v,
		   "format version %d: the file says so", v);
		snprintf(name, sizeof(name), "formats/v%d.dump", v);
		run_golden(name, &r);
		run_free(&r);
		kprofctl(&r, "report", "-i", path, "--stdio", "--kallsyms", "/dev/null", "--sort",
			 "comm,pid,dso,sym", NULL);
		snprintf(name, sizeof(name), "formats/v%d.report", v);
		run_golden(name, &r);
		run_free(&r);
	}
	tmpdir__remove(root);
	return done_testing();
}
