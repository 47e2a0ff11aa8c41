// SPDX-License-Identifier: GPL-2.0
/*
 * 'kprofctl pprof --upload' against a local receiver: a libmicrohttpd
 * server on 127.0.0.1 (an ephemeral port) that checks every request
 * against Pyroscope's documented /ingest grammar (POST /ingest; name,
 * from and until required; name APP{KEY=VALUE,...}; from <= until, unix
 * seconds; format=pprof; sampleRate a number; nothing else but the
 * documented parameters; the body raw, not a form) and keeps each body.
 * Debian's 'go tool pprof -raw' reads the received body and the local -o
 * file of the same profile alike.  Then the spool: 503 then 200, the
 * server down, 400, a timeout, the bounds; auth headers; bad input.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "lib/util.h"
#include "pprof-load.h"
#include "run-kprofctl.h"
#include "scenario.h"
#include "lib/upload.h"
#include "tap.h"
#include "tmpdir.h"

#define RECV_MAX	64

static char root[64], data[256], kallsyms[256], debugdir[128], out[256], spool[256];
static char url[64];

/* The receiver: what it answers, what it saw. */
static struct {
	pthread_mutex_t	lock;
	struct MHD_Daemon *d;
	unsigned int	port;
	unsigned int	answer[8];	/* statuses to answer next, then 200 */
	unsigned int	nr_answer;
	unsigned int	hang_ms;	/* sleep before answering */
	unsigned int	nr;		/* requests */
	unsigned int	nr_bad;		/* requests against the grammar */
	struct {
		char		name[512];
		char		auth[256];
		char		tenant[64];
		uint64_t	from, until, rate;
		unsigned int	status;
		char		body[300];	/* its file */
	} req[RECV_MAX];
} rx = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct rx_conn {
	char	*buf;
	size_t	len;
};

static bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* APP{KEY=VALUE,...}: APP [A-Za-z0-9_.-]+, KEY [A-Za-z0-9_]+, VALUE without ,{}= */
static bool name_ok(const char *s)
{
	const char *p = s;

	while (isalnum((unsigned char)*p) || strchr("_.-", *p))
		p++;
	if (p == s)
		return false;
	if (!*p)
		return true;
	if (*p++ != '{')
		return false;
	if (*p == '}')
		return !p[1];
	for (;;) {
		const char *k = p, *v;

		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		if (p == k || *p++ != '=' || !strncmp(k, "__name__=", 9))
			return false;
		v = p;
		while (*p && !strchr(",{}=", *p) && !iscntrl((unsigned char)*p))
			p++;
		if (p == v)
			return false;
		if (*p == '}')
			return !p[1];
		if (*p++ != ',')
			return false;
	}
}

struct rx_args {
	const char	*v[8];
	bool		unknown;
	char		unknown_key[64];
};

static const char * const rx_keys[] = { "name", "from", "until", "format", "sampleRate",
					"spyName", "units", "aggregationType" };

static enum MHD_Result rx_arg(void *cls, enum MHD_ValueKind kind, const char *key,
			      const char *value)
{
	struct rx_args *a = cls;
	unsigned int i;

	(void)kind;
	for (i = 0; i < KP_ARRAY_SIZE(rx_keys); i++)
		if (!strcmp(key, rx_keys[i])) {
			if (a->v[i])
				a->unknown = true;	/* twice */
			a->v[i] = value ? value : "";
			return MHD_YES;
		}
	a->unknown = true;
	snprintf(a->unknown_key, sizeof(a->unknown_key), "%s", key);
	return MHD_YES;
}

