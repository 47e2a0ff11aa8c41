/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Temporary directory trees for the unit tests: fake /proc and /sys roots,
 * output files.
 *
 *	char root[64];
 *
 *	tmpdir__create(root, sizeof(root));
 *	tmpdir__write(root, "proc/sys/kernel/perf_event_max_sample_rate", "100000\n");
 *	text = tmpdir__slurp(path, NULL);
 *	...
 *	tmpdir__remove(root);
 */
#ifndef KPROFCTL_TMPDIR_H
#define KPROFCTL_TMPDIR_H

#define _XOPEN_SOURCE_EXTENDED 1
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void tmpdir__create(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/kprofctl-test.XXXXXX");
	if (!mkdtemp(buf))
		abort();
}

/* mkdir -p of the directory part of @root/@rel. */
static inline void tmpdir__mkdirs(const char *root, const char *rel, int all)
{
	char path[4096], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			abort();
		*p = '/';
	}
	if (all && mkdir(path, 0755) && errno != EEXIST)
		abort();
}

/* The entries of directory @dir whose names start with @prefix; -1: unreadable. */
static inline int tmpdir__count(const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static inline void tmpdir__mkdir(const char *root, const char *rel)
{
	tmpdir__mkdirs(root, rel, 1);
}

static inline void tmpdir__write(const char *root, const char *rel, const char *text)
{
	char path[4096];
	FILE *fp;

	tmpdir__mkdirs(root, rel, 0);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fp = fopen(path, "w");
	if (!fp || fputs(text, fp) < 0 || fclose(fp))
		abort();
}

/*
 * The whole file @path (an output to check, an input to copy), with a NUL
 * after it; its size in *@len unless @len is NULL.  NULL if it cannot be
 * opened.
 */
static inline char *tmpdir__slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	FILE *fp;

	fp = fopen(path, "r");
	if (!fp)
		return NULL;
	if (fstat(fileno(fp), &st))
		abort();
	buf = calloc(1, st.st_size + 1);
	if (!buf || fread(buf, 1, st.st_size, fp) != (size_t)st.st_size)
		abort();
	fclose(fp);
	if (len)
		*len = st.st_size;
	return buf;
}

static inline int tmpdir__rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void tmpdir__remove(const char *root)
{
	nftw(root, tmpdir__rm, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove @rel under @root, a file or a whole directory. */
static inline void tmpdir__remove_path(const char *root, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	tmpdir__remove(path);
}

#endif /* KPROFCTL_TMPDIR_H */
