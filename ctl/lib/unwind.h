/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call frame information (CFI) of user code, read with libdw from an ELF
 * file's .eh_frame (or .debug_frame) or from an image in memory (the
 * vDSO), and the leaf fix-up built on it: the return addresses that a
 * frame-pointer walk misses when the sampled function (libc's syscall
 * wrappers, the vDSO, string functions) sets up no frame, read from the
 * copy of the user stack a SAMPLE carries (KPROF_MISC_USER_STACK).
 * Documentation/sampling.rst says when a chain is fixed up, left or marked.
 */
#ifndef KPROFCTL_UNWIND_H
#define KPROFCTL_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* How the canonical frame address (CFA) is found at an address. */
enum kp_cfa_rule {
	KP_CFA_NONE,		/* no CFI covers the address */
	KP_CFA_SP,		/* %rsp + offset, %rbp not saved: no frame of its own */
	KP_CFA_SP_BP_SAVED,	/* %rsp + offset, but %rbp saved: maybe in use */
	KP_CFA_BP,		/* %rbp + offset: a frame-pointer frame */
	KP_CFA_OTHER,		/* an expression (PLT), another register, a signal frame */
};

/* The rule at an address: the CFA, and where the caller's %rbp is. */
struct kp_cfa {
	enum kp_cfa_rule	rule;
	int64_t			off;		/* CFA = register + off */
	bool			bp_saved;	/* the caller's %rbp at CFA + bp_off */
	int64_t			bp_off;
};

struct kp_cfi;

/* The CFI of the ELF file @path; NULL when it has none or cannot be read. */
struct kp_cfi *kp_cfi__open(const char *path);
/* The same of the ELF image @image of @size bytes, which must outlive it. */
struct kp_cfi *kp_cfi__open_mem(const void *image, size_t size);
void kp_cfi__delete(struct kp_cfi *cfi);

/*
 * The rule at @addr (an address of the ELF file, as its symbols have)
 * into @cfa.  @ret: @addr is a return address (looked up at @addr - 1,
 * inside the call).
 */
void kp_cfi__rule(struct kp_cfi *cfi, uint64_t addr, bool ret, struct kp_cfa *cfa);

/* What the leaf fix-up did to one sample's user chain. */
enum kp_leaf {
	KP_LEAF_NONE,		/* no user stack copy, or the fix-up is off */
	KP_LEAF_FIXED,		/* return addresses of frameless functions added */
	KP_LEAF_FRAMED,		/* nothing was missing where the copy reaches */
	KP_LEAF_MARKED,		/* %rbp saved where the walk went: as recorded, maybe wrong */
	KP_LEAF_OUTSIDE,	/* the leaf's return address lies past the stack copied */
	KP_LEAF_NO_CFI,		/* no CFI at the leaf (no .eh_frame, JIT, file not found) */
	KP_LEAF_OTHER,		/* PLT (expression CFA) or signal frame: as recorded */
	KP_LEAF__MAX
};

/* Their names in report's stack-quality line. */
extern const char * const kp_leaf_names[KP_LEAF__MAX];

/* At most this many frames are walked from the leaf. */
#define KP_LEAF_MAX_WALK	16

/*
 * Is the user address @addr of the sample being fixed up in a mapped
 * file?  If so, *@cfi is that file's CFI (NULL: it has none) and
 * *@elf_addr the address in the file.
 */
typedef bool (*kp_cfi_lookup_fn)(void *arg, uint64_t addr, struct kp_cfi **cfi,
				 uint64_t *elf_addr);

/* A fixed-up user chain: @user[0], @walk[0 .. nr_walk), @user[next ..]. */
struct kp_leaf_walk {
	uint64_t	walk[KP_LEAF_MAX_WALK];
	unsigned int	nr_walk;
	unsigned int	next;		/* the first frame-pointer entry not walked */
};

/*
 * Fix up the frame-pointer chain @user[0 .. @nr) (innermost first, @user[0]
 * the sampled IP) with the stack copy @u, into @w: from the leaf up, each
 * frame's CFA rule says where its return address is.  A frameless frame's
 * (%rsp-based, %rbp left alone) is read from the copy: the frame the
 * chain lacks.  A frame-pointer frame's is the chain's next entry (checked
 * against the copy where that reaches).  The walk ends where the copy and
 * the chain cannot say more, at @max frames at most (<= KP_LEAF_MAX_WALK);
 * the chain's entries it did not reach follow.
 */
enum kp_leaf kp_unwind__leaf(const uint64_t *user, unsigned int nr, const struct kp_ustack *u,
			     kp_cfi_lookup_fn lookup, void *arg, unsigned int max,
			     struct kp_leaf_walk *w);

/*
 * The fixed-up chain of @w over @user[0 .. @nr) into @out (room for @nr +
 * @w->nr_walk addresses): @user[0], the walk, @user[@w->next ..].
 * Returns its length.
 */
unsigned int kp_leaf_walk__chain(const struct kp_leaf_walk *w, const uint64_t *user,
				 unsigned int nr, uint64_t *out);

#endif /* KPROFCTL_UNWIND_H */
