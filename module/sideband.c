// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - side-band records: what userspace needs to name what it sampled.
 *
 * Kernel counters get no PERF_RECORD_COMM/MMAP (those go to a perf ring
 * buffer, which in-kernel counters do not have), so kprof hooks the same
 * places itself while a session runs:
 *
 *	perf_event_comm()	COMM, with KPROF_MISC_COMM_EXEC for exec (kprobe):
 *				perf's own point, once the name is set
 *	sched_process_fork	FORK; per-task sessions with INHERIT follow
 *				the child from here on
 *	sched_process_exit	EXIT
 *	perf_event_mmap()	MMAP of executable file mappings and the vDSO (kprobe)
 *
 * The tracepoint probes and the COMM kprobe write their record at once:
 * they run with preemption disabled and the ring is NMI-safe.  The MMAP probe cannot:
 * turning a file into a path (d_path()) may take a spinlock on a rename
 * race, which sleeps on PREEMPT_RT.  It queues a note holding a file
 * reference on a per-CPU single-producer queue that all sessions share
 * (one note however many sessions want it), and one work item resolves
 * the note's path once and writes the record, with the note's time stamp,
 * to every session that wants it: on the work item's CPU when the session
 * has a ring there, else on one of the session's CPUs through
 * smp_call_function_single().  Records are therefore not in time order in
 * the rings; readers sort by time.
 *
 * Processes that exist before the session starts are described by the
 * reader (kprofctl synthesizes their COMM and MMAP records from /proc), as
 * perf record does.  A process that exits during the session has all its
 * records in the rings by then: nothing depends on it being alive when the
 * data is decoded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "internal.h"
#include "ktp.h"
#include "sideband.h"

struct kprof_comm_record {
	struct kprof_record_header header;
	u64 time;
	u32 pid;
	u32 tid;
	char comm[16];
};

struct kprof_exit_record {
	struct kprof_record_header header;
	u64 time;
	u32 pid;
	u32 tid;
};

struct kprof_fork_record {
	struct kprof_record_header header;
	u64 time;
	u32 pid;
	u32 tid;
	u32 ppid;
	u32 ptid;
};

struct kprof_mmap_record {
	struct kprof_record_header header;
	u64 time;
	u32 pid;
	u32 tid;
	u64 start;
	u64 len;
	u64 pgoff;
	char filename[];
};

#define KPROF_MMAP_RECORD_MAX	(sizeof(struct kprof_mmap_record) + PATH_MAX + 8)
/* the work item's buffer: a record, then room for the task's root path */
#define KPROF_MMAP_WORK_BUF	(KPROF_MMAP_RECORD_MAX + PATH_MAX)

/* Does @s record side-band (its queues exist), and of process @tgid? */
static bool kprof_sideband_wanted(struct kprof_session *s, u32 tgid)
{
	if (!READ_ONCE(s->sideband_on))
		return false;
	if (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)
		return true;
	return kprof_pidset_has(s, tgid);
}

/* Context: preemption disabled. */
static void kprof_sideband_write(struct kprof_session *s, void *rec, u32 len)
{
	struct kprof_ring *ring = kprof_session_ring(s);

	if (!ring)
		return;
	if (kprof_ring_write(ring, rec, len))
		local64_inc(&ring->stats.sideband_lost);
	else
		local64_inc(&ring->stats.sideband);
}

static void kprof_comm_emit(struct kprof_session *s, struct task_struct *task,
			    const char *comm, u16 misc)
{
	struct kprof_comm_record rec = {
		.header = { .type = KPROF_RECORD_COMM, .misc = misc, .size = sizeof(rec) },
		.time = ktime_get_mono_fast_ns(),
		.pid = task_tgid_nr(task),
		.tid = task_pid_nr(task),
	};

	/* the side-band records' uapi layouts */
	BUILD_BUG_ON(sizeof(struct kprof_comm_record) != 40);
	BUILD_BUG_ON(sizeof(struct kprof_exit_record) != 24);
	BUILD_BUG_ON(sizeof(struct kprof_fork_record) != 32);
	BUILD_BUG_ON(offsetof(struct kprof_mmap_record, filename) != 48);

	strscpy_pad(rec.comm, comm, sizeof(rec.comm));
	kprof_sideband_write(s, &rec, sizeof(rec));
}

/* --- tracepoint probes (preemption disabled, any task) ------------------- */

