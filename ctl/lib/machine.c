// SPDX-License-Identifier: GPL-2.0
/*
 * Threads, processes, mappings and DSOs through time; see machine.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hmap.h"
#include "buildid.h"
#include "machine.h"
#include "util.h"

#define TIME_INF	UINT64_MAX

/* ---- a small open-addressing hash map: u64 / string key -> pointer ---- */

/* ---- state ---- */

struct kp_map {
	uint64_t	start, end;	/* [start, end) */
	uint64_t	pgoff;
	uint64_t	time_from;	/* valid in [time_from, time_to) */
	uint64_t	time_to;
	struct kp_dso	*dso;
};

struct comm_entry {
	uint64_t	time;
	const char	*name;
};

struct kp_thread {
	uint32_t		tid, pid;
	struct comm_entry	*comms;		/* by time */
	size_t			nr_comms;
};

struct kp_proc {
	uint32_t	pid;
	struct kp_map	*maps;
	size_t		nr_maps, alloc;
	uint64_t	*max_end;	/* max end of maps[0..i], maps sorted by start */
	uint64_t	*epochs;	/* the times the mappings changed, sorted */
	size_t		nr_epochs;
	bool		dirty;		/* maps not sorted */
	const struct kp_map *hint;
	struct kp_dso	*jit;
	bool		jit_tried;
	int		root;		/* 0: unknown, -1: not usable, 1: /proc/PID/root */
};

/* A queued side-band record. */
struct sb_event {
	uint64_t	time;
	uint64_t	seq;
	uint32_t	type;
	uint16_t	misc;
	uint32_t	pid, tid, ppid, ptid;
	uint64_t	start, len, pgoff;
	const char	*str;		/* interned comm or file name */
};

/* A resolved user address of a process: one probe instead of three lookups. */
struct frame_cache_entry {
	uint64_t		addr;
	const struct kp_proc	*proc;		/* NULL: empty */
	const struct kp_map	*map;
	uint64_t		dso_addr;
	const struct kp_sym	*sym;
};

#define FRAME_CACHE_BITS	16

struct kp_machine {
	struct kp_machine_opts	opts;
	struct frame_cache_entry *fcache;	/* 1 << FRAME_CACHE_BITS, direct-mapped */
	bool			fcache_used;
	char			debug_dir[PATH_MAX];
	struct kp_hmap		strings;	/* hash -> chain of interned strings */
	struct kp_hmap		threads;	/* tid + 1 -> struct kp_thread */
	struct kp_hmap		procs;		/* pid + 1 -> struct kp_proc */
	struct kp_hmap		dsos;		/* hash(key) -> struct dso_entry chain */
	struct dso_entry	*dso_list;
	struct sb_event		*pending;
	size_t			nr_pending, pending_alloc;
	uint64_t		seq;
	struct kp_kernel	kernel;
	bool			same_host;	/* recorded here: /proc/PID/root is usable */
	bool			same_kernel;	/* ... and /proc/kallsyms too */
	bool			origin_known;
	char			origin_host[72];
	char			origin_release[128];
	struct kp_proc		*last_proc;
	struct kp_thread	*last_thread;
	void			*vdso;		/* the recording's vDSO image, or NULL */
	uint32_t		vdso_size;
	struct kp_hmap		build_ids;	/* kp_hash_str(name) -> struct bid_entry chain */
	char			buildid_dir[PATH_MAX];
	struct kp_hmap		cfis;		/* DSO's address -> struct kp_cfi, or no_cfi */
};

/* A DSO whose CFI was looked for and not found. */
static char no_cfi;

/* A BUILD_ID record: the build-id the file @name had when recorded. */
struct bid_entry {
	struct bid_entry	*next;
	unsigned int		len;
	unsigned char		id[KP_BUILD_ID_MAX];
	char			name[];
};

struct dso_entry {
	struct dso_entry	*next;		/* in the hash chain */
	struct dso_entry	*list;		/* all of them */
	char			*key;
	uint32_t		pid;		/* for /proc/PID/root; 0: none */
	struct kp_dso		*dso;
};

struct str_entry {
	struct str_entry	*next;
	char			s[];
};

static const char *machine__intern(struct kp_machine *m, const char *s)
{
	uint64_t h = kp_hash_str(s);
	struct str_entry *e = kp_hmap__get(&m->strings, h), *n;
	size_t len;

	for (n = e; n; n = n->next)
		if (!strcmp(n->s, s))
			return n->s;
	len = strlen(s);
	n = malloc(sizeof(*n) + len + 1);
	if (!n)
		return NULL;
	memcpy(n->s, s, len + 1);
	n->next = e;
	if (kp_hmap__put(&m->strings, h, n)) {
		free(n);
		return NULL;
	}
	return n->s;
}

