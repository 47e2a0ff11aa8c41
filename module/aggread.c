// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - reading the aggregation tables: debugfs report, folded and reset,
 * and the readers behind AGG_DUMP and AGG_MAPS (a cursor across calls;
 * genl.c makes the messages).
 *
 * Readers never stop sampling: they walk the per-CPU tables while the
 * handlers keep counting, and see only entries whose VALID state was
 * published after their contents (agg.c), so never a torn entry.  Counts
 * read while sampling go on are a moment's snapshot.
 *
 * Kernel frames are named in the kernel (%ps).  User frames are named
 * dso+0xoffset from the process's mappings at read time, while it lives,
 * and [unknown] otherwise; kprofctl names them fully with libelf.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "agg.h"
#include "aggread.h"
#include "compat.h"
#include "core.h"
#include "internal.h"
#include "procmap.h"
#include "session.h"

/*
 * The tables of session @id (0: the default one), or NULL; *@sp is the
 * session, locked and referenced for kprof_session_unlock_put().
 */
static struct kprof_agg *kprof_agg_lock_id(u64 id, struct kprof_session **sp)
{
	struct kprof_session *s = kprof_session_lock_id(id);

	*sp = s;
	return s ? s->agg : NULL;
}

/* The process's mm while it lives, for naming user frames; mmput() it. */
static struct mm_struct *kprof_agg_mm(u32 pid)
{
	struct task_struct *task = NULL;
	struct mm_struct *mm = NULL;
	struct pid *p;

	p = find_get_pid(pid);
	if (p)
		task = get_pid_task(p, PIDTYPE_TGID);
	put_pid(p);
	if (task) {
		mm = get_task_mm(task);
		put_task_struct(task);
	}
	return mm;
}

/*
 * "dso+0xoffset" of a user address of entry @e: from a mapping the session
 * kept (procmap.c) while the process had the entry's name (an image left
 * by an exec, or what it had at the stop), else from the process's mm while
 * it lives (mmap lock held), else from any mapping kept of it, else
 * "[unknown]".
 */
static int kprof_agg_user_name(char *buf, size_t len, struct mm_struct *mm,
			       const struct kprof_session *s, u32 pid, const char *comm,
			       u64 addr)
{
	struct vm_area_struct *vma;
	int n;

	n = kprof_procmap_name(s->procmap, pid, comm, true, addr, buf, len);
	if (n)
		return n;
	vma = mm ? vma_lookup(mm, addr) : NULL;
	if (vma && vma->vm_file)
		return scnprintf(buf, len, "%pD+0x%llx", vma->vm_file,
				 addr - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT));
	n = kprof_procmap_name(s->procmap, pid, comm, false, addr, buf, len);
	return n ? n : scnprintf(buf, len, "[unknown]");
}

/*
 * A kernel frame's name (%ps).  One with no symbol would print as its
 * address: "[unknown]" instead when the reader may not see kernel
 * addresses (kptr_restrict, as /proc/kallsyms applies it).
 */
static void kprof_agg_kernel_name(char *buf, size_t len, u64 ip, bool kptr)
{
	scnprintf(buf, len, "%ps", (void *)(unsigned long)ip);
	if (!kptr && !strncmp(buf, "0x", 2))
		strscpy(buf, "[unknown]", len);
}

/* Which entries @e is of: samples, off-CPU time or lock waits. */
static int kprof_agg_class(const struct kprof_session *s, const struct kprof_agg_entry *e)
{
	switch (s->events[e->event].cfg.type) {
	case KPROF_TYPE_OFFCPU:
		/* a block's waker: its chains are the entry's key words */
		return e->nr_key >= KPROF_AGG_WAKER_HDR ? KPROF_AGG_WAKERS : KPROF_AGG_OFFCPU;
	case KPROF_TYPE_LOCK:
		return KPROF_AGG_LOCK;
	default:
		return KPROF_AGG_SAMPLES;
	}
}

/*
 * Is @e an entry of @which?  Off-CPU and lock entries count once a wait
 * ended, or (intervals) once a swap added a wait's part to them.
 */
static bool kprof_agg_shown(const struct kprof_session *s, const struct kprof_agg_entry *e,
			    int which)
{
	if (e->event >= s->nr_events ||
	    (!local64_read(&e->count) && !atomic64_read(&e->time_ns)))
		return false;
	return which == KPROF_AGG_ALL || kprof_agg_class(s, e) == which;
}

