// SPDX-License-Identifier: GPL-2.0
/*
 * Collapsed-stack ("folded") input; see folded.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "data.h"
#include "folded.h"

const char *kp_folded_exe = "/proc/self/exe";
bool kp_folded_no_demangle;

#define READ_CHUNK	(256 * 1024)
#define EXCERPT_MAX	40

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * The decimal count ending at @end (exclusive) in @line: its start in
 * *@start.  0, -EINVAL (no digits or not preceded by a blank or the start)
 * or -ERANGE.
 */
static int parse_count(const char *line, size_t end, size_t *start, uint64_t *val)
{
	size_t i = end;
	uint64_t v = 0;

	while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
		i--;
	if (i == end || (i > 0 && !is_blank(line[i - 1])))
		return -EINVAL;
	*start = i;
	for (; i < end; i++) {
		unsigned int d = line[i] - '0';

		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*val = v;
	return 0;
}

static size_t trim_blanks(const char *s, size_t len)
{
	while (len > 0 && is_blank(s[len - 1]))
		len--;
	return len;
}

int kp_folded__parse_line(const char *line, size_t len, bool two, struct kp_folded_line *out)
{
	size_t start, start0, end;
	uint64_t v, v0;
	int ret;

	memset(out, 0, sizeof(*out));
	while (len > 0 && (line[len - 1] == '\r' || is_blank(line[len - 1])))
		len--;
	if (!len)
		return 1;
	ret = parse_count(line, len, &start, &v);
	if (ret)
		return ret;
	end = trim_blanks(line, start);
	if (two && parse_count(line, end, &start0, &v0) == 0) {
		out->two = true;
		out->count0 = v0;
		end = trim_blanks(line, start0);
	} else if (two) {
		/* A second count that does not fit is an error too. */
		if (parse_count(line, end, &start0, &v0) == -ERANGE)
			return -ERANGE;
	}
	if (!end)
		return -EINVAL;
	out->stack = line;
	out->len = end;
	out->count = v;
	return 0;
}

bool kp_folded__is_data(const char *buf, size_t len)
{
	return len >= sizeof(KP_DATA_MAGIC) - 1 &&
	       !memcmp(buf, KP_DATA_MAGIC, sizeof(KP_DATA_MAGIC) - 1);
}

/* What the reader knows about the bad lines. */
struct bad_lines {
	unsigned long	nr;
	unsigned long	first;		/* line number of the first */
	int		err;		/* -EINVAL or -ERANGE */
	bool		two;		/* the form expected at the first */
	char		excerpt[EXCERPT_MAX * 4 + 8];
};

/* @s as a short, printable excerpt for an error message. */
static void excerpt(char *buf, size_t size, const char *s, size_t len)
{
	size_t i, pos = 0;

	for (i = 0; i < len && i < EXCERPT_MAX && pos + 5 < size; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c == 0x7f)
			pos += snprintf(buf + pos, size - pos, "\\x%02x", c);
		else
			buf[pos++] = c;
	}
	if (i < len && pos + 4 < size)
		pos += snprintf(buf + pos, size - pos, "...");
	buf[pos] = '\0';
}

static void bad_lines__add(struct bad_lines *bad, const char *line, size_t len,
			   unsigned long lineno, int err, bool two)
{
	if (!bad->nr++) {
		bad->first = lineno;
		bad->err = err;
		bad->two = two;
		while (len > 0 && line[len - 1] == '\r')
			len--;
		excerpt(bad->excerpt, sizeof(bad->excerpt), line, len);
	}
}

static void bad_lines__set_err(const struct bad_lines *bad, const char *name, struct kp_err *err)
{
	char more[64] = "";

	if (bad->nr > 1)
		snprintf(more, sizeof(more), " (and %lu more bad line%s)", bad->nr - 1,
			 bad->nr > 2 ? "s" : "");
	if (bad->err == -ERANGE)
		kp_err__set(err, ERANGE, "%s:%lu: sample count does not fit in 64 bits: '%s'%s",
			    name, bad->first, bad->excerpt, more);
	else
		kp_err__set(err, EINVAL, "%s:%lu: not a folded stack line (expected '%s'): '%s'%s",
			    name, bad->first,
			    bad->two ? "frame;...;frame BASE NEW" : "frame;...;frame COUNT",
			    bad->excerpt, more);
}

struct line_reader {
	FILE		*fp;
	char		*buf;
	size_t		size, len, pos;
	bool		eof;
};

/* The next line (without its '\n') in *@line, *@len; 1, 0 at the end, -errno. */
static int line_reader__next(struct line_reader *r, const char **line, size_t *len)
{
	char *nl;
	size_t n;

	for (;;) {
		nl = r->buf ? memchr(r->buf + r->pos, '\n', r->len - r->pos) : NULL;
		if (nl) {
			*line = r->buf + r->pos;
			*len = nl - (r->buf + r->pos);
			r->pos = nl - r->buf + 1;
			return 1;
		}
		if (r->eof) {
			if (r->pos == r->len)
				return 0;
			*line = r->buf + r->pos;
			*len = r->len - r->pos;
			r->pos = r->len;
			return 1;
		}
		/* Move the partial line to the front and read more. */
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->len - r->pos);
			r->len -= r->pos;
			r->pos = 0;
		}
		if (r->size - r->len < READ_CHUNK) {
			size_t size = r->size ? r->size * 2 : 2 * READ_CHUNK;
			char *buf = realloc(r->buf, size);

			if (!buf)
				return -ENOMEM;
			r->buf = buf;
			r->size = size;
		}
		n = fread(r->buf + r->len, 1, r->size - r->len, r->fp);
		r->len += n;
		if (n == 0) {
			if (ferror(r->fp))
				return -(errno ? errno : EIO);
			r->eof = true;
		}
	}
}

