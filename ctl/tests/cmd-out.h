/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output of a shell command (e.g. Debian's perf on the host), for the
 * tests that compare kprofctl with it.
 */
#ifndef KPROFCTL_TESTS_CMD_OUT_H
#define KPROFCTL_TESTS_CMD_OUT_H

#include <stdio.h>
#include <stdlib.h>

/* @cmd's standard output, malloc()ed ("" when it fails). */
static inline char *run_out(const char *cmd)
{
	size_t len = 0, alloc = 65536, n;
	char *buf = malloc(alloc);
	FILE *fp = popen(cmd, "r");

	while (fp && buf && (n = fread(buf + len, 1, alloc - len - 1, fp)) > 0) {
		len += n;
		if (alloc - len < 4096) {
			char *t = realloc(buf, alloc *= 2);

			if (!t)
				break;
			buf = t;
		}
	}
	if (fp)
		pclose(fp);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The lines of @s (its newlines). */
static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif /* KPROFCTL_TESTS_CMD_OUT_H */
