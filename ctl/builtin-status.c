// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl status [-v] [--json]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>

#include <linux/kprof.h>

#include "builtin.h"
#include "lib/json.h"
#include "lib/nl.h"
#include "lib/parse-options.h"
#include "lib/proto.h"
#include "lib/rundir.h"
#include "lib/session.h"
#include "lib/util.h"

static const char * const status_usage[] = {
	"kprofctl status [--id <id>] [-v] [--json]",
	"",
	"Show the state of kprof.ko: session state, module and kernel release,",
	"CPUs, sessions started and /dev/kprof readers open since the module was",
	"loaded, and its uptime; one session in detail (the most recently",
	"started running one, or --id's): its id, flags, mode (stream, aggregate",
	"or both) and statistics, with each mode's balance (with -v per CPU);",
	"then every session it holds, one line each (id, state, mode, owner,",
	"user, events, age, memory, samples, lost), and for a session with CPUs",
	"that came up and got no buffer (out of memory or over the budget) a",
	"line saying how many and what was lost on CPUs without one.  Needs",
	"CAP_PERFMON or CAP_SYS_ADMIN.",
	NULL
};

/* @bytes in MiB, one decimal ("17.6M"). */
static const char *status__mib(char *buf, size_t len, uint64_t bytes)
{
	snprintf(buf, len, "%.1fM", bytes / 1048576.0);
	return buf;
}

static void status__print_text(const struct kp_version_info *v,
			       const struct kp_status_info *st, uint64_t now_ns)
{
	const char *state = kp_state__name(st->state);
	char abi[16], uptime[64] = "unknown (clock mismatch)";
	uint64_t up;

	if (!kp_uptime_ns(st->loaded_ns, now_ns, &up))
		kp_fmt_duration(uptime, sizeof(uptime), up);

	if (state)
		printf("state:     %s\n", state);
	else
		printf("state:     unknown (%u)\n", st->state);
	printf("module:    kprof.ko %s (ABI %s) on %s\n", v->release,
	       kp_fmt_abi(abi, sizeof(abi), v->abi), v->kernel);
	printf("cpus:      %u possible, %u online\n", st->nr_cpus, st->online_cpus);
	printf("sessions:  %" PRIu64 " started\n", st->sessions);
	printf("readers:   %u open\n", st->readers);
	if (st->has_budget) {
		char used[32], budget[32];

		printf("memory:    %s of the sessions' budget of %s\n",
		       status__mib(used, sizeof(used), st->mem),
		       status__mib(budget, sizeof(budget), st->budget));
	}
	printf("uptime:    %s\n", uptime);
}

static bool streams(uint32_t flags);

/*
 * "pid N (comm)" of a session's owner, the name while that process lives
 * in this PID namespace; "detached" without one.
 */
static const char *status__owner(uint32_t pid, char *buf, size_t len)
{
	char path[32], comm[32] = "";
	FILE *f;

	if (!pid)
		return snprintf(buf, len, "detached"), buf;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/comm", pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	comm[strcspn(comm, "\n")] = '\0';
	if (comm[0])
		snprintf(buf, len, "pid %" PRIu32 " (%s)", pid, comm);
	else
		snprintf(buf, len, "pid %" PRIu32, pid);
	return buf;
}

/* How long ago @start_ns was, or "?". */
static const char *status__age(uint64_t start_ns, uint64_t now_ns, char *buf, size_t len)
{
	uint64_t ago;

	if (kp_uptime_ns(start_ns, now_ns, &ago))
		snprintf(buf, len, "?");
	else
		kp_fmt_duration(buf, len, ago);
	return buf;
}

/*
 * The sessions the module holds (ABI 1.10), one line each, then (ABI 1.14)
 * the counting sessions of kprofctl stat, numbered apart: "c1", "c2", ...
 */