struct kp_machine *kp_machine__new(const struct kp_machine_opts *opts)
{
	struct kp_machine *m = calloc(1, sizeof(*m));
	const char *dd;

	if (!m)
		return NULL;
	if (opts)
		m->opts = *opts;
	if (!m->opts.kallsyms)
		m->opts.kallsyms = "/proc/kallsyms";
	if (!m->opts.jit_dir)
		m->opts.jit_dir = "/tmp";
	if (!m->opts.symfs)
		m->opts.symfs = "";
	dd = m->opts.debug_dir;
	if (!dd)
		dd = getenv("KPROF_DEBUG_DIR");
	if (!dd || !*dd)
		dd = KP_DEBUG_DIR_DEFAULT;
	snprintf(m->debug_dir, sizeof(m->debug_dir), "%s", dd);
	kp_buildid_cache__dir(m->opts.buildid_dir, m->buildid_dir, sizeof(m->buildid_dir));
	m->same_host = true;
	m->same_kernel = true;
	return m;
}

const char *kp_machine__debug_dir(const struct kp_machine *m)
{
	return m->debug_dir;
}

static void thread__free(struct kp_thread *t)
{
	free(t->comms);
	free(t);
}

static void proc__free(struct kp_proc *p)
{
	free(p->maps);
	free(p->max_end);
	free(p->epochs);
	kp_dso__delete(p->jit);
	free(p);
}

void kp_machine__delete(struct kp_machine *m)
{
	struct dso_entry *d, *dn;
	size_t i;

	if (!m)
		return;
	for (i = 0; m->build_ids.keys && i <= m->build_ids.mask; i++) {
		struct bid_entry *b, *bn;

		for (b = m->build_ids.keys[i] ? m->build_ids.vals[i] : NULL; b; b = bn) {
			bn = b->next;
			free(b);
		}
	}
	kp_hmap__exit(&m->build_ids);
	for (i = 0; m->cfis.keys && i <= m->cfis.mask; i++)
		if (m->cfis.keys[i] && m->cfis.vals[i] != &no_cfi)
			kp_cfi__delete(m->cfis.vals[i]);
	kp_hmap__exit(&m->cfis);
	for (i = 0; m->threads.keys && i <= m->threads.mask; i++)
		if (m->threads.keys[i])
			thread__free(m->threads.vals[i]);
	for (i = 0; m->procs.keys && i <= m->procs.mask; i++)
		if (m->procs.keys[i])
			proc__free(m->procs.vals[i]);
	for (i = 0; m->strings.keys && i <= m->strings.mask; i++) {
		struct str_entry *e, *n;

		if (!m->strings.keys[i])
			continue;
		for (e = m->strings.vals[i]; e; e = n) {
			n = e->next;
			free(e);
		}
	}
	for (d = m->dso_list; d; d = dn) {
		dn = d->list;
		kp_dso__delete(d->dso);
		free(d->key);
		free(d);
	}
	kp_hmap__exit(&m->threads);
	kp_hmap__exit(&m->procs);
	kp_hmap__exit(&m->strings);
	kp_hmap__exit(&m->dsos);
	free(m->pending);
	free(m->fcache);
	if (m->kernel.loaded)
		kp_kernel__exit(&m->kernel);
	free(m->vdso);
	free(m);
}

const char *kp_machine__intern(struct kp_machine *m, const char *s)
{
	return machine__intern(m, s);
}

void kp_machine__set_vdso(struct kp_machine *m, void *image, uint32_t size)
{
	free(m->vdso);
	m->vdso = image;
	m->vdso_size = image ? size : 0;
}

void kp_machine__set_origin(struct kp_machine *m, const char *hostname, const char *release)
{
	char host[256] = "";

	m->origin_known = true;
	snprintf(m->origin_host, sizeof(m->origin_host), "%s", hostname);
	snprintf(m->origin_release, sizeof(m->origin_release), "%s", release);
	gethostname(host, sizeof(host) - 1);
	m->same_host = !strcmp(host, hostname);
	m->same_kernel = m->same_host;
	if (m->same_kernel) {
		FILE *fp = fopen("/proc/sys/kernel/osrelease", "re");
		char rel[128] = "";

		if (fp) {
			if (fgets(rel, sizeof(rel), fp))
				rel[strcspn(rel, "\n")] = '\0';
			fclose(fp);
		}
		m->same_kernel = !strcmp(rel, release);
	}
}

/* ---- threads and processes ---- */

static struct kp_thread *machine__thread(struct kp_machine *m, uint32_t tid, bool create)
{
	struct kp_thread *t;

