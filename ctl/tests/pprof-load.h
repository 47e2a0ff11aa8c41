/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read back a profile that 'kprofctl pprof' wrote: gunzip'd, unpacked
 * with protobuf-c (perftools__profiles__profile__free_unpacked() frees it);
 * or read by the real client, Debian's 'go tool pprof' (pprof_first_line()).
 */
#ifndef KPROFCTL_TESTS_PPROF_LOAD_H
#define KPROFCTL_TESTS_PPROF_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "proto/profile.pb-c.h"

/* The profile at @path; NULL when it is not one (or over 1 MiB). */
static inline Perftools__Profiles__Profile *pprof_load(const char *path)
{
	static unsigned char buf[1 << 20];
	gzFile gz = gzopen(path, "rb");
	int n;

	if (!gz)
		return NULL;
	n = gzread(gz, buf, sizeof(buf));
	gzclose(gz);
	if (n <= 0 || n == (int)sizeof(buf))
		return NULL;
	return perftools__profiles__profile__unpack(NULL, n, buf);
}

/* String @i of @p's table. */
static inline const char *pprof_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	return i >= 0 && (size_t)i < p->n_string_table ? p->string_table[i] : "(bad index)";
}

/* The first line of @cmd's output that contains @needle, or "" */
static inline void pprof_first_line(const char *cmd, const char *needle, char *line, size_t len)
{
	FILE *fp = popen(cmd, "r");
	char buf[1024];

	line[0] = '\0';
	if (!fp)
		return;
	while (fgets(buf, sizeof(buf), fp))
		if (!line[0] && strstr(buf, needle))
			snprintf(line, len, "%s", buf);
	pclose(fp);
}

#endif /* KPROFCTL_TESTS_PPROF_LOAD_H */