/* The daemon of session @id, if one runs it (lib/rundir.h's ID/daemon): one line. */
static void status__print_daemon(uint64_t id)
{
	struct kp_daemon_state d;
	char a[32], b[32];
	struct kp_err err;
	time_t t;
	struct tm tm;

	if (kp_rundir__read_daemon(id, &d, &err))
		return;
	printf("session %" PRIu64 ": kprofctl daemon (pid %d), %.0f s intervals into %s (%s): %" PRIu64
	       " saved, %" PRIu64 " not saved, %" PRIu64 " removed", id, (int)d.pid,
	       d.interval_ms / 1e3, d.dir, d.formats, d.saved, d.not_saved, d.removed);
	if (d.last_seq) {
		t = d.last_end_ns / 1000000000ULL;
		strftime(b, sizeof(b), "%H:%M:%S", gmtime_r(&t, &tm));
		t = d.last_start_ns / 1000000000ULL;
		strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
		printf("; last %" PRIu64 ": %s to %s UTC, %" PRIu64 " samples", d.last_seq, a, b,
		       d.last_samples);
	}
	if (*d.upload)
		printf("; upload to %s: %" PRIu64 " waiting", d.upload, d.spooled);
	printf("\n");
}

static void status__print_sessions(const struct kp_session_row *rows, unsigned int nr,
				   unsigned int shown, const struct kp_status_info *st,
				   uint64_t now_ns)
{
	char owner[48], age[64], mem[32], id[24];
	unsigned int i;

	if (!nr && !st->nr_counts)
		return;
	printf("\n%6s  %-8s %-17s %-22s %6s %6s %12s %9s %12s %10s\n", "ID", "STATE", "MODE",
	       "OWNER", "UID", "EVENTS", "STARTED", "MEMORY", "SAMPLES", "LOST");
	for (i = 0; i < shown; i++) {
		const struct kp_session_row *r = &rows[i];
		const struct kp_stats *t = &r->stats;
		bool agg = !streams(r->flags);

		printf("%6" PRIu64 "  %-8s %-17s %-22s %6u %6u %12s %9s %12" PRIu64 " %10" PRIu64 "\n",
		       r->id, kp_state__name(r->state) ? kp_state__name(r->state) : "unknown",
		       kp_session_mode__name(r->flags), status__owner(r->owner_pid, owner, sizeof(owner)),
		       r->uid, r->nr_events, status__age(r->start_ns, now_ns, age, sizeof(age)),
		       status__mib(mem, sizeof(mem), r->mem),
		       agg ? t->agg[KP_AGG_STAT_SAMPLES] : t->v[KP_STAT_SAMPLES],
		       (agg ? kp_stats__agg_lost(t) : kp_stats__lost(t)) + r->lost_no_ring);
	}
	if (shown < nr)
		printf("%6s  (%u more)\n", "...", nr - shown);
	for (i = 0; i < st->nr_counts; i++) {
		const struct kp_count_row *c = &st->counts[i];

		snprintf(id, sizeof(id), "c%" PRIu64, c->id);
		printf("%6s  %-8s %-17s %-22s %6u %6u %12s %9s %12s %10s\n", id,
		       kp_state__name(c->state) ? kp_state__name(c->state) : "unknown", "counting",
		       status__owner(c->owner_pid, owner, sizeof(owner)), c->uid, c->nr_events,
		       status__age(c->start_ns, now_ns, age, sizeof(age)),
		       status__mib(mem, sizeof(mem), c->mem), "-", "-");
	}
	for (i = 0; i < shown; i++)
		status__print_daemon(rows[i].id);
	for (i = 0; i < shown; i++)
		if (rows[i].cpus_skipped || rows[i].lost_no_ring)
			printf("session %" PRIu64 ": %" PRIu32 " CPUs that came up got no buffer "
			       "(out of memory or over the budget); %" PRIu64
			       " events lost on CPUs without one\n", rows[i].id,
			       rows[i].cpus_skipped, rows[i].lost_no_ring);
}

