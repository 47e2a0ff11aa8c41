/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture what a piece of code writes to stdout and stderr, to check the
 * exact output and error lines of kprofctl commands.
 *
 *	struct capture c;
 *
 *	capture__start(&c);
 *	rc = run(...);
 *	capture__stop(&c);	-> c.out and c.err hold the text
 *	...
 *	capture__free(&c);
 */
#ifndef KPROFCTL_CAPTURE_H
#define KPROFCTL_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	FILE	*fout, *ferr;
	int	saved_out, saved_err;
	char	*out, *err;
};

static inline char *capture__slurp(FILE *fp)
{
	long len;
	char *buf;

	/* The redirected descriptor shares the file offset with @fp. */
	fflush(fp);
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	buf = calloc(1, len + 1);
	if (!buf)
		abort();
	rewind(fp);
	if (len && fread(buf, 1, len, fp) != (size_t)len)
		abort();
	fclose(fp);
	return buf;
}

static inline void capture__start(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	c->fout = tmpfile();
	c->ferr = tmpfile();
	if (!c->fout || !c->ferr)
		abort();
	c->saved_out = dup(STDOUT_FILENO);
	c->saved_err = dup(STDERR_FILENO);
	if (c->saved_out < 0 || c->saved_err < 0 ||
	    dup2(fileno(c->fout), STDOUT_FILENO) < 0 ||
	    dup2(fileno(c->ferr), STDERR_FILENO) < 0)
		abort();
}

static inline void capture__stop(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	clearerr(stdout);
	if (dup2(c->saved_out, STDOUT_FILENO) < 0 || dup2(c->saved_err, STDERR_FILENO) < 0)
		abort();
	close(c->saved_out);
	close(c->saved_err);
	c->out = capture__slurp(c->fout);
	c->err = capture__slurp(c->ferr);
}

static inline void capture__free(struct capture *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

#endif /* KPROFCTL_CAPTURE_H */