int kp_folded__read_fp(FILE *fp, const char *name, const char *pre, size_t prelen,
		       kp_folded_cb *cb, void *arg, struct kp_err *err)
{
	struct line_reader r = { .fp = fp };
	struct bad_lines bad = { 0 };
	struct kp_folded_line l;
	unsigned long lineno = 0;
	bool two = false, known = false;
	const char *line = NULL;
	size_t len = 0;
	int ret;

	kp_err__clear(err);
	if (prelen) {
		r.size = prelen + 2 * READ_CHUNK;
		r.buf = malloc(r.size);
		if (!r.buf)
			goto nomem;
		memcpy(r.buf, pre, prelen);
		r.len = prelen;
	}
	while ((ret = line_reader__next(&r, &line, &len)) > 0) {
		lineno++;
		ret = kp_folded__parse_line(line, len, two || !known, &l);
		if (ret == 1)
			continue;
		if (!ret && !known) {
			known = true;
			two = l.two;
		} else if (!ret && two && !l.two) {
			ret = -EINVAL;
		}
		if (ret) {
			bad_lines__add(&bad, line, len, lineno, ret, two);
			continue;
		}
		if (bad.nr)
			continue;	/* only look for more bad lines */
		l.lineno = lineno;
		ret = cb(arg, &l, err);
		if (ret)
			goto out;
	}
	if (ret == -ENOMEM)
		goto nomem;
	if (ret < 0) {
		kp_err__set(err, -ret, "cannot read %s: %s", name, strerror(-ret));
		goto out;
	}
	if (bad.nr) {
		bad_lines__set_err(&bad, name, err);
		ret = -err->errnum;
	}
out:
	free(r.buf);
	return ret;
nomem:
	kp_err__set(err, ENOMEM, "reading %s: %s", name, strerror(ENOMEM));
	ret = -ENOMEM;
	goto out;
}

/* Read up to @size bytes of the start of @fp. */
static size_t sniff(FILE *fp, char *buf, size_t size)
{
	size_t n = 0, r;

	while (n < size) {
		r = fread(buf + n, 1, size - n, fp);
		if (!r)
			break;
		n += r;
	}
	return n;
}

/*
 * Convert the kprof.data @path with 'kprofctl folded --annotate-kernel -i PATH'
 * (kernel frames suffixed _[k], for their hue; --no-demangle with
 * kp_folded_no_demangle) and read its output.
 */
static int read_data(const char *path, kp_folded_cb *cb, void *arg, struct kp_err *err)
{
	const char *argv[] = { "kprofctl", "folded", "--annotate-kernel", "-i", path,
			       kp_folded_no_demangle ? "--no-demangle" : NULL, NULL };
	char name[512];
	int fds[2], status, ret;
	FILE *fp;
	pid_t pid;

	snprintf(name, sizeof(name), "'kprofctl folded --annotate-kernel -i %s%s'", path,
		 kp_folded_no_demangle ? " --no-demangle" : "");
	if (pipe2(fds, O_CLOEXEC)) {
		kp_err__set(err, errno, "cannot run %s: pipe: %s", name, strerror(errno));
		return -err->errnum;
	}
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		kp_err__set(err, errno, "cannot run %s: fork: %s", name, strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -err->errnum;
	}
	if (!pid) {
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(127);
		execv(kp_folded_exe, (char * const *)argv);
		dprintf(STDERR_FILENO, "kprofctl: cannot run %s: %s\n", kp_folded_exe,
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	fp = fdopen(fds[0], "r");
	if (!fp) {
		kp_err__set(err, errno, "cannot run %s: %s", name, strerror(errno));
		close(fds[0]);
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
		return -err->errnum;
	}
	ret = kp_folded__read_fp(fp, name, NULL, 0, cb, arg, err);
	/* On an early error the child gets SIGPIPE. */
	fclose(fp);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = 0;
			break;
		}
	}
	if (ret)
		return ret;
	if (WIFEXITED(status) && WEXITSTATUS(status)) {
		kp_err__set(err, EIO, "%s failed (exit status %d)", name, WEXITSTATUS(status));
		return -EIO;
	}
	if (WIFSIGNALED(status)) {
		kp_err__set(err, EIO, "%s was killed by signal %d", name, WTERMSIG(status));
		return -EIO;
	}
	return 0;
}

int kp_folded__read_path(const char *path, kp_folded_cb *cb, void *arg, struct kp_err *err)
{
	char pre[sizeof(KP_DATA_MAGIC) - 1];
	bool is_stdin = !strcmp(path, "-");
	FILE *fp;
	size_t n;
	int ret;

	fp = is_stdin ? stdin : fopen(path, "r");
	if (!fp) {
		kp_err__set(err, errno, "cannot open '%s': %s", path, strerror(errno));
		return -err->errnum;
	}
	n = sniff(fp, pre, sizeof(pre));
	if (ferror(fp)) {
		kp_err__set(err, errno ? errno : EIO, "cannot read %s: %s", is_stdin ? "stdin" : path,
			    strerror(errno ? errno : EIO));
		ret = -err->errnum;
		goto out;
	}
	if (kp_folded__is_data(pre, n)) {
		if (is_stdin) {
			kp_err__set(err, EINVAL,
				    "kprof.data on stdin is not supported: pass the file with -i");
			return -EINVAL;
		}
		fclose(fp);
		return read_data(path, cb, arg, err);
	}
	ret = kp_folded__read_fp(fp, is_stdin ? "<stdin>" : path, pre, n, cb, arg, err);
out:
	if (!is_stdin)
		fclose(fp);
	return ret;
}
