// SPDX-License-Identifier: GPL-2.0
/*
 * kprof - mappings kept for the frames of processes that are gone.
 *
 * An aggregating session counts user frames as addresses; readers name
 * them from the process's mappings.  While the process lives, those come
 * from its mm at read time (aggread.c) or /proc (kprofctl).  A process
 * that has exited, or exec'd something else, has none any more: a build or
 * any short-lived workload would read as [unknown].  So the session keeps
 * them when they go:
 *
 *  - the sampling path notes each process it creates a table entry with
 *    user frames for, in a lock-free set (kprof_procmap_note_pid(): only
 *    when a new entry is created, never per sample);
 *  - a kprobe on exit_mmap(), called when the last user of an address
 *    space drops it (the exiting task in exit_mm(), or the exec'ing task in
 *    exec_mmap() for the image it leaves), copies the executable file
 *    mappings and the vDSO of such a process, with a reference on each
 *    file, into a bounded pool; a work item then turns the files into
 *    path, device and inode, and drops the references.  An address space
 *    freed by anyone else (a /proc reader holding the last reference, the
 *    OOM reaper) cannot be attributed and is counted as unowned;
 *  - at the session's stop, the same is copied from every noted process
 *    that still lives (kprof_procmap_keep_live()), so that what exits or
 *    execs between the stop and the read is named too.
 *
 * Build ids are not read here (build_id_parse() is not exported): kprofctl
 * reads them from the files.  Everything is bounded and what does not fit
 * is counted (KPROF_MAPS_A_*).
 *
 * A session read in intervals has two pools, one per half of its tables
 * (Documentation/aggregation.rst, "Kept mappings per interval"): a process
 * is noted in the pool of the half its entry went to, and its mappings
 * are kept, when it goes, in the pool of the half being written; a swap
 * empties a pool with its half, when no entry of a half still to be read
 * can name the process (kprof_procmap_clear_half()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/kdev_t.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/path.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "internal.h"
#include "procmap.h"

/* processes whose mappings are kept */
#define KPROF_PROCMAP_PIDS	4096
/* mappings kept, all processes together */
#define KPROF_PROCMAP_VMAS	16384
/* VMAs looked at per address space at most: the walk runs in a kprobe */
#define KPROF_PROCMAP_WALK	2048
/* lists of a process's kept mappings, by process id */
#define KPROF_PROCMAP_HEADS	1024

enum kprof_procmap_state {
	KPROF_PROCMAP_FREE = 0,
	KPROF_PROCMAP_NOTED,	/* filled, holds @file */
	KPROF_PROCMAP_NAMED,	/* @path, @dev, @ino set; @file put */
};

/**
 * struct kprof_procmap_vma - one kept mapping
 * @state: enum kprof_procmap_state, published with release
 * @pid: process
 * @start: first address
 * @len: bytes
 * @pgoff: file offset of @start, bytes
 * @file: the mapped file until named; NULL for the vDSO
 * @path: the file's path (kmalloc'd) once named
 * @dev: the file's device
 * @ino: the file's inode
 * @comm: the process's name while the mapping existed
 * @next: the next mapping (index + 1) on the list of @pid's bucket, 0: end
 */
struct kprof_procmap_vma {
	u32 state;
	u32 pid;
	u32 next;
	u64 start;
	u64 len;
	u64 pgoff;
	struct file *file;
	const char *path;
	u64 dev;
	u64 ino;
	char comm[TASK_COMM_LEN];
};

/**
 * struct kprof_procmap_pool - the kept mappings of one half
 * @pids: processes with counted user stacks (pidset.h)
 * @heads: the first mapping (index + 1) of each bucket's list, 0: none;
 *	pushed lock-free, removed only by kprof_procmap_clear_half()
 * @used: slots of @vmas handed out (may run past the end: then full)
 * @vmas: the mappings
 */
struct kprof_procmap_pool {
	u32 pids[KPROF_PROCMAP_PIDS];
	u32 heads[KPROF_PROCMAP_HEADS];
	atomic_t used;
	struct kprof_procmap_vma vmas[KPROF_PROCMAP_VMAS];
};

