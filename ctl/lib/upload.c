// SPDX-License-Identifier: GPL-2.0
/*
 * Pyroscope uploads and their spool; see upload.h.  HTTP is libcurl's
 * (TLS with its defaults: the system's CA store, peer and host checks).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "upload.h"
#include "util.h"

#define SPOOL_MAGIC		"kprof-spool 1\n"
#define SPOOL_SUFFIX		".pprof"
#define SPOOL_HEADER_MAX	(KP_UPLOAD_NAME_MAX + 256)

static bool upload__app_rune(int c)
{
	return isalnum(c) || c == '_' || c == '-' || c == '.';
}

const char *kp_upload__check_tag(const char *tag)
{
	const char *eq = strchr(tag, '='), *p;
	size_t klen, vlen;

	if (!eq)
		return "not KEY=VALUE";
	klen = eq - tag;
	vlen = strlen(eq + 1);
	if (!klen)
		return "an empty key";
	for (p = tag; p < eq; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return "a key of letters, digits and '_' only";
	if (klen == 8 && !strncmp(tag, "__name__", 8))
		return "__name__ is reserved (--app-name)";
	if (!vlen)
		return "an empty value";
	for (p = eq + 1; *p; p++)
		if (iscntrl((unsigned char)*p) || strchr(",{}=", *p))
			return "a value without ',', '{', '}', '=' or control characters";
	if (isspace((unsigned char)eq[1]) || isspace((unsigned char)eq[vlen]))
		return "a value without leading or trailing blanks";
	return NULL;
}

/* "http://" or "https://", a host, no query or fragment, no blanks. */
static const char *upload__check_url(const char *url)
{
	const char *host, *p;
	CURLU *h;
	int ret;

	if (!strncasecmp(url, "http://", 7))
		host = url + 7;
	else if (!strncasecmp(url, "https://", 8))
		host = url + 8;
	else
		return "not http:// or https://";
	if (!*host || *host == '/' || *host == ':')
		return "no host";
	for (p = url; *p; p++) {
		if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p))
			return "blanks or control characters";
		if (*p == '?' || *p == '#')
			return "a query or fragment ('/ingest?...' is added)";
	}
	h = curl_url();
	if (!h)
		return "out of memory";
	ret = curl_url_set(h, CURLUPART_URL, url, 0);
	curl_url_cleanup(h);
	return ret == CURLUE_OK ? NULL : "not a URL";
}

/* Build u->name: APP{K=V,...}; a tag named twice is refused. */
static int upload__name(struct kp_uploader *u, struct kp_err *err)
{
	const struct kp_upload_conf *c = &u->c;
	size_t len, used;
	unsigned int i, j;
	const char *why;

	if (!c->app_name || !*c->app_name) {
		kp_err__set(err, EINVAL, "empty application name");
		return -EINVAL;
	}
	for (i = 0; c->app_name[i]; i++)
		if (!upload__app_rune((unsigned char)c->app_name[i])) {
			kp_err__set(err, EINVAL,
				    "bad application name '%s' (letters, digits, '_', '-' and '.')",
				    c->app_name);
			return -EINVAL;
		}
	used = snprintf(u->name, sizeof(u->name), "%s{", c->app_name);
	for (i = 0; i < c->nr_tags; i++) {
		why = kp_upload__check_tag(c->tags[i]);
		if (why) {
			kp_err__set(err, EINVAL, "bad tag '%s' (%s)", c->tags[i], why);
			return -EINVAL;
		}
		len = strchr(c->tags[i], '=') - c->tags[i] + 1;
		for (j = 0; j < i; j++)
			if (!strncmp(c->tags[i], c->tags[j], len)) {
				kp_err__set(err, EINVAL, "bad tag '%s' (key %.*s given twice)",
					    c->tags[i], (int)len - 1, c->tags[i]);
				return -EINVAL;
			}
		if (used < sizeof(u->name))
			used += snprintf(u->name + used, sizeof(u->name) - used, "%s%s",
					 i ? "," : "", c->tags[i]);
	}
	if (used < sizeof(u->name))
		used += snprintf(u->name + used, sizeof(u->name) - used, "}");
	if (used >= sizeof(u->name)) {
		kp_err__set(err, EINVAL, "the application name and tags are over %d bytes",
			    KP_UPLOAD_NAME_MAX - 1);
		return -EINVAL;
	}
	return 0;
}