/*
 * The sessions a hook writes for: the active ones, walked with preemption
 * disabled (every hook here runs so); session.c's grace period after a
 * session leaves the list ends the walks that saw it.  Each applies its
 * own filter, kprof_sideband_wanted().
 */
#define kprof_for_each_active(s)	\
	list_for_each_entry_rcu(s, &kprof_active_sessions, active)

static void kprof_tp_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct kprof_fork_record rec = {
		.header = { .type = KPROF_RECORD_FORK, .size = sizeof(rec) },
		.time = ktime_get_mono_fast_ns(),
		.pid = task_tgid_nr(child),
		.tid = task_pid_nr(child),
		.ppid = task_tgid_nr(parent),
		.ptid = task_pid_nr(parent),
	};
	struct kprof_session *s;

	kprof_for_each_active(s) {
		if (!kprof_sideband_wanted(s, rec.ppid))
			continue;
		if (!(s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)) {
			bool threads = s->cfg.flags & KPROF_SESSION_F_THREADS;

			if (!(s->cfg.flags & KPROF_SESSION_F_INHERIT))
				continue;
			/* per thread: a child of a followed thread only */
			if (threads && !kprof_task_followed(s, parent))
				continue;
			if (!kprof_pidset_add(s, rec.pid) ||
			    (threads && !kprof_tidset_add(s, rec.tid))) {
				unsigned int cpu = smp_processor_id();
				struct kprof_ring *ring = kprof_ring_of(s->bufs, cpu);

				if (ring)
					local64_inc(&ring->stats.sideband_lost);
				continue;
			}
		}
		kprof_sideband_write(s, &rec, sizeof(rec));
	}
}

static void kprof_tp_exit(void *data, struct task_struct *p)
{
	struct kprof_exit_record rec = {
		.header = { .type = KPROF_RECORD_EXIT, .size = sizeof(rec) },
		.time = ktime_get_mono_fast_ns(),
		.pid = task_tgid_nr(p),
		.tid = task_pid_nr(p),
	};
	struct kprof_session *s;

	kprof_for_each_active(s)
		if (kprof_sideband_wanted(s, rec.pid))
			kprof_sideband_write(s, &rec, sizeof(rec));
}

/* the side-band's tracepoints and their probes, in registration order */
static const struct {
	enum kprof_ktp id;
	void *probe;
} kprof_sb_tps[] = {
	{ KPROF_KTP_PROCESS_FORK, kprof_tp_fork },
	{ KPROF_KTP_PROCESS_EXIT, kprof_tp_exit },
};

/* --- MMAP: a kprobe on perf_event_mmap() and a work item ----------------- */

/*
 * Is @vma the vDSO?  Its MMAP record lets userspace name the frames in it,
 * as perf's "[vdso]" does; other special mappings hold no code of interest.
 */
static bool kprof_vma_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (!vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, "[vdso]");
}

/*
 * The MMAP notes: one queue per CPU for every session, which a CPU that
 * was up while the hooks were registered has (the hotplug work of
 * kprof_mmap_cpus gives one to a CPU that comes up; one that goes down
 * keeps it), published with release stores.  A note is queued once however
 * many sessions want it; the work item resolves its path once and writes
 * the record to each session on kprof_mmap_sessions that wants it.
 */
static struct kprof_mmap_queue **kprof_mmap_qs;
static struct kprof_cpu_target kprof_mmap_cpus;
static u64 kprof_mmap_mem;
/* Serialises the draining of the queues, and kprof_mmap_sessions. */
static DEFINE_MUTEX(kprof_mmap_lock);
/* The sessions that record side-band, until their kprof_sideband_stop(). */
static LIST_HEAD(kprof_mmap_sessions);
static void kprof_mmap_work_fn(struct work_struct *work);
static DECLARE_WORK(kprof_mmap_work, kprof_mmap_work_fn);

/* A note of process @tgid could not be queued: lost to each session wanting it. */
static void kprof_mmap_lost(u32 tgid)
{
	unsigned int cpu = smp_processor_id();
	struct kprof_session *s;

	kprof_for_each_active(s) {
		struct kprof_ring *ring;

		if (!kprof_sideband_wanted(s, tgid))
			continue;
		ring = kprof_ring_of(s->bufs, cpu);
		if (ring)
			local64_inc(&ring->stats.sideband_lost);
		else
			atomic64_inc(&s->lost_no_ring);
	}
}

