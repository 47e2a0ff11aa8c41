/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kprof selftests: raw generic netlink (no libnl, so
 * that tests can build any malformed message they like), module loading and
 * privilege dropping.
 */
#ifndef _KPROF_TEST_H
#define _KPROF_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/kprof.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

#define KT_BUF		32768
#define KT_MAX_ATTR	64

/* A netlink request under construction, or a reply being read. */
struct kt_msg {
	union {
		struct nlmsghdr nlh;
		char buf[KT_BUF];
	};
	/* the first reply, and its attributes by type (NULL when absent) */
	char reply[KT_BUF];
	struct nlattr *tb[KT_MAX_ATTR];
	/* error of the last transaction, 0 on success */
	int err;
	/* extack text of the last error, "" when none */
	char extack[256];
};

static inline int kt_nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Start a request: nlmsghdr + genlmsghdr. */
static inline void kt_msg_init(struct kt_msg *m, uint16_t type, uint8_t cmd,
			       uint8_t version)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = type;
	m->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m->nlh.nlmsg_seq = 1;
	g = NLMSG_DATA(&m->nlh);
	g->cmd = cmd;
	g->version = version;
}

static inline struct genlmsghdr *kt_genl_hdr(struct kt_msg *m)
{
	return NLMSG_DATA(&m->nlh);
}

/* Append an attribute with any type and payload, valid or not. */
static inline void kt_put(struct kt_msg *m, uint16_t type, const void *data,
			  uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static inline void kt_put_u32(struct kt_msg *m, uint16_t type, uint32_t v)
{
	kt_put(m, type, &v, sizeof(v));
}

static inline void kt_put_str(struct kt_msg *m, uint16_t type, const char *s)
{
	kt_put(m, type, s, strlen(s) + 1);
}

static inline void kt_parse_attrs(struct kt_msg *m, struct nlattr *a, int len)
{
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type < KT_MAX_ATTR)
			m->tb[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* The extack text of an NLMSG_ERROR, or of an NLMSG_DONE that ends a dump in error. */
static inline void kt_parse_extack(struct kt_msg *m, struct nlmsghdr *nlh)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	int off = sizeof(*e);
	struct nlattr *a;
	int len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_type == NLMSG_DONE)
		off = NLMSG_ALIGN(sizeof(int));	/* the dump's error, then the TLVs */
	else if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	len = (int)nlh->nlmsg_len - NLMSG_HDRLEN - off;
	a = (struct nlattr *)((char *)e + off);
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	       a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG) {
			snprintf(m->extack, sizeof(m->extack), "%.*s",
				 (int)(a->nla_len - NLA_HDRLEN),
				 (char *)a + NLA_HDRLEN);
			return;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
	}
}

/*
 * Send @m and read the answer into @m: the reply's attributes in m->tb
 * (pointing into m->reply), or the error in m->err and its extack text in
 * m->extack.  Reads up to the ACK, so the socket is left clean.  Returns
 * m->err.
 */
static inline int kt_transact(int fd, struct kt_msg *m)
{
	uint32_t seq = ++m->nlh.nlmsg_seq;
	bool got_reply = false;
	char rx[KT_BUF];
	ssize_t n;

	if (send(fd, m->buf, m->nlh.nlmsg_len, 0) < 0)
		return m->err = -errno;

	memset(m->tb, 0, sizeof(m->tb));
	m->err = 0;
	m->extack[0] = '\0';
	for (;;) {
		struct nlmsghdr *nlh;
		int len;

		n = recv(fd, rx, sizeof(rx), 0);
		if (n < 0)
			return m->err = -errno;
		len = n;
		for (nlh = (struct nlmsghdr *)rx; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* a stale answer */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(nlh);

				m->err = e->error;
				if (m->err)
					kt_parse_extack(m, nlh);
				return m->err;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				/* a dump that failed says so here */
				if (nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(int *)NLMSG_DATA(nlh) < 0) {
					m->err = *(int *)NLMSG_DATA(nlh);
					kt_parse_extack(m, nlh);
				}
				return m->err;
			}
			if (!got_reply && nlh->nlmsg_len <= sizeof(m->reply)) {
				struct nlmsghdr *r = (struct nlmsghdr *)m->reply;

				got_reply = true;
				memcpy(r, nlh, nlh->nlmsg_len);
				kt_parse_attrs(m, (struct nlattr *)((char *)NLMSG_DATA(r) +
							    GENL_HDRLEN),
					       r->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			}
		}
	}
}

