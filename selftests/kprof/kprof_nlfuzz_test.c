// SPDX-License-Identifier: GPL-2.0
/*
 * A netlink fuzzer for the kprof family, driven by the family's own policy.
 *
 * The commands and their do/dump abilities come from CTRL_CMD_GETFAMILY,
 * the attribute policies (types, ranges, lengths, masks, nested policies)
 * from CTRL_CMD_GETPOLICY: a command or attribute added to the module is
 * fuzzed without editing this file.  Messages are
 *
 *	random		any command number, random attribute soup;
 *	structured	attributes drawn from the policy, values at and around
 *			the edges of their ranges, repeated and nested, filter
 *			programs for binary attributes of 16-byte units;
 *	mutated		a structured message with bytes flipped, lengths
 *			bent or the tail cut.
 *
 * A START or COUNT_START that succeeds is followed by a few more messages
 * and a STOP, so that the handlers also run against a live session; after
 * KPROF_FUZZ_SESSIONS (default 150) sessions, the seeds are put away.
 *
 * Root fuzzing asserts that every command's handler was reached past
 * validation (debugfs "netlink" counts them) at least KF_MIN_HANDLED times.
 * Unprivileged fuzzing (nobody, no capabilities) asserts that nothing but
 * VERSION ever succeeds or reaches a handler, and that /dev/kprof and the
 * debugfs files cannot be opened.  Afterwards a session records normally.
 *
 * KPROF_FUZZ_SECONDS (default 40) and KPROF_FUZZ_MESSAGES (default 100000)
 * bound the root run, a quarter of each the unprivileged one;
 * KPROF_FUZZ_SEED replays a run (the seed is printed).
 */
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "kselftest_harness.h"
#include "kprof_ring.h"

#define KF_MAX_POL	16	/* policies in the dump */
#define KF_MAX_ATTR	64	/* attribute types per policy */
#define KF_MAX_CMD	64
#define KF_MSG		16384
#define KF_MIN_HANDLED	20
#define KF_DEBUGFS	"/sys/kernel/debug/kprof"

struct kf_attr {
	bool present;
	uint32_t type;			/* NL_ATTR_TYPE_* */
	int64_t min_s, max_s;
	uint64_t min_u, max_u;
	uint64_t mask;
	bool has_mask;
	uint32_t min_len, max_len;
	int nested;			/* policy index, or -1 */
};

struct kf_policy {
	bool present;
	uint32_t maxtype;
	struct kf_attr a[KF_MAX_ATTR];
};

struct kf_cmd {
	uint8_t cmd;
	bool do_, dump;
	int policy;			/* index, or -1: accepts no attributes */
};

struct kf_family {
	uint16_t id;
	uint8_t version;
	unsigned int nr_cmds;
	struct kf_cmd cmds[KF_MAX_CMD];
	struct kf_policy pol[KF_MAX_POL];
	uint8_t start_cmd, stop_cmd, count_start_cmd, count_stop_cmd;
};

/* xorshift64*: reproducible from the seed */
static uint64_t kf_state;

