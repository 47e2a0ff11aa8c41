// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound workload for `make bench`.
 *
 *	workload SECONDS
 *	workload --pingpong SECONDS
 *	workload --lockpipe SECONDS
 *	workload --pipeself SECONDS
 *
 * Does units of work for SECONDS of CLOCK_MONOTONIC time and prints how many
 * it completed per second.  Under QEMU's -icount (one vCPU), guest time is
 * the number of instructions executed, so the throughput drops by exactly
 * the share of instructions a profiler spends (interrupts, handlers, its
 * reader process): overhead = 1 - throughput / baseline throughput.
 *
 * A unit is a few hundred thousand instructions spread over a chain of
 * nested, non-inlined functions, so that frame-pointer call chains (built
 * with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer) are 5 to 10
 * frames deep: main -> run -> unit -> stage -> mix -> round -> leaf.
 *
 * Output, on stdout:
 *	workload: seconds=5.000012 units=45123 throughput=9024.58
 *	workload: parent=perf parent_cpu_ns=123456
 * The second line (the CPU-bound mode only) is the CPU time the parent
 * process (a recorder that runs the workload, as `perf record -- workload`
 * and `kprofctl record -- workload` do) took during the timed part, from
 * the scheduler's runtime in /proc/PPID/schedstat: in guest instructions
 * under -icount, the recorder's own share of the profiler's cost.
 *
 * --pingpong is the context-switch-heavy mode: a parent and a child process
 * pass one byte back and forth over two pipes for SECONDS; a unit is a round
 * trip, which on one CPU is two context switches (parent -> child -> parent).
 *
 * --lockpipe contends a kernel mutex on one CPU, where a holder is
 * rarely preempted inside its critical section: LOCKPIPE_WRITERS child
 * processes write a page at a time into one 1 MiB pipe that the parent
 * drains 256 KiB at a time; a unit is 256 KiB read.  Each writer's page is
 * registered with userfaultfd and dropped before every write, so
 * pipe_write() faults on it with the pipe's mutex held and sleeps until
 * the writer's fault thread, after letting the others run, maps a zero
 * page: meanwhile the other writers and the reader block on the mutex
 * (lock:contention_begin/_end, about one contention per write, none
 * spinning: the owner is off the CPU).
 *
 * --pipeself takes the same mutex with no contention: one process writes a
 * byte into its own pipe and reads it back; a unit is a round trip (two
 * uncontended mutex_lock() fast paths, where the contention tracepoints are
 * not reached).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <sched.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define NOINLINE __attribute__((noinline))

/* Keeps the compiler from folding or dropping the work. */
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The innermost frame: some dependent integer arithmetic.  GCC 12 ignores
 * -mno-omit-leaf-frame-pointer in a leaf that needs no stack, which hides
 * the caller from frame-pointer unwinding; a volatile local gives it a frame.
 */
static NOINLINE uint64_t leaf(uint64_t x, unsigned int n)
{
	volatile unsigned int frame = n;
	unsigned int i;

	for (i = 0; i < frame; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		x += i;
	}
	return x;
}

static NOINLINE uint64_t round_(uint64_t x, unsigned int n)
{
	/* Work after the call keeps it from becoming a tail call. */
	x = leaf(x, n) * 0x9e3779b97f4a7c15ULL;
	return x ^ (x >> 29);
}

static NOINLINE uint64_t mix(uint64_t x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		x = round_(x + i, n) + 1;
	x += leaf(x, n / 4);		/* a shallower leaf, too */
	return x;
}

static NOINLINE uint64_t stage(uint64_t x, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		x = mix(x, n) ^ i;
	return x + 3;
}

/* One unit of work: about 100k instructions. */
static NOINLINE uint64_t unit(uint64_t x)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		x = stage(x, 300) + i;
	return x * 3;
}

/* The parent's scheduler runtime in ns (/proc/PPID/schedstat's first field), or 0. */
static uint64_t parent_runtime_ns(void)
{
	unsigned long long ns = 0;
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)getppid());
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* The parent's command name, for the output line. */
static void parent_comm(char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(buf, len, "-");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)getppid());
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n ")] = 0;
	else
		snprintf(buf, len, "-");
	fclose(f);
}

static NOINLINE uint64_t run(uint64_t duration_ns, uint64_t *elapsed_ns)
{
	uint64_t start, end, units = 0, x = 0x12345678;

	start = now_ns();
	end = start + duration_ns;
	do {
		x = unit(x);
		units++;
	} while (now_ns() < end);
	*elapsed_ns = now_ns() - start;
	sink = x;
	return units;
}

/*
 * Round trips of one byte between this process and a child over two pipes,
 * for duration_ns.  The child echoes until its input pipe closes.
 */
static NOINLINE uint64_t pingpong(uint64_t duration_ns, uint64_t *elapsed_ns)
{
	int to_child[2], to_parent[2];
	uint64_t start, end, units = 0;
	char c = 'x';
	pid_t pid;

	if (pipe(to_child) || pipe(to_parent)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		while (read(to_child[0], &c, 1) == 1)
			if (write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	start = now_ns();
	end = start + duration_ns;
	do {
		unsigned int i;

		for (i = 0; i < 16; i++) {
			if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1) {
				perror("pingpong");
				exit(1);
			}
			units++;
		}
	} while (now_ns() < end);
	*elapsed_ns = now_ns() - start;
	close(to_child[1]);
	waitpid(pid, NULL, 0);
	return units;
}

#define LOCKPIPE_WRITERS	4
#define LOCKPIPE_BLOCK		(256 << 10)

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* A writer's fault thread: maps a zero page at each missing-page fault. */
static void *lockpipe_faults(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	int uffd = *(int *)arg;
	struct uffd_msg msg;

	for (;;) {
		struct uffdio_zeropage zp = { 0 };
		ssize_t n = read(uffd, &msg, sizeof(msg));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(msg))
			die("userfaultfd read");
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		/*
		 * On one CPU the faulting writer, woken at once, would run
		 * again before anyone else asks for the mutex it holds:
		 * let the others run into it first.
		 */
		sched_yield();
		zp.range.start = msg.arg.pagefault.address & ~(uint64_t)(page - 1);
		zp.range.len = page;
		if (ioctl(uffd, UFFDIO_ZEROPAGE, &zp) && errno != EEXIST)
			die("UFFDIO_ZEROPAGE");
	}
	return NULL;
}

