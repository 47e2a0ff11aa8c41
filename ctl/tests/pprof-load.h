/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Read back a profile that 'kprofctl pprof' wrote: gunzip'd, unpacked
 * with protobuf-c (perftools__profiles__profile__free_unpacked() frees it).
 */
#ifndef KPROFCTL_TESTS_PPROF_LOAD_H
#define KPROFCTL_TESTS_PPROF_LOAD_H

#include <stdint.h>
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

#endif /* KPROFCTL_TESTS_PPROF_LOAD_H */
