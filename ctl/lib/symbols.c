// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol tables from kallsyms, ELF files and JIT maps; see symbols.h.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"

#define SYMCACHE_MIN_BITS	10
#define SYMCACHE_EMPTY		UINT64_MAX
/* Span of a symbol without a size that is the last one of its table. */
#define LAST_SYM_SPAN		4096
/* Longest span given to a kallsyms symbol followed by another module's. */
#define KSYM_CROSS_SPAN		(1ULL << 20)

/* ---- address cache ---- */

static void symcache__exit(struct kp_symcache *c)
{
	free(c->keys);
	free(c->vals);
	memset(c, 0, sizeof(*c));
}

static size_t symcache__slot(const struct kp_symcache *c, uint64_t addr)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 17) & c->mask;
}

static int symcache__grow(struct kp_symcache *c)
{
	size_t size = c->mask ? (c->mask + 1) * 2 : (1U << SYMCACHE_MIN_BITS), i, j;
	struct kp_symcache n = { .mask = size - 1 };

	n.keys = malloc(size * sizeof(*n.keys));
	n.vals = malloc(size * sizeof(*n.vals));
	if (!n.keys || !n.vals) {
		symcache__exit(&n);
		return -ENOMEM;
	}
	memset(n.keys, 0xff, size * sizeof(*n.keys));
	for (i = 0; c->keys && i <= c->mask; i++) {
		if (c->keys[i] == SYMCACHE_EMPTY)
			continue;
		for (j = symcache__slot(&n, c->keys[i]); n.keys[j] != SYMCACHE_EMPTY;
		     j = (j + 1) & n.mask)
			;
		n.keys[j] = c->keys[i];
		n.vals[j] = c->vals[i];
		n.used++;
	}
	symcache__exit(c);
	*c = n;
	return 0;
}

/* Look @addr up: true and *@sym on a hit; else *@slot for the insertion. */
static inline bool symcache__get(const struct kp_symcache *c, uint64_t addr,
				 const struct kp_sym **sym, size_t *slot)
{
	size_t i;

	if (!c->keys)
		return false;
	for (i = symcache__slot(c, addr); c->keys[i] != SYMCACHE_EMPTY; i = (i + 1) & c->mask) {
		if (c->keys[i] == addr) {
			*sym = c->vals[i];
			return true;
		}
	}
	*slot = i;
	return false;
}

static void symcache__put(struct kp_symcache *c, uint64_t addr, const struct kp_sym *sym,
			  size_t slot)
{
	const struct kp_sym *unused;

	if (addr == SYMCACHE_EMPTY)
		return;
	if (!c->keys || (c->used + 1) * 2 > c->mask + 1) {
		if (symcache__grow(c))
			return;		/* uncached, still correct */
		symcache__get(c, addr, &unused, &slot);
	}
	c->keys[slot] = addr;
	c->vals[slot] = sym;
	c->used++;
}

/* The last symbol starting at or before @addr, if @addr is inside it. */
static const struct kp_sym *syms__search(const struct kp_sym *syms, size_t nr, uint64_t addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return addr < syms[lo - 1].end ? &syms[lo - 1] : NULL;
}

static const struct kp_sym *table__find(struct kp_symcache *c, const struct kp_sym *syms,
					size_t nr, uint64_t addr)
{
	const struct kp_sym *sym;
	size_t slot = 0;

	if (!nr)
		return NULL;
	if (symcache__get(c, addr, &sym, &slot))
		return sym;
	sym = syms__search(syms, nr, addr);
	symcache__put(c, addr, sym, slot);
	return sym;
}

/* ---- DSO ---- */

struct kp_dso *kp_dso__new(const char *name)
{
	struct kp_dso *dso = calloc(1, sizeof(*dso));
	const char *slash;

	if (!dso)
		return NULL;
	dso->name = strdup(name);
	if (!dso->name) {
		free(dso);
		return NULL;
	}
	slash = strrchr(dso->name, '/');
	dso->short_name = slash && slash[1] ? slash + 1 : dso->name;
	return dso;
}

static void dso__clear(struct kp_dso *dso)
{
	free(dso->syms);
	free(dso->strs);
	free(dso->segs);
	free(dso->path);
	symcache__exit(&dso->cache);
	dso->path = NULL;
	dso->syms = NULL;
	dso->strs = NULL;
	dso->segs = NULL;
	dso->nr_syms = dso->nr_segs = dso->strs_len = 0;
	dso->origin = KP_DSO_NONE;
}