static uint64_t kf_rand(void)
{
	kf_state ^= kf_state >> 12;
	kf_state ^= kf_state << 25;
	kf_state ^= kf_state >> 27;
	return kf_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int kf_below(unsigned int n)
{
	return n ? kf_rand() % n : 0;
}

static bool kf_chance(unsigned int percent)
{
	return kf_below(100) < percent;
}

static uint64_t kf_env(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* ---- reading the family and its policy ---------------------------------- */

static void kf_nest_each(const struct nlattr *nest, void (*fn)(const struct nlattr *, void *),
			 void *arg)
{
	int len = nest->nla_len - NLA_HDRLEN;
	const struct nlattr *a = (const void *)((const char *)nest + NLA_HDRLEN);

	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		fn(a, arg);
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

static uint64_t kf_uval(const struct nlattr *a)
{
	uint64_t v = 0;

	memcpy(&v, (const char *)a + NLA_HDRLEN,
	       a->nla_len - NLA_HDRLEN < 8 ? a->nla_len - NLA_HDRLEN : 8);
	return v;
}

static void kf_op_attr(const struct nlattr *a, void *arg)
{
	struct kf_cmd *c = arg;

	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_OP_ID)
		c->cmd = kf_uval(a);
	else if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_OP_FLAGS) {
		c->do_ = kf_uval(a) & GENL_CMD_CAP_DO;
		c->dump = kf_uval(a) & GENL_CMD_CAP_DUMP;
	}
}

static void kf_op(const struct nlattr *a, void *arg)
{
	struct kf_family *f = arg;
	struct kf_cmd *c;

	if (f->nr_cmds >= KF_MAX_CMD)
		return;
	c = &f->cmds[f->nr_cmds++];
	c->policy = -1;
	kf_nest_each(a, kf_op_attr, c);
}

/*
 * Send @len bytes at @req (sequence number @seq) and read up to the ACK or
 * the end of the dump, handing each answer of @seq to @fn when given.
 * Return: the error (0 on success), -ETIMEDOUT when nothing came within
 * the socket's timeout, or a socket error.
 */
static int kf_exchange(int fd, void *req, unsigned int len, uint32_t seq,
		       void (*fn)(const struct nlmsghdr *nlh, void *arg), void *arg)
{
	static char rx[65536];

	((struct nlmsghdr *)req)->nlmsg_seq = seq;
	if (send(fd, req, len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, rx, sizeof(rx), 0);
		struct nlmsghdr *nlh;
		int left;

		if (n < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		left = n;
		for (nlh = (void *)rx; NLMSG_OK(nlh, left); nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) ?
				       *(int *)NLMSG_DATA(nlh) : 0;
			if (fn)
				fn(nlh, arg);
		}
	}
}

static int kf_get_family(int fd, struct kf_family *f)
{
	struct kt_msg m;
	int err;

	memset(f, 0, sizeof(*f));
	kt_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	kt_put_str(&m, CTRL_ATTR_FAMILY_NAME, KPROF_FAMILY_NAME);
	err = kt_transact(fd, &m);
	if (err)
		return err;
	if (!m.tb[CTRL_ATTR_FAMILY_ID] || !m.tb[CTRL_ATTR_OPS] || !m.tb[CTRL_ATTR_VERSION])
		return -EPROTO;
	f->id = kf_uval(m.tb[CTRL_ATTR_FAMILY_ID]);
	f->version = kf_uval(m.tb[CTRL_ATTR_VERSION]);
	kf_nest_each(m.tb[CTRL_ATTR_OPS], kf_op, f);
	return f->nr_cmds ? 0 : -EPROTO;
}

struct kf_pol_ctx {
	struct kf_family *f;
	int idx;
	struct kf_attr *attr;
	uint8_t cmd;
};

static void kf_pol_field(const struct nlattr *a, void *arg)
{
	struct kf_attr *at = arg;
	uint64_t v = kf_uval(a);

	switch (a->nla_type & NLA_TYPE_MASK) {
	case NL_POLICY_TYPE_ATTR_TYPE:		at->type = v; break;
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:	at->min_s = (int64_t)v; break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:	at->max_s = (int64_t)v; break;
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:	at->min_u = v; break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:	at->max_u = v; break;
	case NL_POLICY_TYPE_ATTR_MIN_LENGTH:	at->min_len = v; break;
	case NL_POLICY_TYPE_ATTR_MAX_LENGTH:	at->max_len = v; break;
	case NL_POLICY_TYPE_ATTR_POLICY_IDX:	at->nested = v; break;
	case NL_POLICY_TYPE_ATTR_MASK:		at->mask = v; at->has_mask = true; break;
	}
}

static void kf_pol_attr(const struct nlattr *a, void *arg)
{
	struct kf_pol_ctx *ctx = arg;
	unsigned int type = a->nla_type & NLA_TYPE_MASK;
	struct kf_policy *p = &ctx->f->pol[ctx->idx];
	struct kf_attr *at;

	if (type >= KF_MAX_ATTR)
		return;
	at = &p->a[type];
	memset(at, 0, sizeof(*at));
	at->present = true;
	at->nested = -1;
	at->max_u = UINT64_MAX;
	at->max_s = INT64_MAX;
	at->min_s = INT64_MIN;
	kf_nest_each(a, kf_pol_field, at);
	if (type > p->maxtype)
		p->maxtype = type;
}

static void kf_pol_index(const struct nlattr *a, void *arg)
{
	struct kf_pol_ctx *ctx = arg;
	unsigned int idx = a->nla_type & NLA_TYPE_MASK;

	if (idx >= KF_MAX_POL)
		return;
	ctx->idx = idx;
	ctx->f->pol[idx].present = true;
	kf_nest_each(a, kf_pol_attr, ctx);
}

static void kf_op_pol_field(const struct nlattr *a, void *arg)
{
	struct kf_pol_ctx *ctx = arg;
	unsigned int i;

	if ((a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_POLICY_DO &&
	    (a->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_POLICY_DUMP)
		return;
	for (i = 0; i < ctx->f->nr_cmds; i++)
		if (ctx->f->cmds[i].cmd == ctx->cmd)
			ctx->f->cmds[i].policy = kf_uval(a);
}

static void kf_op_pol(const struct nlattr *a, void *arg)
{
	struct kf_pol_ctx *ctx = arg;

	ctx->cmd = a->nla_type & NLA_TYPE_MASK;
	kf_nest_each(a, kf_op_pol_field, ctx);
}

/* One CTRL_CMD_GETPOLICY answer: op policies or a policy's attributes. */
static void kf_policy_msg(const struct nlmsghdr *nlh, void *arg)
{
	const struct nlattr *a = (const void *)((const char *)NLMSG_DATA(nlh) + GENL_HDRLEN);
	int alen = nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	while (alen >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= alen) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_POLICY)
			kf_nest_each(a, kf_pol_index, arg);
		else if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_OP_POLICY)
			kf_nest_each(a, kf_op_pol, arg);
		alen -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* CTRL_CMD_GETPOLICY for the family: every op's policy, then every policy. */
static int kf_get_policy(int fd, struct kf_family *f)
{
	struct kf_pol_ctx ctx = { .f = f };
	struct kt_msg m;
	uint16_t id = f->id;

	kt_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, 1);
	m.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	kt_put(&m, CTRL_ATTR_FAMILY_ID, &id, sizeof(id));
	return kf_exchange(fd, m.buf, m.nlh.nlmsg_len, 2, kf_policy_msg, &ctx);
}

static int kf_cmd_by_name(const char *name);

static int kf_load_family(int fd, struct kf_family *f)
{
	int err = kf_get_family(fd, f);

	if (err)
		return err;
	err = kf_get_policy(fd, f);
	if (err)
		return err;
	f->start_cmd = kf_cmd_by_name("START");
	f->stop_cmd = kf_cmd_by_name("STOP");
	f->count_start_cmd = kf_cmd_by_name("COUNT_START");
	f->count_stop_cmd = kf_cmd_by_name("COUNT_STOP");
	return 0;
}

/* ---- the module's per-command counts (debugfs "netlink") ---------------- */

struct kf_counts {
	unsigned int nr;
	char name[KF_MAX_CMD][24];
	long handled[KF_MAX_CMD], refused[KF_MAX_CMD];
};

static struct kf_counts kf_names;	/* command names, in command order */

static int kf_read_counts(struct kf_counts *c)
{
	FILE *fp = fopen(KF_DEBUGFS "/netlink", "r");
	char line[128];

	if (!fp)
		return -errno;
	memset(c, 0, sizeof(*c));
	if (!fgets(line, sizeof(line), fp)) {	/* header */
		fclose(fp);
		return -EPROTO;
	}
	while (c->nr < KF_MAX_CMD && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%23s %ld %ld", c->name[c->nr], &c->handled[c->nr],
			   &c->refused[c->nr]) == 3)
			c->nr++;
	}
	fclose(fp);
	return c->nr ? 0 : -EPROTO;
}