/* perf lock contention's name of a lock type (KPROF_LOCK_F_*). */
static const char *kprof_agg_lock_type(u32 flags)
{
	switch (flags) {
	case 0:
		return "semaphore";
	case KPROF_LOCK_F_SPIN:
		return "spinlock";
	case KPROF_LOCK_F_SPIN | KPROF_LOCK_F_READ:
		return "rwlock:R";
	case KPROF_LOCK_F_SPIN | KPROF_LOCK_F_WRITE:
		return "rwlock:W";
	case KPROF_LOCK_F_READ:
		return "rwsem:R";
	case KPROF_LOCK_F_WRITE:
		return "rwsem:W";
	case KPROF_LOCK_F_RT:
		return "rtmutex";
	case KPROF_LOCK_F_RT | KPROF_LOCK_F_READ:
		return "rwlock-rt:R";
	case KPROF_LOCK_F_RT | KPROF_LOCK_F_WRITE:
		return "rwlock-rt:W";
	case KPROF_LOCK_F_PERCPU | KPROF_LOCK_F_READ:
		return "pcpu-sem:R";
	case KPROF_LOCK_F_PERCPU | KPROF_LOCK_F_WRITE:
		return "pcpu-sem:W";
	case KPROF_LOCK_F_MUTEX:
	case KPROF_LOCK_F_MUTEX | KPROF_LOCK_F_SPIN:
		return "mutex";
	default:
		return "unknown";
	}
}

/* --- report: hottest leaf functions per event ---------------------------- */

struct kprof_agg_row {
	u64 count;
	u32 event;
	bool kernel;
	char comm[16];
	char sym[96];
};

static int kprof_agg_row_cmp(const void *a, const void *b)
{
	const struct kprof_agg_row *x = a, *y = b;

	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->sym, y->sym);
}

#define KPROF_REPORT_ROWS_PER_EVENT	100

/* The report row of an entry: its event, command and leaf function. */
static void kprof_agg_leaf_row(const struct kprof_session *s, const struct kprof_agg_entry *e,
			       const u64 *f, bool kptr, struct kprof_agg_row *row)
{
	struct mm_struct *mm;

	memset(row, 0, sizeof(*row));
	row->count = local64_read(&e->count);
	row->event = e->event;
	memcpy(row->comm, e->comm, sizeof(row->comm));
	if (e->nr_kernel) {
		row->kernel = true;
		kprof_agg_kernel_name(row->sym, sizeof(row->sym), f[0], kptr);
		return;
	}
	mm = kprof_agg_mm(e->pid);
	if (mm)
		mmap_read_lock(mm);
	kprof_agg_user_name(row->sym, sizeof(row->sym), mm, s, e->pid, e->comm, f[0]);
	if (mm) {
		mmap_read_unlock(mm);
		mmput(mm);
	}
}

/* Add @row to @rows, merging it with a row of the same key. */
static void kprof_agg_row_merge(struct kprof_agg_row *rows, u32 *nr_rows, u32 max_rows,
				u32 *index, u32 mask, const struct kprof_agg_row *row)
{
	u32 h = jhash(row->sym, strlen(row->sym),
		      jhash(row->comm, strlen(row->comm), row->event)) & mask;

	while (index[h]) {
		struct kprof_agg_row *r = &rows[index[h] - 1];

		if (r->event == row->event && r->kernel == row->kernel &&
		    !strcmp(r->comm, row->comm) && !strcmp(r->sym, row->sym)) {
			r->count += row->count;
			return;
		}
		h = (h + 1) & mask;
	}
	if (*nr_rows < max_rows) {
		rows[*nr_rows] = *row;
		index[h] = ++*nr_rows;
	}
}

/**
 * kprof_agg_report() - debugfs report: per event, the hottest leaves
 * @m: the seq_file
 * @id: the session, 0 for the default one
 *
 * Context: process context; takes the session lock, and the mmap lock of
 * each sampled process that still lives.
 * Return: 0 or -ENOMEM.
 */
