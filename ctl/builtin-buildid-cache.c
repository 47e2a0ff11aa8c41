// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl buildid-cache [-v] [--buildid-dir <dir>] <action>...
 *
 * The build-id cache of lib/buildid.h, managed as 'perf buildid-cache'
 * manages ~/.debug, with perf's option names:
 *
 *	-a FILE[,FILE...]	add ELF files by their GNU build-id
 *	-r FILE[,FILE...]	remove the entries of these files' build-ids
 *	-p PATH[,PATH...]	remove every entry added from PATH, whatever
 *				its build-id (all the versions of a path)
 *	-P			remove every entry
 *	-l			"BUILDID PATH" lines, by path then build-id
 *	-M FILE			"BUILDID PATH" of the BUILD_ID records of the
 *				kprof.data FILE whose build-id is not cached
 *
 * Several actions run in this order: add, remove, purge, purge-all, list,
 * missing.  A file that cannot be added or removed is named in one error
 * line and the others are still done; the exit status is then 1.  An entry
 * records the path it was added from as realpath(3) resolved it, so that
 * --purge finds it whichever name of the file is given.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "lib/buildid.h"
#include "lib/data.h"
#include "lib/hmap.h"
#include "lib/parse-options.h"
#include "lib/record.h"
#include "lib/symbols.h"
#include "lib/util.h"

static const char * const buildid_cache_usage[] = {
	"kprofctl buildid-cache [-v] [--buildid-dir <dir>] -a <file>[,<file>...] | -r <file>[,<file>...]",
	"kprofctl buildid-cache [-v] [--buildid-dir <dir>] -p <path>[,<path>...] | -P",
	"kprofctl buildid-cache [--buildid-dir <dir>] -l | -M <kprof.data>",
	"",
	"Manage the build-id cache, as 'perf buildid-cache' manages ~/.debug: ELF",
	"files kept by their GNU build-id (a hard link to the file when the cache is",
	"on its file system, else a copy), so that a recording still names the",
	"frames of a binary that was upgraded or deleted since it was made.  The",
	"cache is --buildid-dir, else $KPROF_BUILDID_DIR, else ~/.kprof/buildid.",
	"",
	"--list and --missing print one 'BUILDID PATH' line per entry: its",
	"build-id in hex, a space, and the path it was added from (resolved by",
	"realpath(3); --missing: the path the recording names).  --list sorts",
	"them by path, then build-id; --missing prints each build-id once, in the",
	"order of the recording's BUILD_ID records.  -v says what was added or",
	"removed.  Several actions run in the order add, remove, purge, purge-all,",
	"list, missing; a file that fails is named on stderr, the others are still",
	"done, and the exit status is then 1.",
	NULL
};

/* The values of a repeatable -a, -r or -p, each a comma-separated list. */
struct bc_list {
	const char	**v;
	unsigned int	nr, alloc;
};