/* debugfs lists the commands from 1 in order: "START" is its line + 1. */
static int kf_cmd_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < kf_names.nr; i++)
		if (!strcmp(kf_names.name[i], name))
			return i + 1;
	return -1;
}

/* ---- building messages -------------------------------------------------- */

struct kf_buf {
	char b[KF_MSG];
	unsigned int len;
};

static void *kf_room(struct kf_buf *m, unsigned int n)
{
	void *p;

	if (m->len + NLA_ALIGN(n) > sizeof(m->b))
		return NULL;
	p = m->b + m->len;
	memset(p, 0, NLA_ALIGN(n));
	m->len += NLA_ALIGN(n);
	return p;
}

static unsigned int kf_attr_begin(struct kf_buf *m, uint16_t type)
{
	unsigned int at = m->len;
	struct nlattr *a = kf_room(m, NLA_HDRLEN);

	if (!a)
		return UINT32_MAX;
	a->nla_type = type;
	return at;
}

static void kf_attr_end(struct kf_buf *m, unsigned int at)
{
	if (at != UINT32_MAX)
		((struct nlattr *)(m->b + at))->nla_len = m->len - at;
}

static void kf_put(struct kf_buf *m, uint16_t type, const void *data, unsigned int len)
{
	unsigned int at = kf_attr_begin(m, type);
	void *p;

	if (at == UINT32_MAX)
		return;
	p = kf_room(m, len);
	if (!p) {
		m->len = at;
		return;
	}
	memcpy(p, data, len);
	((struct nlattr *)(m->b + at))->nla_len = NLA_HDRLEN + len;
}

static const uint64_t kf_interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 16, 63, 64, 100, 127, 128, 255, 256, 1000, 4096,
	4999, 65535, 65536, 1 << 20, 0x7fffffff, 0x80000000u, 0xffffffffu,
	0x40000001, 0x40000002, 0x40000003, 1ULL << 62, UINT64_MAX,
};

/* An integer for @at: edges of its range and mask, or anything. */
static uint64_t kf_int_value(const struct kf_attr *at, bool sign, unsigned int bits)
{
	uint64_t full = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
	uint64_t v;

	switch (kf_below(10)) {
	case 0: v = sign ? (uint64_t)at->min_s : at->min_u; break;
	case 1: v = sign ? (uint64_t)at->max_s : at->max_u; break;
	case 2: v = (sign ? (uint64_t)at->min_s : at->min_u) + 1; break;
	case 3: v = (sign ? (uint64_t)at->max_s : at->max_u) - 1; break;
	case 4: v = kf_rand(); break;
	case 5: v = kf_chance(5) ? (sign ? (uint64_t)at->min_s : at->min_u) - 1 :
			(sign ? (uint64_t)at->max_s : at->max_u) + (kf_chance(5) ? 1 : 0);
		break;
	case 6: v = at->has_mask ? at->mask & kf_rand() : kf_rand(); break;
	case 7: v = at->has_mask ? (1ULL << kf_below(bits)) : kf_rand() & 0xff; break;
	default:
		v = kf_interesting[kf_below(sizeof(kf_interesting) / sizeof(kf_interesting[0]))];
		break;
	}
	return v & full;
}

static const char * const kf_words[] = {
	"cpu-clock", "task-clock", "vfs_read", "ksys_read", "do_nanosleep",
	"schedule", "no_such_function_at_all", "kprof_*", "vfs_*", "*", "?", "[",
	"sched:sched_switch", "ksys_write", "__x64_sys_getpid", "x", "",
};

static void kf_string(char *s, unsigned int len)
{
	unsigned int i;

	if (kf_chance(60)) {
		const char *w = kf_words[kf_below(sizeof(kf_words) / sizeof(kf_words[0]))];

		snprintf(s, len + 1, "%s", w);
		memset(s + strlen(s), 0, len - strlen(s));
		return;
	}
	for (i = 0; i < len; i++)
		s[i] = kf_chance(95) ? 32 + kf_below(95) : kf_rand();
}

