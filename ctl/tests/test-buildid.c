// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the build-id cache: lib/buildid.c (the layout, hard links,
 * lookups, removal, the walk, build-id parsing, a file replaced while it is
 * added) and 'kprofctl buildid-cache' (--add, --list, --remove, --purge of
 * the versions of one path, --purge-all, --missing of a kprof.data with
 * BUILD_ID records, the cache directory's options and environment, usage
 * errors), on the toolchain's ELF test files (the Makefile's $(TEST_ELFS))
 * copied into a temporary directory, which also holds every cache and
 * stands for $HOME.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-nl.h"
#include "lib/buildid.h"
#include "lib/data.h"
#include "lib/record.h"
#include "lib/symbols.h"
#include "lib/util.h"
#include "run-kprofctl.h"
#include "tap.h"
#include "tmpdir.h"

static const char *elf_dir;
/* root: the temporary directory as realpath(3) names it (what --add records) */
static char root[128];

/* The GNU build-id of the file @path in hex ("" when none). */
static const char *hex_of(const char *path, char *hex)
{
	unsigned char id[KP_BUILD_ID_MAX];
	int n = kp_elf__build_id(path, id, sizeof(id));

	if (n <= 0) {
		hex[0] = '\0';
		return hex;
	}
	return kp_buildid__hex(id, n, hex);
}

/* A path under root: short, so that what is made of it fits PATH_MAX. */
#define P	256

/* @root/@rel into @buf (P bytes). */
static const char *at(char *buf, const char *rel)
{
	snprintf(buf, P, "%s/%s", root, rel);
	return buf;
}

/*
 * Put a copy of the test file @elf (.obj/tests/elf/@elf) at @to, as a new
 * file (written beside it, then renamed over it, as a package manager
 * replaces a file: a new inode).
 */
static void install(const char *elf, const char *to)
{
	char from[PATH_MAX], tmp[PATH_MAX + 8];
	size_t len;
	char *buf;
	FILE *fp;

	snprintf(from, sizeof(from), "%s/%s", elf_dir, elf);
	buf = tmpdir__slurp(from, &len);
	if (!buf)
		abort();
	snprintf(tmp, sizeof(tmp), "%s.new", to);
	fp = fopen(tmp, "w");
	if (!fp || fwrite(buf, 1, len, fp) != len || fclose(fp) || rename(tmp, to))
		abort();
	free(buf);
}

/* Is the cached file of @hex under @dir there, with that build-id? */
static bool cached(const char *dir, const char *hex)
{
	unsigned char id[KP_BUILD_ID_MAX];
	char path[PATH_MAX], got[KP_BUILDID_HEX_MAX];
	unsigned int len;

	if (kp_buildid__parse(hex, id, &len) ||
	    kp_buildid_cache__path(dir, id, len, path, sizeof(path)))
		return false;
	return !strcmp(hex_of(path, got), hex);
}

static void test_parse(void)
{
	static const char * const bad[] = {
		"", "a", "abc", "0g", "zz", " 12", "12 ", "0x12",
		"000102030405060708090a0b0c0d0e0f1011121314",	/* 21 bytes */
	};
	unsigned char id[KP_BUILD_ID_MAX + 4];
	char hex[KP_BUILDID_HEX_MAX];
	unsigned int len = 99;
	size_t i;

	is_int(kp_buildid__parse("ABcd09", id, &len), 0, "parse: upper and lower case");
	ok(len == 3 && id[0] == 0xab && id[1] == 0xcd && id[2] == 0x09, "parse: the bytes");
	is_str(kp_buildid__hex(id, len, hex), "abcd09", "hex: lower case, two digits a byte");
	is_int(kp_buildid__parse("000102030405060708090a0b0c0d0e0f10111213", id, &len), 0,
	       "parse: 20 bytes, the longest");
	ok(len == 20 && id[0] == 0 && id[19] == 0x13, "parse: 20 bytes read");
	for (i = 0; i < KP_ARRAY_SIZE(bad); i++)
		is_int(kp_buildid__parse(bad[i], id, &len), -EINVAL, "parse rejects '%s'", bad[i]);
}

