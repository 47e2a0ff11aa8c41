// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of lib/outfile.c, the rule for -o files (kprofctl never
 * destroys a file it did not create), and of the commands that write
 * them, run as the real binary where a failure used to crash it: pprof
 * to a /proc file (a double fclose()), flamegraph to a device (unlinked
 * afterwards), report --tui without a terminal or after a hangup (a busy
 * loop on getch()'s ERR).
 */
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/outfile.h"
#include "tap.h"
#include "tmpdir.h"

#define REC	"tests/golden/formats/v5.data"

static char root[64];

static char *path_of(const char *name)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, name);
	return buf[i];
}

static bool only_entries(int want)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n == want;
}

static bool write_all(const char *path, const char *text, bool commit)
{
	struct kp_outfile o;
	struct kp_err err;

	if (kp_outfile__open(&o, path, false, &err))
		return false;
	fputs(text, o.fp);
	if (!commit) {
		kp_outfile__abort(&o);
		return true;
	}
	return !kp_outfile__commit(&o, &err);
}

static bool has_text(const char *path, const char *want)
{
	char *text = tmpdir__slurp(path, NULL);
	bool same = text && !strcmp(text, want);

	free(text);
	return same;
}

static void test_lib(void)
{
	struct kp_outfile o;
	struct kp_err err;
	struct stat st;
	mode_t mask = umask(022);

	ok(write_all(path_of("new"), "one\n", true) && has_text(path_of("new"), "one\n") &&
	   !stat(path_of("new"), &st) && (st.st_mode & 0777) == 0644 && only_entries(1),
	   "a new file: written, mode 0666 & ~umask, no temporary file left");
	chmod(path_of("new"), 0640);
	ok(write_all(path_of("new"), "two\n", true) && has_text(path_of("new"), "two\n") &&
	   !stat(path_of("new"), &st) && (st.st_mode & 0777) == 0640,
	   "an existing file: replaced, its mode kept");
	ok(write_all(path_of("new"), "three\n", false) && has_text(path_of("new"), "two\n") &&
	   only_entries(1), "an aborted write leaves the file as it was, and no temporary file");
	ok(!symlink("new", path_of("link")) && write_all(path_of("link"), "four\n", true) &&
	   !lstat(path_of("link"), &st) && S_ISLNK(st.st_mode) && has_text(path_of("new"), "four\n"),
	   "a symbolic link to a file: the target written, the link kept");
	ok(!symlink("missing", path_of("dangling")) && write_all(path_of("dangling"), "five\n", true) &&
	   !lstat(path_of("dangling"), &st) && S_ISLNK(st.st_mode) &&
	   has_text(path_of("missing"), "five\n"), "a dangling link: its target created");
	ok(write_all("/dev/null", "x", true) && !stat("/dev/null", &st) && S_ISCHR(st.st_mode),
	   "/dev/null: written in place, still a character device");
	ok(kp_outfile__open(&o, path_of("nodir/x"), false, &err) == -ENOENT &&
	   strstr(err.msg, "cannot create '") && strstr(err.msg, "nodir/x"),
	   "a missing directory: ENOENT, the message names the file");
	ok(!mkfifo(path_of("fifo"), 0600), "a FIFO made");
	{
		int rd = open(path_of("fifo"), O_RDONLY | O_NONBLOCK);

		ok(rd >= 0 && write_all(path_of("fifo"), "pipe\n", true) && !stat(path_of("fifo"), &st) &&
		   S_ISFIFO(st.st_mode), "a FIFO: written in place, still a FIFO");
		if (rd >= 0)
			close(rd);
	}
	if (!getuid()) {
		/* a copy of /dev/full: every write fails with ENOSPC */
		ok(!mknod(path_of("full"), S_IFCHR | 0600, makedev(1, 7)) &&
		   !write_all(path_of("full"), "x", true) && !stat(path_of("full"), &st) &&
		   S_ISCHR(st.st_mode), "a copy of /dev/full: the write fails, the device stays");
	} else {
		ok(1, "a copy of /dev/full # SKIP not root: no device node of our own");
	}
	ok(!link(path_of("new"), path_of("hard")) && kp_outfile__is_input(path_of("hard"), path_of("new")) &&
	   kp_outfile__is_input(path_of("link"), path_of("new")) &&
	   !kp_outfile__is_input(path_of("missing"), path_of("new")) &&
	   !kp_outfile__is_input("-", path_of("new")) &&
	   !kp_outfile__is_input(path_of("nothing"), path_of("new")),
	   "is_input: a hard or symbolic link to the input is it; another file, stdout or a new name is not");
	umask(mask);
}