	if (m->last_thread && m->last_thread->tid == tid)
		return m->last_thread;
	t = kp_hmap__get(&m->threads, (uint64_t)tid + 1);
	if (!t && create) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->tid = tid;
		t->pid = tid;
		if (kp_hmap__put(&m->threads, (uint64_t)tid + 1, t)) {
			free(t);
			return NULL;
		}
	}
	if (t)
		m->last_thread = t;
	return t;
}

static struct kp_proc *machine__proc(struct kp_machine *m, uint32_t pid, bool create)
{
	struct kp_proc *p;

	if (m->last_proc && m->last_proc->pid == pid)
		return m->last_proc;
	p = kp_hmap__get(&m->procs, (uint64_t)pid + 1);
	if (!p && create) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->pid = pid;
		if (kp_hmap__put(&m->procs, (uint64_t)pid + 1, p)) {
			free(p);
			return NULL;
		}
	}
	if (p)
		m->last_proc = p;
	return p;
}

static int thread__set_comm(struct kp_thread *t, uint64_t time, const char *name)
{
	struct comm_entry *c;
	size_t i;

	if (!name)
		return -ENOMEM;
	if (t->nr_comms && t->comms[t->nr_comms - 1].name == name)
		return 0;
	c = realloc(t->comms, (t->nr_comms + 1) * sizeof(*c));
	if (!c)
		return -ENOMEM;
	t->comms = c;
	/* usually appended: side-band is applied in time order */
	for (i = t->nr_comms; i > 0 && c[i - 1].time > time; i--)
		c[i] = c[i - 1];
	c[i].time = time;
	c[i].name = name;
	t->nr_comms++;
	return 0;
}

static const char *thread__comm(const struct kp_thread *t, uint64_t time)
{
	size_t i;

	if (!t->nr_comms)
		return NULL;
	for (i = t->nr_comms; i > 1 && t->comms[i - 1].time > time; i--)
		;
	return t->comms[i - 1].name;
}

uint64_t kp_machine__comm_time(struct kp_machine *m, uint32_t pid, const char *comm,
			       uint64_t time)
{
	struct kp_thread *t = machine__thread(m, pid, false);
	size_t i;

	if (!t || !comm)
		return time;
	for (i = t->nr_comms; i > 0; i--) {
		const struct comm_entry *c = &t->comms[i - 1];

		if (c->time > time || strcmp(c->name, comm))
			continue;
		/* still so named at @time, or until just before the next name */
		if (i == t->nr_comms || t->comms[i].time > time)
			return time;
		return t->comms[i].time - 1;
	}
	return time;
}

const char *kp_machine__comm(struct kp_machine *m, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct kp_thread *t = machine__thread(m, tid, false);
	const char *name = t ? thread__comm(t, time) : NULL;
	char buf[32];

	if (name)
		return name;
	if (pid != tid) {
		struct kp_thread *main = machine__thread(m, pid, false);

		name = main ? thread__comm(main, time) : NULL;
	}
	if (!name) {
		if (!tid)
			snprintf(buf, sizeof(buf), "swapper");
		else
			snprintf(buf, sizeof(buf), ":%u", tid);
		name = machine__intern(m, buf);
	}
	/* Remember it for the next sample of this thread. */
	t = machine__thread(m, tid, true);
	if (t && name) {
		t->pid = pid;
		thread__set_comm(t, 0, name);
	}
	return name ? name : "[unknown]";
}

/* ---- DSOs ---- */

static struct kp_dso *machine__dso(struct kp_machine *m, const char *name, uint32_t root_pid)
{
	char key[PATH_MAX + 32];
	struct dso_entry *head, *d;
	uint64_t h;

	if (root_pid)
		snprintf(key, sizeof(key), "/proc/%u/root%s", root_pid, name);
	else
		snprintf(key, sizeof(key), "%s", name);
	h = kp_hash_str(key);
	head = kp_hmap__get(&m->dsos, h);
	for (d = head; d; d = d->next)
		if (!strcmp(d->key, key))
			return d->dso;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->key = strdup(key);
	d->dso = kp_dso__new(name);
	d->pid = root_pid;
	if (d->dso)
		d->dso->no_demangle = m->opts.no_demangle;
	if (!d->key || !d->dso || kp_hmap__put(&m->dsos, h, d)) {
		kp_dso__delete(d->dso);
		free(d->key);
		free(d);
		return NULL;
	}
	d->next = head;
	d->list = m->dso_list;
	m->dso_list = d;
	return d->dso;
}

