// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band synthesis from /proc; see synth.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys.h"
#include "synth.h"
#include "util.h"

int kp_synth__parse_maps_line(const char *line, struct kp_rec_mmap *rec)
{
	unsigned long long start, end, pgoff, inode;
	char perms[8];
	size_t len, size;
	int pos = 0;
	const char *path;

	/* start-end perms offset dev inode [path] */
	if (sscanf(line, "%llx-%llx %7s %llx %*x:%*x %llu %n", &start, &end, perms, &pgoff,
		   &inode, &pos) < 5 || !pos || end < start || strlen(perms) != 4)
		return -EINVAL;
	if (perms[2] != 'x')
		return 0;
	path = line + pos;
	len = strcspn(path, "\n");
	/* files, and the vDSO (named from the image kprof.data stores) */
	if (!len || (path[0] != '/' && (len != 6 || memcmp(path, "[vdso]", 6))))
		return 0;
	size = sizeof(*rec) + ((len + 1 + 7) & ~7UL);
	if (size > KP_RECORD_MAX_SIZE)
		return 0;
	memset(rec, 0, size);
	rec->header.type = KPROF_RECORD_MMAP;
	rec->header.size = size;
	rec->start = start;
	rec->len = end - start;
	rec->pgoff = pgoff;
	memcpy(rec->filename, path, len);
	return 1;
}

static int synth_comm(uint32_t pid, uint32_t tid, uint64_t time, kp_synth_fn fn, void *arg,
		      struct kp_synth_stats *st, struct kp_err *err)
{
	struct kp_rec_comm c = {
		.header = { .type = KPROF_RECORD_COMM, .size = sizeof(c) },
		.time = time,
		.pid = pid,
		.tid = tid,
	};
	char path[64], comm[64];

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	if (kp_read_file(path, comm, sizeof(comm)) < 0)
		return 1;	/* the thread is gone */
	snprintf(c.comm, sizeof(c.comm), "%.15s", comm);
	st->nr_threads++;
	return fn(&c.header, arg, err);
}

static int synth_maps(uint32_t pid, uint64_t time, kp_synth_fn fn, void *arg,
		      struct kp_synth_stats *st, unsigned char *buf, struct kp_err *err)
{
	struct kp_rec_mmap *m = (void *)buf;
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *fp;
	int ret = 0;

	if (kp_path(path, sizeof(path), "/proc/%u/maps", pid))
		return 1;
	fp = fopen(path, "re");
	if (!fp)
		return 1;
	while (getline(&line, &cap, fp) > 0) {
		if (kp_synth__parse_maps_line(line, m) <= 0)
			continue;
		m->time = time;
		m->pid = pid;
		m->tid = pid;
		st->nr_mmaps++;
		ret = fn(&m->header, arg, err);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	return ret;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

int kp_synth__process(uint32_t pid, uint64_t time, kp_synth_fn fn, void *arg,
		      struct kp_synth_stats *st, struct kp_err *err)
{
	unsigned char *buf = NULL;
	struct dirent *de;
	char path[4096];
	unsigned int tid;
	DIR *dir;
	int ret = 0, n = 0;

	dir = kp_path(path, sizeof(path), "/proc/%u/task", pid) ? NULL : opendir(path);
	if (!dir) {
		st->nr_vanished++;
		return 0;
	}
	while ((de = readdir(dir))) {
		if (!is_number(de->d_name) || kp_parse_uint(de->d_name, &tid))
			continue;
		ret = synth_comm(pid, tid, time, fn, arg, st, err);
		if (ret < 0)
			goto out;
		n += !ret;
	}
	if (!n) {
		st->nr_vanished++;
		ret = 0;
		goto out;
	}
	st->nr_processes++;
	buf = aligned_alloc(8, KP_RECORD_MAX_SIZE + 8);
	if (!buf) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		ret = -ENOMEM;
		goto out;
	}
	ret = synth_maps(pid, time, fn, arg, st, buf, err);
	if (ret > 0)
		ret = 0;
out:
	free(buf);
	closedir(dir);
	return ret < 0 ? ret : 0;
}

int kp_synth__all(uint64_t time, kp_synth_fn fn, void *arg, struct kp_synth_stats *st,
		  struct kp_err *err)
{
	struct dirent *de;
	char path[4096];
	unsigned int pid;
	DIR *dir;
	int ret = 0;

	errno = ENAMETOOLONG;
	dir = kp_path(path, sizeof(path), "/proc") ? NULL : opendir(path);
	if (!dir) {
		kp_err__set(err, errno, "cannot read %s: %s", path, strerror(errno));
		return -ENOENT;
	}
	while ((de = readdir(dir))) {
		if (!is_number(de->d_name) || kp_parse_uint(de->d_name, &pid))
			continue;
		ret = kp_synth__process(pid, time, fn, arg, st, err);
		if (ret)
			break;
	}
	closedir(dir);
	return ret;
}
