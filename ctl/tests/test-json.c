// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/json.c.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "tap.h"

struct mem {
	char	*buf;
	size_t	len;
	FILE	*fp;
};

static void mem__open(struct mem *m)
{
	m->fp = open_memstream(&m->buf, &m->len);
	if (!m->fp)
		abort();
}

static void mem__close(struct mem *m)
{
	fclose(m->fp);
}

/* Escape @len bytes of @s and compare with @want. */
static void check_escape(const char *s, size_t len, const char *want, const char *desc)
{
	struct mem m;

	mem__open(&m);
	json__escape(m.fp, s, len);
	mem__close(&m);
	is_str(m.buf, want, "escape: %s", desc);
	free(m.buf);
}

#define ESC(lit, want, desc)	check_escape(lit, sizeof(lit) - 1, want, desc)

static void test_escape(void)
{
	ESC("", "\"\"", "empty");
	ESC("plain text", "\"plain text\"", "plain");
	ESC("a\"b\\c/d", "\"a\\\"b\\\\c/d\"", "quote, backslash; slash kept");
	ESC("\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"", "short escapes");
	ESC("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"", "other controls");
	ESC("a\0b", "\"a\\u0000b\"", "embedded NUL");
	ESC("caf\xc3\xa9", "\"caf\xc3\xa9\"", "valid 2-byte UTF-8 kept");
	ESC("\xe2\x82\xac", "\"\xe2\x82\xac\"", "valid 3-byte UTF-8 kept");
	ESC("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"", "valid 4-byte UTF-8 kept");
	ESC("\xe2\x80\xa8", "\"\xe2\x80\xa8\"", "U+2028 kept (valid JSON)");
	ESC("\xff", "\"\\ufffd\"", "invalid byte 0xff");
	ESC("\x80x", "\"\\ufffdx\"", "stray continuation byte");
	ESC("\xc3", "\"\\ufffd\"", "truncated 2-byte sequence at the end");
	ESC("\xe2\x82", "\"\\ufffd\\ufffd\"", "truncated 3-byte sequence");
	ESC("\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong '/'");
	ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"", "overlong 3-byte");
	ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate");
	ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "beyond U+10FFFF");
	ESC("\xc3(", "\"\\ufffd(\"", "bad continuation");
	check_escape("abcdef", 3, "\"abc\"", "length limits the input");
}

static void test_writer(void)
{
	struct json_writer w;
	struct mem m;

	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__begin_object(&w, NULL);
	json__string(&w, "state", "idle");
	json__u64(&w, "big", UINT64_MAX);
	json__s64(&w, "neg", INT64_MIN);
	json__bool(&w, "t", true);
	json__bool(&w, "f", false);
	json__null(&w, "n");
	json__string(&w, "null_string", NULL);
	json__begin_object(&w, "abi");
	json__u64(&w, "major", 1);
	json__u64(&w, "minor", 0);
	json__end_object(&w);
	json__begin_array(&w, "list");
	json__u64(&w, NULL, 1);
	json__string(&w, NULL, "two");
	json__begin_object(&w, NULL);
	json__end_object(&w);
	json__begin_array(&w, NULL);
	json__end_array(&w);
	json__end_array(&w);
	json__begin_object(&w, "empty");
	json__end_object(&w);
	json__string(&w, "key \"q\"", "v\n");
	json__end_object(&w);
	is_int(json_writer__finish(&w), 0, "writer: balanced");
	mem__close(&m);
	is_str(m.buf,
	       "{\"state\":\"idle\",\"big\":18446744073709551615,"
	       "\"neg\":-9223372036854775808,\"t\":true,\"f\":false,\"n\":null,"
	       "\"null_string\":null,\"abi\":{\"major\":1,\"minor\":0},"
	       "\"list\":[1,\"two\",{},[]],\"empty\":{},\"key \\\"q\\\"\":\"v\\n\"}\n",
	       "writer: one line with everything");
	free(m.buf);

	/* Two top-level values are two lines (JSON Lines). */
	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__begin_array(&w, NULL);
	json__end_array(&w);
	json__u64(&w, NULL, 7);
	is_int(json_writer__finish(&w), 0, "writer: top-level values");
	mem__close(&m);
	is_str(m.buf, "[]\n7\n", "writer: one line per top-level value");
	free(m.buf);
}

static void test_misuse(void)
{
	struct json_writer w;
	struct mem m;
	int i;

	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__begin_object(&w, NULL);
	is_int(json_writer__finish(&w), -1, "misuse: unclosed object");
	json__u64(&w, NULL, 1);
	json__end_object(&w);
	is_int(json_writer__finish(&w), -1, "misuse: member without a key");
	mem__close(&m);
	free(m.buf);

	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__begin_array(&w, NULL);
	json__u64(&w, "key", 1);
	json__end_array(&w);
	is_int(json_writer__finish(&w), -1, "misuse: key in an array");
	mem__close(&m);
	free(m.buf);

	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__begin_array(&w, NULL);
	json__end_object(&w);
	is_int(json_writer__finish(&w), -1, "misuse: mismatched close");
	json__end_array(&w);
	mem__close(&m);
	free(m.buf);

	mem__open(&m);
	json_writer__init(&w, m.fp);
	json__end_object(&w);
	is_int(json_writer__finish(&w), -1, "misuse: close at the top level");
	mem__close(&m);
	free(m.buf);

	/* Nesting beyond JSON_MAX_DEPTH is flagged but stays balanced. */
	mem__open(&m);
	json_writer__init(&w, m.fp);
	for (i = 0; i < JSON_MAX_DEPTH + 3; i++)
		json__begin_array(&w, NULL);
	for (i = 0; i < JSON_MAX_DEPTH + 3; i++)
		json__end_array(&w);
	is_int(json_writer__finish(&w), -1, "misuse: too deep");
	mem__close(&m);
	is_int(m.len, 2 * (JSON_MAX_DEPTH + 3) + 1, "too deep: brackets balanced, one newline");
	free(m.buf);
}

int main(void)
{
	test_escape();
	test_writer();
	test_misuse();
	return done_testing();
}
