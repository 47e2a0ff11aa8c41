// SPDX-License-Identifier: GPL-2.0
/*
 * The leaf fix-up (lib/unwind.h) on real processes and Debian's own libc:
 * tests/elf/leaf.c, built with frame pointers, blocks in read() (single-
 * and multi-threaded: glibc's two paths), nanosleep() (which calls
 * clock_nanosleep(): two frameless functions), a syscall inside a function
 * with a frame (called directly, and through a function without one), and
 * an assembler function without CFI.  The test takes
 * the sample kprof.ko would take while it blocks (the user %rsp and %rip
 * from /proc/PID/syscall, the frame-pointer chain and 128 bytes of stack
 * (fewer: when the copy is too short)
 * from /proc/PID/mem, the executable mappings from /proc/PID/maps) and
 * resolves it through the machine with the fix-up on and off.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/machine.h"
#include "lib/record.h"
#include "lib/session.h"
#include "lib/unwind.h"
#include "gen.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static const char *elf_dir;

struct child {
	pid_t		pid;
	int		in, out;	/* its stdin (kept open: it blocks), its stdout */
	uint64_t	fp;		/* the %rbp it said */
	uint64_t	sp, pc;		/* in the syscall */
	char		libc[256];	/* the path of its libc */
	uint64_t	libc_start, libc_pgoff;
};

static int child__start(struct child *c, const char *mode)
{
	int in[2], out[2];
	char path[512], line[64];
	ssize_t n;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/leaf", elf_dir);
	if (pipe(in) || pipe(out))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(path, "leaf", mode, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->in = in[1];
	c->out = out[0];
	n = read(c->out, line, sizeof(line) - 1);
	if (n <= 0)
		return -1;
	line[n] = '\0';
	c->fp = strtoull(line, NULL, 16);
	return 0;
}

static void child__stop(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->in);
	close(c->out);
}

/* Wait until it blocks in system call @nr; its user %rsp and %rip then. */
static int child__blocked(struct child *c, long nr)
{
	unsigned long long v[9];
	char path[64], line[256];
	int i;

	snprintf(path, sizeof(path), "/proc/%d/syscall", c->pid);
	for (i = 0; i < 500; i++) {
		FILE *fp = fopen(path, "r");
		int got = 0;

		if (fp) {
			got = fgets(line, sizeof(line), fp) &&
			      sscanf(line, "%llu %llx %llx %llx %llx %llx %llx %llx %llx", &v[0],
				     &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9;
			fclose(fp);
		}
		if (got && (long)v[0] == nr) {
			c->sp = v[7];
			c->pc = v[8];
			return 0;
		}
		usleep(10000);
	}
	return -1;
}

static int child__mem(const struct child *c, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	ok = !fseeko(fp, (off_t)addr, SEEK_SET) && fread(buf, 1, len, fp) == len;
	fclose(fp);
	return ok ? 0 : -1;
}

/* Its executable file mappings as MMAP records to @fn; its libc noted. */
static int child__maps(struct child *c, void (*fn)(const struct kprof_record_header *, void *),
		       void *arg)
{
	unsigned long long start, end, pgoff;
	char path[64], line[512], perm[8], file[300];
	uint64_t buf[64];
	struct kp_rec_mmap *rec = (void *)buf;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	fp = fopen(path, "r");
	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %299s", &start, &end, perm, &pgoff,
			   file) < 4 || !strchr(perm, 'x') || file[0] != '/')
			continue;
		memset(buf, 0, sizeof(buf));
		rec->header.type = KPROF_RECORD_MMAP;
		rec->header.size = (sizeof(*rec) + strlen(file) + 1 + 7) & ~7UL;
		rec->time = 1;
		rec->pid = rec->tid = c->pid;
		rec->start = start;
		rec->len = end - start;
		rec->pgoff = pgoff;
		strcpy(rec->filename, file);
		fn(&rec->header, arg);
		if (strstr(file, "/libc.so")) {
			snprintf(c->libc, sizeof(c->libc), "%s", file);
			c->libc_start = start;
			c->libc_pgoff = pgoff;
		}
	}
	fclose(fp);
	return 0;
}

static void to_machine(const struct kprof_record_header *h, void *arg)
{
	if (kp_machine__add(arg, h))
		abort();
}

static void to_file(const struct kprof_record_header *h, void *arg)
{
	gen__write(arg, h);
}

/*
 * The SAMPLE kprof.ko takes in the syscall: the frame-pointer chain from
 * the %rbp, and the user stack part with @size bytes.
 */
