// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/folded.c: the collapsed-stack parser and reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "lib/folded.h"
#include "tap.h"
#include "tmpdir.h"

static void test_parse_line(void)
{
	struct kp_folded_line l;
	char big[64];

	is_int(kp_folded__parse_line("a;b;c 42", 8, false, &l), 0, "good line");
	ok(l.len == 5 && !memcmp(l.stack, "a;b;c", 5) && l.count == 42 && !l.two,
	   "good line: stack 'a;b;c', count 42");

	is_int(kp_folded__parse_line("java Thread;foo bar 7", 21, false, &l), 0,
	       "frames with blanks");
	ok(l.len == 19 && !memcmp(l.stack, "java Thread;foo bar", 19) && l.count == 7,
	   "frames with blanks: the count is the last field");

	is_int(kp_folded__parse_line("a;b\t 12 \r", 9, false, &l), 0, "tab, trailing blank and CR");
	ok(l.len == 3 && l.count == 12, "tab, trailing blank and CR: stack 'a;b', count 12");

	is_int(kp_folded__parse_line("a;;b 1", 6, false, &l), 0, "an empty frame is a frame");
	is_int(kp_folded__parse_line("a 0", 3, false, &l), 0, "a zero count is fine");

	is_int(kp_folded__parse_line("", 0, false, &l), 1, "empty line");
	is_int(kp_folded__parse_line("  \t\r", 4, false, &l), 1, "blank line");

	is_int(kp_folded__parse_line("a;b;c", 5, false, &l), -EINVAL, "no count");
	is_int(kp_folded__parse_line("a;b;c x", 7, false, &l), -EINVAL, "count not a number");
	is_int(kp_folded__parse_line("a;b12", 5, false, &l), -EINVAL, "count not after a blank");
	is_int(kp_folded__parse_line("42", 2, false, &l), -EINVAL, "no stack");
	is_int(kp_folded__parse_line("   42", 5, false, &l), -EINVAL, "blank stack");
	is_int(kp_folded__parse_line("a 1.5", 5, false, &l), -EINVAL, "fractional count");
	is_int(kp_folded__parse_line("a -3", 4, false, &l), -EINVAL, "negative count");

	strcpy(big, "a;b 18446744073709551615");
	is_int(kp_folded__parse_line(big, strlen(big), false, &l), 0, "count 2^64-1");
	ok(l.count == UINT64_MAX, "count 2^64-1: value");
	strcpy(big, "a;b 18446744073709551616");
	is_int(kp_folded__parse_line(big, strlen(big), false, &l), -ERANGE, "count 2^64: -ERANGE");
	strcpy(big, "a 000000000000000000000000000000007");
	is_int(kp_folded__parse_line(big, strlen(big), false, &l), 0, "leading zeros");
	is_int(l.count, 7, "leading zeros: value");

	is_int(kp_folded__parse_line("a;b 3 4", 7, true, &l), 0, "two counts");
	ok(l.two && l.count0 == 3 && l.count == 4 && l.len == 3, "two counts: BASE 3, NEW 4");
	is_int(kp_folded__parse_line("a;b 4", 5, true, &l), 0, "one count where two may be");
	ok(!l.two && l.count == 4 && l.len == 3, "one count where two may be: NEW 4");
	is_int(kp_folded__parse_line("a;b 3 4", 7, false, &l), 0, "one-count form");
	ok(!l.two && l.count == 4 && l.len == 5, "one-count form: '3' is part of the stack");
	strcpy(big, "a 99999999999999999999 4");
	is_int(kp_folded__parse_line(big, strlen(big), true, &l), -ERANGE,
	       "two counts, BASE too big");

	ok(kp_folded__is_data("KPROFDAT\1\0", 10), "KPROFDAT is kprof.data");
	ok(!kp_folded__is_data("KPROFDA", 7), "a short file is not");
	ok(!kp_folded__is_data("main;foo 1\n", 11), "folded text is not");
	ok(kp_folded__is_kernel("ksys_read_[k]", 13) && !kp_folded__is_kernel("read", 4) &&
	   !kp_folded__is_kernel("_[k]x", 5), "kernel suffix");
}

/* The lines the reader handed over, as "lineno:stack:count\n". */
struct collect {
	char	buf[4096];
	size_t	pos;
	int	stop_at;	/* return -EIO at this line */
};

static int collect_cb(void *arg, const struct kp_folded_line *l, struct kp_err *err)
{
	struct collect *c = arg;

	if (c->stop_at && (int)l->lineno == c->stop_at) {
		kp_err__set(err, EIO, "stopped at %lu", l->lineno);
		return -EIO;
	}
	if (l->len > 1000) {
		c->pos += snprintf(c->buf + c->pos, sizeof(c->buf) - c->pos, "%lu:<%zu bytes>:%llu\n",
				   l->lineno, l->len, (unsigned long long)l->count);
		return 0;
	}
	if (l->two)
		c->pos += snprintf(c->buf + c->pos, sizeof(c->buf) - c->pos, "%lu:%.*s:%llu/%llu\n",
				   l->lineno, (int)l->len, l->stack,
				   (unsigned long long)l->count0, (unsigned long long)l->count);
	else
		c->pos += snprintf(c->buf + c->pos, sizeof(c->buf) - c->pos, "%lu:%.*s:%llu\n",
				   l->lineno, (int)l->len, l->stack, (unsigned long long)l->count);
	return 0;
}

