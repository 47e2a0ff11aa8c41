/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny TAP producer for the kprofctl unit tests.  Plan-less: each check
 * prints "ok N - desc" or "not ok N - desc", and done_testing() prints the
 * plan "1..N" and returns the exit code (non-zero if a check failed).
 *
 *	int main(void)
 *	{
 *		ok(1 + 1 == 2, "addition");
 *		is_int(strlen("ab"), 2, "strlen");
 *		is_str(buf, "expected", "formatting");
 *		return done_testing();
 *	}
 */
#ifndef KPROFCTL_TAP_H
#define KPROFCTL_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

static inline void tap_vreport(bool pass, const char *file, int line,
			       const char *fmt, va_list ap)
{
	fflush(stderr);
	printf("%sok %d - ", pass ? "" : "not ", ++tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	if (!pass) {
		tap_failed++;
		printf("#   Failed test at %s line %d.\n", file, line);
	}
	fflush(stdout);
}

/* Print @s as a C string literal in a diagnostic. */
static inline void tap_diag_str(const char *label, const char *s)
{
	printf("#   %8s: ", label);
	if (!s) {
		printf("NULL\n");
		return;
	}
	putchar('\'');
	for (; *s; s++) {
		if (*s == '\n')
			printf("\\n");
		else if ((unsigned char)*s < 0x20)
			printf("\\x%02x", (unsigned char)*s);
		else
			putchar(*s);
	}
	printf("'\n");
}

__attribute__((format(printf, 4, 5)))
static inline bool tap_ok(bool pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

__attribute__((format(printf, 5, 6)))
static inline bool tap_is_int(long long got, long long want, const char *file,
			      int line, const char *fmt, ...)
{
	bool pass = got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass)
		printf("#        got: %lld\n#   expected: %lld\n", got, want);
	return pass;
}

__attribute__((format(printf, 5, 6)))
static inline bool tap_is_str(const char *got, const char *want, const char *file,
			      int line, const char *fmt, ...)
{
	bool pass = got && want ? !strcmp(got, want) : got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vreport(pass, file, line, fmt, ap);
	va_end(ap);
	if (!pass) {
		tap_diag_str("got", got);
		tap_diag_str("expected", want);
	}
	return pass;
}

#define ok(cond, ...)		tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)	\
	tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...)	tap_is_str((got), (want), __FILE__, __LINE__, __VA_ARGS__)

/* A TAP comment line. */
#define diag(...)	do { printf("# "); printf(__VA_ARGS__); putchar('\n'); } while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# Looks like you failed %d test%s of %d.\n", tap_failed,
		       tap_failed == 1 ? "" : "s", tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}

#endif /* KPROFCTL_TAP_H */