/* Run the binary with @argv, stdin from @in; its status and CPU time. */
static int run_bin(const char *const *argv, const char *in, double *cpu_s, double *wall_s,
		   char *err, size_t err_len)
{
	int pipefd[2], status = -1;
	struct rusage ru;
	struct timespec t0, t1;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (!pid) {
		int fd = open(in, O_RDONLY);

		dup2(fd, 0);
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(pipefd[1], 2);
		alarm(10);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (err_len > 1 && (n = read(pipefd[0], err + got, err_len - 1 - got)) > 0)
		got += n;
	if (err_len)
		err[got] = '\0';
	close(pipefd[0]);
	if (wait4(pid, &status, 0, &ru) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (cpu_s)
		*cpu_s = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	if (wall_s)
		*wall_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	return status;
}

static bool one_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl && !nl[1];
}

static void test_commands(void)
{
	char err[4096];
	double cpu, wall;
	struct stat st;
	int status;

	{
		const char *argv[] = { "./kprofctl", "pprof", "-i", REC, "--kallsyms", "/dev/null",
				       "-o", "/proc/version", NULL };

		status = run_bin(argv, "/dev/null", NULL, NULL, err, sizeof(err));
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 1 && one_line(err) &&
		   strstr(err, "/proc/version"),
		   "pprof -o /proc/version: exit 1 and one line, no crash (status %#x: %s)", status, err);
	}
	{
		const char *argv[] = { "./kprofctl", "flamegraph", "-i", REC, "-o", "/dev/null", NULL };

		status = run_bin(argv, "/dev/null", NULL, NULL, err, sizeof(err));
		ok(WIFEXITED(status) && !WEXITSTATUS(status) && !stat("/dev/null", &st) &&
		   S_ISCHR(st.st_mode), "flamegraph -o /dev/null: written, still a device (%s)", err);
	}
	if (!getuid() && !stat(path_of("full"), &st) && S_ISCHR(st.st_mode)) {
		const char *argv[] = { "./kprofctl", "flamegraph", "-i", REC, "-o", path_of("full"), NULL };
		const char *argv2[] = { "./kprofctl", "pprof", "-i", REC, "--kallsyms", "/dev/null",
					"-o", path_of("full"), NULL };
		int status2;

		status = run_bin(argv, "/dev/null", NULL, NULL, err, sizeof(err));
		status2 = run_bin(argv2, "/dev/null", NULL, NULL, err, sizeof(err));
		ok(WIFEXITED(status) && WEXITSTATUS(status) == 1 && WIFEXITED(status2) &&
		   WEXITSTATUS(status2) == 1 && !stat(path_of("full"), &st) && S_ISCHR(st.st_mode),
		   "flamegraph and pprof -o a copy of /dev/full: fail, the device node stays");
	} else {
		ok(1, "a copy of /dev/full # SKIP not root: no device node of our own");
	}
	{
		const char *argv[] = { "./kprofctl", "report", "-i", REC, "--tui", "--kallsyms",
				       "/dev/null", NULL };

		status = run_bin(argv, "/dev/null", &cpu, &wall, err, sizeof(err));
		ok(WIFEXITED(status) && !WEXITSTATUS(status) && wall < 2 && cpu < 0.5,
		   "report --tui < /dev/null: the text, as perf falls back (exit %d, %.2f s, %.2f s CPU)",
		   WIFEXITED(status) ? WEXITSTATUS(status) : -1, wall, cpu);
	}
	{
		/* a real terminal that hangs up: the browser ends, no spinning */
		struct timespec t0, t1;
		struct rusage ru;
		char buf[4096];
		int master;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = forkpty(&master, NULL, NULL, NULL);
		if (!pid) {
			signal(SIGHUP, SIG_IGN);
			setenv("TERM", "xterm", 1);
			alarm(10);
			execl("./kprofctl", "kprofctl", "report", "-i", REC, "--tui", "--kallsyms",
			      "/dev/null", (char *)NULL);
			_exit(127);
		}
		/* the first screen, then the hangup */
		if (pid > 0 && read(master, buf, sizeof(buf)) > 0)
			usleep(200000);
		if (pid > 0)
			close(master);
		status = -1;
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
			memset(&ru, 0, sizeof(ru));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		wall = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		ok(pid > 0 && WIFEXITED(status) && wall < 2 && cpu < 0.5,
		   "report --tui on a terminal that hangs up: ends (status %#x, %.2f s, %.2f s CPU)",
		   status, wall, cpu);
	}
}

int main(void)
{
	tmpdir__create(root, sizeof(root));
	test_lib();
	test_commands();
	tmpdir__remove(root);
	return done_testing();
}
