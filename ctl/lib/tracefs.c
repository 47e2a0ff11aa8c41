// SPDX-License-Identifier: GPL-2.0
/*
 * tracefs: tracepoint ids and formats; see tracefs.h.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "sys.h"
#include "tracefs.h"
#include "util.h"

const char *kp_tracefs_root;

#define DIR_MAX		2048
#define PATH_MAX_	(DIR_MAX + 2 * 256 + 16)

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

int kp_tracefs__events_dir(char *buf, size_t len, struct kp_err *err)
{
	static const char * const dirs[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};
	unsigned int i;

	if (kp_tracefs_root) {
		snprintf(buf, len, "%s", kp_tracefs_root);
		if (is_dir(buf))
			return 0;
		goto missing;
	}
	for (i = 0; i < KP_ARRAY_SIZE(dirs); i++)
		if (!kp_path(buf, len, "%s", dirs[i]) && is_dir(buf))
			return 0;
	/* As perf does: mount tracefs where it belongs, if we may. */
	if (!kp_sysroot[0] && is_dir("/sys/kernel/tracing") &&
	    !mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		snprintf(buf, len, "%s", dirs[0]);
		if (is_dir(buf))
			return 0;
	}
missing:
	kp_err__set(err, ENOENT,
		    "tracefs is not available: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (as root)");
	return -ENOENT;
}

bool kp_tracefs__glob_ok(const char *glob)
{
	const char *p = glob;

	if (!*p)
		return false;
	for (; *p; p++) {
		if (*p == '[') {
			const char *start = ++p;

			if (*p == '!' || *p == '^')
				p++;
			if (*p == ']')	/* "[]...]": ']' first is a member */
				p++;
			while (*p && *p != ']') {
				if (!isalnum((unsigned char)*p) && !strchr("_-.", *p))
					return false;
				p++;
			}
			if (!*p || p == start)
				return false;
			continue;
		}
		if (!isalnum((unsigned char)*p) && !strchr("_-.*?", *p))
			return false;
	}
	return true;
}

static int name_sort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int match_dir(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int read_id(const char *dir, const char *sys, const char *ev, uint32_t *id,
		   struct kp_err *err)
{
	char path[PATH_MAX_], buf[32];
	unsigned int v;
	FILE *fp;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, ev);
	fp = fopen(path, "re");
	if (!fp)
		return -ENOENT;	/* not a tracepoint: e.g. a system's 'enable' file */
	if (!fgets(buf, sizeof(buf), fp)) {
		ret = -EIO;
		goto out;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (kp_parse_uint(buf, &v)) {
		ret = -EINVAL;
		goto out;
	}
	*id = v;
out:
	fclose(fp);
	if (ret)
		kp_err__set(err, -ret, "cannot read the id of tracepoint '%s:%s' (%s)", sys, ev,
			    path);
	return ret;
}

int kp_tracefs__walk(const char *sys_glob, const char *ev_glob, kp_tracefs_cb cb,
		     void *arg, struct kp_err *err)
{
	struct dirent **systems = NULL, **events = NULL;
	int nsys, nev = 0, i, j, ret, found = 0;
	char dir[DIR_MAX], sub[PATH_MAX_];
	uint32_t id;

	ret = kp_tracefs__events_dir(dir, sizeof(dir), err);
	if (ret)
		return ret;
	nsys = scandir(dir, &systems, match_dir, name_sort);
	if (nsys < 0) {
		ret = -errno;
		kp_err__set(err, -ret, "cannot read %s: %s", dir, strerror(-ret));
		return ret;
	}
	for (i = 0; i < nsys; i++) {
		const char *sys = systems[i]->d_name;

		if (fnmatch(sys_glob, sys, 0))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, sys);
		if (!is_dir(sub))
			continue;
		nev = scandir(sub, &events, match_dir, name_sort);
		if (nev < 0) {
			nev = 0;
			continue;
		}
		for (j = 0; j < nev; j++) {
			const char *ev = events[j]->d_name;

			if (fnmatch(ev_glob, ev, 0))
				continue;
			ret = read_id(dir, sys, ev, &id, err);
			if (ret == -ENOENT)
				continue;
			if (ret)
				goto out;
			found++;
			if (cb) {
				ret = cb(sys, ev, id, arg);
				if (ret)
					goto out;
			}
		}
		for (j = 0; j < nev; j++)
			free(events[j]);
		free(events);
		events = NULL;
		nev = 0;
	}
	ret = found;
out:
	for (j = 0; j < nev; j++)
		free(events[j]);
	free(events);
	for (i = 0; i < nsys; i++)
		free(systems[i]);
	free(systems);
	return ret;
}