/* Check the request against the grammar; diag() each violation. */
static bool rx_check(struct MHD_Connection *c, const char *method, const char *path,
		     struct rx_args *a)
{
	const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	uint64_t from = 0, until = 0;
	bool good = true;

#define BAD(...) do { diag("receiver: " __VA_ARGS__); good = false; } while (0)
	if (strcmp(method, "POST") || strcmp(path, "/ingest"))
		BAD("%s %s, not POST /ingest", method, path);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, rx_arg, a);
	if (a->unknown)
		BAD("an undocumented or repeated parameter '%s'", a->unknown_key);
	if (!a->v[0] || !name_ok(a->v[0]))
		BAD("name '%s' is not APP{KEY=VALUE,...}", a->v[0] ? a->v[0] : "(none)");
	if (!all_digits(a->v[1]) || !all_digits(a->v[2]) || kp_parse_u64(a->v[1], &from) ||
	    kp_parse_u64(a->v[2], &until))
		BAD("from '%s', until '%s': not unix seconds", a->v[1] ? a->v[1] : "(none)",
		    a->v[2] ? a->v[2] : "(none)");
	else if (from > until || until > 100000000000ULL)
		BAD("from %" PRIu64 " after until %" PRIu64 " or not seconds", from, until);
	if (!a->v[3] || strcmp(a->v[3], "pprof"))
		BAD("format '%s', not pprof", a->v[3] ? a->v[3] : "(none)");
	if (a->v[4] && (!all_digits(a->v[4]) || !strcmp(a->v[4], "0")))
		BAD("sampleRate '%s' is not a rate in Hz", a->v[4]);
	if (a->v[5] && !*a->v[5])
		BAD("an empty spyName");
	/* for pprof the profile's sample types decide them */
	if (a->v[6] || a->v[7])
		BAD("units or aggregationType sent with format=pprof");
	if (!ct || strncmp(ct, "binary/octet-stream", 19))
		BAD("Content-Type '%s', not the raw profile's", ct ? ct : "(none)");
#undef BAD
	return good;
}

static enum MHD_Result rx_reply(struct MHD_Connection *c, unsigned int status, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result rx_request(void *cls, struct MHD_Connection *c, const char *path,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct rx_conn *conn = *con_cls;
	struct rx_args a = { 0 };
	unsigned int status = 200, i;
	const char *v;
	bool good;
	FILE *fp;

	(void)cls;
	(void)version;
	if (!conn) {
		conn = calloc(1, sizeof(*conn));
		*con_cls = conn;
		return conn ? MHD_YES : MHD_NO;
	}
	if (*upload_data_size) {
		char *b = realloc(conn->buf, conn->len + *upload_data_size);

		if (!b)
			return MHD_NO;
		memcpy(b + conn->len, upload_data, *upload_data_size);
		conn->buf = b;
		conn->len += *upload_data_size;
		*upload_data_size = 0;
		return MHD_YES;
	}
	good = rx_check(c, method, path, &a);
	pthread_mutex_lock(&rx.lock);
	i = rx.nr++;
	if (!good)
		rx.nr_bad++;
	if (rx.nr_answer) {
		status = rx.answer[0];
		memmove(rx.answer, rx.answer + 1, --rx.nr_answer * sizeof(rx.answer[0]));
	}
	if (i < RECV_MAX) {
		snprintf(rx.req[i].name, sizeof(rx.req[i].name), "%s", a.v[0] ? a.v[0] : "");
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
		snprintf(rx.req[i].auth, sizeof(rx.req[i].auth), "%s", v ? v : "");
		v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Scope-OrgID");
		snprintf(rx.req[i].tenant, sizeof(rx.req[i].tenant), "%s", v ? v : "");
		kp_parse_u64(a.v[1], &rx.req[i].from);
		kp_parse_u64(a.v[2], &rx.req[i].until);
		rx.req[i].rate = 0;
		kp_parse_u64(a.v[4], &rx.req[i].rate);
		rx.req[i].status = status;
		snprintf(rx.req[i].body, sizeof(rx.req[i].body), "%s/recv-%u.pb.gz", root, i);
		fp = fopen(rx.req[i].body, "wb");
		if (!fp || fwrite(conn->buf, 1, conn->len, fp) != conn->len || fclose(fp))
			diag("receiver: cannot save %s", rx.req[i].body);
	}
	pthread_mutex_unlock(&rx.lock);
	if (rx.hang_ms)
		usleep(rx.hang_ms * 1000);
	return rx_reply(c, status, status == 400 ? "invalid profile: no samples\n" :
				   status == 200 ? "" : "try later\n");
}

static void rx_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct rx_conn *conn = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (conn) {
		free(conn->buf);
		free(conn);
	}
	*con_cls = NULL;
}