static void test_dir(void)
{
	char buf[PATH_MAX], want[PATH_MAX];

	setenv(KP_BUILDID_DIR_ENV, "/env/cache", 1);
	is_str(kp_buildid_cache__dir("/opt/c", buf, sizeof(buf)), "/opt/c",
	       "dir: the option first");
	is_str(kp_buildid_cache__dir(NULL, buf, sizeof(buf)), "/env/cache",
	       "dir: then $KPROF_BUILDID_DIR");
	unsetenv(KP_BUILDID_DIR_ENV);
	is_str(kp_buildid_cache__dir(NULL, buf, sizeof(buf)), at(want, ".kprof/buildid"),
	       "dir: then $HOME/.kprof/buildid");
}

struct walk {
	int	n, stop;
	char	seen[4][3][PATH_MAX];
};

static int walk_fn(const char *hex, const char *name, const char *elf, void *arg)
{
	struct walk *w = arg;

	if (w->n < 4) {
		snprintf(w->seen[w->n][0], PATH_MAX, "%s", hex);
		snprintf(w->seen[w->n][1], PATH_MAX, "%s", name);
		snprintf(w->seen[w->n][2], PATH_MAX, "%s", elf);
	}
	w->n++;
	return w->stop;
}

/* Did the walk see @hex with @name, its cached file under @dir? */
static bool walk_saw(const struct walk *w, const char *dir, const char *hex, const char *name)
{
	char elf[PATH_MAX];
	int i;

	snprintf(elf, sizeof(elf), "%s/%.2s/%s/elf", dir, hex, hex + 2);
	for (i = 0; i < w->n && i < 4; i++)
		if (!strcmp(w->seen[i][0], hex) && !strcmp(w->seen[i][1], name) &&
		    !strcmp(w->seen[i][2], elf))
			return true;
	return false;
}

