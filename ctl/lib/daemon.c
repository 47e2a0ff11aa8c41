// SPDX-License-Identifier: GPL-2.0
/*
 * The always-on daemon's files: boundaries, names, atomic profiles in each
 * format, retention (daemon.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agg.h"
#include "collapse.h"
#include "daemon.h"
#include "decode.h"
#include "outfile.h"
#include "pprof.h"

#define NSEC_PER_SEC	1000000000ULL
#define DAEMON_PREFIX	"kprof-"
#define DAEMON_LOCK	".kprof-daemon.lock"

static const char * const format_names[KP_DAEMON_NR_FORMATS] = {
	[KP_DAEMON_KPROF] = "kprof",
	[KP_DAEMON_PPROF] = "pprof",
	[KP_DAEMON_FOLDED] = "folded",
};

static const char * const format_exts[KP_DAEMON_NR_FORMATS] = {
	[KP_DAEMON_KPROF] = "kprof",
	[KP_DAEMON_PPROF] = "pb.gz",
	[KP_DAEMON_FOLDED] = "folded",
};

const char *kp_daemon__ext(enum kp_daemon_format f)
{
	return f < KP_DAEMON_NR_FORMATS ? format_exts[f] : "";
}

int kp_daemon__parse_formats(const char *s, unsigned int *mask, struct kp_err *err)
{
	const char *p = s, *end;
	unsigned int f;
	size_t len;

	*mask = 0;
	do {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		for (f = 0; f < KP_DAEMON_NR_FORMATS; f++)
			if (len == strlen(format_names[f]) && !strncmp(p, format_names[f], len))
				break;
		if (f == KP_DAEMON_NR_FORMATS) {
			kp_err__set(err, EINVAL, "bad --format '%.*s': kprof, pprof or folded expected",
				    (int)len, p);
			return -EINVAL;
		}
		*mask |= 1U << f;
		p = end + 1;
	} while (end);
	return 0;
}

uint64_t kp_daemon__next_boundary(uint64_t now_ns, uint64_t interval_ns)
{
	uint64_t next = (now_ns / interval_ns + 1) * interval_ns;

	if (next - now_ns < interval_ns / 2)
		next += interval_ns;
	return next;
}

/* YYYYmmddTHHMMSSZ of @ns (Unix), into @buf (at least 17 bytes). */
static void utc_stamp(char *buf, size_t len, uint64_t ns)
{
	time_t t = ns / NSEC_PER_SEC;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y%m%dT%H%M%SZ", &tm))
		snprintf(buf, len, "00000000T000000Z");
}

