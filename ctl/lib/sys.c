// SPDX-License-Identifier: GPL-2.0
/*
 * kprofctl: reading /proc and /sys; see sys.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpumap.h"
#include "sys.h"

const char *kp_sysroot = "";

int kp_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t root = strlen(kp_sysroot);
	int n;

	if (root >= len)
		return -ENAMETOOLONG;
	memcpy(buf, kp_sysroot, root);
	va_start(ap, fmt);
	n = vsnprintf(buf + root, len - root, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - root)
		return -ENAMETOOLONG;
	return 0;
}

int kp_read_file(const char *path, char *buf, size_t len)
{
	char full[4096];
	ssize_t n;
	int fd, ret;

	ret = kp_path(full, sizeof(full), "%s", path);
	if (ret)
		return ret;
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return n;
}

int kp_sys__max_sample_rate(unsigned int *rate)
{
	char buf[64];
	int ret;

	ret = kp_read_file("/proc/sys/kernel/perf_event_max_sample_rate", buf, sizeof(buf));
	if (ret < 0)
		return ret;
	return kp_parse_uint(buf, rate) ? -EINVAL : 0;
}

int kp_sys__possible_cpus(unsigned int *nr, char *text, size_t len)
{
	struct kp_cpumap map;
	int ret;

	ret = kp_read_file("/sys/devices/system/cpu/possible", text, len);
	if (ret < 0)
		return ret;
	ret = kp_cpumap__parse(&map, text, KP_CPUMAP_MAX_CPUS, NULL);
	if (ret)
		return -EINVAL;
	*nr = map.max_cpu + 1;
	return 0;
}

int kp_sys__online_cpus(struct kp_cpumap *map)
{
	char text[4096];
	int ret;

	ret = kp_read_file("/sys/devices/system/cpu/online", text, sizeof(text));
	if (ret < 0)
		return ret;
	return kp_cpumap__parse(map, text, KP_CPUMAP_MAX_CPUS, NULL) ? -EINVAL : 0;
}

bool kp_sys__pid_exists(uint32_t pid)
{
	char path[4096];
	struct stat st;

	if (!pid || kp_path(path, sizeof(path), "/proc/%u", pid))
		return false;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int kp_sys__tgid(uint32_t tid, uint32_t *tgid)
{
	char path[64], buf[4096];
	const char *line;
	int ret;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	ret = kp_read_file(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	line = strstr(buf, "\nTgid:");
	if (!line || sscanf(line + 6, "%u", tgid) != 1 || !*tgid)
		return -EINVAL;
	return 0;
}

bool kp_sys__any_pid_exists(const uint32_t *pids, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (kp_sys__pid_exists(pids[i]))
			return true;
	return false;
}

bool kp_sys__has_hw_pmu(void)
{
	static const char * const pmus[] = { "cpu", "cpu_core", "cpu_atom" };
	char path[4096];
	struct stat st;
	size_t i;

	for (i = 0; i < KP_ARRAY_SIZE(pmus); i++) {
		if (kp_path(path, sizeof(path), "/sys/bus/event_source/devices/%s", pmus[i]))
			continue;
		if (!stat(path, &st))
			return true;
	}
	return false;
}

int kp_sys__kernel_text(uint64_t *addr)
{
	char path[4096], line[512], name[256], type;
	unsigned long long a;
	int ret = -ENOENT;
	FILE *fp;

	if (kp_path(path, sizeof(path), "/proc/kallsyms"))
		return -ENAMETOOLONG;
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	/* "_text" comes first or nearly: stop there */
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || strcmp(name, "_text"))
			continue;
		if (a) {
			*addr = a;
			ret = 0;
		} else {
			ret = -EPERM;	/* kernel.kptr_restrict */
		}
		break;
	}
	fclose(fp);
	return ret;
}

int kp_sys__modules(struct kp_sys_module **out, size_t *nr)
{
	struct kp_sys_module *mods = NULL, *m;
	char path[4096], line[1024], name[KP_SYS_MODULE_NAME], state[16];
	unsigned long long size, addr;
	size_t n = 0, alloc = 0;
	FILE *fp;

	*out = NULL;
	*nr = 0;
	if (kp_path(path, sizeof(path), "/proc/modules"))
		return -ENAMETOOLONG;
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	/* "NAME SIZE REFS DEPS STATE ADDRESS [TAINTS]" */
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%63s %llu %*s %*s %15s %llx", name, &size, state, &addr) != 4 ||
		    strcmp(state, "Live") || !addr || !size)
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			m = realloc(mods, alloc * sizeof(*mods));
			if (!m) {
				free(mods);
				fclose(fp);
				return -ENOMEM;
			}
			mods = m;
		}
		m = &mods[n++];
		snprintf(m->name, sizeof(m->name), "%s", name);
		m->start = addr;
		m->size = size;
	}
	fclose(fp);
	*out = mods;
	*nr = n;
	return 0;
}