int kprof_agg_report(struct seq_file *m, u64 id)
{
	u64 totals[KPROF_MAX_EVENTS] = {}, lost_full = 0, lost_reset = 0;
	u64 lost_recursion = 0, lost_cost = 0;
	struct kprof_agg_row *rows = NULL, row;
	u32 *index = NULL, nr_rows = 0, max_rows = 0, mask;
	struct kprof_session *s;
	struct kprof_agg *agg;
	unsigned int cpu, ev, shown = 0;
	bool kptr = kprof_kptr_visible();
	int ret = 0;
	u32 slot;

	agg = kprof_agg_lock_id(id, &s);
	if (!agg) {
		seq_puts(m, s ? "the session does not aggregate\n" : "no session\n");
		goto out_unlock;
	}
	for (cpu = 0; cpu < agg->nr_cpus; cpu++)
		if (kprof_agg_cpu_of(agg, cpu))
			max_rows += local_read(&kprof_agg_cpu_of(agg, cpu)->used);
	max_rows = max_rows ? max_rows : 1;
	mask = roundup_pow_of_two(max_rows * 2) - 1;
	rows = kvcalloc(max_rows, sizeof(*rows), KPROF_GFP);
	index = kvcalloc(mask + 1, sizeof(*index), KPROF_GFP);
	if (!rows || !index) {
		ret = -ENOMEM;
		goto out_unlock;
	}

	for (cpu = 0; cpu < agg->nr_cpus; cpu++) {
		struct kprof_agg_cpu *t = kprof_agg_cpu_of(agg, cpu);

		if (!t)
			continue;
		for (slot = 0; slot < t->nr_entries; slot++) {
			struct kprof_agg_entry *e = kprof_agg_entry_get(t, slot);

			if (!e || !kprof_agg_shown(s, e, KPROF_AGG_SAMPLES) ||
			    (!e->nr_kernel && !e->nr_user))
				continue;
			kprof_agg_leaf_row(s, e, kprof_agg_frames(t, e), kptr, &row);
			totals[e->event] += row.count;
			kprof_agg_row_merge(rows, &nr_rows, max_rows, index, mask, &row);
			cond_resched();
		}
	}
	sort(rows, nr_rows, sizeof(*rows), kprof_agg_row_cmp, NULL);

	for (cpu = 0; cpu < agg->nr_cpus; cpu++) {
		struct kprof_stats_snapshot st;

		if (!kprof_ring_of(s->bufs, cpu))
			continue;
		kprof_ring_stats(kprof_ring_of(s->bufs, cpu), &st);
		lost_full += st.lost_agg_full;
		lost_reset += st.lost_agg_reset;
		lost_recursion += st.lost_recursion;
		lost_cost += st.lost_cost;
	}
	seq_printf(m, "# kprof report: session %llu, %s, %u entries per CPU\n", s->id,
		   kprof_state_name(s->state), agg->nr_entries);
	seq_printf(m, "# lost: %llu (table full), %llu (during reset), %llu (recursion), %llu (cost cap)\n",
		   lost_full, lost_reset, lost_recursion, lost_cost);
	for (ev = 0; ev < s->nr_events; ev++) {
		unsigned int i;

		seq_printf(m, "#\n# event %u: %s: %llu samples\n", ev, s->events[ev].cfg.name,
			   totals[ev]);
		seq_printf(m, "# %8s %10s  %-16s %s\n", "Overhead", "Samples", "Command", "Symbol");
		for (i = 0, shown = 0; i < nr_rows; i++) {
			struct kprof_agg_row *r = &rows[i];

			if (r->event != ev || shown++ == KPROF_REPORT_ROWS_PER_EVENT)
				continue;
			seq_printf(m, "  %7llu.%02llu%% %10llu  %-16s [%c] %s\n",
				   div64_u64(r->count * 100, totals[ev]),
				   div64_u64(r->count * 10000, totals[ev]) % 100,
				   r->count, r->comm, r->kernel ? 'k' : '.', r->sym);
		}
	}

out_unlock:
	kprof_session_unlock_put(s);
	kvfree(index);
	kvfree(rows);
	return ret;
}

/* --- folded: one collapsed stack per line -------------------------------- */

/* The half being written: kprof_agg_find()'s @half. */
#define KPROF_AGG_HALF_WRITTEN	(~0U)

/*
 * The first valid entry of @which in @s's tables at or after *pos (cpu << 32
 * | slot), its table in *tp; NULL at the end.  The tables of @half, or of
 * the half being written (KPROF_AGG_HALF_WRITTEN).  The session lock held.
 */