static void test_lib(void)
{
	char dir[P], app[P], lib[P], path[PATH_MAX], want[PATH_MAX];
	char hex_app[KP_BUILDID_HEX_MAX], hex_lib[KP_BUILDID_HEX_MAX];
	unsigned char id_app[KP_BUILD_ID_MAX], id_lib[KP_BUILD_ID_MAX];
	struct stat a, c;
	struct walk w = { 0 };
	struct kp_err err;
	int n_app, n_lib;
	char *text;

	at(dir, "lib-cache");
	install("nopie", at(app, "app"));
	install("libkpt.so", at(lib, "libkpt.so"));
	n_app = kp_elf__build_id(app, id_app, sizeof(id_app));
	n_lib = kp_elf__build_id(lib, id_lib, sizeof(id_lib));
	ok(n_app == 20 && n_lib == 20, "the test files have 20-byte build-ids");
	kp_buildid__hex(id_app, n_app, hex_app);
	kp_buildid__hex(id_lib, n_lib, hex_lib);

	is_int(kp_buildid_cache__path(dir, id_app, n_app, path, sizeof(path)), -ENOENT,
	       "path: an empty cache has nothing");
	is_int(kp_buildid_cache__add(dir, app, NULL, id_app, n_app, &err), 1, "add: 1, added");
	is_int(kp_buildid_cache__add(dir, app, NULL, id_app, n_app, &err), 0,
	       "add again: 0, the cache had it");
	is_int(kp_buildid_cache__path(dir, id_app, n_app, path, sizeof(path)), 0,
	       "path: the cache has it");
	snprintf(want, sizeof(want), "%s/%.2s/%s/elf", dir, hex_app, hex_app + 2);
	is_str(path, want, "path: DIR/xx/rest/elf");
	ok(!stat(app, &a) && !stat(path, &c) && a.st_dev == c.st_dev && a.st_ino == c.st_ino &&
	   c.st_nlink == 2, "the cached file is a hard link to the original (same inode)");
	ok(cached(dir, hex_app), "the cached file has the build-id");
	snprintf(want, sizeof(want), "%s/%.2s/%s/name", dir, hex_app, hex_app + 2);
	text = tmpdir__slurp(want, NULL);
	snprintf(want, sizeof(want), "%s\n", app);
	is_str(text, want, "name: the path it was added from, one line");
	free(text);

	/* a name of the caller's, and a file of another directory (maybe a copy) */
	snprintf(path, sizeof(path), "%s/libkpt.so", elf_dir);
	is_int(kp_buildid_cache__add(dir, path, "/usr/lib/libkpt.so", id_lib, n_lib, &err), 1,
	       "add with a name");
	ok(cached(dir, hex_lib), "it has the build-id (a link or a copy)");

	kp_buildid_cache__for_each(dir, walk_fn, &w, &err);
	is_int(w.n, 2, "for_each: two entries");
	ok(walk_saw(&w, dir, hex_app, app), "for_each: the first's id, name and file");
	ok(walk_saw(&w, dir, hex_lib, "/usr/lib/libkpt.so"),
	   "for_each: the second's, with its given name");
	memset(&w, 0, sizeof(w));
	w.stop = 7;
	is_int(kp_buildid_cache__for_each(dir, walk_fn, &w, &err), 7,
	       "for_each: a callback's non-zero return is returned");
	is_int(w.n, 1, "for_each: ... and stops the walk");
	memset(&w, 0, sizeof(w));
	at(path, "no-such-cache");
	ok(!kp_buildid_cache__for_each(path, walk_fn, &w, &err) && !w.n,
	   "for_each: a missing directory is an empty cache");

	is_int(kp_buildid_cache__remove(dir, id_lib, n_lib, &err), 1, "remove: 1, removed");
	is_int(kp_buildid_cache__remove(dir, id_lib, n_lib, &err), 0, "remove again: 0, none");
	is_int(kp_buildid_cache__path(dir, id_lib, n_lib, path, sizeof(path)), -ENOENT,
	       "path: removed");
	snprintf(path, sizeof(path), "%s/%.2s", dir, hex_lib);
	ok(strncmp(hex_lib, hex_app, 2) ? stat(path, &c) && errno == ENOENT : true,
	   "remove: DIR/xx goes with its last entry");
	ok(cached(dir, hex_app), "remove: the other entry stays");
	ok(!stat(app, &a) && a.st_nlink == 2, "the original is untouched");

	/* the file is replaced between reading its build-id and adding it */
	install("pie", lib);
	is_int(kp_buildid_cache__add(dir, lib, NULL, id_lib, n_lib, &err), -ESTALE,
	       "add of a file replaced meanwhile: -ESTALE");
	snprintf(want, sizeof(want), "'%s' no longer has build-id %s", lib, hex_lib);
	ok(err.errnum == ESTALE && !strcmp(err.msg, want), "... naming the file and the id");
	is_int(kp_buildid_cache__path(dir, id_lib, n_lib, path, sizeof(path)), -ENOENT,
	       "... and not cached under that id");
	snprintf(path, sizeof(path), "%s/%.2s/%s", dir, hex_lib, hex_lib + 2);
	ok(tmpdir__count(path, "elf") <= 0, "... no temporary file left");

	/* a cache that cannot be made: under a regular file */
	snprintf(path, sizeof(path), "%s/cache", app);
	is_int(kp_buildid_cache__add(path, app, NULL, id_app, n_app, &err), -ENOTDIR,
	       "add under a file: -ENOTDIR");
	ok(strstr(err.msg, "cannot create"), "... 'cannot create' it: %s", err.msg);
	is_int(kp_buildid_cache__add(dir, app, NULL, id_app, 0, &err), -EINVAL,
	       "add of a 0-byte build-id: -EINVAL");
}