void kp_dso__delete(struct kp_dso *dso)
{
	if (!dso)
		return;
	dso__clear(dso);
	free(dso->name);
	free(dso);
}

const struct kp_sym *kp_dso__find(struct kp_dso *dso, uint64_t addr)
{
	return table__find(&dso->cache, dso->syms, dso->nr_syms, addr);
}

uint64_t kp_dso__map_ip(const struct kp_dso *dso, uint64_t off)
{
	size_t i;

	for (i = 0; i < dso->nr_segs; i++) {
		const struct kp_seg *s = &dso->segs[i];

		if (off >= s->offset && off - s->offset < s->filesz)
			return off - s->offset + s->vaddr;
	}
	return off;
}

uint64_t kp_dso__file_offset(const struct kp_dso *dso, uint64_t addr)
{
	size_t i;

	for (i = 0; i < dso->nr_segs; i++) {
		const struct kp_seg *s = &dso->segs[i];

		if (addr >= s->vaddr && addr - s->vaddr < s->filesz)
			return addr - s->vaddr + s->offset;
	}
	return addr;
}

char *kp_dso__build_id_hex(const struct kp_dso *dso, char *buf, size_t len)
{
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < dso->build_id_len && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", dso->build_id[i]);
	return buf;
}

int kp_build_id__debug_path(const unsigned char *build_id, unsigned int len,
			    const char *debug_dir, char *buf, size_t size)
{
	char hex[2 * KP_BUILD_ID_MAX + 1];
	unsigned int i;
	struct stat st;
	int n;

	if (!len || len > KP_BUILD_ID_MAX || !debug_dir)
		return -ENOENT;
	for (i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
	n = snprintf(buf, size, "%s/.build-id/%.2s/%s.debug", debug_dir, hex, hex + 2);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (stat(buf, &st) || !S_ISREG(st.st_mode))
		return -ENOENT;
	return 0;
}

/* ---- building a table ---- */

struct symtab_builder {
	struct kp_sym	*syms;
	size_t		nr, alloc;
	char		*strs;
	size_t		len, strs_alloc;
	unsigned char	*prio;		/* preference among symbols at one address */
};

static void builder__free(struct symtab_builder *b)
{
	free(b->syms);
	free(b->strs);
	free(b->prio);
	memset(b, 0, sizeof(*b));
}

/* Add a symbol; its name offset goes into ->name until builder__finish(). */
static int builder__add(struct symtab_builder *b, uint64_t start, uint64_t size,
			const char *name, size_t nlen, unsigned char prio, struct kp_dso *dso)
{
	if (b->nr == b->alloc) {
		size_t n = b->alloc ? b->alloc * 2 : 256;
		struct kp_sym *s = realloc(b->syms, n * sizeof(*s));
		unsigned char *p;

		if (!s)
			return -ENOMEM;
		b->syms = s;
		p = realloc(b->prio, n);
		if (!p)
			return -ENOMEM;
		b->prio = p;
		b->alloc = n;
	}
	if (b->len + nlen + 1 > b->strs_alloc) {
		size_t n = b->strs_alloc ? b->strs_alloc : 4096;
		char *s;

		while (n < b->len + nlen + 1)
			n *= 2;
		s = realloc(b->strs, n);
		if (!s)
			return -ENOMEM;
		b->strs = s;
		b->strs_alloc = n;
	}
	memcpy(b->strs + b->len, name, nlen);
	b->strs[b->len + nlen] = '\0';
	b->syms[b->nr].start = start;
	b->syms[b->nr].end = size ? start + size : 0;
	b->syms[b->nr].name = (const char *)(uintptr_t)b->len;
	b->syms[b->nr].dso = dso;
	b->prio[b->nr] = prio;
	b->len += nlen + 1;
	b->nr++;
	return 0;
}

static struct symtab_builder *sort_builder;

/* By address; at one address the preferred symbol first. */
static int sym_idx__cmp(const void *a, const void *b)
{
	const struct symtab_builder *bl = sort_builder;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct kp_sym *sa = &bl->syms[ia], *sb = &bl->syms[ib];

	if (sa->start != sb->start)
		return sa->start < sb->start ? -1 : 1;
	if (bl->prio[ia] != bl->prio[ib])
		return bl->prio[ia] > bl->prio[ib] ? -1 : 1;
	/* stable and deterministic: the first one read */
	return ia < ib ? -1 : ia > ib;
}

/*
 * Sort, drop duplicate addresses, give every symbol an end (its size, or
 * the next symbol), turn name offsets into pointers.  @cross_span limits
 * an end that runs into another DSO's symbol (kallsyms); 0: no limit.
 */
static int builder__finish(struct symtab_builder *b, struct kp_sym **out, size_t *nr,
			   char **strs, uint64_t cross_span)
{
	struct kp_sym *syms;
	uint32_t *idx;
	size_t i, n = 0;

	*out = NULL;
	*nr = 0;
	*strs = NULL;
	if (!b->nr) {
		builder__free(b);
		return 0;
	}
	idx = malloc(b->nr * sizeof(*idx));
	syms = malloc(b->nr * sizeof(*syms));
	if (!idx || !syms) {
		free(idx);
		free(syms);
		builder__free(b);
		return -ENOMEM;
	}
	for (i = 0; i < b->nr; i++)
		idx[i] = i;
	sort_builder = b;
	qsort(idx, b->nr, sizeof(*idx), sym_idx__cmp);
	sort_builder = NULL;
	for (i = 0; i < b->nr; i++) {
		const struct kp_sym *s = &b->syms[idx[i]];

		if (n && syms[n - 1].start == s->start)
			continue;
		syms[n] = *s;
		syms[n].name = b->strs + (uintptr_t)s->name;
		n++;
	}
	for (i = 0; i < n; i++) {
		struct kp_sym *s = &syms[i];

		if (i + 1 < n) {
			uint64_t next = syms[i + 1].start;

			if (!s->end || s->end > next) {
				s->end = next;
				if (cross_span && s->dso != syms[i + 1].dso &&
				    next - s->start > cross_span)
					s->end = s->start + cross_span;
			}
		} else if (!s->end) {
			s->end = s->start + LAST_SYM_SPAN;
		}
		if (s->end <= s->start)
			s->end = s->start + 1;
	}
	free(idx);
	free(b->syms);
	free(b->prio);
	*out = syms;
	*nr = n;
	*strs = b->strs;
	b->syms = NULL;
	b->prio = NULL;
	b->strs = NULL;
	builder__free(b);
	return 0;
}

/* ---- ELF ---- */

static bool elf_ready(void)
{
	static int state;

	if (!state)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state > 0;
}

static Elf *elf__open(const char *path, int *fd)
{
	Elf *elf;

	if (!elf_ready())
		return NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*fd = -1;
		errno = ENOEXEC;
		return NULL;
	}
	return elf;
}

