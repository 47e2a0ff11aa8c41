// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - debugfs files under /sys/kernel/debug/kprof/.
 *
 *	version	module release, ABI version and kernel release (0444)
 *	status	module and session state, one "key: value" per line (0400)
 *	stats	the session's per-CPU counters and their totals (0400)
 *	session	the session's configuration (0400)
 *	report	aggregated: per event, the hottest leaf functions (0400)
 *	folded	aggregated: one collapsed stack per line (0400)
 *	offcpu	off-CPU time per stack, folded as BCC's offcputime -f, in us (0400)
 *	lock	lock wait time per waiter's stack, folded, the lock as the leaf
 *		("[type name]"), in us (0400)
 *	wakers	off-CPU time per blocked stack and waker stack, folded as BCC's
 *		offwaketime -f, in us (0400)
 *	reset	writing 1 empties the aggregation tables (0200)
 *	probes	the session's kprobes and ftrace probes and their hits (0400)
 *	runqlat	the session's run-queue latency histograms, as BCC prints them (0400)
 *	counters the counting session's counts, per event and CPU (0400)
 *	netlink	requests past policy validation per command: handled, refused
 *		(0400; genl.c's, through kprof_debugfs_show_file())
 *	stages	make bench's stage build only: the sampling path's stages (0400)
 *	sessions/N/	(ABI 1.10) session N's stats, session, report, folded,
 *		offcpu, lock, wakers, reset, probes and runqlat
 *
 * The top-level session files show the default session: the most recently
 * started running one, else the most recently started one.  Each file
 * looks its session up at every read(2) (by id, or the default's id when
 * it was opened), never keeping a pointer to it.  The sessions/ directory
 * follows the session table: kprof_debugfs_sessions_sync(), which the
 * netlink layer calls after each START, STOP and socket release.
 *
 * Files that expose profiling state also check the kprof privilege on open,
 * so that a relaxed debugfs mount does not widen access.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>

#include "aggread.h"
#include "compat.h"
#include "core.h"
#include "counting.h"
#include "debugfs.h"
#include "internal.h"
#include "probes.h"
#include "session.h"
#include "stages.h"

static struct dentry *kprof_debugfs_root;
static struct dentry *kprof_debugfs_sessions;

/*
 * A file's inode->i_private: its session's id (0: the default session)
 * and, for the folded files, which entries it shows.
 */
#define KPROF_DEBUGFS_PRIV(id, which)	((void *)(uintptr_t)((id) << 8 | (which)))
#define KPROF_DEBUGFS_ID(priv)		((u64)(uintptr_t)(priv) >> 8)
#define KPROF_DEBUGFS_WHICH(priv)	((int)((uintptr_t)(priv) & 0xff))

static int kprof_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "release: %s\nabi: %u.%u\nkernel: %s\n", KPROF_RELEASE,
		   KPROF_ABI_MAJOR, KPROF_ABI_MINOR, init_utsname()->release);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(kprof_version);

static int kprof_status_show(struct seq_file *m, void *v)
{
	struct kprof_status st;

	kprof_status_read(&st);
	seq_printf(m, "state: %s\n", kprof_state_name(st.state));
	seq_printf(m, "cpus_possible: %u\n", st.nr_cpus);
	seq_printf(m, "cpus_online: %u\n", st.online_cpus);
	seq_printf(m, "sessions: %llu\n", st.sessions);
	seq_printf(m, "readers: %u\n", st.readers);
	seq_printf(m, "loaded_ns: %llu\n", st.loaded_ns);
	return 0;
}

static void kprof_stats_row(struct seq_file *m, const char *cpu,
			    const struct kprof_stats_snapshot *st)
{
	seq_printf(m, "%-5s %12llu %12llu %10llu %10llu %9llu %12llu %9llu %9llu %9llu %9llu %9llu %9llu %9llu\n",
		   cpu, st->invocations, st->samples, st->lost_full, st->lost_too_big,
		   st->throttled, st->bytes, st->sideband, st->sideband_lost,
		   st->invocations ? div64_u64(st->handler_ns, st->invocations) : 0,
		   st->handler_max_ns, st->kstack_trunc, st->ustack_trunc, st->ustack_fault);
}

static void kprof_stats_agg_row(struct seq_file *m, const char *cpu,
				const struct kprof_stats_snapshot *st)
{
	seq_printf(m, "agg %-5s %12llu %12llu %12llu %10llu %10llu %10llu %10llu %10llu %10llu\n",
		   cpu, st->agg_samples, st->lost_agg_full, st->lost_agg_reset, st->agg_used,
		   st->agg_high, st->agg_capacity, st->agg_pool_used, st->agg_pool_high,
		   st->agg_pool_size);
}