const struct kp_tp_field *kp_tp_format__field(const struct kp_tp_format *fmt,
					      const char *name)
{
	unsigned int i;

	for (i = 0; i < fmt->nr_fields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

/* "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" at @line. */
static int parse_field(struct kp_tp_field *f, const char *line)
{
	char decl[160], *end, *name, *bracket = NULL;
	const char *semi;
	unsigned int off, size;
	int sign, n;

	memset(f, 0, sizeof(*f));
	semi = strchr(line, ';');
	if (!semi || (size_t)(semi - line) >= sizeof(decl))
		return -EINVAL;
	memcpy(decl, line, semi - line);
	decl[semi - line] = '\0';
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%d;%n", &off, &size, &sign, &n) < 3)
		return -EINVAL;
	if (off > UINT16_MAX || size > UINT16_MAX)
		return -EINVAL;
	f->offset = off;
	f->size = size;
	f->is_signed = sign;

	end = decl + strlen(decl);
	while (end > decl && isspace((unsigned char)end[-1]))
		*--end = '\0';
	if (end > decl && end[-1] == ']') {
		bracket = strrchr(decl, '[');
		if (!bracket)
			return -EINVAL;
		end = bracket;
		f->is_array = true;
	}
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end || (size_t)(end - name) >= sizeof(f->name))
		return -EINVAL;
	memcpy(f->name, name, end - name);
	f->name[end - name] = '\0';
	while (name > decl && isspace((unsigned char)name[-1]))
		name--;
	if (name == decl)	/* no type */
		return -EINVAL;
	snprintf(f->type, sizeof(f->type), "%.*s%s", (int)(name - decl), decl,
		 bracket ? bracket : "");
	f->is_dynamic = !!strstr(f->type, "__data_loc");
	if (f->is_dynamic)
		f->is_array = false;
	f->is_string = f->is_array && (!strncmp(f->type, "char[", 5) ||
				       !strncmp(f->type, "const char[", 11));
	f->is_common = !strncmp(f->name, "common_", 7);
	return 0;
}

int kp_tp_format__parse(struct kp_tp_format *fmt, const char *text, struct kp_err *err)
{
	const char *line = text, *nl, *p;
	unsigned int id;
	size_t len;

	fmt->nr_fields = 0;
	fmt->print_fmt[0] = '\0';
	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (!strncmp(p, "ID:", 3) && sscanf(p + 3, "%u", &id) == 1) {
			fmt->id = id;
		} else if (!strncmp(p, "field:", 6)) {
			if (fmt->nr_fields >= KP_TP_FIELDS_MAX) {
				kp_err__set(err, E2BIG, "tracepoint '%s:%s' has too many fields",
					    fmt->system, fmt->name);
				return -E2BIG;
			}
			if (parse_field(&fmt->fields[fmt->nr_fields], p + 6)) {
				kp_err__set(err, EINVAL,
					    "cannot parse the format of tracepoint '%s:%s': '%.*s'",
					    fmt->system, fmt->name, (int)(len - (p - line)), p);
				return -EINVAL;
			}
			fmt->nr_fields++;
		} else if (!strncmp(p, "print fmt: ", 11)) {
			len -= (p + 11) - line;
			if (len >= sizeof(fmt->print_fmt))
				len = sizeof(fmt->print_fmt) - 1;
			memcpy(fmt->print_fmt, p + 11, len);
			fmt->print_fmt[len] = '\0';
		}
		if (!nl)
			break;
	}
	return 0;
}

int kp_tracefs__format(const char *system, const char *event, struct kp_tp_format *fmt,
		       struct kp_err *err)
{
	char dir[DIR_MAX], path[PATH_MAX_];
	size_t len = 0, cap = 16384;
	char *text;
	FILE *fp;
	int ret;

