// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms kept in kprof.ko; see hist.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "error.h"
#include "hist.h"
#include "nl.h"
#include "sys.h"
#include "util.h"

struct kp_hist_dump {
	struct kp_hist		*hists;
	unsigned int		nr;
	struct kp_hist_keys	*keys;
};

/* Add the @n struct kprof_hist_key of @data (one CPU's) of event @event. */
static int hist_keys__add(struct kp_hist_keys *k, uint32_t event, const void *data, size_t n)
{
	size_t i;

	if (k->nr + n > k->alloc) {
		size_t alloc = k->alloc ? k->alloc : 256;
		struct kp_hist_key *p;

		while (alloc < k->nr + n)
			alloc *= 2;
		p = realloc(k->keys, alloc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		k->keys = p;
		k->alloc = alloc;
	}
	for (i = 0; i < n; i++) {
		struct kprof_hist_key in;
		struct kp_hist_key *out = &k->keys[k->nr++];

		memcpy(&in, (const char *)data + i * sizeof(in), sizeof(in));
		out->event = event;
		out->key = in.key;
		memcpy(out->buckets, in.buckets, sizeof(out->buckets));
	}
	return 0;
}

static int key_cmp(const void *pa, const void *pb)
{
	const struct kp_hist_key *a = pa, *b = pb;

	if (a->event != b->event)
		return a->event < b->event ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

void kp_hist_keys__merge(struct kp_hist_keys *k)
{
	size_t i, out = 0;
	unsigned int b;

	if (!k->nr)
		return;
	qsort(k->keys, k->nr, sizeof(*k->keys), key_cmp);
	for (i = 1; i < k->nr; i++) {
		struct kp_hist_key *m = &k->keys[out];

		if (!key_cmp(m, &k->keys[i])) {
			for (b = 0; b < KPROF_RUNQLAT_KEY_BUCKETS; b++)
				m->buckets[b] += k->keys[i].buckets[b];
			continue;
		}
		k->keys[++out] = k->keys[i];
	}
	k->nr = out + 1;
}

int kp_hist_keys__sub(struct kp_hist_keys *out, const struct kp_hist_keys *a,
		      const struct kp_hist_keys *b)
{
	size_t i, j = 0;
	unsigned int x;

	out->nr = 0;
	for (i = 0; i < a->nr; i++) {
		struct kp_hist_key d = a->keys[i];

		while (j < b->nr && key_cmp(&b->keys[j], &d) < 0)
			j++;
		if (j < b->nr && !key_cmp(&b->keys[j], &d))
			for (x = 0; x < KPROF_RUNQLAT_KEY_BUCKETS; x++)
				d.buckets[x] -= b->keys[j].buckets[x];
		for (x = 0; x < KPROF_RUNQLAT_KEY_BUCKETS && !d.buckets[x]; x++)
			;
		if (x == KPROF_RUNQLAT_KEY_BUCKETS)
			continue;	/* nothing new for this key */
		if (out->nr == out->alloc) {
			size_t alloc = out->alloc ? out->alloc * 2 : 256;
			struct kp_hist_key *p = realloc(out->keys, alloc * sizeof(*p));

			if (!p)
				return -ENOMEM;
			out->keys = p;
			out->alloc = alloc;
		}
		out->keys[out->nr++] = d;
	}
	return 0;
}

void kp_hist_keys__exit(struct kp_hist_keys *k)
{
	free(k->keys);
	memset(k, 0, sizeof(*k));
}

void kp_hist_key__hist(const struct kp_hist_key *k, struct kp_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->event = k->event;
	memcpy(h->buckets, k->buckets, sizeof(k->buckets));
}

static int kp_hist__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_hist_dump *d = arg;
	struct nlattr *tb[KPROF_A_MAX + 1], *nest, *a;
	struct kp_hist h = { 0 };
	const struct nlattr *keys = NULL;
	bool has_event = false;
	int rem;

	if (genlmsg_parse((struct nlmsghdr *)nlh, 0, tb, KPROF_A_MAX, NULL) < 0)
		goto bad;
	nest = tb[KPROF_A_HIST];
	if (!nest)
		return 0;
	nla_for_each_nested(a, nest, rem) {
		switch (nla_type(a)) {
		case KPROF_HIST_A_EVENT:
			if (nla_len(a) != 4)
				goto bad;
			h.event = nla_get_u32(a);
			has_event = true;
			break;
		case KPROF_HIST_A_TYPE:
			if (nla_len(a) != 4)
				goto bad;
			h.type = nla_get_u32(a);
			break;
		case KPROF_HIST_A_CONFIG:
		case KPROF_HIST_A_COUNT:
		case KPROF_HIST_A_SUM_NS:
		case KPROF_HIST_A_MAX_NS:
		case KPROF_HIST_A_MISSED:
		case KPROF_HIST_A_KEYS_LOST:
			if (nla_len(a) != 8)
				goto bad;
			*(nla_type(a) == KPROF_HIST_A_CONFIG ? &h.config :
			  nla_type(a) == KPROF_HIST_A_COUNT ? &h.count :
			  nla_type(a) == KPROF_HIST_A_SUM_NS ? &h.sum_ns :
			  nla_type(a) == KPROF_HIST_A_MAX_NS ? &h.max_ns :
			  nla_type(a) == KPROF_HIST_A_MISSED ? &h.missed : &h.keys_lost) =
				nla_get_u64(a);
			break;
		case KPROF_HIST_A_BUCKETS:
			if (nla_len(a) != sizeof(h.buckets))
				goto bad;
			memcpy(h.buckets, nla_data(a), sizeof(h.buckets));
			break;
		case KPROF_HIST_A_KEYS:
			if (nla_len(a) % sizeof(struct kprof_hist_key))
				goto bad;
			keys = a;
			break;
		}
	}
	if (!has_event || h.event >= d->nr)
		goto bad;
	if (keys) {
		/* a message of keys only: the event's histogram came first */
		if (d->keys && hist_keys__add(d->keys, h.event, nla_data(keys),
					      nla_len(keys) / sizeof(struct kprof_hist_key))) {
			kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
			return -ENOMEM;
		}
		return 0;
	}
	d->hists[h.event] = h;
	return 0;
bad:
	kp_err__set(err, EBADMSG, "malformed HIST_DUMP reply from kprof.ko");
	return -EBADMSG;
}

int kp_nl__hist_dump(struct kp_nl *nl, struct kp_hist *hists, unsigned int nr,
		     struct kp_hist_keys *keys, struct kp_err *err)
{
	struct kp_hist_dump d = { hists, nr, keys };
	struct nl_msg *msg = nlmsg_alloc();
	int ret;

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0,
				 NLM_F_DUMP, KPROF_CMD_HIST_DUMP, KPROF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(hists, 0, nr * sizeof(*hists));
	if (keys)
		keys->nr = 0;
	ret = kp_nl__request(nl, msg, kp_hist__reply, &d, err);
	if (!ret && keys)
		kp_hist_keys__merge(keys);
	return ret;
}

void kp_hist__sub(struct kp_hist *out, const struct kp_hist *a, const struct kp_hist *b)
{
	unsigned int i;

	*out = *a;
	for (i = 0; i < KPROF_HIST_BUCKETS; i++)
		out->buckets[i] = a->buckets[i] - b->buckets[i];
	out->count = a->count - b->count;
	out->sum_ns = a->sum_ns - b->sum_ns;
	out->missed = a->missed - b->missed;
	out->keys_lost = a->keys_lost - b->keys_lost;
}

void kp_hist__ns_rows(const struct kp_hist *h, unsigned int div, uint64_t *rows)
{
	unsigned int i;

	memset(rows, 0, KP_HIST_ROWS * sizeof(*rows));
	for (i = 0; i < KPROF_HIST_BUCKETS; i++) {
		uint64_t v = (1ULL << i) / div;

		rows[v ? 64 - __builtin_clzll(v) : 1] += h->buckets[i];
	}
}

void kp_hist__unit_rows(const struct kp_hist *h, uint64_t *rows)
{
	unsigned int i;

	memset(rows, 0, KP_HIST_ROWS * sizeof(*rows));
	/* as BCC's bpf_log2l(): a value of 0 shares row 1 with 1 */
	rows[1] = h->buckets[0];
	for (i = 1; i < KPROF_HIST_BUCKETS; i++)
		rows[i] += h->buckets[i];
}

uint64_t kp_hist__quantile_ns(const struct kp_hist *h, double q)
{
	uint64_t want, seen = 0;
	unsigned int i;

	if (!h->count)
		return 0;
	want = (uint64_t)(q * h->count + 0.999999);
	if (!want)
		want = 1;
	for (i = 0; i < KPROF_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= want) {
			uint64_t hi = i >= 63 ? UINT64_MAX : (2ULL << i) - 1;

			return hi < h->max_ns ? hi : h->max_ns;
		}
	}
	return h->max_ns;
}