/* Start the receiver on @port (0: an ephemeral one, remembered: restarts reuse it). */
static bool rx_start(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(rx.port) };
	const union MHD_DaemonInfo *info;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
				rx_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
				MHD_OPTION_NOTIFY_COMPLETED, rx_completed, NULL,
				MHD_OPTION_LISTENING_ADDRESS_REUSE, 1U, MHD_OPTION_END);
	if (!rx.d)
		return false;
	info = MHD_get_daemon_info(rx.d, MHD_DAEMON_INFO_BIND_PORT);
	rx.port = info ? info->port : 0;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", rx.port);
	return rx.port != 0;
}

static void rx_stop(void)
{
	if (rx.d)
		MHD_stop_daemon(rx.d);
	rx.d = NULL;
}

static void rx_reset(void)
{
	pthread_mutex_lock(&rx.lock);
	rx.nr = rx.nr_bad = rx.nr_answer = rx.hang_ms = 0;
	pthread_mutex_unlock(&rx.lock);
}

static void decode(struct run *r, ...)
{
	const char *pre[] = { "pprof", "-i", data, "--symfs", root, "--kallsyms", kallsyms,
			      "--debug-dir", debugdir };
	va_list ap;

	va_start(ap, r);
	run_va(r, pre, KP_ARRAY_SIZE(pre), ap);
	va_end(ap);
}

/* Items in the spool directory (*.pprof), *.rejected ones in @rejected. */
static unsigned int spool_items(unsigned int *rejected)
{
	unsigned int n = 0, rej = 0;
	struct dirent *de;
	DIR *d = opendir(spool);
	size_t len;

	while (d && (de = readdir(d))) {
		len = strlen(de->d_name);
		if (len > 6 && !strcmp(de->d_name + len - 6, ".pprof"))
			n++;
		else if (len > 9 && !strcmp(de->d_name + len - 9, ".rejected"))
			rej++;
	}
	if (d)
		closedir(d);
	if (rejected)
		*rejected = rej;
	return n;
}

static unsigned int nr_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* 'go tool pprof -raw' of @path, or NULL. */
static char *go_raw(const char *path)
{
	char cmd[1024], file[300];

	snprintf(file, sizeof(file), "%s/raw.txt", root);
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw %s > %s 2>/dev/null", root, path,
		 file);
	if (system(cmd))
		return NULL;
	return tmpdir__slurp(file, NULL);
}