static int bc_list_cb(const struct option *opt, const char *arg, bool unset)
{
	struct bc_list *l = opt->value;
	const char **v;
	size_t n;

	if (unset) {
		l->nr = 0;
		return 0;
	}
	/* no empty file names: "", ",a", "a,", "a,,b" */
	n = strlen(arg);
	if (!n || arg[0] == ',' || arg[n - 1] == ',' || strstr(arg, ",,"))
		return -EINVAL;
	if (l->nr == l->alloc) {
		unsigned int alloc = l->alloc ? 2 * l->alloc : 8;

		v = realloc(l->v, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->alloc = alloc;
	}
	l->v[l->nr++] = arg;
	return 0;
}

/*
 * Call @fn for each file name of @l, in order; the number of @fn calls
 * that failed.
 */
static int bc_list__each(const char *cmd, const struct bc_list *l,
			 int (*fn)(const char *name, void *arg), void *arg)
{
	char buf[PATH_MAX];
	unsigned int i;
	int failed = 0;

	for (i = 0; i < l->nr; i++) {
		const char *s = l->v[i], *comma;

		for (; *s; s = *comma ? comma + 1 : comma) {
			size_t n;

			comma = strchrnul(s, ',');
			n = comma - s;
			if (n >= sizeof(buf)) {
				kp_error(cmd, "'%.*s...': %s", 64, s, strerror(ENAMETOOLONG));
				failed++;
				continue;
			}
			memcpy(buf, s, n);
			buf[n] = '\0';
			failed += fn(buf, arg) < 0;
		}
	}
	return failed;
}

struct bc_ctx {
	const char	*cmd;
	const char	*dir;
	bool		verbose;
};

/*
 * The build-id of the ELF file @file into @id, and the path to record for
 * it into @real (realpath(3)); its length, or -1 after an error line.
 */
static int bc_read_id(const struct bc_ctx *c, const char *file, unsigned char *id,
		      char *real)
{
	struct stat st;
	int n;

	if (stat(file, &st) || !realpath(file, real)) {
		kp_error(c->cmd, "'%s': %s", file, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		kp_error(c->cmd, "'%s': not a regular file", file);
		return -1;
	}
	n = kp_elf__build_id(file, id, KP_BUILD_ID_MAX);
	if (n == -ENOENT) {
		kp_error(c->cmd, "'%s': no build-id", file);
		return -1;
	}
	if (n == -ENOEXEC) {
		kp_error(c->cmd, "'%s': not an ELF file", file);
		return -1;
	}
	if (n < 0) {
		kp_error(c->cmd, "'%s': %s", file, strerror(-n));
		return -1;
	}
	return n;
}

static int bc_add(const char *file, void *arg)
{
	const struct bc_ctx *c = arg;
	unsigned char id[KP_BUILD_ID_MAX];
	char real[PATH_MAX], hex[KP_BUILDID_HEX_MAX];
	struct kp_err err;
	int n, ret;

	n = bc_read_id(c, file, id, real);
	if (n < 0)
		return -1;
	/* the resolved path, as the entry's name and the file linked or copied */
	ret = kp_buildid_cache__add(c->dir, real, real, id, n, &err);
	if (ret < 0) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	kp_buildid__hex(id, n, hex);
	if (c->verbose && ret)
		printf("added %s %s\n", hex, real);
	else if (c->verbose)
		printf("%s %s: already cached\n", hex, real);
	return 0;
}

static int bc_remove(const char *file, void *arg)
{
	const struct bc_ctx *c = arg;
	unsigned char id[KP_BUILD_ID_MAX];
	char real[PATH_MAX], hex[KP_BUILDID_HEX_MAX];
	struct kp_err err;
	int n, ret;

	n = bc_read_id(c, file, id, real);
	if (n < 0)
		return -1;
	ret = kp_buildid_cache__remove(c->dir, id, n, &err);
	if (ret < 0) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	kp_buildid__hex(id, n, hex);
	if (c->verbose && ret)
		printf("removed %s %s\n", hex, real);
	else if (c->verbose)
		printf("%s %s: not cached\n", hex, real);
	return 0;
}

/* The entries of the cache, read whole before any is removed or listed. */
struct bc_entry {
	char	hex[KP_BUILDID_HEX_MAX + 8];
	char	*name;
};

struct bc_entries {
	struct bc_entry	*v;
	size_t		nr, alloc;
};

static int bc_entries__add(const char *hex, const char *name, const char *elf, void *arg)
{
	struct bc_entries *e = arg;
	struct bc_entry *v;

	(void)elf;
	if (e->nr == e->alloc) {
		size_t alloc = e->alloc ? 2 * e->alloc : 64;

		v = realloc(e->v, alloc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		e->v = v;
		e->alloc = alloc;
	}
	snprintf(e->v[e->nr].hex, sizeof(e->v[e->nr].hex), "%s", hex);
	e->v[e->nr].name = strdup(name);
	if (!e->v[e->nr].name)
		return -ENOMEM;
	e->nr++;
	return 0;
}

static void bc_entries__exit(struct bc_entries *e)
{
	size_t i;

	for (i = 0; i < e->nr; i++)
		free(e->v[i].name);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

/* By path, then build-id. */
static int bc_entry__cmp(const void *a, const void *b)
{
	const struct bc_entry *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : strcmp(x->hex, y->hex);
}

/* Read the whole cache into @e, sorted; 0, or -1 after an error line. */
static int bc_entries__read(const struct bc_ctx *c, struct bc_entries *e)
{
	struct kp_err err;
	int ret;

	kp_err__clear(&err);
	ret = kp_buildid_cache__for_each(c->dir, bc_entries__add, e, &err);
	if (ret == -ENOMEM && !err.errnum)
		kp_err__set(&err, ENOMEM, "cannot read '%s': %s", c->dir, strerror(ENOMEM));
	if (ret) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	if (e->nr)
		qsort(e->v, e->nr, sizeof(*e->v), bc_entry__cmp);
	return 0;
}

static void bc_entry__print(const struct bc_entry *e, const char *prefix)
{
	if (e->name[0])
		printf("%s%s %s\n", prefix, e->hex, e->name);
	else
		printf("%s%s\n", prefix, e->hex);	/* its name file is gone */
}

/* Remove entry @e; 0, or -1 after an error line. */
static int bc_entry__remove(const struct bc_ctx *c, const struct bc_entry *e)
{
	unsigned char id[KP_BUILD_ID_MAX];
	struct kp_err err;
	unsigned int len;
	int ret;

	if (kp_buildid__parse(e->hex, id, &len)) {
		kp_error(c->cmd, "cannot remove the entry '%s' of '%s': not a build-id", e->hex,
			 c->dir);
		return -1;
	}
	ret = kp_buildid_cache__remove(c->dir, id, len, &err);
	if (ret < 0) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	if (ret && c->verbose)
		bc_entry__print(e, "removed ");
	return 0;
}

struct bc_purge {
	const struct bc_ctx	*c;
	struct bc_entries	*e;
	int			failed;
};

/*
 * --purge PATH: the entries added from PATH, as realpath(3) resolves it
 * when it still exists, or as given (made absolute) when it is gone.
 */
static int bc_purge(const char *path, void *arg)
{
	struct bc_purge *p = arg;
	char real[PATH_MAX], given[2 * PATH_MAX + 2], cwd[PATH_MAX];
	bool have_real = realpath(path, real);
	unsigned int found = 0;
	size_t i;

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(given, sizeof(given), "%s", path);
	else
		snprintf(given, sizeof(given), "%s/%s", cwd, path);
	for (i = 0; i < p->e->nr; i++) {
		struct bc_entry *e = &p->e->v[i];

		if (!e->name[0] || (strcmp(e->name, given) && (!have_real || strcmp(e->name, real))))
			continue;
		found++;
		if (bc_entry__remove(p->c, e)) {
			p->failed++;
			continue;
		}
		e->name[0] = '\0';	/* gone: not purged again by a later PATH */
	}
	if (!found && p->c->verbose)
		printf("%s: not cached\n", have_real ? real : given);
	return 0;
}

/* --missing: the build-ids seen in the recording, each printed once. */
struct bc_seen {
	struct bc_seen	*next;
	char		hex[KP_BUILDID_HEX_MAX];
};

static int bc_missing(const struct bc_ctx *c, const char *input)
{
	const struct kprof_record_header *rec;
	struct kp_hmap seen = { 0 };
	char hex[KP_BUILDID_HEX_MAX], elf[PATH_MAX];
	struct bc_seen *s, *n, *head;
	struct kp_data *d;
	struct kp_err err;
	uint64_t off, key;
	size_t pos;
	void *val;
	int ret;

	d = kp_data__open(input, &err);
	if (!d) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	while ((ret = kp_data__next(d, &rec, &off, &err)) > 0) {
		const struct kp_rec_build_id *b = (const void *)rec;

		if (rec->type != KP_DATA_REC_BUILD_ID)
			continue;
		kp_buildid__hex(b->build_id, b->size, hex);
		key = kp_hash_str(hex);
		head = kp_hmap__get(&seen, key);
		for (s = head; s && strcmp(s->hex, hex); s = s->next)
			;
		if (s)
			continue;
		/* a hash shared with other build-ids: they are chained */
		s = calloc(1, sizeof(*s));
		if (s) {
			s->next = head;
			snprintf(s->hex, sizeof(s->hex), "%s", hex);
		}
		if (!s || kp_hmap__put(&seen, key, s)) {
			free(s);
			kp_err__set(&err, ENOMEM, "'%s': %s", input, strerror(ENOMEM));
			ret = -ENOMEM;
			break;
		}
		if (kp_buildid_cache__path(c->dir, b->build_id, b->size, elf, sizeof(elf)))
			printf("%s %s\n", hex, b->filename);
	}
	kp_data__close(d);
	for (pos = 0; kp_hmap__next(&seen, &pos, &key, &val);)
		for (s = val; s; s = n) {
			n = s->next;
			free(s);
		}
	kp_hmap__exit(&seen);
	if (ret < 0) {
		kp_err__print(&err, c->cmd);
		return -1;
	}
	return 0;
}

int cmd_buildid_cache(int argc, const char **argv)
{
	struct bc_list adds = { 0 }, removes = { 0 }, purges = { 0 };
	const char *dir = NULL, *missing = NULL;
	bool purge_all = false, list = false, verbose = false;
	const struct option options[] = {
		OPT_CALLBACK('a', "add", &adds, "file[,file...]",
			     "add these ELF files by their build-id (repeatable)", bc_list_cb),
		OPT_CALLBACK('r', "remove", &removes, "file[,file...]",
			     "remove the entries of these files' build-ids (repeatable)", bc_list_cb),
		OPT_CALLBACK('p', "purge", &purges, "path[,path...]",
			     "remove every entry added from these paths, whatever its build-id",
			     bc_list_cb),
		OPT_BOOLEAN('P', "purge-all", &purge_all, "remove every entry"),
		OPT_BOOLEAN('l', "list", &list, "list the entries: build-id and path, by path"),
		OPT_STRING('M', "missing", &missing, "kprof.data",
			   "list the build-ids of this recording that the cache lacks"),
		OPT_STRING(0, "buildid-dir", &dir, "dir",
			   "the cache (default $KPROF_BUILDID_DIR, else ~/.kprof/buildid)"),
		OPT_BOOLEAN('v', "verbose", &verbose, "say what was added or removed"),
		OPT_END()
	};
	struct bc_entries entries = { 0 };
	char dirbuf[PATH_MAX];
	struct bc_ctx c = { .cmd = argv[0] };
	int failed = 0, ret = KP_EXIT_OK;

	argc = parse_options(argc, argv, options, buildid_cache_usage, 0);
	if (argc < 0) {
		ret = parse_options_exit_code(argc);
		goto out;
	}
	if (parse_options_max_args(c.cmd, argc, argv, 0)) {
		ret = KP_EXIT_USAGE;
		goto out;
	}
	if (!adds.nr && !removes.nr && !purges.nr && !purge_all && !list && !missing) {
		kp_error(c.cmd, "no action: give --add, --remove, --purge, --purge-all, --list or --missing");
		ret = KP_EXIT_USAGE;
		goto out;
	}
	c.dir = kp_buildid_cache__dir(dir, dirbuf, sizeof(dirbuf));
	c.verbose = verbose;

	failed += bc_list__each(c.cmd, &adds, bc_add, &c);
	failed += bc_list__each(c.cmd, &removes, bc_remove, &c);
	if (purges.nr || purge_all) {
		if (bc_entries__read(&c, &entries)) {
			failed++;
		} else if (purge_all) {
			size_t i;

			for (i = 0; i < entries.nr; i++)
				failed += bc_entry__remove(&c, &entries.v[i]) < 0;
		} else {
			struct bc_purge p = { .c = &c, .e = &entries };

			bc_list__each(c.cmd, &purges, bc_purge, &p);
			failed += p.failed;
		}
		bc_entries__exit(&entries);
	}
	if (list) {
		if (bc_entries__read(&c, &entries)) {
			failed++;
		} else {
			size_t i;

			for (i = 0; i < entries.nr; i++)
				bc_entry__print(&entries.v[i], "");
		}
		bc_entries__exit(&entries);
	}
	if (missing)
		failed += bc_missing(&c, missing) < 0;
	ret = failed ? KP_EXIT_FAILURE : KP_EXIT_OK;
out:
	free(adds.v);
	free(removes.v);
	free(purges.v);
	return ret;
}