/*
 * lockpipe_writer - a child writing a page that faults inside pipe_write(),
 * with the pipe's mutex held, every time; ends on EPIPE.
 */
static NOINLINE void lockpipe_writer(int fd)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	long page = sysconf(_SC_PAGESIZE);
	pthread_t th;
	char *buf;
	int uffd;

	buf = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		die("userfaultfd");
	reg.range.start = (uintptr_t)buf;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_API, &api) || ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("userfaultfd register");
	errno = pthread_create(&th, NULL, lockpipe_faults, &uffd);
	if (errno)
		die("pthread_create");
	for (;;) {
		if (madvise(buf, page, MADV_DONTNEED))
			die("madvise");
		if (write(fd, buf, page) <= 0)
			_exit(0);
	}
}

static NOINLINE uint64_t lockpipe(uint64_t duration_ns, uint64_t *elapsed_ns)
{
	static char buf[LOCKPIPE_BLOCK];
	pid_t pids[LOCKPIPE_WRITERS];
	uint64_t start, end, units = 0;
	size_t got = 0;
	int p[2], i;

	if (pipe(p)) {
		perror("pipe");
		exit(1);
	}
	/* room for four blocks: writers copy without waiting for space */
	if (fcntl(p[1], F_SETPIPE_SZ, 4 * LOCKPIPE_BLOCK) < 0) {
		perror("F_SETPIPE_SZ");
		exit(1);
	}
	memset(buf, 'x', sizeof(buf));
	for (i = 0; i < LOCKPIPE_WRITERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("fork");
			exit(1);
		}
		if (pids[i] == 0) {
			close(p[0]);
			lockpipe_writer(p[1]);
		}
	}
	close(p[1]);
	start = now_ns();
	end = start + duration_ns;
	do {
		ssize_t n = read(p[0], buf, sizeof(buf));

		if (n <= 0) {
			perror("lockpipe");
			exit(1);
		}
		got += n;
		for (; got >= LOCKPIPE_BLOCK; got -= LOCKPIPE_BLOCK)
			units++;
	} while (now_ns() < end);
	*elapsed_ns = now_ns() - start;
	/* the writers end on EPIPE */
	close(p[0]);
	for (i = 0; i < LOCKPIPE_WRITERS; i++)
		waitpid(pids[i], NULL, 0);
	return units;
}

static NOINLINE uint64_t pipeself(uint64_t duration_ns, uint64_t *elapsed_ns)
{
	uint64_t start, end, units = 0;
	char c = 'x';
	int p[2];

	if (pipe(p)) {
		perror("pipe");
		exit(1);
	}
	start = now_ns();
	end = start + duration_ns;
	do {
		unsigned int i;

		for (i = 0; i < 16; i++) {
			if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) {
				perror("pipeself");
				exit(1);
			}
			units++;
		}
	} while (now_ns() < end);
	*elapsed_ns = now_ns() - start;
	close(p[0]);
	close(p[1]);
	return units;
}

int main(int argc, char **argv)
{
	uint64_t units, elapsed, parent0 = 0, parent1 = 0;
	char comm[32];
	char *endp;
	double secs;

	static const char * const modes[] = { "--pingpong", "--lockpipe", "--pipeself" };
	int mode = 0;

	if (argc == 3) {
		for (mode = 1; mode <= 3; mode++)
			if (!strcmp(argv[1], modes[mode - 1]))
				break;
		if (mode > 3) {
			fprintf(stderr, "%s: unknown mode '%s'\n", argv[0], argv[1]);
			return 2;
		}
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: %s [--pingpong|--lockpipe|--pipeself] SECONDS\n", argv[0]);
		return 2;
	}
	errno = 0;
	secs = strtod(argv[1], &endp);
	if (errno || endp == argv[1] || *endp || !(secs > 0 && secs <= 3600)) {
		fprintf(stderr, "%s: bad SECONDS '%s' (0 < SECONDS <= 3600)\n", argv[0], argv[1]);
		return 2;
	}
	if (mode == 1)
		units = pingpong((uint64_t)(secs * 1e9), &elapsed);
	else if (mode == 2)
		units = lockpipe((uint64_t)(secs * 1e9), &elapsed);
	else if (mode == 3)
		units = pipeself((uint64_t)(secs * 1e9), &elapsed);
	else {
		parent0 = parent_runtime_ns();
		units = run((uint64_t)(secs * 1e9), &elapsed);
		parent1 = parent_runtime_ns();
	}
	printf("workload: seconds=%.6f units=%llu throughput=%.2f\n", elapsed / 1e9,
	       (unsigned long long)units, units / (elapsed / 1e9));
	if (mode == 0) {
		parent_comm(comm, sizeof(comm));
		printf("workload: parent=%s parent_cpu_ns=%llu\n", comm,
		       (unsigned long long)(parent1 - parent0));
	}
	return 0;
}