int kp_uploader__init(struct kp_uploader *u, const struct kp_upload_conf *c, struct kp_err *err)
{
	struct curl_slist *h = NULL, *n;
	const char *why;
	char line[512];
	size_t len;
	int ret;

	memset(u, 0, sizeof(*u));
	u->lock_fd = -1;
	u->c = *c;
	if (!u->c.spy_name)
		u->c.spy_name = "kprof";
	if (!u->c.connect_timeout_ms)
		u->c.connect_timeout_ms = 10000;
	if (!u->c.timeout_ms)
		u->c.timeout_ms = 60000;
	if (!u->c.spool_max_files)
		u->c.spool_max_files = 1000;
	if (!u->c.spool_max_bytes)
		u->c.spool_max_bytes = 256ULL << 20;
	if (!c->url || !*c->url) {
		kp_err__set(err, EINVAL, "empty upload URL");
		return -EINVAL;
	}
	why = upload__check_url(c->url);
	if (why) {
		kp_err__set(err, EINVAL, "bad upload URL '%s' (%s)", c->url, why);
		return -EINVAL;
	}
	if (c->basic_auth && !strchr(c->basic_auth, ':')) {
		kp_err__set(err, EINVAL, "bad basic auth (USER:PASSWORD)");
		return -EINVAL;
	}
	if (c->token && c->basic_auth) {
		kp_err__set(err, EINVAL, "a bearer token and basic auth: give one");
		return -EINVAL;
	}
	if (c->token && (!*c->token || strpbrk(c->token, "\r\n"))) {
		kp_err__set(err, EINVAL, "bad bearer token (empty or several lines)");
		return -EINVAL;
	}
	if (c->tenant && (!*c->tenant || strpbrk(c->tenant, "\r\n"))) {
		kp_err__set(err, EINVAL, "bad tenant '%s'", c->tenant);
		return -EINVAL;
	}
	if (c->spool_dir && !*c->spool_dir) {
		kp_err__set(err, EINVAL, "empty spool directory");
		return -EINVAL;
	}
	ret = upload__name(u, err);
	if (ret)
		return ret;

	len = strlen(c->url);
	while (len && c->url[len - 1] == '/')
		len--;
	if (asprintf(&u->ingest, "%.*s/ingest", (int)len, c->url) < 0) {
		u->ingest = NULL;
		goto nomem;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		kp_err__set(err, EIO, "cannot initialize libcurl");
		free(u->ingest);
		u->ingest = NULL;
		return -EIO;
	}
	u->curl = curl_easy_init();
	if (!u->curl)
		goto nomem_curl;
	/* no "Expect: 100-continue" round trip */
	h = curl_slist_append(h, "Content-Type: binary/octet-stream");
	if (h && (n = curl_slist_append(h, "Expect:")))
		h = n;
	else
		goto nomem_headers;
	if (c->token) {
		snprintf(line, sizeof(line), "Authorization: Bearer %s", c->token);
		n = curl_slist_append(h, line);
		explicit_bzero(line, sizeof(line));
		if (!n)
			goto nomem_headers;
	}
	if (c->tenant) {
		snprintf(line, sizeof(line), "X-Scope-OrgID: %s", c->tenant);
		if (!curl_slist_append(h, line))
			goto nomem_headers;
	}
	u->headers = h;
	return 0;

nomem_headers:
	curl_slist_free_all(h);
nomem_curl:
	kp_uploader__exit(u);
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
nomem:
	kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
	return -ENOMEM;
}

void kp_uploader__exit(struct kp_uploader *u)
{
	if (u->curl) {
		curl_easy_cleanup(u->curl);
		curl_slist_free_all(u->headers);
		curl_global_cleanup();
	} else if (u->ingest) {
		curl_global_cleanup();
	}
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	free(u->ingest);
	u->curl = u->headers = NULL;
	u->ingest = NULL;
	u->lock_fd = -1;
}

