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
 * reference on a per-CPU single-producer queue, and a work item writes the
 * record with the note's time stamp.  Records are therefore not in time
 * order in the rings; readers sort by time.
 *
 * Processes that exist before the session starts are described by the
 * reader (kprofctl synthesizes their COMM and MMAP records from /proc), as
 * perf record does.  A process that exits during the session has all its
 * records in the rings by then: nothing depends on it being alive when the
 * data is decoded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

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

static bool kprof_sideband_wanted(struct kprof_session *s, u32 tgid)
{
	if (s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)
		return true;
	return kprof_pidset_has(s, tgid);
}

/* Context: preemption disabled. */
static void kprof_sideband_write(struct kprof_session *s, void *rec, u32 len)
{
	struct kprof_ring *ring = s->bufs->rings[smp_processor_id()];

	if (!ring)
		return;		/* a CPU outside a -C session */
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

static void kprof_tp_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct kprof_session *s = rcu_dereference_sched(kprof_active);
	struct kprof_fork_record rec;

	if (!s || !kprof_sideband_wanted(s, task_tgid_nr(parent)))
		return;
	if (!(s->cfg.flags & KPROF_SESSION_F_SYSTEM_WIDE)) {
		if (!(s->cfg.flags & KPROF_SESSION_F_INHERIT))
			return;
		if (!kprof_pidset_add(s, task_tgid_nr(child))) {
			struct kprof_ring *ring = s->bufs->rings[smp_processor_id()];

			if (ring)
				local64_inc(&ring->stats.sideband_lost);
			return;
		}
	}

	rec = (struct kprof_fork_record) {
		.header = { .type = KPROF_RECORD_FORK, .size = sizeof(rec) },
		.time = ktime_get_mono_fast_ns(),
		.pid = task_tgid_nr(child),
		.tid = task_pid_nr(child),
		.ppid = task_tgid_nr(parent),
		.ptid = task_pid_nr(parent),
	};
	kprof_sideband_write(s, &rec, sizeof(rec));
}

static void kprof_tp_exit(void *data, struct task_struct *p)
{
	struct kprof_session *s = rcu_dereference_sched(kprof_active);
	struct kprof_exit_record rec;

	if (!s || !kprof_sideband_wanted(s, task_tgid_nr(p)))
		return;
	rec = (struct kprof_exit_record) {
		.header = { .type = KPROF_RECORD_EXIT, .size = sizeof(rec) },
		.time = ktime_get_mono_fast_ns(),
		.pid = task_tgid_nr(p),
		.tid = task_pid_nr(p),
	};
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

/* perf_event_mmap(struct vm_area_struct *vma): process context, mmap_lock held. */
static int kprof_kp_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)regs->di;
	struct kprof_session *s = rcu_dereference_sched(kprof_active);
	struct kprof_mmap_queue *q;
	struct kprof_mmap_note *note;
	unsigned int head, tail;

	if (!s || !(vma->vm_flags & VM_EXEC) || (!vma->vm_file && !kprof_vma_is_vdso(vma)) ||
	    !kprof_sideband_wanted(s, task_tgid_nr(current)))
		return 0;

	q = s->mmap_queues[smp_processor_id()];
	head = q->head;
	tail = smp_load_acquire(&q->tail);	/* matches the worker's release */
	if (head - tail >= KPROF_MMAP_QUEUE) {
		struct kprof_ring *ring = s->bufs->rings[smp_processor_id()];

		if (ring)
			local64_inc(&ring->stats.sideband_lost);
		return 0;
	}

	note = &q->notes[head % KPROF_MMAP_QUEUE];
	note->time = ktime_get_mono_fast_ns();
	note->pid = task_tgid_nr(current);
	note->tid = task_pid_nr(current);
	note->start = vma->vm_start;
	note->len = vma->vm_end - vma->vm_start;
	note->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	note->file = vma->vm_file ? get_file(vma->vm_file) : NULL;
	smp_store_release(&q->head, head + 1);	/* matches the worker's acquire */

	queue_work(system_unbound_wq, &s->mmap_work);
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
	struct kprof_session *s = rcu_dereference_sched(kprof_active);
	bool exec = (u8)regs->si;	/* a bool: only its low byte is defined */

	if (s && kprof_sideband_wanted(s, task_tgid_nr(task)))
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