/* The samples and cpu totals of the profile at @path. */
static bool totals(const char *path, uint64_t *samples, uint64_t *cpu)
{
	Perftools__Profiles__Profile *p = pprof_load(path);
	size_t i;

	*samples = *cpu = 0;
	if (!p)
		return false;
	for (i = 0; i < p->n_sample; i++) {
		*samples += p->sample[i]->n_value > 0 ? p->sample[i]->value[0] : 0;
		*cpu += p->sample[i]->n_value > 1 ? p->sample[i]->value[1] : 0;
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
	return true;
}

static void test_upload(void)
{
	uint64_t s1, c1, s2, c2;
	char *want, *got, *a, *b, line[256];
	size_t alen = 0, blen = 0;
	struct run r;

	rx_reset();
	decode(&r, "-o", out, "--upload", url, "--app-name", "kprof.test", "--tag", "env=ci",
	       "--tag", "host=h-1.example", NULL);
	snprintf(line, sizeof(line), "to %s (HTTP 200)\n", url);
	ok(r.rc == 0 && strstr(r.err, "uploaded ") && strstr(r.err, line),
	   "pprof -o FILE --upload URL: exit 0, 'uploaded N bytes to URL (HTTP 200)'");
	if (r.rc)
		diag("%s", r.err);
	ok(strstr(r.err, "Wrote ") != NULL, "... and the local file written too");
	run_free(&r);
	ok(rx.nr == 1 && rx.nr_bad == 0, "the receiver got one request, by the /ingest grammar");
	is_str(rx.req[0].name, "kprof.test{env=ci,host=h-1.example}",
	       "name: APP{KEY=VALUE,...}, URL-decoded as sent");
	ok(rx.req[0].from == 1700000000 && rx.req[0].until == 1700000001,
	   "from, until: the recording's start and end in unix seconds (%" PRIu64 ", %" PRIu64 ")",
	   rx.req[0].from, rx.req[0].until);
	is_int(rx.req[0].rate, 1000, "sampleRate: the 1 ms cpu-clock period as 1000 Hz");
	is_str(rx.req[0].auth, "", "no Authorization header without a token");

	a = tmpdir__slurp(out, &alen);
	b = tmpdir__slurp(rx.req[0].body, &blen);
	ok(a && b && alen == blen && !memcmp(a, b, alen),
	   "the body is the local file's bytes (%zu, %zu)", alen, blen);
	free(a);
	free(b);
	ok(totals(out, &s1, &c1) && totals(rx.req[0].body, &s2, &c2) && s1 == s2 && c1 == c2 &&
	   s1 > 0, "the same samples and cpu totals (%" PRIu64 "/%" PRIu64 ", %" PRIu64 "/%" PRIu64 ")",
	   s1, s2, c1, c2);
	if (system("command -v go >/dev/null 2>&1")) {
		ok(0, "go tool pprof is installed (tools/deps.sh installs golang-go)");
		return;
	}
	want = go_raw(out);
	got = go_raw(rx.req[0].body);
	ok(want && got && strstr(got, "app_leaf") && !strcmp(want, got),
	   "go tool pprof -raw decodes the body to the local file's profile");
	free(want);
	free(got);

	rx_reset();
	decode(&r, "--upload", url, NULL);
	ok(r.rc == 0 && !strstr(r.err, "Wrote ") && strstr(r.err, "uploaded "),
	   "--upload without -o: uploaded, no file written");
	run_free(&r);
	ok(rx.nr == 1 && rx.nr_bad == 0 && !strcmp(rx.req[0].name, "kprof{}"),
	   "the default name: kprof{} (%s)", rx.req[0].name);
}

static void test_retry(void)
{
	unsigned int i, run1 = 0, run2 = 0;
	struct run r;

	tmpdir__remove(spool);
	rx_reset();
	rx.answer[rx.nr_answer++] = 503;
	decode(&r, "--upload", url, "--spool-dir", spool, "--tag", "run=1", NULL);
	ok(r.rc == 0 && strstr(r.err, "spooled to ") && strstr(r.err, spool) &&
	   strstr(r.err, "HTTP 503: try later"),
	   "503: 'spooled to DIR/...' with the server's answer, exit 0");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	is_int(spool_items(NULL), 1, "one item in the spool");
	/* what status shows of it: a temporary file or a dot-file is no item */
	tmpdir__write(spool, ".tmp-1.pprof", "x");
	tmpdir__write(spool, "x.pprof.tmp", "x");
	is_int(kp_upload__spooled(spool), 1, "kp_upload__spooled(): the one item, no temporary file");

	decode(&r, "--upload", url, "--spool-dir", spool, "--tag", "run=2", NULL);
	ok(r.rc == 0 && strstr(r.err, "uploaded ") && strstr(r.err, "(HTTP 200)"),
	   "the next run: delivered");
	run_free(&r);
	is_int(spool_items(NULL), 0, "the spool is empty");
	for (i = 0; i < rx.nr; i++) {
		run1 += rx.req[i].status == 200 && !strcmp(rx.req[i].name, "kprof{run=1}");
		run2 += rx.req[i].status == 200 && !strcmp(rx.req[i].name, "kprof{run=2}");
	}
	ok(rx.nr == 3 && rx.nr_bad == 0 && run1 == 1 && run2 == 1 &&
	   !strcmp(rx.req[1].name, "kprof{run=1}"),
	   "the receiver took the spooled profile exactly once, before the new one (%u requests)",
	   rx.nr);
}

static void test_down(void)
{
	unsigned int i, got = 0;
	char *a, *b;
	size_t alen = 0, blen = 0;
	struct run r;

	tmpdir__remove(spool);
	rx_stop();
	rx_reset();
	decode(&r, "-o", out, "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 0 && strstr(r.err, "spooled to "), "server down: spooled, exit 0");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	decode(&r, "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 0 && strstr(r.err, "spooled to "), "still down: the same profile spooled again");
	run_free(&r);
	is_int(spool_items(NULL), 1, "... is one item (its name is its interval's)");
	if (getenv("KP_KEEP"))
		diag("root %s", root);

	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 1 && nr_lines(r.err) == 1 && strstr(r.err, "1 spooled profiles wait in"),
	   "--flush-spool with the server down: exit 1, one line");
	run_free(&r);

	if (!ok(rx_start(), "the receiver is back on port %u", rx.port))
		return;
	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 0 && strstr(r.err, "1 spooled profiles delivered"),
	   "--flush-spool: delivered, exit 0");
	if (r.rc)
		diag("%s", r.err);
	run_free(&r);
	is_int(spool_items(NULL), 0, "the spool is empty");
	for (i = 0; i < rx.nr; i++)
		got += rx.req[i].status == 200;
	ok(rx.nr == 1 && got == 1 && rx.nr_bad == 0, "received exactly once, by the grammar");
	a = tmpdir__slurp(out, &alen);
	b = rx.nr ? tmpdir__slurp(rx.req[0].body, &blen) : NULL;
	ok(a && b && alen == blen && !memcmp(a, b, alen),
	   "the delivered body is that interval's local file");
	free(a);
	free(b);
	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 0 && rx.nr == 1, "flushing again sends nothing");
	run_free(&r);
}