static struct kp_rec_sample *child__sample(const struct child *c, uint32_t size)
{
	uint64_t *buf = calloc(1, 4096), fp = c->fp, frame[2], *w;
	struct kp_rec_sample *s = (void *)buf;
	unsigned int n = 0;

	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = KPROF_MISC_USER | KPROF_MISC_USER_STACK;
	s->time = 2;
	s->ip = c->pc;
	s->period = 1;
	s->pid = s->tid = c->pid;
	s->ips[n++] = c->pc;
	while (fp && n < 64 && !child__mem(c, fp, frame, sizeof(frame)) && frame[1]) {
		s->ips[n++] = frame[1];
		if (frame[0] <= fp)
			break;
		fp = frame[0];
	}
	s->nr_user = n;
	w = s->ips + n;
	w[0] = KPROF_USER_REGS_MASK;
	w[1] = c->fp;
	w[2] = c->sp;
	w[3] = c->pc;
	w[4] = size;
	if (child__mem(c, c->sp, w + 5, size))
		return NULL;
	s->header.size = sizeof(*s) + n * 8 + 5 * 8 + size;
	return s;
}

/*
 * "a;b;c": the names of @r's first @max user frames, without libc's
 * leading underscores and symbol versions (__nanosleep, read@GLIBC_2.2.5).
 */
static void names(const struct kp_resolved *r, unsigned int max, char *buf, size_t len)
{
	const char *name;
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = r->nr_kernel; i < r->nr_frames && i < r->nr_kernel + max; i++) {
		name = r->frames[i].sym ? r->frames[i].sym->name : "[unknown]";
		while (*name == '_')
			name++;
		off += snprintf(buf + off, off < len ? len - off : 0, "%s%.*s", off ? ";" : "",
				(int)strcspn(name, "@"), name);
	}
}

/* The user chain's names with the fix-up on (@fixed) and off (@plain). */
static enum kp_leaf resolve(struct child *c, uint32_t window, char *fixed, char *plain,
			   size_t len)
{
	struct kp_machine_opts opts = { .no_kernel = true };
	struct kp_resolved *res = malloc(sizeof(*res));
	enum kp_leaf leaf = KP_LEAF__MAX;
	struct kp_rec_sample *s = NULL;
	struct kp_machine *m;
	struct kp_ustack u;
	int pass;

	fixed[0] = plain[0] = '\0';
	for (pass = 0; pass < 2; pass++) {
		opts.no_leaf_fixup = pass;
		m = kp_machine__new(&opts);
		if (!m || child__maps(c, to_machine, m) || kp_machine__prepare(m))
			break;
		if (!s)
			s = child__sample(c, window);
		if (!s || !kp_sample__ustack(s, &u))
			break;
		kp_machine__resolve(m, s, res, 0);
		names(res, 5, pass ? plain : fixed, len);
		if (!pass)
			leaf = res->leaf;
		else if (res->leaf != KP_LEAF_NONE)
			leaf = KP_LEAF__MAX;
		kp_machine__delete(m);
	}
	free(s);
	free(res);
	return leaf;
}

/* The CFA offset from %rsp at its libc pc; -1: not %rsp-based or no CFI. */
static int64_t libc_cfa(const struct child *c)
{
	struct kp_cfi *cfi = kp_cfi__open(c->libc);
	struct kp_cfa cfa = { .rule = KP_CFA_NONE };

	if (cfi)
		kp_cfi__rule(cfi, c->pc - c->libc_start + c->libc_pgoff, false, &cfa);
	kp_cfi__delete(cfi);
	return cfa.rule == KP_CFA_SP ? cfa.off : -1;
}

/*
 * The same sample in a recording: folded shows the fixed chain (and the
 * one as recorded with --no-leaf-fixup), convert writes it for perf.
 */
static void check_file(struct child *c)
{
	char dir[256], rec[300], pd[300], cmd[700], line[512];
	struct kp_rec_sample *s = child__sample(c, KP_LEAF_STACK_BYTES);
	struct gen_writer g;
	struct run r;
	bool found = false;
	FILE *fp;

	tmpdir__create(dir, sizeof(dir));
	snprintf(rec, sizeof(rec), "%s/kprof.data", dir);
	snprintf(pd, sizeof(pd), "%s/perf.data", dir);
	gen__writer(&g, rec, "kprof-test", "kprofctl record -g -- leaf read");
	gen__comm(&g, 1, c->pid, c->pid, "leaf", true);
	child__maps(c, to_file, &g);
	if (s) {
		s->time = 2;
		gen__write(&g, s);
	}
	gen__finish(&g, 3);
	free(s);

	kprofctl(&r, "folded", "-i", rec, NULL);
	ok(r.rc == 0 && strstr(r.out, ";leaf_main;wait_on_pipe;"),
	   "read, recorded: folded shows leaf_main;wait_on_pipe;read");
	if (r.rc || !strstr(r.out, "wait_on_pipe"))
		diag("%s%s", r.out, r.err);
	run_free(&r);
	kprofctl(&r, "folded", "-i", rec, "--no-leaf-fixup", NULL);
	ok(r.rc == 0 && strstr(r.out, ";leaf_main;") && !strstr(r.out, "wait_on_pipe"),
	   "read, recorded: folded --no-leaf-fixup shows the chain as recorded");
	run_free(&r);
	kprofctl(&r, "dump", "-i", rec, NULL);
	ok(r.rc == 0 && strstr(r.out, "... ustack: size 128\n") && strstr(r.out, "... user regs: bp 0x"),
	   "read, recorded: dump prints the user registers and the copy's size");
	run_free(&r);
	kprofctl(&r, "dump", "--json", "-i", rec, NULL);
	ok(r.rc == 0 && strstr(r.out, "\"user_stack_size\":128"),
	   "read, recorded: dump --json has user_stack_size");
	run_free(&r);
	kprofctl(&r, "convert", "-i", rec, "-o", pd, NULL);
	ok(r.rc == 0 && strstr(r.err, "[ kprof convert: 1 user chains with the callers of frameless leaves ]"),
	   "read, recorded: convert writes the fixed chain");
	run_free(&r);
	/* perf itself (linux-perf, tools/deps.sh) reads it: the frame is there */
	snprintf(cmd, sizeof(cmd), "HOME=%s perf script -i %s -F ip,sym 2>/dev/null", dir, pd);
	fp = popen(cmd, "r");
	while (fp && fgets(line, sizeof(line), fp))
		found |= !!strstr(line, " wait_on_pipe");
	if (fp)
		pclose(fp);
	ok(found, "read, recorded: perf script of the converted file shows wait_on_pipe");
	tmpdir__remove(dir);
}

