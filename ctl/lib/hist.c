// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms kept in kprof.ko; see hist.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "error.h"
#include "hist.h"
#include "nl.h"
#include "util.h"

struct kp_hist_dump {
	struct kp_hist	*hists;
	unsigned int	nr;
};

static int kp_hist__reply(const struct nlmsghdr *nlh, void *arg, struct kp_err *err)
{
	struct kp_hist_dump *d = arg;
	struct nlattr *tb[KPROF_A_MAX + 1], *nest, *a;
	struct kp_hist h = { 0 };
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
		case KPROF_HIST_A_COUNT:
			h.count = nla_get_u64(a);
			break;
		case KPROF_HIST_A_SUM_NS:
			h.sum_ns = nla_get_u64(a);
			break;
		case KPROF_HIST_A_MAX_NS:
			h.max_ns = nla_get_u64(a);
			break;
		case KPROF_HIST_A_MISSED:
			h.missed = nla_get_u64(a);
			break;
		case KPROF_HIST_A_BUCKETS:
			if (nla_len(a) != sizeof(h.buckets))
				goto bad;
			memcpy(h.buckets, nla_data(a), sizeof(h.buckets));
			break;
		}
	}
	if (!has_event || h.event >= d->nr)
		goto bad;
	d->hists[h.event] = h;
	return 0;
bad:
	kp_err__set(err, EBADMSG, "malformed HIST_DUMP reply from kprof.ko");
	return -EBADMSG;
}

int kp_nl__hist_dump(struct kp_nl *nl, struct kp_hist *hists, unsigned int nr,
		     struct kp_err *err)
{
	struct kp_hist_dump d = { hists, nr };
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, kp_nl__family(nl), 0,
				 NLM_F_DUMP, KPROF_CMD_HIST_DUMP, KPROF_FAMILY_VERSION)) {
		nlmsg_free(msg);
		kp_err__set(err, ENOMEM, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memset(hists, 0, nr * sizeof(*hists));
	return kp_nl__request(nl, msg, kp_hist__reply, &d, err);
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

int kp_hist_run__stop(struct kp_hist_run *r, struct kp_err *err)
{
	struct kp_stop_info stop;

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