static int read_str(const char *text, const char *pre, struct collect *c, struct kp_err *err)
{
	FILE *fp = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!*text) {
		fclose(fp);
		fp = fopen("/dev/null", "r");
	}
	memset(c->buf, 0, sizeof(c->buf));
	c->pos = 0;
	ret = kp_folded__read_fp(fp, "in.folded", pre, pre ? strlen(pre) : 0, collect_cb, c, err);
	fclose(fp);
	return ret;
}

static void test_read(void)
{
	struct collect c = { 0 };
	struct kp_err err;
	char *big;
	size_t i;
	int ret;

	ret = read_str("a;b 1\n\nc 2\r\nd;e;f 3", NULL, &c, &err);
	is_int(ret, 0, "read: good input");
	is_str(c.buf, "1:a;b:1\n3:c:2\n4:d;e;f:3\n", "read: lines, numbers, no final newline");

	ret = read_str("", NULL, &c, &err);
	ok(ret == 0 && !c.pos, "read: empty input");

	ret = read_str("c 2\n", "a;b 1\nb", &c, &err);
	is_int(ret, 0, "read: with bytes read before");
	is_str(c.buf, "1:a;b:1\n2:bc:2\n", "read: the bytes read before come first");

	ret = read_str("a;b 1\nc 2\ngarbage here\nd 4\nmore;garbage\n", NULL, &c, &err);
	is_int(ret, -EINVAL, "bad lines: -EINVAL");
	is_str(err.msg, "in.folded:3: not a folded stack line (expected 'frame;...;frame COUNT'): "
	       "'garbage here' (and 1 more bad line)", "bad lines: one error naming the first");
	is_str(c.buf, "1:a;b:1\n2:c:2\n", "bad lines: nothing handed over after the first");

	ret = read_str("a 1\nb 2\nc\n\x01\x02zz\n", NULL, &c, &err);
	is_str(err.msg, "in.folded:3: not a folded stack line (expected 'frame;...;frame COUNT'): "
	       "'c' (and 1 more bad line)", "bad lines: control characters");
	ret = read_str("a 1\nb 2\n\x01z\nq\nr\n", NULL, &c, &err);
	is_str(err.msg, "in.folded:3: not a folded stack line (expected 'frame;...;frame COUNT'): "
	       "'\\x01z' (and 2 more bad lines)", "bad lines: escaped in the message");

	ret = read_str("a 1\nb 123456789012345678901234567890\n", NULL, &c, &err);
	is_int(ret, -ERANGE, "huge count: -ERANGE");
	is_str(err.msg, "in.folded:2: sample count does not fit in 64 bits: "
	       "'b 123456789012345678901234567890'", "huge count: message");

	ret = read_str("a;b 1 2\nc 3 4\n", NULL, &c, &err);
	is_int(ret, 0, "two-count file");
	is_str(c.buf, "1:a;b:1/2\n2:c:3/4\n", "two-count file: BASE/NEW");
	ret = read_str("a;b 1 2\nc 4\n", NULL, &c, &err);
	is_str(err.msg, "in.folded:2: not a folded stack line (expected 'frame;...;frame BASE NEW'): "
	       "'c 4'", "two-count file: a line with one count is bad");
	ret = read_str("a;b 2\nc 3 4\n", NULL, &c, &err);
	is_str(c.buf, "1:a;b:2\n2:c 3:4\n", "one-count file: '3' is part of the stack");

	c.stop_at = 2;
	ret = read_str("a 1\nb 2\nc 3\n", NULL, &c, &err);
	ok(ret == -EIO && !strcmp(err.msg, "stopped at 2") && !strcmp(c.buf, "1:a:1\n"),
	   "a callback error stops the reading");
	c.stop_at = 0;

	/* A line longer than the read chunk. */
	big = malloc(700001);
	for (i = 0; i < 700000 - 4; i++)
		big[i] = i % 2 ? ';' : 'f';
	memcpy(big + i, "f 9\n", 5);
	ret = read_str(big, NULL, &c, &err);
	ok(ret == 0 && !strcmp(c.buf, "1:<699997 bytes>:9\n"), "a 700 kB line");
	free(big);
}

static void write_file(const char *path, const char *text, int mode)
{
	FILE *fp = fopen(path, "w");

	if (!fp || fputs(text, fp) < 0 || fclose(fp) || chmod(path, mode))
		abort();
}

