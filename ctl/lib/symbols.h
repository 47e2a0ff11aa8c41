/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbol tables: the kernel's from kallsyms, a user DSO's from its ELF
 * file (libelf: .symtab, else .dynsym, or a separate debug file found by
 * build-id) or from a JIT map (/tmp/perf-PID.map).  Each table is loaded
 * once, sorted, and searched by binary search behind a per-table cache of
 * resolved addresses (an open-addressing hash map address -> symbol), so a
 * hot address costs one hash probe.
 *
 * Anything unreadable (missing, stripped, truncated, not an ELF) leaves an
 * empty table: its addresses resolve to no symbol, never to an error.
 *
 * The names of an ELF file's symbols are demangled (C++, Rust) once, when
 * the table is loaded, with libiberty's cplus_demangle(); a name that is
 * not mangled, or not validly, is kept as it is.
 *
 *	dso = kp_dso__new("/usr/bin/sleep");
 *	kp_dso__load_elf(dso, "/usr/bin/sleep", "/usr/lib/debug");
 *	vaddr = kp_dso__map_ip(dso, pgoff_relative_file_offset);
 *	sym = kp_dso__find(dso, vaddr);
 *	kp_dso__delete(dso);
 */
#ifndef KPROFCTL_SYMBOLS_H
#define KPROFCTL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KP_DSO_KERNEL_NAME	"[kernel.kallsyms]"
#define KP_DSO_VDSO_NAME	"[vdso]"
#define KP_DEBUG_DIR_DEFAULT	"/usr/lib/debug"
#define KP_BUILD_ID_MAX		20		/* bytes; SHA-1 */

struct kp_dso;

struct kp_sym {
	uint64_t	start;
	uint64_t	end;		/* first address after the symbol */
	const char	*name;
	struct kp_dso	*dso;
};

/* A PT_LOAD segment: file offsets [offset, offset + filesz) at vaddr. */
struct kp_seg {
	uint64_t	offset;
	uint64_t	filesz;
	uint64_t	vaddr;
};

/* Where a DSO's symbols came from. */
enum kp_dso_origin {
	KP_DSO_NONE = 0,	/* nothing usable: every address is [unknown] */
	KP_DSO_SYMTAB,		/* the file's .symtab */
	KP_DSO_DYNSYM,		/* the file's .dynsym only (stripped) */
	KP_DSO_DEBUG,		/* .symtab of the build-id debug file */
	KP_DSO_PERFMAP,		/* a JIT map */
	KP_DSO_KALLSYMS,	/* kallsyms (kernel or a module) */
};

/* Address -> symbol cache of a table; NULL symbol cached as well. */
struct kp_symcache {
	uint64_t		*keys;
	const struct kp_sym	**vals;
	size_t			mask;		/* size - 1; size is a power of two */
	size_t			used;
};

struct kp_dso {
	char			*name;		/* as recorded, or "[kernel.kallsyms]", "[mod]" */
	char			*path;		/* the ELF file its symbols came from; NULL: none */
	const char		*short_name;	/* basename of name (points into it) */
	bool			kernel;		/* kernel or module: [k] */
	bool			loaded;		/* a load was tried */
	bool			no_demangle;	/* keep ELF names mangled; set before loading */
	enum kp_dso_origin	origin;
	unsigned int		build_id_len;	/* 0: none */
	unsigned char		build_id[KP_BUILD_ID_MAX];
	bool			pie_or_so;	/* ET_DYN */
	struct kp_sym		*syms;		/* sorted by start, no overlaps */
	size_t			nr_syms;
	char			*strs;		/* the names */
	size_t			strs_len;
	struct kp_seg		*segs;		/* PT_LOAD, for kp_dso__map_ip() */
	size_t			nr_segs;
	struct kp_symcache	cache;
};

struct kp_dso *kp_dso__new(const char *name);
void kp_dso__delete(struct kp_dso *dso);

/*
 * Load the symbols of the ELF file @path (which may differ from the
 * recorded name, e.g. under /proc/PID/root).  With a build-id, a debug file
 * @debug_dir/.build-id/xx/yyyy.debug is preferred for its .symtab; without
 * a usable .symtab, .dynsym is used.  Returns 0, or -errno when the file
 * could not be used at all (the DSO stays empty and usable).
 */
int kp_dso__load_elf(struct kp_dso *dso, const char *path, const char *debug_dir);

/*
 * The demangled form of @name (C++ Itanium ABI, Rust), with parameters, as
 * perf shows it: "ns::Cls::method(int)"; malloc()ed.  NULL when @name is
 * not a valid mangled name (keep it as it is) or on ENOMEM.
 */
char *kp_demangle(const char *name);

