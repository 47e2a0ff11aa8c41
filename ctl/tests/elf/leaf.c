// SPDX-License-Identifier: GPL-2.0
/*
 * The program of tests/test-unwind.c: built with frame pointers, as a
 * kprof user builds, it blocks in a libc wrapper that sets up no frame
 * (or in a function of its own) and says where its stack is first, so
 * that the test can take a kprof sample of it from outside.
 *
 *	leaf read|read-mt|nanosleep|framed|nocfi|middle
 *
 * read: read() of a pipe (single-threaded: the return address at %rsp);
 * read-mt: the same with a second thread (glibc's cancellable path: at
 * %rsp + 40); nanosleep: nanosleep(), which calls clock_nanosleep() (two
 * frameless functions); framed: the syscall inside a function with a
 * frame; nocfi: inside an assembler function with no CFI; middle: that
 * framed syscall called from a function without a frame, called from one
 * with a frame (the frameless one is in the middle).  Prints the
 * blocking function's caller's frame address (its %rbp, which the
 * frameless wrappers leave alone) on stdout, then blocks on stdin.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

long raw_read_nocfi(int fd, void *buf, unsigned long len);

__asm__(".text\n"
	".globl raw_read_nocfi\n"
	".type raw_read_nocfi, @function\n"
	"raw_read_nocfi:\n"
	"	mov $0, %eax\n"
	"	syscall\n"
	"	ret\n"
	".size raw_read_nocfi, . - raw_read_nocfi\n");

static void say_frame(void *fp)
{
	printf("%p\n", fp);
	fflush(stdout);
}

__attribute__((noinline)) long framed_read(int fd, void *buf, unsigned long len)
{
	long ret;

	say_frame(__builtin_frame_address(0));
	__asm__ volatile("syscall" : "=a"(ret) : "0"(0L), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) long wait_on_pipe(int fd)
{
	char c;

	say_frame(__builtin_frame_address(0));
	return read(fd, &c, 1);
}

__attribute__((noinline)) long wait_nocfi(int fd)
{
	char c;

	say_frame(__builtin_frame_address(0));
	return raw_read_nocfi(fd, &c, 1);
}

__attribute__((noinline)) int sleep_long(void)
{
	struct timespec ts = { .tv_sec = 60 };

	say_frame(__builtin_frame_address(0));
	return nanosleep(&ts, NULL);
}

/* no frame of its own; not a tail call (the addition) */
__attribute__((noinline, optimize("omit-frame-pointer"))) long thin_middle(int fd)
{
	char c;

	return framed_read(fd, &c, 1) + 1;
}

__attribute__((noinline)) long thick_outer(int fd)
{
	return thin_middle(fd) + 1;
}

static void *idle(void *arg)
{
	pause();
	return arg;
}

__attribute__((noinline)) int leaf_main(const char *mode)
{
	pthread_t t;
	char c;

	if (!strcmp(mode, "read"))
		return wait_on_pipe(0) < 0;
	if (!strcmp(mode, "read-mt")) {
		if (pthread_create(&t, NULL, idle, NULL))
			return 1;
		return wait_on_pipe(0) < 0;
	}
	if (!strcmp(mode, "nanosleep"))
		return sleep_long();
	if (!strcmp(mode, "framed"))
		return framed_read(0, &c, 1) < 0;
	if (!strcmp(mode, "nocfi"))
		return wait_nocfi(0) < 0;
	if (!strcmp(mode, "middle"))
		return thick_outer(0) < 0;
	return 2;
}

int main(int argc, char **argv)
{
	return argc == 2 ? leaf_main(argv[1]) : 2;
}