static void test_rejected(void)
{
	struct run r;

	tmpdir__remove(spool);
	rx_reset();
	rx.answer[rx.nr_answer++] = 400;
	decode(&r, "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 1 && nr_lines(r.err) == 1 &&
	   strstr(r.err, "rejected the profile: HTTP 400: invalid profile: no samples"),
	   "400: the server's message on one line, exit 1");
	if (r.rc != 1)
		diag("%s", r.err);
	run_free(&r);
	is_int(spool_items(NULL), 0, "400: not spooled");
	is_int(rx.nr, 1, "400: not retried");

	/* a spooled item that the server then refuses is kept aside */
	rx_reset();
	rx.answer[rx.nr_answer++] = 503;
	decode(&r, "--upload", url, "--spool-dir", spool, NULL);
	run_free(&r);
	rx.answer[rx.nr_answer++] = 422;
	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	{
		unsigned int rej;

		ok(r.rc == 1 && spool_items(&rej) == 0 && rej == 1 && strstr(r.err, "HTTP 422"),
		   "a spooled item refused with 422: kept as NAME.rejected, not retried");
	}
	run_free(&r);
}

static void test_timeout(void)
{
	struct run r;

	tmpdir__remove(spool);
	rx_reset();
	rx.hang_ms = 1500;
	decode(&r, "--upload", url, "--spool-dir", spool, "--upload-timeout", "300ms", NULL);
	ok(r.rc == 0 && strstr(r.err, "spooled to ") && strstr(r.err, "timed out"),
	   "--upload-timeout 300ms on a server that hangs: timed out, spooled");
	if (r.rc || !strstr(r.err, "timed out"))
		diag("%s", r.err);
	run_free(&r);
	usleep(1600 * 1000);
	rx_reset();
}