/* Run "kprofctl buildid-cache ARGS..." (NULL-terminated). */
static void bc(struct run *r, ...)
{
	static const char * const pre[] = { "buildid-cache" };
	va_list ap;

	va_start(ap, r);
	run_va(r, pre, 1, ap);
	va_end(ap);
}

/* Exit @rc, exactly @out on stdout and @err on stderr. */
static void check(struct run *r, int rc, const char *out, const char *err, const char *desc)
{
	bool pass = r->rc == rc && !strcmp(r->out, out) && !strcmp(r->err, err);

	ok(pass, "%s", desc);
	if (!pass) {
		diag("exit %d (want %d)", r->rc, rc);
		tap_diag_str("stdout", r->out);
		tap_diag_str("want", out);
		tap_diag_str("stderr", r->err);
		tap_diag_str("want", err);
	}
	run_free(r);
}

static void test_add_list(void)
{
	char dir[P], opt[P + 16], prog[P], pie[P], nobid[P], text[P], missing[P], lib[P];
	char want[PATH_MAX], err[PATH_MAX], cmd[PATH_MAX];
	char h_prog[KP_BUILDID_HEX_MAX], h_pie[KP_BUILDID_HEX_MAX], h_lib[KP_BUILDID_HEX_MAX];
	struct run r;

	at(dir, "cmd-cache");
	snprintf(opt, sizeof(opt), "--buildid-dir=%s", dir);
	install("nopie", at(prog, "prog"));
	install("pie", at(pie, "pie"));
	install("libkpt.so", at(lib, "libkpt.so"));
	hex_of(prog, h_prog);
	hex_of(pie, h_pie);
	hex_of(lib, h_lib);
	/* named so that the order of the paths is not that of the build-ids */
	at(cmd, "prog");
	at(prog, strcmp(h_prog, h_pie) > 0 ? "a-prog" : "b-prog");
	at(err, "pie");
	at(pie, strcmp(h_prog, h_pie) > 0 ? "b-pie" : "a-pie");
	if (rename(cmd, prog) || rename(err, pie))
		abort();

	bc(&r, opt, "--list", NULL);
	check(&r, 0, "", "", "--list of a missing cache: nothing");
	bc(&r, opt, "--add", prog, "-a", pie, NULL);
	check(&r, 0, "", "", "--add of two files: exit 0, no output");
	ok(cached(dir, h_prog) && cached(dir, h_pie), "both are cached under their build-ids");
	bc(&r, opt, "-l", NULL);
	if (strcmp(h_prog, h_pie) > 0)
		snprintf(want, sizeof(want), "%s %s\n%s %s\n", h_prog, prog, h_pie, pie);
	else
		snprintf(want, sizeof(want), "%s %s\n%s %s\n", h_pie, pie, h_prog, prog);
	check(&r, 0, want, "", "--list: BUILDID PATH, by path, not by build-id");
	bc(&r, opt, "-v", "-a", prog, NULL);
	snprintf(want, sizeof(want), "%s %s: already cached\n", h_prog, prog);
	check(&r, 0, want, "", "-v --add again: already cached");

	/* a file without a build-id, a text file, a missing one, and a good one */
	snprintf(cmd, sizeof(cmd), "objcopy --remove-section .note.gnu.build-id '%s' '%s'",
		 pie, at(nobid, "nobid"));
	ok(!system(cmd), "objcopy --remove-section .note.gnu.build-id");
	tmpdir__write(root, "text", "not an ELF file\n");
	at(text, "text");
	at(missing, "missing");
	bc(&r, opt, "-v", "-a", nobid, NULL);
	snprintf(err, sizeof(err), "kprofctl: buildid-cache: '%s': no build-id\n", nobid);
	check(&r, 1, "", err, "--add of a file without a build-id: exit 1, one line");
	{
		char list[4 * P];

		snprintf(list, sizeof(list), "%s,%s,%s", text, missing, lib);
		bc(&r, opt, "-v", "--add", list, NULL);
	}
	snprintf(want, sizeof(want), "added %s %s\n", h_lib, lib);
	snprintf(err, sizeof(err),
		 "kprofctl: buildid-cache: '%s': not an ELF file\n"
		 "kprofctl: buildid-cache: '%s': No such file or directory\n", text, missing);
	check(&r, 1, want, err, "--add of a list: the bad ones named, the good one added");
	ok(cached(dir, h_lib), "... it is cached");

	/* --remove */
	bc(&r, opt, "-r", lib, NULL);
	check(&r, 0, "", "", "--remove: exit 0, no output");
	ok(!cached(dir, h_lib) && cached(dir, h_prog), "... only that entry is gone");
	bc(&r, opt, "-v", "--remove", lib, NULL);
	snprintf(want, sizeof(want), "%s %s: not cached\n", h_lib, lib);
	check(&r, 0, want, "", "-v --remove of an uncached file: not cached, exit 0");
	bc(&r, opt, "-r", missing, NULL);
	snprintf(err, sizeof(err), "kprofctl: buildid-cache: '%s': No such file or directory\n",
		 missing);
	check(&r, 1, "", err, "--remove of a missing file: exit 1, one line");
	bc(&r, opt, "-l", NULL);
	if (strcmp(h_prog, h_pie) > 0)
		snprintf(want, sizeof(want), "%s %s\n%s %s\n", h_prog, prog, h_pie, pie);
	else
		snprintf(want, sizeof(want), "%s %s\n%s %s\n", h_pie, pie, h_prog, prog);
	check(&r, 0, want, "", "--list after --remove");
}

