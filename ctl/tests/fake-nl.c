// SPDX-License-Identifier: GPL-2.0
/*
 * A fake kprof.ko for the unit tests; see fake-nl.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "fake-count.h"
#include "fake-nl.h"
#include "lib/nl.h"
#include "lib/ring.h"
#include "lib/util.h"
#include "nlbuild.h"

#define FAKE_FAMILY	0x1d

struct fake_kprof fake;

struct kp_nl {
	int	family;
	uint64_t	session;
};

static uint64_t fake_clock_ns(void)
{
	return fake.now_ns;
}

void fake_kprof__reset(void)
{
	int nr_open = fake.nr_open;

	memset(&fake, 0, sizeof(fake));
	fake.nr_open = nr_open;
	/* Ten days after boot; loaded_ns must not depend on the host's uptime. */
	fake.now_ns = 864000ULL * 1000000000ULL;
	kp_clock_ns = fake_clock_ns;
	fake.loaded = true;
	fake.abi = KPROF_ABI_VERSION;
	fake.release = "0.1.0";
	fake.kernel = "6.1.0-test";
	fake.privileged = true;
	fake.status.state = KPROF_STATE_IDLE;
	fake.status.nr_cpus = 4;
	fake.status.online_cpus = 4;
	fake.status.sessions = 0;
	fake.status.readers = 0;
	fake.status.loaded_ns = fake.now_ns - 3723ULL * 1000000000ULL;
}

struct kp_nl *kp_nl__open(struct kp_err *err)
{
	struct kp_nl *nl;

	if (fake.open_errno) {
		kp_err__set(err, fake.open_errno, "cannot open a generic netlink socket: %s",
			    strerror(fake.open_errno));
		return NULL;
	}
	if (!fake.loaded) {
		kp_err__set(err, ENOENT, "kprof module not loaded (insmod kprof.ko)");
		err->not_loaded = true;
		return NULL;
	}
	nl = calloc(1, sizeof(*nl));
	if (!nl)
		abort();
	nl->family = FAKE_FAMILY;
	fake.nr_open++;
	return nl;
}

void kp_nl__delete(struct kp_nl *nl)
{
	if (!nl)
		return;
	fake.nr_open--;
	free(nl);
}

int kp_nl__family(const struct kp_nl *nl)
{
	return nl->family;
}

/* No socket behind the fake: a child's close() of it does nothing. */
int kp_nl__fd(const struct kp_nl *nl)
{
	(void)nl;
	return -1;
}

uint64_t kp_nl__session(const struct kp_nl *nl)
{
	return nl->session;
}

void kp_nl__set_session(struct kp_nl *nl, uint64_t id)
{
	nl->session = id;
}

/* As the kernel's NL_SET_ERR_MSG_ATTR(): the message and @bad's offset. */
static int fake_error_attr(int errnum, const char *extack, const struct nlmsghdr *nlh,
			   const struct nlattr *bad, struct kp_err *err)
{
	struct nlbuf b;

	nlbuf__error(&b, -errnum, NLM_F_CAPPED | (extack ? NLM_F_ACK_TLVS : 0), 0);
	if (extack)
		nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, extack);
	if (extack && bad)
		nlbuf__attr_u32(&b, NLMSGERR_ATTR_OFFS,
				(uint32_t)((const char *)bad - (const char *)nlh));
	kp_err__from_nlerr(err, nlbuf__data(&b), b.len);
	return -err->errnum;
}

int fake_error(int errnum, const char *extack, struct kp_err *err)
{
	return fake_error_attr(errnum, extack, NULL, NULL, err);
}

static void fake_put(struct nl_msg *msg, int type, const void *data, int len)
{
	char buf[64] = { 0 };

	if (type == fake.omit_attr)
		return;
	if (type == fake.bad_len_attr) {
		memcpy(buf, data, len);
		len += 2;
		data = buf;
	}
	if (nla_put(msg, type, len, data) < 0)
		abort();
}

static void fake_put_u32(struct nl_msg *msg, int type, uint32_t val)
{
	fake_put(msg, type, &val, sizeof(val));
}

/* Like the kernel's nla_put_u64_64bit(): pad so the payload is aligned. */
static void fake_put_u64(struct nl_msg *msg, int type, uint64_t val)
{
	if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
	    nla_put(msg, KPROF_A_PAD, 0, NULL) < 0)
		abort();
	fake_put(msg, type, &val, sizeof(val));
}

static void fake_put_string(struct nl_msg *msg, int type, const char *s)
{
	fake_put(msg, type, s, strlen(s) + 1);
}