static void test_bounds(void)
{
	char path[300], *text;
	struct run r;

	tmpdir__remove(spool);
	rx_stop();
	decode(&r, "--upload", url, "--spool-dir", spool, "--spool-max-files", "2", "--tag", "i=a", NULL);
	run_free(&r);
	decode(&r, "--upload", url, "--spool-dir", spool, "--spool-max-files", "2", "--tag", "i=b", NULL);
	run_free(&r);
	decode(&r, "--upload", url, "--spool-dir", spool, "--spool-max-files", "2", "--tag", "i=c", NULL);
	ok(r.rc == 0 && strstr(r.err, "is full: dropped ") && strstr(r.err, "1 items dropped in all"),
	   "--spool-max-files 2, a third profile: the oldest dropped, said");
	run_free(&r);
	is_int(spool_items(NULL), 2, "two items left");
	snprintf(path, sizeof(path), "%s/dropped", spool);
	text = tmpdir__slurp(path, NULL);
	is_str(text ? text : "", "1\n", "DIR/dropped counts the drop");
	free(text);
	decode(&r, "--upload", url, "--spool-dir", spool, "--spool-max-size", "100", NULL);
	ok(r.rc == 1 && nr_lines(r.err) == 1 && strstr(r.err, "over the spool's bound of 100 bytes"),
	   "--spool-max-size 100: the profile is over it, dropped and said, exit 1");
	run_free(&r);
	text = tmpdir__slurp(path, NULL);
	is_str(text ? text : "", "2\n", "... counted");
	free(text);
	ok(rx_start(), "the receiver is back");
	rx_reset();
	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 0 && rx.nr == 2 && !strcmp(rx.req[0].name, "kprof{i=b}") &&
	   !strcmp(rx.req[1].name, "kprof{i=c}"), "the two left delivered, oldest first");
	run_free(&r);
}

static void test_auth(void)
{
	struct run r;

	rx_reset();
	setenv("KPROF_UPLOAD_TOKEN", "s3cret", 1);
	decode(&r, "--upload", url, "--upload-tenant", "team-a", NULL);
	unsetenv("KPROF_UPLOAD_TOKEN");
	ok(r.rc == 0 && rx.nr == 1 && !strcmp(rx.req[0].auth, "Bearer s3cret") &&
	   !strcmp(rx.req[0].tenant, "team-a"),
	   "$KPROF_UPLOAD_TOKEN: Authorization: Bearer; --upload-tenant: X-Scope-OrgID");
	run_free(&r);
	rx_reset();
	decode(&r, "--upload", url, "--upload-basic-auth", "kp:pw", NULL);
	ok(r.rc == 0 && rx.nr == 1 && !strcmp(rx.req[0].auth, "Basic a3A6cHc="),
	   "--upload-basic-auth USER:PASSWORD: Authorization: Basic (%s)", rx.req[0].auth);
	run_free(&r);
}