void kp_hist__print_rows(FILE *fp, const uint64_t *rows, const char *unit)
{
	unsigned int i, last = 0, w;
	uint64_t max = 0;
	char star[41];

	for (i = 1; i < KP_HIST_ROWS; i++) {
		if (rows[i])
			last = i;
		if (rows[i] > max)
			max = rows[i];
	}
	w = last <= 32 ? 10 : 20;
	if (last <= 32)
		fprintf(fp, "     %-19s : count     distribution\n", unit);
	else
		fprintf(fp, "               %-29s : count     distribution\n", unit);
	for (i = 1; i <= last; i++) {
		uint64_t low = (1ULL << (i - 1)), high = i == 64 ? UINT64_MAX : (1ULL << i) - 1;
		unsigned int n = max ? (unsigned int)(rows[i] * 40 / max) : 0;

		if (low == high)
			low--;
		memset(star, '*', n);
		star[n] = '\0';
		fprintf(fp, "%*" PRIu64 " -> %-*" PRIu64 " : %-8" PRIu64 " |%-40s|\n", w, low, w,
			high, rows[i], star);
	}
}

int kp_hist_run__start(struct kp_hist_run *r, int argc, const char **argv,
		       void (*handler)(int), uint32_t min_abi, const char *what,
		       const char *cmd, struct kp_err *err)
{
	struct sigaction sa;
	int e;

	r->nl = kp_nl__open(err);
	if (!r->nl || kp_nl__hello(r->nl, &r->ver, err))
		return -1;
	if (r->ver.abi < min_abi) {
		kp_err__set(err, EOPNOTSUPP, "kprof.ko ABI %u.%u has no %s (%u.%u)",
			    r->ver.abi >> 16, r->ver.abi & 0xffff, what, min_abi >> 16,
			    min_abi & 0xffff);
		return -1;
	}
	r->has_command = argc > 0;
	if (argc) {
		if (kp_workload__prepare(&r->wl, argv, NULL, err))
			return -1;
		if (r->target == KP_TARGET_COMMAND) {
			r->s->pids[0] = r->wl.pid;
			r->s->nr_pids = 1;
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &r->old_int);
	sigaction(SIGTERM, &sa, &r->old_term);
	r->signals = true;
	if (r->live)
		return 0;

	kp_session__own(r->s, r->ver.abi);
	if (kp_nl__start(r->nl, r->s, &r->info, err))
		return -1;
	r->started = true;
	if (!argc)
		return 0;
	e = -kp_workload__start(&r->wl, err);
	if (e && !r->wl.exec_errno) {
		kp_err__set(err, e, "cannot start the command: %s", strerror(e));
		return -1;
	}
	/* the histograms of a command that cannot run are empty */
	if (e)
		kp_error(cmd, "cannot run '%s': %s", argv[0], strerror(r->wl.exec_errno));
	return 0;
}

int kp_hist_run__split_command(int argc, const char **argv, const char ***command,
			       int *nr_command)
{
	int i;

	*command = NULL;
	*nr_command = 0;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			*command = argv + i + 1;
			*nr_command = argc - i - 1;
			argv[i] = NULL;
			return i;
		}
	}
	return argc;
}