/* The id of generic netlink family @name, or a negative errno. */
static inline int kt_family(int fd, const char *name)
{
	struct kt_msg m;
	int err;

	kt_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	kt_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	err = kt_transact(fd, &m);
	if (err)
		return err;
	if (!m.tb[CTRL_ATTR_FAMILY_ID])
		return -EPROTO;
	return *(uint16_t *)((char *)m.tb[CTRL_ATTR_FAMILY_ID] + NLA_HDRLEN);
}

static inline uint32_t kt_u32(const struct nlattr *a)
{
	uint32_t v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline uint64_t kt_u64(const struct nlattr *a)
{
	uint64_t v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static inline const char *kt_str(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

/* Nanoseconds on @clock (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...). */
static inline uint64_t kt_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Nanoseconds the calling thread has waited on a runqueue, runnable but
 * not running (run_delay, /proc/thread-self/schedstat's second field); 0
 * when the kernel does not say (no CONFIG_SCHED_INFO).
 */
static inline uint64_t kt_run_delay_ns(void)
{
	unsigned long long run = 0, delay = 0;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

/* Is kprof.ko loaded (its family registered)? */
static inline bool kt_kprof_loaded(void)
{
	int fd = kt_nl_open();
	int id;

	if (fd < 0)
		return false;
	id = kt_family(fd, KPROF_FAMILY_NAME);
	close(fd);
	return id > 0;
}

/* The module to load: $KPROF_KO, else ./kprof.ko. */
static inline const char *kt_ko_path(void)
{
	const char *p = getenv("KPROF_KO");

	return p && *p ? p : "kprof.ko";
}

static inline int kt_load(void)
{
	int fd, ret;

	fd = open(kt_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret;
}

static inline int kt_unload(void)
{
	return syscall(SYS_delete_module, "kprof", O_NONBLOCK) ? -errno : 0;
}

/* Make sure kprof.ko is loaded; 0 or a negative errno. */
static inline int kt_ensure_loaded(void)
{
	int ret;

	if (kt_kprof_loaded())
		return 0;
	ret = kt_load();
	return ret == -EEXIST ? 0 : ret;
}

/*
 * Drop CAP_PERFMON and CAP_SYS_ADMIN from the effective and permitted sets
 * while staying uid 0: what is left (CAP_DAC_OVERRIDE among others) gets
 * past file modes, so only kprof's own privilege check can refuse.
 */
static inline int kt_drop_perfmon(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
	d[CAP_PERFMON / 32].effective &= ~(1u << (CAP_PERFMON % 32));
	d[CAP_PERFMON / 32].permitted &= ~(1u << (CAP_PERFMON % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* Become nobody:nogroup, with no supplementary groups and no capabilities. */
static inline int kt_become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -errno;
	return 0;
}

/*
 * Send the START in @m; on success, the ring geometry of its reply in
 * *@stride and *@nr_cpus.  A reply without the session id, the stride or
 * the CPU count is -EPROTO.
 */
/* The id of the session kt_start() last started: what kt_reader_open() binds. */
static uint64_t kt_session_id;

static inline int kt_start(int fd, struct kt_msg *m, uint64_t *stride, unsigned int *nr_cpus)
{
	int ret = kt_transact(fd, m);

	if (ret)
		return ret;
	if (!m->tb[KPROF_A_SESSION_ID] || !m->tb[KPROF_A_SESSION_MMAP_STRIDE] ||
	    !m->tb[KPROF_A_STATUS_NR_CPUS])
		return -EPROTO;
	kt_session_id = kt_u64(m->tb[KPROF_A_SESSION_ID]);
	*stride = kt_u64(m->tb[KPROF_A_SESSION_MMAP_STRIDE]);
	*nr_cpus = kt_u32(m->tb[KPROF_A_STATUS_NR_CPUS]);
	return 0;
}

/*
 * Fork a child that waits for kt_go() before going on: a session start can
 * take long (RCU grace periods, more so on PREEMPT_RT), and the child must
 * not be done before it is profiled.  With @comm, the child is named before
 * it waits, so that every record shows the name.  Returns the child's pid
 * (and the go descriptor in *@go_fd) to the parent, 0 to the released
 * child, -1 on failure.
 */
static inline pid_t kt_fork_after_go(const char *comm, int *go_fd)
{
	int fds[2];
	pid_t pid;
	char x;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (comm)
			prctl(PR_SET_NAME, comm);
		close(fds[1]);
		if (read(fds[0], &x, 1) != 1)
			_exit(1);
		close(fds[0]);
		return 0;
	}
	close(fds[0]);
	if (pid < 0) {
		close(fds[1]);
		return -1;
	}
	*go_fd = fds[1];
	return pid;
}

/* Release a child of kt_fork_after_go(). */
static inline void kt_go(int go_fd)
{
	if (write(go_fd, "g", 1) != 1)
		perror("go");
	close(go_fd);
}

#endif /* _KPROF_TEST_H */
