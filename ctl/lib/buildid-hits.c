// SPDX-License-Identifier: GPL-2.0
/*
 * The files a recording's samples hit; see buildid-hits.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buildid-hits.h"
#include "hmap.h"

struct bid_file {
	char		*name;
	uint32_t	pid;		/* the first process seen mapping it */
	bool		hit;
	struct bid_file	*next;		/* of the same name hash */
};

struct bid_range {
	uint64_t	start, end;
	struct bid_file	*file;
};

struct bid_proc {
	uint32_t	parent;		/* FORK's ppid, 0: none */
	bool		exited;		/* freed at the next reset */
	struct bid_range *ranges;	/* in arrival order: searched newest first */
	size_t		nr, alloc;
	size_t		last;		/* the range of the last hit */
	/*
	 * The two ranges hit last, whose files are marked already: a chain's
	 * frames mostly fall in one or two (the program, libc).  { start,
	 * length } of each, the newest first; emptied (lengths 0) when the
	 * process maps something and when the hits are reset.
	 */
	uint64_t	seen[4];
};

struct kp_bid_hits {
	struct kp_hmap	procs;		/* pid + 1 -> struct bid_proc */
	struct kp_hmap	files;		/* kp_hash_str(name) -> struct bid_file chain */
	/* the last sample's process (entries are never freed, only emptied) */
	uint32_t	last_pid;
	struct bid_proc	*last_proc;
};

struct kp_bid_hits *kp_bid_hits__new(void)
{
	return calloc(1, sizeof(struct kp_bid_hits));
}

void kp_bid_hits__delete(struct kp_bid_hits *h)
{
	size_t pos;
	uint64_t key;
	void *val;

	if (!h)
		return;
	for (pos = 0; kp_hmap__next(&h->procs, &pos, &key, &val);) {
		struct bid_proc *p = val;

		free(p->ranges);
		free(p);
	}
	for (pos = 0; kp_hmap__next(&h->files, &pos, &key, &val);) {
		struct bid_file *f = val, *next;

		for (; f; f = next) {
			next = f->next;
			free(f->name);
			free(f);
		}
	}
	kp_hmap__exit(&h->procs);
	kp_hmap__exit(&h->files);
	free(h);
}

static struct bid_proc *proc(struct kp_bid_hits *h, uint32_t pid, bool create)
{
	struct bid_proc *p = kp_hmap__get(&h->procs, (uint64_t)pid + 1);

	if (p || !create)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	if (kp_hmap__put(&h->procs, (uint64_t)pid + 1, p)) {
		free(p);
		return NULL;
	}
	return p;
}

static struct bid_file *file(struct kp_bid_hits *h, const char *name, uint32_t pid)
{
	uint64_t key = kp_hash_str(name);
	struct bid_file *head = kp_hmap__get(&h->files, key), *f;

	for (f = head; f; f = f->next)
		if (!strcmp(f->name, name))
			return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	f->pid = pid;
	f->next = head;
	if (!f->name || kp_hmap__put(&h->files, key, f)) {
		free(f->name);
		free(f);
		return NULL;
	}
	return f;
}

/* A file the build-id cache can keep: a path, not "//anon" or a deleted file. */
static bool cacheable(const char *name)
{
	size_t len = strlen(name);

	if (name[0] != '/' || name[1] == '/')
		return false;
	return !(len > 10 && !strcmp(name + len - 10, " (deleted)"));
}

static int add_mmap(struct kp_bid_hits *h, const struct kp_rec_mmap *m)
{
	struct bid_proc *p;
	struct bid_file *f;
	size_t i;

	if (!cacheable(m->filename) || !m->len)
		return 0;
	p = proc(h, m->pid, true);
	f = p ? file(h, m->filename, m->pid) : NULL;
	if (!f)
		return -ENOMEM;
	/*
	 * A new mapping may cover the addresses of a range seen or found
	 * last: the next lookups search newest first again.
	 */
	memset(p->seen, 0, sizeof(p->seen));
	p->last = SIZE_MAX;
	/* the same mapping again: synthesized anew for a switched file */
	for (i = p->nr; i-- > 0;)
		if (p->ranges[i].start == m->start && p->ranges[i].end == m->start + m->len &&
		    p->ranges[i].file == f)
			return 0;
	if (p->nr == p->alloc) {
		size_t n = p->alloc ? 2 * p->alloc : 16;
		struct bid_range *r = realloc(p->ranges, n * sizeof(*r));

		if (!r)
			return -ENOMEM;
		p->ranges = r;
		p->alloc = n;
	}
	p->ranges[p->nr].start = m->start;
	p->ranges[p->nr].end = m->start + m->len;
	p->ranges[p->nr].file = f;
	p->nr++;
	return 0;
}

/*
 * The range of process @p, @pid (or of its parents) holding @addr, newest
 * first; @p is @pid's entry, looked up once per sample by the caller.
 */
