// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/synth.c: /proc/PID/maps lines, and the COMM and MMAP
 * records synthesized from a fake /proc.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/synth.h"
#include "lib/sys.h"
#include "tap.h"
#include "tmpdir.h"

static unsigned char buf[KP_RECORD_MAX_SIZE] __attribute__((aligned(8)));

static void test_maps_line(void)
{
	struct kp_rec_mmap *m = (void *)buf;

	is_int(kp_synth__parse_maps_line("55d4a0e00000-55d4a0e21000 r-xp 00002000 fd:01 1234   /usr/bin/true\n", m),
	       1, "maps: executable file mapping");
	ok(m->header.type == KPROF_RECORD_MMAP && m->header.size == 48 + 16 &&
	   m->start == 0x55d4a0e00000ULL && m->len == 0x21000 && m->pgoff == 0x2000 &&
	   !strcmp(m->filename, "/usr/bin/true"), "maps: fields");
	ok(!memcmp(m->filename + 13, "\0\0\0", 3), "maps: name padded with zeros");
	is_int(kp_synth__parse_maps_line("7f00-8f00 r-xp 00000000 fd:01 99 /lib/x86_64-linux-gnu/libc.so.6 (deleted)", m),
	       1, "maps: deleted file");
	is_str(m->filename, "/lib/x86_64-linux-gnu/libc.so.6 (deleted)", "maps: deleted file name kept");
	is_int(kp_synth__parse_maps_line("7f00-8f00 r--p 00000000 fd:01 99 /usr/bin/true\n", m), 0,
	       "maps: not executable");
	is_int(kp_synth__parse_maps_line("7fff0000-7fff2000 r-xp 00000000 00:00 0 [vdso]\n", m), 1,
	       "maps: [vdso]");
	ok(m->start == 0x7fff0000 && m->len == 0x2000 && !m->pgoff &&
	   !strcmp(m->filename, "[vdso]"), "maps: [vdso] fields");
	is_int(kp_synth__parse_maps_line("7fff0000-7fff2000 r-xp 00000000 00:00 0 [vsyscall]\n", m),
	       0, "maps: [vsyscall] has no path");
	is_int(kp_synth__parse_maps_line("7f00-8f00 r-xp 00000000 00:00 0\n", m), 0,
	       "maps: anonymous executable");
	is_int(kp_synth__parse_maps_line("garbage\n", m), -EINVAL, "maps: garbage");
	is_int(kp_synth__parse_maps_line("8f00-7f00 r-xp 00000000 00:00 0 /x\n", m), -EINVAL,
	       "maps: end before start");
	is_int(kp_synth__parse_maps_line("", m), -EINVAL, "maps: empty line");
}

struct got {
	unsigned int	comm, mmap;
	char		names[256];
	uint32_t	last_pid;
	uint64_t	time;
	bool		bad;
};

static int collect(const struct kprof_record_header *rec, void *arg, struct kp_err *err)
{
	struct got *g = arg;
	char why[128];
	struct kp_record_ctx ctx = { 0 };

	(void)err;
	if (kp_record__check(rec, &ctx, why, sizeof(why)))
		g->bad = true;
	if (rec->type == KPROF_RECORD_COMM) {
		const struct kp_rec_comm *c = (const void *)rec;

		g->comm++;
		g->time = c->time;
		snprintf(g->names + strlen(g->names), sizeof(g->names) - strlen(g->names),
			 "%u/%u:%s ", c->pid, c->tid, c->comm);
	} else if (rec->type == KPROF_RECORD_MMAP) {
		const struct kp_rec_mmap *m = (const void *)rec;

		g->mmap++;
		snprintf(g->names + strlen(g->names), sizeof(g->names) - strlen(g->names),
			 "%u:%s ", m->pid, m->filename);
	}
	return 0;
}

static int fail(const struct kprof_record_header *rec, void *arg, struct kp_err *err)
{
	(void)rec;
	(void)arg;
	kp_err__set(err, ENOSPC, "full");
	return -ENOSPC;
}

static void test_proc(void)
{
	struct kp_synth_stats st = { 0 };
	struct got g = { 0 };
	struct kp_err err;
	char root[64];

	tmpdir__create(root, sizeof(root));
	tmpdir__write(root, "proc/10/task/10/comm", "init\n");
	tmpdir__write(root, "proc/10/maps",
		      "00400000-00401000 r-xp 00000000 fd:01 1 /sbin/init\n"
		      "00600000-00601000 rw-p 00000000 fd:01 1 /sbin/init\n");
	tmpdir__write(root, "proc/20/task/20/comm", "a-very-long-name-indeed\n");
	tmpdir__write(root, "proc/20/task/21/comm", "worker\n");
	tmpdir__write(root, "proc/20/maps", "");
	tmpdir__mkdir(root, "proc/30");		/* gone: no task directory */
	tmpdir__write(root, "proc/self", "not a process");
	tmpdir__mkdir(root, "proc/sys");
	kp_sysroot = root;

	is_int(kp_synth__process(10, 77, collect, &g, &st, &err), 0, "process 10");
	ok(g.comm == 1 && g.mmap == 1 && !strcmp(g.names, "10/10:init 10:/sbin/init ") &&
	   g.time == 77 && !g.bad, "process 10: one COMM, one MMAP, valid");
	memset(&g, 0, sizeof(g));
	memset(&st, 0, sizeof(st));
	is_int(kp_synth__all(5, collect, &g, &st, &err), 0, "all processes");
	ok(g.comm == 3 && g.mmap == 1 && !g.bad, "all: 3 threads, 1 mapping");
	ok(strstr(g.names, "20/20:a-very-long-nam ") && strstr(g.names, "20/21:worker "),
	   "all: threads of 20, long name cut to 15 characters");
	ok(st.nr_processes == 2 && st.nr_threads == 3 && st.nr_mmaps == 1 && st.nr_vanished == 1,
	   "all: stats, the vanished process counted");
	is_int(kp_synth__process(99, 5, collect, &g, &st, &err), 0, "a missing process is no error");
	is_int(kp_synth__all(5, fail, &g, &st, &err), -ENOSPC, "a writer error stops synthesis");

	kp_sysroot = "/nonexistent";
	is_int(kp_synth__all(5, collect, &g, &st, &err), -ENOENT, "no /proc");
	is_str(err.msg, "cannot read /nonexistent/proc: No such file or directory", "no /proc: message");
	kp_sysroot = "";
	tmpdir__remove(root);
}

int main(void)
{
	test_maps_line();
	test_proc();
	return done_testing();
}
