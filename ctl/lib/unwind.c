// SPDX-License-Identifier: GPL-2.0
/*
 * CFI with libdw and the leaf fix-up (unwind.h).
 *
 * libdw's dwarf_getcfi_elf() reads .eh_frame (or .debug_frame) of an ELF
 * handle; dwarf_cfi_addrframe() runs the CFA program of the FDE covering
 * an address.  On x86-64 its answers come as DWARF operations: the CFA
 * "register + offset" as one DW_OP_bregx, the return address (register
 * 16) as "CFA - 8", %rbp (register 6) with no operations and a NULL array
 * when the function left it alone ("same value").  Anything else is a
 * rule this file does not follow.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"

#define DWARF_REG_RBP	6
#define DWARF_REG_RSP	7
#define DWARF_REG_RA	16

/* Rules looked up, by address: most samples repeat a few leaves. */
#define CFI_CACHE_SIZE	1024

struct cfi_cache_entry {
	uint64_t		key;		/* addr << 1 | ret; 0: empty */
	int64_t			off;
	enum kp_cfa_rule	rule;
};

struct kp_cfi {
	int			fd;		/* -1: an image in memory */
	Elf			*elf;
	Dwarf_CFI		*cfi;
	struct cfi_cache_entry	cache[CFI_CACHE_SIZE];
};

const char * const kp_leaf_names[KP_LEAF__MAX] = {
	[KP_LEAF_NONE]		= "none",
	[KP_LEAF_FIXED]		= "fixed",
	[KP_LEAF_FRAMED]	= "framed",
	[KP_LEAF_MARKED]	= "marked",
	[KP_LEAF_OUTSIDE]	= "outside the copy",
	[KP_LEAF_NO_CFI]	= "no CFI",
	[KP_LEAF_OTHER]		= "other",
};

static struct kp_cfi *cfi__new(int fd, Elf *elf)
{
	struct kp_cfi *c;
	Dwarf_CFI *cfi;

	if (!elf)
		return NULL;
	cfi = dwarf_getcfi_elf(elf);
	if (!cfi) {
		elf_end(elf);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		dwarf_cfi_end(cfi);
		elf_end(elf);
		return NULL;
	}
	c->fd = fd;
	c->elf = elf;
	c->cfi = cfi;
	return c;
}

struct kp_cfi *kp_cfi__open(const char *path)
{
	struct kp_cfi *c;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	c = cfi__new(fd, elf_begin(fd, ELF_C_READ_MMAP, NULL));
	if (!c)
		close(fd);
	return c;
}

struct kp_cfi *kp_cfi__open_mem(const void *image, size_t size)
{
	elf_version(EV_CURRENT);
	/* libelf does not write to an image opened for reading */
	return cfi__new(-1, elf_memory((char *)image, size));
}

void kp_cfi__delete(struct kp_cfi *c)
{
	if (!c)
		return;
	dwarf_cfi_end(c->cfi);
	elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

/* Is the return address saved at CFA - 8, as the x86-64 ABI has it? */
static bool ra_at_cfa_minus_8(Dwarf_Frame *f)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, DWARF_REG_RA, mem, &ops, &n) || n != 2 || !ops)
		return false;
	return ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst &&
	       (int64_t)ops[1].number == -8;
}

static enum kp_cfa_rule cfi__lookup(struct kp_cfi *c, uint64_t pc, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	enum kp_cfa_rule rule;
	Dwarf_Addr start, end;
	Dwarf_Frame *f;
	bool signal;
	size_t n;

	if (dwarf_cfi_addrframe(c->cfi, pc, &f))
		return KP_CFA_NONE;
	rule = KP_CFA_OTHER;
	if (dwarf_frame_info(f, &start, &end, &signal) != DWARF_REG_RA || signal ||
	    !ra_at_cfa_minus_8(f))
		goto out;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx)
		goto out;
	*off = (int64_t)ops[0].number2;
	if (ops[0].number == DWARF_REG_RBP) {
		rule = KP_CFA_BP;
	} else if (ops[0].number == DWARF_REG_RSP) {
		if (dwarf_frame_register(f, DWARF_REG_RBP, mem, &ops, &n))
			goto out;
		/* no operations and no array: "same value", %rbp untouched */
		rule = !n && !ops ? KP_CFA_SP : KP_CFA_SP_BP_SAVED;
	}
out:
	free(f);
	return rule;
}

enum kp_cfa_rule kp_cfi__rule(struct kp_cfi *c, uint64_t addr, bool ret, int64_t *off)
{
	uint64_t pc = ret ? addr - 1 : addr, key = addr << 1 | ret;
	struct cfi_cache_entry *e = &c->cache[(key ^ key >> 11) % CFI_CACHE_SIZE];

	if (e->key != key || !key) {
		e->off = 0;
		e->rule = cfi__lookup(c, pc, &e->off);
		e->key = key;
	}
	*off = e->off;
	return e->rule;
}

enum kp_leaf kp_unwind__leaf(const uint64_t *user, unsigned int nr, const struct kp_ustack *u,
			     kp_cfi_lookup_fn lookup, void *arg, uint64_t *added,
			     unsigned int max, unsigned int *nr_added)
{
	uint64_t sp = u->sp, elf_addr = 0, cfa, ra;
	struct kp_cfi *cfi = NULL;
	enum kp_cfa_rule rule;
	unsigned int n = 0;
	bool ret = false;
	int64_t off = 0;

	*nr_added = 0;
	if (max > KP_LEAF_MAX_ADDED)
		max = KP_LEAF_MAX_ADDED;
	if (!lookup(arg, user[0], &cfi, &elf_addr))
		cfi = NULL;
	for (;;) {
		rule = cfi ? kp_cfi__rule(cfi, elf_addr, ret, &off) : KP_CFA_NONE;
		switch (rule) {
		case KP_CFA_SP:
			break;
		case KP_CFA_BP:		/* the chain has this frame's return */
			return n ? KP_LEAF_FIXED : KP_LEAF_FRAMED;
		case KP_CFA_SP_BP_SAVED:	/* %rbp may not be the chain's */
			return KP_LEAF_MARKED;
		case KP_CFA_NONE:
			return n ? KP_LEAF_FIXED : KP_LEAF_NO_CFI;
		default:
			return n ? KP_LEAF_FIXED : KP_LEAF_OTHER;
		}
		cfa = sp + (uint64_t)off;
		if (off < 8 || cfa - u->sp < 8 || cfa - u->sp > u->size)
			return n ? KP_LEAF_FIXED : KP_LEAF_OUTSIDE;
		memcpy(&ra, u->stack + (cfa - 8 - u->sp), 8);
		/* the chain goes on from here: nothing (more) was missing */
		if (nr > 1 && ra == user[1])
			return n ? KP_LEAF_FIXED : KP_LEAF_FRAMED;
		/* a return address lies in a mapped file; else the rule misled */
		if (!ra || !lookup(arg, ra, &cfi, &elf_addr))
			return n ? KP_LEAF_FIXED : KP_LEAF_OTHER;
		if (n == max)
			return KP_LEAF_FIXED;
		added[n++] = ra;
		*nr_added = n;
		sp = cfa;
		ret = true;
	}
}