/* The aggregation tables: counts, losses by cause, occupancy. */
static void kprof_stats_agg(struct seq_file *m, const struct kprof_session_info *si,
			    const struct kprof_stats_snapshot *total)
{
	struct kprof_stats_snapshot st;
	char name[16];
	unsigned int cpu;
	u64 id = 0;

	seq_printf(m, "agg %-5s %12s %12s %12s %10s %10s %10s %10s %10s %10s\n", "cpu",
		   "agg_samples", "lost_full", "lost_reset", "used", "high", "capacity",
		   "pool_used", "pool_high", "pool_size");
	for_each_possible_cpu(cpu) {
		id = si->id;
		if (kprof_session_cpu_stats(&id, cpu, &st))
			continue;
		snprintf(name, sizeof(name), "%u", cpu);
		kprof_stats_agg_row(m, name, &st);
	}
	kprof_stats_agg_row(m, "all", total);
	seq_printf(m, "balance (aggregate): invocations %llu %s agg_samples %llu + lost %llu\n",
		   total->invocations,
		   total->invocations == total->agg_samples + kprof_stats_agg_lost(total) ?
		   "==" : "!= (handlers in flight)",
		   total->agg_samples, kprof_stats_agg_lost(total));
}

/* The balance line of one kind of wait, when it has any. */
static void kprof_stats_wait(struct seq_file *m, const struct kprof_stats_snapshot *total,
			     enum kprof_wait_kind k, const char *kind, const char *what)
{
	const u64 *w = total->wait[k];

	if (!w[KPROF_WAIT_BEGUN])
		return;
	seq_printf(m, "balance (%s): %s %llu %s done %llu + filtered %llu + lost %llu (slot) + %llu (full) + %llu (reset) + open %llu\n",
		   kind, what, w[KPROF_WAIT_BEGUN],
		   w[KPROF_WAIT_BEGUN] == kprof_stats_wait_ended(total, k) ?
		   "==" : "!= (waits in progress)",
		   w[KPROF_WAIT_DONE], w[KPROF_WAIT_FILTERED], w[KPROF_WAIT_LOST],
		   w[KPROF_WAIT_LOST_FULL], w[KPROF_WAIT_LOST_RESET], w[KPROF_WAIT_OPEN]);
}

/* What kprof_stats_show() reads, off the stack (a debug kernel's frames are large). */
struct kprof_stats_view {
	struct kprof_session_info si;
	struct kprof_stats_snapshot st;
	struct kprof_stats_snapshot total;
};

static int kprof_stats_show(struct seq_file *m, void *v)
{
	struct kprof_stats_view *view = kzalloc(sizeof(*view), KPROF_GFP);
	struct kprof_stats_snapshot *st, *total;
	struct kprof_session_info *si;
	char name[16];
	unsigned int cpu;
	u64 id = 0;

	if (!view)
		return -ENOMEM;
	si = &view->si;
	st = &view->st;
	total = &view->total;
	if (!kprof_session_info(KPROF_DEBUGFS_ID(m->private), si)) {
		seq_puts(m, "no session\n");
		goto out;
	}
	seq_printf(m, "session %llu (%s)\n", si->id, kprof_state_name(si->state));
	seq_printf(m, "%-5s %12s %12s %10s %10s %9s %12s %9s %9s %9s %9s %9s %9s %9s\n",
		   "cpu", "invocations", "samples", "lost_full", "lost_big", "throttled",
		   "bytes", "sideband", "sb_lost", "avg_ns", "max_ns", "kstk_trc",
		   "ustk_trc", "ustk_flt");
	for_each_possible_cpu(cpu) {
		id = si->id;
		if (kprof_session_cpu_stats(&id, cpu, st))
			continue;
		snprintf(name, sizeof(name), "%u", cpu);
		kprof_stats_row(m, name, st);
		kprof_stats_add(total, st);
	}
	kprof_stats_row(m, "all", total);
	if (si->flags & KPROF_SESSION_F_STREAM)
		seq_printf(m, "balance: invocations %llu %s samples %llu + lost %llu\n",
			   total->invocations,
			   total->invocations == total->samples + kprof_stats_lost(total) ?
			   "==" : "!= (handlers in flight)",
			   total->samples, kprof_stats_lost(total));
	if (si->flags & KPROF_SESSION_F_AGGREGATE)
		kprof_stats_agg(m, si, total);
	if (total->filtered)
		seq_printf(m, "filtered: %llu hits dropped by tracepoint filters\n",
			   total->filtered);
	if (total->lost_recursion)
		seq_printf(m, "lost_recursion: %llu hits inside kprof's own sampling path\n",
			   total->lost_recursion);
	if (total->lost_cost)
		seq_printf(m, "lost_cost: %llu probe hits over the cost cap (probe_cost_max_percent)\n",
			   total->lost_cost);
	if (si->cpus_skipped || si->lost_no_ring)
		seq_printf(m, "no buffer: %u CPUs that came up skipped (out of memory or over the budget); %llu hits lost on CPUs without a ring\n",
			   si->cpus_skipped, si->lost_no_ring);
	kprof_stats_wait(m, total, KPROF_WAIT_OFFCPU, "off-CPU", "blocks");
	kprof_stats_wait(m, total, KPROF_WAIT_LOCK, "lock", "waits");
	kprof_stats_wait(m, total, KPROF_WAIT_WAKER, "waker", "wakes");
	seq_printf(m, "nested: %llu records committed inside another writer's record\n",
		   total->nested);
out:
	kfree(view);
	return 0;
}