/* A filter program: valid-looking instructions with edge operands. */
static unsigned int kf_filter(uint8_t *p, unsigned int max)
{
	unsigned int n = 1 + kf_below(max / 16 < 8 ? max / 16 : 8), i;
	static const uint8_t sizes[] = { 0, 1, 2, 3, 4, 8, 9, 16, 64, 65, 255 };

	if (kf_chance(5))
		n = max / 16;
	for (i = 0; i < n; i++) {
		struct kprof_filter_insn in = {
			.op = kf_chance(90) ? 1 + kf_below(__KPROF_FILTER_MAX - 1) : kf_rand(),
			.size = sizes[kf_below(sizeof(sizes))],
			.offset = kf_chance(80) ? kf_below(64) : kf_rand(),
			.__reserved = kf_chance(95) ? 0 : kf_rand(),
			.value = kf_chance(50) ? kf_below(256) : kf_rand(),
		};

		memcpy(p + 16 * i, &in, sizeof(in));
	}
	return 16 * n;
}

static void kf_attrs(struct kf_buf *m, const struct kf_family *f, int pol, int depth);

static void kf_value(struct kf_buf *m, const struct kf_family *f, unsigned int type,
		     const struct kf_attr *at, int depth)
{
	uint8_t data[2048] = { 0 };
	unsigned int len, at_nest, i;
	uint64_t v;

	switch (at->type) {
	case NL_ATTR_TYPE_FLAG:
		kf_put(m, type, data, kf_chance(95) ? 0 : 4);
		return;
	case NL_ATTR_TYPE_U8: case NL_ATTR_TYPE_U16: case NL_ATTR_TYPE_U32:
	case NL_ATTR_TYPE_U64: case NL_ATTR_TYPE_S8: case NL_ATTR_TYPE_S16:
	case NL_ATTR_TYPE_S32: case NL_ATTR_TYPE_S64: {
		/* U8..U64 and S8..S64 are consecutive: 1 << (type - U8) bytes */
		bool sign = at->type >= NL_ATTR_TYPE_S8;
		unsigned int bytes = 1u << (at->type - (sign ? NL_ATTR_TYPE_S8 : NL_ATTR_TYPE_U8));

		v = kf_int_value(at, sign, 8 * bytes);
		memcpy(data, &v, sizeof(v));
		/* now and then a wrong length, which the policy must refuse */
		kf_put(m, type, data, kf_chance(97) ? bytes : kf_below(12));
		return;
	}
	case NL_ATTR_TYPE_STRING: case NL_ATTR_TYPE_NUL_STRING:
		len = at->max_len ? at->max_len : 64;
		if (len > sizeof(data) - 2)
			len = sizeof(data) - 2;
		len = kf_chance(90) ? kf_below(len + 1) : len + kf_below(3);
		kf_string((char *)data, len);
		if (at->type == NL_ATTR_TYPE_NUL_STRING || kf_chance(50))
			data[len++] = kf_chance(97) ? 0 : 'x';
		kf_put(m, type, data, len);
		return;
	case NL_ATTR_TYPE_BINARY:
		len = at->max_len ? at->max_len : 256;
		if (len > sizeof(data))
			len = sizeof(data);
		if (len % 16 == 0 && kf_chance(70)) {
			len = kf_filter(data, len);
		} else {
			unsigned int lo = at->min_len < len ? at->min_len : 0;

			len = kf_chance(95) ? lo + kf_below(len - lo + 1) : len + 1;
			if (len > sizeof(data))
				len = sizeof(data);
			for (i = 0; i < len; i++)
				data[i] = kf_chance(50) ? 0xff : kf_rand();
		}
		kf_put(m, type, data, len);
		return;
	case NL_ATTR_TYPE_NESTED:
		at_nest = kf_attr_begin(m, type | (kf_chance(50) ? NLA_F_NESTED : 0));
		if (at->nested >= 0 && depth < 3)
			kf_attrs(m, f, at->nested, depth + 1);
		kf_attr_end(m, at_nest);
		return;
	case NL_ATTR_TYPE_NESTED_ARRAY:
		at_nest = kf_attr_begin(m, type | NLA_F_NESTED);
		for (i = 0; i < kf_below(4) && depth < 3; i++) {
			unsigned int e = kf_attr_begin(m, i + 1);

			if (at->nested >= 0)
				kf_attrs(m, f, at->nested, depth + 1);
			kf_attr_end(m, e);
		}
		kf_attr_end(m, at_nest);
		return;
	default:
		len = kf_below(16);
		for (i = 0; i < len; i++)
			data[i] = kf_rand();
		kf_put(m, type, data, len);
		return;
	}
}

/* Attributes of policy @pol: a random subset, some repeated, rarely unknown. */
static void kf_attrs(struct kf_buf *m, const struct kf_family *f, int pol, int depth)
{
	const struct kf_policy *p;
	unsigned int type, rep;

	if (pol < 0 || pol >= KF_MAX_POL || !f->pol[pol].present) {
		if (kf_chance(10))
			kf_value(m, f, 1 + kf_below(40), &(struct kf_attr){ .type = 0 }, depth);
		return;
	}
	p = &f->pol[pol];
	for (type = 0; type <= p->maxtype + 1 && type < KF_MAX_ATTR; type++) {
		if (!p->a[type].present) {
			if (kf_chance(1))	/* an attribute the policy rejects */
				kf_value(m, f, type, &(struct kf_attr){ .type = NL_ATTR_TYPE_U32 },
					 depth);
			continue;
		}
		if (!kf_chance(depth ? 70 : 55))
			continue;
		rep = p->a[type].type == NL_ATTR_TYPE_NESTED ? 1 + kf_below(3) :
		      kf_chance(10) ? 1 + kf_below(4) : 1;
		while (rep--)
			kf_value(m, f, type, &p->a[type], depth);
	}
}

