// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 disassembly for annotate, with capstone: see disasm.h.
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"

struct kp_disasm {
	csh	handle;
	cs_insn	*insn;
};

struct kp_disasm *kp_disasm__new(void)
{
	struct kp_disasm *dis = calloc(1, sizeof(*dis));

	if (!dis)
		return NULL;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &dis->handle) != CS_ERR_OK) {
		free(dis);
		errno = ENOSYS;
		return NULL;
	}
	cs_option(dis->handle, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	cs_option(dis->handle, CS_OPT_DETAIL, CS_OPT_ON);
	cs_option(dis->handle, CS_OPT_SKIPDATA, CS_OPT_ON);
	dis->insn = cs_malloc(dis->handle);
	if (!dis->insn) {
		cs_close(&dis->handle);
		free(dis);
		errno = ENOMEM;
		return NULL;
	}
	return dis;
}

void kp_disasm__delete(struct kp_disasm *dis)
{
	if (!dis)
		return;
	cs_free(dis->insn, 1);
	cs_close(&dis->handle);
	free(dis);
}

/* " <sym+0xOFF>" for @addr into @buf, or "" when @name does not know it. */
static void target_name(char *buf, size_t len, uint64_t addr, kp_disasm_name_fn name, void *arg)
{
	uint64_t off = 0;
	const char *s = name ? name(arg, addr, &off) : NULL;

	if (!s)
		buf[0] = '\0';
	else if (off)
		snprintf(buf, len, " <%s+0x%" PRIx64 ">", s, off);
	else
		snprintf(buf, len, " <%s>", s);
}

static bool insn__in_group(const cs_insn *in, uint8_t group)
{
	unsigned int i;

	for (i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == group)
			return true;
	return false;
}

bool kp_disasm__next(struct kp_disasm *dis, const uint8_t **code, size_t *size, uint64_t *addr,
		     struct kp_insn *insn, kp_disasm_name_fn name, void *arg)
{
	cs_insn *in = dis->insn;
	const cs_x86 *x86;
	char sym[KP_INSN_TEXT / 2];
	unsigned int i;

	if (!*size || !cs_disasm_iter(dis->handle, code, size, addr, in))
		return false;
	memset(insn, 0, offsetof(struct kp_insn, text));
	insn->addr = in->address;
	insn->size = in->size;
	if (!in->id || !in->detail) {	/* skipped data */
		snprintf(insn->text, sizeof(insn->text), "%-6s %s", in->mnemonic, in->op_str);
		return true;
	}
	x86 = &in->detail->x86;
	insn->call = insn__in_group(in, CS_GRP_CALL);
	if ((insn->call || insn__in_group(in, CS_GRP_JUMP)) && x86->op_count == 1 &&
	    x86->operands[0].type == X86_OP_IMM) {
		insn->branch = true;
		insn->target = x86->operands[0].imm;
		target_name(sym, sizeof(sym), insn->target, name, arg);
		snprintf(insn->text, sizeof(insn->text), "%-6s %" PRIx64 "%s", in->mnemonic,
			 insn->target, sym);
		return true;
	}
	snprintf(insn->text, sizeof(insn->text), "%-6s %s", in->mnemonic, in->op_str);
	for (i = 0; i < x86->op_count; i++) {
		const cs_x86_op *op = &x86->operands[i];
		uint64_t where;
		size_t n;

		if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
			continue;
		where = in->address + in->size + op->mem.disp;
		target_name(sym, sizeof(sym), where, name, arg);
		n = strlen(insn->text);
		snprintf(insn->text + n, sizeof(insn->text) - n, "        # %" PRIx64 "%s", where, sym);
		break;
	}
	return true;
}