/* The server's answer, its first KP_UPLOAD_MSG_MAX - 1 bytes. */
struct reply {
	char	buf[KP_UPLOAD_MSG_MAX];
	size_t	len;
};

static size_t upload__reply(char *data, size_t size, size_t nmemb, void *arg)
{
	struct reply *r = arg;
	size_t n = size * nmemb, room = sizeof(r->buf) - 1 - r->len;

	memcpy(r->buf + r->len, data, n < room ? n : room);
	r->len += n < room ? n : room;
	r->buf[r->len] = '\0';
	return n;
}

/* The first line of @s, its control characters as blanks, trimmed. */
static void upload__one_line(char *s)
{
	char *p, *end;

	for (p = s; *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'; p++)
		;
	memmove(s, p, strlen(p) + 1);
	p = strchr(s, '\n');
	if (p)
		*p = '\0';
	for (p = s; *p; p++)
		if (iscntrl((unsigned char)*p))
			*p = ' ';
	for (end = s + strlen(s); end > s && end[-1] == ' '; end--)
		end[-1] = '\0';
}

static enum kp_upload_status upload__classify(long http)
{
	if (http >= 200 && http < 300)
		return KP_UPLOAD_OK;
	if (http == 408 || http == 429 || http >= 500)
		return KP_UPLOAD_RETRY;
	return KP_UPLOAD_REJECTED;
}

void kp_uploader__send(struct kp_uploader *u, const struct kp_upload_item *it,
		       struct kp_upload_res *res)
{
	char errbuf[CURL_ERROR_SIZE] = "", *name, *spy, *url;
	struct reply reply = { .len = 0 };
	CURL *curl = u->curl;
	char rate[32] = "";
	CURLcode rc;
	int n;

	memset(res, 0, sizeof(*res));
	res->status = KP_UPLOAD_RETRY;
	name = curl_easy_escape(curl, it->name, 0);
	spy = curl_easy_escape(curl, it->spy_name, 0);
	if (it->sample_rate)
		snprintf(rate, sizeof(rate), "&sampleRate=%u", it->sample_rate);
	n = name && spy ? asprintf(&url, "%s?name=%s&from=%" PRIu64 "&until=%" PRIu64
				   "&format=pprof&spyName=%s%s", u->ingest, name, it->from,
				   it->until, spy, rate) : -1;
	curl_free(name);
	curl_free(spy);
	if (n < 0) {
		snprintf(res->msg, sizeof(res->msg), "%s", strerror(ENOMEM));
		return;
	}

	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_POST, 1L);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, it->body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)it->len);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, u->headers);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "kprofctl/" KPROF_VERSION);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, (long)u->c.connect_timeout_ms);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, (long)u->c.timeout_ms);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, upload__reply);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
	if (u->c.basic_auth) {
		curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(curl, CURLOPT_USERPWD, u->c.basic_auth);
	}
	rc = curl_easy_perform(curl);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, NULL);
	free(url);
	if (rc != CURLE_OK) {
		snprintf(res->msg, sizeof(res->msg), "%s", *errbuf ? errbuf : curl_easy_strerror(rc));
		upload__one_line(res->msg);
		return;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &res->http);
	res->status = upload__classify(res->http);
	if (res->status != KP_UPLOAD_OK) {
		upload__one_line(reply.buf);
		snprintf(res->msg, sizeof(res->msg), "HTTP %ld%s%.200s", res->http,
			 *reply.buf ? ": " : "", reply.buf);
	}
}

/* The spool */

static void spool__sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* Create the directory if needed and take its lock (blocking). */
static int spool__lock(struct kp_uploader *u, struct kp_err *err)
{
	const char *dir = u->c.spool_dir;
	char path[4096];
	int fd;

	if (mkdir(dir, 0700) && errno != EEXIST) {
		kp_err__set(err, errno, "cannot create spool directory '%s': %s", dir,
			    strerror(errno));
		return -errno;
	}
	snprintf(path, sizeof(path), "%s/.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		kp_err__set(err, e, "cannot lock '%s': %s", path, strerror(e));
		return -e;
	}
	u->lock_fd = fd;
	return 0;
}