static int fake_version(struct nlattr **tb, struct nl_msg *reply, struct kp_err *err)
{
	char extack[128];

	fake.saw_client = tb[KPROF_A_VERSION_CLIENT];
	if (fake.saw_client) {
		snprintf(fake.client, sizeof(fake.client), "%s",
			 (char *)nla_data(tb[KPROF_A_VERSION_CLIENT]));
	}
	/* Remember what the last request carried. */
	fake.saw_abi = tb[KPROF_A_VERSION_ABI];
	if (fake.saw_abi)
		fake.client_abi = nla_get_u32(tb[KPROF_A_VERSION_ABI]);
	if (fake.refuse_all ||
	    (fake.saw_abi && !fake.no_abi_check &&
	     KPROF_ABI_VERSION_MAJOR(fake.client_abi) != KPROF_ABI_VERSION_MAJOR(fake.abi))) {
		snprintf(extack, sizeof(extack), "client ABI %u.x is not supported, kprof.ko has %u.%u",
			 KPROF_ABI_VERSION_MAJOR(fake.client_abi),
			 KPROF_ABI_VERSION_MAJOR(fake.abi), KPROF_ABI_VERSION_MINOR(fake.abi));
		return fake_error(EPROTO, extack, err);
	}
	fake_put_u32(reply, KPROF_A_VERSION_ABI, fake.abi);
	fake_put_string(reply, KPROF_A_VERSION_RELEASE, fake.release);
	fake_put_string(reply, KPROF_A_VERSION_KERNEL, fake.kernel);
	return 0;
}

/* A KPROF_A_STATS nest: every counter, and the CPU for per-CPU stats. */
static void fake_put_stats(struct nl_msg *msg, const struct kp_stats *st)
{
	struct nlattr *nest = nla_nest_start(msg, KPROF_A_STATS);
	unsigned int i;

	if (!nest)
		abort();
	if (st->has_cpu && nla_put_u32(msg, KPROF_STATS_A_CPU, st->cpu) < 0)
		abort();
	for (i = 0; i < KP_STATS_NR; i++) {
		if ((int)(KPROF_STATS_A_INVOCATIONS + i) == fake.omit_stat)
			continue;
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
		    nla_put(msg, KPROF_STATS_A_PAD, 0, NULL) < 0)
			abort();
		if (nla_put_u64(msg, KPROF_STATS_A_INVOCATIONS + i, st->v[i]) < 0)
			abort();
	}
	for (i = 0; st->has_agg && i < KP_AGG_STATS_NR; i++) {
		if ((int)(KPROF_STATS_A_AGG_SAMPLES + i) == fake.omit_stat)
			continue;
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
		    nla_put(msg, KPROF_STATS_A_PAD, 0, NULL) < 0)
			abort();
		if (nla_put_u64(msg, KPROF_STATS_A_AGG_SAMPLES + i, st->agg[i]) < 0)
			abort();
	}
	for (i = 0; st->has_agg_use && i < KP_AGG_USE_NR; i++) {	/* ABI 1.14 */
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
		    nla_put(msg, KPROF_STATS_A_PAD, 0, NULL) < 0)
			abort();
		if (nla_put_u64(msg, KPROF_STATS_A_AGG_HIGH + i, st->agg_use[i]) < 0)
			abort();
	}
	if (st->has_filtered) {
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
		    nla_put(msg, KPROF_STATS_A_PAD, 0, NULL) < 0)
			abort();
		if (nla_put_u64(msg, KPROF_STATS_A_FILTERED, st->filtered) < 0)
			abort();
	}
	if (st->has_nested) {	/* an ABI 1.1 module */
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8 &&
		    nla_put(msg, KPROF_STATS_A_PAD, 0, NULL) < 0)
			abort();
		if (nla_put_u64(msg, KPROF_STATS_A_LOST_RECURSION, st->lost_recursion) < 0 ||
		    nla_put_u64(msg, KPROF_STATS_A_NESTED, st->nested) < 0 ||
		    nla_put_u64(msg, KPROF_STATS_A_LOST_COST, st->lost_cost) < 0)
			abort();
	}
	nla_nest_end(msg, nest);
}

/* What a session nest and a counting session nest have in common. */
static void fake_put_row(struct nl_msg *reply, const struct kp_count_row *c)
{
	fake_put_u64(reply, KPROF_A_SESSION_ID, c->id);
	fake_put_u32(reply, KPROF_A_STATUS_STATE, c->state);
	fake_put_u32(reply, KPROF_A_SESSION_FLAGS, c->flags);
	fake_put_u32(reply, KPROF_A_SESSION_OWNER_PID, c->owner_pid);
	fake_put_u32(reply, KPROF_A_SESSION_UID, c->uid);
	fake_put_u64(reply, KPROF_A_SESSION_START_NS, c->start_ns);
	fake_put_u32(reply, KPROF_A_SESSION_NR_EVENTS, c->nr_events);
	fake_put_u64(reply, KPROF_A_SESSION_MEMORY, c->mem);
}

