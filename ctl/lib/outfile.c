// SPDX-License-Identifier: GPL-2.0
/*
 * Output files that kprofctl never destroys (outfile.h has the rule).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "outfile.h"

/* The file a chain of symbolic links ends at, existing or not (malloc'd). */
static char *link_target(const char *path)
{
	char *cur = strdup(path), buf[PATH_MAX], *next, *slash;
	int hops;

	for (hops = 0; cur && hops < 40; hops++) {
		ssize_t n = readlink(cur, buf, sizeof(buf) - 1);

		if (n < 0)
			return cur;	/* not a link (or gone): this is the file */
		buf[n] = '\0';
		slash = strrchr(cur, '/');
		if (buf[0] == '/' || !slash) {
			next = strdup(buf);
		} else if (asprintf(&next, "%.*s/%s", (int)(slash - cur), cur, buf) < 0) {
			next = NULL;
		}
		free(cur);
		cur = next;
	}
	if (cur) {
		free(cur);
		errno = ELOOP;
	} else {
		errno = ENOMEM;
	}
	return NULL;
}

/*
 * A "regular" file of a kernel file system (/proc, /sys, debugfs, tracefs,
 * cgroup, ...): an interface, not a file to replace.  Written in place.
 */
static bool on_pseudo_fs(const char *path)
{
	struct statfs fs;

	if (statfs(path, &fs))
		return false;
	switch ((unsigned long)fs.f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case SECURITYFS_MAGIC:
	case BPF_FS_MAGIC:
		return true;
	}
	return false;
}

static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int kp_outfile__open(struct kp_outfile *o, const char *path, bool rw, struct kp_err *err)
{
	const char *base;
	struct stat st;
	bool exists;
	mode_t mode;
	int fd, e;

	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->is_stdout = true;
		o->fp = stdout;
		return 0;
	}
	o->name = strdup(path);
	if (!o->name)
		goto nomem;
	exists = !stat(path, &st);
	if (exists && (!S_ISREG(st.st_mode) || on_pseudo_fs(path))) {
		/* a device, FIFO, socket, /proc or /sys file: in place */
		fd = open(path, (rw ? O_RDWR : O_WRONLY) | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			goto fail_create;
		o->fp = fdopen(fd, rw ? "w+" : "w");
		if (!o->fp) {
			e = errno;
			close(fd);
			errno = e;
			goto fail_create;
		}
		return 0;
	}
	if (!exists && errno != ENOENT)
		goto fail_create;
	o->target = link_target(path);
	if (!o->target)
		goto fail_create;
	base = strrchr(o->target, '/');
	if (asprintf(&o->tmp, "%.*s.%s.XXXXXX", base ? (int)(base - o->target + 1) : 0,
		     o->target, base ? base + 1 : o->target) < 0) {
		o->tmp = NULL;
		goto nomem;
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		goto fail_create;
	}
	mode = exists ? (st.st_mode & 07777) : new_file_mode();
	if (fchmod(fd, mode) || !(o->fp = fdopen(fd, rw ? "w+" : "w"))) {
		e = errno;
		close(fd);
		errno = e;
		goto fail_create;
	}
	return 0;

nomem:
	errno = ENOMEM;
fail_create:
	e = errno ? errno : EIO;
	kp_err__set(err, e, "cannot create '%s': %s", path, strerror(e));
	kp_outfile__abort(o);
	return -e;
}

int kp_outfile__commit(struct kp_outfile *o, struct kp_err *err)
{
	bool bad;
	int e = 0;

	if (o->is_stdout) {
		errno = 0;
		bad = fflush(stdout) || ferror(stdout);
		o->fp = NULL;
		if (bad) {
			e = errno ? errno : EIO;
			kp_err__set(err, e, "cannot write to standard output: %s", strerror(e));
		}
		return -e;
	}
	if (!o->fp) {
		kp_err__set(err, EBADF, "'%s' is not open", o->name ? o->name : "");
		return -EBADF;
	}
	errno = 0;
	bad = ferror(o->fp);
	if (fclose(o->fp))
		bad = true;
	o->fp = NULL;
	if (!bad && o->tmp && rename(o->tmp, o->target))
		bad = true;
	if (bad) {
		e = errno ? errno : EIO;
		kp_err__set(err, e, "cannot write '%s': %s", o->name, strerror(e));
		kp_outfile__abort(o);
		return -e;
	}
	free(o->tmp);
	o->tmp = NULL;
	kp_outfile__abort(o);	/* frees the names */
	return 0;
}

void kp_outfile__abort(struct kp_outfile *o)
{
	if (o->fp && !o->is_stdout)
		fclose(o->fp);
	o->fp = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->target);
	free(o->name);
	o->tmp = NULL;
	o->target = NULL;
	o->name = NULL;
}

bool kp_outfile__is_input(const char *out, const char *in)
{
	struct stat so, si;

	if (!out || !in || !strcmp(out, "-") || stat(out, &so) || stat(in, &si))
		return false;
	return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}