static void test_purge(void)
{
	char dir[P], opt[P + 16], app[P], keep[P];
	char want[PATH_MAX], h1[KP_BUILDID_HEX_MAX], h2[KP_BUILDID_HEX_MAX];
	char h_keep[KP_BUILDID_HEX_MAX];
	const char *lo, *hi;
	struct run r;

	at(dir, "purge-cache");
	snprintf(opt, sizeof(opt), "--buildid-dir=%s", dir);
	install("libkpt.so", at(keep, "keep.so"));
	hex_of(keep, h_keep);
	bc(&r, opt, "-a", keep, NULL);
	check(&r, 0, "", "", "purge: another path added");

	/* two versions of one path: added, replaced, added again */
	install("nopie", at(app, "app"));
	hex_of(app, h1);
	bc(&r, opt, "-a", app, NULL);
	check(&r, 0, "", "", "purge: version 1 of a path added");
	install("pie", app);
	hex_of(app, h2);
	ok(strcmp(h1, h2), "purge: the path was replaced by another build-id");
	bc(&r, opt, "-a", app, NULL);
	check(&r, 0, "", "", "purge: version 2 added");
	ok(cached(dir, h1) && cached(dir, h2), "purge: both versions cached");
	lo = strcmp(h1, h2) < 0 ? h1 : h2;
	hi = lo == h1 ? h2 : h1;
	bc(&r, opt, "--list", NULL);
	snprintf(want, sizeof(want), "%s %s\n%s %s\n%s %s\n", lo, app, hi, app, h_keep, keep);
	check(&r, 0, want, "", "--list: both versions of the path, by build-id");

	/* gone from the file system: purged by its name all the same */
	unlink(app);
	bc(&r, opt, "-v", "--purge", app, NULL);
	snprintf(want, sizeof(want), "removed %s %s\nremoved %s %s\n", lo, app, hi, app);
	check(&r, 0, want, "", "-v --purge of the path: both versions removed");
	ok(!cached(dir, h1) && !cached(dir, h2) && cached(dir, h_keep),
	   "purge: the other path's entry stays");
	bc(&r, opt, "-v", "-p", app, NULL);
	snprintf(want, sizeof(want), "%s: not cached\n", app);
	check(&r, 0, want, "", "-v --purge again: not cached, exit 0");

	/* --purge-all */
	install("nopie", app);
	bc(&r, opt, "-a", app, NULL);
	check(&r, 0, "", "", "purge-all: one more added");
	bc(&r, opt, "-P", "-l", NULL);
	check(&r, 0, "", "", "--purge-all --list: nothing left to list");
	ok(!cached(dir, h1) && !cached(dir, h_keep), "--purge-all: every entry removed");
}

