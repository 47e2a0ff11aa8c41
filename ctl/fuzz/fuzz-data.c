// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: kprof.data bytes through the validating reader and
 * the decoder (side-band, time order, symbol resolution against nothing),
 * and the raw records of tracepoint samples through libtraceevent, with
 * the formats of the file (no tracefs).  It must never crash, leak or
 * hang; an error is a fine answer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/decode.h"
#include "lib/tpdecode.h"
#include "lib/tracefs.h"

struct fuzz_count {
	uint64_t		n;
	struct kp_tpdecode	*tp;
};

static int count(struct kp_decoder *d, const struct kp_resolved *s, void *arg)
{
	const struct kp_rec_sample *r = s->rec;
	struct fuzz_count *c = arg;
	const char *text;
	const void *raw;
	uint32_t len;

	(void)d;
	c->n += s->nr_frames + (s->comm[0] == '\0');
	if (!c->tp || !(r->header.misc & KPROF_MISC_RAW))
		return 0;
	raw = kp_sample__raw(r, r->header.size, r->nr_kernel + r->nr_user, &len);
	if (!raw)
		return 0;
	text = kp_tpdecode__info(c->tp, r->event, r->cpu, raw, len);
	c->n += text ? strlen(text) : 0;
	text = kp_tpdecode__fields(c->tp, r->event, raw, len);
	c->n += text ? strlen(text) : 0;
	return 0;
}

/*
 * libtraceevent 1.7.1 leaks a few bytes on some malformed formats (tokens
 * of its error paths, e.g. a '~' in a field's type): its leaks are not
 * ours to fix, ours are still found.  It has no frame pointers: the
 * stacks of its allocations need the unwind tables.
 */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tep_parse_format\n";
}

/* A WAKER record's two sides: every frame touched. */
static int count_waker(struct kp_decoder *d, const struct kp_rec_waker *w,
		       const struct kp_resolved *blocked, const struct kp_resolved *waker, void *arg)
{
	struct fuzz_count *c = arg;

	(void)d;
	c->n += w->count + blocked->nr_frames + waker->nr_frames + (waker->comm[0] == '\0');
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_decode_opts opts = {
		.machine = {
			.kallsyms = "/nonexistent/kallsyms",
			.symfs = "/nonexistent",
			.debug_dir = "/nonexistent",
			.cmd = "fuzz",
		},
		.time_order = size & 1,
	};
	struct fuzz_count c = { 0 };
	struct kp_decoder d;
	struct kp_err err;
	char path[64];
	int fd;

	kp_tracefs_root = "/nonexistent/kprof/events";	/* the file's formats only */
	fd = memfd_create("kprof.data", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		return 0;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!kp_decoder__open(&d, path, &opts, &err)) {
		c.tp = kp_tpdecode__new(&d.info.session, d.info.machine, &d.tp_formats);
		if (size & 2)
			kp_decoder__for_each_stack(&d, size & 4 ? KP_STACK_TID : KP_STACK_CPU, count,
						   &c);
		else
			kp_decoder__for_each(&d, count, &c);
		kp_decoder__for_each_waker(&d, count_waker, &c);
		kp_tpdecode__delete(c.tp);
		kp_decoder__close(&d);
	}
	close(fd);
	return 0;
}
