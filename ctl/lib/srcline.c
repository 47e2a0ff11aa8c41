// SPDX-License-Identifier: GPL-2.0
/*
 * Source lines from DWARF line tables with libdw's dwfl (see srcline.h).
 *
 * Each DSO's file is reported to a dwfl session of its own, offline
 * (dwfl_report_offline()): libdwfl places it at an address of its choice,
 * and the module's bias turns an ELF address of the file into one of
 * that session.  dwfl_standard_find_debuginfo() finds the line tables in
 * the file itself or in a separate debug file: by build-id under the
 * debug directory (.build-id/xx/yyyy.debug), or by .gnu_debuglink.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "srcline.h"
#include "symbols.h"

/* A DSO's session; none (no file, no line tables): dwfl NULL, tried once. */
struct srcline_dso {
	Dwfl		*dwfl;
	Dwfl_Module	*mod;
	GElf_Addr	bias;
};

struct kp_srcline {
	char		*debuginfo_path;	/* dwfl's "+:.debug:DIR" */
	Dwfl_Callbacks	cb;
	struct kp_hmap	dsos;			/* (uintptr_t)dso -> struct srcline_dso */
};

struct kp_srcline *kp_srcline__new(const char *debug_dir)
{
	struct kp_srcline *sl = calloc(1, sizeof(*sl));

	if (!sl)
		return NULL;
	if (asprintf(&sl->debuginfo_path, "+:.debug:%s",
		     debug_dir && *debug_dir ? debug_dir : KP_DEBUG_DIR_DEFAULT) < 0) {
		free(sl);
		return NULL;
	}
	sl->cb.find_elf = dwfl_build_id_find_elf;
	sl->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	sl->cb.section_address = dwfl_offline_section_address;
	sl->cb.debuginfo_path = &sl->debuginfo_path;
	return sl;
}

void kp_srcline__delete(struct kp_srcline *sl)
{
	struct srcline_dso *d;
	size_t pos = 0;
	uint64_t key;
	void *v;

	if (!sl)
		return;
	while (kp_hmap__next(&sl->dsos, &pos, &key, &v)) {
		d = v;
		if (d->dwfl)
			dwfl_end(d->dwfl);
		free(d);
	}
	kp_hmap__exit(&sl->dsos);
	free(sl->debuginfo_path);
	free(sl);
}

/* @dso's session, opened at the first call; NULL on ENOMEM. */
static struct srcline_dso *srcline__dso(struct kp_srcline *sl, const struct kp_dso *dso)
{
	struct srcline_dso *d = kp_hmap__get(&sl->dsos, (uintptr_t)dso);
	GElf_Addr dwarf_bias;

	if (d)
		return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	if (kp_hmap__put(&sl->dsos, (uintptr_t)dso, d)) {
		free(d);
		return NULL;
	}
	if (!dso->path || dso->kernel)
		return d;
	d->dwfl = dwfl_begin(&sl->cb);
	if (!d->dwfl)
		return d;
	dwfl_report_begin(d->dwfl);
	d->mod = dwfl_report_offline(d->dwfl, dso->short_name, dso->path, -1);
	dwfl_report_end(d->dwfl, NULL, NULL);
	/*
	 * The session's address of ELF address A of the file is A + the
	 * bias of its main ELF; no line tables here or in a debug file:
	 * nothing to look up.
	 */
	if (!d->mod || !dwfl_module_getelf(d->mod, &d->bias) ||
	    !dwfl_module_getdwarf(d->mod, &dwarf_bias)) {
		dwfl_end(d->dwfl);
		d->dwfl = NULL;
		d->mod = NULL;
	}
	return d;
}

bool kp_srcline__find(struct kp_srcline *sl, const struct kp_dso *dso, uint64_t addr,
		      const char **file, int *line)
{
	struct srcline_dso *d;
	Dwfl_Line *ln;
	const char *f;
	int lineno = 0;

	if (!sl || !dso)
		return false;
	d = srcline__dso(sl, dso);
	if (!d || !d->mod)
		return false;
	ln = dwfl_module_getsrc(d->mod, addr + d->bias);
	if (!ln)
		return false;
	f = dwfl_lineinfo(ln, NULL, &lineno, NULL, NULL, NULL);
	if (!f || lineno <= 0)
		return false;
	*file = f;
	*line = lineno;
	return true;
}

bool kp_srcline__function(struct kp_srcline *sl, const struct kp_dso *dso, uint64_t addr,
			  const char **file, int *line)
{
	Dwarf_Die *scopes = NULL, *cu;
	struct srcline_dso *d;
	Dwarf_Addr cu_bias;
	bool found = false;
	int i, n;

	if (!sl || !dso)
		return false;
	d = srcline__dso(sl, dso);
	cu = d && d->mod ? dwfl_module_addrdie(d->mod, addr + d->bias, &cu_bias) : NULL;
	if (!cu)
		return false;
	/* the innermost function around @addr: a subprogram (not an inlined call) */
	n = dwarf_getscopes(cu, addr + d->bias - cu_bias, &scopes);
	for (i = 0; i < n && !found; i++) {
		const char *f;

		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		f = dwarf_decl_file(&scopes[i]);
		if (f && !dwarf_decl_line(&scopes[i], line) && *line > 0) {
			*file = f;
			found = true;
		}
	}
	free(scopes);
	return found;
}