/* Does the session stream (explicitly, or with no mode flag, the default)? */
static bool streams(uint32_t flags)
{
	return !(flags & KPROF_SESSION_F_AGGREGATE) || (flags & KPROF_SESSION_F_STREAM);
}

/* @part of @whole in per cent, 0 of nothing. */
static unsigned int status__percent(uint64_t part, uint64_t whole)
{
	return whole ? (unsigned int)(part * 100 / whole) : 0;
}

/*
 * The fullest table (ABI 1.14): the most entries and pool frames any CPU's
 * table has held at once, against what it has, so that a user sees how
 * close the session came to losing samples to a full table.
 */
static void status__print_tables(const struct kp_stats *cpus, unsigned int nr)
{
	const struct kp_stats *e = NULL, *p = NULL;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const struct kp_stats *c = &cpus[i];

		if (!c->has_agg_use || !c->agg[KP_AGG_STAT_CAPACITY])
			continue;
		if (!e || c->agg_use[KP_AGG_USE_HIGH] * e->agg[KP_AGG_STAT_CAPACITY] >
			  e->agg_use[KP_AGG_USE_HIGH] * c->agg[KP_AGG_STAT_CAPACITY])
			e = c;
		if (!p || c->agg_use[KP_AGG_USE_POOL_HIGH] * p->agg_use[KP_AGG_USE_POOL_SIZE] >
			  p->agg_use[KP_AGG_USE_POOL_HIGH] * c->agg_use[KP_AGG_USE_POOL_SIZE])
			p = c;
	}
	if (!e)
		return;
	printf("tables:    at most %" PRIu64 " of %" PRIu64 " entries (%u%%, CPU %" PRIu32
	       "), %" PRIu64 " of %" PRIu64 " pool frames (%u%%, CPU %" PRIu32 ")\n",
	       e->agg_use[KP_AGG_USE_HIGH], e->agg[KP_AGG_STAT_CAPACITY],
	       status__percent(e->agg_use[KP_AGG_USE_HIGH], e->agg[KP_AGG_STAT_CAPACITY]), e->cpu,
	       p->agg_use[KP_AGG_USE_POOL_HIGH], p->agg_use[KP_AGG_USE_POOL_SIZE],
	       status__percent(p->agg_use[KP_AGG_USE_POOL_HIGH], p->agg_use[KP_AGG_USE_POOL_SIZE]),
	       p->cpu);
}