/* Queue @vma's MMAP note for the work item, or count it lost. */
static void kprof_mmap_note(struct vm_area_struct *vma, u64 time)
{
	struct kprof_mmap_queue **qs = READ_ONCE(kprof_mmap_qs);
	struct kprof_mmap_queue *q = NULL;
	struct kprof_mmap_note *note;
	unsigned int head, tail;

	if (qs)	/* pairs with kprof_mmap_cpu_online()'s release: zeroed */
		q = smp_load_acquire(&qs[smp_processor_id()]);
	if (unlikely(!q)) {
		kprof_mmap_lost(task_tgid_nr(current));
		return;
	}
	head = q->head;
	tail = smp_load_acquire(&q->tail);	/* matches the worker's release */
	if (head - tail >= KPROF_MMAP_QUEUE) {
		kprof_mmap_lost(task_tgid_nr(current));
		return;
	}

	note = &q->notes[head % KPROF_MMAP_QUEUE];
	note->time = time;
	note->pid = task_tgid_nr(current);
	note->tid = task_pid_nr(current);
	note->start = vma->vm_start;
	note->len = vma->vm_end - vma->vm_start;
	note->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	note->file = vma->vm_file ? get_file(vma->vm_file) : NULL;
	smp_store_release(&q->head, head + 1);	/* matches the worker's acquire */

	queue_work(system_unbound_wq, &kprof_mmap_work);
}

NOKPROBE_SYMBOL(kprof_mmap_note);

/* perf_event_mmap(struct vm_area_struct *vma): process context, mmap_lock held. */
static int kprof_kp_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)regs->di;
	u64 time = ktime_get_mono_fast_ns();
	u32 tgid = task_tgid_nr(current);
	struct kprof_session *s;

	if (!(vma->vm_flags & VM_EXEC) || (!vma->vm_file && !kprof_vma_is_vdso(vma)))
		return 0;
	kprof_for_each_active(s) {
		if (kprof_sideband_wanted(s, tgid)) {
			kprof_mmap_note(vma, time);
			break;
		}
	}
	return 0;
}

NOKPROBE_SYMBOL(kprof_kp_mmap);

/*
 * perf_event_comm(struct task_struct *task, bool exec): called by
 * __set_task_comm() (prctl(PR_SET_NAME), a write to /proc/PID/comm, and
 * exec's begin_new_exec()) once the new name is in place, where perf
 * writes its own COMM.  An exec's COMM is thus dated before the new image
 * is mapped, and samples taken while it loads carry the new name, as the
 * kernel's own prev_comm has it.
 */
static int kprof_kp_comm(struct kprobe *kp, struct pt_regs *regs)
{
	struct task_struct *task = (struct task_struct *)regs->di;
	bool exec = (u8)regs->si;	/* a bool: only its low byte is defined */
	struct kprof_session *s;

	kprof_for_each_active(s)
		if (kprof_sideband_wanted(s, task_tgid_nr(task)))
			kprof_comm_emit(s, task, task->comm, exec ? KPROF_MISC_COMM_EXEC : 0);
	return 0;
}

NOKPROBE_SYMBOL(kprof_kp_comm);

static struct kprobe kprof_kp_mmap_probe, kprof_kp_comm_probe;
static struct kprobe *kprof_kps[] = { &kprof_kp_mmap_probe, &kprof_kp_comm_probe };

/*
 * The path of a mapped file as its task sees it, like perf's MMAP records
 * and /proc/PID/maps: the work item runs with the initial root, so a task
 * in a chroot or another mount namespace would otherwise get the global
 * path.  d_path() of both the file and the task's root, and the root's
 * prefix cut off when the file lies below it.  A task that is gone keeps
 * the global path.
 */
static char *kprof_mmap_path(struct kprof_mmap_note *note, char *buf, char *rootbuf)
{
	struct task_struct *task = NULL;
	struct path rootpath;
	bool have_root = false;
	struct pid *pid;
	char *path, *root;
	size_t rlen;

	path = d_path(&note->file->f_path, buf, PATH_MAX);
	if (IS_ERR(path))
		return "//unknown";

	pid = find_get_pid(note->tid);
	if (pid)
		task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	if (!task)
		return path;
	task_lock(task);
	if (task->fs) {
		get_fs_root(task->fs, &rootpath);
		have_root = true;
	}
	task_unlock(task);
	put_task_struct(task);
	if (!have_root)
		return path;

	root = d_path(&rootpath, rootbuf, PATH_MAX);
	path_put(&rootpath);
	if (IS_ERR(root) || !strcmp(root, "/"))
		return path;
	rlen = strlen(root);
	if (!strncmp(path, root, rlen) && path[rlen] == '/')
		path += rlen;
	return path;
}