static void check_window(const char *mode, long nr, uint32_t window, enum kp_leaf want,
			 const char *want_fixed, const char *want_plain, int64_t want_cfa)
{
	char fixed[512], plain[512];
	struct child c;
	enum kp_leaf leaf;

	if (child__start(&c, mode) || child__blocked(&c, nr)) {
		ok(0, "%s: the program blocks in system call %ld", mode, nr);
		if (c.pid > 0)
			child__stop(&c);
		return;
	}
	leaf = resolve(&c, window, fixed, plain, sizeof(fixed));
	if (!strcmp(mode, "read") && window == KP_LEAF_STACK_BYTES)
		check_file(&c);
	diag("%s: %%rsp %#" PRIx64 ", %%rbp %#" PRIx64 ", fixed %s, as recorded %s", mode, c.sp,
	     c.fp, fixed, plain);
	is_str(leaf < KP_LEAF__MAX ? kp_leaf_names[leaf] : "?", kp_leaf_names[want],
	       "%s, %u bytes copied at most: the fix-up's outcome", mode, window);
	ok(!strncmp(fixed, want_fixed, strlen(want_fixed)), "%s: fixed up: %s...", mode,
	   want_fixed);
	ok(!strncmp(plain, want_plain, strlen(want_plain)), "%s: --no-leaf-fixup: %s...", mode,
	   want_plain);
	if (want_cfa >= 0)
		is_int(libc_cfa(&c), want_cfa, "%s: libc's CFA at the syscall: %%rsp + %" PRId64,
		       mode, want_cfa);
	child__stop(&c);
}

static void check(const char *mode, long nr, enum kp_leaf want, const char *want_fixed,
		  const char *want_plain, int64_t want_cfa)
{
	check_window(mode, nr, KP_LEAF_STACK_BYTES, want, want_fixed, want_plain, want_cfa);
}

int main(void)
{
	elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";

	/* read(): glibc's single-threaded path, return address at %rsp */
	check("read", 0, KP_LEAF_FIXED, "read;wait_on_pipe;leaf_main", "read;leaf_main",
	      8);
	/* a second thread: the cancellable path, at %rsp + 40 */
	check("read-mt", 0, KP_LEAF_FIXED, "read;wait_on_pipe;leaf_main",
	      "read;leaf_main", 48);
	/*
	 * nanosleep() calls clock_nanosleep(): two frameless functions
	 * (leaf_main jumps to sleep_long, a tail call: no frame of its own)
	 */
	check("nanosleep", 230, KP_LEAF_FIXED, "clock_nanosleep;nanosleep;sleep_long;libc_start",
	      "clock_nanosleep;libc_start", -1);
	/* a frame of its own: nothing added, no frame twice */
	check("framed", 0, KP_LEAF_FRAMED, "framed_read;leaf_main", "framed_read;leaf_main",
	      -1);
	/* no CFI: the chain as recorded */
	check("nocfi", 0, KP_LEAF_NO_CFI, "raw_read_nocfi;leaf_main",
	      "raw_read_nocfi;leaf_main", -1);
	/* a frameless function between two with frames */
	check("middle", 0, KP_LEAF_FIXED, "framed_read;thin_middle;thick_outer;leaf_main",
	      "framed_read;thin_middle;leaf_main", -1);
	/* the cancellable read()'s return address (%rsp + 40) past a 40-byte copy */
	check_window("read-mt", 0, 40, KP_LEAF_OUTSIDE, "read;leaf_main", "read;leaf_main", 48);
	return done_testing();
}