static void status__print_session(const struct kp_status_info *st, const struct kp_stats *cpus,
				  unsigned int nr_cpus)
{
	const struct kp_stats *t = &st->stats;
	char flags[128], size[32], rec[48];

	if (!st->has_session)
		return;
	printf("session:   %" PRIu64 ", flags %s, %s buffer per CPU\n", st->session_id,
	       kp_session_flags__format(st->session_flags, flags, sizeof(flags)),
	       kp_fmt_size(size, sizeof(size), st->buffer_size));
	printf("mode:      %s\n", kp_session_mode__name(st->session_flags));
	if (st->has_owner && st->owner_pid)
		printf("owner:     pid %" PRIu32 " (the session stops when its socket closes)\n",
		       st->owner_pid);
	else if (st->has_owner)
		printf("owner:     none (detached: runs until 'kprofctl stop')\n");
	if (!st->has_stats)
		return;
	if (streams(st->session_flags)) {
		printf("samples:   %" PRIu64 " stored, %" PRIu64 " lost (%" PRIu64 " buffer full, %"
		       PRIu64 " too big%s), %" PRIu64 " throttled\n", t->v[KP_STAT_SAMPLES],
		       kp_stats__lost(t), t->v[KP_STAT_LOST_FULL], t->v[KP_STAT_LOST_TOO_BIG],
		       kp_fmt_lost_tail(t->lost_recursion, t->lost_cost, rec, sizeof(rec)), t->v[KP_STAT_THROTTLED]);
		printf("balance:   %" PRIu64 " invocations = %" PRIu64 " stored + %" PRIu64
		       " lost: %s\n", t->v[KP_STAT_INVOCATIONS], t->v[KP_STAT_SAMPLES],
		       kp_stats__lost(t),
		       kp_stats__balanced(t) ? "ok" : "MISMATCH");
	}
	if ((st->session_flags & KPROF_SESSION_F_AGGREGATE) && t->has_agg) {
		printf("aggregate: %" PRIu64 " samples in %" PRIu64 " of %" PRIu64 " entries, %"
		       PRIu64 " lost (%" PRIu64 " table full, %" PRIu64 " during reset%s), %" PRIu64
		       " throttled\n", t->agg[KP_AGG_STAT_SAMPLES], t->agg[KP_AGG_STAT_USED],
		       t->agg[KP_AGG_STAT_CAPACITY], kp_stats__agg_lost(t),
		       t->agg[KP_AGG_STAT_LOST_FULL], t->agg[KP_AGG_STAT_LOST_RESET],
		       kp_fmt_lost_tail(t->lost_recursion, t->lost_cost, rec, sizeof(rec)), t->v[KP_STAT_THROTTLED]);
		printf("balance:   %" PRIu64 " invocations = %" PRIu64 " aggregated + %" PRIu64
		       " lost: %s\n", t->v[KP_STAT_INVOCATIONS], t->agg[KP_AGG_STAT_SAMPLES],
		       kp_stats__agg_lost(t), kp_stats__agg_balanced(t) ? "ok" : "MISMATCH");
		status__print_tables(cpus, nr_cpus);
	}
	if (st->has_maps)
		printf("kept maps: %" PRIu64 " mappings of %" PRIu64 " gone processes, %" PRIu64
		       " lost, %" PRIu64 " processes not followed, %" PRIu64 " unattributable\n",
		       st->maps.kept, st->maps.procs, st->maps.lost, st->maps.lost_pids,
		       st->maps.unowned);
	if (streams(st->session_flags)) {
		printf("side-band: %" PRIu64 " records, %" PRIu64 " lost\n", t->v[KP_STAT_SIDEBAND],
		       t->v[KP_STAT_SIDEBAND_LOST]);
		printf("written:   %" PRIu64 " bytes\n", t->v[KP_STAT_BYTES]);
	}
	if (t->has_filtered)
		printf("filtered:  %" PRIu64 " tracepoint hits dropped by filters\n", t->filtered);
	if (t->has_nested)
		printf("nested:    %" PRIu64 " records written inside another record's write\n",
		       t->nested);
	printf("stacks:    %" PRIu64 " kernel truncated, %" PRIu64 " user truncated, %" PRIu64
	       " user unreadable\n", t->v[KP_STAT_KSTACK_TRUNC], t->v[KP_STAT_USTACK_TRUNC],
	       t->v[KP_STAT_USTACK_FAULT]);
	printf("handler:   avg %" PRIu64 " ns, max %" PRIu64 " ns\n",
	       t->v[KP_STAT_INVOCATIONS] ? t->v[KP_STAT_HANDLER_NS] / t->v[KP_STAT_INVOCATIONS] : 0,
	       t->v[KP_STAT_HANDLER_MAX_NS]);
}

/* The daemon of session @id, if one runs it: "daemon": {...}. */
static void status__json_daemon(struct json_writer *w, uint64_t id)
{
	struct kp_daemon_state d;
	struct kp_err err;

	if (kp_rundir__read_daemon(id, &d, &err))
		return;
	json__begin_object(w, "daemon");
	json__u64(w, "pid", d.pid);
	json__u64(w, "interval_ms", d.interval_ms);
	json__string(w, "output_dir", d.dir);
	json__string(w, "formats", d.formats);
	json__u64(w, "intervals", d.intervals);
	json__u64(w, "saved", d.saved);
	json__u64(w, "not_saved", d.not_saved);
	json__u64(w, "removed", d.removed);
	json__u64(w, "last_seq", d.last_seq);
	json__u64(w, "last_start_ns", d.last_start_ns);
	json__u64(w, "last_end_ns", d.last_end_ns);
	json__u64(w, "last_samples", d.last_samples);
	if (*d.upload) {
		json__string(w, "upload", d.upload);
		json__u64(w, "upload_waiting", d.spooled);
	}
	json__end_object(w);
}