static void test_bad(void)
{
	static const struct {
		const char	*opt, *val, *want;
	} bad[] = {
		{ "--upload", "ftp://example.com", "bad upload URL 'ftp://example.com' (not http:// or https://)" },
		{ "--upload", "http://", "bad upload URL 'http://' (no host)" },
		{ "--upload", "http://h/x?y=1", "bad upload URL 'http://h/x?y=1' (a query" },
		{ "--tag", "novalue", "bad tag 'novalue' (not KEY=VALUE)" },
		{ "--tag", "k=a,b", "bad tag 'k=a,b' (a value without" },
		{ "--tag", "k-1=v", "bad tag 'k-1=v' (a key of letters" },
		{ "--tag", "__name__=x", "bad tag '__name__=x' (__name__ is reserved" },
		{ "--tag", "k=", "bad tag 'k=' (an empty value)" },
		{ "--app-name", "my app", "bad application name 'my app'" },
		{ "--upload-timeout", "5x", "bad --upload-timeout '5x'" },
		{ "--spool-max-size", "lots", "bad --spool-max-size 'lots'" },
	};
	unsigned int i;
	struct run r;

	for (i = 0; i < KP_ARRAY_SIZE(bad); i++) {
		if (!strcmp(bad[i].opt, "--upload"))
			decode(&r, "--upload", bad[i].val, NULL);
		else
			decode(&r, "--upload", url, bad[i].opt, bad[i].val, NULL);
		ok(r.rc == 2 && nr_lines(r.err) == 1 && strstr(r.err, bad[i].want),
		   "%s '%s': one line naming it, exit 2", bad[i].opt, bad[i].val);
		if (r.rc != 2 || nr_lines(r.err) != 1 || !strstr(r.err, bad[i].want))
			diag("%s", r.err);
		run_free(&r);
	}
	decode(&r, "--upload", url, "--tag", "k=1", "--tag", "k=2", NULL);
	ok(r.rc == 2 && strstr(r.err, "key k given twice"), "a tag key twice: named, exit 2");
	run_free(&r);
	decode(&r, "--spool-dir", spool, NULL);
	ok(r.rc == 2 && nr_lines(r.err) == 1 && strstr(r.err, "--spool-dir needs --upload"),
	   "--spool-dir without --upload: one line, exit 2");
	run_free(&r);
	kprofctl(&r, "pprof", "--flush-spool", "--upload", url, NULL);
	ok(r.rc == 2 && strstr(r.err, "--flush-spool needs --spool-dir"),
	   "--flush-spool without --spool-dir: exit 2");
	run_free(&r);
	decode(&r, "--flush-spool", "--upload", url, "--spool-dir", spool, NULL);
	ok(r.rc == 2 && strstr(r.err, "--flush-spool makes no profile"),
	   "--flush-spool with -i: exit 2");
	run_free(&r);
	decode(&r, "--upload", url, "--uplaod-timeout", "1s", NULL);
	ok(r.rc == 2 && nr_lines(r.err) == 1 && strstr(r.err, "--uplaod-timeout"),
	   "an unknown option: one line naming it, exit 2");
	run_free(&r);
	rx_reset();
	decode(&r, "--upload", "http://127.0.0.1:1", NULL);
	ok(r.rc == 1 && nr_lines(r.err) == 1 && strstr(r.err, "cannot upload to http://127.0.0.1:1"),
	   "a refused connection without a spool: one line, exit 1");
	run_free(&r);
	kprofctl(&r, "pprof", "--help", NULL);
	ok(r.rc == 0 && strstr(r.out, "--upload <url>") && strstr(r.out, "--flush-spool") &&
	   strstr(r.out, "KPROF_UPLOAD_TOKEN"), "pprof --help: the upload options");
	run_free(&r);
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	snprintf(data, sizeof(data), "%s/kprof.data", root);
	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", root);
	snprintf(debugdir, sizeof(debugdir), "%s/debug", root);
	snprintf(out, sizeof(out), "%s/profile.pb.gz", root);
	snprintf(spool, sizeof(spool), "%s/spool", root);
	sc__golden(root, data);

	if (!ok(rx_start(), "a receiver on 127.0.0.1:%u", rx.port))
		return done_testing();
	test_upload();
	test_retry();
	test_down();
	test_rejected();
	test_timeout();
	test_bounds();
	test_auth();
	test_bad();
	rx_stop();
	if (!getenv("KP_KEEP"))
		tmpdir__remove(root);
	return done_testing();
}