static struct kprof_agg_entry *kprof_agg_find(struct kprof_session *s, loff_t *pos,
					      struct kprof_agg_cpu **tp, int which,
					      unsigned int half)
{
	struct kprof_agg *agg = s ? s->agg : NULL;
	u64 cpu = *pos >> 32;
	u32 slot = *pos & 0xffffffff;

	if (!agg)
		return NULL;
	if (half == KPROF_AGG_HALF_WRITTEN)
		half = READ_ONCE(agg->epoch) & 1;
	for (; cpu < agg->nr_cpus; cpu++, slot = 0) {
		struct kprof_agg_cpu *t = kprof_agg_table(agg, half, cpu);

		if (!t)
			continue;
		for (; slot < t->nr_entries; slot++) {
			struct kprof_agg_entry *e = kprof_agg_entry_get(t, slot);

			if (e && kprof_agg_shown(s, e, which)) {
				*pos = (cpu << 32) | slot;
				*tp = t;
				return e;
			}
		}
	}
	*pos = (u64)agg->nr_cpus << 32;
	return NULL;
}

static void *kprof_agg_folded_find(struct seq_file *m, loff_t *pos)
{
	struct kprof_agg_folded_iter *it = m->private;
	struct kprof_agg_cpu *t;
	struct kprof_agg_entry *e = kprof_agg_find(it->s, pos, &t, it->which,
						   KPROF_AGG_HALF_WRITTEN);

	if (e)
		it->t = t;
	return e;
}

static void *kprof_agg_folded_start(struct seq_file *m, loff_t *pos)
{
	struct kprof_agg_folded_iter *it = m->private;

	/* the session the file was opened on, looked up again at each read */
	it->s = kprof_session_lock_id(it->id);
	if (!it->s)
		return NULL;
	return kprof_agg_folded_find(m, pos);
}

static void *kprof_agg_folded_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return kprof_agg_folded_find(m, pos);
}

static void kprof_agg_folded_stop(struct seq_file *m, void *v)
{
	struct kprof_agg_folded_iter *it = m->private;

	kprof_session_unlock_put(it->s);
	it->s = NULL;
}

/*
 * ";name" of each user frame of process @pid, outermost first when
 * @outer_first.
 */
static void kprof_agg_folded_user(struct seq_file *m, const struct kprof_session *s, u32 pid,
				  const char *comm, const u64 *f, int n, bool outer_first)
{
	struct mm_struct *mm;
	char name[128];
	int i;

	if (!n)
		return;
	mm = kprof_agg_mm(pid);
	if (mm)
		mmap_read_lock(mm);
	for (i = 0; i < n; i++) {
		kprof_agg_user_name(name, sizeof(name), mm, s, pid, comm,
				    f[outer_first ? n - 1 - i : i]);
		seq_printf(m, ";%s", name);
	}
	if (mm) {
		mmap_read_unlock(mm);
		mmput(mm);
	}
}

/* ";name" of each kernel frame, with @suffix, outermost first when @outer_first. */
static void kprof_agg_folded_kernel(struct seq_file *m, const u64 *f, int n, bool outer_first,
				    bool kptr, const char *suffix)
{
	char name[128];
	int i;

	for (i = 0; i < n; i++) {
		kprof_agg_kernel_name(name, sizeof(name), f[outer_first ? n - 1 - i : i], kptr);
		seq_printf(m, ";%s%s", name, suffix);
	}
}

/*
 * A block's waker, as BCC's offwaketime -f prints it after the blocked
 * stacks: "--", the waker's kernel then user frames innermost first, then
 * its name.
 */
static void kprof_agg_folded_waker(struct seq_file *m, const struct kprof_session *s,
				   const u64 *key, bool kptr)
{
	u32 nr_kernel = key[KPROF_AGG_WAKER_NR] & 0xffff, nr_user = key[KPROF_AGG_WAKER_NR] >> 16;
	const u64 *f = key + KPROF_AGG_WAKER_HDR;
	char comm[TASK_COMM_LEN];

	strscpy(comm, (const char *)&key[KPROF_AGG_WAKER_COMM], sizeof(comm));
	seq_puts(m, ";--");
	kprof_agg_folded_kernel(m, f, nr_kernel, false, kptr, "");
	kprof_agg_folded_user(m, s, key[KPROF_AGG_WAKER_PID], comm, f + nr_kernel, nr_user,
			      false);
	seq_printf(m, ";%s", comm);
}