	memset(fmt, 0, sizeof(*fmt));
	snprintf(fmt->system, sizeof(fmt->system), "%s", system);
	snprintf(fmt->name, sizeof(fmt->name), "%s", event);
	ret = kp_tracefs__events_dir(dir, sizeof(dir), err);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s/%s/format", dir, system, event);
	fp = fopen(path, "re");
	if (!fp) {
		kp_err__set(err, ENOENT, "unknown tracepoint '%s:%s' (see 'kprofctl list tracepoint')",
			    system, event);
		return -ENOENT;
	}
	text = malloc(cap);
	if (!text) {
		fclose(fp);
		kp_err__set(err, ENOMEM, "out of memory");
		return -ENOMEM;
	}
	len = fread(text, 1, cap - 1, fp);
	text[len] = '\0';
	fclose(fp);
	ret = kp_tp_format__parse(fmt, text, err);
	free(text);
	return ret;
}

static uint64_t load_le(const uint8_t *p, unsigned int size)
{
	uint64_t v = 0;

	memcpy(&v, p, size < 8 ? size : 8);	/* x86: little endian */
	return v;
}

static size_t put_text(char *buf, size_t pos, size_t len, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n && s[i] && pos + 1 < len; i++)
		buf[pos++] = isprint((unsigned char)s[i]) && s[i] != ' ' ? s[i] : '.';
	buf[pos < len ? pos : len - 1] = '\0';
	return pos;
}

char *kp_tp_format__print(const struct kp_tp_format *fmt, const void *raw, size_t len,
			  char *buf, size_t buflen)
{
	const uint8_t *r = raw;
	size_t pos = 0;
	unsigned int i, j;
	int n;

	buf[0] = '\0';
	for (i = 0; i < fmt->nr_fields && pos + 1 < buflen; i++) {
		const struct kp_tp_field *f = &fmt->fields[i];

		if (f->is_common || (size_t)f->offset + f->size > len)
			continue;
		n = snprintf(buf + pos, buflen - pos, "%s%s=", pos ? " " : "", f->name);
		if (n < 0 || (size_t)n >= buflen - pos)
			break;
		pos += n;
		if (f->is_dynamic) {
			uint32_t loc = load_le(r + f->offset, 4);
			size_t off = loc & 0xffff, dlen = loc >> 16;

			if (off + dlen <= len)
				pos = put_text(buf, pos, buflen, (const char *)r + off, dlen);
		} else if (f->is_string) {
			pos = put_text(buf, pos, buflen, (const char *)r + f->offset, f->size);
		} else if (f->is_array || f->size > 8 || !f->size) {
			n = snprintf(buf + pos, buflen - pos, "{");
			pos += n > 0 ? n : 0;
			for (j = 0; j < f->size && pos + 1 < buflen; j++) {
				n = snprintf(buf + pos, buflen - pos, "%s%02x", j ? "," : "",
					     r[f->offset + j]);
				pos += n > 0 ? n : 0;
			}
			if (pos + 1 < buflen) {
				n = snprintf(buf + pos, buflen - pos, "}");
				pos += n > 0 ? n : 0;
			}
		} else {
			uint64_t v = load_le(r + f->offset, f->size);

			if (f->is_signed) {
				int64_t sv = f->size == 8 ? (int64_t)v :
					(int64_t)(v << (64 - 8 * f->size)) >> (64 - 8 * f->size);

				n = snprintf(buf + pos, buflen - pos, "%lld", (long long)sv);
			} else {
				n = snprintf(buf + pos, buflen - pos, "%llu", (unsigned long long)v);
			}
			pos += n > 0 ? n : 0;
		}
		if (pos >= buflen)
			pos = buflen - 1;
	}
	buf[pos] = '\0';
	return buf;
}

const void *kp_sample__raw(const void *rec, size_t size, unsigned int nr, uint32_t *len)
{
	/* struct kp_rec_sample: 56 bytes, then the frames, then the raw block. */
	const size_t head = 56 + (size_t)nr * 8;
	const uint8_t *p = rec;
	uint32_t raw_size;

	if (head + 8 > size)
		return NULL;
	memcpy(&raw_size, p + head, 4);
	if (raw_size > size - head - 8)
		return NULL;
	*len = raw_size;
	return p + head + 8;
}