int kp_daemon__name(char *buf, size_t len, uint64_t start_ns, uint64_t end_ns, uint64_t seq)
{
	char a[32], b[32];

	utc_stamp(a, sizeof(a), start_ns);
	utc_stamp(b, sizeof(b), end_ns);
	if ((size_t)snprintf(buf, len, DAEMON_PREFIX "%s-%s-%06" PRIu64, a, b, seq) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Parse YYYYmmddTHHMMSSZ at @s into Unix seconds. */
static bool parse_stamp(const char *s, uint64_t *secs)
{
	struct tm tm = { 0 };
	const char *end = strptime(s, "%Y%m%dT%H%M%SZ", &tm);
	time_t t;

	if (end != s + 16)
		return false;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return false;
	*secs = t;
	return true;
}

bool kp_daemon__parse_name(const char *name, uint64_t *start_s, uint64_t *end_s, uint64_t *seq,
			   enum kp_daemon_format *fmt, size_t *base_len)
{
	const char *p = name + strlen(DAEMON_PREFIX), *dot;
	uint64_t v = 0;
	unsigned int f, digits = 0;

	if (strncmp(name, DAEMON_PREFIX, strlen(DAEMON_PREFIX)) || !parse_stamp(p, start_s) ||
	    p[16] != '-' || !parse_stamp(p + 17, end_s) || p[33] != '-' || *end_s < *start_s)
		return false;
	for (p += 34; *p >= '0' && *p <= '9'; p++, digits++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (digits < 6 || *p != '.')
		return false;
	dot = p;
	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++)
		if (!strcmp(dot + 1, format_exts[f]))
			break;
	if (f == KP_DAEMON_NR_FORMATS)
		return false;
	*seq = v;
	*fmt = f;
	*base_len = dot - name;
	return true;
}

/* @dir/@base.@ext into @buf. */
static int file_path(char *buf, size_t len, const char *dir, const char *prefix,
		     const char *base, const char *ext, struct kp_err *err)
{
	if ((size_t)snprintf(buf, len, "%s/%s%s.%s", dir, prefix, base, ext) >= len) {
		kp_err__set(err, ENAMETOOLONG, "output directory '%s' is too long", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

/*
 * The pprof profile of @d: into @dst (temp + rename) when pprof is a
 * format, into the outbox when there is one.
 */
static int save_pprof(const struct kp_daemon_conf *c, const struct kp_daemon_interval *it,
		      struct kp_decoder *d, const char *dst, struct kp_err *err)
{
	/* no source lines: DWARF line tables take most of a conversion's time */
	struct kp_pprof_opts po = { .no_srclines = true };
	char out[4096];
	size_t len;
	void *buf;
	long n;
	int ret = 0;

	n = kp_pprof__build(d, &po, &buf, &len, err);
	if (n < 0)
		return (int)n;
	if (c->formats & (1U << KP_DAEMON_PPROF))
		ret = kp_pprof__save(buf, len, dst, err);
	if (!ret && c->outbox) {
		ret = file_path(out, sizeof(out), c->outbox, "", it->base,
				format_exts[KP_DAEMON_PPROF], err);
		if (!ret)
			ret = kp_pprof__save(buf, len, out, err);
	}
	free(buf);
	return ret;
}

/* The collapsed stacks of @d into @dst (temp + rename). */
static int save_folded(struct kp_decoder *d, const char *dst, struct kp_err *err)
{
	struct kp_collapse_opts co = { 0 };
	struct kp_outfile o;
	int ret;

	ret = kp_outfile__open(&o, dst, false, err);
	if (ret)
		return ret;
	ret = kp_collapse__write(d, &co, o.fp);
	if (ret) {
		kp_err__set(err, -ret, "collapsing the stacks of '%s': %s", dst, strerror(-ret));
		kp_outfile__abort(&o);
		return ret;
	}
	return kp_outfile__commit(&o, err);
}

int kp_daemon__dump(const struct kp_daemon_conf *c, struct kp_nl *nl,
		    const struct kp_agg_interval *iv, uint64_t seq,
		    struct kp_daemon_interval *out, struct kp_err *err)
{
	struct kp_agg_save_opts o = {
		.cmd = c->cmd, .quiet = true, .session = c->session, .interval = iv,
	};
	struct kp_agg_summary sum;
	int ret;

	memset(out, 0, sizeof(*out));
	out->seq = seq;
	out->start_ns = kp_agg_interval__unix_ns(iv, iv->start_ns);
	out->end_ns = kp_agg_interval__unix_ns(iv, iv->end_ns);
	ret = kp_daemon__name(out->base, sizeof(out->base), out->start_ns, out->end_ns, seq);
	if (ret) {
		kp_err__set(err, -ret, "interval %" PRIu64 ": name too long", seq);
		return ret;
	}
	/* under a name retention ignores, until converted */
	ret = file_path(out->tmp, sizeof(out->tmp), c->dir, ".", out->base, "kprof.tmp", err);
	if (ret)
		return ret;
	ret = kp_agg__save_profile(nl, out->tmp, &o, &sum, err);
	if (ret) {
		unlink(out->tmp);
		return ret;
	}
	out->samples = sum.samples;
	out->offcpu_ns = sum.offcpu_ns;
	out->nr_keys = sum.nr_keys;
	return 0;
}

int kp_daemon__convert(const struct kp_daemon_conf *c, struct kp_daemon_interval *it,
		       struct kp_err *err)
{
	bool done[KP_DAEMON_NR_FORMATS] = { false }, open = false;
	char dst[KP_DAEMON_NR_FORMATS][4096];
	struct kp_decode_opts opts = { 0 };
	struct kp_decoder d;
	unsigned int f;
	int ret = 0;

	it->bytes = 0;
	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++) {
		ret = file_path(dst[f], sizeof(dst[f]), c->dir, "", it->base, format_exts[f], err);
		if (ret)
			goto out_unlink;
	}
	/* one decoding (symbols read once) for every decoded format */
	opts.machine.cmd = c->cmd;
	/* the processes of the interval may still run: their files through /proc */
	opts.machine.proc_root = true;
	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++) {
		bool upload = f == KP_DAEMON_PPROF && c->outbox;

		if (f == KP_DAEMON_KPROF || (!(c->formats & (1U << f)) && !upload))
			continue;
		if (!open) {
			ret = kp_decoder__open(&d, it->tmp, &opts, err);
			if (ret)
				goto out_unlink;
			open = true;
		}
		ret = f == KP_DAEMON_PPROF ? save_pprof(c, it, &d, dst[f], err) :
					     save_folded(&d, dst[f], err);
		if (ret)
			goto out_unlink;
		if (!(c->formats & (1U << f)))
			continue;
		done[f] = true;
		it->bytes += file_size(dst[f]);
	}
	if (open) {
		kp_decoder__close(&d);
		open = false;
	}
	if (!(c->formats & (1U << KP_DAEMON_KPROF))) {
		unlink(it->tmp);
		return 0;
	}
	if (rename(it->tmp, dst[KP_DAEMON_KPROF])) {
		ret = -errno;
		kp_err__set(err, errno, "cannot rename '%s' to '%s': %s", it->tmp,
			    dst[KP_DAEMON_KPROF], strerror(errno));
		goto out_unlink;
	}
	it->bytes += file_size(dst[KP_DAEMON_KPROF]);
	return 0;

out_unlink:
	if (open)
		kp_decoder__close(&d);
	/* nothing of the interval stays: the files made here go */
	unlink(it->tmp);
	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++)
		if (done[f])
			unlink(dst[f]);
	return ret;
}

void kp_daemon__discard(const struct kp_daemon_interval *it)
{
	if (it->tmp[0])
		unlink(it->tmp);
}

/* One interval's files in the directory. */
struct retained {
	uint64_t	seq, end_s;
	uint64_t	bytes;
	char		base[96];
};

static int retained__cmp(const void *a, const void *b)
{
	const struct retained *x = a, *y = b;

	/* by end, then seq: a restarted daemon counts from 1 again */
	if (x->end_s != y->end_s)
		return x->end_s < y->end_s ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return strcmp(x->base, y->base);
}

/* Remove every file of @r (all formats); false when one stays. */
static bool retained__remove(const struct kp_daemon_conf *c, const struct retained *r)
{
	char path[4096];
	unsigned int f;
	bool ok = true;

	for (f = 0; f < KP_DAEMON_NR_FORMATS; f++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.%s", c->dir, r->base,
				     format_exts[f]) >= sizeof(path))
			return false;
		if (unlink(path) && errno != ENOENT)
			ok = false;
	}
	return ok;
}