int kp_hist_run__session(struct kp_hist_run *r, struct kp_session_opts *opts, bool has_command,
			 const char *cmd, struct kp_err *err)
{
	r->s = calloc(1, sizeof(*r->s));
	if (!r->s) {
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -1;
	}
	/* a placeholder event: only the target of the options is used */
	opts->events[0] = "cpu-clock";
	opts->nr_event_args = 1;
	opts->buffer_size = "8K";
	if (kp_session__from_opts(r->s, &r->target, opts, has_command, true, cmd, err))
		return -1;
	r->s->nr_events = 0;
	r->s->flags &= ~(KPROF_SESSION_F_KERNEL_STACK | KPROF_SESSION_F_USER_STACK);
	return 0;
}

bool kp_hist_run__wait(struct kp_hist_run *r, unsigned long secs,
		       volatile sig_atomic_t *signalled)
{
	struct timespec nap = { 0, 100000000 };
	unsigned long i;

	for (i = 0; !secs || i < secs * 10; i++) {
		if (*signalled)
			return false;
		nanosleep(&nap, NULL);
		if (r && r->has_command && kp_workload__reap(&r->wl, false))
			return false;
		if (r && r->target == KP_TARGET_PIDS &&
		    !kp_sys__any_pid_exists(r->s->pids, r->s->nr_pids))
			return false;
	}
	return true;
}