static void kf_hdr(struct kf_buf *m, const struct kf_family *f, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	m->len = 0;
	nlh = kf_room(m, NLMSG_HDRLEN);
	g = kf_room(m, GENL_HDRLEN);
	nlh->nlmsg_type = f->id;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	g->cmd = cmd;
	g->version = f->version;
}

static void kf_finish(struct kf_buf *m)
{
	((struct nlmsghdr *)m->b)->nlmsg_len = m->len;
}

/*
 * Seeds: valid requests for the commands that start something (one per
 * event type and mode), so that mutations of them reach deep into START
 * and COUNT_START and some of them start sessions.
 */
#define KF_MAX_SEEDS	16

static struct kf_buf kf_seeds[KF_MAX_SEEDS];
static unsigned int kf_nr_seeds;

static void kf_seed_add(struct kt_msg *m)
{
	struct kf_buf *b;

	if (kf_nr_seeds >= KF_MAX_SEEDS)
		return;
	b = &kf_seeds[kf_nr_seeds++];
	memcpy(b->b, m->buf, m->nlh.nlmsg_len);
	b->len = m->nlh.nlmsg_len;
}

static void kf_seed_event(struct kt_msg *m, uint32_t type, uint64_t config, const char *sym,
			  bool filter)
{
	struct nlattr *n = kt_nest_start(m, KPROF_A_SESSION_EVENT);

	kt_put_u32(m, KPROF_EV_A_TYPE, type);
	kt_put_u64(m, KPROF_EV_A_CONFIG, config);
	if (sym)
		kt_put_str(m, KPROF_EV_A_SYMBOL, sym);
	if (type == PERF_TYPE_TRACEPOINT)
		kt_put_u64(m, KPROF_EV_A_PERIOD, 1);
	if (filter) {
		struct kprof_filter_insn in = { .op = KPROF_FILTER_GE, .size = 4, .offset = 8 };

		kt_put(m, KPROF_EV_A_FILTER, &in, sizeof(in));
	}
	kt_put_str(m, KPROF_EV_A_NAME, sym ? sym : "seed");
	kt_nest_end(m, n);
}

static uint64_t kf_tracepoint_id(const char *path)
{
	FILE *fp = fopen(path, "r");
	unsigned long long id = 0;

	if (fp) {
		if (fscanf(fp, "%llu", &id) != 1)
			id = 0;
		fclose(fp);
	}
	return id;
}

static void kf_make_seeds(const struct kf_family *f)
{
	static const uint32_t modes[] = {
		KPROF_SESSION_F_STREAM,
		KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_KERNEL_STACK,
		KPROF_SESSION_F_STREAM | KPROF_SESSION_F_AGGREGATE |
			KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK,
	};
	uint64_t tp = kf_tracepoint_id("/sys/kernel/tracing/events/sched/sched_switch/id");
	struct kt_msg m;
	unsigned int i;

	kf_nr_seeds = 0;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		kt_msg_init(&m, f->id, f->start_cmd, f->version);
		kt_put_u32(&m, KPROF_A_SESSION_FLAGS, modes[i] | KPROF_SESSION_F_OWNED |
			   (i != 1 ? KPROF_SESSION_F_SYSTEM_WIDE : 0));
		kt_put_u32(&m, KPROF_A_SESSION_FREQ, 999);
		kt_put_u32(&m, KPROF_A_SESSION_BUFFER_SIZE, 65536);
		if (i == 1)
			kt_put_u32(&m, KPROF_A_SESSION_PID, getpid());
		kf_seed_event(&m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, NULL, false);
		if (i == 2 && tp)
			kf_seed_event(&m, PERF_TYPE_TRACEPOINT, tp, NULL, true);
		kf_seed_add(&m);
	}
	/* probes: a kprobe, an ftrace glob, a latency histogram */
	kt_msg_init(&m, f->id, f->start_cmd, f->version);
	kt_put_u32(&m, KPROF_A_SESSION_FLAGS, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_OWNED |
		   KPROF_SESSION_F_AGGREGATE | KPROF_SESSION_F_KERNEL_STACK);
	kt_put_u32(&m, KPROF_A_SESSION_FREQ, 99);
	kf_seed_event(&m, KPROF_TYPE_KPROBE, 0, "vfs_read", false);
	kf_seed_event(&m, KPROF_TYPE_FTRACE, 0, "ksys_rea*", false);
	kf_seed_event(&m, KPROF_TYPE_LATENCY, 0, "do_nanosleep", false);
	kf_seed_add(&m);
	/* run-queue latency: sched tracepoint probes, no symbol */
	kt_msg_init(&m, f->id, f->start_cmd, f->version);
	kt_put_u32(&m, KPROF_A_SESSION_FLAGS, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_OWNED);
	kt_put_u32(&m, KPROF_A_SESSION_FREQ, 99);
	kf_seed_event(&m, KPROF_TYPE_RUNQLAT, KPROF_RUNQLAT_USECS, NULL, false);
	kf_seed_add(&m);
	/* counting: system-wide and of this process */
	for (i = 0; i < 2; i++) {
		kt_msg_init(&m, f->id, f->count_start_cmd, f->version);
		kt_put_u32(&m, KPROF_A_SESSION_FLAGS, i ? 0 : KPROF_SESSION_F_SYSTEM_WIDE);
		if (i)
			kt_put_u32(&m, KPROF_A_SESSION_PID, getpid());
		kf_seed_event(&m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, NULL, false);
		kf_seed_event(&m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, NULL, false);
		kf_seed_add(&m);
	}
}

