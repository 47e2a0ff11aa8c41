// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl JSON writer; see json.h.
 */
#include <inttypes.h>
#include <string.h>

#include "json.h"

void json_writer__init(struct json_writer *w, FILE *fp)
{
	memset(w, 0, sizeof(*w));
	w->fp = fp;
}

int json_writer__finish(struct json_writer *w)
{
	return w->error || w->depth || w->overflow ? -1 : 0;
}

/* Length of the valid UTF-8 sequence at @s, or 0 if it is invalid. */
static size_t utf8_seq_len(const unsigned char *s, size_t len)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		if (c == 0xe0)
			lo = 0xa0;		/* overlong */
		else if (c == 0xed)
			hi = 0x9f;		/* UTF-16 surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		if (c == 0xf0)
			lo = 0x90;		/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;		/* beyond U+10FFFF */
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json__escape(FILE *fp, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	fputc('"', fp);
	while (i < len) {
		unsigned char c = s[i];

		switch (c) {
		case '"':
		case '\\':
			fputc('\\', fp);
			fputc(c, fp);
			break;
		case '\b':
			fputs("\\b", fp);
			break;
		case '\f':
			fputs("\\f", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(fp, "\\u%04x", c);
				break;
			}
			n = utf8_seq_len(s + i, len - i);
			if (!n) {
				fputs("\\ufffd", fp);
				break;
			}
			fwrite(s + i, 1, n, fp);
			i += n;
			continue;
		}
		i++;
	}
	fputc('"', fp);
}

/* Separator and key before a value at the current level. */
static void json__prefix(struct json_writer *w, const char *key)
{
	int d = w->depth;

	if (w->overflow) {
		w->error = true;
		return;
	}
	if (d > 0 && w->has_items[d])
		fputc(',', w->fp);
	w->has_items[d] = true;

	if (d > 0 && !w->in_array[d]) {
		if (!key) {
			w->error = true;
			key = "";
		}
		json__escape(w->fp, key, strlen(key));
		fputc(':', w->fp);
	} else if (key) {
		w->error = true;	/* a key in an array or at the top level */
	}
}

/* End of a value: a top-level value ends the line. */
static void json__suffix(struct json_writer *w)
{
	if (!w->depth && !w->overflow)
		fputc('\n', w->fp);
}

static void json__begin(struct json_writer *w, const char *key, bool array)
{
	json__prefix(w, key);
	fputc(array ? '[' : '{', w->fp);
	if (w->overflow || w->depth == JSON_MAX_DEPTH) {
		w->overflow++;
		w->error = true;
		return;
	}
	w->depth++;
	w->has_items[w->depth] = false;
	w->in_array[w->depth] = array;
}

static void json__end(struct json_writer *w, bool array)
{
	fputc(array ? ']' : '}', w->fp);
	if (w->overflow) {
		w->overflow--;
		return;
	}
	if (!w->depth || w->in_array[w->depth] != array) {
		w->error = true;
		if (!w->depth)
			return;
	}
	w->depth--;
	json__suffix(w);
}

void json__begin_object(struct json_writer *w, const char *key)
{
	json__begin(w, key, false);
}

void json__end_object(struct json_writer *w)
{
	json__end(w, false);
}

void json__begin_array(struct json_writer *w, const char *key)
{
	json__begin(w, key, true);
}

void json__end_array(struct json_writer *w)
{
	json__end(w, true);
}

void json__string(struct json_writer *w, const char *key, const char *val)
{
	json__prefix(w, key);
	if (val)
		json__escape(w->fp, val, strlen(val));
	else
		fputs("null", w->fp);
	json__suffix(w);
}

void json__u64(struct json_writer *w, const char *key, uint64_t val)
{
	json__prefix(w, key);
	fprintf(w->fp, "%" PRIu64, val);
	json__suffix(w);
}

void json__s64(struct json_writer *w, const char *key, int64_t val)
{
	json__prefix(w, key);
	fprintf(w->fp, "%" PRId64, val);
	json__suffix(w);
}

void json__bool(struct json_writer *w, const char *key, bool val)
{
	json__prefix(w, key);
	fputs(val ? "true" : "false", w->fp);
	json__suffix(w);
}

void json__null(struct json_writer *w, const char *key)
{
	json__prefix(w, key);
	fputs("null", w->fp);
	json__suffix(w);
}
