// SPDX-License-Identifier: GPL-2.0
/*
 * The upload options and the uploader made of them (upload-args.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "upload-args.h"
#include "util.h"

int kp_upload_args__tag_cb(const struct option *opt, const char *arg, bool unset)
{
	struct kp_upload_args *p = opt->value;

	if (unset) {
		p->nr_tags = 0;
		return 0;
	}
	if (p->nr_tags == KP_UPLOAD_MAX_TAGS)
		return -ERANGE;
	p->tags[p->nr_tags++] = arg;
	return 0;
}

int kp_upload_args__uploader(const struct kp_upload_args *p, struct kp_uploader *u,
			     const char *cmd)
{
	struct kp_upload_conf c = {
		.url = p->url, .app_name = p->app_name ? p->app_name : "kprof",
		.tags = p->tags, .nr_tags = p->nr_tags, .spool_dir = p->spool_dir,
		.spool_max_files = p->spool_max_files, .log = p->quiet ? NULL : stderr,
		.token = p->token ? p->token : getenv("KPROF_UPLOAD_TOKEN"),
		.basic_auth = p->basic_auth ? p->basic_auth : getenv("KPROF_UPLOAD_BASIC_AUTH"),
		.tenant = p->tenant,
	};
	struct kp_err err;

	if (c.token && !*c.token)
		c.token = NULL;
	if (c.basic_auth && !*c.basic_auth)
		c.basic_auth = NULL;
	if (p->timeout) {
		if (kp_parse_duration_ms(p->timeout, &c.timeout_ms) || !c.timeout_ms) {
			kp_error(cmd, "bad --upload-timeout '%s' (e.g. 500ms, 30s, 2m)", p->timeout);
			return KP_EXIT_USAGE;
		}
		c.connect_timeout_ms = c.timeout_ms < 10000 ? c.timeout_ms : 10000;
	}
	if (p->spool_max_size &&
	    (kp_parse_size(p->spool_max_size, &c.spool_max_bytes) || !c.spool_max_bytes)) {
		kp_error(cmd, "bad --spool-max-size '%s' (e.g. 64M, 1G)", p->spool_max_size);
		return KP_EXIT_USAGE;
	}
	if (kp_uploader__init(u, &c, &err)) {
		kp_err__print(&err, cmd);
		return KP_EXIT_USAGE;
	}
	return KP_EXIT_OK;
}

const char *kp_upload_args__needs_url(const struct kp_upload_args *p)
{
	if (p->app_name)
		return "--app-name";
	if (p->nr_tags)
		return "--tag";
	if (p->spool_dir)
		return "--spool-dir";
	if (p->timeout)
		return "--upload-timeout";
	if (p->spool_max_files || p->spool_max_size)
		return p->spool_max_files ? "--spool-max-files" : "--spool-max-size";
	if (p->token || p->basic_auth || p->tenant)
		return p->token ? "--upload-token" : p->basic_auth ? "--upload-basic-auth" :
								     "--upload-tenant";
	if (p->flush)
		return "--flush-spool";
	return NULL;
}