/* A record and its session, for kprof_sideband_write_on(). */
struct kprof_sb_write {
	struct kprof_session *s;
	void *rec;
	u32 len;
};

static void kprof_sideband_write_on(void *arg)
{
	struct kprof_sb_write *w = arg;

	kprof_sideband_write(w->s, w->rec, w->len);
}

/*
 * From a work item: write @rec on this CPU when @s has a ring here, else
 * on one of its CPUs that has one and is up (a -C session's side-band
 * must not depend on where the work item ran), or count it lost.
 */
static void kprof_sideband_write_any(struct kprof_session *s, void *rec, u32 len)
{
	struct kprof_sb_write w = { .s = s, .rec = rec, .len = len };
	unsigned int cpu;

	preempt_disable();
	if (kprof_ring_of(s->bufs, smp_processor_id())) {
		kprof_sideband_write(s, rec, len);
		preempt_enable();
		return;
	}
	preempt_enable();
	cpu = cpumask_first_and(s->cpus_ready, cpu_online_mask);
	if (cpu >= nr_cpu_ids || smp_call_function_single(cpu, kprof_sideband_write_on, &w, 1))
		atomic64_inc(&s->lost_no_ring);
}

/*
 * Resolve @note's path into @rec once and write the record to each session
 * that wants it.  kprof_mmap_lock held.
 */
static void kprof_mmap_emit(struct kprof_mmap_note *note, struct kprof_mmap_record *rec)
{
	char *rootbuf = (char *)rec + KPROF_MMAP_RECORD_MAX;
	struct kprof_session *s;
	char *path;
	size_t n;

	lockdep_assert_held(&kprof_mmap_lock);
	path = note->file ? kprof_mmap_path(note, rec->filename, rootbuf) : "[vdso]";
	n = strlen(path) + 1;
	memmove(rec->filename, path, n);

	rec->header.type = KPROF_RECORD_MMAP;
	rec->header.misc = 0;
	rec->header.size = ALIGN(sizeof(*rec) + n, 8);
	memset(rec->filename + n, 0, rec->header.size - sizeof(*rec) - n);
	rec->time = note->time;
	rec->pid = note->pid;
	rec->tid = note->tid;
	rec->start = note->start;
	rec->len = note->len;
	rec->pgoff = note->pgoff;

	list_for_each_entry(s, &kprof_mmap_sessions, mmap_node)
		if (kprof_sideband_wanted(s, note->pid))
			kprof_sideband_write_any(s, rec, rec->header.size);
}

/*
 * Turn every queued note into records, and put their files; without
 * memory for the record the notes are still consumed, and counted lost to
 * the sessions that wanted them.  kprof_mmap_lock held.
 */
static void kprof_mmap_drain(void)
{
	struct kprof_mmap_record *rec;
	struct kprof_session *s;
	unsigned int cpu;

	lockdep_assert_held(&kprof_mmap_lock);
	if (!kprof_mmap_qs)
		return;
	rec = kmalloc(KPROF_MMAP_WORK_BUF, KPROF_GFP);
	for_each_possible_cpu(cpu) {
		/* pairs with kprof_mmap_cpu_online()'s release */
		struct kprof_mmap_queue *q = smp_load_acquire(&kprof_mmap_qs[cpu]);
		unsigned int tail;

		if (!q)
			continue;
		tail = q->tail;
		/* acquire matches the probe's release of head: the note is whole */
		while (tail != smp_load_acquire(&q->head)) {
			struct kprof_mmap_note *note = &q->notes[tail % KPROF_MMAP_QUEUE];

			if (rec) {
				kprof_mmap_emit(note, rec);
			} else {
				list_for_each_entry(s, &kprof_mmap_sessions, mmap_node)
					if (kprof_sideband_wanted(s, note->pid))
						atomic64_inc(&s->lost_no_ring);
			}
			if (note->file)
				fput(note->file);
			/* release matches the probe's acquire of tail: slot reusable */
			smp_store_release(&q->tail, ++tail);
		}
	}
	kfree(rec);
}