/* A kprof.data (format version 5) with these BUILD_ID records: pid, file, hex id. */
static void write_data(const char *path, const char * const recs[][3], int nr)
{
	struct kp_data_info info;
	struct kp_data_writer *w;
	struct kp_err err;
	uint64_t buf[64];
	struct kp_rec_build_id *b = (void *)buf;
	unsigned int len;
	int i;

	kp_data_info__init(&info);
	info.version = KP_DATA_VERSION_SWITCH;
	info.nr_cpus = 1;
	info.session.nr_events = 1;
	info.session.stack_depth = 127;
	info.session.freq = 99;
	snprintf(info.session.events[0].name, sizeof(info.session.events[0].name), "cpu-clock");
	w = kp_data_writer__create(path, &info, &err);
	if (!w)
		abort();
	for (i = 0; i < nr; i++) {
		memset(buf, 0, sizeof(buf));
		b->header.type = KP_DATA_REC_BUILD_ID;
		b->header.size = (sizeof(*b) + strlen(recs[i][1]) + 1 + 7) & ~7UL;
		b->pid = atoi(recs[i][0]);
		strcpy(b->filename, recs[i][1]);
		if (kp_buildid__parse(recs[i][2], b->build_id, &len))
			abort();
		b->size = len;
		if (kp_data_writer__write(w, &b->header, &err))
			abort();
	}
	if (kp_data_writer__finish(w, 2000, 0, &err))
		abort();
	kp_data_writer__delete(w);
}

static void test_missing(void)
{
	char dir[P], opt[P + 16], app[P], lib[P], data[P];
	char h_app[KP_BUILDID_HEX_MAX], h_lib[KP_BUILDID_HEX_MAX], want[PATH_MAX];
	struct run r;

	at(dir, "missing-cache");
	snprintf(opt, sizeof(opt), "--buildid-dir=%s", dir);
	install("nopie", at(app, "m-app"));
	install("libkpt.so", at(lib, "m-lib.so"));
	hex_of(app, h_app);
	hex_of(lib, h_lib);
	bc(&r, opt, "-a", app, NULL);
	check(&r, 0, "", "", "missing: one of the recording's files cached");
	{
		const char * const recs[][3] = {
			{ "100", "/usr/bin/kp-app", h_app },
			{ "100", "/usr/lib/libkpt.so", h_lib },
			{ "200", "/usr/lib/libkpt.so", h_lib },		/* again, another process */
			{ "200", "/usr/bin/kp-app", h_app },
		};

		write_data(at(data, "bid.data"), recs, 4);
	}
	bc(&r, opt, "--missing", data, NULL);
	snprintf(want, sizeof(want), "%s /usr/lib/libkpt.so\n", h_lib);
	check(&r, 0, want, "", "--missing: the uncached build-id, once");
	bc(&r, opt, "-a", lib, "-M", data, NULL);
	check(&r, 0, "", "", "--add then --missing: nothing missing");
	bc(&r, opt, "-P", "-M", data, NULL);
	snprintf(want, sizeof(want), "%s /usr/bin/kp-app\n%s /usr/lib/libkpt.so\n", h_app, h_lib);
	check(&r, 0, want, "", "--purge-all then --missing: both, in record order");

	write_data(at(data, "none.data"), NULL, 0);
	bc(&r, opt, "-M", data, NULL);
	check(&r, 0, "", "", "--missing of a recording without BUILD_ID records: nothing");
	at(data, "no-such.data");
	bc(&r, opt, "-M", data, NULL);
	ok(r.rc == 1 && !r.out[0] && !strncmp(r.err, "kprofctl: buildid-cache: ", 25) &&
	   strstr(r.err, data) && !strchr(r.err, '\n')[1],
	   "--missing of a missing file: exit 1, one line naming it");
	run_free(&r);
}