static void kprof_mmap_emit(struct kprof_session *s, struct kprof_mmap_note *note,
			    struct kprof_mmap_record *rec)
{
	char *rootbuf = (char *)rec + KPROF_MMAP_RECORD_MAX;
	char *path;
	size_t n;

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

	preempt_disable();
	kprof_sideband_write(s, rec, rec->header.size);
	preempt_enable();
}

static void kprof_mmap_drain(struct kprof_session *s, struct kprof_mmap_record *rec)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_mmap_queue *q = s->mmap_queues[cpu];
		unsigned int tail = q->tail;

		/* acquire matches the probe's release of head: the note is whole */
		while (tail != smp_load_acquire(&q->head)) {
			struct kprof_mmap_note *note = &q->notes[tail % KPROF_MMAP_QUEUE];

			if (rec)
				kprof_mmap_emit(s, note, rec);
			if (note->file)
				fput(note->file);
			/* release matches the probe's acquire of tail: slot reusable */
			smp_store_release(&q->tail, ++tail);
		}
	}
}

static void kprof_mmap_work(struct work_struct *work)
{
	struct kprof_session *s = container_of(work, struct kprof_session, mmap_work);
	struct kprof_mmap_record *rec;

	/* without memory the notes are still consumed, and their files put */
	rec = kmalloc(KPROF_MMAP_WORK_BUF, KPROF_GFP);
	kprof_mmap_drain(s, rec);
	kfree(rec);
}

static void kprof_mmap_queues_free(struct kprof_session *s)
{
	unsigned int cpu;

	if (!s->mmap_queues)
		return;
	for_each_possible_cpu(cpu)
		kvfree(s->mmap_queues[cpu]);
	kfree(s->mmap_queues);
	s->mmap_queues = NULL;
}

/* --- session hooks ------------------------------------------------------- */

static void kprof_tps_unregister(unsigned int n)
{
	while (n--)
		kprof_ktp_unregister(kprof_sb_tps[n].id, kprof_sb_tps[n].probe, NULL);
	kprof_ktp_sync();
}

/**
 * kprof_sideband_start() - hook the side-band sources for @s
 * @s: the session, not yet visible in kprof_active
 * @extack: for error messages
 *
 * Context: process context, the session lock held (session.c).
 * Return: 0 or a negative errno, with everything undone.
 */
int kprof_sideband_start(struct kprof_session *s, struct netlink_ext_ack *extack)
{
	unsigned int cpu, i;
	int ret;

	s->mmap_queues = kcalloc(nr_cpu_ids, sizeof(*s->mmap_queues), KPROF_GFP);
	if (!s->mmap_queues)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		s->mmap_queues[cpu] = kvzalloc_node(sizeof(*s->mmap_queues[cpu]),
						    KPROF_GFP, cpu_to_node(cpu));
		if (!s->mmap_queues[cpu]) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	INIT_WORK(&s->mmap_work, kprof_mmap_work);

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
	s->sideband_on = true;
	return 0;

out_unregister_tps:
	kprof_tps_unregister(i);
out_free:
	kprof_mmap_queues_free(s);
	return ret;
}

/**
 * kprof_sideband_stop() - unhook; every pending MMAP note is written
 * @s: the session, already removed from kprof_active
 *
 * Waits for an RCU grace period (unregister_kprobes() does), so handlers
 * that started before the session left kprof_active have finished.
 *
 * Context: process context, the session lock held (session.c).
 */
void kprof_sideband_stop(struct kprof_session *s)
{
	if (!s->sideband_on)
		return;
	unregister_kprobes(kprof_kps, ARRAY_SIZE(kprof_kps));	/* waits for running handlers */
	kprof_tps_unregister(ARRAY_SIZE(kprof_sb_tps));
	flush_work(&s->mmap_work);
	kprof_mmap_work(&s->mmap_work);	/* notes queued after the last run */
	kprof_mmap_queues_free(s);
	s->sideband_on = false;
}