static int fake_status(struct nl_msg *reply, struct kp_err *err)
{
	const struct kp_status_info *st = &fake.status;
	unsigned int i;

	if (!fake.privileged)
		return fake_error(EPERM, "kprof status needs CAP_PERFMON", err);
	fake_put_u32(reply, KPROF_A_STATUS_STATE, st->state);
	fake_put_u32(reply, KPROF_A_STATUS_NR_CPUS, st->nr_cpus);
	fake_put_u32(reply, KPROF_A_STATUS_ONLINE_CPUS, st->online_cpus);
	fake_put_u64(reply, KPROF_A_STATUS_SESSIONS, st->sessions);
	fake_put_u32(reply, KPROF_A_STATUS_READERS, st->readers);
	fake_put_u64(reply, KPROF_A_STATUS_LOADED_NS, st->loaded_ns);
	if (st->has_budget) {
		fake_put_u64(reply, KPROF_A_STATUS_MEMORY, st->mem);
		fake_put_u64(reply, KPROF_A_STATUS_BUDGET, st->budget);
	}
	if (fake.session_id && st->state != KPROF_STATE_IDLE) {
		fake_put_u64(reply, KPROF_A_SESSION_ID, fake.session_id);
		fake_put_u32(reply, KPROF_A_SESSION_FLAGS, fake.session_flags);
		fake_put_u32(reply, KPROF_A_SESSION_BUFFER_SIZE, fake.buffer_size);
		fake_put_u64(reply, KPROF_A_SESSION_MMAP_STRIDE, fake.mmap_stride);
		fake_put_stats(reply, &fake.stats);
	}
	for (i = 0; i < fake.nr_table; i++) {
		const struct kp_session_row *r = &fake.table[i];
		struct nlattr *nest = nla_nest_start(reply, KPROF_A_SESSION);

		fake_put_row(reply, &(struct kp_count_row){ .id = r->id, .state = r->state,
			.flags = r->flags, .owner_pid = r->owner_pid, .uid = r->uid,
			.start_ns = r->start_ns, .nr_events = r->nr_events, .mem = r->mem });
		fake_put_stats(reply, &r->stats);
		nla_nest_end(reply, nest);
	}
	for (i = 0; i < st->nr_counts; i++) {	/* ABI 1.14 */
		struct nlattr *nest = nla_nest_start(reply, KPROF_A_COUNT_SESSION);

		fake_put_row(reply, &st->counts[i]);
		nla_nest_end(reply, nest);
	}
	return 0;
}

void fake_ring__put(void *map, uint64_t stride, uint32_t cpu, const void *rec, size_t size)
{
	struct kprof_mmap_page *page = (void *)((char *)map + cpu * stride);
	unsigned char *data = (unsigned char *)page + page->data_offset;
	uint64_t head = page->data_head, off, first;

	off = head & (page->data_size - 1);
	first = page->data_size - off;
	if (first > size)
		first = size;
	memcpy(data + off, rec, first);
	memcpy(data, (const char *)rec + first, size - first);
	__atomic_store_n(&page->data_head, head + size, __ATOMIC_RELEASE);
}

/* Create the device file with its control pages. */
static void fake_device(void)
{
	uint64_t stride = fake.mmap_stride, cpu;
	struct kprof_mmap_page *page;
	void *map;
	int fd;

	if (!fake.device_path)
		return;
	fd = open(fake.device_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, stride * fake.status.nr_cpus))
		abort();
	map = mmap(NULL, stride * fake.status.nr_cpus, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		abort();
	for (cpu = 0; cpu < fake.status.nr_cpus; cpu++) {
		page = (void *)((char *)map + cpu * stride);
		page->version = KPROF_MMAP_VERSION;
		page->compat_version = KPROF_MMAP_VERSION;
		page->size = sizeof(*page);
		page->cpu = cpu;
		page->session_id = fake.session_id;
		page->data_offset = FAKE_PAGE_SIZE;
		page->data_size = fake.buffer_size;
	}
	if (fake.on_start)
		fake.on_start(map, fake.status.nr_cpus, stride);
	munmap(map, stride * fake.status.nr_cpus);
	close(fd);
}

/* Is the payload of @nla 8-byte aligned within the message @nlh? */
static bool fake_aligned(const struct nlmsghdr *nlh, const struct nlattr *nla)
{
	return ((const char *)nla_data(nla) - (const char *)nlh) % 8 == 0;
}

static const struct nla_policy fake_ev_policy[KPROF_EV_A_MAX + 1] = {
	[KPROF_EV_A_TYPE]	= { .type = NLA_U32 },
	[KPROF_EV_A_CONFIG]	= { .type = NLA_U64 },
	[KPROF_EV_A_FLAGS]	= { .type = NLA_U32 },
	[KPROF_EV_A_NAME]	= { .type = NLA_STRING, .maxlen = KPROF_EVENT_NAME_MAX },
	[KPROF_EV_A_PAD]	= { .type = NLA_UNSPEC },
};

static int fake_start(const struct nlmsghdr *nlh, struct nlattr **tb, struct nl_msg *reply,
		      struct kp_err *err)
{
	struct kp_session *s = &fake.start_req;
	struct nlattr *nla, *etb[KPROF_EV_A_MAX + 1];
	int rem;

	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	if (fake.start_errno)
		return fake_error(fake.start_errno, fake.start_extack, err);
	if (fake.status.state == KPROF_STATE_RUNNING)
		return fake_error(EBUSY, "a session is running", err);