static void kprof_mmap_work_fn(struct work_struct *work)
{
	mutex_lock(&kprof_mmap_lock);
	kprof_mmap_drain();
	mutex_unlock(&kprof_mmap_lock);
}

/* A CPU's queue, once: at the hooks' registration, or when it comes up. */
static int kprof_mmap_cpu_online(struct kprof_cpu_target *t, unsigned int cpu, bool starting,
				 struct netlink_ext_ack *extack)
{
	struct kprof_mmap_queue *q;

	if (kprof_mmap_qs[cpu])
		return 0;
	q = kvzalloc_node(sizeof(*q), KPROF_GFP, cpu_to_node(cpu));
	if (!q) {
		NL_SET_ERR_MSG(extack, "kprof: cannot allocate the MMAP queues");
		return -ENOMEM;
	}
	WRITE_ONCE(kprof_mmap_mem, kprof_mmap_mem + sizeof(*q));
	/* the zeroed queue before the pointer: kprof_mmap_note() */
	smp_store_release(&kprof_mmap_qs[cpu], q);
	return 0;
}

/* no .offline: a CPU that goes down keeps its queue */
static const struct kprof_cpu_target_ops kprof_mmap_cpu_ops = {
	.online		= kprof_mmap_cpu_online,
};

/* The queues, for the first session that records side-band.  kprof_sb_lock. */
static int kprof_mmap_queues_alloc(struct netlink_ext_ack *extack)
{
	int ret;

	if (kprof_mmap_qs)
		return 0;
	kprof_mmap_qs = kcalloc(nr_cpu_ids, sizeof(*kprof_mmap_qs), KPROF_GFP);
	if (!kprof_mmap_qs)
		return -ENOMEM;
	kprof_mmap_mem = nr_cpu_ids * sizeof(*kprof_mmap_qs);
	ret = kprof_cpu_target_init(&kprof_mmap_cpus, cpu_possible_mask, &kprof_mmap_cpu_ops);
	if (!ret)
		ret = kprof_cpu_target_start(&kprof_mmap_cpus, extack);
	return ret;
}

/*
 * Free the queues, drained, once no session records side-band and the
 * hooks are gone.  kprof_sb_lock and kprof_mmap_lock held.
 */
static void kprof_mmap_queues_free(void)
{
	unsigned int cpu;

	if (!kprof_mmap_qs)
		return;
	kprof_cpu_target_destroy(&kprof_mmap_cpus);
	memset(&kprof_mmap_cpus, 0, sizeof(kprof_mmap_cpus));
	for_each_possible_cpu(cpu)
		kvfree(kprof_mmap_qs[cpu]);
	kfree(kprof_mmap_qs);
	WRITE_ONCE(kprof_mmap_qs, NULL);
	WRITE_ONCE(kprof_mmap_mem, 0);
}

/* --- the hooks, shared by every session that records side-band -------- */

/* Serialises the hooks' users count and their registration. */
static DEFINE_MUTEX(kprof_sb_lock);
static unsigned int kprof_sb_users;

static void kprof_tps_unregister(unsigned int n)
{
	while (n--)
		kprof_ktp_unregister(kprof_sb_tps[n].id, kprof_sb_tps[n].probe, NULL);
	kprof_ktp_sync();
}

/*
 * Free the queues when neither hooks nor sessions use them, and wait for a
 * run of the work item queued before the hooks went (it finds nothing
 * left): none is pending when the module goes.  kprof_sb_lock held.
 */
static void kprof_mmap_queues_put_unused(void)
{
	bool unused;

	mutex_lock(&kprof_mmap_lock);
	unused = list_empty(&kprof_mmap_sessions) && !kprof_sb_users;
	if (unused)
		kprof_mmap_queues_free();
	mutex_unlock(&kprof_mmap_lock);
	if (unused)
		cancel_work_sync(&kprof_mmap_work);
}