/* sched_switch's prev_state as its print fmt shows it (Linux 6.1). */
static void sched_state(uint64_t state, char *buf, size_t len)
{
	static const char flags[] = "SDTtXZPI";
	size_t pos = 0;
	unsigned int i;

	buf[0] = '\0';
	if (!(state & 0xff)) {
		snprintf(buf, len, "R");
		pos = 1;
	}
	for (i = 0; i < 8 && pos + 2 < len; i++) {
		if (!(state & (1U << i)))
			continue;
		if (pos)
			buf[pos++] = '|';
		buf[pos++] = flags[i];
		buf[pos] = '\0';
	}
	if ((state & 0x100) && pos + 1 < len) {
		buf[pos++] = '+';
		buf[pos] = '\0';
	}
}

char *kp_tp_format__print_perf(const struct kp_tp_format *fmt, const void *raw, size_t len,
			       char *buf, size_t buflen)
{
	const struct kp_tp_field *pc, *pp, *pr, *ps, *nc, *np, *nr;
	const uint8_t *r = raw;
	char state[32];
	int32_t ppid, pprio, npid, nprio;
	uint64_t st = 0;

	if (strcmp(fmt->system, "sched") || strcmp(fmt->name, "sched_switch"))
		return kp_tp_format__print(fmt, raw, len, buf, buflen);
	pc = kp_tp_format__field(fmt, "prev_comm");
	pp = kp_tp_format__field(fmt, "prev_pid");
	pr = kp_tp_format__field(fmt, "prev_prio");
	ps = kp_tp_format__field(fmt, "prev_state");
	nc = kp_tp_format__field(fmt, "next_comm");
	np = kp_tp_format__field(fmt, "next_pid");
	nr = kp_tp_format__field(fmt, "next_prio");
	if (!pc || !pp || !pr || !ps || !nc || !np || !nr || pp->size != 4 || pr->size != 4 ||
	    np->size != 4 || nr->size != 4 || ps->size > 8 || pc->size > 64 || nc->size > 64 ||
	    (size_t)nr->offset + 4 > len || (size_t)ps->offset + ps->size > len ||
	    (size_t)nc->offset + nc->size > len)
		return kp_tp_format__print(fmt, raw, len, buf, buflen);
	memcpy(&ppid, r + pp->offset, 4);
	memcpy(&pprio, r + pr->offset, 4);
	memcpy(&npid, r + np->offset, 4);
	memcpy(&nprio, r + nr->offset, 4);
	memcpy(&st, r + ps->offset, ps->size);
	sched_state(st, state, sizeof(state));
	snprintf(buf, buflen,
		 "prev_comm=%.*s prev_pid=%d prev_prio=%d prev_state=%s ==> next_comm=%.*s next_pid=%d next_prio=%d",
		 (int)strnlen((const char *)r + pc->offset, pc->size), (const char *)r + pc->offset,
		 ppid, pprio, state,
		 (int)strnlen((const char *)r + nc->offset, nc->size), (const char *)r + nc->offset,
		 npid, nprio);
	return buf;
}

const struct kp_tp_format *kp_tp_cache__get(struct kp_tp_cache *c, unsigned int event,
					    const char *name)
{
	char sys[KPROF_EVENT_NAME_MAX], *colon;
	struct kp_err err;

	if (event >= KPROF_MAX_EVENTS)
		return NULL;
	if (c->tried[event])
		return c->fmt[event];
	c->tried[event] = true;
	snprintf(sys, sizeof(sys), "%s", name);
	colon = strchr(sys, ':');
	if (!colon)
		return NULL;
	*colon = '\0';
	c->fmt[event] = malloc(sizeof(*c->fmt[event]));
	if (c->fmt[event] && kp_tracefs__format(sys, colon + 1, c->fmt[event], &err)) {
		free(c->fmt[event]);
		c->fmt[event] = NULL;
	}
	return c->fmt[event];
}

void kp_tp_cache__exit(struct kp_tp_cache *c)
{
	unsigned int i;

	for (i = 0; i < KPROF_MAX_EVENTS; i++) {
		free(c->fmt[i]);
		c->fmt[i] = NULL;
		c->tried[i] = false;
	}
}