static int kprof_agg_folded_show(struct seq_file *m, void *v)
{
	struct kprof_agg_folded_iter *it = m->private;
	struct kprof_agg_entry *e = v;
	struct kprof_agg_cpu *t = it->t;
	const u64 *f = kprof_agg_frames(t, e);
	struct kprof_session *s = it->s;
	bool lock = it->which == KPROF_AGG_LOCK, wakers = it->which == KPROF_AGG_WAKERS;
	bool offcpu = it->which == KPROF_AGG_OFFCPU || wakers;

	seq_printf(m, "%s", e->comm);
	if (s->nr_events > 1 && !offcpu && !lock)
		seq_printf(m, ";[%s]", s->events[e->event].cfg.name);
	/* outermost first: user frames from the last, then kernel */
	kprof_agg_folded_user(m, s, e->pid, e->comm, f + e->nr_kernel, e->nr_user, true);
	/* off-CPU: as BCC's offcputime -f prints them, user;-;kernel, in us */
	if (offcpu && e->nr_user && e->nr_kernel)
		seq_puts(m, ";-");
	kprof_agg_folded_kernel(m, f, e->nr_kernel, true, it->kptr, offcpu || lock ? "" : "_[k]");
	if (wakers)
		kprof_agg_folded_waker(m, s, kprof_agg_keys(t, e), it->kptr);
	/* lock waits: the lock as the leaf, [type name], and the time in us */
	if (lock) {
		const u64 *key = kprof_agg_keys(t, e);
		char name[128];

		kprof_agg_kernel_name(name, sizeof(name), key[0], it->kptr);
		seq_printf(m, ";[%s %s]", kprof_agg_lock_type(key[1]), name);
	}
	if (offcpu || lock)
		seq_printf(m, " %llu\n", div_u64(atomic64_read(&e->time_ns), NSEC_PER_USEC));
	else
		seq_printf(m, " %llu\n", (u64)local64_read(&e->count));
	return 0;
}

const struct seq_operations kprof_agg_folded_sops = {
	.start	= kprof_agg_folded_start,
	.next	= kprof_agg_folded_next,
	.stop	= kprof_agg_folded_stop,
	.show	= kprof_agg_folded_show,
};

/* --- readers across calls (AGG_DUMP, AGG_MAPS) ------------------------------ */

/*
 * The session a part of a multi-call read reads, @s when @has_data: the
 * session @cur asked for, the same one in every part.  The first part
 * without one fails (*@ret, @extack); a later part that finds it gone
 * ends the read marked stale.  The session locked.
 */
static bool kprof_agg_cursor_session(struct kprof_agg_cursor *cur, struct kprof_session *s,
				     bool has_data, int *ret, struct netlink_ext_ack *extack)
{
	if (!s || !has_data) {
		if (!cur->begun) {
			if (s)
				NL_SET_ERR_MSG(extack, "kprof: the session does not aggregate");
			else
				NL_SET_ERR_MSG(extack,
					       "kprof: no session (a stopped session's tables go when no socket holds them)");
			*ret = s ? -EOPNOTSUPP : -ENOENT;
		} else {
			cur->stale = true;	/* freed between two parts */
		}
		return false;
	}
	cur->id = s->id;
	cur->begun = true;
	return true;
}

/*
 * The waker of a block's entry, from its key words; its kernel frames
 * zeroed at @hidden (room for 2 * KPROF_MAX_STACK_DEPTH) when the reader
 * may not see them.
 */
static void kprof_agg_view_waker(struct kprof_agg_view *v, const u64 *key, u32 nr_key,
				 u64 *hidden)
{
	u32 nr_kernel = key[KPROF_AGG_WAKER_NR] & 0xffff, nr_user = key[KPROF_AGG_WAKER_NR] >> 16;
	const u64 *f = key + KPROF_AGG_WAKER_HDR;

	if (KPROF_AGG_WAKER_HDR + nr_kernel + nr_user != nr_key)
		return;
	v->has_waker = true;
	v->waker_pid = key[KPROF_AGG_WAKER_PID];
	strscpy(v->waker_comm, (const char *)&key[KPROF_AGG_WAKER_COMM], sizeof(v->waker_comm));
	v->waker_nr_kernel = nr_kernel;
	v->waker_nr_user = nr_user;
	v->waker_frames = f;
	if (hidden) {
		memset(hidden, 0, nr_kernel * sizeof(u64));
		memcpy(hidden + nr_kernel, f + nr_kernel, nr_user * sizeof(u64));
		v->waker_frames = hidden;
	}
}

/**
 * kprof_agg_read() - the tables' entries from a cursor on
 * @cur: where the previous call stopped; zeroed before the first but for
 *	@cur->epoch, the closed interval to read (+ 1), or 0
 * @put: takes one entry; non-zero when it has no room for it (the next
 *	call starts from it)
 * @arg: for @put
 * @extack: why the first call found nothing to read
 *
 * Of a closed interval, the first call holds it (@cur->held): the caller
 * lets go of it with kprof_session_agg_release() when the read ends.
 *
 * Context: process context; takes the session lock.
 * Return: 0 (the end, or @put full, or @cur->stale: a new session since
 * the first call), -ENOENT or -EOPNOTSUPP on the first call without an
 * aggregating session, kprof_session_agg_hold()'s error for an interval
 * that cannot be read, or -ENOMEM.
 */