/*
 * One row per CPU: every counter, then whether the CPU balances; for an
 * aggregating session, the aggregation counters and their balance too.
 */
static void status__print_cpus(const struct kp_stats *cpus, unsigned int nr, bool agg)
{
	bool use = agg && nr && cpus[0].has_agg_use;
	unsigned int i, j;

	printf("\n%4s", "cpu");
	for (j = 0; j < KP_STATS_NR; j++)
		printf(" %14s", kp_stat__name(j));
	printf(" %8s", "balance");
	for (j = 0; agg && j < KP_AGG_STATS_NR; j++)
		printf(" %14s", kp_agg_stat__name(j));
	printf("%s", agg ? " agg_balance" : "");
	for (j = 0; use && j < KP_AGG_USE_NR; j++)
		printf(" %14s", kp_agg_use__name(j));
	printf("\n");
	for (i = 0; i < nr; i++) {
		printf("%4u", cpus[i].cpu);
		for (j = 0; j < KP_STATS_NR; j++)
			printf(" %14" PRIu64, cpus[i].v[j]);
		printf(" %8s", kp_stats__balanced(&cpus[i]) ? "ok" : "MISMATCH");
		for (j = 0; agg && j < KP_AGG_STATS_NR; j++)
			printf(" %14" PRIu64, cpus[i].agg[j]);
		if (agg)
			printf(" %11s", kp_stats__agg_balanced(&cpus[i]) ? "ok" : "MISMATCH");
		for (j = 0; use && j < KP_AGG_USE_NR; j++)
			printf(" %14" PRIu64, cpus[i].agg_use[j]);
		printf("\n");
	}
}

static void status__json_stats(struct json_writer *w, const char *key,
			       const struct kp_stats *st)
{
	unsigned int i;

	json__begin_object(w, key);
	if (st->has_cpu)
		json__u64(w, "cpu", st->cpu);
	for (i = 0; i < KP_STATS_NR; i++)
		json__u64(w, kp_stat__name(i), st->v[i]);
	for (i = 0; st->has_agg && i < KP_AGG_STATS_NR; i++)
		json__u64(w, kp_agg_stat__name(i), st->agg[i]);
	if (st->has_agg)
		json__bool(w, "agg_balanced", kp_stats__agg_balanced(st));
	for (i = 0; st->has_agg_use && i < KP_AGG_USE_NR; i++)
		json__u64(w, kp_agg_use__name(i), st->agg_use[i]);
	if (st->has_filtered)
		json__u64(w, "filtered", st->filtered);
	if (st->has_nested) {
		json__u64(w, "lost_recursion", st->lost_recursion);
		json__u64(w, "nested", st->nested);
		json__u64(w, "lost_cost", st->lost_cost);
	}
	json__bool(w, "balanced", kp_stats__balanced(st));
	json__end_object(w);
}

static void status__json_sessions(struct json_writer *w, const struct kp_session_row *rows,
				  unsigned int nr)
{
	char flags[128];
	unsigned int i;

	json__begin_array(w, "session_table");
	for (i = 0; i < nr; i++) {
		const struct kp_session_row *r = &rows[i];

		json__begin_object(w, NULL);
		json__u64(w, "id", r->id);
		json__string(w, "state", kp_state__name(r->state) ? kp_state__name(r->state) : "unknown");
		json__u64(w, "flags", r->flags);
		json__string(w, "flag_names", kp_session_flags__format(r->flags, flags, sizeof(flags)));
		json__string(w, "mode", kp_session_mode__name(r->flags));
		json__u64(w, "owner_pid", r->owner_pid);
		json__u64(w, "uid", r->uid);
		json__u64(w, "nr_events", r->nr_events);
		json__u64(w, "start_ns", r->start_ns);
		json__u64(w, "buffer_size", r->buffer_size);
		json__u64(w, "memory", r->mem);
		json__u64(w, "cpus_skipped", r->cpus_skipped);
		json__u64(w, "lost_no_ring", r->lost_no_ring);
		if (r->has_stats)
			status__json_stats(w, "stats", &r->stats);
		status__json_daemon(w, r->id);
		json__end_object(w);
	}
	json__end_array(w);
}