	memset(s, 0, sizeof(*s));
	fake.saw_period = tb[KPROF_A_SESSION_PERIOD];
	fake.saw_watermark = tb[KPROF_A_SESSION_WATERMARK];
	if (!tb[KPROF_A_SESSION_FLAGS] || !tb[KPROF_A_SESSION_BUFFER_SIZE] ||
	    !tb[KPROF_A_SESSION_STACK_DEPTH])
		return fake_error(EINVAL, "missing attribute", err);
	if (!!tb[KPROF_A_SESSION_FREQ] == !!tb[KPROF_A_SESSION_PERIOD])
		return fake_error(EINVAL, "exactly one of freq and period", err);
	s->flags = nla_get_u32(tb[KPROF_A_SESSION_FLAGS]);
	if (tb[KPROF_A_SESSION_FREQ])
		s->freq = nla_get_u32(tb[KPROF_A_SESSION_FREQ]);
	if (tb[KPROF_A_SESSION_PERIOD]) {
		s->period = nla_get_u64(tb[KPROF_A_SESSION_PERIOD]);
		fake.nr_unaligned_u64 += !fake_aligned(nlh, tb[KPROF_A_SESSION_PERIOD]);
	}
	s->buffer_size = nla_get_u32(tb[KPROF_A_SESSION_BUFFER_SIZE]);
	s->stack_depth = nla_get_u32(tb[KPROF_A_SESSION_STACK_DEPTH]);
	if (tb[KPROF_A_SESSION_WATERMARK])
		s->watermark = nla_get_u32(tb[KPROF_A_SESSION_WATERMARK]);
	if (tb[KPROF_A_SESSION_USER_STACK]) {	/* as kprof.ko checks it (ABI 1.16) */
		s->user_stack = nla_get_u32(tb[KPROF_A_SESSION_USER_STACK]);
		if (s->user_stack > KPROF_USER_STACK_MAX)
			return fake_error(ERANGE, "integer out of range", err);
		if (s->user_stack % 8)
			return fake_error(EINVAL, "kprof: user stack bytes must be a multiple of 8",
					  err);
		if (s->user_stack && (!(s->flags & KPROF_SESSION_F_USER_STACK) ||
				      !kp_session__streams(s)))
			return fake_error(EINVAL,
					  "kprof: a user stack copy needs user call chains in a stream",
					  err);
	}
	if (tb[KPROF_A_SESSION_AGG_ENTRIES]) {
		if (!(s->flags & KPROF_SESSION_F_AGGREGATE))
			return fake_error(EINVAL, "kprof: aggregation entries given to a session that does not aggregate",
					  err);
		s->agg_entries = nla_get_u32(tb[KPROF_A_SESSION_AGG_ENTRIES]);
	}
	if (tb[KPROF_A_SESSION_CPUS]) {
		if (!(s->flags & KPROF_SESSION_F_SYSTEM_WIDE))
			return fake_error(EINVAL, "CPUs without F_SYSTEM_WIDE", err);
		if (nla_len(tb[KPROF_A_SESSION_CPUS]) % 8 ||
		    nla_len(tb[KPROF_A_SESSION_CPUS]) > KPROF_MAX_CPUS_BYTES)
			return fake_error(EINVAL, "bad CPU bitmap", err);
		s->cpus_bytes = nla_len(tb[KPROF_A_SESSION_CPUS]);
		memcpy(s->cpus, nla_data(tb[KPROF_A_SESSION_CPUS]), s->cpus_bytes);
	}
	nla_for_each_attr(nla, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		/* kprof.ko's strict policy: KPROF_A_PAD is NLA_UNSPEC. */
		if (nla_type(nla) == KPROF_A_PAD)
			return fake_error(EINVAL, "Unsupported attribute", err);
		if (nla_type(nla) == KPROF_A_SESSION_PID) {
			if (s->flags & KPROF_SESSION_F_SYSTEM_WIDE)
				return fake_error(EINVAL, "PIDs with F_SYSTEM_WIDE", err);
			if (s->nr_pids >= KPROF_MAX_PIDS)
				return fake_error(E2BIG, "too many PIDs", err);
			s->pids[s->nr_pids++] = nla_get_u32(nla);
		}
		if (nla_type(nla) != KPROF_A_SESSION_EVENT)
			continue;
		fake.nr_unnested += !(nla->nla_type & NLA_F_NESTED);
		{
			struct nlattr *e;
			int erem;

			/* ... and the event policy's maxattr is KPROF_EV_A_NAME. */
			nla_for_each_nested(e, nla, erem)
				if (nla_type(e) > (fake.offcpu_events ? KPROF_EV_A_BP_LEN :
						   fake.symbol_events ? KPROF_EV_A_SYMBOL :
						   KPROF_EV_A_NAME))
					return fake_error(EINVAL, "Unknown attribute type", err);
		}
		if (s->nr_events >= KPROF_MAX_EVENTS)
			return fake_error(E2BIG, "too many events", err);
		if (fake.start_bad_event == (int)s->nr_events + 1)
			return fake_error_attr(EINVAL,
					       "kprof: cannot probe this function (missing, notrace or blacklisted)",
					       nlh, nla, err);
		if (nla_parse_nested(etb, KPROF_EV_A_MAX, nla, (struct nla_policy *)fake_ev_policy) ||
		    !etb[KPROF_EV_A_TYPE] || !etb[KPROF_EV_A_CONFIG] || !etb[KPROF_EV_A_FLAGS] ||
		    !etb[KPROF_EV_A_NAME])
			return fake_error(EINVAL, "bad event", err);
		s->events[s->nr_events].type = nla_get_u32(etb[KPROF_EV_A_TYPE]);
		s->events[s->nr_events].config = nla_get_u64(etb[KPROF_EV_A_CONFIG]);
		fake.nr_unaligned_u64 += !fake_aligned(nlh, etb[KPROF_EV_A_CONFIG]);
		s->events[s->nr_events].flags = nla_get_u32(etb[KPROF_EV_A_FLAGS]);
		snprintf(s->events[s->nr_events].name, KPROF_EVENT_NAME_MAX, "%s",
			 (char *)nla_data(etb[KPROF_EV_A_NAME]));
		if (etb[KPROF_EV_A_MIN_NS])
			s->events[s->nr_events].min_ns = nla_get_u64(etb[KPROF_EV_A_MIN_NS]);
		if (etb[KPROF_EV_A_MAX_NS])
			s->events[s->nr_events].max_ns = nla_get_u64(etb[KPROF_EV_A_MAX_NS]);
		s->nr_events++;
	}
	if (!s->nr_events)
		return fake_error(EINVAL, "no event", err);