static void test_dirs(void)
{
	char env[P], other[P], home[P], app[P], opt[P + 16];
	char h[KP_BUILDID_HEX_MAX], want[PATH_MAX];
	struct run r;

	install("nopie", at(app, "d-app"));
	hex_of(app, h);
	setenv(KP_BUILDID_DIR_ENV, at(env, "env-cache"), 1);
	bc(&r, "-a", app, NULL);
	check(&r, 0, "", "", "$KPROF_BUILDID_DIR: added");
	ok(cached(env, h), "$KPROF_BUILDID_DIR: the cache is there");
	snprintf(want, sizeof(want), "%s %s\n", h, app);
	bc(&r, "-l", NULL);
	check(&r, 0, want, "", "$KPROF_BUILDID_DIR: listed");
	snprintf(opt, sizeof(opt), "--buildid-dir=%s", at(other, "opt-cache"));
	bc(&r, opt, "-a", app, NULL);
	check(&r, 0, "", "", "--buildid-dir over $KPROF_BUILDID_DIR: added");
	ok(cached(other, h), "--buildid-dir: the cache is there");
	bc(&r, "--buildid-dir", other, "-P", NULL);
	check(&r, 0, "", "", "--buildid-dir DIR: purged");
	ok(!cached(other, h) && cached(env, h), "--buildid-dir: only that cache purged");
	unsetenv(KP_BUILDID_DIR_ENV);
	bc(&r, "-a", app, NULL);
	check(&r, 0, "", "", "default: added");
	ok(cached(at(home, ".kprof/buildid"), h), "default: $HOME/.kprof/buildid");
}

/* Names: relative, through a symbolic link, of a file gone since. */
static void test_names(void)
{
	char dir[P], opt[P + 16], app[P], link[P], cwd[PATH_MAX], want[PATH_MAX];
	char h[KP_BUILDID_HEX_MAX];
	struct run r;

	at(dir, "names-cache");
	snprintf(opt, sizeof(opt), "--buildid-dir=%s", dir);
	install("nopie", at(app, "n-app"));
	hex_of(app, h);
	if (symlink("n-app", at(link, "n-link")) || !getcwd(cwd, sizeof(cwd)) || chdir(root))
		abort();
	bc(&r, opt, "-v", "-a", "n-link", NULL);
	snprintf(want, sizeof(want), "added %s %s\n", h, app);
	check(&r, 0, want, "", "--add of a relative symbolic link: the file's real path");
	{
		char elf[PATH_MAX + 16];
		struct stat a, e;

		snprintf(elf, sizeof(elf), "%s/%.2s/%s/elf", dir, h, h + 2);
		ok(!lstat(elf, &e) && S_ISREG(e.st_mode) && !stat(app, &a) && a.st_ino == e.st_ino,
		   "... the entry is the file (a hard link), not the symbolic link");
	}
	bc(&r, opt, "-l", NULL);
	snprintf(want, sizeof(want), "%s %s\n", h, app);
	check(&r, 0, want, "", "--list: the real path");
	bc(&r, opt, "-v", "-p", "n-link", NULL);
	snprintf(want, sizeof(want), "removed %s %s\n", h, app);
	check(&r, 0, want, "", "--purge of the link: the file's entry");
	bc(&r, opt, "-a", "n-app", NULL);
	check(&r, 0, "", "", "--add of a relative path");
	unlink(app);
	bc(&r, opt, "-v", "-p", "n-app", NULL);
	snprintf(want, sizeof(want), "removed %s %s\n", h, app);
	check(&r, 0, want, "", "--purge of a relative path gone since: its entry");
	if (chdir(cwd))
		abort();
}