/* The counting sessions (ABI 1.14), numbered apart from the table's. */
static void status__json_counts(struct json_writer *w, const struct kp_status_info *st)
{
	char flags[128];
	unsigned int i;

	json__begin_array(w, "counting_sessions");
	for (i = 0; i < st->nr_counts; i++) {
		const struct kp_count_row *c = &st->counts[i];

		json__begin_object(w, NULL);
		json__u64(w, "id", c->id);
		json__string(w, "state", kp_state__name(c->state) ? kp_state__name(c->state) : "unknown");
		json__u64(w, "flags", c->flags);
		json__string(w, "flag_names", kp_session_flags__format(c->flags, flags, sizeof(flags)));
		json__u64(w, "owner_pid", c->owner_pid);
		json__u64(w, "uid", c->uid);
		json__u64(w, "nr_events", c->nr_events);
		json__u64(w, "start_ns", c->start_ns);
		json__u64(w, "memory", c->mem);
		json__end_object(w);
	}
	json__end_array(w);
}

static int status__print_json(const struct kp_version_info *v,
			      const struct kp_status_info *st, uint64_t now_ns,
			      const struct kp_stats *cpus, unsigned int nr_cpus, bool verbose,
			      const struct kp_session_row *rows, unsigned int nr_rows)
{
	const char *state = kp_state__name(st->state);
	struct json_writer w;
	uint64_t up;

	json_writer__init(&w, stdout);
	json__begin_object(&w, NULL);
	json__string(&w, "state", state ? state : "unknown");
	json__u64(&w, "state_id", st->state);
	json__string(&w, "release", v->release);
	json__begin_object(&w, "abi");
	json__u64(&w, "major", KPROF_ABI_VERSION_MAJOR(v->abi));
	json__u64(&w, "minor", KPROF_ABI_VERSION_MINOR(v->abi));
	json__end_object(&w);
	json__string(&w, "kernel", v->kernel);
	json__u64(&w, "cpus_possible", st->nr_cpus);
	json__u64(&w, "cpus_online", st->online_cpus);
	json__u64(&w, "sessions", st->sessions);
	json__u64(&w, "readers", st->readers);
	json__u64(&w, "loaded_ns", st->loaded_ns);
	if (kp_uptime_ns(st->loaded_ns, now_ns, &up))
		json__null(&w, "uptime_ns");
	else
		json__u64(&w, "uptime_ns", up);
	if (st->has_budget) {
		json__u64(&w, "memory", st->mem);
		json__u64(&w, "memory_budget", st->budget);
	}
	status__json_sessions(&w, rows, nr_rows);
	status__json_counts(&w, st);
	if (st->has_session) {
		char flags[128];
		unsigned int i;

		json__begin_object(&w, "session");
		json__u64(&w, "id", st->session_id);
		json__u64(&w, "flags", st->session_flags);
		json__string(&w, "flag_names",
			     kp_session_flags__format(st->session_flags, flags, sizeof(flags)));
		json__string(&w, "mode", kp_session_mode__name(st->session_flags));
		json__u64(&w, "buffer_size", st->buffer_size);
		json__u64(&w, "mmap_stride", st->mmap_stride);
		if (st->has_owner)
			json__u64(&w, "owner_pid", st->owner_pid);
		if (st->has_stats)
			status__json_stats(&w, "stats", &st->stats);
		else
			json__null(&w, "stats");
		if (st->has_maps) {
			json__begin_object(&w, "kept_maps");
			json__u64(&w, "kept", st->maps.kept);
			json__u64(&w, "procs", st->maps.procs);
			json__u64(&w, "lost", st->maps.lost);
			json__u64(&w, "lost_pids", st->maps.lost_pids);
			json__u64(&w, "unowned", st->maps.unowned);
			json__end_object(&w);
		}
		if (verbose) {
			json__begin_array(&w, "cpus");
			for (i = 0; i < nr_cpus; i++)
				status__json_stats(&w, NULL, &cpus[i]);
			json__end_array(&w);
		}
		json__end_object(&w);
	} else {
		json__null(&w, "session");
	}
	json__end_object(&w);
	return json_writer__finish(&w);
}