	fake.session_id = ++fake.status.sessions;
	fake.status.state = KPROF_STATE_RUNNING;
	fake.session_flags = s->flags;
	fake.buffer_size = s->buffer_size;
	/* Without streaming, the rings shrink to their minimum. */
	if ((s->flags & KPROF_SESSION_F_AGGREGATE) && !(s->flags & KPROF_SESSION_F_STREAM))
		fake.buffer_size = KPROF_MIN_BUFFER_SIZE;
	if (!fake.mmap_stride)
		fake.mmap_stride = FAKE_PAGE_SIZE + s->buffer_size;
	fake_device();
	fake_put_u64(reply, KPROF_A_SESSION_ID, fake.session_id);
	fake_put_u32(reply, KPROF_A_SESSION_BUFFER_SIZE, fake.buffer_size);
	fake_put_u32(reply, KPROF_A_STATUS_NR_CPUS, fake.status.nr_cpus);
	fake_put_u64(reply, KPROF_A_SESSION_MMAP_STRIDE, fake.mmap_stride);
	return 0;
}

/* STOP among the sessions of fake.table (ABI 1.10), by KPROF_A_SESSION_ID or alone. */
static int fake_stop_table(struct nlattr **tb, struct nl_msg *reply, struct kp_err *err)
{
	uint64_t id = tb[KPROF_A_SESSION_ID] ? nla_get_u64(tb[KPROF_A_SESSION_ID]) : 0;
	struct kp_session_row *hit = NULL;
	unsigned int i, running = 0;

	for (i = 0; i < fake.nr_table; i++) {
		if (fake.table[i].state == KPROF_STATE_RUNNING) {
			running++;
			if (!id)
				hit = &fake.table[i];
		}
		if (id && fake.table[i].id == id)
			hit = &fake.table[i];
	}
	if (!id && running > 1)
		return fake_error(EINVAL, "kprof: several sessions run: name one (KPROF_A_SESSION_ID; kprofctl status lists them)", err);
	if (!hit)
		return fake_error(ENOENT, id ? "kprof: no session with this id" : "kprof: no session is running", err);
	if (hit->state != KPROF_STATE_RUNNING)
		return fake_error(ENOENT, "kprof: no session is running", err);
	hit->state = KPROF_STATE_STOPPED;
	fake_put_u64(reply, KPROF_A_SESSION_ID, hit->id);
	fake_put_stats(reply, &hit->stats);
	return 0;
}

static int fake_stop(struct nlattr **tb, struct nl_msg *reply, struct kp_err *err)
{
	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	fake.nr_stops++;
	if (fake.stop_errno)
		return fake_error(fake.stop_errno, "stop failed", err);
	if (fake.nr_table)
		return fake_stop_table(tb, reply, err);
	if (fake.status.state != KPROF_STATE_RUNNING)
		return fake_error(ENOENT, "no session is running", err);
	fake.status.state = KPROF_STATE_STOPPED;
	fake_put_u64(reply, KPROF_A_SESSION_ID, fake.session_id);
	fake_put_stats(reply, &fake.stats);
	return 0;
}

/* FREE (ABI 1.12): the session it names, stopped, its data saved. */
static int fake_free(struct nlattr **tb, struct kp_err *err)
{
	uint64_t id = tb[KPROF_A_SESSION_ID] ? nla_get_u64(tb[KPROF_A_SESSION_ID]) : 0;
	unsigned int i;

	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	if (!id)
		return fake_error(EINVAL, "kprof: FREE needs the session's id (KPROF_A_SESSION_ID)", err);
	fake.nr_frees++;
	fake.freed_id = id;
	for (i = 0; i < fake.nr_table; i++)
		if (fake.table[i].id == id && fake.table[i].state == KPROF_STATE_RUNNING)
			return fake_error(EBUSY, "kprof: the session is running: stop it first", err);
	if (!fake.nr_table && id == fake.session_id && fake.status.state == KPROF_STATE_RUNNING)
		return fake_error(EBUSY, "kprof: the session is running: stop it first", err);
	return 0;
}