/**
 * struct kprof_procmap - a session's kept mappings
 * @halves: pools in @pools: 1, or 2 for a session read in intervals
 * @epoch: that session's epoch (struct kprof_agg's), whose parity names
 *	the pool written; NULL with one pool
 * @procs: address spaces copied
 * @lost: mappings that found no slot
 * @lost_pids: processes @pids had no room for
 * @unowned: address spaces freed outside their process
 * @work: names the noted mappings
 * @hooked: the exit_mmap() kprobe is registered for this pool
 * @root_lock: serialises readers over the cached root below
 * @root: the last reader's root (a reference), when @root_valid
 * @root_valid: @root and @root_prefix are set
 * @root_prefix: the global path of @root, "" for "/" (PATH_MAX bytes)
 * @drain_lock: serialises naming the mappings and emptying a pool
 * @pools: the pools
 */
struct kprof_procmap {
	unsigned int halves;
	const u64 *epoch;
	atomic64_t procs;
	atomic64_t lost;
	atomic64_t lost_pids;
	atomic64_t unowned;
	struct work_struct work;
	bool hooked;
	struct mutex root_lock;		/* the cached reader root */
	struct path root;
	bool root_valid;
	char *root_prefix;
	struct mutex drain_lock;	/* naming vs. emptying */
	struct kprof_procmap_pool pools[];
};

/* The pool of the half being written.  Any context. */
static struct kprof_procmap_pool *kprof_procmap_pool_now(struct kprof_procmap *pm)
{
	return &pm->pools[pm->epoch ? READ_ONCE(*pm->epoch) & 1 : 0];
}

static const char kprof_procmap_vdso[] = "[vdso]";

/**
 * kprof_procmap_note_pid() - keep @tgid's mappings when it goes
 * @pm: the session's kept mappings
 * @tgid: a process that has a counted user stack
 *
 * Context: any, NMI included.
 */
void kprof_procmap_note_pid(struct kprof_procmap *pm, u32 tgid)
{
	if (!kprof_pidset_insert(kprof_procmap_pool_now(pm)->pids, KPROF_PROCMAP_PIDS, tgid))
		atomic64_inc(&pm->lost_pids);
}

NOKPROBE_SYMBOL(kprof_procmap_note_pid);

/* Was @tgid noted in any pool? */
static bool kprof_procmap_noted(struct kprof_procmap *pm, u32 tgid)
{
	unsigned int h;

	for (h = 0; h < pm->halves; h++)
		if (kprof_pidset_lookup(pm->pools[h].pids, KPROF_PROCMAP_PIDS, tgid))
			return true;
	return false;
}

static u32 *kprof_procmap_head(struct kprof_procmap_pool *pool, u32 pid)
{
	return &pool->heads[kprof_pidset_slot(pid, KPROF_PROCMAP_HEADS)];
}

/* Push slot @i on its bucket's list; cmpxchg orders @v->next before it. */
static void kprof_procmap_push(struct kprof_procmap_pool *pool, struct kprof_procmap_vma *v,
			       u32 i)
{
	u32 *head = kprof_procmap_head(pool, v->pid);
	u32 old = READ_ONCE(*head), prev;

	for (;;) {
		WRITE_ONCE(v->next, old);
		prev = cmpxchg(head, old, i + 1);
		if (prev == old)
			break;
		old = prev;
	}
}

static bool kprof_procmap_is_vdso(struct vm_area_struct *vma)
{
	const char *name;

	if (vma->vm_file || !vma->vm_ops || !vma->vm_ops->name)
		return false;
	name = vma->vm_ops->name(vma);
	return name && !strcmp(name, kprof_procmap_vdso);
}

/* The process that is dropping @mm for good, or 0 when it cannot be told. */
static u32 kprof_procmap_owner(struct mm_struct *mm)
{
	struct task_struct *t = current;

	if (t->flags & PF_KTHREAD)
		return 0;
	/* exit_mm(): current->mm is already cleared */
	if (!t->mm && (t->flags & PF_EXITING))
		return task_tgid_nr(t);
	/* exec_mmap(): the new mm is installed, the old one goes */
	if (t->in_execve && t->mm && t->mm != mm)
		return task_tgid_nr(t);
	return 0;
}

