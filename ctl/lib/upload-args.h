/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of the commands that upload profiles to Pyroscope (pprof
 * --upload, daemon --upload): the server, the name and labels, the spool,
 * timeouts and credentials, and the uploader (lib/upload.h) made of them.
 *
 *	struct kp_upload_args up = { 0 };
 *	const struct option options[] = {
 *		KP_UPLOAD_OPTIONS(&up),
 *		...
 *	};
 *
 *	bad = up.url ? NULL : kp_upload_args__needs_url(&up);	an option without --upload
 *	ret = kp_upload_args__uploader(&up, &u, cmd);		KP_EXIT_*
 */
#ifndef KPROFCTL_UPLOAD_ARGS_H
#define KPROFCTL_UPLOAD_ARGS_H

#include <stdbool.h>

#include "parse-options.h"
#include "upload.h"

#define KP_UPLOAD_MAX_TAGS	32

struct kp_upload_args {
	const char	*url, *app_name, *spool_dir, *timeout, *spool_max_size;
	const char	*token, *basic_auth, *tenant;
	unsigned int	spool_max_files;
	bool		flush;			/* pprof --flush-spool */
	const char	*tags[KP_UPLOAD_MAX_TAGS];	/* --tag KEY=VALUE */
	unsigned int	nr_tags;
	bool		quiet;			/* no line per item sent or spooled */
};

parse_opt_cb kp_upload_args__tag_cb;

#define KP_UPLOAD_OPTIONS(p)							\
	OPT_STRING(0, "upload", &(p)->url, "url",				\
		   "send the profiles to Pyroscope at this http(s) URL (POST url/ingest)"), \
	OPT_STRING(0, "app-name", &(p)->app_name, "name",			\
		   "the application name in Pyroscope (default kprof)"),	\
	OPT_CALLBACK(0, "tag", (p), "key=value",				\
		     "a label of the uploaded profiles (repeatable)", kp_upload_args__tag_cb), \
	OPT_STRING(0, "spool-dir", &(p)->spool_dir, "dir",			\
		   "keep what cannot be uploaded yet here, deliver it first next time"), \
	OPT_UINTEGER(0, "spool-max-files", &(p)->spool_max_files, "n",		\
		     "at most n spooled profiles, the oldest dropped (default 1000)"), \
	OPT_STRING(0, "spool-max-size", &(p)->spool_max_size, "size",		\
		   "at most this many bytes spooled, the oldest dropped (default 256M)"), \
	OPT_STRING(0, "upload-timeout", &(p)->timeout, "duration",		\
		   "give up on a request after this long (default 60s; connect: 10s at most)"), \
	OPT_STRING(0, "upload-token", &(p)->token, "token",			\
		   "Authorization: Bearer token (default $KPROF_UPLOAD_TOKEN)"),	\
	OPT_STRING(0, "upload-basic-auth", &(p)->basic_auth, "user:password",	\
		   "basic auth (default $KPROF_UPLOAD_BASIC_AUTH)"),		\
	OPT_STRING(0, "upload-tenant", &(p)->tenant, "id",			\
		   "X-Scope-OrgID, the tenant of a multi-tenant Pyroscope")

/* The first upload option given without --upload ("--tag", ...), or NULL. */
const char *kp_upload_args__needs_url(const struct kp_upload_args *p);

/*
 * The uploader of @p (@p->url set); a bad value is one line for @cmd.
 * KP_EXIT_OK, or KP_EXIT_USAGE.
 */
int kp_upload_args__uploader(const struct kp_upload_args *p, struct kp_uploader *u,
			     const char *cmd);

#endif /* KPROFCTL_UPLOAD_ARGS_H */
