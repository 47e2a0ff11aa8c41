// SPDX-License-Identifier: GPL-2.0
/*
 * The build-id cache; see buildid.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid.h"
#include "util.h"

const char *kp_buildid_cache__dir(const char *dir, char *buf, size_t size)
{
	const char *home;

	if (!dir || !*dir)
		dir = getenv(KP_BUILDID_DIR_ENV);
	if (dir && *dir) {
		snprintf(buf, size, "%s", dir);
		return buf;
	}
	home = getenv("HOME");
	snprintf(buf, size, "%s/.kprof/buildid", home && *home ? home : "/root");
	return buf;
}

char *kp_buildid__hex(const unsigned char *id, unsigned int len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	unsigned int i;

	if (len > KP_BUILD_ID_MAX)
		len = KP_BUILD_ID_MAX;
	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * len] = '\0';
	return buf;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int kp_buildid__parse(const char *hex, unsigned char *id, unsigned int *len)
{
	size_t n = strlen(hex), i;

	if (!n || n % 2 || n > 2 * KP_BUILD_ID_MAX)
		return -EINVAL;
	for (i = 0; i < n; i += 2) {
		int hi = hexval(hex[i]), lo = hexval(hex[i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		id[i / 2] = (unsigned char)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

/* DIR/xx/rest into @buf. */
static int entry_dir(const char *dir, const unsigned char *id, unsigned int len, char *buf,
		     size_t size)
{
	char hex[KP_BUILDID_HEX_MAX];
	int n;

	/* xx/rest: at least two bytes (GNU build-ids have 8, 16 or 20) */
	if (len < 2 || len > KP_BUILD_ID_MAX)
		return -EINVAL;
	kp_buildid__hex(id, len, hex);
	n = snprintf(buf, size, "%s/%.2s/%s", dir, hex, hex + 2);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Does the ELF file @path have build-id @id? */
static bool has_id(const char *path, const unsigned char *id, unsigned int len)
{
	unsigned char got[KP_BUILD_ID_MAX];
	int n = kp_elf__build_id(path, got, sizeof(got));

	return n == (int)len && !memcmp(got, id, len);
}

int kp_buildid_cache__path(const char *dir, const unsigned char *id, unsigned int len,
			   char *buf, size_t size)
{
	char entry[PATH_MAX];
	struct stat st;
	int ret, n;

	ret = entry_dir(dir, id, len, entry, sizeof(entry));
	if (ret)
		return ret == -EINVAL ? -ENOENT : ret;
	n = snprintf(buf, size, "%s/elf", entry);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return !stat(buf, &st) && S_ISREG(st.st_mode) ? 0 : -ENOENT;
}

/* mkdir -p @path; 0 or -errno. */
static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Copy @from into the new file @to; 0 or -errno. */
static int copy_file(const char *from, const char *to)
{
	int in, out, ret = 0;
	char buf[65536];
	ssize_t n;

	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	for (;;) {
		n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
		if (n > 0)
			continue;
		if (!n)
			break;
		if (errno != EXDEV && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) {
			ret = -errno;
			goto out;
		}
		/* no copy_file_range() between these files: read and write */
		while ((n = read(in, buf, sizeof(buf))) > 0) {
			ssize_t done = 0, w;

			for (; done < n; done += w) {
				w = write(out, buf + done, n - done);
				if (w < 0) {
					ret = -errno;
					goto out;
				}
			}
		}
		if (n < 0)
			ret = -errno;
		break;
	}
out:
	if (close(out) && !ret)
		ret = -errno;
	close(in);
	if (ret)
		unlink(to);
	return ret;
}

int kp_buildid_cache__add(const char *dir, const char *path, const char *name,
			  const unsigned char *id, unsigned int len, struct kp_err *err)
{
	char entry[PATH_MAX], elf[PATH_MAX + 16], tmp[PATH_MAX + 32], nm[PATH_MAX + 16];
	char hex[KP_BUILDID_HEX_MAX], *slash;
	FILE *fp;
	int ret;

	ret = entry_dir(dir, id, len, entry, sizeof(entry));
	if (ret) {
		kp_err__set(err, -ret, "'%s': %s", path, ret == -EINVAL ?
			    "no usable build-id" : strerror(-ret));
		return ret;
	}
	snprintf(elf, sizeof(elf), "%s/elf", entry);
	if (has_id(elf, id, len))
		return 0;
	ret = mkdirs(entry);
	if (ret) {
		kp_err__set(err, -ret, "cannot create '%s': %s", entry, strerror(-ret));
		return ret;
	}
	snprintf(tmp, sizeof(tmp), "%s/elf.tmp.%d", entry, (int)getpid());
	unlink(tmp);
	/*
	 * A hard link keeps the inode when the original is replaced (of the
	 * file a symbolic link names, not of the link); else a copy.
	 */
	if (linkat(AT_FDCWD, path, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW)) {
		ret = copy_file(path, tmp);
		if (ret) {
			kp_err__set(err, -ret, "cannot copy '%s' into the build-id cache: %s", path,
				    strerror(-ret));
			goto out_rmdir;
		}
	}
	if (!has_id(tmp, id, len)) {
		unlink(tmp);
		kp_err__set(err, ESTALE, "'%s' no longer has build-id %s", path,
			    kp_buildid__hex(id, len, hex));
		ret = -ESTALE;
		goto out_rmdir;
	}
	if (rename(tmp, elf)) {
		ret = -errno;
		unlink(tmp);
		kp_err__set(err, -ret, "cannot rename '%s': %s", tmp, strerror(-ret));
		goto out_rmdir;
	}
	snprintf(nm, sizeof(nm), "%s/name", entry);
	snprintf(tmp, sizeof(tmp), "%s/name.tmp.%d", entry, (int)getpid());
	fp = fopen(tmp, "w");
	if (fp) {
		fprintf(fp, "%s\n", name ? name : path);
		if (fclose(fp) || rename(tmp, nm))
			unlink(tmp);
	}
	return 1;

out_rmdir:
	/* the directories this add made, when empty */
	rmdir(entry);
	slash = strrchr(entry, '/');
	if (slash) {
		*slash = '\0';
		rmdir(entry);
	}
	return ret;
}

int kp_buildid_cache__remove(const char *dir, const unsigned char *id, unsigned int len,
			     struct kp_err *err)
{
	char entry[PATH_MAX], path[PATH_MAX + 16], *slash;
	int ret;

	ret = entry_dir(dir, id, len, entry, sizeof(entry));
	if (ret) {
		kp_err__set(err, -ret, "bad build-id");
		return ret;
	}
	snprintf(path, sizeof(path), "%s/elf", entry);
	if (unlink(path)) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		kp_err__set(err, -ret, "cannot remove '%s': %s", path, strerror(-ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/name", entry);
	unlink(path);
	rmdir(entry);
	slash = strrchr(entry, '/');
	if (slash) {
		*slash = '\0';
		rmdir(entry);	/* DIR/xx, when it was the last */
	}
	return 1;
}

static bool all_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max)
		return false;
	for (i = 0; i < n; i++)
		if (hexval(s[i]) < 0)
			return false;
	return true;
}

int kp_buildid_cache__for_each(const char *dir, kp_buildid_fn fn, void *arg,
			       struct kp_err *err)
{
	char sub[PATH_MAX], elf[PATH_MAX + 300], nm[PATH_MAX + 300], hex[2 * 256 + 1];
	char name[PATH_MAX];
	struct dirent *de, *e;
	DIR *top, *d;
	FILE *fp;
	int ret = 0;

	top = opendir(dir);
	if (!top) {
		if (errno == ENOENT)
			return 0;
		ret = -errno;
		kp_err__set(err, -ret, "cannot read '%s': %s", dir, strerror(-ret));
		return ret;
	}
	while (!ret && (de = readdir(top))) {
		if (!all_hex(de->d_name, 2, 2))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		d = opendir(sub);
		if (!d)
			continue;
		while (!ret && (e = readdir(d))) {
			struct stat st;

			/* the rest of an id of 2 to 20 bytes: an even length */
			if (!all_hex(e->d_name, 2, 2 * KP_BUILD_ID_MAX - 2) ||
			    strlen(e->d_name) % 2)
				continue;
			snprintf(elf, sizeof(elf), "%s/%s/elf", sub, e->d_name);
			if (stat(elf, &st) || !S_ISREG(st.st_mode))
				continue;
			snprintf(hex, sizeof(hex), "%s%s", de->d_name, e->d_name);
			name[0] = '\0';
			snprintf(nm, sizeof(nm), "%s/%s/name", sub, e->d_name);
			fp = fopen(nm, "r");
			if (fp) {
				if (fgets(name, sizeof(name), fp))
					name[strcspn(name, "\n")] = '\0';
				fclose(fp);
			}
			ret = fn(hex, name, elf, arg);
		}
		closedir(d);
	}
	closedir(top);
	return ret;
}