/* @show(m, the file's session) with the session locked, or "no session". */
static int kprof_show_current(struct seq_file *m,
			      void (*show)(struct seq_file *m, struct kprof_session *s))
{
	struct kprof_session *s;

	s = kprof_session_lock_id(KPROF_DEBUGFS_ID(m->private));
	if (s)
		show(m, s);
	else
		seq_puts(m, "no session\n");
	kprof_session_unlock_put(s);
	return 0;
}

static int kprof_probes_show(struct seq_file *m, void *v)
{
	return kprof_show_current(m, kprof_probes_show_session);
}

static int kprof_runqlat_show(struct seq_file *m, void *v)
{
	return kprof_show_current(m, kprof_probes_show_runqlat);
}

static int kprof_session_show(struct seq_file *m, void *v)
{
	struct kprof_session_info si;

	if (!kprof_session_info(KPROF_DEBUGFS_ID(m->private), &si)) {
		seq_puts(m, "no session\n");
		return 0;
	}
	seq_printf(m, "id: %llu\n", si.id);
	seq_printf(m, "state: %s\n", kprof_state_name(si.state));
	seq_printf(m, "target: %s\n", si.flags & KPROF_SESSION_F_SYSTEM_WIDE ?
		   "system-wide" : "per-task");
	seq_printf(m, "tasks: %u\n", si.nr_tasks);
	seq_printf(m, "inherit: %s\n", si.flags & KPROF_SESSION_F_INHERIT ? "yes" : "no");
	seq_printf(m, "kernel_stack: %s\n",
		   si.flags & KPROF_SESSION_F_KERNEL_STACK ? "yes" : "no");
	seq_printf(m, "user_stack: %s\n", si.flags & KPROF_SESSION_F_USER_STACK ? "yes" : "no");
	seq_printf(m, "mode: %s%s%s\n", si.flags & KPROF_SESSION_F_STREAM ? "stream" : "",
		   (si.flags & KPROF_SESSION_F_STREAM) && (si.flags & KPROF_SESSION_F_AGGREGATE) ?
		   "+" : "", si.flags & KPROF_SESSION_F_AGGREGATE ? "aggregate" : "");
	if (si.agg_entries)
		seq_printf(m, "agg_entries: %u\n", si.agg_entries);
	if (si.freq)
		seq_printf(m, "freq: %u\n", si.freq);
	else
		seq_printf(m, "period: %llu\n", si.period);
	seq_printf(m, "events: %u\n", si.nr_events);
	seq_printf(m, "stack_depth: %u\n", si.stack_depth);
	seq_printf(m, "buffer_size: %u\n", si.buffer_size);
	seq_printf(m, "watermark: %u\n", si.watermark);
	seq_printf(m, "mmap_stride: %llu\n", si.stride);
	seq_printf(m, "start_ns: %llu\n", si.start_ns);
	return 0;
}

#define KPROF_PRIV_SHOW_FOPS(name)						\
static int kprof_##name##_open(struct inode *inode, struct file *file)		\
{										\
	if (!kprof_privileged())						\
		return -EPERM;							\
	return single_open(file, kprof_##name##_show, inode->i_private);	\
}										\
static const struct file_operations kprof_##name##_fops = {			\
	.owner		= THIS_MODULE,						\
	.open		= kprof_##name##_open,					\
	.read		= seq_read,						\
	.llseek		= seq_lseek,						\
	.release	= single_release,					\
}

