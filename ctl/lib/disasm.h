/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 disassembly with capstone (Debian's libcapstone), printed as
 * objdump and perf annotate print it: AT&T syntax, "mnemonic operands",
 * the targets of direct calls and jumps as "ADDR <sym+0xOFF>", and the
 * address of a %rip-relative operand as a "# ADDR <sym>" comment.  Bytes
 * that do not decode become ".byte 0xNN" and the walk goes on.
 *
 *	struct kp_disasm *dis = kp_disasm__new();
 *	while (kp_disasm__next(dis, &code, &size, &addr, &insn, name_fn, arg))
 *		printf("%" PRIx64 ":   %s\n", insn.addr, insn.text);
 *	kp_disasm__delete(dis);
 */
#ifndef KPROFCTL_DISASM_H
#define KPROFCTL_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KP_INSN_TEXT	256

struct kp_insn {
	uint64_t	addr;
	unsigned int	size;
	bool		branch;		/* a direct call or jump: ->target */
	bool		call;
	uint64_t	target;
	char		text[KP_INSN_TEXT];
};

/*
 * The symbol around @addr for the operands: its name and *@off the
 * distance from its start, or NULL.
 */
typedef const char *(*kp_disasm_name_fn)(void *arg, uint64_t addr, uint64_t *off);

struct kp_disasm;

/* A disassembler; NULL when capstone cannot be opened (errno set). */
struct kp_disasm *kp_disasm__new(void);
void kp_disasm__delete(struct kp_disasm *dis);

/*
 * Decode the instruction at *@code (*@size bytes left, at address *@addr)
 * into @insn and step past it; false when no byte is left.  @name (may be
 * NULL) names the targets.
 */
bool kp_disasm__next(struct kp_disasm *dis, const uint8_t **code, size_t *size, uint64_t *addr,
		     struct kp_insn *insn, kp_disasm_name_fn name, void *arg);

#endif /* KPROFCTL_DISASM_H */
