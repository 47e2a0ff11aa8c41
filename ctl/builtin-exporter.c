// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl exporter [--listen ADDR:PORT] [--once]
 *
 * A Prometheus exporter of kprof.ko's health: an HTTP server
 * (libmicrohttpd, its own thread) whose /metrics asks the module for its
 * version, status and per-CPU statistics at each scrape and answers in
 * the text exposition format (lib/prom.h: kprof_up, kprof_samples_total,
 * kprof_lost_samples_total{cause}, ...).  It binds 127.0.0.1:9464 unless
 * told otherwise and runs until SIGINT or SIGTERM.  --once prints one
 * exposition on standard output instead (for promtool, or cron).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "builtin.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/prom.h"
#include "lib/proto.h"
#include "lib/util.h"

static const char * const exporter_usage[] = {
	"kprofctl exporter [--listen <addr>:<port>] [--once]",
	"",
	"Serve kprof.ko's health to Prometheus: GET /metrics answers with the",
	"module's counters (samples, losses by cause, handler time, sessions) in",
	"the text exposition format.  Binds 127.0.0.1:9464 by default; runs until",
	"SIGINT or SIGTERM.",
	NULL
};

/* One exposition of the module's state now, into @fp. */
static void exporter__render(FILE *fp)
{
	struct kp_version_info v;
	struct kp_status_info st;
	struct kp_stats *cpus = NULL;
	unsigned int nr = 0;
	struct kp_err err;
	struct kp_nl *nl;

	nl = kp_nl__open(&err);
	if (!nl || kp_nl__version(nl, false, &v, &err) || kp_nl__status(nl, &st, &err)) {
		kp_prom__health(fp, NULL, NULL, NULL, 0);
		kp_nl__delete(nl);
		return;
	}
	if (st.has_session && kp_nl__stats(nl, &cpus, &nr, &err))
		nr = 0;
	kp_prom__health(fp, &v, &st, cpus, nr);
	free(cpus);
	kp_nl__delete(nl);
}

static enum MHD_Result exporter__reply(struct MHD_Connection *c, unsigned int code,
				       const char *type, char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body,
								 MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result exporter__request(void *cls, struct MHD_Connection *c, const char *url,
					 const char *method, const char *version,
					 const char *upload, size_t *upload_size, void **state)
{
	char *body = NULL;
	size_t len = 0;
	FILE *fp;

	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return exporter__reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
				       strdup("GET /metrics\n"), 13);
	if (!strcmp(url, "/"))
		return exporter__reply(c, MHD_HTTP_OK, "text/html",
				       strdup("<html><body><a href=\"/metrics\">kprof metrics</a></body></html>\n"),
				       63);
	if (strcmp(url, "/metrics"))
		return exporter__reply(c, MHD_HTTP_NOT_FOUND, "text/plain",
				       strdup("not found: GET /metrics\n"), 24);
	fp = open_memstream(&body, &len);
	if (!fp)
		return MHD_NO;
	exporter__render(fp);
	if (fclose(fp)) {
		free(body);
		return MHD_NO;
	}
	return exporter__reply(c, MHD_HTTP_OK, KP_PROM_CONTENT_TYPE, body, len);
}

/* "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6) into @ss; false when bad. */
static bool exporter__listen(const char *arg, struct sockaddr_storage *ss)
{
	char host[64];
	const char *colon;
	unsigned long port;
	char *end;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	colon = strrchr(arg, ':');
	if (!colon || colon == arg)
		return false;
	n = colon - arg;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || end == colon + 1 || *end || port == 0 || port > 65535)
		return false;
	if (arg[0] == '[') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (n < 3 || arg[n - 1] != ']' || n - 2 >= sizeof(host))
			return false;
		memcpy(host, arg + 1, n - 2);
		host[n - 2] = '\0';
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1;
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (n >= sizeof(host))
			return false;
		memcpy(host, arg, n);
		host[n] = '\0';
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		return inet_pton(AF_INET, host, &in->sin_addr) == 1;
	}
}

int cmd_exporter(int argc, const char **argv)
{
	const char *cmd = argv[0], *listen = "127.0.0.1:9464";
	bool once = false;
	const struct option options[] = {
		OPT_STRING(0, "listen", &listen, "addr:port",
			   "where to serve /metrics (default 127.0.0.1:9464; [::1]:PORT for IPv6)"),
		OPT_BOOLEAN(0, "once", &once, "print one exposition on standard output and exit"),
		OPT_END()
	};
	struct sockaddr_storage ss;
	struct MHD_Daemon *daemon;
	sigset_t set;
	int sig;

	argc = parse_options(argc, argv, options, exporter_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;
	if (once) {
		exporter__render(stdout);
		return fflush(stdout) ? KP_EXIT_FAILURE : KP_EXIT_OK;
	}
	if (!exporter__listen(listen, &ss)) {
		kp_error(cmd, "bad --listen '%s': ADDR:PORT or [ADDR6]:PORT expected", listen);
		return KP_EXIT_USAGE;
	}
	/* the signals that end it, waited for below; the server thread never sees them */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
				  (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				  0, NULL, NULL, exporter__request, NULL,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_CONNECTION_LIMIT, 64U,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10U,
				  MHD_OPTION_END);
	if (!daemon) {
		kp_error(cmd, "cannot listen on %s: %s", listen, strerror(errno ? errno : EADDRINUSE));
		return KP_EXIT_FAILURE;
	}
	fprintf(stderr, "kprofctl exporter: serving http://%s/metrics (Ctrl-C to stop)\n", listen);
	sigwait(&set, &sig);
	MHD_stop_daemon(daemon);
	return KP_EXIT_OK;
}
