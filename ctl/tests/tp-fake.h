/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake tracefs events directory for the unit tests of tracefs.c,
 * tpfilter.c and the tracepoint syntax of events.c: formats as Linux 6.1
 * writes them, plus kprof:test with one field of every kind.
 */
#ifndef KPROFCTL_TP_FAKE_H
#define KPROFCTL_TP_FAKE_H

#include <stdio.h>

#include "tmpdir.h"

#define TP_COMMON							\
	"format:\n"							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char tp_sched_switch_format[] =
	"name: sched_switch\nID: 316\n" TP_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"\"R+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

static const char tp_irq_entry_format[] =
	"name: irq_handler_entry\nID: 120\n" TP_COMMON
	"\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n";

static const char tp_test_format[] =
	"name: test\nID: 900\n" TP_COMMON
	"\tfield:unsigned char u8f;\toffset:8;\tsize:1;\tsigned:0;\n"
	"\tfield:short s16f;\toffset:10;\tsize:2;\tsigned:1;\n"
	"\tfield:unsigned int u32f;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 u64f;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 s64f;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:char name[24];\toffset:32;\tsize:24;\tsigned:0;\n"
	"\tfield:char big[80];\toffset:56;\tsize:80;\tsigned:0;\n"
	"\tfield:int arr[4];\toffset:136;\tsize:16;\tsigned:1;\n"
	"\tfield:__data_loc char[] dyn;\toffset:152;\tsize:4;\tsigned:0;\n"
	"\tfield:char c3[3];\toffset:156;\tsize:3;\tsigned:0;\n"
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

/* @root/events: sched (3), irq (3), block (40 events), kprof:test. */
static inline void tp_fake__create(const char *root)
{
	char name[32];
	unsigned int i;

	tp_fake__event(root, "sched", "sched_switch", 316, tp_sched_switch_format);
	tp_fake__event(root, "sched", "sched_wakeup", 318, NULL);
	tp_fake__event(root, "sched", "sched_process_exit", 312, NULL);
	tp_fake__event(root, "irq", "irq_handler_entry", 120, tp_irq_entry_format);
	tp_fake__event(root, "irq", "irq_handler_exit", 121, NULL);
	tp_fake__event(root, "irq", "softirq_entry", 122, NULL);
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "block_ev%02u", i);
		tp_fake__event(root, "block", name, 1000 + i, NULL);
	}
	tp_fake__event(root, "kprof", "test", 900, tp_test_format);
	tmpdir__write(root, "events/enable", "0\n");
	tmpdir__write(root, "events/header_page", "x\n");
}

#endif /* KPROFCTL_TP_FAKE_H */