int cmd_status(int argc, const char **argv)
{
	const char *cmd = argv[0];
	bool json = false;
	int verbose = 0;
	uint64_t id = 0;
	const struct option options[] = {
		OPT_U64(0, "id", &id, "id", "the session shown in detail (default: the most recent running)"),
		OPT_INCR('v', "verbose", &verbose, "add per-CPU statistics"),
		OPT_BOOLEAN(0, "json", &json, "print one JSON object"),
		OPT_END()
	};
	struct kp_version_info ver;
	struct kp_status_info st;
	struct kp_session_row *rows = NULL;
	struct kp_stats *cpus = NULL;
	unsigned int nr_cpus = 0, nr_rows = 0;
	struct kp_err err;
	struct kp_nl *nl;
	int ret = KP_EXIT_FAILURE;

	argc = parse_options(argc, argv, options, status_usage, 0);
	if (argc < 0)
		return parse_options_exit_code(argc);
	if (parse_options_max_args(cmd, argc, argv, 0))
		return KP_EXIT_USAGE;

	nl = kp_nl__open(&err);
	if (!nl)
		goto out_err;
	if (kp_nl__hello(nl, &ver, &err))
		goto out_err;
	kp_nl__set_session(nl, id);
	/* the sessions' list comes with the status from ABI 1.10 on */
	rows = calloc(KP_STATUS_SESSIONS_MAX, sizeof(*rows));
	if (!rows) {
		kp_err__set(&err, ENOMEM, "%s", strerror(ENOMEM));
		goto out_err;
	}
	if (kp_nl__status_sessions(nl, &st, rows, KP_STATUS_SESSIONS_MAX, &nr_rows, &err))
		goto out_err;

	/*
	 * per CPU for -v, and for the fullest table of an aggregating
	 * session: of the session shown, named (with several running, the
	 * module answers a request without an id with EINVAL)
	 */
	if ((verbose || (st.session_flags & KPROF_SESSION_F_AGGREGATE)) && st.has_session) {
		kp_nl__set_session(nl, st.session_id);
		if (kp_nl__stats(nl, &cpus, &nr_cpus, &err))
			goto out_err;
	}

	if (json) {
		status__print_json(&ver, &st, kp_clock_ns(), cpus, nr_cpus, verbose, rows,
				   (nr_rows < KP_STATUS_SESSIONS_MAX ? nr_rows : KP_STATUS_SESSIONS_MAX));
	} else {
		status__print_text(&ver, &st, kp_clock_ns());
		status__print_session(&st, cpus, nr_cpus);
		if (verbose && st.has_session)
			status__print_cpus(cpus, nr_cpus,
					   st.session_flags & KPROF_SESSION_F_AGGREGATE);
		status__print_sessions(rows, nr_rows,
				       nr_rows < KP_STATUS_SESSIONS_MAX ? nr_rows : KP_STATUS_SESSIONS_MAX,
				       &st, kp_clock_ns());
	}
	ret = KP_EXIT_OK;
	goto out;

out_err:
	kp_err__print(&err, cmd);
out:
	free(rows);
	free(cpus);
	kp_nl__delete(nl);
	return ret;
}
