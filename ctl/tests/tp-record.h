/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording of tracepoint events, written with tests/gen.h: samples of
 * sched:sched_switch, irq:irq_handler_entry, irq:irq_handler_exit,
 * sched:sched_wakeup and block:block_rq_issue whose raw records are those
 * of Linux 6.1 (tests/tp-fake.h), and one cpu-clock sample, with or
 * without the formats section.  For tests/test-tpscript.c and the seeds
 * of the fuzz targets.
 */
#ifndef KPROFCTL_TESTS_TP_RECORD_H
#define KPROFCTL_TESTS_TP_RECORD_H

#include "gen.h"
#include "tp-fake.h"

enum { TPR_SWITCH, TPR_IRQ_ENTRY, TPR_IRQ_EXIT, TPR_WAKEUP, TPR_BLOCK, TPR_CLOCK, TPR_NR };

#define TPR_T0		1000000000ULL
#define TPR_MS		1000000ULL
#define TPR_IP		0xffffffff81234560ULL

/* The common fields of a record of tracepoint @id, by @pid. */
static inline void tpr__common(uint8_t *raw, size_t len, uint16_t id, uint32_t pid)
{
	tp_fake__common(raw, len, id, pid);
	raw[2] = 1;				/* irqs-off, as sched_switch has it */
}

/* A sample of @event at @time (ns) with one kernel frame and the raw record @raw. */
static inline void tpr__sample_at(struct gen_writer *g, uint64_t time, uint32_t pid,
				  uint32_t cpu, uint16_t event, const void *raw, uint32_t len)
{
	uint64_t buf[(sizeof(struct kp_rec_sample) + 8 + 8 + 256) / 8] = { 0 };
	struct kp_rec_sample *s = (void *)buf;
	uint8_t *p = (uint8_t *)(s->ips + 1);

	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_KERNEL | (raw ? KPROF_MISC_RAW : 0);
	s->header.size = sizeof(*s) + 8 + (raw ? 8 + ((len + 7) & ~7U) : 0);
	s->time = time;
	s->ip = TPR_IP;
	s->period = 1;
	s->pid = s->tid = pid;
	s->cpu = cpu;
	s->event = event;
	s->nr_kernel = 1;
	s->ips[0] = TPR_IP;
	if (raw) {
		memcpy(p, &len, 4);
		memcpy(p + 8, raw, len);
	}
	gen__write(g, s);
}

/* The same at @ms milliseconds. */
static inline void tpr__sample(struct gen_writer *g, unsigned int ms, uint32_t pid,
			       uint32_t cpu, uint16_t event, const void *raw, uint32_t len)
{
	tpr__sample_at(g, TPR_T0 + ms * TPR_MS, pid, cpu, event, raw, len);
}

static inline void tpr__switch(struct gen_writer *g, unsigned int ms, uint32_t cpu,
			       const char *prev, uint32_t prev_pid, uint64_t state,
			       const char *next, uint32_t next_pid)
{
	uint8_t raw[64];

	tpr__common(raw, sizeof(raw), TP_SCHED_SWITCH_ID, prev_pid);
	tp_fake__switch(raw, prev, prev_pid, 120, state, next, next_pid);
	tpr__sample(g, ms, prev_pid, cpu, TPR_SWITCH, raw, sizeof(raw));
}

static inline void tpr__irq_entry(struct gen_writer *g, unsigned int ms, uint32_t cpu,
				  uint32_t pid, int irq, const char *name)
{
	uint8_t raw[64];
	uint32_t n = strlen(name) + 1;

	tpr__common(raw, sizeof(raw), TP_IRQ_ENTRY_ID, pid);
	tp_fake__put32(raw, 8, irq);
	tp_fake__put32(raw, 12, 16 | n << 16);
	memcpy(raw + 16, name, n);
	tpr__sample(g, ms, pid, cpu, TPR_IRQ_ENTRY, raw, (16 + n + 3) & ~3U);
}

/* The header of a 2-CPU system-wide recording of kprof-test by @cmdline. */
static inline void tpr__info(struct kp_data_info *info, const char *cmdline)
{
	struct kp_session *s = &info->session;

	kp_data_info__init(info);
	info->start_time = TPR_T0;
	info->start_realtime = 1700000000000000000ULL;
	info->nr_cpus = 2;
	info->session_id = 9;
	snprintf(info->hostname, sizeof(info->hostname), "kprof-test");
	snprintf(info->release, sizeof(info->release), "6.1.0-kprof-test");
	snprintf(info->machine, sizeof(info->machine), "x86_64");
	snprintf(info->kprofctl_version, sizeof(info->kprofctl_version), "0.0.0");
	snprintf(info->module_release, sizeof(info->module_release), "0.0.0");
	snprintf(info->cmdline, sizeof(info->cmdline), "%s", cmdline);
	s->flags = KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_SYSTEM_WIDE;
	s->period = 1;
	s->buffer_size = 1 << 20;
	s->stack_depth = 127;
}