static void elf__close(Elf *elf, int fd)
{
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

/* The GNU build-id in the notes of @data; its length, or 0. */
static int notes__build_id(Elf_Data *data, unsigned char *out, size_t size)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && off < data->d_size) {
		size_t next = gelf_getnote(data, off, &nh, &name_off, &desc_off);

		if (!next || next <= off)
			break;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    name_off + 4 <= data->d_size &&
		    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz && nh.n_descsz <= size && desc_off <= data->d_size &&
		    nh.n_descsz <= data->d_size - desc_off) {
			memcpy(out, (const char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
		off = next;
	}
	return 0;
}

static int elf__build_id(Elf *elf, unsigned char *out, size_t size)
{
	Elf_Scn *scn = NULL;
	size_t i, nph;
	GElf_Shdr sh;
	int n;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		n = notes__build_id(elf_getdata(scn, NULL), out, size);
		if (n)
			return n;
	}
	/* No section headers (or no note section): the program headers. */
	if (elf_getphdrnum(elf, &nph))
		return 0;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		n = notes__build_id(elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz,
							 ELF_T_NHDR), out, size);
		if (n)
			return n;
	}
	return 0;
}

int kp_elf__build_id(const char *path, unsigned char *build_id, size_t size)
{
	int fd = -1, n;
	Elf *elf;

	elf = elf__open(path, &fd);
	if (!elf)
		return -ENOEXEC;
	n = elf__build_id(elf, build_id, size);
	elf__close(elf, fd);
	return n ? n : -ENOENT;
}