/* The first user registers the hooks. */
static int kprof_sb_hooks_get(struct netlink_ext_ack *extack)
{
	unsigned int i = 0;
	int ret = 0;

	mutex_lock(&kprof_sb_lock);
	if (kprof_sb_users++)
		goto out_unlock;

	/* before the hooks: they queue MMAP notes there */
	ret = kprof_mmap_queues_alloc(extack);
	if (ret)
		goto out_unregister_tps;
	for (i = 0; i < ARRAY_SIZE(kprof_sb_tps); i++) {
		ret = kprof_ktp_register(kprof_sb_tps[i].id, kprof_sb_tps[i].probe, NULL);
		if (ret) {
			NL_SET_ERR_MSG(extack, "kprof: cannot hook a scheduler tracepoint");
			goto out_unregister_tps;
		}
	}

	/* a kprobe cannot be registered twice: use fresh copies each time */
	kprof_kp_mmap_probe = (struct kprobe) {
		.symbol_name = "perf_event_mmap",
		.pre_handler = kprof_kp_mmap,
	};
	kprof_kp_comm_probe = (struct kprobe) {
		.symbol_name = "perf_event_comm",
		.pre_handler = kprof_kp_comm,
	};
	ret = register_kprobes(kprof_kps, ARRAY_SIZE(kprof_kps));
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "kprof: cannot probe perf_event_mmap() and perf_event_comm() for side-band records");
		goto out_unregister_tps;
	}
	goto out_unlock;

out_unregister_tps:
	kprof_tps_unregister(i);
	kprof_sb_users--;
	kprof_mmap_queues_put_unused();
out_unlock:
	mutex_unlock(&kprof_sb_lock);
	return ret;
}

/* The last user unregisters them; true when it did (and so waited for them). */
static bool kprof_sb_hooks_put(void)
{
	bool last;

	mutex_lock(&kprof_sb_lock);
	last = !--kprof_sb_users;
	if (last) {
		unregister_kprobes(kprof_kps, ARRAY_SIZE(kprof_kps));	/* waits for handlers */
		kprof_tps_unregister(ARRAY_SIZE(kprof_sb_tps));
	}
	mutex_unlock(&kprof_sb_lock);
	return last;
}

/* --- session hooks ------------------------------------------------------- */

/**
 * kprof_sideband_mem() - the memory of the MMAP queues all sessions share
 *
 * Return: the bytes (0 while no session records side-band).
 */
u64 kprof_sideband_mem(void)
{
	return READ_ONCE(kprof_mmap_mem);
}

/**
 * kprof_sideband_start() - record side-band for @s
 * @s: the session, not yet on kprof_active_sessions
 * @extack: for error messages
 *
 * Takes a reference on the hooks, registering them (and allocating the
 * MMAP queues) for the first session, and puts @s on the list the MMAP
 * work item writes for.  The hooks write for @s once it joins
 * kprof_active_sessions.
 *
 * Context: process context.
 * Return: 0 or a negative errno, with everything undone.
 */
int kprof_sideband_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	int ret;

	ret = kprof_sb_hooks_get(extack);
	if (ret)
		return ret;
	mutex_lock(&kprof_mmap_lock);
	list_add_tail(&s->mmap_node, &kprof_mmap_sessions);
	WRITE_ONCE(s->sideband_on, true);
	mutex_unlock(&kprof_mmap_lock);
	return 0;
}

/**
 * kprof_sideband_unhook() - drop @s's reference on the hooks
 * @s: the session, already removed from kprof_active_sessions
 *
 * Return: true when this unregistered the hooks, which waits for an RCU
 * grace period (every hook that saw @s on the list has returned then);
 * false when @s had none or other sessions keep them.
 *
 * Context: process context.
 */
bool kprof_sideband_unhook(struct kprof_session *s)
{
	return s->sideband_on && kprof_sb_hooks_put();
}

/**
 * kprof_sideband_stop() - write every pending MMAP note; the last session
 * frees the queues
 * @s: the session, unhooked, and an RCU grace period past since it left
 *	kprof_active_sessions (session.c): no note for it comes any more
 *
 * The notes queued while @s was active are written to it (and to the
 * other sessions that want them) before it leaves the MMAP work item's
 * list.
 *
 * Context: process context.
 */
void kprof_sideband_stop(struct kprof_session *s)
{
	if (!s->sideband_on)
		return;
	mutex_lock(&kprof_sb_lock);
	mutex_lock(&kprof_mmap_lock);
	kprof_mmap_drain();
	list_del_init(&s->mmap_node);
	WRITE_ONCE(s->sideband_on, false);
	mutex_unlock(&kprof_mmap_lock);
	kprof_mmap_queues_put_unused();
	mutex_unlock(&kprof_sb_lock);
}