/*
 * Copy the executable file mappings and the vDSO of @mm, process @tgid's,
 * named @comm, into the pool of the half being written, at most
 * KPROF_PROCMAP_WALK VMAs looked at.  The caller keeps @mm's VMAs from
 * changing (no users left, or its mmap lock).  Return: a mapping was kept.
 */
static bool kprof_procmap_copy(struct kprof_procmap *pm, struct mm_struct *mm, u32 tgid,
			       const char *comm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct kprof_procmap_pool *pool = kprof_procmap_pool_now(pm);
	struct vm_area_struct *vma;
	unsigned int walked = 0;
	bool noted = false;

	for_each_vma(vmi, vma) {
		struct kprof_procmap_vma *v;
		int i;

		if (++walked > KPROF_PROCMAP_WALK)
			break;
		if (!(vma->vm_flags & VM_EXEC) ||
		    (!vma->vm_file && !kprof_procmap_is_vdso(vma)))
			continue;
		i = atomic_inc_return(&pool->used) - 1;
		if (i >= KPROF_PROCMAP_VMAS) {
			atomic64_inc(&pm->lost);
			continue;
		}
		v = &pool->vmas[i];
		v->pid = tgid;
		v->start = vma->vm_start;
		v->len = vma->vm_end - vma->vm_start;
		v->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
		v->file = vma->vm_file ? get_file(vma->vm_file) : NULL;
		strscpy(v->comm, comm, sizeof(v->comm));
		/* release matches the worker's and readers' acquire */
		smp_store_release(&v->state, KPROF_PROCMAP_NOTED);
		kprof_procmap_push(pool, v, i);
		noted = true;
	}
	if (noted)
		atomic64_inc(&pm->procs);
	return noted;
}

/*
 * exit_mmap(struct mm_struct *mm): process context, preemption disabled
 * (a kprobe), @mm has no users left, so nothing changes its VMAs.  The
 * RCU read lock is for the maple tree walk's lockdep checks.
 */
static int kprof_procmap_exit_mmap(struct kprobe *kp, struct pt_regs *regs)
{
	struct mm_struct *mm = (struct mm_struct *)regs->di;
	u32 tgid = kprof_procmap_owner(mm);
	char comm[TASK_COMM_LEN];
	struct kprof_session *s;
	struct kprof_procmap *pm;

	memcpy(comm, current->comm, sizeof(comm));
	comm[sizeof(comm) - 1] = '\0';
	/* every session's pool that noted the process gets its own copy */
	list_for_each_entry_rcu(s, &kprof_active_sessions, active) {
		pm = READ_ONCE(s->procmap);
		if (!pm || !READ_ONCE(pm->hooked))
			continue;
		if (!tgid) {
			atomic64_inc(&pm->unowned);
			continue;
		}
		if (!kprof_procmap_noted(pm, tgid))
			continue;
		rcu_read_lock();
		if (kprof_procmap_copy(pm, mm, tgid, comm))
			queue_work(system_unbound_wq, &pm->work);
		rcu_read_unlock();
	}
	return 0;
}

NOKPROBE_SYMBOL(kprof_procmap_exit_mmap);

/* Name one noted mapping; @buf has PATH_MAX bytes.  Process context. */
static void kprof_procmap_name_one(struct kprof_procmap_vma *v, char *buf)
{
	struct file *file = v->file;
	const char *path = kprof_procmap_vdso;
	char *p;

	if (file) {
		struct inode *inode = file_inode(file);

		path = NULL;
		if (buf) {
			p = d_path(&file->f_path, buf, PATH_MAX);
			if (!IS_ERR(p))
				path = kstrdup(p, KPROF_GFP);
		}
		v->dev = new_encode_dev(inode->i_sb->s_dev);
		v->ino = inode->i_ino;
		v->file = NULL;
		fput(file);
	}
	v->path = path;		/* NULL: no memory, the mapping has no name */
	smp_store_release(&v->state, KPROF_PROCMAP_NAMED);
}