ssize_t kp_elf__read_vaddr(const char *path, uint64_t addr, void *buf, size_t len)
{
	size_t i, nph;
	ssize_t n = -EFAULT;
	int fd;
	Elf *elf;

	if (!elf_ready())
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* not mapped: /proc/kcore claims the size of the address space */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph)) {
		n = -ENOEXEC;
		goto out;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t avail;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD ||
		    addr < ph.p_vaddr || addr - ph.p_vaddr >= ph.p_filesz)
			continue;
		avail = ph.p_filesz - (addr - ph.p_vaddr);
		if (len > avail)
			len = avail;
		n = pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr));
		if (n < 0)
			n = -errno;
		break;
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

static int elf__segments(Elf *elf, struct kp_dso *dso)
{
	size_t i, nph;

	if (elf_getphdrnum(elf, &nph) || !nph)
		return 0;
	dso->segs = calloc(nph, sizeof(*dso->segs));
	if (!dso->segs)
		return -ENOMEM;
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		dso->segs[dso->nr_segs].offset = ph.p_offset;
		dso->segs[dso->nr_segs].filesz = ph.p_filesz;
		dso->segs[dso->nr_segs].vaddr = ph.p_vaddr;
		dso->nr_segs++;
	}
	return 0;
}

static unsigned char sym_prio(const GElf_Sym *s)
{
	unsigned char prio = s->st_size ? 4 : 0;

	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return prio + 2;
	case STB_WEAK:
		return prio + 1;
	}
	return prio;
}