static void test_read_path(void)
{
	char root[64], path[128], data[128], exe[128], bad_exe[128];
	struct collect c = { 0 };
	struct capture cap;
	const char *saved = kp_folded_exe;
	struct kp_err err;
	int ret, fd, saved_stdin;

	tmpdir__create(root, sizeof(root));
	snprintf(path, sizeof(path), "%s/in.folded", root);
	write_file(path, "main;foo 3\nmain;bar_[k] 4\n", 0644);
	ret = kp_folded__read_path(path, collect_cb, &c, &err);
	is_int(ret, 0, "read_path: folded file");
	is_str(c.buf, "1:main;foo:3\n2:main;bar_[k]:4\n", "read_path: folded file lines");

	memset(&c, 0, sizeof(c));
	ret = kp_folded__read_path("/nonexistent/x.folded", collect_cb, &c, &err);
	is_int(ret, -ENOENT, "read_path: missing file");
	is_str(err.msg, "cannot open '/nonexistent/x.folded': No such file or directory",
	       "read_path: missing file message");

	/* stdin */
	fd = open(path, O_RDONLY);
	saved_stdin = dup(STDIN_FILENO);
	dup2(fd, STDIN_FILENO);
	close(fd);
	clearerr(stdin);
	memset(&c, 0, sizeof(c));
	ret = kp_folded__read_path("-", collect_cb, &c, &err);
	ok(ret == 0 && !strcmp(c.buf, "1:main;foo:3\n2:main;bar_[k]:4\n"), "read_path: - is stdin");
	dup2(saved_stdin, STDIN_FILENO);
	close(saved_stdin);
	clearerr(stdin);

	/* kprof.data: converted by "kprofctl folded --annotate-kernel -i PATH" (a fake). */
	snprintf(data, sizeof(data), "%s/kprof.data", root);
	write_file(data, "KPROFDAT\1\0\0\0 not really", 0644);
	snprintf(exe, sizeof(exe), "%s/fake-kprofctl", root);
	write_file(exe, "#!/bin/sh\n"
		   "[ \"$1 $2 $3\" = \"folded --annotate-kernel -i\" ] || "
		   "{ echo \"bad args: $*\" >&2; exit 9; }\n"
		   "head -c 8 \"$4\" | grep -q KPROFDAT || exit 8\n"
		   "printf 'proc;main;work 5\\nproc;main;read;ksys_read_[k] 2\\n'\n", 0755);
	kp_folded_exe = exe;
	memset(&c, 0, sizeof(c));
	ret = kp_folded__read_path(data, collect_cb, &c, &err);
	is_int(ret, 0, "read_path: kprof.data through 'kprofctl folded'");
	is_str(c.buf, "1:proc;main;work:5\n2:proc;main;read;ksys_read_[k]:2\n",
	       "read_path: kprof.data: its folded stacks");

	snprintf(bad_exe, sizeof(bad_exe), "%s/failing-kprofctl", root);
	write_file(bad_exe, "#!/bin/sh\necho 'proc;x 1'\nexit 3\n", 0755);
	kp_folded_exe = bad_exe;
	ret = kp_folded__read_path(data, collect_cb, &c, &err);
	is_int(ret, -EIO, "read_path: failing conversion");
	ok(strstr(err.msg, "'kprofctl folded --annotate-kernel -i ") &&
	   strstr(err.msg, "failed (exit status 3)"),
	   "read_path: failing conversion names the command and its status");

	write_file(bad_exe, "#!/bin/sh\necho 'not folded'\n", 0755);
	ret = kp_folded__read_path(data, collect_cb, &c, &err);
	ok(ret == -EINVAL && strstr(err.msg, "kprof.data':1: not a folded stack line"),
	   "read_path: bad conversion output is reported");

	kp_folded_exe = "/nonexistent/kprofctl";
	capture__start(&cap);
	ret = kp_folded__read_path(data, collect_cb, &c, &err);
	capture__stop(&cap);
	is_int(ret, -EIO, "read_path: missing converter");
	is_str(cap.err, "kprofctl: cannot run /nonexistent/kprofctl: No such file or directory\n",
	       "read_path: missing converter message");
	capture__free(&cap);
	kp_folded_exe = saved;

	fd = open(data, O_RDONLY);
	saved_stdin = dup(STDIN_FILENO);
	dup2(fd, STDIN_FILENO);
	close(fd);
	clearerr(stdin);
	ret = kp_folded__read_path("-", collect_cb, &c, &err);
	ok(ret == -EINVAL && strstr(err.msg, "kprof.data on stdin is not supported"),
	   "read_path: kprof.data on stdin is refused");
	dup2(saved_stdin, STDIN_FILENO);
	close(saved_stdin);
	clearerr(stdin);

	tmpdir__remove(root);
}

int main(void)
{
	test_parse_line();
	test_read();
	test_read_path();
	return done_testing();
}
