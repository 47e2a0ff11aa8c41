// SPDX-License-Identifier: GPL-2.0
/*
 * /run/kprof; see rundir.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "rundir.h"
#include "util.h"

const char *kp_rundir;

const char *kp_rundir__dir(void)
{
	const char *env = getenv("KPROF_RUNDIR");

	if (kp_rundir)
		return kp_rundir;
	return env && *env ? env : "/run/kprof";
}

int kp_rundir__ensure(struct kp_err *err)
{
	const char *dir = kp_rundir__dir();
	char path[4096], *p;
	int e;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
		kp_err__set(err, ENAMETOOLONG, "run directory '%.64s...' is too long (KPROF_RUNDIR)", dir);
		return -ENAMETOOLONG;
	}
	/* mkdir -p: each parent, then the directory */
	for (p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		e = *p;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			e = errno;
			kp_err__set(err, e, "cannot create the run directory '%s': %s (set KPROF_RUNDIR to a writable directory)",
				    path, strerror(e));
			return -e;
		}
		if (!e)
			break;
		*p = '/';
	}
	return 0;
}

/* One state file, complete or not at all (the temporary-name rule of outfile.h). */
static int write_file(const char *name, const char *text, struct kp_err *err)
{
	struct kp_outfile o;
	char path[4096];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", kp_rundir__dir(), name);
	ret = kp_outfile__open(&o, path, false, err);
	if (ret)
		return ret;
	fputs(text, o.fp);
	return kp_outfile__commit(&o, err);
}

int kp_rundir__write(const struct kp_drainer_info *d, struct kp_err *err)
{
	char text[4300];
	int ret;

	ret = kp_rundir__ensure(err);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "id %" PRIu64 "\npid %d\noutput %s\n", d->session_id,
		 (int)d->pid, d->output);
	ret = write_file("session", text, err);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "%d\n", (int)d->pid);
	return write_file("drainer.pid", text, err);
}

int kp_rundir__read(struct kp_drainer_info *d, struct kp_err *err)
{
	char path[4096], line[4200];
	bool has_id = false, has_pid = false, has_out = false;
	unsigned int pid;
	FILE *fp;
	size_t len;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/session", kp_rundir__dir());
	fp = fopen(path, "re");
	if (!fp) {
		if (errno == ENOENT)
			return -ENOENT;
		kp_err__set(err, errno, "cannot read '%s': %s", path, strerror(errno));
		return -EIO;
	}
	while (fgets(line, sizeof(line), fp)) {
		len = strcspn(line, "\n");
		line[len] = '\0';
		if (!strncmp(line, "id ", 3))
			has_id = !kp_parse_u64(line + 3, &d->session_id);
		else if (!strncmp(line, "pid ", 4))
			has_pid = !kp_parse_uint(line + 4, &pid) && pid && pid <= INT32_MAX;
		else if (!strncmp(line, "output ", 7) && len - 7 < sizeof(d->output))
			has_out = snprintf(d->output, sizeof(d->output), "%s", line + 7) > 0;
	}
	fclose(fp);
	if (!has_id || !has_pid || !has_out) {
		kp_err__set(err, EBADMSG, "'%s' is garbled; remove it", path);
		return -EBADMSG;
	}
	d->pid = pid;
	return 0;
}

void kp_rundir__remove(pid_t pid)
{
	struct kp_drainer_info d;
	struct kp_err err;
	char path[4096];

	if (kp_rundir__read(&d, &err) || d.pid != pid)
		return;
	snprintf(path, sizeof(path), "%s/drainer.pid", kp_rundir__dir());
	unlink(path);
	snprintf(path, sizeof(path), "%s/session", kp_rundir__dir());
	unlink(path);
}

bool kp_pid_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	/* A zombie is dead: its parent (init) may be slow to reap it. */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}