char *kp_demangle(const char *name)
{
	/* every mangled name starts with '_' (_Z, _R, _GLOBAL_): skip C names fast */
	if (name[0] != '_')
		return NULL;
	return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

/* Function symbols of the first section of type @type; how many, or -errno. */
static int elf__symbols(Elf *elf, Elf64_Word type, struct kp_dso *dso)
{
	struct symtab_builder b = { 0 };
	Elf_Scn *scn = NULL;
	size_t i, nr, shnum;
	Elf_Data *data;
	GElf_Shdr sh;
	int ret;

	if (elf_getshdrnum(elf, &shnum))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	}
	if (!scn || !sh.sh_entsize || sh.sh_link >= shnum)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	nr = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	for (i = 1; i < nr; i++) {
		GElf_Sym s;
		const char *name;
		char *demangled;
		int stt;

		if (!gelf_getsym(data, i, &s))
			continue;
		stt = GELF_ST_TYPE(s.st_info);
		if ((stt != STT_FUNC && stt != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    (s.st_shndx >= SHN_LORESERVE && s.st_shndx != SHN_XINDEX) || !s.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		demangled = dso->no_demangle ? NULL : kp_demangle(name);
		if (demangled)
			name = demangled;
		ret = builder__add(&b, s.st_value, s.st_size, name, strlen(name), sym_prio(&s),
				   dso);
		free(demangled);
		if (ret) {
			builder__free(&b);
			return ret;
		}
	}
	ret = builder__finish(&b, &dso->syms, &dso->nr_syms, &dso->strs, 0);
	return ret ? ret : (int)dso->nr_syms;
}

/* The segments, build-id and symbols of the open @elf. */
static int dso__load(struct kp_dso *dso, Elf *elf, const char *debug_dir)
{
	char dpath[4096];
	int dfd = -1, n, ret = 0;
	Elf *delf;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return -ENOEXEC;
	dso->pie_or_so = eh.e_type == ET_DYN;
	ret = elf__segments(elf, dso);
	if (ret)
		return ret;
	n = elf__build_id(elf, dso->build_id, sizeof(dso->build_id));
	dso->build_id_len = n > 0 ? n : 0;

	/* A separate debug file has the full .symtab. */
	if (dso->build_id_len &&
	    !kp_build_id__debug_path(dso->build_id, dso->build_id_len, debug_dir, dpath,
				     sizeof(dpath))) {
		delf = elf__open(dpath, &dfd);
		if (delf) {
			n = elf__symbols(delf, SHT_SYMTAB, dso);
			elf__close(delf, dfd);
			if (n < 0)
				return n;
			if (n > 0) {
				dso->origin = KP_DSO_DEBUG;
				return 0;
			}
		}
	}
	n = elf__symbols(elf, SHT_SYMTAB, dso);
	if (n > 0) {
		dso->origin = KP_DSO_SYMTAB;
	} else if (n == 0) {
		n = elf__symbols(elf, SHT_DYNSYM, dso);
		if (n > 0)
			dso->origin = KP_DSO_DYNSYM;
	}
	return n < 0 ? n : 0;
}

int kp_dso__load_elf(struct kp_dso *dso, const char *path, const char *debug_dir)
{
	int fd = -1, ret;
	Elf *elf;

	dso__clear(dso);
	dso->loaded = true;
	errno = 0;
	elf = elf__open(path, &fd);
	if (!elf)
		return errno ? -errno : -ENOEXEC;
	ret = dso__load(dso, elf, debug_dir);
	elf__close(elf, fd);
	if (!ret)
		dso->path = strdup(path);	/* for source lines; none on ENOMEM */
	return ret;
}

int kp_dso__load_elf_mem(struct kp_dso *dso, void *image, size_t size, const char *debug_dir)
{
	Elf *elf;
	int ret;

	dso__clear(dso);
	dso->loaded = true;
	if (!elf_ready() || !image || !size)
		return -ENOEXEC;
	elf = elf_memory(image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		return -ENOEXEC;
	}
	ret = dso__load(dso, elf, debug_dir);
	elf_end(elf);
	return ret;
}

/* ---- JIT maps ---- */

int kp_dso__load_perf_map(struct kp_dso *dso, const char *path)
{
	struct symtab_builder b = { 0 };
	char *line = NULL, *p, *end;
	uint64_t start, size;
	size_t cap = 0;
	ssize_t len;
	FILE *fp;
	int ret = 0;

	dso__clear(dso);
	dso->loaded = true;
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while ((len = getline(&line, &cap, fp)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		errno = 0;
		start = strtoull(line, &end, 16);
		if (end == line || !isspace((unsigned char)*end) || errno)
			continue;
		p = end;
		size = strtoull(p, &end, 16);
		if (end == p || !isspace((unsigned char)*end) || errno)
			continue;
		while (isspace((unsigned char)*end))
			end++;
		if (!*end || !size || start + size < start)
			continue;
		ret = builder__add(&b, start, size, end, strlen(end), 0, dso);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	if (ret) {
		builder__free(&b);
		return ret;
	}
	ret = builder__finish(&b, &dso->syms, &dso->nr_syms, &dso->strs, 0);
	if (!ret && dso->nr_syms)
		dso->origin = KP_DSO_PERFMAP;
	return ret;
}

/* ---- kallsyms ---- */

static struct kp_dso *kernel__module(struct kp_kernel *k, const char *name, size_t len)
{
	char buf[128];
	struct kp_dso **mods, *dso;
	size_t i;

	for (i = k->nr_mods; i-- > 0;) {
		const char *n = k->mods[i]->name;

		if (strlen(n) == len + 2 && !memcmp(n + 1, name, len))
			return k->mods[i];
	}
	snprintf(buf, sizeof(buf), "[%.*s]", (int)(len > 100 ? 100 : len), name);
	mods = realloc(k->mods, (k->nr_mods + 1) * sizeof(*mods));
	if (!mods)
		return NULL;
	k->mods = mods;
	dso = kp_dso__new(buf);
	if (!dso)
		return NULL;
	dso->kernel = true;
	dso->loaded = true;
	dso->origin = KP_DSO_KALLSYMS;
	k->mods[k->nr_mods++] = dso;
	return dso;
}

/*
 * Keep the bounds of the lock and scheduler text when @name is one; true
 * then: a marker that shares its address with a function, not a symbol.
 */
static bool kernel__text_bounds(struct kp_kernel *k, const char *name, uint64_t addr)
{
	if (!strcmp(name, "__lock_text_start"))
		k->lock_text[0] = addr;
	else if (!strcmp(name, "__lock_text_end"))
		k->lock_text[1] = addr;
	else if (!strcmp(name, "__sched_text_start"))
		k->sched_text[0] = addr;
	else if (!strcmp(name, "__sched_text_end"))
		k->sched_text[1] = addr;
	else
		return false;
	return true;
}

bool kp_kernel__in_lock_text(const struct kp_kernel *k, uint64_t addr)
{
	return (addr >= k->lock_text[0] && addr < k->lock_text[1]) ||
	       (addr >= k->sched_text[0] && addr < k->sched_text[1]);
}

static int kernel__load(struct kp_kernel *k, const char *path, bool data);

int kp_kernel__load(struct kp_kernel *k, const char *path)
{
	return kernel__load(k, path, false);
}

int kp_kernel__load_data(struct kp_kernel *k, const char *path)
{
	return kernel__load(k, path, true);
}

static bool kernel__is_data(char type)
{
	return type == 'd' || type == 'D' || type == 'b' || type == 'B' || type == 'r' ||
	       type == 'R';
}

static int kernel__load(struct kp_kernel *k, const char *path, bool data)
{
	struct symtab_builder b = { 0 }, db = { 0 };
	struct kp_dso *last_mod = NULL;
	char *line = NULL;
	size_t cap = 0, nr_zero = 0, nr_lines = 0;
	ssize_t len;
	FILE *fp;
	int ret = 0;

	memset(k, 0, sizeof(*k));
	k->loaded = true;
	k->kernel = kp_dso__new(KP_DSO_KERNEL_NAME);
	if (!k->kernel)
		return -ENOMEM;
	k->kernel->kernel = true;
	k->kernel->loaded = true;
	k->kernel->origin = KP_DSO_KALLSYMS;
	fp = fopen(path, "re");
	if (!fp) {
		k->missing = true;
		return 0;
	}
	while ((len = getline(&line, &cap, fp)) > 0) {
		char *p = line, *end, *name, *mod, *mend;
		struct kp_dso *dso = k->kernel;
		uint64_t addr;
		char type;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		addr = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !end[1] || end[2] != ' ')
			continue;
		nr_lines++;
		type = end[1];
		if (!addr) {
			nr_zero++;
			continue;
		}
		name = end + 3;
		if (name[0] == '_' && name[1] == '_' && kernel__text_bounds(k, name, addr))
			continue;
		if (data && kernel__is_data(type)) {
			/* a module's name follows a tab: the variable's name only */
			ret = builder__add(&db, addr, 0, name, strcspn(name, "\t"), 0, k->kernel);
			if (ret)
				break;
			continue;
		}
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			mend = *mod == '[' ? strchr(mod, ']') : NULL;
			if (mend) {
				mod++;
				if (last_mod && strlen(last_mod->name) == (size_t)(mend - mod) + 2 &&
				    !memcmp(last_mod->name + 1, mod, mend - mod)) {
					dso = last_mod;
				} else {
					dso = kernel__module(k, mod, mend - mod);
					if (!dso) {
						ret = -ENOMEM;
						break;
					}
					last_mod = dso;
				}
			}
		}
		if (!*name)
			continue;
		ret = builder__add(&b, addr, 0, name, strlen(name), type == 'T' || type == 't' ?
				   1 : 0, dso);
		if (ret)
			break;
	}
	free(line);
	fclose(fp);
	if (!ret && data)
		ret = builder__finish(&db, &k->data_syms, &k->nr_data_syms, &k->data_strs, 0);
	if (ret) {
		builder__free(&b);
		builder__free(&db);
		return ret;
	}
	if (nr_lines && nr_zero == nr_lines)
		k->restricted = true;
	return builder__finish(&b, &k->syms, &k->nr_syms, &k->strs, KSYM_CROSS_SPAN);
}

const struct kp_sym *kp_kernel__find_data(struct kp_kernel *k, uint64_t addr)
{
	return table__find(&k->data_cache, k->data_syms, k->nr_data_syms, addr);
}

void kp_kernel__exit(struct kp_kernel *k)
{
	size_t i;

	kp_dso__delete(k->kernel);
	for (i = 0; i < k->nr_mods; i++)
		kp_dso__delete(k->mods[i]);
	free(k->mods);
	free(k->syms);
	free(k->strs);
	symcache__exit(&k->cache);
	free(k->data_syms);
	free(k->data_strs);
	symcache__exit(&k->data_cache);
	memset(k, 0, sizeof(*k));
}

const struct kp_sym *kp_kernel__find(struct kp_kernel *k, uint64_t addr, struct kp_dso **dso)
{
	const struct kp_sym *sym = table__find(&k->cache, k->syms, k->nr_syms, addr);

	if (dso)
		*dso = sym ? sym->dso : k->kernel;
	return sym;
}