/* The STATS dump: one message per CPU, each passed to @fn. */
static int fake_stats(struct kp_nl *nl, const struct nlmsghdr *req, struct nlattr **tb,
		      kp_nl_reply_fn fn, void *arg, struct kp_err *err)
{
	unsigned int i, running = 0;
	struct nl_msg *msg;
	struct kp_stats st;
	uint32_t cpu;
	int ret = 0;

	/* as the module: with several sessions running, a request names one */
	for (i = 0; i < fake.nr_table; i++)
		running += fake.table[i].state == KPROF_STATE_RUNNING;
	if (!tb[KPROF_A_SESSION_ID] && running > 1)
		return fake_error(EINVAL, "kprof: several sessions run: name one (KPROF_A_SESSION_ID; kprofctl status lists them)", err);

	if (!(req->nlmsg_flags & NLM_F_DUMP))
		return fake_error(EOPNOTSUPP, NULL, err);
	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	if (!fake.session_id || fake.status.state == KPROF_STATE_IDLE)
		return fake_error(ENOENT, "no session", err);
	for (cpu = 0; !ret && cpu < fake.status.nr_cpus; cpu++) {
		st = cpu < KP_ARRAY_SIZE(fake.cpu_stats) ? fake.cpu_stats[cpu] : (struct kp_stats){ 0 };
		st.has_cpu = true;
		st.cpu = cpu;
		msg = nlmsg_alloc();
		if (!msg || !genlmsg_put(msg, 0, 42, nl->family, 0, NLM_F_MULTI, KPROF_CMD_STATS,
					 KPROF_FAMILY_VERSION))
			abort();
		fake_put_stats(msg, &st);
		if (fn)
			ret = fn(nlmsg_hdr(msg), arg, err);
		nlmsg_free(msg);
	}
	return ret;
}

/* The end of a dump that failed: NLMSG_DONE with the error and an extack. */
int fake_done_error(int errnum, const char *extack, struct kp_err *err)
{
	struct nlbuf b;
	int error = -errnum;

	memset(&b, 0, sizeof(b));
	nlbuf__hdr(&b)->nlmsg_type = NLMSG_DONE;
	nlbuf__hdr(&b)->nlmsg_flags = NLM_F_MULTI | (extack ? NLM_F_ACK_TLVS : 0);
	nlbuf__hdr(&b)->nlmsg_seq = 42;
	memcpy(nlbuf__data(&b) + NLMSG_HDRLEN, &error, sizeof(error));
	b.len = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(error));
	if (extack)
		nlbuf__attr_str(&b, NLMSGERR_ATTR_MSG, extack);
	nlbuf__set_len(&b);
	kp_err__from_nlerr(err, nlbuf__data(&b), b.len);
	return -err->errnum;
}

static void fake_agg_put(struct nl_msg *msg, int type, const void *data, int len)
{
	char buf[4096 + 8] = { 0 };

	if (type == fake.agg_omit_attr)
		return;
	if (type == fake.agg_bad_attr) {
		memcpy(buf, data, len);
		data = buf;
		len += 3;
	}
	if (nla_put(msg, type, len, data) < 0)
		abort();
}

/* The AGG_MAPS dump: one message per kept mapping, as kprof.ko sends them. */
static int fake_agg_maps(struct kp_nl *nl, const struct nlmsghdr *req, kp_nl_reply_fn fn,
			 void *arg, struct kp_err *err)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	unsigned int i;
	int ret = 0;

	fake.nr_map_dumps++;
	if (!(req->nlmsg_flags & NLM_F_DUMP))
		return fake_error(EOPNOTSUPP, NULL, err);
	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	if (!fake.session_id || fake.status.state == KPROF_STATE_IDLE)
		return fake_done_error(ENOENT, "kprof: no session", err);
	if (!(fake.session_flags & KPROF_SESSION_F_AGGREGATE))
		return fake_done_error(EOPNOTSUPP, "kprof: the session does not aggregate", err);
	for (i = 0; !ret && i < fake.nr_maps; i++) {
		const struct fake_agg_map *m = &fake.maps[i];

		msg = nlmsg_alloc();
		if (!msg || !genlmsg_put(msg, 0, 42, nl->family, 0, NLM_F_MULTI,
					 KPROF_CMD_AGG_MAPS, KPROF_FAMILY_VERSION))
			abort();
		fake_put_u64(msg, KPROF_A_SESSION_ID, fake.session_id);
		nest = nla_nest_start(msg, KPROF_A_AGG_MAP);
		if (!nest || nla_put_u32(msg, KPROF_MAP_A_PID, m->pid) ||
		    nla_put_string(msg, KPROF_MAP_A_COMM, m->comm) ||
		    nla_put_u64(msg, KPROF_MAP_A_START, m->start) ||
		    nla_put_u64(msg, KPROF_MAP_A_LEN, m->len) ||
		    nla_put_u64(msg, KPROF_MAP_A_PGOFF, m->pgoff) ||
		    nla_put_u64(msg, KPROF_MAP_A_DEV, m->dev) ||
		    nla_put_u64(msg, KPROF_MAP_A_INO, m->ino) ||
		    nla_put_string(msg, KPROF_MAP_A_PATH, m->path))
			abort();
		nla_nest_end(msg, nest);
		if (fn)
			ret = fn(nlmsg_hdr(msg), arg, err);
		nlmsg_free(msg);
	}
	return ret;
}