static void spool__unlock(struct kp_uploader *u)
{
	if (u->lock_fd >= 0)
		close(u->lock_fd);
	u->lock_fd = -1;
}

struct spool_entry {
	char		name[64];
	uint64_t	size;
	struct timespec	mtime;		/* when it was spooled */
};

struct spool_list {
	struct spool_entry	*v;
	unsigned int		nr;
	uint64_t		bytes;
};

/* Oldest first: the profile's start (the name's first 20 digits), then when spooled. */
static int spool__cmp(const void *pa, const void *pb)
{
	const struct spool_entry *a = pa, *b = pb;
	int c = strncmp(a->name, b->name, 20);

	if (c)
		return c;
	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
	if (a->mtime.tv_nsec != b->mtime.tv_nsec)
		return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Is @name in directory @dfd a spooled profile?  Its stat in @st. */
static bool spool__is_item(int dfd, const char *name, struct stat *st)
{
	size_t len = strlen(name);

	return name[0] != '.' && len >= sizeof(SPOOL_SUFFIX) &&
	       len < sizeof(((struct spool_entry *)0)->name) &&
	       !strcmp(name + len - strlen(SPOOL_SUFFIX), SPOOL_SUFFIX) &&
	       !fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st->st_mode);
}

uint64_t kp_upload__spooled(const char *spool_dir)
{
	struct dirent *de;
	struct stat st;
	uint64_t n = 0;
	DIR *d = opendir(spool_dir);

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += spool__is_item(dirfd(d), de->d_name, &st);
	closedir(d);
	return n;
}