KPROF_PRIV_SHOW_FOPS(status);
KPROF_PRIV_SHOW_FOPS(stats);
KPROF_PRIV_SHOW_FOPS(session);

static int kprof_agg_report_show(struct seq_file *m, void *v)
{
	return kprof_agg_report(m, KPROF_DEBUGFS_ID(m->private));
}

KPROF_PRIV_SHOW_FOPS(agg_report);
KPROF_PRIV_SHOW_FOPS(probes);
KPROF_PRIV_SHOW_FOPS(runqlat);
KPROF_PRIV_SHOW_FOPS(counters);

static int kprof_folded_open(struct inode *inode, struct file *file)
{
	struct kprof_agg_folded_iter *it;

	if (!kprof_privileged())
		return -EPERM;
	it = __seq_open_private(file, &kprof_agg_folded_sops, sizeof(*it));
	if (!it)
		return -ENOMEM;
	/* kernel addresses as /proc/kallsyms shows them to this opener */
	it->kptr = kprof_kptr_visible();
	/* folded: the samples' stacks; offcpu: the off-CPU time's */
	it->which = KPROF_DEBUGFS_WHICH(inode->i_private);
	/* a session's own file, or the top-level file's session at open */
	it->id = KPROF_DEBUGFS_ID(inode->i_private);
	if (!it->id)
		it->id = kprof_session_default_id();
	return 0;
}

static const struct file_operations kprof_folded_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_folded_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= seq_release_private,
};

static int kprof_reset_open(struct inode *inode, struct file *file)
{
	return kprof_privileged() ? nonseekable_open(inode, file) : -EPERM;
}

/* Writing "1" empties the file's session's aggregation tables. */
static ssize_t kprof_reset_write(struct file *file, const char __user *ubuf, size_t count,
				 loff_t *ppos)
{
	bool reset;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &reset);
	if (ret)
		return ret;
	if (!reset)
		return -EINVAL;
	ret = kprof_session_agg_reset(KPROF_DEBUGFS_ID(file_inode(file)->i_private), NULL);
	return ret ? ret : count;
}

static const struct file_operations kprof_reset_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_reset_open,
	.write		= kprof_reset_write,
};

/* The files of one session: the default one's at the top, or session @id's. */
static void kprof_debugfs_session_files(struct dentry *dir, u64 id)
{
	debugfs_create_file("stats", 0400, dir, KPROF_DEBUGFS_PRIV(id, 0), &kprof_stats_fops);
	debugfs_create_file("session", 0400, dir, KPROF_DEBUGFS_PRIV(id, 0), &kprof_session_fops);
	debugfs_create_file("report", 0400, dir, KPROF_DEBUGFS_PRIV(id, 0),
			    &kprof_agg_report_fops);
	debugfs_create_file("folded", 0400, dir, KPROF_DEBUGFS_PRIV(id, KPROF_AGG_SAMPLES),
			    &kprof_folded_fops);
	debugfs_create_file("offcpu", 0400, dir, KPROF_DEBUGFS_PRIV(id, KPROF_AGG_OFFCPU),
			    &kprof_folded_fops);
	debugfs_create_file("lock", 0400, dir, KPROF_DEBUGFS_PRIV(id, KPROF_AGG_LOCK),
			    &kprof_folded_fops);
	debugfs_create_file("wakers", 0400, dir, KPROF_DEBUGFS_PRIV(id, KPROF_AGG_WAKERS),
			    &kprof_folded_fops);
	debugfs_create_file("reset", 0200, dir, KPROF_DEBUGFS_PRIV(id, 0), &kprof_reset_fops);
	debugfs_create_file("probes", 0400, dir, KPROF_DEBUGFS_PRIV(id, 0), &kprof_probes_fops);
	debugfs_create_file("runqlat", 0400, dir, KPROF_DEBUGFS_PRIV(id, 0), &kprof_runqlat_fops);
}

/**
 * struct kprof_debugfs_session - a session's directory under sessions/
 * @node: on kprof_debugfs_dirs
 * @id: the session
 * @dir: its directory
 */
struct kprof_debugfs_session {
	struct list_head node;
	u64 id;
	struct dentry *dir;
};

