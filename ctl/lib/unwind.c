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
	struct kp_cfa		cfa;
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

/* Where the caller's %rbp is: saved at CFA + *@off, or left alone. */
static int bp_rule(Dwarf_Frame *f, bool *saved, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, DWARF_REG_RBP, mem, &ops, &n))
		return -1;
	/* no operations and no array: "same value", %rbp untouched */
	if (!n && !ops) {
		*saved = false;
		return 0;
	}
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*saved = true;
		*off = (int64_t)ops[1].number;
		return 0;
	}
	return -1;	/* undefined, or an expression */
}

static void cfi__lookup(struct kp_cfi *c, uint64_t pc, struct kp_cfa *cfa)
{
	Dwarf_Addr start, end;
	Dwarf_Frame *f;
	Dwarf_Op *ops;
	bool signal;
	size_t n;

	memset(cfa, 0, sizeof(*cfa));
	if (dwarf_cfi_addrframe(c->cfi, pc, &f)) {
		cfa->rule = KP_CFA_NONE;
		return;
	}
	cfa->rule = KP_CFA_OTHER;
	if (dwarf_frame_info(f, &start, &end, &signal) != DWARF_REG_RA || signal ||
	    !ra_at_cfa_minus_8(f))
		goto out;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx ||
	    bp_rule(f, &cfa->bp_saved, &cfa->bp_off))
		goto out;
	cfa->off = (int64_t)ops[0].number2;
	if (ops[0].number == DWARF_REG_RBP)
		cfa->rule = KP_CFA_BP;
	else if (ops[0].number == DWARF_REG_RSP)
		cfa->rule = cfa->bp_saved ? KP_CFA_SP_BP_SAVED : KP_CFA_SP;
out:
	free(f);
}

void kp_cfi__rule(struct kp_cfi *c, uint64_t addr, bool ret, struct kp_cfa *cfa)
{
	uint64_t pc = ret ? addr - 1 : addr, key = addr << 1 | ret;
	struct cfi_cache_entry *e = &c->cache[(key ^ key >> 11) % CFI_CACHE_SIZE];

	if (e->key != key || !key) {
		cfi__lookup(c, pc, &e->cfa);
		e->key = key;
	}
	*cfa = e->cfa;
}

/* The word at @addr in the copy; false when the copy does not hold it. */
static bool copy_word(const struct kp_ustack *u, uint64_t addr, uint64_t *v)
{
	if (addr < u->sp || addr - u->sp > u->size || u->size - (addr - u->sp) < 8)
		return false;
	memcpy(v, u->stack + (addr - u->sp), 8);
	return true;
}

enum kp_leaf kp_unwind__leaf(const uint64_t *user, unsigned int nr, const struct kp_ustack *u,
			     kp_cfi_lookup_fn lookup, void *arg, unsigned int max,
			     struct kp_leaf_walk *w)
{
	uint64_t sp = u->sp, bp = u->bp, elf_addr = 0, cfa_addr, ra, v;
	bool sp_known = true, bp_known = true, ret = false, added = false, frameless, chained;
	enum kp_leaf why = KP_LEAF_FRAMED;
	struct kp_cfi *cfi = NULL;
	struct kp_cfa cfa;

	w->nr_walk = 0;
	w->next = 1;
	if (max > KP_LEAF_MAX_WALK)
		max = KP_LEAF_MAX_WALK;
	if (!lookup(arg, user[0], &cfi, &elf_addr))
		cfi = NULL;
	/* nothing more to learn once neither register is known: the chain goes on */
	while (w->nr_walk < max && (sp_known || bp_known)) {
		frameless = false;
		chained = false;
		if (cfi)
			kp_cfi__rule(cfi, elf_addr, ret, &cfa);
		else
			cfa.rule = KP_CFA_NONE;
		switch (cfa.rule) {
		case KP_CFA_BP:		/* its return address is the chain's next entry */
			if (w->next >= nr)
				goto out;
			ra = user[w->next];
			if (bp_known) {
				cfa_addr = bp + (uint64_t)cfa.off;
				if (copy_word(u, cfa_addr - 8, &v) && v != ra) {
					why = KP_LEAF_MARKED;	/* the chain is not this frame's */
					goto undo;
				}
				sp = cfa_addr;
				sp_known = true;
				bp_known = cfa.bp_saved && copy_word(u, cfa_addr + cfa.bp_off, &bp);
			} else {
				sp_known = false;
			}
			w->next++;
			chained = true;
			break;
		case KP_CFA_SP:		/* frameless: the frame the chain lacks */
			if (!sp_known)
				goto out;
			cfa_addr = sp + (uint64_t)cfa.off;
			if (cfa.off < 8 || !copy_word(u, cfa_addr - 8, &ra)) {
				if (!ret)
					why = KP_LEAF_OUTSIDE;
				goto out;
			}
			/* the chain goes on from here: nothing (more) was missing */
			if (w->next < nr && ra == user[w->next]) {
				w->next++;
				chained = true;
			} else if (!ra) {
				goto out;
			} else {
				frameless = true;
			}
			sp = cfa_addr;
			break;
		case KP_CFA_SP_BP_SAVED:	/* %rbp may not be the chain's */
			why = KP_LEAF_MARKED;
			goto undo;
		case KP_CFA_NONE:
			if (!ret)
				why = KP_LEAF_NO_CFI;
			goto out;
		default:
			if (!ret)
				why = KP_LEAF_OTHER;
			goto out;
		}
		/* a return address lies in a mapped file; else the rule misled */
		if (!lookup(arg, ra, &cfi, &elf_addr)) {
			if (frameless && !added)
				why = KP_LEAF_OTHER;
			w->next -= chained;	/* the chain's entry stays where it is */
			goto out;
		}
		added |= frameless;
		w->walk[w->nr_walk++] = ra;
		ret = true;
	}
out:
	if (added)
		return KP_LEAF_FIXED;
undo:
	/* as recorded */
	w->nr_walk = 0;
	w->next = 1;
	return why;
}

unsigned int kp_leaf_walk__chain(const struct kp_leaf_walk *w, const uint64_t *user,
				 unsigned int nr, uint64_t *out)
{
	unsigned int n = 0;

	if (!nr)
		return 0;
	out[n++] = user[0];
	memcpy(out + n, w->walk, w->nr_walk * sizeof(*out));
	n += w->nr_walk;
	if (w->next < nr) {
		memcpy(out + n, user + w->next, (nr - w->next) * sizeof(*out));
		n += nr - w->next;
	}
	return n;
}