/* Name every noted mapping.  Process context. */
static void kprof_procmap_drain(struct kprof_procmap *pm)
{
	char *buf = kmalloc(PATH_MAX, KPROF_GFP);
	unsigned int h;
	u32 i, used;

	mutex_lock(&pm->drain_lock);
	for (h = 0; h < pm->halves; h++) {
		struct kprof_procmap_pool *pool = &pm->pools[h];

		used = min_t(u32, atomic_read(&pool->used), KPROF_PROCMAP_VMAS);
		for (i = 0; i < used; i++) {
			struct kprof_procmap_vma *v = &pool->vmas[i];

			/* acquire matches the probe's release: the note is whole */
			if (smp_load_acquire(&v->state) == KPROF_PROCMAP_NOTED)
				kprof_procmap_name_one(v, buf);
		}
	}
	mutex_unlock(&pm->drain_lock);
	kfree(buf);
}

/* Give back what the named mappings of @pool hold.  Under drain_lock. */
static void kprof_procmap_pool_put(struct kprof_procmap_pool *pool)
{
	u32 i, used = min_t(u32, atomic_read(&pool->used), KPROF_PROCMAP_VMAS);

	for (i = 0; i < used; i++) {
		const char *path = pool->vmas[i].path;

		if (path != kprof_procmap_vdso)
			kfree(path);
	}
}

/**
 * kprof_procmap_clear_half() - empty the pool of a half a swap clears
 * @pm: the pool, or NULL
 * @half: the half: no sample writes it, and the exit hook writes the
 *	other pool (the swap that closed it waited for both)
 *
 * A process noted there is forgotten (one with entries in the half being
 * written is noted in the other pool too); the mappings kept there are
 * given back: no entry left to read names them.
 *
 * Context: process context, the session locked (session.c).
 */
void kprof_procmap_clear_half(struct kprof_procmap *pm, unsigned int half)
{
	struct kprof_procmap_pool *pool;

	if (!pm || half >= pm->halves)
		return;
	pool = &pm->pools[half];
	flush_work(&pm->work);
	kprof_procmap_drain(pm);	/* no file reference stays behind */
	mutex_lock(&pm->drain_lock);
	kprof_procmap_pool_put(pool);
	memset(pool->pids, 0, sizeof(pool->pids));
	memset(pool->heads, 0, sizeof(pool->heads));
	memset(pool->vmas, 0, sizeof(pool->vmas));
	atomic_set(&pool->used, 0);
	mutex_unlock(&pm->drain_lock);
}

static void kprof_procmap_work(struct work_struct *work)
{
	kprof_procmap_drain(container_of(work, struct kprof_procmap, work));
}

/**
 * kprof_procmap_alloc() - the kept mappings of a new aggregating session
 * @halves: 1, or 2 for a session read in intervals
 * @epoch: with 2, its epoch, whose parity is the half being written
 *
 * Context: process context.
 * Return: the (empty) pool, or NULL without memory.
 */
struct kprof_procmap *kprof_procmap_alloc(unsigned int halves, const u64 *epoch)
{
	struct kprof_procmap *pm;

	if (WARN_ON_ONCE(halves < 1 || halves > 2 || (halves == 2 && !epoch)))
		return NULL;
	pm = __vmalloc(struct_size(pm, pools, halves), KPROF_GFP | __GFP_ZERO);
	if (!pm)
		return NULL;
	pm->halves = halves;
	pm->epoch = halves == 2 ? epoch : NULL;
	pm->root_prefix = kzalloc(PATH_MAX, KPROF_GFP);
	if (!pm->root_prefix) {
		vfree(pm);
		return NULL;
	}
	INIT_WORK(&pm->work, kprof_procmap_work);
	mutex_init(&pm->root_lock);
	mutex_init(&pm->drain_lock);
	return pm;
}

/**
 * kprof_procmap_bytes() - the memory kprof_procmap_alloc() takes
 * @halves: its pools
 *
 * Return: the pools' bytes (the names of its mappings come on top, one
 * path each).
 */