/* The items, oldest first; stale temporary files (we hold the lock) removed. */
static int spool__list(struct kp_uploader *u, struct spool_list *l, struct kp_err *err)
{
	const char *dir = u->c.spool_dir;
	struct spool_entry *v;
	unsigned int cap = 0;
	struct dirent *de;
	struct stat st;
	size_t len;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = opendir(dir);
	if (!d) {
		kp_err__set(err, errno, "cannot read spool directory '%s': %s", dir,
			    strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (!strncmp(de->d_name, ".tmp-", 5)) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (len >= sizeof(l->v->name) || !spool__is_item(dirfd(d), de->d_name, &st))
			continue;
		if (l->nr == cap) {
			cap = cap ? cap * 2 : 64;
			v = realloc(l->v, cap * sizeof(*v));
			if (!v) {
				closedir(d);
				free(l->v);
				l->v = NULL;
				kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
				return -ENOMEM;
			}
			l->v = v;
		}
		snprintf(l->v[l->nr].name, sizeof(l->v->name), "%s", de->d_name);
		l->v[l->nr].size = st.st_size;
		l->v[l->nr].mtime = st.st_mtim;
		l->bytes += st.st_size;
		l->nr++;
	}
	closedir(d);
	if (l->nr)
		qsort(l->v, l->nr, sizeof(*l->v), spool__cmp);
	return 0;
}

/* Write @len bytes of @buf to DIR/@name atomically: a temporary file, fsync, rename. */
static int spool__write_file(const char *dir, const char *name, const void *a, size_t alen,
			     const void *b, size_t blen, struct kp_err *err)
{
	char tmp[4096], path[4096];
	int fd, e;

	snprintf(tmp, sizeof(tmp), "%s/.tmp-XXXXXX", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	if (write(fd, a, alen) != (ssize_t)alen || (blen && write(fd, b, blen) != (ssize_t)blen) ||
	    fsync(fd)) {
		e = errno ? errno : EIO;
		close(fd);
		unlink(tmp);
		errno = e;
		goto fail;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		errno = e;
		goto fail;
	}
	spool__sync_dir(dir);
	return 0;
fail:
	e = errno ? errno : EIO;
	kp_err__set(err, e, "cannot write '%s': %s", path, strerror(e));
	return -e;
}

/* Add @n to the count of drops in DIR/dropped; the new total. */
static uint64_t spool__count_drops(struct kp_uploader *u, unsigned int n)
{
	char path[4096], text[32] = "";
	uint64_t total = 0;
	struct kp_err err;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/dropped", u->c.spool_dir);
	fp = fopen(path, "r");
	if (fp) {
		if (fgets(text, sizeof(text), fp))
			text[strcspn(text, "\n")] = '\0';
		fclose(fp);
		if (kp_parse_u64(text, &total))
			total = 0;
	}
	total += n;
	snprintf(text, sizeof(text), "%" PRIu64 "\n", total);
	spool__write_file(u->c.spool_dir, "dropped", text, strlen(text), NULL, 0, &err);
	return total;
}

static uint64_t fnv1a(const void *p, size_t len, uint64_t h)
{
	const unsigned char *s = p;

	while (len--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

static int spool__header(const struct kp_upload_item *it, char *buf, size_t len)
{
	return snprintf(buf, len, SPOOL_MAGIC "name=%s\nspyName=%s\nfrom=%" PRIu64 "\nuntil=%"
			PRIu64 "\nsampleRate=%u\nsize=%zu\n\n", it->name, it->spy_name, it->from,
			it->until, it->sample_rate, it->len);
}

/* Spool @it (the lock held); its path in @st->spool_path. */
static int spool__add(struct kp_uploader *u, const struct kp_upload_item *it,
		      struct kp_upload_stats *st, struct kp_err *err)
{
	const char *dir = u->c.spool_dir;
	char hdr[SPOOL_HEADER_MAX], key[SPOOL_HEADER_MAX], name[64];
	struct spool_list l;
	unsigned int i, drops = 0;
	uint64_t size, bytes;
	struct stat sb;
	int hlen, ret;

	hlen = spool__header(it, hdr, sizeof(hdr));
	if (hlen < 0 || hlen >= (int)sizeof(hdr)) {
		kp_err__set(err, EINVAL, "the profile's name is too long to spool");
		return -EINVAL;
	}
	/*
	 * The name: the profile's series (name, spy) and interval, not its
	 * bytes (the order of the samples is not stable between runs).
	 */
	snprintf(key, sizeof(key), "%s\n%s\n%" PRIu64 "\n%" PRIu64 "\n%u", it->name,
		 it->spy_name, it->from, it->until, it->sample_rate);
	snprintf(name, sizeof(name), "%020" PRIu64 "-%016" PRIx64 SPOOL_SUFFIX, it->from,
		 fnv1a(key, strlen(key), 0xcbf29ce484222325ULL));
	snprintf(st->spool_path, sizeof(st->spool_path), "%s/%s", dir, name);
	if (!stat(st->spool_path, &sb)) {
		st->again = true;	/* spooled already: one item */
		return 0;
	}
	size = hlen + it->len;
	if (size > u->c.spool_max_bytes) {
		st->dropped++;
		kp_err__set(err, ENOSPC, "the profile (%" PRIu64 " bytes) is over the spool's bound of %"
			    PRIu64 " bytes: dropped (%" PRIu64 " dropped in all)", size,
			    u->c.spool_max_bytes, spool__count_drops(u, 1));
		return -ENOSPC;
	}
	ret = spool__list(u, &l, err);
	if (ret)
		return ret;
	bytes = l.bytes;
	for (i = 0; i < l.nr && (l.nr - i + 1 > u->c.spool_max_files ||
				 bytes + size > u->c.spool_max_bytes); i++) {
		char path[4096];

		snprintf(path, sizeof(path), "%s/%s", dir, l.v[i].name);
		if (unlink(path))
			continue;
		bytes -= l.v[i].size;
		drops++;
		if (u->c.log)
			fprintf(u->c.log, "spool %s is full: dropped %s (%" PRIu64 " bytes)\n", dir,
				l.v[i].name, l.v[i].size);
	}
	free(l.v);
	if (drops) {
		uint64_t total = spool__count_drops(u, drops);

		st->dropped += drops;
		if (u->c.log)
			fprintf(u->c.log, "spool %s: %" PRIu64 " items dropped in all\n", dir, total);
	}
	return spool__write_file(dir, name, hdr, hlen, it->body, it->len, err);
}

/* Parse the spooled file @buf (@len bytes) into @it. */
static bool spool__parse(char *buf, size_t len, struct kp_upload_item *it)
{
	char *p = buf, *end = buf + len, *nl, *eq;
	uint64_t size = UINT64_MAX, v;
	unsigned int seen = 0;

	memset(it, 0, sizeof(*it));
	if (len < strlen(SPOOL_MAGIC) || memcmp(buf, SPOOL_MAGIC, strlen(SPOOL_MAGIC)))
		return false;
	p += strlen(SPOOL_MAGIC);
	for (;;) {
		nl = memchr(p, '\n', end - p);
		if (!nl)
			return false;
		*nl = '\0';
		if (nl == p)
			break;
		eq = strchr(p, '=');
		if (!eq)
			return false;
		*eq++ = '\0';
		if (!strcmp(p, "name") && strlen(eq) < sizeof(it->name)) {
			strcpy(it->name, eq);
			seen |= 1;
		} else if (!strcmp(p, "spyName") && strlen(eq) < sizeof(it->spy_name)) {
			strcpy(it->spy_name, eq);
			seen |= 2;
		} else if (!strcmp(p, "from") && !kp_parse_u64(eq, &it->from)) {
			seen |= 4;
		} else if (!strcmp(p, "until") && !kp_parse_u64(eq, &it->until)) {
			seen |= 8;
		} else if (!strcmp(p, "sampleRate") && !kp_parse_u64(eq, &v) && v <= UINT32_MAX) {
			it->sample_rate = v;
			seen |= 16;
		} else if (!strcmp(p, "size") && !kp_parse_u64(eq, &size)) {
			seen |= 32;
		} else {
			return false;
		}
		p = nl + 1;
	}
	it->body = nl + 1;
	it->len = end - (nl + 1);
	return seen == 63 && size == it->len && *it->name && it->from <= it->until;
}

static char *spool__slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !(buf = malloc(st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	close(fd);
	*len = st.st_size;
	return buf;
}

/* Is @http about who we are or where we send, not about the item? */
static bool upload__refused_us(long http)
{
	return http == 401 || http == 403 || http == 404 || http == 405 || http == 407;
}

/* The flush, the lock held. */
static int spool__flush(struct kp_uploader *u, struct kp_upload_stats *st, struct kp_err *err)
{
	const char *dir = u->c.spool_dir;
	struct kp_upload_item it;
	struct kp_upload_res res;
	char path[4096], moved[4200];
	struct spool_list l;
	unsigned int i;
	size_t len;
	char *buf;
	int ret;

	ret = spool__list(u, &l, err);
	if (ret)
		return ret;
	for (i = 0; i < l.nr; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, l.v[i].name);
		buf = spool__slurp(path, &len);
		if (!buf || !spool__parse(buf, len, &it)) {
			snprintf(moved, sizeof(moved), "%s.bad", path);
			if (buf && !rename(path, moved)) {
				st->rejected++;
				if (u->c.log)
					fprintf(u->c.log, "spooled %s is not a spool item: moved to %s\n",
						path, moved);
			}
			free(buf);
			continue;
		}
		kp_uploader__send(u, &it, &res);
		free(buf);
		if (res.status == KP_UPLOAD_OK) {
			if (unlink(path)) {
				kp_err__set(err, errno, "delivered but cannot remove '%s': %s", path,
					    strerror(errno));
				st->left = l.nr - i;
				free(l.v);
				return -EIO;
			}
			spool__sync_dir(dir);
			st->delivered++;
			if (u->c.log)
				fprintf(u->c.log, "uploaded %s (%zu bytes) to %s (HTTP %ld)\n", path,
					it.len, u->c.url, res.http);
			continue;
		}
		if (res.status == KP_UPLOAD_RETRY || upload__refused_us(res.http)) {
			st->left = l.nr - i;
			st->res = res;
			kp_err__set(err, res.status == KP_UPLOAD_RETRY ? EAGAIN : EPERM,
				    "%s: %s; %u spooled profiles wait in %s", u->c.url, res.msg,
				    st->left, dir);
			free(l.v);
			return res.status == KP_UPLOAD_RETRY ? -EAGAIN : -EPERM;
		}
		snprintf(moved, sizeof(moved), "%s.rejected", path);
		st->rejected++;
		if (!rename(path, moved))
			spool__sync_dir(dir);
		if (u->c.log)
			fprintf(u->c.log, "%s rejected %s: %s; kept as %s\n", u->c.url, path, res.msg,
				moved);
	}
	free(l.v);
	return 0;
}

int kp_uploader__flush(struct kp_uploader *u, struct kp_upload_stats *st, struct kp_err *err)
{
	int ret;

	memset(st, 0, sizeof(*st));
	if (!u->c.spool_dir) {
		kp_err__set(err, EINVAL, "no spool directory");
		return -EINVAL;
	}
	ret = spool__lock(u, err);
	if (ret)
		return ret;
	ret = spool__flush(u, st, err);
	spool__unlock(u);
	return ret;
}

int kp_uploader__profile(struct kp_uploader *u, const void *body, size_t len, uint64_t from,
			 uint64_t until, unsigned int hz, struct kp_upload_stats *st,
			 struct kp_err *err)
{
	struct kp_upload_item it = { .from = from, .until = until, .sample_rate = hz,
				     .body = body, .len = len };
	struct kp_err ferr;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	snprintf(it.name, sizeof(it.name), "%s", u->name);
	snprintf(it.spy_name, sizeof(it.spy_name), "%s", u->c.spy_name);
	if (u->c.spool_dir) {
		ret = spool__lock(u, err);
		if (ret)
			return ret;
		ret = spool__flush(u, st, &ferr);
		if (ret && ret != -EAGAIN && ret != -EPERM) {
			spool__unlock(u);
			*err = ferr;
			return ret;
		}
	}
	/* -EAGAIN: the server could not take the oldest; the new one waits behind it */
	if (ret != -EAGAIN)
		kp_uploader__send(u, &it, &st->res);
	if (st->res.status == KP_UPLOAD_OK) {
		if (u->c.log)
			fprintf(u->c.log, "uploaded %zu bytes to %s (HTTP %ld)\n", len, u->c.url,
				st->res.http);
		ret = 0;
	} else if (st->res.status == KP_UPLOAD_REJECTED) {
		st->rejected++;
		kp_err__set(err, EPERM, "%s rejected the profile: %s", u->c.url, st->res.msg);
		ret = -EPERM;
	} else if (!u->c.spool_dir) {
		kp_err__set(err, EAGAIN, "cannot upload to %s: %s", u->c.url, st->res.msg);
		ret = -EAGAIN;
	} else {
		ret = spool__add(u, &it, st, err);
		if (!ret) {
			st->spooled = true;
			if (u->c.log)
				fprintf(u->c.log, "spooled to %s%s (%s: %s)\n", st->spool_path,
					st->again ? ", there already" : "", u->c.url, st->res.msg);
		}
	}
	spool__unlock(u);
	return ret;
}

int kp_uploader__spool(struct kp_uploader *u, const void *body, size_t len, uint64_t from,
		       uint64_t until, unsigned int hz, struct kp_upload_stats *st,
		       struct kp_err *err)
{
	struct kp_upload_item it = { .from = from, .until = until, .sample_rate = hz,
				     .body = body, .len = len };
	int ret;

	memset(st, 0, sizeof(*st));
	if (!u->c.spool_dir) {
		kp_err__set(err, EINVAL, "no spool directory");
		return -EINVAL;
	}
	snprintf(it.name, sizeof(it.name), "%s", u->name);
	snprintf(it.spy_name, sizeof(it.spy_name), "%s", u->c.spy_name);
	ret = spool__lock(u, err);
	if (ret)
		return ret;
	ret = spool__add(u, &it, st, err);
	if (!ret)
		st->spooled = true;
	spool__unlock(u);
	return ret;
}