/* The HIST_DUMP: event 0's histogram when the test set one, else none. */
static int fake_hist_dump(struct kp_nl *nl, kp_nl_reply_fn fn, void *arg, struct kp_err *err)
{
	struct nlattr *nest;
	struct nl_msg *msg;
	int ret;

	fake.nr_hist_dumps++;
	if (!fake.has_hist)
		return 0;
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, 0, 42, nl->family, 0, NLM_F_MULTI, KPROF_CMD_HIST_DUMP,
				 KPROF_FAMILY_VERSION))
		abort();
	fake_put_u64(msg, KPROF_A_SESSION_ID, fake.session_id);
	nest = nla_nest_start(msg, KPROF_A_HIST);
	if (!nest || nla_put_u32(msg, KPROF_HIST_A_EVENT, 0) ||
	    nla_put_u64(msg, KPROF_HIST_A_COUNT, fake.hist_count) ||
	    nla_put_u64(msg, KPROF_HIST_A_SUM_NS, fake.hist_sum_ns) ||
	    nla_put_u64(msg, KPROF_HIST_A_MAX_NS, fake.hist_max_ns) ||
	    nla_put_u64(msg, KPROF_HIST_A_MISSED, fake.hist_missed) ||
	    nla_put(msg, KPROF_HIST_A_BUCKETS, sizeof(fake.hist_buckets), fake.hist_buckets))
		abort();
	nla_nest_end(msg, nest);
	ret = fn ? fn(nlmsg_hdr(msg), arg, err) : 0;
	nlmsg_free(msg);
	return ret;
}

/* The AGG_DUMP: one message per entry, each passed to @fn, as kprof.ko does. */
static int fake_agg_dump(struct kp_nl *nl, const struct nlmsghdr *req, struct nlattr **tb,
			 kp_nl_reply_fn fn, void *arg, struct kp_err *err)
{
	const struct fake_agg_entry *e;
	struct nlattr *nest;
	struct nl_msg *msg;
	unsigned int i;
	uint64_t pad = 0;
	int ret = 0;

	fake.nr_agg_dumps++;
	fake.agg_dump_id = tb[KPROF_A_SESSION_ID] ? nla_get_u64(tb[KPROF_A_SESSION_ID]) : 0;
	if (!(req->nlmsg_flags & NLM_F_DUMP))
		return fake_error(EOPNOTSUPP, NULL, err);
	if (!fake.privileged)
		return fake_error(EPERM, "kprof: CAP_PERFMON or CAP_SYS_ADMIN required", err);
	if (!fake.session_id || fake.status.state == KPROF_STATE_IDLE)
		return fake_done_error(ENOENT, "kprof: no session", err);
	if (!(fake.session_flags & KPROF_SESSION_F_AGGREGATE))
		return fake_done_error(EOPNOTSUPP, "kprof: the session does not aggregate", err);
	for (i = 0; !ret && i < fake.nr_agg; i++) {
		e = &fake.agg[i];
		msg = nlmsg_alloc();
		if (!msg || !genlmsg_put(msg, 0, 42, nl->family, 0, NLM_F_MULTI,
					 KPROF_CMD_AGG_DUMP, KPROF_FAMILY_VERSION))
			abort();
		fake_put_u64(msg, KPROF_A_SESSION_ID, fake.session_id);
		nest = nla_nest_start(msg, KPROF_A_AGG_ENTRY);
		if (!nest)
			abort();
		fake_agg_put(msg, KPROF_AGG_A_CPU, &e->cpu, 4);
		fake_agg_put(msg, KPROF_AGG_A_EVENT, &e->event, 4);
		fake_agg_put(msg, KPROF_AGG_A_PID, &e->pid, 4);
		fake_agg_put(msg, KPROF_AGG_A_COMM, e->comm, strlen(e->comm) + 1);
		/* like nla_put_u64_64bit(): a PAD when the payload would be unaligned */
		if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8)
			fake_agg_put(msg, KPROF_AGG_A_PAD, &pad, 0);
		fake_agg_put(msg, KPROF_AGG_A_COUNT, &e->count, 8);
		fake_agg_put(msg, KPROF_AGG_A_KERNEL, e->frames, e->nr_kernel * 8);
		fake_agg_put(msg, KPROF_AGG_A_USER, e->frames + e->nr_kernel, e->nr_user * 8);
		if (e->time_ns) {
			if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8)
				fake_agg_put(msg, KPROF_AGG_A_PAD, &pad, 0);
			fake_agg_put(msg, KPROF_AGG_A_TIME_NS, &e->time_ns, 8);
		}
		if (e->has_lock) {
			const uint64_t *v[] = { &e->max_ns, &e->min_ns, &e->lock };
			const int types[] = { KPROF_AGG_A_MAX_NS, KPROF_AGG_A_MIN_NS, KPROF_AGG_A_LOCK };
			unsigned int j;

			for (j = 0; j < 3; j++) {
				if ((nlmsg_hdr(msg)->nlmsg_len + NLA_HDRLEN) % 8)
					fake_agg_put(msg, KPROF_AGG_A_PAD, &pad, 0);
				fake_agg_put(msg, types[j], v[j], 8);
			}
			fake_agg_put(msg, KPROF_AGG_A_LOCK_FLAGS, &e->lock_flags, 4);
		}
		if (e->has_waker) {
			fake_agg_put(msg, KPROF_AGG_A_WAKER_PID, &e->waker_pid, 4);
			fake_agg_put(msg, KPROF_AGG_A_WAKER_COMM, e->waker_comm,
				     strlen(e->waker_comm) + 1);
			fake_agg_put(msg, KPROF_AGG_A_WAKER_KERNEL, e->waker_frames,
				     e->waker_nr_kernel * 8);
			fake_agg_put(msg, KPROF_AGG_A_WAKER_USER, e->waker_frames + e->waker_nr_kernel,
				     e->waker_nr_user * 8);
		}
		nla_nest_end(msg, nest);
		if (fn)
			ret = fn(nlmsg_hdr(msg), arg, err);
		nlmsg_free(msg);
	}
	if (!ret && fake.agg_done_errno)
		return fake_done_error(fake.agg_done_errno, "kprof: the dump failed", err);
	return ret;
}

