// SPDX-License-Identifier: GPL-2.0
/*
 * /run/kprof; see rundir.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
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

/*
 * Each "key value" line of session @id's state file @name to @fn (@path
 * set to the file, for messages).  0, -ENOENT when there is none, or
 * -EIO with @err set.
 */
static int read_state(uint64_t id, const char *name, char *path, size_t path_len,
		      void (*fn)(const char *key, const char *value, void *arg), void *arg,
		      struct kp_err *err)
{
	char line[4200], *v;
	FILE *fp;

	kp_rundir__state_path(id, name, path, path_len);
	fp = fopen(path, "re");
	if (!fp) {
		if (errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG)
			return -ENOENT;
		kp_err__set(err, errno, "cannot read '%s': %s", path, strerror(errno));
		return -EIO;
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\n")] = '\0';
		v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = '\0';
		fn(line, v, arg);
	}
	fclose(fp);
	return 0;
}

struct drainer_read {
	struct kp_drainer_info	*d;
	unsigned int		pid;
	bool			has_id, has_pid, has_out;
};

static void drainer_line(const char *key, const char *v, void *arg)
{
	struct drainer_read *r = arg;

	if (!strcmp(key, "id"))
		r->has_id = !kp_parse_u64(v, &r->d->session_id);
	else if (!strcmp(key, "pid"))
		r->has_pid = !kp_parse_uint(v, &r->pid) && r->pid && r->pid <= INT32_MAX;
	else if (!strcmp(key, "output") && strlen(v) < sizeof(r->d->output))
		r->has_out = snprintf(r->d->output, sizeof(r->d->output), "%s", v) > 0;
}

int kp_rundir__read(uint64_t id, struct kp_drainer_info *d, struct kp_err *err)
{
	struct drainer_read r = { .d = d };
	char path[4200];
	int ret;

	memset(d, 0, sizeof(*d));
	ret = read_state(id, "session", path, sizeof(path), drainer_line, &r, err);
	if (ret)
		return ret;
	if (!r.has_id || !r.has_pid || !r.has_out || d->session_id != id) {
		kp_err__set(err, EBADMSG, "'%s' is garbled; remove it", path);
		return -EBADMSG;
	}
	d->pid = r.pid;
	return 0;
}

int kp_rundir__write_daemon(const struct kp_daemon_state *s, struct kp_err *err)
{
	char *text = NULL;
	int ret;

	ret = kp_rundir__ensure_session(s->session_id, err);
	if (ret)
		return ret;
	if (asprintf(&text, "pid %d\nsession %" PRIu64 "\ninterval_ms %" PRIu64
		     "\nintervals %" PRIu64 "\nsaved %" PRIu64 "\nnot_saved %" PRIu64
		     "\nremoved %" PRIu64 "\nlast_seq %" PRIu64 "\nlast_start_ns %" PRIu64
		     "\nlast_end_ns %" PRIu64 "\nlast_samples %" PRIu64 "\nspooled %" PRIu64
		     "\nformats %s\ndir %s\nupload %s\n", (int)s->pid, s->session_id,
		     s->interval_ms, s->intervals, s->saved, s->not_saved, s->removed, s->last_seq,
		     s->last_start_ns, s->last_end_ns, s->last_samples, s->spooled, s->formats,
		     s->dir, s->upload) < 0) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = write_file(s->session_id, "daemon", text, err);
	free(text);
	return ret;
}

/* The numbers of ID/daemon, by key. */
static const struct {
	const char	*key;
	size_t		off;
} daemon_nums[] = {
	{ "session", offsetof(struct kp_daemon_state, session_id) },
	{ "interval_ms", offsetof(struct kp_daemon_state, interval_ms) },
	{ "intervals", offsetof(struct kp_daemon_state, intervals) },
	{ "saved", offsetof(struct kp_daemon_state, saved) },
	{ "not_saved", offsetof(struct kp_daemon_state, not_saved) },
	{ "removed", offsetof(struct kp_daemon_state, removed) },
	{ "last_seq", offsetof(struct kp_daemon_state, last_seq) },
	{ "last_start_ns", offsetof(struct kp_daemon_state, last_start_ns) },
	{ "last_end_ns", offsetof(struct kp_daemon_state, last_end_ns) },
	{ "last_samples", offsetof(struct kp_daemon_state, last_samples) },
	{ "spooled", offsetof(struct kp_daemon_state, spooled) },
};

struct daemon_read {
	struct kp_daemon_state	*s;
	unsigned int		pid, seen;
};

static void daemon_line(const char *key, const char *v, void *arg)
{
	struct daemon_read *r = arg;
	struct kp_daemon_state *s = r->s;
	unsigned int i;

	for (i = 0; i < KP_ARRAY_SIZE(daemon_nums); i++)
		if (!strcmp(key, daemon_nums[i].key) &&
		    !kp_parse_u64(v, (uint64_t *)((char *)s + daemon_nums[i].off)))
			r->seen |= 1U << i;
	if (!strcmp(key, "pid"))
		kp_parse_uint(v, &r->pid);
	else if (!strcmp(key, "formats"))
		snprintf(s->formats, sizeof(s->formats), "%s", v);
	else if (!strcmp(key, "dir"))
		snprintf(s->dir, sizeof(s->dir), "%s", v);
	else if (!strcmp(key, "upload"))
		snprintf(s->upload, sizeof(s->upload), "%s", v);
}

int kp_rundir__read_daemon(uint64_t id, struct kp_daemon_state *s, struct kp_err *err)
{
	struct daemon_read r = { .s = s };
	char path[4200];
	int ret;

	memset(s, 0, sizeof(*s));
	ret = read_state(id, "daemon", path, sizeof(path), daemon_line, &r, err);
	if (ret)
		return ret;
	if (r.seen != (1U << KP_ARRAY_SIZE(daemon_nums)) - 1 || !r.pid || r.pid > INT32_MAX ||
	    s->session_id != id) {
		kp_err__set(err, EBADMSG, "'%s' is garbled", path);
		return -EBADMSG;
	}
	s->pid = r.pid;
	return kp_pid_alive(s->pid) ? 0 : -ENOENT;
}

void kp_rundir__remove_daemon(uint64_t id)
{
	char path[4200];

	if (!kp_rundir__state_path(id, "daemon", path, sizeof(path)))
		unlink(path);
	if (!kp_rundir__session_dir(id, path, sizeof(path), NULL))
		rmdir(path);
}

/* Remove session @id's state files and its directory, when empty. */
static void remove_state(uint64_t id, bool all)
{
	static const char * const names[] = {
		"drainer.pid", "session", "aggregate.data", "aggregate.data.tmp", "daemon",
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