static void test_usage(void)
{
	static const char no_action[] = "kprofctl: buildid-cache: no action: give --add, --remove, "
					"--purge, --purge-all, --list or --missing\n";
	struct run r;

	bc(&r, NULL);
	check(&r, 2, "", no_action, "no action: exit 2, naming the actions");
	bc(&r, "-v", "--buildid-dir", root, NULL);
	check(&r, 2, "", no_action, "-v and --buildid-dir are no action");
	bc(&r, "-l", "extra", NULL);
	check(&r, 2, "", "kprofctl: buildid-cache: unexpected argument 'extra'\n",
	      "an argument: exit 2");
	bc(&r, "--add=", NULL);
	check(&r, 2, "", "kprofctl: buildid-cache: invalid value '' for option '--add'\n",
	      "--add of nothing: exit 2");
	bc(&r, "-r", "a,,b", NULL);
	check(&r, 2, "", "kprofctl: buildid-cache: invalid value 'a,,b' for option '-r'\n",
	      "an empty name in a list: exit 2");
	bc(&r, "-M", NULL);
	check(&r, 2, "", "kprofctl: buildid-cache: option '-M' requires a value\n",
	      "-M without a file: exit 2");
	bc(&r, "--lst", NULL);
	check(&r, 2, "", "kprofctl: buildid-cache: unknown option '--lst'\n",
	      "an unknown option: exit 2");
	bc(&r, "--help", NULL);
	ok(r.rc == 0 && !strncmp(r.out, "Usage: kprofctl buildid-cache ", 30) &&
	   strstr(r.out, "\n    -a, --add=<file[,file...]>\n") &&
	   strstr(r.out, "\n    -M, --missing=<kprof.data>\n") && !r.err[0],
	   "--help: the usage and options on stdout");
	run_free(&r);
	kprofctl(&r, "--help", NULL);
	ok(strstr(r.out, "\n    buildid-cache  Manage the build-id cache"),
	   "kprofctl --help lists it, its summary after two blanks");
	run_free(&r);
}

int main(void)
{
	char tmp[64], cmd[PATH_MAX + 64], real[PATH_MAX];
	char *out;

	elf_dir = getenv("KP_TEST_ELF_DIR") ? getenv("KP_TEST_ELF_DIR") : ".obj/tests/elf";
	tmpdir__create(tmp, sizeof(tmp));
	if (!realpath(tmp, real) || strlen(real) >= sizeof(root))
		abort();
	strcpy(root, real);
	/* never the user's cache */
	setenv("HOME", root, 1);
	unsetenv(KP_BUILDID_DIR_ENV);

	/* our reading of the build-id agrees with binutils' */
	snprintf(cmd, sizeof(cmd), "readelf -n %s/nopie | sed -n 's/.*Build ID: //p' > %s/readelf",
		 elf_dir, root);
	if (system(cmd))
		abort();
	snprintf(cmd, sizeof(cmd), "%s/readelf", root);
	out = tmpdir__slurp(cmd, NULL);
	{
		char hex[KP_BUILDID_HEX_MAX], path[PATH_MAX], line[KP_BUILDID_HEX_MAX + 1];

		snprintf(path, sizeof(path), "%s/nopie", elf_dir);
		snprintf(line, sizeof(line), "%s\n", hex_of(path, hex));
		is_str(out, line, "the build-id of nopie is readelf's");
	}
	free(out);

	test_parse();
	test_dir();
	test_lib();
	test_add_list();
	test_purge();
	test_names();
	test_missing();
	test_dirs();
	test_usage();
	tmpdir__remove(tmp);
	return done_testing();
}
