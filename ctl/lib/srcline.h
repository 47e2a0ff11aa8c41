/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source lines of ELF addresses, from DWARF line tables (libdw's dwfl):
 * the file's own .debug_line, or that of its separate debug file (by
 * build-id under the debug directory, or .gnu_debuglink).
 *
 *	struct kp_srcline *sl = kp_srcline__new("/usr/lib/debug");
 *	if (kp_srcline__find(sl, dso, dso_addr, &file, &line))
 *		printf("%s:%d\n", file, line);
 *	kp_srcline__delete(sl);
 *
 * One dwfl session per DSO (by its loaded path), opened at its first
 * lookup and kept; a DSO without line tables is tried once.  The strings
 * returned live as long as @sl.
 */
#ifndef KPROFCTL_SRCLINE_H
#define KPROFCTL_SRCLINE_H

#include <stdbool.h>
#include <stdint.h>

struct kp_dso;
struct kp_srcline;

/* @debug_dir: where separate debug files are looked for; NULL: the default. */
struct kp_srcline *kp_srcline__new(const char *debug_dir);
void kp_srcline__delete(struct kp_srcline *sl);

/*
 * The source file and line of ELF address @addr of @dso (its dso_addr), or
 * false: no file loaded for @dso (kernel, [unknown], JIT maps), no line
 * tables, or no line for @addr.
 */
bool kp_srcline__find(struct kp_srcline *sl, const struct kp_dso *dso, uint64_t addr,
		      const char **file, int *line);

/*
 * The file and line that declare the function around ELF address @addr of
 * @dso (its DWARF subprogram's DW_AT_decl_file and _line), or false.
 */
bool kp_srcline__function(struct kp_srcline *sl, const struct kp_dso *dso, uint64_t addr,
			  const char **file, int *line);

#endif /* KPROFCTL_SRCLINE_H */