/*
 * Write @path: the side-band names pid 100 bash, 40 kworker/1:1H, 0
 * swapper/1; with @formats, the formats section (Linux 6.1's).
 */
static inline void tpr__write(const char *path, bool formats)
{
	static const char * const names[TPR_NR] = {
		"sched:sched_switch", "irq:irq_handler_entry", "irq:irq_handler_exit",
		"sched:sched_wakeup", "block:block_rq_issue", "cpu-clock",
	};
	static const uint32_t ids[TPR_NR] = {
		TP_SCHED_SWITCH_ID, TP_IRQ_ENTRY_ID, TP_IRQ_EXIT_ID, TP_SCHED_WAKEUP_ID,
		TP_BLOCK_RQ_ISSUE_ID, 0,
	};
	const char *texts[TPR_NR] = {
		tp_sched_switch_format, tp_irq_entry_format, tp_irq_exit_format,
		tp_sched_wakeup_format, tp_block_rq_issue_format, NULL,
	};
	struct kp_rec_synth_done sd = { .header = { KP_DATA_REC_SYNTH_DONE, 0, sizeof(sd) },
					.time = TPR_T0, .nr_processes = 3, .nr_threads = 3 };
	struct kp_tp_formats tp = { 0 };
	struct kp_data_info info;
	struct kp_session *s = &info.session;
	struct gen_writer g;
	struct kp_err err;
	uint64_t sector = 2048;
	uint8_t raw[64];
	unsigned int i;

	tpr__info(&info, "kprofctl record -a -e sched:sched_switch,irq:irq_handler_*,sched:sched_wakeup,block:block_rq_issue,cpu-clock");
	s->nr_events = TPR_NR;
	for (i = 0; i < TPR_NR; i++) {
		s->events[i].type = ids[i] ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
		s->events[i].config = ids[i];
		snprintf(s->events[i].name, sizeof(s->events[i].name), "%s", names[i]);
		if (formats && texts[i]) {
			tp.text[i] = (char *)texts[i];
			tp.size[i] = strlen(texts[i]) + 1;
		}
	}
	info.tp_formats = &tp;
	g.w = kp_data_writer__create(path, &info, &err);
	if (!g.w)
		gen__check(-1, &err);
	gen__comm(&g, TPR_T0, 100, 100, "bash", false);
	gen__comm(&g, TPR_T0, 40, 40, "kworker/1:1H", false);
	gen__comm(&g, TPR_T0, 0, 0, "swapper/1", false);
	gen__write(&g, &sd);

	tpr__switch(&g, 1, 1, "bash", 100, 1, "swapper/1", 0);
	tpr__irq_entry(&g, 2, 1, 0, 19, "virtio0");

	tpr__common(raw, 16, TP_IRQ_EXIT_ID, 0);
	tp_fake__put32(raw, 8, 19);
	tp_fake__put32(raw, 12, 1);
	tpr__sample(&g, 3, 0, 1, TPR_IRQ_EXIT, raw, 16);

	tpr__common(raw, 36, TP_SCHED_WAKEUP_ID, 0);
	memcpy(raw + 8, "bash", 4);
	tp_fake__put32(raw, 24, 100);
	tp_fake__put32(raw, 28, 120);
	tp_fake__put32(raw, 32, 1);
	tpr__sample(&g, 4, 0, 1, TPR_WAKEUP, raw, 36);

	tpr__switch(&g, 5, 1, "swapper/1", 0, 0, "bash", 100);

	tpr__common(raw, 64, TP_BLOCK_RQ_ISSUE_ID, 40);
	tp_fake__block_rq_issue(raw, sector, "kworker/1:1H");
	tpr__sample(&g, 6, 40, 1, TPR_BLOCK, raw, 61);

	tpr__switch(&g, 7, 1, "bash", 100, 0x100, "kworker/1:1H", 40);
	tpr__sample(&g, 8, 100, 0, TPR_CLOCK, NULL, 0);
	tpr__irq_entry(&g, 9, 0, 100, 25, "virtio0-requests");
	tpr__switch(&g, 10, 0, "bash", 100, 0x82, "swapper/0", 0);
	gen__finish(&g, TPR_T0 + 20 * TPR_MS);
}

#endif /* KPROFCTL_TESTS_TP_RECORD_H */