int kp_hist_run__stop(struct kp_hist_run *r, struct kp_err *err)
{
	struct kp_stop_info stop;

	if (r->live)
		return KP_EXIT_OK;
	r->started = false;
	if (kp_nl__stop(r->nl, &stop, err))
		return -1;
	if (!r->has_command)
		return KP_EXIT_OK;
	kp_workload__reap(&r->wl, true);
	return kp_workload__exit_code(&r->wl);
}

void kp_hist_run__end(struct kp_hist_run *r)
{
	struct kp_stop_info stop;
	struct kp_err err;

	if (r->started)
		kp_nl__stop(r->nl, &stop, &err);
	r->started = false;
	kp_workload__abort(&r->wl, SIGKILL);
	if (r->signals) {
		sigaction(SIGINT, &r->old_int, NULL);
		sigaction(SIGTERM, &r->old_term, NULL);
	}
	r->signals = false;
	kp_nl__delete(r->nl);
	r->nl = NULL;
}

int kp_hist_run__args(int argc, const char **argv, bool all, unsigned int nr_pids,
		      const char **command, int nr_command, unsigned long *duration,
		      const char *cmd)
{
	char *end;

	*duration = 0;
	if (argc > 1) {
		kp_error(cmd, "unexpected argument '%s' (a command goes after --)", argv[1]);
		return -1;
	}
	if (argc == 1) {
		errno = 0;
		*duration = strtoul(argv[0], &end, 10);
		if (errno || end == argv[0] || *end || !*duration || argv[0][0] == '-') {
			kp_error(cmd, "bad duration '%s': whole seconds expected", argv[0]);
			return -1;
		}
	}
	if (command && !nr_command) {
		kp_error(cmd, "no command after --");
		return -1;
	}
	/* -a -- CMD is system-wide until the command exits, as in perf */
	if (all && nr_pids) {
		kp_error(cmd, "-a takes no -p");
		return -1;
	}
	if (command && *duration) {
		kp_error(cmd, "a duration ('%s') and a command: the command's run is the duration",
			 argv[0]);
		return -1;
	}
	return 0;
}

void kp_hist__report_waits(const uint64_t *o, const char *what, const char *cmd)
{
	uint64_t lost = o[KP_OFFCPU_STAT_LOST] + o[KP_OFFCPU_STAT_LOST_FULL] +
			o[KP_OFFCPU_STAT_LOST_RESET];

	if (lost)
		kp_error(cmd, "%" PRIu64 " of %" PRIu64 " %s lost (%" PRIu64 " table full, %" PRIu64
			 " reset, %" PRIu64 " thread slot shared or nested deeper)",
			 lost, o[KP_OFFCPU_STAT_BLOCKS], what, o[KP_OFFCPU_STAT_LOST_FULL],
			 o[KP_OFFCPU_STAT_LOST_RESET], o[KP_OFFCPU_STAT_LOST]);
	if (!kp_stats__waits_balanced(o))
		kp_error(cmd, "the %s counters do not balance: %" PRIu64 " begun, %" PRIu64
			 " done + %" PRIu64 " filtered + %" PRIu64 " lost + %" PRIu64 " open",
			 what, o[KP_OFFCPU_STAT_BLOCKS], o[KP_OFFCPU_STAT_DONE],
			 o[KP_OFFCPU_STAT_FILTERED], lost, o[KP_OFFCPU_STAT_OPEN]);
}

const char *kp_hist_run__whom(const struct kp_hist_run *r)
{
	return r->target == KP_TARGET_SYSTEM ? "all threads" :
	       r->target == KP_TARGET_COMMAND ? "the command" : "the processes";
}

void kp_hist_run__until(unsigned long duration)
{
	if (duration)
		fprintf(stderr, " for %lu secs.\n", duration);
	else
		fprintf(stderr, "... Hit Ctrl-C to end.\n");
}