int kprof_agg_read(struct kprof_agg_cursor *cur, kprof_agg_put_fn put, void *arg,
		   struct netlink_ext_ack *extack)
{
	struct kprof_session *s;
	struct kprof_agg *agg;
	loff_t pos = cur->pos;
	u64 *hidden = NULL;
	unsigned int half;
	int ret = 0;
	bool begun;

	/* kernel frames as /proc/kallsyms would show them: zero when hidden */
	if (!kprof_kptr_visible()) {
		/* the entry's frames, then a waker's */
		hidden = kmalloc_array(4 * KPROF_MAX_STACK_DEPTH, sizeof(u64), KPROF_GFP);
		if (!hidden)
			return -ENOMEM;
	}
	agg = kprof_agg_lock_id(cur->id, &s);
	begun = cur->begun;
	if (!kprof_agg_cursor_session(cur, s, !!agg, &ret, extack))
		goto out_unlock;
	if (cur->epoch && !begun) {
		/* a closed interval: frozen until the dump lets go of it */
		ret = kprof_session_agg_hold(s, cur->epoch - 1, extack);
		if (ret)
			goto out_unlock;
		cur->held = true;
	}
	half = cur->epoch ? (cur->epoch - 1) & 1 : KPROF_AGG_HALF_WRITTEN;
	for (;;) {
		struct kprof_agg_cpu *t;
		struct kprof_agg_entry *e = kprof_agg_find(s, &pos, &t, KPROF_AGG_ALL, half);
		struct kprof_agg_view v = { };
		const u64 *f;

		if (!e)
			break;
		f = kprof_agg_frames(t, e);
		if (hidden) {
			memset(hidden, 0, e->nr_kernel * sizeof(u64));
			memcpy(hidden + e->nr_kernel, f + e->nr_kernel, e->nr_user * sizeof(u64));
			f = hidden;
		}
		v.e = e;
		v.frames = f;
		if (kprof_agg_class(s, e) == KPROF_AGG_LOCK && e->nr_key >= 2) {
			v.has_lock = true;
			v.lock = hidden ? 0 : kprof_agg_keys(t, e)[0];
			v.lock_flags = kprof_agg_keys(t, e)[1];
		}
		if (kprof_agg_class(s, e) == KPROF_AGG_WAKERS)
			kprof_agg_view_waker(&v, kprof_agg_keys(t, e), e->nr_key,
					     hidden ? hidden + e->nr_kernel + e->nr_user : NULL);
		if (e->flags & KPROF_AGG_E_MINMAX) {
			v.minmax = true;
			v.max_ns = READ_ONCE(kprof_agg_minmax(t, e)[0]);
			v.min_ns = READ_ONCE(kprof_agg_minmax(t, e)[1]);
		}
		if (put(arg, s->id, pos >> 32, &v))
			break;
		pos++;
	}
	cur->pos = pos;
out_unlock:
	kprof_session_unlock_put(s);
	kfree(hidden);
	return ret;
}

/**
 * kprof_agg_read_maps() - the kept mappings from a cursor on
 * @cur: where the previous call stopped; zeroed before the first
 * @put: takes one mapping; non-zero when it has no room for it
 * @arg: for @put
 * @extack: why the first call found nothing to read
 *
 * Mappings not yet named are skipped: a work item names them shortly after
 * their process went.
 *
 * Context: process context; takes the session lock.
 * Return: as kprof_agg_read().
 */
int kprof_agg_read_maps(struct kprof_agg_cursor *cur, kprof_agg_map_put_fn put, void *arg,
			struct netlink_ext_ack *extack)
{
	struct kprof_procmap_info map;
	struct kprof_session *s;
	u32 i = cur->pos;
	int ret = 0;

	s = kprof_session_lock_id(cur->id);
	if (!kprof_agg_cursor_session(cur, s, s && s->procmap, &ret, extack))
		goto out_unlock;
	for (; kprof_procmap_get(s->procmap, i, &map, true); i++)
		if (map.path && put(arg, s->id, &map))
			break;
	cur->pos = i;
out_unlock:
	kprof_session_unlock_put(s);
	return ret;
}
