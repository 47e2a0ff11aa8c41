// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs: tracepoint ids and format files; see tracefs.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "sys.h"
#include "tracefs.h"
#include "util.h"

const char *kp_tracefs_root;

#define DIR_MAX		2048
#define PATH_MAX_	(DIR_MAX + 2 * 256 + 16)

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int kp_tracefs__events_dir(char *buf, size_t len, struct kp_err *err)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};
	unsigned int i;

	if (kp_tracefs_root) {
		snprintf(buf, len, "%s", kp_tracefs_root);
		if (is_dir(buf))
			return 0;
		goto missing;
	}
	for (i = 0; i < KP_ARRAY_SIZE(dirs); i++)
		if (!kp_path(buf, len, "%s", dirs[i]) && is_dir(buf))
			return 0;
	/* As perf does: mount tracefs where it belongs, if we may. */
	if (!kp_sysroot[0] && is_dir("/sys/kernel/tracing") &&
	    !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		snprintf(buf, len, "%s", dirs[0]);
		if (is_dir(buf))
			return 0;
	}
missing:
	kp_err__set(err, ENOENT,
		    "tracefs is not available: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (as root)");
	return -ENOENT;
}

bool kp_tracefs__glob_ok(const char *glob)
{
	const char *p = glob;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p == '[') {
			const char *start = ++p;

			if (*p == '!' || *p == '^')
				p++;
			if (*p == ']')	/* "[]...]": ']' first is a member */
				p++;
			while (*p && *p != ']') {
				if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
					return false;
				p++;
			}
			if (!*p || p == start)
				return false;
			continue;
		}
		if (!isalnum((unsigned char)*p) && !strchr("_-.*?", *p))
			return false;
	}
	return true;
}

static int name_sort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int match_dir(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int read_id(const char *dir, const char *sys, const char *ev, uint32_t *id,
		   struct kp_err *err)
{
	char path[PATH_MAX_], buf[32];
	unsigned int v;
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, ev);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;	/* not a tracepoint: e.g. a system's 'enable' file */
	if (!fgets(buf, sizeof(buf), fp)) {
		ret = -EIO;
		goto out;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (kp_parse_uint(buf, &v)) {
		ret = -EINVAL;
		goto out;
	}
	*id = v;
out:
	fclose(fp);
	if (ret)
		kp_err__set(err, -ret, "cannot read the id of tracepoint '%s:%s' (%s)", sys, ev,
			    path);
	return ret;
}

int kp_tracefs__walk(const char *sys_glob, const char *ev_glob, kp_tracefs_cb cb,
		     void *arg, struct kp_err *err)
{
	struct dirent **systems = NULL, **events = NULL;
	int nsys, nev = 0, i, j, ret, found = 0;
	char dir[DIR_MAX], sub[PATH_MAX_];
	uint32_t id;

	ret = kp_tracefs__events_dir(dir, sizeof(dir), err);
	if (ret)
		return ret;
	nsys = scandir(dir, &systems, match_dir, name_sort);
	if (nsys < 0) {
		ret = -errno;
		kp_err__set(err, -ret, "cannot read %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (i = 0; i < nsys; i++) {
		const char *sys = systems[i]->d_name;

		if (fnmatch(sys_glob, sys, 0))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, sys);
		if (!is_dir(sub))
			continue;
		nev = scandir(sub, &events, match_dir, name_sort);
		if (nev < 0) {
			nev = 0;
			continue;
		}
		for (j = 0; j < nev; j++) {
			const char *ev = events[j]->d_name;

			if (fnmatch(ev_glob, ev, 0))
				continue;
			ret = read_id(dir, sys, ev, &id, err);
			if (ret == -ENOENT)
				continue;
			if (ret)
				goto out;
			found++;
			if (cb) {
				ret = cb(sys, ev, id, arg);
				if (ret)
					goto out;
			}
		}
		for (j = 0; j < nev; j++)
			free(events[j]);
		free(events);
		events = NULL;
		nev = 0;
	}
	ret = found;
out:
	for (j = 0; j < nev; j++)
		free(events[j]);
	free(events);
	for (i = 0; i < nsys; i++)
		free(systems[i]);
	free(systems);
	return ret;
}

/*
 * Read the text file @path into a new NUL-terminated buffer (see
 * kp_tracefs__read_format()); @what names it in the errors.
 */
static int read_text(const char *path, const char *what, char **text, uint32_t *size,
		     struct kp_err *err)
{
	size_t len;
	char *buf;
	FILE *fp;
	int ret = 0;

	fp = fopen(path, "re");
	if (!fp) {
		kp_err__set(err, ENOENT, "unknown tracepoint %s (see 'kprofctl list tracepoint')",
			    what);
		return -ENOENT;
	}
	buf = malloc(KP_TP_FORMAT_MAX + 1);
	if (!buf) {
		fclose(fp);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	len = fread(buf, 1, KP_TP_FORMAT_MAX, fp);
	if (ferror(fp))
		ret = -EIO;
	else if (len == KP_TP_FORMAT_MAX || memchr(buf, '\0', len))
		ret = -EFBIG;
	fclose(fp);
	if (ret) {
		free(buf);
		if (ret == -EIO)
			kp_err__set(err, EIO, "cannot read %s", path);
		else
			kp_err__set(err, EFBIG,
				    "the format of tracepoint %s is not text of less than %u bytes",
				    what, KP_TP_FORMAT_MAX);
		return ret;
	}
	buf[len] = '\0';
	*text = buf;
	*size = len + 1;
	return 0;
}

int kp_tracefs__read_format(const char *system, const char *event, char **text,
			    uint32_t *size, struct kp_err *err)
{
	char dir[DIR_MAX], path[PATH_MAX_], what[2 * KP_TP_NAME_MAX + 4];
	int ret;

	*text = NULL;
	*size = 0;
	ret = kp_tracefs__events_dir(dir, sizeof(dir), err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/%s/format", dir, system, event);
	snprintf(what, sizeof(what), "'%s:%s'", system, event);
	return read_text(path, what, text, size, err);
}

int kp_tracefs__read_header(const char *name, char **text, uint32_t *size,
			    struct kp_err *err)
{
	char dir[DIR_MAX], path[PATH_MAX_], what[KP_TP_NAME_MAX + 4];
	int ret;

	*text = NULL;
	*size = 0;
	if (strcmp(name, "header_page") && strcmp(name, "header_event")) {
		kp_err__set(err, EINVAL, "no tracefs header '%s'", name);
		return -EINVAL;
	}
	ret = kp_tracefs__events_dir(dir, sizeof(dir), err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(what, sizeof(what), "'%s'", name);
	return read_text(path, what, text, size, err);
}