u64 kprof_procmap_bytes(unsigned int halves)
{
	return struct_size((struct kprof_procmap *)NULL, pools, halves) + PATH_MAX;
}

/**
 * kprof_procmap_free() - free the pool of a session no hook can reach
 * @pm: the pool, or NULL
 *
 * Context: process context; the pool's session is off
 * kprof_active_sessions and a grace period has passed since, or it never
 * was on it.
 */
void kprof_procmap_free(struct kprof_procmap *pm)
{
	unsigned int h;

	if (!pm)
		return;
	kprof_procmap_stop(pm);
	flush_work(&pm->work);
	kprof_procmap_drain(pm);	/* notes queued after the last run */
	for (h = 0; h < pm->halves; h++)
		kprof_procmap_pool_put(&pm->pools[h]);
	if (pm->root_valid)
		path_put(&pm->root);
	kfree(pm->root_prefix);
	mutex_destroy(&pm->root_lock);
	mutex_destroy(&pm->drain_lock);
	vfree(pm);
}

static struct kprobe kprof_procmap_kp;
/* Serialises the hook's users count and its registration. */
static DEFINE_MUTEX(kprof_procmap_hook_lock);
static unsigned int kprof_procmap_hook_users;

/**
 * kprof_procmap_start() - hook exit_mmap() for the session's pool @pm
 * @pm: the pool; its session is not yet on kprof_active_sessions, whose
 *	walk finds it there
 * @extack: for error messages
 *
 * One kprobe serves every session's pool: the first registers it.
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int kprof_procmap_start(struct kprof_procmap *pm, struct netlink_ext_ack *extack)
{
	int ret = 0;

	mutex_lock(&kprof_procmap_hook_lock);
	if (!kprof_procmap_hook_users) {
		/* a kprobe cannot be registered twice: a fresh copy each time */
		kprof_procmap_kp = (struct kprobe) {
			.symbol_name = "exit_mmap",
			.pre_handler = kprof_procmap_exit_mmap,
		};
		ret = register_kprobe(&kprof_procmap_kp);
	}
	if (ret) {
		NL_SET_ERR_MSG(extack,
			       "kprof: cannot probe exit_mmap() to keep the mappings of exiting processes");
	} else {
		kprof_procmap_hook_users++;
		pm->hooked = true;
	}
	mutex_unlock(&kprof_procmap_hook_lock);
	return ret;
}

/**
 * kprof_procmap_stop() - drop the pool's reference on the exit_mmap() hook
 * @pm: the pool, or NULL; its session is off kprof_active_sessions
 *
 * Return: true when this unregistered the kprobe, which waits for an RCU
 * grace period (every handler that saw the session has returned then);
 * false when the pool was not hooked or other sessions keep the kprobe
 * (the caller then waits for a grace period itself before the pool is
 * written to by anyone else).
 *
 * Context: process context.
 */
bool kprof_procmap_stop(struct kprof_procmap *pm)
{
	bool last;

	if (!pm || !pm->hooked)
		return false;
	mutex_lock(&kprof_procmap_hook_lock);
	last = !--kprof_procmap_hook_users;
	if (last)
		unregister_kprobe(&kprof_procmap_kp);	/* waits for running handlers */
	mutex_unlock(&kprof_procmap_hook_lock);
	WRITE_ONCE(pm->hooked, false);
	return last;
}

/**
 * kprof_procmap_keep_live() - keep the mappings of the noted processes alive now
 * @pm: the pool, or NULL; unhooked (kprof_procmap_stop())
 *
 * At a session's stop: its tables are then named from what it kept,
 * whatever exits or execs between the stop and the read (the exit_mmap()
 * hook is gone by then).  A process whose leader has exited, or that has
 * no address space, is skipped.  The mappings are named before this
 * returns.
 *
 * Context: process context, the session locked (session.c).
 */