/* The module's request policy. */
static const struct nla_policy fake_policy[KPROF_A_MAX + 1] = {
	[KPROF_A_VERSION_ABI]		= { .type = NLA_U32 },
	[KPROF_A_VERSION_CLIENT]	= { .type = NLA_STRING, .maxlen = KPROF_CLIENT_NAME_MAX },
	[KPROF_A_SESSION_ID]		= { .type = NLA_U64 },
	[KPROF_A_SESSION_FLAGS]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_FREQ]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_PERIOD]	= { .type = NLA_U64 },
	[KPROF_A_SESSION_CPUS]		= { .type = NLA_UNSPEC },
	[KPROF_A_SESSION_PID]		= { .type = NLA_U32 },
	[KPROF_A_SESSION_BUFFER_SIZE]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_STACK_DEPTH]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_WATERMARK]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_EVENT]		= { .type = NLA_NESTED },
	[KPROF_A_SESSION_AGG_ENTRIES]	= { .type = NLA_U32 },
	[KPROF_A_SESSION_USER_STACK]	= { .type = NLA_U32 },
};

int kp_nl__request(struct kp_nl *nl, struct nl_msg *msg, kp_nl_reply_fn fn,
		   void *arg, struct kp_err *err)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[KPROF_A_MAX + 1];
	struct genlmsghdr *gh;
	struct nl_msg *reply = NULL;
	int ret;

	fake.nr_requests++;
	if (nlh->nlmsg_type != nl->family || !genlmsg_valid_hdr(nlh, 0)) {
		ret = fake_error(EINVAL, "bad request header", err);
		goto out;
	}
	gh = nlmsg_data(nlh);
	fake.last_cmd = gh->cmd;
	if (gh->version != KPROF_FAMILY_VERSION) {
		ret = fake_error(EINVAL, "bad family version", err);
		goto out;
	}
	if (genlmsg_parse(nlh, 0, tb, KPROF_A_MAX, fake_policy) < 0) {
		ret = fake_error(EINVAL, "invalid attribute", err);
		goto out;
	}

	reply = nlmsg_alloc();
	if (!reply || !genlmsg_put(reply, 0, 42, nl->family, 0, 0, gh->cmd,
				   KPROF_FAMILY_VERSION))
		abort();
	switch (gh->cmd) {
	case KPROF_CMD_VERSION:
		ret = fake_version(tb, reply, err);
		break;
	case KPROF_CMD_STATUS:
		ret = fake_status(reply, err);
		break;
	case KPROF_CMD_START:
		ret = fake_start(nlh, tb, reply, err);
		break;
	case KPROF_CMD_STOP:
		ret = fake_stop(tb, reply, err);
		break;
	case KPROF_CMD_FREE:
		ret = fake_free(tb, err);
		break;
	case KPROF_CMD_STATS:
		ret = fake_stats(nl, nlh, tb, fn, arg, err);
		goto out;
	case KPROF_CMD_AGG_DUMP:
		ret = fake_agg_dump(nl, nlh, tb, fn, arg, err);
		goto out;
	case KPROF_CMD_AGG_MAPS:
		ret = fake_agg_maps(nl, nlh, fn, arg, err);
		goto out;
	case KPROF_CMD_HIST_DUMP:
		ret = fake_hist_dump(nl, fn, arg, err);
		goto out;
	case KPROF_CMD_COUNT_START:
	case KPROF_CMD_COUNT_READ:
	case KPROF_CMD_COUNT_STOP:
		/* the counting session: tests/fake-count.c */
		ret = fake_count__request(nl->family, nlh, fn, arg, err);
		goto out;
	default:
		ret = fake_error(EOPNOTSUPP, NULL, err);
		break;
	}
	if (!ret && fn)
		ret = fn(nlmsg_hdr(reply), arg, err);
out:
	nlmsg_free(reply);
	nlmsg_free(msg);
	return ret;
}
