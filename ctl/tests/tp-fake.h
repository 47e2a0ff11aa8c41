/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake tracefs events directory for the unit tests of tracefs.c,
 * tpdecode.c, tpfilter.c and the tracepoint syntax of events.c: formats
 * as Linux 6.1 writes them, plus kprof:test with one field of every kind.
 */
#ifndef KPROFCTL_TP_FAKE_H
#define KPROFCTL_TP_FAKE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tmpdir.h"

/*
 * The format files of Linux 6.1 (Debian's 6.1.0 on x86-64), byte for byte:
 * the fields and print formats of include/trace/events/{sched,irq,block}.h
 * of 6.1 as kernel/trace/trace_events.c's f_show() writes them, with the
 * macros of the print formats expanded as the compiler does.  On 6.1 a
 * char is signed on x86 (-funsigned-char came with 6.2): its fields say
 * signed:1.  The IDs depend on the build.
 */
#define TP_COMMON							\
	"format:\n"							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define TP_SCHED_SWITCH_ID	316
#define TP_SCHED_WAKEUP_ID	318
#define TP_IRQ_ENTRY_ID		120
#define TP_IRQ_EXIT_ID		121
#define TP_BLOCK_RQ_ISSUE_ID	1039
#define TP_TEST_ID		900

static const char tp_sched_switch_format[] =
	"name: sched_switch\nID: 316\n" TP_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: "
	"\"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, "
	"REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | "
	"0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | "
	"0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { "
	"0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { "
	"0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { "
	"0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | "
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio"
	"\n";

static const char tp_sched_wakeup_format[] =
	"name: sched_wakeup\nID: 318\n" TP_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu\n";

static const char tp_irq_entry_format[] =
	"name: irq_handler_entry\nID: 120\n" TP_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

static const char tp_irq_exit_format[] =
	"name: irq_handler_exit\nID: 121\n" TP_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n";

static const char tp_block_rq_issue_format[] =
	"name: block_rq_issue\nID: 1039\n" TP_COMMON
	"\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int bytes;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:char rwbs[8];\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char comm[16];\toffset:40;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] cmd;\toffset:56;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"%d,%d %s %u (%s) %llu + %u [%s]\", ((unsigned int) ((REC->dev) >> 20)), "
	"((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, REC->bytes, "
	"__get_str(cmd), (unsigned long long)REC->sector, REC->nr_sector, REC->comm\n";

/* Not a kernel's: one field of every kind, for the filters' corner cases. */
static const char tp_test_format[] =
	"name: test\nID: 900\n" TP_COMMON
	"\tfield:unsigned char u8f;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:short s16f;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned int u32f;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 u64f;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 s64f;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:char name[24];\toffset:32;\tsize:24;\tsigned:1;\n"
	"\tfield:char big[80];\toffset:56;\tsize:80;\tsigned:1;\n"
	"\tfield:int arr[4];\toffset:136;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] dyn;\toffset:152;\tsize:4;\tsigned:1;\n"
	"\tfield:char c3[3];\toffset:156;\tsize:3;\tsigned:1;\n"
	"\tfield:u8 odd3;\toffset:160;\tsize:3;\tsigned:0;\n\n"
	"print fmt: \"u8f=%u\", REC->u8f\n";

static inline void tp_fake__event(const char *root, const char *sys, const char *ev,
				  unsigned int id, const char *format)
{
	char rel[256], num[32];

	snprintf(rel, sizeof(rel), "events/%s/%s/id", sys, ev);
	snprintf(num, sizeof(num), "%u\n", id);
	tmpdir__write(root, rel, num);
	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, ev);
	tmpdir__write(root, rel, format ? format : "name: x\nID: 1\nformat:\n");
	snprintf(rel, sizeof(rel), "events/%s/enable", sys);
	tmpdir__write(root, rel, "0\n");
}

/*
 * @root/events: sched (3), irq (3), block (39 block_evNN, block_rq_issue),
 * kprof:test.
 */
static inline void tp_fake__create(const char *root)
{
	char name[32];
	unsigned int i;

	tp_fake__event(root, "sched", "sched_switch", TP_SCHED_SWITCH_ID, tp_sched_switch_format);
	tp_fake__event(root, "sched", "sched_wakeup", TP_SCHED_WAKEUP_ID, tp_sched_wakeup_format);
	tp_fake__event(root, "sched", "sched_process_exit", 312, NULL);
	tp_fake__event(root, "irq", "irq_handler_entry", TP_IRQ_ENTRY_ID, tp_irq_entry_format);
	tp_fake__event(root, "irq", "irq_handler_exit", TP_IRQ_EXIT_ID, tp_irq_exit_format);
	tp_fake__event(root, "irq", "softirq_entry", 122, NULL);
	for (i = 0; i < 39; i++) {
		snprintf(name, sizeof(name), "block_ev%02u", i);
		tp_fake__event(root, "block", name, 1000 + i, NULL);
	}
	tp_fake__event(root, "block", "block_rq_issue", TP_BLOCK_RQ_ISSUE_ID,
		       tp_block_rq_issue_format);
	tp_fake__event(root, "kprof", "test", TP_TEST_ID, tp_test_format);
	tmpdir__write(root, "events/enable", "0\n");
	tmpdir__write(root, "events/header_page", "x\n");
}

/* ---- raw records of these formats ---- */

static inline void tp_fake__put32(uint8_t *raw, unsigned int off, uint32_t v)
{
	memcpy(raw + off, &v, 4);
}

/* @len bytes zeroed, then the common fields: type @id, pid @pid. */
static inline void tp_fake__common(uint8_t *raw, size_t len, uint16_t id, uint32_t pid)
{
	memset(raw, 0, len);
	memcpy(raw, &id, 2);
	tp_fake__put32(raw, 4, pid);
}

/* sched_switch's fields (64 bytes), after tp_fake__common(); next_prio 120. */
static inline void tp_fake__switch(uint8_t *raw, const char *prev, int32_t prev_pid,
				   int32_t prev_prio, uint64_t state, const char *next,
				   int32_t next_pid)
{
	memcpy(raw + 8, prev, strlen(prev));
	tp_fake__put32(raw, 24, prev_pid);
	tp_fake__put32(raw, 28, prev_prio);
	memcpy(raw + 32, &state, 8);
	memcpy(raw + 40, next, strlen(next));
	tp_fake__put32(raw, 56, next_pid);
	tp_fake__put32(raw, 60, 120);
}

/*
 * block_rq_issue's fields (64 bytes), after tp_fake__common(): a 4 KiB
 * write (WS) of 8 sectors at @sector on 8:16 by @comm, with no command.
 */
static inline void tp_fake__block_rq_issue(uint8_t *raw, uint64_t sector, const char *comm)
{
	tp_fake__put32(raw, 8, 8 << 20 | 16);
	memcpy(raw + 16, &sector, 8);
	tp_fake__put32(raw, 24, 8);
	tp_fake__put32(raw, 28, 4096);
	memcpy(raw + 32, "WS", 2);
	memcpy(raw + 40, comm, strlen(comm));
	tp_fake__put32(raw, 56, 60 | 1 << 16);	/* cmd: "" (__data_loc) */
}

#endif /* KPROFCTL_TP_FAKE_H */