void kprof_procmap_keep_live(struct kprof_procmap *pm)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *task;
	struct mm_struct *mm;
	unsigned int h;
	u32 i, tgid;

	if (!pm)
		return;
	for (i = 0; i < pm->halves * KPROF_PROCMAP_PIDS; i++) {
		h = i / KPROF_PROCMAP_PIDS;
		tgid = READ_ONCE(pm->pools[h].pids[i % KPROF_PROCMAP_PIDS]);
		/* a process noted in both pools is kept once */
		if (!tgid ||
		    (h && kprof_pidset_lookup(pm->pools[0].pids, KPROF_PROCMAP_PIDS, tgid)))
			continue;
		/* the set holds ids of the initial namespace, whoever stops */
		rcu_read_lock();
		task = pid_task(find_pid_ns(tgid, &init_pid_ns), PIDTYPE_TGID);
		if (task)
			get_task_struct(task);
		rcu_read_unlock();
		if (!task)
			continue;
		get_task_comm(comm, task);
		mm = get_task_mm(task);
		put_task_struct(task);
		if (!mm)
			continue;
		mmap_read_lock(mm);
		kprof_procmap_copy(pm, mm, tgid, comm);
		mmap_read_unlock(mm);
		mmput(mm);
		cond_resched();
	}
	flush_work(&pm->work);
	kprof_procmap_drain(pm);
}

void kprof_procmap_stats(struct kprof_procmap *pm, struct kprof_procmap_stats *st)
{
	unsigned int h;

	memset(st, 0, sizeof(*st));
	if (!pm)
		return;
	st->procs = atomic64_read(&pm->procs);
	for (h = 0; h < pm->halves; h++)
		st->kept += min_t(u32, atomic_read(&pm->pools[h].used), KPROF_PROCMAP_VMAS);
	st->lost = atomic64_read(&pm->lost);
	st->lost_pids = atomic64_read(&pm->lost_pids);
	st->unowned = atomic64_read(&pm->unowned);
}

/*
 * The kept paths are global: the work item runs with the initial root.  A
 * reader in a chroot or another mount namespace sees them as it would see
 * the file, as /proc/PID/maps and the side-band's MMAP records show it: the
 * global path of the reader's root is cut off the front.  That global path
 * is what d_path() of the root gives in a kworker (d_absolute_path() is not
 * exported); it is computed once per reader root and cached.
 */
struct kprof_procmap_rootwork {
	struct work_struct work;
	struct path *root;
	char *buf;
	char *path;
};

static void kprof_procmap_root_fn(struct work_struct *work)
{
	struct kprof_procmap_rootwork *rw = container_of(work, struct kprof_procmap_rootwork, work);
	char *p = d_path(rw->root, rw->buf, PATH_MAX);

	rw->path = IS_ERR(p) ? NULL : p;
}

/* The reader's root, globally; pm->root_lock held.  NULL when it is "/". */
static const char *kprof_procmap_root_prefix(struct kprof_procmap *pm)
{
	struct kprof_procmap_rootwork rw;
	struct path root;

	if (!current->fs)
		return NULL;
	get_fs_root(current->fs, &root);
	if (pm->root_valid && path_equal(&root, &pm->root)) {
		path_put(&root);
		return pm->root_prefix[0] ? pm->root_prefix : NULL;
	}
	if (pm->root_valid)
		path_put(&pm->root);
	pm->root = root;	/* keeps the reference */
	pm->root_valid = true;
	pm->root_prefix[0] = '\0';

	rw.root = &root;
	rw.buf = kmalloc(PATH_MAX, KPROF_GFP);
	if (!rw.buf)
		return NULL;
	rw.path = NULL;
	INIT_WORK_ONSTACK(&rw.work, kprof_procmap_root_fn);
	queue_work(system_unbound_wq, &rw.work);
	flush_work(&rw.work);
	destroy_work_on_stack(&rw.work);
	if (rw.path && strcmp(rw.path, "/"))
		strscpy(pm->root_prefix, rw.path, PATH_MAX);
	kfree(rw.buf);
	return pm->root_prefix[0] ? pm->root_prefix : NULL;
}