static const struct kf_attr *kf_policy_attr(const struct kf_family *f, int pol, unsigned int type)
{
	if (pol < 0 || pol >= KF_MAX_POL || type >= KF_MAX_ATTR || !f->pol[pol].a[type].present)
		return NULL;
	return &f->pol[pol].a[type];
}

/*
 * Copy the attributes at @a into @out, each mutated with @rate percent
 * chance: dropped, regenerated from its policy, or repeated; nests are
 * copied attribute by attribute with the same chances.
 */
static void kf_copy_mutated(struct kf_buf *out, const struct kf_family *f,
			    const struct nlattr *a, int len, int pol, int depth,
			    unsigned int rate)
{
	while (len >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		unsigned int type = a->nla_type & NLA_TYPE_MASK;
		const struct kf_attr *at = kf_policy_attr(f, pol, type);
		const void *data = (const char *)a + NLA_HDRLEN;
		int dlen = a->nla_len - NLA_HDRLEN;
		unsigned int copies = 1;

		if (kf_chance(rate)) {
			switch (kf_below(3)) {
			case 0:
				copies = 0;
				break;
			case 1:
				if (at) {
					kf_value(out, f, type, at, depth);
					copies = 0;
				}
				break;
			default:
				copies = 2;
				break;
			}
		}
		while (copies--) {
			if (at && at->type == NL_ATTR_TYPE_NESTED && at->nested >= 0) {
				unsigned int n = kf_attr_begin(out, a->nla_type);

				kf_copy_mutated(out, f, data, dlen, at->nested, depth + 1, rate);
				kf_attr_end(out, n);
			} else {
				kf_put(out, a->nla_type, data, dlen);
			}
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* A seed for @cmd, as it is (a third of the time) or mutated. */
static bool kf_from_seed(struct kf_buf *m, const struct kf_family *f, const struct kf_cmd *c)
{
	const struct kf_buf *seed = NULL;
	unsigned int i, n = 0;

	for (i = 0; i < kf_nr_seeds; i++) {
		const struct genlmsghdr *g = (const void *)(kf_seeds[i].b + NLMSG_HDRLEN);

		if (g->cmd == c->cmd && !kf_below(++n))
			seed = &kf_seeds[i];
	}
	if (!seed)
		return false;
	kf_hdr(m, f, c->cmd, false);
	kf_copy_mutated(m, f, (const void *)(seed->b + NLMSG_HDRLEN + GENL_HDRLEN),
			seed->len - NLMSG_HDRLEN - GENL_HDRLEN, c->policy, 0,
			kf_chance(33) ? 0 : 10 + kf_below(20));
	kf_finish(m);
	return true;
}

static const struct kf_cmd *kf_pick_cmd(const struct kf_family *f)
{
	return &f->cmds[kf_below(f->nr_cmds)];
}

/*
 * One message: random (10 %), from a seed as it is or mutated (40 %, for
 * the commands that have seeds), structured, or structured and then bent
 * (15 %).
 */
static uint8_t kf_build(struct kf_buf *m, const struct kf_family *f, const struct kf_cmd *c,
			bool seeds)
{
	unsigned int kind = kf_below(100), i, n;
	bool dump = c->dump && (!c->do_ || kf_chance(50));

	if (kind < 10) {
		uint8_t cmd = kf_chance(50) ? c->cmd : kf_rand();

		kf_hdr(m, f, cmd, kf_chance(30));
		((struct genlmsghdr *)(m->b + NLMSG_HDRLEN))->version = kf_chance(80) ?
			f->version : kf_rand();
		n = kf_below(6);
		for (i = 0; i < n; i++)
			kf_value(m, f, kf_below(64), &(struct kf_attr){ .type = kf_below(17),
									  .nested = -1,
									  .max_u = UINT64_MAX,
									  .max_s = INT64_MAX,
									  .min_s = INT64_MIN },
				 2);
		kf_finish(m);
		return cmd;
	}
	if (kind < 50 && seeds && kf_from_seed(m, f, c))
		return c->cmd;
	kf_hdr(m, f, c->cmd, dump);
	if (c->policy >= 0 || kf_chance(10))
		kf_attrs(m, f, c->policy, 0);
	if (kind >= 85 && m->len > NLMSG_HDRLEN + GENL_HDRLEN) {
		unsigned int body = m->len - NLMSG_HDRLEN - GENL_HDRLEN;

		switch (kf_below(3)) {
		case 0:	/* flip bytes */
			n = 1 + kf_below(4);
			for (i = 0; i < n; i++)
				m->b[NLMSG_HDRLEN + GENL_HDRLEN + kf_below(body)] ^= 1 << kf_below(8);
			break;
		case 1:	/* bend an attribute length: the first one */
			((struct nlattr *)(m->b + NLMSG_HDRLEN + GENL_HDRLEN))->nla_len +=
				(int)kf_below(17) - 8;
			break;
		default:	/* cut the tail */
			m->len -= kf_below(body) & ~3u;
			break;
		}
	}
	kf_finish(m);
	return c->cmd;
}

/* ---- sending ----------------------------------------------------------- */

struct kf_stats {
	unsigned long sent, ok, errors, timeouts, reopens, started;
	unsigned long ok_by_cmd[256];
};

static int kf_open(void)
{
	struct timeval tv = { .tv_sec = 5 };
	int fd = kt_nl_open();
	int big = 1 << 20;

	if (fd < 0)
		return fd;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	return fd;
}

/* Send @m and read its answer: see kf_exchange(). */
static int kf_send(int fd, struct kf_buf *m, uint32_t seq)
{
	return kf_exchange(fd, m->b, m->len, seq, NULL, NULL);
}

static void kf_stop_all(int fd, const struct kf_family *f, uint32_t *seq)
{
	struct kf_buf m;

	/* every sampling session (several run side by side since ABI 1.10) */
	kt_stop_any(fd, f->id);
	kf_hdr(&m, f, f->count_stop_cmd, false);
	kf_finish(&m);
	kf_send(fd, &m, ++*seq);
}

/*
 * Fuzz for up to @seconds or @max messages.  A message that gets no answer
 * within the socket timeout, when it was well formed enough to deserve
 * one, is counted in timeouts (the caller asserts none).
 */
static void kf_fuzz(const struct kf_family *f, unsigned int seconds, unsigned long max,
		    struct kf_stats *st)
{
	unsigned long max_sessions = kf_env("KPROF_FUZZ_SESSIONS", 150);
	struct timespec t0, now;
	unsigned int follow = 0;
	uint32_t seq = 1;
	struct kf_buf m;
	int fd = kf_open();

	kf_make_seeds(f);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (fd >= 0 && st->sent < max) {
		const struct kf_cmd *c = kf_pick_cmd(f);
		uint8_t cmd;
		int err;

		if ((st->sent & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec >= seconds)
				break;
		}
		/*
		 * Favour the commands that start something, up to a number of
		 * sessions: starting one costs a thousand times a refusal.
		 */
		if (st->started < max_sessions && kf_chance(10))
			c = &f->cmds[kf_chance(50) ? f->start_cmd - 1 : f->count_start_cmd - 1];
		cmd = kf_build(&m, f, c, st->started < max_sessions);
		err = kf_send(fd, &m, ++seq);
		st->sent++;
		if (!err) {
			st->ok++;
			st->ok_by_cmd[cmd]++;
			if (cmd == f->start_cmd || cmd == f->count_start_cmd) {
				st->started++;
				follow = 1 + kf_below(8);
			}
		} else if (err == -ETIMEDOUT) {
			st->timeouts++;
		} else {
			st->errors++;
		}
		if (err == -ENOBUFS || err == -ETIMEDOUT || err == -EBADF) {
			/* a lost ACK or a wedged socket: start over on a new one */
			close(fd);
			fd = kf_open();
			st->reopens++;
		}
		if (follow && !--follow)
			kf_stop_all(fd, f, &seq);
	}
	if (fd >= 0) {
		kf_stop_all(fd, f, &seq);
		close(fd);
	}
}

static void kf_seed(struct __test_metadata *_metadata)
{
	kf_state = kf_env("KPROF_FUZZ_SEED", 0);
	if (!kf_state)
		kf_state = (uint64_t)time(NULL) * 2654435761u ^ getpid();
	TH_LOG("seed %llu (KPROF_FUZZ_SEED replays it)", (unsigned long long)kf_state);
}

static void kf_setup(struct __test_metadata *_metadata, struct kf_family *f)
{
	int fd, err;

	ASSERT_EQ(0, kt_ensure_loaded());
	ASSERT_EQ(0, kf_read_counts(&kf_names));
	fd = kt_nl_open();
	ASSERT_LE(0, fd);
	err = kf_load_family(fd, f);
	close(fd);
	ASSERT_EQ(0, err);
}

static const char *kf_cmd_name(uint8_t cmd)
{
	return cmd >= 1 && cmd <= kf_names.nr ? kf_names.name[cmd - 1] : "?";
}

FIXTURE(nlfuzz) {
	struct kf_family f;
};

FIXTURE_SETUP(nlfuzz)
{
	kf_setup(_metadata, &self->f);
}

FIXTURE_TEARDOWN(nlfuzz)
{
}

/* The policy dump names every command the module counts, with policies. */
TEST_F(nlfuzz, policy_from_the_family)
{
	struct kf_family f = self->f;
	unsigned int i, withpol = 0;

	ASSERT_EQ(kf_names.nr, f.nr_cmds);
	for (i = 0; i < f.nr_cmds; i++) {
		const struct kf_cmd *c = &f.cmds[i];

		TH_LOG("%-12s %s%s policy %d (%u attributes)", kf_cmd_name(c->cmd),
		       c->do_ ? "do" : "", c->dump ? "dump" : "", c->policy,
		       c->policy >= 0 ? f.pol[c->policy].maxtype : 0);
		EXPECT_TRUE(c->do_ || c->dump);
		withpol += c->policy >= 0;
	}
	/* START, COUNT_START, COUNT_READ, COUNT_STOP and VERSION have policies */
	EXPECT_LE(5, withpol);
	ASSERT_LT(0, f.start_cmd);
	ASSERT_LT(0, f.count_start_cmd);
	/* the event nest of START points at a policy of its own */
	ASSERT_LE(0, f.cmds[f.start_cmd - 1].policy);
	EXPECT_EQ(NL_ATTR_TYPE_NESTED,
		  f.pol[f.cmds[f.start_cmd - 1].policy].a[KPROF_A_SESSION_EVENT].type);
	EXPECT_LE(0, f.pol[f.cmds[f.start_cmd - 1].policy].a[KPROF_A_SESSION_EVENT].nested);
}

TEST_F_TIMEOUT(nlfuzz, fuzz_as_root, 300)
{
	unsigned int secs = kf_env("KPROF_FUZZ_SECONDS", 40);
	unsigned long max = kf_env("KPROF_FUZZ_MESSAGES", 100000);
	struct kf_counts before, after;
	struct kf_stats st = {};
	const struct kf_family *f = &self->f;
	unsigned int i;

	kf_seed(_metadata);
	ASSERT_EQ(0, kf_read_counts(&before));
	kf_fuzz(f, secs, max, &st);
	ASSERT_EQ(0, kf_read_counts(&after));
	TH_LOG("%lu messages in %u s at most: %lu accepted, %lu refused, %lu sessions started, "
	       "%lu sockets reopened", st.sent, secs, st.ok, st.errors, st.started, st.reopens);
	EXPECT_EQ(0, st.timeouts);
	EXPECT_LE(kf_env("KPROF_FUZZ_MIN", 10000), st.sent);
	EXPECT_LT(0, st.started);
	for (i = 0; i < after.nr; i++) {
		long h = after.handled[i] - before.handled[i];

		TH_LOG("%-12s reached its handler %6ld times, %6lu succeeded", after.name[i], h,
		       st.ok_by_cmd[i + 1]);
		EXPECT_LE(KF_MIN_HANDLED, h) {
			TH_LOG("%s: fewer than %d messages got past validation", after.name[i],
			       KF_MIN_HANDLED);
		}
		EXPECT_EQ(0, after.refused[i] - before.refused[i]);
	}
}

TEST_F_TIMEOUT(nlfuzz, fuzz_unprivileged, 200)
{
	unsigned int secs = kf_env("KPROF_FUZZ_SECONDS", 40) / 4 + 1;
	unsigned long max = kf_env("KPROF_FUZZ_MESSAGES", 100000) / 4;
	struct kf_counts before, after;
	struct kf_stats *st;
	const struct kf_family *f = &self->f;
	unsigned int i;
	int status, version;
	pid_t pid;

	kf_seed(_metadata);
	version = kf_cmd_by_name("VERSION");
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);
	memset(st, 0, sizeof(*st));
	ASSERT_EQ(0, kf_read_counts(&before));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		static const char * const files[] = {
			"/dev/kprof", KF_DEBUGFS "/status", KF_DEBUGFS "/stats",
			KF_DEBUGFS "/report", KF_DEBUGFS "/folded", KF_DEBUGFS "/netlink",
			KF_DEBUGFS "/counters", KF_DEBUGFS "/reset",
		};
		unsigned int j;

		if (kt_become_nobody())
			_exit(2);
		for (j = 0; j < sizeof(files) / sizeof(files[0]); j++) {
			int fd = open(files[j], O_RDONLY);

			if (fd >= 0 || (errno != EACCES && errno != EPERM)) {
				fprintf(stderr, "# %s: opened by nobody (%s)\n", files[j],
					fd >= 0 ? "ok" : strerror(errno));
				_exit(3);
			}
		}
		kf_fuzz(f, secs, max, st);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, kf_read_counts(&after));
	TH_LOG("nobody: %lu messages, %lu accepted (VERSION: %lu)", st->sent, st->ok,
	       st->ok_by_cmd[version]);
	EXPECT_EQ(0, st->timeouts);
	EXPECT_LE(kf_env("KPROF_FUZZ_MIN", 10000) / 4, st->sent);
	EXPECT_EQ(st->ok, st->ok_by_cmd[version]);
	EXPECT_LT(0, st->ok_by_cmd[version]);
	for (i = 0; i < after.nr; i++) {
		long h = after.handled[i] - before.handled[i];
		long r = after.refused[i] - before.refused[i];

		TH_LOG("%-12s handled %6ld refused %6ld", after.name[i], h, r);
		if ((int)i + 1 == version)
			continue;
		EXPECT_EQ(0, h);
		EXPECT_LE(KF_MIN_HANDLED / 4, r);
	}
	munmap(st, sizeof(*st));
}

/* After all that, the module records: a short aggregate session counts samples. */
TEST_F(nlfuzz, records_afterwards)
{
	const struct kf_family *f = &self->f;
	unsigned long long inv = 0;
	unsigned int nr;
	uint64_t stride;
	struct kt_msg m;
	char line[256];
	FILE *fp;
	int fd;

	fd = kt_nl_open();
	ASSERT_LE(0, fd);
	kt_start_init(&m, f->id, KPROF_SESSION_F_SYSTEM_WIDE | KPROF_SESSION_F_AGGREGATE |
		      KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_OWNED, 997, 0);
	kt_put_event(&m, &kt_cpu_clock);
	ASSERT_EQ(0, kt_start(fd, &m, &stride, &nr)) {
		TH_LOG("START: %s", m.extack);
	}
	kt_spin_ms(300);
	fp = fopen(KF_DEBUGFS "/stats", "r");
	ASSERT_NE(NULL, fp);
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, "all ", 4))
			sscanf(line + 4, "%llu", &inv);
	fclose(fp);
	TH_LOG("a 300 ms aggregate session after fuzzing: %llu samples", inv);
	EXPECT_LT(10, inv);
	EXPECT_EQ(0, kt_stop(fd, f->id, &m));
	close(fd);
}

TEST_HARNESS_MAIN