/*
 * The same from the ELF image @image of @size bytes in memory (the vDSO
 * stored in kprof.data), which may be anything: libelf reads it in place
 * (@image must stay valid and writable while the DSO is loaded; the names
 * are copied).  Returns 0 or -errno as kp_dso__load_elf().
 */
int kp_dso__load_elf_mem(struct kp_dso *dso, void *image, size_t size, const char *debug_dir);

/* Load a JIT map: lines "START SIZE name", hexadecimal, absolute addresses. */
int kp_dso__load_perf_map(struct kp_dso *dso, const char *path);

/*
 * The ELF address of the byte at file offset @off (a mapping's pgoff plus
 * the distance from its start); @off itself when no segment holds it.
 */
uint64_t kp_dso__map_ip(const struct kp_dso *dso, uint64_t off);

/*
 * The inverse: the file offset of ELF address @addr (what perf script
 * prints for user frames of a call chain); @addr when no segment holds it.
 */
uint64_t kp_dso__file_offset(const struct kp_dso *dso, uint64_t addr);

/* The symbol at ELF address @addr, or NULL; cached. */
const struct kp_sym *kp_dso__find(struct kp_dso *dso, uint64_t addr);

/* "0123...ef" (2 * len hex digits) into @buf; "" when none. */
char *kp_dso__build_id_hex(const struct kp_dso *dso, char *buf, size_t len);

/*
 * Find @build_id's debug file, @debug_dir/.build-id/xx/rest.debug, into
 * @buf; 0 when it exists, -ENOENT otherwise.
 */
int kp_build_id__debug_path(const unsigned char *build_id, unsigned int len,
			    const char *debug_dir, char *buf, size_t size);

/* Read the GNU build-id note of the ELF file @path; its length, or -errno. */
int kp_elf__build_id(const char *path, unsigned char *build_id, size_t size);

/*
 * Read up to @len bytes at virtual address @addr of the ELF file @path
 * through its PT_LOAD program headers: an executable or shared object
 * (ELF addresses), a vmlinux, or /proc/kcore (the running kernel's and
 * modules' text at their addresses).  The bytes read, fewer at the end of
 * a segment; -EFAULT when no segment has file bytes at @addr, or -errno.
 */
ssize_t kp_elf__read_vaddr(const char *path, uint64_t addr, void *buf, size_t len);

/*
 * The kernel: kallsyms text symbols of the kernel ("[kernel.kallsyms]")
 * and of each module ("[name]"), one sorted table.
 */
struct kp_kernel {
	struct kp_dso		*kernel;	/* [kernel.kallsyms] */
	struct kp_dso		**mods;		/* [module], ... */
	size_t			nr_mods;
	struct kp_sym		*syms;		/* all of them, sorted */
	size_t			nr_syms;
	char			*strs;
	bool			loaded;
	bool			restricted;	/* every address read as 0 (kptr_restrict) */
	bool			missing;	/* the file could not be read */
	struct kp_symcache	cache;
	/* __lock_text_start/_end, __sched_text_start/_end: 0 when not listed */
	uint64_t		lock_text[2], sched_text[2];
	/* data symbols (d, D, b, B, r, R), with kp_kernel__load_data() only */
	struct kp_sym		*data_syms;
	size_t			nr_data_syms;
	char			*data_strs;
	struct kp_symcache	data_cache;
};

/*
 * Read @path (kallsyms format: "ADDR TYPE NAME [\t[MODULE]]").  A missing
 * file or one whose addresses are all zero (kernel.kptr_restrict) leaves an
 * empty table with ->missing or ->restricted set.  Returns 0 or -ENOMEM.
 */
int kp_kernel__load(struct kp_kernel *k, const char *path);
/* kp_kernel__load() and the data symbols besides, for kp_kernel__find_data(). */
int kp_kernel__load_data(struct kp_kernel *k, const char *path);
void kp_kernel__exit(struct kp_kernel *k);
/* The data symbol (a global variable, e.g. a static mutex) holding @addr, or NULL. */
const struct kp_sym *kp_kernel__find_data(struct kp_kernel *k, uint64_t addr);
/* The symbol at @addr, or NULL; *@dso (unless NULL) gets its DSO (the kernel when none). */
const struct kp_sym *kp_kernel__find(struct kp_kernel *k, uint64_t addr, struct kp_dso **dso);

/*
 * Is @addr in the kernel's lock or scheduler text (the lock functions and
 * __schedule() and friends)?  A lock waiter's caller is its first frame
 * outside them, as perf lock finds it.
 */
bool kp_kernel__in_lock_text(const struct kp_kernel *k, uint64_t addr);

#endif /* KPROFCTL_SYMBOLS_H */
