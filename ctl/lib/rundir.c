// SPDX-License-Identifier: GPL-2.0
/*
 * /run/kprof; see rundir.h.
 */
#include <dirent.h>
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
	char failed[4096];
	int ret;

	ret = kp_mkdir_p(dir, failed, sizeof(failed));
	if (ret == -ENAMETOOLONG) {
		kp_err__set(err, ENAMETOOLONG, "run directory '%s' is too long (KPROF_RUNDIR)", failed);
	} else if (ret) {
		kp_err__set(err, -ret, "cannot create the run directory '%s': %s (set KPROF_RUNDIR to a writable directory)",
			    failed, strerror(-ret));
	}
	return ret;
}

int kp_rundir__session_dir(uint64_t id, char *buf, size_t len, struct kp_err *err)
{
	const char *dir = kp_rundir__dir();

	if ((size_t)snprintf(buf, len, "%s/%" PRIu64, dir, id) < len)
		return 0;
	if (err)
		kp_err__set(err, ENAMETOOLONG, "run directory '%.64s...' is too long (KPROF_RUNDIR)",
			    dir);
	return -ENAMETOOLONG;
}

int kp_rundir__ensure_session(uint64_t id, struct kp_err *err)
{
	char path[4096];
	int ret;

	ret = kp_rundir__ensure(err);
	if (!ret)
		ret = kp_rundir__session_dir(id, path, sizeof(path), err);
	if (ret)
		return ret;
	if (mkdir(path, 0755) && errno != EEXIST) {
		ret = errno;
		kp_err__set(err, ret, "cannot create '%s': %s (set KPROF_RUNDIR to a writable directory)",
			    path, strerror(ret));
		return -ret;
	}
	return 0;
}

int kp_rundir__state_path(uint64_t id, const char *name, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "%s/%" PRIu64 "/%s", kp_rundir__dir(), id, name) < len ?
		0 : -ENAMETOOLONG;
}

/* One state file, complete or not at all (the temporary-name rule of outfile.h). */
static int write_file(uint64_t id, const char *name, const char *text, struct kp_err *err)
{
	struct kp_outfile o;
	char path[4200];
	int ret;

	kp_rundir__state_path(id, name, path, sizeof(path));
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

	ret = kp_rundir__ensure_session(d->session_id, err);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "id %" PRIu64 "\npid %d\noutput %s\n", d->session_id,
		 (int)d->pid, d->output);
	ret = write_file(d->session_id, "session", text, err);
	if (ret)
		return ret;
	snprintf(text, sizeof(text), "%d\n", (int)d->pid);
	return write_file(d->session_id, "drainer.pid", text, err);
}

int kp_rundir__read(uint64_t id, struct kp_drainer_info *d, struct kp_err *err)
{
	char path[4200], line[4200];
	bool has_id = false, has_pid = false, has_out = false;
	unsigned int pid;
	FILE *fp;
	size_t len;

	memset(d, 0, sizeof(*d));
	kp_rundir__state_path(id, "session", path, sizeof(path));
	fp = fopen(path, "re");
	if (!fp) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
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
	if (!has_id || !has_pid || !has_out || d->session_id != id) {
		kp_err__set(err, EBADMSG, "'%s' is garbled; remove it", path);
		return -EBADMSG;
	}
	d->pid = pid;
	return 0;
}

/* Remove session @id's state files and its directory, when empty. */
static void remove_state(uint64_t id, bool all)
{
	static const char * const names[] = {
		"drainer.pid", "session", "aggregate.data", "aggregate.data.tmp",
	};
	char path[4200];
	size_t i;

	for (i = 0; i < (all ? KP_ARRAY_SIZE(names) : 2); i++) {
		if (!kp_rundir__state_path(id, names[i], path, sizeof(path)))
			unlink(path);
	}
	if (!kp_rundir__session_dir(id, path, sizeof(path), NULL))
		rmdir(path);
}

void kp_rundir__remove(uint64_t id, pid_t pid)
{
	struct kp_drainer_info d;
	struct kp_err err;

	if (kp_rundir__read(id, &d, &err) || d.pid != pid)
		return;
	remove_state(id, false);
}

void kp_rundir__prune(const uint64_t *live, unsigned int nr)
{
	struct kp_drainer_info d;
	struct dirent *de;
	struct kp_err err;
	unsigned int i;
	uint64_t id;
	DIR *dir;

	dir = opendir(kp_rundir__dir());
	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || kp_parse_u64(de->d_name, &id))
			continue;
		for (i = 0; i < nr && live[i] != id; i++)
			;
		/* a drainer still finishing its file keeps its directory */
		if (i == nr && (kp_rundir__read(id, &d, &err) || !kp_pid_alive(d.pid)))
			remove_state(id, true);
	}
	closedir(dir);
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