/* The directories of sessions/, under kprof_debugfs_dirs_lock. */
static LIST_HEAD(kprof_debugfs_dirs);
static DEFINE_MUTEX(kprof_debugfs_dirs_lock);

/* Is @id among the @n ids at @ids? */
static bool kprof_debugfs_has_id(const u64 *ids, unsigned int n, u64 id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/**
 * kprof_debugfs_sessions_sync() - sessions/ follows the session table
 *
 * A directory for each session on the table, none for a session that left
 * it.  A file of a removed directory that is open reads as gone (debugfs
 * fails its read with -EIO; its session is looked up by id anyway).
 *
 * Context: process context, holding no session's lock.
 */
void kprof_debugfs_sessions_sync(void)
{
	struct kprof_debugfs_session *d, *tmp;
	unsigned int n, i, max = 256;
	char name[24];
	u64 *ids;

	if (!kprof_debugfs_sessions)
		return;
	ids = kcalloc(max, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		return;		/* the next sync catches up */

	/* the ids under the lock: a later sync never applies an older list */
	mutex_lock(&kprof_debugfs_dirs_lock);
	n = min(kprof_session_ids(ids, max), max);
	list_for_each_entry_safe(d, tmp, &kprof_debugfs_dirs, node) {
		if (kprof_debugfs_has_id(ids, n, d->id))
			continue;
		debugfs_remove(d->dir);
		list_del(&d->node);
		kfree(d);
	}
	for (i = 0; i < n; i++) {
		bool known = false;

		list_for_each_entry(d, &kprof_debugfs_dirs, node)
			known |= d->id == ids[i];
		if (known)
			continue;
		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d)
			break;
		snprintf(name, sizeof(name), "%llu", ids[i]);
		d->id = ids[i];
		d->dir = debugfs_create_dir(name, kprof_debugfs_sessions);
		kprof_debugfs_session_files(d->dir, d->id);
		list_add_tail(&d->node, &kprof_debugfs_dirs);
	}
	mutex_unlock(&kprof_debugfs_dirs_lock);
	kfree(ids);
}

/* A show_file's open: the kprof privilege, then its show function (i_private). */
static int kprof_show_file_open(struct inode *inode, struct file *file)
{
	if (!kprof_privileged())
		return -EPERM;
	return single_open(file, inode->i_private, NULL);
}

static const struct file_operations kprof_show_file_fops = {
	.owner		= THIS_MODULE,
	.open		= kprof_show_file_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/**
 * kprof_debugfs_show_file() - a file of another layer in /sys/kernel/debug/kprof/
 * @name: its name
 * @show: its seq_file show function; opening it checks the kprof privilege
 *
 * Context: process context, after kprof_debugfs_init().
 */
void kprof_debugfs_show_file(const char *name, int (*show)(struct seq_file *m, void *v))
{
	if (kprof_debugfs_root)
		debugfs_create_file(name, 0400, kprof_debugfs_root, show, &kprof_show_file_fops);
}

/**
 * kprof_debugfs_init() - create /sys/kernel/debug/kprof/
 *
 * Return: 0, or a negative errno when debugfs is available but the
 * directory cannot be created.  A kernel without debugfs (or booted with
 * debugfs=off) is not an error: kprof works without its debugfs view.
 */
int __init kprof_debugfs_init(void)
{
	struct dentry *root;

	root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(root)) {
		if (PTR_ERR(root) == -ENODEV) {
			pr_info("debugfs unavailable, no /sys/kernel/debug/kprof\n");
			return 0;
		}
		pr_err("cannot create debugfs directory: %ld\n", PTR_ERR(root));
		return PTR_ERR(root);
	}
	kprof_debugfs_root = root;

	debugfs_create_file("version", 0444, root, NULL, &kprof_version_fops);
	debugfs_create_file("status", 0400, root, NULL, &kprof_status_fops);
	kprof_debugfs_session_files(root, 0);
	debugfs_create_file("counters", 0400, root, NULL, &kprof_counters_fops);
	kprof_debugfs_sessions = debugfs_create_dir("sessions", root);
	kprof_stages_debugfs(root);	/* make bench's stage build only */
	return 0;
}

void kprof_debugfs_exit(void)
{
	struct kprof_debugfs_session *d, *tmp;

	debugfs_remove(kprof_debugfs_root);
	kprof_debugfs_root = NULL;
	kprof_debugfs_sessions = NULL;
	list_for_each_entry_safe(d, tmp, &kprof_debugfs_dirs, node) {
		list_del(&d->node);
		kfree(d);
	}
}
