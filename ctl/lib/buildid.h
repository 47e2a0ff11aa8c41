/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The build-id cache, as perf's ~/.debug: the ELF files a recording mapped,
 * kept by GNU build-id so that a binary that was replaced (a package
 * upgrade) or deleted, or that lives in a container gone since, still
 * names its frames.  'kprofctl record' fills it (Documentation/decoding.rst),
 * 'kprofctl buildid-cache' manages it, and the decoders read a DSO from it
 * when kprof.data names the DSO's build-id.
 *
 * Layout, under DIR (kp_buildid_cache__dir()):
 *
 *	DIR/xx/rest/elf		the file: a hard link to the original when
 *				the file system allows, else a copy
 *	DIR/xx/rest/name	the path it was added from, one line
 *
 * where xx are the first two hex digits of the build-id and rest the others
 * (build-ids of 2 to 20 bytes).  kp_buildid_cache__path() only says an
 * entry exists: a reader checks the file's build-id before trusting it (a
 * hard-linked original rewritten in place changes the entry too).
 */
#ifndef KPROFCTL_BUILDID_H
#define KPROFCTL_BUILDID_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "symbols.h"

#define KP_BUILDID_DIR_ENV	"KPROF_BUILDID_DIR"
#define KP_BUILDID_HEX_MAX	(2 * KP_BUILD_ID_MAX + 1)

/*
 * The cache directory: @dir when given, else $KPROF_BUILDID_DIR, else
 * $HOME/.kprof/buildid (/root/.kprof/buildid without $HOME), into @buf.
 */
const char *kp_buildid_cache__dir(const char *dir, char *buf, size_t size);

/* @id as 2 * @len lower-case hex digits into @buf (at least KP_BUILDID_HEX_MAX). */
char *kp_buildid__hex(const unsigned char *id, unsigned int len, char *buf);
/* The reverse: 2 to 40 hex digits, an even number; 0 or -EINVAL. */
int kp_buildid__parse(const char *hex, unsigned char *id, unsigned int *len);

/*
 * The cached file of build-id @id into @buf: 0 when the cache has it,
 * -ENOENT when not, -ENAMETOOLONG.
 */
int kp_buildid_cache__path(const char *dir, const unsigned char *id, unsigned int len,
			   char *buf, size_t size);

/*
 * Add the ELF file @path, whose build-id is @id (read it with
 * kp_elf__build_id()), recorded as @name (the path to show; @path itself
 * when NULL).  The entry is checked to hold @id once made, so a file
 * replaced meanwhile is not cached under the wrong id.  1: added, 0: the
 * cache had it, -errno with @err set.
 */
int kp_buildid_cache__add(const char *dir, const char *path, const char *name,
			  const unsigned char *id, unsigned int len, struct kp_err *err);

/* Remove build-id @id's entry: 1 removed, 0 none, -errno with @err set. */
int kp_buildid_cache__remove(const char *dir, const unsigned char *id, unsigned int len,
			     struct kp_err *err);

/*
 * Call @fn for each entry (in no order) with its hex build-id, the path it
 * was added from ("" when unknown) and the cached file; a non-zero return
 * of @fn stops the walk and is returned.  A missing @dir is an empty cache.
 */
typedef int (*kp_buildid_fn)(const char *hex, const char *name, const char *elf, void *arg);
int kp_buildid_cache__for_each(const char *dir, kp_buildid_fn fn, void *arg,
			       struct kp_err *err);

#endif /* KPROFCTL_BUILDID_H */