static struct bid_range *find(struct kp_bid_hits *h, struct bid_proc *p, uint32_t pid,
			      uint64_t addr)
{
	unsigned int depth;
	size_t i;

	for (depth = 0; depth < 8; depth++) {
		if (!p)
			return NULL;
		if (p->last < p->nr && addr >= p->ranges[p->last].start &&
		    addr < p->ranges[p->last].end)
			return &p->ranges[p->last];
		for (i = p->nr; i-- > 0;) {
			if (addr >= p->ranges[i].start && addr < p->ranges[i].end) {
				p->last = i;
				return &p->ranges[i];
			}
		}
		if (!p->parent || p->parent == pid)
			return NULL;
		pid = p->parent;
		p = proc(h, pid, false);
	}
	return NULL;
}

/*
 * A frame outside the two ranges seen last: look it up, mark its file hit,
 * and make its range the first of the two (@seen: as struct bid_proc's).
 */
static void hit_slow(struct kp_bid_hits *h, struct bid_proc *p, uint32_t pid, uint64_t addr,
		     uint64_t seen[4])
{
	struct bid_range *r = find(h, p, pid, addr);

	if (!r)
		return;
	r->file->hit = true;
	seen[2] = seen[0];
	seen[3] = seen[1];
	seen[0] = r->start;
	seen[1] = r->end - r->start;
	/* (a parent's range: its own mappings are not this process's) */
	if (r >= p->ranges && r < p->ranges + p->nr)
		memcpy(p->seen, seen, sizeof(p->seen));
}

/* (unsigned: an address below a start wraps above any length) */
#define SEEN(a, s)	((a) - (s)[0] < (s)[1] || (a) - (s)[2] < (s)[3])

/*
 * Mark the files a sample's user frames fall in as hit.  The two ranges
 * the process hit last (struct bid_proc's seen) are checked first,
 * inline; only a frame outside both is looked up.
 */
static void add_sample(struct kp_bid_hits *h, const struct kp_rec_sample *s)
{
	uint32_t i, nr = s->nr_user;
	const uint64_t *user = s->ips + s->nr_kernel;
	struct bid_proc *p;
	uint64_t seen[4];

	if (h->last_proc && h->last_pid == s->pid) {
		p = h->last_proc;
	} else {
		p = proc(h, s->pid, false);
		if (!p)
			return;		/* nothing of it mapped (a kernel thread) */
		h->last_pid = s->pid;
		h->last_proc = p;
	}
	memcpy(seen, p->seen, sizeof(seen));
	if ((s->header.misc & KPROF_MISC_USER) && !SEEN(s->ip, seen))
		hit_slow(h, p, s->pid, s->ip, seen);
	if ((size_t)(s->nr_kernel + nr) * 8 + sizeof(*s) > s->header.size)
		return;
	for (i = 0; i < nr; i++)
		if (!SEEN(user[i], seen))
			hit_slow(h, p, s->pid, user[i], seen);
}

int kp_bid_hits__add(struct kp_bid_hits *h, const struct kprof_record_header *rec)
{
	switch (rec->type) {
	case KPROF_RECORD_MMAP:
		return add_mmap(h, (const void *)rec);
	case KPROF_RECORD_FORK: {
		const struct kp_rec_fork *f = (const void *)rec;
		struct bid_proc *p;

		if (f->pid == f->ppid)
			return 0;	/* a new thread */
		p = proc(h, f->pid, true);
		if (!p)
			return -ENOMEM;
		p->parent = f->ppid;
		return 0;
	}
	case KPROF_RECORD_EXIT: {
		const struct kp_rec_exit *e = (const void *)rec;
		struct bid_proc *p = e->pid == e->tid ? proc(h, e->pid, false) : NULL;

		/* its last samples may still come, from other CPUs' buffers */
		if (p)
			p->exited = true;
		return 0;
	}
	case KPROF_RECORD_SAMPLE:
		add_sample(h, (const void *)rec);
		return 0;
	}
	return 0;
}

int kp_bid_hits__for_each(const struct kp_bid_hits *h, kp_bid_hit_fn fn, void *arg)
{
	size_t pos;
	uint64_t key;
	void *val;
	int ret;

	for (pos = 0; kp_hmap__next(&h->files, &pos, &key, &val);) {
		const struct bid_file *f;

		for (f = val; f; f = f->next) {
			if (!f->hit)
				continue;
			ret = fn(f->name, f->pid, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

void kp_bid_hits__reset(struct kp_bid_hits *h)
{
	size_t pos;
	uint64_t key;
	void *val;

	for (pos = 0; kp_hmap__next(&h->files, &pos, &key, &val);) {
		struct bid_file *f;

		for (f = val; f; f = f->next)
			f->hit = false;
	}
	/* the processes that exited before this file ended: gone for good */
	for (pos = 0; kp_hmap__next(&h->procs, &pos, &key, &val);) {
		struct bid_proc *p = val;

		/* the files of the ranges seen are no longer marked */
		memset(p->seen, 0, sizeof(p->seen));
		if (!p->exited)
			continue;
		/* (the map has no removal: an empty entry stays, for a reused pid) */
		free(p->ranges);
		memset(p, 0, sizeof(*p));
	}
}
