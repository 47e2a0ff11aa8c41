/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer for the --json output of kprofctl commands.
 *
 *	struct json_writer w;
 *
 *	json_writer__init(&w, stdout);
 *	json__begin_object(&w, NULL);
 *	json__string(&w, "state", "idle");
 *	json__u64(&w, "sessions", 3);
 *	json__end_object(&w);		-> {"state":"idle","sessions":3}\n
 *	return json_writer__finish(&w);
 *
 * Members of an object take a key, array elements and the top-level value
 * take NULL.  The output is compact, one line per top-level value.  Strings
 * are escaped per RFC 8259; invalid UTF-8 bytes become U+FFFD.
 */
#ifndef KPROFCTL_JSON_H
#define KPROFCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH	32

struct json_writer {
	FILE	*fp;
	int	depth;
	int	overflow;			/* levels beyond JSON_MAX_DEPTH */
	bool	error;				/* misuse: see json_writer__finish() */
	bool	has_items[JSON_MAX_DEPTH + 1];
	bool	in_array[JSON_MAX_DEPTH + 1];
};

void json_writer__init(struct json_writer *w, FILE *fp);
/* 0 if every container was closed and every member had a key, else -1. */
int json_writer__finish(struct json_writer *w);

void json__begin_object(struct json_writer *w, const char *key);
void json__end_object(struct json_writer *w);
void json__begin_array(struct json_writer *w, const char *key);
void json__end_array(struct json_writer *w);

void json__string(struct json_writer *w, const char *key, const char *val);	/* NULL: null */
void json__u64(struct json_writer *w, const char *key, uint64_t val);
void json__s64(struct json_writer *w, const char *key, int64_t val);
void json__bool(struct json_writer *w, const char *key, bool val);
void json__null(struct json_writer *w, const char *key);

/* Write @len bytes of @s as a quoted, escaped JSON string. */
void json__escape(FILE *fp, const char *s, size_t len);

#endif /* KPROFCTL_JSON_H */