/* Is /proc/PID/root of this live process another root than ours? */
static bool proc__use_root(struct kp_machine *m, struct kp_proc *p)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	if (p->root)
		return p->root > 0;
	p->root = -1;
	if (!m->opts.proc_root || !m->same_host || !p->pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%u/root", p->pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	if (strcmp(target, "/"))
		p->root = 1;
	return p->root > 0;
}

/* The build-id @name had when recorded (a BUILD_ID record), or NULL. */
static const struct bid_entry *machine__build_id(const struct kp_machine *m, const char *name)
{
	const struct bid_entry *b = kp_hmap__get(&m->build_ids, kp_hash_str(name));

	for (; b; b = b->next)
		if (!strcmp(b->name, name))
			return b;
	return NULL;
}

static int machine__add_build_id(struct kp_machine *m, const struct kp_rec_build_id *rec)
{
	uint64_t key = kp_hash_str(rec->filename);
	size_t len = strlen(rec->filename);
	struct bid_entry *b;

	if (machine__build_id(m, rec->filename))
		return 0;	/* the first one of a name */
	b = malloc(sizeof(*b) + len + 1);
	if (!b)
		return -ENOMEM;
	b->len = rec->size;
	memcpy(b->id, rec->build_id, sizeof(b->id));
	memcpy(b->name, rec->filename, len + 1);
	b->next = kp_hmap__get(&m->build_ids, key);
	if (kp_hmap__put(&m->build_ids, key, b)) {
		free(b);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Load @dso from @path if it is a regular file and, when the recording
 * named its build-id @bid, has that build-id: -ESTALE for another file of
 * that name (a binary replaced since), never loaded.
 */
static int try_load(struct kp_dso *dso, const char *path, const char *debug_dir,
		    const struct bid_entry *bid)
{
	unsigned char id[KP_BUILD_ID_MAX];
	struct stat st;
	int n;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	if (bid) {
		/* no build-id, or not even an ELF file: another file too */
		n = kp_elf__build_id(path, id, sizeof(id));
		if (n <= 0 || (unsigned int)n != bid->len || memcmp(id, bid->id, n))
			return -ESTALE;
	}
	kp_dso__load_elf(dso, path, debug_dir);
	return 0;
}

/*
 * Load @dso: [vdso] from the recording's vDSO image, when it has one;
 * else from the first of: /proc/PID/root/NAME (a live process in
 * another mount namespace), SYMFS/NAME, NAME without " (deleted)", and
 * NAME with leading directories cut (a recording made under a chroot whose
 * prefix the paths kept, e.g. /newroot/usr/bin/x), keeping two components.
 */
static void machine__load_dso(struct kp_machine *m, struct kp_dso *dso, uint32_t root_pid)
{
	const char *name = dso->name, *p;
	char path[PATH_MAX * 2], base[PATH_MAX];
	const struct bid_entry *bid;
	bool stale = false;
	size_t len;
	int slashes = 0, ret;

	dso->loaded = true;
	if (!strcmp(name, KP_DSO_VDSO_NAME)) {
		if (m->vdso)
			kp_dso__load_elf_mem(dso, m->vdso, m->vdso_size, m->debug_dir);
		return;
	}
	if (name[0] != '/')
		return;
	/* the file the recording saw, kept by build-id */
	bid = machine__build_id(m, name);
	if (bid && !kp_buildid_cache__path(m->buildid_dir, bid->id, bid->len, path, sizeof(path)) &&
	    !try_load(dso, path, m->debug_dir, bid)) {
		kp_pr_debug("'%s' read from the build-id cache: %s", name, path);
		return;
	}
	if (root_pid) {
		snprintf(path, sizeof(path), "%s/proc/%u/root%s", m->opts.symfs, root_pid, name);
		ret = try_load(dso, path, m->debug_dir, bid);
		if (!ret)
			return;
		stale |= ret == -ESTALE;
	}
	snprintf(base, sizeof(base), "%s", name);
	len = strlen(base);
	if (len > 10 && !strcmp(base + len - 10, " (deleted)"))
		base[len - 10] = '\0';
	snprintf(path, sizeof(path), "%s%s", m->opts.symfs, base);
	ret = try_load(dso, path, m->debug_dir, bid);
	if (!ret)
		return;
	stale |= ret == -ESTALE;
	for (p = base; *p; p++)
		slashes += *p == '/';
	for (p = strchr(base + 1, '/'); p && slashes > 2; p = strchr(p + 1, '/')) {
		slashes--;
		snprintf(path, sizeof(path), "%s%s", m->opts.symfs, p);
		ret = try_load(dso, path, m->debug_dir, bid);
		if (!ret) {
			kp_pr_debug("'%s' read as '%s'", name, path);
			return;
		}
		stale |= ret == -ESTALE;
	}
	if (stale) {
		char hex[KP_BUILDID_HEX_MAX];

		kp_error(m->opts.cmd, "warning: '%s' is not the file recorded (build-id %s), and the build-id cache %s does not have it: its frames stay unnamed",
			 name, kp_buildid__hex(bid->id, bid->len, hex), m->buildid_dir);
		return;
	}
	kp_pr_debug("'%s' not found", name);
}

/* ---- side-band ---- */

int kp_machine__add(struct kp_machine *m, const struct kprof_record_header *rec)
{
	struct sb_event *e;

	switch (rec->type) {
	case KPROF_RECORD_COMM:
	case KPROF_RECORD_EXIT:
	case KPROF_RECORD_FORK:
	case KPROF_RECORD_MMAP:
		break;
	case KP_DATA_REC_BUILD_ID:
		return machine__add_build_id(m, (const void *)rec);
	default:
		return 0;
	}
	if (m->nr_pending == m->pending_alloc) {
		size_t n = m->pending_alloc ? m->pending_alloc * 2 : 256;

		e = realloc(m->pending, n * sizeof(*e));
		if (!e)
			return -ENOMEM;
		m->pending = e;
		m->pending_alloc = n;
	}
	e = &m->pending[m->nr_pending];
	memset(e, 0, sizeof(*e));
	e->type = rec->type;
	e->misc = rec->misc;
	e->seq = m->seq++;
	switch (rec->type) {
	case KPROF_RECORD_COMM: {
		const struct kp_rec_comm *c = (const void *)rec;

		e->time = c->time;
		e->pid = c->pid;
		e->tid = c->tid;
		e->str = machine__intern(m, c->comm);
		if (!e->str)
			return -ENOMEM;
		break;
	}
	case KPROF_RECORD_EXIT: {
		const struct kp_rec_exit *x = (const void *)rec;

		e->time = x->time;
		e->pid = x->pid;
		e->tid = x->tid;
		break;
	}
	case KPROF_RECORD_FORK: {
		const struct kp_rec_fork *f = (const void *)rec;

		e->time = f->time;
		e->pid = f->pid;
		e->tid = f->tid;
		e->ppid = f->ppid;
		e->ptid = f->ptid;
		break;
	}
	case KPROF_RECORD_MMAP: {
		const struct kp_rec_mmap *mm = (const void *)rec;

		e->time = mm->time;
		e->pid = mm->pid;
		e->tid = mm->tid;
		e->start = mm->start;
		e->len = mm->len;
		e->pgoff = mm->pgoff;
		e->str = machine__intern(m, mm->filename);
		if (!e->str)
			return -ENOMEM;
		break;
	}
	}
	m->nr_pending++;
	return 0;
}

static int sb_event__cmp(const void *a, const void *b)
{
	const struct sb_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int proc__push_map(struct kp_proc *p, const struct kp_map *map)
{
	if (p->nr_maps == p->alloc) {
		size_t n = p->alloc ? p->alloc * 2 : 16;
		struct kp_map *maps = realloc(p->maps, n * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		p->maps = maps;
		p->alloc = n;
	}
	p->maps[p->nr_maps++] = *map;
	p->dirty = true;
	p->hint = NULL;
	return 0;
}

/*
 * A new mapping at @time: the live mappings it overlaps end then, and what
 * is left of them on either side lives on as new mappings.
 */
static int proc__mmap(struct kp_proc *p, const struct kp_map *map)
{
	size_t i, n = p->nr_maps;
	int ret;

	for (i = 0; i < n; i++) {
		struct kp_map old = p->maps[i];

		if (old.time_to != TIME_INF || old.end <= map->start || old.start >= map->end)
			continue;
		p->maps[i].time_to = map->time_from;
		if (old.start < map->start) {
			struct kp_map left = old;

			left.end = map->start;
			left.time_from = map->time_from;
			ret = proc__push_map(p, &left);
			if (ret)
				return ret;
		}
		if (old.end > map->end) {
			struct kp_map right = old;

			right.start = map->end;
			right.pgoff = old.pgoff + (map->end - old.start);
			right.time_from = map->time_from;
			ret = proc__push_map(p, &right);
			if (ret)
				return ret;
		}
	}
	return proc__push_map(p, map);
}

static int machine__apply(struct kp_machine *m, const struct sb_event *e)
{
	struct kp_thread *t, *parent;
	struct kp_proc *p, *pp;
	struct kp_map map;
	size_t i, n;
	int ret;

	switch (e->type) {
	case KPROF_RECORD_COMM:
		t = machine__thread(m, e->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = e->pid;
		return thread__set_comm(t, e->time, e->str);
	case KPROF_RECORD_FORK:
		t = machine__thread(m, e->tid, true);
		if (!t)
			return -ENOMEM;
		t->pid = e->pid;
		parent = machine__thread(m, e->ptid, false);
		if (parent && parent->nr_comms) {
			ret = thread__set_comm(t, e->time, thread__comm(parent, e->time));
			if (ret)
				return ret;
		}
		if (e->pid == e->ppid)
			return 0;
		pp = machine__proc(m, e->ppid, false);
		p = machine__proc(m, e->pid, true);
		if (!p)
			return -ENOMEM;
		if (!pp || pp == p)
			return 0;
		/* The child starts with its parent's mappings. */
		n = pp->nr_maps;
		for (i = 0; i < n; i++) {
			if (pp->maps[i].time_to != TIME_INF || pp->maps[i].time_from > e->time)
				continue;
			map = pp->maps[i];
			map.time_from = e->time;
			ret = proc__mmap(p, &map);
			if (ret)
				return ret;
		}
		return 0;
	case KPROF_RECORD_MMAP:
		if (!e->len || e->start + e->len < e->start)
			return 0;
		p = machine__proc(m, e->pid, true);
		if (!p)
			return -ENOMEM;
		map.start = e->start;
		map.end = e->start + e->len;
		map.pgoff = e->pgoff;
		map.time_from = e->time;
		map.time_to = TIME_INF;
		map.dso = machine__dso(m, e->str, proc__use_root(m, p) ? p->pid : 0);
		if (!map.dso)
			return -ENOMEM;
		return proc__mmap(p, &map);
	}
	return 0;
}

static int map__cmp(const void *a, const void *b)
{
	const struct kp_map *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_from < y->time_from ? -1 : x->time_from > y->time_from;
}

static int u64__cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int proc__sort(struct kp_proc *p)
{
	uint64_t *max_end, *epochs;
	size_t i, n = 0;

	p->dirty = false;
	p->hint = NULL;
	if (!p->nr_maps)
		return 0;
	qsort(p->maps, p->nr_maps, sizeof(*p->maps), map__cmp);
	max_end = realloc(p->max_end, p->nr_maps * sizeof(*max_end));
	if (!max_end)
		return -ENOMEM;
	p->max_end = max_end;
	for (i = 0; i < p->nr_maps; i++)
		max_end[i] = i && max_end[i - 1] > p->maps[i].end ? max_end[i - 1] : p->maps[i].end;
	/* every change of the mappings starts some mapping */
	epochs = realloc(p->epochs, p->nr_maps * sizeof(*epochs));
	if (!epochs)
		return -ENOMEM;
	p->epochs = epochs;
	for (i = 0; i < p->nr_maps; i++)
		epochs[i] = p->maps[i].time_from;
	qsort(epochs, p->nr_maps, sizeof(*epochs), u64__cmp);
	for (i = 0; i < p->nr_maps; i++)
		if (!n || epochs[n - 1] != epochs[i])
			epochs[n++] = epochs[i];
	p->nr_epochs = n;
	return 0;
}

uint32_t kp_machine__epoch(struct kp_machine *m, uint32_t pid, uint64_t time)
{
	struct kp_proc *p = machine__proc(m, pid, false);
	size_t lo = 0, hi;

	if (!p)
		return 0;
	hi = p->nr_epochs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->epochs[mid] <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int kp_machine__prepare(struct kp_machine *m)
{
	size_t i;
	int ret = 0;

	if (m->nr_pending)
		qsort(m->pending, m->nr_pending, sizeof(*m->pending), sb_event__cmp);
	for (i = 0; i < m->nr_pending && !ret; i++)
		ret = machine__apply(m, &m->pending[i]);
	m->nr_pending = 0;
	/* mappings moved: forget what was resolved through them */
	if (m->fcache_used)
		memset(m->fcache, 0, sizeof(*m->fcache) << FRAME_CACHE_BITS);
	m->fcache_used = false;
	for (i = 0; !ret && m->procs.keys && i <= m->procs.mask; i++) {
		struct kp_proc *p = m->procs.vals[i];

		if (m->procs.keys[i] && p->dirty)
			ret = proc__sort(p);
	}
	return ret;
}

/* ---- resolving ---- */

/* The mapping of @addr at @time, else the one closest in time. */
static const struct kp_map *proc__find_map(struct kp_proc *p, uint64_t addr, uint64_t time)
{
	const struct kp_map *best = NULL, *map = p->hint;
	uint64_t best_dist = UINT64_MAX, dist;
	size_t lo = 0, hi = p->nr_maps, i;

	if (map && addr >= map->start && addr < map->end && time >= map->time_from &&
	    time < map->time_to)
		return map;
	if (p->dirty)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && p->max_end[i] > addr;) {
		map = &p->maps[i];
		if (addr >= map->end)
			continue;
		if (time >= map->time_from && time < map->time_to) {
			p->hint = map;
			return map;
		}
		dist = time < map->time_from ? map->time_from - time : time - map->time_to + 1;
		if (dist < best_dist) {
			best_dist = dist;
			best = map;
		}
	}
	return best;
}

struct kp_kernel *kp_machine__kernel(struct kp_machine *m)
{
	struct kp_kernel *k = &m->kernel;
	const char *cmd = m->opts.cmd;
	bool host = !strcmp(m->opts.kallsyms, "/proc/kallsyms");

	if (k->loaded)
		return k;
	if (m->opts.no_kernel) {
		k->loaded = true;
		k->kernel = kp_dso__new(KP_DSO_KERNEL_NAME);
		if (k->kernel)
			k->kernel->kernel = true;
		return k;
	}
	if (kp_kernel__load(k, m->opts.kallsyms) || !k->kernel) {
		kp_error(cmd, "out of memory reading '%s'", m->opts.kallsyms);
		return k;
	}
	if (k->missing)
		kp_error(cmd, "cannot read '%s': kernel frames are shown as %s", m->opts.kallsyms,
			 KP_UNKNOWN);
	else if (k->restricted)
		kp_error(cmd, "kernel addresses in '%s' are hidden (kernel.kptr_restrict): kernel frames are shown as %s; run as root, set kernel.kptr_restrict=0 or use --kallsyms FILE",
			 m->opts.kallsyms, KP_UNKNOWN);
	else if (host && m->origin_known && !m->same_kernel)
		kp_error(cmd, "the recording is from %s (kernel %s), /proc/kallsyms from this host: kernel symbols may be wrong; use --kallsyms FILE with the recording host's kallsyms",
			 m->origin_host, m->origin_release);
	return k;
}

static void machine__kernel_frame(struct kp_machine *m, struct kp_frame *f)
{
	struct kp_kernel *k = kp_machine__kernel(m);

	f->kernel = true;
	f->dso_addr = f->addr;
	if (!k->kernel) {
		f->dso = NULL;
		f->sym = NULL;
		return;
	}
	f->sym = kp_kernel__find(k, f->addr, &f->dso);
}

static void machine__user_frame(struct kp_machine *m, struct kp_proc *p, uint64_t time,
				struct kp_frame *f)
{
	struct frame_cache_entry *c = NULL, dummy = { 0 };
	const struct kp_map *map;
	struct kp_dso *dso;
	char path[PATH_MAX * 2];

	f->kernel = false;
	f->dso_addr = f->addr;
	f->sym = NULL;
	f->dso = NULL;
	if (!p)
		return;
	if (!m->fcache) {
		m->fcache = calloc(1U << FRAME_CACHE_BITS, sizeof(*m->fcache));
		if (!m->fcache)
			c = &dummy;
	}
	if (m->fcache)
		c = &m->fcache[(kp_hash64(f->addr ^ ((uintptr_t)p << 12))) >> (64 - FRAME_CACHE_BITS)];
	m->fcache_used = true;
	if (c->proc == p && c->addr == f->addr && c->map && time >= c->map->time_from &&
	    time < c->map->time_to) {
		f->dso = c->map->dso;
		f->dso_addr = c->dso_addr;
		f->sym = c->sym;
		return;
	}
	map = proc__find_map(p, f->addr, time);
	if (map) {
		dso = map->dso;
		if (!dso->loaded) {
			struct dso_entry *d;

			/* the entry knows whether /proc/PID/root is used */
			for (d = m->dso_list; d && d->dso != dso; d = d->list)
				;
			machine__load_dso(m, dso, d ? d->pid : 0);
		}
		f->dso = dso;
		f->dso_addr = kp_dso__map_ip(dso, f->addr - map->start + map->pgoff);
		f->sym = kp_dso__find(dso, f->dso_addr);
		c->addr = f->addr;
		c->proc = p;
		c->map = map;
		c->dso_addr = f->dso_addr;
		c->sym = f->sym;
		return;
	}
	/* JIT code: no file mapping, maybe a perf map. */
	if (!p->jit_tried) {
		p->jit_tried = true;
		snprintf(path, sizeof(path), "%s/perf-%u.map", m->opts.jit_dir, p->pid);
		p->jit = kp_dso__new(path);
		if (p->jit) {
			snprintf(path, sizeof(path), "%s%s/perf-%u.map", m->opts.symfs,
				 m->opts.jit_dir, p->pid);
			kp_dso__load_perf_map(p->jit, path);
		}
	}
	if (p->jit) {
		f->sym = kp_dso__find(p->jit, f->addr);
		if (f->sym)
			f->dso = p->jit;
	}
}

/* The CFI of @dso (loaded), read once: its file's, or the recorded vDSO's. */
static struct kp_cfi *machine__cfi(struct kp_machine *m, struct kp_dso *dso)
{
	uint64_t key = (uintptr_t)dso;
	struct kp_cfi *cfi;
	void *v = kp_hmap__get(&m->cfis, key);

	if (v)
		return v == &no_cfi ? NULL : v;
	if (!strcmp(dso->name, KP_DSO_VDSO_NAME))
		cfi = m->vdso ? kp_cfi__open_mem(m->vdso, m->vdso_size) : NULL;
	else
		cfi = dso->path ? kp_cfi__open(dso->path) : NULL;
	if (kp_hmap__put(&m->cfis, key, cfi ? (void *)cfi : &no_cfi)) {
		kp_cfi__delete(cfi);
		return NULL;
	}
	return cfi;
}

/* The process and time of the sample whose leaf is fixed up. */
struct leaf_ctx {
	struct kp_machine	*m;
	struct kp_proc		*p;
	uint64_t		time;
};

static bool machine__leaf_lookup(void *arg, uint64_t addr, struct kp_cfi **cfi,
				 uint64_t *elf_addr)
{
	struct leaf_ctx *c = arg;
	struct kp_frame f = { .addr = addr };

	machine__user_frame(c->m, c->p, c->time, &f);
	if (!f.dso || f.dso == c->p->jit)
		return false;
	*cfi = machine__cfi(c->m, f.dso);
	*elf_addr = f.dso_addr;
	return true;
}

enum kp_leaf kp_machine__leaf_fixup(struct kp_machine *m, const struct kp_rec_sample *s,
				    unsigned int max, struct kp_leaf_walk *w)
{
	struct leaf_ctx c = { .m = m, .time = s->time };
	struct kp_ustack u;

	w->nr_walk = 0;
	w->next = 1;
	if (!s->nr_user || !max || m->opts.no_leaf_fixup || !kp_sample__ustack(s, &u))
		return KP_LEAF_NONE;
	c.p = machine__proc(m, s->pid, true);
	return kp_unwind__leaf(s->ips + s->nr_kernel, s->nr_user, &u, machine__leaf_lookup, &c,
			       max, w);
}

void kp_machine__resolve(struct kp_machine *m, const struct kp_rec_sample *s,
			 struct kp_resolved *out, unsigned int max)
{
	unsigned int i, nr = s->nr_kernel + s->nr_user, end, nu;
	uint64_t fixed[KP_MAX_FRAMES];
	struct kp_leaf_walk w;
	const uint64_t *user;
	struct kp_proc *p = NULL;

	out->rec = s;
	out->leaf = KP_LEAF_NONE;
	out->count = 1;
	out->comm = kp_machine__comm(m, s->pid, s->tid, s->time);
	if (!nr) {
		out->nr_frames = 1;
		out->frames[0].addr = s->ip;
		if (s->header.misc & KPROF_MISC_KERNEL) {
			out->nr_kernel = 1;
			machine__kernel_frame(m, &out->frames[0]);
		} else {
			out->nr_kernel = 0;
			p = machine__proc(m, s->pid, true);
			machine__user_frame(m, p, s->time, &out->frames[0]);
		}
		return;
	}
	if (nr > KP_MAX_FRAMES)
		nr = KP_MAX_FRAMES;
	out->nr_frames = nr;
	out->nr_kernel = s->nr_kernel < nr ? s->nr_kernel : nr;
	if (!max)
		max = KP_MAX_FRAMES;
	end = out->nr_kernel < max ? out->nr_kernel : max;
	for (i = 0; i < end; i++) {
		out->frames[i].addr = s->ips[i];
		machine__kernel_frame(m, &out->frames[i]);
	}
	/* the user chain, with the leaf fix-up's frames */
	user = s->ips + out->nr_kernel;
	nu = nr - out->nr_kernel;
	if (nu) {
		out->leaf = kp_machine__leaf_fixup(m, s, KP_MAX_FRAMES - nr, &w);
		if (w.nr_walk) {
			nu = kp_leaf_walk__chain(&w, user, nu, fixed);
			user = fixed;
			out->nr_frames = out->nr_kernel + nu;
		}
	}
	/* frames beyond @max are left alone: callers do not look at them */
	end = nu < max ? nu : max;
	if (end)
		p = machine__proc(m, s->pid, true);
	for (i = 0; i < end; i++) {
		struct kp_frame *f = &out->frames[out->nr_kernel + i];

		f->addr = user[i];
		machine__user_frame(m, p, s->time, f);
	}
}