/* The daemon's intervals in c->dir, oldest first, into *@out. */
static int retained__list(const struct kp_daemon_conf *c, struct retained **out, size_t *nr,
			  struct kp_err *err)
{
	struct retained *v = NULL, *n;
	size_t used = 0, alloc = 0, i;
	enum kp_daemon_format fmt;
	struct dirent *de;
	uint64_t start_s, end_s, seq;
	size_t base_len;
	char path[4096];
	DIR *dir;

	dir = opendir(c->dir);
	if (!dir) {
		kp_err__set(err, errno, "cannot read '%s': %s", c->dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(dir))) {
		if (!kp_daemon__parse_name(de->d_name, &start_s, &end_s, &seq, &fmt, &base_len) ||
		    base_len >= sizeof(v->base))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", c->dir, de->d_name) >= sizeof(path))
			continue;
		for (i = 0; i < used; i++)
			if (!strncmp(v[i].base, de->d_name, base_len) && !v[i].base[base_len])
				break;
		if (i == used) {
			if (used == alloc) {
				alloc = alloc ? alloc * 2 : 64;
				n = realloc(v, alloc * sizeof(*v));
				if (!n) {
					closedir(dir);
					free(v);
					kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
					return -ENOMEM;
				}
				v = n;
			}
			memset(&v[used], 0, sizeof(v[used]));
			v[used].seq = seq;
			v[used].end_s = end_s;
			memcpy(v[used].base, de->d_name, base_len);
			used++;
		}
		v[i].bytes += file_size(path);
	}
	closedir(dir);
	if (used)
		qsort(v, used, sizeof(*v), retained__cmp);
	*out = v;
	*nr = used;
	return 0;
}

int kp_daemon__retain(const struct kp_daemon_conf *c, uint64_t now_ns,
		      struct kp_daemon_retention *r, struct kp_err *err)
{
	struct retained *v = NULL;
	uint64_t bytes = 0;
	size_t nr, i, first = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = retained__list(c, &v, &nr, err);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		bytes += v[i].bytes;
	/* oldest first; the newest stays whatever the limits say */
	for (i = 0; i + 1 < nr; i++) {
		bool old = c->max_age_ns && v[i].end_s * NSEC_PER_SEC + c->max_age_ns < now_ns;
		bool many = c->keep && nr - i > c->keep;
		bool big = c->max_size && bytes > c->max_size;

		if (!old && !many && !big)
			break;
		if (!retained__remove(c, &v[i]))
			r->failed++;
		bytes -= v[i].bytes;
		r->removed++;
		first = i + 1;
	}
	r->intervals = nr - first;
	r->bytes = bytes;
	free(v);
	return 0;
}

/*
 * Remove the temporary kprof.data files a daemon killed while writing
 * left (".kprof-*.kprof.tmp": only the daemon makes such names).
 */
static void sweep_tmp(const char *dir)
{
	static const char tail[] = ".kprof.tmp";
	char path[4096];
	struct dirent *de;
	size_t len;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (strncmp(de->d_name, "." DAEMON_PREFIX, strlen(DAEMON_PREFIX) + 1) ||
		    len < sizeof(tail) || strcmp(de->d_name + len - sizeof(tail) + 1, tail))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) < sizeof(path))
			unlink(path);
	}
	closedir(d);
}

int kp_daemon__lock(const char *dir, struct kp_err *err)
{
	char path[4096], buf[32];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, DAEMON_LOCK) >= sizeof(path)) {
		kp_err__set(err, ENAMETOOLONG, "output directory '%s' is too long", dir);
		return -ENAMETOOLONG;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		kp_err__set(err, errno, "cannot open '%s': %s", path, strerror(errno));
		return -errno;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		close(fd);
		if (e == EWOULDBLOCK) {
			kp_err__set(err, EBUSY, "another daemon (pid %s) writes to '%s'",
				    *buf ? buf : "?", dir);
			return -EBUSY;
		}
		kp_err__set(err, e, "cannot lock '%s': %s", path, strerror(e));
		return -e;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		kp_err__set(err, errno, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	sweep_tmp(dir);
	return fd;
}