/* @path as the reader sees it; pm->root_lock held. */
static const char *kprof_procmap_reader_path(struct kprof_procmap *pm, const char *path)
{
	const char *r;
	size_t rlen;

	if (path == kprof_procmap_vdso)
		return path;
	r = kprof_procmap_root_prefix(pm);
	if (!r)
		return path;
	rlen = strlen(r);
	if (!strncmp(path, r, rlen) && path[rlen] == '/')
		return path + rlen;
	return path;
}

/**
 * kprof_procmap_get() - the @index'th kept mapping, once named
 * @pm: the pool
 * @index: from 0: the first pool's slots, then the second's
 * @info: filled; its strings live as long as the session, or until the
 *	session's lock, held by the caller, is let go (a swap empties a pool)
 * @reader: give the path as the calling reader sees it, not the global one
 *
 * Return: false past the last mapping.  A mapping not named yet, or that
 * could not be (no memory), or a slot of the first pool past its last,
 * reads with a NULL path.
 * Context: process context: the reader's.
 */
bool kprof_procmap_get(struct kprof_procmap *pm, u32 index, struct kprof_procmap_info *info,
		       bool reader)
{
	struct kprof_procmap_pool *pool;
	struct kprof_procmap_vma *v;
	unsigned int h;
	u32 used;

	if (!pm)
		return false;
	h = index / KPROF_PROCMAP_VMAS;
	if (h >= pm->halves)
		return false;
	pool = &pm->pools[h];
	index %= KPROF_PROCMAP_VMAS;
	used = min_t(u32, atomic_read(&pool->used), KPROF_PROCMAP_VMAS);
	memset(info, 0, sizeof(*info));
	if (index >= used)
		return h + 1 < pm->halves;	/* on to the next pool */
	v = &pool->vmas[index];
	/* acquire matches the worker's release: path, dev and ino are set */
	if (smp_load_acquire(&v->state) != KPROF_PROCMAP_NAMED)
		return true;
	info->pid = v->pid;
	info->comm = v->comm;
	info->start = v->start;
	info->len = v->len;
	info->pgoff = v->pgoff;
	info->dev = v->dev;
	info->ino = v->ino;
	info->path = v->path;
	if (v->path && reader) {
		mutex_lock(&pm->root_lock);
		info->path = kprof_procmap_reader_path(pm, v->path);
		mutex_unlock(&pm->root_lock);
	}
	return true;
}

/**
 * kprof_procmap_name() - "dso+0xoffset" of @addr in a gone process
 * @pm: the pool, or NULL
 * @pid: the process
 * @comm: the name its table entry has: a mapping kept under that name (the
 *	image before an exec) is preferred
 * @same_comm: only a mapping kept under @comm will do
 * @addr: the user address
 * @buf: output
 * @len: its size
 *
 * Return: the length written, 0 when no kept mapping covers @addr.
 * Context: process context: the reader's.
 */
int kprof_procmap_name(struct kprof_procmap *pm, u32 pid, const char *comm, bool same_comm,
		       u64 addr, char *buf, size_t len)
{
	struct kprof_procmap_vma *v, *best = NULL;
	unsigned int h;
	u32 i;
	int n;

	if (!pm)
		return 0;
	for (h = 0; h < pm->halves; h++) {
		struct kprof_procmap_pool *pool = &pm->pools[h];

		/* acquire matches the cmpxchg of the push: the list is whole */
		i = smp_load_acquire(kprof_procmap_head(pool, pid));
		for (; i; i = READ_ONCE(v->next)) {
			v = &pool->vmas[i - 1];
			if (v->pid != pid || addr < v->start || addr - v->start >= v->len)
				continue;
			/* acquire matches the worker's release: the path is set */
			if (smp_load_acquire(&v->state) != KPROF_PROCMAP_NAMED || !v->path)
				continue;
			if (!strcmp(v->comm, comm)) {
				best = v;
				goto found;
			}
			if (!best && !same_comm)
				best = v;
		}
	}
found:
	if (!best)
		return 0;
	mutex_lock(&pm->root_lock);
	n = scnprintf(buf, len, "%s+0x%llx", kprof_procmap_reader_path(pm, best->path),
		      addr - best->start + best->pgoff);
	mutex_unlock(&pm->root_lock);
	return n;
}
